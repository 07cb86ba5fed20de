"""golden/make_histories.py: the committed coding sessions are what it draws, and the code their edits write parses.

The eval's figures on golden/ (docs/eval.md) are figures of the generator's output, so the histories must be its
output as committed; and the generated sessions are meant to read as an agent's work, so an edit never leaves a
module that parsed unable to parse, and every regression test it writes is Python.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter

GOLDEN = Path(__file__).resolve().parent.parent / 'golden'
SESSIONS = 32
"""golden/ 32-75: the coding sessions (01-31 are kept as they were written; see `make_histories.main`)."""


@pytest.fixture(scope='module')
def drawn() -> Iterator[tuple[dict[str, bytes], list[Any]]]:
    """Every coding session's history as the generator writes it, and each session's `CodingSession` (its files before
    and after its edits)."""
    spec = importlib.util.spec_from_file_location('golden_make_histories', GOLDEN / 'make_histories.py')
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generator
    try:
        spec.loader.exec_module(generator)
        sessions: list[Any] = []
        original = generator.CodingSession.__init__

        def recording(self: Any, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            sessions.append(self)

        generator.CodingSession.__init__ = recording
        written = {}
        for name, make in generator.SCENARIOS:
            if int(name[:2]) >= SESSIONS:
                conv = make()
                written[name] = conv.dump(getattr(conv, 'indent', 2))
        yield written, sessions
    finally:
        del sys.modules[spec.name]


@pytest.mark.slow
def test_the_committed_sessions_are_the_generators_output(
    drawn: tuple[dict[str, bytes], list[Any]],
) -> None:
    """Compared as pydantic-ai messages, not bytes: a newer pydantic-ai may write fields of its own into what the
    generator dumps (see `make_histories.main`), which changes no message."""
    written, _ = drawn
    committed = {path.stem: path.read_bytes() for path in (GOLDEN / 'histories').glob('*.json')}
    assert len(written) >= 40
    for name, raw in written.items():
        assert name in committed, f'golden/histories/{name}.json is missing'
        assert ModelMessagesTypeAdapter.validate_json(committed[name]) == ModelMessagesTypeAdapter.validate_json(raw), (
            f'golden/histories/{name}.json is not what golden/make_histories.py writes: run '
            '`PYTHONPATH=. python golden/make_histories.py --from 32`, then `summarizer eval --update-golden`'
        )


def changed_modules(sessions: list[Any]) -> Iterator[tuple[str, str | None, str]]:
    """Each Python file a session changed: its path, its text before the session (None for a new file) and after."""
    for session in sessions:
        for path, after in session.files.items():
            before = session.base.get(path)
            if path.endswith('.py') and before != after:
                yield path, before, after


@pytest.mark.slow
def test_edits_leave_every_module_that_parsed_parsing(drawn: tuple[dict[str, bytes], list[Any]]) -> None:
    _, sessions = drawn
    edited = 0
    for path, before, after in changed_modules(sessions):
        edited += 1
        if before is not None:
            try:
                ast.parse(before)
            except SyntaxError:
                continue  # nothing to keep (none of the generated modules is such)
        ast.parse(after, filename=path)  # a SyntaxError names the file and line
    assert edited >= 100


@pytest.mark.slow
def test_regression_tests_check_something(drawn: tuple[dict[str, bytes], list[Any]]) -> None:
    _, sessions = drawn
    tests = 0
    for path, before, after in changed_modules(sessions):
        if not path.startswith('tests/'):
            continue
        added = after[len(before or '') :]
        for function in ast.walk(ast.parse(after, filename=path)):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) or not function.name.startswith(
                'test_'
            ):
                continue
            if f'def {function.name}(' in added:
                tests += 1
                source = ast.unparse(function)
                assert 'is None or limit >= 0' not in source, f'{path}: {function.name} asserts nothing'
                assert re.search(r'\bassert\b|pytest\.raises', source), f'{path}: {function.name} checks nothing'
    assert tests >= 30
