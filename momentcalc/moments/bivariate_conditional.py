"""Certified bivariate Gaussian expectations of piecewise exp-polynomial activations (relu6,
hardtanh, hard_sigmoid, hard_swish, elu, selu, celu, leaky_relu, relu2, …, and expressions
such as abs(x), max(x, 0), min(x, 1): ``catalog.expression_pieces``) at correlations close to
±1, where the shared-part rule of ``engine.bivariate_balls`` needs ~1/sqrt(1 − c) nodes (and
for the expressions at every correlation, where the other route integrates ψ node by node):
one integral of the conditional expectation.

For (u, v) centred Gaussian with Var u = q1, Var v = q2 and correlation |ρ| < 1,
v | u ~ N(κ·u, s²) with κ = ρ·sqrt(q2/q1) and s² = q2·(1 − ρ²), so

    E[g(u)·g(v)] = ∫ g(x)·ψ(x)·e^{−x²/(2q1)} dx / sqrt(2π·q1),   ψ(x) = E[g(κx + s·V)],

V standard normal. For g = Σ c·y^j·e^{λy} on each interval between its kinks, ψ is a closed
form: with y = m + s·t and u = t − λs, e^{λy}·ϕ(t) = e^{λm + λ²s²/2}·ϕ(u), so each term gives
c·e^{λm + λ²s²/2}·Σ_k C(j, k)·(m + λs²)^{j−k}·s^k·∫ u^k ϕ(u) du over the piece, the moments
from M_k(u) = ∫_u^∞ u^k ϕ = u^{k−1}ϕ(u) + (k − 1)·M_{k−2}(u), M_0 = erfc(u/√2)/2,
M_1 = ϕ(u) — entire functions of u, so the same formula holds at a complex mean m = κx (the
formula of ``engine.gaussian_balls.exp_poly_expectation`` continued to complex balls). A
piece's moment is taken from the side where it does not cancel: M(u_low) − M(u_high) right
of the mean, mirrored (u → −u) left of it, the full moment less both tails across it.

So x ↦ g(x)·ψ(x)·e^{−x²/(2q1)} is analytic on each interval between g's kinks, and Arb's
certified integration (``acb.integral``: Gauss–Legendre with its error bounded from the
integrand on complex ellipses, bisecting where that bound is large) proves its integral on
[−X, X]. Near ρ = ±1, ψ changes over a width ~s around x = k/κ (the kinks seen through the
conditional mean); bisecting down to that width costs ~log(1/s) subintervals, so ψ is first
split (``_split_integral``): F_k(u) = ∫_{−∞}^u t^k ϕ = E[V^k]·1{u > 0} + D_k(u), D_k decaying
like e^{−u²/2} on both sides of 0, gives a sharp part (each piece's terms with the full
moments, on one side of x = (k − λs²)/κ: piecewise entire) and, per kink and rate, a part
localized within a few s of it, integrated in u = (k − κx)/s − λs, where it is smooth on the
scale 1 — each a handful of Gauss–Legendre panels whatever s is (``_integral``, the unsplit
form, is the fallback). Beyond |x| > X the tails are bounded from the growth polynomial
|g(y)| ≤ P(|y|) (the catalog's): |ψ(x)| ≤ E[P(|κ|·|x| + s·|V|)] (a sum of absolute normal
moments), so |g·ψ| ≤ R(|x|), a polynomial, and ``engine.gaussian_balls.tail_bound`` bounds
its Gaussian tails.

Every step is ball arithmetic: q1, q2, ρ may be balls (the value then holds for each point of
them). ρ < 0 needs no mirror here (κ < 0). None where a piece cannot be enclosed or the balls
stay too wide for the digits (the caller then tries its other route).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from flint import acb, arb, ctx

from ..catalog import Activation
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..catalog.expression_pieces import exp_poly_pieces
from ..engine.balls import abs_normal_moments, lowered_goals
from ..engine.gaussian_balls import BITS_PER_DIGIT, Term, as_arb, exact_key, tail_bound

# Goals lowered (a value far below the integrand's size) at most this often.
ATTEMPTS = 3
# From this correlation |ρ| on the conditional route is tried first: below it the shared-part
# rule of ``engine.bivariate_balls`` is faster (its cost grows as 1/sqrt(1 − c), this one's as
# log(1/(1 − c)) or less; measured for elu, hardtanh, hard_swish, relu6 at 15 and 40 digits,
# they cross between 0.95 and 0.98).
NEAR_ONE = Fraction(97, 100)
# acb.integral's evaluations per piece before it gives up (the caller falls back).
EVAL_LIMIT = 200_000


def applies(act: Activation) -> bool:
    """Whether the activation is a piecewise exp-polynomial with rational kinks (this route's):
    a catalog entry of ``EXP_POLYNOMIALS`` or an expression ``catalog.expression_pieces`` expands."""
    if act.expression:
        return _expression_pieces(act) is not None
    if act.name not in EXP_POLYNOMIALS:
        return False
    # exact dyadic kinks: the cuts of the integration path are exact points
    return all(
        isinstance(k, (int, Fraction)) and Fraction(k).denominator & (Fraction(k).denominator - 1) == 0
        for k in BALL_FUNCTIONS[act.name].kinks
    )


def preferred(act: Activation, rho: arb) -> bool:
    """Whether to try this route first: an exp-polynomial at |ρ| ≥ ``NEAR_ONE``, or an
    expression with a kink at any ρ (its other route integrates ψ node by node)."""
    if act.expression:
        found = _expression_pieces(act)
        return found is not None and bool(found[0])
    return bool(abs(rho) >= as_arb(NEAR_ONE)) and applies(act)


_EXPANDED: dict[object, object] = {}


def _expression_pieces(act: Activation):
    key = act.tree
    if key not in _EXPANDED:
        if len(_EXPANDED) > 32:
            _EXPANDED.clear()
        _EXPANDED[key] = exp_poly_pieces(act.tree)
    return _EXPANDED[key]


def _pieces(act: Activation, which: int) -> tuple[list[arb], tuple]:
    """g's kinks as exact balls and its pieces (one tuple of ExpTerms per interval), g = φ
    (``which`` 0) or φ' (1), at the working precision."""
    if act.expression:
        kinks, parts = _expression_pieces(act)
        return [as_arb(k) for k in kinks], parts[which]
    return [as_arb(k) for k in BALL_FUNCTIONS[act.name].kinks], EXP_POLYNOMIALS[act.name](_params(act))[which]


def _params(act: Activation) -> dict[str, arb]:
    given = dict(act.values)
    return {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}


def _up(x: arb) -> arb:
    return arb(x.upper())


class _Moments:
    """M_k(u) = ∫_u^∞ u^k ϕ(u) du, k = 0..n, at a complex ball u (module docstring)."""

    def __init__(self, sqrt_half: arb, norm: arb) -> None:
        self.sqrt_half, self.norm = acb(sqrt_half), acb(norm)

    def at(self, u: acb, n: int) -> list[acb]:
        density = (-u * u / 2).exp() * self.norm
        out = [(u * self.sqrt_half).erfc() / 2, density]
        for j in range(2, n + 1):
            out.append(u ** (j - 1) * density + (j - 1) * out[j - 2])
        return out[: n + 1]


# a tail moments' point: (u, (kink, rate)), the pair naming it for ``_Smoothing``'s cache
_Point = tuple[acb, tuple[int, int]]


def _between(
    at: Callable[[_Point, int], list[acb]], low: _Point | None, high: _Point | None, n: int
) -> list[acb]:
    """∫ u^k ϕ(u) du over [low, high] (None: ∓∞), k = 0..n, from the side that does not cancel;
    ``at(u, sign)`` gives M_k(sign·u) for k ≤ n (at least)."""
    full = [acb(0) if k % 2 else acb(math.prod(range(k - 1, 0, -2))) for k in range(n + 1)]
    zero = [acb(0)] * (n + 1)
    if low is not None and low[0].real.mid() >= 0:
        a = at(low, 1)
        b = zero if high is None else at(high, 1)
        return [a[k] - b[k] for k in range(n + 1)]
    if high is not None and high[0].real.mid() <= 0:
        a = at(high, -1)
        b = zero if low is None else at(low, -1)
        return [(a[k] - b[k]) * (-1) ** k for k in range(n + 1)]
    left = zero if low is None else at(low, -1)
    right = zero if high is None else at(high, 1)
    return [full[k] - (-1) ** k * left[k] - right[k] for k in range(n + 1)]


class _Smoothing:
    """ψ(m) = E[g(m + s·V)] at a complex ball m, g a piecewise exp-polynomial. The tail moments
    at each kink (and rate) are computed once per m, for every piece and term that meets them."""

    def __init__(self, kinks: Sequence[arb], parts: Sequence[Sequence], s: arb) -> None:
        self.s = acb(s)
        self.kinks = [acb(k) for k in kinks]
        self.moments = _Moments(1 / arb(2).sqrt(), 1 / (2 * arb.pi()).sqrt())
        rates: dict[tuple[int, ...], int] = {}
        self.rates: list[tuple[acb, acb, acb, acb, bool]] = []  # λ, λs, λs², λ²s²/2, λ = 0
        self.pieces = []  # (low kink, high kink (None: ∓∞), [(rate, highest power, [(c, j)])])
        self.powers: dict[tuple[int, int], int] = {}  # (kink, rate) -> the highest power there
        for i, terms in enumerate(parts):
            groups: dict[int, list[tuple[acb, int]]] = {}
            for term in terms:
                rate = as_arb(term.rate)
                key = exact_key(rate)
                if key not in rates:
                    rates[key] = len(self.rates)
                    self.rates.append(
                        (acb(rate), acb(rate * s), acb(rate * s * s), acb(rate * rate * s * s / 2), rate == 0)
                    )
                groups.setdefault(rates[key], []).append((acb(as_arb(term.c)), term.power))
            low, high = (i - 1 if i > 0 else None), (i if i < len(kinks) else None)
            grouped = []
            for r, items in groups.items():
                n = max(j for _, j in items)
                grouped.append((r, n, items))
                for edge in (low, high):
                    if edge is not None:
                        self.powers[edge, r] = max(n, self.powers.get((edge, r), 0))
            self.pieces.append((low, high, grouped))

    def __call__(self, m: acb) -> acb:
        s = self.s
        points: dict[tuple[int, int], acb] = {}
        found: dict[tuple[int, int, int], list[acb]] = {}
        for edge, r in self.powers:
            shift = self.rates[r][1]
            u = (self.kinks[edge] - m) / s
            points[edge, r] = u if self.rates[r][4] else u - shift

        def at(point: _Point, sign: int) -> list[acb]:
            key = (*point[1], sign)
            if key not in found:
                found[key] = self.moments.at(point[0] if sign > 0 else -point[0], self.powers[point[1]])
            return found[key]

        total = acb(0)
        for low, high, grouped in self.pieces:
            for r, n, items in grouped:
                rate, _, drift, half, plain = self.rates[r]
                moments = _between(
                    at,
                    None if low is None else (points[low, r], (low, r)),
                    None if high is None else (points[high, r], (high, r)),
                    n,
                )
                base = m if plain else m + drift
                powers = [acb(1)]
                for _ in range(n):
                    powers.append(powers[-1] * base)
                scale = [acb(1)]
                for _ in range(n):
                    scale.append(scale[-1] * s)
                part = acb(0)
                for c, j in items:
                    inner = acb(0)
                    for k in range(j + 1):
                        inner += math.comb(j, k) * powers[j - k] * scale[k] * moments[k]
                    part += c * inner
                total += part if plain else (rate * m + half).exp() * part
        return total


def _branch(terms: Sequence) -> list[tuple[acb, int, acb]]:
    return [(acb(as_arb(t.c)), t.power, acb(as_arb(t.rate))) for t in terms]


def _evaluate(branch: Sequence[tuple[acb, int, acb]], x: acb) -> acb:
    total = acb(0)
    for c, j, rate in branch:
        term = c * x**j
        total += term if rate == 0 else term * (rate * x).exp()
    return total


def _reach(poly: Sequence[arb], sigma1: arb, kappa: arb, s: arb, goal: arb) -> tuple[arb, arb] | None:
    """(a bound ≤ goal/4 of the integral beyond |x| = X, X): X a dyadic σ1·L with L the first
    of 0.8·sqrt(−2 ln goal)·1.05^k whose tail of ``_tail_terms`` is that small; None past L = 400."""
    terms = _tail_terms(poly, sigma1, kappa, s)
    L = max(1.0, math.sqrt(max(0.0, -2 * float(goal.log().upper()))) * 0.8)
    while True:
        tail = tail_bound(terms, arb(L), arb(0), arb(1))
        if tail is not None and tail <= goal / 4:
            return tail, _dyadic_above(sigma1 * L)
        L *= 1.05
        if L > 400:
            return None


def _tail_terms(poly: Sequence[arb], sigma1: arb, kappa: arb, s: arb) -> list[Term]:
    """R(|t|) ≥ |g(σ1·t)·ψ(σ1·t)| as Terms in |t|: P(σ1|t|)·E[P(|κ|σ1|t| + s|V|)]."""
    mu = abs_normal_moments(len(poly) + 1)
    slope = _up(abs(kappa) * sigma1)
    smoothed = [arb(0)] * len(poly)
    for k, p in enumerate(poly):
        for i in range(k + 1):  # (slope·|t|)^i·(s|V|)^{k−i}
            smoothed[i] += p * math.comb(k, i) * slope**i * s ** (k - i) * mu[k - i]
    outer = [p * sigma1**k for k, p in enumerate(poly)]
    product: dict[int, arb] = {}
    for i, a in enumerate(outer):
        for j, b in enumerate(smoothed):
            product[i + j] = product.get(i + j, arb(0)) + a * b
    return [Term(_up(c), k) for k, c in product.items() if c != 0]


def _dyadic_above(x: arb) -> arb:
    """An exact short number ≥ x."""
    return arb(arb(x.upper()).mid().str(10, radius=False)) + arb(2) ** -20


def _integral(
    act: Activation,
    which: int,
    poly: Sequence[arb],
    q1: arb,
    q2: arb,
    rho: arb,
    one_minus_square: arb,
    goal: arb,
    prec: int,
) -> arb | None:
    """E[g(u)·g(v)] for g = φ (``which`` 0) or φ' (1), within about ``goal`` plus the working
    precision's own radius."""
    kinks, parts = _pieces(act, which)
    if any(k.rad() != 0 for k in kinks):
        return None  # the cuts of this form must be exact points
    sigma1 = q1.sqrt()
    kappa = rho * (q2 / q1).sqrt()
    s = (q2 * one_minus_square).sqrt()
    if not s > 0:
        return None
    reach = _reach(poly, sigma1, kappa, s, goal)
    if reach is None:
        return None
    bound, X = reach
    smoothing = _Smoothing(kinks, parts, s)
    branches = [_branch(terms_) for terms_ in parts]
    # the cuts: g's kinks, and where the conditional mean κx meets them (ψ's near-kinks)
    cuts = {k.mid().str(40, radius=False): k for k in kinks}
    if kappa != 0:
        for k in kinks:
            point = arb((k / kappa).mid())
            cuts.setdefault(point.str(40, radius=False), point)
    edges: list[arb] = [-X]
    for point in sorted(cuts.values(), key=lambda p: float(p)):
        if point > edges[-1] and point < X:
            edges.append(point)
    edges.append(X)
    owners: list[int] = []  # the branch of g on each interval
    for low, high in zip(edges, edges[1:]):
        centre = (low + high) / 2
        owners.append(sum(1 for k in kinks if centre > k))
    scale = acb(-1 / (2 * q1))
    norm = 1 / (2 * arb.pi() * q1).sqrt()
    count = len(edges) - 1
    total = acb(0)
    for low, high, owner in zip(edges, edges[1:], owners):
        branch = branches[owner]
        if not branch:
            continue
        kappa_c = acb(kappa)

        def integrand(x: acb, analytic: bool, branch=branch) -> acb:
            return _evaluate(branch, x) * smoothing(kappa_c * x) * (scale * x * x).exp()

        part = acb.integral(
            integrand,
            low,
            high,
            abs_tol=goal / (2 * count) / norm,
            rel_tol=arb(2) ** (-prec + 30),
            eval_limit=EVAL_LIMIT,
        )
        if not part.is_finite():
            return None
        total += part
    value = total.real * norm
    if not total.imag.contains(0):
        return None
    return value + arb(0, bound)


def _coefficients(smoothing: _Smoothing, group: tuple, m: acb) -> list[acb]:
    """P_k(m) = Σ c·C(j, k)·(m + λs²)^{j−k}·s^k over a piece's terms of one rate λ, k ≤ n."""
    r, n, items = group
    base = m if smoothing.rates[r][4] else m + smoothing.rates[r][2]
    powers, scale = [acb(1)], [acb(1)]
    for _ in range(n):
        powers.append(powers[-1] * base)
        scale.append(scale[-1] * smoothing.s)
    out = [acb(0)] * (n + 1)
    for c, j in items:
        for k in range(j + 1):
            out[k] += c * math.comb(j, k) * powers[j - k] * scale[k]
    return out


def _growth(smoothing: _Smoothing, r: int, m: acb) -> acb:
    """e^{λm + λ²s²/2}."""
    rate, _, _, half, plain = smoothing.rates[r]
    return acb(1) if plain else (rate * m + half).exp()


class _Ambiguous(ArithmeticError):
    """A point too close to a kink to tell its side at this precision."""


def _split_integral(
    act: Activation,
    which: int,
    poly: Sequence[arb],
    q1: arb,
    q2: arb,
    rho: arb,
    one_minus_square: arb,
    goal: arb,
    prec: int,
) -> arb | None:
    """``_split`` (its docstring), None where a point's side of a kink cannot be told."""
    try:
        return _split(act, which, poly, q1, q2, rho, one_minus_square, goal, prec)
    except _Ambiguous:
        return None


def _split(
    act: Activation,
    which: int,
    poly: Sequence[arb],
    q1: arb,
    q2: arb,
    rho: arb,
    one_minus_square: arb,
    goal: arb,
    prec: int,
) -> arb | None:
    """``_integral`` with ψ split into a sharp part and parts localized at its near-kinks, each
    integrated where it is smooth (no bisection down to the width s). With
    F_k(u) = ∫_{−∞}^u t^k ϕ = full_k·1{u > 0} + D_k(u), D_k(u) = −M_k(u) for u > 0 and
    (−1)^k·M_k(−u) for u < 0 (decaying like e^{−u²/2} on both sides), each piece's moment
    F_k(u_high) − F_k(u_low) gives

    * the sharp part: the piece's terms with the full moments E[V^k], where u_low ≤ 0 < u_high,
      i.e. on one side of x_e = (k_e − λs²)/κ (piecewise entire in x, cut at the x_e);
    * per kink e and rate λ: Σ_k W_k(κx)·D_k(u_e(x)), u_e(x) = (k_e − κx)/s − λs, W_k the
      difference of the two adjacent pieces' coefficients; integrated in u (x = x_e − s·u/κ,
      dx = s/|κ|·du) on |u| ≤ U, cut at u = 0 and at g's kinks, beyond U bounded by
      ∫_U^∞ M_k = ∫_U^∞ (t − U)·t^k ϕ(t) dt ≤ M_{k+1}(U) on each side, times a bound of
      |g·e^{−x²/(2q1)}·W_k| over the interval (its ball evaluation).

    A cut known only as a ball (x_e; a kink seen in u) is made at its midpoint c: the integral
    between c and the true point (where the neighbouring formula was used) is bounded by the
    distance times both formulas' sizes on the hull. None where a piece cannot be enclosed."""
    kinks, parts = _pieces(act, which)
    sigma1 = q1.sqrt()
    kappa = rho * (q2 / q1).sqrt()
    s = (q2 * one_minus_square).sqrt()
    if not (s > 0 and (kappa > 0 or kappa < 0)):
        return None
    reach = _reach(poly, sigma1, kappa, s, goal)
    if reach is None:
        return None
    tail, X = reach
    smoothing = _Smoothing(kinks, parts, s)
    branches = [_branch(terms_) for terms_ in parts]
    kappa_c, s_c = acb(kappa), acb(s)
    scale = acb(-1 / (2 * q1))
    norm = 1 / (2 * arb.pi() * q1).sqrt()
    highest = max((group[1] for piece in smoothing.pieces for group in piece[2]), default=0)
    full = [arb(0) if k % 2 else arb(math.prod(range(k - 1, 0, -2))) for k in range(highest + 1)]
    rel_tol = arb(2) ** (-prec + 30)
    pieces = smoothing.pieces

    def weight(i: int, x: acb) -> acb:  # g_i(x)·e^{−x²/(2q1)}
        return _evaluate(branches[i], x) * (scale * x * x).exp()

    def owner(x: arb) -> int:
        if any(not (x > k or x < k) for k in kinks):
            raise _Ambiguous
        return sum(1 for k in kinks if x > k)

    def u_of(e: int, r: int, x: arb | acb):
        u = (kinks[e] - kappa * x) / s if isinstance(x, arb) else (acb(kinks[e]) - kappa_c * x) / s_c
        return u if smoothing.rates[r][4] else u - smoothing.rates[r][1].real

    # --- the sharp part -------------------------------------------------------------------
    switches = {}  # x_e for every kink and rate, as balls
    for e in range(len(kinks)):
        for r in range(len(smoothing.rates)):
            drift = smoothing.rates[r][2].real
            switches[e, r] = (kinks[e] - drift) / kappa
    # g's kinks (balls where not dyadic: 1/3) and the switches, each cut at its midpoint
    cuts = [(arb(k.mid()), None if k.rad() == 0 else k) for k in kinks]
    cuts += [(arb(x.mid()), x) for x in switches.values()]
    cuts = sorted((c for c in cuts if c[0] > -X and c[0] < X), key=lambda c: float(c[0]))
    edges: list[tuple[arb, arb | None]] = [(-X, None)]
    for point, true in cuts:
        if point > edges[-1][0]:
            edges.append((point, true))
        elif true is not None and edges[-1][1] is None and point == edges[-1][0] and true.rad() == 0:
            continue
        elif true is not None:
            edges[-1] = (edges[-1][0], true if edges[-1][1] is None else edges[-1][1].union(true))
    edges.append((X, None))

    def sharp(i: int, active: list[tuple[int, tuple]]):
        def f(x: acb, analytic: bool = False) -> acb:
            m = kappa_c * x
            total = acb(0)
            for _r_index, group in active:
                coefficients = _coefficients(smoothing, group, m)
                total += _growth(smoothing, group[0], m) * sum(
                    (c * full[k] for k, c in enumerate(coefficients) if full[k] != 0), acb(0)
                )
            return weight(i, x) * total

        return f

    total = acb(0)
    error = arb(0)
    integrands = []
    count = len(edges) - 1 + 6 * len(kinks) * len(smoothing.rates) * (len(kinks) + 1)
    tol = goal / (4 * count) / norm
    for (low, _), (high, _) in zip(edges, edges[1:]):
        centre = (low + high) / 2
        i = owner(centre)
        active = []
        for _p, (lo_edge, hi_edge, grouped) in enumerate(pieces):
            for group in grouped:
                r = group[0]
                u_low = None if lo_edge is None else u_of(lo_edge, r, centre)
                u_high = None if hi_edge is None else u_of(hi_edge, r, centre)
                if any(u is not None and u.contains(0) for u in (u_low, u_high)):
                    return None  # a sub-interval too narrow to tell its side at this precision
                below = u_low is None or u_low < 0
                above = u_high is None or u_high > 0
                if below and above:
                    active.append((r, group))
        f = sharp(i, active) if branches[i] and active else None
        integrands.append(f)
        if f is None:
            continue
        part = acb.integral(f, low, high, abs_tol=tol, rel_tol=rel_tol, eval_limit=EVAL_LIMIT)
        if not part.is_finite():
            return None
        total += part
    for j, (point, true) in enumerate(edges):
        if true is None or j == 0 or j == len(edges) - 1:
            continue
        hull = acb(arb(point).union(true))
        width = arb(abs(true - point).upper())
        sizes = arb(0)
        for f in (integrands[j - 1], integrands[j]):
            if f is not None:
                sizes += abs(f(hull))
        error += _up(width * sizes)

    # --- the localized parts --------------------------------------------------------------
    x_edges = [-X] + [k for k in kinks if k > -X and k < X] + [X]
    ratio = s / abs(kappa)
    for e in range(len(kinks)):
        for r in range(len(smoothing.rates)):
            left = next((g for g in pieces[e][2] if g[0] == r), None)
            right = next((g for g in pieces[e + 1][2] if g[0] == r), None)
            if left is None and right is None:
                continue
            n = max(g[1] for g in (left, right) if g is not None)
            centre_x = switches[e, r]
            centre_c = acb(centre_x)

            def coefficients(m: acb, left=left, right=right, n=n, r=r) -> list[acb]:
                out = [acb(0)] * (n + 1)
                for sign, group in ((1, left), (-1, right)):
                    if group is not None:
                        for k, c in enumerate(_coefficients(smoothing, group, m)):
                            out[k] += sign * c
                growth = _growth(smoothing, r, m)
                return [growth * c for c in out]

            for a, b in zip(x_edges, x_edges[1:]):
                i = owner((a + b) / 2)
                if not branches[i]:
                    continue
                # the truncation |u| > U: sup over [a, b] of |weight·W_k|, then U
                box = acb(a.union(b))
                magnitudes = [abs(c) for c in coefficients(kappa_c * box)]
                size = _up(abs(weight(i, box)) * max(magnitudes, key=lambda z: float(z.upper())))
                U = 6
                while True:
                    bound = _up(2 * ratio * size * sum((_real_tail(U, k + 1) for k in range(n + 1)), arb(0)))
                    if bound <= goal / (8 * count) or U > 60:
                        break
                    U += 1
                if not bound <= goal / (8 * count) * 2:
                    return None
                error += bound
                ua, ub = u_of(e, r, a), u_of(e, r, b)
                lo_u, hi_u = (ub, ua) if kappa > 0 else (ua, ub)
                # exact ends: the clipped ends, 0, and the midpoints of the kinks seen in u
                ends: list[tuple[arb, arb | None]] = []
                for value in (lo_u, hi_u):
                    if value < -U:
                        ends.append((arb(-U), None))
                    elif value > U:
                        ends.append((arb(U), None))
                    else:
                        ends.append((arb(value.mid()), value))
                (u0, t0), (u1, t1) = ends
                if not u1 > u0:
                    continue
                pieces_u = (
                    [(u0, arb(0), t0, None), (arb(0), u1, None, t1)] if u0 < 0 < u1 else [(u0, u1, t0, t1)]
                )
                for lo, hi, true_lo, true_hi in pieces_u:
                    positive = bool(lo >= 0)

                    def h(
                        u: acb,
                        analytic: bool = False,
                        i=i,
                        positive=positive,
                        centre_c=centre_c,
                        coefficients=coefficients,
                        n=n,
                    ) -> acb:
                        x = centre_c - u * s_c / kappa_c
                        moments = smoothing.moments.at(u if positive else -u, n)
                        w = coefficients(kappa_c * x)
                        total_ = acb(0)
                        for k in range(n + 1):
                            d = -moments[k] if positive else (-1) ** k * moments[k]
                            total_ += w[k] * d
                        return weight(i, x) * total_

                    part = acb.integral(
                        h, lo, hi, abs_tol=tol / ratio, rel_tol=rel_tol, eval_limit=EVAL_LIMIT
                    )
                    if not part.is_finite():
                        return None
                    total += part * ratio
                    for point, true in ((lo, true_lo), (hi, true_hi)):
                        if true is not None:
                            hull = acb(arb(point).union(true))
                            error += _up(ratio * arb(abs(true - point).upper()) * abs(h(hull)))
    value = total.real * norm
    if not total.imag.contains(0):
        return None
    return value + arb(0, _up(tail + error * norm))


def _real_tail(U: int, k: int) -> arb:
    """M_k(U) = ∫_U^∞ t^k ϕ(t) dt at 64 bits, rounded up."""
    with ctx.workprec(64):
        u = arb(U)
        density = (-u * u / 2).exp() / (2 * arb.pi()).sqrt()
        moments = [(u / arb(2).sqrt()).erfc() / 2, density]
        for j in range(2, k + 1):
            moments.append(u ** (j - 1) * density + (j - 1) * moments[j - 2])
        return _up(moments[k])


def _closeness_bits(rho: arb | Fraction) -> int:
    """About log2(1/(1 − |ρ|)), at least 0."""
    if isinstance(rho, Fraction):
        gap = 1 - abs(rho)
        return max(0, gap.denominator.bit_length() - gap.numerator.bit_length() + 1)
    with ctx.workprec(64):
        gap_ball = arb((1 - abs(rho)).lower())
    if not gap_ball > 0:
        return 0
    return max(0, math.ceil(-float(gap_ball.log()) / math.log(2)) + 1)


def conditional_cross(
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
    of their values (``bivariate_certified``'s contract), ``polys`` the real-line bounds of |φ|
    and |φ'|, sizes as log2 (the precision from the larger, the goal from the smaller); None
    where this route does not prove them."""
    if not applies(act):
        return None
    key = None
    if (
        isinstance(q1, (Fraction, int))
        and isinstance(q2, (Fraction, int))
        and isinstance(rho, (Fraction, int))
    ):
        # a deep network's layers near their fixed point ask for the same exact point again
        key = (
            act.name,
            act.values,
            act.tree if act.expression else None,
            Fraction(q1),
            Fraction(q2),
            Fraction(rho),
            digits,
            tuple(which),
        )
        if key in _FOUND:
            return list(_FOUND[key])
    found = _conditional_cross(act, polys, q1, q2, rho, digits, which, size_log2, least_log2)
    if key is not None and found is not None:
        if len(_FOUND) > 64:
            _FOUND.clear()
        _FOUND[key] = tuple(found)
    return found


_FOUND: dict[tuple, tuple[arb, ...]] = {}


def _conditional_cross(
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
    wanted = (digits + 3) * BITS_PER_DIGIT
    # u = (k − κx)/s near ψ's near-kinks needs κ to about s relative: as many more bits as
    # 1 − |ρ| has leading zeros
    extra = _closeness_bits(rho)

    def evaluate(goal_log2: float) -> list[arb] | None:
        prec = int(size_log2 - goal_log2) + 60 + extra
        with ctx.workprec(prec):
            r = as_arb(rho)
            if isinstance(rho, Fraction):
                one_minus_square = as_arb(1 - rho * rho)
            else:
                one_minus_square = (1 - r) * (1 + r)
            a, b = as_arb(q1), as_arb(q2)
            goal = arb(2) ** math.floor(goal_log2)
            balls = []
            for i in which:
                found = _split_integral(act, i, polys[i], a, b, r, one_minus_square, goal, prec)
                if found is None:
                    found = _integral(act, i, polys[i], a, b, r, one_minus_square, goal, prec)
                if found is None:
                    return None
                balls.append(found)
        return balls

    return lowered_goals(evaluate, least_log2, wanted, ATTEMPTS)


__all__ = ["NEAR_ONE", "applies", "conditional_cross", "preferred"]
