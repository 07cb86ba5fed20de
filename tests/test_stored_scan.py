"""The stored-text parse reads a history as its reference walk does, however the JSON is written.

`_scan` takes a fast walk for the JSON it expects and hands anything else to `Scanner`; both must
give the same data, content spans and number literals. `StoredHistory.spliced` parses only what a
rewrite changed: it must equal parsing the whole rewritten text.
"""

from __future__ import annotations

import json

import pytest
from helpers import BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter, ToolReturnPart

from summarizer.core import JsonValue
from summarizer.pipeline import PartRef
from summarizer.stored._stored import (
    HistoryError,
    StoredHistory,
    _decode_messages,
    _FastScan,
    _scan,
    _Slow,
    _slow_scan,
)

COMPACT = ModelMessagesTypeAdapter.dump_json(history(BIG_TEXT, {'rows': [1.5, -0, 1e2, 'x']}, [1, 2])).decode()
PRETTY = json.dumps(json.loads(COMPACT), indent=2)
ODD = [
    '[]',
    ' \n[ ]\n',
    '\ufeff[]',
    '[{}]',
    '[1, "not a message", {"parts": []}]',
    '[{"parts": [{}, 3, {"content": -0, "content": [1E2, 100.0]}], "kind": "request"}]',
    '[{"parts": {"content": 1}}]',
    '[{"par\\u0074s": [{"content": 1}]}]',  # an escaped key: the reference walk reads it
    '[{"parts": [{"content": 1}]}] x',
    '[{"parts": [{"content": NaN}]}]',
    '[{"parts": [{"content": 1,}]}]',
    '[1,]',
    '{"parts": []}',
    '',
]


@pytest.mark.parametrize('text', [COMPACT, PRETTY, *ODD])
def test_the_fast_walk_reads_what_the_reference_walk_reads(text: str) -> None:
    try:
        expected = _slow_scan(text)
    except HistoryError as exc:
        with pytest.raises(HistoryError) as raised:
            _scan(text)
        assert str(raised.value) == str(exc)  # the same line naming the problem
        return
    found = _scan(text)
    assert (found.data, found.spans, found.literals) == (expected.data, expected.spans, expected.literals)
    assert json.dumps(found.data) == json.dumps(expected.data)  # the same key order too


@pytest.mark.parametrize('text', [COMPACT, PRETTY, *ODD])
def test_a_history_decoded_message_by_message_reads_as_the_walk_reads_it(text: str) -> None:
    try:
        expected = _scan(text)
        history = StoredHistory.parse(text)
    except HistoryError:  # the walk and validation name it (above)
        return
    assert (history.data, history.literals) == (expected.data, expected.literals)
    assert {ref: history.span_of(ref) for ref in expected.spans} == expected.spans  # each message walked on its own
    assert history.spans == expected.spans


@pytest.mark.parametrize(
    ('literal', 'decoded'), [('1.5', True), ('0', True), ('-0.0', True), ('-0', False), ('1E2', False), ('1.50', False)]
)
def test_only_numbers_spelled_as_python_spells_them_skip_the_walk(literal: str, decoded: bool) -> None:
    """A literal `json.dumps` spells otherwise needs `Literals`, which only the walk records: it takes the walk."""
    text = PRETTY.replace('"x"', f'{literal}, "-0 in a string", "-0"', 1)
    assert (_decode_messages(text) is not None) is decoded
    history, expected = StoredHistory.parse(text), _scan(text)
    assert (history.data, history.spans, history.literals) == (expected.data, expected.spans, expected.literals)


@pytest.mark.parametrize('text', [COMPACT, PRETTY, ODD[0], ODD[1], ODD[2], ODD[3], ODD[4], ODD[5]])
def test_well_formed_histories_take_the_fast_walk(text: str) -> None:
    _FastScan(text).scan()  # raises `_Slow` if it left the text to the reference walk


def test_an_escaped_key_is_left_to_the_reference_walk() -> None:
    with pytest.raises(_Slow):
        _FastScan(ODD[7]).scan()


@pytest.mark.parametrize('text', [COMPACT, PRETTY])
def test_a_splice_parses_as_the_whole_rewritten_text(text: str) -> None:
    before = StoredHistory.parse(text)
    returns = [ref for ref in before.spans if isinstance(before.messages[ref[0]].parts[ref[1]], ToolReturnPart)]
    changed: dict[PartRef, JsonValue] = {ref: f'summary of {ref}' for ref in returns[:2]}
    changed[returns[1]] = {'rows': [100.0, 0, 'y']}  # a kept number written as the original wrote it
    after = before.spliced(changed)
    again = StoredHistory.parse(after.text)
    assert (after.data, after.messages, after.spans, after.literals) == (
        again.data,
        again.messages,
        again.spans,
        again.literals,
    )
    assert {ref: after.span_of(ref) for ref in again.spans} == again.spans
    assert after.text != text and before == StoredHistory.parse(text)  # the history spliced is left as it was
