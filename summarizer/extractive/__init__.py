"""The embedded summarizer: deterministic, offline, extractive, fact-keeping (see README.md here).

It never writes a word that is not in the content: it keeps lines (byte for byte) and list items,
each with the lines that place it (`outline`), and drops the rest with a marker saying how many
lines went. How it chooses depends on the kind of content (`_kinds`, which the eval's per-kind
figures use too): each kind has its module here.
"""

from __future__ import annotations

from ..core import JsonValue
from . import json_text
from ._kinds import ContentKind, detect_kind
from .budget import Deadline, WorkBudgetExceeded, current_deadline, time_limit, within
from .tree import summarize_value

__all__ = (
    'ContentKind',
    'Deadline',
    'WorkBudgetExceeded',
    'current_deadline',
    'detect_kind',
    'summarize',
    'time_limit',
    'within',
)


def summarize(
    content: JsonValue,
    *,
    budget_tokens: int,
    max_items: int | None = None,
    quoted: tuple[str, ...] = (),
    quoted_budget_tokens: int | None = None,
) -> JsonValue:
    """A summary of `content` of about `budget_tokens` estimated tokens, keeping its shape.

    `quoted`: facts of `content` that later turns quote, kept before anything else that fits; the lines
    holding them (with the lines that place them) may take it on to `quoted_budget_tokens`, nothing else may.
    `max_items`: the most items a list summary may keep. Inside `time_limit(seconds)` the work
    stops with `WorkBudgetExceeded` once they are up (the model runs in a thread nothing else can stop).
    """
    deadline = current_deadline()
    if isinstance(content, str):
        kind = detect_kind(content)
        if kind is ContentKind.JSON_TEXT:
            value = json_text.parse(content)
            if value is not None:
                return json_text.summarize(
                    content,
                    value,
                    budget_tokens=budget_tokens,
                    quoted=quoted,
                    quoted_budget_tokens=quoted_budget_tokens,
                    deadline=deadline,
                )
        return summarize_value(
            content,
            budget_tokens=budget_tokens,
            quoted=quoted,
            quoted_budget_tokens=quoted_budget_tokens,
            kind=kind,
            deadline=deadline,
        )
    summary = summarize_value(
        content,
        budget_tokens=budget_tokens,
        quoted=quoted,
        quoted_budget_tokens=quoted_budget_tokens,
        deadline=deadline,
    )
    if isinstance(summary, list) and max_items is not None:
        summary = summary[: max(max_items, 1)]
    return summary
