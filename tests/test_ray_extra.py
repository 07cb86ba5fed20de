"""`summarizer batch --engine ray` without the ray extra, and its options misused: one line, exit 2, nothing written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter

from summarizer.cli import main


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / 'a.jsonl'
    path.write_bytes(ModelMessagesTypeAdapter.dump_json(history(BIG_TEXT)) + b'\n')
    return path


def test_engine_ray_without_the_extra(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, 'summarizer.engines.ray', None)  # as if `import ray` failed
    before = source.read_bytes()
    assert main(['batch', '--engine', 'ray', str(source), '--in-place']) == 2
    error = capsys.readouterr().err
    assert "--engine ray needs the ray extra: pip install '.[ray]' in the project's checkout" in error
    assert 'Traceback' not in error
    assert source.read_bytes() == before


def test_ray_address_needs_engine_ray(source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(['batch', '--ray-address', 'ray://head:10001', str(source), '--out', str(tmp_path / 'out')]) == 2
    assert '--ray-address works with --engine ray only' in capsys.readouterr().err
    assert not (tmp_path / 'out').exists()
