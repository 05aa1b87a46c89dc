"""Plain aligned text: what a table prints when stdout is not a terminal (a pipe, a file, a
CI log), as ``gh`` and ``sqlite-utils`` do — no box characters, no colour, no trailing
spaces, and no wrapping (a pipe has no width): columns are separated by two spaces, every
line holds one whole row, so ``grep``, ``awk`` and ``cut`` see whole values.

Does not import rich.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ..result import Check, Computation, Listing, Sweep
from .cells import (
    column_table,
    extra_tables,
    is_table,
    listing_cell,
    listing_headers,
    outcome_notes,
    single_rows,
    single_title,
    sweep_cells,
    sweep_headers,
    sweep_lists,
    sweep_title,
)
from .chart import list_section
from .text import visible

GAP = "  "
# The width a list result's entries are wrapped to off a terminal.
LIST_WIDTH = 100


def aligned(
    header: Sequence[str] | None, rows: Sequence[Sequence[str]], right: Sequence[bool] = ()
) -> list[str]:
    """Lines of a column-aligned table (the last column unpadded, no trailing spaces)."""
    table = ([list(header)] if header is not None else []) + [[visible(c) for c in row] for row in rows]
    if not table:
        return []
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for row in table:
        cells = []
        for i, cell in enumerate(row):
            if i < len(right) and right[i]:
                cells.append(cell.rjust(widths[i]))
            elif i == len(row) - 1:
                cells.append(cell)
            else:
                cells.append(cell.ljust(widths[i]))
        lines.append(GAP.join(cells).rstrip())
    return lines


def _checks(checks: tuple[Check, ...], rows_of: Sequence[int] | None = None) -> list[str]:
    header = ["name", "expected", "found", "tolerance", "ok"]
    cells = [[c.name, c.expected, c.found, f"±{c.tolerance}", "ok" if c.ok else "MISMATCH"] for c in checks]
    if rows_of is not None:
        header = ["row", *header]
        cells = [[str(index), *row] for index, row in zip(rows_of, cells)]
    return ["checks", *aligned(header, cells)]


def single_lines(computation: Computation) -> list[str]:
    lines = [visible(single_title(computation))]
    lines += aligned(["result", "value", "description"], [list(row) for row in single_rows(computation)])
    if computation.columns:
        header, rows = column_table(computation)
        lines += ["", *aligned(header, rows)]
    for quantity in computation.results:
        if quantity.is_list and quantity.name not in computation.columns:
            title, header, rows = list_section(quantity, computation.digits, LIST_WIDTH)
            lines += ["", title, *(aligned(header, rows, right=[True]) if rows else [])]
    if any(q.closed_form for q in computation.results) or computation.derivation:
        lines.append("derivation")
        lines += [f"  {visible(text)}" for _label, text, _latex in computation.derivation]
        lines += [f"  {q.name} = {visible(q.closed_form)}" for q in computation.results if q.closed_form]
    lines += [f"note: {visible(note)}" for note in computation.notes]
    for title, header, rows in extra_tables(computation):
        lines += ["", title, *aligned(header, rows)]
    for key, value in computation.extra.items():
        if is_table(value):
            continue
        lines += [
            f"{key.rstrip('s')}: {visible(str(item))}"
            for item in (value if isinstance(value, list) else [value])
        ]
    if computation.checks:
        lines += _checks(computation.checks)
    return lines


def sweep_lines(sweep: Sweep) -> list[str]:
    inputs, results = sweep_headers(sweep)
    cells = sweep_cells(sweep)
    lines = [visible(sweep_title(sweep))]
    lines += aligned([*inputs, *results], [[*i, *r] for i, r in cells])
    for title, header, rows in sweep_lists(sweep, LIST_WIDTH):
        lines += ["", visible(title), *(aligned(header, rows, right=[True]) if rows else [])]
    lines += [f"note: {visible(note)}" for note in outcome_notes(sweep)]
    if sweep.checks:
        rows_of = [index for index, row in enumerate(sweep.rows) for _ in row.checks]
        lines += _checks(sweep.checks, rows_of)
    return lines


def listing_lines(listing: Listing) -> list[str]:
    lines = [visible(listing.title or listing.command)]
    rows = [[listing_cell(row.get(column)) for column in listing.columns] for row in listing.rows]
    lines += aligned(listing_headers(listing), rows)
    lines += [f"note: {visible(note)}" for note in listing.notes]
    if listing.ok is not None:
        lines.append("all ok" if listing.ok else "FAILED")
    return lines


def render_plain(result: Computation | Sweep | Listing, out: TextIO) -> None:
    if isinstance(result, Listing):
        lines = listing_lines(result)
    elif isinstance(result, Sweep):
        lines = sweep_lines(result)
    else:
        lines = single_lines(result)
    out.write("".join(line.rstrip() + "\n" for line in lines))
