"""Search results: the title, url and first sentence of every result it can, the page text shortened.

A reader goes on from a search by opening a url or citing a title; the page text is what a summary
shortens. As JSON (`[{url, title, content}]`) the items keep their keys and short fields and their
long texts are cut by line (see `tree`); as text (`Title: …` / `URL: …` blocks) the title and url
lines come first, with the first sentence of each result's page: its first line of prose after the
title (`_first_sentences`), past the menus and the title again a scraped page opens with. Where that
is not the text's own first line, the first line (`Text: …`, `Snippet: …`) weighs little; where no
line reads as prose, the first line stands for it, whatever mark it starts with (`Text: ‘AI agents’
promise…`, `Text: **Update**`, `Text: # Pricing`), unless it is empty (`Summary: None`) or a link
(`Text: [Skip to content]`). A result's bookkeeping (`Score: None`, `Favicon: …`) comes last. A page's
paragraph is offered in pieces of at most `PIECE_CHARS`, so its first sentence comes without the rest.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

from . import prose
from .lines import HIGH, LOW, MID, MUST, NOISE, Joined

_TEXT_START = re.compile(
    r'^(?:Text|Snippet|Content|Summary|Description):[ \t]*+(?!None[ \t]*\r?$)[^\w\[\]!\n]{0,4}\w', re.MULTILINE
)
"""The start of a result's text: its first sentence, whatever mark comes before its first word (a quote
mark, `**`, `# `, `¿`), but no empty field (`Summary: None`) and no link (`Text: [Skip to content]`): a
scraped page's text may start with its site's menu."""
_EMPTY_FIELD = re.compile(r'^[A-Z][A-Za-z ]{0,30}:[ \t]*(?:None|null)[ \t]*\r?$', re.MULTILINE)
"""A result's field with nothing in it (`Summary: None`, `Subpages: None`): it says nothing, so it weighs less than
nothing (`lines.NOISE`). A line of a few tokens, it would otherwise fill what the budget leaves before a page's
lines do, and as a text's last line (`tree`'s edge bonus) outweigh its results' dates."""
_NAMING = re.compile(r'^(?:Title|URL|Url|Link|Source|url|link|title):[ \t]', re.MULTILINE)
"""A result's title or url: what a reader opens or cites, whole or not at all."""
_RULES = (
    (_NAMING, MUST),
    (_TEXT_START, HIGH),
    (re.compile(r'^(?:Published(?: Date)?|Date):[ \t]', re.MULTILINE), MID / 3),
)
URL_KEYS = frozenset({'url', 'link', 'href', 'uri', 'source', 'source_url', 'title', 'name'})
"""Fields of a result item that stay with it whenever it is kept."""
ITEM_FIELD_BONUS = HIGH


PIECE_CHARS = 160
"""A page's paragraph is cut into pieces about this long (at sentence ends where it can): a first sentence alone
costs a tenth of a 1,500-character paragraph, and a summary of ten results has room for ten of them."""


def piece_chars(line: str, limit: int) -> int:
    """Where a line of search results is cut into pieces: a page's paragraph at `PIECE_CHARS`.

    A title or url (`_NAMING`) at `limit`, as any line: 160 characters of a 300-character redirect url open nothing.
    """
    return limit if _NAMING.match(line) else min(limit, PIECE_CHARS)


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring).

    A result's page text is a web page: its chrome weighs less than nothing, as in prose (`prose.chrome`), and so
    does an empty field (`_EMPTY_FIELD`). The first sentence of each result is required as its title is.
    """
    result = lines.bonuses(_RULES)
    prose.chrome(lines, result)
    for index in lines.matching(_EMPTY_FIELD):
        result[index] = NOISE
    for start, sentence in _first_sentences(lines, result):
        result[sentence] = max(result[sentence], MUST)
        if start is not None and start != sentence:  # the page's title again, or its menu: the sentence says more
            result[start] = min(result[start], LOW)
    return result


_TITLE = re.compile(r'^(?:Title|title):[ \t]', re.MULTILINE)
_SENTENCE = re.compile(
    r'(?![ \t]*+(?:[-*+#|]|\d++\.[ \t]))(?:[^ \t\n]++[ \t]++){9}[^\n]*?[a-z0-9)\]][.!?](?:[ \t"”’)]|\r?$)'
)
"""A line of a page's own prose: ten words or more and a sentence's end, no list item, heading or table row. A
quote is prose: a scraped paper's page writes its abstract as one (`> The deployment of capable AI agents ...`).

Nine words exactly, each possessive, then the first sentence end: one way to match, so a line is read once."""


def _first_sentences(lines: Joined, bonuses: Sequence[float]) -> list[tuple[int | None, int]]:
    """Each result's first line of prose (`_SENTENCE`) after its title that is not chrome, with its text's first line.

    As (the result's `Text:` line or None, the line of prose). A result runs from its `Title:` line to the next.
    """
    titles = lines.matching(_TITLE)
    starts = lines.matching(_TEXT_START)
    found: list[tuple[int | None, int]] = []
    for title, end in itertools.pairwise([*titles, len(lines.lines)] if titles else []):
        at = bisect.bisect_right(starts, title)
        start = starts[at] if at < len(starts) and starts[at] < end else None
        for index in range(title + 1, end):
            if bonuses[index] > NOISE and _SENTENCE.match(lines.lines[index]):
                found.append((start, index))
                break
    return found
