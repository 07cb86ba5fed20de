"""Who reads which original: `read_tool_return` reads only its own conversation's (or the scope an application
sets), and every summarized return is readable, also where a conversation reuses a tool call id."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from helpers import BIG_OBJECT, BIG_TEXT
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
from pydantic_ai.tools import RunContext
from test_read_tool import Step, call, returns_of

from summarizer import Compactor, SummarizerConfig, SummarizeToolReturns

OTHER_TEXT = BIG_TEXT.replace('took 2100 ms', 'took 2101 ms')
"""Differs from BIG_TEXT only in a line its summary omits: the two get the same summary."""


def answers(messages: list[ModelMessage]) -> list[str]:
    return [part.model_response_str() for part in returns_of(messages, 'read_tool_return')]


async def run(
    summarize: SummarizeToolReturns,
    steps: list[Step],
    *,
    history: list[ModelMessage] | None = None,
    deps: object = None,
    seen: list[list[ModelMessage]] | None = None,
) -> list[ModelMessage]:
    """An agent run whose model answers step k with `steps[k]`; `logs`, `logs2` and `repo` return big contents."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if seen is not None:
            seen.append(list(messages))
        step = sum(1 for message in messages if isinstance(message, ModelResponse)) - (
            sum(1 for message in history or [] if isinstance(message, ModelResponse))
        )
        return steps[step](messages) if step < len(steps) else ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), capabilities=[summarize], deps_type=object)
    agent.tool_plain(name='logs')(lambda: BIG_TEXT)
    agent.tool_plain(name='logs2')(lambda: OTHER_TEXT)
    agent.tool_plain(name='repo')(lambda: BIG_OBJECT)
    result = await agent.run('find the slow request', message_history=history, deps=deps)
    return result.all_messages()


def read(call_id: str, **args: object) -> Step:
    return call('read_tool_return', f'read_{call_id}_{len(args)}', tool_call_id=call_id, **args)


async def test_another_conversation_holding_the_same_id_and_summary_cannot_read_the_original() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    first = await run(summarize, [call('logs', 'id_logs')])
    summary = returns_of(first, 'logs')[0].content
    assert isinstance(summary, str) and summary != BIG_TEXT

    # Another conversation (another user) whose history holds that id with that very summary
    forged: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('show me the logs')]),
        ModelResponse(parts=[ToolCallPart('logs', {}, tool_call_id='id_logs')]),
        ModelRequest(parts=[ToolReturnPart('logs', summary, tool_call_id='id_logs')]),
        ModelResponse(parts=[TextPart('Here they are.')]),
    ]
    second = await run(summarize, [read('id_logs', pattern='req-00421')], history=forged)
    (answer,) = answers(second)
    assert "The original of tool return 'id_logs' (logs) is not stored" in answer
    assert 'req-00421' not in answer


async def test_a_conversation_continued_in_a_new_run_reads_its_originals() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    first = await run(summarize, [call('logs', 'id_logs')])
    second = await run(summarize, [read('id_logs', pattern='req-00421')], history=first)
    (answer,) = answers(second)
    assert f'422: {BIG_TEXT.splitlines()[421]}' in answer.splitlines()


async def test_an_application_scope_keeps_tenants_apart_even_on_one_history() -> None:
    def tenant(ctx: RunContext[Any]) -> str:
        return str(ctx.deps)

    first = await run(SummarizeToolReturns(model='extractive', keep_recent=0, scope='tenant-a'), [call('logs', 'x')])
    other = await run(
        SummarizeToolReturns(model='extractive', keep_recent=0, scope='tenant-b'), [read('x')], history=first
    )
    assert "The original of tool return 'x' (logs) is not stored" in answers(other)[0]
    same = await run(
        SummarizeToolReturns(model='extractive', keep_recent=0, scope=tenant),
        [read('x', pattern='req-00421')],
        history=first,
        deps='tenant-a',
    )
    assert f'422: {BIG_TEXT.splitlines()[421]}' in answers(same)[0].splitlines()


async def test_an_earlier_return_under_a_reused_id_is_readable() -> None:
    """A recorded run reused one id for two tools; the earlier return was summarized, the later one not yet."""
    summarize = SummarizeToolReturns(model='extractive', keep_recent=1)
    seen: list[list[ModelMessage]] = []
    steps = [call('logs', 'dup'), call('repo', 'dup'), read('dup', pattern='req-00421')]
    messages = await run(summarize, steps, seen=seen)
    asked = seen[2]  # what the model saw when it asked
    assert returns_of(asked, 'logs')[0].content != BIG_TEXT and returns_of(asked, 'repo')[0].content == BIG_OBJECT
    (answer,) = answers(messages)
    assert answer.startswith('logs return dup')
    assert f'422: {BIG_TEXT.splitlines()[421]}' in answer.splitlines()


async def test_two_summarized_returns_under_one_id_are_each_readable_by_occurrence() -> None:
    """Even when their summaries are identical: the occurrence picks the original."""
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    steps = [
        call('logs', 'dup'),
        call('logs2', 'dup'),
        read('dup', pattern='req-00300 '),
        read('dup', pattern='req-00300 ', occurrence=1),
        read('dup', pattern='req-00300 ', occurrence=2),
        read('dup', occurrence=3),
    ]
    messages = await run(summarize, steps)
    first, second = returns_of(messages, 'logs')[0].content, returns_of(messages, 'logs2')[0].content
    assert first == second != BIG_TEXT  # the same summary for two originals
    listing, one, two, none = answers(messages)
    assert 'call read_tool_return again with one of occurrence=1 (logs), occurrence=2 (logs2)' in listing
    assert one.startswith('logs return dup') and one.splitlines()[1] == f'301: {BIG_TEXT.splitlines()[300]}'
    assert two.startswith('logs2 return dup') and two.splitlines()[1] == f'301: {OTHER_TEXT.splitlines()[300]}'
    assert 'occurrence 3 is none of them' in none


def reused_id_conversation(first_at: datetime, second_at: datetime) -> list[ModelMessage]:
    """Two `logs` returns under one id whose originals differ only in a line their summary omits."""
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('find the slow request')])]
    for text, at in ((BIG_TEXT, first_at), (OTHER_TEXT, second_at)):
        messages.append(ModelResponse(parts=[ToolCallPart('logs', {}, tool_call_id='dup')]))
        messages.append(ModelRequest(parts=[ToolReturnPart('logs', text, tool_call_id='dup', timestamp=at)]))
    return [*messages, ModelResponse(parts=[TextPart('ok')])]


async def test_a_history_trimmed_between_runs_reads_each_return_its_own_original() -> None:
    """The application drops its oldest messages: the return left is read by what it is, not where it is."""
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0, scope='tenant-1')
    at = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    conversation = reused_id_conversation(at, at.replace(second=5))
    compacted = (await summarize.compactor.compact(conversation)).messages  # type: ignore[union-attr]
    first, second = returns_of(compacted, 'logs')
    assert first.content == second.content != BIG_TEXT  # one summary for two originals
    untrimmed = answers(
        await run(summarize, [read('dup', pattern='req-00300 ', occurrence=n) for n in (1, 2)], history=compacted)
    )
    assert [answer.splitlines()[1] for answer in untrimmed] == [
        f'301: {BIG_TEXT.splitlines()[300]}',
        f'301: {OTHER_TEXT.splitlines()[300]}',
    ]
    trimmed = [compacted[0], *compacted[3:]]  # the first call and its return dropped
    (answer,) = answers(await run(summarize, [read('dup', pattern='req-00300 ')], history=trimmed))
    assert answer.splitlines()[1] == f'301: {OTHER_TEXT.splitlines()[300]}'  # its own: took 2101 ms


async def test_a_return_its_timestamp_cannot_tell_is_refused_with_what_is_kept() -> None:
    """Two originals kept for one timestamp (a history whose timestamps were lost): none is given as this one's."""
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0, scope='tenant-1')
    at = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    compacted = (await summarize.compactor.compact(reused_id_conversation(at, at))).messages  # type: ignore[union-attr]
    trimmed = [compacted[0], *compacted[3:]]
    (answer,) = answers(await run(summarize, [read('dup', pattern='req-00300 ')], history=trimmed))
    assert "2 different originals are kept under the summary of tool return 'dup' (logs)" in answer
    assert 'logs, ' in answer and 'from a return at 2026-03-01T12:00:00+00:00' in answer
    assert 'took 2100 ms' not in answer and 'took 2101 ms' not in answer  # neither original is shown


async def test_conversations_opening_with_one_greeting_read_only_their_own_originals() -> None:
    """An application opens every conversation with the same greeting (one message, one timestamp): its first
    prompt, not that greeting, tells a history compacted offline (no conversation id) from another user's."""
    greeting = ModelResponse(parts=[TextPart('Hi! How can I help you today?')])

    def history(prompt: str, content: str, *, day: int) -> list[ModelMessage]:
        return [
            greeting,
            ModelRequest(parts=[UserPromptPart(prompt, timestamp=datetime(2025, 1, day, tzinfo=UTC))]),
            ModelResponse(parts=[ToolCallPart('logs', {}, tool_call_id='call_1')]),
            ModelRequest(parts=[ToolReturnPart('logs', content, tool_call_id='call_1')]),
            ModelResponse(parts=[TextPart('ok')]),
        ]

    compacted = await Compactor(config=SummarizerConfig().override(keep_recent=0)).compact(
        history('show my logs', OTHER_TEXT, day=1)
    )
    summary = compacted.messages[3].parts[0]
    assert isinstance(summary, ToolReturnPart) and 'took 2101 ms' not in summary.model_response_str()
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    other_user = await run(
        summarize, [read('call_1', pattern='took 210')], history=history('hi', summary.content, day=2)
    )
    assert "The original of tool return 'call_1' (logs) is not stored" in answers(other_user)[0]
    owner = await run(summarize, [read('call_1', pattern='took 210')], history=compacted.messages)
    assert 'took 2101 ms' in answers(owner)[0]


async def test_a_greeting_that_calls_a_tool_before_any_prompt_tells_no_conversation_apart() -> None:
    """Every conversation opens with one greeting that calls a tool before the user says anything: a history
    compacted then (its originals under the greeting's scope) is no other conversation's to read."""
    greeting = ModelResponse(
        parts=[TextPart('Hi! Loading your dashboard'), ToolCallPart('logs', {}, tool_call_id='call_1')],
        timestamp=datetime(2025, 1, 1, tzinfo=UTC),
    )

    def history(content: str) -> list[ModelMessage]:
        return [
            greeting,
            ModelRequest(parts=[ToolReturnPart('logs', content, tool_call_id='call_1')]),
            ModelResponse(parts=[TextPart('ok')]),
        ]

    compacted = await Compactor(config=SummarizerConfig().override(keep_recent=0)).compact(history(OTHER_TEXT))
    summary = compacted.messages[1].parts[0]
    assert isinstance(summary, ToolReturnPart) and 'took 2101 ms' not in summary.model_response_str()

    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    other_user = await run(summarize, [read('call_1', pattern='took 210')], history=history(summary.content))
    assert "The original of tool return 'call_1' (logs) is not stored" in answers(other_user)[0]
