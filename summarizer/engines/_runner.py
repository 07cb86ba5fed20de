"""Scheduling a batch: histories in flight across sources, in-order writes, the journal, worker processes.

One process runs one `Compactor`, so one cache, one concurrency bound and single-flight cover every
history it reads: a content repeated in many histories costs one model call. Histories are compacted
concurrently (up to `batch.histories_in_flight` at once, the summaries themselves bounded by
`concurrency`) but handed back to their source in reading order, which JSONL and page-wise database
reads need; memory is about `histories_in_flight` times the largest history.

With `jobs > 1` the sources are dealt round-robin to worker processes, each with its own `Compactor`
on the same disk cache. A journal (one JSON line per finished source) lets `--resume` skip what is
done; a source is journaled only after its last byte is written, with the settings its result
depends on, so a rerun with other settings does it again.

A unit another program changed while it was compacted is reported and left alone (the sources'
compare-and-swap); a full disk or an unwritable journal stops the whole batch (`BatchAborted`), each
unfinished source left as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import errno
import functools
import hashlib
import json
import logging
import multiprocessing
import os
import queue
import signal
import sqlite3
import sys
from collections import deque
from collections.abc import Callable, Coroutine, Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from logging.handlers import QueueHandler, QueueListener
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any, cast

import anyio.to_thread

from ..core import ChangedWhileCompacting, SummarizerConfig, make_folders, redact, remove_temporaries
from ..pipeline import Compactor, OriginalStore, Report, Rewrite, record_rewrite
from ..stored import Done, StoredUnit, Unit, Where, unit_size
from ._sources import Source, SourceProblem, Target


class BatchAborted(Exception):
    """The batch cannot go on (full disk, unwritable journal): one line, every unfinished source left as it was."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the batch; `reports` say what each source it had begun did (one cut short is `interrupted`).

    A `KeyboardInterrupt`, so whatever does not look at the reports stops as at any Ctrl-C.
    """

    def __init__(self, reports: list[SourceReport]) -> None:
        super().__init__(reports)  # the arguments a worker's pickled copy is rebuilt from
        self.reports = reports


@dataclass(frozen=True, kw_only=True)
class Problem:
    """A failed history (nothing written for it), a failed summary (original content kept) or a skipped one."""

    kind: str
    """`history`, `summary`, `source` or `skipped`."""
    where: Where
    message_index: int | None
    problem: str

    def describe(self) -> str:
        return f'{self.where.describe(self.message_index)}: {self.problem}'

    def as_json(self) -> dict[str, object]:
        location = {key: value for key, value in dataclasses.asdict(self.where).items() if value is not None}
        location['path'] = str(self.where.path)
        return {'kind': self.kind, **location, 'message_index': self.message_index, 'problem': self.problem}


@dataclass
class _Unsaved:
    """What histories written but not yet durable added to a `SourceReport`, taken back if the source fails."""

    changed: int = 0
    summarized: int = 0
    tokens_saved: int = 0
    counted_tokens_saved: int = 0


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
    skipped: list[Problem] = field(default_factory=list[Problem])
    """Oversized returns never sent (a number literal that could not be written back as it is):
    reported, not failures, since nothing was tried and the original is the output."""
    resumed: bool = False
    """Skipped: the journal says it was finished by an earlier run (counts are that run's)."""
    interrupted: bool = False
    """Cut short by Ctrl-C: counts only what was saved (histories a file source had not yet written are not)."""

    _unsaved: _Unsaved = field(default_factory=_Unsaved, init=False, repr=False)
    """What the histories written since the source was last saved added (`Source.saved`)."""

    def saved(self) -> None:
        """Every history written so far is durable."""
        self._unsaved = _Unsaved()

    def take_back(self) -> None:
        """The histories written since the source was last saved were lost: only their model work stays counted."""
        lost = self._unsaved
        self.changed -= lost.changed
        self.tokens_after += lost.tokens_saved
        self.counts.summarized -= lost.summarized
        self.counts.tokens_after += lost.counted_tokens_saved
        self._unsaved = _Unsaved()

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
        unsaved, report = self._unsaved, done.report
        unsaved.changed += done.changed
        unsaved.summarized += report.summarized
        unsaved.tokens_saved += done.tokens_before - done.tokens_after
        unsaved.counted_tokens_saved += report.tokens_before - report.tokens_after
        self.problems.extend(
            Problem(kind='summary', where=done.unit.where, message_index=failure.message_index, problem=failure.reason)
            for failure in done.report.failures
        )
        self.skipped.extend(
            Problem(kind='skipped', where=done.unit.where, message_index=skipped.message_index, problem=skipped.reason)
            for skipped in done.report.skipped
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
            'interrupted': self.interrupted,
            'histories': {'seen': self.histories, 'changed': self.changed, 'failed': self.failed},
            'returns_summarized': counts.summarized,
            'summaries_failed': counts.failed,
            'tokens_before': self.tokens_before,
            'tokens_after': self.tokens_after,
            'cache_hits': counts.cache_hits,
            'model_calls': counts.model_calls,
            'summarizer_input_tokens': counts.summarizer_input_tokens,
            'summarizer_output_tokens': counts.summarizer_output_tokens,
            'failures': [problem.as_json() for problem in self.problems],
            'skipped': [problem.as_json() for problem in self.skipped],
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> SourceReport:
        """A journaled report (counts only: its failures were reported by the run that met them)."""
        histories = data['histories']
        assert isinstance(histories, dict)
        seen = cast('dict[str, int]', histories)  # as `as_json` wrote it (the journal is JSON: typed Any)
        counts = Report(
            summarized=int(data['returns_summarized']),  # type: ignore[call-overload]
            failed=int(data['summaries_failed']),  # type: ignore[call-overload]
            cache_hits=int(data['cache_hits']),  # type: ignore[call-overload]
            model_calls=int(data['model_calls']),  # type: ignore[call-overload]
            # absent from the journals of earlier versions
            summarizer_input_tokens=int(data.get('summarizer_input_tokens', 0)),  # type: ignore[call-overload]
            summarizer_output_tokens=int(data.get('summarizer_output_tokens', 0)),  # type: ignore[call-overload]
        )
        return cls(
            source=str(data['source']),
            kind=str(data['kind']),
            output=data['output'] if isinstance(data['output'], str) else None,
            histories=int(seen['seen']),
            changed=int(seen['changed']),
            failed=int(seen['failed']),
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


def result_settings(config: SummarizerConfig) -> dict[str, object]:
    """What a compacted result depends on, journaled with each source.

    `--resume` skips a source only when these are unchanged. The main ones are named for the reader,
    plus a hash of every relevant key (including the text of per-tool prompt files), so no setting
    is missed.
    """
    named: dict[str, object] = {
        'model': config.model,
        'prompt_version': config.prompt_version,
        'threshold_tokens': config.threshold_tokens,
        'keep_recent': config.keep_recent,
        'keep_quoted_facts': config.keep_quoted_facts,
        'max_content_tokens': config.max_content_tokens,
    }
    batch = config.batch
    relevant = {
        **named,
        'base_url': config.base_url,
        'server': config.server,
        'output_mode': config.output_mode,
        'target_ratio': config.target_ratio,
        'quoted_ratio': config.quoted_ratio,
        'min_summary_tokens': config.min_summary_tokens,
        'strict': config.strict,
        'tools': {
            name: [rule.threshold_tokens, rule.skip, _digest(rule.prompt)]
            for name, rule in sorted(config.tools.items())
        },
        'tables': [batch.table, batch.id_column, batch.messages_column, batch.langchain_table],
    }
    encoded = json.dumps(relevant, sort_keys=True, default=str).encode('utf-8')
    return {**named, 'config_hash': hashlib.sha256(encoded).hexdigest()[:16]}


def _digest(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return str(path)  # the run itself reports it


class Journal:
    """Finished sources, one JSON line each, appended (one write per line, so processes can share it).

    Mode 0600 whatever the umask, as every file of the cache folder (its lines name files and quote
    problems); each folder it creates (parents too) is 0700. A journal that cannot be written stops the batch
    (`BatchAborted`): a run that cannot record its progress is not resumable.
    """

    def __init__(self, path: Path, *, settings: dict[str, object], read_only: bool = False) -> None:
        self.path = path
        self.settings = settings
        self.read_only = read_only
        """A dry run's journal: read when resuming, never created, emptied or written, so the state a real
        run keeps for `--resume` (finished sources, pending provider batches) outlives any dry run."""
        self.submitted: dict[str, object] = {}
        """Provider batch requests an earlier run submitted and did not settle: cache key -> the pending response
        (pydantic-ai's `ModelResponse` holding the batch handle, as JSON), for `--provider-batch --resume`."""

    def start(self, *, resume: bool) -> dict[str, dict[str, object]]:
        """The entries of an earlier run with the same settings when resuming (else the journal starts empty)."""
        if self.read_only:
            return self._entries(self._read_only_lines() if resume else [])
        try:
            make_folders(self.path.parent)
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | (0 if resume else os.O_TRUNC), 0o600)
            try:
                os.fchmod(descriptor, 0o600)
                with os.fdopen(os.dup(descriptor), 'rb') as handle:
                    lines = handle.read().splitlines() if resume else []
            finally:
                os.close(descriptor)
        except OSError as exc:
            raise BatchAborted(f'{self.path}: cannot use it as the journal: {exc.strerror or exc}') from None
        return self._entries(lines)

    def _read_only_lines(self) -> list[bytes]:
        try:
            return self.path.read_bytes().splitlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise BatchAborted(f'{self.path}: cannot read the journal: {exc.strerror or exc}') from None

    def _entries(self, lines: list[bytes]) -> dict[str, dict[str, object]]:
        entries: dict[str, dict[str, object]] = {}
        for line in lines:
            try:
                entry: dict[str, object] = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # a line cut by a kill: that source is simply done again
            if entry.get('settings') != self.settings:
                continue  # other settings: the source is done again, the batches submitted for it not collected
            submitted, settled = entry.get('submitted'), entry.get('settled')
            if isinstance(submitted, dict):
                self.submitted.update(cast('dict[str, object]', submitted))
            elif isinstance(settled, list):
                for key in cast('list[object]', settled):
                    self.submitted.pop(str(key), None)
            else:
                entries[str(entry['key'])] = entry
        return entries

    def record(self, source: Source, report: SourceReport) -> None:
        self._append(
            {'key': source.key, 'stamp': source.stamp(), 'settings': self.settings, 'report': report.as_json()}
        )

    def record_submitted(self, batch_id: str, pending: dict[str, object]) -> None:
        """Requests just submitted in provider batch `batch_id`: cache key -> pending response JSON."""
        self._append({'batch_id': batch_id, 'settings': self.settings, 'submitted': pending})

    def record_settled(self, keys: list[str]) -> None:
        """Submitted requests whose result was read: pending no more (a failed one is submitted again by the next run)."""
        self._append({'settings': self.settings, 'settled': keys})

    def _append(self, entry: dict[str, object]) -> None:
        if self.read_only:
            return
        line = (json.dumps(entry, ensure_ascii=False) + '\n').encode('utf-8')
        try:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise BatchAborted(f'{self.path}: cannot write the journal: {exc.strerror or exc}') from None
        try:
            size = os.fstat(descriptor).st_size
            try:
                if os.write(descriptor, line) != len(line):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                os.fsync(descriptor)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.ftruncate(descriptor, size)  # no cut line for the next entry to be glued to
                raise BatchAborted(
                    f'{self.path}: cannot write the journal: {exc.strerror or exc}; stopped '
                    '(sources finished so far are written, the others left as they were)'
                ) from None
        finally:
            os.close(descriptor)


def resumed(source: Source, entries: dict[str, dict[str, object]], target: Target) -> SourceReport | None:
    entry = entries.get(source.key)
    if entry is None or entry.get('stamp') != source.stamp() or not source.has_output(target):
        return None
    report = entry['report']
    assert isinstance(report, dict)
    return SourceReport.from_json(cast('dict[str, object]', report))  # the journal is JSON (json.loads: Any)


async def kept(
    done: Done, store: OriginalStore, *, identity: str, stored: Callable[[Done], Rewrite] = Done.rewrite
) -> Done:
    """`done`, once its way back is recorded in `store`; else the history failed: nothing of it is written.

    `identity`: where the compacted history is written; `stored`: its rewrite as its storage will hold
    it (default: as written), asked on the event loop's thread since a source may ask its database. The
    record is written in a worker thread: a store another process holds locked keeps it waiting (up to
    the busy timeout), never the event loop and the histories in flight.
    """
    if not done.changed or not done.replaced:
        return done
    rewrite = stored(done)
    refused = await anyio.to_thread.run_sync(functools.partial(record_rewrite, store, rewrite, identity=identity))
    if refused is None:
        return done
    return Done(unit=done.unit, error=f'not compacted: {refused}, so it could not be undone; left as it was')


@dataclass
class _Open:
    """A source being compacted: its report, and whether it was given up or closed."""

    source: Source
    target: Target
    report: SourceReport
    store: OriginalStore
    """Where each compacted history's way back is recorded before it is written."""
    broken: bool = False
    closed: bool = False

    async def write(self, done: Done) -> None:
        """Record the way back, then hand a finished history to the source.

        A history whose record the store refused is reported and left as it was; so is one another
        program changed meanwhile.
        """
        try:
            if not self.target.dry_run:
                done = await kept(
                    done, self.store, identity=self.source.written_identity(done.unit), stored=self.source.stored
                )
            self.source.write(done)
        except ChangedWhileCompacting as exc:
            done = Done(unit=done.unit, error=exc.problem)
        except (OSError, sqlite3.Error, SourceProblem) as exc:
            self.report.add(done)
            self.report.take_back()  # not written, nor is what was not yet saved
            self.fail(exc)
            return
        self.report.add(done)
        if self.source.saved:
            self.report.saved()

    def close(self, journal: Journal | None) -> None:
        """Finish the source, and journal it when it is complete without a problem."""
        self.closed = True
        if not self.broken:
            try:
                self.source.close()
            except (OSError, sqlite3.Error, ChangedWhileCompacting, SourceProblem) as exc:
                self.fail(exc)
        if journal is not None and self.report.ok:
            journal.record(self.source, self.report)

    def fail(self, exc: BaseException) -> None:
        """Give the source up, every file left as it was, and report why; a full disk stops the whole batch."""
        if self.broken:
            return
        self.broken = True
        if not self.source.saved:
            self.report.take_back()
        self.source.abort()
        if isinstance(exc, OSError | sqlite3.Error) and _disk_full(exc):
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise BatchAborted(
                f'{self.source.name}: {reason}; stopped, every unfinished source left as it was'
            ) from None
        kept = 0 if self.target.dry_run else self.report.changed  # saved before the failure: they stay compacted
        if isinstance(exc, ChangedWhileCompacting):
            problem = exc.problem
        elif isinstance(exc, SourceProblem):
            problem = str(exc)
        else:
            problem = redact(f'{type(exc).__name__}: {exc}', echoed=True) + (
                '' if kept else '; this source is left as it was'
            )
        if kept:
            saved = (
                'the 1 history saved before it stays' if kept == 1 else f'the {kept:,} histories saved before it stay'
            )
            problem += f'; {saved} compacted, the others are left as they were'
        self.report.problems.append(
            Problem(kind='source', where=Where(path=self.source.name), message_index=None, problem=problem)
        )


async def run_sources(
    sources: list[Source],
    *,
    compactor: Compactor,
    target: Target,
    journal: Journal | None,
    on_tick: OnTick,
    process: Callable[[Unit], Coroutine[Any, Any, Done]] | None = None,  # a coroutine: it goes to create_task
    units: Callable[[Source], Iterator[Unit]] = lambda source: source.units(),
) -> list[SourceReport]:
    """Compact every source with one compactor, histories overlapping across sources, writes in order.

    `process` replaces compaction for each history (`summarizer restore`), keeping the same reads,
    writes, journal and reports. `units` gives each opened source's histories: by default it reads them,
    in a second pass they come from the first pass's spool (`engines._spool`).
    """
    act: Callable[[Unit], Coroutine[Any, Any, Done]] = process or (lambda unit: unit.compact(compactor))

    async def handled(unit: Unit) -> Done:
        """`unit` compacted (or restored), unless its source refused it (`StoredUnit.refused`): then that is its error."""
        if isinstance(unit, StoredUnit) and unit.refused is not None:
            return Done(unit=unit, error=unit.refused)
        return await act(unit)

    opened: list[_Open] = []
    window: deque[tuple[_Open, asyncio.Task[Done] | None]] = deque()
    limit = max(compactor.config.batch.histories_in_flight, 1)

    async def finish(current: _Open, task: asyncio.Task[Done] | None) -> None:
        if task is None:  # the source's end marker
            current.close(None if target.dry_run else journal)
            on_tick(Tick(finished=current.report))
            return
        done = await task
        if current.broken:
            return
        await current.write(done)
        on_tick(
            Tick(
                characters=unit_size(done.unit),
                summarized=done.report.summarized,
                tokens_saved=done.tokens_before - done.tokens_after,
            )
        )

    interrupted = False
    try:
        for source in sources:
            current = _Open(
                source,
                target,
                SourceReport(source=source.name, kind=source.kind, output=source.output_name(target)),
                store=compactor.originals,
            )
            opened.append(current)
            try:
                source.open(target)
                for unit in units(source):
                    window.append((current, asyncio.create_task(handled(unit))))
                    while len(window) >= limit:
                        await finish(*window.popleft())
            except (OSError, sqlite3.Error, SourceProblem) as exc:
                current.fail(exc)
            window.append((current, None))
        while window:
            await finish(*window.popleft())
    except asyncio.CancelledError:  # Ctrl-C (or a worker told to stop): what was done is reported
        interrupted = True
    finally:
        _wind_up(opened, window, interrupted=interrupted)
    if interrupted:
        raise Interrupted([current.report for current in opened])
    return [current.report for current in opened]


def _wind_up(opened: list[_Open], window: deque[tuple[_Open, asyncio.Task[Done] | None]], *, interrupted: bool) -> None:
    """End a run, done or cut short: unwritten work is dropped, every unfinished source left whole.

    `interrupted` (Ctrl-C): each unfinished source's report keeps only what was saved, and says so.
    """
    for _, task in window:
        if task is not None:
            task.cancel()
    for current in opened:
        if not current.closed and not current.broken:
            current.source.abort()
            if interrupted:
                if not current.source.saved:
                    current.report.take_back()
                current.report.interrupted = True


def _disk_full(exc: OSError | sqlite3.Error) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return getattr(exc, 'sqlite_errorcode', None) == sqlite3.SQLITE_FULL


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
        remove_temporaries([path for source in sources for path in source.temporaries(target)])
    shards = [sources[index::jobs] for index in range(min(jobs, len(sources)))]
    if len(shards) <= 1:
        return _run_shard(sources, config, target, journal, on_tick)
    context = multiprocessing.get_context('spawn')  # no fork of a process with threads and open files
    ticks: multiprocessing.Queue[Tick] = context.Queue()
    records: multiprocessing.Queue[logging.LogRecord] = context.Queue()
    stop = context.Event()
    level = _LOGGER.getEffectiveLevel()
    listener = QueueListener(records, _Replay())
    listener.start()
    try:
        with ProcessPoolExecutor(
            max_workers=len(shards),
            mp_context=context,
            initializer=_start_worker,
            initargs=(ticks, records, stop, level, os.getpid()),
        ) as pool:
            # Workers ignore Ctrl-C from their first instruction on (an ignored signal stays ignored across exec):
            # the parent tells them to stop, and each reports what it did instead of printing a traceback.
            with _ignoring_interrupts():
                futures = [pool.submit(_worker, shard, config, target, journal) for shard in shards]
            while True:
                try:
                    if all(future.done() for future in futures) and ticks.empty():
                        break
                    on_tick(ticks.get(timeout=0.1))
                except queue.Empty:
                    pass
                except KeyboardInterrupt:
                    stop.set()  # the workers stop, each reporting what it did
            results = [_finished(future.result) for future in futures]
    finally:
        listener.stop()  # every record the workers sent is handled before the summary lines print
    reports = [report for shard_reports, _ in results for report in shard_reports]
    if stop.is_set() or any(cut for _, cut in results):
        raise Interrupted(reports)
    by_source = {report.source: report for report in reports}
    return [by_source[source.name] for source in sources]


def _finished(result: Callable[[], list[SourceReport]]) -> tuple[list[SourceReport], bool]:
    """A worker's reports, and whether it was interrupted."""
    try:
        return result(), False
    except Interrupted as exc:
        return exc.reports, True


@contextlib.contextmanager
def _ignoring_interrupts() -> Generator[None]:
    """SIGINT ignored meanwhile (processes started inherit it); a Ctrl-C in the meantime is lost."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_LOGGER = logging.getLogger('summarizer')

_ticks: multiprocessing.Queue[Tick] | None = None
"""A worker process's way to report progress to the parent."""
_stop: Event | None = None
"""Set by the parent at Ctrl-C: the worker stops and reports what it did."""
_STOP_POLL_SECONDS = 0.1


class _Replay(logging.Handler):
    """Hands a worker's log record to the parent's logger of the same name.

    So `-v` shows what every worker summarized, through the parent's handlers: above the progress
    bar, in the parent's format, never a second writer on the terminal.
    """

    def emit(self, record: logging.LogRecord) -> None:
        logging.getLogger(record.name).handle(record)


def _start_worker(
    ticks: multiprocessing.Queue[Tick],
    records: multiprocessing.Queue[logging.LogRecord],
    stop: Event,
    level: int,
    parent: int,
) -> None:
    """A spawned worker starts with default logging: give it the parent's verbosity and route its records home."""
    global _ticks, _stop
    _ticks, _stop = ticks, stop
    _LOGGER.setLevel(level)
    _LOGGER.addHandler(QueueHandler(records))
    _LOGGER.propagate = False
    _die_with(parent)


def _die_with(parent: int) -> None:
    """End this worker when the batch that started it dies (SIGKILL, OOM killer).

    Summarizing on alone is useless: its work is the dead batch's, which a rerun redoes from the
    journal and the cache.
    """
    if sys.platform.startswith('linux'):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before the line above took effect
        os._exit(1)


def _worker(
    sources: list[Source], config: SummarizerConfig, target: Target, journal: Journal | None
) -> list[SourceReport]:
    assert _ticks is not None and _stop is not None
    return _run_shard(sources, config, target, journal, _ticks.put, stop=_stop)


def _run_shard(
    sources: list[Source],
    config: SummarizerConfig,
    target: Target,
    journal: Journal | None,
    on_tick: OnTick,
    *,
    stop: Event | None = None,
) -> list[SourceReport]:
    """Run `sources` in this process; `stop`: a worker's, set when the parent was interrupted (`Interrupted`)."""
    compactor = Compactor(config=config)
    work = run_sources(sources, compactor=compactor, target=target, journal=journal, on_tick=on_tick)
    try:
        return asyncio.run(work if stop is None else _until(stop, work))
    finally:
        compactor.summarizer.cache.close()


async def _until(stop: Event, work: Coroutine[Any, Any, list[SourceReport]]) -> list[SourceReport]:
    """`work`, cancelled once `stop` is set (`run_sources` then raises `Interrupted` with what it did)."""
    task = asyncio.ensure_future(work)
    while not task.done():
        await asyncio.wait({task}, timeout=_STOP_POLL_SECONDS)
        if stop.is_set():
            task.cancel()
            break
    return await task
