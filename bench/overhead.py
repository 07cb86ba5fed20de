"""Benchmark 1: what a history capability costs per model request, ours beside the floor and the harness.

Every case is called the way the agent graph calls it: `before_model_request(ctx, request_context)`
with a `RunContext` and `ModelRequestContext` captured from a real run (`_harness.build_contexts`);
only that await is timed. Three states:

* (a) nothing over the threshold, first request of a run: the whole history is new to the case;
* (b) steady state: the run's earlier requests already compacted the history; each request adds a
  tool call and a small return at the end, as an agent step does, and is timed on its own;
* (c) first pass: every oversized return is new; the summarizer model answers at once, and the time
  spent inside it is subtracted, leaving our machinery per summarized return.

Harness `ToolOutputLimits` does its work when a tool returns (`after_tool_execute`), not before a
request: its per-request hook is the base no-op, and its first pass is timed per tool return
(`_harness.tool_hook_overhead`), the figure to set beside our per-return cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import importlib.util
import itertools
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext

from summarizer.capability import SummarizeToolReturns
from summarizer.core._config import SummarizerConfig
from summarizer.core._shape import shape_name
from summarizer.core._tokens import content_tokens
from summarizer.pipeline import _summarize
from summarizer.pipeline._pipeline import Compactor

from . import _harness
from ._models import TimedModel, instant_text_model
from ._report import Cell, Section, Target
from .workload import fan_out, make_history, pending_request

Capability = AbstractCapability[Any]
CapabilityFactory = Callable[[RunContext[Any]], Awaitable[Capability]]
"""Makes the capability for one run (ours: `for_run`, which starts a fresh session)."""

THRESHOLD_TOKENS = 1000
KEEP_RECENT = 1
_NEVER = 10**9
"""A threshold nothing reaches: state (a)."""


def harness_installed() -> bool:
    return importlib.util.find_spec('pydantic_ai_harness') is not None


def pristine_history(*, messages: int, tool_returns: int, seed: int = 0) -> list[ModelMessage]:
    """A generated conversation plus the request about to be sent (what a hook sees)."""
    prior, request = pending_request(make_history(messages=messages, tool_returns=tool_returns, seed=seed))
    return [*prior, request]


def step_messages(step: int) -> list[ModelMessage]:
    """One agent step: a response calling a tool and the request with its small return."""
    call = ToolCallPart(tool_name='read_file', args={'path': f'notes/{step}.md'}, tool_call_id=f'step_{step}')
    tool_return = ToolReturnPart(tool_name='read_file', content=f'note {step}: done', tool_call_id=call.tool_call_id)
    return [ModelResponse(parts=[call]), ModelRequest(parts=[tool_return])]


def summarizer_config(
    *,
    threshold_tokens: int = THRESHOLD_TOKENS,
    cache: bool = True,
    quoted_facts: bool = True,
    every_oversized: bool = False,
) -> SummarizerConfig:
    """The shipped config at the benchmark's threshold; the cache directory comes from SUMMARIZER_CACHE_DIR.

    `quoted_facts`: the shipped default (on), or off, to show what finding them costs. `every_oversized`:
    the threshold policy, which summarizes every oversized return at once, for the first-pass cost per
    summarized return (the shipped cache-aware policy waits until a rewrite pays, which a one-request
    measurement never sees).
    """
    base = SummarizerConfig()
    policy = dataclasses.replace(base.policy, kind='threshold') if every_oversized else base.policy
    return dataclasses.replace(
        base,
        policy=policy,
        threshold_tokens=threshold_tokens,
        keep_recent=KEEP_RECENT,
        keep_quoted_facts=quoted_facts,
        cache=dataclasses.replace(base.cache, enabled=cache),
    )


class Contexts:
    """A `RunContext` captured from a real run, and fresh request contexts over its history."""

    def __init__(self, messages: list[ModelMessage]) -> None:
        """Runs an agent: call outside any event loop."""
        self.messages = messages
        self.ctx, self._template = _harness.build_contexts(messages)

    def request(self) -> ModelRequestContext:
        return _harness._request_context_for(self.ctx, self._template)  # pyright: ignore[reportPrivateUsage]


async def timed_hook(cap: Capability, contexts: Contexts) -> int:
    """Nanoseconds of one `before_model_request`, the request context built beforehand."""
    request = contexts.request()
    gc.collect()
    started = time.perf_counter_ns()
    await cap.before_model_request(contexts.ctx, request)
    return time.perf_counter_ns() - started


@dataclass(frozen=True)
class FirstPass:
    us_per_request: float
    summarized: int
    model_us: float
    """Time spent inside the summarizer model's function, per request."""
    model_request_us: float
    """Time spent inside pydantic-ai's `direct.model_request` (its request machinery and the model), per request."""

    @property
    def us_beyond_model_per_return(self) -> float:
        return (self.us_per_request - self.model_us) / max(self.summarized, 1)

    @property
    def us_beyond_model_request_per_return(self) -> float:
        return (self.us_per_request - self.model_request_us) / max(self.summarized, 1)


@contextlib.contextmanager
def timing_model_requests(model: TimedModel) -> Iterator[None]:
    """Adds the time of every `direct.model_request` our summarizer makes to `model.request_ns`.

    The split between our machinery and pydantic-ai's request machinery (model preparation, request
    parameters and JSON-schema transformation, `FunctionModel`'s response handling), which any
    summarizer going through a pydantic-ai `Model` pays.
    """
    original = _summarize.model_request

    async def timed(*args: Any, **kwargs: Any) -> ModelResponse:
        started = time.perf_counter_ns()
        try:
            return await original(*args, **kwargs)
        finally:
            model.request_ns += time.perf_counter_ns() - started

    _summarize.model_request = timed  # type: ignore[assignment]
    try:
        yield
    finally:
        _summarize.model_request = original


async def first_request(make: CapabilityFactory, contexts: Contexts, *, repeat: int) -> float:
    """Median µs of the first request of a run over the pristine history (a new capability each time)."""
    messages = contexts.messages
    times: list[int] = []
    for _ in range(repeat):
        contexts.ctx.messages[:] = messages
        cap = await make(contexts.ctx)
        times.append(await timed_hook(cap, contexts))
    return statistics.median(times) / 1000


async def steady_requests(
    make: CapabilityFactory, contexts: Contexts, *, steps: int, repeat: int
) -> tuple[float, float]:
    """(median µs per request, messages walked per request) once the history has been compacted.

    Each repeat starts a run over `messages` and makes two untimed requests (the first compacts the
    history, the second summarizes the return that just left the `keep_recent` window); then each of
    `steps` requests appends one agent step and is timed. Messages walked is read from our session
    (0 for the other cases).
    """
    messages = contexts.messages
    times: list[int] = []
    walked: list[float] = []
    counter = itertools.count()
    for _ in range(repeat):
        history = contexts.ctx.messages
        history[:] = messages
        cap = await make(contexts.ctx)
        for warm_up in range(2):
            if warm_up:
                history.extend(step_messages(next(counter)))
            await cap.before_model_request(contexts.ctx, contexts.request())
        walked_before = _messages_walked(cap)
        for _ in range(steps):
            history.extend(step_messages(next(counter)))
            times.append(await timed_hook(cap, contexts))
        walked.append((_messages_walked(cap) - walked_before) / steps)
    return statistics.median(times) / 1000, statistics.mean(walked)


def _messages_walked(cap: Capability) -> int:
    if isinstance(cap, SummarizeToolReturns):
        return cap._session.messages_walked  # pyright: ignore[reportPrivateUsage]
    return 0


async def our_first_pass(
    contexts: Contexts, *, repeat: int, cache: bool = True, quoted_facts: bool = True
) -> FirstPass:
    """Our plugin's first request over the pristine history with an instant model; the model's time is reported apart.

    Each repeat gets a model of its own name, so the cache (when on) is cold, as in a new conversation:
    its lookups and writes are part of the cost. The cache is opened before the clock starts.
    """
    config = summarizer_config(cache=cache, quoted_facts=quoted_facts, every_oversized=True)
    samples: list[tuple[int, int, int, int]] = []
    for attempt in range(repeat):
        model = TimedModel(name=f'instant-{time.time_ns()}-{attempt}')
        compactor = Compactor(config=config, model=model.model)
        compactor.summarizer.cache.get('0' * 64)  # opens the disk cache outside the timed region
        cap = await SummarizeToolReturns(compactor=compactor).for_run(contexts.ctx)
        contexts.ctx.messages[:] = contexts.messages
        with timing_model_requests(model):
            elapsed = await timed_hook(cap, contexts)
        samples.append((elapsed, model.busy_ns, model.request_ns, cap.report.summarized))
    return _median(samples)


def _median(samples: list[tuple[int, int, int, int]]) -> FirstPass:
    """The median sample of (elapsed, model, model request ns, summarized)."""
    elapsed, busy, requests, summarized = sorted(samples)[len(samples) // 2]
    return FirstPass(
        us_per_request=elapsed / 1000, summarized=summarized, model_us=busy / 1000, model_request_us=requests / 1000
    )


def oversized_by_shape(history: list[ModelMessage]) -> dict[str, list[object]]:
    """The history's tool-return contents over the threshold, by shape (string, list, object)."""
    shapes: dict[str, list[object]] = {}
    for message in history:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            content = part.content if isinstance(part, ToolReturnPart) else None
            if content is not None and content_tokens(content) > THRESHOLD_TOKENS:
                shapes.setdefault(shape_name(content), []).append(content)
    return shapes


async def shape_first_pass(contents: list[object], *, repeat: int) -> FirstPass:
    """Our session's first pass over one request returning `contents` (none kept as recent, cache off)."""
    config = dataclasses.replace(summarizer_config(cache=False, every_oversized=True), keep_recent=0)
    history = fan_out(contents)
    samples: list[tuple[int, int, int, int]] = []
    for attempt in range(repeat):
        model = TimedModel(name=f'instant-{time.time_ns()}-{attempt}')
        session = Compactor(config=config, model=model.model).session()
        gc.collect()
        with timing_model_requests(model):
            started = time.perf_counter_ns()
            await session.process(list(history))
            elapsed = time.perf_counter_ns() - started
        samples.append((elapsed, model.busy_ns, model.request_ns, session.report.summarized))
    return _median(samples)


def _ours(*, threshold_tokens: int = THRESHOLD_TOKENS) -> CapabilityFactory:
    """The shipped capability at `threshold_tokens`; `_NEVER`: no return is ever worth a summary, under either policy."""
    config = summarizer_config(threshold_tokens=threshold_tokens)
    if threshold_tokens == _NEVER:
        config = dataclasses.replace(config, policy=dataclasses.replace(config.policy, min_tokens=_NEVER))
    compactor = Compactor(config=config, model=TimedModel().model)
    plugin = SummarizeToolReturns(compactor=compactor)

    async def make(ctx: RunContext[Any]) -> Capability:
        return await plugin.for_run(ctx)

    return make


def _stateless(factory: Callable[[], Capability]) -> CapabilityFactory:
    async def make(ctx: RunContext[Any]) -> Capability:
        return factory()

    return make


@_harness.young_heap()
def overhead_section(*, messages: int = 200, tool_returns: int = 50, repeat: int = 15, steps: int = 20) -> Section:
    history = pristine_history(messages=messages, tool_returns=tool_returns)
    contexts = Contexts(history)
    n = len(history)
    section = Section(
        title=f'1. Overhead per model request ({messages} messages + the request about to be sent, '
        f'{tool_returns} tool returns of 2-20 KB)',
        columns=[
            'case',
            'state',
            'µs/request',
            'µs/message',
            '× floor',
            'summarized',
            'µs/return beyond model',
            'µs/return beyond model request',
        ],
    )
    floor = _stateless(_harness.floor_capability)
    cases: list[tuple[str, str, CapabilityFactory]] = [
        ('floor (ProcessHistory identity)', 'a', floor),
        ('ours', 'a', _ours(threshold_tokens=_NEVER)),
        ('ours, first request (cache-aware default)', 'a', _ours()),
        ('floor (ProcessHistory identity)', 'b', floor),
        ('ours', 'b', _ours()),
    ]
    if harness_installed():
        cases += [
            ('harness ClearToolResults', 'a', _stateless(lambda: _harness.clear_tool_results(max_tokens=_NEVER))),
            ('harness ClearToolResults', 'b', _stateless(_harness.clear_tool_results)),
            (
                'harness ToolOutputLimits',
                'b',
                _stateless(lambda: _harness.tool_output_limits(model=instant_text_model())),
            ),
        ]
    floor_us: dict[str, float] = {}
    walked = 0.0
    for label, state, make in cases:
        if state == 'a':
            us = asyncio.run(first_request(make, contexts, repeat=repeat))
        else:
            us, case_walked = asyncio.run(steady_requests(make, contexts, steps=steps, repeat=max(3, repeat // 5)))
            walked = case_walked if label == 'ours' else walked
        floor_us.setdefault(state, us)
        section.rows.append(_row(label, _STATES[state], us, n, floor_us[state]))
    first = asyncio.run(our_first_pass(contexts, repeat=max(3, repeat // 3)))
    uncached = asyncio.run(our_first_pass(contexts, repeat=max(3, repeat // 3), cache=False))
    unquoted = asyncio.run(our_first_pass(contexts, repeat=max(3, repeat // 3), quoted_facts=False))
    floor_first = asyncio.run(first_request(floor, contexts, repeat=repeat))
    passes = (
        ('ours (cold disk cache)', first),
        ('ours (cache off)', uncached),
        ('ours, keep_quoted_facts off', unquoted),
    )
    for label, result in passes:
        row = _row(label, _STATES['c'], result.us_per_request, n, floor_first)
        row.update(
            {
                'summarized': result.summarized,
                'µs/return beyond model': result.us_beyond_model_per_return,
                'µs/return beyond model request': result.us_beyond_model_request_per_return,
            }
        )
        section.rows.append(row)
    for shape, contents in oversized_by_shape(history).items():
        result = asyncio.run(shape_first_pass(contents, repeat=max(3, repeat // 3)))
        section.rows.append(
            {
                'case': f'ours (cache off), {shape}s only',
                'state': 'c: one request of such returns',
                'summarized': result.summarized,
                'µs/return beyond model': result.us_beyond_model_per_return,
                'µs/return beyond model request': result.us_beyond_model_request_per_return,
            }
        )
    if harness_installed():
        section.rows.append(
            _row(
                'harness ClearToolResults',
                _STATES['c'],
                asyncio.run(first_request(_stateless(_harness.clear_tool_results), contexts, repeat=repeat)),
                n,
                floor_first,
            )
        )
        produced = _harness.tool_hook_overhead(
            _harness.tool_output_limits(model=instant_text_model()), history, repeat=max(3, repeat // 5)
        )
        section.rows.append(
            {
                'case': 'harness ToolOutputLimits+Summarize',
                'state': 'c: after_tool_execute, every return',
                'µs/request': produced['us_per_request_amortized'],
                'summarized': produced['reduced'],
                'µs/return beyond model': produced['us_per_history'] / max(produced['reduced'], 1),
            }
        )
    steady = next(row for row in section.rows if row['case'] == 'ours' and row['state'] == _STATES['b'])
    section.targets += [
        Target('(b) steady state, × floor', _float(steady['× floor']), 4, 'at most'),
        Target('(b) messages walked per request (the 2 new ones)', walked, 2, 'at most'),
        Target('(c) µs per summarized return beyond the model', first.us_beyond_model_per_return, 300, 'at most'),
    ]
    returns = max(first.summarized, 1)
    section.notes.append(
        f'(c) split per summarized return, cold disk cache: {first.us_per_request / returns:,.0f} µs in all = '
        f'{first.model_us / returns:,.0f} in the model function + '
        f"{(first.model_request_us - first.model_us) / returns:,.0f} in pydantic-ai's request machinery "
        f'(direct.model_request) + {first.us_beyond_model_request_per_return:,.0f} ours.'
    )
    section.notes.append(
        'a: first request of a run over the history ("ours": no return worth a summary under either policy; '
        '"first request (cache-aware default)": the shipped policy, which weighs every return over min_tokens '
        'and finds no rewrite that pays over a history its provider has cached); b: each request adds one agent step to an '
        'already compacted history; c: every oversized return new, instant summarizer, its own time subtracted. '
        'ToolOutputLimits works per tool return (after_tool_execute): its "µs/request" in c is amortized over the '
        "history's requests."
    )
    return section


_STATES = {'a': 'a: first request of a run', 'b': 'b: steady', 'c': 'c: first pass'}


def _row(case: str, state: str, us: float, messages: int, floor_us: float) -> dict[str, Cell]:
    return {'case': case, 'state': state, 'µs/request': us, 'µs/message': us / messages, '× floor': us / floor_us}


def _float(value: Cell) -> float:
    assert isinstance(value, (int, float))
    return float(value)
