"""The plugin inside real pydantic-ai Agent runs (FunctionModel as the agent's model)."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.metadata
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, head_items, summarizer_model
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from summarizer import Compactor, ConfigError, SummarizerConfig
from summarizer.capability import SummarizeToolReturns, SummarizeToolReturnsProcessor
from summarizer.pipeline import HistorySession
from summarizer.pipeline._originals import READ_LINE
from summarizer.pipeline._prompts import parse_data_block

TOOL_OUTPUTS = {'logs': BIG_TEXT, 'search': BIG_LIST, 'repo': BIG_OBJECT}


def make_agent(capabilities: list, seen: list[list[ModelMessage]]) -> Agent:  # type: ignore[type-arg]
    """An agent that calls each tool in turn (one call per step), then answers."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        step = sum(1 for m in messages if isinstance(m, ModelResponse))
        names = list(TOOL_OUTPUTS)
        if step < len(names):
            return ModelResponse(parts=[ToolCallPart(names[step], {}, tool_call_id=f'id_{names[step]}')])
        return ModelResponse(parts=[TextPart('all done')])

    agent = Agent(FunctionModel(respond), capabilities=capabilities)
    for name, output in TOOL_OUTPUTS.items():
        agent.tool_plain(name=name)(lambda output=output: output)
    return agent


def tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


async def test_model_receives_summarized_contents_with_unchanged_ids() -> None:
    calls: list[object] = []
    summarize = SummarizeToolReturns(
        model=summarizer_model(
            lambda content, budget: (
                head_items(content, 2)
                if isinstance(content, list)
                else f'{content[:100]} …'
                if isinstance(content, str)
                else {**content, 'issues': head_items(content['issues'], 0), 'nested': {'readme': 'r', 'stars': 1234}}
            ),
            calls,
        ),
        threshold_tokens=1000,
        keep_recent=1,
        policy='threshold',  # every oversized return as soon as it is due (the cache-aware gate: test_policy.py)
    )
    seen: list[list[ModelMessage]] = []
    result = await make_agent([summarize], seen).run('inspect everything', usage_limits=UsageLimits(request_limit=4))

    # the last request carries all three returns: the older two summarized, the newest verbatim
    last = tool_returns(seen[-1])
    assert [part.tool_call_id for part in last] == ['id_logs', 'id_search', 'id_repo']
    text_summary = f'{BIG_TEXT[:100]} …\n{READ_LINE}'  # no marker of its own: the read hint is a line
    assert last[0].content == text_summary and last[1].content == head_items(BIG_LIST, 2)
    assert last[2].content == BIG_OBJECT
    # the model saw each return whole while it was the most recent one
    assert tool_returns(seen[1])[-1].content == BIG_TEXT
    # summarized once per run, and the rewrite persisted into the run's history
    assert len(calls) == 2
    assert [part.content for part in tool_returns(result.all_messages())][:2] == [text_summary, head_items(BIG_LIST, 2)]
    # summarizer calls did not eat the agent's request limit (4 requests made, limit 4) and are reported apart
    assert result.usage.requests == 4
    assert summarize.report.summarized == 2 and summarize.report.model_calls == 2
    assert summarize.report.summarizer_input_tokens > 0


async def test_each_run_gets_its_own_session_and_the_cache_keeps_summaries_stable() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    first_seen: list[list[ModelMessage]] = []
    second_seen: list[list[ModelMessage]] = []
    await make_agent([summarize], first_seen).run('inspect everything')
    await make_agent([summarize], second_seen).run('inspect everything again')
    assert [p.content for p in tool_returns(first_seen[-1])] == [p.content for p in tool_returns(second_seen[-1])]
    assert summarize.report.summarized == 6 and summarize.report.model_calls == 3
    assert summarize.report.cache_hits == 3


async def test_steady_state_walks_only_new_messages() -> None:
    seen: list[list[ModelMessage]] = []
    result = await make_agent([], seen).run('inspect everything')
    # walking, not the cache-aware gate (test_policy.py): every oversized return as soon as it is due
    session = SummarizeToolReturns(model='extractive', keep_recent=0, policy='threshold').compactor.session()
    history = await session.process(list(result.all_messages()))
    assert session.messages_walked == len(history) and session.report.summarized == 3
    for step in range(5):
        history.append(ModelResponse(parts=[TextPart(f'more {step}')]))
        history = await session.process(history)
    # each later request walks only the new message
    assert session.messages_walked == len(result.all_messages()) + 5
    assert session.report.summarized == 3 and session.report.model_calls == 3

    edited = [history[0], *history[2:]]  # not a continuation: the session starts over, still correct
    history = await session.process(edited)
    assert session.messages_walked == len(result.all_messages()) + 5 + len(edited)


async def test_a_history_handed_back_as_equal_copies_continues_the_session() -> None:
    """A durable run stores its history between requests and hands back copies: the same history, by value."""
    seen: list[list[ModelMessage]] = []
    result = await make_agent([], seen).run('inspect everything')
    session = SummarizeToolReturns(model='extractive', keep_recent=0, policy='threshold').compactor.session()
    history = await session.process(list(result.all_messages()))
    walked = session.messages_walked
    for step in range(3):
        stored = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(history))
        assert stored == history and all(a is not b for a, b in zip(stored, history))
        history = await session.process([*stored, ModelResponse(parts=[TextPart(f'more {step}')])])
    assert session.messages_walked == walked + 3  # each request walks its one new message
    assert session.report.summarized == 3 and session.report.returns_examined == 3


async def test_a_last_message_given_new_parts_is_walked_again() -> None:
    """pydantic-ai adds parts to a request after the history processors by giving it a new `parts` list."""
    session = SummarizeToolReturns(model='extractive', keep_recent=0, policy='threshold').compactor.session()
    call = ToolCallPart('logs', {}, tool_call_id='late')
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('go')]), ModelResponse(parts=[call])]
    history.append(ModelRequest(parts=[ToolReturnPart('logs', 'small', tool_call_id='late')]))
    history = await session.process(history)
    assert session.report.returns_examined == 1

    history = await session.process(history)  # the same history again: nothing new, nothing walked
    assert session.messages_walked == 3 and session.report.returns_examined == 1

    last = history[-1]
    assert isinstance(last, ModelRequest)
    last.parts = [*last.parts, ToolReturnPart('logs', BIG_TEXT, tool_call_id='late')]
    history.append(ModelResponse(parts=[TextPart('done')]))
    history = await session.process(history)
    assert session.messages_walked == 5 and session.report.returns_examined == 2
    assert session.report.summarized == 1


async def test_history_processor_in_process_history() -> None:
    processor = SummarizeToolReturnsProcessor(model='extractive', keep_recent=0)
    seen: list[list[ModelMessage]] = []
    await make_agent([ProcessHistory(processor)], seen).run('inspect everything')
    final = tool_returns(seen[-1])
    assert len(final) == 3 and all(part.content != TOOL_OUTPUTS[part.tool_name] for part in final)
    assert processor.report.summarized == 3 and processor.report.failed == 0


async def test_in_an_agent_run_a_fact_the_model_quoted_survives_the_summary() -> None:
    """The model quotes a log line in its next step; when the log leaves the recent window and is
    summarized, that line's facts stay (the same run blind, with keep_quoted_facts off, drops them)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(1 for m in messages if isinstance(m, ModelResponse))
        if step == 0:
            return ModelResponse(parts=[ToolCallPart('logs', {}, tool_call_id='id_logs')])
        if step == 1:
            quote = TextPart('The slow one is req-00317 from 10.1.117.67; searching for it.')
            return ModelResponse(parts=[quote, ToolCallPart('search', {'q': 'req-00317'}, tool_call_id='id_search')])
        return ModelResponse(parts=[TextPart('done')])

    async def last_log_seen(keep_quoted_facts: bool) -> str:
        seen: list[list[ModelMessage]] = []

        def recording(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            seen.append(list(messages))
            return respond(messages, info)

        config = SummarizerConfig().override(keep_recent=1, keep_quoted_facts=keep_quoted_facts)
        agent = Agent(FunctionModel(recording), capabilities=[SummarizeToolReturns(config=config)])
        for name in ('logs', 'search'):
            agent.tool_plain(name=name)(lambda name=name: TOOL_OUTPUTS[name])
        await agent.run('find the slow request')
        content = tool_returns(seen[-1])[0].content
        assert isinstance(content, str) and len(content) < len(BIG_TEXT)  # summarized by the last request
        return content

    assert 'req-00317' not in await last_log_seen(keep_quoted_facts=False)
    kept = await last_log_seen(keep_quoted_facts=True)
    assert 'req-00317' in kept and '10.1.117.67' in kept


async def test_returns_examined_counts_each_return_of_an_agent_run_once() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    await make_agent([summarize], []).run('inspect everything')
    assert summarize.report.returns_examined == len(TOOL_OUTPUTS)  # was 2N-1: the last message walked again


async def test_the_capability_is_a_plain_dataclass_whose_runs_keep_every_field() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0, id='summarizer', description='shrinks')
    run = await summarize.for_run(None)  # type: ignore[arg-type]
    assert isinstance(run, SummarizeToolReturns) and run is not summarize
    assert (run.id, run.description, run.keep_recent) == ('summarizer', 'shrinks', 0)
    assert run.compactor is summarize.compactor and run.report is summarize.report
    assert run._session is not summarize._session  # pyright: ignore[reportPrivateUsage]
    assert (
        repr(summarize)
        == "SummarizeToolReturns(id='summarizer', description='shrinks', model='extractive', keep_recent=0)"
    )
    await make_agent([summarize], []).run('inspect everything')
    assert summarize.report.summarized == 3  # the runs' counts land in the shared report


def test_keyword_arguments_mirror_the_config_keys() -> None:
    summarize = SummarizeToolReturns(
        strict=True,
        keep_quoted_facts=False,
        base_url='http://127.0.0.1:11434/v1',
        server='ollama',
        output_mode='native',
        concurrency=2,
        timeout_seconds=5,
        tools={'search': {'skip': True}},
        cache=False,
        originals={'read_max_characters': 1000},
    )
    config = summarize.compactor.config  # type: ignore[union-attr]
    assert (config.strict, config.keep_quoted_facts, config.base_url, config.server) == (
        True,
        False,
        'http://127.0.0.1:11434/v1',
        'ollama',
    )
    assert (config.output_mode, config.concurrency, config.timeout_seconds) == ('native', 2, 5)
    assert config.tools['search'].skip and not config.cache.enabled
    assert config.originals.read_max_characters == 1000 and config.originals.enabled
    with pytest.raises(ConfigError, match='server must be one of'):
        SummarizeToolReturns(server='nonsense')  # type: ignore[arg-type]


def test_the_package_exports_the_plugin_a_version_and_type_information() -> None:
    import summarizer

    assert summarizer.SummarizeToolReturns is SummarizeToolReturns
    assert summarizer.SummarizeToolReturnsProcessor is SummarizeToolReturnsProcessor
    assert summarizer.__version__ == importlib.metadata.version('tool-return-summarizer')
    assert (Path(summarizer.__file__).parent / 'py.typed').is_file()
    assert 'compact_file' not in (summarizer.__doc__ or '')


async def test_the_history_processor_keeps_no_originals_since_it_adds_no_tool(isolated_cache: Path) -> None:
    processor = SummarizeToolReturnsProcessor(model='extractive', keep_recent=0)
    await make_agent([ProcessHistory(processor)], []).run('inspect everything')
    assert processor.report.summarized == 3
    assert not processor.compactor.originals.enabled  # type: ignore[union-attr]
    assert not isolated_cache.with_name('cache-originals').exists()


async def test_runs_sharing_one_session_each_see_only_their_own_turns() -> None:
    """A processor shared by concurrent runs keeps one session: a run awaiting its summaries while
    another run's request restarts the session must still summarize with its own turns' facts."""
    told: dict[str, tuple[str, ...]] = {}

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        block = parse_data_block(str(messages[-1].parts[-1].content))
        text = str(block.content)
        told[text.split(' ', 1)[0]] = block.quoted
        await asyncio.sleep(0.3 if text.startswith('run-A ') else 0.05)  # A's summary comes back last
        return ModelResponse(parts=[TextPart(text[:200])])

    def big(tag: str, extra: str) -> str:
        return '\n'.join(f'{tag} line {n}: value {n} ' + 'filler words here ' * 8 for n in range(200)) + f'\n{extra}'

    def step(call_id: str, content: str) -> list[ModelMessage]:
        return [
            ModelResponse(parts=[ToolCallPart('fetch', {'page': call_id}, tool_call_id=call_id)]),
            ModelRequest(parts=[ToolReturnPart('fetch', content, tool_call_id=call_id)]),
        ]

    run_a: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Task: look up account_id_4411 please')]),
        *step('a0', big('run-A', 'x')),
    ]
    run_b: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart('Task: check invoice_7788 please')]),
        ModelResponse(parts=[TextPart('Noted. I will also need order_9911.')]),
        ModelRequest(parts=[UserPromptPart('go on')]),
        *step('b0', big('run-B', 'y')),
    ]
    config = SummarizerConfig().override(keep_recent=0, policy={'kind': 'threshold'}, cache={'enabled': False})
    session = Compactor(config=config, model=FunctionModel(respond)).session()

    async def b_meanwhile() -> list[ModelMessage]:
        await asyncio.sleep(0.1)  # while A awaits its summary
        return await session.process(list(run_b))

    first_a, first_b = await asyncio.gather(session.process(list(run_a)), b_meanwhile())
    assert first_a[2] != run_a[2] and first_b[4] != run_b[4]  # both runs' returns summarized
    later = [ModelResponse(parts=[TextPart('ok')]), ModelRequest(parts=[UserPromptPart('next')])]
    await session.process([*first_a, *later, *step('a1', big('run-A2', 'account_id_4411 order_9911 invoice_7788'))])
    assert told['run-A2'] == ('account_id_4411',)  # A's own task, none of B's turns


async def test_instructions_set_on_the_last_message_after_processing_are_counted() -> None:
    """pydantic-ai writes a request's instructions after the history processors, its parts untouched."""

    def fresh() -> HistorySession:
        return SummarizeToolReturns(model='extractive', keep_recent=1).compactor.session()

    session = fresh()
    call = ToolCallPart('logs', {}, tool_call_id='a')
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('go')]), ModelResponse(parts=[call])]
    history = await session.process([*history, ModelRequest(parts=[ToolReturnPart('logs', 'ok', tool_call_id='a')])])
    last = history[-1]
    assert isinstance(last, ModelRequest)
    last.instructions = 'Follow the house rules. ' * 500
    history = [*history, ModelResponse(parts=[TextPart('hm')]), ModelRequest(parts=[UserPromptPart('next')])]
    before = session.report.prompt_tokens
    await session.process(history)

    whole = fresh()
    await whole.process(history)
    assert session.report.prompt_tokens - before == whole.report.prompt_tokens > 3000


SECRET = 'api_key=sk-live-51f0c2'


def secret_logs(n: int) -> str:
    """A big return whose first line holds a secret an application scrubs later."""
    return f'config dump {n}: {SECRET}\n{BIG_TEXT}'


def scripted(calls: int) -> FunctionModel:
    """A model that calls `fetch(n)` `calls` times, one call per response, then answers."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        made = sum(isinstance(message, ModelResponse) for message in messages)
        if made < calls:
            return ModelResponse(parts=[ToolCallPart('fetch', {'n': made}, tool_call_id=f'call_{made}')])
        return ModelResponse(parts=[TextPart('done')])

    return FunctionModel(respond)


def scrubbed(message: ModelMessage) -> ModelMessage:
    """The message with the secret taken out of its tool returns (a new message and new parts, as an app makes)."""
    if not isinstance(message, ModelRequest) or SECRET not in str(message.parts):
        return message
    parts = [
        dataclasses.replace(part, content=part.content.replace(SECRET, '[REDACTED]'))
        if isinstance(part, ToolReturnPart) and isinstance(part.content, str)
        else part
        for part in message.parts
    ]
    return dataclasses.replace(message, parts=parts)


@pytest.mark.parametrize('policy', ['threshold', 'cache-aware'])
async def test_an_earlier_processor_redacting_old_returns_is_never_undone(policy: str) -> None:
    """A history processor before the summarizer replaces returns older than two turns with scrubbed copies:
    a summary of the content as first seen must never be written over the scrubbed message."""

    def redact_old(messages: list[ModelMessage]) -> list[ModelMessage]:
        responses = [index for index, message in enumerate(messages) if isinstance(message, ModelResponse)]
        cutoff = responses[-2] if len(responses) >= 2 else 0
        return [scrubbed(message) if index < cutoff else message for index, message in enumerate(messages)]

    seen: list[list[ModelMessage]] = []
    summarize = SummarizeToolReturns(keep_recent=2, threshold_tokens=300, policy=policy)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return scripted(5).function(messages, info)  # type: ignore[return-value,union-attr]

    agent = Agent(FunctionModel(respond), capabilities=[ProcessHistory(redact_old), summarize])
    agent.tool_plain(name='fetch')(secret_logs)
    await agent.run('go')

    for messages in seen:
        responses = [index for index, message in enumerate(messages) if isinstance(message, ModelResponse)]
        cutoff = responses[-2] if len(responses) >= 2 else 0
        assert not any(SECRET in str(message) for message in messages[:cutoff]), 'a scrubbed return came back'
    # walked again from each edit, not from scratch: each return examined once (the ledger kept too)
    assert summarize.report.returns_examined == 5
    assert policy == 'cache-aware' or summarize.report.summarized == 3  # every return that left the window


async def test_a_conversation_scrubbed_between_runs_keeps_the_scrub_and_its_new_content() -> None:
    """One processor serves an agent's runs; the application scrubs a stored return, then continues the run."""
    processor = SummarizeToolReturnsProcessor(keep_recent=2, threshold_tokens=300)
    agent = Agent(scripted(2), capabilities=[ProcessHistory(processor)])
    agent.tool_plain(name='fetch')(secret_logs)
    history = (await agent.run('go')).all_messages()
    assert SECRET in str(history[2])  # still in the keep_recent window: waiting for its summary
    history[2] = scrubbed(history[2])

    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        made = sum(isinstance(message, ModelResponse) for message in messages) - 3
        if made < 2:
            return ModelResponse(parts=[ToolCallPart('fetch', {'n': 10 + made}, tool_call_id=f'later_{made}')])
        return ModelResponse(parts=[TextPart('done')])

    result = await agent.run('continue', message_history=history, model=FunctionModel(respond))

    for messages in [*seen, result.all_messages()]:
        assert SECRET not in str(messages[2]) and '[REDACTED]' in str(messages[2])


async def test_an_earlier_processor_dropping_old_returns_does_not_break_the_run() -> None:
    """A processor drops one of two parallel returns once two turns old (and its call): the summarizer had it waiting."""

    def drop_old_noise(messages: list[ModelMessage]) -> list[ModelMessage]:
        responses = [index for index, message in enumerate(messages) if isinstance(message, ModelResponse)]
        cutoff = responses[-2] if len(responses) >= 2 else 0
        kept: list[ModelMessage] = []
        for index, message in enumerate(messages):
            parts = [part for part in message.parts if getattr(part, 'tool_name', None) != 'noise']
            kept.append(
                dataclasses.replace(message, parts=parts)
                if index < cutoff and len(parts) < len(message.parts)
                else message
            )  # type: ignore[arg-type]
        return kept

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        made = sum(isinstance(message, ModelResponse) for message in messages)
        if made == 0:
            return ModelResponse(
                parts=[ToolCallPart('fetch', {'n': 0}, tool_call_id='c0'), ToolCallPart('noise', {}, tool_call_id='z0')]
            )
        if made < 4:
            return ModelResponse(parts=[ToolCallPart('fetch', {'n': made}, tool_call_id=f'c{made}')])
        return ModelResponse(parts=[TextPart('done')])

    summarize = SummarizeToolReturns(keep_recent=2, threshold_tokens=300, policy='threshold')
    agent = Agent(FunctionModel(respond), capabilities=[ProcessHistory(drop_old_noise), summarize])
    agent.tool_plain(name='fetch')(secret_logs)
    agent.tool_plain(name='noise')(lambda: BIG_TEXT)
    result = await agent.run('go')

    assert result.output == 'done' and summarize.report.summarized >= 2


async def test_a_summary_naming_its_call_never_reaches_another_conversation(isolated_cache: Path) -> None:
    """Two conversations get the same page back from different calls; a summarizer model whose summary follows
    the call it was shown (as models' do: the lines kept answer the query) summarizes each: the second is not
    served the first one's summary."""
    lines = BIG_TEXT.split('\n')

    def follows_the_call(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        arguments = prompt.split('called with these arguments: ', 1)[1].split('\n', 1)[0]
        kept = lines[7] if 'Jane Roe' in arguments else lines[9]
        return ModelResponse(parts=[TextPart(f'{kept}\n… {len(lines) - 1} lines omitted …')])

    async def conversation(query: str) -> str:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            made = sum(isinstance(message, ModelResponse) for message in messages)
            if made < 2:
                return ModelResponse(
                    parts=[ToolCallPart('search', {'query': query if made == 0 else 'next'}, f'c{made}')]
                )
            return ModelResponse(parts=[TextPart('done')])

        summarize = SummarizeToolReturns(model=FunctionModel(follows_the_call), keep_recent=1, policy='threshold')
        agent = Agent(FunctionModel(respond), capabilities=[summarize])
        agent.tool_plain(name='search')(lambda query: BIG_TEXT)
        return str((await agent.run('go')).all_messages()[2].parts[0].content)  # type: ignore[union-attr]

    first = await conversation('test results for Jane Roe')
    second = await conversation('pizza near me')
    assert first.startswith(lines[7]) and second.startswith(lines[9])


async def test_a_processor_editing_the_last_message_returned_keeps_the_session() -> None:
    """A processor before the summarizer scrubs every return but the newest turn's: at each request it replaces
    the very message the summarizer returned last. That message is walked again; the run is not started over."""

    def redact_all_but_newest(messages: list[ModelMessage]) -> list[ModelMessage]:
        responses = [index for index, message in enumerate(messages) if isinstance(message, ModelResponse)]
        cutoff = responses[-1] if responses else 0
        return [scrubbed(message) if index < cutoff else message for index, message in enumerate(messages)]

    async def run(processors: list[ProcessHistory]) -> SummarizeToolReturns:  # type: ignore[type-arg]
        summarize = SummarizeToolReturns(keep_recent=1, threshold_tokens=300)
        agent = Agent(scripted(8), capabilities=[*processors, summarize])
        agent.tool_plain(name='fetch')(secret_logs)
        await agent.run('go')
        return summarize

    plain = await run([])
    edited = await run([ProcessHistory(redact_all_but_newest)])
    assert edited.report.returns_examined == plain.report.returns_examined == 8
    assert edited.report.summarized == plain.report.summarized > 0  # the ledger kept: the policy rewrites as usual


async def test_the_providers_reported_cache_usage_is_counted_beside_the_prediction(tmp_path: Path) -> None:
    """A model reporting cache usage as Anthropic does: the report holds both, and the cost prices the bill."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        made = sum(isinstance(message, ModelResponse) for message in messages)
        usage = RequestUsage(input_tokens=2000 + 5000 * made, cache_read_tokens=4000 * made, cache_write_tokens=1000)
        if made < 3:
            return ModelResponse(parts=[ToolCallPart('logs', {'day': made}, tool_call_id=f'c{made}')], usage=usage)
        return ModelResponse(parts=[TextPart('done')], usage=usage)

    summarize = SummarizeToolReturns(keep_recent=1, originals={'directory': str(tmp_path)})
    agent = Agent(FunctionModel(respond), capabilities=[summarize])
    agent.tool_plain(name='logs')(lambda day: BIG_TEXT)  # each day's own call: a summary, no repeat
    await agent.run('go')
    report = summarize.report
    assert report.billed_requests == report.requests == 4
    assert report.billed_input_tokens == 2000 + 7000 + 12000 + 17000
    assert (report.billed_cache_read_tokens, report.billed_cache_write_tokens) == (4000 * 6, 4000)
    assert report.prompt_tokens > 0 and report.prompt_cached_tokens > 0  # the prediction, beside the bill
    cost = summarize.cost('anthropic:claude-sonnet-4-5')
    # $3 per million input tokens, $0.30 read from the cache, $3.75 written to it
    assert cost.billed is not None and float(cost.billed) == pytest.approx(
        (10000 * 3 + 24000 * 0.3 + 4000 * 3.75) / 1e6
    )
    assert cost.saved is not None and float(cost.saved) == pytest.approx(
        float(cost.billed * cost.uncompacted / cost.compacted - cost.billed)
    )
