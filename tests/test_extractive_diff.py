"""Diffs: every file header and hunk header stays, lines verbatim, the quoted identifier kept."""

from __future__ import annotations

from extractive_checks import kept_lines, summary_lines

from summarizer.core import content_tokens
from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.outline import enclosing


def _file_diff(path: str, hunks: int) -> list[str]:
    lines = [
        f'diff --git a/{path} b/{path}',
        'index 4e1f0a2..9c3b7d1 100644',
        f'--- a/{path}',
        f'+++ b/{path}',
    ]
    for hunk in range(hunks):
        start = 40 + hunk * 60
        lines.append(f'@@ -{start},9 +{start},10 @@ def handler_{hunk}(request):')
        lines += [f'     context_{hunk}_{n} = request.args.get("k{n}")' for n in range(4)]
        lines += [
            f'-    result = compute_{hunk}(context_{hunk}_0)',
            f'+    result = compute_{hunk}(context_{hunk}_0, strict=True)',
        ]
        lines += ['+    if result is None:', '+        raise LookupError("missing result")']
        lines += [f'     return render_{hunk}(result)', '']
    return lines


def _commit_header(number: int, subject: str) -> list[str]:
    """A `git show` / `git log -p` commit's header and subject, a blank line after it."""
    return [
        f'commit {number}6c66f45193fa65125ca06328817927d6bbc2b2{number}',
        'Author: Ada Lovelace <ada@example.org>',
        f'Date:   Mon Oct {number + 7} 10:00:00 2019 +0200',
        '',
        f'    {subject}',
        '',
    ]


DIFF = '\n'.join(
    _file_diff('src/shop/cart.py', 3) + _file_diff('src/shop/pricing.py', 4) + _file_diff('tests/test_cart.py', 2)
)


def test_every_file_and_hunk_header_stays_and_lines_are_verbatim() -> None:
    assert detect_kind(DIFF) is ContentKind.DIFF
    summary = summarize(DIFF, budget_tokens=450, quoted=('compute_3',))
    assert isinstance(summary, str)
    kept = kept_lines(DIFF, summary)
    # One header line per file (`diff --git`: its `---`/`+++` lines only repeat its paths) and every hunk's.
    headers = [line for line in DIFF.split('\n') if line.startswith(('diff --git', '@@ '))]
    assert all(header in kept for header in headers)
    changed = '-    result = compute_3(context_3_0)'
    assert changed in kept
    # The changed line stands under its hunk header and its file's header.
    assert (
        kept.index('diff --git a/src/shop/pricing.py b/src/shop/pricing.py')
        < kept.index('@@ -220,9 +220,10 @@ def handler_3(request):')
        < kept.index(changed)
    )
    assert len(summary) < len(DIFF) / 2


def test_a_quoted_line_of_a_long_diff_beats_the_headers_of_other_files() -> None:
    """A file header outweighs a hunk header; a line a later turn quotes outweighs any header (it brings its own)."""
    lines: list[str] = []
    for number in range(60):
        path = f'src/pkg/module_{number}.py'
        lines += [f'diff --git a/{path} b/{path}', 'index 1234abc..5678def 100644', f'--- a/{path}', f'+++ b/{path}']
        lines += [f'@@ -10,7 +10,8 @@ def handler_{number}(request):']
        lines += [f'     context_line_{j} = compute(request, {j})' for j in range(3)]
        lines += [f'+    value_{number}_{j} = lookup("key-{number}-{j}")' for j in range(8)]
        lines += [f'     tail_{j}()' for j in range(3)]
    text = '\n'.join(lines)
    kept = summary_lines(text, budget_tokens=980, quoted=('key-59-3',))
    quoted = '+    value_59_3 = lookup("key-59-3")'
    assert quoted in kept
    before = kept[: kept.index(quoted)]
    assert 'diff --git a/src/pkg/module_59.py b/src/pkg/module_59.py' in before
    assert '@@ -10,7 +10,8 @@ def handler_59(request):' in before


def test_a_removed_comment_line_is_no_file_header() -> None:
    """`--- drop the index` is an SQL comment removed, not a file: the lines after it stay under their hunk."""
    lines = ['--- a/db/migrate.sql', '+++ b/db/migrate.sql', '@@ -1,40 +1,39 @@']
    lines += [f' SELECT {n} FROM t_{n};' for n in range(18)]
    lines += ['--- drop the index first', '-DROP INDEX idx_orders_customer;']
    lines += [f' SELECT {n} FROM u_{n};' for n in range(20)]
    placing = enclosing(ContentKind.DIFF, lines)
    assert placing[lines.index('-DROP INDEX idx_orders_customer;')] == (2, 1, 0)  # its hunk, then its file
    assert placing[lines.index('--- drop the index first')] == (2, 1, 0)
    text = '\n'.join(lines)
    kept = summary_lines(text, budget_tokens=60, quoted=('idx_orders_customer',))
    assert kept[:3] == ['--- a/db/migrate.sql', '+++ b/db/migrate.sql', '@@ -1,40 +1,39 @@']
    assert '-DROP INDEX idx_orders_customer;' in kept


def test_git_show_keeps_each_commits_subject_before_its_hunks() -> None:
    """`git show` / `git log -p`: what a change is for is its message's first line, as required as the files."""
    commits: list[str] = []
    for number, (subject, path) in enumerate(
        [
            ('Fixed #30856 -- Combined fast-delete queries.', 'src/shop/cart.py'),
            ('Retry refunds on 503.', 'src/shop/pay.py'),
        ]
    ):
        commits += [
            *_commit_header(number, subject),
            '    Co-authored-by: Charles Babbage <charles@example.org>',
            '',
            *_file_diff(path, 4),
        ]
    text = '\n'.join(commits)
    assert detect_kind(text) is ContentKind.DIFF
    for quoted in ((), ('compute_2', 'handler_3')):
        kept = summary_lines(text, budget_tokens=len(text) // 16, quoted=quoted)
        assert '    Fixed #30856 -- Combined fast-delete queries.' in kept
        assert '    Retry refunds on 503.' in kept
        assert 'diff --git a/src/shop/pay.py b/src/shop/pay.py' in kept


def test_a_commit_of_git_log_p_is_placed_by_no_file_of_the_commit_before() -> None:
    """The subject of the second commit of `git log -p` (required) stands in no hunk of the first one's last file:
    choosing it brings in no hunk header of another commit, only its own `commit` line."""
    lines: list[str] = []
    for number, subject in enumerate(['Fixed #30856 -- Combined fast-delete queries.', 'Retry refunds on 503.']):
        lines += [
            *_commit_header(number, subject),
            *_file_diff(f'src/shop/mod_{number}.py', 3),
        ]
    second = lines.index('commit 16c66f45193fa65125ca06328817927d6bbc2b21')
    chains = enclosing(ContentKind.DIFF, lines)
    assert chains[second : second + 5] == [(), (second,), (second,), (second,), (second,)]
    assert chains[second + 9] == (second + 6,)  # its own file's `--- a/` line under its `diff --git`


def test_a_format_patch_mail_keeps_its_subject() -> None:
    """`git format-patch` writes the commit's subject as the mail's `Subject:` line: what the patch is for."""
    text = '\n'.join(
        [
            'From 06c66f45193fa65125ca06328817927d6bbc2b20 Mon Sep 17 00:00:00 2001',
            'From: Ada Lovelace <ada@example.org>',
            'Date: Mon, 7 Oct 2019 10:00:00 +0200',
            'Subject: [PATCH] Fixed #30856 -- Combined fast-delete queries.',
            '',
            '---',
            ' src/shop/cart.py | 12 ++++++++----',
            ' 1 file changed, 8 insertions(+), 4 deletions(-)',
            '',
            *_file_diff('src/shop/cart.py', 3),
            *_file_diff('src/shop/pay.py', 3),
        ]
    )
    assert detect_kind(text) is ContentKind.DIFF
    for quoted in ((), ('compute_2',)):
        summary = summarize(text, budget_tokens=len(text) // 16, quoted=quoted)
        assert isinstance(summary, str)
        assert 'Subject: [PATCH] Fixed #30856 -- Combined fast-delete queries.' in kept_lines(text, summary)


def test_a_kept_removed_line_comes_with_the_line_that_replaced_it() -> None:
    """`-    result = compute_3(...)` alone would say the call went; it was changed. The n-th removed line of a run
    brings the n-th added line after it; a removed line no added line follows, and an added line, bring none."""
    lines = _file_diff('src/app/handlers.py', 8)
    lines[-1:] = ['@@ -600,3 +600,2 @@ def cleanup():', '-    legacy_flush()', '     return None']
    removed = lines.index('-    result = compute_3(context_3_0)')
    chains = enclosing(ContentKind.DIFF, lines)
    assert chains[removed][-1] == removed + 1 and lines[removed + 1].startswith('+    result = compute_3(')
    assert chains[removed + 1] == chains[removed][:-1]  # an added line: its hunk and file only
    assert chains[lines.index('-    legacy_flush()')] == (len(lines) - 3, 0)  # a deletion: nothing replaced it
    text = '\n'.join(lines)
    kept = summary_lines(text, budget_tokens=len(text) // 20, quoted=('compute_3(context_3_0)',))
    at = kept.index('-    result = compute_3(context_3_0)')
    assert kept[at + 1] == '+    result = compute_3(context_3_0, strict=True)'


def test_a_changed_last_line_without_a_newline_comes_with_its_replacement() -> None:
    """A file's last line changed where the file ends without a newline: git prints `\\ No newline at end of file`
    under the removed line, then the added one. That mark is no line of the change: the pair holds across it."""
    lines = [
        'diff --git a/VERSION b/VERSION',
        '--- a/VERSION',
        '+++ b/VERSION',
        '@@ -1,2 +1,2 @@',
        ' release: stable',
        '-version: 2.4.1',
        '\\ No newline at end of file',
        '+version: 2.5.0',
        '\\ No newline at end of file',
    ]
    chains = enclosing(ContentKind.DIFF, lines)
    assert chains[5] == (3, 0, 7)
    assert chains[6] == (3, 0)  # the mark itself: no removed line


SUBJECTS = [
    'Fix retry loop ignoring timeout',
    'Add parquet exporter',
    'Bump pydantic to 2.9',
    'Refactor watcher into its own module',
    'Handle empty config file',
    'Make rate limiter count once per request',
    'Persist telemetry opt-out',
    'Fix Windows path normalization',
]


def test_git_log_keeps_each_commits_subject_under_its_commit_line() -> None:
    """`git log --stat`, no patches: a reader looks for a change by what it is for, and needs its sha to show it."""
    lines: list[str] = []
    for number, subject in enumerate(SUBJECTS):
        lines += _commit_header(number, subject)[:-1]
        lines += [
            '',
            f'    The old code reset state {number} on every attempt, so a slow server kept the loop alive.',
            f'    Closes #{800 + number}. Reviewed-by: Grace Hopper <grace@example.org>',
            '',
            *(f' src/syncer/module_{number}_{k}.py | {k * 7 + 3:3d} ++++++++---' for k in range(4)),
            f' 4 files changed, {number * 9 + 20} insertions(+), {number + 4} deletions(-)',
            '',
        ]
    text = '\n'.join(lines)
    assert detect_kind(text) is ContentKind.DIFF
    kept = summary_lines(text, budget_tokens=content_tokens(text) * 3 // 10)  # each commit's marker costs too
    for number, subject in enumerate(SUBJECTS):
        assert f'    {subject}' in kept
        commits_above = [line for line in kept[: kept.index(f'    {subject}')] if line.startswith('commit ')]
        assert commits_above[-1].startswith(f'commit {number}6c66f45')  # its sha, over it


def test_every_file_of_a_diff_stays_when_its_lines_hold_quoted_facts() -> None:
    """The agent wrote the change, so the turns before it name every identifier in it: facts to keep compete for
    the budget with the headers. A long path's header still stays: a diff without one of its files reads as
    another change."""
    paths = ['src/shop/internals/sql/compiler_for_inserts.py', 'tests/test_cart.py', 'tests/test_pricing.py']
    lines = [line for path in paths for line in _file_diff(path, 2)]
    text = '\n'.join(lines)
    quoted = tuple(f'{name}_{hunk}' for hunk in range(2) for name in ('compute', 'render', 'handler'))
    kept = summary_lines(text, budget_tokens=150, quoted=quoted)  # a fifth of its 728 tokens
    assert all(f'diff --git a/{path} b/{path}' in kept for path in paths)


def _reporter_diff() -> list[str]:
    """A fix in one hunk (a method added, a call changed) between unchanged methods, and a test file's hunk."""
    lines = [
        'diff --git a/django/views/debug.py b/django/views/debug.py',
        'index 7a89f7bd15..bd0a6ba0ba 100644',
        '--- a/django/views/debug.py',
        '+++ b/django/views/debug.py',
        '@@ -394,19 +394,24 @@ class ExceptionReporter:',
        '     def get_traceback_data(self):',
        '         frames = self.get_traceback_frames(include_locals=self.include_locals, depth=self.depth)',
        '         return {"frames": frames, "request": self.request, "settings": self.filtered_settings}',
        ' ',
        '+    def _get_explicit_or_implicit_cause(self, exc_value):',
        "+        explicit = getattr(exc_value, '__cause__', None)",
        "+        suppress_context = getattr(exc_value, '__suppress_context__', None)",
        "+        implicit = getattr(exc_value, '__context__', None)",
        '+        return explicit or (None if suppress_context else implicit)',
        '+',
        '     def get_traceback_frames(self):',
        '         exc_value = self.exc_value',
        '         exceptions = []',
        '         while exc_value:',
        '             exceptions.append(exc_value)',
        '-            exc_value = explicit_or_implicit_cause(exc_value)',
        '+            exc_value = self._get_explicit_or_implicit_cause(exc_value)',
        '             if exc_value in exceptions:',
        '                 warnings.warn("Cycle in the exception chain detected", ExceptionCycleWarning)',
        '                 break',
    ]
    return lines


def test_a_changed_line_comes_with_the_definition_it_is_in_within_its_hunk() -> None:
    """`+        explicit = getattr(exc_value, '__cause__', None)` alone does not say which function it is in: it brings
    the nearest definition above it in its hunk with less indentation, its `-`/`+`/space read past (an added line in
    the new file: context or added lines; a removed one in the old file)."""
    lines = _reporter_diff()
    explicit = lines.index("+        explicit = getattr(exc_value, '__cause__', None)")
    chains = enclosing(ContentKind.DIFF, lines)
    assert chains[explicit] == (4, 0, explicit - 1)  # its hunk, its file, its `+    def`
    changed = lines.index('+            exc_value = self._get_explicit_or_implicit_cause(exc_value)')
    assert chains[changed] == (4, 0, changed - 6)  # `def get_traceback_frames`, not `while exc_value:`
    removed = changed - 1  # the old file's: it brings its replacement, and the definition placing both
    assert chains[removed] == (4, 0, changed - 6, changed)
    text = '\n'.join(lines)
    kept = summary_lines(text, budget_tokens=50, quoted=('__cause__',), quoted_budget_tokens=100)
    at = kept.index(lines[explicit])
    assert kept[at - 1] == '+    def _get_explicit_or_implicit_cause(self, exc_value):'
