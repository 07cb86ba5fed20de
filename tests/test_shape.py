"""The shape contract: what a summary may and may not be."""

from __future__ import annotations

import pytest

from summarizer._shape import carries_text, schema_for, shape_mismatch

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
        ({'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': [{'id': 2, 'title': 'x'}, {'id': 1, 'title': 'y'}]}, 'in order'),
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
