"""Checks shared by the tests of the embedded model's kinds: kept lines verbatim, every cut marked and counted."""

from __future__ import annotations

import re

from summarizer.extractive import summarize
from summarizer.pipeline._originals import READ_HINT

MARKER = re.compile(rf'^… (\d+) (?:similar )?lines? omitted(?: \(\d+ records?\))? …(?:{re.escape(READ_HINT)})?$')
"""A marker, with the pipeline's hint naming the read tool when the original was stored."""


def summary_lines(
    text: str, *, budget_tokens: int, quoted: tuple[str, ...] = (), quoted_budget_tokens: int | None = None
) -> list[str]:
    """The lines of `text` its summary at `budget_tokens` keeps (`kept_lines`), the summary checked to be a string."""
    summary = summarize(text, budget_tokens=budget_tokens, quoted=quoted, quoted_budget_tokens=quoted_budget_tokens)
    assert isinstance(summary, str)
    return kept_lines(text, summary)


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
        if pending is not None and position + pending < len(lines) and lines[position + pending] == line:
            found = position + pending  # where the marker says: a line the text repeats may stand before it too
        else:
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


SITE_MENU = (
    '[![Acme logo]] ',
    'Product',
    '[',
    'Acme in GitHub',
    'Sync issues both ways',
    '] [![] ',
    'Acme in ServiceNow',
    '] [![] ',
    'Acme in HubSpot',
    '] [',
    'B2B Marketing',
    '] [',
    'DevOps Teams',
    '] ',
    'Sign in',
)
"""A site's menu as a scrape leaves it: each link's brackets on lines of their own, around its labels."""
MENU_LABELS = frozenset(line for line in SITE_MENU if line[:1].isalpha())
"""Its labels, some holding names the fact scan counts (`GitHub`, `B2B`)."""
SHORT_LINES = {
    'headings': ['## Installation', '### Upgrading'],
    'list items': ['- Python', '- PostgreSQL', '* Redis', '1. Docker'],
    'key: value lines': ['Status: stable', 'Region: eu-west-1', 'Owner: Dana Ruiz'],
    'fenced code': ['```bash', 'make build', 'make install', 'acme sync', '```'],
    'indented code': ['Build it with:', '    make build', '    make install', '    acme sync'],
    'table rows': ['| Plan | Seats |', '| --- | --- |', '| Team | Unlimited |'],
    'table rows without a leading pipe': ['Plan|Seats|', '---|---|', 'Team|Unlimited|'],
    'table rows without a last pipe': ['| Plan | Seats', '| --- | ---', '| Team | Unlimited'],
    'aligned columns': ['Plan     Seats', 'Team     Unlimited', 'Scale    Unlimited'],
    'figures': ['Downloads 28', 'Abstract Views 143', 'Citations 7'],
}
"""Short lines a reader came for that hold no sentence: a page keeps them, between two menus or not."""
