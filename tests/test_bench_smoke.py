"""Every benchmark of `python -m bench` runs at tiny sizes, so the suite notices when one rots.

No timing is asserted (CI machines are noisy); what is asserted is what the benchmarks count: the
steady state walks only what is new, dedup calls the model once per unique content, the batch
child reports its figures. The harness rows need pydantic-ai-harness (`.[bench]`) and are left out
without it.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # bench/ is a folder of the repository, not part of the package

from bench import _batch_child
from bench.batch import corpus, head, run_child
from bench.calls import concurrency_section, dedup_section
from bench.growth import growth_section
from bench.outside import outside_section
from bench.overhead import harness_installed, overhead_section
from bench.startup import startup_section
from bench.throughput import throughput_section


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(tmp_path / 'cache'))


def _targets(section: object) -> dict[str, float]:
    return {target.name: target.value for target in section.targets}  # type: ignore[attr-defined]


def test_overhead_states() -> None:
    section = overhead_section(messages=24, tool_returns=6, repeat=2, steps=2)
    cases = {(row['case'], row['state']) for row in section.rows}
    assert ('ours', 'b: steady') in cases and ('ours (cold disk cache)', 'c: first pass') in cases
    assert _targets(section)['(b) messages walked per request (the 2 new ones)'] == 2
    for case in ('ours (cache off)', 'ours, keep_quoted_facts off'):
        first_pass = next(row for row in section.rows if row['case'] == case)
        assert first_pass['summarized'] == 4  # six returns, one tiny, one kept as recent
    harness_rows = {row['case']: row for row in section.rows if str(row['case']).startswith('harness')}
    assert bool(harness_rows) == harness_installed()
    if harness_rows:  # ToolOutputLimits+Summarize reduced returns with its nested summarizer agent
        assert harness_rows['harness ToolOutputLimits+Summarize']['summarized'] > 0


def test_dedup_calls_the_model_once_per_unique_content() -> None:
    section = dedup_section(unique=3, copies=2, histories=2)
    assert _targets(section)['model calls over all histories, = unique contents'] == 3


def test_concurrency_answers_every_return() -> None:
    section = concurrency_section(ks=(3,), concurrency=2, latency=0.001)
    assert section.rows[0]['model calls'] == 3


def test_growth_walks_only_what_is_new() -> None:
    section = growth_section(sizes=(12, 24), steps=2)
    sizes = [row for row in section.rows if isinstance(row['messages'], int)]
    assert [(row['messages'], row['walked/req']) for row in sizes] == [(12, 2), (24, 2)]
    assert section.rows[-1]['messages'] == '24 ÷ 12'  # the per-message ratio, largest to smallest


def test_batch_measurements(tmp_path: Path) -> None:
    data = corpus(tmp_path, histories=2, messages=12, tool_returns=3)
    assert run_child('raw-jsonl', data.jsonl)['histories'] == 2  # one real child process: peak RSS and all
    first = head(data, 1)
    assert first.jsonl.read_bytes() == data.jsonl.read_bytes().splitlines(keepends=True)[0]
    assert _batch_child.raw_sqlite(first.sqlite, tmp_path) == 1
    for mode, path in (('raw-sqlite', data.sqlite), ('batch', data.jsonl)):
        _batch_child.main([mode, str(path), str(tmp_path / mode), '1000'])
    assert (tmp_path / 'batch').iterdir(), 'summarizer batch wrote nothing'


def test_throughput_measures_the_scan_and_the_pipeline_against_raw_json() -> None:
    section = throughput_section(megabytes=0.3, repeat=1)
    stages = [row['stage'] for row in section.rows]
    assert stages == [
        'raw json.loads + json.dumps',
        'quoted-facts scan (Turns + quoted_facts)',
        'embedded pipeline (Compactor.compact, extractive)',
        'the same, imports frozen as the CLI runs it',
    ]
    assert all(row['MB/s'] > 0 and row['× raw loads+dumps'] > 0 for row in section.rows)  # type: ignore[operator]
    assert set(_targets(section)) == {
        'quoted-facts scan, MB/s',
        'embedded pipeline, MB/s',
        'embedded pipeline, imports frozen (CLI), MB/s',
    }
    assert gc.get_freeze_count() == 0, 'the frozen row unfreezes: later sections measure the library as it is'


def test_startup_measures_each_command_line() -> None:
    section = startup_section(repeat=1)
    assert [row['command'] for row in section.rows][:3] == [
        'python -c pass',
        "python -c 'import pydantic_ai'",
        'summarizer --version',
    ]
    assert all(row['CPU ms (median)'] > 0 for row in section.rows)  # type: ignore[operator]


def test_outside_compact_splits_the_cpu_of_both_runs() -> None:
    section = outside_section(histories=2)
    assert [row['run'] for row in section.rows] == ['first run (embedded model)', 'rerun (every summary cached)']
    for row in section.rows:
        assert 0 < row['inside compact() s'] < row['CPU s']  # type: ignore[operator]
    assert _targets(section)['batch CPU outside ÷ inside compact(), rerun'] == section.rows[1]['outside ÷ inside']


def test_a_bench_run_leaves_no_folder_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.__main__ import main

    scratch = tmp_path / 'tmp'
    scratch.mkdir()
    monkeypatch.setattr('tempfile.tempdir', str(scratch))
    monkeypatch.delenv('SUMMARIZER_CACHE_DIR')
    results = tmp_path / 'results.json'
    assert main(['--quick', '--only', '4', '--json', str(results)]) == 0
    assert results.exists()
    assert list(scratch.iterdir()) == [], 'the summary cache or its originals store outlived the run'
