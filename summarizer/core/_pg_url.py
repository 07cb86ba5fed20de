"""A `postgresql://` URL as a user wrote it: what libpq connects with, how messages name it, what must never show.

No psycopg here: the CLI names and redacts such URLs (the journal's name, every message) whether or
not the postgres extra is installed.

A password is never shown, whatever the URL's shape, nor is any other secret libpq takes
(`SECRET_KEYS`: `?sslpassword=`, `?oauth_client_secret=`). Written unencoded, a `/`, `?` or `#` in a
password ends a URL's host part early and an `@` splits it, so a standard parse (and libpq's, which
takes the first `@`) reads part of the password as a host, port, database or query parameter, then
connects elsewhere and quotes that part in its error. Here the user part runs to the URL's last `@`
whenever it holds a `:` (so a password): no host, port or database name holds an `@` (in a query
value, write it `%40`). libpq gets a URL rebuilt from the parts without any secret, and the secrets
apart, so none of its messages can quote them; every secret is still scrubbed from every message
(`redact`) as a last guard. A URL whose host part is not `HOST[:PORT],...` is refused
before libpq sees it, its text after the user name hidden. Any other URL with a password (a model
server's `base_url`) is named by `_secrets.without_secrets`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self
from urllib.parse import quote, unquote

from ._secrets import redact, userinfo

SCHEME = re.compile(r'(postgres(?:ql)?):', re.IGNORECASE)
"""How a PostgreSQL URL starts (as libpq accepts it); any text that starts so is taken as one, however malformed."""
TABLE_KEYS = ('table', 'id_column', 'messages_column', 'langchain_table')
"""Query keys of a source URL that are ours (table names), not libpq's."""
SECRET_KEYS = ('password', 'sslpassword', 'oauth_client_secret')
"""libpq's connection parameters that hold a secret: those its `PQconndefaults` marks as password fields
(`dispchar` `*`, "hide value"): the server password, the client key's passphrase, the OAuth client secret."""
_HOST = re.compile(r'(?:[^\s,/?#@\[\]:]*|\[[0-9A-Za-z:.%]*\])(?::\d*)?')
"""One entry of a URL's host list: a name, an address or an escaped socket folder, and an optional port."""
_HIDDEN = '…'
"""What a message shows for the part of a malformed URL that may hold a password."""


@dataclass(frozen=True, kw_only=True)
class PgUrl:
    """A `postgresql://` argument, parsed so that its password is never shown (see the module docstring)."""

    conninfo: str
    """libpq's URL: no secret and none of our table keys."""
    credentials: dict[str, str] = field(repr=False)
    """Each secret the URL gives (`SECRET_KEYS`: its password, `sslpassword`, ...), decoded, for libpq apart from
    the URL; a password it lacks libpq finds itself (`PGPASSWORD`, `~/.pgpass`, ...)."""
    shown: str
    """The URL as every message names it: without its secrets, or whatever may hold them if malformed."""
    secrets: tuple[str, ...] = field(repr=False)
    """Text that must not appear in any message: each secret as written and decoded, `PGPASSWORD`'s."""
    keys: dict[str, str]
    """Our table keys (`table`, `langchain_table`, ...)."""
    malformed: str | None = None
    """Why libpq cannot be given this URL, if it cannot."""

    @classmethod
    def parse(cls, url: str) -> Self:
        scheme_match = SCHEME.match(url)
        if scheme_match is None:
            raise ValueError(f'not a postgresql: URL: {url[:12]!r}...')  # callers check SCHEME first
        scheme = scheme_match.group(1)
        after = url[scheme_match.end() :]
        slashes = '//' if after.startswith('//') else after[: len(after) - len(after.lstrip('/'))]
        rest = after[len(slashes) :]
        user, written_password, rest = userinfo(rest)
        end = min((index for index in (rest.find('/'), rest.find('?')) if index >= 0), default=len(rest))
        hosts, tail = rest[:end], rest[end:]
        path, question, query = tail.partition('?')
        secrets = [written_password, unquote(written_password)] if written_password else []
        credentials = {'password': unquote(written_password)} if written_password is not None else {}
        keys: dict[str, str] = {}
        theirs: list[str] = []
        ours: list[str] = []
        for segment in query.split('&') if question else []:
            key, _, value = segment.partition('=')
            if unquote(key) in SECRET_KEYS:
                credentials[unquote(key)] = unquote(value)
                secrets += [value, unquote(value)]
            elif unquote(key) in TABLE_KEYS:
                keys[unquote(key)] = unquote(value)
                ours.append(segment)
            elif segment:
                theirs.append(segment)
        secrets.append(os.environ.get('PGPASSWORD', ''))
        user_part = f'{user}@' if user else ''
        malformed = None
        if slashes != '//':
            malformed = 'not a URL of the form postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE'
        if not all(_HOST.fullmatch(host) for host in hosts.split(',')):
            malformed = 'its host part is not HOST[:PORT] (percent-encode a password holding / ? # @ :)'
            shown = f'{scheme}:{slashes}{user_part}{_HIDDEN}'
        else:
            shown = f'{scheme}:{slashes}{user_part}{hosts}{path}' + _query(theirs + ours)
        encoded_user = f'{quote(unquote(user), safe="")}@' if user else ''
        return cls(
            conninfo=f'{scheme.lower()}://{encoded_user}{hosts}{path}' + _query(theirs),
            credentials=credentials,
            shown=shown,
            secrets=tuple(sorted({secret for secret in secrets if secret}, key=len, reverse=True)),
            keys=keys,
            malformed=malformed,
        )

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)


def _query(segments: list[str]) -> str:
    return '?' + '&'.join(segments) if segments else ''


def secrets_in(words: Sequence[str]) -> tuple[str, ...]:
    """The secrets of every PostgreSQL URL in a command line (`URL` or `--out=URL`), longest first."""
    secrets: set[str] = set()
    for word in words:
        found = SCHEME.search(word)
        if found is not None:
            secrets.update(PgUrl.parse(word[found.start() :]).secrets)
    return tuple(sorted(secrets, key=len, reverse=True))
