"""Tables in text (CSV, TSV, Markdown, psql, `kubectl get`): a kept row brings the header that names its columns."""

from __future__ import annotations

import time

import pytest
from extractive_checks import summary_lines

from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.outline import enclosing

REGIONS = ['DE', 'FR', 'PL', 'ES']
CSV_HEADER = 'date,region,sku,units,revenue_eur,returns'
CSV = '\n'.join(
    [
        CSV_HEADER,
        *(
            f'2026-11-{n % 30 + 1:02d},{REGIONS[n % 4]},SKU-{1000 + n * 7 % 41},{n * 13 % 90 + 1},'
            f'{n * 977 % 9000 + 10}.{n * 31 % 100:02d},{n % 5}'
            for n in range(180)
        ),
    ]
)


def test_a_csv_summary_keeps_its_header_over_the_rows_it_keeps() -> None:
    """A row without its header is six bare values: `2026-11-07,ES,SKU-1039,79,41.61,2` says nothing of units or euros."""
    last = CSV.split('\n')[-1]
    kept = summary_lines(CSV, budget_tokens=300, quoted=(last.split(',')[2],))
    assert kept[0] == CSV_HEADER
    assert last in kept and len(kept) > 2


PODS_HEADER = 'NAME                          READY   STATUS             RESTARTS         AGE'
PODS = '\n'.join(
    [
        PODS_HEADER,
        *(
            f'worker-{n:03d}-7d9f8c6b5-x2k{n:02d}     1/1     Running            0                {n + 3}d'
            for n in range(60)
        ),
        'api-7d9f8c6b5-x2kqp           0/1     CrashLoopBackOff   7 (2m ago)       2d',
        *(f'cron-{n:03d}-28771440-q{n:02d}        0/1     Completed          0                {n}h' for n in range(30)),
    ]
)


def test_a_kept_pod_line_of_kubectl_get_brings_its_header() -> None:
    lines = PODS.split('\n')
    assert enclosing(detect_kind(PODS), lines)[61] == (0,)  # the crashing pod's line, placed by the header
    kept = summary_lines(PODS, budget_tokens=150, quoted=('CrashLoopBackOff',))
    assert 'api-7d9f8c6b5-x2kqp           0/1     CrashLoopBackOff   7 (2m ago)       2d' in kept
    assert kept[0] == PODS_HEADER


@pytest.mark.parametrize(
    ('header', 'rule', 'row'),
    [
        ('| setting | default | since |', '|---|:---:|---|', '| `pool_size_{n}` | {n} | 4.{n} |'),
        (' setting     | default | since', '-------------+---------+-------', ' pool_size_{n} | {n}       | 4.{n}'),
    ],
    ids=['markdown', 'psql'],
)
def test_a_row_of_a_ruled_table_in_a_document_brings_its_header(header: str, rule: str, row: str) -> None:
    paragraphs = [
        f'Step {k}: the service reads its settings at start-up and again on SIGHUP, without dropping connections.'
        for k in range(20)
    ]
    rows = [row.format(n=n) for n in range(40)]
    text = '\n'.join(['# Settings', '', *paragraphs[:10], '', header, rule, *rows, '', *paragraphs[10:]])
    assert detect_kind(text) is ContentKind.PROSE
    kept = summary_lines(text, budget_tokens=200, quoted=('pool_size_33',))
    assert rows[33] in kept
    assert header in kept


@pytest.mark.parametrize(
    'text',
    [
        'First, we install it, then run\nNext, the service starts, and waits\nThen, a client connects, and reads',
        'Installation\n------------\nRun the installer, choose a folder, and wait.\nThen start it, log in, and go.',
        '3,4,5\n6,7,8\n9,10,11\n12,13,14',
        'one two three\n\nFOUR FIVE SIX',
    ],
    ids=['sentences with commas', 'a setext heading', 'a csv without a header', 'capitals with no rows'],
)
def test_lines_that_are_no_table_are_placed_by_no_header(text: str) -> None:
    lines = text.split('\n')
    assert enclosing(ContentKind.PROSE, lines) == [()] * len(lines)


@pytest.mark.parametrize(
    'line',
    ['---- ' * 100_000 + 'x', '-----  ' * 100_000 + '|x', 'NAME ' * 100_000 + 'x', 'a,' * 200_000],
    ids=['dashes then a letter', 'dashes then a pipe', 'capitals then a small letter', 'empty fields'],
)
def test_a_long_line_that_is_almost_a_table_line_is_read_in_linear_time(line: str) -> None:
    """Each of 500 KB fails to be a header or a rule only at its end: a pattern with two ways to match would take hours."""
    started = time.monotonic()
    lines = ['Table', line, '', line, 'a,b', 'c,d']  # under a header, as a rule; first in a block, as a header
    chains = enclosing(ContentKind.PROSE, lines)
    assert time.monotonic() - started < 2  # about 0.05 s
    assert chains == [()] * len(lines)


@pytest.mark.parametrize(
    'text',
    [
        'id,name,notes\n1,a,"x"\n2,b,"y"\n3,big,"' + 'lorem ' * 30_000 + '"\n',
        '$ ./gen\nValueError: bad\n\nkey,"' + 'word ' * 40_000 + '"\n',
    ],
    ids=['a row', 'first in its block'],
)
def test_a_quoted_field_longer_than_the_csv_modules_limit_is_no_error(text: str) -> None:
    """The `csv` module refuses a field over 128 KB (`field larger than field limit`): a line holding one is no row."""
    summary = summarize(text, budget_tokens=200)
    assert isinstance(summary, str) and summary
