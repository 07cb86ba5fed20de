"""The embedded extractive summarizer: it keeps the budget and the shape, and spends the budget on what a reader quotes."""

from __future__ import annotations

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT

from summarizer._extractive import summarize
from summarizer._facts import mentions
from summarizer._quoted import plain_text
from summarizer._shape import JsonValue, shape_mismatch
from summarizer._tokens import content_tokens

FACTS_PREFIX = 'Key facts: '


@pytest.mark.parametrize('content', [BIG_TEXT, BIG_LIST, BIG_OBJECT], ids=['string', 'list', 'object'])
def test_the_summary_keeps_the_shape_and_the_budget_and_is_deterministic(content: JsonValue) -> None:
    summary = summarize(content, budget_tokens=200)
    assert shape_mismatch(content, summary) is None
    assert 100 < content_tokens(summary) <= 200
    assert summarize(content, budget_tokens=200) == summary


def test_it_writes_no_word_that_is_not_in_the_content() -> None:
    summary = summarize(BIG_TEXT, budget_tokens=150)
    assert isinstance(summary, str)
    body, _, facts_line = summary.partition(FACTS_PREFIX)
    assert all(line in BIG_TEXT for line in body.splitlines())
    assert all(fact in BIG_TEXT for fact in facts_line.split('; ') if fact)


def test_the_key_facts_line_carries_facts_no_kept_line_holds() -> None:
    summary = summarize(BIG_TEXT, budget_tokens=300)
    assert isinstance(summary, str) and FACTS_PREFIX in summary
    body, _, facts_line = summary.partition(FACTS_PREFIX)
    listed = facts_line.split('; ')
    assert len(listed) > 5
    assert not any(mentions(body, fact) for fact in listed)


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


def test_a_line_of_trouble_beats_routine_lines() -> None:
    lines = [f'[{n:04d}] compiled module src/pages/page{n}.tsx in {n % 90 + 10} ms' for n in range(300)]
    assert _keeps(
        lines,
        180,
        '[0180] Type error: Argument of type string is not assignable to parameter of type number',
        budget_tokens=200,
    )


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
    assert mentions(present, '91.215.85.142') and mentions(present, 'Stark Industries Solutions Ltd')


def test_a_record_holding_a_column_extreme_is_kept() -> None:
    records: list[JsonValue] = [
        {'id': 1000 + n, 'number': 4000 + n, 'title': f'Issue {n} about sync', 'comments': n % 9} for n in range(40)
    ]
    records[23] = {'id': 1023, 'number': 4821, 'title': 'Regression in 2.8.1: sync fails', 'comments': 31}
    summary = summarize(records, budget_tokens=120)
    assert isinstance(summary, list) and shape_mismatch(records, summary) is None
    assert any(isinstance(item, dict) and item['number'] == 4821 for item in summary)
