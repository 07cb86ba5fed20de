"""Scheduling a batch: histories in flight across sources, in-order writes, the journal, worker processes.

One process runs one `Compactor`, so one cache, one concurrency bound and single-flight cover every
history it reads: a content repeated in many histories costs one model call. Histories are compacted
concurrently (up to `batch.histories_in_flight` at once, the summaries themselves bounded by
`concurrency`) but handed back to their source in reading order, which JSONL and page-wise database
reads need; memory is about `histories_in_flight` times the largest history.

With `jobs > 1` the sources are dealt round-robin to worker processes, each with its own `Compactor`
on the same disk cache. A journal (one JSON line per finished source) lets `--resume` skip what is
done; a source is journaled only after its last byte is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import functools
import json
import multiprocessing
import os
import queue
import signal
import sqlite3
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .._check import CheckFailed
from .._config import SummarizerConfig
from .._pipeline import Compactor, Report
from .._stored import HistoryError, compact_stored
from .._write import remove_temporaries
from ._langchain import compact_session
from ._screen import screen
from ._sources import Done, SessionUnit, Source, Target, Unit, Where, unit_size


@dataclass(frozen=True, kw_only=True)
class Problem:
    """A failed history (nothing written for it) or a failed summary (original content kept)."""

    kind: str
    """`history`, `summary` or `source`."""
    where: Where
    message_index: int | None
    problem: str

    def describe(self) -> str:
        return f'{self.where.describe(self.message_index)}: {self.problem}'

    def as_json(self) -> dict[str, object]:
        location = {key: value for key, value in dataclasses.asdict(self.where).items() if value is not None}
        location['path'] = str(self.where.path)
        return {'kind': self.kind, **location, 'message_index': self.message_index, 'problem': self.problem}


@dataclass(kw_only=True)
class SourceReport:
    """What happened to one source."""

    source: str
    kind: str
    output: str | None
    histories: int = 0
    changed: int = 0
    failed: int = 0
    counts: Report = field(default_factory=Report)
    tokens_before: int = 0
    tokens_after: int = 0
    problems: list[Problem] = field(default_factory=list[Problem])
    resumed: bool = False
    """Skipped: the journal says it was finished by an earlier run (counts are that run's)."""

    def add(self, done: Done) -> None:
        self.histories += 1
        if done.error is not None:
            self.failed += 1
            self.problems.append(
                Problem(
                    kind='history',
                    where=done.where or done.unit.where,
                    message_index=done.message_index,
                    problem=done.error,
                )
            )
            return
        self.changed += done.changed
        self.counts.add(done.report)
        self.tokens_before += done.tokens_before
        self.tokens_after += done.tokens_after
        self.problems.extend(
            Problem(kind='summary', where=done.unit.where, message_index=failure.message_index, problem=failure.reason)
            for failure in done.report.failures
        )

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, object]:
        counts = self.counts
        return {
            'source': self.source,
            'kind': self.kind,
            'output': self.output,
            'resumed': self.resumed,
            'histories': {'seen': self.histories, 'changed': self.changed, 'failed': self.failed},
            'returns_summarized': counts.summarized,
            'summaries_failed': counts.failed,
            'tokens_before': self.tokens_before,
            'tokens_after': self.tokens_after,
            'cache_hits': counts.cache_hits,
            'model_calls': counts.model_calls,
            'failures': [problem.as_json() for problem in self.problems],
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> SourceReport:
        """A journaled report (counts only: its failures were reported by the run that met them)."""
        histories = data['histories']
        assert isinstance(histories, dict)
        counts = Report(
            summarized=int(data['returns_summarized']),  # type: ignore[call-overload]
            failed=int(data['summaries_failed']),  # type: ignore[call-overload]
            cache_hits=int(data['cache_hits']),  # type: ignore[call-overload]
            model_calls=int(data['model_calls']),  # type: ignore[call-overload]
        )
        return cls(
            source=str(data['source']),
            kind=str(data['kind']),
            output=data['output'] if isinstance(data['output'], str) else None,
            histories=int(histories['seen']),
            changed=int(histories['changed']),
            failed=int(histories['failed']),
            counts=counts,
            tokens_before=int(data['tokens_before']),  # type: ignore[call-overload]
            tokens_after=int(data['tokens_after']),  # type: ignore[call-overload]
            resumed=True,
        )


@dataclass(frozen=True, kw_only=True)
class Tick:
    """Progress: one history done (or a whole source, with its report)."""

    characters: int = 0
    summarized: int = 0
    tokens_saved: int = 0
    finished: SourceReport | None = None


OnTick = Callable[[Tick], None]


class Journal:
    """Finished sources, one JSON line each, appended (one write per line, so processes can share it)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def start(self, *, resume: bool) -> dict[str, dict[str, object]]:
        """The entries of an earlier run when resuming (else the journal starts empty)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        entries: dict[str, dict[str, object]] = {}
        if resume and self.path.exists():
            for line in self.path.read_text(encoding='utf-8').splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a kill: that source is simply done again
                entries[entry['key']] = entry
        else:
            self.path.write_bytes(b'')
        return entries

    def record(self, source: Source, report: SourceReport) -> None:
        entry = {'key': source.key, 'stamp': stamp(source.path), 'report': report.as_json()}
        line = (json.dumps(entry, ensure_ascii=False) + '\n').encode('utf-8')
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, line)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def stamp(path: Path) -> list[int]:
    """Size and mtime: a journaled source is skipped only while its file is as the run left it."""
    status = path.stat()
    return [status.st_size, status.st_mtime_ns]


def resumed(source: Source, entries: dict[str, dict[str, object]], target: Target) -> SourceReport | None:
    entry = entries.get(source.key)
    if entry is None or entry.get('stamp') != stamp(source.path):
        return None
    if target.out is not None and not source.output(target).exists():
        return None
    report = entry['report']
    assert isinstance(report, dict)
    return SourceReport.from_json(report)


async def compact_unit(unit: Unit, compactor: Compactor) -> Done:
    """Compact one history; bad input ends as a `Done` with an error and nothing to write."""
    try:
        if isinstance(unit, SessionUnit):
            session = await compact_session(unit.texts, compactor)
            return Done(
                unit=unit,
                report=session.report,
                rows=session.new_rows,
                tokens_before=session.tokens_before,
                tokens_after=session.tokens_after,
            )
        screened = screen(unit.raw, config=compactor.config, tokenizer=compactor.tokenizer)
        if screened is not None:  # nothing to summarize: proven without validating every message
            tokens = compactor.tokenizer(screened.text)
            report = Report(returns_examined=screened.returns)
            return Done(unit=unit, report=report, tokens_before=tokens, tokens_after=tokens)
        stored = await compact_stored(unit.raw, compactor)
    except HistoryError as exc:
        if isinstance(unit, SessionUnit) and exc.message_index is not None:
            where = dataclasses.replace(unit.where, row_id=str(unit.keys[exc.message_index]))
            return Done(unit=unit, error=exc.problem, where=where)
        return Done(unit=unit, error=exc.problem, message_index=exc.message_index)
    except CheckFailed as exc:
        return Done(unit=unit, error=str(exc))
    return Done(
        unit=unit,
        report=stored.report,
        text=stored.text,
        tokens_before=stored.tokens_before,
        tokens_after=stored.tokens_after,
    )


@dataclass
class _Open:
    source: Source
    report: SourceReport
    broken: bool = False
    closed: bool = False


async def run_sources(
    sources: list[Source],
    *,
    compactor: Compactor,
    target: Target,
    journal: Journal | None,
    on_tick: OnTick,
    process: Callable[[Unit], Awaitable[Done]] | None = None,
) -> list[SourceReport]:
    """Compact every source with one compactor, histories overlapping across sources, writes in order.

    `process` replaces compaction for each history (`summarizer restore`), keeping the same reads,
    writes, journal and reports.
    """
    process = process or functools.partial(compact_unit, compactor=compactor)
    opened: list[_Open] = []
    window: deque[tuple[_Open, asyncio.Task[Done] | None]] = deque()
    limit = max(compactor.config.batch.histories_in_flight, 1)

    def fail(current: _Open, exc: BaseException) -> None:
        if not current.broken:
            current.broken = True
            current.source.abort()
            problem = f'{type(exc).__name__}: {exc}; this source is left as it was'
            current.report.problems.append(
                Problem(kind='source', where=Where(path=current.source.path), message_index=None, problem=problem)
            )

    async def finish(current: _Open, task: asyncio.Task[Done] | None) -> None:
        if task is None:  # the source's end marker
            current.closed = True
            if not current.broken:
                try:
                    current.source.close()
                except (OSError, sqlite3.Error) as exc:
                    fail(current, exc)
            if journal is not None and current.report.ok and not target.dry_run:
                journal.record(current.source, current.report)
            on_tick(Tick(finished=current.report))
            return
        done = await task
        if current.broken:
            return
        current.report.add(done)
        try:
            current.source.write(done)
        except (OSError, sqlite3.Error) as exc:
            fail(current, exc)
        on_tick(
            Tick(
                characters=unit_size(done.unit),
                summarized=done.report.summarized,
                tokens_saved=done.tokens_before - done.tokens_after,
            )
        )

    try:
        for source in sources:
            current = _Open(
                source, SourceReport(source=str(source.path), kind=source.kind, output=_output(source, target))
            )
            opened.append(current)
            try:
                source.open(target)
                for unit in source.units():
                    window.append((current, asyncio.create_task(process(unit))))
                    while len(window) >= limit:
                        await finish(*window.popleft())
            except (OSError, sqlite3.Error) as exc:
                fail(current, exc)
            window.append((current, None))
        while window:
            await finish(*window.popleft())
    finally:
        for current, task in window:  # interrupted: unwritten work is dropped, every file stays whole
            if task is not None:
                task.cancel()
        for current in opened:
            if not current.closed and not current.broken:
                current.source.abort()
    return [current.report for current in opened]


def _output(source: Source, target: Target) -> str | None:
    return None if target.dry_run else str(source.output(target))


def run_batch(
    sources: list[Source],
    *,
    config: SummarizerConfig,
    target: Target,
    journal: Journal | None,
    jobs: int,
    on_tick: OnTick,
) -> list[SourceReport]:
    """Run in this process, or deal the sources to `jobs` worker processes; reports in source order."""
    if not target.dry_run:  # a killed run's unfinished writes of the outputs about to be written
        remove_temporaries([source.output(target) for source in sources])
    shards = [sources[index::jobs] for index in range(min(jobs, len(sources)))]
    if len(shards) <= 1:
        return _run_shard(sources, config, target, journal, on_tick)
    context = multiprocessing.get_context('spawn')  # no fork of a process with threads and open files
    ticks: multiprocessing.Queue[Tick] = context.Queue()
    with ProcessPoolExecutor(
        max_workers=len(shards), mp_context=context, initializer=_start_worker, initargs=(ticks, os.getpid())
    ) as pool:
        futures = [pool.submit(_worker, shard, config, target, journal) for shard in shards]
        while not all(future.done() for future in futures) or not ticks.empty():
            try:
                on_tick(ticks.get(timeout=0.1))
            except queue.Empty:
                pass
        results = [future.result() for future in futures]
    by_source = {report.source: report for shard_reports in results for report in shard_reports}
    return [by_source[str(source.path)] for source in sources]


_ticks: multiprocessing.Queue[Tick] | None = None
"""A worker process's way to report progress to the parent."""


def _start_worker(ticks: multiprocessing.Queue[Tick], parent: int) -> None:
    global _ticks
    _ticks = ticks
    _die_with(parent)


def _die_with(parent: int) -> None:
    """End this worker when the batch that started it dies (SIGKILL, OOM killer) instead of summarizing
    on alone: its work is the dead batch's, which a rerun redoes from the journal and the cache.
    """
    if sys.platform.startswith('linux'):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before the line above took effect
        os._exit(1)


def _worker(
    sources: list[Source], config: SummarizerConfig, target: Target, journal: Journal | None
) -> list[SourceReport]:
    assert _ticks is not None
    return _run_shard(sources, config, target, journal, _ticks.put)


def _run_shard(
    sources: list[Source], config: SummarizerConfig, target: Target, journal: Journal | None, on_tick: OnTick
) -> list[SourceReport]:
    compactor = Compactor(config=config)
    try:
        return asyncio.run(run_sources(sources, compactor=compactor, target=target, journal=journal, on_tick=on_tick))
    finally:
        compactor.summarizer.cache.close()
