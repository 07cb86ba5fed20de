"""`summarizer batch --provider-batch`: the run's summaries through the provider's batch API, at about half price.

A batch answers in minutes to hours, so the run is split where `summarizer.engines.ray` splits it, around the model:

1. **plan**: every history is read, once (each kept in a private spool file for step 4: `engines._spool`),
   and walked as for compaction, but its summarizer only records the cache key and candidate of each
   content it would summarize, so each unique content is sent once, and a cache hit never;
2. **submit**: each unique content's request (the very request a live call sends: `Summarizer.request_for`)
   goes through the model `BatchModelRequests` (pydantic-ai's batch capability) wraps, which groups
   them into batches. Each request comes back as a pending response: pydantic-ai's own serializable ticket
   naming the batch. Those go into the run's journal, one line per batch, as soon as the batch exists;
3. **collect**: each pending response is sent back through the batched model, which checks on its batch
   (one check per batch and interval, shared), reads and decodes its result, and submits a request again
   after expiry or a transient failure (`max_resubmissions`), exactly as for an agent run. A result is read
   with the same structured-output parsing and checks as a live answer, and cached;
4. **compact**: the histories, read back from the spool rather than from their sources, are compacted by
   `run_sources` (`Spool.compact`) with a summarizer answering from those results (and the cache): the
   same splicing, post-check, writes and journal as a live run. Each write is a compare-and-swap against
   what step 1 read: a history changed since is left as the other program made it, and reported.

`--resume` re-attaches: the journal's pending responses of contents still to summarize are collected, not
submitted again. A request whose result was read is marked settled: a failed one is submitted again by a later
run (a live rerun calls again too), a summarized one is in the cache by then; one whose batch could not be reached
stays pending for the next `--resume`, and a run without `--resume` is refused while any is.

`--dry-run` stops after the plan: it says what it would submit (requests, estimated tokens and price) and
compacts with each such content reported as skipped; nothing is uploaded, submitted, collected or journaled.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import cast

from opentelemetry.trace import Tracer
from pydantic import TypeAdapter, ValidationError
from pydantic_ai.capabilities import BatchModelRequests
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.models.batch import BatchRequest
from pydantic_ai.usage import RequestUsage

from ..core import SummarizerConfig, remove_temporaries
from ..pipeline import (
    Candidate,
    Compactor,
    ModelBuildError,
    OriginalStore,
    Outcome,
    Summarizer,
    SummaryFailed,
    SummaryRequest,
    cache_folder,
    describe,
    is_deterministic,
    is_transient,
    model_id,
)
from ._runner import Journal, OnTick, SourceReport
from ._sources import Source, Target
from ._spool import Spool

OnNote = Callable[[str], None]
_PENDING = TypeAdapter(ModelResponse)
_SUBMIT_WAIT = timedelta(seconds=1)
"""How long the pool waits for more requests before submitting a batch that is not full: all of a run's requests
are queued at once, and a resubmission after a batch ends waits for the others of that batch."""
_WOULD_SUBMIT = 'dry run: would be submitted in a provider batch'
_SUBMITTED_BEFORE = 'dry run: in a provider batch an earlier run submitted (--resume collects it)'


class NoBatchApi(ModelBuildError):
    """`--provider-batch` with a model that has no provider batch API."""


def check_batchable(model: Model) -> None:
    """Refuse a model without a provider batch API, in one line.

    The embedded model is a `FunctionModel`, which pydantic-ai gives an in-memory batch API for tests; it
    is refused too, as it runs here, for free, with nothing to wait for or to resume.
    """
    if is_deterministic(model) or model.batch_max_requests is None:
        raise NoBatchApi(
            f'model {model.model_name!r} ({model.system}) has no provider batch API: --provider-batch needs '
            'openai:, anthropic: or google: models (the embedded model runs locally at no cost)'
        )


def run_provider_batch(
    sources: list[Source],
    *,
    config: SummarizerConfig,
    target: Target,
    journal: Journal,
    on_tick: OnTick,
    on_note: OnNote,
    model: Model | None = None,
) -> tuple[list[SourceReport], ProviderBatchReport]:
    """`run_batch` with the summaries made by the provider's batch API, in this process (`model`: a test's)."""
    summarizer = Summarizer.from_config(config, model=model)
    check_batchable(summarizer.model)
    if not target.dry_run:  # a killed run's unfinished writes of the outputs about to be written
        remove_temporaries([path for source in sources for path in source.temporaries(target)])
    try:
        with Spool.of_run(cache_folder(config.cache.resolved_directory())) as spool:
            planned = _plan(sources, summarizer, spool, target)
            answers, batch = asyncio.run(
                _summarize_in_batches(planned, summarizer, journal, on_note, dry_run=target.dry_run)
            )
            compactor = Compactor(config=config, summarizer=summarizer, answers=_BatchAnswers(summarizer, answers))
            reports = asyncio.run(
                spool.compact(sources, compactor=compactor, target=target, journal=journal, on_tick=on_tick)
            )
        return reports, batch
    finally:
        summarizer.cache.close()


@dataclass(frozen=True, kw_only=True)
class ProviderBatchReport:
    """The provider batch side of a run, for the `--report` JSON's `provider_batch` (docs/scale.md).

    Run-wide rather than per source: a request serves every history holding its content. In a dry run,
    `requests`, the tokens and the price are what the run would submit, estimated from the requests.
    """

    dry_run: bool
    model: str
    unique_contents: int = 0
    in_cache: int = 0
    too_large: int = 0
    """Contents over `max_content_tokens`: never sent, each kept whole and reported by the compaction."""
    re_attached: int = 0
    requests: int = 0
    """Requests submitted in this run (resubmissions not counted); a dry run: that it would submit."""
    summarized: int = 0
    failed: int = 0
    input_tokens: int = 0
    """The usage of the results read in this run; a dry run: the requests' estimated tokens and summary budgets."""
    output_tokens: int = 0
    price: _Price | None = None
    """genai-prices' price of that usage; None when no result was priced (a model it does not know, none read)."""

    def as_json(self) -> dict[str, object]:
        fields = {item.name: getattr(self, item.name) for item in dataclasses.fields(self) if item.name != 'price'}
        price = None if self.price is None else {'batch': float(self.price.batch), 'live': float(self.price.live)}
        return {**fields, 'price_usd': price}


@dataclass(frozen=True)
class _Price:
    """One result's price in dollars: what it cost in the batch, and what the same usage costs live."""

    batch: Decimal
    live: Decimal

    @classmethod
    def total(cls, prices: list[_Price | None]) -> _Price | None:
        """The sum of the known prices; None when none is known."""
        known = [price for price in prices if price is not None]
        if not known:
            return None
        return cls(batch=sum((p.batch for p in known), Decimal(0)), live=sum((p.live for p in known), Decimal(0)))

    @classmethod
    def of(cls, response: ModelResponse) -> _Price | None:
        """genai-prices' price of a batch result (pydantic-ai marks it `processing: batch`), and the live one."""
        live = dataclasses.replace(
            response,
            provider_details={k: v for k, v in (response.provider_details or {}).items() if k != 'processing'},
        )
        try:
            return cls(batch=response.cost().total_price, live=live.cost().total_price)
        except (LookupError, ValueError, AssertionError):  # a model genai-prices does not know, or no usage
            return None


@dataclass
class _BatchAnswers:
    """The `AnswerSource` of the compaction: each content's answer from the batch results or the cache, never a live call."""

    summarizer: Summarizer
    answers: dict[str, Outcome] = field(default_factory=dict[str, Outcome])
    _charged: set[str] = field(default_factory=set[str], init=False)
    """Keys whose request was counted: the first history to use a result is charged its call, the others share it."""

    async def answer(self, candidates: Sequence[Candidate], *, tracer: Tracer | None = None) -> list[Outcome]:
        return [await self._one(candidate) for candidate in candidates]

    async def _one(self, candidate: Candidate) -> Outcome:
        if candidate.tokens > self.summarizer.config.max_content_tokens:
            return await self.summarizer.summarize(candidate)  # reported as never sent, without a call
        key = self.summarizer.key_for(candidate)
        answer = self.answers.get(key)
        if answer is None:
            cached = self.summarizer.cached(candidate, key)
            if cached is not None:
                return Outcome(summary=cached, source='cache')
            # the plan found it cached, the compaction (of the very text planned) no more: evicted meanwhile
            return Outcome(failure='not in the provider batch: its cached summary was gone by the compaction')
        first = key not in self._charged
        self._charged.add(key)
        return answer if first else answer.shared()


async def _summarize_in_batches(
    planned: dict[str, Candidate], summarizer: Summarizer, journal: Journal, on_note: OnNote, *, dry_run: bool
) -> tuple[dict[str, Outcome], ProviderBatchReport]:
    """Submit (or re-attach), collect: every unique content `planned`'s answer by cache key, results in the cache.

    A dry run stops after the plan: each content to summarize is answered `skipped`, and nothing reaches the
    provider (no upload, no batch, no check on an earlier run's batch, which could resubmit) or the journal.
    """
    config = summarizer.config
    todo: dict[str, Candidate] = {}
    too_large = 0
    for key, candidate in planned.items():
        if candidate.tokens > config.max_content_tokens:
            too_large += 1  # never sent; the compaction reports it
        elif summarizer.cached(candidate, key) is None:
            todo[key] = candidate
    model = model_id(summarizer.model)
    report = ProviderBatchReport(
        dry_run=dry_run,
        model=model,
        unique_contents=len(planned),
        in_cache=len(planned) - too_large - len(todo),
        too_large=too_large,
    )
    larger = f', {too_large:,} over max_content_tokens (never sent)' if too_large else ''
    if not todo:
        on_note(
            f'provider batch: {len(planned):,} unique contents, {report.in_cache:,} in the cache{larger}: '
            'nothing to submit'
        )
        return {}, report
    requests = {key: summarizer.request_for(candidate) for key, candidate in todo.items()}
    pending: dict[str, ModelResponse | Outcome] = {}
    for key in todo:
        stored = _restored(journal.submitted.get(key))
        if stored is not None and await _waits_on(summarizer.model, stored, requests[key]):
            pending[key] = stored
    fresh = {key: request for key, request in requests.items() if key not in pending}
    report = dataclasses.replace(report, re_attached=len(pending), requests=len(fresh))
    counts = f'provider batch: {len(planned):,} unique contents, {report.in_cache:,} in the cache{larger}, '
    if dry_run:
        report = _estimate(report, summarizer, {key: todo[key] for key in fresh}, fresh)
        price = '' if report.price is None else f', about {_dollars(report.price.batch)} at batch prices'
        on_note(
            f'{counts}{len(pending):,} in batches an earlier run submitted, {len(fresh):,} requests to submit to '
            f'{model}: about {report.input_tokens:,} input and {report.output_tokens:,} output tokens{price} '
            '(dry run: nothing submitted)'
        )
        skipped = {
            key: Outcome(failure=_SUBMITTED_BEFORE if key in pending else _WOULD_SUBMIT, skipped=True) for key in todo
        }
        return skipped, report
    on_note(f'{counts}{len(pending):,} re-attached from the journal, {len(fresh):,} to submit to {model}')
    batching = config.provider_batch
    capability = BatchModelRequests(
        max_requests=batching.max_requests,
        max_wait=_SUBMIT_WAIT,
        max_resubmissions=batching.max_resubmissions,
        poll_interval=timedelta(seconds=batching.poll_seconds),
        max_poll_interval=timedelta(seconds=batching.max_poll_seconds),
    )
    batched = capability.get_wrapper_model(summarizer.model)
    assert batched is not None  # not batched already: `check_batchable` passed a provider's own model
    collector = _Collector(batched=batched, summarizer=summarizer, journal=journal, on_note=on_note)
    try:
        async with capability:  # on the way out, cancels what is still queued or checking (never a submitted batch)
            pending.update(await collector.submit(fresh))
            results = await asyncio.gather(
                *(collector.collect(key, todo[key], requests[key], waiting) for key, waiting in pending.items())
            )
    finally:
        summarizer.cache.flush()  # every result read is cached before anything is written
    if collector.settled:
        journal.record_settled(collector.settled)
    answers = [answer for answer, _ in results]
    summarized = sum(answer.summary is not None for answer in answers)
    report = dataclasses.replace(
        report,
        summarized=summarized,
        failed=len(answers) - summarized,
        input_tokens=sum(answer.input_tokens for answer in answers),
        output_tokens=sum(answer.output_tokens for answer in answers),
        price=_Price.total([price for _, price in results]),
    )
    cost = (
        ''
        if report.price is None
        else (f', {_dollars(report.price.batch)} at batch prices ({_dollars(report.price.live)} live, genai-prices)')
    )
    on_note(f'provider batch: {summarized:,} of {len(answers):,} summarized{cost}')
    return dict(zip(pending, answers, strict=True)), report


def _estimate(
    report: ProviderBatchReport,
    summarizer: Summarizer,
    candidates: dict[str, Candidate],
    requests: dict[str, SummaryRequest],
) -> ProviderBatchReport:
    """`report` with the tokens and price of `requests`, estimated: their prompts' text, and each summary's budget.

    The tokenizer's estimate, not the provider's count (the output schema is not counted, and an answer may
    take less than its budget): an order of magnitude to decide on, not the bill.
    """
    tokens = summarizer.tokenizer
    input_tokens = sum(
        tokens(part.content)
        for request in requests.values()
        for message in request.messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, SystemPromptPart | UserPromptPart) and isinstance(part.content, str)
    )
    output_tokens = sum(summarizer.budget_for(candidate) for candidate in candidates.values())
    model = summarizer.model
    usage = ModelResponse(
        parts=[],
        usage=RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens),
        model_name=model.model_name,
        provider_name=model.system,
        provider_url=model.base_url,
        provider_details={'processing': 'batch'},
    )
    return dataclasses.replace(report, input_tokens=input_tokens, output_tokens=output_tokens, price=_Price.of(usage))


def _dollars(value: Decimal) -> str:
    return f'${value:,.2f}' if value >= 1 else f'${value:.6f}'


def _plan(sources: list[Source], summarizer: Summarizer, spool: Spool, target: Target) -> dict[str, Candidate]:
    """Each unique content the compaction of `sources` will ask for, by cache key (first candidate seen).

    Each source is read here, for `target`, into `spool`, the compaction's only read of it: a source that
    cannot be read is reported by the compaction, bad input too.
    """
    compactor = Compactor(config=summarizer.config, summarizer=summarizer, originals=OriginalStore.disabled())
    planned: dict[str, Candidate] = {}
    for source in sources:
        for unit in spool.read(source, target):
            for candidate in unit.plan(compactor):
                planned.setdefault(summarizer.key_for(candidate), candidate)
    return planned


def _restored(stored: object) -> ModelResponse | None:
    """A journaled pending response, or None if it cannot be read (the content is then submitted again)."""
    if stored is None:
        return None
    try:
        return _PENDING.validate_python(stored)
    except ValidationError:
        return None


async def _waits_on(model: Model, pending: ModelResponse, request: SummaryRequest) -> bool:
    """Whether a journaled pending response waits on the result of `request`, not of another content's request.

    pydantic-ai names a request in its batch by a hash of the request's encoded body (the custom id ending
    `batch:<batch id>:<custom id>`, suffixed `-N` for a repeat), and the provider returns each result under
    its custom id: an entry the journal holds under another content's key (edited, or mixed up) names
    another body, so that content is submitted again rather than given another content's summary.
    """
    try:
        encoded = await model.batch_encode(
            BatchRequest(
                custom_id='',
                messages=request.messages,
                model_settings=request.settings,
                model_request_parameters=request.parameters,
            )
        )
    except Exception:  # noqa: BLE001 - not encodable now: submitting it again reports why
        return False
    custom_id = (pending.provider_response_id or '').rsplit(':', 1)[-1]
    return custom_id.split('-')[0] == hashlib.sha256(encoded.body.encode()).hexdigest()[:32]


def _batch_id(response: ModelResponse) -> str:
    """The provider's batch id of a pending response (`batch:<id>:<custom id>`), for the journal and notes."""
    parts = (response.provider_response_id or '').split(':')
    return parts[1] if len(parts) >= 3 else '?'


def _unreachable(error: BaseException) -> bool:
    """Whether checking on a batch failed (after pydantic-ai's tolerance of 3 failed checks), not the request.

    A transient error with a status or a connection behind it. pydantic-ai reports a request the batch ended
    without running (expired, cancelled, missing), after its resubmissions, as a plain `ModelAPIError`: that is
    the request's outcome, not a failure to reach the batch.
    """
    return is_transient(error) and type(error) is not ModelAPIError


def _resubmissions(response: ModelResponse) -> int:
    """How often pydantic-ai submitted the request again before this result (`provider_details['batch']`)."""
    ticket = (response.provider_details or {}).get('batch')
    count = cast('dict[str, object]', ticket).get('resubmissions') if isinstance(ticket, dict) else None
    return count if isinstance(count, int) else 0


def _dumped(response: ModelResponse) -> object:
    return _PENDING.dump_python(response, mode='json')


@dataclass
class _Collector:
    """Submits and collects through the model `BatchModelRequests` wraps, journaling every batch a request is in."""

    batched: Model
    summarizer: Summarizer
    journal: Journal
    on_note: OnNote
    settled: list[str] = field(default_factory=list[str])
    """Keys whose result was read (summarized, or failed: the next run submits those again), journaled as settled."""

    async def submit(self, requests: dict[str, SummaryRequest]) -> dict[str, ModelResponse | Outcome]:
        """Queue every request at once; journal each batch's pending responses as soon as the batch exists."""
        tasks = {
            asyncio.ensure_future(self.batched.request(request.messages, request.settings, request.parameters)): key
            for key, request in requests.items()
        }
        submitted: dict[str, ModelResponse | Outcome] = {}
        waiting = set(tasks)
        while waiting:
            done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            batches: dict[str, dict[str, object]] = {}
            for task in done:
                key = tasks[task]
                error = task.exception()
                if error is not None:  # the batch was not created (refused, unreachable): nothing to collect
                    submitted[key] = Outcome(failure=f'not submitted: {describe(error)}', source='model')
                    continue
                response = task.result()
                submitted[key] = response
                batches.setdefault(_batch_id(response), {})[key] = _dumped(response)
            for batch_id, entries in batches.items():
                self.journal.record_submitted(batch_id, entries)
                self.on_note(
                    f'provider batch: submitted {batch_id} ({len(entries):,} requests), journaled: '
                    'a stopped run resumed with --resume collects it'
                )
        return submitted

    async def collect(
        self, key: str, candidate: Candidate, request: SummaryRequest, waiting: ModelResponse | Outcome
    ) -> tuple[Outcome, _Price | None]:
        """Wait for one request's result (resubmitted as pydantic-ai decides), read and check it, cache it.

        With what the result cost at batch prices, and would have cost live (None: no result, or the model is not priced).
        """
        if isinstance(waiting, Outcome):
            return waiting, None
        messages: list[ModelMessage] = [*request.messages, waiting]
        try:
            while True:
                response = await self.batched.request(messages, request.settings, request.parameters)
                if response.state != 'suspended':
                    break
                if response.provider_response_id != waiting.provider_response_id:  # submitted again, in a new batch
                    self.journal.record_submitted(_batch_id(response), {key: _dumped(response)})
                    self.on_note(f'provider batch: resubmitted a request in {_batch_id(response)}')
                waiting = response
                messages[-1] = response
                await asyncio.sleep(self.batched.continuation_delay(response) or 0)
        except Exception as exc:  # noqa: BLE001 - any failure keeps the original; it is reported
            if _unreachable(exc):  # the batch could not be checked: it keeps running, the next --resume collects it
                return Outcome(
                    failure=f'{describe(exc)}; still pending: --resume collects it', source='model', attempts=1
                ), None
            self.settled.append(key)  # a later run submits it again, as a live rerun would call again
            return Outcome(failure=describe(exc), source='model', attempts=1), None
        answer = Outcome(
            source='model',
            attempts=1 + _resubmissions(response),
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens,
        )
        price = _Price.of(response)
        try:
            answer.summary = self.summarizer.summary_from(candidate, response)
        except SummaryFailed as exc:
            answer.failure, answer.rejected = str(exc), True
        except Exception as exc:  # noqa: BLE001 - any failure keeps the original; it is reported
            answer.failure = describe(exc)
        else:
            self.summarizer.cache.stage(self.summarizer.key_for(candidate), answer.summary)
        self.settled.append(key)  # a summary is cached before the journal says so (`flush` first): nothing left pending
        return answer, price
