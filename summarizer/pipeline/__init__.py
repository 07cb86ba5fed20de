"""Compaction of in-memory pydantic-ai histories: walk -> summarize -> check, with the originals kept.

- `_walk`: the tool returns of a history that are candidates for a summary;
- `_summarize`: one summary per candidate, by a model (`_models` resolves it, `_servers` speaks an
  OpenAI-compatible server's dialect, `_prompts` writes its prompt), cached (`_cache`) and retried;
- `_check`: the post-check of every summary and of the rewritten history;
- `_pipeline`: `Compactor` (one history in one go: plan, answers, apply) and `HistorySession` (an agent run's growing
  history, whose rewrites `_policy` and `_prices` choose and price); `_report`: what they return;
- `_originals`: the originals store, where each summarized content is kept to be read back or restored.

It builds on `core` and `extractive` (the embedded model) and knows nothing of stored formats or engines.
"""

from ._cache import SummaryCache, cache_folder
from ._check import CheckFailed, IntegrityProblem, PartRef, check_integrity, compare_message_json, summary_problem
from ._models import (
    EXTRACTIVE,
    EmbeddedRequest,
    EmbeddedSummarize,
    ModelBuildError,
    embedded_model,
    extractive_summary,
    is_deterministic,
    model_id,
    resolve_model,
)
from ._originals import (
    SEPARATOR,
    Ambiguous,
    Kept,
    KeptOriginal,
    Original,
    OriginalStore,
    Replaced,
    Restored,
    RestoreError,
    Rewrite,
    Span,
    first_message_scope,
    history_identity,
    holds_omission_marker,
    names_read_tool,
    record_rewrite,
    run_scope,
)
from ._pipeline import Compactor, HistorySession, Plan
from ._prices import CacheModel, PriceModel, RunCost, run_cost
from ._prompts import PromptBook
from ._report import Compaction, Failure, Report
from ._summarize import (
    AnswerSource,
    Outcome,
    ServerUnreachable,
    Summarizer,
    SummaryFailed,
    SummaryRequest,
    describe,
    is_transient,
)
from ._walk import Candidate, as_json, excluded, is_summarizable, json_text_of, plain_json_text, walk

__all__ = [
    'EXTRACTIVE',
    'SEPARATOR',
    'Ambiguous',
    'AnswerSource',
    'CacheModel',
    'Candidate',
    'CheckFailed',
    'Compaction',
    'Compactor',
    'EmbeddedRequest',
    'EmbeddedSummarize',
    'Failure',
    'HistorySession',
    'IntegrityProblem',
    'Kept',
    'KeptOriginal',
    'ModelBuildError',
    'Original',
    'OriginalStore',
    'Outcome',
    'PartRef',
    'Plan',
    'PriceModel',
    'PromptBook',
    'Replaced',
    'Report',
    'RestoreError',
    'Restored',
    'Rewrite',
    'RunCost',
    'ServerUnreachable',
    'Span',
    'Summarizer',
    'SummaryCache',
    'SummaryFailed',
    'SummaryRequest',
    'as_json',
    'cache_folder',
    'check_integrity',
    'compare_message_json',
    'describe',
    'embedded_model',
    'excluded',
    'extractive_summary',
    'first_message_scope',
    'history_identity',
    'holds_omission_marker',
    'is_deterministic',
    'is_summarizable',
    'is_transient',
    'json_text_of',
    'model_id',
    'names_read_tool',
    'plain_json_text',
    'record_rewrite',
    'resolve_model',
    'run_cost',
    'run_scope',
    'summary_problem',
    'walk',
]
