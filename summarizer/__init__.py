"""Summarize oversized tool returns in pydantic-ai histories, keeping everything else byte for byte.

The pipeline is walk -> summarize -> check -> write:

- `Compactor` compacts an in-memory history (`list[ModelMessage]`);
- `SummarizeToolReturns` is the capability for `Agent(capabilities=[...])`, and
  `summarize_tool_returns` the history processor for `ProcessHistory` / `history_processors`;
- `compact_file` rewrites a stored history file, changing only the bytes of summarized values.
"""

from ._check import CheckFailed, IntegrityProblem
from ._config import CacheConfig, ConfigError, SummarizerConfig, ToolRule
from ._pipeline import Compaction, Compactor, Failure, HistorySession, Report
from ._tokens import Tokenizer, estimate_tokens

__all__ = [
    'CacheConfig',
    'CheckFailed',
    'Compaction',
    'Compactor',
    'ConfigError',
    'Failure',
    'HistorySession',
    'IntegrityProblem',
    'Report',
    'SummarizerConfig',
    'Tokenizer',
    'ToolRule',
    'estimate_tokens',
]
