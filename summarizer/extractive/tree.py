"""Line and item selection: one greedy pass that spends the budget where the facts are, as an outline.

The content becomes a tree whose objects keep their keys and scalars (the shape contract), whose
lists may keep any of their items, and whose texts are cut into units: their lines (a line too
long for any budget, into pieces, see `lines`). Nothing cut passes for whole: a list holds
`… N items omitted …` in the place of each run of items it drops, a string field dropped whole is
`…`, a text its marker lines (`_render`); their cost is in the budget like any other. One greedy
pass over the whole tree adds the unit or list item bringing the most new weight per token, so the
budget goes where the facts are rather than where the bytes are. A unit weighs the facts it holds
(`_facts`) and the bonus its kind of text gives its line (`strategies`: a diff's headers, a test
run's summary, a log's errors); a fact weighs by its kind, by how often the content repeats it, by
its place (a field of the content or of a short list counts fully, an item deep in a long list less)
and double when it belongs to a row that stands out (`notable`).

A line never comes alone: choosing it chooses its enclosing lines too (`outline`: its indentation
parents, a diff's hunk and file headers, a record's identifying field), priced and weighed with it,
so a summary reads as an outline in which every kept line shows where it stood. Nothing else is
written: no list of facts apart from their lines, where a reader could not tell what they are.

When the pipeline knows what later turns already quote (`quoted`, see `_quoted`), those facts are
pinned: they weigh more than any bonus a kind gives a line (`_QUOTED_BASE`), and `_QUOTED_GAIN` times
their kind's weight on top, so the lines holding them are chosen first, after the few a kind requires.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias, TypeVar

from ..core import (
    DROPPED_TEXT,
    JsonValue,
    carries_text,
    fact_kinds,
    in_chunks,
    items_marker,
    mention_pattern,
    quoted_strings,
    token_set,
)
from . import code, lines as text_lines, prose, search
from ._kinds import SOURCED_KINDS, ContentKind, detect_kind
from .budget import NO_DEADLINE, Deadline, cost, escapes, tokens
from .lines import ALARM, HIGH, MARKER_COST, MUST, NOISE, PARTIAL
from .notable import ID_KEY, column_extremes, notable_fields, notable_rows, split_rows
from .outline import bare, enclosing, indent, record_spans
from .strategies import FOLDED_UNDER, LINE_BONUSES, REASONS, REPEATED_BLOCKS, SIGNATURES, TABLES, WHOLE_LINES

_REQUIRED_SHARE, _REQUIRED_SHARE_QUOTED = 0.5, 0.2
"""Share of the budget the skeleton leaves (an object's keys and numbers, see `_skeleton_cost`) that the lines
a kind requires (`lines.MUST`: a diff's headers) may take before anything else; less when later turns quote
facts, which then compete for the rest (headers holding them first), unless the lines holding those have room
of their own past the budget (`quoted_budget_tokens`). The lines of a kind's first rank above `MUST` (a diff's
file headers, a test run's verdict) keep the larger share: a diff shown without one of its files reads as another
change. So do the first `_REASONS` lines saying why a run failed (`strategies.REASONS`: a failing test's
`E   ValueError: ...`): the facts earlier turns named (the test's data, its frames' paths) had taken the rest and
left a failure without its reason."""
_REASONS = 8
"""The most lines saying why a run failed that keep the larger share (see `_REQUIRED_SHARE`): the first failures'. A
run of a thousand failures does not give them all the room the facts later turns quote would have had."""
_CHARS_PER_TOKEN = 4
_MIN_PIECE_CHARS = 40
"""Pieces of a cut line, when every line is over the budget: no shorter (a piece says something)."""
_WEIGHTS = {
    'cve': 4.0, 'hash': 3.0, 'uuid': 3.0, 'email': 3.0, 'ip': 3.0, 'url': 2.5, 'id': 3.0, 'identifier': 2.0,
    'domain': 2.5, 'path': 2.0, 'dotted': 2.0, 'quoted': 1.5, 'flag': 1.5, 'date': 1.0, 'number': 1.0,
}  # fmt: skip
"""How likely a later turn quotes a fact of each kind: an id is quoted verbatim, a number less often."""
_NOTABLE_BONUS = 4.0
"""For a row or item holding a column's extreme or a rare value: worth a specific fact or so."""
_EDGE_BONUS = 1.0
"""For the first and last unit of a text and the first item of a list: titles, totals, top results."""
_FIELD_BONUS = 3.0
"""For the value of a short text field (`"as_owner": "Stark Industries Ltd"`): holding no fact, still what a
record is about; it comes with its item whenever it fits."""
_ALARM_BONUS = 3.0
"""For a line of trouble: worth a specific fact, so it beats a routine line of the same size."""
_NOTES = 4
"""The most lines of a text that read as a tool's note that it is partial (`lines.PARTIAL`) and are required: a tool
notes it once, or once a file. More are the text's own (a log's `Truncated table staging_12 before load`, hundreds of
them): each required, they crowded out its error."""
_NOTABLE_GAIN = 2.0
"""A fact of a row or item that stands out weighs this many times more."""
_REPEAT_GAIN = 0.25
"""A fact repeated 2^k times weighs 1 + k times this more: what an output keeps coming back to is salient."""
_SHORT_LIST = 3
_LIST_DISCOUNT = 0.5
"""Items past the first of a list of n > 3 weigh 1 / (1 + this * log2(n / 3)): a third less at n = 13."""
_TUPLE_ITEMS = 4
"""A list of at most this many scalars is one value (a pair, a point), kept whole or not at all."""
_QUOTED_GAIN = 25.0
"""A fact a later turn quotes outweighs any the summarizer only guesses at (a CVE weighs 4, a notable row 2x) ..."""
_QUOTED_BASE = 5 * MUST
"""... and any bonus a kind gives a line (the largest, a diff's file header, is 4 x `MUST`): a reader of the
conversation's next turns needs the line it quotes more than another header (the required ones took their
share first), and the quoted line brings the headers that place it anyway."""
_NAMED_RECORDS = 2
"""The most records a quoted fact may be in and still name them (`_weigh_named_records`)."""
_KIND_SAMPLE_CHARS = 400
"""A nested text shorter than this is a field value, not a document: no kind strategy for it."""
_MAX_LIST_CHOICES = 5_000
"""A longer list offers only some items as choices (its head, its tail, its extremes, those holding a
quoted fact): no budget keeps more than a few hundred items, and building them all would cost more
than the summary is worth (a list of a million numbers)."""
_LIST_HEAD, _LIST_TAIL = 2_000, 500
_HEAD_LINES, _TAIL_LINES = 200, 20
_FILLER_BONUS = 0.1
"""A line of the head or tail of a text holding nothing of note still fills budget left over, earlier
lines first; past those, such a line is no choice at all (a long text has thousands of them), nor is one
that says nothing alone in code or command output that is the content itself, not a string inside it
(`outline.bare`: `))`, `else:`), which comes only with a line it places (`_SYNTAX_KINDS`), nor a piece of a long
line alike one offered before, in any text, but for its digits (`_filler_key`): an article's `Paragraph 7 repeats
background material ...` after `Paragraph 6 ...`, or after the same sentence in the article before, shows nothing
more of where the facts stood."""
_SYNTAX_KINDS = frozenset({ContentKind.CODE, ContentKind.SHELL})
"""Kinds whose lines of brackets alone are syntax: not a diff's (an added `))` is part of what changed), nor
Markdown's (a code fence, a rule)."""
_LINE_NUMBER = re.compile(r'^(?: *|[^\s:]+?[:-])(\d+)(?=\t|[:|→-])', re.MULTILINE)
_PLAIN_KINDS = frozenset({ContentKind.PROSE, ContentKind.RECORDS, ContentKind.SEARCH})
"""Kinds whose lines of trouble are told by words (`ALARM`) rather than by the kind's own rules."""
_WORDS = re.compile(r'(?<![^\s"\'`()\[\]{}<>,;|=*])[^\s"\'`()\[\]{}<>,;|=*]*[^\s"\'`()\[\]{}<>,;|=*.:!?]')
"""What a line is split into to look its facts up (see `_line_facts`): each run between blanks and brackets, its
trailing `.:!?` left out. Tried at a run's start only: tried from each character of a run of `.:!?` alone, it read the
rest of the run each time (30 s for a line of 50 KB of `::`, in one C call no deadline stops)."""
_BUNDLED_CHARS = 200
"""A field value up to this long goes with its item (a name, a status, a title, an id)."""
_JSON = json.JSONEncoder(ensure_ascii=False)
"""`json.dumps(value, ensure_ascii=False)`, without building an encoder per call (a key of every record)."""
_DROPPED_COST = cost(DROPPED_TEXT)
"""A string of one line dropped whole is `…` (see `_render`)."""
_MIN_PRICE = 0.25
"""The least a line costs: one that closes a run of dropped lines saves its marker, and may cost less than nothing."""
_SAME_IN_BODY = 3
"""How many times a named definition's body may hold the same line and each weigh as a definition: `fh.close()` in
its `try` and its `except` both, not 400 `table.append((0, 0, 0))`."""
_CHECK_EVERY = 512
_SCAN_CHUNK = 50_000
"""Steps between two looks at the deadline."""


def summarize_value(
    content: JsonValue,
    *,
    budget_tokens: int,
    quoted: tuple[str, ...] = (),
    quoted_budget_tokens: int | None = None,
    kind: ContentKind | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> JsonValue:
    """A summary of `content` of about `budget_tokens` estimated tokens, keeping its shape.

    `quoted_budget_tokens`: how far the lines holding `quoted` facts may take it past `budget_tokens`.
    `kind`: the kind of a string content, when known.
    """
    limit = max(budget_tokens, quoted_budget_tokens or 0) if quoted else budget_tokens
    summary = _summarize_tree(
        _Tree(content, quoted=quoted, kind=kind, deadline=deadline), budget_tokens, limit, deadline
    )
    if not carries_text(summary) and carries_text(content):
        # Every line is longer than the budget (a list of long one-line texts under a low threshold):
        # cut lines into pieces that fit, so the summary keeps the start of one rather than nothing.
        piece_chars = max(_MIN_PIECE_CHARS, budget_tokens * _CHARS_PER_TOKEN // 2)
        tree = _Tree(content, quoted=quoted, kind=kind, deadline=deadline, max_line_chars=piece_chars)
        summary = _summarize_tree(tree, budget_tokens, limit, deadline)
    return summary


def _summarize_tree(tree: _Tree, budget: int, limit: int, deadline: Deadline) -> JsonValue:
    """One selection over `tree`: required units, then the rest by gain, and never nothing.

    `budget` for any line, `limit` (at least `budget`) for those holding a quoted fact, with what places them.
    """
    try:
        return _select(tree, budget, limit, deadline)
    finally:
        tree.release()


def _select(tree: _Tree, budget: int, limit: int, deadline: Deadline) -> JsonValue:
    room = max(0.0, budget - tree.spent)
    share = _REQUIRED_SHARE_QUOTED if tree.quoted and limit <= budget else _REQUIRED_SHARE
    tree.select_required(tree.spent + share * room, first=tree.spent + _REQUIRED_SHARE * room)
    tree.select(budget)
    if limit > budget:
        # The budget's lines first kept to the budget (the estimates are close, not exact), as without a limit;
        # then what did not fit and holds a fact later turns quote, not kept yet, may go on to the larger limit
        # (with what places it); nothing else may: not a line whose headers alone are worth as much (a diff's).
        _undo_past(tree, budget, deadline)
        tree.select(limit, quoted_only=True)
    tree.ensure_something()
    return _undo_past(tree, limit, deadline)


def _undo_past(tree: _Tree, limit: int, deadline: Deadline) -> JsonValue:
    """`tree`'s summary once its last choices are undone until it is within `limit` (or nothing is left to undo)."""
    summary = tree.render()
    while tokens(summary) > limit and tree.undo():  # the estimates are close, not exact
        deadline.check()
        summary = tree.render()
    return summary


# -- the tree ------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class _Item:
    """A list item: in the summary only when chosen; its skeleton is its keys and scalars."""

    cost: float
    facts: tuple[str, ...]
    outer: _Item | None
    bonus: float = 0.0
    prior: float = 1.0
    """How likely a reader quotes from this item for its place alone (see `_place_prior`)."""
    chosen: bool = False
    forced: bool = False
    """Chosen so the summary is not empty: kept even over the budget (see `ensure_something`)."""
    inner: list[_Choice] = field(default_factory=list['_Choice'])
    """Units and items whose nearest enclosing item this is: they get cheaper once it is chosen."""
    siblings: Sequence[_Item] = ()
    """The same position in the other lists of equal length of the object holding this item's list."""
    bundled: Sequence[_Unit] = ()
    """Its short one-line fields, kept whenever it is (see `_Tree._bundle`)."""
    owner: _List | None = None
    """The list it is an item of."""
    index: int = 0
    """Its position in that list."""
    before: _Item | None = None
    """The item offered before it in that list (see `_runs_opened_by`)."""
    after: _Item | None = None
    """The item offered after it."""


@dataclass(eq=False, slots=True)
class _Text:
    """A text of the content, as units to choose.

    What most texts lack (`pieces`) is not built. A record's short fields, thousands of them, are no
    texts but one unit each (`_Tree._field`); a blank one is a text without units.
    """

    lines: Sequence[str]
    units: list[_Unit] = field(default_factory=list['_Unit'])
    pieces: dict[int, int] | None = None
    """Line index -> how many pieces a line cut into pieces has (None: no line was cut)."""
    signature: Callable[[str], str] | None = None
    escaped: bool = False
    """It is written inside a JSON string (a list's or an object's), where quotes and line breaks take two characters."""
    record: Callable[[str], bool] | None = None
    """Whether a line starts a record (a YAML list's `- id: 3`): what its markers count besides lines."""
    reasons: frozenset[int] = frozenset()
    """The lines saying why a run failed (`strategies.REASONS`), the first `_REASONS` of them: indices in `lines`."""


@dataclass(eq=False, slots=True)
class _Unit:
    text: str
    line: int
    """The index of its line in its text."""
    cost: float
    facts: tuple[str, ...]
    outer: _Item | None
    node: _Text | None
    """The text it is a line of; None for a field's value (see `_Tree._field`), which is a unit of its own."""
    position: int
    """Its place among its text's units: choosing it may open or close a run of dropped units."""
    whole: bool = True
    """The whole line (not a piece of it)."""
    piece: int = 0
    """Which piece of its line it is, when not whole."""
    bonus: float = 0.0
    chosen: bool = False
    forced: bool = False
    in_bundle: bool = False
    """Part of its item (`_Item.bundled`): no choice of its own."""
    parents: tuple[_Unit, ...] = ()
    """The units of the lines that place it (`outline.enclosing`), nearest first: chosen with it."""
    children: list[_Unit] | None = None
    """The units it places, which get cheaper once it is chosen (None for none: a record's lines are many)."""


_Choice: TypeAlias = '_Unit | _Item'


@dataclass(eq=False, slots=True)
class _List:
    """A list of the content: the items offered as choices, and how many it has (a long one offers some)."""

    items: list[tuple[_Item, _Node]]
    total: int
    marker_cost: float
    """What an `… N items omitted …` item standing for a run of dropped items costs (at most), its comma included."""


@dataclass(eq=False, slots=True)
class _Object:
    members: dict[str, _Node]


_Node: TypeAlias = '_Text | _Unit | _List | _Object | JsonValue'
_Path = tuple[str, ...]
"""A JSON path with list positions as `*`: the values under one path form a column."""


class _Phrases:
    r"""Quoted facts of several tokens, each with its pattern (`core.mention_pattern`), looked for in many texts.

    A few are looked for one by one. More are found by a word of each (a run of `\w`, the rarest among them) and
    where it stands in the fact: a fact found whole has each of its words whole in the text, its ends held by the
    pattern's look-arounds, so a text is read for its words once, and only the facts that stand in it around a word
    of theirs, as long as they are, are looked for: not thousands per item of a long list, nor thousands that share
    their words (`foo; bar`, `foo(! bar`, ...) in each item holding them. A word standing in its facts in many
    places (`foo; bar`, `foo;; bar`, ... of a thousand lengths) has them searched for whole instead, in C.
    """

    def __init__(self, phrases: Sequence[tuple[str, re.Pattern[str]]]) -> None:
        self._each: list[tuple[str, re.Pattern[str]]] = []
        self._by_word: dict[str, dict[tuple[int, int], dict[str, re.Pattern[str]]]] = {}
        """A word -> (where it starts in a fact, the fact's length) -> the facts (and their patterns) so placed."""
        self._crowded: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        """A word whose facts stand in it in over `_PLACES` places -> the facts: a text holding the word is searched
        for each (a substring search in C), not sliced at each of the word's runs for each place."""
        if len(phrases) <= _FEW_PHRASES:
            self._each = list(phrases)
            return
        runs = {fact: [(run.group(), run.start()) for run in _WORD_RUN.finditer(fact)] for fact, _ in phrases}
        counts = Counter(word for found in runs.values() for word in {word for word, _ in found})
        for fact, pattern in phrases:
            if runs[fact]:
                word, start = min(runs[fact], key=lambda run: counts[run[0]])  # its first place of the rarest word
                self._by_word.setdefault(word, {}).setdefault((start, len(fact)), {})[fact] = pattern
            else:
                self._each.append((fact, pattern))
        for word, places in list(self._by_word.items()):
            if len(places) > _PLACES:  # facts of one word in many places and lengths: each looked for in C instead
                self._crowded[word] = [item for facts in places.values() for item in facts.items()]
                del self._by_word[word]

    def _candidates(self, text: str) -> Iterator[tuple[str, re.Pattern[str]]]:
        """The facts of a word that stand in `text` where a run of that word starts, each once (before its pattern)."""
        by_word, crowded = self._by_word, self._crowded
        if not by_word and not crowded:
            return
        words = set(_WORD_RUN.findall(text))
        for word in crowded.keys() & words:
            yield from ((fact, pattern) for fact, pattern in crowded[word] if fact in text)
        if by_word.keys().isdisjoint(words):
            return
        seen: set[str] = set()
        for run in _WORD_RUN.finditer(text):
            places = by_word.get(run.group())
            if places is None:
                continue
            at = run.start()
            for (start, length), facts in places.items():
                if at >= start:
                    fact = text[at - start : at - start + length]
                    pattern = facts.get(fact)
                    if pattern is not None and fact not in seen:
                        seen.add(fact)
                        yield fact, pattern

    def found(self, text: str) -> set[str]:
        """The facts `text` holds whole."""
        found = {fact for fact, pattern in self._each if fact in text and pattern.search(text)}
        found.update(fact for fact, pattern in self._candidates(text) if pattern.search(text))
        return found

    def held(self, text: str) -> bool:
        """Whether `text` holds one of the facts whole."""
        if any(fact in text and pattern.search(text) for fact, pattern in self._each):
            return True
        return any(pattern.search(text) for _, pattern in self._candidates(text))


_WORD_RUN = re.compile(r'\w+')
_FEW_PHRASES = 16
"""Up to this many quoted phrases are looked for one by one in each text (see `_Phrases`)."""
_PLACES = 32
"""Places (where a word starts in a fact, the fact's length) of one word's facts looked up by slicing, at most."""
_FEW_TOKENS = 64
"""Up to this many quoted tokens are looked for one by one in a text before its tokens are read (`_quoted_tokens_in`)."""
_PINNED_AT_MOST = 256
"""The most quoted facts no unit has as a fact that `_Tree._pin` looks for, each in every unit: a turn quoting the
trailing parts of 8,000 dotted names of a return (`fetch_11` of `self.store.fetch_11`) took 5.5 s, a time quadratic
in the return, and a summary has room for a few of them only."""


class _Tree:
    """The content as choices (units, items) with costs and facts, and the greedy that makes them."""

    def __init__(
        self,
        content: JsonValue,
        *,
        quoted: tuple[str, ...],
        kind: ContentKind | None,
        deadline: Deadline,
        max_line_chars: int = text_lines.MAX_LINE_CHARS,
    ) -> None:
        self._max_line_chars = max_line_chars
        """Lines longer than this are cut into pieces (see `text_lines.pieces`)."""
        self._deadline = deadline
        self._steps = 0
        self._fillers: set[str] = set()
        """The pieces of long lines holding nothing of note offered so far, in any text, digits masked (`_filler_key`)."""
        self._quoted = frozenset(quoted)
        patterns = {fact: mention_pattern(fact) for fact in self._quoted}
        self._quoted_tokens = frozenset(fact for fact, pattern in patterns.items() if pattern is None)
        """The quoted facts of one token, which a text holds when its `token_set` does."""
        self._quoted_phrases = _Phrases([(fact, pattern) for fact, pattern in patterns.items() if pattern is not None])
        """The quoted facts of several tokens (a name, a phrase, a URL), each with what finds it whole."""
        self._kinds: dict[str, str] = {}
        self._found: dict[str, tuple[str, ...]] = {}
        self._fields: dict[str, tuple[tuple[str, ...], float, float]] = {}
        """A short one-line text -> its unit's facts, bonus and cost (see `_field`): fields repeat across records."""
        self._counts: Counter[str] = Counter()
        self._priors: dict[str, float] = {}
        self._notable: set[str] = set()
        """Facts of the rows and items that stand out (`notable`): they weigh `_NOTABLE_GAIN` times more."""
        self._columns: dict[_Path, tuple[list[str], list[_Item | None]]] = {}
        """A column's cells: its texts and the items holding them (two lists, no tuple per cell to track)."""
        self._choices: list[_Choice] = []
        self._texts: list[tuple[_Text, _Item | None]] = []
        self._done: list[tuple[_Choice, list[_Choice], set[str], float]] = []
        """Each choice made, with what it brought in, the facts it covered first and what it spent: what `undo` gives back."""
        self.covered: set[str] = set()
        self._heap: list[tuple[float, int, _Choice]] = []
        self._started = False
        self._waiting: list[_Choice] = []
        self._pushed = 0
        self._nested = not isinstance(content, str)
        self._root_kind = kind
        self.root = self._build(content, outer=None, path=())
        self.spent = self._skeleton_cost(self.root)
        self.covered.update(self._skeleton_facts(self.root))
        self._mark_extremes()
        self._pin(quoted)
        self._weights = self._weigh()

    def _weigh(self) -> dict[str, float]:
        """Each fact's weight: its kind's, times its prior, its repeat gain, and its notable and quoted gains.

        Built from the kinds' weights in C, then multiplied only where a factor is not 1 (a prior
        below 1, a fact counted twice or more, a notable or quoted one): the few, in a text of
        thousands of facts. Multiplying by 1 changes no float, and the factors apply in the same
        order for every fact, so each weight is the product of all of them, to the bit.
        """
        weights = dict(zip(self._kinds, map(_WEIGHTS.get, self._kinds.values(), itertools.repeat(1.0))))
        for fact, prior in self._priors.items():
            if prior != 1.0 and fact in weights:
                weights[fact] *= prior
        for fact, count in self._counts.items():
            if count > 1 and fact in weights:
                weights[fact] *= 1 + _REPEAT_GAIN * math.log2(count)
        for gained, gain in ((self._notable, _NOTABLE_GAIN), (self._quoted, _QUOTED_GAIN)):
            for fact in gained:
                if fact in weights:
                    weights[fact] *= gain
        for fact in self._quoted:
            if fact in weights:
                weights[fact] += _QUOTED_BASE
        return weights

    @property
    def quoted(self) -> bool:
        """Whether later turns quote facts of the content."""
        return bool(self._quoted)

    def release(self) -> None:
        """Break the tree's reference cycles (a unit knows its text, an item the choices inside it), so it is freed now.

        Left to the cyclic collector, a dead tree waits for the next full collection, and the tree's
        thousands of objects count towards triggering one; a full collection in a process holding
        pydantic-ai traverses its ~80,000 objects too (30-60 ms). Freed by reference counting, a
        tree costs the collector nothing once summarized.
        """
        for node, _ in self._texts:
            for unit in node.units:
                unit.parents, unit.children = (), None
            node.units = []
        for choice in self._choices:
            if isinstance(choice, _Item):
                choice.inner, choice.siblings, choice.bundled = [], (), ()
                choice.owner = choice.before = choice.after = None

    def _step(self) -> None:
        self._steps += 1
        if self._steps % _CHECK_EVERY == 0:
            self._deadline.check()

    # -- building

    def _facts(self, text: str, *, count: bool = True, outer: _Item | None = None) -> tuple[str, ...]:
        found = self._found.get(text)
        if found is None:  # keys and short values repeat across records: extract once
            kinds = fact_kinds(text)
            found = self._found[text] = tuple(kinds)
            self._learn(kinds)
        if count:
            self._count(found, outer)
        return found

    def _learn(self, kinds: dict[str, str]) -> None:
        """Record the kind of each fact not seen before, in order of first appearance (ties rank by it)."""
        known = self._kinds
        for fact, kind in kinds.items():
            if fact not in known:
                known[fact] = kind

    def _count(self, found: tuple[str, ...], outer: _Item | None) -> None:
        """One more occurrence of each fact, with the highest prior of the items holding it."""
        prior, priors, counts = outer.prior if outer is not None else 1.0, self._priors, self._counts
        for fact in found:  # not `Counter.update`: its `Mapping` check costs more than a few facts
            counts[fact] = counts.get(fact, 0) + 1
            if priors.get(fact, 0.0) < prior:
                priors[fact] = prior

    def _text_facts(self, text: str, *, places: Collection[str] = ()) -> frozenset[str]:
        """The facts of a whole text, found in one pass (see `_line_facts`), but the line numbers in `places`."""
        kinds = fact_kinds(text, check=self._deadline.check)
        if places:
            kinds = {fact: kind for fact, kind in kinds.items() if fact not in places}
        self._learn(kinds)
        return frozenset(kinds)

    def _count_all(
        self, found: Sequence[tuple[str, ...]], outer: _Item | None, row_priors: Sequence[float] | None = None
    ) -> None:
        """`_count` of the facts of many lines of one text at once: one C pass counts them, one loop the distinct.

        `row_priors`: each line's own prior (a row deep in a long run of alike rows), times its item's.
        """
        occurrences = list(itertools.chain.from_iterable(found))
        self._counts.update(occurrences)
        prior, priors = outer.prior if outer is not None else 1.0, self._priors
        if row_priors is not None and any(row != 1.0 for row in row_priors):
            best: dict[str, float] = {}
            for facts, row in zip(found, row_priors, strict=True):
                for fact in facts:
                    if best.get(fact, 0.0) < row:
                        best[fact] = row
            for fact, row in best.items():
                if priors.get(fact, 0.0) < prior * row:
                    priors[fact] = prior * row
            return
        for fact in set(occurrences):  # `_priors` is read by key only: the order is of no matter
            if priors.get(fact, 0.0) < prior:
                priors[fact] = prior

    def _build(self, value: JsonValue, *, outer: _Item | None, path: _Path) -> _Node:
        self._step()
        if isinstance(value, str):
            if (
                self._nested
                and len(value) < _KIND_SAMPLE_CHARS
                and len(value) <= self._max_line_chars
                and '\n' not in value
            ):
                return self._field(value, outer=outer, path=path)
            return self._text(value, outer=outer, path=path)
        if isinstance(value, dict):
            members: dict[str, _Node] = {}
            for key, item in value.items():
                self._facts(key, outer=outer)
                members[key] = self._build(item, outer=outer, path=(*path, key))
            self._align([child for child in members.values() if isinstance(child, _List)])
            return _Object(members=members)
        if isinstance(value, list) and not _is_tuple(value):
            node = _List(items=[], total=len(value), marker_cost=cost(_JSON.encode(items_marker(len(value)))) + 0.25)
            before: _Item | None = None
            for index in self._offered(value):
                element = value[index]
                prior = (outer.prior if outer is not None else 1.0) * _place_prior(index, len(value))
                bonus = _EDGE_BONUS if index == 0 else 0.0
                item = _Item(cost=0.0, facts=(), outer=outer, bonus=bonus, prior=prior, owner=node, index=index)
                item.before = before
                if before is not None:
                    before.after = item
                before = item
                child = self._build(element, outer=item, path=(*path, '*'))
                item.cost = self._skeleton_cost(child) + 0.25
                item.facts = tuple(sorted(self._skeleton_facts(child)))  # sorted: weight sums are float
                self._bundle(item)
                node.items.append((item, child))
                self._add_choice(item)
            return node
        for index, scalar in enumerate(value if isinstance(value, list) else [value]):
            if scalar is not None and not isinstance(scalar, bool):
                self._facts(str(scalar), outer=outer)
                self._cell((*path, str(index)), str(scalar), outer)
        return value

    def _bundle(self, item: _Item) -> None:
        """Make an item's short one-line fields part of it: a kept record is whole, not a skeleton of `""`s."""
        item.bundled = [
            unit
            for unit in item.inner
            if isinstance(unit, _Unit)
            and (unit.node is None or len(unit.node.units) == 1)
            and unit.whole
            and len(unit.text) <= _BUNDLED_CHARS
        ] or ()
        if item.bundled:
            bundled = set(item.bundled)
            item.inner = [choice for choice in item.inner if choice not in bundled]
            item.cost += sum(unit.cost - _DROPPED_COST for unit in item.bundled)  # never `…` (see `_skeleton_cost`)
            item.facts = tuple(sorted({*item.facts, *(fact for unit in item.bundled for fact in unit.facts)}))
            for unit in item.bundled:
                unit.in_bundle = True

    def _offered(self, value: list[JsonValue]) -> Sequence[int]:
        """The positions of a list offered as choices: all of them, or of a very long list some (see `_MAX_LIST_CHOICES`)."""
        if len(value) <= _MAX_LIST_CHOICES:
            return range(len(value))
        offered = set(range(_LIST_HEAD)) | set(range(len(value) - _LIST_TAIL, len(value)))
        low: tuple[float, int] | None = None
        high: tuple[float, int] | None = None
        for start in range(0, len(value), _SCAN_CHUNK):  # in chunks, the deadline looked at between them
            self._deadline.check()
            numbers = [
                (item, index)
                for index, item in enumerate(value[start : start + _SCAN_CHUNK], start)
                if isinstance(item, (int, float)) and not isinstance(item, bool)
            ]
            if numbers:
                low = min(numbers) if low is None else min(low, min(numbers))
                high = max(numbers) if high is None else max(high, max(numbers))
        offered |= {extreme[1] for extreme in (low, high) if extreme is not None}
        if self._quoted:
            for index, item in enumerate(value):
                if index % _CHECK_EVERY == 0:
                    self._deadline.check()
                text = item if isinstance(item, str) else _JSON.encode(item)
                if self._holds_quoted(text):
                    offered.add(index)
        return sorted(offered)

    def _holds_quoted(self, text: str) -> bool:
        """Whether `text` holds a fact later turns quote, whole (`mentions`): a token, or a phrase or URL of several.

        Only a text holding it as a substring can, which is told first in one C call a fact; then a phrase's
        pattern, compiled once, and the text's tokens, read once for all the tokens quoted (it runs per item
        of a long list: `mentions` per fact read a text's tokens again for each).
        """
        return self._quoted_phrases.held(text) or bool(self._quoted_tokens_in(text))

    def _quotes_more(self, line: str, first: str | None) -> bool:
        """Whether `line`, a repeat, holds a fact later turns quote that `first`, the first line alike it, does not.

        Such a repeat is offered for itself (the test or the request a later turn names); one holding only what the
        first holds (the file every `ERROR t.py::test_x` names) folds under it as any other repeat. Without `first`
        (a line the same as one above, in a kind without signatures), any quoted fact makes it offered.
        """
        if not self._holds_quoted(line):
            return False
        return first is None or not self._quoted_in(line) <= self._quoted_in(first)

    def _quoted_in(self, text: str) -> set[str]:
        """The facts later turns quote that `text` holds whole (see `_holds_quoted`)."""
        return self._quoted_phrases.found(text) | self._quoted_tokens_in(text)

    def _quoted_tokens_in(self, text: str) -> frozenset[str]:
        """The quoted facts of one token that `text` holds: its tokens read once, where it may hold one.

        A few tokens are looked for as substrings first, each a C call; past `_FEW_TOKENS` the text's tokens are read
        at once rather than looked through for each (a record each, 10,000 records).
        """
        tokens = self._quoted_tokens
        if not tokens or (len(tokens) <= _FEW_TOKENS and not any(fact in text for fact in tokens)):
            return frozenset()
        return tokens.intersection(token_set(text))

    def _pin(self, quoted: tuple[str, ...]) -> None:
        """Make each quoted fact a fact of the units whose text holds it, where none has it as a fact yet.

        Most are facts of the lines that hold them already; one that is not (a phrase the quoting
        found, a trailing part of a dotted name: `fetch_11` of `self.store.fetch_11`) is learnt here
        by the units that hold it, so the line a later turn quotes from is chosen, not a list of it. The first
        `_PINNED_AT_MOST` such facts only: each is looked for in every unit.
        """
        held = set(self.covered)
        for choice in self._choices:
            held.update(choice.facts)
        for fact in quoted:
            self._kinds.setdefault(fact, 'quoted')  # a line number a numbered read's line holds, say
        missing = [fact for fact in quoted if fact not in held][:_PINNED_AT_MOST]
        if not missing:
            return
        check = self._deadline.check
        for choice in self._choices:
            if isinstance(choice, _Unit):
                check()  # each unit is looked at for every missing fact: thousands of looks between two checks
                pinned = [fact for fact in missing if fact in choice.text and fact not in choice.facts]
                if pinned:
                    choice.facts = (*choice.facts, *pinned)
                    if choice.in_bundle and choice.outer is not None:  # its item holds them
                        choice.outer.facts = (*choice.outer.facts, *pinned)

    def _add_choice(self, choice: _Choice) -> None:
        self._choices.append(choice)
        if choice.outer is not None:
            choice.outer.inner.append(choice)

    def _field(self, text: str, *, outer: _Item | None, path: _Path) -> _Unit | _Text:
        """`_text` of a short one-line text inside the content (a field's value): one unit, its own node.

        What `_text` makes of it is fixed: prose (too short to tell a kind), no table, no repeat,
        one piece, so one unit whose facts, bonus (trouble words, else the filler's) and cost depend
        on the text alone, worked out once per text; only the counting of its facts and its place
        differ between copies. A record's fields are thousands: a unit without a `_Text` around it
        (and its list of units) is a third of the objects, which would live through the summary and
        count towards a full collection of the host process (see `release`).
        """
        self._step()
        found = self._fields.get(text)
        if found is None:
            if not text.strip():
                return _Text(lines=(text,))  # nothing to choose: renders as `""`
            facts = _line_facts(text, self._text_facts(text))
            bonus = _ALARM_BONUS if ALARM.search(text) is not None else 0.0
            if not facts and not bonus:
                bonus = _FILLER_BONUS
            found = self._fields[text] = (facts, bonus, cost(text) + escapes(text) + 0.5)
        facts, bonus, unit_cost = found
        if facts:
            self._count(facts, outer)
        unit = _Unit(text=text, line=0, cost=unit_cost, facts=facts, outer=outer, node=None, position=0, bonus=bonus)
        self._add_value(unit, outer=outer, path=path)
        return unit

    def _text(self, text: str, *, outer: _Item | None, path: _Path) -> _Text:
        kind = self._root_kind if not path and not self._nested else None
        if kind is None:
            kind = detect_kind(text) if len(text) >= _KIND_SAMPLE_CHARS else ContentKind.PROSE
        node = _Text(
            lines=text_lines.split_lines(text),
            signature=SIGNATURES.get(kind),
            escaped=self._nested,
            record=_starts_record if kind is ContentKind.RECORDS else None,
        )
        numbered = [(index, line) for index, line in enumerate(node.lines) if line.strip()]
        if not numbered:
            return node
        plain = [line for _, line in numbered]
        joined = text_lines.Joined(plain)
        # What a terminal shows (colours read past), and of several sources in one stream (docker compose) what each
        # wrote: each line is weighed and placed as read so, and kept as it is.
        shown = text_lines.shown(node.lines) if '\x1b' in text or '\r' in text else node.lines
        prefixes = text_lines.source_prefixes(shown) if kind in SOURCED_KINDS else None
        unprefixed = shown if prefixes is None else [line[w:] for line, w in zip(shown, prefixes, strict=True)]
        read = joined if unprefixed is node.lines else text_lines.Joined([unprefixed[index] for index, _ in numbered])
        bonuses, standing_out = _line_bonuses(kind, read)
        node.reasons = _reasons(kind, read, numbered)
        limit = len(text) + 1 if kind in WHOLE_LINES else self._max_line_chars
        places = _line_numbers(joined) if kind in (ContentKind.CODE, ContentKind.LISTING) else ()
        known = self._text_facts(joined.text, places=places)
        line_facts = in_chunks(self._deadline.check, lambda chunk: _lines_facts(chunk, known), plain)
        if places and not self._quoted.isdisjoint(places):
            self._place_quoted(plain, line_facts)
        signature = node.signature
        shown_plain = plain if shown is node.lines else [shown[index] for index, _ in numbered]
        keys = (
            shown_plain
            if signature is None
            else in_chunks(self._deadline.check, lambda chunk: list(map(signature, chunk)), shown_plain)
        )
        counted: list[tuple[str, ...]] = []
        counted_priors: list[float] = []
        row_priors = _row_priors(shown_plain) if kind in TABLES else [1.0] * len(plain)
        offered: dict[int, list[tuple[int, str, tuple[str, ...], float]]] = {}
        """Line index -> its pieces offered as units: (piece number, piece, facts, bonus)."""
        fillers_end = len(plain) - _TAIL_LINES
        last = len(plain) - 1  # a text's last line, a repeat or not, says where it ended (a log's latest record)
        chains = enclosing(kind, unprefixed) if len(numbered) > 1 else None
        repeats = _Repeats(unprefixed, chains, FOLDED_UNDER.get(kind))
        repeated = REPEATED_BLOCKS[kind](unprefixed) if kind in REPEATED_BLOCKS else set[int]()
        blobs = text_lines.blob_lines(plain)
        self._weigh_named_bodies(kind, numbered, bonuses, chains)
        self._weigh_named_records(kind, numbered, bonuses)
        for number, (index, line) in enumerate(numbered):
            if number % _CHECK_EVERY == 0:
                self._deadline.check()
            key = keys[number]
            if (index in repeated and number != last and not self._quotes_more(line, None)) or (
                bonuses[number] < HIGH
                and number != last
                and repeats.over(index, key)
                and not self._quotes_more(line, repeats.seen.get(key) if signature is not None else None)
            ):
                counted.append(line_facts[number])  # a repeat: its facts count as salient, not its tokens
                counted_priors.append(row_priors[number])
                repeats.lines.add(index)
                continue
            repeats.seen.setdefault(key, line)
            parts = self._parts(node, index, line, _cut_at(line, kind, limit))
            blob = number in blobs  # encoded bytes: no facts, worth less than nothing (a quoted fact is still pinned)
            for piece_number, piece in enumerate(parts):
                bonus = NOISE if blob else bonuses[number] if piece_number == 0 else 0.0
                notable = _NOTABLE_BONUS * standing_out.get(number, 0.0) if piece_number == 0 else 0.0
                facts = () if blob else line_facts[number] if len(parts) == 1 else _line_facts(piece, known)
                counted.append(facts)
                counted_priors.append(row_priors[number])
                if notable:
                    self._notable.update(facts)
                if not (facts or bonus or notable):
                    if (
                        _HEAD_LINES <= number < fillers_end
                        or (kind in _SYNTAX_KINDS and not self._nested and bare(piece))
                        or (len(parts) > 1 and self._offered_alike(piece))
                    ):
                        continue  # nothing to gain (`))`, `else:`: nothing alone either): it could never be chosen
                    bonus = _FILLER_BONUS / (1 + number / _HEAD_LINES)
                offered.setdefault(index, []).append((piece_number, piece, facts, bonus + notable))
        offered = offered or self._syntax_alone(node, numbered[0], _cut_at(numbered[0][1], kind, limit))
        if chains is not None:
            numbers = {index: number for number, (index, _) in enumerate(numbered)}
            for index in list(offered):
                for parent in chains[index]:
                    if parent not in offered:  # a line that places an offered one is offered too: its start
                        head = node.lines[parent]
                        piece = self._parts(node, parent, head, _cut_at(head, kind, limit))[0]
                        number = numbers[parent]
                        facts = line_facts[number] if piece == plain[number] else _line_facts(piece, known)
                        offered[parent] = [(0, piece, facts, bonuses[number])]
        self._offer(node, offered, chains, outer)
        self._count_all(counted, outer, counted_priors)
        self._add_units(node, outer=outer, path=path)
        return node

    def _syntax_alone(
        self, node: _Text, first: tuple[int, str], cut_at: int
    ) -> dict[int, list[tuple[int, str, tuple[str, ...], float]]]:
        """Its first line offered, for a text none of whose lines is (each is syntax alone: `))` at line 225).

        It says little, but an empty summary says less: the pipeline refuses it, and the original stays.
        """
        index, line = first
        return {index: [(0, self._parts(node, index, line, cut_at)[0], (), _FILLER_BONUS)]}

    def _weigh_named_bodies(
        self,
        kind: ContentKind,
        numbered: Sequence[tuple[int, str]],
        bonuses: list[float],
        chains: Sequence[tuple[int, ...]] | None,
    ) -> None:
        """Weigh the body of a definition the conversation names (`def load(` where a turn quotes `load`) as a definition.

        A turn naming a function is about to read or edit its body, so its lines are no repeats to fold either. Only
        the innermost definition around a line counts, and only a name defined once in the text: a turn naming
        `__init__` says nothing of which class it means. A property's setter and deleter (`@value.setter`) define no
        name anew: a turn naming `value` brings each accessor's body (the first defines it in a read that starts below
        the getter). Blank lines and lines of brackets alone stay as they are, and
        so does a line the body held `_SAME_IN_BODY` times above (`table.append((0, 0, 0))` again): 400 copies of it
        would crowd out the outline, and in a read without numbers they fold as repeats.
        """
        if kind is not ContentKind.CODE or chains is None or not self._quoted:
            return
        names: dict[int, str] = {}
        defined = Counter[str]()
        for number, (index, line) in enumerate(numbered):
            if number % _CHECK_EVERY == 0:
                self._deadline.check()
            # A definition like one above it weighs half (`def __init__(self):` again), but defines its name again,
            # and is the innermost definition of its own body.
            if bonuses[number] >= HIGH / 2 and (name := code.defined_name(line)) is not None:
                accessor = number > 0 and code.accessor_of(numbered[number - 1][1]) == name
                defined[name] += not (accessor and defined[name])
                names[index] = name
        named = {index for index, name in names.items() if name in self._quoted and defined[name] == 1}
        if not named:
            return
        read = Counter[tuple[int, str]]()
        for number, (index, line) in enumerate(numbered):
            if number % _CHECK_EVERY == 0:
                self._deadline.check()
            inner = next((parent for parent in chains[index] if parent in names), None)
            if inner in named and not bare(line):
                _weigh_as_definition(bonuses, number, read, (inner, code.line_text(line)))

    def _weigh_named_records(
        self,
        kind: ContentKind,
        numbered: Sequence[tuple[int, str]],
        bonuses: list[float],
    ) -> None:
        """Weigh every line of a record the conversation names (the mail whose subject the task quotes) as a definition.

        A record holding a fact the conversation quotes that at most `_NAMED_RECORDS` records hold, unless another
        holds those facts and more, is the one the task is after: its other fields (a mail's body, a file's content)
        are what its reader needs next, before the other records' ids. A fact many records hold (the user's own
        address, a date) names none of them. A line the record held `_SAME_IN_BODY` times above (a body's `> quoted`
        line again) keeps its weight: 400 copies of it would crowd out every other record, and unnamed they fold as
        repeats. What follows the list (a key's block, `readme: |`) is no field of its last record: it neither names
        that record nor comes with it.
        """
        if kind is not ContentKind.RECORDS or not self._quoted:
            return
        plain = [line for _, line in numbered]
        spans = [
            (start, end)
            for start, end, depth in record_spans(plain, [indent(line) for line in plain])
            if _starts_record(plain[start][depth:])
        ]
        if len(spans) < 2:
            return  # one record is the whole text: naming it says nothing of which lines matter
        held: list[set[str]] = []
        holders = Counter[str]()
        for start, end in spans:
            self._deadline.check()
            # read for them whole: a name (`Facebook`) or a phrase (`Networking Event`) is no line's fact yet (`_pin`)
            facts = self._quoted_in('\n'.join(line for _, line in numbered[start:end]))
            held.append(facts)
            holders.update(facts)
        naming = [frozenset(fact for fact in facts if holders[fact] <= _NAMED_RECORDS) for facts in held]
        by_fact: dict[str, list[int]] = {}
        for record, facts in enumerate(naming):
            for fact in facts:
                by_fact.setdefault(fact, []).append(record)
        for record, (start, end) in enumerate(spans):
            facts = naming[record]
            # One that names fewer of them than another does (a party's `Chocolate cake`, beside the recipe of
            # the Chocolate Chip Cookies the task asks for) is not the one: only those no other outnames come whole.
            # Each record sharing one is compared once, not once per fact shared: two holding the same thousands
            # would take thousands of comparisons of thousands of facts.
            if not facts or any(
                facts < naming[other] for other in {other for fact in facts for other in by_fact[fact]}
            ):
                continue
            read = Counter[str]()
            for number in range(start, end):
                if number % _CHECK_EVERY == 0:
                    self._deadline.check()
                _weigh_as_definition(bonuses, number, read, numbered[number][1])

    def _place_quoted(self, plain: Sequence[str], line_facts: list[tuple[str, ...]]) -> None:
        """A line number later turns quote (`line 103`) is a fact of the line it numbers, not of every line holding it."""
        for number, line in enumerate(plain):
            place = _LINE_NUMBER.match(line)
            if place is not None and place.group(1) in self._quoted:
                line_facts[number] = (*line_facts[number], place.group(1))

    def _parts(self, node: _Text, index: int, line: str, limit: int) -> list[str]:
        """The line at `index` of `node` as the units it is cut into: itself, or pieces of an over-long line."""
        if len(line) <= limit:
            return [line]
        parts = text_lines.pieces(line, limit=limit)
        if node.pieces is None:
            node.pieces = {}
        node.pieces[index] = len(parts)
        return parts

    def _offer(
        self,
        node: _Text,
        offered: dict[int, list[tuple[int, str, tuple[str, ...], float]]],
        chains: list[tuple[int, ...]] | None,
        outer: _Item | None,
    ) -> None:
        """Make the `offered` pieces of `node` its units, in order, each knowing the units of the lines that place it."""
        units, escaped = node.units, self._nested
        first: dict[int, _Unit] = {}
        for index in sorted(offered):
            self._step()
            count = node.pieces.get(index, 1) if node.pieces is not None else 1
            for piece_number, piece, facts, bonus in offered[index]:
                piece_cost = cost(piece) + (escapes(piece) if escaped else 0.0) + 0.5
                unit = _Unit(piece, index, piece_cost, facts, outer, node, len(units), count == 1, piece_number, bonus)
                units.append(unit)
                first.setdefault(index, unit)
        if chains is None:
            return
        for unit in units:
            self._step()
            parents = tuple(first[line] for line in chains[unit.line] if line in first)
            if parents:
                unit.parents = parents
                for parent in parents:
                    if parent.children is None:
                        parent.children = []
                    parent.children.append(unit)

    def _offered_alike(self, piece: str) -> bool:
        """Whether a piece of a long line holding nothing of note is alike one offered before (`_filler_key`); else it is now."""
        key = _filler_key(piece)
        if key in self._fillers:
            return True  # `Paragraph 7 repeats background material ...` after `Paragraph 6 ...`: nothing more
        self._fillers.add(key)
        return False

    def _add_units(self, node: _Text, *, outer: _Item | None, path: _Path) -> None:
        """Offer a text's units as choices, its first and last line (a title, a total) first."""
        units = node.units
        if len(units) == 1:
            self._add_value(units[0], outer=outer, path=path)
        elif units:
            units[0].bonus += _EDGE_BONUS
            units[-1].bonus += _EDGE_BONUS
            for unit in units:
                self._add_choice(unit)
        self._texts.append((node, outer))

    def _add_value(self, unit: _Unit, *, outer: _Item | None, path: _Path) -> None:
        """Offer a text of one unit: a field's value (`_field`), or a nested text with one line to keep.

        It is a cell of its column and, inside the content and whole, what a record is about (a name, a
        status, a title): worth a bonus of its own.
        """
        unit.bonus += _EDGE_BONUS
        self._cell(path, unit.text, outer)
        if self._nested and unit.whole:
            unit.bonus += _FIELD_BONUS * (outer.prior if outer is not None else 1.0)
        self._add_choice(unit)

    def _cell(self, path: _Path, text: str, outer: _Item | None) -> None:
        column = self._columns.get(path)
        if column is None:
            column = self._columns[path] = ([], [])
        column[0].append(text)
        column[1].append(outer)

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
        for path, (texts, items) in self._columns.items():
            if len(texts) < 3 or _names_ids(path):
                continue
            self._deadline.check()
            for row in column_extremes(list(enumerate(texts))):
                item = items[row]
                if item is not None:
                    self._notable.update(item.facts)
                for sibling in item.siblings if item else ():
                    sibling.bonus += _NOTABLE_BONUS
                while item is not None:
                    item.bonus += _NOTABLE_BONUS
                    item = item.outer

    def _skeleton_cost(self, node: _Node) -> float:
        """What `node` costs with nothing of it chosen: keys, scalars, and what says a text or list was cut."""
        if isinstance(node, _Text):  # nothing kept: one marker, or `…` for a line
            return 0.5 + (MARKER_COST if len(node.lines) > 1 else _DROPPED_COST) if node.units else 0.5
        if isinstance(node, _Unit):
            return 0.5 + _DROPPED_COST
        if isinstance(node, _List):
            return 0.5 + node.marker_cost
        if isinstance(node, _Object):
            return 0.5 + sum(
                cost(_JSON.encode(key)) + 0.5 + self._skeleton_cost(child) for key, child in node.members.items()
            )
        return cost(_scalar_json(node))

    def _skeleton_facts(self, node: _Node) -> set[str]:
        if isinstance(node, _Object):
            facts = {fact for key in node.members for fact in self._facts(key, count=False)}
            for child in node.members.values():
                facts |= self._skeleton_facts(child)
            return facts
        if isinstance(node, (_Text, _Unit, _List)):
            return set()
        values = node if isinstance(node, list) else [node]
        return {
            fact
            for value in values
            if value is not None and not isinstance(value, bool)
            for fact in self._facts(str(value), count=False)
        }

    # -- choosing

    def _closed(self, choice: _Choice, *, placed: bool = True) -> list[_Choice]:
        """What choosing `choice` brings in: the items around it and the units of the lines that place it, not chosen yet.

        Outermost first, so each comes in after what encloses it. `placed=False`: the items only.
        """
        closed: list[_Choice] = []
        item = choice.outer
        while item is not None and not item.chosen:
            closed.append(item)
            item = item.outer
        closed.reverse()
        if placed and isinstance(choice, _Unit):
            closed.extend(parent for parent in reversed(choice.parents) if not parent.chosen)
        return closed

    def _value(self, choice: _Choice) -> tuple[float, float]:
        """(gain, price) of choosing `choice` now: the price of a line counts the markers it opens or closes."""
        unit = isinstance(choice, _Unit)
        closed = self._closed(choice) if choice.outer is not None or (unit and choice.parents) else []
        covered, weights = self.covered, self._weights
        if closed and unit and choice.bonus < 0 and covered.issuperset(choice.facts):
            closed = []  # a line worth less than nothing is no way in for the lines over it: they are choices too
        if closed:
            facts = dict.fromkeys(choice.facts).keys() | {fact for item in closed for fact in item.facts}
            new = sorted(facts - covered)  # summed in a fixed order: float sums depend on it, and so would ties
            # What places a line adds its bonus, never takes one away: a page's menu line (`lines.NOISE`)
            # weighs less than nothing for itself, not against the line of facts it stands over.
            gain = sum(weights[fact] for fact in new) + choice.bonus + sum(max(0.0, item.bonus) for item in closed)
            price = choice.cost + sum(item.cost for item in closed)
        else:
            gain = (
                sum([weights[fact] for fact in choice.facts if fact not in covered]) + choice.bonus
            )  # facts: distinct
            price = choice.cost
        if unit:
            opened = _runs_opened_all([*closed, choice]) if closed else _runs_opened(choice)
            price = max(_MIN_PRICE, price + MARKER_COST * opened)
        return gain, price

    def select(self, limit: float, *, quoted_only: bool = False) -> None:
        """Greedily choose units and items by new weight per token while the spending stays under `limit`.

        Lazy greedy: a choice's worth only falls as facts get covered, so one popped whose fresh
        worth still tops the heap is the best; what did not fit waits for a larger limit. `quoted_only`: only
        choices holding a quoted fact not kept yet are chosen (any other is dropped, not kept waiting).
        """
        pending = self._waiting if self._started else self._choices
        self._started, self._waiting = True, []
        heap, waiting = self._heap, self._waiting
        heap.extend(entry for choice in pending if (entry := self._entry(choice)) is not None)
        heapq.heapify(heap)  # one pass: the pop order is the keys' (unique), however the heap was built
        smallest = min((choice.cost for _, _, choice in heap), default=0.0)
        while heap:
            self._step()
            if self.spent + smallest > limit:
                # No choice left can fit (a price is at least its cost): each would wait, as the check
                # below makes it, in the order the heap pops them; sorted in C, not popped one by one.
                waiting.extend(choice for _, _, choice in sorted(heap) if not choice.chosen)
                heap.clear()
                break
            _, _, choice = heapq.heappop(heap)
            if choice.chosen:
                continue
            if self.spent + choice.cost > limit:
                # It cannot fit (its price is at least its cost), so it waits, as the check below would make
                # it; one worth nothing now is dropped when pushed again: worth only falls as facts get covered.
                waiting.append(choice)
                continue
            if quoted_only and not self._brings_quoted(choice):
                continue
            gain, price = self._value(choice)
            if gain <= 0:
                continue
            if self.spent + price > limit:
                waiting.append(choice)
                continue
            if heap and gain / price < -heap[0][0] - 1e-9:  # stale: worth less than when pushed
                self._push(choice, gain, price)
                continue
            for chosen in self._choose(choice):  # what they enclose just got cheaper
                for inner in chosen.inner if isinstance(chosen, _Item) else chosen.children or ():
                    self._push(inner)

    def _brings_quoted(self, choice: _Choice) -> bool:
        """Whether `choice` itself holds a fact later turns quote that no chosen line or item holds yet."""
        quoted, covered = self._quoted, self.covered
        return any(fact in quoted and fact not in covered for fact in choice.facts)

    def select_required(self, limit: float, *, first: float) -> None:
        """Choose the lines their kind requires (a diff's file and hunk headers), up to `limit` (the first rank's: `first`).

        By rank (how many times `MUST` the bonus is: a diff's file header before the hunk headers it
        places, however long its paths), then best worth first. A run's first lines saying why it failed
        (`_Text.reasons`) go up to `first` too.
        """
        required = sorted(
            (unit for unit in self._choices if isinstance(unit, _Unit) and unit.bonus >= MUST and not unit.in_bundle),
            key=lambda unit: (-(unit.bonus // MUST), -self._value(unit)[0] / unit.cost, unit.position),
        )
        top = required[0].bonus // MUST if required else 0.0
        top = top if top > 1 else math.inf  # a rank over `MUST`'s own: a listing's every file is no diff's
        for unit in required:
            self._step()
            larger = unit.bonus // MUST == top or (unit.node is not None and unit.line in unit.node.reasons)
            if self.spent + self._value(unit)[1] <= (first if larger else limit):
                self._choose(unit)

    def _push(self, choice: _Choice, gain: float | None = None, price: float = 1.0) -> None:
        entry = self._entry(choice, gain, price)
        if entry is not None:
            heapq.heappush(self._heap, entry)

    def _entry(
        self, choice: _Choice, gain: float | None = None, price: float = 1.0
    ) -> tuple[float, int, _Choice] | None:
        """The heap entry of `choice` (best worth per token first, then first pushed), or None if it is no choice now."""
        if choice.chosen or (isinstance(choice, _Unit) and choice.in_bundle):
            return None
        if gain is None:
            gain, price = self._value(choice)
        if not gain > 0:
            return None
        self._pushed += 1
        return (-gain / price, self._pushed, choice)

    def _choose(self, choice: _Choice, *, placed: bool = True) -> list[_Choice]:
        """Choose `choice` and what it brings in; returns them all, whose enclosed choices just got cheaper."""
        closed = self._closed(choice, placed=placed)
        spent, new = self.spent, {fact for item in (*closed, choice) for fact in item.facts} - self.covered
        self.spent += MARKER_COST * _runs_opened_all([*closed, choice])  # before they are marked chosen
        for item in (*closed, choice):
            if isinstance(item, _Item):
                if item.owner is not None:  # each in a list of its own, whose runs change as it joins them
                    self.spent += item.owner.marker_cost * _runs_opened_by(item, item.owner)
                for unit in item.bundled:
                    unit.chosen = True  # paid for with the item
            item.chosen = True
            self.covered.update(item.facts)
            self.spent += item.cost
        self._done.append((choice, closed, new, self.spent - spent))
        return [*closed, choice]

    def ensure_something(self) -> None:
        """If nothing was chosen, choose the cheapest list item or unit anyway: never an empty summary.

        A list keeps at least one whole item where one fits: its skeleton (keys, numbers), its
        short texts, and of its long texts what the budget leaves, which the checks then judge
        against the threshold. Choices inside it come after it; undoing never drops it. A line
        comes without the lines that place it here: nothing with them fitted, and a line over
        the budget is refused where a line alone may pass.
        """
        if self._done or not self._choices:
            return
        outermost = [choice for choice in self._choices if choice.outer is None]
        pool = outermost or self._choices
        forced = min(
            pool, key=lambda choice: choice.cost + sum(item.cost for item in self._closed(choice, placed=False))
        )
        closed = self._closed(forced, placed=False)
        for item in (forced, *closed):
            item.forced = True
        self._choose(forced, placed=False)
        self._done.clear()  # never undone
        for item in (*closed, forced):
            for inner in item.inner if isinstance(item, _Item) else ():
                if isinstance(inner, _Unit) and not inner.chosen:
                    self._choose(inner)  # the short texts of the item it keeps: undone first if too much

    def undo(self) -> bool:
        """Drop the last choice and what it brought in; False when there is nothing left to drop.

        What it covered and spent is given back, and it waits for the next `select`, as one that did not fit.
        """
        if not self._done:
            return False
        choice, closed, covered, spent = self._done.pop()
        for item in (choice, *closed):
            if not item.forced:
                item.chosen = False
                for unit in item.bundled if isinstance(item, _Item) else ():
                    unit.chosen = False
                self._waiting.append(item)
        self.covered -= covered
        self.spent -= spent
        return True

    # -- rendering

    def render(self) -> JsonValue:
        return _render(self.root)


class _Repeats:
    """The lines of a text read as repeats: alike one above (`strategies.SIGNATURES`), or under a repeated warning.

    Python prints a warning's source line under it (`  eps=np.finfo(np.float).eps,`). Under a warning repeated (the
    same one raised at another line), that line is part of the repeat: offered for its own facts, each would bring
    the warning that places it back (`outline`), the same message kept once per source line; read as a repeat, it
    folds into the marker with the warning over it. The repeat over it is the run of lines at the indentation of the
    line placing it, up to that line: a message over two lines (`path.py:30: DeprecationWarning: ...`, `Deprecated
    in NumPy 1.20; ...`) repeats when both lines do, the second the same under other warnings too. Only a run that
    holds a warning (`heads`, see `strategies.FOLDED_UNDER`): under a repeated `path.py:916` of pytest's warnings
    summary stands another warning, and under a repeated decorator the test's own code.
    """

    __slots__ = ('_chains', '_heads', '_runs', '_text', 'lines', 'seen')

    def __init__(
        self, text: Sequence[str], chains: Sequence[tuple[int, ...]] | None, heads: Callable[[str], bool] | None
    ) -> None:
        self._text, self._chains, self._heads = text, chains, heads
        self.seen: dict[str, str] = {}
        """The keys of the lines offered, each with the first line of it."""
        self.lines: set[int] = set()
        """The indices of the lines read as repeats, added in order."""
        self._runs: dict[int, bool] = {}
        """A line placing others -> whether it and the lines at its indentation right above it are a repeated warning."""

    def over(self, index: int, key: str) -> bool:
        """Whether line `index`, of `key`, repeats one above: alike it, or indented under a repeated warning."""
        return key in self.seen or self._placed_by_one(index)

    def _placed_by_one(self, index: int) -> bool:
        """Whether line `index` is indented under a repeated warning (see above)."""
        heads, chains = self._heads, self._chains
        if heads is None or chains is None or not chains[index]:
            return False
        parent = chains[index][0]  # its indentation parent, if it has one: the other lines placing it come after
        if parent not in self.lines:
            return False
        text = self._text
        depth = indent(text[parent])
        if not 0 <= depth < indent(text[index]):
            return False  # the line above a line of trouble, which places it unindented
        found = self._runs.get(parent)
        if found is None:
            above, warns = parent, False
            while above >= 0 and above in self.lines and indent(text[above]) == depth:
                warns = warns or heads(text[above])
                above -= 1
            found = self._runs[parent] = warns and (above < 0 or indent(text[above]) != depth)
        return found


def _scalar_json(value: JsonValue) -> str:
    """`_JSON.encode(value)`, the literal of a number without going through the encoder (records hold thousands).

    The encoder writes an int or a finite float by its type's own `repr`, as here.
    """
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    return _JSON.encode(value)


def _runs_opened(unit: _Unit) -> int:
    """How many more runs of dropped units its text has once `unit` is kept (-1, 0 or 1)."""
    if unit.node is None:
        return 0  # a field's value: one line, never a marker
    units = unit.node.units
    if len(units) == 1:
        return 0  # a one-line text never has a marker (see `_skeleton_cost`)
    left = unit.position > 0 and not units[unit.position - 1].chosen
    right = unit.position + 1 < len(units) and not units[unit.position + 1].chosen
    return 1 if left and right else -1 if not left and not right else 0


def _runs_opened_all(choices: Sequence[_Choice]) -> int:
    """How many more runs of dropped lines their texts have once the units among `choices` are kept, in order.

    Each may open or close a run the one before it opened: the price of a choice (`_Tree._value`) and
    what choosing it spends (`_Tree._choose`) count them alike.
    """
    opened, flipped = 0, list[_Unit]()
    for unit in choices:
        if isinstance(unit, _Unit):
            opened += _runs_opened(unit)
            if not unit.chosen:
                unit.chosen = True  # for the next one's count only: set back below
                flipped.append(unit)
    for unit in flipped:
        unit.chosen = False
    return opened


def _runs_opened_by(item: _Item, owner: _List) -> int:
    """How many more runs of dropped items, each an `… N items omitted …` item, its list `owner` has once `item` is kept.

    An item not offered (of a very long list) is never kept: a gap before or after it is a run.
    """
    left = item.index > 0 and (item.before is None or not item.before.chosen or item.before.index < item.index - 1)
    last = owner.total - 1
    right = item.index < last and (item.after is None or not item.after.chosen or item.after.index > item.index + 1)
    return 1 if left and right else -1 if not left and not right else 0


def _line_facts(line: str, known: frozenset[str]) -> tuple[str, ...]:
    """The facts of `line`: those of its text (`known`) that the line holds as a token or quoted string.

    One `find_facts` over the whole text and a split per line cost far less than `find_facts`
    per line, which judges every token of every line again. (A path's trailing part, `mod.py` of
    `/repo/mod.py`, is credited to the line holding the whole path only: weights, not presence.)
    """
    return _held(line, known.intersection(_WORDS.findall(line)), known)


def _lines_facts(lines: Sequence[str], known: frozenset[str]) -> list[tuple[str, ...]]:
    """`_line_facts` of each of `lines`, the splitting and the look-ups of all of them mapped in C."""
    return list(map(_held, lines, map(known.intersection, map(_WORDS.findall, lines)), itertools.repeat(known)))


def _held(line: str, held: frozenset[str], known: frozenset[str]) -> tuple[str, ...]:
    """The facts `line` holds: its words' (`held`) and its quoted strings', in a fixed order (weight sums are float)."""
    if '"' in line or "'" in line or '`' in line:
        held = held | known.intersection(quoted_strings(line))
    return tuple(sorted(held))


_RECORD_HEAD = 60
"""Characters of a YAML record's first line (`- content: 'Meeting notes ...`) offered as one piece: the line a kept field
of the record brings along to place it, whose start says where the record begins and whose rest is a field like any."""


def _cut_at(line: str, kind: ContentKind, limit: int) -> int:
    """Where `line` of a text of `kind` is cut into pieces.

    A long record's first line at `_RECORD_HEAD`, a search result's paragraph at `search.PIECE_CHARS` (not its
    title or url: `search.piece_chars`), an accessibility tree's node (a text node's paragraph) there too, so its
    first sentence comes without the rest; else `limit`.
    """
    if kind is ContentKind.SEARCH:
        return search.piece_chars(line, limit)
    if kind is ContentKind.PROSE and len(line) > search.PIECE_CHARS and prose.TREE_NODE.match(line):
        return min(limit, search.PIECE_CHARS)
    return _RECORD_HEAD if kind is ContentKind.RECORDS and _is_record_head(line) else limit


def _weigh_as_definition(bonuses: list[float], number: int, read: Counter[_Shape], shape: _Shape) -> None:
    """Weigh line `number` of a named body or record as a definition (`HIGH`): lines of one `shape`, `_SAME_IN_BODY` at most.

    The same line again and again (a table's `append`, a mail's `> quoted` line) is no more of what was named, and
    400 copies of it would crowd out the rest. `read`: the shapes read so far in that body or record.
    """
    read[shape] += 1
    if read[shape] <= _SAME_IN_BODY:
        bonuses[number] = max(bonuses[number], HIGH)


_Shape = TypeVar('_Shape', bound=Hashable)
"""What the same line again shares in a named body or record (`_weigh_as_definition`)."""


def _starts_record(line: str) -> bool:
    """Whether `line` starts a record of a YAML list (`- id_: '3'`): a field of a mapping, at the line's start.

    `render` gives it lines as they are: a list indented under its key is read for the records a name picks out
    (`_weigh_named_records`, its indentation read past), but its markers count lines, not records.
    """
    return _MAPPING_ITEM.match(line) is not None


_MAPPING_ITEM = re.compile(r'- [\w-]++:(?: |\r?$)')


def _is_record_head(line: str) -> bool:
    """Whether `line` starts a top-level record (`- ` at its start: a list item inside a field's text is indented)."""
    return len(line) > _RECORD_HEAD and line.startswith('- ')


def _filler_key(piece: str) -> str:
    """What a piece holding nothing of note says, its digits masked: fillers alike but for a count are one."""
    return _DIGIT_RUN.sub('0', piece.strip())


_DIGIT_RUN = re.compile(r'\d++')


def _line_numbers(lines: text_lines.Joined) -> set[str]:
    """The numbers a numbered read (`cat -n`) or `grep -n` puts before a line: where it is, not a fact of it."""
    return set(_LINE_NUMBER.findall(lines.text))


def _reasons(kind: ContentKind, lines: text_lines.Joined, numbered: Sequence[tuple[int, str]]) -> frozenset[int]:
    """The indices in their text of the first `_REASONS` lines saying why a run failed (`strategies.REASONS`).

    `lines`: the text's `numbered` lines (those not blank), as its kind reads them.
    """
    if kind not in REASONS:
        return frozenset()
    return frozenset(numbered[number][0] for number in REASONS[kind](lines)[:_REASONS])


def _line_bonuses(kind: ContentKind, lines: text_lines.Joined) -> tuple[list[float], dict[int, float]]:
    """Per line, its kind's bonus (trouble words for the kinds without rules of their own), and the rows standing out."""
    several = len(lines) > 1
    bonuses = LINE_BONUSES[kind](lines) if kind in LINE_BONUSES and several else [0.0] * len(lines)
    if kind not in LINE_BONUSES or kind in _PLAIN_KINDS:  # the others name their own trouble lines
        for number in lines.matching(ALARM):
            if bonuses[number] >= 0:  # a page's menu stays chrome whatever it names (`* [Why Projects Fail]`)
                bonuses[number] = max(bonuses[number], _ALARM_BONUS)
    notes = lines.matching(PARTIAL)
    for number in notes if len(notes) <= _NOTES else ():
        if bonuses[number] >= 0:
            bonuses[number] = max(bonuses[number], MUST)
    # A tree's node numbers (`[1652] StaticText "A"`) are no column of quantities: their extremes single out nothing.
    table = kind in TABLES and several and not (kind is ContentKind.PROSE and prose.is_tree(lines))
    if kind is ContentKind.RECORDS and several:  # records written as text: their fields are the columns
        standing_out = notable_fields(lines.lines)
    else:
        standing_out = notable_rows(split_rows(lines.lines)) if table else {}
    return bonuses, standing_out


def _names_ids(path: _Path) -> bool:
    """Whether a column holds identifiers (`id`, `user_id`, `orderId`, `number`): its extremes mean nothing."""
    keys = [key for key in path if key != '*' and not key.isdigit()]
    return bool(keys) and ID_KEY.search(keys[-1]) is not None


_ROW_RUN = 8
"""Alike rows in a row at least this many are a table's: past its first, each row weighs as an item of a long list."""
_ROW_NUMBER = re.compile(r'\d[\w.]*')
"""A number in a row's shape, with what is glued to it (`1.5kB`, `v2`'s `2`): rows differing only in it are alike."""


def _row_priors(lines: Sequence[str]) -> list[float]:
    """Each line's prior as a row of a run of alike rows (`_place_prior`), 1 for a line in none.

    Rows alike but for their numbers (`1.5kB`, `v2`) and last word (`19 notice 1.5kB man/man1/npm-stop.1`, a tarball's
    hundreds of files) are one table: a reader needs its first rows, not two hundred rows in place of the lines after
    them that say what came of the command. A line of one or two words is no row (a list of names, a `find`).
    """
    # Numbers masked in one pass over the lines joined, not one substitution a line; a line of one word stays itself,
    # and no two-word shape makes a row.
    shapes = _ROW_NUMBER.sub('#', '\n'.join([(line.rsplit(None, 1) or [''])[0] for line in lines])).split('\n')
    priors = [1.0] * len(lines)
    start = 0
    while start < len(lines):
        shape = shapes[start]
        end = start + 1
        while end < len(lines) and shapes[end] == shape:
            end += 1
        if end - start >= _ROW_RUN and len(shape.split(None, 1)) > 1:
            priors[start + 1 : end] = [_place_prior(1, end - start)] * (end - start - 1)  # the first row counts in full
        start = end
    return priors


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
    if isinstance(node, _Unit):
        return node.text if node.chosen else DROPPED_TEXT  # a field's value (`_Tree._field`)
    if isinstance(node, _Text):
        return _render_text(node)
    if isinstance(node, _List):
        return _render_list(node)
    if isinstance(node, _Object):
        return {key: _render(child) for key, child in node.members.items()}
    return node


def _render_list(node: _List) -> list[JsonValue]:
    """The chosen items in order, an `… N items omitted …` item in the place of each run of dropped ones."""
    rendered: list[JsonValue] = []
    position = 0
    for item, child in node.items:
        if item.chosen:
            if item.index > position:
                rendered.append(items_marker(item.index - position))
            rendered.append(_render(child))
            position = item.index + 1
    if node.total > position:
        rendered.append(items_marker(node.total - position))
    return rendered


def _render_text(node: _Text) -> str:
    whole: set[int] = set()
    cut: dict[int, list[tuple[int, str]]] = {}
    for unit in node.units:
        if unit.chosen:
            if unit.whole:
                whole.add(unit.line)
            else:
                cut.setdefault(unit.line, []).append((unit.piece, unit.text))
    kept: dict[int, str | None] = dict.fromkeys(whole)
    for index, pieces in cut.items():
        count = node.pieces[index] if node.pieces is not None else len(pieces)
        kept[index] = None if len(pieces) == count else text_lines.cut_line(pieces, count)  # every piece: the line
    if not kept and len(node.lines) == 1:
        text = DROPPED_TEXT if node.units else ''
    else:
        text = '\n'.join(
            text_lines.render(node.lines, kept, signature=node.signature, escaped=node.escaped, record=node.record)
        )
    return text
