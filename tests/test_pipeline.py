"""The whole in-memory pipeline: what is a candidate, idempotence, messy histories, the post-check."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, compactor, history
from pydantic_ai import PydanticAIDeprecationWarning
from pydantic_ai.messages import (
    BinaryContent,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from summarizer import CheckFailed, Compactor, SummarizerConfig, ToolRule
from summarizer.core import JsonValue
from summarizer.core._tokens import content_tokens
from summarizer.pipeline import EmbeddedRequest, embedded_model, extractive_summary
from summarizer.pipeline._check import check_history, check_integrity, integrity_problems


def returns(messages: list) -> list[ToolReturnPart]:  # type: ignore[type-arg]
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


async def test_only_tool_return_content_changes() -> None:
    messages = history(BIG_TEXT, BIG_LIST, BIG_OBJECT)
    messages[0].parts.append(UserPromptPart(BIG_TEXT))  # huge prompts are never touched
    messages[1].parts.insert(0, ThinkingPart(BIG_TEXT))
    messages[1].parts[-1].args = {'q': BIG_TEXT}  # type: ignore[union-attr]
    result = await compactor().compact(messages)
    assert result.report.summarized == 3
    assert result.messages[0] is messages[0] and result.messages[1] is messages[1]
    for before, after in zip(returns(messages), returns(result.messages)):
        assert dataclasses.replace(after, content=before.content) == before
        assert content_tokens(after.content) < 1000


async def test_compaction_is_idempotent() -> None:
    once = await compactor().compact(history(BIG_TEXT, BIG_LIST, BIG_OBJECT))
    twice = await compactor().compact(once.messages)
    assert twice.report.oversized == 0 and twice.messages == once.messages


async def test_keep_recent_and_per_tool_rules() -> None:
    messages = history(BIG_TEXT, BIG_LIST, BIG_OBJECT)
    result = await compactor(keep_recent=1).compact(messages)
    assert [r.content is o.content for r, o in zip(returns(result.messages), returns(messages))] == [False, False, True]

    config = SummarizerConfig().override(keep_recent=0, tools={'search': ToolRule(skip=True)})
    from summarizer import Compactor

    assert (await Compactor(config=config).compact(messages)).report.oversized == 0
    config = dataclasses.replace(config, tools={'search': ToolRule(threshold_tokens=100_000)})
    assert (await Compactor(config=config).compact(messages)).report.oversized == 0


async def test_binary_scalar_and_retry_contents_are_never_candidates() -> None:
    messages = history([BinaryContent(b'x' * 50_000, media_type='image/png'), 'caption ' * 2000], 12345, BIG_TEXT)
    retried = messages[6].parts[0]
    assert isinstance(retried, ToolReturnPart)
    messages[6].parts[0] = dataclasses.replace(retried, outcome='retried')  # a retry prompt, not tool output
    result = await compactor().compact(messages)
    assert result.report.returns_examined == 3 and result.report.oversized == 0


async def test_messy_history_is_compacted_and_its_problems_reported_not_introduced() -> None:
    messages = history(BIG_TEXT, BIG_LIST)
    # the id of the first round is reused by the second round, the last call is never answered,
    # and two responses follow each other
    messages[3].parts[1] = dataclasses.replace(messages[3].parts[1], tool_call_id='call_0')  # type: ignore[arg-type]
    messages[4].parts[0] = dataclasses.replace(messages[4].parts[0], tool_call_id='call_0')  # type: ignore[arg-type]
    messages.insert(5, ModelResponse(parts=[TextPart('thinking aloud')]))
    messages.append(ModelResponse(parts=[ToolCallPart('search', {'q': 'last'}, tool_call_id='call_9')]))
    problems = integrity_problems(messages)
    assert [(p.message_index, p.tool_call_id, p.problem) for p in problems] == [(7, 'call_9', 'call never answered')]
    result = await compactor().compact(messages)
    assert result.report.summarized == 2 and result.report.integrity == problems


def test_integrity_pairs_with_the_response_just_before() -> None:
    messages = history(BIG_TEXT)
    messages[2].parts.append(ToolReturnPart('search', 'x', tool_call_id='ghost'))
    messages[2].parts.append(ToolReturnPart('search', 'bad args', tool_call_id='call_0', outcome='retried'))
    found = {(p.tool_call_id, p.problem) for p in integrity_problems(messages)}
    assert found == {('ghost', 'return without a call in the response before'), ('call_0', 'answered more than once')}


def test_integrity_reads_a_legacy_retry_prompt_built_in_memory() -> None:
    """Older pydantic-ai builds `RetryPromptPart`s, and 2.68 still passes on one that user code built."""
    with pytest.warns(PydanticAIDeprecationWarning, match='RetryPromptPart'):
        legacy = RetryPromptPart('bad args', tool_name='search', tool_call_id='call_0')
    messages = history(BIG_TEXT)
    messages[2].parts.append(legacy)
    found = {(p.tool_call_id, p.problem) for p in integrity_problems(messages)}
    assert found == {('call_0', 'answered more than once')}


def test_post_check_catches_changes_outside_contents() -> None:
    before = history(BIG_TEXT)
    after = list(before)
    part = before[2].parts[0]
    assert isinstance(part, ToolReturnPart)
    after[2] = dataclasses.replace(before[2], parts=[dataclasses.replace(part, content='short', tool_call_id='other')])
    with pytest.raises(CheckFailed, match='other than content'):
        check_history(before, after, {(2, 0): BIG_TEXT})
    after[2] = dataclasses.replace(before[2], parts=[dataclasses.replace(part, content='short')])
    check_history(before, after, {(2, 0): BIG_TEXT})
    after[1] = dataclasses.replace(before[1], parts=[TextPart('edited')])
    with pytest.raises(CheckFailed, match='message 1'):
        check_history(before, after, {(2, 0): BIG_TEXT})


def test_integrity_around_the_changed_messages_sees_problems_at_their_neighbours() -> None:
    """Only the changed message and the two next to it are compared, which is where a change shows."""
    before = history(BIG_TEXT)
    part = before[2].parts[0]
    assert isinstance(part, ToolReturnPart)
    after = list(before)
    after[2] = dataclasses.replace(before[2], parts=[dataclasses.replace(part, tool_call_id='other')])
    with pytest.raises(CheckFailed, match="message 1: tool call 'call_0': call never answered"):
        check_integrity(before, after, changed={2})


async def test_the_embedded_model_is_called_on_the_content_itself() -> None:
    """No prompt is written for it and read back: it gets the very content object, and its summary as it made it."""
    seen: list[object] = []

    def spy(request: EmbeddedRequest) -> JsonValue:
        seen.append(request.content)
        made.append(extractive_summary(request))
        return made[-1]

    made: list[JsonValue] = []
    messages = history(BIG_OBJECT)
    original = returns(messages)[0].content
    result = await Compactor(config=SummarizerConfig(keep_recent=0), model=embedded_model('spy', spy)).compact(messages)
    assert len(seen) == 1 and seen[0] is original
    assert returns(result.messages)[0].content is made[0]


async def test_embedded_model_keeps_facts_and_compresses() -> None:
    result = await compactor().compact(history(BIG_TEXT))
    summary = returns(result.messages)[0].content
    assert isinstance(summary, str)
    assert summary.startswith('log line 0:') and 'log line 599' in summary
    assert 'req-00000' in summary and 'req-00599' in summary
    assert result.report.tokens_after < result.report.tokens_before * 0.25
