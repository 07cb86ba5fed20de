"""`grep -n` output and `find`/`ls` listings: whole lines, matches before context, every file if it can.

A listing's line is its unit of meaning (`path:line:code`): it is never cut into pieces. A match
line (`path:12:`) outweighs a context line (`path-13-`), and the first line of each file is
required (`MUST`), so the summary shows which files matched before showing more of one file.
"""

from __future__ import annotations

import re

from .lines import LOW, MUST, Joined

_LINE = re.compile(r'^([^\s:]+?)(?::\d+(:)|-\d+-)', re.MULTILINE)
"""A match (`path:12:`, group 2 set) or a context line (`path-13-`) of `grep -n`; group 1 is the path."""


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = [0.0] * len(lines)
    seen: set[str] = set()
    for line, match in zip(lines.matching(_LINE), _LINE.finditer(lines.text), strict=True):
        if match.group(2):
            result[line] = LOW
        if match.group(1) not in seen:
            seen.add(match.group(1))
            result[line] += MUST
    return result
