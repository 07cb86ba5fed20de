"""Step 2 of the pipeline: turn one oversized content into a summary, or say why not.

One model request per content (through pydantic-ai's direct `model_request`, so any `Model` works,
the embedded one included), asking for structured output whose schema is derived from the content's
shape. Around it: the disk cache, single-flight for identical contents in flight, a concurrency
bound, a per-call timeout and tenacity retries on transient errors only. Every failure ends in an
`Outcome` with `summary=None`: the caller keeps the original.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import math
import os
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import tenacity
from opentelemetry.trace import INVALID_SPAN, NoOpTracer, Span, StatusCode, Tracer
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelConnectionError,
    ModelHTTPError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelRequestTimeout,
    ModelServerError,
    ModelUnavailableError,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from ..core import (
    JsonValue,
    SummarizerConfig,
    Tokenizer,
    content_tokens,
    estimate_tokens,
    redact,
    schema_of,
    structure_of,
    url_secrets,
)
from ._cache import SummaryCache, cache_key
from ._check import summary_problem
from ._models import SUMMARY_KEY, EmbeddedModel, EmbeddedRequest, is_deterministic, model_id, resolve_model
from ._originals import read_hint_tokens
from ._prompts import PromptBook
from ._servers import context_window, streams
from ._walk import Candidate

logger = logging.getLogger(__name__)

_OUTPUT_TOOL = 'final_summary'
MODEL_TOKENS_PER_ESTIMATE = 2
"""A model's own tokens per estimated token, at most: real tokenizers count JSON, digits and code at up to
about twice the offline estimate (Gemma 3's, on the dev corpus's tool returns as the prompt sends them:
1.3 at the median, 2.2 at the 99th percentile)."""
_WRAPPER_TOKENS = 16
"""What a structured answer spends around its summary (`{"summary": ...}`, a tool call's name)."""

_EDGE_BLANK_LINES = re.compile(r'\A(?:[ \t\r]*\n)+|(?:\n[ \t\r]*)+\Z|\A[ \t\r]+\Z')
"""Blank lines around a text answer, which models add; a line with text keeps every space it has."""
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_TYPES = (
    ModelRateLimitError,
    ModelUnavailableError,
    ModelServerError,
    ModelConnectionError,
    ModelRequestTimeout,
    TimeoutError,
    ConnectionError,
)


@dataclass(kw_only=True)
class Outcome:
    """What summarizing one content gave: its summary, or why there is none, and what it cost.

    A content held by several parts, histories or rows is summarized once (single-flight here, Ray's
    summarize stage, a provider batch): the first occurrence gets this outcome, every other one its
    `shared()` copy, so they all agree: the same summary, or the same failure and the same `rejected`.
    A summary the checks rejected in one place is rejected wherever the content occurs, so `strict`
    refuses every history holding it, not only the one that asked first.
    """

    summary: JsonValue | None = None
    source: Literal['model', 'cache', 'shared', 'none'] = 'none'
    """`shared`: an identical content already answered it (no call of its own)."""
    failure: str | None = None
    rejected: bool = False
    """The model answered, but the answer failed the checks (strict mode raises on these)."""
    skipped: bool = False
    """Not tried, and not a failure: `failure` says why, in `Report.skipped` (a dry run's contents that
    `--provider-batch` would submit)."""
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def shared(self) -> Outcome:
        """This outcome for another occurrence of its content: charged no calls or tokens.

        A shared summary counts as a cache hit; a shared failure does not (nothing usable was had).
        """
        return Outcome(
            summary=self.summary,
            source='shared' if self.summary is not None else 'none',
            failure=self.failure,
            rejected=self.rejected,
            skipped=self.skipped,
        )


class AnswerSource(Protocol):
    """Where a compaction's summaries come from (`Compactor.apply` takes them).

    A live model (`Summarizer`), or an engine that made them beforehand, each unique content once:
    Ray's summarize stage (`engines.ray`), a provider batch (`engines`' `--provider-batch`). Each
    summary it gives has passed `summary_problem` for its candidate (`Summarizer.summary_from`, or
    `Summarizer.cached`): `Compactor.apply` and the stored post-check do not run that rule again.
    """

    async def answer(self, candidates: Sequence[Candidate], *, tracer: Tracer | None = None) -> list[Outcome]:
        """An outcome for each of `candidates`, in their order (a span each on `tracer`, if it makes any)."""
        ...


@dataclass(frozen=True, kw_only=True)
class SummaryRequest:
    """The model request summarizing one content: the same whether it is sent live or in a provider batch."""

    messages: list[ModelMessage]
    settings: ModelSettings
    parameters: ModelRequestParameters


class SummaryFailed(Exception):
    """The model answered, but not with a usable summary (never retried)."""


class ServerUnreachable(Exception):
    """The model server cannot be connected to at all (refused, no such host, no route): the run stops.

    Not a failure of one content: every other content would meet it too, each after its retries. The
    CLI says so in one line (exit 2) and writes nothing it has not finished; the plugin keeps the
    history as it is and tries again on its next request.
    """


@dataclass
class _Flight:
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Outcome]


@dataclass
class Summarizer:
    """Summarizes candidates with one model, cache and set of limits; reusable across histories."""

    config: SummarizerConfig
    model: Model
    cache: SummaryCache
    tokenizer: Tokenizer = estimate_tokens
    _prompts: PromptBook = field(init=False)
    _model_id: str = field(init=False)
    _hint_room: int = field(init=False)
    _reads_call: bool = field(init=False)
    """Whether the model is a real one: shown the call (the embedded one gets the content only), and free to put
    a summary line in its own words (the embedded one only keeps lines and pieces of lines)."""
    _flights: dict[str, _Flight] = field(default_factory=dict[str, _Flight], init=False)
    _limits: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = field(
        default_factory=dict[asyncio.AbstractEventLoop, asyncio.Semaphore], init=False
    )
    _window: int | None = field(default=None, init=False)
    """The model server's context window, as it says it (`_over_context`): None where it says none."""
    _window_asked: bool = field(default=False, init=False)
    _answered: bool = field(default=False, init=False)
    """Whether the model ever answered: a server that never did is not retried when it cannot be reached."""

    def __post_init__(self) -> None:
        self._prompts = PromptBook(self.config)
        self._model_id = model_id(self.model)
        self._hint_room = read_hint_tokens(self.tokenizer)
        self._reads_call = not is_deterministic(self.model)

    @classmethod
    def from_config(
        cls,
        config: SummarizerConfig,
        *,
        model: Model | str | None = None,
        tokenizer: Tokenizer = estimate_tokens,
    ) -> Summarizer:
        return cls(
            config=config,
            model=resolve_model(config, model),
            cache=SummaryCache.from_config(config.cache),
            tokenizer=tokenizer,
        )

    def budget_for(self, candidate: Candidate) -> int:
        """Tokens a summary may take: a share of the original, at least a floor, under the threshold.

        Under the threshold with room for the read hint, for a string (`_room`), so that its summary
        can always name the read tool.
        """
        share = math.ceil(candidate.tokens * self.config.target_ratio)
        return max(1, min(max(share, self.config.min_summary_tokens), self._ceiling(candidate)))

    def quoted_budget_for(self, candidate: Candidate) -> int | None:
        """Tokens the lines holding `candidate`'s quoted facts may take its summary to, past its budget (None: no further).

        `quoted_ratio` of the original, under the same ceiling, where the later turns it was read with are
        the rest of its conversation (`Candidate.whole_conversation`: a stored history, not a run so far)
        and it has quoted facts. Asked of an embedded model only, which spends it on those lines alone; a
        real model is given one budget.
        """
        if not (candidate.whole_conversation and candidate.quoted and isinstance(self.model, EmbeddedModel)):
            return None
        stretched = min(math.ceil(candidate.tokens * self.config.quoted_ratio), self._ceiling(candidate))
        return stretched if stretched > self.budget_for(candidate) else None

    def _ceiling(self, candidate: Candidate) -> int:
        """The most tokens a summary of `candidate` may take: under its threshold, with room for the read hint."""
        return candidate.threshold_tokens - self._room(candidate) - 1

    def _room(self, candidate: Candidate) -> int:
        """Tokens a summary of `candidate` leaves free under its limits: the read hint's, for a string.

        Whether or not the originals store is on, or takes this original: a content then has one budget,
        one cache key and one summary, whatever store a run has (a dry run and a plan, Ray's or a provider
        batch's, have none); a summary that gets no hint is a little shorter than it could be. None under
        a threshold too small to spare it (a few tokens), where the hint goes only where it fits.
        """
        if candidate.shape != 'string' or candidate.threshold_tokens <= 2 * self._hint_room:
            return 0
        return self._hint_room

    def key_for(self, candidate: Candidate) -> str:
        """The cache key of `candidate`'s summary: what a data engine groups identical work by (`engines.ray`)."""
        return cache_key(
            content=candidate.text,
            model=self._model_id,
            prompt=self._prompts.for_tool(candidate.tool_name, candidate.shape).identity,
            shape=candidate.shape,
            budget_tokens=self.budget_for(candidate),
            threshold_tokens=candidate.threshold_tokens,
            quoted=candidate.quoted,
            quoted_budget_tokens=self.quoted_budget_for(candidate),
            call=(candidate.tool_name, candidate.call_args) if self._reads_call else ('', ''),
        )

    async def answer(self, candidates: Sequence[Candidate], *, tracer: Tracer | None = None) -> list[Outcome]:
        """Summarize every candidate at once (as `concurrency` allows); each made summary is in the disk cache on return.

        The live `AnswerSource`. If one raises (`ServerUnreachable`, or the caller is cancelled), the
        others are cancelled: their summaries are of no use now.
        """
        tasks = [asyncio.ensure_future(self.summarize(candidate, tracer=tracer)) for candidate in candidates]
        try:
            return await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            self.cache.flush()

    async def summarize(self, candidate: Candidate, *, tracer: Tracer | None = None) -> Outcome:
        """Summarize `candidate`, in a span of its own on `tracer` (an instrumented run's `RunContext.tracer`).

        The span carries what a pydantic-ai user watching a run wants to see beside the model calls: the
        tool, its tokens before and after, cache hit or miss, and the outcome; never the content. None is
        made on an uninstrumented run's `NoOpTracer`: it would record nothing, for ~7 µs a return.
        """
        if tracer is None or isinstance(tracer, NoOpTracer):
            outcome = await self._summarize(candidate)
            self._trace(candidate, outcome, INVALID_SPAN)
            return outcome
        attributes = {'gen_ai.tool.name': candidate.tool_name, 'gen_ai.tool.call.id': candidate.part.tool_call_id}
        with tracer.start_as_current_span(f'summarize {candidate.tool_name}', attributes=attributes) as span:
            outcome = await self._summarize(candidate)
            self._trace(candidate, outcome, span)
        return outcome

    def _trace(self, candidate: Candidate, outcome: Outcome, span: Span) -> None:
        """What `span` records of `outcome`, and the line logged at INFO; nothing is worked out when neither is wanted."""
        if not (span.is_recording() or logger.isEnabledFor(logging.INFO)):
            return
        summary = outcome.summary
        after = candidate.tokens if summary is None else content_tokens(summary, self.tokenizer)
        result = 'summarized' if summary is not None else 'rejected' if outcome.rejected else 'failed'
        span.set_attributes(
            {
                'summarizer.tokens_before': candidate.tokens,
                'summarizer.tokens_after': after,
                'summarizer.cache_hit': outcome.source in ('cache', 'shared'),
                'summarizer.source': outcome.source,
                'summarizer.outcome': result,
                'summarizer.attempts': outcome.attempts,
                'gen_ai.usage.input_tokens': outcome.input_tokens,
                'gen_ai.usage.output_tokens': outcome.output_tokens,
            }
        )
        if summary is None:
            span.set_status(StatusCode.ERROR, f'original kept: {result}')
        else:
            hit = {'cache': 'cache hit', 'shared': 'identical content in flight'}.get(outcome.source, 'model')
            logger.info(
                'summarized %s (%s): %s -> %s tokens (%s)',
                candidate.tool_name,
                candidate.part.tool_call_id,
                f'{candidate.tokens:,}',
                f'{after:,}',
                hit,
            )

    async def _summarize(self, candidate: Candidate) -> Outcome:
        if candidate.tokens > self.config.max_content_tokens:
            failure = (
                f'{candidate.tokens:,} tokens, over max_content_tokens ({self.config.max_content_tokens:,}): not sent'
            )
            return Outcome(failure=failure)
        key = self.key_for(candidate)
        cached = self.cached(candidate, key)
        if cached is not None:
            return Outcome(summary=cached, source='cache')
        too_long = await self._over_context(candidate)
        if too_long:
            return Outcome(failure=too_long)

        loop = asyncio.get_running_loop()
        flight = self._flights.get(key)
        if flight is not None and flight.loop is loop:
            return (await asyncio.shield(flight.future)).shared()

        flight = _Flight(loop, loop.create_future())
        self._flights[key] = flight
        outcome = Outcome(source='model')
        try:
            async with self._limit(loop):
                if isinstance(self.model, EmbeddedModel):
                    summary = await self._embedded_checked(candidate, self.model, outcome)
                else:
                    summary = self.summary_from(
                        candidate, await self._call_with_retries(self.request_for(candidate), outcome)
                    )
            outcome.summary = summary
            self.cache.stage(key, summary)  # written by the compactor in one transaction
        except asyncio.CancelledError:
            outcome.failure = 'cancelled'  # what the identical contents waiting on this call are told
            raise
        except Exception as exc:  # noqa: BLE001 - any failure keeps the original; it is reported
            outcome.failure = describe(exc)
            unreachable = unreachable_because(exc)
            if unreachable is not None:
                url = self.model.base_url or model_id(self.model)
                message = f'cannot reach the model server at {url}: {unreachable}'
                # a URL's password or key is in no message, however the error quotes it
                raise ServerUnreachable(redact(message, url_secrets(url))) from None
            outcome.rejected = isinstance(exc, SummaryFailed)
            # The reason may quote the content (a key, a summary fragment, a provider echoing the
            # request): only its kind is logged above DEBUG.
            kind = 'rejected by the checks' if outcome.rejected else type(exc).__name__
            logger.info('summary of %s (%s) failed: %s', candidate.tool_name, candidate.part.tool_call_id, kind)
            logger.debug(
                'summary of %s (%s) failed: %s', candidate.tool_name, candidate.part.tool_call_id, outcome.failure
            )
        finally:
            flight.future.set_result(outcome)
            del self._flights[key]
        return outcome

    async def _embedded_checked(self, candidate: Candidate, model: EmbeddedModel, outcome: Outcome) -> JsonValue:
        """An embedded model's summary of `candidate` that passes the checks, else `SummaryFailed`.

        A summary stretched past its budget (`quoted_budget_for`) that fails them is made again at the budget:
        the model spends estimated tokens, and a tokenizer that counts more (an exact one, on code) may find
        the stretch over the threshold where the budget's summary is not.
        """
        stretch = self.quoted_budget_for(candidate)
        summary, tokens = await self._embedded(candidate, model, outcome, quoted_budget_tokens=stretch)
        if stretch is not None:
            if self._problem(candidate, summary, tokens=tokens) is None:
                return summary  # checked already: the checks read every line, once is enough
            summary, tokens = await self._embedded(candidate, model, outcome, quoted_budget_tokens=None)
        return self._checked(candidate, summary, tokens=tokens)

    def embedded_request(self, candidate: Candidate, *, quoted_budget_tokens: int | None = None) -> EmbeddedRequest:
        """What an embedded model is asked for `candidate`: its content at its budget, keeping its quoted facts."""
        return EmbeddedRequest(
            content=candidate.content,
            budget_tokens=self.budget_for(candidate),
            max_items=len(candidate.content) if isinstance(candidate.content, list) else None,
            quoted=candidate.quoted,
            quoted_budget_tokens=quoted_budget_tokens,
        )

    async def _embedded(
        self, candidate: Candidate, model: EmbeddedModel, outcome: Outcome, *, quoted_budget_tokens: int | None
    ) -> tuple[JsonValue, int]:
        """An embedded model's summary of `candidate`, asked of it directly (no prompt, no answer to parse), and its tokens.

        Never retried: it is deterministic (`_retryable`).
        """
        outcome.attempts += 1
        async with asyncio.timeout(self.config.timeout_seconds):
            summary = await model.summarize(self.embedded_request(candidate, quoted_budget_tokens=quoted_budget_tokens))
        tokens = content_tokens(summary, self.tokenizer)  # counted once: the checks take them as they are
        outcome.input_tokens += candidate.tokens
        outcome.output_tokens += tokens
        return summary, tokens

    async def _over_context(self, candidate: Candidate) -> str | None:
        """Why `candidate` is not sent: its prompt and answer cannot fit the server's context window, if it says one.

        Counted at the most model tokens an estimated token may take (`MODEL_TOKENS_PER_ESTIMATE`), so a
        content that may not fit is never sent: a server answers one that does not with an error, after
        reading all of it.
        """
        if not self._window_asked:
            self._window, self._window_asked = await context_window(self.model), True
        window = self._window
        if window is None:
            return None
        prompt = self._prompts.for_tool(candidate.tool_name, candidate.shape)
        prompt_tokens = (
            candidate.tokens + self.tokenizer(prompt.instructions) + self.tokenizer(' '.join(candidate.quoted))
        )
        needed = MODEL_TOKENS_PER_ESTIMATE * prompt_tokens + self.output_cap(candidate)
        if needed <= window:
            return None
        return (
            f'{candidate.tokens:,} tokens: with its prompt and answer up to {needed:,} model tokens, over the '
            f"server's context window of {window:,}: not sent"
        )

    def request_for(self, candidate: Candidate) -> SummaryRequest:
        """The one model request that summarizes `candidate`, sent live or in a provider batch (`engines._provider`)."""
        prompt = self._prompts.for_tool(candidate.tool_name, candidate.shape)
        text = prompt.render(
            tool_name=candidate.tool_name,
            content=candidate.content,
            shape=candidate.shape,
            budget_tokens=self.budget_for(candidate),
            call_args=candidate.call_args,
            content_text=candidate.text,
            quoted=candidate.quoted,
        )
        return SummaryRequest(
            messages=[ModelRequest(parts=[SystemPromptPart(prompt.system), UserPromptPart(text)])],
            settings=ModelSettings(max_tokens=self.output_cap(candidate)),
            parameters=self._parameters(candidate),
        )

    def output_cap(self, candidate: Candidate) -> int:
        """The most tokens a model may answer `candidate` with, in its own tokens: what its budget may take.

        Uncapped, a model that does not stop (a small base model may not) writes until its context
        window is full, minutes on a CPU; an answer cut at the cap is refused (`_read_summary`).
        """
        return MODEL_TOKENS_PER_ESTIMATE * self.budget_for(candidate) + _WRAPPER_TOKENS

    def summary_from(self, candidate: Candidate, response: ModelResponse) -> JsonValue:
        """The summary a model's answer holds, if it passes the checks.

        Raises:
            SummaryFailed: the answer is not a usable summary (the original is kept).
        """
        return self._checked(candidate, _read_summary(response, candidate))

    def _checked(self, candidate: Candidate, summary: JsonValue, *, tokens: int | None = None) -> JsonValue:
        """`summary`, if it passes the checks for `candidate`; `tokens`: its tokens, if counted already.

        Raises:
            SummaryFailed: it does not (the original is kept).
        """
        problem = self._problem(candidate, summary, tokens=tokens)
        if problem:
            raise SummaryFailed(problem)
        return summary

    def cached(self, candidate: Candidate, key: str) -> JsonValue | None:
        """The cached summary under `key`, if it passes the checks for `candidate` (else it is made again)."""
        cached = self.cache.get(key)
        return cached if cached is not None and self._problem(candidate, cached) is None else None

    def _problem(self, candidate: Candidate, summary: JsonValue, *, tokens: int | None = None) -> str | None:
        prompt = self._prompts.for_tool(candidate.tool_name, candidate.shape)
        return summary_problem(
            candidate.content,
            summary,
            original_tokens=candidate.tokens,
            threshold_tokens=candidate.threshold_tokens,
            tokenizer=self.tokenizer,
            room=self._room(candidate),
            own_words=self._reads_call,
            instructions=prompt.instructions,
            tokens=tokens,
        )

    def _limit(self, loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
        semaphore = self._limits.get(loop)
        if semaphore is None:
            self._limits.clear()  # a new loop: the old one's semaphore is of no use any more
            semaphore = self._limits[loop] = asyncio.Semaphore(self.config.concurrency)
        return semaphore

    async def _call_with_retries(self, request: SummaryRequest, outcome: Outcome) -> ModelResponse:
        """One model request, retried on transient errors as `config` says.

        The first attempt runs bare: tenacity's set-up costs ~40 µs a call, more than the rest of our
        request path, and most calls succeed. A retryable failure then enters tenacity as its attempt 1
        (re-raised, not re-sent), so waits and the attempt budget are exactly tenacity's.
        """
        try:
            return await self._attempt(request, outcome)
        except Exception as exc:
            if not self._retryable(exc):
                raise
            first: Exception | None = exc
        retrying = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(self.config.max_retries + 1),
            wait=self._wait,
            retry=tenacity.retry_if_exception(self._retryable),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                # tenacity swallows the raise below (AttemptManager.__exit__ returns True) but types it
                # `bool | None`, so pyright takes the raise as leaving the loop and `first` as never None here
                if first is not None:  # pyright: ignore[reportUnnecessaryComparison]
                    failed, first = first, None
                    raise failed
                return await self._attempt(request, outcome)
        raise AssertionError('unreachable: tenacity reraises the last error')  # pragma: no cover

    async def _attempt(self, request: SummaryRequest, outcome: Outcome) -> ModelResponse:
        outcome.attempts += 1
        async with asyncio.timeout(self.config.timeout_seconds):
            if streams(self.model):  # a request given up on closes its stream: the server stops writing it
                async with model_request_stream(
                    self.model,
                    request.messages,
                    model_settings=request.settings,
                    model_request_parameters=request.parameters,
                ) as stream:
                    async for _ in stream:
                        pass
                response = stream.get()
            else:
                response = await model_request(
                    self.model,
                    request.messages,
                    model_settings=request.settings,
                    model_request_parameters=request.parameters,
                )
        self._answered = True
        outcome.input_tokens += response.usage.input_tokens
        outcome.output_tokens += response.usage.output_tokens
        return response

    def _retryable(self, error: BaseException) -> bool:
        """Transient errors, unless the server asks for a longer wait than `retry_max_seconds`.

        Retrying sooner than the server's Retry-After would only be refused again; waiting longer than
        the configured bound would stall the run. The content keeps its original instead. A
        deterministic model (the embedded one) is never retried: it would time out again. Nor is a
        server that cannot be reached and never answered: a wrong `base_url` or a server that is not
        running is said at once, not after every content's retries; one that answered before and
        goes away is given its retries (a restart).
        """
        if is_deterministic(self.model) or (not self._answered and unreachable_because(error) is not None):
            return False
        return is_transient(error) and retry_after_seconds(error) <= self.config.retry_max_seconds

    def _wait(self, state: tenacity.RetryCallState) -> float:
        """Exponential backoff with full jitter, but never sooner than the server's Retry-After."""
        backoff = tenacity.wait_random_exponential(
            multiplier=self.config.retry_initial_seconds, max=self.config.retry_max_seconds
        )(state)
        error = state.outcome.exception() if state.outcome else None
        return min(max(backoff, retry_after_seconds(error)), self.config.retry_max_seconds)

    def _parameters(self, candidate: Candidate) -> ModelRequestParameters:
        if candidate.shape == 'string':
            return ModelRequestParameters(output_mode='text', allow_text_output=True)
        schema = {
            'type': 'object',
            'properties': {SUMMARY_KEY: schema_of(structure_of(candidate.content))},
            'required': [SUMMARY_KEY],
            'additionalProperties': False,
        }
        description = f'The summary of the output of the tool {candidate.tool_name}, same shape as the original.'
        if self.config.output_mode == 'tool':
            tool = ToolDefinition(
                name=_OUTPUT_TOOL, parameters_json_schema=schema, description=description, kind='output'
            )
            return ModelRequestParameters(output_mode='tool', output_tools=[tool], allow_text_output=False)
        output = OutputObjectDefinition(json_schema=schema, name=_OUTPUT_TOOL, description=description)
        return ModelRequestParameters(output_mode=self.config.output_mode, output_object=output, allow_text_output=True)


def _read_summary(response: ModelResponse, candidate: Candidate) -> JsonValue:
    if response.finish_reason == 'length':  # however it reads, the rest of it is missing
        raise SummaryFailed('cut off at max_tokens: the answer is incomplete')
    for part in response.parts:
        if isinstance(part, ToolCallPart) and part.tool_name == _OUTPUT_TOOL:
            try:
                arguments = part.args_as_dict(raise_if_invalid=True)
            # RecursionError: arguments nested past the parser's depth (`[[[[...`), no summary of a history
            except (ValueError, AssertionError, RecursionError) as exc:
                raise SummaryFailed(f'the output tool call arguments are not a JSON object: {exc}') from None
            if SUMMARY_KEY not in arguments:
                raise SummaryFailed(f'the output tool call has no {SUMMARY_KEY!r} argument')
            return arguments[SUMMARY_KEY]
    text = ''.join(part.content for part in response.parts if isinstance(part, TextPart))
    if candidate.shape == 'string':
        return _EDGE_BLANK_LINES.sub('', text)  # not strip(): the first kept line keeps its indentation
    text = text.strip()
    try:
        wrapped: JsonValue = json.loads(_strip_fence(text))
    except (json.JSONDecodeError, RecursionError) as exc:  # `[[[[...`: nested past the parser's depth
        raise SummaryFailed(f'the answer is not JSON: {exc}') from None
    if not isinstance(wrapped, dict) or SUMMARY_KEY not in wrapped:
        raise SummaryFailed(f'the answer is not an object with a {SUMMARY_KEY!r} key')
    return wrapped[SUMMARY_KEY]


def _strip_fence(text: str) -> str:
    """Models in prompted mode often wrap JSON in a Markdown code fence."""
    if text.startswith('```'):
        text = text.split('\n', 1)[1] if '\n' in text else ''
        text = text.rsplit('```', 1)[0]
    return text


def is_transient(error: BaseException) -> bool:
    """429, 408, 5xx, timeouts and connection errors are worth retrying; other 4xx are not."""
    if isinstance(error, ModelQuotaExceededError):
        return False
    if isinstance(error, ModelHTTPError):
        return error.status_code in _TRANSIENT_STATUS or error.status_code >= 500
    if isinstance(error, _TRANSIENT_TYPES):
        return True
    return isinstance(error, ModelAPIError) and type(error) is ModelAPIError  # no status: the transport failed


def unreachable_because(error: BaseException) -> str | None:
    """Why the model server could not be connected to at all, if that is what `error` says, else None.

    Found among the error's causes, by the operating system's error: the HTTP client (httpx, or the
    httpx2 the openai client uses) wraps it in its own `ConnectError`. A connection the server
    accepted and then dropped is not this: it is a transient fault, retried.
    """
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return f'unknown host ({cause.strerror})'
        if isinstance(cause, OSError) and cause.errno in _UNREACHABLE_ERRNOS:
            return os.strerror(cause.errno).lower()
        cause = cause.__cause__ or cause.__context__
    return None


_UNREACHABLE_ERRNOS = frozenset({errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH})


def retry_after_seconds(error: BaseException | None) -> float:
    """The wait the provider asked for (`retry-after-ms`, or `Retry-After` in seconds or as a date), else 0.

    pydantic-ai parses the headers of an HTTP error into `ModelAPIError.retry_after`.
    """
    wait = error.retry_after if isinstance(error, ModelAPIError) else None
    return wait if wait is not None else 0.0


def describe(error: BaseException) -> str:
    """A failure's reason, as reports show it: one line, with no secret a server's error body echoed."""
    if isinstance(error, SummaryFailed):
        return str(error)
    if isinstance(error, TimeoutError):
        return 'timed out'
    text = str(error).strip().splitlines()[0] if str(error).strip() else ''
    return redact(f'{type(error).__name__}: {text}' if text else type(error).__name__, echoed=True)
