"""What stands out in tabular data: the extremes of a numeric column and the rare values of a categorical one.

A summary that cannot see the conversation still knows what readers of a table ask about: the
largest order, the cheapest offer, the peak of a series, the one request answered 429 among
thousands answered 200. Those rows are worth keeping even when their facts look like any other
row's. This module finds them in two forms of table: the lines of a text (CSV, logs, command
output) and the values a JSON content repeats under the same path (records, series, columns).
"""

from __future__ import annotations

import csv
import math
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from operator import itemgetter

from .budget import current_deadline

_NUMBER = re.compile(r'[-+]?\$?\d[\d,]*(?:\.\d+)?%?')
_ASSIGNMENT = re.compile(r'^[A-Za-z_]\w*[=:]')
ID_KEY = re.compile(r'(?:^|[_-])(?:[iI]d|ID|[nN]umber|[nN]o|[nN]um)_?$|[a-z](?:Id|ID|Number|No|Num)$')
"""Keys naming identifiers (`id`, `user_id`, `orderId`, `number`, `id_`): the largest id is no notable row."""
_MIN_ROWS = 20
"""Fewer rows than this are not a table worth analysing: a reader takes them in at a glance."""
_PRESENT = 0.8
"""A column counts when at least this share of the rows has it."""
_MAX_RARE_ROWS = 8
"""Rows flagged for rare values, at most: past that, rare is no longer rare."""
_SHARED_EXTREME = 2
"""An extreme held by more rows than this (a count of 0 on many rows) stands out in none of them."""
_CSV_SAMPLE = 50
_COLUMNS_FROM_START = 16
_COLUMNS_FROM_END = 4
"""Columns read from the end too: where a ragged field (a user agent, a message) shifts the last ones."""


def parse_number(text: str) -> float | None:
    """The value of a cell that is a number (`1,234.5`, `$12`, `45%`, `rt=0.52`), else None."""
    if not any(map(str.isdigit, text[-12:])):
        return None
    text = _ASSIGNMENT.sub('', text.strip().strip('"\'[](),;'))
    if not text or not _NUMBER.fullmatch(text):
        return None
    try:
        return float(text.strip('$%').replace(',', ''))
    except ValueError:
        return None


def notable_rows(rows: Sequence[Sequence[str]]) -> dict[int, float]:
    """Row index -> how much it stands out, for rows of cells (columns read from the start and the end).

    A numeric column flags its largest and smallest value; a categorical column with few distinct
    values flags the rows holding a value seen once or twice, the rarer the more. A first row without
    a digit is read as a header: its values are no column's (a fifth value, `STATUS`, would make a column
    of four states no categorical one). Other rows are taken as they come: a ragged line only weakens its
    column's evidence.
    """
    if len(rows) < _MIN_ROWS:
        return {}
    scores: dict[int, float] = defaultdict(float)
    lengths = Counter(map(len, rows))
    width = max(lengths)
    indices = [
        *range(min(width, _COLUMNS_FROM_START)),
        *(-index for index in range(1, min(width, _COLUMNS_FROM_END) + 1)),
    ]
    rare: dict[int, float] = defaultdict(float)
    heads: dict[int, float] = defaultdict(float)
    rises = False
    # A first row without a digit is a header (`NAMESPACE  NAME  READY  STATUS`): its value is no state of a row.
    header = not any(character.isdigit() for cell in rows[0] for character in cell)
    deadline = current_deadline()
    for index in indices:
        deadline.check()  # a column of a long table is a few C passes over all its rows
        size = index + 1 if index >= 0 else -index
        present = sum(count for length, count in lengths.items() if length >= size)
        if present < _PRESENT * len(rows):
            continue  # too few rows have it: not built at all
        column = _column(rows, index, whole=present == len(rows))
        numbers = _numbers(column)
        values = list(map(itemgetter(0), numbers))
        for row, score in _extremes(numbers).items():
            scores[row] += score
        for row, score in _sorted_head(numbers, values).items():
            heads[row] = max(heads[row], score)  # `ps --sort=-%mem` sorts `RSS` too: one sort, its head once
        rises = rises or _rises(values)
        for row, score in rare_values(column[1:] if header and column and column[0][0] == 0 else column).items():
            rare[row] += score
    for row in sorted(rare, key=lambda row: -rare[row])[:_MAX_RARE_ROWS]:
        scores[row] += rare[row]
    if not rises:  # a table in its own order (an epoch, a step, a time down it) was sorted for none of its rows
        for row, score in heads.items():
            scores[row] += score
    return dict(scores)


def notable_fields(lines: Sequence[str]) -> dict[int, float]:
    """Line index -> how much it stands out, for records written as text (`- id_: '3'`, `  size: 1036`).

    Each field of the records' own level (its key, under the indentation of the first `- ` line) is a
    column: its lines' values go through `column_extremes` (the largest file's `size:` line; not an
    id's, `ID_KEY`) and `rare_values`, as a table's cells do. A field of fewer than `_MIN_RECORDS` records is no column.
    """
    columns: dict[str, list[tuple[int, str]]] = defaultdict(list)
    depth: int | None = None
    for index, line in enumerate(lines):
        field = _FIELD.match(line)
        if field is None:
            continue
        indent = len(field.group(1)) + (2 if field.group(2) else 0)
        if depth is None and field.group(2):
            depth = indent
        if indent == depth:
            columns[field.group(3)].append((index, field.group(4).rstrip()))
    scores: dict[int, float] = defaultdict(float)
    for key, cells in columns.items():
        if len(cells) < _MIN_RECORDS:
            continue
        extremes = column_extremes(cells) if ID_KEY.search(key) is None else {}
        for index, score in (*extremes.items(), *rare_values(cells).items()):
            scores[index] += score
    return dict(scores)


_FIELD = re.compile(r'( *)(- )?([\w.-]+): (\S.*)')
"""A record's field on a line of its own, its value on it: `  size: 1036`, the first one's `- id_: '3'`. The value's
trailing blanks are stripped after: a lazy value before `\\s*$` tried the run of blanks from each blank in it (3 s for
a value of 40 KB of blanks and a word)."""
_MIN_RECORDS = 5


def column_extremes(cells: Sequence[tuple[int, str]]) -> dict[int, float]:
    """The rows holding the largest and the smallest value, when (nearly) every cell is a number."""
    return _extremes(_numbers(cells))


def _numbers(cells: Sequence[tuple[int, str]]) -> list[tuple[float, int]]:
    """The values of a column's cells with their rows, in order, when (nearly) every cell is a number; else none."""
    sample = cells[:_CSV_SAMPLE]
    if sum(parse_number(cell) is not None for _, cell in sample) < _PRESENT * len(sample):
        return []  # most columns are not numeric: tell from a sample before parsing them whole
    texts = list(map(itemgetter(1), cells))
    parsed = {text: parse_number(text) for text in set(texts)}  # cells repeat (a status, a percentage): each read once
    numbers = [
        (value, row) for (row, _), value in zip(cells, map(parsed.__getitem__, texts), strict=True) if value is not None
    ]
    return numbers if len(numbers) >= _PRESENT * len(cells) and len(numbers) >= 3 else []


def _extremes(numbers: Sequence[tuple[float, int]]) -> dict[int, float]:
    if not numbers:
        return {}
    low, top = min(numbers), max(map(itemgetter(0), numbers))
    high = (top, min(row for value, row in numbers if value == top))  # the largest value, on its first row
    if low[0] == high[0]:
        return {}
    values = Counter(map(itemgetter(0), numbers))  # an extreme many rows share singles none out
    return {row: 1.0 for value, row in (high, low) if values[value] <= _SHARED_EXTREME}


def _sorted_head(numbers: Sequence[tuple[float, int]], values: Sequence[float]) -> dict[int, float]:
    """The first rows of a table sorted by this column, largest first, and how much each stands out.

    A table sorted from the largest down (`ps --sort=-rss`, a profile by cumulative time, `sort -rn`) was sorted for
    its first rows: the processes using most, the slowest calls, the most frequent lines. Ascending order says nothing
    of the kind (ids, line numbers and times grow down a table as they come). Sorted: each value at most the one above
    but for a stray row (a total), the first rows' middle value over the column's: a column of zeros with a few others
    (`ps aux`'s `%CPU`, the numbers of a `top` screen's header lines above it) ranks nothing its first rows show.
    `values`: the numbers' values, in order. The order is told in one pass, before any sort: most columns are in none.
    """
    if len(values) < _MIN_ROWS or not _in_order(values, operator.ge):
        return {}
    head = sorted(values[:_HEAD_ROWS])
    if head[len(head) // 2] <= sorted(values)[len(values) // 2]:
        return {}
    return {row: 1.0 - place / (2 * _HEAD_ROWS) for place, (_, row) in enumerate(numbers[:_HEAD_ROWS])}


def _rises(values: Sequence[float]) -> bool:
    """Whether a column grows down its table as an index, a step or a time does.

    Each value at least the one above but for a stray row, and more than half of them distinct (a column of zeros
    rises as much as it falls).
    """
    return len(values) >= _MIN_ROWS and len(set(values)) > len(values) // 2 and _in_order(values, operator.le)


def _in_order(values: Sequence[float], keeps: Callable[[float, float], bool]) -> bool:
    """Whether each value `keeps` its order with the next (`operator.ge`: none grows) but for a stray row or two."""
    return len(values) - 1 - sum(map(keeps, values, values[1:])) <= max(1, _STRAY * len(values))


_HEAD_ROWS = 10
"""The first rows of a sorted table that stand out, less and less: what `top` shows, what `head` of a sort keeps."""
_STRAY = 0.01
"""The share of rows out of order a sorted column may have (a total, a wrapped line), one at least."""


def rare_values(cells: Sequence[tuple[int, Hashable]]) -> dict[int, float]:
    """The rows whose value is rare in a column of few distinct values (a status, a method, a currency).

    Few: four, or one a 40 rows. Rare: seen twice at most (two pods of 180 in `CrashLoopBackOff`), once a 400 rows.
    """
    counts = Counter(map(itemgetter(1), cells))
    if len(cells) < _MIN_ROWS or len(counts) < 2 or len(counts) > max(4, len(cells) // 40):
        return {}
    ceiling = max(2, len(cells) // 400)
    return {
        row: min(math.log2(len(cells) / counts[value]) / 8, 1.0) for row, value in cells if counts[value] <= ceiling
    }


def _column(rows: Sequence[Sequence[str]], index: int, *, whole: bool) -> list[tuple[int, str]]:
    """The cells at `index` of the rows that have one, with their row's index (`whole`: every row has one)."""
    if whole:
        return list(enumerate(map(itemgetter(index), rows)))  # no Python code per row
    size = index + 1 if index >= 0 else -index
    return [(row_index, row[index]) for row_index, row in enumerate(rows) if len(row) >= size]


def split_rows(lines: Sequence[str]) -> list[tuple[str, ...]]:
    """Lines as rows of cells: CSV when the lines agree on a comma count, else whitespace-separated.

    Tuples, not lists: thousands of rows of strings the cyclic collector stops tracking at its next
    young collection, instead of promoting them towards a full collection of the whole process.
    """
    sample = lines[:_CSV_SAMPLE]
    commas = Counter(line.count(',') for line in sample)
    count, agreeing = commas.most_common(1)[0] if commas else (0, 0)
    if count >= 2 and agreeing >= _PRESENT * len(sample):
        try:
            return [tuple(next(csv.reader([line]), ())) for line in lines]  # line by line: rows stay aligned with lines
        except csv.Error:  # a quoted field over the module's limit (128 KB): that line is one cell
            return [cells if (cells := csv_cells(line)) is not None else (line,) for line in lines]
    return list(map(tuple, map(str.split, lines)))


def csv_cells(line: str, delimiter: str = ',') -> tuple[str, ...] | None:
    """`line`'s cells as CSV (none for an empty line); None where the `csv` module refuses it, a blob and no row.

    It refuses a quoted field over its limit (128 KB: `field larger than field limit`).
    """
    try:
        return tuple(next(csv.reader([line], delimiter=delimiter), ()))
    except csv.Error:
        return None
