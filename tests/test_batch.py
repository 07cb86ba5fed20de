"""`summarizer batch`: every source type round-trips byte-exactly, bad input is reported and skipped."""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter

from summarizer.cli import main
from summarizer.stored._langchain import Row
from summarizer.stored._stored import StoredHistory, check_rewrite

LANGCHAIN_TOOL = {
    'content': None,
    'additional_kwargs': {},
    'response_metadata': {},
    'type': 'tool',
    'name': 'search',
    'id': None,
    'tool_call_id': None,
    'artifact': None,
    'status': 'success',
}


@functools.cache
def stored(index: int) -> bytes:
    """A history whose contents are unique to `index` (so each costs its own model call); fixed per index."""
    return ModelMessagesTypeAdapter.dump_json(history(f'history {index}\n{BIG_TEXT}', BIG_LIST, BIG_OBJECT))


def batch(*arguments: object) -> int:
    return main(['batch', '--keep-recent', '0', *map(str, arguments)])


def read_report(path: Path) -> dict[str, dict[str, object]]:
    return {Path(str(source['source'])).name: source for source in json.loads(path.read_text())['sources']}


def make_conversations(path: Path, histories: dict[str, bytes]) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute('CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT)')
        connection.executemany(
            'INSERT INTO conversations VALUES (?, ?)', [(k, v.decode()) for k, v in histories.items()]
        )
    connection.close()


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


def langchain_rows(session: str, content: object, *, ascii_only: bool = True) -> list[str]:
    """One session as LangChain stores it: json.dumps(message_to_dict(message)) per row."""
    call = {'name': 'search', 'args': {'q': session}, 'id': f'call-{session}', 'type': 'tool_call'}
    messages = [
        {'type': 'human', 'data': {'content': 'Find things é', 'additional_kwargs': {}, 'type': 'human', 'id': None}},
        {'type': 'ai', 'data': {'content': '', 'type': 'ai', 'tool_calls': [call], 'invalid_tool_calls': []}},
        {'type': 'tool', 'data': {**LANGCHAIN_TOOL, 'content': content, 'tool_call_id': f'call-{session}'}},
        {'type': 'ai', 'data': {'content': 'Done.', 'type': 'ai', 'tool_calls': [], 'invalid_tool_calls': []}},
    ]
    return [json.dumps(message, ensure_ascii=ascii_only) for message in messages]


def make_message_store(path: Path, sessions: dict[str, list[str]]) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(
            'CREATE TABLE message_store (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message TEXT)'
        )
        for session, messages in sessions.items():
            connection.executemany(
                'INSERT INTO message_store (session_id, message) VALUES (?, ?)', [(session, m) for m in messages]
            )
    connection.close()


def test_json_jsonl_and_sqlite_round_trip_byte_exact(tmp_path: Path) -> None:
    inputs = tmp_path / 'in'
    (inputs / 'nested').mkdir(parents=True)
    (inputs / 'nested' / 'one.json').write_bytes(stored(0))
    small = ModelMessagesTypeAdapter.dump_json(history('tiny'))
    (inputs / 'small.json').write_bytes(small)
    (inputs / 'many.jsonl').write_bytes(stored(1) + b'\n\n' + small + b'\r\n' + stored(2) + b'\n')
    make_conversations(inputs / 'store.db', {'a': stored(3), 'b': small})
    (inputs / 'notes.txt').write_text('not taken: not in include globs')
    report = tmp_path / 'report.json'

    assert batch(inputs, '--out', tmp_path / 'out', '--report', report) == 0

    out = tmp_path / 'out'
    check_rewrite(StoredHistory.parse(stored(0)), StoredHistory.parse((out / 'nested' / 'one.json').read_bytes()))
    assert (out / 'small.json').read_bytes() == small
    assert (out / 'small.json').stat().st_mtime_ns == (inputs / 'small.json').stat().st_mtime_ns
    assert not (out / 'notes.txt').exists()
    lines = (out / 'many.jsonl').read_bytes().split(b'\n')
    assert lines[1:3] == [b'', small + b'\r'] and lines[4] == b''
    for original, compacted in ((stored(1), lines[0]), (stored(2), lines[3])):
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    (a, compacted_a), (b, compacted_b) = rows(out / 'store.db', 'SELECT id, messages FROM conversations ORDER BY id')
    check_rewrite(StoredHistory.parse(stored(3)), StoredHistory.parse(str(compacted_a)))
    assert (a, b, compacted_b) == ('a', 'b', small.decode())
    sources = read_report(report)
    assert os.stat(report).st_mode & 0o777 == 0o600
    assert sources['many.jsonl']['histories'] == {'seen': 3, 'changed': 2, 'failed': 0}
    assert sources['store.db']['returns_summarized'] == 3 and sources['small.json']['tokens_before'] > 0


def test_langchain_rows_keep_every_byte_outside_tool_contents(tmp_path: Path) -> None:
    sessions = {
        's1': langchain_rows('s1', 'é ' + BIG_TEXT),
        's2': langchain_rows('s2', [{'type': 'text', 'text': BIG_TEXT}], ascii_only=False),
        's3': langchain_rows('s3', 'short'),
    }
    database = tmp_path / 'chat.db'
    make_message_store(database, sessions)
    before = rows(database, 'SELECT id, session_id, message FROM message_store ORDER BY id')

    assert batch(database, '--in-place', '--backup', '--report', tmp_path / 'r.json') == 0

    after = rows(database, 'SELECT id, session_id, message FROM message_store ORDER BY id')
    changed = [(old, new) for old, new in zip(before, after) if old != new]
    assert [old[:2] for old, _ in changed] == [(3, 's1'), (7, 's2')]
    for (_, _, old_text), (_, _, new_text) in changed:
        old, new = Row.parse(str(old_text)), Row.parse(str(new_text))
        assert old.content_span is not None and new.content_span is not None
        assert old.text[: old.content_span[0]] == new.text[: new.content_span[0]]
        assert old.text[old.content_span[1] :] == new.text[new.content_span[1] :]
        assert new.data['tool_call_id'] == old.data['tool_call_id'] and len(new.text) < len(old.text) / 2
    assert isinstance(Row.parse(str(changed[1][1][2])).data['content'], list)  # content blocks keep their shape
    assert rows(tmp_path / 'chat.db.bak', 'SELECT id, session_id, message FROM message_store ORDER BY id') == before
    assert read_report(tmp_path / 'r.json')['chat.db']['histories'] == {'seen': 3, 'changed': 2, 'failed': 0}


def test_bad_histories_are_reported_with_their_location_and_skipped(tmp_path: Path) -> None:
    good, broken = stored(0), b'[{"kind": "request", "parts": [}]'
    invalid = json.dumps([{'kind': 'request', 'parts': []}, {'kind': 'nonsense'}]).encode()
    (tmp_path / 'good.json').write_bytes(good)
    (tmp_path / 'broken.json').write_bytes(broken)
    (tmp_path / 'mixed.jsonl').write_bytes(stored(1) + b'\n' + invalid + b'\n' + stored(2) + b'\n')
    make_conversations(tmp_path / 'rows.db', {'ok': stored(3), 'bad': b'{"not": "a list"}'})
    make_message_store(tmp_path / 'lc.db', {'s': langchain_rows('s', BIG_TEXT)[:2] + ['not json']})
    mtime = (tmp_path / 'broken.json').stat().st_mtime_ns
    report = tmp_path / 'out' / 'report.json'
    (tmp_path / 'out').mkdir()

    assert batch(tmp_path, '--in-place', '--report', report, '--exclude', 'out/*') == 1

    assert (tmp_path / 'broken.json').read_bytes() == broken and (tmp_path / 'broken.json').stat().st_mtime_ns == mtime
    assert (tmp_path / 'good.json').read_bytes() != good
    lines = (tmp_path / 'mixed.jsonl').read_bytes().split(b'\n')
    assert lines[1] == invalid and lines[0] != stored(1) and lines[2] != stored(2)
    assert dict(rows(tmp_path / 'rows.db', 'SELECT id, messages FROM conversations'))['bad'] == '{"not": "a list"}'
    sources = read_report(report)
    failures = {name: source['failures'] for name, source in sources.items()}
    assert failures['good.json'] == []
    [broken_failure] = failures['broken.json']  # type: ignore[misc]
    assert broken_failure['kind'] == 'history' and 'invalid JSON at line 1' in broken_failure['problem']
    [line_failure] = failures['mixed.jsonl']  # type: ignore[misc]
    assert (line_failure['line'], line_failure['message_index']) == (2, 1)
    [row_failure] = failures['rows.db']  # type: ignore[misc]
    assert (row_failure['table'], row_failure['row_id']) == ('conversations', 'bad')
    [session_failure] = failures['lc.db']  # type: ignore[misc]
    assert (session_failure['session'], session_failure['row_id']) == ('s', '3')
    assert sources['mixed.jsonl']['histories'] == {'seen': 3, 'changed': 2, 'failed': 1}


def test_missing_paths_and_databases_without_the_table_fail_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / 'good.json').write_bytes(stored(0))
    assert batch(tmp_path / 'good.json', tmp_path / 'missing.json', '--in-place') == 2
    assert 'missing.json: no such file or directory' in capsys.readouterr().err
    with sqlite3.connect(tmp_path / 'other.db') as connection:
        connection.execute('CREATE TABLE things (id INTEGER)')
    connection.close()
    assert batch(tmp_path, '--in-place') == 2
    assert 'other.db: no table conversations(id, messages) nor message_store(id, session_id, message)' in (
        capsys.readouterr().err
    )
    assert (tmp_path / 'good.json').read_bytes() == stored(0)
    assert batch(tmp_path / 'good.json') == 2  # neither --out, --in-place nor --dry-run


@pytest.mark.parametrize('command', ['batch', 'restore'])
def test_a_report_that_would_overwrite_an_input_is_refused_before_anything_runs(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / 'a.json').write_bytes(stored(0))
    assert main([command, str(tmp_path), '--in-place', '--report', str(tmp_path / 'a.json')]) == 2
    report = tmp_path / 'a.json'
    assert capsys.readouterr().err == (
        f'summarizer: {report}: --report {report} would overwrite this input: choose another place for the report\n'
    )
    assert report.read_bytes() == stored(0)


def test_a_report_that_would_overwrite_an_output_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`batch in --out out --report out/h.json` wrote the report over the compacted history, exit 0."""
    inputs, out = tmp_path / 'in', tmp_path / 'out'
    inputs.mkdir()
    (inputs / 'h.json').write_bytes(stored(0))
    report = out / 'h.json'
    assert main(['batch', str(inputs), '--out', str(out), '--keep-recent', '0', '--report', str(report)]) == 2
    assert capsys.readouterr().err == (
        f'summarizer: {report}: --report {report} would overwrite this output: choose another place for the report\n'
    )
    assert not out.exists() and (inputs / 'h.json').read_bytes() == stored(0)


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / 'h.json').write_bytes(stored(0))
    (tmp_path / 'h.jsonl').write_bytes(stored(1) + b'\n')
    make_conversations(tmp_path / 'h.db', {'a': stored(2)})
    before = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in tmp_path.iterdir() if path.is_file()}

    assert batch(tmp_path, '--dry-run', '--exclude', 'cache*', '--report', tmp_path / 'cache' / 'r.json') == 0

    after = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in tmp_path.iterdir() if path.is_file()}
    assert after == before
    sources = read_report(tmp_path / 'cache' / 'r.json')
    assert [source['returns_summarized'] for source in sources.values()] == [3, 3, 3]


def test_a_content_repeated_in_100_histories_costs_one_model_call(tmp_path: Path) -> None:
    one = ModelMessagesTypeAdapter.dump_json(history(BIG_TEXT))
    (tmp_path / 'many.jsonl').write_bytes(b'\n'.join([one] * 100) + b'\n')

    assert batch(tmp_path / 'many.jsonl', '--in-place', '--report', tmp_path / 'r.json') == 0

    source = read_report(tmp_path / 'r.json')['many.jsonl']
    assert (source['model_calls'], source['cache_hits'], source['returns_summarized']) == (1, 99, 100)
    assert len(set((tmp_path / 'many.jsonl').read_bytes().splitlines())) == 1


def test_jobs_spreads_sources_over_processes_with_the_same_result(tmp_path: Path) -> None:
    for index in range(4):
        (tmp_path / 'in' / str(index)).mkdir(parents=True)
        (tmp_path / 'in' / str(index) / 'h.json').write_bytes(stored(index))
    report = tmp_path / 'r.json'

    assert batch(tmp_path / 'in', '--out', tmp_path / 'out', '--jobs', '2', '--report', report) == 0

    for index in range(4):
        compacted = (tmp_path / 'out' / str(index) / 'h.json').read_bytes()
        check_rewrite(StoredHistory.parse(stored(index)), StoredHistory.parse(compacted))
    sources = json.loads(report.read_text())['sources']
    assert [source['returns_summarized'] for source in sources] == [3, 3, 3, 3]
    assert sum(int(source['model_calls']) + int(source['cache_hits']) for source in sources) == 12
