"""Step 4 of the pipeline: write files so that a crash leaves the old or the new version, never half.

The new bytes go to a temporary file in the same folder, are flushed and fsynced, take the original's
owner, group and permission bits, and replace the original with one atomic rename; the folder is
fsynced so the rename itself survives a power cut. A symlink is written through: its target is
replaced and the link stays a link. Any failure (full disk, no permission) removes the temporary
file and leaves the original as it was. A kill (SIGKILL, power cut) cannot remove it: such leftovers
are hidden `.NAME.*.tmp` files, and `remove_temporaries` deletes them before NAME is written again.

A rewrite in place is a compare-and-swap: given the `Snapshot` of what was read, the file is
replaced only while it still holds exactly that (same inode, size, mtime and content hash), checked
under an exclusive `flock` of the file held across the rename. A file another program changed while
it was being compacted is left as that program made it (`ChangedWhileCompacting`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_TEMPORARY = re.compile(r'\.(?P<name>.+)\.[^.]+\.tmp')
"""`.NAME.X.tmp`: how `atomic_write`, `backup` and the batch name a file being written."""

_LOCK_SECONDS = 30.0
"""How long a rewrite waits for another holder of the file's lock (as SQLite's busy timeout)."""


class ChangedWhileCompacting(Exception):
    """The stored value is no longer the one that was read: nothing was written over it."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(where, reason)
        self.where = where
        self.problem = f'{reason}; not written'

    def __str__(self) -> str:
        return f'{self.where}: {self.problem}'


@dataclass(frozen=True)
class Snapshot:
    """What a file held when it was read: a rewrite in place replaces only exactly that."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    sha256: bytes

    @classmethod
    def of(cls, status: os.stat_result, data: bytes) -> Snapshot:
        """`status` is taken at or before the read of `data`, so any later change shows in the check."""
        return cls(status.st_dev, status.st_ino, len(data), status.st_mtime_ns, hashlib.sha256(data).digest())

    def difference(self, descriptor: int) -> str | None:
        """How the open file differs from this snapshot (None: it is unchanged)."""
        status = os.fstat(descriptor)
        if (status.st_dev, status.st_ino) != (self.device, self.inode):
            return 'replaced by another file'
        if status.st_size != self.size:
            return f'size {self.size:,} -> {status.st_size:,} bytes'
        if status.st_mtime_ns != self.mtime_ns:
            return 'modified'
        digest = hashlib.sha256()
        offset = 0
        while chunk := os.pread(descriptor, 1 << 20, offset):
            digest.update(chunk)
            offset += len(chunk)
        return None if digest.digest() == self.sha256 else 'content differs'


def read_snapshot(path: Path) -> tuple[bytes, Snapshot]:
    """A file's bytes and the snapshot a later `atomic_write(..., expected=...)` checks against."""
    with path.open('rb') as handle:
        status = os.fstat(handle.fileno())
        data = handle.read()
    return data, Snapshot.of(status, data)


def atomic_write(path: Path, data: bytes, *, mode: int | None = None, expected: Snapshot | None = None) -> None:
    """Replace (or create) `path` (through a symlink: its target) with `data` atomically.

    An existing file's owner and group are kept, and its mode unless `mode` is given. With
    `expected`, the file must still be as snapshotted (else `ChangedWhileCompacting`, nothing written).
    """
    path = Path(os.path.realpath(path))
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.', suffix='.tmp')
    try:
        with os.fdopen(descriptor, 'wb') as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    install(Path(temporary), path, mode=mode, expected=expected)


def install(temporary: Path, path: Path, *, mode: int | None = None, expected: Snapshot | None = None) -> None:
    """Rename the complete, fsynced `temporary` over `path` (see `atomic_write`); it is removed on failure."""
    try:
        try:
            current = os.stat(path)
        except FileNotFoundError:
            if expected is not None:
                raise ChangedWhileCompacting(str(path), 'changed while compacting (deleted)') from None
            current = None
        if current is not None:
            _take_owner(temporary, current)
        if mode is not None or current is not None:
            os.chmod(temporary, mode if mode is not None else stat.S_IMODE(current.st_mode))  # type: ignore[union-attr]
        if expected is None:
            os.replace(temporary, path)
        else:
            _replace_if_unchanged(temporary, path, expected)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_directory(path.parent)


def _take_owner(temporary: Path, like: os.stat_result) -> None:
    """Give the new file the old one's owner and group: a file compacted by root stays its owner's."""
    mine = os.stat(temporary)
    if (mine.st_uid, mine.st_gid) == (like.st_uid, like.st_gid):
        return
    try:
        os.chown(temporary, like.st_uid, like.st_gid)
    except PermissionError:
        raise PermissionError(
            errno.EPERM, f'cannot give the rewrite its owner {like.st_uid}:{like.st_gid} (not root, not the owner)'
        ) from None


def _replace_if_unchanged(temporary: Path, path: Path, expected: Snapshot) -> None:
    """The compare-and-swap: under the file's exclusive lock, check it is as read, then rename over it."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        _lock(descriptor, path)
        difference = expected.difference(descriptor)
        if difference is not None:
            raise ChangedWhileCompacting(str(path), f'changed while compacting ({difference})')
        os.replace(temporary, path)
    finally:
        os.close(descriptor)  # releases the lock


def _lock(descriptor: int, path: Path) -> None:
    deadline = time.monotonic() + _LOCK_SECONDS
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise ChangedWhileCompacting(
                    str(path), f'locked by another program for {_LOCK_SECONDS:.0f} s'
                ) from None
            time.sleep(0.05)


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
    """Copy `path` to `path.bak` (atomically, keeping its metadata and owner) before an in-place rewrite.

    A failure (full disk) removes the partial copy and leaves any earlier `path.bak` as it was.
    """
    target = path.with_name(path.name + '.bak')
    temporary = target.with_name(f'.{target.name}.tmp')
    try:
        shutil.copy2(path, temporary)
        status = os.stat(path)
        with contextlib.suppress(PermissionError):  # not root: the copy is the runner's, readable as before
            os.chown(temporary, status.st_uid, status.st_gid)
            os.chmod(temporary, stat.S_IMODE(status.st_mode))  # chown clears set-id bits
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


def private_folder(path: Path, name: str, *, holds: str, create: bool = True) -> Path:
    """The owner-only folder to keep private files in (a cache, the originals store), given the one configured.

    That is `path` itself when this call creates it or it is already private to this user (owned, no
    access for group or others); otherwise, a folder someone else made or shares (`/tmp`, a team
    folder), a private folder `name` inside it. A folder this process did not create is never
    changed: only a folder it creates is set to 0700.

    Where the files already are comes first, so a `chmod` of `path` between two runs does not move
    them: the folder `name` when it exists, else `path` when it holds this user's own file `holds`
    (the database) and is this user's. `create=False` only says where the folder is or would be,
    creating nothing. `PermissionError` when `name` exists there but is not private to this user.
    """
    inner = path / name
    if os.path.lexists(inner):
        if create and not _private(inner):
            raise PermissionError(errno.EACCES, f'{inner} exists but is not a folder private to this user')
        return inner
    if path.is_dir() and (_private(path) or (_owned(path) and _owned(path / holds, regular=True))):
        return path
    if not create:
        return inner if path.is_dir() else path
    if make_folders(path) or not path.is_dir():
        return path  # (not a folder: using it fails, naming it)
    if not make_folders(inner) and not _private(inner):
        raise PermissionError(errno.EACCES, f'{inner} exists but is not a folder private to this user')
    return inner


def make_folders(path: Path) -> bool:
    """Create `path` and its missing parents, each 0700 whatever the umask; True if `path` itself was created.

    A level another process creates meanwhile is left as that process made it.
    """
    missing: list[Path] = []
    level = path
    while not os.path.lexists(level):
        missing.append(level)
        level = level.parent
    created = False
    for level in reversed(missing):
        try:
            os.mkdir(level, 0o700)
        except FileExistsError:
            created = False
            continue
        os.chmod(level, 0o700)  # ours, just made: mkdir's mode is masked by the umask
        created = True
    return created


def _private(path: Path) -> bool:
    status = path.stat()
    return stat.S_ISDIR(status.st_mode) and status.st_uid == os.geteuid() and not status.st_mode & 0o077


def _owned(path: Path, *, regular: bool = False) -> bool:
    """Whether `path` is this user's (a regular file, not a link, when `regular`)."""
    try:
        status = path.lstat()
    except OSError:
        return False
    return status.st_uid == os.geteuid() and (stat.S_ISREG(status.st_mode) or not regular)
