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
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from .._facts import find_facts, mentions
from .._shape import JsonValue

_SHORT_INTEGER = re.compile(r'\d{1,2}')
_WORD_BEFORE = re.compile(r'\w+[^\w\n]{0,3}$')
_WORD_AFTER = re.compile(r'[^\w\n]{0,3}\w+')


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
    """The facts of `content` that `later_text` quotes.

    A one- or two-digit integer alone is no evidence: a long output holds most of them, so a later
    `30` or `58` matches by chance. It counts only together with a word next to it as the content
    has it (`47 organizations`, `Plan: 14`, `java:88`), and that phrase is what must survive.
    """
    text = plain_text(content)
    referred: list[str] = []
    for fact in find_facts(text):
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
