"""`summarizer` command lines as real processes forked from one that imported the CLI once.

A test that starts many `summarizer batch` processes (to SIGKILL them at random points, to stop and
resume them) paid ~1-2 s of CPU per process for importing pydantic-ai, the OpenAI SDK and the
summarizer before the first line of the command ran. Here a multiprocessing fork server, started
once per test process, imports them (`PRELOAD`), and each command line is a process forked from it:

- a separate process with its own pid, the leader of a process group and session of its own (as
  `subprocess.Popen(..., start_new_session=True)`), whose `--jobs` workers are in that group, so
  `os.killpg(pid, SIGKILL)` kills it with its workers, and a signal to the pid alone reaches it alone;
- SIGINT raises KeyboardInterrupt in it, as Ctrl-C in a command started at a terminal, even when the test run
  itself ignores SIGINT (started as a background job of a script), which its processes would inherit;
- with the environment it is given (the test's, not the fork server's), stdin `/dev/null`, stdout and
  stderr in files read while it runs;
- it runs `summarizer.cli.main(argv)` and exits with its return code after the interpreter's exit
  handlers, as `python -m summarizer.cli ARGV` does; killed, its exit code is minus the signal
  number, as `Popen.returncode` says.

What it leaves out is the import itself: a kill can no longer land while modules load, a moment at
which no command has touched a file. Other differences from the installed command, none of which
touches what the tests check (which files and rows exist, and what they hold, after a kill): it runs
`main(argv)`, not `command()`, so the imports are not frozen (`gc.freeze`); its stdout is line-buffered;
interpreter settings read at start-up from the given environment (`PYTHONIOENCODING`, `PYTHON*`) are
the fork server's; and a signal to a process that has just ended may, in principle, reach a reused pid.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from multiprocessing import forkserver, resource_tracker
from pathlib import Path

PRELOAD = ['forked_cli', 'summarizer.cli', 'summarizer.cli.batch', 'summarizer.engines', 'pydantic_ai.models.openai']
"""Imported once by the fork server: the CLI, the `batch` subcommand, the engines it imports once its input is
known good (and the pipeline with them), and the OpenAI model every test here runs."""

_CONTEXT = multiprocessing.get_context('forkserver')
_CONTEXT.set_forkserver_preload(PRELOAD)
atexit.register(forkserver._forkserver._stop)  # pyright: ignore[reportPrivateUsage]
"""Reaped at the end, so the CPU time of the fork server and its children counts in the test process's."""


def _child(argv: list[str], env: dict[str, str], cwd: str, stdout: str, stderr: str, exited: str) -> None:
    """In the forked process: a session of its own, the given environment and streams, then the command.

    Its exit code is written to `exited` too: the fork server, which reaps it, may lose it (see `Forked.poll`).
    """
    os.setsid()
    # Ctrl-C as at a terminal: Python's KeyboardInterrupt. A test run started as a background job of a
    # non-interactive shell (`pytest &` in a script) ignores SIGINT, and so, inherited, would every
    # process it starts, this one too: a Ctrl-C test would then wait on a command that never hears it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    tracker = resource_tracker._resource_tracker  # pyright: ignore[reportPrivateUsage]
    os.close(tracker._fd)  # pyright: ignore[reportPrivateUsage] (the test process's: this one starts its own on demand)
    tracker._fd = None  # pyright: ignore[reportPrivateUsage]
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, stdout, os.O_WRONLY), (2, stderr, os.O_WRONLY)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 (the process's own streams, as the interpreter opens them)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, 'w', closefd=False), line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, 'w', closefd=False), line_buffering=True, errors='backslashreplace')
    from summarizer.cli import main

    try:
        code = main(argv)
    finally:
        atexit._run_exitfuncs()  # pyright: ignore[reportPrivateUsage] (an interpreter's exit runs them; os._exit does not)
        sys.stdout.flush()
        sys.stderr.flush()
    Path(exited).write_text(str(code))
    sys.exit(code)


_STATUS_LOST = 255
"""What `multiprocessing`'s fork-server process reports when the fork server's word on its exit never came."""


class Forked:
    """One forked command line: `pid`, `poll()`, `wait()` and `returncode` as `subprocess.Popen` has them."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None) -> None:
        folder = Path(tempfile.mkdtemp(prefix='forked-cli-'))
        self._stdout, self._stderr, self._exited = folder / 'stdout', folder / 'stderr', folder / 'exited'
        self._stdout.touch()
        self._stderr.touch()
        self._closed: tuple[str, str] | None = None
        self._exitcode: int | None = None
        arguments = (list(argv), dict(os.environ if env is None else env), str(cwd or Path.cwd()))
        outputs = (str(self._stdout), str(self._stderr), str(self._exited))
        self._process = _CONTEXT.Process(target=_child, args=(*arguments, *outputs))
        self._process.start()
        pid = self._process.pid
        assert pid is not None
        self.pid = pid
        while self.poll() is None:  # its own process group before anyone signals it (a few ms at most)
            try:
                if os.getpgid(pid) == pid:
                    break
            except ProcessLookupError:
                break
            time.sleep(0.001)

    @property
    def returncode(self) -> int | None:
        return self.poll()

    def poll(self) -> int | None:
        """Its exit code once it has ended, else None.

        `multiprocessing` reports 255 where the fork server's report of it was lost (an EOF on the status
        pipe, seen once in a crash-safety run after the command had printed its totals): the code the process
        wrote itself on its way out is the one, where there is one. A process killed wrote none.
        """
        if self._exitcode is None:
            code = self._process.exitcode
            if code == _STATUS_LOST and self._exited.exists():
                code = int(self._exited.read_text())
            self._exitcode = code
        return self._exitcode

    def wait(self, timeout: float | None = None) -> int:
        if self._exitcode is None:
            self._process.join(timeout)
        code = self.poll()
        if code is None:
            raise subprocess.TimeoutExpired(['summarizer'], timeout or 0)
        return code

    def send_signal(self, sig: int) -> None:
        """`sig` to the process alone, as `Popen.send_signal`: nothing once it has ended.

        Unlike a `Popen` child, which stays a zombie until the test waits for it, an ended process is
        reaped by the fork server, so its pid can be gone before its exit code has reached `poll()`.
        """
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL to the process alone (not its group), as `Popen.kill`."""
        self.send_signal(signal.SIGKILL)

    def kill_group(self) -> None:
        """SIGKILL to its process group: the process and the `--jobs` workers it started (see `send_signal`)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)

    def stdout(self) -> str:
        """What it wrote to stdout so far (all of it once closed)."""
        return self._stdout.read_text(errors='replace') if self._closed is None else self._closed[0]

    def stderr(self) -> str:
        """What it wrote to stderr so far (all of it once closed)."""
        return self._stderr.read_text(errors='replace') if self._closed is None else self._closed[1]

    def stderr_lines(self) -> list[str]:
        """The whole lines it wrote to stderr so far (a line still being written is not one yet)."""
        return self.stderr().splitlines(keepends=True)[: self.stderr().count('\n')]

    def close(self) -> None:
        """Wait for the process (kill it alone first if still running), keep its output and remove its files."""
        if self._closed is not None:
            return
        self.kill()
        self.wait()
        self._process.close()
        self._closed = (self.stdout(), self.stderr())
        for path in (self._stdout, self._stderr):
            path.unlink()
        self._exited.unlink(missing_ok=True)
        self._stdout.parent.rmdir()


def run(argv: Sequence[str], env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([sys.executable, '-m', 'summarizer.cli', *argv], capture_output=True, text=True)`, forked."""
    forked = Forked(argv, env)
    try:
        code = forked.wait()
        return subprocess.CompletedProcess(['summarizer', *argv], code, forked.stdout(), forked.stderr())
    finally:
        forked.close()
