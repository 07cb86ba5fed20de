"""Offline token estimates.

A real tokenizer (tiktoken) downloads its tables at run time, so it can only be an injected option.
The default estimate is deliberately simple and a little pessimistic: ASCII text averages about four
characters a token across common BPE vocabularies, while other scripts (CJK, emoji, Cyrillic)
average one token or more a character.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import cast

import pydantic_core
from pydantic_ai.messages import (
    BaseToolCallPart,
    BaseToolReturnPart,
    ModelMessage,
    ModelRequest,
    UserPromptPart,
)

from ._shape import JsonValue, all_strings

Tokenizer = Callable[[str], int]
"""Counts the tokens of a text; inject tiktoken's `len(enc.encode(text))` for exact counts."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text`: ASCII characters / 4 plus one per non-ASCII character."""
    if text.isascii():
        return (len(text) + 3) // 4
    ascii_chars = len(text.encode('ascii', 'ignore'))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def json_text(value: JsonValue) -> str:
    """The compact JSON text of a value, the form whose size is measured and hashed (a string: itself)."""
    if isinstance(value, str):
        return value
    text = strings_json(value)  # a list of lines, the most common summary of a list: the same text, sooner
    return text if text is not None else json.dumps(value, ensure_ascii=False, separators=(',', ':'))


def strings_json(value: object) -> str | None:
    """The compact JSON text of a string or a list of strings, by pydantic-core's encoder; None for anything else.

    For these it is `json.dumps(value, ensure_ascii=False, separators=(',', ':'))` byte for byte (both
    escape the quote, the backslash and the control characters, and those alike), in about a quarter
    of the time: most tool outputs are text. None too for a text with a lone surrogate (no UTF-8 form),
    which the caller's own encoder writes.
    """
    kind = type(value)
    if kind is not str and not (kind is list and all_strings(cast('list[object]', value))):
        return None
    try:
        return pydantic_core.to_json(value).decode()
    except pydantic_core.PydanticSerializationError:
        return None


def content_tokens(value: JsonValue, tokenizer: Tokenizer = estimate_tokens) -> int:
    """Tokens of a tool-return content: a string's text, anything else's compact JSON."""
    return tokenizer(json_text(value))


def part_text(part: object) -> str:
    """The text of a message part as a model reads it; multimodal data counts as nothing.

    A tool return is read as pydantic-ai sends it (`model_response_str`: a string as it is, anything
    else as JSON), a tool call as its name and JSON arguments, a retry as its message to the model.
    """
    if isinstance(part, BaseToolReturnPart):
        content = part.content
        if isinstance(content, str):
            return content
        try:  # JSON data as pydantic-ai sends it, by the C encoder (pydantic checks every item for files first)
            return json.dumps(content, ensure_ascii=False, separators=(',', ':'), allow_nan=False)
        except (TypeError, ValueError):
            return part.model_response_str()
    if isinstance(part, BaseToolCallPart):
        return part.tool_name + part.args_as_json_str()
    if isinstance(part, UserPromptPart):
        if isinstance(part.content, str):
            return part.content
        return '\n'.join(item for item in part.content if isinstance(item, str))
    respond = getattr(part, 'model_response', None)  # retry prompts (`RetryPromptPart` is deprecated, still stored)
    if callable(respond):
        return str(respond())
    content = getattr(part, 'content', None)  # text, thinking, system prompts, instructions
    return content if isinstance(content, str) else ''


def message_texts(message: ModelMessage, *, made: Mapping[int, str] | None = None) -> Iterator[str]:
    """What a model reads of a message, block by block: a request's instructions, then each part.

    `made`: the texts of parts (by index) already made as `part_text` makes them, used as they are.
    """
    if isinstance(message, ModelRequest) and message.instructions:
        yield message.instructions
    for index, part in enumerate(message.parts):
        text = made.get(index) if made else None
        yield part_text(part) if text is None else text
