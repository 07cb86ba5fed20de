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
