"""What the loopback fakes of the providers' batch APIs share (tests/fake_openai.py, fake_anthropic.py, fake_gemini.py).

Each fake answers in its own API's shapes; the state tests look at, the `faults` a test injects and how a
batch request meets one, the JSON answers and the serving thread are the same for all three.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal, TypeVar

from summarizer.pipeline._prompts import DataBlock


class FakeBatchAPI(ThreadingHTTPServer):
    """A loopback HTTP server on a free port, with the state and faults every fake provider keeps."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(('127.0.0.1', 0), handler)
        self.lock = threading.Lock()
        self.answered: list[str] = []
        """The content of each live call, JSON-encoded."""
        self.batches_created: list[str] = []
        """Ids of the batches created, in order: how many submissions a run made."""
        self.batch_requests: list[str] = []
        """The content of each request submitted in a batch (a resubmitted one again), JSON-encoded."""
        self.paths: list[str] = []
        """`METHOD /path` of every batch-side request (uploads, batches, checks, downloads)."""
        self.hold_batches = False
        """While set, every batch stays in progress."""
        self.faults: dict[str, str] = {}
        """Marker in a content -> how its request fails: `error`, `expire`, `expire-once` or `bad`."""
        self._expired_once: set[str] = set()

    @property
    def base_url(self) -> str:
        return f'http://127.0.0.1:{self.server_address[1]}'

    def fault(self, block: DataBlock) -> str | None:
        """The fault whose marker the request's content holds, if any."""
        text = json.dumps(block.content)
        return next((fault for marker, fault in self.faults.items() if marker in text), None)

    def batch_fault(self, block: DataBlock) -> Literal['expire', 'error'] | None:
        """How a batch request fails: `expire` (never run; `expire-once` only the first time) or `error`."""
        fault, key = self.fault(block), json.dumps(block.content)
        if fault == 'expire' or (fault == 'expire-once' and key not in self._expired_once):
            self._expired_once.add(key)
            return 'expire'
        return 'error' if fault == 'error' else None


def send_json(
    handler: BaseHTTPRequestHandler,
    payload: dict[str, object],
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> None:
    data = json.dumps(payload).encode('utf-8')
    handler.send_response(status)
    handler.send_header('Content-Type', 'application/json')
    handler.send_header('Content-Length', str(len(data)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)


Server = TypeVar('Server', bound=FakeBatchAPI)


@contextmanager
def serving(server: Server) -> Iterator[Server]:
    """`server` answering on a thread of its own until the block ends.

    `shutdown` waits for the serving loop's next look at its flag: every `poll_interval`, 0.5 s by
    default, which every test using a fake server paid at its end.
    """
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
