"""Summaries cached on disk by content hash, shared by processes, degrading to no cache on failure.

The key covers everything that changes the output: the canonical content, the model (the embedded
one with the package version, `_models.model_id`), the prompt version and text, the shape, the
budget, the facts later turns quote and, for a model shown it, the tool call (`cache_key`). A cache that cannot be opened, read or written (no permission, full disk, corrupt database)
logs one warning and then behaves as an empty cache: it never fails a run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import diskcache

from ..core import CacheConfig, JsonValue, private_folder, strings_json

logger = logging.getLogger(__name__)

_DISK_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout, ValueError, TypeError)


def storable_json(value: JsonValue, *, separators: tuple[str, str] | None = None, made: str | None = None) -> str:
    """`value`'s JSON text in a form SQLite can store.

    Non-ASCII stays as it is, unless the text holds a lone surrogate (valid JSON, but with no UTF-8
    form): then everything is escaped. `made`: that non-ASCII text, when already at hand (a content's
    `json_text`), so that it is not written again.
    """
    if made is None and type(value) is str:  # a string's text, whatever the separators: by the faster encoder
        made = strings_json(value)
    raw = json.dumps(value, ensure_ascii=False, separators=separators) if made is None else made
    return raw if has_utf8(raw) else json.dumps(value, separators=separators)


def has_utf8(text: str) -> bool:
    """Whether `text` has a UTF-8 form: it holds no lone surrogate.

    An ASCII text is known as one without reading it (CPython keeps the flag); any other is encoded
    once in C, which fails exactly on a surrogate code point: several times faster than a pattern search.
    """
    if text.isascii():
        return True
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        return False
    return True


def cache_key(
    *,
    content: str,
    model: str,
    prompt: str,
    shape: str,
    budget_tokens: int,
    threshold_tokens: int,
    quoted: tuple[str, ...] = (),
    quoted_budget_tokens: int | None = None,
    call: tuple[str, str],
) -> str:
    """Hex SHA-256 of everything a summary depends on; `content` is its canonical JSON text.

    `threshold_tokens` is in it although two thresholds can give one budget: a summary is checked
    against its return's threshold, and the occurrences that share a key share one verdict (single-flight,
    Ray, a provider batch), so a summary accepted under one tool's threshold is never handed to a
    return whose lower threshold it exceeds.

    `quoted`, the facts later turns quote (kept verbatim), is part of it: the same content quoted
    differently in two conversations gets two summaries, the same content quoted alike (or not at
    all) shares one. So is `quoted_budget_tokens`, how far their lines may take a summary, when set.
    Text is hashed as UTF-8, a lone surrogate (valid in JSON text) as `surrogatepass` encodes it, so
    every content has a key.

    `call`, the tool's name and the arguments it was called with, is in it too when the model is shown
    them (a real model's prompt names them; ('', '') for the embedded model, which gets the content only):
    a model may write them into its summary, so one conversation's call (a search for a patient's
    name) never reaches another conversation's history through a content both got back.
    """
    digest = hashlib.sha256()
    tool_name, call_args = call
    pieces = (
        model,
        prompt,
        shape,
        str(budget_tokens) if quoted_budget_tokens is None else f'{budget_tokens}/{quoted_budget_tokens}',
        str(threshold_tokens),
        '\x1f'.join(quoted),
        tool_name,
        call_args,
    )
    for piece in (*pieces, content):
        digest.update(piece.encode('utf-8', 'surrogatepass'))
        digest.update(b'\x00')
    return digest.hexdigest()


_DATABASE = 'cache.db'
"""diskcache's SQLite file in the cache directory; SQLite adds `-wal` and `-shm` (WAL mode) beside it."""

_NO_VALUE_FILES = 1 << 62
"""`disk_min_file_size`: diskcache writes a value of 32 KiB or more to a file of its own, created with
the umask's permissions (0644 under the usual 022); no summary is that large, so all stay in the
database."""


def _owner_only_database(directory: Path) -> None:
    """Create the database 0600 if it is missing, close up one an earlier version left open.

    SQLite would create it with the umask's permissions; it creates `-wal`, `-shm` and `-journal` with
    those of the database, so they follow (files left by an older run are closed up here too).
    """
    os.close(os.open(directory / _DATABASE, os.O_CREAT | os.O_WRONLY, 0o600))
    for suffix in ('', '-wal', '-shm', '-journal'):
        path = directory / (_DATABASE + suffix)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            continue
        if mode & 0o077:
            os.chmod(path, 0o600)


def cache_folder(directory: Path, *, create: bool = True) -> Path:
    """Where the cache (and batch journals) are kept given the configured `directory`: it, or a private folder in it.

    See `private_folder`: a folder this user does not own privately is never changed; `create=False`
    only says where, creating nothing.
    """
    return private_folder(directory, f'tool-return-summarizer-cache-{os.geteuid()}', holds=_DATABASE, create=create)


@dataclass
class SummaryCache:
    """A diskcache `Cache` of `key -> summary JSON`, or nothing when disabled or broken."""

    directory: Path | None
    size_limit_bytes: int
    _cache: diskcache.Cache | None = None
    _broken: bool = False
    _staged: dict[str, str] = field(default_factory=dict[str, str])
    """key -> summary JSON, written by the next `flush`."""

    @classmethod
    def from_config(cls, config: CacheConfig) -> SummaryCache:
        directory = config.resolved_directory() if config.enabled else None
        return cls(directory=directory, size_limit_bytes=config.size_limit_mb * 1024 * 1024)

    def get(self, key: str) -> JsonValue | None:
        staged = self._staged.get(key)
        if staged is not None:
            return json.loads(staged)
        cache = self._open()
        if cache is None:
            return None
        try:
            # diskcache is untyped; this cache only ever stores the `str` of `storable_json`
            raw = cast('str | None', cache.get(key))  # pyright: ignore[reportUnknownMemberType]
            return None if raw is None else json.loads(raw)
        except _DISK_ERRORS as exc:
            self._degrade(exc)
            return None

    def stage(self, key: str, summary: JsonValue) -> None:
        """Keep a summary for the next `flush`; `get` in this process sees it at once.

        One SQLite transaction per summary costs more than a short summary's whole pipeline, so the
        compactor stages its summaries and flushes them in one transaction before it returns.
        """
        if self.directory is not None and not self._broken:
            self._staged[key] = storable_json(summary)

    def flush(self) -> None:
        """Write every staged summary in one transaction (visible to other processes from then on)."""
        if not self._staged:
            return
        staged, self._staged = self._staged, {}
        cache = self._open()
        if cache is None:
            return
        try:
            # diskcache culls after every `set` (three more queries each: expired keys, volume, size);
            # once for the whole flush keeps the same bound on the cache's size for about a third less
            # per summary. `update=False`: this process only; the setting stored in the cache stays.
            # Summaries never expire, so only the size can call for culling.
            # diskcache sets its settings as attributes at run time and leaves `reset`/`set` untyped
            cull_limit = cast('int', cache.cull_limit)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
            cache.reset('cull_limit', 0, update=False)  # pyright: ignore[reportUnknownMemberType, reportArgumentType]
            try:
                with cache.transact():
                    for key, raw in staged.items():
                        cache.set(key, raw)  # pyright: ignore[reportUnknownMemberType]
            finally:
                cache.reset('cull_limit', cull_limit, update=False)  # pyright: ignore[reportUnknownMemberType, reportArgumentType]
            if cache.volume() > cast('int', cache.size_limit):  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]
                cache.cull()
        except _DISK_ERRORS as exc:
            self._degrade(exc)

    def close(self) -> None:
        self.flush()
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def _open(self) -> diskcache.Cache | None:
        if self._cache is not None or self._broken or self.directory is None:
            return self._cache
        try:
            # Owner-only: summaries are tool output, which may be private.
            folder = cache_folder(self.directory)
            _owner_only_database(folder)
            self._cache = diskcache.Cache(
                str(folder), size_limit=self.size_limit_bytes, disk_min_file_size=_NO_VALUE_FILES
            )
        except _DISK_ERRORS as exc:
            self._degrade(exc)
        return self._cache

    def _degrade(self, exc: BaseException) -> None:
        logger.warning('summary cache at %s unusable, running without it: %s', self.directory, exc)
        self._broken = True
        if self._cache is not None:
            try:
                self._cache.close()
            except _DISK_ERRORS:
                pass
            self._cache = None
