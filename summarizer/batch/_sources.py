"""Batch inputs: find them, stream their histories, and write results back without ever losing one.

A source is one file: a `.json` history, a `.jsonl` file of histories, or a SQLite database (its
history table and/or LangChain's message store). A source streams `Unit`s (one history each) and
takes the finished ones back in the same order:

- a JSON file is replaced atomically, and only when something changed (else its mtime is kept);
- a JSONL file is streamed into a temporary file beside the target, renamed over it at the end (so a
  kill leaves the old file whole), and dropped when no line changed;
- a database is read in pages by key (no statement stays open while writing) and updated inside
  transactions, each history's rows in one transaction, committed every `commit_every` histories
  (in place with a backup: all in one transaction, so the backup is always of the original).

With `--out DIR` everything is written under DIR in the inputs' layout (a database is first copied
with SQLite's backup API, then updated in the copy); with `--in-place` the inputs themselves.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .._config import BatchConfig
from .._pipeline import Report
from .._write import atomic_write, backup, fsync_directory

SQLITE_MAGIC = b'SQLite format 3\x00'
_PAGE_ROWS = 256


class SourceError(Exception):
    """A source cannot be used at all (missing, unreadable, no expected table): reported before any work."""


@dataclass(frozen=True, kw_only=True)
class Target:
    """Where results go: under `out` (mirroring the inputs), in place, or nowhere (dry run)."""

    out: Path | None = None
    backup: bool = False
    """In place: keep each changed file (or database) as `NAME.bak` first."""
    dry_run: bool = False
    reuse_output: bool = False
    """Resume: continue in a database copy already under `out` instead of copying it again."""


@dataclass(frozen=True, kw_only=True)
class Where:
    """A history's location, for reports: file, then line (JSONL) or table and row id / session."""

    path: Path
    line: int | None = None
    table: str | None = None
    row_id: str | None = None
    session: str | None = None

    def describe(self, message_index: int | None = None) -> str:
        text = str(self.path) + (f':{self.line}' if self.line is not None else '')
        if self.table is not None:
            text += f' table {self.table}'
        if self.session is not None:
            text += f' session {self.session}'
        if self.row_id is not None:
            text += f' row {self.row_id}'
        return text + (f' message {message_index}' if message_index is not None else '')


@dataclass(frozen=True, kw_only=True)
class StoredUnit:
    """One pydantic-ai history as stored text (a file, a JSONL line or a row)."""

    where: Where
    raw: bytes | str
    key: int | str | None = None
    """The row's id, for a database row."""
    prefix: bytes = b''
    """JSONL: blank lines before this line, written back as they were."""
    ending: bytes = b''
    """JSONL: this line's line ending."""


@dataclass(frozen=True, kw_only=True)
class SessionUnit:
    """One LangChain session: its rows' ids and texts, in id order."""

    where: Where
    keys: list[int]
    texts: list[str]


Unit = StoredUnit | SessionUnit


def unit_size(unit: Unit) -> int:
    """Characters (about bytes) of a unit's text, for progress and throughput."""
    return len(unit.raw) if isinstance(unit, StoredUnit) else sum(len(text) for text in unit.texts)


@dataclass(kw_only=True)
class Done:
    """A compacted unit: its new text (or new rows), its counts, or why it failed (nothing written)."""

    unit: Unit
    report: Report = field(default_factory=Report)
    tokens_before: int = 0
    tokens_after: int = 0
    text: str | None = None
    rows: dict[int, str] = field(default_factory=dict[int, str])
    error: str | None = None
    where: Where | None = None
    """Where the error is, when more precise than the unit (a row of a session)."""
    message_index: int | None = None

    @property
    def changed(self) -> bool:
        return self.error is None and (self.text is not None or bool(self.rows))


class Source:
    """A file of histories; `open`, then `units()` and `write()` in order, then `close` (or `abort`)."""

    kind = 'json'

    def __init__(self, path: Path, *, relative: Path) -> None:
        self.path = path
        self.relative = relative

    @property
    def key(self) -> str:
        """Identity in the journal."""
        return str(self.path.resolve())

    def output(self, target: Target) -> Path:
        return target.out / self.relative if target.out is not None else self.path

    def open(self, target: Target) -> None:
        self.target = target
        if target.out is not None and not target.dry_run:
            self.output(target).parent.mkdir(parents=True, exist_ok=True)

    def units(self) -> Iterator[Unit]:
        yield StoredUnit(where=Where(path=self.path), raw=self.path.read_bytes())

    def write(self, done: Done) -> None:
        target = self.target
        if target.dry_run:
            return
        output = self.output(target)
        if done.changed:
            assert done.text is not None
            if target.out is None and target.backup:
                backup(self.path)
            atomic_write(output, done.text.encode('utf-8'), mode=self.path.stat().st_mode & 0o7777)
        elif target.out is not None:
            copy_atomic(self.path, output)  # the mirror is complete; an unchanged file keeps its mtime

    def close(self) -> None:
        """Finish writing; nothing more is written after this returns."""

    def abort(self) -> None:
        """Give up on this source, leaving every file as it was (or complete)."""


class JsonlSource(Source):
    kind = 'jsonl'
    _reader: BinaryIO | None = None
    _writer: BinaryIO | None = None

    def open(self, target: Target) -> None:
        super().open(target)
        self._reader = self.path.open('rb')
        self._changed = False
        self._tail = b''
        if not target.dry_run:
            output = self.output(target)
            descriptor, name = tempfile.mkstemp(dir=output.parent, prefix=f'.{output.name}.', suffix='.tmp')
            self._temporary = Path(name)
            self._writer = os.fdopen(descriptor, 'wb')

    def units(self) -> Iterator[Unit]:
        assert self._reader is not None
        blank = b''
        for number, line in enumerate(self._reader, 1):
            body = line.rstrip(b'\r\n')
            if not body.strip():
                blank += line
                continue
            yield StoredUnit(where=Where(path=self.path, line=number), raw=body, prefix=blank, ending=line[len(body) :])
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
        assert self._reader is not None
        self._reader.close()
        writer = self._writer
        if writer is None:
            return
        writer.write(self._tail)
        if self.target.out is None and not self._changed:
            self.abort()  # nothing changed: the original stays untouched
            return
        writer.flush()
        os.fsync(writer.fileno())
        writer.close()
        os.chmod(self._temporary, self.path.stat().st_mode & 0o7777)
        if self.target.out is None and self.target.backup:
            backup(self.path)
        output = self.output(self.target)
        os.replace(self._temporary, output)
        fsync_directory(output.parent)

    def abort(self) -> None:
        if self._reader is not None:
            self._reader.close()
        if self._writer is not None:
            self._writer.close()
            self._temporary.unlink(missing_ok=True)


@dataclass(frozen=True, kw_only=True)
class Tables:
    """Which tables of a database hold histories (None: that kind is absent)."""

    histories: tuple[str, str, str] | None
    """(table, id column, messages column)."""
    langchain: str | None


class SqliteSource(Source):
    kind = 'sqlite'
    _connection: sqlite3.Connection | None = None

    def __init__(self, path: Path, *, relative: Path, tables: Tables, commit_every: int) -> None:
        super().__init__(path, relative=relative)
        self.tables = tables
        self.commit_every = commit_every

    def open(self, target: Target) -> None:
        super().open(target)
        database = self.output(target) if not target.dry_run else self.path
        if target.out is not None and not target.dry_run and not (target.reuse_output and database.exists()):
            copy_database(self.path, database)
        uri = f'{database.resolve().as_uri()}?mode=ro' if target.dry_run else database.resolve().as_uri()
        self._connection = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)
        self._database = database
        self._pending = 0
        self._backed_up = False

    @property
    def connection(self) -> sqlite3.Connection:
        assert self._connection is not None, 'open() first'
        return self._connection

    def units(self) -> Iterator[Unit]:
        if self.tables.histories is not None:
            yield from self._history_rows(*self.tables.histories)
        if self.tables.langchain is not None:
            yield from self._sessions(self.tables.langchain)

    def _history_rows(self, table: str, id_column: str, messages_column: str) -> Iterator[Unit]:
        select = f'SELECT {_name(id_column)}, {_name(messages_column)} FROM {_name(table)}'
        rows = self.connection.execute(f'{select} ORDER BY 1 LIMIT ?', (_PAGE_ROWS,)).fetchall()
        while rows:
            for key, raw in rows:
                text = raw if isinstance(raw, (str, bytes)) else ''
                yield StoredUnit(where=Where(path=self.path, table=table, row_id=str(key)), raw=text, key=key)
            rows = self.connection.execute(
                f'{select} WHERE {_name(id_column)} > ? ORDER BY 1 LIMIT ?', (rows[-1][0], _PAGE_ROWS)
            ).fetchall()

    def _sessions(self, table: str) -> Iterator[Unit]:
        """Sessions in (session_id, id) order, from a sorted list of keys made once in the temp database."""
        self.connection.execute('DROP TABLE IF EXISTS temp.batch_order')
        self.connection.execute(
            f'CREATE TEMP TABLE batch_order AS SELECT id AS row_id, session_id FROM {_name(table)} ORDER BY session_id, id'
        )
        page = (
            f'SELECT o.rowid, m.id, m.session_id, m.message FROM temp.batch_order o JOIN {_name(table)} m '
            'ON m.id = o.row_id WHERE o.rowid > ? ORDER BY o.rowid LIMIT ?'
        )
        session: object = None
        keys: list[int] = []
        texts: list[str] = []
        position = 0
        while rows := self.connection.execute(page, (position, _PAGE_ROWS)).fetchall():
            for position, key, session_id, message in rows:
                if keys and session_id != session:
                    yield SessionUnit(
                        where=Where(path=self.path, table=table, session=str(session)), keys=keys, texts=texts
                    )
                    keys, texts = [], []
                session = session_id
                keys.append(key)
                texts.append(message if isinstance(message, str) else bytes(message or b'').decode('utf-8', 'replace'))
        if keys:
            yield SessionUnit(where=Where(path=self.path, table=table, session=str(session)), keys=keys, texts=texts)

    def write(self, done: Done) -> None:
        if self.target.dry_run or not done.changed:
            return
        if self.target.out is None and self.target.backup and not self._backed_up:
            copy_database(self.path, self.path.with_name(self.path.name + '.bak'))
            self._backed_up = True
        if not self.connection.in_transaction:
            self.connection.execute('BEGIN IMMEDIATE')
        unit = done.unit
        if isinstance(unit, StoredUnit):
            assert self.tables.histories is not None and done.text is not None
            table, id_column, messages_column = self.tables.histories
            value: str | bytes = done.text.encode('utf-8') if isinstance(unit.raw, bytes) else done.text
            self.connection.execute(
                f'UPDATE {_name(table)} SET {_name(messages_column)} = ? WHERE {_name(id_column)} = ?',
                (value, unit.key),
            )
        else:
            assert self.tables.langchain is not None
            self.connection.executemany(
                f'UPDATE {_name(self.tables.langchain)} SET message = ? WHERE id = ?',
                [(text, unit.keys[position]) for position, text in done.rows.items()],
            )
        self._pending += 1
        # With a backup, all updates are one transaction: a killed run leaves the original, not a part-compacted
        # database that the rerun would back up over it.
        if self._pending >= self.commit_every and not self._backed_up:
            self._commit()

    def _commit(self) -> None:
        if self.connection.in_transaction:
            self.connection.execute('COMMIT')
        self._pending = 0

    def close(self) -> None:
        self._commit()
        self.connection.execute('DROP TABLE IF EXISTS temp.batch_order')
        self.connection.close()

    def abort(self) -> None:
        if self._connection is None:
            return
        with contextlib.suppress(sqlite3.Error):
            if self._connection.in_transaction:
                self._connection.execute('ROLLBACK')
            self._connection.close()


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


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a live database (SQLite's backup API), renamed into place when complete."""
    temporary = target.with_name(f'.{target.name}.copy.tmp')
    temporary.unlink(missing_ok=True)
    try:
        with contextlib.closing(sqlite3.connect(source.resolve().as_uri() + '?mode=ro', uri=True)) as reader:
            with contextlib.closing(sqlite3.connect(temporary)) as writer:
                writer.execute('PRAGMA journal_mode = OFF')  # a kill must leave no `-journal` of a throwaway file
                reader.backup(writer)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_directory(target.parent)
    with contextlib.suppress(OSError):
        shutil.copystat(source, target)
        target.chmod(
            stat.S_IMODE(target.stat().st_mode) | stat.S_IWUSR
        )  # the copy is ours to write, read-only source or not


# -- discovery ---------------------------------------------------------------------------------------


def discover(paths: list[Path], *, config: BatchConfig, out: Path | None, in_place: bool = False) -> list[Source]:
    """Every source under `paths`, checked before any work: a `SourceError` names the first bad one.

    `in_place`: the run rewrites the sources where they are, so each must be writable, and so must
    its folder (the atomic replace of a file, SQLite's journal). A read-only one is bad input, found
    here rather than after its summaries are made.
    """
    sources: list[Source] = []
    outputs: dict[Path, Path] = {}
    skip = out.resolve() if out is not None else None
    for path in paths:
        if not path.exists():
            raise SourceError(f'{path}: no such file or directory')
        if path.is_dir():
            found = [
                (file, file.relative_to(path))
                for file in sorted(path.rglob('*'))
                if file.is_file() and _wanted(file.relative_to(path), config) and not _inside(file, skip)
            ]
        else:
            found = [(path, Path(path.name))]
        for file, relative in found:
            source = classify(file, relative=relative, config=config)
            if in_place:
                _check_writable(file)
            if out is not None:
                if relative in outputs:
                    raise SourceError(f'{file} and {outputs[relative]} would both be written to {out / relative}')
                outputs[relative] = file
            sources.append(source)
    return sources


def _check_writable(file: Path) -> None:
    if not os.access(file, os.W_OK):
        raise SourceError(f'{file}: read-only, cannot be compacted in place')
    if not os.access(file.parent, os.W_OK | os.X_OK):
        raise SourceError(f'{file}: its folder is read-only, cannot be compacted in place')


def _wanted(relative: Path, config: BatchConfig) -> bool:
    if any(part.startswith('.') for part in relative.parts) or relative.name.endswith('.bak'):
        return False  # hidden files (our temporary files among them) and backups

    def matches(patterns: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatch(relative.name, p) or fnmatch.fnmatch(relative.as_posix(), p) for p in patterns)

    return matches(config.include) and not matches(config.exclude)


def _inside(file: Path, folder: Path | None) -> bool:
    return folder is not None and file.resolve().is_relative_to(folder)


def classify(file: Path, *, relative: Path, config: BatchConfig) -> Source:
    try:
        with file.open('rb') as handle:
            header = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise SourceError(f'{file}: cannot read: {exc.strerror or exc}') from None
    if header == SQLITE_MAGIC:
        return SqliteSource(file, relative=relative, tables=_tables(file, config), commit_every=config.commit_every)
    if file.suffix == '.jsonl':
        return JsonlSource(file, relative=relative)
    return Source(file, relative=relative)


def _tables(file: Path, config: BatchConfig) -> Tables:
    try:
        recover(file)
        with contextlib.closing(sqlite3.connect(file.resolve().as_uri() + '?mode=ro', uri=True)) as connection:
            columns = {
                table: {row[1] for row in connection.execute(f'PRAGMA table_info({_name(table)})')}
                for table in (config.table, config.langchain_table)
            }
    except sqlite3.Error as exc:
        raise SourceError(f'{file}: not a usable SQLite database: {exc}') from None
    histories = (config.table, config.id_column, config.messages_column)
    has_histories = {config.id_column, config.messages_column} <= columns[config.table]
    has_langchain = {'id', 'session_id', 'message'} <= columns[config.langchain_table]
    if not has_histories and not has_langchain:
        raise SourceError(
            f'{file}: no table {config.table}({config.id_column}, {config.messages_column}) '
            f'nor {config.langchain_table}(id, session_id, message)'
        )
    return Tables(
        histories=histories if has_histories else None, langchain=config.langchain_table if has_langchain else None
    )


def recover(file: Path) -> None:
    """Roll back the transaction a killed writer left in a hot journal (`NAME-journal`), as SQLite does.

    SQLite rolls it back on the next read by a connection that may write; a read-only connection
    (discovery, the copy for `--out`, a dry run) cannot, and refuses the whole database instead
    ("attempt to write a readonly database"). The rollback restores the last committed state; a
    journal of a writer still at work is not hot, and this read just waits for or skips its lock.
    """
    if file.with_name(file.name + '-journal').exists():
        with contextlib.closing(sqlite3.connect(file.resolve().as_uri(), uri=True)) as connection:
            connection.execute('PRAGMA schema_version').fetchone()


def shard(sources: list[Source], index: int, count: int) -> list[Source]:
    """Shard `index` (1-based) of `count`: every count-th source, so shards get similar mixes."""
    return sources[index - 1 :: count]
