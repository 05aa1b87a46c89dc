"""E[tanh²(X)], E[X·tanh(X)·sech²(X)], E[sech⁴(X)] and E[sech²(X)] for X ~ N(0, q) at a thousand
digits from one trapezoidal rule over sech² less the principal parts of its poles at ±iπ/2: the
rest is analytic on a strip three times as wide, so the rule takes about a third of the nodes
(its step grows with the strip's half-width; Trefethen & Weideman, "The exponentially convergent
trapezoidal rule", SIAM Review 56 (2014), Theorem 5.1, as ``engine.trapezoid``).

With f = sech², p = π/2 and P'(z) = 2(p² − z²)/(z² + p²)² = −1/(z − ip)² − 1/(z + ip)² (the
derivative of tanh's principal parts P(z) = 2z/(z² + p²); sech² = −1/(z ∓ ip)² + O(1) there),
g = f − P' is analytic on |Im z| < 3π/2 and bounded there by a constant (``subtracted_bounds``:
the maximum modulus principle on a rectangle's sides). Two
expectations are taken by the rule, E₀ = E[f(X)] and E₂ = E[X²·f(X)] (each g's plus P''s in
closed form), and the four follow exactly:

* tanh² = 1 − f, so E[tanh²] = 1 − E₀;
* f' = −2·tanh·sech², f'' = 4f − 6f² (tanh² = 1 − f), and Gaussian integration by parts
  (E[h(X)·f'(X)] = −E[f(X)·(h·ϕ_q)'(X)/ϕ_q(X)], ϕ_q the density: (xϕ_q)'/ϕ_q = 1 − x²/q,
  ϕ_q''/ϕ_q = x²/q² − 1/q) gives E[X·tanh·sech²] = −E[X·f']/2 = −(E₂ − q·E₀)/(2q) and
  E[sech⁴] = (4E₀ − E[f''])/6 = (4E₀ − (E₂ − q·E₀)/q²)/6.
* With E₄ = E[X⁴·f(X)] too, the slopes' monomials of ``computations.meanfield.prove`` (the
  same with X²): (x³ϕ_q)'/ϕ_q = 3x² − x⁴/q and (x²ϕ_q)''/ϕ_q = 2 − 5x²/q + x⁴/q², so
  E[X³·tanh·sech²] = −(E₄/q − 3E₂)/2 and E[X²·sech⁴] = (4E₂ − (2E₀ − 5E₂/q + E₄/q²))/6.

P''s smoothing in closed form, y = p/(√(2q)) and erfcx(y) = e^{y²}·erfc(y) (Faddeeva's w on the
imaginary axis, w(iy) = erfcx(y), as in ``bivariate_certified._tanh_subtracted`` at mean 0):
E[P'(X)] = (2/q)·(1 − √π·y·erfcx(y)), and from z²·P'(z) = 4p²/(z² + p²) − 2 − p²·P'(z) with
E[1/(X² + p²)] = √(π/2)·erfcx(y)/(p·√q) (1/(x² + p²) = Im(1/(x − ip))/p),
E[X²·P'(X)] = 4p²·E[1/(X² + p²)] − 2 − p²·E[P'(X)], and (z⁴·P' = z²·(z²·P'), z²/(z² + p²) =
1 − p²/(z² + p²)) E[X⁴·P'(X)] = 4p² − 4p⁴·E[1/(X² + p²)] − 2q − p²·E[X²·P'(X)].

Taken from FROM_BITS of working precision (below it the plain strip's rule is as cheap: the
rule's nodes grow with the bits, the closed forms' cost does not); the caller takes the
ordinary route for whatever this does not prove to the digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb, ctx

from ..catalog.ball_functions import TANH_NEAR_POLES_BITS
from ..engine.gaussian_balls import Term, narrow
from ..engine.trapezoid import trapezoid_expectations, working_bits
from .monomials import Monomial

TANH_SQUARED, STEIN, SECH4, SECH2 = (0, 2, 0), (1, 1, 1), (0, 0, 2), (0, 0, 1)
STEIN_X2, SECH4_X2 = (3, 1, 1), (2, 0, 2)  # X² times STEIN's and SECH4's integrands
COVERED = (TANH_SQUARED, STEIN, SECH4, SECH2, STEIN_X2, SECH4_X2)
# From this working precision (bits) on: where tanh's own strip reaches near its poles.
FROM_BITS = TANH_NEAR_POLES_BITS
# Bits of the rule's goal below the results' (the combinations above divide by q and 6 and
# subtract: a few bits, and q* of a thousand-digit meanfield is not extreme).
GUARD_BITS = 24


def applies(act_name: str, params: Sequence[object], mean: Fraction, digits: int) -> bool:
    """tanh itself (no parameters), a centred X, at a precision where the rule pays."""
    bits = (digits + 3) * math.log2(10)
    return act_name == "tanh" and not params and mean == 0 and bits >= FROM_BITS


def pole_balls(monomials: Sequence[Monomial], std: Fraction, digits: int) -> dict[Monomial, arb]:
    """{monomial: its ball} for the monomials of COVERED among ``monomials`` (X ~ N(0, std²), their
    integrands tanh², x·tanh·sech², sech⁴, sech², x³·tanh·sech², x²·sech⁴: (x^a, φ^b, φ'^c)),
    each with relative radius ≤ 10^−(digits+3) (those not that narrow are left out: the caller's
    route takes them)."""
    wanted = [m for m in dict.fromkeys(monomials) if m in COVERED]
    # Beyond 2^±64 (std 1e-330, 1e400) a float log2 fails and the rule does not pay: the caller's route.
    scale = std.numerator.bit_length() - std.denominator.bit_length()
    if not wanted or abs(scale) > 64:
        return {}
    goal_log2 = -(digits + 3) * math.log2(10) - GUARD_BITS - max(0.0, 2 * math.log2(float(std)) + 2)
    fourth = STEIN_X2 in wanted or SECH4_X2 in wanted
    with ctx.workprec(working_bits(4 * max(0.0, math.log2(float(std))) + 2, goal_log2)):
        found = _expectations(std, goal_log2, fourth)
        if found is None:
            return {}
        e0, e2 = found[0], found[1]
        q = arb(std.numerator) ** 2 / arb(std.denominator) ** 2
        centred = e2 - q * e0  # E[(X² − q)·sech²(X)] = q²·E[f''(X)]
        balls = {
            TANH_SQUARED: 1 - e0,
            STEIN: -centred / (2 * q),
            SECH4: (4 * e0 - centred / (q * q)) / 6,
            SECH2: e0,
        }
        if fourth:
            e4 = found[2]
            balls[STEIN_X2] = -(e4 / q - 3 * e2) / 2
            balls[SECH4_X2] = (4 * e2 - (2 * e0 - 5 * e2 / q + e4 / (q * q))) / 6
        balls = {m: balls[m] for m in wanted}
        return {m: ball for m, ball in balls.items() if narrow(ball, digits)}


def subtracted_bounds(second: bool = False) -> tuple[arb, tuple[tuple[arb], ...]]:
    """(W, constant bounds of |tanh − P|, |sech² − P'| and where ``second`` |tanh'' − P''| on the
    strip |Im z| ≤ W), W = π(3/2 − 2^−k) (k the precision's bit length, as tanh's own strip),
    P(z) = 2z/(z² + p²), p = π/2: for |Re z| ≥ X₀ = 2, |tanh z| ≤ coth X₀ and |sech² z| ≤
    1/sinh² X₀ (|cosh z|² = sinh² x + cos² y), |P| ≤ 2/X₀ and |P'| ≤ 2/X₀² (|z ± ip| ≥ |x|); on
    the rectangle |Re z| ≤ X₀, |Im z| ≤ W, where the differences are analytic (tanh's residues
    there are P's), the maximum modulus principle bounds them by their values on its sides: the
    vertical ones as above, the horizontal ones y = ±W by |tanh| ≤ |sec W|, |sech²| ≤ sec² W and
    |P| ≤ 2/(W − p), |P'| ≤ 2/(W − p)²; tanh'' = −2·tanh·sech²: |tanh''| ≤ 2·coth X₀/sinh² X₀
    beyond X₀, 2|sec W|³ on y = ±W, |P''| ≤ 4/X₀³, 4/(W − p)³. The real line lies in the strip,
    so the same constants bound the tails (``bivariate_certified._tanh_subtracted`` for the
    bivariate rule, ``_expectations`` here)."""
    k = max(ctx.prec.bit_length(), 6)
    p = arb.pi() / 2
    width = arb.pi() * (3 * (1 << (k - 1)) - 1) / (1 << k)
    x0, gap = arb(2), width - p
    sec_w = 1 / abs(width.cos())
    m0 = arb(((1 / x0.tanh() + 2 / x0).max(sec_w + 2 / gap)).upper())
    m1 = arb(((1 / x0.sinh() ** 2 + 2 / x0**2).max(sec_w**2 + 2 / gap**2)).upper())
    bounds: tuple[tuple[arb], ...] = ((m0,), (m1,))
    if second:
        m2 = (2 / x0.tanh() / x0.sinh() ** 2 + 4 / x0**3).max(2 * sec_w**3 + 4 / gap**3)
        bounds += ((arb(m2.upper()),),)
    return width, bounds


def _expectations(std: Fraction, goal_log2: float, fourth: bool) -> list[arb] | None:
    """[E[sech²(X)], E[X²·sech²(X)] and where ``fourth`` E[X⁴·sech²(X)]] within 2^goal_log2 each
    (and the arithmetic's radius), or None where the rule needs too many nodes."""
    width, bounds = subtracted_bounds()
    bound = bounds[1][0]  # |sech² − P'| on the strip
    p = arb.pi() / 2
    p2 = p * p

    def values(x: arb, ex: arb) -> list[arb]:
        e2 = ex * ex
        inverse = 1 / (e2 + 1)
        x2 = x * x
        r = 1 / (x2 + p2)
        g = 4 * e2 * inverse * inverse - 2 * (p2 - x2) * r * r
        g2 = x2 * g
        return [g, g2, x2 * g2] if fourth else [g, g2]

    # on the real line |sech²| ≤ 1 and |P'(x)| ≤ 2/(x² + p²) ≤ 2/p² < 1: |g| ≤ 2
    growth = [(Term(2),), (Term(2, 2),), (Term(2, 4),)][: 3 if fourth else 2]
    zero = arb(0)
    strips = [[bound], [zero, zero, bound], [zero, zero, zero, zero, bound]][: 3 if fourth else 2]
    rule = trapezoid_expectations(
        values,
        strips,
        width,
        growth,
        Fraction(0),
        std,
        goal_log2,
        even=True,
    )
    if rule is None:
        return None
    s = arb(std.numerator) / arb(std.denominator)
    q = s * s
    y = p / (s * arb(2).sqrt())
    erfcx = (y * y).exp() * y.erfc()
    slope = 2 / q * (1 - arb.pi().sqrt() * y * erfcx)  # E[P'(X)]
    reciprocal = (arb.pi() / 2).sqrt() * erfcx / (p * s)  # E[1/(X² + p²)]
    second = 4 * p2 * reciprocal - 2 - p2 * slope  # E[X²·P'(X)]
    fourth_part = 4 * p2 - 4 * p2 * p2 * reciprocal - 2 * q - p2 * second  # E[X⁴·P'(X)]
    found = [rule[0] + slope, rule[1] + second]
    return found + [rule[2] + fourth_part] if fourth else found


__all__ = ["COVERED", "FROM_BITS", "applies", "pole_balls", "subtracted_bounds"]
