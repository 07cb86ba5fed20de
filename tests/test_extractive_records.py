"""Records: objects keep every key, lists keep whole items where one fits; YAML-like records by their first lines."""

from __future__ import annotations

import math
import re
import time

import pytest
import yaml
from extractive_checks import kept_lines, summary_lines

from summarizer.core._grounding import GroundingKind, OriginalText, grounded_line
from summarizer.core._shape import ITEMS_OMITTED, JsonValue, shape_mismatch
from summarizer.core._tokens import content_tokens, estimate_tokens
from summarizer.extractive import records, summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.budget import NO_DEADLINE, cost
from summarizer.extractive.lines import OMISSION, Joined, render
from summarizer.extractive.notable import notable_fields
from summarizer.extractive.outline import document_spans, enclosing, indent
from summarizer.extractive.tree import (
    _NOTABLE_GAIN,  # pyright: ignore[reportPrivateUsage]
    _QUOTED_BASE,  # pyright: ignore[reportPrivateUsage]
    _QUOTED_GAIN,  # pyright: ignore[reportPrivateUsage]
    _REPEAT_GAIN,  # pyright: ignore[reportPrivateUsage]
    _WEIGHTS,  # pyright: ignore[reportPrivateUsage]
    _starts_record,  # pyright: ignore[reportPrivateUsage]
    _Tree,  # pyright: ignore[reportPrivateUsage]
)
from summarizer.pipeline._originals import holds_omission_marker

TICKETS: list[JsonValue] = [
    {
        'id': f'TCK-{4100 + n}',
        'subject': f'Printer on floor {n % 6} jams after firmware {n % 3}.2 update',
        'status': 'open' if n % 4 else 'pending',
        'assignee': {'name': f'Agent {n % 5}', 'team': 'it-support'},
        'tags': ['hardware', f'floor-{n % 6}'],
        'priority': n % 3,
    }
    for n in range(60)
]


def test_a_list_keeps_whole_items_and_the_quoted_one() -> None:
    assert detect_kind(TICKETS) is ContentKind.RECORDS
    summary = summarize(TICKETS, budget_tokens=300, quoted=('TCK-4147',))
    assert isinstance(summary, list) and shape_mismatch(TICKETS, summary) is None
    assert content_tokens(summary) <= 300
    kept = [item for item in summary if not (isinstance(item, str) and ITEMS_OMITTED.fullmatch(item))]
    assert kept and all(item in TICKETS for item in kept)  # whole items: every field as it was
    assert any(isinstance(item, dict) and item['id'] == 'TCK-4147' for item in kept)


def test_an_object_keeps_every_key() -> None:
    account: JsonValue = {
        'account': 'acct_8842',
        'owner': 'Ana Lopez',
        'plan': {'name': 'business', 'seats': 40},
        'invoices': TICKETS,
        'notes': '\n'.join(f'call {n}: customer asked about seat pricing for team {n}' for n in range(80)),
    }
    summary = summarize(account, budget_tokens=350)
    assert isinstance(summary, dict) and list(summary) == list(account)
    assert summary['account'] == 'acct_8842' and summary['owner'] == 'Ana Lopez'
    assert summary['plan'] == {'name': 'business', 'seats': 40}


YAML = '\n'.join(
    line
    for n in range(40)
    for line in [
        f"- id_: '{n}'",
        f'  subject: Weekly sync {n}',
        f'  sender: person{n}@example.com',
        '  body: Notes from the weekly sync about the roadmap and the hiring plan for the next',
        '    quarter, with action items for every team lead.',
        f'  timestamp: 2024-05-{n % 28 + 1:02d} 10:00:00',
    ]
)


def test_yaml_records_keep_their_first_lines_verbatim() -> None:
    assert detect_kind(YAML) is ContentKind.RECORDS
    kept = summary_lines(YAML, budget_tokens=300, quoted=('person23@example.com',))
    assert '  sender: person23@example.com' in kept
    assert sum(line.startswith('- id_:') for line in kept) >= 5


def test_a_marker_over_dropped_records_counts_them() -> None:
    """A reader of a list counts records: `… 102 lines omitted …` would not say that six emails are missing, so a
    run of dropped lines counts the records it held whole (their `- ` lines), and the counts add up."""
    summary = summarize(YAML, budget_tokens=300, quoted=('person23@example.com',))
    assert isinstance(summary, str)
    lines = summary.split('\n')
    kept = kept_lines(YAML, summary)
    counted = [match for line in lines if (match := re.fullmatch(r'… \d+ lines omitted \((\d+) records?\) …', line))]
    assert counted
    assert sum(int(match[1]) for match in counted) + sum(line.startswith('- id_:') for line in kept) == 40
    assert all(
        grounded_line(line, OriginalText(YAML)).kind is GroundingKind.MARKER for line in lines if line.startswith('…')
    )
    assert holds_omission_marker(summary)


def test_the_spending_of_many_short_fields_matches_the_summary() -> None:
    """Choosing a record's one-line field used to count a marker taken away (-7 tokens each): the spending
    went negative, ten times the budget got chosen, and thousands of undo-and-render rounds trimmed it."""
    orders: list[JsonValue] = [
        {'id': f'ord-{n:05d}', 'customer': f'cust_{n * 37 % 5000}', 'status': ('open', 'shipped')[n % 2]}
        for n in range(3000)
    ]
    tree = _Tree(orders, quoted=(), kind=None, deadline=NO_DEADLINE)
    tree.select(600)
    assert 0 < tree.spent <= 600
    assert abs(content_tokens(tree.render()) - tree.spent) < 0.2 * tree.spent


def test_each_weight_is_the_product_of_its_factors_to_the_bit() -> None:
    """`_weigh` multiplies only where a factor is not 1; the weights must be those of multiplying every factor.

    A list of records gives priors below 1 (items past the first), repeats (statuses, customers), a
    notable row (the largest amount) and a quoted fact: every factor differs from 1 for some fact.
    """
    orders: list[JsonValue] = [
        {'id': f'ord-{n:05d}', 'customer': f'cust_{n % 7}', 'amount': 10.5 + n % 13 + (900 if n == 41 else 0)}
        for n in range(60)
    ]
    tree = _Tree(orders, quoted=('ord-00041', 'cust_3'), kind=None, deadline=NO_DEADLINE)
    factors = {
        fact: (
            _WEIGHTS.get(kind, 1.0),
            tree._priors.get(fact, 1.0),  # pyright: ignore[reportPrivateUsage]
            1 + _REPEAT_GAIN * math.log2(max(tree._counts[fact], 1)),  # pyright: ignore[reportPrivateUsage]
            _NOTABLE_GAIN if fact in tree._notable else 1.0,  # pyright: ignore[reportPrivateUsage]
            _QUOTED_GAIN if fact in tree._quoted else 1.0,  # pyright: ignore[reportPrivateUsage]
        )
        for fact, kind in tree._kinds.items()  # pyright: ignore[reportPrivateUsage]
    }
    assert all(any(f[i] != 1.0 for f in factors.values()) for i in range(1, 5))  # each factor is at work somewhere
    expected = {
        fact: kind * prior * repeat * notable * quoted + (_QUOTED_BASE if quoted != 1.0 else 0.0)
        for fact, (kind, prior, repeat, notable, quoted) in factors.items()
    }
    assert tree._weigh() == expected  # pyright: ignore[reportPrivateUsage]
    tree.release()


AIRPORTS = ['ZRH', 'AMS', 'GRU', 'LIS', 'FRA', 'JFK', 'MAD']
ITINERARIES: list[JsonValue] = [  # a list of lists: each itinerary its legs, the first one the same in all
    [
        {'flight': 'LX766', 'from': 'ZRH', 'to': 'AMS', 'departs': '2025-10-14T19:50'},
        *(
            {
                'flight': f'KL{700 + 3 * n + leg}',
                'from': 'AMS',
                'to': AIRPORTS[(n + leg) % 7],
                'fare': f'{400 + 13 * n}.00',
            }
            for leg in range(1 + n % 2)
        ),
    ]
    for n in range(24)
]
OFFERS: JsonValue = {  # a list of objects holding lists: offers, their slices, their segments
    'data': {
        'offers': [
            {
                'id': f'off_{n:04d}',
                'total_amount': f'{600 + 37 * n}.50',
                'slices': [
                    {
                        'id': f'sli_{n}_{s}',
                        'segments': [
                            {
                                'id': f'seg_{n}_{s}_{k}',
                                'origin': AIRPORTS[(n + k) % 7],
                                'flight_number': str(90 + n + k),
                            }
                            for k in range(1 + (n + s) % 2)
                        ],
                    }
                    for s in range(2)
                ],
            }
            for n in range(28)
        ]
    }
}
FORECAST: JsonValue = {  # an object of lists: columns side by side
    'latitude': 47.37,
    'hourly': {
        'time': [f'2025-10-{14 + h // 24}T{h % 24:02d}:00' for h in range(168)],
        'temperature_2m': [round(9 + 6 * math.sin(h / 4), 1) for h in range(168)],
        'weather': ['rain' if h % 17 == 0 else 'cloudy' for h in range(168)],
    },
}


def _lists(value: JsonValue) -> list[list[JsonValue]]:
    if isinstance(value, list):
        return [value, *(inner for item in value for inner in _lists(item))]
    if isinstance(value, dict):
        return [inner for item in value.values() for inner in _lists(item)]
    return []


@pytest.mark.parametrize(
    'content', [ITINERARIES, OFFERS, FORECAST], ids=['list-of-lists', 'objects-holding-lists', 'object-of-lists']
)
@pytest.mark.parametrize('budget', [120, 300, 700])
def test_a_list_that_loses_items_says_where_and_how_many(content: JsonValue, budget: int) -> None:
    """Issue 26 point 10: no nested list emptied or cut without a sign (a flight search lost every first leg).

    Each run of items dropped, at any depth, is one `… N items omitted …` in its place, so the summary
    lines up with the original item by item (`shape_mismatch`), and no list that had items is empty.
    """
    summary = summarize(content, budget_tokens=budget)
    assert shape_mismatch(content, summary) is None
    assert content_tokens(summary) <= budget + 10
    assert all(inner for inner in _lists(summary))
    markers = [
        item for inner in _lists(summary) for item in inner if isinstance(item, str) and ITEMS_OMITTED.fullmatch(item)
    ]
    assert markers  # something was cut, and it says so


def test_a_kept_itinerary_shows_where_its_legs_were_cut() -> None:
    """A leg kept without the one before it follows a marker: it never passes for the first leg.

    The first legs, all alike, hold no fact the others lack: they were all dropped, and the second
    legs read as the itineraries' first.
    """
    summary = summarize(ITINERARIES, budget_tokens=300)
    assert isinstance(summary, list)
    for original, kept in zip(ITINERARIES, _aligned(summary)):
        if isinstance(kept, list) and isinstance(original, list):
            first = kept[0]
            assert first == original[0] or (isinstance(first, str) and ITEMS_OMITTED.fullmatch(first)), kept


def _aligned(summary: list[JsonValue]) -> list[JsonValue | None]:
    """The summary's items at their original positions (None where a marker stands for them)."""
    aligned: list[JsonValue | None] = []
    for item in summary:
        marker = ITEMS_OMITTED.fullmatch(item) if isinstance(item, str) else None
        aligned += [None] * int(marker[1]) if marker else [item]
    return aligned


FILES_YAML = '\n'.join(
    line
    for n in range(40)
    for line in (
        f"- content: 'notes {n} for quarter {n % 4 + 1}, see the shared drive'",
        f'  filename: report-{n:03d}.docx',
        f"  id_: '{n}'",
        f'  last_modified: 2024-{n % 12 + 1:02d}-{n % 27 + 1:02d} 09:{n:02d}:00',
        f'  owner: owner-{n % 5}@example.com',
        '  shared_with:',
        f'    reviewer-{n}@example.com: r',
        f'  size: {1000 + 37 * n}',
    )
)


def test_a_kept_record_line_brings_its_record_and_its_id() -> None:
    """`last_modified: 2024-06-18 09:17:00` is kept under the file it belongs to, never alone."""
    assert detect_kind(FILES_YAML) is ContentKind.RECORDS
    lines = FILES_YAML.split('\n')
    wanted = next(line for line in lines if '2024-06-18' in line)
    kept = summary_lines(FILES_YAML, budget_tokens=200, quoted=('2024-06-18', 'reviewer-23@example.com'))
    at = lines.index(wanted)
    record = lines[at - 3 : at + 5]  # the `- ` line, then its fields
    assert wanted in kept and "  id_: '17'" in kept and '  filename: report-017.docx' in kept
    assert record[0] in kept  # the line that opens the record
    nested = '    reviewer-23@example.com: r'
    assert nested in kept and kept.index('  shared_with:') < kept.index(nested)


def test_a_record_whose_first_line_is_long_is_placed_by_its_start() -> None:
    """A tool dumping files sorted by key opens each record with its content (`- content: 'Meeting notes ...`): a kept
    field brings that line's start, not its whole text, so a budget shows many more records by file name and id."""
    files = '\n'.join(
        line
        for n in range(30)
        for line in (
            f"- content: 'Report {n}: "
            + ' '.join(f'figure {n}.{k} rose by {k * 3} points over the quarter' for k in range(8))
            + "'",
            f'  filename: report-{n:03d}.docx',
            f"  id_: '{n}'",
            f'  size: {1000 + n * 37}',
        )
    )
    assert detect_kind(files) is ContentKind.RECORDS
    summary = summarize(files, budget_tokens=300)
    assert isinstance(summary, str)
    heads = [line for line in summary.split('\n') if line.startswith('- content: ')]
    names = [line for line in summary.split('\n') if line.startswith('  filename: ')]
    assert len(names) >= 6 and len(heads) >= len(names)  # each named record under its start
    assert all(head.endswith(' …') and files.count(head.removesuffix(' …')) == 1 for head in heads)


def test_records_as_text_keep_the_record_with_a_fields_extreme_or_rare_value() -> None:
    """The largest file of a listing, the one mail not received: what a reader of records asks about, found per field."""
    files = '\n'.join(
        line
        for n in range(30)
        for line in (
            f'- filename: notes-{n:03d}.docx',
            f"  id_: '{n}'",
            f'  owner: person{n % 4}@example.com',
            f'  size: {48213 if n == 17 else 1000 + (n * 37) % 500}',
            f'  status: {"quarantined" if n == 23 else "stored"}',
        )
    )
    assert detect_kind(files) is ContentKind.RECORDS
    kept = summary_lines(files, budget_tokens=120)
    assert '  size: 48213' in kept and '- filename: notes-017.docx' in kept
    lines = files.split('\n')
    standing_out = notable_fields(lines)
    assert lines.index('  status: quarantined') in standing_out
    assert not [index for index in standing_out if lines[index].startswith('  id_:')]  # the largest id is nothing


def test_a_field_of_a_long_run_of_blanks_is_read_in_linear_time() -> None:
    """A value of 40 KB of blanks and a word: a lazy value before trailing blanks tried the run from each blank (3 s)."""
    lines = [line for n in range(20) for line in (f'- id: {n}', f'  size: {n}')] + ['  size: 7' + ' ' * 40_000 + 'x']
    started = time.process_time()
    standing_out = notable_fields(lines)
    assert time.process_time() - started < 0.5  # about 0.001 s
    assert lines.index('  size: 19') in standing_out  # the largest size; the last one is no number
    assert notable_fields(['- id: 1 ', *(f'  size: {n}  ' for n in range(6))]) == notable_fields(
        ['- id: 1', *(f'  size: {n}' for n in range(6))]
    )  # trailing blanks are no part of a value


EMAILS_YAML = '\n'.join(
    line
    for n in range(40)
    for line in (
        f'- attachments: [agenda-{n}.pdf]',
        f'  bcc: [archive-{n}@example.com]',
        '  body: ' + ' '.join(f'paragraph {n} sentence {k} about the quarterly planning offsite.' for k in range(6)),
        '  cc: []',
        f"  id_: '{n}'",
        f'  read: {n % 2 == 0}',
        f'  sender: person-{n}@example.com',
        '  status: received',
        f'  subject: Planning item {n}',
        f'  timestamp: 2024-05-{n % 28 + 1:02d} 10:{n % 60:02d}:00',
    )
)


def test_a_run_of_dropped_lines_cheaper_than_its_marker_stays_in_place() -> None:
    """`status: received` between a record's kept sender and subject reads better than a marker, and costs less."""
    summary = summarize(EMAILS_YAML, budget_tokens=400, quoted=('person-7@example.com', 'Planning item 7'))
    assert isinstance(summary, str)
    kept = kept_lines(EMAILS_YAML, summary)
    at = kept.index('  sender: person-7@example.com')
    assert kept[at : at + 3] == ['  sender: person-7@example.com', '  status: received', '  subject: Planning item 7']
    lines, body = EMAILS_YAML.split('\n'), summary.split('\n')
    for number, line in enumerate(body):  # and no marker stands for lines that would cost no more than itself
        marker = OMISSION.match(line)
        if marker and 0 < number < len(body) - 1:
            start = lines.index(body[number - 1]) + 1
            dropped = '\n'.join(lines[start : start + int(marker.group(1))])
            assert cost(dropped) > cost(line), dropped


def test_a_run_is_weighed_against_its_marker_as_it_is_written() -> None:
    """Inside a JSON string an escape takes more characters (`\\u001b` for a colour code): a run is priced as written."""
    coloured = '\x1b[1m\x1b[31m\x1b[0m\x1b[0m'  # 18 characters, 4 of them written as 6 in JSON
    lines = ['ERROR first', coloured, 'ERROR second']
    plain = render(lines, {0: None, 2: None})
    assert plain == lines  # as text: cheaper than `… 1 line omitted …`
    assert render(lines, {0: None, 2: None}, escaped=True) == ['ERROR first', '… 1 line omitted …', 'ERROR second']


_PODS = [
    '- kind: Pod',
    '  status: Running',
    '  name: pod-0',
    '  msg: ok',
    '- kind: Pod',
    '  status: Failed',
    '  name: pod-1',
    'total: 2',
]


@pytest.mark.parametrize('end', ['\n', '\r\n'])
def test_a_record_shown_in_part_is_not_counted_as_omitted(end: str) -> None:
    """A marker counts the records its run held whole: where a line of the run's last record is kept after it
    (`  msg: ok`, kept without its `- ` line when the budget has room for nothing else), that record is shown, not
    omitted. A line at the left edge after the run (`total: 2`) ends the record before it."""
    lines = [line + end.removesuffix('\n') for line in _PODS]
    shown = render(lines, {3: None, 7: None}, record=_starts_record)
    assert [line.rstrip('\r') for line in shown] == [
        '… 3 lines omitted …',
        '  msg: ok',
        '… 3 lines omitted (1 record) …',
        'total: 2',
    ]
    assert render(lines, {7: None}, record=_starts_record)[0] == '… 7 lines omitted (2 records) …'
    assert render(lines, {}, record=_starts_record) == ['… 8 lines omitted (2 records) …']


def _events(count: int) -> str:
    """A calendar as YAML dumps it: each event's `participants:` list written as deep as the key."""
    events = []
    for n in range(count):
        events.append(
            '\n'.join(
                [
                    '- all_day: false',
                    f'  description: Weekly sync number {n} about the roadmap and the hiring plan for the quarter.',
                    f'  end_time: 2024-05-{10 + n % 18:02d} 11:00:00',
                    f"  id_: '{n}'",
                    '  location: Room B',
                    '  participants:',
                    f'  - person{n}.one@bluesparrowtech.com',
                    f'  - person{n}.two@bluesparrowtech.com',
                    f'  start_time: 2024-05-{10 + n % 18:02d} 10:00:00',
                    f'  title: Team Sync {n}',
                ]
            )
        )
    return '\n'.join(events)


def test_a_kept_list_item_brings_the_key_it_is_listed_under() -> None:
    """`  - emma@example.com` says nothing of whose address it is without the `  participants:` over it, written as
    deep as the item, so its indentation does not name it."""
    text = _events(12)
    kept = summary_lines(text, budget_tokens=200, quoted=('person7.two@bluesparrowtech.com',))
    at = kept.index('  - person7.two@bluesparrowtech.com')
    key = max(index for index, line in enumerate(kept[:at]) if line == '  participants:')
    assert not [line for line in kept[key:at] if line.startswith('- ')]  # the key of its own record


MAILBOX = '\n'.join(
    line
    for n in range(20)
    for line in (
        '- attachments: []',
        "  body: 'Hi Emma,",
        '',
        f'    the invoice INV-{4400 + n} for the {("print", "cloud", "travel", "office")[n % 4]} order is due on the',
        f'    {n + 3}th; the approval sits with finance under ticket FIN-{900 + n * 7}.',
        '',
        f"    Best, Sender {n}'",
        f"  id_: '{n}'",
        f'  project: PRJ-{100 + n // 2}',
        f'  sender: sender{n}@example.com',
        f'  subject: Invoice reminder {n}',
        f'  team: team-{n % 7}',
    )
)


def _body(n: int) -> set[str]:
    return {line for line in MAILBOX.split('\n') if f'INV-{4400 + n} ' in line or f'FIN-{900 + n * 7}.' in line}


def test_a_record_the_conversation_names_is_kept_whole() -> None:
    """The task names one mail (its sender): its body, what the reader asked for, comes whole before other mails'
    ids; a fact two mails hold names both. A fact more mails hold (a team, the user's own address) names none."""
    assert not _body(7) & set(summary_lines(MAILBOX, budget_tokens=250))  # no room for a body unless named
    assert _body(7) <= set(summary_lines(MAILBOX, budget_tokens=250, quoted=('sender7@example.com',)))
    assert _body(6) | _body(7) <= set(summary_lines(MAILBOX, budget_tokens=250, quoted=('PRJ-103',)))
    assert not _body(7) & set(summary_lines(MAILBOX, budget_tokens=250, quoted=('team-0',)))  # records 0, 7, 14


def _manifest(name: str, number: int) -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: prod
spec:
  replicas: {2 + number % 3}
  template:
    spec:
      containers:
        - name: {name}
          image: registry.example.com/{name}:1.{number}.0
          ports:
            - containerPort: {8000 + number}
          env:
            - name: LOG_LEVEL
              value: info
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: {name}-db
                  key: url
          readinessProbe:
            httpGet:
              path: /healthz
              port: {8000 + number}
          resources:
            requests:
              cpu: {100 * (number + 1)}m
              memory: {128 * (number + 1)}Mi
            limits:
              cpu: {200 * (number + 1)}m
              memory: {256 * (number + 1)}Mi
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  ports:
    - port: 80
      targetPort: {8000 + number}"""


_SERVICES = ('api', 'worker', 'scheduler', 'web', 'billing', 'search')
MANIFESTS = '\n---\n'.join(_manifest(name, number) for number, name in enumerate(_SERVICES))
"""Kubernetes manifests as `kubectl apply` reads them: a Deployment and a Service per service, `---` between them."""


def test_a_stream_of_yaml_documents_keeps_what_each_document_is_before_its_details() -> None:
    """Twelve manifests alike in shape: a reader wants the twelve objects first, then some fields, each under the
    `kind:` and name of its own document. Without them, `spec:` and `replicas: 2` could be any workload's."""
    summary = summarize(MANIFESTS, budget_tokens=estimate_tokens(MANIFESTS) // 4)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    for name in _SERVICES:
        assert kept.count(f'  name: {name}') == 2, (name, summary)  # its Deployment's and its Service's
    assert kept.count('kind: Deployment') == kept.count('kind: Service') == len(_SERVICES)
    lines = MANIFESTS.split('\n')
    for line in kept:
        if line.startswith(('  replicas: ', '      targetPort: ')):
            document = lines[: lines.index(line)]
            name = next(row for row in reversed(document) if row.startswith('  name: '))
            assert name in kept[: kept.index(line)], (line, summary)


def test_one_yaml_document_or_a_markdown_rule_is_no_stream_of_documents() -> None:
    one = _manifest('api', 0).split('\n---\n')[0].split('\n')
    assert records.line_bonuses(Joined(one)) == records.line_bonuses(Joined([*one, '-' * 20, *one]))[: len(one)]
    spans = document_spans(MANIFESTS.split('\n'), [indent(line) for line in MANIFESTS.split('\n')])
    assert len(spans) == 2 * len(_SERVICES)


def test_a_list_documents_items_and_a_lone_separator_name_no_document() -> None:
    """A document that is a list names no document by its first item's name: `port: 3333` of `gamma` is not placed by
    `alpha`. A `---` over or under a single document makes no stream."""
    stream = ['- name: alpha', '  port: 1111', '- name: gamma', '  port: 3333', '---', 'kind: Service', 'name: web']
    depths = [indent(line) for line in stream]
    spans = document_spans(stream, depths)
    assert spans[0][2] == ()
    one = _manifest('api', 0).split('\n---\n')[0].split('\n')
    assert document_spans(['---', *one], [indent(line) for line in ['---', *one]]) == []


def test_helm_templates_stream_is_read_as_its_documents() -> None:
    """`helm template` prints `---` and a `# Source:` comment over each manifest: its first field is under them. Read
    as code, the stream kept one Deployment's fields and no other document's kind or name."""
    documents = []
    for number, name in enumerate(_SERVICES):
        deployment, service = _manifest(name, number).split('\n---\n')
        documents += [
            f'# Source: shop/templates/{name}.yaml\n{deployment}',
            f'# Source: shop/templates/{name}.yaml\n{service}',
        ]
    stream = '---\n' + '\n---\n'.join(documents)
    assert detect_kind(stream) is ContentKind.RECORDS
    summary = summarize(stream, budget_tokens=estimate_tokens(stream) // 4)
    assert isinstance(summary, str)
    for name in _SERVICES:
        assert summary.split('\n').count(f'  name: {name}') == 2, (name, summary)
    values = '# Values for checkout-api.\nreplicaCount: 4\nimage:\n  tag: "4.18.0"\nservice:\n  port: 80\n'
    assert detect_kind(values) is not ContentKind.RECORDS  # a comment alone over a values file: its top lines first


KUBECTL_DESCRIBE = """\
Name:             checkout-api-7d9f8c6b5-x2kqp
Namespace:        prod
Priority:         0
Service Account:  checkout-api
Node:             ip-10-0-3-17.eu-west-1.compute.internal/10.0.3.17
Start Time:       Tue, 06 May 2025 09:12:44 +0000
Labels:           app=checkout-api
                  pod-template-hash=7d9f8c6b5
Annotations:      kubectl.kubernetes.io/restartedAt: 2025-05-06T09:12:40Z
Status:           Running
IP:               10.0.3.201
Controlled By:  ReplicaSet/checkout-api-7d9f8c6b5
Containers:
  checkout-api:
    Container ID:   containerd://4b1f0c2a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b
    Image:          123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api:4.18.0
    Image ID:       123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0
    Port:           8080/TCP
    Host Port:      0/TCP
    State:          Running
      Started:      Tue, 06 May 2025 09:31:02 +0000
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      Tue, 06 May 2025 09:24:11 +0000
      Finished:     Tue, 06 May 2025 09:30:58 +0000
    Ready:          True
    Restart Count:  4
    Limits:
      cpu:     1
      memory:  512Mi
    Requests:
      cpu:      250m
      memory:   256Mi
    Liveness:   http-get http://:8080/healthz delay=10s timeout=1s period=10s #success=1 #failure=3
    Readiness:  http-get http://:8080/ready delay=5s timeout=1s period=5s #success=1 #failure=3
    Environment:
      JAVA_TOOL_OPTIONS:  -XX:MaxRAMPercentage=90.0
      DATABASE_URL:       <set to the key 'url' in secret 'checkout-db'>  Optional: false
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-7xk2p (ro)
Conditions:
  Type              Status
  Initialized       True
  Ready             True
  ContainersReady   True
  PodScheduled      True
Volumes:
  kube-api-access-7xk2p:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    DownwardAPI:             true
QoS Class:                   Burstable
Node-Selectors:              <none>
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason     Age                 From               Message
  ----     ------     ----                ----               -------
  Normal   Scheduled  22m                 default-scheduler  Successfully assigned prod/checkout-api-7d9f8c6b5-x2kqp to ip-10-0-3-17
  Normal   Pulled     21m                 kubelet            Container image "123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api:4.18.0" already present on machine
  Warning  BackOff    8m (x6 over 18m)    kubelet            Back-off restarting failed container checkout-api in pod checkout-api-7d9f8c6b5-x2kqp
  Normal   Created    3m (x5 over 21m)    kubelet            Created container checkout-api
  Normal   Started    3m (x5 over 21m)    kubelet            Started container checkout-api
  Warning  Unhealthy  2m (x12 over 20m)   kubelet            Readiness probe failed: Get "http://10.0.3.201:8080/ready": dial tcp 10.0.3.201:8080: connect: connection refused
"""
"""`kubectl describe pod` of a pod that restarts: its fields, its container's state, and its events, two of trouble."""


def test_a_pods_events_of_trouble_are_kept() -> None:
    """Why a pod is not well is in its events (`Warning  BackOff ... Back-off restarting failed container`) and its
    container's last state (`Reason: OOMKilled`): read as fields of a record, the events lost to cheap fields of its
    volumes and none of them was kept."""
    summary = summarize(KUBECTL_DESCRIBE, budget_tokens=int(estimate_tokens(KUBECTL_DESCRIBE) * 0.3))
    assert isinstance(summary, str)
    kept = kept_lines(KUBECTL_DESCRIBE, summary)
    warnings = [line for line in KUBECTL_DESCRIBE.split('\n') if line.lstrip().startswith('Warning ')]
    assert len(warnings) == 2
    for line in (*warnings, '      Reason:       OOMKilled'):
        assert line in kept, (line, summary)


def test_a_pods_exit_code_and_restarts_outweigh_its_probe_settings() -> None:
    """What came of a container (`Exit Code:    137`, `Restart Count:  4`) is kept over its probes' settings, whose
    `timeout=1s` and `#failure=3` name what would go wrong, not what did."""
    summary = summarize(KUBECTL_DESCRIBE, budget_tokens=int(estimate_tokens(KUBECTL_DESCRIBE) * 0.3))
    assert isinstance(summary, str)
    kept = kept_lines(KUBECTL_DESCRIBE, summary)
    assert '      Exit Code:    137' in kept
    assert '    Restart Count:  4' in kept
    assert not [line for line in kept if '#failure=3' in line]


def _activities_plan() -> str:
    """A document field dumped as YAML dumps it: one double-quoted scalar, its lines as `\\n`, folded at 80 columns."""
    kinds = ('Workshop', 'Challenge', 'Lunch', 'Hike')
    activities = [
        f'Activity {n}: {kinds[n % 4]} number {n}\n'
        '  - Description: A session where teams of the office meet and talk about things that matter to them.\n'
        f'  - Location: Room {chr(64 + n)}{" (booked by dana.kim@example.org)" if n == 9 else ""}\n'
        f'  - Date: 2031-{n:02d}-17\n  - Time: 10:00 - 12:00\n'
        for n in range(1, 13)
    ]
    plan = 'Team Plan\nThe objective of this document is to outline a series of activities.\n\n' + '\n'.join(activities)
    return yaml.safe_dump({'content': plan, 'filename': 'plan.docx', 'id_': '3'}, sort_keys=True)


@pytest.mark.parametrize(
    ('fact', 'activity', 'quoted'),
    [('dana.kim@example.org', 'Activity 9: ', ()), ('2031-04-17', 'Activity 4: ', ('2031-04-17',))],
    ids=['blind', 'quoted'],
)
def test_a_kept_line_of_a_folded_yaml_string_brings_the_line_its_text_is_under(
    fact: str, activity: str, quoted: tuple[str, ...]
) -> None:
    """A line kept from a document dumped as one YAML scalar (the booking's address, a date a later turn quotes)
    comes with the line where its activity's title starts: the dump folds the document's lines at 80 columns, so by
    indentation every folded line is under `content:` alone."""
    text = _activities_plan()
    lines = text.split('\n')
    assert lines[0].startswith('content: "Team Plan\\n') and lines[1].startswith('  \\nActivity 1: ')
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 6, quoted=quoted)
    line = next(line for line in kept if fact in line)
    assert any(activity in above for above in kept[: kept.index(line) + 1]), line


@pytest.mark.parametrize(
    'lines',
    [
        ['content: "' + '\\n ' * 300_000],
        ['content: "x\\n\\', *(['  \\ \\'] * 200_000), '  y"'],
        ['content: "' + ''.join('\\n' + ' ' * (n % 400) + 'x' for n in range(20_000)) + '"'],
    ],
    ids=['line-breaks', 'folded-blanks', 'deepening'],
)
def test_a_folded_yaml_string_is_read_in_linear_time(lines: list[str]) -> None:
    """A scalar of 300,000 line breaks on one line, one of 200,000 folded lines of blanks, one whose 20,000 lines go
    ever deeper: each is read once (a text line of blanks is counted, not built up and stripped again per line)."""
    started = time.monotonic()
    chains = enclosing(ContentKind.PROSE, lines)
    assert time.monotonic() - started < 5  # about 1 s for the longest
    assert len(chains) == len(lines)


def test_a_folded_yaml_string_reads_alike_in_crlf_and_an_unclosed_quote_places_nothing_after_it() -> None:
    """A dump written with CRLF line ends places its lines as with LF (a `\\` before `\\r` breaks the line, it escapes
    no `\\r`); a quote opened in a script block and never closed ends where the lines stop being deeper than its key,
    so the records after it keep their own places."""
    plan = _activities_plan().split('\n')
    assert enclosing(ContentKind.RECORDS, [f'{line}\r' for line in plan]) == enclosing(ContentKind.RECORDS, plan)
    lines = ['- id_: 1', '  name: build', '  run: |', '    echo: "start of a quote', '    make all']
    lines += [line for n in (2, 3) for line in (f'- id_: {n}', f'  name: job {n}', f'  owner: user{n}')]
    chains = enclosing(ContentKind.RECORDS, lines)
    assert chains[lines.index('  owner: user3')] == (lines.index('- id_: 3'), lines.index('  name: job 3'))
