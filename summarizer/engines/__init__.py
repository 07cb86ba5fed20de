"""What runs a batch: the local runner over file, JSONL, SQLite and PostgreSQL sources, Ray, provider batch.

- `_sources`: the `Source` protocol; find the file sources (`discover`: `JsonSource`, `JsonlSource`,
  `SqliteSource`, siblings under `FileSource`), stream their histories as units and write results back
  to each one's destination atomically, compare-and-swap; `postgres` does the same for PostgreSQL
  tables (psycopg, the `postgres` extra);
- `_runner`: `run_batch` compacts the sources (in this process or in worker processes), journaled
  and resumable, and returns a `SourceReport` per source;
- `_provider`: the run's summaries through the provider's batch API;
- `ray`: the same on Ray Data (the `ray` extra): `compact_dataset` for a dataset, `run_on_ray` for files.

`postgres` and `ray` need an extra each, so they are imported by name when used, not from here.
"""

from ._provider import ProviderBatchReport, check_batchable, run_provider_batch
from ._runner import (
    BatchAborted,
    Interrupted,
    Journal,
    OnTick,
    Problem,
    SourceReport,
    Tick,
    result_settings,
    resumed,
    run_batch,
    run_sources,
)
from ._sources import FileSource, JsonlSource, JsonSource, Source, SourceError, SqliteSource, Target, discover, shard

__all__ = [
    'BatchAborted',
    'FileSource',
    'Interrupted',
    'Journal',
    'JsonSource',
    'JsonlSource',
    'OnTick',
    'Problem',
    'ProviderBatchReport',
    'Source',
    'SourceError',
    'SourceReport',
    'SqliteSource',
    'Target',
    'Tick',
    'check_batchable',
    'discover',
    'result_settings',
    'resumed',
    'run_batch',
    'run_provider_batch',
    'run_sources',
    'shard',
]
