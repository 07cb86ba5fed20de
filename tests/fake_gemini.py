"""A loopback fake of the Gemini API's `generateContent`, Files and Batch Mode that summarizes like the embedded model.

Enough of the API for pydantic-ai's own `GoogleModel` (and its batch code, through `google-genai`) to run against it
unchanged (`GOOGLE_GEMINI_BASE_URL`), in the shapes the Gemini API documents:

- `POST /v1beta/models/{model}:generateContent`: a live call, answered with a `GenerateContentResponse` (a
  `final_summary` function call, or text);
- `POST /upload/v1beta/files` (resumable: start, then `upload, finalize` at the `x-goog-upload-url` it gave): the
  batch's JSONL input file, one `{"key", "request"}` per line;
- `POST /v1beta/models/{model}:batchGenerateContent` with `{"batch": {"inputConfig": {"fileName"}}}`: an Operation
  whose `metadata` is the batch (`state` `BATCH_STATE_PENDING`);
- `GET /v1beta/batches/{id}`: the batch, ended at the first look after `hold_batches` is off, its `output.responsesFile`
  a JSONL file of `{"key", "response"}` or `{"key", "error"}` (a `google.rpc.Status`) lines;
- `GET /v1beta/files/{id}:download`, `DELETE /v1beta/files/{id}`, `POST /v1beta/batches/{id}:cancel`.

`faults` makes the requests whose content holds a marker fail, as in tests/fake_openai.py: `error` (an
`INVALID_ARGUMENT` status line), `expire` (never run: the job ends `BATCH_STATE_EXPIRED` with only the other requests'
lines, as a job that expired while it ran), `expire-once` (so, the first time only) or `bad` (an answer that fails the
checks: longer than the original).
"""

from __future__ import annotations

import itertools
import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import cast

from fake_batch_api import FakeBatchAPI, send_json, serving

from summarizer import extractive
from summarizer.pipeline._prompts import DataBlock, parse_data_block

_CREATED = '2026-11-23T18:00:00Z'


@dataclass
class _Batch:
    name: str
    model: str
    lines: list[dict[str, object]]
    state: str = 'BATCH_STATE_PENDING'
    output: str | None = None


class FakeGemini(FakeBatchAPI):
    def __init__(self) -> None:
        super().__init__(_Handler)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self._ids = itertools.count(1)

    def response(self, request: dict[str, object]) -> dict[str, object]:
        """The `GenerateContentResponse` to one summary request: a `final_summary` call, or text for a string."""
        block = _block(request)
        summary = extractive.summarize(block.content, budget_tokens=block.budget_tokens, max_items=block.max_items)
        if self.fault(block) == 'bad':
            summary = block.content + block.content if isinstance(block.content, str) else [block.content] * 3
        if request.get('tools'):
            part: dict[str, object] = {'functionCall': {'name': 'final_summary', 'args': {'summary': summary}}}
        else:
            part = {'text': summary if isinstance(summary, str) else json.dumps({'summary': summary})}
        return {
            'candidates': [{'content': {'role': 'model', 'parts': [part]}, 'finishReason': 'STOP', 'index': 0}],
            'usageMetadata': {'promptTokenCount': 100, 'candidatesTokenCount': 20, 'totalTokenCount': 120},
            'modelVersion': 'gemini-2.5-flash',
            'responseId': f'resp-{next(self._ids)}',
        }

    def store(self, data: bytes) -> str:
        name = f'files/f{next(self._ids)}'  # never reused: pydantic-ai deletes input files it is done with
        self.files[name] = data
        return name

    def create_batch(self, model: str, body: dict[str, object]) -> dict[str, object]:
        batch_config = cast('dict[str, dict[str, str]]', body['batch'])
        source = self.files[batch_config['inputConfig']['fileName']]
        lines = [json.loads(line) for line in source.splitlines() if line.strip()]
        with self.lock:
            batch = _Batch(name=f'batches/b{len(self.batches_created) + 1}', model=model, lines=lines)
            self.batches[batch.name] = batch
            self.batches_created.append(batch.name)
            for line in lines:
                self.batch_requests.append(json.dumps(_block(cast('dict[str, object]', line['request'])).content))
            return self.operation(batch)

    def operation(self, batch: _Batch, *, cancel: bool = False) -> dict[str, object]:
        """The batch as the API describes it (an Operation); run at the first look after `hold_batches` is off."""
        ended = batch.state not in ('BATCH_STATE_PENDING', 'BATCH_STATE_RUNNING')
        if cancel and not ended:
            batch.state = 'BATCH_STATE_CANCELLED'
        elif not ended and not self.hold_batches:
            self._run(batch)
        metadata: dict[str, object] = {
            '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch',
            'model': batch.model,
            'displayName': 'pydantic-ai-batch',
            'state': batch.state,
            'createTime': _CREATED,
        }
        if batch.output is not None:
            metadata['output'] = {'responsesFile': batch.output}
        return {'name': batch.name, 'metadata': metadata, 'done': batch.state != 'BATCH_STATE_PENDING'}

    def _run(self, batch: _Batch) -> None:
        output: list[str] = []
        expired = False
        for line in batch.lines:
            request = cast('dict[str, object]', line['request'])
            block = _block(request)
            fault = self.batch_fault(block)
            if fault == 'expire':
                expired = True  # left out of the results: the job expires before it runs this one
            elif fault == 'error':
                output.append(json.dumps({'key': line['key'], 'error': {'code': 3, 'message': 'invalid request'}}))
            else:
                output.append(json.dumps({'key': line['key'], 'response': self.response(request)}))
        batch.state = 'BATCH_STATE_EXPIRED' if expired else 'BATCH_STATE_SUCCEEDED'
        if output:
            batch.output = self.store('\n'.join(output).encode())


def _block(request: dict[str, object]) -> DataBlock:
    """The summary request's data block: in the last user content of a `generateContent` request."""
    contents = cast('list[dict[str, object]]', request['contents'])
    for content in reversed(contents):
        if content.get('role') == 'user':
            parts = cast('list[dict[str, object]]', content['parts'])
            block = parse_data_block(''.join(str(part.get('text', '')) for part in parts))
            assert block is not None
            return block
    raise AssertionError('no user content in the request')


class _Handler(BaseHTTPRequestHandler):
    server: FakeGemini  # pyright: ignore[reportIncompatibleVariableOverride]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        path = self.path.split('?', 1)[0]
        data = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        if path.endswith(':generateContent'):
            body = json.loads(data)
            with self.server.lock:
                self.server.answered.append(json.dumps(_block(body).content))
            self._send(self.server.response(body))
            return
        self.server.paths.append(f'POST {path}')
        if path == '/upload/v1beta/files' and self.headers.get('X-Goog-Upload-Command') == 'start':
            url = f'{self.server.base_url}/upload/v1beta/files?upload_id={len(self.server.files)}'
            self._send({}, headers={'x-goog-upload-url': url, 'x-goog-upload-status': 'active'})
        elif path == '/upload/v1beta/files':
            with self.server.lock:
                name = self.server.store(data)
            file = {'name': name, 'mimeType': 'application/jsonl', 'sizeBytes': str(len(data)), 'state': 'ACTIVE'}
            self._send({'file': file}, headers={'x-goog-upload-status': 'final'})
        elif path.endswith(':batchGenerateContent'):
            model = path.removeprefix('/v1beta/').removesuffix(':batchGenerateContent')
            self._send(self.server.create_batch(model, json.loads(data)))
        elif path.endswith(':cancel'):
            with self.server.lock:
                batch = self.server.batches[path.removeprefix('/v1beta/').removesuffix(':cancel')]
                self._send(self.server.operation(batch, cancel=True))
        else:
            self._send({'error': {'code': 404, 'message': path, 'status': 'NOT_FOUND'}}, status=404)

    def do_GET(self) -> None:
        path = self.path.split('?', 1)[0]
        self.server.paths.append(f'GET {path}')
        name = path.split('/v1beta/', 1)[-1]
        if (
            name.startswith('files/')
            and name.endswith(':download')
            and name.removesuffix(':download') in self.server.files
        ):
            data = self.server.files[name.removesuffix(':download')]
            self.send_response(200)
            self.send_header('Content-Type', 'application/octet-stream')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif name in self.server.batches:
            with self.server.lock:
                self._send(self.server.operation(self.server.batches[name]))
        else:
            self._send({'error': {'code': 404, 'message': path, 'status': 'NOT_FOUND'}}, status=404)

    def do_DELETE(self) -> None:
        path = self.path.split('?', 1)[0]
        self.server.paths.append(f'DELETE {path}')
        self.server.files.pop(path.split('/v1beta/', 1)[-1], None)
        self._send({})

    def _send(self, payload: dict[str, object], *, status: int = 200, headers: dict[str, str] | None = None) -> None:
        send_json(self, payload, status=status, headers=headers)


def fake_gemini() -> AbstractContextManager[FakeGemini]:
    return serving(FakeGemini())
