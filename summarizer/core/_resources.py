"""Where the shipped data files (config.yaml, prompts/) live, how a user installs an extra, the version.

In the repository they sit at the top level, beside the package, where people look for them; the
wheel carries them inside the package as `summarizer/_data/` (see pyproject.toml).
"""

from __future__ import annotations

import functools
from pathlib import Path

_PACKAGE = Path(__file__).parent.parent
_PACKAGED = _PACKAGE / '_data'


def data_path(name: str) -> Path:
    """Path of a shipped data file or folder: the packaged copy in a wheel, else the repository's."""
    root = _PACKAGED if _PACKAGED.is_dir() else _PACKAGE.parent
    return root / name


@functools.cache  # asked for by every embedded model's cache identity (`pipeline._models.model_id`)
def package_version() -> str:
    """The installed distribution's version (`summarizer --version`, `summarizer.__version__`).

    Looked up when asked for: importing `importlib.metadata` costs more CPU than the rest of the
    command's start-up.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version('tool-return-summarizer')
    except PackageNotFoundError:  # run from a source tree that was never installed
        return '0+unknown'


def install_hint(extra: str) -> str:
    """The command that installs one of the project's extras (pyproject.toml), as a user runs it.

    The distribution is not on PyPI: it is installed from a checkout of the repository, by path.
    """
    return f"pip install '.[{extra}]' in the project's checkout"
