"""`summarizer.engines.ray` on a real local Ray instance: byte-exact, deduplicated cluster-wide, robust to bad rows and dead workers.

One Ray instance (2 CPUs, no dashboard, 127.0.0.1 only) serves the whole module; without the `ray`
extra every test here is skipped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import BIG_LIST, BIG_OBJECT, BIG_TEXT, history
from pydantic_ai.messages import ModelMessagesTypeAdapter
from test_batch import rows as table_rows
from test_provider_batch_read_once import count_reads, make_inputs

from summarizer import SummarizerConfig
from summarizer.cli import main
from summarizer.core._shape import JsonValue
from summarizer.pipeline._models import EmbeddedRequest, embedded_model, extractive_summary
from summarizer.pipeline._pipeline import Compactor
from summarizer.pipeline._summarize import Outcome, Summarizer
from summarizer.stored._units import Done, StoredUnit, Where

ray = pytest.importorskip('ray', reason="the ray extra is not installed (pip install '.[ray]')")
from summarizer.engines.ray import compact_dataset

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings('ignore::DeprecationWarning', 'ignore::FutureWarning')]


@pytest.fixture(scope='module', autouse=True)
def local_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One local Ray for the module; its workers import the project and these tests, and cache nowhere shared."""
    here = Path(__file__).parent
    path = os.pathsep.join([str(here.parent), str(here), os.environ.get('PYTHONPATH', '')])
    cache = tmp_path_factory.mktemp('ray-worker-cache')
    ray.init(
        num_cpus=2,
        _node_ip_address='127.0.0.1',
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={'env_vars': {'PYTHONPATH': path, 'SUMMARIZER_CACHE_DIR': str(cache)}},
    )
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@dataclass(frozen=True)
class Counted:
    """The extractive summarizer, recording each call in a file (tasks run in other processes); optionally dying once."""

    log: Path
    die_once: Path | None = None

    def __call__(self, request: EmbeddedRequest) -> JsonValue:
        if self.die_once is not None and not self.die_once.exists():
            self.die_once.touch()
            os._exit(1)  # the worker process dies mid-task, as an OOM kill would
        with self.log.open('a') as log:
            log.write(hashlib.sha256(json.dumps(request.content).encode()).hexdigest() + '\n')
        return extractive_summary(request)


def by_id(row: dict[str, object]) -> int:
    return int(row['id'])  # type: ignore[call-overload]  # rows come back in any order


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def stored(*contents: object) -> str:
    return ModelMessagesTypeAdapter.dump_json(history(*contents)).decode()


def config() -> SummarizerConfig:
    return SummarizerConfig().override(keep_recent=0, cache={'enabled': False}, originals={'enabled': False})


def rows() -> list[str]:
    """12 histories, 6 unique contents between them (4 texts, the list, the object): each in several rows."""
    texts = [f'topic {n}\n{BIG_TEXT}' for n in range(4)]
    return [stored(texts[n % 4], BIG_LIST if n % 2 else BIG_OBJECT, texts[(n + 1) % 4]) for n in range(12)]


def local(histories: list[str], model: object) -> list[str | None]:
    """The local engine's result for each history (None: unchanged)."""
    compactor = Compactor(config=config(), model=model)  # type: ignore[arg-type]

    async def run() -> list[str | None]:
        done = [await StoredUnit(where=Where(path=Path('x')), raw=raw).compact(compactor) for raw in histories]
        return [item.text for item in done]

    return asyncio.run(run())


def test_byte_exact_as_local_and_each_content_summarized_once(tmp_path: Path) -> None:
    histories = rows()
    log = tmp_path / 'calls'
    model = embedded_model('counted', Counted(log))
    ds = ray.data.from_items([{'id': n, 'messages': text} for n, text in enumerate(histories)], override_num_blocks=4)
    result = sorted(compact_dataset(ds, config=config(), model=model, workers=2, batch_size=2).take_all(), key=by_id)

    unique = set(calls(log))
    assert len(calls(log)) == len(unique) == 6  # 6 unique contents over 4 blocks and 2 workers
    expected = local(histories, embedded_model('counted', Counted(tmp_path / 'local-calls')))
    assert [row['id'] for row in result] == list(range(12))
    assert [row['messages'] for row in result] == [new or old for new, old in zip(expected, histories, strict=True)]
    assert all(new is not None for new in expected)
    assert all(row['error'] is None and row['failed'] == 0 for row in result)
    assert [row['summarized'] for row in result] == [3] * 12
    assert all(row['tokens_after'] < row['tokens_before'] for row in result)
    assert sum(row['model_calls'] for row in result) == 6  # each call charged to one row


def test_bad_row_is_reported_in_its_row(tmp_path: Path) -> None:
    good = stored(f'unique\n{BIG_TEXT}')
    broken = good.replace('"tool-return"', '"tool-retrun"', 1)
    items = [{'id': n, 'messages': text} for n, text in enumerate([good, '{"not": "a history"}', broken, '[{'])]
    model = embedded_model('counted', Counted(tmp_path / 'calls'))
    result = sorted(
        compact_dataset(ray.data.from_items(items), config=config(), model=model, workers=2).take_all(), key=by_id
    )

    assert result[0]['error'] is None and result[0]['summarized'] == 1 and result[0]['messages'] != good
    assert result[1]['error'] == 'expected a JSON list of messages, found dict'
    assert result[2]['error'] is not None and result[2]['error'].startswith('message 2: ')
    assert "unknown part_kind 'tool-retrun'" in result[2]['error']
    assert result[3]['error'] is not None and 'invalid JSON' in result[3]['error']
    assert [row['messages'] for row in result[1:]] == [item['messages'] for item in items[1:]]  # kept, byte for byte


def test_bytes_column_stays_bytes(tmp_path: Path) -> None:
    raw = stored(f'bytes\n{BIG_TEXT}').encode()
    model = embedded_model('counted', Counted(tmp_path / 'calls'))
    [row] = compact_dataset(
        ray.data.from_items([{'messages': raw}]), config=config(), model=model, workers=1
    ).take_all()
    expected = local([raw.decode()], model)[0]
    assert isinstance(row['messages'], bytes) and row['messages'] == (expected or '').encode()


def test_worker_killed_mid_job_is_retried_once_written_once(tmp_path: Path) -> None:
    histories = rows()[:6]
    log, marker = tmp_path / 'calls', tmp_path / 'died'
    model = embedded_model('counted', Counted(log, die_once=marker))
    ds = ray.data.from_items([{'id': n, 'messages': text} for n, text in enumerate(histories)], override_num_blocks=3)
    result = sorted(compact_dataset(ds, config=config(), model=model, workers=2, batch_size=2).take_all(), key=by_id)

    assert marker.exists()  # a worker did die
    expected = local(histories, embedded_model('counted', Counted(tmp_path / 'local-calls')))
    assert [row['id'] for row in result] == list(range(6))  # every row once: none lost, none twice
    assert [row['messages'] for row in result] == expected
    assert all(row['error'] is None for row in result)


@dataclass(frozen=True)
class CountedRead:
    """A step of the input dataset recording each row it yields in a file: how often the input is read."""

    log: Path

    def __call__(self, batch: dict[str, object]) -> dict[str, object]:
        rows = len(batch['id'])  # type: ignore[arg-type]
        with self.log.open('a') as log:
            log.write('row\n' * rows)
        return batch


def test_compact_dataset_reads_its_input_once(tmp_path: Path) -> None:
    histories = rows()
    reads = tmp_path / 'reads'
    items = [{'id': n, 'messages': text} for n, text in enumerate(histories)]
    ds = ray.data.from_items(items, override_num_blocks=4).map_batches(CountedRead(reads), batch_format='numpy')
    model = embedded_model('counted', Counted(tmp_path / 'calls'))

    result = compact_dataset(ds, config=config(), model=model, workers=2, batch_size=2).take_all()

    assert len(calls(reads)) == len(result) == 12  # the plan and the compact stage read the same blocks
    assert all(row['summarized'] == 3 for row in result)


def test_cli_engine_ray_reads_each_source_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_inputs(tmp_path / 'in')
    assert main(['batch', '--keep-recent', '0', str(tmp_path / 'in'), '--out', str(tmp_path / 'local')]) == 0
    passes, units = count_reads(monkeypatch)

    assert (
        main(['batch', '--keep-recent', '0', '--engine', 'ray', str(tmp_path / 'in'), '--out', str(tmp_path / 'ray')])
        == 0
    )

    assert passes == {'a.json': 1, 'b.jsonl': 1, 'c.db': 1}
    assert units == {'a.json': 1, 'b.jsonl': 2, 'c.db': 2}
    for name in ('a.json', 'b.jsonl'):
        assert (tmp_path / 'ray' / name).read_bytes() == (tmp_path / 'local' / name).read_bytes()
    query = 'SELECT id, messages FROM conversations ORDER BY id'
    assert table_rows(tmp_path / 'ray' / 'c.db', query) == table_rows(tmp_path / 'local' / 'c.db', query)


def test_cli_engine_ray_out_and_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    histories = rows()[:6]
    iter_rows = ray.data.Dataset.iter_rows

    def out_of_order(self: ray.data.Dataset) -> Iterator[dict[str, object]]:
        return reversed(list(iter_rows(self)))  # rows come back in any order: results must not go by position

    monkeypatch.setattr(ray.data.Dataset, 'iter_rows', out_of_order)
    folder = tmp_path / 'in'
    (folder / 'sub').mkdir(parents=True)
    (folder / 'a.jsonl').write_text('\n'.join(histories[:4]) + '\n\n' + '{"broken": \n')
    (folder / 'sub' / 'b.json').write_text(histories[4])
    (folder / 'c.json').write_text(histories[5])
    local_out, ray_out = tmp_path / 'local', tmp_path / 'ray'
    assert main(['batch', '--keep-recent', '0', str(folder), '--out', str(local_out)]) == 1  # the broken line
    report = tmp_path / 'report.json'
    arguments = ['batch', '--keep-recent', '0', '--engine', 'ray', '--jobs', '2', '--report', str(report)]
    assert main([*arguments, str(folder), '--out', str(ray_out)]) == 1
    for name in ('a.jsonl', 'sub/b.json', 'c.json'):
        assert (ray_out / name).read_bytes() == (local_out / name).read_bytes()
    problems = [f for source in json.loads(report.read_text())['sources'] for f in source['failures']]
    assert [(p['kind'], p['line']) for p in problems] == [('history', 6)]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert main([*arguments, str(folder / 'c.json'), '--in-place']) == 0
    idle = [str(w.message) for w in caught if 'concurrent' in str(w.message)]
    assert not idle  # one history is one block: each stage runs one task at a time, not `--jobs 2` with one idle
    assert (folder / 'c.json').read_bytes() == (local_out / 'c.json').read_bytes()
    assert main(['batch', '--engine', 'ray', str(folder), '--out', str(tmp_path / 'x'), '--jobs', '0']) == 2


def test_an_unreachable_model_server_stops_the_ray_engine_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the local engine: the summarize stage hands the error to the driver, not a failed task's traceback."""
    from test_cli_errors import closed_port

    folder = tmp_path / 'in'
    folder.mkdir()
    for index, text in enumerate(rows()[:3]):
        (folder / f'h{index}.json').write_text(text)
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    port = closed_port()
    config = tmp_path / 'server.yaml'
    config.write_text(f'model: some-model\nbase_url: http://127.0.0.1:{port}/v1\nkeep_recent: 0\n', encoding='utf-8')
    assert main(['batch', '--engine', 'ray', str(folder), '--in-place', '--config', str(config)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f'summarizer: cannot reach the model server at http://127.0.0.1:{port}/v1/: connection refused; '
        'stopped, every unfinished source left as it was'
    )
    assert 'Traceback' not in err and {path.name: path.read_bytes() for path in folder.iterdir()} == before


@dataclass(frozen=True)
class RejectedWhenMarked:
    """The extractive summarizer, except for contents holding `MARK-BAD`: their "summary" is twice the content."""

    def __call__(self, request: EmbeddedRequest) -> JsonValue:
        content = request.content
        if 'MARK-BAD' in json.dumps(content):
            return content + content if isinstance(content, str) else content
        return extractive_summary(request)


def test_a_shared_content_rejected_once_fails_every_row_holding_it_as_the_local_engine_does() -> None:
    """Strict: the one summary of a content two rows hold fails the checks, so both rows keep their value, as locally."""
    bad = f'MARK-BAD\n{BIG_TEXT}'
    histories = [stored(bad, BIG_LIST), stored(bad, BIG_OBJECT), stored(f'fine\n{BIG_TEXT}')]
    strict = dataclasses.replace(config(), strict=True)
    model = embedded_model('rejects', RejectedWhenMarked())
    ds = ray.data.from_items([{'id': n, 'messages': text} for n, text in enumerate(histories)], override_num_blocks=2)
    result = sorted(compact_dataset(ds, config=strict, model=model, workers=1, batch_size=2).take_all(), key=by_id)

    compactor = Compactor(config=strict, model=model)

    async def concurrently() -> list[Done]:  # as `summarizer batch` runs them: the second waits on the first's call
        units = [StoredUnit(where=Where(path=Path('x')), raw=raw) for raw in histories]
        return await asyncio.gather(*(unit.compact(compactor) for unit in units))

    expected = asyncio.run(concurrently())
    assert [row['error'] for row in result] == [item.error for item in expected]
    assert expected[0].error == expected[1].error is not None and 'not smaller than the original' in expected[0].error
    assert [row['messages'] for row in result[:2]] == histories[:2]  # kept, byte for byte
    assert result[2]['error'] is None and result[2]['messages'] == expected[2].text != histories[2]


def test_a_content_a_history_holds_twice_is_charged_once() -> None:
    """The compact stage charges the owner row's first occurrence only; the second is a share (a cache hit)."""
    from summarizer.engines.ray import _StageAnswers  # pyright: ignore[reportPrivateUsage]
    from summarizer.pipeline._cache import SummaryCache
    from summarizer.pipeline._models import resolve_model

    config = SummarizerConfig().override(keep_recent=0, keep_quoted_facts=False)
    messages = history(BIG_TEXT, BIG_TEXT)
    keys = Summarizer(
        config=config, model=resolve_model(config), cache=SummaryCache(directory=None, size_limit_bytes=0)
    )
    compactor = Compactor(config=config, summarizer=keys)
    [key] = {keys.key_for(candidate) for candidate in compactor.plan(messages).candidates}
    answer = Outcome(summary='a short summary', source='model', attempts=1, input_tokens=100, output_tokens=20)
    answers = _StageAnswers(keys=keys, answers={key: ('row', answer)}, row='row')
    report = asyncio.run(Compactor(config=config, summarizer=keys, answers=answers).compact(messages)).report
    assert (report.model_calls, report.summarizer_input_tokens, report.cache_hits, report.summarized) == (1, 100, 1, 2)


def test_engine_ray_records_each_history_where_it_writes_it_and_writes_none_the_store_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = stored(f'ray twin\n{BIG_TEXT}')
    second = first.replace('took 2100 ms', 'took 2101 ms')  # in a line compaction omits: the same compacted text
    folder = tmp_path / 'in'
    folder.mkdir()
    (folder / 'a.json').write_text(first)
    (folder / 'b.json').write_text(second)
    arguments = ['batch', '--keep-recent', '0', '--engine', 'ray', '--jobs', '2']
    assert main([*arguments, str(folder), '--in-place']) == 0
    assert (folder / 'a.json').read_bytes() == (folder / 'b.json').read_bytes()
    assert main(['restore', str(folder), '--in-place']) == 0
    assert (folder / 'a.json').read_text() == first and (folder / 'b.json').read_text() == second

    monkeypatch.setenv('SUMMARIZER_ORIGINALS_DIR', str(tmp_path / 'full-store'))
    (tmp_path / 'config.yaml').write_text('originals:\n  size_limit_mb: 0\n')
    assert main([*arguments, '--config', str(tmp_path / 'config.yaml'), str(folder), '--in-place']) == 1
    assert (folder / 'a.json').read_text() == first and (folder / 'b.json').read_text() == second


def test_compact_dataset_keeps_a_row_whose_way_back_the_store_refuses() -> None:
    histories = [stored(f'refused {n}\n{BIG_TEXT}') for n in range(2)]
    full = SummarizerConfig().override(keep_recent=0, cache={'enabled': False}, originals={'size_limit_mb': 0})
    ds = ray.data.from_items([{'id': n, 'messages': text} for n, text in enumerate(histories)])
    result = sorted(compact_dataset(ds, config=full, workers=2, batch_size=1).take_all(), key=by_id)
    assert [row['messages'] for row in result] == histories
    assert all(row['summarized'] == 0 and row['failed'] == 1 for row in result)  # each return kept, and counted


def test_engine_ray_leaves_postgresql_rows_sharing_an_id_as_they_are(tmp_path: Path) -> None:
    """As the local engine (tests/test_postgres.py): rows one id names cannot be told apart by restore."""
    pytest.importorskip('psycopg', reason="the postgres extra: pip install '.[postgres]'")
    from pg_server import running_server

    twin = stored(f'ray shared id\n{BIG_TEXT}')
    with running_server() as server:
        url = server.url(server.create_database('ray_shared_ids'))
        with server.connect('ray_shared_ids') as connection:
            connection.execute('CREATE TABLE conversations (id text, messages text)')
            for key, text in (('a', twin), ('a', twin.replace('took 2100 ms', 'took 2101 ms')), ('c', twin)):
                connection.execute('INSERT INTO conversations VALUES (%s, %s)', (key, text))
            query = 'SELECT id, messages FROM conversations ORDER BY id, messages'
            before = connection.execute(query).fetchall()

            assert main(['batch', '--keep-recent', '0', '--engine', 'ray', url, '--in-place']) == 1

            after = connection.execute(query).fetchall()
    assert after[:2] == before[:2] and after[2] != before[2]
