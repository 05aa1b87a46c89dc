"""CSV: a header row, then one row per result (single computation) or per sweep point.

List-valued results are written as their decimals joined by spaces. In a sweep the input
columns are named ``input.NAME`` so they never clash with a result of the same name.
"""

from __future__ import annotations

import csv
import io

from ..engine.numbers import to_text
from ..result import Computation, Listing, Numerals, Sweep
from .document import quantity_document


def _cell(value: object) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k} = {v}" for k, v in value.items())
    if isinstance(value, Numerals):
        return " ".join(value)
    if isinstance(value, list):
        return " ".join(["" if v is None else str(v) for v in value])
    return "" if value is None else str(value)


def render_csv(result: Computation | Sweep | Listing) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if isinstance(result, Listing):
        writer.writerow(result.columns)
        for row in result.rows:
            writer.writerow([_cell(row.get(column)) for column in result.columns])
    elif isinstance(result, Sweep):
        first = result.rows[0]
        writer.writerow([*(f"input.{name}" for name in first.inputs), *first.names])
        for row in result.rows:
            inputs = [v if isinstance(v, str) else to_text(v) for v in row.inputs.values()]
            decimals = [_cell(quantity_document(q, row.digits)["decimal"]) for q in row.results]
            writer.writerow([*inputs, *decimals])
    else:
        writer.writerow(["name", "value", "decimal", "description"])
        for quantity in result.results:
            doc = quantity_document(quantity, result.digits)
            writer.writerow([quantity.name, _cell(doc["value"]), _cell(doc["decimal"]), quantity.description])
    return buffer.getvalue()
