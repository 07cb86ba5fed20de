"""Step 3 of the pipeline: prove an output history is compatible with its input.

(a) each changed content keeps the shape contract, says something, is smaller than the original
    and under the threshold, and is grounded in the original (`core.ungrounded`);
(b) nothing else changed: serialized, the output differs from the input only inside the changed
    content values (proven by identity where every other field is the very same object);
(c) the output validates with pydantic-ai's own adapter;
(d) tool-call integrity: problems already in the input are reported, never introduced.

Pairing follows how providers read a history: a return answers the call of the same id in the
response just before it. Real histories reuse ids across a conversation, leave a last call
unanswered or hold two responses in a row; one id map for the whole history would misjudge them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,  # pyright: ignore[reportDeprecated]  # stored histories still hold it
    ToolCallPart,
    ToolReturnPart,
)

from ..core import JsonValue, Tokenizer, carries_text, content_tokens, shape_mismatch, ungrounded

_DEFERRED = ConfigDict(defer_build=True)
"""Built on first use: building ModelMessage's validator and serializer takes ~0.1 s of every process's start
(each CLI run, `--jobs` worker and Ray actor), and a message is serialized here only when identity cannot prove
check (b) (the pipeline's own outputs are proven by identity).
"""
MESSAGE_ADAPTER: TypeAdapter[ModelMessage] = TypeAdapter(ModelMessage, config=_DEFERRED)

PartRef = tuple[int, int]
"""(message index, part index)."""


class CheckFailed(Exception):
    """A produced history is not compatible with its input (raised in strict mode, or by `check`)."""


def summary_problem(
    original: JsonValue,
    summary: object,
    *,
    original_tokens: int,
    threshold_tokens: int | None,
    tokenizer: Tokenizer,
    room: int = 0,
    own_words: bool = False,
    instructions: str = '',
    tokens: int | None = None,
) -> str | None:
    """Check (a) for one content: why `summary` cannot replace `original`, or None.

    The pipeline checks each summary with it, and `summarizer check` each replaced content (with no
    threshold when it does not know the configuration the compaction ran with). `room`: tokens the
    summary must leave free under both limits (a model's string summary: the read hint's, added after).
    Last, the summary must be grounded in the original (`core.ungrounded`): `own_words`, a real model
    wrote it and may put a line in its own words; `instructions`, its prompt, which it may not repeat.
    `tokens`: the summary's `content_tokens` by `tokenizer`, where the caller counted them already.
    """
    mismatch = shape_mismatch(original, summary)
    if mismatch:
        return f'wrong shape: {mismatch}'
    if not carries_text(summary):
        return 'empty summary'
    if tokens is None:
        tokens = content_tokens(summary, tokenizer)  # type: ignore[arg-type]  # shape-checked above
    room_left = f' once {room} are left for the read hint' if room else ''
    if tokens >= original_tokens - room:
        return f'not smaller than the original ({tokens} >= {original_tokens - room} tokens{room_left})'
    if threshold_tokens is not None and tokens >= threshold_tokens - room:
        return f'not under the threshold ({tokens} >= {threshold_tokens - room} tokens{room_left})'
    reason = ungrounded(original, summary, own_words=own_words, instructions=instructions)  # type: ignore[arg-type]  # shape-checked above
    return f'not grounded: {reason}' if reason else None


@dataclass(frozen=True, slots=True)
class IntegrityProblem:
    message_index: int
    tool_call_id: str
    problem: str

    def __str__(self) -> str:
        return f'message {self.message_index}: tool call {self.tool_call_id!r}: {self.problem}'


def integrity_problems(
    messages: Sequence[ModelMessage], *, indices: Iterable[int] | None = None
) -> list[IntegrityProblem]:
    """Check (d): every call answered once by the next request, no duplicate ids, no orphan returns.

    `indices`: only the problems reported at these messages (each depends on its message and the two
    next to it).
    """
    problems: list[IntegrityProblem] = []
    for index in range(len(messages)) if indices is None else indices:
        message = messages[index]
        if isinstance(message, ModelResponse):
            calls = [part.tool_call_id for part in message.parts if isinstance(part, ToolCallPart)]
            for duplicate in sorted({call for call in calls if calls.count(call) > 1}):
                problems.append(IntegrityProblem(index, duplicate, 'duplicate call id in one response'))
            following = messages[index + 1] if index + 1 < len(messages) else None
            answered = _answered_ids(following) if isinstance(following, ModelRequest) else []
            for call in dict.fromkeys(calls):
                if call not in answered:
                    problems.append(IntegrityProblem(index, call, 'call never answered'))
        else:
            previous = messages[index - 1] if index else None
            calls = (
                {part.tool_call_id for part in previous.parts if isinstance(part, ToolCallPart)}
                if isinstance(previous, ModelResponse)
                else set[str]()
            )
            answered = _answered_ids(message)
            for answer in dict.fromkeys(answered):
                if answered.count(answer) > 1:
                    problems.append(IntegrityProblem(index, answer, 'answered more than once'))
                if answer not in calls:
                    problems.append(IntegrityProblem(index, answer, 'return without a call in the response before'))
    return problems


def _answered_ids(request: ModelRequest) -> list[str]:
    return [
        part.tool_call_id
        for part in request.parts
        if isinstance(part, ToolReturnPart) or (isinstance(part, RetryPromptPart) and part.tool_name is not None)  # pyright: ignore[reportDeprecated]
    ]


def check_history(
    before: Sequence[ModelMessage],
    after: Sequence[ModelMessage],
    changed: Mapping[PartRef, JsonValue],
) -> None:
    """Checks (b), (c) and (d) of `after` against `before`; raises `CheckFailed` with the first difference.

    `changed` maps each replaced part to its original content. Messages that are the very same object
    in both histories serialize identically, so only messages holding a change are serialized.
    """
    if len(before) != len(after):
        raise CheckFailed(f'{len(after)} messages where the input has {len(before)}')
    for index, (old, new) in enumerate(zip(before, after)):
        if old is not new:
            check_message(old, new, index, {part for message, part in changed if message == index})
    check_integrity(before, after)


def check_integrity(
    before: Sequence[ModelMessage], after: Sequence[ModelMessage], *, changed: Collection[int] | None = None
) -> None:
    """Check (d): `after` has no tool-call problem that `before` did not have.

    `changed`: the indices of the only messages that differ (same length). A message's problems depend
    on it and its two neighbours, so only the problems around them are compared: the check costs what
    changed, not the length of the history (a first pass over 5,000 messages compared all of them).
    """
    indices: list[int] | None = None
    if changed is not None and len(before) == len(after):
        near = {neighbour for index in changed for neighbour in (index - 1, index, index + 1)}
        indices = sorted(index for index in near if 0 <= index < len(after))
    introduced = set(integrity_problems(after, indices=indices)) - set(integrity_problems(before, indices=indices))
    if introduced:
        raise CheckFailed(f'integrity problem introduced: {min(introduced, key=str)}')


def check_message(old: ModelMessage, new: ModelMessage, index: int, changed_parts: set[int]) -> None:
    """Checks (b) and (c) for one message whose `changed_parts` had their content replaced."""
    if not changed_parts:
        raise CheckFailed(f'message {index} changed but holds no summarized content')
    if _only_contents_replaced(old, new, changed_parts):
        for part_index in changed_parts:
            _check_part(new.parts[part_index], index, part_index)  # type: ignore[arg-type]  # a tool return
        return
    try:
        old_json, new_json = (MESSAGE_ADAPTER.dump_python(message, mode='json') for message in (old, new))
    except (ValueError, RecursionError) as exc:  # e.g. a sibling part nested too deeply to serialize
        raise CheckFailed(f'message {index} cannot be serialized: {exc}') from None
    compare_message_json(old_json, new_json, index, changed_parts)
    try:
        MESSAGE_ADAPTER.validate_python(new_json)
    except ValidationError as exc:
        raise CheckFailed(f'message {index} no longer validates: {exc.errors()[0]["msg"]}') from None


def _only_contents_replaced(old: ModelMessage, new: ModelMessage, changed_parts: set[int]) -> bool:
    """Check (b) by identity: every field the very same object, but the `content` of `changed_parts`.

    An object serializes as it did in the input, so this proves what comparing the two serialized
    messages proves without serializing the (large) original contents. False means "not proven
    this way": `check_message` then compares the serialized messages.
    """
    if type(old) is not type(new) or not isinstance(old, ModelRequest) or len(old.parts) != len(new.parts):
        return False
    if not _same_fields(old, new, but='parts'):
        return False
    for part_index, (old_part, new_part) in enumerate(zip(old.parts, new.parts)):
        if part_index not in changed_parts:
            if old_part is not new_part:
                return False
        elif (
            not isinstance(old_part, ToolReturnPart)
            or type(new_part) is not type(old_part)
            or not _same_fields(old_part, new_part, but='content')
        ):
            return False
    return True


def _same_fields(old: object, new: object, *, but: str) -> bool:
    return all(getattr(old, name) is getattr(new, name) for name in _field_names(type(old)) if name != but)


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(item.name for item in dataclasses.fields(kind))


@functools.cache
def _part_adapter(kind: type[ToolReturnPart]) -> TypeAdapter[ToolReturnPart]:
    """Pydantic's validator and serializer of one tool-return part class, built on its first check.

    A replaced part is always of its original's class (`_only_contents_replaced`), and its unchanged
    `part_kind` is what picks that class among the request parts when a stored history is read back:
    so this checks what `ModelRequestPart`'s adapter would, and builds in ~5 ms of a CLI run, not ~45 ms.
    """
    return TypeAdapter(kind)


def _check_part(part: ToolReturnPart, index: int, part_index: int) -> None:
    """Check (c) for one replaced part: it serializes and validates with pydantic-ai's adapter."""
    adapter = _part_adapter(type(part))
    try:
        dumped = adapter.dump_python(part, mode='json')
    except (ValueError, RecursionError) as exc:
        raise CheckFailed(f'message {index} part {part_index} cannot be serialized: {exc}') from None
    try:
        adapter.validate_python(dumped)
    except ValidationError as exc:
        raise CheckFailed(f'message {index} part {part_index} no longer validates: {exc.errors()[0]["msg"]}') from None


def compare_message_json(
    old: dict[str, JsonValue], new: dict[str, JsonValue], index: int, changed_parts: set[int]
) -> None:
    """Check (b) for one serialized message: equal but for the `content` of `changed_parts`."""
    if {key: value for key, value in old.items() if key != 'parts'} != {
        key: value for key, value in new.items() if key != 'parts'
    }:
        raise CheckFailed(f'message {index}: fields outside the parts changed')
    old_parts, new_parts = old.get('parts'), new.get('parts')
    if not isinstance(old_parts, list) or not isinstance(new_parts, list) or len(old_parts) != len(new_parts):
        raise CheckFailed(f'message {index}: the parts changed in number')
    for part_index, (old_part, new_part) in enumerate(zip(old_parts, new_parts)):
        if part_index not in changed_parts:
            if old_part != new_part:
                raise CheckFailed(f'message {index} part {part_index}: changed but was not summarized')
            continue
        if (
            not isinstance(old_part, dict)
            or not isinstance(new_part, dict)
            or old_part.get('part_kind') != 'tool-return'
        ):
            raise CheckFailed(f'message {index} part {part_index}: only tool-return content may change')
        if {k: v for k, v in old_part.items() if k != 'content'} != {
            k: v for k, v in new_part.items() if k != 'content'
        }:
            raise CheckFailed(f'message {index} part {part_index}: a field other than content changed')
