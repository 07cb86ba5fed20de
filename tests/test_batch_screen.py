"""The batch fast path: a history is passed through unvalidated only when nothing in it can be summarized."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter

from summarizer.core._config import SummarizerConfig
from summarizer.core._tokens import Tokenizer, estimate_tokens
from summarizer.pipeline._pipeline import Compactor
from summarizer.stored._screen import Screened, screen
from summarizer.stored._stored import HistoryError, StoredHistory, compact_stored
from summarizer.stored._units import StoredUnit, Where

CONFIG = SummarizerConfig()
SMALL = dataclasses.replace(CONFIG, threshold_tokens=10**6)
"""A threshold no content of the test histories reaches."""


def stored(*contents: object) -> bytes:
    return ModelMessagesTypeAdapter.dump_json(history(*contents))


def screened(
    raw: bytes | str, *, config: SummarizerConfig = SMALL, tokenizer: Tokenizer = estimate_tokens
) -> Screened | None:
    return screen(StoredHistory.decode(raw), config=config, tokenizer=tokenizer)


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
        found = screened(raw, config=config)
        full = await compact_stored(raw, Compactor(config=dataclasses.replace(config, keep_recent=0)))
        assert (found is not None) == (full.report.oversized == 0)
        if found is not None:
            assert found.returns == full.report.returns_examined == len(contents)


async def test_a_screened_history_is_passed_through_with_its_counts(tmp_path: Path) -> None:
    raw = stored(BIG_TEXT, BIG_OBJECT)
    done = await StoredUnit(where=Where(path=tmp_path), raw=raw).compact(Compactor(config=SMALL))
    assert done.error is None and not done.changed and done.report.returns_examined == 2
    assert done.tokens_before == done.tokens_after == estimate_tokens(raw.decode())


@pytest.mark.parametrize(
    'raw',
    [
        json.dumps([{'kind': 'request', 'parts': []}, {'kind': 'nonsense', 'parts': []}]).encode(),
        json.dumps([{'kind': 'request', 'parts': [{'part_kind': 'nonsense'}]}]).encode(),
        json.dumps([{'kind': 'request', 'parts': [{'part_kind': 'retry-prompt', 'content': 'x'}]}]).encode(),
        b'[{"kind": [1], "parts": []}]',
        b'[{"kind": "request", "parts": [{"part_kind": {"a": 1}}]}]',
    ],
    ids=[
        'unknown kind',
        'unknown part kind',
        'legacy retry prompt',
        'kind a list',
        'part kind an object',
    ],
)
def test_what_the_screen_cannot_prove_takes_the_full_path(raw: bytes) -> None:
    assert screened(raw) is None


@pytest.mark.parametrize(
    ('raw', 'problem'),
    [
        (b'{"not": "a list"}', 'expected a JSON list'),
        (b'[{"kind": "request", "parts": [}]', 'line 1'),
        (with_tool_content([float('nan'), 'short']), 'NaN'),
        (b'\xff[]', 'not UTF-8'),
    ],
    ids=['not a list', 'not JSON', 'NaN', 'not UTF-8'],
)
async def test_what_does_not_decode_is_bad_input_before_the_screen(tmp_path: Path, raw: bytes, problem: str) -> None:
    with pytest.raises(HistoryError, match=problem):
        StoredHistory.decode(raw)
    done = await StoredUnit(where=Where(path=tmp_path), raw=raw).compact(Compactor(config=SMALL))
    assert done.error is not None and problem in done.error and not done.changed


def test_another_tokenizer_takes_the_full_path() -> None:
    assert screened(stored('short'), tokenizer=lambda text: len(text)) is None


async def test_field_level_problems_are_not_validated_when_nothing_is_summarized(tmp_path: Path) -> None:
    """The documented trade-off: a bad timestamp in a history with nothing to summarize is passed through."""
    data = json.loads(stored('short'))
    data[0]['timestamp'] = 'not a date'
    done = await StoredUnit(where=Where(path=tmp_path), raw=json.dumps(data)).compact(Compactor(config=SMALL))
    assert done.error is None and done.report.returns_examined == 1
    with pytest.raises(HistoryError, match='timestamp'):
        StoredHistory.parse(json.dumps(data))


def test_a_kind_that_is_no_string_is_one_line_of_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from summarizer.cli import main

    (tmp_path / 'h.json').write_text('[{"kind": [1], "parts": []}]')
    assert main(['batch', str(tmp_path), '--dry-run']) == 1  # the source fails, reported; no traceback
    err = capsys.readouterr().err
    assert 'h.json' in err and 'Traceback' not in err
