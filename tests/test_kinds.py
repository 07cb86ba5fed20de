"""Content kinds are told from the content alone: each example is written as its tool prints it."""

from __future__ import annotations

import json
import time

import pytest

from summarizer.extractive._kinds import ContentKind, detect_kind

DIFF = """\
diff --git a/src/billing/invoice.py b/src/billing/invoice.py
index 3f2a1c0..8b9d4e1 100644
--- a/src/billing/invoice.py
+++ b/src/billing/invoice.py
@@ -41,7 +41,8 @@ def total_due(invoice):
     subtotal = sum(line.amount for line in invoice.lines)
-    return subtotal * (1 + invoice.tax_rate)
+    taxed = subtotal * (1 + invoice.tax_rate)
+    return round(taxed, 2)
"""

NUMBERED_READ = '\n'.join(
    f'{number:6}\t{line}'
    for number, line in enumerate(
        ['import os', '', 'def load_config(path):', '    with open(path) as handle:', '        return handle.read()'],
        start=1,
    )
)

ARROW_READ = '\n'.join(
    f'{number:6}→{line}'
    for number, line in enumerate(['class Parser:', '    def parse_file(self, path):', '        ...'])
)

SOURCE = """\
import json
import time
from pathlib import Path


class Settings:
    def __init__(self, root: Path) -> None:
        self.root = root

    def load(self) -> dict:
        return json.loads((self.root / 'settings.json').read_text())
"""

PYTEST = """\
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0
collected 48 items

tests/test_invoice.py ......F.........                                   [100%]

=================================== FAILURES ===================================
_____________________________ test_total_rounding ______________________________
E       AssertionError: assert 107.00000000000001 == 107.0
=========================== short test summary info ============================
FAILED tests/test_invoice.py::test_total_rounding - AssertionError: assert 107.00000000000001 == 107.0
========================= 1 failed, 47 passed in 0.84s =========================
"""

TRACEBACK = """\
$ python manage.py migrate
Traceback (most recent call last):
  File "/srv/app/manage.py", line 22, in <module>
    main()
  File "/srv/app/manage.py", line 18, in main
    execute_from_command_line(sys.argv)
django.db.utils.OperationalError: no such table: billing_invoice
"""

COMPILER = """\
src/parser.c:118:9: error: use of undeclared identifier 'tokn'
src/parser.c:131:5: warning: unused variable 'depth' [-Wunused-variable]
make: *** [Makefile:24: build/parser.o] Error 1
"""

LOG = '\n'.join(
    f'2024-03-11T09:14:{second:02}.{second * 7:03}Z {level} worker-{second % 3} job {1000 + second} {message}'
    for second, (level, message) in enumerate(
        [
            ('INFO', 'started'),
            ('INFO', 'fetched 120 rows'),
            ('WARN', 'retrying upstream'),
            ('ERROR', 'timeout after 30s'),
        ]
        * 3
    )
)

GREP = """\
src/billing/invoice.py:41:    subtotal = sum(line.amount for line in invoice.lines)
src/billing/invoice.py:44:    return round(taxed, 2)
src/billing/tax.py:12:def tax_rate(country: str) -> float:
tests/test_invoice.py:30:    assert total_due(invoice) == 107.0
"""

FIND = """\
./src/billing/__init__.py
./src/billing/invoice.py
./src/billing/tax.py
./tests/test_invoice.py
./README.md
"""

MARKDOWN = """\
# Release notes

Version 4.2 brings faster exports and a new billing dashboard. Invoices can now be
grouped by customer, and the tax report honours the reduced rate for books.

Upgrading needs no migration; the old export endpoint keeps working until June.
"""

SEARCH_TEXT = """\
Title: Rounding money in Python
URL: https://example.org/python-money-rounding
Use decimal.Decimal and quantize, never float, for currency amounts.

Title: Banker's rounding explained
URL: https://example.com/bankers-rounding
Python's round() rounds half to even.

Title: Decimal module reference
URL: https://docs.example.net/decimal
The decimal module provides support for fast correctly rounded arithmetic.
"""

YAML_RECORDS = """\
- id_: '12'
  subject: Quarterly review
  sender: ana.lopez@example.com
  status: sent
- id_: '13'
  subject: Invoice 2024-117
  sender: billing@example.com
  status: received
"""


STRUCTURED_LOGS = {
    'logfmt': 'time="2024-05-06T10:00:{second:02d}Z" level=info msg="request handled" path=/api/items/{second} status=200',
    'klog': 'I0506 10:00:{second:02d}.123456       1 controller.go:{second}] Reconciling pod default/web-{second}',
    'zap': '{{"level":"info","ts":1714989600.{second},"caller":"server/main.go:42","msg":"served","status":200}}',
    'cloud': '{{"severity":"ERROR","time":"2024-05-06T10:00:{second:02d}Z","message":"upstream timeout {second}"}}',
}
"""One line of each structured log format, to repeat with its `second`: logfmt (Go's logrus, Heroku), Kubernetes'
klog, a JSON line with its level (zap, pino, a cloud provider's)."""
NO_LOGS = {
    'courses': '{{"id":{second},"title":"Course {second}","level":"beginner","hours":{second}}}',
    'findings': '{{"id":"F-{second}","severity":"HIGH","file":"src/app_{second}.py","rule":"B608"}}',
    'game': '{{"player":"p{second}","level": 5,"score":{second}}}',
    'csv': 'time={second},value={second}.5,unit=ms',
    'git': "warning: in the working copy of 'src/file_{second}.txt', LF will be replaced by CRLF",
}
"""Lines with a level-like key or a time first that are records, not a log's."""


@pytest.mark.parametrize(
    ('content', 'kind'),
    [
        (DIFF, ContentKind.DIFF),
        (NUMBERED_READ, ContentKind.CODE),
        (ARROW_READ, ContentKind.CODE),
        (SOURCE, ContentKind.CODE),
        (PYTEST, ContentKind.SHELL),
        (TRACEBACK, ContentKind.SHELL),
        (COMPILER, ContentKind.SHELL),
        (LOG, ContentKind.LOG),
        *(
            (('\n'.join(line.format(second=n) for n in range(30))), ContentKind.LOG)
            for line in STRUCTURED_LOGS.values()
        ),
        (GREP, ContentKind.LISTING),
        (FIND, ContentKind.LISTING),
        (MARKDOWN, ContentKind.PROSE),
        (SEARCH_TEXT, ContentKind.SEARCH),
        (YAML_RECORDS, ContentKind.RECORDS),
        (json.dumps([{'id': 1, 'name': 'a'}, {'id': 2, 'name': 'b'}]), ContentKind.JSON_TEXT),
        (json.dumps({'user': {'id': 7}}, indent=2), ContentKind.JSON_TEXT),
        ('[not json', ContentKind.PROSE),
        ('', ContentKind.OTHER),
        ('[Binary file: chart.png (image/png)]\nBase64: ' + 'iVBORw0KGgo' * 40, ContentKind.OTHER),
    ],
)
def test_text_kinds(content: str, kind: ContentKind) -> None:
    assert detect_kind(content) is kind


def test_structured_kinds() -> None:
    results = [
        {'url': 'https://example.org/a', 'title': 'A', 'content': 'first page'},
        {'url': 'https://example.org/b', 'title': 'B', 'content': 'second page'},
    ]
    assert detect_kind(results) is ContentKind.SEARCH
    assert detect_kind({'query': 'rounding', 'results': results}) is ContentKind.SEARCH
    assert detect_kind([{'id': 1, 'status': 'open'}, {'id': 2, 'status': 'closed'}]) is ContentKind.RECORDS
    assert detect_kind({'id': 1, 'owner': {'name': 'Ana'}, 'tags': ['x']}) is ContentKind.RECORDS
    assert detect_kind([]) is ContentKind.OTHER
    assert detect_kind(42) is ContentKind.OTHER


def test_an_object_wrapping_one_text_has_that_texts_kind() -> None:
    """`{"stdout": ..., "exit_code": 1}` is shell output, not a record."""
    assert detect_kind({'stdout': PYTEST, 'stderr': '', 'exit_code': 1}) is ContentKind.SHELL
    assert detect_kind({'output': DIFF}) is ContentKind.DIFF
    assert detect_kind({'stdout': 'ok', 'stderr': 'warning: x', 'exit_code': 0}) is ContentKind.RECORDS


def test_colours_do_not_hide_test_output() -> None:
    coloured = '\n'.join(f'\x1b[32mPASSED\x1b[0m tests/test_invoice.py::test_case_{index}' for index in range(30))
    assert detect_kind(coloured) is ContentKind.SHELL


def test_a_long_text_is_told_from_its_head_and_tail() -> None:
    """The traceback at the end of a 2 MB build log still makes it shell output; the middle is not read."""
    text = 'compiling module\n' * 120_000 + TRACEBACK
    assert detect_kind(text) is ContentKind.SHELL


def test_a_cargo_build_and_a_pip_install_are_command_output() -> None:
    """Progress alone (no error, no verdict of a test run) still tells the tool: cargo's `Compiling x v1.0` and
    pip's `Requirement already satisfied: `/`Collecting x`, not prose."""
    cargo = '\n'.join(
        [
            '    Updating crates.io index',
            *[f'   Compiling crate{n} v0.{n}.1' for n in range(40)],
            '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 14.22s',
        ]
    )
    pip = '\n'.join(
        [
            *[
                f'Requirement already satisfied: lib{n}>=1.{n} in ./.venv/lib/python3.12/site-packages'
                for n in range(20)
            ],
            'Collecting requests==2.32.3 (from -r requirements.txt (line 3))',
            '  Using cached requests-2.32.3-py3-none-any.whl (64 kB)',
        ]
    )
    assert detect_kind(cargo) is ContentKind.SHELL
    assert detect_kind(pip) is ContentKind.SHELL
    assert detect_kind('Collecting stamps is a hobby of mine.\nCollecting coins is another.') is ContentKind.PROSE


def test_tsc_errors_in_both_formats_and_a_terraform_plan_are_command_output() -> None:
    """`tsc` prints `path(line,col): error TS2322: ...`, or with `--pretty` (`tsc -b`) `path:line:col - error TS...`;
    neither is gcc's `path:line:col: error:`. A Terraform plan's `  ~ resource "x" "y" {` blocks read as code."""
    plain = '\n'.join(
        [
            '> web@2.0.0 typecheck',
            '> tsc --noEmit',
            '',
            *[
                f"src/routes/[slug]/page{n}.tsx({n + 3},{n + 1}): error TS2304: Cannot find name 'Locale{n}'."
                for n in range(12)
            ],
            '',
            'Found 12 errors in 12 files.',
        ]
    )
    pretty = '\n'.join(
        line
        for n in range(12)
        for line in (
            f"src/store/cart{n}.ts:{n + 10}:7 - error TS2741: Property 'currency' is missing in type 'Price'.",
            '',
            f'{n + 10}   const price: Price = {{ amount: {n} }};',
            '          ~~~~~',
            '',
        )
    )
    plan = '\n'.join(
        [
            'Terraform will perform the following actions:',
            '',
            *[
                line
                for n in range(4)
                for line in (
                    f'  # aws_sqs_queue.jobs[{n}] will be updated in-place',
                    '  ~ resource "aws_sqs_queue" "jobs" {',
                    f'        id                         = "https://sqs.eu-west-1.amazonaws.com/1234/jobs-{n}"',
                    '      ~ visibility_timeout_seconds = 30 -> 120',
                    '        # (14 unchanged attributes hidden)',
                    '    }',
                    '',
                )
            ],
            'Plan: 0 to add, 4 to change, 0 to destroy.',
        ]
    )
    for text in (plain, pretty, plan):
        assert detect_kind(text) is ContentKind.SHELL, text[:200]


TYPESCRIPT_TEST_SOURCE = """\
import { describe, expect, it } from "vitest";
import { summarize } from "./report";

describe("summarize", () => {
  it("counts the failures", () => {
    const text = "FAIL src/a.test.ts\\nTests: 1 failed, 3 passed";
    expect(summarize(text)).toEqual({ failed: 1, passed: 3 });
  });

  it("reads tsc's verdict", () => {
    // Found 2 errors in 1 file.
    expect(summarize("Found 2 errors in 1 file.").errors).toBe(2);
  });
});
"""

HCL_SOURCE = """\
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

# Changing engine_version: take a snapshot first, the plan says
# aws_db_instance.main must be replaced
resource "aws_db_instance" "main" {
  identifier     = "orders-prod"
  engine         = "postgres"
  engine_version = "16.1"
  # aws_db_instance.replica will be replaced
  instance_class = "db.r6g.large"

  lifecycle {
    prevent_destroy = true
  }
}
"""


def test_typescript_and_terraform_sources_stay_code() -> None:
    """Source that mentions what the tools print (a test of a report parser, an HCL comment naming a plan's line) is
    still code: a tool's lines are told whole, at a line's start; a plan's over its resource's block, which starts
    with the action's symbol (`  ~ resource`), as source never does."""
    assert detect_kind(TYPESCRIPT_TEST_SOURCE) is ContentKind.CODE
    assert detect_kind(HCL_SOURCE) is ContentKind.CODE


def _commits(count: int) -> list[str]:
    return [
        line
        for number in range(count)
        for line in (
            f'commit {number}6c66f45193fa65125ca06328817927d6bbc2b2{number}',
            'Author: Ada Lovelace <ada@example.org>',
            f'Date:   Mon Oct {number + 7} 10:00:00 2019 +0200',
            '',
            f'    Fix retry loop {number}',
            '',
        )
    ]


def test_git_log_output_is_a_diff_and_a_document_quoting_two_commits_is_not() -> None:
    """`git log` opens with its first commit (a prompt at most above it); release notes that quote two commits
    under sixty paragraphs keep their headings and prose rules."""
    assert detect_kind('\n'.join(_commits(3))) is ContentKind.DIFF
    assert detect_kind('\n'.join(['$ git log -3', *_commits(3)])) is ContentKind.DIFF
    notes = [
        '# Release 4.2',
        '',
        *(f'Paragraph {k} explains what changed in the scheduler and why operators should care.' for k in range(60)),
        '',
        '## The commits',
        '',
        *_commits(2),
    ]
    assert detect_kind('\n'.join(notes)) is ContentKind.PROSE


@pytest.mark.parametrize('blank', [' ', '\t'])
def test_a_long_line_of_blanks_is_told_in_linear_time(blank: str) -> None:
    """A code line's indentation, read as `\\s*` before each of its shapes was tried again from every blank: 100 KB of
    blanks before a word took 35 s to tell a source file's kind."""
    text = 'import os\n\ndef load(path):\n    return path\n' + blank * 100_000 + 'x\nclass Store:\n    pass\n'
    started = time.process_time()
    assert detect_kind(text) is ContentKind.CODE
    assert time.process_time() - started < 2  # about 0.03 s


@pytest.mark.parametrize('line', NO_LOGS.values(), ids=NO_LOGS.keys())
def test_records_with_a_level_or_a_time_are_no_log(line: str) -> None:
    assert detect_kind('\n'.join(line.format(second=n) for n in range(30))) is not ContentKind.LOG


_PATCH = """diff --git a/shop/cart.py b/shop/cart.py
index 3f2a1b0..9c4d2e1 100644
--- a/shop/cart.py
+++ b/shop/cart.py
@@ -40,7 +40,7 @@ def total(cart):
-    return sum(item.price for item in cart.items)
+    return sum(item.price * item.quantity for item in cart.items)"""
_RUN = """$ pytest -q
FAILED tests/test_cart.py::test_total - AssertionError: assert 30 == 10
ERROR tests/test_cart.py::test_empty - KeyError: 'items'
=== 1 failed, 1 error, 40 passed in 0.52s ==="""


def _review(quoted: str, fence: str) -> str:
    paragraphs = [
        f'The total ignored quantities; paragraph {n} of the review explains why in plain words.' for n in range(6)
    ]
    return '\n\n'.join(
        ['# Review of the cart fix', *paragraphs[:3], f'{fence}\n{quoted}\n{fence[:3]}', *paragraphs[3:]]
    )


@pytest.mark.parametrize('fence', ['```diff', '```console', '~~~'])
@pytest.mark.parametrize('quoted', [_PATCH, _RUN])
def test_a_document_quoting_a_patch_or_a_run_in_a_fence_is_a_document(quoted: str, fence: str) -> None:
    """A README, a review or a doc page shows a patch or a test run in a code fence: it is still a document. Read as a
    diff or as command output, its headings and prose weighed nothing and the quoted hunks and failures were required."""
    assert detect_kind(_review(quoted, fence)) is ContentKind.PROSE
    assert detect_kind(quoted) in (ContentKind.DIFF, ContentKind.SHELL)
    diff_of_a_doc = f'{_PATCH}\n@@ -1,4 +1,4 @@ intro\n ```python\n-old = 1\n+new = 2\n ```'
    assert detect_kind(diff_of_a_doc) is ContentKind.DIFF


def test_a_run_or_a_patch_fenced_under_a_caption_is_what_it_fences() -> None:
    """Agent tools wrap what they ran: `Ran pytest (exit code 1):` over a fenced run, `Applied edit:` over a fenced
    patch. A line or two outside the fences is a caption, not a document."""
    assert detect_kind(f'Ran `pytest -q` (exit code 1):\n\n```\n{_RUN}\n```\n') is ContentKind.SHELL
    assert detect_kind(f'Applied edit:\n```diff\n{_PATCH}\n```') is ContentKind.DIFF


def test_a_long_runs_fences_do_not_pair_across_the_cut_between_its_head_and_tail() -> None:
    """A long text is told by its head and tail. A head that ends inside a fence (`pytest -s` printing a model's
    replies, each with a code block) paired its open fence with the tail's first one, and the failures after the
    tail's last fence were read as quoted: the run was read as code."""
    words = 'the model explains its change in plain words. ' * 8
    reply = [
        f'Model reply: {words}',
        '```python',
        *(f'    total_{n} = price * quantity  # step {n}' for n in range(8)),
        '```',
    ]
    cut_inside = ['```python', *(f'    cut_{n} = 1' for n in range(1000)), '```']
    tail = [
        *(['.'] * 240),
        *reply,
        '=================================== FAILURES ===================================',
        '____________________________ test_reply_total ________________________________',
        '>       assert total == 30',
        'E       AssertionError: assert 20 == 30',
        'tests/test_agent.py:88: AssertionError',
        '=========================== short test summary info ============================',
        'FAILED tests/test_agent.py::test_reply_total - AssertionError: assert 20 == 30',
        '======================== 1 failed, 999 passed in 9.12s =========================',
    ]
    text = '\n'.join(['collected 1000 items', *(reply * 50), *cut_inside, *(reply * 100), *tail])
    head, rest = text[:48_000], text[-16_000:]
    assert head.count('```') % 2 == 1 and rest.count('```') % 2 == 0  # cut inside a fence; the tail opens its own
    assert detect_kind(text) is ContentKind.SHELL


def test_a_pages_front_matter_and_a_values_file_under_a_comment_are_no_stream() -> None:
    """A Markdown page's front matter is closed by `---` over prose; one values file under `---` and a comment is one
    document. Neither reads as a stream of YAML documents, whose first fields follow `---` and `# Source:` lines."""
    page = (
        '---\ntitle: "Migrating the shop database to Postgres 16"\ndate: 2026-03-14\nauthor: alice\ndraft: false\n'
        'weight: 10\n---\n\nWe moved the shop database in one evening; this is what we planned and what broke.\n\n'
        '## The plan\n\nDump, restore, switch the connection string, and watch the error rate.'
    )
    assert detect_kind(page) is not ContentKind.RECORDS
    values = (
        '---\n# Default values for shop.\nreplicaCount: 2\nimage:\n  repository: ghcr.io/acme/shop\n  tag: "1.4.0"\n'
    )
    assert detect_kind(values) is not ContentKind.RECORDS
    stream = '---\n# Source: shop/templates/a.yaml\nkind: Service\nmetadata:\n  name: a\n---\n# Source: shop/templates/b.yaml\nkind: Service\nmetadata:\n  name: b\n'
    assert detect_kind(stream) is ContentKind.RECORDS
