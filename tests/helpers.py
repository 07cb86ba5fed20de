"""Building blocks for tests: histories and FunctionModel summarizers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Callable

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from summarizer import Compactor, SummarizerConfig
from summarizer.core._shape import JsonValue, items_marker
from summarizer.pipeline._prompts import parse_data_block

BIG_TEXT = '\n'.join(
    f'log line {n}: request id req-{n:05d} from 10.1.{n % 200}.{n % 250} took {n * 7} ms' for n in range(600)
)
BIG_LIST = [f'Result {n}: a long search result about topic {n} ' + 'with filler text ' * 40 for n in range(12)]
BIG_OBJECT = {
    'repo': 'acme/widgets',
    'open_issues': 42,
    'archived': False,
    'license': None,
    'issues': [{'number': n, 'title': f'Issue {n} ' + 'details ' * 60, 'closed': n % 2 == 0} for n in range(20)],
    'nested': {'readme': 'Readme text ' * 300, 'stars': 1234},
}


def history(*contents: object, tool: str = 'search') -> list[ModelMessage]:
    """system+user prompt, then one call/return round per content, then a final answer."""
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart('You are helpful.'), UserPromptPart('Find things.')])
    ]
    for index, content in enumerate(contents):
        call_id = f'call_{index}'
        messages.append(
            ModelResponse(parts=[TextPart('Looking.'), ToolCallPart(tool, {'q': index}, tool_call_id=call_id)])
        )
        messages.append(
            ModelRequest(parts=[ToolReturnPart(tool, content, tool_call_id=call_id, metadata={'n': index})])
        )
    messages.append(ModelResponse(parts=[TextPart('Done: req-00007 and 10.1.7.7.')]))
    return messages


Answer = Callable[[object, int], object]
"""(original content, budget tokens) -> summary."""


def head_items(items: object, count: int) -> list[JsonValue]:
    """The first `count` items of a list as a summary keeps them: `… N items omitted …` for the rest."""
    assert isinstance(items, list)
    kept: list[JsonValue] = items[:count]
    return kept + [items_marker(len(items) - count)] if len(items) > count else kept


def summarizer_model(answer: Answer, calls: list[object] | None = None) -> FunctionModel:
    """A FunctionModel answering each summary request with `answer(content, budget)`."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = messages[-1].parts[-1].content  # type: ignore[union-attr]
        block = parse_data_block(str(prompt))
        assert block is not None
        if calls is not None:
            calls.append(block.content)
        summary = answer(block.content, block.budget_tokens)
        if info.output_tools:
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {'summary': summary})])
        return ModelResponse(parts=[TextPart(summary if isinstance(summary, str) else json.dumps(summary))])

    return FunctionModel(respond, model_name='test-summarizer')


def compactor(model: FunctionModel | str = 'extractive', **overrides: object) -> Compactor:
    config = SummarizerConfig().override(**{'keep_recent': 0, **overrides})
    return Compactor(config=config, model=model)


@contextlib.asynccontextmanager
async def loop_gaps(interval: float) -> AsyncIterator[list[float]]:
    """The gaps between the ticks of a task sleeping `interval` at a time, while the block runs.

    A gap much longer than `interval` is a time the event loop was held up. One more tick after the
    block measures the gap a hold-up at its very end leaves.
    """
    gaps: list[float] = []

    async def tick() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(interval)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    try:
        yield gaps
        await asyncio.sleep(interval * 2)
    finally:
        ticker.cancel()


def random_json(rng: random.Random, depth: int = 0) -> JsonValue:
    """Scalars of every JSON type (empty strings, bools beside ints), lists and objects, empty ones too."""
    if depth > 3 or rng.random() < 0.5:
        return rng.choice(['', 'a', 'x y', 'z\nq', 0, 1, 2.5, True, False, None])
    if rng.random() < 0.5:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f'{rng.choice("kl")}{index}': random_json(rng, depth + 1) for index in range(rng.randint(0, 4))}
