"""Benchmark 7: `summarizer batch --engine ray` with 2 workers (tasks at once) per stage against the local engine.

The same JSONL corpus (about 100 MB in a full run), the embedded model, each run in a process of its
own with an empty cache (the Ray run starts its own local Ray instance, as the CLI does without
`--ray-address`). On 2 cores the point is Ray's overhead and that the outputs are identical, not
speedup. Needs the `ray` extra; without it the section says so and has no rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._report import Section, Target
from .batch import EMBEDDED, Corpus

_CASES = (('local', 1), ('ray', 2))


def ray_section(data: Corpus) -> Section:
    section = Section(
        title=f'7. Ray engine vs local ({data.histories:,} histories of {data.messages} messages, '
        f'{data.megabytes:,.1f} MB, embedded model)',
        columns=[
            'engine',
            'workers',
            'seconds',
            'histories/s',
            '× local',
            '× local with Ray start',
            'ms/history',
            'Ray start s',
            'model calls',
            'same bytes as local',
        ],
    )
    try:
        import ray  # noqa: F401  # pyright: ignore[reportUnusedImport]
    except ImportError:
        section.notes.append("ray is not installed (pip install '.[ray]'): no rows")
        return section
    local_seconds = 0.0
    ratios: list[float] = []
    local_output = b''
    for engine, workers in _CASES:
        measured, output = _run_child(engine, workers, data.jsonl)
        seconds = measured['seconds']
        started = seconds + measured['ray_start_seconds']
        if engine == 'local':
            local_seconds, local_output = seconds, output
        else:
            ratios.append(started / local_seconds)
        section.rows.append(
            {
                'engine': engine,
                'workers': workers,
                'seconds': seconds,
                'histories/s': data.histories / seconds,
                '× local': seconds / local_seconds,
                '× local with Ray start': started / local_seconds,
                'ms/history': 1000 * seconds / data.histories,
                'Ray start s': measured['ray_start_seconds'] if engine == 'ray' else None,
                'model calls': measured['model_calls'],
                'same bytes as local': output == local_output,
            }
        )
    section.targets.append(
        Target('Ray engine (2 workers, its start included), × the local wall time', max(ratios), 2.0, 'at most')
    )
    section.notes.append(
        'Each run in its own process with an empty cache; seconds exclude imports and, for Ray, starting the local '
        'instance (its own column; "× local with Ray start" adds it, as the command pays it). "× local" is wall '
        'time over the local run. Workers: processes for local (--jobs, one source here, so one), tasks at once '
        'per stage for Ray. The driver reads the histories once (a spool keeps them for its writes), Ray '
        'materializes them once and walks each twice (plan, then compact), and it sends each unique content to the '
        'model once.'
    )
    return section


def _run_child(engine: str, workers: int, path: Path) -> tuple[dict[str, float], bytes]:
    with tempfile.TemporaryDirectory(prefix='bench-ray-') as scratch:
        environment = {**os.environ, 'SUMMARIZER_CACHE_DIR': str(Path(scratch) / 'cache')}
        out = Path(scratch) / 'out'
        command = [sys.executable, '-m', 'bench.ray', engine, str(workers), str(path), str(out)]
        done = subprocess.run(
            command, check=False, capture_output=True, text=True, env=environment, cwd=Path(__file__).parent.parent
        )
        if done.returncode not in (0, 1):
            raise RuntimeError(f'{" ".join(command)} failed: {done.stderr.strip()[-800:]}')
        return json.loads(done.stdout.strip().splitlines()[-1]), (out / path.name).read_bytes()


def _child(engine: str, workers: int, path: Path, out: Path) -> None:
    """Time one `summarizer batch` run in this process (a Ray instance started first and timed apart)."""
    from summarizer.cli import main

    ray_start = 0.0
    if engine == 'ray':
        import ray

        started = time.perf_counter()
        ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        ray_start = time.perf_counter() - started
    report = out.parent / 'report.json'
    arguments = ['batch', str(path), '--out', str(out), '--threshold-tokens', EMBEDDED, '--report', str(report)]
    started = time.perf_counter()
    main([*arguments, '--engine', engine, '--jobs', str(workers)])
    seconds = time.perf_counter() - started
    sources = json.loads(report.read_text())['sources']
    calls = sum(source['model_calls'] for source in sources)
    print(json.dumps({'seconds': seconds, 'ray_start_seconds': ray_start, 'model_calls': calls}))


if __name__ == '__main__':
    _child(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
