"""Deterministic, realistic pydantic-ai message histories for benchmarks.

`make_history()` builds one conversation the way a tool-using pydantic-ai agent records it:

* message 0 is a `ModelRequest` with a `SystemPromptPart` and a `UserPromptPart`;
* requests and responses alternate;
* a `ModelResponse` holds an optional `TextPart` plus 0..4 `ToolCallPart`s (args as a dict); when it
  calls tools the next `ModelRequest` holds exactly one `ToolReturnPart` per call (same `tool_name`
  and `tool_call_id`), otherwise the next request is a follow-up `UserPromptPart` (a new turn);
* the final response is text only (a finished conversation), or, for an odd message count, the last
  message is a follow-up user request;
* responses carry provider-like `usage` (input tokens = ~chars/4 of everything before, output tokens of
  their own parts), a model name and timestamps; everything is fixed by `seed`, so two calls with the
  same arguments produce equal histories and byte-identical JSON.

Tool-return `content` cycles between a long string (log / file / prose text), a list of strings
(search hits, file listing lines) and a nested object (dict with lists of dicts, numbers, bools,
nulls). Each large return's serialized size is drawn uniformly from [min_kb, max_kb] KiB; roughly one
return in six is tiny (< 200 bytes), as real agents also get "ok"/status-style results.
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

__all__ = [
    'TOOL_NAMES',
    'dump_json',
    'fan_out',
    'make_corpus',
    'make_history',
    'pending_request',
    'write_corpus',
]

_EPOCH = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
_MODEL_NAME = 'gpt-4.1-mini'
_SYSTEM_PROMPT = (
    'You are a careful software engineering assistant. Use the tools to inspect the repository, '
    'search documentation and query the database. Cite concrete values from tool output.'
)
TOOL_NAMES = ('read_file', 'search_docs', 'run_shell', 'query_db', 'http_get', 'list_dir')
_TINY_EVERY = 6  # every 6th tool return (per history) is tiny

_WORDS = [
    'the',
    'a',
    'of',
    'to',
    'and',
    'in',
    'is',
    'for',
    'on',
    'with',
    'as',
    'by',
    'this',
    'that',
    'from',
    'at',
    'be',
    'are',
    'was',
    'it',
    'or',
    'an',
    'not',
    'which',
    'request',
    'response',
    'tool',
    'agent',
    'model',
    'history',
    'message',
    'token',
    'summary',
    'cache',
    'value',
    'error',
    'retry',
    'timeout',
    'config',
    'server',
    'client',
    'database',
    'query',
    'index',
    'table',
    'column',
    'row',
    'schema',
    'migration',
    'user',
    'session',
    'handler',
    'function',
    'method',
    'class',
    'module',
    'package',
    'import',
    'export',
    'build',
    'deploy',
    'test',
    'latency',
    'throughput',
    'memory',
    'allocation',
    'buffer',
    'stream',
    'parse',
    'serialize',
    'validate',
    'transform',
    'kubernetes',
    'container',
    'image',
    'volume',
    'network',
    'service',
    'ingress',
    'pod',
    'replica',
    'node',
    'cluster',
    'region',
    'invoice',
    'order',
    'customer',
    'payment',
    'refund',
    'shipment',
    'warehouse',
    'product',
    'price',
    'discount',
    'currency',
]
_LOG_LEVELS = ('DEBUG', 'INFO', 'INFO', 'INFO', 'WARNING', 'ERROR')
_PATHS = (
    'src/app/server.py',
    'src/app/models.py',
    'src/app/db/session.py',
    'lib/util/retry.ts',
    'docs/guide/index.md',
    'tests/test_api.py',
    'config/settings.yaml',
    'README.md',
)
_STATUSES = ('open', 'closed', 'pending', 'shipped', 'refunded', 'failed')


# --------------------------------------------------------------------------------------------------
# content generators (each returns content whose compact-JSON size is close to `size` bytes)
# --------------------------------------------------------------------------------------------------


def _sentence(rng: random.Random, lo: int = 6, hi: int = 18) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return words[0].capitalize() + ' ' + ' '.join(words[1:]) + '.'


def _text_line(rng: random.Random, i: int, flavour: int) -> str:
    if flavour == 0:  # log file
        ts = (_EPOCH + timedelta(milliseconds=i * 137)).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3]
        return f'{ts} {rng.choice(_LOG_LEVELS):<7} [{rng.choice(_WORDS)}] {_sentence(rng, 4, 12)}'
    if flavour == 1:  # source code
        indent = '    ' * rng.randint(0, 3)
        name = f'{rng.choice(_WORDS)}_{rng.choice(_WORDS)}'
        return rng.choice(
            (
                f'{indent}def {name}(self, {rng.choice(_WORDS)}: int = {rng.randint(0, 99)}) -> str:',
                f'{indent}{name} = await self.{rng.choice(_WORDS)}({rng.randint(0, 999)})',
                f'{indent}# {_sentence(rng, 3, 9)}',
                f'{indent}if {name} is None:',
                f'{indent}return {{"{rng.choice(_WORDS)}": {rng.random():.4f}}}',
            )
        )
    return _sentence(rng)  # prose / documentation


def _make_text(rng: random.Random, size: int) -> str:
    flavour = rng.randrange(3)
    lines: list[str] = []
    total = 0
    i = 0
    while total < size:
        line = _text_line(rng, i, flavour)
        lines.append(line)
        total += len(line) + 1
        i += 1
    return '\n'.join(lines)[:size]


def _make_list(rng: random.Random, size: int) -> list[str]:
    flavour = rng.randrange(2)
    items: list[str] = []
    total = 2
    i = 0
    while total < size:
        if flavour == 0:  # search hits
            item = f'{rng.choice(_PATHS)}:{rng.randint(1, 900)}: {_sentence(rng, 4, 14)}'
        else:  # directory listing
            item = f'{rng.choice(("-rw-r--r--", "drwxr-xr-x"))} {rng.randint(0, 99999):>6} {rng.choice(_PATHS)}.{i}'
        items.append(item)
        total += len(json.dumps(item)) + 1
        i += 1
    return items


def _make_record(rng: random.Random, i: int) -> dict[str, object]:
    return {
        'id': f'ord_{i:05d}',
        'customer': {'name': f'{rng.choice(_WORDS).title()} {rng.choice(_WORDS).title()}', 'vip': rng.random() < 0.2},
        'status': rng.choice(_STATUSES),
        'total': round(rng.uniform(1, 5000), 2),
        'items': [
            {
                'sku': f'SKU-{rng.randint(1000, 9999)}',
                'qty': rng.randint(1, 9),
                'price': round(rng.uniform(0.5, 500), 2),
                'backordered': rng.random() < 0.1,
            }
            for _ in range(rng.randint(1, 4))
        ],
        'note': _sentence(rng, 3, 10) if rng.random() < 0.5 else None,
    }


def _make_object(rng: random.Random, size: int) -> dict[str, object]:
    records: list[dict[str, object]] = []
    obj: dict[str, object] = {
        'query': f'SELECT * FROM orders WHERE status = {rng.choice(_STATUSES)!r}',
        'ok': True,
        'elapsed_ms': round(rng.uniform(1, 900), 3),
        'page': {'offset': 0, 'limit': 500, 'has_more': rng.random() < 0.5},
        'rows': records,
        'stats': {'count': 0, 'sum_total': 0.0, 'by_status': {s: rng.randint(0, 50) for s in _STATUSES}},
    }
    total = len(json.dumps(obj, separators=(',', ':')))
    i = 0
    while total < size:
        rec = _make_record(rng, i)
        records.append(rec)
        total += len(json.dumps(rec, separators=(',', ':'))) + 1
        i += 1
    stats = obj['stats']
    assert isinstance(stats, dict)
    stats['count'] = len(records)
    stats['sum_total'] = round(sum(float(r['total']) for r in records), 2)  # type: ignore[arg-type]
    return obj


def _make_tiny(rng: random.Random, kind: int) -> object:
    if kind == 0:
        return rng.choice(('ok', 'No results found.', 'File written (312 bytes).', 'exit code 0'))
    if kind == 1:
        return [f'{rng.choice(_PATHS)}' for _ in range(rng.randint(1, 3))]
    return {'ok': True, 'count': rng.randint(0, 5), 'cached': rng.random() < 0.5}


def _content(rng: random.Random, index: int, min_kb: float, max_kb: float) -> object:
    kind = index % 3  # cycle string -> list -> object
    if index % _TINY_EVERY == _TINY_EVERY - 1:
        return _make_tiny(rng, kind)
    size = int(rng.uniform(min_kb, max_kb) * 1024)
    if kind == 0:
        return _make_text(rng, size)
    if kind == 1:
        return _make_list(rng, size)
    return _make_object(rng, size)


def _args_for(rng: random.Random, tool: str) -> dict[str, object]:
    if tool == 'read_file':
        return {'path': rng.choice(_PATHS), 'offset': 0, 'limit': rng.choice((200, 1000, 5000))}
    if tool == 'search_docs':
        return {'query': ' '.join(rng.choice(_WORDS) for _ in range(3)), 'top_k': rng.choice((10, 25, 50))}
    if tool == 'run_shell':
        return {'command': f'grep -rn {rng.choice(_WORDS)} src/ | head -{rng.randint(50, 500)}', 'timeout': 30}
    if tool == 'query_db':
        return {
            'sql': f'SELECT * FROM orders WHERE status = {rng.choice(_STATUSES)!r}',
            'params': {'limit': 500, 'include_items': True},
        }
    if tool == 'http_get':
        return {
            'url': f'https://api.example.com/v1/{rng.choice(_WORDS)}?page={rng.randint(1, 9)}',
            'headers': {'accept': 'application/json'},
        }
    return {'path': rng.choice(('src', 'src/app', 'docs', 'tests')), 'recursive': rng.random() < 0.5}


# --------------------------------------------------------------------------------------------------
# histories
# --------------------------------------------------------------------------------------------------


def _text_size(parts: list[object]) -> int:
    """Rough serialized size of parts, for the synthetic provider usage numbers."""
    n = 0
    for p in parts:
        content = getattr(p, 'content', None)
        if content is None and isinstance(p, ToolCallPart):
            content = p.args
        n += len(content) if isinstance(content, str) else len(json.dumps(content, separators=(',', ':')))
    return n


def make_history(
    *,
    messages: int = 200,
    tool_returns: int = 50,
    min_kb: float = 2,
    max_kb: float = 20,
    seed: int = 0,
    max_calls_per_response: int = 4,
    with_usage: bool = True,
) -> list[ModelMessage]:
    """Build one deterministic conversation with exactly `messages` messages and `tool_returns` returns.

    See the module docstring for its shape. Raises `ValueError` when the returns cannot fit: there are
    `messages // 2` responses that are followed by a request, each calling at most
    `max_calls_per_response` tools.
    """
    if messages < 1:
        raise ValueError('messages must be >= 1')
    if tool_returns < 0 or min_kb < 0 or max_kb < min_kb:
        raise ValueError('need tool_returns >= 0 and 0 <= min_kb <= max_kb')
    rng = random.Random(seed)
    # responses sit at odd indices; those followed by a request (index + 1 < messages) may call tools
    callers = [i for i in range(1, messages, 2) if i + 1 < messages]
    if tool_returns > len(callers) * max_calls_per_response:
        raise ValueError(
            f'{tool_returns} tool returns do not fit in {messages} messages '
            f'({len(callers)} responses x {max_calls_per_response} calls)'
        )
    calls_at = dict.fromkeys(callers, 0)
    open_slots = list(callers)
    for _ in range(tool_returns):
        i = rng.choice(open_slots)
        calls_at[i] += 1
        if calls_at[i] == max_calls_per_response:
            open_slots.remove(i)

    history: list[ModelMessage] = []
    clock = _EPOCH
    chars_so_far = len(_SYSTEM_PROMPT)
    return_index = 0
    pending_calls: list[ToolCallPart] = []
    for i in range(messages):
        clock += timedelta(seconds=rng.randint(1, 20))
        if i % 2 == 0:  # request
            if i == 0:
                parts: list[object] = [
                    SystemPromptPart(content=_SYSTEM_PROMPT, timestamp=clock),
                    UserPromptPart(content=_sentence(rng, 10, 30), timestamp=clock),
                ]
            elif pending_calls:
                parts = []
                for call in pending_calls:
                    content = _content(rng, return_index, min_kb, max_kb)
                    return_index += 1
                    parts.append(
                        ToolReturnPart(
                            tool_name=call.tool_name,
                            content=content,
                            tool_call_id=call.tool_call_id,
                            timestamp=clock,
                        )
                    )
                pending_calls = []
            else:
                parts = [UserPromptPart(content=_sentence(rng, 5, 25), timestamp=clock)]
            chars_so_far += _text_size(parts)
            history.append(ModelRequest(parts=parts, timestamp=clock))  # type: ignore[arg-type]
        else:  # response
            n_calls = calls_at.get(i, 0)
            rparts: list[object] = []
            if n_calls == 0 or rng.random() < 0.6:
                rparts.append(TextPart(content=' '.join(_sentence(rng) for _ in range(rng.randint(1, 5)))))
            for k in range(n_calls):
                tool = rng.choice(TOOL_NAMES)
                call = ToolCallPart(tool_name=tool, args=_args_for(rng, tool), tool_call_id=f'call_{seed}_{i}_{k}')
                rparts.append(call)
                pending_calls.append(call)
            out_chars = _text_size(rparts)
            usage = (
                RequestUsage(input_tokens=chars_so_far // 4 + 150, output_tokens=max(1, out_chars // 4))
                if with_usage
                else RequestUsage()
            )
            chars_so_far += out_chars
            history.append(
                ModelResponse(
                    parts=rparts,  # type: ignore[arg-type]
                    usage=usage,
                    model_name=_MODEL_NAME,
                    timestamp=clock,
                    provider_name='openai',
                    finish_reason='tool_call' if n_calls else 'stop',
                )
            )
    assert return_index == tool_returns, (return_index, tool_returns)
    return history


def fan_out(contents: list[object]) -> list[ModelMessage]:
    """One response calling a tool per content, one request returning them all, then a final answer.

    A content given twice is the same file read twice: the same call arguments, so the same request
    to a summarizer model (whose prompt shows the call) and one cache key.
    """
    first = {
        json.dumps(content, sort_keys=True, default=str): index
        for index, content in reversed(list(enumerate(contents)))
    }
    calls = [
        ToolCallPart(
            tool_name='read_file',
            args={'path': f'file_{first[json.dumps(content, sort_keys=True, default=str)]}'},
            tool_call_id=f'c{index}',
        )
        for index, content in enumerate(contents)
    ]
    returns = [
        ToolReturnPart(tool_name='read_file', content=content, tool_call_id=call.tool_call_id)
        for call, content in zip(calls, contents)
    ]
    return [
        ModelRequest(parts=[UserPromptPart('read them all')]),
        ModelResponse(parts=calls),
        ModelRequest(parts=returns),
        ModelResponse(parts=[TextPart('done')]),
    ]


def make_corpus(
    n_histories: int,
    *,
    messages: int = 200,
    tool_returns: int = 50,
    min_kb: float = 2,
    max_kb: float = 20,
    seed: int = 0,
) -> Iterator[list[ModelMessage]]:
    """Yield `n_histories` histories; history `k` uses seed `seed + k` (so each one is reproducible alone)."""
    for k in range(n_histories):
        yield make_history(messages=messages, tool_returns=tool_returns, min_kb=min_kb, max_kb=max_kb, seed=seed + k)


def pending_request(history: list[ModelMessage]) -> tuple[list[ModelMessage], ModelRequest]:
    """Split `history` into (prior messages, the request about to be sent).

    If `history` ends with a `ModelRequest` that request is the pending one. If it ends with a
    `ModelResponse` (a finished, stored conversation) a fake follow-up user request is made up, so the
    hook sees `history + [request]`, as in the next turn of that conversation.
    """
    last = history[-1]
    if isinstance(last, ModelRequest):
        return history[:-1], last
    ts = last.timestamp + timedelta(seconds=5)
    return list(history), ModelRequest(
        parts=[UserPromptPart(content='Thanks. Now summarize what you found so far.', timestamp=ts)], timestamp=ts
    )


# --------------------------------------------------------------------------------------------------
# corpus files
# --------------------------------------------------------------------------------------------------


def dump_json(history: list[ModelMessage]) -> bytes:
    """The history as JSON, exactly as pydantic-ai stores it."""
    return ModelMessagesTypeAdapter.dump_json(history)


def write_corpus(
    n_histories: int,
    out_dir: str | Path,
    *,
    name: str = 'corpus',
    **history_kwargs: object,
) -> tuple[Path, Path]:
    """Write the same corpus as `{name}.jsonl` and `{name}.sqlite` under `out_dir`; returns both paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl, db = out / f'{name}.jsonl', out / f'{name}.sqlite'
    if db.exists():
        db.unlink()
    histories = make_corpus(n_histories, **history_kwargs)  # type: ignore[arg-type]
    with open(jsonl, 'wb') as lines, contextlib.closing(sqlite3.connect(db)) as rows:
        rows.execute('CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT)')
        with rows:
            for n, history in enumerate(histories):  # one at a time: a corpus of GBs never sits in memory
                text = dump_json(history)
                lines.write(text + b'\n')
                row = (f'conv-{n:06d}', text.decode('utf-8'))
                rows.execute('INSERT INTO conversations (id, messages) VALUES (?, ?)', row)
    return jsonl, db
