"""The batch fast path: a history is passed through unvalidated only when nothing in it can be summarized."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter

from summarizer.core._config import SummarizerConfig
from summarizer.core._tokens import estimate_tokens
from summarizer.pipeline._pipeline import Compactor
from summarizer.stored._screen import screen
from summarizer.stored._stored import compact_stored
from summarizer.stored._units import StoredUnit, Where

CONFIG = SummarizerConfig()
SMALL = dataclasses.replace(CONFIG, threshold_tokens=10**6)
"""A threshold no content of the test histories reaches."""


def stored(*contents: object) -> bytes:
    return ModelMessagesTypeAdapter.dump_json(history(*contents))


def with_tool_content(content: object) -> bytes:
    """A stored history whose one tool return holds `content` (json.dumps writes NaN as `NaN`)."""
    data = json.loads(stored('short'))
    [part] = [part for message in data for part in message['parts'] if part['part_kind'] == 'tool-return']
    part['content'] = content
    return json.dumps(data).encode()


@pytest.mark.parametrize('contents', [(BIG_TEXT,), (BIG_LIST,), (BIG_OBJECT,), (BIG_TEXT, BIG_LIST, BIG_OBJECT)])
async def test_screened_exactly_when_the_full_path_finds_nothing(contents: tuple[object, ...]) -> None:
    raw = stored(*contents)
    for config in (CONFIG, SMALL):
        screened = screen(raw, config=config, tokenizer=estimate_tokens)
        full = await compact_stored(raw, Compactor(config=dataclasses.replace(config, keep_recent=0)))
        assert (screened is not None) == (full.report.oversized == 0)
        if screened is not None:
            assert screened.returns == full.report.returns_examined == len(contents)


async def test_a_screened_history_is_passed_through_with_its_counts(tmp_path: Path) -> None:
    raw = stored(BIG_TEXT, BIG_OBJECT)
    done = await StoredUnit(where=Where(path=tmp_path), raw=raw).compact(Compactor(config=SMALL))
    assert done.error is None and not done.changed and done.report.returns_examined == 2
    assert done.tokens_before == done.tokens_after == estimate_tokens(raw.decode())


@pytest.mark.parametrize(
    'raw',
    [
        b'{"not": "a list"}',
        b'[{"kind": "request", "parts": [}]',
        json.dumps([{'kind': 'request', 'parts': []}, {'kind': 'nonsense', 'parts': []}]).encode(),
        json.dumps([{'kind': 'request', 'parts': [{'part_kind': 'nonsense'}]}]).encode(),
        json.dumps([{'kind': 'request', 'parts': [{'part_kind': 'retry-prompt', 'content': 'x'}]}]).encode(),
        with_tool_content([float('nan'), 'short']),
        b'\xff[]',
        b'[{"kind": [1], "parts": []}]',
        b'[{"kind": "request", "parts": [{"part_kind": {"a": 1}}]}]',
    ],
    ids=[
        'not a list',
        'not JSON',
        'unknown kind',
        'unknown part kind',
        'legacy retry prompt',
        'NaN',
        'not UTF-8',
        'kind a list',
        'part kind an object',
    ],
)
def test_what_the_screen_cannot_prove_takes_the_full_path(raw: bytes) -> None:
    assert screen(raw, config=SMALL, tokenizer=estimate_tokens) is None


def test_another_tokenizer_takes_the_full_path() -> None:
    assert screen(stored('short'), config=SMALL, tokenizer=lambda text: len(text)) is None


def test_a_nan_content_is_valid_input() -> None:
    """So the full path, not the screen, decides what becomes of it."""
    assert ModelMessagesTypeAdapter.validate_json(with_tool_content([float('nan'), 'short']))


def test_field_level_problems_are_not_validated_when_nothing_is_summarized() -> None:
    """The documented trade-off: a bad timestamp in a history with nothing to summarize is passed through."""
    data = json.loads(stored('short'))
    data[0]['timestamp'] = 'not a date'
    assert screen(json.dumps(data), config=SMALL, tokenizer=estimate_tokens) is not None


def test_a_kind_that_is_no_string_is_one_line_of_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from summarizer.cli import main

    (tmp_path / 'h.json').write_text('[{"kind": [1], "parts": []}]')
    assert main(['batch', str(tmp_path), '--dry-run']) == 1  # the source fails, reported; no traceback
    err = capsys.readouterr().err
    assert 'h.json' in err and 'Traceback' not in err
