"""The pydantic-ai plugin: a capability, and a history processor for `ProcessHistory`.

Both rewrite the run's history itself (as `ProcessHistory` does), so a tool return is summarized
once per run, not once per request; and since identical content gets the identical (cached) summary,
the compacted prefix stays byte-stable from request to request and provider prompt caches re-warm.
The summarizer's model calls are not agent requests: they count against no `UsageLimits` of the
agent, and their usage is reported separately in `report`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.tools import RunContext

from ._config import SummarizerConfig
from ._pipeline import Compactor, HistorySession, Report
from ._tokens import Tokenizer, estimate_tokens


def _compactor(
    config: SummarizerConfig | None,
    model: Model | str | None,
    threshold_tokens: int | None,
    keep_recent: int | None,
    tokenizer: Tokenizer,
) -> Compactor:
    return Compactor(
        config=config, model=model, threshold_tokens=threshold_tokens, keep_recent=keep_recent, tokenizer=tokenizer
    )


@dataclasses.dataclass(init=False)
class SummarizeToolReturns(AbstractCapability[Any]):
    """Summarize oversized tool returns before each model request of an agent run.

    ```python
    agent = Agent('openai:gpt-5', capabilities=[SummarizeToolReturns(threshold_tokens=800)])
    ```

    Keyword arguments mirror config.yaml and default to its values; `config` supplies all of them
    at once. Each run gets its own incremental session; the model, cache and limits are shared.
    """

    compactor: Compactor
    report: Report
    """Totals over every run of this capability (summarized, cache hits, the summarizer's own usage)."""

    def __init__(
        self,
        *,
        model: Model | str | None = None,
        threshold_tokens: int | None = None,
        keep_recent: int | None = None,
        config: SummarizerConfig | None = None,
        tokenizer: Tokenizer = estimate_tokens,
        compactor: Compactor | None = None,
        report: Report | None = None,
    ) -> None:
        self.compactor = compactor or _compactor(config, model, threshold_tokens, keep_recent, tokenizer)
        self.report = report if report is not None else Report()
        self._session = self.compactor.session(report=self.report)

    async def for_run(self, ctx: RunContext[Any]) -> SummarizeToolReturns:
        """A fresh session per run; the compactor (model, cache, limits) and the totals are shared."""
        return SummarizeToolReturns(compactor=self.compactor, report=self.report)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        messages = await self._session.process(list(request_context.messages), tracer=ctx.tracer)
        request_context.messages = messages.copy()
        ctx.messages[:] = messages
        return request_context

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a model and a cache: not spec-serializable


class SummarizeToolReturnsProcessor:
    """An async history processor: `ProcessHistory(summarize_tool_returns(...))` or `history_processors=[...]`.

    It keeps one incremental session; a history that does not continue the last one it saw (another
    run) restarts it, so sharing one processor between concurrent runs stays correct, only slower.
    """

    def __init__(self, compactor: Compactor) -> None:
        self.compactor = compactor
        self._session: HistorySession = compactor.session()

    @property
    def report(self) -> Report:
        return self._session.report

    async def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        return await self._session.process(messages)


def summarize_tool_returns(
    *,
    model: Model | str | None = None,
    threshold_tokens: int | None = None,
    keep_recent: int | None = None,
    config: SummarizerConfig | None = None,
    tokenizer: Tokenizer = estimate_tokens,
) -> SummarizeToolReturnsProcessor:
    """A history processor that summarizes oversized tool returns (arguments as for the capability)."""
    return SummarizeToolReturnsProcessor(_compactor(config, model, threshold_tokens, keep_recent, tokenizer))
