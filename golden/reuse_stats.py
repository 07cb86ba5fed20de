"""How later turns reuse the facts of oversized tool returns, per content kind: what `make_histories.py` is calibrated to.

Run it on the dev corpus and on golden/ and compare per kind, never on what a summarizer keeps:

    PYTHONPATH=. python golden/reuse_stats.py ../shared/dev-corpus/histories
    PYTHONPATH=. python golden/reuse_stats.py golden/histories/3[2-9]_*.json golden/histories/4*.json golden/histories/50_*.json

Facts and "reused" are the eval's (`LaterTurns.quoted_facts`); a return counts when its JSON text is over 4,000
characters, as in `summarizer eval --min-chars 4000`. Columns: returns and share of them; facts in a return and
facts reused per return; where the reused facts first occur in the return (first tenth, middle, last tenth) and how
often (once, five times or more); how many messages later they are first reused (1, 2-10, 11 or more); the share
reused in tool-call arguments; for shell output, the share on failure lines; for diffs, how many a later assistant
text repeats over 80% (over 40%) of the lines of.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)

from summarizer._facts import find_facts, token_set
from summarizer._kinds import detect_kind
from summarizer._quoted import LaterTurns, plain_text, turn_texts
from summarizer._shape import JsonValue

MIN_CHARS = 4000
FAILURE = re.compile(r'(?i)error|fail|traceback|assert|exception|warning|^E |^\s+File "')
"""A line of shell output that reports a failure."""


def _turn_tokens(message: ModelMessage) -> tuple[set[str], set[str]]:
    """The tokens a message's tool-call arguments hold, and those its texts (assistant or user) hold."""
    args: set[str] = set()
    texts: set[str] = set()
    if isinstance(message, ModelResponse):
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                args |= token_set(plain_text(part.args_as_dict()))
            elif isinstance(part, TextPart):
                texts |= token_set(part.content)
    else:
        for text in turn_texts(message):
            texts |= token_set(text)
    return args, texts


def tally(messages: list[ModelMessage], stats: defaultdict[str, Counter[str]]) -> None:
    """Add the reuse counts of one history's oversized returns to `stats`, per content kind."""
    later = LaterTurns(messages)
    turns = [_turn_tokens(message) for message in messages]
    for index, message in enumerate(messages):
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if not isinstance(part, ToolReturnPart):
                continue
            raw = json.dumps(part.content, ensure_ascii=False, default=str)
            if len(raw) <= MIN_CHARS:
                continue
            content: JsonValue = json.loads(raw)  # as stored: JSON data
            kind = str(detect_kind(content))
            count = stats[kind]
            text = plain_text(content)
            reused = later.quoted_facts(content, message_index=index)
            count.update(returns=1, facts=len(find_facts(text)), reused=len(reused))
            for fact in reused:
                where = text.find(fact) / max(1, len(text))
                count['first tenth' if where < 0.1 else 'last tenth' if where >= 0.9 else 'middle'] += 1
                occurs = text.count(fact)
                count['once' if occurs == 1 else '5+ times' if occurs >= 5 else '2-4 times'] += 1
                first = next((j for j in range(index + 1, len(messages)) if fact in turns[j][0] | turns[j][1]), index)
                count['1 later' if first - index <= 1 else '2-10 later' if first - index <= 10 else '11+ later'] += 1
                count['in args'] += any(fact in args for args, _ in turns[index + 1 :])
                if kind == 'shell':
                    line = next((line for line in text.splitlines() if fact in line), '')
                    count['failure line'] += bool(FAILURE.search(line))
            if kind == 'diff':
                lines = [line for line in text.splitlines() if len(line.strip()) > 3]
                said = '\n'.join(
                    text
                    for later_message in messages[index + 1 :]
                    if isinstance(later_message, ModelResponse)
                    for text in turn_texts(later_message)
                )
                share = sum(line in said for line in lines) / max(1, len(lines))
                count.update({'repeated > 80%': share > 0.8, 'repeated > 40%': share > 0.4})


def report(stats: defaultdict[str, Counter[str]]) -> str:
    total = sum(count['returns'] for count in stats.values())
    columns = [
        'first tenth',
        'middle',
        'last tenth',
        'once',
        '5+ times',
        '1 later',
        '2-10 later',
        '11+ later',
        'in args',
    ]
    rows = [
        f'returns over {MIN_CHARS:,} characters: {total}',
        '| kind | returns | facts | reused | '
        + ' | '.join(columns)
        + ' | failure lines | diffs repeated > 80% (> 40%) |',
        '|---|' + '--:|' * (len(columns) + 5),
    ]
    for kind, count in sorted(stats.items(), key=lambda item: -item[1]['returns']):
        n, reused = count['returns'], max(1, count['reused'])
        shares = [f'{100 * count[column] / reused:.0f}%' for column in columns]
        failure = f'{100 * count["failure line"] / reused:.0f}%' if kind == 'shell' else ''
        repeated = f'{count["repeated > 80%"]} ({count["repeated > 40%"]})' if kind == 'diff' else ''
        rows.append(
            f'| {kind} | {n} ({100 * n / total:.0f}%) | {count["facts"] / n:.1f} | {count["reused"] / n:.1f} | '
            + ' | '.join(shares)
            + f' | {failure} | {repeated} |'
        )
    return '\n'.join(rows)


def main(arguments: list[str]) -> int:
    paths = [path for argument in arguments for path in _files(Path(argument))]
    stats: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for path in paths:
        try:
            messages = ModelMessagesTypeAdapter.validate_json(path.read_bytes())
        except ValueError:
            continue  # not a history (facts.json, a README)
        tally(messages, stats)
    print(report(stats))
    return 0


def _files(path: Path) -> list[Path]:
    return sorted(path.glob('*.json')) if path.is_dir() else [path]


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
