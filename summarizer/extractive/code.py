"""Source code and numbered file reads (`cat -n`, `12: …`, `12→…`): the definitions stay.

A reader of a summarized file needs its outline (imports, classes, functions with their
signatures) to know what is there, and the lines holding what the conversation quotes (pinned as
quoted facts) to edit them. A numbered read keeps its numbers: kept lines are never rewritten.
"""

from __future__ import annotations

import re

from .lines import HIGH, LOW, MID, Joined

_NUMBER = r'^(?:[ \t]*\d+(?:\t|[:|→-] ?))?'
"""The line number of a numbered read, read past."""
_RULES = (
    (
        re.compile(
            _NUMBER + r'[ \t]*(?:(?:async )?def |class |(?:export )?(?:default )?(?:async )?function[ \t*]|func |'
            r'(?:pub(?:\([\w:]+\))? )?(?:fn|struct|enum|trait|impl|mod|type) |interface |(?:public|private|protected)'
            r' [\w<>\[\], ]*\w+ *\(|(?:const|let|var) \w+ *= *(?:async )?(?:\(|function))',
            re.MULTILINE,
        ),
        HIGH,
    ),
    (
        re.compile(
            _NUMBER + r'[ \t]*(?:from [\w.]+ import |import |#include |using |package |require\()', re.MULTILINE
        ),
        HIGH,
    ),
    (re.compile(_NUMBER + r'[ \t]*@\w', re.MULTILINE), MID),
    (re.compile(_NUMBER + r'[ \t]*(?:raise |throw )', re.MULTILINE), MID),
    (re.compile(_NUMBER + r'[ \t]*(?:return |yield )', re.MULTILINE), LOW),
)


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    return lines.bonuses(_RULES)
