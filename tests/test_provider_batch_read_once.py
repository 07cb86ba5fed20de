"""`--provider-batch` reads each source once: the plan keeps what it read in a spool, the compaction writes from it.

With pydantic-ai's in-memory batch API (a `FunctionModel`), through the library entry point: every
`units()` pass over a source is counted, the bytes written are a live run's, a history another program
changed after the read is left as that program made it and reported, and the spool is gone at the end.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import summarizer_model
from test_batch import make_conversations, rows, stored

from summarizer import extractive
from summarizer.core._config import SummarizerConfig
from summarizer.engines._provider import run_provider_batch
from summarizer.engines._runner import Journal, SourceReport, result_settings, run_sources
from summarizer.engines._sources import JsonlSource, JsonSource, Source, SqliteSource, Target, discover
from summarizer.pipeline._pipeline import Compactor
from summarizer.stored._stored import StoredHistory, check_rewrite
from summarizer.stored._units import StoredUnit, Unit

CONFIG = SummarizerConfig().override(keep_recent=0)


def make_inputs(folder: Path) -> None:
    """A JSON file, a JSONL file of two histories and a SQLite database of two: five unique histories."""
    folder.mkdir()
    (folder / 'a.json').write_bytes(stored(1))
    (folder / 'b.jsonl').write_bytes(stored(2) + b'\n' + stored(3) + b'\n')
    make_conversations(folder / 'c.db', {'x': stored(4), 'y': stored(5)})


def count_reads(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Counter[str]]:
    """Counts of `units()` passes and of units read, by source file name, for every file source kind."""
    passes: Counter[str] = Counter()
    units: Counter[str] = Counter()
    for kind in (JsonSource, JsonlSource, SqliteSource):

        def counted(source: JsonSource, read: Callable[..., Iterator[Unit]] = kind.units) -> Iterator[Unit]:
            passes[source.path.name] += 1
            for unit in read(source):
                units[source.path.name] += 1
                yield unit

        monkeypatch.setattr(kind, 'units', counted)
    return passes, units


def provider_batch(sources: list[Source], journal: Path) -> list[SourceReport]:
    calls: list[object] = []
    model = summarizer_model(lambda content, budget: extractive.summarize(content, budget_tokens=budget), calls)  # pyright: ignore[reportArgumentType]
    record = Journal(journal, settings=result_settings(CONFIG))
    record.start(resume=False)
    reports, report = run_provider_batch(
        sources,
        config=CONFIG,
        target=Target(),
        journal=record,
        on_tick=lambda _: None,
        on_note=lambda _: None,
        model=model,
    )
    assert len(calls) == report.requests  # each unique content once, in the in-memory batch
    return reports


def test_each_source_is_read_once_and_written_as_a_live_run_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_cache: Path
) -> None:
    make_inputs(tmp_path / 'in')
    model = summarizer_model(lambda content, budget: extractive.summarize(content, budget_tokens=budget))  # pyright: ignore[reportArgumentType]
    live = Compactor(config=CONFIG.override(cache={'enabled': False}), model=model)
    asyncio.run(
        run_sources(
            discover([tmp_path / 'in'], config=CONFIG.batch, out=tmp_path / 'live'),
            compactor=live,
            target=Target(),
            journal=None,
            on_tick=lambda _: None,
        )
    )
    passes, units = count_reads(monkeypatch)

    reports = provider_batch(
        discover([tmp_path / 'in'], config=CONFIG.batch, out=tmp_path / 'batch'), tmp_path / 'journal.jsonl'
    )

    assert all(report.ok for report in reports)
    assert passes == {'a.json': 1, 'b.jsonl': 1, 'c.db': 1}
    assert units == {'a.json': 1, 'b.jsonl': 2, 'c.db': 2}
    for name in ('a.json', 'b.jsonl'):
        written = (tmp_path / 'batch' / name).read_bytes()
        assert written == (tmp_path / 'live' / name).read_bytes() != (tmp_path / 'in' / name).read_bytes()
    query = 'SELECT id, messages FROM conversations ORDER BY id'
    assert rows(tmp_path / 'batch' / 'c.db', query) == rows(tmp_path / 'live' / 'c.db', query)
    assert sum(report.changed for report in reports) == 5
    assert list((isolated_cache / 'spool').iterdir()) == []  # the spool is gone


def test_a_history_changed_after_the_read_is_left_as_changed_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_cache: Path
) -> None:
    make_inputs(tmp_path / 'in')
    json_file, database = tmp_path / 'in' / 'a.json', tmp_path / 'in' / 'c.db'
    newer = stored(6)

    def application() -> None:  # between the batch's read of each history and its write
        json_file.write_bytes(newer)
        with sqlite3.connect(database, timeout=1) as connection:
            connection.execute("UPDATE conversations SET messages = ? WHERE id = 'y'", (newer.decode(),))
        connection.close()

    plan = StoredUnit.plan
    pending = [application]

    def plan_then_race(unit: StoredUnit, compactor: Compactor) -> object:
        if pending and unit.where.row_id == 'y':  # the last history read
            pending.pop()()
        return plan(unit, compactor)

    monkeypatch.setattr(StoredUnit, 'plan', plan_then_race)
    passes, _ = count_reads(monkeypatch)

    reports = provider_batch(
        discover([tmp_path / 'in'], config=CONFIG.batch, out=None, in_place=True), tmp_path / 'journal.jsonl'
    )

    assert passes == {'a.json': 1, 'b.jsonl': 1, 'c.db': 1}
    assert json_file.read_bytes() == newer
    after = dict(rows(database, 'SELECT id, messages FROM conversations'))
    assert after['y'] == newer.decode()
    check_rewrite(StoredHistory.parse(stored(4)), StoredHistory.parse(str(after['x'])))
    by_name = {Path(report.source).name: report for report in reports}
    for name in ('a.json', 'c.db'):
        [problem] = by_name[name].problems
        assert problem.kind == 'history' and problem.problem.startswith('changed while compacting (')
    assert by_name['c.db'].changed == 1 and by_name['b.jsonl'].changed == 2 and by_name['b.jsonl'].ok
    assert list((isolated_cache / 'spool').iterdir()) == []


def test_a_source_that_cannot_be_read_is_reported_and_a_killed_run_s_spool_removed(
    tmp_path: Path, isolated_cache: Path
) -> None:
    make_inputs(tmp_path / 'in')
    sources = discover([tmp_path / 'in'], config=CONFIG.batch, out=tmp_path / 'out')
    (tmp_path / 'in' / 'a.json').unlink()  # gone between discovery and the read
    isolated_cache.mkdir(mode=0o700)  # private: the cache folder itself
    killed = isolated_cache / 'spool' / '999999999-x'  # a pid no process has: its run was killed
    killed.mkdir(parents=True)
    (killed / '0.units').write_bytes(b'history text')

    reports = provider_batch(sources, tmp_path / 'journal.jsonl')

    by_name = {Path(report.source).name: report for report in reports}
    [problem] = by_name['a.json'].problems
    assert problem.kind == 'source' and problem.problem.startswith('FileNotFoundError: ')
    assert by_name['b.jsonl'].changed == 2 and by_name['c.db'].changed == 2
    assert not (tmp_path / 'out' / 'a.json').exists()
    assert list((isolated_cache / 'spool').iterdir()) == []
