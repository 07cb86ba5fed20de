"""The documentation's model strings are ones pydantic-ai builds: a user copies them into `model:` verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic_ai.exceptions import UserError
from pydantic_ai.models import infer_model

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
