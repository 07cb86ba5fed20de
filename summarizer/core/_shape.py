"""The shape contract between a tool-return content and its summary.

A summary keeps the content's JSON type: a string stays a string; a list stays a list of fewer items,
those it keeps matching original items in order; an object keeps exactly its keys in their order,
with values shortened recursively; booleans and nulls keep their values, and numbers their
JSON literal: the same type and the same text (`1.0` stays `1.0`, not `1`; `-0.0` stays `-0.0`; a
NaN of an in-memory content stays a NaN).

A cut never passes for the whole. A list summary stands for its original item by item: in the place
of each run of items it drops it holds one string, `… N items omitted …` (`… 1 item omitted …`),
whatever the type of its other items, since nothing of that type could say it: this marker is the
one item of a summary that matches no original item. Read with each marker standing for its N items,
the summary lines up with the original, every kept item matching the original item at its place,
and accounts for all of them. A string that was not blank never becomes blank: a summary that drops
all of it writes `…` (a text of several lines, a marker line counting them).

The same shape drives the JSON schema asked of the model, so the model can hardly get the type wrong,
and the post-check, which enforces it anyway.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator
from itertools import chain, compress, repeat
from typing import TypeAlias, TypeGuard, cast

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


ITEMS_OMITTED = re.compile(r'… ([1-9]\d*) items? omitted …')
"""The item a list summary holds in the place of a run of dropped items (see `items_marker`)."""
DROPPED_TEXT = '…'
"""What a summary writes for a string of one line it drops whole: never blank, so the cut shows."""


def items_marker(count: int) -> str:
    """The item standing for a run of `count` dropped items of a list."""
    return f'… {count} {"item" if count == 1 else "items"} omitted …'


def keys_marker(count: int) -> str:
    """The last key of an object in JSON text whose other `count` keys were dropped; its value is null.

    Only a summary of JSON text may drop keys (`shape_mismatch(keys_omitted=True)`): the text still
    parses as an object, while an object content keeps every key, as its caller may read any of them.
    A key, not a value: a summary keeps every key it is given and a null as it is, never cut.
    """
    return f'… {count} {"key" if count == 1 else "keys"} omitted …'


MAX_DEPTH = 200
"""Contents nested deeper are never summarized: pydantic cannot serialize much deeper (about 255
levels), and the recursive shape functions here would approach Python's recursion limit."""


def schema_for(value: JsonValue) -> JsonSchema:
    """A JSON schema every conforming summary of `value` satisfies.

    Scalars are typed, not pinned with `const`: a list of 5,000 records would otherwise yield a schema
    as large as the content. Their exact values are left to the prompt and the post-check.
    """
    return schema_of(structure_of(value))


Structure: TypeAlias = 'str | tuple[object, ...]'
"""What `schema_for` makes of a value, as a hashable key: equal structures, equal schemas.

A scalar's type name; `('array', length, item structures)`, the distinct structures of the items in
order of first appearance; or `('object', ((key, structure), ...))`.
"""


def schema_of(structure: Structure) -> JsonSchema:
    """The schema of the values of `structure`.

    Built from the structure, not the value: a list holds one entry per distinct item structure, so a
    list of thousands of records costs one schema per kind of record, not one per record. The dicts
    are new on every call (pydantic-ai's schema transformers may edit them in place).
    """
    if isinstance(structure, str):
        return {'type': structure}
    if structure[0] == 'array':
        _, length, kinds = structure
        array: JsonSchema = {'type': 'array', 'maxItems': length}
        kinds = cast('tuple[Structure, ...]', kinds)
        items = [schema_of(kind) for kind in kinds]
        if items and 'string' not in kinds:  # a list of strings takes the marker as one of them
            items.append({'type': 'string', 'pattern': f'^{ITEMS_OMITTED.pattern}$'})
        if items:
            array['items'] = items[0] if len(items) == 1 else {'anyOf': items}
        return array
    fields = cast('tuple[tuple[str, Structure], ...]', structure[1])
    return {
        'type': 'object',
        'properties': {key: schema_of(kind) for key, kind in fields},
        'required': [key for key, _ in fields],
        'additionalProperties': False,
    }


def structure_of(value: JsonValue) -> Structure:
    """The structure of any JSON data (subclasses of its types included)."""
    scalar = _SCALAR_TYPES.get(type(value))
    if scalar is not None:
        return scalar
    if isinstance(value, list):
        return ('array', len(value), tuple(dict.fromkeys(map(structure_of, value))))
    if isinstance(value, dict):
        return ('object', tuple(zip(value, map(structure_of, value.values()))))
    return next(name for kind, name in _SCALAR_TYPES.items() if isinstance(value, kind))  # a subclass of a scalar type


_SCALAR_TYPES: dict[type, str] = {str: 'string', bool: 'boolean', int: 'integer', float: 'number', type(None): 'null'}
"""In `isinstance` order for subclasses: `bool` before `int`."""


def is_plain(value: object, *, max_depth: int = MAX_DEPTH) -> bool:
    """Whether `value` is plain JSON nesting at most `max_depth` levels.

    Plain JSON: made of the exact JSON types only (dicts with `str` keys, lists, `str`, `int`,
    `float`, `bool`, None). Such a value is already its own JSON data (`to_jsonable_python` would
    return an equal copy) and passes the depth guard: one pass proves both, instead of three (depth
    guard, copy, comparison). A value that is not (or nests deeper) takes the caller's careful path.

    Level by level, as `nested_deeper_than`, and each level's containers all at once: the types of
    their keys and items are found in C, so Python runs a few times per level, not once per value
    nor per container (a list of 500 records holds some 2,000 containers: 120 -> 75 µs).
    """
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return True
    if kind not in _PLAIN_CONTAINERS:
        return False
    level: list[object] = [value]
    depth = 0
    while level:
        if depth >= max_depth:
            return False
        dicts = [cast('dict[object, object]', container) for container in level if type(container) is dict]
        if not all_strings(chain.from_iterable(dicts)):
            return False  # a key JSON would turn into a string
        items: Collection[object]
        if len(level) == 1:  # the content itself: its items as they are, not copied
            items = dicts[0].values() if dicts else cast('list[object]', level[0])
        else:
            lists = [cast('list[object]', container) for container in level if type(container) is list]
            items = [*chain.from_iterable(map(dict[object, object].values, dicts)), *chain.from_iterable(lists)]
        kinds = set(map(type, items))
        if _PLAIN_SCALARS.issuperset(kinds):
            return True  # nothing below
        if not _PLAIN_TYPES.issuperset(kinds):
            return False
        level = list(compress(items, map(_PLAIN_CONTAINERS.__contains__, map(type, items))))
        depth += 1
    return True


_PLAIN_SCALARS = frozenset(_SCALAR_TYPES)
_PLAIN_CONTAINERS = frozenset({dict, list})
_PLAIN_TYPES = _PLAIN_SCALARS | _PLAIN_CONTAINERS


def all_strings(items: Iterable[object]) -> bool:
    """Whether `items` are all strings (true of none), told by their types in C: no Python runs per item."""
    return _STR_ONLY.issuperset(map(type, items))


_STR_ONLY = frozenset({str})


_ROOT = '$'


def shape_mismatch(
    original: JsonValue, summary: object, path: str = _ROOT, *, keys_omitted: bool = False
) -> str | None:
    """Why `summary` breaks the shape contract of `original`, or None when it keeps it.

    `keys_omitted`: objects may drop keys, keeping the others in order with a null under `keys_marker`
    last, as a summary of JSON text may.
    """
    if isinstance(original, str):
        if not isinstance(summary, str):
            return f'{path}: expected a string, got {_kind(summary)}'
        if _blank(summary) and not _blank(original) and path != _ROOT:  # a blank summary is an empty one
            return f'{path}: a text cut to nothing, with nothing saying so (a string dropped whole is `…`)'
        return None
    if isinstance(original, bool) or original is None:
        return None if summary is original else f'{path}: expected {json.dumps(original)}, got {_brief(summary)}'
    if isinstance(original, (int, float)):
        if isinstance(summary, (int, float)) and not isinstance(summary, bool) and _same_number(original, summary):
            return None
        return f'{path}: expected the number {original}, got {_brief(summary)}'
    if isinstance(original, list):
        if not is_list(summary):
            return f'{path}: expected a list, got {_kind(summary)}'
        return _line_up(original, summary, path, keys_omitted=keys_omitted)
    if not is_dict(summary):
        return f'{path}: expected an object, got {_kind(summary)}'
    if list(summary) != list(original) and not (keys_omitted and _keeps_keys(original, summary)):
        return f'{path}: keys {list(summary)[:8]} differ from the original keys {list(original)[:8]}'
    for key, item in original.items():
        if key in summary:
            reason = shape_mismatch(item, summary[key], f'{path}.{key}', keys_omitted=keys_omitted)
            if reason:
                return reason
    return None


def _keeps_keys(original: dict[str, JsonValue], summary: dict[object, object]) -> bool:
    """Whether `summary`'s keys are some of `original`'s in order, then a null under `keys_marker` counting the others."""
    keys = list(summary)
    dropped = len(original) - len(keys) + 1
    last = keys_marker(dropped)
    # `not keys`: `{}`, which a model may write, has no marker to read (refused, where `keys[-1]` raised)
    if not keys or dropped < 1 or keys[-1] != last or summary[last] is not None or last in original:
        return False
    places = {key: place for place, key in enumerate(original)}
    kept = [places.get(key, -1) if isinstance(key, str) else -1 for key in keys[:-1]]
    return -1 not in kept and kept == sorted(kept)  # each an original key, in the original's order


def _blank(text: str) -> bool:
    return not text or text.isspace()


def _same_number(original: float, summary: float) -> bool:
    """The same JSON literal: the same type and the same text, as `json.dumps` writes them.

    `==` is not enough: it equates `1` with `1.0` and `0.0` with `-0.0`, whose literals differ, so a
    summary passing it could rewrite a number's text in the output. A NaN (of an in-memory content:
    JSON has none) is the same number as a NaN, and must stay one: any other value, null included
    (pydantic dumps NaN as null), is a change.
    """
    return number_text(original) == number_text(summary)


def number_text(value: float) -> str:
    """The literal `json.dumps` writes for a number (`nan`, `inf` for the non-finite, which JSON has not)."""
    return int.__repr__(value) if isinstance(value, int) else float.__repr__(value)


def _line_up(original: list[JsonValue], summary: list[object], path: str, *, keys_omitted: bool) -> str | None:
    """Each summary item is the original item at its place, or a marker standing for the next N of them; all told.

    A string reading like a marker is the original item where it equals it (a kept item that
    reads like one), a marker anywhere else.
    """
    end = 0
    for index, item, position, dropped in _stand_ins(original, summary):
        end = position + (dropped or 1)
        if dropped:
            if end > len(original):
                return f'{path}[{index}]: {item!r} goes past the end of the original {len(original)} items'
            continue
        if position == len(original):
            return f'{path}[{index}]: one item more than the original {len(original)} ({_brief(item)})'
        if _nests(original[position]) or not _conforms(original[position], item):
            # Lists of lists or objects below are decided by `shape_mismatch` alone: `_conforms` first
            # walked all below and, on a mismatch or an object keeping fewer keys, `shape_mismatch`
            # walked it again, twice at each such list below, 2**depth for nested JSON text.
            if isinstance(original[position], (list, dict)):  # what in it does not match, and where
                reason = shape_mismatch(original[position], item, f'{path}[{index}]', keys_omitted=keys_omitted)
                if reason:
                    return reason
                continue
            return (
                f'{path}[{index}]: not original item {position} ({_brief(item)}): kept items keep their order, '
                "and dropped ones need '… N items omitted …' in their place"
            )
    if end < len(original):
        left = len(original) - end
        return f'{path}: its last {left} of {len(original)} items dropped with no {items_marker(left)!r} in their place'
    return None


def _nests(value: object) -> bool:
    """Whether `_conforms` on `value` would reach a list holding lists or objects (whose items it checks in turn).

    Such an item goes to `shape_mismatch` alone (`_line_up`); a record of scalars, of objects and of
    lists of scalars still takes `_conforms`. It reads what `_conforms` reads, never a list's items' insides.
    """
    if is_list(value):
        return not _PLAIN_SCALARS.issuperset(map(type, value))
    if not is_dict(value) or _PLAIN_SCALARS.issuperset(map(type, value.values())):
        return False  # a scalar, or a record of scalars (most items): decided in C
    return any(_nests(inner) for inner in value.values() if is_dict(inner) or is_list(inner))


def _stand_ins(original: list[JsonValue], summary: list[object]) -> Iterator[tuple[int, object, int, int]]:
    """Each summary item with its index, the original position it stands at, and how many items it marks dropped (0: a kept item)."""
    position = 0
    for index, item in enumerate(summary):
        marker = ITEMS_OMITTED.fullmatch(item) if isinstance(item, str) else None
        dropped = int(marker[1]) if marker and not (position < len(original) and original[position] == item) else 0
        yield index, item, position, dropped
        position += dropped or 1


def aligned_items(original: list[JsonValue], summary: list[JsonValue]) -> Iterator[tuple[int, JsonValue, JsonValue]]:
    """The kept items of a list summary that keeps the shape contract: (index in the summary, original item, item)."""
    for index, item, position, dropped in _stand_ins(original, cast('list[object]', summary)):
        if not dropped:
            yield index, original[position], cast('JsonValue', item)


def _conforms(original: JsonValue, summary: object) -> bool:
    """`shape_mismatch(original, summary) is None`, without wording a reason for every item that matches.

    `_line_up` checks every kept item of a long list (a summary of a hundred records): wording a
    reason for each is most of the cost of `shape_mismatch`. Scalars are decided here by the very
    tests `shape_mismatch` makes (the int literals of two ints are the same exactly when the values
    are equal), objects by the same keys in the same order and conforming values, as `shape_mismatch`
    tests them; lists ask `shape_mismatch`.
    """
    kind = type(original)
    if kind is str:
        return isinstance(summary, str) and (not _blank(summary) or _blank(cast(str, original)))
    if kind is int and type(summary) is int:
        return original == summary
    if original is None or kind is bool:
        return summary is original
    if isinstance(original, float):
        return isinstance(summary, (int, float)) and not isinstance(summary, bool) and _same_number(original, summary)
    if isinstance(original, dict):  # a record: its number fields would word their match too
        return (
            is_dict(summary)
            and list(summary) == list(original)
            and all(map(_conforms, original.values(), summary.values()))
        )
    return shape_mismatch(original, summary) is None


def carries_text(value: object) -> bool:
    """Whether a summary says anything: some scalar, or some string that is neither blank nor a cut's marker."""
    if isinstance(value, str):
        return not _blank(value) and value != DROPPED_TEXT and not ITEMS_OMITTED.fullmatch(value)
    if is_list(value):
        return any(carries_text(item) for item in value)
    if is_dict(value):
        return any(carries_text(item) for item in value.values())
    return True


def is_list(value: object) -> TypeGuard[list[object]]:
    """`isinstance(value, list)` that tells the type checker the items are of no known type."""
    return isinstance(value, list)


def is_dict(value: object) -> TypeGuard[dict[object, object]]:
    """`isinstance(value, dict)` that tells the type checker the keys and values are of no known type."""
    return isinstance(value, dict)


def _kind(value: object) -> str:
    return _KINDS.get(type(value), type(value).__name__)


_KINDS: dict[type, str] = {str: 'a string', list: 'a list', dict: 'an object', bool: 'a boolean'}


def nested_deeper_than(value: object, limit: int) -> bool:
    """Whether lists and objects in `value` nest more than `limit` levels (iterative: it cannot overflow).

    Level by level, with the containers of each level picked out by `compress` and `isinstance`
    mapped in C: Python runs once per container, not once per value (five times faster on records).
    """
    level: list[_Container] = [value] if _is_container(value) else []
    depth = 0
    while level:
        if depth >= limit:
            return True
        below: list[_Container] = []
        for item in level:
            children: Iterable[object] = item.values() if isinstance(item, dict) else item
            # `compress` keeps exactly the items `isinstance` picked out, which the checker cannot follow
            below.extend(
                cast('Iterator[_Container]', compress(children, map(isinstance, children, repeat(_CONTAINERS))))
            )
        level = below
        depth += 1
    return False


_CONTAINERS = (list, tuple, dict)
_Container: TypeAlias = 'list[object] | tuple[object, ...] | dict[object, object]'


def _is_container(value: object) -> TypeGuard[_Container]:
    return isinstance(value, _CONTAINERS)


def _brief(value: object) -> str:
    text = _BRIEF.encode(value)
    return text if len(text) <= 40 else text[:37] + '...'


_BRIEF = json.JSONEncoder(ensure_ascii=False, default=str)
"""`json.dumps(value, ensure_ascii=False, default=str)` without an encoder built per call: `_match_in_order` words a
mismatch for every original item it passes over."""
