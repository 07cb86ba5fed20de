"""Logs (timestamped or leveled lines, logfmt, klog and JSON lines too): every error line, repeated lines folded.

A log repeats itself: the same line with another timestamp or request id. Lines alike but for
their numbers share a `signature`; only the first of them competes for the budget (unless it holds
a quoted fact), and a run of dropped lines all like the kept one above is marked `… 57 similar
lines omitted …`: the count survives, the copies do not.
"""

from __future__ import annotations

import re

from .lines import HIGH, LOW, MID, Joined, words_pattern

_RULES = (
    (words_pattern('error', 'fatal', 'critical', 'severe', 'emerg', 'alert', 'panic', 'exception', 'caused by'), HIGH),
    (re.compile(r'^[EF]\d{4} \d', re.MULTILINE), HIGH),  # klog's error and fatal records: `E0506 10:00:00.123456 ...`
    (words_pattern('warn', 'warning'), MID),
    (re.compile(r'^W\d{4} \d', re.MULTILINE), MID),
    (re.compile(r'^[ \t]+(?:at [\w.$<>]+\(|\.\.\. \d+ more)', re.MULTILINE), LOW),
)
_VARIABLE = re.compile(r'[0-9a-f]{8,}|\d+')


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    return lines.bonuses(_RULES)


def signature(line: str) -> str:
    """`line` with its numbers and hex ids masked: lines alike but for those fold together."""
    return _VARIABLE.sub('#', line)
