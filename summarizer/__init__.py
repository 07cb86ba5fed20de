"""Summarize oversized tool returns in pydantic-ai histories, keeping everything else byte for byte.

The pipeline is walk -> summarize -> check -> write. This module is the public API:

- `SummarizeToolReturns` is the capability for `Agent(capabilities=[...])`, which also gives the agent
  the `read_tool_return` tool to read originals back; `SummarizeToolReturnsProcessor` is the history
  processor for `ProcessHistory`;
- `Compactor` compacts an in-memory history (`list[ModelMessage]`): `await compactor.compact(messages)`
  returns a `Compaction` (the new messages, a `Report`, and which parts changed);
- `compact_stored` compacts a history stored as JSON text, rewriting only the summarized values
  (`record_rewrite` records the way back for `summarizer restore`);
- `SummarizerConfig` and its sections are the options (config.yaml documents them), and every type
  the signatures of these name is exported here too.

The package's layers (`core`, `extractive`, `pipeline`, `stored`, `engines`, `capability`, `eval`,
`cli`) are described in docs/how-it-works.md.
"""

from importlib.metadata import PackageNotFoundError, version

from .capability import SummarizeToolReturns, SummarizeToolReturnsProcessor
from .core import (
    BatchConfig,
    CacheConfig,
    ConfigError,
    EvalConfig,
    JsonValue,
    OriginalsConfig,
    OutputMode,
    PolicyConfig,
    PolicyKind,
    ProviderBatchConfig,
    Server,
    Structure,
    SummarizerConfig,
    Tokenizer,
    ToolRule,
    estimate_tokens,
)
from .pipeline import (
    AnswerSource,
    Candidate,
    CheckFailed,
    Compaction,
    Compactor,
    Failure,
    HistorySession,
    IntegrityProblem,
    Kept,
    ModelBuildError,
    Original,
    OriginalStore,
    Outcome,
    PartRef,
    Plan,
    Replaced,
    Report,
    Restored,
    Rewrite,
    RunCost,
    ServerUnreachable,
    Span,
    Summarizer,
    SummaryCache,
    SummaryRequest,
    history_identity,
    record_rewrite,
    run_cost,
)
from .stored import HistoryError, StoredCompaction, compact_stored

try:
    __version__ = version('tool-return-summarizer')
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = '0+unknown'

__all__ = [
    'AnswerSource',
    'BatchConfig',
    'CacheConfig',
    'Candidate',
    'CheckFailed',
    'Compaction',
    'Compactor',
    'ConfigError',
    'EvalConfig',
    'Failure',
    'HistoryError',
    'HistorySession',
    'IntegrityProblem',
    'JsonValue',
    'Kept',
    'ModelBuildError',
    'Original',
    'OriginalStore',
    'OriginalsConfig',
    'Outcome',
    'OutputMode',
    'PartRef',
    'Plan',
    'PolicyConfig',
    'PolicyKind',
    'ProviderBatchConfig',
    'Replaced',
    'Report',
    'Restored',
    'Rewrite',
    'RunCost',
    'Server',
    'ServerUnreachable',
    'Span',
    'StoredCompaction',
    'Structure',
    'SummarizeToolReturns',
    'SummarizeToolReturnsProcessor',
    'Summarizer',
    'SummarizerConfig',
    'SummaryCache',
    'SummaryRequest',
    'Tokenizer',
    'ToolRule',
    '__version__',
    'compact_stored',
    'estimate_tokens',
    'history_identity',
    'record_rewrite',
    'run_cost',
]
