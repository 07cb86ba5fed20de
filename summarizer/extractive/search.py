"""Search results: the title, url and first sentence of every result it can, the page text shortened.

A reader goes on from a search by opening a url or citing a title; the page text is what a summary
shortens. As JSON (`[{url, title, content}]`) the items keep their keys and short fields and their
long texts are cut by line (see `tree`); as text (`Title: …` / `URL: …` blocks) the title and url
lines come first, then the start of each result's text (`Text: …`, `Snippet: …`); a result's
bookkeeping (`Score: None`, `Favicon: …`) comes last.
"""

from __future__ import annotations

import re

from . import prose
from .lines import HIGH, MID, MUST, Joined

_RULES = (
    (re.compile(r'^(?:Title|URL|Url|Link|Source|url|link|title):[ \t]', re.MULTILINE), MUST),
    (re.compile(r'^(?:Text|Snippet|Content|Summary|Description):[ \t]*(?!None$)\w', re.MULTILINE), HIGH),
    (re.compile(r'^(?:Published(?: Date)?|Date):[ \t]', re.MULTILINE), MID / 3),
)
URL_KEYS = frozenset({'url', 'link', 'href', 'uri', 'source', 'source_url', 'title', 'name'})
"""Fields of a result item that stay with it whenever it is kept."""
ITEM_FIELD_BONUS = HIGH


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring).

    A result's page text is a web page: its chrome weighs less than nothing, as in prose (`prose.chrome`).
    """
    result = lines.bonuses(_RULES)
    prose.chrome(lines, result)
    return result
