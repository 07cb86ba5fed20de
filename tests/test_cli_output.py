"""What the commands print: one record per line, never hard-wrapped, readable at 80 columns, counts alike."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from summarizer.cli import main
from summarizer.cli.batch import _Progress  # pyright: ignore[reportPrivateUsage]
from summarizer.core import count
from summarizer.engines._runner import Tick


@pytest.fixture
def deep_file(old_schema_file: Path, tmp_path: Path) -> Path:
    """The history under a path far longer than 80 columns, with a bracket rich markup would eat."""
    folder = tmp_path / 'a-rather-long-folder-name-for-histories-of-the-threat-intel-agent' / 'run[2025-06-26]'
    folder.mkdir(parents=True)
    return old_schema_file.rename(folder / 'history-of-an-agent-run-with-a-long-name.json')


@pytest.fixture
def failing_config(tmp_path: Path) -> Path:
    """Two returns over the threshold, one of them over max_content_tokens: it keeps its original."""
    path = tmp_path / 'config.yaml'
    path.write_text('threshold_tokens: 500\nmax_content_tokens: 2000\nkeep_recent: 0\n', encoding='utf-8')
    return path


def run_cli(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, '-m', 'summarizer.cli', *argv],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )


@pytest.mark.parametrize('terminal', [False, True], ids=['pipe', 'terminal-80'])
def test_compact_prints_whole_lines_at_80_columns(
    deep_file: Path,
    failing_config: Path,
    terminal: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Through a real pipe in a process of its own; as a terminal 80 columns wide in this one (rich's TTY_COMPATIBLE)."""
    target = deep_file.with_name('compacted-output-of-the-agent-run-with-a-long-name.json')
    argv = ['compact', str(deep_file), '-o', str(target), '--config', str(failing_config)]
    env = {'COLUMNS': '80', 'NO_COLOR': '1', 'TTY_COMPATIBLE': '1' if terminal else '0'}
    if terminal:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        code, stdout = main(argv), capsys.readouterr().out
    else:
        result = run_cli(*argv, **env)
        code, stdout = result.returncode, result.stdout
    assert code == 1, stdout  # one return kept its original
    assert ('\x1b[1m' in stdout) is terminal  # rich took it for a terminal (bold labels) or not
    lines = re.sub(r'\x1b\[[0-9;]*m', '', stdout).splitlines()  # a terminal's bold
    assert lines[0] == f'{deep_file}: written to {target}', stdout
    table = [line for line in lines if line[:1] in '┌│└']
    assert len(table) == 11 and all(len(line) <= 80 for line in table), stdout
    assert re.fullmatch(r'│ summarized +│ +1 │', table[3]), table
    kept, note = lines[1 + len(table) :]
    assert kept == (
        f'kept original {deep_file}: message 2 part 0 (deep_research, tool_0_deep_research): '
        '6,349 tokens, over max_content_tokens (2,000): not sent'
    )
    assert note.startswith(f'note {deep_file}: message 2: ') and note.endswith('(already in the input)')


def test_batch_lines_say_1_history_and_1_source(
    deep_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(['batch', str(deep_file), '--out', str(tmp_path / 'out'), '--keep-recent', '0']) == 0
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith(str(deep_file))]
    assert re.fullmatch(
        re.escape(f'{deep_file}: 1 history, 1 changed, 0 failed, 2 returns summarized, ') + r'\d,\d{3} tokens saved',
        line,
    ), line
    assert 'batch: 1 source' in err
    # A count of one is singular; a rate such as "22.1 histories/s" is not a count.
    assert not re.search(r'(?<![\d.,])1 (sources|histories)\b(?!/s)', err), err


def test_count_is_singular_for_one_and_grouped_in_thousands() -> None:
    assert [count(n, 'history', 'histories') for n in (0, 1, 2, 12345)] == [
        '0 histories',
        '1 history',
        '2 histories',
        '12,345 histories',
    ]
    assert count(1, 'token') == '1 token' and count(1000, 'token') == '1,000 tokens'


def test_batch_progress_at_80_columns_keeps_its_bar_and_clock() -> None:
    output = io.StringIO()
    terminal = Console(file=output, force_terminal=True, width=80, color_system=None)
    progress = _Progress(terminal, total=1_000_000)
    for _ in range(1234):
        progress.tick(Tick(characters=400, summarized=7, tokens_saved=98765))
    assert progress._bar is not None  # pyright: ignore[reportPrivateUsage]
    terminal.print(progress._bar.get_renderable())  # pyright: ignore[reportPrivateUsage]
    (line,) = output.getvalue().splitlines()
    assert len(line) <= 80
    bar = re.match(r'batch ([━╸╺ ]{20}) \S', line)  # the whole bar, not 2-3 cells (half done: 9-10 of 20 drawn)
    assert bar and 9 <= bar[1].count('━') <= 10, line
    assert re.search(r'\d:\d\d:\d\d ETA (\d:\d\d:\d\d|-:--:--)$', line), line  # elapsed and ETA whole
    assert '1,234 histories' in line  # the counts give way, not the bar


def test_verbose_batch_logs_above_the_progress_bar(old_schema_file: Path) -> None:
    """Each log line clears the bar's line first and starts a line of its own, never glued to the bar."""
    env = {'TTY_COMPATIBLE': '1', 'COLUMNS': '80', 'NO_COLOR': '1'}
    result = run_cli('batch', str(old_schema_file.parent), '--dry-run', '--keep-recent', '0', '-v', **env)
    assert result.returncode == 0, result.stderr
    logged = [line.split('\r')[-1] for line in result.stderr.split('\n') if 'INFO ' in line]
    assert len(logged) == 2, result.stderr
    assert all(line.startswith('\x1b[2KINFO summarized ') for line in logged), logged


def test_verbose_batch_with_worker_processes_logs_what_each_worker_summarized(old_schema_file: Path) -> None:
    """`-v` reaches the `--jobs` workers: each source's summaries are logged once, by the parent."""
    folder = old_schema_file.parent / 'histories'  # not the folder the cache lives in
    folder.mkdir()
    for name in ('first.json', 'second.json'):
        shutil.copy(old_schema_file, folder / name)
    result = run_cli('batch', str(folder), '--dry-run', '--keep-recent', '0', '--jobs', '2', '-v')
    assert result.returncode == 0, result.stderr
    logged = [line for line in result.stderr.splitlines() if line.startswith('INFO summarized ')]
    assert len(logged) == 4, result.stderr  # two returns in each of the two sources, each worker its own
    quiet = run_cli('batch', str(folder), '--dry-run', '--keep-recent', '0', '--jobs', '2')
    assert quiet.returncode == 0, quiet.stderr
    assert 'INFO' not in quiet.stderr
