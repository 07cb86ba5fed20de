"""Number literals in stored histories: a kept number keeps its text, byte for byte.

`json.dumps` spells a number as Python does: `1E2` came back as `100.0`, `1e400` as `Infinity`
(not JSON), `1e-400` as `0.0`, `-0` as `0`, and `check` called it compatible. The parse now records
how each content spells its numbers and the rewrite spells kept numbers the same way; a content
that spells one value two ways (so a kept number could be either) is skipped and reported, not
failed. `check` refuses non-JSON literals and any changed literal.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from helpers import BIG_TEXT, compactor, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows, make_message_store

from summarizer.cli import main
from summarizer.core._shape import shape_mismatch
from summarizer.stored._stored import StoredHistory, check_rewrite, compact_stored

RECORDS = [{'id': n, 'sku': f'SKU-{n:04d}', 'note': f'row {n} ' + 'stock notes ' * 25} for n in range(1, 31)]
"""Ids from 1: no integer 0 beside a `-0`."""
MARK, OTHER = '"NUMBER"', '"OTHER"'
TEMPLATE = ModelMessagesTypeAdapter.dump_json(
    history({'reading': 'NUMBER', 'other': 'OTHER', 'records': RECORDS}, BIG_TEXT), indent=2
)


def stored(literal: str, other: str = '"none"') -> str:
    """A stored history whose first oversized return holds `literal` (and `other`) in keys every
    summary keeps, and whose second is an oversized text (one template: the same timestamps)."""
    text = TEMPLATE.decode()
    assert text.count(MARK) == 1 and text.count(OTHER) == 1
    return text.replace(MARK, literal).replace(OTHER, other)


PYTHON_WRITES_OTHERWISE = ['1e400', '-1e400', '1e-400', '-0', '1E2', '1e5', '1.50', '1e-7', '0.00001', '1E+2']
PYTHON_WRITES_ALIKE = ['1.0', '-0.0', '0', '-7', '0.1', '1e+16', '1e-07', '123456789012345678901234567890']


@pytest.mark.parametrize('literal', PYTHON_WRITES_OTHERWISE + PYTHON_WRITES_ALIKE)
async def test_a_kept_number_keeps_its_literal(literal: str) -> None:
    text = stored(literal)
    result = await compact_stored(text, compactor())
    assert (result.report.summarized, result.report.failed, result.report.skipped) == (2, 0, [])
    assert result.text is not None
    assert f'"reading": {literal},' in result.text
    assert len(result.text) < len(text) / 2  # it was summarized
    check_rewrite(StoredHistory.parse(text), StoredHistory.parse(result.text), config=compactor().config)


async def test_the_numbers_of_kept_records_keep_their_literals() -> None:
    spelled = {n: (f'{n}.50', f'{n}E1', f'{n}e-7')[n % 3] for n in range(30)}
    records = [{'id': n, 'weight': f'W{n}', 'note': f'row {n} ' + 'stock notes ' * 25} for n in range(30)]
    text = ModelMessagesTypeAdapter.dump_json(history(records), indent=2).decode()
    for n, literal in spelled.items():
        text = text.replace(f'"W{n}"', literal)
    result = await compact_stored(text, compactor())
    assert (result.report.summarized, result.report.failed) == (1, 0), result.report.failures
    assert result.text is not None
    kept = re.findall(r'"id": (\d+),\s+"weight": ([^,\s]+),', result.text)
    assert kept
    assert all(literal == spelled[int(n)] for n, literal in kept), kept


@pytest.mark.parametrize(
    ('literal', 'other'),
    [
        ('1E2', '100.0'),
        ('100.0', '1E2'),
        ('1e-400', '0.0'),
        ('-0', '0'),
        ('0', '-0'),
        ('1e400', '1e401'),
        ('1.50', '1.5'),
        ('1e-7', '1e-07'),
    ],
)
async def test_a_content_spelling_one_number_two_ways_is_skipped(literal: str, other: str) -> None:
    text = stored(literal, other)
    result = await compact_stored(text, compactor())
    report = result.report
    assert (report.summarized, report.failed) == (1, 0), report.failures  # the other return still is
    assert [(skip.message_index, skip.part_index) for skip in report.skipped] == [(2, 0)]
    assert 'the same number written another way' in report.skipped[0].reason
    assert result.text is not None
    before, after = StoredHistory.parse(text), StoredHistory.parse(result.text)
    start, end = before.spans[(2, 0)]
    after_start, after_end = after.spans[(2, 0)]
    assert result.text[after_start:after_end] == text[start:end]  # byte for byte


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


@pytest.mark.parametrize(
    ('literal', 'changes'), [('100.0', ('1E2', '1e2', '100', '100.00')), ('1E2', ('100.0', '1e2', '1E+2'))]
)
async def test_check_refuses_a_changed_number_literal(
    tmp_path: Path, literal: str, changes: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    original = tmp_path / 'original.json'
    original.write_text(stored(literal))
    result = await compact_stored(original.read_text(), compactor())
    assert result.text is not None and f'"reading": {literal},' in result.text
    compacted = tmp_path / 'compacted.json'
    compacted.write_text(result.text)
    assert main(['check', str(original), str(compacted)]) == 0
    for changed in changes:
        compacted.write_text(result.text.replace(f'"reading": {literal},', f'"reading": {changed},'))
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
    """A LangChain session (`summarizer batch`): the same rules for the `data.content` of a tool row."""
    content = {'reading': 'NUMBER', 'other': 'OTHER', 'records': RECORDS}
    sessions = {
        name: [row.replace(MARK, literal).replace(OTHER, other) for row in langchain_rows(name, content)]
        for name, literal, other in (('odd', '1E2', '"none"'), ('twice', '1E2', '100.0'))
    }
    inputs = tmp_path / 'in'
    inputs.mkdir()
    make_message_store(inputs / 'store.db', sessions)
    assert main(['batch', '--keep-recent', '0', '--out', str(tmp_path / 'out'), str(inputs)]) == 0
    with sqlite3.connect(tmp_path / 'out' / 'store.db') as connection:
        rows = list(connection.execute('SELECT session_id, message FROM message_store ORDER BY id'))
    connection.close()
    tool_rows = {session: row for session, row in rows if row.startswith('{"type": "tool"')}
    assert '"reading": 1E2,' in tool_rows['odd'] and len(tool_rows['odd']) < len(sessions['odd'][2]) / 2
    assert tool_rows['twice'] == sessions['twice'][2]  # byte for byte


def test_batch_reports_a_skipped_content_in_its_report_and_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skipped content is no failure (exit 0) but is listed, with where it is and why, in both outputs."""
    source = tmp_path / 'in' / 'h.json'
    source.parent.mkdir()
    source.write_text(stored('1.0', '1.00'), encoding='utf-8')
    report = tmp_path / 'report.json'
    argv = ['batch', str(source.parent), '--out', str(tmp_path / 'out'), '--keep-recent', '0', '--report', str(report)]
    assert main(argv) == 0
    [skip] = json.loads(report.read_text())['sources'][0]['skipped']
    assert (skip['kind'], skip['path'], skip['message_index']) == ('skipped', str(source), 2)
    assert 'the same number written another way' in skip['problem']
    [line] = [line for line in capsys.readouterr().err.splitlines() if line.startswith('skipped ')]
    assert line.startswith(f'skipped {source} message 2: ') and 'another way' in line
