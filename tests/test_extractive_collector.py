"""The embedded model pauses Python's cyclic garbage collector while it builds a summary, and only then."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from summarizer import extractive
from summarizer.extractive import budget, tree
from summarizer.extractive.budget import collector_paused

LOG = '\n'.join(
    f'2025-03-14T10:00:{n % 60:02d}Z INFO worker-{n % 4} req-{n:05d} took {n * 7 % 900} ms' for n in range(400)
)


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.usefixtures('collector_on')
def test_it_is_paused_while_a_summary_is_built_and_resumed_after(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    select = tree._Tree.select  # pyright: ignore[reportPrivateUsage]

    def recording(self: tree._Tree, limit: float) -> None:  # pyright: ignore[reportPrivateUsage]
        seen.append(gc.isenabled())
        select(self, limit)

    monkeypatch.setattr(tree._Tree, 'select', recording)  # pyright: ignore[reportPrivateUsage]
    summary = extractive.summarize(LOG, budget_tokens=200)
    assert isinstance(summary, str) and summary
    assert seen and not any(seen)
    assert gc.isenabled()


@pytest.mark.usefixtures('collector_on')
def test_it_is_resumed_when_the_work_stops_on_its_deadline() -> None:
    with pytest.raises(budget.WorkBudgetExceeded), extractive.time_limit(0.0):
        extractive.summarize(LOG * 20, budget_tokens=200)
    assert gc.isenabled()


def test_a_collector_the_program_turned_off_stays_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        extractive.summarize(LOG, budget_tokens=200)
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


@pytest.mark.usefixtures('collector_on')
def test_summaries_side_by_side_resume_it_when_the_last_one_ends() -> None:
    first_in, second_done, states = threading.Event(), threading.Event(), list[bool]()

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_done.wait(10)
            states.append(gc.isenabled())  # the second one ended: still paused for this one

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(10)
    with collector_paused():
        states.append(gc.isenabled())
    second_done.set()
    thread.join(10)
    assert states == [False, False]
    assert gc.isenabled()
