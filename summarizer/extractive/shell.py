"""Command and test output: errors, the exception of a traceback and its last frames, the verdict.

What a reader acts on after a command is whether it failed and why: the verdict first (`=== 1 failed,
47 passed ===`, `Ran 12 tests`, `FAILED (failures=1)`, Jest's `Tests: 1 failed, 5 passed`, Go's
`FAIL<tab>example.com/shop<tab>0.41s`, `cargo test`'s `test result: FAILED. 40 passed; 1 failed`,
cargo's `error: could not compile 'x' (lib) due to 2 previous errors`, pip's `Successfully installed`;
ranked above every other required line), then the failures (`FAILED t.py::test_x`, unittest's
`FAIL: test_x`, Go's `--- FAIL: TestX`, Jest's `FAIL src/a.test.ts`, pytest's `E   ` lines, a
compiler's `file:line:col: error:` or rustc's `error[E0308]: ...`, pip's `ERROR: ...`) and for a
traceback the exception line and the frames nearest to it (the place that raised); for a panic, Go's
`panic: ...` and Rust's `thread 'x' panicked at src/a.rs:3:9:` with the message under it.

Why a Go test failed is what it printed (`    send_test.go:74: got 3, want 2`, its `t.Errorf`): the
lines a failing test printed weigh `HIGH`, its last `MUST` (see `_go_failures`).

Next come the lines an agent's next command starts from: pytest's `rootdir:` (the folder it runs
the next command in) and the location of a failure (`tests/test_x.py:88: AssertionError`, rustc's
`  --> src/ledger.rs:118:24` under its error: the file and line it opens next). pytest's section
banners (`=== FAILURES ===`, `=== short test summary info ===`) are separators, 20 tokens of `=`
each: the lines under them are what counts.

What went well weighs less than nothing (`lines.NOISE`), unless a later turn quotes it: it holds
names and numbers the fact scan counts, a few tokens a line, by the dozen, and would win the budget
from the failure a reader came for. So do pytest's `=== PASSES ===` section (`-rA`, `-rP`: the
captured output of every test that passed, each under a banner naming it) and the `PASSED
tests/test_api.py::test_get` lines `-rA` adds to the short test summary; Go's `=== RUN` and
`--- PASS:` lines; the progress of cargo (`   Compiling serde v1.0.193`), of `cargo test` (`test a::b
... ok`) and of pip (`Requirement already satisfied: `, `Collecting `, `Downloading `). Beside a
failure, so do the verdicts of the packages and test binaries that passed (Go's `ok<tab>pkg<tab>0.2s`,
`test result: ok.`); without one, they are what the run says.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from .lines import HIGH, LOW, MID, MUST, NOISE, Joined

VERDICT = 2 * MUST
"""The verdict first: whether the run passed, before which tests failed and why."""
VERDICT_LINE = (
    r'=+ .*\b(?:passed|failed|errors?|skipped|xfailed|no tests ran)\b'
    r'|Ran \d+ tests? in |FAILED \((?:failures|errors)=|Tests: +\d+ (?:failed|passed)|FAIL\t\S+\t\d+(?:\.\d+)?s'
    r'|test result: (?:ok|FAILED)\. |error: (?:could not compile `|aborting due to )|Successfully installed '
)
"""The start of a run's verdict line, per tool (a pattern's text, to match at a line start): pytest's
`=== 1 failed, 9 passed in 0.2s ===`, unittest's `Ran 10 tests in 0.1s` and `FAILED (failures=1)`, Jest's
`Tests: 1 failed, 4 passed`, Go's `FAIL\tpkg\t0.01s`, `cargo test`'s `test result: FAILED. 3 passed; 1 failed; ...`,
cargo's and rustc's `error: could not compile 'x' (lib) due to 2 previous errors` (`x` in backquotes) and `error: aborting due to ...`,
pip's `Successfully installed x-1.0`. What ranks it, tells command output and places nothing."""
TEST_HEADER = r'--- (?:PASS|FAIL|SKIP): '
"""The start of Go's line naming one test's outcome (`--- FAIL: TestParse (0.00s)`), as a pattern's text."""

_RULES = (
    (re.compile(rf'^(?:{VERDICT_LINE})', re.MULTILINE), VERDICT),
    (
        re.compile(
            r'^(?:(?:FAILED|FAIL|ERROR)[ :]|--- FAIL: '
            r'|[\w./-]+\.\w+:\d+(?::\d+)?: (?:fatal )?error|error(?:\[E\d+\])?: |npm ERR!|make(?:\[\d+\])?: \*\*\*'
            r'|\w[\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b(?:: |$)|E {3}|panic: |thread \'[^\'\n]*\' panicked at )',
            re.MULTILINE,
        ),
        MUST,
    ),
    (
        re.compile(
            r'^(?:\$ |Traceback \(most recent call last\)|rootdir: |[\w./-]+\.\w+:\d+: [A-Z][\w.]*$|[ \t]*--> \S+:\d+)',
            re.MULTILINE,
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
_PROGRESS = re.compile(
    r'^(?:[ \t]*(?:=== (?:RUN|PAUSE|CONT|NAME) |--- (?:PASS|SKIP): )'
    r'|[ \t]*(?:Compiling|Checking|Downloaded|Fresh|Adding|Documenting|Installing|Packaging|Verifying) \S+ v\d'
    r'|[ \t]*(?:Updating (?:crates\.io index|git repository )|Locking \d+ packages?|Blocking waiting for file lock'
    r'|Downloaded \d+ crates? |Downloading crates \.\.\.)'
    r'|test .+ \.\.\. (?:ok|ignored)\b|Requirement already satisfied: |Collecting \S|[ \t]*(?:Downloading|Using cached) \S'
    r'|[ \t]+━|go: downloading )',
    re.MULTILINE,
)
"""Progress lines of work that went well, one a test, a crate or a package: Go's `=== RUN TestX`, `=== PAUSE`,
`=== CONT`, `=== NAME` and `--- PASS: TestX (0.00s)` (a subtest's indented), cargo's `   Compiling serde v1.0.193`
(and `Checking`, `Downloaded`, `Fresh`, ..., each a crate at a version), `Updating crates.io index`,
`Locking 71 packages`, `cargo test`'s `test a::b ... ok`, pip's `Requirement already satisfied: `, `Collecting `,
`Downloading ` (indented under its `Collecting` or not, as pip 24 prints the wheels it fetches after resolving),
`  Using cached ` and its progress bars (`   ━━━━━━ 1.2/1.2 MB`), `go: downloading`."""
_PASSED_UNIT = re.compile(r'^(?:(?:ok|\?) +\t\S+\t|PASS\r?$|test result: ok\. )', re.MULTILINE)
"""The verdict of one package or test binary that passed: Go's `ok  \tpkg\t0.2s` (and `?   \tpkg\t[no test files]`,
the `PASS` over it), `cargo test`'s `test result: ok. 12 passed; ...`. Noise beside a failure, the run's verdict
without one."""
_GO_LINE = re.compile(
    r'^(?:[ \t]*(?:=== (?P<run>RUN|CONT|NAME|PAUSE) +|--- (?P<end>PASS|FAIL|SKIP): )(?P<test>\S+)'
    r'|(?P<package>PASS|FAIL|ok |\? )|(?P<message>[ \t]+)[\w.-]+\.go:\d+: )',
    re.MULTILINE,
)
"""The lines of `go test` that say which test the lines under them belong to (`=== RUN TestX`, `--- FAIL: TestX`,
a package's `PASS`, `FAIL`, `ok`), and a test's message (`    send_test.go:74: got 3, want 2`, its indentation)."""
_GO_FAILED = re.compile(r'^[ \t]*--- FAIL: (\S+)', re.MULTILINE)
_MESSAGE_LINES = 8
"""The most lines under one Go test message taken as its own (a `t.Errorf` with line breaks: `got:`/`want:`)."""
_PANICKED = re.compile(r"^thread '[^'\n]*' panicked at \S+:\d+:\d+:\r?$", re.MULTILINE)
"""A Rust panic (Rust 1.73 on) whose message is on the lines under it: `thread 'x' panicked at src/a.rs:3:9:`."""
_PANIC_LINES = 4
"""The most lines of a Rust panic's message kept with it: `assertion failed`, `  left: 1`, ` right: 2`."""
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
    _go_failures(lines, result)
    _panics(lines, result)
    _passing(lines, result)
    return result


def _go_failures(lines: Joined, result: list[float]) -> None:
    """A failing Go test's messages: `HIGH`, the last before its `--- FAIL:` or the next test's lines `MUST`.

    `go test -v` prints what a test logged between its `=== RUN` and its `--- FAIL:` (interleaved tests under an
    `=== CONT` or `=== NAME` line), without `-v` under its `--- FAIL:`: `    send_test.go:74: got 3, want 2`. A
    `t.Log` and a `t.Errorf` look alike there; a failing test's last message is its `t.Fatalf`, or an Errorf
    after the Logf that led to it: the reason, as an exception is the last line of a traceback. A passing
    test's messages are no failure's and keep their weight (none).
    """
    failed = {match.group(1) for match in _GO_FAILED.finditer(lines.text)}
    if not failed:
        return
    messages: list[int] = []
    """The message lines of the failing test the lines are about, at the moment."""
    current: str | None = None
    starts = lines.starts
    for match in _GO_LINE.finditer(lines.text):
        index = bisect.bisect_right(starts, match.start()) - 1
        if match.group('message') is None:
            _failed_test(lines.lines, messages, result)
            messages = []
            current = match.group('test') if match.group('run') != 'PAUSE' else None
        elif current in failed:
            messages.append(index)
    _failed_test(lines.lines, messages, result)


def _failed_test(lines: Sequence[str], messages: Sequence[int], result: list[float]) -> None:
    """Weigh one failing Go test's `messages` (line indices) and the more indented lines under each."""
    for index in messages:
        result[index] = max(result[index], HIGH)
        depth = len(lines[index]) - len(lines[index].lstrip(' \t'))
        for after in range(index + 1, min(index + 1 + _MESSAGE_LINES, len(lines))):
            line = lines[after]
            if not line.strip() or len(line) - len(line.lstrip(' \t')) <= depth:
                break
            result[after] = max(result[after], HIGH)
    if messages:
        result[messages[-1]] = max(result[messages[-1]], MUST)


def _panics(lines: Joined, result: list[float]) -> None:
    """Weigh a Rust panic's message, the lines under its `panicked at` line up to a blank line or a `note:`.

    Its first line is `MUST` (`assertion failed`), the values it compared `HIGH` (`  left: 1`).
    """
    for index in lines.matching(_PANICKED):
        for after in range(index + 1, min(index + 1 + _PANIC_LINES, len(lines))):
            line = lines.lines[after]
            if not line.strip() or line.startswith('note: '):
                break
            result[after] = max(result[after], MUST if after == index + 1 else HIGH)


def _passing(lines: Joined, result: list[float]) -> None:
    """Give lines about work that passed the `NOISE` bonus (see the module's docstring).

    pytest's `PASSES` section and `PASSED` lines, other tools' progress (`_PROGRESS`); and beside a failure (a line
    of `MUST` or more left), the verdicts of the packages and test binaries that passed (`_PASSED_UNIT`).
    """
    for index in lines.matching(_PASSED):
        result[index] = NOISE
    for index in lines.matching(_PROGRESS):
        result[index] = NOISE
    units = lines.matching(_PASSED_UNIT)
    passed = set(units)
    if any(bonus >= MUST and index not in passed for index, bonus in enumerate(result)):
        for index in units:
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
