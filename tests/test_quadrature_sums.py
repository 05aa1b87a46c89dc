"""The double-exponential route's inner sums work on mpmath's raw values: their shortcuts must
decide exactly what the mpf operations would."""

from __future__ import annotations

import random

import mpmath
from mpmath import mp
from mpmath.libmp import mpf_gt, mpf_mul

from momentcalc.engine.gaussian_quadrature import _Accumulator


def test_negligible_terms_are_decided_as_the_product_decides():
    """loud() settles |term| > quiet·sum from the exponents where it can; near the threshold
    (and for zeros) it multiplies. Seeded cases at, just off, and far from the threshold."""
    rng = random.Random(12)
    for dps in (20, 60):
        with mp.workdps(dps):
            prec, rounding = mp._prec_rounding
            for case in range(1500):
                quiet = mpmath.mpf(10) ** -rng.randint(3, 70) * mpmath.ldexp(1, rng.randint(-3, 3))
                total = _Accumulator(3, quiet)
                sums = [
                    mpmath.ldexp(mpmath.mpf(rng.randint(1, 2 ** rng.randint(1, 200))), rng.randint(-300, 300))
                    for _ in range(3)
                ]
                if case % 7 == 0:
                    sums[0] = mp.zero
                total.absolutes = [s._mpf_ for s in sums]
                terms = []
                for s in sums:
                    threshold = quiet * s
                    shift = rng.choice([0, 1, -1, 2, -2, 3, -3, prec, -prec, 900, -900])
                    if abs(shift) <= 3:  # a mantissa of its own, its top bit near the threshold's
                        bits = rng.randint(1, prec)
                        mantissa = rng.randint(2 ** (bits - 1), 2**bits - 1)
                        top = int(mpmath.floor(mpmath.log(threshold, 2))) + 1 if threshold else 0
                        term = mpmath.ldexp(mpmath.mpf(mantissa), top + shift - bits)
                    else:  # just off the threshold
                        term = threshold * (1 + mpmath.ldexp(1, -abs(shift)) * (1 if shift > 0 else -1))
                    if case % 11 == 0:
                        term = mp.zero
                    terms.append((None, abs(term)._mpf_))
                expected = [
                    i
                    for i, (_, size) in enumerate(terms)
                    if mpf_gt(size, mpf_mul(quiet._mpf_, total.absolutes[i], prec, rounding))
                ]
                assert total.loud(terms) == expected, (dps, case)
