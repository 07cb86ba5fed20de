"""Command and test output: errors, the exception of a traceback and its last frames, the summary lines.

What a reader acts on after a command is whether it failed and why: the verdict first (`=== 1 failed,
47 passed ===`, `Ran 12 tests`, `FAILED (failures=1)`, Jest's `Tests: 1 failed, 5 passed`, Go's
`FAIL<tab>example.com/shop<tab>0.41s`; ranked above every other required line), then the failures
(`FAILED t.py::test_x`, unittest's `FAIL: test_x`, Go's `--- FAIL: TestX`, Jest's `FAIL src/a.test.ts`,
pytest's `E   ` lines, a compiler's `file:line:col: error:`) and for a traceback the exception line
and the frames nearest to it (the place that raised). A long run of passing tests is what gets
dropped; so are the `ok` lines of a Go run's passing packages, which are many.

Next come the lines an agent's next command starts from: pytest's `rootdir:` (the folder it runs
the next command in) and the location under a failure (`tests/test_x.py:88: AssertionError`, the
file and line it opens next). pytest's section banners (`=== FAILURES ===`, `=== short test summary
info ===`) are separators, 20 tokens of `=` each: the lines under them are what counts.

pytest's `=== PASSES ===` section (`-rA`, `-rP`) is the captured output of every test that passed,
each under a banner naming it: a server's access log, a warning printed on the way. It holds names
and numbers the fact scan counts, a few tokens a line, and would win the budget from the failure a
reader came for: its lines weigh less than nothing (`lines.NOISE`), unless a later turn quotes them, and
so do the `PASSED tests/test_api.py::test_get` lines `-rA` adds to the short test summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .lines import HIGH, LOW, MID, MUST, NOISE, Joined

VERDICT = 2 * MUST
"""The verdict first: whether the run passed, before which tests failed and why."""
VERDICT_LINE = (
    r'=+ .*\b(?:passed|failed|errors?|skipped|xfailed|no tests ran)\b'
    r'|Ran \d+ tests? in |FAILED \((?:failures|errors)=|Tests: +\d+ (?:failed|passed)|FAIL\t\S+\t\d+(?:\.\d+)?s'
)
"""The start of a test run's verdict line, per runner (a pattern's text, to match at a line start): pytest's
`=== 1 failed, 9 passed in 0.2s ===`, unittest's `Ran 10 tests in 0.1s` and `FAILED (failures=1)`, Jest's
`Tests: 1 failed, 4 passed`, Go's `FAIL\tpkg\t0.01s`. What ranks it, tells test output and places nothing."""
TEST_HEADER = r'--- (?:PASS|FAIL|SKIP): '
"""The start of Go's line naming one test's outcome (`--- FAIL: TestParse (0.00s)`), as a pattern's text."""

_RULES = (
    (re.compile(rf'^(?:{VERDICT_LINE})', re.MULTILINE), VERDICT),
    (
        re.compile(
            r'^(?:(?:FAILED|FAIL|ERROR)[ :]|--- FAIL: '
            r'|[\w./-]+\.\w+:\d+(?::\d+)?: (?:fatal )?error|error(?:\[E\d+\])?: |npm ERR!|make(?:\[\d+\])?: \*\*\*'
            r'|\w[\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b(?:: |$)|E {3})',
            re.MULTILINE,
        ),
        MUST,
    ),
    (
        re.compile(
            r'^(?:\$ |Traceback \(most recent call last\)|rootdir: |[\w./-]+\.\w+:\d+: [A-Z][\w.]*$)', re.MULTILINE
        ),
        HIGH,
    ),
    (re.compile(r'(?:\.\.\. (?:FAIL|ERROR)| (?:FAILED|ERROR))\b'), HIGH),
    (re.compile(r'^(?:[\w./-]+\.\w+:\d+(?::\d+)?: warning|warning: )', re.MULTILINE), MID),
    (re.compile(r'(?=e)\bexit (?:code|status) \d+'), MID),
    (
        re.compile(
            r'^(?:_{3,} .* _{3,}$|-{3,} .* -{3,}$|=+ (?:short test summary info|FAILURES|ERRORS) =+$)', re.MULTILINE
        ),
        LOW,
    ),
)
"""Each pattern either starts every branch at a line start (`^(?:...)`: one test per position of the text)
or starts with a literal or a lookahead, so the scan passes over the positions where it cannot match
in one test instead of trying each branch there (`lines.words_pattern` does the same)."""
_FRAME = re.compile(r'^(?:[ \t]*File "[^"\n]+", line \d+|[\w./-]+\.py:\d+: in \w)', re.MULTILINE)
_LAST_FRAMES = 2
"""Frames of a traceback kept first, counted back from the exception: where it was raised."""
_RAN = re.compile(r'^Ran \d+ tests? in ', re.MULTILINE)
_OK = re.compile(r'OK(?: \(|$)')
"""unittest's passing verdict (`OK`, `OK (skipped=2)`), a verdict only under its `Ran 12 tests in 0.01s`: alone,
`OK` is what many a command prints once per step (`redis-cli SET`), each 2 tokens of `VERDICT` otherwise."""
_PASSES = re.compile(r'^=+ PASSES =+\r?$', re.MULTILINE)
_PASSED = re.compile(r'^PASSED ', re.MULTILINE)
"""A passing test in pytest's short test summary (`-rA`): `PASSED tests/test_api.py::test_get`, one a test."""
_SECTION = re.compile(r'(?:\x1b\[[\d;]*m)*=+ .+ =+(?:\x1b\[[\d;]*m)*\r?$|-+ (?!Captured ).+ -+\r?$')
"""A pytest section banner (`=== short test summary info ===`, the verdict): where the `PASSES` section ends. In
color too (`--color=yes`): pytest prints `=== PASSES ===` plain, the banners after it in color codes. Or a plugin's
rule (`---- coverage: platform linux ----`, `---- generated xml file: ... ----`): a passing test's own are
`---- Captured stdout call ----`."""
_SEPARATOR = re.compile(r'_(?: _)+\s*')
"""pytest's `_ _ _ _` between two frames of one traceback: what follows is its next frame, not the exception
(its trailing space kept or not, and a `\\r` where the output has Windows line ends)."""


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = lines.bonuses(_RULES)
    for ran in lines.matching(_RAN):
        for after in range(ran + 1, min(ran + 3, len(lines))):  # `OK` under it, a blank line between or not
            if _OK.match(lines.lines[after]):
                result[after] = max(result[after], VERDICT)
    frames = lines.matching(_FRAME)
    last: list[int] = []
    for position, index in enumerate(frames):  # the last frames of each traceback: before a gap in the frames
        following = frames[position + 1] if position + 1 < len(frames) else None
        if following is None or following - index > 3:
            last.extend(frames[max(0, position - _LAST_FRAMES + 1) : position + 1])
    for index in last:
        result[index] = max(result[index], HIGH)
        if index + 1 < len(lines):  # the source line under a frame
            result[index + 1] = max(result[index + 1], MID)
    for index in _exception_lines(lines.lines, frames):
        result[index] = MUST  # the exception, and the frame that raised it with its source line
        for frame in (index - 2, index - 1):
            if frame >= 0 and result[frame] >= MID:
                result[frame] = MUST
    if lines:
        result[-1] = max(result[-1], MID)  # the last line of a command: its result or its prompt
    _passing(lines, result)
    return result


def _passing(lines: Joined, result: list[float]) -> None:
    """Give pytest's lines about tests that passed the `NOISE` bonus: its `PASSES` section and `PASSED` lines."""
    for index in lines.matching(_PASSED):
        result[index] = NOISE
    for start in lines.matching(_PASSES):
        result[start] = NOISE
        for index in range(start + 1, len(lines)):
            if _SECTION.match(lines.lines[index]):
                break
            result[index] = NOISE


def _exception_lines(lines: Sequence[str], frames: Sequence[int]) -> list[int]:
    """The line naming the exception after each traceback: the first unindented line after its last frame.

    Its name varies too much to match (`decimal.InvalidOperation: ...`, `KeyError: 'sku'`).
    """
    found: list[int] = []
    for position, index in enumerate(frames):
        if position + 1 < len(frames) and frames[position + 1] - index <= 3:
            continue  # not the last frame of its traceback
        for after in range(index + 1, min(index + 4, len(lines))):
            if lines[after][:1] not in ('', ' ', '\t'):
                if not _SEPARATOR.fullmatch(lines[after]):
                    found.append(after)
                break
    return found
