"""LangChain's `SQLChatMessageHistory` rows: one message per row, a session is a history.

Each row holds `json.dumps(message_to_dict(message))`, i.e. `{"type": "tool", "data": {"content": ...,
"tool_call_id": ..., ...}}`. A session is turned into the pydantic-ai messages the pipeline knows
(AI tool calls as a `ModelResponse`, consecutive tool rows as one `ModelRequest` of returns), so the
same walk, `keep_recent` window, summarizer, cache and checks apply. The summaries are then spliced
into each row's own text at the span of `data.content`: every other byte of the row is kept. A
`Session` is a `_form.StoredForm`, compacted by `compact_form` as every stored format is: the
rewritten rows are post-checked against the originals (`check_row`) before any is written, and a
rewrite that fails keeps every row as it was. A row stored as a BLOB stays a BLOB (its UTF-8
bytes); one that is not UTF-8 is refused (the session is reported, nothing written), never decoded
with replacement characters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from ..core import JsonValue, SummarizerConfig, Tokenizer, estimate_tokens
from ..pipeline import CheckFailed, PartRef, Replaced, check_integrity
from ._form import is_summary
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
        return cls.of(texts, rows)

    @classmethod
    def of(cls, texts: list[str], rows: list[Row]) -> Session:
        """The session of these rows (`rows[i]` parsed from `texts[i]`)."""
        messages, origin = session_messages(rows)
        unsummarizable = {
            ref: ambiguous_reason(found.ambiguous)
            for ref, position in origin.items()
            if (found := rows[position].literals) is not None and found.ambiguous is not None
        }
        return cls(texts=texts, rows=rows, messages=messages, origin=origin, unsummarizable=unsummarizable)

    def tokens(self, tokenizer: Tokenizer) -> int:
        """Estimated tokens of all its rows."""
        return sum(tokenizer(text) for text in self.texts)

    def spliced(self, changed: Mapping[PartRef, JsonValue]) -> Session:
        """This session with each changed part's row holding its new `data.content` value, nothing else touched.

        Only the rewritten rows are parsed again; `HistoryError` (naming the row) if one does not parse.
        """
        texts, rows = list(self.texts), list(self.rows)
        for ref, summary in changed.items():
            position = self.origin[ref]
            texts[position] = rows[position].with_content(summary)
            try:
                rows[position] = Row.parse(texts[position])
            except HistoryError as exc:
                raise HistoryError(exc.problem, message_index=position) from None
        return Session.of(texts, rows)

    def check_rewrite(
        self,
        after: Session,
        *,
        summaries: Mapping[PartRef, JsonValue],
        config: SummarizerConfig,
        tokenizer: Tokenizer,
    ) -> None:
        """The post-check of `after` as this session's rewrite: the same rows, each changed one passing `check_row`.

        Each changed row's new content must decode to exactly its summary in `summaries` (`is_summary`),
        which is not put through `summary_problem` again (`content_problem`); the rows' messages keep
        tool-call integrity.
        """
        if len(after.rows) != len(self.rows):
            raise CheckFailed(f'{len(after.rows)} rows where the original has {len(self.rows)}')
        expected = {self.origin[ref]: summary for ref, summary in summaries.items() if ref in self.origin}
        touched: set[int] = set()
        for position, (old, new) in enumerate(zip(self.rows, after.rows)):
            if old.text == new.text:
                continue
            if position not in expected or not is_summary(new.data.get('content'), expected[position]):
                raise CheckFailed(f'row {position}: the value written is not its summary')
            try:
                check_row(old, new, config=config, tokenizer=tokenizer, checked=True)
            except CheckFailed as exc:
                raise CheckFailed(f'row {position}: {exc}') from None
            touched.add(position)
        if len(after.messages) != len(self.messages):
            raise CheckFailed(f'{len(after.messages)} messages where the original has {len(self.messages)}')
        check_integrity(
            self.messages, after.messages, changed={ref[0] for ref, row in self.origin.items() if row in touched}
        )

    def replaced(self, after: Session, refs: Mapping[PartRef, object]) -> list[Replaced]:
        """Where each rewritten row's content value was and is, per row (a row is its own text)."""
        found: list[Replaced] = []
        for ref in refs:
            position = self.origin[ref]
            before, now = self.rows[position].content_span, after.rows[position].content_span
            assert before is not None and now is not None  # a tool row's (`Row.parse`)
            name = str(self.rows[position].data.get('name') or 'tool')
            found.append(
                Replaced(text_index=position, before=before, after=now, where=f'message {position}', tool_name=name)
            )
        return found


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


def check_row(
    before: Row,
    after: Row,
    *,
    config: SummarizerConfig | None = None,
    tokenizer: Tokenizer = estimate_tokens,
    checked: bool = False,
) -> None:
    """The post-check of one rewritten row: identical outside `data.content`, which passes `content_problem`.

    The same check of the new value as every stored format's (`check_rewrite`). `config` is the
    configuration the compaction ran with (tool rules, thresholds); without one there are no tool
    rules and no threshold to be under, as for `check_rewrite`. `checked`: the new value is exactly
    the summary the compaction put through `summary_problem` (`content_problem`).
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
        checked=checked,
    )
    if problem:
        raise CheckFailed(problem)
