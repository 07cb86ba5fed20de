"""The public API: every type a public signature names is exported from `summarizer`, each under one name.

Public: the names of `summarizer.__all__`, and the public fields, properties and methods (with
`__init__` and `__call__`) that exported classes define. A type is named by an annotation's class or
by a type alias of the package (`JsonValue`, `PolicyKind`), whose own names count too.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import dataclasses
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import summarizer
from summarizer import Compactor, Rewrite, compact_stored, history_identity, record_rewrite
from summarizer.cli import main

EXPORTED = {name: getattr(summarizer, name) for name in summarizer.__all__}


def summarizer_modules() -> list[ModuleType]:
    """The package's modules that `import summarizer` loads: where every type of its public API is defined."""
    return [module for name, module in sorted(sys.modules.items()) if name.split('.')[0] == 'summarizer']


def package_aliases() -> dict[int, tuple[ModuleType, ast.expr]]:
    """The package's type aliases (`X: TypeAlias = ...`, `X = A | B`, `X = Literal[...]`): object id -> definition."""
    aliases: dict[int, tuple[ModuleType, ast.expr]] = {}
    for module in summarizer_modules():
        for node in ast.parse(inspect.getsource(module)).body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                is_alias = isinstance(node.annotation, ast.Name) and node.annotation.id == 'TypeAlias'
                name, value = node.target.id, node.value
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                is_alias = isinstance(node.value, (ast.Subscript, ast.BinOp))
                name, value = node.targets[0].id, node.value
            else:
                continue
            obj = getattr(module, name, None)
            if is_alias and obj is not None and not isinstance(obj, (type, int, float, tuple, frozenset)):
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    value = ast.parse(value.value, mode='eval').body  # a string alias (a recursive one)
                aliases[id(obj)] = (module, value)
    return aliases


ALIASES = package_aliases()


def named_types(annotation: object, namespace: dict[str, object]) -> Iterator[tuple[str, object]]:
    """(name, object) of each name in an annotation (a string, as `from __future__ import annotations` keeps it)."""
    assert isinstance(annotation, str), f'{annotation!r}: every module of the package defers its annotations'
    yield from _names(ast.parse(annotation, mode='eval').body, namespace)


def _names(node: ast.expr, namespace: dict[str, object]) -> Iterator[tuple[str, object]]:
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).split('.')[-1] == 'Literal':
        yield from _names(node.value, namespace)
        return
    if isinstance(node, (ast.Name, ast.Attribute)):
        dotted = ast.unparse(node)
        root, *rest = dotted.split('.')
        assert root in namespace or hasattr(builtins, root), f'{dotted}: not resolvable at run time'
        obj = namespace[root] if root in namespace else getattr(builtins, root)
        for part in rest:
            obj = getattr(obj, part)
        yield dotted, obj
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            yield from _names(child, namespace)


def public_signatures() -> Iterator[tuple[str, object, dict[str, object]]]:
    """(where, annotation, the namespace it is read in) for every annotation of the public API."""
    for name, value in EXPORTED.items():
        if inspect.isclass(value):
            yield from _class_signatures(name, value)
        elif callable(value):
            yield from _function_signatures(name, value)


def _function_signatures(
    where: str, function: Callable[..., object]
) -> Iterator[tuple[str, object, dict[str, object]]]:
    namespace = getattr(inspect.unwrap(function), '__globals__', {})
    for parameter, annotation in inspect.get_annotations(function).items():
        yield f'{where}({parameter})', annotation, namespace


def _class_signatures(name: str, cls: type) -> Iterator[tuple[str, object, dict[str, object]]]:
    for klass in cls.__mro__:
        if not klass.__module__.startswith('summarizer'):
            continue
        namespace = vars(sys.modules[klass.__module__])
        for field, annotation in inspect.get_annotations(klass).items():
            if not field.startswith('_'):
                yield f'{name}.{field}', annotation, namespace
        for member, value in vars(klass).items():
            if member.startswith('_') and member not in ('__init__', '__call__'):
                continue
            if dataclasses.is_dataclass(klass) and member == '__init__':
                continue  # its parameters are the fields above
            function = value.fget if isinstance(value, property) else getattr(value, '__func__', value)
            if inspect.isfunction(function) and function.__module__.startswith('summarizer'):
                yield from _function_signatures(f'{name}.{member}', function)


def unexported(annotation: object, namespace: dict[str, object], seen: set[int]) -> Iterator[str]:
    for dotted, obj in named_types(annotation, namespace):
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        exported = any(obj is value for value in EXPORTED.values())
        if inspect.isclass(obj) and obj.__module__.startswith('summarizer') and not exported:
            yield f'{dotted} ({obj.__module__})'
        elif id(obj) in ALIASES:
            module, definition = ALIASES[id(obj)]
            if not exported:
                yield f'{dotted} ({module.__name__})'
            yield from unexported(ast.unparse(definition), vars(module), seen)


def test_every_type_of_a_public_signature_is_exported() -> None:
    missing: dict[str, str] = {}
    for where, annotation, namespace in public_signatures():
        for name in unexported(annotation, namespace, set()):
            missing.setdefault(name, where)
    assert not missing, '\n'.join(f'{name}, in {where}' for name, where in sorted(missing.items()))


def test_one_name_per_exported_object() -> None:
    names: dict[int, list[str]] = {}
    for name, value in EXPORTED.items():
        if not isinstance(value, str):
            names.setdefault(id(value), []).append(name)
    assert [group for group in names.values() if len(group) > 1] == []


def test_the_documented_stored_path_is_undone_by_restore(old_schema_file: Path) -> None:
    """docs/agent.md's `compact_stored` recipe, in public names only: `summarizer restore` puts the file back."""
    path = old_schema_file
    raw = path.read_bytes()
    compactor = Compactor(keep_recent=0)
    result = asyncio.run(compact_stored(raw, compactor))
    assert result.text is not None and result.report.summarized == 2
    rewrite = Rewrite(before=[raw.decode('utf-8')], after=[result.text], replaced=result.replaced)
    assert record_rewrite(compactor.originals, rewrite, identity=history_identity(str(path.resolve()))) is None
    path.write_text(result.text, encoding='utf-8')
    assert main(['restore', str(path), '--in-place']) == 0
    assert path.read_bytes() == raw
