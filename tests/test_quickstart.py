"""The README's first command works with the base install: no import of what only an extra (or a test tool) brings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
NOT_INSTALLED = ('httpx', 'anthropic', 'google', 'psycopg', 'ray', 'llama_cpp', 'matplotlib', 'pytest')
"""Modules `pip install .` does not bring (the extras', and the legacy `httpx` that pydantic-ai's `httpx2` replaced)."""
_BLOCKER = """
import importlib.abc, runpy, sys

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ModuleNotFoundError(f'No module named {{name!r}}')
        return None

sys.meta_path.insert(0, Missing())
sys.argv = ['summarizer', 'compact', {example!r}, '-o', {output!r}]
runpy.run_module('summarizer.cli', run_name='__main__')
"""


def test_compacting_the_example_needs_no_extra(tmp_path: Path) -> None:
    output = tmp_path / 'compacted.json'
    script = _BLOCKER.format(
        blocked=NOT_INSTALLED, example=str(ROOT / 'examples' / 'research_history.json'), output=str(output)
    )
    run = subprocess.run(
        [sys.executable, '-c', script], capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert 'saved' in run.stdout + run.stderr
    assert isinstance(json.loads(output.read_text(encoding='utf-8')), list)
