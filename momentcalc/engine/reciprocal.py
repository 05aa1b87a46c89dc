"""Gaussian expectations of integer powers of 1 + x over the half-line x > 0, proven (Arb balls):

    K_n = E[(1 + X)^{−n}; X > 0] = ∫_0^∞ (1 + x)^{−n} p(x) dx,   X ~ N(m, s²), n ∈ Z,

the pieces of the moments of an activation that is a Laurent polynomial in 1 + |x| on each side
of 0 (softsign, x/(1 + |x|)), with no numerical integral.

K_0 = Φ(m/s); integrating d/dx[(1 + x)^{−n}·p(x)] over (0, ∞), with p'(x) = −(x − m)/s²·p(x)
and x − m = (1 + x) − (1 + m),

    n·K_{n+1} = p(0) − (K_{n−1} − (1 + m)·K_n)/s²     (every integer n),

which gives K_2, K_3, … upward from K_0 and K_1, and K_{−1}, K_{−2}, … downward (n = 0, −1, …).
K_1 is the one transcendental part, a Goodwin–Staton-type integral: with τ = (1 + x)/(s√2),
z = (1 + m)/(s√2) and d = 1/(s√2),

    K_1 = e^{−z²}/(s√(2π)) · ∫_d^∞ e^{−τ² + 2zτ} dτ/τ = e^{−z²}/(s√(2π)) · Σ_{n≥0} (2z)^n/n!·G_n,

    G_n = ∫_d^∞ τ^{n−1}e^{−τ²} dτ = Γ(n/2, d²)/2:  G_0 = E_1(d²)/2,  G_1 = √π·erfc(d)/2,
    G_{n+2} = d^n·e^{−d²}/2 + (n/2)·G_n   (by parts; every term positive).

Truncation, proven: 0 < G_n ≤ Γ(n/2)/2 (n ≥ 1), so the n-th term is at most
U_n = |2z|^n·Γ(n/2)/(2·n!), and U_{n+2}/U_n = 2z²·n/((n + 1)(n + 2)) ≤ 1/2 once n + 2 ≥ 4z²:
the tail after the N-th term is at most 2(U_{N+1} + U_{N+2}). For z < 0 the series alternates
and cancels by about e^{(|z| + d)²} (its terms against the value, e^{−(|z|+d)²}-small): that many
extra bits are used. Where that (or the 4z² terms of a large z > 0) would cost more than
MAX_WORK bit-terms, the series is not summed: for z < 0 the half-line then holds a mass
K_0 = Φ(m/s) below about e^{−(|z|+d)²}, and K_n (n ≥ 1) is given as the ball [0, K_0]
(0 < (1 + x)^{−n} ≤ 1 there), which the caller's sum absorbs when that half is negligible;
for z > 0 the answer is None.
"""

from __future__ import annotations

import math

from flint import arb, ctx

# The series' cost limit: terms (at least 4z², and about one per bit of precision) times bits.
MAX_WORK = 4 * 10**7
# Above this many terms (4z², z > 0) the series is left to the caller's integrator: the pole of
# (1 + x)^{−n} at x = −1 is then z·√2 > 44 standard deviations from the mean, so the integrand
# is analytic in a wide strip around the Gaussian's mass and the trapezoidal rule converges at
# once (softsign at std 0.003, a deep network's layer: 4 s here, 6 ms there).
SMOOTH_TERMS = 4000


def _series_plan(m: arb, s: arb, goal: int) -> tuple[float, int, int] | None:
    """(z, extra bits, the most terms allowed) for the series at ``goal`` bits, or None when
    it would cost more than MAX_WORK."""
    with ctx.workprec(64):
        root2 = arb(2).sqrt()
        z, d = (1 + m) / (s * root2), 1 / (s * root2)
        zf, df = float(z.mid()), float(d.mid())
    if not (math.isfinite(zf) and math.isfinite(df)) or 4 * zf * zf > MAX_WORK:
        return None
    if zf > 0 and 4 * zf * zf > SMOOTH_TERMS:
        return None
    extra = int(1.4427 * (abs(zf) + df) ** 2) + 16 if zf < 0 else 16
    max_terms = MAX_WORK // (goal + extra)
    if 4 * zf * zf + goal / 2 > max_terms:
        return None
    return zf, extra, max_terms


def reachable(mean: arb, std: arb, goal: int) -> bool:
    """Will ``half_line_moments`` answer at ``goal`` bits (a cheap check before the work)?"""
    return _series_plan(mean, std, goal) is not None or (1 + mean < 0)


def _series_k1(m: arb, s: arb) -> arb | None:
    """K_1 by the series above, at the current precision (plus the alternating series' loss);
    None when it would cost more than MAX_WORK."""
    goal = ctx.prec
    plan = _series_plan(m, s, goal)
    if plan is None:
        return None
    zf, extra, max_terms = plan
    with ctx.workprec(goal + extra):
        root2 = arb(2).sqrt()
        z, d = (1 + m) / (s * root2), 1 / (s * root2)
        d2 = d * d
        edge = (-d2).exp() / 2  # d^n·e^{−d²}/2, n = 0
        g = [d2.expint(1) / 2, arb.pi().sqrt() * d.erfc() / 2]  # G_n, G_{n+1}
        coefficient = arb(1)  # (2z)^n / n!
        total = arb(0)
        small = arb(2) ** -(goal + 8)
        n = 0
        while True:
            term = coefficient * g[0]
            total += term
            if n + 2 >= 4 * zf * zf and n >= 2 and abs(term) <= small * abs(total):
                tail = 2 * (_term_bound(z, n + 1) + _term_bound(z, n + 2))
                if tail <= small * abs(total):
                    total += arb(0, tail.upper())
                    break
            if n > max_terms:
                return None
            g = [g[1], edge + n * g[0] / 2]  # G_{n+1}, G_{n+2}
            edge *= d
            coefficient *= 2 * z / (n + 1)
            n += 1
        return (-z * z).exp() / (s * (2 * arb.pi()).sqrt()) * total


def _term_bound(z: arb, n: int) -> arb:
    """U_n = |2z|^n·Γ(n/2)/(2·n!)."""
    return arb(((2 * abs(z)) ** n * (arb(n) / 2).gamma() / (2 * arb.fac_ui(n))).upper())


def half_line_moments(mean: arb, std: arb, low: int, high: int) -> dict[int, arb] | None:
    """K_n for low ≤ n ≤ high (low ≤ 0 < high) at the current precision; the K_n with n ≥ 1
    as the balls [0, K_0] where the series would cost too much and 1 + mean < 0 (a half-line
    in the far tail), None where it would and 1 + mean ≥ 0 (a mean far beyond the std)."""
    m, s = mean, std
    s2 = s * s
    density = (-(m * m) / (2 * s2)).exp() / (s * (2 * arb.pi()).sqrt())  # p(0)
    k = {0: (-m / (s * arb(2).sqrt())).erfc() / 2}
    k1 = _series_k1(mean, std)
    if k1 is not None:
        k[1] = k1
        for n in range(1, high):
            k[n + 1] = (density - (k[n - 1] - (1 + m) * k[n]) / s2) / n
    elif 1 + m < 0:
        for n in range(1, high + 1):
            k[n] = k[0].union(arb(0))
    else:
        return None
    for n in range(0, low, -1):
        k[n - 1] = (1 + m) * k[n] + s2 * (density - n * k[n + 1])
    return {n: k[n] for n in range(low, high + 1)}


__all__ = ["MAX_WORK", "half_line_moments", "reachable"]
