"""What kind of content a tool returned, told from the content itself.

Each kind has its own extractive strategy (`summarizer.extractive`) and its own line in the eval's
report: a diff must keep its file and hunk headers, a test run its failures and summary line, a
log its errors, a listing whole lines. Detection reads the content only (never the tool's name,
which says little: `bash` returns diffs, logs and file reads alike) and only a bounded sample of a
long text, its head and its tail, so it costs the same on a 20 MB log as on a 60 KB one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum

from .code import BLAME
from .diff import COMMIT
from .lines import ESCAPES, source_prefixes
from .prose import FENCE, TREE_NODE, TREE_SHARE
from .shell import (
    ESLINT_PROBLEM,
    LINT_FINDING,
    LINT_LINE,
    MEMORY_ERROR,
    SIGNALLED,
    TERRAFORM_BLOCK,
    TERRAFORM_CHANGE,
    TEST_HEADER,
    TSC_ERROR,
    VERDICT_LINE,
)

__all__ = ('ContentKind', 'detect_kind', 'stamped')


class ContentKind(StrEnum):
    """The kinds of tool output the embedded model summarizes each in its own way."""

    DIFF = 'diff'
    """A unified diff: `diff --git`, `---`/`+++` file headers, `@@` hunk headers; or `git log`'s commits."""
    CODE = 'code'
    """Source code, or a numbered file read (`cat -n`: `    12\\t...`, or `12: ...`)."""
    SHELL = 'shell'
    """Command and test output: tracebacks, pytest, unittest, Go, Jest, Vitest, Mocha and cargo runs, compiler errors
    (`tsc`'s too), ESLint's report, cargo's and pip's progress, Terraform's plans and applies, `$ ` prompts."""
    LOG = 'log'
    """Timestamped or leveled lines."""
    LISTING = 'listing'
    """`grep -n` (`path:line:text`) or `find`/`ls` output (a path a line)."""
    RECORDS = 'records'
    """A JSON list or object of records (anything structured but search results)."""
    SEARCH = 'search'
    """A list of search results: items with a url and a title or some content."""
    PROSE = 'prose'
    """Text: prose, Markdown, HTML."""
    JSON_TEXT = 'json_text'
    """A string holding a JSON list or object (`json.dumps(rows)` returned as text)."""
    OTHER = 'other'
    """Scalars, empty content, binary blobs (base64)."""


_HEAD_CHARS = 48_000
_TAIL_CHARS = 16_000
"""A long text is told from its head and its tail: a traceback or a test summary comes last."""

_M = re.MULTILINE
_DIFF_GIT = re.compile(r'^diff --git ', _M)
_DIFF_FILES = re.compile(r'^--- \S.*\n\+\+\+ \S', _M)
_HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@', _M)
_AUTHOR = re.compile(r'^Author: ', _M)
"""A commit's author line (`git log`): with `commit <sha>` lines, the log of a repository."""
_NUMBERED = re.compile(rf'^(?: *\d+(?:\t|[:|-](?: |$)|→)|{BLAME})', _M)
"""A numbered file read: `cat -n` (`    12\\t`), `12: `, `12| `, `12→`, `grep -n` in one file (`12-`), or `git blame`."""
_GREP = re.compile(r'^(?=[^\s:]*[/.][A-Za-z])[\w./~@+-]+?[:-]\d+[:-]', _M)
"""`path:12:text` (a match) or `path-13-text` (context): the path has a `/` or an extension, a date has not."""
_PATH_LINE = re.compile(r'^(?:\./|/|~/)?[\w.@+-]+(?:/[\w.@+-]+)*/?$', _M)
_PATH_SHAPED = re.compile(r'[/.]')
_LS_LONG = re.compile(r'^[dlcbps-][rwxsStT-]{9}[.@+]? +\d+ ', _M)
_TIMESTAMP = re.compile(
    r'^(?:\W{0,2}(?:\d{4}(?:-\d{2}-\d{2}|/\d{2}/\d{2})[T ]\d{1,2}:\d{2}|\d{2}:\d{2}:\d{2}[.,]\d'
    r'|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{2}/[A-Z][a-z]{2}/\d{4}|\d{10}(?:\.\d+)?\s)'
    r'|[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d)',
    _M,
)
"""A timestamp at a line's start: ISO, syslog's `May  6 10:00:00`, epoch seconds, or Kubernetes' klog (`I0506
10:00:00.123456`, its level's letter first)."""
_LEVEL = re.compile(r'^.{0,40}?\b(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL)\b[\]:|/ ]', _M)
_FIELDS = re.compile(
    r'^(?:(?:time|ts|timestamp)="?\d[^ \n]* (?:level|lvl|msg)=|level=(?:trace|debug|info|warn|warning|error|fatal) '
    r'|\{.{0,80}?"(?:level|severity|lvl)": ?(?:"(?i:trace|debug|info|notice|warn|warning|error|critical|fatal)"|[1-6]0\b))',
    _M,
)
"""A structured log record's start: logfmt (`time="2024-05-06T10:00:00Z" level=info msg=...`, or `level=error ...`
first), or a JSON line with its level (zap's `{"level":"info","ts":...}`, pino's `{"level":30,...}`, a cloud log's
`"severity":"ERROR"`). A level is one of a log's: a course's `"level":"beginner"`, a finding's `"severity":"HIGH"`
and a CSV's `time=1,value=2` are records, not a log."""
_RECORD = re.compile(rf'(?:{_TIMESTAMP.pattern})|(?:{_LEVEL.pattern})|(?:{_FIELDS.pattern})', _M)
"""A log record's first line: a timestamp, a level or a structured record's fields first (one match a line, each
pattern anchored at its start)."""
_SHELL_MARK = re.compile(
    rf'^(?:{VERDICT_LINE}|{TEST_HEADER}\w|Traceback \(most recent call last\):'
    r'|(?:FAILED|ERROR|PASSED) [\w./-]+(?:::|\.py)|\$ \S|error(?:\[E\d+\])?: |npm ERR!|make(?:\[\d+\])?: \*\*\*'
    r'|[\w./-]+\.\w+:\d+:\d+: (?:error|warning|note):|[\w./-]+\.py:\d+: \w*Warning: |[\w.]+(?:Error|Exception): |E {3}'
    r'|test [\w:]+ \.\.\. (?:ok|FAILED)|\w+ \([\w.]+\)(?: \.\.\. |$)|collected \d+ items?|exit (?:code|status) \d+'
    r'|OK(?: \(skipped=\d+\))?$|[\w/.-]+\.py::\w+.* (?:PASSED|FAILED|ERROR|SKIPPED|XFAIL)'
    r'|=== RUN +\w|panic: |fatal error: |goroutine \d+ \[|(?:ok +|FAIL)\t\S+\t|[ \t]*(?:PASS|FAIL|[✓✕×❯]) +\S+\.(?:test|spec)\.[cm]?[jt]sx?\b|[ \t]*● .+ › '
    r'|[ \t]*(?:Compiling|Checking) \S+ v\d|Requirement already satisfied: |Collecting \S+(?: \(from |\r?$)'
    rf'|{TSC_ERROR}|{ESLINT_PROBLEM}|{TERRAFORM_CHANGE}\n{TERRAFORM_BLOCK}|│ Error: |[^\s:]+: Refreshing state\.\.\.'
    r'|Terraform (?:will perform the following|used the selected providers|has been successfully initialized)'
    rf'|{LINT_FINDING}|{LINT_LINE}|{MEMORY_ERROR}|{SIGNALLED}|#\d+ +0x[\da-f]+ in \S+ \(|Memcheck, a memory error detector'
    r'|Fatal Python error: |(?:PLAY|TASK) \[[^\n]*\] \*{3}|PLAY RECAP \*'
    r'|- hook id: \S)',
    _M,
)
_CODE_LINE = re.compile(
    r'^[ \t]*+(?:(?:async )?def \w+\(|class \w+[(:]|(?:from [\w.]+ )?import [\w.*{]|#include\b|package \w'
    r'|(?:export )?(?:default )?(?:async )?function\b|(?:pub(?:\(\w+\))? )?(?:fn|struct|enum|impl|trait|mod) \w'
    r'|func \w|(?:public|private|protected|static) \w|(?:const|let|var) \w+ *=|@\w+|return\b|if \(|\} else'
    r'|#!/|\w+ *= *[\w\[{(\'"]|[})\]];?$|.*[{:;]$)',
    _M,
)
_YAML_FIELD = re.compile(r'^ *(?:- )?[\w-]+: ', _M)
"""A record serialized as YAML (`- id: 3`, `  status: open`) or as `key: value` lines."""


def _yaml_start(stripped: str) -> str:
    """Where a text's first YAML field would be: past `_YAML_PREAMBLE` in a stream of documents, else its start.

    A stream: another document starts after the first. Not a Markdown page's front matter, closed by `---` over prose
    (`_FRONT_MATTER`): its headings and text are the page. Not one document under `---` and a comment (a values file).
    """
    if stripped[:3] != '---' or '\n---' not in stripped or _FRONT_MATTER.match(stripped):
        return stripped
    return _YAML_PREAMBLE.sub('', stripped)


_FRONT_MATTER = re.compile(r'---[ \t]*\r?\n(?:[^\n]*\n){1,40}?---[ \t]*\r?\n\s*(?![\w-]+: |- |#[ \t]*[\w./-]+: )\S')
"""A page's front matter: a block of at most 40 lines between `---` lines, then text that is no field, list item or
`# Source:` comment (a heading, a paragraph)."""
_YAML_PREAMBLE = re.compile(r'\A---[ \t]*\r?\n(?:(?:#[^\n]*)?[ \t]*\r?\n)*')
"""What may stand above a YAML stream's first field: its first document's start (`---`, as `helm template` prints one
over each manifest), then comments (`# Source: shop/templates/api.yaml`) and blank lines. Not comments alone: a
values file under its comment reads better as a document (its top lines, `replicaCount:` and `image:`, first)."""
_INDENTED = re.compile(r'^(?: {4}|\t)+\S', _M)
"""Prose is rarely indented; code with long docstrings has few definition lines but many indented ones."""
_HTML = re.compile(r'<(?:html|head|body|div|p|span|a|table|tr|td|li|ul|h[1-6]|script|meta)\b', re.IGNORECASE)
_BASE64 = re.compile(r'[A-Za-z0-9+/=]{200,}')
_RESULT_URL = re.compile(r'^(?:URL|Url|Link|Source|url|link): *https?://', _M)
"""Search results written as text: `Title: ...` / `URL: https://...` blocks."""
_URL_KEYS = frozenset({'url', 'link', 'href', 'uri', 'source', 'source_url'})
_TEXT_KEYS = frozenset({'title', 'name', 'content', 'snippet', 'text', 'body', 'description', 'summary', 'raw_content'})
_RESULT_LISTS = ('results', 'items', 'organic', 'organic_results', 'hits', 'documents', 'data', 'web')


def detect_kind(content: object) -> ContentKind:
    """The kind of `content`: a string by its lines, a list or object by its items' keys."""
    if isinstance(content, str):
        return _text_kind(content)
    if isinstance(content, Mapping):
        mapping: Mapping[object, object] = content  # pyright: ignore[reportUnknownVariableType]
        if not mapping:
            return ContentKind.OTHER
        for key in _RESULT_LISTS:
            if _is_search(mapping.get(key)):
                return ContentKind.SEARCH
        main = _main_text(mapping)
        return _text_kind(main) if main is not None else ContentKind.RECORDS
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        if not content:
            return ContentKind.OTHER
        return ContentKind.SEARCH if _is_search(list(content)) else ContentKind.RECORDS  # pyright: ignore[reportUnknownArgumentType]
    return ContentKind.OTHER


def stamped(line: str) -> bool:
    """Whether `line` starts with a timestamp: a log record of its own."""
    return _TIMESTAMP.match(line) is not None


def _main_text(mapping: Mapping[object, object]) -> str | None:
    """The string holding most of an object's text (`stdout` beside `exit_code`), if one does."""
    texts = [value for value in mapping.values() if isinstance(value, str)]
    if not texts:
        return None
    main = max(texts, key=len)
    others = sum(len(json.dumps(value, default=str)) for value in mapping.values() if value is not main)
    return main if len(main) > 2 * others else None


def _is_search(value: object) -> bool:
    """Whether `value` is a list whose items (most of them) have a url and a title or some content."""
    if not isinstance(value, list) or not value:
        return False
    items: list[object] = value  # pyright: ignore[reportUnknownVariableType]
    hits = 0
    for item in items[:50]:
        if isinstance(item, dict):
            keys = {str(key).lower() for key in item}  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            hits += bool(keys & _URL_KEYS) and bool(keys & _TEXT_KEYS)
    return hits * 2 > min(len(items), 50)


def _text_kind(text: str) -> ContentKind:
    sample = text if len(text) <= _HEAD_CHARS + _TAIL_CHARS else f'{text[:_HEAD_CHARS]}{_CUT}{text[-_TAIL_CHARS:]}'
    sample = ESCAPES.sub('', sample)
    lines = sample.split('\n')
    prefixes = source_prefixes(lines)
    if prefixes is not None:  # several sources in one stream (docker compose): what each wrote tells
        kind = _sample_kind('\n'.join(line[width:] for line, width in zip(lines, prefixes, strict=True)), text)
        if kind in SOURCED_KINDS:
            return kind
    return _sample_kind(sample, text)


SOURCED_KINDS = frozenset({ContentKind.LOG, ContentKind.SHELL})
"""The kinds a stream of several sources' lines (`lines.source_prefixes`) is read as, each line without its prefix."""


def _sample_kind(sample: str, text: str) -> ContentKind:
    """The kind of a text by `sample`, its head and tail (`text` whole, where only a parse can tell: JSON)."""
    stripped = sample.strip()
    if not stripped:
        return ContentKind.OTHER
    if stripped[0] in '[{' and _is_json_container(text):
        return ContentKind.JSON_TEXT
    unfenced = _unfenced(sample)
    if _DIFF_GIT.search(unfenced) or (_DIFF_FILES.search(unfenced) and _HUNK.search(unfenced)):
        return ContentKind.DIFF
    if _git_log(sample):
        return ContentKind.DIFF
    lines = sum(1 for line in sample.splitlines() if line.strip())
    whole = _read_whole(sample, stripped, lines)
    if whole is not None:
        return whole

    def share(pattern: re.Pattern[str]) -> float:
        return len(pattern.findall(sample)) / lines

    if share(_NUMBERED) > 0.5:
        return ContentKind.CODE
    shell_marks = len(_SHELL_MARK.findall(unfenced))
    if shell_marks >= 2 and shell_marks > 0.3 * lines:  # before listings and logs: `f.c:1:2: error`, `FAILED t.py`
        return ContentKind.SHELL
    if share(_GREP) > 0.5 or share(_LS_LONG) > 0.5:
        return ContentKind.LISTING
    if lines >= 3 and share(_PATH_LINE) > 0.6 and len(_PATH_SHAPED.findall(sample)) >= lines:
        return ContentKind.LISTING
    if lines >= 3 and len(_RESULT_URL.findall(sample)) >= 3:  # a match a line: three need three lines
        return ContentKind.SEARCH
    if lines >= 3 and share(_RECORD) > 0.4:
        return ContentKind.LOG
    if lines >= 5 and _YAML_FIELD.match(_yaml_start(stripped)) and share(_YAML_FIELD) > 0.15:
        return ContentKind.RECORDS
    if shell_marks >= 2 or (shell_marks and lines < 20):
        return ContentKind.SHELL
    # Fewer than three lines (a field's value, a one-line message) are too few to tell code by.
    return ContentKind.CODE if lines >= 3 and _is_code(sample, lines) else ContentKind.PROSE


def _unfenced(sample: str) -> str:
    """`sample` without what its Markdown code fences hold: the lines of a document, not those it quotes.

    A document that shows a patch (```` ```diff ```` over `diff --git a/...`) or a test run (```` ```console ````
    over `FAILED t.py::test_x`) is a document, as a README, a review or these docs are: read as a diff or as command
    output, its headings and prose weighed nothing and its quoted hunks and failures were required.

    Not so a run or a patch in a fence under a line or two saying what it is (`Ran pytest (exit code 1):`, an edit
    tool's `Applied edit:`): it is what it fences, so a sample with fewer than 3 lines, or a fifth of its lines,
    outside its fences is read whole. Nor a sample whose fences do not pair: a long text's head and tail (`_CUT`
    between them) each pair their own, and one left open (cut off, or a fence a program printed) hides nothing.
    """
    if sample.count('```') + sample.count('~~~') < 2:
        return sample
    pieces = sample.split(_CUT) if _CUT in sample else [sample]
    outside: list[str] = []
    for piece in pieces:
        parts = _FENCE.split(piece)
        if len(parts) % 2 == 0:  # a fence left open (cut off, or a fence quoted in the output): it hides nothing
            return sample
        outside.extend(parts[::2])  # the text between fences: before the first, after each closing one
    unfenced = ''.join(outside)
    kept = sum(1 for line in unfenced.split('\n') if line.strip())
    if kept < 3 or kept < 0.2 * sum(1 for line in sample.split('\n') if line.strip()):
        return sample  # a run or a patch in a fence under a line or two saying what it is: not a document
    return unfenced


_CUT = '\n\x00\n'
"""Where a long text's sample joins its head and its tail: a fence does not pair across it."""
_FENCE = re.compile(rf'^{FENCE}[^\n]*$', _M)


def _read_whole(sample: str, stripped: str, lines: int) -> ContentKind | None:
    """The kind of a text no line of which says what it is: an encoded file, a browser's accessibility tree."""
    if sum(map(len, _BASE64.findall(sample))) > 0.8 * len(stripped):  # an encoded file: no lines to keep
        return ContentKind.OTHER
    if len(TREE_NODE.findall(sample)) > TREE_SHARE * lines:  # a page, however indented (YAML, code)
        return ContentKind.PROSE
    return None


def _git_log(sample: str) -> bool:
    """Whether `sample` is `git log` output without its patches: it opens with a commit, and holds two with authors.

    Opens with: within its first few lines (a `$ git log` prompt above it), so a document quoting two commits
    further down (release notes) stays a document.
    """
    first = COMMIT.search(sample)
    return (
        first is not None
        and sample.count('\n', 0, first.start()) < _GIT_LOG_START
        and len(COMMIT.findall(sample)) >= 2
        and len(_AUTHOR.findall(sample)) >= 2
    )


_GIT_LOG_START = 3
"""Lines above a `git log`'s first commit at most: a prompt, the command, a blank line."""


def _is_code(sample: str, lines: int) -> bool:
    """Whether the lines look like source: many code-shaped lines, or some and much indentation, and no HTML."""
    code = len(_CODE_LINE.findall(sample)) / lines
    indented = code > 0.12 and len(_INDENTED.findall(sample)) / lines > 0.3
    return (code > 0.25 or indented) and not _HTML.search(sample[:2000])


def _is_json_container(text: str) -> bool:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # nested past what `json` reads: summarized as text
        return False
    return isinstance(value, (list, dict))
