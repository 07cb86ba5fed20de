"""A stored history as the batch runner, restore and the engines handle it: one unit, and its result.

A unit is one pydantic-ai history as stored: the text of a file, a JSONL line or a row
(`StoredUnit`), or a LangChain session's rows (`SessionUnit`), with where it was read (`Where`) and
the identity the originals store records it under (`identity_of`). Each kind reads, plans and
compacts itself (`messages`, `plan`, `compact`: both kinds through `_form.compact_form`), so
whoever runs units needs not know which kind it holds. `Done` is a unit compacted (or restored):
its new text or rows, its counts, or why it was left as it was.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import ModelMessage

from ..pipeline import Candidate, CheckFailed, Compactor, Replaced, Report, Rewrite, history_identity
from ._form import compact_form
from ._langchain import Session, stored_like
from ._screen import screen
from ._stored import HistoryError, StoredHistory


@dataclass(frozen=True, kw_only=True)
class Where:
    """A history's location, for reports: file, then line (JSONL) or table and row id / session."""

    path: Path | str
    """The file, or a PostgreSQL source's URL as shown (never with its password)."""
    line: int | None = None
    table: str | None = None
    row_id: str | None = None
    """The row's id column (`NULL` for a NULL id)."""
    rowid: int | None = None
    """SQLite's rowid of the row, which tells rows sharing an id apart."""
    session: str | None = None

    def describe(self, message_index: int | None = None) -> str:
        text = str(self.path) + (f':{self.line}' if self.line is not None else '')
        if self.table is not None:
            text += f' table {self.table}'
        if self.session is not None:
            text += f' session {self.session}'
        if self.row_id is not None:
            text += f' row {self.row_id}'
        if self.rowid is not None and str(self.rowid) != self.row_id:
            text += f' (rowid {self.rowid})'
        return text + (f' message {message_index}' if message_index is not None else '')


def identity_of(location: str, where: Where) -> str:
    """The originals store's identity of the history at `where` in the source at `location` (`history_identity`).

    A row is named by its address (SQLite's rowid, else its id), the one thing that tells rows apart.
    """
    row = where.rowid if where.rowid is not None else where.row_id
    return history_identity(location, line=where.line, table=where.table, session=where.session, row=row)


@dataclass(frozen=True, kw_only=True)
class StoredUnit:
    """One pydantic-ai history as stored text (a file, a JSONL line or a row)."""

    where: Where
    raw: bytes | str
    identity: str = ''
    """Where it was read (`identity_of`); '' for a history of no known place (a dataset row)."""
    key: object = None
    """A database row's address (its rowid, or the primary key of a WITHOUT ROWID table)."""
    prefix: bytes = b''
    """JSONL: blank lines before this line, written back as they were."""
    ending: bytes = b''
    """JSONL: this line's line ending."""
    refused: str | None = None
    """Why its source will not compact or restore it (a row whose id other rows share): the batch runner
    reports it as the history's error instead, whatever the engine, and `plan` asks for no answer."""

    def messages(self) -> list[ModelMessage]:
        """The history's messages; `HistoryError` on bad input."""
        return StoredHistory.parse(self.raw).messages

    def plan(self, compactor: Compactor) -> list[Candidate]:
        """The candidates its compaction by `compactor` asks answers for (`Compactor.plan`); none for bad input.

        Parsed and walked exactly as `compact` does (the screen, the contents never to summarize), so
        the candidates are those the compaction will ask its `AnswerSource` for. Bad input is not
        reported here: the compaction reports it.
        """
        if self.refused is not None:
            return []
        try:
            history = StoredHistory.decode(self.raw)
            if screen(history, config=compactor.config, tokenizer=compactor.tokenizer) is not None:
                return []
            messages = history.messages
        except HistoryError:
            return []
        return compactor.plan(messages, skip=history.unsummarizable).candidates

    async def compact(self, compactor: Compactor) -> Done:
        """The history compacted; bad input ends as a `Done` with an error and nothing to write."""
        try:
            history = StoredHistory.decode(self.raw)
            screened = screen(history, config=compactor.config, tokenizer=compactor.tokenizer)
            if screened is not None:  # nothing to summarize: proven without validating every message
                tokens = history.tokens(compactor.tokenizer)
                report = Report(returns_examined=screened.returns)
                return Done(unit=self, report=report, tokens_before=tokens, tokens_after=tokens)
            done = await compact_form(history, compactor)
        except HistoryError as exc:
            return Done(unit=self, error=exc.problem, message_index=exc.message_index)
        except CheckFailed as exc:
            return Done(unit=self, error=str(exc))
        return Done(
            unit=self,
            report=done.report,
            text=done.after.text if done.after is not None else None,
            tokens_before=done.tokens_before,
            tokens_after=done.tokens_after,
            replaced=done.replaced,
        )


@dataclass(frozen=True, kw_only=True)
class SessionUnit:
    """One LangChain session: its rows' addresses, ids and stored values (TEXT or BLOB), in id order."""

    where: Where
    keys: list[object]
    ids: list[object]
    texts: list[str | bytes]
    identity: str
    """Where it was read (`identity_of`)."""

    def row_where(self, position: int) -> Where:
        """Where the session's row at `position` is, for a report naming that row."""
        return dataclasses.replace(self.where, row_id=shown_id(self.ids[position]))

    def messages(self) -> list[ModelMessage]:
        """The session's messages; `HistoryError` on bad input (its message index: the bad row's position)."""
        return Session.parse(self.texts).messages

    def plan(self, compactor: Compactor) -> list[Candidate]:
        """The candidates its compaction by `compactor` asks answers for (`Compactor.plan`); none for bad input.

        Bad input is not reported here: the compaction reports it.
        """
        try:
            session = Session.parse(self.texts)
        except HistoryError:
            return []
        return compactor.plan(session.messages, skip=session.unsummarizable).candidates

    async def compact(self, compactor: Compactor) -> Done:
        """The session compacted; bad input ends as a `Done` with an error naming its row, and nothing to write."""
        try:
            done = await compact_form(Session.parse(self.texts), compactor, scope=self.identity)
        except HistoryError as exc:
            if exc.message_index is not None:
                return Done(unit=self, error=exc.problem, where=self.row_where(exc.message_index))
            return Done(unit=self, error=exc.problem)
        except CheckFailed as exc:
            return Done(unit=self, error=str(exc))
        after = done.after
        rows = {} if after is None else {r.text_index: after.texts[r.text_index] for r in done.replaced}
        return Done(
            unit=self,
            report=done.report,
            rows={position: stored_like(self.texts[position], text) for position, text in rows.items()},
            tokens_before=done.tokens_before,
            tokens_after=done.tokens_after,
            replaced=done.replaced,
        )


Unit = StoredUnit | SessionUnit


def shown_id(row_id: object) -> str:
    """A row's id as reports show it."""
    return 'NULL' if row_id is None else str(row_id)


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
    rows: dict[int, str | bytes] = field(default_factory=dict[int, str | bytes])
    """Session row position -> its new stored value (bytes for a BLOB row)."""
    error: str | None = None
    where: Where | None = None
    """Where the error is, when more precise than the unit (a row of a session)."""
    message_index: int | None = None
    replaced: list[Replaced] = field(default_factory=list[Replaced])
    """The values the new text or rows replaced: recorded in the originals store before they are written."""

    @property
    def changed(self) -> bool:
        return self.error is None and (self.text is not None or bool(self.rows))

    def rewrite(self) -> Rewrite:
        """This compaction as the originals store records it (texts as written; a BLOB row as its UTF-8 text)."""
        unit = self.unit
        if isinstance(unit, StoredUnit):
            assert self.text is not None
            return Rewrite(before=[_text(unit.raw)], after=[self.text], replaced=self.replaced)
        before = [_text(value) for value in unit.texts]
        after = [_text(self.rows[position]) if position in self.rows else text for position, text in enumerate(before)]
        return Rewrite(before=before, after=after, replaced=self.replaced)


def _text(value: str | bytes) -> str:
    """A stored value as text: bytes compaction read are UTF-8 (it refuses any that are not)."""
    return value.decode('utf-8') if isinstance(value, bytes) else value
