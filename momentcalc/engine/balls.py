"""Arb balls (python-flint): working precision and exact conversions.

``import flint`` costs about as much as ``import mpmath``; only the paths that prove digits
import this module's helpers' flint, lazily, inside the functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
import math
from typing import Any
import mpmath
from mpmath import mp

from .precision import Precision


@contextmanager
def arb_precision(bits: int) -> Iterator[None]:
    """Arb's working precision set to ``bits`` inside the block (restored after, like
    mpmath's ``workprec``)."""
    from flint import ctx

    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def exact_ball(value: Fraction | int) -> Any:
    """A rational as an arb ball (exact when its denominator is a power of 2, else a ball of
    the current precision around it)."""
    from flint import arb, fmpq

    value = Fraction(value)
    return arb(fmpq(value.numerator, value.denominator))


def ball_radius(ball: Any) -> Any:
    """The radius of an arb as an mpf (exact: Arb radii are short binary numbers)."""
    mantissa, exponent = (int(x) for x in ball.rad().man_exp())
    return mpmath.ldexp(mpmath.mpf(mantissa), exponent)


def ball_midpoint(ball: Any) -> Any:
    """The midpoint of an arb as an mpf with every bit."""
    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    with mp.workprec(max(53, mantissa.bit_length())):
        return mpmath.ldexp(mpmath.mpf(mantissa), exponent)


def midpoint_fraction(ball: Any) -> Fraction:
    """The midpoint of an arb exactly, as a Fraction (an exact ball's value, or a ball's end
    taken with ``.lower()``/``.upper()``)."""
    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    return Fraction(mantissa) * Fraction(2) ** exponent


def abs_normal_moments(n: int) -> list[Any]:
    """E|Z|^j for j = 0..n, Z ~ N(0, 1), as balls: 1, sqrt(2/π), then E|Z|^j = (j − 1)·E|Z|^(j−2)."""
    from flint import arb

    moments = [arb(1), (2 / arb.pi()).sqrt()]
    for j in range(2, n + 1):
        moments.append((j - 1) * moments[j - 2])
    return moments[: n + 1]


def bits_short(balls: Any, wanted: float) -> float:
    """How many bits the widest of ``balls`` falls short of a relative width 2^−``wanted`` (≤ 0:
    none does; a ball around 0 that is not exactly 0 falls short by ``wanted``)."""
    short = 0.0
    for ball in balls:
        if ball.rad() == 0:
            continue
        if ball.mid() == 0 or not abs(ball.mid()) > 0:
            short = max(short, wanted)
            continue
        short = max(short, float((ball.rad() / abs(ball.mid())).log()) / math.log(2) + wanted)
    return short


# Goals lowered (cancellation) at most this often by the bivariate routes.
GOAL_ATTEMPTS = 3


def lowered_goals(
    evaluate: Callable[[float], list[Any] | None],
    least_log2: float,
    wanted: float,
    attempts: int = GOAL_ATTEMPTS,
) -> list[Any] | None:
    """The bivariate routes' precision loop, written once: ``evaluate(goal_log2)`` gives balls
    whose absolute errors are at most 2^goal_log2, the goal first ``wanted`` + 6 bits below the
    smaller integrand's size 2^``least_log2``; where the widest ball then falls short of the relative
    width 2^−``wanted`` (cancellation: the value is smaller than the integrand's size), the goal is
    lowered by the shortfall and 8 bits more, at most ``attempts`` times in all. None where an
    evaluation is None (the route does not apply); else the last balls (the caller decides)."""
    loss = 0.0
    balls: list[Any] | None = None
    for _ in range(attempts):
        balls = evaluate(least_log2 - wanted - 6 - loss)
        if balls is None:
            return None
        short = bits_short(balls, wanted)
        if short <= 0:
            return balls
        loss += short + 8
    return balls


def start_bits(digits: int) -> int:
    """A first Arb precision for ``digits`` correct digits: the digits plus 32 guard bits
    (``Precision(digits).start_bits``)."""
    return Precision(digits).start_bits


def max_bits() -> int:
    """Where a proof gives up (exit 3): the mpmath route's limit, in bits."""
    return Precision(1).max_bits


def proven(ball: Any) -> dict[str, Any]:
    """Quantity fields of a decided ball: its midpoint as ``value``, ``certified`` and its radius
    as ``error_bound``."""
    return {"value": ball_midpoint(ball), "certified": True, "error_bound": ball_radius(ball)}


def exactly(value: Fraction) -> dict[str, Any]:
    """Quantity fields of an exact rational: its mpf as ``value`` (every bit when it is binary),
    the fraction itself (what is rounded), ``certified`` with ``error_bound`` 0."""
    value = Fraction(value)
    with mp.workprec(max(113, value.numerator.bit_length() + 64)):
        number = mpmath.mpf(value.numerator) / value.denominator
    return {"value": number, "exact": value, "certified": True, "error_bound": mpmath.mpf(0)}
