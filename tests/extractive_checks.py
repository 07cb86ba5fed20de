"""Checks shared by the tests of the embedded model's kinds: kept lines verbatim, every cut marked and counted."""

from __future__ import annotations

import re

from summarizer.pipeline._originals import READ_HINT

MARKER = re.compile(rf'^… (\d+) (?:similar )?lines? omitted …(?:{re.escape(READ_HINT)})?$')
"""A marker, with the pipeline's hint naming the read tool when the original was stored."""


def kept_lines(original: str, summary: str) -> list[str]:
    """The original lines `summary` keeps, after checking it is `original` with runs of lines replaced by markers.

    Walks both in order: each summary line is either the next kept original line (byte for byte,
    further down) or a marker whose count is exactly the number of lines dropped before the next
    kept one. Only blank lines may go without a marker.
    """
    lines = original.split('\n')
    body = summary.split('\n')
    kept: list[str] = []
    position = 0
    pending: int | None = None
    for line in body:
        marker = MARKER.match(line)
        if marker:
            assert pending is None, 'two markers in a row'
            pending = int(marker.group(1))
            continue
        found = lines.index(line, position)  # ValueError: a line that is no original line (in order)
        _check_gap(lines[position:found], pending, before=line)
        kept.append(line)
        pending = None
        position = found + 1
    _check_gap(lines[position:], pending, before='the end')
    return kept


def _check_gap(dropped: list[str], marked: int | None, *, before: str) -> None:
    if marked is not None:
        assert marked == len(dropped), f'a marker says {marked}, {len(dropped)} lines were dropped before {before!r}'
    else:
        assert not any(line.strip() for line in dropped), f'lines dropped without a marker before {before!r}'
