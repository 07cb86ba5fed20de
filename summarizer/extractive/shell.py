"""Command and test output: errors, the exception of a traceback and its last frames, the verdict.

What a reader acts on after a command is whether it failed and why: the verdict first (`=== 1 failed,
47 passed ===`, `Ran 12 tests`, `FAILED (failures=1)`, Jest's `Test Suites: 1 failed, 6 passed` and
`Tests: 1 failed, 5 passed`, Vitest's `Test Files  1 failed | 3 passed`, Mocha's `5 passing (12ms)` and
`1 failing`, Go's `FAIL<tab>example.com/shop<tab>0.41s`, `cargo test`'s `test result: FAILED. 40 passed;
1 failed`, cargo's `error: could not compile 'x' (lib) due to 2 previous errors`, `tsc`'s `Found 14 errors
in 4 files.`, ESLint's `✖ 12 problems (3 errors, 9 warnings)`, pip's `Successfully installed`,
Terraform's `Plan: 0 to add, 5 to change, 1 to destroy.`, `Apply complete! Resources: ...` and `No
changes.`; ranked above every other required line), then the failures (`FAILED t.py::test_x`,
unittest's `FAIL: test_x`, Go's `--- FAIL: TestX`, Jest's `FAIL src/a.test.ts` and `● Suite › test`,
Vitest's ` FAIL  src/a.test.ts > test`, pytest's `E   ` lines, a compiler's `file:line:col: error:`,
`tsc`'s `src/a.ts(12,5): error TS2322: ...` (or `src/a.ts:12:5 - error TS2322: ...`), rustc's
`error[E0308]: ...` (with its snippet's source line and labels, see `_diagnostics`), ESLint's `  12:5  error
...`, pip's `ERROR: ...`, npm's `npm ERR!` and `npm error`, Terraform's `Error: ...`, boxed in `│` or not) and for a traceback the exception line and
the frames nearest to it (the place that raised); for a panic, Go's `panic: ...` and Rust's
`thread 'x' panicked at src/a.rs:3:9:` with the message under it. A Go crash's goroutine dump keeps
the goroutine that crashed (`goroutine 42 [running]:`, its first frames `HIGH`); the others' blocks
are alike but for their numbers, and fold. So do pytest's lines alike but for their test (`signature`): eighty
`ERROR t.py::test_x` lines of one fixture that could not start are one line and a count, and the `FAILED` line that
differs is not crowded out.

Why a Go test failed is what it printed (`    send_test.go:74: got 3, want 2`, its `t.Errorf`): the
lines a failing test printed weigh `HIGH`, its last `MUST` (see `_go_failures`). Why a JavaScript test
failed is in the block under its header (see `_js_failures`): the message, what it compared (`Expected:
90.5`, `Received: 95.25`), the failing source line (`> 42 |`) and the first frame of the test's own
(`at Object.<anonymous> (src/a.test.ts:42:34)`); the failing test in the run's list (Jest's `✕ test`,
Vitest's `× test`) weighs `HIGH` too. What a Terraform plan does is named a resource a line (`  #
aws_s3_bucket.logs will be updated in-place`, `HIGH`; `must be replaced` and `will be destroyed` twice
that), and why a resource is replaced by its attribute that `# forces replacement` (`HIGH`).

Next come the lines an agent's next command starts from: pytest's `rootdir:` (the folder it runs
the next command in) and the location of a failure (`tests/test_x.py:88: AssertionError`, rustc's
`  --> src/ledger.rs:118:24` under its error, Vitest's ` ❯ src/a.test.ts:42:34`, Terraform's
`│   on main.tf line 12`: the file and line it opens next). pytest's section banners (`=== FAILURES ===`,
`=== short test summary info ===`) are separators, 20 tokens of `=` each: the lines under them are
what counts; `tsc`'s table of errors per file (`Errors  Files`) counts again the errors above it (`LOW`).

What went well weighs less than nothing (`lines.NOISE`), unless a later turn quotes it: it holds
names and numbers the fact scan counts, a few tokens a line, by the dozen, and would win the budget
from the failure a reader came for. So do pytest's `=== PASSES ===` section (`-rA`, `-rP`: the
captured output of every test that passed, each under a banner naming it) and the `PASSED
tests/test_api.py::test_get` lines `-rA` adds to the short test summary; Go's `=== RUN` and
`--- PASS:` lines; the progress of cargo (`   Compiling serde v1.0.193`), of `cargo test` (`test a::b
... ok`), of pip (`Requirement already satisfied: `, `Collecting `, `Downloading `) and of Terraform
(`x: Refreshing state...`, `Still creating...`, `terraform init`'s `- Installing`). Beside a failure
(a required line but a verdict saying all passed), so do the verdicts of the packages, test files and
tests that passed (Go's `ok<tab>pkg<tab>0.2s`, `test result: ok.`, Jest's `PASS src/a.test.ts`, a
passing test's `✓ adds tax (3 ms)` in Jest, Vitest and Mocha); without one, they are what the run says.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from . import log
from .lines import ALARM, HIGH, LOW, MID, MUST, NOISE, Joined

VERDICT = 2 * MUST
"""The verdict first: whether the run passed, before which tests failed and why."""
VERDICT_LINE = (
    r'=+ .*\b(?:passed|failed|errors?|skipped|xfailed|no tests ran)\b'
    r'|Ran \d+ tests? in |FAILED \((?:failures|errors)=|FAIL\t\S+\t\d+(?:\.\d+)?s'
    r'|(?:Tests|Test Suites): +\d+ (?:failed|passed|skipped|todo)\b|[ \t]*(?:Tests|Test Files) +\d+ (?:failed|passed)\b'
    r'|[ \t]*\d+ (?:passing \(\d|failing\r?$)|Found \d+ errors?\b|✖ \d+ problems? \('
    r'|test result: (?:ok|FAILED)\. |error: (?:could not compile `|aborting due to )|Successfully installed '
    r'|Plan: \d+ to add, |(?:Apply|Destroy) complete! Resources: |No changes\. (?:Your i|I)nfrastructure '
    r'|[ \t]*Finished `?\w+`? (?:profile \[|target\(s\) in )|ERROR SUMMARY: \d+ errors? from |SUMMARY: \w+Sanitizer: '
    r'|\S+ +: ok=\d+ +changed=\d+ +unreachable=\d+ +failed=\d+'
)
"""The start of a run's verdict line, per tool (a pattern's text, to match at a line start): pytest's
`=== 1 failed, 9 passed in 0.2s ===`, unittest's `Ran 10 tests in 0.1s` and `FAILED (failures=1)`, Jest's
`Tests: 1 failed, 4 passed`, Go's `FAIL\tpkg\t0.01s`, `cargo test`'s `test result: FAILED. 3 passed; 1 failed; ...`,
cargo's and rustc's `error: could not compile 'x' (lib) due to 2 previous errors` (`x` in backquotes) and `error: aborting due to ...`,
pip's `Successfully installed x-1.0`; Jest's `Test Suites: 1 failed, 6 passed, 7 total`, Vitest's right-aligned
` Test Files  1 failed | 3 passed (4)` and `      Tests  1 failed | 38 passed (39)`, Mocha's `  38 passing (2s)` and
`  1 failing`, `tsc`'s `Found 14 errors in 4 files.` (`Found 1 error.`), ESLint's `✖ 12 problems (3 errors, 9
warnings)`, Terraform's `Plan: 1 to add, 0 to change, 0 to destroy.`, `Apply complete! Resources: ...`, `Destroy
complete! ...` and `No changes. Your infrastructure matches the configuration.`, cargo's `    Finished `dev` profile
[unoptimized + debuginfo] target(s) in 3.21s` (older: `Finished dev [unoptimized] target(s) in`), Valgrind's
`ERROR SUMMARY: 24 errors from 5 contexts` (its gutter `==17438== ` read past, see `lines.source_prefixes`), a
sanitizer's `SUMMARY: AddressSanitizer: heap-buffer-overflow a.c:7 in main`, a host's line of an Ansible run's recap
(`web-1 : ok=12 changed=3 unreachable=0 failed=1 ...`); a pre-commit hook's that failed is one too (`HOOK_FAILED`). What
ranks it, tells command output and places nothing."""
TEST_HEADER = r'--- (?:PASS|FAIL|SKIP): '
"""The start of Go's line naming one test's outcome (`--- FAIL: TestParse (0.00s)`), as a pattern's text."""

_STATUS = r'(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b'
PYTEST_NODE = rf'[^\s:]+\.\w+::\S.*?(?<! ) ++{_STATUS}'
"""The start of `pytest -v`'s line naming a test by its node id and saying how it went (`tests/test_api.py::test_get
PASSED  [ 10%]`), as a pattern's text. The blanks before the status are tried from the start of their run only:
from each blank of it, a line of blanks and no status took a time quadratic in the run (7 s for 40 KB)."""
_TEST_ID = re.compile(
    r'^(?:(?:FAILED|ERROR|PASSED|XFAIL|XPASS) [^\s:]+\.\w+::(?P<id>[^\r\n]*?)(?= - |\r?$)'
    rf'|[^\s:]+\.\w+::(?P<verbose>\S[^\r\n]*?)(?<! )(?= ++{_STATUS}))',
    re.MULTILINE,
)
"""A pytest line naming a test by its node id, with the id after the file (`TestClient::test_get[a-1]`) as a group: a
line of the short test summary (`ERROR tests/test_api.py::TestClient::test_get`, ` - ConnectionError: ...` after it or
not), or `pytest -v`'s `tests/test_api.py::TestClient::test_get ERROR  [  5%]` (its blanks read as `PYTEST_NODE`'s)."""

TSC_ERROR = r'[^\s(:]+\.\w+(?:\(\d+,\d+\): |:\d+:\d+ - )error TS\d+: '
"""The start of a `tsc` diagnostic, as a pattern's text: `src/a.ts(12,5): error TS2322: ...`, or with `--pretty` (as
`tsc --build` and a terminal print it) `src/a.ts:12:5 - error TS2322: ...`. The path may hold brackets (`[id].tsx`)."""
_ESLINT_AT = r'[ \t]+\d+:\d+ +'
"""Where an ESLint problem is, indented under the line naming its file (`  12:5  `), as a pattern's text."""
ESLINT_PROBLEM = rf'{_ESLINT_AT}(?:error|warning) +\S'
"""The start of one problem in ESLint's report (`  12:5  error  'x' is never used  no-unused-vars`), as a pattern's
text: indented under the line naming its file, which places it."""
VITEST_FAILURE = r'[ \t]*FAIL +\S+ (?:> |\[ )'
"""The start of the header of a failing test's block in Vitest's report, as a pattern's text: ` FAIL  src/a.test.ts >
Suite > test`, or ` FAIL  src/a.test.ts [ src/a.test.ts ]` for a file that failed to run."""
_TERRAFORM_RESOURCE = r'[ \t]*# [\w-]+\.\S+(?: \([^)\n]*\))? '
"""The start of a plan's line naming a resource (`  # aws_s3_bucket.logs `, `(deposed object 1a2b)` after it)."""
TERRAFORM_CHANGE = (
    rf'{_TERRAFORM_RESOURCE}(?:will be (?:created|updated in-place|read during apply|destroyed|replaced)'
    r'|must be replaced|has changed|has been deleted)\r?$'
)
"""Terraform's line naming a resource a plan changes, whole, as a pattern's text: `  # aws_s3_bucket.logs will be
created`, `  # aws_db_instance.main must be replaced` (`(deposed object 1a2b)` after the address), or a refresh found
changed outside Terraform (`has changed`, `has been deleted`)."""
TERRAFORM_BLOCK = r' *(?:[-+~]|-/\+|\+/-|<=) (?:resource|data) "'
"""The start of the block of a resource a plan changes (`  ~ resource "aws_s3_bucket" "logs" {`, `-/+ resource ...`,
` <= data ...`), as a pattern's text: its action's symbol before it, which source code has not."""

MEMORY_ERROR = (
    r'(?:Invalid (?:read|write) of size \d|(?:Invalid|Mismatched) free\(\)|Conditional jump or move depends on |Use of '
    r'uninitialised value|Syscall param \S+ points to |Source and destination overlap|Process terminating with '
    r'|[\d,]+ (?:\([\d,]+ direct, [\d,]+ indirect\) )?bytes in [\d,]+ blocks are definitely lost|==\d+==ERROR: \w+Sanitizer: )'
)
"""The start of a memory error's report, as a pattern's text: Valgrind's (`Invalid write of size 4`, `Conditional jump or
move depends on uninitialised value(s)`, `77 bytes in 7 blocks are definitely lost in loss record 1 of 1`, its gutter
`==17438== ` read past) or a sanitizer's (`==19501==ERROR: AddressSanitizer: heap-buffer-overflow on address ...`). The
stack under it says where."""
HOOK_FAILED = re.compile(r'\.{4}(?:\([^)\n]*\))?Failed\r?$', re.MULTILINE)
"""A pre-commit hook's line saying it failed (`mypy.......Failed`): found by its dots and its end, not read from its
start (a search for the dots passes over every other line in one C loop). Its run's verdict, and the header of the
tool output under it."""
_HOOK_ID = '\n- hook id: '
"""What pre-commit prints under a hook that failed: a text without it has no hook to weigh (a checklist's
`Checkout.......Failed` is no run)."""
HOOK_WENT_WELL = re.compile(r'\.{4}(?:\([^)\n]*\))?(?:Passed|Skipped)\r?$', re.MULTILINE)
"""A pre-commit hook's line saying it passed or had nothing to check (`check yaml......Passed`, `mypy....(no files to
check)Skipped`)."""
SIGNALLED = r'(?:Program|Thread \d+ "[^"\n]*") (?:received|terminated with) signal SIG'
"""gdb's line saying the program stopped on a signal, as a pattern's text: `Program received signal SIGSEGV, Segmentation
fault.`, in a program of several threads `Thread 8 "worker-7" received signal SIGSEGV`."""
NATIVE_FRAME = r'[ \t]*#\d+ +(?:0x[\da-f]+ in )?\S+ (?:\(.*\) at |/)[^\s:]+:\d+'
"""A native stack frame with its place, as a pattern's text: gdb's `#1  0x0000555555555179 in sum (n=0x7ffe, depth=3) at
crash.c:3` (`#0  main () at a.c:4`), a sanitizer's `    #1 0x560e14dba20f in dup /src/leak.c:4`."""
LINT_LINE = r'[\w./-]+\.\w+:\d+:\d+: [A-Z]{1,4}\d{2,4}:? (?:\[\*\] )?\S'
"""A linter's finding on one line, its place first, as a pattern's text: ruff's concise format and flake8's
(`shop/cart.py:4:7: D101 Missing docstring in public class`), pylint's (`shop/cart.py:1:0: C0114: Missing module
docstring (missing-module-docstring)`)."""
_RULES = (
    (re.compile(rf'^(?:{VERDICT_LINE})', re.MULTILINE), VERDICT),
    (
        re.compile(
            r'^(?:(?:FAILED|FAIL|ERROR)[ :]|--- FAIL: |[ \t]+FAIL +\S|[ \t]*● \S'
            r'|[\w./-]+\.\w+:\d+(?::\d+)?: (?:fatal )?error|error(?:\[E\d+\])?: |npm ERR!|npm error |make(?:\[\d+\])?: \*\*\*'
            rf'|{TSC_ERROR}|{_ESLINT_AT}error +\S|(?:│ )?Error: '
            r'|\w[\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b(?:: |$)|E {3}|panic: |thread \'[^\'\n]*\' panicked at '
            rf'|{MEMORY_ERROR}|{SIGNALLED}|Fatal Python error: |(?:fatal|failed): \[[^\]\n]*\]|\[ERROR\]: |ERROR! '
            r'|(?:[\w./-]+: (?:line \d+: )?(?:\d+ )?)?'
            r'(?:Segmentation fault|Bus error|Illegal instruction|Floating point exception|Aborted)\b)',
            re.MULTILINE,
        ),
        MUST,
    ),
    (
        re.compile(
            rf'^{_TERRAFORM_RESOURCE}(?:will be (?:destroyed|replaced)|must be replaced)\r?$',
            re.MULTILINE,
        ),
        2 * HIGH,
    ),
    (
        re.compile(
            r'^(?:\$ |Traceback \(most recent call last\)|rootdir: |[\w./-]+\.\w+:\d+: [A-Z][\w.]*$|[ \t]*--> \S+:\d+'
            rf'|[ \t]*[✕×✗✘] \S|[ \t]*> +\d+ \||[ \t]*❯ \S+:\d+:\d+|[ \t]*❯ .*\| \d+ failed\)|{TERRAFORM_CHANGE}'
            r'|│ +on \S+ line \d+|Origin: \S+:\d+|[ \t]*(?:definitely|indirectly|possibly) lost: [1-9])',
            re.MULTILINE,
        ),
        HIGH,
    ),
    (re.compile(r'(?:\.\.\. (?:FAIL|ERROR)| (?:FAILED|ERROR))\b|# forces replacement\b'), HIGH),
    (
        re.compile(
            rf'^(?:[\w./-]+\.\w+:\d+(?::\d+)?: warning|warning: |{_ESLINT_AT}warning +\S|(?:│ )?Warning: |{LINT_LINE}'
            rf'|\[WARNING\]: |\.\.\.ignoring\r?$|{NATIVE_FRAME}|[ \t]+(?:at|by) 0x[\dA-F]+: .+\([^()\s]+:\d+\)\r?$'
            r'|[ \t]+Address 0x)',
            re.MULTILINE,
        ),
        MID,
    ),
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
_REASON_LINE = re.compile(r'^E {3}', re.MULTILINE)
"""A line of pytest's saying why a test failed (`E       assert 3 == 2`), one of a block under the failing source line."""
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
    r'|[ \t]+━|go: downloading '
    r'|[^\s:]+: (?:Refreshing state\.\.\.|Still \w+\.\.\. \[|Reading\.\.\.|Read complete after )'
    r'|- (?:Finding|Installing|Installed|Reusing previous version of|Using previously-installed) \S)',
    re.MULTILINE,
)
"""Progress lines of work that went well, one a test, a crate or a package: Go's `=== RUN TestX`, `=== PAUSE`,
`=== CONT`, `=== NAME` and `--- PASS: TestX (0.00s)` (a subtest's indented), cargo's `   Compiling serde v1.0.193`
(and `Checking`, `Downloaded`, `Fresh`, ..., each a crate at a version), `Updating crates.io index`,
`Locking 71 packages`, `cargo test`'s `test a::b ... ok`, pip's `Requirement already satisfied: `, `Collecting `,
`Downloading ` (indented under its `Collecting` or not, as pip 24 prints the wheels it fetches after resolving),
`  Using cached ` and its progress bars (`   ━━━━━━ 1.2/1.2 MB`), `go: downloading`; Terraform's
`aws_s3_bucket.logs: Refreshing state... [id=logs]`, `Still creating... [10s elapsed]`, `Reading...`, `Read complete
after 1s` and `terraform init`'s `- Installing hashicorp/aws v5.31.0...` (and `Finding`, `Installed`, `Reusing`)."""
_PASSED_UNIT = re.compile(
    r'^(?:(?:ok|\?) +\t\S+\t|PASS\r?$|test result: ok\. |[ \t]*PASS +\S|[ \t]*[✓✔√] \S|(?:ok|changed|skipping): \['
    rf'|\S+ +: ok=\d+ +changed=\d+ +unreachable=0 +failed=0 |{HOOK_WENT_WELL})',
    re.MULTILINE,
)
"""The verdict of one package, test binary, test file or test that passed: Go's `ok  \tpkg\t0.2s` (and
`?   \tpkg\t[no test files]`, the `PASS` over it), `cargo test`'s `test result: ok. 12 passed; ...`, Jest's
`PASS src/a.test.ts` and `  ✓ adds tax (3 ms)`, Mocha's `  ✔ adds tax`, Vitest's ` ✓ src/a.test.ts (6 tests) 3ms`,
an Ansible task's on a host (`ok: [web-1]`, `changed: [web-1] => (item=api)`, `skipping: [web-1]`) and the recap's
line of a host where nothing failed (`web-1 : ok=12 changed=3 unreachable=0 failed=0 ...`), a pre-commit hook's that
passed or had nothing to check (`check yaml......Passed`, `mypy....(no files to check)Skipped`). Noise beside a failure,
the run's verdict without one."""
PASSED_TEST = re.compile(r' \.\.\. (?:ok|skipped\b[^\n]*+|expected failure)\r?$', re.MULTILINE)
"""unittest's line for a test that passed or was skipped, verbose (`test_total (shop.tests.CartTests) ... ok`, Django's
`Cart totals round half up ... ok`): noise beside a failure, as `_PASSED_UNIT`'s lines are."""
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
_GO_CRASH = re.compile(r'^(?:panic|fatal error): ', re.MULTILINE)
"""A Go program's crash: `panic: runtime error: invalid memory address ...`, `fatal error: all goroutines are asleep`."""
_GOROUTINE = re.compile(r'^goroutine \d+ \[running\]:', re.MULTILINE)
"""The stack of the goroutine that crashed, in the dump under a Go crash (the others wait: `[select]`, `[chan receive]`)."""
_GO_FRAME_LINES = 8
"""The most lines of the crashed goroutine's stack weighed `HIGH`: four frames, a function and its `file.go:88` line each."""
_JS_HEADER = re.compile(
    rf'^(?:(?P<jest>[ \t]*● \S)|(?P<vitest>{VITEST_FAILURE})|(?P<mocha>[ \t]*\d+\) \S))', re.MULTILINE
)
"""The header of a failing test's block (see `_js_failures`): Jest's `  ● Suite › test`, Vitest's ` FAIL  src/a.test.ts >
Suite > test` (` FAIL  src/a.test.ts [ src/a.test.ts ]` for a file that failed to run), Mocha's `  1) Suite`."""
_MOCHA_FAILING = re.compile(r'^[ \t]*\d+ failing\r?$', re.MULTILINE)
VITEST_RULE = re.compile(r'[ \t]*⎯')
"""Vitest's rule around a failure (`⎯⎯⎯⎯[1/2]⎯`): where the block under a failure's header ends."""
_COMPARED = re.compile(r'(?:[-+] )?(?:Expected|Received)\b|\+ expected - actual\b')
"""What a failed assertion compared: Jest's `Expected: 90.5`, `Received: 95.25` (`Expected length:`, `Received
value:`, ...), a diff's `- Expected` / `+ Received` heads (Jest, Vitest), Mocha's `+ expected - actual`."""
_VALUE = re.compile(r': +\S')
"""A value after what was compared (`Expected: 90.5`), not a diff's head (`- Expected`, `+ Received`)."""
_DIFF_LINES = 8
"""The most lines of a failed assertion's diff weighed: its first two (`- 90.5`, `+ 95.25`) `HIGH`, the rest `MID`."""
_JS_FRAME = re.compile(r'at (?:[^\n()]*\()?[^\s()]+:\d+:\d+\)?\r?$')
"""A Node stack frame, indentation read past: `at Object.<anonymous> (src/a.test.ts:42:34)`, `at src/a.test.ts:42:34`."""
_FOREIGN_FRAME = re.compile(r'node_modules/|\(?node:|\(internal/')
"""A frame in a dependency or in Node itself: not where the test failed."""
_TSC_TABLE = re.compile(r'^Errors +Files\r?$', re.MULTILINE)
_TSC_ROW = re.compile(r' +\d+ +\S')
_SEPARATOR = re.compile(r'_(?: _)+\s*')
"""pytest's `_ _ _ _` between two frames of one traceback: what follows is its next frame, not the exception
(its trailing space kept or not, and a `\\r` where the output has Windows line ends)."""


_LINT_RULE = r'[A-Z]{1,4}\d{2,4} (?:\[\*\] )?\S'
"""A linter's rule and the start of its message (`D101 Missing ...`, `I001 [*] Import block ...`), as a pattern's text."""
LINT_FINDING = rf'{_LINT_RULE}[^\n]*\n[ \t]*--> \S'
"""The header of a linter's finding in the style of rustc, its rule and message over its place (ruff's `D101 Missing
docstring in public class` over ` --> shop/cart.py:4:7`), as a pattern's text."""
_RUSTC_HEADER = (
    r'(?:error|warning)(?:\[\w+\])?: (?!could not compile `|aborting due to |`[^`\n]+` \([^)\n]*\) generated )'
)
"""rustc's header of a diagnostic (`error[E0308]: ...`, `warning: ...`), not cargo's verdict or count of warnings, as a
pattern's text."""
_CC_AT = r'[\w./-]+\.\w+:\d+(?::\d+)?: '
"""Where gcc or clang says a diagnostic is, before its level (`m.c:3:9: `), as a pattern's text."""
_DIAGNOSTIC = re.compile(
    rf'^(?:{_RUSTC_HEADER}|{_CC_AT}(?:fatal error|error|warning): |(?={LINT_FINDING}))',
    re.MULTILINE,
)
"""The header of a compiler's diagnostic: rustc's `error[E0308]: ...`, `warning: ...`, or gcc's and clang's `m.c:3:9:
error: ...`; not cargo's verdict (`error: could not compile `x``) nor its count (`warning: `x` (bin "x") generated 6
warnings`), which have no block under them. Or a linter's finding (`LINT_FINDING`), read as a warning: a style
rule's, one of hundreds alike."""
_FIX_GAP = re.compile(r'-{20,}\r?')
"""The rule between two parts of a fix ruff shows in a finding's block (80 dashes at the left edge)."""
_SNIPPET = re.compile(r'[ \t]*(?:\d+ +)?\||[ \t]*(?:-->|:::) ')
"""A line of a compiler's snippet (`13 |     let x = 1;`, `   |     ^^^^^`) or its place (`  --> src/a.rs:13:9`)."""
_LINE_AT = re.compile(r':\d+(?::\d+)?$')
"""A place's line and column, at its end (`:104:9` of `--> src/a.rs:104:9`)."""
_BLANKS = re.compile(r'[ \t]+')
_MARKS = re.compile(r'[\^~-]+')
_CC_ERROR = re.compile(rf'{_CC_AT}(?:fatal )?error: ')
_SUB_DIAGNOSTIC = re.compile(rf'(?:help|note): |{_CC_AT}note: ')
"""A diagnostic's `help:` or `note:` at the left edge, under its header (rustc), or gcc's `m.c:3:9: note: ...`."""
CHECKED = r'[\w./-]+\.\w+:\d+(?::\d+)?: (?:error|warning|note): [^\n]*?  \[[\w-]+\]\r?$'
"""A type checker's finding with its rule's code last, as a pattern's text: mypy's `shop/cart.py:12: error: ...
[no-untyped-call]` (with `--show-column-numbers`, `shop/cart.py:12:5: error: ...`). It names its own place."""
CHECKER_CONTEXT = r'[\w./-]+\.\w+: note: (?:In (?:function|member|class) "|At top level:)'
"""mypy's line saying what the findings under it are in (`cart.py: note: In member "total" of class "Cart":`), as a
pattern's text. It places them (`outline._contexts`); alone, it says what no finding kept shows."""
PLACE = re.compile(r'[ \t]*(?:-->|:::) \S')
"""Where a compiler's diagnostic or a linter's finding is, under its header (`  --> src/main.rs:170:47`); `:::` for a
sub-diagnostic's place in another crate."""
_SOURCE = re.compile(r'[ \t]*\d+ +\|(?: |\r?$)')
_NUMBERED = re.compile(r'\d+ +[|+-](?: |\r?$)')
"""A snippet's line at the left edge: a source line (`170 | let n = 1;`, `12 |` for a blank one) or a fix's (ruff's
`13 + def find(...) -> Account | None:`)."""
_LABEL = re.compile(r'[ \t]*\|[ \t|]*[\^~-][\^~ |-]* [^\s^~|-]')
"""A label of a snippet: its marks under the source line, then what they say (`|     ^^^ expected `u32``); gcc's bare
caret (`|   ^~~~`) says nothing."""
_NOTE = re.compile(r'[ \t]+= (?:note|help): ')
_CARGO_STATUS = re.compile(r'[ \t]+(?:Finished|Running|Doc-tests|Building|Blocking|Installed|Replacing|Removed) ')
"""cargo's status lines that `_PROGRESS` does not take for progress: `    Finished `release` profile [optimized] target(s)
in 41.27s`, `     Running `target/release/shop``: a build's outcome, never part of the diagnostic over it."""


_WARNING_PLACE = re.compile(r'[ \t]*\S+:\d+: (?=[A-Z]\w*Warning: )')
"""Where a Python warning was raised, before its category: `/srv/app/sklearn/utils/fixes.py:30: ` of
`...fixes.py:30: DeprecationWarning: ...`."""


def signature(line: str) -> str:
    """`line` as `log.signature` reads it, a Python warning without the place it was raised, a pytest line without its test.

    Python prints a warning once per place that raises it: the same deprecation from forty lines of a dozen
    modules is one warning to a reader, who needs it once, with its first place, and the count of the others.
    A compiler's snippet line (`13 |     let x = 1;`, `   |     ^^^^^ help: ...`) is read without the widths of its
    gutter and of its marks, which follow the line number and the name: the same warning on line 9 and on line 104 is
    alike. Not so its place (`--> src/a.rs:104:9`): read with its line masked, every finding's place in a file after
    the first was a repeat of it. Only the numbers of its path are masked (the same rule at the same line of
    `module_3.py` and `module_4.py` is alike).

    pytest prints a line per test: eighty `ERROR tests/test_api.py::TestClient::test_x` lines of one fixture that
    could not start are one error to a reader, who needs it once and the count, and the one `FAILED` line that
    differs (see `_TEST_ID`; the file is kept: another file's is another place). A short summary's failed test
    saying no more than its test (`FAILED t.py::test_x`) keeps it: its test is all it says, and which tests failed is
    what a reader of the run acts on (`3 failed` and one of the three is none of it). `pytest -v`'s progress lines
    (`t.py::test_x FAILED [ 5%]`) fold still: the short summary names each failed test again.
    """
    if PLACE.match(line):  # its path's numbers masked, not its line's: another module's same line is alike
        place = line.strip()
        at = _LINE_AT.search(place)
        return place if at is None else log.signature(place[: at.start()]) + at.group()
    if _SNIPPET.match(line):
        return _MARKS.sub('^', _BLANKS.sub(' ', log.signature(line)))
    if 'Warning: ' in line:
        place = _WARNING_PLACE.match(line)
        if place is not None:
            line = line[place.end() :]
    elif '::' in line:
        masked = _without_test(line, failed=False)
        if masked is None and line.startswith('FAILED ') and _TEST_ID.match(line) is not None:
            return line  # its test, digits and all (`test_3`, `test_17`), is all it says
        line = masked or line
    return log.signature(line)


def _without_test(line: str, *, failed: bool) -> str | None:
    """A pytest line naming a test (`_TEST_ID`) with its test masked; None for another line.

    Not `failed`: None too for a short summary's failed test saying nothing but its test (see `signature`).
    """
    test = _TEST_ID.match(line)
    if test is None:
        return None
    start, end = test.span('id' if test.group('id') is not None else 'verbose')
    rest = line[end:].split()
    if not (failed or rest or not line.startswith('FAILED ')):
        return None
    return f'{line[:start]}# {" ".join(rest)}'  # `[  5%]` and `[ 10%]` alike


def warns(line: str) -> bool:
    """Whether `line` is a warning whose lines under it repeat with it.

    A Python warning (`path/mod.py:30: DeprecationWarning: ...`, its source line under it), a compiler's (`warning:
    unused variable: `x``, its place and snippet under it) or a linter's finding (`F841 Local variable ...`).
    """
    return ('Warning: ' in line and _WARNING_PLACE.match(line) is not None) or _WARNING_HEAD.match(line) is not None


_WARNING_HEAD = re.compile(f'{_RUSTC_HEADER}|{_LINT_RULE}')
"""A compiler's warning (not cargo's count of them) or a linter's finding, by its header line alone; or a compiler's
error, which folds its lines only where it repeats one (see `_diagnostics`)."""


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
    _reasons(lines, result)
    if lines:
        result[-1] = max(result[-1], MID)  # the last line of a command: its result or its prompt
    _go_failures(lines, result)
    _panics(lines, result)
    _go_crashes(lines, result)
    _diagnostics(lines, result)
    _js_failures(lines, result)
    _tsc_table(lines, result)
    if _HOOK_ID in lines.text:  # a pre-commit run with a hook that failed: its line is a verdict
        for index in lines.matching(HOOK_FAILED):
            result[index] = max(result[index], VERDICT)
    _passing(lines, result)
    _tests_alike(lines, result)
    return result


def _tests_alike(lines: Joined, result: list[float]) -> None:
    """Lower the bonus of a pytest line alike one above but for its test (see `signature`) below `HIGH`: it folds.

    A line worth `HIGH` or more is chosen for itself wherever it stands (`tree`); a short summary's `FAILED t.py::test_x`
    after the first is `MID` too, but no repeat (`signature`): it is kept where room is left, in its place, a marker
    counting those left out; the second `ERROR t.py::test_x` of one cause is a repeat, offered only where it holds a fact a later turn quotes, and counted in the marker
    under the first (`… 17 similar lines omitted …`), so the failure that differs keeps its room.
    """
    seen: set[str] = set()
    for index in lines.matching(_TEST_ID):
        key = log.signature(_without_test(lines.lines[index], failed=True) or '')
        if key in seen:
            result[index] = min(result[index], MID)
        seen.add(key)


def _reasons(lines: Joined, result: list[float]) -> None:
    """Weigh the lines of each block of pytest's `E   ` lines after its first `HIGH`, its first `MUST` (the rules').

    The first says why the test failed (`E   ValueError: Column wave failed to convert: ...`, `E   assert 3 == 2`); the
    others say more of it (`E    +  where 3 = len(items)`), or much more: forty `E       and: '...'` lines of a
    `fnmatch_lines` that found no match, each required, would crowd out the `FAILED` lines of the other tests.
    """
    blocks = lines.matching(_REASON_LINE)
    for index in set(blocks).difference(_firsts(blocks)):
        result[index] = min(result[index], HIGH)


def _firsts(blocks: Sequence[int]) -> list[int]:
    """The first of each run of consecutive line indices in `blocks` (ascending): each block's first `E   ` line."""
    return [index for position, index in enumerate(blocks) if position == 0 or blocks[position - 1] != index - 1]


def reasons(lines: Joined) -> list[int]:
    """The lines saying why a test or a run failed, in order.

    The first of each block of pytest's `E   ` lines (`E   ValueError: Column wave failed to convert: ...`), and each
    traceback's exception (`KeyError: 'sku'`): what a failure cannot be read without. `tree` gives them room of their
    own among the lines required.
    """
    firsts = _firsts(lines.matching(_REASON_LINE))
    return sorted({*firsts, *_exception_lines(lines.lines, lines.matching(_FRAME))})


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


def _go_crashes(lines: Joined, result: list[float]) -> None:
    """Weigh a Go crash: its `panic:` line `MUST`; the `[signal ...]` line under it, and the crashed goroutine, `HIGH`.

    The goroutine that crashed is the one `[running]`; its first frames say where. The dump of every other goroutine follows, one block each alike but for its numbers: they fold as a
    log's repeats do, and the budget goes to where the program stopped.
    """
    for index in lines.matching(_GO_CRASH):
        result[index] = MUST
        if index + 1 < len(lines) and lines.lines[index + 1].startswith('[signal '):
            result[index + 1] = max(result[index + 1], HIGH)
    for index in lines.matching(_GOROUTINE):
        result[index] = max(result[index], HIGH)
        for after in range(index + 1, min(index + 1 + _GO_FRAME_LINES, len(lines))):
            if not lines.lines[after].strip():
                break
            result[after] = max(result[after], HIGH)


def _diagnostics(lines: Joined, result: list[float]) -> None:
    """Weigh the block under each compiler diagnostic by what the diagnostic is: an error's says why, a warning's only where.

    rustc and cargo print a diagnostic as a header (`error[E0308]: mismatched types`, `warning: unused variable:
    `x``), its place (`  --> src/main.rs:170:47`) and a snippet: the source line (`170 |     let n: u32 = ...`) and
    under it labels (`    |     ^^^ expected `u32`, found `&str``), then notes (`    = note: ...`) and sub-diagnostics
    at the left edge (`help: ...`, `note: method defined here` with a place of their own); gcc and clang print the
    header as `m.c:318:12: error: ...` with the source line and caret under it. Under an error, the labels say why it
    failed (`HIGH`) and its source line and notes which code (`MID`). A warning's place weighs `MID`, as its
    header does, not `HIGH` as an error's place: seventy `unused variable` warnings are one warning and a count to a
    reader (the signatures of their lines are alike, so they fold), and their places would crowd out the errors'
    snippets. So does a sub-diagnostic's place (`note: method defined here` in the standard library). A warning's
    snippet weighs `NOISE` (the file holds it), and so does the place of a warning seen before: each distinct warning
    keeps its first place, and the others' fold or weigh nothing, at any budget. An error seen before (thirty-one
    `error[E0308]: mismatched types`) is one more of a count too, weighed as a warning: required each time, their
    headers took the budget, and the one error that differed (`error[E0382]: borrow of moved value`) was dropped.
    """
    seen: set[str] = set()
    for header, end in diagnostic_blocks(lines):
        key = signature(lines.lines[header])
        again = key in seen  # the same diagnostic again: one more of a count, its block folding with it
        seen.add(key)
        error = not again and (
            lines.lines[header].startswith('error') or _CC_ERROR.match(lines.lines[header]) is not None
        )
        result[header] = MID if again else max(result[header], MID)  # a linter's finding, as a compiler's warning
        own = True  # in the diagnostic's own snippet, not a `help:` or `note:` under it
        for index in range(header + 1, end):
            line = lines.lines[index]
            if _SUB_DIAGNOSTIC.match(line):
                own = False
                if error:
                    result[index] = max(result[index], MID)
            elif PLACE.match(line):
                if again:
                    result[index] = min(result[index], NOISE)
                elif not (error and own):
                    result[index] = min(result[index], MID)
            elif not error:
                result[index] = min(result[index], NOISE)  # a warning's snippet and fix: the file holds them
            elif _LABEL.match(line):
                result[index] = max(result[index], HIGH if own else MID)
            elif _SOURCE.match(line) or _NOTE.match(line):
                result[index] = max(result[index], MID)


def diagnostic_blocks(lines: Joined) -> list[tuple[int, int]]:
    """(header, end) of each compiler diagnostic or linter finding (`_DIAGNOSTIC`): its header and the lines under it.

    The block is its place, its snippet (source lines at the left edge too: `170 |     let n: u32 = ...`), notes and
    sub-diagnostics (`help: ...`), up to a blank line, the next header, or another line at the left edge.
    """
    found: list[tuple[int, int]] = []
    for header in lines.matching(_DIAGNOSTIC):
        end = header + 1
        while end < len(lines):
            line = lines.lines[end]
            if not line.strip() or _DIAGNOSTIC.match(line) or _PROGRESS.match(line) or _CARGO_STATUS.match(line):
                break  # cargo's status lines are indented too (`    Finished `release` profile ...`)
            if not (
                line[:1].isspace()
                or _NUMBERED.match(line)
                or PLACE.match(line)
                or _SUB_DIAGNOSTIC.match(line)
                or _FIX_GAP.fullmatch(line)
            ):
                break
            end += 1
        found.append((header, end))
    return found


def _passing(lines: Joined, result: list[float]) -> None:
    """Give lines about work that passed the `NOISE` bonus (see the module's docstring).

    pytest's `PASSES` section and `PASSED` lines, other tools' progress (`_PROGRESS`); and beside a failure (a line
    of `MUST` or more left), the verdicts of the packages, test binaries and tests that passed (`_PASSED_UNIT`,
    `PASSED_TEST`).
    """
    for index in lines.matching(_PASSED):
        result[index] = NOISE
    for index in lines.matching(_PROGRESS):
        result[index] = NOISE
    hooks = lines.matching(HOOK_WENT_WELL) if _HOOK_ID in lines.text else []
    units = sorted({*lines.matching(_PASSED_UNIT), *lines.matching(PASSED_TEST), *hooks})
    passed = set(units)
    if any(_fails(lines.lines[index], bonus) and index not in passed for index, bonus in enumerate(result)):
        for index in units:
            result[index] = NOISE
    for start in lines.matching(_PASSES):
        result[start] = NOISE
        for index in range(start + 1, len(lines)):
            if _SECTION.match(lines.lines[index]):
                break
            result[index] = NOISE


def _fails(line: str, bonus: float) -> bool:
    """Whether a line of `bonus` says the run failed.

    A required line does, but a verdict without a word of trouble: `Tests: 39 passed, 39 total` says all went well.
    """
    return bonus >= MUST and (bonus < VERDICT or ALARM.search(line) is not None)


def _js_failures(lines: Joined, result: list[float]) -> None:
    """Weigh what a JavaScript test runner says of each failing test, in the block under the header naming it.

    A header is `MUST`: Jest's `  ● Checkout › applies the coupon`, Vitest's ` FAIL  src/a.test.ts > Checkout >
    applies the coupon`, Mocha's `  1) Checkout` (the title goes on, indented, under it) after its `N failing`
    verdict; before that verdict, Mocha's numbered line is the failing test in the run's list, `HIGH` as Jest's
    `✕` line is. In its block (see `_failure_block`), why the test failed and where.
    """
    failing = lines.matching(_MOCHA_FAILING)
    mocha_from = failing[0] if failing else len(lines)
    headers: list[tuple[int, bool]] = []
    """(index, whether indentation bounds its block) of each header, in order."""
    for match in _JS_HEADER.finditer(lines.text):
        index = bisect.bisect_right(lines.starts, match.start()) - 1
        if match.group('mocha') is not None and index < mocha_from:
            result[index] = max(result[index], HIGH)
            continue
        headers.append((index, match.group('vitest') is None))
    for position, (header, indented) in enumerate(headers):
        result[header] = max(result[header], MUST)
        end = headers[position + 1][0] if position + 1 < len(headers) else len(lines)
        _failure_block(lines.lines, header, end, indented=indented, result=result)


def _failure_block(lines: Sequence[str], header: int, end: int, *, indented: bool, result: list[float]) -> None:
    """Weigh the block of one failing JavaScript test, the lines after its `header` up to `end` at most.

    `HIGH`: the message (the first line after the title: `expect(received).toBe(expected)`, `AssertionError: expected
    95.25 to equal 90.5`, `TypeError: ...`), the values compared (Jest's `Expected: 90.5` and `Received: 95.25`, or a
    diff's first two lines, `- 90.5` and `+ 95.25`, under its heads, `- Expected`/`+ Received` or Mocha's `+ expected
    - actual`, which weigh `MID` as a few more lines of the diff do), and the first stack frame outside `node_modules`
    and Node's own (`at Object.<anonymous> (src/a.test.ts:42:34)`), the place a reader opens. The failing source
    line (Jest's `>  42 |`) and Vitest's location (` ❯ src/a.test.ts:42:34`) are the rules'.

    The block ends at Vitest's rule (`⎯⎯⎯⎯[1/2]⎯`) or, `indented` (Jest, Mocha), at a line indented no deeper than
    its header: Vitest writes the message and the frames of a failure at the left edge, under its ` FAIL ` header.
    """
    depth = len(lines[header]) - len(lines[header].lstrip(' \t'))
    message = not indented  # Vitest's message is the line under its header; Jest's and Mocha's follow a blank line
    titled = not indented
    framed = compared = False
    diff_lines = 0
    for index in range(header + 1, end):
        line = lines[index]
        content = line.lstrip(' \t')
        if not content.strip():
            message, titled = message or not titled, True
            continue
        if VITEST_RULE.match(line) or (indented and len(line) - len(content) <= depth):
            return
        if message:
            result[index] = max(result[index], HIGH)
            message = False
            compared = compared or _COMPARED.match(content) is not None
        elif _COMPARED.match(content):
            result[index] = max(result[index], HIGH if _VALUE.search(content) else MID)
            compared = True
        elif compared and content[:1] in '-+' and diff_lines < _DIFF_LINES:
            result[index] = max(result[index], HIGH if diff_lines < 2 else MID)
            diff_lines += 1
        elif not framed and _JS_FRAME.match(content) and not _FOREIGN_FRAME.search(content):
            result[index] = max(result[index], HIGH)
            framed = True


def _tsc_table(lines: Joined, result: list[float]) -> None:
    """Weigh `tsc`'s table of errors per file (`Errors  Files`, then `     4  src/a.ts:3`) `LOW`, and no more.

    It counts again the errors listed above it: the paths it repeats would win it the budget from the errors.
    """
    for header in lines.matching(_TSC_TABLE):
        result[header] = LOW
        for index in range(header + 1, len(lines)):
            if not _TSC_ROW.match(lines.lines[index]):
                break
            result[index] = LOW


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


def repeated_failures(lines: Sequence[str]) -> set[int]:
    """The lines of a pytest test's section (under `___ ERROR at setup of test_x ___`) that repeat an earlier one's.

    A fixture or an import failing fails every test using it: pytest prints the same traceback under each test's
    banner, 100 lines apiece. A section most of whose lines (`_REPEATED_SHARE`) an earlier section holds is read
    once: its lines held before fold into a marker, its banner and its last line of error (`E   ...`) stay, so a
    reader sees that the next test failed and how. A line that differs (`request = <SubRequest ... test_x>`) is
    weighed as any. A line is held before when one alike but for its test's parameters is (`_masked`): the sections
    of a parametrized test differ in their parameter only (`test_many[10]`: `n = 10`, `E   AssertionError: bad 10`),
    which its banner, kept, names (a line the same as one before is held too, its words masked or not: the first
    case's source `assert n % 7 != 3` under `test_many[3]` masks its `3`). Not alike but for any number:
    `At index 2 diff: 1 != 10` under `test_parse_v2` says how it failed where `0 != 3` under `test_parse_v1` says
    how another did. A section ends at the next banner or `===` line.
    """
    seen: set[str] = set()
    found: set[int] = set()
    start: int | None = None
    for index, line in enumerate((*lines, '=== end ===')):
        if not (_TEST_BANNER.match(line) or _SECTION.match(line)):
            continue
        if start is not None:
            body = [at for at in range(start + 1, index) if lines[at].strip()]
            parameters = _parameters(lines[start])
            alike = [_masked(lines[at], parameters) for at in body]
            held = [at for at, key in zip(body, alike, strict=True) if key in seen or lines[at] in seen]
            if body and len(held) >= _REPEATED_SHARE * len(body):
                last_error = _last_error(lines, body)
                found.update(at for at in held if at != last_error)
            seen.update(alike)
            seen.update(lines[at] for at in body)  # the first case's `!= 3` under `test_many[3]` is no parameter
        start = index if line.startswith('_') else None
    return found


_PARAMETERS = re.compile(r'\[([^\[\]\n]*+)\]')
"""A parametrized test's id in its banner: `____ test_many[10] ____`, `____ test_cfg[billing-eu] ____`."""
_WORD = re.compile(r'\w++')


def _parameters(banner: str) -> frozenset[str]:
    """The words of the parameters a test's banner names (`10`; `billing`, `eu`): none for a test not parametrized."""
    ids = _PARAMETERS.search(banner)
    return frozenset(_WORD.findall(ids.group(1))) if ids is not None else frozenset()


def _masked(line: str, parameters: frozenset[str]) -> str:
    """`line` with the words that are its test's parameters masked (see `repeated_failures`)."""
    if not parameters:
        return line
    return _WORD.sub(lambda word: '#' if word.group() in parameters else word.group(), line)


def _last_error(lines: Sequence[str], body: Sequence[int]) -> int | None:
    """The last line of a test's section saying how it failed: its last `E   ...`, else its traceback's exception.

    pytest's `--tb=native` prints a test's traceback as Python does (`ValueError: boom` under `File "..."` frames),
    with no `E` lines.
    """
    last = next((at for at in reversed(body) if lines[at].startswith('E ')), None)
    if last is not None:
        return last
    exceptions = _exception_lines(lines, [at for at in body if _FRAME.match(lines[at])])
    return exceptions[-1] if exceptions else None


TEST_BANNER = r'_{3,} .+ _{3,}\r?$'
"""pytest's banner over a test's section (`____ test_login ____`, `___ ERROR at setup of test_x ___`)."""
_TEST_BANNER = re.compile(TEST_BANNER)
_REPEATED_SHARE = 0.8
