"""golden/: the committed histories are exactly the listed ones, and the embedded model's output of each is the recorded one.

golden/histories/ and golden/facts.json are fixed data: golden/SHA256SUMS lists every file with its SHA-256, so a
history changed, added or removed fails here until the list says so too (`sha256sum` in golden/ writes it; see
golden/README.md). golden/expected/ holds what the summarizer makes of them: when a change alters an output on
purpose, record the new outputs with `summarizer eval --update-golden` and review the diff of golden/expected/.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter

from summarizer.eval import expected_path, golden_compactor, golden_output

ROOT = Path(__file__).resolve().parent.parent / 'golden'
GOLDEN = ROOT / 'histories'
HISTORIES = sorted(GOLDEN.glob('*.json'))


def differences(root: Path) -> list[str]:
    """How `root`'s histories and facts.json differ from its SHA256SUMS (`sha256sum`'s format: hash, two spaces, path)."""
    lines = (root / 'SHA256SUMS').read_text(encoding='utf-8').splitlines()
    listed = {path: digest for digest, path in (line.split('  ', 1) for line in lines)}
    held = {str(path.relative_to(root)) for path in [root / 'facts.json', *(root / 'histories').glob('*.json')]}
    return (
        [f'{path}: not listed' for path in sorted(held - set(listed))]
        + [f'{path}: listed, missing' for path in sorted(set(listed) - held)]
        + [
            f'{path}: changed'
            for path in sorted(held & set(listed))
            if hashlib.sha256((root / path).read_bytes()).hexdigest() != listed[path]
        ]
    )


def test_the_data_is_exactly_the_listed_files() -> None:
    assert len(HISTORIES) >= 75
    assert differences(ROOT) == []


def test_a_changed_added_or_removed_file_is_a_difference(tmp_path: Path) -> None:
    (tmp_path / 'histories').mkdir()
    kept = ['facts.json', 'histories/01_web_search_apt.json', 'histories/21_all_tiny_calendar.json']
    lines = (ROOT / 'SHA256SUMS').read_text(encoding='utf-8').splitlines()
    (tmp_path / 'SHA256SUMS').write_text(''.join(f'{line}\n' for line in lines if line.split('  ')[1] in kept))
    for path in kept:
        (tmp_path / path).write_bytes((ROOT / path).read_bytes())
    assert differences(tmp_path) == []
    history = tmp_path / kept[1]
    data = bytearray(history.read_bytes())
    data[len(data) // 2] ^= 1
    history.write_bytes(bytes(data))
    (tmp_path / kept[2]).rename(tmp_path / 'histories' / '99_new.json')
    assert differences(tmp_path) == [
        'histories/99_new.json: not listed',
        f'{kept[2]}: listed, missing',
        f'{kept[1]}: changed',
    ]


@pytest.mark.parametrize('folder', ['histories', 'expected'])
def test_every_history_and_recorded_output_is_a_history(folder: str) -> None:
    files = sorted((ROOT / folder).glob('*.json'))
    assert {path.name for path in files} == {path.name for path in HISTORIES}, 'run `summarizer eval --update-golden`'
    for path in files:
        messages = ModelMessagesTypeAdapter.validate_json(path.read_bytes())
        assert messages and messages[0].kind == 'request', f'{folder}/{path.name}'


QUOTING = {'tool-call': 'args', 'text': 'content', 'thinking': 'content', 'user-prompt': 'content'}
"""The parts that can quote a fact (prompts, assistant text and thinking, tool-call arguments) and their field."""


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def test_each_listed_fact_is_quoted_after_a_tool_return_that_holds_it() -> None:
    """golden/facts.json: per history, 3-8 facts that a tool return holds and a later turn quotes."""
    facts: dict[str, list[str]] = json.loads((ROOT / 'facts.json').read_text(encoding='utf-8'))
    assert set(facts) == {path.stem for path in HISTORIES}
    for name, wanted in facts.items():
        assert 3 <= len(wanted) <= 8, name
        returned, quoted = '', set[str]()
        for message in json.loads((GOLDEN / f'{name}.json').read_bytes()):
            for part in message['parts']:
                if part['part_kind'] == 'tool-return':
                    returned += '\n' + _text(part['content'])
                elif (field := QUOTING.get(part['part_kind'])) is not None:
                    text = _text(part[field])
                    quoted |= {fact for fact in wanted if fact in text and fact in returned}
        assert quoted == set(wanted), f'{name}: not quoted after a return holding it: {set(wanted) - quoted}'


@pytest.mark.parametrize('history', HISTORIES, ids=[path.stem for path in HISTORIES])
async def test_output_is_unchanged(history: Path) -> None:
    expected = expected_path(history)
    assert expected.is_file(), f'{expected} missing: run `summarizer eval --update-golden`'
    output = await golden_output(history.read_text(encoding='utf-8'), golden_compactor())
    assert output == expected.read_text(encoding='utf-8'), (
        f'the compacted output of {history.name} changed; if that is intended, run '
        '`summarizer eval --update-golden` and review the diff of golden/expected/'
    )
