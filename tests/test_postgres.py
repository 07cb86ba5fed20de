"""`summarizer batch postgresql://...` against a real PostgreSQL server (tests/pg_server.py starts one).

Histories in text, json and jsonb columns and langchain-postgres's message table; in place, `--out`
and `--dry-run`; a concurrent writer wins; SIGKILL mid-batch leaves every row old or new and a rerun
makes no repeated model call; bad inputs are one line and exit 2; a password never shows.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import forked_cli
import pytest
from fake_openai import fake_openai
from forked_cli import Forked
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, head_items, history, summarizer_model
from pg_server import PASSWORD, Server, running_server
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows
from test_batch_kill import _cached, assert_old_or_new
from test_provider_batch_read_once import provider_batch

from summarizer import Compactor, SummarizerConfig
from summarizer.cli import main
from summarizer.core._pg_url import SECRET_KEYS
from summarizer.engines._runner import run_sources
from summarizer.engines._sources import Target
from summarizer.stored._stored import StoredHistory, check_rewrite
from summarizer.stored._units import Unit

pytest.importorskip('psycopg', reason="the postgres extra: pip install '.[postgres]'")
from summarizer.engines import postgres
from summarizer.engines.postgres import Location, postgres_sources


@pytest.fixture(scope='module')
def pg_server() -> Iterator[Server]:
    with running_server() as server:
        yield server


@pytest.fixture
def database(pg_server: Server, request: pytest.FixtureRequest) -> str:
    """A fresh database per test, named after it."""
    name = 'test_' + ''.join(c if c.isalnum() else '_' for c in request.node.name.lower())[:50]
    return pg_server.create_database(name)


def batch(*arguments: object) -> int:
    return main(['batch', '--keep-recent', '0', *map(str, arguments)])


def pretty(index: int, *contents: object) -> str:
    """A history as an app might have written it itself: indented, non-ASCII kept (not pydantic-ai's own bytes)."""
    data = json.loads(ModelMessagesTypeAdapter.dump_json(history(f'history {index} é\n', *contents)))
    return json.dumps(data, indent=2, ensure_ascii=False)


SMALL = ModelMessagesTypeAdapter.dump_json(history('tiny')).decode()


def make_histories(server: Server, database: str, column_type: str, histories: dict[str, str]) -> None:
    with server.connect(database) as connection:
        connection.execute(f'CREATE TABLE conversations (id text PRIMARY KEY, messages {column_type}, note text)')
        for key, text in histories.items():
            connection.execute(
                f'INSERT INTO conversations VALUES (%s, %s::{column_type}, %s)', (key, text, f'note {key}')
            )


def table(server: Server, database: str, query: str) -> list[tuple[object, ...]]:
    with server.connect(database) as connection:
        return connection.execute(query).fetchall()


@pytest.mark.parametrize('column_type', ['text', 'json', 'jsonb'])
def test_each_column_type_round_trips(
    pg_server: Server, database: str, column_type: str, tmp_path: Path, isolated_cache: Path
) -> None:
    histories = {'a': pretty(0, BIG_TEXT), 'b': SMALL, 'c': pretty(2, BIG_OBJECT, BIG_LIST)}
    make_histories(pg_server, database, column_type, histories)
    before = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    report = tmp_path / 'report.json'

    assert batch(pg_server.url(database), '--in-place', '--report', report) == 0

    after = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    assert after.keys() == before.keys() == histories.keys()
    for key in ('a', 'c'):
        original, compacted = str(before[key]), str(after[key])
        assert len(compacted) < len(original)
        if column_type == 'jsonb':  # stored normalized: the guarantee is semantic
            check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
        else:  # every byte of the app's own text outside the summarized values
            assert original == histories[key]
            check_rewrite(StoredHistory.parse(histories[key]), StoredHistory.parse(compacted))
            assert compacted.startswith('[\n  {\n    "parts": [') and 'history 0 é' in after['a']  # type: ignore[operator]
    assert after['b'] == before['b']
    assert table(pg_server, database, 'SELECT id, note FROM conversations ORDER BY id') == [
        ('a', 'note a'),
        ('b', 'note b'),
        ('c', 'note c'),
    ]
    (source,) = json.loads(report.read_text())['sources']
    assert source['kind'] == 'postgresql' and source['histories'] == {'seen': 3, 'changed': 2, 'failed': 0}
    assert source['returns_summarized'] == 3


@pytest.mark.parametrize('column_type', ['text', 'json', 'jsonb'])
def test_restore_puts_each_row_back_as_the_column_gave_it(
    pg_server: Server, database: str, column_type: str, isolated_cache: Path
) -> None:
    twin = pretty(0, BIG_TEXT)  # a and b differ only in a line compaction omits: both compact to one text
    histories = {'a': twin, 'b': twin.replace('took 2100 ms', 'took 2101 ms'), 'c': pretty(2, BIG_OBJECT, BIG_LIST)}
    make_histories(pg_server, database, column_type, histories)
    query = 'SELECT id, messages::text, note FROM conversations ORDER BY id'
    before = table(pg_server, database, query)

    assert batch(pg_server.url(database), '--in-place') == 0
    compacted = table(pg_server, database, query)
    assert compacted[0][1] == compacted[1][1] and all(old != new for old, new in zip(before, compacted))

    assert main(['restore', pg_server.url(database), '--in-place']) == 0
    assert table(pg_server, database, query) == before  # every row as the column gave it before, each its own
    assert main(['restore', pg_server.url(database), '--in-place']) == 0  # nothing left to restore
    assert table(pg_server, database, query) == before


LANGCHAIN_SCHEMA = """
CREATE TABLE chat_history (
    id SERIAL PRIMARY KEY,
    session_id UUID NOT NULL,
    message JSONB NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT NOW()
);
CREATE INDEX idx_chat_history_session_id ON chat_history (session_id);
"""
SESSIONS = ('11111111-1111-1111-1111-111111111111', '00000000-0000-0000-0000-000000000002')


def test_langchain_table_keeps_every_other_column_and_row(
    pg_server: Server, database: str, tmp_path: Path, isolated_cache: Path
) -> None:
    with pg_server.connect(database) as connection:
        connection.execute(LANGCHAIN_SCHEMA)
        rows = {session: langchain_rows(session[:4], BIG_TEXT + session) for session in SESSIONS}
        for position in range(4):  # the sessions' rows interleaved, as two live conversations write them
            for session in SESSIONS:
                connection.execute(
                    'INSERT INTO chat_history (session_id, message, created_at) '
                    "VALUES (%s, %s::jsonb, now() - interval '1 hour' * %s)",
                    (session, rows[session][position], position),
                )
    query = 'SELECT id, session_id::text, message::text, created_at FROM chat_history ORDER BY id'
    before = table(pg_server, database, query)

    report = tmp_path / 'report.json'

    assert batch(pg_server.url(database, query='langchain_table=chat_history'), '--in-place', '--report', report) == 0

    after = table(pg_server, database, query)
    assert [row[:2] + row[3:] for row in after] == [row[:2] + row[3:] for row in before]  # ids, sessions, times
    changed = [(json.loads(str(old[2])), json.loads(str(new[2]))) for old, new in zip(before, after) if old != new]
    assert len(changed) == 2  # one tool row per session, nothing else
    for old, new in changed:
        assert old['type'] == new['type'] == 'tool'
        assert {**old['data'], 'content': None} == {**new['data'], 'content': None}
        assert len(new['data']['content']) < len(old['data']['content'])
    (source,) = json.loads(report.read_text())['sources']
    assert source['histories'] == {'seen': 2, 'changed': 2, 'failed': 0}  # a session's rows are one history

    assert main(['restore', pg_server.url(database, query='langchain_table=chat_history'), '--in-place']) == 0
    assert table(pg_server, database, query) == before


@pytest.mark.parametrize(
    'column_type, trigger_body, problem',
    [
        ('text', "NEW.messages := NEW.messages || ' '", 'is not the checked rewrite byte for byte'),
        (
            'jsonb',
            "NEW.messages := NEW.messages || '[{}]'::jsonb",
            'the stored jsonb is not the checked rewrite byte for byte',
        ),
        ('json', "RAISE EXCEPTION 'compaction not allowed here'", 'the server refused it: compaction not allowed here'),
    ],
)
def test_a_write_the_server_alters_or_refuses_is_rolled_back_and_reported(
    pg_server: Server,
    database: str,
    column_type: str,
    trigger_body: str,
    problem: str,
    isolated_cache: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make_histories(pg_server, database, column_type, {'a': pretty(0, BIG_TEXT)})
    before = table(pg_server, database, 'SELECT id, messages::text, note FROM conversations')
    with pg_server.connect(database) as connection:
        connection.execute(
            f'CREATE FUNCTION alter_history() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {trigger_body}; '
            'RETURN NEW; END $$'
        )
        connection.execute(
            'CREATE TRIGGER alter_history BEFORE UPDATE ON conversations FOR EACH ROW EXECUTE FUNCTION alter_history()'
        )

    assert batch(pg_server.url(database), '--in-place') == 1

    assert table(pg_server, database, 'SELECT id, messages::text, note FROM conversations') == before
    assert problem in ' '.join(capsys.readouterr().err.split())  # (rich wraps lines)


def _compactor(on_call: Callable[[object], None]) -> Compactor:
    def answer(content: object, budget: int) -> object:
        on_call(content)
        return head_items(content, 1) if isinstance(content, list) else f'{str(content)[:200]} …'

    config = SummarizerConfig().override(keep_recent=0)
    return Compactor(config=config, model=summarizer_model(answer))


@pytest.mark.parametrize('column_type', ['text', 'jsonb'])
async def test_a_concurrent_writer_wins(
    pg_server: Server, database: str, column_type: str, isolated_cache: Path
) -> None:
    make_histories(pg_server, database, column_type, {'a': pretty(0, BIG_TEXT), 'b': pretty(1, BIG_LIST)})
    before = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    app_version = pretty(9, 'the app wrote this meanwhile')

    def app_writes(content: object) -> None:
        """The running application updates row a while its content is being summarized (before the summary returns)."""
        if content != BIG_TEXT:
            return
        with pg_server.connect(database) as connection:
            connection.execute(
                f"UPDATE conversations SET messages = %s::{column_type} WHERE id = 'a' AND note = 'note a'",
                (app_version,),
            )
            connection.execute("UPDATE conversations SET note = 'touched' WHERE id = 'a'")

    config = SummarizerConfig().override(keep_recent=0)
    (source,) = postgres_sources([pg_server.url(database)], config=config.batch, target=Target())
    (report,) = await run_sources(
        [source], compactor=_compactor(app_writes), target=Target(), journal=None, on_tick=lambda tick: None
    )

    rows = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    assert json.loads(str(rows['a'])) == json.loads(app_version)  # the app's update survived
    check_rewrite(StoredHistory.parse(str(before['b'])), StoredHistory.parse(str(rows['b'])))  # the other: compacted
    assert rows['b'] != before['b']
    assert report.changed == 1 and report.failed == 1, report.problems
    (problem,) = report.problems
    assert problem.where.row_id == 'a' and 'changed while compacting' in problem.problem


async def test_a_row_the_application_keeps_locked_is_reported_not_waited_on(
    pg_server: Server, database: str, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_histories(pg_server, database, 'jsonb', {'a': pretty(0, BIG_TEXT), 'b': pretty(1, BIG_LIST)})
    before = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    monkeypatch.setattr(postgres, '_LOCK_TIMEOUT_SECONDS', 1)
    config = SummarizerConfig().override(keep_recent=0)
    (source,) = postgres_sources([pg_server.url(database)], config=config.batch, target=Target())
    application = pg_server.connect(database, autocommit=False)
    application.execute("SELECT 1 FROM conversations WHERE id = 'a' FOR UPDATE")  # held in an open transaction
    release = threading.Timer(15, application.rollback)  # without a lock timeout the batch would wait this long
    release.start()
    try:
        (report,) = await run_sources(
            [source],
            compactor=_compactor(lambda content: None),
            target=Target(),
            journal=None,
            on_tick=lambda tick: None,
        )
        assert release.is_alive()  # the batch did not wait for the lock
    finally:
        release.cancel()
        application.rollback()
        application.close()

    rows = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    assert rows['a'] == before['a'] and rows['b'] != before['b']
    (problem,) = report.problems
    assert problem.where.row_id == 'a' and 'lock timeout' in problem.problem


ROWS = 10
ANSWERED_BEFORE_KILL = 5


@pytest.mark.slow
def test_sigkill_mid_batch_leaves_old_or_new_rows_and_resume_repeats_no_model_call(
    pg_server: Server, database: str, tmp_path: Path, isolated_cache: Path
) -> None:
    """Both runs are processes of their own, forked from one that imported the CLI once (tests/forked_cli.py)."""
    originals = {f'r{index:02d}': pretty(index, f'row {index}\n{BIG_TEXT}') for index in range(ROWS)}
    make_histories(pg_server, database, 'jsonb', originals)
    stored = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    with fake_openai() as server:
        config = tmp_path / 'config.yaml'
        config.write_text(
            f'model: fake\nbase_url: {server.base_url}\nmax_retries: 0\nconcurrency: 2\nkeep_recent: 0\n'
            'batch:\n  histories_in_flight: 4\n'
        )
        command = ['batch', pg_server.url(database), '--in-place']
        command += ['--config', str(config)]
        server.limit = ANSWERED_BEFORE_KILL
        first = Forked(command)
        try:
            deadline = time.monotonic() + 120
            while _cached(isolated_cache) < ANSWERED_BEFORE_KILL or not _rewritten(pg_server, database, stored):
                assert first.poll() is None and time.monotonic() < deadline, 'the batch never reached the kill point'
                time.sleep(0.05)
        finally:
            first.kill()
            first.close()
        middle = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
        rewritten = {key for key, text in middle.items() if assert_old_or_new(str(stored[key]), str(text))}
        assert rewritten and len(rewritten) < ROWS
        answered_before = list(server.answered)
        assert len(answered_before) == ANSWERED_BEFORE_KILL

        server.open_gate()
        report = tmp_path / 'report.json'
        rerun = forked_cli.run([*command, '--resume', '--report', str(report)])
        assert rerun.returncode == 0, rerun.stderr

    answered_after = server.answered[len(answered_before) :]
    assert not set(answered_after) & set(answered_before)
    assert len(set(server.answered)) == len(server.answered) == ROWS
    (source,) = json.loads(report.read_text())['sources']
    assert source['model_calls'] == len(answered_after) and not source['resumed']
    assert source['histories'] == {'seen': ROWS, 'changed': ROWS - len(rewritten), 'failed': 0}
    final = dict(table(pg_server, database, 'SELECT id, messages::text FROM conversations'))
    for key, text in final.items():
        assert assert_old_or_new(str(stored[key]), str(text))


def _rewritten(server: Server, database: str, stored: dict[object, object]) -> bool:
    rows = table(server, database, 'SELECT id, messages::text FROM conversations')
    return any(stored[key] != text for key, text in rows)


def test_out_into_another_database_created_if_absent_and_dry_run_writes_nothing(
    pg_server: Server, database: str, tmp_path: Path, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_histories(pg_server, database, 'json', {'a': pretty(0, BIG_TEXT), 'b': SMALL})
    before = table(pg_server, database, 'SELECT id, messages::text, note FROM conversations ORDER BY id')
    with pg_server.connect() as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{database}_out"')

    assert batch(pg_server.url(database), '--dry-run') == 0
    assert table(pg_server, database, 'SELECT id, messages::text, note FROM conversations ORDER BY id') == before

    out = pg_server.url(f'{database}_out', query='table=compacted')
    assert batch(pg_server.url(database), '--out', out) == 0

    assert table(pg_server, database, 'SELECT id, messages::text, note FROM conversations ORDER BY id') == before
    copied = table(pg_server, f'{database}_out', 'SELECT id, messages::text, note FROM compacted ORDER BY id')
    assert [(row[0], row[2]) for row in copied] == [('a', 'note a'), ('b', 'note b')]
    check_rewrite(StoredHistory.parse(str(before[0][1])), StoredHistory.parse(str(copied[0][1])))
    assert copied[1][1] == before[1][1]
    capsys.readouterr()

    assert batch(pg_server.url(database), '--out', out) == 2  # would mix two runs' rows
    assert 'already holds rows' in capsys.readouterr().err
    assert batch(pg_server.url(database), '--out', out, '--resume') == 0


def test_resume_skips_an_unchanged_finished_table_and_redoes_a_changed_one(
    pg_server: Server, database: str, tmp_path: Path, isolated_cache: Path
) -> None:
    make_histories(pg_server, database, 'text', {'a': pretty(0, BIG_TEXT)})
    report = tmp_path / 'report.json'
    assert batch(pg_server.url(database), '--in-place') == 0
    assert batch(pg_server.url(database), '--in-place', '--resume', '--report', report) == 0
    assert json.loads(report.read_text())['sources'][0]['resumed'] is True

    with pg_server.connect(database) as connection:
        connection.execute('INSERT INTO conversations VALUES (%s, %s, %s)', ('new', pretty(5, BIG_LIST), 'n'))
    assert batch(pg_server.url(database), '--in-place', '--resume', '--report', report) == 0
    (source,) = json.loads(report.read_text())['sources']
    assert source['resumed'] is False and source['histories']['changed'] == 1


@pytest.mark.parametrize(
    'setup, query, expected',
    [
        ('', 'table=nope', 'table nope: no such table'),
        ('CREATE TABLE conversations (id text, body text)', '', 'table conversations: column messages missing'),
        ('CREATE TABLE conversations (id text, messages bytea)', '', 'column messages is bytea'),
        ('CREATE TABLE other (x int)', '', 'no table conversations(id, messages) nor message_store'),
        ('CREATE TABLE t (id int, session_id text)', 'langchain_table=t', 'column message missing'),
        ('CREATE VIEW conversations AS SELECT 1 AS id, 2 AS messages', '', 'not a table'),
    ],
)
def test_bad_tables_are_one_line_exit_2_before_any_work(
    pg_server: Server,
    database: str,
    setup: str,
    query: str,
    expected: str,
    capsys: pytest.CaptureFixture[str],
    isolated_cache: Path,
) -> None:
    if setup:
        with pg_server.connect(database) as connection:
            connection.execute(setup)

    assert batch(pg_server.url(database, query=query), '--in-place') == 2

    captured = capsys.readouterr()
    assert captured.out == '' and len(captured.err.splitlines()) == 1, captured.err
    assert expected in captured.err and PASSWORD not in captured.err
    assert not isolated_cache.exists()  # no work began


def test_unreachable_server_and_wrong_password_are_one_line_without_the_password(
    pg_server: Server, database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from pg_server import _free_port

    closed = f'postgresql://postgres:{quote(PASSWORD, safe="")}@127.0.0.1:{_free_port()}/{database}'
    wrong = pg_server.url(database).replace(quote(PASSWORD, safe=''), quote(PASSWORD + 'x', safe=''))
    for url, expected in ((closed, 'Connection refused'), (wrong, 'password authentication failed')):
        assert batch(url, '--dry-run') == 2
        captured = capsys.readouterr()
        assert captured.out == '' and len(captured.err.splitlines()) == 1, captured.err
        assert expected in captured.err and 'postgresql://postgres@127.0.0.1' in captured.err
        assert PASSWORD not in captured.err and quote(PASSWORD, safe='') not in captured.err


def test_a_password_in_the_url_never_shows_and_libpq_environment_works(
    pg_server: Server,
    database: str,
    tmp_path: Path,
    isolated_cache: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_histories(pg_server, database, 'text', {'a': pretty(0, BIG_TEXT)})
    report = tmp_path / 'report.json'
    journal = tmp_path / 'journal.jsonl'
    url = pg_server.url(database)
    assert quote(PASSWORD, safe='') in url

    assert batch(url, '--in-place', '--journal', journal) == 0  # journaled: finished
    with pg_server.connect(database) as connection:
        connection.execute("INSERT INTO conversations VALUES ('bad', '[{\"kind\": \"nonsense\"}]', '')")
    assert batch(url, '--in-place', '--resume', '--report', report, '--journal', journal) == 1  # 'bad' reported

    captured = capsys.readouterr()
    shown = f'postgresql://postgres@127.0.0.1:{pg_server.port}/{database}'
    assert shown in journal.read_text() and shown in report.read_text()
    assert shown in captured.err and 'row bad' in captured.err
    written = captured.out + captured.err + report.read_text() + journal.read_text()
    for secret in (PASSWORD, quote(PASSWORD, safe=''), 'Secr3t'):
        assert secret not in written

    monkeypatch.setenv('PGPASSWORD', PASSWORD)
    assert batch(pg_server.url(database, password=False), '--dry-run') == 1


@pytest.mark.parametrize(
    'url, conninfo, credentials, shown',
    [
        (
            'postgresql:///agents?table=t&sslmode=disable',
            'postgresql:///agents?sslmode=disable',
            {},
            'postgresql:///agents?sslmode=disable&table=t',
        ),
        (
            'postgresql://app:p%40ss@h1:5432,h2/db?password=zz&table=t',
            'postgresql://app@h1:5432,h2/db',
            {'password': 'zz'},
            'postgresql://app@h1:5432,h2/db?table=t',
        ),
        ('postgres://app@host', 'postgres://app@host', {}, 'postgres://app@host'),
        (
            'postgresql://app:a/b?c#d@e@[::1]:5/db',
            'postgresql://app@[::1]:5/db',
            {'password': 'a/b?c#d@e'},
            'postgresql://app@[::1]:5/db',
        ),
        (
            'postgresql://me@corp@host/db?x=1',
            'postgresql://me%40corp@host/db?x=1',
            {},
            'postgresql://me@corp@host/db?x=1',
        ),
        (
            'postgresql://app@h/db?sslmode=require&sslpassword=p%40ss&ssl%70assword=p@ss&oauth_client_secret=zz',
            'postgresql://app@h/db?sslmode=require',
            {'sslpassword': 'p@ss', 'oauth_client_secret': 'zz'},
            'postgresql://app@h/db?sslmode=require',
        ),
    ],
)
def test_urls_keep_what_libpq_needs_and_show_no_password(
    url: str, conninfo: str, credentials: dict[str, str], shown: str
) -> None:
    """libpq gets the URL without its password or other secret (`sslpassword`, ...), and those apart, decoded."""
    location = Location.parse(url)
    assert (location.conninfo, location.credentials, location.shown) == (conninfo, credentials, shown)
    assert location.problem(ValueError('failed for p@ss and p%40ss and zz\n  here')) == (
        'failed for *** and *** and *** here' if 'p%40ss' in url else 'failed for p@ss and p%40ss and zz here'
    )


def test_every_parameter_libpq_hides_is_kept_secret() -> None:
    """The parameters this libpq marks as password fields (`dispchar` `*`) are all among `SECRET_KEYS`."""
    from psycopg import pq

    hidden = {option.keyword.decode() for option in pq.Conninfo.get_defaults() if option.dispchar == b'*'}
    assert 'password' in hidden and hidden <= set(SECRET_KEYS), hidden


ROLE_PASSWORD = 'kq7Zx/vr4Wm?tp9Ls#hg2Nd@jb5Rc:yf8Qe'
"""A password holding every character that ends or splits a URL's user part; each piece is searched in outputs."""
KEY_PASSPHRASE = 'hv3Kp/qa8Zt?mw4Jx'
"""A client key's passphrase (`sslpassword`), holding characters a query value may hold as they are."""
PIECES = (ROLE_PASSWORD, quote(ROLE_PASSWORD, safe=''), 'kq7Zx', 'vr4Wm', 'tp9Ls', 'hg2Nd', 'jb5Rc', 'yf8Qe')


@pytest.fixture(scope='module')
def app_role(pg_server: Server) -> str:
    with pg_server.connect() as connection:
        connection.execute(f"CREATE ROLE app LOGIN PASSWORD '{ROLE_PASSWORD}'")
    return 'app'


@pytest.fixture
def role(pg_server: Server, database: str, app_role: str) -> str:
    """A login role `app` owning `database`, whose password is `ROLE_PASSWORD`."""
    with pg_server.connect() as connection:
        connection.execute(f'ALTER DATABASE "{database}" OWNER TO app')
    with pg_server.connect(database) as connection:
        connection.execute('ALTER SCHEMA public OWNER TO app')
    return 'app'


def test_a_password_never_shows_whatever_the_urls_shape(
    pg_server: Server,
    database: str,
    role: str,
    tmp_path: Path,
    isolated_cache: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Unencoded `/ ? # @ :` in the password, encoded, in `?password=`, in PGPASSWORD, and in `?sslpassword=`: the
    batch connects as the user meant, and neither stderr (-vv logging included), the --report file nor the journal holds any piece of it."""
    host = f'127.0.0.1:{pg_server.port}'
    make_histories(pg_server, database, 'text', {'a': pretty(0, BIG_TEXT), 'bad': '[{"kind": "nonsense"}]'})
    with pg_server.connect(database) as connection:
        connection.execute('ALTER TABLE conversations OWNER TO app')
    shown = f'postgresql://app@{host}/{database}'
    urls = [
        f'postgresql://app:{ROLE_PASSWORD}@{host}/{database}',
        f'postgresql://app:{quote(ROLE_PASSWORD, safe="")}@{host}/{database}',
        f'postgresql://app@{host}/{database}?password={quote(ROLE_PASSWORD, safe="")}',
        # the client key's passphrase (unused here, without SSL), as written and encoded
        f'postgresql://app:{quote(ROLE_PASSWORD, safe="")}@{host}/{database}?sslpassword={KEY_PASSPHRASE}',
        f'postgresql://app:{quote(ROLE_PASSWORD, safe="")}@{host}/{database}?sslpassword={quote(KEY_PASSPHRASE)}',
        f'postgresql://app@{host}/{database}',  # PGPASSWORD
    ]
    monkeypatch.delenv('PGPASSWORD', raising=False)
    written = ''
    for index, url in enumerate(urls):
        if index == len(urls) - 1:
            monkeypatch.setenv('PGPASSWORD', ROLE_PASSWORD)
        report, journal = tmp_path / f'report{index}.json', tmp_path / f'journal{index}.jsonl'
        arguments = ('-vv', url, '--dry-run' if index else '--in-place', '--report', report, '--journal', journal)
        assert batch(*arguments) == 1, index  # connected, and the one bad row reported
        captured = capsys.readouterr()
        assert shown in captured.err and 'row bad' in captured.err and shown in report.read_text()
        written += captured.out + captured.err + report.read_text() + (journal.read_text() if index == 0 else '')
    assert table(pg_server, database, "SELECT messages FROM conversations WHERE id = 'a'") != [(pretty(0, BIG_TEXT),)]
    for piece in (*PIECES, KEY_PASSPHRASE, quote(KEY_PASSPHRASE, safe=''), 'hv3Kp', 'qa8Zt', 'mw4Jx'):
        assert piece not in written, piece


@pytest.mark.parametrize(
    'url',
    [
        'postgresql://app:{password}@127.0.0.1:{port}/{database}',  # unencoded, server there, no table
        'postgresql://app:{password}x@127.0.0.1:{port}/{database}',  # wrong password
        'postgresql://app:{password}@127.0.0.1:{closed}/{database}',  # nothing listening
        'postgresql://app:{password}@127.0.0.1:{port}/{database}?table=nothing',  # no such table
        'postgresql://app:{password}',  # no @host: the password reads as a port
        'postgresql:/app:{password}@127.0.0.1:{port}/{database}',  # one slash
        'postgresql://app:{password}@127.0.0.1:{port}/{database}?sslmode=nonsense',  # libpq refuses an option
    ],
)
def test_a_failed_connection_or_malformed_url_is_one_line_without_the_password(
    url: str, pg_server: Server, database: str, role: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pg_server import _free_port

    filled = url.format(password=ROLE_PASSWORD, port=pg_server.port, closed=_free_port(), database=database)
    report = tmp_path / 'report.json'
    assert batch(filled, '--in-place', '--report', report) == 2
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1 and not report.exists(), captured.err
    written = captured.out + captured.err
    for piece in PIECES:
        assert piece not in written, (piece, written)


@pytest.mark.parametrize('column_type', ['text', 'jsonb'])
def test_a_provider_batch_reads_a_database_once_and_writes_its_out_copy(
    pg_server: Server, database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, column_type: str
) -> None:
    make_histories(pg_server, database, column_type, {'a': pretty(0, BIG_TEXT), 'b': pretty(1, BIG_TEXT)})
    before = table(pg_server, database, 'SELECT id, messages::text, note FROM conversations ORDER BY id')
    with pg_server.connect() as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{database}_out"')
    reads: list[str] = []
    units = postgres.PostgresSource.units

    def counted(source: postgres.PostgresSource) -> Iterator[Unit]:
        reads.append(source.name)
        return units(source)

    monkeypatch.setattr(postgres.PostgresSource, 'units', counted)
    out = pg_server.url(f'{database}_out', query='table=compacted')
    sources = postgres_sources([pg_server.url(database)], config=SummarizerConfig().batch, target=Target(), out=out)

    [report] = provider_batch(sources, tmp_path / 'journal.jsonl')

    assert report.ok and report.changed == 2
    assert len(reads) == 1  # the plan read the copy it made; the compaction wrote it from the spool
    assert table(pg_server, database, 'SELECT id, messages::text, note FROM conversations ORDER BY id') == before
    copied = table(pg_server, f'{database}_out', 'SELECT id, messages::text, note FROM compacted ORDER BY id')
    for old, new in zip(before, copied, strict=True):
        check_rewrite(StoredHistory.parse(str(old[1])), StoredHistory.parse(str(new[1])))


def test_rows_sharing_an_id_are_left_as_they_are_and_reported(
    pg_server: Server, database: str, tmp_path: Path, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twin = pretty(0, BIG_TEXT)  # both compact to one text: one shared record would restore both as one
    with pg_server.connect(database) as connection:
        connection.execute('CREATE TABLE conversations (id text, messages text)')  # no key: ids may repeat
        for key, text in (('a', twin), ('a', twin.replace('took 2100 ms', 'took 2101 ms')), ('c', twin)):
            connection.execute('INSERT INTO conversations VALUES (%s, %s)', (key, text))
    query = 'SELECT id, messages FROM conversations ORDER BY id, messages'
    before = table(pg_server, database, query)
    report = tmp_path / 'report.json'

    assert batch(pg_server.url(database), '--in-place', '--report', report) == 1

    after = table(pg_server, database, query)
    assert after[:2] == before[:2] and after[2] != before[2]  # only the row of its own id is compacted
    assert capsys.readouterr().err.count('2 rows have this id') == 2
    (source,) = json.loads(report.read_text())['sources']
    assert source['histories'] == {'seen': 3, 'changed': 1, 'failed': 2}
    assert main(['restore', pg_server.url(database), '--in-place']) == 1  # the shared rows are refused again
    assert table(pg_server, database, query) == before


def test_a_connection_lost_mid_batch_reports_the_rows_already_committed(
    pg_server: Server, database: str, tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_histories(pg_server, database, 'text', {key: pretty(index, BIG_TEXT) for index, key in enumerate('abc')})
    before = dict(table(pg_server, database, 'SELECT id, messages FROM conversations'))
    write = postgres.PostgresSource.write

    def write_then_lose_the_connection(self: postgres.PostgresSource, done: object) -> None:
        write(self, done)  # pyright: ignore[reportArgumentType]
        assert self._writer is not None  # pyright: ignore[reportPrivateUsage]
        with pg_server.connect(database) as admin:  # the server drops the writer's session (restart, failover)
            admin.execute('SELECT pg_terminate_backend(%s)', (self._writer.info.backend_pid,))  # pyright: ignore[reportPrivateUsage]

    monkeypatch.setattr(postgres.PostgresSource, 'write', write_then_lose_the_connection)
    report = tmp_path / 'report.json'

    assert batch(pg_server.url(database), '--in-place', '--report', report) == 1

    after = dict(table(pg_server, database, 'SELECT id, messages FROM conversations'))
    committed = [key for key in before if after[key] != before[key]]
    assert len(committed) == 1  # the first history's transaction was committed before the connection went
    (source,) = json.loads(report.read_text())['sources']
    assert source['histories']['changed'] == 1 and source['returns_summarized'] == 1
    (failure,) = source['failures']
    assert failure['problem'].startswith('connection lost: ')
    assert failure['problem'].endswith(
        '; the 1 history saved before it stays compacted, the others are left as they were'
    )


def test_a_null_id_and_the_text_null_are_two_rows_to_restore(
    pg_server: Server, database: str, isolated_cache: Path
) -> None:
    """Reports show both ids as NULL; the originals store must not take one for the other."""
    twin = pretty(0, BIG_TEXT)  # both compact to one text
    with pg_server.connect(database) as connection:
        connection.execute('CREATE TABLE conversations (id text, messages text)')
        connection.execute(
            'INSERT INTO conversations VALUES (NULL, %s), (%s, %s)',
            (twin, 'NULL', twin.replace('took 2100 ms', 'took 2101 ms')),
        )
    query = "SELECT coalesce(id, '<null>'), messages FROM conversations ORDER BY 1"
    before = table(pg_server, database, query)

    assert batch(pg_server.url(database), '--in-place') == 0
    compacted = table(pg_server, database, query)
    assert compacted[0][1] == compacted[1][1] != before[0][1]

    assert main(['restore', pg_server.url(database), '--in-place']) == 0
    assert table(pg_server, database, query) == before
