"""The walk's one-pass measure of plain JSON contents gives what the careful path gives."""

from __future__ import annotations

import dataclasses
import enum
import json

import pytest
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_core import to_jsonable_python

from summarizer.core._config import SummarizerConfig
from summarizer.core._shape import MAX_DEPTH, schema_for, schema_of, structure_of
from summarizer.core._tokens import estimate_tokens, json_text, message_texts, part_text, strings_json
from summarizer.pipeline._walk import _json_data, is_summarizable, plain_json_text, walk


class Level(enum.IntEnum):
    HIGH = 3


ROW = {'id': 'ord_00001', 'total': 12.5, 'ok': True, 'note': None, 'level': Level.HIGH}
CONTENTS = {
    'records': [dict(ROW, id=f'ord_{n:05d}') for n in range(40)],
    'plain records': [dict(ROW, id=f'ord_{n:05d}', level=3, tags=['a'] * (n % 3)) for n in range(40)],
    'tuples': tuple((n, f'item {n}') for n in range(120)),
    'int keys': {n: f'value {n}' for n in range(150)},
    'colliding keys': {**{n: 'x' * 20 for n in range(60)}, **{str(n): 'y' * 20 for n in range(60)}},
    'nan': [float('nan')] + [f'item {n}' for n in range(200)],
    'unicode': [f'Zürich → 東京 {n}' for n in range(150)],
}


def history(content: object) -> list[ModelMessage]:
    return [
        ModelResponse(parts=[ToolCallPart('query', {}, tool_call_id='c1')]),
        ModelRequest(parts=[ToolReturnPart('query', content, tool_call_id='c1')]),
    ]


@pytest.mark.parametrize('name', list(CONTENTS))
def test_candidates_as_the_careful_path_measures_them(name: str) -> None:
    content = CONTENTS[name]
    careful = json_text(to_jsonable_python(content, fallback=str))
    tokens = estimate_tokens(careful)
    for threshold in (tokens - 1, tokens, tokens + 1):  # just over, at, just under the threshold
        config = dataclasses.replace(SummarizerConfig(), threshold_tokens=threshold)
        found = walk(history(content), config=config, tokenizer=estimate_tokens).candidates
        if tokens > threshold:
            [candidate] = found
            assert (candidate.text, candidate.tokens) == (careful, tokens)
            assert candidate.content == to_jsonable_python(content, fallback=str)
        else:
            assert found == []


@pytest.mark.parametrize('name', list(CONTENTS))
def test_the_texts_the_walk_hands_on_are_what_a_model_reads(name: str) -> None:
    """`Walk.texts` stand in for `part_text` when a session counts a request's tokens: they must be the same."""
    messages = [*history(CONTENTS[name]), *history('a string content'), *history({'small': 1})]
    found = walk(messages, config=SummarizerConfig(), tokenizer=estimate_tokens)
    made = {(message, part): text for message, texts in found.texts.items() for part, text in texts.items()}
    assert (3, 0) not in made  # a string is its own text: nothing to hand on
    assert (5, 0) in made  # a small object's text, made to rule it out, counts its tokens too
    assert ((1, 0) in made) == (plain_json_text(CONTENTS[name]) is not None)
    for (message, part), text in made.items():
        assert text == part_text(messages[message].parts[part])
    for index, message in enumerate(messages):
        assert list(message_texts(message, made=found.texts.get(index))) == list(message_texts(message))


@pytest.mark.parametrize('name', sorted(CONTENTS))
def test_the_walks_content_gives_the_careful_paths_schema(name: str) -> None:
    """Plain contents are used as they are (the walk proved them plain in one pass), others as their JSON data."""
    content = CONTENTS[name]
    config = dataclasses.replace(SummarizerConfig(), threshold_tokens=10)
    [candidate] = walk(history(content), config=config, tokenizer=estimate_tokens).candidates
    careful = to_jsonable_python(content, fallback=str)
    assert schema_of(structure_of(candidate.content)) == schema_for(careful)
    assert (candidate.content is content) == (name in ('plain records', 'unicode'))


def _nested(depth: int) -> object:
    """Lists and objects nesting `depth` levels."""
    value: object = 'leaf'
    for level in range(depth):
        value = [value, level] if level % 2 else {'inner': value}
    return value


@pytest.mark.parametrize(
    'content',
    [
        'text',
        None,
        {'rows': [1, 2.5, 'x'], 'ok': True},
        (1, 2),
        {1: 'an int key'},
        [[[[[[[[1]]]]]]]],
        _nested(MAX_DEPTH),
        _nested(MAX_DEPTH + 1),
        [{'row': [n]} for n in range(MAX_DEPTH)],  # more brackets than levels: the depth is walked
        [BinaryContent(data=b'\x89PNG', media_type='image/png')],
    ],
)
def test_is_summarizable_answers_as_the_walk_does(content: object) -> None:
    """The post-check's cheap predicate agrees with the walk's `_json_data` (multimodal, too deep: never)."""
    assert is_summarizable(content) is (_json_data(content, plain_json_text(content)) is not None)


_EVERY_CHARACTER = ''.join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)


@pytest.mark.parametrize(
    'value',
    [
        _EVERY_CHARACTER,
        [_EVERY_CHARACTER[start : start + 997] for start in range(0, 20_000, 997)],
        ['', 'a "quoted" \\ line\n', '\x7f\u2028'],
        [],
    ],
)
def test_strings_json_writes_what_json_writes(value: object) -> None:
    """pydantic-core's text of a string or a list of strings is the standard library's, byte for byte."""
    assert strings_json(value) == json.dumps(value, ensure_ascii=False, separators=(',', ':'))


@pytest.mark.parametrize('value', ['a lone \ud800 surrogate', ['ok', '\udfff'], ['a', 1], ('a', 'b'), {'a': 'b'}, 1])
def test_strings_json_leaves_the_rest_to_json(value: object) -> None:
    """A lone surrogate (no UTF-8 form), an item not a string, a tuple, an object: None, for the caller's own encoder."""
    assert strings_json(value) is None
