"""Batch compaction of stored histories: JSON files, JSONL, SQLite tables and LangChain's message store.

`discover()` finds and checks the sources, `run_batch()` compacts them (in this process or in
worker processes) and returns a `SourceReport` per source. The `summarizer batch` command wraps both.
"""

from ._runner import BatchAborted, Journal, Problem, SourceReport, Tick, result_settings, resumed, run_batch
from ._sources import Source, SourceError, Target, discover, shard

__all__ = [
    'BatchAborted',
    'Journal',
    'Problem',
    'Source',
    'SourceError',
    'SourceReport',
    'Target',
    'Tick',
    'discover',
    'result_settings',
    'resumed',
    'run_batch',
    'shard',
]
