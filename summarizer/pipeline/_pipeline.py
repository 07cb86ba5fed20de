"""The pipeline: walk -> summarize -> check, on in-memory pydantic-ai histories.

`Compactor.compact()` does one history in one go (the CLI and batch jobs): its `plan` (the contents
to summarize), their answers from an `AnswerSource` (the live model, or what an engine made
beforehand), then `apply` (checks, originals, report). A `HistorySession` does
the same incrementally for an agent run, where the history grows by a few messages per request: it
walks only what is new since its last call, so the steady-state cost per request is proportional
to what is new, not to the length of the history.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import functools
import logging
import math
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import anyio.to_thread
from opentelemetry.trace import Tracer
from pydantic_ai.messages import ModelMessage, ModelRequest
from pydantic_ai.models import AbstractModel, Model
from pydantic_ai.profiles import ModelProfile, prompt_cache_outlook
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from ..core import (
    REPEAT_CALL_ID,
    JsonValue,
    SummarizerConfig,
    Tokenizer,
    Turns,
    content_tokens,
    estimate_tokens,
    json_text,
    message_texts,
)
from ._ceiling import MARKER_FLOOR, ROOM, Cut, fit, marker
from ._check import (
    CheckFailed,
    PartRef,
    check_integrity,
    check_message,
    integrity_problems,
    summary_problem,
)
from ._originals import (
    Kept,
    OriginalStore,
    conversation_scope,
    holds_omission_marker,
    read_hint_tokens,
    with_read_hint,
)
from ._policy import Due, Ledger
from ._prices import CacheModel
from ._report import Compaction, Failure, Report
from ._returned import FROM_SCRATCH, Returned
from ._summarize import AnswerSource, Outcome, ServerUnreachable, Summarizer
from ._walk import Candidate, recent_turns, walk

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What compacting one history asks summaries of (`Compactor.plan`), before any is made."""

    candidates: list[Candidate]
    """The returns due for a summary, each with the facts later turns quote (`Candidate.quoted`)."""
    skipped: list[Failure] = field(default_factory=list[Failure])
    """Due returns never to summarize, and why (reported in `Report.skipped`)."""
    returns_examined: int = 0


@dataclass(frozen=True)
class Accepted:
    """A candidate and the summary it is to be replaced by, before the message checks."""

    candidate: Candidate
    summary: JsonValue

    @functools.cached_property
    def text(self) -> str:
        """The summary's `json_text`, written once for the originals store and the report's count."""
        return json_text(self.summary)


class Compactor:
    """Compacts pydantic-ai histories: the library's entry point.

    ```python
    compactor = Compactor(threshold_tokens=800, keep_recent=2)
    result = await compactor.compact(messages)
    result.messages, result.report
    ```

    `keep_recent`: the tool returns of that many most recent turns stay verbatim. A turn is all the
    returns answering one model response, so parallel calls are kept, and later summarized, together:
    the model sees each fresh result whole at least once.
    """

    def __init__(
        self,
        *,
        config: SummarizerConfig | None = None,
        model: Model | str | None = None,
        threshold_tokens: int | None = None,
        keep_recent: int | None = None,
        tokenizer: Tokenizer = estimate_tokens,
        summarizer: Summarizer | None = None,
        answers: AnswerSource | None = None,
        originals: OriginalStore | None = None,
        scope: str | None = None,
    ) -> None:
        self.config = (config or SummarizerConfig()).override(
            threshold_tokens=threshold_tokens, keep_recent=keep_recent
        )
        self.tokenizer = tokenizer
        self.summarizer = summarizer or Summarizer.from_config(self.config, model=model, tokenizer=tokenizer)
        """The model, prompts, budgets and cache keys of every summary."""
        self.answers: AnswerSource = answers or self.summarizer
        """Where the summaries come from: the summarizer's live model, or an engine's, made beforehand."""
        self.originals = originals or OriginalStore.from_config(self.config)
        """Where each summarized content is kept (`originals:` in the config), to be read back or restored."""
        self.scope = scope
        """Whose originals it keeps (a tenant's or a conversation's id): only a read in that scope finds them.
        None: each history's own conversation (`conversation_scope`)."""

    def plan(self, messages: Sequence[ModelMessage], *, skip: Mapping[PartRef, str] | None = None) -> Plan:
        """What compacting `messages` in one go asks summaries of: every oversized return outside `keep_recent`.

        `skip`: parts never to summarize, with the reason, reported in `Report.skipped` when due.
        """
        found = walk(messages, config=self.config, tokenizer=self.tokenizer)
        kept = set(recent_turns(found.turns, self.config.keep_recent))
        due = [candidate for candidate in found.candidates if candidate.turn not in kept]
        skip = skip or {}
        return Plan(
            candidates=_with_facts_to_keep(
                messages,
                [candidate for candidate in due if _ref(candidate) not in skip],
                max_tokens=self.config.max_content_tokens,
                quoted=self.config.keep_quoted_facts,
                # Only when the later turns are read: off, the facts are the task's, as in a run (the eval's blind).
                whole_conversation=self.config.keep_quoted_facts,
            ),
            skipped=[_failure(candidate, skip[_ref(candidate)]) for candidate in due if _ref(candidate) in skip],
            returns_examined=found.returns_seen,
        )

    async def compact(
        self, messages: Sequence[ModelMessage], *, skip: Mapping[PartRef, str] | None = None, scope: str | None = None
    ) -> Compaction:
        """One history in one go: its `plan`, answered by `answers`, applied; a `Compaction`.

        `skip`: parts never to summarize, with the reason, reported in `Report.skipped` when due.
        `scope`: whose originals these are, in place of the compactor's `scope`.
        """
        plan = self.plan(messages, skip=skip)
        compaction = await self.apply(messages, plan, await self.answers.answer(plan.candidates), scope=scope)
        compaction.report.integrity = integrity_problems(messages)
        return compaction

    def session(
        self, *, report: Report | None = None, keep_going: bool = True, cache: CacheModel | None = None
    ) -> HistorySession:
        """Incremental compaction of one growing history (one agent run), adding its counts to `report`.

        `keep_going`: see `HistorySession`. `cache`: the cache terms the policy prices rewrites at (the
        config's values still win), until `HistorySession.use_model` takes a model's.
        """
        return HistorySession(
            self, report=report if report is not None else Report(), keep_going=keep_going, cache=cache
        )

    async def apply(
        self, messages: Sequence[ModelMessage], plan: Plan, outcomes: Sequence[Outcome], *, scope: str | None = None
    ) -> Compaction:
        """`messages` with the summaries `outcomes` (one per `plan.candidates`) hold, each checked; the originals kept.

        Wherever anything failed (no summary, a check of the rewritten message) the original stays
        and the failure is counted. `scope`: whose originals these are (default: the compactor's
        `scope`, else the conversation's).
        """
        due = plan.candidates
        report = Report(oversized=len(due), returns_examined=plan.returns_examined, skipped=list(plan.skipped))
        accepted: dict[PartRef, Accepted] = {}
        for candidate, outcome in zip(due, outcomes, strict=True):
            _count(report, outcome)
            if outcome.summary is not None:
                accepted[_ref(candidate)] = Accepted(candidate, outcome.summary)
            elif outcome.skipped:
                report.skipped.append(_failure(candidate, outcome.failure or 'not sent'))
            else:
                self._fail(report, candidate, outcome.failure or 'no summary', rejected=outcome.rejected)
        if accepted and self.originals.enabled:
            accepted = await self._remember(
                accepted, report=report, scope=scope or self.scope or conversation_scope(messages)
            )
        output = list(messages)
        for message_index in sorted({ref[0] for ref in accepted}):
            refs = {part for message, part in accepted if message == message_index}
            replaced = _replace_contents(
                messages[message_index], {p: accepted[(message_index, p)].summary for p in refs}
            )
            try:
                check_message(messages[message_index], replaced, message_index, refs)
            except CheckFailed as exc:
                for part in refs:
                    self._fail(report, accepted.pop((message_index, part)).candidate, str(exc), rejected=True)
                continue
            output[message_index] = replaced
        changed = {ref: item.summary for ref, item in accepted.items()}
        # (d), around the replaced messages only; (b) and (c) were checked per message above
        check_integrity(messages, output, changed={ref[0] for ref in accepted})
        for item in accepted.values():
            report.summarized += 1
            report.tokens_after += self.tokenizer(item.text)  # `content_tokens`, of the text written once
        report.tokens_before = sum(candidate.tokens for candidate in due)
        report.tokens_after += sum(candidate.tokens for candidate in due if _ref(candidate) not in accepted)
        return Compaction(messages=output, report=report, changed=changed)

    async def _remember(
        self, accepted: dict[PartRef, Accepted], *, report: Report, scope: str
    ) -> dict[PartRef, Accepted]:
        """Store each original under its final summary, which names the read tool; what the store keeps.

        A return whose original the store refuses (full, unwritable, locked past its timeout) is not
        summarized: it keeps its content, and `report` counts it as failed with the store's reason. A
        summary is never a one-way door while a store is configured, and nothing names a read tool
        that would find nothing.

        The hint goes on string summaries (`with_read_hint`), here rather than in a model, since it is
        true only once the original is stored. Their budget and check left room for it
        (`Summarizer.budget_for`); one a threshold of a few tokens left no room for, or a tokenizer
        counts over a limit with it, goes without it (`_hint_fits`). The store is written in a worker
        thread: a store another process holds locked keeps the write waiting (up to its busy timeout),
        never the event loop.
        """
        final: dict[PartRef, Accepted] = {}
        for ref, item in accepted.items():
            candidate = item.candidate
            hinted = with_read_hint(candidate.text, item.summary)
            hint_fits = isinstance(hinted, str) and self._hint_fits(candidate, hinted)
            final[ref] = dataclasses.replace(item, summary=hinted) if hint_fits else item
        entries = [
            Kept(
                tool_name=item.candidate.tool_name,
                tool_call_id=item.candidate.part.tool_call_id,
                content=item.candidate.content,
                content_text=item.candidate.text,
                summary=item.text,
                scope=scope,
                returned_at=item.candidate.part.timestamp,
            )
            for item in final.values()
        ]
        refused = await anyio.to_thread.run_sync(self.originals.keep, entries)
        if refused is not None:
            for item in accepted.values():
                self._fail(
                    report,
                    item.candidate,
                    f'not summarized: {refused}, so it could not be read back',
                    rejected=False,
                )
            return {}
        return final

    def _hint_fits(self, candidate: Candidate, hinted: str) -> bool:
        """Whether a string summary with the read hint added is still under both of its limits.

        The summary passed `summary_problem` (the shape contract, not empty, smaller and under the
        threshold with room for the hint); adding text to a string keeps its shape and its text, so
        its size is all the hint can make fail, and all that is counted again.
        """
        tokens = self.tokenizer(hinted)
        return tokens < candidate.tokens and tokens < candidate.threshold_tokens

    def _fail(self, report: Report, candidate: Candidate, reason: str, *, rejected: bool) -> None:
        if rejected and self.config.strict:
            raise CheckFailed(f'message {candidate.message_index} part {candidate.part_index}: {reason}')
        report.failed += 1
        report.failures.append(_failure(candidate, reason))


def _ref(candidate: Candidate) -> PartRef:
    return (candidate.message_index, candidate.part_index)


def _message_index(candidate: Candidate) -> int:
    return candidate.message_index


def _failure(candidate: Candidate, reason: str) -> Failure:
    return Failure(
        message_index=candidate.message_index,
        part_index=candidate.part_index,
        tool_name=candidate.tool_name,
        tool_call_id=candidate.part.tool_call_id,
        reason=reason,
    )


def _with_facts_to_keep(
    messages: Sequence[ModelMessage],
    due: Sequence[Candidate],
    *,
    max_tokens: int,
    quoted: bool,
    whole_conversation: bool = False,
    turns: Turns | None = None,
) -> list[Candidate]:
    """`due`, each with the facts of it the conversation holds: earlier turns', and later ones' if `quoted`.

    The facts a turn before a return holds (the task named a function, the return's own call asked
    for a path; a user prompt's names in words, `Turns.named`) are what the agent was after when it
    called the tool; those a later turn quotes (`keep_quoted_facts`) are what it used. Both are kept verbatim, earlier ones first. Turns hold no
    tool returns, so reading them all costs little next to the returns.
    A content over `max_tokens` (`max_content_tokens`) is never sent to the model, so it is not read
    for facts either: scanning a 100 MB log would take seconds for nothing. `turns`: the turns of
    `messages` read already (an agent run's, grown request by request); else they are read here.
    `whole_conversation`: `messages` is a whole stored history (`Candidate.whole_conversation`).
    """
    if not due:
        return []
    if turns is None:
        turns = Turns(messages[: max(candidate.message_index for candidate in due) + 1] if not quoted else messages)
    return [
        dataclasses.replace(
            candidate,
            quoted=(
                *turns.named(candidate.content, message_index=candidate.message_index, json_text=candidate.text),
                *turns.facts(
                    candidate.content, message_index=candidate.message_index, after=quoted, json_text=candidate.text
                ),
            ),
            whole_conversation=whole_conversation,
        )
        if candidate.tokens <= max_tokens
        else candidate
        for candidate in due
    ]


def _count(report: Report, outcome: Outcome) -> None:
    report.cache_hits += outcome.source in ('cache', 'shared')
    report.model_calls += outcome.attempts
    report.retries += max(outcome.attempts - 1, 0)
    report.summarizer_input_tokens += outcome.input_tokens
    report.summarizer_output_tokens += outcome.output_tokens


def _replace_contents(message: ModelMessage, contents: dict[int, JsonValue]) -> ModelMessage:
    assert isinstance(message, ModelRequest)  # only requests hold tool returns
    parts = [
        dataclasses.replace(part, content=contents[index]) if index in contents else part
        for index, part in enumerate(message.parts)
    ]
    return dataclasses.replace(message, parts=parts)


class HistorySession:
    """Incremental compaction of a history that only grows at its end (an agent run).

    It remembers the history it returned last (`_returned.Returned`). When the next one continues it,
    only the new messages are walked, and the last old one again if it was given other parts since
    (pydantic-ai adds parts to a request after the history processors, and sets its `instructions`,
    which are counted again when they changed); a history edited since is walked again from the edit,
    and one that does not continue it (a new run) starts over, which is correct, only slower. Equal
    copies of the messages (a durable run handing the history back) count as the same history.

    Which of the returns that left the `keep_recent` window are rewritten, and when, is the config's
    `policy` (`_policy`): with `cache-aware` (and the originals store on, so that every cut is readable
    back and a summary is known as one in a later run) every return over `policy.min_tokens` is a
    candidate, rewritten once its saving over the run's expected remaining requests repays the prompt
    cache the rewrite breaks; with `threshold`, every return over its threshold as soon as it is due.
    """

    def __init__(
        self, compactor: Compactor, *, report: Report, keep_going: bool = True, cache: CacheModel | None = None
    ) -> None:
        self._compactor = compactor
        self.report = report
        self._keep_going = keep_going
        """When the summarizer's server cannot be reached: go on with the history as it is (an agent run),
        or raise `ServerUnreachable` (a replay, whose figures would otherwise leave the summaries out)."""
        self.messages_walked = 0
        """Messages walked so far: stays proportional to what is new, request after request."""
        self._unreachable: dict[int, tuple[object, Failure]] = {}
        """Returns (by part, held) that an unreachable server kept from being summarized: each is one failure in
        `report` until a later request tries it again."""
        config = compactor.config
        self._cache_aware = config.policy.kind == 'cache-aware' and compactor.originals.enabled
        self.max_prompt_tokens = config.policy.max_prompt_tokens
        """The context ceiling (`_ceiling`): the config's, else the agent's model's (`use_model`)."""
        self._model: str | None = None
        """The model whose terms `use_model` took last (`provider:model`)."""
        self.cache = (cache or CacheModel()).configured(config.policy)
        self._predicted = (0, 0, 0)
        """The last request's prompt as the ledger counted it: tokens, read from the cache, written to it."""
        self._profile: ModelProfile | None = None
        """The agent's model's profile (`use_model`): for `prompt_cache_outlook`."""
        """The cache terms the policy prices rewrites at: the agent's model's (`use_model`), else the defaults."""
        self._tokens = _MessageTokens(compactor.tokenizer)
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()
        """One lock per event loop (an `asyncio.Lock` serves one): requests of runs sharing the session go one at a time."""
        self._restart()

    def _restart(self) -> None:
        self._returned = Returned()
        """The history the last request returned, to tell what the next one changed of it."""
        self._recent: list[int] = []
        """The turns in the `keep_recent` window."""
        self._pending: list[Candidate] = []
        """Candidates not yet summarized, in the order of the history: those due (waiting for a rewrite to
        pay), then those still in the `keep_recent` window (the latest turns' returns)."""
        self._ledger = Ledger(policy=self._compactor.config.policy, cache=self.cache)
        self._tried: set[PartRef] = set()
        """Returns this session sent to the summarizer (summarized or kept): never candidates again."""
        self._saved = 0
        """Tokens this run's rewrites took out of the history."""
        self._summarized: dict[PartRef, Candidate] = {}
        """The returns this run sent to the summarizer, as first found (their originals)."""
        self._changed: set[PartRef] = set()
        """The returns this run's rewrites changed (a summary, a marker): each counted as summarized once."""
        self._turns = Turns(())
        """The turns read so far, for the facts a summary keeps: each read once (at a rewrite), not at every rewrite."""
        self._turns_read = 0
        """Messages `_turns` has read: the ones since are read when a rewrite needs them, not at every request."""
        self._priced: list[Due] = []
        """The first pending returns as the policy prices them (place in the prompt, tokens, summary budget),
        each worked out once it is due (and again if its message is walked again). A rewrite never moves one:
        it takes every due return behind the place it starts at, so those still waiting are all before it."""

    def use_model(self, model: AbstractModel, settings: ModelSettings | None = None) -> None:
        """Take the terms of the agent's model, once per model: its context window and its prompt cache's.

        The ceiling: the config's `max_prompt_tokens`, else the window less the response's `max_tokens`
        (or a tenth of the window), where pydantic-ai knows the window. The cache: the model's prices
        (genai-prices), its minimum prefix, and its retention (what the request's settings ask for,
        else its profile's default), the config's own values in their place. A model genai-prices does
        not know keeps the terms the session has.
        """
        if self._model == model.model_id:
            return
        self._model = model.model_id
        policy = self._compactor.config.policy
        if policy.max_prompt_tokens is None:
            window = model.context_window
            reserve = (settings or {}).get('max_tokens') or (window or 0) // 10
            self.max_prompt_tokens = window - reserve if window and window > reserve else None
        retention = None
        if isinstance(model, Model):
            retention = model.resolve_cache_retention(settings) or model.profile.get('default_cache_retention')
            self._profile = model.profile
        try:
            cache = CacheModel.of(f'{model.system}:{model.model_name}', retention=retention)
        except (LookupError, ValueError) as exc:
            logger.debug('%s: the cache terms the session has are kept (%s)', model.model_id, exc)
            return
        self.cache = self._ledger.cache = cache.configured(policy)

    def billed(self, usage: RequestUsage) -> None:
        """Count what the provider reported of the request just made, beside what the ledger predicted.

        The capability calls it after each model request. A prediction far from the bill (a cache
        read where the ledger expected a write, a provider tokenizer counting otherwise) is logged.
        """
        if not usage.input_tokens:  # the provider reported no usage
            return
        report = self.report
        report.billed_requests += 1
        report.billed_input_tokens += usage.input_tokens
        report.billed_cache_read_tokens += usage.cache_read_tokens
        report.billed_cache_write_tokens += usage.cache_write_tokens
        tokens, cached, written = self._predicted
        logger.debug(
            'request billed %d input tokens, %d read from the cache, %d written; predicted %d, %d and %d',
            usage.input_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            tokens,
            cached,
            written,
        )

    async def process(
        self, messages: list[ModelMessage], *, tracer: Tracer | None = None, scope: str | None = None
    ) -> list[ModelMessage]:
        """`messages` with the returns the policy chooses summarized (see the class's docstring).

        `tracer`: the run's (`RunContext.tracer`), so each summary shows as a span in an instrumented run.
        `scope`: whose originals these are (default: the compactor's, else the conversation's).

        Runs sharing one session (a history processor given to concurrent runs) are served one
        request at a time: a run's request, awaiting its summaries, never sees another run's state
        (its turns, its tried returns, its ledger) change under it. One run at a time never waits.
        """
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        async with lock:
            return await self._process(messages, tracer=tracer, scope=scope)

    async def _process(
        self, messages: list[ModelMessage], *, tracer: Tracer | None, scope: str | None
    ) -> list[ModelMessage]:
        since = self._returned.since(messages, self._pending)
        if since is None:  # a new run, or an edit the session cannot walk again from: correct, only slower
            self._restart()
            since = FROM_SCRATCH
        start = since.start
        config = self._compactor.config
        kept_before = bisect.bisect_left(self._pending, start, key=_message_index)  # those walked again go
        del self._pending[kept_before:], self._priced[kept_before:]
        floor = config.policy.min_tokens if self._cache_aware else None
        found = walk(messages, config=config, tokenizer=self._compactor.tokenizer, start=start, floor_tokens=floor)
        self.messages_walked += len(messages) - start
        # an anchor walked again: its turn may already be the last one counted
        turns = self._recent + [turn for turn in found.turns if not self._recent or turn > self._recent[-1]]
        self._recent = recent_turns(turns, config.keep_recent)
        kept = set(self._recent)
        pending = self._pending
        pending.extend(await self._unsummarized(found.candidates, recorded=start == 0))
        due = len(pending)  # the window's returns are the last pending ones
        while due and pending[due - 1].turn in kept:
            due -= 1
        tokens = self._tokens.update(messages, start=start, changed=since.recount, made=found.texts)
        if start == 0 and len(messages) > 1:  # a run continuing a history: its provider has likely cached it
            self._ledger.assume_sent(tokens - self._tokens.size(len(messages) - 1))
        if self._cold(messages):  # every due return is rewritten now, at no cache penalty
            self._ledger.expire()
        ceiling = self.max_prompt_tokens
        cuts: list[Cut] = []
        extra: list[Candidate] = []
        if ceiling is not None and tokens > ceiling:  # every due return, and the oldest cut as far as it takes
            first = 0
            cuts, extra = self._fit(messages, pending[:due], kept, excess=tokens - math.floor(ceiling * (1 - ROOM)))
        else:  # every due return (the threshold policy), or those from where the policy chooses to start, if anywhere
            first = self._choose(messages, due, tokens=tokens) if self._cache_aware and due else 0
            first = due if first is None else first
        chosen = pending[first:due]
        del pending[first:due], self._priced[first:]
        window = pending[first:]
        waited = len(chosen)
        chosen += extra
        cuts += [Cut.MARKER] * len(extra)
        rewritten_from = None
        self._tried.update(_ref(candidate) for candidate in chosen)
        compacted: Report | None = None
        if chosen:
            self._turns.extend(messages, start=max(self._turns_read - 1, 0))  # the last read again: it may have grown
            self._turns_read = len(messages)
            try:
                compaction = await self._summarize(
                    messages,
                    chosen,
                    cuts=cuts,
                    repeated=_later_copies(window) if config.policy.repeats else {},
                    tracer=tracer,
                    scope=scope,
                )
            except ServerUnreachable as exc:  # an agent run goes on with its history as it is
                if not self._keep_going:
                    raise
                logger.warning('%s: the history is kept as it is; summaries are tried again on the next request', exc)
                self._kept_from(chosen, f'not summarized: {exc}')
                self._tried.difference_update(_ref(candidate) for candidate in chosen)
                pending[first:first] = chosen[:waited]  # where they were: priced again when next due
                rewritten_from = None
            else:
                self._kept_from(chosen, None)
                compacted = compaction.report
                self._count_once([candidate for candidate in extra if _ref(candidate) in self._summarized], compaction)
                for candidate in chosen:  # each original, for a marker in its place if the ceiling needs one later
                    self._summarized.setdefault(_ref(candidate), candidate)
                changed = sorted(compaction.changed)
                rewritten_from = self._tokens.positions(messages, changed[:1])[0] if changed else None
                messages = compaction.messages
                self._saved += compacted.tokens_before - compacted.tokens_after
                tokens = self._tokens.update(
                    messages, start=len(messages), changed={ref[0] for ref in compaction.changed}
                )
        usage = self._ledger.record(tokens=tokens, saved=self._saved, rewritten_from=rewritten_from)
        total = self.report  # added to in place: a request adds a few numbers, not a `Report` of its own
        if compacted is not None:
            total.add(compacted)
        total.returns_examined += found.returns_seen - since.recounted
        total.requests += 1
        if ceiling is not None and tokens > ceiling:
            total.over_ceiling += 1
            logger.warning(
                'a prompt of %d tokens goes out over max_prompt_tokens (%d): what no summary can cut exceeds it',
                tokens,
                ceiling,
            )
        (sent, cached, written), (uncompacted, uncompacted_cached, uncompacted_written) = usage.sent, usage.uncompacted
        total.prompt_tokens += sent
        total.prompt_cached_tokens += cached
        total.prompt_written_tokens += written
        total.uncompacted_prompt_tokens += uncompacted
        total.uncompacted_cached_tokens += uncompacted_cached
        total.uncompacted_written_tokens += uncompacted_written
        total.rewrite_written_tokens += usage.rewrite_written
        self._predicted = usage.sent
        self._returned.record(messages)
        return messages

    def _count_once(self, again: Sequence[Candidate], compaction: Compaction) -> None:
        """Count each return once in the run's report, when `again` (tried earlier in the run) was cut to a marker now.

        It counted as oversized when first tried, and its original's tokens then; now only what the marker
        takes off what stood in the prompt (its `tokens`: the summary, or the original a failed try kept)
        counts. It counts as summarized once: now, if its first try failed.
        """
        total, changed = self.report, self._changed
        for candidate in again:
            ref = _ref(candidate)
            total.oversized -= 1
            total.tokens_before -= candidate.tokens
            total.tokens_after -= candidate.tokens
            if ref in changed and ref in compaction.changed:
                total.summarized -= 1
        changed.update(compaction.changed)

    def _kept_from(self, tried: list[Candidate], reason: str | None) -> None:
        """Count each of `tried` as failed for `reason`, once; None: tried again, so its failure is taken back.

        A try after the server came back counts its own summary or failure.
        """
        report = self.report
        for candidate in tried:
            key = id(candidate.part)
            if reason is not None and key not in self._unreachable:
                self._unreachable[key] = (candidate.part, _failure(candidate, reason))
                report.failed += 1
                report.failures.append(self._unreachable[key][1])
            elif reason is None and (entry := self._unreachable.pop(key, None)) is not None:
                report.failed -= 1
                report.failures.remove(entry[1])

    async def _summarize(
        self,
        messages: list[ModelMessage],
        chosen: list[Candidate],
        *,
        cuts: Sequence[Cut],
        repeated: Mapping[_Repeat, str],
        tracer: Tracer | None,
        scope: str | None,
    ) -> Compaction:
        """Summarize `chosen` (a span each on `tracer`), each with the facts of it the run's turns hold, and apply.

        `cuts`: how far to cut each of the first ones, for the context ceiling (the others get their summary).
        A brief summary is a summary under a smaller threshold; a marker is made here, and checked as a summary is.
        `repeated`: the outputs that stay whole in the prompt after this rewrite (`_later_copies`): one of
        `chosen` that a later call of its tool with its arguments returned again becomes a marker naming
        that call, where the marker passes the checks.
        """
        compactor = self._compactor
        brief = compactor.config.min_summary_tokens + read_hint_tokens(compactor.tokenizer) + 2
        markers: dict[int, Outcome] = {}
        asked: list[Candidate] = []
        for index, candidate in enumerate(chosen):
            cut = cuts[index] if index < len(cuts) else Cut.SUMMARY
            later = repeated.get(_repeat(candidate)) if candidate.call_args else None
            later = None if later == candidate.part.tool_call_id else later  # ids reused: it would name itself
            pointer = marker(candidate.content, repeated_by=later) if later is not None else None
            outcome = self._marker_outcome(candidate, pointer) if pointer is not None else None
            if outcome is not None and outcome.summary is not None:
                markers[index] = outcome
                continue
            stand_in = marker(candidate.content) if cut is Cut.MARKER else None
            if stand_in is not None:
                markers[index] = self._marker_outcome(candidate, stand_in)
                continue
            small = cut is not Cut.SUMMARY and brief < candidate.threshold_tokens
            asked.append(dataclasses.replace(candidate, threshold_tokens=brief) if small else candidate)
        asked = _with_facts_to_keep(
            messages,
            asked,
            max_tokens=compactor.config.max_content_tokens,
            quoted=compactor.config.keep_quoted_facts,
            turns=self._turns,
        )
        answers = iter(await compactor.answers.answer(asked, tracer=tracer))
        asked_candidates = iter(asked)
        candidates = [chosen[index] if index in markers else next(asked_candidates) for index in range(len(chosen))]
        outcomes = [markers[index] if index in markers else next(answers) for index in range(len(chosen))]
        return await compactor.apply(messages, Plan(candidates=candidates), outcomes, scope=scope)

    def _cold(self, messages: list[ModelMessage]) -> bool:
        """Whether the provider's cache has expired since the last response (`prompt_cache_outlook`).

        Measured to the newest request's timestamp (pydantic-ai stamps it as the run makes it; a replay
        has it recorded), against the cache's retention, or the model profile's where the terms have none.
        """
        last = messages[-1] if messages else None
        if not isinstance(last, ModelRequest) or (self.cache.retention is None and self._profile is None):
            return False
        outlook = prompt_cache_outlook(
            messages, profile=self._profile, retention=self.cache.retention, now=last.timestamp
        )
        return outlook == 'cold'

    def _marker_outcome(self, candidate: Candidate, stand_in: str) -> Outcome:
        """A marker as a summary's outcome: checked against its original as every summary is."""
        tokenizer = self._compactor.tokenizer
        problem = summary_problem(
            candidate.content,
            stand_in,
            original_tokens=candidate.tokens,
            threshold_tokens=candidate.threshold_tokens,
            tokenizer=tokenizer,
            room=read_hint_tokens(tokenizer),
        )
        if problem is not None:
            return Outcome(failure=problem, rejected=True)
        return Outcome(summary=stand_in)

    def _fit(
        self, messages: list[ModelMessage], due: Sequence[Candidate], kept: set[int], *, excess: int
    ) -> tuple[list[Cut], list[Candidate]]:
        """How far to cut each due return (`_ceiling.fit`) to take `excess` tokens out of the prompt, and what else.

        When every due return cut to the bone is not enough, the oldest other returns outside the window
        become markers too, oldest first: summaries made earlier in the run (from the originals they
        replaced) and returns too small to summarize (`_marker_candidates`).
        """
        summarizer, tokenizer = self._compactor.summarizer, self._compactor.tokenizer
        brief = self._compactor.config.min_summary_tokens + read_hint_tokens(tokenizer) + 2
        removals: list[tuple[int, int, int]] = []
        for candidate in due:
            summary = max(candidate.tokens - summarizer.budget_for(candidate), 0)
            small = dataclasses.replace(candidate, threshold_tokens=min(brief, candidate.threshold_tokens))
            short = max(candidate.tokens - summarizer.budget_for(small), summary)
            removals.append((summary, short, max(self._marker_removal(candidate), short)))
        cuts, removed = fit(removals, excess=excess)
        extra: list[Candidate] = []
        if removed < excess:
            waiting = {_ref(candidate) for candidate in due}
            for candidate in self._marker_candidates(messages, kept):
                if removed >= excess:
                    break
                if _ref(candidate) not in waiting and (gain := self._marker_removal(candidate)) > 0:
                    extra.append(candidate)
                    removed += gain
        return cuts, extra

    def _marker_removal(self, candidate: Candidate) -> int:
        """What a marker in place of `candidate` takes out of the prompt (0 where it can have none)."""
        stand_in = marker(candidate.content)
        if stand_in is None:
            return 0
        return candidate.tokens - content_tokens(with_read_hint(candidate.text, stand_in), self._compactor.tokenizer)

    def _marker_candidates(self, messages: list[ModelMessage], kept: set[int]) -> list[Candidate]:
        """Every return outside the `keep_recent` window a marker could stand for, oldest first.

        A whole walk, made only when the due returns cannot bring a prompt under the ceiling. A summary
        this run made stands for its original (its `tokens` those of the summary now in the prompt); a
        summary made elsewhere is left alone, as its original is not at hand.
        """
        config, tokenizer = self._compactor.config, self._compactor.tokenizer
        found = walk(messages, config=config, tokenizer=tokenizer, floor_tokens=MARKER_FLOOR)
        candidates: list[Candidate] = []
        for candidate in found.candidates:
            if candidate.turn in kept:
                continue
            original = self._summarized.get(_ref(candidate))
            if original is not None:
                candidates.append(dataclasses.replace(original, tokens=candidate.tokens))
            elif not holds_omission_marker(candidate.text):
                candidates.append(candidate)
        return candidates

    async def _unsummarized(self, candidates: list[Candidate], *, recorded: bool) -> list[Candidate]:
        """`candidates` less those already tried, and less the summaries an earlier run or another store made.

        The last message walked may be walked again (given new parts), and with the cache-aware policy
        its summaries may be over `min_tokens`. A summary under its threshold that holds an omission
        marker is one, wherever it was made; `recorded`: also look the candidates up in the store (a
        history walked whole, which may hold an earlier run's summaries), in a worker thread as the store
        may wait for a lock. The threshold policy needs neither: every summary is under its threshold.
        """
        candidates = [candidate for candidate in candidates if _ref(candidate) not in self._tried]
        if not self._cache_aware:
            return candidates
        store, config = self._compactor.originals, self._compactor.config
        candidates = [
            candidate
            for candidate in candidates
            if not (
                candidate.tokens <= config.threshold_for(candidate.tool_name) and holds_omission_marker(candidate.text)
            )
        ]
        if not recorded or not candidates:
            return candidates

        def unrecorded() -> list[Candidate]:
            return [c for c in candidates if not store.is_summary(c.part.tool_call_id, c.text)]

        return await anyio.to_thread.run_sync(unrecorded)

    def _choose(self, messages: list[ModelMessage], due: int, *, tokens: int) -> int | None:
        """Where to start rewriting the first `due` pending returns (`_policy.Ledger.choose`), or None for nowhere.

        Only the returns that became due since the last request (or whose message was walked again) are
        priced now; the others keep their price (`_priced`).
        """
        priced, fresh = self._priced, self._pending[len(self._priced) : due]
        if fresh:
            budget_for, refs = self._compactor.summarizer.budget_for, [_ref(candidate) for candidate in fresh]
            for candidate, position in zip(fresh, self._tokens.positions(messages, refs)):
                priced.append(Due(position=position, tokens=candidate.tokens, budget=budget_for(candidate)))
        return self._ledger.choose(priced, tokens=tokens, saved=self._saved)


_Repeat = tuple[str, str, str]
"""What makes a tool return a repeat of another: its tool, its call's arguments and its output (JSON text)."""


def _repeat(candidate: Candidate) -> _Repeat:
    return candidate.tool_name, candidate.call_args, candidate.text


def _later_copies(window: Sequence[Candidate]) -> dict[_Repeat, str]:
    """The string outputs of `window` (returns waiting in the `keep_recent` window), each with the id of its latest call.

    Only these stay whole in the prompt after a rewrite: a due return is rewritten with every due
    return behind it, or waits before them. A list or an object has no one-line marker (`marker`).
    """
    return {
        _repeat(candidate): candidate.part.tool_call_id
        for candidate in window
        if isinstance(candidate.content, str) and _CALL_ID.fullmatch(candidate.part.tool_call_id)
    }


_CALL_ID = re.compile(REPEAT_CALL_ID)


class _MessageTokens:
    """Tokens of what a model reads of each message of a run's history (`_tokens.message_texts`), block by block.

    Kept per position and counted again only where the history changed (the messages from the last one
    walked on, and the ones a rewrite replaced), with the running totals before each message, so a
    request costs in proportion to what changed, not to the history's length.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._blocks: list[list[int]] = []
        """Per message: its instructions' tokens (a request's, if any), then each part's."""
        self._sizes: list[int] = []
        self._before: list[int] = [0]
        """Tokens before each message, and (last) in all."""

    def update(
        self,
        messages: Sequence[ModelMessage],
        *,
        start: int,
        changed: Iterable[int] = (),
        made: Mapping[int, Mapping[int, str]] | None = None,
    ) -> int:
        """Count `messages[start:]` and the messages at `changed` anew; the history's total.

        `made`: texts of parts already made (`Walk.texts`), by message and part index.
        """
        del self._blocks[start:], self._sizes[start:]
        changed = list(changed)
        for index in [*changed, *range(start, len(messages))]:
            texts = message_texts(messages[index], made=made.get(index) if made else None)
            blocks = [self._tokenizer(text) for text in texts]
            if index < len(self._blocks):
                self._blocks[index], self._sizes[index] = blocks, sum(blocks)
            else:
                self._blocks.append(blocks)
                self._sizes.append(sum(blocks))
        low = min([start, *changed])
        before = self._before
        del before[low + 1 :]
        for size in self._sizes[low:]:
            before.append(before[-1] + size)
        return before[-1]

    def size(self, index: int) -> int:
        """The tokens of the message at `index`, as last counted."""
        return self._sizes[index]

    def positions(self, messages: Sequence[ModelMessage], refs: Sequence[PartRef]) -> list[int]:
        """Tokens before each referenced part."""
        before = self._before
        positions: list[int] = []
        for message_index, part_index in refs:
            blocks = self._blocks[message_index]
            offset = len(blocks) - len(messages[message_index].parts)  # the instructions' block
            positions.append(before[message_index] + sum(blocks[: offset + part_index]))
        return positions
