"""Benchmark 9: the CPU `summarizer batch` spends on a stored history outside `Compactor.compact`.

A stored history is parsed with the position of every content value, compacted, spliced and
post-checked (`StoredUnit.compact`); only `Compactor.compact` (walk, summaries, message checks) is
the pipeline's own work, the rest is the stored-text path's. Both are CPU time in this process,
over the same histories: the ratio outside ÷ inside is what to compare across runs. Two states: a
first run (every summary made by the embedded model), and a rerun whose summaries all come from the
cache, where `compact()` does least and the stored-text path weighs most: the target is on the rerun.

The histories are the generated workload's (`workload.py`), or every `*.json` under `--histories`
(real agent histories: the figure the target speaks of).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from summarizer.pipeline import Compaction, Compactor, OriginalStore
from summarizer.stored import StoredUnit, Where

from ._report import Section, Target
from .overhead import summarizer_config
from .workload import dump_json, make_corpus

_TARGET = 0.5


def outside_section(*, histories: int = 40, folder: Path | None = None) -> Section:
    """Rows for a first run and a cached rerun over the histories: CPU inside and outside `compact()`."""
    if folder is not None:
        raws = [path.read_bytes() for path in sorted(folder.glob('*.json'))]
        source = f'{len(raws)} histories under {folder}'
    else:
        raws = [dump_json(history) for history in make_corpus(histories, messages=40, tool_returns=10)]
        source = f'{len(raws)} generated histories of 40 messages'
    megabytes = sum(len(raw) for raw in raws) / 1e6
    compactor = Compactor(config=summarizer_config(), originals=OriginalStore.disabled())
    section = Section(
        title=f'9. CPU outside compact(), {source} ({megabytes:.1f} MB)',
        columns=['run', 'CPU s', 'inside compact() s', 'outside s', 'outside ÷ inside'],
    )
    ratio = 0.0
    for run in ('first run (embedded model)', 'rerun (every summary cached)'):
        total, inside = _measure(raws, compactor)
        ratio = (total - inside) / inside if inside else 0.0
        section.rows.append(
            {
                'run': run,
                'CPU s': total,
                'inside compact() s': inside,
                'outside s': total - inside,
                'outside ÷ inside': ratio,
            }
        )
    compactor.summarizer.cache.close()
    section.targets.append(Target('batch CPU outside ÷ inside compact(), rerun', ratio, _TARGET, 'at most'))
    return section


def _measure(raws: list[bytes], compactor: Compactor) -> tuple[float, float]:
    """CPU seconds of compacting every history as `summarizer batch` does, and the part inside `compact()`."""
    inside = 0.0
    compact = compactor.compact

    async def timed(*args: object, **kwargs: object) -> Compaction:
        nonlocal inside
        started = time.process_time()
        try:
            return await compact(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            inside += time.process_time() - started

    compactor.compact = timed  # type: ignore[method-assign]
    try:
        started = time.process_time()
        asyncio.run(_all(raws, lambda unit: unit.compact(compactor)))
        total = time.process_time() - started
    finally:
        del compactor.compact  # the class's method again
    return total, inside


async def _all(raws: list[bytes], compact: Callable[[StoredUnit], Awaitable[object]]) -> None:
    for raw in raws:
        await compact(StoredUnit(where=Where(path='<bench>'), raw=raw))
