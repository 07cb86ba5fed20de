"""`summarizer eval`: the head baseline, the fact metrics, the report files and the CI gate."""

from __future__ import annotations

import dataclasses
import json
import shutil
import stat
from datetime import datetime
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, head_items, summarizer_model
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from summarizer import Report, SummarizerConfig
from summarizer.cli import main
from summarizer.core._facts import token_set
from summarizer.core._quoted import Turns
from summarizer.core._shape import shape_mismatch
from summarizer.core._tokens import content_tokens
from summarizer.eval import EvalHistory, EvalRun, ModelScore, head, markdown, mentions, referred_facts, run_eval
from summarizer.eval._metrics import ReturnScore, Tally, line_fidelity, score_return
from summarizer.eval._run import HistoryScore, eval_models, typed_parts
from summarizer.extractive._kinds import detect_kind
from summarizer.pipeline import EmbeddedRequest, SummaryCache
from summarizer.stored._stored import StoredHistory

LAST_LINE = 'log line 599: request id req-00599'


@pytest.mark.parametrize('content', [BIG_TEXT, BIG_LIST, BIG_OBJECT], ids=['string', 'list', 'object'])
def test_head_keeps_the_beginning_within_the_budget(content: object) -> None:
    summary = head(EmbeddedRequest(content=content, budget_tokens=200))  # type: ignore[arg-type]
    assert shape_mismatch(content, summary) is None  # type: ignore[arg-type]
    assert 150 < content_tokens(summary) <= 200  # type: ignore[arg-type]
    if isinstance(content, str):  # cut where the budget ends, and marked cut
        assert isinstance(summary, str) and summary.endswith(' …') and content.startswith(summary[:-2])
    elif isinstance(content, list):
        assert content[0].startswith(summary[0].removesuffix(' …')) and len(summary) < len(content)  # type: ignore[index,union-attr]
    else:
        assert list(summary) == list(content)  # type: ignore[arg-type]
        assert summary['repo'] == 'acme/widgets' and summary['open_issues'] == 42  # type: ignore[index]


def test_mentions_needs_the_whole_fact() -> None:
    assert mentions('blocked 10.1.7.7 today', '10.1.7.7')
    assert mentions('see CVE-2024-1234.', 'CVE-2024-1234')
    assert not mentions('blocked 10.1.7.7', '10')
    assert not mentions('order 1425 shipped', '42')
    assert not mentions('total 1,200 EUR', '200')


def test_only_facts_quoted_later_are_referred_to() -> None:
    content = 'Host 185.220.101.47 ran build 7f3a9c2e on 2025-03-14 via deploy_job for Acme Corp.'
    later = token_set('We blocked 185.220.101.47; build 7f3a9c2e failed.')
    assert referred_facts(content, later.__and__) == ['185.220.101.47', '7f3a9c2e']
    messages = _history(content, before='Check 2025-03-14 please.', after='deploy_job for Acme Corp is affected.')
    # the prompt before the return does not count, and a plain name is no fact
    assert Turns(messages).quoted_facts(content, message_index=2) == ('deploy_job',)


def _history(content: object, *, before: str = 'Look into it.', after: str) -> list[ModelMessage]:
    """prompt, call, return, then the assistant's answer `after`, then a user prompt."""
    return [
        ModelRequest(parts=[UserPromptPart(before)]),
        ModelResponse(parts=[ToolCallPart('read_log', {'path': '/var/log/app.log'}, tool_call_id='c1')]),
        ModelRequest(parts=[ToolReturnPart('read_log', content, tool_call_id='c1')]),
        ModelResponse(parts=[TextPart(after)]),
        ModelRequest(parts=[UserPromptPart('Thanks.')]),
    ]


def _write_history(path: Path, messages: list[ModelMessage]) -> Path:
    path.write_bytes(ModelMessagesTypeAdapter.dump_json(messages, indent=2))
    return path


@pytest.fixture
def histories(tmp_path: Path) -> Path:
    folder = tmp_path / 'histories'
    folder.mkdir()
    _write_history(
        folder / 'log.json', _history(BIG_TEXT, after=f'The slowest was {LAST_LINE.split()[-1]} from 10.1.199.99.')
    )
    _write_history(folder / 'mixed.json', _history(BIG_OBJECT, after='acme/widgets has 42 open issues; tiny is fine.'))
    _write_history(folder / 'tiny.json', _history('tiny', after='Nothing to see.'))
    return folder


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(['eval', *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eval_scores_models_against_the_head_baseline(
    histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('COLUMNS', '250')  # the table printed to the terminal, unwrapped
    report = tmp_path / 'report'
    code, out, err = _run(capsys, str(histories), '--report', str(report))
    assert code == 0, err
    assert 'extractive' in out and 'head (baseline)' in out
    files = sorted(path.name for path in report.iterdir())
    assert files == ['compression-retention.png', 'results.json', 'summary.md']
    for path in report.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (report / 'compression-retention.png').read_bytes().startswith(b'\x89PNG')
    data = json.loads((report / 'results.json').read_text())
    assert data['config']['keep_recent'] == 0 and data['gate']['passed']
    extractive, baseline = data['models']
    assert [extractive['name'], baseline['name'], baseline['baseline']] == ['extractive', 'head', True]
    assert extractive['overall']['returns'] == 2 and extractive['overall']['structure_pass_rate'] == 1
    assert extractive['blind']['facts_referred'] == extractive['overall']['facts_referred'] == 2
    # The baseline cuts each return to the size of the model's summary of it, told and blind: the same cut.
    for ours, truncated in zip(extractive['histories'], baseline['histories'], strict=True):
        for summary, truncation in zip(ours['returns'], truncated['returns'], strict=True):
            assert 0.9 * summary['tokens_after'] <= truncation['tokens_after'] <= summary['tokens_after']
    assert baseline['blind']['compression'] == pytest.approx(extractive['blind']['compression'], abs=0.01)
    assert extractive['overall']['compression'] > 0.8
    log = next(h for h in extractive['histories'] if h['name'] == 'log')
    assert log['returns'][0]['facts_referred'] == 2 and log['returns'][0]['lost_facts'] == []
    head_log = next(h for h in baseline['histories'] if h['name'] == 'log')
    assert head_log['returns'][0]['lost_facts'] == ['req-00599', '10.1.199.99']  # at the end: cut off
    assert next(h for h in extractive['histories'] if h['name'] == 'tiny')['returns'] == []
    assert set(extractive['per_tool']) == {'read_log'}
    assert extractive['cost']['model_calls'] == 2 and extractive['cost']['price_usd'] == 0


def test_gate_fails_below_the_retention_floor(
    histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / 'strict.yaml'
    config.write_text('eval:\n  retention_floor: 1.01\n')
    code, _, err = _run(capsys, str(histories), '--config', str(config), '--report', str(tmp_path / 'report'))
    assert code == 1
    assert 'gate failed: extractive: facts kept in context 100.0% is below the floor 101.0%' in err
    assert 'head' not in err  # the baseline is never gated
    assert not json.loads((tmp_path / 'report' / 'results.json').read_text())['gate']['passed']


def test_gate_fails_when_a_summary_fails_the_post_check() -> None:
    returns = [
        ReturnScore(
            tool_name='t',
            tool_call_id=f'c{n}',
            message_index=2,
            kind='log',
            tally=Tally(returns=1, summarized=n, tokens_before=10, tokens_after=10),
        )
        for n in (0, 1)
    ]
    model = ModelScore(
        name='extractive',
        histories=[HistoryScore(name='h', returns=returns, tokens_before=1, tokens_after=1)],
        report=Report(),
        seconds=0,
        price_usd=0,
    )
    baseline = ModelScore(name='head', histories=[], report=Report(), seconds=0, price_usd=0)
    run = EvalRun(config=SummarizerConfig(), models=[model, baseline], histories=['h'])
    assert run.gate_problems() == [
        'extractive: structure pass rate 50.0% is below 100% (1 of 2 returns kept their original)'
    ]


def test_gate_fails_on_rewritten_lines_broken_json_empty_summaries_and_touched_typed_parts() -> None:
    fine = Tally(
        returns=1, summarized=1, lines_from_original=10, lines_identical=10, json_strings=1, json_strings_parsing=1
    )
    bad = Tally(returns=1, summarized=1, lines_from_original=10, lines_identical=8, json_strings=1, empty=1)

    def run_of(tally: Tally, *, touched: int) -> EvalRun:
        score = ReturnScore(tool_name='t', tool_call_id='c', message_index=2, kind='code', tally=tally)
        history = HistoryScore(
            name='h', returns=[score], tokens_before=1, tokens_after=1, typed_parts=3, typed_touched=touched
        )
        model = ModelScore(name='extractive', histories=[history], report=Report(), seconds=0, price_usd=0)
        return EvalRun(config=SummarizerConfig().override(keep_quoted_facts=False), models=[model], histories=['h'])

    assert run_of(fine, touched=0).gate_problems() == []
    assert run_of(bad, touched=1).gate_problems() == [
        'extractive: 80.0% of the summary lines from an original line are byte-identical to it, below the floor 98.0%',
        'extractive: 1 of 1 summaries of a string holding JSON no longer parse as the same JSON type',
        'extractive: 1 empty summaries (their originals were kept)',
        'extractive: 1 of 3 typed tool returns were changed',
    ]


def test_files_that_are_no_histories_are_skipped_and_reported(
    histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder is walked like batch walks it; a file that is not a history does not stop the eval."""
    (histories / 'facts.json').write_text('{"log": ["req-00599"]}')
    (histories / 'broken.json').write_text('[{"kind": "request", "parts": [}]')
    nested = histories / 'more' / 'deeper'
    nested.mkdir(parents=True)
    (nested / 'log2.json').write_bytes((histories / 'log.json').read_bytes())
    (nested / 'skip-me.json').write_bytes((histories / 'log.json').read_bytes())
    report = tmp_path / 'report'
    code, _, err = _run(capsys, str(histories), '--exclude', 'skip-*', '--report', str(report))
    assert code == 0, err
    skipped = [line for line in err.splitlines() if line.startswith('summarizer eval: skipped ')]
    assert len(skipped) == 2
    assert 'facts.json: expected a JSON list of messages' in skipped[1] and 'broken.json' in skipped[0]
    data = json.loads((report / 'results.json').read_text())
    assert data['histories'] == ['log', 'mixed', 'log2', 'tiny'] and len(data['skipped']) == 2
    assert '## Skipped files' in (report / 'summary.md').read_text()


def test_a_report_that_would_overwrite_an_input_is_refused_before_anything_runs(
    histories: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--report DIR` naming the input folder: its `results.json` is a history here, and stays one."""
    history = (histories / 'log.json').read_bytes()
    (histories / 'results.json').write_bytes(history)
    code, out, err = _run(capsys, str(histories), '--report', str(histories))
    assert code == 2 and out == ''
    assert err == (
        f'summarizer: {histories / "results.json"}: --report {histories} would overwrite this input: choose '
        'another place for the report\n'
    )
    assert (histories / 'results.json').read_bytes() == history and not (histories / 'summary.md').exists()


def test_a_folder_of_no_histories_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / 'facts.json').write_text('{}')
    code, _, err = _run(capsys, str(tmp_path), '--report', str(tmp_path / 'report'))
    assert code == 2 and err.splitlines()[-1] == f'summarizer: {tmp_path}: no histories found (1 file skipped)'
    assert not (tmp_path / 'report').exists()


def test_missing_source_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, str(tmp_path / 'nowhere'))
    assert code == 2 and err == f'summarizer: {tmp_path / "nowhere"}: no such file or directory\n'


def test_min_chars_scores_only_the_longer_returns_and_kinds_are_reported(
    histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / 'report'
    longest = max(len(json.dumps(BIG_TEXT)), len(json.dumps(BIG_OBJECT)))
    shortest = min(len(json.dumps(BIG_TEXT)), len(json.dumps(BIG_OBJECT, separators=(',', ':'))))
    code, _, err = _run(capsys, str(histories), '--min-chars', str(shortest), '--report', str(report))
    assert code == 0, err
    extractive = json.loads((report / 'results.json').read_text())['models'][0]
    assert extractive['overall']['returns'] == 1 and longest > shortest
    kind = detect_kind(BIG_TEXT)
    assert set(extractive['per_kind']) == {kind} and extractive['blind_per_kind'][kind]['returns'] == 1
    code, _, err = _run(capsys, str(histories), '--report', str(tmp_path / 'all'))
    extractive = json.loads((tmp_path / 'all' / 'results.json').read_text())['models'][0]
    assert extractive['overall']['returns'] == 2
    assert set(extractive['per_kind']) == {detect_kind(BIG_TEXT), detect_kind(BIG_OBJECT)}
    assert '## Per content kind' in (tmp_path / 'all' / 'summary.md').read_text()


def test_line_fidelity_counts_rewritten_and_cut_lines_against_identical_ones() -> None:
    original = 'def load_config(path):\n    return parse_yaml(path, strict=True)\n\nclass Loader:\n    pass\n'
    summary = (
        'def load_config(path):\n'  # the line: identical
        'return parse_yaml(path, strict=True)\n'  # its indentation lost: from the line, not it
        '    return parse_yaml(path, …\n'  # cut, and marked cut: what it keeps is the line's, byte for byte
        'The class Loader does nothing: pass\n'  # a model's own words about `class Loader:`: not the line
        '… 2 lines omitted …\n'  # a marker: from no line
        'Keep every fact a later step may need\n'  # the prompt echoed back: from no line, and no identical one
    )
    assert line_fidelity(original, summary) == (4, 2)


def test_a_string_holding_json_must_still_parse_as_the_same_type() -> None:
    rows = json.dumps([{'id': n, 'name': f'row {n}'} for n in range(50)], indent=2)
    figures = {
        'a list still': json.dumps([{'id': 0, 'name': 'row 0'}], indent=2),
        'broken': rows[:200],
        'an object now': json.dumps({'id': 0}),
    }
    parsing = {}
    for name, summary in figures.items():
        tally, _ = score_return(
            original=rows, summary=summary, referred=(), tokens_before=9, tokens_after=1, summarized=True
        )
        assert tally.json_strings == 1
        parsing[name] = tally.json_strings_parsing
    assert parsing == {'a list still': 1, 'broken': 0, 'an object now': 0}
    plain, _ = score_return(
        original='not json', summary='not', referred=(), tokens_before=9, tokens_after=1, summarized=True
    )
    assert plain.json_strings == 0


def test_typed_tool_returns_are_counted_and_any_change_to_them_is_caught() -> None:
    from pydantic_ai.messages import NativeToolReturnPart

    messages: list[ModelMessage] = [
        *_history(BIG_TEXT, after='ok'),
        ModelResponse(parts=[NativeToolReturnPart('web_search', BIG_LIST, tool_call_id='n1')]),
    ]
    before = StoredHistory.parse(ModelMessagesTypeAdapter.dump_json(messages))
    assert typed_parts(before, before) == (1, 0)
    changed = before.text.replace('Result 3:', 'Result 3 (cut):')
    assert changed != before.text and typed_parts(before, StoredHistory.parse(changed)) == (1, 1)
    untyped = before.text.replace('log line 7:', 'log line seven:')
    assert typed_parts(before, StoredHistory.parse(untyped)) == (1, 0)


GOLDEN = Path(__file__).resolve().parent.parent / 'golden' / 'histories'
CODING_SESSIONS = sorted(GOLDEN.glob('*_coding_*.json'))
"""golden/ 32-75: coding-agent sessions whose later turns reuse facts as real agents do (golden/README.md)."""
FORMAT_CASES = sorted(path for path in GOLDEN.glob('*.json') if path not in CODING_SESSIONS)
"""golden/ 01-31: the formats and edge cases (stored schemas, retries, deferred calls, unicode, huge and tiny returns)."""


def _gate(capsys: pytest.CaptureFixture[str], histories: list[Path], report: Path) -> None:
    """The project's own floors (config.yaml) hold on `histories`: the eval exits 0 and its figures clear them."""
    code, _, err = _run(capsys, *map(str, histories), '--report', str(report))
    assert code == 0, err
    data = json.loads((report / 'results.json').read_text())
    extractive, baseline = data['models']
    floors = SummarizerConfig().eval
    assert data['config']['retention_floor'] == floors.retention_floor >= 0.7
    assert extractive['overall']['structure_pass_rate'] == 1 and baseline['overall']['structure_pass_rate'] == 1
    # Summaries take their share, and the lines holding facts the conversation quotes at most `quoted_ratio`.
    assert extractive['overall']['compression'] >= 1 - SummarizerConfig().quoted_ratio
    for run in ('overall', 'blind'):  # the baseline is read at the model's cut, told and blind
        assert baseline[run]['compression'] == pytest.approx(extractive[run]['compression'], abs=0.005)
    assert extractive['overall']['retention'] >= floors.retention_floor
    assert extractive['blind']['retention'] >= floors.blind_retention_floor
    assert extractive['blind']['retention'] >= baseline['blind']['retention'] + 0.1


@pytest.mark.slow
def test_gate_on_the_golden_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The floors hold on golden/'s format and edge-case histories, and each floor fails the gate when raised."""
    assert len(FORMAT_CASES) >= 25 and len(CODING_SESSIONS) >= 15
    _gate(capsys, FORMAT_CASES, tmp_path / 'report')
    config = tmp_path / 'strict.yaml'
    one = str(GOLDEN / '01_web_search_apt.json')
    config.write_text('eval:\n  blind_retention_floor: 1.01\n')
    code, _, err = _run(capsys, one, '--config', str(config), '--report', str(tmp_path / 'again'))
    assert code == 1 and 'gate failed: extractive: facts kept in context blind' in err
    assert 'below the floor 101.0%' in err and ': facts kept in context 1' not in err


@pytest.mark.slow
def test_gate_on_the_golden_coding_sessions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same floors on golden/'s coding-agent sessions, the traffic real agents mostly produce."""
    _gate(capsys, CODING_SESSIONS, tmp_path / 'report')


@pytest.mark.slow
def test_the_default_eval_gates_golden_on_its_recorded_figures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`summarizer eval` in a checkout: golden/histories, compared with golden/expected-figures.json, passes."""
    monkeypatch.chdir(GOLDEN.parent.parent)
    code, out, err = _run(capsys, '--report', str(tmp_path / 'report'))
    assert code == 0, err
    assert 'than recorded in golden/expected-figures.json' in out


def test_the_golden_gate_fails_on_a_planted_drop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kind keeping more than a point fewer facts in context than recorded fails, whatever the floors say."""
    folder = tmp_path / 'golden' / 'histories'
    folder.mkdir(parents=True)
    for path in CODING_SESSIONS[:3]:
        shutil.copy(path, folder / path.name)
    code, _, err = _run(capsys, str(folder), '--update-golden', '--report', str(tmp_path / 'recorded'))
    assert code == 0, err
    figures = tmp_path / 'golden' / 'expected-figures.json'
    assert sorted(path.name for path in (tmp_path / 'golden' / 'expected').iterdir()) == sorted(
        path.name for path in CODING_SESSIONS[:3]
    )
    recorded = json.loads(figures.read_text())
    code_kept = recorded['figures']['extractive']['code']['kept']
    for planted, fails in ((0.005, False), (0.02, True)):
        recorded['figures']['extractive']['code']['kept'] = code_kept + planted
        figures.write_text(json.dumps(recorded))
        code, _, err = _run(capsys, str(folder), '--report', str(tmp_path / f'again-{planted}'))
        assert code == int(fails), err
        assert ('facts kept in context on code fell from' in err) is fails
    config = tmp_path / 'other.yaml'
    config.write_text('threshold_tokens: 700\n')
    code, _, err = _run(capsys, str(folder), '--config', str(config), '--report', str(tmp_path / 'other'))
    assert code == 1 and 'was recorded with other settings' in err


def test_without_quoted_facts_the_blind_floor_is_the_only_one(
    histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / 'blind.yaml'
    config.write_text('keep_quoted_facts: false\neval:\n  retention_floor: 1.01\n  blind_retention_floor: 0.5\n')
    code, _, err = _run(capsys, str(histories), '--config', str(config), '--report', str(tmp_path / 'report'))
    assert code == 0, err
    data = json.loads((tmp_path / 'report' / 'results.json').read_text())
    assert data['config']['keep_quoted_facts'] is False and data['models'][0]['blind'] is None
    config.write_text('keep_quoted_facts: false\neval:\n  blind_retention_floor: 1.01\n')
    code, _, err = _run(capsys, str(histories), '--config', str(config), '--report', str(tmp_path / 'again'))
    assert code == 1 and 'gate failed: extractive: facts kept in context 100.0% is below the floor 101.0%' in err


def test_price_estimate_where_genai_prices_knows_the_model() -> None:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from summarizer.eval._run import _price

    usage = Report(summarizer_input_tokens=1_000_000, summarizer_output_tokens=1_000_000)
    config = SummarizerConfig()
    known = OpenAIChatModel('gpt-4.1-mini', provider=OpenAIProvider(api_key='unused'))
    assert _price(known, usage, config) == pytest.approx(0.4 + 1.6)
    unknown = OpenAIChatModel('my-local-llama', provider=OpenAIProvider(api_key='unused'))
    assert _price(unknown, usage, config) is None


def test_unusable_model_is_one_line(histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, str(histories), '--model', 'nosuch:model', '--report', str(tmp_path / 'report'))
    assert (code, err) == (2, "summarizer: model 'nosuch:model': Unknown model: nosuch:model\n")
    assert not (tmp_path / 'report').exists()


def test_the_summary_in_a_log_is_markdown_one_table_row_per_line(
    histories: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('COLUMNS', '80')  # not a terminal (capsys): the width must not cut or wrap anything
    code, out, err = _run(capsys, str(histories), '--report', str(tmp_path / 'report'))
    assert code == 0, err
    summary = (tmp_path / 'report' / 'summary.md').read_text()
    rows = [line for line in out.splitlines() if line.startswith('| extractive |')]
    assert rows and all(len(row) > 80 for row in rows)  # whole rows, as summary.md has them
    assert all(row in summary for row in rows)


def test_tables_wider_than_the_terminal_become_one_item_per_row() -> None:
    from summarizer.cli.eval import fit_tables

    lines = [
        'Intro.',
        '| kind | model | returns | compression | retention |',
        '|---|---|--:|--:|--:|',
        '| code | extractive | 91 | 80.7% | 99.9% (2228/2230) |',
        '| diff | head (baseline) | 23 | 80.2% | 20.0% (2/10) |',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
    ]
    text = '\n'.join(lines)
    fitted = fit_tables(text, width=40).split('\n')
    assert fitted[0] == 'Intro.'
    assert fitted[1:5] == [
        '- **code / extractive**',
        '  - returns: 91',
        '  - compression: 80.7%',
        '  - retention: 99.9% (2228/2230)',
    ]
    assert fitted[5] == '- **diff / head (baseline)**'
    assert fitted[-3:] == ['| a | b |', '|---|---|', '| 1 | 2 |']  # fits: left as a table
    assert all(len(line) <= 40 for line in fitted)
    assert fit_tables(text, width=200) == text


async def test_a_return_that_kept_its_original_counts_as_failed_not_as_keeping_its_facts(tmp_path: Path) -> None:
    """A model whose summary of one return is refused: its retention is the summarized return's, and the row
    says which return failed and why, instead of crediting the kept original with every fact."""
    log = _history(BIG_TEXT, after=f'The slowest was {LAST_LINE.split()[-1]} from 10.1.199.99.')
    mixed = _history(BIG_OBJECT, after='acme/widgets has 1234 stars.')
    lines = BIG_TEXT.split('\n')

    def answer(content: object, budget: int) -> object:
        if isinstance(content, str):  # the log's first line and an invented one: refused
            return f'{lines[0]}\nAll 600 requests succeeded.'
        assert isinstance(content, dict)
        return {**content, 'issues': head_items(content['issues'], 0), 'nested': {'readme': '…', 'stars': 1234}}

    histories = [
        EvalHistory(name=name, path=tmp_path / name, stored=StoredHistory.parse(ModelMessagesTypeAdapter.dump_json(m)))
        for name, m in (('log', log), ('mixed', mixed))
    ]
    config = SummarizerConfig().override(keep_quoted_facts=False)
    run = await run_eval(
        histories,
        models={'fake': summarizer_model(answer)},
        config=config,
        cache=SummaryCache(directory=None, size_limit_bytes=0),
    )
    overall = run.models[0].overall
    assert (overall.returns, overall.summarized) == (2, 1)
    assert overall.failures == {'not grounded (is not in the original)': 1}
    assert (overall.facts_referred, overall.facts_kept) == (1, 1)  # 1234, of the summarized object alone
    failed_log = next(score for history in run.models[0].histories for score in history.returns if score.tally.failures)
    assert failed_log.tally.retention is None  # the log kept its original: credited with none of its facts
    text = markdown(run, started=datetime(2026, 1, 1), sources=['test'])
    assert '| 50.0% (1/2) | not grounded (is not in the original) × 1 |' in text
    assert run.models[0].overall.as_dict()['failures'] == {'not grounded (is not in the original)': 1}


def test_golden_figures_gate_only_what_they_recorded_and_floors_the_rest(tmp_path: Path) -> None:
    """A model the figures do not name is held to the floors; a kind they do not name asks for new figures."""
    from summarizer.eval import EvalRun, ModelScore, Recorded
    from summarizer.eval._metrics import ReturnScore
    from summarizer.eval._run import HistoryScore

    def scored(name: str, kept: int, kind: str) -> ModelScore:
        tally = Tally(returns=1, summarized=1, facts_referred=100, facts_kept=kept, facts_present=kept)
        returned = ReturnScore(tool_name='t', tool_call_id='c', message_index=1, kind=kind, tally=tally)
        history = HistoryScore(name='h', tokens_before=1, tokens_after=1, returns=[returned])
        return ModelScore(name=name, histories=[history], report=Report(), seconds=0, price_usd=0)

    config = dataclasses.replace(SummarizerConfig(), keep_recent=0)
    run = EvalRun(config=config, models=[scored('openai:gpt-x', 5, 'code')], histories=['h'])
    recorded = {'extractive': {'code': {'kept': 0.9, 'blind': None}, 'overall': {'kept': 0.9, 'blind': None}}}
    run.recorded = Recorded(path=tmp_path / 'figures.json', settings=run.settings(), figures=recorded)
    assert run.gate_problems() == ['openai:gpt-x: facts kept in context 5.0% is below the floor 70.0%']
    run.models = [scored('extractive', 90, 'diff')]  # a kind the figures do not name, and one gone from the run
    figures = tmp_path / 'figures.json'
    assert run.gate_problems() == [
        f'extractive: diff has no figures recorded in {figures}: record them again (--update-golden)',
        f'extractive: facts kept in context on code fell from 90.0% to -, more than 1% below the figure recorded in {figures}',
    ]


async def test_the_head_baseline_matches_each_return_even_when_two_share_a_content(tmp_path: Path) -> None:
    """One log in two histories, quoted at length in one only: its two summaries differ in size, and so must the cuts."""
    ids = ', '.join(f'req-{n:05d}' for n in range(11, 600, 3))
    stored = [
        EvalHistory(name=name, path=tmp_path / name, stored=StoredHistory.parse(ModelMessagesTypeAdapter.dump_json(m)))
        for name, m in (
            ('quoting', _history(BIG_TEXT, after=f'The slow ones were {ids}.')),
            ('quiet', _history(BIG_TEXT, after='Nothing stands out.')),
        )
    ]
    config = SummarizerConfig().override(threshold_tokens=6_000)
    run = await run_eval(
        stored,
        models=eval_models(['extractive'], config),
        config=config,
        cache=SummaryCache(directory=None, size_limit_bytes=0),
    )
    ours, baseline = run.models
    sizes = [[r.tally.tokens_after for h in score.histories for r in h.returns] for score in (ours, baseline)]
    assert sizes[0][0] > 1.5 * sizes[0][1]  # the quoted lines took the first past its budget
    for summary, truncation in zip(*sizes, strict=True):
        assert 0.9 * summary <= truncation <= summary


async def test_the_head_baseline_is_matched_to_the_first_other_model_wherever_it_is_listed(tmp_path: Path) -> None:
    """`--model head --model extractive`: the baseline is still read at the extractive model's cut, told and blind."""
    messages = _history(BIG_TEXT, after='The slow ones were ' + ', '.join(f'req-{n:05d}' for n in range(11, 600, 3)))
    stored = [
        EvalHistory(
            name='log', path=tmp_path / 'log', stored=StoredHistory.parse(ModelMessagesTypeAdapter.dump_json(messages))
        )
    ]
    config = SummarizerConfig().override(threshold_tokens=6_000)
    models = eval_models(['head', 'extractive'], config)
    assert list(models) == ['head', 'extractive']
    run = await run_eval(stored, models=models, config=config, cache=SummaryCache(directory=None, size_limit_bytes=0))
    assert [model.name for model in run.models] == ['head', 'extractive']  # in the order asked
    baseline, ours = run.models
    assert baseline.blind is not None and ours.blind is not None
    for told in (True, False):
        pair = (ours, baseline) if told else (ours.blind, baseline.blind)
        summary, truncation = ([r.tally.tokens_after for h in score.histories for r in h.returns] for score in pair)
        assert all(0.9 * s <= t <= s for s, t in zip(summary, truncation, strict=True))
