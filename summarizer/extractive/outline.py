"""The lines that place a line: what a kept line brings with it so a reader can tell where it stood.

A kept line alone often says little: `last_modified: 2024-05-10 09:15:00` without the file it belongs
to, `return None` without its function, `+    timeout = 30` without its file and hunk. Each line of
a text has *enclosing lines*, nearest first, and the summary never keeps a line without them
(`tree`), so what it shows reads as an outline with elisions, as aider's repository map does:

- every kind: the indentation parents, each the nearest line above with less indentation (a numbered
  read's line number read past): a method's class, a block's function, a YAML field's record, a
  traceback's frame (in command output, cargo's right-aligned status lines, `   Compiling x v1.0`, have none).
  In code, a line that starts with a closing bracket (`) -> None:` under `def load(`,
  `],` under `"items": [`) is placed by the nearest line above at its own indentation, the one that
  opened the bracket in code laid out as formatters lay it out, so a function whose signature runs
  over several lines still places its body under its `def`. So does a line that starts with `{`: the block
  of the signature above it, where the brace goes on a line of its own (C#);
- a diff: the line's hunk header and its file's header (`diff --git`, else `---`/`+++`); a commit's
  author, date and message (`git log`, `git show`), its `commit` line, which names it; a removed
  line, the added line that took its place (the n-th `+` line after a run of `-` lines, for the n-th
  of them), so a change never shows only what it took away;
- records written as text (YAML dumps): the record's identifying field (`id_`, `filename`, `name`, ...); in
  records and prose, a line of a multi-line string a YAML dump folds into one double-quoted field, where the
  text line it is under starts (`_quoted_scalars`);
- a table's rows (CSV, TSV, Markdown, psql, `kubectl get`): its header line, which names the columns, in
  records, prose and command output;
- prose and Markdown: the headings above it, each level's nearest;
- search results as text: the result's `Title:` and `URL:` lines;
- test output: the section banner of the test it reports (`____ test_login ____`), and over that banner the
  section's where it holds no failures (`=== PASSES ===`); unittest's failure header (`ERROR: test_x (app.T)`)
  for its traceback; Vitest's failure header (` FAIL  src/a.test.ts > test`) for the message and frames it
  writes at the left edge under it;
- command output: a Terraform plan's resource block (`-/+ resource "aws_db_instance" "main" {`), the line naming
  the resource above it (`  # aws_db_instance.main must be replaced`), so a changed attribute comes with what
  changes; a boxed Terraform diagnostic's lines (`│   on main.tf line 12`), its `│ Error: ...`; an ESLint problem
  (`  12:5  error  ...`), by its indentation, the line naming its file;
- test output and logs: for a line of trouble (an error, a failure, a warning) that is no record of
  its own (no timestamp), the line just above it, which names where it happened (`src/pay.ts:141:24`
  over `Type error: ...`, the source line over pytest's `E   KeyError`).

- `grep -n` output: within a run of lines of one file at consecutive numbers (`-A`/`-B`/`-C` context),
  the indentation parents of the code they show, so a match inside a function brings the function's
  `def` where grep printed it; a context line with none there, the match it was printed around. Lines
  of other listings (`find`, `ls`) say where they are and have none.
The work is linear: one pass with a stack over the lines, looking at the work's deadline
(`budget.current_deadline`) every `CHUNK` lines, so a huge text stops in time as the rest does.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence

from ..core import CHUNK, in_chunks
from ._kinds import ContentKind, stamped
from .budget import current_deadline
from .code import BLAME, DIFF_DEFINITION
from .diff import COMMIT
from .lines import ALARM, Joined
from .listing import GREP_LINE
from .notable import csv_cells
from .shell import (
    CHECKED,
    CHECKER_CONTEXT,
    ESLINT_PROBLEM,
    HOOK_FAILED,
    HOOK_WENT_WELL,
    PASSED_TEST,
    PLACE,
    PYTEST_NODE,
    TERRAFORM_BLOCK,
    TERRAFORM_CHANGE,
    TEST_BANNER,
    TEST_HEADER,
    TSC_ERROR,
    VERDICT_LINE,
    VITEST_FAILURE,
    VITEST_RULE,
    diagnostic_blocks,
)

__all__ = ('MAX_DEPTH', 'bare', 'enclosing', 'indent')

MAX_DEPTH = 6
"""Enclosing lines kept per line, nearest first: deeper ones place it no better than these."""
_NUMBERING = re.compile(rf'^(?: *\d+(?:\t|→|[:|] ?)|{BLAME})')
_DIFF_FILE = re.compile(r'diff --git |--- |\+\+\+ ')
_HUNK = re.compile(r'@@ ')
_HEADING = re.compile(r'^[ \t]{0,3}(#{1,6}) ')
_LIST_ITEM = re.compile(r'^( *)- ')
_FIELD = re.compile(r'^ *(?:- )?([\w.-]+):(?: |$)')
_ID_FIELDS = ('id', 'id_', 'uuid', 'key', 'number', 'slug')
"""Fields that name a record by an id, the most telling first ..."""
_NAME_FIELDS = ('filename', 'file_name', 'name', 'title', 'subject', 'path', 'email', 'sender', 'username', 'user')
"""... and by a name: a record shows one of each where it has them (`id_: '3'` and `filename: plan.docx`)."""
_RESULT_FIELD = re.compile(r'^(?:Title|URL|Url|Link|title|url|link):[ \t]')
_TEST_BANNER = re.compile(rf'^{TEST_BANNER}|^={{3,}} .+ ={{3,}}\r?$')  # a `\r` kept where lines end `\r\n`
_RULE = re.compile(r'[-=_~*]{10,}\r?$|⎯{3,}')
"""A line drawn across (unittest's `-----` between a failure's header, traceback and the next; Vitest's `⎯⎯⎯ Failed
Tests 1 ⎯⎯⎯` and `⎯⎯⎯[1/2]⎯` around a failure): a separator, no place."""
_UNITTEST_HEADER = re.compile(r'(?:ERROR|FAIL): [\w.]+ \(')
"""unittest's header of a failure (`FAIL: test_login (app.tests.LoginTests)`), under a rule of `=`; a module that
failed to import names itself (`ERROR: tests.test_api (unittest.loader._FailedTest.tests.test_api)`)."""
_FAILURES = re.compile(r'=+ (?:FAILURES|ERRORS) =+')
"""pytest's sections of failures: a test banner in any other (`=== PASSES ===`) is placed by it."""
_NAMES_ITSELF = re.compile(
    rf'(?:FAIL(?:ED)?|PASS(?:ED)?|ok)(?:[ :\t]|\r?$)|ERROR(?: [^\s:]+(?:::| - |\r?$)|: \w+ \()|{PYTEST_NODE}'
    rf'|{TEST_HEADER}|{VERDICT_LINE}|Tests?: |Test Suites: |test \S+ \.\.\. '
    r'|(?:error|warning)(?:\[\w+\])?: |[ \t]+[\w.-]+\.go:\d+: |[ \t]+FAIL +\S|[ \t]*[●✕×❯] '
    rf'|{TSC_ERROR}|{ESLINT_PROBLEM}|{TERRAFORM_CHANGE}|(?:│ )?(?:Error|Warning): |.*# forces replacement\r?$'
    rf'|make(?:\[\d+\])?: \*\*\* |{CHECKED}'
)
"""A line that says which test, package or run it is about, or where it happened: it needs no line above to place
it. A test runner's (`FAIL: test_x`, pytest's `ERROR t.py::test_x`, `ERROR t.py - ImportError` (not pip's `ERROR:
Could not ...`) and `t.py::test_x ERROR [ 5%]`, unittest's `ERROR: test_x (t.Case)`, Go's lone `FAIL` over its
package's, `cargo test`'s `test a::b ... FAILED`, Jest's `  ● Suite › test` and `  ✕ test`, Vitest's ` FAIL
src/a.test.ts > test`), a Go test's message (`    send_test.go:74: got 3, want 2`), a `tsc` error
(`src/a.ts(12,5): error TS2322: ...`), and rustc's `error[E0308]: ...` and `warning: ...`, whose location is the `--> src/a.rs:118:24` under it (placed by it,
indented) and the line above it the last one's; so Terraform's `Error: ...`. Or a line its indentation places: an
ESLint problem (`  12:5  error  ...`, under its file), a Terraform resource's attribute that `# forces replacement`
(in its resource), a plan's `  # aws_db_instance.main will be destroyed` (above it ends the resource before), a type
checker's finding with its place and its rule (mypy's `cart.py:12: error: ...  [arg-type]`). And make's `make: ***
[Makefile:5: f13.o] Error 1`, which names the target that failed: above it ends the compiler's last diagnostic, often a
warning with its snippet, whose lines cost the verdict its place."""
_RAISED = re.compile(r'^E {3}|[a-z](?:Error|Exception)\b')
"""What raised: pytest's `E   ` lines, an exception's name (`KeyError`, `PSQLException`), besides `lines.ALARM`'s words."""


def enclosing(kind: ContentKind, lines: Sequence[str]) -> list[tuple[int, ...]]:
    """For each of `lines`, the indices of the lines that place it, nearest first (see the module's docstring)."""
    if kind is ContentKind.LISTING:  # a type checker's report is one too: its findings under what they are in
        return _with_more(_grep_runs(lines), _contexts(lines, ()))
    if kind is ContentKind.DIFF:
        return _diff(lines)
    deadline = current_deadline()
    depths = in_chunks(deadline.check, lambda chunk: map(indent, chunk), lines)
    if kind is ContentKind.SHELL:
        _shell_depths(lines, depths)
    chains = _indentation(lines, depths, brackets=kind is ContentKind.CODE)
    extra = _EXTRA.get(kind)
    if extra is None:
        return chains  # an indentation chain holds every enclosing line already
    deadline.check()
    _with_more(chains, extra(lines, depths))
    closed: list[tuple[int, ...]] = []
    for index, chain in enumerate(chains):
        if index % CHUNK == 0:
            deadline.check()
        closed.append(_closure(chains, index) if chain else chain)
    return closed


def bare(line: str) -> bool:
    """Whether `line` says nothing alone, a numbered read's line number read past.

    It holds only brackets and punctuation (`))`, `});`), or a clause with nothing of its own (`else:`, `try:`,
    `finally:`). It may place a line (`):` under `def load(`, `else:` under its `if`); kept for itself, it is a
    shell of syntax.
    """
    return _BARE.fullmatch(_past_number(line)) is not None


_BARE = re.compile(r'[^\w]*(?:(?:else|try|finally|do|begin|end|fi|done|esac|ensure)\b[^\w]*)?')


def indent(line: str) -> int:
    """How far `line` is indented, a numbered read's line number read past; -1 for a line with nothing in it.

    The drawing of a tree is indentation (`tree`'s `│   ├── models`, `npm ls`'s `│ ├─┬ debug@4.4.3`, a box's `│ `
    in front of Terraform's `│   on main.tf line 12:`): a file is placed by its folder, a package by the one that
    depends on it. Read as text, a folder's files kept without it said nothing of where they are. A border is no
    line of text: a table's (`├──┼──┤`, with a junction) places nothing, and a box's top (`╷`, `╭────╮`) or a rule
    with a title in it (`──── Training ────`) stands at its blanks' depth, opening what is under it.
    """
    line = _past_number(line)
    content = line.lstrip(' \t')
    if content[:1] not in _DRAWN:  # most lines: blanks, then text (or nothing)
        return len(line) - len(content) if content.strip() else -1
    if not line.strip():
        return -1  # no-break spaces and nothing else
    blanks = len(line) - len(line.lstrip(' \t\xa0'))
    content = line.lstrip(_DRAWING)
    if not content.strip():  # a border: a table's (`├──┼──┤`) places nothing, a box's (`╷`, `╭────╮`) opens it
        return -1 if _JUNCTIONS.intersection(line) else blanks
    if content.rstrip()[-1] in _RULING:
        return blanks  # a rule or a box's top with a title in it (`──── Training ────`, `╭── Traceback ──╮`)
    return len(line) - len(content)


_JUNCTIONS = frozenset('├┤┣┫┝┥┠┨╟╢╞╡┬┴┼┳┻╋╦╩╬╇╈┯┷┿')
_RULING = frozenset('─━═┐┓╗╮┘┛╝╯┤┫╣┬┳╦┴┻╩┼╋╬╴╶╸╺')
"""What ends a box's top or bottom border or a rule with a title in it, not a tree's branch or a box's row."""
_DRAWN = frozenset('\xa0' + ''.join(map(chr, range(0x2500, 0x2580))))
"""The box-drawing characters (U+2500 to U+257F: `│ ├ └ ─ ┬ ╰`), and the no-break spaces `tree` prints beside them.
A line whose blanks no such character follows is indented by its blanks alone: the common case, told with one strip
and one look (`indent` runs for every line of every text)."""
_DRAWING = ' \t' + ''.join(sorted(_DRAWN))
"""Blanks and `_DRAWN`: what a drawn line's indentation is made of."""


def _shell_depths(lines: Sequence[str], depths: list[int]) -> None:
    """Correct `depths` where command output's indentation says something else than `indent` reads.

    Cargo's status lines (`   Compiling serde v1.0`, `    Finished ...`) get none: cargo right-aligns its status
    word to end at the 12th column, so `     Running` stands deeper than the `    Finished` and `   Compiling` over
    it and would be placed by them, its spaces saying nothing of where it is; so do Vitest's summary lines, right-aligned
    to end their label at the 11th column (` Test Files  1 failed`, `      Tests  1 failed`). Vitest's rules
    (`⎯⎯⎯ Failed Tests 1 ⎯⎯⎯`, dozens of tokens) place nothing, as a blank line. ESLint's problem lines
    (`  12:5  error  ...`) get their own: `indent` reads `  12:` past as a numbered read's line number, and their
    indentation puts them under the line naming their file.
    """
    deadline = current_deadline()
    for index, line in enumerate(lines):
        if index % CHUNK == 0:
            deadline.check()
        if depths[index] == 0 and line[:1] in ' \t' and _ESLINT_PROBLEM.match(line):
            depths[index] = len(line) - len(line.lstrip(' \t'))
        elif line[:1] == '⎯':
            depths[index] = -1
        elif 0 < depths[index] < _VITEST_END and line[_VITEST_END : _VITEST_END + 2] == '  ' and _VITEST.match(line):
            depths[index] = 0
        elif 0 < depths[index] < _STATUS_END and line[_STATUS_END : _STATUS_END + 1] == ' ':
            status = _STATUS.match(line)
            if status is not None and status.end() == _STATUS_END + 1:
                depths[index] = 0


_ESLINT_PROBLEM = re.compile(ESLINT_PROBLEM)
_STATUS = re.compile(
    r' +(?:Compiling|Checking|Finished|Running|Doc-tests|Fresh|Updating|Locking|Adding|Removing|Downloading|Downloaded'
    r'|Blocking|Documenting|Generated|Installing|Installed|Replacing|Packaging|Packaged|Verifying|Archiving|Uploading'
    r'|Uploaded|Waiting|Published) '
)
"""Cargo's status words, not any word ending at the 12th column: Django's migrate prints `    Creating table x` under
`  Synchronizing apps without migrations:`, which does place it."""
_VITEST = re.compile(r' *(?:Test Files|Tests|Start at|Duration|Snapshots|Type Errors|Errors)  ')
"""The labels of Vitest's summary, right-aligned to end at `_VITEST_END`."""
_VITEST_END = 11
_STATUS_END = 12
"""Where cargo's right-aligned status word ends (`   Compiling`, `  Downloaded`)."""


def _past_number(line: str) -> str:
    """`line` without a numbered read's line number (`  12→`, `12:`, `12` and a tab, `git blame`'s gutter)."""
    return _NUMBERING.sub('', line, count=1) if line[:1] in _NUMBERED_START else line


_NUMBERED_START = frozenset(' 0123456789abcdef^')
"""How a numbered line starts: most lines of text are told apart without a pattern."""


def _indentation(lines: Sequence[str], depths: Sequence[int], *, brackets: bool) -> list[tuple[int, ...]]:
    """Each line's indentation parents (`depths`: each line's `indent`): the nearest line above with less, and so on.

    `brackets` (code): a line opening with a closing bracket at the indentation of an open line (`) -> None:` under
    `def load(`) is placed by that line, and the lines under it by both; so is a line opening with `{`, under the
    signature whose block it opens (`public void Run()` over `{`). Not in prose, where a scraped page's
    `] Pricing` closes a link and the line above it is another menu entry.
    """
    chains: list[tuple[int, ...]] = []
    stack: list[tuple[int, int, tuple[int, ...]]] = []
    """(indentation, index, chain) of the lines still open: each less indented than the one above it."""
    deadline = current_deadline()
    for index, depth in enumerate(depths):
        if index % CHUNK == 0:
            deadline.check()
        if depth < 0:
            chains.append(())
            continue
        while stack and stack[-1][0] > depth:
            stack.pop()
        sibling = stack.pop() if stack and stack[-1][0] == depth else None
        if brackets and sibling is not None and _placed_by(lines[index], lines[sibling[1]]):
            chain = (sibling[1], *sibling[2])[:MAX_DEPTH]  # the bracket's opener, as formatters lay code out
        else:
            chain = (stack[-1][1], *stack[-1][2])[:MAX_DEPTH] if stack else ()
        chains.append(chain)
        stack.append((depth, index, chain))
    return chains


def _placed_by(line: str, sibling: str) -> bool:
    """Whether `line` is placed by `sibling`, the line above it at its indentation (see `_indentation`).

    It is if it closes the bracket `sibling` opened, or opens the block of the signature `sibling` is (`public void
    Run()` over `{`, C#'s layout); not if it opens the next of a list of objects (`{` under the `},` closing one).
    """
    start = _past_number(line).lstrip(' \t')[:1]
    return start in _CLOSERS or (start == '{' and _past_number(sibling).lstrip(' \t')[:1] not in _BRACKETS)


_CLOSERS = frozenset(')]}')
_BRACKETS = frozenset(')]}{[(')


def _grep_runs(lines: Sequence[str]) -> list[tuple[int, ...]]:
    """`grep -n` output: each line's indentation parents among the lines of its run (see the module's docstring).

    A run is the lines of one file at consecutive numbers; a line of another form (`--`, `find` output) ends it.
    A context line (`path-12-`) with no parent in its run, and placing none (a `def` places its body), is placed
    by the match it was printed around, the nearest above it (below it, for the lines `-B` printed before a run's
    first): else it says nothing of where it stood (the body of a test whose `def` grep did not print).
    """
    chains: list[tuple[int, ...]] = [()] * len(lines)
    run: list[int] = []
    """The indices of the run being read."""
    codes: list[str] = []
    """What grep printed of each of its lines, past `path:12:` or `path-12-`."""
    matches: list[int] = []
    """The places in the run of its matches (`path:12:`)."""
    at: tuple[str, int] | None = None
    """The path and number the next line of the run would have."""
    deadline = current_deadline()
    for index, line in enumerate((*lines, '')):  # the empty line ends the last run
        if index % CHUNK == 0:
            deadline.check()
        match = GREP_LINE.match(line)
        place = None if match is None else (match.group(1), int(match.group(2) or match.group(3)))
        if place != at and len(run) > 1:
            code_depths = [indent(code) for code in codes]
            found = _indentation(codes, code_depths, brackets=True)
            parents = {parent for chain in found for parent in chain}
            for number, chain in enumerate(found):
                after = bisect.bisect_right(matches, number)  # the run's matches up to this line
                if not chain and number not in parents and matches and not (after and matches[after - 1] == number):
                    chain = (matches[after - 1 if after else 0],)
                chains[run[number]] = tuple(run[parent] for parent in chain)
        if place != at:
            run, codes, matches = [], [], []
        if match is not None and place is not None:
            if match.group(2) is not None:
                matches.append(len(run))
            run.append(index)
            codes.append(line[match.end() :])
            at = (place[0], place[1] + 1)
        else:
            at = None
    return chains


def _with_more(chains: list[tuple[int, ...]], more: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """`chains`, each merged in place with the lines `more` says place its line too."""
    for index, placing in enumerate(more):
        if placing:
            chains[index] = _merged(chains[index], placing, index)
    return chains


def _merged(chain: tuple[int, ...], more: tuple[int, ...], index: int) -> tuple[int, ...]:
    return tuple(dict.fromkeys(line for line in (*chain, *more) if line != index))[: MAX_DEPTH + 2]


def _closure(chains: Sequence[tuple[int, ...]], index: int) -> tuple[int, ...]:
    """The lines that place line `index`, and those that place them, and so on: a line never comes without its own."""
    found: dict[int, None] = {}
    waiting = list(chains[index])
    while waiting and len(found) < 2 * MAX_DEPTH:
        line = waiting.pop(0)
        if line != index and line not in found:
            found[line] = None
            waiting.extend(chains[line])
    return tuple(found)


def _diff(lines: Sequence[str]) -> list[tuple[int, ...]]:
    """Each line's hunk header and file header lines, its indentation parents in its hunk, and its replacement.

    A removed line brings the added line that took its place (`_replacements`) and that line's parents in its hunk
    (`_in_hunk`); a hunk header its file's header.
    """
    replaced_by = _replacements(lines)
    parents = _in_hunk(lines)
    chains: list[tuple[int, ...]] = []
    files: tuple[int, ...] = ()
    hunk: int | None = None
    git = any(line.startswith('diff --git ') for line in lines)
    commit: tuple[int, ...] = ()
    """The commit line whose header and message the lines are (`git log`), until its first file's header."""
    deadline = current_deadline()
    for index, line in enumerate(lines):
        if index % CHUNK == 0:
            deadline.check()
        if COMMIT.match(line):  # `git log -p`: a commit's header and message are in no file of the one before
            files, hunk, commit = (), None, (index,)
            chains.append(())
            continue
        if _file_header(lines, index):
            commit = ()
            if line.startswith('diff --git ') or (not git and line.startswith('--- ')):
                files, hunk = (index,), None
                chains.append(())
            else:
                chains.append(files)
                if not git and line.startswith('+++ '):
                    files = (index, *files)  # a plain patch: the `+++` line names the file, under its `---`
            continue
        if _HUNK.match(line):
            hunk = index
            chains.append(files)
            continue
        chain = files if hunk is None else (hunk, *files)
        chain = (chain or commit) + parents.get(index, ())
        added = replaced_by.get(index)
        if added is not None:
            chain = tuple(dict.fromkeys((*chain, added, *parents.get(added, ()))))
        chains.append(chain)
    return chains


def _in_hunk(lines: Sequence[str]) -> dict[int, tuple[int, ...]]:
    """Each line of a hunk, the nearest definition above it in that hunk with less indentation, `-`/`+`/space read past.

    As `_indentation`, in the file the line is in: an added line is placed by the context and added lines above it
    (the new file), a removed line by the context and removed lines (the old one), a context line by the new file's.
    So `+        explicit = getattr(...)` brings the `+    def _cause(self, exc):` over it. Only a definition
    (`code.DIFF_DEFINITION`): the hunk header names the function a hunk starts in (`@@ ... @@ class Collector:`), and
    every other line over a change would cost the change's own room.
    """
    found: dict[int, tuple[int, ...]] = {}
    old: list[tuple[int, int, bool]] = []
    new: list[tuple[int, int, bool]] = []
    """(indentation, index, whether it defines) of the lines still open in the hunk, in the old and the new file."""
    in_hunk = False
    defining = set(Joined(lines).matching(DIFF_DEFINITION))  # one pass over the text, not a match a line
    for index, line in enumerate(lines):
        if _HUNK.match(line):
            in_hunk, old, new = True, [], []
            continue
        side = line[:1]
        if not in_hunk or side not in ' +-' or _file_header(lines, index):
            in_hunk = in_hunk and side == '\\'  # `\ No newline at end of file` ends no hunk; any other line does
            continue
        body = line[1:]
        content = body.lstrip(' \t')
        if not content.strip():
            continue
        depth = len(body) - len(content)
        stacks = (new, old) if side == ' ' else (new,) if side == '+' else (old,)
        for stack in stacks:
            while stack and stack[-1][0] >= depth:
                stack.pop()
        placing = next((at for _, at, defines in reversed(stacks[0]) if defines), None)
        if placing is not None:
            found[index] = (placing,)
        defines = index in defining
        for stack in stacks:
            stack.append((depth, index, defines))
    return found


def _replacements(lines: Sequence[str]) -> dict[int, int]:
    """Each removed line of a diff that a run of added lines follows: the added line in its place in that run."""
    found: dict[int, int] = {}
    index = 0
    while index < len(lines):
        removed = index
        while index < len(lines) and lines[index][:1] == '-' and not _file_header(lines, index):
            index += 1
        removed_end = index
        if removed < index < len(lines) and lines[index].startswith('\\ '):
            index += 1  # `\ No newline at end of file` under the last removed line: the added ones still follow
        added = index
        while index < len(lines) and lines[index][:1] == '+' and not _file_header(lines, index):
            index += 1
        found.update(zip(range(removed, removed_end), range(added, index)))  # as many pairs as the shorter run has
        index = max(index, removed + 1)
    return found


def _file_header(lines: Sequence[str], index: int) -> bool:
    """Whether `lines[index]` names a file: `diff --git`, or a `---`/`+++` pair (a removed `-- comment` is no header)."""
    line = lines[index]
    if not _DIFF_FILE.match(line):
        return False
    if line.startswith('--- '):
        return index + 1 < len(lines) and lines[index + 1].startswith('+++ ')
    if line.startswith('+++ '):
        return index > 0 and lines[index - 1].startswith('--- ')
    return True


def record_spans(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, int, int]]:
    """(start, end, indentation) of each outermost YAML record (`- ` item) of `lines` (`depths`: `indent`'s).

    A record ends at the next line as shallow as its `- ` (the next record, a key after the list); blank lines and
    the records nested in it are its own.
    """
    found: list[tuple[int, int, int]] = []
    start = 0
    while start < len(lines):
        match = _LIST_ITEM.match(lines[start])
        if match is None:
            start += 1
            continue
        depth = len(match.group(1))
        end = start + 1
        while end < len(lines) and (depths[end] < 0 or depths[end] > depth):
            end += 1
        found.append((start, end, depth))
        start = end
    return found


def _records(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line of a YAML record (`- ` item), its record's identifying fields (an id, a name), where it has them."""
    result: list[tuple[int, ...]] = [()] * len(lines)
    for start, end, depth in record_spans(lines, depths):
        fields = _identifying(lines, depths, start, end, depth)
        if fields:
            for index in range(start, end):  # the `- ` line too: a record shown is a record named
                result[index] = tuple(field for field in fields if field != index)
    return result


def _sequence_keys(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each item of a YAML sequence written at its key's indentation, that key.

    YAML dumps write a field's list items as deep as the field (`  participants:` over `  - emma@example.com`), so
    their indentation names no parent but the record: a kept address without its `participants:` could be anyone's.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    keys: list[tuple[int, int]] = []
    """(indentation, line) of the keys with no value of their own whose items may follow, shallowest first: a stack,
    so a text of ever deeper keys is read once, not once per key."""
    for index, line in enumerate(lines):
        depth = depths[index]
        if depth < 0:
            continue
        while keys and keys[-1][0] > depth:
            keys.pop()
        open_ = keys[-1][1] if keys and keys[-1][0] == depth else None
        if _LIST_ITEM.match(line):
            if open_ is not None:
                result[index] = (open_,)
            continue
        if open_ is not None:
            keys.pop()  # another field at its indentation: the key's items have ended
        if _EMPTY_KEY.match(line):
            keys.append((depth, index))
    return result


_EMPTY_KEY = re.compile(r'^ *[\w.-]+:\r?$')
"""A YAML key whose value is the block under it (`  participants:`)."""


def _identifying(lines: Sequence[str], depths: Sequence[int], start: int, end: int, depth: int) -> tuple[int, ...]:
    """The lines of the record `lines[start:end]` holding its most telling id field and name field."""
    found: dict[str, int] = {}
    for index in range(start, end):
        line = lines[index]
        if index > start and depths[index] != depth + 2:
            continue
        field = _FIELD.match(line)
        if field is not None:
            found.setdefault(field.group(1).lower(), index)
    fields = (next((found[name] for name in group if name in found), None) for group in (_ID_FIELDS, _NAME_FIELDS))
    return tuple(field for field in fields if field is not None)


def _headings(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line's Markdown headings: the nearest above of each level above its own."""
    result: list[tuple[int, ...]] = []
    open_: list[tuple[int, int]] = []
    """(level, index) of the headings in force, outermost first."""
    for index, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading is None:
            result.append(tuple(at for _, at in reversed(open_)))
            continue
        level = len(heading.group(1))
        while open_ and open_[-1][0] >= level:
            open_.pop()
        result.append(tuple(at for _, at in reversed(open_)))
        open_.append((level, index))
    return result


def _results(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line of a text search result, its result's `Title:` and `URL:` lines."""
    result: list[tuple[int, ...]] = []
    title: int | None = None
    url: int | None = None
    for index, line in enumerate(lines):
        if _RESULT_FIELD.match(line):
            if line[:1] in 'Tt':
                title, url = index, None
                result.append(())
                continue
            url = index
            result.append(() if title is None else (title,))
            continue
        result.append(tuple(at for at in (url, title) if at is not None))
    return result


def _banners(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line of test output, the banner of the test or failure it is under, which says what the lines are.

    pytest's test banner (`____ test_login ____`), and over a banner, the section it is in where that is no
    failure's (`=== PASSES ===`, `=== XPASSES ===`): a banner over a captured log reads as a failure
    otherwise. (A section of failures goes without saying, and its 80 characters of `=` cost as much as a line of
    the traceback.) unittest's failure header (`ERROR: test_login (app.tests.LoginTests)`, between its two
    rules) over its traceback, up to the next `=====` rule or a rule of dashes under it.
    """
    result: list[tuple[int, ...]] = []
    section: int | None = None
    """The `===` banner of a section of no failures the lines are under."""
    banner: int | None = None
    """The test banner (`___`) or unittest failure header the lines are under."""
    underlined = False
    """Whether the unittest header's own rule (the one under it) has passed."""
    ruled = False
    """Whether the last line with something in it was a rule of `=`."""
    for index, line in enumerate(lines):
        if _TEST_BANNER.match(line):
            if line.startswith('_'):
                banner = index
                result.append(() if section is None else (section,))
            else:  # a `===` banner opens a section of its own
                section = None if _FAILURES.match(line) else index
                banner = None
                result.append(())
            continue
        rule = _RULE.match(line) is not None
        if ruled and _UNITTEST_HEADER.match(line):
            banner, underlined = index, False
        elif rule and banner is not None and lines[banner][0] != '_' and (line[0] == '=' or underlined):
            banner = None  # the end of a unittest failure: the next one's rule, or the rule over `Ran 3 tests`
        elif rule and banner is not None:
            underlined = True
        if line.strip():
            ruled = rule and line[0] == '='
        result.append(() if banner is None or banner == index or rule else (banner,))
    return result


def _outcomes(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Unittest's verbose line naming a test whose outcome is on the next line (under a docstring): that line.

    Django's runner prints `test_app_files (tests.TestCollection.test_app_files)`, then the test's docstring and how
    it went (`Can find a file in an app static/ directory. ... ok`). A kept name says which test ran, and the line
    under it whether it passed. (A line of trouble, a failure's or a skip's for an error, is placed by the name over it
    instead: `_above_trouble`.)
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    deadline = current_deadline()
    for index in range(len(lines) - 1):
        if index % CHUNK == 0:
            deadline.check()
        outcome = lines[index + 1]
        if _VERBOSE_TEST.match(lines[index]) and PASSED_TEST.search(outcome) and not _trouble(outcome):
            result[index] = (index + 1,)
    return result


_VERBOSE_TEST = re.compile(r'\w+ \([\w.]+\)\r?$')
"""unittest's verbose line naming a test, its outcome not on it: `test_app_files (tests.TestCollection.test_app_files)`."""


def _trouble(line: str) -> bool:
    """Whether `line` tells of trouble (`lines.ALARM`, `_RAISED`): the line above it places it."""
    return ALARM.search(line) is not None or _RAISED.search(line) is not None


def _above_trouble(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """For each line of trouble (`lines.ALARM`, `_RAISED`) but a timestamped record, the nearest line above it with something in it.

    The lines of one block of pytest's `E   ` lines are placed by the line over its first (the failing source line):
    each placed by the one above would bring the whole block over it. A banner or a rule (`-----`) neither is placed
    nor places so: pytest's `=== 1 failed, 9 passed ===` says what it is, and
    `=== short test summary info ===` over `FAILED t.py::test_x` names no place, only a section. Nor is
    pytest's failing source line (`>       raise KeyError(sku)`): it is the place, and the line above it
    only more source. Nor is a test runner's line naming its test, package or run (`FAIL: test_x (...)`,
    `--- FAIL: TestX`, `FAIL<tab>example.com/shop<tab>0.4s`, `Tests: 1 failed`): above it stand other
    tests' lines. Nor a line saying where it happened itself (a Go test's `    a_test.go:74: got 3`), nor
    rustc's `error[E0308]: ...`, whose place is the `-->` line under it: above it ends the diagnostic before.
    Python's markers under a frame's source line (`    ^^^^^^`, `~~~^^^`) place nothing: over the exception that
    ends a traceback, the source line over them does (bringing the markers too cost the exception its place).
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    previous: int | None = None
    for index, line in enumerate(lines):
        if not line.strip() or _CARETS.match(line):
            continue
        if _TEST_BANNER.match(line) or _RULE.match(line):
            previous = None
            continue
        if line.startswith('> ') or _NAMES_ITSELF.match(line) or _hook(line):
            previous = index
            continue
        if previous is not None and _trouble(line) and not stamped(line):
            result[index] = (previous,)
        if not (line.startswith('E ') and previous is not None and lines[previous].startswith('E ')):
            previous = index  # the lines of one `E   ` block share the place over its first
        elif result[previous]:
            result[index] = result[previous]
    return result


_CARETS = re.compile(r'[ \t]*[~^]+[ \t]*\r?$')
"""A line of Python's position markers under a traceback's source line (3.11 on): `^^^^^^`, `~~~~^^^^^`."""


def _tasks(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """The header of the task each line is under, up to the next header.

    An Ansible task's (`TASK [Read release file] ****`), a pre-commit hook's (`mypy..........Failed`): a task's results
    and errors are written at the left edge below its header, and say nothing of which task failed.
    """
    result: list[tuple[int, ...]] = []
    task: int | None = None
    for index, line in enumerate(lines):
        if line[:1] in 'PTR' and _PLAY_HEADER.match(line):
            task = index if line.startswith(('TASK', 'RUNNING HANDLER')) else None
            result.append(())
        elif _hook(line):
            task = index
            result.append(())
        else:
            result.append(() if task is None or not line.strip() else (task,))
    return result


def _contexts(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """A type checker's finding, the line above it naming the function or class it is in, where the checker printed one.

    mypy's `--show-error-context` writes `cart.py: note: In function "total":` over the findings in `total`, and `At top
    level:` where they leave it; a finding names its own place (`_NAMES_ITSELF`), but not what it is in. A line of
    another file's, or none of the file's (a prompt, `Found 3 errors`), ends the note's reach: a run starts at top level.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    context: int | None = None
    path = ''
    for index, line in enumerate(lines):
        if ': note: ' in line and _CONTEXT.match(line):
            path = line[: line.index(': note: ') + 1]
            context = None if line.rstrip().endswith('At top level:') else index
        elif context is not None and line.startswith(path):
            result[index] = (context,) if _FINDING.match(line) else ()
        elif line.strip():
            context = None
    return result


_CONTEXT = re.compile(CHECKER_CONTEXT)
_FINDING = re.compile(CHECKED)


def _hook(line: str) -> bool:
    """Whether `line` is a pre-commit hook's saying how it went (`mypy.......Failed`)."""
    return line.endswith(_HOOK_ENDS) and (HOOK_FAILED.search(line) or HOOK_WENT_WELL.search(line)) is not None


_HOOK_ENDS = ('Failed', 'Passed', 'Skipped', 'Failed\r', 'Passed\r', 'Skipped\r')
"""How a pre-commit hook's line ends: most lines are told none by one look at their end."""
_PLAY_HEADER = re.compile(r'(?:PLAY|TASK|RUNNING HANDLER|PLAY RECAP)(?: \[[^\n]*\])? \*{3,}\r?$')
"""A header of Ansible's output: a play's (`PLAY [web] ****`), a task's or a handler's (`TASK [Install nginx] ****`),
the recap's (`PLAY RECAP ****`)."""


def _sections(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """In command output, the header of the section a line is in, where its indentation does not say so.

    - A Terraform resource's block (`  ~ resource "aws_s3_bucket" "logs" {`, `-/+ resource ...`): the line just above
      it that names the resource and what the plan does to it (`  # aws_db_instance.main must be replaced`, which
      `-/+` leaves to the right of it), so a changed attribute comes with what changes;
    - Terraform's boxed diagnostic: its `│ ` lines (`│   on main.tf line 12, in resource ...:`), the `│ Error: ...`
      over them, up to the box's end;
    - Vitest's failure: the lines under its ` FAIL  src/a.test.ts > test` header, which Vitest writes at the left
      edge, up to its rule (`⎯⎯⎯[1/2]⎯`), the next header or `_SECTION_LINES` lines.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    previous: int | None = None
    """The last line with something in it."""
    header: int | None = None
    """The header of the Vitest failure or Terraform diagnostic the lines are in, if any."""
    box = False
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if _DIAGNOSTIC.match(line) or _VITEST_FAILURE.match(line):
            header, box = index, line.startswith('│')
        elif header is not None and not _in_section(line, index - header, box=box):
            header = None
        elif header is not None:
            result[index] = (header,)
        elif previous is not None and _RESOURCE.match(line) and _CHANGE.match(lines[previous]):
            result[index] = (previous,)
        previous = index
    return result


def _in_section(line: str, after: int, *, box: bool) -> bool:
    """Whether `line`, `after` lines under a section's header (see `_sections`), is still in it.

    In the `box` (a diagnostic's `│ ` lines), or before Vitest's rule; within `_SECTION_LINES`.
    """
    inside = line[:1] == '│' if box else VITEST_RULE.match(line) is None
    return inside and after <= _SECTION_LINES


_DIAGNOSTIC = re.compile(r'│ (?:Error|Warning): ')
_VITEST_FAILURE = re.compile(VITEST_FAILURE)
_SECTION_LINES = 200
"""The most lines a Vitest failure's or a diagnostic's header places: a section never closed places no more."""
_RESOURCE = re.compile(TERRAFORM_BLOCK)
_CHANGE = re.compile(TERRAFORM_CHANGE)


def _tables(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each row of a table, the table's header line: what says which column a value is in.

    Three ways a text writes a table (see `_table_rows`): delimited (CSV, TSV: a header of names first
    in its block, then rows of as many fields), ruled (a header over a line of dashes: Markdown's
    `|---|---|`, psql's `----+----`, `kubectl describe`'s events), and aligned under a header of
    capitalized names (`NAME  READY  STATUS`, `ps aux`, `docker ps`).
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    deadline = current_deadline()
    index = 0
    while index < len(lines):
        if index % CHUNK == 0:
            deadline.check()
        first, end = _table_rows(lines, index)
        for row in range(first, end):
            if row % CHUNK == 0:
                deadline.check()
            result[row] = (index,)
        index = max(end, index + 1)
    return result


def _table_rows(lines: Sequence[str], header: int) -> tuple[int, int]:
    """The rows `lines[header]` heads, as (first, end); empty (`end <= first`) when it heads no table."""
    line = lines[header]
    if header + 1 < len(lines) and _RULED.match(lines[header + 1]) and line.strip() and not _RULED.match(line):
        return header + 2, _block_end(lines, header + 2)
    if header and lines[header - 1].strip():
        return 0, 0  # a delimited or aligned table's header starts its block
    if _CAPITALIZED.match(line):
        return header + 1, _block_end(lines, header + 1)
    for delimiter in _DELIMITERS:
        fields = _fields(line, delimiter)
        if fields < 2 or not _names(line, delimiter):
            continue
        end = header + 1
        while end < len(lines) and _fields(lines[end], delimiter) == fields:
            end += 1
        if end - header > _MIN_ROWS:
            return header + 1, end
    return 0, 0


def _block_end(lines: Sequence[str], start: int) -> int:
    """Where the block of lines from `start` ends: its first blank line, or the text's end."""
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def _fields(line: str, delimiter: str) -> int:
    """How many fields `line` holds between `delimiter`s: by counting, or as the `csv` module reads a quoted one."""
    if '"' not in line:
        return line.count(delimiter) + 1
    cells = csv_cells(line, delimiter)
    return 0 if cells is None else len(cells)  # a line `csv` refuses is a blob, no table's row


def _names(line: str, delimiter: str) -> bool:
    """Whether `line`'s fields are column names: short, and none of them empty, a number, or a sentence.

    Between pipes a name stands in spaces (`| name | size |`); else right by its delimiters, as CSV and TSV write
    them: `Text, with, commas` is a sentence.
    """
    fields = line.strip(' |\r').split(delimiter) if delimiter == '|' else line.rstrip('\r').split(delimiter)
    return all(_COLUMN_NAME.fullmatch(field.strip(' ') if delimiter == '|' else field.strip('"')) for field in fields)


_RULED = re.compile(
    r'[ \t]*+[|+]?[ \t]*+:?-{3,}+:?(?:(?:[ \t]*+[|+][ \t]*+|[ \t]++):?-{3,}+:?)++[ \t]*+[|+]?[ \t]*+\r?$'
)
"""A line of dashes under a header, in columns (`|---|:--:|`, `----+----`, `----  ------`): two at least, so a
Setext heading's underline (one run of dashes) is no table's. Possessive, and what stands between two columns
matched one way: linear on any line."""
_CAPITALIZED = re.compile(r'[ \t]*+[A-Z%#][A-Z0-9_%#/().:-]*+(?: ++[A-Z%#][A-Z0-9_%#/().:-]*+){2,}+[ \t]*+\r?$')
"""A header of three names or more in capitals (`NAME  READY  STATUS`, `USER  PID %CPU`): the rows under it are
aligned to it. Names and spaces are told apart by one character: one way to match a line."""
_DELIMITERS = (',', '\t', ';', '|')
_COLUMN_NAME = re.compile(r'(?=[^\d\s])[\w%#/().:-]++(?: [\w%#/().:-]++){0,3}+')
"""A column's name: one to four words, not starting with a digit (a row's value starts so): no sentence."""
_MIN_ROWS = 2
"""Rows of as many fields a delimited header needs under it: two lines alike by chance are no table."""


def _error_details(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """A PostgreSQL error and the `DETAIL:`, `HINT:`, `STATEMENT:` and `CONTEXT:` lines its server logs right under it.

    Each places the other: `ERROR:  duplicate key value violates unique constraint "orders_pkey"` kept alone said
    neither which key nor which statement, and a `STATEMENT:` line kept alone not what went wrong. A record's prefix
    is the server's to set (`log_line_prefix`), so the lines are told by their level, two blanks after its colon.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    error: int | None = None
    for index, line in enumerate(lines):
        if ':  ' not in line:
            error = None
        elif error is not None and len(result[error]) < _DETAILS and _ERROR_DETAIL.search(line) is not None:
            result[index] = (error,)
            result[error] = (*result[error], index)
        else:
            error = index if _SERVER_ERROR.search(line) is not None else None
    return result


_SERVER_ERROR = re.compile(r'\b(?:ERROR|FATAL|PANIC|WARNING):  ')
_ERROR_DETAIL = re.compile(r'\b(?:DETAIL|HINT|STATEMENT|CONTEXT|QUERY|LOCATION):  ')
"""PostgreSQL's levels of a record (`ERROR:  ...`) and of the lines that tell more of it (`DETAIL:  Key (id)=(1)
already exists.`): two blanks after the colon, whatever prefix the server writes before them."""
_DETAILS = 6
"""The most lines under an error that tell more of it: one of each of `_ERROR_DETAIL`'s levels."""


def _joined(
    *extras: Callable[[Sequence[str], Sequence[int]], list[tuple[int, ...]]],
) -> Callable[[Sequence[str], Sequence[int]], list[tuple[int, ...]]]:
    """The enclosing lines each of `extras` gives a line, in their order (nearest first)."""

    def joined(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
        return [tuple(itertools.chain(*found)) for found in zip(*(extra(lines, depths) for extra in extras))]

    return joined


def _decorators(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each definition under decorators that say how it is used (`_DECORATOR`): the run of them right above it.

    A definition read without them reads as another thing: a property called as a method, a setter as a second
    definition of the getter's name, a static method given a `self`. Decorators at the line's own indentation,
    nearest first; any other line ends the run.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    run: list[int] = []
    for index, line in enumerate(lines):
        decorator = '@' in line and _DECORATOR.fullmatch(_past_number(line)) is not None
        if decorator and (not run or depths[run[-1]] == depths[index]):
            run.append(index)
            continue
        if run and not decorator and depths[index] == depths[run[-1]]:
            result[index] = tuple(reversed(run[-_MAX_DECORATORS:]))
        run = []
    return result


_DECORATOR = re.compile(
    r'[ \t]*@(?:property|cached_property|functools\.cached_property|staticmethod|classmethod|abstractmethod'
    r'|abc\.abstractmethod|overload|typing\.overload|[\w.]+\.(?:setter|getter|deleter))[ \t]*\r?'
)
"""A decorator that changes how what it decorates is used (its line, a numbered read's number read past): `@property`
(read, not called), `@x.setter`, `@staticmethod`, `@classmethod`, `@abstractmethod`, `@overload`. Others
(`@app.get("/x")`, a test's skip) weigh on their own (`code`), and are kept for what they hold."""
_MAX_DECORATORS = 4


def _config_sections(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line of a TOML or INI file under a section header (`[tool.ruff]`, `[[package]]`, `[core]`), that header.

    `target-version = "py311"` read without `[tool.ruff]` over it could be any tool's setting: a key's table is in no
    indentation. A header is a line of its own at the left edge, a name in brackets (`[1, 2]` and `[x]` of code are
    no section: a digit or a comma, or no letter before a dot, a dash or a quote).
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    section: int | None = None
    for index, line in enumerate(lines):
        if line[:1] == '[' and _SECTION_HEADER.fullmatch(line) is not None:
            section = index
        elif section is not None and depths[index] >= 0:
            result[index] = (section,)
    return result


_SECTION_HEADER = re.compile(r'\[\[?[A-Za-z_][\w.\-" ]*\]\]?[ \t]*\r?')
"""A TOML table (`[tool.ruff.lint]`, `[[tool.mypy.overrides]]`, `[tool.hatch."build.targets"]`) or an INI section."""


def _documents(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line of a YAML stream of several documents (`---` between them), its document's kind and name.

    Kubernetes manifests, a Helm chart's render, `kubectl get -o yaml` of several objects: every document has a
    `spec:`, `containers:`, `ports:`, alike from one to the next. A kept `replicas: 2` without the `kind: Deployment`
    and `name: api` of its document could be any workload's. Its identity is its top-level `kind:` and its id and
    name fields, or the name under its `metadata:` (`  name: api`, placed by `metadata:` in turn).
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    for start, end, fields in document_spans(lines, depths):
        for index in range(start, end):
            result[index] = tuple(field for field in fields if field != index)
    return result


_QUOTED_START = re.compile(r'^[ \t]*+(?:- )?+[\w.-]++: "')
"""A YAML field whose value is a double-quoted scalar (`content: "Team Building Plan\\nThe objective ...`)."""
_QUOTED_PIECE = re.compile(r'\\(.?)|"')
"""In a double-quoted scalar, an escape (`\\n`, `\\ `, a `\\` that breaks the line) or its closing quote."""
_UNESCAPED = {'n': '\n', 't': '\t', ' ': ' ', '"': '"', '\\': '\\', '/': '/'}


def _quoted_scalars(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    r"""Each line of a YAML double-quoted scalar folded over several lines, the lines where its text's parents start.

    A YAML dump writes a multi-line string field as one quoted scalar, its own line breaks as `\n` and its lines
    folded at 80 columns wherever they fall (`\  - Location: Conference room A\n  - Date: 2023-11-15\n  - Time:`).
    Read by the file's indentation, every folded line sits under the field alone: a kept `Date:` said nothing of
    the `Activity 1: Problem-Solving Workshop` it belongs to. Read as the text it holds, each of its lines is placed
    by the nearest line above with less indentation. A file's line is placed by where the parents of the last text
    line on it start (and where that one starts, when it goes on from a line above): what the line leads into. Not
    by the parents of the text lines before it: the line opening `Activity 4` holds the end of `Activity 3`, and
    with `Activity 3`'s title it would bring the line holding the end of `Activity 2` and so on, up to the first.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    index = 0
    while index < len(lines):
        start = _QUOTED_START.match(lines[index])
        index = index + 1 if start is None else _place_in_scalar(lines, index, start.end(), result)
    return result


def _place_in_scalar(lines: Sequence[str], first: int, offset: int, result: list[tuple[int, ...]]) -> int:
    r"""Place the lines of the scalar opening at `offset` of line `first` (see `_quoted_scalars`); the line after it.

    Its lines are indented deeper than its key's: a line that is not ends it, closed or not, so a quote opened in a
    shell script or in prose does not read the rest of the file as its text. A line's `\r` (CRLF) is no escape.
    """
    started: list[int] = []
    """Per line of the scalar's text: the file's line where its first non-blank character is (-1: none yet)."""
    parents: list[tuple[int, ...]] = []
    """Per line of the scalar's text: the file's lines where its parents start, nearest first."""
    stack: list[tuple[int, int]] = []
    """(indentation, text line) of the text lines open above the current one: its parents, deepest last."""
    lead = 0
    """How many blanks the current text line starts with so far, while it is all blanks."""
    last: dict[int, int] = {}
    """File line -> the last text line with text on it: what the line leads into."""
    index, closed = first, False
    key_depth = indent(lines[first])
    while index < len(lines) and not closed:
        line = lines[index].removesuffix('\r')
        if index > first and line.strip() and indent(line) <= key_depth:
            break  # no line of the scalar: a quote never closed (`echo: "` in a `run: |` block, in prose)
        raw = line[offset:] if index == first else line.lstrip(' \t')
        decoded, closed, broken = _decoded(raw)
        if not closed and not broken:
            decoded += ' ' if raw else '\n'  # a plain line break folds into a blank; an empty line is a line break
        for number, piece in enumerate(decoded.split('\n')):
            if number or not started:
                started.append(-1)
                parents.append(())
                lead = 0
            text_line = len(started) - 1
            if started[text_line] < 0:
                content = piece.lstrip(' ')
                if not content:
                    lead += len(piece)
                    continue
                depth = lead + len(piece) - len(content)
                while stack and stack[-1][0] >= depth:
                    stack.pop()
                started[text_line] = index
                parents[text_line] = tuple(started[line] for _, line in reversed(stack[-MAX_DEPTH:]))
                stack.append((depth, text_line))
            if piece:
                last[index] = text_line
        index += 1
    for line, text_line in last.items():
        placing = parents[text_line] if started[text_line] == line else (started[text_line], *parents[text_line])
        result[line] = tuple(place for place in placing if place != line)
    return index


def _decoded(raw: str) -> tuple[str, bool, bool]:
    r"""`raw`, a line of a double-quoted scalar without its indentation, with its escapes read.

    As (the text, whether the scalar's closing quote ends it, whether it ends in a `\` that breaks the line:
    the next line follows with nothing between).
    """
    pieces: list[str] = []
    at = 0
    for match in _QUOTED_PIECE.finditer(raw):
        pieces.append(raw[at : match.start()])
        at = match.end()
        escaped = match.group(1)
        if escaped is None:
            return ''.join(pieces), True, False
        if not escaped:
            return ''.join(pieces), False, True
        pieces.append(_UNESCAPED.get(escaped, '?'))
    pieces.append(raw[at:])
    return ''.join(pieces), False, False


def document_spans(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, int, tuple[int, ...]]]:
    """(start, end, identity) of each document of a YAML stream of several (see `_documents`); none for one document.

    `depths`: `indent`'s. The identity is the lines of its kind, id and name fields.
    """
    separators = [index for index, line in enumerate(lines) if line[:3] == '---' and _DOCUMENT.match(line)]
    if not separators:
        return []
    spans = [
        (start + 1, end, _document_fields(lines, depths, start + 1, end))
        for start, end in itertools.pairwise([-1, *separators, len(lines)])
        if any(depths[index] >= 0 for index in range(start + 1, end))
    ]
    return spans if len(spans) > 1 else []  # a `---` over one document or under it: one document


_DOCUMENT = re.compile(r'---(?:[ \t]+\S.*)?\r?$')
"""A YAML document's start (`---`, or with a tag or a value after it: `--- !Deployment`), not a Markdown rule's
longer dashes."""
_KIND_FIELDS = ('kind', 'type')


def _document_fields(lines: Sequence[str], depths: Sequence[int], start: int, end: int) -> tuple[int, ...]:
    """The lines of the document `lines[start:end]` saying what it is: its kind, its id, its name (see `_documents`)."""
    found: dict[str, int] = {}
    metadata = False
    for index in range(start, end):
        depth = depths[index]
        if depth == 0 and lines[index].startswith('-'):
            metadata = False  # a list's item (`- name: alpha`): the item's name, not the document's
        elif depth == 0:
            field = _FIELD.match(lines[index])
            name = field.group(1).lower() if field is not None else ''
            metadata = name == 'metadata'
            found.setdefault(name, index)
        elif depth == 2 and metadata:
            field = _FIELD.match(lines[index])
            if field is not None and field.group(1).lower() in _NAME_FIELDS:
                found.setdefault(field.group(1).lower(), index)
    groups = (_KIND_FIELDS, _ID_FIELDS, _NAME_FIELDS)
    fields = (next((found[name] for name in group if name in found), None) for group in groups)
    return tuple(field for field in fields if field is not None)


def _diagnostics(lines: Sequence[str], depths: Sequence[int]) -> list[tuple[int, ...]]:
    """Each line of a compiler diagnostic's or a linter finding's block, its header (`shell.diagnostic_blocks`).

    The snippet's source lines stand at the left edge when the line numbers fill the gutter (`170 |     let n = 1;`,
    ruff's `5 | class Account:`): read by indentation, nothing placed them, and a kept source line said neither which
    error nor which file it was in. The header is placed by its place under it (`  --> src/main.rs:170:47`): kept
    alone, `E501 Line too long (126 > 120)` or `error[E0308]: mismatched types` said nothing of where to look.
    """
    result: list[tuple[int, ...]] = [()] * len(lines)
    for header, end in diagnostic_blocks(Joined(lines)):
        for index in range(header + 1, end):
            result[index] = (header,)
        if header + 1 < end and PLACE.match(lines[header + 1]):
            result[header] = (header + 1,)
    return result


_EXTRA: dict[ContentKind, Callable[[Sequence[str], Sequence[int]], list[tuple[int, ...]]]] = {
    ContentKind.CODE: _joined(_decorators, _config_sections),
    ContentKind.RECORDS: _joined(_tables, _records, _sequence_keys, _documents, _quoted_scalars),
    ContentKind.PROSE: _joined(_tables, _headings, _quoted_scalars),
    ContentKind.SEARCH: _results,
    ContentKind.SHELL: _joined(
        _tables, _banners, _sections, _tasks, _contexts, _above_trouble, _outcomes, _diagnostics
    ),
    ContentKind.LOG: _joined(_above_trouble, _error_details),
}
"""Kinds whose lines have enclosing lines besides their indentation parents: each function takes the lines and
their indentations (`indent`, worked out once), which records read and the others do not need."""
