"""OpenAI-compatible servers (`base_url` in config.yaml) and the dialect each one speaks.

They all take the OpenAI chat-completions request, but not all of it:

* `max_completion_tokens`, the field OpenAI's own models want, is ignored by llama-cpp-python's server,
  older llama.cpp `llama-server` builds and Ollama. They read `max_tokens`. Sent the wrong field, a
  model writes until its context is full (8,000 tokens in 8 minutes for Gemma 3 270M on a CPU).
* llama-cpp-python's server rejects `response_format={"type": "json_schema", ...}` with HTTP 500, and it
  makes no tool call for `tool_choice="required"`. It constrains output to a schema (a grammar) only
  for `response_format={"type": "json_object", "schema": ...}`, or for a `tool_choice` naming the one tool.

`server:` in config.yaml names the server, so one line makes the requests right. tests/llm/FINDINGS.md
has the measurements behind the llama-cpp-python dialect.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import cast

import httpx2
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles import merge_profile
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.settings import ModelSettings, ToolOrOutput

from ..core import JsonValue, Server

_READS_MAX_TOKENS: frozenset[Server] = frozenset({'ollama', 'llama.cpp', 'llama-cpp-python'})
"""Servers that cap output by `max_tokens` and may ignore `max_completion_tokens`."""
_OWN_SERVERS: frozenset[Server] = frozenset({'vllm', 'ollama', 'llama.cpp', 'llama-cpp-python'})
"""Servers run by the user: one request at a time, or a few, on their own hardware (`LocalServerChatModel`)."""
_ASK_TIMEOUT = 5.0
"""Seconds a server has to say its context window (`context_window`)."""


def openai_compatible_model(
    name: str, *, base_url: str, server: Server, api_key_env: str, timeout_seconds: float
) -> Model:
    """A chat model for `name` served at `base_url`, speaking `server`'s dialect."""
    from openai import AsyncOpenAI
    from pydantic_ai.providers.openai import OpenAIProvider

    client = AsyncOpenAI(
        base_url=base_url,
        api_key=os.environ.get(api_key_env) or 'not-needed',
        max_retries=0,  # retries are ours (tenacity), with Retry-After and our own bounds
        timeout=timeout_seconds,
    )
    provider = OpenAIProvider(openai_client=client)
    profile = provider.model_profile(name)
    if server in _READS_MAX_TOKENS:
        profile = merge_profile(profile, OpenAIModelProfile(openai_chat_supports_max_completion_tokens=False))
    model_class = (
        LlamaCppPythonChatModel
        if server == 'llama-cpp-python'
        else LocalServerChatModel
        if server in _OWN_SERVERS
        else OpenAIChatModel
    )
    return model_class(name, provider=provider, profile=profile)


class LocalServerChatModel(OpenAIChatModel):
    """A model on a server of the user's own (vLLM, Ollama, llama.cpp's): its answers are streamed (`streams`).

    A request given up on (timed out, cancelled) then closes its stream, and the server stops writing the
    answer: llama.cpp's servers, vLLM and Ollama do when a streamed request's client goes. Unstreamed, the
    server writes the abandoned answer to its end (164 s measured for Gemma 3 270M on two cores) while the
    next request waits behind it.
    """


def streams(model: Model) -> bool:
    """Whether summary requests to `model` are streamed (see `LocalServerChatModel`)."""
    return isinstance(model, LocalServerChatModel)


async def context_window(model: Model) -> int | None:
    """The context window the server of `model` says it has, in the model's tokens; None where it says none.

    llama.cpp's `llama-server` (and `summarizer serve`) say it at `/props`, vLLM in `/v1/models`
    (`max_model_len`); other servers, and a server that does not answer at once, say nothing.
    """
    if not isinstance(model, LocalServerChatModel):
        return None
    base = model.base_url.rstrip('/')
    async with httpx2.AsyncClient(timeout=_ASK_TIMEOUT) as client:  # pydantic-ai's own HTTP client
        for url, read in ((f'{base.removesuffix("/v1")}/props', _props_window), (f'{base}/models', _models_window)):
            try:
                response = await client.get(url)
                window = read(response.json(), model.model_name) if response.status_code == 200 else None
            except (httpx2.HTTPError, ValueError):
                continue
            if window:
                return window
    return None


def _props_window(data: JsonValue, name: str) -> int | None:
    settings = data.get('default_generation_settings') if isinstance(data, dict) else None
    window = settings.get('n_ctx') if isinstance(settings, dict) else None
    return window if isinstance(window, int) and not isinstance(window, bool) else None


def _models_window(data: JsonValue, name: str) -> int | None:
    models = data.get('data') if isinstance(data, dict) else None
    for entry in models if isinstance(models, list) else ():
        if isinstance(entry, dict) and entry.get('id') == name:
            window = entry.get('max_model_len')
            return window if isinstance(window, int) and not isinstance(window, bool) else None
    return None


class LlamaCppPythonChatModel(LocalServerChatModel):
    """llama-cpp-python's server (`python -m llama_cpp.server`): structured output in the form it constrains.

    Native and prompted output ask for `json_object` with the schema. That request goes in `extra_body`,
    which the openai client merges over the `response_format` pydantic-ai would send. Tool output names
    its single output tool in `tool_choice`: pydantic-ai sends `"required"` for one output tool, and
    this server ignores it.
    """

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        settings, parameters = super().prepare_request(model_settings, model_request_parameters)
        return constrained_settings(settings, model_request_parameters), parameters


def constrained_settings(settings: ModelSettings | None, parameters: ModelRequestParameters) -> ModelSettings:
    """`settings` plus what makes llama-cpp-python's server constrain the output `parameters` ask for.

    The schema is taken from the parameters as the caller wrote them, before pydantic-ai's OpenAI schema
    transformer adapts it for OpenAI's strict mode. The grammar honours `maxItems` and the like.
    """
    output = parameters.output_object
    merged = ModelSettings(**(settings or {}))
    if parameters.output_mode in ('native', 'prompted') and output is not None:
        # pydantic-ai types `extra_body` as object (the openai client merges it into the JSON body: a mapping),
        # and `ModelSettings.get` is partially unknown to pyright without legacy httpx (`timeout`'s type) installed
        extra_body = dict(cast('Mapping[str, Mapping[str, object] | None]', merged).get('extra_body') or {})
        extra_body['response_format'] = {'type': 'json_object', 'schema': output.json_schema}
        merged['extra_body'] = extra_body
    elif parameters.output_mode == 'tool' and len(parameters.output_tools) == 1 and not parameters.function_tools:
        merged['tool_choice'] = ToolOrOutput(function_tools=[])
    return merged
