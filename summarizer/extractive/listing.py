"""`grep -n` output and `find`/`ls` listings: whole lines, matches before context, every file if it can.

A listing's line is its unit of meaning (`path:line:code`): it is never cut into pieces. A match
line (`path:12:`) is what was searched for: it weighs as much as a fact or so (`MID`) beyond its facts, so it comes
before a line of context (`path-13-`) holding as many names, once its own are kept. The first line of each file is
required (`MUST`), so the summary shows which files matched before showing more of one file: its first
match line, not a line of context above it (`rebuilder.py-46-)`) that says nothing of the match. The `--`
that `grep -C` prints between groups, and a blank line of context (`tests.py-446-`), are no lines to keep for
themselves: between two markers they say nothing the markers do not, and between two kept lines they are kept
anyway (a run that costs less than the marker standing for it stays).
"""

from __future__ import annotations

import re

from .lines import MID, MUST, NOISE, Joined
from .shell import CHECKER_CONTEXT, VERDICT_LINE

GREP_LINE = re.compile(r'^([^\s:]+?)(?::(\d{1,12}):|-(\d{1,12})-)', re.MULTILINE)
"""A match (`path:12:`, group 2 its number) or a context line (`path-13-`, group 3) of `grep -n`; group 1 is the path.
A number has 12 digits at most: no file is longer, and Python reads no `int` of over 4300 digits."""
_VERDICT = re.compile(VERDICT_LINE)
_VERDICT_LINES = 3
"""A checker's verdict under its findings, a line each (mypy's `Found 447 errors in 5 files (checked 7 source files)`):
how many there were, which the findings a summary keeps do not say."""
_CONTEXT = re.compile(CHECKER_CONTEXT, re.MULTILINE)
_GROUP_SEPARATOR = re.compile(r'^--\r?$', re.MULTILINE)
"""The line `grep -A`/`-B`/`-C` prints between two groups of lines."""


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = [0.0] * len(lines)
    first: dict[str, int] = {}
    first_match: dict[str, int] = {}
    for line, match in zip(lines.matching(GREP_LINE), GREP_LINE.finditer(lines.text), strict=True):
        path = match.group(1)
        first.setdefault(path, line)
        if match.group(2):
            result[line] = MID
            first_match.setdefault(path, line)
        elif not lines.lines[line][match.end() - match.start() :].strip():
            result[line] = NOISE  # a blank line of context (`tests.py-446-`) names a file and a number, nothing else
    for path, line in first.items():
        named = first_match.get(path, line)
        result[named] = max(result[named], 0.0) + MUST  # a file named by a blank line of context is named still
    for line in lines.matching(_GROUP_SEPARATOR):
        result[line] = NOISE
    for line in lines.matching(_CONTEXT):  # kept with the findings it places, not for its own name in their stead
        result[line] = NOISE
    for line in range(max(len(lines) - _VERDICT_LINES, 0), len(lines)):  # a verdict ends the report: its last lines
        if _VERDICT.match(lines.lines[line]):
            result[line] = max(result[line], MUST)
    return result
