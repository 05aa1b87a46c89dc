"""Exact decimal inputs.

``--std 0.02`` means the rational 1/50, not the double nearest to it: inputs are parsed
into ``fractions.Fraction`` (or ±infinity) and only rounded when converted to ``mpf`` at
the working precision of a computation.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, Literal, overload

import mpmath
import decimal

from ..errors import InputError

Number = Fraction | float  # a float here is only ever +inf or -inf

_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_INFINITY = {
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-infinity": -math.inf,
}
# Exponents beyond this are refused: they are typos, and Fraction would build huge integers.
_MAX_EXPONENT = 100_000
# Digits in a number's mantissa: twice the most --digits can ask for, and well below the
# 4300 digits Python refuses to convert to an integer.
MAX_INPUT_DIGITS = 2000
# How much of a long input an error message quotes.
_QUOTED = 40
# Inputs whose exact text would be longer than about 1000 digits are shown rounded.
_TEXT_BITS = 3300


def quoted(text: str) -> str:
    """The user's text for an error message: repr (control characters escaped), and only its
    start when it is long."""
    if len(text) <= _QUOTED:
        return repr(text)
    return f"{text[:_QUOTED]!r}... ({len(text)} characters)"


def parse_number(text: str, option: str, *, allow_inf: bool = False) -> Number:
    """One exact number from the user's text (``0.02``, ``-2``, ``1e-3``, ``1/50``, ``inf``); errors name
    the argument ``option`` (a Python name such as ``std``).

    The one spelling rule of every numeric option: spaces around the number are ignored and a
    leading ``+`` is allowed (`` 1``, ``1 ``, ``+1`` all mean 1).
    """
    raw = text.strip()
    if raw.lower() in _INFINITY:
        if not allow_inf:
            raise InputError(param=option, allowed="a finite number", got=quoted(text))
        return _INFINITY[raw.lower()]
    numerator, slash, denominator = raw.partition("/")
    if slash and _DECIMAL.fullmatch(numerator.strip()) and _DECIMAL.fullmatch(denominator.strip()):
        # A fraction P/Q of two decimals (``1/50``), as the Python API takes Fraction(1, 50).
        bottom = parse_number(denominator, option)
        if bottom == 0:
            raise InputError(param=option, allowed="a fraction with a non-zero denominator", got=quoted(text))
        return parse_number(numerator, option) / bottom
    match = _DECIMAL.fullmatch(raw)
    if not match:
        allowed = "a decimal number or inf" if allow_inf else "a decimal number"
        raise InputError(param=option, allowed=allowed, got=quoted(text))
    mantissa_digits = sum(ch.isdigit() for ch in match.group(1))
    if mantissa_digits > MAX_INPUT_DIGITS:
        raise InputError(
            param=option,
            allowed=f"a number of at most {MAX_INPUT_DIGITS} digits",
            got=f"{mantissa_digits} digits",
        )
    exponent = match.group(3)
    if exponent and (len(exponent) > 8 or abs(int(exponent[1:])) > _MAX_EXPONENT):
        raise InputError(
            f"{{{option}}} exponent must be within ±{_MAX_EXPONENT}, got {quoted(text)}",
            param=option,
            allowed=f"an exponent within ±{_MAX_EXPONENT}",
            got=quoted(text),
        )
    return Fraction(raw)


def parse_integer(text: str, option: str, low: int, high: int) -> int:
    """A whole number in [low, high], with the range in the error message (spaces and a
    leading + allowed, as for every number)."""
    raw = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,20}", raw) or not (low <= int(raw) <= high):
        raise InputError(param=option, allowed=f"a whole number from {low} to {high}", got=quoted(text))
    return int(raw)


@overload
def as_number(value: object, name: str, *, allow_inf: Literal[False] = False) -> Fraction: ...
@overload
def as_number(value: object, name: str, *, allow_inf: bool) -> Number: ...
def as_number(value: object, name: str, *, allow_inf: bool = False) -> Number:
    """Normalise a Python API argument (int, float, str, Fraction, Decimal, mpf) to a Number.

    A float is read through its shortest repr, so ``0.02`` means 1/50, as on the CLI.
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool):
        raise InputError(param=name, allowed="a number", got=repr(value))
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if math.isnan(value):
            raise InputError(param=name, allowed="a number", got="nan")
        if math.isinf(value):
            if not allow_inf:
                raise InputError(param=name, allowed="a finite number", got=repr(value))
            return value
        return Fraction(repr(value))
    if isinstance(value, str):
        return parse_number(value, name, allow_inf=allow_inf)
    if isinstance(value, mpmath.mpf):  # exact: an mpf is a binary fraction
        if mpmath.isnan(value):
            raise InputError(param=name, allowed="a number", got="nan")
        if mpmath.isinf(value):
            if not allow_inf:
                raise InputError(param=name, allowed="a finite number", got=repr(value))
            return math.inf if value > 0 else -math.inf
        mantissa, exponent = value.man_exp
        return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    try:  # decimal.Decimal and other exact numeric types
        return Fraction(value)  # type: ignore[call-overload]  # any type Fraction takes; TypeError otherwise
    except (TypeError, ValueError):
        raise InputError(param=name, allowed="a number", got=repr(value)) from None


def sympy_number(value: Number) -> Any:
    """An exact sympy number for an input (Rational, or ±oo); sympy is imported only here."""
    import sympy as sp

    if isinstance(value, float):
        return sp.oo if value > 0 else -sp.oo
    return sp.Rational(value.numerator, value.denominator)


def to_mpf(value: Number) -> mpmath.mpf:
    """The input at the current working precision (one rounding)."""
    if isinstance(value, float):
        return mpmath.inf if value > 0 else -mpmath.inf
    return fraction_to_mpf(value.numerator, value.denominator)


# Integers mpmath converts quickly itself; above this (1e-100000 has a 332,000-bit
# denominator) it spends about a second per conversion normalising the integer.
_SMALL_BITS = 4096


def fraction_to_mpf(numerator: int, denominator: int = 1) -> mpmath.mpf:
    """numerator/denominator correctly rounded to the current precision, in one integer
    division however large the integers are (mpf(numerator)/denominator rounds twice)."""
    if denominator == 1 and numerator.bit_length() <= _SMALL_BITS:
        return mpmath.mpf(numerator)
    if numerator == 0:
        return mpmath.mpf(0)
    sign = -1 if numerator < 0 else 1
    numerator = abs(numerator)
    # A quotient of prec + 3 or 4 bits; the remainder (if any) as a sticky last bit, so that
    # rounding it to prec bits is the correct rounding of the exact quotient.
    shift = mpmath.mp.prec + 3 - (numerator.bit_length() - denominator.bit_length())
    if shift >= 0:
        quotient, remainder = divmod(numerator << shift, denominator)
    else:
        quotient, remainder = divmod(numerator, denominator << -shift)
    quotient = (quotient << 1) | (1 if remainder else 0)
    return sign * mpmath.ldexp(mpmath.mpf(quotient), -shift - 1)


def to_text(value: Number) -> str:
    """Short exact text for tables and CSV (``0.02``, ``-2``, ``inf``, ``1e+100000``: a lower-case
    exponent, as the JSON inputs and every printed result write it)."""
    if isinstance(value, float):
        return "inf" if value > 0 else "-inf"
    if max(value.numerator.bit_length(), value.denominator.bit_length()) > _TEXT_BITS:
        # Python will not print an integer this long; 20 significant digits say enough.
        return _significant_text(value, 20).lower()
    if value.denominator == 1:
        return str(value.numerator)
    try:
        as_float = float(value)
    except OverflowError:
        as_float = math.inf
    if math.isfinite(as_float) and Fraction(repr(as_float)) == value:
        return repr(as_float)
    twos, fives, rest = _power_of_ten_parts(value.denominator)
    if rest == 1:  # a terminating decimal (1e-400): write it exactly
        places = max(twos, fives)
        context = decimal.Context(
            prec=len(str(abs(value.numerator))) + places + 2, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN
        )
        return str(
            context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator)).normalize()
        ).lower()
    return f"{value.numerator}/{value.denominator}"


def _significant_text(value: Fraction, digits: int) -> str:
    """``value`` (≠ 0) correctly rounded (half to even) to ``digits`` significant digits, as
    decimal.Decimal prints it normalized (``1E+100000``, ``2.3333333333333333333E+99999``).

    The digits come from integer arithmetic on the scaled quotient: converting a 100000-digit
    integer to Decimal is quadratic (0.14 s at 10^100000, 14 s at 10^999999).
    """
    numerator, denominator = abs(value.numerator), value.denominator
    # 10^exponent ≤ |value| < 10^(exponent + 1), starting from an estimate within ±1.
    exponent = math.floor((numerator.bit_length() - denominator.bit_length()) * math.log10(2))
    while True:
        shift = digits - 1 - exponent
        top, bottom = (
            (numerator * 10**shift, denominator) if shift >= 0 else (numerator, denominator * 10**-shift)
        )
        whole, remainder = divmod(top, bottom)
        if whole >= 10**digits:
            exponent += 1
        elif whole < 10 ** (digits - 1):
            exponent -= 1
        else:
            break
    if 2 * remainder > bottom or (2 * remainder == bottom and whole % 2):
        whole += 1
    sign = 1 if value < 0 else 0
    exact = decimal.Decimal((sign, tuple(int(c) for c in str(whole)), -shift))
    context = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    return str(exact.normalize(context))


def rational_sqrt(value: Fraction) -> Fraction | None:
    """sqrt(value) (value ≥ 0) when it is rational, else None."""
    p, q = math.isqrt(value.numerator), math.isqrt(value.denominator)
    return Fraction(p, q) if p * p == value.numerator and q * q == value.denominator else None


def decimal_text(value: Fraction) -> str:
    """Exact, short text of a terminating decimal: 1/20000000 → ``5e-8``, 10^400 → ``1e+400``."""
    twos, fives, rest = _power_of_ten_parts(value.denominator)
    if rest != 1:
        raise ValueError(f"{value} is not a terminating decimal")
    places = max(twos, fives)
    mantissa = value.numerator * 10**places // value.denominator
    # Enough digits for the mantissa, counted without str() (Python's 4300-digit limit).
    context = decimal.Context(
        prec=int(abs(mantissa).bit_length() * 0.30103) + 3, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN
    )
    return str(context.scaleb(decimal.Decimal(mantissa), -places).normalize(context)).lower()


def _power_of_ten_parts(n: int) -> tuple[int, int, int]:
    """n = 2^twos · 5^fives · rest."""
    twos = (n & -n).bit_length() - 1
    n >>= twos
    # Divide by 5^(2^j) from the largest j down (each divides at most once, as fewer than 2^j
    # fives are left after the larger ones): a few big divisions, not one per factor 5
    # (10^100000 took 3 s that way).
    powers = [5]
    while powers[-1] * powers[-1] <= n:
        powers.append(powers[-1] * powers[-1])
    fives = 0
    for j in reversed(range(len(powers))):
        quotient, remainder = divmod(n, powers[j])
        if remainder == 0:
            n = quotient
            fives += 1 << j
    return twos, fives, n
