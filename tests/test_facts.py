"""What counts as a fact (`_facts`), when a later text refers to one (`referred_facts`), and what stands out in a table (`_notable`)."""

from __future__ import annotations

import random
import time

import pytest

from summarizer.core._facts import (  # pyright: ignore[reportPrivateUsage]
    MAX_PARTED,
    Fact,
    _tokens,
    all_parts,
    fact_kinds,
    find_facts,
    holds_token,
    mentions,
    name_parts,
    referred_facts,
    token_set,
    tokens,
)
from summarizer.extractive.notable import column_extremes, notable_rows, parse_number, rare_values, split_rows


def _texts(text: str) -> list[str]:
    return [fact.text for fact in find_facts(text)]


def _referred(content: str, later: str) -> list[str]:
    return referred_facts(content, token_set(later).__and__)


def test_plain_words_are_no_facts_however_written() -> None:
    text = 'Please note: Loop over Assumptions. Contains PLEASE, read-only and/or e.g. the Parser of it.'
    assert _texts(text) == []


@pytest.mark.parametrize(
    ('text', 'fact', 'kind'),
    [
        ('it calls load_config() first', 'load_config', 'identifier'),
        ('see Parser.parse_file for it', 'Parser.parse_file', 'identifier'),
        ('then os.replace(tmp, path)', 'os.replace', 'dotted'),
        ('a ToolReturnPart, an HTTPError', 'ToolReturnPart', 'identifier'),
        ('a ToolReturnPart, an HTTPError', 'HTTPError', 'identifier'),
        ('uses std::vector here', 'std::vector', 'dotted'),
        ('raise ValueError("field required")', 'field required', 'quoted'),
        ('run `make test now` again', 'make test now', 'quoted'),
        ('edit /etc/hosts and ~/.bashrc', '/etc/hosts', 'path'),
        ('edit /etc/hosts and ~/.bashrc', '~/.bashrc', 'path'),
        ('in src/app/main.py:88:def f', 'src/app/main.py', 'path'),
        ('in src/app/main.py:88:def f', 'main.py', 'dotted'),
        ('see https://example.com/a?b=1.', 'https://example.com/a?b=1', 'url'),
        ('mail ops@example.com now', 'ops@example.com', 'email'),
        ('pass --min-chars 4000', '--min-chars', 'flag'),
        ('pass --min-chars 4000', '4000', 'number'),
        ('total 1,234,567.50 EUR', '1,234,567.50', 'number'),
        ('host 10.1.7.7 port 8080', '10.1.7.7', 'number'),
        ('fixes CVE-2024-3094 in #1234', 'CVE-2024-3094', 'id'),
        ('fixes CVE-2024-3094 in #1234', '#1234', 'id'),
        ('at 2025-03-14T10:00:00Z, commit 7f3a9c2e', '2025-03-14T10:00:00Z', 'id'),
        ('at 2025-03-14T10:00:00Z, commit 7f3a9c2e', '7f3a9c2e', 'id'),
        ('id 3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5b', '3f2b8c1e-9a4d-4e6f-8b7a-0c1d2e3f4a5b', 'id'),
        ('started 10:30:05 on x86_64', '10:30:05', 'number'),
        ('started 10:30:05 on x86_64', 'x86_64', 'id'),
    ],
)
def test_identifier_like_tokens_are_facts(text: str, fact: str, kind: str) -> None:
    assert Fact(fact, kind) in find_facts(text)


def test_short_numbers_apostrophes_and_one_quoted_word_are_no_facts() -> None:
    facts = _texts("it's 42 of 99 in 'name' and \"id\", don't")
    assert facts == []


def test_an_escape_glues_no_letter_to_the_token_after_it() -> None:
    assert _texts('line one\\nload_config\\tos.replace') == ['load_config', 'os.replace']


def test_a_text_holds_a_fact_whole_only() -> None:
    row = 'SO-2025-08-11873,2025-08-29,JP,48,380.00'
    assert mentions(row, 'SO-2025-08-11873') and mentions(row, '2025-08-29')
    assert not mentions('order 1425 shipped', '142') and not mentions('blocked 10.1.7.7', '10.1.7')
    assert not mentions('total 1,200 EUR', '200') and not mentions('call load_config_v2', 'load_config')
    assert mentions('I fixed /repo/src/main.py.', 'main.py') and mentions('see `parse_file`', 'parse_file')


def test_only_facts_a_later_text_holds_are_referred_to_in_order() -> None:
    content = 'Host 185.220.101.47 ran build 7f3a9c2e via run_job() on 2025-03-14 for Acme Corp.'
    later = 'We blocked 185.220.101.47; run_job failed, Acme Corp said.'
    assert _referred(content, later) == ['185.220.101.47', 'run_job']


def test_a_path_is_referred_to_once_by_its_longest_part_a_later_turn_holds() -> None:
    content = 'M /testbed/django/db/models/query.py\nM /testbed/django/utils/text.py'
    assert _referred(content, 'Open django/db/models/query.py now') == ['django/db/models/query.py']
    assert _referred(content, 'both: /testbed/django/utils/text.py and query.py') == [
        'query.py',
        '/testbed/django/utils/text.py',
    ]


def test_a_pytest_node_id_holds_its_file_and_its_test() -> None:
    content = 'FAILED tests/api/test_orders.py::TestRefund::test_partial_refund - KeyError\nPASSED tests/test_cli.py::test_help'
    assert _referred(content, 'rerun pytest tests/api/test_orders.py -x') == ['tests/api/test_orders.py']
    assert _referred(content, 'then `-k test_partial_refund` and test_cli.py') == ['test_partial_refund', 'test_cli.py']
    assert {'tests/api/test_orders.py', 'TestRefund::test_partial_refund', 'test_partial_refund'} <= set(
        _texts(content)
    )


def test_a_rust_path_holds_its_last_name() -> None:
    assert _referred('error in crate::io::read_all at line 912', 'read_all failed') == ['read_all']
    assert 'vector' not in _texts('uses std::vector here')  # a plain word stays no fact as a part


def test_a_quoted_string_is_referred_to_only_when_quoted_later() -> None:
    content = 'E   AssertionError: "expected a list" at tests/test_x.py'
    assert _referred(content, 'the message "expected a list" comes from tests/test_x.py') == [
        'tests/test_x.py',
        'expected a list',
    ]
    assert _referred(content, 'it expected a list') == []


def test_a_long_text_is_read_in_one_pass_of_distinct_pieces() -> None:
    line = 'worker-{n} handled req_{n} in 12 ms at /srv/app/handler.py line 88 with status 200\n'
    content = ''.join(line.format(n=n) for n in range(50_000))  # 4 MB
    later = 'Look at req_49999 and worker-31337; also handler.py.'
    assert _referred(content, later) == ['handler.py', 'worker-31337', 'req_49999']


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


def test_the_rare_states_of_a_table_under_its_header_stand_out() -> None:
    """`kubectl get pods`: 180 pods Running under a header, two in CrashLoopBackOff, one Pending, one ImagePullBackOff.
    The header's `STATUS` is no fifth state (that many would be no status column), and a state seen twice is rare."""
    lines = ['NAMESPACE   NAME            READY   STATUS   RESTARTS   AGE']
    lines += [f'default     web-{n:04d}-x{n % 7}   1/1     Running   0          {n % 30 + 1}d' for n in range(180)]
    broken = {37: 'CrashLoopBackOff', 121: 'CrashLoopBackOff', 88: 'ImagePullBackOff', 150: 'Pending'}
    for row, status in broken.items():
        lines[row] = f'default     web-{row:04d}-x{row % 7}   0/1     {status}   0          {row % 30 + 1}d'
    scores = notable_rows(split_rows(lines))
    assert set(scores) == set(broken)  # not the header, nor a Running pod however its name reads
    headless = notable_rows(split_rows(lines[1:]))  # a first row with digits is a row: its state counts
    assert {row - 1 for row in broken} == set(headless)


def test_a_short_table_is_taken_in_at_a_glance() -> None:
    assert notable_rows([['a', '1'], ['b', '900']]) == {}


@pytest.mark.parametrize('seed', range(3))
def test_all_parts_are_the_name_parts_of_each_token(seed: int) -> None:
    """Cut in one pass for all tokens (none at all without a `/`, `.` or `:`): what cutting each gives."""
    rng = random.Random(seed)
    pieces = ['src', 'app', 'py', 'x_1', 'Parser', 'parse', '10', 'v2', 'test_login', 'ops', 'é']
    for _ in range(500):
        tokens = [
            ''.join(rng.choice(pieces) + rng.choice(['', '', '', '/', '.', '::', '-', '_']) for _ in range(4))
            for _ in range(rng.randint(0, 6))
        ]
        assert set(all_parts(tokens)) == {part for token in tokens for part in name_parts(token)}, tokens


@pytest.mark.parametrize('seed', range(3))
def test_tokens_in_no_order_are_those_read_in_order(seed: int) -> None:
    """Pieces of ASCII letters alone are taken as their own token, unread: the tokens the pattern reads in them."""
    rng = random.Random(seed)
    words = ['the', 'Parser', 'x', 'Zürich', 'café', 'ß', 'load_config', 'v2', 'a.b', '--flag', '#12', 'http', 'ÀB']
    marks = ['', '', '', '.', ',', ':', '/', '-', '"', "'", '`', '(', ')', '\\n', 'é', '1']
    for _ in range(500):
        text = ''.join(
            rng.choice(marks) + rng.choice(words) + rng.choice(marks) + rng.choice([' ', '\n', '\t', '\u2003', ''])
            for _ in range(rng.randint(0, 12))
        )
        assert tokens(text) == set(_tokens(text)), text
        assert holds_token(text) == bool(tokens(text)), text


def test_a_token_too_long_for_a_name_has_no_parts_and_is_read_in_linear_time() -> None:
    """A tool output's `a.a.a...` of 50 KB is one token of 25,000 trailing parts, each nearly as long: 80 s to judge.
    No name or path is over `MAX_PARTED` characters; one under it keeps its parts."""
    name = '.'.join(f'module{n}' for n in range(28))  # 241 characters
    assert len(name) <= MAX_PARTED and name_parts(name)[-1] == 'module27'
    assert name_parts('x' + '.a' * MAX_PARTED) == []
    started = time.process_time()
    text = 'see ' + 'a.' * 25_000 + 'b and ' + '/a' * 25_000
    assert fact_kinds(text) and token_set(text)
    assert time.process_time() - started < 2  # about 0.01 s
