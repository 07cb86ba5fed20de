"""The eval's compression/retention plot: readable labels, the full x range, blind retention, no silent skip."""

from __future__ import annotations

import logging
import sys
from itertools import combinations

import pytest
from matplotlib import pyplot
from matplotlib.collections import PathCollection
from matplotlib.text import Annotation, Text

from summarizer import SummarizerConfig
from summarizer.eval._metrics import ReturnScore, Tally
from summarizer.eval._report import PLOT_FILE, plot_figure, plot_png
from summarizer.eval._run import EvalRun, HistoryScore, ModelScore
from summarizer.pipeline._report import Report


def tally(compression: float, kept: int, referred: int = 10) -> Tally:
    return Tally(
        returns=1,
        summarized=1,
        tokens_before=1000,
        tokens_after=round(1000 * (1 - compression)),
        facts_referred=referred,
        facts_kept=kept,
    )


def model(name: str, tools: dict[str, Tally], *, blind: Tally | None) -> ModelScore:
    """A model's score over `tools`; `blind`: the overall figure of its blind run, if it has one."""
    returns = [
        ReturnScore(tool_name=tool, tool_call_id=f'id-{tool}', message_index=2, kind='code', tally=figures)
        for tool, figures in tools.items()
    ]
    history = HistoryScore(name='h', returns=returns, tokens_before=50_000, tokens_after=20_000)
    blind_run = None if blind is None else model(name, {'all': blind}, blind=None)
    return ModelScore(name=name, histories=[history], report=Report(), seconds=1.0, price_usd=0.0, blind=blind_run)


@pytest.fixture
def crowded() -> EvalRun:
    """Two models, most tools at 100% retention and compressions a point or two apart: where labels collided."""
    extractive = {f'tool_{n:02d}': tally(0.78 + 0.01 * (n % 4), 10) for n in range(14)}
    extractive['lossy'] = tally(0.9, 6)
    head = {f'tool_{n:02d}': tally(0.79 + 0.01 * (n % 3), 10 if n % 2 else 9) for n in range(14)}
    models = [model('extractive', extractive, blind=tally(0.81, 7)), model('head', head, blind=None)]
    return EvalRun(config=SummarizerConfig(), models=models, histories=['h'])


def test_labels_do_not_overlap_and_the_axis_spans_0_to_100(crowded: EvalRun) -> None:
    figure = plot_figure(crowded)
    try:
        figure.draw_without_rendering()
        axes = figure.axes[0]
        labels = [text for text in axes.texts if isinstance(text, Annotation)]
        assert len(labels) >= 8
        boxes = [Text.get_window_extent(label) for label in labels]  # the text, without the line to its point
        overlapping = [
            (a.get_text(), b.get_text())
            for (a, box_a), (b, box_b) in combinations(zip(labels, boxes), 2)
            if box_a.overlaps(box_b)
        ]
        assert overlapping == []
        left, right = axes.get_xlim()
        assert left <= 0 and right >= 100
    finally:
        pyplot.close(figure)


def test_blind_retention_is_drawn(crowded: EvalRun) -> None:
    figure = plot_figure(crowded)
    try:
        axes = figure.axes[0]
        blind = [c for c in axes.collections if isinstance(c, PathCollection) and c.get_label() == 'extractive: blind']
        assert len(blind) == 1
        x, y = blind[0].get_offsets()[0]
        assert (round(float(x)), round(float(y))) == (81, 70)
        legend = [text.get_text() for text in axes.get_legend().get_texts()]
        assert 'extractive: blind' in legend and any(label.startswith('blind floor ') for label in legend)
    finally:
        pyplot.close(figure)


def test_without_matplotlib_the_skip_is_said(
    crowded: EvalRun, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The eval's plot and the replay's say it in the same words (the replay's had a spelling of its own)."""
    from summarizer.eval._replay import ReplayRun
    from summarizer.eval._replay_report import PLOT_FILE as REPLAY_PLOT_FILE, _plot_png  # pyright: ignore[reportPrivateUsage]

    monkeypatch.setitem(sys.modules, 'matplotlib', None)  # import matplotlib raises ImportError
    with caplog.at_level(logging.WARNING, logger='summarizer'):
        assert plot_png(crowded) is None
        assert _plot_png(ReplayRun(strategies=[], prices=['openai:gpt-5'], histories=[], figures={})) is None
    hint = "matplotlib is not installed (the eval extra: pip install '.[eval]' in the project's checkout)"
    assert [record.getMessage() for record in caplog.records] == [
        f'{PLOT_FILE} skipped: {hint}',
        f'{REPLAY_PLOT_FILE} skipped: {hint}',
    ]
