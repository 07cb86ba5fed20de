"""One batch measurement in a process of its own: `python -m bench._batch_child MODE CORPUS OUT [THRESHOLD]`.

A process per measurement gives each its own peak RSS, and an isolated cache (SUMMARIZER_CACHE_DIR
is set by the parent). The clock starts after the imports, so interpreter start-up is not counted.
Prints one JSON object: seconds, bytes read, histories, peak RSS.

MODE is `raw-jsonl` / `raw-sqlite` (json.loads + json.dumps of every history, written out: the
speed limit of any tool that reads and writes these files in Python) or `batch` (`summarizer batch
CORPUS --out OUT`, in this process).
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sqlite3
import sys
import time
from pathlib import Path

from summarizer.cli import main as summarizer_main


def raw_jsonl(corpus: Path, out: Path) -> int:
    count = 0
    with corpus.open('rb') as source, (out / corpus.name).open('w', encoding='utf-8') as target:
        for line in source:
            target.write(json.dumps(json.loads(line), ensure_ascii=False, separators=(',', ':')) + '\n')
            count += 1
    return count


def raw_sqlite(corpus: Path, out: Path) -> int:
    source = sqlite3.connect(corpus)
    target = sqlite3.connect(out / corpus.name)
    try:
        target.execute('CREATE TABLE conversations (id TEXT PRIMARY KEY, messages TEXT)')
        count = 0
        with target:
            for key, messages in source.execute('SELECT id, messages FROM conversations'):
                text = json.dumps(json.loads(messages), ensure_ascii=False, separators=(',', ':'))
                target.execute('INSERT INTO conversations VALUES (?, ?)', (key, text))
                count += 1
        return count
    finally:
        source.close()
        target.close()


def batch(corpus: Path, out: Path, threshold: str) -> int:
    arguments = ['batch', str(corpus), '--out', str(out), '--threshold-tokens', threshold]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as errors:
        status = summarizer_main(arguments)
    if status:
        raise SystemExit(f'summarizer batch exited {status}: {errors.getvalue().strip()[-500:]}')
    return -1  # the parent knows the corpus


def main(argv: list[str]) -> None:
    mode, corpus, out = argv[0], Path(argv[1]), Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if mode == 'raw-jsonl':
        histories = raw_jsonl(corpus, out)
    elif mode == 'raw-sqlite':
        histories = raw_sqlite(corpus, out)
    else:
        histories = batch(corpus, out, argv[3])
    seconds = time.perf_counter() - started
    print(json.dumps({'seconds': seconds, 'histories': histories, 'peak_rss_mb': peak_rss_kb() / 1024}))


def peak_rss_kb() -> int:
    """This process's peak RSS. Linux keeps `ru_maxrss` across fork and exec (it would report the parent's
    peak when that was higher); `VmHWM` starts afresh with the new program."""
    try:
        for line in Path('/proc/self/status').read_text().splitlines():
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS


if __name__ == '__main__':
    main(sys.argv[1:])
