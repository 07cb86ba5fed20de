"""Red-team checks of today's changes: a named record's repeated lines."""

from __future__ import annotations

from extractive_checks import summary_lines

from summarizer.extractive import ContentKind, detect_kind


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
