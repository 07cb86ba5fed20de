"""The embedded extractive summarizer: shape, budget, lines kept verbatim, markers, outlines, never empty, bounded work.

Each kind of content has its own test file (`test_extractive_<kind>.py`); this one covers what
holds for all of them.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import itertools
import json
import math
import sys
import threading
import time
import traceback
import weakref
from pathlib import Path

import pytest
from extractive_checks import kept_lines, summary_lines
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, compactor, history

from summarizer.core._config import SummarizerConfig
from summarizer.core._facts import token_set
from summarizer.core._quoted import plain_text
from summarizer.core._shape import DROPPED_TEXT, ITEMS_OMITTED, JsonValue, carries_text, shape_mismatch
from summarizer.core._tokens import content_tokens, estimate_tokens
from summarizer.extractive import Deadline, WorkBudgetExceeded, summarize, time_limit
from summarizer.extractive.budget import NO_DEADLINE
from summarizer.extractive.lines import ALARM, MAX_LINE_CHARS, OMISSION, PARTIAL, blob_lines, pieces
from summarizer.pipeline import _models
from summarizer.pipeline._check import summary_problem
from summarizer.pipeline._models import EmbeddedRequest, embedded_model, extractive_summary


@pytest.mark.parametrize('content', [BIG_TEXT, BIG_LIST, BIG_OBJECT], ids=['string', 'list', 'object'])
def test_the_summary_keeps_the_shape_and_the_budget_and_is_deterministic(content: JsonValue) -> None:
    summary = summarize(content, budget_tokens=200)
    assert shape_mismatch(content, summary) is None
    assert 100 < content_tokens(summary) <= 200
    assert summarize(content, budget_tokens=200) == summary


INDENTED = '\n'.join(
    [
        'def handler(event, context):',
        '    records = event["Records"]',
        '    for record in records:',
        '        body  =  record["body"]      # two spaces on purpose',
        '\tif body:\t# a tab',
        *[f'        total_{n} = compute(body, {n})' for n in range(200)],
        '        raise ValueError("unexpected record: " + body)',
        '    return {"statusCode": 200}',
    ]
)


def test_kept_lines_are_byte_identical_and_every_cut_has_a_marker_counting_it() -> None:
    summary = summarize(INDENTED, budget_tokens=150)
    assert isinstance(summary, str)
    kept = kept_lines(INDENTED, summary)
    assert any(OMISSION.match(line) for line in summary.split('\n'))
    assert 'def handler(event, context):' in kept
    assert '        raise ValueError("unexpected record: " + body)' in kept


def test_no_summary_holds_a_line_of_bare_tokens() -> None:
    """Facts no kept line holds stay out: a list of them, `50g; 2024-05-06; 1036`, tells a reader nothing."""
    text = '\n'.join(
        f'Please note: Loop {n} of Assumptions Contains request req-{n:05d} from host-{n % 9}.example.org took {n * 7} ms'
        for n in range(400)
    )
    for quoted in ((), ('req-00321', 'host-4.example.org', '2051')):
        summary = summarize(text, budget_tokens=300, quoted=quoted)
        assert isinstance(summary, str)
        kept = kept_lines(text, summary)  # every line is an original line or a marker counting the lines dropped
        assert len(kept) >= 5
        assert set(quoted) <= token_set('\n'.join(kept))


def test_a_quoted_fact_is_kept() -> None:
    summary = summarize(BIG_TEXT, budget_tokens=150, quoted=('req-00421', '10.1.21.171'))
    assert isinstance(summary, str)
    assert 'req-00421' in summary and '10.1.21.171' in summary


def test_a_rare_status_line_is_kept() -> None:
    lines = [
        f'10.0.{n % 7}.{n % 50} - - [14/Sep/2025:02:{n % 60:02d}:00] "GET /api/items HTTP/1.1" 200 {512 + n}'
        for n in range(500)
    ]
    assert _keeps(
        lines, 333, '10.0.3.33 - - [14/Sep/2025:02:33:00] "GET /api/items HTTP/1.1" 429 97', budget_tokens=250
    )


def test_the_largest_and_smallest_row_of_a_table_are_kept() -> None:
    rows = [
        f'SO-{10000 + n},2025-08-{n % 28 + 1:02d},Customer {n % 13},{n % 40 + 1},{(n * 37) % 900 + 100}.00'
        for n in range(300)
    ]
    rows[120] = 'SO-10120,2025-08-09,Customer 3,60,18240.00'
    rows[250] = 'SO-10250,2025-08-27,Customer 3,-12,-1428.00'
    csv = 'order_id,date,customer,qty,total\n' + '\n'.join(rows)
    summary = summarize(csv, budget_tokens=300)
    assert isinstance(summary, str)
    assert 'SO-10120' in summary and 'SO-10250' in summary


def test_the_first_rows_of_a_table_sorted_largest_first_are_kept() -> None:
    """`ps aux --sort=-rss`: sorted for its first rows, the processes using most, alike as they may be.

    The workers at the top share their command; each row below names a daemon of its own, facts the first rows lack.
    """
    header = 'USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND'
    commands = ['celery -A shop worker --pool prefork'] * 6 + [f'/usr/sbin/daemon-{name}' for name in range(54)]
    rows = [
        f'app      {4000 + (n * 7919) % 5000:5d}  0.0  0.0 {900000 - n * 9000:6d} {480000 - n * 7000:6d} ?        Sl  '
        f' 09:14   0:00 {command}'
        for n, command in enumerate(commands)
    ]
    text = '\n'.join([header, *rows])
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert [row for row in rows[:5] if row not in kept] == []


def test_a_table_in_its_own_order_is_no_sorted_one() -> None:
    """A training log: its rate and losses fall down the table as its epochs rise. Read as sorted largest first,
    its first epochs crowded out its header and its last epoch, the results."""
    header = 'epoch  lr        train_loss  val_loss  val_acc'
    rows = [
        f'{epoch:<6} {0.0005 * (1 + math.cos(math.pi * epoch / 100)):.6f}  {2.5 * math.exp(-epoch / 30) + 0.1:.4f}'
        f'      {2.6 * math.exp(-epoch / 30) + 0.15:.4f}    {0.5 + 0.45 * (1 - math.exp(-epoch / 25)):.4f}'
        for epoch in range(1, 101)
    ]
    kept = summary_lines('\n'.join([header, *rows]), budget_tokens=150)
    assert header in kept and rows[-1] in kept


def test_a_line_of_trouble_beats_routine_lines() -> None:
    lines = [f'[{n:04d}] compiled module src/pages/page{n}.tsx in {n % 90 + 10} ms' for n in range(300)]
    assert _keeps(
        lines,
        180,
        '[0180] Type error: Argument of type string is not assignable to parameter of type number',
        budget_tokens=200,
    )


@pytest.mark.parametrize(
    'note',
    [
        "[Showing 500 lines starting at line 1. Use 'offset' and 'limit' parameters to read more.]",
        '(Results are truncated. Consider using a more specific path or pattern.)',
        '... 1180 more lines',
        '[output truncated to 30000 characters]',
    ],
)
def test_a_tools_note_that_its_output_is_partial_is_kept(note: str) -> None:
    """Without the note a summary of the first 500 lines of a file reads as the whole file."""
    names = [''.join(chr(ord('a') + int(digit)) for digit in str(n)) for n in range(1, 501)]  # distinct definitions
    lines = [f'{n:6d}\u2192    def handle_{name}(self, request, *args):' for n, name in enumerate(names, 1)]
    # mid-way, as where a tool shows windows of two files: neither a text's first nor its last line
    summary = summarize('\n'.join([*lines[:250], note, *lines[250:]]), budget_tokens=250)
    assert isinstance(summary, str) and note in summary.splitlines()
    # a line saying so in passing, a field of a record, or a stack trace's `... 42 more` is none
    for line in ('row 120: truncated to 120 characters', '  "truncated": true,', '\t... 42 more'):
        assert PARTIAL.search(line) is None


def test_a_list_of_long_mixed_ids_a_line_each_is_no_wrapped_base64() -> None:
    """Checksummed Ethereum addresses, one a line: as mixed as base64 and alone on their lines, but what was asked for."""
    addresses = [
        '0x' + ''.join('0123456789abcdefABCDEF'[(n * 7 + k * 13 + n * k) % 22] for k in range(40)) for n in range(30)
    ]
    assert not blob_lines(addresses)
    summary = summarize('\n'.join(['Top holders:', *addresses, 'end']), budget_tokens=200)
    assert isinstance(summary, str) and sum(address in summary for address in addresses) >= 10


def test_lines_of_a_log_reading_as_notes_are_no_notes_and_leave_room_for_its_error() -> None:
    """Two hundred `Truncated table ...` lines of a load job are its own lines, not a tool's note: each required, they
    crowded the job's error out of its summary."""
    lines = [
        f'2024-05-01 10:{n % 60:02d}:00 INFO job {n} ok' if n % 2 else f'Truncated table staging_{n} before load'
        for n in range(400)
    ]
    error = '2024-05-01 11:00:00 ERROR load failed: duplicate key value violates unique constraint "orders_pkey"'
    summary = summarize('\n'.join([*lines, error, 'done']), budget_tokens=200)
    assert isinstance(summary, str) and error in summary.splitlines()
    assert sum(line.startswith('Truncated table') for line in summary.splitlines()) < 10


@pytest.mark.parametrize('blank', [' ', '\t'])
def test_a_long_line_of_blanks_is_read_for_a_partial_note_in_linear_time(blank: str) -> None:
    """20 KB of blanks before a word: the note's two runs of blanks, nothing between, split them every way (14 s)."""
    text = f'line\n{blank * 20_000}x\n... 3 more lines'
    started = time.process_time()
    assert [match.group().strip() for match in PARTIAL.finditer(text)] == ['... 3 more lines']
    assert time.process_time() - started < 1  # about 0.001 s


@pytest.mark.parametrize('run', ['::', '.', '!?'])
def test_a_long_line_of_trailing_marks_is_split_into_words_in_linear_time(run: str) -> None:
    """A line of 40 KB of `.` or `::` (a row of leader dots, a progress bar): its words were tried from each mark, each
    reading the rest of the run for a last character (19 s for `::`), in one C call the deadline cannot stop."""
    line = f'see {run * (40_000 // len(run))} done.'
    started = time.process_time()
    summary = summarize(f'{line}\nthe end', budget_tokens=200)
    assert isinstance(summary, str) and summary.endswith('the end')
    assert time.process_time() - started < 1  # about 0.03 s


def test_a_long_line_of_short_sentences_is_cut_into_pieces_in_linear_time() -> None:
    """A line of 400 KB of ` ... ` ends a sentence every 5 characters: each piece looked through every one of them for
    its cut (5.6 s), where the last in reach is the one."""
    line = ' ... ' * 80_000
    started = time.process_time()
    cut = pieces(line)
    assert ''.join(cut) == line and all(len(piece) <= MAX_LINE_CHARS for piece in cut)
    assert time.process_time() - started < 1  # about 0.04 s


def test_a_long_lines_boilerplate_is_offered_once_in_the_whole_content() -> None:
    """Scraped articles, each a paragraph on one line: the lead's facts, then forty sentences of boilerplate alike but for
    a number. The lead is kept once, with each article's title and end; of the boilerplate, one piece of the line is
    kept as the lead's context, and the budget left over goes to no other piece, in the same article or another
    (every article had kept some: fifty sentences in all)."""
    lead = (
        'Researchers reported on 2025-03-14 that the HATVIBE loader reached ministries via 185.220.101.47 and '
        'exploited CVE-2024-38112.'
    )
    boilerplate = ' '.join(f'Section {n} restates background material about the threat landscape.' for n in range(40))
    articles: list[JsonValue] = [
        f'Article {n}: https://news.example.org/story/{n}\n{lead} {boilerplate}\nEnd of article {n}.' for n in range(6)
    ]
    summary = summarize(articles, budget_tokens=content_tokens(articles) // 4)
    assert isinstance(summary, list) and len(summary) == len(articles)
    text = '\n'.join(item for item in summary if isinstance(item, str))
    assert '185.220.101.47' in text and 'CVE-2024-38112' in text
    assert all(f'Article {n}: ' in text and f'End of article {n}.' in text for n in range(6))
    with_boilerplate = [item for item in summary if isinstance(item, str) and 'restates background' in item]
    assert len(with_boilerplate) == 1 and with_boilerplate[0].count(' … ') <= 1  # one run, after the lead


def test_encoded_bytes_are_left_out_and_what_names_them_is_kept() -> None:
    """A base64 payload, on one line or wrapped at 60 characters, holds nothing a reader reads: not a piece of it."""
    payload = base64.b64encode(bytes(range(256)) * 24).decode()
    read = summarize(f'[Binary file: revenue_chart.png (image/png)]\nBase64: {payload}', budget_tokens=300)
    assert read == '[Binary file: revenue_chart.png (image/png)]\n\u2026 1 line omitted \u2026'
    wrapped = '\n'.join(payload[start : start + 60] for start in range(0, len(payload), 60))
    record = summarize({'path': 'assets/chart.png', 'encoding': 'base64', 'content': wrapped}, budget_tokens=300)
    assert isinstance(record, dict) and OMISSION.fullmatch(str(record['content']))
    assert record['path'] == 'assets/chart.png'
    # a hash, a long name, a line of prose: none of them is encoded bytes
    texts = ['sha256: ' + '9f86d081884c7d659a2feaa0c55ad015' * 8, 'x' * 300, 'word ' * 80, 'A1b2' * 9]
    assert blob_lines(texts) == set()


def _keeps(lines: list[str], index: int, line: str, *, budget_tokens: int) -> bool:
    """Whether the summary of `lines` with `line` put at `index` keeps that line whole."""
    lines[index] = line
    summary = summarize('\n'.join(lines), budget_tokens=budget_tokens)
    return isinstance(summary, str) and line in summary.splitlines()


def test_a_field_of_the_content_outweighs_the_items_of_a_long_list() -> None:
    """The owner of an IP, a top-level field, is what a reader quotes; one of 60 passive-DNS hostnames rarely is."""
    content: JsonValue = {
        'indicator': '91.215.85.142',
        'as_owner': 'Stark Industries Solutions Ltd',
        'passive_dns': [
            {
                'hostname': f'host{n}.example{n % 7}.net',
                'first_seen': f'2024-{n % 12 + 1:02d}-{n % 27 + 1:02d}',
                'sha1': f'{n:04x}' + 'ab' * 18,
            }
            for n in range(60)
        ],
    }
    summary = summarize(content, budget_tokens=250)
    assert shape_mismatch(content, summary) is None
    present = plain_text(summary)
    assert '91.215.85.142' in present and 'Stark Industries Solutions Ltd' in present


def test_a_record_holding_a_column_extreme_is_kept() -> None:
    records: list[JsonValue] = [
        {'id': 1000 + n, 'number': 4000 + n, 'title': f'Issue {n} about sync', 'comments': n % 9} for n in range(40)
    ]
    records[23] = {'id': 1023, 'number': 4821, 'title': 'Regression in 2.8.1: sync fails', 'comments': 31}
    summary = summarize(records, budget_tokens=120)
    assert isinstance(summary, list) and shape_mismatch(records, summary) is None
    assert any(isinstance(item, dict) and item['number'] == 4821 for item in summary)


SMALL_RECORDS: list[JsonValue] = [
    {
        'id': f'ord_{n}8812',
        'status': 'shipped' if n % 2 else 'processing',
        'customer': {'name': name, 'email': f'{name.split()[0].lower()}@example.com', 'tier': 'gold'},
        'shipping': {'carrier': 'UPS', 'tracking': f'1Z999AA1012345678{n}', 'address': {'city': city, 'zip': zip_code}},
        'items': [{'sku': f'SKU-{n}{k}', 'qty': k + 1, 'price': 19.99 + k} for k in range(2)],
        'total': 59.97 + n,
    }
    for n, (name, city, zip_code) in enumerate(
        [
            ('Ana Lopez', 'Austin', '78701'),
            ('Ben Okafor', 'Denver', '80202'),
            ('Chen Wei', 'Seattle', '98101'),
            ('Dana Cruz', 'Boston', '02108'),
        ]
    )
]


def test_a_small_list_of_nested_records_gets_a_summary_under_a_small_threshold() -> None:
    """Issue 13, point 5: at threshold 256 the budget fits no whole record; one is kept, shortened by shape."""
    threshold = 256
    tokens = content_tokens(SMALL_RECORDS)
    assert tokens > threshold
    ratio = SummarizerConfig().target_ratio
    budget = min(max(math.ceil(tokens * ratio), 100), threshold - 1)  # as `Summarizer.budget_for`
    summary = summarize(SMALL_RECORDS, budget_tokens=budget)
    assert isinstance(summary, list) and summary and carries_text(summary)
    assert (
        summary_problem(
            SMALL_RECORDS, summary, original_tokens=tokens, threshold_tokens=threshold, tokenizer=estimate_tokens
        )
        is None
    )


def test_a_record_keeps_its_own_short_fields() -> None:
    """A kept record is whole: `"status": "available"`, never a field holding anything else."""
    rooms: list[JsonValue] = [
        {
            'room': f'R-{100 + n}',
            'status': 'available' if n % 3 else 'booked',
            'rate': 120 + n,
            'note': f'floor {n % 9}',
        }
        for n in range(80)
    ]
    for quoted in ((), ('R-177', 'R-150')):
        summary = summarize(rooms, budget_tokens=200, quoted=quoted)
        assert isinstance(summary, list) and summary
        for item in summary:
            if isinstance(item, str):
                assert ITEMS_OMITTED.fullmatch(item)  # in the place of dropped rooms
                continue
            assert isinstance(item, dict)
            assert item in rooms
        assert all(any(isinstance(item, dict) and item['room'] == room for item in summary) for room in quoted)


def test_the_work_stops_at_its_time_limit() -> None:
    """Issue 12, point 7: the model checks its own deadline in its loops and stops with a clear error."""
    content: JsonValue = [{'n': n, 'text': f'value {n}\nline two of {n}'} for n in range(60_000)]
    with time_limit(0.05), pytest.raises(WorkBudgetExceeded, match='time limit'):
        summarize(content, budget_tokens=500)


def test_finding_the_lines_that_place_each_line_looks_at_the_deadline() -> None:
    """`outline.enclosing` over a long text stops at a deadline already passed, before any selection starts."""
    from summarizer.extractive import ContentKind
    from summarizer.extractive.budget import Deadline, within
    from summarizer.extractive.outline import enclosing

    lines = [f'{"  " * (n % 5)}- id: {n}' for n in range(20_000)]
    with within(Deadline(at=0.0, seconds=0.0)), pytest.raises(WorkBudgetExceeded, match='time limit'):
        enclosing(ContentKind.RECORDS, lines)
    assert len(enclosing(ContentKind.RECORDS, lines)) == len(lines)  # with no deadline, the whole text


def test_placing_verbose_test_outcomes_looks_at_the_deadline() -> None:
    """Placing each verbose test name's `... ok` line reads every line of a test run: it stops at a passed deadline."""
    from summarizer.extractive.budget import Deadline, within
    from summarizer.extractive.outline import _outcomes  # pyright: ignore[reportPrivateUsage]

    lines = [line for n in range(20_000) for line in (f'test_{n} (tests.Case.test_{n})', 'Checks it. ... ok')]
    with within(Deadline(at=0.0, seconds=0.0)), pytest.raises(WorkBudgetExceeded, match='time limit'):
        _outcomes(lines, [0] * len(lines))
    assert _outcomes(lines, [0] * len(lines))[-2] == (len(lines) - 1,)  # with no deadline, each name its outcome


def test_each_pass_over_a_whole_text_looks_at_the_deadline_first() -> None:
    """A huge text's single passes (a kind's patterns, the table's columns, the facts and signatures of its
    lines) stop at a deadline already passed, rather than running to their end in C."""
    from summarizer.core import in_chunks
    from summarizer.extractive import log, shell
    from summarizer.extractive.budget import Deadline, within
    from summarizer.extractive.lines import Joined
    from summarizer.extractive.notable import notable_rows, split_rows
    from summarizer.extractive.tree import _lines_facts  # pyright: ignore[reportPrivateUsage]

    lines = [f'2025-01-01T00:00:{n % 60:02d}Z INFO worker-{n % 7} job {n} took {n % 997} ms' for n in range(20_000)]
    passed = Deadline(at=0.0, seconds=0.0)
    for run in (lambda: shell.line_bonuses(Joined(lines)), lambda: notable_rows(split_rows(lines))):
        with within(passed), pytest.raises(WorkBudgetExceeded, match='time limit'):
            run()
        assert run()  # with no deadline, to its end: the rows that stand out, a bonus per line
    for function in (lambda chunk: _lines_facts(chunk, frozenset()), lambda chunk: list(map(log.signature, chunk))):
        with pytest.raises(WorkBudgetExceeded, match='time limit'):
            in_chunks(passed.check, function, lines)
        assert len(in_chunks(NO_DEADLINE.check, function, lines)) == len(lines)


def test_the_fact_scan_looks_at_the_deadline_between_batches_and_finds_the_same_facts() -> None:
    """The fact scan of a 10 MB log judges hundreds of thousands of tokens, about a second: it looks at the
    deadline between batches (the tree passes its own), and finds what one pass finds, in the same order."""
    from summarizer.core import fact_kinds

    text = '\n'.join(
        f'job-{n} host=10.0.{n % 250}.{n % 7} took {n % 997}ms path=/srv/jobs/{n}.json' for n in range(6_000)
    )
    looks: list[int] = []
    assert fact_kinds(text, check=lambda: looks.append(1)) == fact_kinds(text)
    assert len(looks) > 3
    with pytest.raises(WorkBudgetExceeded, match='time limit'):
        fact_kinds(text, check=Deadline(at=0.0, seconds=0.0).check)


def test_a_list_of_a_million_numbers_is_summarized_without_building_a_million_choices() -> None:
    numbers: list[JsonValue] = [n % 1000 for n in range(1_000_000)]
    numbers[777_777] = 99_999
    summary = summarize(numbers, budget_tokens=300, quoted=('424242',))
    assert isinstance(summary, list) and summary and content_tokens(summary) <= 300
    assert 99_999 in summary  # the extreme, from the middle of the list
    assert shape_mismatch(numbers, summary) is None


def _threads_in_the_model() -> list[str]:
    """Where the threads inside the embedded model (its request, its summarizer) are, right now."""
    working: list[str] = []
    for frame in sys._current_frames().values():  # pyright: ignore[reportPrivateUsage]
        stack = traceback.extract_stack(frame)
        if any(
            'summarizer/extractive' in entry.filename or entry.filename.endswith('summarizer/pipeline/_models.py')
            for entry in stack
        ):
            working.append(' < '.join(f'{entry.name}:{entry.lineno}' for entry in reversed(stack[-4:])))
    return working


async def test_a_timed_out_embedded_summary_is_not_retried_and_its_thread_stops() -> None:
    """Issue 12, point 7: a 3 MB list of a million numbers under a short timeout ends in one attempt,
    reported, with no thread left working on it."""
    numbers: list[JsonValue] = [n % 97 for n in range(1_000_000)]
    result = await compactor('extractive', timeout_seconds=0.2, max_retries=3).compact(history(numbers))
    report = result.report
    assert report.model_calls == 1 and report.retries == 0
    if report.failed:  # on a slow machine: reported, the original kept
        assert report.failures[0].reason in (
            'timed out',
            'WorkBudgetExceeded: the embedded summarizer stopped after its 0.2 s time limit',
        )
        assert result.messages[2].parts[0].content is numbers  # type: ignore[union-attr]
    else:
        assert report.summarized == 1
    deadline = time.monotonic() + 5  # its next look at the deadline: a few ms, more on a loaded machine
    while _threads_in_the_model() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert _threads_in_the_model() == []


async def test_embedded_summaries_run_one_at_a_time_whatever_the_concurrency() -> None:
    """Pure Python under the GIL gains nothing from running side by side: with `concurrency: 8` the
    embedded model still summarizes one content at a time, and every content gets its summary."""
    inside: list[int] = []
    most = calls = 0
    lock = threading.Lock()

    def slow_summarize(request: EmbeddedRequest) -> JsonValue:
        nonlocal most, calls
        with lock:
            calls += 1
            inside.append(1)
            most = max(most, len(inside))
        time.sleep(0.05)  # long enough for the others to start, if they could
        with lock:
            inside.pop()
        return extractive_summary(request)

    contents = [f'run {n}\n{BIG_TEXT}' for n in range(6)]  # six different contents: no single-flight
    model = embedded_model('slow', slow_summarize, time_limit=30)
    result = await compactor(model, concurrency=8).compact(history(*contents))
    assert result.report.summarized == 6 and not result.report.failed
    assert calls == 6 and most == 1


def test_an_embedded_request_waiting_for_its_turn_past_its_time_limit_gives_up() -> None:
    """A request queued behind other summaries stops at its own deadline, as one that ran out of time does."""
    with _models._turns:  # another summary holds the turn  # pyright: ignore[reportPrivateUsage]
        started = time.monotonic()
        with (
            pytest.raises(WorkBudgetExceeded, match='after its 0.1 s time limit'),
            _models._turn(Deadline.after(0.1)),  # pyright: ignore[reportPrivateUsage]
        ):
            pytest.fail('ran without its turn')
        assert time.monotonic() - started < 5
    with _models._turn(Deadline.after(math.inf)):  # pyright: ignore[reportPrivateUsage]
        pass  # the turn is free again; no limit at all is a limit too (it was an OverflowError)


async def test_an_embedded_request_its_caller_gives_up_on_never_runs_and_one_under_way_stops() -> None:
    """Cancelled while it waits its turn, a request does not run later for nobody, holding up the ones after it;
    one under way stops at its next look at the deadline."""
    calls: list[str] = []
    first_started, release = threading.Event(), threading.Event()

    def blocking_summarize(request: EmbeddedRequest) -> JsonValue:
        assert isinstance(request.content, str)
        calls.append(request.content.split('\n', 1)[0])
        first_started.set()
        release.wait(10)
        return extractive_summary(request)

    model = embedded_model('blocking', blocking_summarize, time_limit=30)
    first = asyncio.create_task(compactor(model).compact(history(f'first\n{BIG_TEXT}')))
    assert await asyncio.to_thread(first_started.wait, 10)
    with pytest.raises(TimeoutError):  # the caller's own limit, around the whole compaction
        async with asyncio.timeout(0.3):
            await compactor(model).compact(history(f'second\n{BIG_TEXT}'))
    release.set()
    assert (await first).report.summarized == 1
    third = await compactor(model).compact(history(f'third\n{BIG_TEXT}'))
    assert third.report.summarized == 1
    await asyncio.sleep(0.2)  # time enough for an abandoned request to take its turn, if it could
    assert calls == ['first', 'third']

    deadline = Deadline.after(30)
    deadline.abandon()
    with pytest.raises(WorkBudgetExceeded, match='its caller gave up on it'):
        deadline.check()


def test_a_forked_child_starts_with_the_turn_free() -> None:
    """The thread holding the turn in the parent is not in a forked child: there the turn would never come free."""
    import os

    with _models._turns:  # pyright: ignore[reportPrivateUsage]
        pid = os.fork()
        if pid == 0:  # the child
            os._exit(0 if _models._turns.acquire(timeout=2) else 1)  # pyright: ignore[reportPrivateUsage]
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


async def test_without_threads_the_embedded_model_works_in_the_event_loops_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where there are no threads (Pyodide), the model answers inline, as pydantic-ai runs sync functions there."""
    threads: list[int] = []

    def recording(request: EmbeddedRequest) -> JsonValue:
        threads.append(threading.get_ident())
        return extractive_summary(request)

    model = embedded_model('recording', recording, time_limit=30)
    await compactor(model).compact(history(f'threaded\n{BIG_TEXT}'))
    monkeypatch.setattr(_models, '_INLINE', True)
    result = await compactor(model).compact(history(f'inline\n{BIG_TEXT}'))
    assert result.report.summarized == 1
    assert threads[0] != threading.get_ident() and threads[1] == threading.get_ident()


async def test_a_request_waiting_behind_a_work_that_overruns_gives_up_at_its_own_deadline() -> None:
    """A work that never looks at its deadline keeps its turn: a request waiting behind it in the same event loop
    still gives up at its own deadline."""
    release = threading.Event()

    def stubborn(request: EmbeddedRequest) -> JsonValue:
        if request.content == 'stuck':
            release.wait(10)  # never looks at its deadline
        return request.content

    model = embedded_model('stubborn', stubborn, time_limit=0.2)
    stuck = asyncio.create_task(model.summarize(EmbeddedRequest(content='stuck', budget_tokens=1)))
    await asyncio.sleep(0.05)
    try:
        async with asyncio.timeout(5):  # not the 10 s the stuck work takes
            with pytest.raises(WorkBudgetExceeded, match='after its 0.2 s time limit'):
                await model.summarize(EmbeddedRequest(content='queued', budget_tokens=1))
    finally:
        release.set()
    assert await stuck == 'stuck'
    assert await model.summarize(EmbeddedRequest(content='after', budget_tokens=1)) == 'after'


def test_a_work_that_outlives_its_event_loop_is_dropped_and_the_next_is_served() -> None:
    """The worker thread serves every loop: a work whose loop closed while it ran is let go, and the next one runs."""
    release, started = threading.Event(), threading.Event()

    def slow(request: EmbeddedRequest) -> JsonValue:
        if request.content == 'slow':
            started.set()
            release.wait(10)
        return request.content

    model = embedded_model('slow', slow, time_limit=30)

    async def give_up() -> None:
        task = asyncio.create_task(model.summarize(EmbeddedRequest(content='slow', budget_tokens=1)))
        assert await asyncio.to_thread(started.wait, 10)
        task.cancel()

    asyncio.run(give_up())  # its loop is closed before the work ends
    release.set()
    assert asyncio.run(model.summarize(EmbeddedRequest(content='next', budget_tokens=1))) == 'next'


def test_a_model_used_in_many_event_loops_keeps_none_of_them_alive() -> None:
    """Each `asyncio.run` makes a loop: a model used in many keeps none of them alive once they are gone."""
    model = embedded_model('extractive', extractive_summary, time_limit=30)
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def ask() -> JsonValue:
        loops.append(weakref.ref(asyncio.get_running_loop()))
        return await model.summarize(EmbeddedRequest(content=BIG_TEXT, budget_tokens=50))

    for _ in range(3):
        asyncio.run(ask())
    gc.collect()
    assert [loop() for loop in loops] == [None, None, None]


async def test_no_time_limit_at_all_summarizes() -> None:
    result = await compactor('extractive', timeout_seconds=math.inf).compact(history(BIG_TEXT, BIG_LIST, BIG_OBJECT))
    assert result.report.summarized == 3 and not result.report.failed


async def test_a_summarized_numbered_read_keeps_the_indentation_of_its_first_line() -> None:
    """The pipeline took a text answer's surrounding whitespace off: `     1\\timport json` came back as `1\\timport json`."""
    read = '\n'.join(f'{number:6}\timport module_{number}' for number in range(1, 400))
    result = await compactor('extractive').compact(history(read))
    summary = result.messages[2].parts[0].content  # type: ignore[union-attr]
    assert isinstance(summary, str) and summary != read
    assert summary.startswith('     1\timport module_1\n')
    kept_lines(read, summary)


def test_the_line_holding_a_quoted_fact_is_kept_whole() -> None:
    """A fact later turns quote stays in its own line, not in a list: `4242` of `retry after 4242 ms`."""
    lines = [f'row {n}: ' + 'routine filler text about the nightly batch that nobody quotes ' * 2 for n in range(300)]
    lines[50] = 'row 50: limit 1000 reached ' + 'routine filler text about the nightly batch ' * 3
    lines[120] = 'row 120: retry after 4242 ms ' + 'routine filler text about the nightly batch ' * 3
    lines[150] = "row 150: filter key '%s__in' applied " + 'routine filler text about the nightly batch ' * 3
    text = '\n'.join(lines)
    summary = summarize(text, budget_tokens=180, quoted=('1000', '4242', '%s__in'))
    assert isinstance(summary, str)
    assert {lines[50], lines[120], lines[150]} <= set(kept_lines(text, summary))


def test_a_list_of_texts_each_longer_than_the_budget_keeps_a_piece_of_one() -> None:
    """Issue 13 point 5: no empty summary, even when no whole line fits (it was `[""]`, refused as empty)."""
    from summarizer.extractive import summarize

    plain = ['text with filler ' * 19 + 'text'] * 4  # no fact anywhere: was `[""]`
    with_facts = [f'entry {n}: ' + ' '.join(f'word{n}x{m} filler text' for m in range(25)) for n in range(4)]
    for texts, budget in itertools.product((plain, with_facts), (20, 40, 60)):
        summary = summarize(texts, budget_tokens=budget)
        assert isinstance(summary, list) and summary and all(isinstance(item, str) for item in summary)
        kept = [item for item in summary if isinstance(item, str) and not ITEMS_OMITTED.fullmatch(item)]
        lines = [line for item in kept for line in item.split('\n')]
        assert any(line.strip() for line in lines), (budget, summary)
        for line in lines:  # a marker, or slices of an original, every cut shown: never a rewrite
            pieces = line.removeprefix('… ').removesuffix(' …').split(' … ')
            assert (
                OMISSION.match(line)
                or line == DROPPED_TEXT  # the line dropped whole
                or all(any(piece in text for text in texts) for piece in pieces)
            ), line
            cut_shows = len(pieces) > 1 or pieces[0] != line or line == DROPPED_TEXT
            assert line in texts or cut_shows or OMISSION.match(line)
        assert estimate_tokens(json.dumps(summary)) <= budget + 10


@pytest.mark.parametrize('text', ['   225\t))', '   225→))', '   1\t', '})\n  ]);', 'else:'])
def test_a_text_of_syntax_alone_keeps_a_line(text: str) -> None:
    """A read whose every line is punctuation (`))` at line 225) says little, but an empty summary says less:
    the pipeline refused it, so the original stayed. One of its lines is kept, as it is."""
    from summarizer.extractive import summarize

    for budget in (1, 50):
        summary = summarize(text, budget_tokens=budget)
        assert isinstance(summary, str) and summary.strip(), (text, budget)
        assert all(line in text.split('\n') for line in summary.split('\n')), summary


@pytest.mark.parametrize(
    'value',
    [0, -1, 10**30, 2**63, 1.0, -0.0, 1e300, 1e-7, 3.14159, math.nan, math.inf, -math.inf, True, False, None, 'x"y'],
)
def test_a_scalar_is_priced_by_the_literal_the_json_encoder_writes(value: JsonValue) -> None:
    """The skeleton's numbers skip the encoder (`_scalar_json`): their literal must be the encoder's, or costs drift."""
    from summarizer.extractive import tree

    assert tree._scalar_json(value) == json.dumps(value, ensure_ascii=False)  # pyright: ignore[reportPrivateUsage]


def test_a_record_leaves_the_cyclic_collector_few_objects_to_track() -> None:
    """Records are thousands of fields, and the tree's objects live through the summary: each one the collector
    tracks counts towards a full collection of the host process (45-70 ms with pydantic-ai imported).

    A field's value is one unit, its own node: with a text node and a list of units around it, a
    record of four text fields and a number took 24 tracked objects; now its item, object, member
    map and four units, and a few containers.
    """
    import gc

    from summarizer.extractive import tree

    records: list[JsonValue] = [
        {'id': f'ord-{n:05d}', 'customer': f'cust_{n % 97}', 'amount': n * 1.5, 'status': 'open', 'note': f'note {n}'}
        for n in range(2000)
    ]
    tree._Tree(records, quoted=(), kind=None, deadline=NO_DEADLINE).release()  # pyright: ignore[reportPrivateUsage]
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        built = tree._Tree(records, quoted=(), kind=None, deadline=NO_DEADLINE)  # pyright: ignore[reportPrivateUsage]
        gc.collect(0)  # a young collection stops tracking the tuples that hold only strings and numbers
        per_record = (len(gc.get_objects()) - before) / len(records)
        built.release()
    finally:
        gc.enable()
    assert per_record <= 13


@pytest.mark.parametrize('content', [BIG_TEXT, BIG_LIST, BIG_OBJECT], ids=['text', 'list', 'object'])
def test_a_summarized_tree_leaves_no_garbage_for_the_cyclic_collector(content: JsonValue) -> None:
    """The model's tree (units know their text, items their inner choices) is freed as soon as the summary is made.

    Left in cycles, every dead tree would wait for a full collection, which in a process holding
    pydantic-ai traverses all of its objects.
    """
    import gc

    summarize(content, budget_tokens=300)  # caches and lazy imports first
    gc.collect()
    gc.disable()
    try:
        summarize(content, budget_tokens=300)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_past_the_budget_a_diff_keeps_only_its_quoted_lines_and_the_headers_placing_them() -> None:
    """A hunk header brings its file header (`4 x MUST` + `MUST`): worth past `_QUOTED_BASE`, yet quoting nothing."""
    files = [
        '\n'.join(
            [
                f'diff --git a/src/mod{f}.py b/src/mod{f}.py',
                f'--- a/src/mod{f}.py',
                f'+++ b/src/mod{f}.py',
                f'@@ -{f * 10 + 1},6 +{f * 10 + 1},7 @@ def handler_{f}():',
                *(f'+    value_{f}_{k} = compute("key-{f:03d}-{k}", retries={k})' for k in range(3)),
            ]
        )
        for f in range(300)
    ]
    text = '\n'.join(files)
    quoted = tuple(f'key-{f:03d}-2' for f in range(0, 300, 50))
    budget = estimate_tokens(text) // 20
    at_budget = summarize(text, budget_tokens=budget, quoted=quoted)
    stretched = summarize(text, budget_tokens=budget, quoted=quoted, quoted_budget_tokens=estimate_tokens(text) // 2)
    assert isinstance(at_budget, str) and isinstance(stretched, str)
    assert all(fact in stretched for fact in quoted)
    placing = {f'src/mod{f}.py' for f in range(0, 300, 50)} | {f'handler_{f}()' for f in range(0, 300, 50)}
    added = set(stretched.split('\n')) - set(at_budget.split('\n'))
    stray = [
        line for line in added if not OMISSION.fullmatch(line) and not any(fact in line for fact in (*quoted, *placing))
    ]
    assert stray == []


def test_past_the_budget_the_budgets_own_lines_still_keep_to_it() -> None:
    """The budget's pass overshoots by a few lines (estimates), which undoing used to take back: a larger limit for
    quoted lines must not keep them. With nothing quoted held, the stretched summary is the budget's."""
    messages = json.loads((Path(__file__).parent.parent / 'golden/histories/45_coding_relay_session.json').read_text())
    content = messages[16]['parts'][0]['content']  # read_file of src/relay/retry.py, 4,231 tokens
    assert isinstance(content, str) and content.startswith('"""src/relay/retry.py')
    budget = estimate_tokens(content) // 4
    at_budget = summarize(content, budget_tokens=budget, quoted=('not-in-it',))
    stretched = summarize(content, budget_tokens=budget, quoted=('not-in-it',), quoted_budget_tokens=2 * budget)
    assert content_tokens(at_budget) <= budget and stretched == at_budget


def test_a_crash_is_trouble_in_any_text() -> None:
    """A process that died of a signal is trouble wherever it is told (`lines.ALARM`), as an error is."""
    for line in (
        'worker 17 exited: Segmentation fault (core dumped)',
        'supervisor: worker 23 got SIGABRT, restarting',
        'Aborted (core dumped)',
    ):
        assert ALARM.search(line) is not None, line
    assert ALARM.search('the signal handler restarts a worker that stopped') is None


def test_a_setting_named_for_trouble_is_no_trouble() -> None:
    """`timeout=1s` and a probe's `#failure=3` set what would go wrong; `timed out` and `error="refused"` say it did."""
    for setting in ('http-get http://:8080/healthz delay=10s timeout=1s period=10s #success=1 #failure=3',):
        assert ALARM.search(setting) is None
    for trouble in ('request timed out after 30s', 'level=warn error="connection refused"', 'timeout: 30s elapsed'):
        assert ALARM.search(trouble) is not None, trouble


def test_apts_errors_outweigh_the_mirrors_it_fetched_from() -> None:
    """`apt-get install` output reads as prose: its `E: Unable to locate package ...` lines are trouble (`lines.ALARM`),
    over the `Get:` lines of mirror URLs, which hold more facts. Each error is what a reader acts on."""
    mirrors = [
        f'Get:{n} http://mirror-{n}.archive.example.com/ubuntu noble-updates/main amd64 Packages [{n * 37} kB]'
        for n in range(1, 41)
    ]
    errors = [
        'E: Unable to locate package python3.10-venv',
        "E: Couldn't find any package by glob 'python3.10-venv'",
        'E: Unable to locate package python3.10-dev',
        "E: Couldn't find any package by regex 'python3.10-dev'",
    ]
    text = '\n'.join([*mirrors, 'Fetched 16.5 MB in 2s (7332 kB/s)', 'Reading package lists...', *errors])
    kept = summary_lines(text, budget_tokens=250)
    assert all(error in kept for error in errors)
