"""Prose, Markdown and HTML: headings and the lines around them, then what holds facts.

Headings are a document's outline; the first line under each says what the section is about.
A scraped web page also holds its site's chrome: menus and link lists (`* [AI Consulting]`,
`[![]]`, `1. [Introduction]`), lines of nothing but links. They hold names the fact scan counts
(`SugarCRM`), and, a few tokens each, would win the budget from the sentences a reader came for:
they weigh less than nothing (`chrome`), unless a later turn quotes what they hold.
"""

from __future__ import annotations

import bisect
import re

from .lines import HIGH, LOW, MID, Joined

_RULES = (
    (re.compile(r'^[ \t]{0,3}#{1,6} |^[ \t]*<h[1-6]\b|^[=-]{3,}[ \t]*$', re.IGNORECASE | re.MULTILINE), MID),
    (re.compile(r'^[ \t]*(?:[-*+]|\d+[.)]) \S|^[ \t]*\|', re.MULTILINE), 0.25),
)


_CHROME = re.compile(
    r'^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:!?\[(?:!?\[[^\[\]\n]*\])?[^\[\]\n]*\](?!\()[ \t]*)+$|^\[#{1,6} ',
    re.MULTILINE,
)
"""A line of nothing but links and images whose targets the scrape dropped, in a list or not (`* [Careers]`,
`![]![] [Get A Free AI Chatbot]`), or the start of a heading inside a link (`[### HealthCare`): a page's
navigation, not its text. A link with its target (`- [Commits](https://...)`) is a reference, and stays a line.
No two ways to match a character (no `[` inside a link's text but one image or link): linear on any line."""
CHROME = -HIGH
"""The bonus of such a line: more than the facts of a name or two weigh, less than a quoted fact."""
_FENCE = re.compile(r'^[ \t]{0,3}(?:```|~~~)', re.MULTILINE)
"""A fenced code block's opening or closing line: what stands between two is code (`[tool.ruff]`, `[1, 2, 3]`), no menu."""


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = lines.bonuses(_RULES)
    for index in range(1, len(lines)):
        if result[index - 1] == MID and result[index] < MID:  # the line under a heading
            result[index] = max(result[index], LOW)
    chrome(lines, result)
    return result


def chrome(lines: Joined, bonuses: list[float]) -> None:
    """Give the lines of a page's chrome (see the module's docstring) that no rule values the `CHROME` bonus.

    Not inside a fenced code block: a TOML table's `[tool.ruff]` or a printed `[1, 2, 3]` is code a reader
    came for, and the header names the keys under it.
    """
    found = lines.matching(_CHROME)
    fences = lines.matching(_FENCE) if found else []
    for index in found:
        if bisect.bisect_right(fences, index) % 2:
            continue  # after an odd number of fences: inside a code block
        if bonuses[index] <= LOW:
            bonuses[index] = CHROME
