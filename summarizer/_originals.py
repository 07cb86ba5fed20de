"""The originals store: every summarized content, kept so that summarizing is never a one-way door.

Two ways back, two lookups:

- **a value**: `(tool_call_id, the summary's JSON text)` -> the original content. The plugin's
  `read_tool_return` finds an original from the summary it sees in the conversation, so it needs no
  state of its own and works across runs and for histories compacted by the CLI.
- **a history**: the exact text of a compacted history -> where each summary sits in it and the exact
  text of its original (the bytes the file held, which may be pretty-printed or ASCII-escaped), plus
  the hash of the whole original text. `summarizer restore` splices the originals back and compares
  the result's hash with the recorded one, so a restore is byte-exact or refused.

Each original is kept once, under the SHA-256 of the JSON text kept (its compact JSON, or the exact
text a file held when that differs), with its tool name, its size and its content hash: the SHA-256
of its `json_text`, the text the cache key hashes.

Storage is one SQLite database (WAL) in an owner-only folder: batch workers share it, and a history
record is durable (fsynced) before the compacted file that needs it is written. It is a store, not a
cache: nothing is evicted; past `size_limit_mb` new originals are refused. A store that cannot be
opened or written, or that is full, logs one warning and refuses from then on, and callers claim
nothing for what it refused (no summary names the read tool, no history can be restored).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._cache import storable_json
from ._config import READ_TOOL_NAME, SummarizerConfig
from ._shape import JsonValue
from ._tokens import Tokenizer, json_text

logger = logging.getLogger(__name__)

_DATABASE = 'originals.db'
_SCHEMA = (
    (
        'CREATE TABLE IF NOT EXISTS originals (hash TEXT PRIMARY KEY, content_hash TEXT NOT NULL, '
        'tool_name TEXT NOT NULL, size INTEGER NOT NULL, text TEXT NOT NULL, stored_at REAL NOT NULL)'
    ),
    (
        'CREATE TABLE IF NOT EXISTS summaries (key TEXT NOT NULL, original TEXT NOT NULL, stored_at REAL NOT NULL, '
        'PRIMARY KEY (key, original)) WITHOUT ROWID'
    ),
    'CREATE TABLE IF NOT EXISTS histories (key TEXT PRIMARY KEY, original_hash TEXT NOT NULL, spans TEXT NOT NULL)',
    'CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL)',
    "INSERT OR IGNORE INTO totals VALUES ('bytes', 0)",
)
_DISK_ERRORS = (OSError, sqlite3.Error)

READ_HINT = f' ({READ_TOOL_NAME} for the full text)'
"""Follows the first omission marker of a string summary whose original is stored."""
READ_LINE = f'…{READ_HINT}'
"""The last line of such a summary that holds no marker of its own (a model's own words, pieces of a line)."""
_ELLIPSIS = r'(?:…|\\u2026)'
_MARKER = re.compile(rf'{_ELLIPSIS} \d+ (?:(?:similar )?lines?|items?) omitted {_ELLIPSIS}')
"""An omission marker a summary writes: `… 212 lines omitted …` (`extractive.lines.marker`), `… 3 items omitted …`
(`_shape.items_marker`, in the JSON text a string holding JSON is summarized to, where it may be `\\u2026`-escaped)."""


def text_hash(text: str) -> str:
    """Hex SHA-256 of a text's UTF-8 bytes: of a canonical JSON text, the content hash the cache uses."""
    return hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()


def _compact_json(value: JsonValue) -> str:
    """What the store keeps of an in-memory content: its JSON text (a string quoted, unlike `json_text`)."""
    return storable_json(value, separators=(',', ':'))


def summary_key(tool_call_id: str, summary_text: str) -> str:
    """The value lookup's key: which call's return, and the summary that replaced its content."""
    return text_hash(f'{tool_call_id}\x00{summary_text}')


def with_read_hint(original_text: str, summary: JsonValue) -> JsonValue:
    """A string summary that names the read tool once; any other summary as it is (see `read_hint_tokens`).

    The hint follows the summary's first omission marker, or failing one ends it as a line of its
    own (`READ_LINE`). A marker is the summarizer's when the original does not hold its text: one
    it does (a kept line that reads like a marker) is never touched, so kept lines stay byte for
    byte. A string holding JSON that has no marker of its own gets no hint: a line added would
    break its JSON.
    """
    if not isinstance(summary, str):
        return summary
    for match in _MARKER.finditer(summary):
        if match[0] not in original_text:
            return f'{summary[: match.end()]}{READ_HINT}{summary[match.end() :]}'
    if _is_json_container(summary):
        return summary
    return f'{summary}\n{READ_LINE}'


def read_hint_tokens(tokenizer: Tokenizer) -> int:
    """The most tokens `with_read_hint` adds to a string summary: what its budget leaves for the hint.

    Counts are subadditive (the estimate's and a tokenizer's, as near as makes no matter), so a
    summary this much under a limit stays under it with the hint.
    """
    return tokenizer(f'\n{READ_LINE}')


def _is_json_container(text: str) -> bool:
    stripped = text.strip()
    if not stripped.startswith(('[', '{')):
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, kw_only=True)
class Kept:
    """One summarized value, to be readable back from its summary."""

    tool_name: str
    tool_call_id: str
    content: JsonValue
    content_text: str
    """Its `json_text` (a string's own text), which the content hash hashes, as the cache key does."""
    summary: str
    """The summary's canonical JSON text, as the conversation will hold it."""


@dataclass(frozen=True, kw_only=True)
class Span:
    """Where a summary sits in a compacted history's text, and the exact text of its original."""

    start: int
    end: int
    where: str
    """For error messages: `message 3 part 0` (a LangChain session: `message 5`, its row position)."""
    tool_name: str
    original: str
    """The exact text the history held at this place before compaction."""
    content_hash: str
    """The hash of the original's canonical JSON text."""


@dataclass(frozen=True, kw_only=True)
class Original:
    tool_name: str
    text: str
    """Its JSON text."""

    def value(self) -> JsonValue:
        return json.loads(self.text)


@dataclass(frozen=True, kw_only=True)
class Replaced:
    """One value a compaction replaced: in which text (a session's row; 0 for a single text), where before and after."""

    text_index: int
    before: tuple[int, int]
    after: tuple[int, int]
    where: str
    tool_name: str


SEPARATOR = '\x00'
"""Joins a session's row texts into one history text: no JSON text holds a raw NUL."""


def record_rewrite(
    store: OriginalStore, originals: Sequence[str], rewritten: Sequence[str], replaced: Sequence[Replaced]
) -> bool:
    """Record a compaction of a history stored as one text or as rows (joined with `SEPARATOR`).

    Called before the rewritten text is written anywhere, so a history on disk is never compacted
    without the record that undoes it (unless the store refused it, with a warning).
    """
    if not replaced or not store.enabled:
        return False
    offsets_after = _offsets(rewritten)
    spans: list[Span] = []
    for value in replaced:
        original = originals[value.text_index][value.before[0] : value.before[1]]
        spans.append(
            Span(
                start=offsets_after[value.text_index] + value.after[0],
                end=offsets_after[value.text_index] + value.after[1],
                where=value.where,
                tool_name=value.tool_name,
                original=original,
                content_hash=text_hash(json_text(json.loads(original))),
            )
        )
    return store.record_history(original=SEPARATOR.join(originals), compacted=SEPARATOR.join(rewritten), spans=spans)


def _offsets(texts: Sequence[str]) -> list[int]:
    offsets: list[int] = []
    position = 0
    for text in texts:
        offsets.append(position)
        position += len(text) + len(SEPARATOR)
    return offsets


@dataclass(frozen=True)
class Restored:
    text: str
    """The exact text before compaction."""
    values: int
    """How many summarized values were put back."""


class RestoreError(Exception):
    """A history cannot be restored; nothing of it is changed. The message says why."""


@dataclass
class OriginalStore:
    """The store, opened lazily; `directory=None` is the disabled store (refuses everything)."""

    directory: Path | None
    size_limit_bytes: int
    _connection: sqlite3.Connection | None = field(default=None, repr=False)
    _broken: bool = field(default=False, repr=False)
    _full: bool = field(default=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_config(cls, config: SummarizerConfig) -> OriginalStore:
        originals = config.originals
        directory = originals.resolved_directory(config.cache) if originals.enabled else None
        return cls(directory=directory, size_limit_bytes=originals.size_limit_mb * 1024 * 1024)

    @classmethod
    def disabled(cls) -> OriginalStore:
        """A store that keeps nothing (evaluations, dry runs)."""
        return cls(directory=None, size_limit_bytes=0)

    @property
    def enabled(self) -> bool:
        """Configured to store (it may still turn out unwritable: see `available`)."""
        return self.directory is not None

    @property
    def available(self) -> bool:
        """Storing and reading work (opens the store on first use)."""
        return self._open() is not None

    # -- values --------------------------------------------------------------------------------------

    def keep(self, entries: Sequence[Kept]) -> bool:
        """Store each original and its summary's key in one transaction; False (nothing stored) if refused."""
        now = time.time()
        texts = [_compact_json(entry.content) for entry in entries]
        rows = [
            (text_hash(text), text_hash(entry.content_text), entry.tool_name, text)
            for entry, text in zip(entries, texts)
        ]
        keys = [(summary_key(e.tool_call_id, e.summary), text_hash(text), now) for e, text in zip(entries, texts)]
        return self._write(
            rows,
            lambda connection: connection.executemany('INSERT OR IGNORE INTO summaries VALUES (?, ?, ?)', keys),
            durable=False,
        )

    def read(self, tool_call_id: str, summary_text: str) -> Original | None:
        """The original a summary replaced, or None (not stored, or the store is unavailable)."""
        row = self._query(
            'SELECT o.tool_name, o.text FROM summaries s JOIN originals o ON o.hash = s.original '
            'WHERE s.key = ? ORDER BY s.stored_at DESC LIMIT 1',
            (summary_key(tool_call_id, summary_text),),
        )
        return None if row is None else Original(tool_name=row[0], text=row[1])

    def is_summary(self, tool_call_id: str, summary_text: str) -> bool:
        """Whether this value replaced a stored original (for telling a partly restored history)."""
        return (
            self._query('SELECT 1 FROM summaries WHERE key = ?', (summary_key(tool_call_id, summary_text),)) is not None
        )

    # -- histories -----------------------------------------------------------------------------------

    def record_history(self, *, original: str, compacted: str, spans: Sequence[Span]) -> bool:
        """Record how to turn `compacted` back into `original` exactly; False (nothing stored) if refused."""
        rows = [(text_hash(span.original), span.content_hash, span.tool_name, span.original) for span in spans]
        record = json.dumps(
            [[span.start, span.end, text_hash(span.original), span.where] for span in spans], separators=(',', ':')
        )
        return self._write(
            rows,
            lambda connection: connection.execute(
                'INSERT OR REPLACE INTO histories VALUES (?, ?, ?)', (text_hash(compacted), text_hash(original), record)
            ),
        )

    def restore(self, compacted: str) -> Restored | None:
        """The exact text `compacted` was made from; None when no compaction of this text is recorded.

        `RestoreError` when it is recorded but cannot be restored exactly: an original is missing from
        the store, the result does not hash to the recorded original, or that original is itself a
        compacted text (compacted twice: restoring one step would leave summaries in it).
        """
        row = self._query('SELECT original_hash, spans FROM histories WHERE key = ?', (text_hash(compacted),))
        if row is None:
            return None
        original_hash, record = row
        pieces: list[str] = []
        position = 0
        for start, end, blob, where in sorted(json.loads(record)):
            text = self._query('SELECT text FROM originals WHERE hash = ?', (blob,))
            if text is None:
                raise RestoreError(f'{where}: its original is not in the originals store ({self.directory})')
            pieces += [compacted[position:start], text[0]]
            position = end
        pieces.append(compacted[position:])
        restored = ''.join(pieces)
        if text_hash(restored) != original_hash:
            raise RestoreError('the restored text does not match the recorded original')
        if self._query('SELECT 1 FROM histories WHERE key = ?', (original_hash,)) is not None:
            raise RestoreError(
                'compacted twice: its original is itself a compacted history; restore would leave summaries in it'
            )
        return Restored(text=restored, values=len(pieces) // 2)

    # -- the database --------------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._connection.close()
                self._connection = None

    def _write(
        self,
        rows: list[tuple[str, str, str, str]],
        index: Callable[[sqlite3.Connection], object],
        *,
        durable: bool = True,
    ) -> bool:
        """Insert `rows` into `originals` and run `index(connection)`, all in one transaction, within the limit.

        `durable`: fsync at commit (`synchronous=FULL`), which also makes every earlier commit durable (one
        write-ahead log). History records are durable, since a compacted file is written right after; the
        originals kept in `Compactor.summarize` are not, which spares a batch one fsync per history (the
        history record that follows covers them) and an agent run one per request.
        """
        with self._lock:
            connection = self._open_locked()
            if connection is None or self._full:
                return False
            now = time.time()
            try:
                connection.execute(f'PRAGMA synchronous = {"FULL" if durable else "NORMAL"}')
                connection.execute('BEGIN IMMEDIATE')
                added = 0
                for hash_, content_hash, tool_name, text in rows:
                    size = len(text.encode('utf-8', 'surrogatepass'))
                    cursor = connection.execute(
                        'INSERT OR IGNORE INTO originals VALUES (?, ?, ?, ?, ?, ?)',
                        (hash_, content_hash, tool_name, size, text, now),
                    )
                    added += size * cursor.rowcount
                total = connection.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()[0]
                if added and total + added > self.size_limit_bytes:
                    connection.execute('ROLLBACK')
                    self._full = True  # reading goes on; storing stops, so nothing claims an original it lacks
                    logger.warning(
                        'originals store at %s is full (%s of size_limit_mb %s): new originals are not stored, '
                        'so the summaries made from now on cannot be read back or restored',
                        self.directory,
                        f'{total / 2**20:,.1f} MB',
                        f'{self.size_limit_bytes / 2**20:,.0f}',
                    )
                    return False
                connection.execute("UPDATE totals SET value = value + ? WHERE name = 'bytes'", (added,))
                index(connection)
                connection.execute('COMMIT')
            except _DISK_ERRORS as exc:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute('ROLLBACK')
                self._refuse(f'unwritable: {exc}')
                return False
            return True

    def _query(self, sql: str, parameters: tuple[str, ...]) -> tuple[str, ...] | None:
        with self._lock:
            connection = self._open_locked()
            if connection is None:
                return None
            try:
                return connection.execute(sql, parameters).fetchone()
            except _DISK_ERRORS as exc:
                self._refuse(f'unreadable: {exc}')
                return None

    def _open(self) -> sqlite3.Connection | None:
        with self._lock:
            return self._open_locked()

    def _open_locked(self) -> sqlite3.Connection | None:
        if self._connection is not None or self._broken or self.directory is None:
            return self._connection
        try:
            # Owner-only, like the cache: originals are tool output, which may be private.
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.directory, 0o700)
            database = self.directory / _DATABASE
            os.close(os.open(database, os.O_CREAT | os.O_WRONLY, 0o600))  # SQLite gives -wal/-shm its mode
            for suffix in ('', '-wal', '-shm', '-journal'):
                with contextlib.suppress(FileNotFoundError):
                    if (database.parent / (database.name + suffix)).stat().st_mode & 0o077:
                        os.chmod(database.parent / (database.name + suffix), 0o600)
            connection = sqlite3.connect(database, isolation_level=None, timeout=30.0, check_same_thread=False)
            try:
                connection.execute('PRAGMA journal_mode = WAL')
                for statement in _SCHEMA:
                    connection.execute(statement)
            except BaseException:
                connection.close()
                raise
            self._connection = connection
        except _DISK_ERRORS as exc:
            self._refuse(f'unusable: {exc}')
        return self._connection

    def _refuse(self, why: str) -> None:
        """One warning, then the store refuses everything (nothing may claim an original it lacks)."""
        if not self._broken:
            logger.warning(
                'originals store at %s %s; summaries made from now on cannot be read back', self.directory, why
            )
        self._broken = True
        if self._connection is not None:
            with contextlib.suppress(sqlite3.Error):
                self._connection.close()
            self._connection = None
