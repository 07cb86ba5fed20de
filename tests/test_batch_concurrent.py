"""Another program writes a history while it is being compacted: its write wins, the compaction is reported.

The other program is made deterministic by a seam: it writes when the batch has read a history
and before the batch writes that history back (a unit's `compact`, or `compact_stored` for `compact`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from helpers import BIG_TEXT
from test_batch import LANGCHAIN_TOOL, batch, make_conversations, make_message_store, read_report, rows, stored

from summarizer import stored as stored_package
from summarizer.cli import main
from summarizer.pipeline import Compactor
from summarizer.stored._stored import StoredHistory, check_rewrite
from summarizer.stored._units import Done, SessionUnit, StoredUnit, Unit


def writes_meanwhile(monkeypatch: pytest.MonkeyPatch, when: Callable[[Unit], bool], write: Callable[[], None]) -> None:
    """Run `write` (the other program) once, after the batch read the first unit `when` accepts."""
    pending = [write]
    for kind in (StoredUnit, SessionUnit):

        async def compact_then_race(
            unit: Unit, compactor: Compactor, compact: Callable[..., Awaitable[Done]] = kind.compact
        ) -> Done:
            if pending and when(unit):
                pending.pop()()
            return await compact(unit, compactor)

        monkeypatch.setattr(kind, 'compact', compact_then_race)


def test_a_row_an_application_updates_meanwhile_keeps_the_application_s_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / 'app.db'
    make_conversations(database, {'a': stored(20), 'b': stored(21), 'c': stored(22)})
    newer = stored(23)  # the application appended a turn to conversation b

    def application() -> None:
        with sqlite3.connect(database, timeout=1) as connection:
            connection.execute("UPDATE conversations SET messages = ? WHERE id = 'b'", (newer.decode(),))
        connection.close()

    writes_meanwhile(monkeypatch, lambda unit: unit.where.row_id == 'b', application)
    report = tmp_path / 'r.json'

    assert batch(database, '--in-place', '--report', report) == 1

    after = dict(rows(database, 'SELECT id, messages FROM conversations'))
    assert after['b'] == newer.decode()
    for key, original in (('a', stored(20)), ('c', stored(22))):
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(str(after[key])))
    source = read_report(report)['app.db']
    assert source['histories'] == {'seen': 3, 'changed': 2, 'failed': 1}
    [failure] = source['failures']  # type: ignore[misc]
    assert (failure['kind'], failure['row_id']) == ('history', 'b')
    assert failure['problem'] == 'changed while compacting (changed or deleted); not written'


def test_a_line_appended_to_a_jsonl_file_meanwhile_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / 'log.jsonl'
    original = stored(24) + b'\n' + stored(25) + b'\n'
    path.write_bytes(original)
    appended = stored(26) + b'\n'

    def application() -> None:
        with path.open('ab') as handle:  # appends without any lock, as a logger does
            handle.write(appended)

    writes_meanwhile(monkeypatch, lambda unit: isinstance(unit, StoredUnit) and unit.where.line == 1, application)
    report = tmp_path / 'r.json'

    assert batch(path, '--in-place', '--report', report) == 1

    assert path.read_bytes() == original + appended
    source = read_report(report)['log.jsonl']
    [failure] = source['failures']  # type: ignore[misc]
    assert failure['kind'] == 'source' and str(failure['problem']).startswith('changed while compacting (')
    assert source['histories']['changed'] == 0  # type: ignore[index]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith('.tmp')] == []


def test_a_json_file_rewritten_meanwhile_keeps_the_new_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, other = tmp_path / 'h.json', tmp_path / 'other.json'
    path.write_bytes(stored(27))
    other.write_bytes(stored(28))
    newer = stored(29)
    writes_meanwhile(monkeypatch, lambda unit: unit.where.path == path, lambda: path.write_bytes(newer))
    report = tmp_path / 'r.json'

    assert batch(path, other, '--in-place', '--report', report) == 1

    assert path.read_bytes() == newer
    check_rewrite(StoredHistory.parse(stored(28)), StoredHistory.parse(other.read_bytes()))
    [failure] = read_report(report)['h.json']['failures']  # type: ignore[misc]
    assert failure['kind'] == 'history' and str(failure['problem']).startswith('changed while compacting (')


def test_compact_in_place_leaves_a_file_changed_meanwhile_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / 'h.json'
    path.write_bytes(stored(30))
    newer = stored(31)
    compact_stored = stored_package.compact_stored  # `compact` imports it once its input is read

    async def compact_then_race(raw: bytes, compactor: object) -> object:
        result = await compact_stored(raw, compactor)  # type: ignore[arg-type]
        path.write_bytes(newer)  # the agent saved its history while it was being compacted
        return result

    monkeypatch.setattr(stored_package, 'compact_stored', compact_then_race)

    assert main(['compact', str(path), '--in-place', '--keep-recent', '0']) == 2

    assert path.read_bytes() == newer
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f'summarizer: {path}: changed while compacting (') and line.endswith('; not written')
    assert [p.name for p in tmp_path.iterdir() if p.name not in ('cache', 'cache-originals')] == ['h.json']


def test_a_langchain_session_with_a_row_changed_meanwhile_is_written_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [{'name': 'search', 'args': {'q': n}, 'id': f'call-{n}', 'type': 'tool_call'} for n in (1, 2)]
    messages = [
        json.dumps({'type': 'human', 'data': {'content': 'Find things', 'type': 'human'}}),
        json.dumps({'type': 'ai', 'data': {'content': '', 'type': 'ai', 'tool_calls': calls}}),
        *(
            json.dumps(
                {'type': 'tool', 'data': {**LANGCHAIN_TOOL, 'content': f'{n} {BIG_TEXT}', 'tool_call_id': f'call-{n}'}}
            )
            for n in (1, 2)
        ),
    ]
    database = tmp_path / 'chat.db'
    make_message_store(database, {'s': messages})
    edited = messages[3].replace('"status": "success"', '"status": "error"')  # the application edits row 4

    def application() -> None:
        with sqlite3.connect(database, timeout=1) as connection:
            connection.execute('UPDATE message_store SET message = ? WHERE id = 4', (edited,))
        connection.close()

    writes_meanwhile(monkeypatch, lambda unit: isinstance(unit, SessionUnit), application)
    report = tmp_path / 'r.json'

    assert batch(database, '--in-place', '--report', report) == 1

    # Row 3 would be compacted on its own; it is rolled back with row 4, the session stays one unit.
    assert [text for (text,) in rows(database, 'SELECT message FROM message_store ORDER BY id')] == [
        *messages[:3],
        edited,
    ]
    [failure] = read_report(report)['chat.db']['failures']  # type: ignore[misc]
    assert failure['session'] == 's' and 'row_id' not in failure
    assert failure['problem'] == 'changed while compacting (row 4 changed or deleted); not written'
