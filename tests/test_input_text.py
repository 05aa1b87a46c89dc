"""Echoed inputs too long to print in full are written to 20 significant digits, correctly
rounded half to even. Second route: Python's decimal module dividing the exact numerator by
the exact denominator in a 20-digit context (quadratic in the digits, hence not the library's
route)."""

from __future__ import annotations

import random
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext
from fractions import Fraction

import pytest

from momentcalc.engine.numbers import _significant_text, to_text


def _by_decimal(value: Fraction, digits: int) -> str:
    with localcontext(Context(prec=digits, Emax=MAX_EMAX, Emin=MIN_EMIN)):
        return str((Decimal(value.numerator) / Decimal(value.denominator)).normalize())


def _random_fractions(count: int):
    rng = random.Random(20261123)
    for _ in range(count):
        numerator = rng.randrange(1, 10 ** rng.randrange(1, 60)) * 10 ** rng.choice([0, 0, rng.randrange(30)])
        denominator = rng.randrange(1, 10 ** rng.randrange(1, 60))
        if rng.random() < 0.25:  # exact ties at the last kept digit
            numerator, denominator = 2 * numerator + 1, 2 * 10 ** rng.randrange(25)
        yield Fraction(numerator, denominator) * rng.choice([1, -1])


@pytest.mark.parametrize("digits", [1, 3, 20])
def test_rounded_text_agrees_with_the_decimal_module(digits):
    for value in _random_fractions(700):
        assert _significant_text(value, digits) == _by_decimal(value, digits), value


@pytest.mark.parametrize(
    "value, text",
    [
        (Fraction(10) ** 100000, "1E+100000"),
        (-Fraction(1, 10**100000), "-1E-100000"),
        (Fraction(7 * 10**99999, 3), "2.3333333333333333333E+99999"),
        (Fraction(123456789, 10**4000), "1.23456789E-3992"),
        (-(Fraction(10) ** 4001 - 5 * Fraction(10) ** 3980), "-1E+4001"),  # 20 nines then 5: a tie, to even
    ],
)
def test_long_inputs_are_echoed_to_20_digits(value, text):
    """In tables and CSV with a lower-case exponent, as JSON and the results write it."""
    assert to_text(value) == text.lower() and text == _by_decimal(value, 20)
