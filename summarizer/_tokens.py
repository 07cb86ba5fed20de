"""Offline token estimates.

A real tokenizer (tiktoken) downloads its tables at run time, so it can only be an injected option.
The default estimate is deliberately simple and a little pessimistic: ASCII text averages about four
characters a token across common BPE vocabularies, while other scripts (CJK, emoji, Cyrillic)
average one token or more a character.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ._shape import JsonValue

Tokenizer = Callable[[str], int]
"""Counts the tokens of a text; inject tiktoken's `len(enc.encode(text))` for exact counts."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text`: ASCII characters / 4 plus one per non-ASCII character."""
    if text.isascii():
        return (len(text) + 3) // 4
    ascii_chars = len(text.encode('ascii', 'ignore'))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def json_text(value: JsonValue) -> str:
    """The compact JSON text of a value, the form whose size is measured and hashed."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(',', ':'))


def content_tokens(value: JsonValue, tokenizer: Tokenizer = estimate_tokens) -> int:
    """Tokens of a tool-return content: a string's text, anything else's compact JSON."""
    return tokenizer(json_text(value))
