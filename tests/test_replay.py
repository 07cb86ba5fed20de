"""`summarizer replay`: each recorded request re-sent through a strategy, and what it sends, costs and keeps."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from test_policy import idle, page, run

from summarizer import SummarizerConfig
from summarizer.cli import main
from summarizer.core._tokens import estimate_tokens
from summarizer.eval._replay import (
    MASK_PREFIX,
    NO_COMPACTION,
    ReplayHistory,
    Strategy,
    compared_strategies,
    masking,
    replay,
    replay_all,
)
from summarizer.pipeline._models import resolve_model
from summarizer.pipeline._prices import CacheModel, PriceModel

ANTHROPIC = PriceModel.named('anthropic:claude-sonnet-4-5')


def recorded(*returns: str, answer: str = 'Done.') -> list[ModelMessage]:
    messages: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart('Be brief.'), UserPromptPart('Go.')])]
    for index, content in enumerate(returns):
        messages.append(ModelResponse(parts=[ToolCallPart('look', {'n': index}, tool_call_id=f'c{index}')]))
        messages.append(ModelRequest(parts=[ToolReturnPart('look', content, tool_call_id=f'c{index}')]))
    messages.append(ModelResponse(parts=[TextPart(answer)]))
    return messages


def recording(strategy: Strategy, prompts: list[list[ModelMessage]]) -> Strategy:
    def start():  # type: ignore[no-untyped-def]
        process = strategy.start()

        async def recorded_process(messages: list[ModelMessage]) -> list[ModelMessage]:
            output = await process(messages)
            prompts.append(output)
            return output

        return recorded_process

    return Strategy(name=strategy.name, start=start)


async def test_no_compaction_reads_each_previous_prompt_from_the_cache() -> None:
    figures = await replay(run(3), NO_COMPACTION, prices=[ANTHROPIC])
    assert figures.requests == 4 and figures.rewrites == 0
    prompts = []
    for requests in range(1, 5):
        prompt = estimate_tokens('You are a careful clerk. ' * 300) + estimate_tokens('Check the orders.')
        for step in range(requests - 1):
            prompt += estimate_tokens('fetch' + json.dumps({'page': step}, separators=(',', ':')))
            prompt += estimate_tokens(page(step))
        prompts.append(prompt)
    assert figures.tokens_sent == sum(prompts) and figures.largest_prompt == prompts[-1]
    assert figures.cached[ANTHROPIC.name] == sum(prompts[:-1])  # each request reads the whole previous prompt


async def test_masking_replaces_all_but_the_last_returns_and_pays_for_the_rewrites() -> None:
    prompts: list[list[ModelMessage]] = []
    figures = await replay(run(4), recording(masking(2), prompts), prices=[ANTHROPIC])
    last = [part for message in prompts[-1] for part in message.parts if isinstance(part, ToolReturnPart)]
    assert [part.content == page(n) for n, part in enumerate(last)] == [False, False, True, True]
    assert str(last[0].content).startswith(MASK_PREFIX) and '150 lines' in str(last[0].content)
    assert figures.rewrites == 2  # requests 4 and 5 each masked one more return
    none = await replay(run(4), NO_COMPACTION, prices=[ANTHROPIC])
    assert figures.tokens_sent < none.tokens_sent and figures.cached[ANTHROPIC.name] < none.cached[ANTHROPIC.name]


def test_the_cache_serves_the_prefix_shared_with_the_previous_request() -> None:
    previous = [(b'a', 1500), (b'b', 3000), (b'c', 5000)]
    assert CacheModel().cached([(b'a', 1500), (b'b', 3000), (b'd', 3100)], previous) == 3000
    assert CacheModel().cached([(b'a', 1500), (b'x', 1600)], previous) == 1500
    assert CacheModel().cached([(b'y', 900)], [(b'y', 900)]) == 0  # under 1,024 tokens nothing is cached
    assert CacheModel(block=128).cached([(b'a', 1500)], previous) == 1024 + 384  # OpenAI's 128-token steps


async def test_next_step_facts_are_counted_where_the_prompt_still_holds_them() -> None:
    secret = 'order ORD-7731 is held at depot_north'
    messages = recorded(
        'noise\n' * 50 + secret + '\n' + 'noise\n' * 50, 'other output ' * 300, answer='Order ORD-7731 at depot_north.'
    )
    whole = await replay(messages, NO_COMPACTION, prices=[])
    masked = await replay(messages, masking(1), prices=[])
    assert whole.facts == masked.facts == 2  # ORD-7731 and depot_north, first seen in the first return
    assert whole.facts_present == 2 and masked.facts_present == 0


async def test_the_policy_sends_byte_identical_prompts_in_two_replays(tmp_path: Path) -> None:
    config = SummarizerConfig()
    history = run(12)
    runs: list[list[list[ModelMessage]]] = []
    for attempt in range(2):
        strategy = compared_strategies(config, model=resolve_model(config), scratch=tmp_path / str(attempt), masks=())[
            1
        ]
        prompts: list[list[ModelMessage]] = []
        await replay(history, recording(strategy, prompts), prices=[ANTHROPIC])
        runs.append(prompts)
    first, second = ([ModelMessagesTypeAdapter.dump_json(prompt) for prompt in prompts] for prompts in runs)
    assert first == second
    assert any(
        isinstance(part, ToolReturnPart) and part.content != page(int(part.tool_call_id[1:]))
        for message in runs[0][-1]
        for part in message.parts
    )  # something was summarized


async def test_a_corpus_replay_compares_every_strategy_with_no_compaction(tmp_path: Path) -> None:
    config = SummarizerConfig()
    strategies = compared_strategies(config, model=resolve_model(config), scratch=tmp_path, masks=(3,))
    result = await replay_all(
        [ReplayHistory('short', run(2)), ReplayHistory('long', run(14))], strategies, prices=[ANTHROPIC]
    )
    assert result.strategies == ['none', 'policy', 'threshold', 'head', 'mask-3']
    assert result.dearer('none', ANTHROPIC.name) == []
    assert result.total('policy').tokens_sent < result.total('none').tokens_sent
    assert result.figures['policy']['short'].tokens_sent == result.figures['none']['short'].tokens_sent


def test_the_command_writes_the_report_of_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / 'runs'
    folder.mkdir()
    (folder / 'long.json').write_bytes(ModelMessagesTypeAdapter.dump_json(run(10)))
    report = tmp_path / 'report'
    assert main(['replay', str(folder), '--report', str(report), '--mask', '2', '--price-model', 'openai:gpt-5']) == 0
    printed = capsys.readouterr().out
    assert '| policy |' in printed and '| mask-2 |' in printed and 'openai:gpt-5' in printed
    data = json.loads((report / 'replay.json').read_text())
    assert data['histories'] == ['long'] and set(data['strategies']) == {
        'none',
        'policy',
        'threshold',
        'head',
        'mask-2',
    }
    assert '| long | 11 |' in (report / 'replay.md').read_text()


def test_a_report_that_would_overwrite_an_input_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = ModelMessagesTypeAdapter.dump_json(run(2))
    (tmp_path / 'replay.json').write_bytes(history)
    assert main(['replay', str(tmp_path), '--report', str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f'summarizer: {tmp_path / "replay.json"}: --report {tmp_path} would overwrite this input: choose another '
        'place for the report\n'
    )
    assert (tmp_path / 'replay.json').read_bytes() == history and not (tmp_path / 'replay.md').exists()


def test_what_is_no_history_is_skipped_with_one_line_each_as_eval_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `manifest.json` beside the runs, a broken JSONL line: skipped and named, the rest replayed."""
    folder = tmp_path / 'runs'
    folder.mkdir()
    history = ModelMessagesTypeAdapter.dump_json(run(3))
    (folder / 'long.json').write_bytes(history)
    (folder / 'manifest.json').write_text('{"runs": ["long.json"]}', encoding='utf-8')
    (folder / 'more.jsonl').write_bytes(history + b'\n[{"kind": "request", "parts": [}]\n')
    report = tmp_path / 'report'
    assert main(['replay', str(folder), '--report', str(report), '--mask', '2']) == 0
    skipped = [line for line in capsys.readouterr().err.splitlines() if line.startswith('summarizer replay: skipped')]
    assert skipped == [
        f'summarizer replay: skipped {folder / "manifest.json"}: expected a JSON list of messages, found dict',
        f'summarizer replay: skipped {folder / "more.jsonl"}:2 message 0: invalid JSON at line 1 column 32: Expecting value',
    ]
    data = json.loads((report / 'replay.json').read_text())
    assert data['histories'] == ['long', f'{folder / "more.jsonl"}:1'] and len(data['skipped']) == 2
    assert '## Skipped histories' in (report / 'replay.md').read_text()


def test_a_folder_of_no_histories_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / 'manifest.json').write_text('{}', encoding='utf-8')
    assert main(['replay', str(tmp_path), '--report', str(tmp_path / 'report')]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f'summarizer: {tmp_path}: no histories found (1 history skipped)'
    assert not (tmp_path / 'report').exists()


def test_an_unknown_price_model_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / 'a.json').write_bytes(ModelMessagesTypeAdapter.dump_json(run(2)))
    assert main(['replay', str(tmp_path), '--price-model', 'nosuch:model-x']) == 2
    error = capsys.readouterr().err.strip()
    assert error.count('\n') == 0 and 'nosuch:model-x' in error


def test_an_unreachable_summarizer_server_stops_the_replay_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Figures without the summaries would pass for the policy's: the replay stops, as compact and batch do."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    (tmp_path / 'runs').mkdir()
    (tmp_path / 'runs' / 'long.json').write_bytes(ModelMessagesTypeAdapter.dump_json(run(10)))
    config = tmp_path / 'server.yaml'
    config.write_text(f'model: some-model\nbase_url: http://127.0.0.1:{port}/v1\n', encoding='utf-8')
    report = tmp_path / 'report'
    assert main(['replay', str(tmp_path / 'runs'), '--config', str(config), '--report', str(report)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count('\n') == 1 and f'cannot reach the model server at http://127.0.0.1:{port}' in captured.err
    assert not report.exists()


async def test_a_cache_expired_by_a_recorded_gap_is_priced_as_nothing_read() -> None:
    gpt = PriceModel.named('openai:gpt-5')  # no retention known: never expires in a replay
    busy = await replay(idle(run(3), before=6, minutes=4), NO_COMPACTION, prices=[ANTHROPIC, gpt])
    idled = await replay(idle(run(3), before=6, minutes=6), NO_COMPACTION, prices=[ANTHROPIC, gpt])
    prompt = estimate_tokens('You are a careful clerk. ' * 300) + estimate_tokens('Check the orders.')
    last_but_one = prompt + sum(
        estimate_tokens('fetch' + json.dumps({'page': step}, separators=(',', ':'))) + estimate_tokens(page(step))
        for step in range(2)
    )
    assert busy.cached[ANTHROPIC.name] - idled.cached[ANTHROPIC.name] == last_but_one  # the 4th request read nothing
    assert busy.cached[gpt.name] == idled.cached[gpt.name]
    assert idled.cost[ANTHROPIC.name] > busy.cost[ANTHROPIC.name]
