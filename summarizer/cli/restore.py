"""`summarizer restore PATH...`: undo `compact` and `batch`, byte for byte, from the originals store."""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from ..core import SummarizerConfig, count, remove_temporaries
from ._common import InputError, imported, load_config, refuse_overwriting, write_json_report
from .batch import _identity, _not_started, _path_or_url, _postgres  # pyright: ignore[reportPrivateUsage]

if TYPE_CHECKING:
    from ..engines import Source, SourceReport, Tick


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add the `restore` subcommand."""
    parser = commands.add_parser(
        'restore',
        help='undo compact and batch: put every summarized value back from the originals store',
        description='Restore every history under PATH... to its exact text before compaction (see '
        'docs/restore.md). A history is restored whole or left as it is; sources are read and written '
        'as by batch (atomic, resumable).',
    )
    parser.add_argument(
        'paths',
        type=_path_or_url,
        nargs='+',
        metavar='PATH',
        help='a file, folder, SQLite database or postgresql:// URL (restored in place)',
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument('--out', type=Path, metavar='DIR', help="write results under DIR, mirroring the inputs' layout")
    where.add_argument('--in-place', action='store_true', help='rewrite the inputs themselves (atomically)')
    parser.add_argument('--backup', action='store_true', help='with --in-place: keep each changed input as NAME.bak')
    parser.add_argument('--resume', action='store_true', help='skip sources an earlier run of the same job finished')
    parser.add_argument('--report', type=Path, metavar='FILE', help='write a JSON report (owner-readable only)')
    parser.add_argument('--journal', type=Path, metavar='FILE', help='journal of finished sources')
    parser.add_argument('--config', type=Path, help='a config.yaml of your own (its originals: and batch: sections)')
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Restore every history under the paths; exit codes as batch's (0 done, 1 some failed, 2 bad input)."""
    arguments.model = arguments.threshold_tokens = arguments.keep_recent = None
    config = load_config(arguments)
    from ..engines import Interrupted, Journal, SourceError, Target, discover, resumed, run_sources
    from ..pipeline import Compactor, OriginalStore
    from ..stored import restore_unit

    imported()
    target = Target(backup=arguments.backup, reuse_output=arguments.resume)
    files = [path for path in arguments.paths if isinstance(path, Path)]
    urls = [path for path in arguments.paths if isinstance(path, str)]
    if urls and (arguments.out is not None or arguments.backup):
        raise InputError('a PostgreSQL source is restored --in-place (back a table up with pg_dump)')
    try:
        found = discover(files, config=config.batch, out=arguments.out, in_place=arguments.in_place)
        sources: list[Source] = [*found, *_postgres(urls, config, target, out=None)]
    except SourceError as exc:
        raise InputError(str(exc)) from None
    if arguments.report:
        refuse_overwriting(arguments.report, [arguments.report], [source.path for source in found])
    store = OriginalStore.from_config(config)
    if store.database is None:
        raise InputError('originals.enabled is false in the config: there is no store to restore from')
    console = Console(stderr=True)
    directory = store.directory
    if not store.database.is_file():
        # Deleted, or never made: each history holding summaries is named as one that cannot be restored.
        console.print(
            f'no originals store at {directory} (deleted, or nothing was compacted with it): '
            'a history holding summaries cannot be restored',
            highlight=False,
            soft_wrap=True,
        )
        store = OriginalStore.disabled()  # reads nothing, creates nothing
    elif not store.available:
        raise InputError(f'{directory}: the originals store cannot be opened')
    # A restored history depends only on the store it was restored from.
    journal = Journal(arguments.journal or _default_journal(config, arguments), settings={'originals': str(directory)})
    finished = journal.start(resume=arguments.resume)
    earlier = {source.key: report for source in sources if (report := resumed(source, finished, target))}
    todo = [source for source in sources if source.key not in earlier]
    for source in sources:
        if source.key in earlier:
            journal.record(source, earlier[source.key])
    started = time.perf_counter()
    remove_temporaries(
        [path for source in todo for path in source.temporaries(target)]
    )  # a killed run's unfinished writes
    # The compactor is only the runner's frame (its batch settings); `restore_unit` does the work.
    compactor = Compactor(config=config, originals=store)
    try:
        reports = asyncio.run(
            run_sources(
                todo,
                compactor=compactor,
                target=target,
                journal=journal,
                on_tick=functools.partial(_tick, console),
                process=functools.partial(restore_unit, store=store),
            )
        )
    except Interrupted as exc:  # Ctrl-C: the report says what was done, then the one line of any interrupt
        if arguments.report:
            done = {report.source: report for report in exc.reports}
            cut = [
                earlier.get(source.key) or done.get(source.name) or _not_started(source, target) for source in sources
            ]
            _write_report(arguments.report, cut, seconds=time.perf_counter() - started)
        raise
    finally:
        store.close()
    all_reports = [earlier.get(source.key) or reports[todo.index(source)] for source in sources]
    _summary(console, all_reports)
    if arguments.report:
        _write_report(arguments.report, all_reports, seconds=time.perf_counter() - started)
    return 0 if all(report.ok for report in all_reports) else 1


def _tick(console: Console, tick: Tick) -> None:
    report = tick.finished
    if report is not None:
        console.print(
            f'{report.source}: {count(report.histories, "history", "histories")}, {report.changed:,} restored, '
            f'{report.failed:,} failed, {count(report.counts.summarized, "value")} put back',
            highlight=False,
            soft_wrap=True,
        )


def _summary(console: Console, reports: list[SourceReport]) -> None:
    histories = sum(report.histories for report in reports)
    console.print(
        f'restore: {count(len(reports), "source")}, {count(histories, "history", "histories")}, '
        f'{sum(r.changed for r in reports):,} restored, {sum(r.failed for r in reports):,} failed, '
        f'{count(sum(r.counts.summarized for r in reports), "value")} put back, '
        f'{count(sum(r.resumed for r in reports), "source")} resumed',
        highlight=False,
        soft_wrap=True,
    )
    for report in reports:
        for problem in report.problems:
            console.print(f'[yellow]{problem.kind} failed[/] {problem.describe()}', highlight=False, soft_wrap=True)


def _write_report(path: Path, reports: list[SourceReport], *, seconds: float) -> None:
    """The batch report's layout; `values_restored` where batch has `returns_summarized`."""
    sources: list[dict[str, object]] = []
    for report in reports:
        entry = report.as_json()
        entry['values_restored'] = entry.pop('returns_summarized')
        for key in ('summaries_failed', 'cache_hits', 'model_calls'):
            entry.pop(key)
        sources.append(entry)
    write_json_report(path, {'seconds': round(seconds, 3), 'sources': sources})


def _default_journal(config: SummarizerConfig, arguments: argparse.Namespace) -> Path:
    """One journal per restore job (its inputs and destination), apart from batch's own journals."""
    job = json.dumps(
        [
            'restore',
            sorted(_identity(path) for path in arguments.paths),
            str(arguments.out and arguments.out.resolve()),
        ]
    )
    name = hashlib.sha256(job.encode('utf-8')).hexdigest()[:16]
    from ..pipeline import cache_folder

    return cache_folder(config.cache.resolved_directory(), create=False) / 'batch-journals' / f'restore-{name}.jsonl'
