"""Step 4 of the pipeline: write files so that a crash leaves the old or the new version, never half.

The new bytes go to a temporary file in the same folder, are flushed and fsynced, take the original's
permission bits, and replace the original with one atomic rename; the folder is fsynced so the rename
itself survives a power cut. Any failure (full disk, no permission) removes the temporary file and
leaves the original as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


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
