"""Unified diffs (`git diff`, `git show`, patches): the file headers first, then the hunk headers.

Without `diff --git a/… b/…` and `@@ -41,7 +41,8 @@` a reader cannot tell which file or line a
change is in, so they are required: chosen before any other line, as many as half the budget holds
(a fifth when later turns quote facts, which compete for the rest), the most worth per token first.
A hunk header cannot be placed without its file's header, so file headers (`FILE`) come before hunk
headers (`MUST`): one line per file, `diff --git` where the diff has them (its `---`/`+++` lines
repeat its paths, and come last), else the `---`/`+++` pair. Then changed lines, then context lines.
"""

from __future__ import annotations

import re

from .lines import HIGH, LOW, MUST, Joined

FILE = 4 * MUST
"""A file's header: worth more than any hunk header, which it places."""
_GIT_FILE = re.compile(r'^diff --git ', re.MULTILINE)
_PATHS = re.compile(r'^(?:--- |\+\+\+ )', re.MULTILINE)
_RULES = (
    (re.compile(r'^@@ ', re.MULTILINE), MUST),
    (
        re.compile(
            r'^commit [0-9a-f]{7,}|^(?:rename|copy) (?:from|to) |^(?:new|deleted) file mode |^Binary files ',
            re.MULTILINE,
        ),
        HIGH,
    ),
    (re.compile(r'^[-+](?!-- |\+\+ ).*\w\w', re.MULTILINE), HIGH),  # a changed line that says something
    (re.compile(r'^(?:index |Author: |Date: |similarity index )', re.MULTILINE), LOW),
)


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    git = bool(lines.matching(_GIT_FILE))
    headers = ((_GIT_FILE, FILE), (_PATHS, LOW)) if git else ((_PATHS, FILE),)
    return lines.bonuses((*headers, *_RULES))
