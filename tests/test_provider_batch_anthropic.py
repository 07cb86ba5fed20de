"""`summarizer batch --provider-batch` with an `anthropic:` model: pydantic-ai's real Anthropic batch code against a
loopback fake of the Messages and Message Batches APIs (tests/fake_anthropic.py). Skipped without the `anthropic`
extra (pip install '.[anthropic]').
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from fake_anthropic import FakeAnthropic, fake_anthropic
from genai_prices import Usage, calc_price
from helpers import BIG_TEXT
from test_batch import read_report
from test_provider_batch import corpus, run, tool_contents, total, write_inputs

from summarizer._stored import StoredHistory, check_rewrite

pytest.importorskip('anthropic', reason="the anthropic extra is not installed (pip install '.[anthropic]')")

CONFIG = 'model: anthropic:claude-haiku-4-5\nkeep_recent: 0\nprovider_batch:\n  poll_seconds: 0.05\n  max_poll_seconds: 0.2\n'


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    with fake_anthropic() as fake:
        monkeypatch.setenv('ANTHROPIC_BASE_URL', fake.base_url)
        monkeypatch.setenv('ANTHROPIC_API_KEY', 'test-key')
        yield fake


def test_an_anthropic_batch_run_writes_the_bytes_a_live_run_writes(
    tmp_path: Path, server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = write_inputs(tmp_path / 'in', corpus())
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'live-cache'))
    live_report = tmp_path / 'live.json'
    assert run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'live', '--report', live_report, config=CONFIG) == 0
    assert len(server.answered) == 4 and server.batches_created == []  # live: one Messages call per unique content

    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'batch-cache'))
    report = tmp_path / 'batch.json'
    arguments = ['--out', tmp_path / 'batch', '--provider-batch', '--report', report]
    assert run(tmp_path, tmp_path / 'in', *arguments, config=CONFIG) == 0

    for name, original in inputs.items():
        compacted = (tmp_path / 'batch' / name).read_bytes()
        assert compacted == (tmp_path / 'live' / name).read_bytes() != original
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    assert len(server.batches_created) == 1
    assert sorted(server.batch_requests) == sorted(server.answered)  # the same 4 requests, each once
    batched = read_report(report)
    assert total(batched, 'model_calls') == 4
    assert total(batched, 'summarizer_input_tokens') == total(read_report(live_report), 'summarizer_input_tokens')
    usage = Usage(input_tokens=4 * 100, output_tokens=4 * 20)  # the fake's usage for each of the 4 answers
    price = calc_price(
        usage, model_ref='claude-haiku-4-5', provider_id='anthropic', price_context={'processing': 'batch'}
    )
    live_price = calc_price(usage, model_ref='claude-haiku-4-5', provider_id='anthropic')
    provider_batch = json.loads(report.read_text())['provider_batch']
    assert provider_batch['price_usd'] == {'batch': float(price.total_price), 'live': float(live_price.total_price)}
    assert provider_batch['price_usd']['batch'] < provider_batch['price_usd']['live']


def test_errored_expired_and_rejected_anthropic_results_keep_their_originals(
    tmp_path: Path, server: FakeAnthropic
) -> None:
    server.faults = {'MARK-ERR': 'error', 'MARK-EXP': 'expire', 'MARK-ONCE': 'expire-once', 'MARK-BAD': 'bad'}
    kept = [f'MARK-ERR\n{BIG_TEXT}', f'MARK-EXP\n{BIG_TEXT}', f'MARK-BAD\n{BIG_TEXT}']
    retried = f'MARK-ONCE\n{BIG_TEXT}'
    inputs = write_inputs(tmp_path / 'in', {'h.json': [*kept, retried]})
    report = tmp_path / 'report.json'

    assert (
        run(tmp_path, tmp_path / 'in', '--out', tmp_path / 'out', '--provider-batch', '--report', report, config=CONFIG)
        == 1
    )

    original, compacted = inputs['h.json'], (tmp_path / 'out' / 'h.json').read_bytes()
    check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    after = tool_contents(compacted)
    assert after[:3] == kept  # byte for byte: the originals
    assert after[3] != retried  # expired once, submitted again in a new batch, summarized
    failures = cast('list[dict[str, object]]', read_report(report)['h.json']['failures'])
    problems = {cast('int', failure['message_index']): str(failure['problem']) for failure in failures}
    assert sorted(problems) == [2, 4, 6]
    assert 'invalid request' in problems[2]
    assert 'expired' in problems[4]
    assert 'smaller' in problems[6] or 'tokens' in problems[6]
    assert len(server.batches_created) == 3  # MARK-EXP and MARK-ONCE again, then MARK-EXP a last time
    assert server.batch_requests.count(json.dumps(kept[1])) == 3
    assert server.batch_requests.count(json.dumps(retried)) == 2


def test_an_anthropic_dry_run_reaches_no_batch_endpoint(tmp_path: Path, server: FakeAnthropic) -> None:
    write_inputs(tmp_path / 'in', corpus())
    report = tmp_path / 'report.json'
    assert run(tmp_path, tmp_path / 'in', '--dry-run', '--provider-batch', '--report', report, config=CONFIG) == 0
    assert server.paths == [] and server.answered == []
    planned = json.loads(report.read_text())['provider_batch']
    assert planned['requests'] == 4 and planned['price_usd'] is not None  # genai-prices knows claude-haiku-4-5
