"""Source code and numbered reads: definitions stay, indentation and numbers untouched, the quoted line kept."""

from __future__ import annotations

from extractive_checks import kept_lines

from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.outline import enclosing

SOURCE = [
    'import json',
    'from pathlib import Path',
    '',
    '',
    'class InventoryStore:',
    '    """Keeps stock levels on disk."""',
    '',
    '    def __init__(self, root: Path) -> None:',
    '        self.root = root',
    '        self._cache: dict[str, int] = {}',
    '',
]
for n in range(30):
    SOURCE += [
        f'    def adjust_{n}(self, sku: str, delta: int) -> int:',
        f'        level = self._cache.get(sku, {n})',
        '        level  +=  delta   # aligned on purpose',
        '        if level < 0:',
        f'            raise ValueError(f"negative stock for {{sku}} in bucket {n}")',
        '        self._cache[sku] = level',
        '        return level',
        '',
    ]
NUMBERED = '\n'.join(f'{number:6}\t{line}' for number, line in enumerate(SOURCE, start=1))


def test_a_numbered_read_keeps_its_outline_and_the_quoted_line_verbatim() -> None:
    assert detect_kind(NUMBERED) is ContentKind.CODE
    summary = summarize(NUMBERED, budget_tokens=400, quoted=('adjust_17',))
    assert isinstance(summary, str)
    kept = kept_lines(NUMBERED, summary)
    assert '     5\tclass InventoryStore:' in kept
    assert '     8\t    def __init__(self, root: Path) -> None:' in kept
    assert any(line.endswith('    def adjust_17(self, sku: str, delta: int) -> int:') for line in kept)
    definitions = [line for line in kept if '    def adjust_' in line]
    bodies = [line for line in kept if 'level' in line]
    assert len(definitions) >= 5 and len(definitions) > len(bodies)  # the outline before bodies


def test_plain_source_keeps_imports_and_signatures() -> None:
    text = '\n'.join(SOURCE)
    assert detect_kind(text) is ContentKind.CODE
    summary = summarize(text, budget_tokens=300)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert {'import json', 'from pathlib import Path', 'class InventoryStore:'} <= set(kept)


COMPILER = '\n'.join(
    [
        'from django.db import connection',
        '',
        '',
        'class InsertCompiler:',
        *[
            line
            for n in range(25)
            for line in (
                f'    def execute_batch_{n}(self, cursor, rows):',
                f'        if self.connection.features.can_return_rows_from_batch_{n}:',
                f'            return self.connection.ops.fetch_returned_rows_{n}(cursor)',
                f'        return [self.connection.ops.last_insert_id_{n}(cursor, self.query.meta.table_{n})]',
                '',
            )
        ],
    ]
)


def test_a_kept_code_line_brings_its_definitions() -> None:
    """`return self.connection.ops.fetch_returned_rows_3(cursor)` shows under its method and class, numbered."""
    numbered = '\n'.join(f'{number:>6}\t{line}' for number, line in enumerate(COMPILER.split('\n'), start=1))
    for text in (COMPILER, numbered):
        wanted = next(line for line in text.split('\n') if 'fetch_returned_rows_3(' in line)
        summary = summarize(text, budget_tokens=120, quoted=('self.connection.ops.fetch_returned_rows_3',))
        assert isinstance(summary, str)
        kept = kept_lines(text, summary)
        assert wanted in kept
        before = kept[: kept.index(wanted)]
        assert any('def execute_batch_3(' in line for line in before)
        assert any(line.lstrip(' \t0123456789').startswith('class ') for line in before)


def test_a_body_under_a_signature_over_several_lines_is_placed_by_its_def() -> None:
    """`) -> Optional[Node]:` closes the bracket `def check(` opened at its indentation: the body is placed by both,
    numbered or not, and the next method by its class alone."""
    source = [
        'class Rebuilder:',
        '    def check(',
        '        self,',
        '        node: Node,',
        '    ) -> Optional[Node]:',
        '        comment = node.comment',
        '        return parse(comment)',
        '',
        '    def visit(self, node: Node) -> None:',
        '        pass',
    ]
    numbered = [f'{number:>6}\t{line}' for number, line in enumerate(source, start=1)]
    for lines in (source, numbered):
        chains = enclosing(ContentKind.CODE, lines)
        assert chains[6] == (4, 1, 0)  # `return parse(...)`: the closing line, the `def`, the class
        assert chains[4] == (1, 0)
        assert chains[8] == (0,)  # `def visit` is the class's, not the first method's
