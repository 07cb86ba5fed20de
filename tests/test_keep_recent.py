"""`keep_recent` counts turns: the returns answering one model response are kept or summarized together.

With three parallel tool calls and `keep_recent=1`, counting returns kept only the last of the three
whole: the model's first view of the other two fresh results was already a summary. Now the model
sees each fresh result whole at least once, however many calls one response makes.
"""

from __future__ import annotations

from helpers import compactor
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from summarizer import SummarizerConfig
from summarizer.capability import SummarizeToolReturns


def page(number: int) -> str:
    return '\n'.join(f'page {number} line {n}: order ORD-{number}{n:04d} shipped to depot {n % 9}' for n in range(120))


def returns_of(message: ModelMessage) -> dict[str, object]:
    return {part.tool_call_id: part.content for part in message.parts if isinstance(part, ToolReturnPart)}


async def test_three_parallel_results_are_seen_whole_by_the_model() -> None:
    views: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        views.append(list(messages))
        turn = len(views) - 1
        if turn == 0:
            return ModelResponse(parts=[ToolCallPart('fetch', {'number': n}, tool_call_id=f'c{n}') for n in range(3)])
        if turn == 1:
            return ModelResponse(parts=[ToolCallPart('fetch', {'number': 9}, tool_call_id='c9')])
        return ModelResponse(parts=[TextPart('All fetched.')])

    # the window, not the cache-aware gate (test_policy.py): every oversized return as soon as it is due
    summarize = SummarizeToolReturns(
        config=SummarizerConfig().override(threshold_tokens=300, keep_recent=1), policy='threshold'
    )
    agent = Agent(FunctionModel(model), capabilities=[summarize])

    @agent.tool_plain
    def fetch(number: int) -> str:
        return page(number)

    await agent.run('Fetch the pages.')
    assert len(views) == 3
    assert returns_of(views[1][-1]) == {f'c{n}': page(n) for n in range(3)}  # all three whole
    older = returns_of(views[2][-3])
    assert set(older) == {'c0', 'c1', 'c2'}
    assert all(len(str(older[f'c{n}'])) < len(page(n)) / 2 for n in range(3))  # then summarized together
    assert returns_of(views[2][-1]) == {'c9': page(9)}
    assert summarize.report.summarized == 3


def parallel_history() -> list[ModelMessage]:
    """Turns of 3, 1 and 2 parallel calls; the last turn's returns are split over two requests."""
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('Fetch the pages.')])]
    for turn, numbers in enumerate([(0, 1, 2), (3,), (4, 5)]):
        calls = [ToolCallPart('fetch', {'number': n}, tool_call_id=f'c{n}') for n in numbers]
        messages.append(ModelResponse(parts=[TextPart(f'Turn {turn}.'), *calls]))
        returns = [ToolReturnPart('fetch', page(n), tool_call_id=f'c{n}') for n in numbers]
        if len(returns) == 2:
            messages.extend([ModelRequest(parts=returns[:1]), ModelRequest(parts=returns[1:])])
        else:
            messages.append(ModelRequest(parts=returns))
    return messages


async def test_compact_keeps_the_returns_of_the_last_turns() -> None:
    expected = {0: [], 1: ['c4', 'c5'], 2: ['c3', 'c4', 'c5'], 3: ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']}
    for keep_recent, whole in expected.items():
        result = await compactor(keep_recent=keep_recent).compact(parallel_history())
        kept = [
            part.tool_call_id
            for message in result.messages
            for part in message.parts
            if isinstance(part, ToolReturnPart) and part.content == page(int(part.tool_call_id[1:]))
        ]
        assert kept == whole, keep_recent
        assert result.report.summarized == 6 - len(whole)


async def test_a_session_fed_request_by_request_keeps_the_same_window() -> None:
    """The incremental session (agent runs) walks only what is new, and agrees with `compact`."""
    history = parallel_history()
    session = compactor(keep_recent=1, policy={'kind': 'threshold'}).session()  # the window, not the gate
    processed: list[ModelMessage] = []
    for message in history:
        processed = await session.process([*processed, message])
    whole = [
        part.tool_call_id
        for message in processed
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.content == page(int(part.tool_call_id[1:]))
    ]
    assert whole == ['c4', 'c5']
    assert session.report.summarized == 4
