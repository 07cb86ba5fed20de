"""`summarizer compact INPUT`: compact one stored history file."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from rich.text import Text

from ..core import ChangedWhileCompacting, Snapshot, atomic_write, backup
from ._common import (
    InputError,
    add_config_options,
    console,
    imported,
    load_config,
    print_failures,
    read_input,
    report_table,
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add `compact` and its options to the command line."""
    parser = commands.add_parser(
        'compact',
        help='compact one stored history file',
        description='Summarize the oversized tool returns of one stored history. Only the bytes of '
        'summarized content values change; the file keeps its schema version and formatting.',
    )
    parser.add_argument('input', type=Path, help='a JSON file holding one pydantic-ai history')
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        '-o', '--output', type=Path, help="where to write ('-' for stdout); default INPUT.compacted.json"
    )
    where.add_argument('--in-place', action='store_true', help='rewrite INPUT atomically')
    parser.add_argument('--backup', action='store_true', help='with --in-place: keep the original as INPUT.bak')
    add_config_options(parser)
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Compact one file; exit 0 (done), 1 (some summaries failed, originals kept), 2 (bad input, nothing written)."""
    config = load_config(arguments)
    source: Path = arguments.input
    raw = read_input(source)
    if raw.startswith(_SQLITE_HEADER):
        raise InputError(
            f'{source}: a SQLite database, not a history file: `summarizer batch {source}` compacts its histories'
        )
    to_stdout = arguments.output == Path('-')
    output: Path | None = None if to_stdout else arguments.output
    if output is not None and output.exists() and os.path.samefile(output, source):
        raise InputError(f'{source}: -o names the input itself: that is --in-place, with its checks')
    read = Snapshot.of(source.stat(), raw) if arguments.in_place else None  # stat after the read: a later change shows
    out = console(stderr=to_stdout)
    from ..pipeline import CheckFailed, Compactor, Rewrite, history_identity, record_rewrite
    from ..stored import HistoryError, compact_stored

    imported()
    compactor = Compactor(config=config)
    try:
        result = asyncio.run(compact_stored(raw, compactor))
    except HistoryError as exc:
        # a JSONL file holds a history a line: batch reads it so
        many = f' (a JSONL file: `summarizer batch {source}` compacts each line)' if source.suffix == '.jsonl' else ''
        raise InputError(f'{source}: {exc}{many}') from None
    except CheckFailed as exc:
        raise InputError(f'{source}: {exc}') from None
    finally:
        compactor.summarizer.cache.close()
    report = result.report
    target = _target(arguments)
    text, refused = result.text, None
    if text is not None and not arguments.dry_run:  # the way back is recorded before anything is written
        identity = '' if to_stdout else history_identity(os.path.realpath(target))
        rewrite = Rewrite(before=[raw.decode('utf-8')], after=[text], replaced=result.replaced)
        refused = record_rewrite(compactor.originals, rewrite, identity=identity)
        if refused is not None:
            text = None
            report.failed += report.summarized
            report.summarized = 0
    data = text.encode('utf-8') if text is not None else raw
    if arguments.dry_run:
        written = 'dry run: nothing written'
    elif to_stdout:
        sys.stdout.buffer.write(data)
        written = 'written to stdout' if refused is None else 'written to stdout unchanged'
    elif arguments.in_place and text is None:
        written = f'{source} unchanged ({"nothing to summarize" if refused is None and not report.failed else "not compacted"})'
    else:
        if arguments.in_place and arguments.backup:
            try:
                backup(source)
            except OSError as exc:
                raise InputError(f'{source}.bak: cannot write: {exc.strerror or exc}; nothing was changed') from None
        try:
            atomic_write(target, data, mode=None if target.exists() else source.stat().st_mode & 0o7777, expected=read)
        except ChangedWhileCompacting as exc:
            raise InputError(str(exc)) from None
        except OSError as exc:
            raise InputError(f'{target}: cannot write: {exc.strerror or exc}; nothing was changed') from None
        written = f'written to {target}'
    out.print(Text(f'{source}: {written}'))
    tokens_after = result.tokens_after if refused is None else result.tokens_before
    out.print(report_table(report, tokens_before=result.tokens_before, tokens_after=tokens_after))
    print_failures(out, report, source=str(source))
    if refused is not None:
        out.print(Text.assemble(('not compacted', 'yellow'), f' {source}: {refused}, so it could not be undone'))
    return 1 if report.failed else 0


_SQLITE_HEADER = b'SQLite format 3\x00'


def _target(arguments: argparse.Namespace) -> Path:
    source: Path = arguments.input
    if arguments.in_place:
        return source
    if arguments.output is not None:
        return arguments.output
    return source.with_name(f'{source.stem}.compacted{source.suffix or ".json"}')
