"""`summarizer check ORIGINAL COMPACTED`: the post-check between two stored files.

It applies the rules `compact` applies to its own output (`_stored.check_rewrite`), with the
configuration the compaction ran with: the tool rules (a skipped tool, a typed tool return a rule
names) and the thresholds a summary must be under.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core import SummarizerConfig
from ._common import InputError, imported, parse_history, read_input


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add `check` to the command's subcommands."""
    parser = commands.add_parser(
        'check',
        help='prove a compacted file is compatible with its original',
        description='Exit 0 when COMPACTED differs from ORIGINAL only inside tool-return content values '
        'the pipeline may summarize, each replaced by a proper summary (same shape and number literals, '
        'not empty, smaller, under the threshold), and validates and keeps tool-call integrity; else '
        'exit 1 with the first difference (a COMPACTED that is not a valid history is not compatible).',
    )
    parser.add_argument('original', type=Path)
    parser.add_argument('compacted', type=Path)
    parser.add_argument(
        '--config', type=Path, help='the config.yaml the compaction ran with (default: none, the defaults)'
    )
    parser.add_argument('--threshold-tokens', type=int, help='the threshold the compaction ran with')
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """0 when compatible; 1 with the first difference (or when COMPACTED is not a valid history)."""
    if arguments.config is not None and not arguments.config.is_file():
        raise InputError(f'{arguments.config}: config file not found')
    config = SummarizerConfig.load(arguments.config).override(threshold_tokens=arguments.threshold_tokens)
    before = parse_history(arguments.original, read_input(arguments.original))
    from ..pipeline import CheckFailed
    from ..stored import HistoryError, StoredHistory, check_rewrite

    imported()
    try:
        after = StoredHistory.parse(read_input(arguments.compacted))
        check_rewrite(before, after, config=config)
    except (CheckFailed, HistoryError) as exc:
        print(f'{arguments.compacted}: not compatible with {arguments.original}: {exc}')
        return 1
    print(f'{arguments.compacted}: compatible with {arguments.original}')
    return 0
