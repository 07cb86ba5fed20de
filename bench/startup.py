"""Benchmark 8: the CPU time of `summarizer` command lines that do no work, against a bare interpreter.

`--version`, `--help`, a subcommand's `--help` and an error found before any work (a missing file)
each run as `python -m summarizer.cli ...` in a process of their own; the CPU time (user + system)
of each is the median of `repeat` runs, set beside `python -c pass` and `python -c 'import
pydantic_ai'` measured in the same run (what such a command line would cost if it imported
pydantic-ai), so the ratios hold on any machine.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from ._report import Section, Target

_BASELINE = 'python -c pass'
_PYDANTIC_AI = "python -c 'import pydantic_ai'"
_CASES: dict[str, list[str]] = {
    _BASELINE: ['-c', 'pass'],
    _PYDANTIC_AI: ['-c', 'import pydantic_ai'],
    'summarizer --version': ['-m', 'summarizer.cli', '--version'],
    'summarizer --help': ['-m', 'summarizer.cli', '--help'],
    'summarizer batch --help': ['-m', 'summarizer.cli', 'batch', '--help'],
    'summarizer compact MISSING (exit 2)': ['-m', 'summarizer.cli', 'compact', 'missing.json'],
}


def startup_section(*, repeat: int = 7) -> Section:
    section = Section(
        title='8. Start-up: CPU of command lines that do no work',
        columns=['command', 'CPU ms (median)', '× python -c pass', '× import pydantic_ai'],
    )
    with tempfile.TemporaryDirectory(prefix='bench-startup-') as scratch:
        cpu = {name: _median_cpu(argv, Path(scratch), repeat) for name, argv in _CASES.items()}
    for name, seconds in cpu.items():
        section.rows.append(
            {
                'command': name,
                'CPU ms (median)': 1000 * seconds,
                '× python -c pass': seconds / cpu[_BASELINE],
                '× import pydantic_ai': seconds / cpu[_PYDANTIC_AI],
            }
        )
    section.targets.append(
        Target(
            'summarizer --version, × the CPU of importing pydantic-ai',
            cpu['summarizer --version'] / cpu[_PYDANTIC_AI],
            0.25,
            'at most',
        )
    )
    section.notes.append(
        f'Each command line in a process of its own, median of {repeat} runs; CPU is user + system time '
        '(resource.getrusage of the children). None of these command lines imports pydantic-ai (tests/test_startup.py).'
    )
    return section


def _median_cpu(argv: list[str], cwd: Path, repeat: int) -> float:
    """Median user + system seconds of `python ARGV` over `repeat` runs."""
    runs: list[float] = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, *argv], cwd=cwd, env=os.environ.copy(), capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(runs)
