"""Per-request overhead of history-shaping capabilities, measured in one process, on one history.

Everything here takes *any* `pydantic_ai.capabilities.AbstractCapability` instance, so our own
plugin (a subclass implementing `before_model_request`) is measured by the same code as the cases
below. pydantic-ai-harness is imported lazily: the floor and our plugin work without it.

Cases
-----
(a) ``floor_capability()``: ``ProcessHistory(processor)`` with an *async*, unannotated processor returning
    its input unchanged. This is the least any history capability pays inside ``before_model_request``:
    ``list(request_context.messages)``, one await, ``messages.copy()`` into the request and
    ``ctx.messages[:] = messages`` into the run's history. (A *sync* processor would also pay a
    worker-thread hop via ``run_in_executor``; ``floor_capability(sync=True)`` measures that variant.)

(b) ``clear_tool_results(...)``: ``pydantic_ai_harness.compaction.ClearToolResults``. It implements
    ``before_model_request``: it estimates the context's tokens (anchored on the latest response's
    provider ``usage`` plus a chars/4 estimate of what follows) and, above ``max_tokens``, rebuilds
    the history with all but the ``keep_pairs`` most recent tool results replaced by a placeholder,
    writes it to ``ctx.messages[:]`` and returns ``replace(request_context, messages=compacted)``.
    Measured by calling its ``before_model_request`` directly (``hook_overhead``).

(c) ``tool_output_limits(...)``: ``pydantic_ai_harness.tool_output_limits.ToolOutputLimits`` with one
    ``Band(over=..., action=Summarize(model=instant_model()))``. It does NOT implement
    ``before_model_request``: it reduces each tool result once, in ``after_tool_execute``, when the tool
    produces it, and the reduced text is what lands in history. Its ``before_model_request`` is the
    base no-op, so ``hook_overhead`` on it measures ~nothing. It is made comparable two ways:

    * ``tool_hook_overhead``: ``after_tool_execute(ctx, call=, tool_def=, args=, result=content)``
      called directly for every tool return in the history (each with its own ``ToolCallPart`` and a
      ``RunContext`` carrying ``tool_name``/``tool_call_id`` like ``ToolManager`` builds it). This is
      the cost of producing the whole history once; divided by the history's number of model requests
      it is the amortized cost per request, the number to set beside a per-request hook. ``Summarize``
      builds a new nested ``Agent(model, name='tool_output_limits', ...)`` per summarized return and runs
      it; with ``instant_model()`` the model answers at once, so only the harness and pydantic-ai
      machinery is timed.

How the direct-hook contexts are built (``build_contexts``)
-------------------------------------------------------------
By default (``via_agent=True``) they are *captured from a real run*: an ``Agent(instant_model(),
capabilities=[_Capture()])`` is run with ``message_history=prior + [request]`` and no prompt, so the graph
sends that pending request; ``_Capture.before_model_request`` keeps the genuine ``RunContext`` (built by
``_agent_graph.build_run_context``: usage, usage limits, run id, run step, tracer, tool manager, ...)
and ``ModelRequestContext`` (built by ``_agent_graph._prepare_request``: ``model``, ``messages =
message_history[:]``, ``model_settings``, ``model_request_parameters``, ``model_id``, ``streaming``).
With ``via_agent=False`` both are constructed by hand with the same fields.

Each timed call then gets what the graph gives a request: ``ctx.messages`` (the run's history list,
same object) holds the messages, and a new ``ModelRequestContext`` whose ``messages`` is a shallow copy
of them, wrapped in ``HistoryMirroringMessages`` as ``_apply_before_model_request`` does. That set-up
runs before the clock starts; only ``await cap.before_model_request(ctx, request_context)`` is timed.

Modes
-----
``mode='fresh'``: every call starts from the pristine history (upper bound: everything is new to the
capability, as for the first request after loading a stored conversation).
``mode='steady'``: ``ctx.messages`` keeps what the previous call left there (the first, warm-up call
does the compaction), so the timed calls are later requests over an already-compacted history with
nothing new (lower bound). A real run sits in between: ``replay_overhead`` measures that.

Timing: ``time.perf_counter_ns`` around each call, summed over ``number`` calls, per-call average per
repeat, median over ``repeat`` repeats (``measure``). GC stays enabled (allocation is part of the
cost) but a ``gc.collect()`` precedes each repeat. A section runs inside ``young_heap()``, so such a
collection looks only at what the section made, not at the whole process (a test run's heap made each
one cost up to half a second).
"""

from __future__ import annotations

import asyncio
import copy
import gc
import statistics
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability, ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

try:  # private, but it is exactly what the graph hands before_model_request hooks
    from pydantic_ai._history_mirroring import HistoryMirroringMessages as _Mirroring
except ImportError:  # pragma: no cover - older/newer pydantic-ai
    _Mirroring = None

__all__ = [
    'Timing',
    'build_contexts',
    'clear_tool_results',
    'floor_capability',
    'hook_overhead',
    'instant_model',
    'measure',
    'tool_hook_overhead',
    'tool_output_limits',
]

_ANY_ARGS_SCHEMA: dict[str, Any] = {'type': 'object', 'additionalProperties': True}


# --------------------------------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------------------------------


@dataclass
class Timing:
    """Per-call nanoseconds: median and min over repeats (each repeat = mean of `number` calls)."""

    median_ns: float
    min_ns: float
    repeats_ns: list[float] = field(repr=False)
    number: int = 0

    @property
    def us(self) -> float:
        return self.median_ns / 1000


@contextmanager
def young_heap() -> Generator[None]:
    """Collect, then freeze what the process holds until the block ends (`gc.freeze`).

    The ``gc.collect()`` before each timed call or repeat then walks only the objects made since, and
    what was frozen can trigger no collection inside a timed call either; the block's end unfreezes it.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


async def _ameasure(
    fn: Callable[[Any], Awaitable[Any]], setup: Callable[[], Any] | None, repeat: int, number: int, warmup: int
) -> list[float]:
    for _ in range(warmup):
        await fn(setup() if setup else None)
    out: list[float] = []
    for _ in range(repeat):
        gc.collect()
        total = 0
        for _ in range(number):
            arg = setup() if setup else None
            t0 = time.perf_counter_ns()
            await fn(arg)
            total += time.perf_counter_ns() - t0
        out.append(total / number)
    return out


def measure(
    fn: Callable[[Any], Awaitable[Any]],
    *,
    repeat: int = 7,
    number: int = 10,
    setup: Callable[[], Any] | None = None,
    warmup: int = 1,
) -> Timing:
    """Time `fn(setup())` (or `fn(None)`), `number` calls per repeat, median of `repeat` repeats.

    `fn` is an `async def`: the whole measurement runs in one event loop, via `asyncio.run`, and each
    call is awaited. `setup()` runs before every call, outside the timed
    region; its return value is passed to `fn`. Must not be called from inside a running event loop
    (use `ameasure` there).
    """
    runs = asyncio.run(_ameasure(fn, setup, repeat, number, warmup))
    return Timing(statistics.median(runs), min(runs), runs, number)


async def ameasure(
    fn: Callable[[Any], Awaitable[Any]],
    *,
    repeat: int = 7,
    number: int = 10,
    setup: Callable[[], Any] | None = None,
    warmup: int = 1,
) -> Timing:
    """`measure` for an async `fn`, from inside a running event loop."""
    runs = await _ameasure(fn, setup, repeat, number, warmup)
    return Timing(statistics.median(runs), min(runs), runs, number)


# --------------------------------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------------------------------


def instant_model(text: str = 'Summary: the output listed records and values; nothing failed.') -> FunctionModel:
    """A `FunctionModel` that answers every request at once with `text` (counts its calls in `.calls`).

    The response carries explicit `usage`, as a provider's would: without it `FunctionModel` estimates
    usage by tokenizing the whole prompt, which costs ~0.5 ms for a 20 KB prompt and is not model
    latency a real summarizer would add on our side.
    """
    calls = [0]

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls[0] += 1
        return ModelResponse(parts=[TextPart(text)], usage=RequestUsage(input_tokens=1, output_tokens=1))

    model = FunctionModel(answer, model_name='instant')
    model.calls = calls  # type: ignore[attr-defined]
    return model


def floor_capability(*, sync: bool = False) -> AbstractCapability[Any]:
    """(a) `ProcessHistory` with an identity processor (async by default; see module docstring)."""
    # Deliberately unannotated: ProcessHistory calls `takes_run_context(processor)` on every request,
    # which resolves the first parameter's annotation with `get_type_hints`; under this module's
    # `from __future__ import annotations` that means compiling/evaluating strings each call (~30-50 µs).
    if sync:

        def identity_sync(messages):  # type: ignore[no-untyped-def]
            return messages

        return ProcessHistory(identity_sync)

    async def identity(messages):  # type: ignore[no-untyped-def]
        return messages

    return ProcessHistory(identity)


def clear_tool_results(*, max_tokens: int = 8_000, keep_pairs: int = 1, **kwargs: Any) -> AbstractCapability[Any]:
    """(b) harness `ClearToolResults`. Defaults fire on the benchmark histories (our keep_recent=1)."""
    from pydantic_ai_harness.compaction import ClearToolResults

    return ClearToolResults(max_tokens=max_tokens, keep_pairs=keep_pairs, **kwargs)


def tool_output_limits(
    *, over: int = 1_000, over_tokens: bool = True, model: Any = None, **kwargs: Any
) -> AbstractCapability[Any]:
    """(c) harness `ToolOutputLimits(bands=[Band(over, Summarize(model=instant_model()))])`.

    Defaults mirror our config: summarize returns over 1000 estimated tokens (harness estimate: chars/4).
    """
    from pydantic_ai_harness.tool_output_limits import Band, Summarize, ToolOutputLimits

    return ToolOutputLimits(
        bands=[Band(over=over, action=Summarize(model=model if model is not None else instant_model()))],
        over_tokens=over_tokens,
        **kwargs,
    )


# --------------------------------------------------------------------------------------------------
# contexts
# --------------------------------------------------------------------------------------------------


class _Captured(Exception):
    pass


@dataclass
class _Capture(AbstractCapability[Any]):
    ctx: RunContext[Any] | None = None
    request_context: ModelRequestContext | None = None

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.ctx, self.request_context = ctx, request_context
        raise _Captured  # stop the run: we only want the contexts


def _split(history: Sequence[ModelMessage], request: ModelRequest | None) -> list[ModelMessage]:
    """The message list the hook sees: `history + [request]` (request made up if `None`, see workload)."""
    try:
        from .workload import pending_request  # imported as bench._harness
    except ImportError:
        from workload import pending_request  # bench/ itself on sys.path

    if request is None:
        prior, request = pending_request(list(history))
    else:
        prior = list(history)
    return [*prior, request]


def build_contexts(
    messages: list[ModelMessage],
    *,
    model: Any = None,
    via_agent: bool = True,
) -> tuple[RunContext[Any], ModelRequestContext]:
    """A `RunContext` and `ModelRequestContext` for `messages` (which must end with a `ModelRequest`).

    `via_agent=True` captures both from a real `Agent.run` (see module docstring); the run is stopped
    inside the first `before_model_request`. `via_agent=False` builds them by hand like
    `_agent_graph.build_run_context` / `_prepare_request` do.
    """
    model = model if model is not None else instant_model()
    if not isinstance(messages[-1], ModelRequest):
        raise TypeError('messages must end with the pending ModelRequest')
    if via_agent:
        cap = _Capture()
        agent = Agent(model, capabilities=[cap])

        async def go() -> None:
            try:
                await agent.run(message_history=list(messages))
            except _Captured:
                pass

        asyncio.run(go())
        assert cap.ctx is not None and cap.request_context is not None, 'capture failed'
        return cap.ctx, cap.request_context
    ctx = RunContext(
        deps=None,
        model=model,
        usage=RunUsage(requests=0),
        usage_limits=UsageLimits(),
        prompt=None,
        messages=list(messages),
        run_step=1,
        run_id='bench-run',
        conversation_id='bench-conversation',
        model_settings=ModelSettings(),
    )
    rc = ModelRequestContext(
        model=model,
        messages=ctx.messages[:],
        model_settings=ctx.model_settings,  # type: ignore[arg-type]
        model_request_parameters=ModelRequestParameters(),
    )
    return ctx, rc


def _request_context_for(ctx: RunContext[Any], template: ModelRequestContext) -> ModelRequestContext:
    """A new request context over `ctx.messages`, as `_prepare_request` + `_apply_before_model_request` make it."""
    rc = ModelRequestContext(
        model=template.model,
        messages=ctx.messages[:],
        model_settings=template.model_settings,
        model_request_parameters=template.model_request_parameters,
    )
    rc.model_id = template.model_id
    rc.streaming = template.streaming
    if _Mirroring is not None:
        rc.messages = _Mirroring(rc.messages, ctx.messages)
    return rc


def _count_messages(messages: Sequence[ModelMessage]) -> tuple[int, int]:
    n_req = sum(isinstance(m, ModelRequest) for m in messages)
    return len(messages), n_req


# --------------------------------------------------------------------------------------------------
# (1) direct before_model_request
# --------------------------------------------------------------------------------------------------


def hook_overhead(
    cap: AbstractCapability[Any],
    history: Sequence[ModelMessage],
    request: ModelRequest | None = None,
    *,
    mode: str = 'fresh',
    repeat: int = 7,
    number: int = 10,
    via_agent: bool = True,
    deep_copy: bool = False,
) -> dict[str, Any]:
    """Time `await cap.before_model_request(ctx, request_context)` for one pending request.

    Returns µs per request (median) and per message in the request, and whether the history objects
    were mutated in place (which would make later 'fresh' calls not fresh: then pass deep_copy=True,
    which re-copies the history before every call, outside the timed region).
    """
    if mode not in ('fresh', 'steady'):
        raise ValueError("mode must be 'fresh' or 'steady'")
    messages = _split(history, request)
    pristine_json = ModelMessagesTypeAdapter.dump_json(messages)
    ctx, template = build_contexts(messages, via_agent=via_agent)
    hist = ctx.messages  # the run's history list: hooks write it in place
    hist[:] = messages

    def setup() -> ModelRequestContext:
        if mode == 'fresh':
            hist[:] = copy.deepcopy(messages) if deep_copy else messages
        return _request_context_for(ctx, template)

    async def call(rc: ModelRequestContext) -> Any:
        return await cap.before_model_request(ctx, rc)

    out: dict[str, Any] = {}
    final_len = None

    async def run_all() -> Timing:
        nonlocal final_len
        t = await ameasure(call, repeat=repeat, number=number, setup=setup)
        final_len = len(hist)
        return t

    timing = asyncio.run(run_all())
    n_msgs, _ = _count_messages(messages)
    out.update(
        case=type(cap).__name__,
        mode=mode,
        us_per_request=timing.median_ns / 1000,
        us_per_request_min=timing.min_ns / 1000,
        us_per_message=timing.median_ns / 1000 / n_msgs,
        messages=n_msgs,
        history_after=final_len,
        mutated_in_place=ModelMessagesTypeAdapter.dump_json(messages) != pristine_json,
    )
    return out


# --------------------------------------------------------------------------------------------------
# (2) direct after_tool_execute (production-time reducers such as ToolOutputLimits)
# --------------------------------------------------------------------------------------------------


def _tool_pairs(messages: Sequence[ModelMessage]) -> list[tuple[ToolCallPart, ToolReturnPart]]:
    calls = {
        p.tool_call_id: p
        for m in messages
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    }
    return [
        (calls[p.tool_call_id], p)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_call_id in calls
    ]


_NO_REQUEST_LIMIT = UsageLimits(request_limit=None)
"""`tool_hook_overhead`'s default: a run of the whole history must not stop at pydantic-ai's request limit."""


def tool_hook_overhead(
    cap: AbstractCapability[Any],
    history: Sequence[ModelMessage],
    *,
    repeat: int = 5,
    number: int = 1,
    via_agent: bool = True,
    usage_limits: UsageLimits | None = _NO_REQUEST_LIMIT,
) -> dict[str, Any]:
    """Time `after_tool_execute` over every tool return of `history` (one history = one timed call).

    Reports µs per history, per tool return, and amortized per model request of the history (each tool
    return is reduced once, when produced, and then sent with every later request).

    Every pass gets a fresh `RunUsage` (untimed). `usage_limits` defaults to no request limit: `Summarize`
    folds its nested runs into `ctx.usage` and checks them against the parent's limits (minus one
    reserved request), so under pydantic-ai's default `UsageLimits()` (request_limit=50) a history with
    more than ~49 summarized returns makes `Summarize` fail and fall back (here: keep the content),
    which would time the error path instead.
    """
    messages = _split(history, None)
    pairs = _tool_pairs(messages)
    ctx, _ = build_contexts(messages, via_agent=via_agent)
    tool_defs = {
        name: ToolDefinition(name=name, parameters_json_schema=_ANY_ARGS_SCHEMA)
        for name in {c.tool_name for c, _ in pairs}
    }
    ctx = replace(ctx, usage_limits=usage_limits)
    per_call = [
        (
            replace(ctx, tool_name=c.tool_name, tool_call_id=c.tool_call_id, retry=0),
            c,
            tool_defs[c.tool_name],
            c.args_as_dict(),
            r.content,
        )
        for c, r in pairs
    ]
    reduced = [0]

    def fresh_usage() -> None:
        usage = RunUsage()
        for tctx, *_ in per_call:
            tctx.usage = usage

    async def run_history(_: Any) -> None:
        n = 0
        for tctx, call, tdef, args, content in per_call:
            result = await cap.after_tool_execute(tctx, call=call, tool_def=tdef, args=args, result=content)
            n += result is not content
        reduced[0] = n

    timing = measure(run_history, repeat=repeat, number=number, setup=fresh_usage)
    _, n_req = _count_messages(history)
    return {
        'case': type(cap).__name__,
        'us_per_history': timing.median_ns / 1000,
        'us_per_tool_return': timing.median_ns / 1000 / max(1, len(pairs)),
        'us_per_request_amortized': timing.median_ns / 1000 / max(1, n_req),
        'tool_returns': len(pairs),
        'reduced': reduced[0],
        'requests': n_req,
    }


# --------------------------------------------------------------------------------------------------
# (3) replay through a real Agent(FunctionModel), with and without the capability
# --------------------------------------------------------------------------------------------------
