"""Logs: every error line it can, repeated lines folded with a count."""

from __future__ import annotations

from extractive_checks import kept_lines, summary_lines

from summarizer.extractive import summarize
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
