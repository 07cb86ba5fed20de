"""What the conversation names brings whole, and no more: a named record whose lines repeat, a record list with keys
after it or indented under its key, a named property read with CRLF line ends or from its setter on."""

from __future__ import annotations

import time
from typing import Any

import pytest
from extractive_checks import summary_lines
from test_extractive_code import _account, _numbered  # pyright: ignore[reportPrivateUsage]

from summarizer.extractive import ContentKind, detect_kind
from summarizer.extractive.tree import _Tree  # pyright: ignore[reportPrivateUsage]


def _mailbox(copies: int) -> str:
    """Twenty mails, each body signed `> Sent from my phone`; mail 7's body holds that line `copies` times."""
    lines: list[str] = []
    for n in range(20):
        lines += ['- attachments: []', f"  body: 'Hi Emma, the invoice INV-{4400 + n} is due on the {n + 3}th."]
        lines += ['    > Sent from my phone'] * (copies if n == 7 else 1)
        lines += ["    Best'", f"  id_: '{n}'", f'  sender: sender{n}@example.com', f'  subject: Invoice reminder {n}']
    return '\n'.join(lines)


def test_a_named_records_repeated_line_does_not_crowd_out_the_other_records() -> None:
    """A named mail whose body repeats a line 400 times: its body comes, but not 400 copies of the line in place of
    every other mail's id (unnamed, the copies fold as repeats)."""
    text = _mailbox(400)
    assert detect_kind(text) is ContentKind.RECORDS
    for budget in (250, 400):
        blind = summary_lines(text, budget_tokens=budget)
        named = summary_lines(text, budget_tokens=budget, quoted=('sender7@example.com',))
        assert any('INV-4407' in line for line in named)
        assert named.count('    > Sent from my phone') <= 3, budget
        ids = sum('id_:' in line for line in blind)
        assert sum('id_:' in line for line in named) >= ids - 1, budget


def test_a_named_property_of_a_crlf_file_brings_each_accessors_body() -> None:
    """A file read with Windows line ends (`@balance.setter\\r`): the setter and deleter still define no name anew, so a
    turn naming `balance` brings the bodies of all three accessors, as with `\\n` line ends (a budget with no room for
    them unless named: each `\\r` costs a little)."""
    for text, budget in (('\n'.join(_account('Savings')), 160), (_numbered(_account('Savings')), 170)):
        crlf = text.replace('\n', '\r\n')
        assert detect_kind(crlf) is ContentKind.CODE
        blind = '\n'.join(summary_lines(crlf, budget_tokens=budget))
        assert '.sum_cents(' not in blind and '.adjust_to(' not in blind
        named = '\n'.join(summary_lines(crlf, budget_tokens=budget, quoted=('balance',)))
        assert '.sum_cents(' in named and '.adjust_to(' in named and '.close_account(' in named


def _files_and_readme() -> tuple[list[str], str]:
    """Fifteen file records, a `readme: |` block after them (each step naming its batch), then folder records."""
    lines = ['count: 15', 'files:']
    for n in range(15):
        lines += [f"- id_: '{n}'", f'  filename: report-{n}.xlsx', f'  owner: owner{n}@example.com']
        lines += [
            f'  size: {1000 + n * 37}',
            f"  content: 'quarterly figures for region {n}, reviewed by team {n % 5}'",
        ]
    lines += ['readme: |', *(f'  step {k}: run the importer with batch B-{k} then check the ledger' for k in range(40))]
    lines.append('folders:')
    for n in range(15):
        lines += [f"- id_: 'f{n}'", f'  name: folder-{n}', f'  owner: owner{n}@example.com']
    return lines, '\n'.join(lines)


def test_what_follows_a_list_of_records_names_no_record_of_it() -> None:
    """A turn quoting `B-17`, a step of the `readme: |` block after the files, names no file: the last file before
    the block (report-14) is not kept whole for it, nor does it cost the other records their ids."""
    lines, text = _files_and_readme()
    assert detect_kind(text) is ContentKind.RECORDS
    last_file = set(lines[lines.index("- id_: '14'") : lines.index('readme: |')])
    blind = summary_lines(text, budget_tokens=300)
    named = summary_lines(text, budget_tokens=300, quoted=('B-17',))
    assert '  step 17: run the importer with batch B-17 then check the ledger' in named
    assert len(last_file & set(named)) <= len(last_file & set(blind))
    assert sum('id_:' in line for line in named) >= sum('id_:' in line for line in blind) - 1


def test_a_read_from_a_propertys_setter_on_names_the_property() -> None:
    """`cat -n` from line 107 of a file, below the `balance` getter: the setter (and the deleter) are the property's
    only definitions read, so a turn naming `balance` brings their bodies, as it did the setter's before accessors
    were told apart."""
    for part in (_account('Savings')[6:10] + _account('Savings')[14:], _account('Savings')[6:]):
        text = '\n'.join(f'{number:>6}\t{line}' for number, line in enumerate(part, start=107))
        assert detect_kind(text) is ContentKind.CODE
        blind = '\n'.join(summary_lines(text, budget_tokens=100))
        assert '.adjust_to(' not in blind
        named = '\n'.join(summary_lines(text, budget_tokens=100, quoted=('balance',)))
        assert '.adjust_to(' in named and ('.close_account(' in named or '.close_account(' not in text)


def _drive() -> str:
    """Twelve files; a party plan that names `Chocolate` once, and a recipe that names `Chocolate Chip Cookies`."""
    lines: list[str] = []
    for n in range(12):
        body = {
            4: ['Party plan', '  - Desserts: Chocolate cake, fruit tart', '  - Games: karaoke'],
            9: ['Recipes', '  Chocolate Chip Cookies', '  - 1 cup butter', '  - 2 eggs', '  - 2 cups chips'],
        }.get(n, [f'Notes {n}', f'  - item {n}a', f'  - item {n}b'])
        lines += [f"- content: '{body[0]}", *(f'    {line}' for line in body[1:]), "    '"]
        lines += [f'  filename: file-{n}.docx', f"  id_: '{n}'", f'  size: {100 + n}']
    return '\n'.join(lines)


def test_a_record_another_outnames_is_not_the_one() -> None:
    """Asked for the Chocolate Chip Cookies recipe, the recipe comes whole, not the party plan that says `Chocolate`
    once: a record holding fewer of the task's names than another is not the one it names."""
    text = _drive()
    assert detect_kind(text) is ContentKind.RECORDS
    lines = summary_lines(text, budget_tokens=150, quoted=('Chocolate', 'Chip', 'Cookies'))
    assert {'      - 1 cup butter', '      - 2 eggs', '      - 2 cups chips'} <= set(lines)
    assert '      - Games: karaoke' not in lines
    alone = summary_lines(text, budget_tokens=150, quoted=('Chocolate',))  # held by two: each may be the one
    assert '      - Games: karaoke' in alone and '      - 2 eggs' in alone


def test_the_record_a_name_picks_out_comes_whole_from_a_list_indented_under_its_key() -> None:
    """The drive with its files indented under `files:` (as a YAML dump with `indent=2` writes them): the recipe
    the task names comes whole, as from a list at the left edge."""
    text = 'count: 12\nfiles:\n' + '\n'.join(f'  {line}' for line in _drive().split('\n'))
    assert detect_kind(text) is ContentKind.RECORDS
    lines = summary_lines(text, budget_tokens=160, quoted=('Chocolate', 'Chip', 'Cookies'))
    assert {'        - 1 cup butter', '        - 2 eggs', '        - 2 cups chips'} <= set(lines)


def _two_records_naming(count: int) -> tuple[str, tuple[str, ...]]:
    """Twenty mails; the first two list the same `count` ids (but one of each), all quoted."""
    ids = [f'ID-{n:06d}' for n in range(count)]
    first, second = ids, ids[:-1]
    lines: list[str] = []
    for n, refs in enumerate([[*first, 'ID-AAAAAA'], [*second, 'ID-BBBBBB'], *([f'X-{n}'] for n in range(2, 20))]):
        lines += [f"- id_: '{n}'", *(f'  r{i}: {ref}' for i, ref in enumerate(refs))]
        lines += [f'  sender: s{n}@example.com', f'  subject: Mail {n}']
    return '\n'.join(lines), (*ids, 'ID-AAAAAA', 'ID-BBBBBB')


def _weighing_seconds(monkeypatch: pytest.MonkeyPatch, text: str, quoted: tuple[str, ...]) -> float:
    """CPU seconds `_Tree._weigh_named_records` takes in summarizing the records `text` with `quoted` facts."""
    assert detect_kind(text) is ContentKind.RECORDS
    weigh = _Tree._weigh_named_records  # pyright: ignore[reportPrivateUsage]
    spent: list[float] = []

    def timed(tree: _Tree, *args: Any) -> None:
        started = time.process_time()
        weigh(tree, *args)
        spent.append(time.process_time() - started)

    monkeypatch.setattr(_Tree, '_weigh_named_records', timed)
    summary_lines(text, budget_tokens=300, quoted=quoted)
    return sum(spent)


def test_records_sharing_thousands_of_names_are_weighed_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two records holding the same 12,000 quoted ids but one each: each record was compared with the other once per
    id they share, 12,000 subset tests of 12,000 ids (5x two records of ids of their own at 16,000, and growing)."""
    took = _weighing_seconds(monkeypatch, *_two_records_naming(12_000))
    # a stall guard, not a measure of speed (that is bench/'s): about 0.3 s here, 1.6 s and growing before
    assert took < 1.2, took


def test_records_are_read_for_thousands_of_quoted_tokens_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 records, a conversation quoting 2,000 tokens none holds: each record was searched for each token
    (20 million substring tests, 24x the step before records were read whole), not read for its tokens once."""
    text = '\n'.join(f"- id_: '{n}'\n  title: Subject {n}\n  sender: u{n}@example.com" for n in range(10_000))
    took = _weighing_seconds(monkeypatch, text, tuple(f'zz{n}_x' for n in range(2000)))
    # a stall guard, not a measure of speed (that is bench/'s): about 0.3 s here, 3.1 s before
    assert took < 1.5, took
