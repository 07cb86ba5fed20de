"""Prompt-cache prices: what a model's provider bills for a prompt, part of it read from its cache.

genai-prices holds each model's prices, its cache-read price and (where the provider charges for
writing to the cache, as Anthropic does) its cache-write price. `CacheModel` says which part of a
prompt the cache serves; `PriceModel` prices a request; `run_cost` prices a run's `Report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from genai_prices import Usage, calc_price
from genai_prices.types import ModelPrice

from ._report import Report

CACHE_MINIMUM = 1024
"""Providers cache no prompt prefix shorter than this many tokens (Anthropic and OpenAI alike)."""


def cached_part(shared: int) -> int:
    """The tokens a provider reads from its cache of a prefix of `shared` tokens (none under `CACHE_MINIMUM`)."""
    return shared if shared >= CACHE_MINIMUM else 0


@dataclass(frozen=True, kw_only=True)
class CacheModel:
    """Which part of a prompt a provider bills as read from its prompt cache.

    A request reads from the cache the longest prefix it shares with the previous request, block
    by block (a part is a block: providers cache at content-block or token-block boundaries, and a
    rewritten part differs from its first bytes on); the rest is written to the cache (where the
    provider charges for writing, as Anthropic does) or billed as plain input. A prefix under
    `minimum` tokens is not cached; a longer one is rounded down to `block` tokens past the minimum
    (OpenAI caches in steps of 128 tokens).

    It is the cache a run gets when every request marks its end as cacheable: automatic on OpenAI
    and Gemini; on Anthropic, pydantic-ai's `cache` model setting (`ModelSettings(cache=True)`) does
    it while the previous prompt is a prefix of the next.
    When a rewrite cuts into it, Anthropic looks for an earlier breakpoint, so there a rewrite can cost
    more than this model says, and rewriting seldom matters even more.
    """

    minimum: int = CACHE_MINIMUM
    block: int = 1

    def cached(self, prompt: Sequence[tuple[bytes, int]], previous: Sequence[tuple[bytes, int]]) -> int:
        """Tokens of `prompt` read from the cache, given the prefixes of the previous request's prompt."""
        shared = 0
        for (digest, tokens), (earlier, _) in zip(prompt, previous):
            if digest != earlier:
                break
            shared = tokens
        if shared < self.minimum:
            return 0
        return self.minimum + (shared - self.minimum) // self.block * self.block


@dataclass(frozen=True)
class PriceModel:
    """A model whose prices (genai-prices) bill the replay: `provider:model`, as pydantic-ai names models."""

    name: str
    price: ModelPrice
    cache: CacheModel

    @classmethod
    def named(cls, name: str) -> PriceModel:
        """`LookupError` when genai-prices does not know the model; `ValueError` for a name without a provider."""
        provider, separator, model = name.partition(':')
        if not separator or not model:
            raise ValueError(f'{name!r}: name the provider too, e.g. anthropic:claude-sonnet-4-5')
        found = calc_price(Usage(input_tokens=1), model, provider_id=provider)
        if found.model_price.cache_read_mtok is None:
            raise LookupError(f'{name}: genai-prices has no cache-read price for it')
        writes = found.model_price.cache_write_mtok is not None
        return cls(name=name, price=found.model_price, cache=CacheModel(block=1 if writes else 128))

    def cost(self, *, prompt: int, cached: int, written: int) -> Decimal:
        """USD of input: `prompt` tokens, `cached` of them read from the cache, `written` written to it.

        Writes are billed at the cache-write price where the provider charges one, else as plain input.
        """
        writes = written if self.price.cache_write_mtok is not None else 0
        usage = Usage(input_tokens=prompt, cache_read_tokens=cached, cache_write_tokens=writes)
        return self.price.calc_price(usage)['input_price']


@dataclass(frozen=True, kw_only=True)
class RunCost:
    """An agent run's input cost estimate (USD) for one model, as sent and as it would have been with no compaction."""

    model: str
    compacted: Decimal
    uncompacted: Decimal


def run_cost(report: Report, model: str) -> RunCost:
    """Price the prompts a `HistorySession` counted in `report` (`Report.prompt_tokens` ...) at `model`'s prices.

    `model` is `provider:model` as pydantic-ai names it; `LookupError` when genai-prices does not know it.
    """
    price = PriceModel.named(model)
    return RunCost(
        model=model,
        compacted=price.cost(
            prompt=report.prompt_tokens, cached=report.prompt_cached_tokens, written=report.prompt_written_tokens
        ),
        uncompacted=price.cost(
            prompt=report.uncompacted_prompt_tokens,
            cached=report.uncompacted_cached_tokens,
            written=report.uncompacted_written_tokens,
        ),
    )
