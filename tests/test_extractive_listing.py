"""`grep -n` and `find` listings: whole lines, every file shown where it can, the quoted identifier kept."""

from __future__ import annotations

from extractive_checks import kept_lines

from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind

FILES = [f'src/billing/module_{n}.py' for n in range(8)]
GREP = '\n'.join(
    f'{path}:{line}:    total = apply_discount(order_{index}_{line}, rate=Decimal("0.{line % 9}"))  # keep totals in cents'
    for index, path in enumerate(FILES)
    for line in range(10, 400, 17)
)
FIND = '\n'.join(f'./assets/img/product_{n:04d}.webp' for n in range(400))


def test_grep_lines_are_whole_and_each_file_shows() -> None:
    assert detect_kind(GREP) is ContentKind.LISTING
    summary = summarize(GREP, budget_tokens=600)
    assert isinstance(summary, str)
    kept = kept_lines(GREP, summary)
    assert all(any(line.startswith(f'{path}:') for line in kept) for path in FILES)


def test_grep_keeps_the_quoted_identifier() -> None:
    summary = summarize(GREP, budget_tokens=300, quoted=('order_5_333',))
    assert isinstance(summary, str)
    kept_lines(GREP, summary)
    assert 'order_5_333' in summary  # on its line, or on the facts line where that line did not fit


def test_a_find_listing_keeps_whole_paths() -> None:
    assert detect_kind(FIND) is ContentKind.LISTING
    summary = summarize(FIND, budget_tokens=200, quoted=('./assets/img/product_0321.webp',))
    assert isinstance(summary, str)
    kept = kept_lines(FIND, summary)
    assert './assets/img/product_0321.webp' in kept
    assert len(kept) >= 8
