"""The cache-aware policy: a return is rewritten once, and only where what it saves repays the cache it breaks."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import compactor, summarizer_model
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
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings

from summarizer import PolicyConfig, Report, SummarizerConfig, run_cost
from summarizer.pipeline import HistorySession
from summarizer.pipeline._policy import Due, Ledger
from summarizer.pipeline._prices import PriceModel
from summarizer.pipeline._summarize import ServerUnreachable


def page(number: int, lines: int = 150) -> str:
    return '\n'.join(
        f'page {number} line {n}: order ORD-{number}{n:04d} shipped to depot {n % 9}' for n in range(lines)
    )


def run(steps: int, *, lines: int = 150) -> list[ModelMessage]:
    """A recorded run: a long system prompt, then `steps` tool calls each returning a page, then an answer."""
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart('You are a careful clerk. ' * 300), UserPromptPart('Check the orders.')])
    ]
    for step in range(steps):
        messages.append(ModelResponse(parts=[ToolCallPart('fetch', {'page': step}, tool_call_id=f'c{step}')]))
        messages.append(ModelRequest(parts=[ToolReturnPart('fetch', page(step, lines), tool_call_id=f'c{step}')]))
    messages.append(ModelResponse(parts=[TextPart('All checked.')]))
    return messages


async def replay_session(
    messages: list[ModelMessage], *, model: FunctionModel | str = 'extractive', **overrides: object
) -> tuple[list[ModelMessage], Report]:
    """Feed `messages` to a session request by request, as an agent run does; the last history and the report."""
    session = compactor(model, keep_recent=1, **overrides).session()
    history: list[ModelMessage] = []
    for index, message in enumerate(messages):
        history = [*history, message]
        if isinstance(message, ModelRequest) and index + 1 < len(messages):
            history = await session.process(history)
    return history, session.report


def whole(history: list[ModelMessage]) -> list[str]:
    return [
        part.tool_call_id
        for message in history
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.content == page(int(part.tool_call_id[1:]))
    ]


async def test_a_rewrite_that_cannot_pay_for_itself_in_a_short_run_is_not_made(
    tmp_path: pytest.TempPathFactory,
) -> None:
    history, report = await replay_session(run(2), originals={'directory': str(tmp_path)})
    assert whole(history) == ['c0', 'c1']  # the first page left the window, but one request cannot repay a rewrite
    assert report.summarized == 0 and report.requests == 3


async def test_a_long_run_rewrites_each_return_once_as_it_pays(tmp_path: pytest.TempPathFactory) -> None:
    history, report = await replay_session(run(12), originals={'directory': str(tmp_path)})
    assert whole(history)[-1] == 'c11'  # the newest stays whole
    assert len(whole(history)) < 6  # most older pages were rewritten ...
    assert report.summarized == 12 - len(whole(history))  # ... each once
    assert report.prompt_tokens < report.uncompacted_prompt_tokens


async def test_the_threshold_policy_rewrites_every_oversized_return_as_soon_as_it_is_due(
    tmp_path: pytest.TempPathFactory,
) -> None:
    history, report = await replay_session(
        run(2), originals={'directory': str(tmp_path)}, policy={'kind': 'threshold'}, threshold_tokens=500
    )
    assert whole(history) == ['c1'] and report.summarized == 1


async def test_a_run_continued_later_does_not_summarize_its_summaries_again(tmp_path: pytest.TempPathFactory) -> None:
    first, report = await replay_session(run(12), originals={'directory': str(tmp_path)})
    assert report.summarized
    # a new run over the compacted history (a new session walks it whole): summaries are known as summaries
    session = compactor(keep_recent=1, originals={'directory': str(tmp_path)}).session()
    again = await session.process([*first[:-1]])
    assert again == first[:-1] or all(a is b or a == b for a, b in zip(again, first[:-1]))
    assert session.report.summarized == 0


def test_the_ledger_counts_a_rewrite_as_a_provider_bills_it() -> None:
    """Cache read 0.1, write 1.25: rewriting a 4,000-token return to 1,000 just after it was cached."""
    ledger = Ledger(policy=PolicyConfig(cache_read=0.1, cache_write=1.25, horizon=1.0))
    ledger.record(tokens=2000, saved=0, rewritten_from=None)  # the system prompt: written
    ledger.record(tokens=6000, saved=0, rewritten_from=None)  # + a 4,000-token return: 2,000 read, 4,000 written
    assert ledger.credit == pytest.approx(0.0)
    due = [Due(position=2000, tokens=4000, budget=1000)]
    # now: the summary (1,000) and the new turn (500) written, the 2,000 before it read; no compaction: 6,000 read
    # and 500 written. So the rewrite costs 0.1*2000 + 1.25*1500 - (0.1*6000 + 1.25*500) = 850 now and saves
    # 0.1*3000 = 300 a request: with two requests made (expected: two more), it loses; with ten, it pays.
    assert ledger.choose(due, tokens=6500, saved=0) is None
    for _ in range(8):
        ledger.record(tokens=6000, saved=0, rewritten_from=None)
    assert ledger.choose(due, tokens=6500, saved=0) == 0
    usage = ledger.record(tokens=3500, saved=3000, rewritten_from=2000)
    assert usage.sent == (3500, 2000, 1500) and usage.uncompacted == (6500, 6000, 500)
    assert usage.rewrite_written == 1500  # all of it held in the cache before the rewrite


def test_a_deep_rewrite_costs_everything_behind_it() -> None:
    ledger = Ledger(policy=PolicyConfig(horizon=1.0))
    for _ in range(10):
        ledger.record(tokens=40_000, saved=0, rewritten_from=None)
    shallow = [Due(position=36_000, tokens=4000, budget=1000)]
    deep = [Due(position=2000, tokens=4000, budget=1000)]  # 34,000 cached tokens behind it would be written again
    assert ledger.choose(shallow, tokens=40_500, saved=0) == 0
    assert ledger.choose(deep, tokens=40_500, saved=0) is None


def test_a_report_is_priced_with_and_without_compaction() -> None:
    report = Report(
        requests=2,
        prompt_tokens=5000,
        prompt_cached_tokens=2000,
        prompt_written_tokens=3000,
        uncompacted_prompt_tokens=8000,
        uncompacted_cached_tokens=2000,
        uncompacted_written_tokens=6000,
    )
    cost = run_cost(report, 'anthropic:claude-sonnet-4-5')
    # $3 per million input tokens, $0.30 read from the cache, $3.75 written to it
    assert float(cost.compacted) == pytest.approx((2000 * 0.3 + 3000 * 3.75) / 1e6)
    assert float(cost.uncompacted) == pytest.approx((2000 * 0.3 + 6000 * 3.75) / 1e6)


def test_policy_settings_are_checked() -> None:
    with pytest.raises(ValueError, match='policy.kind'):
        SummarizerConfig().override(policy={'kind': 'sometimes'})
    with pytest.raises(ValueError, match='cache_write'):
        SummarizerConfig().override(policy={'cache_write': 0.5})


async def test_summaries_made_where_this_store_never_saw_them_are_not_summarized_again(tmp_path: Path) -> None:
    """A history compacted with the store off (or another machine's) and continued by a cache-aware run."""
    elsewhere = compactor(
        keep_recent=1, originals={'enabled': False}, policy={'kind': 'threshold'}, threshold_tokens=1500
    )
    compacted = (await elsewhere.compact(run(4))).messages
    summaries = [part for part in compacted[:-1] if isinstance(part, ModelRequest) for part in part.parts]
    assert any(
        isinstance(part, ToolReturnPart) and part.content != page(int(part.tool_call_id[1:])) for part in summaries
    )
    session = compactor(keep_recent=1, originals={'directory': str(tmp_path)}).session()
    assert await session.process(compacted[:-1]) == compacted[:-1]
    assert session.report.summarized == 0 and session.report.oversized == 0


async def test_a_run_continuing_a_long_history_does_not_rewrite_its_deep_prefix_at_once(tmp_path: Path) -> None:
    """The first request of a new run over a recorded history: the provider has likely cached that history."""
    history = run(12)[:-1]
    session = compactor(keep_recent=1, originals={'directory': str(tmp_path)}).session()
    output = await session.process(history)
    assert whole(output)[:9] == [f'c{step}' for step in range(9)]  # rewriting pages deep in it would pay no time soon
    assert session.report.prompt_cached_tokens == session.report.uncompacted_cached_tokens > 0


async def test_a_failed_rewrite_breaks_no_cache_in_the_ledger(tmp_path: Path) -> None:
    """Every summary refused by the checks: the prompts sent are the uncompacted ones, and so are their costs."""
    refusing = summarizer_model(lambda content, budget: content)  # the original itself: not smaller, refused
    _, report = await replay_session(run(12), model=refusing, originals={'directory': str(tmp_path)})
    assert report.failed and not report.summarized
    assert report.prompt_tokens == report.uncompacted_prompt_tokens
    assert report.prompt_cached_tokens == report.uncompacted_cached_tokens
    assert report.prompt_written_tokens == report.uncompacted_written_tokens


async def test_waiting_returns_priced_once_choose_as_if_priced_at_every_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A return waiting for its rewrite to pay keeps its price until a rewrite moves it: the same choices."""
    messages = run(1)[:-1]
    for step in range(1, 40):  # pages of many sizes: some wait for many requests, rewrites move them
        lines = (15, 60, 150, 400)[step % 4]
        messages.append(ModelResponse(parts=[ToolCallPart('fetch', {'page': step}, tool_call_id=f'c{step}')]))
        messages.append(ModelRequest(parts=[ToolReturnPart('fetch', page(step, lines), tool_call_id=f'c{step}')]))
    messages.append(ModelResponse(parts=[TextPart('All checked.')]))
    kept, kept_report = await replay_session(messages, originals={'directory': str(tmp_path / 'kept')})
    choose = HistorySession._choose  # pyright: ignore[reportPrivateUsage]

    def priced_anew(self: HistorySession, *args: Any, **kwargs: Any) -> Any:
        self._priced.clear()  # pyright: ignore[reportPrivateUsage]
        return choose(self, *args, **kwargs)

    monkeypatch.setattr(HistorySession, '_choose', priced_anew)
    anew, anew_report = await replay_session(messages, originals={'directory': str(tmp_path / 'anew')})
    assert kept_report.summarized > 3 and kept_report.requests == 41  # the task, then one per return
    assert kept == anew
    assert kept_report.prompt_tokens == anew_report.prompt_tokens
    assert kept_report.prompt_cached_tokens == anew_report.prompt_cached_tokens


async def test_returns_a_server_outage_left_waiting_are_rewritten_at_the_next_request(tmp_path: Path) -> None:
    """The history goes on as it is while the summarizer's server cannot be reached; then the same returns."""
    messages = run(12)
    steady, _ = await replay_session(messages, originals={'directory': str(tmp_path / 'steady')})
    session = compactor(keep_recent=1, originals={'directory': str(tmp_path / 'outage')}).session()
    answers = session._compactor.answers  # pyright: ignore[reportPrivateUsage]
    answer = answers.answer
    outages: list[int] = []

    async def unreachable_once(*args: Any, **kwargs: Any) -> Any:
        if not outages:
            outages.append(len(args[0]))
            raise ServerUnreachable('cannot reach the model server at http://127.0.0.1:9/v1/: connection refused')
        return await answer(*args, **kwargs)

    answers.answer = unreachable_once
    history: list[ModelMessage] = []
    for index, message in enumerate(messages):
        given = [*history, message]
        if not (isinstance(message, ModelRequest) and index + 1 < len(messages)):
            history = given
            continue
        failed_before = len(outages)
        history = await session.process(given)
        if index:  # the newest return, in the keep_recent window, stays whole throughout
            assert whole(history[-1:])
        if len(outages) > failed_before:
            assert history == given  # nothing rewritten while the server is away
    assert outages and outages[0] > 0
    assert whole(history) == whole(steady)  # every return the steady run rewrote is rewritten here too
    assert session.report.summarized == 12 - len(whole(history))


@pytest.mark.parametrize(
    ('name', 'read', 'write', 'minimum', 'tier'),
    [
        ('anthropic:claude-sonnet-4-5', 0.1, 1.25, 1024, '5-minute cache'),
        ('anthropic:claude-sonnet-4-5@1h', 0.1, 2.0, 1024, '1-hour cache'),
        ('anthropic:claude-haiku-4-5', 0.1, 1.25, 4096, '5-minute cache'),
        ('openai:gpt-5', 0.1, 1.0, 1024, 'cache, no expiry known'),
        ('openai:gpt-4.1', 0.25, 1.0, 1024, 'cache, no expiry known'),
    ],
)
def test_each_models_cache_terms_are_looked_up(name: str, read: float, write: float, minimum: int, tier: str) -> None:
    price = PriceModel.named(name)
    assert (price.cache.read, price.cache.write, price.cache.minimum) == pytest.approx((read, write, minimum))
    assert price.label.endswith(f'({tier})')


def test_the_1_hour_tier_bills_its_writes_at_its_own_price() -> None:
    five, hour = PriceModel.named('anthropic:claude-sonnet-4-5'), PriceModel.named('anthropic:claude-sonnet-4-5@1h')
    # $3.75 per million written to the 5-minute cache, $6 to the 1-hour one; reads $0.30 either way
    assert float(five.cost(prompt=3000, cached=1000, written=2000)) == pytest.approx((300 + 7500) / 1e6)
    assert float(hour.cost(prompt=3000, cached=1000, written=2000)) == pytest.approx((300 + 12000) / 1e6)


def test_the_session_takes_the_agents_models_terms_and_the_config_overrides_them() -> None:
    pytest.importorskip('anthropic')
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    anthropic = AnthropicModel('claude-haiku-4-5', provider=AnthropicProvider(api_key='not-used'))
    session = compactor(keep_recent=1).session()
    assert (session.cache.write, session.cache.minimum, session.cache.model) == (1.25, 1024, None)  # the defaults
    session.use_model(anthropic, ModelSettings(cache='1h'))
    assert (session.cache.read, session.cache.write, session.cache.minimum) == pytest.approx((0.1, 2.0, 4096))
    assert session.cache.retention == timedelta(hours=1)
    assert session.max_prompt_tokens == 200_000 - 20_000  # its context window, less a tenth for the answer

    configured = compactor(keep_recent=1, policy={'cache_write': 1.5, 'cache_minimum': 2048}).session()
    configured.use_model(OpenAIResponsesModel('gpt-4.1', provider=OpenAIProvider(api_key='not-used')))
    assert (configured.cache.read, configured.cache.write, configured.cache.minimum) == pytest.approx((0.25, 1.5, 2048))


def idle(messages: list[ModelMessage], *, before: int, minutes: float) -> list[ModelMessage]:
    """`messages` timestamped a second apart, with `minutes` of idleness before message `before`."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    stamped: list[ModelMessage] = []
    for index, message in enumerate(messages):
        at = start + timedelta(seconds=index, minutes=minutes if index >= before else 0)
        stamped.append(dataclasses.replace(message, timestamp=at))
    return stamped


async def test_a_gap_over_the_caches_lifetime_rewrites_every_due_return_at_no_cache_penalty(tmp_path: Path) -> None:
    five_minutes = PriceModel.named('anthropic:claude-sonnet-4-5').cache

    async def replayed(messages: list[ModelMessage], folder: str) -> tuple[list[ModelMessage], Report]:
        session = compactor(keep_recent=1, originals={'directory': str(tmp_path / folder)}).session(cache=five_minutes)
        history: list[ModelMessage] = []
        for index, message in enumerate(messages[:-1]):
            history = [*history, message]
            if isinstance(message, ModelRequest):
                history = await session.process(history)
        return history, session.report

    busy, busy_report = await replayed(idle(run(4), before=8, minutes=4), 'busy')
    assert whole(busy) == ['c0', 'c1', 'c2', 'c3'] and busy_report.summarized == 0  # too short a run to pay
    idled, report = await replayed(idle(run(4), before=8, minutes=6), 'idle')
    assert whole(idled) == ['c3'] and report.summarized == 3  # every due return, in one go
    assert report.uncompacted_cached_tokens < busy_report.uncompacted_cached_tokens  # the last request read nothing
    cost = run_cost(report, 'anthropic:claude-sonnet-4-5')
    assert cost.compacted < cost.uncompacted  # the rewrite broke no cache: it only saved
