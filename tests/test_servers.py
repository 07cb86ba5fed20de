"""`server:` in config.yaml: each OpenAI-compatible server gets the request fields it honours.

A loopback server records every chat-completions request body and answers like a well-behaved model
(in the form the request asked for), so each test sees the request on the wire, as the real server
would, and the pipeline's summary goes through.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from helpers import head_items, history

from summarizer import Compactor, ConfigError, SummarizerConfig
from summarizer.pipeline._prompts import parse_data_block

THRESHOLD = 100
LIST_CONTENT = [f'result {n}: a page about configuring caches, eviction and TTLs in service {n}' for n in range(12)]
TEXT_CONTENT = '\n'.join(f'{n:03d} GET /api/items/{n} 200 {n * 3}ms' for n in range(40))


class _Recorder(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(('127.0.0.1', 0), _Answer)
        self.bodies: list[dict[str, object]] = []
        self.cut = False
        """Answer as a model stopped by the output cap: `finish_reason` 'length' (JSON cut short)."""
        self.window: int | None = None
        """The context window `/props` says, as llama.cpp's server says it (None: no such route)."""
        self.pause = 0.0
        """Seconds to wait between the streamed answer's two chunks."""
        self.closed_early = threading.Event()
        """Set when a streamed answer's client went before its last chunk."""

    @property
    def base_url(self) -> str:
        return f'http://127.0.0.1:{self.server_address[1]}/v1'


class _Answer(BaseHTTPRequestHandler):
    """Answers with the first item (and a marker for the rest) or first line of the content, as text, JSON or an
    output-tool call; streamed (server-sent events) when the request asks for a stream."""

    server: _Recorder

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == '/props' and self.server.window is not None:
            self._send(json.dumps({'default_generation_settings': {'n_ctx': self.server.window}}).encode())
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        self.server.bodies.append(body)
        block = parse_data_block(body['messages'][-1]['content'])
        assert block is not None
        content = block.content
        summary = head_items(content, 1) if isinstance(content, list) else str(content).splitlines()[0]
        message: dict[str, object] = {'role': 'assistant', 'content': summary}
        if body.get('tools'):
            name = body['tools'][0]['function']['name']
            arguments = json.dumps({'summary': summary})[: -3 if self.server.cut else None]
            call = {'id': 'call_1', 'type': 'function', 'function': {'name': name, 'arguments': arguments}}
            message = {'role': 'assistant', 'content': None, 'tool_calls': [call]}
        elif isinstance(content, list):
            message['content'] = json.dumps({'summary': summary})
        finish = 'length' if self.server.cut else 'stop'
        usage = {'prompt_tokens': 10, 'completion_tokens': 5, 'total_tokens': 15}
        if body.get('stream'):
            self._stream(body, message, finish, usage)
            return
        answer = {
            'id': 'chatcmpl-1',
            'object': 'chat.completion',
            'created': 0,
            'model': body['model'],
            'choices': [{'index': 0, 'message': message, 'finish_reason': finish}],
            'usage': usage,
        }
        self._send(json.dumps(answer).encode('utf-8'))

    def _stream(self, body: dict[str, object], message: dict[str, object], finish: str, usage: object) -> None:
        """The answer as two chunks, the delta then the finish reason and usage, `pause` seconds apart."""
        delta = dict(message)
        for index, call in enumerate(delta.get('tool_calls') or []):  # type: ignore[arg-type]
            call['index'] = index  # type: ignore[index]
        chunks = [
            {'choices': [{'index': 0, 'delta': delta, 'finish_reason': None}]},
            {'choices': [{'index': 0, 'delta': {}, 'finish_reason': finish}], 'usage': usage},
        ]
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.end_headers()
        try:
            for number, chunk in enumerate(chunks):
                if number:
                    time.sleep(self.server.pause)
                    if _gone(self.connection):
                        self.server.closed_early.set()
                        return
                frame = {'id': 'chatcmpl-1', 'object': 'chat.completion.chunk', 'created': 0, 'model': body['model']}
                self.wfile.write(f'data: {json.dumps({**frame, **chunk})}\n\n'.encode())
                self.wfile.flush()
            self.wfile.write(b'data: [DONE]\n\n')
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.server.closed_early.set()

    def _send(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _gone(connection: socket.socket) -> bool:
    """Whether the client closed its end: the socket reads as at its end, at once."""
    readable, _, _ = select.select([connection], [], [], 0)
    return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b''


def _budget(body: dict[str, object]) -> int:
    """The summary's budget, as the request's prompt states it."""
    messages = body['messages']
    assert isinstance(messages, list)
    block = parse_data_block(messages[-1]['content'])  # type: ignore[index]
    assert block is not None
    return block.budget_tokens


@pytest.fixture
def recorder() -> Iterator[_Recorder]:
    server = _Recorder()
    threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


async def _request_body(recorder: _Recorder, content: object, *, server: str, output_mode: str) -> dict[str, object]:
    """Compact a history holding `content` through the recorder; the one request body it received."""
    config = SummarizerConfig().override(
        model='served-model',
        base_url=recorder.base_url,
        server=server,
        output_mode=output_mode,
        threshold_tokens=THRESHOLD,
        keep_recent=0,
    )
    result = await Compactor(config=config).compact(history(content))
    assert result.report.summarized == 1, result.report.failures
    [body] = recorder.bodies
    return body


@pytest.mark.parametrize('server', ['openai', 'vllm'])
async def test_openai_and_vllm_get_the_openai_request(recorder: _Recorder, server: str) -> None:
    body = await _request_body(recorder, LIST_CONTENT, server=server, output_mode='tool')
    assert body['max_completion_tokens'] == 2 * _budget(body) + 16 and 'max_tokens' not in body
    assert body['tool_choice'] == 'required'


@pytest.mark.parametrize('server', ['ollama', 'llama.cpp', 'llama-cpp-python'])
async def test_local_servers_are_capped_by_max_tokens(recorder: _Recorder, server: str) -> None:
    """They ignore `max_completion_tokens`: sent alone, nothing would stop a model that does not stop."""
    body = await _request_body(recorder, TEXT_CONTENT, server=server, output_mode='tool')
    assert body['max_tokens'] == 2 * _budget(body) + 16 and 'max_completion_tokens' not in body
    assert 'tools' not in body and 'response_format' not in body  # a string summary is plain text
    assert body['stream'] is True  # a request given up on closes its stream: the server stops writing it


async def test_llama_cpp_python_tool_output_names_the_tool(recorder: _Recorder) -> None:
    """The server makes a grammar only for a `tool_choice` naming the tool; it ignores `"required"`."""
    body = await _request_body(recorder, LIST_CONTENT, server='llama-cpp-python', output_mode='tool')
    assert body['tool_choice'] == {'type': 'function', 'function': {'name': 'final_summary'}}


@pytest.mark.parametrize('output_mode', ['native', 'prompted'])
async def test_llama_cpp_python_json_output_sends_the_schema_as_json_object(
    recorder: _Recorder, output_mode: str
) -> None:
    """It answers HTTP 500 to `json_schema`; `json_object` with a schema is what its grammar follows."""
    body = await _request_body(recorder, LIST_CONTENT, server='llama-cpp-python', output_mode=output_mode)
    response_format = body['response_format']
    assert isinstance(response_format, dict) and response_format['type'] == 'json_object'
    summary_schema = response_format['schema']['properties']['summary']
    assert summary_schema['type'] == 'array' and summary_schema['maxItems'] == len(LIST_CONTENT)


async def test_openai_native_output_keeps_json_schema(recorder: _Recorder) -> None:
    body = await _request_body(recorder, LIST_CONTENT, server='openai', output_mode='native')
    response_format = body['response_format']
    assert isinstance(response_format, dict) and response_format['type'] == 'json_schema'


async def test_an_answer_cut_by_the_cap_keeps_the_original_and_says_why(recorder: _Recorder) -> None:
    recorder.cut = True
    config = SummarizerConfig().override(
        model='served-model', base_url=recorder.base_url, server='llama-cpp-python', threshold_tokens=THRESHOLD
    )
    for content in (LIST_CONTENT, TEXT_CONTENT):  # a text cut at the cap is refused too, however it reads
        before = history(content, 'the newest return, kept verbatim by keep_recent')
        result = await Compactor(config=config).compact(before)
        [failure] = result.report.failures
        assert failure.reason == 'cut off at max_tokens: the answer is incomplete'
        assert result.messages == before and not result.changed


async def test_the_openai_server_is_not_streamed(recorder: _Recorder) -> None:
    body = await _request_body(recorder, TEXT_CONTENT, server='openai', output_mode='tool')
    assert not body.get('stream')


async def test_a_content_over_the_context_window_the_server_says_is_not_sent(recorder: _Recorder) -> None:
    recorder.window = 400
    config = SummarizerConfig().override(
        model='served-model', base_url=recorder.base_url, server='llama.cpp', threshold_tokens=THRESHOLD, keep_recent=0
    )
    result = await Compactor(config=config).compact(history(TEXT_CONTENT))
    [failure] = result.report.failures
    assert failure.reason.endswith("over the server's context window of 400: not sent") and not recorder.bodies
    recorder.window = 8192
    result = await Compactor(config=config).compact(history(TEXT_CONTENT))
    assert result.report.summarized == 1 and len(recorder.bodies) == 1


async def test_a_request_given_up_on_closes_its_stream(recorder: _Recorder) -> None:
    """The server sees its client go and can stop writing the answer, so the next request does not wait behind it."""
    recorder.pause = 3.0
    config = SummarizerConfig().override(
        model='served-model',
        base_url=recorder.base_url,
        server='llama-cpp-python',
        threshold_tokens=THRESHOLD,
        keep_recent=0,
        timeout_seconds=0.3,
        max_retries=0,
    )
    result = await Compactor(config=config).compact(history(TEXT_CONTENT))
    assert [failure.reason for failure in result.report.failures] == ['timed out']
    assert recorder.closed_early.wait(10)


def test_an_unknown_server_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match='server must be one of'):
        SummarizerConfig().override(server='lmstudio')
