"""SIGKILL `summarizer batch` at 20 random points over JSON, JSONL and SQLite: nothing is ever half-written.

The batch runs as a real process of its own against a loopback OpenAI-compatible server that answers
each summary request after a short delay, so a run spends its time in discovery, model calls, file
writes and SQLite transactions, and a kill can land in any of them. Each process is forked from one that
imported the CLI once (tests/forked_cli.py): the same separate process in its own process group, with
its own files and SIGKILL, without the second of imports in which no file is touched. The kill points
come from a logged seed (`CRASH_SAFETY_SEED=N` replays the same choices; the timing itself is the
machine's): at a random moment after the start (during discovery, the first requests and writes), after
the N-th model request (between writes, inside a database transaction: `commit_every` is small), or
after the K-th finished source (right after its journal entry). The whole process group is killed,
workers of `--jobs 2` included. Runs alternate `--in-place` and `--out`, with and without `--resume`;
now and then the inputs are restored to their originals (with the summary cache kept or wiped) so that
later kills again meet unfinished work. Two such series run at once, 10 kills each, on their own copies,
servers and caches: a run mostly waits (on the model, on its writes), so two share 2 cores well.

After every kill:
- each JSON and JSONL file (inputs, and outputs under `--out`) is byte-identical to its original or
  to its fully compacted version (a JSONL file as a whole), and validates as histories;
- the database passes `PRAGMA integrity_check` as any reader sees it (a copy, with SQLite's hot
  journal, is opened, so the real one is left for the batch to recover), every row is its original
  or its compacted text and validates, and a LangChain session's rows are all old or all new;
- nothing else is there but SQLite's journal and hidden `.NAME.*.tmp` files of unfinished writes;
- the run made no model request for a content whose summary was already in the cache.

Then `--in-place --resume` and `--out --resume` complete with exit 0, every output is the fully
compacted version and passes `summarizer check`, no temporary file or journal is left, and neither
run asked the model for a content already summarized.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import diskcache
import pytest
from fake_openai import FakeOpenAI, fake_openai
from forked_cli import Forked
from helpers import BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows, make_conversations, make_message_store, rows

from summarizer.cli import main
from summarizer.core._write import _TEMPORARY
from summarizer.stored._langchain import Row, check_row
from summarizer.stored._stored import StoredHistory, check_rewrite

KILLS = 20
SECONDS_PER_ANSWER = 0.02
JSON_FILES = HISTORIES = 3
FINISHED_SOURCE = re.compile(r': [\d,]+ histor(y|ies), ')
"""The line `batch` prints (without a terminal) for each source it finished."""
"""Per kind: JSONL lines, conversation rows, LangChain sessions (each with two tool returns)."""
JSONL, DATABASE = 'log.jsonl', 'store.db'
TEXT = BIG_TEXT[:12_000]
"""About 3,000 tokens: over the threshold, and quick for the fake server to summarize."""


@dataclass(frozen=True)
class Corpus:
    """Each history's two allowed states, (original, fully compacted), and the summaries of its contents."""

    files: dict[str, tuple[bytes, bytes]]
    conversations: dict[str, tuple[str, str]]
    sessions: dict[str, tuple[list[str], list[str]]]
    summaries: frozenset[str]

    def write_originals(self, folder: Path) -> None:
        write_inputs(
            folder,
            {name: pair[0] for name, pair in self.files.items()},
            {key: pair[0] for key, pair in self.conversations.items()},
            {key: pair[0] for key, pair in self.sessions.items()},
        )


@dataclass
class Seen:
    """What one look at a tree found (for the log of kill points)."""

    compacted: int = 0
    temporaries: list[str] = field(default_factory=list[str])
    hot_journal: bool = False


def originals() -> tuple[dict[str, bytes], dict[str, str], dict[str, list[str]]]:
    """JSON files, a JSONL file (with a blank line and an unchanged small history), rows and sessions."""
    files = {
        f'h{index}.json': ModelMessagesTypeAdapter.dump_json(
            history(*(f'json {index} return {call}\n{TEXT}' for call in range(1 + index % 2)))
        )
        for index in range(JSON_FILES)
    }
    lines = [ModelMessagesTypeAdapter.dump_json(history(f'jsonl {index}\n{TEXT}')) for index in range(HISTORIES)]
    lines.insert(2, ModelMessagesTypeAdapter.dump_json(history('small')) + b'\n')
    files[JSONL] = b'\n'.join(lines) + b'\n'
    conversations = {
        f'r{index}': ModelMessagesTypeAdapter.dump_json(history(f'row {index}\n{TEXT}')).decode()
        for index in range(HISTORIES)
    }
    sessions = {f's{index}': two_returns(f's{index}') for index in range(HISTORIES)}
    return files, conversations, sessions


def two_returns(session: str) -> list[str]:
    """A LangChain session with two tool rows (they must change in one transaction)."""
    first = langchain_rows(session, f'{session} first\n{TEXT}')
    second = langchain_rows(f'{session}-again', f'{session} second\n{TEXT}')
    return first[:3] + second[1:]


def write_inputs(
    folder: Path, files: dict[str, bytes], conversations: dict[str, str], sessions: dict[str, list[str]]
) -> None:
    """A fresh folder of the corpus: the files, and the database with both tables."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    make_conversations(folder / DATABASE, {key: text.encode() for key, text in conversations.items()})
    make_message_store(folder / DATABASE, sessions)


def database_state(path: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    conversations = {str(key): str(text) for key, text in rows(path, 'SELECT id, messages FROM conversations')}
    sessions: dict[str, list[str]] = {}
    for session, text in rows(path, 'SELECT session_id, message FROM message_store ORDER BY session_id, id'):
        sessions.setdefault(str(session), []).append(str(text))
    return conversations, sessions


def config(path: Path, server: FakeOpenAI, *, cache: bool = True) -> Path:
    path.write_text(
        f'model: fake\nbase_url: {server.base_url}\nmax_retries: 0\nconcurrency: 2\nkeep_recent: 0\n'
        f'cache:\n  enabled: {str(cache).lower()}\nbatch:\n  histories_in_flight: 4\n  commit_every: 2\n'
    )
    return path


def look(root: Path, corpus: Corpus, scratch: Path, *, partial: bool) -> Seen:
    """Assert every invariant of one tree; `partial`: outputs of an unfinished `--out` may be missing."""
    seen = Seen()
    names = set(corpus.files) | {DATABASE}
    for path in sorted(root.iterdir()) if root.exists() else []:
        match = _TEMPORARY.fullmatch(path.name)
        if match and match['name'] in names:
            seen.temporaries.append(path.name)
        elif path.name == f'{DATABASE}-journal':
            seen.hot_journal = True
        else:
            assert path.name in names, f'{path}: unexpected file'
    for name, (original, compacted) in corpus.files.items():
        if partial and not (root / name).exists():
            continue
        data = (root / name).read_bytes()
        assert data in (original, compacted), f'{root / name}: neither the original nor the compacted version'
        seen.compacted += data == compacted != original
        for line in data.splitlines():
            if line.strip():
                ModelMessagesTypeAdapter.validate_json(line)
    if not (root / DATABASE).exists():
        assert partial, f'{root / DATABASE} is missing'
        return seen
    reader = scratch / DATABASE  # a copy with the hot journal: recovered as any reader would, the real one untouched
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    shutil.copy(root / DATABASE, reader)
    if seen.hot_journal:
        shutil.copy(root / f'{DATABASE}-journal', scratch / f'{DATABASE}-journal')
    assert rows(reader, 'PRAGMA integrity_check') == [('ok',)], f'{root / DATABASE}: integrity check failed'
    conversations, sessions = database_state(reader)
    assert conversations.keys() == corpus.conversations.keys() and sessions.keys() == corpus.sessions.keys()
    for key, text in conversations.items():
        assert text in corpus.conversations[key], f'{root / DATABASE} row {key}: neither original nor compacted'
        seen.compacted += text == corpus.conversations[key][1]
        ModelMessagesTypeAdapter.validate_json(text)
    for session, texts in sessions.items():
        assert texts in corpus.sessions[session], f'{root / DATABASE} session {session}: a mixture of old and new rows'
        seen.compacted += texts == corpus.sessions[session][1]
        for text in texts:
            Row.parse(text)
    return seen


def assert_compacted(root: Path, corpus: Corpus, scratch: Path, originals: Path) -> None:
    """A finished tree: every output compacted, passing `summarizer check`, no temporary file or journal."""
    seen = look(root, corpus, scratch, partial=False)
    assert seen.compacted == len(corpus.files) + len(corpus.conversations) + len(corpus.sessions)
    assert not seen.temporaries and not seen.hot_journal, f'{root}: left behind: {seen}'
    for name in corpus.files:
        if name.endswith('.json'):
            assert main(['check', str(originals / name), str(root / name)]) == 0
    for original, compacted in zip(corpus.files[JSONL][0].splitlines(), (root / JSONL).read_bytes().splitlines()):
        if original != compacted:
            check_rewrite(StoredHistory.parse(original), StoredHistory.parse(compacted))
    conversations, sessions = database_state(root / DATABASE)
    for key, text in conversations.items():
        check_rewrite(StoredHistory.parse(corpus.conversations[key][0]), StoredHistory.parse(text))
    for session, texts in sessions.items():
        for original, text in zip(corpus.sessions[session][0], texts):
            if original != text:
                check_row(Row.parse(original), Row.parse(text))


def cached_summaries(directory: Path) -> set[str]:
    """The summaries in the disk cache (all are texts here: every content is a string)."""
    if not directory.exists():
        return set()
    with diskcache.Cache(str(directory)) as cache:
        return {str(json.loads(cache[key])) for key in cache}


@dataclass(frozen=True)
class KillPoint:
    """Kill once `requests` model requests were made and `sources` sources finished, `delay` seconds later."""

    requests: int = 0
    sources: int = 0
    delay: float = 0.0

    @classmethod
    def draw(cls, rng: random.Random, *, requests_left: int) -> KillPoint:
        anchor = rng.choice(('start', 'requests', 'sources') if requests_left else ('start', 'sources'))
        if anchor == 'start':  # discovery, the first requests and writes (a whole run takes ~0.5 s)
            return cls(delay=rng.uniform(0.02, 0.6))
        if anchor == 'requests':  # between and during writes, inside a database transaction
            return cls(requests=rng.randint(1, requests_left), delay=rng.uniform(0, 2 * SECONDS_PER_ANSWER))
        return cls(sources=rng.randint(1, 3), delay=rng.uniform(0, 0.05))  # right after a journal entry


@contextmanager
def running(argv: list[str], env: dict[str, str]) -> Iterator[Forked]:
    """`summarizer ARGV` as a process of its own group and session (killed with it at the end), forked from one
    that imported the CLI once (tests/forked_cli.py: the same process, files and signals, ~1 s of imports less)."""
    process = Forked(argv, env)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill_group()
        process.close()


class Stream:
    """A series of killed runs over one copy of the corpus, with its own server, summary cache and journals."""

    def __init__(self, root: Path, *, corpus: Corpus, server: FakeOpenAI, rng: random.Random) -> None:
        root.mkdir()
        self.inputs, self.out, self.cache, self.scratch = (root / name for name in ('in', 'out', 'cache', 'scratch'))
        self.corpus, self.server, self.rng = corpus, server, rng
        server.delay = SECONDS_PER_ANSWER
        self.command = ['batch', str(self.inputs)]
        self.command += ['--config', str(config(root / 'config.yaml', server))]
        self.env = {**os.environ, 'SUMMARIZER_CACHE_DIR': str(self.cache)}
        self.originals = root / 'originals'
        self.log: list[str] = []
        self.started = time.monotonic()
        corpus.write_originals(self.originals)
        corpus.write_originals(self.inputs)

    def run(self, kills: int) -> None:
        """`kills` killed runs, then `--in-place --resume` and `--out --resume` to their end, and the final checks."""
        out = str(self.out)
        modes = (['--in-place'], ['--in-place', '--resume'], ['--out', out], ['--out', out, '--resume'])
        try:
            while kills:
                arguments = self.rng.choice(modes) + (['--jobs', '2'] if self.rng.random() < 0.1 else [])
                killed = self.step(arguments, kill=True)
                kills -= killed
                if not killed or self.rng.random() < 0.2:  # unfinished work again for the next kills
                    self.corpus.write_originals(self.inputs)
                    shutil.rmtree(self.out, ignore_errors=True)
                    wipe = self.rng.random() < 0.5
                    if wipe:
                        shutil.rmtree(self.cache, ignore_errors=True)
                    self.log.append(f'-- inputs restored, cache {"wiped" if wipe else "kept"}')
            for arguments in (['--in-place', '--resume'], ['--out', out, '--resume']):
                self.step(arguments, kill=False)
            for root in (self.inputs, self.out):
                assert_compacted(root, self.corpus, self.scratch, self.originals)
            # the check of repeated requests is sound: the cache holds the very summaries the server gave
            assert self.corpus.summaries <= cached_summaries(self.cache)
        except AssertionError as exc:
            raise AssertionError('\n'.join([*self.log, f'FAILED: {exc}'])) from exc

    def step(self, arguments: list[str], *, kill: bool) -> bool:
        """One run, killed at a random point (or to its end), then every check; whether it was killed."""
        before = cached_summaries(self.cache)
        point = KillPoint.draw(self.rng, requests_left=len(self.corpus.summaries - before)) if kill else None
        first_request = len(self.server.answered)
        with running([*self.command, *arguments], self.env) as process:
            deadline = time.monotonic() + 60
            while (
                point is not None
                and process.poll() is None
                and (
                    len(self.server.answered) - first_request < point.requests
                    or sum(FINISHED_SOURCE.search(line) is not None for line in process.stderr_lines()) < point.sources
                )
            ):
                assert time.monotonic() < deadline, 'the batch neither finished nor reached its kill point'
                time.sleep(0.005)
            if point is None:
                process.wait(timeout=120)
            else:
                time.sleep(point.delay)
        assert process.returncode in (0, -signal.SIGKILL), f'exit {process.returncode}: {process.stderr()}'
        asked = self.server.answered[first_request:]
        answers = self.server.summaries  # (a request cut by the kill may have none yet: it was never answered)
        repeated = [content[:20] for content in asked if answers.get(content, '').strip() in before]
        assert not repeated, f'asked the model again for contents already cached: {repeated}'
        seen = [look(root, self.corpus, self.scratch, partial=root == self.out) for root in (self.inputs, self.out)]
        mode = ' '.join(argument for argument in arguments if argument != str(self.out))
        killed = process.returncode != 0
        self.log.append(
            f'{time.monotonic() - self.started:5.1f}s {mode} {point}: {"killed" if killed else "finished"} after '
            f'{len(asked)} requests; in {seen[0]}; out {seen[1]}'
        )
        return killed


@pytest.mark.slow
def test_sigkill_at_random_points_leaves_every_history_old_or_new_and_a_rerun_completes(tmp_path: Path) -> None:
    seed = int(os.environ.get('CRASH_SAFETY_SEED') or random.SystemRandom().randrange(2**32))
    files, conversations, sessions = originals()
    write_inputs(tmp_path / 'originals', files, conversations, sessions)
    reference = tmp_path / 'reference'
    with fake_openai() as first, fake_openai() as second:
        without_cache = str(config(tmp_path / 'reference.yaml', first, cache=False))
        assert main(['batch', str(tmp_path / 'originals'), '--out', str(reference), '--config', without_cache]) == 0
        compacted_rows, compacted_sessions = database_state(reference / DATABASE)
        corpus = Corpus(
            files={name: (data, (reference / name).read_bytes()) for name, data in files.items()},
            conversations={key: (text, compacted_rows[key]) for key, text in conversations.items()},
            sessions={key: (texts, compacted_sessions[key]) for key, texts in sessions.items()},
            summaries=frozenset(summary.strip() for summary in first.summaries.values()),
        )
        assert all(original != compacted for original, compacted in corpus.files.values())
        streams = [
            Stream(tmp_path / f'stream{index}', corpus=corpus, server=server, rng=random.Random(f'{seed}/{index}'))
            for index, server in enumerate((first, second))
        ]
        with ThreadPoolExecutor(len(streams)) as pool:
            try:
                for done in [pool.submit(stream.run, KILLS // len(streams)) for stream in streams]:
                    done.result()
            except AssertionError as exc:
                raise AssertionError(f'CRASH_SAFETY_SEED={seed}\n{exc}') from exc
    print(f'CRASH_SAFETY_SEED={seed}', *(line for stream in streams for line in stream.log), sep='\n')


KILLED_WRITER = """
import os, signal, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute('PRAGMA cache_size = 1')  # changed pages spill into the database file before the commit
connection.execute('BEGIN IMMEDIATE')
connection.execute("UPDATE conversations SET messages = 'half-written'")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_database_left_mid_transaction_by_a_killed_writer_is_rolled_back_and_compacted(tmp_path: Path) -> None:
    """A hot journal makes read-only connections refuse the database: the batch must roll it back first."""
    original = ModelMessagesTypeAdapter.dump_json(history(f'row\n{TEXT}')).decode()
    database = tmp_path / DATABASE
    make_conversations(database, {key: original.encode() for key in ('a', 'b')})
    subprocess.run([sys.executable, '-c', KILLED_WRITER, str(database)], check=False)
    assert (tmp_path / f'{DATABASE}-journal').stat().st_size > 0

    assert main(['batch', str(database), '--dry-run', '--keep-recent', '0']) == 0
    assert main(['batch', str(database), '--out', str(tmp_path / 'out'), '--keep-recent', '0']) == 0

    for root in (tmp_path, tmp_path / 'out'):
        assert rows(root / DATABASE, 'PRAGMA integrity_check') == [('ok',)]
        for key, text in rows(root / DATABASE, 'SELECT id, messages FROM conversations'):
            if root == tmp_path:
                assert text == original, f'row {key} is not rolled back'
            else:
                check_rewrite(StoredHistory.parse(original), StoredHistory.parse(str(text)))


KILLED_COMMITTER = """
import os, signal, sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute('PRAGMA cache_size = 1')  # changed pages spill into the database file before the commit
connection.execute('PRAGMA wal_autocheckpoint = 0')  # in WAL mode, committed pages stay in the `-wal` file
connection.execute('BEGIN IMMEDIATE')
connection.execute("UPDATE conversations SET messages = hex(randomblob(5000))")
if sys.argv[2] == 'commit':
    connection.execute('COMMIT')
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize('journal', ['delete', 'wal'])
@pytest.mark.parametrize('copy', ['out', 'backup'])
def test_a_copy_replacing_a_database_a_killed_writer_left_is_not_mixed_with_its_journal(
    tmp_path: Path, journal: str, copy: str
) -> None:
    """A `-journal` or `-wal` file left by a writer killed in an earlier `--out` copy (or `.bak`) belongs to
    that file: SQLite would replay it onto the new copy renamed over it, and corrupt it."""
    originals = {f'r{index}': ModelMessagesTypeAdapter.dump_json(history(f'row {index}\n{TEXT}')) for index in range(3)}
    database = tmp_path / DATABASE
    make_conversations(database, originals)
    rows(database, f'PRAGMA journal_mode = {journal}')
    command = ['batch', str(database), '--keep-recent', '0']
    command += ['--out', str(tmp_path / 'out')] if copy == 'out' else ['--in-place', '--backup']
    copied = tmp_path / 'out' / DATABASE if copy == 'out' else tmp_path / f'{DATABASE}.bak'
    assert main(command) == 0
    # a writer killed mid-transaction leaves a hot journal; in WAL mode, one killed after its commit a `-wal`
    stage = 'commit' if journal == 'wal' else 'write'
    subprocess.run([sys.executable, '-c', KILLED_COMMITTER, str(copied), stage], check=False)
    left = copied.with_name(f'{copied.name}-{"wal" if journal == "wal" else "journal"}')
    assert left.stat().st_size > 0
    if copy == 'backup':  # the input is the original again, to be compacted and backed up anew
        for sidecar in tmp_path.glob(f'{DATABASE}-*'):
            sidecar.unlink()
        database.unlink()
        make_conversations(database, originals)

    assert main(command) == 0

    assert rows(copied, 'PRAGMA integrity_check') == [('ok',)]
    found = dict(rows(copied, 'SELECT id, messages FROM conversations'))
    assert sorted(found) == sorted(originals)
    for key, text in found.items():
        if copy == 'backup':
            assert text == originals[str(key)].decode()
        else:
            check_rewrite(StoredHistory.parse(originals[str(key)]), StoredHistory.parse(str(text)))


def test_a_copy_is_not_mixed_with_the_wal_of_an_output_that_was_deleted(tmp_path: Path) -> None:
    """A `-wal` outlives its database when a user deletes a killed run's output: it must not join the new copy."""
    originals = {f'r{index}': ModelMessagesTypeAdapter.dump_json(history(f'row {index}\n{TEXT}')) for index in range(3)}
    database = tmp_path / DATABASE
    make_conversations(database, originals)
    rows(database, 'PRAGMA journal_mode = wal')
    command = ['batch', str(database), '--keep-recent', '0', '--out', str(tmp_path / 'out')]
    copied = tmp_path / 'out' / DATABASE
    assert main(command) == 0
    subprocess.run([sys.executable, '-c', KILLED_COMMITTER, str(copied), 'commit'], check=False)
    copied.unlink()
    assert copied.with_name(f'{DATABASE}-wal').stat().st_size > 0

    assert main(command) == 0

    assert rows(copied, 'PRAGMA integrity_check') == [('ok',)]
    for key, text in rows(copied, 'SELECT id, messages FROM conversations'):
        check_rewrite(StoredHistory.parse(originals[str(key)]), StoredHistory.parse(str(text)))


KILLED_AFTER_TWO_WRITES = """
import os, signal, sys
from summarizer.engines import _sources
from summarizer.cli import main
write = _sources.SqliteSource.write
written = []
def write_then_die(self, done):
    write(self, done)
    written.append(done)
    if len(written) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
_sources.SqliteSource.write = write_then_die
main(sys.argv[1:])
"""


def test_a_rerun_of_a_killed_in_place_backup_run_keeps_the_original_database_as_backup(tmp_path: Path) -> None:
    """With `--backup`, a database is one transaction: no part-compacted state for the rerun to back up."""
    originals = {f'r{index}': ModelMessagesTypeAdapter.dump_json(history(f'row {index}\n{TEXT}')) for index in range(3)}
    database = tmp_path / DATABASE
    make_conversations(database, originals)
    settings = tmp_path / 'config.yaml'
    settings.write_text('keep_recent: 0\nbatch:\n  commit_every: 1\n')
    command = ['batch', str(database), '--in-place', '--backup', '--config', str(settings)]
    killed = subprocess.run([sys.executable, '-c', KILLED_AFTER_TWO_WRITES, *command], check=False)
    assert killed.returncode == -signal.SIGKILL
    saved = tmp_path / f'{DATABASE}.bak'
    expected = sorted((key, data.decode()) for key, data in originals.items())

    assert main(command) == 0

    assert rows(saved, 'SELECT id, messages FROM conversations ORDER BY id') == expected
    for key, text in rows(database, 'SELECT id, messages FROM conversations'):
        check_rewrite(StoredHistory.parse(originals[str(key)]), StoredHistory.parse(str(text)))


def children(pid: int) -> set[int]:
    """Live child processes of `pid` (Linux /proc)."""
    found: set[int] = set()
    for task in Path(f'/proc/{pid}/task').iterdir():
        found.update(int(child) for child in (task / 'children').read_text().split())
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != 'Z'  # a zombie has ended; only its exit status waits for a reaper


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='reads /proc and relies on PR_SET_PDEATHSIG')
@pytest.mark.slow
def test_workers_stop_when_the_batch_process_alone_is_killed(tmp_path: Path) -> None:
    """`--jobs 2` workers must not summarize on for a batch that is gone (and bill model calls for it)."""
    for index in range(6):
        (tmp_path / f'h{index}.json').write_bytes(ModelMessagesTypeAdapter.dump_json(history(f'{index}\n{TEXT}')))
    with fake_openai() as server:
        server.delay = 0.5  # the workers are mid-way through their share when the parent dies
        command = ['batch', str(tmp_path), '--in-place', '--jobs', '2']
        command += ['--config', str(config(tmp_path / 'config.yaml', server, cache=False))]
        with running(command, dict(os.environ)) as process:
            deadline = time.monotonic() + 60
            while not server.answered:
                assert process.poll() is None and time.monotonic() < deadline, 'the batch never asked the model'
                time.sleep(0.01)
            workers = children(process.pid)
            assert len(workers) >= 2
            process.kill()  # the parent alone, not its process group
            process.wait()
            deadline = time.monotonic() + 10
            while any(alive(worker) for worker in workers) and time.monotonic() < deadline:
                time.sleep(0.05)
            survivors = [worker for worker in workers if alive(worker)]
            for worker in survivors:
                os.kill(worker, signal.SIGKILL)
        assert not survivors, f'workers {survivors} outlived the batch'
        answered = len(server.answered)
        time.sleep(1)
        assert len(server.answered) <= answered + 2  # at most the requests already in flight get answered
