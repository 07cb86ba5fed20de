"""Prose and Markdown: headings stay, lines verbatim, the quoted fact kept."""

from __future__ import annotations

from extractive_checks import kept_lines

from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind

SECTIONS = ['Overview', 'Installation', 'Configuration', 'Upgrading from 3.x', 'Known issues']
MARKDOWN = '\n'.join(
    line
    for index, title in enumerate(SECTIONS)
    for line in [
        f'## {title}',
        '',
        *[
            f'Paragraph {n} of the {title.lower()} section explains how the service behaves when the queue is '
            'under load and what an operator should watch for during the night shift.'
            for n in range(8)
        ],
        f'Set `WORKER_POOL_SIZE={index + 4}` before starting the service, see RFC-{2100 + index}.'
        if index == 2
        else '',
        '',
    ]
)


def test_headings_stay_and_the_quoted_fact_is_kept() -> None:
    assert detect_kind(MARKDOWN) is ContentKind.PROSE
    summary = summarize(MARKDOWN, budget_tokens=300, quoted=('WORKER_POOL_SIZE=6',))
    assert isinstance(summary, str)
    kept = kept_lines(MARKDOWN, summary)
    assert all(f'## {title}' in kept for title in SECTIONS)
    assert 'Set `WORKER_POOL_SIZE=6` before starting the service, see RFC-2102.' in kept
