"""The originals store: owner-only, a store not a cache, degrading with one warning and then claiming nothing."""

from __future__ import annotations

import json
import logging
import os
import random
import re
import stat
from datetime import datetime
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_TEXT, head_items, history, summarizer_model
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from test_capability import tool_returns

from summarizer import Compactor, SummarizerConfig
from summarizer.core._shape import JsonValue
from summarizer.core._tokens import content_tokens, estimate_tokens, json_text
from summarizer.pipeline._cache import has_utf8, storable_json
from summarizer.pipeline._originals import (
    READ_HINT,
    READ_LINE,
    Kept,
    Original,
    OriginalStore,
    Restored,
    RestoreError,
    Span,
    _compact_json,  # pyright: ignore[reportPrivateUsage]
    conversation_scope,
    read_hint_tokens,
    with_read_hint,
)
from summarizer.pipeline._summarize import Summarizer
from summarizer.pipeline._walk import Candidate

MARKED = '\n'.join(BIG_TEXT.splitlines()[:5]) + '\n… 595 lines omitted …'


def marking_model() -> object:
    """A summarizer whose string summaries end with an omission marker line."""
    return summarizer_model(lambda content, budget: MARKED if isinstance(content, str) else head_items(content, 1))


def compactor(**overrides: object) -> Compactor:
    config = SummarizerConfig().override(keep_recent=0, **overrides)  # type: ignore[arg-type]
    return Compactor(config=config, model=marking_model())  # type: ignore[arg-type]


def returned_at(messages: list[ModelMessage], call_id: str) -> datetime:
    """The timestamp of the return of `call_id`: the store tells returns that share an id by it."""
    return next(part.timestamp for part in tool_returns(messages) if part.tool_call_id == call_id)


def read(store: OriginalStore, messages: list[ModelMessage], call_id: str, summary_text: str) -> JsonValue:
    """The original the store gives for that return of `messages` and summary, in the history's own scope."""
    scopes = [conversation_scope(messages)]
    original = store.read(call_id, summary_text, scopes=scopes, returned_at=returned_at(messages, call_id))
    assert isinstance(original, Original)
    return original.value()


async def test_a_stored_original_is_read_back_from_its_summary_and_its_marker_names_the_tool() -> None:
    summarizing = compactor()
    messages = history(BIG_TEXT, BIG_LIST)
    result = await summarizing.compact(messages)
    text_summary, list_summary = (result.changed[(2, 0)], result.changed[(4, 0)])
    assert text_summary == MARKED + READ_HINT  # the string summary's marker names the tool ...
    assert list_summary == head_items(BIG_LIST, 1)  # ... a list keeps its shape and relies on the tool's description
    store, scopes = summarizing.originals, [conversation_scope(messages)]
    assert read(store, messages, 'call_0', json_text(text_summary)) == BIG_TEXT
    assert read(store, messages, 'call_1', json_text(list_summary)) == BIG_LIST
    assert (
        store.read('call_9', json_text(list_summary), scopes=scopes, returned_at=returned_at(messages, 'call_1'))
        is None
    )


def test_the_store_is_owner_only_whatever_the_umask(isolated_cache: Path) -> None:
    previous = os.umask(0o022)
    try:
        store = OriginalStore.from_config(SummarizerConfig())
        assert store.available
        store.close()
    finally:
        os.umask(previous)
    directory = isolated_cache.with_name('cache-originals')  # beside the cache, not in it
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    files = list(directory.iterdir())
    assert files and all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in files)


async def test_an_unwritable_store_warns_once_and_no_return_is_summarized_without_its_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / 'a-file').write_text('')
    monkeypatch.setenv('SUMMARIZER_ORIGINALS_DIR', str(tmp_path / 'a-file' / 'originals'))
    summarizing = compactor()
    with caplog.at_level(logging.WARNING):
        first = await summarizing.compact(history(BIG_TEXT))
        second = await summarizing.compact(history('again\n' + BIG_TEXT))
    assert first.changed == {} and second.changed == {}  # not summarized: its original could not be kept
    assert first.report.failed == 1 and first.report.failures[0].reason.startswith('not summarized: the originals')
    assert len([r for r in caplog.records if 'originals store' in r.getMessage()]) == 1


async def test_past_its_limit_the_store_refuses_new_originals_and_evicts_none(caplog: pytest.LogCaptureFixture) -> None:
    summarizing = compactor(originals={'size_limit_mb': 0})
    summarizing.originals.size_limit_bytes = len(BIG_TEXT) * 3 // 2  # room for one original
    messages = history(BIG_TEXT)
    with caplog.at_level(logging.WARNING):
        kept = await summarizing.compact(messages)
        refused = await summarizing.compact(history('other\n' + BIG_TEXT))
    assert kept.changed[(2, 0)] == MARKED + READ_HINT
    assert refused.changed == {} and refused.report.failed == 1  # refused: the return keeps its content
    assert 'is full' in caplog.text
    assert read(summarizing.originals, messages, 'call_0', MARKED + READ_HINT) == BIG_TEXT


async def test_the_summary_caches_limit_never_evicts_an_original() -> None:
    summarizing = compactor(cache={'size_limit_mb': 0})
    for index in range(5):
        await summarizing.compact(history(f'{index}\n{BIG_TEXT}'))
    summarizing.summarizer.cache.close()
    assert summarizing.summarizer.cache.directory is not None
    originals = summarizing.originals._query('SELECT count(*) FROM originals', ())  # pyright: ignore[reportPrivateUsage]
    assert originals == (5,)  # the cache kept at most one summary; the store keeps every original


def test_a_marker_looking_line_of_the_original_is_never_rewritten() -> None:
    original = 'head\n… 3 lines omitted …\ntail'
    summary = 'head\n… 3 lines omitted …\n… 1 lines omitted …'
    assert with_read_hint(original, summary) == f'head\n… 3 lines omitted …\n… 1 lines omitted …{READ_HINT}'
    assert with_read_hint(original, ['… 1 lines omitted …']) == ['… 1 lines omitted …']


async def test_a_shared_folder_named_for_the_store_and_cache_is_never_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sticky world-writable folder (`/tmp`-like) keeps its mode; private folders in it hold the files."""
    shared = tmp_path / 'shared'
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setenv('SUMMARIZER_ORIGINALS_DIR', str(shared))
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(shared))
    summarizing = compactor()
    messages = history(BIG_TEXT)
    result = await summarizing.compact(messages)
    summarizing.summarizer.cache.close()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    inner = {path.name: stat.S_IMODE(path.stat().st_mode) for path in shared.iterdir()}
    uid = os.geteuid()
    assert inner == {f'tool-return-summarizer-originals-{uid}': 0o700, f'tool-return-summarizer-cache-{uid}': 0o700}
    assert (shared / f'tool-return-summarizer-cache-{uid}' / 'cache.db').is_file()
    assert read(summarizing.originals, messages, 'call_0', json_text(result.changed[(2, 0)])) == BIG_TEXT
    assert summarizing.originals.database == shared / f'tool-return-summarizer-originals-{uid}' / 'originals.db'


def test_a_private_folder_of_ones_own_is_used_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / 'mine'
    mine.mkdir(mode=0o700)
    monkeypatch.setenv('SUMMARIZER_ORIGINALS_DIR', str(mine))
    store = OriginalStore.from_config(SummarizerConfig())
    assert store.available
    store.close()
    assert 'originals.db' in os.listdir(mine)
    assert store.database == mine / 'originals.db'


@pytest.mark.parametrize(('before', 'after'), [(0o755, 0o700), (0o700, 0o750)], ids=['made-private', 'opened-up'])
async def test_a_chmod_of_the_folder_between_runs_does_not_move_the_store_or_the_cache(
    before: int, after: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the store was is where it is: a folder's mode decided it at each open, so a chmod lost every original.

    0755 put the store in a private folder inside; after `chmod 700` it was looked for in the folder
    itself (and the other way round after `chmod 750` of a private one): "not stored", nothing to restore.
    """
    folder = tmp_path / 'kept'
    folder.mkdir()
    folder.chmod(before)
    monkeypatch.setenv('SUMMARIZER_ORIGINALS_DIR', str(folder))
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(folder))
    summarizing = compactor()
    messages = history(BIG_TEXT)
    result = await summarizing.compact(messages)
    summarizing.summarizer.cache.close()
    summarizing.originals.close()
    database = summarizing.originals.database
    folder.chmod(after)

    again = compactor()
    assert again.originals.database == database
    assert read(again.originals, messages, 'call_0', json_text(result.changed[(2, 0)])) == BIG_TEXT
    repeated = await again.compact(messages)  # the summary comes from the cache where it was made
    again.summarizer.cache.close()
    assert (repeated.report.cache_hits, repeated.report.model_calls) == (1, 0)
    assert stat.S_IMODE(folder.stat().st_mode) == after  # never changed


async def test_a_long_log_names_the_read_tool_once_and_stays_under_the_threshold() -> None:
    """Issue 26 point 9: a 600-line log's summary, made at the threshold, still says how to read the rest.

    Its budget left no room for the hint, which was dropped to stay under the threshold.
    """
    summarizing = Compactor(config=SummarizerConfig().override(keep_recent=0), model='extractive')
    messages = history(BIG_TEXT)
    result = await summarizing.compact(messages)
    summary = result.changed[(2, 0)]
    assert isinstance(summary, str) and summary.count(READ_HINT) == 1
    assert content_tokens(summary) < summarizing.config.threshold_tokens < content_tokens(BIG_TEXT) // 8
    assert read(summarizing.originals, messages, 'call_0', summary) == BIG_TEXT


@pytest.mark.parametrize(
    ('summary', 'hinted'),
    [
        (
            'head\n… 5 lines omitted …\ntail\n… 9 lines omitted …',
            f'head\n… 5 lines omitted …{READ_HINT}\ntail\n… 9 lines omitted …',
        ),
        ('a model’s own words, no marker', f'a model’s own words, no marker\n{READ_LINE}'),
        ('head … tail …', f'head … tail …\n{READ_LINE}'),  # a line cut in pieces: no marker line
        ('[{"id": 1}, "… 4 items omitted …"]', f'[{{"id": 1}}, "… 4 items omitted …{READ_HINT}"]'),
        (
            '[{"id": 1}, "\\u2026 4 items omitted \\u2026"]',
            f'[{{"id": 1}}, "\\u2026 4 items omitted \\u2026{READ_HINT}"]',
        ),
        ('{"id": 1, "note": "…"}', '{"id": 1, "note": "…"}'),  # JSON with no marker: a line would break it
    ],
    ids=['first-marker', 'no-marker', 'pieces', 'json-list', 'json-escaped', 'json-no-marker'],
)
def test_a_string_summary_names_the_read_tool_once(summary: str, hinted: str) -> None:
    """Issue 26 point 9: the hint follows the first marker, or is a line of its own; a JSON text still parses."""
    assert with_read_hint('an original holding no marker', summary) == hinted
    if hinted.startswith(('[', '{')):
        assert json.loads(hinted) is not None


def string_candidate(tokens: int, threshold: int) -> Candidate:
    content = 'x' * (tokens * 4)
    part = ToolReturnPart('read_log', content, tool_call_id='c1')
    return Candidate(
        message_index=2, part_index=0, turn=0, part=part, content=content, text=content, tokens=tokens,
        threshold_tokens=threshold, call_args='',
    )  # fmt: skip


def test_a_string_budget_leaves_room_for_the_hint_whatever_the_store() -> None:
    """Issue 26 point 9: the room is in the budget of every string summary made at the threshold.

    The same with the store off (a dry run, a plan): one content, one budget, one cache key, one summary.
    """
    on, off = (
        Summarizer.from_config(SummarizerConfig().override(originals={'enabled': enabled}), model='extractive')
        for enabled in (True, False)
    )
    long_log, short_log = string_candidate(8000, 1000), string_candidate(1600, 1000)
    room = read_hint_tokens(estimate_tokens)
    assert on.budget_for(long_log) == off.budget_for(long_log) == 999 - room
    assert on.key_for(long_log) == off.key_for(long_log)
    assert on.budget_for(short_log) == 400  # a share of it: room enough already
    assert on.budget_for(string_candidate(8000, 12)) == 11  # a threshold too small to spare it: none


async def test_a_model_summary_leaving_no_room_for_the_hint_is_refused() -> None:
    """Issue 26 point 9: a model's string summary over the budget it was given cannot go without the hint."""
    near_threshold = summarizer_model(lambda content, budget: BIG_TEXT[: 4 * 995])  # under 1000, not with the hint
    compacting = Compactor(config=SummarizerConfig().override(keep_recent=0), model=near_threshold)  # type: ignore[arg-type]
    refused = await compacting.compact(history(BIG_TEXT))
    assert refused.report.failed == 1 and 'left for the read hint' in refused.report.failures[0].reason
    assert refused.messages[2].parts[0].content == BIG_TEXT  # type: ignore[union-attr]  # the original kept


def test_a_store_whose_records_lead_back_to_the_text_refuses_the_restore(tmp_path: Path) -> None:
    """Restore follows recorded compactions back step by step: a damaged store with a loop stops, never spins."""
    store = OriginalStore(directory=tmp_path / 'store', size_limit_bytes=1 << 20)
    first, second = '["first history"]', '["second history"]'

    def whole(original: str, compacted: str) -> list[Span]:
        return [Span(start=0, end=len(compacted), where='message 0', tool_name='t', original=original, content_hash='')]

    assert store.record_history(identity='h', original=first, compacted=second, spans=whole(first, second)) is None
    assert store.restore(second, identity='h') == Restored(text=first, values=1)
    assert store.record_history(identity='h', original=second, compacted=first, spans=whole(second, first)) is None
    with pytest.raises(RestoreError, match='lead back to it'):
        store.restore(second, identity='h')
    store.close()


def varied_contents(seed: int) -> list[JsonValue]:
    """Contents of every shape, with ASCII, other scripts, astral characters and lone surrogates in their text."""
    rng = random.Random(seed)
    alphabet = ['a', 'Z', '7', ' ', '\n', '"', '\\', '\t', 'é', 'ж', '…', '\U0001f600', '\ud800', '\udfff', '\x00']
    contents: list[JsonValue] = []
    for _ in range(200):
        weights = [20, 5, 5, 5, 3, 2, 2, 2] + [rng.choice([0, 1]) for _ in alphabet[8:]]
        words = [''.join(rng.choices(alphabet, weights, k=rng.randint(0, 12))) for _ in range(rng.randint(1, 8))]
        records: dict[str, JsonValue] = {
            word or 'empty': [index, index / 3, None, True, {'w': word}] for index, word in enumerate(words)
        }
        contents += [' '.join(words), list[JsonValue](words), records]
    return contents


def test_a_utf8_form_is_told_as_the_surrogate_search_told_it() -> None:
    surrogate = re.compile('[\ud800-\udfff]')
    for content in varied_contents(1):
        text = json_text(content)
        assert has_utf8(text) is (surrogate.search(text) is None)


def test_the_store_keeps_each_content_as_its_json_text_made_again() -> None:
    """The text kept and its hashes, from the walk's `content_text`, are those of serializing the content again."""
    for content in varied_contents(2):
        text = json_text(content)
        entry = Kept(
            tool_name='t',
            tool_call_id='c',
            content=content,
            content_text=text,
            summary='"s"',
            scope='s',
            returned_at=datetime(2026, 1, 1),
        )
        made_again = storable_json(content, separators=(',', ':'))
        assert _compact_json(entry) == made_again
        assert has_utf8(made_again)
