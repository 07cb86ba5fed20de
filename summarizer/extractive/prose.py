"""Prose, Markdown and HTML: headings and the lines around them, then what holds facts.

Headings are a document's outline; the first line under each says what the section is about.
"""

from __future__ import annotations

import re

from .lines import LOW, MID, Joined

_RULES = (
    (re.compile(r'^[ \t]{0,3}#{1,6} |^[ \t]*<h[1-6]\b|^[=-]{3,}[ \t]*$', re.IGNORECASE | re.MULTILINE), MID),
    (re.compile(r'^[ \t]*(?:[-*+]|\d+[.)]) \S|^[ \t]*\|', re.MULTILINE), 0.25),
)


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = lines.bonuses(_RULES)
    for index in range(1, len(lines)):
        if result[index - 1] == MID and result[index] < MID:  # the line under a heading
            result[index] = max(result[index], LOW)
    return result
