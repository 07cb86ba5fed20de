"""What the subcommands share: the config options, reading input, and the report.

Output is read in terminals 80 columns wide and grepped in CI logs: each record (a failure, a
finished source, where a file was written) is one line that is never hard-wrapped, so a path or a
reason survives `grep` whole; a terminal may soft-wrap it, a pipe or a log file keeps it as is.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..core import SummarizerConfig, atomic_write, count, redact

if TYPE_CHECKING:
    from ..pipeline import Report
    from ..stored import StoredHistory


class InputError(Exception):
    """Bad input: the message names the file (and message index) and the problem."""


own_process: ContextVar[bool] = ContextVar('own_process', default=False)
"""Whether the command runs in a process of its own (`summarizer.cli.command`), not inside a host's."""


def imported() -> None:
    """Say the subcommand has imported the modules it works with (pydantic-ai among them).

    A subcommand imports them only once its options, config and input are known good, so that
    `--help` and bad input never pay for them (more than a second of CPU). In the command's own
    process their objects then leave the cyclic collector's reach (`gc.freeze`): they live as long
    as the process anyway, and in a process holding pydantic-ai they make every full collection
    cost 30-60 ms (~80,000 objects, its validators' among them), which a long batch triggers again
    and again (bench/README.md, section 6). Inside a host's process the collector is left alone, as
    `Compactor` and the capability leave it.
    """
    if own_process.get():
        gc.freeze()


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """The options every compacting command takes; they override the config file."""
    parser.add_argument(
        '--config', type=Path, help='a config.yaml of your own (keys it leaves out keep their defaults)'
    )
    parser.add_argument(
        '--model',
        help="summarizer model: 'extractive' (offline), a pydantic-ai model string, or the name a server at the config's base_url knows",
    )
    parser.add_argument('--threshold-tokens', type=int, help='summarize contents over this many tokens')
    parser.add_argument('--keep-recent', type=int, help='keep the tool returns of the N most recent turns verbatim')
    parser.add_argument('--dry-run', action='store_true', help='compute and report, write nothing')


def load_config(arguments: argparse.Namespace) -> SummarizerConfig:
    if arguments.config is not None and not arguments.config.is_file():
        raise InputError(f'{arguments.config}: config file not found')
    config = SummarizerConfig.load(arguments.config).override(
        model=arguments.model, threshold_tokens=arguments.threshold_tokens, keep_recent=arguments.keep_recent
    )
    if getattr(arguments, 'dry_run', False):  # writes nothing, the originals store included
        config = config.override(originals={'enabled': False})
    return config


def read_input(path: Path) -> bytes:
    """The bytes of an input file, or an `InputError` saying why they cannot be had."""
    if path.is_dir():
        raise InputError(f'{path}: is a directory, expected a history file')
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f'{path}: cannot read: {exc.strerror or exc}') from None


def parse_history(path: Path, raw: bytes) -> StoredHistory:
    from ..stored import HistoryError, StoredHistory

    try:
        return StoredHistory.parse(raw)
    except HistoryError as exc:
        raise InputError(f'{path}: {exc}') from None


def refuse_overwriting(
    report: Path, written: Sequence[Path], inputs: Iterable[Path], *, outputs: Iterable[Path] = ()
) -> None:
    """Stop before `--report report`, which writes the files `written`, would replace one of the `inputs` or `outputs`.

    An output may not exist yet: it is compared by the path it resolves to as well as by the file it is.
    """
    for path, role in [*((path, 'input') for path in inputs), *((path, 'output') for path in outputs)]:
        if any(_same_place(file, path) for file in written):
            raise InputError(
                f'{path}: --report {report} would overwrite this {role}: choose another place for the report'
            )


def _same_place(one: Path, other: Path) -> bool:
    if os.path.realpath(one) == os.path.realpath(other):
        return True
    return one.exists() and other.exists() and os.path.samefile(one, other)


def write_json_report(path: Path, document: dict[str, object]) -> None:
    """`--report FILE` of batch and restore: JSON, owner-readable only, through the one redaction, atomically."""
    text = redact(json.dumps(document, indent=2, ensure_ascii=False)) + '\n'
    try:
        atomic_write(path, text.encode('utf-8'), mode=0o600)
    except OSError as exc:
        raise InputError(f'{path}: cannot write the report: {exc.strerror or exc}') from None


def console(*, stderr: bool = False) -> Console:
    """A console whose `print` never hard-wraps a line (see the module docstring)."""
    return Console(stderr=stderr, soft_wrap=True, highlight=False)


def report_table(report: Report, *, tokens_before: int, tokens_after: int, title: str | None = None) -> Table:
    table = Table(title=title, show_header=False, title_justify='left')
    table.add_column(style='bold')
    table.add_column(justify='right')
    saved = tokens_before - tokens_after
    share = f' ({saved / tokens_before:.0%})' if tokens_before else ''
    rows = (
        ('tool returns examined', f'{report.returns_examined:,}'),
        ('oversized', f'{report.oversized:,}'),
        ('summarized', f'{report.summarized:,}'),
        ('cache hits', f'{report.cache_hits:,}'),
        ('model calls', f'{report.model_calls:,}'),
        ('failed (original kept)', f'{report.failed:,}'),
        ('history tokens', f'{tokens_before:,} -> {tokens_after:,}'),
        ('saved', count(saved, 'token') + share),
        ('summarizer usage', f'{report.summarizer_input_tokens:,} in / {report.summarizer_output_tokens:,} out'),
    )
    for label, value in rows:
        table.add_row(label, value)
    return table


def print_failures(console: Console, report: Report, *, source: str) -> None:
    """One line per return that kept its original, and per tool-call problem found in the input.

    Built as `Text`, not markup: a path or a reason may hold `[...]`, which markup would eat.
    """
    for failure in report.failures:
        console.print(
            Text.assemble(
                ('kept original', 'yellow'),
                f' {source}: message {failure.message_index} part {failure.part_index} '
                f'({failure.tool_name}, {failure.tool_call_id}): {failure.reason}',
            )
        )
    for skipped in report.skipped:
        console.print(
            f'[dim]skipped[/] {source}: message {skipped.message_index} part {skipped.part_index} '
            f'({skipped.tool_name}, {skipped.tool_call_id}): {skipped.reason}',
            highlight=False,
        )
    for problem in report.integrity:
        console.print(Text.assemble(('note', 'dim'), f' {source}: {problem} (already in the input)'))
