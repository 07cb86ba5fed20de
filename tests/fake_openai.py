"""A loopback OpenAI-compatible server that summarizes like the embedded model and counts its answers.

Tests use it where they need to see every model call from outside the process under test (a
subprocess that gets killed): it records the content of each request it answered, and can be gated
to answer only `limit` requests, holding the rest until `open_gate()`, and slowed by `delay` seconds
per answer (so that a kill can land between requests).

It also speaks enough of OpenAI's Responses and Batch APIs (`/v1/responses`, `/v1/files`, `/v1/batches`)
for pydantic-ai's own `OpenAIResponsesModel` batch code to run against it unchanged (`OPENAI_BASE_URL`):
it counts the batches created, holds them `in_progress` while `hold_batches` is set, and `faults` makes
the requests whose content holds a marker fail: `error` (a 400 result), `expire` (never run, every time),
`expire-once` (not run the first time, answered when submitted again) or `bad` (an answer that fails the
checks: longer than the original).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import cast

from fake_batch_api import FakeBatchAPI, send_json, serving

from summarizer import extractive
from summarizer.pipeline._prompts import DataBlock, parse_data_block

_BATCH_PATH = re.compile(r'^/v1/batches/([^/]+)(/cancel)?$')
_FILE_PATH = re.compile(r'^/v1/files/([^/]+)(/content)?$')


@dataclass
class _Batch:
    id: str
    input_file_id: str
    lines: list[dict[str, object]]
    status: str = 'in_progress'
    output_file_id: str | None = None
    error_file_id: str | None = None


class FakeOpenAI(FakeBatchAPI):
    def __init__(self) -> None:
        super().__init__(_Handler)
        self.summaries: dict[str, str] = {}
        """Content -> the summary text answered for it."""
        self.delay = 0.0
        self.limit: int | None = None
        self.generation = 0
        self.gate = threading.Condition(self.lock)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self._file_ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f'{super().base_url}/v1'

    def shutdown(self) -> None:
        self.open_gate()  # requests held at the gate are answered (with a 503), so serving can stop
        super().shutdown()

    def handle_error(self, request: object, client_address: object) -> None:
        """Quiet: a client killed mid-request (the point of these tests) breaks the pipe of its answer."""

    def open_gate(self) -> None:
        """Answer everything from now on; requests held so far get a 503 (their client is gone)."""
        with self.gate:
            self.limit = None
            self.generation += 1
            self.gate.notify_all()

    # -- Responses and Batch APIs ------------------------------------------------------------------

    def respond(self, body: dict[str, object]) -> dict[str, object]:
        """A Responses API answer to a summary request: a `final_summary` call, or text for a string."""
        block = _block(body)
        summary = extractive.summarize(block.content, budget_tokens=block.budget_tokens, max_items=block.max_items)
        if self.fault(block) == 'bad':
            summary = block.content + block.content if isinstance(block.content, str) else [block.content] * 3
        if body.get('tools'):
            item: dict[str, object] = {
                'type': 'function_call',
                'id': 'fc_1',
                'call_id': 'call_1',
                'name': 'final_summary',
                'arguments': json.dumps({'summary': summary}),
                'status': 'completed',
            }
        else:
            text = summary if isinstance(summary, str) else json.dumps({'summary': summary})
            item = {
                'type': 'message',
                'id': 'msg_1',
                'role': 'assistant',
                'status': 'completed',
                'content': [{'type': 'output_text', 'text': text, 'annotations': []}],
            }
        return {
            'id': 'resp_1',
            'object': 'response',
            'created_at': 0,
            'model': str(body.get('model')),
            'status': 'completed',
            'output': [item],
            'parallel_tool_calls': True,
            'tool_choice': 'auto',
            'tools': [],
            'usage': {
                'input_tokens': 100,
                'output_tokens': 20,
                'total_tokens': 120,
                'input_tokens_details': {'cached_tokens': 0},
                'output_tokens_details': {'reasoning_tokens': 0},
            },
        }

    def upload(self, data: bytes) -> dict[str, object]:
        with self.lock:
            file_id = self._store(data)
        return {
            'id': file_id,
            'object': 'file',
            'bytes': len(data),
            'created_at': 0,
            'filename': 'batch.jsonl',
            'purpose': 'batch',
            'status': 'processed',
        }

    def create_batch(self, input_file_id: str) -> dict[str, object]:
        lines = [json.loads(line) for line in self.files[input_file_id].splitlines() if line.strip()]
        with self.lock:
            batch = _Batch(id=f'batch_{len(self.batches_created) + 1}', input_file_id=input_file_id, lines=lines)
            self.batches[batch.id] = batch
            self.batches_created.append(batch.id)
            for line in lines:
                body = line['body']
                assert isinstance(body, dict)
                self.batch_requests.append(json.dumps(_block(body).content))  # pyright: ignore[reportUnknownArgumentType]
            return self.batch_json(batch)

    def batch_json(self, batch: _Batch, *, cancel: bool = False) -> dict[str, object]:
        """The batch as OpenAI describes it; run (all at once) at the first look after `hold_batches` is off."""
        if cancel and batch.status == 'in_progress':
            batch.status = 'cancelled'
        elif batch.status == 'in_progress' and not self.hold_batches:
            self._run(batch)
        return {
            'id': batch.id,
            'object': 'batch',
            'endpoint': '/v1/responses',
            'input_file_id': batch.input_file_id,
            'completion_window': '24h',
            'status': batch.status,
            'output_file_id': batch.output_file_id,
            'error_file_id': batch.error_file_id,
            'created_at': 0,
            'request_counts': {'total': len(batch.lines), 'completed': 0, 'failed': 0},
        }

    def _run(self, batch: _Batch) -> None:
        output: list[str] = []
        errors: list[str] = []
        for line in batch.lines:
            body = line['body']
            assert isinstance(body, dict)
            block = _block(body)  # pyright: ignore[reportUnknownArgumentType]
            fault = self.batch_fault(block)
            custom_id = line['custom_id']
            if fault == 'expire':
                error = {
                    'code': 'batch_expired',
                    'message': 'This request could not be executed before the completion window expired.',
                }
                errors.append(json.dumps({'id': 'r', 'custom_id': custom_id, 'response': None, 'error': error}))
            elif fault == 'error':
                response = {
                    'status_code': 400,
                    'request_id': 'r',
                    'body': {'error': {'message': 'invalid request', 'type': 'invalid_request_error', 'code': None}},
                }
                errors.append(json.dumps({'id': 'r', 'custom_id': custom_id, 'response': response, 'error': None}))
            else:
                response = {'status_code': 200, 'request_id': 'r', 'body': self.respond(body)}  # pyright: ignore[reportUnknownArgumentType]
                output.append(json.dumps({'id': 'r', 'custom_id': custom_id, 'response': response, 'error': None}))
        if output:
            batch.output_file_id = self._store('\n'.join(output).encode())
        if errors:
            batch.error_file_id = self._store('\n'.join(errors).encode())
        batch.status = 'completed'

    def _store(self, data: bytes) -> str:
        file_id = f'file-{next(self._file_ids)}'  # never reused: pydantic-ai deletes input files it is done with
        self.files[file_id] = data
        return file_id


def _block(body: dict[str, object]) -> DataBlock:
    """The summary request's data block: in the last user item of a Responses request's `input`."""
    items = cast('list[dict[str, object]]', body['input'])  # the Responses API's input items, as JSON
    for item in reversed(items):
        if item.get('role') == 'user':
            content = cast('str | list[dict[str, object]]', item['content'])
            text = content if isinstance(content, str) else ''.join(str(part.get('text', '')) for part in content)
            block = parse_data_block(text)
            assert block is not None
            return block
    raise AssertionError('no user item in the request')


def _multipart_file(content_type: str, data: bytes) -> bytes:
    """The `file` field of a multipart/form-data upload."""
    boundary = content_type.split('boundary=', 1)[1].strip('"').encode()
    for part in data.split(b'--' + boundary):
        head, _, rest = part.partition(b'\r\n\r\n')
        if b'name="file"' in head:
            return rest.removesuffix(b'\r\n')
    raise AssertionError('no file in the upload')


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, format: str, *args: object) -> None:
        pass

    def parse_request(self) -> bool:
        parsed = super().parse_request()
        if parsed and self.path.startswith(('/v1/files', '/v1/batches')):
            self.server.paths.append(f'{self.command} {self.path}')
        return parsed

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers['Content-Length']))
        if self.path == '/v1/responses':
            self._send(200, self.server.respond(json.loads(data)))
        elif self.path == '/v1/files':
            self._send(200, self.server.upload(_multipart_file(self.headers['Content-Type'], data)))
        elif self.path == '/v1/batches':
            self._send(200, self.server.create_batch(str(json.loads(data)['input_file_id'])))
        elif (found := _BATCH_PATH.match(self.path)) and found.group(2):
            self._send(200, self.server.batch_json(self.server.batches[found.group(1)], cancel=True))
        else:
            self._chat(json.loads(data))

    def do_GET(self) -> None:
        if found := _BATCH_PATH.match(self.path):
            with self.server.lock:
                self._send(200, self.server.batch_json(self.server.batches[found.group(1)]))
        elif (found := _FILE_PATH.match(self.path)) and found.group(2):
            data = self.server.files[found.group(1)]
            self.send_response(200)
            self.send_header('Content-Type', 'application/octet-stream')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self._send(404, {'error': {'message': f'no route {self.path}'}})

    def do_DELETE(self) -> None:
        if found := _FILE_PATH.match(self.path):
            self.server.files.pop(found.group(1), None)
            self._send(200, {'id': found.group(1), 'object': 'file', 'deleted': True})
        else:
            self._send(404, {'error': {'message': f'no route {self.path}'}})

    def _chat(self, body: dict[str, object]) -> None:
        messages = body['messages']
        assert isinstance(messages, list)
        block = parse_data_block(str(messages[-1]['content']))  # pyright: ignore[reportUnknownArgumentType]
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
        assert isinstance(summary, str)
        server.summaries[block.content] = summary
        time.sleep(server.delay)
        self._send(
            200,
            {
                'id': 'chatcmpl-1',
                'object': 'chat.completion',
                'created': 0,
                'model': str(body['model']),
                'choices': [
                    {'index': 0, 'message': {'role': 'assistant', 'content': summary}, 'finish_reason': 'stop'}
                ],
                'usage': {'prompt_tokens': 10, 'completion_tokens': 5, 'total_tokens': 15},
            },
        )

    def _send(self, status: int, payload: dict[str, object]) -> None:
        send_json(self, payload, status=status)


def fake_openai() -> AbstractContextManager[FakeOpenAI]:
    return serving(FakeOpenAI())
