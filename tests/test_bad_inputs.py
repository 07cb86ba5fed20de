"""The bad-input corpus (tests/data/bad/) and inputs too big to commit, through `summarizer compact`.

Bad input gets one line on stderr naming the file, the place (message index, line and column
where there is one) and the problem; exit 2; no traceback; nothing written. Tool-call integrity
problems are not bad input: real stored histories have them, so those files are compacted and the
problems reported (see docs/robustness.md).
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from summarizer.cli import main
from summarizer.stored._stored import StoredHistory, check_rewrite

CORPUS = Path(__file__).parent / 'data' / 'bad'

ERRORS = {
    'bad-timestamp.json': 'message 2: parts.0.timestamp: Input should be a valid datetime',
    'comment.json': 'invalid JSON at line 1 column 1: Expecting value',
    'control-character-in-string.json': 'message 2: invalid JSON at line 83 column 255: Invalid control character',
    'cut-inside-content.json': 'message 2: invalid JSON at line 83 column 20: Unterminated string starting',
    'empty.json': 'empty input',
    'huge-integer.json': 'message 2: invalid JSON at line 86 column 21: Exceeds the limit (4300 digits)',
    'invalid-utf8.json': 'not UTF-8 text at line 83 (byte 2173)',
    'latin1.json': 'not UTF-8 text at line 83 (byte 2176)',
    'list-of-strings.json': 'message 0: Input should be a valid dictionary',
    'message-not-an-object.json': 'message 2: Input should be a valid dictionary',
    'missing-message-kind.json': "message 2: expected an object with a 'kind' field",
    'missing-parts.json': 'message 2: parts: Field required',
    'part-missing-part-kind.json': "message 2: parts.0: expected an object with a 'part_kind' field",
    'part-not-an-object.json': "message 2: parts.0: expected an object with a 'part_kind' field",
    'parts-not-a-list.json': "message 2: parts: 'str' instances are not allowed",
    'plain-text.json': 'invalid JSON at line 1 column 1: Expecting value',
    'python-repr.json': 'message 0: invalid JSON at line 1 column 3: expected a property name in double quotes',
    'tool-call-args-a-number.json': 'message 1: parts.1.args',
    'tool-return-missing-tool-name.json': 'message 2: parts.0.tool_name: Field required',
    'top-level-null.json': 'expected a JSON list of messages, found NoneType',
    'top-level-number.json': 'expected a JSON list of messages, found int',
    'top-level-object.json': 'expected a JSON list of messages, found dict',
    'top-level-string.json': 'expected a JSON list of messages, found str',
    'trailing-comma.json': 'message 6: invalid JSON at line 221 column 1: Expecting value',
    'trailing-garbage.json': 'invalid JSON at line 222 column 1: extra data after the message list',
    'truncated-after-last-message.json': "message 5: invalid JSON at line 221 column 1: expected ']', found 'end of input'",
    'truncated.json': 'message 3: invalid JSON at line 114 column 9: Unterminated string starting',
    'two-documents.json': 'invalid JSON at line 221 column 2: extra data after the message list',
    'unknown-message-kind.json': "message 1: unknown kind 'event'",
    'unknown-part-kind.json': "message 2: parts.0: unknown part_kind 'video-clip'",
    'utf16.json': 'not UTF-8 text at line 1 (byte 0)',
    'whitespace-only.json': 'empty input',
}
"""Each corpus file that is bad input, and what its error line must say after the file name."""

INTEGRITY = {
    'integrity-return-without-call.json': [
        "tool call 'call_nobody_made': return without a call in the response before"
    ],
    'integrity-duplicate-call-ids.json': [
        "message 3: tool call 'call_0': duplicate call id in one response",
        "message 4: tool call 'call_0': answered more than once",
    ],
}
"""Corpus files with tool-call integrity problems: compacted, the problems reported as notes."""


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Report lines unwrapped, so each is found whole."""
    monkeypatch.setenv('COLUMNS', '1000')


def test_the_corpus_is_complete_and_every_file_has_an_expectation() -> None:
    names = {path.name for path in CORPUS.iterdir()}
    assert names == set(ERRORS) | set(INTEGRITY)
    assert len(names) >= 30


def assert_rejected(
    path: Path,
    expected: str,
    capsys: pytest.CaptureFixture[str],
    *,
    command: str = 'compact',
    extra: tuple[str, ...] | list[str] = (),
) -> None:
    """Exit 2, one line naming the file and the place, nothing new beside the input."""
    folder = path.parent
    before = sorted(item.name for item in folder.iterdir())
    code = main([command, str(path), *extra])
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f'summarizer: {path}: {expected}'), captured.err
    assert 'Traceback' not in captured.err and captured.out == ''
    assert sorted(item.name for item in folder.iterdir()) == before


@pytest.mark.parametrize('name', sorted(ERRORS))
def test_bad_input_is_one_clear_line_and_nothing_written(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / 'in' / name
    path.parent.mkdir()
    shutil.copy(CORPUS / name, path)
    assert_rejected(path, ERRORS[name], capsys)


@pytest.mark.parametrize('name', sorted(INTEGRITY))
def test_integrity_problems_are_compacted_and_reported(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    shutil.copy(CORPUS / name, path)
    assert main(['compact', str(path)]) == 0
    output = capsys.readouterr().out
    for problem in INTEGRITY[name]:
        assert problem in output and '(already in the input)' in output
    before = StoredHistory.parse(path.read_bytes())
    after = StoredHistory.parse(path.with_name(path.stem + '.compacted.json').read_bytes())
    check_rewrite(before, after)  # problems kept as they were, none introduced
    assert after.text != before.text


def nested_file(folder: Path, depth: int, *, inside_content: bool) -> Path:
    """A history whose first tool return holds a list nested `depth` deep (or, bare, just the nesting)."""
    path = folder / f'nested-{depth}.json'
    if not inside_content:
        path.write_text('[' * depth + ']' * depth)
        return path
    text = (CORPUS / 'integrity-return-without-call.json').read_text()
    marker = '"content": "log line 0'
    path.write_text(
        text.replace(marker, '"content": ' + '[' * depth + '"deep"' + ']' * depth + ', "x": "log line 0', 1)
    )
    return path


@pytest.mark.parametrize('inside_content', [False, True])
def test_ten_thousand_deep_nesting_is_rejected(
    inside_content: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = nested_file(tmp_path, 10_000, inside_content=inside_content)
    where = (
        'message 2: invalid JSON at line 83 column 20'
        if inside_content
        else 'message 0: invalid JSON at line 1 column 2'
    )
    assert_rejected(path, f'{where}: nested too deeply', capsys)


def test_content_nested_deeper_than_pydantic_serializes_is_kept_verbatim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = nested_file(tmp_path, 300, inside_content=True)
    assert main(['compact', str(path), '--keep-recent', '0']) == 0
    before = StoredHistory.parse(path.read_bytes())
    after = StoredHistory.parse(path.with_name(path.stem + '.compacted.json').read_bytes())
    check_rewrite(before, after)
    deep, other = (2, 0), (4, 0)  # the two tool returns: the deep one is never a candidate
    assert content_text(after, deep) == content_text(before, deep)
    assert content_text(after, other) != content_text(before, other)


def content_text(stored: StoredHistory, ref: tuple[int, int]) -> str:
    start, end = stored.spans[ref]
    return stored.text[start:end]


@pytest.mark.slow
def test_a_100_mb_content_is_not_sent_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads((CORPUS / 'integrity-return-without-call.json').read_text())
    line = 'log line: request id req-00001 from 10.1.2.3 took 77 ms and returned a payload\n'
    data[2]['parts'][0]['content'] = line * (100_000_000 // len(line))
    path = tmp_path / 'huge.json'
    path.write_text(json.dumps(data))
    assert main(['compact', str(path), '--keep-recent', '0']) == 1  # one content kept: reported, exit 1
    output = capsys.readouterr().out
    assert 'message 2 part 0' in output and 'over max_content_tokens' in output
    compacted = path.with_name('huge.compacted.json').read_bytes()
    before = StoredHistory.parse(path.read_bytes())
    after = StoredHistory.parse(compacted)
    check_rewrite(before, after)
    assert after.data[2]['parts'][0]['content'] == data[2]['parts'][0]['content']  # type: ignore[index]


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_rejected(tmp_path / 'absent.json', 'cannot read: No such file or directory', capsys)
    folder = tmp_path / 'a-folder.json'
    folder.mkdir()
    assert_rejected(folder, 'is a directory, expected a history file', capsys)
    # the unreadable file: test_an_unreadable_file_is_one_clear_line (run unprivileged, even by root)


def sqlite_store(path: Path) -> Path:
    """A SQLite database of one history in the batch command's default table."""
    with sqlite3.connect(path) as connection:
        connection.execute('CREATE TABLE conversations (id INTEGER PRIMARY KEY, messages TEXT)')
        history = (CORPUS / 'integrity-return-without-call.json').read_text()
        connection.execute('INSERT INTO conversations (messages) VALUES (?)', (history,))
    connection.close()
    return path


def test_a_locked_sqlite_database_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = sqlite_store(tmp_path / 'store.sqlite')
    before = database.read_bytes()
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute('BEGIN EXCLUSIVE')  # another program is writing
    try:
        assert_rejected(
            database, 'not a usable SQLite database: database is locked', capsys, command='batch', extra=['--in-place']
        )
    finally:
        holder.execute('ROLLBACK')
        holder.close()
    assert database.read_bytes() == before


# Permission cases: root reads and writes any file, so the command runs in a subprocess that cannot
# (as uid 65534 when that user can run this interpreter, else as root without the capabilities that
# bypass file permissions), on files in a folder of its own under /tmp (pytest's tmp_path may sit in
# a folder only root can enter).

NOBODY = 65534
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2
_PROBE = 'import sys, summarizer.cli\ntry:\n    open(sys.argv[1]).close()\nexcept PermissionError:\n    print("denied")'


def _drop_file_capabilities() -> None:
    """In the child before exec: once it execs, root keeps no capability to bypass file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), 'prctl(PR_CAPBSET_DROP)')


@functools.cache
def unprivileged() -> tuple[tuple[str, object], ...] | None:
    """`subprocess.run` options for a process file permissions apply to, or None where none is found.

    Each way is proven: the child imports the CLI and is refused a mode-0000 file.
    """
    if os.geteuid() != 0:
        ways: list[dict[str, object]] = [{}]
    else:
        ways = [{'user': NOBODY, 'group': NOBODY, 'extra_groups': []}]
        if sys.platform == 'linux':
            ways.append({'preexec_fn': _drop_file_capabilities})
    folder = Path(tempfile.mkdtemp(dir='/tmp', prefix='summarizer-probe-'))
    try:
        folder.chmod(0o755)
        locked = folder / 'locked'
        locked.write_text('secret')
        locked.chmod(0)
        for way in ways:
            try:
                probe = subprocess.run(  # type: ignore[call-overload]
                    [sys.executable, '-c', _PROBE, str(locked)],
                    cwd=folder,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                    **way,
                )
            except (OSError, subprocess.SubprocessError):
                continue  # e.g. uid 65534 cannot reach the interpreter (under /root)
            if probe.returncode == 0 and probe.stdout.strip() == 'denied':
                return tuple(way.items())
        return None
    finally:
        shutil.rmtree(folder)


@dataclass
class Sandbox:
    """A folder under /tmp where the unprivileged process has a home (and cache) and owns its inputs."""

    root: Path
    way: dict[str, object]

    def own(self, path: Path) -> Path:
        if 'user' in self.way:
            os.chown(path, NOBODY, NOBODY)
        return path

    def folder(self, name: str) -> Path:
        folder = self.root / name
        folder.mkdir(mode=0o755)
        return self.own(folder)

    def run(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        home = self.root / 'home'
        env = {
            **os.environ,
            'HOME': str(home),
            'SUMMARIZER_CACHE_DIR': str(home / 'cache'),
            'COLUMNS': '1000',
            'PYTHONDONTWRITEBYTECODE': '1',
        }
        return subprocess.run(  # type: ignore[call-overload,no-any-return]
            [sys.executable, '-m', 'summarizer.cli', *arguments],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            **self.way,
        )


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    way = unprivileged()
    if way is None:
        pytest.skip('running as root, and no way to run the command without bypassing file permissions')
    root = Path(tempfile.mkdtemp(dir='/tmp', prefix='summarizer-bad-input-'))
    try:
        root.chmod(0o755)
        box = Sandbox(root, dict(way))
        box.folder('home')
        yield box
    finally:
        shutil.rmtree(root)


def unprivileged_run(sandbox: Sandbox, path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Run the command (`arguments`); assert it left the bytes of `path` and its folder as they were."""
    folder = path.parent
    before, listing = path.read_bytes(), sorted(item.name for item in folder.iterdir())
    result = sandbox.run(*arguments)
    assert 'Traceback' not in result.stderr, result.stderr
    assert path.read_bytes() == before
    assert sorted(item.name for item in folder.iterdir()) == listing
    return result


def assert_one_clear_line(result: subprocess.CompletedProcess[str], path: Path, expected: str) -> None:
    """As `assert_rejected`: exit 2, one line naming the file, nothing on stdout."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith(f'summarizer: {path}: {expected}'), result.stderr
    assert result.stdout == ''


@pytest.mark.parametrize(
    'command',
    [('compact',), ('batch', '--in-place'), ('batch', '--out', 'OUT'), ('batch-folder', '--in-place')],
    ids=' '.join,
)
def test_an_unreadable_file_is_one_clear_line(command: tuple[str, ...], sandbox: Sandbox) -> None:
    inputs = sandbox.folder('in')
    locked = inputs / 'locked.json'
    shutil.copy(CORPUS / 'integrity-return-without-call.json', locked)
    sandbox.own(locked).chmod(0)
    name, *extra = command
    out = sandbox.folder('out')
    extra = [str(out) if item == 'OUT' else item for item in extra]
    if name == 'batch-folder':  # found in a folder rather than named
        result = unprivileged_run(sandbox, locked, 'batch', str(inputs), *extra)
    else:
        result = unprivileged_run(sandbox, locked, name, str(locked), *extra)
    assert_one_clear_line(result, locked, 'cannot read: Permission denied')
    assert not any(out.iterdir())


def read_only_store(sandbox: Sandbox) -> Path:
    """A SQLite database of one history, mode 0444, in a folder its user may write to (nothing stops a
    new file beside it but the command itself)."""
    database = sqlite_store(sandbox.folder('in') / 'store.sqlite')
    sandbox.own(database).chmod(0o444)
    return database


def test_a_read_only_sqlite_database_is_one_clear_line(sandbox: Sandbox) -> None:
    database = read_only_store(sandbox)
    result = unprivileged_run(sandbox, database, 'batch', str(database), '--in-place')
    assert_one_clear_line(result, database, 'read-only, cannot be compacted in place')


def test_a_read_only_file_or_folder_is_refused_before_any_summary(sandbox: Sandbox) -> None:
    inputs = sandbox.folder('in')
    history = sandbox.own(inputs / 'history.json')
    history.write_bytes((CORPUS / 'integrity-return-without-call.json').read_bytes())
    history.chmod(0o444)
    result = unprivileged_run(sandbox, history, 'batch', str(inputs), '--in-place')
    assert_one_clear_line(result, history, 'read-only, cannot be compacted in place')
    history.chmod(0o644)
    inputs.chmod(0o555)  # the file may be written, but not replaced atomically
    try:
        result = unprivileged_run(sandbox, history, 'batch', str(history), '--in-place')
    finally:
        inputs.chmod(0o755)
    assert_one_clear_line(result, history, 'its folder is read-only, cannot be compacted in place')


def test_a_read_only_database_can_still_be_compacted_elsewhere(sandbox: Sandbox) -> None:
    """Read-only is bad input only where the run would write: `--out` and `--dry-run` just read it."""
    database = read_only_store(sandbox)
    out = sandbox.folder('out')
    for extra in (['--dry-run'], ['--out', str(out)]):
        result = unprivileged_run(sandbox, database, 'batch', str(database), *extra)
        assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in out.iterdir()) == ['store.sqlite']
