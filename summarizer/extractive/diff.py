"""Unified diffs (`git diff`, `git show`, patches): every file header and hunk header stays.

Without `diff --git a/… b/…` and `@@ -41,7 +41,8 @@` a reader cannot tell which file or line a
change is in, so they come first; then changed lines, then context lines.
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
