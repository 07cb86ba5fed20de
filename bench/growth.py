"""Benchmark 5: how the plugin's overhead and a stored history's compaction grow with the history.

One return in four messages, 2-20 KB each, as in the standard workload. Steady-state cost per
request should stay flat (only what is new is walked); first-pass and batch cost per message should
stay flat too (linear in the history).
"""

from __future__ import annotations

import asyncio
import time

from summarizer._pipeline import Compactor
from summarizer._stored import compact_stored

from . import _harness
from ._report import Section, Target
from .overhead import Contexts, _ours, _stateless, our_first_pass, pristine_history, steady_requests, summarizer_config
from .workload import dump_json


def batch_seconds(messages: int, tool_returns: int) -> float:
    """One stored history compacted with the embedded model, no cache (so every return is summarized)."""
    raw = dump_json(pristine_history(messages=messages, tool_returns=tool_returns))
    compactor = Compactor(config=summarizer_config(cache=False))
    started = time.perf_counter()
    asyncio.run(compact_stored(raw, compactor))
    return time.perf_counter() - started


def growth_section(*, sizes: tuple[int, ...] = (50, 200, 1000, 5000), steps: int = 10) -> Section:
    section = Section(
        title='5. Growth with the history',
        columns=['messages', 'floor b µs/req', 'ours b µs/req', 'walked/req', 'ours c µs/msg',
                 'ours c µs/return beyond model', 'batch ms', 'batch µs/msg'],
    )
    per_message: list[float] = []
    steady_over_floor: list[float] = []
    for size in sizes:
        history = pristine_history(messages=size, tool_returns=size // 4)
        contexts = Contexts(history)
        repeat = 3 if size <= 1000 else 1
        floor_us, _ = asyncio.run(steady_requests(_stateless(_harness.floor_capability), contexts, steps=steps, repeat=repeat))
        ours_us, walked = asyncio.run(steady_requests(_ours(), contexts, steps=steps, repeat=repeat))
        first = asyncio.run(our_first_pass(contexts, repeat=repeat, cache=False))
        batch = batch_seconds(size, size // 4)
        n = len(history)
        per_message.append(first.us_per_request / n)
        steady_over_floor.append(ours_us / floor_us)
        section.rows.append({
            'messages': n,
            'floor b µs/req': floor_us,
            'ours b µs/req': ours_us,
            'walked/req': walked,
            'ours c µs/msg': first.us_per_request / n,
            'ours c µs/return beyond model': first.us_beyond_model_per_return,
            'batch ms': batch * 1000,
            'batch µs/msg': batch * 1e6 / n,
        })
    section.targets += [
        # pydantic-ai's own per-request work (copying the message list) grows with the history, so
        # the floor grows too: what must stay flat is our share of it, and the messages walked.
        Target('steady state × floor, largest history', steady_over_floor[-1], 4, 'at most'),
        Target('first pass µs/message, largest ÷ smallest history', per_message[-1] / per_message[0], 2, 'at most'),
    ]
    section.notes.append('Linear or better: flat per-request (b) and per-message (c, batch) columns.')
    return section
