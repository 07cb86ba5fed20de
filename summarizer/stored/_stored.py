"""Stored histories as text: parse with value positions, rewrite only summarized values.

A stored history is re-serialized by nobody: pydantic-ai would add fields, drop legacy ones
(`dynamic_ref`, `vendor_id`, `request_tokens` of the older schema) and change the formatting. The
file's own text is kept instead, and only the characters of each summarized `content` value are
replaced, so the output differs from the input exactly there.

Parsing hands each message to the C JSON decoder whole and notes where it starts; where a part's
`content` value starts and ends is found by walking the outer structure of its message (the
message, its parts, each part) by hand, only for the messages a compaction rewrites. A history that
needs its literals recorded (below) is walked whole as it is parsed, every value below the parts
still decoded in C, so either way a history parses at close to `json.loads` speed.

Numbers keep their literal text. `json.dumps` spells a number as Python does (`1E2` would come
back as `100.0`, `1e-7` as `1e-07`, `-0` as `0`, `1e400` as `Infinity`, which is not JSON), so the
parse records, per content, the literals it writes differently (`Literals`), and a summary is
written with them: the shape contract keeps each kept number's type and value (by Python's
spelling), and the rewrite spells it as the original did. A content that writes one value two ways
(`1E2` and `100.0`; `1e-400` and `0.0`) is never summarized, since a kept `100.0` could be either:
the compaction reports it as skipped. `NaN`, `Infinity` and `-Infinity`, which Python's json
accepts, are not JSON: a file holding one is refused like any invalid JSON.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pydantic import ValidationError
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequestPart,
    ModelResponsePart,
    ToolReturnPart,
)
from pydantic_core import ErrorDetails

from ..core import JsonValue, SummarizerConfig, Tokenizer, content_tokens, estimate_tokens, number_text
from ..pipeline import (
    EXTRACTIVE,
    CheckFailed,
    Compactor,
    PartRef,
    PromptBook,
    Replaced,
    Report,
    check_integrity,
    compare_message_json,
    excluded,
    is_summarizable,
    summary_problem,
)
from ._form import compact_form, is_summary

_WHITESPACE = re.compile(r'[ \t\n\r]*')
_SPACE = frozenset(' \t\n\r')  # `''` (end of input) is not in it
_PLAIN_KEY = re.compile(r'[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:')
_MAYBE_NEGATIVE_ZERO = re.compile(r'-0(?![.\deE])')
"""Where a `-0` integer literal may be, if a `[`, `,`, `:` or whitespace precedes it (or the same
characters inside a string: the decoder tells). A literal first character keeps the search fast."""
_SURROGATE = re.compile('[\ud800-\udfff]')


class _NotJson(ValueError):
    pass


def _refuse_constant(name: str) -> float:
    raise _NotJson(f'{name} is not JSON')


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_SCAN_ONCE: Callable[[str, int], tuple[JsonValue, int]] = vars(_DECODER)['scan_once']
"""`_DECODER.raw_decode` without its Python wrapper: the value starting exactly there, and its end."""


class HistoryError(ValueError):
    """A stored history cannot be used: not UTF-8, not JSON, or not a pydantic-ai history."""

    def __init__(self, problem: str, *, message_index: int | None = None) -> None:
        self.problem = problem
        self.message_index = message_index
        super().__init__(problem if message_index is None else f'message {message_index}: {problem}')


@dataclass(frozen=True)
class StoredHistory:
    """A history's text, its parsed JSON, its validated messages and where each content value sits.

    Where each content sits (`spans`) is found when asked: a history whose number literals are all
    spelled as `json.dumps` spells them (most are) is decoded one message at a time at the C
    decoder's speed, and only the messages a compaction rewrites are walked for their spans
    (`span_of`). Any other text is walked whole by `_scan` as it is parsed.
    """

    text: str
    data: list[JsonValue]
    literals: dict[PartRef, Literals]
    """The content values holding a number literal `json.dumps` would write differently, and how."""
    found: dict[PartRef, tuple[int, int]] = field(default_factory=dict[PartRef, tuple[int, int]], compare=False)
    """Spans found so far: every content's if `starts` is None, else those of the messages walked."""
    starts: list[int] | None = field(default=None, compare=False)
    """Where each message starts in the text, to walk one for its spans; None: `found` holds them all."""
    walked: set[int] = field(default_factory=set[int], compare=False)
    """The messages walked for their spans (or whose spans the splice that made this history wrote)."""
    validated: list[ModelMessage] | None = field(default=None, compare=False, repr=False)
    """The messages once validated (`messages`), or as known when it was built (`spliced`)."""

    @classmethod
    def parse(cls, raw: bytes | str) -> StoredHistory:
        """The history of `raw`, every message validated; `HistoryError` names what is wrong with bad input."""
        history = cls.decode(raw)
        history.messages  # noqa: B018  (validated now, so bad input is reported here)
        return history

    @classmethod
    def decode(cls, raw: bytes | str) -> StoredHistory:
        """The history of `raw` as JSON, its messages validated when first read (`messages`).

        For what can be decided on the JSON alone (`_screen.screen`): validating every message costs
        several times the decoding. `HistoryError` if it is not UTF-8 JSON.
        """
        text = _decode(raw) if isinstance(raw, bytes) else raw
        decoded = _decode_messages(text)
        if decoded is not None:
            data, starts = decoded
            return cls(text=text, data=data, literals={}, starts=starts)
        scanned = _scan(text)
        return cls(text=text, data=scanned.data, literals=scanned.literals, found=scanned.spans)

    @property
    def messages(self) -> list[ModelMessage]:
        """The pydantic-ai messages, validated once; `HistoryError` names the first bad one."""
        messages = self.validated
        if messages is None:
            messages = validate(self.data)
            object.__setattr__(self, 'validated', messages)  # a frozen dataclass's own cache
        return messages

    @functools.cached_property
    def spans(self) -> dict[PartRef, tuple[int, int]]:
        """Where every part's `content` value starts and ends in the text."""
        return self.found if self.starts is None else _scan(self.text).spans

    def span_of(self, ref: PartRef) -> tuple[int, int] | None:
        """Where the content value of the part at `ref` sits in the text; None if it has none.

        Walks only the message holding it (once), unless the whole text was walked already.
        """
        index = ref[0]
        if self.starts is None or index in self.walked:
            return self.found.get(ref)
        if 'spans' in vars(self):  # the whole text was walked for `spans`
            return self.spans.get(ref)
        if not 0 <= index < len(self.starts):
            return None
        walk = _FastScan(self.text)
        try:
            walk.message(self.starts[index], index)
        except _Slow:  # a message the fast walk leaves to `Scanner` (an escaped key): the whole text
            return self.spans.get(ref)
        self.found.update(walk.spans)
        self.walked.add(index)
        return self.found.get(ref)

    @property
    def unsummarizable(self) -> dict[PartRef, str]:
        """The contents never to summarize, and why: each writes one number two ways (`ambiguous_reason`)."""
        return {ref: ambiguous_reason(found.ambiguous) for ref, found in self.literals.items() if found.ambiguous}

    def tokens(self, tokenizer: Tokenizer) -> int:
        """Estimated tokens of the whole text."""
        return tokenizer(self.text)

    def check_rewrite(
        self,
        after: StoredHistory,
        *,
        summaries: Mapping[PartRef, JsonValue],
        config: SummarizerConfig,
        tokenizer: Tokenizer,
    ) -> None:
        """The post-check of `after` as this history's rewrite (`check_rewrite`), for `_form.StoredForm`."""
        check_rewrite(self, after, config=config, tokenizer=tokenizer, summaries=summaries)

    def replaced(self, after: StoredHistory, refs: Mapping[PartRef, object]) -> list[Replaced]:
        """Where each content value at `refs` was in this text and is in `after`'s."""
        found: list[Replaced] = []
        for ref in refs:
            before, now = self.span_of(ref), after.span_of(ref)
            assert before is not None and now is not None  # the post-check found both
            part = self.messages[ref[0]].parts[ref[1]]
            found.append(
                Replaced(
                    text_index=0,
                    before=before,
                    after=now,
                    where=f'message {ref[0]} part {ref[1]}',
                    tool_name=str(getattr(part, 'tool_name', '')),
                    part=ref,
                )
            )
        return found

    def spliced(self, changed: Mapping[PartRef, JsonValue]) -> StoredHistory:
        """This history with each changed part's content value replaced in the text, nothing else touched.

        Parsed as `parse` would parse the new text, reading only what changed: outside the new values
        the text is this one's, so its structure and every other message are too; each new value is
        decoded where it was written (it must be exactly one JSON value there) and each message holding
        one validated again. `HistoryError` if a new value or message is not valid, or a changed part
        holds no content value.
        """
        ensure_ascii = self.text.isascii()
        replaced: list[tuple[int, int, PartRef]] = []
        for ref in changed:
            span = self.span_of(ref)
            if span is None:
                raise HistoryError(f'part {ref[1]} holds no content value', message_index=ref[0])
            replaced.append((*span, ref))
        replaced.sort()
        pieces: list[str] = []
        new_spans: dict[PartRef, tuple[int, int]] = {}
        literals = dict(self.literals)
        data = list(self.data)
        position = shift = 0
        shifts: list[tuple[int, int]] = []  # (where a replaced value ended, how far the text after it moved)
        for start, end, ref in replaced:
            piece = dump_content(
                changed[ref], original=self.text[start:end], ensure_ascii=ensure_ascii, literals=self.literals.get(ref)
            )
            pieces += (self.text[position:start], piece)
            new_spans[ref] = (start + shift, start + shift + len(piece))
            value, written = _content_of(piece, ref)
            literals.pop(ref, None)
            if written is not None:
                literals[ref] = written
            data[ref[0]] = _with_content(data[ref[0]], ref[1], value)
            position, shift = end, shift + len(piece) - (end - start)
            shifts.append((end, shift))
        pieces.append(self.text[position:])
        messages = list(self.messages)
        for index in sorted({ref[0] for ref in changed}):
            try:
                messages[index] = validate([data[index]])[0]
            except HistoryError as exc:
                raise HistoryError(exc.problem, message_index=index) from None
        ends = [end for end, _ in shifts]
        return StoredHistory(
            text=''.join(pieces),
            data=data,
            validated=messages,
            literals=literals,
            found={ref: _shifted(span, ends, shifts) for ref, span in self.found.items()} | new_spans,
            starts=None if self.starts is None else [_shifted((at, at), ends, shifts)[0] for at in self.starts],
            walked=set(self.walked),
        )


def _shifted(span: tuple[int, int], ends: list[int], shifts: list[tuple[int, int]]) -> tuple[int, int]:
    """A span of a text outside the values a splice replaced, in the spliced text.

    `ends`: where each replaced value ended, in order; `shifts`: what the text after each had moved by.
    """
    replaced_before = bisect.bisect_right(ends, span[0])
    shift = shifts[replaced_before - 1][1] if replaced_before else 0
    return span[0] + shift, span[1] + shift


def _content_of(piece: str, ref: PartRef) -> tuple[JsonValue, Literals | None]:
    """The value a content's new text holds, which must be exactly one JSON value, and its number literals."""
    scanner = Scanner(' ' + piece)  # a value follows a `:` or a space, as in the history (`Scanner.content`)
    scanner.message_index = ref[0]
    value, _, end, written = scanner.content()
    if end != len(scanner.text):
        raise scanner.fail('extra data after the content value')
    return value, written


def _with_content(message: JsonValue, part_index: int, content: JsonValue) -> JsonValue:
    """A copy of a parsed message whose part `part_index` holds `content` (the message parsed is left as it was)."""
    assert isinstance(message, dict)
    parts = message['parts']
    assert isinstance(parts, list)
    part = parts[part_index]
    assert isinstance(part, dict)
    new_parts = list(parts)
    new_parts[part_index] = {**part, 'content': content}
    return {**message, 'parts': new_parts}


def check_rewrite(
    before: StoredHistory,
    after: StoredHistory,
    *,
    config: SummarizerConfig | None = None,
    tokenizer: Tokenizer = estimate_tokens,
    summaries: Mapping[PartRef, JsonValue] | None = None,
) -> None:
    """The post-check between two stored versions of one history; raises `CheckFailed` on the first difference.

    Outside the tool-return content values that differ, the two texts must be identical character
    for character; both must validate (parsing did that) and keep tool-call integrity. Each differing
    value must be one the pipeline may summarize (`_walk.excluded`: no typed, retried or skipped tool
    return; `is_summarizable`: no binary or multimodal data), with number literals that survive
    the round trip on both sides, and be a proper summary of the original by the pipeline's own rule
    (`summary_problem`: the shape contract with every kept number's literal, not empty, smaller, and
    under the tool's threshold). `config` is the configuration the compaction ran with (tool rules,
    thresholds); without one there are no tool rules and no threshold to be under.

    `summaries`: the new values the compaction made and put through `summary_problem` in memory
    (`Compaction.changed`). Each changed value must then decode to exactly its summary (`is_summary`),
    which is not put through `summary_problem` a second time; every other rule runs on the text as
    written, so a splice that wrote anything but the checked summary, or touched a byte outside it,
    is refused. Without `summaries` (two texts of unknown making: `summarizer check`), every changed
    value is put through `summary_problem`.
    """
    rules = config or SummarizerConfig()
    if len(before.messages) != len(after.messages):
        raise CheckFailed(f'{len(after.messages)} messages where the original has {len(before.messages)}')
    changed: dict[PartRef, JsonValue] = {}
    spans: dict[PartRef, tuple[tuple[int, int], tuple[int, int]]] = {}
    for ref in before.spans if summaries is None else summaries:
        span, after_span = before.span_of(ref), after.span_of(ref)
        if span is None or after_span is None:
            raise CheckFailed(f'message {ref[0]} part {ref[1]}: missing')
        if before.text[span[0] : span[1]] != after.text[after_span[0] : after_span[1]]:
            changed[ref] = _part_content(after.data, ref)
            spans[ref] = span, after_span
    position_before = position_after = 0
    # outside the changed values (all of them: with `summaries`, any other changed value is outside these)
    for ref in sorted(changed, key=lambda ref: spans[ref][0]):
        (start, end), (after_start, after_end) = spans[ref]
        if before.text[position_before:start] != after.text[position_after:after_start]:
            raise CheckFailed(_first_difference(before.text, after.text, position_before, position_after))
        position_before, position_after = end, after_end
    if before.text[position_before:] != after.text[position_after:]:
        raise CheckFailed(_first_difference(before.text, after.text, position_before, position_after))
    touched = sorted({ref[0] for ref in changed})
    for index in touched:
        parts = {part for message, part in changed if message == index}
        compare_message_json(_message(before.data, index), _message(after.data, index), index, parts)
    for ref, new in changed.items():
        if summaries is not None and not (ref in summaries and is_summary(new, summaries[ref])):
            raise CheckFailed(f'message {ref[0]} part {ref[1]}: the value written is not its summary')
        start, end = spans[ref][1]
        problem = content_problem(
            before.messages[ref[0]].parts[ref[1]],
            _part_content(before.data, ref),
            new,
            new_text=after.text[start:end],
            literals=before.literals.get(ref),
            config=rules,
            threshold=config is not None,
            tokenizer=tokenizer,
            checked=summaries is not None,
        )
        if problem:
            raise CheckFailed(f'message {ref[0]} part {ref[1]}: {problem}')
    # outside the touched messages the two texts are the same, so are their messages
    check_integrity(before.messages, after.messages, changed=touched)


def content_problem(
    part: ModelRequestPart | ModelResponsePart,
    old: JsonValue,
    new: JsonValue,
    *,
    new_text: str,
    literals: Literals | None,
    config: SummarizerConfig,
    threshold: bool,
    tokenizer: Tokenizer,
    checked: bool = False,
) -> str | None:
    """The post-check of one stored content value: why `old` (of `part`) may not become `new`; None if it may.

    Every stored format checks each replaced value with it (`check_rewrite`, LangChain's `check_row`):
    only a tool return the pipeline may summarize (`_walk.excluded`: no typed, retried or skipped tool
    return; `is_summarizable`: no binary or multimodal data; no number written two ways), its number
    literals (`new_text`: the new value as stored) spelled as the original spelled them (`literals`),
    and a proper summary by the pipeline's own rule (`summary_problem`: the shape contract, not empty,
    smaller, under the tool's threshold if `threshold`, and grounded in the original, in words of its
    own only for a real model as `config.model`). `checked`: `new` is exactly the summary
    the compaction already put through `summary_problem` with the same original and limits (or
    stricter ones), which is then not run a second time.
    """
    if not isinstance(part, ToolReturnPart):
        return 'only tool-return content may change'
    reason = excluded(part, config)
    if reason is None and not is_summarizable(part.content):
        reason = 'it holds binary or multimodal data'
    if reason is None and literals is not None and literals.ambiguous is not None:
        reason = f'it {ambiguous_reason(literals.ambiguous)}'
    if reason is not None:
        return f'{reason}: its content must not change'
    written = literals.written if literals is not None else {}
    for number, literal in _number_literals(new_text):
        if literal != written.get(number, number):
            return f'number literal {literal} is not the original literal {written.get(number, number)}'
    if checked:
        return None
    return summary_problem(
        old,
        new,
        original_tokens=content_tokens(old, tokenizer),
        threshold_tokens=config.threshold_for(part.tool_name) if threshold else None,
        tokenizer=tokenizer,
        own_words=config.model != EXTRACTIVE,  # the model the compaction ran with, as the pipeline tells it
        instructions=PromptBook(config).instructions(),
    )


def validate(data: object) -> list[ModelMessage]:
    """pydantic-ai messages from parsed JSON; a `HistoryError` names the first bad message."""
    if not isinstance(data, list):
        raise HistoryError(f'expected a JSON list of messages, found {type(data).__name__}')
    try:
        return ModelMessagesTypeAdapter.validate_python(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        location = list(error['loc'])
        first = location[0] if location else None
        index = first if isinstance(first, int) else None
        if index is not None:
            location.pop(0)
        where = '.'.join(str(piece) for piece in location if not _is_union_tag(piece))
        raise HistoryError(f'{where + ": " if where else ""}{_problem(error, where)}', message_index=index) from None


def _problem(error: ErrorDetails, where: str) -> str:
    """Pydantic's message, but in the file's own terms where it speaks of discriminators."""
    tag = 'part_kind' if where else 'kind'
    if error['type'] == 'union_tag_invalid':
        return f'unknown {tag} {error.get("ctx", {}).get("tag")!r}'
    if error['type'] == 'union_tag_not_found':
        return f'expected an object with a {tag!r} field'
    return error['msg']


def _is_union_tag(piece: object) -> bool:
    return isinstance(piece, str) and piece in {'request', 'response', 'tool-return', 'user-prompt', 'text'} | {
        'system-prompt',
        'retry-prompt',
        'tool-call',
        'thinking',
        'builtin-tool-call',
        'builtin-tool-return',
        'file',
    }


def _decode(raw: bytes) -> str:
    try:
        return raw.decode('utf-8')
    except UnicodeDecodeError as exc:
        line = raw.count(b'\n', 0, exc.start) + 1
        raise HistoryError(f'not UTF-8 text at line {line} (byte {exc.start})') from None


@dataclass(frozen=True)
class Literals:
    """How a content writes the numbers `json.dumps` would write differently."""

    written: dict[str, str]
    """What `json.dumps` writes (`number_text`) -> the content's own literal: `100.0` -> `1E2`,
    `inf` -> `1e400`, `0` -> `-0`."""
    ambiguous: str | None = None
    """A literal whose value the content also writes another way: the content is never summarized."""


def ambiguous_reason(literal: str) -> str:
    """Why a content with an ambiguous literal (`Literals.ambiguous`) is skipped."""
    return f'holds the number literal {literal} and the same number written another way'


def dump_content(value: JsonValue, *, original: str, ensure_ascii: bool, literals: Literals | None = None) -> str:
    """The JSON text of a summary that replaces the value whose text is `original`, in its style.

    Numbers are spelled as `literals` says the original spelled them. `ensure_ascii=False` writes
    characters as they are, but a lone surrogate (`"\ud800"` is valid JSON) has no UTF-8 form: it
    stays an escape, so the text always encodes. A non-finite number with no literal is refused
    (`ValueError`): JSON has none.
    """
    separators = _separators(original)
    if literals is None:
        text = json.dumps(value, ensure_ascii=ensure_ascii, separators=separators, allow_nan=False)
    else:
        text = _dump_with_literals(value, literals.written, ensure_ascii, separators)
    return text if ensure_ascii else _SURROGATE.sub(_escape, text)


def _dump_with_literals(
    value: JsonValue, written: Mapping[str, str], ensure_ascii: bool, separators: tuple[str, str]
) -> str:
    """`json.dumps(value, separators=separators)`, but each number as `written` spells it (summaries are small)."""
    item, key = separators

    def dump(value: JsonValue) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return written.get(number_text(value)) or json.dumps(value, allow_nan=False)
        if isinstance(value, list):
            return '[' + item.join(map(dump, value)) + ']'
        if isinstance(value, dict):
            members = (json.dumps(name, ensure_ascii=ensure_ascii) + key + dump(inner) for name, inner in value.items())
            return '{' + item.join(members) + '}'
        return json.dumps(value, ensure_ascii=ensure_ascii)

    return dump(value)


def _number_literals(text: str) -> list[tuple[str, str]]:
    """(what `json.dumps` writes, the literal) for every number in the JSON `text`."""
    found: list[tuple[str, str]] = []

    def parse_float(literal: str) -> float:
        value = float(literal)
        found.append((float.__repr__(value), literal))
        return value

    def parse_int(literal: str) -> int:
        value = int(literal)
        found.append((int.__repr__(value), literal))
        return value

    json.JSONDecoder(parse_float=parse_float, parse_int=parse_int).decode(text)
    return found


def _escape(match: re.Match[str]) -> str:
    return f'\\u{ord(match[0]):04x}'


def _separators(original: str) -> tuple[str, str]:
    """Match the file's style inside the value: spaced separators when the original had them."""
    return (', ', ': ') if ', ' in original or ': ' in original or '\n' in original else (',', ':')


def _message(data: list[JsonValue], index: int) -> dict[str, JsonValue]:
    message = data[index]
    assert isinstance(message, dict)
    return message


def _part_content(data: list[JsonValue], ref: PartRef) -> JsonValue:
    parts = _message(data, ref[0])['parts']
    assert isinstance(parts, list)
    part = parts[ref[1]]
    assert isinstance(part, dict)
    return part['content']


def _first_difference(before: str, after: str, start_before: int, start_after: int) -> str:
    offset = 0
    while (
        start_before + offset < len(before)
        and start_after + offset < len(after)
        and before[start_before + offset] == after[start_after + offset]
    ):
        offset += 1
    position = start_before + offset
    line = before.count('\n', 0, position) + 1
    return (
        f'text differs outside summarized content at line {line}: '
        f'{before[position : position + 30]!r} became {after[start_after + offset : start_after + offset + 30]!r}'
    )


# -- the scanner -----------------------------------------------------------------------------------


class Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.message_index: int | None = None
        self._written: dict[str, str] = {}
        self._ambiguous: str | None = None
        self._checking = False
        self._content_decoder = json.JSONDecoder(parse_float=self._float, parse_constant=_refuse_constant)
        self._zero_decoder = json.JSONDecoder(
            parse_float=self._float, parse_int=self._int, parse_constant=_refuse_constant
        )

    def fail(self, problem: str) -> HistoryError:
        line = self.text.count('\n', 0, self.position) + 1
        column = self.position - (self.text.rfind('\n', 0, self.position) + 1) + 1
        return HistoryError(f'invalid JSON at line {line} column {column}: {problem}', message_index=self.message_index)

    def skip_whitespace(self) -> None:
        if self.text[self.position : self.position + 1] in _SPACE:  # compact JSON has none: skip the regex
            self.position = _WHITESPACE.match(self.text, self.position).end()  # type: ignore[union-attr]

    def expect(self, char: str) -> None:
        self.skip_whitespace()
        if self.text.startswith(char, self.position):
            self.position += 1
        else:
            found = self.text[self.position : self.position + 1] or 'end of input'
            raise self.fail(f'expected {char!r}, found {found!r}')

    def peek(self) -> str:
        self.skip_whitespace()
        return self.text[self.position : self.position + 1]

    def value(self, decoder: json.JSONDecoder = _DECODER) -> tuple[JsonValue, int, int]:
        self.skip_whitespace()
        start = self.position
        try:
            value, self.position = decoder.raw_decode(self.text, start)
        except json.JSONDecodeError as exc:
            self.position = exc.pos
            raise self.fail(exc.msg.removesuffix(' at')) from None
        except _NotJson as exc:
            raise self.fail(f'{exc} (in the value starting here)') from None
        except RecursionError:
            raise self.fail('nested too deeply') from None
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            raise self.fail(str(exc).split(':')[0]) from None
        return value, start, self.position

    def content(self) -> tuple[JsonValue, int, int, Literals | None]:
        """`value()`, and its number literals `json.dumps` would write differently (None: there are none).

        Floats go through a hook that compares each literal with Python's spelling of its value; an
        integer literal can differ only as `-0`, so the integers take a hook only when the text may
        hold one. Only a content with such a literal is decoded once more, to find the same values
        written the Python way (which make it ambiguous): most contents cost one decode and a hook
        call per float.
        """
        self._written, self._ambiguous, self._checking = {}, None, False
        value, start, end = self.value(self._content_decoder)
        decoder = self._content_decoder
        if any(
            self.text[zero.start() - 1] in '[,: \t\n\r' for zero in _MAYBE_NEGATIVE_ZERO.finditer(self.text, start, end)
        ):
            decoder = self._zero_decoder
            self.position = start
            value, start, end = self.value(decoder)
        if self._written and self._ambiguous is None:
            self._checking = True
            self.position = start
            value, start, end = self.value(decoder)
        if not self._written:
            return value, start, end, None
        return value, start, end, Literals(written=self._written, ambiguous=self._ambiguous)

    def _float(self, literal: str) -> float:
        value = float(literal)
        text = float.__repr__(value)
        if text != literal or self._checking:
            self._number(text, literal)
        return value

    def _int(self, literal: str) -> int:
        value = int(literal)
        self._number(int.__repr__(value), literal)
        return value

    def _number(self, text: str, literal: str) -> None:
        """Note a literal Python spells `text` (in the checking pass: every literal)."""
        if text != literal:
            if self._written.setdefault(text, literal) != literal:
                self._ambiguous = self._ambiguous or literal
        elif self._checking and text in self._written:
            self._ambiguous = self._ambiguous or self._written[text]

    def items(self, open_char: str, close_char: str, item: object) -> None:
        """Calls `item()` for each element of an array or member of an object."""
        self.expect(open_char)
        if self.peek() == close_char:
            self.position += 1
            return
        while True:
            item()  # type: ignore[operator]
            if self.peek() == ',':
                self.position += 1
                continue
            self.expect(close_char)
            return


@dataclass(frozen=True)
class _Scanned:
    data: list[JsonValue]
    spans: dict[PartRef, tuple[int, int]]
    literals: dict[PartRef, Literals]


def _scan(text: str) -> _Scanned:
    """The history's JSON, with the span and number literals of every part's `content` value.

    The well-formed case takes the fast walk (`_FastScan`); anything it does not expect is walked
    again by `Scanner`, which reads the same JSON the same way and names what is wrong, if anything.
    """
    try:
        return _FastScan(text).scan()
    except _Slow:
        return _slow_scan(text)


class _Slow(Exception):
    """What the fast walk leaves to `Scanner`: a text it does not expect, valid or not."""


class _Spelled(Exception):
    """A number literal `json.dumps` would spell otherwise: `_decode_messages` leaves the text to `_scan`."""


def _plain_float(literal: str) -> float:
    value = float(literal)
    if float.__repr__(value) != literal:
        raise _Spelled
    return value


def _plain_int(literal: str) -> int:
    if literal == '-0':
        raise _Spelled
    return int(literal)


_SCAN_PLAIN: Callable[[str, int], tuple[JsonValue, int]] = vars(
    json.JSONDecoder(parse_float=_plain_float, parse_constant=_refuse_constant)
)['scan_once']
_SCAN_PLAIN_INTS: Callable[[str, int], tuple[JsonValue, int]] = vars(
    json.JSONDecoder(parse_float=_plain_float, parse_int=_plain_int, parse_constant=_refuse_constant)
)['scan_once']
"""The same, also refusing a `-0` integer literal (used when the text may hold one: `_MAYBE_NEGATIVE_ZERO`)."""


def _decode_messages(text: str) -> tuple[list[JsonValue], list[int]] | None:
    """The history's JSON, one C decoder call per message, and where each message starts; None: use `_scan`.

    None for a text whose every number literal is not spelled as `json.dumps` spells it (no content
    then holds `Literals`, which only `Scanner.content` records), and for anything but a well-formed
    JSON list, which `_scan` reads (and names the problem of) exactly. The data is what `_scan`
    would build; the spans of a message's contents are found when asked (`StoredHistory.span_of`).
    """
    zeros = any(
        zero.start() > 0 and text[zero.start() - 1] in '[,: \t\n\r' for zero in _MAYBE_NEGATIVE_ZERO.finditer(text)
    )
    scan_once = _SCAN_PLAIN_INTS if zeros else _SCAN_PLAIN
    found = _FIRST_ITEM.match(text, 1 if text.startswith('\ufeff') else 0)
    messages: list[JsonValue] = []
    starts: list[int] = []
    try:
        while found is not None and found[1] is None:
            starts.append(found.end())
            message, position = scan_once(text, found.end())
            messages.append(message)
            found = _NEXT_ITEM.match(text, position)
    except (StopIteration, ValueError, RecursionError, _Spelled):  # `_NotJson` is a ValueError
        return None
    if found is None or _WHITESPACE.match(text, found.end()).end() != len(text):  # type: ignore[union-attr]
        return None
    return messages, starts


_KEY = r'[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*'
_FIRST_MEMBER = re.compile(r'[ \t\n\r]*\{(?:' + _KEY + r'|[ \t\n\r]*(\}))')
"""An object's opening brace and its first plain key (the value starts where this ends), or its closing brace."""
_NEXT_MEMBER = re.compile(r'[ \t\n\r]*(?:,' + _KEY + r'|(\}))')
"""After a member's value: the next plain key, or the closing brace."""
_FIRST_ITEM = re.compile(r'[ \t\n\r]*\[[ \t\n\r]*(\])?')
"""An array's opening bracket and the whitespace after it, or its closing bracket."""
_NEXT_ITEM = re.compile(r'[ \t\n\r]*(?:,[ \t\n\r]*|(\]))')
"""After an item: the separator and the whitespace after it, or the closing bracket."""


class _FastScan:
    """`_scan`'s walk with one C call per value and one regex step per key or separator.

    It builds exactly what `Scanner` builds (the same dicts, the last of a repeated key winning;
    `Scanner.content` reads each content value), and raises `_Slow` at anything else: an escaped
    key, a value the C decoder refuses, a bracket out of place, extra data.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.scanner = Scanner(text)
        self.spans: dict[PartRef, tuple[int, int]] = {}
        self.literals: dict[PartRef, Literals] = {}

    def scan(self) -> _Scanned:
        text = self.text
        found = _FIRST_ITEM.match(text, 1 if text.startswith('\ufeff') else 0)
        if found is None:
            raise _Slow
        messages: list[JsonValue] = []
        while found[1] is None:
            position = found.end()
            if text.startswith('{', position):
                message, position = self._object(position, self._message_member(len(messages)))
            else:
                message, position = self._value(position)
            messages.append(message)
            found = self._next_item(position)
        if _WHITESPACE.match(text, found.end()).end() != len(text):  # type: ignore[union-attr]
            raise _Slow
        return _Scanned(data=messages, spans=self.spans, literals=self.literals)

    def message(self, position: int, index: int) -> None:
        """Walks the message starting at `position` (the history's `index`th) for its contents' spans."""
        if self.text.startswith('{', position):
            self._object(position, self._message_member(index))

    def _next_item(self, position: int) -> re.Match[str]:
        found = _NEXT_ITEM.match(self.text, position)
        if found is None:
            raise _Slow
        return found

    def _value(self, position: int) -> tuple[JsonValue, int]:
        try:
            return _SCAN_ONCE(self.text, position)
        except (StopIteration, ValueError, RecursionError):  # `_NotJson` is a ValueError
            raise _Slow from None

    def _object(self, position: int, member: Callable[[str, int, dict[str, JsonValue]], int]) -> tuple[JsonValue, int]:
        """The object opening at `position`, each member read by `member` (it returns where the value ends)."""
        fields: dict[str, JsonValue] = {}
        found = _FIRST_MEMBER.match(self.text, position)
        while found is not None and found[2] is None:
            found = _NEXT_MEMBER.match(self.text, member(found[1], found.end(), fields))
        if found is None:
            raise _Slow
        return fields, found.end()

    def _message_member(self, index: int) -> Callable[[str, int, dict[str, JsonValue]], int]:
        def member(key: str, position: int, fields: dict[str, JsonValue]) -> int:
            if key == 'parts' and self.text.startswith('[', position):
                fields[key], position = self._parts(position, index)
            else:
                fields[key], position = self._value(position)
            return position

        return member

    def _parts(self, position: int, index: int) -> tuple[JsonValue, int]:
        parts: list[JsonValue] = []
        found = _FIRST_ITEM.match(self.text, position)
        assert found is not None  # `[` is there
        while found[1] is None:
            position = found.end()
            if self.text.startswith('{', position):
                part, position = self._object(position, self._part_member((index, len(parts))))
            else:
                part, position = self._value(position)
            parts.append(part)
            found = self._next_item(position)
        return parts, found.end()

    def _part_member(self, ref: PartRef) -> Callable[[str, int, dict[str, JsonValue]], int]:
        def member(key: str, position: int, fields: dict[str, JsonValue]) -> int:
            if key != 'content':
                fields[key], position = self._value(position)
                return position
            self.scanner.position = position
            try:
                fields[key], start, position, written = self.scanner.content()
            except HistoryError:
                raise _Slow from None
            self.spans[ref] = (start, position)
            if written is not None:
                self.literals[ref] = written
            return position

        return member


def _slow_scan(text: str) -> _Scanned:
    scanner = Scanner(text)
    if text.startswith('\ufeff'):
        scanner.position = 1
    if scanner.peek() != '[':
        if not scanner.peek():
            raise HistoryError('empty input')
        value = scanner.value()[0]
        raise HistoryError(f'expected a JSON list of messages, found {type(value).__name__}')
    messages: list[JsonValue] = []
    spans: dict[PartRef, tuple[int, int]] = {}
    literals: dict[PartRef, Literals] = {}

    def message() -> None:
        index = len(messages)
        scanner.message_index = index
        if scanner.peek() != '{':
            messages.append(scanner.value()[0])  # not an object: validation names the problem
            return
        fields: dict[str, JsonValue] = {}

        def member() -> None:
            key = read_key(scanner)
            if key == 'parts' and scanner.peek() == '[':
                fields[key] = _parts(scanner, index, spans, literals)
            else:
                fields[key] = scanner.value()[0]

        scanner.items('{', '}', member)
        messages.append(fields)

    scanner.items('[', ']', message)
    scanner.message_index = None
    scanner.skip_whitespace()
    if scanner.position != len(text):
        raise scanner.fail('extra data after the message list')
    return _Scanned(data=messages, spans=spans, literals=literals)


def read_key(scanner: Scanner) -> str:
    plain = _PLAIN_KEY.match(scanner.text, scanner.position)
    if plain is not None:  # the common case in one regex step; escapes and errors take the long way
        scanner.position = plain.end()
        return plain[1]
    if scanner.peek() != '"':
        raise scanner.fail('expected a property name in double quotes')
    key = scanner.value()[0]
    scanner.expect(':')
    assert isinstance(key, str)
    return key


def _parts(
    scanner: Scanner, message_index: int, spans: dict[PartRef, tuple[int, int]], literals: dict[PartRef, Literals]
) -> list[JsonValue]:
    parts: list[JsonValue] = []

    def part() -> None:
        if scanner.peek() != '{':
            parts.append(scanner.value()[0])
            return
        fields: dict[str, JsonValue] = {}

        def member() -> None:
            key = read_key(scanner)
            if key != 'content':
                fields[key] = scanner.value()[0]
                return
            fields[key], start, end, written = scanner.content()
            spans[(message_index, len(parts))] = (start, end)
            if written is not None:
                literals[(message_index, len(parts))] = written

        scanner.items('{', '}', member)
        parts.append(fields)

    scanner.items('[', ']', part)
    return parts


@dataclass(frozen=True)
class StoredCompaction:
    """A stored history after compaction: the new text (None when nothing changed) and the counts."""

    text: str | None
    report: Report
    tokens_before: int
    """Estimated tokens of the whole stored text, before and after."""
    tokens_after: int
    replaced: list[Replaced] = field(default_factory=list[Replaced])
    """Each value the new text replaced: what the originals store records before the text is written."""


async def compact_stored(raw: bytes | str, compactor: Compactor) -> StoredCompaction:
    """Compact one history stored as JSON text (`_form.compact_form`); the rewrite is post-checked.

    A rewrite that fails the check is dropped (every summary in it counted as failed) unless the
    compactor is strict, in which case `CheckFailed` is raised. `HistoryError` means bad input.
    The caller records the rewrite (`record_rewrite`) before it writes the new text anywhere.
    """
    done = await compact_form(StoredHistory.parse(raw), compactor)
    return StoredCompaction(
        text=done.after.text if done.after is not None else None,
        report=done.report,
        tokens_before=done.tokens_before,
        tokens_after=done.tokens_after,
        replaced=done.replaced,
    )
