"""mpmath's internals, in one place: raw mpf values and the ``mpmath.libmp`` operations on them.

An mpf ``x`` is held by mpmath as a raw tuple ``(sign, mantissa, exponent, bitcount)``,
x = (−1)^sign·mantissa·2^exponent (mantissa odd, of ``bitcount`` bits; a zero mantissa marks
0, ±inf and nan). ``mpmath.libmp``'s functions (``mpf_add``, ``mpf_mul``, …) work on those
tuples at an explicit precision and rounding, and round exactly as the mpf operators do at the
context's precision: the Gaussian quadrature (``engine.gaussian_quadrature``) and Post-Norm's
per-layer weights (``computations.postnorm_series``) sum and multiply on them without creating
an mpf object per term. None of this is mpmath's documented API, so no other module of
momentcalc touches it: they import these names from here (``tests/test_dependencies.py`` fails
otherwise). ``pyproject.toml`` pins mpmath to the versions where it holds (``>=1.3,<1.4``), and
the same test checks each assumption below on the installed mpmath:

* ``to_raw(x)``: x's raw tuple; ``make(raw)``: the mpf of a raw tuple (no rounding);
* ``PREC_ROUNDING``: the context's ``[precision in bits, rounding mode]``, a list mpmath updates
  in place whenever the precision changes (``mp.workdps`` included), so a module may keep it;
* ``binary(x)``: (sign, mantissa, exponent, bitcount) with Python ints (gmpy2's ``mpz`` under
  mpmath's GMP backend), and ``fraction(x)`` the exact value of a finite x;
* ``raw_abs``, ``exceeds_product``: two shortcuts on raw values that decide exactly what the
  libmp operation would.
"""

from __future__ import annotations

from fractions import Fraction
from operator import attrgetter
from typing import Any

from mpmath import mp
from mpmath.libmp import (
    fzero,
    mpf_abs,
    mpf_add,
    mpf_exp,
    mpf_ge,
    mpf_gt,
    mpf_mul,
    mpf_neg,
    mpf_shift,
    mpf_sub,
    round_nearest,
)

__all__ = [  # the raw operations momentcalc uses, and the helpers below
    "PREC_ROUNDING",
    "Raw",
    "binary",
    "exceeds_product",
    "fraction",
    "fzero",
    "is_mpf",
    "make",
    "mpf_abs",
    "mpf_add",
    "mpf_exp",
    "mpf_ge",
    "mpf_gt",
    "mpf_mul",
    "mpf_neg",
    "mpf_shift",
    "mpf_sub",
    "raw_abs",
    "round_nearest",
    "to_raw",
]

Raw = tuple  # (sign, mantissa, exponent, bitcount)

to_raw = attrgetter("_mpf_")
make = mp.make_mpf
PREC_ROUNDING: list = mp._prec_rounding


def is_mpf(value: Any) -> bool:
    """Is ``value`` a real mpf (without importing anything to ask)?"""
    return hasattr(value, "_mpf_")


def binary(value: Any) -> tuple[int, int, int, int]:
    """(sign, mantissa, exponent, bitcount) of an mpf, value = (−1)^sign·mantissa·2^exponent,
    as Python ints; mantissa 0 for 0, ±inf and nan."""
    sign, mantissa, exponent, bitcount = value._mpf_
    return sign, int(mantissa), int(exponent), int(bitcount)


def fraction(value: Any) -> Fraction:
    """The exact value of a finite mpf (a binary fraction)."""
    sign, mantissa, exponent, _ = value._mpf_
    exact = Fraction(int(mantissa)) * Fraction(2) ** int(exponent) if mantissa else Fraction(0)
    return -exact if sign else exact


def raw_abs(value: Raw) -> Raw:
    """|value| of a raw value already rounded to the working precision: the sign cleared (what
    ``mpf_abs`` at that precision returns, without renormalising)."""
    return (0, value[1], value[2], value[3]) if value[0] else value


def exceeds_product(size: Raw, factor: Raw, total: Raw, prec: int, rounding: str) -> bool:
    """size > factor·total (all ≥ 0), the product rounded at ``prec``/``rounding``.

    A raw value with a nonzero mantissa lies in [2^(exp+bc−1), 2^(exp+bc)), so factor·total lies
    in [2^(m−2), 2^m) with m the two exponent sums added (rounding to nearest keeps it in
    [2^(m−2), 2^m]): a size below 2^(m−2) or at least 2^(m+1) is decided without the product,
    the others (and zeros) by it."""
    if size[1] and total[1] and factor[1]:
        top, bound_top = size[2] + size[3], factor[2] + factor[3] + total[2] + total[3]
        if top <= bound_top - 2:
            return False
        if top > bound_top + 1:
            return True
    return mpf_gt(size, mpf_mul(factor, total, prec, rounding))
