"""Certified bivariate Gaussian expectations E[g(u₁)·g(u₂)] as Arb balls (python-flint), for
(u₁, u₂) centred Gaussian with variance q each and correlation 0 < c < 1 (the correlation map
of mean-field theory: Poole et al. 2016, "Exponential expressivity in deep neural networks
through transient chaos"; Schoenholz et al. 2017, "Deep information propagation").

With W, V₁, V₂ independent standard normals, a = sqrt(q·c) and b = sqrt(q·(1 − c)),
u₁ = a·W + b·V₁ and u₂ = a·W + b·V₂, so

    E[g(u₁)·g(u₂)] = ∫ ϕ(w)·ψ(a·w)² dw,   ψ(m) = E[g(m + b·V)] = ∫ g(x)·ϕ((x − m)/b)/b dx

(ϕ the standard normal density). Both integrals are proven, never estimated:

* outer: ψ is entire (a Gaussian convolution of a g of polynomial growth), and for real m,
  |ψ(m + iy)| ≤ e^{y²/(2b²)}·E|g(m + b·V)| (|ϕ((x − m − iy)/b)| = ϕ((x − m)/b)·e^{y²/(2b²)}).
  With |g(x)| ≤ P(|x|) on the real line (P with non-negative coefficients) and Jensen,
  w ↦ ϕ(w)·ψ(a·w)² is entire with ∫|f(t + iβ)| dt ≤ e^{κβ²}·M₀ for every β, where
  κ = 1/2 + a²/b² = 1/2 + c/(1 − c) and M₀ = E[P(a|T| + b|V|)²] (T, V standard normals; a
  sum of products of absolute normal moments). The whole-line trapezoidal rule with step h
  then errs by at most 2M₀e^{κβ²}/(e^{2πβ/h} − 1) (Trefethen & Weideman, "The exponentially
  convergent trapezoidal rule", SIAM Review 56 (2014), Theorem 5.1), taken at β = π/(κh):
  about 2M₀·e^{−π²/(κh²)}. That step shrinks like sqrt(1 − c); as c → 1 a bound that does
  not grow takes over (the larger step wins, ``_strip_step``, ``_box_step``): for g analytic
  in the strip |Im z| ≤ width with |g(z)| ≤ P_s(|z|) there, ψ is analytic on the same strip
  with |ψ(m)| ≤ E[P_s(|m| + b|V|)], so the outer integrand is analytic for |Im w| < width/a
  with ∫|f(t + iβ)| dt ≤ e^{β²/2}·E[P_s(width + a|T| + b|V|)²]; for g bounded only on
  rectangles (expressions), ψ(m + iy) is bounded by moving the middle of its integral up to
  Im x = y, and the rule's error is bounded on a finite rectangle (``_rectangle_error``).
  For an entire g (``Strip.wider``) the width that allows the widest step is taken. Nodes
  beyond |w| > L are bounded by the tail of
  Q(|w|) = E_V[P(a|w| + b|V|)²] ≥ ψ(a·w)² (``gaussian_balls.tail_bound``, each term checked
  decreasing beyond L, so h·Σ_{|j|h>L} ≤ ∫_{|w|>L});
* inner: ψ at the outer nodes, each as a ball that holds the exact value — from the caller
  (``smoothing``: a closed form, e.g. for piecewise exp-polynomials), or for g analytic in the
  strip |Im x| ≤ width with |g(z)| ≤ P_strip(|z|) there, by the trapezoidal rule in v
  (``engine.trapezoid``'s bounds: discretisation with the strip |Im v| < width/b, tails
  from the real-line bound), uniformly for every mean |m| ≤ a·L + a·h. Either the inner step
  h_v is chosen so that every argument a·w_j + b·v_k is a multiple of one δ (a·h = P·δ,
  b·h_v = δ, P whole): g is evaluated once per lattice point and the inner sums at all
  outer nodes are one polynomial product (exact integer multiplication in fixed point,
  ``engine.convolution``, with a proven rounding bound); or, when that evaluates g more often
  (the lattice grows like a/b as c → 1), each node has its own rule (``_node_sums``), whose
  strip width/b widens as b → 0, so that it needs only the nodes of a Gaussian. As c → 1 the
  cost is then bounded (1 − c = 10⁻¹² costs what 10⁻⁶ does).

Where the integrands are g and its derivatives (E[g'(u₁)g'(u₂)], E[g''(u₁)g''(u₂)] beside
E[g(u₁)g(u₂)]: Price's theorem's slopes of the correlation map), at a thousand digits only g gets
the inner rule: ψ' and ψ'' at the outer nodes come from ψ's values there by the cardinal series'
derivatives (``engine.sinc_slopes``, a proven bound; ψ is entire), the outer step shortened for
it, one lattice convolution where there were two or three (``derivative``, ``curvature``).

q may be a ball (q* known to lie in it): every step is ball arithmetic, so the result holds
the expectation for every q in the ball.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from flint import arb, ctx

from .gaussian_balls import Term, tail_bound
from . import sinc_slopes
from .convolution import FixedWeights
from .trapezoid import A_MAX, FEWER_BITS_FROM, _decreasing_from, gaussian_sums, strip_integral_bound
from .balls import abs_normal_moments

# Beyond this many lattice points (a correlation very close to 1, a very wide strip of means)
# the caller does without a certified value.
MAX_LATTICE = 400_000
MAX_OUTER_NODES = 20_000


class Strip(NamedTuple):
    """g analytic on |Im z| ≤ width, |g(z)| ≤ Σ bound[k]·|z|^k there; ``at(x, e^x)`` gives the
    values of every integrand at a real x (a list, one per integrand).

    Or, with ``box`` (``bounds`` unused): g analytic on the rectangle |Re z| ≤ X, |Im z| ≤ width,
    ``box(X)`` an upper bound of each |g_i| there (None: none proven), and the inner rule's
    error bounded on a finite rectangle (``_rectangle_error``), nothing assumed beyond it."""

    width: arb
    bounds: Sequence[Sequence[arb]]  # per integrand
    at: Callable[[arb, arb], Sequence[arb]]
    box: Callable[[arb], Sequence[arb] | None] | None = None
    # Per integrand, g(−x) = parity·g(x) exactly (+1 even, −1 odd); None: not known. The lattice
    # sums then take the points x ≥ −(inner reach) only, and ψ(−m) = parity·ψ(m).
    parity: Sequence[int] | None = None
    # For g entire: the strip of another width (the same g, its bounds there); the outer step
    # then takes the width that allows the widest step.
    wider: Callable[[arb], Strip] | None = None
    # g less the principal parts of its poles nearest the real line (a wider strip: fewer lattice
    # points), with ``poles(m, b)``: per integrand, the Gaussian smoothing E[P(m + b·V)] of what
    # was subtracted, as a ball (a closed form, at the current precision). The lattice rule of
    # ``subtracted`` plus ``poles`` at each node is one more plan (``_strip_smoothing``).
    subtracted: Strip | None = None
    poles: Callable[[arb, arb], Sequence[arb]] | None = None
    # A closed form ``poles`` costs about this many lattice points at a node with |z| = 0, and
    # as many again per POLE_COST_REACH of |z| (``pole_reach(m, b)``: Faddeeva's function costs
    # more far from the origin).
    pole_reach: Callable[[arb, arb], float] | None = None
    # Per integrand, its value alone from (x, e^x) (None: only with the others, by ``at``), the
    # same ball ``at`` gives: a rule over one integrand (``select_strip``) skips the others'
    # arithmetic (tanh alone is half of tanh and sech² together at a thousand digits).
    alone: Sequence[Callable[[arb, arb], arb] | None] | None = None


POLE_COST = 10.0
POLE_COST_REACH = 6.0


# (means as balls, std, absolute goal) -> per integrand, ψ at each mean as a ball holding the
# exact value (a closed form may ignore the goal: its radius is the working precision's); None:
# not proven at some mean
Smoothing = Callable[[Sequence[arb], arb, arb], Sequence[Sequence[arb]] | None]


def _poly_square(p: Sequence[arb]) -> list[arb]:
    out = [arb(0)] * (2 * len(p) - 1)
    for i, x in enumerate(p):
        for j, y in enumerate(p):
            out[i + j] += x * y
    return out


def _up(x: arb) -> arb:
    return arb(x.upper())


def _sup(balls: Sequence[arb]) -> arb:
    """An exact upper bound of every ball (compared as balls: doubles could tie two bounds)."""
    top = _up(balls[0])
    for x in balls[1:]:
        top = _up(top.max(x))
    return top


def _outer_terms(poly: Sequence[arb], a: arb, b: arb) -> tuple[list[arb], arb]:
    """Q(|w|) = E_V[P(a|w| + b|V|)²] as coefficients in |w|, and M₀ = E[Q(|T|)]."""
    square = _poly_square(poly)
    mu = abs_normal_moments(len(square))
    q = [arb(0)] * len(square)
    for k, r in enumerate(square):
        if r == 0:
            continue
        for j in range(k + 1):
            q[j] += r * math.comb(k, j) * a**j * b ** (k - j) * mu[k - j]
    m0 = sum((c * mu[j] for j, c in enumerate(q)), arb(0))
    return [_up(c) for c in q], _up(m0)


def _tail_from(terms: Sequence[Term], mean: arb, std: arb, goal: arb, start: float) -> float | None:
    """The smallest L (from ``start``, in steps of 5%) with the tails beyond L below ``goal`` and
    every term decreasing from L on."""
    L = max(start, 1.0)
    while L < 10**5:
        Lb = arb(L)
        bound = tail_bound(terms, Lb, mean, std)
        if bound is not None and bound <= goal and _decreasing_from(terms, Lb, mean, std):
            return L
        L *= 1.05
    return None


def _tail_beyond(terms: Sequence[Term], L: float, mean: arb, std: arb) -> arb:
    """``tail_bound`` at an L at or beyond one ``_tail_from`` found for these terms (each term's
    own L, or the largest of them), where it applies: its None (L left of a term's completed
    square's centre) cannot happen there."""
    bound = tail_bound(terms, arb(L), mean, std)
    assert bound is not None
    return bound


def _entire_step(m0: arb, kappa: arb, goal: arb) -> tuple[arb, arb] | None:
    """The outer step for ψ entire: 2M₀·e^{κβ²}/(e^{2πβ/h} − 1) ≤ goal/8 at β = π/(κh) (about
    2M₀·e^{−π²/(κh²)}); (h, that bound), None if the balls do not prove it."""
    logs = float((16 * m0 / goal).log().upper())
    h = arb(math.pi / math.sqrt(float(kappa.upper()) * logs) * 0.98)
    h = arb(h.mid().str(8, radius=False))  # an exact, short step
    if not h > 0:
        return None
    beta = arb.pi() / (kappa * h)
    discretisation = 2 * m0 * (kappa * beta * beta).exp() / ((2 * arb.pi() * beta / h).exp() - 1)
    if not discretisation <= goal / 8:
        return None
    return h, discretisation


def _shift(poly: Sequence[arb], width: arb) -> list[arb]:
    """The coefficients of y ↦ P(width + y) (non-negative with P's)."""
    out = [arb(0)] * len(poly)
    for k, c in enumerate(poly):
        if c == 0:
            continue
        for j in range(k + 1):
            out[j] += c * math.comb(k, j) * width ** (k - j)
    return [_up(x) for x in out]


def _strip_step(strip: Strip, pairs: Sequence[tuple[arb, arb]], goal: arb) -> tuple[arb, arb] | None:
    """The outer step for g analytic in the strip |Im z| ≤ width, |g(z)| ≤ P(|z|) there: ψ(m) =
    E[g(m + b·V)] is then analytic for |Im m| < width with |ψ(m)| ≤ E[P(|m| + b|V|)], so for
    |Im w| ≤ β < width/a the outer integrand ϕ(w)·ψ₁(a₁w)·ψ₂(±a₂w) has ∫|f(t + iβ)| dt ≤
    e^{β²/2}·max_i E[P_i(width + a_i|T| + b_i|V|)²] = e^{β²/2}·M_s (|ψ₁ψ₂| ≤ (|ψ₁|² + |ψ₂|²)/2,
    Jensen), a bound that does not grow as c → 1. The error 2M_s·e^{β²/2}/(e^{2πβ/h} − 1) ≤ goal/8
    (Trefethen & Weideman 2014, Theorem 5.1) at β = min(width/a, sqrt(2Λ)), Λ = ln(16M_s/goal)
    (the β that maximises h). ``pairs``: (a_i, b_i) upper bounds, one per variance."""
    best = _strip_step_at(strip, pairs, goal)
    if strip.wider is not None:
        for width in WIDER:
            if not width > strip.width:
                continue
            found = _strip_step_at(strip.wider(arb(width)), pairs, goal)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
    return best


# The widths tried for an entire g (``Strip.wider``): about sqrt(ln(1/goal)/γ) is best for
# bounds growing like e^{γ·width²}.
WIDER = (0.75, 0.875, 1.5, 2, 3, 4, 6, 8, 11, 16)


def _strip_step_at(strip: Strip, pairs: Sequence[tuple[arb, arb]], goal: arb) -> tuple[arb, arb] | None:
    """``_strip_step`` at the strip's own width."""
    width = strip.width
    a_top = _sup([a for a, _ in pairs])
    if not (width > 0 and a_top > 0):
        return None
    m_s = _sup([_outer_terms(_shift(p, width), a, b)[1] for p in strip.bounds for a, b in pairs])
    logs = float((16 * m_s / goal).log().upper())
    beta = min(float((width / a_top).lower()) * (1 - 2.0**-20), math.sqrt(2 * logs))
    if not beta > 0:
        return None
    h = arb(2 * math.pi * beta / (logs + beta * beta / 2 + 1) * 0.98)
    h = arb(h.mid().str(8, radius=False))
    if not h > 0:
        return None
    beta_ball = arb(beta)
    discretisation = 2 * m_s * (beta_ball * beta_ball / 2).exp() / ((2 * arb.pi() * beta_ball / h).exp() - 1)
    if not discretisation <= goal / 8:
        return None
    return h, discretisation


def _box_step(
    strip: Strip,
    polys: Sequence[Sequence[arb]],
    pairs: Sequence[tuple[arb, arb]],
    b_lows: Sequence[arb],
    L: float,
    goal: arb,
) -> tuple[arb, arb, float] | None:
    """The outer step for g analytic on rectangles |Re z| ≤ X, |Im z| ≤ width (``strip.box``),
    |g| ≤ P on the real line: (h, the rule's error on the rectangle, the truncation L' ≥ L).

    ψ(m + iy), |Re m| ≤ M, |y| ≤ Y < width: move the part x ∈ [−X, X] of
    ψ = ∫ g(x)·ϕ((x − m − iy)/b)/b dx up to Im x = y (g analytic there, X = M + D, D = Y + 1).
    On the moved segment the kernel is ϕ((x − Re m)/b)/b: at most G = box(X) in all; on the two
    vertical sides (length ≤ Y) |kernel| ≤ e^{(Y² − D²)/(2b²)}/(b√(2π)); on |x| > X, where
    |x − Re m| ≥ D, |kernel| ≤ ϕ((x − Re m)/b)/b·e^{Y²/(2b²)} and |g| ≤ P. So

        |ψ| ≤ G·(1 + 2Y·e^{(Y² − D²)/(2b²)}/(b√(2π))) + e^{Y²/(2b²)}·∫_{|v|>D/b} P(M + b|v|)ϕ(v) dv = G_ψ,

    bounded as b → 0. The outer integrand ϕ(w)·ψ₁(a₁w)·ψ₂(±a₂w) is then at most
    G_ψ²·ϕ(t)·e^{β²/2} on |Re w| ≤ T, |Im w| ≤ β ≤ Y/a, and the rule's error on that
    rectangle is ``_rectangle_error`` (T = (N + 1/2)·h, half-way between nodes); beyond T the
    real-line tails of Q bound the rest, as for the other steps (T ≥ L')."""
    width = strip.width
    a_top = _sup([a for a, _ in pairs])
    if not (width > 0 and a_top > 0) or strip.box is None:
        return None
    Y = arb(float(width.lower()) * (1 - 2.0**-20))
    D = Y + 1
    terms = [Term(_up(c_), k) for p in polys for k, c_ in enumerate(p) if c_ != 0]
    norm = (2 * arb.pi()).sqrt()
    for _ in range(6):
        M = _up(a_top * (L + 1))  # T ≤ L + 1 below (h ≤ 2/3)
        sizes = strip.box(_up(M + D))
        if sizes is None:
            return None
        G = _sup(sizes)
        bounds = []
        for (_, b_up), b_low in zip(pairs, b_lows):
            if not (b_low > 0 and b_up < D):
                return None
            tail = tail_bound(terms, arb((D / b_up).lower()), M, b_up)
            if tail is None:
                return None
            sides = 2 * Y * ((Y * Y - D * D) / (2 * b_up * b_up)).exp() / (b_low * norm)
            bounds.append(G * (1 + sides) + (Y * Y / (2 * b_low * b_low)).exp() * tail)
        g_psi = _sup(bounds)
        size = _up(g_psi * g_psi)
        logs = float((16 * size / goal).log().upper())
        beta = min(float((Y / a_top).lower()) * (1 - 2.0**-20), math.sqrt(2 * logs))
        if not beta > 0:
            return None
        beta_ball = arb(beta)
        # the vertical sides: 2β·G_ψ²·e^{β²/2}·ϕ(T) ≤ goal/16, T ≥ L
        vertical = 2 * beta_ball * size * (beta_ball * beta_ball / 2).exp() * (arb(-L * L) / 2).exp() / norm
        if vertical <= goal / 16:
            break
        need = float(
            (32 * beta_ball * size * (beta_ball * beta_ball / 2).exp() / (goal * norm)).log().upper()
        )
        L = max(L * 1.05, math.sqrt(2 * max(need, 1.0)) * 1.01)
    else:
        return None
    h = arb(min(2 * math.pi * beta / (logs + beta * beta / 2 + 1) * 0.98, 2 / 3))
    h = arb(h.mid().str(8, radius=False))
    if not h > 0:
        return None
    nodes = math.ceil(L / float(h.lower()))
    end = (nodes + arb(1) / 2) * h
    if not (end <= L + 1 and end >= L):
        return None
    error = _rectangle_error(size, beta_ball, h, end)
    if not error <= goal / 8:
        return None
    return h, error, L


def bivariate_balls(
    polys: Sequence[Sequence[arb]],
    q: arb,
    c: arb,
    goal_log2: float,
    strip: Strip | None = None,
    smoothing: Smoothing | None = None,
    q2: arb | None = None,
    mirror: bool = False,
    derivative: bool = False,
    curvature: tuple[Sequence[arb], float] | None = None,
    third: tuple[Sequence[arb], float] | None = None,
) -> list[arb] | None:
    """E[g_i(u₁)·g_i(u₂)] for each integrand g_i, |g_i(x)| ≤ Σ polys[i][k]·|x|^k on the real
    line, each within 2^goal_log2 plus its arithmetic's own radius, at the current precision.
    ψ comes from ``smoothing`` or from ``strip`` (see the module docstring). None when c is
    not provably inside (0, 1) or the rule needs too many nodes.

    ``q2``: u₂ has variance q2 (u₁ keeps q): u₂ = sqrt(q2/q)·(a·W + b·V₂), and the outer
    integrand is ϕ(w)·ψ₁(a₁w)·ψ₂(a₂w), each ψ_i from its own variance. ``mirror``: the
    correlation is −c, u₂ = −a₂·W + b₂·V₂, and the integrand is ϕ(w)·ψ₁(a₁w)·ψ₂(−a₂w) (the
    second factor read at the mirrored node). The bounds still hold: |ψ₁ψ₂| ≤ (|ψ₁|² + |ψ₂|²)/2
    and each |ψ_i(±a_i(t + iβ))|² integrates against |ϕ(t + iβ)| = ϕ(t)·e^{β²/2} (even in t)
    to at most e^{κβ²}·M₀ᵢ, κ = 1/2 + c/(1 − c) being the same for both; so M₀ = max M₀ᵢ, and
    the tails of Q₁ + Q₂ bound those of the product.

    ``derivative``: the integrands are g and g' (two of them): where ψ comes from ``strip`` (not
    rectangles), with one variance and no mirror, only g gets an inner rule, and ψ₁ = ψ' at the
    outer nodes comes from ψ's values there (``engine.sinc_slopes``), the outer step shortened
    for that bound where it must be (at most by CARDINAL_SHORTER: the inner rules do not get
    dearer with more outer nodes, the outer sums do). ``curvature`` = (a bound P₂ of |g''| on
    the real line, a goal 2^goal_log2): where ψ' comes so, E[g''(u₁)·g''(u₂)] comes from ψ's values
    too (ψ'' by the cardinal series' second derivative), within that goal, as a third result
    (its outer rule's error from P₂ by the entire bound at the step taken). ``third`` = (a bound
    P₃ of |g'''| on the real line, a goal), with ``curvature``: E[g'''(u₁)·g'''(u₂)] likewise (ψ'''
    by the cardinal series' third derivative), a fourth result where the third is."""
    if not (c > 0 and c < 1 and q > 0) or (q2 is not None and not q2 > 0):
        return None
    goal = arb(2) ** math.floor(goal_log2)
    a, b = (q * c).sqrt(), (q * (1 - c)).sqrt()
    a_up, b_up = _up(a), _up(b)
    kappa = _up(arb(1) / 2 + c / (1 - c))
    outer = [_outer_terms(p, a_up, b_up) for p in polys]
    if q2 is not None:
        a2, b2 = (q2 * c).sqrt(), (q2 * (1 - c)).sqrt()
        outer += [_outer_terms(p, _up(a2), _up(b2)) for p in polys]
    m0 = _sup([m for _, m in outer])
    start = math.sqrt(max(0.0, -2 * goal_log2 * math.log(2))) * 0.9
    lengths = [
        _tail_from([Term(c_, j) for j, c_ in enumerate(terms) if c_ != 0], arb(0), arb(1), goal / 8, start)
        for terms, _ in outer
    ]
    known = [L for L in lengths if L is not None]
    if len(known) < len(lengths):
        return None
    L = max(known)
    # Outer step: the largest of the entire bound's and (for g analytic in a strip or on
    # rectangles) the strip bound's, each checked in balls to err by at most goal/8; (h, that
    # error, the truncation L it needs).
    steps: list[tuple[arb, arb] | tuple[arb, arb, float] | None] = [_entire_step(m0, kappa, goal)]
    if strip is not None and smoothing is None:
        pairs = [(a_up, b_up)] if q2 is None else [(a_up, b_up), (_up(a2), _up(b2))]
        if strip.box is None:
            steps.append(_strip_step(strip, pairs, goal))
        else:
            b_lows = [arb(b.lower())] if q2 is None else [arb(b.lower()), arb(b2.lower())]
            box = _box_step(strip, polys, pairs, b_lows, L, goal)
            entire = steps[0][0] if steps[0] is not None else arb(0)
            if strip.wider is not None and box is not None and box[0] > entire:
                # wider rectangles (an entire g) where the rectangles win already (c near 1;
                # not tried at moderate c, where the boxes would cost more than they save)
                for width in WIDER:
                    if width > strip.width:
                        found_box = _box_step(strip.wider(arb(width)), polys, pairs, b_lows, L, goal)
                        if found_box is not None and found_box[0] > box[0]:
                            box = found_box
            steps.append(box)
    found = [(s[0], s[1], L if len(s) == 2 else s[2]) for s in steps if s is not None]
    if not found:
        return None
    h, discretisation, L = max(found, key=lambda s: float(s[0].mid()))
    inner_goal = goal / (16 * (1 + m0.sqrt()))
    cardinal = None
    if derivative and len(polys) == 2 and strip is not None and smoothing is None:
        if strip.box is None and q2 is None and not mirror and ctx.prec >= CARDINAL_FROM_BITS:
            cardinal = _cardinal_plan(outer, a_up, c, h, L, inner_goal)
    first_only = None
    if cardinal is not None:
        assert strip is not None
        step, reach = cardinal[0], cardinal[1]
        sides = math.ceil(reach / float(step.lower()))
        first_only = _strip_plan(select_strip(strip, (0,)), a, b, b_up, c, step, sides, cardinal[3])
        if (
            first_only is None
            or not first_only[2]  # node by node: more nodes cost more, both integrands as one
            or first_only[0] < CARDINAL_NODE_COST * sides
            or 2 * sides + 1 > MAX_OUTER_NODES
        ):
            cardinal = first_only = None
    if cardinal is not None:
        # a shorter step only lowers the outer rule's bound (β kept); L only its tails
        h, L, cardinal_error, inner_goal = cardinal
    nodes = math.ceil(L / float(h.lower()))
    if 2 * nodes + 1 > MAX_OUTER_NODES:
        return None
    bound = discretisation + _tail_beyond(
        [Term(c_, j) for terms, _ in outer for j, c_ in enumerate(terms) if c_ != 0], L, arb(0), arb(1)
    )
    # ψ at the nodes: a ball around each, for each integrand.

    def smoothed(a: arb, b: arb) -> Sequence[Sequence[arb]] | None:
        b_up, b_low = _up(b), arb(b.lower())
        if smoothing is not None:
            return smoothing([a * (h * j) for j in range(-nodes, nodes + 1)], b, inner_goal)
        if strip is not None:
            if strip.box is not None:
                return _box_smoothing(strip, polys, a, b, b_up, c, h, nodes, inner_goal)
            return _strip_smoothing(strip, a, b, b_up, b_low, c, h, nodes, inner_goal)
        raise ValueError("bivariate_balls needs a smoothing or a strip")

    psis = smoothed(a, b) if first_only is None else first_only[1]()
    if psis is None:
        return None
    # the outer weights e^{−(jh)²/2}, j = 1..nodes, by recurrence (once for every integrand and
    # the cardinal series' samples)
    weights = []
    weight, ratio, weight_square = arb(1), (-h * h / 2).exp(), (-h * h).exp()
    for _ in range(nodes):
        weight *= ratio
        ratio *= weight_square
        weights.append(weight)
    if cardinal is not None:
        # sqrt(Q₁(n·h)) ≥ |ψ₁(a·w)| for |w| ≤ n·h (Q₁'s coefficients are ≥ 0)
        far = h * nodes
        slope_size = _up(sum((c_ * far**j for j, c_ in enumerate(outer[1][0]) if c_ != 0), arb(0)).sqrt())
        parity = None if strip is None or strip.parity is None else strip.parity[0]
        second = None
        planned = (
            None
            if curvature is None
            else _curvature_plan(curvature, outer, a_up, b_up, c, kappa, h, L, nodes)
        )
        third_planned = None
        if planned is not None:
            second, curvature_bound = planned
            if third is not None:
                third_planned = _curvature_plan(third, outer, a_up, b_up, c, kappa, h, L, nodes, order=3)
        thirds: list[list[arb]] = []
        first, derived = sinc_slopes.derivatives(
            psis[0],
            h,
            a,
            parity,
            (cardinal_error, slope_size),
            second,
            [arb(1), *weights],
            None if third_planned is None else third_planned[0],
            thirds,
        )
        psis = [psis[0], first] + ([] if derived is None else [derived, *thirds])
    others = psis if q2 is None else smoothed(a2, b2)
    if others is None:
        return None
    results = []
    bounds = [bound, bound] + ([curvature_bound] if len(psis) >= 3 else [])
    if len(psis) == 4:
        assert third_planned is not None
        bounds.append(third_planned[1])
    for values, seconds, bound in zip(psis, others, bounds):
        if mirror:
            seconds = seconds[::-1]
        if seconds is values:
            total = values[nodes] * values[nodes]  # (not ** 2: Arb's power of a ball holding 0 is nan)
        else:
            total = values[nodes] * seconds[nodes]
        for j, weight in zip(range(1, nodes + 1), weights):
            if seconds is values:
                right, left = values[nodes + j], values[nodes - j]
                total += weight * (right * right + left * left)
            else:
                total += weight * (
                    values[nodes + j] * seconds[nodes + j] + values[nodes - j] * seconds[nodes - j]
                )
        results.append(total * h / (2 * arb.pi()).sqrt() + arb(0, _up(bound)))
    return results


# The cardinal series' derivative (``derivative``) is taken where its step is at least this part
# of the outer rule's, from this working precision on (below it the second lattice convolution it
# saves costs less than the longer outer sums: tanh at 600 digits, c = 1/2, breaks even), and
# where ψ then comes from a lattice rule (node by node, more nodes cost more and the two
# integrands share each node's rule); else both integrands get an inner rule, as without it.
CARDINAL_SHORTER = 0.5
CARDINAL_FROM_BITS = 2400
# ... and where the lattice rule it spares costs at least this many lattice points per outer node
# on a side (the cardinal series' product and the outer sums, per node: measured at 1000 digits,
# tanh at c = 0.9 (8 points a node) lost 7%, at c = 0.7 (16) gained 9%, at c = 0.5 (21) 22%).
CARDINAL_NODE_COST = 12


def _cardinal_plan(
    outer: Sequence[tuple[list[arb], arb]], a: arb, c: arb, h: arb, L: float, goal: arb
) -> tuple[arb, float, arb, arb] | None:
    """(the outer step, the truncation L, the error bound of G' at the nodes, the goal of ψ at the
    nodes) for ψ' from ψ's values (``engine.sinc_slopes``), or None where the step would be
    shorter than CARDINAL_SHORTER of ``h`` or a bound is not proven. The error in G' at each node
    is kept below E = goal·a·√(2π)/(64·(L + 1)·(1 + sqrt(Q₁(L)))) (Q₁ bounding ψ'² at |w| ≤ L):
    its share of the outer sum is then at most about goal/8 (``goal`` is ψ's own goal). ψ's
    errors reach G' through Σ|D_k| ≤ (2/h)·(1 + ln 2n) (n the nodes on a side): ψ's goal is
    E/2 over that, and the cardinal series' bounds take the other half."""
    q_terms = [Term(c_, j) for j, c_ in enumerate(outer[0][0]) if c_ != 0]
    slope_size = _up(sum((c_ * arb(L + 1) ** j for j, c_ in enumerate(outer[1][0])), arb(0)).sqrt())
    error_goal = goal * arb(a.lower()) * (2 * arb.pi()).sqrt() / (64 * (L + 1) * (1 + slope_size))
    root_m0 = _up(outer[0][1].sqrt())
    step = sinc_slopes.cardinal_step(h, c, root_m0, error_goal / 4)
    if step is None or not step >= h * CARDINAL_SHORTER:
        return None
    start = L
    while start < 10**4:
        truncation = sinc_slopes.truncation_error(q_terms, start, step)
        if truncation is not None and truncation <= error_goal / 4:
            error = _up(sinc_slopes.cardinal_error(step, c, root_m0) + truncation)
            sides = math.ceil(start / float(step.lower()))
            spread = 2 * (1 + arb(2 * sides).log()) / step
            return step, start, error, error_goal / (2 * _up(spread))
        start *= 1.02
    return None


def _curvature_plan(
    curvature: tuple[Sequence[arb], float],
    outer: Sequence[tuple[list[arb], arb]],
    a: arb,
    b: arb,
    c: arb,
    kappa: arb,
    h: arb,
    L: float,
    nodes: int,
    order: int = 2,
) -> tuple[tuple[arb, arb, int], arb] | None:
    """((the error of G'' at the nodes, a bound of |ψ''| there, the bits of its fixed-point sum), the
    outer rule's error) for E[g''g''] from ψ's values within 2^goal_log2 (``curvature``): the
    entire bound 2M₀e^{κβ²}/(e^{2πβ/h} − 1) at β = π/(κh) and Q₂'s tails beyond L; the error of
    G'' from the cardinal series' bound (``sinc_slopes.curvature_error``, the left-out nodes by
    π²/(3h²) ≥ |D2_k|) and the sum's rounding, each a share of the goal as in ``_cardinal_plan``;
    None where Q₂'s tails are not proven beyond L. ``order`` 3: the same for E[g'''g'''] (P₃ in
    ``curvature``): ``sinc_slopes.third_error``, the left-out nodes by (6 + π²)/h³ ≥ |D3_k|, the
    share a³ in place of a², and Σ|D3_k| ≤ 2(6·ζ(3) + π²·(1 + ln 3n))/h³ for the rounding."""
    poly, goal_log2 = curvature
    goal = arb(2) ** math.floor(goal_log2)
    terms, m0 = _outer_terms(poly, a, b)
    beta = arb.pi() / (kappa * h)
    rule = 2 * m0 * (kappa * beta * beta).exp() / ((2 * arb.pi() * beta / h).exp() - 1)
    tail_terms = [Term(c_, j) for j, c_ in enumerate(terms) if c_ != 0]
    tail = tail_bound(tail_terms, arb(L), arb(0), arb(1))
    if tail is None or not _decreasing_from(tail_terms, arb(L), arb(0), arb(1)):
        return None  # (h·Σ over the nodes beyond L ≤ the integral needs Q₂'s terms decreasing)
    bound = _up(rule + tail)
    far = h * nodes
    size = _up(sum((c_ * far**j for j, c_ in enumerate(terms) if c_ != 0), arb(0)).sqrt())
    root_m0 = _up(outer[0][1].sqrt())
    q_terms = [Term(c_, j) for j, c_ in enumerate(outer[0][0]) if c_ != 0]
    truncation = sinc_slopes.truncation_error(q_terms, L, h)
    assert truncation is not None  # the same L and terms as ``_cardinal_plan``'s
    if order == 3:
        error = _up(sinc_slopes.third_error(h, c, root_m0) + truncation * (6 + arb.pi() ** 2) / (h * h))
        share = goal * a * a * a / (64 * (L + 1) * (1 + size))
        spread = 2 * (6 * arb("1.21") + arb.pi() ** 2 * (1 + arb(3 * nodes + 1).log())) / (h * h * h)
        bits = max(64, int(float((spread / share).log().upper()) / math.log(2)) + 8)
        return (error, size, min(bits, ctx.prec)), bound
    error = _up(sinc_slopes.curvature_error(h, c, root_m0) + truncation * arb.pi() ** 2 / (3 * h))
    # Σ|D2_k| = (π²/3 + 2π²/3)/h² = π²/h² < 10/h²: the sum's rounding (2^−bits a term) within the error's
    # share, goal·a²/(64·(L + 1)·(1 + size))
    share = goal * a * a / (64 * (L + 1) * (1 + size))
    bits = max(64, int(float((10 / (h * h * share)).log().upper()) / math.log(2)) + 8)
    return (error, size, min(bits, ctx.prec)), bound


def select_strip(strip: Strip, which: Sequence[int]) -> Strip:
    """``strip`` restricted to the integrands ``which`` (their bounds, values, parities, wider
    strips, subtracted strip and poles)."""
    at, box, wider, poles = strip.at, strip.box, strip.wider, strip.poles
    alone = None if strip.alone is None else [strip.alone[i] for i in which]
    if alone is not None and len(alone) == 1 and alone[0] is not None:
        single = alone[0]
        values = lambda x, ex: [single(x, ex)]
    else:
        values = lambda x, ex: [at(x, ex)[i] for i in which]
    return Strip(
        strip.width,
        [strip.bounds[i] for i in which] if strip.bounds else strip.bounds,
        values,
        None
        if box is None
        else lambda X: (lambda sizes: None if sizes is None else [sizes[i] for i in which])(box(X)),
        None if strip.parity is None else tuple(strip.parity[i] for i in which),
        None if wider is None else lambda w: select_strip(wider(w), which),
        None if strip.subtracted is None else select_strip(strip.subtracted, which),
        None if poles is None else lambda m, b: [poles(m, b)[i] for i in which],
        strip.pole_reach,
        alone,
    )


def _strip_smoothing(
    strip: Strip, a: arb, b: arb, b_up: arb, b_low: arb, c: arb, h: arb, nodes: int, goal: arb
) -> list[list[arb]] | None:
    """ψ_i(a·h·j), |j| ≤ nodes, for g analytic in the strip: by the lattice trapezoidal rule
    (shared evaluations) or node by node (``_node_sums``), whichever evaluates g fewer times
    (an evaluation in a node's rule costing about NODE_COST lattice points). As c → 1 the lattice
    grows like a/b while the nodes' rules shrink (their strip |Im v| < width/b widens)."""
    del b_low
    plan = _strip_plan(strip, a, b, b_up, c, h, nodes, goal)
    return None if plan is None else plan[1]()


def _strip_plan(strip: Strip, a: arb, b: arb, b_up: arb, c: arb, h: arb, nodes: int, goal: arb):
    """``_strip_smoothing``'s choice: (its cost, its thunk, whether it is a lattice rule), None
    where no plan is in reach."""
    lattice = _lattice_plan(strip, a, b_up, c, h, nodes, goal)
    node = _node_plan(strip, a, b, b_up, h, nodes, goal, None if lattice is None else lattice[0])
    subtracted = _subtracted_plan(strip, a, b, b_up, c, h, nodes, goal)
    plans = [(*plan, plan is not node) for plan in (lattice, node, subtracted) if plan is not None]
    if not plans:
        return None
    return min(plans, key=lambda plan: plan[0])


def _subtracted_plan(strip: Strip, a: arb, b: arb, b_up: arb, c: arb, h: arb, nodes: int, goal: arb):
    """(cost, thunk) of the lattice rule of ``strip.subtracted`` (g less its nearest poles' principal
    parts, analytic on a wider strip) with the subtracted parts' smoothing added at each node in
    closed form, None without one. Each closed form (Faddeeva's function at 1000 digits: 1-7 ms)
    is charged POLE_COST·(1 + |z|/POLE_COST_REACH) lattice points at the farthest node's |z|:
    worth it where b is large against a (the lattice's span b·L/δ shrinks, the nodes are few)."""
    other = strip.subtracted
    if other is None or other.poles is None:
        return None
    found = _lattice_plan(other, a, b_up, c, h, nodes, goal)
    if found is None:
        return None
    cost, thunk = found
    means = nodes + 1 if other.parity is not None else 2 * nodes + 1
    reach = 0.0 if other.pole_reach is None else other.pole_reach(a * h * nodes, b)
    cost += means * POLE_COST * (1 + reach / POLE_COST_REACH)
    return cost, lambda: _with_poles(other, thunk(), a, b, h, nodes)


def _with_poles(
    strip: Strip, columns: list[list[arb]], a: arb, b: arb, h: arb, nodes: int
) -> list[list[arb]]:
    """``columns`` (ψ of g less its poles at a·h·j, |j| ≤ nodes) plus the poles' smoothing at each
    node. A node's closed form is taken at fewer bits the farther out it is: the outer rule weighs
    ψ(a·h·j) by ϕ(h·j), so ψ there is needed to about (h·j)²/(2 ln 2) bits fewer (Arb's radii carry
    the difference into the result, which the caller checks against its goal)."""
    assert strip.poles is not None
    prec = ctx.prec
    first = 0 if strip.parity is not None else -nodes
    parts: dict[int, Sequence[arb]] = {}
    step = float(h.mid())
    for j in range(first, nodes + 1):
        fewer = int((step * j) ** 2 / (2 * math.log(2)))
        with ctx.workprec(max(64, prec - fewer + 40)):
            parts[j] = strip.poles(a * h * j, b)
    out = []
    for i, column in enumerate(columns):
        sign = 1 if strip.parity is None else strip.parity[i]
        added = []
        for j, value in zip(range(-nodes, nodes + 1), column):
            part = parts[j][i] if j >= first else sign * parts[-j][i]
            added.append(value + part)
        out.append(added)
    return out


# An evaluation in a node's own rule costs about this many lattice points (measured: about
# 2.5 µs against 6-9 µs a lattice point, its share of the convolution and set-up included).
NODE_COST = 0.4


def _lattice_plan(strip: Strip, a: arb, b_up: arb, c: arb, h: arb, nodes: int, goal: arb):
    """(its cost in evaluations of g, the lattice rule's ψ_i(a·h·j) as a thunk), None if out of
    reach. For an entire g (``Strip.wider``) the width whose rule costs least: the inner step
    grows with α = width/b while the strip bound grows like e^{γ·width²}, so at a thousand
    digits a width of several units takes a step many times wider than width 1."""
    best = _lattice_plan_at(strip, a, b_up, c, h, nodes, goal)
    if strip.wider is not None:
        for width in WIDER:
            if not width > strip.width:
                continue
            found = _lattice_plan_at(strip.wider(arb(width)), a, b_up, c, h, nodes, goal)
            if found is not None and (best is None or found[0] < best[0]):
                best = found
    return best


def _lattice_plan_at(strip: Strip, a: arb, b_up: arb, c: arb, h: arb, nodes: int, goal: arb):
    """``_lattice_plan`` at the strip's own width, α = min(width/b, max(A_MAX, sqrt(2Λ₀))), Λ₀ =
    ln(8M₀/goal) (M₀ the strip bound without the factor e^{α²/2}: the α that allows the widest
    step, as in ``_node_plan``)."""
    width = strip.width
    m_max = _up(a * h * (nodes + 1))
    base = _sup([strip_integral_bound(p, arb(0), m_max, b_up, width) for p in strip.bounds])
    cap = max(A_MAX, math.sqrt(2 * float((8 * base / goal + 1).log().upper())))
    alpha = arb(min(float((width / b_up).lower()) * (1 - 2.0**-20), cap))
    if not alpha > 0:
        return None
    strip_bounds = [strip_integral_bound(p, alpha, m_max, b_up, width) for p in strip.bounds]
    largest = _sup(strip_bounds)
    logs = float((8 * largest / goal + 1).log().upper())
    h_v_max = arb(2 * math.pi * float(alpha.lower()) / (logs * 1.02 + 1))
    # The lattice: a·h = P·δ, b·h_v = δ with h_v ≤ h_v_max.
    ratio = (c / (1 - c)).sqrt()  # a/b
    steps_needed = float((ratio * h / h_v_max).upper())
    if not steps_needed < MAX_LATTICE:
        return None
    lattice_steps = max(math.ceil(steps_needed), 1)
    if 2 * lattice_steps * nodes + 1 > MAX_LATTICE:
        return None
    h_v = h * ratio / lattice_steps
    if not h_v <= h_v_max:
        return None
    discretisation = 2 * largest / ((2 * arb.pi() * alpha / h_v).exp() - 1)
    terms = [Term(_up(c_), k) for p in strip.bounds for k, c_ in enumerate(p) if c_ != 0]
    start = math.sqrt(max(0.0, -2 * float(goal.log().upper()))) * 0.9
    L = _tail_from(terms, m_max, b_up, goal / 2, start)
    if L is None or not discretisation <= goal / 2:
        return None
    inner = math.ceil(L / float(h_v.lower()))
    span = lattice_steps * nodes + inner
    if 2 * span + 1 > MAX_LATTICE:
        return None
    error = _up(discretisation + _tail_beyond(terms, L, m_max, b_up))
    cost = span + inner + 1 if strip.parity is not None else 2 * span + 1
    return cost, lambda: _lattice_sums(strip, a, h, h_v, lattice_steps, nodes, inner, error)


def _node_plan(
    strip: Strip, a: arb, b: arb, b_up: arb, h: arb, nodes: int, goal: arb, beat: float | None = None
):
    """(its cost, ψ_i(a·h·j) node by node as a thunk), None if out of reach: at each node m its
    own trapezoidal rule h_v·Σ_{|k|≤n} g(m + b·k·h_v)·ϕ(k·h_v), erring by at most
    2M/(e^{2πα/h_v} − 1) (Trefethen & Weideman 2014, Theorem 5.1; M from
    ``trapezoid.strip_integral_bound`` for |m| ≤ the largest node, the strip |Im v| < α ≤
    width/b) plus the tails beyond n·h_v ≥ L (``tail_bound``, uniform in |m| too). α is
    min(width/b, sqrt(2Λ)), Λ = ln(8M₀/goal) (e^{α²/2} in M against e^{2πα/h_v}: the α that
    allows the widest step), so that as b → 0 a node needs only the nodes of a Gaussian. None
    too when it cannot cost less than ``beat`` (L is at least the tails' starting guess)."""
    width = strip.width
    m_max = _up(a * h * (nodes + 1))
    base = _sup([strip_integral_bound(p, arb(0), m_max, b_up, width) for p in strip.bounds])
    logs0 = float((8 * base / goal + 1).log().upper())
    alpha = arb(min(float((width / b_up).lower()) * (1 - 2.0**-20), math.sqrt(2 * logs0)))
    if not alpha > 0:
        return None
    largest = _sup([strip_integral_bound(p, alpha, m_max, b_up, width) for p in strip.bounds])
    logs = float((8 * largest / goal + 1).log().upper())
    h_v = arb(2 * math.pi * float(alpha.lower()) / (logs * 1.02 + 1))
    h_v = arb(h_v.mid().str(8, radius=False))
    if not h_v > 0:
        return None
    means = nodes + 1 if strip.parity is not None else 2 * nodes + 1
    start = math.sqrt(max(0.0, -2 * float(goal.log().upper()))) * 0.9
    if (
        beat is not None
        and NODE_COST * means * (2 * math.ceil(max(start, 1.0) / float(h_v.upper())) + 1) >= beat
    ):
        return None
    discretisation = 2 * largest / ((2 * arb.pi() * alpha / h_v).exp() - 1)
    terms = [Term(_up(c_), k) for p in strip.bounds for k, c_ in enumerate(p) if c_ != 0]
    L = _tail_from(terms, m_max, b_up, goal / 2, start)
    if L is None or not discretisation <= goal / 2:
        return None
    inner = math.ceil(L / float(h_v.lower()))
    if means * (2 * inner + 1) > MAX_LATTICE:
        return None
    error = _up(discretisation + _tail_beyond(terms, L, m_max, b_up))
    cost = NODE_COST * means * (2 * inner + 1)
    return cost, lambda: _node_sums(strip, a, b, h, h_v, nodes, inner, error)


def _node_sums(
    strip: Strip, a: arb, b: arb, h: arb, h_v: arb, nodes: int, inner: int, error: arb
) -> list[list[arb]]:
    """ψ_i(a·h·j) ± error for |j| ≤ nodes, each by its own inner rule of 2·inner + 1 nodes
    (``trapezoid.gaussian_sums``; with a known parity, j ≥ 0 only and ψ(−m) = parity·ψ(m))."""
    count = len(strip.bounds)
    scale = h_v / (2 * arb.pi()).sqrt()
    first = 0 if strip.parity is not None else -nodes
    columns: list[list[arb]] = [[] for _ in range(count)]
    for j in range(first, nodes + 1):
        sums = gaussian_sums(strip.at, count, a * (h * j), b, h_v, inner)
        for i in range(count):
            columns[i].append(sums[i] * scale + arb(0, error))
    if strip.parity is None:
        return columns
    return [[sign * v for v in column[:0:-1]] + column for sign, column in zip(strip.parity, columns)]


def _lattice_sums(
    strip: Strip, a: arb, h: arb, h_v: arb, lattice_steps: int, nodes: int, inner: int, error: arb
) -> list[list[arb]]:
    """ψ_i(a·h·j) ± error for |j| ≤ nodes: the inner trapezoidal sums over |k| ≤ inner at the
    lattice points a·h·j + b·h_v·k = (lattice_steps·j + k)·δ, δ = a·h/lattice_steps."""
    span = lattice_steps * nodes + inner
    delta = a * h / lattice_steps
    if strip.parity is not None:
        # a lattice point x is reached with weight at most ϕ(w)·ϕ(v) ≤ e^{−x²/(2q)} (x = a·w + b·v,
        # Cauchy–Schwarz, q = a² + b²): its value is needed to about x²/(2q·ln 2) bits fewer
        q = float((a * a).upper()) + float(((delta / h_v) ** 2).upper())
        # q beyond a float's range (Var u = 1e-400: 0; 1e-310: fewer overflows): ``_point_bands``
        # spares no bits
        fewer = 1 / (2 * q * math.log(2)) if q > 0 else 0.0
        return _symmetric_lattice_sums(
            strip, strip.parity, delta, h_v, lattice_steps, nodes, inner, error, fewer
        )
    # g at the lattice points x_n = n·δ, |n| ≤ span, e^{x_n} by recurrence.
    up = delta.exp()
    count = len(strip.bounds)
    columns: list[list[arb]] = [[arb(0)] * (2 * span + 1) for _ in range(count)]
    for i, v in enumerate(strip.at(arb(0), arb(1))):
        columns[i][span] = v
    e_right = e_left = arb(1)
    down = 1 / up
    for n in range(1, span + 1):
        e_right *= up
        e_left *= down
        x = delta * n
        for i, v in enumerate(strip.at(x, e_right)):
            columns[i][span + n] = v
        for i, v in enumerate(strip.at(-x, e_left)):
            columns[i][span - n] = v
    weights = _gaussian_weights(h_v, inner)
    scale = h_v / (2 * arb.pi()).sqrt()
    # coefficient of x^(n + span + inner) is Σ_k w_k·g(x_{n−k}) = Σ_k w_k·g(x_{n+k})
    positions = [lattice_steps * j + span + inner for j in range(-nodes, nodes + 1)]
    return [[v * scale + arb(0, error) for v in weights.convolve(column, positions)] for column in columns]


def _gaussian_weights(h_v: arb, inner: int) -> FixedWeights:
    """The inner rule's weights ϕ(k·h_v)·√(2π), k = −inner..inner, by recurrence, in fixed point."""
    half = [arb(1)]
    weight, r, r2 = arb(1), (-h_v * h_v / 2).exp(), (-h_v * h_v).exp()
    for _ in range(inner):
        weight *= r
        r *= r2
        half.append(weight)
    return FixedWeights.symmetric(half, ctx.prec)


def _symmetric_lattice_sums(
    strip: Strip,
    parity: Sequence[int],
    delta: arb,
    h_v: arb,
    lattice_steps: int,
    nodes: int,
    inner: int,
    error: arb,
    fewer: float = 0.0,
) -> list[list[arb]]:
    """``_lattice_sums`` for integrands of known ``parity`` (``strip.parity``): g at x_n, 0 ≤ n ≤ span, gives g at
    −n; the sums at the means a·h·j, j ≥ 0, need the points n ≥ −inner only, and the weights
    being even, ψ(−a·h·j) = parity·ψ(a·h·j) (the same bound holds for both).

    From FEWER_BITS_FROM bits on, g at x_n is taken at ``fewer``·x_n² bits fewer (in bands of
    FEWER_BITS_BAND bits; ``fewer`` = 1/(2q·ln 2), the weight that reaches x_n being at most
    e^{−x_n²/(2q)}), and the convolution charges each band's radius to the weights that meet it
    (``FixedWeights.convolve``'s groups): the far points, a good part of the lattice, cost a
    fraction of a full-precision evaluation."""
    span = lattice_steps * nodes + inner
    up = delta.exp()
    prec = ctx.prec
    bands = _point_bands(prec, float(delta.upper()), fewer, span)
    right: list[Sequence[arb]] = [strip.at(arb(0), arb(1))]
    e_right = arb(1)
    try:
        for n in range(1, span + 1):
            e_right *= up
            x = delta * n
            ctx.prec = bands[n]
            right.append(strip.at(x, e_right))
            ctx.prec = prec
    finally:
        ctx.prec = prec
    weights = _gaussian_weights(h_v, inner)
    scale = h_v / (2 * arb.pi()).sqrt()
    # column index i holds x_{i − inner}; the coefficient of x^(n + 2·inner) is Σ_k w_k·g(x_{n+k})
    positions = [lattice_steps * j + 2 * inner for j in range(nodes + 1)]
    # where the precision changes along the column (x_{−inner} .. x_span)
    column_bands = [bands[abs(i - inner)] for i in range(inner + span + 1)]
    groups = [i for i in range(1, len(column_bands)) if column_bands[i] != column_bands[i - 1]] or None
    out = []
    for i, sign in enumerate(parity):
        column = [sign * right[n][i] for n in range(inner, 0, -1)] + [values[i] for values in right]
        upper = [v * scale + arb(0, error) for v in weights.convolve(column, positions, groups)]
        out.append([sign * v for v in upper[:0:-1]] + upper)
    return out


# From ``trapezoid.FEWER_BITS_FROM`` bits of working precision on, the lattice's far points are
# taken at fewer bits, in bands of this many bits (a band's radius is charged to the weights that
# meet it; each band is one more group in the convolution's error bound).
FEWER_BITS_BAND = 256
# Bits every point keeps beyond what its weight asks for (the sums' and bounds' slack).
FEWER_BITS_GUARD = 64


def _point_bands(prec: int, delta: float, fewer: float, span: int) -> list[int]:
    """The precision of g at x_n = n·δ, n = 0..span: ``prec`` less ``fewer``·(n·δ)² bits (less the
    guard), in steps of FEWER_BITS_BAND, at least 64; ``prec`` throughout below FEWER_BITS_FROM."""
    if prec < FEWER_BITS_FROM or not 0 < fewer < math.inf or not math.isfinite(delta):
        return [prec] * (span + 1)
    out = []
    for n in range(span + 1):
        spare = fewer * (n * delta) ** 2
        drop = (int(spare) if spare < prec else prec) - FEWER_BITS_GUARD
        out.append(
            prec if drop < FEWER_BITS_BAND else max(64, prec - drop // FEWER_BITS_BAND * FEWER_BITS_BAND)
        )
    return out


def _rectangle_error(largest: arb, alpha: arb, h_v: arb, end: arb) -> arb:
    """|∫_{−T}^{T} f − h_v·Σ_{|k|≤N} f(k·h_v)| for f analytic on the rectangle |Re t| ≤ T,
    |Im t| ≤ α, T = (N + 1/2)·h_v, with |f(t + iy)| ≤ G·ϕ(t)·e^{y²/2} there (f = g·ϕ, |g| ≤ G).
    Writing the sum as (1/2i)∮ f(z)·cot(πz/h_v) dz around the rectangle, with
    cot = ∓i ∓ 2i·u/(1 − u), u = e^{±2πiz/h_v}, on either half (Cauchy turns the ∓i parts into
    the integral), the error is at most ∫|f|·|u/(1 − u)| over the sides: on the horizontal
    ones |u| = e^{−2πα/h_v}, on the vertical ones (Re z = ±T, half-way between nodes) u is
    real and negative, |u/(1 − u)| ≤ 1/2. So it is at most
    2G·e^{α²/2}/(e^{2πα/h_v} − 1) + 2α·G·e^{α²/2}·ϕ(T) (the finite-interval form of Trefethen
    & Weideman 2014, Theorem 5.1: no bound of g is needed beyond the rectangle)."""
    grow = (alpha * alpha / 2).exp()
    horizontal = 2 * largest * grow / ((2 * arb.pi() * alpha / h_v).exp() - 1)
    vertical = 2 * alpha * largest * grow * (-end * end / 2).exp() / (2 * arb.pi()).sqrt()
    return _up(horizontal + vertical)


# Widest inner step of the box route: its rectangle reaches at most one unit past L (T ≤ L + 3h_v/2).
BOX_MAX_STEP = 0.5


def _box_smoothing(
    strip: Strip,
    polys: Sequence[Sequence[arb]],
    a: arb,
    b: arb,
    b_up: arb,
    c: arb,
    h: arb,
    nodes: int,
    goal: arb,
) -> list[list[arb]] | None:
    """ψ_i(a·h·j), |j| ≤ nodes, for g analytic on rectangles: by the lattice trapezoidal rule or
    node by node, whichever evaluates g fewer times (as ``_strip_smoothing``), each rule's error
    bounded on a finite rectangle (``_box_rule``)."""
    lattice = _box_lattice_plan(strip, polys, a, b_up, c, h, nodes, goal)
    node = _box_node_plan(strip, polys, a, b, b_up, h, nodes, goal, None if lattice is None else lattice[0])
    plans = [plan for plan in (lattice, node) if plan is not None]
    if not plans:
        return None
    return min(plans, key=lambda plan: plan[0])[1]()


def _box_rule(
    strip: Strip, polys: Sequence[Sequence[arb]], m_max: arb, b_up: arb, goal: arb, alpha_cap: float
) -> tuple[arb, float, arb, arb, list[Term]] | None:
    """The inner rule's rectangle: (α, L, G, e^{α²/2}, the real-line terms) with the tails
    beyond |t| > L (from the real-line bounds ``polys``) at most goal/4 and the rectangle's
    vertical sides 2α·G·e^{α²/2}·ϕ(L) at most goal/4, where α = min(width/b, alpha_cap) and G
    bounds each |g_i| on |Re x| ≤ X = max|m| + b·(L + 1), |Im x| ≤ width (``strip.box(X)``)."""
    assert strip.box is not None
    alpha = arb(min(float((strip.width / b_up).lower()) * (1 - 2.0**-20), alpha_cap))
    if not alpha > 0:
        return None
    terms = [Term(_up(c_), k) for p in polys for k, c_ in enumerate(p) if c_ != 0]
    start = math.sqrt(max(0.0, -2 * float(goal.log().upper()))) * 0.9
    L = _tail_from(terms, m_max, b_up, goal / 4, start)
    if L is None:
        return None
    norm = (2 * arb.pi()).sqrt()
    grow = (alpha * alpha / 2).exp()
    for _ in range(4):
        sizes = strip.box(_up(m_max + b_up * (L + 1)))
        if sizes is None:
            return None
        largest = _sup(sizes)
        # the vertical sides: 2α·G·e^{α²/2}·ϕ(L) ≤ goal/4 (T ≥ L)
        vertical = 2 * alpha * largest * grow * (arb(-L * L) / 2).exp() / norm
        if vertical <= goal / 4:
            return alpha, L, largest, grow, terms
        need = float((8 * alpha * largest * grow / (goal * norm)).log().upper())
        L = max(L * 1.05, math.sqrt(2 * max(need, 1.0)) * 1.01)
    return None


def _box_lattice_plan(
    strip: Strip, polys: Sequence[Sequence[arb]], a: arb, b_up: arb, c: arb, h: arb, nodes: int, goal: arb
):
    """(cost, the lattice rule as a thunk) on a finite rectangle: the tails beyond |t| > L from
    the real-line bounds ``polys``, the rule's error on the rectangle |t| ≤ T, |Im t| ≤ α =
    min(width/b, A_MAX) (in x: |Re x| ≤ X = max|m| + b·(L + 1), |Im x| ≤ width) from
    ``strip.box(X)`` (``_rectangle_error``)."""
    m_max = _up(a * h * (nodes + 1))
    rule = _box_rule(strip, polys, m_max, b_up, goal, A_MAX)
    if rule is None:
        return None
    alpha, L, largest, grow, terms = rule
    logs = float((8 * largest * grow / goal + 1).log().upper())
    h_v_max = arb(min(2 * math.pi * float(alpha.lower()) / (logs * 1.02 + 1), BOX_MAX_STEP))
    ratio = (c / (1 - c)).sqrt()  # a/b
    steps_needed = float((ratio * h / h_v_max).upper())
    if not steps_needed < MAX_LATTICE:
        return None
    lattice_steps = max(math.ceil(steps_needed), 1)
    h_v = h * ratio / lattice_steps
    if not h_v <= h_v_max:
        return None
    inner = math.ceil(L / float(h_v.lower()))
    span = lattice_steps * nodes + inner
    if 2 * span + 1 > MAX_LATTICE:
        return None
    end = (inner + arb(1) / 2) * h_v
    if not end <= L + 1:
        return None
    error = _up(_rectangle_error(largest, alpha, h_v, end) + _tail_beyond(terms, L, m_max, b_up))
    if not error <= goal:
        return None
    cost = span + inner + 1 if strip.parity is not None else 2 * span + 1
    return cost, lambda: _lattice_sums(strip, a, h, h_v, lattice_steps, nodes, inner, error)


def _box_node_plan(
    strip: Strip,
    polys: Sequence[Sequence[arb]],
    a: arb,
    b: arb,
    b_up: arb,
    h: arb,
    nodes: int,
    goal: arb,
    beat: float | None = None,
):
    """(cost, ψ_i(a·h·j) node by node as a thunk), each node's rule (``_node_sums``) with its
    error bounded on the same finite rectangle as the lattice's, α up to sqrt(2Λ) (Λ =
    ln(8G/goal)) rather than A_MAX: as b → 0 the strip width/b widens and a node needs only
    the nodes of a Gaussian. None too when it cannot cost less than ``beat`` (its step is at
    most BOX_MAX_STEP, L at least the tails' starting guess)."""
    means = nodes + 1 if strip.parity is not None else 2 * nodes + 1
    start = math.sqrt(max(0.0, -2 * float(goal.log().upper()))) * 0.9
    if beat is not None and NODE_COST * means * (2 * math.ceil(max(start, 1.0) / BOX_MAX_STEP) + 1) >= beat:
        return None
    assert strip.box is not None  # a box strip's plan (``_box_smoothing``)
    m_max = _up(a * h * (nodes + 1))
    sizes = strip.box(_up(m_max + b_up * 10))  # a first size, for the cap only
    if sizes is None:
        return None
    cap = math.sqrt(2 * max(float((8 * _sup(sizes) / goal).log().upper()), 1.0))
    rule = _box_rule(strip, polys, m_max, b_up, goal, max(cap, A_MAX))
    if rule is None:
        return None
    alpha, L, largest, grow, terms = rule
    logs = float((8 * largest * grow / goal + 1).log().upper())
    h_v = arb(min(2 * math.pi * float(alpha.lower()) / (logs * 1.02 + 1), BOX_MAX_STEP))
    h_v = arb(h_v.mid().str(8, radius=False))
    if not h_v > 0:
        return None
    inner = math.ceil(L / float(h_v.lower()))
    end = (inner + arb(1) / 2) * h_v
    if not end <= L + 1:
        return None
    if means * (2 * inner + 1) > MAX_LATTICE:
        return None
    error = _up(_rectangle_error(largest, alpha, h_v, end) + _tail_beyond(terms, L, m_max, b_up))
    if not error <= goal:
        return None
    cost = NODE_COST * means * (2 * inner + 1)
    return cost, lambda: _node_sums(strip, a, b, h, h_v, nodes, inner, error)


def working_bits(size_log2: float, goal_log2: float) -> int:
    """A precision for an absolute goal of 2^goal_log2 on sums of terms about 2^size_log2."""
    return int(size_log2 - goal_log2) + 60


__all__ = ["Smoothing", "Strip", "bivariate_balls", "ctx", "select_strip", "working_bits"]
