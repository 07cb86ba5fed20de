"""A loopback fake of Anthropic's Messages and Message Batches APIs that summarizes like the embedded model.

Enough of the API for pydantic-ai's own `AnthropicModel` (and its batch code) to run against it unchanged
(`ANTHROPIC_BASE_URL`), in the shapes Anthropic documents:

- `POST /v1/messages`: a live call, answered with a Message (a `final_summary` tool use, or text);
- `POST /v1/messages/batches`: `{"requests": [{"custom_id", "params"}]}` -> a `message_batch` in progress;
- `GET /v1/messages/batches/{id}`: the batch, `ended` with a `results_url` at the first look after
  `hold_batches` is off;
- `GET /v1/messages/batches/{id}/results`: JSONL, one `{"custom_id", "result"}` per request, the result
  `succeeded` (with its `message`), `errored` (with the error body) or `expired`;
- `POST /v1/messages/batches/{id}/cancel`.

`faults` makes the requests whose content holds a marker fail, as in tests/fake_openai.py: `error` (an
`invalid_request_error` result), `expire` (never run), `expire-once` (not run the first time) or `bad` (an
answer that fails the checks: longer than the original).
"""

from __future__ import annotations

import itertools
import json
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import cast

from fake_batch_api import FakeBatchAPI, send_json, serving

from summarizer import extractive
from summarizer.pipeline._prompts import DataBlock, parse_data_block

_CREATED = '2026-11-23T18:00:00Z'
_USAGE = {'input_tokens': 100, 'output_tokens': 20}


@dataclass
class _Batch:
    id: str
    requests: list[dict[str, object]]
    ended: bool = False
    cancelled: bool = False
    results: list[dict[str, object]] = field(default_factory=list[dict[str, object]])


class FakeAnthropic(FakeBatchAPI):
    def __init__(self) -> None:
        super().__init__(_Handler)
        self.batches: dict[str, _Batch] = {}
        self._ids = itertools.count(1)

    def message(self, params: dict[str, object]) -> dict[str, object]:
        """The Message answering one summary request: a `final_summary` tool use, or text for a string."""
        block = _block(params)
        summary = extractive.summarize(block.content, budget_tokens=block.budget_tokens, max_items=block.max_items)
        if self.fault(block) == 'bad':
            summary = block.content + block.content if isinstance(block.content, str) else [block.content] * 3
        if params.get('tools'):
            content: dict[str, object] = {
                'type': 'tool_use',
                'id': f'toolu_{next(self._ids)}',
                'name': 'final_summary',
                'input': {'summary': summary},
            }
            stop_reason = 'tool_use'
        else:
            text = summary if isinstance(summary, str) else json.dumps({'summary': summary})
            content = {'type': 'text', 'text': text}
            stop_reason = 'end_turn'
        return {
            'id': f'msg_{next(self._ids)}',
            'type': 'message',
            'role': 'assistant',
            'model': str(params.get('model')),
            'content': [content],
            'stop_reason': stop_reason,
            'stop_sequence': None,
            'usage': _USAGE,
        }

    def create_batch(self, body: dict[str, object]) -> dict[str, object]:
        requests = cast('list[dict[str, object]]', body['requests'])
        with self.lock:
            batch = _Batch(id=f'msgbatch_{len(self.batches_created) + 1:04d}', requests=requests)
            self.batches[batch.id] = batch
            self.batches_created.append(batch.id)
            for request in requests:
                self.batch_requests.append(json.dumps(_block(cast('dict[str, object]', request['params'])).content))
            return self.batch_json(batch)

    def batch_json(self, batch: _Batch, *, cancel: bool = False) -> dict[str, object]:
        """The batch as Anthropic describes it; run (all at once) at the first look after `hold_batches` is off."""
        if cancel and not batch.ended:
            batch.cancelled = batch.ended = True
            batch.results = [{'custom_id': r['custom_id'], 'result': {'type': 'canceled'}} for r in batch.requests]
        elif not batch.ended and not self.hold_batches:
            self._run(batch)
        kinds = [cast('dict[str, str]', result['result'])['type'] for result in batch.results]
        counts = {kind: kinds.count(kind) for kind in ('succeeded', 'errored', 'canceled', 'expired')}
        return {
            'id': batch.id,
            'type': 'message_batch',
            'processing_status': 'ended' if batch.ended else 'in_progress',
            'request_counts': {'processing': 0 if batch.ended else len(batch.requests), **counts},
            'created_at': _CREATED,
            'expires_at': '2026-11-24T18:00:00Z',
            'ended_at': _CREATED if batch.ended else None,
            'archived_at': None,
            'cancel_initiated_at': _CREATED if batch.cancelled else None,
            'results_url': f'{self.base_url}/v1/messages/batches/{batch.id}/results' if batch.ended else None,
        }

    def _run(self, batch: _Batch) -> None:
        for request in batch.requests:
            params = cast('dict[str, object]', request['params'])
            block = _block(params)
            fault = self.batch_fault(block)
            if fault == 'expire':
                result: dict[str, object] = {'type': 'expired'}
            elif fault == 'error':
                error = {'type': 'invalid_request_error', 'message': 'invalid request'}
                result = {'type': 'errored', 'error': {'type': 'error', 'error': error}}
            else:
                result = {'type': 'succeeded', 'message': self.message(params)}
            batch.results.append({'custom_id': request['custom_id'], 'result': result})
        batch.ended = True


def _block(params: dict[str, object]) -> DataBlock:
    """The summary request's data block: in the last user message of a Messages request."""
    messages = cast('list[dict[str, object]]', params['messages'])
    for message in reversed(messages):
        if message.get('role') == 'user':
            content = cast('str | list[dict[str, object]]', message['content'])
            text = content if isinstance(content, str) else ''.join(str(part.get('text', '')) for part in content)
            block = parse_data_block(text)
            assert block is not None
            return block
    raise AssertionError('no user message in the request')


class _Handler(BaseHTTPRequestHandler):
    server: FakeAnthropic  # pyright: ignore[reportIncompatibleVariableOverride]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        path = self.path.split('?', 1)[0]
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        if path == '/v1/messages':
            with self.server.lock:
                self.server.answered.append(json.dumps(_block(body).content))
            self._send(self.server.message(body))
            return
        self.server.paths.append(f'POST {path}')
        if path == '/v1/messages/batches':
            self._send(self.server.create_batch(body))
        elif path.startswith('/v1/messages/batches/') and path.endswith('/cancel'):
            with self.server.lock:
                batch = self.server.batches[path.split('/')[4]]
                self._send(self.server.batch_json(batch, cancel=True))
        else:
            self._send({'type': 'error', 'error': {'type': 'not_found_error', 'message': path}}, status=404)

    def do_GET(self) -> None:
        path = self.path.split('?', 1)[0]
        self.server.paths.append(f'GET {path}')
        parts = path.split('/')  # '', 'v1', 'messages', 'batches', id[, 'results']
        batch = self.server.batches.get(parts[4]) if len(parts) >= 5 else None
        if batch is None:
            self._send({'type': 'error', 'error': {'type': 'not_found_error', 'message': path}}, status=404)
        elif len(parts) == 6 and parts[5] == 'results':
            data = '\n'.join(json.dumps(result) for result in batch.results).encode()
            self.send_response(200)
            self.send_header('Content-Type', 'application/binary')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            with self.server.lock:
                self._send(self.server.batch_json(batch))

    def _send(self, payload: dict[str, object], *, status: int = 200) -> None:
        send_json(self, payload, status=status)


def fake_anthropic() -> AbstractContextManager[FakeAnthropic]:
    return serving(FakeAnthropic())
