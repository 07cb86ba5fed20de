"""A batch's fast path: prove a stored history has nothing to summarize without validating it in full.

Most histories of a large store have no tool return over the threshold, and for them the full path
(pydantic-ai's validation of every message, the walk) costs several times decoding the same bytes,
to end up writing nothing. The screen reads the decoded JSON (`StoredHistory.decode`, which the full
path goes on from), checks its structure (a list of messages of known `kind`, each
with a list of parts of known `part_kind`) and bounds the token estimate of every tool-return
content; when every bound is under the lowest threshold, nothing can be summarized and the history
is passed through as it is. Anything it cannot prove (another tokenizer, an unexpected structure, a legacy `retry-prompt` part, a content that may be over) takes
the full path, which names the problem of bad input exactly.

The trade-off: a history that passes the screen is not validated field by field (a malformed
timestamp in a history with nothing to summarize is not reported by `batch`; nothing is written
for it either). `summarizer compact` and `summarizer check` always validate in full.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass

import pydantic
from pydantic_ai.messages import ModelRequestPart, ModelResponsePart

from ..core import SummarizerConfig, Tokenizer, estimate_tokens
from ..pipeline import plain_json_text
from ._stored import StoredHistory


@dataclass(frozen=True)
class Screened:
    """A history proven to have nothing to summarize."""

    returns: int
    """Its tool returns (what the full path reports as examined)."""


def _part_kinds(union: object) -> frozenset[str]:
    """The `part_kind` values of a pydantic-ai part union (its tagged members' defaults)."""
    members = [typing.get_args(member) for member in typing.get_args(typing.get_args(union)[0])]
    tagged = [cls for cls, *metadata in members if any(isinstance(meta, pydantic.Tag) for meta in metadata)]
    return frozenset(cls.__dataclass_fields__['part_kind'].default for cls in tagged)


_PART_KINDS: dict[object, frozenset[str]] = {  # keyed by a message's `kind`, which may be any JSON value
    'request': _part_kinds(ModelRequestPart),
    'response': _part_kinds(ModelResponsePart),
}


def screen(history: StoredHistory, *, config: SummarizerConfig, tokenizer: Tokenizer) -> Screened | None:
    """`Screened` when no tool-return content of `history` can be over a threshold, else None (validate it)."""
    if tokenizer is not estimate_tokens:
        return None  # the bounds below hold for the estimate only
    lowest = min([config.threshold_tokens, *map(config.threshold_for, config.tools)])
    returns = 0
    for message in history.data:
        if not isinstance(message, dict):
            return None
        parts = message.get('parts')
        if not isinstance(parts, list):
            return None
        message_kind = message.get('kind')
        known = _PART_KINDS.get(message_kind) if isinstance(message_kind, str) else None  # a list is unhashable
        if known is None:
            return None
        for part in parts:
            if not isinstance(part, dict):
                return None
            kind = part.get('part_kind')
            if (
                not isinstance(kind, str) or kind not in known or kind == 'retry-prompt'
            ):  # a legacy retry prompt may load as a tool return
                return None
            if kind == 'tool-return':  # a request's part: no response part has that kind
                returns += 1
                if _upper_bound(part.get('content')) > lowest:
                    return None
    return Screened(returns=returns)


def _upper_bound(content: object) -> int:
    """At least the token estimate of the content's JSON text as the walk measures it.

    Decoded JSON holds JSON types only, so `plain_json_text` is exactly that text (None for NaN or
    infinity, which pydantic spells differently: no bound then).
    """
    if isinstance(content, str):
        return estimate_tokens(content)
    text = plain_json_text(content)
    return estimate_tokens(text) if text is not None else 1 << 62
