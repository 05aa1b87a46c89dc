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
  by the lattice rule, or for kinked φ node by node, for unequal variances and negative ρ too).

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
from typing import Any

from flint import acb, arb, ctx

from ..catalog import Activation
from ..catalog.expression_tree import Node, X
from ..engine.gaussian_balls import BITS_PER_DIGIT, ExpTerm, as_arb, exp_poly_expectation, exp_poly_product
from ..errors import Outcome, PrecisionError
from .monomials import Monomial, vanishes
from .activation_balls import model_of
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..catalog.expression_calculus import derivative
from ..catalog.formulas import mirrored_product, substitute, tree_of
from .expectations import expectation_balls
from .fading_tail import fading_tail, linear_remainder
from .polynomial_kernel import closed_kernel
from ..engine.balls import midpoint_fraction

# Digits of the E[g²] that only bound a slope.
BOUND_DIGITS = 5
# sqrt(q)'s bracket is this many digits narrower than the digits wanted.
BRACKET_GUARD = 12
# A settled box is SETTLED_GROWTH steps wide at least; a step below FLOOR radii is noise.
SETTLED_GROWTH = 32
FLOOR = 1024
# A layer's variance above 10^LENGTH_LIMIT_DIGITS or below its inverse ends a deep trajectory
# (exit 2, ``check_length``): no geometric growth or decay gets there within 10000 layers.
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
    v_lo, v_hi = variance_range(q)
    if v_lo == v_hi and exact_sqrt(v_lo) is not None:
        return expectation_balls(act, monomials, mean=mean, std=exact_sqrt(v_lo), digits=digits)
    s_lo, s_hi = _bracket(v_lo, digits, False), _bracket(v_hi, digits, True)
    low = expectation_balls(act, monomials, mean=mean, std=s_lo, digits=digits)
    squares = [(2 * a, 2 * b, 2 * c) for a, b, c in monomials]
    high = expectation_balls(act, squares, mean=mean, std=s_hi, digits=BOUND_DIGITS)
    out = []
    with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):
        V_lo, V_hi = as_arb(s_lo * s_lo), as_arb(s_hi * s_hi)
        ratio = (V_hi / V_lo).sqrt()
        for monomial, ball, square in zip(monomials, low, high):
            if mean == 0 and vanishes(monomial, act.parity):
                out.append(arb(0))  # 0 by symmetry at every variance
                continue
            slope = (ratio * arb(square.upper())).sqrt() * arb(2).sqrt() / (2 * V_lo)
            out.append(ball + arb(0, ((V_hi - V_lo) * slope).upper()))
    return out


def _params(act: Activation) -> dict[str, arb]:
    given = dict(act.values)
    return {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}


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
        with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):
            return closed(as_arb(q1), as_arb(q2), as_arb(rho), _params(act))
    polynomial = closed_kernel(act, rho, q1, q2, digits) if act.expression else None
    if polynomial is not None:
        return polynomial
    if _is_exact(rho, 0):
        first = gaussian_balls(act, [(0, 1, 0), (0, 0, 1)], q1, digits + 2)
        second = first if _same(q1, q2) else gaussian_balls(act, [(0, 1, 0), (0, 0, 1)], q2, digits + 2)
        with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):
            return first[0] * second[0], first[1] * second[1]
    if isinstance(rho, Fraction) and abs(rho) == 1:
        if not _same(q1, q2):
            return _proportional(act, rho, q1, q2, digits)
        return _diagonal(act, rho, q1, digits)
    from .bivariate_certified import signed_cross_balls

    found = signed_cross_balls(act, q1, q2, rho, digits)
    if found is None:
        raise NotProven(
            f"the bivariate expectations of {act.formula if act.expression else act.name} "
            "have no certified route (it needs |phi| and |phi'| bounded by polynomials on the real "
            "line, and a correlation the rules reach)",
            param="activation",
        )
    return found


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
    with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):
        (r_lo, r_hi), (lo1, hi1), (lo2, hi2) = ends
        radius = (
            as_arb(max(r_hi - mids[0], mids[0] - r_lo))
            * (as_arb(hi1 * hi2)).sqrt()
            * (bounds[0][2] * bounds[1][2]).sqrt()
        )
        radius += as_arb(hi1 - lo1) * (bounds[0][0] * bounds[1][1]).sqrt() / (2 * as_arb(lo1))
        radius += as_arb(hi2 - lo2) * (bounds[1][0] * bounds[0][1]).sqrt() / (2 * as_arb(lo2))
        return value + arb(0, radius.upper())


def layer_balls(
    act: Activation,
    q: Fraction,
    r_q: Fraction,
    c: Fraction | None,
    r_c: Fraction,
    w: Fraction,
    b: Fraction,
    digits: int,
    bounds: dict | None = None,
    length_digits: int | None = None,
) -> tuple[arb, arb | None]:
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
    digits. ``bounds`` (a dict the caller keeps across layers) holds E_V[φ⁴] and E_V[φ'⁴] at
    one V ≥ q_hi, reused while V ≤ 2·q_lo (the density ratio sqrt(V/v) ≤ √2 stays in the bound):
    the variance of a deep network moves slowly. ``length_digits`` (default ``digits``): the
    digits of A(q) (a deep trajectory asks for more: see ``layer_trajectory``)."""
    length_digits = digits if length_digits is None else max(digits, length_digits)
    prec = int((length_digits + 10) * BITS_PER_DIGIT) + 64
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
    bounds = {} if bounds is None else bounds
    if not ("V" in bounds and q_hi <= bounds["V"] <= 2 * q_lo):
        V = q_hi * Fraction(9, 8)
        bounds.update(V=V, found=gaussian_balls(act, [(0, 4, 0), (0, 0, 4)], V, BOUND_DIGITS))
    V = bounds["V"]
    fourth, slope4 = bounds["found"]
    if c is None:
        with ctx.workprec(prec):
            return _length_ball(a0, a2, fourth, q, q_lo, V, r_q, w, b), None
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
        c_next = (ww * (k + arb(0, spread.upper())) + bb) / q_next
        # |c'| ≤ 1 (Cauchy–Schwarz): a ball reaching past ±1 is clipped there
        if c_next.upper() > 1:
            c_next = arb(c_next.lower()).union(arb(1))
        if c_next.lower() < -1:
            c_next = arb(-1).union(arb(c_next.upper()))
    return q_next, c_next


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


def layer_trajectory(
    act: Activation,
    q0: Fraction,
    c0: Fraction | None,
    layers: int,
    w: Fraction,
    b: Fraction,
    digits: int,
    fast: bool = True,
    step: Any = None,
    fade: Any = None,
) -> tuple[list[arb], list[arb] | None]:
    """q and c at layers 0..L of a plain network at equal variances (c: None for q alone), as
    balls: each layer from the exact midpoints of the last one's balls and their radii
    (``layer_balls``: a radius grows by the map's slope, not by its formula's). Once the
    variance fades geometrically (σ_b² = 0), ``fading_tail`` proves every later layer at once;
    once the trajectory has settled near a fixed point (q*, c*), a box around it that the map
    sends into itself (``_settled``) holds every later layer (``fast``: False computes every
    layer, the route the tests compare them with). ``step``: another layer map with
    ``layer_balls``' arguments (a gated unit's, ``gated_maps.gated_layer_balls``), whose fading
    tail is ``fade`` (``fading_tail``'s arguments but the remainder; None: no tail)."""
    # each layer's own radius adds up over the layers: digits for that. A(q)'s relative error
    # adds up in q (the length map's slope is about 1 where q fades slowly, tanh's q ≈ 1/(2L)),
    # and c' = K/q' takes q's relative radius every layer: about L² layers' worth, so the
    # length map gets the digits twice
    digits += len(str(layers))
    length_digits = digits + len(str(layers))
    bits = int((length_digits + 10) * BITS_PER_DIGIT) + 64
    from .closed_layers import closed_kernel_of, twin_of

    closed = closed_kernel_of(act) if step is None else None
    if closed is not None:
        return _closed_trajectory(act, closed, q0, c0, layers, w, b, bits)
    with ctx.workprec(bits):
        qs = [as_arb(q0)]
        cs = None if c0 is None else [as_arb(c0)]
    v, r_v, c, r_c = q0, Fraction(0), c0, Fraction(0)
    bounds: dict = {"length_digits": length_digits}
    if step is None:
        bounds["twin"] = twin_of(act, _params(act))
    step = _layer if step is None else step
    remainder: Any = None  # fading_tail's bound of φ(x) − φ'(0)·x, once the variance fades
    wait = 0  # layers until the next try of a settled box
    for layer in range(layers):
        wait -= 1
        if fast and layer >= 3 and wait <= 0 and not (c is not None and c == 1 and r_c == 0):
            settled = _settled(act, qs, cs, v, r_v, c, r_c, w, b, digits, bounds, step)
            if settled is not None:
                if settled:
                    with ctx.workprec(bits):
                        qs.extend(settled[0] for _ in range(layers - layer))
                        if cs is not None:
                            cs.extend(settled[1] for _ in range(layers - layer))
                    break
                wait = max(4, layer // 8)
        if fast and b == 0 and layer >= 2 and qs[-1] < qs[-2] and qs[-1] < arb(10) ** -digits:
            if remainder is None:
                remainder = (linear_remainder(act, bits) or False) if step is _layer else False
            last_c = None if cs is None else cs[-1]
            tail = (remainder and fading_tail(remainder, qs[-1], w, digits, last_c)) or (
                fade is not None and fade(qs[-1], w, digits, last_c)
            )
            if tail:
                _append_tail(qs, cs, tail, layers - layer, bits)
                break
        still = c is not None and c == 1 and r_c == 0  # identical inputs stay identical
        v_next, c_next = step(act, v, r_v, None if still else c, r_c, w, b, digits, bounds)
        check_length(v_next, layer + 1)
        with ctx.workprec(bits):
            v, r_v = _square_centre(v_next, bits)
            qs.append(v_next)
            if cs is not None:
                if still:
                    cs.append(arb(1))
                    continue
                c, r_c = _centre(c_next)
                cs.append(c_next)
        if not v > 0:
            raise NotProven("a layer's variance cannot be proven positive at these digits", param="depth")
        if cs is not None and not (-1 < c < 1 or (abs(c) == 1 and r_c == 0)):
            raise NotProven(
                "a layer's correlation cannot be proven inside [-1, 1] at these digits", param="depth"
            )
    return qs, cs


def _layer(
    act: Activation,
    q: Fraction,
    r_q: Fraction,
    c: Fraction | None,
    r_c: Fraction,
    w: Fraction,
    b: Fraction,
    digits: int,
    bounds: dict,
) -> tuple[arb, arb | None]:
    """``layer_balls`` (A(q) to ``bounds["length_digits"]``), or where the activation has a
    closed-kernel twin (``bounds["twin"]``, ``closed_layers.twin_of``) whose Gaussian-tail
    difference is below the layer's own rounding at this variance, the twin's closed layer with
    that difference added (no integrals)."""
    length_digits = bounds.get("length_digits")
    route = bounds.get("twin")
    if route is not None:
        found = _twin_layer(route, q, r_q, c, r_c, w, b, max(digits, length_digits or digits), bounds)
        if found is not None:
            return found
    return layer_balls(act, q, r_q, c, r_c, w, b, digits, bounds, length_digits)


def _twin_layer(
    route: Any,
    q: Fraction,
    r_q: Fraction,
    c: Fraction | None,
    r_c: Fraction,
    w: Fraction,
    b: Fraction,
    digits: int,
    bounds: dict,
) -> tuple[arb, arb | None] | None:
    """The twin's layer over [q ± r_q] × [c ± r_c] with the noise bound ``twin_noise`` at a
    variance V ≥ q + r_q (kept in ``bounds`` while it still covers the ball: the bound grows
    with the variance), or None where that noise is not below 10^−(digits + 2) of q'."""
    from .closed_layers import closed_layer, twin_noise

    prec = int((digits + 10) * BITS_PER_DIGIT) + 64
    with ctx.workprec(prec):
        q_ball = as_arb(q) + arb(0, as_arb(r_q).upper())
        c_ball = None if c is None else as_arb(c) + arb(0, as_arb(r_c).upper())
        high = q + r_q
        kept = bounds.get("twin_noise")
        if kept is None or high > kept[0]:
            kept = None
        tolerance = arb(10) ** -(digits + 2)
        for attempt in (0, 1):
            if kept is None:
                V = high * Fraction(9, 8)
                with ctx.workprec(64):
                    noise = twin_noise(route, as_arb(V))
                if noise is None:
                    return None
                kept = bounds["twin_noise"] = (V, noise)
            ww = as_arb(w)
            q_next, c_next = closed_layer(route.closed, route.params, q_ball, c_ball, ww, as_arb(b), kept[1])
            if ww * kept[1] < tolerance * q_next.lower():
                return q_next, c_next
            if attempt or high * Fraction(9, 8) >= kept[0]:
                return None  # the bound was taken at this variance already
            kept = None
    return None


def _closed_trajectory(
    act: Activation,
    closed: Any,
    q0: Fraction,
    c0: Fraction | None,
    layers: int,
    w: Fraction,
    b: Fraction,
    bits: int,
) -> tuple[list[arb], list[arb] | None]:
    """``layer_trajectory`` for an activation with a closed-form kernel: every layer from the
    last one's balls in the mean-value form (``closed_layers.closed_layer``), no integrals."""
    from .closed_layers import closed_layer

    with ctx.workprec(bits):
        params = _params(act)
        ww, bb = as_arb(w), as_arb(b)
        q = as_arb(q0)
        c = None if c0 is None else as_arb(c0)
        qs, cs = [q], None if c is None else [c]
        still = c0 == 1  # identical inputs stay identical
        for layer in range(layers):
            q, c_next = closed_layer(closed, params, q, None if still else c, ww, bb)
            check_length(q, layer + 1)
            if not (q > 0 and q.is_finite()):
                raise NotProven("a layer's variance cannot be proven positive at these digits", param="depth")
            qs.append(q)
            if cs is not None:
                c = arb(1) if still else c_next
                if not (c.is_finite() and c.rad() < 1):
                    raise NotProven(
                        "a layer's correlation cannot be proven inside [-1, 1] at these digits", param="depth"
                    )
                cs.append(c)
    return qs, cs


def split_closed_trajectory(
    act: Activation,
    q1: Fraction,
    q2: Fraction,
    c0: Fraction,
    layers: int,
    w: Fraction,
    b: Fraction,
    digits: int,
) -> list[arb] | None:
    """The correlations at layers 0..L of two inputs of unequal variances q1, q2 for an activation
    with a closed-form kernel (``closed_layers.split_closed_layer``: the mean-value form over the
    last layer's balls, no integrals); None for other activations."""
    from .closed_layers import closed_kernel_of, split_closed_layer

    closed = closed_kernel_of(act)
    if closed is None:
        return None
    digits += len(str(layers))
    bits = int((digits + len(str(layers)) + 10) * BITS_PER_DIGIT) + 64
    with ctx.workprec(bits):
        params = _params(act)
        ww, bb = as_arb(w), as_arb(b)
        v1, v2, c = as_arb(q1), as_arb(q2), as_arb(c0)
        cs = [c]
        for layer in range(layers):
            v1, v2, c = split_closed_layer(closed, params, v1, v2, c, ww, bb)
            for v in (v1, v2):
                check_length(v, layer + 1)
                if not (v > 0 and v.is_finite()):
                    raise NotProven(
                        "a layer's variance cannot be proven positive at these digits", param="depth"
                    )
            if not (c.is_finite() and c.rad() < 1):
                raise NotProven(
                    "a layer's correlation cannot be proven inside [-1, 1] at these digits", param="depth"
                )
            cs.append(c)
    return cs


def split_trajectory(
    act: Activation,
    q1: Fraction,
    q2: Fraction,
    c0: Fraction,
    layers: int,
    w: Fraction,
    b: Fraction,
    digits: int,
) -> list[arb]:
    """The correlations at layers 0..L of two inputs of unequal variances q1, q2 (any activation
    with certified bivariate expectations): each variance follows its own length map
    q_i' = σ_w²·A(q_i) + σ_b² (``layer_trajectory`` with c = None: the centred form, A to twice the
    layer-count guard digits), and

        c' = (σ_w²·K(q1, q2, c) + σ_b²)/sqrt(q1'·q2'),

    K over the last layer's box from its value at the exact midpoints plus its slopes' bounds
    (``nngp_over``). The variances are not recomputed from the balls of the last layer (E over a
    ball of variances bounds its slope by Cauchy–Schwarz, sqrt(6)/2 ≈ 1.22 times tanh's A' = 1 at
    small q, and the division by q' counts K's and q''s radii twice: the balls widened about 2×
    a layer, ``kernel tanh --q1 1 --q2 2 --depth 100`` was exit 3)."""
    qs1 = layer_trajectory(act, q1, None, layers, w, b, digits)[0]
    qs2 = layer_trajectory(act, q2, None, layers, w, b, digits)[0]
    digits += len(str(layers))
    bits = int((digits + 10) * BITS_PER_DIGIT) + 64
    with ctx.workprec(bits):
        cs = [as_arb(c0)]
    c: Fraction | arb = c0
    for layer in range(layers):
        v1, v2 = qs1[layer], qs2[layer]
        v1 = v1 if layer else q1
        v2 = v2 if layer else q2
        nngp = nngp_over(act, c, v1, v2, digits)
        with ctx.workprec(bits):
            c_next = (as_arb(w) * nngp + as_arb(b)) / (qs1[layer + 1] * qs2[layer + 1]).sqrt()
            if not (c_next > -1 and c_next < 1):
                raise NotProven(
                    "a layer's correlation cannot be proven inside (-1, 1) at these digits", param="depth"
                )
        cs.append(c_next)
        c = _midpoint(c_next) if c_next.rad() == 0 else c_next
    return cs


def _step(balls: list[arb]) -> arb:
    """|x_L − x_{L−1}| at most (both balls' spread)."""
    return arb((abs(balls[-1] - balls[-2]) + balls[-1].rad() + balls[-2].rad()).upper())


def _settled(
    act: Activation,
    qs: list[arb],
    cs: list[arb] | None,
    v: Fraction,
    r_v: Fraction,
    c: Fraction | None,
    r_c: Fraction,
    w: Fraction,
    b: Fraction,
    digits: int,
    bounds: dict,
    step: Any = None,
) -> tuple[arb, arb | None] | bool | None:
    """Balls (Q, C) holding every later layer, once the trajectory has settled near a fixed point:
    a box B = [v ± R_q] × [c ± R_c] around the last layer (centres v, c, radii r_v, r_c) whose
    image F(B) (``layer_balls``, the map over the whole box) lies inside B holds every later
    layer (the last one is in B, and F maps B into itself), and each of them, an image of a point
    of B, lies in F(B). R is a few times the last step over one minus the steps' ratio (the
    contraction seen so far). None: not yet small enough to try; False: B was not invariant."""
    with ctx.workprec(64):
        small = arb(10) ** -(digits + 1)
        steps = [(_step(qs), _step(qs[:-1]))] + ([] if cs is None else [(_step(cs), _step(cs[:-1]))])
        # each component's steps' ratio, where a step is still well above the balls' own radii
        # (below that it is noise: the trajectory sits at its floor); a box found not invariant
        # is tried 4 times wider the next time in the component that left it (the evaluations'
        # own radii, not the steps, may set the width the map needs); at least a sliver of the
        # digits' width (a map exact on points, identity's, still rounds its image of a box)
        radii = []
        for i, ((last, before), balls) in enumerate(zip(steps, [qs, cs or qs])):
            ratio = (last / before).upper() if before > 0 else arb(0)
            if not last > FLOOR * balls[-1].rad() + small * abs(balls[-1]):
                ratio = arb(0)
            if not ratio < arb("0.99"):
                return None
            grow = (4 / (1 - ratio)).max(arb(SETTLED_GROWTH)) * bounds.get(("settle", i), 1)
            radii.append(arb((grow * last).max(small * abs(balls[-1]) / 64).upper()))
        r_q = max(midpoint_fraction(radii[0]), 2 * r_v)
        if not as_arb(r_q) < small * qs[-1] + FLOOR * qs[-1].rad():
            return None
        if cs is not None:
            r_c = max(midpoint_fraction(radii[1]), 2 * r_c)
            if not as_arb(r_c) < small * abs(cs[-1]) + FLOOR * cs[-1].rad():
                return None
    q_box, c_box = (step or _layer)(act, v, r_q, c, r_c, w, b, digits, bounds)
    with ctx.workprec(_bits(q_box) + 64):
        outside = [not (q_box.lower() >= as_arb(v - r_q) and q_box.upper() <= as_arb(v + r_q))]
        if c is not None:
            outside.append(not (c_box.lower() >= as_arb(c - r_c) and c_box.upper() <= as_arb(c + r_c)))
    if any(outside):
        for i, out in enumerate(outside):
            if out:
                bounds[("settle", i)] = 4 * bounds.get(("settle", i), 1)
        return False
    return q_box, c_box


def check_length(q: arb, layer: int) -> None:
    """Outcome (``depth``; "explodes" or "collapses" at ``layer``) once a layer's variance passes 10^±LENGTH_LIMIT_DIGITS: the length
    explodes or collapses faster than geometrically (relu2's q' ≈ 3σ_w²·q², x³'s ≈ 15σ_w²·q³
    square or cube it every layer), and its exact midpoints would grow without bound. Only a ball
    wholly past the limit says so; one that reaches past it without being past it is NotProven
    (exit 3: the balls of unequal variances widen layer by layer, and a wide one reaching below
    1e-10000 proves no collapse: ``kernel tanh --sigma-w2 0.5 --q1 1 --q2 2 --depth 300`` said it did)."""
    with ctx.workprec(64):
        limit = arb(10) ** LENGTH_LIMIT_DIGITS
        high, low = q.lower() > limit, q.upper() < 1 / limit
        reaches = q.upper() > limit or q.lower() < 1 / limit
    if not (high or low):
        if reaches:
            raise NotProven(
                f"the variance q of layer {layer} is not proven between 1e-{LENGTH_LIMIT_DIGITS} and "
                f"1e{LENGTH_LIMIT_DIGITS} at these digits (its ball widened over the layers); ask for a "
                "smaller {depth}",
                param="depth",
            )
        return
    advice = f"ask for {{depth}} of at most {layer - 1}, or" if layer > 1 else "ask for"
    if high:
        raise Outcome(
            f"the variance q of the layers passes 1e{LENGTH_LIMIT_DIGITS} at layer {layer} (the "
            "length of the network explodes: q' = sigma_w2*E[phi(sqrt(q) Z)^2] + sigma_b2 outgrows "
            f"q); {advice} a smaller {{sigma_w2}}",
            kind="explodes",
            layer=layer,
            param="depth",
            params=("sigma_w2",),
        )
    raise Outcome(
        f"the variance q of the layers falls below 1e-{LENGTH_LIMIT_DIGITS} at layer {layer} (the "
        "length of the network collapses); "
        f"{advice} a larger {{sigma_w2}} or {{sigma_b2}}",
        kind="collapses",
        layer=layer,
        param="depth",
        params=("sigma_w2", "sigma_b2"),
    )


def _append_tail(qs: list[arb], cs: list[arb] | None, tail: Any, count: int, bits: int) -> None:
    """The ``count`` later layers from ``fading_tail``'s proven tail (no integrals)."""
    with ctx.workprec(bits):
        q = qs[-1]
        for _ in range(count):
            q = q * tail.ratio
            qs.append(q * tail.spread)
        if cs is not None:
            last = cs[-1]
            if last.is_exact() and last == 1:
                cs.extend(arb(1) for _ in range(count))  # identical inputs stay identical
                return
            c = last + arb(0, tail.drift)
            if c.upper() > 1:
                c = arb(c.lower()).union(arb(1))
            if c.lower() < -1:
                c = arb(-1).union(arb(c.upper()))
            cs.extend(c for _ in range(count))


def _centre(ball: arb) -> tuple[Fraction, Fraction]:
    """A ball's exact midpoint and an exact upper bound of its radius."""
    return variance_range(ball.mid())[0], variance_range(ball.rad())[1]


def _square_centre(ball: arb, bits: int) -> tuple[Fraction, Fraction]:
    """``_centre`` for a variance, moved to the square of a dyadic near its square root (the
    radius grows by the move): the moments at an exact rational std need no bracket of sqrt(q)."""
    mid, rad = _centre(ball)
    scale = 2 ** (bits // 2 + max(0, mid.denominator.bit_length() - mid.numerator.bit_length()) // 2 + 8)
    root = Fraction(math.isqrt(mid.numerator * scale * scale // mid.denominator), scale)
    square = root * root
    return square, rad + abs(square - mid)


def _midpoint(value: Fraction | arb) -> Fraction:
    if isinstance(value, Fraction):
        return value
    with ctx.workprec(_bits(value)):
        return midpoint_fraction(arb(value.mid()))


def _same(q1: Fraction | arb, q2: Fraction | arb) -> bool:
    return isinstance(q1, Fraction) and isinstance(q2, Fraction) and q1 == q2 or q1 is q2


def _diagonal(act: Activation, rho: Fraction, q: Fraction | arb, digits: int) -> tuple[arb, arb]:
    """ρ = ±1 at equal variances."""
    if rho == 1:
        a, b = gaussian_balls(act, [(0, 2, 0), (0, 0, 2)], q, digits)
        return a, b
    if act.parity in ("odd", "even"):
        a, b = gaussian_balls(act, [(0, 2, 0), (0, 0, 2)], q, digits)
        with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):  # (python-flint's − rounds to ctx.prec)
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
    with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):
        for parts in EXP_POLYNOMIALS[act.name](_params(act)):
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
    """E[φ''(u)²] at Var u = q as a ball, or None for +∞ (φ' jumps: φ'' holds a delta)."""
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
    tree = tree_of(act)
    if tree is None:
        raise NotProven(
            f"c_map_curvature_at_1: {act.name} has no expression tree for phi''", param="activation"
        )
    first = tree_activation(derivative(tree), "phi'", f"phi' of {_named(act)}")
    return gaussian_balls(first, [(0, 0, 2)], q, digits)[0]


__all__ = [
    "NotProven",
    "check_length",
    "split_closed_trajectory",
    "curvature_ball",
    "exact_sqrt",
    "gaussian_balls",
    "kernel_pair",
    "layer_balls",
    "layer_trajectory",
    "local_balls",
    "split_trajectory",
    "nngp_over",
    "variance_range",
]
