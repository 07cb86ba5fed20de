"""A compacted history is never written without its way back: when the originals store cannot keep it, the
history is left as it was and reported (exit 1); `restore` names every history it cannot restore."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import make_conversations, rows, stored

from summarizer import SummarizerConfig
from summarizer.cli import main
from summarizer.engines import _sources
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
    assert 'h1.json: not compacted: the originals store is full (size_limit_mb 0), so it could not be undone' in (
        batch_errors
    )
    assert 'table conversations row r1 (rowid 1): not compacted: the originals store is full' in batch_errors
    compact_output = ' '.join(capsys.readouterr().out.split())
    assert 'h0.json unchanged (not compacted)' in compact_output
    assert 'h0.json: the originals store is full (size_limit_mb 0), so it could not be undone' in compact_output


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
    assert 'h1.json: not compacted: the originals store was deleted or replaced while in use' in err(capsys)


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
    assert 'not compacted: the originals store was locked by another process for 0.2 s' in err(capsys)
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
