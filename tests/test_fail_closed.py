"""A compacted history is never written without its way back: when the originals store cannot keep it, the
history is left as it was and reported (exit 1); `restore` names every history it cannot restore. In an
agent run, a return whose original the store refuses is not summarized, and a run waiting on a locked
store keeps its event loop free."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from helpers import BIG_TEXT, compactor, history, loop_gaps
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from test_batch import make_conversations, rows, stored
from test_capability import TOOL_OUTPUTS, make_agent, tool_returns

from summarizer import OriginalsConfig, SummarizerConfig
from summarizer.capability import SummarizeToolReturns, SummarizeToolReturnsProcessor
from summarizer.cli import main
from summarizer.engines import _sources
from summarizer.engines._runner import run_sources
from summarizer.pipeline import _originals
from summarizer.pipeline._originals import READ_HINT, OriginalStore


def store_folder(isolated_cache: Path) -> Path:
    return isolated_cache.with_name('cache-originals')


def three_files(tmp_path: Path) -> Path:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    for index in range(3):
        (inputs / f'h{index}.json').write_bytes(stored(index))
    return inputs


def err(capsys: pytest.CaptureFixture[str]) -> str:
    return ' '.join(capsys.readouterr().err.split())  # rich wraps long lines


def test_a_full_store_leaves_every_history_as_it_was_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = three_files(tmp_path)
    database = tmp_path / 'store.db'
    make_conversations(database, {'r1': stored(3)})
    before = rows(database, 'SELECT * FROM conversations')
    (tmp_path / 'config.yaml').write_text('originals:\n  size_limit_mb: 0\n')
    capsys.readouterr()

    config = ['--config', str(tmp_path / 'config.yaml'), '--keep-recent', '0']
    assert main(['batch', str(inputs), str(database), '--in-place', *config]) == 1
    assert main(['batch', str(inputs), '--out', str(tmp_path / 'out'), *config]) == 1
    batch_errors = err(capsys)
    assert main(['compact', str(inputs / 'h0.json'), '--in-place', *config]) == 1

    assert all((inputs / f'h{index}.json').read_bytes() == stored(index) for index in range(3))
    assert all((tmp_path / 'out' / f'h{index}.json').read_bytes() == stored(index) for index in range(3))
    assert rows(database, 'SELECT * FROM conversations') == before
    refused = 'not summarized: the originals store is full (size_limit_mb 0), so it could not be read back'
    assert f'h1.json message 6: {refused}' in batch_errors
    assert f'table conversations row r1 (rowid 1) message 6: {refused}' in batch_errors
    compact_output = ' '.join(capsys.readouterr().out.split())
    assert 'h0.json unchanged (not compacted)' in compact_output
    assert f'h0.json: message 2 part 0 (search, call_0): {refused}' in compact_output


@pytest.mark.parametrize('what', ['deleted', 'replaced'])
def test_a_store_deleted_or_replaced_under_a_batch_is_noticed_and_nothing_more_is_compacted(
    what: str, tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = three_files(tmp_path)
    write = _sources.JsonSource.write

    def write_then_lose_the_store(self: _sources.JsonSource, done: _sources.Done) -> None:
        write(self, done)
        if Path(done.unit.where.path).name == 'h0.json':  # the batch keeps its connection to the old file
            shutil.rmtree(store_folder(isolated_cache))
            if what == 'replaced':
                assert OriginalStore.from_config(SummarizerConfig()).available  # a new, empty store

    monkeypatch.setattr(_sources.JsonSource, 'write', write_then_lose_the_store)
    capsys.readouterr()
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 1
    assert (inputs / 'h0.json').read_bytes() != stored(0)  # recorded before the store was lost
    assert (inputs / 'h1.json').read_bytes() == stored(1) and (inputs / 'h2.json').read_bytes() == stored(2)
    # histories compact concurrently: h1 either was compacted before the store was lost (its record is
    # refused, the history left as it was) or was still being compacted (each return refused its summary)
    lost = 'the originals store was deleted or replaced while in use'
    assert re.search(rf'h1\.json(: not compacted| message \d+: not summarized): {lost}', err(capsys))


def test_a_store_locked_past_its_timeout_leaves_the_history_as_it_was(
    tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / 'h.json'
    path.write_bytes(stored(0))
    store = OriginalStore.from_config(SummarizerConfig())
    assert store.available and store.database is not None
    store.close()
    monkeypatch.setattr(_originals, '_BUSY_SECONDS', 0.2)
    holder = sqlite3.connect(store.database, isolation_level=None)
    holder.execute('BEGIN EXCLUSIVE')  # another process holding the store's write lock
    try:
        capsys.readouterr()
        assert main(['compact', str(path), '--in-place', '--keep-recent', '0']) == 1
        assert main(['batch', str(path), '--in-place', '--keep-recent', '0']) == 1
    finally:
        holder.execute('ROLLBACK')
        holder.close()
    assert path.read_bytes() == stored(0)
    assert 'not summarized: the originals store was locked by another process for 0.2 s' in err(capsys)
    assert main(['batch', str(path), '--in-place', '--keep-recent', '0']) == 0  # free again: compacted
    assert path.read_bytes() != stored(0)


def test_restore_names_a_history_holding_summaries_the_store_has_no_record_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A string whose omission marker names the read tool is a summary whose original was stored: a history
    holding one with no record (its store since replaced) cannot be restored, and restore says so."""
    summarized = '\n'.join(BIG_TEXT.splitlines()[:3]) + f'\n… 597 lines omitted …{READ_HINT}'
    path = tmp_path / 'h.json'
    path.write_bytes(ModelMessagesTypeAdapter.dump_json(history(summarized)))
    compacted = path.read_bytes()
    assert OriginalStore.from_config(SummarizerConfig()).available  # a store, without its record
    capsys.readouterr()

    assert main(['restore', str(path), '--in-place']) == 1
    assert path.read_bytes() == compacted
    assert 'h.json: cannot restore: 1 of its values are summaries, but the store has no record' in err(capsys)


def _records(isolated_cache: Path) -> list[tuple[object, ...]]:
    database = store_folder(isolated_cache) / 'originals.db'
    with sqlite3.connect(database) as connection:
        found = connection.execute('SELECT identity FROM history_records').fetchall()
    connection.close()
    return found


def test_each_history_is_recorded_under_where_its_compacted_version_is_written(
    tmp_path: Path, isolated_cache: Path
) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'h.json').write_bytes(stored(0))
    (inputs / 'many.jsonl').write_bytes(stored(1) + b'\n' + stored(2) + b'\n')
    make_conversations(inputs / 'z.db', {'r1': stored(3)})
    assert main(['batch', str(inputs), '--out', str(tmp_path / 'out'), '--keep-recent', '0']) == 0
    out = (tmp_path / 'out').resolve()
    assert sorted(json.loads(str(identity)) for (identity,) in _records(isolated_cache)) == sorted(
        [
            [str(out / 'h.json'), None, None, None, None],
            [str(out / 'many.jsonl'), 1, None, None, None],
            [str(out / 'many.jsonl'), 2, None, None, None],
            [str(out / 'z.db'), None, 'conversations', None, 1],
        ]
    )


async def test_a_store_locked_by_another_process_leaves_the_agents_event_loop_free(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's store writes and look-ups wait for a lock off the event loop: the host's other tasks go on."""
    monkeypatch.setattr(_originals, '_BUSY_SECONDS', 1.5)
    summarizing = compactor(keep_recent=1, threshold_tokens=500, policy={'kind': 'threshold'})
    assert summarizing.originals.available and summarizing.originals.database is not None
    holder = sqlite3.connect(summarizing.originals.database, isolation_level=None)
    holder.execute('BEGIN IMMEDIATE')  # a batch run or a backup holding the store's write lock
    try:
        async with loop_gaps(0.02) as gaps:
            started = time.monotonic()
            await summarizing.session().process(history(BIG_TEXT, BIG_TEXT))
            waited = time.monotonic() - started
    finally:
        holder.execute('ROLLBACK')
        holder.close()
    assert waited >= 1.5  # the write waited out the lock ...
    assert max(gaps) < 0.5  # ... and the event loop ticked on meanwhile


@pytest.mark.parametrize('plugin', ['capability', 'processor'])
@pytest.mark.parametrize('refusing', ['squatted by a file', 'squatted by another user', 'full', 'locked'])
async def test_a_return_whose_original_the_store_refuses_is_not_summarized_in_an_agent_run(
    plugin: str, refusing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin fails closed: the return keeps its content, the failure is reported, no summary names the tool."""
    shared = tmp_path / 'shared'  # a /tmp-like folder: the store goes into a private folder inside it
    shared.mkdir()
    shared.chmod(0o1777)
    squat = shared / f'tool-return-summarizer-originals-{os.geteuid()}'
    limit = 0 if refusing == 'full' else 4096
    if refusing == 'squatted by a file':
        squat.write_text('')
    elif refusing == 'squatted by another user':
        squat.mkdir(mode=0o777)
        if os.geteuid() == 0:
            os.chown(squat, 65534, 65534)
    originals = OriginalsConfig(directory=shared, size_limit_mb=limit)
    options = {'model': 'extractive', 'keep_recent': 0, 'policy': 'threshold', 'originals': originals}
    summarize = SummarizeToolReturns(**options) if plugin == 'capability' else SummarizeToolReturnsProcessor(**options)
    store = summarize.compactor.originals  # type: ignore[union-attr]
    holder: sqlite3.Connection | None = None
    if refusing == 'locked':
        monkeypatch.setattr(_originals, '_BUSY_SECONDS', 0.2)
        assert store.available and store.database is not None
        holder = sqlite3.connect(store.database, isolation_level=None)
        holder.execute('BEGIN IMMEDIATE')
    seen: list[list[ModelMessage]] = []
    try:
        capability = summarize if plugin == 'capability' else ProcessHistory(summarize)  # type: ignore[arg-type]
        await make_agent([capability], seen).run('inspect everything')
    finally:
        if holder is not None:
            holder.execute('ROLLBACK')
            holder.close()
    final = tool_returns(seen[-1])
    assert len(final) == 3 and all(part.content == TOOL_OUTPUTS[part.tool_name] for part in final)  # all kept whole
    report = summarize.report
    assert report.summarized == 0 and report.failed == 3
    assert all(f.reason.startswith('not summarized: the originals store ') for f in report.failures)
    assert all('read_tool_return' not in str(part.content) for messages in seen for part in tool_returns(messages))


async def test_a_batch_waiting_on_a_locked_store_leaves_its_event_loop_free(
    tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A history's record waits for the lock in a worker thread: the batch's other histories go on meanwhile."""
    path = tmp_path / 'h.json'
    path.write_bytes(stored(0))
    monkeypatch.setattr(_originals, '_BUSY_SECONDS', 5.0)
    config = SummarizerConfig().override(keep_recent=0)
    summarizing = compactor(keep_recent=0)
    assert summarizing.originals.available and summarizing.originals.database is not None
    holder = sqlite3.connect(summarizing.originals.database, isolation_level=None, check_same_thread=False)
    stored_as = _sources.Source.stored

    def lock_then_store(self: _sources.Source, done: _sources.Done) -> _sources.Rewrite:
        holder.execute('BEGIN IMMEDIATE')  # a backup takes the store's lock just before the record is written
        threading.Timer(1.0, lambda: holder.execute('ROLLBACK')).start()
        return stored_as(self, done)

    monkeypatch.setattr(_sources.Source, 'stored', lock_then_store)
    sources = _sources.discover([path], config=config.batch, out=None, in_place=True)
    try:
        async with loop_gaps(0.02) as gaps:
            (report,) = await run_sources(
                sources, compactor=summarizing, target=_sources.Target(), journal=None, on_tick=lambda tick: None
            )
    finally:
        holder.close()
    assert report.changed == 1 and path.read_bytes() != stored(0)  # recorded once the lock was let go, then written
    assert max(gaps) < 0.5  # the event loop ticked on while the record waited
