"""The pipeline end to end through a real model: Gemma 3 270M behind llama-cpp-python's server, over HTTP.

The requests go through pydantic-ai's OpenAI chat model, configured only by `base_url` and `server:
llama-cpp-python`, and use all three output modes (tool, native, prompted). Gemma 3 270M is a small
*base* model: its summaries are weak and often fail the checks (an answer that rambles to the output
cap, a list of empty strings, numbers it did not copy). So these tests assert the pipeline's
guarantees, not the summaries' wisdom. Every output passes the post-check. Each oversized return is
either replaced by a summary of its shape that is smaller and under the threshold, or keeps its
original and is reported with a reason. The counts add up.

Each model call takes 2-20 s on two CPU cores, so the contents are small (a few hundred tokens), the
threshold low (which caps answers at 2 x 80 tokens), and the calls few: seven in the whole module.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml
from conftest import CONTEXT
from helpers import history
from openai import AsyncOpenAI
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ToolCallPart, ToolReturnPart

from summarizer import Compactor, SummarizerConfig
from summarizer.cli import main
from summarizer.core._shape import JsonValue, shape_mismatch
from summarizer.core._tokens import content_tokens, estimate_tokens
from summarizer.pipeline._check import check_history
from summarizer.pipeline._report import Compaction
from summarizer.pipeline._walk import walk

THRESHOLD = 80

LOG = '\n'.join(f'{n:02d} GET /api/items/{n} 200 {n * 7}ms req-{n:05d}' for n in range(14))
RESULTS = [f'Result {n}: configuring a cache for service {n}, eviction and TTL advice' for n in range(8)]
STATUS = {
    'service': 'billing',
    'status': 'degraded',
    'summary': 'Shard 3 and shard 7 time out after 30 s; retries succeed on the second attempt. ' * 3,
    'errors': [f'timeout on shard {n} after 30s' for n in (3, 7, 3, 7)],
}
TINY = 'ok: 3 rows'


def local_settings(base_url: str, model: str, tmp_path: Path, **overrides: object) -> dict[str, object]:
    """A config for the local server: one request at a time, since it serves one at a time and the
    timeout runs while a request waits in its queue."""
    return {
        'model': model,
        'base_url': base_url,
        'server': 'llama-cpp-python',
        'threshold_tokens': THRESHOLD,
        'keep_recent': 0,
        'concurrency': 1,
        'timeout_seconds': 120,
        'max_retries': 0,
        'cache': {'directory': str(tmp_path / 'cache')},
        **overrides,
    }


def write_config(path: Path, settings: dict[str, object]) -> Path:
    path.write_text(yaml.safe_dump(settings))
    return path


def write_history(path: Path, messages: Sequence[ModelMessage]) -> Path:
    path.write_bytes(ModelMessagesTypeAdapter.dump_json(list(messages)))
    return path


def assert_guarantees(before: Sequence[ModelMessage], result: Compaction, config: SummarizerConfig) -> None:
    """Whatever the model answered: a valid history, summaries that keep their contract, failures reported."""
    candidates = walk(before, config=config, tokenizer=estimate_tokens).candidates
    originals: dict[tuple[int, int], JsonValue] = {(c.message_index, c.part_index): c.content for c in candidates}
    report = result.report
    failed = {(failure.message_index, failure.part_index): failure.reason for failure in report.failures}

    check_history(before, result.messages, {ref: originals[ref] for ref in result.changed})
    assert [_call_ids(message) for message in result.messages] == [_call_ids(message) for message in before]
    assert report.oversized == len(candidates) == report.summarized + report.failed
    assert len(report.failures) == report.failed
    assert set(failed) | set(result.changed) == set(originals) and not set(failed) & set(result.changed)
    for (message_index, part_index), original in originals.items():
        part = result.messages[message_index].parts[part_index]
        assert isinstance(part, ToolReturnPart)
        if (message_index, part_index) in result.changed:
            assert shape_mismatch(original, part.content) is None
            tokens = content_tokens(part.content)
            assert tokens < THRESHOLD and tokens < content_tokens(original)
        else:
            assert failed[message_index, part_index].strip()
            assert part.content == original


def _call_ids(message: ModelMessage) -> list[str]:
    return [part.tool_call_id for part in message.parts if isinstance(part, (ToolCallPart, ToolReturnPart))]


async def test_compactor_over_http_keeps_every_guarantee(llama_server: str, llama_model: str, tmp_path: Path) -> None:
    """Tool output mode: the request names the output tool, so the server's grammar shapes the arguments."""
    config = SummarizerConfig().override(**local_settings(llama_server, llama_model, tmp_path, output_mode='tool'))
    before = history(LOG, RESULTS, STATUS, TINY)
    result = await Compactor(config=config).compact(before)

    assert_guarantees(before, result, config)
    assert result.report.oversized == 3  # the string, the list and the object; TINY is under the threshold
    assert result.report.model_calls == 3 and result.report.cache_hits == 0


def test_compact_and_batch_cli_through_a_config_file(llama_server: str, llama_model: str, tmp_path: Path) -> None:
    """`summarizer compact` (native output) and `summarizer batch` (prompted output), then `summarizer check`."""
    native = write_config(
        tmp_path / 'native.yaml', local_settings(llama_server, llama_model, tmp_path, output_mode='native')
    )
    source = write_history(tmp_path / 'status.json', history(STATUS, TINY))
    compacted = tmp_path / 'status.compacted.json'
    code = main(['compact', str(source), '-o', str(compacted), '--config', str(native)])
    assert main(['check', str(source), str(compacted)]) == 0
    assert code == (1 if _kept_original(source, compacted) else 0)  # exit 1 says a summary failed

    prompted = write_config(
        tmp_path / 'prompted.yaml', local_settings(llama_server, llama_model, tmp_path, output_mode='prompted')
    )
    inputs = tmp_path / 'inputs'
    inputs.mkdir()
    write_history(inputs / 'log.json', history(LOG))
    write_history(inputs / 'search.json', history(RESULTS))
    originals = {path.name: path.read_bytes() for path in inputs.iterdir()}
    report_file = tmp_path / 'batch-report.json'
    out = tmp_path / 'out'
    code = main(['batch', str(inputs), '--out', str(out), '--report', str(report_file), '--config', str(prompted)])

    assert {path.name: path.read_bytes() for path in inputs.iterdir()} == originals  # inputs untouched
    sources = json.loads(report_file.read_text())['sources']
    assert len(sources) == 2
    assert code == (1 if any(entry['summaries_failed'] for entry in sources) else 0)
    for entry in sources:
        assert entry['returns_summarized'] + entry['summaries_failed'] == 1  # one oversized return each
        reasons = [failure['problem'] for failure in entry['failures'] if failure['kind'] == 'summary']
        assert len(reasons) == entry['summaries_failed'] and all(reason.strip() for reason in reasons)
        name = Path(entry['source']).name
        assert main(['check', str(inputs / name), str(out / name)]) == 0
        assert _kept_original(inputs / name, out / name) == (entry['summaries_failed'] == 1)


def _kept_original(source: Path, output: Path) -> bool:
    """Whether every tool return of `output` still holds the content it has in `source`."""
    before, after = (ModelMessagesTypeAdapter.validate_json(path.read_bytes()) for path in (source, output))
    return all(
        new.content == old.content
        for old_message, new_message in zip(before, after)
        for old, new in zip(old_message.parts, new_message.parts)
        if isinstance(old, ToolReturnPart) and isinstance(new, ToolReturnPart)
    )


def test_eval_compares_the_local_model_with_extractive(
    llama_server: str, llama_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`summarizer eval --config local.yaml --model extractive --model gemma-3-270m`: one row per model."""
    settings = local_settings(llama_server, llama_model, tmp_path / 'eval', output_mode='tool')
    config = write_config(tmp_path / 'local.yaml', settings)
    histories = tmp_path / 'histories'
    histories.mkdir()
    write_history(histories / 'billing.json', history(LOG, TINY))
    report = tmp_path / 'report'
    argv = ['eval', str(histories), '--config', str(config), '--model', 'extractive', '--model', llama_model]
    code = main([*argv, '--report', str(report)])
    err = capsys.readouterr().err

    data = json.loads((report / 'results.json').read_text())
    rows = {row['name']: row for row in data['models']}
    assert set(rows) == {'extractive', llama_model, 'head'}
    for name in ('extractive', llama_model):
        overall = rows[name]['overall']
        assert overall['returns'] == 1 and 0 <= overall['summarized'] <= 1
        assert overall['tokens_after'] <= overall['tokens_before']
    assert rows['extractive']['overall']['structure_pass_rate'] == 1.0
    assert rows[llama_model]['cost']['model_calls'] == 1
    local_failed = rows[llama_model]['overall']['structure_pass_rate'] < 1
    assert (f'{llama_model}: structure pass rate' in err) == local_failed
    assert code == (0 if data['gate']['passed'] else 1)


def test_the_server_loads_no_extra_buffer_types_and_says_its_context(llama_server: str, llama_log: Path) -> None:
    """llama.cpp's extra buffer types (repacked and AMX weights) are off: an AMX kernel dies where the CPU advertises
    AMX and the kernel does not enable it. On any CPU with a repack kernel, the log would name its buffer."""
    log = llama_log.read_text(errors='replace')
    assert re.findall(r'(\w+) model buffer size', log) == ['CPU_Mapped']  # no CPU_REPACK, no AMX
    props = json.loads(urllib.request.urlopen(llama_server.removesuffix('/v1') + '/props', timeout=10).read())
    assert props == {'default_generation_settings': {'n_ctx': CONTEXT}}


async def test_a_streamed_request_given_up_on_stops_at_the_server(
    llama_server: str, llama_model: str, llama_log: Path
) -> None:
    """The summarizer streams from local servers: closing the stream makes the server stop writing the answer."""
    client = AsyncOpenAI(base_url=llama_server, api_key='not-needed', max_retries=0)
    prompt = 'Count from 1 to 500, one number a line.'
    stream = await client.chat.completions.create(
        model=llama_model, messages=[{'role': 'user', 'content': prompt}], max_tokens=1500, stream=True
    )
    async for _ in stream:
        break  # the first chunk: the server is writing
    await stream.close()
    for _ in range(200):
        if 'Disconnected from client' in llama_log.read_text(errors='replace'):
            break
        await asyncio.sleep(0.1)
    assert 'Disconnected from client' in llama_log.read_text(errors='replace')
    await client.close()
