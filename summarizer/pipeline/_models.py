"""Which pydantic-ai `Model` writes summaries: the embedded extractive one, or a real LLM.

A real LLM is sent a prompt and answers with structured output. The embedded model is a `Model` too
(a `FunctionModel`: one identity, cache key and report for every model), but the summarizer calls it
directly on the content (`EmbeddedModel.summarize`): no prompt is written for it to read back, and
no answer parsed. Its summaries go through the same post-check as any model's.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import sys
import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, infer_model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from .. import extractive
from ..core import (
    JsonValue,
    SummarizerConfig,
    content_tokens,
    estimate_tokens,
    install_hint,
    package_version,
    remember_secrets,
    url_secrets,
)
from ._prompts import parse_data_block
from ._worker import in_worker

EXTRACTIVE = 'extractive'
_PROVIDER_EXTRAS = {'anthropic': 'anthropic', 'google': 'google'}
"""Providers (a model string's prefix up to `:` or `-`: `google-vertex:`) whose SDK an extra of ours installs."""
SUMMARY_KEY = 'summary'
"""Structured summaries come wrapped as `{"summary": ...}`: output schemas must be objects."""


class ModelBuildError(UserError):
    """A model that cannot be built: an unknown name, a missing API key, a provider whose extra is missing.

    pydantic-ai raises `UserError` for the first two and `ImportError` for the third; one type, whose
    message is a single line naming the model, lets a caller stop before anything runs and say why.
    """


def resolve_model(config: SummarizerConfig, model: Model | str | None = None) -> Model:
    """A `Model` for `model` (or `config.model`): `extractive`, a model string, or an OpenAI-compatible URL.

    Raises:
        ModelBuildError: the model cannot be built here.
    """
    chosen = model if model is not None else config.model
    if isinstance(chosen, Model):
        return _with_secrets_remembered(chosen, config)
    if chosen == EXTRACTIVE:
        return extractive_model(time_limit=config.timeout_seconds)
    try:
        built = _openai_compatible(chosen, config) if config.base_url else infer_model(chosen)
    except (UserError, ImportError) as exc:
        raise ModelBuildError(f'model {chosen!r}: {_build_problem(chosen, exc)}') from exc
    return _with_secrets_remembered(built, config)


_KEY_ADVICE = re.compile(r'Set the `(\w+)` environment variable')
"""pydantic-ai's missing-key message, which goes on about its provider classes and test models."""
_PROVIDERS_BY_NAME = (
    ('gpt-', 'openai'),
    ('o1', 'openai'),
    ('o3', 'openai'),
    ('o4', 'openai'),
    ('claude', 'anthropic'),
    ('gemini', 'google'),
)
"""How a bare model name starts, and the provider whose model string would name it (`gpt-4` -> `openai:gpt-4`)."""


def _build_problem(name: str, exc: UserError | ImportError) -> str:
    """Why `name` cannot be built, in one line of ours (pydantic-ai's speaks of its classes, and of pip extras of its own)."""
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    extra = _PROVIDER_EXTRAS.get(name.partition(':')[0].split('-')[0]) if isinstance(exc, ImportError) else None
    if extra is not None:
        return f'its provider needs the {extra} extra: {install_hint(extra)}'
    if (key := _KEY_ADVICE.search(reason)) is not None:
        return f'no API key: set the {key[1]} environment variable'
    provider = next((provider for start, provider in _PROVIDERS_BY_NAME if name.startswith(start)), None)
    if ':' not in name and provider is not None and 'did you mean' not in reason.lower():
        return f'{reason} (a model name starts with its provider: did you mean {provider}:{name}?)'
    return reason


_CREDENTIAL = re.compile(r'(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$')
"""Names of environment variables holding a credential (`OPENAI_API_KEY`, `GEMINI_API_KEY`, `HF_TOKEN`)."""


def _with_secrets_remembered(model: Model, config: SummarizerConfig) -> Model:
    """`model`, once the secrets its errors may echo are remembered for `redact`.

    Its client's API key, the secrets of its `base_url` (a key in the query or path), and every
    credential in the environment (a provider's SDK reads its own): a server or gateway that echoes
    the request in its error body must not print them in a failure reason, a log line or a report.
    """
    client = getattr(model, 'client', None)
    key = getattr(client, 'api_key', None)
    remember_secrets(
        [
            *url_secrets(model.base_url or ''),
            *url_secrets(config.base_url or ''),
            *([key] if isinstance(key, str) else []),
            os.environ.get(config.api_key_env, ''),
            *(value for name, value in os.environ.items() if _CREDENTIAL.search(name.upper())),
        ]
    )
    return model


def model_id(model: Model) -> str:
    """Stable identity of a model for the cache key: provider system, name and endpoint.

    An embedded model's summaries are made by this package's own code, which a new version may change:
    its identity names the installed version, so an upgrade makes new summaries instead of reusing the
    old code's from the disk cache (a run's summaries stay byte-stable: a history already holding one
    keeps it, as the originals store knows it).
    """
    identity = f'{model.system}:{model.model_name}@{model.base_url or ""}'
    return f'{identity}#{package_version()}' if is_deterministic(model) else identity


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbeddedRequest:
    """What an embedded summarizer is asked: one content, the size to bring it to, and the facts to keep.

    One object rather than a list of keywords: every embedded summarizer, and every wrapper around one,
    takes it whole and hands it on, so a field added here reaches them all without a signature changing.
    """

    content: JsonValue
    budget_tokens: int
    """About how many estimated tokens the summary may take."""
    max_items: int | None = None
    """The most items a list summary may keep: a summary of a list never has more items than the list."""
    quoted: tuple[str, ...] = ()
    """Facts of the content the conversation holds, to keep."""
    quoted_budget_tokens: int | None = None
    """How far the lines holding `quoted` facts may take the summary past `budget_tokens` (None: no further)."""


class EmbeddedSummarize(Protocol):
    """An offline summarizing function: a request in, a summary of its content, of the same JSON type, out."""

    def __call__(self, request: EmbeddedRequest, /) -> JsonValue: ...


def extractive_summary(request: EmbeddedRequest) -> JsonValue:
    """The embedded extractive summarizer's answer to `request` (see `extractive.summarize`)."""
    return extractive.summarize(
        request.content,
        budget_tokens=request.budget_tokens,
        max_items=request.max_items,
        quoted=request.quoted,
        quoted_budget_tokens=request.quoted_budget_tokens,
    )


class EmbeddedModel(FunctionModel):
    """An offline summarizer as a `FunctionModel`: deterministic, so a failure is never retried.

    The same content gives the same work and the same answer: a retry after a timeout or an error
    would only spend the same time again (and, in a thread nothing can stop, run beside the first).
    The summarizer calls `summarize` on the content; as a pydantic-ai `Model` it answers a summary
    prompt (`embedded_model`) with the same function.
    """

    def __init__(self, name: str, summarize: EmbeddedSummarize, *, time_limit: float | None) -> None:
        self._summarize = summarize
        self._time_limit = time_limit
        super().__init__(self._answer, model_name=name)

    async def summarize(self, request: EmbeddedRequest) -> JsonValue:
        """A summary for `request`, made in the process's worker thread (`_worker`) in the process's turn.

        `time_limit` seconds from the call (its wait for its turn included, see `_turn`), for a
        summarizer that looks at `extractive.current_deadline`. The thread is one nothing can stop: a
        request its caller gives up on (cancelled, timed out) is abandoned, and the work stops at its
        next look at the deadline, or never starts if it is still waiting its turn.
        """
        deadline = extractive.Deadline.after(self._time_limit)
        started = threading.Event()
        work = functools.partial(self._in_turn, request, deadline, started)
        if _INLINE:
            return work()
        made = in_worker(work)
        try:
            await asyncio.wait([made], timeout=self._time_limit)
            if not made.done() and not started.is_set():  # still waiting behind a work that overran its own limit
                raise deadline.overrun()
            return await made  # under way past its limit: it stops itself at its next look
        finally:
            made.cancel()  # given up on while it waits: it never runs
            deadline.abandon()  # answered, or given up on: a work still waiting or under way stops

    def _in_turn(self, request: EmbeddedRequest, deadline: extractive.Deadline, started: threading.Event) -> JsonValue:
        with extractive.within(deadline), _turn(deadline):
            deadline.check()
            started.set()
            return self._summarize(request)

    async def _answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """What it answers a summary prompt (its `<tool_content>` block), as a real model would."""
        block = parse_data_block(_last_user_text(messages))
        if block is None:
            raise ValueError(f'the {self.model_name} model needs a <tool_content> block in the prompt')
        summary = await self.summarize(
            EmbeddedRequest(
                content=block.content, budget_tokens=block.budget_tokens, max_items=block.max_items, quoted=block.quoted
            )
        )
        response = _respond(summary, block.shape, info)
        # Usage as our own estimate: left empty, `FunctionModel` would estimate it by tokenizing the
        # whole prompt with a regex, which costs more than many a summary.
        response.usage = RequestUsage(
            input_tokens=sum(estimate_tokens(text) for text in _request_texts(messages)),
            output_tokens=content_tokens(summary),
        )
        return response


def is_deterministic(model: Model) -> bool:
    """Whether `model` answers the same request the same way every time (an embedded summarizer)."""
    return isinstance(model, EmbeddedModel)


def extractive_model(*, time_limit: float | None = None) -> EmbeddedModel:
    """The embedded extractive model; `time_limit`: seconds it may work on one request (it stops itself)."""
    return embedded_model(EXTRACTIVE, extractive_summary, time_limit=time_limit)


def embedded_model(name: str, summarize: EmbeddedSummarize, *, time_limit: float | None = None) -> EmbeddedModel:
    """The offline summarizer `summarize` as a model named `name` (see `EmbeddedModel`)."""
    return EmbeddedModel(name, summarize, time_limit=time_limit)


_INLINE = sys.platform == 'emscripten'
"""No threads (Pyodide): the model works in the event loop's thread, as pydantic-ai runs sync functions there."""
_turns = threading.Lock()
"""One embedded summary at a time in a process: whose turn it is (see `_turn`)."""
_TURN_POLL_SECONDS = 0.05
"""How often a request waiting for its turn looks whether its deadline passed or its caller gave up."""


def _free_turns_in_child() -> None:
    """A forked child starts with the turn free: the thread holding it in the parent is not in the child."""
    global _turns
    _turns = threading.Lock()


os.register_at_fork(after_in_child=_free_turns_in_child)


@contextmanager
def _turn(deadline: extractive.Deadline) -> Generator[None]:
    """Wait for the process's turn to run an embedded summarizer, at most until `deadline`.

    An embedded summarizer is pure Python: under the GIL, requests run side by side in worker
    threads (`concurrency` of them) take turns every few milliseconds and finish no sooner, while
    each keeps its working tree alive, so the collector walks them all and the caches hold less.
    One at a time, the same requests take 0.85-0.9 of the CPU time (bench section 6), and each but
    the last is done sooner. The process's worker thread (`_worker`) serves them in order already;
    the turn keeps that true whatever thread runs one. The wait counts against the request's time
    limit; one still waiting at its deadline, or abandoned by its caller, gives up as one that ran out
    of time does.
    """
    while not _turns.acquire(timeout=_TURN_POLL_SECONDS):  # woken at once when the turn is free
        deadline.check()
    try:
        yield
    finally:
        _turns.release()


def _respond(summary: JsonValue, shape: str, info: AgentInfo) -> ModelResponse:
    if info.output_tools:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {SUMMARY_KEY: summary})])
    if isinstance(summary, str) and info.allow_text_output and shape == 'string':
        return ModelResponse(parts=[TextPart(summary)])
    return ModelResponse(parts=[TextPart(json.dumps({SUMMARY_KEY: summary}, ensure_ascii=False))])


def _request_texts(messages: list[ModelMessage]) -> list[str]:
    return [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, (SystemPromptPart, UserPromptPart)) and isinstance(part.content, str)
    ]


def _last_user_text(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ''


def _openai_compatible(name: str, config: SummarizerConfig) -> Model:
    from ._servers import openai_compatible_model  # imports openai: only when a server is configured

    assert config.base_url is not None
    return openai_compatible_model(
        name,
        base_url=config.base_url,
        server=config.server,
        api_key_env=config.api_key_env,
        timeout_seconds=config.timeout_seconds,
    )
