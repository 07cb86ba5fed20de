"""A real, small, throwaway PostgreSQL server on 127.0.0.1 for the PostgreSQL batch tests.

`initdb` into a temporary data directory, `postgres` on a free loopback port, password
authentication over TCP (so tests can prove a password in a URL never shows), stopped and deleted
at the end of the session. PostgreSQL refuses to run as root, so as root the server runs as
`nobody` (the data directory is created for it under the system temp folder, which `nobody` can
reach, unlike pytest's 0700 `tmp_path`). The binaries are found on PATH or in Debian's
`/usr/lib/postgresql/*/bin`; without them the tests skip with the reason (`.ci/run` installs them).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PASSWORD = 'pw-Secr3t-%-not-for-logs'
"""The superuser's password: `%` makes it need percent-encoding in a URL, its text is searched in outputs."""
SETTINGS = {
    'listen_addresses': '127.0.0.1',
    'shared_buffers': '16MB',
    'max_connections': '20',
    'max_wal_size': '64MB',
    'unix_socket_directories': '',
    'log_min_messages': 'warning',
}


def binaries() -> Path | None:
    """The folder holding `initdb` and `postgres`, or None."""
    found = shutil.which('initdb')
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob('/usr/lib/postgresql/*/bin/initdb'), key=lambda p: int(p.split('/')[4]))
    return Path(candidates[-1]).parent if candidates else None


@dataclass(frozen=True)
class Server:
    port: int
    user: str = 'postgres'

    def url(self, database: str, *, password: bool = True, query: str = '') -> str:
        from urllib.parse import quote

        secret = f':{quote(PASSWORD, safe="")}' if password else ''
        return f'postgresql://{self.user}{secret}@127.0.0.1:{self.port}/{database}' + (f'?{query}' if query else '')

    def connect(self, database: str = 'postgres', *, autocommit: bool = True):  # -> psycopg.Connection
        import psycopg

        return psycopg.connect(
            host='127.0.0.1', port=self.port, user=self.user, password=PASSWORD, dbname=database, autocommit=autocommit
        )

    def create_database(self, name: str) -> str:
        with self.connect() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
            connection.execute(f'CREATE DATABASE "{name}"')
        return name


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_server() -> Iterator[Server]:
    folder = binaries()
    if folder is None:
        pytest.skip('no PostgreSQL server binaries (initdb) on PATH or in /usr/lib/postgresql/*/bin')
    as_root = os.geteuid() == 0
    user = 'nobody' if as_root else None
    data_root = Path(tempfile.mkdtemp(prefix='summarizer-pg-'))
    data = data_root / 'data'
    try:
        data.mkdir()
        password_file = data_root / 'password'
        password_file.write_text(PASSWORD + '\n', encoding='utf-8')
        if as_root:
            try:
                entry = pwd.getpwnam('nobody')
            except KeyError:
                pytest.skip('running as root and there is no user nobody to run PostgreSQL as')
            for path in (data_root, data, password_file):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        run = {'user': user, 'capture_output': True, 'text': True, 'cwd': data_root}
        initdb = subprocess.run(
            [
                str(folder / 'initdb'),
                '-D',
                str(data),
                '-U',
                'postgres',
                f'--pwfile={password_file}',
                '--auth-host=scram-sha-256',
                '--auth-local=scram-sha-256',
                '-E',
                'UTF8',
                '--locale=C',
                '--no-sync',
            ],
            check=False,
            **run,  # type: ignore[arg-type]
        )
        if initdb.returncode != 0:
            pytest.skip(f'initdb failed: {initdb.stderr.strip()[-300:]}')
        port = _free_port()
        options = [arg for key, value in {**SETTINGS, 'port': str(port)}.items() for arg in ('-c', f'{key}={value}')]
        log = data_root / 'server.log'
        process = subprocess.Popen(
            [str(folder / 'postgres'), '-D', str(data), *options],
            user=user,
            stdout=subprocess.DEVNULL,
            stderr=log.open('wb'),
            cwd=data_root,
        )
        try:
            server = Server(port=port)
            deadline = time.monotonic() + 60
            while True:
                try:
                    import psycopg

                    server.connect().close()
                    break
                except psycopg.OperationalError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        pytest.skip(f'PostgreSQL did not start: {log.read_text(errors="replace")[-300:]}')
                    time.sleep(0.2)
            yield server
        finally:
            process.send_signal(signal.SIGINT)  # fast shutdown: clients still connected are ended
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    finally:
        shutil.rmtree(data_root, ignore_errors=True)
