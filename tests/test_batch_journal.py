"""The journal, backups and disk errors: one line and exit 2, nothing half written; `--resume` and settings; `--vacuum`.

A full disk is simulated in-process: the write that would fail (`os.write` of a journal line,
`shutil.copy2` of a backup) writes part of its bytes and then reports ENOSPC, as a filling disk does.
One test also uses a real 1 MiB tmpfs when it can mount one (root in a permissive container).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import batch, make_conversations, read_report, rows, stored

from summarizer.cli import main
from summarizer.stored._stored import StoredHistory, check_rewrite

DISK_FULL = os.strerror(errno.ENOSPC)


def journals(cache: Path) -> list[Path]:
    return sorted((cache / 'batch-journals').glob('*.jsonl'))


def leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob('*') if p.name.endswith('.tmp'))


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    [line] = [line for line in capsys.readouterr().err.splitlines() if line.startswith('summarizer: ')]
    assert 'Traceback' not in line
    return line


def test_resume_redoes_a_source_whose_settings_changed(tmp_path: Path) -> None:
    path = tmp_path / 'in' / 'h.json'
    path.parent.mkdir()
    path.write_bytes(stored(50))
    report = tmp_path / 'r.json'

    assert batch(path, '--in-place', '--threshold-tokens', '100000') == 0
    assert path.read_bytes() == stored(50)  # nothing is that large

    assert batch(path, '--in-place', '--resume', '--threshold-tokens', '100000', '--report', report) == 0
    assert read_report(report)['h.json']['resumed'] is True  # same settings: skipped

    assert batch(path, '--in-place', '--resume', '--threshold-tokens', '500', '--report', report) == 0

    source = read_report(report)['h.json']
    assert source['resumed'] is False and source['returns_summarized'] == 3
    check_rewrite(StoredHistory.parse(stored(50)), StoredHistory.parse(path.read_bytes()))


def test_after_resume_every_row_of_the_summary_covers_this_runs_histories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It mixed the journal's counts with this run's ("oversized 3, summarized 6"; model calls on a run making none)."""
    monkeypatch.setenv('COLUMNS', '80')
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'a.json').write_bytes(stored(60))
    assert batch(inputs, '--in-place') == 0
    (inputs / 'b.json').write_bytes(stored(61))
    capsys.readouterr()

    assert batch(inputs, '--in-place', '--resume') == 0
    err = capsys.readouterr().err
    cells = [[cell.strip() for cell in line.split('│')[1:-1]] for line in err.splitlines() if line.startswith('│')]
    rows = dict(cells)
    assert err.count('batch: 1 source') == 1
    # b.json's own: its log is new, its list and object were summarized for a.json (the cache)
    assert [rows[name] for name in ('oversized', 'summarized', 'model calls', 'cache hits')] == ['3', '3', '1', '2']
    assert rows['histories'] == '1 seen, 1 changed, 0 failed'
    (resumed,) = [line for line in err.splitlines() if line.startswith('resumed: ')]
    assert resumed.startswith(
        'resumed: 1 source an earlier run finished, not in the table: 1 history, 1 changed, 3 returns summarized, '
    )


def test_the_journal_records_what_results_depend_on(tmp_path: Path, isolated_cache: Path) -> None:
    (tmp_path / 'h.json').write_bytes(stored(51))

    assert batch(tmp_path / 'h.json', '--in-place', '--threshold-tokens', '700') == 0

    [journal] = journals(isolated_cache)
    [entry] = [json.loads(line) for line in journal.read_text().splitlines()]
    settings = entry['settings']
    assert (settings['model'], settings['threshold_tokens'], settings['keep_recent']) == ('extractive', 700, 0)
    assert {'prompt_version', 'keep_quoted_facts', 'max_content_tokens', 'config_hash'} <= settings.keys()


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def test_the_journal_is_owner_only_whatever_the_umask(tmp_path: Path, isolated_cache: Path) -> None:
    (tmp_path / 'h.json').write_bytes(stored(52))
    with umask(0):
        assert batch(tmp_path / 'h.json', '--out', tmp_path / 'out') == 0

    [journal] = journals(isolated_cache)
    assert journal.stat().st_mode & 0o777 == 0o600
    assert journal.parent.stat().st_mode & 0o777 == 0o700


def test_a_full_disk_under_the_journal_stops_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], isolated_cache: Path
) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    originals = {name: stored(53 + index) for index, name in enumerate(('a.json', 'b.json', 'c.jsonl'))}
    for name, data in originals.items():
        inputs.joinpath(name).write_bytes(data)
    write = os.write

    def disk_fills_up(descriptor: int, data: bytes) -> int:
        if data.startswith(b'{"key": '):  # a journal line: half of it fits
            return write(descriptor, data[: len(data) // 2])
        return write(descriptor, data)

    monkeypatch.setattr(os, 'write', disk_fills_up)

    assert batch(inputs, '--in-place') == 2

    monkeypatch.undo()
    [journal] = journals(isolated_cache)
    assert one_line(capsys) == (
        f'summarizer: {journal}: cannot write the journal: {DISK_FULL}; stopped '
        '(sources finished so far are written, the others left as they were)'
    )
    assert journal.read_bytes() == b''  # no cut line left behind
    assert leftovers(tmp_path) == []
    for name, data in originals.items():
        now = inputs.joinpath(name).read_bytes()
        if now != data:
            check_rewrite(StoredHistory.parse(data), StoredHistory.parse(now.rstrip(b'\n')))


def test_a_cache_dir_that_is_a_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_folder = tmp_path / 'cache-file'
    not_a_folder.write_text('')
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(not_a_folder))
    (tmp_path / 'h.json').write_bytes(stored(56))

    assert batch(tmp_path / 'h.json', '--in-place') == 2

    journal = not_a_folder / 'batch-journals'
    assert one_line(capsys).startswith(f'summarizer: {journal}/')
    assert (tmp_path / 'h.json').read_bytes() == stored(56)


@pytest.mark.parametrize('resume', [False, True])
def test_a_journal_that_is_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], resume: bool
) -> None:
    (tmp_path / 'journal').mkdir()
    (tmp_path / 'h.json').write_bytes(stored(57))

    arguments = ['--resume'] if resume else []
    assert batch(tmp_path / 'h.json', '--in-place', '--journal', tmp_path / 'journal', *arguments) == 2

    assert one_line(capsys) == f'summarizer: {tmp_path / "journal"}: cannot use it as the journal: Is a directory'
    assert (tmp_path / 'h.json').read_bytes() == stored(57)


def copy_fills_the_disk(source: object, target: object) -> None:
    with open(target, 'wb') as handle:  # type: ignore[call-overload]
        handle.write(b'part of the copy')
    raise OSError(errno.ENOSPC, DISK_FULL)


def test_backup_on_a_full_disk_stops_batch_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'h.json').write_bytes(stored(58))
    (inputs / 'h.jsonl').write_bytes(stored(59) + b'\n')
    monkeypatch.setattr(shutil, 'copy2', copy_fills_the_disk)

    assert batch(inputs, '--in-place', '--backup') == 2

    assert one_line(capsys) == (
        f'summarizer: {inputs / "h.json"}: {DISK_FULL}; stopped, every unfinished source left as it was'
    )
    assert sorted(p.name for p in inputs.iterdir()) == ['h.json', 'h.jsonl']
    assert (inputs / 'h.json').read_bytes() == stored(58) and (inputs / 'h.jsonl').read_bytes() == stored(59) + b'\n'


def test_backup_on_a_full_disk_stops_compact_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / 'h.json'
    path.write_bytes(stored(61))
    monkeypatch.setattr(shutil, 'copy2', copy_fills_the_disk)

    assert main(['compact', str(path), '--in-place', '--backup', '--keep-recent', '0']) == 2

    assert one_line(capsys) == f'summarizer: {path}.bak: cannot write: {DISK_FULL}; nothing was changed'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['cache', 'cache-originals', 'h.json']
    assert path.read_bytes() == stored(61)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs, when this process may mount one."""
    folder = tmp_path / 'tiny'
    folder.mkdir()
    mounted = subprocess.run(
        ['mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', str(folder)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f'cannot mount a tmpfs here: {mounted.stderr.decode().strip()}')
    try:
        yield folder
    finally:
        subprocess.run(['umount', str(folder)], check=True)


BIG = ModelMessagesTypeAdapter.dump_json(history('\n'.join([BIG_TEXT] * 20)))
"""About 650 KB: a 1 MiB disk has no room for two."""


def test_backup_on_a_real_full_disk(tiny_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tiny_disk / 'h.json'
    path.write_bytes(BIG)

    assert main(['compact', str(path), '--in-place', '--backup', '--keep-recent', '0']) == 2

    assert one_line(capsys) == f'summarizer: {path}.bak: cannot write: {DISK_FULL}; nothing was changed'
    assert sorted(p.name for p in tiny_disk.iterdir()) == ['h.json']
    assert path.read_bytes() == BIG


def test_database_backup_on_a_real_full_disk(tiny_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tiny_disk / 'h.db'
    make_conversations(path, {'a': BIG})
    before = path.read_bytes()

    assert batch(path, '--in-place', '--backup') == 2

    assert one_line(capsys).startswith(f'summarizer: {path}: ')
    assert sorted(p.name for p in tiny_disk.iterdir()) == ['h.db']
    assert path.read_bytes() == before


def test_vacuum_shrinks_a_database_compacted_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    histories = {f'conv-{index}': stored(62 + index) for index in range(4)}
    plain, vacuumed = tmp_path / 'plain.db', tmp_path / 'vacuumed.db'
    make_conversations(plain, histories)
    shutil.copy(plain, vacuumed)
    size = plain.stat().st_size

    assert batch(plain, '--in-place') == 0
    assert batch(vacuumed, '--in-place', '--vacuum') == 0

    assert plain.stat().st_size >= size  # compaction frees pages; the file keeps them
    assert vacuumed.stat().st_size < size / 2
    query = 'SELECT id, messages FROM conversations ORDER BY id'
    assert rows(vacuumed, query) == rows(plain, query) != [(k, v.decode()) for k, v in sorted(histories.items())]
    with sqlite3.connect(vacuumed) as connection:
        assert connection.execute('PRAGMA integrity_check').fetchall() == [('ok',)]
    connection.close()
    capsys.readouterr()
    assert batch(vacuumed, '--out', tmp_path / 'out', '--vacuum') == 2
    assert one_line(capsys) == 'summarizer: --vacuum works with --in-place only'
