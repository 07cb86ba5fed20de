"""Results of a benchmark run: sections of rows, targets, the machine; printed with rich, saved as JSON."""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.table import Table

Cell = str | int | float | bool | None


@dataclass(frozen=True)
class Target:
    """One target of the issue: `value` must be at most / at least / equal to `bound`."""

    name: str
    value: float
    bound: float
    kind: Literal['at most', 'at least', 'equal to']

    @property
    def met(self) -> bool:
        if self.kind == 'at most':
            return self.value <= self.bound
        if self.kind == 'at least':
            return self.value >= self.bound
        return self.value == self.bound


@dataclass
class Section:
    title: str
    columns: list[str]
    rows: list[dict[str, Cell]] = field(default_factory=list[dict[str, Cell]])
    targets: list[Target] = field(default_factory=list[Target])
    notes: list[str] = field(default_factory=list[str])


def machine() -> dict[str, Cell]:
    """What the numbers came from (they mean little without it)."""
    return {
        'cpus': os.cpu_count(),
        'cpu_model': _cpu_model(),
        'python': platform.python_version(),
        'platform': platform.platform(),
        'pydantic_ai_slim': _version('pydantic-ai-slim'),
        'pydantic_ai_harness': _version('pydantic-ai-harness'),
    }


def _cpu_model() -> str:
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown'


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _format(value: Cell) -> str:
    if isinstance(value, float):
        if 0 < abs(value) < 0.1:
            return f'{value:.2g}'  # a small ratio (0.0069 x raw JSON) keeps two significant digits, not 0.01
        return f'{value:,.2f}' if abs(value) < 100 else f'{value:,.0f}'
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    return '' if value is None else f'{value:,}' if isinstance(value, int) else str(value)


def print_sections(sections: list[Section], console: Console | None = None) -> None:
    console = console or Console(file=sys.stdout, width=max(Console().width, 150))
    for section in sections:
        table = Table(title=section.title, title_justify='left')
        for column in section.columns:
            table.add_column(column, justify='left' if column == section.columns[0] else 'right')
        for row in section.rows:
            table.add_row(*(_format(row.get(column)) for column in section.columns))
        console.print(table)
        for note in section.notes:
            console.print(f'  [dim]{note}[/dim]')
    targets = [target for section in sections for target in section.targets]
    if targets:
        table = Table(title='Targets', title_justify='left')
        for column in ('target', 'value', 'bound', 'met'):
            table.add_column(column, justify='left' if column == 'target' else 'right')
        for target in targets:
            met = '[green]yes[/green]' if target.met else '[red]NO[/red]'
            table.add_row(target.name, _format(target.value), f'{target.kind} {_format(target.bound)}', met)
        console.print(table)


def write_json(sections: list[Section], path: Path, *, settings: dict[str, Cell]) -> None:
    document = {
        'machine': machine(),
        'settings': settings,
        'sections': [asdict(section) for section in sections],
        'targets': [{**asdict(target), 'met': target.met} for section in sections for target in section.targets],
    }
    path.write_text(json.dumps(document, indent=2) + '\n', encoding='utf-8')
