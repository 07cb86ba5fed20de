"""`summarizer restore`: compaction undone byte for byte, whole histories or nothing."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from forked_cli import Forked
from helpers import BIG_LIST, BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows, make_conversations, make_message_store, read_report, rows, stored

from summarizer.cli import main
from summarizer.stored._stored import StoredHistory

CONVERSATIONS = 'SELECT id, messages FROM conversations ORDER BY id'
MESSAGE_STORE = 'SELECT id, session_id, message FROM message_store ORDER BY id'


def originals_db(isolated_cache: Path) -> Path:
    return isolated_cache.with_name('cache-originals') / 'originals.db'


def test_compact_then_restore_is_byte_identical_on_the_older_schema(
    old_schema_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = old_schema_file.read_bytes()
    assert main(['compact', str(old_schema_file), '--in-place', '--keep-recent', '0']) == 0
    compacted = old_schema_file.read_bytes()
    assert len(compacted) < len(before) // 2

    assert main(['restore', str(old_schema_file), '--out', str(tmp_path / 'out')]) == 0
    assert (tmp_path / 'out' / old_schema_file.name).read_bytes() == before
    assert old_schema_file.read_bytes() == compacted  # --out leaves the input alone

    assert main(['restore', str(old_schema_file), '--in-place']) == 0
    assert old_schema_file.read_bytes() == before
    err = capsys.readouterr().err
    assert f'{old_schema_file}: 1 history, 1 restored, 0 failed, 2 values put back' in err  # not "1 histories"
    assert 'restore: 1 source, 1 history, 1 restored, 0 failed, 2 values put back, 0 sources resumed' in err
    assert main(['restore', str(old_schema_file), '--in-place']) == 0  # nothing left to restore: unchanged
    assert old_schema_file.read_bytes() == before


def test_batch_then_restore_json_and_jsonl_byte_identical(tmp_path: Path) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'one.json').write_bytes(stored(0))
    (inputs / 'many.jsonl').write_bytes(b'\n'.join([stored(1), b'', stored(2), b'[]']) + b'\r\n')
    before = {path.name: path.read_bytes() for path in inputs.iterdir()}
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 0
    assert all(path.read_bytes() != before[path.name] for path in inputs.iterdir())
    assert main(['restore', str(inputs), '--in-place']) == 0
    assert {path.name: path.read_bytes() for path in inputs.iterdir()} == before


def test_batch_then_restore_sqlite_and_langchain_stores(tmp_path: Path) -> None:
    database = tmp_path / 'store.db'
    make_conversations(database, {f'r{index}': stored(index) for index in range(3)})
    make_message_store(
        database,
        {'s1': langchain_rows('s1', 'é ' + BIG_TEXT, ascii_only=False), 's2': langchain_rows('s2', BIG_TEXT)},
    )
    before = rows(database, CONVERSATIONS), rows(database, MESSAGE_STORE)
    assert main(['batch', str(database), '--in-place', '--keep-recent', '0']) == 0
    compacted = rows(database, CONVERSATIONS), rows(database, MESSAGE_STORE)
    assert all(old != new for old, new in zip(before[0], compacted[0])) and before[1] != compacted[1]
    assert main(['restore', str(database), '--in-place']) == 0
    assert (rows(database, CONVERSATIONS), rows(database, MESSAGE_STORE)) == before


def test_a_missing_original_changes_nothing_in_that_history_and_exits_1(
    tmp_path: Path, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    for index in range(2):
        (inputs / f'h{index}.json').write_bytes(stored(index))
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 0
    compacted = {path.name: path.read_bytes() for path in inputs.iterdir()}
    with sqlite3.connect(originals_db(isolated_cache)) as connection:  # h0's first original, and only it
        assert connection.execute("DELETE FROM originals WHERE text LIKE '%history 0%'").rowcount == 1
    connection.close()
    capsys.readouterr()

    assert main(['restore', str(inputs), '--in-place']) == 1
    assert (inputs / 'h0.json').read_bytes() == compacted['h0.json']  # nothing of it changed
    assert (inputs / 'h1.json').read_bytes() == stored(1)  # the other history is restored
    err = capsys.readouterr().err
    assert 'h0.json: cannot restore: message 2 part 0: its original is not in the originals store' in err


def test_a_history_compacted_twice_is_restored_to_the_first_original(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In place again with other settings, `--backup` each time: restore still gets the text before the first."""
    twice = tmp_path / 'twice.json'
    twice.write_bytes(stored(0))
    assert main(['compact', str(twice), '--in-place', '--keep-recent', '0']) == 0
    once = twice.read_bytes()
    assert (
        main(['compact', str(twice), '--in-place', '--backup', '--keep-recent', '0', '--threshold-tokens', '60']) == 0
    )
    assert twice.read_bytes() != once and twice.with_name('twice.json.bak').read_bytes() == once  # this run's input
    capsys.readouterr()

    assert main(['restore', str(twice), '--in-place']) == 0
    assert twice.read_bytes() == stored(0)
    assert '3 values put back' in capsys.readouterr().err  # each value once, however often it was summarized
    assert main(['restore', str(twice), '--in-place']) == 0  # nothing recorded of the original: left as it is
    assert twice.read_bytes() == stored(0)


def test_a_history_partly_restored_is_refused_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    partly = tmp_path / 'partly.json'
    partly.write_bytes(stored(1))
    assert main(['compact', str(partly), '--in-place', '--keep-recent', '0']) == 0
    original, compacted = StoredHistory.parse(stored(1)), StoredHistory.parse(partly.read_bytes())
    start, end = compacted.spans[(2, 0)]
    old_start, old_end = original.spans[(2, 0)]  # one value put back by hand, the others still summaries
    partly.write_text(compacted.text[:start] + original.text[old_start:old_end] + compacted.text[end:])
    partly_restored = partly.read_bytes()
    capsys.readouterr()

    assert main(['restore', str(partly), '--in-place']) == 1
    assert partly.read_bytes() == partly_restored
    err = ' '.join(capsys.readouterr().err.split())
    assert 'partly.json: cannot restore: 2 of its values are summaries, but the store has no record' in err


_KILLER = """
import os, signal, sys
from summarizer.engines import _sources
from summarizer.cli import main

writes = 0
def dying(original):
    def write(*args, **kwargs):
        global writes
        writes += 1
        if writes == {kill_at}:
            os.kill(os.getpid(), signal.SIGKILL)
        return original(*args, **kwargs)
    return write

_sources.atomic_write = dying(_sources.atomic_write)
_sources.SqliteSource.write = dying(_sources.SqliteSource.write)
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_restore_killed_mid_run_loses_nothing_and_a_rerun_finishes_it(tmp_path: Path) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    for index in range(4):
        (inputs / f'h{index}.json').write_bytes(stored(index))
    make_conversations(inputs / 'z.db', {f'r{index}': stored(10 + index) for index in range(4)})
    (tmp_path / 'config.yaml').write_text('batch:\n  commit_every: 2\n')
    before = {path.name: path.read_bytes() for path in inputs.glob('*.json')}, rows(inputs / 'z.db', CONVERSATIONS)
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 0
    compacted = {path.name: path.read_bytes() for path in inputs.glob('*.json')}

    killer = tmp_path / 'killer.py'
    command = [
        sys.executable,
        str(killer),
        'restore',
        str(inputs),
        '--in-place',
        '--config',
        str(tmp_path / 'config.yaml'),
    ]
    killer.write_text(_KILLER.replace('{kill_at}', '3'))  # the third file write
    assert subprocess.run(command, check=False, capture_output=True).returncode == -9
    files = {path.name: path.read_bytes() for path in inputs.glob('*.json')}
    assert all(files[name] in (before[0][name], compacted[name]) for name in files)  # old or new, never half
    assert sum(files[name] == before[0][name] for name in files) == 2

    killer.write_text(_KILLER.replace('{kill_at}', '5'))  # the 2 files left, then the third row (two committed)
    assert subprocess.run(command, check=False, capture_output=True).returncode == -9
    assert {path.name: path.read_bytes() for path in inputs.glob('*.json')} == before[0]
    restored_rows = rows(inputs / 'z.db', CONVERSATIONS)
    assert restored_rows[:2] == before[1][:2] and restored_rows[2:] != before[1][2:]
    assert rows(inputs / 'z.db', 'PRAGMA integrity_check') == [('ok',)]

    killer.write_text(_KILLER.replace('{kill_at}', '0'))
    assert subprocess.run(command, check=False, capture_output=True).returncode == 0
    assert ({path.name: path.read_bytes() for path in inputs.glob('*.json')}, rows(inputs / 'z.db', CONVERSATIONS)) == (
        before
    )


def test_a_dry_run_stores_no_original(old_schema_file: Path, isolated_cache: Path) -> None:
    assert main(['compact', str(old_schema_file), '--dry-run', '--keep-recent', '0']) == 0
    assert not originals_db(isolated_cache).exists()


def test_a_deleted_store_names_each_history_it_cannot_restore(
    tmp_path: Path, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/restore.md promises a message per history after a purge: it was one "nothing was compacted" line, exit 2."""
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'compacted.json').write_bytes(stored(0))
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 0
    (inputs / 'never.json').write_bytes(stored(1))
    (inputs / 'lists.json').write_bytes(ModelMessagesTypeAdapter.dump_json(history(BIG_LIST)))
    assert main(['batch', str(inputs / 'lists.json'), '--in-place', '--keep-recent', '0']) == 0
    before = {path.name: path.read_bytes() for path in inputs.iterdir()}
    shutil.rmtree(originals_db(isolated_cache).parent)
    capsys.readouterr()

    assert main(['restore', str(inputs), '--in-place']) == 1
    err = capsys.readouterr().err
    assert f'no originals store at {originals_db(isolated_cache).parent} (deleted' in err
    problems = sorted(line for line in err.splitlines() if line.startswith('history failed'))
    assert problems == [
        f'history failed {inputs / name}: cannot restore: it holds summaries, but there is no originals store to '
        'restore them from; left as it is'
        for name in ('compacted.json', 'lists.json')
    ]
    assert {path.name: path.read_bytes() for path in inputs.iterdir()} == before
    assert not originals_db(isolated_cache).parent.exists()  # restore made no store


def test_langchain_blob_rows_are_restored_as_the_same_blobs(tmp_path: Path) -> None:
    from test_batch_rows import make_blob_store

    messages = [text.encode() for text in langchain_rows('s1', 'é → ' + BIG_TEXT, ascii_only=False)]
    database = tmp_path / 'chat.db'
    make_blob_store(database, {'s1': messages})
    query = 'SELECT typeof(message), message FROM message_store ORDER BY id'
    before = rows(database, query)
    assert main(['batch', str(database), '--in-place', '--keep-recent', '0']) == 0
    assert rows(database, query) != before
    assert main(['restore', str(database), '--in-place']) == 0
    assert rows(database, query) == before  # every byte back, and still BLOBs


@functools.cache
def twins() -> tuple[bytes, bytes]:
    """Two histories that differ only inside a part compaction omits (one log line's `took 2100 ms`)."""
    first = stored(5)
    second = first.replace(b'took 2100 ms', b'took 2101 ms')
    assert second != first
    return first, second


def test_two_files_compacted_to_the_same_text_each_get_their_own_original_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    first, second = twins()
    (inputs / 'a.json').write_bytes(first)
    (inputs / 'b.json').write_bytes(second)
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 0
    assert (inputs / 'a.json').read_bytes() == (inputs / 'b.json').read_bytes()  # the same compacted text

    moved = tmp_path / 'moved'  # a copy of a compacted file elsewhere: its own record is not there
    moved.mkdir()
    (moved / 'a.json').write_bytes((inputs / 'a.json').read_bytes())
    capsys.readouterr()
    assert main(['restore', str(inputs), '--in-place']) == 0
    assert (inputs / 'a.json').read_bytes() == first and (inputs / 'b.json').read_bytes() == second

    assert main(['restore', str(moved), '--in-place']) == 1  # which of the two it was is unknown: refused
    assert 'a.json: cannot restore: 2 different histories were compacted to this exact text' in ' '.join(
        capsys.readouterr().err.split()
    )
    assert (moved / 'a.json').read_bytes() != first


def test_two_rows_compacted_to_the_same_text_each_get_their_own_original_back(tmp_path: Path) -> None:
    database = tmp_path / 'store.db'
    first, second = twins()
    make_conversations(database, {'r1': first, 'r2': second})
    before = rows(database, CONVERSATIONS)
    assert main(['batch', str(database), '--in-place', '--keep-recent', '0']) == 0
    compacted = rows(database, CONVERSATIONS)
    assert compacted[0][1] == compacted[1][1] != before[0][1]
    assert main(['restore', str(database), '--in-place']) == 0
    assert rows(database, CONVERSATIONS) == before


def test_a_record_of_an_earlier_version_without_identity_still_restores(tmp_path: Path, isolated_cache: Path) -> None:
    path = tmp_path / 'h.json'
    path.write_bytes(stored(6))
    assert main(['compact', str(path), '--in-place', '--keep-recent', '0']) == 0
    with sqlite3.connect(originals_db(isolated_cache)) as connection:  # the store as an earlier version wrote it
        connection.execute('INSERT INTO histories SELECT key, original_hash, spans FROM history_records')
        connection.execute('DELETE FROM history_records')
    connection.close()
    assert main(['restore', str(path), '--in-place']) == 0
    assert path.read_bytes() == stored(6)


@pytest.mark.slow
def test_ctrl_c_during_restore_writes_the_report_of_what_was_done(tmp_path: Path) -> None:
    """An interrupted restore wrote no `--report`; now each source is there, finished or marked interrupted."""
    inputs = tmp_path / 'in'
    inputs.mkdir()
    count = 300
    for index in range(count):
        (inputs / f'h{index:03d}.json').write_bytes(stored(index))
    assert main(['batch', str(inputs), '--in-place', '--keep-recent', '0']) == 0
    report = tmp_path / 'report.json'
    run = Forked(['restore', str(inputs), '--in-place', '--report', str(report)])
    try:
        deadline = time.monotonic() + 60
        while not run.stderr_lines():  # the first source restored: the run is under way
            assert run.poll() is None and time.monotonic() < deadline, 'the restore never got under way'
            time.sleep(0.005)
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C at a terminal
        assert run.wait(timeout=60) == 130
    finally:
        run.close()
    assert (
        run.stderr().splitlines()[-1]
        == 'summarizer: interrupted; files already written are complete, the rest untouched'
    )
    sources = read_report(report)
    assert set(sources) == {f'h{index:03d}.json' for index in range(count)}
    finished = {name for name, source in sources.items() if not source['interrupted']}
    assert 0 < len(finished) < count
