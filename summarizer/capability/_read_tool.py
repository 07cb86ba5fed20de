"""`read_tool_return`: the plugin's tool that reads a summarized tool return's original back.

The tool finds the return by its `tool_call_id` in the run's history, looks its current content
(the summary) up in the originals store, and answers with numbered lines of the original: a string
as its own lines, anything else as indented JSON. Answers are bounded; a cut answer says where to go
on. Failures are `ToolFailed`: the model sees why and adapts, the run goes on, and no retry budget is
spent on a question that has no better answer.
"""

from __future__ import annotations

import heapq
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import re2
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.tools import RunContext, Tool

from ..core import READ_TOOL_NAME, JsonValue
from ..pipeline import Ambiguous, Original, OriginalStore, json_text_of

_RESERVED = 300
"""Characters of an answer kept for its heading and closing line (how to page on, or what a search left) besides
the title and pattern: their longest words and numbers (up to ten million lines and a billion characters in a line)."""
_LEAST_PART = 100
"""Characters of a long line an answer shows at least, however little room its heading leaves."""


def description(max_characters: int) -> str:
    return (
        'Older tool returns in this conversation may have been summarized to save context: a summary keeps '
        "the content's shape and key facts but drops lines or items (a dropped run of lines is marked like "
        '`… 212 lines omitted …`, of list items by an item `… 12 items omitted …` in their place, a dropped '
        f'string reads `…`). Call {READ_TOOL_NAME} with the tool_call_id of such a return to read its '
        'full original text, as numbered lines (JSON contents are shown indented): all of it, a range '
        '(start_line, end_line), or only the lines matching `pattern` (a plain substring or a regular '
        f'expression in RE2 syntax, matched line by line). Answers hold at most {max_characters:,} characters; '
        'a longer one ends by saying which start_line (and, inside a longer line, which start_character) '
        'reads on.'
    )


def read_tool(
    store: OriginalStore, max_characters: int, scopes: Callable[[RunContext[Any]], Sequence[str]]
) -> Tool[Any]:
    """The tool: reads from `store` the originals of the run's `scopes`, answers at most `max_characters` characters."""

    async def read_tool_return(
        ctx: RunContext[Any],
        tool_call_id: str,
        start_line: int | None = None,
        end_line: int | None = None,
        pattern: str | None = None,
        start_character: int | None = None,
        occurrence: int | None = None,
    ) -> str:
        """Read the full original of a tool return that may have been summarized.

        Args:
            ctx: The run context.
            tool_call_id: The id of the tool call whose return to read.
            start_line: The first line to show (1-based); default the first.
            end_line: The last line to show (inclusive); default the last.
            pattern: Show only the lines holding this text or matching this regular expression.
            start_character: The first character of start_line to show (1-based), to read on inside a
                line longer than one answer; default the first.
            occurrence: Only when the conversation holds several returns with this tool_call_id: which one
                (1 for the first in it); by default the one that was summarized.
        """
        returns = find_returns(ctx.messages, tool_call_id)
        if not returns:
            raise ToolFailed(
                f'No tool return with tool_call_id {tool_call_id!r} in this conversation. '
                f'Use the tool_call_id of an earlier tool call, exactly as it appears there.'
            )
        if occurrence is not None and not 1 <= occurrence <= len(returns):
            raise ToolFailed(
                f'The conversation holds {len(returns)} tool return(s) with tool_call_id {tool_call_id!r}: '
                f'occurrence {occurrence} is none of them.'
            )
        run_scopes = scopes(ctx)

        def stored() -> list[tuple[int, ToolReturnPart, Original | Ambiguous]]:  # in a worker thread: it may wait
            found: list[tuple[int, ToolReturnPart, Original | Ambiguous]] = []
            for number, part in enumerate(returns, 1):
                text = json_text_of(part.content)
                if occurrence in (None, number) and text is not None:
                    original = store.read(tool_call_id, text, scopes=run_scopes, returned_at=part.timestamp)
                    if original is not None:
                        found.append((number, part, original))
            return found

        found = await anyio.to_thread.run_sync(stored)
        if not found:
            part = returns[-1 if occurrence is None else occurrence - 1]
            raise ToolFailed(
                f'The original of tool return {tool_call_id!r} ({part.tool_name}) is not stored: its content in '
                'this conversation is all there is (it was not summarized, or its original could not be kept).'
            )
        if len(found) > 1:
            listed = ', '.join(f'occurrence={number} ({part.tool_name})' for number, part, _ in found)
            raise ToolFailed(
                f'{len(found)} summarized tool returns in this conversation have tool_call_id {tool_call_id!r}: '
                f'call {READ_TOOL_NAME} again with one of {listed}.'
            )
        _, part, original = found[0]
        if isinstance(original, Ambiguous):
            listed = '; '.join(
                f'{kept.tool_name}, {kept.size:,} bytes, from a return at {kept.returned_at or "a time not recorded"}'
                for kept in original.originals
            )
            raise ToolFailed(
                f'{len(original.originals)} different originals are kept under the summary of tool return '
                f'{tool_call_id!r} ({part.tool_name}), and its timestamp ({part.timestamp.isoformat()}) proves none '
                f"of them its own: {listed}. None is shown, rather than perhaps another return's; its content in "
                'this conversation is all there is of it.'
            )

        def answer() -> str:  # in a worker thread: a long original's lines and matches take their time off the loop
            return render(
                original.value(),
                title=f'{original.tool_name} return {tool_call_id}',
                start_line=start_line,
                end_line=end_line,
                pattern=pattern,
                max_characters=max_characters,
                start_character=start_character,
            )

        return await anyio.to_thread.run_sync(answer)

    return Tool(read_tool_return, name=READ_TOOL_NAME, description=description(max_characters), takes_ctx=True)


def find_returns(messages: Sequence[ModelMessage], tool_call_id: str) -> list[ToolReturnPart]:
    """The tool returns of that id, in the conversation's order (real histories reuse ids)."""
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_call_id == tool_call_id
    ]


def render(
    value: JsonValue,
    *,
    title: str,
    start_line: int | None,
    end_line: int | None,
    pattern: str | None,
    max_characters: int,
    start_character: int | None = None,
) -> str:
    """Numbered lines of `value` in the asked range (and matching `pattern`), at most `max_characters` long.

    The heading says exactly what the answer shows: which lines, how many of them match, and which
    characters of a line shown in part. A line longer than an answer is shown a part at a time, from
    `start_character` on; a full answer ends by saying where the next one starts.
    """
    lines = (
        value.splitlines() if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False).splitlines()
    )
    total = len(lines)
    first, last = max(start_line or 1, 1), min(end_line or total, total)
    if first > total or first > last:
        raise ToolFailed(f'{title} has {total:,} lines: lines {first}-{end_line or total} hold none of them.')
    offset = max((start_character or 1) - 1, 0)
    if offset and offset >= len(lines[first - 1]):
        raise ToolFailed(
            f'{title}: line {first} has {len(lines[first - 1]):,} characters: '
            f'start_character={start_character} is past its end.'
        )
    matcher = _Pattern.of(pattern) if pattern else None
    search = _Search(pattern=matcher, lines=lines, first=first, last=last) if matcher else None
    numbers = iter(search) if search else iter(range(first, last + 1))
    budget = max_characters - _RESERVED - len(title) - (len(matcher.shown + matcher.note) if matcher else 0)
    entries: list[str] = []
    shown: list[int] = []
    goes_on: int | None = None
    """The character (1-based) the one line shown in part goes on from."""
    next_line: int | None = None
    """The next line to show, when the answer is full before it."""
    for number in numbers:
        start = offset if number == first else 0
        entry = f'{number}: {lines[number - 1][start:]}'
        if len(entry) + 1 <= budget:
            entries.append(entry)
            shown.append(number)
            budget -= len(entry) + 1
            continue
        if entries:
            next_line = number
            break
        # a line longer than an answer: the part that fits, and where it goes on
        room = max(budget - len(f'{number}: ') - 1, _LEAST_PART)
        entries.append(f'{number}: {lines[number - 1][start : start + room]}')
        shown.append(number)
        budget = 0
        if start + room < len(lines[number - 1]):
            goes_on = start + room + 1
            break
    heading = f'{title}: {total:,} line{"s" if total != 1 else ""}; '
    stopped = search.unsearched if search else None
    if matcher:
        searched = shown[-1] if goes_on else next_line - 1 if next_line else (stopped or last + 1) - 1
        matching = 'matches' if len(shown) == 1 and first == searched else 'match'
        if searched < first:
            heading += f'no line searched for {matcher.shown}{matcher.note}'
        else:
            heading += f'{len(shown):,} of {_span(first, searched)} {matching} {matcher.shown}{matcher.note}'
        if stopped:
            entries.append(_stopped(lines, stopped, last, searched_any=searched >= first))
        if not shown:
            return '\n'.join([heading + ':', *entries]) if entries else heading + '.'
    else:
        heading += _span(shown[0], shown[-1])
    head = shown[0]
    start = offset if head == first else 0
    if start or goes_on:
        length = len(lines[head - 1])
        characters = f'characters {start + 1:,}-{(goes_on or length + 1) - 1:,} of {length:,}'
        heading += f', {characters}' if not matcher and len(shown) == 1 else f' (line {head}: {characters})'
    more = ' and the same pattern' if matcher else ''
    if goes_on:
        entries.append(
            f'… line {head} goes on: call {READ_TOOL_NAME} again with start_line={head}, '
            f'start_character={goes_on}{more} to read on.'
        )
    elif next_line:
        entries.append(
            f'… answer cut at {max_characters:,} characters: call {READ_TOOL_NAME} again with '
            f'start_line={next_line}{more} to read on.'
        )
    return '\n'.join([heading + ':', *entries])


def _stopped(lines: Sequence[str], stopped: int, last: int, *, searched_any: bool) -> str:
    """The closing line of a search its time limit stopped at line `stopped`: what it did not search, how to go on."""
    characters = sum(len(lines[number - 1]) + 1 for number in range(stopped, last + 1)) - 1
    note = f'… {_span(stopped, last)} ({characters:,} characters) not searched within the time limit ({_SEARCH_SECONDS:g} s)'
    if searched_any:
        return f'{note}: call {READ_TOOL_NAME} again with start_line={stopped} and the same pattern to search on.'
    after = f', or search after it from start_line={stopped + 1}' if stopped < last else ''
    return (
        f'{note}: line {stopped} alone is too long to search for this pattern in time. Try a simpler pattern, '
        f'read it with start_line={stopped} and no pattern{after}.'
    )


def _span(first: int, last: int) -> str:
    return f'line {first}' if first == last else f'lines {first}-{last}'


_OPTIONS = re2.Options()
_OPTIONS.never_nl = True  # lines are searched joined by newlines: a match never spans two
_OPTIONS.log_errors = False  # a pattern RE2 refuses is answered, not logged to stderr
_OPTIONS.never_capture = True  # only where a match starts is wanted: each group would cost RE2 work at every match
_BLOCK_CHARACTERS = 1 << 20
"""About how much text one search step covers (see `_Search`)."""
_SEARCH_SECONDS = 2.0
"""How long one answer's search may take: past it, the answer says which lines it did not search."""
_PROBE_BYTES = 4096
"""The first prefix of a block a search times before it commits to the block (see `_Pattern.rate`)."""
_MARGIN = 2.0
"""How much longer than its estimate a block's search is allowed to take without overrunning the limit."""
_SHOWN_PATTERN = 80
"""Characters of a pattern quoted in a heading."""


@dataclass(frozen=True)
class _Pattern:
    """A model-given pattern: a line matches when it holds it as text or matches it as a regular expression.

    The pattern is untrusted. It runs on RE2, whose time is linear in the text whatever the pattern
    (no backtracking: `(a+)+$` or `(.?){26}.{26}QQQ` cost what `abc` costs), and which releases the
    GIL while it searches. Linear is not always fast: a pattern whose DFA blows up
    (`a.{999}Q|b.{999}Q|...`) sends RE2 to its NFA, at milliseconds per kilobyte, so a search also
    has a time limit (`_Search`). Groups capture nothing (`never_capture`): a search wants where a
    match starts, and thousands of nested groups would make every match cost seconds. A pattern RE2
    does not accept (a lookaround, a backreference, a syntax error) is matched as plain text only,
    and the answer says so.
    """

    finders: tuple[Callable[[bytes, int], int], ...]
    """Each gives the next hit in a text from a position on, or -1."""
    shown: str
    """The pattern as a heading quotes it."""
    note: str
    """What the heading adds when the pattern is not taken as a regular expression."""

    @classmethod
    def of(cls, pattern: str) -> _Pattern:
        encoded = pattern.encode('utf-8', 'surrogatepass')
        finders: list[Callable[[bytes, int], int]] = []
        if b'\n' not in encoded:  # text holding a line break is in no line
            finders.append(lambda data, position: data.find(encoded, position))
        note = ''
        try:
            expression = re2.compile(b'(?m)' + encoded, _OPTIONS)  # ^ and $ at each line's start and end
        except re2.error as exc:
            reason = bytes(exc.args[0]).decode('utf-8', 'replace').split(':')[0] if exc.args else 'refused'
            note = f' as plain text (not a regular expression RE2 runs: {reason})'
        else:

            def search(data: bytes, position: int) -> int:
                match = expression.search(data, position)
                return match.start() if match is not None else -1

            finders.append(search)
        shown = repr(pattern if len(pattern) <= _SHOWN_PATTERN else pattern[:_SHOWN_PATTERN] + '…')
        return cls(finders=tuple(finders), shown=shown, note=note)

    def rate(self, data: bytes, remaining: float) -> float:
        """Seconds per byte a search of `data` is estimated to take (0: `data` is too short to tell).

        Timed on prefixes of `data`, each 4 times the last from `_PROBE_BYTES` on, until the estimate
        fits `data` in `remaining` seconds, the next prefix would not fit in them, or a prefix would be
        all of `data`: a first search warms RE2's DFA up, so one small prefix can overstate the rate.
        """
        size, rate = _PROBE_BYTES, 0.0
        while size < len(data):
            started = time.monotonic()
            for _ in self.hits(data[:size]):
                pass
            took = time.monotonic() - started
            rate, remaining = took / size, remaining - took
            if rate * len(data) * _MARGIN <= remaining or took * 4 * _MARGIN > remaining:
                break
            size *= 4
        return rate

    def hits(self, data: bytes) -> Iterator[int]:
        """The index of each line of `data` with a hit of any finder, in order, once."""
        index = counted = 0
        previous = -1
        for start in heapq.merge(*(_line_starts(data, find) for find in self.finders)):
            if start != previous:
                index += data.count(b'\n', counted, start)
                counted = previous = start
                yield index


@dataclass
class _Search:
    """The numbers of the lines `first`..`last` that match `pattern`, in order, found within `_SEARCH_SECONDS`.

    The lines are searched a block of about `_BLOCK_CHARACTERS` at a time, joined by newlines: one
    search call per matching line rather than per line, no step long enough to hold up the event
    loop's thread, and no block encoded past the one that fills an answer. A block is searched only
    when its estimated time (the last block's rate, else `_Pattern.rate`) fits in what is left, with
    `_MARGIN`; else as many of its lines as fit, and when not even its first line does, the search
    stops there: `unsearched` is then that line, and the answer says what was not searched. An RE2
    call cannot be interrupted, so a line is searched whole or not at all.
    """

    pattern: _Pattern
    lines: Sequence[str]
    first: int
    last: int
    unsearched: int | None = None
    """The first line the time limit left unsearched (None: every line was searched, or the answer was full first)."""

    def __iter__(self) -> Iterator[int]:
        deadline = time.monotonic() + _SEARCH_SECONDS
        rate = 0.0
        """Seconds per byte of the last block searched (0: none yet)."""
        number = self.first
        while number <= self.last:
            end = self._block_end(number, _BLOCK_CHARACTERS, overshoot=True)
            data = self._data(number, end)
            if not rate or rate * len(data) * _MARGIN > deadline - time.monotonic():
                rate = self.pattern.rate(data, deadline - time.monotonic())
            remaining = deadline - time.monotonic()
            if rate and rate * len(data) * _MARGIN > remaining:
                end = self._block_end(number, remaining / (rate * _MARGIN), overshoot=False)
                data = self._data(number, end)
            if end == number or remaining <= 0:
                self.unsearched = number
                return
            started = time.monotonic()
            yield from (number + index for index in self.pattern.hits(data))
            rate = (time.monotonic() - started) / len(data) if data else rate
            number = end

    def _block_end(self, number: int, characters: float, *, overshoot: bool) -> int:
        """The line after a block from `number` on, of about `characters` characters.

        `overshoot`: its last line may take it past them (a block always holds a line); else every line fits.
        """
        end, size = number, 0
        while end <= self.last and size < characters:
            size += len(self.lines[end - 1]) + 1
            if size > characters and not overshoot:
                break
            end += 1
        return end

    def _data(self, number: int, end: int) -> bytes:
        return '\n'.join(self.lines[number - 1 : end - 1]).encode('utf-8', 'surrogatepass')


def _line_starts(data: bytes, find: Callable[[bytes, int], int]) -> Iterator[int]:
    """Where each line of `data` holding a hit of `find` starts, once per line."""
    position = 0
    while (hit := find(data, position)) >= 0:
        yield data.rfind(b'\n', 0, hit) + 1
        position = data.find(b'\n', hit) + 1
        if not position:
            return
