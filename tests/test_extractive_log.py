"""Logs: every error line it can, repeated lines folded with a count."""

from __future__ import annotations

from extractive_checks import kept_lines, summary_lines

from summarizer.core._tokens import estimate_tokens
from summarizer.extractive import log, summarize
from summarizer.extractive._kinds import ContentKind, detect_kind


def _log() -> str:
    lines: list[str] = []
    for n in range(600):
        stamp = f'2025-02-03T10:{n // 60:02d}:{n % 60:02d}.{n * 13 % 1000:03d}Z'
        if n in (150, 420):
            lines.append(f'{stamp} ERROR payments.worker charge {7000 + n} failed: card_declined (gateway=stripe)')
        elif n == 300:
            lines.append(f'{stamp} WARN  payments.worker retrying charge {7000 + n} after 503 from gateway')
        else:
            lines.append(f'{stamp} INFO  payments.worker heartbeat ok queue_depth={n % 7}')
    return '\n'.join(lines)


LOG = _log()


def test_error_lines_are_kept_and_repeats_are_folded_with_a_count() -> None:
    assert detect_kind(LOG) is ContentKind.LOG
    summary = summarize(LOG, budget_tokens=250)
    assert isinstance(summary, str)
    kept = kept_lines(LOG, summary)
    errors = [line for line in LOG.split('\n') if ' ERROR ' in line]
    assert all(line in kept for line in errors)
    assert any(line.endswith('similar lines omitted …') for line in summary.split('\n'))
    assert sum('heartbeat ok' in line for line in kept) <= 3


def test_a_repeated_line_holding_a_quoted_url_is_not_folded_away() -> None:
    """A fact of several tokens (a URL with its query) is held by a line as a whole, not as one of its tokens:
    the line that holds it is kept, not folded into the first line like it."""
    lines = [
        f'2025-02-03T10:00:{n:02d}.000Z INFO  http GET /api/orders?page={n}&per_page=50 200 {12 + n}ms'
        for n in range(60)
    ]
    text = '\n'.join(lines)
    summary = summarize(text, budget_tokens=120, quoted=('/api/orders?page=37&per_page=50',))
    assert isinstance(summary, str)
    assert lines[37] in kept_lines(text, summary)


def test_a_logs_last_record_is_kept_though_it_is_like_the_first() -> None:
    """Where a log ended (its latest record) is what a reader checks first, a repeat of the first line's shape or
    not: it is never folded into that line."""
    lines = [
        f'2025-02-03T10:{n // 60:02d}:{n % 60:02d}.000Z INFO  http GET /api/orders/{n} 200 {12 + n}ms'
        for n in range(90)
    ]
    lines[40] = '2025-02-03T10:00:40.000Z ERROR payments charge ord_40 failed: upstream timeout after 5000ms'
    text = '\n'.join(lines)
    kept = summary_lines(text, budget_tokens=200)
    assert lines[40] in kept
    assert kept[-1] == lines[-1]


def _compose_logs() -> str:
    """`docker compose logs` of three services: health checks, a worker's tasks, and one task's traceback."""
    lines: list[str] = []
    for n in range(120):
        if n % 3 == 0:
            lines.append(f'web-1     | INFO:     172.20.0.{n % 7 + 2}:{41000 + n} - "GET /healthz HTTP/1.1" 200 OK')
        elif n % 3 == 1:
            lines.append(
                f'jobs-1    | [2026-12-01 07:{n // 60:02d}:{n % 60:02d},{100 + n}: INFO/ForkPoolWorker-{n % 4 + 1}] '
                f'Task jobs.render_invoice[{n * 2654435761 % 2**64:016x}] succeeded in 0.{n % 9 + 1}2s: None'
            )
        else:
            lines.append(
                f'cache-1   | 1:M 01 Dec 2026 07:{n // 60:02d}:{n % 60:02d}.{n:03d} * {n % 50 + 1} changes in 60 seconds.'
            )
        if n == 70:
            lines += [
                'jobs-1    | [2026-12-01 07:01:10,870: ERROR/ForkPoolWorker-3] Task jobs.refund[00000001e8f1] raised unexpected',
                'jobs-1    | Traceback (most recent call last):',
                'jobs-1    |   File "/srv/jobs/refunds.py", line 31, in refund',
                'jobs-1    |     gateway.reverse(charge_id)',
                'jobs-1    | payments.GatewayTimeout: no answer from gateway in 15s (charge ch_3PzQ)',
            ]
    return '\n'.join(lines)


def test_a_stream_of_several_services_is_read_as_each_one_wrote_it() -> None:
    """Read past `jobs-1    | `, a service's lines are a log: its exception is kept with its traceback."""
    text = _compose_logs()
    assert detect_kind(text) is ContentKind.LOG
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    for line in (
        'jobs-1    | Traceback (most recent call last):',
        'jobs-1    |   File "/srv/jobs/refunds.py", line 31, in refund',
        'jobs-1    | payments.GatewayTimeout: no answer from gateway in 15s (charge ch_3PzQ)',
    ):
        assert line in kept
    assert sum('render_invoice' in line for line in kept) <= 6  # alike but for numbers: folded


def test_a_table_with_a_repeated_first_column_is_no_stream_of_sources() -> None:
    rows = [f'{("EU", "US", "APAC")[n % 3]} | SKU-{1000 + n} | {n * 3} units | {n * 1.5:.2f} EUR' for n in range(40)]
    text = '\n'.join(['region | sku | units | revenue', *rows])
    assert detect_kind(text) not in (ContentKind.LOG, ContentKind.SHELL)


def test_a_hex_id_starting_with_digits_is_masked_whole() -> None:
    """`0f17a300...` is one id: masked as digits first, its letters would make each line unlike the others."""
    first = 'Task tasks.send_email[0f17a3007e62aa0a] succeeded in 0.218s: None'
    second = 'Task tasks.send_email[91c4be02d7e1f3a6] succeeded in 0.554s: None'
    assert log.signature(first) == log.signature(second)


_COMMANDS = [
    f'{verb}-{noun}'
    for verb in ('add', 'get', 'list', 'remove', 'set', 'show', 'sync', 'undo')
    for noun in ('access', 'audit', 'cache', 'config', 'hook', 'owner', 'profile', 'repo', 'team', 'token')
]


def _pack_log() -> tuple[str, list[str]]:
    """A package manager's debug log (`npm pack`): 328 rows of the tarball's files, each of its own size, 82 rows of
    its bundled packages, then what came of it."""
    places = (
        'docs/content/commands/npm-{}.md',
        'docs/output/commands/npm-{}.html',
        'lib/commands/{}.js',
        'man/man1/npm-{}.1',
    )
    paths = [place.format(command) for place in places for command in _COMMANDS]
    files = [f'19 notice {(n * 7919) % 4000 / 10 + 0.2:.1f}kB {path}' for n, path in enumerate(paths)]
    bundled = [f'{20 + n} notice {command}-helper' for n, command in enumerate(_COMMANDS)]
    details = (
        'notice Tarball Details',
        'notice name: widget',
        'notice version: 2.4.1',
        'notice filename: widget-2.4.1.tgz',
        'notice package size: 88.1 kB',
        'notice shasum: 19984947ed6b8b1e0c794ceadb0a848cc5585128',
        f'notice total files: {len(files)}',
        'verbose exit 0',
        'info ok',
    )
    outcome = [f'{20 + len(bundled) + n} {line}' for n, line in enumerate(details)]
    head = ['0 verbose cli /usr/bin/node /usr/bin/npm', '1 verbose argv "pack"', '18 notice Tarball Contents']
    return '\n'.join([*head, *files, '19 notice Bundled Dependencies', *bundled, *outcome]), outcome


def test_a_long_run_of_alike_rows_does_not_crowd_out_the_lines_after_it() -> None:
    """Rows alike but for their numbers and last word are one table: its first rows stand for it, and the lines
    saying what came of the command (the tarball's file name, its checksum, its count of files, the exit) come after
    it, not 90 more rows each holding a size and a path."""
    text, outcome = _pack_log()
    lines = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert {line for line in outcome if 'filename:' in line or 'shasum:' in line or 'total files:' in line} <= set(
        lines
    )
    assert outcome[-2] in lines
    assert '19 notice 0.2kB docs/content/commands/npm-add-access.md' in lines  # the table's first row


def _service_log(record: str) -> str:
    """400 records of a service in one format (`record`, with its `level`, `letter`, `clock`, `n` and `message`): three
    errors and a warning among routine records."""
    levels = {97: 'error', 180: 'warn', 250: 'error', 251: 'error'}
    messages = {
        'error': 'upstream timeout after 30000ms',
        'warn': 'connection pool exhausted',
        'info': 'request handled',
    }
    return '\n'.join(
        record.format(
            level=(level := levels.get(n, 'info')),
            letter=level[0].upper(),
            clock=f'10:{n // 60:02d}:{n % 60:02d}',
            n=n,
            message=messages[level],
        )
        for n in range(400)
    )


def test_a_structured_logs_errors_are_kept_and_its_routine_lines_folded() -> None:
    """logfmt and klog (`E0506 ...`: the level's letter first) are logs: their errors and warning are kept, and the
    routine records fold into a count, instead of a sample of 130 of them read as code or prose."""
    logfmt = 'time="2024-05-06T{clock}Z" level={level} msg="{message}" path=/api/items/{n} status=200'
    klog = '{letter}0506 {clock}.123456       1 server.go:{n}] {message} path=/api/items/{n}'
    for record in (logfmt, klog):
        text = _service_log(record)
        assert detect_kind(text) is ContentKind.LOG
        summary = summarize(text, budget_tokens=estimate_tokens(text) // 4)
        assert isinstance(summary, str)
        assert summary.count('upstream timeout') == 3 and 'connection pool exhausted' in summary
        assert 'similar lines omitted' in summary and summary.count('\n') < 20


def test_a_row_unlike_the_run_around_it_stands_out() -> None:
    """399 rows alike but for their numbers and one naming its job otherwise (`J-7731-ALPHA` among `job-00210`): the
    run's rows weigh as a long list's items, the odd one in full, so it is kept with nothing quoting it."""
    lines = [
        f'worker {n % 7}: job {"J-7731-ALPHA" if n == 211 else f"job-{n:05d}"} finished in {n * 13 % 997} ms'
        for n in range(400)
    ]
    text = '\n'.join(lines)
    assert lines[211] in summary_lines(text, budget_tokens=estimate_tokens(text) // 4)


def _server_log() -> tuple[list[str], dict[str, list[str]]]:
    """A PostgreSQL server's log with every statement logged: inserts, a key inserted again now and then."""
    lines: list[str] = []
    details: dict[str, list[str]] = {}
    for n in range(120):
        at = f'2026-03-0{n % 9 + 1} 10:{n % 60:02d}:{n % 37:02d}.{n:03d} UTC [{4100 + n % 3}]'
        statement = f"INSERT INTO orders_{n % 4} VALUES ({n}, 'sku-{n}')"
        lines += [f'{at} LOG:  statement: {statement};', f'{at} LOG:  duration: 0.{n:03d} ms']
        if n % 10 == 7:
            error = f'{at} ERROR:  duplicate key value violates unique constraint "orders_{n % 4}_pkey"'
            details[error] = [f'{at} DETAIL:  Key (id)=({n}) already exists.', f'{at} STATEMENT:  {statement};']
            lines += [error, *details[error]]
    return lines, details


def test_a_server_error_comes_with_its_detail_and_statement() -> None:
    """PostgreSQL logs what went wrong (`ERROR:`), then which key (`DETAIL:`) and which statement (`STATEMENT:`):
    an error kept without them said neither; kept, they say what to fix."""
    lines, details = _server_log()
    text = '\n'.join(lines)
    assert detect_kind(text) is ContentKind.LOG
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 8)
    errors = [line for line in kept if line in details]
    assert len(errors) >= 3
    for error in errors:
        assert kept[kept.index(error) + 1 : kept.index(error) + 3] == details[error], error
