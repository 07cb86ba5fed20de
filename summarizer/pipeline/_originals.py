"""The originals store: every summarized content, kept so that summarizing is never a one-way door.

Two ways back, two lookups:

- **a value**: `(scope, tool_call_id, the summary's JSON text)` -> the original content. The plugin's
  `read_tool_return` finds an original from the summary it sees in the conversation, so it needs no
  state of its own and works across runs and for histories compacted by the CLI. The scope is whose
  originals these are (by default the conversation: `conversation_scope`): a read never returns an
  original stored under another scope. Where one conversation reuses a tool call id for two returns
  with the same summary, the return's own timestamp (`ToolReturnPart.timestamp`, which a history keeps
  however it is trimmed or stored) tells them apart; a return it cannot tell (two originals kept for
  one timestamp, or a timestamp that is none of theirs) is refused with what is kept, never answered
  with what may be another return's original.
- **a history**: `(the history's identity, the exact text of its compacted version)` -> where each
  summary sits in that text and the exact text of its original (the bytes the source held, which may
  be pretty-printed or ASCII-escaped), plus the hash of the whole original text. The identity is
  where the history is kept (a file, a JSONL line, a table row, a session), so two histories that
  compact to the same text each get their own original back. `summarizer restore` splices the
  originals back and compares the result's hash with the recorded one: a restore is byte-exact or
  refused.

Each original is kept once, under the SHA-256 of the JSON text kept (its compact JSON, or the exact
text a file held when that differs), with its tool name, its size and its content hash: the SHA-256
of its `json_text`, the text the cache key hashes.

Storage is one SQLite database (WAL) in an owner-only folder: batch workers share it, and a history
record is durable (fsynced) before the compacted history that needs it is written; a history whose
record is refused is not written at all. It is a store, not a cache: nothing is evicted; past
`size_limit_mb` new originals are refused. A store that cannot be opened or written, that is full,
or whose database file was deleted or replaced while in use, logs one warning and refuses from then
on, and callers claim nothing for what it refused (no return is summarized without its original
kept, no compacted history is written without its record). A store locked by another process past
the busy timeout refuses that one write.
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
from datetime import UTC, datetime
from pathlib import Path

import pydantic_core
from pydantic_ai.messages import ModelMessage, ModelRequest, SystemPromptPart, UserPromptPart

from ..core import READ_HINT, RECORD_COUNT, JsonValue, SummarizerConfig, Tokenizer, json_text, private_folder
from ._cache import storable_json

logger = logging.getLogger(__name__)

_DATABASE = 'originals.db'
_SCHEMA = (
    (
        'CREATE TABLE IF NOT EXISTS originals (hash TEXT PRIMARY KEY, content_hash TEXT NOT NULL, '
        'tool_name TEXT NOT NULL, size INTEGER NOT NULL, text TEXT NOT NULL, stored_at REAL NOT NULL)'
    ),
    (
        'CREATE TABLE IF NOT EXISTS return_summaries (key TEXT NOT NULL, scope TEXT NOT NULL, original TEXT NOT NULL, '
        'returned_at TEXT NOT NULL, stored_at REAL NOT NULL, PRIMARY KEY (key, scope, original, returned_at)) '
        'WITHOUT ROWID'
    ),
    (
        'CREATE TABLE IF NOT EXISTS history_records (key TEXT NOT NULL, identity TEXT NOT NULL, '
        'original_hash TEXT NOT NULL, spans TEXT NOT NULL, PRIMARY KEY (key, identity)) WITHOUT ROWID'
    ),
    # The tables of stores written before return timestamps, scopes and identities: read, never written.
    (
        'CREATE TABLE IF NOT EXISTS scoped_summaries (key TEXT NOT NULL, scope TEXT NOT NULL, original TEXT NOT NULL, '
        'occurrence INTEGER NOT NULL, stored_at REAL NOT NULL, PRIMARY KEY (key, scope, original)) WITHOUT ROWID'
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
_BUSY_SECONDS = 30.0
"""How long a write waits for another process's lock on the store before it is refused."""

READ_LINE = f'…{READ_HINT}'
"""The last line of such a summary that holds no marker of its own (a model's own words, pieces of a line)."""
_ELLIPSIS = r'(?:…|\\u2026)'
_MARKER = re.compile(rf'{_ELLIPSIS} \d+ (?:(?:similar )?lines?|items?) omitted{RECORD_COUNT} {_ELLIPSIS}')
"""An omission marker a summary writes: `… 212 lines omitted …` (`extractive.lines.marker`), `… 3 items omitted …`
(`_shape.items_marker`, in the JSON text a string holding JSON is summarized to, where it may be `\\u2026`-escaped)."""
_HINTED_MARKER = re.compile(rf'(?:{_MARKER.pattern}|^…){re.escape(READ_HINT)}', re.MULTILINE)
"""A marker naming the read tool (`with_read_hint`): what only a summary made with a store holds."""


def text_hash(text: str) -> str:
    """Hex SHA-256 of a text's UTF-8 bytes: of a canonical JSON text, the content hash the cache uses."""
    return hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()


def _compact_json(entry: Kept) -> str:
    """What the store keeps of an in-memory content: its JSON text (a string quoted, unlike `json_text`).

    Any other content's JSON text is its `content_text`, made by the walk: used as it is, not written again.
    """
    made = None if isinstance(entry.content, str) else entry.content_text
    return storable_json(entry.content, separators=(',', ':'), made=made)


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


def holds_omission_marker(text: str) -> bool:
    """Whether a content's text holds an omission marker a summary writes (`… 212 lines omitted …`).

    A summary made where this store did not record it (another machine's store, a run with the store
    off) is still told as one: a run that continues its history never summarizes it again.
    """
    return _MARKER.search(text) is not None


def names_read_tool(content: JsonValue) -> bool:
    """Whether a string content holds an omission marker naming the read tool: a summary made with a store."""
    return isinstance(content, str) and _HINTED_MARKER.search(content) is not None


def conversation_scope(messages: Sequence[ModelMessage]) -> str:
    """The default scope of a history's originals: its conversation.

    pydantic-ai's `conversation_id`, the most recent one the messages carry: the id a run continuing
    this history gets (`RunContext.conversation_id`). A history without one (written by an older
    pydantic-ai, or made by hand) is told by its first message (`first_message_scope`).
    """
    for message in reversed(messages):
        if message.conversation_id is not None:
            return run_scope(message.conversation_id)
    return first_message_scope(messages)


def run_scope(conversation_id: str) -> str:
    """The scope of an agent run's originals: its conversation (`RunContext.conversation_id`)."""
    return f'conversation:{conversation_id}'


def first_message_scope(messages: Sequence[ModelMessage]) -> str:
    """A conversation told by the prompts of its first request that holds any, each with its timestamp.

    System prompts other than dynamic ones (which pydantic-ai renders again in each run) and user
    prompts: a conversation continued in a new run or loaded back from a file keeps them, and two
    conversations share them only when they began with the same prompts at the same microsecond.
    Messages before them are passed over: an application may open every conversation with the same
    greeting (one `ModelResponse`, one timestamp), which tells none apart. A history holding no prompt
    at all is told by its first message: its parts and its timestamp.
    """
    for message in messages:
        prompts = [
            [part.part_kind, part.content, _instant(part.timestamp)]
            for part in (message.parts if isinstance(message, ModelRequest) else ())
            if isinstance(part, UserPromptPart) or (isinstance(part, SystemPromptPart) and part.dynamic_ref is None)
        ]
        if prompts:
            break
    else:
        first = messages[0] if messages else None
        moment = first.timestamp if first is not None else None
        prompts = [list(first.parts), _instant(moment) if moment is not None else None] if first is not None else []
    return 'first-message:' + hashlib.sha256(pydantic_core.to_json(prompts, fallback=repr)).hexdigest()


def _instant(moment: datetime) -> str:
    """A timestamp as one text however its time zone is spelled (pydantic reads `Z` back as its own UTC)."""
    return (moment.astimezone(UTC) if moment.tzinfo is not None else moment).isoformat()


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
    scope: str
    """Whose original it is (see `conversation_scope`): only a read in this scope finds it."""
    returned_at: datetime
    """Its return's timestamp: which return it is where a conversation uses its `tool_call_id` twice."""


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
class KeptOriginal:
    """One of several originals kept under one summary, as `Ambiguous` lists it (nothing of its content)."""

    tool_name: str
    size: int
    """Its JSON text's UTF-8 bytes."""
    returned_at: str | None
    """The timestamp of the return it was kept from (None: kept by a version that did not record it)."""


@dataclass(frozen=True, kw_only=True)
class Ambiguous:
    """Several different originals are kept under a return's summary, and its timestamp proves none its own."""

    originals: Sequence[KeptOriginal]


@dataclass(frozen=True, kw_only=True)
class Replaced:
    """One value a compaction replaced: in which text (a session's row; 0 for a single text), where before and after."""

    text_index: int
    before: tuple[int, int]
    after: tuple[int, int]
    where: str
    tool_name: str
    part: tuple[int, int] | None = None
    """Its (message, part) in a history stored as one text (None: a session's row), to find it again in
    a text the storage rewrote (a jsonb column)."""


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    """One history's compaction as the store records it: its texts before and after, each replaced value.

    A history stored as one text has one text each way; a LangChain session has one per row.
    """

    before: Sequence[str]
    after: Sequence[str]
    replaced: Sequence[Replaced]


def history_identity(
    location: str, *, line: int | None = None, table: str | None = None, session: str | None = None, row: object = None
) -> str:
    """A history's identity in the store: where it is kept.

    Its source (a file's real path, a database's address) and, within it, its line, table, session or row.
    """
    return json.dumps([location, line, table, session, row], ensure_ascii=False)


SEPARATOR = '\x00'
"""Joins a session's row texts into one history text: no JSON text holds a raw NUL."""


def record_rewrite(store: OriginalStore, rewrite: Rewrite, *, identity: str) -> str | None:
    """Record how to undo a compaction of the history at `identity` (`''`: a history of no known place).

    Called before the compacted history is written anywhere, which it may be only if this returns
    None: the record is durable, or the store is disabled (nothing to keep). Otherwise it says why
    the store refused it.
    """
    if not rewrite.replaced or not store.enabled:
        return None
    offsets_after = _offsets(rewrite.after)
    spans: list[Span] = []
    for value in rewrite.replaced:
        original = rewrite.before[value.text_index][value.before[0] : value.before[1]]
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
    return store.record_history(
        identity=identity,
        original=SEPARATOR.join(rewrite.before),
        compacted=SEPARATOR.join(rewrite.after),
        spans=spans,
    )


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


def _folder_name() -> str:
    """The private folder made inside a configured folder that is not private (see `private_folder`)."""
    return f'tool-return-summarizer-originals-{os.geteuid()}'


@dataclass
class OriginalStore:
    """The store, opened lazily; `directory=None` is the disabled store (refuses everything)."""

    directory: Path | None
    """The folder configured (the database is in it, or in a private folder inside it: `database`)."""
    size_limit_bytes: int
    _connection: sqlite3.Connection | None = field(default=None, repr=False)
    _opened: tuple[Path, int, int] | None = field(default=None, repr=False)
    """The database file the connection opened, its device and inode: a store replaced under a run shows."""
    _broken: str | None = field(default=None, repr=False)
    """Why the store refuses everything (None: it does not)."""
    _unavailable: str = field(default='the originals store is disabled', repr=False)
    """Why the last attempt to open it failed."""
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

    @property
    def database(self) -> Path | None:
        """Where the database file is or would be (nothing is created to tell)."""
        if self.directory is None:
            return None
        return private_folder(self.directory, _folder_name(), holds=_DATABASE, create=False) / _DATABASE

    # -- values --------------------------------------------------------------------------------------

    def keep(self, entries: Sequence[Kept]) -> str | None:
        """Store each original and its summary's key in one transaction; if refused (nothing stored), why."""
        now = time.time()
        texts = [_compact_json(entry) for entry in entries]
        hashes = [text_hash(text) for text in texts]
        rows = [
            # the text kept is the content text itself, but for a string or a lone surrogate: hashed once
            (hash_, hash_ if text is entry.content_text else text_hash(entry.content_text), entry.tool_name, text)
            for entry, text, hash_ in zip(entries, texts, hashes)
        ]
        keys = [
            (summary_key(e.tool_call_id, e.summary), e.scope, hash_, _instant(e.returned_at), now)
            for e, hash_ in zip(entries, hashes)
        ]
        return self._write(
            rows,
            lambda connection: connection.executemany(
                'INSERT OR REPLACE INTO return_summaries VALUES (?, ?, ?, ?, ?)', keys
            ),
            durable=False,
        )

    def read(
        self, tool_call_id: str, summary_text: str, *, scopes: Sequence[str], returned_at: datetime
    ) -> Original | Ambiguous | None:
        """The original a summary replaced, kept under one of `scopes`; None if none is (or the store is unavailable).

        One original kept under this id and summary is the one. Of several different ones (a conversation
        that reuses ids), the one kept from a return with the timestamp `returned_at` is; when that is
        not exactly one, `Ambiguous` lists them rather than risk another return's original. A return's
        position in the conversation proves nothing: an application may trim its history between runs.
        """
        places = ', '.join('?' * len(scopes))
        key = summary_key(tool_call_id, summary_text)
        rows = self._query_all(
            'SELECT s.original, s.returned_at, o.tool_name, o.size FROM return_summaries s '
            f'JOIN originals o ON o.hash = s.original WHERE s.key = ? AND s.scope IN ({places}) UNION ALL '
            'SELECT s.original, NULL, o.tool_name, o.size FROM scoped_summaries s '
            f'JOIN originals o ON o.hash = s.original WHERE s.key = ? AND s.scope IN ({places})',
            (key, *scopes, key, *scopes),
        )
        hashes = {str(row[0]) for row in rows}
        if len(hashes) > 1:
            hashes = {str(row[0]) for row in rows if row[1] == _instant(returned_at)}
        if len(hashes) != 1:
            if not rows:
                return None
            listed = {
                str(hash_): KeptOriginal(
                    tool_name=str(tool), size=int(str(size)), returned_at=None if at is None else str(at)
                )
                for hash_, at, tool, size in rows
            }
            return Ambiguous(originals=sorted(listed.values(), key=lambda original: original.returned_at or ''))
        (chosen,) = hashes
        row = self._query('SELECT tool_name, text FROM originals WHERE hash = ?', (chosen,))
        return None if row is None else Original(tool_name=str(row[0]), text=str(row[1]))

    def is_summary(self, tool_call_id: str, summary_text: str) -> bool:
        """Whether this value replaced a stored original, in any scope (by earlier versions too).

        For telling that a history holds summaries (restore); it returns nothing of any original.
        """
        key = summary_key(tool_call_id, summary_text)
        found = self._query(
            'SELECT 1 FROM return_summaries WHERE key = ? UNION ALL SELECT 1 FROM scoped_summaries WHERE key = ? '
            'UNION ALL SELECT 1 FROM summaries WHERE key = ?',
            (key, key, key),
        )
        return found is not None

    # -- histories -----------------------------------------------------------------------------------

    def record_history(self, *, identity: str, original: str, compacted: str, spans: Sequence[Span]) -> str | None:
        """Record how to turn `compacted` at `identity` back into `original` exactly; why not, if refused."""
        rows = [(text_hash(span.original), span.content_hash, span.tool_name, span.original) for span in spans]
        record = json.dumps(
            [[span.start, span.end, text_hash(span.original), span.where] for span in spans], separators=(',', ':')
        )
        return self._write(
            rows,
            lambda connection: connection.execute(
                'INSERT OR REPLACE INTO history_records VALUES (?, ?, ?, ?)',
                (text_hash(compacted), identity, text_hash(original), record),
            ),
        )

    def restore(self, compacted: str, *, identity: str) -> Restored | None:
        """The exact text `compacted`, kept at `identity`, was made from; None when no compaction of it is recorded.

        A text compacted more than once (in place again, with other settings) is restored step by step,
        back to the text no recorded compaction made: the way back of every step was recorded before it
        was written. `values`: the content values put back, over all steps.

        The record of this very history is the one; a history recorded elsewhere (moved since, or
        recorded by an earlier version without its identity) is restored only when every record of
        this text has the same original. `RestoreError` when a record exists but no exact restore
        does: records with different originals and none of this history, an original missing from
        the store, or a result that does not hash to the recorded original.
        """
        text, values, seen = compacted, set[str](), {text_hash(compacted)}
        while (step := self._restore_step(text, identity=identity)) is not None:
            text, restored = step
            values |= restored  # a value summarized again in a later step is one value
            key = text_hash(text)
            if key in seen:  # a compaction never makes a text it was made from: a store that says so is damaged
                raise RestoreError('the records of this text lead back to it: the originals store is inconsistent')
            seen.add(key)
        return Restored(text=text, values=len(values)) if len(seen) > 1 else None

    def _restore_step(self, compacted: str, *, identity: str) -> tuple[str, set[str]] | None:
        """Undo the recorded compaction that made `compacted`: the text it was made from and where the values put back are."""
        key = text_hash(compacted)
        rows = self._query_all(
            'SELECT identity, original_hash, spans FROM history_records WHERE key = ? UNION ALL '
            'SELECT NULL, original_hash, spans FROM histories WHERE key = ?',
            (key, key),
        )
        records = [(identity, str(original_hash), str(spans)) for identity, original_hash, spans in rows]
        if not records:
            return None
        own = [record for record in records if record[0] == identity]
        originals = {record[1] for record in records}
        if not own and len(originals) > 1:
            raise RestoreError(
                f'{len(originals)} different histories were compacted to this exact text and none of them was '
                'recorded at this place (moved or copied since?), so which original is its own is unknown'
            )
        _, original_hash, record = (own or records)[0]
        pieces: list[str] = []
        places: set[str] = set()
        position = 0
        for start, end, blob, where in sorted(json.loads(record)):
            places.add(str(where))
            text = self._query('SELECT text FROM originals WHERE hash = ?', (blob,))
            if text is None:
                raise RestoreError(f'{where}: its original is not in the originals store ({self.directory})')
            pieces += [compacted[position:start], str(text[0])]
            position = end
        pieces.append(compacted[position:])
        restored = ''.join(pieces)
        if text_hash(restored) != original_hash:
            raise RestoreError('the restored text does not match the recorded original')
        return restored, places

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
    ) -> str | None:
        """Insert `rows` into `originals` and run `index(connection)`, all in one transaction, within the limit.

        Returns None when committed, else why it was refused (a phrase: `the originals store ...`).
        `durable`: fsync at commit (`synchronous=FULL`), which also makes every earlier commit durable (one
        write-ahead log). History records are durable, since a compacted history is written right after;
        the originals kept in `Compactor.apply` are not, which spares a batch one fsync per history (the
        history record that follows covers them) and an agent run one per request. After the commit the
        database file must still be the one opened: one deleted or replaced meanwhile took the commit along.
        """
        with self._lock:
            connection = self._open_locked()
            if connection is None:
                return self._broken or self._unavailable
            if self._full:
                return self._full_reason
            now = time.time()
            try:
                connection.execute(f'PRAGMA synchronous = {"FULL" if durable else "NORMAL"}')
                connection.execute('BEGIN IMMEDIATE')
                added = 0
                for hash_, content_hash, tool_name, text in rows:
                    size = len(text) if text.isascii() else len(text.encode('utf-8', 'surrogatepass'))
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
                        'so returns are no longer summarized: each keeps its content and is reported',
                        self.directory,
                        f'{total / 2**20:,.1f} MB',
                        f'{self.size_limit_bytes / 2**20:,.0f}',
                    )
                    return self._full_reason
                connection.execute("UPDATE totals SET value = value + ? WHERE name = 'bytes'", (added,))
                index(connection)
                connection.execute('COMMIT')
            except _DISK_ERRORS as exc:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute('ROLLBACK')
                return self._failed(exc, 'unwritable')
            return self._check_file()

    @property
    def _full_reason(self) -> str:
        return f'the originals store is full (size_limit_mb {self.size_limit_bytes / 2**20:,.0f})'

    def _query(self, sql: str, parameters: tuple[str | int, ...]) -> tuple[object, ...] | None:
        rows = self._query_all(sql, parameters, limit=1)
        return rows[0] if rows else None

    def _query_all(
        self, sql: str, parameters: tuple[str | int, ...], *, limit: int | None = None
    ) -> list[tuple[object, ...]]:
        with self._lock:
            connection = self._open_locked()
            if connection is None:
                return []
            try:
                cursor = connection.execute(sql, parameters)
                return cursor.fetchmany(limit) if limit is not None else cursor.fetchall()
            except _DISK_ERRORS as exc:
                self._failed(exc, 'unreadable')
                return []

    def _open(self) -> sqlite3.Connection | None:
        with self._lock:
            return self._open_locked()

    def _open_locked(self) -> sqlite3.Connection | None:
        if self._connection is not None or self._broken is not None or self.directory is None:
            return self._connection
        try:
            # Owner-only, like the cache: originals are tool output, which may be private.
            database = private_folder(self.directory, _folder_name(), holds=_DATABASE) / _DATABASE
            os.close(os.open(database, os.O_CREAT | os.O_WRONLY, 0o600))  # SQLite gives -wal/-shm its mode
            for suffix in ('', '-wal', '-shm', '-journal'):
                with contextlib.suppress(FileNotFoundError):
                    if (database.parent / (database.name + suffix)).stat().st_mode & 0o077:
                        os.chmod(database.parent / (database.name + suffix), 0o600)
            connection = sqlite3.connect(database, isolation_level=None, timeout=_BUSY_SECONDS, check_same_thread=False)
            try:
                connection.execute('PRAGMA journal_mode = WAL')
                for statement in _SCHEMA:
                    connection.execute(statement)
                status = os.stat(database)
            except BaseException:
                connection.close()
                raise
            self._connection, self._opened = connection, (database, status.st_dev, status.st_ino)
        except _DISK_ERRORS as exc:
            self._unavailable = self._failed(exc, 'unusable')
        return self._connection

    def _check_file(self) -> str | None:
        """None while the database file is the one opened; else the store refuses from now on."""
        assert self._opened is not None
        database, device, inode = self._opened
        try:
            status = os.stat(database)
            same = (status.st_dev, status.st_ino) == (device, inode)
        except OSError:
            same = False
        return None if same else self._refuse('was deleted or replaced while in use')

    def _failed(self, exc: BaseException, what: str) -> str:
        """Why an operation failed: a lock held past the busy timeout refuses this one; anything else, all."""
        if isinstance(exc, sqlite3.Error) and (getattr(exc, 'sqlite_errorcode', 0) & 0xFF) in (
            sqlite3.SQLITE_BUSY,
            sqlite3.SQLITE_LOCKED,
        ):
            why = f'was locked by another process for {_BUSY_SECONDS:g} s'
            logger.warning('originals store at %s %s', self.directory, why)
            return f'the originals store {why}'
        return self._refuse(f'{what}: {exc}')

    def _refuse(self, why: str) -> str:
        """One warning, then the store refuses everything (nothing may claim an original it lacks)."""
        if self._broken is None:
            logger.warning(
                'originals store at %s %s; returns are no longer summarized: each keeps its content and is reported',
                self.directory,
                why,
            )
            self._broken = f'the originals store {why}'
        if self._connection is not None:
            with contextlib.suppress(sqlite3.Error):
                self._connection.close()
            self._connection = None
        return self._broken
