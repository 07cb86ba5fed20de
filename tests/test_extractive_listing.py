"""`grep -n` and `find` listings: whole lines, every file shown where it can, the quoted identifier kept."""

from __future__ import annotations

from extractive_checks import kept_lines, summary_lines

from summarizer.core._tokens import estimate_tokens
from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.outline import enclosing, indent

FILES = [f'src/billing/module_{n}.py' for n in range(8)]
GREP = '\n'.join(
    f'{path}:{line}:    total = apply_discount(order_{index}_{line}, rate=Decimal("0.{line % 9}"))  # keep totals in cents'
    for index, path in enumerate(FILES)
    for line in range(10, 400, 17)
)
FIND = '\n'.join(f'./assets/img/product_{n:04d}.webp' for n in range(400))


def test_grep_lines_are_whole_and_each_file_shows() -> None:
    assert detect_kind(GREP) is ContentKind.LISTING
    kept = summary_lines(GREP, budget_tokens=600)
    assert all(any(line.startswith(f'{path}:') for line in kept) for path in FILES)


def test_grep_keeps_the_quoted_identifier() -> None:
    summary = summarize(GREP, budget_tokens=300, quoted=('order_5_333',))
    assert isinstance(summary, str)
    kept_lines(GREP, summary)
    assert 'order_5_333' in summary  # on its line, or on the facts line where that line did not fit


def test_a_find_listing_keeps_whole_paths() -> None:
    assert detect_kind(FIND) is ContentKind.LISTING
    kept = summary_lines(FIND, budget_tokens=200, quoted=('./assets/img/product_0321.webp',))
    assert './assets/img/product_0321.webp' in kept
    assert len(kept) >= 8


def _grep_with_context(files: int) -> str:
    """`grep -n -C` over Python sources: per file, a run of context around matches inside a method whose
    signature runs over several lines, then `--` and a far run of the same file."""
    runs: list[str] = []
    for n in range(files):
        path = f'pkg/rebuilder_{n}.py'
        runs.append(
            '\n'.join(
                [
                    f'{path}-40-)',
                    f'{path}-41-',
                    f'{path}:42:from pkg.ast import parse_type_comment',
                    '--',
                    f'{path}-300-    def check_comment_{n}(',
                    f'{path}-301-        self,',
                    f'{path}-302-        node: Union["ast.Assign", "ast.With"],',
                    f'{path}-303-    ) -> Optional[NodeNG]:',
                    f'{path}-304-        comment = getattr(node, "type_comment", None)',
                    f'{path}-305-        if not comment:',
                    f'{path}-306-            return None',
                    f'{path}-307-        try:',
                    f'{path}:308:            tree_{n} = parse_type_comment(comment)',
                    f'{path}-309-        except SyntaxError:',
                    f'{path}-310-            return None',
                    '--',
                    f'{path}:520:        result_{n} = parse_type_comment(text)  # {"padding " * 6}',
                ]
            )
        )
    return '\n--\n'.join(runs)


def test_a_kept_grep_match_brings_the_definition_grep_printed_around_it() -> None:
    """A match inside a method comes with the method's `def` (and the line closing its signature), as a code line
    does: both are lines of its run, at consecutive numbers, with less indentation."""
    grep = _grep_with_context(6)
    assert detect_kind(grep) is ContentKind.LISTING
    kept = summary_lines(grep, budget_tokens=350, quoted=('tree_3',))
    match = 'pkg/rebuilder_3.py:308:            tree_3 = parse_type_comment(comment)'
    assert match in kept
    placing = ['pkg/rebuilder_3.py-300-    def check_comment_3(', 'pkg/rebuilder_3.py-303-    ) -> Optional[NodeNG]:']
    assert [line for line in kept if line in placing] == placing
    assert 'pkg/rebuilder_3.py-307-        try:' in kept  # the nearest parent too


def test_grep_runs_place_only_within_their_own_lines() -> None:
    """A line is placed by lines of its own run only: not across `--`, another file, or a gap in the numbers."""
    grep = _grep_with_context(2)
    lines = grep.split('\n')
    chains = enclosing(ContentKind.LISTING, lines)
    far = lines.index('pkg/rebuilder_0.py:520:        result_0 = parse_type_comment(text)  # ' + 'padding ' * 6)
    assert chains[far] == ()  # its run is itself: the method above it is in another run
    body = lines.index('pkg/rebuilder_1.py-305-        if not comment:')
    assert [lines[at] for at in chains[body]] == [
        'pkg/rebuilder_1.py-303-    ) -> Optional[NodeNG]:',
        'pkg/rebuilder_1.py-300-    def check_comment_1(',
    ]
    gap = ['a.py:10:    def run(self):', 'a.py:12:        return self.value']  # line 11 not printed: no run
    assert enclosing(ContentKind.LISTING, gap) == [(), ()]
    assert enclosing(ContentKind.LISTING, FIND.split('\n')[:5]) == [()] * 5


def test_a_context_line_with_no_parent_in_its_run_is_placed_by_its_match() -> None:
    """`grep -A`/`-B` lines inside a body whose `def` grep did not print: the match they were printed around
    places them, the nearest above (below, for the lines before a run's first match), unless they place lines
    of their own."""
    lines = [
        'tests/test_delete.py-336-        batches = ceil(len(objs) / batch_size)',
        'tests/test_delete.py:337:        # one query per batch to fast_delete the avatars',
        'tests/test_delete.py-338-        fetches = 1 + batches',
        'tests/test_delete.py-339-        if fetches > 2:',
        'tests/test_delete.py-340-            fetches -= 1',
        'tests/test_delete.py:341:        self.assertNumQueries(fetches, fast_delete)',
        'tests/test_delete.py-342-        queries = fetches + TEST_SIZE // CHUNK_SIZE',
    ]
    chains = enclosing(ContentKind.LISTING, lines)
    assert chains == [(1,), (), (1,), (), (3,), (), (5,)]  # `if` places its body; its body keeps its own parent


def _grep_after(runs: int) -> str:
    """`grep -n -A 12` over one test module: each match a comment deep in a test, its context the test's next lines."""
    return '\n--\n'.join(
        '\n'.join(
            [
                f'tests/delete/tests.py:{100 * n + 38}:        # one related fast delete per batch of avatars',
                *[
                    f'tests/delete/tests.py-{100 * n + 39 + k}-        step_{k} = run_batch({k}, size=100)'
                    for k in range(11)
                ],
                f'tests/delete/tests.py-{100 * n + 50}-        queries_{n} = fetches + TEST_SIZE // CHUNK_SIZE',
            ]
        )
        for n in range(runs)
    )


def test_a_kept_context_line_brings_the_match_it_was_printed_around() -> None:
    grep = _grep_after(6)
    assert detect_kind(grep) is ContentKind.LISTING
    kept = summary_lines(grep, budget_tokens=250, quoted=('queries_4',))
    assert 'tests/delete/tests.py-450-        queries_4 = fetches + TEST_SIZE // CHUNK_SIZE' in kept
    assert 'tests/delete/tests.py:438:        # one related fast delete per batch of avatars' in kept


def test_each_file_is_named_by_its_first_match_not_the_context_above_it() -> None:
    """The line that must show a file is its first match: `-40-)` above it says nothing of what grep found (the
    first file's may still come with the opening of the text)."""
    grep = _grep_with_context(6)
    kept = summary_lines(grep, budget_tokens=200)
    for n in range(6):
        assert f'pkg/rebuilder_{n}.py:42:from pkg.ast import parse_type_comment' in kept
    assert not [line for line in kept[3:] if line.endswith('-40-)')]


def test_a_line_number_too_long_for_an_int_is_no_grep_line() -> None:
    """A grep-like line whose number runs to thousands of digits (Python refuses to read past 4300) is read as
    no line of grep's: the listing around it is still summarized, and its runs still placed."""
    lines = [f'src/app.py:{n}:    total_{n} = {n}' for n in range(1, 120)]
    lines.insert(60, f'src/app.py:{"7" * 5000}:    boom')
    assert detect_kind('\n'.join(lines)) is ContentKind.LISTING
    assert enclosing(ContentKind.LISTING, lines)[60] == ()
    summary = summarize('\n'.join(lines), budget_tokens=300)
    assert isinstance(summary, str)
    assert 'src/app.py:1:    total_1 = 1' in kept_lines('\n'.join(lines), summary)


def _grep_groups(groups: int) -> str:
    """`grep -n -B2 -A15` in one test file: each test's def a match, with its context; groups between `--` lines."""
    runs: list[str] = []
    for group in range(groups):
        start = 100 + group * 40
        run = [
            f'tests/delete/tests.py-{start + k}-        obj_{group}_{k} = Model.objects.create(name="row {k}")'
            for k in range(2)
        ]
        run.append(f'tests/delete/tests.py:{start + 2}:    def test_fast_delete_{group}(self):')
        run += [
            f'tests/delete/tests.py-{start + 3 + k}-        self.assertNumQueries({k}, Model.objects.filter(pk=obj_{group}_{k % 2}.pk).delete)'
            for k in range(15)
        ]
        runs.append('\n'.join(run))
    return '\n--\n'.join(runs)


def test_no_group_separator_stands_alone_between_two_markers() -> None:
    """`grep -C` prints `--` between groups: kept between two markers, it says nothing they do not."""
    text = _grep_groups(10)
    for budget in (90, 200, 300, 400):
        summary = summarize(text, budget_tokens=budget)
        assert isinstance(summary, str)
        lines = summary.split('\n')
        alone = [
            line
            for before, line, after in zip(lines, lines[1:], lines[2:])
            if line == '--' and before[0] == after[0] == '…'
        ]
        assert alone == [], budget


def test_a_group_separator_between_two_kept_lines_stays() -> None:
    """Between a group's kept last line and the next group's kept first line, `--` costs less than a marker."""
    text = _grep_groups(3).replace('obj_0_0.pk).delete)\n--', 'obj_0_0.pk).delete)  # last_of_group_zero\n--')
    summary = summarize(text, budget_tokens=150, quoted=('last_of_group_zero', 'obj_1_0'))
    assert isinstance(summary, str)
    lines = summary.split('\n')
    at = lines.index('--')
    assert lines[at - 1].endswith('# last_of_group_zero') and 'obj_1_0 = ' in lines[at + 1]


def test_a_blank_line_of_context_is_never_kept_for_itself() -> None:
    """`tests.py-446-` (a blank line grep printed after a match) names a file and a number: between two markers it
    said nothing, and it was kept as a way in for the match over it, which is a choice of its own."""
    runs = []
    for group in range(12):
        start = 430 + group * 20
        runs.append(
            '\n'.join(
                [
                    f'tests/bulk_create/tests.py:{start}:    def test_update_conflicts_{group}(self):',
                    f'tests/bulk_create/tests.py-{start + 1}-        with self.assertRaisesMessage(ValueError, msg_{group}):',
                    f'tests/bulk_create/tests.py-{start + 2}-            Country.objects.bulk_create(self.data, batch_size={group + 2},',
                    f'tests/bulk_create/tests.py:{start + 3}:                update_conflicts=True,',
                    f'tests/bulk_create/tests.py-{start + 4}-            )',
                    f'tests/bulk_create/tests.py-{start + 5}-',
                ]
            )
        )
    text = '\n--\n'.join(runs)
    for budget in (120, 200, 300):
        summary = summarize(text, budget_tokens=budget, quoted=('update_conflicts',))
        assert isinstance(summary, str)
        kept_lines(text, summary)
        assert not [line for line in summary.split('\n') if line.endswith('-')], budget


def test_grep_keeps_its_matches_before_the_names_of_its_context() -> None:
    """`grep -n -A6 flush_batch`: each match (`path:12:`) is what was searched for; a line of the context under it
    holding a name of its own (`self.attempts_queue_b`) comes after the matches, even once their names are all kept."""
    lines: list[str] = []
    for file in ('writer', 'queue', 'store'):
        path = f'src/app/{file}.py'
        for start in (40, 120):
            lines += [f'{path}:{start}:        if self.pending and self.flush_batch(self.pending):']
            lines += [
                f'{path}-{start + k}-            self.attempts_{file}_{"abcdef"[k - 1]} = self.retry_policy.initial_attempts'
                for k in range(1, 7)
            ]
            lines.append('--')
    text = '\n'.join(lines[:-1])
    assert detect_kind(text) is ContentKind.LISTING
    kept = summary_lines(text, budget_tokens=260, quoted=('flush_batch',))
    matches = [line for line in lines if ':40:' in line or ':120:' in line]
    assert set(matches) <= set(kept)


_FOLDERS = ('billing', 'orders', 'shipping', 'catalog', 'accounts', 'reports', 'search', 'admin', 'mailers', 'jobs')
_MODULES = tuple(
    f'{name}{variant}'
    for name in ('client', 'models', 'views', 'tasks', 'forms')
    for variant in ('', '_v2', '_old', '_new', '_test')
)


def _tree() -> str:
    lines = ['shop', *(f'├── _helper_{n}.py' for n in range(40))]
    for number, folder in enumerate(_FOLDERS):
        last_folder = number == len(_FOLDERS) - 1
        lines.append(f'{"└" if last_folder else "├"}── {folder}')
        bar = ' ' if last_folder else '│'
        for position, module in enumerate(_MODULES):
            lines.append(f'{bar}   {"└" if position == len(_MODULES) - 1 else "├"}── {module}_{number}.py')
    return '\n'.join([*lines, '', f'{len(_FOLDERS)} directories, {40 + len(_FOLDERS) * len(_MODULES)} files'])


TREE = _tree()
"""`tree`'s drawing of a project: 40 files, then folders named by a word, 25 files each drawn under its folder."""


def test_a_file_kept_from_a_drawn_tree_comes_with_its_folder() -> None:
    """The drawing is indentation: `│   ├── views_1.py` is in `├── orders`. Read as text, the summary kept files
    with `… 31 lines omitted …` where their folder was, and a reader could not tell where they are."""
    summary = summarize(TREE, budget_tokens=estimate_tokens(TREE) // 4)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    files = [line for line in kept if line.endswith('.py') and '_helper_' not in line]
    assert files
    for line in files:
        folder = _FOLDERS[int(line.rsplit('_', 1)[1].removesuffix('.py'))]
        folders_above = [row for row in kept[: kept.index(line)] if row.split('── ')[-1] in _FOLDERS]
        assert folders_above and folders_above[-1].endswith(f'── {folder}'), (line, summary)


def test_the_drawing_of_a_tree_is_indentation_and_a_border_places_nothing() -> None:
    drawn = ['├── module_3', '│   ├── handler_3_7.py', '    └── x.py', '│ ├─┬ debug@4.4.3', '│\xa0\xa0 └── y.py']
    assert [indent(line) for line in drawn] == [4, 8, 8, 6, 8]
    assert indent('┣━━━━━┫') == -1
    lines = TREE.split('\n')
    placing = enclosing(detect_kind(TREE), lines)[lines.index('│   ├── views_1.py')]
    assert placing[0] == lines.index('├── orders')


def test_a_box_opens_what_is_under_it_and_a_rule_stands_at_its_blanks() -> None:
    """Terraform boxes each error (`╷`, `│ Error: ...`, `│   on main.tf line 12:`, `╵`): the place is under its error,
    not the error under the lines before the box. A rich rule with a title (`──── Training ────`) is a heading at the
    left edge, not a line deeper than all the text above it."""
    plan = [
        'aws_iam_role.ci: Refreshing state... [id=ci]',
        'Planning failed. Terraform encountered an error while generating this plan.',
        '',
        '╷',
        '│ Error: Unsupported argument',
        '│ ',
        '│   on main.tf line 12, in resource "aws_s3_bucket" "logs":',
        '│   12:   acl_policy = "private"',
        '╵',
    ]
    assert [
        indent(line) for line in ('╷', '│ Error: Unsupported argument', '──── Training ────', '╭── Traceback ──╮')
    ] == [
        0,
        2,
        0,
        0,
    ]
    chains = enclosing(ContentKind.SHELL, plan)
    assert plan.index('│ Error: Unsupported argument') in chains[plan.index(plan[6])]
    assert not set(chains[plan.index('│ Error: Unsupported argument')]) & {0, 1}
