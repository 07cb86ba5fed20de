"""Probe: which pydantic-ai output modes give schema-constrained JSON from llama-cpp-python's server.

Standalone (not collected by pytest). Starts its own server (`summarizer serve`, through
`summarizer.pipeline.local_server.running_server`) unless --base-url points at a running one:

    python tests/llm/probe_llama.py                       # starts and stops a server itself
    python tests/llm/probe_llama.py --base-url http://127.0.0.1:8000/v1

For each schema (a list summary and a nested object) it runs one Agent per output-mode variant and
prints whether the output matched the schema, with the time taken. Findings: FINDINGS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI
from pydantic_ai import Agent, NativeOutput, PromptedOutput, StructuredDict, ToolOutput
from pydantic_ai.exceptions import AgentRunError
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles import merge_profile
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings, ToolOrOutput

from summarizer.pipeline.local_server import MODEL_ALIAS, running_server

LIST_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'title': 'ListSummary',
    'properties': {'summary': {'type': 'array', 'items': {'type': 'string'}, 'maxItems': 3}},
    'required': ['summary'],
    'additionalProperties': False,
}

OBJECT_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'title': 'ObjectSummary',
    'properties': {
        'service': {'type': 'string'},
        'status': {'type': 'string', 'enum': ['ok', 'degraded', 'down']},
        'counts': {
            'type': 'object',
            'properties': {'ok': {'type': 'integer'}, 'down': {'type': 'integer'}},
            'required': ['ok', 'down'],
            'additionalProperties': False,
        },
        'notes': {'type': 'array', 'items': {'type': 'string'}, 'maxItems': 2},
    },
    'required': ['service', 'status', 'counts', 'notes'],
    'additionalProperties': False,
}

TOOL_RETURN = json.dumps(
    {
        'service': 'billing-api',
        'checks': [
            {'region': r, 'status': s, 'latency_ms': ms}
            for r, s, ms in [
                ('eu-west', 'ok', 41),
                ('us-east', 'down', 0),
                ('ap-south', 'ok', 230),
                ('us-west', 'ok', 77),
            ]
        ],
        'incident': 'us-east load balancer lost its target group at 03:12 UTC',
    }
)
INSTRUCTIONS = 'You summarize tool results. Keep names and numbers exact. Answer only with the JSON requested.'


def matches(schema: dict[str, Any], value: Any) -> bool:
    """Just enough JSON Schema for the two schemas above (type, properties, required, enum, items, maxItems)."""
    t = schema.get('type')
    if t == 'object':
        if not isinstance(value, dict):
            return False
        props = schema.get('properties', {})
        if any(k not in value for k in schema.get('required', [])):
            return False
        if schema.get('additionalProperties') is False and set(value) - set(props):
            return False
        return all(matches(props[k], v) for k, v in value.items() if k in props)
    if t == 'array':
        return (
            isinstance(value, list)
            and len(value) <= schema.get('maxItems', len(value))
            and all(matches(schema['items'], v) for v in value)
        )
    if t == 'string':
        return isinstance(value, str) and value in schema.get('enum', [value])
    if t == 'integer':
        return isinstance(value, int) and not isinstance(value, bool)
    return True


def llama_response_format(schema: dict[str, Any]) -> ModelSettings:
    """llama-cpp-python's own structured-output request: `json_object` plus a `schema` (a GBNF grammar
    is compiled from it). Sent through `extra_body`, which the openai client merges over the body, so it
    replaces the `json_schema` response_format that NativeOutput sends (and the server rejects)."""
    return ModelSettings(extra_body={'response_format': {'type': 'json_object', 'schema': schema}})


# name -> (output_type factory, model settings factory, expected to be constrained)
Variant = tuple[Callable[[dict[str, Any]], Any], Callable[[dict[str, Any]], ModelSettings], bool]
VARIANTS: dict[str, Variant] = {
    # response_format={"type":"json_schema",...}: HTTP 500 "Input should be 'text' or 'json_object'".
    'native': (lambda s: NativeOutput(StructuredDict(s)), lambda s: ModelSettings(), False),
    # Same, with the response_format overridden to llama-cpp-python's json_object+schema: constrained.
    'native+json_object_schema': (lambda s: NativeOutput(StructuredDict(s)), llama_response_format, True),
    # pydantic-ai sends tool_choice="required" (a string); the server only forces a grammar for a dict
    # tool_choice naming one function, so the base model rambles text instead of calling the tool.
    'tool': (lambda s: ToolOutput(StructuredDict(s)), lambda s: ModelSettings(), False),
    # ToolOrOutput([]) resolves to ("required", {output tools}); with exactly one output tool the OpenAI
    # model then sends tool_choice={"type":"function","function":{"name":"final_result"}}: constrained.
    'tool+forced': (
        lambda s: ToolOutput(StructuredDict(s)),
        lambda s: ModelSettings(tool_choice=ToolOrOutput(function_tools=[])),
        True,
    ),
    # Schema in the prompt, no response_format (the profile has no json_object support): unconstrained.
    'prompted': (lambda s: PromptedOutput(StructuredDict(s)), lambda s: ModelSettings(), False),
    'prompted+json_object_schema': (lambda s: PromptedOutput(StructuredDict(s)), llama_response_format, True),
}


def make_model(base_url: str) -> OpenAIChatModel:
    # max_retries=0: a local server that fails should fail fast, not be retried with backoff by the SDK.
    client = AsyncOpenAI(base_url=base_url, api_key='x', max_retries=0, timeout=300)
    provider = OpenAIProvider(openai_client=client)
    # pydantic-ai sends the max_tokens setting as `max_completion_tokens`, which llama_cpp.server ignores:
    # an unconstrained answer then runs to the end of the context (8,032 tokens, 506 s, measured).
    # This profile flag makes it send `max_tokens`.
    profile = merge_profile(
        provider.model_profile(MODEL_ALIAS),
        OpenAIModelProfile(openai_chat_supports_max_completion_tokens=False),
    )
    return OpenAIChatModel(MODEL_ALIAS, provider=provider, profile=profile)


async def run_variant(model: OpenAIChatModel, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    output_factory, settings_factory, _ = VARIANTS[name]
    agent = Agent(model, output_type=output_factory(schema), instructions=INSTRUCTIONS, retries=0)
    settings = ModelSettings(temperature=0.0, max_tokens=160, seed=0) | settings_factory(schema)
    start = time.perf_counter()
    try:
        result = await agent.run(f'Summarize this tool return:\n\n{TOOL_RETURN}', model_settings=settings)
    except AgentRunError as exc:  # the failing variants are part of the finding (HTTP 500, no tool call)
        return {
            'variant': name,
            'ok': False,
            'seconds': round(time.perf_counter() - start, 1),
            'error': f'{type(exc).__name__}: {str(exc)[:160]}',
        }
    usage = result.usage
    return {
        'variant': name,
        'ok': matches(schema, result.output),
        'seconds': round(time.perf_counter() - start, 1),
        'tokens': f'{usage.input_tokens}+{usage.output_tokens}',
        'output': result.output,
    }


async def probe(base_url: str, variants: list[str]) -> bool:
    model = make_model(base_url)
    all_as_expected = True
    for schema in (LIST_SCHEMA, OBJECT_SCHEMA):
        print(f'## {schema["title"]}')
        for name in variants:
            row = await run_variant(model, name, schema)
            expected = VARIANTS[name][2]
            all_as_expected &= row['ok'] == expected or not expected  # an unconstrained mode may get lucky
            print(json.dumps(row, ensure_ascii=False), flush=True)
    return all_as_expected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--base-url', help='a running server, e.g. http://127.0.0.1:8000/v1')
    parser.add_argument('--variant', action='append', choices=list(VARIANTS), help='repeatable; default all')
    args = parser.parse_args()
    variants = args.variant or list(VARIANTS)
    if args.base_url:
        return 0 if asyncio.run(probe(args.base_url, variants)) else 1
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder) / 'server.log') as base_url:
        print(f'server at {base_url}', flush=True)
        return 0 if asyncio.run(probe(base_url, variants)) else 1


if __name__ == '__main__':
    raise SystemExit(main())
