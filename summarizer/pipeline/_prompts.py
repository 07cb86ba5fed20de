r"""Prompt templates (files in prompts/<version>/) and the framing of tool content as data.

The tool content goes into the prompt as JSON inside a `<tool_content>` element whose `<` characters
are escaped as `\u003c`. Untrusted text therefore cannot close the element early or open a fake one:
anything it says stays inside one JSON value that the system prompt tells the model is data.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..core import ConfigError, JsonValue, SummarizerConfig, data_path, json_text

_DATA_BLOCK = re.compile(
    r'<tool_content tool="[^"]*" shape="(?P<shape>\w+)" budget_tokens="(?P<budget>\d+)"'
    r'(?: max_items="(?P<max_items>\d+)")?>\n(?P<json>.*?)\n</tool_content>'
    r'(?:\n<quoted_facts>\n(?P<quoted>.*?)\n</quoted_facts>)?',
    re.DOTALL,
)


@dataclass(frozen=True, kw_only=True)
class Prompt:
    system: str
    template: str
    identity: str
    """Version and hash of both texts: part of the cache key, so editing a template re-summarizes."""

    @property
    def instructions(self) -> str:
        """The prompt's own text, without the data: what no summary may repeat."""
        return f'{self.system}\n{self.template}'

    def render(
        self,
        *,
        tool_name: str,
        content: JsonValue,
        shape: str,
        budget_tokens: int,
        call_args: str,
        content_text: str | None = None,
        quoted: tuple[str, ...] = (),
    ) -> str:
        """The user prompt for one content, framed as data.

        `content_text`: the content's `json_text`, when already at hand (the walk measured it);
        `quoted`: the facts later turns quote, which the summary must keep.
        """
        max_items = len(content) if isinstance(content, list) else None
        return self.template.format(
            tool_name=tool_name,
            budget_tokens=budget_tokens,
            budget_chars=budget_tokens * 4,
            item_count=max_items if max_items is not None else '',
            max_items=max_items if max_items is not None else '',
            call_args=call_args or '(unknown)',
            data=data_block(
                tool_name=tool_name,
                content=content,
                shape=shape,
                budget_tokens=budget_tokens,
                content_text=content_text,
                quoted=quoted,
            ),
        )


@dataclass(frozen=True, kw_only=True)
class DataBlock:
    content: JsonValue
    shape: str
    budget_tokens: int
    max_items: int | None
    quoted: tuple[str, ...]


def data_block(
    *,
    tool_name: str,
    content: JsonValue,
    shape: str,
    budget_tokens: int,
    content_text: str | None = None,
    quoted: tuple[str, ...] = (),
) -> str:
    """The content framed as data: escaped compact JSON inside a `<tool_content>` element.

    Compact, as the walk measured it: a list or object is then serialized once per summary, not twice.
    The facts the conversation holds (`Candidate.quoted`) follow in a `<quoted_facts>` element, a JSON list escaped the same way
    (they are pieces of the content, so just as untrusted).
    """
    if isinstance(content, str):
        payload = json.dumps(content, ensure_ascii=False)
    else:
        payload = content_text if content_text is not None else json_text(content)
    payload = payload.replace('<', '\\u003c')
    max_items = f' max_items="{len(content)}"' if isinstance(content, list) else ''
    name = html.escape(tool_name, quote=True)
    block = (
        f'<tool_content tool="{name}" shape="{shape}" budget_tokens="{budget_tokens}"{max_items}>\n'
        f'{payload}\n</tool_content>'
    )
    if not quoted:
        return block
    facts = json.dumps(list(quoted), ensure_ascii=False).replace('<', '\\u003c')
    return f'{block}\n<quoted_facts>\n{facts}\n</quoted_facts>'


def parse_data_block(prompt: str) -> DataBlock | None:
    """The data block of a rendered prompt (what the embedded model reads), or None if absent."""
    match = _DATA_BLOCK.search(prompt)
    if match is None:
        return None
    return DataBlock(
        content=json.loads(match['json']),
        shape=match['shape'],
        budget_tokens=int(match['budget']),
        max_items=int(match['max_items']) if match['max_items'] else None,
        quoted=tuple(json.loads(match['quoted'])) if match['quoted'] else (),
    )


class PromptBook:
    """Loads each template once; picks the tool's own template or the shape's."""

    def __init__(self, config: SummarizerConfig) -> None:
        self._config = config
        self._folder = data_path('prompts') / config.prompt_version
        if not self._folder.is_dir():
            raise ConfigError(f'prompt_version {config.prompt_version!r}: no folder {self._folder}')
        self._system = self._read(self._folder / 'system.md')
        self._loaded: dict[Path, Prompt] = {}
        self._chosen: dict[tuple[str, str], Prompt] = {}
        """Per (tool, shape): looked up once per summary, where building and hashing a `Path` shows."""

    def instructions(self) -> str:
        """The own text of every prompt the config may send: what no summary may repeat (`summarizer check`)."""
        templates = {self._folder / f'{shape}.md' for shape in ('string', 'list', 'object')}
        templates.update(rule.prompt for rule in self._config.tools.values() if rule.prompt is not None)
        return '\n'.join([self._system, *(self._read(path) for path in sorted(templates))])

    def for_tool(self, tool_name: str, shape: str) -> Prompt:
        prompt = self._chosen.get((tool_name, shape))
        if prompt is None:
            prompt = self._chosen[(tool_name, shape)] = self._load(tool_name, shape)
        return prompt

    def _load(self, tool_name: str, shape: str) -> Prompt:
        path = self._config.rule_for(tool_name).prompt or self._folder / f'{shape}.md'
        prompt = self._loaded.get(path)
        if prompt is None:
            template = self._read(path)
            digest = hashlib.sha256(f'{self._system}\x00{template}'.encode()).hexdigest()[:16]
            prompt = Prompt(system=self._system, template=template, identity=f'{self._config.prompt_version}:{digest}')
            self._loaded[path] = prompt
        return prompt

    @staticmethod
    def _read(path: Path) -> str:
        try:
            return path.read_text(encoding='utf-8').strip()
        except OSError as exc:
            raise ConfigError(f'cannot read prompt template {path}: {exc}') from None
