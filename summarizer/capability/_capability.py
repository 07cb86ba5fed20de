"""The pydantic-ai plugin: a capability, and a history processor for `ProcessHistory`.

Both rewrite the run's history itself (as `ProcessHistory` does), so a tool return is summarized
once per run, not once per request; and since identical content gets the identical (cached) summary,
the compacted prefix stays byte-stable from request to request and provider prompt caches re-warm.
The summarizer's model calls are not agent requests: they count against no `UsageLimits` of the
agent, and their usage is reported separately in `report`.

With the originals store enabled (the default) every summarized content is kept, and the capability
gives the agent one tool, `read_tool_return`, to read any original back: a summary is never a
one-way door.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.tools import RunContext
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from ..core import (
    CacheConfig,
    OriginalsConfig,
    OutputMode,
    PolicyConfig,
    PolicyKind,
    Server,
    SummarizerConfig,
    Tokenizer,
    ToolRule,
    estimate_tokens,
    without_secrets,
)
from ..pipeline import Compactor, HistorySession, Report, RunCost, first_message_scope, run_cost, run_scope
from ._read_tool import read_tool


@dataclass(kw_only=True, repr=False)
class _Options:
    """The keyword arguments of the plugin: config.yaml's keys, each None to keep the config's value.

    `config` supplies all of them at once (default: the defaults, which config.yaml shows); the others override it.
    """

    model: Model | str | None = None
    """`'extractive'` (the embedded offline model), a pydantic-ai model string or `Model`, or the name
    the server at `base_url` knows its model by."""
    threshold_tokens: int | None = None
    keep_recent: int | None = None
    policy: PolicyConfig | PolicyKind | None = None
    """Which returns a run summarizes and when: a `PolicyConfig`, or just its kind (`'cache-aware'`, `'threshold'`)."""
    keep_quoted_facts: bool | None = None
    strict: bool | None = None
    base_url: str | None = None
    server: Server | None = None
    output_mode: OutputMode | None = None
    concurrency: int | None = None
    timeout_seconds: float | None = None
    tools: Mapping[str, ToolRule | Mapping[str, object]] | None = None
    cache: CacheConfig | bool | None = None
    """A `CacheConfig`, or just on/off."""
    originals: OriginalsConfig | bool | None = None
    """An `OriginalsConfig`, or just on/off; off also means no `read_tool_return` tool."""
    scope: str | Callable[[RunContext[Any]], str] | None = None
    """Whose originals a run keeps and reads back: an id (a tenant's, a conversation's), or a function of
    the run's context giving one (`lambda ctx: ctx.deps.tenant_id`). None: the run's conversation
    (`RunContext.conversation_id`). A read never finds an original kept under another scope."""
    config: SummarizerConfig | None = None
    tokenizer: Tokenizer = field(default=estimate_tokens, repr=False)
    compactor: Compactor | None = field(default=None, repr=False)
    """Built from the options above when not given; shared by every run (model, cache, store, limits)."""

    def __post_init__(self) -> None:
        if self.compactor is None:
            self.compactor = self._build()

    @property
    def _compactor(self) -> Compactor:
        assert self.compactor is not None, 'set in __post_init__'
        return self.compactor

    def _build(self) -> Compactor:
        options: dict[str, object] = {
            'model': self.model if isinstance(self.model, str) else None,
            'threshold_tokens': self.threshold_tokens,
            'keep_recent': self.keep_recent,
            'policy': {'kind': self.policy} if isinstance(self.policy, str) else self.policy,
            'keep_quoted_facts': self.keep_quoted_facts,
            'strict': self.strict,
            'base_url': self.base_url,
            'server': self.server,
            'output_mode': self.output_mode,
            'concurrency': self.concurrency,
            'timeout_seconds': self.timeout_seconds,
            'tools': dict(self.tools) if self.tools is not None else None,
            'cache': {'enabled': self.cache} if isinstance(self.cache, bool) else self.cache,
            'originals': {'enabled': self.originals} if isinstance(self.originals, bool) else self.originals,
        }
        config = (self.config or SummarizerConfig()).override(**options)
        scope = self.scope if isinstance(self.scope, str) else None
        return Compactor(config=config, model=self.model, tokenizer=self.tokenizer, scope=scope)

    def _scopes(self, ctx: RunContext[Any]) -> list[str]:
        """The run's scopes: the one set (here or on the compactor), else the run's conversation.

        Its originals are kept under the first; a read finds those kept under any. The conversation is
        pydantic-ai's (`RunContext.conversation_id`), and also its first message, under which the
        originals of a history compacted before it was given to the run are kept when that history
        carried no conversation id (`conversation_scope`).
        """
        if callable(self.scope) or self._compactor.scope is not None or not ctx.conversation_id:
            return [self._scope(ctx)]
        return [run_scope(ctx.conversation_id), first_message_scope(ctx.messages)]

    def _scope(self, ctx: RunContext[Any]) -> str:
        """The scope the run's originals are kept under (the first of `_scopes`).

        Asked for before every request, so the first message is hashed only when the run has no
        conversation id.
        """
        if callable(self.scope):
            return self.scope(ctx)
        if self._compactor.scope is not None:
            return self._compactor.scope
        return run_scope(ctx.conversation_id) if ctx.conversation_id else first_message_scope(ctx.messages)

    def __repr__(self) -> str:
        """Only the options that were set (most are None: the config's value)."""
        shown = [
            f'{item.name}={without_secrets(value) if item.name == "base_url" and value else value!r}'
            for item in dataclasses.fields(self)
            if item.repr and (value := getattr(self, item.name)) != item.default
        ]
        return f'{type(self).__name__}({", ".join(shown)})'


@dataclass(kw_only=True, repr=False)
class SummarizeToolReturns(_Options, AbstractCapability[Any]):
    """Summarize oversized tool returns before each model request of an agent run.

    ```python
    summarize = SummarizeToolReturns(threshold_tokens=800)
    agent = Agent('openai:gpt-5', capabilities=[summarize])
    ```

    Keyword arguments mirror config.yaml (see `_Options`). Each run gets its own incremental
    session (`for_run`); the compactor (model, cache, originals store, limits) and `report` are
    shared by every run. With originals enabled (the default) the agent also gets the
    `read_tool_return` tool, which reads the original of any summarized return.
    """

    report: Report = field(default_factory=Report, repr=False)
    """Totals over every run of this capability (summarized, cache hits, the summarizer's own usage)."""
    _session: HistorySession = field(init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._session = self._compactor.session(report=self.report)

    async def for_run(self, ctx: RunContext[Any]) -> SummarizeToolReturns:
        """A fresh session per run; every field (the compactor and `report` among them) is shared."""
        return replace(self)

    def get_toolset(self) -> AbstractToolset[Any] | None:
        """`read_tool_return`, when the originals store is enabled."""
        compactor = self._compactor
        if not compactor.originals.enabled:
            return None
        tool = read_tool(compactor.originals, compactor.config.originals.read_max_characters, scopes=self._scopes)
        return FunctionToolset([tool])

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._session.use_model(request_context.model, request_context.model_settings)
        messages = await self._session.process(
            list(request_context.messages), tracer=ctx.tracer, scope=self._scope(ctx)
        )
        request_context.messages = messages.copy()
        ctx.messages[:] = messages
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        """Count the provider's reported usage of the request beside the session's prediction (`Report.billed_*`)."""
        self._session.billed(response.usage)
        return response

    def cost(self, model: str) -> RunCost:
        """The runs' input cost so far at `model`'s prices (`provider:model`, genai-prices), with and without compaction.

        Prompt caching priced: each request's prefix shared with the previous one read from the cache, the
        rest written to it (docs/policy.md). `LookupError` when genai-prices does not know the model.
        """
        return run_cost(self.report, model)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a model and a cache: not spec-serializable


@dataclass(kw_only=True, repr=False)
class SummarizeToolReturnsProcessor(_Options):
    """An async history processor: `Agent(capabilities=[ProcessHistory(SummarizeToolReturnsProcessor(...))])`.

    It keeps one incremental session; a history that does not continue the last one it saw (another
    run) restarts it, and concurrent runs' requests in one event loop are served one at a time, so
    sharing one processor between concurrent runs of a loop stays correct, only slower (runs in
    several threads, each with its own loop, are not serialized: give them `SummarizeToolReturns`).
    It adds no tool (a history processor cannot), so unless `originals` is given it keeps no
    originals either: its summaries must not point the model at a tool it does not have. Use
    `SummarizeToolReturns` for `read_tool_return`.
    """

    _session: HistorySession = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.originals is None and self.compactor is None:
            self.originals = False
        super().__post_init__()
        self._session = self._compactor.session()

    @property
    def report(self) -> Report:
        return self._session.report

    def cost(self, model: str) -> RunCost:
        """As `SummarizeToolReturns.cost`: the input cost so far at `model`'s prices, with and without compaction."""
        return run_cost(self.report, model)

    async def __call__(self, ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        """Summarize `messages`; `ctx` is the run's, for its tracer.

        pydantic-ai passes the run context to a processor whose first parameter is a `RunContext`, so in
        an instrumented run each summary is a span, as with the capability.
        """
        self._session.use_model(ctx.model)  # a processor is not handed the request's settings
        return await self._session.process(messages, tracer=ctx.tracer, scope=self._scope(ctx))
