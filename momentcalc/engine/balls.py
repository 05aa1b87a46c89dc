"""Arb balls (python-flint): working precision and exact conversions.

``import flint`` costs about as much as ``import mpmath``; only the paths that prove digits
import this module's helpers' flint, lazily, inside the functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any


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
    import mpmath

    mantissa, exponent = (int(x) for x in ball.rad().man_exp())
    return mpmath.ldexp(mpmath.mpf(mantissa), exponent)


def ball_midpoint(ball: Any) -> Any:
    """The midpoint of an arb as an mpf with every bit."""
    import mpmath
    from mpmath import mp

    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    with mp.workprec(max(53, mantissa.bit_length())):
        return mpmath.ldexp(mpmath.mpf(mantissa), exponent)
