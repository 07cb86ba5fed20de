"""What counts as a fact in tool output: the things a later turn quotes exactly.

One definition serves both the embedded summarizer (which tries to keep every fact) and the eval
(which scores how many facts that later turns refer to survive). Kinds are listed most specific
first; a span claimed by an earlier kind is not counted again by a later one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_KINDS: tuple[tuple[str, str], ...] = (
    ('cve', r'\bCVE-\d{4}-\d{4,7}\b'),
    ('url', r'\bhttps?://[^\s"\'<>()\[\]{}]+[^\s"\'<>()\[\]{}.,;:!?]'),
    ('email', r'\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b'),
    ('uuid', r'\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b'),
    ('hash', r'\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b'),
    ('ip', r'\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:/\d{1,2})?\b'),
    ('ipv6', r'\b(?:[0-9a-fA-F]{1,4}:){3,7}[0-9a-fA-F]{1,4}\b'),
    ('date', r'\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b'),
    ('path', r'(?<![\w/])(?:~|\.{1,2})?(?:/[\w.@-]+){2,}/?'),
    ('domain', r'\b(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,24}\b'),
    ('identifier', r'(?<![\w-])(?=[\w.-]*\d)(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*[A-Za-z0-9]|#\d+'),
    ('name', r"\b[A-Z][\w'&-]*[a-z][\w'&-]*(?:[ .][A-Z][\w'&-]*)*"),
    ('number', r'(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?'),
)
_PATTERN = re.compile('|'.join(f'(?P<{kind}>{pattern})' for kind, pattern in _KINDS))

_TRIVIAL_NAMES = frozenset(
    'The A An And Or But If In On At To For Of By With From This That These Those It Its Is Are Was '
    'Were Be Not No Yes All Any Some Each Error Warning Info Debug Note True False None Null'.split()
)


@dataclass(frozen=True, slots=True)
class Fact:
    text: str
    kind: str


def find_facts(text: str) -> list[Fact]:
    """Distinct facts in `text`, in order of first appearance."""
    seen: dict[str, Fact] = {}
    for fact in _occurrences(text):
        seen.setdefault(fact.text, fact)
    return list(seen.values())


def facts_by_salience(text: str) -> list[Fact]:
    """Distinct facts in `text`, the most often repeated first, ties in order of first appearance.

    What a tool output keeps coming back to (the account, the failing host, the main product) is
    what a reader most often quotes; a value seen once in a long table rarely is.
    """
    counts: dict[str, int] = {}
    first: dict[str, Fact] = {}
    for fact in _occurrences(text):
        counts[fact.text] = counts.get(fact.text, 0) + 1
        first.setdefault(fact.text, fact)
    return sorted(first.values(), key=lambda fact: -counts[fact.text])


def _occurrences(text: str) -> Iterator[Fact]:
    for match in _PATTERN.finditer(text):
        kind = match.lastgroup or 'number'
        value = match.group().rstrip('.,;:')
        if not _is_noise(value, kind):
            yield Fact(value, kind)


def _is_noise(value: str, kind: str) -> bool:
    if kind == 'name':
        return value in _TRIVIAL_NAMES or len(value) < 3
    if kind == 'number':
        return len(value.strip('-+$%')) < 2
    return len(value) < 3
