"""What a first pass read of each source, kept on disk for the second pass: a two-pass run reads each source once.

`--provider-batch` plans every history before any is compacted (the batch's answers must exist first),
and `--engine ray` builds its dataset before the sources' writes, so a run needs the histories twice,
up to hours apart. A corpus of many GB does not fit in memory, and reading it again costs as much as
the first read and sees a different source if it changed meanwhile. So the first pass (`Spool.read`)
writes each unit it hands out to a private file, and the second pass (`Spool.compact`: `run_sources`
with `Spool.replay` as its `units`) reads them back, one at a time (memory: one history), never
reading the source again.

The source itself remembers what its read saw (a file's snapshot, a JSONL file's hash, each row's value
in its unit) across `open`, so its writes stay compare-and-swaps against that read: a history changed
between the read and the write is left alone and reported, as in a one-pass run. The first pass opens
each source for the run's real target (a database `--out` copy is made then, and read), the second
reopens it with `reuse_output` to go on in that copy.

The spool is a 0700 folder of 0600 files in the cache folder, holding the history text the sources hold
(the unit pickles this process wrote itself), each file deleted once replayed and the folder on the
way out, whatever happened; a killed run's folder is deleted by the next run (its name holds the pid).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Coroutine, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import make_folders
from ..pipeline import Compactor
from ..stored import Done, Unit
from ._runner import BatchAborted, Journal, OnTick, SourceReport, run_sources
from ._sources import Source, SourceProblem, Target

_READ_ERRORS = (OSError, sqlite3.Error, SourceProblem)
"""How a source fails to be read: reported by the second pass as a one-pass run reports it."""


@dataclass
class _Read:
    """One source's first pass: the spool file of its units, and the failure that ended its read, if any."""

    path: Path
    failure: OSError | sqlite3.Error | SourceProblem | None = None


@dataclass
class Spool:
    """The spool folder of one run: a file of units per source read (`read`), replayed once (`replay`)."""

    folder: Path
    _reads: dict[int, _Read] = field(default_factory=dict[int, _Read])
    """By `id` of the source (the run holds every source for both passes)."""

    @classmethod
    @contextlib.contextmanager
    def of_run(cls, cache: Path) -> Generator[Spool]:
        """A new spool folder in `cache` (a private folder), removed with all it holds on the way out."""
        parent = cache / 'spool'
        try:
            _remove_dead(parent)
            folder = Path(tempfile.mkdtemp(dir=parent, prefix=f'{os.getpid()}-'))  # 0700
        except OSError as exc:
            raise BatchAborted(f'{parent}: cannot keep what is read there: {exc.strerror or exc}') from None
        try:
            yield cls(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def read(self, source: Source, target: Target) -> Iterator[Unit]:
        """`source`'s units, read once for `target` and written to the spool as they pass; the source is closed after.

        A read that fails ends the iteration here and is raised again by `replay` (the second pass reports it).
        A spool that cannot be written stops the run (`BatchAborted`): nothing is written to any source yet.
        """
        read = self._reads[id(source)] = _Read(self.folder / f'{len(self._reads)}.units')
        try:
            with os.fdopen(os.open(read.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), 'wb') as spool:
                for unit in _units(source, target, read):
                    pickle.dump(unit, spool, protocol=pickle.HIGHEST_PROTOCOL)
                    yield unit
        except OSError as exc:  # the spool's: a source's own read errors end in `_units`
            raise BatchAborted(
                f'{read.path}: cannot keep what was read: {exc.strerror or exc}; stopped, every source left as it was'
            ) from None

    def replay(self, source: Source) -> Iterator[Unit]:
        """The units `read` read of `source`, in order, then its read's failure raised again; the file then deleted."""
        read = self._reads[id(source)]
        try:
            with read.path.open('rb') as spool:
                while True:
                    try:
                        unit: Unit = pickle.load(spool)  # written by `read`, in this run's 0700 folder
                    except EOFError:
                        break
                    yield unit
        finally:
            read.path.unlink(missing_ok=True)
        if read.failure is not None:
            raise read.failure

    async def compact(
        self,
        sources: list[Source],
        *,
        compactor: Compactor,
        target: Target,
        journal: Journal | None,
        on_tick: OnTick,
        process: Callable[[Unit], Coroutine[Any, Any, Done]] | None = None,  # a coroutine: it goes to create_task
    ) -> list[SourceReport]:
        """`run_sources` over the units `read` read of `sources` (each read for `target`), replayed from here.

        Each source is opened again with `reuse_output`, so a database goes on in the `--out` copy its read made.
        """
        return await run_sources(
            sources,
            compactor=compactor,
            target=dataclasses.replace(target, reuse_output=True),
            journal=journal,
            on_tick=on_tick,
            process=process,
            units=self.replay,
        )


def _units(source: Source, target: Target, read: _Read) -> Iterator[Unit]:
    """`source` opened for `target` and read; a failure to read it kept in `read`; the source closed after."""
    try:
        source.open(target)
        yield from source.units()
    except _READ_ERRORS as exc:
        read.failure = exc
    finally:
        source.abort()


def _remove_dead(parent: Path) -> None:
    """Make `parent` (0700), and delete the spool folders in it of runs no longer running (killed ones)."""
    make_folders(parent)
    for folder in parent.iterdir():
        pid = folder.name.partition('-')[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process of that pid: its folder is not ours to judge
    return True
