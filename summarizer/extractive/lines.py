r"""Lines of a text as the summary may keep them: whole, in order, with a marker where some were dropped.

A kept line is the original line byte for byte (indentation, inner spacing, a trailing `\\r`): an
agent copies an `old_str` out of a summarized file read, and Python code means its indentation.
Lines are dropped, never rewritten. Each run of dropped lines becomes one marker line saying how
many (`… 212 lines omitted …`), so a reader knows the text was cut, and where. A run that costs no
more than its marker (blank lines between two kept lines, a `cc: []` between two fields a record
keeps) is kept as it is: the reader gets the original for the tokens the marker would take.

Only a line too long for any budget (a paragraph on one line, a minified blob) is cut into pieces:
contiguous slices at sentence ends or spaces. Kept pieces next to each other read as the line did;
where pieces were dropped, before, between or after them, stands `…`, so every cut shows.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence

from ..core import RECORD_COUNT
from .budget import cost, current_deadline, escapes

__all__ = (
    'MARKER_COST',
    'MAX_LINE_CHARS',
    'OMISSION',
    'Joined',
    'cut_line',
    'marker',
    'pieces',
    'render',
    'split_lines',
)

MAX_LINE_CHARS = 400
"""A longer line is cut into pieces (a listing's lines never are: see `pieces`)."""
OMISSION = re.compile(rf'^… (\d+) (?:similar )?lines? omitted{RECORD_COUNT} …$')
"""What a marker line looks like, and how many lines it stands for: the eval follows it to the next kept line."""
MARKER_COST = 7.0
"""Estimated tokens of a marker line and its line break (`… 1234 lines omitted …`: two `…` count one each)."""
_SENTENCE_END = re.compile(r'(?<=[.!?;])\s+(?=\S)')


def split_lines(text: str) -> list[str]:
    r"""The lines of `text`, each exactly as written (`\r` kept): joined by `\n` they give `text` back."""
    return text.split('\n')


ESCAPES = re.compile(r'\x1b(?:\[[0-?]*+[ -/]*+[@-~]|\][^\x07\x1b\n]*+(?:\x07|\x1b\\)?|[()*+][\w@%]|[=>78])')
r"""A terminal's control sequences: colours and styles (`\x1b[31;1m`, `pytest --color=yes`), cursor moves, a link's
`\x1b]8;;url\x1b\\`, a character set's choice (`\x1b(B`, as `tput sgr0` writes it). What a terminal shows has
none: lines are weighed and placed as read without them, and kept with them, byte for byte."""


def shown(lines: Sequence[str]) -> list[str]:
    r"""`lines` as a terminal shows them: colours read past, a rewritten line as last written.

    Without `ESCAPES` (a line of nothing else is blank); of a line carriage returns rewrote (a progress bar's
    `\r 40%\r 80%\r100%`), what it wrote last.
    """
    return [_shown(line) if '\x1b' in line or '\r' in line else line for line in lines]


def _shown(line: str) -> str:
    if '\x1b' in line:
        line = ESCAPES.sub('', line)
    # a line's own `\r` (a CRLF text's, `\r\r` from a pty) ends it: it rewrites nothing
    last = line.rstrip('\r').rfind('\r')
    return line[last + 1 :] if last >= 0 else line


SOURCE_PREFIX = re.compile(r'[\w.-]{1,64}[ \t]*\| |\[pod/[^\]\n]{1,200}\] ')
"""What names a line's source where several write one stream: docker compose's `api-1     | `, `kubectl logs --prefix`'s
`[pod/api-7d9f/api] ` (matched at a line's start)."""
_GUTTER = re.compile(r'==\d{1,10}== ')
"""Valgrind's gutter, its process id (`==17438== `): its own lines beside the program's, however many those are."""
_GUTTER_LINES = 3
"""At least this many lines in a gutter: a memory checker's report (no table's column is spelled so)."""
_SOURCE_SHARE = 0.8
"""At least this share of a text's lines start with a `SOURCE_PREFIX`: a stream of sources, not a table's first column."""
_MAX_SOURCES = 32
"""At most this many distinct prefixes: a few services, not the values of a column."""


def source_prefixes(lines: Sequence[str]) -> list[int] | None:
    """Per line, the width of the prefix naming its source (`SOURCE_PREFIX`), where a text's lines have them; else None.

    Each source's lines are a log or a command's output of their own (`Traceback`, a timestamp, an
    indented frame): read without the prefix, they are what they are in a stream of one source. So is a
    memory checker's report in its gutter (`_GUTTER`), between the lines the program printed.
    """
    gutters = [0 if found is None else found.end() for found in map(_GUTTER.match, lines)]
    if sum(1 for width in gutters if width) >= _GUTTER_LINES:
        return gutters
    widths: list[int] = []
    names: set[str] = set()
    for line in lines:
        found = SOURCE_PREFIX.match(line)
        widths.append(0 if found is None else found.end())
        if found is not None:
            names.add(found[0].rstrip(' \t|'))
            if len(names) > _MAX_SOURCES:
                return None
    written = sum(1 for line in lines if line.strip())
    if written < 3 or sum(1 for width in widths if width) < _SOURCE_SHARE * written:
        return None
    return widths


def marker(count: int, *, similar: bool = False, records: int = 0) -> str:
    """The line standing for `count` dropped lines (`similar`: all like the kept line above them).

    `records`: how many whole records the lines held (`… 82 lines omitted (7 records) …`): in a list of records
    a reader counts records, and a count of lines would not say that any are missing.
    """
    noun = 'line' if count == 1 else 'lines'
    if similar:
        return f'… {count} similar {noun} omitted …'
    if records:
        return f'… {count} {noun} omitted ({records} record{"" if records == 1 else "s"}) …'
    return f'… {count} {noun} omitted …'


def pieces(line: str, *, limit: int = MAX_LINE_CHARS) -> list[str]:
    """`line` as contiguous slices of at most about `limit` characters, cut after a sentence or at a space."""
    if len(line) <= limit:
        return [line]
    cuts = [match.end() for match in _SENTENCE_END.finditer(line)]
    result: list[str] = []
    start = 0
    while len(line) - start > limit:
        end = start + limit
        last = bisect.bisect_right(cuts, end) - 1  # the cuts come in order: the last one in reach, not each one read
        best = cuts[last] if last >= 0 and cuts[last] > start + limit // 4 else 0
        if not best:
            space = line.rfind(' ', start + limit // 2, end)
            best = space + 1 if space > 0 else end
        result.append(line[start:best])
        start = best
    result.append(line[start:])
    return result


def cut_line(kept: Sequence[tuple[int, str]], count: int) -> str:
    """What is kept of a line cut into `count` pieces, `kept` as (piece index, piece): `…` where any were dropped."""
    text = ''
    after = 0
    for index, piece in sorted(kept):
        if index > after:
            text = f'{text.rstrip()} … ' if text else '… '
            piece = piece.lstrip()
        text += piece
        after = index + 1
    return f'{text.rstrip()} …' if after < count else text


def render(
    lines: Sequence[str],
    kept: dict[int, str | None],
    *,
    signature: Callable[[str], str] | None = None,
    escaped: bool = False,
    record: Callable[[str], bool] | None = None,
) -> list[str]:
    """The summary lines: `lines` at the indices of `kept`, a marker for each run of dropped ones.

    `kept` maps a line index to None (the whole line) or what is kept of it (`cut_line`).
    `signature`: lines with the same signature are alike (a log line with other numbers); a run
    of dropped lines all like the kept line above it is marked as `similar`. `escaped`: the text
    is written inside a JSON string, where a run's escapes count when it is weighed against its marker.
    `record`: whether a line starts a record (`- id: 3` of a YAML list); a run's marker counts those it dropped.
    """
    out: list[str] = []
    previous = -1
    for index in sorted(kept):
        _gap(out, lines, previous, index, signature, escaped, record)
        cut = kept[index]
        out.append(lines[index] if cut is None else cut)
        previous = index
    _gap(out, lines, previous, len(lines), signature, escaped, record)
    return out


def _gap(
    out: list[str],
    lines: Sequence[str],
    previous: int,
    index: int,
    signature: Callable[[str], str] | None,
    escaped: bool,
    record: Callable[[str], bool] | None,
) -> None:
    dropped = lines[previous + 1 : index]
    if not dropped:
        return
    if not any(line.strip() for line in dropped):
        if 0 <= previous and index < len(lines):
            out.extend(dropped)  # blank lines between two kept lines: kept as they are
        return
    similar = False
    if signature is not None and previous >= 0:  # alike as a terminal shows them, colours read past
        above = signature(_shown(lines[previous]))
        similar = all(signature(_shown(line)) == above for line in dropped if line.strip())
    records = 0 if similar or record is None else _whole_records(dropped, record, goes_on=_indented(lines, index))
    mark = marker(len(dropped), similar=similar, records=records)
    if len(dropped) <= _FILL_LINES:
        text = '\n'.join(dropped)
        if cost(text) + (escapes(text) if escaped else 0.0) <= cost(mark):
            out.extend(dropped)
            return
    out.append(mark)


def _whole_records(dropped: Sequence[str], record: Callable[[str], bool], *, goes_on: bool) -> int:
    """How many records (`record` tells a first line) `dropped` holds whole.

    A record runs from its first line to the next line at the left edge. The last one in the run is held whole
    unless a line of it comes after the run (`goes_on`: the kept line after the run is indented): a record shown
    in part is no record omitted.
    """
    count, open_ = 0, False
    for line in dropped:
        if record(line):
            count, open_ = count + 1, True
        elif line.strip() and not line[0].isspace():
            open_ = False  # a line at the left edge ends the record (`total: 3` after a list)
    return count - 1 if open_ and goes_on else count


def _indented(lines: Sequence[str], index: int) -> bool:
    """Whether the line at `index`, if any, is indented: inside a record whose first line is above it."""
    return index < len(lines) and lines[index][:1].isspace()


_FILL_LINES = 3
"""The most lines a run kept in place of its marker can have: more cost more than a marker (~7 tokens)."""


# -- what each kind of text keeps first: a bonus per line, added to the weight of the facts it holds

MUST = 100.0
"""A line the kind is not readable without (a diff's file and hunk headers, a test run's summary)."""
HIGH = 10.0
"""A line a reader of the kind acts on (an error, a definition, a failed test)."""
MID = 3.0
"""A line worth a specific fact (a changed line of a diff, a warning, a heading)."""
LOW = 1.0
NOISE = -HIGH
"""A line its kind weighs less than nothing (a scraped page's menu, what tests that passed printed): more than
the facts of a name or two weigh, less than a quoted fact, so it is kept only where a later turn quotes it, never as
the way in to a line that places it (that line is a choice of its own), and between two kept lines where it costs
less than a marker."""


_BLOB = re.compile(r'(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200,}=*')
_BLOB_LINE = 200
"""Characters a line needs before it is looked at for a run of encoded bytes of its own."""
_PATH_DATA = re.compile(r'(?<= d=")[MmZzLlHhVvCcSsQqTtAa\d.,eE +-]{80,}(?=")')
"""An SVG path's drawing (`<path d="M416 208c0 45.9-14.9 88.3-40 122.7L502.6 ...">`, an icon inlined in a page): as
no reader's as encoded bytes, and its numbers by the hundred. One match a line at most (`search`): no `"` inside it."""
TAG = re.compile(r'<[^<>\n]*+>')
"""A markup tag (an SVG path's drawing inside it): what is left of a line without them is its text."""
TEXT_SHARE = 0.2
"""Below this share of its characters in text (its tags taken out), a line is markup: `<li class="nav-item"><a
href="/docs/6">Section 6</a></li>` holds 9 characters of text in 56 (`prose.markup`), a line drawing an icon less
(`_icon`)."""
_WRAPPED_WIDTH = 60
_WRAPPED = re.compile(r'[A-Za-z0-9+/]{60,}={0,2}\r?')
"""A line of base64 wrapped at a width, as MIME (76), PEM (64) and GitHub's contents API (60) wrap it. Not narrower: a
list of ids a line each is as mixed and as alone on its lines (Ethereum's checksummed addresses, 42 characters; IPFS's
`Qm...`, 46), and what a reader asked for."""
_WRAPPED_RUN = 3
_LAST = re.compile(r'[A-Za-z0-9+/]+={0,2}\r?')
_LOWER, _UPPER, _DIGIT = re.compile('[a-z]'), re.compile('[A-Z]'), re.compile('[0-9]')


def blob_lines(lines: Sequence[str]) -> set[int]:
    """The indices of the lines of encoded bytes (base64: an image, a file's contents), which no reader reads.

    A line at least half made of runs of 200 or more base64 characters (`Base64: AAAAIGZ0eXBp...`, a data URI's
    payload), a line of markup drawing an SVG path of 80 characters or more (`_icon`), or one of 3 or more lines in a
    row that are each base64 alone, 60 characters or more (wrapped; the shorter line ending such a run too). A run
    counts only with lower and upper case letters and digits in it: a hex hash or a long word has no such mix. Its
    pieces would otherwise count as dozens of ids each, the most any line of its size holds.
    """
    found: set[int] = set()
    wrapped: list[int] = []
    for index, line in enumerate(lines):
        if len(line) >= _WRAPPED_WIDTH and _WRAPPED.fullmatch(line) is not None and _mixed(line):
            wrapped.append(index)
            continue
        if len(wrapped) >= _WRAPPED_RUN:
            found.update(wrapped)
            if _LAST.fullmatch(line) is not None:  # the run's last line, shorter
                found.add(index)
        wrapped = []
        if len(line) >= _BLOB_LINE:
            covered = sum(len(run) for run in (match.group() for match in _BLOB.finditer(line)) if _mixed(run))
            if 2 * covered >= len(line) or _icon(line):
                found.add(index)
    if len(wrapped) >= _WRAPPED_RUN:
        found.update(wrapped)
    return found


def _icon(line: str) -> bool:
    """Whether `line` draws an SVG path of 80+ characters amid markup with little text: an icon, not a page's text.

    A minified page is one line too, its icon among its paragraphs: its text keeps it a line to read.
    """
    return 'd="' in line and _PATH_DATA.search(line) is not None and len(TAG.sub('', line)) < TEXT_SHARE * len(line)


def _mixed(run: str) -> bool:
    return _LOWER.search(run) is not None and _UPPER.search(run) is not None and _DIGIT.search(run) is not None


def words_pattern(*words: str, after: str = '') -> re.Pattern[str]:
    r"""A case-blind pattern matching any of `words` (regular expressions, each starting with a letter) whole.

    A lookahead for the words' first letters comes first: the scan then passes over every other
    position in one test instead of trying each word there, three times faster over a long text.
    `after`: a pattern's text the word must be followed by (a lookahead).
    """
    first = ''.join(sorted({word[0].lower() for word in words}))
    return re.compile(rf'(?=[{first}])\b(?:{"|".join(words)})\b{after}', re.IGNORECASE | re.MULTILINE)


ALARM = words_pattern(
    'error', 'errors', 'fatal', 'fail(?:ed|s|ure)?', 'exception', 'caused by', 'panic', 'critical', 'warn(?:ing)?',
    'segmentation fault', 'core dumped', 'sig(?:segv|abrt|bus|fpe|ill)',
    'denied', 'refused', 'timed? ?out', 'killed', r'oom\w*', 'traceback', 'todo', 'fixme', 'regression',
    'forces replacement', 'will be destroyed', 'unable to', 'could(?:n.t| not) (?:find|open|read|resolve|connect)',
    after=r'(?!=\d)',
)  # fmt: skip
"""Words that mark a line as trouble, in any kind of text: what a reader of a log, a build or a plan acts on. Not a
setting named by one (`timeout=1s`, a probe's `#failure=3`): what would go wrong, not what did."""
PARTIAL = re.compile(
    r'^[ \t]*+[\[(<.…]*+[ \t]*+(?i:showing \d|(?:output|results?|response|content|file|text)\b[^\n]{0,30}?\btruncated\b'
    r'|truncated\b|\d+ more (?:lines?|results?|items?|matches|files|entries|rows|bytes|characters)\b)',
    re.MULTILINE,
)
"""A tool's own note that what it returned is part of a whole: `[Showing 80 lines starting at line 1697. Use 'offset'
and 'limit' parameters to read more ...]`, `(Results are truncated. Consider using a more specific path or pattern.)`,
`... 120 more lines`, `[output truncated to 30000 characters]`. Without it a summary of a window reads as the whole
file or listing, and the reader does not know there is more to ask for. Its lead is possessive: two runs of blanks
with nothing between would split a line of blanks every way before failing (hours for a line of 1 MB)."""


class Joined:
    """Lines joined into one text, so a pattern runs over all of them in one compiled pass.

    Per-line `re.search` calls cost more in the call than in the matching; `finditer` over the
    joined text (patterns anchored with `^` under `re.MULTILINE`, never matching across a line
    break) and a bisection from a match's offset to its line keep the strategies linear and fast.
    """

    __slots__ = ('_starts', 'lines', 'text')

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.text = '\n'.join(lines)
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        """Where each line starts in `text`: worked out at the first match (most short texts have none)."""
        if self._starts is None:
            self._starts = list(itertools.accumulate((len(line) + 1 for line in self.lines[:-1]), initial=0))
        return self._starts

    def __len__(self) -> int:
        return len(self.lines)

    def matching(self, pattern: re.Pattern[str]) -> list[int]:
        """The indices of the lines `pattern` matches in, in order, each once."""
        found: list[int] = []
        last, starts = -1, None
        for match in pattern.finditer(self.text):
            if starts is None:
                starts = self.starts
            index = bisect.bisect_right(starts, match.start()) - 1
            if index != last:
                found.append(index)
                last = index
        return found

    def bonuses(self, rules: Sequence[tuple[re.Pattern[str], float]]) -> list[float]:
        """Per line, the largest bonus of the rules whose pattern matches in it (0 if none)."""
        result = [0.0] * len(self.lines)
        deadline = current_deadline()
        for pattern, bonus in rules:
            deadline.check()  # each pattern is one pass over the whole text
            for index in self.matching(pattern):
                result[index] = max(result[index], bonus)
        return result
