"""Typed tool returns are never summarized unless a tool rule names their tool.

pydantic-ai reads them back: it rebuilds the agent's tools from a `ToolSearchReturnPart`'s
`discovered_tools` and a loaded capability from a `LoadCapabilityReturnPart`, and a part of a
registered `ToolKind` promises its content's shape. Any part with a `tool_kind`, or of a class of
its own, is left as it is, in a real agent run and in stored files alike.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from helpers import BIG_TEXT, summarizer_model
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    LoadCapabilityReturnPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    TextPart,
    ToolCallPart,
    ToolKind,
    ToolReturnPart,
    ToolSearchReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typing_extensions import TypedDict

from summarizer import Compactor, SummarizerConfig
from summarizer.capability import SummarizeToolReturns
from summarizer.core._config import ToolRule
from summarizer.core._tokens import estimate_tokens
from summarizer.pipeline._walk import walk
from summarizer.stored._stored import StoredHistory, compact_stored


class Stock(TypedDict):
    bins: list[str]


STOCK = ToolKind('trs_tests', 'stock', content=Stock)
NOTES = ToolKind('trs_tests', 'notes')


class StockReturnPart(ToolReturnPart[Stock], kind=STOCK):
    """A typed return part of the test's own kind (a class of its own)."""


BINS: Stock = {'bins': [f'bin {n} holds {n * 3} units of SKU-{n:05d}' for n in range(300)]}
NOTES_TEXT = '\n'.join(f'note {n}: restock aisle {n % 40} before Friday' for n in range(300))
DISCOVERED = {
    'discovered_tools': [{'name': f'inventory_{n}', 'description': f'Inventory lookup {n}'} for n in range(300)]
}
INSTRUCTIONS = {'message': "Capability 'warehouse' loaded.", 'instructions': 'Always check bin numbers. ' * 300}


def config(**overrides: object) -> SummarizerConfig:
    return SummarizerConfig().override(**{'keep_recent': 0, 'threshold_tokens': 200, **overrides})


def typed_history() -> list[ModelMessage]:
    """Each typed kind of return, oversized, and one plain oversized return."""
    return [
        ModelRequest(parts=[UserPromptPart('Restock the warehouse.')]),
        ModelResponse(
            parts=[
                ToolCallPart('search_tools', {'queries': ['inventory']}, tool_call_id='s1'),
                ToolCallPart('load_capability', {'id': 'warehouse'}, tool_call_id='l1'),
                ToolCallPart('stock_levels', {}, tool_call_id='k1', tool_kind=STOCK.id),
                ToolCallPart('notes', {}, tool_call_id='n1', tool_kind=NOTES.id),
                ToolCallPart('read_log', {}, tool_call_id='p1'),
                NativeToolCallPart('web_search', {'q': 'bins'}, tool_call_id='w1', provider_name='openai'),
                NativeToolReturnPart('web_search', {'results': NOTES_TEXT}, tool_call_id='w1', provider_name='openai'),
            ]
        ),
        ModelRequest(
            parts=[
                ToolSearchReturnPart(content=DISCOVERED, tool_call_id='s1'),  # type: ignore[arg-type]
                LoadCapabilityReturnPart(content=INSTRUCTIONS, tool_call_id='l1'),  # type: ignore[arg-type]
                StockReturnPart('stock_levels', content=BINS, tool_call_id='k1'),
                ToolReturnPart('notes', NOTES_TEXT, tool_call_id='n1', tool_kind=NOTES.id),
                ToolReturnPart('read_log', BIG_TEXT, tool_call_id='p1'),
            ]
        ),
        ModelResponse(parts=[TextPart('Done.')]),
    ]


def test_the_walk_offers_only_the_plain_return() -> None:
    messages = typed_history()
    parts = messages[2].parts
    assert [type(part).__name__ for part in parts] == [
        'ToolSearchReturnPart',
        'LoadCapabilityReturnPart',
        'StockReturnPart',
        'ToolReturnPart',
        'ToolReturnPart',
    ]
    found = walk(messages, config=config(), tokenizer=estimate_tokens)
    assert [candidate.part_index for candidate in found.candidates] == [4]
    assert found.returns_seen == 5


def test_a_tool_rule_naming_the_tool_makes_it_a_candidate_again() -> None:
    rules = {name: ToolRule() for name in ('notes', 'stock_levels', 'search_tools', 'load_capability')}
    found = walk(typed_history(), config=config(tools=rules), tokenizer=estimate_tokens)
    assert [candidate.part_index for candidate in found.candidates] == [0, 1, 2, 3, 4]
    skipped = walk(typed_history(), config=config(tools={'read_log': ToolRule(skip=True)}), tokenizer=estimate_tokens)
    assert skipped.candidates == []


async def test_compact_leaves_every_typed_part_of_a_stored_file_byte_exact() -> None:
    text = ModelMessagesTypeAdapter.dump_json(typed_history(), indent=2).decode()
    before = StoredHistory.parse(text)
    assert type(before.messages[2].parts[0]) is ToolSearchReturnPart  # the file loads back typed
    result = await compact_stored(text, Compactor(config=config()))
    assert (result.report.summarized, result.report.failed) == (1, 0), result.report.failures
    assert result.text is not None
    after = StoredHistory.parse(result.text)
    for ref in [(1, 6), (2, 0), (2, 1), (2, 2), (2, 3)]:
        start, end = before.spans[ref]
        after_start, after_end = after.spans[ref]
        assert result.text[after_start:after_end] == text[start:end], ref
    start, end = after.spans[(2, 4)]
    assert end - start < len(BIG_TEXT) / 2  # the plain one was summarized


@dataclasses.dataclass
class Warehouse(AbstractCapability[Any]):
    def get_instructions(self) -> str:
        return 'Warehouse rules: always check bin numbers twice.'


def agent_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Searches tools, loads a capability, calls the typed tools and a plain one, then answers."""
    turn = sum(isinstance(message, ModelResponse) for message in messages)
    if turn == 0:
        return ModelResponse(
            parts=[
                NativeToolCallPart('web_search', {'q': 'bins'}, tool_call_id='w1', provider_name='function'),
                NativeToolReturnPart('web_search', NOTES_TEXT, tool_call_id='w1', provider_name='function'),
                ToolCallPart('search_tools', {'queries': ['inventory']}, tool_call_id='s1'),
                ToolCallPart('load_capability', {'id': 'warehouse'}, tool_call_id='l1'),
            ]
        )
    if turn == 1:
        return ModelResponse(
            parts=[
                ToolCallPart('stock_levels', {}, tool_call_id='k1'),
                ToolCallPart('notes', {}, tool_call_id='n1'),
                ToolCallPart('read_log', {}, tool_call_id='p1'),
            ]
        )
    return ModelResponse(parts=[TextPart('Restocked.')])


async def test_typed_returns_are_left_whole_inside_a_real_agent_run() -> None:
    seen: list[object] = []
    summarize = SummarizeToolReturns(
        model=summarizer_model(lambda content, budget: content[:11] if isinstance(content, str) else content, seen),
        config=config(threshold_tokens=5, min_summary_tokens=2),
    )
    agent = Agent(
        FunctionModel(agent_model),
        capabilities=[summarize, Warehouse(id='warehouse', defer_loading=True, description='Warehouse rules')],
    )
    for n in range(12):
        agent.tool_plain(name=f'inventory_{n}', description=f'Inventory lookup {n}', defer_loading=True)(
            lambda: 'stock'
        )
    agent.tool_plain(tool_kind=STOCK)(stock_levels)
    agent.tool_plain(tool_kind=NOTES)(notes)
    agent.tool_plain(read_log)
    result = await agent.run('Restock the warehouse.')
    returns = [part for message in result.all_messages() for part in message.parts if isinstance(part, ToolReturnPart)]
    by_name = {part.tool_name: part for part in returns}
    [native] = [part for part in result.all_messages()[1].parts if isinstance(part, NativeToolReturnPart)]
    assert native.content == NOTES_TEXT
    assert type(by_name['search_tools']) is ToolSearchReturnPart
    assert len(by_name['search_tools'].content['discovered_tools']) == 10  # type: ignore[index]
    assert type(by_name['load_capability']) is LoadCapabilityReturnPart
    assert type(by_name['stock_levels']) is StockReturnPart and by_name['stock_levels'].content == BINS
    assert by_name['notes'].tool_kind == NOTES.id and by_name['notes'].content == NOTES_TEXT
    assert seen == [BIG_TEXT]  # the summarizer saw the plain return only ...
    assert by_name['read_log'].content == BIG_TEXT[:11]  # ... and summarized it
    assert summarize.report.summarized == 1


def stock_levels() -> Stock:
    return BINS


def notes() -> str:
    return NOTES_TEXT


def read_log() -> str:
    return BIG_TEXT
