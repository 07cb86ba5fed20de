"""`summarizer batch PATH...`: compact many stored histories (files, folders, JSONL, SQLite) in one run."""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Self

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column
from rich.text import Text

from ..core import SCHEME, PgUrl, SummarizerConfig, count, install_hint
from ._common import (
    InputError,
    add_config_options,
    console,
    imported,
    load_config,
    refuse_overwriting,
    report_table,
    write_json_report,
)

if TYPE_CHECKING:
    from ..engines import Journal, OnTick, ProviderBatchReport, Source, SourceReport, Target, Tick


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add `batch` and its options to the command line."""
    parser = commands.add_parser(
        'batch',
        help='compact many stored histories: files, folders, JSONL, SQLite, LangChain message stores',
        description='Compact every history under PATH... (see docs/batch.md). Each history is written '
        'atomically and only when something changed; an interrupted run can be resumed.',
    )
    parser.add_argument(
        'paths',
        type=_path_or_url,
        nargs='+',
        metavar='PATH',
        help='a file, folder, SQLite database or postgresql:// URL',
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        '--out',
        type=_path_or_url,
        metavar='DIR',
        help="write results under DIR, mirroring the inputs' layout (PostgreSQL: a postgresql:// URL)",
    )
    where.add_argument('--in-place', action='store_true', help='rewrite the inputs themselves (atomically)')
    parser.add_argument('--backup', action='store_true', help='with --in-place: keep each changed input as NAME.bak')
    parser.add_argument(
        '--vacuum',
        action='store_true',
        help='with --in-place: VACUUM each changed SQLite database so the file shrinks (needs its size free)',
    )
    parser.add_argument(
        '--jobs', type=int, default=1, metavar='N', help='worker processes (with --engine ray: tasks at once per stage)'
    )
    parser.add_argument(
        '--engine',
        choices=('local', 'ray'),
        default='local',
        help=f'local processes, or Ray Data (the ray extra: {install_hint("ray")}; docs/scale.md)',
    )
    parser.add_argument(
        '--ray-address', metavar='ADDR', help='with --engine ray: the cluster to join (default: a local one)'
    )
    parser.add_argument(
        '--provider-batch',
        action='store_true',
        help="summaries through the provider's batch API (about half price, minutes to hours; docs/scale.md)",
    )
    parser.add_argument(
        '--resume',
        action='store_true',
        help='skip sources an earlier run of the same job finished (and collect the provider batches it submitted)',
    )
    parser.add_argument('--report', type=Path, metavar='FILE', help='write a JSON report (owner-readable only)')
    parser.add_argument(
        '--journal', type=Path, metavar='FILE', help='journal of finished sources (default: in the cache)'
    )
    parser.add_argument('--shard', metavar='K/N', help='only the K-th of N shares of the sources (1-based)')
    parser.add_argument('--include', action='append', metavar='GLOB', help='folder files to take (repeatable)')
    parser.add_argument('--exclude', action='append', metavar='GLOB', help='folder files to leave out (repeatable)')
    parser.add_argument('--table', help='SQLite table of histories (default: conversations)')
    parser.add_argument('--id-column', help='its primary key column (default: id)')
    parser.add_argument('--messages-column', help='its history column (default: messages)')
    parser.add_argument('--langchain-table', help="LangChain's message table (default: message_store)")
    add_config_options(parser)
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Discover, compact and report; exit 0 (all done), 1 (some histories or summaries failed), 2 (bad input)."""
    config = _batch_config(load_config(arguments), arguments)
    _check_options(arguments, config)
    batching = config.provider_batch.enabled
    files = [path for path in arguments.paths if isinstance(path, Path)]
    urls = [path for path in arguments.paths if isinstance(path, str)]
    if urls and (arguments.backup or arguments.vacuum):
        raise InputError('--backup and --vacuum are for files; back a PostgreSQL table up with pg_dump')
    if files and isinstance(arguments.out, str):
        raise InputError(f'{files[0]}: --out for files must be a folder, not a postgresql:// URL')
    from ..engines import (
        BatchAborted,
        Interrupted,
        Journal,
        Target,
        check_batchable,
        result_settings,
        resumed,
        run_batch,
        run_provider_batch,
        shard,
    )
    from ..pipeline import ServerUnreachable, resolve_model

    imported()
    model = resolve_model(config)  # a model that cannot be built stops the run here, before any journal or output
    if batching:
        check_batchable(model)
    target = Target(
        backup=arguments.backup,
        dry_run=arguments.dry_run,
        reuse_output=arguments.resume,
        vacuum=arguments.vacuum,
    )
    sources = _sources(arguments, config, target, files=files, urls=urls)
    if arguments.shard:
        index, total = _shard(arguments.shard)
        sources = shard(sources, index, total)
    journal = Journal(
        arguments.journal or _default_journal(config, arguments),
        settings=result_settings(config),
        read_only=arguments.dry_run,
    )
    screen = console(stderr=True)
    started = time.perf_counter()
    provider: ProviderBatchReport | None = None
    size = 0
    earlier: dict[str, SourceReport] = {}
    try:
        if batching and not arguments.resume:
            _refuse_pending_batches(journal)
        finished = journal.start(resume=arguments.resume)
        earlier = {source.key: report for source in sources if (report := resumed(source, finished, target))}
        todo = [source for source in sources if source.key not in earlier]
        for source in sources:
            if source.key in earlier:
                journal.record(source, earlier[source.key])  # the new journal stays complete
        size = sum(source.size() for source in todo)
        with _Progress(screen, total=size) as progress:
            if batching:
                reports, provider = run_provider_batch(
                    todo,
                    config=config,
                    target=target,
                    journal=journal,
                    on_tick=progress.tick,
                    on_note=progress.note,
                    model=model,
                )
            elif arguments.engine == 'ray':
                reports = _run_on_ray(
                    todo, config=config, target=target, journal=journal, arguments=arguments, on_tick=progress.tick
                )
            else:
                reports = run_batch(
                    todo, config=config, target=target, journal=journal, jobs=arguments.jobs, on_tick=progress.tick
                )
    except BatchAborted as exc:
        raise InputError(str(exc)) from None
    except ServerUnreachable as exc:
        raise InputError(f'{exc}; stopped, every unfinished source left as it was') from None
    except Interrupted as exc:  # Ctrl-C: the report says what was done, then the one line of any interrupt
        if arguments.report:
            done = {report.source: report for report in exc.reports}
            cut = [
                earlier.get(source.key) or done.get(source.name) or _not_started(source, target) for source in sources
            ]
            _write_report(arguments.report, cut, seconds=time.perf_counter() - started, size=size, provider=None)
        raise
    seconds = time.perf_counter() - started
    all_reports = [earlier.get(source.key) or reports[todo.index(source)] for source in sources]
    _summary(screen, all_reports, seconds=seconds, size=size, dry_run=arguments.dry_run)
    if arguments.report:
        _write_report(arguments.report, all_reports, seconds=seconds, size=size, provider=provider)
    return 0 if all(report.ok for report in all_reports) else 1


def _sources(
    arguments: argparse.Namespace, config: SummarizerConfig, target: Target, *, files: list[Path], urls: list[str]
) -> list[Source]:
    """Every source to compact, checked before any work; none of them the `--report` file."""
    from ..engines import SourceError, discover

    out = arguments.out if isinstance(arguments.out, Path) else None
    try:
        in_place = arguments.out is None and not arguments.dry_run
        found = discover(files, config=config.batch, out=out, in_place=in_place)
        sources: list[Source] = [*found, *_postgres(urls, config, target, out=arguments.out)]
    except SourceError as exc:
        raise InputError(str(exc)) from None
    if arguments.report:
        refuse_overwriting(
            arguments.report,
            [arguments.report],
            [source.path for source in found],
            outputs=[source.output for source in found] if arguments.out is not None else (),
        )
    if not sources:  # a wrong folder or pattern, far more often than a batch meant to do nothing
        excluding = f', excluding {" ".join(config.batch.exclude)}' if config.batch.exclude else ''
        patterns = ' '.join(config.batch.include) + excluding
        raise InputError(f'{", ".join(map(str, files))}: no history found: no file matches {patterns}')
    return sources


def _not_started(source: Source, target: Target) -> SourceReport:
    """The report of a source an interrupted run never began: nothing done, left as it was."""
    from ..engines import SourceReport

    return SourceReport(source=source.name, kind=source.kind, output=source.output_name(target), interrupted=True)


def _check_options(arguments: argparse.Namespace, config: SummarizerConfig) -> None:
    """Options that cannot go together: one line, exit 2, before anything is read."""
    if not (arguments.out or arguments.in_place or arguments.dry_run):
        raise InputError('choose where results go: --out DIR, --in-place or --dry-run')
    if arguments.jobs < 1:
        raise InputError(f'--jobs must be at least 1, got {arguments.jobs}')
    if arguments.ray_address and arguments.engine != 'ray':
        raise InputError('--ray-address works with --engine ray only')
    if arguments.vacuum and not arguments.in_place:
        raise InputError('--vacuum works with --in-place only')
    if config.provider_batch.enabled and arguments.engine == 'ray':
        raise InputError('--provider-batch works with the local engine only (Ray runs live calls on its actors)')
    if config.provider_batch.enabled and arguments.jobs > 1:
        raise InputError('--provider-batch runs in one process (the provider does the work): drop --jobs')


def _refuse_pending_batches(journal: Journal) -> None:
    """Stop a run that would submit again what an earlier run's provider batches are still doing (and bill twice)."""
    if not journal.path.is_file():
        return
    from ..engines import Journal

    earlier = Journal(journal.path, settings=journal.settings, read_only=True)
    earlier.start(resume=True)
    if earlier.submitted:
        raise InputError(
            f'{journal.path}: an earlier run left {count(len(earlier.submitted), "request")} in provider batches: '
            '--resume collects them (delete the journal to submit them again)'
        )


def _path_or_url(text: str) -> Path | str:
    """A file or folder, or a PostgreSQL URL, however malformed (kept as text: a Path would fold its `//`)."""
    return text if SCHEME.match(text) else Path(text)


def _identity(path: Path | str) -> str:
    """A file's absolute path, or a URL without its password (the journal's name must not depend on one)."""
    return str(path.resolve()) if isinstance(path, Path) else PgUrl.parse(path).shown


def _postgres(urls: list[str], config: SummarizerConfig, target: Target, *, out: Path | str | None) -> list[Source]:
    """The PostgreSQL sources, checked like files before any work (psycopg is imported only for them)."""
    if not urls:
        return []
    try:
        from ..engines.postgres import postgres_sources
    except ImportError:
        raise InputError(f'PostgreSQL sources need psycopg, the postgres extra: {install_hint("postgres")}') from None
    return postgres_sources(urls, config=config.batch, target=target, out=out)


def _run_on_ray(
    sources: list[Source],
    *,
    config: SummarizerConfig,
    target: Target,
    journal: Journal,
    arguments: argparse.Namespace,
    on_tick: OnTick,
) -> list[SourceReport]:
    try:
        from ..engines.ray import run_on_ray
    except ImportError:
        raise InputError(f'--engine ray needs the ray extra: {install_hint("ray")}') from None
    return run_on_ray(
        sources,
        config=config,
        target=target,
        journal=journal,
        on_tick=on_tick,
        workers=arguments.jobs,
        address=arguments.ray_address,
    )


def _batch_config(config: SummarizerConfig, arguments: argparse.Namespace) -> SummarizerConfig:
    overrides = {
        'include': tuple(arguments.include) if arguments.include else None,
        'exclude': tuple(arguments.exclude) if arguments.exclude else None,
        'table': arguments.table,
        'id_column': arguments.id_column,
        'messages_column': arguments.messages_column,
        'langchain_table': arguments.langchain_table,
    }
    provider_batch = {'enabled': True} if arguments.provider_batch else None
    return config.override(
        batch={key: value for key, value in overrides.items() if value is not None}, provider_batch=provider_batch
    )


def _shard(text: str) -> tuple[int, int]:
    try:
        index, count = (int(piece) for piece in text.split('/'))
    except ValueError:
        raise InputError(f'--shard takes K/N, e.g. 2/4, got {text!r}') from None
    if not 1 <= index <= count:
        raise InputError(f'--shard {text}: K must be between 1 and N')
    return index, count


def _default_journal(config: SummarizerConfig, arguments: argparse.Namespace) -> Path:
    """One journal per job: the same inputs, destination and shard resume the same journal."""
    job = json.dumps(
        [
            sorted(_identity(path) for path in arguments.paths),
            str(arguments.out and _identity(arguments.out)),
            arguments.shard,
        ]
    )
    name = hashlib.sha256(job.encode('utf-8')).hexdigest()[:16]
    from ..pipeline import cache_folder

    return cache_folder(config.cache.resolved_directory(), create=False) / 'batch-journals' / f'{name}.jsonl'


class _Progress:
    """A rich progress bar on a terminal; one plain line per finished source otherwise.

    At 80 columns the bar keeps 20 cells and elapsed/ETA stay whole: the running counts are the
    column that gives way (cut with an ellipsis), not the bar or the clock.
    """

    def __init__(self, console: Console, *, total: int) -> None:
        self.console = console
        self.histories = self.summarized = self.saved = 0
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if console.is_terminal:
            # batch + bar + elapsed + ETA + remaining take 50 columns; the counts get what is left
            counts = Column(no_wrap=True, overflow='ellipsis', max_width=max(console.width - 50, 8))
            self._bar = Progress(
                TextColumn('[bold]batch'),
                BarColumn(bar_width=20),
                TextColumn('{task.fields[stats]}', table_column=counts),
                TimeElapsedColumn(),
                TextColumn('ETA'),
                TimeRemainingColumn(),
                console=console,
            )
            self._task = self._bar.add_task('batch', total=total or None, stats='')

    def __enter__(self) -> Self:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def note(self, text: str) -> None:
        """A line about the run as a whole (a provider batch submitted, collected), above the bar on a terminal."""
        self.console.print(Text(text))

    def tick(self, tick: Tick) -> None:
        if tick.finished is None:
            self.histories += 1
            self.summarized += tick.summarized
            self.saved += tick.tokens_saved
        if self._bar is not None and self._task is not None:
            stats = f'{count(self.histories, "history", "histories")}, {self.summarized:,} summarized, {count(self.saved, "token")} saved'
            self._bar.update(self._task, advance=tick.characters, stats=stats)
        elif tick.finished is not None:
            report = tick.finished
            self.console.print(
                Text(
                    f'{report.source}: {count(report.histories, "history", "histories")}, {report.changed:,} changed, '
                    f'{report.failed:,} failed, {count(report.counts.summarized, "return")} summarized, '
                    f'{count(report.tokens_before - report.tokens_after, "token")} saved'
                )
            )


def _summary(console: Console, reports: list[SourceReport], *, seconds: float, size: int, dry_run: bool) -> None:
    """The table of what this run did; sources an earlier run finished (`--resume`) are a line of their own.

    A journal keeps fewer counts than a run makes (no returns examined, no oversized): added together,
    the rows would cover different histories.
    """
    from ..pipeline import Report

    done = [report for report in reports if not report.resumed]
    total = Report()
    for report in done:
        total.add(report.counts)
    histories = sum(report.histories for report in done)
    title = f'batch: {count(len(done), "source")}' + (' (dry run: nothing written)' if dry_run else '')
    table = report_table(
        total,
        tokens_before=sum(report.tokens_before for report in done),
        tokens_after=sum(report.tokens_after for report in done),
        title=title,
    )
    table.add_row(
        'histories',
        f'{histories:,} seen, {sum(r.changed for r in done):,} changed, {sum(r.failed for r in done):,} failed',
    )
    table.add_row(
        'throughput', f'{size / 1e6 / max(seconds, 1e-9):.1f} MB/s, {histories / max(seconds, 1e-9):.1f} histories/s'
    )
    console.print(table)
    resumed = [report for report in reports if report.resumed]
    if resumed:
        console.print(
            Text(
                f'resumed: {count(len(resumed), "source")} an earlier run finished, not in the table: '
                f'{count(sum(r.histories for r in resumed), "history", "histories")}, '
                f'{sum(r.changed for r in resumed):,} changed, '
                f'{count(sum(r.counts.summarized for r in resumed), "return")} summarized, '
                f'{count(sum(r.tokens_before - r.tokens_after for r in resumed), "token")} saved'
            )
        )
    for report in reports:
        for problem in report.problems:
            console.print(Text.assemble((f'{problem.kind} failed', 'yellow'), f' {problem.describe()}'))
        for skipped in report.skipped:
            console.print(Text.assemble(('skipped', 'dim'), f' {skipped.describe()}'))


def _write_report(
    path: Path, reports: list[SourceReport], *, seconds: float, size: int, provider: ProviderBatchReport | None
) -> None:
    document: dict[str, object] = {'seconds': round(seconds, 3), 'input_bytes': size}
    if provider is not None:  # what the run's provider batch did and cost (docs/scale.md)
        document['provider_batch'] = provider.as_json()
    document['sources'] = [report.as_json() for report in reports]
    write_json_report(path, document)
