"""Step 1 of the pipeline: find the tool returns worth summarizing.

Only the `content` of a plain `ToolReturnPart` is ever a candidate. Prompts, assistant text, tool-call
arguments, thinking, retry prompts (including returns with `outcome='retried'`), provider-native
tool returns and any content carrying binary or multimodal data are never touched. Neither are typed
tool returns (a part with a `tool_kind`, or of a class of its own such as `ToolSearchReturnPart` or
`LoadCapabilityReturnPart`): pydantic-ai rebuilds the agent's tools and instructions from them, so a
shortened one loses tools. A tool rule naming the tool in config.yaml makes it a candidate again.

The `keep_recent` window counts turns, not returns: the returns that answer the calls of one model
response (however many requests carry them) enter and leave the window together, so with parallel
calls the model sees every fresh result whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard, cast

from pydantic_ai.messages import (
    BinaryContent,
    FileUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UploadedFile,
)
from pydantic_core import to_jsonable_python

from ..core import (
    MAX_DEPTH,
    JsonValue,
    SummarizerConfig,
    Tokenizer,
    estimate_tokens,
    is_dict,
    is_plain,
    json_text,
    nested_deeper_than,
    shape_name,
    strings_json,
)

_MULTIMODAL = (BinaryContent, FileUrl, UploadedFile, bytes, bytearray, memoryview)
"""Binary or multimodal data: never summarized (raw bytes too: pydantic-ai sends them base64, a summary would be text)."""


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """An oversized tool-return content, where it sits, and what the summarizer needs to know of it."""

    message_index: int
    part_index: int
    turn: int
    """Index of the model response whose calls this return answers (the last response before it; -1
    when none): the returns of one turn are kept verbatim or summarized together (`keep_recent`)."""
    part: ToolReturnPart
    content: JsonValue
    """The content as JSON data (what is summarized, hashed and checked); the part's own object when it
    already is JSON data (never modified)."""
    text: str
    """Its compact JSON text (`json_text`): measured here, hashed for the cache without serializing again."""
    tokens: int
    threshold_tokens: int
    call_args: str
    """The arguments of the matching call in the response just before, as JSON text ('' if none)."""
    quoted: tuple[str, ...] = ()
    """Its facts other turns of the history hold (`_quoted`): the summary must keep them verbatim.

    Those a turn before it holds (the task, its own call's arguments), and those later turns quote
    when `keep_quoted_facts` is on.
    Set by the compactor, which sees the later turns; the walk does not look at them."""
    whole_conversation: bool = False
    """Whether the later turns `quoted` was read from are the rest of its conversation (a stored history compacted
    in one go), not those of an agent run so far: the lines holding them may then take its summary past its
    budget (`Summarizer.quoted_budget_for`)."""

    @property
    def tool_name(self) -> str:
        return self.part.tool_name

    @property
    def shape(self) -> str:
        return shape_name(self.content)


@dataclass(frozen=True, kw_only=True)
class Walk:
    candidates: list[Candidate]
    returns_seen: int
    """Tool returns met in the walked messages, over the threshold or not."""
    turns: list[int]
    """The turns (`Candidate.turn`) of those returns, each once, in order."""
    texts: dict[int, dict[int, str]]
    """By message and part index, the JSON text of each return whose content the walk encoded
    (`plain_json_text`): what a model reads of it (`_tokens.part_text`), not made again to count tokens."""


def walk(
    messages: Sequence[ModelMessage],
    *,
    config: SummarizerConfig,
    tokenizer: Tokenizer,
    start: int = 0,
    floor_tokens: int | None = None,
) -> Walk:
    """Find the tool returns worth summarizing in `messages[start:]`.

    By default those over their tool's threshold (`threshold_tokens`). With `floor_tokens` (the
    cache-aware policy's `min_tokens`), every return over it is a candidate, with its summary bounded
    by its threshold and by its own size; a tool rule's own threshold stays that tool's floor.
    """
    candidates: list[Candidate] = []
    turns: list[int] = []
    texts: dict[int, dict[int, str]] = {}
    returns = 0
    turn = next((index for index in range(start - 1, -1, -1) if isinstance(messages[index], ModelResponse)), -1)
    for message_index in range(start, len(messages)):
        message = messages[message_index]
        if not isinstance(message, ModelRequest):
            turn = message_index
            continue
        for part_index, part in enumerate(message.parts):
            if not isinstance(part, ToolReturnPart):
                continue
            returns += 1
            if not turns or turns[-1] != turn:
                turns.append(turn)
            candidate = _candidate(
                messages, message_index, part_index, part, turn, config, tokenizer, floor_tokens, texts
            )
            if candidate is not None:
                candidates.append(candidate)
    return Walk(candidates=candidates, returns_seen=returns, turns=turns, texts=texts)


def recent_turns(turns: Sequence[int], keep_recent: int) -> list[int]:
    """The last `keep_recent` of `turns`: those whose returns stay verbatim."""
    return list(turns[max(len(turns) - keep_recent, 0) :]) if keep_recent else []


def excluded(part: ToolReturnPart, config: SummarizerConfig) -> str | None:
    """Why this tool return's content is never summarized, whatever its size; None when it may be.

    One rule for the walk and for `summarizer check`, which refuses any change to such a content.
    """
    if config.rule_for(part.tool_name).skip:  # a rule, or read_tool_return's default: its answers are originals
        return f'the tool rule for {part.tool_name!r} says skip'
    if part.outcome == 'retried':
        return 'a retried return (a retry prompt, not tool output)'
    if part.tool_name not in config.tools and (type(part) is not ToolReturnPart or part.tool_kind is not None):
        return f'a typed tool return ({type(part).__name__}, tool_kind {part.tool_kind!r}) that pydantic-ai reads back'
    return None


def _candidate(
    messages: Sequence[ModelMessage],
    message_index: int,
    part_index: int,
    part: ToolReturnPart,
    turn: int,
    config: SummarizerConfig,
    tokenizer: Tokenizer,
    floor_tokens: int | None,
    texts: dict[int, dict[int, str]],
) -> Candidate | None:
    if excluded(part, config) is not None:
        return None
    limit = config.threshold_for(part.tool_name)
    threshold = limit if floor_tokens is None or config.rule_for(part.tool_name).threshold_tokens else floor_tokens
    plain = plain_json_text(part.content)
    if plain is not None:
        texts.setdefault(message_index, {})[part_index] = plain
    if plain is not None and tokenizer is estimate_tokens and estimate_tokens(plain) <= threshold:
        return None  # an upper bound of the estimate of the content's JSON text (see `plain_json_text`)
    data = _json_data(part.content, plain)
    if data is None or shape_name(data.content) == 'scalar':
        return None
    content = data.content
    if tokenizer is estimate_tokens and isinstance(content, str) and len(content) <= threshold:
        return None  # a cheap bound: the estimate never counts more than one token a character
    text = data.text
    tokens = tokenizer(text)
    if tokens <= threshold:
        return None
    return Candidate(
        message_index=message_index,
        part_index=part_index,
        turn=turn,
        part=part,
        content=content,
        text=text,
        tokens=tokens,
        threshold_tokens=min(limit, tokens),
        call_args=_call_args(messages, message_index, part.tool_call_id),
    )


@dataclass(frozen=True, slots=True)
class _JsonData:
    content: JsonValue
    text: str
    """Its `json_text` (made once: a content no JSON text holds is no `_JsonData`)."""


def is_summarizable(content: object) -> bool:
    """Whether a content may be summarized as data: not multimodal, not nested too deeply (`_json_data`).

    The same answer as `_json_data`'s, without walking the content when it can: a content of JSON
    types only (`plain_json_text`) holds nothing multimodal, so only its depth can rule it out.
    """
    plain = plain_json_text(content)
    if plain is None:
        return _json_data(content, None) is not None
    return not _too_deep(content, plain)


def json_text_of(content: object) -> str | None:
    """A tool-return content's `json_text`, as summaries are keyed by; None for a content never summarized.

    A content no JSON text holds (an int of over 4,300 digits) has none, rather than raising.
    """
    data = _json_data(content, plain_json_text(content))
    return None if data is None else data.text


def _json_data(content: object, plain: str | None) -> _JsonData | None:
    """A tool-return content as JSON data, or None when it is never summarized.

    Never summarized: nested beyond `MAX_DEPTH`, or holding binary or multimodal data.

    Most contents are made of the exact JSON types (what a pydantic-ai history validated from JSON
    holds): `is_plain` proves it, and the depth bound, in one pass, and the content is then
    used as it is, with `plain` as its text. Anything else takes the careful path: depth guard,
    multimodal check, `to_jsonable_python`.
    """
    if plain is not None and is_plain(content):  # finite numbers, no circular data: what `is_plain` does not check
        return _JsonData(content=cast(JsonValue, content), text=plain)
    if _too_deep(content, plain):
        return None
    try:
        data = as_json(content, plain=plain is not None)
        if data is None:
            return None
        text = plain if plain is not None and data == content else json_text(data)
    except (ValueError, TypeError, RecursionError):
        return None  # what no JSON text holds (an int of over 4,300 digits): sent as pydantic-ai serializes it
    return _JsonData(content=data, text=text)


def _too_deep(content: object, plain: str | None) -> bool:
    """Whether `content` nests deeper than `MAX_DEPTH`; `plain`: its JSON text, if it has one.

    A text with no more brackets than that cannot nest deeper: most contents are told so without a walk.
    """
    few_brackets = plain is not None and plain.count('[') + plain.count('{') <= MAX_DEPTH
    return not few_brackets and nested_deeper_than(content, MAX_DEPTH)


def as_json(content: object, *, plain: bool = False) -> JsonValue | None:
    """The content as JSON data, or None when it holds binary or multimodal data (never summarized).

    `plain`: `plain_json_text` already proved it holds nothing but JSON types (so nothing multimodal).
    """
    if isinstance(content, str):
        return content
    if not plain and _has_multimodal(content):
        return None
    return to_jsonable_python(content, fallback=str, bytes_mode='base64')  # bytes in an object: as the model sees them


class _NotPlain(Exception):
    pass


def _not_plain(value: object) -> None:
    raise _NotPlain


def plain_json_text(content: object) -> str | None:
    """The compact JSON text of a content made of JSON types only, in one pass of the C encoder.

    JSON types: dicts, lists, tuples, strings, finite numbers, booleans, None; anything else gives None.

    Its token estimate bounds that of `json_text(as_json(content))`: the two texts differ only
    where pydantic spells a key differently at the same length (`None`, `True`) or drops a key
    that collides with another, so most small returns are ruled out without walking them three
    times. When `as_json` gives back data equal to the content, the two texts are the same.
    """
    if isinstance(content, str):
        return None  # its text is itself: nothing to save
    text = strings_json(content)  # a list of lines or names, the most common list: the same text, sooner
    if text is not None:
        return text
    try:
        return _PLAIN_ENCODER.encode(content)
    except (_NotPlain, TypeError, ValueError, RecursionError):
        return None


_PLAIN_ENCODER = json.JSONEncoder(
    ensure_ascii=False,
    separators=(',', ':'),
    allow_nan=False,
    default=_not_plain,
    # Circular data still has no text: it nests until RecursionError, without a set of every container seen
    # (a fifth of the time of a content of records).
    check_circular=False,
)
"""`plain_json_text`'s encoder, made once: `json.dumps` makes one per call."""


class _Multimodal(Exception):
    pass


def _reject_multimodal(value: object) -> None:
    if isinstance(value, _MULTIMODAL):
        raise _Multimodal
    # as in the Python walk, other objects are not looked into


def _has_multimodal(value: object) -> bool:
    """Whether lists, tuples and dicts in `value` hold binary or multimodal data.

    The C JSON encoder walks the containers (calling the hook only for other objects) about ten times
    faster than Python recursion; keys it cannot encode or circular data take the Python walk.
    """
    try:
        json.dumps(value, default=_reject_multimodal)
    except _Multimodal:
        return True
    except (TypeError, ValueError):
        return _walk_multimodal(value)
    return False


def _walk_multimodal(value: object) -> bool:
    if isinstance(value, _MULTIMODAL):
        return True
    if _is_sequence(value):
        return any(_walk_multimodal(item) for item in value)
    if is_dict(value):
        return any(_walk_multimodal(item) for item in value.values())
    return False


def _is_sequence(value: object) -> TypeGuard[list[object] | tuple[object, ...]]:
    return isinstance(value, (list, tuple))


def _call_args(messages: Sequence[ModelMessage], message_index: int, tool_call_id: str) -> str:
    """Arguments of the call this return answers: the call of that id in the response just before."""
    previous = messages[message_index - 1] if message_index else None
    if not isinstance(previous, ModelResponse):
        return ''
    for part in previous.parts:
        if isinstance(part, ToolCallPart) and part.tool_call_id == tool_call_id:
            return part.args_as_json_str()  # as pydantic-ai sends them, whatever they hold
    return ''
