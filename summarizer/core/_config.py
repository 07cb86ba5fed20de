"""Configuration: frozen dataclasses whose field defaults are the defaults, written once, here.

The shipped `config.yaml` documents every option at its default value (tests/test_docs.py checks
that it reads back as `SummarizerConfig()`), as a starting point for a file of one's own. Loading a
user file starts from the defaults and sets only the keys the user wrote, so a short config file is
enough; keyword options go through `override`, which checks them as a file's keys are.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Literal, TypeVar, cast, get_args, get_origin, get_type_hints

if TYPE_CHECKING:
    import yaml

OutputMode = Literal['tool', 'native', 'prompted']
Server = Literal['openai', 'vllm', 'ollama', 'llama.cpp', 'llama-cpp-python']
PolicyKind = Literal['cache-aware', 'threshold']
"""Which tool returns an agent run summarizes, and when (see `PolicyConfig`)."""
"""Which kind of OpenAI-compatible server answers at `base_url` (see `_servers`)."""
_Section = TypeVar(
    '_Section', 'PolicyConfig', 'CacheConfig', 'OriginalsConfig', 'EvalConfig', 'BatchConfig', 'ProviderBatchConfig'
)
READ_TOOL_NAME = 'read_tool_return'
"""The plugin's tool that reads originals back: its own returns are never summarized."""
READ_HINT = f' ({READ_TOOL_NAME} for the full text)'
"""What the pipeline adds after a cut's `…` of a string summary whose original is stored: no model's words."""
REPEAT_NOTE = '; call {} returned the same output later'
"""What the pipeline adds at the end of a marker standing for a tool's output that a later call of it, named here,
returned again (`_ceiling.marker`): no model's words."""
REPEAT_CALL_ID = r'[A-Za-z0-9_.:-]{1,64}'
"""The tool call ids a repeat note may name (`toolu_01…`, `call_…`, `pyd_ai_…`): an id is the provider's or the
framework's, and one that reads as words could put them into an earlier return."""


class ConfigError(ValueError):
    """A configuration file or option is invalid; the message names the file and the key."""


@dataclass(frozen=True, kw_only=True)
class ToolRule:
    """Per-tool overrides (`tools:` in config.yaml)."""

    threshold_tokens: int | None = None
    skip: bool = False
    prompt: Path | None = None
    """A template of this tool's own, replacing the shape's template."""


@dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    """Which tool returns an agent run summarizes, and when (`policy:` in config.yaml, docs/policy.md).

    Used wherever a history grows request by request: the capability, the history processor and
    `Compactor.session()`. A whole stored history compacted at once (`compact`, `batch`) has no run
    ahead of it to pay back a rewrite, so it summarizes what is over `threshold_tokens`, as `threshold` does.
    """

    kind: PolicyKind = 'cache-aware'
    """`cache-aware`: every return over `min_tokens` is a candidate once it leaves the `keep_recent` window,
    rewritten only when what it saves over the requests still to come repays the prompt cache it breaks;
    `threshold`: every return over `threshold_tokens`, as soon as it leaves the window."""
    min_tokens: int = 400
    """cache-aware: returns of at most this many tokens are never worth a rewrite."""
    cache_read: float | None = None
    """The price of a prompt token read from the provider's cache, as a share of an uncached one. None: the
    agent's model's (genai-prices), else 0.1."""
    cache_write: float | None = None
    """The price of a prompt token written to the cache, as a share of an uncached one (1 where writing is
    free). None: the agent's model's (genai-prices; its 1-hour price when the run asks for that tier), else 1.25."""
    cache_minimum: int | None = None
    """The shortest prompt prefix the provider caches, in tokens. None: the agent's model's, else 1,024."""
    horizon: float = 0.5
    """How many more requests a run is expected to make, as a multiple of those it has made so far."""
    max_prompt_tokens: int | None = None
    """The context ceiling: a prompt that would exceed it is brought under it in one rewrite, the oldest
    returns cut furthest (docs/policy.md). None: the agent's model's context window where pydantic-ai
    knows it (in the capability), else no ceiling."""
    repeats: bool = True
    """A string output that a later call of the same tool with the same arguments returned again, and that
    stays whole in the prompt, becomes a one-line marker naming that call when it is rewritten."""


@dataclass(frozen=True, kw_only=True)
class CacheConfig:
    enabled: bool = True
    directory: Path = Path('~/.cache/tool-return-summarizer')
    size_limit_mb: int = 1024

    def resolved_directory(self) -> Path:
        """The cache directory, with `SUMMARIZER_CACHE_DIR` taking precedence and `~` expanded."""
        return Path(os.environ.get('SUMMARIZER_CACHE_DIR') or self.directory).expanduser()


@dataclass(frozen=True, kw_only=True)
class OriginalsConfig:
    """The originals store (`originals:` in config.yaml): every summarized content, kept for reading back and undo."""

    enabled: bool = True
    directory: Path | None = None
    """None: `<cache directory>-originals`, beside the summary cache (see `resolved_directory`)."""
    size_limit_mb: int = 4096
    """Past it, new originals are refused (with one warning), never old ones evicted."""
    read_max_characters: int = 8000
    """The longest answer of `read_tool_return`; a longer one is cut and says how to page on."""

    def resolved_directory(self, cache: CacheConfig) -> Path:
        """`SUMMARIZER_ORIGINALS_DIR`, else `directory`, else the cache directory's sibling `NAME-originals`.

        Beside the cache, not inside it: a store is not a cache, and deleting the cache folder (the
        usual way to clear a cache) must not delete what compacted histories need to be restored.
        """
        configured = os.environ.get('SUMMARIZER_ORIGINALS_DIR') or self.directory
        if configured:
            return Path(configured).expanduser()
        cache_directory = cache.resolved_directory()
        return cache_directory.with_name(cache_directory.name + '-originals')


@dataclass(frozen=True, kw_only=True)
class BatchConfig:
    """`summarizer batch`: which files and tables hold histories, and how much is in flight."""

    include: tuple[str, ...] = ('*.json', '*.jsonl', '*.sqlite', '*.sqlite3', '*.db')
    exclude: tuple[str, ...] = ()
    table: str = 'conversations'
    id_column: str = 'id'
    messages_column: str = 'messages'
    langchain_table: str = 'message_store'
    histories_in_flight: int = 32
    commit_every: int = 100


@dataclass(frozen=True, kw_only=True)
class ProviderBatchConfig:
    """`summarizer batch --provider-batch`: summaries through the provider's batch API (docs/scale.md)."""

    enabled: bool = False
    max_requests: int = 1000
    """Requests per submitted batch (the provider's own limit caps it)."""
    poll_seconds: float = 30.0
    """The first wait before checking a batch; it grows by half each check ..."""
    max_poll_seconds: float = 600.0
    """... up to this."""
    max_resubmissions: int = 2
    """How often a request that expired or failed transiently is submitted again in a new batch."""


@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    retention_floor: float = 0.7
    blind_retention_floor: float = 0.35
    identical_lines_floor: float = 0.98


@dataclass(frozen=True, kw_only=True)
class SummarizerConfig:
    """Every option of the summarizer; see config.yaml for what each one means."""

    model: str = 'extractive'
    base_url: str | None = None
    api_key_env: str = 'OPENAI_API_KEY'
    server: Server = 'openai'
    output_mode: OutputMode = 'tool'
    threshold_tokens: int = 1000
    target_ratio: float = 0.25
    quoted_ratio: float = 0.5
    min_summary_tokens: int = 100
    max_content_tokens: int = 1_000_000
    keep_recent: int = 1
    keep_quoted_facts: bool = True
    prompt_version: str = 'v3'
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    tools: dict[str, ToolRule] = field(default_factory=dict[str, ToolRule])
    concurrency: int = 8
    timeout_seconds: float = 60.0
    max_retries: int = 3
    retry_initial_seconds: float = 0.5
    retry_max_seconds: float = 30.0
    strict: bool = False
    cache: CacheConfig = field(default_factory=CacheConfig)
    originals: OriginalsConfig = field(default_factory=OriginalsConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    batch: BatchConfig = field(default_factory=BatchConfig)
    provider_batch: ProviderBatchConfig = field(default_factory=ProviderBatchConfig)

    def __post_init__(self) -> None:
        if self.threshold_tokens < 2:
            raise ConfigError(f'threshold_tokens must be at least 2, got {self.threshold_tokens}')
        if not 0 < self.target_ratio < 1:
            raise ConfigError(f'target_ratio must be between 0 and 1, got {self.target_ratio}')
        if not self.target_ratio <= self.quoted_ratio < 1:
            raise ConfigError(
                f'quoted_ratio must be at least target_ratio ({self.target_ratio}) and under 1, got {self.quoted_ratio}'
            )
        if self.keep_recent < 0 or self.concurrency < 1 or self.max_retries < 0:
            raise ConfigError('keep_recent and max_retries must be >= 0, concurrency >= 1')
        if self.server not in get_args(Server):
            raise ConfigError(f'server must be one of {", ".join(get_args(Server))}, got {self.server!r}')
        if self.output_mode not in ('tool', 'native', 'prompted'):
            raise ConfigError(f'output_mode must be tool, native or prompted, got {self.output_mode!r}')
        policy = self.policy
        if policy.kind not in get_args(PolicyKind):
            raise ConfigError(f'policy.kind must be one of {", ".join(get_args(PolicyKind))}, got {policy.kind!r}')
        read = 0.0 if policy.cache_read is None else policy.cache_read
        write = 1.0 if policy.cache_write is None else policy.cache_write
        if (
            policy.min_tokens < 2
            or not 0 <= read <= 1 <= write
            or policy.horizon < 0
            or (policy.cache_minimum or 0) < 0
        ):
            raise ConfigError(
                'policy: min_tokens must be at least 2, 0 <= cache_read <= 1 <= cache_write, '
                'cache_minimum and horizon >= 0'
            )
        if policy.max_prompt_tokens is not None and policy.max_prompt_tokens < 1000:
            raise ConfigError(f'policy.max_prompt_tokens must be at least 1000, got {policy.max_prompt_tokens}')
        if self.originals.size_limit_mb < 0 or self.originals.read_max_characters < 1000:
            raise ConfigError('originals.size_limit_mb must be >= 0 and originals.read_max_characters >= 1000')
        batching = self.provider_batch
        if (
            batching.max_requests < 1
            or batching.max_resubmissions < 0
            or not 0 < batching.poll_seconds <= batching.max_poll_seconds
        ):
            raise ConfigError(
                'provider_batch: max_requests must be >= 1, max_resubmissions >= 0, '
                'and 0 < poll_seconds <= max_poll_seconds'
            )

    @classmethod
    def load(cls, path: Path | None, /) -> SummarizerConfig:
        """The defaults with the keys of the config file at `path` set (None: no file, the defaults)."""
        if path is None:
            return cls()
        return _merge(cls(), _read_yaml(path), base_dir=path.parent, source=str(path))

    def override(self, **options: object) -> SummarizerConfig:
        """This config with `options` (config keys, None values ignored) set, checked as a config file's are.

        The one way keyword options (the plugin's, `Compactor`'s, the command line's) reach a config:
        a section is a mapping of its keys (`cache={'enabled': False}`) or a section object.
        """
        kept = {key: value for key, value in options.items() if value is not None}
        return _merge(self, kept, base_dir=Path.cwd(), source='arguments') if kept else self

    def rule_for(self, tool_name: str) -> ToolRule:
        """This tool's overrides; `read_tool_return` is skipped unless a rule names it (its answers are originals)."""
        return self.tools.get(tool_name, _SKIP if tool_name == READ_TOOL_NAME else _NO_RULE)

    def threshold_for(self, tool_name: str) -> int:
        return self.rule_for(tool_name).threshold_tokens or self.threshold_tokens


_NO_RULE = ToolRule()
_SKIP = ToolRule(skip=True)


def _read_yaml(path: Path) -> dict[str, object]:
    import yaml  # imported by the commands that read a config file only

    try:
        loaded = yaml.safe_load(path.read_text(encoding='utf-8'))
    except OSError as exc:
        raise ConfigError(f'{path}: cannot read config: {exc.strerror or exc}') from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f'{path}: not UTF-8 text (byte {exc.start})') from None
    except yaml.YAMLError as exc:
        raise ConfigError(f'{path}: {_yaml_problem(exc)}') from None
    if loaded is None:
        return {}
    options = _mapping(loaded)
    if options is None:
        raise ConfigError(f'{path}: a config file must be a mapping of option names to values')
    return options


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's error on one line: where, what, and the construct it was in (its own text spans several)."""
    import yaml

    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return 'invalid YAML: ' + ' '.join(str(exc).split())
    mark, started = exc.problem_mark, exc.context_mark
    context = ''
    if exc.context:
        elsewhere = started is not None and (started.line, started.column) != (mark.line, mark.column)
        since = f' from line {started.line + 1} column {started.column + 1}' if started and elsewhere else ''
        context = f' ({exc.context}{since})'
    return f'invalid YAML at line {mark.line + 1} column {mark.column + 1}: {exc.problem}{context}'


def _mapping(value: object) -> dict[str, object] | None:
    """`value` if it is a YAML mapping, else None.

    `yaml.safe_load` is typed `Any`, and `isinstance` cannot narrow what a dict holds: the items stay
    as YAML gave them, checked by the caller (key names) or by the dataclass they are passed to.
    """
    return cast('dict[str, object]', value) if isinstance(value, dict) else None


def _merge(config: SummarizerConfig, data: dict[str, object], *, base_dir: Path, source: str) -> SummarizerConfig:
    known = {f.name for f in dataclasses.fields(SummarizerConfig)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f'{source}: unknown option(s): {", ".join(unknown)}')
    _check_types(SummarizerConfig, data, source=source)
    changes: dict[str, object] = {}
    for key, value in data.items():
        if key == 'tools':
            changes[key] = _tool_rules(value, base_dir=base_dir, source=source)
        elif key == 'policy':
            changes[key] = _sub(PolicyConfig, config.policy, value, source=f'{source}: policy')
        elif key == 'cache':
            changes[key] = _sub(CacheConfig, config.cache, value, source=f'{source}: cache')
        elif key == 'originals':
            changes[key] = _sub(OriginalsConfig, config.originals, value, source=f'{source}: originals')
        elif key == 'eval':
            changes[key] = _sub(EvalConfig, config.eval, value, source=f'{source}: eval')
        elif key == 'batch':
            changes[key] = _sub(BatchConfig, config.batch, value, source=f'{source}: batch')
        elif key == 'provider_batch':
            changes[key] = _sub(ProviderBatchConfig, config.provider_batch, value, source=f'{source}: provider_batch')
        else:
            changes[key] = value
    target = changes.get('target_ratio')
    if 'quoted_ratio' not in changes and isinstance(target, int | float) and target > config.quoted_ratio:
        # A target_ratio over the quoted_ratio it did not set (a config from before quoted_ratio, at 0.6): no
        # stretch, as at quoted_ratio = target_ratio, rather than a config that no longer loads.
        changes['quoted_ratio'] = target
    try:
        return dataclasses.replace(config, **changes)
    except (TypeError, ConfigError) as exc:
        raise ConfigError(f'{source}: {exc}') from None


def _sub(cls: type[_Section], current: _Section, value: object, *, source: str) -> _Section:
    if isinstance(value, cls):
        return value
    options = _mapping(value)
    if options is None:
        raise ConfigError(f'{source} must be a mapping')
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(f'{source}: unknown option(s): {", ".join(unknown)}')
    _check_types(cls, options, source=source)
    # YAML lists as tuples, the type of the sequence options
    changes: dict[str, object] = {key: (*item,) if isinstance(item, list) else item for key, item in options.items()}
    if 'directory' in changes and changes['directory'] is not None:
        changes['directory'] = Path(str(changes['directory']))
    return dataclasses.replace(current, **changes)


def _tool_rules(value: object, *, base_dir: Path, source: str) -> dict[str, ToolRule]:
    tools = _mapping(value)
    if tools is None:
        raise ConfigError(f'{source}: tools must be a mapping of tool names to overrides')
    rules: dict[str, ToolRule] = {}
    for name, rule in tools.items():
        if isinstance(rule, ToolRule):
            rules[str(name)] = rule
            continue
        options = _mapping(rule)
        if options is None or set(options) - {'threshold_tokens', 'skip', 'prompt'}:
            raise ConfigError(f'{source}: tools.{name} takes only threshold_tokens, skip and prompt')
        _check_types(ToolRule, options, source=f'{source}: tools.{name}')
        prompt = options.get('prompt')
        rules[str(name)] = ToolRule(
            threshold_tokens=cast('int | None', options.get('threshold_tokens')),  # checked just above
            skip=options.get('skip') is True,
            prompt=(base_dir / str(prompt)) if prompt else None,
        )
    return rules


def _check_types(cls: type, values: Mapping[str, object], *, source: str) -> None:
    """Each of `values` of the type its field of `cls` declares, else a `ConfigError` naming the key and that type.

    YAML gives any type anywhere (`threshold_tokens: five hundred`), and a dataclass checks none: a
    value of the wrong type would fail later, far from the key, or pass for another (`strict: maybe`).
    """
    hints = _field_types(cls)
    for key, value in values.items():
        wanted = _wanted(hints[key], value)
        if wanted is not None:
            raise ConfigError(f'{source}: {key} must be {wanted}, got {value!r}')


@functools.cache
def _field_types(cls: type) -> dict[str, object]:
    return get_type_hints(cls)


def _wanted(hint: object, value: object) -> str | None:
    """What a value of type `hint` is, in words, when `value` is not one; None when it is (or `hint` is checked elsewhere).

    Sections and `tools` are mappings checked key by key; the choices of a `Literal` are checked with
    their names by `SummarizerConfig.__post_init__`.
    """
    origin, arguments = get_origin(hint), get_args(hint)
    if origin is UnionType:
        if value is None:
            return None
        wanted = [_wanted(argument, value) for argument in arguments if argument is not NoneType]
        return None if None in wanted else ' or '.join(str(words) for words in wanted) + ' or null'
    if origin is tuple:
        strings = isinstance(value, list | tuple) and all(isinstance(item, str) for item in cast('list[object]', value))
        return None if strings else 'a list of strings'
    number = isinstance(value, int | float) and not isinstance(value, bool)
    checks: dict[object, tuple[bool, str]] = {
        bool: (isinstance(value, bool), 'true or false'),
        int: (number and isinstance(value, int), 'an integer'),
        float: (number, 'a number'),
        str: (isinstance(value, str), 'a string'),
        Path: (isinstance(value, str | Path), 'a path'),
    }
    ok, words = checks.get(hint, (True, ''))
    return None if ok else words
