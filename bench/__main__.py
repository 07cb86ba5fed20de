"""`python -m bench [--quick] [--only N ...]`: every benchmark, one table each, results in bench/results.json.

Needs `pip install '.[bench]'` for the pydantic-ai-harness comparison (without it those rows are left
out). The summary cache is an isolated temporary directory, never the user's.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ._report import Cell, Section, print_sections, write_json

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m bench', description=__doc__)
    parser.add_argument('--quick', action='store_true', help='small sizes (about a minute), for a first look')
    parser.add_argument(
        '--only', type=int, action='append', choices=range(1, 10), metavar='N', help='run benchmark N (repeatable)'
    )
    parser.add_argument('--json', type=Path, default=HERE / 'results.json', help='where to write the results')
    parser.add_argument(
        '--corpus-dir',
        type=Path,
        default=Path(tempfile.gettempdir()) / 'tool-return-summarizer-bench',
        help='where the generated corpus is kept between runs',
    )
    parser.add_argument(
        '--histories',
        type=Path,
        help='a folder of real pydantic-ai histories (*.json) for benchmark 9, in place of generated ones',
    )
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix='bench-cache-') as scratch:
        # A folder inside the scratch one, so the originals store beside it (`cache-originals`) goes too.
        os.environ['SUMMARIZER_CACHE_DIR'] = str(Path(scratch) / 'cache')
        settings: dict[str, Cell] = {'quick': arguments.quick}
        sections = [
            run()
            for number, run in _benchmarks(arguments.quick, arguments.corpus_dir, arguments.histories, settings)
            if not arguments.only or number in arguments.only
        ]
    print_sections(sections)
    write_json(sections, arguments.json, settings=settings)
    print(f'results written to {arguments.json}')
    return 0


def _benchmarks(
    quick: bool, corpus_dir: Path, histories_dir: Path | None, settings: dict[str, Cell]
) -> list[tuple[int, Callable[[], Section]]]:
    """The benchmarks at full or quick sizes; imported lazily so `--only` skips what it does not run."""
    # The 2,000 histories (~260 MB) for the raw and nothing-to-summarize rows; the embedded
    # (extractive) model summarizes 1-2 MB/s, so its rows take the first 250 (~33 MB): all 2,000
    # would keep them busy for several minutes.
    histories, summarized, growth_sizes = (100, 50, (50, 200, 1000)) if quick else (2000, 250, (50, 200, 1000, 5000))
    settings.update(corpus_histories=histories, summarized_histories=summarized, growth_sizes=str(growth_sizes))

    def overhead() -> Section:
        from .overhead import overhead_section

        return overhead_section(repeat=9 if quick else 21, steps=10 if quick else 30)

    def batch() -> Section:
        from .batch import batch_section, corpus, head

        data = corpus(corpus_dir, histories=histories, messages=40, tool_returns=10)
        return batch_section(data, summarized=head(data, summarized))

    def concurrency() -> Section:
        from .calls import concurrency_section

        return concurrency_section(ks=(8, 32) if quick else (8, 32, 100))

    def dedup() -> Section:
        from .calls import dedup_section

        return dedup_section()

    def growth() -> Section:
        from .growth import growth_section

        return growth_section(sizes=growth_sizes)

    def throughput() -> Section:
        from .throughput import throughput_section

        return throughput_section(megabytes=1.0 if quick else 4.0, repeat=3 if quick else 5)

    def ray_engine() -> Section:
        from .batch import corpus, head
        from .ray import ray_section

        data = corpus(corpus_dir, histories=histories, messages=40, tool_returns=10)
        return ray_section(head(data, 40 if quick else 800))  # ~105 MB

    def startup() -> Section:
        from .startup import startup_section

        return startup_section(repeat=3 if quick else 9)

    def outside() -> Section:
        from .outside import outside_section

        return outside_section(histories=10 if quick else 40, folder=histories_dir)

    return [
        (1, _timed(overhead)),
        (2, _timed(batch)),
        (3, _timed(concurrency)),
        (4, _timed(dedup)),
        (5, _timed(growth)),
        (6, _timed(throughput)),
        (7, _timed(ray_engine)),
        (8, _timed(startup)),
        (9, _timed(outside)),
    ]


def _timed(run: Callable[[], Section]) -> Callable[[], Section]:
    def timed() -> Section:
        started = time.perf_counter()
        section = run()
        section.notes.append(f'({time.perf_counter() - started:.0f} s)')
        return section

    return timed


if __name__ == '__main__':
    raise SystemExit(main())
