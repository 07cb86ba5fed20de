"""Summarize oversized tool returns in pydantic-ai histories, keeping everything else byte for byte.

The pipeline is walk -> summarize -> check -> write:

- `Compactor` compacts an in-memory history (`list[ModelMessage]`): `await compactor.compact(messages)`
  returns a `Compaction` (the new messages, a `Report`, and which parts changed);
- `SummarizeToolReturns` is the capability for `Agent(capabilities=[...])`, which also gives the agent
  the `read_tool_return` tool to read originals back; `summarize_tool_returns(...)` is the history
  processor for `ProcessHistory`;
- stored history files are rewritten byte-exactly by the `summarizer compact` and `summarizer batch`
  commands, and put back by `summarizer restore`.
"""

from importlib.metadata import PackageNotFoundError, version

from .capability import SummarizeToolReturns, SummarizeToolReturnsProcessor, summarize_tool_returns
from .core import (
    CacheConfig,
    ConfigError,
    OriginalsConfig,
    PolicyConfig,
    PolicyKind,
    SummarizerConfig,
    Tokenizer,
    ToolRule,
    estimate_tokens,
)
from .pipeline import (
    CheckFailed,
    Compaction,
    Compactor,
    Failure,
    HistorySession,
    IntegrityProblem,
    Report,
    RunCost,
    ServerUnreachable,
    run_cost,
)

try:
    __version__ = version('tool-return-summarizer')
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = '0+unknown'

__all__ = [
    'CacheConfig',
    'CheckFailed',
    'Compaction',
    'Compactor',
    'ConfigError',
    'Failure',
    'HistorySession',
    'IntegrityProblem',
    'OriginalsConfig',
    'PolicyConfig',
    'PolicyKind',
    'Report',
    'RunCost',
    'ServerUnreachable',
    'SummarizeToolReturns',
    'SummarizeToolReturnsProcessor',
    'SummarizerConfig',
    'Tokenizer',
    'ToolRule',
    '__version__',
    'estimate_tokens',
    'run_cost',
    'summarize_tool_returns',
]
