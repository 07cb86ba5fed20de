"""The `summarizer` command: one module per subcommand, registered in `SUBCOMMANDS`.

Every expected problem (bad input, bad config, unreadable file) ends as one line on stderr naming
the file and what is wrong, with exit code 2 and no traceback; nothing is written for it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from .._config import ConfigError
from . import batch, check, compact, eval, restore
from ._common import InputError

SUBCOMMANDS = (compact, check, eval, batch, restore)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog='summarizer', description='Summarize oversized tool returns in pydantic-ai histories.'
    )
    parser.add_argument(
        '-v', '--verbose', action='store_true', help='log progress (tool content only at DEBUG, with -vv)'
    )
    commands = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    for module in SUBCOMMANDS:
        module.register(commands)
    arguments = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if arguments.verbose else logging.WARNING, format='%(levelname)s %(message)s'
    )
    try:
        return int(arguments.run(arguments))
    except (InputError, ConfigError) as exc:
        print(f'summarizer: {exc}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('summarizer: interrupted; files already written are complete, the rest untouched', file=sys.stderr)
        return 130
