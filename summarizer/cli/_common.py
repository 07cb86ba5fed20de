"""What the subcommands share: the config options, reading input, and the report."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .._config import SummarizerConfig
from .._pipeline import Report
from .._stored import HistoryError, StoredHistory


class InputError(Exception):
    """Bad input: the message names the file (and message index) and the problem."""


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """The options every compacting command takes; they override the config file."""
    parser.add_argument('--config', type=Path, help='a config.yaml of your own (defaults: the shipped one)')
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
    return SummarizerConfig.load(
        arguments.config,
        model=arguments.model,
        threshold_tokens=arguments.threshold_tokens,
        keep_recent=arguments.keep_recent,
    )


def read_input(path: Path) -> bytes:
    """The bytes of an input file, or an `InputError` saying why they cannot be had."""
    if path.is_dir():
        raise InputError(f'{path}: is a directory, expected a history file')
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f'{path}: cannot read: {exc.strerror or exc}') from None


def parse_history(path: Path, raw: bytes) -> StoredHistory:
    try:
        return StoredHistory.parse(raw)
    except HistoryError as exc:
        raise InputError(f'{path}: {exc}') from None


def report_table(title: str, report: Report, *, tokens_before: int, tokens_after: int) -> Table:
    table = Table(title=title, show_header=False, title_justify='left')
    table.add_column(style='bold')
    table.add_column(justify='right')
    saved = tokens_before - tokens_after
    share = f' ({saved / tokens_before:.0%})' if tokens_before else ''
    rows = (
        ('tool returns examined', report.returns_examined),
        ('oversized', report.oversized),
        ('summarized', report.summarized),
        ('cache hits', report.cache_hits),
        ('model calls', report.model_calls),
        ('failed (original kept)', report.failed),
        ('history tokens', f'{tokens_before:,} -> {tokens_after:,}'),
        ('saved', f'{saved:,} tokens{share}'),
        ('summarizer usage', f'{report.summarizer_input_tokens:,} in / {report.summarizer_output_tokens:,} out'),
    )
    for label, value in rows:
        table.add_row(label, str(value))
    return table


def print_failures(console: Console, report: Report, *, source: str) -> None:
    for failure in report.failures:
        console.print(
            f'[yellow]kept original[/] {source}: message {failure.message_index} part {failure.part_index} '
            f'({failure.tool_name}, {failure.tool_call_id}): {failure.reason}',
            highlight=False,
        )
    for skipped in report.skipped:
        console.print(
            f'[dim]skipped[/] {source}: message {skipped.message_index} part {skipped.part_index} '
            f'({skipped.tool_name}, {skipped.tool_call_id}): {skipped.reason}',
            highlight=False,
        )
    for problem in report.integrity:
        console.print(f'[dim]note[/] {source}: {problem} (already in the input)', highlight=False)
