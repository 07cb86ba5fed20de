"""The shape contract between a tool-return content and its summary.

A summary keeps the content's JSON type: a string stays a string; a list stays a list with no more
items, each kept item matching an original item in order; an object keeps exactly its keys in their
order, with values shortened recursively; numbers, booleans and nulls keep their values.

The same shape drives the JSON schema asked of the model, so the model can hardly get the type wrong,
and the post-check, which enforces it anyway.
"""

from __future__ import annotations

import json
from itertools import compress, repeat
from typing import TypeAlias

JsonValue: TypeAlias = 'str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]'
JsonSchema: TypeAlias = dict[str, object]


def shape_name(value: JsonValue) -> str:
    """`string`, `list` or `object` (which prompt template applies); scalars are never summarized."""
    if isinstance(value, str):
        return 'string'
    if isinstance(value, list):
        return 'list'
    if isinstance(value, dict):
        return 'object'
    return 'scalar'


def schema_for(value: JsonValue) -> JsonSchema:
    """A JSON schema every conforming summary of `value` satisfies.

    Scalars are typed, not pinned with `const`: a list of 5,000 records would otherwise yield a schema
    as large as the content. Their exact values are left to the prompt and the post-check.
    """
    if isinstance(value, str):
        return {'type': 'string'}
    if isinstance(value, bool):
        return {'type': 'boolean'}
    if isinstance(value, int):
        return {'type': 'integer'}
    if isinstance(value, float):
        return {'type': 'number'}
    if value is None:
        return {'type': 'null'}
    if isinstance(value, list):
        # One schema per distinct item structure, in order of first appearance. Items are grouped by
        # a hashable structure key rather than by their serialized schemas: a list of thousands of
        # records then costs one cheap pass, not a schema and a `json.dumps` per record.
        first_of_kind: dict[_Structure, JsonValue] = {}
        for item in value:
            first_of_kind.setdefault(_structure(item), item)
        items = [schema_for(item) for item in first_of_kind.values()]
        array: JsonSchema = {'type': 'array', 'maxItems': len(value)}
        if items:
            array['items'] = items[0] if len(items) == 1 else {'anyOf': items}
        return array
    return {
        'type': 'object',
        'properties': {key: schema_for(item) for key, item in value.items()},
        'required': list(value),
        'additionalProperties': False,
    }


_Structure: TypeAlias = 'str | tuple[object, ...]'
"""What `schema_for` makes of a value, as a hashable key: equal keys, equal schemas."""


def _structure(value: JsonValue) -> _Structure:
    scalar = _SCALAR_TYPES.get(type(value))
    if scalar is not None:
        return scalar
    if isinstance(value, list):
        return ('array', len(value), tuple(dict.fromkeys(map(_structure, value))))
    if isinstance(value, dict):
        return ('object', tuple(zip(value, map(_structure, value.values()))))
    return schema_for(value)['type']  # type: ignore[return-value]  # a subclass of a scalar type


_SCALAR_TYPES: dict[type, str] = {str: 'string', bool: 'boolean', int: 'integer', float: 'number', type(None): 'null'}


def shape_mismatch(original: JsonValue, summary: object, path: str = '$') -> str | None:
    """Why `summary` breaks the shape contract of `original`, or None when it keeps it."""
    if isinstance(original, str):
        return None if isinstance(summary, str) else f'{path}: expected a string, got {_kind(summary)}'
    if isinstance(original, bool) or original is None:
        return None if summary is original else f'{path}: expected {json.dumps(original)}, got {_brief(summary)}'
    if isinstance(original, (int, float)):
        if isinstance(summary, (int, float)) and not isinstance(summary, bool) and summary == original:
            return None
        return f'{path}: expected the number {original}, got {_brief(summary)}'
    if isinstance(original, list):
        if not isinstance(summary, list):
            return f'{path}: expected a list, got {_kind(summary)}'
        if len(summary) > len(original):
            return f'{path}: {len(summary)} items, more than the original {len(original)}'
        return _match_in_order(original, summary, path)
    if not isinstance(summary, dict):
        return f'{path}: expected an object, got {_kind(summary)}'
    if list(summary) != list(original):
        return f'{path}: keys {list(summary)[:8]} differ from the original keys {list(original)[:8]}'
    for key, item in original.items():
        reason = shape_mismatch(item, summary[key], f'{path}.{key}')
        if reason:
            return reason
    return None


def _match_in_order(original: list[JsonValue], summary: list[object], path: str) -> str | None:
    """Each summary item must conform to an original item, the matches strictly increasing."""
    position = 0
    for index, item in enumerate(summary):
        while position < len(original) and shape_mismatch(original[position], item) is not None:
            position += 1
        if position == len(original):
            return f'{path}[{index}]: matches no original item in order ({_brief(item)})'
        position += 1
    return None


def carries_text(value: object) -> bool:
    """Whether a summary says anything: some non-blank string or some scalar inside it."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list):
        return any(carries_text(item) for item in value)
    if isinstance(value, dict):
        return any(carries_text(item) for item in value.values())
    return True


def _kind(value: object) -> str:
    return {str: 'a string', list: 'a list', dict: 'an object', bool: 'a boolean'}.get(type(value), type(value).__name__)


MAX_DEPTH = 200
"""Contents nested deeper are never summarized: pydantic cannot serialize much deeper (about 255
levels), and the recursive shape functions here would approach Python's recursion limit."""


def nested_deeper_than(value: object, limit: int) -> bool:
    """Whether lists and objects in `value` nest more than `limit` levels (iterative: it cannot overflow).

    Level by level, with the containers of each level picked out by `compress` and `isinstance`
    mapped in C: Python runs once per container, not once per value (five times faster on records).
    """
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        if depth >= limit:
            return True
        below: list[object] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend(compress(children, map(isinstance, children, repeat(_CONTAINERS))))
        level = below
        depth += 1
    return False


_CONTAINERS = (list, tuple, dict)


def _brief(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + '...'
