"""The JSON document of a result (SPEC: "JSON shape of a single computation"), as plain data."""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..engine.numbers import to_json_number
from ..engine.precision import justified_digits, to_decimal, to_double
from ..result import Check, Computation, Listing, Quantity, Sweep


def quantity_document(quantity: Quantity, digits: int) -> dict[str, Any]:
    """``{"value", "decimal", "description", "closed_form", "latex"}`` for one result."""
    if quantity.is_list and hasattr(quantity.value, "decimals"):  # renders itself in bulk
        value: Any = quantity.value.doubles()
        decimal: Any = quantity.value.decimals(digits)
    elif quantity.is_list:
        value = [to_double(v) for v in quantity.value]
        decimal = [to_decimal(v, digits) for v in quantity.value]
    else:
        value = to_double(quantity.value)
        decimal = to_decimal(quantity.value, shown_digits(quantity, digits))
    doc = {
        "value": value,
        "decimal": decimal,
        "description": quantity.description,
        "closed_form": quantity.closed_form,
        "latex": quantity.latex,
    }
    if quantity.stderr is not None:
        doc["stderr"] = to_double(quantity.stderr)
    return doc


def shown_digits(quantity: Quantity, digits: int) -> int:
    """``digits``, or fewer for a Monte Carlo estimate whose standard error allows fewer."""
    if quantity.stderr is None or quantity.is_list:
        return digits
    return justified_digits(quantity.value, quantity.stderr, digits)


def inputs_document(computation: Computation) -> dict[str, Any]:
    return {
        name: value if isinstance(value, str) else to_json_number(value)
        for name, value in computation.inputs.items()
    }


def results_document(computation: Computation) -> dict[str, Any]:
    return {q.name: quantity_document(q, computation.digits) for q in computation.results}


def check_document(check: Check) -> dict[str, Any]:
    return {"name": check.name, "expected": check.expected, "found": check.found, "tolerance": check.tolerance,
            "ok": check.ok}


def document(result: Computation | Sweep | Listing) -> dict[str, Any]:
    """The whole JSON document: single computation, a sweep with ``rows``, or a listing."""
    if isinstance(result, Listing):
        head: dict[str, Any] = {"command": result.command, "version": __version__}
        if result.ok is not None:
            head["ok"] = result.ok
        return {**head, **result.extra, "rows": [dict(row) for row in result.rows]}
    if isinstance(result, Sweep):
        checks = [
            {**check_document(check), "row": index}
            for index, row in enumerate(result.rows)
            for check in row.checks
        ]
        return {
            "command": result.command,
            "version": __version__,
            "digits": result.digits,
            "rows": [
                {"inputs": inputs_document(row), "results": results_document(row)}
                for row in result.rows
            ],
            "checks": checks,
        }
    doc = {
        "command": result.command,
        "version": __version__,
        "inputs": inputs_document(result),
        "digits": result.digits,
        "results": results_document(result),
        "checks": [check_document(c) for c in result.checks],
    }
    # Only when there is something to say, so the plain document keeps SPEC's exact shape.
    if result.notes:
        doc["notes"] = list(result.notes)
    if result.derivation:
        doc["derivation"] = [{"label": label, "text": text, "latex": latex} for label, text, latex in result.derivation]
    return doc


def error_document(code: int, message: str) -> dict[str, Any]:
    """``{"error": {"code": ..., "message": ...}}``."""
    return {"error": {"code": code, "message": message}}
