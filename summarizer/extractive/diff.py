"""Unified diffs (`git diff`, `git show`, patches): the file and hunk headers first.

Without `diff --git a/… b/…` and `@@ -41,7 +41,8 @@` a reader cannot tell which file or line a
change is in, so they are required (`MUST`): chosen before any other line, as many as half the
budget holds (a fifth when later turns quote facts, which compete for the rest), the most worth
per token first; then changed lines, then context lines. A long diff under a small budget can so
keep a hunk header but not its file's `diff --git` line, whose paths `---`/`+++` repeat.
"""

from __future__ import annotations

import re

from .lines import HIGH, LOW, MID, MUST, Joined

_RULES = (
    (re.compile(r'^(?:diff --git |--- |\+\+\+ |@@ )', re.MULTILINE), MUST),
    (
        re.compile(
            r'^commit [0-9a-f]{7,}|^(?:rename|copy) (?:from|to) |^(?:new|deleted) file mode |^Binary files ',
            re.MULTILINE,
        ),
        HIGH,
    ),
    (re.compile(r'^[-+]', re.MULTILINE), MID),
    (re.compile(r'^(?:index |Author: |Date: |similarity index )', re.MULTILINE), LOW),
)


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    return lines.bonuses(_RULES)
