"""The package's layers: each imports only from the layers below it, and only what a package exports.

Every import counts, at module level or inside a function (a lazy import from a lower layer to a
higher one is still an upward import). `python tests/test_layout.py` prints which packages each
package imports.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / 'summarizer'
LAYERS = ('core', 'extractive', 'pipeline', 'stored', 'engines', 'capability', 'eval', 'cli')
"""Bottom first: a package may import from the ones before it, never from one after it."""


def _module(path: Path) -> tuple[str, bool]:
    """Dotted name of a module file, and whether it is a package's `__init__`."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix('').parts)
    if parts[-1] == '__init__':
        return '.'.join(parts[:-1]), True
    return '.'.join(parts), False


def _layer(module: str) -> str:
    """The layer a module is in ('summarizer' for the package's own `__init__`)."""
    parts = module.split('.')
    return parts[1] if len(parts) > 1 else 'summarizer'


def imports() -> list[tuple[str, str, int]]:
    """(importing module, imported summarizer module, line) for every import in the package."""
    found: list[tuple[str, str, int]] = []
    for path in sorted(PACKAGE.rglob('*.py')):
        module, is_package = _module(path)
        here = module if is_package else module.rpartition('.')[0]
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            if isinstance(node, ast.ImportFrom):
                base = here.split('.')[: len(here.split('.')) - node.level + 1] if node.level else []
                target = '.'.join([*base, node.module] if node.module else base)
                for alias in node.names:  # `from package import module` imports that module
                    file = PACKAGE.parent / f'{target}.{alias.name}'.replace('.', '/')
                    is_module = file.with_suffix('.py').exists() or file.is_dir()
                    found.append((module, f'{target}.{alias.name}' if is_module else target, node.lineno))
            elif isinstance(node, ast.Import):
                found += [(module, alias.name, node.lineno) for alias in node.names]
    return [(module, target, line) for module, target, line in found if target.split('.')[0] == 'summarizer']


def package_imports() -> dict[str, set[str]]:
    """Each layer, and the other layers it imports from."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module, target, _ in imports():
        if _layer(module) != _layer(target):
            graph[_layer(module)].add(_layer(target))
    return graph


def test_no_layer_imports_a_higher_one() -> None:
    upward = [
        f'{module}:{line} imports {target}'
        for module, target, line in imports()
        if _layer(module) in LAYERS
        and (_layer(target) not in LAYERS or LAYERS.index(_layer(target)) > LAYERS.index(_layer(module)))
    ]
    assert upward == []


def test_no_module_reaches_into_another_packages_private_module() -> None:
    """Across packages, a module imports what the package exports (its `__init__`) or a public module of it."""
    private = [
        f'{module}:{line} imports {target}'
        for module, target, line in imports()
        if _layer(module) != _layer(target) and any(part.startswith('_') for part in target.split('.')[2:])
    ]
    assert private == []


def test_every_layer_is_a_package_and_nothing_else_sits_beside_them() -> None:
    top = {path.name for path in PACKAGE.iterdir() if not path.name.startswith('__')}
    assert top == {*LAYERS, 'py.typed'}


if __name__ == '__main__':
    for layer in (*LAYERS, 'summarizer'):
        print(f'{layer}: {", ".join(sorted(package_imports().get(layer, ()), key=(*LAYERS, "summarizer").index))}')
