"""What a `HistorySession` returned at its last request, and what the next history changed of it.

An agent run hands the session its history before every model request: the history the session
returned last time, grown at its end. Frameworks and other history processors may change it in
between: pydantic-ai gives the last request new parts (and its instructions) after the processors
ran; another processor may scrub or drop old tool returns; a durable run may hand back equal copies
of every message. `Returned` tells these apart, so that the session walks again only what changed.

Messages are compared by position, a return waiting for a summary by its place and `tool_call_id`,
each by value where it is not the very object returned (identity is only the fast path): an equal
copy is the same history, an edited return is an edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from ._walk import Candidate


@dataclass(frozen=True, kw_only=True)
class Since:
    """Where a history continuing the last one returned is to be walked (again) from."""

    start: int
    """The first message to walk: the first new one, or an earlier one that changed."""
    recounted: int
    """Tool returns of `messages[start:]` already counted in `Report.returns_examined`."""
    recount: tuple[int, ...]
    """Messages before `start` whose tokens changed (the last one returned, given instructions since)."""


FROM_SCRATCH = Since(start=0, recounted=0, recount=())
"""A history walked whole: the first one, or one that does not continue the last returned."""


class Returned:
    """The history a session returned at its last request (see the module's docstring)."""

    def __init__(self) -> None:
        self._messages: list[ModelMessage] = []
        """A copy of the list returned: the framework may change its own."""
        self._parts: tuple[object, ...] = ()
        """The last message's parts as walked."""
        self._instructions: str | None = None
        """The last message's instructions as counted (pydantic-ai may set a request's after the processors)."""
        self._returns = 0
        """Returns of the last message counted in `Report.returns_examined` already."""

    @property
    def length(self) -> int:
        """Messages returned (0 before the first request, or after a restart)."""
        return len(self._messages)

    def record(self, messages: Sequence[ModelMessage]) -> None:
        """Remember `messages` as the history returned for this request."""
        self._messages = list(messages)
        last = messages[-1] if messages else None
        self._parts = tuple(last.parts) if last is not None else ()
        self._instructions = _instructions(last)
        self._returns = returns_in(last)

    def since(self, messages: Sequence[ModelMessage], waiting: Sequence[Candidate]) -> Since | None:
        """Where to walk `messages` from; None when it does not continue a history returned (start over).

        `waiting`: the returns due for a summary, in history order; one edited since (another content,
        or no longer there) is walked again from its message, so a summary of the content as it was is
        never written over it.
        """
        returned = self._messages
        if not returned:
            return None
        last = len(returned) - 1
        if len(messages) <= last:
            return None
        returns, parts = self._returns, self._parts
        if not _same(messages[last], returned[last]):
            if self._first_replaced(messages, end=last) < last:
                return None
            # only the last message returned was replaced (a processor before this one edited it): walked again;
            # a return it no longer holds stays counted as examined
            returns, parts = min(returns, returns_in(messages[last])), None
        again = parts is None or not _same_parts(messages[last].parts, parts)
        start, recounted = (last, returns) if again else (last + 1, 0)
        edited = _first_edited(messages, waiting, end=last)
        if edited is not None:  # walked again from there (or from an earlier message replaced too)
            start = min(edited, self._first_replaced(messages, end=edited))
            recounted = returns + sum(map(returns_in, messages[start:last]))
        instructions = _instructions(messages[last])
        changed = instructions is not self._instructions and instructions != self._instructions
        recount = (last,) if changed and not again and edited is None else ()
        return Since(start=start, recounted=recounted, recount=recount)

    def _first_replaced(self, messages: Sequence[ModelMessage], *, end: int) -> int:
        """The first of the messages before `end` that differs from the one returned there (`end` when none does).

        Asked only once the history is known to have been edited; equal copies compare at C speed.
        """
        for index, (now, then) in enumerate(zip(messages[:end], self._messages[:end])):
            if not _same(now, then):
                return index
        return end


def _same(now: object, then: object) -> bool:
    return now is then or now == then


def _same_parts(now: Sequence[object], then: tuple[object, ...]) -> bool:
    return len(now) == len(then) and all(map(_same, now, then))


def _first_edited(messages: Sequence[ModelMessage], waiting: Sequence[Candidate], *, end: int) -> int | None:
    """The first message before `end` holding a waiting return that is no longer there as it was found.

    The return is looked up by its place and `tool_call_id`; its content is compared by value.
    """
    for candidate in waiting:
        index, part_index = candidate.message_index, candidate.part_index
        if index >= end:
            break
        parts = messages[index].parts
        part = parts[part_index] if part_index < len(parts) else None
        found = candidate.part
        if part is found:
            continue
        if not (
            isinstance(part, ToolReturnPart)
            and part.tool_call_id == found.tool_call_id
            and _same(part.content, found.content)
        ):
            return index
    return None


def _instructions(message: ModelMessage | None) -> str | None:
    return message.instructions if isinstance(message, ModelRequest) else None


def returns_in(message: ModelMessage | None) -> int:
    """How many tool returns `walk` meets in one message."""
    if not isinstance(message, ModelRequest):
        return 0
    return sum(isinstance(part, ToolReturnPart) for part in message.parts)
