"""`summarizer replay PATH...`: replay recorded agent runs request by request, and say what each strategy costs.

See `summarizer.eval._replay` for what is measured and docs/policy.md for how to read it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markdown import Markdown

from ..core import SummarizerConfig, count
from ._common import InputError, console, imported, load_config, refuse_overwriting

if TYPE_CHECKING:
    from ..eval import ReplayHistory
    from ..pipeline import PriceModel
    from ..stored import Unit

DEFAULT_PRICES = ('anthropic:claude-sonnet-4-5', 'anthropic:claude-sonnet-4-5@1h', 'openai:gpt-5', 'openai:gpt-4.1')
DEFAULT_MASKS = (3, 5, 10)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add the `replay` subcommand."""
    parser = commands.add_parser(
        'replay',
        help='replay recorded runs request by request: tokens sent, cost with prompt caching, facts kept',
        description='Re-send every model request of each recorded run as the agent sent it, through no '
        "compaction, the config's policy (what the capability does), the threshold-only policy, head "
        'truncation and observation masking, and report per strategy and per run: tokens sent, the largest '
        'prompt, input cost with prompt caching priced (genai-prices), and the share of the facts each next '
        'step used that the prompt still held (docs/policy.md).',
    )
    parser.add_argument(
        'paths',
        nargs='+',
        metavar='PATH',
        help='history files, folders, JSONL files or SQLite databases (as batch reads them)',
    )
    parser.add_argument(
        '--price-model',
        action='append',
        metavar='PROVIDER:MODEL',
        help="a model whose prices bill the runs, @1h after it for the 1-hour cache tier; the first one's are "
        f"the policy's (repeatable; default {', '.join(DEFAULT_PRICES)})",
    )
    parser.add_argument(
        '--mask',
        action='append',
        type=int,
        metavar='N',
        help=f'observation masking keeping the last N tool returns (repeatable; default {", ".join(map(str, DEFAULT_MASKS))})',
    )
    parser.add_argument('--config', type=Path, help='a config.yaml of your own (its policy, model and budgets)')
    parser.add_argument(
        '--report', type=Path, metavar='DIR', help='where to write the report; default ./reports/replay-<timestamp>'
    )
    parser.set_defaults(run=run, model=None, threshold_tokens=None, keep_recent=None)


def run(arguments: argparse.Namespace) -> int:
    """Replay, write the report, print the summary: exit 0, or 2 on bad input."""
    config = load_config(arguments)
    from ..eval import compared_strategies, replay_all, replay_markdown, write_replay_report
    from ..pipeline import resolve_model

    imported()
    prices = [_price(name) for name in arguments.price_model or DEFAULT_PRICES]
    masks = arguments.mask or list(DEFAULT_MASKS)
    if any(keep < 1 for keep in masks):
        raise InputError(f'--mask must be 1 or more, got {min(masks)}')
    histories, skipped = _load([Path(path) for path in arguments.paths], config=config, report=arguments.report)
    for reason in skipped:
        print(f'summarizer replay: skipped {reason}', file=sys.stderr)
    model = resolve_model(config)  # a model that cannot be built: ModelBuildError, exit 2
    started = datetime.now()
    with tempfile.TemporaryDirectory(prefix='summarizer-replay-') as scratch:
        strategies = compared_strategies(config, model=model, scratch=Path(scratch), masks=masks, terms=prices[0].cache)
        result = asyncio.run(replay_all(histories, strategies, prices=prices, ceiling=config.policy.max_prompt_tokens))
    result.skipped = skipped
    folder = arguments.report or Path('reports') / f'replay-{started:%Y%m%d-%H%M%S}'
    try:
        written = write_replay_report(result, folder, started=started, sources=arguments.paths)
    except OSError as exc:
        raise InputError(f'{folder}: cannot write the report: {exc.strerror or exc}') from None
    screen = console()
    summary = replay_markdown(result, started=started, sources=arguments.paths)
    overview = summary.split('\n## Per run')[0]
    screen.print(Markdown(overview) if screen.is_terminal else overview, markup=False)
    screen.print(f'report: {", ".join(str(path) for path in written)}', markup=False)
    return 0


def _price(name: str) -> PriceModel:
    from ..pipeline import PriceModel

    try:
        return PriceModel.named(name)
    except (LookupError, ValueError) as exc:
        raise InputError(f'--price-model {name}: {exc}') from None


def _load(paths: list[Path], *, config: SummarizerConfig, report: Path | None) -> tuple[list[ReplayHistory], list[str]]:
    """Every history of every source under `paths`, read as `summarizer batch --dry-run` reads them, and those that are none.

    As `summarizer eval` does, a history that cannot be used (a `manifest.json` beside the runs, a
    broken JSONL line) is skipped, each with why: one stray file does not stop a replay of a folder.
    None of the sources may be a file the `report` folder's files would replace.
    """
    from ..engines import SourceError, Target, discover
    from ..eval import REPLAY_FILES, ReplayHistory
    from ..stored import HistoryError

    try:
        sources = discover(paths, config=config.batch, out=None)
    except SourceError as exc:
        raise InputError(str(exc)) from None
    if report is not None:
        refuse_overwriting(report, [report / name for name in REPLAY_FILES], [source.path for source in sources])
    target = Target(dry_run=True)
    histories: list[ReplayHistory] = []
    skipped: list[str] = []
    for source in sources:
        source.open(target)
        try:
            for unit in source.units():
                try:
                    histories.append(ReplayHistory(name=_name(unit), messages=unit.messages()))
                except HistoryError as exc:
                    skipped.append(f'{unit.where.describe(exc.message_index)}: {exc.problem}')
        finally:
            source.abort()
    if not histories:
        raise InputError(
            f'{", ".join(map(str, paths))}: no histories found'
            + (f' ({count(len(skipped), "history", "histories")} skipped)' if skipped else '')
        )
    return histories, skipped


def _name(unit: Unit) -> str:
    where = unit.where
    if where.line is None and where.table is None:
        return Path(where.path).stem
    return where.describe()
