"""The `summarizer` command: one module per subcommand, registered in `SUBCOMMANDS`.

Only the module of the subcommand a command line names is imported (all of them for `--help` or an
unknown one): `batch` and `eval` import much that `compact` never uses, and every run, each `--jobs`
worker and each Ray actor would pay for it at startup. A subcommand imports the pipeline (and
pydantic-ai, more than a second of CPU) only once its options, config and input are known good:
`--version`, `--help` and their errors never import it (tests/test_startup.py).

Every expected problem (bad input, bad config, unreadable file, a model that cannot be built, a model
server that cannot be reached) ends as one line on stderr naming the file, model or server and what is
wrong, with exit code 2 and no traceback; nothing is written for it.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn, TextIO

from ..core import ConfigError, package_version, redact, remember_secrets, secrets_in
from ._common import InputError, own_process as _own_process

SUBCOMMANDS = ('compact', 'check', 'eval', 'replay', 'batch', 'restore', 'serve')
"""The subcommands, in `--help` order: `summarizer.cli.NAME` has `register(commands)`, whose parser runs it."""
_VERBOSE_HELP = (
    'log what is summarized and what came from the cache (-vv: also failure details, which may quote content)'
)


def command() -> int:
    """The `summarizer` command (the console script, `python -m summarizer.cli`): `main` in a process of its own."""
    return main(own_process=True)


def main(argv: Sequence[str] | None = None, *, own_process: bool = False) -> int:
    """Run the command line `argv` (default: `sys.argv`); returns the exit code.

    `own_process`: the process is the command's own (`command`), whose collector a subcommand may
    tune once it has imported what it works with (`_common.imported`).
    """
    words = sys.argv[1:] if argv is None else argv
    # the command line's PostgreSQL passwords, however malformed the URL (one taken for a file name, an
    # option's value argparse quotes): hidden in every message from here on
    remember_secrets(secrets_in(words))
    parser = _Parser(prog='summarizer', description='Summarize oversized tool returns in pydantic-ai histories.')
    parser.add_argument('--version', action=_Version, nargs=0, help="show the program's version number and exit")
    parser.add_argument('-v', '--verbose', action='count', default=0, help=_VERBOSE_HELP)
    commands = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    for module in _subcommand_modules(words):
        module.register(commands)
    for subcommand in commands.choices.values():  # `summarizer compact -v ...` as well as `summarizer -v compact ...`
        subcommand.add_argument('-v', '--verbose', dest='verbose_after', action='count', default=0, help=_VERBOSE_HELP)
    arguments = parser.parse_args(argv)
    _own_process.set(own_process)
    _log_to_stderr(arguments.verbose + arguments.verbose_after)
    try:
        if getattr(arguments, 'backup', False) and not arguments.in_place:
            raise InputError('--backup keeps the original of a file rewritten in place: it needs --in-place')
        return int(arguments.run(arguments))
    except (InputError, ConfigError) as exc:
        print(f'summarizer: {redact(str(exc))}', file=sys.stderr)
        return 2
    except Exception as exc:
        # Only code that imported the pipeline raises its errors: importing it here costs nothing then,
        # and the paths that never needed it (bad input, bad config) never pay for it.
        from ..pipeline import ModelBuildError, ServerUnreachable

        if not isinstance(exc, ModelBuildError | ServerUnreachable):
            raise
        print(f'summarizer: {redact(str(exc))}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('summarizer: interrupted; files already written are complete, the rest untouched', file=sys.stderr)
        return 130


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error line (it may quote an argument) goes through the one redaction."""

    def error(self, message: str) -> NoReturn:
        super().error(redact(message))


def _subcommand_modules(argv: Sequence[str]) -> list[ModuleType]:
    """The module of the subcommand `argv` names, or every subcommand's when it names none we know.

    The top-level options (`-v`, `--version`, `--help`) take no value, so the first word that is not
    an option is the subcommand.
    """
    named = next((word for word in argv if not word.startswith('-')), None)
    if named is None and '--version' in argv:
        return []  # it exits before any subcommand is needed
    names = [named] if named in SUBCOMMANDS else SUBCOMMANDS
    return [importlib.import_module(f'{__name__}.{name}') for name in names]


class _Version(argparse.Action):
    """`--version`, whose version is looked up only when asked for (`package_version`)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f'{parser.prog} {package_version()}')
        parser.exit()


class _CurrentStderr(logging.StreamHandler[TextIO]):
    """Writes to `sys.stderr` as it is when a record comes, not as it was when logging was set up.

    `batch`'s progress bar swaps `sys.stderr` for a stream that prints above the bar; a handler holding
    the original one would write into the bar's line.
    """

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _Redacting(logging.Formatter):
    """Every log line goes through the one redaction (a library's warning may quote a URL or an error body)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def _log_to_stderr(verbosity: int) -> None:
    """Warnings always; with -v the summarizer's own progress, with -vv its details.

    Only the `summarizer` loggers get more verbose: the HTTP clients' debug logs would print
    request bodies, that is, tool content.
    """
    handler = _CurrentStderr()
    handler.setFormatter(_Redacting('%(levelname)s %(message)s'))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    level = (logging.NOTSET, logging.INFO)[verbosity] if verbosity < 2 else logging.DEBUG
    logging.getLogger('summarizer').setLevel(level)  # NOTSET: the root's WARNING
