"""How reports put counts into words, the same way in the CLI's lines and the eval's reports."""

from __future__ import annotations


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 history`, `1,234 histories`: a number with its noun, singular or plural (default: `noun` + s)."""
    return f'{number:,} {noun if number == 1 else plural or noun + "s"}'
