"""``gau-scale``'s seed results (Su, 2022, GAU at initialization) proven in Arb balls.

mu = E[φ(Z)] and nu2 = E[φ(Z)²] are the certified moments (balls that contain the exact
values); the closed forms built from them (s·ν⁴/n, s·μ⁴/n, ν⁴/μ⁴, s·ν⁶/n, λ = init_std·sqrt(d),
λ⁷·s·ν⁶/n and its inverse) are evaluated on those balls, and each is printed only when its
whole ball rounds alike (``tier.prove``, keeping what rounds). Exact where exact: μ = 0 for an odd φ (so
A_ij = 0 and the ratio is infinite), λ = 1 under LeCun and rational when d is a perfect square.
The moments' closed form E[φ²] is used exactly when it is rational (relu 1/2, leaky_relu
(1 + slope²)/2: 0.545 at slope 0.3 is a tie the balls could never decide). A value the balls
cannot decide within a few precision raises stays the mpmath route's, ``certified: false``.
attention_diag_mean, (m4 + (s−1)·m2²)/n, is proven the same way where λ is exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath

from ...catalog import resolve
from ...engine.numbers import Number, rational_sqrt
from ...engine.precision import MAX_INTERNAL_DIGITS
from ...errors import MomentcalcError
from ...moments import expectation_balls
from ...moments.exact import exact_expectations
from ...moments.monomials import SECOND_MOMENT
from ...tier import INFINITY, Precision, digits_for, exact_ball, prove
from .numeric import MOMENT_GUARD

# Precision doublings tried.
RAISES = 2
THEORY = (
    "mu",
    "nu2",
    "nu",
    "diag_attention",
    "offdiag_attention",
    "diag_offdiag_ratio",
    "output_scale",
    "lambda",
    "scaled_output",
    "deepnorm_alpha",
)


def proven_theory(
    activation: str,
    params: Mapping[str, object] | None,
    sizes: dict[str, Number],
    std: Number | None,
    digits: int,
    monomials: Sequence[tuple[int, int, int]] = ((0, 1, 0), (0, 2, 0)),
) -> dict[str, dict[str, Any]]:
    """Quantity fields (value, certified, error_bound, exact) of every seed result that is
    proven; results left out keep the mpmath route's value. ``monomials`` start with E[φ] and
    E[φ²] (the caller's, so that the moments' cache serves both)."""

    def moments(extra: int) -> list[Any]:
        wanted = min(MAX_INTERNAL_DIGITS, digits + MOMENT_GUARD + extra)
        return expectation_balls(activation, list(monomials), mean=0, std=1, digits=wanted, params=params)[:2]

    s, n, d = (Fraction(sizes[k]) for k in ("s", "n", "d"))
    exact: dict[str, Any] = {}
    if std is None:
        exact["lambda"] = Fraction(1)
    else:
        root = rational_sqrt(d)
        if root is not None:
            exact["lambda"] = Fraction(std) * root
    try:
        mu0, _nu2 = moments(0)
    except MomentcalcError:
        return {}
    odd_zero = mu0.is_exact() and mu0.is_zero()
    if odd_zero:
        exact.update(mu=Fraction(0), offdiag_attention=Fraction(0), diag_offdiag_ratio=mpmath.inf)

    # E[φ(Z)²] when the catalog's closed form is rational: relu 1/2, leaky_relu (1 + slope²)/2, …
    # (what init's exact_second_moment gives, without importing init and its dataclasses)
    nu2_exact = exact_expectations(resolve(activation, params or {}), (SECOND_MOMENT,), 0, 1).get(
        SECOND_MOMENT
    )
    if nu2_exact is not None:
        output = s * nu2_exact**3 / n
        exact.update(nu2=nu2_exact, diag_attention=s * nu2_exact**2 / n, output_scale=output)
        root = rational_sqrt(nu2_exact)
        if root is not None:
            exact["nu"] = root
        if "lambda" in exact:
            exact["scaled_output"] = exact["lambda"] ** 7 * output
            exact["deepnorm_alpha"] = 1 / exact["scaled_output"]
    first = Precision(digits).start_bits

    def evaluate(bits: int) -> dict[str, Any]:
        mu, nu2 = moments(digits_for(bits - first))
        nu4 = nu2 * nu2
        output = exact_ball(s) * nu4 * nu2 / exact_ball(n)
        lam = exact_ball(1) if std is None else exact_ball(Fraction(std)) * exact_ball(d).sqrt()
        scaled = lam**7 * output
        values = {
            "mu": mu,
            "nu2": nu2,
            "nu": nu2.sqrt(),
            "diag_attention": exact_ball(s) * nu4 / exact_ball(n),
            "output_scale": output,
            "lambda": lam,
            "scaled_output": scaled,
            "deepnorm_alpha": 1 / scaled,
        }
        if not odd_zero:
            mu4 = mu**4
            values.update(offdiag_attention=exact_ball(s) * mu4 / exact_ball(n), diag_offdiag_ratio=nu4 / mu4)
        return values

    # Each result as soon as its ball rounds; one that never does (in RAISES doublings) is left
    # to the mpmath route rather than holding the others back.
    fields = prove(
        evaluate,
        digits,
        exact={name: INFINITY if value is mpmath.inf else value for name, value in exact.items()},
        start_bits=first,
        raises=RAISES,
    )
    out = {name: fields[name] for name in THEORY if name in fields}
    diag = _proven_diag_mean(activation, params, s, n, exact.get("lambda"), digits, monomials)
    if diag is not None:
        out["attention_diag_mean"] = diag
    return out


def _proven_diag_mean(
    activation: str,
    params: Mapping[str, object] | None,
    s: Fraction,
    n: Fraction,
    lam: Fraction | None,
    digits: int,
    monomials: Sequence[tuple[int, int, int]],
) -> dict[str, Any] | None:
    """The Quantity fields of E[A_ii] = (m4 + (s−1)·m2²)/n on balls of m_k = E[φ(λZ)^k], when λ
    is exact (LeCun init, or init_std·sqrt(d) with d a perfect square); None when it is not, when
    m4 diverges or when the ball does not round within RAISES precision raises (the mpmath route's
    value stays, ``certified: false``)."""
    if lam is None:
        return None
    # the calls gau-scale's mpmath route makes too (the moments' cache answers them)
    calls = [list(monomials), [(0, 4, 0)]] if lam == 1 else [[(0, 1, 0), (0, 2, 0), (0, 4, 0)]]
    start = Precision(digits).start_bits

    def evaluate(bits: int) -> dict[str, Any]:
        extra = (bits // start).bit_length() - 1  # the moments 10 digits further each doubling
        found: dict[tuple[int, int, int], Any] = {}
        for wanted in calls:
            if (0, 4, 0) not in found:
                found.update(
                    zip(
                        wanted,
                        expectation_balls(
                            activation,
                            wanted,
                            mean=0,
                            std=lam,
                            params=params,
                            digits=min(MAX_INTERNAL_DIGITS, digits + MOMENT_GUARD + 10 * extra),
                        ),
                    )
                )
        m2, m4 = found[(0, 2, 0)], found[(0, 4, 0)]
        return {"attention_diag_mean": (m4 + exact_ball(s - 1) * m2 * m2) / exact_ball(n)}

    return prove(evaluate, digits, start_bits=start, raises=RAISES).get("attention_diag_mean")
