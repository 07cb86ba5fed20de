"""Which strategy each kind of text gets: its line bonuses, how alike lines fold, whether lines may be cut."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import code, diff, listing, log, prose, records, search, shell
from ._kinds import ContentKind
from .lines import Joined

LineBonuses = Callable[[Joined], list[float]]

LINE_BONUSES: dict[ContentKind, LineBonuses] = {
    ContentKind.DIFF: diff.line_bonuses,
    ContentKind.CODE: code.line_bonuses,
    ContentKind.SHELL: shell.line_bonuses,
    ContentKind.LOG: log.line_bonuses,
    ContentKind.LISTING: listing.line_bonuses,
    ContentKind.SEARCH: search.line_bonuses,
    ContentKind.RECORDS: records.line_bonuses,
    ContentKind.PROSE: prose.line_bonuses,
}
"""A kind missing here (other, JSON text read as lines) gets no bonuses: facts and trouble words decide."""
SIGNATURES: dict[ContentKind, Callable[[str], str]] = {
    ContentKind.LOG: log.signature,
    ContentKind.SHELL: shell.signature,
}
"""Kinds whose lines alike but for their numbers (a Python warning's place too, in command output) fold into one (see
`log`)."""
FOLDED_UNDER: dict[ContentKind, Callable[[str], bool]] = {ContentKind.SHELL: shell.warns}
"""Kinds whose lines indented under a repeated line this tells a warning by (a Python warning's source line) are
repeats too (`tree._Repeats`)."""
REPEATED_BLOCKS: dict[ContentKind, Callable[[Sequence[str]], set[int]]] = {ContentKind.SHELL: shell.repeated_failures}
"""Kinds whose blocks of lines may repeat an earlier block whole (a failure printed again for each test): the lines
of a repeat fold, as a line alike one above does (`tree._Repeats`)."""
REASONS: dict[ContentKind, Callable[[Joined], list[int]]] = {ContentKind.SHELL: shell.reasons}
"""Kinds whose lines saying why a run failed are told apart (a test's `E   ValueError: ...`): the few first of them
keep the larger share of the budget among the lines required (`tree._REQUIRED_SHARE`)."""
WHOLE_LINES = frozenset({ContentKind.LISTING})
"""Kinds whose lines are never cut into pieces, however long."""
TABLES = frozenset({ContentKind.LOG, ContentKind.PROSE, ContentKind.RECORDS, ContentKind.SHELL, ContentKind.OTHER})
"""Kinds whose lines may be rows of a table (CSV, command output): the rows that stand out count more."""
