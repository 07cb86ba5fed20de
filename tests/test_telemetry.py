"""OpenTelemetry: in an instrumented agent run, each summary is a span beside pydantic-ai's own."""

from __future__ import annotations

import pytest
from helpers import BIG_LIST, BIG_TEXT, summarizer_model
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability, ProcessHistory
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

from summarizer.capability import SummarizeToolReturns, SummarizeToolReturnsProcessor
from summarizer.core._tokens import estimate_tokens
from summarizer.pipeline._originals import READ_HINT

OUTPUTS = {'logs': BIG_TEXT, 'search': BIG_LIST}


def agent(summarize: AbstractCapability[None], *, instrument: InstrumentationSettings | None) -> Agent[None, str]:
    """Calls `logs`, then `search`, then answers: the `logs` return is summarized before the third request."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(1 for message in messages if isinstance(message, ModelResponse))
        if step < len(OUTPUTS):
            name = list(OUTPUTS)[step]
            return ModelResponse(parts=[ToolCallPart(name, {}, tool_call_id=f'id_{name}')])
        return ModelResponse(parts=[TextPart('done')])

    result = Agent(FunctionModel(respond), capabilities=[summarize])
    result.instrument = instrument  # what `Agent.instrument_all()` and logfire's `instrument_pydantic_ai()` set
    for name, output in OUTPUTS.items():
        result.tool_plain(name=name)(lambda output=output: output)
    return result


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def settings(exporter: InMemorySpanExporter) -> InstrumentationSettings:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return InstrumentationSettings(tracer_provider=provider)


def summary_spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.name.startswith('summarize ')]


async def test_each_summary_is_a_span_of_the_run(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
) -> None:
    summarize = SummarizeToolReturns(threshold_tokens=1000, keep_recent=1)
    result = await agent(summarize, instrument=settings).run('look')

    (span,) = summary_spans(exporter)
    assert span.name == 'summarize logs'
    attributes = dict(span.attributes or {})
    assert attributes['gen_ai.tool.name'] == 'logs' and attributes['gen_ai.tool.call.id'] == 'id_logs'
    assert attributes['summarizer.outcome'] == 'summarized' and attributes['summarizer.cache_hit'] is False
    before, after = attributes['summarizer.tokens_before'], attributes['summarizer.tokens_after']
    assert isinstance(before, int) and isinstance(after, int) and 1000 < before and 0 < after < 1000
    # the span counts the model's summary; the report the one the history holds, which names the read tool
    [held] = [
        part.content
        for message in result.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_name == 'logs'
    ]
    assert isinstance(held, str) and held.count(READ_HINT) == 1
    assert (
        after == estimate_tokens(held.replace(READ_HINT, '')) and estimate_tokens(held) == summarize.report.tokens_after
    )
    assert before == summarize.report.tokens_before
    assert attributes['summarizer.attempts'] == 1 and span.status.status_code is StatusCode.UNSET
    # a child of the run, as pydantic-ai's own model-request spans are
    run = next(s for s in exporter.get_finished_spans() if s.name.startswith('invoke_agent') or s.name == 'agent run')
    assert span.context is not None and run.context is not None
    assert span.context.trace_id == run.context.trace_id and span.parent is not None
    assert BIG_TEXT[:40] not in str(attributes)  # never the content

    exporter.clear()
    await agent(summarize, instrument=settings).run('look again')
    (again,) = summary_spans(exporter)
    assert (again.attributes or {})['summarizer.cache_hit'] is True
    assert (again.attributes or {})['summarizer.attempts'] == 0


async def test_a_failed_summary_is_an_error_span(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
) -> None:
    wordy = summarizer_model(lambda content, budget: content)  # gives the original back: over the threshold
    summarize = SummarizeToolReturns(model=wordy, threshold_tokens=1000, keep_recent=1)
    await agent(summarize, instrument=settings).run('look')

    (span,) = summary_spans(exporter)
    attributes = dict(span.attributes or {})
    assert attributes['summarizer.outcome'] == 'rejected'
    assert attributes['summarizer.tokens_after'] == attributes['summarizer.tokens_before']
    assert span.status.status_code is StatusCode.ERROR and summarize.report.failed == 1


async def test_no_span_when_the_agent_is_not_instrumented(exporter: InMemorySpanExporter) -> None:
    summarize = SummarizeToolReturns(threshold_tokens=1000, keep_recent=1)
    await agent(summarize, instrument=None).run('look')
    assert summarize.report.summarized == 1 and exporter.get_finished_spans() == ()


async def test_the_history_processor_form_makes_the_same_spans(
    exporter: InMemorySpanExporter, settings: InstrumentationSettings
) -> None:
    processor = SummarizeToolReturnsProcessor(threshold_tokens=1000, keep_recent=1)
    await agent(ProcessHistory(processor), instrument=settings).run('look')

    (span,) = summary_spans(exporter)
    attributes = dict(span.attributes or {})
    assert span.name == 'summarize logs' and attributes['summarizer.outcome'] == 'summarized'
    assert attributes['summarizer.tokens_after'] == processor.report.tokens_after
    run = next(s for s in exporter.get_finished_spans() if s.name.startswith('invoke_agent') or s.name == 'agent run')
    assert span.context is not None and run.context is not None and span.context.trace_id == run.context.trace_id
