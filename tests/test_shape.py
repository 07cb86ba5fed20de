"""The shape contract: what a summary may and may not be."""

from __future__ import annotations

import enum
import random
import re
import time

import pytest
from helpers import random_json

from summarizer.core._shape import (
    MAX_DEPTH,
    JsonValue,
    _conforms,
    carries_text,
    is_plain,
    items_marker,
    keys_marker,
    nested_deeper_than,
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
        {
            'query': 'a',
            'count': 3,
            'ok': True,
            'next': None,
            'results': ['… 1 item omitted …', {'id': 2, 'title': 't'}],
        },
        {'query': '…', 'count': 3, 'ok': True, 'next': None, 'results': ['… 2 items omitted …']},
        {'query': 'apt28', 'count': 3, 'ok': True, 'next': None, 'results': ORIGINAL['results']},
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
        (
            {
                'query': 'a',
                'count': 3,
                'ok': True,
                'next': None,
                'results': [{'id': 1, 'title': 'x'}, {'id': 2, 'title': 'y'}, {'id': 2, 'title': 'z'}],
            },
            'one item more than the original 2',
        ),
        (
            {
                'query': 'a',
                'count': 3,
                'ok': True,
                'next': None,
                'results': [{'id': 2, 'title': 'x'}, {'id': 1, 'title': 'y'}],
            },
            '$.results[0].id: expected the number 1',
        ),
        ({'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': [{'id': 1}]}, "$.results[0]: keys ['id']"),
        ({'query': '', 'count': 3, 'ok': True, 'next': None, 'results': ['… 2 items omitted …']}, 'cut to nothing'),
        ({'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': []}, "no '… 2 items omitted …'"),
        ({'query': 'a', 'count': 3, 'ok': True, 'next': None, 'results': ['… 3 items omitted …']}, 'past the end'),
    ],
)
def test_broken_summaries_are_named(summary: object, reason: str) -> None:
    mismatch = shape_mismatch(ORIGINAL, summary)
    assert mismatch is not None and reason in mismatch


def test_string_and_list_shapes() -> None:
    assert shape_mismatch('long text', 'short') is None
    assert shape_mismatch('long text', ['short']) is not None
    assert shape_mismatch(['a', 'b', 'c'], ['a c', '… 2 items omitted …']) is None
    assert shape_mismatch(['a', 'b'], 'a b') is not None


@pytest.mark.parametrize(
    ('original', 'summary'),
    [
        # lists of lists: an inner list cut or emptied says so, in its own place
        ([[1, 2, 3], [4, 5]], [[1, '… 2 items omitted …'], ['… 2 items omitted …']]),
        ([[1, 2, 3], [4, 5]], ['… 1 item omitted …', [4, 5]]),
        # lists of objects holding lists: the legs of each itinerary
        (
            [{'id': 'A', 'legs': ['ZRH-AMS', 'AMS-GRU']}, {'id': 'B', 'legs': ['ZRH-GRU']}],
            [{'id': 'A', 'legs': ['ZRH-AMS', '… 1 item omitted …']}, '… 1 item omitted …'],
        ),
        # objects of lists
        (
            {'time': [1, 2, 3], 'temp': [9, 8, 7]},
            {'time': ['… 2 items omitted …', 3], 'temp': [9, '… 2 items omitted …']},
        ),
    ],
)
def test_a_cut_list_says_where_and_how_many_items_it_dropped(original: JsonValue, summary: JsonValue) -> None:
    assert shape_mismatch(original, summary) is None


@pytest.mark.parametrize(
    ('original', 'summary', 'reason'),
    [
        ([[1, 2, 3], [4, 5]], [[1, 2], [4, 5]], "$[0]: its last 1 of 3 items dropped with no '… 1 item omitted …'"),
        ([[1, 2, 3], [4, 5]], [[1, 2, 3], []], '$[1]: its last 2 of 2 items dropped'),
        ([[1, 2, 3], [4, 5]], [[4, 5]], '$[0][0]: not original item 0'),
        (
            [{'id': 'A', 'legs': ['ZRH-AMS', 'AMS-GRU']}, {'id': 'B', 'legs': ['ZRH-GRU']}],
            [{'id': 'A', 'legs': ['AMS-GRU']}, {'id': 'B', 'legs': []}],
            '$[0].legs: its last 1 of 2 items dropped',  # 'AMS-GRU' stands in for the first leg: a string
        ),
        (
            [{'id': 'A', 'legs': ['ZRH-AMS', 'AMS-GRU']}, {'id': 'B', 'legs': ['ZRH-GRU']}],
            [{'id': 'A', 'legs': ['… 2 items omitted …']}],
            '$: its last 1 of 2 items dropped',
        ),
        ({'time': [1, 2, 3], 'temp': [9, 8, 7]}, {'time': [2, 3], 'temp': [9, 8, 7]}, '$.time[0]: not original item 0'),
        ({'time': [1, 2, 3], 'note': 'warm'}, {'time': [1, 2, 3], 'note': ' '}, '$.note: a text cut to nothing'),
    ],
)
def test_a_list_cut_or_emptied_without_saying_so_is_refused(
    original: JsonValue, summary: JsonValue, reason: str
) -> None:
    mismatch = shape_mismatch(original, summary)
    assert mismatch is not None and mismatch.startswith(reason), mismatch


def test_a_kept_item_that_reads_like_a_marker_is_an_item_where_it_equals_the_original() -> None:
    original: JsonValue = ['a', '… 1 item omitted …', 'b']
    assert shape_mismatch(original, original) is None
    assert shape_mismatch(original, ['a', '… 2 items omitted …']) is None
    assert shape_mismatch(['a', 'x', 'b'], ['a', '… 1 item omitted …', 'b']) is None
    assert items_marker(1) == '… 1 item omitted …' and items_marker(12) == '… 12 items omitted …'


def test_schema_follows_shape_and_stays_small_for_long_lists() -> None:
    schema = schema_for(ORIGINAL)
    assert schema['required'] == list(ORIGINAL)
    assert schema['additionalProperties'] is False
    results = schema['properties']['results']  # type: ignore[index]
    record, marker = results['items']['anyOf']
    assert results['maxItems'] == 2 and record['required'] == ['id', 'title']
    assert re.fullmatch(marker['pattern'], items_marker(12)) and marker['type'] == 'string'
    many = schema_for([{'id': n, 'name': f'n{n}'} for n in range(5000)])
    assert len(many['items']['anyOf']) == 2  # type: ignore[index]  # one kind of record, and the marker
    assert 'anyOf' not in schema_for(['a', 'b'])['items']  # type: ignore[operator]  # a string list takes it as is


def test_emptiness() -> None:
    assert not carries_text('  ')
    assert not carries_text(['', {'a': ' '}])
    assert carries_text({'a': '', 'n': 0})
    assert not carries_text(['…', '… 3 items omitted …'])  # what says a cut says nothing of the content


class Name(str):
    pass


class Level(enum.IntEnum):
    ONE = 1


@pytest.mark.parametrize(
    'value', [{1: 'a'}, [(1, 2)], {'a': {None: 1}}, [Name('a')], {Name('a'): 1}, [b'bytes'], [{'a': object()}]]
)
def test_is_plain_is_only_for_the_exact_json_types(value: object) -> None:
    assert not is_plain(value)


def exactly_json(value: object) -> bool:
    """What `is_plain` tells, item by item: the exact JSON types, and `str` keys."""
    if type(value) in (str, int, float, bool, type(None)):
        return True
    if type(value) is list:
        return all(map(exactly_json, value))  # pyright: ignore[reportUnknownArgumentType]
    if type(value) is dict:
        return all(type(key) is str and exactly_json(item) for key, item in value.items())  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return False


def spoiled(value: object, rng: random.Random) -> object:
    """`value` with, now and then, one of its containers, keys or scalars of a type JSON would change."""
    if rng.random() < 0.03:
        return rng.choice([(1, 'a'), Name('n'), b'b', Level.ONE, object()])
    if isinstance(value, list):
        return [spoiled(item, rng) for item in value]
    if isinstance(value, dict):
        key: object = 7 if rng.random() < 0.03 else None
        return {(key if key is not None else name): spoiled(item, rng) for name, item in value.items()}
    return value


@pytest.mark.parametrize('seed', range(5))
def test_is_plain_tells_the_exact_json_types_as_a_walk_item_by_item_does(seed: int) -> None:
    """Containers are judged by their items' types at once: the same verdict as item by item, at any depth."""
    rng = random.Random(seed)
    verdicts: set[bool] = set()
    for _ in range(2000):
        value = spoiled(random_json(rng), rng)
        verdicts.add(is_plain(value))
        assert is_plain(value) == exactly_json(value), value
    assert verdicts == {True, False}


def nested(levels: int) -> object:
    """`levels` containers, lists and objects in turn, around a string."""
    value: object = 'leaf'
    for level in range(levels):
        value = [value] if level % 2 else {'key': value}
    return value


@pytest.mark.parametrize('levels', [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 5000])
def test_is_plain_applies_the_depth_guard(levels: int) -> None:
    value = nested(levels)
    assert is_plain(value) == (not nested_deeper_than(value, MAX_DEPTH))
    assert is_plain([[], {}, value]) == (not nested_deeper_than([value], MAX_DEPTH))


def test_a_list_item_conforms_exactly_when_shape_mismatch_finds_nothing() -> None:
    """`_match_in_order` decides scalar items and records without wording a reason: the same verdict as `shape_mismatch`."""
    values: list[object] = [0, 1, -1, 10**20, 1.0, -0.0, 0.0, float('nan'), float('inf'), True, False, None, '', 'x']
    values += [[], [1], {}, {'a': 1}, 1.5, 2]
    values += [{'a': 1, 'b': 'x'}, {'b': 'x', 'a': 1}, {'a': 1.0, 'b': 'x'}, {'a': 1, 'b': 'y'}, {'a': 1, 'b': None}]
    values += [{'a': [1, 2]}, {'a': [2]}, {'a': [3]}, {'a': {'c': None}}, {'a': {'c': 0}}, {'a': {'c': 0, 'd': 1}}]
    for original in values:
        for summary in values:
            expected = shape_mismatch(original, summary, '$[0]') is None  # type: ignore[arg-type]  # as an item
            assert _conforms(original, summary) is expected, (original, summary)  # type: ignore[arg-type]


@pytest.mark.parametrize('keys_omitted', [False, True])
def test_lists_nested_deep_are_checked_in_time_linear_in_their_depth(keys_omitted: bool) -> None:
    """Each nested list once: checking a kept item twice (match, then reason) doubled the work at each level."""
    original: JsonValue = {f'k{n}': n for n in range(5)}
    summary: JsonValue = {'k0': 0, keys_marker(4): None} if keys_omitted else {**original, 'k4': 5}
    for level in range(20):
        original, summary = ([original], [summary]) if level % 2 else ([{'a': original}], [{'a': summary}])
    started = time.perf_counter()
    reason = shape_mismatch(original, summary, keys_omitted=keys_omitted)
    assert time.perf_counter() - started < 0.5  # was 2**20 descents, 4 s
    assert (reason is None) is keys_omitted
