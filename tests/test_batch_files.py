"""`--in-place` edits files: owner, group and mode are kept, and a symlink is written through to its target."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_batch import batch, make_conversations, rows, stored

from summarizer.cli import main
from summarizer.stored._stored import StoredHistory, check_rewrite

root_only = pytest.mark.skipif(os.geteuid() != 0, reason='giving a file to another owner needs root')


def compact_in_place(path: Path, *extra: str) -> int:
    return main(['compact', str(path), '--in-place', '--keep-recent', '0', *extra])


def owned_by_1000(path: Path, data: bytes) -> tuple[int, int, int]:
    path.write_bytes(data)
    os.chown(path, 1000, 1000)
    path.chmod(0o640)
    status = path.stat()
    return status.st_uid, status.st_gid, status.st_mode


def metadata(path: Path) -> tuple[int, int, int]:
    status = path.stat()
    return status.st_uid, status.st_gid, status.st_mode


@root_only
def test_compact_in_place_by_root_keeps_owner_group_and_mode(tmp_path: Path) -> None:
    path = tmp_path / 'h.json'
    before = owned_by_1000(path, stored(40))

    assert compact_in_place(path, '--backup') == 0

    assert metadata(path) == before
    assert metadata(tmp_path / 'h.json.bak') == before
    check_rewrite(StoredHistory.parse(stored(40)), StoredHistory.parse(path.read_bytes()))


@root_only
def test_batch_in_place_by_root_keeps_owner_group_and_mode(tmp_path: Path) -> None:
    json_file, jsonl_file, database = (tmp_path / 'in' / name for name in ('h.json', 'h.jsonl', 'h.db'))
    json_file.parent.mkdir()
    make_conversations(database, {'a': stored(47)})
    os.chown(database, 1000, 1000)
    database.chmod(0o640)
    before = {
        json_file: owned_by_1000(json_file, stored(41)),
        jsonl_file: owned_by_1000(jsonl_file, stored(42) + b'\n'),
        database: metadata(database),
    }

    assert batch(tmp_path / 'in', '--in-place', '--backup') == 0

    for path, metadata_before in before.items():
        assert metadata(path) == metadata_before
        assert metadata(path.with_name(path.name + '.bak')) == metadata_before
    assert rows(database, 'SELECT messages FROM conversations') != [(stored(47).decode(),)]
    check_rewrite(StoredHistory.parse(stored(41)), StoredHistory.parse(json_file.read_bytes()))
    check_rewrite(StoredHistory.parse(stored(42)), StoredHistory.parse(jsonl_file.read_bytes().rstrip(b'\n')))


def test_compact_in_place_writes_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / 'store' / 'h.json'
    target.parent.mkdir()
    target.write_bytes(stored(43))
    link = tmp_path / 'current.json'
    link.symlink_to(target)

    assert compact_in_place(link) == 0

    assert link.is_symlink() and link.readlink() == target
    check_rewrite(StoredHistory.parse(stored(43)), StoredHistory.parse(target.read_bytes()))
    assert sorted(p.name for p in target.parent.iterdir()) == ['h.json']


def test_batch_in_place_writes_through_symlinks_and_compacts_a_linked_file_once(tmp_path: Path) -> None:
    store, links = tmp_path / 'store', tmp_path / 'links'
    store.mkdir()
    links.mkdir()
    (store / 'a.json').write_bytes(stored(44))
    (store / 'b.jsonl').write_bytes(stored(45) + b'\n')
    (links / 'a.json').symlink_to(store / 'a.json')
    (links / 'b.jsonl').symlink_to(store / 'b.jsonl')
    (links / 'again.json').symlink_to(store / 'a.json')

    (store / '.a.json.k1ll3d.tmp').write_bytes(b'unfinished write of a killed run')

    assert batch(links, store, '--in-place') == 0  # exit 1 if a file were compacted twice (it changed meanwhile)

    for name in ('a.json', 'b.jsonl', 'again.json'):
        assert (links / name).is_symlink()
    check_rewrite(StoredHistory.parse(stored(44)), StoredHistory.parse((store / 'a.json').read_bytes()))
    check_rewrite(StoredHistory.parse(stored(45)), StoredHistory.parse((store / 'b.jsonl').read_bytes().rstrip(b'\n')))
    assert sorted(p.name for p in store.iterdir()) == ['a.json', 'b.jsonl']


@root_only
@pytest.mark.skipif(shutil.which('setpriv') is None, reason='needs setpriv to drop CAP_CHOWN')
def test_a_run_that_cannot_keep_the_owner_refuses_the_file(tmp_path: Path) -> None:
    path = tmp_path / 'h.json'
    owned_by_1000(path, stored(46))
    path.chmod(0o666)  # writable by anyone: only the owner would be lost
    report = tmp_path / 'r.json'
    command = [sys.executable, '-m', 'summarizer.cli', 'batch', str(path), '--in-place', '--report', str(report)]
    without_chown = ['setpriv', '--bounding-set', '-chown,-fowner', *command]  # root that may not give files away
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)}

    result = subprocess.run(without_chown, capture_output=True, text=True, env=env, check=False)

    assert result.returncode == 1, result.stderr
    assert path.read_bytes() == stored(46) and path.stat().st_uid == 1000
    [source] = json.loads(report.read_text())['sources']
    assert source['histories'] == {'seen': 1, 'changed': 0, 'failed': 0}
    [failure] = source['failures']
    assert failure['problem'] == (
        'PermissionError: [Errno 1] cannot give the rewrite its owner 1000:1000 (not root, not the owner); '
        'this source is left as it was'
    )
