"""Prompt-cache prices: what a model's provider bills for a prompt, part of it read from its cache.

genai-prices holds each model's prices, its cache-read price and (where the provider charges for
writing to the cache, as Anthropic does) its cache-write price. `CacheModel` holds a model's cache terms and says which
part of a prompt the cache serves; `PriceModel` prices a request; `run_cost` prices a run's `Report`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from genai_prices import Usage, calc_price
from genai_prices.types import ModelPrice

from ..core import PolicyConfig
from ._report import Report

CACHE_MINIMUM = 1024
"""The shortest prompt prefix most models cache (Anthropic's and OpenAI's), where a model's own is not known."""

_MINIMUMS = (
    ('claude-opus-4-5', 4096),
    ('claude-haiku-4-5', 4096),
    ('claude-3-5-haiku', 2048),
    ('claude-3-haiku', 2048),
    ('gemini-2.5-pro', 4096),
)
"""Models that cache no prefix under more than `CACHE_MINIMUM` tokens (by name prefix), as their providers
document it: neither genai-prices nor pydantic-ai's profiles hold it."""

_RATE_TOKENS = 100_000
"""Prompt tokens a price ratio is taken at: under every long-context tier (Anthropic's starts at 200,000)."""


@dataclass(frozen=True, kw_only=True)
class CacheModel:
    """A model's prompt cache: what it bills, as shares of a plain input token, which part of a prompt it serves, and for how long.

    A request reads from the cache the longest prefix it shares with the previous request, block
    by block (a part is a block: providers cache at content-block or token-block boundaries, and a
    rewritten part differs from its first bytes on); the rest is written to the cache (where the
    provider charges for writing, as Anthropic does) or billed as plain input. A prefix under
    `minimum` tokens is not cached; a longer one is rounded down to `block` tokens past the minimum
    (OpenAI caches in steps of 128 tokens). A prefix unused for `retention` has expired.

    It is the cache a run gets when every request marks its end as cacheable: automatic on OpenAI
    and Gemini; on Anthropic, pydantic-ai's `cache` model setting (`ModelSettings(cache=True)`) does
    it while the previous prompt is a prefix of the next.
    When a rewrite cuts into it, Anthropic looks for an earlier breakpoint, so there a rewrite can cost
    more than this model says, and rewriting seldom matters even more.

    The defaults are the dearer of the common terms (Anthropic's 5-minute cache, kept forever): what the
    policy assumes of a model it knows nothing about.
    """

    read: float = 0.1
    write: float = 1.25
    minimum: int = CACHE_MINIMUM
    block: int = 1
    retention: timedelta | None = None
    """None: not known, taken as never expiring (a rewrite is never free)."""
    model: str | None = None
    """`provider:model` whose terms these are (None: the defaults), with its tier (`@1h`) if any."""

    @classmethod
    def of(cls, model: str, *, retention: timedelta | None = None) -> CacheModel:
        """The terms of `model` (`provider:model`; `@1h` after it: Anthropic's 1-hour tier) from genai-prices.

        `retention`: how long the provider keeps a prefix (a model profile's `default_cache_retention`,
        or what the request's settings asked for); `@1h` means an hour. `LookupError` when genai-prices
        does not know the model or its cache-read price; `ValueError` for a name without a provider.
        """
        name, _, tier = model.partition('@')
        provider, separator, model_name = name.partition(':')
        if not separator or not model_name or tier not in ('', '1h'):
            raise ValueError(
                f'{model!r}: name the provider too (e.g. anthropic:claude-sonnet-4-5, @1h for its 1-hour cache)'
            )
        price = calc_price(Usage(input_tokens=1), model_name, provider_id=provider).model_price
        if price.cache_read_mtok is None:
            raise LookupError(f'{name}: genai-prices has no cache-read price for it')
        hour = tier == '1h' or (retention is not None and retention >= timedelta(hours=1))
        if tier == '1h' and getattr(price, 'cache_write_1h_mtok', None) is None:
            raise LookupError(f'{name}: genai-prices has no 1-hour cache-write price for it')
        plain = _input_price(price, Usage(input_tokens=_RATE_TOKENS))
        writes = price.cache_write_mtok is not None
        written = Usage(input_tokens=_RATE_TOKENS, cache_write_tokens=_RATE_TOKENS)
        if hour and getattr(price, 'cache_write_1h_mtok', None) is not None:
            written = Usage(
                input_tokens=_RATE_TOKENS, cache_write_tokens=_RATE_TOKENS, cache_write_1h_tokens=_RATE_TOKENS
            )
        return cls(
            read=float(_input_price(price, Usage(input_tokens=_RATE_TOKENS, cache_read_tokens=_RATE_TOKENS)) / plain),
            write=float(_input_price(price, written) / plain) if writes else 1.0,
            minimum=next((tokens for prefix, tokens in _MINIMUMS if model_name.startswith(prefix)), CACHE_MINIMUM),
            block=1 if writes else 128,
            retention=timedelta(hours=1) if tier == '1h' else retention,
            model=model,
        )

    def configured(self, policy: PolicyConfig) -> CacheModel:
        """These terms with the config's own values (`policy.cache_read`, ...) in place of the model's."""
        return dataclasses.replace(
            self,
            read=self.read if policy.cache_read is None else policy.cache_read,
            write=self.write if policy.cache_write is None else policy.cache_write,
            minimum=self.minimum if policy.cache_minimum is None else policy.cache_minimum,
        )

    @property
    def tier(self) -> str:
        """The cache the terms are for, in words: `5-minute cache`, `1-hour cache`, `cache, no expiry known`."""
        if self.retention is None:
            return 'cache, no expiry known'
        minutes = int(self.retention.total_seconds() // 60)
        return f'{minutes // 60}-hour cache' if minutes % 60 == 0 else f'{minutes}-minute cache'

    def cached_part(self, shared: int) -> int:
        """The tokens read from the cache of a prefix of `shared` tokens (none under `minimum`)."""
        if shared < self.minimum:
            return 0
        return self.minimum + (shared - self.minimum) // self.block * self.block

    def cached(self, prompt: Sequence[tuple[bytes, int]], previous: Sequence[tuple[bytes, int]]) -> int:
        """Tokens of `prompt` read from the cache, given the prefixes of the previous request's prompt."""
        shared = 0
        for (digest, tokens), (earlier, _) in zip(prompt, previous):
            if digest != earlier:
                break
            shared = tokens
        return self.cached_part(shared)

    def written(self, tokens: int, cached: int) -> int:
        """Tokens of a prompt of `tokens` written to the cache when `cached` were read (none if too short to cache)."""
        return tokens - cached if tokens >= self.minimum else 0


def _input_price(price: ModelPrice, usage: Usage) -> Decimal:
    return price.calc_price(usage)['input_price']


@dataclass(frozen=True)
class PriceModel:
    """A model whose prices (genai-prices) bill the replay: `provider:model`, as pydantic-ai names models.

    `@1h` after the name: Anthropic's 1-hour cache tier (writes at its price, prefixes kept an hour).
    """

    name: str
    price: ModelPrice
    cache: CacheModel

    @classmethod
    def named(cls, name: str) -> PriceModel:
        """`LookupError` when genai-prices does not know the model; `ValueError` for a name without a provider."""
        cache = CacheModel.of(name, retention=_RETENTIONS.get(name.partition(':')[0]))
        model = name.partition('@')[0]
        provider, _, model_name = model.partition(':')
        return cls(
            name=name,
            price=calc_price(Usage(input_tokens=1), model_name, provider_id=provider).model_price,
            cache=cache,
        )

    @property
    def label(self) -> str:
        """The name and the cache tier priced, for a report."""
        return f'{self.name.partition("@")[0]} ({self.cache.tier})'

    def cost(self, *, prompt: int, cached: int, written: int) -> Decimal:
        """USD of input: `prompt` tokens, `cached` of them read from the cache, `written` written to it.

        Writes are billed at the cache-write price (the 1-hour one for that tier) where the provider
        charges one, else as plain input.
        """
        writes = written if self.price.cache_write_mtok is not None else 0
        hour = writes if self.cache.retention is not None and self.cache.retention >= timedelta(hours=1) else 0
        usage = Usage(
            input_tokens=prompt, cache_read_tokens=cached, cache_write_tokens=writes, cache_write_1h_tokens=hour
        )
        return _input_price(self.price, usage)


_RETENTIONS = {'anthropic': timedelta(minutes=5)}
"""How long a provider keeps an unused prefix by default, as pydantic-ai's providers record it (a replay
has no model to ask). OpenAI's models before GPT-5.6 record none: kept in memory or up to 24 hours by
the organization's settings."""


@dataclass(frozen=True, kw_only=True)
class RunCost:
    """An agent run's input cost estimate (USD) for one model, as sent and as it would have been with no compaction."""

    model: str
    compacted: Decimal
    uncompacted: Decimal
    rewrites: Decimal = Decimal(0)
    """Of `compacted`, what the cache writes compaction caused cost over reading those tokens."""
    billed: Decimal | None = None
    """What the provider billed for the prompts it reported usage of (`Report.billed_*`), None if it reported none."""
    saved: Decimal | None = None
    """What compaction saved of the bill: `billed` scaled by the predicted cost with no compaction over as sent."""


def run_cost(report: Report, model: str) -> RunCost:
    """Price the prompts a `HistorySession` counted in `report` (`Report.prompt_tokens` ...) at `model`'s prices.

    `model` is `provider:model` as pydantic-ai names it; `LookupError` when genai-prices does not know it.
    With the usage the provider reported (the capability's), also what it billed and what compaction
    saved of that bill.
    """
    price = PriceModel.named(model)
    billed = None
    if report.billed_requests:
        billed = price.cost(
            prompt=report.billed_input_tokens,
            cached=report.billed_cache_read_tokens,
            written=report.billed_cache_write_tokens,
        )
    rewrites = price.cost(prompt=report.rewrite_written_tokens, cached=0, written=report.rewrite_written_tokens)
    rewrites -= price.cost(prompt=report.rewrite_written_tokens, cached=report.rewrite_written_tokens, written=0)
    cost = RunCost(
        model=model,
        rewrites=rewrites,
        billed=billed,
        compacted=price.cost(
            prompt=report.prompt_tokens, cached=report.prompt_cached_tokens, written=report.prompt_written_tokens
        ),
        uncompacted=price.cost(
            prompt=report.uncompacted_prompt_tokens,
            cached=report.uncompacted_cached_tokens,
            written=report.uncompacted_written_tokens,
        ),
    )
    if billed is not None and cost.compacted:
        cost = dataclasses.replace(cost, saved=billed * cost.uncompacted / cost.compacted - billed)
    return cost
