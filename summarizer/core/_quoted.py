"""What the conversation already quotes from a tool return: the facts its summary must keep.

A return is summarized after later turns exist: in a batch, the whole stored conversation; in an
agent run, at least the turns since the return left the `keep_recent` window. When the assistant
wrote "the bug is in `Parser.parse_file`" or called `fetch(url=...)` with a URL from a search
result, a summary that drops that name or URL leaves a history that quotes something it no longer
contains. So the facts of a return (see `_facts`) that a later turn holds are handed to the
summarizer as facts to keep verbatim.

A return is also read for the facts a turn *before* it already holds (`Turns.known_facts`): the
task named `load_config`, the return's own call asked for `src/app.py`. Those are what the agent was
after when it called the tool, known however early the return is summarized, so they are kept too.

The task also names what it is after in words no fact pattern reads: "What is my Facebook security
code?" (`topic_words`). Such a name, capitalized inside a sentence of a user prompt, is handed over
with the earlier facts where the return holds it, so a summary of a mailbox keeps a line of the mail
from Facebook. A phrase the prompt quotes ('Networking event') is a fact of both texts where the return
writes it so; where it writes it in other case (`title: Networking Event`), it is handed over as the
return spells it. Names come from questions and requests only (`_ASKING`): a pasted issue's headings
name nothing.

A fact of a return is *quoted* when a later turn -- assistant text, the arguments of a later tool
call, a later user prompt -- holds it (`_facts.referred_facts`). That is also the eval's definition
of the facts a summary is scored on, so the pipeline and the metric cannot drift apart.

The turns are read once into maps from each of their tokens to the first and the last message
holding it; a content is then read by one pass of `_facts`' compiled patterns and a set look-up per
distinct token, tens of MB/s (see `bench/`).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import cast

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from ._facts import PossibleFacts, Vocabulary, fact_kind, holds_token, pieces_tokens, quoted_strings
from ._shape import JsonValue, all_strings


def plain_text(value: JsonValue, *, json_text: str | None = None) -> str:
    r"""The text a reader sees in a JSON value: its strings, keys and scalars, one per line.

    Facts are found and compared in this form, not in JSON text, where escapes would glue an escape
    letter to a fact (`\nAPT28`) or hide a fact with a quote in it.

    `json_text`: the value's compact JSON text (`core.json_text`), when at hand (a candidate's). An object's or a
    list's plain text is then cut out of it by a few passes in C (`_plain_of_json`), in about two thirds of
    the time of going through the value; a list of strings is joined as it is, sooner still.
    """
    if isinstance(value, str):
        return value
    if json_text is not None and (isinstance(value, dict) or (isinstance(value, list) and not all_strings(value))):
        plain = _plain_of_json(json_text)
        if plain is not None:
            return plain
    pieces: list[str] = []
    _collect(value, pieces)
    return '\n'.join(pieces)


def _collect(value: JsonValue, pieces: list[str]) -> None:
    """Append the strings, keys and scalars of `value` in order (a call per container, not a generator per level).

    A list of strings only (lines, names: most of a tool output's long lists), told by its items'
    types, is joined in one C call; others are gone through item by item (objects are short: testing
    them first would cost more than it saves).
    """
    if isinstance(value, list):
        if value and all_strings(value):
            pieces.append('\n'.join(cast('list[str]', value)))
            return
        for item in value:
            if isinstance(item, str):
                pieces.append(item)
            else:
                _collect(item, pieces)
    elif isinstance(value, dict):
        for key, item in value.items():
            pieces.append(key)
            if isinstance(item, str):
                pieces.append(item)
            else:
                _collect(item, pieces)
    elif value is not None and not isinstance(value, bool):
        try:
            pieces.append(str(value))
        except ValueError:  # an int of over 4,300 digits, which Python will not write out: no turn quotes it
            pass


def _plain_of_json(text: str) -> str | None:
    """`plain_text` of the JSON data whose compact JSON text is `text`; None when it has to go through the data.

    A text without a backslash escapes nothing: no string of the data (key or value) holds a quote, a
    backslash or a control character, which JSON writes with one, and other characters are written as
    they are (`ensure_ascii=False`). Each string then stands as it is between two quotes, so splitting
    at the quotes gives, in order, what stands between strings (even places) and each string (odd
    places). Between strings stand brackets, commas, colons, `true`, `false` and `null` (none a piece of
    plain text) and numbers, written as `str` writes an int or a float, but for `NaN` and `Infinity`
    (`str` has `nan`, `inf`): a text holding them, or a backslash, is left to `_collect`.

    Linear in the text, whatever it holds: splits, replacements and joins only.
    """
    if '\\' in text:
        return None
    parts = text.split('"')
    between = '"'.join(parts[0::2])  # a quote where each string stood
    if 'N' in between or 'I' in between:  # NaN, Infinity: no other capital stands outside strings
        return None
    for literal in ('true', 'false', 'null'):
        between = between.replace(literal, ' ')
    scalars = between.translate(_PUNCTUATION_TO_SPACE).split()  # the numbers, and each string's quote
    parts[0::2] = '\n'.join(scalars).split('"')  # the numbers between each two strings, a line each
    return ''.join(parts)


_PUNCTUATION_TO_SPACE = str.maketrans('{}[],:', '      ')


def turn_texts(message: ModelMessage) -> Iterator[str]:
    """What a turn can quote a tool return with: assistant text and tool-call arguments, user prompts.

    Arguments stored as JSON text are read as their plain text, as a content is, so an argument
    `"path": "/src/app.py"` holds `/src/app.py` and an escaped line break glues no letter to a name.
    """
    if isinstance(message, ModelResponse):
        for part in message.parts:
            if isinstance(part, TextPart):
                yield part.content
            elif isinstance(part, ToolCallPart):
                yield _args_text(part.args)
    elif isinstance(message, ModelRequest):
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                if isinstance(part.content, str):
                    yield part.content
                else:
                    yield from (item for item in part.content if isinstance(item, str))


_TOPIC = re.compile(r'(?<=[a-zß-öø-ÿ0-9,;)] )[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]{2,}(?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)*\b')
"""A capitalized word inside a sentence (after a lower-case word, a number or a comma): a name, not a sentence's start,
nor a clause's after a colon (`Current Task: Describe the file`, `Body: Message to self`). Its letters are Latin-1's
(`Zürich`, `Malmö`): `re` has no class of upper-case letters at large."""
_TOPICS = 12
"""The most names a conversation's user prompts hand over: each costs a summary at most one line (the first
line holding it keeps it), and a long pasted prompt names more things than any summary has room for."""


_ASKING = 1000
"""The longest prompt read for names: a question or a request (`What is my Facebook security code?`). A longer one is
a pasted text (an issue, a report, a template) whose headings and sentence-initial words read as names (`Statement`,
`Reproduce`, `Developments`): pinned, they would keep a menu's link that holds one, not what the task is after."""
_NAME_CHARS = 64
"""The longest name looked for: a content is searched for each at every place, so a prompt's word of hundreds of
letters (`Aaaa…`) against a content of `Aaaa…` would take as many steps as their lengths' product."""
_NAMED_AT_MOST = 4
"""A name a return holds more often says nothing of which part of it the task is after (`São Paulo`, the city every
offer of a flight search flies to): kept once, it would spend a line of the summary on nothing a reader needs."""


def topic_words(text: str) -> Iterator[str]:
    """The names `text` (a user prompt) gives in words (`Facebook`, `Phoenix`), in order, each once.

    No fact pattern reads them. Lazily: a pasted prompt of a megabyte is read only as far as the names wanted.
    """
    seen: set[str] = set()
    for match in _TOPIC.finditer(text):
        word = match.group()
        if word not in seen:
            seen.add(word)
            if fact_kind(word) is None:
                yield word


_PHRASE = re.compile(r"""(?<![\w'"`])['"`]([^\W\d_][\w&-]*(?: [\w&-]+){1,5})['"`](?![\w'"`])""")
"""A phrase of two to six words a prompt quotes (`'Networking event'`, `'Ärzte ohne Grenzen'`), from a letter on: the
name of what the task is after, which a return may write in other case (`title: Networking Event`)."""


def _is_phrase(name: str) -> bool:
    """Whether a name is a quoted phrase (`quoted_phrases`), found in any case, rather than a word, found as it is."""
    return ' ' in name


def quoted_phrases(text: str) -> Iterator[str]:
    """The phrases `text` (a user prompt) quotes (`_PHRASE`), in order, each once; found in a content in any case.

    One fact the conversation holds verbatim already (see `_facts.token_set`); a return that spells it otherwise
    holds it by name only (`Turns.named`). Lazily, as `topic_words`.
    """
    seen: set[str] = set()
    for match in _PHRASE.finditer(text):
        phrase = match.group(1)
        if phrase.casefold() not in seen:
            seen.add(phrase.casefold())
            yield phrase


@functools.lru_cache(maxsize=64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """What finds `names` (`Turns.named`) whole: a phrase in any case, a word as it is.

    A dozen literals at most, the longest first, so a phrase is not read as its first word.
    """
    alternatives = (
        f'(?i:{re.escape(name)})' if _is_phrase(name) else re.escape(name)
        for name in sorted(names, key=len, reverse=True)
    )
    # each starts with a letter, so `\b` before it; not after: a phrase may end in `-` or `&` (`'Budget follow-'`)
    return re.compile(rf'\b(?:{"|".join(alternatives)})(?!\w)')


def _first_holding(read: Sequence[tuple[int, set[str], list[str]]]) -> int:
    """The number of the first message `read` (number, pieces, quoted strings) holding a token; -1 when none does.

    Only the first and the last are asked for (`Turns._start`, `_end`): the others are not looked into.
    """
    return next((number for number, pieces, quoted in read if quoted or any(map(holds_token, pieces))), -1)


def _first_messages(read: Sequence[tuple[int, set[str], list[str]]], seen: set[str]) -> dict[str, int]:
    """Each piece of the messages `read` (number, pieces, quoted strings) not `seen` (now seen), and the first holding it."""
    pieces: dict[str, int] = {}
    for number, held, _ in read:
        unread = held.difference(seen)
        seen.update(unread)
        pieces.update(dict.fromkeys(unread, number))
    return pieces


def _by_token(pieces: dict[str, int], tokens_of: dict[str, set[str]]) -> dict[str, int]:
    """Each token and part of `pieces` (in order), and the message of the first piece holding it.

    `tokens_of`: the tokens and parts of the pieces read so far, each piece's, added to.
    """
    found: dict[str, int] = {}
    for piece, number in pieces.items():
        if piece.isalpha() and piece.isascii():  # its own one token, without parts (`_facts.pieces_tokens`)
            found.setdefault(piece, number)
            continue
        tokens = tokens_of.get(piece)
        if tokens is None:
            tokens = tokens_of[piece] = pieces_tokens({piece})
        for token in tokens:
            found.setdefault(token, number)
    return found


def _args_text(args: object) -> str:
    if isinstance(args, str):
        try:
            parsed: JsonValue = json.loads(args)
        except ValueError:
            return args
        return plain_text(parsed)
    return plain_text(args) if isinstance(args, dict) else ''  # type: ignore[arg-type]  # arguments are JSON data


class Turns:
    """The turns of a history from message `start` on, read once, for every return among them.

    Each token of the turns is mapped to the first and the last message holding it, so a return's
    facts can be looked up on either side: those a later turn quotes (`quoted_facts`, what retention is
    scored on) and those an earlier turn already holds (`known_facts`: the task named a function, the
    return's own call asked for a path), and the names user prompts give in words (`named`). Batch
    compaction builds it over a whole history; an agent run over its history so far, whose turns
    (without tool returns) are small next to its returns.
    """

    def __init__(self, messages: Sequence[ModelMessage], *, start: int = 0) -> None:
        self._first: dict[str, int] = {}
        """Each token of the turns (`_facts.token_set`), and the first message holding it."""
        self._last: dict[str, int] = {}
        """Each token of the turns, and the last message holding it."""
        self._pieces: set[str] = set()
        """The pieces between whitespace of the turns read: their tokens are in `_first` already."""
        self._vocabulary = Vocabulary()
        """The tokens of the turns that may be facts: what a content is searched for before it is read."""
        self._topics: dict[str, int] = {}
        """The names user prompts give in words (`topic_words`), and the first message naming each."""
        self._read: tuple[JsonValue, str] | None = None
        """The content `named` read last and its `plain_text`, for `facts` of the same content next (as the pipeline
        asks for both): an object's plain text costs about as much as its JSON text."""
        self._start = self._end = -1
        self.extend(messages, start=start)

    def extend(self, messages: Sequence[ModelMessage], *, start: int) -> None:
        """Read `messages[start:]` too: the turns of a history that grew since (an agent run's next request).

        The messages before `start` must be the ones read already. Reading a message again (the last
        one, to which a framework may still add parts) changes nothing it held already; compaction
        rewrites tool returns only, which are no turns.
        """
        read: list[tuple[int, set[str], list[str]]] = []  # each message with a turn: its pieces, quoted strings
        for number, message in enumerate(messages[start:], start=start):
            if isinstance(message, ModelRequest) and len(self._topics) < _TOPICS:
                self._add_topics(message, number)
            text = '\n'.join(turn_texts(message))  # a line break ends a piece and a quoted string as a text's end does
            if text:
                read.append((number, set(text.split()), quoted_strings(text)))
        first_holding = _first_holding(read)
        if first_holding < 0:
            return
        # A token's first message is that of the first piece holding it (or quoting it), its last that of the last:
        # each distinct piece is read once, not in every message holding it (the words of a conversation recur).
        tokens_of: dict[str, set[str]] = {}
        first = _by_token(_first_messages(read, self._pieces), tokens_of)
        last = _by_token(_first_messages(read[::-1], set()), tokens_of)
        for number, _, quoted in read:
            for string in quoted:
                if first.get(string, number) >= number:
                    first[string] = number
                if last.get(string, number) <= number:
                    last[string] = number
        new = set(first).difference(self._first)  # by look-ups in the map: `- keys()` would copy all its keys
        self._first.update(zip(new, map(first.__getitem__, new)))
        self._vocabulary.add(new)
        self._last.update(last)  # all from `start` on: later than any read before (or the same message, read again)
        self._end = max(self._end, _first_holding(read[::-1]))
        if self._start < 0:
            self._start = first_holding

    def _add_topics(self, message: ModelRequest, number: int) -> None:
        """Add the names the user prompts of `message` give, up to `_TOPICS` in all.

        Each text of a prompt sent with an image or a file is read as a prompt of its own:
        `agent.run(['What is my Facebook code?', ImageUrl(...)])` asks all the same.
        """
        for part in message.parts:
            if not isinstance(part, UserPromptPart):
                continue
            texts = [part.content] if isinstance(part.content, str) else [t for t in part.content if isinstance(t, str)]
            for text in (text for text in texts if len(text) <= _ASKING):
                for word in itertools.chain(quoted_phrases(text), topic_words(text)):
                    if len(self._topics) >= _TOPICS:
                        return
                    if word not in self._topics and len(word) <= _NAME_CHARS and not self._quoted_before(word):
                        self._topics[word] = number

    def _quoted_before(self, word: str) -> bool:
        """Whether `word` is a phrase a prompt quoted already in other case: one name (`named` finds it in any case)."""
        return _is_phrase(word) and any(
            _is_phrase(name) and name.casefold() == word.casefold() for name in self._topics
        )

    def named(self, content: JsonValue, *, message_index: int, json_text: str | None = None) -> tuple[str, ...]:
        """The names user prompts before `content` (at `message_index`) give that it holds, as it spells them.

        A name in words (`topic_words`) as the prompt writes it; a quoted phrase (`quoted_phrases`) in any case, each
        other spelling of it the content has (the prompt's own is a fact of both already, found with the others).
        `json_text`: the content's JSON text, when at hand (see `plain_text`).
        """
        named = [word for word, first in self._topics.items() if first < message_index]
        if not named:
            return ()
        text = plain_text(content, json_text=json_text)
        self._read = (content, text)
        # Only the names the content holds at all, found by a substring search each (linear): tried at every word,
        # a name sharing 50 letters with the content's words compares them each time. A phrase in any case: its
        # spellings are told apart by `casefold`, which maps each character alone, so one it holds is in the text's.
        folded = text.casefold() if any(map(_is_phrase, self._topics)) else ''
        present = tuple(
            name for name in self._topics if (name.casefold() in folded if _is_phrase(name) else name in text)
        )
        if not present:
            return ()
        found = Counter(_names_pattern(present).findall(text))
        spellings: dict[str, list[str]] = {}  # each phrase's spellings the content has, by their casefold
        for spelling in filter(_is_phrase, found):
            spellings.setdefault(spelling.casefold(), []).append(spelling)
        held: list[str] = []
        for name in named:
            if not _is_phrase(name):
                held += [name] if 0 < found[name] <= _NAMED_AT_MOST else []
                continue
            others = spellings.get(name.casefold(), [])
            if 0 < sum(found[spelling] for spelling in others) <= _NAMED_AT_MOST:
                held += [spelling for spelling in others if spelling != name]
        return tuple(held)

    def quoted_facts(self, content: JsonValue, *, message_index: int) -> tuple[str, ...]:
        """The facts of `content` (at `message_index`) that a turn after it holds."""
        return self.facts(content, message_index=message_index, before=False)

    def known_facts(self, content: JsonValue, *, message_index: int) -> tuple[str, ...]:
        """The facts of `content` (at `message_index`) that a turn before it holds (read from `start` on)."""
        return self.facts(content, message_index=message_index, after=False)

    def facts(
        self,
        content: JsonValue,
        *,
        message_index: int,
        before: bool = True,
        after: bool = True,
        json_text: str | None = None,
    ) -> tuple[str, ...]:
        """The facts of `content` (at `message_index`) a turn `before` it holds, then those a turn `after` it holds.

        `content` is searched for the turns' tokens first (`Vocabulary`): it is read for its possible
        facts (`PossibleFacts`) only around those it holds, once for both sides, and not at all when
        it holds none a turn on a side asked for holds. `json_text`: the content's JSON text, when at
        hand (see `plain_text`).
        """
        read, self._read = self._read, None
        before = before and 0 <= self._start < message_index
        after = after and self._end > message_index
        if not (before or after):
            return ()
        text = read[1] if read is not None and read[0] is content else plain_text(content, json_text=json_text)
        held = self._vocabulary.held(text, wait=True)
        sides: list[list[str]] | None = None
        if held is not None:
            first, last = self._first, self._last
            sides = [[s for s in held if first[s] < message_index]] if before else []
            sides += [[s for s in held if last[s] > message_index]] if after else []
            if not any(sides):
                return ()
        possible = PossibleFacts(text, around=sides)
        facts: dict[str, None] = {}
        if before:
            first = self._first
            facts.update(
                dict.fromkeys(
                    possible.referred(lambda found: {f for f in first.keys() & found if first[f] < message_index})
                )
            )
        if after:
            last = self._last
            facts.update(
                dict.fromkeys(
                    possible.referred(lambda found: {f for f in last.keys() & found if last[f] > message_index})
                )
            )
        return tuple(facts)
