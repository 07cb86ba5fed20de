"""`summarizer check ORIGINAL COMPACTED`: the post-check between two stored files."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._check import CheckFailed
from .._stored import check_rewrite
from ._common import parse_history, read_input


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        'check',
        help='prove a compacted file is compatible with its original',
        description='Exit 0 when COMPACTED differs from ORIGINAL only inside summarized tool-return '
        'content values that keep their shape, validates, and keeps tool-call integrity; else exit 1 '
        'with the first difference.',
    )
    parser.add_argument('original', type=Path)
    parser.add_argument('compacted', type=Path)
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    before = parse_history(arguments.original, read_input(arguments.original))
    after = parse_history(arguments.compacted, read_input(arguments.compacted))
    try:
        check_rewrite(before, after)
    except CheckFailed as exc:
        print(f'{arguments.compacted}: not compatible with {arguments.original}: {exc}')
        return 1
    print(f'{arguments.compacted}: compatible with {arguments.original}')
    return 0
