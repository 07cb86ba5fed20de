"""What counts as a fact in tool output: an identifier-like token a later turn can reuse exactly.

One definition serves the embedded summarizer (which weighs lines by the facts they hold), the
quoted facts of `_quoted` (the facts of a return that later turns hold, kept verbatim) and the eval
(which scores how many of those a summary still holds), so the three cannot drift apart.

A text is cut into *tokens*: URLs, ISO timestamps, times, numbers with thousands separators, `#123`,
`--flags`, and runs of ASCII letters, digits and `_` joined by `.`, `/`, `-`, `@` or `::`
(`os.replace`, `/etc/hosts`, `CVE-2024-3094`, `ops@example.com`, `std::vector`). The inner texts of
quoted and backticked strings on one line are read too. A token is a fact when it looks like
something a program, not a dictionary, wrote:

- it holds a digit (ids, hashes, versions, IPs, dates, numbers of three digits or more, `x86_64`);
- it holds an underscore (`load_config`, `__init__`) or a capital after a lowercase letter
  (`ToolReturnPart`, `iPhone`, `HTTPError`);
- it is a URL, an e-mail address, a `--flag`, a dotted name (`os.replace`, `example.com`,
  `Parser.parse_file`; not `e.g`), or a path (`/tmp`, `~/x`, `src/app.py`, `a/b/c`; not `and/or`);
- or it is a quoted string that is not one plain word (`"field required"`; not `'name'`).

Plain words are not facts, however written: `please`, `Please`, `PLEASE`, `read-only`. Nor is a
number of one or two digits alone: a long output holds most of them, so a later `30` matches by
chance. Letters outside ASCII end a token (no fact is read in them).

A path or dotted name also holds its trailing parts (`/repo/pkg/mod.py` holds `pkg/mod.py` and
`mod.py`; `self.parser.parse_file` holds `parse_file`, `crate::io::read_all` holds `read_all`), so a
later `mod.py` refers to it. A pytest node id also holds its file (`tests/test_app.py::test_login`
holds `tests/test_app.py`, `test_app.py` and `test_login`): a later `pytest tests/test_app.py` or
`-k test_login` refers to it. A text
*holds* a fact when the fact is one of its tokens, trailing parts or quoted strings
(`token_set`): whole, never inside a longer token (`42` is not held by `1425`, `10` not by
`10.1.7.7`).

Speed: the text is split at whitespace by `str.split` and the distinct pieces kept by a set, both
in C; the token pattern then reads each distinct piece once, and the quoted-string pattern makes one
pass over the text. No Python code runs per character, and only distinct tokens are judged: of
those, only the ones a pattern pass finds able to be facts (plain words never are), each once per
process (`_token_facts`). A scan reads tens of MB/s (measured in `bench/`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

import re2

from ._chunks import in_chunks

_TOKEN = re.compile(
    r'(?=[\w\\#~./-])'  # a character a token can start with: every other position is passed over in one test
    r'(?:\\\w'  # an escape (`\n`): consumed so that it glues no letter to the token after it
    r'|https?://[^\s"\'<>()\[\]{}`|\\]*[^\s"\'<>()\[\]{}`|\\.,;:!?]'
    r'|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?'
    r'|\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?![\w:])'
    r'|\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])'
    r'|#\d+'
    r'|--[A-Za-z]\w*(?:-\w+)*'
    r'|(?:(?:~|\.\.?)?/)?\.?\w+(?:(?:[-@]|::)\w+|/\.?\w+|\.\w+)*)',
    re.ASCII,
)
"""The tokens of a piece of text without whitespace, leftmost-longest; see the module's docstring."""
_QUOTED = re.compile(r'"[^"\n\\]{2,200}"|\'(?<!\w\')[^\'\n\\]{2,200}\'(?!\w)|`[^`\n\\]{2,200}`')
"""A string in double, single (not an apostrophe) or back quotes, on one line, without escapes."""
_WITH_PARTS = re.compile(r'^(?!\d|https?://|[^\n]{257})[^\n]*(?:[./]|::)[^\n]*', re.MULTILINE)
"""A token (one per line) that has parts: a `/`, `.` or `::` in it, neither a number nor a URL, `MAX_PARTED` long
at most (`_has_parts`)."""
_PART = re.compile(r'(?:[./]|::)(?=([^\n./:][^\n]*))')
"""Where a trailing part of a token starts: after a `/`, `.` or `::` not followed by another; the part is group 1."""
_LEAD = re.compile(r'^([^\n:]*[./][^\n:]*)::', re.MULTILINE)
"""The path or dotted name before a `::` (a pytest node id's file, `tests/test_app.py::test_login`): a part too."""
_CANDIDATE = re.compile(r'^(?=[^\n]{3})[^\n]*?(?:[\d@/_.#:]|--|[a-z][A-Z]|[A-Z]{2}[a-z])[^\n]*$', re.MULTILINE)
"""A token (one per line) that may be a fact (`fact_kind`) or have parts that are: plain words are not."""
_WORD = re.compile(r'\w', re.ASCII)
"""What every `_TOKEN` alternative needs, and where the last one matches wherever no other does (`holds_token`)."""
_DIGITS = frozenset('0123456789')
"""ASCII digits, found by one C pass of set look-ups; a text with other characters is also read for any decimal digit."""
_SEPARATORS = frozenset('./:')
"""A token without any of these has no parts (`name_parts`)."""
_CAMEL = re.compile(r'[a-z][A-Z]|[A-Z]{2}[a-z]')
_NUMERIC = re.compile(r'[\d.,:]+')
_DOTTED_PARTS = re.compile(r'\.|::')


@dataclass(frozen=True, slots=True)
class Fact:
    text: str
    kind: str
    """'url', 'email', 'flag', 'number', 'id', 'identifier', 'path', 'dotted' or 'quoted'."""


def find_facts(text: str) -> list[Fact]:
    """Distinct facts in `text` (see the module's docstring), in order of first appearance.

    A path or dotted name comes with those of its trailing parts that are facts of their own.
    """
    return [Fact(fact, kind) for fact, kind in fact_kinds(text).items()]


def fact_kinds(text: str, *, check: Callable[[], None] | None = None) -> dict[str, str]:
    """`find_facts` as a map from each fact to its kind, in the same order (no `Fact` per fact).

    Only the tokens that can be facts (`_CANDIDATE`: a digit, a mark, a capital after a lowercase
    letter) are judged one by one; the plain words, most of any text, are left out by that one
    pattern's pass over the distinct tokens. A token is judged once per process (`_token_facts`):
    the fields of records and the lines of a long output repeat theirs. `check` is called between
    batches of tokens judged (a deadline's): a log of 10 MB has hundreds of thousands, about a second.
    """
    candidates = _CANDIDATE.findall('\n'.join(_tokens(text)))
    # A part's kind depends on its text alone, so a part met again adds nothing: `dict` keeps each at its
    # first place, and the pairs are built and inserted in C.
    found = dict(
        in_chunks(
            check or (lambda: None), lambda chunk: itertools.chain.from_iterable(map(_token_facts, chunk)), candidates
        )
    )
    for inner in dict.fromkeys(quoted_strings(text)):
        if inner not in found and _is_quoted_fact(inner):
            found[inner] = 'quoted'
    return found


def facts_by_salience(text: str) -> list[Fact]:
    """Distinct facts in `text`, the most often repeated first, ties in order of first appearance.

    What a tool output keeps coming back to (the account, the failing host, the main product) is
    what a reader most often quotes; a value seen once in a long table rarely is.
    """
    facts = find_facts(text)
    counts = {fact.text: text.count(fact.text) for fact in facts}
    return sorted(facts, key=lambda fact: -counts[fact.text])


def token_set(text: str) -> set[str]:
    """Every token, trailing part and quoted string of `text`: what it can hold a fact as.

    A fact of one text is held by another exactly when it is in the other's `token_set`.
    """
    tokens = pieces_tokens(set(text.split()))
    tokens.update(quoted_strings(text))
    return tokens


def pieces_tokens(pieces: set[str]) -> set[str]:
    """Every token and trailing part of `pieces` (a text's pieces between whitespace, as `str.split` cuts them).

    A piece's tokens do not depend on the pieces around it: a text's `token_set` is its pieces' and its quoted
    strings, so a reader of many texts (`_quoted.Turns`) reads a piece met again in none of them.
    """
    tokens = _piece_tokens(pieces)
    tokens.update(all_parts(tokens))
    return tokens


def holds_token(text: str) -> bool:
    """Whether `text` holds a token: an ASCII letter, digit or `_`, which every token holds and which starts one."""
    return _WORD.search(text) is not None


def tokens(text: str) -> set[str]:
    """The distinct tokens of `text`: no trailing parts, no quoted strings."""
    return _piece_tokens(set(text.split()))


def referred_facts(text: str, held: Callable[[set[str]], set[str]]) -> list[str]:
    """The facts of `text` that a later text holds, in order of first appearance (quoted strings last).

    `held(candidates)` is the subset of `candidates` (strings of `text` that may be facts) the later
    text holds: `candidates & token_set(later)`, or a look-up in an index of later turns. Of a path
    or dotted name, only the longest part the later text holds counts (a later `/repo/pkg/mod.py`
    refers to the path once, not to it and to `pkg/mod.py` and `mod.py`). Everything up to the
    look-up runs in compiled patterns and set operations; Python code judges only the hits.
    """
    return PossibleFacts(text).referred(held)


class PossibleFacts:
    """The strings of a text that may be facts (tokens, their trailing parts, quoted strings), read once.

    Reading a long tool return for them costs far more than looking them up, so a return looked up
    on both sides (the turns before it and those after it) is read once for both (`referred`).
    """

    __slots__ = ('_candidates', '_quoted', '_tokens')

    def __init__(self, text: str, *, around: Sequence[Collection[str]] | None = None) -> None:
        """`around`: for each look-up to come (`referred`), the only strings it can answer with (of a `Vocabulary`).

        Then only the pieces and lines of `text` holding one of them are read, when they occur seldom
        enough for finding them to cost less than reading it all (`_near`).
        """
        near = None if around is None else _near(text, around)
        pieces, lines = (text, text) if near is None else near
        self._tokens = _tokens(pieces)
        self._quoted = dict.fromkeys(quoted_strings(lines))
        self._candidates = {*self._tokens, *all_parts(self._tokens), *self._quoted}

    def referred(self, held: Callable[[set[str]], set[str]]) -> list[str]:
        """The facts of the text `held` holds, as `referred_facts` gives them."""
        tokens, quoted = self._tokens, self._quoted
        hits = held(self._candidates)
        # Hits are judged by the memos `_token_facts` fills (the same tokens recur in every return and side).
        facts = {hit for hit in hits if _part_kind(hit) is not None or (hit in quoted and _is_quoted_fact(hit))}
        facts.difference_update(list(itertools.chain.from_iterable(map(_known_parts, facts))))
        if not facts:
            return []
        ordered: dict[str, None] = {}
        parted = not facts.issubset(tokens)
        for token in tokens:
            if token in facts:
                ordered[token] = None
            elif parted and ('/' in token or '.' in token or '::' in token):
                ordered.update((part, None) for part in _known_parts(token) if part in facts)
        ordered.update((inner, None) for inner in quoted if inner in facts)
        return list(ordered)


_NEAR_STRINGS = 32
"""At most this many strings are looked for one by one (`_near`); past it, reading the whole text costs less."""
_NEAR_CHARACTERS = 8
"""`_near` may go through one occurrence per this many characters of the text (and cut out a piece per
`_NEAR_CUT` of them): about what reading that much text for tokens costs, measured on bench (c)."""
_NEAR_LONGEST = 256
"""A longer string (a signed URL, a pasted blob) is not looked for one by one: compiling its pattern costs about a
microsecond a character, more than reading the text around it."""
_NEAR_CUT = 4
"""What cutting out an occurrence's piece and reading it for tokens costs, in occurrences gone through."""
_LAST_SPACE = re.compile(r'.*\s', re.DOTALL)
"""Up to the last whitespace of a range (matched from its start): where a piece within it starts."""
_SPACE = re.compile(r'\s')
"""Whitespace as `str.split` sees it (`Py_UNICODE_ISSPACE` both): where a piece ends."""
_QUOTES = frozenset('"\'`')
_PATH_LIKE = re.compile(r'[^\d#\\-].*\w', re.ASCII | re.DOTALL)
"""A string (fullmatch) that only `_TOKEN`'s path-and-word and URL alternatives can start (no digit, `#`, `\\` or
`-` first), ending in a word character: both go on over what `_GLUE` matches."""
_GLUE = r'\w|[-@.]\w|/\.?\w'
"""What, right after such a string, the token holding it goes on with (see `_near`)."""
_UNGLUED = rb'(?:$|[^0-9A-Za-z_@./-]|[-@.](?:$|[^0-9A-Za-z_])|/(?:$|[^0-9A-Za-z_.]|\.(?:$|[^0-9A-Za-z_])))'
"""What may follow such a string where it is no glued occurrence, as RE2 (no look-ahead) reads UTF-8 bytes: the end,
or none of `_GLUE` (an ASCII word character, or `-`, `@`, `.` or `/` before one, or `/.` before one)."""


@functools.lru_cache(maxsize=1 << 12)
def _occurrences(string: str) -> re.Pattern[str]:
    """Where `string` may be a candidate (`_near`): its occurrences, but a path-like one's glued to more of a token.

    The pattern finds the next one in C (a literal first, then a look at what follows), so the
    glued occurrences, most of a long listing's, cost no Python work. Remembered: the same turn
    tokens are looked for in every return.
    """
    if _glues(string):
        return re.compile(rf'{re.escape(string)}(?!{_GLUE})', re.ASCII)
    return re.compile(re.escape(string))


def _glues(string: str) -> bool:
    """Whether `string` is path-like and whole (no whitespace): no candidate where more of a token is glued to it."""
    return string.split() == [string] and _PATH_LIKE.fullmatch(string) is not None


def _near(text: str, sides: Sequence[Collection[str]]) -> tuple[str, str] | None:
    """The pieces (between whitespace) and the lines of `text` that may hold one of the `sides`' strings as a fact.

    Returns (pieces, lines), each kept once, in order, joined by line breaks; or None when there are
    too many strings or occurrences for this to pay. A candidate (`PossibleFacts`) equal to one of
    `strings` is found in them as in the whole text, and in the same order:

    - a token or trailing part lies inside one piece, whose tokens do not depend on the pieces around
      it; keeping each piece at its first appearance is the order `_tokens` meets them in. A string
      that a piece holds as a token of its own needs no later piece: it is placed there, and no later
      token can place it earlier (`referred`);
    - a quoted string never crosses a line, and its inner text stands between two equal quotes;
    - a string is no fact on a side (a look-up) holding a longer string found as a token and fact of
      its own that has it as a trailing part (`referred` drops it): one so covered on every side
      holding it is not looked for. Longer strings are looked for first, so a path found as a token
      spares going through every occurrence of its file name.

    - a string starting as no number, id or flag can, and ending in a word character, glued to a
      word character, or to `.`, `-`, `@` or `/` and one, is no token or trailing part there: the
      token holding it goes on (`_TOKEN` is greedy), and a part ends where its token does (or before
      a `::`). Such occurrences are passed over in C (`_occurrences`).

    Occurrences are paid for as they are gone through: past a budget of about what reading the
    whole text costs, it is read whole, so giving up costs at most as much again.
    """
    strings = sorted(set[str]().union(*sides), key=len, reverse=True)
    if len(strings) > _NEAR_STRINGS or (strings and len(strings[0]) > _NEAR_LONGEST):
        return None
    budget = len(text) // _NEAR_CHARACTERS + _NEAR_STRINGS
    pieces: dict[int, str] = {}
    lines: dict[int, str] = {}
    covered = [set[str]() for _ in sides]
    """For each side, the trailing parts of its strings found as tokens and facts of their own."""
    for string in strings:
        if all(string in parts for side, parts in zip(sides, covered, strict=True) if string in side):
            continue
        size = len(string)
        whole = string.split() == [string]  # no whitespace in it: it can be a token or part, not only quoted
        settles = whole and _part_kind(string) is not None  # once a token of its own, quotes add nothing to it
        piece_end = line_end = 0
        find = _occurrences(string).search
        found = find(text)
        while found:
            position = found.start()
            budget -= 1
            if whole and position >= piece_end:  # not in the piece this string was last found in
                budget -= _NEAR_CUT
                last_space = _LAST_SPACE.match(text, piece_end, position)
                start = last_space.end() if last_space else piece_end
                space = _SPACE.search(text, position + size)
                piece_end = space.start() if space else len(text)
                piece = pieces[start] = text[start:piece_end]
                budget -= len(piece) // _NEAR_CHARACTERS  # found and read for tokens: a line with no space is long
                if settles:
                    if string in _TOKEN.findall(piece):
                        for side, parts in zip(sides, covered, strict=True):
                            if string in side:
                                parts.update(_known_parts(string))
                        break
                    settles = False  # every later occurrence may count
            if budget < 0:
                return None
            quote = text[position - 1] if position else ''
            if quote in _QUOTES and text.startswith(quote, position + size) and position >= line_end:
                start = text.rfind('\n', 0, position) + 1
                line_end = text.find('\n', position + size) % (len(text) + 1)  # -1 (the last line): its end
                lines[start] = text[start:line_end]
            # An occurrence overlapping this one is in its piece, and has a quote inside it (not around).
            found = find(text, position + size)
    return (
        '\n'.join(dict.fromkeys([pieces[start] for start in sorted(pieces)])),
        '\n'.join([lines[start] for start in sorted(lines)]),
    )


class Vocabulary:
    """Strings a text may hold as facts (the tokens of later turns), and which of them a text holds, by one pass.

    Reading a long tool return for every string that may be a fact of it (`PossibleFacts`) costs far
    more than finding which of the few hundred strings of the turns it holds: an RE2 set runs them
    all at once, in time linear in the text whatever the strings (untrusted: they come from the
    conversation). The return is then read only around those (`PossibleFacts(text, around=...)`),
    or not at all when it holds none.

    An agent run's turns grow request by request, and compiling a set costs ~10 µs a string: the
    strings are kept in sets of their own (`_Chunk`), and a new one, or one as large as the one before
    it, is merged into that one (as a binary counter carries). Each string is compiled again a
    logarithmic number of times, and a text is matched against as many sets.

    Compiling pays only over enough text: a history whose prompt holds thousands of ids and whose
    returns are small spends more compiling them (~20 µs a string) than reading its returns whole
    (~65 ns a character). Asked to `wait`, the vocabulary compiles what was added only once the
    texts read whole meanwhile would have paid for it (`_CHARS_PER_STRING` a string), as one rents
    skis until the rent paid would have bought them: never much more than twice the cheaper way.
    """

    __slots__ = ('_chunks', '_long', '_owed', '_pending', '_refused')

    def __init__(self) -> None:
        self._chunks: list[_Chunk] = []
        """Compiled sets, each at least as large as the next."""
        self._pending: list[str] = []
        """Strings added since the last look-up, in no set yet."""
        self._long: list[str] = []
        """Strings too long to look for around (`_NEAR_LONGEST`): a text holding one is read whole."""
        self._refused = False
        """RE2 refused a set (over its memory budget): callers read each text whole."""
        self._owed = 0
        """Characters read whole (`held(wait=True)`) while strings waited to be compiled."""

    def add(self, strings: Iterable[str]) -> None:
        """Add `strings` (new ones: a string added twice is looked for twice); those that can be no fact are left out."""
        for string in strings:
            if may_be_fact(string):
                (self._pending if len(string) <= _NEAR_LONGEST else self._long).append(string)

    def held(self, text: str, *, wait: bool = False) -> list[str] | None:
        """The strings `text` holds as substrings (in no order), or None: read it whole.

        `wait`: None too while compiling the strings added since the last compile would cost more than the
        texts so answered, this one included, cost to read whole (see the class's docstring).

        A path-like string (`_glues`) counts only where no more of a token is glued to it: elsewhere it is no
        candidate, and `_near` passes over it, so a listing that holds a turn's path only inside longer names
        (`src/app.py.orig`) is not read around it at all. None when `text` holds a string too long to look
        for around it (or there are many such), or when RE2 could not take them all. A substring only:
        whether the text holds one as a token, part or quoted string is for `PossibleFacts` to tell.
        """
        if len(self._long) > _NEAR_STRINGS or any(string in text for string in self._long):
            return None
        if self._pending and not self._refused:
            if wait and self._owed + len(text) < _CHARS_PER_STRING * len(self._pending):
                self._owed += len(text)
                return None
            self._merge()
            self._owed = 0
        if self._refused:
            return None
        # The text as bytes (lone surrogates passed through) against the strings encoded alike, byte by byte.
        data = text.encode('utf-8', 'surrogatepass')
        return [string for chunk in self._chunks for string in chunk.held(data)]

    def _merge(self) -> None:
        chunks, strings = self._chunks, self._pending
        while chunks and len(chunks[-1].strings) <= len(strings) and len(strings) < _CHUNK_STRINGS:
            strings = chunks.pop().strings + strings
        for start in range(0, len(strings), _CHUNK_STRINGS):
            chunk = _Chunk.of(strings[start : start + _CHUNK_STRINGS])
            if chunk is None:
                self._refused = True
                return
            chunks.append(chunk)
        self._pending = []


_CHARS_PER_STRING = 300
"""What compiling a string into a set costs (~20 µs; 14-28 by the set's size), in characters read whole (~65 ns
each): both measured, side by side, on the vocabularies and returns of 42 golden histories."""
_CHUNK_STRINGS = 2048
"""The most strings a set holds: RE2 refuses a set past its memory budget (8 MB, ~7,000 short ids), and one
refusal would read every text whole for the rest of the run."""


@dataclass(frozen=True, slots=True)
class _Chunk:
    """Some strings of a `Vocabulary`, compiled into one RE2 set."""

    strings: list[str]
    matcher: re2.Set

    @classmethod
    def of(cls, strings: list[str]) -> _Chunk | None:
        """The strings compiled, or None when RE2 refuses them (over its memory budget)."""
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1  # type: ignore[attr-defined]  # bytes against bytes: no UTF-8 checks
        options.never_capture = True
        options.log_errors = False
        matcher = re2.Set.SearchSet(options)
        try:
            for string in strings:
                literal = re2.escape(string.encode('utf-8', 'surrogatepass'))
                matcher.Add(literal + _UNGLUED if _glues(string) else literal)
            matcher.Compile()
        except re2.error:
            return None
        return cls(strings=strings, matcher=matcher)

    def held(self, data: bytes) -> list[str]:
        # Once compiled, a set's match cannot fail for memory (RE2 tries its DFA at compile time and a set's
        # search never gives up for slowness), so an empty answer means none is held.
        found = self.matcher.Match(data)
        strings = self.strings
        return [strings[index] for index in found] if found else []  # type: ignore[union-attr]  # the stubs say bool


def may_be_fact(string: str) -> bool:
    """Whether `string` can be a fact of a text holding it (as a token, part or quoted string; see `referred`).

    Remembered for a short one: every run reads its turns again (`Turns`), and the same words and names
    recur in them; a long one (a pasted blob) would hold its memory for the life of the process.
    """
    return _may_be_fact(string) if len(string) <= _NEAR_LONGEST else _judged(string)


def _judged(string: str) -> bool:
    return _part_kind(string) is not None or _is_quoted_fact(string)


_may_be_fact = functools.lru_cache(maxsize=1 << 16)(_judged)


def mentions(text: str, fact: str) -> bool:
    """Whether `text` holds `fact` whole: a fact (see the module's docstring) or any longer phrase.

    A single token is held when it is in `token_set(text)`; several (a name, a sentence) where no
    token goes on at either end. Reads all of `text`: to test many facts against one text, test
    them against its `token_set`.
    """
    pattern = mention_pattern(fact)
    return fact in token_set(text) if pattern is None else pattern.search(text) is not None


def mention_pattern(fact: str) -> re.Pattern[str] | None:
    """What finds `fact` whole in a text (see `mentions`); None for a single token, which `token_set` holds.

    For a caller testing many facts against many texts: compiled once a fact, not looked up in `re`'s cache of
    512 patterns, which thousands of facts would go round.
    """
    if _TOKEN.fullmatch(fact):
        return None
    return re.compile(rf'(?<![\w.-]){re.escape(fact)}(?!\w|[.-]\w)')


def quoted_strings(text: str) -> list[str]:
    """The inner text of every quoted or backticked string in `text`, in order."""
    return [quoted[1:-1] for quoted in _QUOTED.findall(text)]


def fact_kind(token: str) -> str | None:
    """What kind of fact `token` (a token, or a quoted string's inner text) is; None when it is none."""
    first = token[:1]  # most tokens start with none of the marks below: one look, not a call per mark
    if len(token) < 3 or first == '\\':
        return None
    if first == 'h' and token.startswith(('http://', 'https://')):
        return 'url'
    if first == '-' and token.startswith('--'):
        return 'flag'
    if first == '#':
        return 'id'
    if not _DIGITS.isdisjoint(token) or (not token.isascii() and any(map(str.isdecimal, token))):  # as `\d`
        if _NUMERIC.fullmatch(token):
            return 'number' if not token.isdigit() or len(token) >= 3 else None
        return 'id'
    if '@' in token:
        return 'email'
    if '/' in token:
        parts = [part for part in token.split('/') if part]
        explicit = token.startswith(('/', '~/', './', '../'))
        if explicit or len(parts) >= 3 or any('.' in part or '_' in part for part in parts):
            return 'path'
        return 'identifier' if _CAMEL.search(token) else None
    if '_' in token:
        return 'identifier'
    if '.' in token or '::' in token:
        parts = [part for part in _DOTTED_PARTS.split(token) if part]
        if token[0] == '.' or (len(parts) >= 2 and any(len(part) > 1 for part in parts)):
            return 'dotted'
        return None
    return 'identifier' if _CAMEL.search(token) else None


def _tokens(text: str) -> dict[str, None]:
    """The distinct tokens of `text`, in order of first appearance.

    The token pattern reads each distinct piece between whitespace once, all in one pass over the
    pieces joined by line breaks (which it sees as it sees any whitespace).
    """
    return dict.fromkeys(_TOKEN.findall('\n'.join(dict.fromkeys(text.split()))))


def _piece_tokens(pieces: set[str]) -> set[str]:
    """The distinct tokens of `pieces` (between whitespace), in no order, as `_tokens` reads them.

    A piece of ASCII letters alone (most of any prose) is its own one token: such pieces are picked out
    in C and the pattern reads the others only.
    """
    words = set(filter(str.isalpha, filter(str.isascii, pieces)))
    tokens = set(_TOKEN.findall('\n'.join(pieces.difference(words))))
    tokens.update(words)
    return tokens


@functools.lru_cache(maxsize=1 << 16)
def _token_facts(token: str) -> tuple[tuple[str, str], ...]:
    """The facts (and their kinds) a token is and holds: itself, then its trailing parts (`name_parts`).

    Parts recur across tokens (`tests/test_app.py` of every node id of a test run, `py` of every
    file), so a part is judged once per process too (`_part_kind`).
    """
    if _SEPARATORS.isdisjoint(token) or not _has_parts(token):
        kind = fact_kind(token)
        return () if kind is None else ((token, kind),)
    parts = (token, *_parts(token))
    return tuple((part, kind) for part, kind in zip(parts, map(_part_kind, parts)) if kind is not None)


_part_kind = functools.lru_cache(maxsize=1 << 16)(fact_kind)
"""`fact_kind`, remembered: the parts of tokens repeat."""


def forget_tokens() -> None:
    """Empty the memo of judged tokens and parts: a benchmark's repeated run measures a first meeting."""
    _token_facts.cache_clear()
    _part_kind.cache_clear()
    _known_parts.cache_clear()
    _may_be_fact.cache_clear()
    _occurrences.cache_clear()


def _is_quoted_fact(inner: str) -> bool:
    """A quoted string is a fact unless it is one plain word (`'name'`) or holds no letter or digit.

    One token that is a fact of its own is found as a token already.
    """
    if not any(char.isalnum() for char in inner):
        return False
    return _TOKEN.fullmatch(inner) is None or fact_kind(inner) is not None


def name_parts(token: str) -> list[str]:
    """What follows each `/`, `.` or `::` of `token` (longest first), then the path before a `::`.

    `a/b.py` -> `b.py`, `py`; `t/a.py::test_x` -> `a.py::test_x`, `py::test_x`, `test_x`, then
    `t/a.py` and its own parts `a.py`, `py`.

    A number (`10.0.0.1`) and a URL have none: the pieces of a number are other numbers, and a URL
    is referred to whole.
    """
    return _parts(token) if _has_parts(token) else []


def _parts(token: str) -> list[str]:
    """`name_parts` of a token that may have some (`_has_parts`)."""
    leads = _LEAD.findall(token) if '::' in token else ()
    return [*_PART.findall(token), *leads, *_PART.findall(leads[0])] if leads else _PART.findall(token)


@functools.lru_cache(maxsize=1 << 16)
def _known_parts(token: str) -> tuple[str, ...]:
    """`name_parts`, remembered: a return's facts are looked up again for each side and each request."""
    return tuple(name_parts(token))


def all_parts(tokens: Iterable[str]) -> list[str]:
    """The parts (`name_parts`) of all `tokens`: the tokens that have parts picked, then cut, each by one pass."""
    joined = '\n'.join(tokens)
    # No `/`, `.` or `:` at all, as in most of a conversation's prose: no parts. A search per mark, each a scan in C;
    # a set's `isdisjoint` would make and look up a string per character, some thirty times slower.
    if '/' not in joined and '.' not in joined and ':' not in joined:
        return []
    parted = '\n'.join(_WITH_PARTS.findall(joined))
    leads = _LEAD.findall(parted)
    return [*_PART.findall(parted), *leads, *_PART.findall('\n'.join(leads))]


def _has_parts(token: str) -> bool:
    first = token[0]
    return (
        len(token) <= MAX_PARTED
        and not first.isdigit()
        and not (first == 'h' and token.startswith(('http://', 'https://')))
    )


MAX_PARTED = 256
"""A longer token has no parts: a name or a path is shorter, and the trailing parts of a token are as many as its
separators and each nearly as long, quadratic in it (`a.a.a...` of 50 KB, read from any tool output: 80 s)."""
