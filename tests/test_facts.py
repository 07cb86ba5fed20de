"""What counts as a fact (`_facts`), when a later turn refers to one (`referred_facts`), and what stands out in a table (`_notable`)."""

from __future__ import annotations

from summarizer._facts import find_facts, mentions
from summarizer._notable import column_extremes, notable_rows, parse_number, rare_values, split_rows
from summarizer.eval import referred_facts


def _texts(text: str) -> list[str]:
    return [fact.text for fact in find_facts(text)]


def test_a_capitalized_common_word_is_no_name_but_a_rare_one_is() -> None:
    facts = _texts('Most hosts ran Kapeka. Of those, most were patched by Fancy Bear.')
    assert 'Most' not in facts  # the text also writes `most` in its prose: a sentence start
    assert 'Kapeka' in facts and 'Fancy Bear' in facts


def test_kinds_are_found_most_specific_first() -> None:
    kinds = {
        fact.text: fact.kind
        for fact in find_facts('CVE-2024-3400 hit 185.220.101.47 via https://x.example.com/a on 2025-03-14')
    }
    assert kinds == {
        'CVE-2024-3400': 'cve',
        '185.220.101.47': 'ip',
        'https://x.example.com/a': 'url',
        '2025-03-14': 'date',
    }


def test_a_short_number_counts_only_with_its_neighbour_word() -> None:
    content = 'In total, 47 organizations confirmed compromises; the report is dated 2024-04-30.'
    assert referred_facts(content, 'So 47 organizations were hit.') == ['47 organizations']
    assert referred_facts(content, 'A 30-day window, 47 in all.') == []  # a bare 47 or 30 matches by chance


def test_an_id_in_a_csv_row_is_mentioned_but_a_number_inside_a_larger_one_is_not() -> None:
    row = 'SO-2025-08-11873,2025-08-29,JP,48,380.00'
    assert mentions(row, 'SO-2025-08-11873') and mentions(row, '2025-08-29')
    assert not mentions('total 1,200 EUR', '200') and not mentions('10.1.7.7', '10')


def test_parse_number_reads_cells_with_units_and_assignments() -> None:
    assert [parse_number(cell) for cell in ('1,234.5', '$12', '45%', 'rt=0.52', 'n/a', 'GET')] == [
        1234.5,
        12,
        45,
        0.52,
        None,
        None,
    ]


def test_the_extremes_of_a_numeric_column_stand_out_unless_many_rows_share_them() -> None:
    cells = [(row, str(value)) for row, value in enumerate([5, 7, 3, 99, 6, 1, 8])]
    assert column_extremes(cells) == {3: 1.0, 5: 1.0}
    shared = [(row, str(value)) for row, value in enumerate([0, 4, 0, 31, 0, 2])]  # a count of 0 on many rows
    assert column_extremes(shared) == {3: 1.0}
    assert column_extremes([(row, word) for row, word in enumerate(['a', 'b', 'c', 'd'])]) == {}


def test_a_rare_status_among_many_common_ones_stands_out() -> None:
    lines = [f'10.0.0.{n % 9} GET /api/items/{n} 200 {n * 3} ms' for n in range(400)]
    lines[217] = '10.0.0.4 GET /api/items/217 429 3 ms'
    scores = notable_rows(split_rows(lines))
    assert 217 in scores and max(scores, key=lambda row: scores[row]) == 217
    assert rare_values([(row, 'ok') for row in range(100)]) == {}  # one value only: nothing is rare


def test_a_short_table_is_taken_in_at_a_glance() -> None:
    assert notable_rows([['a', '1'], ['b', '900']]) == {}
