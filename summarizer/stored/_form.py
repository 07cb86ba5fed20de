"""One stored history's compaction, whatever its format: parse, compact, splice, post-check.

A stored form (`StoredForm`) is a history as some storage holds it, parsed with the position of
every tool-return content value: one JSON text (a file, a JSONL line, a SQLite or PostgreSQL row:
`_stored.StoredHistory`) or a LangChain session's rows (`_langchain.Session`). Each form gives the
pipeline its messages, splices new values into its own text, and post-checks a rewrite against
itself; `compact_form` does the rest once for all of them: the compaction, the failure accounting
of a rewrite the post-check refuses, and the record of what it replaced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, Self, TypeVar

from pydantic_ai.messages import ModelMessage

from ..core import JsonValue, SummarizerConfig, Tokenizer
from ..pipeline import CheckFailed, Compactor, Failure, PartRef, Replaced, Report


class StoredForm(Protocol):
    """A stored history parsed: its messages, and its own text, which only `spliced` rewrites."""

    @property
    def messages(self) -> list[ModelMessage]:
        """The history as the pipeline walks it."""
        ...

    @property
    def unsummarizable(self) -> dict[PartRef, str]:
        """The contents never to summarize, and why (a number written two ways: `ambiguous_reason`)."""
        ...

    def tokens(self, tokenizer: Tokenizer) -> int:
        """Estimated tokens of the whole stored text (of a session: of all its rows)."""
        ...

    def spliced(self, changed: Mapping[PartRef, JsonValue]) -> Self:
        """This history with each changed part's content value replaced in its text, nothing else touched.

        `HistoryError` (or another `ValueError`: a number `json.dumps` refuses) if the rewrite does not parse.
        """
        ...

    def check_rewrite(
        self,
        after: Self,
        *,
        summaries: Mapping[PartRef, JsonValue],
        config: SummarizerConfig,
        tokenizer: Tokenizer,
    ) -> None:
        """The post-check of `after` as a rewrite of this history: raises `CheckFailed` on the first problem.

        Byte for byte the same outside the changed content values; each changed value one the pipeline
        may summarize, with its number literals as the original wrote them, decoding to exactly its
        summary in `summaries` (`is_summary`): what the compaction put through `summary_problem`, which
        is not run again.
        """
        ...

    def replaced(self, after: Self, refs: Mapping[PartRef, object]) -> list[Replaced]:
        """What `after` replaced at `refs`: where each value was and is, for the originals store."""
        ...


Form = TypeVar('Form', bound=StoredForm)


@dataclass(frozen=True, kw_only=True)
class FormCompaction(Generic[Form]):
    """A stored history compacted: its rewrite (None when nothing is to be written) and the counts."""

    after: Form | None
    report: Report
    tokens_before: int
    """Estimated tokens of the whole stored text, before and after."""
    tokens_after: int
    replaced: list[Replaced] = field(default_factory=list[Replaced])
    """Each value the rewrite replaced: what the originals store records before it is written."""


async def compact_form(before: Form, compactor: Compactor, *, scope: str | None = None) -> FormCompaction[Form]:
    """Compact one stored history; the rewrite is post-checked against the original (`check_rewrite`).

    A rewrite that does not parse or fails the post-check is dropped, every summary in it counted as
    failed, unless the compactor is strict, in which case `CheckFailed` is raised. `scope`: whose
    originals these are (default: the compactor's, else the conversation's). The caller records the
    rewrite (`record_rewrite`) before it writes anything.
    """
    compaction = await compactor.compact(before.messages, skip=before.unsummarizable, scope=scope)
    report, changed, tokenizer = compaction.report, compaction.changed, compactor.tokenizer
    tokens_before = before.tokens(tokenizer)
    if not changed:
        return FormCompaction(after=None, report=report, tokens_before=tokens_before, tokens_after=tokens_before)
    try:
        after = before.spliced(changed)
        before.check_rewrite(after, summaries=changed, config=compactor.config, tokenizer=tokenizer)
    except (CheckFailed, ValueError) as exc:  # a HistoryError, or a number `json.dumps` refuses
        reason = f'rewrite failed the post-check: {exc}'
        if compactor.config.strict:
            raise CheckFailed(reason) from None
        report.failed += report.summarized
        report.summarized = 0
        report.tokens_after = report.tokens_before
        report.failures.extend(_failure(before.messages, ref, reason) for ref in sorted(changed))
        return FormCompaction(after=None, report=report, tokens_before=tokens_before, tokens_after=tokens_before)
    return FormCompaction(
        after=after,
        report=report,
        tokens_before=tokens_before,
        tokens_after=after.tokens(tokenizer),
        replaced=before.replaced(after, changed),
    )


def _failure(messages: list[ModelMessage], ref: PartRef, reason: str) -> Failure:
    part = messages[ref[0]].parts[ref[1]]
    return Failure(
        message_index=ref[0],
        part_index=ref[1],
        tool_name=str(getattr(part, 'tool_name', '')),
        tool_call_id=str(getattr(part, 'tool_call_id', '')),
        reason=reason,
    )


def is_summary(value: JsonValue, summary: JsonValue) -> bool:
    """Whether a value decoded from a rewrite is exactly `summary`: the same JSON, type for type.

    `==` alone is not enough: it equates `1`, `1.0` and `true`, whose literals (and shapes) differ.
    """
    if isinstance(summary, str) or isinstance(value, str):
        return type(value) is type(summary) and value == summary
    return type(value) is type(summary) and json.dumps(value) == json.dumps(summary)
