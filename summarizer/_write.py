"""Step 4 of the pipeline: write files so that a crash leaves the old or the new version, never half.

The new bytes go to a temporary file in the same folder, are flushed and fsynced, take the original's
permission bits, and replace the original with one atomic rename; the folder is fsynced so the rename
itself survives a power cut. Any failure (full disk, no permission) removes the temporary file and
leaves the original as it was. A kill (SIGKILL, power cut) cannot remove it: such leftovers are
hidden `.NAME.*.tmp` files, and `remove_temporaries` deletes them before NAME is written again.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

_TEMPORARY = re.compile(r'\.(?P<name>.+)\.[^.]+\.tmp')
"""`.NAME.X.tmp`: how `atomic_write`, `backup` and the batch name a file being written."""


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace (or create) `path` with `data` atomically."""
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = path.stat().st_mode & 0o7777
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.', suffix='.tmp')
    try:
        with os.fdopen(descriptor, 'wb') as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_directory(path.parent)


def remove_temporaries(paths: list[Path]) -> None:
    """Delete unfinished writes of `paths` left by a killed run: `.NAME.X.tmp` beside NAME, X without dots.

    Call it only where no other process is writing these paths (a batch owns its outputs). Each folder
    is listed once, however many paths it holds. The dot-free X keeps the temporaries of `NAME.other`
    (`.NAME.other.X.tmp`) out of the match.
    """
    names: dict[Path, set[str]] = {}
    for path in paths:
        names.setdefault(path.parent, set()).add(path.name)
    for folder, wanted in names.items():
        with contextlib.suppress(OSError):  # a folder not made yet has none
            for candidate in folder.iterdir():
                match = _TEMPORARY.fullmatch(candidate.name)
                if match and match['name'] in wanted:
                    candidate.unlink(missing_ok=True)


def fsync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def backup(path: Path) -> Path:
    """Copy `path` to `path.bak` (atomically, keeping its metadata) before an in-place rewrite."""
    target = path.with_name(path.name + '.bak')
    temporary = target.with_name(f'.{target.name}.tmp')
    shutil.copy2(path, temporary)
    os.replace(temporary, target)
    return target
