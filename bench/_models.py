"""Summarizer models for the benchmarks: instant, or with a fixed latency, and timing themselves.

Both answer with the smallest summary the shape contract allows, so what is timed is our machinery and
not the extractive summarizer. The instant one is an embedded model, called directly on the content as
the extractive one is; the one with a latency answers a prompt through pydantic-ai, as a network model
does (its function is `async`: a plain `def` would make `FunctionModel` hop to a worker thread for every
call, which a network model does not cost either).
"""

from __future__ import annotations

import asyncio
import time

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from summarizer.core._shape import JsonValue, items_marker
from summarizer.pipeline._models import EmbeddedModel, EmbeddedRequest


def minimal_summary(
    content: JsonValue, *, budget_tokens: int = 0, max_items: int | None = None, quoted: tuple[str, ...] = ()
) -> JsonValue:
    """The smallest summary that keeps `content`'s shape and stands on it: where the content had text, the start
    of its first line with a `…` for the cut; a list's first item (its items after it one `… N items omitted …`).

    It ignores `budget_tokens`, `max_items` and `quoted` (the facts to keep): only the pipeline is timed.
    """
    if isinstance(content, str):
        line = next((line.strip() for line in content.split('\n') if line.strip()), '')
        return f'{line[:40].rstrip()} …' if line else content
    if isinstance(content, list):
        if not content:
            return content
        first = minimal_summary(content[0])
        return [first, items_marker(len(content) - 1)] if len(content) > 1 else [first]
    if isinstance(content, dict):
        return {
            key: minimal_summary(value) if isinstance(value, (str, list, dict)) else value
            for key, value in content.items()
        }
    return content


class TimedModel:
    """A summarizer answering `minimal_summary`: at once as an embedded model, or after `latency` seconds as a network one.

    `calls` counts the requests it answered and `busy_ns` the time spent inside its function, so the
    caller can subtract "the model's own time" from a measurement.
    """

    def __init__(self, *, latency: float = 0.0, name: str = 'instant') -> None:
        self.latency = latency
        self.calls = 0
        self.busy_ns = 0
        self.request_ns = 0
        """Time inside pydantic-ai's request path around the function, when `overhead.timing_model_requests` adds it."""
        self._embedded = EmbeddedModel(name, self._summary, time_limit=None)
        self.model = self._embedded if not latency else FunctionModel(self._after_latency, model_name=name)

    def _summary(self, request: EmbeddedRequest) -> JsonValue:
        started = time.perf_counter_ns()
        summary = minimal_summary(request.content)
        self.calls += 1
        self.busy_ns += time.perf_counter_ns() - started
        return summary

    async def _after_latency(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        started = time.perf_counter_ns()
        await asyncio.sleep(self.latency)
        self.busy_ns += time.perf_counter_ns() - started
        return await self._embedded.function(messages, info)  # pyright: ignore[reportOptionalCall]


def instant_text_model(text: str = 'Summary: the output listed records and values; nothing failed.') -> FunctionModel:
    """For harness `Summarize` (which wants text): answers at once with `text` and explicit usage.

    Without explicit usage `FunctionModel` estimates it by tokenizing the whole prompt (~0.5 ms for a
    20 KB prompt), which no real model costs on the caller's side.
    """

    async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)], usage=RequestUsage(input_tokens=1, output_tokens=1))

    return FunctionModel(answer, model_name='instant-text')
