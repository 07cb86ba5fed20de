"""Stored histories and the way back: parse with value positions, splice summaries in, restore.

- `_form`: the one compaction path of every stored format (`StoredForm`: its messages, its splice,
  its post-check): `compact_form` compacts a parsed form's messages, splices the summaries in,
  post-checks the rewrite and, if it fails, keeps the original and counts each summary in it failed;
- `_stored`: a pydantic-ai history stored as JSON text (a file, a JSONL line, a database value),
  parsed one message at a time, with where each content value sits found for the messages a
  rewrite touches (`StoredHistory`, a `StoredForm`); `compact_stored` rewrites only the summarized
  values, byte for byte elsewhere;
- `_langchain`: LangChain's message rows, one message per row, a session a history (`Session`, a
  `StoredForm` whose text is its rows);
- `_screen`: the batch's fast path, proving from a history's JSON that it has nothing to summarize,
  before its messages are validated;
- `_units`: one stored history as the engines and restore handle it (`StoredUnit`, `SessionUnit`),
  and its result (`Done`);
- `_restore`: a compacted history put back from the originals store.

It builds on `core` and `pipeline`; the engines that read and write sources build on it.
"""

from ._langchain import Row
from ._restore import restore_unit
from ._stored import HistoryError, StoredCompaction, StoredHistory, check_rewrite, compact_stored
from ._units import Done, SessionUnit, StoredUnit, Unit, Where, identity_of, shown_id, unit_size

__all__ = [
    'Done',
    'HistoryError',
    'Row',
    'SessionUnit',
    'StoredCompaction',
    'StoredHistory',
    'StoredUnit',
    'Unit',
    'Where',
    'check_rewrite',
    'compact_stored',
    'identity_of',
    'restore_unit',
    'shown_id',
    'unit_size',
]
