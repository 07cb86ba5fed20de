"""Looking quoted facts up in every item of a long list, or every repeated line of a text."""

from __future__ import annotations

import itertools
import time

import pytest

from summarizer.core import JsonValue, mention_pattern, mentions
from summarizer.extractive import WorkBudgetExceeded, summarize, time_limit, tree
from summarizer.extractive.tree import _Phrases  # pyright: ignore[reportPrivateUsage]


def _phrases(facts: list[str]) -> _Phrases:
    patterns = [(fact, mention_pattern(fact)) for fact in facts]
    return _Phrases([(fact, pattern) for fact, pattern in patterns if pattern is not None])


def test_quoted_phrases_are_found_whole_as_mentions_finds_them() -> None:
    facts = [f'Acme Freight line {n}' for n in range(40)] + ['"disk full"', 'a.b c', 'host-3.example.org by carrier']
    phrases = _phrases(facts)
    texts = [
        'shipped by Acme Freight line 12 today',
        'shipped by Acme Freight line 123 today',
        'XAcme Freight line 3',
        'error: "disk full" on /dev/sda',
        'see a.b c.',
        'see xa.b c',
        'host-3.example.org by carrier',
        'host-33.example.org by carrier',
        'Acme Freight line 39.',
        'Acme Freight line 39.5',
    ]
    for text in texts:
        assert phrases.held(text) == any(mentions(text, fact) for fact in facts), text


def test_thousands_of_quoted_phrases_are_looked_up_in_a_long_list_in_linear_time() -> None:
    """Each fact looked for in each item (`fact in text` per fact) is 3,000 looks an item: minutes for a long list."""
    phrases = _phrases([f'Acme Freight line {n}' for n in range(3000)])
    items = [f'order ord-{n:06d} shipped by carrier Acme Freight line {n + 5000}' for n in range(50_000)]
    started = time.process_time()
    assert not any(map(phrases.held, items))
    assert time.process_time() - started < 1.5  # about 0.1 s; 4 s looking for each fact in each item


def test_thousands_of_quoted_phrases_sharing_their_words_are_looked_up_in_linear_time() -> None:
    """Phrases of the same two words (`foo; bar`, `foo(! bar`, ...) all fell under one word: each item holding it was
    searched for each of them, 5.1 s for 8,000 items and phrases (0.2 s for 2,000)."""
    marks = (''.join(combo) for size in range(1, 6) for combo in itertools.product(',;:-!?()[]', repeat=size))
    phrases = _phrases([f'foo{mark} bar' for mark in itertools.islice(marks, 8000)])
    items = [f'item {n} foo bar baz' for n in range(8000)] + ['foo;( bar', 'a foo/ bar']
    started = time.process_time()
    assert [item for item in items if phrases.held(item)] == ['foo;( bar']
    assert [phrases.found(item) for item in items[-2:]] == [{'foo;( bar'}, set()]
    # a stall guard, not a measure of speed (that is bench/'s): about 0.05 s here, 3 s before
    assert time.process_time() - started < 1.0


def test_phrases_of_one_word_in_a_thousand_places_are_looked_up_in_linear_time() -> None:
    """`foo; bar`, `foo;; bar`, ... of a thousand lengths: sliced out of a text at each run of `foo` for each length,
    one text of 20,000 `foo` runs took 6.7 s; the word's facts are searched for whole instead."""
    phrases = _phrases([f'foo{";" * size} bar' for size in range(1, 1001)])
    text = 'foo bar ' * 20_000 + 'foo;;; bar'
    started = time.process_time()
    assert phrases.found(text) == {'foo;;; bar'} and phrases.held(text)
    assert time.process_time() - started < 1.0  # a stall guard: about 0.02 s here, 6.7 s before


def test_pinning_many_quoted_facts_no_item_holds_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_pin` looks each missing fact up in each unit: 20,000 items times 100,000 facts went on for 10 s past 1 s.

    (It looks for `_PINNED_AT_MOST` of them now: all of them here, to test that the deadline stops it.)
    """
    monkeypatch.setattr(tree, '_PINNED_AT_MOST', 100_000)
    items: list[JsonValue] = [
        f'order ord-{n:06d} shipped to host-{n % 97}.example.org by carrier Acme Freight' for n in range(20_000)
    ]
    quoted = tuple(f'missing-fact-{n}' for n in range(100_000))
    started = time.monotonic()
    with pytest.raises(WorkBudgetExceeded), time_limit(1.0):
        summarize(items, budget_tokens=500, quoted=quoted)
    assert time.monotonic() - started < 2.0


def test_thousands_of_quoted_trailing_parts_are_pinned_in_linear_time() -> None:
    """A turn quoting the trailing part of each of 16,000 dotted names (`fetch_11` of `self.store.fetch_11(key)`),
    facts no line has as its own: each was looked for in each line, 10.7 s (0.8 s for 4,000, quadratic)."""
    text = '\n'.join(f'    result_{n} = self.store.fetch_{n}(key)' for n in range(16_000))
    quoted = tuple(f'fetch_{n}' for n in range(16_000))
    started = time.process_time()
    summarize(text, budget_tokens=300, quoted=quoted)
    # a stall guard, not a measure of speed (that is bench/'s): about 0.8 s here, 10.7 s before
    assert time.process_time() - started < 4.0
