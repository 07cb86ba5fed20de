"""`summarizer batch` killed with SIGKILL mid-run leaves every input valid; a rerun makes no repeated model call.

Both runs are processes of their own, forked from one that imported the CLI once (tests/forked_cli.py).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

import diskcache
import forked_cli
import pytest
from fake_openai import fake_openai
from forked_cli import Forked
from helpers import BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import make_conversations, read_report, rows

from summarizer.stored._stored import StoredHistory, check_rewrite

FILES = ROWS = 12
ANSWERED_BEFORE_KILL = 16


def assert_old_or_new(original: bytes | str, current: bytes | str) -> bool:
    """Whether `current` is a valid compaction of `original` (True) or the original itself (False)."""
    if current == original:
        return False
    check_rewrite(StoredHistory.parse(original), StoredHistory.parse(current))
    return True


@pytest.mark.slow
def test_sigkill_mid_batch_loses_nothing_and_resume_repeats_no_model_call(tmp_path: Path, isolated_cache: Path) -> None:
    originals = {
        f'h{index:02d}.json': ModelMessagesTypeAdapter.dump_json(history(f'file {index}\n{BIG_TEXT}'))
        for index in range(FILES)
    }
    database = {
        f'r{index:02d}': ModelMessagesTypeAdapter.dump_json(history(f'row {index}\n{BIG_TEXT}'))
        for index in range(ROWS)
    }
    inputs = tmp_path / 'in'
    inputs.mkdir()
    for name, data in originals.items():
        (inputs / name).write_bytes(data)
    make_conversations(inputs / 'store.db', database)
    with fake_openai() as server:
        config = tmp_path / 'config.yaml'
        config.write_text(
            f'model: fake\nbase_url: {server.base_url}\nmax_retries: 0\nconcurrency: 4\nkeep_recent: 0\n'
            'batch:\n  histories_in_flight: 8\n  commit_every: 1000\n'
        )
        command = ['batch', str(inputs), '--in-place', '--config', str(config)]
        server.limit = ANSWERED_BEFORE_KILL
        first = Forked(command)
        try:
            deadline = time.monotonic() + 60
            while not _cached(isolated_cache) >= ANSWERED_BEFORE_KILL or not _rewritten(inputs, originals):
                assert first.poll() is None and time.monotonic() < deadline, 'the batch never reached the kill point'
                time.sleep(0.02)
        finally:
            first.kill()
            first.close()

        rewritten = {name for name, data in originals.items() if assert_old_or_new(data, (inputs / name).read_bytes())}
        assert rewritten  # the kill came after some histories were written ...
        assert rows(inputs / 'store.db', 'PRAGMA integrity_check') == [('ok',)]
        for key, text in rows(inputs / 'store.db', 'SELECT id, messages FROM conversations'):
            assert_old_or_new(database[str(key)].decode(), str(text))
        answered_before = list(server.answered)
        assert len(answered_before) == ANSWERED_BEFORE_KILL  # ... and before the rest was answered

        server.open_gate()
        report = tmp_path / 'report.json'
        rerun = forked_cli.run([*command, '--resume', '--report', str(report)])
        assert rerun.returncode == 0, rerun.stderr

    answered_after = server.answered[len(answered_before) :]
    assert not set(answered_after) & set(answered_before)
    assert len(set(server.answered)) == len(server.answered) == FILES + ROWS
    sources = read_report(report)
    assert sum(int(source['model_calls']) for source in sources.values() if not source['resumed']) == len(
        answered_after
    )
    # A history is written, then its source's journal entry: the kill may fall between the two (the test kills
    # as soon as it sees a rewrite). Such a one is compacted again on resume, from its compacted text: it asks
    # no model, and stays a valid compaction (below). Every other rewritten one is resumed from the journal.
    unjournaled = rewritten - {name for name, source in sources.items() if source['resumed']}
    assert all(sources[name]['model_calls'] == 0 for name in unjournaled)
    assert len(unjournaled) < len(rewritten) or len(rewritten) == 1  # the journal works: it has some of them
    for name, data in originals.items():
        assert assert_old_or_new(data, (inputs / name).read_bytes())
    for key, text in rows(inputs / 'store.db', 'SELECT id, messages FROM conversations'):
        assert assert_old_or_new(database[str(key)].decode(), str(text))


def _cached(directory: Path) -> int:
    if not directory.exists():
        return 0
    try:
        with diskcache.Cache(str(directory)) as cache:
            return len(cache)
    except sqlite3.OperationalError:  # the cache is being created by the batch right now
        return 0


def _rewritten(inputs: Path, originals: dict[str, bytes]) -> bool:
    return any((inputs / name).read_bytes() != data for name, data in originals.items())


@pytest.mark.slow
def test_ctrl_c_with_jobs_prints_one_line_and_writes_the_report_of_what_was_done(
    tmp_path: Path, isolated_cache: Path
) -> None:
    """It printed some 125 lines of the workers' tracebacks, and wrote no `--report`."""
    originals = {
        f'h{index:02d}.json': ModelMessagesTypeAdapter.dump_json(history(f'file {index}\n{BIG_TEXT}'))
        for index in range(FILES)
    }
    inputs = tmp_path / 'in'
    inputs.mkdir()
    for name, data in originals.items():
        (inputs / name).write_bytes(data)
    report = tmp_path / 'report.json'
    with fake_openai() as server:
        config = tmp_path / 'config.yaml'
        # One history in flight per worker: the four answers finish each worker's first sources. With more, the
        # answers can all go to later sources, which wait to be written behind a first one held at the gate.
        config.write_text(
            f'model: fake\nbase_url: {server.base_url}\nmax_retries: 0\nkeep_recent: 0\n'
            'batch:\n  histories_in_flight: 1\n'
        )
        server.limit = 4  # the other requests wait at the gate: the run is mid-way when Ctrl-C comes
        command = ['batch', str(inputs), '--in-place', '--jobs', '2', '--config', str(config), '--report', str(report)]
        run = Forked(command)
        try:
            deadline = time.monotonic() + 60
            while len(server.answered) < 4 or not run.stderr_lines():
                assert run.poll() is None and time.monotonic() < deadline, 'the batch never got mid-way'
                time.sleep(0.02)
            os.killpg(run.pid, signal.SIGINT)  # Ctrl-C at a terminal: the command and its workers
            assert run.wait(timeout=30) == 130
        finally:
            run.close()
    lines = run.stderr().splitlines()
    assert 'Traceback' not in run.stderr()
    assert lines[-1] == 'summarizer: interrupted; files already written are complete, the rest untouched'
    assert all(line.startswith(f'{inputs}/') for line in lines[:-1]), lines  # a line per source finished before
    rewritten = {name for name, data in originals.items() if assert_old_or_new(data, (inputs / name).read_bytes())}
    sources = read_report(report)
    assert set(sources) == set(originals)
    assert {name for name, source in sources.items() if source['histories']['changed']} == rewritten
    assert {name for name, source in sources.items() if source['interrupted']} == set(originals) - rewritten
    assert 0 < len(rewritten) < FILES


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f'/proc/{pid}/task/{pid}/children').read_text().split()]
    except OSError:
        return []


@pytest.mark.skipif(not Path('/proc/self/task').is_dir(), reason='reads child processes from /proc')
def test_ctrl_c_while_the_workers_start_prints_no_traceback(tmp_path: Path, isolated_cache: Path) -> None:
    """A Ctrl-C while the spawned workers import the package printed their KeyboardInterrupt tracebacks."""
    inputs = tmp_path / 'in'
    inputs.mkdir()
    for index in range(FILES):
        (inputs / f'h{index:02d}.json').write_bytes(ModelMessagesTypeAdapter.dump_json(history(f'{index}\n{BIG_TEXT}')))
    run = Forked(['batch', str(inputs), '--out', str(tmp_path / 'out'), '--jobs', '2', '--keep-recent', '0'])
    try:
        deadline = time.monotonic() + 60
        while len(_children(run.pid)) < 2:  # the two workers (besides any helper process) are starting
            assert run.poll() is None and time.monotonic() < deadline, 'no workers started'
            time.sleep(0.005)
        time.sleep(0.3)  # inside their imports
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C at a terminal: the command and its workers
        assert run.wait(timeout=60) == 130
    finally:
        run.close()
    assert 'Traceback' not in run.stderr(), run.stderr()
    assert (
        run.stderr().splitlines()[-1]
        == 'summarizer: interrupted; files already written are complete, the rest untouched'
    )
