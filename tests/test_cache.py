"""The summary cache: shared across processes, single-flight in one, never fatal."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
import subprocess
import sys
from pathlib import Path

import diskcache
import pytest
from helpers import BIG_LIST, BIG_TEXT, compactor, head_items, history, summarizer_model
from pydantic_ai.messages import ToolReturnPart

from summarizer import Compaction
from summarizer.pipeline._cache import SummaryCache

COMPACT_IN_CHILD = """
import asyncio, json, sys
sys.path.insert(0, {tests!r})
from helpers import BIG_TEXT, compactor, history
result = asyncio.run(compactor().compact(history(BIG_TEXT)))
print(json.dumps({{'model_calls': result.report.model_calls, 'cache_hits': result.report.cache_hits,
                  'summary': result.messages[2].parts[0].content}}))
"""


def run_child() -> dict[str, object]:
    code = COMPACT_IN_CHILD.format(tests=str(Path(__file__).parent))
    output = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, text=True).stdout
    return json.loads(output)


def test_cache_hit_across_two_processes() -> None:
    first, second = run_child(), run_child()
    assert (first['model_calls'], first['cache_hits']) == (1, 0)
    assert (second['model_calls'], second['cache_hits']) == (0, 1)
    assert first['summary'] == second['summary']


async def test_concurrent_identical_contents_make_one_model_call() -> None:
    calls: list[object] = []

    async def answer_slowly(messages, info):  # type: ignore[no-untyped-def]
        calls.append(1)
        await asyncio.sleep(0.05)
        return summarizer_model(lambda content, budget: head_items(content, 3)).function(messages, info)  # type: ignore[misc]

    from pydantic_ai.models.function import FunctionModel

    shared = compactor(FunctionModel(answer_slowly))
    # two returns of one content from two calls ({'q': 0}, {'q': 1}): two requests, as the prompt names the call
    results = await asyncio.gather(*(shared.compact(history(BIG_LIST, BIG_LIST)) for _ in range(5)))
    assert len(calls) == 2
    assert sum(result.report.cache_hits for result in results) == 8
    assert all(result.messages[2].parts[0].content == head_items(BIG_LIST, 3) for result in results)


async def test_unusable_cache_directory_degrades_to_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / 'not-a-directory'
    blocker.write_text('a file where the cache directory should be')  # fails even for root
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(blocker / 'cache'))
    monkeypatch.setenv('SUMMARIZER_ORIGINALS_DIR', str(tmp_path / 'originals'))  # else beside the cache: unusable too
    with caplog.at_level(logging.WARNING):
        result = await compactor().compact(history(BIG_TEXT))
    assert result.report.summarized == 1
    assert 'running without it' in caplog.text


async def test_corrupt_cache_degrades_to_no_cache(isolated_cache: Path, caplog: pytest.LogCaptureFixture) -> None:
    isolated_cache.mkdir(mode=0o700, parents=True)  # a folder of this user's own: the cache is kept in it
    (isolated_cache / 'cache.db').write_bytes(b'this is not a sqlite database' * 100)
    with caplog.at_level(logging.WARNING):
        first = await compactor().compact(history(BIG_TEXT))
        second = await compactor().compact(history(BIG_TEXT))
    assert first.report.summarized == second.report.summarized == 1
    assert second.report.cache_hits == 0
    assert 'running without it' in caplog.text


async def test_disabled_cache_calls_the_model_every_time(monkeypatch: pytest.MonkeyPatch, isolated_cache: Path) -> None:
    from summarizer import CacheConfig, Compactor, SummarizerConfig

    config = SummarizerConfig().override(keep_recent=0, cache=CacheConfig(enabled=False))
    for _ in range(2):
        result = await Compactor(config=config).compact(history(BIG_TEXT))
        assert result.report.model_calls == 1
    assert not isolated_cache.exists()


async def test_cache_directory_is_owner_only(isolated_cache: Path) -> None:
    await compactor().compact(history(BIG_TEXT))
    assert stat.S_IMODE(isolated_cache.stat().st_mode) == 0o700


async def test_identical_summaries_across_requests_keep_the_prefix_stable() -> None:
    first = await compactor().compact(history(BIG_TEXT))
    second = await compactor().compact(history(BIG_TEXT))
    part_a, part_b = first.messages[2].parts[0], second.messages[2].parts[0]
    assert isinstance(part_a, ToolReturnPart) and isinstance(part_b, ToolReturnPart)
    assert part_a.content == part_b.content and second.report.cache_hits == 1


async def test_an_upgrade_makes_new_embedded_summaries_and_keeps_real_models_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The embedded model's summaries come from this package's code: another version does not reuse them.

    A real model's summaries do not depend on our version: they stay cached across an upgrade.
    """
    from summarizer.pipeline import _models

    real = summarizer_model(lambda content, budget: head_items(content, 3))

    async def twice() -> list[Compaction]:
        return [
            await compactor().compact(history(BIG_TEXT, BIG_LIST)),
            await compactor(real).compact(history(BIG_LIST)),
        ]

    before = await twice()
    assert [result.report.model_calls for result in before] == [2, 1]
    monkeypatch.setattr(_models, 'package_version', lambda: '999.0')
    embedded, model = await twice()
    assert (embedded.report.model_calls, embedded.report.cache_hits) == (2, 0)
    assert embedded.changed == before[0].changed  # the same code here, so the same summaries
    assert (model.report.model_calls, model.report.cache_hits) == (0, 1)


async def test_summaries_are_in_the_disk_cache_once_compact_returns(isolated_cache: Path) -> None:
    """Staged during the compaction (one transaction for all), visible to every process once it returns."""
    result = await compactor(originals={'enabled': False}).compact(history(BIG_TEXT, BIG_LIST))  # no read hint
    assert result.report.summarized == 2
    other = SummaryCache(directory=isolated_cache, size_limit_bytes=1 << 20)
    try:
        assert sorted(map(json.dumps, result.changed.values())) == sorted(
            json.dumps(other.get(key)) for key in _keys(isolated_cache)
        )
    finally:
        other.close()


def test_a_staged_summary_is_read_before_it_is_written(isolated_cache: Path) -> None:
    writer = SummaryCache(directory=isolated_cache, size_limit_bytes=1 << 20)
    reader = SummaryCache(directory=isolated_cache, size_limit_bytes=1 << 20)
    try:
        writer.stage('key', ['a summary'])
        assert writer.get('key') == ['a summary'] and reader.get('key') is None
        writer.flush()
        assert reader.get('key') == ['a summary']
    finally:
        writer.close()
        reader.close()


def test_a_flush_keeps_the_cache_under_its_size_limit(isolated_cache: Path) -> None:
    """Culled once per flush (not after every write), to the same bound; the stored cull setting stays."""
    cache = SummaryCache(directory=isolated_cache, size_limit_bytes=200_000)
    try:
        for flush in range(20):
            for index in range(50):
                cache.stage(f'{flush}-{index}', 'x' * 2000)
            cache.flush()
        assert cache.get('19-49') == 'x' * 2000 and cache.get('0-0') is None
    finally:
        cache.close()
    with diskcache.Cache(str(isolated_cache)) as raw:
        assert raw.volume() <= 200_000 and raw.cull_limit == 10


def _keys(directory: Path) -> list[str]:
    with diskcache.Cache(str(directory)) as cache:
        return [str(key) for key in cache]
