"""Search results: the url and title of every item that fits, the page text shortened by line."""

from __future__ import annotations

from extractive_checks import kept_lines

from summarizer.core._shape import JsonValue, shape_mismatch
from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind

RESULTS: list[JsonValue] = [
    {
        'url': f'https://docs.example.org/guides/rate-limits-{n}',
        'title': f'Rate limits, part {n}: quotas and bursts',
        'content': '\n'.join(
            f'Section {k} of part {n} describes how the token bucket refills every second and how bursts are '
            'absorbed by the shared quota of the organisation.'
            for k in range(12)
        ),
        'score': round(0.9 - n / 50, 3),
    }
    for n in range(8)
]


def test_every_item_keeps_its_url_and_title_and_its_content_is_cut_by_line() -> None:
    assert detect_kind(RESULTS) is ContentKind.SEARCH
    summary = summarize(RESULTS, budget_tokens=500)
    assert isinstance(summary, list) and shape_mismatch(RESULTS, summary) is None
    assert len(summary) == len(RESULTS)
    for item, original in zip(summary, RESULTS, strict=True):
        assert isinstance(item, dict) and isinstance(original, dict)
        assert item['url'] == original['url'] and item['title'] == original['title']
        assert isinstance(item['content'], str) and isinstance(original['content'], str)
        assert len(item['content']) < len(original['content'])
        kept_lines(original['content'], item['content'])


TEXT = '\n\n'.join(
    f'Title: Rate limits, part {n}\nURL: https://docs.example.org/guides/rate-limits-{n}\n'
    + '\n'.join(f'Section {k} explains token buckets and bursts for part {n} of the guide.' for k in range(10))
    for n in range(8)
)


def test_search_results_as_text_keep_titles_and_urls() -> None:
    assert detect_kind(TEXT) is ContentKind.SEARCH
    summary = summarize(TEXT, budget_tokens=300)
    assert isinstance(summary, str)
    kept = kept_lines(TEXT, summary)
    assert all(f'URL: https://docs.example.org/guides/rate-limits-{n}' in kept for n in range(8))


_MENU = [
    '[![]] ',
    '[About us] ',
    '![]![] [Get A Free AI Chatbot] ',
    *[f'* [{service} Development] ' for service in ('SugarCRM', 'HubSpot', 'X2CRM', 'Odoo', 'Salesforce', 'Zoho')],
    '[### HealthCare',
    '1. [Share This Article] ',
    '2. [Introduction] ',
]


def _scraped(n: int) -> str:
    return '\n'.join(
        [
            f'Title: Agent platforms compared, part {n}',
            f'URL: https://agents.example.com/compare-{n}',
            'Score: None',
            f'Text: Agent platforms compared, part {n}[Skip to content] ',
            *_MENU[:-2],
            '] EHR Systems and Medical Imaging Software',
            *_MENU[-2:],
            f'# Agent platforms compared, part {n}',
            f'The agent market reached ${n + 2}.4 billion in 2025, and grows {30 + n}% a year by 2030 estimates.',
            *[f'Paragraph {k} of the article weighs the vendors against each other in plain words.' for k in range(8)],
        ]
    )


def test_a_scraped_pages_menus_and_link_lists_stay_out() -> None:
    """A web page's navigation, lines of nothing but links, holds names (`SugarCRM`) that would win a budget
    from the page's sentences a few tokens at a time: a reader wants titles, urls and what the page says."""
    text = '\n\n'.join(_scraped(n) for n in range(6))
    assert detect_kind(text) is ContentKind.SEARCH
    summary = summarize(text, budget_tokens=400)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert not set(kept) & set(_MENU)
    for n in range(6):
        assert f'Title: Agent platforms compared, part {n}' in kept
        assert f'URL: https://agents.example.com/compare-{n}' in kept
    assert any(line.startswith('The agent market reached $') for line in kept)


def test_a_link_line_a_later_turn_quotes_is_kept() -> None:
    text = '\n\n'.join(_scraped(n) for n in range(6))
    summary = summarize(text, budget_tokens=400, quoted=('X2CRM',))
    assert isinstance(summary, str)
    assert '* [X2CRM Development] ' in kept_lines(text, summary)
