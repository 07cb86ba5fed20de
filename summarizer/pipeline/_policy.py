"""The cache-aware policy: which of the tool returns due for a summary an agent run rewrites, and when.

Every request of a run re-sends the history, and providers bill the part of a prompt they cached from
the previous request at a fraction of the price (`cache_read`, 0.1 on Anthropic and most OpenAI
models), while the rest is written to the cache (`cache_write`, 1.25 on Anthropic) or sent as plain
input. Rewriting a tool return at a request changes the prompt from that return on:

- now, the summary and every token behind the return in the previous prompt are written instead of
  read, and the original is no longer read: `cache_write * (summary + behind) - cache_read * (original + behind)`;
- on every later request, the summary is read instead of the original: `cache_read * (original - summary)` saved.

So a rewrite pays when the run goes on long enough, and a return rewritten just as it leaves the
`keep_recent` window (nothing behind it but the newest turn, written anyway) pays soonest. A run's
`Ledger` keeps, in units of one uncached prompt token, what its requests cost against what the same
requests would have cost with no compaction: its *credit*. At each request the policy rewrites the due
returns from the position where `credit + horizon * requests_so_far * saving_per_request - cost_now` is
highest, and only when that is not negative: it spends the credit earlier rewrites earned, plus what the
run's expected remaining requests (as many again as it has made, with `horizon` 1) will save. A due
return not rewritten waits; the deeper it sinks in the prefix, the more a later rewrite costs, so returns
are rewritten once, when they leave the window, or in rare batches (every due return behind the chosen
position is rewritten with it, since it would be sent again anyway).

Estimates use the compactor's tokenizer on what a model reads of each part (`_tokens.part_text`), and a
summary's size is estimated by its budget (an upper bound) before it is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core import PolicyConfig
from ._prices import CacheModel


@dataclass(frozen=True, kw_only=True)
class Due:
    """A return due for a summary: where its content starts in the prompt, its tokens and its summary's budget."""

    position: int
    """Tokens of the prompt before it."""
    tokens: int
    budget: int
    saving: int = field(init=False)
    """What its summary takes out of the prompt at least: its tokens over its budget."""

    def __post_init__(self) -> None:
        object.__setattr__(self, 'saving', max(self.tokens - self.budget, 0))  # frozen: set once, here


@dataclass(kw_only=True)
class Ledger:
    """What one run's requests cost, against the same requests with no compaction (one uncached token = 1)."""

    policy: PolicyConfig
    cache: CacheModel = field(default_factory=CacheModel)
    """The model's cache terms (`CacheModel.of`, the config's own values in place), else the defaults."""
    requests: int = 0
    credit: float = 0.0
    """Cost with no compaction minus cost as sent, over the requests so far."""
    sent: int = 0
    """Tokens of the last prompt sent."""
    uncompacted: int = 0
    """Tokens the last prompt would have had with no compaction."""

    def assume_sent(self, tokens: int) -> None:
        """Start a run that continues a history: its prompt so far (`tokens`) is taken as sent.

        As after a request that sent it: a rewrite deep in it is counted at what it costs a warm cache.
        """
        self.sent = self.uncompacted = tokens

    def expire(self) -> None:
        """The provider's cache has expired (the run sat idle past its retention): nothing is read from it next.

        With no compaction too, so the next request writes its whole prompt either way, and a rewrite
        now costs nothing over what the request costs anyway.
        """
        self.sent = self.uncompacted = 0

    def baseline(self, *, tokens: int, saved: int) -> tuple[float, float]:
        """This request's cost with no compaction, and as the history stands (no rewrite now).

        `tokens`: the prompt as it stands; `saved`: what earlier rewrites took out of it.
        """
        cache = self.cache
        read, write = cache.read, cache.write
        uncompacted = tokens + saved
        previous = cache.cached_part(self.uncompacted)
        none = read * previous + write * (uncompacted - previous)
        cached = cache.cached_part(min(self.sent, tokens))
        return none, read * cached + write * (tokens - cached)

    def choose(self, due: Sequence[Due], *, tokens: int, saved: int) -> int | None:
        """The index in `due` (ordered by position) from which to rewrite every due return, or None for none.

        `tokens`: the prompt as it stands; `saved`: what earlier rewrites took out of it. The rewrite
        chosen is the one expected to gain most over the rest of the run, if any gains, and only if the
        run's credit covers what it costs now beyond what it is expected to save.
        """
        cache = self.cache
        read, write = cache.read, cache.write
        none, standing = self.baseline(tokens=tokens, saved=saved)
        credit = self.credit + none - standing
        expected = self.policy.horizon * max(self.requests, 1)
        best, chosen = 0.0, None
        removed, sent = 0, self.sent
        for index in range(len(due) - 1, -1, -1):  # a tight loop: a long run may hold a thousand waiting returns
            item = due[index]
            removed += item.saving
            cached = cache.cached_part(min(sent, item.position))
            extra = read * cached + write * (tokens - removed - cached) - standing
            gain = expected * read * removed - extra
            if gain > best and credit + gain >= 0:
                best, chosen = gain, index
        return chosen

    def record(self, *, tokens: int, saved: int, rewritten_from: int | None) -> RequestUsage:
        """Account for the prompt sent, and say what it and its uncompacted twin cost in tokens.

        `tokens` long, `saved` tokens smaller than with no compaction, identical to the previous prompt up
        to `rewritten_from` (None: the previous prompt is its prefix).
        """
        cache = self.cache
        read, write = cache.read, cache.write
        uncompacted = tokens + saved
        previous = cache.cached_part(self.uncompacted)
        kept = cache.cached_part(min(self.sent, tokens))
        cached = kept if rewritten_from is None else cache.cached_part(min(self.sent, rewritten_from))
        self.credit += read * previous + write * (uncompacted - previous) - (read * cached + write * (tokens - cached))
        self.requests += 1
        self.sent, self.uncompacted = tokens, uncompacted
        return RequestUsage(
            sent=(tokens, cached, cache.written(tokens, cached)),
            uncompacted=(uncompacted, previous, cache.written(uncompacted, previous)),
            rewrite_written=kept - cached,
        )


@dataclass(frozen=True, kw_only=True)
class RequestUsage:
    """One request's prompt as sent and with no compaction: (tokens, read from the cache, written to it)."""

    sent: tuple[int, int, int]
    uncompacted: tuple[int, int, int]
    rewrite_written: int = 0
    """Tokens written to the cache only because the rewrite changed a prefix it held."""
