"""The replay's outputs: a Markdown summary, a JSON file with every figure, and a PNG plot.

The summary says, per strategy and against no compaction in the same run, what the runs sent (tokens,
largest prompt), what they cost with prompt caching priced, and how many of the facts the next step
used the prompt still held; then the same per history, so a run a strategy made dearer is visible.
Files are written owner-only, like the eval's (they name histories, not their contents).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from ..core import install_hint
from ._replay import NO_COMPACTION, ReplayRun, RunFigures
from ._report import write_files

logger = logging.getLogger(__name__)

SUMMARY_FILE = 'replay.md'
DATA_FILE = 'replay.json'
PLOT_FILE = 'replay-cost-support.png'
REPLAY_FILES = (SUMMARY_FILE, DATA_FILE, PLOT_FILE)
"""The files a replay report folder gets."""


def write_replay_report(run: ReplayRun, folder: Path, *, started: datetime, sources: list[str]) -> list[Path]:
    """Write the report files into `folder` (created owner-only); returns the files written."""
    data = json.dumps(replay_data(run, started=started, sources=sources), indent=2) + '\n'
    return write_files(
        folder,
        {
            SUMMARY_FILE: replay_markdown(run, started=started, sources=sources),
            DATA_FILE: data,
            PLOT_FILE: _plot_png(run),
        },
    )


def replay_markdown(run: ReplayRun, *, started: datetime, sources: list[str]) -> str:
    none = run.total(NO_COMPACTION.name)
    prices = run.prices
    lines = [
        f'# Run replay, {started:%Y-%m-%d %H:%M}',
        '',
        (
            f'{len(run.histories):,} recorded runs ({none.requests:,} model requests) from {", ".join(sources)}, '
            'each request re-sent as the run sent it, through each strategy (docs/policy.md). Tokens are '
            "estimates of what the model reads; cost is the input of every request at the named model's "
            'prices with prompt caching (the prefix shared with the previous request read from the cache, '
            'the rest written to it or sent plain); *next-step facts*: of the facts of each recorded response '
            'that an earlier tool return held, the share its prompt still held in context (a tool return in a '
            'window of at least 20 characters either side of an original line holding it, or whole; a prompt '
            "or the assistant's own words anywhere); *present*: the share it held anywhere. Percentages are "
            'against no compaction in this run.'
        ),
        '',
        '| strategy | tokens sent | largest prompts | '
        + ' | '.join(f'cost, {run.labels.get(price, price)}' for price in prices)
        + ' | next-step facts | present | rewrites | dearer runs |'
        + (f' over {run.ceiling:,} |' if run.ceiling is not None else ''),
        '|---|--:|--:|' + '--:|' * len(prices) + '--:|--:|--:|--:|' + ('--:|' if run.ceiling is not None else ''),
    ]
    for strategy in run.strategies:
        total = run.total(strategy)
        dearer = len(run.dearer(strategy, prices[0])) if prices else 0
        lines.append(
            f'| {strategy} | {total.tokens_sent:,} ({_change(total.tokens_sent, none.tokens_sent)}) '
            f'| {total.largest_prompt:,} ({_change(total.largest_prompt, none.largest_prompt)}) | '
            + ' | '.join(
                f'${total.cost[price]:.2f} ({_change(total.cost[price], none.cost[price])})' for price in prices
            )
            + f' | {_share(total.support)} | {_share(total.presence)} | {total.rewrites:,} | {dearer} of {len(run.histories)} |'
            + (f' {total.over_ceiling:,} |' if run.ceiling is not None else '')
        )
    if prices:
        lines += [
            '',
            (
                f"*Largest prompts*: each run's largest prompt, added up. *Rewrites*: requests whose prompt does "
                f'not begin with the whole previous prompt. *Dearer runs*: runs that cost more than with no '
                f'compaction ({prices[0]}).'
                + (
                    f' *Over {run.ceiling:,}*: requests whose prompt was over the context ceiling '
                    '(`policy.max_prompt_tokens`).'
                    if run.ceiling is not None
                    else ''
                )
            ),
        ]
    lines += ['', '## Per run', '', _per_run_header(run), '|---|--:|' + '--:|' * (len(run.strategies) - 1)]
    for history in run.histories:
        base = run.figures[NO_COMPACTION.name][history]
        cells = [_run_cell(run.figures[strategy][history], base, prices) for strategy in run.strategies[1:]]
        lines.append(f'| {history} | {base.requests} | ' + ' | '.join(cells) + ' |')
    if run.skipped:
        lines += ['', '## Skipped histories', '', *[f'- {reason}' for reason in run.skipped]]
    return '\n'.join(lines) + '\n'


def _per_run_header(run: ReplayRun) -> str:
    price = f', cost ({run.prices[0]})' if run.prices else ''
    return (
        f'Each cell: tokens sent{price}, next-step facts; against no compaction.\n\n'
        '| run | requests | ' + ' | '.join(run.strategies[1:]) + ' |'
    )


def _run_cell(figures: RunFigures, base: RunFigures, prices: list[str]) -> str:
    cost = f' / {_change(figures.cost[prices[0]], base.cost[prices[0]])}' if prices else ''
    dearer = ' **dearer**' if prices and figures.cost[prices[0]] > base.cost[prices[0]] else ''
    return f'{_change(figures.tokens_sent, base.tokens_sent)}{cost} / {_share(figures.support)}{dearer}'


def _change(value: int | Decimal, base: int | Decimal) -> str:
    if not base:
        return '-'
    return f'{float(value) / float(base) - 1:+.1%}'


def _share(share: float | None) -> str:
    return '-' if share is None else f'{share:.1%}'


def replay_data(run: ReplayRun, *, started: datetime, sources: list[str]) -> dict[str, object]:
    return {
        'started': started.isoformat(),
        'sources': sources,
        'prices': run.prices,
        'ceiling': run.ceiling,
        'histories': run.histories,
        'skipped': run.skipped,
        'strategies': {
            strategy: {
                'total': _figures_data(run.total(strategy)),
                'dearer': {price: run.dearer(strategy, price) for price in run.prices},
                'runs': {history: _figures_data(figures) for history, figures in run.figures[strategy].items()},
            }
            for strategy in run.strategies
        },
    }


def _figures_data(figures: RunFigures) -> dict[str, object]:
    return {
        'requests': figures.requests,
        'tokens_sent': figures.tokens_sent,
        'largest_prompt': figures.largest_prompt,
        'cached_tokens': figures.cached,
        'cost_usd': {price: float(cost) for price, cost in figures.cost.items()},
        'facts': figures.facts,
        'facts_kept': figures.facts_kept,
        'facts_present': figures.facts_present,
        'rewrites': figures.rewrites,
        'over_ceiling': figures.over_ceiling,
    }


def _plot_png(run: ReplayRun) -> bytes | None:
    """Cost against no compaction (x) and next-step facts in context (y), one point per strategy; needs matplotlib."""
    if not run.prices:
        return None
    try:
        import matplotlib

        matplotlib.use('Agg')
        from matplotlib import pyplot
    except ImportError:
        logger.warning('%s skipped: matplotlib is not installed (the eval extra: %s)', PLOT_FILE, install_hint('eval'))
        return None
    from io import BytesIO

    price = run.prices[0]
    none = run.total(NO_COMPACTION.name)
    figure, axes = pyplot.subplots(figsize=(8, 5.5), dpi=110)
    for strategy in run.strategies:
        total = run.total(strategy)
        if total.support is None or not none.cost[price]:
            continue
        x = 100 * (float(total.cost[price] / none.cost[price]) - 1)
        axes.scatter([x], [100 * total.support], s=60)  # pyright: ignore[reportUnknownMemberType]
        axes.annotate(  # pyright: ignore[reportUnknownMemberType]
            strategy, (x, 100 * total.support), xytext=(5, 4), textcoords='offset points', fontsize=9
        )
    axes.axvline(0, color='grey', linewidth=0.6)  # pyright: ignore[reportUnknownMemberType]
    axes.set(
        xlabel=f'input cost against no compaction, % ({price}, prompt caching priced)',
        ylabel='facts of the next step still in the prompt, %',
        title='Run replay: cost and what the next step still finds',
    )
    buffer = BytesIO()
    figure.savefig(buffer, format='png', bbox_inches='tight', metadata={'Software': None})  # pyright: ignore[reportUnknownMemberType]
    pyplot.close(figure)
    return buffer.getvalue()
