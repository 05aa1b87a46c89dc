"""Every printed decimal, by one rule: correctly rounded, half away from zero.

A value is rounded to ``digits`` significant digits from its *exact* value, in integer
arithmetic: an exact rational (``Fraction``, ``int``) or an exact binary number (an mpmath
``mpf`` is m·2^e exactly). Nothing is cut to a shorter binary or decimal copy first, so ties
(0.25, 0.125, 0.95 at one or two digits) all go up in magnitude, and a value a hair away from a
tie goes the way it lies.

A ball (midpoint ± radius, an Arb ``arb`` from python-flint or a pair of mpf) has a proven
rounding only when both of its ends round to the same text (rounding is monotone, so then
every point between them does); otherwise ``ball_text`` returns None and the caller raises
its working precision (``decide`` does that loop and raises PrecisionError, exit 3, at its
limit).

The text format: ``digits`` significant digits with their trailing zeros (they are
significant), fixed notation when the leading digit sits at 10^a with −4 < a < digits
(``0.000123``, ``12.5``, ``12345``; never a bare point), scientific otherwise
(``1.23e-5``, ``1.23456789012345e-1505``, ``1.0e+20``).
"""

from __future__ import annotations

from collections.abc import Callable
import math
from fractions import Fraction
from functools import lru_cache
from typing import Any
import mpmath

from .bits import bits_for
from .mpmath_internals import binary
from ..errors import PrecisionError

# Only for a first guess of the decimal exponent, corrected exactly below.
_LOG10_2 = math.log10(2)
_MIN_FIXED = -4
# Bits below the midpoint's last bit (and below the requested digits) at which a tinier
# radius is widened in ``ball_text``.
_SLACK = 256


def decimal_text(value: Any, digits: int) -> str:
    """``value`` (Fraction, int or mpf) correctly rounded to ``digits`` significant digits,
    half away from zero, as text (see the module docstring for the format)."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    if isinstance(value, (int, float)):
        value = Fraction(value)  # exact (a float is a binary fraction)
    if isinstance(value, Fraction):
        if value == 0:
            return "0"
        numerator, denominator = abs(value.numerator), value.denominator
        if denominator & (denominator - 1) == 0:  # a binary fraction: no long division
            rounded = _round_binary(numerator, 1 - denominator.bit_length(), digits)
        else:
            rounded = _round_rational(numerator, denominator, digits)
        return _format(value < 0, *rounded, digits)
    sign, mantissa, exponent, _ = binary(value)  # an mpf: (−1)^sign·mantissa·2^exponent
    if not mantissa:
        return _special(value)
    return _format(bool(sign), *_round_binary(mantissa, exponent, digits), digits)


# Beyond 2^±this a bound is written as a power of ten above it (see ``bound_text``).
_EXACT_BOUND_EXPONENT = 4096


def bound_text(value: Any, digits: int = 2) -> str:
    """A bound ``value`` >= 0 (Fraction, int or mpf) as a decimal text of ``digits`` digits that is
    never below it and never underflows (an error bound of 2^-2000 is "8.8e-603", not a double's
    5e-324): its exact ceiling at ``digits`` digits. Beyond 2^±4096 (Arb's radius of a far tail,
    2^-(10^600)) the power of ten just above 2^(its bit length), "1e-180618…", is cheaper and
    still a bound."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    if isinstance(value, (int, float, Fraction)):
        exact = Fraction(value)
    else:
        sign, mantissa, exponent, _ = binary(value)
        if not mantissa:
            return _special(value)
        if sign:
            raise ValueError("a bound is >= 0")
        if abs(exponent) > _EXACT_BOUND_EXPONENT:
            return f"1e{_power_of_ten_above(exponent + mantissa.bit_length()):+d}"
        exact = Fraction(mantissa) * Fraction(2) ** exponent
    if exact < 0:
        raise ValueError("a bound is >= 0")
    if exact == 0:
        return "0"
    q, a = _round_rational(exact.numerator, exact.denominator, digits)  # half up: maybe below
    if q * Fraction(10) ** (a - digits + 1) < exact:
        q += 1
    return _format(False, *_carry(q, a, digits), digits)


def directed_text(value: Any, digits: int, up: bool) -> str:
    """``value`` (Fraction, int or mpf) rounded to ``digits`` significant digits towards +∞
    (``up``) or towards −∞, exactly, in ``decimal_text``'s format: the text of a bound that
    rounds outward (an upper bound's text is never below it, a lower bound's never above it).

    >>> directed_text(Fraction(1, 3), 3, True), directed_text(Fraction(-1, 3), 3, True)
    ('0.334', '-0.333')
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    if isinstance(value, (int, float, Fraction)):
        exact = Fraction(value)
    else:
        sign, mantissa, exponent, _ = binary(value)
        if not mantissa:
            return _special(value)
        if abs(exponent) > _EXACT_BOUND_EXPONENT:
            # 2^(±4096 and beyond): a power of ten beyond the value, as ``bound_text`` does
            # (a bound this far out is never tight to its digits anyway).
            top = exponent + mantissa.bit_length()
            if up != bool(sign):  # away from zero: a power of ten above |value|
                power = _power_of_ten_above(top)
                return ("-" if sign else "") + f"1e{power:+d}"
            power = _power_of_ten_above(top - 1) - 3  # towards zero: a power of ten below |value|
            return ("-" if sign else "") + f"1e{power:+d}"
        exact = Fraction(mantissa) * Fraction(2) ** exponent * (-1 if sign else 1)
    if exact == 0:
        return "0"
    away = (exact > 0) == up
    q, a = _round_rational(abs(exact.numerator), exact.denominator, digits)
    magnitude = abs(exact)
    unit = Fraction(10) ** (a - digits + 1)
    if away and q * unit < magnitude:
        q, a = _carry(q + 1, a, digits)
    elif not away and q * unit > magnitude:
        q -= 1
        if q < _power10(digits - 1):  # 10…0 − 1: one place fewer, the same value
            q, a = _power10(digits) - 1, a - 1
    return _format(exact < 0, q, a, digits)


# Beyond 2^±this a ball's end is not formed as an exact fraction (``ball_end``).
_BALL_END_EXPONENT = 1 << 16


def ball_end(mid: tuple[int, int], rad: tuple[int, int], up: bool) -> Fraction | None:
    """The upper (``up``) or lower end of the ball mid ± rad, each given as (mantissa,
    exponent), as an exact fraction; a radius below 2^−4096 of the midpoint is first widened to
    that (safe: the end moves outward, as ``ball_text`` widens); None beyond 2^±65536 (no short
    exact fraction)."""
    (mid_m, mid_e), (rad_m, rad_e) = mid, rad
    rad_m = abs(rad_m)
    if mid_m and rad_m:
        floor = mid_e + abs(mid_m).bit_length() - _EXACT_BOUND_EXPONENT
        if rad_e + rad_m.bit_length() < floor:
            rad_m, rad_e = 1, floor
    if abs(mid_e) > _BALL_END_EXPONENT or (rad_m and abs(rad_e) > _BALL_END_EXPONENT):
        return None
    radius = Fraction(rad_m) * Fraction(2) ** rad_e
    centre = Fraction(mid_m) * Fraction(2) ** mid_e
    return centre + radius if up else centre - radius


def directed_ball_text(ball: Any, digits: int, up: bool, radius: Any = None) -> str | None:
    """The text ``directed_text`` gives every point of a ball (an ``arb``, or an mpf midpoint with
    an mpf ``radius``), or None when its ends round differently: a bound's proven outward
    rounding, as ``ball_text`` proves a nearest one."""
    if radius is None:  # an arb
        if not ball.is_finite():
            return None
        mid_m, mid_e = (int(x) for x in ball.mid().man_exp())
        rad_m, rad_e = (int(x) for x in ball.rad().man_exp())
    else:
        (signed_mid, mid_e), (signed_rad, rad_e) = signed_binary(ball), signed_binary(radius)
        if signed_mid is None or signed_rad is None:
            return None
        mid_m, rad_m = signed_mid, signed_rad
    mid, rad = (mid_m, mid_e), (rad_m, rad_e)
    low, high = ball_end(mid, rad, False), ball_end(mid, rad, True)
    if low is None or high is None:
        return None
    text = directed_text(low, digits, up)
    return text if text == directed_text(high, digits, up) else None


def _power_of_ten_above(bits: int) -> int:
    """An N with 2^bits <= 10^N, at most 2 above the least one."""
    with mpmath.workprec(bits.bit_length() + 64):
        n = int(mpmath.ceil(bits * mpmath.log10(2)))
    return n + 1  # a margin for the rounding of the product


def ball_text(ball: Any, digits: int, radius: Any = None) -> str | None:
    """The rounded text of every point of a ball, or None when its ends round differently.

    ``ball`` is an ``arb`` (python-flint), or an mpf midpoint with an mpf ``radius``.
    Both ends are rounded exactly (``decimal_text``'s rule), so a returned text is proven.
    """
    if radius is None:  # an arb
        if not ball.is_finite():
            return None
        mid_m, mid_e = (int(x) for x in ball.mid().man_exp())
        rad_m, rad_e = (int(x) for x in ball.rad().man_exp())
    else:
        (signed_mid, mid_e), (signed_rad, rad_e) = signed_binary(ball), signed_binary(radius)
        if signed_mid is None or signed_rad is None:
            return None
        mid_m, rad_m = signed_mid, signed_rad
    if rad_m == 0:
        return _dyadic_text(mid_m, mid_e, digits)
    if mid_m == 0:
        return None  # a ball around 0 has no proven significant digit
    mid_top = mid_e + abs(mid_m).bit_length()
    rad_m = abs(rad_m)
    if rad_e + rad_m.bit_length() > mid_top:
        return None  # the radius exceeds |midpoint|: the ball straddles 0
    # A radius far below the midpoint's last bit (Arb gives radii like 2^-(10^600) for the
    # tail of a normal at 1e300) would make the shifts below astronomically long; widening it
    # to a bound ``_SLACK`` bits below that bit is safe (a wider ball can leave the rounding
    # undecided, never decide it wrongly) and keeps the integers short.
    floor = min(mid_e, mid_top - _SLACK - math.ceil(digits / _LOG10_2))
    if rad_e + rad_m.bit_length() < floor:
        rad_m, rad_e = 1, floor
    shift = min(mid_e, rad_e)
    mid_m <<= mid_e - shift
    rad_m <<= rad_e - shift
    low = _dyadic_text(mid_m - rad_m, shift, digits)
    high = _dyadic_text(mid_m + rad_m, shift, digits)
    return low if low == high else None


def decide(
    evaluate: Callable[[int], Any], digits: int, start_bits: int, max_bits: int, what: str = "the result"
) -> tuple[Any, str]:
    """Evaluate a ball at rising precision until it rounds to one text at ``digits`` digits.

    ``evaluate(bits)`` returns an ``arb`` computed at ``bits`` bits of working precision; it
    is called at ``start_bits``, then at twice that, and so on up to ``max_bits``. Returns
    (ball, text). Raises PrecisionError (exit 3) when no precision up to ``max_bits`` decides
    the rounding, so no unproven digit is ever printed.
    """
    bits = start_bits
    while True:
        ball = evaluate(bits)
        text = ball_text(ball, digits)
        if text is not None:
            return ball, text
        if bits >= max_bits:
            raise PrecisionError(
                f"could not reach {digits} correct digits of {what} within {max_bits} bits of working precision"
            )
        bits = min(2 * bits, max_bits)


# -- exact rounding -------------------------------------------------------------------------


def _round_rational(numerator: int, denominator: int, digits: int) -> tuple[int, int]:
    """(q, a): numerator/denominator > 0 rounded to q·10^(a − digits + 1), 10^(digits−1) ≤ q < 10^digits."""
    a = _exponent_guess(numerator.bit_length() - denominator.bit_length())
    while True:
        s = digits - 1 - a
        if s >= 0:
            q, r = divmod(numerator * 10**s, denominator)
            twice_r, half_unit = 2 * r, denominator
        else:
            scale = denominator * 10**-s
            q, r = divmod(numerator, scale)
            twice_r, half_unit = 2 * r, scale
        a_step = _exponent_step(q, digits)
        if a_step:
            a += a_step
            continue
        return _carry(q + (twice_r >= half_unit), a, digits)


def _round_binary(mantissa: int, exponent: int, digits: int) -> tuple[int, int]:
    """(q, a) for mantissa·2^exponent > 0, as ``_round_rational``.

    v·10^s = mantissa·5^s·2^(exponent+s): for s ≥ 0 a multiplication and a shift. Far from
    1 (10^−150000 at 10^6 Post-Norm layers) 5^|s| is a long integer; there the product is
    first bracketed between two short ones (``_bracket``), and only when the bracket holds a
    rounding boundary is the exact product formed."""
    a = _exponent_guess(mantissa.bit_length() - 1 + exponent)
    if a.bit_length() > MAX_EXPONENT_BITS:
        raise PrecisionError(
            f"a value whose decimal exponent has {_exponent_digits(a.bit_length())} digits cannot be "
            f"rounded in reasonable time (exponents of at most "
            f"{_exponent_digits(MAX_EXPONENT_BITS)} digits)"
        )
    width = bits_for(digits) + 64
    while True:
        s = digits - 1 - a
        if abs(s) > _EXACT_POWER_LIMIT:
            # Each squaring in _power5_bounds doubles the relative width of the bracket.
            low, high = _bracket(mantissa, exponent, s, width + 2 * abs(s).bit_length())
            q_low, q_high = _floor(*low), _floor(*high)
            step_low, step_high = _exponent_step(q_low, digits), _exponent_step(q_high, digits)
            if step_low == step_high and step_low:
                a += step_low
                continue
            if step_low == step_high == 0:
                rounded = _round_half_up(*low)
                if rounded == _round_half_up(*high):
                    return _carry(rounded, a, digits)
            # An exact tie needs 5^|s| to divide the value: impossible for s > 0 (not binary)
            # and for a mantissa shorter than 2|s| bits; then a narrower bracket decides.
            if abs(s) > _EXACT_AFFORDABLE and (s > 0 or mantissa.bit_length() < 2 * -s):
                width *= 2
                continue
        q, round_up = _scaled_exactly(mantissa, exponent, s)
        step = _exponent_step(q, digits)
        if step:
            a += step
            continue
        return _carry(q + round_up, a, digits)


# Rounding v·10^s costs about bits(s)² (binary powering of 5^|s| at a width of 2·bits(s)): a
# decimal exponent of 2^12 bits takes a tenth of a second; relu's mean at mean −1e5000
# (10^−(2·10^9999)) would take minutes.
MAX_EXPONENT_BITS = 2**12


def _exponent_digits(bits: int) -> int:
    """About how many decimal digits an integer of ``bits`` bits has."""
    return int((bits - 1) * _LOG10_2) + 1


# Beyond 10^±this, 5^|s| is bracketed by short integers first (see _round_binary); beyond
# 10^±_EXACT_AFFORDABLE it is never formed exactly unless an exact tie is possible.
_EXACT_POWER_LIMIT = 600
_EXACT_AFFORDABLE = 10**6


def _exponent_guess(bits: int) -> int:
    """About log10(2^bits), within one (mpmath for exponents beyond a double's reach)."""
    if abs(bits) < 2**50:
        return int(bits * _LOG10_2)

    with mpmath.workprec(bits.bit_length() + 64):
        return int(mpmath.floor(bits * mpmath.log10(2)))


def _scaled_exactly(mantissa: int, exponent: int, s: int) -> tuple[int, bool]:
    """(floor(v·10^s), whether its fractional part is ≥ 1/2) for v = mantissa·2^exponent."""
    t = exponent + s
    if s >= 0:
        product = mantissa * 5**s
        if t >= 0:
            return product << t, False
        return product >> -t, bool((product >> (-t - 1)) & 1)  # the first bit below the unit
    numerator, denominator = (mantissa << t, 5**-s) if t >= 0 else (mantissa, 5**-s << -t)
    q, r = divmod(numerator, denominator)
    return q, 2 * r >= denominator


def _bracket(mantissa: int, exponent: int, s: int, width: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Dyadic bounds (n, k), meaning n·2^k, below and above v·10^s, about ``width`` bits wide."""
    low, high, shift = _power5_bounds(abs(s), width)  # low·2^shift ≤ 5^|s| ≤ high·2^shift
    t = exponent + s
    if s >= 0:
        return (mantissa * low, t + shift), (mantissa * high, t + shift)
    # v·10^s = mantissa·2^t / 5^|s|, between mantissa·2^(t−shift)/high and …/low.
    extra = width + high.bit_length() - mantissa.bit_length()
    if extra >= 0:
        above = below = mantissa << extra
    else:  # a mantissa longer than needed: bracket it too
        below, above = mantissa >> -extra, -(-mantissa >> -extra)
    return (below // high, t - shift - extra), (-(-above // low), t - shift - extra)


@lru_cache(maxsize=32)  # both ends of a ball, and each value rounded again when printed
def _power5_bounds(n: int, width: int) -> tuple[int, int, int]:
    """(low, high, shift) with low·2^shift ≤ 5^n ≤ high·2^shift, low and high of ``width`` bits
    (binary powering, each product cut down to ``width`` bits: floor below, ceiling above)."""
    result = (1, 1, 0)
    base = (5, 5, 0)
    while n:
        if n & 1:
            result = _product_bounds(result, base, width)
        n >>= 1
        if n:
            base = _product_bounds(base, base, width)
    return result


def _product_bounds(x: tuple[int, int, int], y: tuple[int, int, int], width: int) -> tuple[int, int, int]:
    low, high, shift = x[0] * y[0], x[1] * y[1], x[2] + y[2]
    extra = high.bit_length() - width
    if extra > 0:
        low >>= extra
        high = -(-high >> extra)
        shift += extra
    return low, high, shift


def _floor(n: int, k: int) -> int:
    return n << k if k >= 0 else n >> -k


def _round_half_up(n: int, k: int) -> int:
    """n·2^k (≥ 0) rounded to an integer, halves up."""
    if k >= 0:
        return n << k
    return (n >> -k) + ((n >> (-k - 1)) & 1)


def _exponent_step(q: int, digits: int) -> int:
    """0 when the truncated q has ``digits`` digits, else a correction of the exponent guess
    that never overshoots upwards (the guess is off by at most one but for absurd exponents)."""
    if q >= _power10(digits):
        return max(1, int(q.bit_length() * _LOG10_2) - digits)
    if q < _power10(digits - 1):
        return -1 if q else -digits
    return 0


@lru_cache(maxsize=64)
def _power10(n: int) -> int:
    return 10**n


def _carry(q: int, a: int, digits: int) -> tuple[int, int]:
    """Rounding up 99…9 gives 10^digits: one more place, the same value."""
    if q == _power10(digits):
        return q // 10, a + 1
    return q, a


def _dyadic_text(mantissa: int, exponent: int, digits: int) -> str:
    if mantissa == 0:
        return "0"
    return _format(mantissa < 0, *_round_binary(abs(mantissa), exponent, digits), digits)


def signed_binary(value: Any) -> tuple[int | None, int]:
    sign, mantissa, exponent, _bits = binary(value)
    if not mantissa:
        return (0, 0) if value == 0 else (None, 0)
    return (-mantissa if sign else mantissa), exponent


def _special(value: Any) -> str:
    """Zero, infinities and nan (the mpf values without a mantissa)."""
    if value == 0:
        return "0"
    if value != value:
        return "nan"
    return "inf" if value > 0 else "-inf"


def _format(negative: bool, q: int, a: int, digits: int) -> str:
    """q (``digits`` digits) times 10^(a − digits + 1) in momentcalc's text format."""
    text = str(q)
    sign = "-" if negative else ""
    if _MIN_FIXED < a < digits:
        if a < 0:
            return f"{sign}0.{'0' * (-a - 1)}{text}"
        whole, fraction = text[: a + 1], text[a + 1 :]
        return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"
    mantissa = f"{text[0]}.{text[1:]}" if digits > 1 else text
    return f"{sign}{mantissa}e{'+' if a >= 0 else ''}{a}"
