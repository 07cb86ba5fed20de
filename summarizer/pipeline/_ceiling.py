"""The context ceiling (`policy.max_prompt_tokens`): a prompt that would exceed it is brought under it in one rewrite.

When a request's prompt would be over the ceiling, every return due for a summary is rewritten at
once (the cache breaks once, from the oldest), and the oldest are cut further, oldest first, as far
as needed: to a brief summary, then (a string) to a one-line marker that names `read_tool_return`, until the
prompt is `ROOM` under the ceiling, so the next turns fit too and the cache is not broken again at
the very next request. What no summary can take out (prompts, assistant turns, the `keep_recent`
window, returns too small to summarize) stays; when it alone exceeds the ceiling, the request goes
out over it and `Report.over_ceiling` counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from ..core import REPEAT_NOTE, JsonValue
from ..extractive.lines import marker as omission

ROOM = 0.25
"""The share of the ceiling a rewrite for it leaves free for the next turns."""
MARKER_FLOOR = 50
"""Returns of at most this many tokens are not worth a marker (one with its read hint is about 20)."""


class Cut(IntEnum):
    """How far a return is cut for the ceiling: its usual summary, a brief one, or a one-line marker."""

    SUMMARY = 0
    BRIEF = 1
    MARKER = 2


def fit(removals: Sequence[Sequence[int]], *, excess: int) -> tuple[list[Cut], int]:
    """How far to cut each due return (oldest first) to take `excess` tokens out, and what that takes out.

    `removals`: per return, the tokens each `Cut` takes out of the prompt at least (non-decreasing).
    Every return gets its summary; then the oldest are cut further, one level at a time, oldest
    first, until `excess` is out. Short of it when even every marker cannot take it out.
    """
    cuts = [Cut.SUMMARY] * len(removals)
    removed = sum(removal[Cut.SUMMARY] for removal in removals)
    for cut in (Cut.BRIEF, Cut.MARKER):
        for index, removal in enumerate(removals):
            if removed >= excess:
                return cuts, removed
            gain = removal[cut] - removal[cuts[index]]
            if gain > 0:
                cuts[index], removed = cut, removed + gain
    return cuts, removed


def marker(content: JsonValue, *, repeated_by: str | None = None) -> str | None:
    """A one-line stand-in for a string `content`, saying how many lines it cut (`with_read_hint` names the read tool).

    `repeated_by`: the id of a later call whose return holds the same output, named at the end
    (`REPEAT_NOTE`). None for a list or an object: the shape contract keeps a list's kept items and an
    object's keys, and a stand-in holding nothing but markers says nothing, so those are cut to a brief
    summary at most.
    """
    if not isinstance(content, str):
        return None
    cut = omission(content.count('\n') + 1)  # the marker of a run of dropped lines, standing for them all
    return cut if repeated_by is None else cut + REPEAT_NOTE.format(repeated_by)
