"""Benchmark 5: how the plugin's overhead and a stored history's compaction grow with the history.

One return in four messages, 2-20 KB each, as in the standard workload. Steady-state cost per
request should stay flat (only what is new is walked); first-pass and batch cost per message should
stay flat too (linear in the history).
"""

from __future__ import annotations

import asyncio
import time

from summarizer.pipeline._pipeline import Compactor
from summarizer.stored._stored import compact_stored

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


@_harness.young_heap()
def growth_section(*, sizes: tuple[int, ...] = (50, 200, 1000, 5000), steps: int = 10) -> Section:
    """Each size is a history of that many messages (one return in four) plus the request about to be sent."""
    section = Section(
        title='5. Growth with the history',
        columns=[
            'messages',
            'floor b µs/req',
            'ours b µs/req',
            'walked/req',
            'ours c µs/msg',
            'ours c µs/return beyond model',
            'batch ms',
            'batch µs/msg',
        ],
    )
    first_per_message: list[float] = []
    batch_per_message: list[float] = []
    floors: list[float] = []
    steady: list[float] = []
    for size in sizes:
        history = pristine_history(messages=size, tool_returns=size // 4)
        contexts = Contexts(history)
        repeat = 3 if size <= 1000 else 1
        floor_us, _ = asyncio.run(
            steady_requests(_stateless(_harness.floor_capability), contexts, steps=steps, repeat=repeat)
        )
        ours_us, walked = asyncio.run(steady_requests(_ours(), contexts, steps=steps, repeat=repeat))
        first = asyncio.run(our_first_pass(contexts, repeat=repeat, cache=False))
        batch = batch_seconds(size, size // 4)
        first_per_message.append(first.us_per_request / size)
        batch_per_message.append(batch * 1e6 / size)
        floors.append(floor_us)
        steady.append(ours_us)
        section.rows.append(
            {
                'messages': size,
                'floor b µs/req': floor_us,
                'ours b µs/req': ours_us,
                'walked/req': walked,
                'ours c µs/msg': first_per_message[-1],
                'ours c µs/return beyond model': first.us_beyond_model_per_return,
                'batch ms': batch * 1000,
                'batch µs/msg': batch_per_message[-1],
            }
        )
    largest, smallest = sizes[-1], sizes[0]
    ratio = f'{largest:,} ÷ {smallest:,}'
    section.rows.append(
        {
            'messages': ratio,
            'floor b µs/req': floors[-1] / floors[0],
            'ours b µs/req': steady[-1] / steady[0],
            'ours c µs/msg': first_per_message[-1] / first_per_message[0],
            'batch µs/msg': batch_per_message[-1] / batch_per_message[0],
        }
    )
    section.targets += [
        # pydantic-ai's own per-request work (copying the message list) grows with the history, so
        # the floor grows too: what must stay flat is our share of it, and the messages walked.
        Target('steady state × floor, largest history', steady[-1] / floors[-1], 4, 'at most'),
        Target(f'first pass µs/message, {ratio} messages', first_per_message[-1] / first_per_message[0], 2, 'at most'),
        Target(f'batch µs/message, {ratio} messages', batch_per_message[-1] / batch_per_message[0], 2, 'at most'),
    ]
    section.notes.append(
        'Each history has the stated number of messages plus the request about to be sent. Linear or better: '
        'flat per-request (b) and per-message (c, batch) columns; the last row divides the largest by the smallest.'
    )
    return section
