"""Undo a compaction: put every summarized value of a stored history back, byte for byte.

A history is restored as a whole or not at all. Its identity (where it is kept) and exact text are
looked up in the originals store (`OriginalStore.restore`), which splices the recorded originals back
and checks the result against the recorded hash of the text before compaction. A history the store
has no record of is left as it is: fine when none of its values is a summary (never compacted, or
already restored); an error when some are (partly restored, changed since it was compacted, or
compacted with a store that is gone), since no exact way back exists. A value is known as a summary
when the store holds it as one (in any scope) or when it is a string whose omission markers name the
read tool, which only a summary whose original was stored does.

The batch runner drives it (`restore_unit` in place of a unit's `compact`), so restore reads and writes
every source kind exactly as `summarizer batch` does: atomic, resumable, SIGKILL-safe.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ToolReturnPart

from ..core import estimate_tokens, json_text
from ..pipeline import SEPARATOR, OriginalStore, Report, RestoreError, as_json, holds_omission_marker, names_read_tool
from ._langchain import Row, row_text, stored_like
from ._stored import HistoryError, StoredHistory
from ._units import Done, SessionUnit, StoredUnit, Unit


async def restore_unit(unit: Unit, store: OriginalStore) -> Done:
    """Restore one history; a `Done` with an error (and nothing to write) when it cannot be restored exactly."""
    try:
        if isinstance(unit, SessionUnit):
            return _restore_session(unit, store)
        return _restore_stored(unit, store)
    except (RestoreError, HistoryError) as exc:
        return Done(unit=unit, error=f'cannot restore: {exc}; left as it is')


def _restore_stored(unit: StoredUnit, store: OriginalStore) -> Done:
    text = unit.raw if isinstance(unit.raw, str) else _decode(unit.raw)
    restored = store.restore(text, identity=unit.identity)
    tokens = estimate_tokens(text)
    if restored is None:
        _no_summaries(_stored_returns(text), store)
        return Done(unit=unit, tokens_before=tokens, tokens_after=tokens)
    return Done(
        unit=unit,
        text=restored.text,
        report=Report(summarized=restored.values),
        tokens_before=tokens,
        tokens_after=estimate_tokens(restored.text),
    )


def _restore_session(unit: SessionUnit, store: OriginalStore) -> Done:
    texts = [row_text(value, position) for position, value in enumerate(unit.texts)]
    text = SEPARATOR.join(texts)
    restored = store.restore(text, identity=unit.identity)
    tokens = estimate_tokens(text)
    if restored is None:
        returns: list[tuple[str, object]] = []
        for position, value in enumerate(texts):
            try:
                row = Row.parse(value)
            except HistoryError as exc:
                raise HistoryError(f'message {position}: {exc.problem}') from None
            if row.kind == 'tool':
                returns.append((str(row.data.get('tool_call_id')), row.data.get('content')))
        _no_summaries(returns, store)
        return Done(unit=unit, tokens_before=tokens, tokens_after=tokens)
    rows = restored.text.split(SEPARATOR)
    if len(rows) != len(texts):
        raise RestoreError('the restored session does not have the same rows')
    changed = {
        position: stored_like(unit.texts[position], row) for position, row in enumerate(rows) if row != texts[position]
    }
    return Done(
        unit=unit,
        rows=changed,
        report=Report(summarized=restored.values),
        tokens_before=tokens,
        tokens_after=estimate_tokens(restored.text),
    )


def _decode(raw: bytes) -> str:
    try:
        return raw.decode('utf-8')
    except UnicodeDecodeError as exc:
        raise HistoryError(f'not UTF-8 text (byte {exc.start})') from None


def _stored_returns(text: str) -> list[tuple[str, object]]:
    history = StoredHistory.parse(text)
    return [
        (part.tool_call_id, part.content)
        for message in history.messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


def _no_summaries(returns: list[tuple[str, object]], store: OriginalStore) -> None:
    """A history without a recorded compaction must hold no summary: else it was partly restored or changed.

    Without a store (deleted), a value holding an omission marker (`… 3 items omitted …`) counts as a
    summary too: no record can tell it, and a list or object summary names no read tool.
    """
    summaries = 0
    for tool_call_id, content in returns:
        data = as_json(content)
        if data is None:
            continue
        text = json_text(data)
        if (
            names_read_tool(data)
            or store.is_summary(tool_call_id, text)
            or (not store.enabled and holds_omission_marker(text))
        ):
            summaries += 1
    if summaries and not store.enabled:
        raise RestoreError('it holds summaries, but there is no originals store to restore them from')
    if summaries:
        raise RestoreError(
            f'{summaries} of its values are summaries, but the store has no record of a compaction of this exact '
            'text (partly restored, changed since it was compacted, or compacted with another store)'
        )
