"""The facts later turns quote (`_quoted`): the fast path finds exactly what the full definition finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from summarizer._quoted import LaterTurns, plain_text, referred_facts
from summarizer._shape import JsonValue
from summarizer._stored import StoredHistory
from summarizer._tokens import json_text

GOLDEN = sorted((Path(__file__).resolve().parent.parent / 'golden' / 'histories').glob('*.json'))


def _returns(messages: list[ModelMessage]) -> list[tuple[int, JsonValue]]:
    return [
        (index, part.content)  # type: ignore[misc]
        for index, message in enumerate(messages)
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and isinstance(part.content, (str, list, dict))
    ]


@pytest.mark.parametrize('history', GOLDEN, ids=[path.stem for path in GOLDEN])
def test_the_fast_path_agrees_with_the_definition_on_every_golden_return(history: Path) -> None:
    messages = StoredHistory.parse(history.read_text(encoding='utf-8')).messages
    later = LaterTurns(messages)
    returns = _returns(messages)
    assert returns
    for index, content in returns:
        expected = referred_facts(plain_text(content), later.text_after(index))
        found = later.quoted_facts(content, message_index=index, content_text=json_text(content))
        assert list(found) == expected, f'message {index}'


def _history(content: JsonValue, *, after: str, args: dict[str, str] | None = None) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart('Find it. /srv/日本/東京 example.org')]),  # before the return: not counted
        ModelResponse(parts=[ToolCallPart('search', {'q': 'x'}, tool_call_id='c1')]),
        ModelRequest(parts=[ToolReturnPart('search', content, tool_call_id='c1')]),
        ModelResponse(parts=[TextPart(after), *([ToolCallPart('fetch', args, tool_call_id='c2')] if args else [])]),
    ]


@pytest.mark.parametrize(
    ('content', 'after', 'quoted'),
    [
        # facts whose runs are all lowercase letters: anchored by the connector inside them
        ('Mirror at example.org, docs under /usr/lib/python and more.', 'See example.org and /usr/lib/python.', ['example.org', '/usr/lib/python']),
        ('Request id abcdefab-abcd-abcd-abcd-abcdefabcdef was slow.', 'Retry abcdefab-abcd-abcd-abcd-abcdefabcdef.', ['abcdefab-abcd-abcd-abcd-abcdefabcdef']),
        # a fact with no ASCII letter or digit at all: found through the non-ASCII line
        ('Files\nstored in /日本/東京 today\nnothing else', 'Open /日本/東京 please.', ['/日本/東京']),
        # a short number only with its word, a capitalized sentence start is no name
        ('Most hosts: 47 organizations hit.\nmost were patched.', 'So 47 organizations, Most of them.', ['47 organizations']),
        # nothing quoted: nothing to keep
        ('Host 185.220.101.47 on 2025-03-14.', 'Thanks, all clear.', []),
    ],
)
def test_quoted_facts_of_small_histories(content: str, after: str, quoted: list[str]) -> None:
    messages = _history(content, after=after)
    later = LaterTurns(messages)
    assert list(later.quoted_facts(content, message_index=2, content_text=json_text(content))) == quoted
    assert referred_facts(plain_text(content), later.text_after(2)) == quoted


def test_tool_call_arguments_quote_too_and_a_late_start_sees_the_same() -> None:
    content = {'results': [{'url': 'https://a.example.com/x1', 'title': 'One'}, {'url': 'https://b.example.com/y2', 'title': 'Two'}]}
    messages = _history(content, after='Reading the second.', args={'url': 'https://b.example.com/y2'})  # type: ignore[arg-type]
    for start in (0, 3):  # an agent run builds it from the oldest due return on; the answer is the same
        later = LaterTurns(messages, start=start)
        assert later.quoted_facts(content, message_index=2, content_text=json_text(content)) == ('https://b.example.com/y2',)  # type: ignore[arg-type]


def test_nothing_after_the_return_quotes_nothing() -> None:
    content = 'Host 185.220.101.47 ran build 7f3a9c2e.'
    messages = _history(content, after='')[:3]
    later = LaterTurns(messages)
    assert later.text_after(2) == ''
    assert later.quoted_facts(content, message_index=2, content_text=content) == ()
