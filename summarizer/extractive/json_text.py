r"""JSON inside a string (`json.dumps(rows)` returned as text): summarized by its shape, written back alike.

Cutting such a string by lines would leave broken JSON, and most LangChain tool messages and MCP
tools return exactly this. So the text is parsed, its value summarized as records are (`tree`:
fewer list items, `… N items omitted …` in the place of those dropped), and written back in the
original's style (indent, separators, `\\u` escapes), so the summary still parses, as the same JSON
type, and reads like the original. A number keeps its literal (`1E2` stays `1E2`): numbers are
parsed as their own text.

An object keeps every key while its keys take at most half the budget. Past that (a `package.json`'s
dependencies, an API's record of a hundred fields), keeping them all would leave every value cut to
`…`: the largest objects keep fewer keys instead, those holding a quoted fact first, then the first
in order, and end with `"… N keys omitted …": null` for the others (`_fewer_keys`).
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Self, cast

from ..core import MAX_DEPTH, JsonValue, estimate_tokens, keys_marker, nested_deeper_than, plain_text
from .budget import NO_DEADLINE, Deadline
from .tree import summarize_value

__all__ = ('parse', 'summarize')

_INDENT = re.compile(r'\n([ \t]+)\S')
_TRIES = 4
"""Shrinking rounds when the written-back text overshoots the budget (the style costs more than compact JSON)."""
_KEYS_SHARE = 0.5
"""The most of the budget the keys of a summary's objects may take, so that values have room (`_fewer_keys`)."""


class _Number(float):
    """A JSON number that writes back as the text it was read from (`1E2`, `-0`, `1e400`)."""

    literal: str

    def __new__(cls, literal: str) -> Self:
        number = super().__new__(cls, float(literal))
        number.literal = literal
        return number

    def __repr__(self) -> str:
        return self.literal

    __str__ = __repr__


_MakeIterencode = Callable[..., Callable[[object, int], Iterable[str]]]


@dataclass(frozen=True, slots=True)
class _Style:
    indent: str | None
    separators: tuple[str, str]
    ensure_ascii: bool

    @classmethod
    def of(cls, text: str) -> _Style:
        indented = _INDENT.search(text)
        if indented:
            return cls(indent=indented.group(1), separators=(',', ': '), ensure_ascii=_escapes_non_ascii(text))
        spaced = '", "' in text or '": ' in text or ', "' in text
        separators = (', ', ': ') if spaced else (',', ':')
        return cls(indent=None, separators=separators, ensure_ascii=_escapes_non_ascii(text))

    def write(self, value: JsonValue) -> str:
        """`value` as JSON text in this style, numbers with their original literals."""
        encoder = json.JSONEncoder(indent=self.indent, separators=self.separators, ensure_ascii=self.ensure_ascii)
        # The pure-Python encoder lets a float's text be chosen (`_float_text`); the C one always writes repr().
        make = cast(_MakeIterencode, vars(json.encoder)['_make_iterencode'])
        escape = 'encode_basestring_ascii' if self.ensure_ascii else 'encode_basestring'
        chunks = make(
            {},
            encoder.default,
            getattr(json.encoder, escape),
            self.indent,
            _float_text,
            encoder.key_separator,
            encoder.item_separator,
            False,  # sort_keys
            False,  # skipkeys
            False,  # _one_shot
        )
        return ''.join(chunks(value, 0))


def _float_text(value: float) -> str:
    if isinstance(value, _Number):
        return value.literal
    return float.__repr__(value)


def _integer(literal: str) -> int | float:
    return _Number(literal) if literal == '-0' else int(literal)  # -0 is no int: keep its sign as written


def _escapes_non_ascii(text: str) -> bool:
    return text.isascii() and '\\u' in text


def parse(text: str) -> JsonValue | None:
    """The list or object `text` holds (numbers keeping their literals), else None (or nested past `MAX_DEPTH`)."""
    try:
        value = json.loads(text, parse_float=_Number, parse_int=_integer, parse_constant=_Number)
    except (ValueError, RecursionError):
        return None
    value = cast(JsonValue, value)
    if not isinstance(value, (list, dict)) or nested_deeper_than(value, MAX_DEPTH):
        return None  # nested too deep for the recursive summary (`_keeping`, `tree`): summarized as text
    return value


def summarize(
    text: str,
    value: JsonValue,
    *,
    budget_tokens: int,
    quoted: tuple[str, ...] = (),
    quoted_budget_tokens: int | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> str:
    """`text`, which holds `value`, summarized to about `budget_tokens` as JSON text of the same style.

    `quoted_budget_tokens`: how far the lines holding `quoted` facts may take it past `budget_tokens`.
    """
    style = _Style.of(text)
    compact = len(json.dumps(value, ensure_ascii=False, separators=(',', ':')))
    scale = compact / max(len(text), 1)  # the style's overhead, from the original
    value = _fewer_keys(value, room=int(budget_tokens * scale * _KEYS_SHARE), quoted=quoted)
    summary: JsonValue = value
    for _ in range(_TRIES):
        summary = summarize_value(
            value, budget_tokens=max(1, int(budget_tokens * scale)), quoted=quoted, deadline=deadline
        )
        written = style.write(summary)
        spent = estimate_tokens(written)
        if spent <= budget_tokens:
            break
        scale *= budget_tokens / spent * 0.95
    else:
        # Its keys and numbers alone do not fit in this style (an indented object): compact JSON still
        # parses as the same value, which beats keeping the original whole.
        return _Style(indent=None, separators=(',', ':'), ensure_ascii=style.ensure_ascii).write(summary)
    limit = quoted_budget_tokens or 0
    if not quoted or limit <= budget_tokens:
        return written
    # The budget's summary is found, at the scale it fits; the quoted items may take it on to `limit`, and
    # only they: the same budget, the quoted pass's limit scaled down until the text fits.
    stretch = scale
    for _ in range(_TRIES):
        stretched = summarize_value(
            value,
            budget_tokens=max(1, int(budget_tokens * scale)),
            quoted=quoted,
            quoted_budget_tokens=max(1, int(limit * stretch)),
            deadline=deadline,
        )
        stretched_text = style.write(stretched)
        spent = estimate_tokens(stretched_text)
        if spent <= limit:
            return stretched_text
        stretch *= limit / spent * 0.95
    return written


def _fewer_keys(value: JsonValue, *, room: int, quoted: tuple[str, ...]) -> JsonValue:
    """`value` with its largest objects keeping fewer keys, until the keys kept take about `room` tokens at most.

    Objects at the same place (the records of a list, the `owner` of each) form one group: a list
    drops items rather than keys, so a group's keys count once, as its largest object's; and the
    keys under a key dropped count no more. The group keeping the most keys is halved, the deepest
    first on a tie, again and again, down to `_FEWEST_KEYS`: records of a few fields each keep their keys, and one map of a
    hundred names gives way first. An object keeps the keys whose key or value holds a quoted fact,
    then its first ones, in their order, and a null under `keys_marker` last. `value` itself is
    returned when its keys fit (most contents), or nest too deep to count.
    """
    found = _groups(value)
    if found is None:
        return value
    groups, roots = found
    for group in groups.values():
        group.costs = [estimate_tokens(key) + 1 for key in group.keys]
        group.kept = len(group.keys)
    marker_cost = estimate_tokens(keys_marker(10)) + 2
    # Kept up to date as groups are halved, not counted again each round: a round per halving over
    # every group reached was quadratic (a 100 kB text of small objects at distinct places: 10 s).
    order = _reached(groups, roots)
    for group in reversed(order):  # those under a group before it
        group.spent = sum(group.costs) + sum(groups[child].spent for child in _under(group, group.keys))
    spent = sum(groups[place].spent for place in roots)
    largest = [(-group.kept, -group.depth, index) for index, group in enumerate(order)]
    heapq.heapify(largest)  # the most keys kept, then the deepest, then the first reached, as a round's `max` chose
    changed = False
    while spent > room and largest:
        group = order[largest[0][2]]
        if not group.reached:  # under a key dropped since
            heapq.heappop(largest)
            continue
        if group.kept <= _FEWEST_KEYS:
            break
        kept = max(group.kept // 2, _FEWEST_KEYS)
        saved = sum(group.costs[kept : group.kept]) - (marker_cost if group.kept == len(group.keys) else 0)
        for child in _under(group, group.keys[kept : group.kept]):
            saved += groups[child].spent
            _unreach(groups, groups[child])
        group.kept = kept
        heapq.heapreplace(largest, (-kept, -group.depth, largest[0][2]))
        above: _Group | None = group
        while above is not None:
            above.spent -= saved
            above = above.parent
        spent -= saved
        changed = True
    if not changed:
        return value
    return _keeping(value, (), {place: group.kept for place, group in groups.items()}, quoted)


_Place = tuple[object, ...]
"""Where an object stands in a value: the keys to it, a list's items as `_ITEM`."""
_ITEM = object()
"""A list's item in a place (`_fewer_keys`): no key is this object."""
_FEWEST_KEYS = 2
"""An object keeps at least this many keys (all, if it has fewer): a name or an id, and what it is about."""
_MAX_PLACE = 64
"""Objects nested deeper are not counted (`_fewer_keys`): the counting recurses, and no real output nests so."""


@dataclass(slots=True)
class _Group:
    """The objects at one place of a value (`_fewer_keys`): their keys, and how many they keep."""

    depth: int
    keys: list[str] = field(default_factory=list[str])
    """The keys of its largest object."""
    costs: list[int] = field(default_factory=list[int])
    kept: int = 0
    children: dict[str, list[_Place]] = field(default_factory=dict[str, list[_Place]])
    """The groups under each key, wherever lists stand between."""
    places: dict[str, _Place] = field(default_factory=dict[str, _Place])
    """The place under each key of its objects."""
    parent: _Group | None = None
    """The group of the object holding it, if any."""
    spent: int = 0
    """The tokens its keys kept take, with the groups under them (`_fewer_keys`)."""
    reached: bool = False
    """Whether no key above it is dropped."""


def _groups(value: JsonValue) -> tuple[dict[_Place, _Group], list[_Place]] | None:
    """The groups of `value`'s objects by place, and those under no object (`_fewer_keys`); None past `_MAX_PLACE`."""
    groups: dict[_Place, _Group] = {}
    roots: list[_Place] = []
    """The groups under no object: the value's own, or its items'."""
    stack: list[tuple[JsonValue, _Place, _Place | None, str]] = [(value, (), None, '')]
    while stack:  # iterative: the text's nesting is not bounded by the content's depth guard
        item, place, parent, key = stack.pop()
        if isinstance(item, dict):
            if len(place) > _MAX_PLACE:
                return None
            group = groups.get(place)
            if group is None:
                group = groups[place] = _Group(depth=len(place), parent=groups[parent] if parent is not None else None)
                (groups[parent].children.setdefault(key, []) if parent is not None else roots).append(place)
            if len(item) > len(group.keys):
                group.keys = list(item)
            # Containers only, each place built once (`group.places`): a place a value, up to 65 long,
            # took 900 MB for a 4.5 MB text of numbers 60 objects deep.
            for name, inner in item.items():
                if isinstance(inner, (dict, list)):
                    inner_place = group.places.get(name) or group.places.setdefault(name, (*place, name))
                    stack.append((inner, inner_place, place, name))
        elif isinstance(item, list):
            inner_place = (*place, _ITEM)
            stack.extend((inner, inner_place, parent, key) for inner in item if isinstance(inner, (dict, list)))
    return groups, roots


def _under(group: _Group, keys: Iterable[str]) -> Iterator[_Place]:
    """The places of the groups under `keys` of `group`."""
    for key in keys:
        yield from group.children.get(key, ())


def _reached(groups: dict[_Place, _Group], roots: list[_Place]) -> list[_Group]:
    """Every group under the keys of those above it, each before those under it and in the value's order."""
    order: list[_Group] = []
    stack = [groups[place] for place in reversed(roots)]
    while stack:
        group = stack.pop()
        group.reached = True
        order.append(group)
        stack.extend(groups[place] for place in reversed(list(_under(group, group.keys))))
    return order


def _unreach(groups: dict[_Place, _Group], group: _Group) -> None:
    """`group`, and each group under its keys kept, no longer reached: a key above them was dropped."""
    stack = [group]
    while stack:
        below = stack.pop()
        below.reached = False
        stack.extend(groups[place] for place in _under(below, below.keys[: below.kept]))


def _keeping(value: JsonValue, place: _Place, kept: dict[_Place, int], quoted: tuple[str, ...]) -> JsonValue:
    """`value`, at `place`, with each object keeping at most its group's `kept` count of keys (see `_fewer_keys`)."""
    if isinstance(value, list):
        inner = (*place, _ITEM)
        return [_keeping(item, inner, kept, quoted) for item in value]
    if not isinstance(value, dict):
        return value
    count = kept.get(place, len(value))
    keys: list[str] = list(value)
    if count < len(value) and keys_marker(len(value) - count) not in value:
        holding = [key for key in keys if any(fact in f'{key}\n{plain_text(value[key])}' for fact in quoted)]
        chosen = dict.fromkeys(holding[:count])
        for key in keys:
            if len(chosen) >= count:
                break
            chosen[key] = None
        keys = [key for key in keys if key in chosen]
    result = {key: _keeping(value[key], (*place, key), kept, quoted) for key in keys}
    if len(keys) < len(value):
        result[keys_marker(len(value) - len(keys))] = None
    return result
