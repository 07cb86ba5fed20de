"""A loopback OpenAI-compatible chat server that summarizes like the embedded model and counts its answers.

Tests use it where they need to see every model call from outside the process under test (a
subprocess that gets killed): it records the content of each request it answered, and can be gated
to answer only `limit` requests, holding the rest until `open_gate()`, and slowed by `delay` seconds
per answer (so that a kill can land between requests).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from summarizer import extractive
from summarizer._prompts import parse_data_block


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(('127.0.0.1', 0), _Handler)
        self.answered: list[str] = []
        self.summaries: dict[str, str] = {}
        """Content -> the summary text answered for it."""
        self.delay = 0.0
        self.limit: int | None = None
        self.generation = 0
        self.lock = threading.Lock()
        self.gate = threading.Condition(self.lock)

    @property
    def base_url(self) -> str:
        return f'http://127.0.0.1:{self.server_address[1]}/v1'

    def handle_error(self, request: object, client_address: object) -> None:
        """Quiet: a client killed mid-request (the point of these tests) breaks the pipe of its answer."""

    def open_gate(self) -> None:
        """Answer everything from now on; requests held so far get a 503 (their client is gone)."""
        with self.gate:
            self.limit = None
            self.generation += 1
            self.gate.notify_all()


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        block = parse_data_block(body['messages'][-1]['content'])
        assert block is not None and isinstance(block.content, str)
        server = self.server
        with server.gate:
            generation = server.generation
            while server.limit is not None and len(server.answered) >= server.limit and server.generation == generation:
                server.gate.wait(timeout=1)
            if server.generation != generation:
                self._send(503, {'error': {'message': 'held'}})
                return
            server.answered.append(block.content)
        summary = extractive.summarize(block.content, budget_tokens=block.budget_tokens, max_items=block.max_items)
        server.summaries[block.content] = summary
        time.sleep(server.delay)
        self._send(
            200,
            {
                'id': 'chatcmpl-1',
                'object': 'chat.completion',
                'created': 0,
                'model': body['model'],
                'choices': [
                    {'index': 0, 'message': {'role': 'assistant', 'content': summary}, 'finish_reason': 'stop'}
                ],
                'usage': {'prompt_tokens': 10, 'completion_tokens': 5, 'total_tokens': 15},
            },
        )

    def _send(self, status: int, payload: dict[str, object]) -> None:
        data = json.dumps(payload).encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.open_gate()
        server.shutdown()
        server.server_close()
