"""The inner smoothing of the certified bivariate rule (``engine.bivariate_balls``) for
activations that are only piecewise analytic — a kink (softsign = x/(1 + |x|), expressions
with abs, max, min) or a pole or branch point near the real line, so that no strip route
applies:

    ψ(m) = E[φ(m + b·V)],   ψ₁(m) = E[φ'(m + b·V)],   V ~ N(0, 1),

at each outer node m = a·w_j, as balls holding the exact values. ψ is entire whatever φ is (a
Gaussian convolution of a function of polynomial growth), so the outer trapezoidal rule and its
bound are the engine's; only ψ at the nodes changes. Each ψ(m) is a univariate expectation,
proven by Arb's integration of φ's analytic pieces between its kinks
(``engine.gaussian_balls.gaussian_expectation_within``, to an absolute goal: on each piece the
branch formula, softsign's x/(1 + x) on [0, ∞)), at the exact midpoints (m̂, b̂) of the node's
balls, widened by a proven Lipschitz bound over them. Differentiating the density under the
integral,

    ∂ψ/∂m = E[φ(m + bV)·V]/b,   ∂ψ/∂b = E[φ(m + bV)·(V² − 1)]/b,

so with |φ(x)| ≤ P(|x|) on the real line (P with non-negative coefficients), |m| ≤ M and
b_lo ≤ b ≤ B over the balls, each partial is at most E[P(M + B|V|)·(1 + |V| + V²)]/b_lo, a
sum of absolute normal moments; the mean value theorem on the (convex) box then bounds
|ψ(m, b) − ψ(m̂, b̂)| by (|m − m̂| + |b − b̂|) times it. (softsign's half-line closed form,
``engine.reciprocal``, would serve too, but its series costs more than the integral where
the half-line lies far in the tail.)

Where φ has a known parity (odd or even; φ' the other), ψ(−m) = ±ψ(m): the nodes m < 0 are
mirrored, not integrated. None when a piece cannot be enclosed (the caller's value stays
unproven, never wrong).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb

from ..catalog import Activation
from ..engine.gaussian_balls import NotCertified, UnboundedTail, gaussian_expectation_within
from ..errors import PrecisionError
from .activation_balls import integrand, model_of
from ..engine.balls import abs_normal_moments, midpoint_fraction

# The monomials (a, b, c) of E[x^a·φ^b·φ'^c] for ψ (integrand 0) and ψ₁ (integrand 1).
_MONOMIALS = ((0, 1, 0), (0, 0, 1))


def lipschitz_bound(poly: Sequence[arb], mean: arb, std: arb) -> arb:
    """An upper bound of |∂ψ/∂m| and of |∂ψ/∂b| over the balls ``mean`` × ``std`` (std > 0),
    for |φ(x)| ≤ Σ poly[k]·|x|^k: E[P(M + B|V|)·(1 + |V| + V²)]/b_lo (module docstring)."""
    M, B, low = arb(abs(mean).upper()), arb(std.upper()), arb(std.lower())
    mu = abs_normal_moments(len(poly) + 2)
    total = arb(0)
    for k, coefficient in enumerate(poly):
        for j in range(k + 1):
            weight = math.comb(k, j) * M ** (k - j) * B**j
            total += coefficient * weight * (mu[j] + mu[j + 1] + mu[j + 2])
    return arb((total / low).upper())


def kinked_smoothing(act: Activation, polys: Sequence[Sequence[arb]], which: Sequence[int]):
    """The ``engine.bivariate_balls`` smoothing for the integrands ``which`` (0: φ, 1: φ'),
    ``polys`` the real-line bounds of |φ| and |φ'| (module docstring)."""
    model = model_of(act, Fraction(0))
    integrands = [integrand(model, _MONOMIALS[i]) for i in which]
    # φ odd makes φ' even and the other way round: (parity of φ, of φ'), +1 even, −1 odd
    parity = {"odd": (-1, 1), "even": (1, -1)}.get(act.parity or "")

    def integrated(mean: arb, std: arb, goal: arb) -> list[arb] | None:
        """[ψ_i(mean)] for i in ``which``, each within about ``goal`` plus the Lipschitz term."""
        m, s = midpoint_fraction(mean), midpoint_fraction(std)
        if not s > 0:
            return None
        spread = arb((abs(mean - arb(mean.mid())) + abs(std - arb(std.mid()))).upper())
        goal_log2 = float(goal.log().upper()) / math.log(2) - 2
        out = []
        for i, g in zip(which, integrands):
            try:
                value = gaussian_expectation_within(g, mean=m, std=s, goal_log2=goal_log2)
            except (NotCertified, UnboundedTail, PrecisionError):
                return None
            if not value.is_finite():
                return None
            if spread != 0:
                value += arb(0, (spread * lipschitz_bound(polys[i], mean, std)).upper())
            out.append(value)
        return out

    def smoothing(means: Sequence[arb], std: arb, goal: arb | None = None) -> list[list[arb]] | None:
        if goal is None or not std > 0:
            return None
        n = len(means)
        centre = n // 2  # the means are a·h·j, j = −nodes..nodes: symmetric about 0
        out: list[list[arb]] = [[arb(0)] * n for _ in which]
        for j in range(centre if parity is not None else 0, n):
            values = integrated(means[j], std, goal)
            if values is None:
                return None
            for i, value in enumerate(values):
                out[i][j] = value
                if parity is not None and j > centre:
                    out[i][n - 1 - j] = parity[which[i]] * value
        return out

    return smoothing


__all__ = ["kinked_smoothing", "lipschitz_bound"]
