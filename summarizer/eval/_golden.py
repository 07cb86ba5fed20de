"""Golden regression: the embedded model's exact output for every golden history, and its figures, kept in the repo.

The extractive model is deterministic, so its compacted output of a history (with the default
options and `keep_recent=0`, no cache) is a fixed text. `golden/expected/<name>.json` holds it byte
for byte; a test recomputes it, and any change to the summarizer, the prompts or the rewrite that
alters an output fails until `summarizer eval --update-golden` records the new outputs on purpose.

Beside them, `golden/expected-figures.json` holds what the eval measured when they were recorded:
per model and content kind, the share of facts kept in context, told and blind. An eval of
golden/ gates on those (`Recorded`): a kind that keeps more than a point less fails, whatever
floor it is above; users' own corpora are gated by the floors of their config instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core import SummarizerConfig, atomic_write
from ..pipeline import EXTRACTIVE, Compactor, OriginalStore
from ..stored import compact_stored

EXPECTED_FOLDER = 'expected'
FIGURES_FILE = 'expected-figures.json'
DROP = 0.01
"""A share of facts kept in context may fall this much below the recorded one: rounding, not a regression."""
Figures = dict[str, dict[str, dict[str, float | None]]]
"""model -> kind (and `overall`) -> figure (`kept`, `blind`) -> share, or None where nothing was referred."""


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """The figures recorded beside golden/expected (`expected-figures.json`), and the settings they were measured with."""

    path: Path
    settings: dict[str, object]
    figures: Figures

    @classmethod
    def beside(cls, histories: Path) -> Recorded | None:
        """The figures recorded for the folder `histories` (`golden/histories`), if there are any."""
        path = histories.parent / FIGURES_FILE
        if histories.name != 'histories' or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding='utf-8'))
        return cls(path=path, settings=data['settings'], figures=data['figures'])

    def regressions(self, settings: dict[str, object], figures: Figures) -> list[str]:
        """Each kind and model whose share kept in context fell more than `DROP` below the recorded one."""
        if settings != self.settings:
            return [
                f'{self.path} was recorded with other settings ({self.settings}); record it again or gate on floors'
            ]
        problems: list[str] = []
        for model, kinds in self.figures.items():
            for kind in figures.get(model, {}).keys() - kinds.keys():
                problems.append(
                    f'{model}: {kind} has no figures recorded in {self.path}: record them again (--update-golden)'
                )
            for kind, recorded in kinds.items():
                now = figures.get(model, {}).get(kind, {})
                for name, was in recorded.items():
                    value = now.get(name)
                    if was is not None and (value is None or value < was - DROP):
                        shown = '-' if value is None else f'{value:.1%}'
                        problems.append(
                            f'{model}: {_FIGURE_NAMES[name]} on {kind} fell from {was:.1%} to {shown}, '
                            f'more than {DROP:.0%} below the figure recorded in {self.path}'
                        )
        return problems


_FIGURE_NAMES = {'kept': 'facts kept in context', 'blind': 'facts kept in context blind'}


def write_figures(path: Path, settings: dict[str, object], figures: Figures) -> None:
    """Record `figures`, measured with `settings`, as the golden regression figures."""
    data = {'settings': settings, 'figures': figures}
    atomic_write(path, (json.dumps(data, indent=2, sort_keys=True) + '\n').encode('utf-8'), mode=0o644)


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
