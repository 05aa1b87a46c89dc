"""Working precision: guard digits, precision that adapts to cancellation, rounding for output.

The rule everywhere: compute with ``mp.workdps(digits + guard)`` (never change the global
``mp.dps``), and only round when rendering. ``stable`` re-evaluates at growing precision
until two evaluations agree to ``digits + 3`` significant digits, which catches formulas
that cancel (truncated-normal tails, tiny intervals) without analysing each by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import NamedTuple, TypeVar

import mpmath
from mpmath import mp
import math

from ..errors import PrecisionError
from .bits import BITS_PER_DIGIT, bits_for, digits_for  # noqa: F401 (re-exported)
from .mpmath_internals import binary, fraction
from .rounding import decimal_text

GUARD_DIGITS = 10
MAX_DIGITS = 1000
# What one computation may ask of another that it builds on: its own digits plus guard digits,
# at every level it nests (hermite's coefficients at --digits 1000 ask the moments for 1012: a
# retry's extra digits plus the coefficients' own guard).
MAX_INTERNAL_DIGITS = MAX_DIGITS + 10 * GUARD_DIGITS
# The adaptive loop gives up beyond this working precision and reports exit 3.
MAX_WORKING_DPS = 40000

K = TypeVar("K")

# Bits a first Arb evaluation carries beyond the requested digits (``Precision.start_bits``).
START_GUARD_BITS = 32
# Bits an Arb evaluation of balls to about d digits carries past bits_for(d + GUARD_DIGITS)
# (``Precision.ball_bits``).
BALL_GUARD_BITS = 64
LOG2_10 = math.log2(10)


class Precision(NamedTuple):
    """How precisely to compute for ``digits`` correct output digits: one value passed around
    instead of a literal (a NamedTuple: a frozen dataclass took about 0.5 ms more to create at
    every start).

    ``dps``/``bits``: the mpmath working precision (``digits`` + ``guard`` digits, as bits);
    ``start_bits``: the first Arb precision a proof tries (the digits plus 32 guard bits), which
    rises by doubling up to ``max_bits`` (exit 3 beyond it).

    >>> p = Precision(15)
    >>> p.dps, p.bits, p.start_bits, p.max_bits, p.ball_bits
    (25, 83, 81, 133200, 147)
    """

    digits: int
    guard: int = GUARD_DIGITS

    @property
    def dps(self) -> int:
        return self.digits + self.guard

    @property
    def bits(self) -> int:
        return bits_for(self.dps)

    @property
    def start_bits(self) -> int:
        return bits_for(self.digits) + START_GUARD_BITS

    @property
    def max_bits(self) -> int:
        return bits_for(MAX_WORKING_DPS)

    @property
    def ball_bits(self) -> int:
        """Arb's working precision for balls of about ``digits`` digits: the ``dps`` at log2(10)
        bits a digit (the float ratio the ball routines were written with, kept so that their
        balls stay bit for bit the same) and BALL_GUARD_BITS more for the radii."""
        return int(self.dps * LOG2_10) + BALL_GUARD_BITS

    @contextmanager
    def mpmath(self) -> Iterator[None]:
        """mpmath's working precision set to ``dps`` inside the block (restored after)."""
        with mp.workdps(self.dps):
            yield


def working_dps(digits: int) -> int:
    """Decimal digits to carry internally for ``digits`` correct output digits."""
    return digits + GUARD_DIGITS


def agree(a: mpmath.mpf, b: mpmath.mpf, digits: int) -> bool:
    """True when ``a`` and ``b`` agree to ``digits`` significant digits (or are both 0)."""
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(agree(x, y, digits) for x, y in zip(a, b))
    if a == b:
        return True
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
        return False
    scale = max(abs(a), abs(b))
    return abs(a - b) <= scale * mpmath.mpf(10) ** (-digits)


def stable(evaluate: Callable[[], Mapping[K, mpmath.mpf]], digits: int) -> dict[K, mpmath.mpf]:
    """Evaluate ``evaluate()`` at growing precision until every entry is stable.

    ``evaluate`` computes a mapping of results at the current ``mp.dps``. It is called at
    ``working_dps(digits)``, then at twice that, and so on; the answer is returned once
    two consecutive evaluations agree to ``digits + 3`` digits. The returned values are
    the ones from the higher precision. Raises PrecisionError past MAX_WORKING_DPS.
    """
    dps = working_dps(digits)
    with mp.workdps(dps):
        previous = dict(evaluate())
    while dps * 2 <= MAX_WORKING_DPS:
        dps *= 2
        with mp.workdps(dps):
            current = dict(evaluate())
        unstable = [k for k in current if k not in previous or not agree(previous[k], current[k], digits + 3)]
        if not unstable:
            return current
        previous = current
    raise PrecisionError(
        f"could not reach {digits} correct digits for {', '.join(map(str, unstable))} "
        f"within {MAX_WORKING_DPS} digits of working precision"
    )


def to_decimal(value: mpmath.mpf | Fraction | int, digits: int) -> str:
    """``value`` correctly rounded to ``digits`` significant digits, half away from zero, as text.

    The exact value is rounded (an mpf is exactly m·2^e; a Fraction exactly p/q), in integer
    arithmetic, so ties go up in magnitude (0.25 → 0.3, 0.95 → 1 at one digit) and nothing
    underflows (``1.23e-1505``); the trailing zeros are kept because they are significant.
    See ``engine/rounding``.
    """
    return decimal_text(value, digits)


# Below the smallest normal double, float(mpf) rounds twice (to 53 bits, then to the subnormal
# grid); there the exact binary value is rounded once instead. Below the smallest subnormal
# by a wide margin the answer is 0.0 without work.
_SMALLEST_NORMAL_EXPONENT = -1022
_UNDERFLOW_EXPONENT = -1080


def scaled_double(mantissa: int, exponent: int) -> float | None:
    """The double nearest to mantissa·2^exponent, correctly rounded also where it is
    subnormal (an integer quotient is), None beyond the largest double."""
    try:
        return mantissa / (1 << -exponent) if exponent < 0 else float(mantissa << exponent)
    except OverflowError:
        return None


def to_double(value: mpmath.mpf) -> float | None:
    """The nearest IEEE double (0.0 on underflow), or None where it would overflow."""
    if value != 0 and mpmath.isfinite(value):
        sign, mantissa, binary_exponent, bitcount = binary(
            value
        )  # ints: gmpy2's mpz times a float is an mpfr
        exponent = binary_exponent + bitcount - 1  # ⌊log2 |value|⌋ exactly (an mpf's mantissa is odd)
        if exponent < _UNDERFLOW_EXPONENT:
            return 0.0 if value > 0 else -0.0
        if exponent < _SMALLEST_NORMAL_EXPONENT:
            return scaled_double((-1) ** sign * mantissa, binary_exponent)
    result = float(value)
    if result != result or result in (float("inf"), float("-inf")):
        return None
    return result


def bound_double(bound: mpmath.mpf) -> float | None:
    """The smallest double ≥ ``bound`` (≥ 0), so a bound stays a bound when written as a
    double (5e-324 for a bound below every double); None beyond the largest double."""
    if bound == 0:
        return 0.0
    nearest = to_double(bound)
    if nearest is None:
        return None
    above = nearest if nearest >= bound else math.nextafter(nearest, math.inf)
    return None if math.isinf(above) else above


def directed_double(value: mpmath.mpf | Fraction, up: bool) -> float | None:
    """The smallest double ≥ ``value`` (``up``) or the largest double ≤ it: a bound written as a
    double stays a bound (an upper bound below every double is 5e-324); None beyond the largest
    double."""
    if isinstance(value, Fraction):
        if value == 0:
            return 0.0
        try:
            nearest = float(value)  # correctly rounded
        except OverflowError:
            return None
        exact = value
    else:
        if value == 0:
            return 0.0
        double = to_double(value)
        if double is None:
            return None
        nearest = double
        if not mpmath.isfinite(value):
            return nearest
        exact = fraction(value)
    if up and Fraction(nearest) < exact:
        nearest = math.nextafter(nearest, math.inf)
    elif not up and Fraction(nearest) > exact:
        nearest = math.nextafter(nearest, -math.inf)
    return None if math.isinf(nearest) else nearest


def justified_digits(value: mpmath.mpf, stderr: mpmath.mpf, digits: int) -> int:
    """Significant digits of an estimate that its standard error justifies (at most ``digits``):
    the digits down to the place of the error's leading digit."""
    if stderr <= 0 or value == 0 or not mpmath.isfinite(value):
        return digits
    places = int(mpmath.floor(mpmath.log10(abs(value)))) - int(mpmath.floor(mpmath.log10(stderr))) + 1
    return max(1, min(digits, places))
