"""`read_tool_return` inside real Agent runs: the agent reads back the originals of summarized returns."""

from __future__ import annotations

import re
import string
import threading
import time
from collections.abc import Callable

import pytest
from helpers import BIG_OBJECT, BIG_TEXT, compactor, history, loop_gaps, summarizer_model
from pydantic_ai import Agent
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from summarizer import SummarizeToolReturns
from summarizer.capability._read_tool import _SEARCH_SECONDS, render

Step = Callable[[list[ModelMessage]], ModelResponse]


def returns_of(messages: list[ModelMessage], tool_name: str) -> list[ToolReturnPart]:
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_name == tool_name
    ]


def last_answer(messages: list[ModelMessage]) -> str:
    part = returns_of(messages, 'read_tool_return')[-1]
    return part.model_response_str()


async def run_agent(
    summarize: SummarizeToolReturns,
    steps: list[Step],
    tools_seen: list[list[str]] | None = None,
    *,
    tools: dict[str, object] | None = None,
) -> tuple[list[list[ModelMessage]], list[ModelMessage]]:
    """Run an agent whose model answers step k with `steps[k]`; the `logs` and `repo` tools return big contents.

    `tools`: more tools, each by the name and the content it returns.
    """
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if tools_seen is not None:
            tools_seen.append([tool.name for tool in info.function_tools])
        step = sum(1 for message in messages if isinstance(message, ModelResponse))
        return steps[step](messages) if step < len(steps) else ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), capabilities=[summarize])
    agent.tool_plain(name='logs')(lambda: BIG_TEXT)
    agent.tool_plain(name='repo')(lambda: BIG_OBJECT)
    for name, content in (tools or {}).items():
        agent.tool_plain(name=name)(returning(content))
    result = await agent.run('find the slow request')
    assert result.output == 'done'
    return seen, result.all_messages()


def returning(content: object) -> Callable[[], object]:
    def tool() -> object:
        return content

    return tool


def call(tool: str, call_id: str, **args: object) -> Step:
    return lambda messages: ModelResponse(parts=[ToolCallPart(tool, args, tool_call_id=call_id)])


async def test_the_agent_reads_the_matching_original_lines_of_a_summarized_return() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    steps = [call('logs', 'id_logs'), call('read_tool_return', 'read_1', tool_call_id='id_logs', pattern='req-00317')]
    seen, _ = await run_agent(summarize, steps)

    summarized = returns_of(seen[1], 'logs')[0].content
    assert isinstance(summarized, str) and 'req-00317 ' not in summarized  # the summary dropped that line ...
    answer = last_answer(seen[2])
    original_line = BIG_TEXT.splitlines()[317]
    assert f'318: {original_line}' in answer.splitlines()  # ... and the tool gives it back, numbered
    assert '1 of lines 1-600 match' in answer


async def test_a_regex_pattern_on_an_object_return_reads_its_indented_json() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    steps = [
        call('repo', 'id_repo'),
        call('read_tool_return', 'read_1', tool_call_id='id_repo', pattern=r'Issue 1[79] '),
    ]
    seen, _ = await run_agent(summarize, steps)
    assert returns_of(seen[1], 'repo')[0].content != BIG_OBJECT
    lines = last_answer(seen[2]).splitlines()[1:]
    assert len(lines) == 2 and all(re.match(r'\d+:\s+"title": "Issue 1[79] details', line) for line in lines)


async def test_a_long_answer_is_cut_and_says_how_to_page_on() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0, originals={'read_max_characters': 2000})

    def read_on(messages: list[ModelMessage]) -> ModelResponse:
        start = int(re.findall(r'start_line=(\d+)', last_answer(messages))[-1])
        return call('read_tool_return', 'read_2', tool_call_id='id_logs', start_line=start)(messages)

    steps = [call('logs', 'id_logs'), call('read_tool_return', 'read_1', tool_call_id='id_logs'), read_on]
    seen, _ = await run_agent(summarize, steps)
    first, second = last_answer(seen[2]), last_answer(seen[3])
    assert len(first) <= 2000 and len(second) <= 2000
    numbered = [line for line in first.splitlines()[1:] if re.match(r'\d+: ', line)]
    last_shown = int(numbered[-1].split(':')[0])
    assert numbered[0] == f'1: {BIG_TEXT.splitlines()[0]}'
    assert second.splitlines()[1] == f'{last_shown + 1}: {BIG_TEXT.splitlines()[last_shown]}'  # no line lost


async def test_an_unknown_id_gets_a_message_and_the_run_goes_on() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    steps = [
        call('logs', 'id_logs'),
        call('read_tool_return', 'read_1', tool_call_id='nope'),
        call('read_tool_return', 'read_2', tool_call_id='nope'),  # again: no retry budget is spent on it
        call('read_tool_return', 'read_3', tool_call_id='nope'),
    ]
    seen, _ = await run_agent(summarize, steps)
    assert "No tool return with tool_call_id 'nope'" in last_answer(seen[2])
    assert len(returns_of(seen[4], 'read_tool_return')) == 3


async def test_a_return_that_was_not_summarized_has_no_stored_original() -> None:
    summarize = SummarizeToolReturns(model='extractive', keep_recent=1)
    steps = [call('logs', 'id_logs'), call('read_tool_return', 'read_1', tool_call_id='id_logs')]
    seen, _ = await run_agent(summarize, steps)
    assert returns_of(seen[1], 'logs')[0].content == BIG_TEXT
    assert "The original of tool return 'id_logs' (logs) is not stored" in last_answer(seen[2])


async def test_a_return_no_json_text_holds_is_not_stored_and_the_run_goes_on() -> None:
    """An int of over 4,300 digits: Python's int-to-text limit made the tool raise ValueError and end the run."""
    summarize = SummarizeToolReturns(model='extractive', keep_recent=0)
    steps = [call('huge', 'id_huge'), call('read_tool_return', 'read_1', tool_call_id='id_huge')]
    seen, _ = await run_agent(summarize, steps, tools={'huge': {'n': 10**5000, 'log': BIG_TEXT}})
    assert "The original of tool return 'id_huge' (huge) is not stored" in last_answer(seen[2])


async def test_the_tools_own_returns_are_never_summarized() -> None:
    summarize = SummarizeToolReturns(
        model='extractive', keep_recent=0, threshold_tokens=200, originals={'read_max_characters': 8000}
    )
    steps = [call('logs', 'id_logs'), call('read_tool_return', 'read_1', tool_call_id='id_logs'), call('repo', 'r')]
    seen, messages = await run_agent(summarize, steps)
    answer = returns_of(seen[-1], 'read_tool_return')[0].content
    assert isinstance(answer, str) and len(answer) > 200 * 4 * 4  # far over the threshold ...
    heading, *numbered, _ = answer.splitlines()
    assert heading == f'logs return id_logs: 600 lines; lines 1-{len(numbered)}:'  # ... and kept whole
    assert returns_of(messages, 'read_tool_return')[0].content == answer
    assert returns_of(messages, 'repo')[0].content != BIG_OBJECT  # while other returns were summarized


async def test_without_the_originals_store_there_is_no_tool() -> None:
    with_store: list[list[str]] = []
    without: list[list[str]] = []
    await run_agent(SummarizeToolReturns(model='extractive'), [call('logs', 'id_logs')], with_store)
    await run_agent(SummarizeToolReturns(model='extractive', originals=False), [call('logs', 'id_logs')], without)
    assert 'read_tool_return' in with_store[0]
    assert 'read_tool_return' not in without[0] and 'logs' in without[0]


def test_render_ranges_and_bad_ranges() -> None:
    text = '\n'.join(f'line {n}' for n in range(1, 11))
    answer = render(text, title='t', start_line=3, end_line=4, pattern=None, max_characters=1000)
    assert answer.splitlines() == ['t: 10 lines; lines 3-4:', '3: line 3', '4: line 4']
    assert render(text, title='t', start_line=None, end_line=None, pattern='zzz', max_characters=1000) == (
        "t: 10 lines; 0 of lines 1-10 match 'zzz'."
    )
    assert render(text, title='t', start_line=None, end_line=None, pattern='line 1[(]', max_characters=1000).endswith(
        "match 'line 1[(]'."
    )  # no line holds it
    with pytest.raises(ToolFailed, match='has 10 lines'):
        render(text, title='t', start_line=11, end_line=None, pattern=None, max_characters=1000)
    with pytest.raises(ToolFailed, match='line 3 has 6 characters: start_character=7 is past its end'):
        render(text, title='t', start_line=3, end_line=None, pattern=None, max_characters=1000, start_character=7)


def test_a_line_longer_than_an_answer_is_read_whole_a_part_at_a_time() -> None:
    """A 9,764-character line (minified JSON, a CSV row) in answers of 8,000: each part's heading says which
    characters it shows, the closing line where the next part starts, and the parts put together are the line."""
    line = ''.join(f'{n:06d},' for n in range(1395))[:9764]
    text = f'head\n{line}\ntail'
    parts: list[str] = []
    character: int | None = None
    while True:
        answer = render(
            text, title='t', start_line=2, end_line=None, pattern=None, max_characters=8000, start_character=character
        )
        assert len(answer) <= 8000
        heading, entry, *rest = answer.splitlines()
        first = character or 1
        part = entry.removeprefix('2: ')
        parts.append(part)
        if rest and rest[-1].startswith('… line 2 goes on'):
            character = first + len(part)
            assert heading == f't: 3 lines; line 2, characters {first:,}-{character - 1:,} of 9,764:'
            assert rest == [
                f'… line 2 goes on: call read_tool_return again with start_line=2, start_character={character} to read on.'
            ]
            continue
        assert heading == f't: 3 lines; lines 2-3 (line 2: characters {first:,}-9,764 of 9,764):'
        assert rest == ['3: tail']
        break
    assert len(parts) == 2 and ''.join(parts) == line


def test_the_heading_names_exactly_the_lines_shown() -> None:
    text = '\n'.join(f'entry {n}: ' + 'x' * 20 for n in range(1, 2803))
    answer = render(text, title='t', start_line=None, end_line=None, pattern=None, max_characters=8000)
    heading, *numbered, closing = answer.splitlines()
    last = int(numbered[-1].split(':')[0])
    assert last < 2802 and len(answer) <= 8000
    assert heading == f't: 2,802 lines; lines 1-{last}:'
    assert (
        closing
        == f'… answer cut at 8,000 characters: call read_tool_return again with start_line={last + 1} to read on.'
    )
    # with a pattern, the heading counts the matches among the lines searched before the answer filled up
    answer = render(text, title='t', start_line=None, end_line=None, pattern=r'entry \d*7:', max_characters=1000)
    heading, *numbered, closing = answer.splitlines()
    next_line = int(closing.split('start_line=')[1].split()[0])
    assert next_line % 10 == 7 and len(answer) <= 1000
    assert heading == f"t: 2,802 lines; {len(numbered)} of lines 1-{next_line - 1} match 'entry \\\\d*7:':"
    assert [int(entry.split(':')[0]) for entry in numbered] == list(range(7, next_line, 10))


BACKTRACKING = [
    r'(a+)+$',
    r'(x|xa)*b',
    r'(\w+\s?)*;',
    r'(?:a*)*z',
    r'(.?){26}.{26}QQQ',
    r'.*.*.*.*.*.*.*.*.*.*QQQ',
    r'((a|aa)+)+c',
    r'(.*){20}Q',
    r'^(\w+\s?)*$',
]
"""Patterns Python's `re` takes exponential time on when a line almost matches (the last lines of
`NEAR_MISSES`): each of the issue's two ran past 20 s on a 3-line range."""
NEAR_MISSES = ['a' * 40 + '!', 'x' * 40, 'word ' * 20 + '!', 'a' * 40, 'abcdefghij' * 7]


@pytest.mark.parametrize(
    ('pattern', 'matches'),
    [
        (r'(a+)+$', [2, 6, 10]),  # 10: 'a' * 40
        (r'(x|xa)*b', [3, 6, 11]),  # any b
        (r'(\w+\s?)*;', [4, 6]),  # any ;
        (r'(?:a*)*z', [5, 6]),  # any z
        (r'(.?){26}.{26}QQQ', [6]),  # the text itself only
        (r'.*.*.*.*.*.*.*.*.*.*QQQ', [6]),
    ],
)
def test_a_pattern_that_backtracks_in_pythons_re_is_matched_in_linear_time(pattern: str, matches: list[int]) -> None:
    """Model-given patterns run on RE2: a regular expression still, never a stall."""
    text = '\n'.join(['aaa', 'aaa', 'xaxab', 'word word;', 'aaz', f'the text {pattern} itself', *NEAR_MISSES])
    answer = render(text, title='t', start_line=2, end_line=None, pattern=pattern, max_characters=1000)
    assert [int(line.split(':')[0]) for line in answer.splitlines()[1:]] == matches, answer


def test_every_pattern_answers_at_once_on_ten_thousand_lines() -> None:
    """About 20-40 ms each on 2 cores (a 10x margin here); with Python's `re` the backtracking ones never end."""
    lines = [
        f'{n:05d} GET /api/items/{n * 7919 % 100_000} took {n % 900} ms host=10.0.{n % 255}.{n % 7}'
        for n in range(10_000)
    ]
    text = '\n'.join(line if n % 10 else NEAR_MISSES[n // 10 % len(NEAR_MISSES)] for n, line in enumerate(lines))
    for pattern in [*BACKTRACKING, r'took 8\d\d ms', 'host=10.0.3.', r'x*', r'(?i)GET /API']:
        started = time.perf_counter()
        answer = render(text, title='t', start_line=None, end_line=None, pattern=pattern, max_characters=8000)
        seconds = time.perf_counter() - started
        assert seconds < 1.0, (pattern, seconds)
        assert answer.startswith('t: 10,000 lines; ')


@pytest.mark.parametrize(
    ('pattern', 'reason'),
    [('req-(?=003)', 'invalid perl operator'), (r'(a)\1', 'invalid escape sequence'), ('req-003(', 'missing )')],
)
def test_a_pattern_re2_does_not_run_is_matched_as_text_and_the_answer_says_so(pattern: str, reason: str) -> None:
    text = f'req-00317 ok\nfound {pattern} here\nreq-00318 ok'
    answer = render(text, title='t', start_line=None, end_line=None, pattern=pattern, max_characters=1000)
    assert answer.splitlines() == [
        f't: 3 lines; 1 of lines 1-3 match {pattern!r} as plain text (not a regular expression RE2 runs: {reason}):',
        f'2: found {pattern} here',
    ]


def test_a_safe_regex_still_matches_as_a_regex() -> None:
    text = 'def load_config():\ndef save_config():\nx = 10.0.0.1\ndef other():'
    answer = render(text, title='t', start_line=None, end_line=None, pattern=r'def (load|save)_', max_characters=1000)
    assert [line.split(':')[0] for line in answer.splitlines()[1:]] == ['1', '2']
    answer = render(text, title='t', start_line=None, end_line=None, pattern=r'(\d+\.){3}\d', max_characters=1000)
    assert answer.splitlines()[1:] == ['3: x = 10.0.0.1']


async def test_a_later_run_reads_the_originals_of_a_history_compacted_elsewhere() -> None:
    compacted = await compactor(keep_recent=0).compact(history(BIG_TEXT))  # e.g. by `summarizer compact`
    assert returns_of(compacted.messages, 'search')[0].content != BIG_TEXT
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(seen) == 1:
            return ModelResponse(
                parts=[ToolCallPart('read_tool_return', {'tool_call_id': 'call_0', 'pattern': 'req-00421'})]
            )
        return ModelResponse(parts=[TextPart('done')])

    agent = Agent(FunctionModel(respond), capabilities=[SummarizeToolReturns(model='extractive')])
    await agent.run('which host sent req-00421?', message_history=compacted.messages)
    assert f'422: {BIG_TEXT.splitlines()[421]}' in last_answer(seen[1]).splitlines()


async def test_a_long_search_leaves_the_event_loop_free() -> None:
    """The tool answers from a worker thread, and RE2 lets go of the GIL while it searches: the run's
    other tasks go on while a 50,000-line original is searched with a pattern `re` never finishes."""
    text = '\n'.join(f'{n:06d} ' + 'abcdefghij' * 6 for n in range(50_000))
    first_line = summarizer_model(lambda content, budget: str(content).splitlines()[0])
    compacted = await compactor(first_line, max_content_tokens=10_000_000).compact(history(text))
    assert compacted.report.summarized == 1

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if returns_of(messages, 'read_tool_return'):
            return ModelResponse(parts=[TextPart('done')])
        read = {'tool_call_id': 'call_0', 'pattern': r'(.?){26}.{26}QQQ'}
        return ModelResponse(parts=[ToolCallPart('read_tool_return', read)])

    agent = Agent(FunctionModel(respond), capabilities=[SummarizeToolReturns(model='extractive')])
    async with loop_gaps(0.005) as gaps:
        result = await agent.run('is there a QQQ?', message_history=compacted.messages)
    answer = last_answer(result.all_messages())
    assert answer == "search return call_0: 50,000 lines; 0 of lines 1-50000 match '(.?){26}.{26}QQQ'."
    assert max(gaps) < 0.5, max(gaps)


def test_a_pattern_of_thousands_of_groups_matches_every_line_at_once() -> None:
    """`((((a))))` 2,000 deep: RE2 tracking each group cost seconds per match; nothing is captured, so every line matches."""
    pattern = '(' * 2000 + 'a' + ')' * 2000
    text = '\n'.join(['a'] * 5000)
    answers: list[str] = []

    def search() -> None:
        answers.append(render(text, title='t', start_line=None, end_line=None, pattern=pattern, max_characters=400))

    worker = threading.Thread(target=search, daemon=True)  # a daemon: a search past the bound cannot hold the run
    worker.start()
    worker.join(timeout=3 * _SEARCH_SECONDS)
    assert answers, f'still searching after {3 * _SEARCH_SECONDS:g} s'
    heading, first = answers[0].splitlines()[:2]
    assert heading.startswith('t: 5,000 lines; 3 of lines 1-3 match ') and first == '1: a'  # a page, not a stop


def test_any_pattern_on_ten_megabytes_of_long_lines_answers_within_its_time_limit_and_says_what_it_left() -> None:
    """Minified HTML, 1 MB a line: a pattern whose DFA blows up sends RE2 to its NFA (minutes for this text)."""
    piece = '<div class="item"> <a href="/p/ id= data-x= </a> </div> <span> price: 12.50 EUR in stock '
    line = (piece * (1_000_000 // len(piece) + 1))[:1_000_000]
    text = '\n'.join([line] * 10)
    blowup = '|'.join(f'{letter}.{{999}}Q' for letter in string.ascii_letters)
    answers: dict[str, str] = {}
    for pattern in ['abc', r'(.?){26}.{26}QQQ', r'x.{300}y.{300}z', blowup]:

        def search(pattern: str = pattern) -> None:
            answers[pattern] = render(
                text, title='t', start_line=None, end_line=None, pattern=pattern, max_characters=4000
            )

        worker = threading.Thread(target=search, daemon=True)  # a daemon: a search past the bound cannot hold the run
        worker.start()
        worker.join(timeout=3 * _SEARCH_SECONDS)
        assert pattern in answers, f'{pattern[:40]!r} still searching after {3 * _SEARCH_SECONDS:g} s'
    assert answers['abc'] == "t: 10 lines; 0 of lines 1-10 match 'abc'."  # searched whole, said so
    stopped = answers[blowup].splitlines()
    assert stopped[0].startswith('t: 10 lines; no line searched for ')
    assert stopped[1].startswith(
        f'… lines 1-10 (10,000,009 characters) not searched within the time limit ({_SEARCH_SECONDS:g} s): line 1 '
    )
    for answer in answers.values():  # each searched all ten lines, or says which it did not
        assert 'of lines 1-10 match' in answer.splitlines()[0] or 'not searched within the time limit' in answer
