"""What counts as a fact in tool output: the things a later turn quotes exactly.

One definition serves both the embedded summarizer (which tries to keep every fact) and the eval
(which scores how many facts that later turns refer to survive). Kinds are listed most specific
first; a span claimed by an earlier kind is not counted again by a later one.

A capitalized single word that the same text also writes in lowercase in its prose (`Most`,
`Address`, `Plan`) is an ordinary word at the start of a sentence, not a name, and no fact.
"""

from __future__ import annotations

import re
import string
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

TRIVIAL_NAMES = frozenset(
    [
        'The',
        'A',
        'An',
        'And',
        'Or',
        'But',
        'If',
        'In',
        'On',
        'At',
        'To',
        'For',
        'Of',
        'By',
        'With',
        'From',
        'This',
        'That',
        'These',
        'Those',
        'It',
        'Its',
        'Is',
        'Are',
        'Was',
        'Were',
        'Be',
        'Not',
        'No',
        'Yes',
        'All',
        'Any',
        'Some',
        'Each',
        'Error',
        'Warning',
        'Info',
        'Debug',
        'Note',
        'True',
        'False',
        'None',
        'Null',
    ]
)


_PROSE_WORD = re.compile(r'(?<![\w./@:-])[^\W\d_]+(?![\w/@-]|[.:]\w)')
"""A word standing in prose: not part of a URL, domain, path, address or dotted identifier."""
_ALPHANUMERIC = frozenset(string.ascii_letters + string.digits)
_PLAIN_NUMBER = re.compile(r'[-+]?\$?\d[\d,]*(?:\.\d+)?%?')


@dataclass(frozen=True, slots=True)
class Fact:
    text: str
    kind: str


def find_facts(text: str, *, common_words: frozenset[str] | None = None, words_from: str | None = None) -> list[Fact]:
    """Distinct facts in `text`, in order of first appearance.

    `common_words` are the lowercase words of the whole content `text` is part of; a capitalized
    single word among them is not a name. Without them they are read from `words_from` (the whole
    content, when `text` is some of its lines), only if a capitalized word asks for them; by default
    from `text` itself.
    """
    seen: dict[str, Fact] = {}
    for fact in _occurrences(text):
        seen.setdefault(fact.text, fact)
    if any(_is_word(fact) for fact in seen.values()):
        common = lowercase_words(words_from or text) if common_words is None else common_words
        return [fact for fact in seen.values() if not (_is_word(fact) and fact.text.lower() in common)]
    return list(seen.values())


def lowercase_words(text: str) -> frozenset[str]:
    """The words `text` writes in lowercase in prose: what a capitalized word is checked against."""
    return frozenset(word for word in _PROSE_WORD.findall(text) if word.islower())


def _is_word(fact: Fact) -> bool:
    """A single capitalized word (`Most`, `Kapeka`), not a compound name (`GreyEnergy`, `Fancy Bear`)."""
    return fact.kind == 'name' and fact.text[1:].islower() and fact.text[1:].isalpha()


def mentions(text: str, fact: str) -> bool:
    """Whether `text` holds `fact` whole: `42` is not mentioned by `1425`, `10` not by `10.1.7.7` or `1,10`.

    Only a plain number can go on past a separator (`1,10` is one number); an id or a date next to a
    comma and a digit is a CSV cell (`SO-2025-08-11873,2025-08-29` holds both).
    """
    numeric = _PLAIN_NUMBER.fullmatch(fact) is not None
    start = text.find(fact)
    while start >= 0:
        end = start + len(fact)
        before, after = text[max(start - 2, 0) : start], text[end : end + 2]
        if not (
            _continues(before[-1:])
            or _continues(after[:1])
            or (numeric and (_continues_number(before[::-1]) or _continues_number(after)))
        ):
            return True
        start = text.find(fact, start + 1)
    return False


def _continues(char: str) -> bool:
    return char in _ALPHANUMERIC if char else False


def _continues_number(pair: str) -> bool:
    """A separator then a digit (read away from the fact): `10` inside `10.1` or `1,10`."""
    return len(pair) == 2 and pair[0] in '.,' and pair[1].isdigit()


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
        return value in TRIVIAL_NAMES or len(value) < 3
    if kind == 'number':
        return len(value.strip('-+$%')) < 2
    return len(value) < 3
