"""The test suite never touches a user's summary cache or originals store, whatever the environment names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent


def test_the_suite_leaves_the_users_store_and_cache_alone(tmp_path: Path) -> None:
    # A user isolating a project points both at folders of their own, and their home holds the defaults.
    home = tmp_path / 'home'
    store = tmp_path / 'user-originals'
    cache = tmp_path / 'user-cache'
    for folder in (home, store, cache):
        folder.mkdir()
    (store / 'keep.txt').write_text('a user file', encoding='utf-8')
    env = {**os.environ, 'HOME': str(home), 'SUMMARIZER_ORIGINALS_DIR': str(store), 'SUMMARIZER_CACHE_DIR': str(cache)}
    # Tests that compact with originals kept, restore, and read originals back through the agent's tool:
    # each would write into the store it resolves.
    selection = [
        f'{TESTS / "test_restore.py"}::test_compact_then_restore_is_byte_identical_on_the_older_schema',
        f'{TESTS / "test_restore.py"}::test_batch_then_restore_json_and_jsonl_byte_identical',
        str(TESTS / 'test_read_tool.py'),
    ]
    run = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-n', '0', *selection],
        env=env,
        cwd=tmp_path,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert ' passed' in run.stdout
    assert sorted(path.name for path in store.iterdir()) == ['keep.txt']
    assert list(cache.iterdir()) == []
    assert list(home.iterdir()) == []
