"""`summarizer eval [DIR ...]`: score summarizer models on stored histories, offline, and gate CI on it."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown

from .._cache import SummaryCache
from .._config import SummarizerConfig
from ..eval import EvalHistory, default_folder, eval_models, markdown, run_eval, update_golden, write_report
from ._common import InputError, parse_history, read_input

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
        help=f'folders of *.json histories (or files); default {DEFAULT_SOURCE}',
    )
    parser.add_argument(
        '--model',
        action='append',
        default=[],
        metavar='NAME',
        help="a model to score (repeatable): 'extractive', 'head', a pydantic-ai model string, or a model served at the config's base_url; default the config's",
    )
    parser.add_argument('--config', type=Path, help='a config.yaml of your own (defaults: the shipped one)')
    parser.add_argument(
        '--report', type=Path, metavar='DIR', help='where to write the report; default ./reports/eval-<timestamp>'
    )
    parser.add_argument(
        '--update-golden', action='store_true', help="record the extractive model's outputs as golden/expected/*.json"
    )
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Score the models; exit 1 when the gate fails."""
    if arguments.config is not None and not arguments.config.is_file():
        raise InputError(f'{arguments.config}: config file not found')
    config = SummarizerConfig.load(arguments.config)
    histories = _load(arguments.sources or [_default_source()])
    models = eval_models(arguments.model, config)  # a model that cannot be built: ModelBuildError, exit 2
    started = datetime.now()
    with tempfile.TemporaryDirectory(prefix='summarizer-eval-') as scratch:
        own_cache = arguments.config is not None and config.cache != SummarizerConfig.load().cache
        cache = (
            SummaryCache.from_config(config.cache)
            if own_cache
            else SummaryCache(directory=Path(scratch), size_limit_bytes=config.cache.size_limit_mb * 1024 * 1024)
        )
        try:
            result = asyncio.run(run_eval(histories, models=models, config=config, cache=cache))
        finally:
            cache.close()
    console = Console()
    if arguments.update_golden:
        changed = asyncio.run(update_golden({history.path: history.stored.text for history in histories}))
        console.print(f'golden outputs: {len(changed)} of {len(histories)} updated', highlight=False)
    sources = [str(source) for source in arguments.sources or [_default_source()]]
    folder = arguments.report or default_folder(started)
    try:
        written = write_report(result, folder, started=started, sources=sources)
    except OSError as exc:
        raise InputError(f'{folder}: cannot write the report: {exc.strerror or exc}') from None
    console.print(Markdown(markdown(result, started=started, sources=sources)))
    console.print(f'report: {", ".join(str(path) for path in written)}', highlight=False)
    problems = result.gate_problems()
    for problem in problems:
        print(f'summarizer eval: gate failed: {problem}', file=sys.stderr)
    return 1 if problems else 0


def _default_source() -> Path:
    if not DEFAULT_SOURCE.is_dir():
        raise InputError(f'no DIR given and no {DEFAULT_SOURCE} in the current folder')
    return DEFAULT_SOURCE


def _load(sources: list[Path]) -> list[EvalHistory]:
    """Every history file of the sources, parsed: a bad one stops the eval before anything runs."""
    paths: list[Path] = []
    for source in sources:
        if source.is_dir():
            paths.extend(sorted(source.glob('*.json')))
        elif source.is_file():
            paths.append(source)
        else:
            raise InputError(f'{source}: no such folder or file')
    if not paths:
        raise InputError(f'{", ".join(map(str, sources))}: no *.json histories found')
    stems = [path.stem for path in paths]
    return [
        EvalHistory(
            name=path.stem if stems.count(path.stem) == 1 else str(path),
            path=path,
            stored=parse_history(path, read_input(path)),
        )
        for path in paths
    ]
