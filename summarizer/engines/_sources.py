"""Batch inputs: find them, stream their histories, and write results back without ever losing one.

A `Source` streams `Unit`s (one history each) and takes the finished ones back in the same order,
written to its own destination. The file sources here are siblings (`FileSource`): a `.json` history
(`JsonSource`), a `.jsonl` file of histories (`JsonlSource`), or a SQLite database (`SqliteSource`:
its history table and/or LangChain's message store); `engines.postgres` holds the PostgreSQL one. Every write back is a compare-and-swap: what is
replaced must still be what was read, else it is left alone and reported (`ChangedWhileCompacting`):

- a JSON file is replaced atomically, and only when something changed (else its mtime is kept);
- a JSONL file is streamed into a temporary file beside the target, renamed over it at the end (so a
  kill leaves the old file whole), and dropped when no line changed;
- a database is read in pages by rowid (or, in a WITHOUT ROWID table, by its primary key: each
  address names exactly one row; no statement stays open while writing) and updated inside
  transactions, each history's rows in one savepoint, committed every `commit_every` histories
  (in place with a backup: all in one transaction, so the backup is always of the original). An
  UPDATE must change exactly the one row whose stored value is still the one read.

With `--out DIR` everything is written under DIR in the inputs' layout (a database is first copied
with SQLite's backup API, then updated in the copy); with `--in-place` the inputs themselves.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import shutil
import sqlite3
import stat
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from ..core import (
    BatchConfig,
    ChangedWhileCompacting,
    Snapshot,
    atomic_write,
    backup,
    fsync_directory,
    install,
    read_snapshot,
)
from ..pipeline import Rewrite, history_identity
from ..stored import Done, SessionUnit, StoredUnit, Unit, Where, identity_of, shown_id

SQLITE_MAGIC = b'SQLite format 3\x00'
_PAGE_ROWS = 256
_ROWID_NAMES = ('rowid', '_rowid_', 'oid')


class SourceError(Exception):
    """A source cannot be used at all (missing, unreadable, no expected table): reported before any work."""


@dataclass(frozen=True, kw_only=True)
class Target:
    """How results are written: where is each source's own (`--out` or in place); or nowhere (dry run)."""

    backup: bool = False
    """In place: keep each changed file (or database) as `NAME.bak` first."""
    dry_run: bool = False
    reuse_output: bool = False
    """Resume: continue in a database copy already under `--out` instead of copying it again."""
    vacuum: bool = False
    """In place: VACUUM each database that changed, so the file shrinks by the pages compaction freed."""


class SourceProblem(Exception):
    """A problem of a whole source whose message is the full report line (no traceback-style prefix)."""


class Source(Protocol):
    """Where histories are read and their results written.

    `open`, then `units()` and `write()` in order, then `close` (or `abort`). Each kind knows its own destination (`--out` or in place): a JSON, JSONL or SQLite file
    (`FileSource`), a PostgreSQL database (`engines.postgres`).

    What `units()` read is what `write()` and `close` compare with, and it is kept across `open`: a run in
    two passes (`engines._spool`) reads the units once, then opens the source again (with `reuse_output`)
    and writes them, read from its spool, without reading the source a second time.
    """

    @property
    def kind(self) -> str:
        """What it is, for reports: json, jsonl, sqlite, postgresql."""
        ...

    @property
    def saved(self) -> bool:
        """Whether every history written so far is durable: when the source fails, those written since it last was are lost.

        A file is written at close (never saved before), a SQLite file every `commit_every` histories, a
        PostgreSQL history as it is written (always saved).
        """
        ...

    @property
    def key(self) -> str:
        """Identity in the journal."""
        ...

    @property
    def name(self) -> str:
        """How reports and progress name this source."""
        ...

    def size(self) -> int:
        """Input size (about characters), for progress."""
        ...

    def stamp(self) -> object:
        """What `--resume` compares: a journaled source is skipped only while this is what the run left."""
        ...

    def output_name(self, target: Target) -> str | None:
        """Where the results go, for the report (None: a dry run writes nothing)."""
        ...

    def has_output(self, target: Target) -> bool:
        """Whether the results of an earlier run are still where this run would write them."""
        ...

    def temporaries(self, target: Target) -> list[Path]:
        """Files whose leftover temporaries of a killed run this run may delete (by a link's target)."""
        ...

    def written_identity(self, unit: Unit) -> str:
        """The identity of a history where its compacted version is written (`--out`: the output's)."""
        ...

    def stored(self, done: Done) -> Rewrite:
        """A compaction's rewrite as this source will store it (PostgreSQL's jsonb normalizes it)."""
        ...

    def open(self, target: Target) -> None: ...

    def units(self) -> Iterator[Unit]: ...

    def write(self, done: Done) -> None:
        """Write one finished unit back; `ChangedWhileCompacting` if its stored value is not the one read."""
        ...

    def close(self) -> None:
        """Finish writing; nothing more is written after this returns."""
        ...

    def abort(self) -> None:
        """Give up on this source, leaving everything as it was (or complete)."""
        ...


class FileSource(ABC):
    """A file of histories (`Source`), written to `out` (under `--out`, in the inputs' layout) or in place."""

    kind: str
    saved = False

    def __init__(self, path: Path, *, relative: Path, out: Path | None = None) -> None:
        self.path = path
        self.relative = relative
        self.out = out
        """The `--out` folder (None: in place)."""

    @property
    def key(self) -> str:
        return str(self.path.resolve())

    @property
    def name(self) -> str:
        return str(self.path)

    @property
    def output(self) -> Path:
        """The file written: under `out` as the input is under its folder, else the input itself."""
        return self.out / self.relative if self.out is not None else self.path

    def size(self) -> int:
        return self.path.stat().st_size

    def stamp(self) -> object:
        status = self.path.stat()
        return [status.st_size, status.st_mtime_ns]

    def output_name(self, target: Target) -> str | None:
        return None if target.dry_run else str(self.output)

    def has_output(self, target: Target) -> bool:
        return self.out is None or self.output.exists()

    def temporaries(self, target: Target) -> list[Path]:
        return [Path(os.path.realpath(self.output))]

    def written_identity(self, unit: Unit) -> str:
        if self.out is None:
            return unit.identity
        return identity_of(os.path.realpath(self.output), unit.where)

    def stored(self, done: Done) -> Rewrite:
        return done.rewrite()

    def open(self, target: Target) -> None:
        self.target = target
        if self.out is not None and not target.dry_run:
            self.output.parent.mkdir(parents=True, exist_ok=True)

    @abstractmethod
    def units(self) -> Iterator[Unit]: ...

    def _identity(self, where: Where) -> str:
        return identity_of(os.path.realpath(self.path), where)

    @abstractmethod
    def write(self, done: Done) -> None: ...

    def close(self) -> None:
        return None

    def abort(self) -> None:
        return None


class JsonSource(FileSource):
    """A `.json` file holding one history, replaced atomically when it changed."""

    kind = 'json'

    def units(self) -> Iterator[Unit]:
        raw, self._snapshot = read_snapshot(self.path)
        where = Where(path=self.path)
        yield StoredUnit(where=where, raw=raw, identity=self._identity(where))

    def write(self, done: Done) -> None:
        if self.target.dry_run:
            return
        if done.changed:
            assert done.text is not None
            if self.out is None:
                if self.target.backup:
                    backup(self.path)
                atomic_write(self.output, done.text.encode('utf-8'), expected=self._snapshot)
            else:
                atomic_write(self.output, done.text.encode('utf-8'), mode=self.path.stat().st_mode & 0o7777)
        elif self.out is not None:
            copy_atomic(self.path, self.output)  # the mirror is complete; an unchanged file keeps its mtime


class JsonlSource(FileSource):
    """Lines are read and written in step; the whole file is swapped at `close` if still as read."""

    kind = 'jsonl'
    _reader: BinaryIO | None = None
    _writer: BinaryIO | None = None

    def open(self, target: Target) -> None:
        super().open(target)
        self._changed = False
        if not target.dry_run:
            output = Path(os.path.realpath(self.output))  # in place through a symlink: beside its target
            descriptor, name = tempfile.mkstemp(dir=output.parent, prefix=f'.{output.name}.', suffix='.tmp')
            self._temporary = Path(name)
            self._writer = os.fdopen(descriptor, 'wb')

    def units(self) -> Iterator[Unit]:
        """Each line's history; what was read (file identity, size, hash) is what `close` swaps against.

        Kept across `open`: a second pass writing the units a first pass read (`engines._spool`) compares
        with that read.
        """
        self._reader = self.path.open('rb')
        self._opened = os.fstat(self._reader.fileno())
        self._read = hashlib.sha256()
        self._size = 0
        self._tail = b''
        blank = b''
        for number, line in enumerate(self._reader, 1):
            self._read.update(line)
            self._size += len(line)
            body = line.rstrip(b'\r\n')
            if not body.strip():
                blank += line
                continue
            where = Where(path=self.path, line=number)
            yield StoredUnit(
                where=where, raw=body, prefix=blank, ending=line[len(body) :], identity=self._identity(where)
            )
            blank = b''
        self._tail = blank

    def write(self, done: Done) -> None:
        assert isinstance(done.unit, StoredUnit) and isinstance(done.unit.raw, bytes)
        if self._writer is None:
            return
        body = done.text.encode('utf-8') if done.changed and done.text is not None else done.unit.raw
        self._writer.write(done.unit.prefix + body + done.unit.ending)
        self._changed |= done.changed

    def close(self) -> None:
        """Swap the file in; `ChangedWhileCompacting` (nothing written) if another program changed it."""
        assert self._reader is not None, 'units() first'
        self._reader.close()
        writer = self._writer
        if writer is None:
            return
        writer.write(self._tail)
        if self.out is None and not self._changed:
            self.abort()  # nothing changed: the original stays untouched
            return
        writer.flush()
        os.fsync(writer.fileno())
        writer.close()
        if self.out is not None:
            install(self._temporary, self.output, mode=stat.S_IMODE(self._opened.st_mode))
            return
        if self.target.backup:
            backup(self.path)
        read = Snapshot(
            self._opened.st_dev, self._opened.st_ino, self._size, self._opened.st_mtime_ns, self._read.digest()
        )
        install(self._temporary, Path(os.path.realpath(self.path)), expected=read)

    def abort(self) -> None:
        if self._reader is not None:
            self._reader.close()
        if self._writer is not None:
            self._writer.close()
            self._temporary.unlink(missing_ok=True)


@dataclass(frozen=True, kw_only=True)
class Table:
    """A table of histories, and how one of its rows is addressed."""

    name: str
    id_column: str
    messages_column: str
    address: str
    """SQL naming exactly one row: a rowid alias no column shadows, or a WITHOUT ROWID table's primary key."""


@dataclass(frozen=True, kw_only=True)
class Tables:
    """Which tables of a database hold histories (None: that kind is absent)."""

    histories: Table | None
    langchain: Table | None
    """LangChain's message store (id column `id`, messages column `message`, plus `session_id`)."""


class SqliteSource(FileSource):
    kind = 'sqlite'
    _connection: sqlite3.Connection | None = None
    _pending = 0
    """Histories written since the last commit (none before `open` got as far as connecting)."""

    def __init__(self, path: Path, *, relative: Path, out: Path | None, tables: Tables, commit_every: int) -> None:
        super().__init__(path, relative=relative, out=out)
        self.tables = tables
        self.commit_every = commit_every

    def open(self, target: Target) -> None:
        super().open(target)
        database = self.output if not target.dry_run else self.path
        if self.out is not None and not target.dry_run and not (target.reuse_output and database.exists()):
            copy_database(self.path, database)
        uri = f'{database.resolve().as_uri()}?mode=ro' if target.dry_run else database.resolve().as_uri()
        self._connection = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
        self._connection.text_factory = _text_or_bytes
        self._database = database
        self._pending = 0
        self._backed_up = False
        self._wrote = False

    @property
    def connection(self) -> sqlite3.Connection:
        assert self._connection is not None, 'open() first'
        return self._connection

    def units(self) -> Iterator[Unit]:
        if self.tables.histories is not None:
            yield from self._history_rows(self.tables.histories)
        if self.tables.langchain is not None:
            yield from self._sessions(self.tables.langchain)

    def _history_rows(self, table: Table) -> Iterator[Unit]:
        address = table.address
        select = f'SELECT {address}, {_name(table.id_column)}, {_name(table.messages_column)} FROM {_name(table.name)}'
        rows = self.connection.execute(f'{select} ORDER BY {address} LIMIT ?', (_PAGE_ROWS,)).fetchall()
        while rows:
            for key, row_id, raw in rows:
                text = raw if isinstance(raw, (str, bytes)) else ''
                where = Where(
                    path=self.path,
                    table=table.name,
                    row_id=shown_id(row_id),
                    rowid=key if address in _ROWID_NAMES else None,
                )
                yield StoredUnit(where=where, raw=text, key=key, identity=self._identity(where))
            rows = self.connection.execute(
                f'{select} WHERE {address} > ? ORDER BY {address} LIMIT ?', (rows[-1][0], _PAGE_ROWS)
            ).fetchall()

    def _sessions(self, table: Table) -> Iterator[Unit]:
        """Sessions in (session_id, id) order, from a sorted list of keys made once in the temp database."""
        name, address = _name(table.name), table.address
        self.connection.execute('DROP TABLE IF EXISTS temp.batch_order')
        self.connection.execute(
            f'CREATE TEMP TABLE batch_order AS SELECT {address} AS row_key, session_id FROM {name} '
            f'ORDER BY session_id, id, {address}'
        )
        page = (
            f'SELECT o.rowid, o.row_key, m.id, m.session_id, m.message FROM temp.batch_order o JOIN {name} m '
            f'ON m.{address} = o.row_key WHERE o.rowid > ? ORDER BY o.rowid LIMIT ?'
        )
        session: object = None
        keys: list[object] = []
        ids: list[object] = []
        texts: list[str | bytes] = []
        position = 0
        while rows := self.connection.execute(page, (position, _PAGE_ROWS)).fetchall():
            for position, key, row_id, session_id, message in rows:
                if keys and session_id != session:
                    yield self._session(table, session, keys=keys, ids=ids, texts=texts)
                    keys, ids, texts = [], [], []
                session = session_id
                keys.append(key)
                ids.append(row_id)
                texts.append(message if isinstance(message, (str, bytes)) else '')
        if keys:
            yield self._session(table, session, keys=keys, ids=ids, texts=texts)

    def _session(
        self, table: Table, session: object, *, keys: list[object], ids: list[object], texts: list[str | bytes]
    ) -> SessionUnit:
        """One session's unit; its identity holds a NULL session as null, apart from a session named 'NULL'."""
        where = Where(path=self.path, table=table.name, session=shown_id(session))
        identity = history_identity(
            os.path.realpath(self.path), table=table.name, session=None if session is None else str(session)
        )
        return SessionUnit(where=where, keys=keys, ids=ids, texts=texts, identity=identity)

    def write(self, done: Done) -> None:
        """Update one history's rows in a savepoint; `ChangedWhileCompacting` (all rolled back) if one changed."""
        if self.target.dry_run or not done.changed:
            return
        if self.out is None and self.target.backup and not self._backed_up:
            copy_database(self.path, self.path.with_name(self.path.name + '.bak'), as_backup=True)
            self._backed_up = True
        if not self.connection.in_transaction:
            self.connection.execute('BEGIN IMMEDIATE')
        unit = done.unit
        self.connection.execute('SAVEPOINT history')
        try:
            if isinstance(unit, StoredUnit):
                assert self.tables.histories is not None and done.text is not None
                value: str | bytes = done.text.encode('utf-8') if isinstance(unit.raw, bytes) else done.text
                self._update(self.tables.histories, key=unit.key, old=unit.raw, new=value, where=unit.where, row='')
            else:
                assert self.tables.langchain is not None
                for position, text in done.rows.items():
                    self._update(
                        self.tables.langchain,
                        key=unit.keys[position],
                        old=unit.texts[position],
                        new=text,
                        where=unit.where,
                        row=f'row {shown_id(unit.ids[position])} ',
                    )
        except BaseException:
            with contextlib.suppress(sqlite3.Error):  # an error that ended the transaction took the savepoint along
                self.connection.execute('ROLLBACK TO history')
                self.connection.execute('RELEASE history')
            raise
        self.connection.execute('RELEASE history')
        self._wrote = True
        self._pending += 1
        # With a backup, all updates are one transaction: a killed run leaves the original, not a part-compacted
        # database that the rerun would back up over it.
        if self._pending >= self.commit_every and not self._backed_up:
            self._commit()

    def _update(self, table: Table, *, key: object, old: str | bytes, new: str | bytes, where: Where, row: str) -> None:
        """Compare-and-swap one row: it must still hold exactly `old` (same bytes, same storage class).

        `row`: which row of a session, for the report (a history row is the unit's own).
        """
        messages = _name(table.messages_column)
        cursor = self.connection.execute(
            f'UPDATE {_name(table.name)} SET {messages} = ? WHERE {table.address} = ? '
            f'AND {messages} = ? COLLATE BINARY',
            (new, key, old),
        )
        if cursor.rowcount != 1:
            changed = 'changed or deleted' if cursor.rowcount == 0 else f'{cursor.rowcount} rows matched'
            raise ChangedWhileCompacting(where.describe(), f'changed while compacting ({row}{changed})')

    @property
    def saved(self) -> bool:
        return self._pending == 0

    def _commit(self) -> None:
        if self.connection.in_transaction:
            self.connection.execute('COMMIT')
        self._pending = 0

    def close(self) -> None:
        self._commit()
        self.connection.execute('DROP TABLE IF EXISTS temp.batch_order')
        try:
            if self.target.vacuum and self._wrote:
                try:
                    self.connection.execute('VACUUM')
                except sqlite3.Error as exc:
                    raise SourceProblem(f'compacted, but VACUUM failed ({exc}): the file keeps its size') from None
        finally:
            self.connection.close()

    def abort(self) -> None:
        if self._connection is None:
            return
        with contextlib.suppress(sqlite3.Error):
            if self._connection.in_transaction:
                self._connection.execute('ROLLBACK')
            self._connection.close()


def _text_or_bytes(data: bytes) -> str | bytes:
    """A TEXT value as `str`, or its bytes when they are not UTF-8 (SQLite stores what it is given).

    The default factory raises for the whole query, so one such row would fail its whole source; as
    bytes it is one history reported as not UTF-8 and left as it was, and the other rows go on.
    """
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return data


def _name(identifier: str) -> str:
    """A quoted SQL identifier (table and column names come from the user)."""
    return '"' + identifier.replace('"', '""') + '"'


def copy_atomic(source: Path, target: Path) -> None:
    """Copy a file with its metadata (mtime included) so that `target` is never half-written."""
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f'.{target.name}.', suffix='.tmp')
    os.close(descriptor)
    try:
        shutil.copy2(source, temporary)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def copy_database(source: Path, target: Path, *, as_backup: bool = False) -> None:
    """A consistent copy of a live database (SQLite's backup API), renamed into place when complete.

    A backup keeps the source's owner (where the runner may give it away), group and mode; an `--out`
    copy is the runner's, writable by it.
    """
    temporary = target.with_name(f'.{target.name}.copy.tmp')
    temporary.unlink(missing_ok=True)
    try:
        with (
            contextlib.closing(sqlite3.connect(source.resolve().as_uri() + '?mode=ro', uri=True)) as reader,
            contextlib.closing(sqlite3.connect(temporary)) as writer,
        ):
            writer.execute('PRAGMA journal_mode = OFF')  # a kill must leave no `-journal` of a throwaway file
            reader.backup(writer)
        _settle(target)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_directory(target.parent)
    with contextlib.suppress(OSError):
        shutil.copystat(source, target)
        if as_backup:
            status = source.stat()
            os.chown(target, status.st_uid, status.st_gid)
            target.chmod(stat.S_IMODE(status.st_mode))  # chown clears set-id bits
        else:
            target.chmod(stat.S_IMODE(target.stat().st_mode) | stat.S_IWUSR)  # ours to write, read-only source or not


def _settle(database: Path) -> None:
    """Before a copy is renamed over `database`: finish what a writer killed on it left, and drop its sidecars.

    A `-journal` (hot, of a transaction cut short) or a `-wal` beside a database belongs to that file:
    left beside the copy renamed over it, the next open would play the old file's pages into the new one
    (a corrupt copy, or a `.bak` holding the killed writer's rows). Opening the old file lets SQLite roll
    back or checkpoint it first, so the old file stays whole until the rename; whatever is left (a file
    that is not a database, a lock that would not clear, sidecars whose database was deleted) is
    removed, as the old file goes anyway.
    """
    if database.exists():
        with contextlib.suppress(sqlite3.Error):
            _read_to_recover(database)
    for sidecar in ('-journal', '-wal', '-shm'):
        database.with_name(database.name + sidecar).unlink(missing_ok=True)


# -- discovery ---------------------------------------------------------------------------------------


def discover(paths: list[Path], *, config: BatchConfig, out: Path | None, in_place: bool = False) -> list[FileSource]:
    """Every source under `paths`, checked before any work: a `SourceError` names the first bad one.

    `in_place`: the run rewrites the sources where they are, so each must be writable, and so must
    its folder (the atomic replace of a file, SQLite's journal). A read-only one is bad input, found
    here rather than after its summaries are made. A symlink is written through to its target, so a
    file reached twice (by its name and by a link) is one source. `out`: no output may be an input
    itself (by name, link or hard link): an in-place rewrite goes through `--in-place` and its checks.
    """
    sources: list[FileSource] = []
    outputs: dict[Path, Path] = {}
    targets: set[Path] = set()
    skip = out.resolve() if out is not None else None
    for path in paths:
        if not path.exists():
            raise SourceError(f'{path}: no such file or directory')
        if path.is_dir():
            if _inside(path, skip):
                raise SourceError(
                    f'{path}: inside the --out folder {out}, whose files are outputs: choose another --out'
                )
            found = [
                (file, file.relative_to(path))
                for file in sorted(path.rglob('*'))
                if file.is_file() and _wanted(file.relative_to(path), config) and not _inside(file, skip)
            ]
        else:
            found = [(path, Path(path.name))]
        for file, relative in found:
            if in_place:
                if file.resolve() in targets:
                    continue  # a symlink to a file already taken (or the file of a symlink taken): written once
                targets.add(file.resolve())
            source = classify(file, relative=relative, out=out, config=config)
            if in_place:
                _check_writable(file)
            if out is not None:
                if relative in outputs:
                    raise SourceError(f'{file} and {outputs[relative]} would both be written to {out / relative}')
                outputs[relative] = file
            sources.append(source)
    if out is not None:
        _check_outputs(outputs, out=out)
    return sources


def _check_outputs(outputs: dict[Path, Path], *, out: Path) -> None:
    """`SourceError` if an output (relative path under `out` -> its input) is an input file (name, link or hard link)."""
    inputs: dict[tuple[int, int], Path] = {}
    for file in outputs.values():
        status = file.stat()
        inputs.setdefault((status.st_dev, status.st_ino), file)
    for relative, file in outputs.items():
        try:
            status = (out / relative).stat()
        except OSError:
            continue  # not there yet (or not reachable: writing it reports why)
        other = inputs.get((status.st_dev, status.st_ino))
        if other is None:
            continue
        if other == file or os.path.samefile(other, file):
            raise SourceError(f'{file}: --out {out} would write over this input: that is --in-place, with its checks')
        raise SourceError(f'{file}: --out {out} would write over the input {other}')


def _check_writable(file: Path) -> None:
    if not os.access(file, os.W_OK):
        raise SourceError(f'{file}: read-only, cannot be compacted in place')
    if not os.access(file.resolve().parent, os.W_OK | os.X_OK):  # a symlink's target is replaced beside it
        raise SourceError(f'{file}: its folder is read-only, cannot be compacted in place')


def _wanted(relative: Path, config: BatchConfig) -> bool:
    if any(part.startswith('.') for part in relative.parts) or relative.name.endswith('.bak'):
        return False  # hidden files (our temporary files among them) and backups

    def matches(patterns: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatch(relative.name, p) or fnmatch.fnmatch(relative.as_posix(), p) for p in patterns)

    return matches(config.include) and not matches(config.exclude)


def _inside(file: Path, folder: Path | None) -> bool:
    return folder is not None and file.resolve().is_relative_to(folder)


def classify(file: Path, *, relative: Path, out: Path | None, config: BatchConfig) -> FileSource:
    try:
        with file.open('rb') as handle:
            header = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise SourceError(f'{file}: cannot read: {exc.strerror or exc}') from None
    if header == SQLITE_MAGIC:
        tables = _tables(file, config)
        return SqliteSource(file, relative=relative, out=out, tables=tables, commit_every=config.commit_every)
    if file.suffix == '.jsonl':
        return JsonlSource(file, relative=relative, out=out)
    return JsonSource(file, relative=relative, out=out)


def _tables(file: Path, config: BatchConfig) -> Tables:
    try:
        recover(file)
        with contextlib.closing(sqlite3.connect(file.resolve().as_uri() + '?mode=ro', uri=True)) as connection:
            columns = {
                table: {row[1].lower(): row[5] for row in connection.execute(f'PRAGMA table_info({_name(table)})')}
                for table in (config.table, config.langchain_table)
            }
            has_histories = {config.id_column.lower(), config.messages_column.lower()} <= columns[config.table].keys()
            has_langchain = {'id', 'session_id', 'message'} <= columns[config.langchain_table].keys()
            histories = langchain = None
            if has_histories:
                address = _address(connection, file, config.table, config.id_column, columns[config.table])
                histories = Table(
                    name=config.table,
                    id_column=config.id_column,
                    messages_column=config.messages_column,
                    address=address,
                )
            if has_langchain:
                table = config.langchain_table
                address = _address(connection, file, table, 'id', columns[table])
                langchain = Table(name=table, id_column='id', messages_column='message', address=address)
    except sqlite3.Error as exc:
        raise SourceError(f'{file}: not a usable SQLite database: {exc}') from None
    if histories is None and langchain is None:
        raise SourceError(
            f'{file}: no table {config.table}({config.id_column}, {config.messages_column}) '
            f'nor {config.langchain_table}(id, session_id, message)'
        )
    return Tables(histories=histories, langchain=langchain)


def _address(
    connection: sqlite3.Connection, file: Path, table: str, id_column: str, primary_key: dict[str, int]
) -> str:
    """How to name exactly one row of `table`: its rowid, or its id column in a WITHOUT ROWID table.

    There the id column must be the whole primary key (then unique and never NULL). In a rowid table
    an id column may repeat or be NULL (`id TEXT PRIMARY KEY` allows NULL), so it cannot address rows.

    `primary_key`: column name (lower case) -> its position in the primary key (0: not part of it).
    """
    for alias in _ROWID_NAMES:
        if alias in primary_key:
            continue  # a column of that name shadows the rowid
        try:
            connection.execute(f'SELECT {alias} FROM {_name(table)} LIMIT 0')
        except sqlite3.OperationalError:
            break  # WITHOUT ROWID
        return alias
    if [name for name, position in primary_key.items() if position] == [id_column.lower()]:
        return _name(id_column)
    raise SourceError(
        f'{file}: table {table} has no rowid and {id_column} is not its whole primary key, so its rows '
        'cannot be told apart (it needs a rowid, or an id column that is its primary key)'
    )


def recover(file: Path) -> None:
    """Roll back the transaction a killed writer left in a hot journal (`NAME-journal`), as SQLite does.

    SQLite rolls it back on the next read by a connection that may write; a read-only connection
    (discovery, the copy for `--out`, a dry run) cannot, and refuses the whole database instead
    ("attempt to write a readonly database"). The rollback restores the last committed state; a
    journal of a writer still at work is not hot, and this read just waits for or skips its lock.
    """
    if file.with_name(file.name + '-journal').exists():
        _read_to_recover(file)


def _read_to_recover(file: Path) -> None:
    """Read `file` through a connection that may write, so that SQLite finishes a killed writer's work.

    It rolls back a hot journal before the read; the last connection to close checkpoints and
    removes a `-wal`.
    """
    with contextlib.closing(sqlite3.connect(file.resolve().as_uri(), uri=True)) as connection:
        connection.execute('PRAGMA schema_version').fetchone()


def shard(sources: list[Source], index: int, count: int) -> list[Source]:
    """Shard `index` (1-based) of `count`: every count-th source, so shards get similar mixes."""
    return sources[index - 1 :: count]
