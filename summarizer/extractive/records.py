"""Records as text (YAML dumps, `key: value` blocks): each record's first line and its id stay first.

A record the conversation names (a fact of it that at most one other record holds) is what the task is after:
every line of it weighs as a definition does (`tree._weigh_named_records`), so a mail's body comes with it.

JSON records (lists and objects) are the tree's own business (`tree`): objects keep every key,
lists keep whole items where one fits, and the items holding a column's extreme or a rare value
(`notable`) stand out. This module covers the same data written as text.
"""

from __future__ import annotations

import re

from .lines import HIGH, LOW, MID, Joined
from .outline import document_spans, indent

_RULES = (
    (re.compile(r'^- \w', re.MULTILINE), MID),
    # `kubectl describe`'s events of trouble (`  Warning  BackOff  8m (x6 over 18m)  kubelet  Back-off restarting ...`):
    # why a pod is not well, what a reader of it came for.
    (re.compile(r'^[ \t]+Warning[ \t]{2,}\w+[ \t]{2,}\S', re.MULTILINE), HIGH),
    # and a container's state's reason of trouble (`      Reason:       OOMKilled`, `CrashLoopBackOff`, `Error`)
    (
        re.compile(r'^[ \t]+Reason:[ \t]+(?:\w*(?:Error|Killed|BackOff|Failed|Evicted)\w*)[ \t]*\r?$', re.MULTILINE),
        HIGH,
    ),
    # what came of it: a container that exited with an error or restarted (`Exit Code:    137`, `Restart Count:  4`)
    (re.compile(r'^[ \t]+(?:Exit Code|Restart Count):[ \t]+[1-9]', re.MULTILINE), MID),
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
    result = lines.bonuses(_RULES)
    _documents(lines, result)
    return result


def _documents(lines: Joined, result: list[float]) -> None:
    """Weigh the lines saying what each document of a YAML stream is (`kind: Deployment`, `  name: api`) `MID`.

    Structure before detail: a reader of twelve manifests wants the twelve workloads and services there are, then
    the fields of some, not the `env:` and `resources:` of two and nothing of the other ten.
    """
    if '---' not in lines.text:
        return
    spans = document_spans(lines.lines, [indent(line) for line in lines.lines])
    for _, _, fields in spans:
        for index in fields:
            result[index] = max(result[index], MID)
