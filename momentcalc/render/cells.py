"""What a table shows, as plain strings: the same cells for the rich table (a terminal, or
``--format table``) and the plain aligned text printed off a terminal (``plain``).

A sweep's swept input that has the name of a result (truncnorm's ``--std`` and its result
``std``) is headed ``input.NAME``, as in CSV, so that no two columns share a header.
"""

from __future__ import annotations

from ..engine.numbers import to_text
from ..engine.precision import to_decimal
from ..result import Computation, Listing, Quantity, Sweep
from .document import shown_digits

INPUT_PREFIX = "input."


def input_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else to_text(value)  # type: ignore[arg-type]


def inputs_line(inputs: dict[str, object], skip: tuple[str, ...] = ()) -> str:
    return "  ".join(f"{name}={input_text(value)}" for name, value in inputs.items() if name not in skip)


def certified_mark(quantities: tuple[Quantity, ...] | list[Quantity]) -> str:
    """ "  certified" for a title line when every result shown is proven."""
    return "  certified" if quantities and all(q.certified for q in quantities) else ""


def shown_value(quantity: Quantity, digits: int, with_stderr: bool = True) -> str:
    """A scalar result as printed: its decimal, and ``± stderr`` for an estimate."""
    if quantity.is_list:
        return f"{len(quantity.value)} values (chart below)"  # type: ignore[arg-type]
    shown = to_decimal(quantity.rounded_from, shown_digits(quantity, digits))
    if with_stderr and quantity.stderr is not None:
        shown += f" ± {to_decimal(quantity.stderr, 2)}"
    return shown


def single_title(computation: Computation) -> str:
    return f"{computation.command}  {inputs_line(computation.inputs)}{certified_mark(computation.results)}"


def single_rows(computation: Computation) -> list[tuple[str, str, str]]:
    """(result, value, description) per result."""
    return [(q.name, shown_value(q, computation.digits), q.description) for q in computation.results]


def scalar_names(sweep: Sweep) -> list[str]:
    return [q.name for q in sweep.rows[0].results if not q.is_list]


def sweep_title(sweep: Sweep) -> str:
    scalar = scalar_names(sweep)
    fixed = inputs_line(sweep.rows[0].inputs, skip=sweep.swept)
    certified = certified_mark([q for row in sweep.rows for q in row.results if q.name in scalar])
    return f"{sweep.command}  {fixed}  sweep over {', '.join(sweep.swept)}{certified}"


def sweep_headers(sweep: Sweep) -> tuple[list[str], list[str]]:
    """(input headers, result headers): a swept input named like a result is ``input.NAME``."""
    scalar = scalar_names(sweep)
    inputs = [INPUT_PREFIX + name if name in scalar else name for name in sweep.swept]
    return inputs, scalar


def sweep_cells(sweep: Sweep) -> list[tuple[list[str], list[str]]]:
    """Per row: (swept input texts, result decimals)."""
    scalar = scalar_names(sweep)
    return [
        (
            [input_text(row.inputs[name]) for name in sweep.swept],
            [shown_value(row[name], row.digits, with_stderr=False) for name in scalar],
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
