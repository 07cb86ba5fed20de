"""Names a package exports but imports only when they are first used (PEP 562's module `__getattr__`).

`import summarizer.cli` or a Ray worker's `import summarizer.engines.ray` first runs the `__init__`
of every package on the way, and an `__init__` that imports pydantic-ai (more than a second of CPU)
makes `summarizer --version`, `--help` and every worker process pay for it whether they need it or not.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence


def lazy_exports(package: str, homes: Sequence[str]) -> Callable[[str], object]:
    """The module `__getattr__` of `package`: a name of its `__all__` it has not imported yet comes from `homes`.

    The package imports those names under `if TYPE_CHECKING:` only (so type checkers and readers see
    where each comes from); `homes` are the modules holding them, relative to the package, looked in
    in turn. A name found is kept on the package, so each is looked up once.
    """

    def __getattr__(name: str) -> object:
        module = sys.modules[package]
        if name in getattr(module, '__all__', ()):
            for home in homes:
                found = importlib.import_module(home, package)
                if hasattr(found, name):
                    value: object = getattr(found, name)
                    setattr(module, name, value)
                    return value
        raise AttributeError(f'module {package!r} has no attribute {name!r}')

    return __getattr__
