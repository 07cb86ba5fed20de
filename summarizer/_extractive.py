"""The embedded summarizer: deterministic, offline, shape-preserving, fact-keeping.

It never writes a word that is not in the content. It cannot see the later turns, so it keeps what
later turns most often quote: facts (`_facts`), the specific ones (CVEs, hashes, IPs, ids, URLs)
before names and numbers, and the rows a table makes stand out (`_notable`: extremes, rare values).

The content becomes a tree whose objects keep their keys and scalars (the shape contract), whose
lists may keep any of their items, and whose texts are cut into units (lines, sentences, chunks cut
at spaces). One greedy pass over the whole tree adds the unit or list item bringing the most new
fact weight per token, so the budget goes where the facts are rather than where the bytes are. A
fact weighs by its kind, by how often the content repeats it, by its place (a field of the content
or of a short list counts fully, an item deep in a long list less) and double when it belongs to a
row that stands out; a line of trouble (`error`, `Caused by`, `forces replacement`) gets a bonus. It
stops at a share of the budget; the facts still missing then go, most specific first, into one
`Key facts: ...` line appended to the last text (a list of facts is the cheapest carrier of what a
later turn may quote), and whatever budget is left goes back to units.

When the pipeline knows what later turns already quote (`quoted`, see `_quoted`), those facts are
pinned: they weigh `_QUOTED_GAIN` times more, so the units holding them are chosen first and the
ones no unit carries head the facts line.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TypeAlias

from ._facts import find_facts, lowercase_words, mentions
from ._notable import column_extremes, notable_rows, split_rows
from ._quoted import plain_text
from ._shape import JsonValue
from ._tokens import estimate_tokens, json_text

_SENTENCE_END = re.compile(r'(?<=[.!?;])\s+(?=\S)')
_SPACES = re.compile(r'[ \t]+')
_MAX_UNIT_CHARS = 320
_FACTS_PREFIX = 'Key facts: '
_FACTS_SEPARATOR = '; '
_UNIT_SHARE = 0.6
"""Share of the budget units may take before the facts line gets its turn."""
_WEIGHTS = {
    'cve': 4.0, 'hash': 3.0, 'uuid': 3.0, 'email': 3.0, 'ip': 3.0, 'ipv6': 3.0, 'url': 2.5,
    'identifier': 2.5, 'domain': 2.5, 'path': 2.0, 'name': 1.5, 'date': 1.0, 'number': 1.0,
}  # fmt: skip
"""How likely a later turn quotes a fact of each kind: an id is quoted verbatim, a number less often."""
_NOTABLE_BONUS = 4.0
"""For a row or item holding a column's extreme or a rare value: worth a specific fact or so."""
_EDGE_BONUS = 1.0
"""For the first and last unit of a text and the first item of a list: titles, totals, top results."""
_ALARM = re.compile(
    r'\b(?:error|errors|fatal|fail(?:ed|s|ure)?|exception|caused by|panic|critical|warn(?:ing)?|denied|refused'
    r'|timed? ?out|killed|oom\w*|traceback|todo|fixme|regression|forces replacement|will be destroyed)\b',
    re.IGNORECASE,
)
"""Words that mark a line as trouble: what a reader of a log, a build or a plan acts on."""
_ALARM_BONUS = 3.0
"""For a line of trouble: worth a specific fact, so it beats a routine line of the same size."""
_NOTABLE_GAIN = 2.0
"""A fact of a row or item that stands out weighs this many times more (in the facts line above all)."""
_ID_KEY = re.compile(r'(?:^|[_-])(?:[iI]d|ID|[nN]umber|[nN]o|[nN]um)$|[a-z](?:Id|ID|Number|No|Num)$')
"""Keys naming identifiers (`id`, `user_id`, `orderId`, `number`): the largest id is no notable row."""
_REPEAT_GAIN = 0.25
"""A fact repeated 2^k times weighs 1 + k times this more: what an output keeps coming back to is salient."""
_SHORT_LIST = 3
_LIST_DISCOUNT = 0.5
"""Items past the first of a list of n > 3 weigh 1 / (1 + this * log2(n / 3)): a third less at n = 13."""
_TUPLE_ITEMS = 4
"""A list of at most this many scalars is one value (a pair, a point), kept whole or not at all."""
_QUOTED_GAIN = 25.0
"""A fact a later turn quotes outweighs any the summarizer only guesses at (a CVE weighs 4, a notable row 2x)."""


def summarize(
    content: JsonValue, *, budget_tokens: int, max_items: int | None = None, quoted: tuple[str, ...] = ()
) -> JsonValue:
    """A summary of `content` of about `budget_tokens` estimated tokens, keeping its shape.

    `quoted`: facts of `content` that later turns quote, kept before anything else that fits.
    """
    tree = _Tree(content, quoted=quoted)
    tree.select(budget_tokens * _UNIT_SHARE)
    tree.pick_key_facts(budget_tokens)
    tree.select(budget_tokens - tree.facts_line_cost())
    summary = tree.render()
    while _tokens(summary) > budget_tokens and tree.undo():  # the estimates are close, not exact
        summary = tree.render()
    if isinstance(summary, list) and max_items is not None:
        summary = summary[:max_items]
    return summary


def _tokens(value: JsonValue) -> int:
    return estimate_tokens(json_text(value))


def _cost(text: str) -> float:
    """Estimated tokens of a piece of text, additive: ASCII characters / 4, one per other character."""
    ascii_chars = len(text.encode('ascii', 'ignore'))
    return ascii_chars / 4 + (len(text) - ascii_chars)


def _pieces(line: str) -> list[str]:
    """A line, or its sentences when long, long sentences cut at spaces (never inside a word or fact)."""
    if len(line) <= _MAX_UNIT_CHARS:
        return [line]
    pieces: list[str] = []
    for sentence in _SENTENCE_END.split(line):
        while len(sentence) > _MAX_UNIT_CHARS:
            cut = sentence.rfind(' ', _MAX_UNIT_CHARS // 2, _MAX_UNIT_CHARS)
            cut = cut if cut > 0 else _MAX_UNIT_CHARS
            pieces.append(sentence[:cut])
            sentence = sentence[cut:].lstrip()
        if sentence:
            pieces.append(sentence)
    return pieces


# -- the tree ------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Item:
    """A list item: in the summary only when chosen; its skeleton is its keys and scalars."""

    cost: float
    facts: tuple[str, ...]
    outer: _Item | None
    bonus: float = 0.0
    prior: float = 1.0
    """How likely a reader quotes from this item for its place alone (see `_place_prior`)."""
    chosen: bool = False
    inner: list[_Choice] = field(default_factory=list['_Choice'])
    """Units and items whose nearest enclosing item this is: they get cheaper once it is chosen."""
    siblings: list[_Item] = field(default_factory=list['_Item'])
    """The same position in the other lists of equal length of the object holding this item's list."""


@dataclass(eq=False)
class _Unit:
    text: str
    cost: float
    facts: tuple[str, ...]
    outer: _Item | None
    bonus: float = 0.0
    chosen: bool = False


_Choice: TypeAlias = '_Unit | _Item'


@dataclass(eq=False)
class _Text:
    units: list[_Unit]


@dataclass(eq=False)
class _List:
    items: list[tuple[_Item, _Node]]


@dataclass(eq=False)
class _Object:
    members: dict[str, _Node]


_Node: TypeAlias = '_Text | _List | _Object | JsonValue'
_Path = tuple[str, ...]
"""A JSON path with list positions as `*`: the values under one path form a column."""


class _Tree:
    """The content as choices (units, items) with costs and facts, and the greedy that makes them."""

    def __init__(self, content: JsonValue, *, quoted: tuple[str, ...] = ()) -> None:
        self._common = lowercase_words(plain_text(content))
        self._kinds: dict[str, str] = {}
        self._found: dict[str, tuple[str, ...]] = {}
        self._counts: Counter[str] = Counter()
        self._priors: dict[str, float] = {}
        self._notable: set[str] = set()
        """Facts of the rows and items that stand out (`_notable`): the facts line lists them first."""
        self._columns: dict[_Path, list[tuple[str, _Item | None]]] = {}
        self._choices: list[_Choice] = []
        self._done: list[tuple[_Choice, list[_Item]]] = []
        self.covered: set[str] = set()
        self.key_facts: list[str] = []
        self._heap: list[tuple[float, int, _Choice]] = []
        self._started = False
        self._waiting: list[_Choice] = []
        self._pushed = 0
        self._nested = not isinstance(content, str)
        self.root = self._build(content, outer=None, path=())
        self.spent = self._skeleton_cost(self.root)
        self.covered.update(self._skeleton_facts(self.root))
        self._mark_extremes()
        self._pin(quoted)
        self._weights = {
            fact: _WEIGHTS.get(kind, 1.0)
            * self._priors.get(fact, 1.0)
            * (1 + _REPEAT_GAIN * math.log2(max(self._counts[fact], 1)))
            * (_NOTABLE_GAIN if fact in self._notable else 1.0)
            * (_QUOTED_GAIN if fact in quoted else 1.0)
            for fact, kind in self._kinds.items()
        }

    # -- building

    def _facts(self, text: str, *, count: bool = True, outer: _Item | None = None) -> tuple[str, ...]:
        found = self._found.get(text)
        if found is None:  # keys and short values repeat across records: extract once
            facts = find_facts(text, common_words=self._common)
            found = self._found[text] = tuple(fact.text for fact in facts)
            for fact in facts:
                self._kinds.setdefault(fact.text, fact.kind)
        if count:
            self._counts.update(found)
            prior, priors = outer.prior if outer is not None else 1.0, self._priors
            for fact in found:
                if priors.get(fact, 0.0) < prior:
                    priors[fact] = prior
        return found

    def _build(self, value: JsonValue, *, outer: _Item | None, path: _Path) -> _Node:
        if isinstance(value, str):
            return self._text(value, outer=outer, path=path)
        if isinstance(value, dict):
            members: dict[str, _Node] = {}
            for key, item in value.items():
                self._facts(key, outer=outer)
                members[key] = self._build(item, outer=outer, path=(*path, key))
            self._align([child for child in members.values() if isinstance(child, _List)])
            return _Object(members=members)
        if isinstance(value, list) and not _is_tuple(value):
            node = _List(items=[])
            for index, element in enumerate(value):
                prior = (outer.prior if outer is not None else 1.0) * _place_prior(index, len(value))
                item = _Item(cost=0.0, facts=(), outer=outer, bonus=_EDGE_BONUS if index == 0 else 0.0, prior=prior)
                child = self._build(element, outer=item, path=(*path, '*'))
                item.cost = self._skeleton_cost(child) + 0.25
                item.facts = tuple(sorted(self._skeleton_facts(child)))  # sorted: weight sums are float
                node.items.append((item, child))
                self._add_choice(item)
            return node
        for index, scalar in enumerate(value if isinstance(value, list) else [value]):
            if scalar is not None and not isinstance(scalar, bool):
                self._facts(str(scalar), outer=outer)
                self._columns.setdefault((*path, str(index)), []).append((str(scalar), outer))
        return value

    def _pin(self, quoted: tuple[str, ...]) -> None:
        """Make each quoted fact a fact of the tree, held by the units whose text holds it.

        Most are facts `find_facts` found already; a short number with its word (`47 organizations`,
        see `referred_facts`) is not, so the units quoting it learn it here.
        """
        for fact in quoted:
            if fact in self._kinds:
                continue
            self._kinds[fact] = 'quoted'
            for choice in self._choices:
                if isinstance(choice, _Unit) and mentions(choice.text, fact):
                    choice.facts = (*choice.facts, fact)

    def _add_choice(self, choice: _Choice) -> None:
        self._choices.append(choice)
        if choice.outer is not None:
            choice.outer.inner.append(choice)

    def _text(self, text: str, *, outer: _Item | None, path: _Path) -> _Text:
        lines = [line for line in (_SPACES.sub(' ', raw.strip()) for raw in text.splitlines()) if line]
        standing_out = notable_rows(split_rows(lines)) if len(lines) > 1 else {}
        units: list[_Unit] = []
        seen: set[str] = set()
        for number, line in enumerate(lines):
            for piece_number, piece in enumerate(_pieces(line)):
                if piece in seen:
                    self._facts(piece, outer=outer)  # a repeat: its facts count as salient, its tokens are not spent
                    continue
                seen.add(piece)
                written = json.dumps(piece, ensure_ascii=False)[1:-1] if self._nested else piece
                bonus = _NOTABLE_BONUS * standing_out.get(number, 0.0) if piece_number == 0 else 0.0
                facts = self._facts(piece, outer=outer)
                if bonus:
                    self._notable.update(facts)
                if _ALARM.search(piece):
                    bonus += _ALARM_BONUS
                units.append(_Unit(text=piece, cost=_cost(written) + 0.5, facts=facts, outer=outer, bonus=bonus))
        if units:
            units[0].bonus += _EDGE_BONUS
        if len(units) > 1:
            units[-1].bonus += _EDGE_BONUS
        if len(units) == 1:
            self._columns.setdefault(path, []).append((units[0].text, outer))
        for unit in units:
            self._add_choice(unit)
        return _Text(units=units)

    def _align(self, lists: list[_List]) -> None:
        """Columns stored as sibling lists (`time`, `temperature`): the same position belongs together."""
        by_length: dict[int, list[_List]] = {}
        for node in lists:
            by_length.setdefault(len(node.items), []).append(node)
        for group in by_length.values():
            if len(group) > 1:
                for position in range(len(group[0].items)):
                    row = [node.items[position][0] for node in group]
                    for item in row:
                        item.siblings = [other for other in row if other is not item]

    def _mark_extremes(self) -> None:
        """The items holding the largest and smallest value of each numeric column stand out."""
        for path, cells in self._columns.items():
            if len(cells) < 3 or _names_ids(path):
                continue
            for row in column_extremes([(index, text) for index, (text, _) in enumerate(cells)]):
                item = cells[row][1]
                if item is not None:
                    self._notable.update(item.facts)
                for sibling in item.siblings if item else []:
                    sibling.bonus += _NOTABLE_BONUS
                while item is not None:
                    item.bonus += _NOTABLE_BONUS
                    item = item.outer

    def _skeleton_cost(self, node: _Node) -> float:
        if isinstance(node, (_Text, _List)):
            return 0.5
        if isinstance(node, _Object):
            return 0.5 + sum(
                _cost(json.dumps(key, ensure_ascii=False)) + 0.5 + self._skeleton_cost(child)
                for key, child in node.members.items()
            )
        return _cost(json.dumps(node, ensure_ascii=False))

    def _skeleton_facts(self, node: _Node) -> set[str]:
        if isinstance(node, _Object):
            facts = {fact for key in node.members for fact in self._facts(key, count=False)}
            for child in node.members.values():
                facts |= self._skeleton_facts(child)
            return facts
        if isinstance(node, (_Text, _List)):
            return set()
        values = node if isinstance(node, list) else [node]
        return {
            fact
            for value in values
            if value is not None and not isinstance(value, bool)
            for fact in self._facts(str(value), count=False)
        }

    # -- choosing

    def _closed(self, choice: _Choice) -> list[_Item]:
        """The items around `choice` not chosen yet, which choosing it brings in."""
        closed: list[_Item] = []
        item = choice.outer
        while item is not None and not item.chosen:
            closed.append(item)
            item = item.outer
        return closed

    def _value(self, choice: _Choice) -> tuple[float, float]:
        """(gain, cost) of choosing `choice` now."""
        closed = self._closed(choice) if choice.outer is not None else []
        covered, weights = self.covered, self._weights
        if closed:
            facts = dict.fromkeys(choice.facts).keys() | {fact for item in closed for fact in item.facts}
            new = sorted(facts - covered)  # summed in a fixed order: float sums depend on it, and so would ties
            gain = sum(weights[fact] for fact in new) + choice.bonus + sum(item.bonus for item in closed)
            return gain, choice.cost + sum(item.cost for item in closed)
        gain = sum(weights[fact] for fact in dict.fromkeys(choice.facts) if fact not in covered) + choice.bonus
        return gain, choice.cost

    def select(self, limit: float) -> None:
        """Greedily choose units and items by new fact weight per token while the spending stays under `limit`.

        Lazy greedy: a choice's worth only falls as facts get covered, so one popped whose fresh
        worth still tops the heap is the best; what did not fit waits for a larger limit.
        """
        if not self._started:
            self._started = True
            for choice in self._choices:
                self._push(choice)
        else:
            for choice in self._waiting:
                self._push(choice)
            self._waiting = []
        heap = self._heap
        while heap:
            _, _, choice = heapq.heappop(heap)
            if choice.chosen:
                continue
            gain, cost = self._value(choice)
            if gain <= 0:
                continue
            if self.spent + cost > limit:
                self._waiting.append(choice)
                continue
            if heap and gain / cost < -heap[0][0] - 1e-9:  # stale: worth less than when pushed
                self._push(choice, gain, cost)
                continue
            for item in self._choose(choice):  # what they enclose just got cheaper
                for inner in item.inner:
                    self._push(inner)

    def _push(self, choice: _Choice, gain: float | None = None, cost: float = 1.0) -> None:
        if choice.chosen:
            return
        if gain is None:
            gain, cost = self._value(choice)
        if gain > 0:
            self._pushed += 1
            heapq.heappush(self._heap, (-gain / cost, self._pushed, choice))

    def _choose(self, choice: _Choice) -> list[_Item]:
        closed = self._closed(choice)
        for item in (*closed, choice):
            item.chosen = True
            self.covered.update(item.facts)
            self.spent += item.cost
        self._done.append((choice, closed))
        return [*closed, choice] if isinstance(choice, _Item) else closed

    def undo(self) -> bool:
        """Drop the last choice (and the items it brought in, or failing that the last key fact)."""
        if self.key_facts:
            self.key_facts.pop()
            return True
        if not self._done:
            return False
        choice, closed = self._done.pop()
        for item in (choice, *closed):
            item.chosen = False
        return True

    # -- the facts line

    def pick_key_facts(self, budget: int) -> None:
        """The facts no chosen unit carries, most specific and most repeated first, while they fit."""
        present = plain_text(self.render())
        room = budget - _tokens(self.render()) - _cost(_FACTS_PREFIX) - 1
        ranked = sorted(self._kinds, key=lambda fact: -self._weights[fact])
        for fact in ranked:
            cost = _cost(json.dumps(fact, ensure_ascii=False)[1:-1]) + _cost(_FACTS_SEPARATOR)
            if cost > room or mentions(present, fact):
                continue
            self.key_facts.append(fact)
            present += '\n' + fact
            room -= cost
        self.spent += self.facts_line_cost()

    def facts_line_cost(self) -> float:
        if not self.key_facts:
            return 0.0
        return _cost(_FACTS_PREFIX) + sum(_cost(fact) + _cost(_FACTS_SEPARATOR) for fact in self.key_facts)

    # -- rendering

    def render(self) -> JsonValue:
        summary = _render(self.root)
        if self.key_facts:
            summary = _append_to_last_text(summary, _FACTS_PREFIX + _FACTS_SEPARATOR.join(self.key_facts))
        return summary


def _names_ids(path: _Path) -> bool:
    """Whether a column holds identifiers (`id`, `user_id`, `orderId`, `number`): its extremes mean nothing."""
    keys = [key for key in path if key != '*' and not key.isdigit()]
    return bool(keys) and _ID_KEY.search(keys[-1]) is not None


def _place_prior(index: int, size: int) -> float:
    """How likely a reader quotes from the item at `index` of a list of `size`, for its place alone.

    A short list is a field holding a few values: each counts in full. In a long one (results,
    records, rows) a reader quotes one item of many, most often the first; the rest count less,
    the longer the list the less.
    """
    if size <= _SHORT_LIST or index == 0:
        return 1.0
    return 1 / (1 + _LIST_DISCOUNT * math.log2(size / _SHORT_LIST))


def _is_tuple(value: list[JsonValue]) -> bool:
    return len(value) <= _TUPLE_ITEMS and all(
        not isinstance(item, (list, dict)) and not (isinstance(item, str) and len(item) > 40) for item in value
    )


def _render(node: _Node) -> JsonValue:
    if isinstance(node, _Text):
        return '\n'.join(unit.text for unit in node.units if unit.chosen)
    if isinstance(node, _List):
        return [_render(child) for item, child in node.items if item.chosen]
    if isinstance(node, _Object):
        return {key: _render(child) for key, child in node.members.items()}
    return node


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
