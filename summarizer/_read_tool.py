"""`read_tool_return`: the plugin's tool that reads a summarized tool return's original back.

The tool finds the return by its `tool_call_id` in the run's history, looks its current content
(the summary) up in the originals store, and answers with numbered lines of the original: a string
as its own lines, anything else as indented JSON. Answers are bounded; a cut answer says where to go
on. Failures are `ToolFailed`: the model sees why and adapts, the run goes on, and no retry budget is
spent on a question that has no better answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.tools import RunContext, Tool

from ._config import READ_TOOL_NAME
from ._originals import Original, OriginalStore
from ._shape import JsonValue
from ._tokens import json_text
from ._walk import as_json

_RESERVED = 200
"""Characters of an answer kept for its closing line (how to page on)."""


def description(max_characters: int) -> str:
    return (
        'Older tool returns in this conversation may have been summarized to save context: a summary keeps '
        "the content's shape and key facts but drops lines or items (a dropped run of lines is marked like "
        f'`… 212 lines omitted …`). Call {READ_TOOL_NAME} with the tool_call_id of such a return to read its '
        'full original text, as numbered lines (JSON contents are shown indented): all of it, a range '
        '(start_line, end_line), or only the lines matching `pattern` (a plain substring or a regular '
        f'expression). Answers hold at most {max_characters:,} characters; a longer one ends by saying which '
        'start_line reads on.'
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
        occurrence: int | None = None,
    ) -> str:
        """Read the full original of a tool return that may have been summarized.

        Args:
            ctx: The run context.
            tool_call_id: The id of the tool call whose return to read.
            start_line: The first line to show (1-based); default the first.
            end_line: The last line to show (inclusive); default the last.
            pattern: Show only the lines holding this text or matching this regular expression.
            occurrence: Only when the conversation holds several returns with this tool_call_id: which one
                (1 for the first); by default the one that was summarized.
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
        found: list[tuple[int, ToolReturnPart, Original]] = []
        for number, part in enumerate(returns, 1):
            data = as_json(part.content)
            if occurrence in (None, number) and data is not None:
                original = store.read(tool_call_id, json_text(data), scopes=scopes(ctx), occurrence=number)
                if original is not None:
                    found.append((number, part, original))
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
        _, _, original = found[0]
        return render(
            original.value(),
            title=f'{original.tool_name} return {tool_call_id}',
            start_line=start_line,
            end_line=end_line,
            pattern=pattern,
            max_characters=max_characters,
        )

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
) -> str:
    """Numbered lines of `value` in the asked range (and matching `pattern`), cut to `max_characters`."""
    lines = (
        value.splitlines() if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False).splitlines()
    )
    total = len(lines)
    first, last = max(start_line or 1, 1), min(end_line or total, total)
    if first > total or first > last:
        raise ToolFailed(f'{title} has {total:,} lines: lines {first}-{end_line or total} hold none of them.')
    numbers = range(first, last + 1)
    if pattern:
        matches = _matcher(pattern)
        numbers = [number for number in numbers if matches(lines[number - 1])]
        heading = f'{title}: {total:,} lines; {len(numbers):,} of lines {first}-{last} match {pattern!r}'
        if not numbers:
            return heading + '.'
    else:
        heading = f'{title}: {total:,} lines; lines {first}-{last}'
    answer = [heading + ':']
    budget = max_characters - len(answer[0]) - _RESERVED
    for position, number in enumerate(numbers):
        entry = f'{number}: {lines[number - 1]}'
        if len(entry) + 1 > budget:
            next_line = number
            if position == 0:  # one line longer than an answer: its start, and paging still moves on
                answer.append(entry[: max(budget - 20, 0)] + ' … (line cut)')
                next_line = number + 1
            more = ' and the same pattern' if pattern else ''
            answer.append(
                f'… answer cut at {max_characters:,} characters: call {READ_TOOL_NAME} again with '
                f'start_line={next_line}{more} to read on.'
            )
            break
        answer.append(entry)
        budget -= len(entry) + 1
    return '\n'.join(answer)


def _matcher(pattern: str) -> Callable[[str], bool]:
    """A line matches when it holds `pattern` as text or, if it compiles, matches it as a regular expression.

    The pattern comes from a model. Python's `re` backtracks and never gives up: a repeated group that
    itself repeats (`(a+)+$`, `(x|x.)*y`) takes exponential time on a line that almost matches, and it
    holds the GIL, so the whole application would stall. Such a pattern is matched as plain text only.
    """
    if _nested_repetition(pattern):
        return lambda line: pattern in line
    try:
        expression = re.compile(pattern)
    except re.error:
        return lambda line: pattern in line
    return lambda line: pattern in line or expression.search(line) is not None


_QUANTIFIER = re.compile(r'[*+]|\{\d*,\d*\}')
"""An unbounded or ranged repetition right after a group (a plain `?` or `{n}` cannot blow up)."""


def _nested_repetition(pattern: str) -> bool:
    """Whether a repeated group of `pattern` holds a repetition or an alternative (star height over 1).

    A scan of the pattern's text, not a parse: escapes and character classes are stepped over, and
    each open group remembers whether it holds `*`, `+`, `{m,n}` or `|`.
    """
    groups: list[bool] = []  # per open group: does it hold a repetition or an alternative?
    position, length = 0, len(pattern)
    while position < length:
        char = pattern[position]
        if char == '\\':
            position += 2
            continue
        if char == '[':
            end = position + 1 + (pattern[position + 1 : position + 2] == '^')
            end = pattern.find(']', end + 1)  # a ']' right after '[' or '[^' is a member
            position = length if end < 0 else end + 1
            continue
        if char == '(':
            groups.append(False)
        elif char == ')' and groups:
            risky = groups.pop()
            repeated = _QUANTIFIER.match(pattern, position + 1)
            if risky and repeated:
                return True
            if groups and (risky or repeated):
                groups[-1] = True
        elif groups and (char == '|' or _QUANTIFIER.match(pattern, position)):
            groups[-1] = True
        position += 1
    return False
