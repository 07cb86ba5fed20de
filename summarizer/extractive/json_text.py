r"""JSON inside a string (`json.dumps(rows)` returned as text): summarized by its shape, written back alike.

Cutting such a string by lines would leave broken JSON, and most LangChain tool messages and MCP
tools return exactly this. So the text is parsed, its value summarized as records are (`tree`:
fewer list items, `… N items omitted …` in the place of those dropped, every key of an object), and
written back in the original's style (indent, separators, `\\u` escapes), so the summary still
parses, as the same JSON type, and reads like the original. A number keeps its literal (`1E2`
stays `1E2`): numbers are parsed as their own text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Self, cast

from ..core import JsonValue, estimate_tokens
from .budget import NO_DEADLINE, Deadline
from .tree import summarize_value

__all__ = ('parse', 'summarize')

_INDENT = re.compile(r'\n([ \t]+)\S')
_TRIES = 4
"""Shrinking rounds when the written-back text overshoots the budget (the style costs more than compact JSON)."""


class _Number(float):
    """A JSON number that writes back as the text it was read from (`1E2`, `-0`, `1e400`)."""

    literal: str

    def __new__(cls, literal: str) -> Self:
        number = super().__new__(cls, float(literal))
        number.literal = literal
        return number

    def __repr__(self) -> str:
        return self.literal

    __str__ = __repr__


_MakeIterencode = Callable[..., Callable[[object, int], Iterable[str]]]


@dataclass(frozen=True, slots=True)
class _Style:
    indent: str | None
    separators: tuple[str, str]
    ensure_ascii: bool

    @classmethod
    def of(cls, text: str) -> _Style:
        indented = _INDENT.search(text)
        if indented:
            return cls(indent=indented.group(1), separators=(',', ': '), ensure_ascii=_escapes_non_ascii(text))
        spaced = '", "' in text or '": ' in text or ', "' in text
        separators = (', ', ': ') if spaced else (',', ':')
        return cls(indent=None, separators=separators, ensure_ascii=_escapes_non_ascii(text))

    def write(self, value: JsonValue) -> str:
        """`value` as JSON text in this style, numbers with their original literals."""
        encoder = json.JSONEncoder(indent=self.indent, separators=self.separators, ensure_ascii=self.ensure_ascii)
        # The pure-Python encoder lets a float's text be chosen (`_float_text`); the C one always writes repr().
        make = cast(_MakeIterencode, vars(json.encoder)['_make_iterencode'])
        escape = 'encode_basestring_ascii' if self.ensure_ascii else 'encode_basestring'
        chunks = make(
            {},
            encoder.default,
            getattr(json.encoder, escape),
            self.indent,
            _float_text,
            encoder.key_separator,
            encoder.item_separator,
            False,  # sort_keys
            False,  # skipkeys
            False,  # _one_shot
        )
        return ''.join(chunks(value, 0))


def _float_text(value: float) -> str:
    if isinstance(value, _Number):
        return value.literal
    return float.__repr__(value)


def _integer(literal: str) -> int | float:
    return _Number(literal) if literal == '-0' else int(literal)  # -0 is no int: keep its sign as written


def _escapes_non_ascii(text: str) -> bool:
    return text.isascii() and '\\u' in text


def parse(text: str) -> JsonValue | None:
    """The list or object `text` holds (numbers keeping their literals), else None."""
    try:
        value = json.loads(text, parse_float=_Number, parse_int=_integer, parse_constant=_Number)
    except ValueError:
        return None
    return cast(JsonValue, value) if isinstance(value, (list, dict)) else None


def summarize(
    text: str,
    value: JsonValue,
    *,
    budget_tokens: int,
    quoted: tuple[str, ...] = (),
    quoted_budget_tokens: int | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> str:
    """`text`, which holds `value`, summarized to about `budget_tokens` as JSON text of the same style.

    `quoted_budget_tokens`: how far the lines holding `quoted` facts may take it past `budget_tokens`.
    """
    style = _Style.of(text)
    compact = len(json.dumps(value, ensure_ascii=False, separators=(',', ':')))
    scale = compact / max(len(text), 1)  # the style's overhead, from the original
    summary: JsonValue = value
    for _ in range(_TRIES):
        summary = summarize_value(
            value, budget_tokens=max(1, int(budget_tokens * scale)), quoted=quoted, deadline=deadline
        )
        written = style.write(summary)
        spent = estimate_tokens(written)
        if spent <= budget_tokens:
            break
        scale *= budget_tokens / spent * 0.95
    else:
        # Its keys and numbers alone do not fit in this style (an indented object): compact JSON still
        # parses as the same value, which beats keeping the original whole.
        return _Style(indent=None, separators=(',', ':'), ensure_ascii=style.ensure_ascii).write(summary)
    limit = quoted_budget_tokens or 0
    if not quoted or limit <= budget_tokens:
        return written
    # The budget's summary is found, at the scale it fits; the quoted items may take it on to `limit`, and
    # only they: the same budget, the quoted pass's limit scaled down until the text fits.
    stretch = scale
    for _ in range(_TRIES):
        stretched = summarize_value(
            value,
            budget_tokens=max(1, int(budget_tokens * scale)),
            quoted=quoted,
            quoted_budget_tokens=max(1, int(limit * stretch)),
            deadline=deadline,
        )
        stretched_text = style.write(stretched)
        spent = estimate_tokens(stretched_text)
        if spent <= limit:
            return stretched_text
        stretch *= limit / spent * 0.95
    return written
