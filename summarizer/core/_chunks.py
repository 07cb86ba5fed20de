"""Work over a long sequence a chunk at a time, with a look at a deadline before each chunk.

One C pass over a huge text (a 10 MB log's lines or tokens) takes seconds; the embedded model and the
fact scan must stop at their deadline instead, so they do such passes a chunk at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

_T = TypeVar('_T')
_R = TypeVar('_R')

CHUNK = 4096
"""Items between two looks at the deadline: milliseconds of work on the longest lines kept whole."""


def in_chunks(
    check: Callable[[], None], function: Callable[[Sequence[_T]], Iterable[_R]], items: Sequence[_T]
) -> list[_R]:
    """`function` of `items`, `CHUNK` items at a time, `check` (a deadline's, raising once it is past) called before each."""
    result: list[_R] = []
    for start in range(0, len(items), CHUNK):
        check()
        result.extend(function(items[start : start + CHUNK]))
    return result
