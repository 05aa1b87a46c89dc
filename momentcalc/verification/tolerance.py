"""How a published value is compared with the computed one, by the way it was printed.

- ``truncated``: "0.7737413…" — the true value starts with these digits (p ≤ |v| < p + ulp).
- ``rounded``: "≈ 0.0176" — the true value rounds to it (|v − p| ≤ ulp/2).
- ``double``: ".87962566103423978" — a constant written as an IEEE double: within one ulp.
- ``magnitude``: "at the level of 0.01" — the same order of magnitude (|log10(v/p)| ≤ 1/2).
- ``exact``: a formula (2^(−l/2), sqrt(2), 2/(d_in + d_out)): equal to every computed digit.
"""

from __future__ import annotations

import math

import mpmath
from mpmath import mp

from ..engine.rounding import decimal_text
from ..engine.written import last_digit_unit
from ..engine.numbers import to_mpf

KINDS = ("truncated", "rounded", "double", "magnitude", "exact")


def agreeing_digits(computed: mpmath.mpf, published: mpmath.mpf, cap: int) -> int:
    """The most significant digits n ≤ ``cap`` to which both round alike (half away from zero,
    as audit and identify count them): a published value correctly rounded to its 32 digits
    agrees in 32, though its last digit differs from the computed value's 32nd."""
    if computed == published:
        return cap
    if computed == 0 or published == 0:
        return 0
    with mp.workdps(cap + 10):
        for n in range(cap, 0, -1):
            if decimal_text(computed, n) == decimal_text(published, n):
                return n
    return 0


def within(kind: str, computed: mpmath.mpf, published: mpmath.mpf, text: str, digits: int) -> bool:
    """Does the computed value match the published one under its printing convention?"""
    with mp.workdps(digits + 10):
        if kind == "truncated":
            p, ulp = abs(published), to_mpf(last_digit_unit(text))
            return bool(p <= abs(computed) < p + ulp) and (computed < 0) == (published < 0)
        if kind == "rounded":
            return bool(abs(computed - published) <= to_mpf(last_digit_unit(text)) / 2)
        if kind == "double":
            double = float(published)
            return abs(float(computed) - double) <= math.ulp(double)
        if kind == "magnitude":
            return bool(abs(mpmath.log10(computed / published)) <= mpmath.mpf(1) / 2)
        if kind == "exact":
            return bool(abs(computed - published) <= abs(published) * mpmath.mpf(10) ** (-digits))
    raise ValueError(f"unknown tolerance kind {kind!r}")
