"""The head-truncation baseline: what a summary is worth against simply keeping the beginning.

Every model in an eval is compared with this obvious, free alternative at the same size budget. It
is an embedded `FunctionModel` like the extractive one, so it runs through the same prompt,
structured output and post-check: its figures differ from a model's only by what it keeps.

The head of a content is the beginning of its text, read depth-first: a string's first characters
and a `…` where they stop; a list's first items (strings cut), then `… N items omitted …` for the
rest; an object with every key (it must keep them all), its values cut in order, a string cut to
nothing written `…`: every summary says where it cut (the grounded check takes a piece of a line
only with a `…` where the line goes on). The character allowance is the largest whose result fits
the token budget.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping

from pydantic_ai.models.function import FunctionModel

from ..core import DROPPED_TEXT, JsonValue, estimate_tokens, items_marker, json_text
from ..pipeline import EmbeddedRequest, embedded_model

HEAD = 'head'


def head_model(sizes: Mapping[bytes, int] | None = None) -> FunctionModel:
    """Head truncation as a model; `sizes`: per request (`content_digest`), the tokens to cut it to, not its budget.

    The eval hands it the sizes of the compared model's own summaries, so that both are read at the same
    cut, return by return: a model may spend past its budget on the lines later turns quote. A request is
    its content with its budget and quoted facts: one content in two conversations, quoted in one only,
    gets two summaries of two sizes.
    """
    return embedded_model(HEAD, functools.partial(head, sizes=sizes) if sizes else head)


def content_digest(request: EmbeddedRequest) -> bytes:
    """A request's name in `head_model`'s sizes: the digest of its content's compact JSON text, budget and quoted facts."""
    digest = hashlib.blake2b(digest_size=16)
    for field in (json_text(request.content), str(request.budget_tokens), *request.quoted):
        text = field.encode('utf-8', 'surrogatepass')
        digest.update(len(text).to_bytes(8, 'big') + text)  # length-prefixed: no two lists of fields run together
    return digest.digest()


def head(request: EmbeddedRequest, *, sizes: Mapping[bytes, int] | None = None) -> JsonValue:
    """The head of the request's content that fits its budget in estimated tokens (at least one character of text).

    Its quoted facts and their stretch are ignored: truncation is the alternative that knows nothing of
    the conversation. `sizes`: see `head_model`; a request it names is cut to its size, not its budget.
    """
    content, budget_tokens = request.content, request.budget_tokens
    if sizes:
        budget_tokens = sizes.get(content_digest(request), budget_tokens)
    low, high = 1, max(min(_text_chars(content), budget_tokens * 4), 1)
    while low < high:  # the largest allowance that fits; the result grows with the allowance
        middle = (low + high + 1) // 2
        if estimate_tokens(json_text(_cut(content, middle)[0])) <= budget_tokens:
            low = middle
        else:
            high = middle - 1
    summary = _cut(content, low)[0]
    max_items = request.max_items
    return summary[:max_items] if isinstance(summary, list) and max_items is not None else summary


def _cut(value: JsonValue, allowance: int) -> tuple[JsonValue, int]:
    """`value` with at most `allowance` characters of string text, depth-first; and what is left of it."""
    if isinstance(value, str):
        if len(value) <= allowance or not value.strip():
            return value[:allowance], max(allowance - len(value), 0)
        head = value[:allowance].rstrip()
        # the cut is marked, as any summary marks one: `…` after the last piece kept, or for the whole
        return f'{head} {DROPPED_TEXT}' if head else DROPPED_TEXT, 0
    if isinstance(value, list):
        items: list[JsonValue] = []
        for item in value:
            if allowance <= 0:
                break
            cut, allowance = _cut(item, allowance)
            items.append(cut)
        if len(items) < len(value):
            items.append(items_marker(len(value) - len(items)))
        return items, allowance
    if isinstance(value, dict):
        kept: dict[str, JsonValue] = {}
        for key, item in value.items():
            kept[key], allowance = _cut(item, allowance)
        return kept, allowance
    return value, allowance


def _text_chars(value: JsonValue) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(_text_chars(item) for item in value)
    if isinstance(value, dict):
        return sum(_text_chars(item) for item in value.values())
    return 0
