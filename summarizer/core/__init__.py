"""Foundations every layer uses: configuration, the shape contract, token counts, facts, atomic writes.

- `_config`: `SummarizerConfig` and its sections (config.yaml's typed mirror), `_resources`: where
  the shipped data files are;
- `_shape`: the shape contract between a content and its summary (`JsonValue`, omission markers);
- `_tokens`: offline token estimates and the texts a model reads of a message;
- `_facts` and `_quoted`: what a fact is, and which facts of a return the turns around it name;
- `_chunks`: long passes a chunk at a time, a deadline looked at between chunks;
- `_grounding`: whether each line of a summary stands on its original (the grounded check);
- `_words`: how a count is put into words, the same in the CLI and the eval's reports;
- `_write`: atomic, compare-and-swap file writes and private folders;
- `_pg_url`: a `postgresql://` URL as a user wrote it, and the secrets no message may show;
- `_secrets`: the one redaction every message, log line and file written goes through;
- `_lazy`: the package `__getattr__` that imports a name when it is first used (`_tokens` and
  `_quoted` import pydantic-ai, which the CLI's `--help` and its errors never need).

It imports nothing else of the package: every other package builds on it.
"""

from typing import TYPE_CHECKING

from ._chunks import CHUNK, in_chunks
from ._config import (
    READ_HINT,
    READ_TOOL_NAME,
    REPEAT_CALL_ID,
    REPEAT_NOTE,
    BatchConfig,
    CacheConfig,
    ConfigError,
    EvalConfig,
    OriginalsConfig,
    OutputMode,
    PolicyConfig,
    PolicyKind,
    ProviderBatchConfig,
    Server,
    SummarizerConfig,
    ToolRule,
)
from ._facts import all_parts, fact_kinds, mention_pattern, mentions, quoted_strings, referred_facts, token_set
from ._grounding import CUT, RECORD_COUNT, Grounding, GroundingKind, OriginalText, grounded_line, ungrounded
from ._lazy import lazy_exports
from ._pg_url import SCHEME, PgUrl, secrets_in
from ._resources import data_path, install_hint, package_version
from ._secrets import redact, remember_secrets, url_secrets, without_secrets
from ._shape import (
    DROPPED_TEXT,
    ITEMS_OMITTED,
    MAX_DEPTH,
    JsonValue,
    Structure,
    carries_text,
    is_dict,
    is_plain,
    items_marker,
    keys_marker,
    nested_deeper_than,
    number_text,
    schema_of,
    shape_mismatch,
    shape_name,
    structure_of,
)
from ._words import count
from ._write import (
    ChangedWhileCompacting,
    Snapshot,
    atomic_write,
    backup,
    fsync_directory,
    install,
    make_folders,
    private_folder,
    read_snapshot,
    remove_temporaries,
)

if TYPE_CHECKING:  # they import pydantic-ai: imported when first used (`lazy_exports`)
    from ._quoted import Turns, plain_text, turn_texts
    from ._tokens import Tokenizer, content_tokens, estimate_tokens, json_text, message_texts, strings_json

__all__ = [
    'CHUNK',
    'CUT',
    'DROPPED_TEXT',
    'ITEMS_OMITTED',
    'MAX_DEPTH',
    'READ_HINT',
    'READ_TOOL_NAME',
    'RECORD_COUNT',
    'REPEAT_CALL_ID',
    'REPEAT_NOTE',
    'SCHEME',
    'BatchConfig',
    'CacheConfig',
    'ChangedWhileCompacting',
    'ConfigError',
    'EvalConfig',
    'Grounding',
    'GroundingKind',
    'JsonValue',
    'OriginalText',
    'OriginalsConfig',
    'OutputMode',
    'PgUrl',
    'PolicyConfig',
    'PolicyKind',
    'ProviderBatchConfig',
    'Server',
    'Snapshot',
    'Structure',
    'SummarizerConfig',
    'Tokenizer',
    'ToolRule',
    'Turns',
    'all_parts',
    'atomic_write',
    'backup',
    'carries_text',
    'content_tokens',
    'count',
    'data_path',
    'estimate_tokens',
    'fact_kinds',
    'fsync_directory',
    'grounded_line',
    'in_chunks',
    'install',
    'install_hint',
    'is_dict',
    'is_plain',
    'items_marker',
    'json_text',
    'keys_marker',
    'lazy_exports',
    'make_folders',
    'mention_pattern',
    'mentions',
    'message_texts',
    'nested_deeper_than',
    'number_text',
    'package_version',
    'plain_text',
    'private_folder',
    'quoted_strings',
    'read_snapshot',
    'redact',
    'referred_facts',
    'remember_secrets',
    'remove_temporaries',
    'schema_of',
    'secrets_in',
    'shape_mismatch',
    'shape_name',
    'strings_json',
    'structure_of',
    'token_set',
    'turn_texts',
    'ungrounded',
    'url_secrets',
    'without_secrets',
]

__getattr__ = lazy_exports(__name__, ('._quoted', '._tokens'))
