"""Tool returns held in memory may carry NaN (a float no JSON parser produces): it must neither stop
a large return from being summarized nor let a summary change it.

NaN is not equal to itself, so a check comparing numbers with `==` refused every summary of a
content holding one. A NaN keeps being a NaN: the summary must carry a NaN where the original has
it (any other value, null included, is a change and is refused). pydantic-ai dumps NaN as `null`,
so the compacted history dumps and loads back as the input did.
"""

from __future__ import annotations

import math

import pytest
from helpers import BIG_OBJECT, BIG_TEXT, compactor, head_items, history, summarizer_model
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelRequest, ToolCallPart, ToolReturnPart

from summarizer.core._shape import shape_mismatch
from summarizer.core._tokens import content_tokens
from summarizer.pipeline._check import check_history

NAN = float('nan')
ROWS = [{'id': n, 'host': f'10.1.{n}.7', 'note': f'row {n} ' + 'filler words ' * 30} for n in range(40)]


def nan_object() -> dict[str, object]:
    return {'score': NAN, 'rows': ROWS}


def content_of(messages: list, index: int = 2) -> object:  # type: ignore[type-arg]
    part = messages[index].parts[0]
    assert isinstance(part, ToolReturnPart)
    return part.content


def assert_dumps_like_the_input(before: list, after: list) -> None:  # type: ignore[type-arg]
    """The output history serializes (NaN as null, as pydantic-ai spells it) and loads back."""
    dumped = ModelMessagesTypeAdapter.dump_json(after)
    assert b'"score":null' in dumped and b'NaN' not in dumped
    assert ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_json(dumped)) == dumped
    assert b'"score":null' in ModelMessagesTypeAdapter.dump_json(before)


async def test_a_large_return_holding_nan_is_summarized_and_keeps_it() -> None:
    messages = history(nan_object())
    result = await compactor().compact(messages)
    assert (result.report.summarized, result.report.failed) == (1, 0), result.report.failures
    summary = content_of(result.messages)
    assert isinstance(summary, dict) and list(summary) == ['score', 'rows']
    assert math.isnan(summary['score']) and content_tokens(summary) < content_tokens(nan_object())  # type: ignore[arg-type]
    check_history(messages, result.messages, result.changed)
    assert_dumps_like_the_input(messages, result.messages)

    again = await compactor().compact(history(nan_object()))  # the cached summary keeps its NaN too
    assert again.report.cache_hits == 1 and math.isnan(content_of(again.messages)['score'])  # type: ignore[index]


async def test_nan_in_list_items_through_a_model_summary() -> None:
    """The NaN goes through the prompt and the model's output tool and is matched item by item."""
    rows = [{**row, 'score': NAN if row['id'] % 2 else row['id'] / 10} for row in ROWS]
    seen: list[object] = []
    model = summarizer_model(
        lambda content, budget: (
            [{**row, 'note': f'row {row["id"]} …'} for row in content[:3]] + head_items(content, 3)[3:]
        ),
        seen,
    )  # type: ignore[index]
    messages = history(rows)
    result = await compactor(model).compact(messages)
    assert (result.report.summarized, result.report.failed) == (1, 0), result.report.failures
    assert math.isnan(seen[0][1]['score'])  # type: ignore[index]  # the model saw the NaN
    summary = content_of(result.messages)
    assert [row['id'] for row in summary[:3]] == [0, 1, 2] and math.isnan(summary[1]['score'])  # type: ignore[index]
    check_history(messages, result.messages, result.changed)


@pytest.mark.parametrize('replacement', [0.0, None, 'NaN', float('inf')], ids=repr)
async def test_a_summary_changing_a_nan_is_refused(replacement: object) -> None:
    model = summarizer_model(lambda content, budget: {'score': replacement, 'rows': head_items(content['rows'], 2)})  # type: ignore[index]
    messages = history(nan_object())
    result = await compactor(model).compact(messages)
    assert (result.report.summarized, result.report.failed) == (0, 1)
    assert 'wrong shape: $.score' in result.report.failures[0].reason
    assert content_of(result.messages) is content_of(messages)  # the original, untouched


async def test_nan_outside_the_content_does_not_stop_the_summary() -> None:
    """In the call's arguments, the return's metadata, or a sibling return that is not summarized."""
    messages = history(BIG_TEXT, BIG_OBJECT)
    call = messages[1].parts[-1]
    assert isinstance(call, ToolCallPart)
    call.args = {'q': 0, 'threshold': NAN}
    first = messages[2].parts[0]
    assert isinstance(first, ToolReturnPart)
    first.metadata = {'n': 0, 'elapsed': NAN}
    last = messages[4]
    assert isinstance(last, ModelRequest)
    last.parts.append(ToolReturnPart('search', {'small': NAN}, tool_call_id='call_1b'))
    result = await compactor().compact(messages)
    assert (result.report.summarized, result.report.failed) == (2, 0), result.report.failures
    check_history(messages, result.messages, result.changed)
    after_call, after_first = result.messages[1].parts[-1], result.messages[2].parts[0]
    assert math.isnan(after_call.args['threshold']) and math.isnan(after_first.metadata['elapsed'])  # type: ignore[union-attr,index]
    assert math.isnan(result.messages[4].parts[1].content['small'])  # type: ignore[union-attr,index]


def test_the_shape_check_on_nan() -> None:
    assert shape_mismatch(NAN, NAN) is None
    assert shape_mismatch({'a': [1, NAN]}, {'a': ['… 1 item omitted …', NAN]}) is None
    assert shape_mismatch(NAN, 0.0) == '$: expected the number nan, got 0.0'
    assert shape_mismatch(NAN, None) is not None
    assert shape_mismatch(0.0, NAN) is not None
    assert shape_mismatch(float('inf'), float('inf')) is None and shape_mismatch(float('inf'), NAN) is not None
