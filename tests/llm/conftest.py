"""A real local LLM for tests: the shipped model (Gemma 3 270M, Q4_K_M GGUF) as `summarizer serve` runs it.

Everything comes from PyPI (the `llm` extra); nothing is fetched from a model hub. The `llama_server`
fixture (session scope) starts `summarizer serve` on a free loopback port through the package's own
`running_server`, the code a user's `summarizer serve` runs, and yields its base URL, e.g.
``http://127.0.0.1:41234/v1``. Without the extra the tests skip and name what is missing; with `CI` set
they fail instead, since `.ci/run` installs the extra and a skip there would hide a broken build.
FINDINGS.md beside this file has the measurements behind the server's settings.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from summarizer.core import install_hint
from summarizer.pipeline.local_server import MODEL_ALIAS, ServerError, missing_modules, running_server

CONTEXT = int(os.environ.get('TRS_LLAMA_N_CTX', '8192'))
"""The server's context window, in the model's tokens."""


@pytest.fixture(scope='session')
def llama_model() -> str:
    """The name to send as `model` (the server's alias for the GGUF)."""
    return MODEL_ALIAS


@pytest.fixture(scope='session')
def llama_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's log (llama.cpp's load messages and per-request timings), in the session's tmp dir."""
    return tmp_path_factory.mktemp('llama_server') / 'server.log'


@pytest.fixture(scope='session')
def llama_server(llama_log: Path) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT/v1``) of a running `summarizer serve`."""
    missing = missing_modules()
    if missing:
        message = f'local LLM not installed: missing {", ".join(missing)}; {install_hint("llm")}'
        if os.environ.get('CI'):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    try:
        with running_server(llama_log, context=CONTEXT) as base_url:
            yield base_url
    except ServerError as exc:
        pytest.fail(str(exc), pytrace=False)
