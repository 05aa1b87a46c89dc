"""Proven Gaussian kernels of an activation: the maps of infinite-width networks.

For (u, v) centred Gaussian with Var u = q1, Var v = q2 and correlation ρ ∈ [−1, 1]:

    nngp(ρ) = E[φ(u)φ(v)],   ntk_derivative(ρ) = E[φ'(u)φ'(v)]

(the NNGP kernel's layer map and the factor of the NTK recursion: Neal 1996, Lee et al. 2018,
Jacot et al. 2018), each an Arb ball by the first route that applies:

* a closed form on balls (``catalog.kernels.BALL_KERNELS``: the arc-cosine kernels of relu,
  leaky_relu, relu2, the arcsine kernel of erf, identity);
* ρ = 0: E[φ(u)]·E[φ(v)] and E[φ'(u)]·E[φ'(v)] (independent);
* ρ = ±1 at q1 = q2: E[φ(u)²] and E[φ'(u)²], or at ρ = −1 E[φ(u)φ(−u)] — ±E[φ²] by parity,
  else the univariate expectation of the expression φ(x)·φ(−x) (``catalog.formulas``); at
  q1 ≠ q2, v = ±sqrt(q2/q1)·u: the univariate expectation of φ(x)·φ(±r·x);
* 0 < |ρ| < 1: the certified bivariate route (``bivariate_certified.signed_cross_balls``:
  the outer trapezoidal rule over the shared part, the inner Gaussian smoothing in closed form,
  by the lattice rule, or for kinked φ node by node, for unequal variances and negative ρ too);
  before it, at a small variance, softsign's Taylor series at its kink (``small_variance``:
  orthant moments, no integral; the univariate expectations likewise).

Univariate expectations at a variance q whose square root is not rational (or at a ball of
variances, a layer's q in a deep network) are enclosed from the certified moments at an exact
std s_lo ≤ sqrt(q_lo) and a bound of their slope over [s_lo², s_hi²] (the heat equation and
Cauchy–Schwarz: d/dv E_v[g] = E_v[g·((X − m)²/v − 1)]/(2v), |·| ≤ sqrt(2·E_v[g²])/(2v), and
E_v[g²] ≤ sqrt(v_hi/v)·E_{v_hi}[g²] for v ≤ v_hi, the ratio of the densities).

Deep kernel shaping's local quantities at q1 = q2 = q (Martens et al., 2021, "Rapid training of
deep neural networks without skip connections or normalization layers"; their code's
``_calc_c_map``, ``_calc_c_slope``, ``_calc_c_curv``, ``_calc_q_slope_1`` at q = 1):
C(0) = E[φ]²/E[φ²], C'(1) = q·E[φ'²]/E[φ²], C''(1) = q²·E[φ''²]/E[φ²] (+∞ when φ' jumps:
the delta in φ''), Q'(q) = d/dq E[φ(√q·Z)²] = E[u·φ(u)·φ'(u)]/q.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from flint import acb, arb, ctx

from ..catalog import Activation
from ..catalog.expression_tree import Node, X
from ..engine.gaussian_balls import BITS_PER_DIGIT, ExpTerm, as_arb, exp_poly_expectation, exp_poly_product
from ..engine.numbers import to_text
from ..engine.precision import Precision
from ..errors import PrecisionError
from .monomials import Monomial, vanishes
from .param_balls import params_of
from .activation_balls import model_of
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..catalog.expression_calculus import derivative
from ..catalog.formulas import mirrored_product, substitute, tree_of
from .expectations import expectation_balls
from .normal_cdf import normal_cdf_curvature
from .polynomial_kernel import closed_kernel
from .small_variance import small_variance_kernel, small_variance_moments
from ..engine.balls import midpoint_fraction

# Digits of the E[g²] that only bound a slope.
BOUND_DIGITS = 5
# sqrt(q)'s bracket is this many digits narrower than the digits wanted.
BRACKET_GUARD = 12
# A layer's variance above 10^LENGTH_LIMIT_DIGITS or below its inverse ends a deep trajectory
# (exit 2, ``propagation.check_length``): no geometric growth or decay gets there within 10000 layers.
LENGTH_LIMIT_DIGITS = 10000
# φ''s kinks are looked for (and its jumps proven) on |x| ≤ KINK_REACH.
KINK_REACH = 10**6


class NotProven(PrecisionError):
    """No route proves this kernel value (exit 3, naming why)."""


def exact_sqrt(q: Fraction) -> Fraction | None:
    """sqrt(q) when it is rational."""
    n, d = math.isqrt(q.numerator), math.isqrt(q.denominator)
    return Fraction(n, d) if n * n == q.numerator and d * d == q.denominator else None


def _bracket(v: Fraction, digits: int, up: bool) -> Fraction:
    """A dyadic s with s² ≤ v (``up``: ≥ v), within 10^−(digits + BRACKET_GUARD) relative."""
    root = exact_sqrt(v)
    if root is not None:
        return root
    size = v.numerator.bit_length() - v.denominator.bit_length()  # log2(v), within 1
    bits = int((digits + BRACKET_GUARD) * BITS_PER_DIGIT) + max(0, (1 - size) // 2) + 8
    n = math.isqrt(v.numerator * 4**bits // v.denominator)
    return Fraction(n + (1 if up else 0), 2**bits)


def variance_range(q: Fraction | arb) -> tuple[Fraction, Fraction]:
    """The ends of a variance given as a Fraction or a ball."""
    if isinstance(q, (Fraction, int)):
        return Fraction(q), Fraction(q)
    with ctx.workprec(_bits(q)):  # (ends rounded at a lower precision would lose digits)
        return midpoint_fraction(arb(q.lower())), midpoint_fraction(arb(q.upper()))


def _bits(ball: arb) -> int:
    """Enough bits for a ball's ends, exactly."""
    mid_m, mid_e = (int(x) for x in ball.mid().man_exp())
    rad_m, rad_e = (int(x) for x in ball.rad().man_exp())
    return max(64, abs(mid_m).bit_length() + abs(mid_e - rad_e) + rad_m.bit_length() + 64)


def gaussian_balls(
    act: Activation,
    monomials: Sequence[Monomial],
    q: Fraction | arb,
    digits: int,
    mean: Fraction = Fraction(0),
) -> list[arb]:
    """E[X^a·φ(X)^b·φ'(X)^c], X ~ N(mean, v), for every v in the variance (or ball of variances)
    ``q``, each to about ``digits`` digits (see the module docstring)."""
    if mean == 0:
        from .relu_like import applies, relu_like_expectations

        found = relu_like_expectations(act, monomials, q, digits) if applies(act, q, q) else None
        if found is not None:
            return found
        series = small_variance_moments(act, monomials, q, digits)
        if series is not None:
            return series
    v_lo, v_hi = variance_range(q)
    if v_lo == v_hi and exact_sqrt(v_lo) is not None:
        return expectation_balls(act, monomials, mean=mean, std=exact_sqrt(v_lo), digits=digits)
    s_lo, s_hi = _bracket(v_lo, digits, False), _bracket(v_hi, digits, True)
    low = expectation_balls(act, monomials, mean=mean, std=s_lo, digits=digits)
    squares = [(2 * a, 2 * b, 2 * c) for a, b, c in monomials]
    high = expectation_balls(act, squares, mean=mean, std=s_hi, digits=BOUND_DIGITS)
    out = []
    with ctx.workprec(Precision(digits).ball_bits):
        V_lo, V_hi = as_arb(s_lo * s_lo), as_arb(s_hi * s_hi)
        ratio = (V_hi / V_lo).sqrt()
        for monomial, ball, square in zip(monomials, low, high):
            if mean == 0 and vanishes(monomial, act.parity):
                out.append(arb(0))  # 0 by symmetry at every variance
                continue
            slope = (ratio * arb(square.upper())).sqrt() * arb(2).sqrt() / (2 * V_lo)
            out.append(ball + arb(0, ((V_hi - V_lo) * slope).upper()))
    return out


class FourthMoments:
    """E_V[φ⁴] and E_V[φ'⁴] at one variance V (``layer_balls``' curvature and slope bounds),
    kept across the layers of one trajectory while V still covers the layer's ball."""

    __slots__ = ("V", "found")

    def __init__(self) -> None:
        self.V: Fraction | None = None
        self.found: list[arb] = []


def _is_exact(value: Fraction | arb, target: int) -> bool:
    return isinstance(value, Fraction) and value == target


def kernel_pair(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb]:
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) as balls, each to about ``digits`` digits; NotProven when
    no route applies."""
    from ..catalog.kernels import BALL_KERNELS

    closed = None if act.expression else BALL_KERNELS.get(act.name)
    if closed is not None:
        with ctx.workprec(Precision(digits).ball_bits):
            return closed(as_arb(q1), as_arb(q2), as_arb(rho), params_of(act))
    polynomial = closed_kernel(act, rho, q1, q2, digits) if act.expression else None
    if polynomial is not None:
        return polynomial
    if _is_exact(rho, 0):
        first = gaussian_balls(act, [(0, 1, 0), (0, 0, 1)], q1, digits + 2)
        second = first if _same(q1, q2) else gaussian_balls(act, [(0, 1, 0), (0, 0, 1)], q2, digits + 2)
        with ctx.workprec(Precision(digits).ball_bits):
            return first[0] * second[0], first[1] * second[1]
    if isinstance(rho, Fraction) and abs(rho) == 1:
        if not _same(q1, q2):
            return _proportional(act, rho, q1, q2, digits)
        return _diagonal(act, rho, q1, digits)
    series = small_variance_kernel(act, rho, q1, q2, digits)
    if series is not None:
        return series
    from .relu_like import applies, relu_like_kernel

    large = applies(act, q1, q2)
    if large:
        found = relu_like_kernel(act, rho, q1, q2, digits)
        if found is not None:
            return found
    from .bivariate_certified import signed_cross_balls, supported

    found = signed_cross_balls(act, q1, q2, rho, digits)
    if found is None:
        if not supported(act):
            raise NotProven(
                f"the bivariate expectations of {_named(act)} have no certified route (it needs "
                "|phi| and |phi'| bounded by polynomials on the real line)",
                param="activation",
            )
        if large:
            _refuse_near_one(act, rho, q1, q2, digits)
        raise NotProven(
            f"the bivariate expectations of {_named(act)} at {_where(rho, q1, q2)} have no certified "
            "route: the rules' nodes, whose count grows with sqrt(q) and with 1/sqrt(1 - rho^2), pass "
            "their limits here (a smaller variance or a correlation further from ±1 is within reach)",
            param="activation",
        )
    return found


def _refuse_near_one(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> None:
    """At large variances, near ρ = ±1: NotProven naming the correlation nearest ±1 that the
    large-variance series reach here (``relu_like.correlation_reach``); nothing where there is none."""
    from .relu_like import correlation_reach

    if not (isinstance(rho, Fraction) and isinstance(q1, Fraction) and isinstance(q2, Fraction)):
        return
    nearest = correlation_reach(act, rho, q1, q2, digits)
    if nearest is None or abs(nearest) >= abs(rho):
        return
    raise NotProven(
        f"the bivariate expectations of {_named(act)} at {_where(rho, q1, q2)} have no certified route: "
        f"the large-variance series need the spread q*(1 - rho^2) across the diagonal to cover the unit "
        f"scale of {_named(act)}, which holds here for 1 - |rho| >= {to_text(1 - abs(nearest))} "
        f"(a {{rho}} of {to_text(nearest)} or further from ±1, or larger variances; near that "
        "correlation many {digits} may need a larger {budget}), and the rules' nodes, whose count "
        "grows with sqrt(q), pass their limits",
        param="rho",
        params=("digits", "budget"),
    )


def _where(rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb) -> str:
    """'rho = 0.5, q = 1e+08' (q1 = q2) or with q1 and q2, for messages."""

    def short(x: Fraction | arb, figures: int = 6) -> str:
        with ctx.workprec(64):
            return f"{float(as_arb(x).mid()):.{figures}g}"

    qs = f"q = {short(q1)}" if _same(q1, q2) or q1 == q2 else f"q1 = {short(q1)}, q2 = {short(q2)}"
    return f"rho = {short(rho, 12)}, {qs}"


def nngp_over(
    act: Activation,
    rho: Fraction | arb,
    q1: Fraction | arb,
    q2: Fraction | arb,
    digits: int,
    same: bool = False,
) -> arb:
    """E[φ(u)φ(v)] for every ρ, q1, q2 in the given balls (a layer of a deep network), from its
    value at their exact midpoints and bounds of its slopes (the lattice rules would lose digits
    running a ball's radius through e^{δn}):

        ∂/∂ρ E[φ(u)φ(v)] = √(q1q2)·E[φ'(u)φ'(v)], |·| ≤ √(q1q2)·sqrt(E[φ'(u)²]·E[φ'(v)²]);
        u = √q1·X: ∂/∂q1 E[φ(u)φ(v)] = E[φ'(u)·X·φ(v)]/(2√q1), |·| ≤ sqrt(E[u²φ'(u)²]·E[φ(v)²])/(2q1)

    (Cauchy–Schwarz), each univariate E_q[g ≥ 0] over [q_lo, q_hi] at most sqrt(q_hi/q_lo)·E_{q_hi}[g].
    ``same``: q2 is q1 (one variance)."""
    from ..catalog.kernels import BALL_KERNELS

    exact = all(isinstance(x, Fraction) for x in (rho, q1, q2))
    closed = (
        act.name in BALL_KERNELS
        if not act.expression
        else closed_kernel(act, rho, q1, q2, digits) is not None
    )
    if exact or closed:
        return kernel_pair(act, rho, q1, q1 if same else q2, digits)[0]
    ends = [variance_range(x) for x in (rho, q1, q2)]
    mids = [_midpoint(x) for x in (rho, q1, q2)]
    value = kernel_pair(act, mids[0], mids[1], mids[1] if same else mids[2], digits)[0]
    bounds = []
    for i in (1, 2):
        lo, hi = ends[i]
        # (E[u²φ'²], E[φ²], E[φ'²]) at q_hi, each times sqrt(q_hi/q_lo): over the whole ball
        found = gaussian_balls(act, [(2, 0, 2), (0, 2, 0), (0, 0, 2)], hi, BOUND_DIGITS)
        with ctx.workprec(128):
            grow = (as_arb(hi) / as_arb(lo)).sqrt()
            bounds.append([arb((grow * f).upper()) for f in found])
    with ctx.workprec(Precision(digits).ball_bits):
        (r_lo, r_hi), (lo1, hi1), (lo2, hi2) = ends
        radius = (
            as_arb(max(r_hi - mids[0], mids[0] - r_lo))
            * (as_arb(hi1 * hi2)).sqrt()
            * (bounds[0][2] * bounds[1][2]).sqrt()
        )
        radius += as_arb(hi1 - lo1) * (bounds[0][0] * bounds[1][1]).sqrt() / (2 * as_arb(lo1))
        radius += as_arb(hi2 - lo2) * (bounds[1][0] * bounds[0][1]).sqrt() / (2 * as_arb(lo2))
        return value + arb(0, radius.upper())


class LayerBoxes(NamedTuple):
    """One layer's image of a box (``layer_boxes``): q' and c' (None for the length alone), and
    over the box itself K = E[φ(u)φ(v)] and K₁ = E[φ'(u)φ'(v)] (the NTK recursion's factor)."""

    q: arb
    c: arb | None
    k: arb | None
    k1: arb | None


def layer_balls(*args: Any, **kwargs: Any) -> tuple[arb, arb | None]:
    """(q', c') of ``layer_boxes``."""
    found = layer_boxes(*args, **kwargs)
    return found.q, found.c


def layer_boxes(
    act: Activation,
    q: Fraction,
    r_q: Fraction,
    c: Fraction | None,
    r_c: Fraction,
    w: Fraction,
    b: Fraction,
    digits: int,
    bounds: FourthMoments | None = None,
    length_digits: int | None = None,
) -> LayerBoxes:
    """One layer of a plain deep network at equal variances: (q', c') as balls holding
    q' = σ_w²·A(q) + σ_b² and c' = (σ_w²·K(q, c) + σ_b²)/q' for every q in [q ± r_q] and c in
    [c ± r_c] ∩ [−1, 1] (q, c exact: the midpoints of the last layer's balls, re-centred so
    that a radius grows by the map's own slope, not by the slopes of its formula's parts).
    A(q) = E[φ(√q·Z)²], K(q, c) = E[φ(u)φ(v)], K₁(q, c) = E[φ'(u)φ'(v)]. The centred form:

    * q': A at q, plus r_q·sup|A'| with A'(v) = E_v[φ²·He₂(X/√v)]/(2v) (the score of the
      variance; no φ'' needed) taken at q, and |A''(v)| ≤ sqrt(24·E_v[φ⁴])/(4v²) (the score
      He₄(X/√v)/(4v²), E[He₄²] = 24, Cauchy–Schwarz) over the ball, E_v[g] ≤ sqrt(v_hi/v)·E_{v_hi}[g]
      for g ≥ 0 (the ratio of the densities);
    * c': K at (q, c), plus r_c·q_hi·sup|K₁| + r_q·sup|∂_q K|: by Mehler's expansion
      K₁(q, ·) = Σ β_k²·c^k is increasing and convex on [0, 1] with |K₁(q, c)| ≤ K₁(q, |c|), so
      over c's ball |K₁| ≤ K₁(q, |c|) + (|c|_hi − |c|)·(K₁(q, 1) − K₁(q, |c|))/(1 − |c|) (the
      chord to K₁(q, 1) = E[φ'²]); over q's ball, |∂_q K₁| and |∂_q K| are at most
      sqrt(E_v[g(u)²g(v)²])/v ≤ sqrt(E_v[g⁴])/v (the bivariate score (χ − 2)/(2v), χ ~ χ²₂ of
      variance 4; correlation_proof has it), g = φ' or φ.

    So the radius grows per layer by about the C map's slope σ_w²·q·K₁/q' at the point (below
    1 near a stable fixed point) and by the evaluations' own radii, and depth 1000 keeps its
    digits. ``bounds`` (kept by the caller across layers) holds E_V[φ⁴] and E_V[φ'⁴] at
    one V ≥ q_hi, reused while V ≤ 2·q_lo (the density ratio sqrt(V/v) ≤ √2 stays in the bound):
    the variance of a deep network moves slowly. ``length_digits`` (default ``digits``): the
    digits of A(q) (a deep trajectory asks for more: ``propagation.work_for``)."""
    length_digits = digits if length_digits is None else max(digits, length_digits)
    prec = Precision(length_digits).ball_bits
    q_hi = q + r_q
    with ctx.workprec(prec):
        q_lo_ball = as_arb(q) - as_arb(r_q)
        if not q_lo_ball > 0:
            raise NotProven("a layer's variance cannot be proven positive at these digits", param="depth")
        q_lo = midpoint_fraction(arb(q_lo_ball.lower()))
    if c is None:
        a0, a2 = gaussian_balls(act, [(0, 2, 0), (2, 2, 0)], q, length_digits)
    else:
        a0, a2, slope = gaussian_balls(act, [(0, 2, 0), (2, 2, 0), (0, 0, 2)], q, length_digits)
    bounds = FourthMoments() if bounds is None else bounds
    if not (bounds.V is not None and q_hi <= bounds.V <= 2 * q_lo):
        bounds.V = q_hi * Fraction(9, 8)
        bounds.found = gaussian_balls(act, [(0, 4, 0), (0, 0, 4)], bounds.V, BOUND_DIGITS)
    V = bounds.V
    fourth, slope4 = bounds.found
    if c is None:
        with ctx.workprec(prec):
            return LayerBoxes(_length_ball(a0, a2, fourth, q, q_lo, V, r_q, w, b), None, None, None)
    abs_c = abs(c)
    if abs_c == 1:
        k, k1 = kernel_pair(act, c, q, q, digits)
        k1_abs = k1 if c > 0 else kernel_pair(act, Fraction(1), q, q, digits)[1]
    else:
        k, k1 = kernel_pair(act, c, q, q, digits)
        k1_abs = k1 if c >= 0 else kernel_pair(act, abs_c, q, q, digits)[1]
    with ctx.workprec(prec):
        ww, bb, v_lo = as_arb(w), as_arb(b), as_arb(q_lo)
        rq, rc = as_arb(r_q), as_arb(r_c)
        grow = (as_arb(V) / v_lo).sqrt()  # E_v[g] ≤ sqrt(V/v)·E_V[g] for g ≥ 0, v ≤ V
        q_next = _length_ball(a0, a2, fourth, q, q_lo, V, r_q, w, b)
        # c'
        up = as_arb(abs_c) + rc
        if abs_c < 1 and up < 1:
            chord = arb((k1_abs + (up - as_arb(abs_c)) * (slope - k1_abs) / (1 - as_arb(abs_c))).upper())
        else:
            chord = arb(slope.upper())  # K₁(q, 1) = E[φ'²] bounds |K₁| everywhere
        q_spread = rq / v_lo
        k1_sup = arb(abs(chord).upper()) + q_spread * (grow * arb(slope4.upper())).sqrt()
        k_q = (grow * arb(fourth.upper())).sqrt() / v_lo
        spread = rc * as_arb(q_hi) * k1_sup + rq * k_q
        k_box = k + arb(0, spread.upper())
        c_next = clip((ww * k_box + bb) / q_next)
        return LayerBoxes(
            q_next,
            c_next,
            k_box,
            _k1_box(k1, k1_abs, slope, c, up, rc, q_spread * (grow * arb(slope4.upper())).sqrt()),
        )


def _k1_box(k1: arb, k1_abs: arb, slope: arb, c: Fraction, up: arb, rc: arb, q_term: arb) -> arb:
    """K₁ = E[φ'(u)φ'(v)] over the box, from K₁(q, c) = ``k1``, K₁(q, |c|) = ``k1_abs`` and
    K₁(q, 1) = E[φ'²] = ``slope`` at the exact centre q (the variance's spread ``q_term`` added).
    Mehler: K₁(q, ·) = Σ β_k²·s^k is nondecreasing and convex on [0, 1], |K₁'(s)| ≤ K₁'(|s|), so
    for |s| ≤ t = |c| + r_c < 1, |K₁'(s)| ≤ K₁'(t) ≤ (K₁(1) − K₁(t))/(1 − t) ≤ (K₁(1) − K₁(|c|))/(1 − t)
    (the chord to 1; K₁(t) ≥ K₁(|c|)); where c's ball reaches 1 from c ≥ r_c, K₁ lies between
    K₁(c) − r_c·(K₁(1) − K₁(c))/(1 − c) and K₁(1); else |K₁| ≤ K₁(1)."""
    abs_c = abs(c)
    if abs_c < 1 and up < 1:
        spread = rc * arb((slope - k1_abs).upper()) / (1 - up) + q_term
        return k1 + arb(0, spread.upper())
    if c < 1 and as_arb(c) - rc >= 0:
        low = k1 - rc * arb((slope - k1).upper()) / (1 - as_arb(c))
        return arb(low.lower()).union(arb(slope.upper())) + arb(0, q_term.upper())
    return arb(0, (arb(abs(slope).upper()) + q_term).upper())


def _length_ball(
    a0: arb,
    a2: arb,
    fourth: arb,
    q: Fraction,
    q_lo: Fraction,
    V: Fraction,
    r_q: Fraction,
    w: Fraction,
    b: Fraction,
) -> arb:
    """q' = σ_w²·A + σ_b² over [q ± r_q] (``layer_balls``' first item), at the current precision."""
    v, v_lo, rq = as_arb(q), as_arb(q_lo), as_arb(r_q)
    grow = (as_arb(V) / v_lo).sqrt()
    a_slope = abs((a2 / v - a0) / (2 * v))
    a_curve = (24 * grow * arb(fourth.upper())).sqrt() / (4 * v_lo * v_lo)
    return as_arb(w) * (a0 + arb(0, (rq * (a_slope + rq * a_curve)).upper())) + as_arb(b)


def clip(c: arb) -> arb:
    """A correlation's ball cut at ±1 (|c| ≤ 1: Cauchy–Schwarz), at the current precision."""
    if c.upper() > 1:
        c = arb(c.lower()).union(arb(1))
    if c.lower() < -1:
        c = arb(-1).union(arb(c.upper()))
    return c


def _midpoint(value: Fraction | arb) -> Fraction:
    if isinstance(value, Fraction):
        return value
    with ctx.workprec(_bits(value)):
        return midpoint_fraction(arb(value.mid()))


def _same(q1: Fraction | arb, q2: Fraction | arb) -> bool:
    return (isinstance(q1, Fraction) and isinstance(q2, Fraction) and q1 == q2) or q1 is q2


def _diagonal(act: Activation, rho: Fraction, q: Fraction | arb, digits: int) -> tuple[arb, arb]:
    """ρ = ±1 at equal variances."""
    if rho == 1:
        a, b = gaussian_balls(act, [(0, 2, 0), (0, 0, 2)], q, digits)
        return a, b
    if act.parity in ("odd", "even"):
        a, b = gaussian_balls(act, [(0, 2, 0), (0, 0, 2)], q, digits)
        with ctx.workprec(Precision(digits).ball_bits):  # (python-flint's − rounds to ctx.prec)
            return (-a, b) if act.parity == "odd" else (a, -b)
    from ..catalog.expressions import tree_activation

    pieces = _mirrored_exp_poly(act, q, digits)
    if pieces is not None:
        return pieces
    tree = tree_of(act)
    if tree is None:
        raise NotProven(
            f"{{rho}} = -1: E[phi(u)·phi(-u)] of {act.name} has no certified route (its formula "
            "has no exact form here); try a {rho} within 1e-12 of -1",
            param="rho",
        )
    out = []
    for node in (tree, derivative(tree)):
        product = tree_activation(
            mirrored_product(node), "phi(x)*phi(-x)", _derived("phi(x)*phi(-x)", act, node != tree)
        )
        out.append(gaussian_balls(product, [(0, 1, 0)], q, digits)[0])
    return out[0], out[1]


def _proportional(
    act: Activation, rho: Fraction, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb]:
    """ρ = ±1 at unequal variances: v = ±r·u with r = sqrt(q2/q1), so E[φ(u)φ(v)] and
    E[φ'(u)φ'(v)] are the univariate expectations of φ(x)·φ(±r·x) and φ'(x)·φ'(±r·x) under
    u ~ N(0, q1) (the product's expression tree, r exact or sqrt of an exact ratio)."""
    from ..catalog.expressions import tree_activation

    if not (isinstance(q1, Fraction) and isinstance(q2, Fraction)):
        raise NotProven(
            "{rho} = ±1 with unequal variances known only as balls has no certified route", param="rho"
        )
    tree = tree_of(act)
    if tree is None:
        raise NotProven(
            f"{{rho}} = ±1 with unequal variances: E[phi(u)·phi(v)] of {act.name} has no certified "
            "route (its formula has no exact form here); try a {rho} within 1e-12 of ±1",
            param="rho",
        )
    ratio = Fraction(q2) / Fraction(q1)
    root = exact_sqrt(ratio)
    factor = Node("num", (), root) if root is not None else Node("call", (Node("num", (), ratio),), "sqrt")
    scaled = Node("mul", (factor, X))
    if rho < 0:
        scaled = Node("neg", (scaled,))
    out = []
    for node in (tree, derivative(tree)):
        product = tree_activation(
            Node("mul", (node, substitute(node, scaled))),
            "phi(x)*phi(r*x)",
            _derived("phi(x)*phi(r*x)", act, node != tree),
        )
        out.append(gaussian_balls(product, [(0, 1, 0)], q1, digits)[0])
    return out[0], out[1]


def _mirrored_exp_poly(act: Activation, q: Fraction | arb, digits: int) -> tuple[arb, arb] | None:
    """E[φ(u)φ(−u)] and E[φ'(u)φ'(−u)] for a piecewise exp-polynomial with exact kinks
    (``catalog.ball_functions.EXP_POLYNOMIALS``), exactly: between consecutive points of the
    kinks and their mirror images, the product of φ's piece there and φ's piece at −x
    (c·x^k·e^{λx} at −x is c·(−1)^k·x^k·e^{−λx}); a product that vanishes on every piece (relu,
    relu6) gives an exact 0."""
    if act.expression or act.name not in EXP_POLYNOMIALS:
        return None
    kinks = tuple(BALL_FUNCTIONS[act.name].kinks)
    if not all(isinstance(k, (int, Fraction)) for k in kinks):
        return None
    v_lo, v_hi = variance_range(q)
    if v_lo != v_hi:
        return None
    kinks = tuple(Fraction(k) for k in kinks)
    points = sorted(set(kinks) | {-k for k in kinks})
    edges: list[Fraction | None] = [None, *points, None]

    def piece(x: Fraction) -> int:
        return sum(1 for k in kinks if x > k)

    def sample(low: Fraction | None, high: Fraction | None) -> Fraction:
        if low is None:
            return (high if high is not None else Fraction(0)) - 1
        return low + 1 if high is None else (low + high) / 2

    def mirror(terms: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(ExpTerm(as_arb(t.c) * (-1) ** t.power, t.power, -as_arb(t.rate)) for t in terms)

    out = []
    with ctx.workprec(Precision(digits).ball_bits):
        for parts in EXP_POLYNOMIALS[act.name](params_of(act)):
            pieces = []
            for low, high in zip(edges, edges[1:]):
                x = sample(low, high)
                product = exp_poly_product(parts[piece(x)], mirror(parts[piece(-x)]))
                if product:
                    pieces.append((low, high, product))
            out.append(exp_poly_expectation(pieces, arb(0), as_arb(v_lo).sqrt()) if pieces else arb(0))
    return out[0], out[1]


def _named(act: Activation) -> str:
    return act.formula if act.expression else act.name


def _derived(label: str, act: Activation, slope: bool) -> str:
    """How messages name a product built from φ (or from φ' when ``slope``)."""
    return f"{label.replace('phi', 'phi' + chr(39)) if slope else label} for phi = {_named(act)}"


def local_balls(act: Activation, q: Fraction | arb, digits: int) -> dict[str, arb]:
    """mean E[φ(u)], second_moment E[φ(u)²], slope E[φ'(u)²], cross E[u·φ(u)·φ'(u)] at Var u = q."""
    mean, second, slope, cross = gaussian_balls(act, [(0, 1, 0), (0, 2, 0), (0, 0, 2), (1, 1, 1)], q, digits)
    return {"mean": mean, "second_moment": second, "slope": slope, "cross": cross}


def curvature_ball(act: Activation, q: Fraction | arb, digits: int) -> arb | None:
    """E[φ''(u)²] at Var u = q as a ball, or None for +∞ (φ' jumps: φ'' holds a delta): in closed
    form where the catalog gives φ'' as a polynomial in x, Φ and ϕ (``normal_cdf_curvature``),
    else the expectation of φ'' as an expression."""
    from ..catalog.expressions import tree_activation

    with ctx.workprec(128):
        branches = model_of(act, Fraction(0)).branches(arb(-KINK_REACH), arb(KINK_REACH))
        for i, kink in enumerate(branches.kinks):
            point = acb(as_arb(kink)) if isinstance(kink, (Fraction, int)) else acb(kink)
            left = branches.derivatives[i](point, False)
            right = branches.derivatives[i + 1](point, False)
            if not (left.real.overlaps(right.real)):
                return None  # a jump of φ': E[φ''²] = +∞
            if not (left.is_exact() and right.is_exact() and left == right):
                raise NotProven(
                    f"c_map_curvature_at_1: cannot decide whether phi' is continuous at {kink}",
                    param="activation",
                )
    if isinstance(q, Fraction):
        closed = normal_cdf_curvature(act, q, digits)  # (gelu's, erf's: no quadrature)
        if closed is not None:
            return closed
    tree = tree_of(act)
    if tree is None:
        raise NotProven(
            f"c_map_curvature_at_1: {act.name} has no expression tree for phi''", param="activation"
        )
    first = tree_activation(derivative(tree), "phi'", f"phi' of {_named(act)}")
    return gaussian_balls(first, [(0, 0, 2)], q, digits)[0]


__all__ = [
    "FourthMoments",
    "LayerBoxes",
    "NotProven",
    "clip",
    "curvature_ball",
    "exact_sqrt",
    "gaussian_balls",
    "kernel_pair",
    "layer_balls",
    "layer_boxes",
    "local_balls",
    "nngp_over",
    "params_of",
    "variance_range",
]
