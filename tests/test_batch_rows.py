"""SQLite rows are addressed one by one: shared or NULL ids, WITHOUT ROWID tables, BLOB rows of LangChain's store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import BIG_TEXT
from test_batch import batch, langchain_rows, read_report, rows, stored

from summarizer.cli import main
from summarizer.engines._sources import SqliteSource
from summarizer.stored._langchain import Row
from summarizer.stored._stored import StoredHistory, check_rewrite


def make_table(path: Path, schema: str, values: list[tuple[object, bytes]]) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(schema)
        connection.executemany(
            'INSERT INTO conversations (id, messages) VALUES (?, ?)', [(k, v.decode()) for k, v in values]
        )
    connection.close()


def assert_each_row_keeps_its_own_history(database: Path, originals: list[bytes]) -> None:
    after = [str(text) for (text,) in rows(database, 'SELECT messages FROM conversations ORDER BY rowid')]
    assert len(after) == len(originals)
    for original, compacted in zip(originals, after):
        assert compacted.encode() != original
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))


def test_rows_sharing_an_id_each_keep_their_own_compacted_history(tmp_path: Path) -> None:
    database = tmp_path / 'shared.db'
    originals = [stored(10), stored(11), stored(12)]  # three users' conversations under one id
    make_table(database, 'CREATE TABLE conversations (id TEXT, messages TEXT)', [('conv-1', h) for h in originals])
    report = tmp_path / 'r.json'

    assert batch(database, '--in-place', '--report', report) == 0

    assert_each_row_keeps_its_own_history(database, originals)
    assert read_report(report)['shared.db']['histories'] == {'seen': 3, 'changed': 3, 'failed': 0}


def test_rows_with_a_null_primary_key_are_all_written(tmp_path: Path) -> None:
    database = tmp_path / 'nulls.db'
    originals = [stored(13), stored(14)]
    # SQLite lets a TEXT PRIMARY KEY be NULL, any number of times.
    make_table(
        database, 'CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT)', [(None, h) for h in originals]
    )

    assert batch(database, '--in-place') == 0

    assert_each_row_keeps_its_own_history(database, originals)


def test_a_without_rowid_table_is_addressed_by_its_primary_key(tmp_path: Path) -> None:
    database = tmp_path / 'norowid.db'
    originals = [stored(15), stored(16)]
    make_table(
        database,
        'CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT) WITHOUT ROWID',
        [('b', originals[0]), ('a', originals[1])],
    )

    assert batch(database, '--in-place') == 0

    after = dict(rows(database, 'SELECT id, messages FROM conversations'))
    for key, original in (('b', originals[0]), ('a', originals[1])):
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(str(after[key])))
        assert str(after[key]).encode() != original


def test_a_without_rowid_table_whose_id_is_not_its_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / 'composite.db'
    with sqlite3.connect(database) as connection:
        connection.execute(
            'CREATE TABLE conversations (user TEXT, id TEXT, messages TEXT, PRIMARY KEY (user, id)) WITHOUT ROWID'
        )
        connection.executemany(
            'INSERT INTO conversations VALUES (?, ?, ?)',
            [('u1', 'conv-1', stored(17).decode()), ('u2', 'conv-1', stored(18).decode())],
        )
    connection.close()
    before = database.read_bytes()

    assert batch(database, '--in-place') == 2

    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f'summarizer: {database}: table conversations has no rowid and id is not its whole primary key, so its '
        'rows cannot be told apart (it needs a rowid, or an id column that is its primary key)'
    )
    assert database.read_bytes() == before


def make_blob_store(path: Path, sessions: dict[str, list[bytes]]) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(
            'CREATE TABLE message_store (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message BLOB)'
        )
        for session, messages in sessions.items():
            connection.executemany(
                'INSERT INTO message_store (session_id, message) VALUES (?, ?)', [(session, m) for m in messages]
            )
    connection.close()


def test_langchain_blob_rows_stay_blobs_with_every_byte_outside_the_content(tmp_path: Path) -> None:
    # Not ASCII-escaped: é and → are raw UTF-8 bytes around the content, which a lossy decode would not keep.
    messages = [text.encode() for text in langchain_rows('s1', 'é → ' + BIG_TEXT, ascii_only=False)]
    database = tmp_path / 'chat.db'
    make_blob_store(database, {'s1': messages})

    assert batch(database, '--in-place') == 0

    after = rows(database, 'SELECT typeof(message), message FROM message_store ORDER BY id')
    assert [kind for kind, _ in after] == ['blob'] * 4
    new = [value for _, value in after]
    assert isinstance(new[2], bytes) and len(new[2]) < len(messages[2]) / 2
    assert new[:2] + new[3:] == messages[:2] + messages[3:]
    old = Row.parse(messages[2].decode())
    assert old.content_span is not None
    start, end = old.content_span
    assert new[2].startswith(old.text[:start].encode()) and new[2].endswith(old.text[end:].encode())
    assert Row.parse(new[2].decode()).data['tool_call_id'] == 'call-s1'


def test_a_blob_row_that_is_not_utf8_is_refused_and_its_session_left_alone(tmp_path: Path) -> None:
    bad = langchain_rows('s1', BIG_TEXT)
    bad_rows = [text.encode() for text in bad]
    bad_rows[0] = bad_rows[0].replace(b'Find things', b'Find \xff things')  # a Latin-1 byte in the human row
    good_rows = [text.encode() for text in langchain_rows('s2', BIG_TEXT + ' second')]
    database = tmp_path / 'chat.db'
    make_blob_store(database, {'s1': bad_rows, 's2': good_rows})
    report = tmp_path / 'r.json'

    assert batch(database, '--in-place', '--report', report) == 1

    after = rows(database, 'SELECT session_id, message FROM message_store ORDER BY id')
    assert [value for session, value in after if session == 's1'] == bad_rows
    assert [value for session, value in after if session == 's2'] != good_rows
    [failure] = read_report(report)['chat.db']['failures']  # type: ignore[misc]
    assert (failure['session'], failure['row_id']) == ('s1', '1')
    offset = bad_rows[0].index(b'\xff')
    assert failure['problem'] == f'a row that is not UTF-8 text (byte {offset})'


def test_a_text_row_that_is_not_utf8_fails_alone_and_the_other_rows_are_compacted(tmp_path: Path) -> None:
    """SQLite keeps whatever bytes a TEXT value was given; one such row is that row's failure, not its source's."""
    database = tmp_path / 'latin1.db'
    originals = [stored(17), stored(18), stored(19)]
    bad = originals[1].replace(b'history 18', b'history \xff18', 1)  # a Latin-1 byte in a tool return
    with sqlite3.connect(database) as connection:
        connection.execute('CREATE TABLE conversations (id TEXT, messages TEXT)')
        connection.executemany(
            'INSERT INTO conversations (id, messages) VALUES (?, CAST(? AS TEXT))',
            [('a', originals[0]), ('b', bad), ('c', originals[2])],
        )
    connection.close()
    report = tmp_path / 'r.json'

    assert batch(database, '--in-place', '--report', report) == 1

    after = rows(database, 'SELECT id, typeof(messages), CAST(messages AS BLOB) FROM conversations ORDER BY rowid')
    assert after[1] == ('b', 'text', bad)  # every byte and the storage class kept
    for (_, kind, text), original in zip([after[0], after[2]], [originals[0], originals[2]]):
        assert kind == 'text' and text != original
        check_rewrite(StoredHistory.parse(original), StoredHistory.parse(bytes(text)))
    [failure] = read_report(report)['latin1.db']['failures']  # type: ignore[misc]
    assert failure['row_id'] == 'b'
    offset = bad.index(b'\xff')
    assert failure['problem'] == f'not UTF-8 text at line 1 (byte {offset})'


def test_a_database_failing_mid_batch_reports_only_the_rows_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / 'app.db'
    originals = [stored(index) for index in range(5)]
    make_table(database, 'CREATE TABLE conversations (id TEXT, messages TEXT)', list(enumerate(originals)))
    (tmp_path / 'config.yaml').write_text('batch:\n  commit_every: 2\n  histories_in_flight: 1\n')
    update = SqliteSource._update  # pyright: ignore[reportPrivateUsage]
    calls: list[object] = []

    def fourth_update_fails(self: SqliteSource, table: object, **row: object) -> None:
        calls.append(row['key'])
        if len(calls) == 4:
            raise sqlite3.OperationalError('disk I/O error')
        update(self, table, **row)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(SqliteSource, '_update', fourth_update_fails)
    report = tmp_path / 'r.json'

    assert batch(database, '--in-place', '--config', tmp_path / 'config.yaml', '--report', report) == 1

    after = [text for (text,) in rows(database, 'SELECT messages FROM conversations ORDER BY rowid')]
    committed = sum(str(text).encode() != original for original, text in zip(originals, after))
    assert committed == 2  # the first commit; the third history, written but not committed, was rolled back
    source = read_report(report)['app.db']
    assert source['histories']['changed'] == committed  # type: ignore[index]
    (failure,) = source['failures']  # type: ignore[misc]
    assert (
        failure['problem']
        == 'OperationalError: disk I/O error; the 2 histories saved before it stay compacted, the others are left as they were'
    )  # type: ignore[index]
    assert source['returns_summarized'] == 3 * committed


def test_a_database_that_cannot_be_opened_is_reported_and_the_batch_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / 'src'
    source.mkdir()
    make_table(source / 'app.db', 'CREATE TABLE conversations (id TEXT, messages TEXT)', [('a', stored(0))])
    (source / 'h.json').write_bytes(stored(1))
    (tmp_path / 'out' / 'app.db').mkdir(parents=True)  # where its copy would go: a folder

    assert batch(source, '--out', tmp_path / 'out') == 1

    err = capsys.readouterr().err
    assert 'Traceback' not in err and 'source failed' in err and 'app.db' in err
    assert (tmp_path / 'out' / 'h.json').exists()  # the other source is done


def test_a_dry_run_failing_mid_database_says_nothing_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / 'app.db'
    make_table(
        database, 'CREATE TABLE conversations (id TEXT, messages TEXT)', list(enumerate(stored(i) for i in range(4)))
    )
    units = SqliteSource.units

    def third_row_unreadable(self: SqliteSource) -> object:
        for index, unit in enumerate(units(self)):
            if index == 2:
                raise sqlite3.DatabaseError('database disk image is malformed')
            yield unit

    monkeypatch.setattr(SqliteSource, 'units', third_row_unreadable)
    report = tmp_path / 'r.json'
    (tmp_path / 'config.yaml').write_text('batch:\n  histories_in_flight: 1\n')  # two histories done before

    assert batch(database, '--in-place', '--dry-run', '--config', tmp_path / 'config.yaml', '--report', report) == 1
    assert read_report(report)['app.db']['histories'] == {'seen': 2, 'changed': 2, 'failed': 0}  # would change

    (failure,) = read_report(report)['app.db']['failures']  # type: ignore[misc]
    assert failure['problem'] == 'DatabaseError: database disk image is malformed; this source is left as it was'  # type: ignore[index]


def test_a_null_session_and_a_session_named_none_are_restored_each_to_its_own(tmp_path: Path) -> None:
    database = tmp_path / 'chat.db'
    first = langchain_rows('s', BIG_TEXT)
    second = langchain_rows('s', BIG_TEXT.replace('took 2100 ms', 'took 2101 ms'))  # compacts to the same rows
    with sqlite3.connect(database) as connection:
        connection.execute(
            'CREATE TABLE message_store (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, message TEXT)'
        )
        for session, messages in ((None, first), ('None', second)):
            connection.executemany(
                'INSERT INTO message_store (session_id, message) VALUES (?, ?)', [(session, m) for m in messages]
            )
    connection.close()
    query = 'SELECT id, session_id, message FROM message_store ORDER BY id'
    before = rows(database, query)

    assert batch(database, '--in-place') == 0
    after = rows(database, query)
    assert after != before and [row[2] for row in after[:4]] == [row[2] for row in after[4:]]

    assert main(['restore', str(database), '--in-place']) == 0
    assert rows(database, query) == before
