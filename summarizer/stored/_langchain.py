"""LangChain's `SQLChatMessageHistory` rows: one message per row, a session is a history.

Each row holds `json.dumps(message_to_dict(message))`, i.e. `{"type": "tool", "data": {"content": ...,
"tool_call_id": ..., ...}}`. A session is turned into the pydantic-ai messages the pipeline knows
(AI tool calls as a `ModelResponse`, consecutive tool rows as one `ModelRequest` of returns), so the
same walk, `keep_recent` window, summarizer, cache and checks apply. The summaries are then spliced
into each row's own text at the span of `data.content`: every other byte of the row is kept, and
each rewritten row is checked against its original before it is written. A row stored as a BLOB
stays a BLOB (its UTF-8 bytes); one that is not UTF-8 is refused (the session is reported, nothing
written), never decoded with replacement characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from ..core import JsonValue, SummarizerConfig, Tokenizer, content_tokens, estimate_tokens
from ..pipeline import CheckFailed, Compactor, PartRef, Replaced, Report
from ._stored import HistoryError, Literals, Scanner, ambiguous_reason, content_problem, dump_content, read_key


@dataclass(frozen=True)
class Row:
    """One parsed row: its text, its fields, and where the `data.content` value sits in the text."""

    text: str
    kind: str
    data: dict[str, JsonValue]
    content_span: tuple[int, int] | None
    literals: Literals | None = None
    """How `data.content` writes the numbers `json.dumps` would write differently (see `_stored`)."""

    @classmethod
    def parse(cls, text: str) -> Row:
        scanner = Scanner(text)
        fields: dict[str, JsonValue] = {}
        data: dict[str, JsonValue] = {}
        span: list[tuple[int, int]] = []
        literals: list[Literals | None] = []

        def data_member() -> None:
            key = read_key(scanner)
            if key != 'content':
                data[key] = scanner.value()[0]
                return
            data[key], start, end, written = scanner.content()
            span.append((start, end))
            literals.append(written)

        def member() -> None:
            key = read_key(scanner)
            if key == 'data' and scanner.peek() == '{':
                scanner.items('{', '}', data_member)
                fields[key] = data
            else:
                fields[key] = scanner.value()[0]

        if scanner.peek() != '{':
            raise HistoryError('expected a LangChain message object {"type": ..., "data": {...}}')
        scanner.items('{', '}', member)
        scanner.skip_whitespace()
        if scanner.position != len(text):
            raise scanner.fail('extra data after the message')
        kind = fields.get('type')
        if not isinstance(kind, str) or fields.get('data') is not data:
            raise HistoryError('not a LangChain message: expected {"type": ..., "data": {...}}')
        if kind == 'tool' and not isinstance(data.get('tool_call_id'), str):
            raise HistoryError('a tool message without a tool_call_id')
        return cls(
            text=text,
            kind=kind,
            data=data,
            content_span=span[-1] if span else None,
            literals=literals[-1] if literals else None,
        )

    def tool_return(self) -> ToolReturnPart:
        """A tool row as the pydantic-ai tool return the pipeline walks (content blocks other than text: None)."""
        name = self.data.get('name')
        return ToolReturnPart(
            tool_name=name if isinstance(name, str) and name else 'tool',
            content=_summarizable(self.data.get('content')),
            tool_call_id=str(self.data['tool_call_id']),
        )

    def with_content(self, content: JsonValue) -> str:
        """The row's text with only the `data.content` value replaced, in the row's own JSON style."""
        assert self.content_span is not None
        start, end = self.content_span
        value = dump_content(
            content, original=self.text[start:end], ensure_ascii=self.text.isascii(), literals=self.literals
        )
        return self.text[:start] + value + self.text[end:]


@dataclass(frozen=True)
class Session:
    """A LangChain session parsed: its rows' texts and fields, as the pydantic-ai messages the pipeline walks."""

    texts: list[str]
    rows: list[Row]
    messages: list[ModelMessage]
    origin: dict[PartRef, int]
    """Which row each tool return came from."""
    unsummarizable: dict[PartRef, str]
    """The contents never to summarize, and why: each writes one number two ways (`ambiguous_reason`)."""

    @classmethod
    def parse(cls, stored: Sequence[str | bytes]) -> Session:
        """`HistoryError` on bad input, naming the bad row's position as message index."""
        texts = [row_text(value, position) for position, value in enumerate(stored)]
        rows: list[Row] = []
        for position, text in enumerate(texts):
            try:
                rows.append(Row.parse(text))
            except HistoryError as exc:
                raise HistoryError(exc.problem, message_index=position) from None
        messages, origin = session_messages(rows)
        unsummarizable = {
            ref: ambiguous_reason(found.ambiguous)
            for ref, position in origin.items()
            if (found := rows[position].literals) is not None and found.ambiguous is not None
        }
        return cls(texts=texts, rows=rows, messages=messages, origin=origin, unsummarizable=unsummarizable)


@dataclass(frozen=True)
class SessionCompaction:
    new_rows: dict[int, str | bytes]
    """Row position in the session -> the new stored value of that row (only rows that changed)."""
    report: Report
    tokens_before: int
    tokens_after: int
    replaced: list[Replaced]
    """Each value the new rows replaced: what the originals store records before they are written."""


def session_messages(rows: Sequence[Row]) -> tuple[list[ModelMessage], dict[PartRef, int]]:
    """The session as pydantic-ai messages, and which row each tool return came from.

    Only what the walk needs is carried over: tool calls (for the call arguments in the prompt) and
    tool returns. Other rows (human, system, AI text) end a run of tool rows.
    """
    messages: list[ModelMessage] = []
    origin: dict[PartRef, int] = {}
    returns: list[ToolReturnPart] | None = None
    for position, row in enumerate(rows):
        if row.kind != 'tool':
            returns = None
            if row.kind == 'ai':
                messages.append(ModelResponse(parts=list(_calls(row.data))))
            continue
        if returns is None:
            returns = []
            messages.append(ModelRequest(parts=returns))  # filled below
        origin[(len(messages) - 1, len(returns))] = position
        returns.append(row.tool_return())
    return messages, origin


def _calls(data: dict[str, JsonValue]) -> list[ToolCallPart]:
    calls = data.get('tool_calls')
    if not isinstance(calls, list):
        return []
    return [
        ToolCallPart(tool_name=call['name'], args=call.get('args'), tool_call_id=call['id'])  # type: ignore[arg-type]
        for call in calls
        if isinstance(call, dict) and isinstance(call.get('name'), str) and isinstance(call.get('id'), str)
    ]


def _summarizable(content: JsonValue) -> JsonValue:
    """Content blocks other than text (images, files) are never summarized: they become `None` here."""
    if isinstance(content, list) and any(isinstance(block, dict) and block.get('type') != 'text' for block in content):
        return None
    return content


def row_text(stored: str | bytes, position: int) -> str:
    """A row's text; a BLOB row must be UTF-8 (its bytes are written back encoded the same way)."""
    if isinstance(stored, str):
        return stored
    try:
        return stored.decode('utf-8')
    except UnicodeDecodeError as exc:
        raise HistoryError(f'a row that is not UTF-8 text (byte {exc.start})', message_index=position) from None


def stored_like(stored: str | bytes, text: str) -> str | bytes:
    """A row's new text in its storage class: a BLOB row is written back as UTF-8 bytes."""
    return text.encode('utf-8') if isinstance(stored, bytes) else text


async def compact_session(stored: Sequence[str | bytes], compactor: Compactor, *, scope: str) -> SessionCompaction:
    """Compact one session; `HistoryError` (naming the bad row's position as message index) on bad input.

    `scope`: whose originals these are (the session's identity: its rows carry no conversation id).
    The caller records the rewrite (`record_rewrite`) before it writes the new rows anywhere.
    """
    session = Session.parse(stored)
    texts, rows, origin = session.texts, session.rows, session.origin
    compaction = await compactor.compact(session.messages, skip=session.unsummarizable, scope=scope)
    report = compaction.report
    tokens_before = sum(compactor.tokenizer(text) for text in texts)
    new_texts: dict[int, str] = {}
    replaced: list[Replaced] = []
    for ref, summary in compaction.changed.items():
        position = origin[ref]
        text = rows[position].with_content(summary)
        try:
            after = Row.parse(text)
            check_row(rows[position], after, config=compactor.config, tokenizer=compactor.tokenizer)
        except (CheckFailed, HistoryError) as exc:
            if compactor.config.strict:
                raise CheckFailed(f'row {position}: rewrite failed the post-check: {exc}') from None
            report.summarized -= 1
            report.failed += 1
            old = rows[position].data['content']
            report.tokens_after += content_tokens(old, compactor.tokenizer) - content_tokens(
                summary, compactor.tokenizer
            )
            continue
        new_texts[position] = text
        before = rows[position].content_span
        assert before is not None and after.content_span is not None
        name = str(rows[position].data.get('name') or 'tool')
        replaced.append(
            Replaced(
                text_index=position,
                before=before,
                after=after.content_span,
                where=f'message {position}',
                tool_name=name,
            )
        )
    tokens_after = tokens_before + sum(
        compactor.tokenizer(text) - compactor.tokenizer(texts[position]) for position, text in new_texts.items()
    )
    new_rows = {position: stored_like(stored[position], text) for position, text in new_texts.items()}
    return SessionCompaction(
        new_rows=new_rows, report=report, tokens_before=tokens_before, tokens_after=tokens_after, replaced=replaced
    )


def check_row(
    before: Row,
    after: Row,
    *,
    config: SummarizerConfig | None = None,
    tokenizer: Tokenizer = estimate_tokens,
) -> None:
    """The post-check of one rewritten row: identical outside `data.content`, which passes `content_problem`.

    The same check of the new value as every stored format's (`check_rewrite`). `config` is the configuration the compaction ran with (tool rules, thresholds); without one there
    are no tool rules and no threshold to be under, as for `check_rewrite`.
    """
    if before.kind != 'tool':
        raise CheckFailed('only tool-return content may change')
    if before.content_span is None or after.content_span is None:
        raise CheckFailed('the content value is missing')
    start, end = before.content_span
    after_start, after_end = after.content_span
    if before.text[:start] != after.text[:after_start] or before.text[end:] != after.text[after_end:]:
        raise CheckFailed('the row changed outside its content value')
    problem = content_problem(
        before.tool_return(),
        before.data['content'],
        after.data['content'],
        new_text=after.text[after_start:after_end],
        literals=before.literals,
        config=config or SummarizerConfig(),
        threshold=config is not None,
        tokenizer=tokenizer,
    )
    if problem:
        raise CheckFailed(problem)
