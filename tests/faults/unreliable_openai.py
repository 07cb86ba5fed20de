"""An unreliable OpenAI-compatible chat-completions server on 127.0.0.1, for fault-injection tests.

Healthy answers are real summaries (the embedded extractive summarizer applied to the prompt's data
block), returned the way the request asked: a call to the requested output tool, JSON text for a
`response_format`, or plain text. At configurable rates it fails instead, in each way a provider or
the network can. Which fault a request gets depends only on the seed, the content it asks about and
how often that content was asked before, never on the order in which concurrent requests arrive, so
a run is reproducible. Every request is logged (arrival time, content, fault) for the assertions.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

from summarizer.core._shape import JsonValue
from summarizer.extractive import summarize
from summarizer.pipeline._prompts import DataBlock, parse_data_block

Fault = Literal[
    'rate_limit', 'server_error', 'unavailable', 'hang', 'drop', 'truncated', 'invalid_json', 'wrong_shape', 'too_long'
]
FAULTS: tuple[Fault, ...] = (
    'rate_limit',
    'server_error',
    'unavailable',
    'hang',
    'drop',
    'truncated',
    'invalid_json',
    'wrong_shape',
    'too_long',
)
RETRY_AFTER_SECONDS = 1


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    arrived: float
    """`time.monotonic()` on arrival."""
    content_key: str
    """Hash of the data block's content: which tool return the request is about."""
    attempt: int
    """How many requests about the same content came before this one."""
    fault: Fault | None


@dataclass
class FakeOpenAI:
    """The server's behaviour and log; `serve()` runs it in a thread."""

    fault_rate: float = 0.0
    """Share of requests that fail, the kind drawn uniformly from `faults`."""
    faults: tuple[Fault, ...] = FAULTS
    seed: int = 0
    hang_seconds: float = 5.0
    """How long a hanging request stalls: longer than the client's timeout."""
    requests: list[Request] = field(default_factory=list[Request])
    prompts: list[str] = field(default_factory=list[str])
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Run on a free port of 127.0.0.1; yields the base URL (`.../v1`)."""
        server = ThreadingHTTPServer(('127.0.0.1', 0), _handler(self))
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.02}, daemon=True)
        thread.start()
        try:
            yield f'http://127.0.0.1:{server.server_address[1]}/v1'
        finally:
            self._closing.set()  # wakes hanging handlers
            server.shutdown()
            server.server_close()
            thread.join()

    def by_content(self) -> dict[str, list[Request]]:
        grouped: dict[str, list[Request]] = {}
        for request in self.requests:
            grouped.setdefault(request.content_key, []).append(request)
        return grouped

    def _admit(self, block: DataBlock | None, prompt: str) -> Request:
        key = content_key(block.content if block else None)
        with self._lock:
            attempt = sum(1 for request in self.requests if request.content_key == key)
            draw = random.Random(f'{self.seed}:{key}:{attempt}')
            fault = draw.choice(self.faults) if draw.random() < self.fault_rate else None
            request = Request(arrived=time.monotonic(), content_key=key, attempt=attempt, fault=fault)
            self.requests.append(request)
            self.prompts.append(prompt)
        return request


def content_key(content: JsonValue) -> str:
    """The key the server files a request about `content` under."""
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'

        def log_message(self, format: str, *args: object) -> None:
            """Silent: test output stays readable."""

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get('content-length', 0))))
            prompt = _user_prompt(body)
            block = parse_data_block(prompt)
            request = state._admit(block, prompt)
            if request.fault == 'drop':
                self.close_connection = True
                self.connection.shutdown(2)  # no status line: the client sees the connection end
                return
            if request.fault == 'hang':
                state._closing.wait(state.hang_seconds)
                self.close_connection = True
                return
            status, headers, payload = _answer(request.fault, body, block)
            self.send_response(status)
            for name, value in {'content-type': 'application/json', **headers}.items():
                self.send_header(name, value)
            self.send_header('content-length', str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _answer(
    fault: Fault | None, body: Mapping[str, object], block: DataBlock | None
) -> tuple[int, dict[str, str], bytes]:
    if fault == 'rate_limit':
        return 429, {'retry-after': str(RETRY_AFTER_SECONDS)}, _error('rate limited', 'rate_limit_exceeded')
    if fault == 'server_error':
        return 500, {}, _error('internal error', 'server_error')
    if fault == 'unavailable':
        return 503, {}, _error('overloaded, try later', 'service_unavailable')
    if fault == 'invalid_json':
        return 200, {}, b'<html>upstream proxy error</html>'
    if block is None:
        return 400, {}, _error('no <tool_content> block in the prompt', 'invalid_request_error')
    if fault == 'wrong_shape':
        return 200, {}, json.dumps({'id': 'x', 'object': 'chat.completion', 'result': 'ok'}).encode()
    summary = (
        _too_long(block.content)
        if fault == 'too_long'
        else summarize(block.content, budget_tokens=block.budget_tokens, max_items=block.max_items)
    )
    payload = json.dumps(_completion(body, block, summary)).encode()
    if fault == 'truncated':
        payload = payload[: len(payload) // 2]
    return 200, {}, payload


def _too_long(content: JsonValue) -> JsonValue:
    """A same-shape answer longer than the original: the post-check must refuse it."""
    if isinstance(content, str):
        return content + content
    if isinstance(content, dict):
        return {key: _too_long(value) for key, value in content.items()}
    if isinstance(content, list):
        return [_too_long(item) for item in content]
    return content


def _completion(body: Mapping[str, object], block: DataBlock, summary: JsonValue) -> dict[str, object]:
    tools = body.get('tools')
    message: dict[str, object] = {'role': 'assistant', 'content': None}
    if isinstance(tools, list) and tools:
        name = tools[0]['function']['name']
        arguments = json.dumps({'summary': summary})
        message['tool_calls'] = [
            {'id': 'call_1', 'type': 'function', 'function': {'name': name, 'arguments': arguments}}
        ]
        finish = 'tool_calls'
    else:
        plain = block.shape == 'string' and 'response_format' not in body
        message['content'] = summary if plain and isinstance(summary, str) else json.dumps({'summary': summary})
        finish = 'stop'
    return {
        'id': 'chatcmpl-fake',
        'object': 'chat.completion',
        'created': 0,
        'model': str(body.get('model')),
        'choices': [{'index': 0, 'message': message, 'finish_reason': finish}],
        'usage': {'prompt_tokens': 100, 'completion_tokens': 20, 'total_tokens': 120},
    }


def _error(message: str, code: str) -> bytes:
    return json.dumps({'error': {'message': message, 'type': code, 'code': code}}).encode()


def _user_prompt(body: Mapping[str, object]) -> str:
    messages = body.get('messages')
    if not isinstance(messages, list):
        return ''
    for message in reversed(messages):
        if message.get('role') == 'user':
            content = message.get('content')
            if isinstance(content, list):
                return ''.join(part.get('text', '') for part in content if isinstance(part, dict))
            return str(content)
    return ''
