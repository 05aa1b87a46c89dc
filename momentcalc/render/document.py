"""The JSON document of a result (SPEC: JSON version 1), as plain data.

Its shape follows the command line, never the data: a single computation has ``inputs`` and
``results``; a sweep syntax (a comma list or a range, even of one point) gives ``rows``; every
key of a shape is always present. ``momentcalc schema`` (``json_schema.json`` beside this file)
describes every document, error objects and listings included.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .._version import __version__
from ..engine.numbers import Number, decimal_text, to_text
from ..engine.precision import bound_double, directed_double, justified_digits, to_decimal, to_double
from ..engine.rounding import bound_text
from ..result import BulkValues, Check, Computation, Listing, NoResult, Quantity, Sweep

SCHEMA_VERSION = 1
_LARGEST_DOUBLE = Fraction(2) ** 1024


class ExactNumber(float):
    """An input whose exact decimal text is longer than its double's: the JSON writer prints
    ``text`` as the number (it is still the nearest double to anything that reads it as one)."""

    text: str

    def __new__(cls, text: str) -> ExactNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def input_json(value: Number | str | bool | None) -> Any:
    """An input in JSON: whole numbers as integers, other numbers as the exact decimal as a JSON
    number, and as a string only where a double cannot hold it (±inf, beyond the double range)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, float):  # only ever ±inf
        return "inf" if value > 0 else "-inf"
    text = to_text(value)
    if abs(value) >= _LARGEST_DOUBLE or (value != 0 and float(value) == 0):
        return text if "/" in text else decimal_text(value)
    if value.denominator == 1:
        return int(value)
    double = float(value)
    if "/" in text or Fraction(repr(double)) == value:
        return double
    return ExactNumber(text)


def quantity_document(quantity: Quantity, digits: int) -> dict[str, Any]:
    """``{"value", "decimal", "description", "closed_form", "latex"}`` for one result."""
    if quantity.is_list and isinstance(quantity.value, BulkValues):
        value: Any = quantity.value.doubles()
        decimal: Any = quantity.value.decimals(digits)
    elif quantity.is_list:
        value = [to_double(v) for v in quantity.value]
        decimal = [to_decimal(v, digits) for v in quantity.value]
    elif quantity.outward:  # a bound: its double and its decimal rounded outward
        value = directed_double(quantity.rounded_from, quantity.rounding == "up")
        decimal = quantity.decimal(digits)
    else:
        value = to_double(quantity.value)
        decimal = to_decimal(quantity.rounded_from, shown_digits(quantity, digits))
    return {
        "value": value,
        "decimal": decimal,
        "description": quantity.description,
        "closed_form": quantity.closed_form,
        "latex": quantity.latex,
        "stderr": None if quantity.stderr is None else to_double(quantity.stderr),
        "certified": quantity.certified,
        "error_bound": error_bound_double(quantity),
        "error_bound_decimal": error_bound_text(quantity),
    }


def error_bound_double(quantity: Quantity) -> float | None:
    """The proven bound as a double, rounded up (a bound must not shrink), or None."""
    if quantity.error_bound is None:
        return None
    return bound_double(quantity.error_bound)


# Significant digits of ``error_bound_decimal``.
BOUND_DIGITS = 2


def error_bound_text(quantity: Quantity) -> str | None:
    """The proven bound as a decimal text rounded up, that never underflows (``error_bound``, a
    double, rounds a bound below 2^-1074 up to 5e-324, above a tiny value itself), or None."""
    if quantity.error_bound is None:
        return None
    return bound_text(quantity.error_bound, BOUND_DIGITS)


# A whole number is shown in full up to about 1000 digits (str() refuses 4300).
WHOLE_BITS = 3300


def shown_digits(quantity: Quantity, digits: int) -> int:
    """``digits``, or fewer for a Monte Carlo estimate whose standard error allows fewer; a
    whole-number result (``whole``) shows all of its digits and no decimals."""
    if quantity.whole and quantity.exact is not None and quantity.exact:
        if abs(quantity.exact.numerator).bit_length() > WHOLE_BITS:
            return digits  # (postnorm-decay --sigma 1e-4300: a depth of 10^8600) rounded, as any value
        return len(str(abs(quantity.exact.numerator)))
    if quantity.stderr is None or quantity.is_list:
        return digits
    return justified_digits(quantity.value, quantity.stderr, digits)


def row_document(row: Computation | NoResult) -> dict[str, Any]:
    """One row of a sweep: its inputs and ``status``, then its ``results`` ("ok"), its decided
    ``outcome`` (``kind``, ``message``, ``layer``: the layer at which the length explodes or
    collapses, else null) or the ``error`` that refused it (``code`` 3, or 2; ``message``)."""
    if isinstance(row, NoResult):
        if row.decided:
            body: dict[str, Any] = {"outcome": {"kind": row.kind, "message": row.message, "layer": row.layer}}
        else:
            body = {"error": {"code": row.code, "message": row.message}}
        return {"inputs": inputs_document(row), "status": row.status, **body, "notes": [], "derivation": []}
    return {
        "inputs": inputs_document(row),
        "status": row.status,
        "results": results_document(row),
        "notes": list(row.notes),
        "derivation": derivation_document(row),
        **row.extra,
    }


def inputs_document(computation: Computation | NoResult) -> dict[str, Any]:
    return {name: input_json(value) for name, value in computation.inputs.items()}


def results_document(computation: Computation) -> dict[str, Any]:
    return {q.name: quantity_document(q, computation.digits) for q in computation.results}


def derivation_document(computation: Computation) -> list[dict[str, str]]:
    return [{"label": label, "text": text, "latex": latex} for label, text, latex in computation.derivation]


def check_document(check: Check) -> dict[str, Any]:
    return {
        "name": check.name,
        "expected": check.expected,
        "found": check.found,
        "tolerance": check.tolerance,
        "ok": check.ok,
    }


def _head(command: str) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "command": command, "version": __version__}


def document(result: Computation | Sweep | Listing) -> dict[str, Any]:
    """The whole JSON document: single computation, a sweep with ``rows``, or a listing."""
    if isinstance(result, Listing):
        head = _head(result.command)
        if result.ok is not None:
            head["ok"] = result.ok
        if not result.rows_in_json:
            return {**head, **result.extra}
        return {**head, **result.extra, "rows": [dict(row) for row in result.rows]}
    if isinstance(result, Sweep):
        return {
            **_head(result.command),
            "digits": result.digits,
            "swept": list(result.swept),
            "rows": [row_document(row) for row in result.rows],
            "checks": [
                {**check_document(check), "row": index}
                for index, row in enumerate(result.rows)
                for check in row.checks
            ],
        }
    return {
        **_head(result.command),
        "inputs": inputs_document(result),
        "digits": result.digits,
        "results": results_document(result),
        "checks": [check_document(c) for c in result.checks],
        "notes": list(result.notes),
        "derivation": derivation_document(result),
        **result.extra,
    }


def error_document(code: int, message: str) -> dict[str, Any]:
    """``{"schema_version": 1, "error": {"code": ..., "message": ...}}``."""
    return {"schema_version": SCHEMA_VERSION, "error": {"code": code, "message": message}}
