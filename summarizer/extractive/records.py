"""Records as text (YAML dumps, `key: value` blocks): each record's first line and its id stay first.

A record the conversation names (a fact of it that at most one other record holds) is what the task is after:
every line of it weighs as a definition does (`tree._weigh_named_records`), so a mail's body comes with it.

JSON records (lists and objects) are the tree's own business (`tree`): objects keep every key,
lists keep whole items where one fits, and the items holding a column's extreme or a rare value
(`notable`) stand out. This module covers the same data written as text.
"""

from __future__ import annotations

import re

from .lines import LOW, MID, Joined

_RULES = (
    (re.compile(r'^- \w', re.MULTILINE), MID),
    (
        re.compile(
            r'^[ \t]*(?:- )?(?:id_?|name|title|subject|status|sender|email|date|start_time)[ \t]*:',
            re.IGNORECASE | re.MULTILINE,
        ),
        LOW,
    ),
)


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    return lines.bonuses(_RULES)
