"""Search results: the title, url and first sentence of every result it can, the page text shortened.

A reader goes on from a search by opening a url or citing a title; the page text is what a summary
shortens. As JSON (`[{url, title, content}]`) the items keep their keys and short fields and their
long texts are cut by line (see `tree`); as text (`Title: …` / `URL: …` blocks) the title and url
lines come first, then the start of each result's text (`Text: …`, `Snippet: …`), whatever mark it
starts with (`Text: ‘AI agents’ promise…`, `Text: **Update**`, `Text: # Pricing`), unless it is empty
(`Summary: None`) or a link (`Text: [Skip to content]`); a result's bookkeeping (`Score: None`,
`Favicon: …`) comes last.
"""

from __future__ import annotations

import re

from . import prose
from .lines import HIGH, MID, MUST, NOISE, Joined

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
_RULES = (
    (re.compile(r'^(?:Title|URL|Url|Link|Source|url|link|title):[ \t]', re.MULTILINE), MUST),
    (_TEXT_START, HIGH),
    (re.compile(r'^(?:Published(?: Date)?|Date):[ \t]', re.MULTILINE), MID / 3),
)
URL_KEYS = frozenset({'url', 'link', 'href', 'uri', 'source', 'source_url', 'title', 'name'})
"""Fields of a result item that stay with it whenever it is kept."""
ITEM_FIELD_BONUS = HIGH


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring).

    A result's page text is a web page: its chrome weighs less than nothing, as in prose (`prose.chrome`), and so
    does an empty field (`_EMPTY_FIELD`).
    """
    result = lines.bonuses(_RULES)
    prose.chrome(lines, result)
    for index in lines.matching(_EMPTY_FIELD):
        result[index] = NOISE
    return result
