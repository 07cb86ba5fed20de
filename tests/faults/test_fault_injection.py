"""The pipeline against an unreliable OpenAI-compatible server: nothing lost, every failure counted.

The server decides each request's fault from a fixed seed, and logs every request. From that log
alone the test predicts, per content, how many attempts it took, whether it ended summarized or kept
as the original, and why; the pipeline's report must agree exactly.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, history
from pydantic_ai.direct import model_request
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ToolReturnPart
from unreliable_openai import FAULTS, RETRY_AFTER_SECONDS, FakeOpenAI, Fault, Request, content_key

from summarizer import Compactor, Report, SummarizerConfig
from summarizer.cli import main
from summarizer.core._shape import JsonValue
from summarizer.pipeline import _summarize
from summarizer.pipeline._check import check_history
from summarizer.stored._stored import StoredHistory, check_rewrite

FAULT_RATE = 0.3
SEED = 2
BATCH_SEED = 1
"""Seeds under which the runs meet faults of many kinds, retries after a 429 and kept originals."""
MAX_RETRIES = 3
TRANSIENT: frozenset[Fault] = frozenset(
    {'rate_limit', 'server_error', 'unavailable', 'hang', 'drop', 'truncated', 'invalid_json'}
)
"""Faults worth another attempt; `wrong_shape` and `too_long` end a content's attempts at once."""
REASON: dict[Fault, str] = {
    'rate_limit': 'ModelRateLimitError',
    'server_error': 'ModelServerError',
    'unavailable': 'ModelOverloadedError',
    'hang': 'timed out',
    'drop': 'ModelConnectionError',
    'truncated': 'ModelAPIError: Failed to decode response as JSON',
    'invalid_json': 'ModelAPIError: Failed to decode response as JSON',
    'wrong_shape': 'UnexpectedModelBehavior',
    'too_long': 'not smaller than the original',
}
"""What the report says when a content's last attempt met the fault."""


def contents(count: int) -> list[JsonValue]:
    """Distinct oversized contents of all three shapes (distinct, so none shares another's request)."""
    made: list[JsonValue] = []
    for index in range(count):
        if index % 3 == 0:
            made.append(f'{BIG_TEXT}\nvariant {index}')
        elif index % 3 == 1:
            made.append([f'{item} (variant {index})' for item in BIG_LIST])
        else:
            made.append({**BIG_OBJECT, 'repo': f'acme/widgets-{index}'})
    return made


def fault_config(base_url: str, **overrides: object) -> SummarizerConfig:
    return SummarizerConfig().override(
        **{
            'model': 'fake-provider',
            'base_url': base_url,
            'keep_recent': 0,
            'concurrency': 4,
            'timeout_seconds': 5,
            'max_retries': MAX_RETRIES,
            'retry_initial_seconds': 0.01,
            'retry_max_seconds': RETRY_AFTER_SECONDS + 1,
            **overrides,
        }
    )


@pytest.fixture(scope='module')
def hang_timeout() -> float:
    """The client timeout of the fault runs: 5 s, or 10 times the slowest answer of a fault-free run here, if longer.

    A request's time includes waiting for this process's event loop and for a CPU, so on a loaded
    machine (a parallel test worker next door) a healthy answer can take seconds; a fixed timeout then
    turns it into a hang the server never injected, and the outcomes predicted from the server's log no
    longer match (the test was flaky so). Measured once for the module, after a first request has done
    the client's one-time imports and set-up: under load the runs get slower, never wrong.
    """
    return asyncio.run(_timeout_only_a_hang_reaches())


async def _timeout_only_a_hang_reaches() -> float:
    slowest = 0.0

    async def timed(*args: object, **kwargs: object) -> object:
        nonlocal slowest
        start = time.monotonic()
        try:
            return await model_request(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            slowest = max(slowest, time.monotonic() - start)

    with FakeOpenAI().serve() as base_url:
        config = fault_config(base_url, cache={'enabled': False})
        await Compactor(config=config).compact(history(BIG_TEXT))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_summarize, 'model_request', timed)
            await Compactor(config=config).compact(history(*contents(12)))
    return max(5.0, 10 * slowest)


@pytest.fixture
def server() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI(fault_rate=FAULT_RATE, seed=SEED, hang_seconds=600)  # a hang outlasts any client timeout
    with fake.serve() as base_url:
        yield fake, base_url


def tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def expected_outcomes(log: list[Request]) -> tuple[bool, str | None]:
    """From one content's requests: (summarized?, the reason it was kept, if it was)."""
    last = log[-1].fault
    return last is None, None if last is None else REASON[last]


def fault_figures(server: FakeOpenAI, report: Report) -> dict[str, object]:
    """What the run met and did, as reported in the project's notes."""
    injected = {kind: sum(1 for r in server.requests if r.fault == kind) for kind in FAULTS}
    recovered = sum(1 for log in server.by_content().values() if log[-1].fault is None and any(r.fault for r in log))
    return {
        'requests': len(server.requests),
        'faults': sum(injected.values()),
        'by_kind': {kind: count for kind, count in injected.items() if count},
        'retries': report.retries,
        'recovered': recovered,
        'summarized': report.summarized,
        'kept_original': report.failed,
    }


@pytest.mark.slow
async def test_pipeline_survives_a_30_percent_fault_rate(
    server: tuple[FakeOpenAI, str], caplog: pytest.LogCaptureFixture, hang_timeout: float
) -> None:
    fake, base_url = server
    timeout = hang_timeout
    originals = contents(45)
    messages = history(*originals)
    caplog.set_level(logging.INFO)
    result = await Compactor(config=fault_config(base_url, timeout_seconds=timeout)).compact(messages)
    report = result.report

    # the run completed; every output passes the post-check, and nothing but contents changed
    check_history(messages, result.messages, result.changed)
    by_content = fake.by_content()
    assert set(by_content) == {content_key(content) for content in originals}

    for content, part in zip(originals, tool_returns(result.messages)):
        log = by_content[content_key(content)]
        # retries are bounded, and only transient faults are retried
        assert len(log) <= MAX_RETRIES + 1
        assert all(request.fault in TRANSIENT for request in log[:-1]), log
        assert len(log) == MAX_RETRIES + 1 or log[-1].fault not in TRANSIENT
        # Retry-After is honoured: the next attempt arrives no sooner than asked
        for request, following in itertools.pairwise(log):
            if request.fault == 'rate_limit':
                assert following.arrived - request.arrived >= RETRY_AFTER_SECONDS
        summarized, reason = expected_outcomes(log)
        if summarized:
            assert part.content != content
        else:
            assert json.dumps(part.content) == json.dumps(content)  # nothing lost: the very original
            failure = next(f for f in report.failures if f.tool_call_id == part.tool_call_id)
            assert reason is not None and reason in failure.reason

    outcomes = [expected_outcomes(log) for log in by_content.values()]
    assert report.oversized == len(originals)
    assert report.summarized == sum(1 for summarized, _ in outcomes if summarized)
    assert report.failed == len(report.failures) == sum(1 for summarized, _ in outcomes if not summarized)
    assert report.model_calls == len(fake.requests)
    assert report.retries == sum(len(log) - 1 for log in by_content.values())

    figures = fault_figures(fake, report)
    print(f'fault run (timeout {timeout:.1f} s): {figures}')
    # the fixed seed makes this run meet every kind of fault, and retry after a 429
    assert set(figures['by_kind']) == set(FAULTS)  # type: ignore[arg-type]
    assert any(r.fault == 'rate_limit' for log in by_content.values() for r in log[:-1])
    assert 0 < report.failed < report.oversized and figures['recovered']

    # no tool content reached the logs above DEBUG, though every failure was logged
    logged = '\n'.join(record.getMessage() for record in caplog.records if record.levelno > logging.DEBUG)
    assert logged.count('failed') >= report.failed
    for marker in ('log line', 'request id', 'Result 1:', 'filler text', 'Readme text', 'variant', 'acme/widgets'):
        assert marker not in logged


def test_retry_after_beyond_the_bound_is_not_retried_sooner() -> None:
    fake = FakeOpenAI(fault_rate=1.0, faults=('rate_limit',))
    with fake.serve() as base_url:
        config = fault_config(base_url, retry_max_seconds=RETRY_AFTER_SECONDS / 2)
        result = asyncio.run(Compactor(config=config).compact(history(BIG_TEXT)))
    assert len(fake.requests) == 1  # one try: a retry within the bound would come too soon
    assert result.report.failed == 1 and 'ModelRateLimitError' in result.report.failures[0].reason


def test_compact_command_keeps_every_failed_content_byte_for_byte(
    server: tuple[FakeOpenAI, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], hang_timeout: float
) -> None:
    fake, base_url = server
    originals = contents(12)
    source = tmp_path / 'history.json'
    raw = json.dumps(_stored(history(*originals)), indent=2).encode()
    source.write_bytes(raw)
    code = main(['compact', str(source), '--config', str(config_file(tmp_path, base_url, hang_timeout))])

    outcomes = [expected_outcomes(log) for log in fake.by_content().values()]
    failed = sum(1 for summarized, _ in outcomes if not summarized)
    assert code == (1 if failed else 0)
    before = StoredHistory.parse(raw)
    after = StoredHistory.parse((tmp_path / 'history.compacted.json').read_bytes())
    check_rewrite(before, after)  # outside the summarized values, byte for byte the input
    changed = [ref for ref, (start, end) in before.spans.items() if before.text[start:end] != _value(after, ref)]
    assert len(changed) == len(originals) - failed
    output = capsys.readouterr().out
    assert len(re.findall(r'kept original', output)) == failed


def config_file(folder: Path, base_url: str, timeout: float) -> Path:
    """The fault run's settings (with the client `timeout` in seconds) as a config.yaml, for the commands."""
    path = folder / 'config.yaml'
    settings = dataclasses.asdict(fault_config(base_url, timeout_seconds=timeout))
    chosen = ('model', 'base_url', 'keep_recent', 'concurrency', 'timeout_seconds', 'max_retries')
    path.write_text(
        '\n'.join(
            f'{key}: {json.dumps(settings[key])}' for key in (*chosen, 'retry_initial_seconds', 'retry_max_seconds')
        )
    )
    return path


def test_batch_over_files_survives_the_faults(tmp_path: Path, hang_timeout: float) -> None:
    fake = FakeOpenAI(fault_rate=FAULT_RATE, seed=BATCH_SEED, hang_seconds=600)  # outlasts any client timeout
    inputs = tmp_path / 'in'
    inputs.mkdir()
    originals = contents(18)
    for index in range(0, len(originals), 3):
        (inputs / f'h{index}.json').write_bytes(
            json.dumps(_stored(history(*originals[index : index + 3])), indent=2).encode()
        )
    report_path = tmp_path / 'report.json'
    arguments = ['batch', str(inputs), '--out', str(tmp_path / 'out'), '--report', str(report_path)]
    with fake.serve() as base_url:
        code = main([*arguments, '--config', str(config_file(tmp_path, base_url, hang_timeout))])

    outcomes = [expected_outcomes(log) for log in fake.by_content().values()]
    failed = sum(1 for summarized, _ in outcomes if not summarized)
    assert 0 < failed < len(originals)  # the seed makes some contents fail
    assert code == 1  # like compact: some content kept its original
    sources = json.loads(report_path.read_text())['sources']
    assert sum(source['summaries_failed'] for source in sources) == failed
    assert sum(source['returns_summarized'] for source in sources) == len(originals) - failed
    assert sum(source['model_calls'] for source in sources) == len(fake.requests)
    changed = 0
    for path in sorted(inputs.iterdir()):
        output = tmp_path / 'out' / path.name
        if not output.exists():  # nothing summarized: nothing written
            continue
        before, after = StoredHistory.parse(path.read_bytes()), StoredHistory.parse(output.read_bytes())
        check_rewrite(before, after)
        changed += sum(1 for ref in before.spans if _value(before, ref) != _value(after, ref))
    assert changed == len(originals) - failed


def _value(stored: StoredHistory, ref: tuple[int, int]) -> str:
    start, end = stored.spans[ref]
    return stored.text[start:end]


def _stored(messages: list[ModelMessage]) -> list[object]:
    return ModelMessagesTypeAdapter.dump_python(messages, mode='json')
