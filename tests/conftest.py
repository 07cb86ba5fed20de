"""Shared fixtures: an isolated cache and originals store per test, and histories in both stored schemas."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# A user's own cache and originals store are never the tests' to touch, whatever the environment names:
# the store holds what their compacted histories need to be restored. This runs when pytest imports this
# file, before any fixture, worker, Ray instance or server a test starts inherits the environment; each
# test then gets folders of its own (`isolated_cache`). Anything that escapes the per-test folders (a
# subprocess given a fresh environment) lands in this session's throwaway folder, not in `~/.cache`.
for _name in [name for name in os.environ if name.startswith('SUMMARIZER_')]:
    del os.environ[_name]
_SESSION_FOLDER = tempfile.mkdtemp(prefix='summarizer-tests-')
atexit.register(shutil.rmtree, _SESSION_FOLDER, ignore_errors=True)
os.environ['SUMMARIZER_CACHE_DIR'] = str(Path(_SESSION_FOLDER) / 'cache')
# The shipped local model (253 MB) likewise: assembled from its packages into this folder (about a second),
# never into the user's `~/.cache/tool-return-summarizer/models`, where a file failing its check is replaced.
os.environ['TRS_MODEL_DIR'] = str(Path(_SESSION_FOLDER) / 'models')

ARTICLE = (
    'Researchers at Mandiant reported on 2025-03-14 that APT28 (Fancy Bear) used the HATVIBE loader '
    'against ministries in Kyiv. The campaign reused infrastructure at 185.220.101.47 and the domain '
    'update-check.net, and exploited CVE-2024-38112 in MSHTML. Analysts noted overlaps with earlier '
    'activity. The loader hash was 3f786850e387550fdab836ed7e6dc881de23001b. '
)


def article(index: int) -> str:
    """A long, repetitive research article with a few facts of its own."""
    filler = ' '.join(f'Paragraph {n} repeats background material about the threat landscape.' for n in range(40))
    return f'Article {index}: https://news.example.org/story/{index}\n{ARTICLE}{filler}\nEnd of article {index}.'


def old_schema_history() -> list[dict[str, object]]:
    """A history in the older stored schema of seed 003 (dynamic_ref, vendor_id, request_tokens)."""
    return [
        {
            'parts': [
                {
                    'content': 'You are a threat analyst.',
                    'timestamp': '2025-06-26T18:10:48.672781Z',
                    'dynamic_ref': None,
                    'part_kind': 'system-prompt',
                },
                {
                    'content': 'Which groups are most active?',
                    'timestamp': '2025-06-26T18:10:48.672785Z',
                    'part_kind': 'user-prompt',
                },
            ],
            'instructions': None,
            'kind': 'request',
        },
        {
            'parts': [
                {'content': "I'll research that.", 'part_kind': 'text'},
                {
                    'tool_name': 'deep_research',
                    'args': '{"prompt":"most active threat actor groups"}',
                    'tool_call_id': 'tool_0_deep_research',
                    'part_kind': 'tool-call',
                },
                {
                    'tool_name': 'get_indicator_details',
                    'args': '{"indicator":"185.220.101.47"}',
                    'tool_call_id': 'tool_1_get_indicator_details',
                    'part_kind': 'tool-call',
                },
            ],
            'usage': {
                'requests': 1,
                'request_tokens': 3516,
                'response_tokens': 923,
                'total_tokens': 4439,
                'details': {},
            },
            'model_name': 'google/gemini-2.5-pro',
            'timestamp': '2025-06-26T18:10:48Z',
            'kind': 'response',
            'vendor_details': None,
            'vendor_id': 'gen-1750961448-uXAbqwVOdf0VWnGjScMT',
        },
        {
            'parts': [
                {
                    'tool_name': 'deep_research',
                    'content': [article(i) for i in range(8)],
                    'tool_call_id': 'tool_0_deep_research',
                    'timestamp': '2025-06-26T18:11:05.464382Z',
                    'part_kind': 'tool-return',
                },
                {
                    'tool_name': 'get_indicator_details',
                    'content': {
                        'indicator': '185.220.101.47',
                        'score': 87,
                        'malicious': True,
                        'asn': None,
                        'notes': ARTICLE * 12,
                    },
                    'tool_call_id': 'tool_1_get_indicator_details',
                    'timestamp': '2025-06-26T18:11:05.464390Z',
                    'part_kind': 'tool-return',
                },
                {
                    'tool_name': 'small',
                    'content': 'tiny',
                    'tool_call_id': 'tool_2_small',
                    'timestamp': '2025-06-26T18:11:05.464391Z',
                    'part_kind': 'tool-return',
                },
            ],
            'instructions': None,
            'kind': 'request',
        },
        {
            'parts': [{'content': 'APT28 used CVE-2024-38112 and 185.220.101.47 (score 87).', 'part_kind': 'text'}],
            'usage': {
                'requests': 1,
                'request_tokens': 9000,
                'response_tokens': 120,
                'total_tokens': 9120,
                'details': {},
            },
            'model_name': 'google/gemini-2.5-pro',
            'timestamp': '2025-06-26T18:11:30Z',
            'kind': 'response',
            'vendor_details': None,
            'vendor_id': 'gen-1750961490-Xq2',
        },
    ]


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own summary cache directory, and its originals store beside it (`cache-originals`)."""
    directory = tmp_path / 'cache'
    monkeypatch.setenv('SUMMARIZER_CACHE_DIR', str(directory))
    return directory


@pytest.fixture
def old_schema_file(tmp_path: Path) -> Path:
    path = tmp_path / 'history.json'
    path.write_text(json.dumps(old_schema_history(), indent=2), encoding='utf-8')
    return path
