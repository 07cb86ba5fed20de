"""What a summary may spend: estimated tokens, and the time the embedded model may work.

Token costs are additive estimates (`cost`) so a greedy choice can add them up; the real count of
the rendered summary (`tokens`) settles it at the end. The work limit makes the model stoppable:
it runs in a worker thread that `asyncio.timeout` cannot stop, so it checks its own deadline in
every loop that grows with the content and gives up with `WorkBudgetExceeded`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ..core import JsonValue, estimate_tokens, json_text

__all__ = (
    'Deadline',
    'WorkBudgetExceeded',
    'cost',
    'current_deadline',
    'escapes',
    'time_limit',
    'tokens',
    'within',
)


def cost(text: str) -> float:
    """Estimated tokens of a piece of text, additive: ASCII characters / 4, one per other character."""
    if text.isascii():
        return len(text) / 4
    ascii_chars = len(text.encode('ascii', 'ignore'))
    return ascii_chars / 4 + (len(text) - ascii_chars)


def escapes(text: str) -> float:
    r"""What writing `text` inside a JSON string adds to its cost: what its escapes add to its characters.

    A quote, a backslash, a tab, a line break or a carriage return takes one more character (`\n`);
    any other control character five more (`\u001b`, as in a coloured log).
    """
    extra = text.count('"') + text.count('\\')
    if not text.isprintable():  # a tab, a line break or another control character, or a rarer non-printable
        short = len(_SHORT_ESCAPES.findall(text))
        extra += short + 5 * (len(_CONTROL.findall(text)) - short)
    return extra / 4


_CONTROL = re.compile('[\x00-\x1f]')
"""The characters JSON writes escaped, but for the quote and the backslash."""
_SHORT_ESCAPES = re.compile('[\b\t\n\f\r]')
r"""Those of them it writes in two characters (`\t`); the others take six (`\u001b`)."""


def tokens(value: JsonValue) -> int:
    """Estimated tokens of a summary as the post-check counts them."""
    return estimate_tokens(json_text(value))


class WorkBudgetExceeded(Exception):
    """The embedded model ran past its time limit and stopped; the content keeps its original.

    Not a `TimeoutError`: a deterministic model would run out of time again, so this is never retried.
    """


@dataclass(slots=True)
class Deadline:
    """A point in `time.monotonic()` the work must not run past (None: no limit), or sooner its caller's giving up."""

    at: float | None
    seconds: float | None = None
    abandoned: bool = False
    """Its caller no longer waits for the work (cancelled, timed out): it stops at its next look, as at the deadline."""

    @classmethod
    def after(cls, seconds: float | None) -> Deadline:
        return cls(at=None if seconds is None else time.monotonic() + seconds, seconds=seconds)

    def check(self) -> None:
        """Raise `WorkBudgetExceeded` once the deadline passed or the work was abandoned; cheap every ~1,000 steps."""
        if self.abandoned:
            raise WorkBudgetExceeded('the embedded summarizer stopped: its caller gave up on it')
        if self.at is not None and time.monotonic() > self.at:
            raise self.overrun()

    def overrun(self) -> WorkBudgetExceeded:
        """What the work raises at the deadline, or its caller when it stops waiting for the work there."""
        return WorkBudgetExceeded(f'the embedded summarizer stopped after its {self.seconds:g} s time limit')

    def abandon(self) -> None:
        """The caller gives up: the work, waiting for its turn or under way in a thread nothing can stop, stops."""
        self.abandoned = True


NO_DEADLINE = Deadline(at=None)
_CURRENT: ContextVar[Deadline] = ContextVar('summarizer_extractive_deadline', default=NO_DEADLINE)


@contextmanager
def time_limit(seconds: float | None) -> Generator[Deadline]:
    """Work done inside stops `seconds` from now (None: no limit)."""
    with within(Deadline.after(seconds)) as deadline:
        yield deadline


@contextmanager
def within(deadline: Deadline) -> Generator[Deadline]:
    """Work done inside stops at `deadline`.

    A context variable rather than a parameter, so the model's whole request (parsing the prompt
    too) counts against it, while offline summarizers that never look at it need not accept it.
    """
    token = _CURRENT.set(deadline)
    try:
        yield deadline
    finally:
        _CURRENT.reset(token)


def current_deadline() -> Deadline:
    """The deadline of the `time_limit` the work runs in (no limit outside one)."""
    return _CURRENT.get()
