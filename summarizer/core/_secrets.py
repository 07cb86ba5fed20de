"""The one redaction every message, log line, report and journal line goes through before it leaves the process.

A secret can reach a message by many roads: a model server's error body echoing the request (its
`Authorization` header, a `base_url` with `?api_key=`), a URL quoted in an exception, a PostgreSQL
URL on the command line. `redact` hides, wherever they show:

- the secrets given, and every secret this process was told of (`remember_secrets`: the API keys and
  `base_url` secrets of the models it built, the passwords of the command line's URLs);
- the secrets of every URL the text quotes (`url_secrets`: a password, a key in the query, fragment or
  path), and the token after `Bearer` or `Basic`;
- in a text that quotes what a server or a library said (`echoed`: an error's message), also the value
  of a pair whose name says it is a secret (`api_key=...`, `"x-api-key": "..."`). Not in our own
  files, where such a name is a field of ours (a journal's `"key"`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from urllib.parse import unquote

_SECRET_WORDS = frozenset(
    ('key', 'apikey', 'token', 'secret', 'password', 'passwd', 'pwd', 'pass', 'sig', 'signature', 'auth', 'jwt')
    + ('authorization', 'credential', 'credentials', 'code')
)
"""Words of a parameter's name that say its value is a secret (`api_key`, `access-token`, `X-Amz-Signature`, an
Azure Function's `?code=`)."""
_MIN_SECRET_CHARS = 4
"""A shorter parameter value (`?sig=1`) is no secret worth the mangling of every message holding it."""
_MIN_REMEMBERED_CHARS = 6
"""A shorter remembered secret (a placeholder key) would mangle every message holding its letters."""
_KEY_SEGMENT = re.compile(r'[A-Za-z0-9._~+=-]{20,}')
_URL = re.compile(r'(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*+://[^\s\'"<>`]+', re.IGNORECASE)
"""A URL, its scheme read whole from the start of a run of the characters a scheme may hold: tried from each word
boundary of `a.a.a.a...` (dotted names in untrusted text), it was read to the run's end again, quadratic in the run."""
_SCHEME_TOKEN = re.compile(r'\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{8,})', re.IGNORECASE)
_PAIR = re.compile(r"""(["']?)(?<![\w.-])([A-Za-z][\w.-]*+)\1\s*+[=:]\s*+(["']?)([^\s"'&,;}\]]+)""")
"""`name=value`, `name: value`, `"name": "value"`: a pair whose name may say its value is a secret. A name starts
where a word does and is read whole (`*+`): tried from inside every word of a long error body, the old pattern took
4 s on a 20 KB word, and it reads what servers send."""
_MIN_PAIR_CHARS = 6
_NO_SECRET = frozenset(('bearer', 'basic', 'none', 'null', 'true', 'false', 'missing', 'invalid', 'required'))
"""Values of a pair so named that are words, not secrets: hidden, each would be hidden everywhere in the text."""

_remembered: frozenset[str] = frozenset()
_lock = threading.Lock()


def remember_secrets(secrets: Iterable[str]) -> None:
    """Hide these secrets in everything `redact` passes from now on, in this process."""
    global _remembered
    kept = {secret for secret in secrets if len(secret) >= _MIN_REMEMBERED_CHARS}
    with _lock:
        _remembered = _remembered | kept


def redact(text: str, secrets: Iterable[str] = (), *, echoed: bool = False) -> str:
    """`text` with every secret it holds replaced by `***` (see the module docstring)."""
    hidden = {*secrets, *_remembered}
    for url in _URL.findall(text):
        hidden.update(url_secrets(url.rstrip('.,:;!?)]}')))  # the sentence's, not the URL's
    hidden.update(match[1] for match in _SCHEME_TOKEN.finditer(text))
    if echoed:
        hidden.update(
            match[4]
            for match in _PAIR.finditer(text)
            if len(match[4]) >= _MIN_PAIR_CHARS and match[4].lower() not in _NO_SECRET and _names_secret(match[2])
        )
    for secret in sorted(hidden, key=len, reverse=True):  # a secret holding another goes whole
        if secret:
            text = text.replace(secret, '***')
    return text


def without_secrets(url: str) -> str:
    """Any URL (a model server's `base_url`) with its secrets (`url_secrets`) shown as `***`, as messages name it."""
    return redact(url, url_secrets(url))


def url_secrets(url: str) -> tuple[str, ...]:
    """The secrets a URL holds, as written and percent-decoded, longest first: none of them belongs in a message.

    The password of its user part (which runs to the last `@` when it holds a `:`, as for a PostgreSQL
    URL: an unencoded `/` or `@` in a password cannot leave a piece of it in view); the value of every
    query or fragment parameter whose name holds a word saying it is a secret (`?api_key=...`,
    `#access_token=...`, `?code=...`; whole words, so `?passage=` or `?keyword=` are not); and a
    key in its path: a segment after one so named (`/key/...`), or one that reads as a key (20
    characters or more of letters, digits and `-._~+=`, with at least 5 digits and 5 letters).
    """
    secrets: set[str] = set()
    _, slashes, rest = url.partition('//')
    password = userinfo(rest)[1] if slashes else None
    if password:
        secrets.add(password)
    before_fragment, _, fragment = url.partition('#')
    before_query, _, query = before_fragment.partition('?')
    for name, _, value in (pair.partition('=') for pair in (*query.split('&'), *fragment.split('&'))):
        if len(value) >= _MIN_SECRET_CHARS and _names_secret(unquote(name)):
            secrets.add(value)
    path = before_query.partition('//')[2].partition('/')[2] if slashes else ''
    previous = ''
    for segment in path.split('/'):
        if len(segment) >= _MIN_SECRET_CHARS and (_names_secret(previous) or _reads_as_key(unquote(segment))):
            secrets.add(segment)
        previous = unquote(segment)
    secrets |= {unquote(secret) for secret in secrets}
    return tuple(sorted(secrets, key=len, reverse=True))


def userinfo(rest: str) -> tuple[str, str | None, str]:
    """The user name, the password as written (None if none) and what follows them, of a URL's text after `//`."""
    user_part, at, after = rest.rpartition('@')
    if not at:
        return '', None, rest
    user, colon, password = user_part.partition(':')
    if colon:
        return user, password, after
    # No password: an `@` past the host part (a query value's) is not the user's.
    host_end = min((index for index in (rest.find('/'), rest.find('?')) if index >= 0), default=len(rest))
    user, at, after = rest[:host_end].rpartition('@')
    return (user, None, after + rest[host_end:]) if at else ('', None, rest)


def _names_secret(name: str) -> bool:
    return not _SECRET_WORDS.isdisjoint(re.split(r'[^a-z0-9]+', name.lower()))


def _reads_as_key(segment: str) -> bool:
    digits = sum(character.isdigit() for character in segment)
    letters = sum(character.isalpha() for character in segment)
    return _KEY_SEGMENT.fullmatch(segment) is not None and digits >= 5 and letters >= 5
