"""Number literals in stored histories: a kept number keeps its text, byte for byte.

A summary is written with `json.dumps`, which spells a number as Python does: `1E2` would come back
as `100.0`, `1e400` as `Infinity` (not JSON), `1e-400` as `0.0`, `-0` as `0`. A content holding
such a literal is never summarized (reported as skipped, not failed); every other literal survives
the round trip and the shape contract keeps it. `check` refuses non-JSON literals and any changed
literal.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import BIG_TEXT, compactor, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows, make_message_store

from summarizer._shape import shape_mismatch
from summarizer._stored import StoredHistory, compact_stored
from summarizer.cli import main

RECORDS = [{'id': n, 'sku': f'SKU-{n:04d}', 'note': f'row {n} ' + 'stock notes ' * 25} for n in range(30)]
MARK = '"NUMBER"'
TEMPLATE = ModelMessagesTypeAdapter.dump_json(history({'reading': 'NUMBER', 'records': RECORDS}, BIG_TEXT), indent=2)


def stored(literal: str) -> str:
    """A stored history whose first oversized return holds `literal` in a key every summary keeps,
    and whose second is an oversized text with nothing unusual (one template: the same timestamps)."""
    text = TEMPLATE.decode()
    assert text.count(MARK) == 1
    return text.replace(MARK, literal)


NOT_ROUND_TRIPPING = ['1e400', '-1e400', '1e-400', '-0', '1E2', '1e5', '1.50', '1e-7', '0.10000000000000001']
ROUND_TRIPPING = ['1.0', '-0.0', '0', '-7', '0.1', '1e+16', '1e-07', '123456789012345678901234567890', '-2.5e-300']


@pytest.mark.parametrize('literal', NOT_ROUND_TRIPPING)
async def test_a_content_with_a_literal_json_dumps_would_rewrite_is_skipped(literal: str) -> None:
    text = stored(literal)
    result = await compact_stored(text, compactor())
    report = result.report
    assert (report.summarized, report.failed) == (1, 0), report.failures  # the other return still is
    assert [(skip.message_index, skip.part_index) for skip in report.skipped] == [(2, 0)]
    assert f'number literal {literal}' in report.skipped[0].reason
    assert result.text is not None
    before, after = StoredHistory.parse(text), StoredHistory.parse(result.text)
    start, end = before.spans[(2, 0)]
    after_start, after_end = after.spans[(2, 0)]
    assert result.text[after_start:after_end] == text[start:end]  # byte for byte
    assert f'"reading": {literal},' in result.text


@pytest.mark.parametrize('literal', ROUND_TRIPPING)
async def test_a_kept_number_keeps_its_literal(literal: str) -> None:
    text = stored(literal)
    result = await compact_stored(text, compactor())
    assert (result.report.summarized, result.report.failed, result.report.skipped) == (2, 0, [])
    assert result.text is not None
    assert f'"reading": {literal},' in result.text
    assert json.loads(result.text)[2]['parts'][0]['content']['records'] != RECORDS  # it was summarized


def test_the_shape_contract_keeps_the_literal_not_just_the_value() -> None:
    assert shape_mismatch({'a': 1}, {'a': 1.0}) == '$.a: expected the number 1, got 1.0'
    assert shape_mismatch([1.0, 2], [1]) is not None
    assert shape_mismatch(-0.0, 0.0) is not None and shape_mismatch(0.0, -0.0) is not None
    assert shape_mismatch(10**30, 10**30) is None and shape_mismatch(10**30, float(10**30)) is not None
    assert shape_mismatch({'a': 1.5, 'b': -0.0}, {'a': 1.5, 'b': -0.0}) is None


@pytest.mark.parametrize('constant', ['NaN', 'Infinity', '-Infinity'])
def test_compact_refuses_a_non_json_literal(tmp_path: Path, constant: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / 'history.json'
    path.write_text(stored(constant))
    assert main(['compact', str(path), '--keep-recent', '0']) == 2
    error = capsys.readouterr().err
    assert f'{constant} is not JSON' in error and 'message 2' in error and len(error.strip().splitlines()) == 1
    assert not path.with_name('history.compacted.json').exists()


@pytest.mark.parametrize('constant', ['NaN', 'Infinity', '-Infinity'])
def test_check_refuses_a_non_json_literal_in_the_output(
    tmp_path: Path, constant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    original, compacted = tmp_path / 'original.json', tmp_path / 'compacted.json'
    original.write_text(stored('1e400'))
    compacted.write_text(stored(constant))  # what `json.dumps` made of 1e400 before
    assert main(['check', str(original), str(compacted)]) == 1
    assert f'{constant} is not JSON' in capsys.readouterr().out


async def test_check_refuses_a_changed_number_literal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = tmp_path / 'original.json'
    original.write_text(stored('100.0'))
    result = await compact_stored(original.read_text(), compactor())
    assert result.text is not None and '"reading": 100.0,' in result.text
    compacted = tmp_path / 'compacted.json'
    compacted.write_text(result.text)
    assert main(['check', str(original), str(compacted)]) == 0
    for changed in ('1E2', '1e2', '100', '100.00', '1.0e2'):
        compacted.write_text(result.text.replace('"reading": 100.0,', f'"reading": {changed},'))
        assert main(['check', str(original), str(compacted)]) == 1, changed
        assert 'number' in capsys.readouterr().out


@pytest.mark.parametrize(
    ('literal', 'compacted_as'), [('1e400', 'Infinity'), ('1e-400', '0.0'), ('-0', '0'), ('1E2', '100.0')]
)
async def test_check_refuses_what_a_rewrite_made_of_a_literal(
    tmp_path: Path, literal: str, compacted_as: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The outputs earlier versions wrote (and `check` passed): the value may even be equal."""
    original = tmp_path / 'original.json'
    original.write_text(stored(literal))
    result = await compact_stored(stored('100.0'), compactor())  # a compaction with the value in place
    assert result.text is not None
    compacted = tmp_path / 'compacted.json'
    compacted.write_text(result.text.replace('"reading": 100.0,', f'"reading": {compacted_as},'))
    assert main(['check', str(original), str(compacted)]) == 1
    assert 'not compatible' in capsys.readouterr().out


def test_langchain_rows_keep_their_number_literals(tmp_path: Path) -> None:
    """A LangChain session (`summarizer batch`): the same rule for the `data.content` of a tool row."""
    sessions = {
        name: [row.replace(MARK, literal) for row in langchain_rows(name, {'reading': 'NUMBER', 'records': RECORDS})]
        for name, literal in (('odd', '1E2'), ('plain', '100.0'))
    }
    inputs = tmp_path / 'in'
    inputs.mkdir()
    make_message_store(inputs / 'store.db', sessions)
    assert main(['batch', '--keep-recent', '0', '--out', str(tmp_path / 'out'), str(inputs)]) == 0
    with sqlite3.connect(tmp_path / 'out' / 'store.db') as connection:
        rows = list(connection.execute('SELECT session_id, message FROM message_store ORDER BY id'))
    connection.close()
    tool_rows = {session: row for session, row in rows if row.startswith('{"type": "tool"')}
    assert tool_rows['odd'] == sessions['odd'][2]  # byte for byte
    assert '"reading": 100.0,' in tool_rows['plain'] and len(tool_rows['plain']) < len(sessions['plain'][2]) / 2
