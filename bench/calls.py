"""Benchmarks 3 and 4: how the summarizer's model calls are scheduled and deduplicated.

3. Concurrency: k distinct oversized returns, a model that takes L seconds (an async sleep) and a
   concurrency bound c should take L × ceil(k / c); efficiency is that ideal over the wall time.
4. Dedup: identical contents are summarized once, whether they meet in flight (single-flight) or
   in later histories (the disk cache): model calls must equal the number of unique contents.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time

from summarizer.pipeline._pipeline import Compactor
from summarizer.pipeline._report import Report

from ._models import TimedModel
from ._report import Section, Target
from .overhead import summarizer_config
from .workload import fan_out


def _text(index: int, size: int = 6000) -> str:
    line = f'record {index}: status ok, value {index * 7}, owner team-{index % 13}\n'
    return (line * (size // len(line) + 1))[:size]


def _compactor(model: TimedModel, *, concurrency: int, cache: bool) -> Compactor:
    config = dataclasses.replace(summarizer_config(cache=cache), keep_recent=0, concurrency=concurrency)
    return Compactor(config=config, model=model.model)


def concurrency_section(*, ks: tuple[int, ...] = (8, 32, 100), concurrency: int = 8, latency: float = 0.05) -> Section:
    section = Section(
        title=f'3. Concurrency (model latency {latency * 1000:.0f} ms, concurrency {concurrency})',
        columns=['oversized returns', 'ideal ms', 'wall ms', 'efficiency', 'model calls'],
    )
    worst = 1.0
    for k in ks:
        model = TimedModel(latency=latency, name=f'sleepy-{time.time_ns()}')
        compactor = _compactor(model, concurrency=concurrency, cache=False)
        history = fan_out([_text(index) for index in range(k)])
        started = time.perf_counter()
        result = asyncio.run(compactor.compact(history))
        wall = time.perf_counter() - started
        assert result.report.summarized == k, result.report
        ideal = latency * math.ceil(k / concurrency)
        worst = min(worst, ideal / wall)
        section.rows.append(
            {
                'oversized returns': k,
                'ideal ms': ideal * 1000,
                'wall ms': wall * 1000,
                'efficiency': ideal / wall,
                'model calls': model.calls,
            }
        )
    section.targets.append(Target('concurrency efficiency (worst k)', worst, 0.8, 'at least'))
    section.notes.append('ideal = latency × ceil(k / concurrency); wall includes walking, prompts and checks.')
    return section


def dedup_section(*, unique: int = 10, copies: int = 5, histories: int = 4) -> Section:
    section = Section(
        title='4. Dedup (identical contents)',
        columns=['case', 'oversized returns', 'unique contents', 'model calls', 'cache hits / shared'],
    )
    contents = [_text(index) for index in range(unique)] * copies
    model = TimedModel(name=f'dedup-{time.time_ns()}')
    compactor = _compactor(model, concurrency=8, cache=True)
    totals = Report()
    for round_ in range(histories):
        report = asyncio.run(compactor.compact(fan_out(contents))).report
        totals.add(report)
        label = 'one history, in flight together' if round_ == 0 else f'history {round_ + 1}, same contents'
        section.rows.append(
            {
                'case': label,
                'oversized returns': report.oversized,
                'unique contents': unique,
                'model calls': report.model_calls,
                'cache hits / shared': report.cache_hits,
            }
        )
    section.rows.append(
        {
            'case': 'all histories',
            'oversized returns': totals.oversized,
            'unique contents': unique,
            'model calls': model.calls,
            'cache hits / shared': totals.cache_hits,
        }
    )
    section.targets.append(Target('model calls over all histories, = unique contents', model.calls, unique, 'equal to'))
    return section
