"""Golden regression: the embedded model's exact output for every golden history, kept in the repo.

The extractive model is deterministic, so its compacted output of a history (with the default
options and `keep_recent=0`, no cache) is a fixed text. `golden/expected/<name>.json` holds it byte
for byte; a test recomputes it, and any change to the summarizer, the prompts or the rewrite that
alters an output fails until `summarizer eval --update-golden` records the new outputs on purpose.
"""

from __future__ import annotations

from pathlib import Path

from ..core import SummarizerConfig, atomic_write
from ..pipeline import EXTRACTIVE, Compactor, OriginalStore
from ..stored import compact_stored

EXPECTED_FOLDER = 'expected'


def golden_compactor() -> Compactor:
    """The extractive model with the default options, `keep_recent=0`, no cache and no originals store."""
    config = SummarizerConfig().override(keep_recent=0, cache={'enabled': False})
    return Compactor(config=config, model=EXTRACTIVE, originals=OriginalStore.disabled())


def expected_path(history: Path) -> Path:
    """`golden/histories/x.json` -> `golden/expected/x.json`."""
    return history.parent.parent / EXPECTED_FOLDER / history.name


async def golden_output(text: str, compactor: Compactor) -> str:
    """The compacted file text (the input itself when nothing is summarized)."""
    result = await compact_stored(text, compactor)
    return result.text if result.text is not None else text


async def update_golden(histories: dict[Path, str]) -> list[Path]:
    """Write the expected output of each history (path -> text); returns the files that changed."""
    compactor = golden_compactor()
    changed: list[Path] = []
    for path, text in histories.items():
        target = expected_path(path)
        data = (await golden_output(text, compactor)).encode('utf-8')
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, data, mode=0o644)
        changed.append(target)
    return changed
