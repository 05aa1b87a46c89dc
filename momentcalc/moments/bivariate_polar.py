"""Certified bivariate Gaussian expectations E[g(u)·g(v)] in polar coordinates, for g analytic
on each side of a single kink at 0 (softsign = x/(1 + |x|) and φ' = 1/(1 + |x|)², expressions
such as x/(1 + abs(x))) or without kinks: a route whose cost does not grow as the correlation
ρ → ±1, where the shared-part rule (``engine.bivariate_balls``) needs ~1/sqrt(1 − |ρ|) nodes,
each an integral of its own for a kinked g.

For (u, v) centred Gaussian with Var u = q1, Var v = q2 and correlation ρ = cos β (β ∈ [0, π],
sin β = sqrt(1 − ρ²)), write u = σ1·X, v = σ2·(ρX + sin β·Y) with X, Y independent standard
normals and (X, Y) = R·(cos α, sin α): R has density R·e^{−R²/2} and α is uniform, and
v = σ2·R·cos(α − β). So

    E[g(u)g(v)] = (1/2π) ∫_{−π/2}^{3π/2} dα ∫_0^∞ R·e^{−R²/2}·g(σ1R·cos α)·g(σ2R·cos(α − β)) dR.

The kink lines u = 0 and v = 0 are the fixed rays cos α = 0 and cos(α − β) = 0: the α-circle
falls into four arcs, [−π/2, β − π/2] (u ≥ 0 ≥ v), [β − π/2, π/2] (both ≥ 0), [π/2, β + π/2]
and [β + π/2, 3π/2], on each of which the integrand is one analytic function of (R, α) — the
two branches of g that hold there. As ρ → 1 two arcs shrink (width β ~ sqrt(2(1 − ρ))) and the
other two tend to the diagonal's; nothing sharpens, so the rule's cost stays bounded. For g odd
or even, g(−x)g(−y) = g(x)g(y): the second half-circle equals the first; at q1 = q2, α ↦ β − α
swaps u and v: the two arcs of width β are each other's mirror, the other two are symmetric
about their middles.

Each arc's double integral is a tensor Gauss–Legendre rule with proven error
(``engine.legendre_balls``): first panels in R on [0, R_T] for the error at every real α of the
arc (F analytic in R on an ellipse, bounded there for α in the arc as a ball), then panels in α
for each R-panel p, for H_p(α) = Σ_{i in p} w_i·F(R_i, α), bounded on α-ellipses by the panel's
length times |F| on the panel (a ball; GL weights are positive and sum to the length) — so

    |∫∫F − Σ_p Σ_j W_pj Σ_{i in p} w_i F(R_i, α_pj)| ≤ |arc|·Σ(R-panel errors) + Σ(α-panel errors).

(A panel of small R needs fewer α-nodes than the largest R, whose singularities in α are
nearest: g(σR·cos α) has them where σR·cos α meets g's, ~1/R beyond the arc's ends.) The
bounds are evaluated at 64 bits, each factor of F apart (R·e^{−R²/2}, g at u, g at v, each on
the box its argument fills), boxes halved where ball arithmetic is too coarse.

Beyond R_T the tail is bounded from |g(x)| ≤ P(|x|) on the real line (the catalog's or the
expression's growth bounds): ∫_{R_T}^∞ R^{k+1}e^{−R²/2} dR = J_{k+1}, J_0 = sqrt(π/2)·erfc(R_T/√2),
J_1 = e^{−R_T²/2}, J_m = R_T^{m−1}e^{−R_T²/2} + (m − 1)·J_{m−2}.

Every step is ball arithmetic; None where a rule cannot be proven (the caller's other route).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

from flint import acb, arb, ctx

from ..catalog import Activation
from ..engine.balls import lowered_goals
from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb
from ..engine.legendre_balls import nodes_of, plan, sup_abs
from .activation_balls import model_of

# Goals lowered (cancellation) at most this often.
ATTEMPTS = 3
# From this |ρ| on the polar route is tried first for a kinked g (below it the shared-part
# rule, node by node, is faster): softsign (whose smoothing has a half-line closed form) from
# 0.9, an expression (Arb's integration node by node) from 0.7. Measured at 15 and 30 digits:
# softsign 0.17/0.27 s (shared part/polar) at 0.7, 0.70/0.44 s at 0.9 and 30 digits;
# sqrt(1+abs(x)) 0.94/0.28 s at 0.7, x*tanh(abs(x)) 0.80/0.61 s at 0.7 and 0.65/0.59 s at 0.5.
NEAR_ONE = Fraction(9, 10)
NEAR_ONE_EXPRESSION = Fraction(7, 10)


def preferred(act: Activation, rho: arb | Fraction) -> bool:
    """Whether to try this route first at correlation ``rho`` (the caller's kinked g)."""
    start = NEAR_ONE_EXPRESSION if act.expression else NEAR_ONE
    near = abs(rho) >= start if isinstance(rho, Fraction) else bool(abs(as_arb(rho)) >= as_arb(start))
    return near and applies(act)


# Real sub-balls of an arc (bounds of F over α real) and of an R-panel (bounds of H).
ARC_PARTS = 4
PANEL_PARTS = 1
# The precision of the bounds on ellipses.
BOUND_BITS = 64
# The branches must be analytic on the box |Re z|, |Im z| ≤ KINK_DISC around the kink.
KINK_DISC = 2.0**-6
# At most this many bounds of F per integral (each a few ball evaluations): beyond, the rules
# are bisecting towards a singularity they cannot pass (a huge variance's boundary layer).
BOUND_LIMIT = 60_000
# Up to this standard deviation: g(σR·cos α) turns within ~1/(σR) of the arcs' ends, which the
# α-panels resolve by halving (softsign at ρ = 0.9999, 15 digits: q = 1000 in 3.2 s against the
# shared-part rule's 3.9 s; q = 10⁶ 70 s against 9.5 s).
MAX_STD = 100


def _largest(values: Iterable[arb | None]) -> arb | None:
    """The largest of the bounds (0 for none), rounded up; None at the first bound that is None."""
    top = arb(0)
    for value in values:
        if value is None:
            return None
        top = _up(top.max(value))
    return top


def _up(x: arb) -> arb:
    return arb(x.upper())


def _branches(act: Activation, reach: arb, which: int):
    """(negative-side branch, positive-side branch) of g = φ (``which`` 0) or φ' (1) on
    [−reach, reach], the same branch twice without kinks; None unless every kink is exactly 0."""
    model = model_of(act, Fraction(0))
    found = model.branches(-reach, reach)
    kinks = list(found.kinks)
    chosen = found.values if which == 0 else found.derivatives
    if not kinks:
        return chosen[0], chosen[0]
    if len(kinks) != 1:
        return None
    k = kinks[0]
    if not (k == 0 if isinstance(k, (Fraction, int)) else (k.rad() == 0 and k.mid() == 0)):
        return None
    return chosen[0], chosen[1]


def applies(act: Activation) -> bool:
    """Whether every kink of φ and φ' is exactly 0 (or there is none) and each branch of both is
    analytic on a disc around 0 (the arcs' ends, where the branches meet the kink: abs(x)**2.5's
    branch point there would be bisected towards for nothing)."""
    try:
        with ctx.workprec(64):
            box = acb(arb(0, KINK_DISC), arb(0, KINK_DISC))
            for which in (0, 1):
                found = _branches(act, arb(64), which)
                if found is None or not all(branch(box, True).is_finite() for branch in found):
                    return False
            return True
    except Exception:
        return False


class _TooCostly(ArithmeticError):
    """More bounds on ellipses than ``BOUND_LIMIT``: the caller's other route instead."""


def _tail(poly1: Sequence[arb], poly2: Sequence[arb], s1: arb, s2: arb, L: arb) -> arb:
    """∫_L^∞ R·e^{−R²/2}·P1(σ1R)·P2(σ2R) dR (module docstring)."""
    coefficients: dict[int, arb] = {}
    for i, a in enumerate(poly1):
        for j, b in enumerate(poly2):
            coefficients[i + j] = coefficients.get(i + j, arb(0)) + a * b * s1**i * s2**j
    top = max(coefficients, default=0) + 1
    density = (-L * L / 2).exp()
    J = [(arb.pi() / 2).sqrt() * (L / arb(2).sqrt()).erfc(), density]
    for m in range(2, top + 1):
        J.append(L ** (m - 1) * density + (m - 1) * J[m - 2])
    return _up(sum((c * J[k + 1] for k, c in coefficients.items()), arb(0)))


def _reach(poly1, poly2, s1: arb, s2: arb, goal: arb) -> tuple[arb, arb] | None:
    """(R_T, tail bound ≤ goal): R_T the first of 2, 2.25, … whose tail is small enough."""
    L = 2.0
    while L < 200:
        R = arb(L)
        tail = _tail(poly1, poly2, s1, s2, R)
        if tail <= goal:
            return R, tail
        L += 0.25
    return None


def _real_parts(low: arb, high: arb, count: int) -> list[arb]:
    """Real balls covering [low, high] in ``count`` pieces."""
    out = []
    for k in range(count):
        a = low + (high - low) * k / count
        b = low + (high - low) * (k + 1) / count
        out.append(a.union(b))
    return out


def polar_integral(
    branches,
    parity: bool,
    exchange: bool,
    poly: Sequence[arb],
    q1: arb,
    q2: arb,
    rho: arb,
    one_minus_square: arb,
    goal: arb,
) -> arb | None:
    """E[g(u)·g(v)] within about ``goal`` (plus the working precision's radius), g's branches
    (x < 0, x > 0) (module docstring); ``parity``: g odd or even (the second half-circle is the
    first); ``exchange``: q1 = q2, so that α ↦ β − α swaps u and v (the arcs where u and v have
    the same sign are symmetric about their middles, the other two are each other's mirror)."""
    s1, s2 = q1.sqrt(), q2.sqrt()
    sine = one_minus_square.sqrt()
    if not sine > 0:
        return None
    beta = arb.atan2(sine, rho)
    reach = _reach(poly, poly, s1, s2, goal / 4)
    if reach is None:
        return None
    R_T, tail = reach
    half_pi = arb.pi() / 2
    # (low, high, sign of u, sign of v, how many times the arc counts)
    arcs = [
        (-half_pi, beta - half_pi, 1, 0, 1),
        (beta - half_pi, half_pi, 1, 1, 1),
        (half_pi, beta + half_pi, 0, 1, 1),
        (beta + half_pi, 3 * half_pi, 0, 0, 1),
    ]
    a1, a2, _a3, a4 = arcs
    if exchange:  # α ↦ β − α: A1 ↔ A3, and A2, A4 each onto itself (about its middle)
        a2 = ((a2[0] + a2[1]) / 2, *a2[1:])
        a4 = ((a4[0] + a4[1]) / 2, *a4[1:])
        arcs = [(*a1[:4], 2), (*a2[:4], 2)] + ([] if parity else [(*a4[:4], 2)])
        if parity:  # α ↦ α + π takes A2's upper half onto A4's
            arcs[1] = (*a2[:4], 4)
    elif parity:  # α ↦ α + π: A1 ↔ A3, A2 ↔ A4
        arcs = [(*a1[:4], 2), (*a2[:4], 2)]
    total = arb(0)
    grand_error = arb(0)
    counter = [0]
    for low, high, su, sv, copies in arcs:
        gu, gv = branches[su], branches[sv]
        # each arc's R-rules and α-rules get goal/(4·arcs) of the total (after the 1/(2π))
        share = goal / (4 * len(arcs)) * 2 * arb.pi() / copies
        width = high - low
        error = arb(0)
        if not width > 0:
            if width.contains(0) and abs(width) <= goal:  # an arc of width 0 at this precision
                # ∫|F| dR ≤ ∫ R·e^{−R²/2}·P(σ1R)·P(σ2R) dR at every α: times the width
                grand_error += _up(abs(width).upper() * _tail(poly, poly, s1, s2, arb(0)) * copies)
                continue
            return None

        arc_parts = _real_parts(low, high, ARC_PARTS)

        def size(R, alpha, gu=gu, gv=gv) -> arb | None:
            """An upper bound of |F| over the balls R × α: each factor apart, each branch bounded
            on the box its argument fills (split there where ball arithmetic is too coarse), at
            a low precision (a bound needs no more)."""
            counter[0] += 1
            if counter[0] > BOUND_LIMIT:
                raise _TooCostly
            with ctx.workprec(BOUND_BITS):
                Rc, ac = acb(R), acb(alpha)
                first = sup_abs(lambda z: gu(z, True), [acb(s1) * Rc * ac.cos()])
                if first is None:
                    return None
                second = sup_abs(lambda z: gv(z, True), [acb(s2) * Rc * (ac - acb(beta)).cos()])
                if second is None:
                    return None
                radial = Rc * (-Rc * Rc / 2).exp()
                if not radial.is_finite():
                    return None
                return _up(abs(radial) * first * second)

        def bound_R(box: acb, arc_parts=arc_parts, size=size) -> arb | None:
            return _largest(size(box, alpha) for alpha in arc_parts)

        tol_R = share / _up(width)
        panels_R = plan(arb(0), R_T, bound_R, tol_R)
        if panels_R is None:
            return None
        error += _up(sum((p.error for p in panels_R), arb(0)) * _up(width))
        # per R-panel, panels in α for H_p(α) = Σ_{i in p} w_i F(R_i, α): the α-resolution a
        # panel of small R needs (its singularities in α are far) is not the largest R's
        part = acb(0)
        for panel in panels_R:
            parts = _real_parts(panel.low, panel.high, PANEL_PARTS)
            length = panel.high - panel.low

            def bound_alpha(box: acb, parts=parts, length=length, size=size) -> arb | None:
                biggest = _largest(size(R, box) for R in parts)
                return None if biggest is None else _up(length * biggest)

            panels_alpha = plan(low, high, bound_alpha, share / len(panels_R))
            if panels_alpha is None:
                return None
            error += sum((p.error for p in panels_alpha), arb(0))
            # the rule: Σ_j W_j Σ_i w_i F(R_i, α_j)
            prepared = []
            for R, w in nodes_of([panel]):
                Rc = acb(R)
                prepared.append((acb(s1) * Rc, acb(s2) * Rc, acb(w) * Rc * (-Rc * Rc / 2).exp()))
            for alpha, W in nodes_of(panels_alpha):
                cu, cv = acb(alpha.cos()), acb((alpha - beta).cos())
                inner = acb(0)
                for a, b, weight in prepared:
                    inner += weight * gu(a * cu, False) * gv(b * cv, False)
                part += W * inner
        if not part.is_finite():
            return None
        total += part.real * copies
        grand_error += _up(error * copies)
    value = total / (2 * arb.pi())
    radius = _up(tail + grand_error / (2 * arb.pi()))
    return value + arb(0, radius)


def polar_cross(
    act: Activation,
    polys: Sequence[Sequence[arb]],
    q1: arb | Fraction,
    q2: arb | Fraction,
    rho: arb | Fraction,
    digits: int,
    which: Sequence[int],
    size_log2: float,
    least_log2: float,
) -> list[arb] | None:
    """[E[g_i(u)·g_i(v)] for i in ``which``] (0: φ, 1: φ') as balls with radius ≤ 10^−(digits+3)
    of their values (``bivariate_certified``'s contract), for |ρ| < 1; None where this route
    does not prove them."""
    wanted = (digits + 3) * BITS_PER_DIGIT
    parity = act.parity in ("odd", "even")
    exchange = q1 is q2 or (isinstance(q1, Fraction) and isinstance(q2, Fraction) and q1 == q2)
    with ctx.workprec(64):
        if not as_arb(q1).max(as_arb(q2)) <= MAX_STD**2:
            return None

    def evaluate(goal_log2: float) -> list[arb] | None:
        prec = int(size_log2 - goal_log2) + 40
        with ctx.workprec(prec):
            r = as_arb(rho)
            one_minus_square = as_arb(1 - rho * rho) if isinstance(rho, Fraction) else (1 - r) * (1 + r)
            a, b = as_arb(q1), as_arb(q2)
            goal = arb(2) ** math.floor(goal_log2)
            reach = _up((a.max(b)).sqrt() * 200)
            balls = []
            for i in which:
                found = _branches(act, reach, i)
                if found is None:
                    return None
                try:
                    value = polar_integral(found, parity, exchange, polys[i], a, b, r, one_minus_square, goal)
                except _TooCostly:
                    return None
                if value is None:
                    return None
                balls.append(value)
        return balls

    return lowered_goals(evaluate, least_log2, wanted, ATTEMPTS)


__all__ = ["NEAR_ONE", "NEAR_ONE_EXPRESSION", "applies", "polar_cross", "polar_integral", "preferred"]
