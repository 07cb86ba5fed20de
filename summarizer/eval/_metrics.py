"""What an eval measures on one compacted history: compression and the facts later turns rely on.

A fact (see `summarizer._facts`) of an oversized tool return counts as *referred to* when a later
turn of the same history -- assistant text, the arguments of a later tool call, a later user prompt
-- quotes it verbatim. Those are the facts the conversation demonstrably needed; retention is the
share of them still present in the summary that replaced the return. Everything here is offline and
deterministic: no judge model, the same figures on every run.

Texts are compared as *plain text* (strings, keys and scalars joined by newlines), not as JSON
text: JSON escapes would otherwise glue an escape letter to a fact (`\\nAPT28`) or hide a fact with
a quote in it.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from .._facts import find_facts
from .._shape import JsonValue

_ALPHANUMERIC = frozenset(string.ascii_letters + string.digits)


@dataclass(kw_only=True)
class Tally:
    """Counts over oversized tool returns (one, a tool's, a history's or a whole run's), added up."""

    returns: int = 0
    summarized: int = 0
    """Returns whose summary passed every check and replaced the original."""
    tokens_before: int = 0
    tokens_after: int = 0
    facts_referred: int = 0
    facts_kept: int = 0

    def add(self, other: Tally) -> None:
        for item in dataclasses.fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    @property
    def compression(self) -> float | None:
        """Share of the oversized returns' tokens removed (0.8 = cut by 80%)."""
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else None

    @property
    def retention(self) -> float | None:
        """Share of the referred-to facts still present after compaction."""
        return self.facts_kept / self.facts_referred if self.facts_referred else None

    @property
    def structure_pass_rate(self) -> float | None:
        return self.summarized / self.returns if self.returns else None

    def as_dict(self) -> dict[str, int | float | None]:
        figures: dict[str, int | float | None] = dataclasses.asdict(self)
        figures.update(compression=self.compression, retention=self.retention, structure_pass_rate=self.structure_pass_rate)
        return figures


@dataclass(kw_only=True)
class ReturnScore:
    """One oversized tool return under one model."""

    tool_name: str
    tool_call_id: str
    message_index: int
    tally: Tally
    lost: list[str] = field(default_factory=list[str])
    """Referred-to facts missing from the summary."""


def score_return(
    *,
    original: JsonValue,
    summary: JsonValue,
    later_text: str,
    tokens_before: int,
    tokens_after: int,
    summarized: bool,
) -> tuple[Tally, list[str]]:
    """The tally of one return, and the referred-to facts its summary lost."""
    referred = referred_facts(original, later_text)
    present = plain_text(summary)
    lost = [fact for fact in referred if not mentions(present, fact)]
    tally = Tally(
        returns=1,
        summarized=int(summarized),
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        facts_referred=len(referred),
        facts_kept=len(referred) - len(lost),
    )
    return tally, lost


def referred_facts(content: JsonValue, later_text: str) -> list[str]:
    """The facts of `content` that `later_text` quotes."""
    return [fact.text for fact in find_facts(plain_text(content)) if mentions(later_text, fact.text)]


def mentions(text: str, fact: str) -> bool:
    """Whether `text` holds `fact` whole: `42` is not mentioned by `1425`, `10` not by `10.1.7.7` or `1,10`."""
    start = text.find(fact)
    while start >= 0:
        end = start + len(fact)
        before, after = text[max(start - 2, 0) : start], text[end : end + 2]
        if not (_continues(before[-1:]) or _continues_number(before[::-1]) or _continues(after[:1]) or _continues_number(after)):
            return True
        start = text.find(fact, start + 1)
    return False


def _continues(char: str) -> bool:
    return char in _ALPHANUMERIC if char else False


def _continues_number(pair: str) -> bool:
    """A separator then a digit (read away from the fact): `10` inside `10.1` or `1,10`."""
    return len(pair) == 2 and pair[0] in '.,' and pair[1].isdigit()


def plain_text(value: JsonValue) -> str:
    """The text a reader sees in a JSON value: its strings, keys and scalars, one per line."""
    return '\n'.join(_pieces(value))


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


def later_texts(messages: Sequence[ModelMessage]) -> list[str]:
    """For each message index, the text of every turn after it that can refer back to a tool return."""
    own = ['\n'.join(_turn_texts(message)) for message in messages]
    suffixes = [''] * len(messages)
    following = ''
    for index in range(len(messages) - 1, -1, -1):
        suffixes[index] = following
        following = f'{own[index]}\n{following}' if own[index] else following
    return suffixes


def _turn_texts(message: ModelMessage) -> Iterator[str]:
    """Assistant text and tool-call arguments of a response; user prompts of a request."""
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
