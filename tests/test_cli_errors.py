"""The command's own errors: a model that cannot be built, options that do not go together, -v, --version."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import forked_cli
import pytest

from summarizer.cli import main

UNBUILDABLE = {
    'openai:gpt-4.1-mini': 'OPENAI_API_KEY',
    'nonsense': 'Unknown model: nonsense',
    'anthropic:claude-haiku-4-5': 'anthropic',
}
"""A model each way pydantic-ai refuses one: no API key, an unknown name, a provider whose extra is missing
(or, where the anthropic extra is installed, its missing ANTHROPIC_API_KEY)."""


def files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob('*'))


def without_keys() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY')}


COMMANDS = (['compact'], ['compact', '--dry-run'], ['batch', '--dry-run'], ['batch', '--out', 'OUT'])


def command(words: list[str], history: Path) -> list[str]:
    target = str(history) if words[0] == 'compact' else str(history.parent)
    return [words[0], target, *(str(history.parent.parent / 'out') if word == 'OUT' else word for word in words[1:])]


@pytest.mark.parametrize('model', sorted(UNBUILDABLE))
def test_a_model_that_cannot_be_built_is_one_line_and_exit_2(
    model: str, old_schema_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for key in ('OPENAI_API_KEY', 'ANTHROPIC_API_KEY'):
        monkeypatch.delenv(key, raising=False)
    folder = old_schema_file.parent
    out_folder = folder.parent / 'out'  # where `batch --out` would write (see `command`)
    before = files_under(folder)
    for words in COMMANDS:
        assert main([*command(words, old_schema_file), '--model', model]) == 2, words
        out, err = capsys.readouterr()
        assert out == '' and err.count('\n') == 1 and err.startswith(f"summarizer: model '{model}': "), (words, err)
        assert UNBUILDABLE[model] in err or 'ANTHROPIC_API_KEY' in err
    assert files_under(folder) == before and not out_folder.exists()  # no output, no journal, no cache
    # and the real command, in a process of its own (forked from one that imported the CLI once, tests/forked_cli.py,
    # so the model's own SDK is imported in it as in any run): no traceback, one line
    words = COMMANDS[sorted(UNBUILDABLE).index(model)]
    result = forked_cli.run([*command(words, old_schema_file), '--model', model], env=without_keys())
    assert result.returncode == 2 and result.stdout == ''
    assert result.stderr.count('\n') == 1 and result.stderr.startswith(f"summarizer: model '{model}': ")
    assert files_under(folder) == before and not out_folder.exists()


def test_backup_needs_in_place(old_schema_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = old_schema_file.parent
    before = files_under(folder)
    for argv in (
        ['compact', str(old_schema_file), '--backup'],
        ['compact', str(old_schema_file), '-o', str(tmp_path / 'out.json'), '--backup'],
        ['batch', str(old_schema_file), '--out', str(tmp_path / 'out'), '--backup'],
    ):
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            'summarizer: --backup keeps the original of a file rewritten in place: it needs --in-place\n'
        )
    assert files_under(folder) == before


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit:
        main(['--version'])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f'summarizer {version("tool-return-summarizer")}\n'


def test_verbose_before_or_after_the_subcommand_says_what_was_summarized(
    old_schema_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    command = ['compact', str(old_schema_file), '--keep-recent', '0', '--dry-run']
    assert main(['-v', *command]) == 0
    logged = sorted(f'{record.levelname} {record.getMessage()}' for record in caplog.records)
    assert [line.split(':')[0] for line in logged] == [
        'INFO summarized deep_research (tool_0_deep_research)',
        'INFO summarized get_indicator_details (tool_1_get_indicator_details)',
    ]
    assert all(line.endswith('tokens (model)') for line in logged), logged
    # after the subcommand, in a process of its own (forked, tests/forked_cli.py): the lines reach stderr (same cache:
    # hits now)
    again = forked_cli.run([*command, '-v'])
    assert again.returncode == 0, again.stderr
    assert sorted(again.stderr.splitlines()) == [line.replace('(model)', '(cache hit)') for line in logged]
    caplog.clear()
    assert main(command) == 0  # without -v: nothing at INFO
    assert not [record for record in caplog.records if record.name.startswith('summarizer')]


SECRET = 'kq7Zx/vr4Wm?tp9Ls#hg2Nd@jb5Rc'
"""A PostgreSQL password holding characters that end or split a URL's user part."""


@pytest.mark.parametrize(
    'words',
    [
        ['restore', 'postgresql://app:{secret}@127.0.0.1:1/db', '--in-place'],  # a URL restore takes for a file
        ['batch', '--jobs', 'postgresql://app:{secret}@127.0.0.1:1/db', '.'],  # argparse quotes the value
        ['batch', '--dry-run', 'postgres:app:{secret}@127.0.0.1:1/db'],  # no //: still a URL, never a file name
    ],
)
def test_no_message_shows_a_postgresql_password(
    words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with contextlib.suppress(SystemExit):  # argparse's exit
        assert main([word.format(secret=SECRET) for word in words]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(('summarizer: ', 'usage: ')) and out == ''
    for piece in (SECRET, *SECRET.replace('/', ' ').replace('?', ' ').replace('#', ' ').replace('@', ' ').split()):
        assert piece not in err, err
