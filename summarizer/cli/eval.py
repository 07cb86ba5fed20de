"""`summarizer eval [DIR ...]`: score summarizer models on stored histories, offline, and gate CI on it."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markdown import Markdown

from ..core import BatchConfig, SummarizerConfig, count
from ._common import InputError, console, imported, parse_history, read_input, refuse_overwriting

if TYPE_CHECKING:
    from ..eval import EvalHistory
    from ..stored import StoredHistory

DEFAULT_SOURCE = Path('golden') / 'histories'


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add the `eval` subcommand."""
    parser = commands.add_parser(
        'eval',
        help='measure compression, fact retention, structure and cost on stored histories',
        description='Compact every history with each model (and the head-truncation baseline) through the '
        'real pipeline with keep_recent=0, score what later turns needed and still find, write a report, '
        'and exit 1 when a summary fails the post-check or retention falls below eval.retention_floor.',
    )
    parser.add_argument(
        'sources',
        nargs='*',
        type=Path,
        metavar='DIR',
        help=f'folders (walked like batch does) or files of *.json histories; default {DEFAULT_SOURCE}',
    )
    parser.add_argument(
        '--include',
        action='append',
        metavar='GLOB',
        help="folder files to take (repeatable; default the config's batch.include)",
    )
    parser.add_argument('--exclude', action='append', metavar='GLOB', help='folder files to leave out (repeatable)')
    parser.add_argument(
        '--min-chars',
        type=int,
        default=0,
        metavar='N',
        help='score only the oversized returns whose JSON text is longer than N characters (all are still summarized)',
    )
    parser.add_argument(
        '--model',
        action='append',
        default=[],
        metavar='NAME',
        help="a model to score (repeatable): 'extractive', 'head', a pydantic-ai model string, or a model served at the config's base_url; default the config's",
    )
    parser.add_argument(
        '--config', type=Path, help='a config.yaml of your own (keys it leaves out keep their defaults)'
    )
    parser.add_argument(
        '--report', type=Path, metavar='DIR', help='where to write the report; default ./reports/eval-<timestamp>'
    )
    parser.add_argument(
        '--update-golden', action='store_true', help="record the extractive model's outputs as golden/expected/*.json"
    )
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Score the models, write the report, gate: exit 1 on a failed gate, `InputError` on bad input."""
    if arguments.config is not None and not arguments.config.is_file():
        raise InputError(f'{arguments.config}: config file not found')
    config = SummarizerConfig.load(arguments.config)
    if arguments.min_chars < 0:
        raise InputError(f'--min-chars must be 0 or more, got {arguments.min_chars}')
    from ..eval import (
        FIGURES_FILE,
        Recorded,
        default_folder,
        eval_models,
        expected_path,
        markdown,
        run_eval,
        update_golden,
        write_figures,
        write_report,
    )
    from ..pipeline import SummaryCache

    imported()
    sources = arguments.sources or [_default_source()]
    histories, skipped = _load(sources, config=_walk_config(config, arguments), report=arguments.report)
    for reason in skipped:
        print(f'summarizer eval: skipped {reason}', file=sys.stderr)
    models = eval_models(arguments.model, config)  # a model that cannot be built: ModelBuildError, exit 2
    started = datetime.now()
    with tempfile.TemporaryDirectory(prefix='summarizer-eval-') as scratch:
        own_cache = arguments.config is not None and config.cache != SummarizerConfig().cache
        cache = (
            SummaryCache.from_config(config.cache)
            if own_cache
            else SummaryCache(directory=Path(scratch), size_limit_bytes=config.cache.size_limit_mb * 1024 * 1024)
        )
        try:
            result = asyncio.run(
                run_eval(histories, models=models, config=config, cache=cache, min_chars=arguments.min_chars)
            )
        finally:
            cache.close()
    result.skipped = skipped
    screen = console()
    if arguments.update_golden:
        changed = asyncio.run(update_golden({history.path: history.stored.text for history in histories}))
        screen.print(f'golden outputs: {len(changed)} of {len(histories)} updated')
        if len(sources) == 1 and sources[0].is_dir() and result.figures():  # none for the baseline alone
            figures = expected_path(histories[0].path).parent.parent / FIGURES_FILE
            write_figures(figures, result.settings(), result.figures())
            screen.print(f'golden figures: {figures}')
    # One folder of histories with figures recorded beside it (golden/histories): gated on those.
    result.recorded = Recorded.beside(sources[0]) if len(sources) == 1 and sources[0].is_dir() else None
    names = [str(source) for source in sources]
    folder = arguments.report or default_folder(started)
    try:
        written = write_report(result, folder, started=started, sources=names)
    except OSError as exc:
        raise InputError(f'{folder}: cannot write the report: {exc.strerror or exc}') from None
    summary = markdown(result, started=started, sources=names)
    if screen.is_terminal:  # the tables as records where they are wider than the terminal
        screen.print(Markdown(fit_tables(summary, width=screen.width)))
    else:  # a log or a pipe: the Markdown itself, one table row per line, never wrapped
        screen.print(summary, markup=False)
    screen.print(f'report: {", ".join(str(path) for path in written)}', markup=False)
    problems = result.gate_problems()
    for problem in problems:
        print(f'summarizer eval: gate failed: {problem}', file=sys.stderr)
    return 1 if problems else 0


def _default_source() -> Path:
    if not DEFAULT_SOURCE.is_dir():
        raise InputError(f'no DIR given and no {DEFAULT_SOURCE} in the current folder')
    return DEFAULT_SOURCE


def _walk_config(config: SummarizerConfig, arguments: argparse.Namespace) -> BatchConfig:
    overrides = {'include': arguments.include, 'exclude': arguments.exclude}
    return dataclasses.replace(
        config.batch, **{key: tuple(value) for key, value in overrides.items() if value is not None}
    )


def _load(sources: list[Path], *, config: BatchConfig, report: Path | None) -> tuple[list[EvalHistory], list[str]]:
    """Every history file of the sources, parsed, and the files that are none, each with why.

    Folders are walked as `summarizer batch` walks them (`batch.include`/`exclude`, no hidden files
    or backups). A file that is not a stored history (a `facts.json` beside the histories, a JSONL
    or SQLite store) is skipped and reported: one stray file does not stop an eval of a folder. No file
    found may be one the `report` folder's files would replace.
    """
    from ..engines import JsonSource, SourceError, discover
    from ..eval import REPORT_FILES, EvalHistory

    try:
        found = discover(sources, config=config, out=None)
    except SourceError as exc:
        raise InputError(str(exc)) from None
    if report is not None:
        refuse_overwriting(report, [report / name for name in REPORT_FILES], [source.path for source in found])
    histories: list[tuple[Path, StoredHistory]] = []
    skipped: list[str] = []
    for source in found:
        if not isinstance(source, JsonSource):
            skipped.append(f'{source.path}: a {source.kind} store; eval reads .json history files')
            continue
        try:
            histories.append((source.path, parse_history(source.path, read_input(source.path))))
        except InputError as exc:
            skipped.append(f'{exc}')
    if not histories:
        raise InputError(
            f'{", ".join(map(str, sources))}: no histories found'
            + (f' ({count(len(skipped), "file")} skipped)' if skipped else '')
        )
    stems = [path.stem for path, _ in histories]
    return [
        EvalHistory(name=path.stem if stems.count(path.stem) == 1 else str(path), path=path, stored=stored)
        for path, stored in histories
    ], skipped


def fit_tables(text: str, *, width: int) -> str:
    """`text` with each Markdown table wider than `width` rewritten as a list, one item per row.

    The eval's tables have a dozen columns: squeezed into 80 columns, a terminal shows only the first
    letters of each cell. As a list, each row is its first cell followed by one `column: value`
    line per other cell, which any width shows whole.
    """
    out: list[str] = []
    lines = text.split('\n')
    index = 0
    while index < len(lines):
        if not lines[index].startswith('|'):
            out.append(lines[index])
            index += 1
            continue
        end = index
        while end < len(lines) and lines[end].startswith('|'):
            end += 1
        table = lines[index:end]
        index = end
        if max(len(line) for line in table) <= width or len(table) < 3:
            out.extend(table)
            continue
        header, *rows = (_cells(line) for line in table[:1] + table[2:])  # table[1] is the |---| rule
        key = 2 if header[1:2] == ['model'] else 1  # a row is named by its first cell, and its model
        for row in rows:
            out.append('- **' + ' / '.join(row[:key]) + '**')
            out.extend(f'  - {name}: {cell}' for name, cell in zip(header[key:], row[key:]))
    return '\n'.join(out)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip('|').split('|')]
