"""Run replay: what an agent run sends, request by request, under each way of compacting its history.

A stored history is the record of one agent run. Replaying it re-creates every model request the run
made: at each request (a request message that a response follows) the history is what the strategy
returned for the previous request plus the messages recorded since, passed through the strategy again,
as `SummarizeToolReturns.before_model_request` rewrites a run's history before each request. So a
summary made at one request is in every later prompt, and the facts a summary keeps because later turns
quote them (`keep_quoted_facts`) come only from turns that exist at that request.

Per request it measures:

- **prompt tokens**: the model-visible text of every part (prompts, assistant text, tool-call arguments,
  tool returns as the model reads them), estimated by the compactor's tokenizer;
- **cache hits**: the part of the prompt a provider has already seen (see `CacheModel`): a rewritten
  tool return changes the prompt from that return on, and everything behind it is paid for again;
- **billed input cost**: the prompt priced with genai-prices' prices for a named model, cache reads at
  its cache-read price and (where the provider charges for them) cache writes at its cache-write price;
- **next-action fact support**: the facts (`summarizer.core._facts`) of the recorded response to the request
  (its text and tool-call arguments) that occurred in an earlier tool return, and how many of them the
  prompt still holds in context (`_context`: a tool return holds one in a window of an original line that
  held it; a prompt or the assistant's own words hold one anywhere) and how many anywhere. The response
  was written by a model that saw the uncompacted history: a fact it uses and the compacted prompt lacks
  is one the model would have had to read back or guess.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path

from pydantic_ai.messages import (
    BaseToolReturnPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
)
from pydantic_ai.models import Model
from pydantic_ai.profiles import prompt_cache_outlook

from ..core import (
    JsonValue,
    OriginalText,
    SummarizerConfig,
    Tokenizer,
    estimate_tokens,
    message_texts,
    referred_facts,
    token_set,
    turn_texts,
)
from ..pipeline import CacheModel, Compactor, OriginalStore, PriceModel, Summarizer, SummaryCache
from ._baseline import HEAD, head_model
from ._context import Context, lines_holding, reader_text

Process = Callable[[list[ModelMessage]], Awaitable[list[ModelMessage]]]
"""One run's history processing: the history so far in, the history to send out."""


@dataclass(frozen=True, kw_only=True)
class Strategy:
    """A way of compacting a run's history, named for the report."""

    name: str
    start: Callable[[], Process]
    """A processor for one run (a fresh session: state never crosses runs)."""


async def _unchanged(messages: list[ModelMessage]) -> list[ModelMessage]:
    return messages


NO_COMPACTION = Strategy(name='none', start=lambda: _unchanged)
"""The baseline every other strategy is measured against."""

MASK_PREFIX = 'Old tool output omitted'


def masking(keep: int) -> Strategy:
    """Observation masking (SWE-agent's `LastNObservations`): all but the last `keep` tool returns become a one-line placeholder.

    The placeholder depends only on the original content, so a masked return stays byte-stable; each
    request masks the return that just fell out of the window, which changes the prompt from there on.
    """

    async def mask(messages: list[ModelMessage]) -> list[ModelMessage]:
        seen = 0
        output = list(messages)
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if not isinstance(message, ModelRequest):
                continue
            parts = list(message.parts)
            changed = False
            for position in range(len(parts) - 1, -1, -1):
                part = parts[position]
                if not isinstance(part, BaseToolReturnPart):
                    continue
                seen += 1
                if seen <= keep or _masked(part.content):
                    continue
                parts[position] = replace(part, content=_placeholder(part.model_response_str()))
                changed = True
            if changed:
                output[index] = replace(message, parts=parts)
        return output

    return Strategy(name=f'mask-{keep}', start=lambda: mask)


def masking_to(ceiling: int, tokenizer: Tokenizer = estimate_tokens) -> Strategy:
    """Observation masking trimmed to a ceiling: the oldest tool returns become a placeholder until the prompt fits.

    Each request masks, oldest first, only as many returns as it takes to bring the prompt to `ceiling`
    tokens (the newest return too, if it must), so the prompt stays just under it and every request
    over it rewrites the prompt from the first return it masks.
    """

    def start() -> Process:
        blocks = _Blocks(tokenizer)

        async def mask(messages: list[ModelMessage]) -> list[ModelMessage]:
            total = sum(block.tokens for message in messages for block in blocks.of(message))
            output = list(messages)
            for index, message in enumerate(messages):
                if total <= ceiling:
                    break
                if not isinstance(message, ModelRequest):
                    continue
                parts = list(message.parts)
                for position, part in enumerate(message.parts):
                    if total > ceiling and isinstance(part, BaseToolReturnPart) and not _masked(part.content):
                        text = part.model_response_str()
                        parts[position] = replace(part, content=_placeholder(text))
                        total -= tokenizer(text) - tokenizer(_placeholder(text))
                if parts != message.parts:
                    output[index] = replace(message, parts=parts)
            return output

        return mask

    return Strategy(name=f'mask-to-{ceiling}', start=start)


def _placeholder(text: str) -> str:
    """A masked return's content: a line naming how many lines its text had (byte-stable: it depends on nothing else)."""
    lines = text.count('\n') + 1
    return f'{MASK_PREFIX} ({lines:,} lines).'


def _masked(content: object) -> bool:
    return isinstance(content, str) and content.startswith(MASK_PREFIX)


# -- what a prompt is made of ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Block:
    """One piece of a prompt (a part, or a request's instructions)."""

    digest: bytes
    tokens: int
    text: str


class _Blocks:
    """The blocks of the messages a run sends, each made once per message object."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._made: dict[int, tuple[ModelMessage, list[_Block]]] = {}
        self._token_sets: dict[bytes, set[str]] = {}

    def of(self, message: ModelMessage) -> list[_Block]:
        made = self._made.get(id(message))
        if made is not None and made[0] is message:
            return made[1]
        kind = b'q' if isinstance(message, ModelRequest) else b'r'
        blocks = [
            _Block(
                digest=hashlib.blake2b(kind + text.encode('utf-8', 'surrogatepass'), digest_size=16).digest(),
                tokens=self._tokenizer(text),
                text=text,
            )
            for text in message_texts(message)
        ]
        self._made[id(message)] = (message, blocks)  # the message is kept, so its id is not reused
        return blocks

    def token_set(self, block: _Block) -> set[str]:
        tokens = self._token_sets.get(block.digest)
        if tokens is None:
            tokens = self._token_sets[block.digest] = token_set(block.text)
        return tokens


# -- figures -------------------------------------------------------------------------------------------


@dataclass(kw_only=True)
class RunFigures:
    """One history replayed under one strategy (or many added together)."""

    requests: int = 0
    tokens_sent: int = 0
    """Prompt tokens of every request, added up: what a provider bills before caching."""
    largest_prompt: int = 0
    """The largest single prompt (of a total: the sum of each run's largest)."""
    cached: dict[str, int] = field(default_factory=dict[str, int])
    """Per price model: prompt tokens read from its cache."""
    cost: dict[str, Decimal] = field(default_factory=dict[str, Decimal])
    """Per price model: billed input cost, USD."""
    facts: int = 0
    """Facts of the next responses that occurred in earlier tool returns ..."""
    facts_kept: int = 0
    """... and of those, the ones the prompt still held in context ..."""
    facts_present: int = 0
    """... and anywhere."""
    rewrites: int = 0
    """Requests whose prompt does not begin with the whole previous prompt (the history was rewritten)."""
    over_ceiling: int = 0
    """Requests whose prompt was over the context ceiling (`policy.max_prompt_tokens`), when there is one."""

    @property
    def support(self) -> float | None:
        """Share of the next responses' facts the prompt held in context."""
        return self.facts_kept / self.facts if self.facts else None

    @property
    def presence(self) -> float | None:
        """Share of the next responses' facts the prompt held anywhere."""
        return self.facts_present / self.facts if self.facts else None

    def add(self, other: RunFigures) -> None:
        self.requests += other.requests
        self.tokens_sent += other.tokens_sent
        self.largest_prompt += other.largest_prompt
        self.facts += other.facts
        self.facts_kept += other.facts_kept
        self.facts_present += other.facts_present
        self.rewrites += other.rewrites
        self.over_ceiling += other.over_ceiling
        for name, tokens in other.cached.items():
            self.cached[name] = self.cached.get(name, 0) + tokens
        for name, usd in other.cost.items():
            self.cost[name] = self.cost.get(name, Decimal(0)) + usd


def request_indexes(messages: Sequence[ModelMessage]) -> list[int]:
    """The model requests of a recorded run: each request message that a response follows."""
    return [
        index
        for index in range(len(messages) - 1)
        if isinstance(messages[index], ModelRequest) and isinstance(messages[index + 1], ModelResponse)
    ]


async def replay(
    messages: Sequence[ModelMessage],
    strategy: Strategy,
    *,
    prices: Sequence[PriceModel],
    tokenizer: Tokenizer = estimate_tokens,
    ceiling: int | None = None,
) -> RunFigures:
    """Replay one recorded run under `strategy` (see the module's docstring); `ceiling`: the context ceiling, if any."""
    figures = RunFigures(cached=dict.fromkeys((p.name for p in prices), 0), cost={p.name: Decimal(0) for p in prices})
    blocks = _Blocks(tokenizer)
    returned: set[str] = set()
    """Tokens of every tool return recorded so far (as recorded, not compacted)."""
    originals: list[OriginalText] = []
    """Every tool return recorded so far, as its reader takes it in (`reader_text`), split into lines once."""
    contexts = _Contexts()
    process = strategy.start()
    history: list[ModelMessage] = []
    recorded = 0
    previous: list[tuple[bytes, int]] = []
    for index in request_indexes(messages):
        new = list(messages[recorded : index + 1])
        for message in new:
            if isinstance(message, ModelRequest):
                for part in message.parts:
                    if isinstance(part, BaseToolReturnPart):
                        returned.update(token_set(part.model_response_str()))
                        originals.append(OriginalText(reader_text(_content(part.content))))
        recorded = index + 1
        history = await process(history + new)
        prompt = [block for message in history for block in blocks.of(message)]
        prefixes = _prefixes(prompt)
        tokens = prefixes[-1][1] if prefixes else 0
        figures.requests += 1
        figures.tokens_sent += tokens
        figures.largest_prompt = max(figures.largest_prompt, tokens)
        figures.over_ceiling += ceiling is not None and tokens > ceiling
        figures.rewrites += bool(previous) and (
            len(prefixes) < len(previous) or prefixes[len(previous) - 1] != previous[-1]
        )
        request = messages[index]
        for price in prices:
            # the cache expired while the run sat idle past its retention (recorded timestamps): nothing read
            expired = (
                price.cache.retention is not None
                and isinstance(request, ModelRequest)
                and (
                    prompt_cache_outlook(messages[:recorded], retention=price.cache.retention, now=request.timestamp)
                    == 'cold'
                )
            )
            cached = 0 if expired else price.cache.cached(prefixes, previous)
            figures.cached[price.name] += cached
            written = price.cache.written(tokens, cached)
            figures.cost[price.name] += price.cost(prompt=tokens, cached=cached, written=written)
        previous = prefixes
        wanted = _next_facts(messages[index + 1], returned)
        figures.facts += len(wanted)
        figures.facts_present += _present(wanted, prompt, blocks)
        figures.facts_kept += contexts.kept(wanted, history, originals)
    return figures


def _prefixes(prompt: Sequence[_Block]) -> list[tuple[bytes, int]]:
    """Each prefix of the prompt, block by block: a digest naming it and its tokens."""
    prefixes: list[tuple[bytes, int]] = []
    digest, tokens = b'', 0
    for block in prompt:
        digest = hashlib.blake2b(digest + block.digest, digest_size=16).digest()
        tokens += block.tokens
        prefixes.append((digest, tokens))
    return prefixes


def _next_facts(response: ModelMessage, returned: set[str]) -> list[str]:
    """The facts of the response (its text and tool-call arguments) that an earlier tool return held."""
    text = '\n'.join(turn_texts(response))
    return referred_facts(text, returned.intersection)


def _present(facts: Sequence[str], prompt: Sequence[_Block], blocks: _Blocks) -> int:
    missing = set(facts)
    for block in prompt:
        if not missing:
            break
        missing -= blocks.token_set(block)
    return len(facts) - len(missing)


class _Contexts:
    """Whether a prompt holds facts in context: the turns anywhere, each tool return as its reader takes it in."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[object, Context]] = {}
        self._turns: dict[int, tuple[ModelMessage, set[str]]] = {}

    def kept(self, facts: Sequence[str], history: Sequence[ModelMessage], originals: Sequence[OriginalText]) -> int:
        """How many of `facts` the prompt `history` holds in context, their original lines read from `originals`."""
        missing = set(facts)
        for message in history:
            if not missing:
                break
            missing -= self._turn_tokens(message)
        if not missing:
            return len(facts)
        returns = [
            self._context(part)
            for message in history
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, BaseToolReturnPart)
        ]
        for fact in list(missing):
            lines = [line for text in originals if fact in text.text for line in lines_holding(fact, text.lines)]
            if any(context.keeps(fact, lines) for context in returns):
                missing.discard(fact)
        return len(facts) - len(missing)

    def _turn_tokens(self, message: ModelMessage) -> set[str]:
        """The tokens of a message's turns (prompts, assistant text, tool-call arguments): its own words, in context."""
        made = self._turns.get(id(message))
        if made is None or made[0] is not message:
            made = self._turns[id(message)] = (message, token_set('\n'.join(turn_texts(message))))  # kept: no id reuse
        return made[1]

    def _context(self, part: BaseToolReturnPart) -> Context:
        made = self._made.get(id(part))
        if made is None or made[0] is not part:
            made = self._made[id(part)] = (part, Context.of(_content(part.content)))
        return made[1]


def _content(content: object) -> JsonValue:
    """A tool return's content as JSON data (what `reader_text` reads); a value JSON has no form for, as text."""
    if isinstance(content, (str, int, float, bool, list, dict)) or content is None:
        return content  # type: ignore[return-value]  # tool returns are JSON data, but for the odd object
    return str(content)


# -- a corpus ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayHistory:
    """One recorded run: its name in the report and its messages."""

    name: str
    messages: list[ModelMessage]


@dataclass(kw_only=True)
class ReplayRun:
    """Every history replayed under every strategy, in one run."""

    strategies: list[str]
    prices: list[str]
    labels: dict[str, str] = field(default_factory=dict[str, str])
    """Per price model: its name and the cache tier it prices (`PriceModel.label`)."""
    histories: list[str]
    figures: dict[str, dict[str, RunFigures]]
    """Strategy name -> history name -> its figures."""
    ceiling: int | None = None
    """The context ceiling prompts were counted against (`RunFigures.over_ceiling`), if any."""
    skipped: list[str] = field(default_factory=list[str])
    """The histories found that could not be used (where, and why): not replayed."""

    def total(self, strategy: str) -> RunFigures:
        total = RunFigures(cached=dict.fromkeys(self.prices, 0), cost={name: Decimal(0) for name in self.prices})
        for figures in self.figures[strategy].values():
            total.add(figures)
        return total

    def dearer(self, strategy: str, price: str) -> list[str]:
        """The histories this strategy makes cost more than no compaction does, under `price`."""
        return [
            name
            for name, figures in self.figures[strategy].items()
            if figures.cost[price] > self.figures[NO_COMPACTION.name][name].cost[price]
        ]


async def replay_all(
    histories: Sequence[ReplayHistory],
    strategies: Sequence[Strategy],
    *,
    prices: Sequence[PriceModel],
    tokenizer: Tokenizer = estimate_tokens,
    ceiling: int | None = None,
) -> ReplayRun:
    """Replay every history under every strategy (no compaction first: the others are measured against it).

    `ceiling`: the context ceiling the prompts are counted against (`RunFigures.over_ceiling`), if any.
    """
    if strategies[0] is not NO_COMPACTION:
        strategies = [NO_COMPACTION, *[strategy for strategy in strategies if strategy is not NO_COMPACTION]]
    figures: dict[str, dict[str, RunFigures]] = {}
    for strategy in strategies:
        figures[strategy.name] = {
            history.name: await replay(history.messages, strategy, prices=prices, tokenizer=tokenizer, ceiling=ceiling)
            for history in histories
        }
    return ReplayRun(
        strategies=[strategy.name for strategy in strategies],
        prices=[price.name for price in prices],
        labels={price.name: price.label for price in prices},
        histories=[history.name for history in histories],
        figures=figures,
        ceiling=ceiling,
    )


def compared_strategies(
    config: SummarizerConfig, *, model: Model, scratch: Path, masks: Sequence[int], terms: CacheModel | None = None
) -> list[Strategy]:
    """What a replay compares, each a strategy of its own.

    No compaction; the config's policy (`policy`); the threshold-only policy (`threshold`, when the
    config's is another); head truncation under the config's policy at the same budgets (`head`);
    observation masking keeping the last N returns (`mask-N`); and with a context ceiling
    (`policy.max_prompt_tokens`), observation masking trimmed to it (`mask-to-CEILING`).

    The compactors share one summary cache and one originals store in `scratch`, fresh for the run, so
    no figure depends on an earlier run; the capability's default has the store on, and so do they.
    `terms`: the cache terms their policy prices rewrites at (the first price model's), as the
    capability takes its agent's model's; the config's own values win.
    """
    cache = SummaryCache(directory=scratch / 'cache', size_limit_bytes=config.cache.size_limit_mb * 2**20)
    originals = OriginalStore(directory=scratch / 'originals', size_limit_bytes=config.originals.size_limit_mb * 2**20)

    def compacting(name: str, config: SummarizerConfig, model: Model) -> Strategy:
        summarizer = Summarizer(config=config, model=model, cache=cache)
        compactor = Compactor(config=config, summarizer=summarizer, originals=originals)
        return Strategy(name=name, start=lambda: compactor.session(keep_going=False, cache=terms).process)

    strategies = [NO_COMPACTION, compacting(POLICY, config, model)]
    if config.policy.kind != 'threshold':
        threshold = dataclasses.replace(config, policy=dataclasses.replace(config.policy, kind='threshold'))
        strategies.append(compacting('threshold', threshold, model))
    strategies.append(compacting(HEAD, config, head_model()))
    strategies += [masking(keep) for keep in masks]
    ceiling = config.policy.max_prompt_tokens
    return strategies if ceiling is None else [*strategies, masking_to(ceiling)]


POLICY = 'policy'
"""The strategy of the config's policy: what the capability does."""
