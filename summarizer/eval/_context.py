"""Whether a summary keeps a fact where its reader can use it: in its line, beside what places it.

A fact a summary holds somewhere is *present*; one a reader can tell the meaning of is *kept in
context*. A date on a list of bare tokens is present; `last_modified: 2024-05-10` under the file it
belongs to is kept. The eval and the replay score both, by the functions here.

A content is read as its reader takes it in (`reader_text`): a string's lines; a JSON scalar beside
its key (`"size": 593` reads `size: 593`); the lines of a string inside JSON as lines; a string holding
JSON as that JSON. A fact of an
original line is kept in context when the summary holds that line, or a window of it of at least
`WINDOW` characters either side of the fact: where the line has fewer on a side, the window runs to
the line's end on that side, and the summary must hold that end as a line's end too (so a short line
counts only as a line of its own). A real model writes its own words: a fact it keeps counts in context
too when its summary line is its own words about an original line holding the fact, as the grounded
check reads them (`core.grounded_line`: every value of it in that line, and two other words shared).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core import GroundingKind, JsonValue, OriginalText, grounded_line, token_set
from ..extractive import ContentKind, detect_kind, json_text
from ..extractive.lines import OMISSION
from ..extractive.outline import enclosing, indent

WINDOW = 20
"""Characters of a fact's line either side of it that a summary must keep with it."""
_STANDS = frozenset({GroundingKind.LINE, GroundingKind.PIECES, GroundingKind.OWN_WORDS})
"""How a summary line comes from an original line."""


def reader_text(value: JsonValue) -> str:
    """`value` as its reader takes it in, a line per line: strings' lines, `key: scalar`, a key over a container.

    A string holding a JSON list or object is read as that JSON (its escapes would glue a letter to a
    fact, and its strings' lines would be no lines).
    """
    if isinstance(value, str):
        parsed = json_text.parse(value)
        if parsed is None:
            return value
        value = parsed
    lines: list[str] = []
    _read(value, None, lines)
    return '\n'.join(lines)


def _read(value: JsonValue, key: str | None, lines: list[str]) -> None:
    if isinstance(value, dict):
        if key is not None:
            lines.append(f'{key}:')
        for name, item in value.items():
            _read(item, name, lines)
    elif isinstance(value, list):
        if key is not None:
            lines.append(f'{key}:')
        for item in value:
            _read(item, None, lines)
    elif isinstance(value, str):
        lines.append(value if key is None or '\n' in value else f'{key}: {value}')
    else:
        scalar = 'null' if value is None else 'true' if value is True else 'false' if value is False else str(value)
        lines.append(scalar if key is None else f'{key}: {scalar}')


def _at(fact: str, line: str) -> Iterable[int]:
    """Where `line` holds `fact` as a whole token (not inside a longer run of letters and digits)."""
    start = line.find(fact)
    while start >= 0:
        end = start + len(fact)
        if (start == 0 or not _word_char(line[start - 1])) and (end == len(line) or not _word_char(line[end])):
            yield start
        start = line.find(fact, start + 1)


def _word_char(char: str) -> bool:
    return char.isalnum() or char == '_'


@dataclass(frozen=True, slots=True)
class Context:
    """A summary as a reader sees it, ready to be asked whether it keeps a fact of the original in context."""

    text: str
    lines: tuple[str, ...]

    @classmethod
    def of(cls, summary: JsonValue) -> Context:
        text = reader_text(summary)
        return cls(text=text, lines=tuple(text.split('\n')))

    def keeps(self, fact: str, original_lines: Iterable[str], *, own_words: bool = False) -> bool:
        """Whether the summary holds `fact` in context of one of the `original_lines` holding it."""
        for line in original_lines:
            for start in _at(fact, line):
                if self._holds_window(line, start, start + len(fact)):
                    return True
            if own_words and self._in_own_words(fact, line):
                return True
        return False

    def _holds_window(self, line: str, start: int, end: int) -> bool:
        low, high = max(0, start - WINDOW), min(len(line), end + WINDOW)
        window, text = line[low:high], self.text
        at = text.find(window)
        while at >= 0:
            after = at + len(window)
            if (low > 0 or at == 0 or text[at - 1] == '\n') and (
                high < len(line) or after == len(text) or text[after] == '\n'
            ):
                return True
            at = text.find(window, at + 1)
        return False

    def _in_own_words(self, fact: str, line: str) -> bool:
        """Whether a summary line holding `fact` is a real model's own words about `line` (`core.grounded_line`)."""
        original = OriginalText(line)
        return any(
            fact in mine and fact in token_set(mine) and grounded_line(mine, original).kind is GroundingKind.OWN_WORDS
            for mine in self.lines
        )


def lines_holding(fact: str, lines: Sequence[str]) -> list[str]:
    """The lines of `lines` that hold `fact` as a whole token."""
    return [line for line in lines if fact in line and next(iter(_at(fact, line)), None) is not None]


# -- outline figures: kept lines that lost what placed them, and what markers cost


@dataclass(frozen=True, slots=True)
class Outline:
    """How a summary's kept lines stand: how many, how many lost their enclosing line, what markers take."""

    kept_lines: int
    orphans: int
    """Kept lines whose enclosing line the summary dropped: the nearest line above with less indentation, and in a
    diff a line's hunk header (a hunk header's file header)."""
    marker_chars: int
    chars: int


def outline(original: JsonValue, summary: JsonValue) -> Outline:
    """The `Outline` of `summary`, its lines matched to the lines of `original` they come from, in order."""
    read = OriginalText(reader_text(original))
    source = read.lines
    positions: dict[str, list[int]] = {}
    for index, line in enumerate(source):
        positions.setdefault(line, []).append(index)
    kept: list[int] = []
    marker_chars = chars = 0
    last, expected = -1, 0
    """The last original line matched, and where the next one is when the summary kept lines in order."""
    for line in reader_text(summary).split('\n'):
        chars += len(line) + 1
        grounding = grounded_line(line, read)
        if grounding.kind is GroundingKind.MARKER:
            marker_chars += len(line) + 1
            dropped = OMISSION.match(line.strip())
            expected += int(dropped.group(1)) if dropped else 0
        elif grounding.kind in _STANDS:
            # An original line written twice (a field of every record) is the one the markers lead to,
            # else the next one after the last kept.
            at = positions.get(line, ())
            index = expected if expected in at else next((i for i in at if i > last), grounding.source)
            if index is not None:
                kept.append(index)
                last, expected = index, index + 1
        elif not line.strip():
            expected += 1
    held = set(kept)
    # A diff's lines are placed by their hunk and file headers: the first column is the change, not indentation.
    placing = enclosing(ContentKind.DIFF, source) if detect_kind(read.text) is ContentKind.DIFF else None
    orphans = sum(
        1
        for index in kept
        if (parent := _enclosing(source, index) if placing is None else next(iter(placing[index]), None)) is not None
        and parent not in held
    )
    return Outline(kept_lines=len(kept), orphans=orphans, marker_chars=marker_chars, chars=max(chars - 1, 0))


def _enclosing(source: Sequence[str], index: int) -> int | None:
    """The nearest line above `index` with something in it and less indentation, if any."""
    depth = indent(source[index])
    if depth <= 0:
        return None
    for above in range(index - 1, -1, -1):
        if 0 <= indent(source[above]) < depth:
            return above
    return None
