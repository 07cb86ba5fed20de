"""`summarizer batch --provider-batch`: pydantic-ai's real OpenAI batch code against a loopback fake of the
Files and Batches endpoints (tests/fake_openai.py): same bytes as a live run, one submission per unique
content, resume without resubmitting, failed and expired requests keep their originals. One test uses
pydantic-ai's in-memory batch API (a `FunctionModel`) through the library entry point.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import forked_cli
import pytest
from fake_batch_api import FakeBatchAPI
from fake_openai import FakeOpenAI, fake_openai
from forked_cli import Forked
from genai_prices import Usage, calc_price
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, history, summarizer_model
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ModelResponse, TextPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from test_batch import read_report

from summarizer import extractive
from summarizer.cli import main
from summarizer.core._config import SummarizerConfig
from summarizer.core._shape import JsonValue
from summarizer.core._tokens import estimate_tokens, json_text
from summarizer.engines._provider import run_provider_batch
from summarizer.engines._runner import Journal, result_settings, run_sources
from summarizer.engines._sources import Source, Target, discover
from summarizer.pipeline._pipeline import Compactor
from summarizer.stored._stored import StoredHistory, check_rewrite

CONFIG = 'model: openai:gpt-4.1-mini\nkeep_recent: 0\nprovider_batch:\n  poll_seconds: 0.05\n  max_poll_seconds: 0.2\n'


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with fake_openai() as fake:
        monkeypatch.setenv('OPENAI_BASE_URL', fake.base_url)
        monkeypatch.setenv('OPENAI_API_KEY', 'test-key')
        yield fake


def write_inputs(folder: Path, contents: dict[str, list[object]]) -> dict[str, bytes]:
    folder.mkdir(parents=True)
    written: dict[str, bytes] = {}
    for name, items in contents.items():
        data = ModelMessagesTypeAdapter.dump_json(history(*items))
        (folder / name).write_bytes(data)
        written[name] = data
    return written


def corpus() -> dict[str, list[object]]:
    """Three histories, four unique oversized contents: `shared` is in two of them."""
    shared = f'shared\n{BIG_TEXT}'
    return {
        'a.json': [shared, BIG_LIST],
        'b.json': [shared, BIG_OBJECT],
        'c.json': [f'only c\n{BIG_TEXT}'],
    }


def run(tmp_path: Path, *arguments: object, config: str = CONFIG) -> int:
    path = tmp_path / 'config.yaml'
    path.write_text(config)
    return main(['batch', '--config', str(path), *map(str, arguments)])


def total(report: dict[str, dict[str, object]], count: str) -> int:
    return sum(cast('int', source[count]) for source in report.values())


def tool_contents(data: bytes) -> list[object]:
    return [
        part.content
        for message in ModelMessagesTypeAdapter.validate_json(data)
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


def test_a_batch_run_writes_the_bytes_a_live_run_writes(
    tmp_path: Path, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path / 'in', corpus())
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'live-cache'))
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'live', '--report', tmp_path / 'live.json') == 0
    assert server.batches_created == []  # live: the Responses API, one call per unique content

    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'batch-cache'))
    report = tmp_path / 'batch.json'
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'batch', '--provider-batch', '--report', report) == 0

    for name, original in inputs.items():
        compacted = (tmp_path / 'batch' / name).read_bytes()
        assert compacted == (tmp_path / 'live' / name).read_bytes()
        assert compacted != original
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    assert len(server.batches_created) == 1
    assert sorted(server.batch_requests) == sorted(set(server.batch_requests))  # each unique content once ...
    assert len(server.batch_requests) == 4
    usage = Usage(input_tokens=4 * 100, output_tokens=4 * 20)  # the fake's usage for each of the 4 answers
    price = calc_price(usage, model_ref='gpt-4.1-mini', provider_id='openai', price_context={'processing': 'batch'})
    live_price = calc_price(usage, model_ref='gpt-4.1-mini', provider_id='openai')
    assert f'${price.total_price:.6f} at batch prices' in capsys.readouterr().err
    live, batched = read_report(tmp_path / 'live.json'), read_report(report)
    assert total(batched, 'model_calls') == 4  # ... charged to one history each
    for count in ('summarizer_input_tokens', 'summarizer_output_tokens'):  # the same usage, live or batched
        assert total(batched, count) == total(live, count) == getattr(usage, count.removeprefix('summarizer_'))
    document = json.loads(report.read_text())
    assert 'provider_batch' not in json.loads((tmp_path / 'live.json').read_text())
    assert document['provider_batch'] == {
        'dry_run': False,
        'model': document['provider_batch']['model'],
        'unique_contents': 4,
        'in_cache': 0,
        'too_large': 0,
        're_attached': 0,
        'requests': 4,
        'summarized': 4,
        'failed': 0,
        'input_tokens': 400,
        'output_tokens': 80,
        'price_usd': {'batch': float(price.total_price), 'live': float(live_price.total_price)},
    }
    assert document['provider_batch']['model'].startswith('openai:gpt-4.1-mini')
    assert [source['returns_summarized'] for source in batched.values()] == [
        source['returns_summarized'] for source in live.values()
    ]


def test_the_in_memory_batch_model_compacts_like_a_live_run(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / 'in', corpus())
    calls: list[object] = []
    model = summarizer_model(lambda content, budget: extractive.summarize(content, budget_tokens=budget), calls)  # pyright: ignore[reportArgumentType]
    config = SummarizerConfig().override(keep_recent=0)

    def sources(out: Path) -> list[Source]:
        return discover([tmp_path / 'in'], config=config.batch, out=out)

    live = Compactor(config=config, model=model)
    asyncio.run(
        run_sources(
            sources(tmp_path / 'live'),
            compactor=live,
            target=Target(),
            journal=None,
            on_tick=print,
        )
    )
    live.summarizer.cache.close()
    live_calls, calls[:] = len(calls), []
    journal = Journal(tmp_path / 'journal.jsonl', settings=result_settings(config))
    journal.start(resume=False)
    notes: list[str] = []
    reports, batch = run_provider_batch(
        sources(tmp_path / 'batch'),
        config=config.override(cache={'enabled': False}),  # every answer from the batch, none from the live run's cache
        target=Target(),
        journal=journal,
        on_tick=print,
        on_note=notes.append,
        model=model,
    )
    assert all(report.ok for report in reports)
    for name in inputs:
        assert (tmp_path / 'batch' / name).read_bytes() == (tmp_path / 'live' / name).read_bytes() != inputs[name]
    assert len(calls) == live_calls == 4  # each unique content once, in one in-memory batch
    assert (batch.requests, batch.summarized, batch.price) == (4, 4, None)  # genai-prices knows no FunctionModel
    assert '"submitted"' in (tmp_path / 'journal.jsonl').read_text()


def test_cache_hits_are_not_submitted(tmp_path: Path, server: FakeOpenAI) -> None:
    contents = corpus()
    write_inputs(tmp_path / 'in', contents)
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'first', '--provider-batch') == 0
    assert len(server.batch_requests) == 4

    new = f'new\n{BIG_TEXT}'
    write_inputs(tmp_path / 'more', {'d.json': [contents['a.json'][0], new]})
    assert run(tmp_path, tmp_path / 'in', tmp_path / 'more', '--out', tmp_path / 'second', '--provider-batch') == 0
    assert len(server.batches_created) == 2
    assert server.batch_requests[4:] == [json.dumps(new)]  # only the content the cache did not hold
    for name in contents:
        assert (tmp_path / 'second' / name).read_bytes() == (tmp_path / 'first' / name).read_bytes()


def test_a_resumed_source_reports_the_usage_of_the_run_that_did_it(tmp_path: Path, server: FakeOpenAI) -> None:
    write_inputs(tmp_path / 'in', corpus())
    first, again = tmp_path / 'first.json', tmp_path / 'again.json'
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--report', first) == 0
    assert (
        run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--resume', '--report', again)
        == 0
    )
    done, resumed = read_report(first), read_report(again)
    assert all(source['resumed'] for source in resumed.values()) and len(server.batches_created) == 1
    for count in ('summarizer_input_tokens', 'summarizer_output_tokens'):  # from the journal
        assert [source[count] for source in resumed.values()] == [source[count] for source in done.values()]
    assert total(resumed, 'summarizer_input_tokens') == 4 * 100


def test_failed_expired_and_rejected_results_keep_their_originals(tmp_path: Path, server: FakeOpenAI) -> None:
    check_failed_results_keep_their_originals(
        tmp_path, server, config=CONFIG, expired='expired before the model ran it'
    )


def check_failed_results_keep_their_originals(
    tmp_path: Path, server: FakeBatchAPI, *, config: str, expired: str
) -> None:
    """An errored, an expired and a rejected result keep their originals; one expired once is summarized.

    Shared by every provider's fake (tests/test_provider_batch_apis.py): `expired` is the words of its expiry.
    """
    server.faults = {'MARK-ERR': 'error', 'MARK-EXP': 'expire', 'MARK-ONCE': 'expire-once', 'MARK-BAD': 'bad'}
    kept = [f'MARK-ERR\n{BIG_TEXT}', f'MARK-EXP\n{BIG_TEXT}', f'MARK-BAD\n{BIG_TEXT}']
    retried = f'MARK-ONCE\n{BIG_TEXT}'
    inputs = write_inputs(tmp_path / 'in', {'h.json': [*kept, retried]})
    report = tmp_path / 'report.json'

    arguments = ['--out', tmp_path / 'out', '--provider-batch', '--report', report]
    assert run(tmp_path, tmp_path / 'in', *arguments, config=config) == 1

    original, compacted = inputs['h.json'], (tmp_path / 'out' / 'h.json').read_bytes()
    check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    after = tool_contents(compacted)
    assert after[:3] == kept  # byte for byte: the originals
    assert after[3] != retried  # expired once, submitted again in a new batch, summarized
    failures = cast('list[dict[str, object]]', read_report(report)['h.json']['failures'])
    problems = {cast('int', failure['message_index']): str(failure['problem']) for failure in failures}
    assert sorted(problems) == [2, 4, 6]
    assert 'invalid request' in problems[2]
    assert expired in problems[4]
    assert 'smaller' in problems[6] or 'tokens' in problems[6]
    # the first batch; MARK-EXP and MARK-ONCE again; MARK-EXP a last time (max_resubmissions: 2)
    assert len(server.batches_created) == 3
    assert server.batch_requests.count(json.dumps(kept[1])) == 3
    assert server.batch_requests.count(json.dumps(retried)) == 2


def test_a_model_without_a_batch_api_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_inputs(tmp_path / 'in', corpus())
    assert main(['batch', str(tmp_path / 'in'), '--out', str(tmp_path / 'out'), '--provider-batch']) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "model 'extractive'" in line and 'has no provider batch API' in line
    assert not (tmp_path / 'out').exists()

    server_config = 'model: llama3.2\nbase_url: http://127.0.0.1:9/v1\nprovider_batch:\n  enabled: true\n'
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', config=server_config) == 2
    assert 'has no provider batch API' in capsys.readouterr().err


def test_provider_batch_refuses_jobs_and_ray(
    tmp_path: Path, server: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    write_inputs(tmp_path / 'in', corpus())
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--jobs', '2') == 2
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--engine', 'ray') == 2
    assert capsys.readouterr().err.count('--provider-batch') == 2
    assert server.batches_created == [] and not (tmp_path / 'out').exists()


def _journaled_submission(cache: Path) -> bool:
    return any('"submitted"' in path.read_text() for path in (cache / 'batch-journals').glob('*.jsonl'))


@pytest.mark.slow
@pytest.mark.parametrize('stop', [signal.SIGKILL, signal.SIGINT], ids=['SIGKILL', 'Ctrl-C'])
def test_stopped_after_submission_resumes_with_no_second_submission(
    tmp_path: Path, server: FakeOpenAI, isolated_cache: Path, stop: signal.Signals
) -> None:
    """Each run is a real process of its own, forked from one that imported the CLI once (tests/forked_cli.py)."""
    inputs = write_inputs(tmp_path / 'in', corpus())
    config = tmp_path / 'config.yaml'
    config.write_text(CONFIG)
    command = ['batch', str(tmp_path / 'in'), '--in-place']
    command += ['--config', str(config), '--provider-batch']
    server.hold_batches = True  # the batch stays in_progress: the run waits on it, as for hours
    first = Forked(command)
    try:
        deadline = time.monotonic() + 60
        while not _journaled_submission(isolated_cache):
            assert first.poll() is None and time.monotonic() < deadline, 'the run never journaled its batch'
            time.sleep(0.05)
    finally:
        first.send_signal(stop)
        first.wait(timeout=30)
        first.close()
    assert len(server.batches_created) == 1
    assert [batch.status for batch in server.batches.values()] == ['in_progress']  # stopping never cancels it
    for name, data in inputs.items():
        assert (tmp_path / 'in' / name).read_bytes() == data  # nothing written while the batch ran

    again = forked_cli.run(command)
    assert again.returncode == 2  # without --resume it would submit the same requests again: refused
    assert 'an earlier run left 4 requests in provider batches: --resume collects them' in again.stderr
    assert len(server.batches_created) == 1

    seen = list(server.paths)
    looked = forked_cli.run([*command, '--resume', '--dry-run'])
    assert looked.returncode == 0, looked.stderr
    assert '4 in batches an earlier run submitted, 0 requests to submit' in looked.stderr
    assert server.paths == seen  # a dry run does not even check on the batch (a check may resubmit)
    assert _journaled_submission(isolated_cache)  # still pending for the real --resume

    server.hold_batches = False  # the provider finishes the batch while nobody waits on it
    report = tmp_path / 'report.json'
    rerun = forked_cli.run([*command, '--resume', '--report', str(report)])
    assert rerun.returncode == 0, rerun.stderr
    assert '4 re-attached from the journal, 0 to submit' in rerun.stderr
    assert len(server.batches_created) == 1  # collected, not submitted again
    assert len(server.batch_requests) == 4
    for name, data in inputs.items():
        compacted = (tmp_path / 'in' / name).read_bytes()
        assert compacted != data
        check_rewrite(StoredHistory.parse(data), StoredHistory.parse(compacted))
    assert total(read_report(report), 'returns_summarized') == 5


@pytest.mark.slow
def test_ctrl_c_stops_the_run_when_the_test_run_ignores_sigint(tmp_path: Path) -> None:
    """The Ctrl-C case above in a test run started with SIGINT ignored, as a background job of a script is (`pytest &`).

    Every process such a run starts inherits the ignored SIGINT, tests/forked_cli.py's fork server and the commands
    forked from it too; the harness gives each command the KeyboardInterrupt of one started at a terminal.
    """
    test = f'{__file__}::test_stopped_after_submission_resumes_with_no_second_submission[Ctrl-C]'
    run_test = ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-n', '0', f'--basetemp={tmp_path}/run', test]
    # as `pytest &` in a script starts it: SIGINT ignored
    ignoring = (
        'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])'
    )
    done = subprocess.run(
        [sys.executable, '-c', ignoring, sys.executable, *run_test],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[1],
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.parametrize('strict', [False, True], ids=['lenient', 'strict'])
def test_a_shared_content_rejected_once_is_rejected_in_every_history_live_or_batched(
    tmp_path: Path, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, strict: bool
) -> None:
    """Two histories hold one content whose summary fails the checks: it is summarized once, and both get its verdict.

    Live, the second history waits on the first one's call (single-flight); batched, both read the one result.
    Either way each history reports the rejection itself, so a strict run leaves both histories as they were.
    """
    server.faults = {'MARK-BAD': 'bad'}
    bad = f'MARK-BAD\n{BIG_TEXT}'
    inputs = write_inputs(tmp_path / 'in', {'a.json': [bad, BIG_LIST], 'b.json': [bad, BIG_OBJECT]})
    config = CONFIG + f'strict: {str(strict).lower()}\n'
    reports: dict[str, dict[str, dict[str, object]]] = {}
    for mode in ('live', 'batch'):
        monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / f'{mode}-cache'))
        report = tmp_path / f'{mode}.json'
        extra = ['--provider-batch'] if mode == 'batch' else []
        assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / mode, '--report', report, *extra, config=config) == 1
        reports[mode] = read_report(report)
    assert server.answered == [] and len(server.batch_requests) == 3  # the live calls went to /v1/responses
    live, batched = reports['live'], reports['batch']
    assert [source['failures'] for source in batched.values()] == [source['failures'] for source in live.values()]
    for name, source in batched.items():
        [failure] = cast('list[dict[str, object]]', source['failures'])
        assert 'smaller' in str(failure['problem']) or 'tokens' in str(failure['problem'])
        if strict:  # the whole history is refused: its output is the input, byte for byte
            assert failure['kind'] == 'history' and source['histories'] == {'seen': 1, 'changed': 0, 'failed': 1}
            assert (tmp_path / 'batch' / name).read_bytes() == (tmp_path / 'live' / name).read_bytes() == inputs[name]
        else:  # the original kept, the other summary written
            assert failure['kind'] == 'summary' and failure['message_index'] == 2
            assert (tmp_path / 'batch' / name).read_bytes() == (tmp_path / 'live' / name).read_bytes()
            assert tool_contents((tmp_path / 'batch' / name).read_bytes())[0] == bad
            assert tool_contents(inputs[name])[0] == bad


def test_a_dry_run_submits_nothing_and_says_what_it_would(
    tmp_path: Path, server: FakeOpenAI, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path / 'in', corpus())
    report = tmp_path / 'report.json'

    assert run(tmp_path, tmp_path / 'in', '--dry-run', '--provider-batch', '--report', report) == 0

    assert server.paths == [] and server.batches_created == []  # no upload, no batch
    assert not _journaled_submission(isolated_cache)
    for name, data in inputs.items():
        assert (tmp_path / 'in' / name).read_bytes() == data
    planned = json.loads(report.read_text())['provider_batch']
    assert planned['dry_run'] is True and planned['requests'] == 4 and planned['summarized'] == 0
    contents = [cast('JsonValue', content) for items in corpus().values() for content in items]
    content_tokens = sum(
        estimate_tokens(json_text(content)) for content in {json.dumps(c): c for c in contents}.values()
    )
    assert planned['input_tokens'] > content_tokens  # each request holds its content, and a prompt around it
    assert 0 < planned['output_tokens'] < content_tokens
    usage = Usage(input_tokens=planned['input_tokens'], output_tokens=planned['output_tokens'])
    price = calc_price(usage, model_ref='gpt-4.1-mini', provider_id='openai', price_context={'processing': 'batch'})
    assert planned['price_usd']['batch'] == float(price.total_price)
    err = capsys.readouterr().err
    assert '4 requests to submit to openai:gpt-4.1-mini' in err and '(dry run: nothing submitted)' in err
    assert f'about {planned["input_tokens"]:,} input and {planned["output_tokens"]:,} output tokens' in err
    sources = read_report(report)
    assert all(source['failures'] == [] for source in sources.values())
    skipped = [item for source in sources.values() for item in cast('list[dict[str, object]]', source['skipped'])]
    assert len(skipped) == 5  # every oversized return: `shared` is in two histories
    assert {item['problem'] for item in skipped} == {'dry run: would be submitted in a provider batch'}

    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch') == 0  # then for real
    assert len(server.batch_requests) == 4 and server.paths


def test_a_dry_run_leaves_the_journal_of_a_real_run_as_it_was(
    tmp_path: Path, server: FakeOpenAI, isolated_cache: Path
) -> None:
    """`--resume` needs the real run's journal: a dry run (whose default journal is the same file) reads it only."""
    write_inputs(tmp_path / 'in', corpus())
    assert run(tmp_path, tmp_path / 'in', '--in-place') == 0
    [journal] = isolated_cache.rglob('*.jsonl')
    before = journal.read_bytes()
    assert before

    assert run(tmp_path, tmp_path / 'in', '--dry-run', '--provider-batch') == 0
    assert run(tmp_path, tmp_path / 'in', '--dry-run', '--resume') == 0
    assert run(tmp_path, tmp_path / 'in', '--dry-run') == 0

    assert journal.read_bytes() == before


def test_an_answer_nested_past_the_parsers_depth_keeps_its_original(tmp_path: Path) -> None:
    """`[[[[...]]]]` from a broken model is a failed summary (the original kept, reported), not a crashed run."""
    inputs = write_inputs(tmp_path / 'in', corpus())
    model = FunctionModel(
        lambda messages, info: ModelResponse(parts=[TextPart('[' * 100_000 + ']' * 100_000)]), model_name='deep'
    )
    config = SummarizerConfig().override(keep_recent=0, output_mode='prompted', cache={'enabled': False})
    journal = Journal(tmp_path / 'journal.jsonl', settings=result_settings(config))
    journal.start(resume=False)
    reports, batch = run_provider_batch(
        discover([tmp_path / 'in'], config=config.batch, out=tmp_path / 'out'),
        config=config,
        target=Target(),
        journal=journal,
        on_tick=print,
        on_note=print,
        model=model,
    )
    assert batch.requests == 4 and batch.summarized == 0
    problems = [problem for report in reports for problem in report.problems]
    assert len(problems) == 5 and {problem.kind for problem in problems} == {'summary'}
    assert any('the answer is not JSON' in problem.problem for problem in problems)  # a string's answer is kept as text
    for name, data in inputs.items():
        assert (tmp_path / 'out' / name).read_bytes() == data


def test_a_second_run_of_a_finished_batch_job_is_not_refused(tmp_path: Path, server: FakeOpenAI) -> None:
    """Every result read is settled: the job's journal lists nothing pending, and the rerun submits nothing new."""
    write_inputs(tmp_path / 'in', corpus())
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch') == 0
    submitted = len(server.batch_requests)
    assert submitted == 4

    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch') == 0
    assert len(server.batch_requests) == submitted  # every summary came from the cache


def test_contents_over_max_content_tokens_are_counted_as_such_not_as_cached(tmp_path: Path, server: FakeOpenAI) -> None:
    write_inputs(tmp_path / 'in', corpus())
    report = tmp_path / 'report.json'
    config = CONFIG + 'max_content_tokens: 10\n'
    code = run(
        tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--report', report, config=config
    )
    assert code == 1  # each such content is a reported failure, its original kept
    planned = json.loads(report.read_text())['provider_batch']
    assert (planned['unique_contents'], planned['too_large'], planned['in_cache'], planned['requests']) == (4, 4, 0, 0)
    assert server.batches_created == []


def test_a_batch_run_records_each_history_and_writes_none_the_store_refuses(
    tmp_path: Path, server: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path / 'in', corpus())
    assert run(tmp_path, tmp_path / 'in', '--in-place', '--provider-batch') == 0
    assert all((tmp_path / 'in' / name).read_bytes() != data for name, data in inputs.items())
    assert main(['restore', str(tmp_path / 'in'), '--in-place']) == 0
    assert all((tmp_path / 'in' / name).read_bytes() == data for name, data in inputs.items())

    more = write_inputs(tmp_path / 'more', {'d.json': [f'new\n{BIG_TEXT}']})
    full = CONFIG + 'originals:\n  size_limit_mb: 0\n'
    capsys.readouterr()
    assert run(tmp_path, tmp_path / 'more', '--in-place', '--provider-batch', config=full) == 1
    assert (tmp_path / 'more' / 'd.json').read_bytes() == more['d.json']
    assert 'd.json message 2: not summarized: the originals store is full' in ' '.join(capsys.readouterr().err.split())


def test_a_journal_entry_moved_to_another_content_is_not_collected_for_it(
    tmp_path: Path, server: FakeOpenAI, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pydantic-ai names a batch request by a hash of its body: a pending entry is re-attached only to its own request."""
    write_inputs(tmp_path / 'in', corpus())
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch') == 0
    (tmp_path / 'out').rename(tmp_path / 'first')
    (journal,) = (isolated_cache / 'batch-journals').glob('*.jsonl')
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    (submitted,) = [entry for entry in entries if 'submitted' in entry]
    keys = list(submitted['submitted'])
    pending = submitted['submitted']
    pending[keys[0]], pending[keys[1]] = pending[keys[1]], pending[keys[0]]  # two contents swap their batch entries
    journal.write_text(json.dumps(submitted) + '\n')  # as if the run stopped once the batch was submitted
    for path in isolated_cache.iterdir():  # no summary cached: every content is to collect again
        if path.is_dir() and path.name != 'batch-journals':
            shutil.rmtree(path)
        elif path.is_file():
            path.unlink()
    capsys.readouterr()

    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--resume') == 0

    assert '2 re-attached from the journal, 2 to submit' in capsys.readouterr().err
    for name in corpus():
        assert (tmp_path / 'out' / name).read_bytes() == (tmp_path / 'first' / name).read_bytes()
