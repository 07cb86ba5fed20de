r"""What an eval measures on one summarized tool return: compression, the facts later turns reuse, fidelity.

A fact (see `summarizer.core._facts`) of an oversized tool return counts as *referred to* when a later
turn of the same history -- assistant text, the arguments of a later tool call, a later user prompt
-- holds it (`Turns.quoted_facts`, the very function that hands quoted facts to the
summarizer). Those are the facts the conversation demonstrably reused; retention is the share of
them the summary still holds. Everything here is offline and deterministic: no judge model, the
same figures on every run.

Fidelity: a summary line that *comes from* an original line (stands on one, `core.grounded_line`)
should be that line byte for byte, since an agent copies exact lines (an `old_str`, a failing
assertion) out of what it read. A string that held JSON should still
parse, as the same JSON type. A summary should never be empty.

Texts are compared as *plain text* (strings, keys and scalars one per line, `_quoted.plain_text`),
not as JSON text, whose escapes would glue an escape letter to a fact (`\\nAPT28`).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field

from ..core import CUT, GroundingKind, JsonValue, OriginalText, grounded_line, plain_text, token_set


@dataclass(kw_only=True)
class Tally:
    """Counts over oversized tool returns (one, a tool's, a kind's, a history's or a run's), added up."""

    returns: int = 0
    summarized: int = 0
    """Returns whose summary passed every check and replaced the original."""
    failures: Counter[str] = field(default_factory=Counter[str])
    """Why the other returns kept their original: how many for each kind of failure (`failure_kind`)."""
    empty: int = 0
    """Returns whose summary was refused for holding no text (the original was kept)."""
    tokens_before: int = 0
    tokens_after: int = 0
    facts_referred: int = 0
    facts_kept: int = 0
    lines_from_original: int = 0
    """Summary lines that come from an original line (see the module's docstring)."""
    lines_identical: int = 0
    """Of those, the ones byte-identical to it."""
    json_strings: int = 0
    """Summarized strings whose original text was a JSON list or object."""
    json_strings_parsing: int = 0
    """Of those, the summaries that still parse as JSON of the same type."""

    def add(self, other: Tally) -> None:
        for item in dataclasses.fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    @property
    def compression(self) -> float | None:
        """Share of the oversized returns' tokens removed (0.8 = cut by 80%)."""
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else None

    @property
    def retention(self) -> float | None:
        """Share of the referred-to facts of the summarized returns their summaries hold.

        A return that kept its original (its summary failed) counts as failed, never as keeping its facts.
        """
        return self.facts_kept / self.facts_referred if self.facts_referred else None

    @property
    def structure_pass_rate(self) -> float | None:
        """Share of the returns whose summary was accepted (the rest kept their original, for `failures`)."""
        return self.summarized / self.returns if self.returns else None

    @property
    def identical_lines(self) -> float | None:
        """Share of the summary lines from an original line that are byte-identical to it."""
        return self.lines_identical / self.lines_from_original if self.lines_from_original else None

    @property
    def json_parse_rate(self) -> float | None:
        return self.json_strings_parsing / self.json_strings if self.json_strings else None

    def as_dict(self) -> dict[str, int | float | dict[str, int] | None]:
        # not `dataclasses.asdict`: it rebuilds a Counter from its (key, count) pairs, counting the pairs
        figures: dict[str, int | float | dict[str, int] | None] = {
            item.name: getattr(self, item.name) for item in dataclasses.fields(self)
        }
        figures['failures'] = dict(self.failures.most_common())
        figures.update(
            compression=self.compression,
            retention=self.retention,
            structure_pass_rate=self.structure_pass_rate,
            identical_lines=self.identical_lines,
            json_parse_rate=self.json_parse_rate,
        )
        return figures


@dataclass(kw_only=True)
class ReturnScore:
    """One oversized tool return under one model."""

    tool_name: str
    tool_call_id: str
    message_index: int
    kind: str
    """Its content kind (`summarizer.extractive.detect_kind`)."""
    tally: Tally
    lost: list[str] = field(default_factory=list[str])
    """Referred-to facts missing from the summary."""


def score_return(
    *,
    original: JsonValue,
    summary: JsonValue,
    referred: tuple[str, ...],
    tokens_before: int,
    tokens_after: int,
    summarized: bool,
    empty: bool = False,
) -> tuple[Tally, list[str]]:
    """The tally of one return whose `referred` facts later turns hold, and the ones its summary lost."""
    present = token_set(plain_text(summary))
    lost = [fact for fact in referred if fact not in present]
    tally = Tally(
        returns=1,
        summarized=int(summarized),
        empty=int(empty),
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        facts_referred=len(referred),
        facts_kept=len(referred) - len(lost),
    )
    if summarized:
        tally.lines_from_original, tally.lines_identical = line_fidelity(plain_text(original), plain_text(summary))
        if isinstance(original, str) and (container := _json_container(original)) is not None:
            tally.json_strings = 1
            tally.json_strings_parsing = int(isinstance(summary, str) and _json_container(summary) == container)
    return tally, lost


def line_fidelity(original: str, summary: str) -> tuple[int, int]:
    """How many lines of `summary` come from a line of `original`, and how many of those are byte-identical.

    A line comes from an original line when it stands on one (`core.grounded_line`): it is one, pieces
    of one, or a model's own words about one. It is identical when it is the line, or pieces of it
    marked cut with `…` (what it keeps, it keeps byte for byte); a line with other outer spaces (a
    lost indentation) or in a model's own words is not. Other lines (markers, a `Key facts:` line, a
    line of the prompt echoed back) are not counted: a line the original does not hold is no
    identical line, wherever else it comes from.
    """
    read = OriginalText(original)
    from_original = identical = 0
    for line in summary.split('\n'):
        kind = grounded_line(line, read).kind
        if kind in (GroundingKind.LINE, GroundingKind.PIECES, GroundingKind.OWN_WORDS):
            from_original += 1
            identical += kind is GroundingKind.LINE or (kind is GroundingKind.PIECES and CUT in line)
    return from_original, identical


def _json_container(text: str) -> str | None:
    """'list' or 'object' when `text` is the JSON text of one, else None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in '[{':
        return None
    try:
        value: JsonValue = json.loads(stripped)
    except ValueError:
        return None
    return 'list' if isinstance(value, list) else 'object' if isinstance(value, dict) else None
