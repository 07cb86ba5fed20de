"""Summarizing each shape with a FunctionModel, and every failure mode keeping the original."""

from __future__ import annotations

import asyncio
import errno
import logging
import time

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, compactor, head_items, history, summarizer_model
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from summarizer import CheckFailed, SummarizeToolReturns
from summarizer.core._config import SummarizerConfig
from summarizer.core._tokens import estimate_tokens
from summarizer.pipeline._originals import READ_LINE
from summarizer.pipeline._pipeline import Compactor
from summarizer.pipeline._summarize import ServerUnreachable


def first_return(messages: list) -> ToolReturnPart:  # type: ignore[type-arg]
    part = messages[2].parts[0]
    assert isinstance(part, ToolReturnPart)
    return part


def shorten(content: object, budget: int) -> object:
    if isinstance(content, str):  # the start of the text, a cut line marked cut
        return content if len(content) <= 200 else f'{content[:200]} …'
    if isinstance(content, list):
        return [shorten(item, budget) for item in head_items(content, 2)]
    if isinstance(content, dict):
        return {key: shorten(value, budget) for key, value in content.items()}
    return content


@pytest.mark.parametrize('content', [BIG_TEXT, BIG_LIST, BIG_OBJECT], ids=['str', 'list', 'nested-dict'])
async def test_each_shape_is_summarized_and_keeps_its_type(content: object) -> None:
    result = await compactor(summarizer_model(shorten)).compact(history(content))
    part = first_return(result.messages)
    assert type(part.content) is type(content)
    summary = shorten(content, 0)
    assert part.content == (f'{summary}\n{READ_LINE}' if isinstance(summary, str) else summary)  # the hint: no marker
    assert part.tool_call_id == 'call_0' and part.metadata == {'n': 0}
    assert result.report.summarized == 1 and result.report.failed == 0


async def test_untouched_parts_are_the_same_objects() -> None:
    messages = history(BIG_TEXT, 'tiny')
    result = await compactor(summarizer_model(shorten)).compact(messages)
    assert [a is b for a, b in zip(messages, result.messages)] == [True, True, False, True, True, True]


def failing(error: BaseException):  # type: ignore[no-untyped-def]
    def answer(content: object, budget: int) -> object:
        raise error

    return answer


async def slow(content: object, budget: int) -> object:  # pragma: no cover - never finishes in time
    await asyncio.sleep(10)
    return content


SMALL = {'issues': head_items(BIG_OBJECT['issues'], 1), 'nested': {'readme': 'Readme text', 'stars': 1234}}
"""A summary of `BIG_OBJECT` small enough to pass, for the answers below that cut one more thing without saying so."""
MORE = '… 19 items omitted …'


@pytest.mark.parametrize(
    ('content', 'answer', 'reason'),
    [
        (BIG_TEXT, failing(RuntimeError('model exploded')), 'model exploded'),
        (BIG_LIST, lambda content, budget: {'wrong': 'type'}, 'wrong shape'),
        (BIG_OBJECT, lambda content, budget: {**content, 'repo': 'x', 'open_issues': 41}, 'wrong shape'),
        (BIG_TEXT, lambda content, budget: content + content, 'not smaller'),
        (BIG_LIST, lambda content, budget: ['… 12 items omitted …'], 'empty summary'),
        (BIG_TEXT, lambda content, budget: content[: len(content) // 2], 'not under the threshold'),
        # issue 26 point 10: a cut that does not say so
        (BIG_LIST, lambda content, budget: content[:2], "$: its last 10 of 12 items dropped with no '… 10 items"),
        (BIG_OBJECT, lambda content, budget: {**content, **SMALL, 'issues': content['issues'][:1]}, '$.issues: its last 19'),
        (BIG_OBJECT, lambda content, budget: {**content, **SMALL, 'issues': [*content['issues'][4:5], MORE]}, 'number: expected the number 0'),
        (BIG_OBJECT, lambda content, budget: {**content, **SMALL, 'repo': ''}, '$.repo: a text cut to nothing'),
    ],
    ids=[
        'exception', 'wrong-type', 'changed-number', 'longer', 'empty', 'over-threshold',
        'list-cut-silently', 'nested-list-cut-silently', 'first-items-dropped-silently', 'string-emptied',
    ],
)  # fmt: skip
async def test_failures_keep_the_original(content: object, answer, reason: str) -> None:  # type: ignore[no-untyped-def]
    messages = history(content)
    result = await compactor(summarizer_model(answer), max_retries=0).compact(messages)
    assert first_return(result.messages).content == content
    assert result.messages[2] is messages[2]
    assert result.report.failed == 1 and result.report.summarized == 0
    assert reason in result.report.failures[0].reason


async def test_timeout_keeps_the_original() -> None:
    from pydantic_ai.models.function import FunctionModel

    async def hang(messages, info):  # type: ignore[no-untyped-def]
        await asyncio.sleep(10)

    result = await compactor(
        FunctionModel(hang), timeout_seconds=0.05, max_retries=1, retry_initial_seconds=0.01
    ).compact(history(BIG_TEXT))
    assert first_return(result.messages).content == BIG_TEXT
    assert result.report.failures[0].reason == 'timed out'
    assert result.report.model_calls == 2 and result.report.retries == 1


async def test_strict_mode_raises_on_a_bad_summary() -> None:
    with pytest.raises(CheckFailed, match='wrong shape'):
        await compactor(summarizer_model(lambda c, b: 42), strict=True).compact(history(BIG_LIST))


async def test_transient_errors_are_retried_then_succeed() -> None:
    attempts: list[object] = []

    def flaky(content: object, budget: int) -> object:
        if len(attempts) < 3:
            attempts.append(content)
            raise ModelHTTPError(status_code=503 if len(attempts) % 2 else 429, model_name='m', body='busy')
        return shorten(content, budget)

    result = await compactor(summarizer_model(flaky), max_retries=3, retry_initial_seconds=0.001).compact(
        history(BIG_TEXT)
    )
    assert result.report.summarized == 1
    assert result.report.model_calls == 4 and result.report.retries == 3


async def test_client_errors_are_not_retried_and_retries_are_bounded() -> None:
    calls: list[object] = []
    rejected = summarizer_model(failing(ModelHTTPError(status_code=400, model_name='m', body='bad')), calls)
    result = await compactor(rejected, max_retries=3).compact(history(BIG_TEXT))
    assert len(calls) == 1 and result.report.failed == 1

    calls.clear()
    down = summarizer_model(failing(ModelHTTPError(status_code=500, model_name='m', body='down')), calls)
    result = await compactor(down, max_retries=2, retry_initial_seconds=0.001).compact(history(BIG_TEXT))
    assert len(calls) == 3 and result.report.retries == 2 and result.report.failed == 1
    assert first_return(result.messages).content == BIG_TEXT


def test_retry_waits_honour_retry_after() -> None:
    import tenacity

    from summarizer.pipeline._summarize import retry_after_seconds

    error = ModelHTTPError(status_code=429, model_name='m', body='slow down', headers={'Retry-After': '2'})
    assert retry_after_seconds(error) == 2.0
    summarizer = compactor(retry_initial_seconds=0.001, retry_max_seconds=5).summarizer
    state = tenacity.RetryCallState(retry_object=tenacity.AsyncRetrying(), fn=None, args=(), kwargs={})
    state.outcome = tenacity.Future(attempt_number=1)
    state.outcome.set_exception(error)
    assert 2.0 <= summarizer._wait(state) <= 5.0


async def test_summarizer_usage_is_recorded() -> None:
    result = await compactor(summarizer_model(shorten)).compact(history(BIG_TEXT, BIG_LIST))
    assert result.report.summarizer_input_tokens > 0 and result.report.summarizer_output_tokens > 0


LOG_TEXT = '\n'.join(
    f'log line {i}: request id req-{i:05d} from 10.1.{i % 256}.{i % 200} took {i * 7 % 5000} ms' for i in range(150)
)


def _first_lines(content: str, budget: int) -> str:
    """A summary of about 850 tokens whatever its budget: under 1000, over 760."""
    lines = content.split('\n')
    kept: list[str] = []
    while estimate_tokens('\n'.join(kept)) < 850:
        kept.append(lines[len(kept)])
    return '\n'.join(kept)


@pytest.mark.parametrize('order', [('wide', 'narrow'), ('narrow', 'wide')])
def test_one_content_under_two_thresholds_gets_each_its_own_verdict_in_either_order(order: tuple[str, str]) -> None:
    """Thresholds 1000 and 760 give this content the same budget: one summary must not serve both."""
    messages = [
        ModelRequest(parts=[UserPromptPart('look')]),
        ModelResponse(parts=[ToolCallPart(tool, {'n': n}, tool_call_id=f'c{n}') for n, tool in enumerate(order)]),
        ModelRequest(parts=[ToolReturnPart(tool, LOG_TEXT, tool_call_id=f'c{n}') for n, tool in enumerate(order)]),
        ModelResponse(parts=[TextPart('done')]),
    ]
    config = SummarizerConfig().override(
        keep_recent=0,
        cache={'enabled': False},
        originals={'enabled': False},
        tools={'narrow': {'threshold_tokens': 760}},
    )
    compaction = asyncio.run(Compactor(config=config, model=summarizer_model(_first_lines)).compact(messages))
    returned = {
        part.tool_name: part.content for part in compaction.messages[2].parts if isinstance(part, ToolReturnPart)
    }
    assert returned['narrow'] == LOG_TEXT  # 850 tokens is not under 760: the original kept
    assert returned['wide'] != LOG_TEXT and estimate_tokens(returned['wide']) < 1000
    assert [failure.tool_name for failure in compaction.report.failures] == ['narrow']


def refused(content: object, budget: int) -> object:
    """A model server that is not there: what the HTTP client's connect raises, at the bottom of its errors."""
    raise ConnectionRefusedError(errno.ECONNREFUSED, 'Connect call failed')


async def test_a_server_that_cannot_be_reached_stops_the_run_at_once() -> None:
    """Not a failure of one content, each retried and kept: every content would meet it (the CLI: exit 2)."""
    calls: list[object] = []
    down = compactor(summarizer_model(refused, calls), concurrency=1, max_retries=3)
    with pytest.raises(ServerUnreachable, match=r'^cannot reach the model server at .+: connection refused$'):
        await down.compact(history(BIG_TEXT, BIG_LIST, BIG_OBJECT))
    assert len(calls) == 1  # not retried, and no call for the other contents


async def test_a_server_that_goes_away_after_answering_gets_its_retries_then_stops_the_run() -> None:
    calls: list[object] = []

    def answer_once(content: object, budget: int) -> object:
        return shorten(content, budget) if len(calls) == 1 else refused(content, budget)

    restarting = compactor(
        summarizer_model(answer_once, calls), concurrency=1, max_retries=2, retry_initial_seconds=0.001
    )
    with pytest.raises(ServerUnreachable):
        await restarting.compact(history(BIG_TEXT, BIG_LIST))
    assert len(calls) == 1 + 3  # the answer, then the second content's three attempts


async def test_an_agent_run_goes_on_when_the_summarizer_server_cannot_be_reached() -> None:
    """The plugin keeps the history as it is and tries the summaries again on the next request."""
    calls: list[object] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(message, ModelResponse) for message in messages)
        if step < 3:
            return ModelResponse(parts=[ToolCallPart('logs', {'step': step}, tool_call_id=f'call_{step}')])
        return ModelResponse(parts=[TextPart('done')])

    # one summary at a time: which of two concurrent calls reaches the server first is the threads' race
    plugin = SummarizeToolReturns(model=summarizer_model(refused, calls), concurrency=1)
    agent = Agent(FunctionModel(respond), capabilities=[plugin])
    agent.tool_plain(name='logs')(lambda step: BIG_TEXT)  # the same text from another call: no repeat
    result = await agent.run('read the logs')
    assert result.output == 'done'
    returns = [
        part
        for message in result.all_messages()
        for part in getattr(message, 'parts', [])
        if isinstance(part, ToolReturnPart)
    ]
    assert [part.content for part in returns] == [BIG_TEXT] * 3
    assert len(calls) == 2  # the first return tried at the third request, and again at the fourth (the second
    # return, asked after it, is not tried once the server is known to be unreachable)


async def test_returns_an_unreachable_server_kept_from_being_summarized_are_failures_in_the_report() -> None:
    """The run ended with `failed=0` and no failures: the warnings were only in the log.

    Each return counts once however often it is tried again, and a later try that summarizes it takes
    its failure back.
    """

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(message, ModelResponse) for message in messages)
        if step < 3:
            return ModelResponse(parts=[ToolCallPart('logs', {'step': step}, tool_call_id=f'call_{step}')])
        return ModelResponse(parts=[TextPart('done')])

    summarize = SummarizeToolReturns(model=summarizer_model(refused), keep_recent=0)
    agent = Agent(FunctionModel(respond), capabilities=[summarize])
    agent.tool_plain(name='logs')(lambda step: BIG_TEXT)
    await agent.run('read the logs')
    report = summarize.report
    assert (report.failed, report.summarized) == (3, 0)
    assert [(failure.tool_call_id, failure.reason) for failure in report.failures] == [
        (
            f'call_{step}',
            'not summarized: cannot reach the model server at function:test-summarizer@: connection refused',
        )
        for step in range(3)
    ]

    calls: list[object] = []

    def recovering(content: object, budget: int) -> object:  # down at the first call, back from the second on
        if len(calls) == 1:
            refused(content, budget)
        return '\n'.join(BIG_TEXT.splitlines()[:5]) + '\n… 595 lines omitted …'

    summarize = SummarizeToolReturns(model=summarizer_model(recovering, calls), keep_recent=1)
    agent = Agent(FunctionModel(respond), capabilities=[summarize])
    agent.tool_plain(name='logs')(lambda step: BIG_TEXT)
    await agent.run('read the logs')
    assert len(calls) == 3  # refused once, then one summary per call (their arguments differ)
    assert (summarize.report.failed, summarize.report.failures, summarize.report.summarized) == (0, [], 2)


async def test_a_model_servers_password_is_in_no_warning_and_no_repr(caplog: pytest.LogCaptureFixture) -> None:
    """`base_url` with `user:password@`: the capability's repr and the unreachable server's warning hide it."""
    from test_cli_errors import closed_port

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(message, ModelResponse) for message in messages)
        return ModelResponse(
            parts=[ToolCallPart('logs', {}, tool_call_id=f'call_{step}') if step < 2 else TextPart('done')]
        )

    url = f'http://svc:S3cret@127.0.0.1:{closed_port()}/v1?api-version=2024-06&api_key=K3y%2Fz'
    shown = url.replace('S3cret', '***').replace('K3y%2Fz', '***')  # a query key naming a secret: its value too
    summarize = SummarizeToolReturns(model='some-model', base_url=url, keep_recent=0)
    assert repr(summarize) == f"SummarizeToolReturns(model='some-model', keep_recent=0, base_url='{shown}')"
    agent = Agent(FunctionModel(respond), capabilities=[summarize])
    agent.tool_plain(name='logs')(lambda: BIG_TEXT)
    with caplog.at_level(logging.WARNING):
        await agent.run('read the logs')
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert any('cannot reach the model server at http://svc:***@127.0.0.1:' in warning for warning in warnings)
    assert any('api-version=2024-06&api_key=***' in warning for warning in warnings)
    assert not any('S3cret' in warning or 'K3y' in warning for warning in warnings)


@pytest.mark.parametrize(
    ('url', 'shown'),
    [
        (
            'http://10.0.0.5:8001/v1?passage=1&keyword=ab&signal=on',
            'http://10.0.0.5:8001/v1?passage=1&keyword=ab&signal=on',
        ),
        ('http://h/v1?pwd=hunter22&jwt=eyJ0.e30', 'http://h/v1?pwd=***&jwt=***'),
        ('http://h/v1#access_token=abcd1234', 'http://h/v1#access_token=***'),
        (
            'http://u:pw1234@h/v1?api-version=2024-06&X-Amz-Signature=ab%2Fcd',
            'http://u:***@h/v1?api-version=2024-06&X-Amz-Signature=***',
        ),
    ],
    ids=['names-holding-a-secret-word-in-part', 'pwd-and-jwt', 'fragment', 'password-and-signature'],
)
def test_a_model_server_url_is_shown_without_its_secrets_and_nothing_else(url: str, shown: str) -> None:
    """Whole words of a parameter's name say it is a secret; its value is hidden wherever a message quotes it."""
    from summarizer.core import redact, url_secrets, without_secrets

    assert without_secrets(url) == shown
    message = f'cannot reach the model server at {url}: connection refused (10.0.0.5:8001)'
    assert (
        redact(message, url_secrets(url))
        == f'cannot reach the model server at {shown}: connection refused (10.0.0.5:8001)'
    )


def test_a_pair_naming_a_secret_in_an_echoed_error_is_hidden_and_a_long_body_read_in_linear_time() -> None:
    """A server's error body is untrusted text of any size: its `api_key=...` pairs hidden, and a word of 50 KB in it
    no longer read again from each of its letters (the name of a pair was: 25 s, in one regex call), nor a run of
    dotted names."""
    from summarizer.core import redact

    body = 'HTTPError: 401 {"api_key": "sk-abcdef123456", \'x-api-key\': \'zzzzzzzz99\'} token=abcdefgh1234 user=alice'
    assert redact(body, echoed=True) == 'HTTPError: 401 {"api_key": "***", \'x-api-key\': \'***\'} token=*** user=alice'
    started = time.process_time()
    assert redact('HTTPError: 502 ' + 'a' * 50_000 + ' token=abcdefgh1234', echoed=True).endswith(' token=***')
    dotted = 'a.' * 25_000  # every letter starts a word: a URL's scheme was read from each to the end (4 s)
    assert redact(f'HTTPError: 502 {dotted} at https://u:pw123456@h/v1', echoed=True).endswith(' https://u:***@h/v1')
    assert time.process_time() - started < 2  # about 0.01 s
