"""PostgreSQL as a batch source: `summarizer batch postgresql://USER@HOST/DB[?table=...]`.

A database may hold (a) a table with one pydantic-ai history per row in a `text` (or `varchar`),
`json` or `jsonb` column, and (b) `langchain-postgres`'s message table (one LangChain message per
row as `jsonb`; the rows of a `session_id`, in `id` order, are one history). psycopg 3, no ORM.

Reading: one connection holds a read-only REPEATABLE READ transaction and a server-side cursor,
fetched in pages, so memory is bounded by a page and the histories in flight, and every row is read
once, as of one snapshot, however the table changes meanwhile. Values are read as text (`::text`).

Writing: a second connection writes each history in its own short transaction (a LangChain
session's rows together). Every UPDATE is a compare-and-swap of exactly one row, addressed by
`tableoid` and `ctid` (any update of the row moves it to a new ctid) and still holding the id and the
value that were read; otherwise the transaction is rolled back and the history reported "changed
while compacting", so a concurrent writer always wins. The row is read back in the same
transaction (`RETURNING`) before the commit: `text` and `json` columns must hold exactly the bytes
written (json keeps its input text); `jsonb` stores its own normal form of a text (key order,
spacing), so there the column must hold exactly the server's normal form of the compacted history
that passed the post-check. That normal form is also what the originals store records for the
history (`PostgresSource.stored`), so `summarizer restore` finds it as the column gives it back.

Credentials come from the URL or libpq (`PGPASSWORD`, `~/.pgpass`, `PGSERVICE`, ...); a password (or
`sslpassword`, any secret libpq takes) is never shown, whatever the URL's shape (`core.PgUrl`): the source
is named by its URL without it, libpq gets it apart from the URL, and it is removed from every message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, LiteralString

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import TupleRow

from ..core import BatchConfig, ChangedWhileCompacting, PgUrl
from ..pipeline import Replaced, Rewrite, history_identity
from ..stored import Done, Row, SessionUnit, StoredHistory, StoredUnit, Unit, Where, shown_id
from ._sources import Source, SourceError, SourceProblem, Target

Connection = psycopg.Connection[TupleRow]
_PAGE_ROWS = 256
_CONNECT_TIMEOUT = 10
_LOCK_TIMEOUT_SECONDS = 30
"""As SQLite's busy timeout: how long one history's UPDATE waits for a row the application has locked."""
ColumnKind = Literal['text', 'json', 'jsonb']
_KINDS: dict[str, ColumnKind] = {'text': 'text', 'character varying': 'text', 'json': 'json', 'jsonb': 'jsonb'}
_VALUE: dict[ColumnKind, LiteralString] = {'text': '%(new)s', 'json': '%(new)s::json', 'jsonb': '%(new)s::jsonb'}
_SAME: dict[ColumnKind, LiteralString] = {
    'text': '{column} COLLATE "C" = %(old)s',  # byte for byte, whatever the column's collation
    'json': '{column}::text = %(old)s',  # json keeps its input text (and has no = operator)
    'jsonb': '{column} = %(old)s::jsonb',
}
"""The compare of the compare-and-swap: the row still holds the value that was read."""


@dataclass(frozen=True, kw_only=True)
class Location(PgUrl):
    """A `postgresql://` argument (see `core.PgUrl`) and how to connect to it."""

    @property
    def dbname(self) -> str:
        return str(conninfo_to_dict(self.conninfo).get('dbname') or '')

    @property
    def address(self) -> str:
        """The database by host, port and name (no user, no credential): how the originals store names it."""
        info = conninfo_to_dict(self.conninfo)
        return f'postgresql://{info.get("host", "")}:{info.get("port", "")}/{info.get("dbname", "")}'

    def problem(self, exc: BaseException) -> str:
        """An exception as one line without secrets (libpq's messages may span lines)."""
        return self.redact(' '.join(str(exc).split()) or type(exc).__name__)

    def connect(self, *, dbname: str | None = None, read_only: bool = False) -> Connection:
        given = conninfo_to_dict(self.conninfo)
        options: dict[str, object] = {}
        if 'connect_timeout' not in given:
            options['connect_timeout'] = _CONNECT_TIMEOUT
        if 'application_name' not in given:
            options['application_name'] = 'summarizer batch'
        if dbname is not None:
            options['dbname'] = dbname
        options.update(self.credentials)
        connection = psycopg.connect(self.conninfo, autocommit=True, **options)  # pyright: ignore[reportArgumentType]
        if read_only:
            connection.read_only = True
        return connection


@dataclass(frozen=True, kw_only=True)
class PgTable:
    """A table of histories (or of LangChain messages) and its history column's type."""

    name: str
    """As the user named it (reports)."""
    parts: tuple[str, ...]
    """Schema and table (or just the table: found on the search path), each an SQL identifier."""
    id_column: str
    messages_column: str
    kind: ColumnKind
    langchain: bool = False

    @property
    def identifier(self) -> sql.Identifier:
        return sql.Identifier(*self.parts)

    def query(self, text: LiteralString, **identifiers: str) -> sql.Composed:
        names = {key: sql.Identifier(value) for key, value in identifiers.items()}
        return sql.SQL(text).format(table=self.identifier, **names)


class RowNotWritten(ChangedWhileCompacting):
    """The server refused one history's update (a constraint, a trigger, a lock timeout): rolled back, reported."""


class PostgresSource:
    """One database URL (a `Source`): its history and/or LangChain message table, in place or into `out`."""

    kind = 'postgresql'
    saved = True
    """Each history is committed as it is written."""
    _reader: Connection | None = None
    _writer: Connection | None = None

    def __init__(self, location: Location, *, tables: list[PgTable], out: Location | None) -> None:
        self.location = location
        self.tables = tables
        self.out = out

    @property
    def key(self) -> str:
        return self.location.shown

    @property
    def name(self) -> str:
        return self.location.shown

    def output_tables(self) -> list[PgTable]:
        """The tables results are written to: the inputs, or their copies named by `--out`'s keys."""
        if self.out is None:
            return self.tables
        copies: list[PgTable] = []
        for table in self.tables:
            name = self.out.keys.get('langchain_table' if table.langchain else 'table')
            if name is None:
                copies.append(table)  # the same name (and schema) in the output database
            else:  # taken literally: `schema.table` or `table`, case kept
                copies.append(dataclasses.replace(table, name=name, parts=tuple(name.split('.', 1))))
        return copies

    def size(self) -> int:
        """Characters of every stored history (one scan on the server; 0 if it cannot be had)."""
        return sum(int(str(value)) for value in self._aggregate('coalesce(sum(length({column}::text)), 0)') or [])

    def stamp(self) -> object:
        """Row count and an order-independent hash of every (id, value) of the input tables.

        `--resume` skips a journaled source while this is unchanged: a database has no mtime, so its
        tables are hashed on the server (one scan).
        """
        values = self._aggregate(
            'count(*)',
            "coalesce(sum(hashtextextended(coalesce({id}::text, '') || ':' || coalesce({column}::text, ''), 0)), 0)",
        )
        return [str(value) for value in values] if values is not None else None

    def _aggregate(self, *expressions: LiteralString) -> list[object] | None:
        try:
            with self.location.connect(read_only=True) as connection:
                values: list[object] = []
                for table in self.tables:
                    select = ', '.join(expressions)
                    query = table.query(
                        f'SELECT {select} FROM {{table}}', column=table.messages_column, id=table.id_column
                    )
                    row = connection.execute(query).fetchone()
                    values.extend(row or ())
                return values
        except psycopg.Error:
            return None

    def output_name(self, target: Target) -> str | None:
        if target.dry_run:
            return None
        return self.out.shown if self.out is not None else self.location.shown

    def has_output(self, target: Target) -> bool:
        if self.out is None:
            return True
        try:
            with self.out.connect(read_only=True) as connection:
                return all(_exists(connection, table.parts) for table in self.output_tables())
        except psycopg.Error:
            return False

    def temporaries(self, target: Target) -> list[Path]:
        return []

    # -- a run -----------------------------------------------------------------------------------

    def open(self, target: Target) -> None:
        self.target = target
        self._work = self.tables
        database = self.location
        self._database = database
        try:
            if self.out is not None and not target.dry_run:
                database = self._database = self.out
                self._work = self.output_tables()
                self._copy(reuse=target.reuse_output)
            self._reader = database.connect(read_only=True)
            # The snapshot stays open, idle between pages, while the histories of a page are compacted.
            self._reader.execute('SET idle_in_transaction_session_timeout = 0')
            self._reader.autocommit = False
            self._reader.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            if not target.dry_run:
                self._writer = database.connect()
                # A row the application keeps locked is reported after this wait, not waited on forever.
                self._writer.execute(sql.SQL('SET lock_timeout = {}').format(sql.Literal(f'{_LOCK_TIMEOUT_SECONDS}s')))
        except psycopg.Error as exc:
            self.abort()
            raise SourceProblem(f'cannot open: {self.location.problem(exc)}') from None

    def _copy(self, *, reuse: bool) -> None:
        """Copy the input tables into `--out` (its database created if absent), each in one transaction."""
        assert self.out is not None
        if _missing_database(self.out):
            with self.out.connect(dbname='postgres') as maintenance:
                maintenance.execute(sql.SQL('CREATE DATABASE {}').format(sql.Identifier(self.out.dbname)))
        with self.out.connect() as connection, self.location.connect(read_only=True) as source:
            for table, copy in zip(self.tables, self.output_tables()):
                if _exists(connection, copy.parts) and not _empty(connection, copy.parts):
                    if reuse:
                        continue  # --resume: go on in the copy an earlier run made (copied in one transaction)
                    raise SourceProblem(f'the output table {copy.name} already holds rows')
                columns = _columns(source, table.parts)
                with connection.transaction():
                    if not _exists(connection, copy.parts):
                        connection.execute(_create_table(copy.identifier, columns, _primary_key(source, table.parts)))
                    names = sql.SQL(', ').join(sql.Identifier(name) for name, _, _ in columns)
                    reading = sql.SQL('COPY (SELECT {} FROM {}) TO STDOUT').format(names, table.identifier)
                    writing = sql.SQL('COPY {} ({}) FROM STDIN').format(copy.identifier, names)
                    with source.cursor().copy(reading) as out, connection.cursor().copy(writing) as into:
                        for data in out:
                            into.write(data)

    def units(self) -> Iterator[Unit]:
        try:
            for table in self._work:
                yield from (self._sessions(table) if table.langchain else self._histories(table))
            assert self._reader is not None
            self._reader.rollback()  # the read snapshot is no longer needed
        except psycopg.Error as exc:
            raise SourceProblem(f'reading failed: {self.location.problem(exc)}; nothing more written') from None

    def _rows(self, query: sql.Composed) -> Iterator[tuple[object, ...]]:
        """Rows through a server-side cursor, a page at a time."""
        assert self._reader is not None
        with self._reader.cursor(name='summarizer_batch') as cursor:
            cursor.execute(query)
            while page := cursor.fetchmany(_PAGE_ROWS):
                yield from page

    def _histories(self, table: PgTable) -> Iterator[Unit]:
        query = table.query(
            'SELECT tableoid, ctid::text, {id}::text, {column}::text FROM {table}',
            id=table.id_column,
            column=table.messages_column,
        )
        shared = self._shared_ids(table)
        for oid, ctid, row_id, raw in self._rows(query):
            where = Where(path=self.name, table=table.name, row_id=shown_id(row_id))
            text = raw if isinstance(raw, str) else ''
            refused = None
            if row_id in shared:
                refused = (
                    f'{shared[row_id]} rows have this {table.id_column}, and the originals store tells histories '
                    'apart by it, so one could be restored as another: left as it is (make the column unique)'
                )
            identity = self._identity(table, row=row_id)
            yield StoredUnit(where=where, raw=text, key=(oid, ctid, row_id), identity=identity, refused=refused)

    def _shared_ids(self, table: PgTable) -> dict[object, int]:
        """Ids (NULL too) that more than one row holds, with how many, in the read snapshot.

        A row is addressed by its ctid, which an update changes, so the originals store knows a row
        by its id: rows sharing one would share their records. An id that is the table's primary key
        is unique and never NULL: no scan of the table then.
        """
        assert self._reader is not None
        if _primary_key(self._reader, table.parts) == [table.id_column]:
            return {}
        query = table.query(
            'SELECT {id}::text, count(*) FROM {table} GROUP BY 1 HAVING count(*) > 1', id=table.id_column
        )
        return {row_id: int(count) for row_id, count in self._reader.execute(query).fetchall()}

    def _sessions(self, table: PgTable) -> Iterator[Unit]:
        query = table.query(
            'SELECT tableoid, ctid::text, id::text, session_id::text, {column}::text FROM {table} '
            'ORDER BY session_id, id',
            column=table.messages_column,
        )
        session: object = None
        keys: list[object] = []
        ids: list[object] = []
        texts: list[str | bytes] = []
        for oid, ctid, row_id, session_id, message in self._rows(query):
            if keys and session_id != session:
                yield self._session(table, session, keys=keys, ids=ids, texts=texts)
                keys, ids, texts = [], [], []
            session = session_id
            keys.append((oid, ctid, row_id))
            ids.append(row_id)
            texts.append(message if isinstance(message, str) else '')
        if keys:
            yield self._session(table, session, keys=keys, ids=ids, texts=texts)

    def _session(
        self, table: PgTable, session: object, *, keys: list[object], ids: list[object], texts: list[str | bytes]
    ) -> SessionUnit:
        where = Where(path=self.name, table=table.name, session=shown_id(session))
        identity = self._identity(table, session=None if session is None else str(session))
        return SessionUnit(where=where, keys=keys, ids=ids, texts=texts, identity=identity)

    def _identity(self, table: PgTable, *, row: object = None, session: str | None = None) -> str:
        """A history's identity: the database it is read from and written to, its table, its row id or session.

        The id or session as read, not as reports show it: a NULL one and the text 'NULL' are two.
        """
        return history_identity(self._database.address, table='.'.join(table.parts), session=session, row=row)

    def written_identity(self, unit: Unit) -> str:
        return unit.identity  # read where it is written (`--out`: in the copy)

    def stored(self, done: Done) -> Rewrite:
        """The rewrite as the column will give it back: a jsonb column stores its own normal form of the text.

        The new texts are normalized by the server (`::jsonb::text`, as the read after the write will
        see them) and the summaries found again in them; the old texts were read from the column,
        normalized already. `_update` checks that the column then holds exactly these texts.
        """
        rewrite = done.rewrite()
        table = self._table_of(done.unit)
        if table.kind != 'jsonb':
            return rewrite
        changed = sorted({value.text_index for value in rewrite.replaced})
        try:
            normal = dict(zip(changed, self._normalized([rewrite.after[index] for index in changed]), strict=True))
        except psycopg.Error as exc:
            raise RowNotWritten(
                done.unit.where.describe(), f'the server refused it: {self.location.problem(exc)}'
            ) from None
        after = [normal.get(index, text) for index, text in enumerate(rewrite.after)]
        spans = StoredHistory.parse(after[0]).spans if isinstance(done.unit, StoredUnit) else {}
        replaced: list[Replaced] = []
        for value in rewrite.replaced:
            span = spans[value.part] if value.part is not None else Row.parse(after[value.text_index]).content_span
            assert span is not None  # the row held this content value before it was normalized
            replaced.append(dataclasses.replace(value, after=span))
        return Rewrite(before=rewrite.before, after=after, replaced=replaced)

    def _normalized(self, texts: list[str]) -> list[str]:
        """Each JSON text in jsonb's normal form, as the server writes it."""
        assert self._writer is not None
        query = 'SELECT value::jsonb::text FROM unnest(%s::text[]) WITH ORDINALITY AS given(value, n) ORDER BY n'
        return [str(value) for (value,) in self._writer.execute(query, (texts,)).fetchall()]

    def _table_of(self, unit: Unit) -> PgTable:
        """The table a history is in: the LangChain table holds sessions, the other one histories."""
        langchain = isinstance(unit, SessionUnit)
        return next(table for table in self._work if table.langchain == langchain)

    def write(self, done: Done) -> None:
        """One history's rows in one transaction; `ChangedWhileCompacting` (rolled back) if one is not as read."""
        if self.target.dry_run or not done.changed:
            return
        assert self._writer is not None
        unit = done.unit
        try:
            with self._writer.transaction():
                table = self._table_of(unit)
                if isinstance(unit, StoredUnit):
                    assert done.text is not None and isinstance(unit.raw, str)
                    self._update(table, key=unit.key, old=unit.raw, new=done.text, where=unit.where)
                else:
                    for position, text in done.rows.items():
                        where = unit.row_where(position)
                        old = unit.texts[position]
                        assert isinstance(old, str) and isinstance(text, str)
                        self._update(table, key=unit.keys[position], old=old, new=text, where=where)
        except psycopg.OperationalError as exc:
            if self._writer.broken:
                raise SourceProblem(f'connection lost: {self.location.problem(exc)}') from None
            raise RowNotWritten(unit.where.describe(), f'the server refused it: {self.location.problem(exc)}') from None
        except psycopg.Error as exc:
            raise RowNotWritten(unit.where.describe(), f'the server refused it: {self.location.problem(exc)}') from None

    def _update(self, table: PgTable, *, key: object, old: str, new: str, where: Where) -> None:
        """Compare-and-swap one row, then read it back: `new` byte for byte (jsonb: in its normal form).

        A jsonb column stores its own normal form of a text (key order, spacing), which is what the
        originals store recorded (`stored`), so the column must give back exactly `new::jsonb::text`.
        """
        assert self._writer is not None and isinstance(key, tuple)
        oid, ctid, row_id = key  # pyright: ignore[reportUnknownVariableType]
        query = table.query(
            'UPDATE {table} SET {column} = '
            + _VALUE[table.kind]
            + ' WHERE tableoid = %(oid)s AND ctid = %(ctid)s::tid AND {id}::text IS NOT DISTINCT FROM %(id)s AND '
            + _SAME[table.kind]
            + ' RETURNING {column}::text, '
            + _VALUE[table.kind]
            + '::text',
            column=table.messages_column,
            id=table.id_column,
        )
        rows = self._writer.execute(query, {'new': new, 'oid': oid, 'ctid': ctid, 'id': row_id, 'old': old}).fetchall()
        if len(rows) != 1:
            changed = 'changed or deleted' if not rows else f'{len(rows)} rows matched'
            raise ChangedWhileCompacting(where.describe(), f'changed while compacting ({changed})')
        stored, written = rows[0]
        if stored != written or (table.kind != 'jsonb' and stored != new):
            raise RowNotWritten(where.describe(), f'the stored {table.kind} is not the checked rewrite byte for byte')

    def close(self) -> None:
        self.abort()

    def abort(self) -> None:
        for connection in (self._reader, self._writer):
            if connection is not None:
                connection.close()  # an open transaction is rolled back
        self._reader = self._writer = None


# -- discovery ---------------------------------------------------------------------------------------


def postgres_sources(
    urls: Sequence[str], *, config: BatchConfig, target: Target, out: Path | str | None = None
) -> list[Source]:
    """A source per URL, checked before any work: a `SourceError` is one line naming the problem.

    `out`: the run's `--out`, a postgresql:// URL for these sources (None: in place).
    """
    if not urls:
        return []
    if isinstance(out, Path):
        raise SourceError(f'{Location.parse(urls[0]).shown}: --out for a PostgreSQL source must be a postgresql:// URL')
    into = _location(out) if out is not None and not target.dry_run else None
    sources: list[Source] = []
    for url in urls:
        location = _location(url)
        try:
            with location.connect(read_only=True) as connection:
                tables = _tables(connection, location, config)
            source = PostgresSource(location, tables=tables, out=into)
            if into is not None:
                _check_output(source, reuse=target.reuse_output)
        except psycopg.Error as exc:
            raise SourceError(f'{location.shown}: {location.problem(exc)}') from None
        sources.append(source)
    return sources


def _location(url: str) -> Location:
    location = Location.parse(url)
    if location.malformed is not None:
        raise SourceError(f'{location.shown}: {location.malformed}')
    return location


def _check_output(source: PostgresSource, *, reuse: bool) -> None:
    assert source.out is not None
    out = source.out
    if _same_database(source.location, out):
        for table, copy in zip(source.tables, source.output_tables()):
            if table.parts == copy.parts:
                raise SourceError(f'{out.shown}: --out names the input table {table.name} itself; use --in-place')
    try:
        if _missing_database(out):
            return  # created when the run starts
        connection = out.connect(read_only=True)
    except psycopg.Error as exc:
        raise SourceError(f'{out.shown}: {out.problem(exc)}') from None
    with connection:
        for copy in source.output_tables():
            if not reuse and _exists(connection, copy.parts) and not _empty(connection, copy.parts):
                raise SourceError(
                    f'{out.shown}: the output table {copy.name} already holds rows '
                    '(drop it, choose another with ?table=, or --resume to continue in it)'
                )


def _missing_database(location: Location) -> bool:
    """Whether the server is there but the database is not (asked in the `postgres` maintenance database).

    A failed connection carries no SQLSTATE to tell "no such database" from other failures, so ask.
    """
    try:
        location.connect(read_only=True).close()
        return False
    except psycopg.OperationalError as failure:
        try:
            with location.connect(dbname='postgres', read_only=True) as maintenance:
                query = 'SELECT 1 FROM pg_database WHERE datname = %s'
                found = maintenance.execute(query, (location.dbname,)).fetchone()
        except psycopg.Error:
            found = True
        if found is not None or not location.dbname:
            raise failure from None  # the first failure is the problem
        return True


def _same_database(first: Location, second: Location) -> bool:
    return first.address == second.address


def _tables(connection: Connection, location: Location, config: BatchConfig) -> list[PgTable]:
    """The history and LangChain tables of the database; an explicitly named one must exist and fit."""
    keys = location.keys
    name = keys.get('table', config.table)
    id_column = keys.get('id_column', config.id_column)
    messages_column = keys.get('messages_column', config.messages_column)
    langchain_name = keys.get('langchain_table', config.langchain_table)
    explicit_histories = bool({'table', 'id_column', 'messages_column'} & keys.keys())
    tables: list[PgTable] = []
    for table_name, columns, langchain, explicit in (
        (name, (id_column, messages_column), False, explicit_histories),
        (langchain_name, ('id', 'session_id', 'message'), True, 'langchain_table' in keys),
    ):
        try:
            found = _table(connection, table_name, columns, langchain=langchain)
        except _Unfit as exc:
            raise SourceError(f'{location.shown}: table {table_name}: {exc}') from None
        if found is not None:
            tables.append(found)
        elif explicit:
            raise SourceError(f'{location.shown}: table {table_name}: no such table')
    if not tables:
        raise SourceError(
            f'{location.shown}: no table {name}({id_column}, {messages_column}) '
            f'nor {langchain_name}(id, session_id, message)'
        )
    return tables


class _Unfit(Exception):
    """The table exists but cannot hold histories as named (a column missing, a wrong type, not a table)."""


def _table(connection: Connection, name: str, columns: tuple[str, ...], *, langchain: bool) -> PgTable | None:
    """The table, None if there is none of that name; `_Unfit` if it exists but does not fit."""
    row = connection.execute(
        'SELECT n.nspname::text, c.relname::text, c.relkind::text FROM pg_class c '
        'JOIN pg_namespace n ON n.oid = c.relnamespace '
        'WHERE c.oid = to_regclass(%s)',
        (name,),
    ).fetchone()
    if row is None:
        return None
    if row[2] not in ('r', 'p'):  # rows are addressed by ctid, which views and foreign tables lack
        raise _Unfit('not a table (a view or foreign table?): name the table behind it')
    parts = (str(row[0]), str(row[1]))
    found = {column: (kind, full) for column, kind, full in _columns(connection, parts, detail=True)}
    missing = [column for column in columns if column not in found]
    if missing:
        raise _Unfit(f'column {", ".join(missing)} missing (it has {", ".join(found)})')
    messages = columns[-1]
    base, full = found[messages]
    kind = _KINDS.get(base)
    if kind is None:
        raise _Unfit(f'column {messages} is {full}; a history column must be text, varchar, json or jsonb')
    return PgTable(
        name=name,
        parts=parts,
        id_column=columns[0],
        messages_column=messages,
        kind=kind,
        langchain=langchain,
    )


def _columns(connection: Connection, table: tuple[str, ...], *, detail: bool = False) -> list[tuple[str, str, str]]:
    """(name, base type or full type, full type or NOT NULL) of each column, in order."""
    rows = connection.execute(
        'SELECT attname::text, format_type(atttypid, NULL), format_type(atttypid, atttypmod), attnotnull '
        'FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum',
        (_regclass(connection, table),),
    ).fetchall()
    if detail:
        return [(str(name), str(base), str(full)) for name, base, full, _ in rows]
    return [(str(name), str(full), ' NOT NULL' if not_null else '') for name, _, full, not_null in rows]


def _primary_key(connection: Connection, table: tuple[str, ...]) -> list[str]:
    rows = connection.execute(
        'SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid '
        'AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)',
        (_regclass(connection, table),),
    ).fetchall()
    return [str(name) for (name,) in rows]


def _create_table(table: sql.Identifier, columns: list[tuple[str, str, str]], primary_key: list[str]) -> sql.Composed:
    """The `--out` copy's table: the same columns, types, NOT NULL and primary key (no defaults or indexes)."""
    definitions = [
        sql.SQL(' ').join([sql.Identifier(name), sql.SQL(full + not_null)])  # pyright: ignore[reportArgumentType]
        for name, full, not_null in columns  # (type names as the server's format_type spells them)
    ]
    if primary_key:
        keys = sql.SQL(', ').join(sql.Identifier(name) for name in primary_key)
        definitions.append(sql.SQL('PRIMARY KEY ({})').format(keys))
    return sql.SQL('CREATE TABLE {} ({})').format(table, sql.SQL(', ').join(definitions))


def _regclass(connection: Connection, table: tuple[str, ...]) -> str:
    """A table's name as text for `to_regclass` and `::regclass`, quoted as in SQL."""
    return sql.Identifier(*table).as_string(connection)


def _exists(connection: Connection, table: tuple[str, ...]) -> bool:
    row = connection.execute('SELECT to_regclass(%s) IS NOT NULL', (_regclass(connection, table),)).fetchone()
    return bool(row and row[0])


def _empty(connection: Connection, table: tuple[str, ...]) -> bool:
    return connection.execute(sql.SQL('SELECT 1 FROM {} LIMIT 1').format(sql.Identifier(*table))).fetchone() is None
