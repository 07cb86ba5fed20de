"""`summarizer serve`: run the shipped local model (Gemma 3 270M, the `llm` extra) as an OpenAI-compatible server."""

from __future__ import annotations

import argparse

from ..core import install_hint
from ._common import InputError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add `serve` to the command's subcommands."""
    parser = commands.add_parser(
        'serve',
        help='run the shipped local model (Gemma 3 270M) as a server the summarizer can use',
        description='Serve Gemma 3 270M (the llm extra) with llama-cpp-python at http://HOST:PORT/v1 until '
        'stopped (Ctrl-C), and print the config.yaml keys that point the summarizer at it '
        '(see docs/local-models.md).',
    )
    parser.add_argument('--host', default='127.0.0.1', help='the address to listen on (default: 127.0.0.1)')
    parser.add_argument('--port', type=int, default=8080, help='the port to listen on (default: 8080)')
    parser.add_argument(
        '--context', type=int, default=8192, help="the context window in the model's tokens (default: 8192)"
    )
    parser.add_argument('--threads', type=int, default=2, help='CPU threads (default: 2)')
    parser.set_defaults(run=run)


def run(arguments: argparse.Namespace) -> int:
    """Serve until stopped; 0 when stopped, 2 when the llm extra is not installed."""
    from ..pipeline.local_server import DEFAULT_CONTEXT, ServeOptions, missing_modules, serve

    missing = missing_modules()
    if missing:
        raise InputError(f'the local model needs the llm extra ({", ".join(missing)} missing): {install_hint("llm")}')
    serve(
        ServeOptions(
            host=arguments.host,
            port=arguments.port,
            context=arguments.context or DEFAULT_CONTEXT,
            threads=arguments.threads,
            verbose=bool(arguments.verbose + arguments.verbose_after),  # -v: llama.cpp's loading log too
        )
    )
    return 0
