r"""What an eval measures on one compacted history: compression and the facts later turns rely on.

A fact (see `summarizer._facts`) of an oversized tool return counts as *referred to* when a later
turn of the same history -- assistant text, the arguments of a later tool call, a later user prompt
-- quotes it verbatim. Those are the facts the conversation demonstrably needed; retention is the
share of them still present in the summary that replaced the return. Everything here is offline and
deterministic: no judge model, the same figures on every run.

Texts are compared as *plain text* (strings, keys and scalars joined by newlines), not as JSON
text: JSON escapes would otherwise glue an escape letter to a fact (`\nAPT28`) or hide a fact with
a quote in it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .._facts import mentions
from .._quoted import plain_text
from .._shape import JsonValue


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
        figures.update(
            compression=self.compression, retention=self.retention, structure_pass_rate=self.structure_pass_rate
        )
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
    referred: list[str],
    summary: JsonValue,
    tokens_before: int,
    tokens_after: int,
    summarized: bool,
) -> tuple[Tally, list[str]]:
    """The tally of one return, and the referred-to facts (`referred_facts` of its original) its summary lost."""
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
