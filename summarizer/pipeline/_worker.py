"""The thread a process makes its embedded summaries in: one, long-lived, fed in order.

A thread is what lets a time limit stop an embedded summary: its caller awaits a future that it may
give up on (`asyncio.timeout`), while the work, which nothing can stop, ends at its next look at its
deadline. A thread pool's hop (anyio's `to_thread`: a capacity limiter, a pool thread woken for each
call, and new threads for each new event loop) cost ~100 µs a summary, more than a short summary's
own pipeline; embedded summaries take turns anyway (`_models._turn`), so one thread serves them all.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import queue
import threading
from collections.abc import Callable

from ..core import JsonValue

_Job = tuple[asyncio.AbstractEventLoop, 'asyncio.Future[JsonValue]', contextvars.Context, Callable[[], JsonValue]]
"""What the worker is given: the caller's loop and the future it awaits, the caller's context, and the work."""


class _Worker:
    def __init__(self) -> None:
        self.jobs = queue.SimpleQueue[_Job]()
        self.thread: threading.Thread | None = None
        self.starting = threading.Lock()

    def start(self) -> None:
        with self.starting:
            if self.thread is None:
                # A daemon: work its caller gave up on, which nothing can stop, never holds up the process's exit.
                self.thread = threading.Thread(target=_serve, args=(self.jobs,), name='summarizer worker', daemon=True)
                self.thread.start()


_worker = _Worker()


def _new_worker_in_child() -> None:
    """A forked child has no worker thread (only the forking thread is copied): it starts one of its own."""
    global _worker
    _worker = _Worker()


os.register_at_fork(after_in_child=_new_worker_in_child)


def in_worker(work: Callable[[], JsonValue]) -> asyncio.Future[JsonValue]:
    """`work()` made in the worker thread, in the caller's context, as a future of the running loop.

    Cancelling the future gives up on the work: not yet started, it never runs; under way, it is
    abandoned (its result dropped), so it should be told to stop too (`Deadline.abandon`).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[JsonValue] = loop.create_future()
    worker = _worker
    worker.jobs.put((loop, future, contextvars.copy_context(), work))
    if worker.thread is None:
        worker.start()
    return future


def _serve(jobs: queue.SimpleQueue[_Job]) -> None:
    while True:
        _run(*jobs.get())  # a job's loop, future and work are let go once it is done: the next may be long in coming


def _run(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[JsonValue],
    context: contextvars.Context,
    work: Callable[[], JsonValue],
) -> None:
    if future.cancelled():  # its caller gave up while it waited
        return
    result: JsonValue = None
    error: BaseException | None = None
    try:
        result = context.run(work)
    except BaseException as exc:  # noqa: BLE001 - the work's own outcome, handed to its caller
        error = exc
    try:
        loop.call_soon_threadsafe(_settle, future, result, error)
    except RuntimeError:  # its loop is closed: nobody waits for it any more
        pass


def _settle(future: asyncio.Future[JsonValue], result: JsonValue, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)
