"""Benchmark 2: `summarizer batch` throughput on a generated corpus, beside a raw JSON round trip.

The corpus is written once as JSONL and as SQLite (the same histories) and kept between runs, since
generating it takes longer than compacting it. Each measurement runs in a child process
(`_batch_child`) with its own empty cache, so peak RSS and timings do not leak between them.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ._report import Section, Target
from .workload import write_corpus

NOTHING_TO_SUMMARIZE = str(10**9)
EMBEDDED = '1000'


@dataclass(frozen=True)
class Corpus:
    jsonl: Path
    sqlite: Path
    histories: int
    messages: int

    @property
    def megabytes(self) -> float:
        return self.jsonl.stat().st_size / 1e6


def corpus(directory: Path, *, histories: int, messages: int, tool_returns: int) -> Corpus:
    """The corpus under `directory`, generated unless an earlier run left it there."""
    folder = directory / f'corpus-{histories}x{messages}m{tool_returns}r'
    jsonl, sqlite = folder / 'corpus.jsonl', folder / 'corpus.sqlite'
    if not (jsonl.is_file() and sqlite.is_file()):
        write_corpus(histories, folder, messages=messages, tool_returns=tool_returns)
    return Corpus(jsonl=jsonl, sqlite=sqlite, histories=histories, messages=messages)


def head(data: Corpus, histories: int) -> Corpus:
    """The first `histories` of a corpus, in files of their own (made once, from the corpus's files)."""
    if histories >= data.histories:
        return data
    folder = data.jsonl.parent / f'head-{histories}'
    jsonl, sqlite = folder / 'corpus.jsonl', folder / 'corpus.sqlite'
    if not (jsonl.is_file() and sqlite.is_file()):
        folder.mkdir(exist_ok=True)
        with data.jsonl.open('rb') as source, jsonl.open('wb') as target:
            target.writelines(itertools.islice(source, histories))
        sqlite.unlink(missing_ok=True)
        with contextlib.closing(sqlite3.connect(sqlite)) as rows:
            rows.execute('ATTACH DATABASE ? AS full', (str(data.sqlite),))
            rows.execute('CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT)')
            with rows:
                rows.execute(
                    'INSERT INTO conversations SELECT * FROM full.conversations ORDER BY id LIMIT ?', (histories,)
                )
    return Corpus(jsonl=jsonl, sqlite=sqlite, histories=histories, messages=data.messages)


def run_child(mode: str, path: Path, threshold: str = EMBEDDED) -> dict[str, float]:
    """Seconds and peak RSS of one measurement in a fresh process with a fresh cache."""
    with tempfile.TemporaryDirectory(prefix='bench-batch-') as scratch:
        environment = {**os.environ, 'SUMMARIZER_CACHE_DIR': str(Path(scratch) / 'cache')}
        command = [sys.executable, '-m', 'bench._batch_child', mode, str(path), str(Path(scratch) / 'out'), threshold]
        done = subprocess.run(
            command, capture_output=True, text=True, env=environment, cwd=Path(__file__).parent.parent, check=False
        )
        if done.returncode:
            raise RuntimeError(f'{" ".join(command)} failed: {done.stderr.strip()[-800:]}')
        return json.loads(done.stdout.strip().splitlines()[-1])


def batch_section(data: Corpus, *, summarized: Corpus) -> Section:
    """Raw JSON and "nothing to summarize" on `data`; the embedded model on `summarized` (a head of `data`)."""
    section = Section(
        title=f'2. Batch throughput ({data.histories:,} histories of {data.messages} messages, '
        f'{data.megabytes:,.0f} MB; embedded model on the first {summarized.histories:,}, {summarized.megabytes:,.0f} MB)',
        columns=['case', 'format', 'histories', 'seconds', 'MB/s', 'histories/s', '× raw JSON', 'peak RSS MB'],
    )
    ratios: dict[str, float] = {}
    for fmt in ('JSONL', 'SQLite'):
        raw: dict[Corpus, float] = {}
        cases = (
            ('raw json.loads + json.dumps', data, f'raw-{fmt.lower()}', EMBEDDED),
            ('batch, nothing to summarize', data, 'batch', NOTHING_TO_SUMMARIZE),
            ('raw json.loads + json.dumps', summarized, f'raw-{fmt.lower()}', EMBEDDED),
            ('batch, embedded model', summarized, 'batch', EMBEDDED),
        )
        for label, corpus_, mode, threshold in cases:
            if label.startswith('raw') and corpus_ is summarized and summarized is data:
                continue  # the same measurement as the first row
            measured = run_child(mode, corpus_.jsonl if fmt == 'JSONL' else corpus_.sqlite, threshold)
            seconds = measured['seconds']
            raw.setdefault(corpus_, seconds)
            ratio = raw[corpus_] / seconds
            ratios[f'{label} {fmt}'] = ratio
            section.rows.append(
                {
                    'case': label,
                    'format': fmt,
                    'histories': corpus_.histories,
                    'seconds': seconds,
                    'MB/s': corpus_.megabytes / seconds,
                    'histories/s': corpus_.histories / seconds,
                    '× raw JSON': ratio,
                    'peak RSS MB': measured['peak_rss_mb'],
                }
            )
    for fmt in ('JSONL', 'SQLite'):
        section.targets.append(
            Target(
                f'batch with nothing to summarize ({fmt}), × raw JSON throughput',
                ratios[f'batch, nothing to summarize {fmt}'],
                0.5,
                'at least',
            )
        )
    section.notes.append(
        'Each case in a process of its own with an empty cache; timed after imports. "× raw JSON" is throughput '
        'relative to json.loads + json.dumps of the same histories, written out the same way. The embedded '
        'model summarizes 1-2 MB/s, so its rows run on the first histories of the corpus.'
    )
    return section
