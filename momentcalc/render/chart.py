"""A list-valued result under a table (``list_section``), and ``--chart``'s bars of a sweep.

A list-valued result (a ``--depth`` trajectory, Hermite coefficients, per-layer weights) shows
every entry as its result is printed (correctly rounded at ``--digits``): up to MAX_ROWS
entries one a row with a bar; more wrapped into rows of several entries, the row's first
index in front (no bars: the figure of ``--plot`` draws the shape); more than MAX_LISTED, too
many for a terminal, a line saying that CSV and JSON list them — never a sample of them.

``--chart``: a bar per sweep point, its value as the table prints it. Values spanning more than LOG_SPAN (a factor of 1000) are
drawn on a log scale, so that weights decaying like 2^(−k/2) show as a ramp rather than as
one bar and many empty rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import mpmath
from mpmath import mp
from ..result import Quantity

if TYPE_CHECKING:
    from rich.table import Table

MAX_ROWS = 40
# A list result longer than this is not listed in a table (CSV and JSON give every entry).
MAX_LISTED = 5000
# Entries a wrapped row may hold (the most that fit the width is taken).
PER_ROW = (10, 8, 5, 4, 2, 1)
WIDTH = 40
LOG_SPAN = 1000
# On a log scale the smallest bar keeps this fraction of the width, so that it is visible.
LOG_FLOOR = 0.05
EIGHTHS = "▏▎▍▌▋▊▉"


def _bar(fraction: float) -> str:
    cells = round(fraction * WIDTH * 8)
    return "█" * (cells // 8) + (EIGHTHS[cells % 8 - 1] if cells % 8 else "")


def _fractions(shown: list[mpmath.mpf]) -> tuple[list[float], bool]:
    """Bar lengths in [0, 1], and whether they are on a log scale."""
    sizes = [abs(v) for v in shown]
    top = max(sizes, default=mpmath.mpf(0))
    if not top or not mpmath.isfinite(top):
        return [0.0 if not top else float(s == top) for s in sizes], False
    low = min(sizes)
    if low > 0 and top / low > LOG_SPAN:
        with mp.workdps(15):
            span = float(mpmath.log10(top / low))
            return [LOG_FLOOR + (1 - LOG_FLOOR) * float(mpmath.log10(s / low)) / span for s in sizes], True
    return [float(s / top) for s in sizes], False


def chart_rows(
    name: str,
    values: Sequence[mpmath.mpf | None],
    labels: Sequence[str],
    texts: Sequence[str],
) -> tuple[str, list[tuple[str, str, str]]]:
    """``--chart``: the chart's title and its rows, one per sweep point: its ``labels`` (the
    swept inputs), its ``texts`` (the value as the table prints it, at --digits; a point
    without a value, ``None`` in ``values``, its outcome) and a bar where it has a value."""
    fractions, log_scale = _fractions([value for value in values if value is not None])
    bars = iter(fractions)
    rows = [
        (label, text, "" if value is None else _bar(next(bars)))
        for label, text, value in zip(labels, texts, values)
    ]
    return name + ("  (log scale)" if log_scale else ""), rows


def list_section(
    quantity: Quantity, digits: int, width: int, where: str = ""
) -> tuple[str, list[str], list[list[str]]]:
    """A list-valued result under a table: (title, header, rows), every entry at ``digits``
    (``where``: a sweep point's inputs, for its title)."""
    count = len(quantity.value)
    name = f"{quantity.name} at {where}" if where else quantity.name
    if count > MAX_LISTED:
        title = f"{name}  ({count} values, more than a table lists ({MAX_LISTED}): --format csv or json gives every one)"
        return title, [], []
    texts = quantity.decimal(digits)
    if count <= MAX_ROWS:
        fractions, log_scale = _fractions(list(quantity.value))
        title = name + ("  (log scale)" if log_scale else "")
        rows = [[str(i), text, _bar(f)] for i, (text, f) in enumerate(zip(texts, fractions))]
        return title, ["index", "value", "bar"], rows
    cell = max(len(text) for text in texts) + 2
    index = max(len(str(count - 1)), len("index")) + 2
    per_row = next((k for k in PER_ROW if index + k * cell <= width), 1)
    rows = [
        [str(start), *texts[start : start + per_row], *[""] * (start + per_row - count)]
        for start in range(0, count, per_row)
    ]
    title = f"{name}  ({count} values; entry = row index + column)"
    return title, ["index", *(f"+{j}" for j in range(per_row))], rows


def bar_chart(
    name: str,
    values: Sequence[mpmath.mpf | None],
    labels: Sequence[str],
    label_header: str,
    texts: Sequence[str],
) -> Table:
    """The chart as a rich table (no box), bars in cyan."""
    from rich.table import Table

    title, rows = chart_rows(name, values, labels, texts)
    table = Table(title=title, title_justify="left", show_header=True, box=None)
    table.add_column(label_header, justify="right", style="dim")
    table.add_column("value")
    table.add_column("bar")
    for label, value, bar in rows:
        table.add_row(label, value, f"[cyan]{bar}[/]")
    return table
