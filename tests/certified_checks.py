"""Shared checks of certified results: a proven radius is below half a unit of the last
printed digit (else the ball could not have decided the rounding), and rounding agrees with
an independent route."""

from __future__ import annotations

from decimal import Decimal

import mpmath
from mpmath import mp

from momentcalc.engine.precision import to_decimal
from momentcalc.result import Quantity


def half_unit(text: str, digits: int) -> Decimal:
    """Half a unit in the last of ``digits`` significant digits of the decimal ``text``."""
    return Decimal(5).scaleb(Decimal(text).adjusted() - digits)


def assert_certified(quantity: Quantity, digits: int) -> str:
    """``quantity`` is certified and its error bound is below half a unit of its last printed
    digit; returns its text at ``digits``."""
    assert quantity.certified, quantity.name
    assert quantity.error_bound is not None and quantity.error_bound >= 0, quantity.name
    text = to_decimal(quantity.rounded_from, digits)
    if Decimal(text) != 0:
        with mp.workdps(30):
            bound = mpmath.mpf(quantity.error_bound)
            assert bound < mpmath.mpf(str(half_unit(text, digits))), (quantity.name, bound, text)
    else:
        assert quantity.error_bound == 0, quantity.name
    return text


def close_to(got: mpmath.mpf, want: mpmath.mpf, digits: int) -> bool:
    """``got`` agrees with ``want`` to ``digits`` − 1 significant digits (relative), compared
    at digits + 10 working digits."""
    with mpmath.workdps(digits + 10):
        return abs(got - want) <= abs(want) * mpmath.mpf(10) ** -(digits - 1)
