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

from typing import TYPE_CHECKING

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
    ToolRule,
    lazy_exports,
    package_version,
)

if TYPE_CHECKING:  # they import pydantic-ai: imported when first used (`lazy_exports`)
    from .capability import SummarizeToolReturns, SummarizeToolReturnsProcessor
    from .core import Tokenizer, estimate_tokens
    from .pipeline import (
        Ambiguous,
        AnswerSource,
        CacheModel,
        Candidate,
        CheckFailed,
        Compaction,
        Compactor,
        EmbeddedRequest,
        Failure,
        HistorySession,
        IntegrityProblem,
        Kept,
        KeptOriginal,
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

    __version__: str


__all__ = [
    'Ambiguous',
    'AnswerSource',
    'BatchConfig',
    'CacheConfig',
    'CacheModel',
    'Candidate',
    'CheckFailed',
    'Compaction',
    'Compactor',
    'ConfigError',
    'EmbeddedRequest',
    'EvalConfig',
    'Failure',
    'HistoryError',
    'HistorySession',
    'IntegrityProblem',
    'JsonValue',
    'Kept',
    'KeptOriginal',
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

_exported = lazy_exports(__name__, ('.core', '.pipeline', '.stored', '.capability'))


def __getattr__(name: str) -> object:
    if name == '__version__':  # looked up when asked for, like the names the pipeline's packages export
        return package_version()
    return _exported(name)
