"""Unified diffs (`git diff`, `git show`, patches) and `git log`: the file headers first, then the hunk headers.

Without `diff --git a/… b/…` and `@@ -41,7 +41,8 @@` a reader cannot tell which file or line a
change is in, so they are required: chosen before any other line, as many as half the budget holds
(a fifth when later turns quote facts, which compete for the rest), the most worth per token first.
A hunk header cannot be placed without its file's header, so file headers (`FILE`) come before hunk
headers (`MUST`): one line per file, `diff --git` where the diff has them (its `---`/`+++` lines
repeat its paths, and come last), else the `---`/`+++` pair. In `git show` or `git log -p`, a commit's
subject (the first line of its message) says what the change is for, and is required next (`SUBJECT`),
as is a `git format-patch` mail's `Subject: [PATCH] ...` line. So is each subject of a `git log` without
patches, the log a reader searches for the change that did something; a kept subject brings its `commit`
line (`outline`), whose sha names the change for `git show`.
Then changed lines, then context lines. A kept line of a hunk brings the nearest definition over it in that
hunk (`outline`): an added method's body comes under its `+    def`.
"""

from __future__ import annotations

import re

from .lines import HIGH, LOW, MUST, Joined

FILE = 4 * MUST
"""A file's header: worth more than any hunk header, which it places."""
SUBJECT = 2 * MUST
"""A commit's subject line (`    Fixed #30856 -- Combined fast-delete queries.`): after the file headers, before the hunks."""
_GIT_FILE = re.compile(r'^diff --git ', re.MULTILINE)
COMMIT = re.compile(r'^commit [0-9a-f]{7,}', re.MULTILINE)
"""A commit's header line (`git show`, `git log -p`): its subject follows, and no file of the commit before places it."""
_MESSAGE = re.compile(r' {4}\S')
_HEADER_LINES = 6
"""Lines between a `commit` line and its message at most: `Merge:`, `Author:`, `Date:`, a blank, a few more."""
_PATHS = re.compile(r'^(?:--- |\+\+\+ )', re.MULTILINE)
_RULES = (
    (re.compile(r'^Subject: ', re.MULTILINE), SUBJECT),  # a mail's (`git format-patch`): no hunk line starts so
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
    result = lines.bonuses((*headers, *_RULES))
    for commit in lines.matching(COMMIT):
        following = lines.lines[commit + 1 : commit + 1 + _HEADER_LINES]
        subject = next((commit + 1 + at for at, line in enumerate(following) if _MESSAGE.match(line)), None)
        if subject is not None:
            result[subject] = max(result[subject], SUBJECT)
    return result
