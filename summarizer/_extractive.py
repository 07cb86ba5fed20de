"""The embedded summarizer: deterministic, offline, shape-preserving, fact-keeping.

It never writes a word that is not in the content. Texts are cut into lines and sentences; the first
and last are kept, then the ones carrying the most facts not yet kept, in their original order.
Lists lose duplicates, then the items that add the fewest facts; objects keep every key, and their
values share the budget by size. Whatever facts did not make it are appended, most repeated first,
to the last text of the summary as `Key facts: ...`, since a list of facts is the cheapest carrier
of what a later turn may quote.
"""

from __future__ import annotations

import json
import re

from ._facts import Fact, facts_by_salience, find_facts
from ._shape import JsonValue
from ._tokens import estimate_tokens, json_text

_SENTENCE_END = re.compile(r'(?<=[.!?;])\s+(?=\S)')
_SPACES = re.compile(r'[ \t]+')
_MAX_UNIT_CHARS = 320
_MIN_ITEM_TOKENS = 24
_MIN_VALUE_TOKENS = 4
_FACTS_PREFIX = 'Key facts: '


def summarize(content: JsonValue, *, budget_tokens: int, max_items: int | None = None) -> JsonValue:
    """A summary of `content` of about `budget_tokens` estimated tokens, keeping its shape."""
    facts = facts_by_salience(json_text(content))
    for share in (0.5, 0.35, 0.2, 0.1):  # the rest of the budget carries the facts left out
        summary = _shrink(content, int(budget_tokens * share))
        if isinstance(summary, list) and max_items is not None:
            summary = summary[:max_items]
        summary = _append_missing_facts(summary, facts, budget_tokens)
        if _tokens(summary) <= budget_tokens:
            return summary
    return summary


def _tokens(value: JsonValue) -> int:
    return estimate_tokens(json_text(value))


def _shrink(value: JsonValue, budget: int) -> JsonValue:
    if isinstance(value, str):
        return _shrink_text(value, budget)
    if isinstance(value, list):
        return _shrink_list(value, budget)
    if isinstance(value, dict):
        return _shrink_object(value, budget)
    return value


# -- texts ---------------------------------------------------------------------------------------


def _units(text: str) -> list[str]:
    """Lines, long lines cut into sentences, long sentences cut into chunks; blanks and repeats dropped."""
    units: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        line = _SPACES.sub(' ', line.strip())
        if not line:
            continue
        pieces = _SENTENCE_END.split(line) if len(line) > _MAX_UNIT_CHARS else [line]
        for piece in pieces:
            for start in range(0, len(piece), _MAX_UNIT_CHARS):
                chunk = piece[start : start + _MAX_UNIT_CHARS]
                if chunk not in seen:
                    seen.add(chunk)
                    units.append(chunk)
    return units


def _shrink_text(text: str, budget: int) -> str:
    if estimate_tokens(text) <= budget:
        return text
    units = _units(text)
    if not units:
        return ''
    costs = [estimate_tokens(unit) + 1 for unit in units]
    chosen = {0, len(units) - 1} if costs[0] + costs[-1] <= budget else {0}
    spent = sum(costs[index] for index in chosen)
    covered = {fact.text for index in chosen for fact in find_facts(units[index])}
    unit_facts = [[fact.text for fact in find_facts(unit)] for unit in units]
    while True:
        best, best_score = -1, 0.0
        for index, facts in enumerate(unit_facts):
            if index in chosen or spent + costs[index] > budget:
                continue
            new = sum(1 for fact in facts if fact not in covered)
            score = new / costs[index]
            if score > best_score:
                best, best_score = index, score
        if best < 0:
            break
        chosen.add(best)
        spent += costs[best]
        covered.update(unit_facts[best])
    summary = '\n'.join(units[index] for index in sorted(chosen))
    return _cut(summary, budget)


def _cut(text: str, budget: int) -> str:
    """`text` cut at a word boundary to fit `budget` tokens."""
    if estimate_tokens(text) <= budget:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    space = cut.rfind(' ')
    return cut[:space] if space > low // 2 else cut


# -- lists and objects ---------------------------------------------------------------------------


def _shrink_list(items: list[JsonValue], budget: int) -> list[JsonValue]:
    unique: list[JsonValue] = []
    seen: set[str] = set()
    for item in items:
        key = json.dumps(item, sort_keys=True, ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    if not unique or _tokens(unique) <= budget:
        return unique
    floors = [min(_tokens(item), _floor_tokens(item)) + 1 for item in unique]
    keep = _pick_items(unique, floors, budget)
    sizes = {index: _tokens(unique[index]) for index in keep}
    total = sum(sizes.values()) or 1
    spare = max(budget - sum(floors[index] for index in keep), 0)
    return [
        _shrink(unique[index], floors[index] + spare * sizes[index] // total) for index in sorted(keep)
    ]


def _pick_items(items: list[JsonValue], floors: list[int], budget: int) -> set[int]:
    """First and last item, then the items adding the most new facts per token, while floors fit."""
    item_facts = [{fact.text for fact in find_facts(json_text(item))} for item in items]
    keep = {0}
    spent = floors[0]
    if len(items) > 1 and spent + floors[-1] <= budget:
        keep.add(len(items) - 1)
        spent += floors[-1]
    covered = set().union(*(item_facts[index] for index in keep))
    ranked = sorted(
        range(len(items)),
        key=lambda index: -len(item_facts[index] - covered) / floors[index],
    )
    for index in ranked:
        if index in keep or spent + floors[index] > budget or not item_facts[index] - covered:
            continue
        keep.add(index)
        spent += floors[index]
        covered |= item_facts[index]
    return keep


def _floor_tokens(value: JsonValue) -> int:
    """The least an item can shrink to: its structure and scalars, with short strings."""
    if isinstance(value, str):
        return _MIN_ITEM_TOKENS
    if isinstance(value, list):
        return 2 + (_floor_tokens(value[0]) if value else 0)
    if isinstance(value, dict):
        return 2 + sum(estimate_tokens(json.dumps(key)) + 1 + _floor_tokens(item) for key, item in value.items())
    return _tokens(value)


def _shrink_object(value: dict[str, JsonValue], budget: int) -> dict[str, JsonValue]:
    sizes = {key: _tokens(item) for key, item in value.items()}
    fixed = 2 + sum(estimate_tokens(json.dumps(key)) + 1 for key in value)
    flexible = {key: size for key, size in sizes.items() if isinstance(value[key], (str, list, dict))}
    fixed += sum(size for key, size in sizes.items() if key not in flexible)
    spare = max(budget - fixed, 0)
    total = sum(flexible.values()) or 1
    floor = _MIN_VALUE_TOKENS if _MIN_VALUE_TOKENS * len(flexible) <= spare else 0  # many keys: values may empty
    return {
        key: _shrink(item, max(spare * flexible[key] // total, floor)) if key in flexible else item
        for key, item in value.items()
    }


# -- facts that did not make it ------------------------------------------------------------------


def _append_missing_facts(summary: JsonValue, facts: list[Fact], budget: int) -> JsonValue:
    """Append the facts absent from `summary` to its last text, as many as the budget allows."""
    present = json_text(summary)
    missing = [fact for fact in facts if fact.text not in present]
    room = budget - _tokens(summary) - estimate_tokens(_FACTS_PREFIX) - 2
    if not missing or room <= 0:
        return summary
    kept: list[str] = []
    for fact in missing:
        cost = estimate_tokens(fact.text) + 1
        if cost > room:
            continue
        kept.append(fact.text)
        room -= cost
    if not kept:
        return summary
    line = _FACTS_PREFIX + '; '.join(kept)
    return _append_to_last_text(summary, line)


def _append_to_last_text(value: JsonValue, line: str) -> JsonValue:
    """`value` with `line` appended to its last string (depth-first); unchanged if it has none."""
    if isinstance(value, str):
        return f'{value}\n{line}' if value else line
    if isinstance(value, list):
        for index in range(len(value) - 1, -1, -1):
            if _has_text(value[index]):
                return [*value[:index], _append_to_last_text(value[index], line), *value[index + 1 :]]
        return value
    if isinstance(value, dict):
        for key in reversed(list(value)):
            if _has_text(value[key]):
                return {**value, key: _append_to_last_text(value[key], line)}
    return value


def _has_text(value: JsonValue) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return any(_has_text(item) for item in value)
    if isinstance(value, dict):
        return any(_has_text(item) for item in value.values())
    return False
