"""What counts as a fact kept in context: in its line, with its key, beside what places it; never a list of tokens."""

from __future__ import annotations

import json

from summarizer.core import JsonValue
from summarizer.eval._context import Context, lines_holding, outline, reader_text
from summarizer.eval._metrics import score_return

LISTING = """- filename: feedback.xlsx
  id_: "0"
  last_modified: 2024-05-08 10:30:00
  owner: emma.johnson@bluesparrowtech.com
- filename: budget-2024.xlsx
  id_: "1"
  last_modified: 2024-05-10 09:15:00
  owner: david.lee@bluesparrowtech.com"""
LONG = (
    'The migration ran for 3 hours and '
    + 'then it copied every table again, ' * 6
    + 'finally failing at step 4471 of the batch.'
)


def kept(fact: str, original: JsonValue, summary: JsonValue, *, own_words: bool = False) -> bool:
    return Context.of(summary).keeps(fact, lines_holding(fact, reader_text(original).split('\n')), own_words=own_words)


def test_a_list_of_bare_tokens_is_present_but_not_kept() -> None:
    summary = '… 8 lines omitted …\nKey facts: 2024-05-10; budget-2024.xlsx; david.lee@bluesparrowtech.com'
    assert not kept('2024-05-10', LISTING, summary)
    assert not kept('budget-2024.xlsx', LISTING, summary)
    tally, lost = score_return(
        original=LISTING,
        summary=summary,
        referred=('2024-05-10', 'budget-2024.xlsx'),
        tokens_before=100,
        tokens_after=20,
        summarized=True,
    )
    assert (tally.facts_present, tally.facts_kept) == (2, 0) and lost == ['2024-05-10', 'budget-2024.xlsx']


def test_a_kept_line_keeps_its_facts() -> None:
    summary = (
        '… 4 lines omitted …\n- filename: budget-2024.xlsx\n… 1 line omitted …\n  last_modified: 2024-05-10 09:15:00'
    )
    assert kept('2024-05-10', LISTING, summary)
    assert kept('budget-2024.xlsx', LISTING, summary)
    assert not kept('2024-05-08', LISTING, summary)


def test_a_short_line_counts_only_as_a_line_of_its_own() -> None:
    """`last_modified: 2024-05-10 09:15:00` is shorter than 20 characters either side: all of it, alone."""
    assert not kept('2024-05-10', LISTING, 'see last_modified: 2024-05-10 09:15:00 and more')
    assert not kept('2024-05-10', LISTING, '2024-05-10 09:15:00')


def test_a_window_of_a_long_line_keeps_the_fact_with_twenty_characters_either_side() -> None:
    at = LONG.index('4471')
    assert kept('4471', LONG, '… ' + LONG[at - 20 :])  # fewer than 20 after it: up to the line's end
    assert not kept('4471', LONG, '… ' + LONG[at - 10 :])
    assert not kept('4471', LONG, '… ' + LONG[at - 20 : -2] + ' …')
    assert kept('3', LONG, LONG[:45] + ' …')
    assert not kept('3', LONG, LONG[:40] + ' …')


def test_a_json_scalar_is_kept_with_its_key() -> None:
    original: JsonValue = {'status': 'open', 'exit_code': 137, 'runner': 'ci-7f3a9c2e'}
    assert kept('137', original, {'status': '…', 'exit_code': 137, 'runner': '…'})
    assert not kept('137', original, {'status': 'exit code 137', 'exit_code': 1, 'runner': '…'})


def test_a_real_models_own_words_count_where_they_share_two_words_of_the_line() -> None:
    summary = 'The batch failed at step 4471 after copying tables.'
    assert kept('4471', LONG, summary, own_words=True)
    assert not kept('4471', LONG, 'Facts: 4471, 3 hours', own_words=True)
    assert not kept('4471', LONG, summary)  # the embedded model writes no words of its own


def test_orphans_are_kept_lines_whose_enclosing_line_was_dropped() -> None:
    orphaned = '… 6 lines omitted …\n  last_modified: 2024-05-10 09:15:00\n… 1 line omitted …'
    placed = (
        '… 4 lines omitted …\n- filename: budget-2024.xlsx\n… 1 line omitted …\n  last_modified: 2024-05-10 09:15:00'
    )
    assert (outline(LISTING, orphaned).kept_lines, outline(LISTING, orphaned).orphans) == (1, 1)
    assert (outline(LISTING, placed).kept_lines, outline(LISTING, placed).orphans) == (2, 0)
    shape = outline(LISTING, orphaned)
    assert shape.marker_chars == len('… 6 lines omitted …\n') + len('… 1 line omitted …\n') - 1 + 1
    assert 0 < shape.marker_chars < shape.chars


def test_a_line_written_in_every_record_is_matched_where_the_markers_lead() -> None:
    """`- attachments: []` opens every record: the one kept is the one the omitted lines lead to."""
    records = '\n'.join(f"- attachments: []\n  id_: '{n}'\n  subject: note {n}" for n in range(6))
    summary = "… 9 lines omitted …\n- attachments: []\n  id_: '3'\n… 8 lines omitted …"
    assert (outline(records, summary).kept_lines, outline(records, summary).orphans) == (2, 0)
    orphaned = "… 10 lines omitted …\n  id_: '3'\n… 8 lines omitted …"
    assert outline(records, orphaned).orphans == 1


def test_a_string_holding_json_is_read_as_that_json() -> None:
    """Its escapes glued an `n` to the fact after a line break, and its strings' lines were no lines."""
    original = json.dumps({'body': 'Stack ends in x.py:\nexpiry_date = mo.group(1)\nmore text that is long\nand more'})
    summary = json.dumps({'body': 'Stack ends in x.py:\nexpiry_date = mo.group(1)\n… 2 lines omitted …'})
    assert kept('expiry_date', original, summary)
    records = json.dumps([{'id': n, 'msg': f'error in line {n}'} for n in range(50)], indent=2)
    shown = json.dumps([{'id': 7, 'msg': 'error in line 7'}, '… 49 items omitted …'], indent=2)
    shape = outline(records, shown)
    assert (shape.kept_lines, shape.orphans) == (2, 0) and shape.marker_chars == len('… 49 items omitted …') + 1


def test_a_diffs_lines_stand_under_their_hunk_header() -> None:
    diff = """diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,8 +1,9 @@ def main():
+    x = 1
     step_1()
     step_2()"""
    placed = 'diff --git a/app.py b/app.py\n… 2 lines omitted …\n@@ -1,8 +1,9 @@ def main():\n+    x = 1\n     step_1()\n… 1 line omitted …'
    assert outline(diff, placed).orphans == 0
    assert outline(diff, '… 4 lines omitted …\n+    x = 1\n     step_1()\n… 1 line omitted …').orphans == 2
