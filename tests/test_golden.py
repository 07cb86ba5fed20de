"""Golden regression: the embedded model's output of every golden history is the recorded one.

When a change alters an output on purpose, record the new outputs with
`summarizer eval --update-golden` and review the diff of golden/expected/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.eval import expected_path, golden_compactor, golden_output

GOLDEN = Path(__file__).resolve().parent.parent / 'golden' / 'histories'
HISTORIES = sorted(GOLDEN.glob('*.json'))


def test_the_corpus_is_there() -> None:
    assert len(HISTORIES) >= 25
    recorded = {path.name for path in (GOLDEN.parent / 'expected').glob('*.json')}
    assert recorded == {path.name for path in HISTORIES}, 'run `summarizer eval --update-golden`'


@pytest.mark.parametrize('history', HISTORIES, ids=[path.stem for path in HISTORIES])
async def test_output_is_unchanged(history: Path) -> None:
    expected = expected_path(history)
    assert expected.is_file(), f'{expected} missing: run `summarizer eval --update-golden`'
    output = await golden_output(history.read_text(encoding='utf-8'), golden_compactor())
    assert output == expected.read_text(encoding='utf-8'), (
        f'the compacted output of {history.name} changed; if that is intended, run '
        '`summarizer eval --update-golden` and review the diff of golden/expected/'
    )
