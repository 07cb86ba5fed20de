"""The `summarizer` command: byte-exact rewrites, the check command, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import forked_cli
import pytest

from summarizer.cli import main


def outside_contents(text: str) -> list[str]:
    """The text with every tool-return content value cut out: what must stay byte-identical."""
    from summarizer.stored._stored import StoredHistory

    stored = StoredHistory.parse(text)
    pieces, position = [], 0
    for start, end in sorted(stored.spans.values()):
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return pieces


def test_compact_old_schema_file_is_byte_exact_outside_summaries(
    old_schema_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = old_schema_file.read_text()
    output = old_schema_file.with_name('out.json')
    assert main(['compact', str(old_schema_file), '-o', str(output), '--keep-recent', '0']) == 0
    compacted = output.read_text()
    assert len(compacted) < len(original) * 0.4
    assert outside_contents(compacted) == outside_contents(original)
    for field in (
        '"dynamic_ref": null',
        '"vendor_id": "gen-1750961448-uXAbqwVOdf0VWnGjScMT"',
        '"request_tokens": 3516',
    ):
        assert field in compacted
    data = json.loads(compacted)
    assert isinstance(data[2]['parts'][0]['content'], list) and isinstance(data[2]['parts'][1]['content'], dict)
    assert data[2]['parts'][2]['content'] == 'tiny'
    assert 'summarized' in capsys.readouterr().out
    assert old_schema_file.read_text() == original  # the input is never touched without --in-place

    assert main(['check', str(old_schema_file), str(output)]) == 0
    assert main(['compact', str(output), '-o', str(output.with_name('again.json')), '--keep-recent', '0']) == 0
    assert output.with_name('again.json').read_bytes() == output.read_bytes()  # idempotent


def test_in_place_with_backup_and_dry_run(old_schema_file: Path) -> None:
    original = old_schema_file.read_bytes()
    assert main(['compact', str(old_schema_file), '--in-place', '--dry-run', '--keep-recent', '0']) == 0
    assert old_schema_file.read_bytes() == original
    assert main(['compact', str(old_schema_file), '--in-place', '--backup', '--keep-recent', '0']) == 0
    assert old_schema_file.with_name('history.json.bak').read_bytes() == original
    assert len(old_schema_file.read_bytes()) < len(original)


def test_nothing_to_summarize_leaves_the_file_untouched(old_schema_file: Path) -> None:
    before = old_schema_file.stat().st_mtime_ns
    assert main(['compact', str(old_schema_file), '--in-place', '--threshold-tokens', '1000000']) == 0
    assert old_schema_file.stat().st_mtime_ns == before


def test_check_explains_the_first_difference(old_schema_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tampered = old_schema_file.with_name('tampered.json')
    tampered.write_text(
        old_schema_file.read_text().replace('"model_name": "google/gemini-2.5-pro"', '"model_name": "other"', 1)
    )
    assert main(['check', str(old_schema_file), str(tampered)]) == 1
    assert 'text differs outside summarized content at line' in capsys.readouterr().out
    retyped = old_schema_file.with_name('retyped.json')
    data = json.loads(old_schema_file.read_text())
    data[2]['parts'][0]['content'] = 'a string now'
    retyped.write_text(json.dumps(data, indent=2))
    assert main(['check', str(old_schema_file), str(retyped)]) == 1
    assert 'wrong shape' in capsys.readouterr().out


BAD_INPUTS = {
    'not-json.json': (b'{"parts": [', 'invalid JSON at line 1'),
    'truncated.json': (
        b'[{"parts": [{"content": "x", "part_kind": "user-prompt"}], "kind": "request"}',
        'invalid JSON',
    ),
    'object.json': (b'{"messages": []}', 'expected a JSON list of messages'),
    'empty.json': (b'', 'empty input'),
    'bad-kind.json': (
        b'[{"parts": [], "kind": "request"}, {"parts": [{"part_kind": "nope"}], "kind": "response"}]',
        'message 1',
    ),
    'missing-field.json': (
        b'[{"parts": [{"content": "x", "part_kind": "tool-return"}], "kind": "request"}]',
        'message 0',
    ),
    'latin1.json': (
        '[{"parts": [{"content": "caf\u00e9", "part_kind": "user-prompt"}], "kind": "request"}]'.encode('latin-1'),
        'not UTF-8',
    ),
}


@pytest.mark.parametrize('name', sorted(BAD_INPUTS))
def test_bad_input_gets_one_clear_line_and_exit_2(tmp_path: Path, name: str) -> None:
    """In a process of its own (forked from one that imported the CLI once, tests/forked_cli.py): all it prints."""
    raw, expected = BAD_INPUTS[name]
    path = tmp_path / name
    path.write_bytes(raw)
    result = forked_cli.run(['compact', str(path)])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and expected in lines[0], result.stderr
    assert 'Traceback' not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != 'cache') == [name]


def test_missing_file_and_directory_are_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(['compact', str(tmp_path / 'nope.json')]) == 2
    assert 'nope.json: cannot read' in capsys.readouterr().err
    assert main(['compact', str(tmp_path)]) == 2
    assert 'is a directory' in capsys.readouterr().err
    assert main(['check', str(tmp_path / 'a.json'), str(tmp_path / 'b.json')]) == 2


def test_bad_config_is_a_clear_error(tmp_path: Path, old_schema_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / 'config.yaml'
    config.write_text('threshold_tokens: 500\nthreshhold: 3\n')
    assert main(['compact', str(old_schema_file), '--config', str(config)]) == 2
    assert 'unknown option(s): threshhold' in capsys.readouterr().err


def test_the_quickstart_example_is_compacted_with_the_shipped_defaults(tmp_path: Path) -> None:
    """The README's first command must show a saving: the example's first tool round is outside `keep_recent`."""
    example = Path(__file__).parent.parent / 'examples' / 'research_history.json'
    out = tmp_path / 'compacted.json'
    assert main(['compact', str(example), '-o', str(out)]) == 0
    assert len(out.read_bytes()) < len(example.read_bytes()) / 2
    assert main(['check', str(example), str(out)]) == 0


STARTUP = """
import json, sys
from summarizer.pipeline._check import MESSAGE_ADAPTER
from summarizer.cli import main
code = main(sys.argv[1:])
others = ('summarizer.engines', 'summarizer.eval', 'summarizer.cli.batch', 'summarizer.cli.eval', 'summarizer.cli.restore')
print(json.dumps([code, [name for name in others if name in sys.modules], MESSAGE_ADAPTER.pydantic_complete]), file=sys.stderr)
"""


def test_compact_imports_only_what_it_runs(tmp_path: Path) -> None:
    """Startup is most of a short run's time: no other subcommand's modules, no validator it does not use."""
    example = Path(__file__).parent.parent / 'examples' / 'research_history.json'
    command = [sys.executable, '-c', STARTUP, 'compact', str(example), '-o', str(tmp_path / 'out.json')]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    assert json.loads(result.stderr.splitlines()[-1]) == [0, [], False]


def test_the_command_moves_its_imports_out_of_the_collectors_reach(
    old_schema_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as the command (its own process) the imports are frozen; `main` called from a host's code, never."""
    import gc

    from summarizer.cli import command

    assert gc.get_freeze_count() == 0
    assert main(['check', str(old_schema_file), str(old_schema_file)]) == 0
    monkeypatch.setattr(sys, 'argv', ['summarizer', 'check', str(old_schema_file), str(old_schema_file)])
    assert main() == 0
    assert gc.get_freeze_count() == 0, 'main() is a library call: the host process keeps its collector as it was'
    try:
        assert command() == 0
        assert gc.get_freeze_count() > 10_000  # pydantic-ai's modules and validators among them
    finally:
        gc.unfreeze()
