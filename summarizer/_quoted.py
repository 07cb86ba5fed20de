"""What the conversation already quotes from a tool return: the facts its summary must keep.

A return is summarized after later turns exist: in a batch, the whole stored conversation; in an
agent run, at least the turns since the return left the `keep_recent` window. When the assistant
wrote "the top hit, CVE-2024-3094, ..." or called `fetch(url=...)` with a URL from a search result,
a summary that drops that CVE or URL leaves a history that quotes something it no longer contains.
So the facts of a return (see `_facts`) that a later turn quotes are handed to the summarizer as
facts to keep verbatim.

A fact of a return is *quoted* when a later turn -- assistant text, the arguments of a later tool
call, a later user prompt -- holds it whole (`referred_facts`). That is also the eval's definition
of the facts a summary is scored on, so the pipeline and the metric cannot drift apart.

`find_facts` reads about a microsecond per character, so scanning every content whole would add
tens of milliseconds to a large return. `LaterTurns` only scans the pieces that can hold a quoted
fact, and the result is the same. Every fact has an *anchor*: an ASCII letter-and-digit run that
holds a digit or a capital, or is joined to another run by `.:/@-` inside the fact (a domain,
path, URL, e-mail address, UUID or IPv6 address; a word before a full stop is no anchor). A fact quoted later therefore shares a whole anchor with the later
text: the anchors of the content that later turns also hold are found with one pass over the
content's runs and set lookups. Around each of their occurrences, only the *segment* between two
safe cuts is scanned, plus every segment with non-ASCII text, whose facts may have no ASCII run at
all. A safe cut is a run of whitespace no fact can span: facts hold no whitespace except a name's
single space before a capital, a date's before its time, and a short number's gap to its word
(`47 organizations`, `SECONDS = 37`), so a run is safe unless a capital follows it or a digit
follows or precedes it across at most two more characters that are not letters or digits. Patterns see a segment's ends as they see whitespace,
so each segment yields the facts it yields inside the whole text. `tests/test_quoted.py` checks
that the two ways agree.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from ._facts import TRIVIAL_NAMES, find_facts, lowercase_words, mentions
from ._shape import JsonValue

_RUN = re.compile(r'[A-Za-z0-9]+')
_SAFE_CUT = re.compile(r'(?<![\d\s])(?<!\d[^\w\n])(?<!\d[^\w\n]{2})\s++(?![^\w\n]{0,2}\d)(?![A-Z])')
"""A whitespace run no fact or short-number phrase spans (see the module's docstring); possessive, so
a run is judged whole, never by a shorter part of it."""
_REACH = 160
_NON_ASCII = re.compile(r'[^\x00-\x7f]+')
_CONNECTORS = frozenset('.:/@-')
_DIGITS_BEFORE_LETTERS = re.compile(r'(?<![A-Za-z0-9])[0-9]+(?=[A-Za-z])')
"""A number may end inside a run (`$120` of `$120host`, `#12` of `#12ab`): its digits anchor it too."""
_NAME_TOKEN = re.compile(r"[\w'&-]+")
"""What a name's part is made of (`_facts`): the token a capitalized word is written in."""
_JOINED = re.compile(r'[A-Za-z0-9]+(?:[.:/@-]+[A-Za-z0-9]+)+')
"""Runs joined by `.:/@-` into one token (`example.org`, `/usr/lib`): each run of it is an anchor."""
_SHORT_INTEGER = re.compile(r'\d{1,2}')
_WHOLE_SHORT_NUMBER = re.compile(r'(?<![\w.,-])\d{1,2}(?![\w-]|[.,]\d)')
"""A short integer standing alone: not part of a longer number, word, id, `1.5` or `1,10`."""
_WORD_BEFORE = re.compile(r'\w+[^\w\n]{0,3}\Z')  # \Z: $ would match before a final line break
_WORD_AFTER = re.compile(r'[^\w\n]{0,3}\w+')


def referred_facts(
    text: str,
    later_text: str,
    *,
    words_from: str | None = None,
    common_words: frozenset[str] | None = None,
    holds: Callable[[str], bool] | None = None,
) -> list[str]:
    """The facts of `text` (a content's `plain_text`) that `later_text` quotes, in order of appearance.

    A one- or two-digit integer alone is no evidence: a long output holds most of them, so a later
    `30` or `58` matches by chance. It counts only together with a word next to it as the content
    has it (`47 organizations`, `Plan: 14`, `java:88`), and that phrase is what must survive.
    `words_from`: the whole content, when `text` is only some of its lines, or `common_words`, its
    lowercase words, when already at hand (see `find_facts`). `holds`: whether `later_text` holds a
    fact whole, when there is a faster way to tell than `mentions` (`LaterTurns.holds`).
    """
    quotes = holds if holds is not None else (lambda fact: mentions(later_text, fact))
    referred: list[str] = []
    numbers: dict[str, list[tuple[int, int]]] | None = None
    for fact in find_facts(text, words_from=words_from, common_words=common_words):
        if _SHORT_INTEGER.fullmatch(fact.text):
            numbers = _short_numbers(text) if numbers is None else numbers
            spans = numbers.get(fact.text, [])
            referred.extend(phrase for phrase in _number_phrases(text, spans) if quotes(phrase))
        elif quotes(fact.text):
            referred.append(fact.text)
    return list(dict.fromkeys(referred))


def _short_numbers(text: str) -> dict[str, list[tuple[int, int]]]:
    """Where each one- or two-digit number stands whole in `text`: one pass for all of them.

    (One pass per number, as it was, read a long log once for each of its up to 100 short numbers.)
    """
    spans: dict[str, list[tuple[int, int]]] = {}
    for match in _WHOLE_SHORT_NUMBER.finditer(text):
        spans.setdefault(match.group(), []).append(match.span())
    return spans


def _number_phrases(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """A number with the word before or after it, at each of its whole occurrences (`spans`) in `text`."""
    phrases: list[str] = []
    for start, end in spans:
        before = _WORD_BEFORE.search(text, max(start - 64, 0), start)
        after = _WORD_AFTER.match(text, end)
        if before:
            phrases.append(text[before.start() : end])
        if after:
            phrases.append(text[start : after.end()])
    return list(dict.fromkeys(phrases))


def plain_text(value: JsonValue) -> str:
    r"""The text a reader sees in a JSON value: its strings, keys and scalars, one per line.

    Facts are found and compared in this form, not in JSON text, where escapes would glue an escape
    letter to a fact (`\nAPT28`) or hide a fact with a quote in it.
    """
    return value if isinstance(value, str) else '\n'.join(_pieces(value))


def _pieces(value: JsonValue) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _pieces(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _pieces(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def turn_texts(message: ModelMessage) -> Iterator[str]:
    """What a turn can quote a tool return with: assistant text and tool-call arguments, user prompts."""
    if isinstance(message, ModelResponse):
        for part in message.parts:
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield part.args if isinstance(part.args, str) else plain_text(part.args or {})  # type: ignore[arg-type]
    elif isinstance(message, ModelRequest):
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                if isinstance(part.content, str):
                    yield part.content
                else:
                    yield from (item for item in part.content if isinstance(item, str))


class LaterTurns:
    """The turns of a history from message `start` on, read once, for every return before them.

    Batch compaction builds it over a whole history; an agent run over the few messages since the
    oldest return now being summarized, so the work stays proportional to what is new.
    """

    def __init__(self, messages: Sequence[ModelMessage], *, start: int = 0) -> None:
        self._start = start
        texts = ['\n'.join(turn_texts(message)) for message in messages[start:]]
        self._offsets: list[int] = []
        """Where the text of message `start + k` begins in `_text`."""
        position = 0
        for text in texts:
            self._offsets.append(position)
            position += len(text) + 1
        self._text = '\n'.join(texts)
        self._last: dict[str, int] = {}
        """Each anchor of the later turns, and the last message holding it."""
        self._where: dict[str, list[int]] = {}
        """Where each anchor occurs in `_text`, ascending."""
        for number, (text, offset) in enumerate(zip(texts, self._offsets), start=start):
            for anchor, at in _anchors(text):
                self._last[anchor] = number
                self._where.setdefault(anchor, []).append(offset + at)
        self._bound = _bound_words(self._text)
        """Capitalized words the later turns write as part of something longer (see `_bound_words`)."""

    def text_after(self, message_index: int) -> str:
        """The turn text of every message after `message_index`."""
        first = max(message_index + 1 - self._start, 0)
        return self._text[self._offsets[first] :] if first < len(self._offsets) else ''

    def quoted_facts(self, content: JsonValue, *, message_index: int) -> tuple[str, ...]:
        """The facts of `content` (at `message_index`) that a later turn quotes."""
        later = self.text_after(message_index)
        if not later.strip():
            return ()
        text = plain_text(content)
        last = self._last
        runs = {*_RUN.findall(text), *_DIGITS_BEFORE_LETTERS.findall(text)}
        hits = [run for run in runs if last.get(run, -1) > message_index]
        common: frozenset[str] | None = None
        if any(_is_capitalized(run) and run not in self._bound for run in hits):
            # a capitalized word the later turns only write alone is a fact of the content only as a
            # name of its own, and not one when trivial or also written in lowercase (`find_facts`)
            common = lowercase_words(text)
            hits = [
                run
                for run in hits
                if not (
                    _is_capitalized(run) and run not in self._bound and (run in TRIVIAL_NAMES or run.lower() in common)
                )
            ]
        if not hits and text.isascii():
            return ()
        segments = _segments_holding(text, sorted(hits))
        if not segments:
            return ()
        return tuple(
            referred_facts(
                segments,
                later,
                words_from=text,
                common_words=common,
                holds=lambda fact: self._holds(fact, message_index=message_index),
            )
        )

    def _holds(self, fact: str, *, message_index: int) -> bool:
        """`mentions(self.text_after(message_index), fact)`, without searching the whole text.

        A fact held whole holds its anchors (see the module's docstring) as indexed runs: only where
        its rarest one occurs can the fact be.
        """
        first = message_index + 1 - self._start
        if first >= len(self._offsets):
            return False
        offset = self._offsets[max(first, 0)]
        anchors = [
            (run.group(), run.start())
            for run in _RUN.finditer(fact)
            if not (run.group().isalpha() and run.group().islower())
        ]
        anchors += [
            (run.group(), joined.start() + run.start())
            for joined in _JOINED.finditer(fact)
            for run in _RUN.finditer(joined.group())
        ]
        if not anchors or not fact.isascii():
            return mentions(self._text[offset:], fact)
        run, at = min(anchors, key=lambda anchor: len(self._where.get(anchor[0], ())))
        positions = self._where.get(run, [])
        text = self._text
        for position in positions[bisect.bisect_left(positions, offset + at) :]:
            start = position - at
            if text.startswith(fact, start) and mentions(text[max(start - 2, offset) : start + len(fact) + 2], fact):
                return True
        return False


def _anchors(text: str) -> list[tuple[str, int]]:
    """The runs of `text` that can anchor a fact (see the module's docstring), and where, in order."""
    anchors = {
        run.start(): run.group() for run in _RUN.finditer(text) if not (run.group().isalpha() and run.group().islower())
    }
    for joined in _JOINED.finditer(text):
        for run in _RUN.finditer(joined.group()):
            anchors[joined.start() + run.start()] = run.group()
    return [(anchors[at], at) for at in sorted(anchors)]


def _bound_words(text: str) -> set[str]:
    """The capitalized words of `text` that may be part of a longer fact there.

    That is, written inside a longer name-like token (`Allocation's`, `_Config`), next to another
    capitalized token across one space or dot (`Fancy Bear`, `Acme.Widget`), or joined to another
    run by `.:/@-` (`Example.com`). Every other occurrence is the word alone.
    """
    bound: set[str] = set()
    tokens = list(_NAME_TOKEN.finditer(text))
    for index, token in enumerate(tokens):
        word = token.group()
        if not _is_capitalized(word):
            bound.update(run for run in _RUN.findall(word) if _is_capitalized(run))
            continue
        start, end = token.span()
        before = tokens[index - 1] if index else None
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if (
            before is not None and before.end() == start - 1 and text[start - 1] in ' .' and before.group()[0].isupper()
        ) or (after is not None and after.start() == end + 1 and text[end] in ' .' and after.group()[0].isupper()):
            bound.add(word)
    for joined in _JOINED.findall(text):
        bound.update(_RUN.findall(joined))
    return bound


def _is_capitalized(run: str) -> bool:
    """`Allocation`, not `API`, `iPhone` or `McDonald`."""
    return len(run) > 1 and 'A' <= run[0] <= 'Z' and run[1:].isalpha() and run[1:].islower() and run.isascii()


def _segments_holding(text: str, hits: list[str]) -> str:
    """The segments of `text` holding one of `hits` as a whole run, and every one with non-ASCII text.

    In order of position, one per line (a segment is a stretch between two safe cuts or line breaks,
    see the module's docstring). Only occurrences that can be part of a fact count: a lowercase
    word (an anchor only where joined, `server` of `src/server.py`) next to one of `.:/@-`, and a
    single digit (a fact alone never, `3.5%` or `x_1` in part) next to a mark other than a space.
    """
    found: list[tuple[int, int]] = []
    for hit in hits:
        joined_only = hit.isalpha() and hit.islower()
        digit = len(hit) == 1 and hit.isdigit()
        position = text.find(hit)
        while position >= 0:
            end = position + len(hit)
            before, after = text[position - 1 : position], text[end : end + 1]
            ends = not _is_run_char(after) or (hit.isdigit() and not after.isdigit())  # `$120` of `$120host`
            if not _is_run_char(before) and ends:
                if joined_only:
                    if before in _CONNECTORS or after in _CONNECTORS:
                        found.append((position, end))
                elif not digit or _is_mark(before) or _is_mark(after):
                    found.append((position, end))
            position = text.find(hit, end)
    if not text.isascii():
        found.extend(run.span() for run in _NON_ASCII.finditer(text))
    merged: list[list[int]] = []
    for start, end in sorted(found):
        if merged and end <= merged[-1][1]:
            continue  # inside a segment already: its facts are in it (no fact crosses a segment's end)
        first, stop = _segment(text, start, end)
        if merged and first <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([first, stop])
    return '\n'.join(text[first:stop] for first, stop in merged)


def _is_mark(char: str) -> bool:
    return bool(char) and not char.isspace() and not char.isalnum()


def _segment(text: str, start: int, end: int) -> tuple[int, int]:
    """The segment around `text[start:end]`: from the last safe cut before it to the first after it.

    Looked for within `_REACH` characters; failing that, the line break there (no fact spans one).
    """
    line_start = text.rfind('\n', 0, start) + 1
    line_end = text.find('\n', end)
    line_end = len(text) if line_end < 0 else line_end
    first = line_start
    for cut in _SAFE_CUT.finditer(text, max(line_start, start - _REACH), min(start + 3, len(text))):
        if cut.end() <= start:  # the lookahead of a cut reads up to three characters past it
            first = cut.end()
    reach = min(line_end, end + _REACH)
    view = min(reach + 3, len(text))  # the cut's lookahead reads up to three characters past it
    after = _SAFE_CUT.search(text, end, view)
    if after is not None and after.start() < reach and (after.end() < view or view == len(text)):
        return first, after.start()
    return first, line_end


def _is_run_char(char: str) -> bool:
    return char.isascii() and char.isalnum() if char else False
