"""What `summarizer` imports before it does any work: no pydantic-ai for `--version`, `--help` or bad input.

Importing pydantic-ai costs more than a second of CPU; a command line that only prints its version,
its help or a one-line error needs none of it. Each case runs the real command in a process of its
own under `python -X importtime`, which names every module the process imports (no timing is
asserted: the names are what a test can hold on any machine).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from summarizer.cli import SUBCOMMANDS

HEAVY = ('pydantic_ai', 'summarizer.pipeline', 'summarizer.engines', 'summarizer.capability', 'summarizer.eval')
"""The packages none of these command lines needs: pydantic-ai, and the summarizer's packages built on it."""


def imported(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `python -X importtime -m summarizer.cli ARGV`; the result and the modules it imported."""
    command = [sys.executable, '-X', 'importtime', '-m', 'summarizer.cli', *argv]
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False)
    modules = {line.rsplit('|', 1)[1].strip() for line in result.stderr.splitlines() if line.startswith('import time:')}
    assert 'summarizer.cli' in modules  # the report is read right
    return result, modules


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if any(name == top or name.startswith(top + '.') for top in HEAVY))


def lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if not line.startswith('import time:')]


@pytest.mark.parametrize('argv', [['--version'], ['--help'], *([name, '--help'] for name in SUBCOMMANDS)], ids=' '.join)
def test_version_and_help_import_no_pydantic_ai(argv: list[str], tmp_path: Path) -> None:
    result, modules = imported(argv, tmp_path)
    assert result.returncode == 0
    assert heavy(modules) == []


def test_errors_found_before_any_work_import_no_pydantic_ai(tmp_path: Path) -> None:
    """A missing file, a bad option, a config file that is not YAML: one line, exit 2, nothing heavy imported."""
    history = tmp_path / 'history.json'
    history.write_text('[]', encoding='utf-8')
    (tmp_path / 'bad.yaml').write_text('threshold_tokens: [1\n', encoding='utf-8')
    cases = {
        'missing.json: cannot read': ['compact', 'missing.json'],
        'a.json: cannot read': ['check', 'a.json', 'b.json'],
        'unrecognized arguments: --bogus': ['batch', 'history.json', '--dry-run', '--bogus'],
        'bad.yaml: ': ['compact', 'history.json', '--config', 'bad.yaml'],
        'config file not found': ['batch', 'history.json', '--dry-run', '--config', 'none.yaml'],
        'choose where results go': ['batch', 'history.json'],
    }
    for message, argv in cases.items():
        result, modules = imported(argv, tmp_path)
        assert result.returncode == 2, argv
        assert len(lines(result)) == 1 + ('unrecognized' in message), argv  # argparse prints its usage line too
        assert message in lines(result)[-1], argv
        assert heavy(modules) == [], argv


def test_a_run_that_works_imports_what_it_needs(tmp_path: Path) -> None:
    """The same check sees pydantic-ai once a command has real work: the cases above would see it too."""
    example = Path(__file__).parent.parent / 'examples' / 'research_history.json'
    result, modules = imported(['compact', str(example), '--dry-run'], tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert {'pydantic_ai', 'summarizer.pipeline'} <= set(heavy(modules))


FROZEN = """
import gc, json, sys
from summarizer.cli import command
sys.argv = ['summarizer', *sys.argv[1:]]
code = command()
from pydantic_ai.messages import ModelMessagesTypeAdapter
print(json.dumps([code, any(found is ModelMessagesTypeAdapter for found in gc.get_objects())]))
"""


def test_the_command_freezes_the_modules_its_subcommand_imports_late(tmp_path: Path) -> None:
    """pydantic-ai is imported once the input is known good, after the command line is parsed: frozen then too.

    In the command's own process its objects are out of the collector's reach (`gc.freeze`), so a long
    batch's full collections do not walk them (bench/README.md, section 6).
    """
    example = Path(__file__).parent.parent / 'examples' / 'research_history.json'
    command = [sys.executable, '-c', FROZEN, 'compact', str(example), '--dry-run']
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=True)
    assert json.loads(result.stdout.splitlines()[-1]) == [0, False]


RAY_WORKER = """
import json, sys
import summarizer.engines.ray
print(json.dumps(sorted(sys.modules)))
"""


def test_a_ray_worker_imports_only_the_engines_and_what_they_build_on(tmp_path: Path) -> None:
    """Ray ships the stages' functions by reference: a worker runs `import summarizer.engines.ray` first.

    That import must not bring the CLI, the eval or the capability (the agent plugin) into every
    worker process: none of them is a stage's business.
    """
    pytest.importorskip('ray')
    result = subprocess.run(
        [sys.executable, '-c', RAY_WORKER], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    modules = json.loads(result.stdout.splitlines()[-1])
    assert 'summarizer.pipeline' in modules  # what the stages run
    unneeded = ('summarizer.cli', 'summarizer.eval', 'summarizer.capability', 'summarizer.engines.postgres')
    assert [name for name in modules if name.startswith(unneeded)] == []
