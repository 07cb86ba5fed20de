"""How later turns reuse the facts of oversized tool returns, per content kind: what `make_histories.py` is calibrated to.

Run it on the dev corpus and on golden/ and compare per kind, never on what a summarizer keeps:

    PYTHONPATH=. python golden/reuse_stats.py ../shared/dev-corpus/histories
    PYTHONPATH=. python golden/reuse_stats.py golden/histories/*_coding_*.json

Facts and "reused" are the eval's (`LaterTurns.quoted_facts`); a return counts when its JSON text is over 4,000
characters, as in `summarizer eval --min-chars 4000`. Columns: returns and share of them; facts in a return and
facts reused per return; where the reused facts first occur in the return (first tenth, middle, last tenth) and how
often (once, five times or more); how many messages later they are first reused (1, 2-10, 11 or more); the share
reused in tool-call arguments; for shell output, the share on failure lines; for diffs, how many a later assistant
text repeats over 80% (over 40%) of the lines of.

Then, per kind, which facts are reused (`detail`): the sizes of the returns (tokens, lines, line length, facts and
reused facts per 1,000 tokens, the numbered-read format of file reads) and, as shares of the reused facts, the role of
the line each first occurs on (`ROLES`: a line number of a numbered read, a defined name, an import, a body line; a
diff's header, hunk header, added, removed or context line; a listing's path, line number or matched text; a shell
output's failure, `path:line` or test id line), the kind of fact (`fact_kind`), and where the first later turn holding
it has it (`ARG_CHANNELS`: an edit's `old_str` or `new_str`, a read's `offset`, a command, other arguments, assistant
text, a user prompt); and how many of them sit on a line a later turn copies whole.
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

from summarizer._facts import fact_kind, find_facts, token_set
from summarizer._kinds import detect_kind
from summarizer._quoted import LaterTurns, plain_text, turn_texts
from summarizer._shape import JsonValue
from summarizer._tokens import content_tokens

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


NUMBERED = re.compile(r'^ *(\d+)(→|\t|:|\|)')
"""The line-number prefix of a numbered file read: `cat -n`'s `     12\t`, `     12→`, `12:` or `12|`."""
DEFINITION = re.compile(
    r'^\s*(?:@|(?:async\s+)?def\s|class\s|(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b|export\s|interface\s|type\s+\w+\s*=)'
)
IMPORT = re.compile(r'^\s*(?:import\s|from\s+\S+\s+import\b|#include\b|require\()')
COMMENT = re.compile(r'^\s*(?:#|//|/\*|\*|"""|\'\'\')')
GREP_LINE = re.compile(r'^(?P<path>[^\s:]+?)(?P<sep>[:-])(?P<line>\d+)(?P=sep)(?P<text>.*)$')
DIFF_ROLE = (
    (
        'file header',
        re.compile(r'^(?:diff --git |--- |\+\+\+ |index [0-9a-f]|new file mode|deleted file mode|similarity)'),
    ),
    ('hunk header', re.compile(r'^@@ ')),
    ('commit header', re.compile(r'^(?:commit [0-9a-f]{7,}|Author: |Date: |Merge: |    \S)')),
    ('added', re.compile(r'^\+')),
    ('removed', re.compile(r'^-')),
)
ARG_CHANNELS = (
    ('edit old_str', ('old_str', 'old_string', 'oldstr', 'old', 'search')),
    ('edit new_str / write', ('new_str', 'new_string', 'content', 'file_text', 'replace', 'new')),
    ('read offset', ('offset', 'limit', 'view_range', 'start_line', 'end_line', 'line', 'lines')),
    ('command', ('command', 'cmd', 'script')),
)
"""Which tool-call argument a reused fact comes back in, by the argument's name; anything else is 'other args'."""


def _unnumbered(line: str) -> str:
    return NUMBERED.sub('', line, count=1)


def _code_role(fact: str, text: str) -> str:
    """What a reused fact of a file read is: a line number of a numbered read, or by the line it first occurs on."""
    lines = text.splitlines()
    if fact.isdigit() and any((m := NUMBERED.match(line)) and m.group(1) == fact for line in lines):
        return 'line number'
    line = _unnumbered(next((line for line in lines if fact in token_set(line)), ''))
    if IMPORT.match(line):
        return 'import line'
    if DEFINITION.match(line):
        name = re.search(r'(?:def|class|function|interface|type|const|let|var)\s+(\w+)', line)
        return 'defined name' if name and name.group(1) == fact.split('.')[-1] else 'def/class line'
    if COMMENT.match(line):
        return 'comment/docstring'
    return 'string in body' if any(fact in inner for inner in re.findall(r'"[^"]*"|\'[^\']*\'', line)) else 'body'


def _diff_role(fact: str, text: str) -> str:
    line = next((line for line in text.splitlines() if fact in token_set(line)), '')
    return next((role for role, pattern in DIFF_ROLE if pattern.match(line)), 'context')


def _listing_role(fact: str, text: str) -> str:
    for line in text.splitlines():
        if fact not in token_set(line):
            continue
        if m := GREP_LINE.match(line):
            if fact in token_set(m['path']):
                return 'path'
            return 'line number' if fact == m['line'] else 'matched text'
        return 'path' if re.fullmatch(r'\S*[/.]\S*', line.strip()) else 'other line'
    return 'other line'


def _shell_role(fact: str, text: str) -> str:
    line = next((line for line in text.splitlines() if fact in token_set(line)), '')
    if '::' in line:
        return 'test id line'
    if re.search(r'\w\.\w+:\d+|line \d+', line):
        return 'location line'
    return 'failure line' if FAILURE.search(line) else 'other line'


ROLES = {'code': _code_role, 'diff': _diff_role, 'listing': _listing_role, 'shell': _shell_role}
"""What sort of fact a later turn reuses, per content kind: the statistics `make_histories.py` is calibrated to."""


def _channel(fact: str, message: ModelMessage) -> str:
    """How a message reuses `fact`: in which tool-call argument, or in assistant or user text."""
    if isinstance(message, ModelResponse):
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                for key, value in part.args_as_dict().items():
                    if fact in token_set(plain_text(value)):
                        name = key.lower()
                        return next((c for c, keys in ARG_CHANNELS if name in keys), 'other args')
        return 'assistant text'
    return 'user prompt'


def _whole_line_copied(fact: str, text: str, later: str) -> bool:
    """Whether a later turn copies the whole (stripped, unnumbered) line the fact first occurs on."""
    line = _unnumbered(next((line for line in text.splitlines() if fact in token_set(line)), '')).strip()
    return len(line) > 8 and line in later


def tally(
    messages: list[ModelMessage], stats: defaultdict[str, Counter[str]], sizes: defaultdict[str, list[int]]
) -> None:
    """Add the reuse counts of one history's oversized returns to `stats`, and their sizes to `sizes`, per content kind."""
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
            facts = len(find_facts(text))
            count.update(returns=1, facts=facts, reused=len(reused))
            lines = text.splitlines()
            tokens = content_tokens(content)
            sizes[f'{kind} tokens'].append(tokens)
            sizes[f'{kind} facts per 1k tokens'].append(1000 * facts // tokens)
            sizes[f'{kind} reused per 1k tokens'].append(1000 * len(reused) // tokens)
            sizes[f'{kind} lines'].append(len(lines))
            sizes[f'{kind} line length'].extend(len(_unnumbered(line)) for line in lines if line.strip())
            if kind == 'code':
                numbered = [m.group(2) for line in lines[:20] if (m := NUMBERED.match(line))]
                form = 'plain' if len(numbered) < min(10, len(lines)) else {'\t': 'tab'}.get(numbered[0], numbered[0])
                count[f'format:{form}'] += 1
            later_text = '\n'.join(text for message in messages[index + 1 :] for text in turn_texts(message))
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
                if role := ROLES.get(kind):
                    count[f'role:{role(fact, text)}'] += 1
                count[f'fact:{fact_kind(fact) or "quoted"}'] += 1
                count[f'channel:{_channel(fact, messages[first])}'] += 1
                count['line copied'] += _whole_line_copied(fact, text, later_text)
            if kind == 'diff':
                lines = [line for line in lines if len(line.strip()) > 3]
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


def detail(stats: defaultdict[str, Counter[str]], sizes: defaultdict[str, list[int]]) -> str:
    """Which facts are reused (per kind: role of the fact in the return, kind of fact, how the first reuse takes it) and
    what the returns look like (tokens, lines, line length, numbered-read format): shares of the reused facts."""
    rows: list[str] = []
    for kind, count in sorted(stats.items(), key=lambda item: -item[1]['returns']):
        if count['returns'] < 3:
            continue
        reused = max(1, count['reused'])
        tokens = sorted(sizes[f'{kind} tokens'])
        rows.append(
            f'{kind}: tokens median {_quantile(tokens, 0.5):,} (p10 {_quantile(tokens, 0.1):,}, p90 {_quantile(tokens, 0.9):,}),'
            f' lines median {_quantile(sorted(sizes[f"{kind} lines"]), 0.5):,},'
            f' line length median {_quantile(sorted(sizes[f"{kind} line length"]), 0.5)}'
            f' (p90 {_quantile(sorted(sizes[f"{kind} line length"]), 0.9)}),'
            f' facts per 1,000 tokens median {_quantile(sorted(sizes[f"{kind} facts per 1k tokens"]), 0.5)},'
            f' reused {_quantile(sorted(sizes[f"{kind} reused per 1k tokens"]), 0.5)};'
            f' reused facts whose whole line a later turn copies {100 * count["line copied"] / reused:.0f}%'
        )
        for prefix in ('format', 'role', 'fact', 'channel'):
            total = reused if prefix != 'format' else count['returns']
            shares = sorted(
                ((n, key.split(':', 1)[1]) for key, n in count.items() if key.startswith(prefix + ':')), reverse=True
            )
            if shares:
                rows.append(f'  {prefix}: ' + ', '.join(f'{name} {100 * n / total:.0f}%' for n, name in shares))
    return '\n'.join(rows)


def _quantile(values: list[int], q: float) -> int:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0


def main(arguments: list[str]) -> int:
    paths = [path for argument in arguments for path in _files(Path(argument))]
    stats: defaultdict[str, Counter[str]] = defaultdict(Counter)
    sizes: defaultdict[str, list[int]] = defaultdict(list)
    for path in paths:
        try:
            messages = ModelMessagesTypeAdapter.validate_json(path.read_bytes())
        except ValueError:
            continue  # not a history (facts.json, a README)
        tally(messages, stats, sizes)
    print(report(stats))
    print()
    print(detail(stats, sizes))
    return 0


def _files(path: Path) -> list[Path]:
    return sorted(path.glob('*.json')) if path.is_dir() else [path]


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
