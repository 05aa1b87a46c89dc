"""The chaotic phase's correlation fixed point c* and the slope of the correlation map there,
proven in Arb balls from certified bivariate expectations (``moments.bivariate_certified``)
for activations without a closed-form kernel (Poole et al. 2016; Schoenholz et al. 2017).

With F(c) = R(c) − c = (σ_w²·K(c) + σ_b²)/q* − c, K(c) = E[φ(u₁)φ(u₂)] and, by Price's
theorem, F'(c) = σ_w²·K₁(c) − 1 with K₁(c) = E[φ'(u₁)φ'(u₂)] (the slope of the correlation
map is σ_w²·K₁(c)):

* one evaluation of (K, K₁) at an exact point c₀ near c* (the mpmath route's estimate), for
  every q in q*'s ball, gives F(c₀) and F'(c₀); the Newton point c₁ = c₀ − F(c₀)/F'(c₀).
  The evaluation is at q*'s exact midpoint, widened by |q − mid|·sup|∂K/∂q| where given
  (``q_slopes``): with X ~ N(0, qΣ), ∂_q log p = (χ − 2)/(2q), χ = XᵀΣ⁻¹X/q ~ χ²₂ with
  variance 4, so by Cauchy–Schwarz |∂K/∂q| ≤ sqrt(E[φ(X₁)²φ(X₂)²])/q ≤ sqrt(E_q[φ⁴])/q, and
  E_q[φ⁴] ≤ sqrt(q_hi/q)·E_{q_hi}[φ⁴] (the ratio of the densities); the same with φ' for K₁.
  (Ball arithmetic on the ball q itself is valid too, but its radii make the long polynomial
  products about three times slower.)
* a bound on F'': by Mehler's expansion K₁(c) = Σ_n β_n²·c^n with Σ_n β_n² = E[φ'(√q·Z)²] = B,
  so for 0 ≤ c ≤ c_max < 1, 0 ≤ dK₁/dc = Σ n·β_n²·c^{n−1} ≤ B·S(c_max),
  S(c) = sup_{n≥1} n·c^{n−1} (reached at n ≤ c/(1 − c) + 1, where the ratio (n + 1)c/n
  falls below 1); so |F''| ≤ σ_w²·B·S(c_max);
* Taylor's theorem at c₀ then encloses F at the ends of [c₁ − ρ, c₁ + ρ] (exact points);
  opposite signs prove a root there (F is continuous), which is c* (the chaotic phase's only
  root in [0, 1): R is convex with R(1) = 1 and R'(1) = χ₁ > 1);
* K₁ enters the Newton point only through a step of about the square root of c*'s
  uncertainty, so there it is taken to half the digits; to every digit once, at the exact
  point c₁ (within ρ of c*), for the slope: K₁(c*) lies within dist·B·S(c_max) of K₁(c₁),
  dist the farthest end from c₁, so the slope σ_w²·K₁(c*) is a ball, and ξ_c = −1/ln(slope).
  So c₀ need only be right to about half the digits (the mpmath route stops there).

If the signs are not proven (c₀ was not close enough), the evaluation is repeated once at c₁.

Where φ = a + b·tanh(x/s) and c* is small (``mehler_pays``: Mehler's series K(c) = Σ β_n²·c^n
reaches every digit within MEHLER_TERMS terms), K and K₁ come from that series instead
(``_mehler``, ``moments.mehler_series``): a polynomial in c with proven coefficients and tail,
valid for every c in [0, 1), so Newton's method on its midpoints takes c₀ from a few digits (the
rough stages stop at MEHLER_ROUGH) to every digit at the cost of polynomial evaluations, the
Newton step's proof is the one above, and the slope is K₁ on c*'s ball. No lattice rule at all.

Where φ'' is known to the certified route (tanh: ``bivariate_certified.has_second``) the slope
needs no integral at c₁ (``_shared_lattice``): K and K₁ come to every digit from one lattice
rule at c₀ (φ and φ' from the same points, the same Gaussian weights), and K₁(c*) by Taylor's
theorem from c₀ with K₂ = E[φ''(u₁)φ''(u₂)] (dK₁/dc = q·K₂) to about half the digits and a
Mehler bound of K₁''. At a thousand digits that is one evaluation of φ at the lattice points
fewer (meanfield tanh --sigma-w2 20 --sigma-b2 0.05: about 4 s of 34).
"""

from __future__ import annotations

from typing import Any

from flint import arb

from ...moments.bivariate_certified import (
    THIRD_BOUNDS,
    cross_ball,
    cross_balls_with_second,
    cross_balls_with_third,
    has_second,
    has_third,
    second_bound,
)
from ...moments import mehler_series
from ...moments.mehler_series import terms_needed
from ...engine.balls import arb_precision
from ...tier import Precision

ATTEMPTS = 2
SLOPE_GUARD = 10  # digits K₁ carries past half of K's in the Newton step


def _sup_power(c: Any) -> Any:
    """S(c) = sup_{n≥1} n·c^{n−1} for 0 ≤ c < 1 (an upper bound, as a ball)."""
    last = int(float((c / (1 - c)).upper())) + 2
    best, power = arb(1), arb(1)
    for n in range(2, last + 1):
        power *= c
        best = best.max(n * power)
    return arb(best.upper())


def _sup_power2(c: Any) -> Any:
    """sup_{n≥2} n(n − 1)·c^{n−2} for 0 ≤ c < 1 (an upper bound, as a ball): the ratio of
    consecutive terms (n + 1)c/(n − 1) falls below 1 beyond n = (1 + c)/(1 − c)."""
    last = int(float(((1 + c) / (1 - c)).upper())) + 2
    best, power = arb(2), arb(1)
    for n in range(3, last + 1):
        power *= c
        best = best.max(n * (n - 1) * power)
    return arb(best.upper())


def _opposite(low: Any, high: Any) -> bool:
    return bool((low > 0 and high < 0) or (low < 0 and high > 0))


def _newton_bracket(
    ww: Any, bb: Any, q_star: Any, b_ball: Any, centre: Any, k: Any, k1: Any, digits: int
) -> tuple[Any, Any, list[Any], Any] | None:
    """One Newton step for F(c) = (σ_w²·K(c) + σ_b²)/q* − c from ``centre`` (K, K₁ there) and
    its proof: with |F''| ≤ m2 = σ_w²·B·S(c_max) on [0, c_max] (Mehler's expansion), F's signs
    at the ends of c₁ ± ρ are opposite, so c* lies between them. (c*'s ball or None when the
    signs are not proven, c₁, the two ends, c_max), or None when the step leaves [0, 1) or the
    slope is not that of a stable fixed point."""
    f0 = (ww * k + bb) / q_star - centre
    d0 = ww * k1 - 1
    if not d0 < 0:  # a stable fixed point has slope below 1
        return None
    c1 = centre - f0 / d0
    step = abs(c1 - centre)
    c_max = arb((centre + 2 * step + arb(2) ** -20).upper())
    if not c_max < 1:
        return None
    m2 = arb((ww * b_ball * _sup_power(c_max)).upper())  # |F''| on [0, c_max]
    rho = arb(
        (
            4 * c1.rad()
            + m2 * (2 * step) * (2 * step) / abs(d0)
            + abs(c1) * arb(2) ** -(Precision(digits, guard=0).bits + 10)
        ).upper()
    )
    ends = [arb((c1 - rho).lower()), arb((c1 + rho).upper())]
    if not ends[0] > 0 or not ends[1] <= c_max:
        return None
    values = []
    for end in ends:
        offset = end - centre
        values.append(f0 + d0 * offset + arb(0, (m2 * offset * offset / 2).upper()))
    if not _opposite(*values):
        return None, c1, ends, c_max
    c_star = (ends[0] + ends[1]) / 2 + arb(0, ((ends[1] - ends[0]) / 2).upper())
    return c_star, c1, ends, c_max


def prove_correlation(
    act: Any,
    ww: Any,
    bb: Any,
    q_star: Any,
    b_ball: Any,
    centre: Any,
    digits: int,
    q_slopes: tuple[Any, Any] | None = None,
    centre_digits: int | None = None,
) -> tuple[Any, Any] | None:
    """(c*'s ball, the ball of σ_w²·K₁(c*)) with radii near 10^−digits, or None when the route
    does not apply or the signs could not be proven. ``b_ball`` holds E[φ'(√q·Z)²] over q*'s
    ball ``q_star``; ``centre`` is an exact point near c* (to about half the digits suffices);
    ``q_slopes`` bound |∂K/∂q| and |∂K₁/∂q| over q*'s ball (None: the ball itself goes into
    the integrals). ``centre_digits``: ``centre`` is right to only about that many digits (a
    third: ``third_order``), for the third-order step (``_third_lattice``); where that does not
    prove c*, one Newton step (``_refined``) first brings ``centre`` to the half the rest needs."""

    def ball(c: Any, which: int, wanted: int) -> Any | None:
        found = cross_ball(act, q_star if q_slopes is None else arb(q_star.mid()), c, wanted, which)
        if found is not None and q_slopes is not None:
            found = _over_q(found, q_star, q_slopes[which])
        return found

    # the rough stages stopped at MEHLER_ROUGH digits where ``mehler_pays`` (at the working digits)
    # ``mehler_locates``: c* tiny, the rough c is the double-precision start (at any digits)
    if (
        centre_digits == MEHLER_ROUGH
        and (digits >= MEHLER_FROM or mehler_locates(act, float(centre), digits))
    ) or mehler_pays(act, float(centre), digits):
        found, polished = _mehler(act, ww, bb, q_star, b_ball, centre, digits, q_slopes)
        if found is not None:
            return found
        if polished is not None:  # c₀ to about every digit (the series' midpoints): no third-order step
            centre, centre_digits = polished, None
    if centre_digits is not None:
        if has_third(act):
            third = _third_lattice(act, ww, bb, q_star, b_ball, centre, digits, centre_digits, q_slopes)
            if third is not None:
                return third
        refined = _refined(act, ww, bb, q_star, centre, centre_digits)
        if refined is None:
            return None
        centre = refined
    if has_second(act):
        shared = _shared_lattice(act, ww, bb, q_star, b_ball, centre, digits, q_slopes)
        if shared is not None:
            return shared
    for attempt in range(ATTEMPTS):
        # K₁ only scales the Newton step: half the digits (the step is about as small as the
        # square root of c*'s uncertainty); K₁ to every digit comes once, at c₁, for the slope.
        k, k1 = ball(centre, 0, digits), ball(centre, 1, digits // 2 + SLOPE_GUARD)
        if k is None or k1 is None:
            return None
        bracket = _newton_bracket(ww, bb, q_star, b_ball, centre, k, k1, digits)
        if bracket is None:
            return None
        c_star, c1, ends, c_max = bracket
        if c_star is None:
            if attempt < ATTEMPTS - 1:
                centre = arb(c1.mid())  # nearer c*: the quadratic term shrinks
                continue
            return None
        point = arb(c1.mid())  # exact, within rho of c*, inside [0, c_max]
        k1_point = ball(point, 1, digits)
        if k1_point is None:
            return None
        dist = arb(max(abs(ends[0] - point).upper(), abs(ends[1] - point).upper()))
        spread = arb((dist * b_ball * _sup_power(c_max)).upper())  # K₁ over [point, c*]
        return c_star, ww * (k1_point + arb(0, spread))
    return None


# Mehler's series (``moments.mehler_series``) for c* and the slope there, where φ declares
# φ = a + b·tanh(x/s) (``Activation.tanh_form``), from MEHLER_FROM working digits and where the
# series needs at most MEHLER_TERMS terms (c* small: c*^N ≤ 2^−bits). The series' cost grows
# with the terms (its products as terms × nodes × bits); at a thousand digits (tanh, σ_b² = 0.05,
# in process at load 5-8) c* = 0.0015 (σ_w² 30, σ_b² 0.01; 365 terms) about 0.2-0.3 s,
# c* = 0.012 (σ_w² 20, 541 terms) 0.3-0.5 s, 0.047 (σ_w² 8, 779) 0.5-0.9 s, 0.165 (σ_w² 4,
# 1319) 1.4-1.8 s (the lattice's proof about 5 s there), 0.45 (σ_w² 2.5, 2947) 5.4 s (the
# lattice's 2.4-2.7 s): hence MEHLER_TERMS.
MEHLER_FROM = 200
MEHLER_TERMS = 1600
MEHLER_ROUGH = 30  # digits c*'s rough Newton stages reach where the series is taken
MEHLER_NEWTON = 40  # Newton steps on the series' midpoints, at most
MEHLER_GUARD = 64  # bits of K and K₁ past the Newton bracket's (the slope's ball is then set by c*'s)


def _mehler_goal(digits: int) -> int:
    return Precision(digits, guard=0).bits + MEHLER_GUARD


def mehler_pays(act: Any, c: float, digits: int) -> bool:
    """Is c* (near ``c``) proven from Mehler's series at ``digits`` working digits?"""
    if act.expression or act.tanh_form is None or digits < MEHLER_FROM or not 0 < c < 1:
        return False
    return terms_needed(_mehler_top(c), _mehler_goal(digits)) <= MEHLER_TERMS


# Below MEHLER_FROM digits the series also locates c* where c* is tiny (``mehler_locates``): at
# c ≤ MEHLER_LOCATE_C it needs few terms at any digits (about digits/3), so its polynomial Newton
# takes the double-precision start (``floats.correlation_start``) to every digit where the
# lattice's rough Newton stages cost seconds (meanfield tanh --sigma-w2 20 --sigma-b2 1e-6 at
# --digits 100: 38 s of lattice sums before).
MEHLER_LOCATE_C = 1e-3


def mehler_locates(act: Any, c: float, digits: int) -> bool:
    """May c*'s rough stages stop at the double-precision start ``c`` for Mehler's series to
    locate and prove c* at ``digits`` (φ = a + b·tanh(x/s), c* tiny)?"""
    if act.expression or act.tanh_form is None or not 0 < c <= MEHLER_LOCATE_C:
        return False
    return terms_needed(_mehler_top(c), _mehler_goal(digits)) <= MEHLER_TERMS


MEHLER_LOCATE_BITS = 96  # c* from the series in locate: bits of its estimate (a start, not a proof)


def mehler_locate(act: Any, ww: Any, bb: Any, q: str, c: float) -> tuple[str, str] | None:
    """(c*, the correlation map's slope σ_w²·K₁ there), as decimal strings to about
    MEHLER_LOCATE_BITS bits, by Newton's method on Mehler's series of K and K₁ at q (a decimal
    string) from a rough ``c`` (right to a few digits): an estimate for ``_mehler`` to take to
    every digit and prove, or None."""
    with arb_precision(MEHLER_LOCATE_BITS + 30):
        q_ball, w_ball, b_ball = arb(q), arb(ww), arb(bb)
        series = mehler_series.series(act.tanh_form, q_ball, _mehler_top(2 * c), MEHLER_LOCATE_BITS)
        if series is None:
            return None
        x = arb(c)
        for _ in range(MEHLER_NEWTON):
            k, k1 = series.k(x), series.k1(x)
            if k is None or k1 is None or not w_ball * k1 - 1 < 0:
                return None
            step = ((w_ball * k + b_ball) / q_ball - x) / (w_ball * k1 - 1)
            x = arb((x - step).mid())
            if not 0 < x < 2 * c:
                return None
            if abs(step.mid()) <= arb(2) ** -MEHLER_LOCATE_BITS * x:
                k1 = series.k1(x)
                if k1 is None:
                    return None
                return x.mid().str(35, radius=False), (w_ball * k1).mid().str(35, radius=False)
    return None


def _mehler_top(c: float) -> float:
    """The largest correlation the series is planned for (c* is within this of a rough c)."""
    return c * (1 + 2.0**-20) + 2.0**-40


def _mehler(
    act: Any,
    ww: Any,
    bb: Any,
    q_star: Any,
    b_ball: Any,
    centre: Any,
    digits: int,
    q_slopes: tuple[Any, Any] | None,
) -> tuple[tuple[Any, Any] | None, Any | None]:
    """(``prove_correlation``'s answer from Mehler's series of K and K₁ at q*'s midpoint, or
    None; c₀ polished by the series, or None). K(c) and K₁(c) at q*'s midpoint hold for every
    c in [0, 1) (the series' tails bounded by c^N), widened over q*'s ball by ``q_slopes``.
    Newton's method on F(c) = (σ_w²·K(c) + σ_b²)/q* − c at the balls' midpoints takes a rough
    c₀ to every digit (each step one polynomial evaluation); from there ``_newton_bracket``
    proves c*'s ball, and the slope is σ_w²·K₁ on that ball."""
    if q_slopes is None or act.tanh_form is None or act.expression:
        return None, None
    q_mid = arb(q_star.mid())
    series = mehler_series.series(act.tanh_form, q_mid, _mehler_top(float(centre)), _mehler_goal(digits))
    if series is None:
        return None, None
    c = arb(centre.mid())
    small = arb(2) ** -(_mehler_goal(digits) + 8)
    for _ in range(MEHLER_NEWTON):
        k, k1 = series.k(c), series.k1(c)
        if k is None or k1 is None:
            return None, None
        slope = ww * k1 - 1
        if not slope < 0:
            return None, None
        step = ((ww * k + bb) / q_mid - c) / slope
        c = arb((c - step).mid())
        if not 0 < c < 1:
            return None, None
        if abs(step.mid()) <= small * c:
            break
    k, k1 = series.k(c), series.k1(c)
    if k is None or k1 is None:
        return None, None
    k, k1 = _over_q(k, q_star, q_slopes[0]), _over_q(k1, q_star, q_slopes[1])
    bracket = _newton_bracket(ww, bb, q_star, b_ball, c, k, k1, digits)
    if bracket is None or bracket[0] is None:
        return None, c
    c_star = bracket[0]
    slope_k1 = series.k1(c_star)
    if slope_k1 is None:
        return None, c
    return (c_star, ww * _over_q(slope_k1, q_star, q_slopes[1])), c


def _over_q(value: Any, q_star: Any, slope: Any) -> Any:
    """``value``, taken at q*'s midpoint, widened to hold over q*'s ball: |∂/∂q| ≤ ``slope``."""
    return value + arb(0, (q_star.rad() * slope).upper())


def _over_q_square(value: Any, q_star: Any, bound: Any) -> Any:
    """``_over_q`` with the slope |∂K_j/∂q| ≤ sup|φ⁽ʲ⁾|²/q, ``bound`` ≥ sup|φ⁽ʲ⁾| (Cauchy–Schwarz,
    as for K and K₁)."""
    return value + arb(0, (q_star.rad() * bound * bound / arb(q_star.lower())).upper())


def _shared_lattice(
    act: Any,
    ww: Any,
    bb: Any,
    q_star: Any,
    b_ball: Any,
    centre: Any,
    digits: int,
    q_slopes: tuple[Any, Any] | None,
) -> tuple[Any, Any] | None:
    """``prove_correlation`` with K and K₁ both to every digit at c₀ from one lattice rule (its
    values of φ and φ' and its Gaussian weights shared: one evaluation of φ at the lattice points
    where there were two), and the slope at c* by Taylor's theorem from c₀ instead of a third
    integral at c₁: with dK₁/dc = q·K₂, K₂(c) = E[φ''(u₁)φ''(u₂)] (Price's theorem again),

        K₁(c*) ∈ K₁(c₀) + (c* − c₀)·q·K₂(c₀) ± (c* − c₀)²/2·B·S₂(c_max),

    S₂(c) = sup_{n≥2} n(n − 1)·c^{n−2} bounding K₁''/B by Mehler's expansion as S bounds K₁'/B.
    |c* − c₀| is about the square root of c*'s uncertainty (c₀ is right to about half the
    digits), so K₂ is needed to about half the digits (the integral the Newton step's slope took
    before); at a thousand digits K₁ and K₂ both come from the lattice rule's values of φ alone
    (``engine.sinc_slopes``: ψ' and ψ'' from ψ at the outer nodes). Over q*'s ball, |∂K₂/∂q| ≤
    sup|φ''|²/q (Cauchy–Schwarz as for K and K₁). None when the signs are not proven (the caller
    then takes the route with an integral at c₁)."""
    q_mid = q_star if q_slopes is None else arb(q_star.mid())
    both = cross_balls_with_second(act, q_mid, centre, digits, digits // 2 + SLOPE_GUARD)
    if both is None:
        return None
    k, k1, k2 = both
    if q_slopes is not None:
        k, k1 = _over_q(k, q_star, q_slopes[0]), _over_q(k1, q_star, q_slopes[1])
    bracket = _newton_bracket(ww, bb, q_star, b_ball, centre, k, k1, digits)
    if bracket is None or bracket[0] is None:
        return None
    c_star, _, ends, c_max = bracket
    if k2 is None:  # not from the same smoothing: a lattice rule of its own
        k2 = cross_ball(act, q_mid, centre, digits // 2 + SLOPE_GUARD, 2)
    if k2 is None:
        return None
    if q_slopes is not None:
        k2 = _over_q_square(k2, q_star, second_bound(act))
    offset = c_star - centre  # a ball: c* anywhere in its interval
    reach = arb(max(abs(ends[0] - centre).upper(), abs(ends[1] - centre).upper()))
    remainder = arb((reach * reach / 2 * b_ball * _sup_power2(c_max)).upper())
    slope_k1 = k1 + offset * q_star * k2 + arb(0, remainder)
    return c_star, ww * slope_k1


# From this many working digits on (where the proof's K₁ and K₂ come from ψ's values: the
# cardinal route, from ``bivariate_balls.CARDINAL_FROM_BITS``) and at c* up to THIRD_C, c*'s rough
# Newton stages stop near a third of the digits (``third_stage``) and the proof takes a
# third-order step (``_third_lattice``): the rough stage at half the digits, the dearest, is left
# out, and the proof's cardinal series take K₂ to two thirds of the digits and K₃ to a third.
# Measured at a thousand digits (tanh, σ_b² = 0.05, in process, alternating): c* = 0.012 (σ_w² 20)
# 15% less CPU, 0.047 (σ_w² 8) 5-11%, 0.165 (σ_w² 4) 7-18%, 0.45 (σ_w² 2.5) about 6% (3.75 → 3.53 s
# over seven pairs); c* = 0.82 (σ_w² 3, σ_b² 0.3) 5.3 → 9.6 s and 0.95 (σ_w² 1.8) 3.3-4.1 → 6.0 s,
# where the route is not taken.
THIRD_FROM = 800
THIRD_C = 0.5
# ... and where q*·c* (the inner variance a² of the lattice's outer variable) is at least this:
# below, the cardinal series give no K₂, K₃ and the route's full-digit lattice is thrown away
# (c* = 0.0015, q*·c* = 0.043, σ_w² 30, σ_b² 0.01: 24 → 39 s at a thousand digits, past the budget;
# found by review); taken at q*·c* = 0.23 (c* = 0.012, σ_w² 20), about even at 0.066 (c* = 0.0069)
THIRD_QC = 0.1
THIRD_MARGIN = 12  # digits the rough stages carry past a third of the digits


def third_pays(q: float, c: float) -> bool:
    """Is c*'s third-order step worth starting at the fixed point q*, c* (both rough)?"""
    return c <= THIRD_C and q * c >= THIRD_QC


def third_order(act: Any, digits: int) -> bool:
    """May c*'s proof at ``digits`` working digits start from a c₀ right to ``third_stage`` (the
    rough stages decide, by c* ≤ THIRD_C, and say so: ``prove_correlation``'s ``centre_digits``)?"""
    return digits >= THIRD_FROM and has_third(act)


def third_stage(digits: int) -> int:
    """The digits c*'s rough Newton stages reach where ``third_order``."""
    return (digits + 5) // 3 + THIRD_MARGIN


def _sup_power3(c: Any) -> Any:
    """sup_{n≥3} n(n − 1)(n − 2)·c^{n−3} for 0 ≤ c < 1 (an upper bound, as a ball): the ratio of
    consecutive terms (n + 1)c/(n − 2) falls below 1 beyond n = (1 + 2c)/(1 − c)."""
    last = int(float(((1 + 2 * c) / (1 - c)).upper())) + 2
    best, power = arb(6), arb(1)
    for n in range(4, last + 1):
        power *= c
        best = best.max(n * (n - 1) * (n - 2) * power)
    return arb(best.upper())


def _third_lattice(
    act: Any,
    ww: Any,
    bb: Any,
    q_star: Any,
    b_ball: Any,
    centre: Any,
    digits: int,
    centre_digits: int,
    q_slopes: tuple[Any, Any] | None,
) -> tuple[Any, Any] | None:
    """``_shared_lattice`` from a c₀ right to about ``centre_digits`` (a third of the digits), by
    a third-order step: K and K₁ to every digit, K₂ (F'' = σ_w²·q·K₂) to digits − centre_digits
    and K₃ = E[φ'''(u₁)φ'''(u₂)] (dK₂/dc = q·K₃) to digits − 2·centre_digits, all from one lattice
    rule (``cross_balls_with_third``). With δ = −F/F' and the step s = −F/(F' + F''·δ/2) (Halley's),
    c₁ = c₀ + s; on [0, c_max] |F'''| = σ_w²·|K₁''| ≤ M₃ = σ_w²·B·S₂(c_max) (Mehler's expansion, as
    ``_shared_lattice``'s), so by Taylor's theorem at c₀

        F(c) ∈ F + F'·(c − c₀) + F''·(c − c₀)²/2 ± M₃·|c − c₀|³/6,

    and opposite signs at the ends of c₁ ± ρ prove c* between them. The slope at c*:

        K₁(c*) ∈ K₁ + (c* − c₀)·q·K₂ + (c* − c₀)²·q²·K₃/2 ± |c* − c₀|³·B·S₃(c_max)/6,

    S₃(c) = sup_{n≥3} n(n − 1)(n − 2)·c^{n−3} bounding K₁'''/B. Over q*'s ball, |∂K₃/∂q| ≤
    sup|φ'''|²/q as for K₂. None where a ball is missing or the signs are not proven."""
    q_mid = q_star if q_slopes is None else arb(q_star.mid())
    found = cross_balls_with_third(
        act,
        q_mid,
        centre,
        digits,
        digits - centre_digits + SLOPE_GUARD,
        digits - 2 * centre_digits + SLOPE_GUARD,
    )
    if found is None:
        return None
    k, k1, k2, k3 = found
    if k2 is None or k3 is None:
        return None
    if q_slopes is not None:
        k, k1 = _over_q(k, q_star, q_slopes[0]), _over_q(k1, q_star, q_slopes[1])
        k2 = _over_q_square(k2, q_star, second_bound(act))
        k3 = _over_q_square(k3, q_star, arb(THIRD_BOUNDS[act.name]))
    f0 = (ww * k + bb) / q_star - centre
    f1 = ww * k1 - 1
    if not f1 < 0:  # a stable fixed point has slope below 1
        return None
    f2 = ww * q_star * k2
    newton = -f0 / f1
    c1 = centre - f0 / (f1 + f2 * newton / 2)
    step = abs(c1 - centre)
    c_max = arb((centre + 2 * step + arb(2) ** -20).upper())
    if not c_max < 1:
        return None
    m3 = arb((ww * b_ball * _sup_power2(c_max)).upper())  # |F'''| on [0, c_max]
    rho = arb(
        (
            4 * c1.rad()
            + 2 * m3 * (2 * step) ** 3 / (6 * abs(f1))
            + abs(c1) * arb(2) ** -(Precision(digits, guard=0).bits + 10)
        ).upper()
    )
    ends = [arb((c1 - rho).lower()), arb((c1 + rho).upper())]
    if not ends[0] > 0 or not ends[1] <= c_max:
        return None
    values = []
    for end in ends:
        offset = end - centre
        size = abs(offset)
        values.append(
            f0 + f1 * offset + f2 * offset * offset / 2 + arb(0, (m3 * size * size * size / 6).upper())
        )
    if not _opposite(*values):
        return None
    c_star = (ends[0] + ends[1]) / 2 + arb(0, ((ends[1] - ends[0]) / 2).upper())
    offset = c_star - centre  # a ball: c* anywhere in its interval
    reach = arb(max(abs(ends[0] - centre).upper(), abs(ends[1] - centre).upper()))
    remainder = arb((reach * reach * reach / 6 * b_ball * _sup_power3(c_max)).upper())
    slope_k1 = k1 + offset * q_star * k2 + offset * offset * q_star * q_star * k3 / 2 + arb(0, remainder)
    return c_star, ww * slope_k1


def _refined(act: Any, ww: Any, bb: Any, q_star: Any, centre: Any, centre_digits: int) -> Any | None:
    """c₀ from a c₀ right to about ``centre_digits`` by one Newton step with K to twice as many
    digits and K₁ to about as many (at q*'s midpoint; not proven, only nearer c*: the step the
    rough stages leave out where ``third_order``), or None."""
    q_mid = arb(q_star.mid())
    k = cross_ball(act, q_mid, centre, 2 * centre_digits, 0)
    k1 = cross_ball(act, q_mid, centre, centre_digits + SLOPE_GUARD, 1)
    if k is None or k1 is None:
        return None
    slope = ww * k1 - 1
    if not slope < 0:
        return None
    c1 = arb((centre - ((ww * k + bb) / q_mid - centre) / slope).mid())
    return c1 if c1 > 0 and c1 < 1 else None
