"""The eval's outputs: a Markdown summary, a JSON file with every figure, and a PNG plot.

The summary is read in a minute; the plot shows compression against retention (one point per model
and tool).

Report files hold facts quoted from tool output, which may be private: they are written owner-only.
The plot needs matplotlib (the `eval` extra); without it the other two files are still written.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import SummarizerConfig, atomic_write, count, install_hint, redact
from ._metrics import Tally
from ._run import EvalRun, ModelScore

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.text import Annotation

logger = logging.getLogger(__name__)
_STAR_SIZE = 260
"""Area of the overall and blind markers, in points squared (matplotlib's `s`)."""

SUMMARY_FILE = 'summary.md'
DATA_FILE = 'results.json'
PLOT_FILE = 'compression-retention.png'
REPORT_FILES = (SUMMARY_FILE, DATA_FILE, PLOT_FILE)
"""The files an eval report folder gets."""
_FILE_MODE = 0o600


def write_report(run: EvalRun, folder: Path, *, started: datetime, sources: list[str]) -> list[Path]:
    """Write the report files into `folder` (created owner-only); returns the files written."""
    return write_files(
        folder,
        {
            SUMMARY_FILE: markdown(run, started=started, sources=sources),
            DATA_FILE: json.dumps(as_data(run, started=started, sources=sources), indent=2) + '\n',
            PLOT_FILE: plot_png(run),
        },
    )


def write_files(folder: Path, files: dict[str, str | bytes | None]) -> list[Path]:
    """Write each file of a report into `folder` (created owner-only), each 0600, atomically; None: not written.

    Returns the files written. Reports name files and quote lost facts, so only their owner reads them;
    a text goes through the one redaction (a failure reason may quote a server's error body).
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    written: list[Path] = []
    for name, data in files.items():
        if data is not None:
            atomic_write(
                folder / name, redact(data).encode('utf-8') if isinstance(data, str) else data, mode=_FILE_MODE
            )
            written.append(folder / name)
    return written


# -- Markdown --------------------------------------------------------------------------------------


def markdown(run: EvalRun, *, started: datetime, sources: list[str]) -> str:
    config = run.config
    scope = (
        f'oversized tool returns over {run.min_chars:,} characters of JSON'
        if run.min_chars
        else 'oversized tool returns'
    )
    lines = [
        f'# Summarizer eval, {started:%Y-%m-%d %H:%M}',
        '',
        (
            f'{count(len(run.histories), "history", "histories")} from {", ".join(sources)}; scored: {scope}; '
            f'threshold {config.threshold_tokens} tokens, target ratio {config.target_ratio}, quoted ratio '
            f'{config.quoted_ratio}, keep_recent 0 (every oversized tool return is summarized), {_floors(config)}. '
            f'Tokens are estimates. The `head` baseline keeps the beginning of each return at the size of the '
            f"first model's summary of it, told and blind: the same cut. "
            f'*Accepted*: the returns whose summary passed every check, the rest keeping their original, '
            f'with why (*failures*). *Kept in context*: of the facts of a summarized return a later turn '
            f'holds, the share its summary keeps where a reader can tell what they are (in their original '
            f'line, or a window of at least 20 characters either side; a JSON scalar with its key; a return '
            f'that kept its original counts as failed, not as kept); *present*: the share it holds anywhere, '
            f'a list of bare tokens included; '
            f'*blind*: the same model not told which facts later turns quote (`keep_quoted_facts` off), '
            f'as for a return summarized before anything quotes it. *Orphans*: of the kept lines, the share '
            f'whose enclosing line (the nearest above with less indentation) was dropped. *Markers*: the '
            f'share of summary characters spent on saying what was left out. *Identical lines*: of the summary lines '
            f'that come from an original line, the share byte-identical to it. *JSON parses*: summarized '
            f'strings holding JSON that still parse as the same type. *Empty*: summaries refused for holding '
            f'no text. *Typed touched*: typed tool returns (tool search, capability loading, builtin tools) '
            f'the compaction changed.'
        ),
        '',
        (
            '| model | returns | tool-return tokens | compression | kept in context (kept/referred) | present '
            '| blind kept | blind present | orphans | markers '
            '| identical lines | JSON parses | empty | typed touched | accepted | failures | calls (cached) '
            '| summarizer tokens in/out | cost | wall time |'
        ),
        '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|',
    ]
    for model in run.models:
        overall, report = model.overall, model.report
        typed, touched = model.typed_parts
        lines.append(
            f'| {_label(model)} | {overall.returns} | {_tokens(overall)} | {_share(overall.compression)} '
            f'| {_facts(overall)} | {_blind(model, model.blind.overall if model.blind else None)} '
            f'| {_share(overall.orphan_rate)} | {_share(overall.marker_share)} | {_share(overall.identical_lines)} '
            f'| {_json(overall)} | {overall.empty} | {touched} of {typed} '
            f'| {_accepted(overall)} | {_failures(overall)} | {report.model_calls} ({report.cache_hits}) '
            f'| {_thousands(report.summarizer_input_tokens)} / {_thousands(report.summarizer_output_tokens)} '
            f'| {_cost(model.price_usd)} | {model.seconds:.1f} s |'
        )
    lines += ['', 'Whole histories: ' + '; '.join(_history_line(model) for model in run.models) + '.', '']
    lines += _grouped_table(run, 'Per content kind', 'kind', lambda model: model.per_kind)
    lines += _grouped_table(run, 'Per tool', 'tool', lambda model: model.per_tool)
    if run.skipped:
        lines += ['## Skipped files', '', *[f'- {reason}' for reason in run.skipped], '']
    problems = run.gate_problems()
    lines += ['## Gate', '']
    passed = (
        f'PASS: every summary passed the post-check and no kind keeps more than a point fewer facts in context '
        f'than recorded in {run.recorded.path}.'
        if run.recorded is not None
        else 'PASS: every summary passed the post-check and every figure is at or above its floor.'
    )
    lines += [f'- FAIL: {problem}' for problem in problems] or [passed]
    return '\n'.join(lines) + '\n'


def _grouped_table(
    run: EvalRun, title: str, column: str, groups: Callable[[ModelScore], dict[str, Tally]]
) -> list[str]:
    lines = [
        f'## {title}',
        '',
        (
            f'| {column} | model | returns | tokens | compression | kept in context | present | blind kept '
            '| blind present | orphans | markers | identical lines | JSON parses | empty | accepted | failures |'
        ),
        '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ]
    names = sorted({name for model in run.models for name in groups(model)})
    for name in names:
        for model in run.models:
            tally = groups(model).get(name)
            if tally is None:
                continue
            blind = groups(model.blind).get(name) if model.blind is not None else None
            lines.append(
                f'| {name} | {_label(model)} | {tally.returns} | {_tokens(tally)} | {_share(tally.compression)} '
                f'| {_facts(tally)} | {_blind(model, blind)} | {_share(tally.orphan_rate)} '
                f'| {_share(tally.marker_share)} | {_share(tally.identical_lines)} | {_json(tally)} | {tally.empty} '
                f'| {_accepted(tally)} | {_failures(tally)} |'
            )
    return [*lines, '']


def _floors(config: SummarizerConfig) -> str:
    floors = config.eval
    if not config.keep_quoted_facts:
        return f'keep_quoted_facts off, retention floor {floors.blind_retention_floor:.0%}'
    return (
        f'retention floor {floors.retention_floor:.0%}, blind {floors.blind_retention_floor:.0%}, '
        f'identical lines {floors.identical_lines_floor:.0%}'
    )


def _facts(tally: Tally) -> str:
    """Two cells: kept in context (kept/referred), and present."""
    return f'{_share(tally.retention)} ({tally.facts_kept}/{tally.facts_referred}) | {_share(tally.presence)}'


def _blind(model: ModelScore, blind: Tally | None) -> str:
    """Two cells: `blind`, the same group's tally in the model's blind run; the baseline is blind anyway."""
    if model.blind is None:
        return 'same | same' if model.baseline else '- | -'
    return '- | -' if blind is None else _facts(blind)


def _json(tally: Tally) -> str:
    return (
        f'{_share(tally.json_parse_rate)} ({tally.json_strings_parsing}/{tally.json_strings})'
        if tally.json_strings
        else '-'
    )


def _accepted(tally: Tally) -> str:
    return f'{_share(tally.structure_pass_rate)} ({tally.summarized}/{tally.returns})'


def _failures(tally: Tally) -> str:
    """Each kind of failure with how many returns it kept their original, the most first."""
    return '; '.join(f'{kind} × {count}' for kind, count in tally.failures.most_common()) or '-'


def _label(model: ModelScore) -> str:
    return f'{model.name} (baseline)' if model.baseline else model.name


def _share(value: float | None) -> str:
    return '-' if value is None else f'{value:.1%}'


def _tokens(tally: Tally) -> str:
    return f'{tally.tokens_before:,} → {tally.tokens_after:,}'


def _thousands(count: int) -> str:
    return f'{count / 1000:.1f}k' if count >= 1000 else str(count)


def _cost(price: float | None) -> str:
    if price is None:
        return 'unknown'
    return '$0' if price == 0 else f'${price:.4f}'


def _history_line(model: ModelScore) -> str:
    before, after = model.history_tokens
    cut = f' (-{1 - after / before:.0%})' if before else ''
    return f'{model.name} {before:,} → {after:,} tokens{cut}'


# -- JSON ------------------------------------------------------------------------------------------


def as_data(run: EvalRun, *, started: datetime, sources: list[str]) -> dict[str, object]:
    config = run.config
    return {
        'started': started.isoformat(),
        'sources': sources,
        'histories': run.histories,
        'skipped': run.skipped,
        'min_chars': run.min_chars,
        'config': {
            'threshold_tokens': config.threshold_tokens,
            'target_ratio': config.target_ratio,
            'quoted_ratio': config.quoted_ratio,
            'min_summary_tokens': config.min_summary_tokens,
            'keep_recent': config.keep_recent,
            'prompt_version': config.prompt_version,
            'output_mode': config.output_mode,
            'keep_quoted_facts': config.keep_quoted_facts,
            'retention_floor': config.eval.retention_floor,
            'blind_retention_floor': config.eval.blind_retention_floor,
            'identical_lines_floor': config.eval.identical_lines_floor,
        },
        'models': [_model_data(model) for model in run.models],
        'gate': {'passed': not run.gate_problems(), 'problems': run.gate_problems()},
    }


def _model_data(model: ModelScore) -> dict[str, object]:
    report = model.report
    before, after = model.history_tokens
    return {
        'name': model.name,
        'baseline': model.baseline,
        'overall': model.overall.as_dict(),
        'blind': model.blind.overall.as_dict() if model.blind is not None else None,
        'typed_parts': {'seen': model.typed_parts[0], 'touched': model.typed_parts[1]},
        'history_tokens_before': before,
        'history_tokens_after': after,
        'cost': {
            'model_calls': report.model_calls,
            'retries': report.retries,
            'cache_hits': report.cache_hits,
            'summarizer_input_tokens': report.summarizer_input_tokens,
            'summarizer_output_tokens': report.summarizer_output_tokens,
            'price_usd': model.price_usd,
            'wall_seconds': round(model.seconds, 3),
        },
        'per_tool': {tool: tally.as_dict() for tool, tally in model.per_tool.items()},
        'per_kind': {kind: tally.as_dict() for kind, tally in model.per_kind.items()},
        'blind_per_kind': (
            {kind: tally.as_dict() for kind, tally in model.blind.per_kind.items()} if model.blind is not None else None
        ),
        'histories': [
            {
                'name': history.name,
                'tokens_before': history.tokens_before,
                'tokens_after': history.tokens_after,
                'tally': history.tally.as_dict(),
                'failures': history.failures,
                'returns': [
                    {
                        'tool_name': score.tool_name,
                        'tool_call_id': score.tool_call_id,
                        'message_index': score.message_index,
                        'kind': score.kind,
                        **score.tally.as_dict(),
                        'lost_facts': score.lost,
                    }
                    for score in history.returns
                ],
            }
            for history in model.histories
        ],
    }


# -- the plot --------------------------------------------------------------------------------------


def plot_png(run: EvalRun) -> bytes | None:
    """The plot as PNG bytes; None (and a one-line warning saying so) without matplotlib."""
    try:
        import matplotlib

        matplotlib.use('Agg')
        from matplotlib import pyplot
    except ImportError:
        logger.warning('%s skipped: matplotlib is not installed (the eval extra: %s)', PLOT_FILE, install_hint('eval'))
        return None
    from io import BytesIO

    figure = plot_figure(run)
    buffer = BytesIO()
    figure.savefig(buffer, format='png', bbox_inches='tight', metadata={'Software': None})  # pyright: ignore[reportUnknownMemberType]
    pyplot.close(figure)
    return buffer.getvalue()


def plot_figure(run: EvalRun) -> Figure:
    """Compression (x, 0-100%) against retention (y), one point per model and tool; needs matplotlib.

    Many tools land on the same spot (80% compression, 100% retention), so the points carry numbers,
    not names: tools at one spot share one label (`3,7,12`), labels that would overlap are moved
    apart, and a key beside the plot names each number with every model's retention. Each model's
    overall figure is a large star; its blind figure (`keep_quoted_facts` off, the caveat the eval
    docs stress) a hollow one, joined to it, against its own floor.
    """
    from matplotlib import pyplot

    tools = sorted({tool for model in run.models for tool in model.per_tool})
    numbers = {tool: index for index, tool in enumerate(tools, start=1)}
    figure, (axes, key) = pyplot.subplots(1, 2, figsize=(12, 6.5), dpi=110, gridspec_kw={'width_ratios': [3, 1.4]})
    colors = pyplot.rcParams['axes.prop_cycle'].by_key()['color']
    labels: list[Annotation] = []
    stars: list[tuple[float, float]] = []
    for position, model in enumerate(run.models):
        color, marker = colors[position % len(colors)], 'x' if model.baseline else 'o'
        spots: dict[tuple[float, float], list[int]] = {}
        for tool, tally in model.per_tool.items():
            if tally.compression is not None and tally.retention is not None:
                spot = (round(100 * tally.compression, 1), round(100 * tally.retention, 1))
                spots.setdefault(spot, []).append(numbers[tool])
        if spots:
            axes.scatter(
                [x for x, _ in spots], [y for _, y in spots], color=color, marker=marker, s=28, label=_label(model)
            )
        for (x, y), members in spots.items():
            labels.append(
                axes.annotate(
                    _numbers_label(members),
                    (x, y),
                    fontsize=7,
                    color=color,
                    xytext=(4, -10 if y > 95 else 3),
                    textcoords='offset points',
                    arrowprops={'arrowstyle': '-', 'color': color, 'linewidth': 0.4, 'alpha': 0.6},
                )
            )
        overall = _point(model.overall)
        if overall is not None:
            axes.scatter(
                *overall,
                color=color,
                marker='*',
                s=_STAR_SIZE,
                edgecolors='black',
                linewidths=0.6,
                zorder=3,
                label=f'{model.name}: overall',
            )
            stars.append(overall)
        blind = _point(model.blind.overall) if model.blind is not None else None
        if blind is not None:
            axes.scatter(
                *blind,
                facecolors='white',
                edgecolors=color,
                marker='*',
                s=_STAR_SIZE,
                linewidths=1.2,
                zorder=3,
                label=f'{model.name}: blind',
            )
            stars.append(blind)
            if overall is not None:
                axes.plot(*zip(overall, blind), color=color, linestyle=':', linewidth=0.9, zorder=2)
    floor = 100 * run.retention_floor
    axes.axhline(floor, linestyle='--', linewidth=0.8, color='grey', label=f'floor {floor:.0f}%')
    if any(model.blind is not None for model in run.models):
        blind_floor = 100 * run.config.eval.blind_retention_floor
        axes.axhline(blind_floor, linestyle=':', linewidth=0.8, color='grey', label=f'blind floor {blind_floor:.0f}%')
    axes.set_xlabel('compression of oversized tool returns (%)')
    axes.set_ylabel('facts referred to later, kept in context (%)')
    axes.set_title('Compression against facts kept in context (numbers: tools, see key)')
    axes.set_xlim(-4, 104)
    axes.set_ylim(-4, 104)
    axes.grid(alpha=0.3)
    axes.legend(loc='upper center', bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize=8)  # below: it hides no point
    _spread(figure, labels, stars=stars)
    key.axis('off')
    key.set_title('tool: facts kept in context per model', fontsize=9)
    names = ' / '.join(model.name for model in run.models)
    lines = [f'{numbers[tool]:>2} {_short(tool)}  {_retentions(run, tool)}' for tool in tools]
    key.text(
        0,
        1,
        f'   ({names})\n' + '\n'.join(lines),
        va='top',
        ha='left',
        family='monospace',
        fontsize=min(8.0, 440 / max(len(lines), 1)),
        transform=key.transAxes,
    )
    return figure


def _point(tally: Tally) -> tuple[float, float] | None:
    if tally.compression is None or tally.retention is None:
        return None
    return 100 * tally.compression, 100 * tally.retention


def _spread(figure: Figure, labels: list[Annotation], *, stars: list[tuple[float, float]]) -> None:
    """Move labels down, a line at a time, until none covers another placed before it or a star.

    Points crowd at 100% retention and a few compressions; drawn where they fall, their labels print
    over each other. Top to bottom, left to right, each label steps below what it would cover; a thin
    line still ties it to its point. The number of steps is bounded: every step clears at least one line.
    """
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    figure.draw_without_rendering()  # fixes the axes' transforms
    radius = math.sqrt(_STAR_SIZE) / 2 * figure.dpi / 72
    axes = figure.axes[0]
    placed = [
        Bbox.from_bounds(x - radius, y - radius, 2 * radius, 2 * radius)
        for x, y in (axes.transData.transform(star) for star in stars)
    ]
    for label in sorted(labels, key=lambda label: (-label.xy[1], label.xy[0])):
        box = Text.get_window_extent(label)  # the text alone, not the line to its point; measured once
        step = box.height + figure.dpi / 72  # a line and a point, in pixels
        steps = 0
        while steps <= len(placed) and any(box.overlaps(other) for other in placed):
            box, steps = box.translated(0, -step), steps + 1
        if steps:
            x, y = label.xyann
            label.xyann = (x, y - steps * step * 72 / figure.dpi)
        placed.append(box)


def _numbers_label(members: list[int]) -> str:
    """`1,4,9`; a long run of tools at one spot is cut to its first few, with a count."""
    shown = ','.join(map(str, sorted(members)[:6]))
    return shown if len(members) <= 6 else f'{shown} +{len(members) - 6}'


def _short(tool: str) -> str:
    return tool if len(tool) <= 22 else tool[:21] + '…'


def _retentions(run: EvalRun, tool: str) -> str:
    tallies = [model.per_tool.get(tool) for model in run.models]
    return ' / '.join(
        '-' if tally is None or tally.retention is None else f'{tally.retention:.0%}' for tally in tallies
    )


def default_folder(started: datetime) -> Path:
    """`./reports/eval-<timestamp>`."""
    return Path(os.curdir) / 'reports' / f'eval-{started:%Y%m%d-%H%M%S}'
