"""`summarizer check` applies every rule the pipeline applies to its own output.

It accepted a tool return replaced by `""`, images dropped from a multimodal return, an emptied
`discovered_tools` and typed parts changed in any way: it only compared shapes and sizes. It now
shares the pipeline's rules (`_walk.excluded`, `summary_problem`), so what `compact` would never
write, `check` refuses.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import BIG_TEXT
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    ToolSearchReturnPart,
)
from test_typed_returns import NOTES_TEXT, typed_history

from summarizer.cli import main
from summarizer.core import SummarizerConfig
from summarizer.pipeline._check import CheckFailed, check_history
from summarizer.stored._langchain import Row, check_row

History = list[dict[str, Any]]


def base() -> History:
    """The typed history, plus a multimodal return and a retried one (message 5), and a plain one (7)."""
    messages = typed_history()
    messages.append(
        ModelResponse(
            parts=[ToolCallPart('screenshot', {}, tool_call_id='i1'), ToolCallPart('read_log', {}, tool_call_id='r1')]
        )
    )
    messages.append(
        ModelRequest(
            parts=[
                ToolReturnPart(
                    'screenshot', [BIG_TEXT, BinaryContent(b'\x89PNG\r\n', media_type='image/png')], tool_call_id='i1'
                ),
                ToolReturnPart('read_log', BIG_TEXT, tool_call_id='r1', outcome='retried'),
            ]
        )
    )
    messages.append(ModelResponse(parts=[ToolCallPart('read_log', {}, tool_call_id='r2')]))
    messages.append(ModelRequest(parts=[ToolReturnPart('read_log', BIG_TEXT, tool_call_id='r2')]))
    return ModelMessagesTypeAdapter.dump_python(messages, mode='json')  # type: ignore[return-value]


BASE = base()


def check(tmp_path: Path, change: Any, *options: str) -> tuple[int, str]:
    """`check` of the base history against a copy `change` edited (one content, everything else equal)."""
    edited = copy.deepcopy(BASE)
    change(edited)
    original, compacted = tmp_path / 'original.json', tmp_path / 'compacted.json'
    original.write_text(json.dumps(BASE, indent=1))
    compacted.write_text(json.dumps(edited, indent=1))
    code = main(['check', *options, str(original), str(compacted)])
    return code, compacted.read_text()


def content(message: int, part: int, value: object) -> Any:
    def change(history: History) -> None:
        history[message]['parts'][part]['content'] = value

    return change


SHORT_LOG = '\n'.join(BIG_TEXT.splitlines()[:5])


def test_a_proper_summary_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(tmp_path, content(2, 4, SHORT_LOG))[0] == 0
    assert check(tmp_path, content(7, 0, SHORT_LOG))[0] == 0
    assert 'compatible' in capsys.readouterr().out


@pytest.mark.parametrize(
    ('message', 'part', 'value', 'expected'),
    [
        (2, 4, '', 'empty summary'),
        (2, 4, '   ', 'empty summary'),
        (2, 4, ['a list now'], 'wrong shape'),
        (2, 4, BIG_TEXT + ' and more', 'not smaller'),
        (2, 4, BIG_TEXT[: len(BIG_TEXT) - 10], 'not under the threshold'),
        (7, 0, 'log line 0: request id req-00000 from 10.1.0.0 took 1 ms', 'not grounded: $: line 1'),
        (7, 0, 'log line 0: request id req-00000 from 10.1.0.0 took 0', 'not grounded: $: line 1'),
        (2, 0, {'discovered_tools': []}, 'typed tool return (ToolSearchReturnPart'),
        (
            2,
            0,
            {'discovered_tools': [{'name': 'inventory_0', 'description': 'Inventory lookup 0'}]},
            'typed tool return',
        ),
        (2, 1, {'message': "Capability 'warehouse' loaded.", 'instructions': 'Always'}, 'LoadCapabilityReturnPart'),
        (2, 2, {'bins': ['bin 0 holds 0 units of SKU-00000']}, 'StockReturnPart'),
        (2, 3, 'note 0', "tool_kind 'trs_tests.notes'"),
        (5, 0, [BIG_TEXT[:400]], 'binary or multimodal'),
        (5, 1, SHORT_LOG, 'a retried return'),
        (1, 6, {'results': 'short'}, 'only tool-return content may change'),
    ],
)
def test_what_the_pipeline_would_never_write_is_refused(
    tmp_path: Path, message: int, part: int, value: object, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = check(tmp_path, content(message, part, value))
    output = capsys.readouterr().out
    assert code == 1, output
    assert 'not compatible' in output and expected in output


def test_the_config_the_compaction_ran_with(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / 'config.yaml'
    config.write_text('tools:\n  read_log: {skip: true}\n  notes: {threshold_tokens: 2000}\n')
    assert check(tmp_path, content(7, 0, SHORT_LOG), '--config', str(config))[0] == 1
    assert "the tool rule for 'read_log' says skip" in capsys.readouterr().out
    shorter_notes = content(2, 3, '\n'.join(NOTES_TEXT.splitlines()[:5]))
    assert check(tmp_path, shorter_notes, '--config', str(config))[0] == 0  # a rule names the typed tool
    assert check(tmp_path, content(2, 4, BIG_TEXT[: len(BIG_TEXT) - 10] + ' …'), '--threshold-tokens', '100000')[0] == 0


@pytest.mark.filterwarnings('ignore:Pydantic serializer warnings')  # a str where a ToolSearchReturnContent goes
def test_a_replaced_part_must_serialize_and_validate_as_its_own_tool_return_class() -> None:
    """Check (c): each replaced part round-trips through pydantic-ai's adapter for its class, subclasses included."""
    plain = ToolReturnPart('read_log', BIG_TEXT, tool_call_id='r1')
    found = ToolSearchReturnPart(content={'discovered_tools': [], 'message': BIG_TEXT}, tool_call_id='s1')
    calls = ModelResponse(
        parts=[ToolCallPart('read_log', {}, tool_call_id='r1'), ToolCallPart('search_tools', {}, tool_call_id='s1')]
    )
    before = [calls, ModelRequest(parts=[plain, found])]

    def check(index: int, content: object) -> None:
        parts = [plain, found]
        parts[index] = dataclasses.replace(parts[index], content=content)
        check_history(before, [calls, ModelRequest(parts=parts)], {(1, index): BIG_TEXT})

    check(0, 'a summary')
    check(1, {'discovered_tools': [], 'message': 'a summary'})
    with pytest.raises(CheckFailed, match='message 1 part 0 cannot be serialized'):
        check(0, object())
    with pytest.raises(CheckFailed, match='message 1 part 1 no longer validates: Input should be a valid dictionary'):
        check(1, 'a summary')  # read back, a tool search's content is a dictionary


def _tool_row(content: str) -> str:
    """A LangChain tool row holding `content` (JSON text, written as it is)."""
    return f'{{"type": "tool", "data": {{"content": {content}, "name": "search", "tool_call_id": "c1"}}}}'


LONG = json.dumps('x ' * 3000)


@pytest.mark.parametrize(
    ('old', 'new', 'config', 'problem'),
    [
        (
            f'[1E2, {LONG}]',
            '[100.0, "… 1 items omitted …"]',
            None,
            'number literal 100.0 is not the original literal 1E2',
        ),
        (LONG, json.dumps('short ' * 30), SummarizerConfig().override(threshold_tokens=10), 'not under the threshold'),
        (LONG, '"short"', SummarizerConfig().override(tools={'search': {'skip': True}}), 'must not change'),
        (LONG, '["a"]', None, 'wrong shape'),
        (LONG, json.dumps('x ' * 3001), None, 'not smaller'),
    ],
)
def test_a_langchain_row_is_post_checked_by_the_rules_of_every_stored_history(
    old: str, new: str, config: SummarizerConfig | None, problem: str
) -> None:
    """A row's new content passes the rules a stored history's does: number literals, threshold, tool rules."""
    before = Row.parse(_tool_row(old))
    with pytest.raises(CheckFailed, match=problem):
        check_row(before, Row.parse(_tool_row(new)), config=config)
