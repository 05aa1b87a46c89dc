"""A horizontal bar chart of a list-valued result (e.g. per-layer weights), bucketed when long.

With more entries than MAX_ROWS, consecutive entries are grouped and each bar shows the
largest value of its group, labelled with the index range it covers.
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath
from rich.table import Table

from ..engine.precision import to_decimal

MAX_ROWS = 40
WIDTH = 40


def _buckets(count: int) -> list[tuple[int, int]]:
    if count <= MAX_ROWS:
        return [(i, i) for i in range(count)]
    size = -(-count // MAX_ROWS)
    return [(start, min(start + size, count) - 1) for start in range(0, count, size)]


def bar_chart(name: str, values: Sequence[mpmath.mpf], digits: int) -> Table:
    top = max((abs(v) for v in values), default=mpmath.mpf(0))
    table = Table(title=name, title_justify="left", show_header=True, box=None)
    table.add_column("index", justify="right", style="dim")
    table.add_column("value")
    table.add_column("bar")
    shown = min(digits, 6)
    for first, last in _buckets(len(values)):
        group = values[first : last + 1]
        value = max(group, key=abs)
        fraction = float(abs(value) / top) if top else 0.0
        cells = int(round(fraction * WIDTH * 8))
        bar = "█" * (cells // 8) + ("▏▎▍▌▋▊▉"[cells % 8 - 1] if cells % 8 else "")
        label = str(first) if first == last else f"{first}-{last}"
        table.add_row(label, to_decimal(value, shown), f"[cyan]{bar}[/]")
    return table
