"""Compaction on Ray Data: one stored history per row, each unique content summarized once cluster-wide.

`compact_dataset(ds)` returns `ds` with its history column compacted byte-exactly (the same screen,
splicing and post-check as `summarizer batch`: every row goes through `StoredUnit.compact`) and report
columns added. The input is materialized once (the object store, spilled to disk when it does not
fit), so a source is read once and the plan and compact stages see the same rows; then it runs in
three stages of Ray tasks. Each worker process builds a stage's `Compactor` or `Summarizer` on its
first task of a job and keeps it for the next ones, so the model client, the cache handle and the
embedded model load once per process, as they would in an actor; and unlike an actor pool per stage,
the same worker processes (their imports done) serve every stage and every job:

1. **plan**: each history is planned as for compaction (`StoredUnit.plan`), and the cache key of every
   content it would summarize (`Summarizer.key_for`: content, model, prompt, shape, budget, quoted
   facts and, for a model shown it, the tool call) recorded with the candidate itself;
2. **distinct + summarize**: one planned row is kept per key (the driver reads the small key and
   owner columns and picks the first history by hash for each key; a filter keeps those rows), and
   each unique content is summarized once by tasks holding the real model and the summary
   cache. (Ray's `groupby` was the first choice; its hash shuffle's aggregator actors found no CPU
   while the stages' actor pools, as they were then, held a small node's, and the job hung: see
   docs/scale.md.)
3. **compact**: the summaries (small next to the histories) are broadcast through the object store,
   and each history is compacted by a `Compactor` whose `AnswerSource` answers from them, so no model
   is called here and the rewrite, the post-check and the originals store are exactly `batch`'s.

A row that is not a valid history, or whose rewrite fails the check, keeps its original value and
says why in `error`; it never fails the job. Ray retries a task whose worker died: every stage is a
pure function of its input rows, so a retried task yields the same rows, once.

`summarizer batch --engine ray` uses the same stages for files (`run_on_ray`), reading each source once
into a spool (`engines._spool`) for its writes; see docs/scale.md.
"""

# pyarrow ships no type information and ray's is partial: their members are unknown to pyright.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false
# pyright: reportUnknownParameterType=false

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import pickle
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import ray
import ray.data
from opentelemetry.trace import Tracer
from pydantic_ai.models import Model
from ray.data.dataset import MaterializedDataset

from ..core import SummarizerConfig, remove_temporaries
from ..pipeline import (
    Candidate,
    Compactor,
    OriginalStore,
    Outcome,
    Report,
    ServerUnreachable,
    Summarizer,
    SummaryCache,
    cache_folder,
    resolve_model,
)
from ..stored import Done, StoredUnit, Unit, Where
from ._runner import OnTick, kept
from ._sources import Source, Target
from ._spool import Spool

if TYPE_CHECKING:
    from ._runner import Journal, SourceReport

__all__ = ['REPORT_COLUMNS', 'compact_dataset']

REPORT_COLUMNS = ('summarized', 'failed', 'tokens_before', 'tokens_after', 'model_calls', 'error')
"""Added to every row: returns summarized and failed, the history's estimated tokens before and after,
the model calls made for contents this row was the first (by history hash) to need (rows holding the
very same history are each charged), and why the row was left as it was (None when it was not)."""

_ROW = Where(path=Path('<dataset row>'))
_PLAN_SCHEMA = pa.schema(
    [('key', pa.string()), ('owner', pa.string()), ('slot', pa.string()), ('candidate', pa.binary())]
)
_ANSWER_SCHEMA = pa.schema([('key', pa.string()), ('owner', pa.string()), ('answer', pa.binary())])


def compact_dataset(
    ds: ray.data.Dataset,
    *,
    column: str = 'messages',
    config: SummarizerConfig | None = None,
    model: Model | str | None = None,
    workers: int = 2,
    batch_size: int = 16,
    **overrides: object,
) -> ray.data.Dataset:
    """`ds` with each history in `column` compacted byte-exactly, plus the `REPORT_COLUMNS`.

    `column` holds one pydantic-ai history per row as JSON text (`str` or UTF-8 `bytes`, kept as
    given). `config` and `overrides` (config keys, as for `Compactor`) choose the summarizer; `model`
    may be a `Model` object. `workers` is how many tasks of each stage run at once, `batch_size` the
    rows per task. Every unique content is summarized once however many rows and blocks hold it. The
    input is read once: it is materialized (in the object store, spilled to disk when it does not fit)
    and both the plan and the compact stage read those blocks. The reading and the plan and summarize
    stages run before this returns (every summary must exist before a row is compacted); the compact
    stage is lazy, like any Dataset.
    """
    settings = _Settings.of(config, model, overrides)
    return _compacted(ds, column=column, settings=settings, workers=workers, batch_size=batch_size, keep_report=False)


def _compacted(
    ds: ray.data.Dataset, *, column: str, settings: _Settings, workers: int, batch_size: int, keep_report: bool
) -> ray.data.Dataset:
    """The three stages over `ds`, read once: materialized, then planned and compacted from the same blocks.

    `keep_report`: each row also carries its pickled report (`_report`), for `summarizer batch`'s writes.
    """
    read = ds.materialize()
    answers = _summarize_unique(read, column=column, settings=settings, workers=workers, batch_size=batch_size)
    return _stage(
        read,
        _Compact,
        settings,
        workers=workers,
        batch_size=batch_size,
        answers=[answers],
        column=column,
        keep_report=keep_report,
    )


@dataclass(frozen=True)
class _Settings:
    """What every stage needs to build its compactor or summarizer: shipped to the tasks by pickle."""

    config: SummarizerConfig
    model: Model | str | None
    job: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Tells one run's stages from another's in the worker processes that keep them (`_stage`)."""

    @classmethod
    def of(
        cls, config: SummarizerConfig | None, model: Model | str | None, overrides: Mapping[str, object]
    ) -> _Settings:
        return cls(config=(config or SummarizerConfig()).override(**overrides), model=model)


@dataclass
class _StageAnswers:
    """The `AnswerSource` of stage 3: each content's answer from the summarize stage's results, no model call."""

    keys: Summarizer
    """Whose `key_for` the answers are keyed by (the stages' shared configuration)."""
    answers: Mapping[str, tuple[str, Outcome]]
    """key -> (the hash of the first history needing it, its outcome)."""
    row: str = ''
    """The hash of the history being compacted (one at a time per process): only its owner is charged a call."""

    async def answer(self, candidates: Sequence[Candidate], *, tracer: Tracer | None = None) -> list[Outcome]:
        charged: set[str] = set()  # a content the row holds twice is one model call, the second a share
        outcomes: list[Outcome] = []
        for candidate in candidates:
            key = self.keys.key_for(candidate)
            found = self.answers.get(key)
            if found is None:  # a planner/compactor mismatch: never expected, reported rather than raised
                outcomes.append(Outcome(failure='not summarized by the summarize stage'))
                continue
            owner, outcome = found
            outcomes.append(outcome if owner == self.row and key not in charged else outcome.shared())
            charged.add(key)
        return outcomes


_Step = Callable[[pa.Table], pa.Table]

_KEPT = 6
"""Stages a worker process keeps built (two runs' three stages), the least recently used dropped first."""

_kept: dict[tuple[str, str], _Step] = {}
"""In each Ray worker process: the stages its tasks built, by job and stage, least recently used first."""


def _stage(
    ds: ray.data.Dataset,
    kind: Callable[..., _Step],
    settings: _Settings,
    *,
    workers: int,
    batch_size: int,
    blocks: ray.data.Dataset | None = None,
    **arguments: object,
) -> ray.data.Dataset:
    """`ds.map_batches` over Ray tasks, each passing its batch to `kind(settings, **arguments)`.

    At most `workers` tasks run at once, and no more than the blocks of `blocks` (by default `ds`) when
    it is materialized: a task takes whole blocks (Ray warns of a limit it cannot reach). A worker
    process builds the stage on its first task of the job and keeps it for the next ones: the model, the
    cache handle and the compactor are made once per process, as in an actor, while the processes
    themselves (their imports done, seconds of CPU each) serve every stage and every job.
    """
    counted = ds if blocks is None else blocks
    if isinstance(counted, MaterializedDataset):
        workers = min(workers, max(counted.num_blocks(), 1))
    return ds.map_batches(
        functools.partial(_run_task, kind=kind, settings=settings, arguments=arguments),
        batch_format='pyarrow',
        batch_size=batch_size,
        compute=ray.data.TaskPoolStrategy(size=workers),
    )


def _run_task(
    batch: pa.Table, *, kind: Callable[..., _Step], settings: _Settings, arguments: dict[str, object]
) -> pa.Table:
    key = (settings.job, kind.__qualname__)
    step = _kept.pop(key, None)
    if step is None:
        step = kind(settings, **arguments)
        while len(_kept) >= _KEPT:
            del _kept[next(iter(_kept))]
    _kept[key] = step  # the most recently used last
    return step(batch)


def _keys(settings: _Settings) -> Summarizer:
    """A summarizer for cache keys and budgets only (stages 1 and 3): the configured model, no disk cache."""
    model = resolve_model(settings.config, settings.model)
    return Summarizer(config=settings.config, model=model, cache=SummaryCache(directory=None, size_limit_bytes=0))


def _digest(raw: str | bytes) -> str:
    data = raw if isinstance(raw, bytes) else raw.encode('utf-8', 'surrogatepass')
    return hashlib.sha256(data).hexdigest()


def _unit(raw: str | bytes) -> StoredUnit:
    return StoredUnit(where=_ROW, raw=raw)


class _Plan:
    """Stage 1: rows -> (content key, history hash, pickled candidate), one per content to summarize."""

    def __init__(self, settings: _Settings, column: str) -> None:
        self.compactor = Compactor(
            config=settings.config, summarizer=_keys(settings), originals=OriginalStore.disabled()
        )
        self.column = column

    def __call__(self, batch: pa.Table) -> pa.Table:
        keys: list[str] = []
        owners: list[str] = []
        slots: list[str] = []
        candidates: list[bytes] = []
        for raw in batch.column(self.column).to_pylist():
            if not isinstance(raw, str | bytes):
                continue  # reported by the compact stage
            # bad input is reported by the compact stage
            planned = {self.compactor.summarizer.key_for(c): c for c in _unit(raw).plan(self.compactor)}
            digest, slot = _digest(raw), uuid.uuid4().hex  # the slot tells identical histories apart
            for key, candidate in planned.items():
                keys.append(key)
                owners.append(digest)
                slots.append(slot)
                candidates.append(pickle.dumps(candidate))
        return pa.table([keys, owners, slots, candidates], schema=_PLAN_SCHEMA)


def _only_chosen(batch: pa.Table, chosen: list[ray.ObjectRef[dict[str, tuple[str, str]]]]) -> pa.Table:
    """The distinct step: of the rows planning one key, only the one chosen to summarize it."""
    table = ray.get(chosen[0])
    keys, owners, slots = (batch.column(name).to_pylist() for name in ('key', 'owner', 'slot'))
    keep = [table[key] == (owner, slot) for key, owner, slot in zip(keys, owners, slots, strict=True)]
    return batch.filter(pa.array(keep, type=pa.bool_()))


class _Summarize:
    """Stage 2: one unique content per row -> its pickled `Outcome` (the only stage calling the model)."""

    def __init__(self, settings: _Settings) -> None:
        self.summarizer = Summarizer.from_config(settings.config, model=settings.model)

    def __call__(self, batch: pa.Table) -> pa.Table:
        candidates = [pickle.loads(raw) for raw in batch.column('candidate').to_pylist()]
        try:  # the batch's summaries are in the disk cache before the task ends
            outcomes = asyncio.run(self.summarizer.answer(candidates))
        except ServerUnreachable as exc:  # raised by the driver (`_summarize_unique`), not a failed task's traceback
            answers = [pickle.dumps(exc)] * len(candidates)
        else:
            answers = [pickle.dumps(outcome) for outcome in outcomes]
        return pa.table([batch.column('key'), batch.column('owner'), answers], schema=_ANSWER_SCHEMA)


def _summarize_unique(
    ds: ray.data.Dataset, *, column: str, settings: _Settings, workers: int, batch_size: int
) -> ray.ObjectRef[dict[str, tuple[str, Outcome]]]:
    """Stages 1 and 2: every unique content's answer, keyed by cache key, put in the object store."""
    planned = _stage(ds, _Plan, settings, workers=workers, batch_size=batch_size, column=column).materialize()
    chosen: dict[str, tuple[str, str]] = {}  # key -> the (owner, slot) of the row that summarizes it
    for row in planned.select_columns(['key', 'owner', 'slot']).iter_rows():
        key, mine = str(row['key']), (str(row['owner']), str(row['slot']))
        if key not in chosen or mine < chosen[key]:
            chosen[key] = mine
    answers: dict[str, tuple[str, Outcome]] = {}
    if chosen:
        unique = planned.map_batches(
            functools.partial(_only_chosen, chosen=[ray.put(chosen)]), batch_format='pyarrow', batch_size=batch_size
        )
        summarized = _stage(
            unique,
            _Summarize,
            settings,
            workers=workers,
            batch_size=max(settings.config.concurrency, 1),
            blocks=planned,  # `unique` filters `planned` block by block
        )
        for row in summarized.iter_rows():
            answer = pickle.loads(row['answer'])
            if isinstance(answer, ServerUnreachable):
                raise answer
            answers[str(row['key'])] = (str(row['owner']), answer)
    return ray.put(answers)


class _Compact:
    """Stage 3: each history compacted with the summaries of stage 2, byte-exactly, report columns added."""

    def __init__(
        self,
        settings: _Settings,
        answers: list[ray.ObjectRef[dict[str, tuple[str, Outcome]]]],
        column: str,
        keep_report: bool,
    ) -> None:
        keys = _keys(settings)
        self.answers = _StageAnswers(keys=keys, answers=ray.get(answers[0]))
        self.compactor = Compactor(config=settings.config, summarizer=keys, answers=self.answers)
        self.column = column
        self.keep_report = keep_report

    def __call__(self, batch: pa.Table) -> pa.Table:
        values = batch.column(self.column).to_pylist()
        done = [self._one(raw) for raw in values]
        new = [_encoded(item, raw) for item, raw in zip(done, values, strict=True)]
        index = batch.schema.get_field_index(self.column)
        table = batch.set_column(index, self.column, pa.array(new, type=batch.schema.field(self.column).type))
        columns: dict[str, list[object]] = {
            'summarized': [item.report.summarized for item in done],
            'failed': [item.report.failed for item in done],
            'tokens_before': [item.tokens_before for item in done],
            'tokens_after': [item.tokens_after for item in done],
            'model_calls': [item.report.model_calls for item in done],
            'error': [_error(item) for item in done],
        }
        if self.keep_report:
            columns['_report'] = [
                pickle.dumps((item.report, item.error, item.message_index, item.replaced)) for item in done
            ]
        for name, data in columns.items():
            table = table.append_column(name, pa.array(data))
        return table

    def _one(self, raw: object) -> Done:
        if not isinstance(raw, str | bytes):
            return Done(unit=_unit(''), error=f'expected JSON text, found {type(raw).__name__}')
        self.answers.row = _digest(raw)
        return asyncio.run(self._compacted(raw))

    async def _compacted(self, raw: str | bytes) -> Done:
        done = await _unit(raw).compact(self.compactor)
        if self.keep_report:
            return done  # `summarizer batch` records it where it writes it
        # a dataset row is kept nowhere known: its record has no identity
        return await kept(done, self.compactor.originals, identity='')


def _encoded(done: Done, raw: object) -> object:
    """The new value in the input's own type: text stays text, bytes stay (UTF-8) bytes."""
    if not done.changed or done.text is None:
        return raw
    return done.text.encode('utf-8') if isinstance(raw, bytes) else done.text


def _error(done: Done) -> str | None:
    if done.error is None:
        return None
    return f'message {done.message_index}: {done.error}' if done.message_index is not None else done.error


# -- summarizer batch --engine ray -----------------------------------------------------------------


def run_on_ray(
    sources: list[Source],
    *,
    config: SummarizerConfig,
    target: Target,
    journal: Journal | None,
    on_tick: OnTick,
    workers: int,
    address: str | None,
) -> list[SourceReport]:
    """`run_batch` on the Ray cluster at `address`: the one this process joined already, else a new local one."""
    joins = address is not None or not ray.is_initialized()
    if joins:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        return _run_on_ray(sources, config=config, target=target, journal=journal, on_tick=on_tick, workers=workers)
    finally:
        if joins:  # only a connection this call made is closed
            ray.shutdown()


def _run_on_ray(
    sources: list[Source],
    *,
    config: SummarizerConfig,
    target: Target,
    journal: Journal | None,
    on_tick: OnTick,
    workers: int,
) -> list[SourceReport]:
    """`run_batch`, with the histories compacted on Ray: read, compact on the cluster, write as `batch` does.

    Each source is read once, into a spool (`engines._spool`), to build the dataset (identical histories
    once), which `compact_dataset`'s stages compact; then the sources' own writing (atomic,
    compare-and-swap against that read, journaled) takes the histories back from the spool with each
    one's result looked up by its hash. LangChain sessions (several rows each) are compacted here.
    """
    if not target.dry_run:  # a killed run's unfinished writes of the outputs about to be written
        remove_temporaries([path for source in sources for path in source.temporaries(target)])
    with Spool.of_run(cache_folder(config.cache.resolved_directory())) as spool:
        texts: dict[str, str | bytes] = {}
        for source in sources:
            for unit in spool.read(source, target):
                if isinstance(unit, StoredUnit) and unit.refused is None:
                    texts.setdefault(_digest(unit.raw), unit.raw)
        settings = _Settings(config=config, model=None)
        results: dict[str, Done] = {}
        if texts:
            # each row carries its input's hash: results are matched by it, never by the order rows come back in
            ds = ray.data.from_items([{'digest': digest, 'messages': raw} for digest, raw in texts.items()])
            compacted = _compacted(
                ds, column='messages', settings=settings, workers=workers, batch_size=16, keep_report=True
            )
            for row in compacted.iter_rows():
                digest = str(row['digest'])
                results[digest] = _done(texts[digest], row)
        compactor = Compactor(config=config)

        async def process(unit: Unit) -> Done:
            known = results.get(_digest(unit.raw)) if isinstance(unit, StoredUnit) else None
            if known is None:
                return await unit.compact(compactor)
            return dataclasses.replace(known, unit=unit)  # the history as the source read it, for its write

        try:
            return asyncio.run(
                spool.compact(
                    sources, compactor=compactor, target=target, journal=journal, on_tick=on_tick, process=process
                )
            )
        finally:
            compactor.summarizer.cache.close()


def _done(raw: str | bytes, row: dict[str, object]) -> Done:
    """A row of the compact stage as the `Done` of its history (the CLI's reports and writes use it)."""
    value = row['messages']
    changed = value != raw
    report, error, message_index, replaced = pickle.loads(row['_report'])  # type: ignore[arg-type]
    assert isinstance(report, Report)
    text = (value.decode('utf-8') if isinstance(value, bytes) else str(value)) if changed else None
    return Done(
        unit=_unit(raw),
        report=report,
        tokens_before=int(row['tokens_before']),  # type: ignore[call-overload]
        tokens_after=int(row['tokens_after']),  # type: ignore[call-overload]
        text=text,
        error=error,
        message_index=message_index,
        replaced=replaced,
    )
