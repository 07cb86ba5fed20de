"""Offline eval of summarizer models: compression, fact retention, structure and cost, with a baseline.

`summarizer eval` (see docs/eval.md) runs every model through the real pipeline over stored
histories, scores the outputs (`_metrics`), compares them with the head-truncation baseline
(`_baseline`), writes the report (`_report`) and gates CI; `_golden` keeps the embedded model's
outputs as regression fixtures. `summarizer replay` replays recorded agent runs under each
compaction strategy (`_replay`) and writes its report (`_replay_report`).
"""

from ..core import mentions, referred_facts
from ._baseline import HEAD, head, head_model
from ._golden import (
    FIGURES_FILE,
    Recorded,
    expected_path,
    golden_compactor,
    golden_output,
    update_golden,
    write_figures,
)
from ._metrics import Tally
from ._replay import ReplayHistory, compared_strategies, replay_all
from ._replay_report import REPLAY_FILES, replay_markdown, write_replay_report
from ._report import REPORT_FILES, default_folder, markdown, write_report
from ._run import EvalHistory, EvalRun, ModelScore, eval_models, run_eval

__all__ = [
    'FIGURES_FILE',
    'HEAD',
    'REPLAY_FILES',
    'REPORT_FILES',
    'EvalHistory',
    'EvalRun',
    'ModelScore',
    'Recorded',
    'ReplayHistory',
    'Tally',
    'compared_strategies',
    'default_folder',
    'eval_models',
    'expected_path',
    'golden_compactor',
    'golden_output',
    'head',
    'head_model',
    'markdown',
    'mentions',
    'referred_facts',
    'replay_all',
    'replay_markdown',
    'run_eval',
    'update_golden',
    'write_figures',
    'write_replay_report',
    'write_report',
]
