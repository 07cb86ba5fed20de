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


_NOTES = [
    f'Note {k}: the project is maintained by volunteers and welcomes pull requests of any size.' for k in range(30)
]


def test_a_line_of_facts_under_a_menu_like_line_is_worth_its_facts() -> None:
    """A list item of nothing but a link whose target the scrape dropped (`* [Checkout]`) weighs less than
    nothing for itself (`prose.CHROME`), not against the lines it places: the item under it, its facts in
    full, still beats a line of nothing."""
    text = '\n'.join(
        [
            '# Release notes for shop 4.2',
            '',
            'This page lists what changed in each component of the shop platform in release 4.2.',
            '',
            '* [Payments]',
            '    * Refunds now retry on HTTP 503 up to 5 times, with a 250 ms backoff (PAY-1432).',
            '    * The `refund_ratio` setting defaults to 0.33 instead of 0.5.',
            '* [Inventory]',
            '    * Stock counts sync every 30 s from warehouse-eu-2 instead of every 300 s (INV-877).',
            '* [Checkout]',
            '    * Orders over $10,000 need 2FA since 2026-03-01 (CHK-55).',
            '',
            *_NOTES,
        ]
    )
    assert detect_kind(text) is ContentKind.PROSE
    summary = summarize(text, budget_tokens=300)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert _NOTES[3] in kept  # the budget holds lines of nothing, then ...
    assert '    * Orders over $10,000 need 2FA since 2026-03-01 (CHK-55).' in kept  # ... this first
    assert kept[kept.index('    * Orders over $10,000 need 2FA since 2026-03-01 (CHK-55).') - 1] == '* [Checkout]'


def test_a_bracketed_line_in_a_code_block_is_no_menu() -> None:
    """`[tool.shop-sync.warehouse]` in a README's TOML block names the table its keys belong to."""
    text = '\n'.join(
        [
            '# shop-sync',
            '',
            'shop-sync copies orders from the shop database to the warehouse every few minutes.',
            '',
            '## Configuration',
            '',
            'Add its settings to `pyproject.toml`:',
            '',
            '```toml',
            '[tool.shop-sync]',
            'database = "postgresql://db-prod-3.internal.example.com:5432/shop"',
            'batch-size = 500',
            '',
            '[tool.shop-sync.warehouse]',
            'url = "https://wms.example.com/api/v2"',
            'token-env = "WMS_TOKEN"',
            '```',
            '',
            *_NOTES[:25],
        ]
    )
    assert detect_kind(text) is ContentKind.PROSE
    summary = summarize(text, budget_tokens=200)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert 'url = "https://wms.example.com/api/v2"' in kept
    assert '[tool.shop-sync.warehouse]' in kept
