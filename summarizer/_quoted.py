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
tens of milliseconds to a large return. `LaterTurns` only scans the lines that can hold a quoted
fact, and the result is the same. Every fact has an *anchor*: an ASCII letter-and-digit run that
holds a digit or a capital, or touches one of `.:/@-` inside the fact (a domain, path, URL, e-mail
address, UUID or IPv6 address). A fact quoted later therefore shares a whole anchor with the later
text. Only the lines holding one of those anchors are scanned, plus every line with non-ASCII text,
whose facts may have no ASCII run at all. `tests/test_quoted.py` checks that the two ways agree.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from ._facts import find_facts, mentions
from ._shape import JsonValue

_RUN = re.compile(r'[A-Za-z0-9]+')
_CONNECTORS = frozenset('.:/@-')
_SHORT_INTEGER = re.compile(r'\d{1,2}')
_WORD_BEFORE = re.compile(r'\w+[^\w\n]{0,3}$')
_WORD_AFTER = re.compile(r'[^\w\n]{0,3}\w+')


def referred_facts(text: str, later_text: str, *, words_from: str | None = None) -> list[str]:
    """The facts of `text` (a content's `plain_text`) that `later_text` quotes, in order of appearance.

    A one- or two-digit integer alone is no evidence: a long output holds most of them, so a later
    `30` or `58` matches by chance. It counts only together with a word next to it as the content
    has it (`47 organizations`, `Plan: 14`, `java:88`), and that phrase is what must survive.
    `words_from`: the whole content, when `text` is only some of its lines (see `find_facts`).
    """
    referred: list[str] = []
    for fact in find_facts(text, words_from=words_from):
        if _SHORT_INTEGER.fullmatch(fact.text):
            referred.extend(phrase for phrase in _number_phrases(text, fact.text) if mentions(later_text, phrase))
        elif mentions(later_text, fact.text):
            referred.append(fact.text)
    return list(dict.fromkeys(referred))


def _number_phrases(text: str, number: str) -> list[str]:
    """`number` with the word before or after it, at each of its whole occurrences in `text`."""
    phrases: list[str] = []
    for match in re.finditer(rf'(?<![\w.,-]){number}(?![\w-]|[.,]\d)', text):
        before = _WORD_BEFORE.search(text, max(match.start() - 64, 0), match.start())
        after = _WORD_AFTER.match(text, match.end())
        if before:
            phrases.append(text[before.start() : match.end()])
        if after:
            phrases.append(text[match.start() : after.end()])
    return list(dict.fromkeys(phrases))


def plain_text(value: JsonValue) -> str:
    """The text a reader sees in a JSON value: its strings, keys and scalars, one per line.

    Facts are found and compared in this form, not in JSON text, where escapes would glue an escape
    letter to a fact (`\\nAPT28`) or hide a fact with a quote in it.
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
        last: dict[str, int] = {}
        for number, text in enumerate(texts, start=start):
            for anchor in _anchors(text):
                last[anchor] = number
        by_last = sorted(last.items(), key=lambda pair: -pair[1])
        self._anchors = [anchor for anchor, _ in by_last]
        self._minus_last = [-number for _, number in by_last]
        """Ascending, for `bisect`: the anchors seen after message i are a prefix of `_anchors`."""

    def text_after(self, message_index: int) -> str:
        """The turn text of every message after `message_index`."""
        first = max(message_index + 1 - self._start, 0)
        return self._text[self._offsets[first] :] if first < len(self._offsets) else ''

    def quoted_facts(self, content: JsonValue, *, message_index: int, content_text: str) -> tuple[str, ...]:
        """The facts of `content` (at `message_index`) that a later turn quotes; `content_text` is its JSON text."""
        later = self.text_after(message_index)
        if not later.strip():
            return ()
        anchors = self._anchors[: bisect.bisect_left(self._minus_last, -message_index)]
        hits = [anchor for anchor in anchors if anchor in content_text]  # escapes never split an ASCII run
        if not hits and content_text.isascii():
            return ()
        text = plain_text(content)
        lines = _lines_holding(text, hits)
        if not lines:
            return ()
        return tuple(referred_facts(lines, later, words_from=text))


def _anchors(text: str) -> set[str]:
    """The runs of `text` that can anchor a fact (see the module's docstring)."""
    anchors: set[str] = set()
    for match in _RUN.finditer(text):
        run = match.group()
        start, end = match.span()
        if not (run.isalpha() and run.islower()) or text[start - 1 : start] in _CONNECTORS or text[end : end + 1] in _CONNECTORS:
            anchors.add(run)
    return anchors


def _lines_holding(text: str, hits: list[str]) -> str:
    """The lines of `text` holding one of `hits` as a whole run, and every line with non-ASCII text, in order."""
    starts: set[int] = set()
    for hit in hits:
        position = text.find(hit)
        while position >= 0:
            end = position + len(hit)
            if not (_is_run_char(text[position - 1 : position]) or _is_run_char(text[end : end + 1])):
                starts.add(text.rfind('\n', 0, position) + 1)
            position = text.find(hit, end)
    if not text.isascii():
        position = 0
        for line in text.split('\n'):
            if not line.isascii():
                starts.add(position)
            position += len(line) + 1
    lines: list[str] = []
    for start in sorted(starts):
        end = text.find('\n', start)
        lines.append(text[start:] if end < 0 else text[start:end])
    return '\n'.join(lines)


def _is_run_char(char: str) -> bool:
    return char.isascii() and char.isalnum() if char else False
