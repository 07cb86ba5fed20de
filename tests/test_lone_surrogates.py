"""A lone surrogate (`"\\ud800"`, valid JSON text) in a tool return: summarized, cached, written.

It has no UTF-8 form. Written raw into a non-ASCII file, the output could not be encoded (a
traceback that stopped a whole batch); staged raw into the SQLite cache, it made the cache unusable
for the rest of the process. It stays an escape in both, and the cache key hashes it with
`surrogatepass`.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
from pathlib import Path

import pytest
from helpers import BIG_TEXT, compactor, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows, make_message_store

from summarizer.cli import main
from summarizer.stored._stored import StoredHistory, check_rewrite

LONE = '\ud800'
RECORDS = [{'id': n, 'name': f'café {n} {LONE}', 'note': 'menu items ' * 30} for n in range(30)]
"""Non-ASCII (so files are written with `ensure_ascii=False`) and a lone surrogate in every item."""


@functools.cache
def stored(index: int) -> bytes:
    """A stored history, non-ASCII, with the surrogate escaped (the file is valid UTF-8); fixed per index."""
    text = json.dumps(
        ModelMessagesTypeAdapter.dump_python(history(RECORDS, f'{index} {BIG_TEXT} é'), mode='json'),
        ensure_ascii=False,
        indent=1,
    ).replace(LONE, '\\ud800')
    assert '\\ud800' in text and not text.isascii()
    return text.encode('utf-8')


@functools.cache
def plain(index: int) -> bytes:
    return ModelMessagesTypeAdapter.dump_json(history(f'plain history {index}\n{BIG_TEXT}'), indent=1)


async def test_in_memory_summary_is_cached_and_the_cache_stays_usable(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    first = compactor()
    result = await first.compact(history(RECORDS))
    assert (result.report.summarized, result.report.failed) == (1, 0), result.report.failures
    assert LONE in json.dumps(result.messages[2].parts[0].content, ensure_ascii=False)  # type: ignore[union-attr]
    first.summarizer.cache.close()
    again = await compactor().compact(history(RECORDS))
    assert again.report.cache_hits == 1
    assert again.messages[2].parts[0].content == result.messages[2].parts[0].content  # type: ignore[union-attr]
    assert 'unusable' not in caplog.text


def test_compact_writes_the_surrogate_as_an_escape(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    path = tmp_path / 'history.json'
    path.write_bytes(stored(0))
    output = tmp_path / 'out.json'
    assert main(['compact', str(path), '-o', str(output), '--keep-recent', '0']) == 0
    text = output.read_bytes().decode('utf-8')  # strict: every character has a UTF-8 form
    assert '\\ud800' in text and len(text) < len(stored(0).decode()) / 2
    check_rewrite(StoredHistory.parse(stored(0)), StoredHistory.parse(text))
    assert main(['check', str(path), str(output)]) == 0
    second = tmp_path / 'again.json'
    assert main(['compact', str(path), '-o', str(second), '--keep-recent', '0']) == 0
    assert second.read_bytes() == output.read_bytes()  # from the cache, which stayed usable
    assert 'unusable' not in caplog.text


def test_batch_compacts_every_source_around_a_lone_surrogate(tmp_path: Path) -> None:
    inputs = tmp_path / 'in'
    inputs.mkdir()
    (inputs / 'a.json').write_bytes(stored(1))
    (inputs / 'b.json').write_bytes(plain(2))
    (inputs / 'c.jsonl').write_bytes(stored(3).replace(b'\n', b'') + b'\n' + plain(4).replace(b'\n', b'') + b'\n')
    with sqlite3.connect(inputs / 'store.db') as connection:
        connection.execute('CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT)')
        connection.executemany(
            'INSERT INTO conversations VALUES (?, ?)', [('x', stored(5).decode()), ('y', plain(6).decode())]
        )
    connection.close()
    session = [
        row.replace(LONE, '\\ud800') for row in langchain_rows('s1', f'{BIG_TEXT} café {LONE}', ascii_only=False)
    ]
    make_message_store(inputs / 'langchain.db', {'s1': session})
    assert main(['batch', '--keep-recent', '0', '--out', str(tmp_path / 'out'), str(inputs)]) == 0
    out = tmp_path / 'out'
    for name in ('a.json', 'b.json', 'c.jsonl'):
        assert len((out / name).read_bytes()) < len((inputs / name).read_bytes()) / 2, name
        (out / name).read_bytes().decode('utf-8')
    check_rewrite(StoredHistory.parse(stored(1)), StoredHistory.parse((out / 'a.json').read_bytes()))
    with sqlite3.connect(out / 'store.db') as connection:
        rows = dict(connection.execute('SELECT id, messages FROM conversations'))
    connection.close()
    check_rewrite(StoredHistory.parse(stored(5)), StoredHistory.parse(rows['x']))
    assert len(rows['x']) < len(stored(5)) / 2 and len(rows['y']) < len(plain(6)) / 2
    with sqlite3.connect(out / 'langchain.db') as connection:
        [tool_row] = [row for (row,) in connection.execute('SELECT message FROM message_store') if '"tool"' in row]
    connection.close()
    assert '\\ud800' in tool_row and len(tool_row) < len(session[2]) / 2
