"""`summarizer batch --provider-batch` with `anthropic:` and `google:` models: pydantic-ai's real Anthropic and Gemini
batch code against loopback fakes of their APIs (tests/fake_anthropic.py: Messages and Message Batches;
tests/fake_gemini.py: generateContent, Files and Batch Mode). Each provider's tests skip without its extra
(pip install '.[anthropic]', '.[google]'). The OpenAI path is tests/test_provider_batch.py.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from fake_anthropic import fake_anthropic
from fake_batch_api import FakeBatchAPI
from fake_gemini import fake_gemini
from genai_prices import Usage, calc_price
from test_batch import read_report
from test_provider_batch import (
    check_failed_results_keep_their_originals,
    corpus,
    run,
    total,
    write_inputs,
)

from summarizer.stored._stored import StoredHistory, check_rewrite


@dataclass(frozen=True)
class Provider:
    name: str
    module: str
    """The SDK the provider's extra installs: the tests skip without it."""
    model: str
    """The model name, for the config and genai-prices."""
    fake: Callable[[], AbstractContextManager[FakeBatchAPI]]
    environment: dict[str, str]
    """Environment variable -> `base_url` or a value: where the SDK finds the fake, and a key."""


PROVIDERS = [
    Provider(
        name='anthropic',
        module='anthropic',
        model='claude-haiku-4-5',
        fake=fake_anthropic,
        environment={'ANTHROPIC_BASE_URL': 'base_url', 'ANTHROPIC_API_KEY': 'test-key'},
    ),
    Provider(
        name='google',
        module='google.genai',
        model='gemini-2.5-flash',
        fake=fake_gemini,
        environment={'GOOGLE_GEMINI_BASE_URL': 'base_url', 'GEMINI_API_KEY': 'test-key'},
    ),
]


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # `google` itself is missing
        return False


@pytest.fixture(
    params=[
        pytest.param(
            provider,
            id=provider.name,
            marks=pytest.mark.skipif(
                not _installed(provider.module),
                reason=f"needs the {provider.name} extra: pip install '.[{provider.name}]'",
            ),
        )
        for provider in PROVIDERS
    ]
)
def provider(request: pytest.FixtureRequest) -> Provider:
    return cast(Provider, request.param)


@pytest.fixture
def server(provider: Provider, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBatchAPI]:
    with provider.fake() as fake:
        for name, value in provider.environment.items():
            monkeypatch.setenv(name, fake.base_url if value == 'base_url' else value)
        yield fake


def config(provider: Provider) -> str:
    return (
        f'model: {provider.name}:{provider.model}\nkeep_recent: 0\n'
        'provider_batch:\n  poll_seconds: 0.05\n  max_poll_seconds: 0.2\n'
    )


def test_a_batch_run_writes_the_bytes_a_live_run_writes(
    tmp_path: Path, provider: Provider, server: FakeBatchAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = write_inputs(tmp_path / 'in', corpus())
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'live-cache'))
    live_report = tmp_path / 'live.json'
    arguments = ['--out', tmp_path / 'live', '--report', live_report]
    assert run(tmp_path, tmp_path / 'in', *arguments, config=config(provider)) == 0
    assert len(server.answered) == 4 and server.batches_created == []  # live: one call per unique content

    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'batch-cache'))
    report = tmp_path / 'batch.json'
    arguments = ['--out', tmp_path / 'batch', '--provider-batch', '--report', report]
    assert run(tmp_path, tmp_path / 'in', *arguments, config=config(provider)) == 0

    for name, original in inputs.items():
        compacted = (tmp_path / 'batch' / name).read_bytes()
        assert compacted == (tmp_path / 'live' / name).read_bytes() != original
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    assert len(server.batches_created) == 1
    assert sorted(server.batch_requests) == sorted(server.answered)  # the same 4 requests, each once
    batched = read_report(report)
    assert total(batched, 'model_calls') == 4
    assert total(batched, 'summarizer_input_tokens') == total(read_report(live_report), 'summarizer_input_tokens')
    usage = Usage(input_tokens=4 * 100, output_tokens=4 * 20)  # the fakes' usage for each of the 4 answers
    batch_rate = {'processing': 'batch'}
    price = calc_price(usage, model_ref=provider.model, provider_id=provider.name, price_context=batch_rate)
    live_price = calc_price(usage, model_ref=provider.model, provider_id=provider.name)
    priced = json.loads(report.read_text())['provider_batch']['price_usd']
    assert priced == {'batch': float(price.total_price), 'live': float(live_price.total_price)}
    assert priced['batch'] < priced['live']


def test_errored_expired_and_rejected_results_keep_their_originals(
    tmp_path: Path, provider: Provider, server: FakeBatchAPI
) -> None:
    check_failed_results_keep_their_originals(tmp_path, server, config=config(provider), expired='expired')


def test_a_dry_run_reaches_no_batch_endpoint(tmp_path: Path, provider: Provider, server: FakeBatchAPI) -> None:
    write_inputs(tmp_path / 'in', corpus())
    report = tmp_path / 'report.json'
    arguments = ['--dry-run', '--provider-batch', '--report', report]
    assert run(tmp_path, tmp_path / 'in', *arguments, config=config(provider)) == 0
    assert server.paths == [] and server.answered == []
    planned = json.loads(report.read_text())['provider_batch']
    assert planned['requests'] == 4 and planned['price_usd'] is not None  # genai-prices knows the model
