"""What a table shows, as plain strings: the same cells for the rich table (a terminal, or
``--format table``) and the plain aligned text printed off a terminal (``plain``).

A sweep's swept input that has the name of a result (truncnorm's ``--std`` and its result
``std``) is headed ``input.NAME``, as in CSV, so that no two columns share a header. A point
without results shows its outcome ("no fixed point", "explodes at layer 12") or "refused" in
its first result cell, the others empty; a note under the table says what each outcome means.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from ..engine.numbers import Number, to_text
from ..engine.precision import to_decimal
from ..result import Computation, Listing, NoResult, Quantity, Sweep
from .chart import MAX_LISTED, list_section
from .document import shown_digits

INPUT_PREFIX = "input."


def input_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else to_text(cast(Number, value))  # an input: a number here


def inputs_line(inputs: Mapping[str, object], skip: tuple[str, ...] = ()) -> str:
    return "  ".join(f"{name}={input_text(value)}" for name, value in inputs.items() if name not in skip)


def certified_mark(quantities: tuple[Quantity, ...] | list[Quantity]) -> str:
    """ "  certified" for a title line when every result shown is proven."""
    return "  certified" if quantities and all(q.certified for q in quantities) else ""


def shown_value(quantity: Quantity, digits: int, with_stderr: bool = True, where: str = "chart") -> str:
    """A scalar result as printed: its decimal, and ``± stderr`` for an estimate."""
    if quantity.is_list:
        return f"{len(quantity.value)} values ({'table' if where == 'table' else 'shown'} below)"
    if quantity.outward:
        decimal = quantity.decimal(digits)
        assert isinstance(decimal, str)  # a scalar's decimal is a str
        shown = decimal
    else:
        shown = to_decimal(quantity.rounded_from, shown_digits(quantity, digits))
    if with_stderr and quantity.stderr is not None:
        shown += f" ± {to_decimal(quantity.stderr, 2)}"
    return shown


def single_title(computation: Computation) -> str:
    return f"{computation.command}  {inputs_line(computation.inputs)}{certified_mark(computation.results)}"


def single_rows(computation: Computation) -> list[tuple[str, str, str]]:
    """(result, value, description) per result."""
    return [
        (
            q.name,
            shown_value(q, computation.digits, where="table" if q.name in computation.columns else "chart"),
            q.description,
        )
        for q in computation.results
    ]


def column_table(computation: Computation) -> tuple[list[str], list[list[str]]]:
    """The list results of ``computation.columns`` side by side: (header, rows), one row per
    index (a shorter list leaves its cell empty)."""
    columns = [computation[name] for name in computation.columns]
    texts = [list(q.decimal(computation.digits)) for q in columns]
    count = max((len(t) for t in texts), default=0)
    rows = [[str(i), *(t[i] if i < len(t) else "" for t in texts)] for i in range(count)]
    return ["index", *computation.columns], rows


def extra_tables(computation: Computation) -> list[tuple[str, list[str], list[list[str]]]]:
    """The ``extra`` values that are lists of dicts, as (title, header, rows) tables."""
    tables = []
    for key, value in computation.extra.items():
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            header = list(value[0])
            tables.append((key, header, [[listing_cell(item.get(h)) for h in header] for item in value]))
    return tables


def is_table(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


# A decided outcome's kind as a table cell and a figure's legend say it.
OUTCOME_LABELS = {
    "no_fixed_point": "no fixed point",
    "no_edge_of_chaos": "no edge of chaos",
    "explodes": "explodes",
    "collapses": "collapses",
    "diverges": "diverges",
    "unreachable": "unreachable",
    "refused": "refused",
}
# The one header of a sweep whose points all lack results.
OUTCOME_HEADER = "outcome"


def outcome_label(kind: str) -> str:
    return OUTCOME_LABELS.get(kind, kind.replace("_", " "))


def outcome_cell(row: NoResult) -> str:
    """A point without results in one short cell: "no fixed point", "explodes at layer 12",
    "refused"."""
    label = outcome_label(row.status)
    return f"{label} at layer {row.layer}" if row.layer is not None and row.decided else label


def first_computed(sweep: Sweep) -> Computation | None:
    return next((row for row in sweep.rows if isinstance(row, Computation)), None)


def scalar_names(sweep: Sweep) -> list[str]:
    first = first_computed(sweep)
    return [] if first is None else [q.name for q in first.results if not q.is_list]


def outcome_notes(sweep: Sweep) -> list[str]:
    """One note per decided outcome (how many points, where the first is, and its message) and
    one for the refused points (their reasons are on stderr)."""
    kinds: dict[str, list[NoResult]] = {}
    for row in sweep.rows:
        if isinstance(row, NoResult):
            kinds.setdefault(row.status, []).append(row)
    notes = []
    for kind, rows in kinds.items():
        count = f"{len(rows)} point{'s' if len(rows) > 1 else ''}"
        where = inputs_line({name: rows[0].inputs.get(name) for name in sweep.swept})
        if kind == "refused":
            notes.append(
                f"{outcome_label(kind)} ({count}): not proven or past a limit; each reason is on stderr"
            )
        else:
            first = "" if len(rows) == 1 else "first "
            notes.append(f"{outcome_label(kind)} ({count}; {first}at {where}): {rows[0].message}")
    return notes


def sweep_title(sweep: Sweep) -> str:
    scalar = scalar_names(sweep)
    fixed = inputs_line(sweep.rows[0].inputs, skip=sweep.swept)
    certified = certified_mark([q for row in sweep.rows for q in row.results if q.name in scalar])
    return f"{sweep.command}  {fixed}  sweep over {', '.join(sweep.swept)}{certified}"


def sweep_headers(sweep: Sweep) -> tuple[list[str], list[str]]:
    """(input headers, result headers): a swept input named like a result is ``input.NAME``."""
    scalar = scalar_names(sweep)
    inputs = [INPUT_PREFIX + name if name in scalar else name for name in sweep.swept]
    return inputs, scalar or [OUTCOME_HEADER]


def sweep_cells(sweep: Sweep) -> list[tuple[list[str], list[str]]]:
    """Per row: (swept input texts, result decimals)."""
    scalar = scalar_names(sweep)
    width = max(1, len(scalar))
    return [
        (
            [input_text(row.inputs.get(name)) for name in sweep.swept],
            [outcome_cell(row), *[""] * (width - 1)]
            if isinstance(row, NoResult)
            else [shown_value(row[name], row.digits, with_stderr=False) for name in scalar],
        )
        for row in sweep.rows
    ]


def listing_cell(value: object, separator: str = "; ") -> str:
    """A listing's cell as text (a dict as ``k = v`` items, a list comma-separated)."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return separator.join(f"{k} = {v}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if value is True:
        return "ok"
    if value is False:
        return "FAIL"
    return str(value)


def listing_headers(listing: Listing) -> list[str]:
    return [listing.labels.get(column, column) for column in listing.columns]


def sweep_lists(sweep: Sweep, width: int) -> list[tuple[str, list[str], list[list[str]]]]:
    """A sweep's list-valued results under its table, one section per point and result, titled
    with the point's swept inputs; more entries in all than a table lists: one line saying so."""
    first = first_computed(sweep)
    names = [] if first is None else [q.name for q in first.results if q.is_list]
    lists = [(row, name) for row in sweep.computed for name in names if name in row.names]
    total = sum(len(row[name].value) for row, name in lists)
    if total > MAX_LISTED:
        title = (
            f"{', '.join(names)}: {total} values in all, more than a table lists ({MAX_LISTED}): "
            "--format csv or json gives every one"
        )
        return [(title, [], [])]
    return [
        list_section(row[name], sweep.digits, width, inputs_line({s: row.inputs[s] for s in sweep.swept}))
        for row, name in lists
    ]
