"""What a compaction returns and counts: `Compaction` (new messages, counts, changed parts), `Report`, `Failure`.

Every path that compacts (the pipeline, a stored history's rewrite, a batch, restore) reports in these
counts, and `Report.add` sums them over histories, runs and sources.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from pydantic_ai.messages import ModelMessage

from ..core import JsonValue
from ._check import IntegrityProblem, PartRef


@dataclass(frozen=True, slots=True)
class Failure:
    """A tool return that kept its original content, and why."""

    message_index: int
    part_index: int
    tool_name: str
    tool_call_id: str
    reason: str


@dataclass(kw_only=True)
class Report:
    """Counts of one compaction, or of many added together."""

    returns_examined: int = 0
    oversized: int = 0
    summarized: int = 0
    cache_hits: int = 0
    model_calls: int = 0
    retries: int = 0
    failed: int = 0
    tokens_before: int = 0
    """Estimated tokens of the oversized contents before..."""
    tokens_after: int = 0
    """...and after (failed ones count at their original size)."""
    summarizer_input_tokens: int = 0
    summarizer_output_tokens: int = 0
    requests: int = 0
    """Model requests of an agent run processed (by a `HistorySession`), and their prompts' estimated
    tokens as sent and as they would have been with no compaction: in all, read from the provider's
    prompt cache (the prefix shared with the previous request), and written to it (the rest, where the
    prompt is long enough to be cached). `run_cost` prices them."""
    prompt_tokens: int = 0
    prompt_cached_tokens: int = 0
    prompt_written_tokens: int = 0
    uncompacted_prompt_tokens: int = 0
    uncompacted_cached_tokens: int = 0
    uncompacted_written_tokens: int = 0
    rewrite_written_tokens: int = 0
    """Of `prompt_written_tokens`, those written only because a rewrite changed a prefix the cache held:
    the cache writes compaction caused."""
    billed_requests: int = 0
    """Requests whose usage the provider reported (`RequestUsage`, seen by the capability after each
    request), and what it billed of their prompts: in all, read from its cache, written to it. Beside
    `prompt_tokens` and the rest, which the session predicted (estimated tokens)."""
    billed_input_tokens: int = 0
    billed_cache_read_tokens: int = 0
    billed_cache_write_tokens: int = 0
    over_ceiling: int = 0
    """Requests sent over `policy.max_prompt_tokens`: what no summary could take out (prompts, assistant
    turns, the `keep_recent` window, small returns) exceeded it, or a summary it needed failed."""
    failures: list[Failure] = field(default_factory=list[Failure])
    skipped: list[Failure] = field(default_factory=list[Failure])
    """Oversized returns due for a summary that were never sent, and why (not failures: nothing was
    tried). A stored content holding a number literal that could not be written back as it is; in a
    `--provider-batch --dry-run`, each content the run would submit."""
    integrity: list[IntegrityProblem] = field(default_factory=list[IntegrityProblem])
    """Tool-call problems found in the input (reported, never introduced)."""

    def add(self, other: Report) -> None:
        """Add `other`'s counts to these, and its lists to these (an agent run adds one per request)."""
        mine, theirs = vars(self), vars(other)
        for name in _COUNTS:
            mine[name] += theirs[name]
        for name in _LISTS:
            mine[name].extend(theirs[name])


_COUNTS = tuple(item.name for item in dataclasses.fields(Report) if item.type == 'int')
_LISTS = tuple(item.name for item in dataclasses.fields(Report) if item.name not in _COUNTS)


@dataclass(frozen=True)
class Compaction:
    """What `Compactor.compact` returns: the new messages, the counts, and which parts changed."""

    messages: list[ModelMessage]
    report: Report
    changed: dict[PartRef, JsonValue]
    """Each summarized part and its new content."""
