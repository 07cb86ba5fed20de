"""The command's own errors: a model that cannot be built, options that do not go together, -v, --version."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import forked_cli
import pytest
from helpers import BIG_LIST, BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter

from summarizer.cli import main

UNBUILDABLE = {
    'openai:gpt-4.1-mini': 'OPENAI_API_KEY',
    'nonsense': 'Unknown model: nonsense',
    'anthropic:claude-haiku-4-5': 'anthropic',
}
"""A model each way pydantic-ai refuses one: no API key, an unknown name, a provider whose extra is missing
(or, where the anthropic extra is installed, its missing ANTHROPIC_API_KEY)."""


def files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob('*'))


def without_keys() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY')}


COMMANDS = (['compact'], ['compact', '--dry-run'], ['batch', '--dry-run'], ['batch', '--out', 'OUT'])


def command(words: list[str], history: Path) -> list[str]:
    target = str(history) if words[0] == 'compact' else str(history.parent)
    return [words[0], target, *(str(history.parent.parent / 'out') if word == 'OUT' else word for word in words[1:])]


@pytest.mark.parametrize('model', sorted(UNBUILDABLE))
def test_a_model_that_cannot_be_built_is_one_line_and_exit_2(
    model: str, old_schema_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key in ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY'):
        monkeypatch.delenv(key, raising=False)
    folder = old_schema_file.parent
    out_folder = folder.parent / 'out'  # where `batch --out` would write (see `command`)
    before = files_under(folder)
    for words in COMMANDS:
        assert main([*command(words, old_schema_file), '--model', model]) == 2, words
        out, err = capsys.readouterr()
        assert out == '' and err.count('\n') == 1 and err.startswith(f"summarizer: model '{model}': "), (words, err)
        assert UNBUILDABLE[model] in err or 'ANTHROPIC_API_KEY' in err
    assert files_under(folder) == before and not out_folder.exists()  # no output, no journal, no cache
    # and the real command, in a process of its own (forked from one that imported the CLI once, tests/forked_cli.py,
    # so the model's own SDK is imported in it as in any run): no traceback, one line
    words = COMMANDS[sorted(UNBUILDABLE).index(model)]
    result = forked_cli.run([*command(words, old_schema_file), '--model', model], env=without_keys())
    assert result.returncode == 2 and result.stdout == ''
    assert result.stderr.count('\n') == 1 and result.stderr.startswith(f"summarizer: model '{model}': ")
    assert files_under(folder) == before and not out_folder.exists()


@pytest.mark.parametrize(
    ('model', 'problem'),
    [
        ('openai:gpt-4.1-mini', 'no API key: set the OPENAI_API_KEY environment variable'),
        ('gpt-4', 'Unknown model: gpt-4 (a model name starts with its provider: did you mean openai:gpt-4?)'),
        ('nonsense', 'Unknown model: nonsense'),
    ],
)
def test_a_model_that_cannot_be_built_gets_our_advice(
    model: str, problem: str, old_schema_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not pydantic-ai's advice about `OpenAIProvider(api_key=...)` and `Agent('test')`; a bare name gets its provider."""
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    assert main(['compact', str(old_schema_file), '--model', model, '--dry-run']) == 2
    assert capsys.readouterr().err == f"summarizer: model '{model}': {problem}\n"


def test_compact_points_a_database_or_jsonl_file_to_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    database, lines = tmp_path / 'store.db', tmp_path / 'runs.jsonl'
    sqlite3.connect(database).execute('CREATE TABLE conversations (id TEXT, messages TEXT)').connection.close()
    lines.write_bytes(b'[]\n[]\n')
    assert main(['compact', str(database)]) == 2
    assert capsys.readouterr().err == (
        f'summarizer: {database}: a SQLite database, not a history file: `summarizer batch {database}` compacts its '
        'histories\n'
    )
    assert main(['compact', str(lines)]) == 2
    assert capsys.readouterr().err.endswith(f'(a JSONL file: `summarizer batch {lines}` compacts each line)\n')


def test_backup_needs_in_place(old_schema_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = old_schema_file.parent
    before = files_under(folder)
    for argv in (
        ['compact', str(old_schema_file), '--backup'],
        ['compact', str(old_schema_file), '-o', str(tmp_path / 'out.json'), '--backup'],
        ['batch', str(old_schema_file), '--out', str(tmp_path / 'out'), '--backup'],
    ):
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            'summarizer: --backup keeps the original of a file rewritten in place: it needs --in-place\n'
        )
    assert files_under(folder) == before


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit:
        main(['--version'])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f'summarizer {version("tool-return-summarizer")}\n'


def test_verbose_before_or_after_the_subcommand_says_what_was_summarized(
    old_schema_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    command = ['compact', str(old_schema_file), '--keep-recent', '0', '--dry-run']
    assert main(['-v', *command]) == 0
    logged = sorted(f'{record.levelname} {record.getMessage()}' for record in caplog.records)
    assert [line.split(':')[0] for line in logged] == [
        'INFO summarized deep_research (tool_0_deep_research)',
        'INFO summarized get_indicator_details (tool_1_get_indicator_details)',
    ]
    assert all(line.endswith('tokens (model)') for line in logged), logged
    # after the subcommand, in a process of its own (forked, tests/forked_cli.py): the lines reach stderr (same cache:
    # hits now)
    again = forked_cli.run([*command, '-v'])
    assert again.returncode == 0, again.stderr
    assert sorted(again.stderr.splitlines()) == [line.replace('(model)', '(cache hit)') for line in logged]
    caplog.clear()
    assert main(command) == 0  # without -v: nothing at INFO
    assert not [record for record in caplog.records if record.name.startswith('summarizer')]


SECRET = 'kq7Zx/vr4Wm?tp9Ls#hg2Nd@jb5Rc'
"""A PostgreSQL password holding characters that end or split a URL's user part."""


@pytest.mark.parametrize(
    'words',
    [
        ['restore', 'postgresql://app:{secret}@127.0.0.1:1/db', '--in-place'],  # a URL restore takes for a file
        ['batch', '--jobs', 'postgresql://app:{secret}@127.0.0.1:1/db', '.'],  # argparse quotes the value
        ['batch', '--dry-run', 'postgres:app:{secret}@127.0.0.1:1/db'],  # no //: still a URL, never a file name
        ['batch', '--jobs', 'postgresql://app@127.0.0.1:1/db?sslpassword={quoted}', '.'],  # a client key's passphrase
        ['batch', '--jobs', 'postgresql://app@127.0.0.1:1/db?oauth_client_secret={quoted}', '.'],
    ],
)
def test_no_message_shows_a_postgresql_password(
    words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with contextlib.suppress(SystemExit):  # argparse's exit
        assert main([word.format(secret=SECRET, quoted=quote(SECRET, safe='')) for word in words]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(('summarizer: ', 'usage: ')) and out == ''
    for piece in (SECRET, *SECRET.replace('/', ' ').replace('?', ' ').replace('#', ' ').replace('@', ' ').split()):
        assert piece not in err, err


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    'words',
    [
        ['compact', '{folder}/h0.json'],
        ['compact', '{folder}/h0.json', '--in-place'],
        ['batch', '{folder}', '--in-place'],
        ['batch', '{folder}', '--in-place', '--jobs', '2'],
        ['batch', '{folder}', '--out', '{out}'],
    ],
)
def test_an_unreachable_model_server_is_one_line_exit_2_and_nothing_written(
    words: list[str], tmp_path: Path, isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No summary can be made: the run stops at the first refused connection, not after every content's retries.

    The server's URL carries a password (`user:password@`, one of its characters encoded): no message shows it.
    """
    folder, out = tmp_path / 'in', tmp_path / 'out'
    folder.mkdir()
    for index in range(3):
        history_bytes = ModelMessagesTypeAdapter.dump_json(history(f'{BIG_TEXT}\n{index}', BIG_LIST))
        (folder / f'h{index}.json').write_bytes(history_bytes)
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    port = closed_port()
    config = tmp_path / 'server.yaml'
    url = f'http://svc:S3cret%2Fpw@127.0.0.1:{port}/v1'
    config.write_text(f'model: some-model\nbase_url: {url}\nkeep_recent: 0\n', encoding='utf-8')
    assert main([*(word.format(folder=folder, out=out) for word in words), '--config', str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.out == '' and captured.err.count('\n') == 1, captured.err
    assert captured.err.startswith(
        f'summarizer: cannot reach the model server at http://svc:***@127.0.0.1:{port}/v1/: '
    )
    assert 'connection refused' in captured.err and 'S3cret' not in captured.err
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before
    assert not [path for path in out.rglob('*') if not path.is_dir()]  # (`--out` makes its folder as it starts)


class _Echo(BaseHTTPRequestHandler):
    """A gateway that answers every request with a 400 whose body echoes its path and headers."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers['Content-Length']))
        echoed = {'error': {'message': f'bad request to {self.path} with headers {dict(self.headers)}'}}
        data = json.dumps(echoed).encode('utf-8')
        self.send_response(400)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_no_message_log_line_or_file_shows_a_key_a_server_echoes(
    tmp_path: Path, isolated_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server's error body was printed as is (default verbosity) and written to reports: the API key of its
    `Authorization` header, a key in `base_url`'s query (`?api_key=`, `?code=`) and in its path."""
    secrets = ('sk-Echoed4Key9x', 'Qu3ryS3cret7z', 'C0deS3cret8q', 'P4thK3y1234567890abcdef')
    server = ThreadingHTTPServer(('127.0.0.1', 0), _Echo)
    threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    monkeypatch.setenv('GATEWAY_KEY', secrets[0])
    config = tmp_path / 'gateway.yaml'
    port = server.server_address[1]
    config.write_text(
        f'model: some-model\napi_key_env: GATEWAY_KEY\nkeep_recent: 0\n'
        f'base_url: http://127.0.0.1:{port}/v1/{secrets[3]}?api_key={secrets[1]}&code={secrets[2]}\n',
        encoding='utf-8',
    )
    folder = tmp_path / 'in'
    folder.mkdir()
    (folder / 'h.json').write_bytes(ModelMessagesTypeAdapter.dump_json(history(BIG_TEXT, BIG_LIST)))
    try:
        assert main(['compact', str(folder / 'h.json'), '--config', str(config), '--dry-run']) == 1
        assert (
            main(
                [
                    '-vv',
                    'batch',
                    str(folder),
                    '--config',
                    str(config),
                    '--out',
                    str(tmp_path / 'out'),
                    '--report',
                    str(tmp_path / 'report.json'),
                ]
            )
            == 1
        )
    finally:
        server.shutdown()
        server.server_close()
    out, err = capsys.readouterr()
    written = [path.read_text('utf-8') for path in (tmp_path / 'report.json', *isolated_cache.rglob('*.jsonl'))]
    assert 'status_code: 400' in out and 'kept original' in out  # the reason is there, ...
    assert 'summary failed' in err and "'authorization': 'Bearer ***'" in written[0]
    for text in (out, err, *written):
        assert not any(secret in text for secret in secrets), text  # ... without a secret


EXTRAS = set(
    tomllib.loads((Path(__file__).parent.parent / 'pyproject.toml').read_text('utf-8'))['project'][
        'optional-dependencies'
    ]
)


@pytest.mark.parametrize(
    ('missing', 'words', 'extra'),
    [
        ('summarizer.engines.postgres', ['batch', 'postgresql://app@127.0.0.1:1/db', '--dry-run'], 'postgres'),
        ('summarizer.engines.ray', ['batch', '--engine', 'ray', '{history}', '--dry-run'], 'ray'),
        ('pydantic_ai.*.anthropic', ['compact', '{history}', '--model', 'anthropic:claude-haiku-4-5'], 'anthropic'),
        ('pydantic_ai.*.google', ['compact', '{history}', '--model', 'google:gemini-2.5-flash'], 'google'),
    ],
)
def test_an_install_hint_names_the_projects_extra_as_a_user_installs_it(
    missing: str,
    words: list[str],
    extra: str,
    old_schema_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The distribution is not on PyPI: an extra is installed from the checkout, `pip install '.[ray]'`."""
    for module in [missing] if '*' not in missing else [missing.replace('*', kind) for kind in ('models', 'providers')]:
        monkeypatch.setitem(sys.modules, module, None)  # its import fails, as without the extra
    assert main([word.format(history=old_schema_file) for word in words]) == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and f"pip install '.[{extra}]' in the project's checkout" in err, err
    assert extra in EXTRAS and 'tool-return-summarizer[' not in err and 'pydantic-ai-slim[' not in err


@pytest.mark.parametrize(
    ('text', 'problem'),
    [
        (
            'model: x\nthreshold_tokens: [1, 2\nkeep_recent: 3\n',
            "invalid YAML at line 3 column 12: expected ',' or ']'",
        ),
        ('model: "x\n', 'invalid YAML at line 2 column 1: found unexpected end of stream'),
        ('model: x\n  keep_recent: 1\n', 'invalid YAML at line 2 column 14: mapping values are not allowed here'),
        ('model: caf\xe9\n'.encode('latin-1'), 'not UTF-8 text (byte 10)'),
    ],
)
def test_a_config_file_that_is_not_yaml_is_one_line(
    text: str | bytes, problem: str, old_schema_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / 'config.yaml'
    config.write_bytes(text if isinstance(text, bytes) else text.encode('utf-8'))
    for words in (['compact', str(old_schema_file)], ['batch', str(old_schema_file), '--dry-run']):
        assert main([*words, '--config', str(config)]) == 2
        err = capsys.readouterr().err
        assert err.count('\n') == 1 and err.startswith(f'summarizer: {config}: {problem}'), err


@pytest.mark.parametrize(
    ('text', 'problem'),
    [
        ('threshold_tokens: five hundred\n', "threshold_tokens must be an integer, got 'five hundred'"),
        ('strict: maybe\n', "strict must be true or false, got 'maybe'"),
        ('timeout_seconds: [1]\n', 'timeout_seconds must be a number, got [1]'),
        ('base_url: 5\n', 'base_url must be a string or null, got 5'),
        ('originals:\n  size_limit_mb: lots\n', "originals: size_limit_mb must be an integer, got 'lots'"),
        ('batch:\n  include: [1]\n', 'batch: include must be a list of strings, got [1]'),
        ('tools:\n  search:\n    skip: maybe\n', "tools.search: skip must be true or false, got 'maybe'"),
    ],
)
def test_a_config_value_of_the_wrong_type_is_one_line_naming_the_key_and_the_type(
    text: str, problem: str, old_schema_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python's TypeError (`'<' not supported between instances of 'str' and 'int'`) named neither."""
    config = tmp_path / 'config.yaml'
    config.write_text(text, encoding='utf-8')
    assert main(['compact', str(old_schema_file), '--config', str(config)]) == 2
    assert capsys.readouterr().err == f'summarizer: {config}: {problem}\n'


def test_a_keyword_option_of_the_wrong_type_is_a_config_error() -> None:
    from summarizer import SummarizerConfig
    from summarizer.core import ConfigError

    with pytest.raises(ConfigError, match="^arguments: keep_recent must be an integer, got '2'$"):
        SummarizerConfig().override(keep_recent='2')


def test_a_batch_that_finds_no_history_says_so_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty folder, or files none of which match: a wrong path or pattern, said before anything is written."""
    empty, notes = tmp_path / 'empty', tmp_path / 'notes'
    empty.mkdir()
    notes.mkdir()
    (notes / 'readme.txt').write_text('not a history', encoding='utf-8')
    assert main(['batch', str(empty), str(notes), '--in-place', '--exclude', 'old-*']) == 2
    err = capsys.readouterr().err
    assert err == (
        f'summarizer: {empty}, {notes}: no history found: no file matches '
        '*.json *.jsonl *.sqlite *.sqlite3 *.db, excluding old-*\n'
    )
    assert sorted(path.name for path in tmp_path.rglob('*')) == ['empty', 'notes', 'readme.txt']


def test_an_output_that_is_the_input_itself_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`-o INPUT`, `--out` where an output lands on its input (a file, a JSONL or database, by name, link or hard
    link), or an input folder inside `--out`: an in-place rewrite without `--in-place`'s checks, refused before work."""
    folder = tmp_path / 'in'
    folder.mkdir()
    big = ModelMessagesTypeAdapter.dump_json(history(BIG_TEXT, BIG_LIST))
    (folder / 'h.json').write_bytes(big)
    (folder / 'l.jsonl').write_bytes(big + b'\n')
    (folder / 'link.json').symlink_to(folder / 'h.json')
    os.link(folder / 'h.json', tmp_path / 'h.json')  # a hard link, by the name its output would have
    (tmp_path / 'src').mkdir()
    (tmp_path / 'src' / 'l.jsonl').write_bytes(big + b'\n')  # its output would be in/l.jsonl
    os.link(folder / 'l.jsonl', tmp_path / 'x.jsonl')
    before = {path: path.read_bytes() for path in folder.iterdir()}
    for argv, line in (
        (['compact', str(folder / 'h.json'), '-o', str(folder / 'h.json')], f'{folder / "h.json"}: -o names the input'),
        (['compact', str(folder / 'h.json'), '-o', str(folder / 'link.json')], f'{folder / "h.json"}: -o names the'),
        (['compact', str(tmp_path / 'h.json'), '-o', str(folder / 'h.json')], f'{tmp_path / "h.json"}: -o names'),
        (['batch', str(folder / 'h.json'), '--out', str(folder)], f'{folder / "h.json"}: --out {folder} would write'),
        (['batch', str(folder / 'l.jsonl'), '--out', str(folder)], f'{folder / "l.jsonl"}: --out {folder} would write'),
        (
            ['batch', str(tmp_path / 'h.json'), '--out', str(folder)],
            f'{tmp_path / "h.json"}: --out {folder} would',
        ),
        (['batch', str(folder), '--out', str(folder)], f'{folder}: inside the --out folder {folder}'),
        (['batch', str(folder), '--out', str(tmp_path)], f'{folder}: inside the --out folder {tmp_path}'),
        (['restore', str(folder / 'h.json'), '--out', str(folder)], f'{folder / "h.json"}: --out {folder} would write'),
        (  # one input's output (in/l.jsonl) is another input (a hard link to it)
            ['batch', str(tmp_path / 'src'), str(tmp_path / 'x.jsonl'), '--out', str(folder)],
            f'{tmp_path / "src" / "l.jsonl"}: --out {folder} would write over the input {tmp_path / "x.jsonl"}',
        ),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f'summarizer: {line}') and err.count('\n') == 1, (argv, err)
        assert {path: path.read_bytes() for path in folder.iterdir()} == before
