"""A number as written in code: its value, the significant digits written, and what they say.

* ``digits_correct(literal, exact)`` = the largest k ≤ digits written at which literal and
  constant round to the same k significant digits (half away from zero, as every momentcalc
  decimal);
* ``consistent`` — every written digit is right: |literal − exact| ≤ half a unit of the last
  written digit (``half_unit``);
* ``ulps_off`` — for a literal of ≥ 15 digits, how many IEEE doubles its double lies from the
  constant's correctly rounded double (signed: negative below); for a float32 print, the same in
  float32 (``float32_print``);
* ``float32_print`` — the literal is a float32 written out: a float32's shortest repr or its
  ``%.9g`` (FLT_DECIMAL_DIG) print (8 or 9 digits that are the float32 rounded), or a double of
  15-17 digits that is exactly a float32 (``float(np.float32(x))`` printed). Such a literal is
  judged against the float32 rounding of the constant;
* ``simple_fraction`` — the literal is exactly p/q with q ≤ 12 (2, 0.5, 0.75, 1.0): an exact
  number written on purpose, never a rounded irrational constant.
"""

from __future__ import annotations

import functools
import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from fractions import Fraction
from typing import NamedTuple

_CONTEXT = Context(prec=120)
_LITERAL = re.compile(r"^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?$")
# Constants of the index lie far inside this range; a literal outside it matches nothing (and
# 1e1000000 is never handed to Decimal arithmetic that would overflow).
LOWEST, HIGHEST = Decimal("1e-30"), Decimal("1e30")
SIMPLE_DENOMINATOR = 12
FLOAT32_BITS, DOUBLE_BITS = 24, 53


class Literal(NamedTuple):
    text: str
    value: Decimal  # |value|
    digits: int  # significant digits written


@functools.lru_cache(maxsize=1 << 16)
def parse_literal(text: str) -> Literal | None:
    """A decimal literal (Python/C spelling, ``_`` separators, a trailing f/F/d/D/L suffix) as
    (text, |value|, significant digits written); None for anything else or for 0."""
    body = text.strip().rstrip("fFdDlL") if not text.strip().lower().startswith("0x") else ""
    if not body or len(body) > 400 or not _LITERAL.match(body):
        return None
    body = body.replace("_", "").lstrip("+-")
    mantissa = re.split(r"[eE]", body)[0]
    digits = mantissa.replace(".", "").lstrip("0")
    if not digits:
        return None
    try:
        value = Decimal(body)
    except InvalidOperation:
        return None
    return Literal(text.strip(), value.copy_abs(), len(digits))


def in_range(literal: Literal) -> bool:
    return LOWEST < literal.value < HIGHEST


def round_sig(value: Decimal, k: int) -> Decimal:
    """value rounded to k significant digits, half away from zero."""
    if not value:
        return value
    exponent = value.adjusted() - k + 1
    return value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP, context=_CONTEXT)


def digits_correct(literal: Literal, exact: Decimal) -> int:
    for k in range(min(literal.digits, 38), 0, -1):
        if round_sig(literal.value, k) == round_sig(exact, k):
            return k
    return 0


def half_unit(literal: Literal) -> Decimal:
    """Half a unit of the last digit written: the literal's own rounding radius."""
    return Decimal(5).scaleb(literal.value.adjusted() - literal.digits, _CONTEXT)


def resolution(literal: Literal) -> Decimal:
    """How far the literal's digits pin its value down: half a unit of its last digit, or for a
    float32 print half a float32 ulp (the digits past float32's precision say nothing)."""
    h = half_unit(literal)
    if float32_print(literal):
        _, s = _nearest(Fraction(literal.value), FLOAT32_BITS)
        h = max(h, _decimal(1, s - 1))
    return h


def consistent(literal: Literal, exact: Decimal) -> bool:
    """Is every written digit right (the literal a correct rounding of ``exact``)?"""
    return abs(literal.value - exact) <= half_unit(literal)


def rel_error(literal: Literal, exact: Decimal) -> Decimal:
    """(literal − exact)/exact, signed."""
    return _CONTEXT.divide(literal.value - exact, exact)


def simple_fraction(literal: Literal) -> Fraction | None:
    """p/q with q ≤ 12 when the literal is exactly that (2, 0.5, 0.75, 1.25), else None."""
    exact = Fraction(literal.value)
    return exact if exact.denominator <= SIMPLE_DENOMINATOR else None


def _nearest(x: Fraction, bits: int) -> tuple[int, int]:
    """The binary float with ``bits`` bits of mantissa nearest x > 0 (ties to even): (m, s),
    value m·2^s."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    shift = e - bits + 1
    scaled = x / (Fraction(2) ** shift)
    m = scaled.numerator // scaled.denominator
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2):
        m += 1
    if m == 1 << bits:
        m, shift = m >> 1, shift + 1
    return m, shift


def _decimal(m: int, s: int) -> Decimal:
    return Decimal(m) * (Decimal(2) ** s if s >= 0 else Decimal(1) / Decimal(2) ** -s)


def _ulps(literal: Decimal, exact: Decimal, bits: int) -> int:
    lm, ls = _nearest(Fraction(literal), bits)
    cm, cs = _nearest(Fraction(exact), bits)
    return round((Fraction(lm) * Fraction(2) ** ls - Fraction(cm) * Fraction(2) ** cs) / Fraction(2) ** cs)


def _float32_shortest(literal: Literal) -> bool:
    """Is the literal the shortest decimal that reads back as its float32?"""
    m, s = _nearest(Fraction(literal.value), FLOAT32_BITS)
    x = _decimal(m, s).normalize(_CONTEXT)
    # Only at its own length can the literal be the shortest: first whether it is the float32
    # rounded to its digits (most literals are not: one Fraction rounding, not nine), then that
    # no shorter rounding reads back as that float32.
    if round_sig(x, literal.digits) != literal.value:
        return False
    return not any(
        _nearest(Fraction(round_sig(x, k)), FLOAT32_BITS) == (m, s) for k in range(1, literal.digits)
    )


@functools.lru_cache(maxsize=1 << 16)
def float32_print(literal: Literal) -> bool:
    """A float32 written out: its shortest repr (6-9 digits), its 8 or 9 digits (``%.9g``), or a
    double of ≥ 15 digits that is exactly a float32."""
    if 6 <= literal.digits <= 9 and _float32_shortest(literal):
        return True
    if literal.digits in (8, 9):
        m, s = _nearest(Fraction(literal.value), FLOAT32_BITS)
        return round_sig(_decimal(m, s), literal.digits) == literal.value
    if literal.digits >= 15:
        m, _ = _nearest(Fraction(literal.value), DOUBLE_BITS)
        return m % (1 << (DOUBLE_BITS - FLOAT32_BITS)) == 0
    return False


def ulps_off(literal: Literal, exact: Decimal, float32: bool) -> int | None:
    """Doubles (float32 for a float32 print) between the literal and the constant rounded alike."""
    if float32:
        return _ulps(literal.value, exact, FLOAT32_BITS)
    if literal.digits >= 15:
        return _ulps(literal.value, exact, DOUBLE_BITS)
    return None


def paste(exact: Decimal) -> str:
    """The correctly rounded double of ``exact``, as Python prints it (the value to paste)."""
    m, s = _nearest(Fraction(exact), DOUBLE_BITS)
    return repr(float(Fraction(m) * Fraction(2) ** s))
