"""The context ceiling (`policy.max_prompt_tokens`): a run that would cross it is brought under it in one rewrite."""

from __future__ import annotations

from pathlib import Path

from helpers import compactor, summarizer_model
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from test_policy import page, run

from summarizer.capability import SummarizeToolReturns
from summarizer.core import estimate_tokens, message_texts
from summarizer.eval._replay import MASK_PREFIX, Strategy, masking_to, replay
from summarizer.pipeline._ceiling import ROOM, Cut, fit
from summarizer.pipeline._originals import READ_HINT
from summarizer.pipeline._prices import PriceModel


def prompt_tokens(messages: list[ModelMessage]) -> int:
    return sum(estimate_tokens(text) for message in messages for text in message_texts(message))


def returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [
        part for m in messages if isinstance(m, ModelRequest) for part in m.parts if isinstance(part, ToolReturnPart)
    ]


async def requests(messages: list[ModelMessage], tmp_path: Path, **overrides: object) -> list[tuple[int, int, bool]]:
    """Feed `messages` to a session request by request: per request, the prompt's tokens given and sent, and
    whether what was sent rewrote the history returned before (the cache broke)."""
    session = compactor('extractive', keep_recent=1, originals={'directory': str(tmp_path)}, **overrides).session()
    history: list[ModelMessage] = []
    sent: list[tuple[int, int, bool]] = []
    for index, message in enumerate(messages):
        given = [*history, message]
        if not (isinstance(message, ModelRequest) and index + 1 < len(messages)):
            history = given
            continue
        output = await session.process(given)
        rewrote = any(a is not b and a != b for a, b in zip(output, history))
        sent.append((prompt_tokens(given), prompt_tokens(output), rewrote))
        history = output
    return sent


async def test_a_run_crossing_the_ceiling_is_brought_under_it_in_one_rewrite(tmp_path: Path) -> None:
    # a system prompt of 1,875 tokens, then pages of 1,923: the fifth request would be over 10,000
    sent = await requests(run(8), tmp_path, policy={'max_prompt_tokens': 10_000, 'horizon': 0.0})
    crossing = next(index for index, (given, _, _) in enumerate(sent) if given > 10_000)
    assert [rewrote for _, _, rewrote in sent[:crossing]] == [False] * crossing  # no rewrite pays in a short run
    assert all(tokens <= 10_000 for _, tokens, _ in sent)
    _, after, rewrote = sent[crossing]
    assert rewrote and after <= 10_000 * (1 - ROOM)  # room left for the next turn ...
    assert not sent[crossing + 1][2]  # ... which fits without breaking the cache again


async def test_the_oldest_returns_become_markers_naming_the_read_tool_when_summaries_are_not_enough(
    tmp_path: Path,
) -> None:
    session = compactor(
        keep_recent=1, originals={'directory': str(tmp_path)}, policy={'max_prompt_tokens': 4000}
    ).session()
    messages = run(6)[:-1]
    output = await session.process(messages)
    assert prompt_tokens(output) <= 4000 and session.report.over_ceiling == 0
    contents = [part.content for part in returns(output)]
    assert contents[-1] == page(5)  # the keep_recent window stays whole
    assert contents[0] == f'… 150 lines omitted …{READ_HINT}'  # the oldest, cut furthest
    store = session._compactor.originals  # pyright: ignore[reportPrivateUsage]
    assert all(store.is_summary(part.tool_call_id, str(part.content)) for part in returns(output)[:-1])


async def test_a_system_prompt_over_the_ceiling_alone_is_reported_not_broken(tmp_path: Path) -> None:
    messages = run(3)
    first = messages[0]
    assert isinstance(first, ModelRequest)
    messages[0] = ModelRequest(parts=first.parts, instructions='Follow the house rules. ' * 400)  # 2,400 tokens
    session = compactor(
        keep_recent=1, originals={'directory': str(tmp_path)}, policy={'max_prompt_tokens': 1000}
    ).session()
    history: list[ModelMessage] = []
    for index, message in enumerate(messages[:-1]):
        history = [*history, message]
        if isinstance(message, ModelRequest):
            history = await session.process(history)
            assert prompt_tokens(history) > 1000, index
    assert session.report.over_ceiling == session.report.requests == 4  # each request sent, and said so
    assert history[0] is messages[0] and len(history) == len(messages) - 1
    assert all(a == b for a, b in zip(history, messages) if isinstance(a, ModelRequest) is False)
    assert [part.content for part in returns(history)][-1] == page(2)  # the window stays whole


def test_the_oldest_due_returns_are_cut_furthest_and_only_as_far_as_needed() -> None:
    # per return, what its summary, a brief summary and a marker take out
    removals = [(300, 380, 395), (300, 380, 395), (300, 380, 395)]
    assert fit(removals, excess=900) == ([Cut.SUMMARY] * 3, 900)
    assert fit(removals, excess=1000) == ([Cut.BRIEF, Cut.BRIEF, Cut.SUMMARY], 1060)
    assert fit(removals, excess=1150) == ([Cut.MARKER, Cut.BRIEF, Cut.BRIEF], 1155)
    assert fit(removals, excess=1200) == ([Cut.MARKER] * 3, 1185)  # short of it: all it can


async def test_masking_to_a_ceiling_masks_the_oldest_returns_until_the_prompt_fits() -> None:
    prompts: list[list[ModelMessage]] = []
    strategy = masking_to(6000)
    process = strategy.start()

    async def recorded(messages: list[ModelMessage]) -> list[ModelMessage]:
        prompts.append(await process(messages))
        return prompts[-1]

    figures = await replay(
        run(6),
        Strategy(name=strategy.name, start=lambda: recorded),
        prices=[PriceModel.named('anthropic:claude-sonnet-4-5')],
        ceiling=6000,
    )
    assert figures.over_ceiling == 0 and figures.largest_prompt <= 6000
    last = [str(part.content) for part in returns(prompts[-1])]
    masked = [content.startswith(MASK_PREFIX) for content in last]
    assert masked == sorted(masked, reverse=True) and 0 < sum(masked) < len(masked)  # the oldest, and only those


async def test_in_an_agent_the_ceiling_defaults_to_the_models_context_window(tmp_path: Path) -> None:
    seen: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(prompt_tokens(messages))
        made = sum(isinstance(message, ModelResponse) for message in messages)
        if made < 6:
            return ModelResponse(parts=[ToolCallPart('fetch', {'number': made}, tool_call_id=f'c{made}')])
        return ModelResponse(parts=[TextPart('done')])

    summarize = SummarizeToolReturns(keep_recent=1, originals={'directory': str(tmp_path)})
    agent = Agent(FunctionModel(respond, profile={'context_window': 8000}), capabilities=[summarize])
    agent.tool_plain(name='fetch')(page)
    await agent.run('Check the orders.')
    assert max(seen) <= 8000 - 800 < sum(estimate_tokens(page(n)) for n in range(6))  # less a tenth for the answer
    assert summarize.report.over_ceiling == 0 and summarize.report.summarized


async def test_a_summary_cut_later_to_a_marker_counts_as_one_summarized_return(tmp_path: Path) -> None:
    """The report counts returns: one summarized early in the run and cut to a marker for the ceiling later is one."""
    session = compactor(
        keep_recent=1,
        originals={'directory': str(tmp_path)},
        policy={'kind': 'threshold', 'max_prompt_tokens': 8000},
    ).session()
    messages = run(16)
    originals = [part.content for part in returns(messages)]
    summaries: set[int] = set()  # returns seen as a summary (neither the original nor a marker) at some request
    history: list[ModelMessage] = []
    for index, message in enumerate(messages[:-1]):
        history = [*history, message]
        if isinstance(message, ModelRequest) and index:
            history = await session.process(history)
            for number, part in enumerate(returns(history)):
                if part.content != originals[number] and not str(part.content).startswith('… 150 lines omitted …'):
                    summaries.add(number)
    contents = [str(part.content) for part in returns(history)]
    assert any(contents[number].startswith('… 150 lines omitted …') for number in summaries)  # a summary, then a marker
    changed = sum(content != original for content, original in zip(contents, originals, strict=True))
    report = session.report
    assert report.summarized == report.oversized == changed
    assert report.tokens_before == sum(estimate_tokens(original) for original in originals[: len(contents) - 1])
    assert report.tokens_after == sum(estimate_tokens(content) for content in contents[:-1])


async def test_a_return_whose_summary_failed_then_cut_to_a_marker_counts_once(tmp_path: Path) -> None:
    """A first try that kept the original, then a marker for the ceiling: one summarized return, its tokens once."""
    session = compactor(
        summarizer_model(lambda content, budget: 'a sentence that stands on no line of the original'),
        keep_recent=1,
        originals={'directory': str(tmp_path)},
        policy={'kind': 'threshold', 'max_prompt_tokens': 8000},
    ).session()
    messages = run(16)
    history: list[ModelMessage] = []
    for index, message in enumerate(messages[:-1]):
        history = [*history, message]
        if isinstance(message, ModelRequest) and index:
            history = await session.process(history)
    originals = [part.content for part in returns(messages)][:-1]
    contents = [str(part.content) for part in returns(history)]
    report = session.report
    assert report.failed and report.summarized == sum(c != o for c, o in zip(contents, originals, strict=False))
    assert report.oversized == len(contents) - 1  # every return but the window's, once
    assert report.tokens_before == sum(estimate_tokens(original) for original in originals[: len(contents) - 1])
    assert report.tokens_after == sum(estimate_tokens(content) for content in contents[:-1])
