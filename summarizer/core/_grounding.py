"""Whether a summary stands on its original: every line of it comes from the original, or it is refused.

A summary line is *grounded* in its original text when it is (`grounded_line`):

- blank, or a marker of a cut (`… 12 lines omitted …`, `… 3 items omitted …`, or `…` alone);
- an original line, byte for byte (`LINE`);
- pieces of one original line (`PIECES`): substrings of it, in order, joined by ` … `, with a `…`
  wherever the pieces stop short of the line's start or end (its indentation and trailing spaces
  aside): `… def parse(self, text) …`. A piece that stops short of either end without a `…` is a
  changed line, not a piece (`assert x == 2` of `assert x == 21`);
- for a real model, its own words about one original line (`OWN_WORDS`): every value in it (a
  number, an identifier, a path: any token that is not a plain word) is in that line, and it shares
  at least two other words with it (`failed`, `tests`; not `the`). A bare list of tokens shares no
  words, so it is no one's own words.

Anything else is `UNGROUNDED`: a line of the prompt, an invented or changed value, a list of tokens
gathered from all over the original. `ungrounded` applies the rule to a whole summary: each line of
a string, each string of a list or object against the string at its place (a value where the
original had none, such as text in an empty `stderr`, is refused), and a real model's own words
that repeat the prompt's instructions are refused too.
"""

from __future__ import annotations

import bisect
import enum
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import cast

from ._config import READ_HINT, REPEAT_CALL_ID, REPEAT_NOTE
from ._facts import token_set, tokens
from ._shape import MAX_DEPTH, JsonValue, aligned_items, is_dict, nested_deeper_than, shape_mismatch

CUT = '…'
"""What marks a cut inside a line (` … ` between pieces, a leading `… `, a trailing ` …`)."""
RECORD_COUNT = r'(?: \([1-9]\d* records?\))?'
"""What a marker over a run of YAML records adds after `omitted` (`… 82 lines omitted (7 records) …`, `lines.marker`)."""
MARKER = re.compile(rf'… [1-9]\d* (?:(?:similar )?lines?|items?|keys?) omitted{RECORD_COUNT} …')
"""A line standing for a run of dropped lines, items or keys (`… 12 lines omitted …`, `… 3 similar lines omitted …`,
`… 82 lines omitted (7 records) …`, `… 1 item omitted …`), in the words summaries write and no others: a line of a
model's own words between `… 3` and `omitted …` would pass as a marker without standing on the original."""
MIN_SHARED_WORDS = 2
"""The words other than values that a real model's own line shares with the original line it stands on."""
_ECHO_WORDS = 4
"""A run of this many words of the prompt's instructions, not in the original, is the prompt echoed back."""
_STOP_WORDS = frozenset(
    [
        'the',
        'and',
        'for',
        'with',
        'that',
        'this',
        'from',
        'are',
        'was',
        'were',
        'has',
        'have',
        'had',
        'not',
        'but',
        'all',
        'any',
        'its',
        'into',
        'out',
        'our',
        'you',
        'your',
        'there',
        'their',
        'than',
        'then',
        'them',
        'they',
        'these',
        'those',
        'when',
        'what',
        'which',
        'who',
        'will',
        'would',
        'can',
        'could',
        'should',
        'been',
        'being',
        'also',
        'only',
        'such',
        'may',
        'more',
        'most',
        'other',
        'some',
        'each',
        'per',
        'via',
    ]
)
"""Words too common to tie a line to another."""
_TEXT_WORD = re.compile(r'\w+')


class GroundingKind(enum.Enum):
    """How a summary line stands on its original (see the module's docstring)."""

    BLANK = 'blank'
    MARKER = 'marker'
    LINE = 'line'
    PIECES = 'pieces'
    OWN_WORDS = 'own words'
    UNGROUNDED = 'ungrounded'


@dataclass(frozen=True, slots=True)
class Grounding:
    """What `grounded_line` found: the kind, and for a line, pieces or own words, the original line's index."""

    kind: GroundingKind
    source: int | None = None

    @property
    def grounded(self) -> bool:
        return self.kind is not GroundingKind.UNGROUNDED


_BLANK = Grounding(GroundingKind.BLANK)
_MARKED = Grounding(GroundingKind.MARKER)
_UNGROUNDED = Grounding(GroundingKind.UNGROUNDED)


class OriginalText:
    """An original text read for grounding: its lines, where each starts, and (when first asked) its words.

    Build it once per original and ask `grounded_line` for each summary line.
    """

    __slots__ = ('_index', '_lines', '_scans', '_starts', '_tokens', '_words', 'text')

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._index: dict[str, int] | None = None
        self._starts: list[int] | None = None
        self._scans = 0
        """Look-ups answered by a scan of the text, before the index of each is built."""
        self._words: dict[str, list[int]] | None = None
        self._tokens: dict[int, set[str]] = {}

    @property
    def lines(self) -> list[str]:
        """Its lines, split on first use: the first look-ups scan the text itself (`_scan`), which most checks end with."""
        if self._lines is None:
            self._lines = self.text.split('\n')
        return self._lines

    def line_index(self, line: str) -> int | None:
        """The index of the first original line equal to `line`, if one is."""
        if self._index is None:
            if self._scan():  # a scan of the text in C: an index of the lines hashes every one of them
                return self._find_line(line)
            self._index = {}
            for index, text in enumerate(self.lines):
                self._index.setdefault(text, index)
        return self._index.get(line)

    def _find_line(self, line: str) -> int | None:
        """`line_index` by a search of the text: the first place `line` stands between line breaks (or an end)."""
        text = self.text
        if '\n' in line:
            return None
        if text == line or text.startswith(f'{line}\n'):
            return 0
        found = text.find(f'\n{line}\n')
        if found >= 0:
            return text.count('\n', 0, found + 1)
        return text.count('\n') if text.endswith(f'\n{line}') else None

    def line_at(self, offset: int) -> int:
        """The index of the line holding the character at `offset` of `text`."""
        if self._starts is None:
            if self._scan():  # the line breaks before it, counted in C
                return self.text.count('\n', 0, offset)
            self._starts = [0]
            for line in self.lines[:-1]:
                self._starts.append(self._starts[-1] + len(line) + 1)
        return bisect.bisect_right(self._starts, offset) - 1

    def line_holding(self, offset: int) -> str:
        """The line holding the character at `offset` of `text`, cut from the text: its lines may not be split yet."""
        text = self.text
        end = text.find('\n', offset)
        return text[text.rfind('\n', 0, offset) + 1 : end if end >= 0 else len(text)]

    def _scan(self) -> bool:
        """Whether to answer this look-up by a scan: the first few are, before an index pays for its making.

        A summary line is looked up once or twice in its original (most summaries keep a few lines of a
        long one), where making an index costs a dozen scans.
        """
        self._scans += 1
        return self._scans <= _SCANS

    def sharing(self, words: set[str]) -> list[tuple[int, int]]:
        """(line index, words shared) of the lines sharing at least `MIN_SHARED_WORDS` of `words`, most first."""
        if self._words is None:
            self._words = {}
            for index, line in enumerate(self.lines):
                for word in _words(line):
                    self._words.setdefault(word, []).append(index)
        shared = Counter(index for word in words for index in self._words.get(word, ()))
        return sorted(((index, n) for index, n in shared.items() if n >= MIN_SHARED_WORDS), key=lambda pair: -pair[1])

    def tokens(self, index: int) -> set[str]:
        """`token_set` of line `index`, read once."""
        tokens = self._tokens.get(index)
        if tokens is None:
            tokens = self._tokens[index] = token_set(self.lines[index])
        return tokens


_SCANS = 8
"""Look-ups of an original answered by a scan before its indexes are made."""


def grounded_line(line: str, original: OriginalText, *, own_words: bool = True) -> Grounding:
    """How the summary line `line` stands on `original` (see the module's docstring).

    `own_words`: whether a line may be a real model's own words about an original line; an embedded
    summarizer only keeps lines and pieces of lines, so for it such a line is ungrounded.
    """
    stripped = line.strip()
    if not stripped:
        return _BLANK
    if stripped == CUT or MARKER.fullmatch(stripped):
        return _MARKED
    index = original.line_index(line)
    if index is not None:
        return Grounding(GroundingKind.LINE, index)
    index = _pieces_of(stripped, original)
    if index is not None:
        return Grounding(GroundingKind.PIECES, index)
    if own_words:
        index = _about(stripped, original)
        if index is not None:
            return Grounding(GroundingKind.OWN_WORDS, index)
    return _UNGROUNDED


def _pieces_of(stripped: str, original: OriginalText) -> int | None:
    """The original line `stripped` (a summary line without its outer spaces) is pieces of, if one."""
    leading = stripped.startswith(CUT)
    trailing = stripped.endswith(CUT) and len(stripped) > len(CUT)
    inner = stripped[len(CUT) if leading else 0 : len(stripped) - len(CUT) if trailing else len(stripped)]
    parts = [part.strip() for part in inner.split(f' {CUT} ')]
    if not all(parts):
        return None
    first, text = parts[0], original.text
    start = text.find(first)
    seen: set[int] = set()
    while start >= 0:
        index = original.line_at(start)
        if index not in seen:
            seen.add(index)
            if _fits(parts, original.line_holding(start), leading=leading, trailing=trailing):
                return index
        start = text.find(first, start + 1)
    return None


def _fits(parts: list[str], line: str, *, leading: bool, trailing: bool) -> bool:
    """Whether `parts` are pieces of `line` in order, reaching its ends (but for its outer spaces) unless marked cut."""
    body = line.strip()
    position = 0
    for number, part in enumerate(parts):
        if number == len(parts) - 1 and not trailing:  # the last piece ends the line
            found = len(body) - len(part)
            if found < position or not body.endswith(part):
                return False
        else:  # as early as it can be, leaving the most room to the rest
            found = body.find(part, position)
            if found < 0:
                return False
        if number == 0 and not leading and found != 0:
            return False
        position = found + len(part)
    return True


def _about(stripped: str, original: OriginalText) -> int | None:
    """The original line that `stripped` is a real model's own words about, if one (see the module's docstring)."""
    words = _words(stripped)
    if len(words) < MIN_SHARED_WORDS:
        return None
    values = {token for token in token_set(stripped) if not token.isalpha()}  # a letter alone is no value
    for index, _ in original.sharing(words):
        if values <= original.tokens(index):
            return index
    return None


def _words(text: str) -> set[str]:
    """The plain words of `text`: its tokens of three letters or more and nothing else, lowercase, common ones left out.

    A word inside a value (`pytest` of `pytest-5.4.1`) is none: a list of values shares no words.
    """
    return {word for word in map(str.lower, tokens(text)) if len(word) >= 3 and word.isalpha()} - _STOP_WORDS


def ungrounded(original: JsonValue, summary: JsonValue, *, own_words: bool, instructions: str = '') -> str | None:
    """Why `summary` does not stand on `original`, or None when every line of it does.

    `summary` keeps `original`'s shape (`shape_mismatch` passed). A string is read line by line
    (`grounded_line`); a string holding a JSON list or object whose summary is JSON of the same
    shape, and a list or object, string by string against the string at the same place, where a
    blank string must stay blank. `own_words`: a real model wrote it (see `grounded_line`);
    `instructions`: the prompt's own text, which its own words may not repeat.
    """
    if isinstance(summary, str):  # the pipeline's words, not the model's
        summary = _REPEATED.sub(r'\1', _READ_HINT.sub(r'\1', summary, count=1), count=1)
    return _Grounder(own_words=own_words, instructions=instructions).problem(original, summary, '$')


_READ_HINT = re.compile(rf'(…|\\u2026){re.escape(READ_HINT)}')
"""The read hint after a cut's `…` (escaped in the JSON text of a string holding JSON)."""
_REPEATED = re.compile(
    r'\A(… \d+ lines? omitted …)' + re.escape(REPEAT_NOTE).replace(re.escape('{}'), REPEAT_CALL_ID) + r'\Z'
)
"""A marker standing for a repeated output, the whole of it (`_ceiling.marker`): a summary with any other
line, or a note naming anything but a call id, is read as the model's words."""


class _Grounder:
    __slots__ = ('_echoes', '_own_words')

    def __init__(self, *, own_words: bool, instructions: str) -> None:
        self._own_words = own_words
        self._echoes = _runs(instructions) if own_words and instructions else set[tuple[str, ...]]()

    def problem(self, original: JsonValue, summary: JsonValue, path: str) -> str | None:
        if isinstance(original, str):
            return self._text_problem(original, cast(str, summary), path)
        if isinstance(original, list):
            items = cast('list[JsonValue]', summary)
            for index, was, now in aligned_items(original, items):
                reason = self.problem(was, now, f'{path}[{index}]')
                if reason:
                    return reason
        elif is_dict(summary):
            for key, value in cast('dict[str, JsonValue]', original).items():
                if key not in summary:  # dropped from JSON text, which the shape check allowed
                    continue
                reason = self.problem(value, cast('JsonValue', summary[key]), f'{path}.{key}')
                if reason:
                    return reason
        return None

    def _text_problem(self, original: str, summary: str, path: str) -> str | None:
        if summary == original:
            return None
        if not original.strip():
            return None if not summary.strip() else f'{path}: a value where the original has none ({_brief(summary)})'
        parsed = _same_json(original, summary)
        if parsed is not None:
            return self.problem(parsed[0], parsed[1], f'{path} (JSON)')
        read = OriginalText(original)
        for number, line in enumerate(summary.split('\n'), 1):
            grounding = grounded_line(line, read, own_words=self._own_words)
            if not grounding.grounded:
                return f'{path}: line {number} is not in the original ({_brief(line)})'
            elif grounding.kind is GroundingKind.OWN_WORDS and self._echoes and self._echoes_prompt(line, original):
                return f'{path}: line {number} repeats the prompt ({_brief(line)})'
        return None

    def _echoes_prompt(self, line: str, original: str) -> bool:
        """Whether `line` holds a run of the instructions' words that the original does not hold."""
        echoed = _runs(line) & self._echoes
        return bool(echoed) and not echoed <= _runs(original)


def _same_json(original: str, summary: str) -> tuple[JsonValue, JsonValue] | None:
    """Both texts parsed, when both hold a JSON list or object and the summary keeps the original's shape.

    Its objects may keep fewer keys, with `_shape.keys_marker` last (`shape_mismatch(keys_omitted=True)`).
    """
    parsed: list[JsonValue] = []
    for text, hook in ((original, None), (summary, _unique_keys)):
        stripped = text.strip()
        if not stripped or stripped[0] not in '[{':
            return None
        try:
            parsed.append(json.loads(stripped, object_pairs_hook=hook))
        except (ValueError, RecursionError):
            return None
    if not isinstance(parsed[0], (list, dict)) or nested_deeper_than(parsed[0], MAX_DEPTH):
        return None  # past the depth guard the recursive checks raised RecursionError: read as text
    if shape_mismatch(parsed[0], parsed[1], keys_omitted=True) is not None:
        return None
    return parsed[0], parsed[1]


def _unique_keys(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    """An object of a summary's JSON text, whose keys must differ (else it is read as text, line by line).

    `json.loads` keeps a repeated key's last value: the first, which the agent reads in the text, would
    go unchecked (`{"name": "<words of its own>", "name": "orders-api"}`, a marker key twice).
    """
    value = dict(pairs)
    if len(value) < len(pairs):
        raise ValueError('a key twice')
    return value


def _runs(text: str) -> set[tuple[str, ...]]:
    """Every run of `_ECHO_WORDS` consecutive words of `text`, lowercase."""
    words = [word.lower() for word in _TEXT_WORD.findall(text)]
    return {tuple(words[start : start + _ECHO_WORDS]) for start in range(len(words) - _ECHO_WORDS + 1)}


def _brief(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + '...')
