"""The shape contract: what a summary may and may not be."""

from __future__ import annotations

import pytest

from summarizer._shape import (
    MAX_DEPTH,
    _conforms,  # pyright: ignore[reportPrivateUsage]
    carries_text,
    nested_deeper_than,
    plain_structure,
    schema_for,
    shape_mismatch,
)

ORIGINAL = {
    'query': 'apt28',
    'count': 3,
    'ok': True,
    'next': None,
    'results': [{'id': 1, 'title': 'long title one'}, {'id': 2, 'title': 'long title two'}],
}


@pytest.mark.parametrize(
    'summary',
    [
        {'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': [{'id': 2, 'title': 't'}]},
        {'query': '', 'count': 3, 'ok': True, 'next': None, 'results': []},
    ],
)
def test_conforming_summaries_pass(summary: object) -> None:
    assert shape_mismatch(ORIGINAL, summary) is None


@pytest.mark.parametrize(
    ('summary', 'reason'),
    [
        ('a string', 'expected an object'),
        ({'count': 3, 'query': 'a', 'ok': True, 'next': None, 'results': []}, 'keys'),
        ({'query': 'a', 'count': 4, 'ok': True, 'next': None, 'results': []}, 'number 3'),
        ({'query': 'a', 'count': 3, 'ok': 1, 'next': None, 'results': []}, 'expected true'),
        ({'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': [{'id': 1, 'title': 'x'}] * 3}, 'more than'),
        (
            {
                'query': 'a',
                'count': 3,
                'ok': True,
                'next': None,
                'results': [{'id': 2, 'title': 'x'}, {'id': 1, 'title': 'y'}],
            },
            'in order',
        ),
        ({'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': [{'id': 1}]}, 'matches no original item'),
    ],
)
def test_broken_summaries_are_named(summary: object, reason: str) -> None:
    mismatch = shape_mismatch(ORIGINAL, summary)
    assert mismatch is not None and reason in mismatch


def test_string_and_list_shapes() -> None:
    assert shape_mismatch('long text', 'short') is None
    assert shape_mismatch('long text', ['short']) is not None
    assert shape_mismatch(['a', 'b', 'c'], ['a c']) is None
    assert shape_mismatch(['a', 'b'], 'a b') is not None


def test_schema_follows_shape_and_stays_small_for_long_lists() -> None:
    schema = schema_for(ORIGINAL)
    assert schema['required'] == list(ORIGINAL)
    assert schema['additionalProperties'] is False
    results = schema['properties']['results']  # type: ignore[index]
    assert results['maxItems'] == 2 and results['items']['required'] == ['id', 'title']
    many = schema_for([{'id': n, 'name': f'n{n}'} for n in range(5000)])
    assert 'anyOf' not in many['items']  # type: ignore[operator]


def test_emptiness() -> None:
    assert not carries_text('  ')
    assert not carries_text(['', {'a': ' '}])
    assert carries_text({'a': '', 'n': 0})


class Name(str):
    pass


@pytest.mark.parametrize(
    'value', [{1: 'a'}, [(1, 2)], {'a': {None: 1}}, [Name('a')], {Name('a'): 1}, [b'bytes'], [{'a': object()}]]
)
def test_plain_structure_is_only_for_the_exact_json_types(value: object) -> None:
    assert plain_structure(value) is None


def nested(levels: int) -> object:
    """`levels` containers, lists and objects in turn, around a string."""
    value: object = 'leaf'
    for level in range(levels):
        value = [value] if level % 2 else {'key': value}
    return value


@pytest.mark.parametrize('levels', [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 5000])
def test_plain_structure_applies_the_depth_guard(levels: int) -> None:
    value = nested(levels)
    assert (plain_structure(value) is None) == nested_deeper_than(value, MAX_DEPTH)


def test_a_list_item_conforms_exactly_when_shape_mismatch_finds_nothing() -> None:
    """`_match_in_order` decides scalar items and records without wording a reason: the same verdict as `shape_mismatch`."""
    values: list[object] = [0, 1, -1, 10**20, 1.0, -0.0, 0.0, float('nan'), float('inf'), True, False, None, '', 'x']
    values += [[], [1], {}, {'a': 1}, 1.5, 2]
    values += [{'a': 1, 'b': 'x'}, {'b': 'x', 'a': 1}, {'a': 1.0, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 1, 'b': None}]
    values += [{'a': [1, 2]}, {'a': [2]}, {'a': [3]}, {'a': {'c': None}}, {'a': {'c': 0}}, {'a': {'c': 0, 'd': 1}}]
    for original in values:
        for summary in values:
            expected = shape_mismatch(original, summary) is None  # type: ignore[arg-type]
            assert _conforms(original, summary) is expected, (original, summary)  # type: ignore[arg-type]
