"""Every stored format takes one path (`_form.compact_form`), whose post-check refuses a bad splice.

The post-check of a rewrite skips `summary_problem` for a value that is exactly the summary the
compaction already checked in memory; it must still refuse a splice that writes anything else (even
a value that would pass as a summary) or touches a byte outside the values. A refused rewrite keeps
the original, every summary in it counted as failed; a strict compactor raises.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_TEXT, compactor, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import langchain_rows

import summarizer.pipeline._summarize as summarize_module
import summarizer.stored._stored as stored_module
from summarizer.core import JsonValue
from summarizer.pipeline import CheckFailed, Compactor, OriginalStore, PartRef
from summarizer.pipeline._originals import READ_HINT, READ_LINE
from summarizer.stored import SessionUnit, StoredHistory, Where, compact_stored
from summarizer.stored._langchain import Row

TEXT = ModelMessagesTypeAdapter.dump_json(history(BIG_TEXT, BIG_LIST), indent=2).decode()


def _tamper_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stored splice writes its summary less its last character: still a smaller string, not the summary."""
    real = stored_module.dump_content

    def dump_content(content: JsonValue, **kwargs: object) -> str:
        if isinstance(content, str):
            content = content[:-1]
        return real(content, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stored_module, 'dump_content', dump_content)


async def test_a_splice_that_writes_another_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _tamper_values(monkeypatch)

    result = await compact_stored(TEXT, compactor())

    assert result.text is None and result.replaced == []
    assert (result.report.summarized, result.report.failed) == (0, 2)
    assert result.report.tokens_after == result.report.tokens_before
    assert [failure.message_index for failure in result.report.failures] == [2, 4]
    assert all('not its summary' in failure.reason for failure in result.report.failures)


async def test_a_strict_compactor_raises_on_a_bad_splice(monkeypatch: pytest.MonkeyPatch) -> None:
    _tamper_values(monkeypatch)

    with pytest.raises(CheckFailed, match='rewrite failed the post-check'):
        await compact_stored(TEXT, compactor(strict=True))


async def test_a_splice_that_touches_a_byte_outside_the_values_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = StoredHistory.spliced

    def spliced(self: StoredHistory, changed: Mapping[PartRef, JsonValue]) -> StoredHistory:
        after = real(self, changed)
        assert after.text.count('"Looking."') == 2
        return StoredHistory.parse(after.text.replace('"Looking."', '"Lookinq."', 1))

    monkeypatch.setattr(StoredHistory, 'spliced', spliced)

    result = await compact_stored(TEXT, compactor())

    assert result.text is None
    assert (result.report.summarized, result.report.failed) == (0, 2)


def _session(texts: list[str]) -> SessionUnit:
    return SessionUnit(
        where=Where(path='chat.db', table='message_store', session='s1'),
        keys=list(range(len(texts))),
        ids=list(range(len(texts))),
        texts=list(texts),
        identity='chat.db session s1',
    )


async def test_a_langchain_session_goes_the_same_way() -> None:
    texts = langchain_rows('s1', BIG_TEXT)

    done = await _session(texts).compact(compactor())

    assert done.error is None and (done.report.summarized, done.report.failed) == (1, 0)
    assert list(done.rows) == [2]
    new = done.rows[2]
    assert isinstance(new, str) and len(new) < len(texts[2]) / 2
    [replaced] = done.replaced
    assert replaced.text_index == 2 and new[replaced.after[0] : replaced.after[1]].startswith('"log line 0')


@pytest.mark.parametrize('tamper', ['value', 'outside'])
async def test_a_bad_splice_of_a_langchain_row_is_refused(monkeypatch: pytest.MonkeyPatch, tamper: str) -> None:
    real = Row.with_content

    def with_content(self: Row, content: JsonValue) -> str:
        if tamper == 'value':
            assert isinstance(content, str)
            return real(self, content[:-1])
        return real(self, content).replace('"call-s1"', '"call-s2"')

    monkeypatch.setattr(Row, 'with_content', with_content)

    done = await _session(langchain_rows('s1', BIG_TEXT)).compact(compactor())

    assert done.error is None and done.rows == {} and done.replaced == []
    assert (done.report.summarized, done.report.failed) == (0, 1)
    [failure] = done.report.failures
    assert 'post-check' in failure.reason


async def test_each_summary_is_checked_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`summary_problem` runs once per summary: the model's answer; neither the read hint nor the splice runs it again."""
    calls: list[object] = []
    real = summarize_module.summary_problem

    def counted(original: JsonValue, summary: object, **kwargs: object) -> str | None:
        calls.append(summary)
        return real(original, summary, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(summarize_module, 'summary_problem', counted)
    monkeypatch.setattr(stored_module, 'summary_problem', counted)
    base = compactor()
    store = OriginalStore(directory=tmp_path / 'originals', size_limit_bytes=1 << 30)
    with_store = Compactor(config=dataclasses.replace(base.config), model='extractive', originals=store)

    result = await compact_stored(TEXT, with_store)

    assert (result.report.summarized, result.report.failed) == (2, 0)
    assert result.text is not None and (READ_HINT in result.text or READ_LINE in result.text)
    assert len(calls) == 2
