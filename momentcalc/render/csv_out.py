"""CSV, tidy (one observation per row), the same form for every command:

- the header is the inputs (``input.NAME``, so that an input never clashes with a result of
  the same name, e.g. truncnorm's ``--std`` and its result ``std``), then the results by name,
  in the command's fixed order;
- a single computation is one data row, a sweep one row per point, with a ``status`` column
  after the inputs: ``ok``, a decided outcome's kind (``no_fixed_point``, ``explodes``, ...)
  or ``refused``; a point without results has its result cells empty;
- a list-valued result (per-layer weights) adds a ``layer`` column after the inputs and gives
  one row per layer, the scalar results repeated on each row;
- cells hold the inputs as exact text and the results' ``decimal``;
- a Monte Carlo estimate keeps its ± as a ``NAME_stderr`` column right after it (the standard
  error to 2 significant digits, as the table shows it; JSON's ``stderr``), unless the command
  already reports a result of that name.

Listings (verify, constants, activations) are one row per item with their columns.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Set as AbstractSet
from typing import cast

from ..engine.numbers import Number, to_text
from ..result import Computation, Listing, NoResult, Sweep
from .document import quantity_document
from .text import visible
from ..engine.precision import to_decimal

LAYER = "layer"


def _cell(value: object) -> str:
    """A cell's text, with control characters (ESC, BEL, CR … from an expression the user
    typed) as backslash escapes (``text.visible``): a CSV shown in a terminal must not drive it."""
    return visible(_text(value))


def _text(value: object) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k} = {v}" for k, v in value.items())
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(["" if v is None else str(v) for v in value])
    if value is None:
        return ""
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)  # a plain float cell (identify's rel_error); to_text reads floats as infinities
    return value if isinstance(value, str) else to_text(cast(Number, value))  # an input: a number here


def _line(cells: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    return buffer.getvalue()


STDERR_SUFFIX = "_stderr"


STATUS = "status"


def _stderr_names(rows: tuple[Computation, ...]) -> set[str]:
    """The scalar results that are estimates (with a standard error) in some row."""
    if not rows:
        return set()
    first = rows[0]
    return {
        q.name
        for q in first.results
        if not q.is_list
        and q.name + STDERR_SUFFIX not in first.names
        and any(row[q.name].stderr is not None for row in rows)
    }


def _points(
    row: Computation,
    with_layer: bool,
    with_stderr: AbstractSet[str] = frozenset(),
    status: bool = False,
) -> list[str]:
    """The CSV lines of one computation: one, or one per layer."""
    inputs = [_cell(value) for value in row.inputs.values()] + (["ok"] if status else [])
    decimals: list = []
    for q in row.results:
        decimals.append(quantity_document(q, row.digits)["decimal"])
        if q.name in with_stderr:
            decimals.append("" if q.stderr is None else to_decimal(q.stderr, 2))
    if not with_layer:
        return [_line([*inputs, *decimals])]
    # Decimals never need quoting, so the lines are joined directly (10^6 layers).
    head = _line(inputs).rstrip("\n")
    head = head + "," if inputs else head
    lists = [(i, d) for i, d in enumerate(decimals) if isinstance(d, list)]
    layers = max(len(d) for _, d in lists)
    scalars = [_line([d]).rstrip("\n") if isinstance(d, str) else None for d in decimals]
    if len(lists) == 1 and len(lists[0][1]) == layers:
        at = lists[0][0]
        # the other decimals are scalars (one list): every s below is a str
        before = "".join(s + "," for s in scalars[:at] if s is not None)
        after = "".join("," + s for s in scalars[at + 1 :] if s is not None)
        return [f"{head}{k},{before}{value}{after}\n" for k, value in enumerate(lists[0][1])]
    lines = []
    for k in range(layers):
        cells = [
            s if s is not None else (decimals[i][k] if k < len(decimals[i]) else "")
            for i, s in enumerate(scalars)
        ]
        lines.append(f"{head}{k}," + ",".join(cells) + "\n")
    return lines


def render_csv(result: Computation | Sweep | Listing) -> str:
    if isinstance(result, Listing):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        for entry in result.rows:
            writer.writerow([_cell(entry.get(column)) for column in result.columns])
        return buffer.getvalue()
    sweep = isinstance(result, Sweep)
    rows = result.rows if isinstance(result, Sweep) else (result,)
    computed = tuple(row for row in rows if isinstance(row, Computation))
    first = computed[0] if computed else None
    with_layer = first is not None and any(q.is_list for q in first.results)
    stderr = _stderr_names(computed)
    results = [
        column
        for name in (first.names if first is not None else ())
        for column in (name, *([name + STDERR_SUFFIX] if name in stderr else []))
    ]
    header = [
        *(f"input.{name}" for name in (first or rows[0]).inputs),
        *([STATUS] if sweep else []),
        *([LAYER] if with_layer else []),
        *results,
    ]
    lines = [_line(header)]
    for row in rows:
        if isinstance(row, NoResult):
            empty = [""] * (len(results) + (1 if with_layer else 0))
            lines.append(_line([*(_cell(value) for value in row.inputs.values()), row.status, *empty]))
        else:
            lines.extend(_points(row, with_layer, stderr, status=sweep))
    return "".join(lines)
