r"""What an eval measures on one summarized tool return: compression, the facts later turns reuse, fidelity.

A fact (see `summarizer.core._facts`) of an oversized tool return counts as *referred to* when a later
turn of the same history -- assistant text, the arguments of a later tool call, a later user prompt
-- holds it (`Turns.quoted_facts`, the very function that hands quoted facts to the
summarizer). Those are the facts the conversation demonstrably reused. A summary *keeps* one when it
holds it in context, where its reader can tell what it is (`_context`: in its original line, or a
window of it, for a JSON scalar beside its key); it holds it *present* when the fact is anywhere in
it (a list of bare tokens included). Retention is the share kept; presence the share present.
Everything here is offline and deterministic: no judge model, the same figures on every run.

Fidelity: a summary line that *comes from* an original line (stands on one, `core.grounded_line`)
should be that line byte for byte, since an agent copies exact lines (an `old_str`, a failing
assertion) out of what it read. A string that held JSON should still parse, as the same JSON type.
A summary should never be empty. Outline: a kept line whose enclosing line (the nearest above with
less indentation) is gone is an *orphan*; markers are what the summary spends on saying what it
left out.

Texts are compared as *plain text* (strings, keys and scalars one per line, `_quoted.plain_text`),
not as JSON text, whose escapes would glue an escape letter to a fact (`\\nAPT28`).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field

from ..core import CUT, GroundingKind, JsonValue, OriginalText, grounded_line, plain_text, token_set
from ._context import Context, lines_holding, outline, reader_text


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
    """Referred-to facts the summary holds in context (see the module's docstring)."""
    facts_present: int = 0
    """Referred-to facts the summary holds anywhere."""
    lines_from_original: int = 0
    """Summary lines that come from an original line (see the module's docstring)."""
    lines_identical: int = 0
    """Of those, the ones byte-identical to it."""
    json_strings: int = 0
    """Summarized strings whose original text was a JSON list or object."""
    json_strings_parsing: int = 0
    """Of those, the summaries that still parse as JSON of the same type."""
    kept_lines: int = 0
    """Summary lines that come from a line of the original (whole, or pieces of it)."""
    orphans: int = 0
    """Of those, the ones whose enclosing line the summary dropped."""
    marker_chars: int = 0
    """Characters of the summaries spent on markers (`… 12 lines omitted …`, `… 3 items omitted …`, `…`)."""
    summary_chars: int = 0

    def add(self, other: Tally) -> None:
        for item in dataclasses.fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    @property
    def compression(self) -> float | None:
        """Share of the oversized returns' tokens removed (0.8 = cut by 80%)."""
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else None

    @property
    def retention(self) -> float | None:
        """Share of the referred-to facts of the summarized returns their summaries keep in context.

        A return that kept its original (its summary failed) counts as failed, never as keeping its facts.
        """
        return self.facts_kept / self.facts_referred if self.facts_referred else None

    @property
    def presence(self) -> float | None:
        """Share of the referred-to facts present anywhere after compaction."""
        return self.facts_present / self.facts_referred if self.facts_referred else None

    @property
    def orphan_rate(self) -> float | None:
        """Share of the kept lines whose enclosing line was dropped."""
        return self.orphans / self.kept_lines if self.kept_lines else None

    @property
    def marker_share(self) -> float | None:
        """Share of the summaries' characters spent on markers."""
        return self.marker_chars / self.summary_chars if self.summary_chars else None

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
            presence=self.presence,
            orphan_rate=self.orphan_rate,
            marker_share=self.marker_share,
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
    """Referred-to facts the summary does not keep in context."""
    digest: bytes = b''
    """Its content's digest (`content_digest`): where the head baseline looks up the size to cut it to."""


def score_return(
    *,
    original: JsonValue,
    summary: JsonValue,
    referred: tuple[str, ...],
    tokens_before: int,
    tokens_after: int,
    summarized: bool,
    empty: bool = False,
    own_words: bool = False,
) -> tuple[Tally, list[str]]:
    """The tally of one return whose `referred` facts later turns hold, and the ones its summary did not keep.

    `own_words`: the summary is a real model's, whose words may say a fact in a line of their own.
    """
    present = token_set(plain_text(summary))
    context, lines = Context.of(summary), reader_text(original).split('\n')
    lost = [
        fact
        for fact in referred
        if fact not in present or not context.keeps(fact, lines_holding(fact, lines), own_words=own_words)
    ]
    tally = Tally(
        returns=1,
        summarized=int(summarized),
        empty=int(empty),
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        facts_referred=len(referred),
        facts_kept=len(referred) - len(lost),
        facts_present=sum(1 for fact in referred if fact in present),
    )
    if summarized:
        shape = outline(original, summary)
        tally.kept_lines, tally.orphans = shape.kept_lines, shape.orphans
        tally.marker_chars, tally.summary_chars = shape.marker_chars, shape.chars
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
