"""The documentation says what the code does: model strings pydantic-ai builds, options the commands have, links and config keys that exist."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml
from pydantic_ai.exceptions import UserError
from pydantic_ai.models import infer_model

from summarizer import SummarizerConfig
from summarizer.cli import SUBCOMMANDS, main
from summarizer.core import data_path

ROOT = Path(__file__).parent.parent
MODEL_STRING = re.compile(r'(?<![\w/])([a-z][a-z-]*:(?:gpt|claude|gemini|o\d)[\w.-]*\w)')
"""`provider:name` for the hosted models the docs name (`openai:gpt-4.1-mini`, `google:gemini-2.5-flash`)."""


def documented_model_strings() -> list[str]:
    files = [ROOT / 'README.md', ROOT / 'config.yaml', *sorted((ROOT / 'docs').glob('*.md'))]
    return sorted({match for path in files for match in MODEL_STRING.findall(path.read_text(encoding='utf-8'))})


def test_the_docs_name_some_hosted_models() -> None:
    assert {'openai:gpt-4.1-mini', 'anthropic:claude-haiku-4-5', 'google:gemini-2.5-flash'} <= set(
        documented_model_strings()
    )


@pytest.mark.parametrize('model', documented_model_strings())
def test_a_documented_model_string_is_one_pydantic_ai_knows(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Building may still need the provider's extra (ImportError) but never says `Unknown model`."""
    for key in ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GOOGLE_API_KEY', 'GEMINI_API_KEY'):
        monkeypatch.setenv(key, 'test-key')
    try:
        infer_model(model)
    except ImportError:
        pass
    except UserError as error:
        assert 'Unknown model' not in str(error), f'{model}: {error}'


DOCS = [
    ROOT / 'README.md',
    *sorted((ROOT / 'docs').glob('*.md')),
    ROOT / 'bench' / 'README.md',
    ROOT / 'golden' / 'README.md',
    *sorted((ROOT / 'summarizer').glob('*/README.md')),
]
FENCE = re.compile(r'^```[^\n]*\n(.*?)^```', re.MULTILINE | re.DOTALL)
INLINE = re.compile(r'`(summarizer [^`]+)`')
LINK = re.compile(r'\]\(([^)\s]+)\)')
FILE_SUFFIXES = {'db', 'json', 'md', 'py', 'yaml'}
"""`cache.db`, `batch.py`: file names, not `section.key`."""


def test_the_readme_fits_two_screens() -> None:
    assert len((ROOT / 'README.md').read_text(encoding='utf-8').splitlines()) <= 150


def test_the_quickstart_is_two_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    quickstart = FENCE.findall(readme.split('## Quickstart', 1)[1])[0].splitlines()
    assert len(quickstart) == 2 and quickstart[1].endswith('&& pytest -q'), quickstart
    ci = (ROOT / '.ci' / 'run').read_text(encoding='utf-8').splitlines()
    assert quickstart[1].replace('pip install ', 'pip install --quiet ', 1) in ci


def documented_commands() -> list[tuple[str, str]]:
    """Each `summarizer SUBCOMMAND ...` the docs show (code blocks, continuation lines joined, and inline code): file, command."""
    commands: list[tuple[str, str]] = []
    for path in DOCS:
        text = path.read_text(encoding='utf-8')
        for block in FENCE.findall(text):
            for command in re.split(r'\n(?!\s)', block):
                if command.startswith('summarizer '):
                    commands.append((path.name, ' '.join(command.split())))
        commands += [(path.name, command) for command in INLINE.findall(text)]
    return commands


def _options(subcommand: str, capsys: pytest.CaptureFixture[str]) -> set[str]:
    with pytest.raises(SystemExit):
        main([subcommand, '--help'])
    return set(re.findall(r'--[a-z][a-z-]*', capsys.readouterr().out))


def test_every_option_the_docs_show_is_one_the_command_has(capsys: pytest.CaptureFixture[str]) -> None:
    commands = documented_commands()
    shown = {subcommand for _, command in commands if (subcommand := command.split()[1]) in SUBCOMMANDS}
    assert shown == set(SUBCOMMANDS), 'the README shows each subcommand'
    options = {subcommand: _options(subcommand, capsys) for subcommand in SUBCOMMANDS}
    unknown = [
        f'{name}: {command}: {option}'
        for name, command in commands
        if (subcommand := command.split()[1]) in options
        for option in re.findall(r'(?<![\w-])--[a-z][a-z-]*', command)
        if option not in options[subcommand]
    ]
    assert unknown == []


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r'^#+ (.+)$', FENCE.sub('', path.read_text(encoding='utf-8')), re.MULTILINE)
    return {re.sub(r'[^\w\- ]', '', heading.lower()).replace(' ', '-') for heading in headings}


def test_every_relative_link_leads_somewhere() -> None:
    broken = []
    for path in DOCS:
        for target in LINK.findall(path.read_text(encoding='utf-8')):
            if '://' in target:
                continue
            file, _, anchor = target.partition('#')
            linked = (path.parent / file).resolve() if file else path
            if not linked.exists() or (anchor and anchor not in _anchors(linked)):
                broken.append(f'{path.relative_to(ROOT)}: {target}')
    assert broken == []


def test_every_dotted_config_key_the_docs_name_is_in_config_yaml() -> None:
    config = yaml.safe_load((ROOT / 'config.yaml').read_text(encoding='utf-8'))
    sections = {key for key, value in config.items() if isinstance(value, dict)}
    named = {
        (section, key)
        for path in DOCS
        for section, key in re.findall(r'`([a-z_]+)\.([a-z_]+)`', path.read_text(encoding='utf-8'))
        if section in sections and key not in FILE_SUFFIXES
    }
    assert named, 'the docs name some config keys'
    assert sorted(f'{section}.{key}' for section, key in named if key not in config[section]) == []


def test_config_yaml_shows_every_option_at_its_default() -> None:
    """The defaults are written once, in the dataclasses; the shipped config.yaml documents each of them."""
    shipped = data_path('config.yaml')
    assert SummarizerConfig.load(shipped) == SummarizerConfig()
    config = SummarizerConfig()
    options = yaml.safe_load(shipped.read_text(encoding='utf-8'))
    assert set(options) == {option.name for option in dataclasses.fields(config)}
    for name, value in options.items():
        section = getattr(config, name)
        if dataclasses.is_dataclass(section):
            assert set(value) == {option.name for option in dataclasses.fields(section)}, name


EXAMPLE = re.compile(
    r'^`golden/histories/(?P<name>[\w-]+)\.json`, message (?P<index>\d+) .*? of a (?P<budget>\d+)-token budget'
    r'(?P<told>, told the quoted facts)?\.\n\n```(?P<lang>\w+)\n(?P<summary>.*?)\n```',
    re.MULTILINE | re.DOTALL,
)


def test_the_summaries_docs_show_what_the_embedded_model_writes_now() -> None:
    """docs/summaries.md: each example is the model's summary of that golden return, byte for byte."""
    import json

    from pydantic_ai.messages import ModelMessagesTypeAdapter, ToolReturnPart

    from summarizer.core import Turns
    from summarizer.extractive import summarize

    examples = list(EXAMPLE.finditer((ROOT / 'docs' / 'summaries.md').read_text(encoding='utf-8')))
    assert len(examples) >= 8
    for example in examples:
        path = ROOT / 'golden' / 'histories' / f'{example["name"]}.json'
        messages = ModelMessagesTypeAdapter.validate_json(path.read_bytes())
        index = int(example['index'])
        part = messages[index].parts[0]
        assert isinstance(part, ToolReturnPart)
        content = part.content
        text = content['stdout'] if isinstance(content, dict) and example['lang'] == 'text' else content
        quoted = Turns(messages).quoted_facts(text, message_index=index) if example['told'] else ()
        summary = summarize(text, budget_tokens=int(example['budget']), quoted=quoted)
        shown = summary if isinstance(summary, str) else json.dumps(summary, indent=2, ensure_ascii=False)
        assert shown == example['summary'], f'{example["name"]} message {index}'
