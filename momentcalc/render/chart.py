"""A list-valued result under a table (``list_section``), and ``--chart``'s bars of a sweep.

A list-valued result (a ``--depth`` trajectory, Hermite coefficients, per-layer weights) shows
every entry as its result is printed (correctly rounded at ``--digits``): up to MAX_ROWS
entries one a row with a bar; more wrapped into rows of several entries, the row's first
index in front (no bars: the figure of ``--plot`` draws the shape); more than MAX_LISTED, too
many for a terminal, a line saying that CSV and JSON list them — never a sample of them.

``--chart``: a bar per sweep point. Values spanning more than LOG_SPAN (a factor of 1000) are
drawn on a log scale, so that weights decaying like 2^(−k/2) show as a ramp rather than as
one bar and many empty rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import mpmath
from mpmath import mp
from ..engine.precision import to_decimal
from ..result import BulkValues, Quantity

if TYPE_CHECKING:
    from rich.table import Table

MAX_ROWS = 40
# A list result longer than this is not listed in a table (CSV and JSON give every entry).
MAX_LISTED = 5000
# Entries a wrapped row may hold (the most that fit the width is taken).
PER_ROW = (10, 8, 5, 4, 2, 1)
WIDTH = 40
LOG_SPAN = 1000
SHOWN_DIGITS = 6
# On a log scale the smallest bar keeps this fraction of the width, so that it is visible.
LOG_FLOOR = 0.05
EIGHTHS = "▏▎▍▌▋▊▉"


def _buckets(count: int) -> list[tuple[int, int]]:
    if count <= MAX_ROWS:
        return [(i, i) for i in range(count)]
    size = -(-count // MAX_ROWS)
    return [(start, min(start + size, count) - 1) for start in range(0, count, size)]


def _largest(values: Sequence[mpmath.mpf], buckets: list[tuple[int, int]]) -> list[mpmath.mpf]:
    """The entry of largest |value| in each bucket (``BulkValues`` know where it is without
    computing the others)."""
    if len(buckets) == len(values):
        return list(values)
    if isinstance(values, BulkValues):
        return [values.largest(first, last) for first, last in buckets]
    return [max(values[first : last + 1], key=abs) for first, last in buckets]


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
    values: Sequence[mpmath.mpf],
    digits: int,
    labels: Sequence[str] | None = None,
    texts: Sequence[str | None] | None = None,
) -> tuple[str, list[tuple[str, str, str]]]:
    """The chart's title and its rows (index or index range — or the ``labels`` of the entries,
    a sweep's inputs, one row each — then value and bar). ``texts``: what a sweep's point
    without a value shows in place of its value (its outcome), with no bar."""
    if texts is not None and any(text is not None for text in texts):
        title, rows = chart_rows(
            name,
            [value for value, text in zip(values, texts) if text is None],
            digits,
            [label for label, text in zip(labels or (), texts) if text is None],
        )
        drawn = iter(rows)
        return title, [
            next(drawn) if text is None else (label, text, "") for label, text in zip(labels or (), texts)
        ]
    buckets = _buckets(len(values)) if labels is None else [(i, i) for i in range(len(values))]
    shown = _largest(values, buckets)
    fractions, log_scale = _fractions(shown)
    notes = []
    if len(buckets) < len(values):
        notes.append(f"largest of each {buckets[0][1] + 1} entries")
    if log_scale:
        notes.append("log scale")
    title = name + (f"  ({', '.join(notes)})" if notes else "")
    places = min(digits, SHOWN_DIGITS)
    rows = []
    for (first, last), value, fraction in zip(buckets, shown, fractions):
        if labels is None:
            label = str(first) if first == last else f"{first}-{last}"
        else:
            label = labels[first] if first == last else f"{labels[first]} .. {labels[last]}"
        rows.append((label, to_decimal(value, places), _bar(fraction)))
    return title, rows


def list_section(quantity: Quantity, digits: int, width: int) -> tuple[str, list[str], list[list[str]]]:
    """A list-valued result under a table: (title, header, rows), every entry at ``digits``."""
    count = len(quantity.value)
    if count > MAX_LISTED:
        title = (
            f"{quantity.name}  ({count} values, more than a table lists ({MAX_LISTED}): "
            "--format csv or json gives every one)"
        )
        return title, [], []
    texts = quantity.decimal(digits)
    if count <= MAX_ROWS:
        fractions, log_scale = _fractions(list(quantity.value))
        title = quantity.name + ("  (log scale)" if log_scale else "")
        rows = [[str(i), text, _bar(f)] for i, (text, f) in enumerate(zip(texts, fractions))]
        return title, ["index", "value", "bar"], rows
    cell = max(len(text) for text in texts) + 2
    index = max(len(str(count - 1)), len("index")) + 2
    per_row = next((k for k in PER_ROW if index + k * cell <= width), 1)
    rows = [
        [str(start), *texts[start : start + per_row], *[""] * (start + per_row - count)]
        for start in range(0, count, per_row)
    ]
    title = f"{quantity.name}  ({count} values; entry = row index + column)"
    return title, ["index", *(f"+{j}" for j in range(per_row))], rows


def bar_chart(
    name: str,
    values: Sequence[mpmath.mpf],
    digits: int,
    labels: Sequence[str] | None = None,
    label_header: str = "index",
    texts: Sequence[str | None] | None = None,
) -> Table:
    """The chart as a rich table (no box), bars in cyan."""
    from rich.table import Table

    title, rows = chart_rows(name, values, digits, labels, texts)
    table = Table(title=title, title_justify="left", show_header=True, box=None)
    table.add_column(label_header, justify="right", style="dim")
    table.add_column("value")
    table.add_column("bar")
    for label, value, bar in rows:
        table.add_row(label, value, f"[cyan]{bar}[/]")
    return table
