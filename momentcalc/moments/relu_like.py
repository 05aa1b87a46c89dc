"""Gaussian kernels and moments at large variances of activations that are relu plus steps and a
bounded, integrable part (``catalog.relu_like``: gelu, swish, quick_gelu, softplus, mish, elu,
selu, celu; the sign-like tanh and sigmoid, A = 0): no integral over the width of the Gaussian,
only moments of the bounded part over its unit-scale support.

For (u, v) centred Gaussian, Var u = q1 = σ₁², Var v = q2 = σ₂², correlation |ρ| < 1, and
φ = ψ + g with ψ = d + A·r + c·ℓ (r = relu, ℓ = [x < 0]; A = 1, d = c = 0 but for elu, selu,
celu, tanh, sigmoid; d = ``top``, c = floor − top), φ' = A·h + g' (h = [x > 0]; where ψ jumps,
g jumps back, and g' is φ' − A·h off 0):

    E[φ(u)φ(v)]   = E[ψ(u)ψ(v)] + E[ψ(u)g(v)] + E[g(u)ψ(v)] + E[g(u)g(v)],
    E[φ'(u)φ'(v)] = A²·E[h(u)h(v)] + A·E[h(u)g'(v)] + A·E[g'(u)h(v)] + E[g'(u)g'(v)].

* E[r(u)r(v)] = σ₁σ₂·(sqrt(1 − ρ²) + (π − arccos ρ)·ρ)/(2π) and E[h(u)h(v)] = E[ℓ(u)ℓ(v)] =
  (π − arccos ρ)/(2π): the arc-cosine kernels of degrees 1 and 0 (Cho & Saul 2009, "Kernel
  methods for deep learning"; ``catalog.kernels.BALL_KERNELS``); E[r(u)ℓ(v)] = E[u; u > 0] −
  E[u; u > 0, v > 0] = σ₁(1 − ρ)/(2√(2π)).
* The cross terms by conditioning on the bounded side: given v = y, u ~ N(μ, s²) with
  μ = ρ·(σ₁/σ₂)·y, s = σ₁·sqrt(1 − ρ²), so E[r(u) | v = y] = s·f(ωy), f(t) = t·Φ(t) + n(t)
  (n the normal density), E[h(u) | v = y] = Φ(ωy) = 1 − E[ℓ(u) | v = y], ω = ρ/(σ₂·sqrt(1 − ρ²)),

      E[ψ(u)g(v)] = (1/σ₂)·∫ g(y)·n(y/σ₂)·(d + A·s·f(ωy) + c·(1 − Φ(ωy))) dy,
      E[h(u)g'(v)] = (1/σ₂)·∫ g'(y)·n(y/σ₂)·Φ(ωy) dy.

  On [−T, T] the weight is a power series in y with a proven rest (n(y/σ₂) = n(0)·e^{−y²/(2q2)},
  Φ and f from n's series, ``_gaussian``, ``_odd_series``, products ``_product``) paired with
  g's moments m_k = ∫_{−T}^{T} g(x)·x^k dx (Arb's rigorous integration, ``acb.integral``, kept
  across calls: a deep network's layers reuse them); where ωT is too large (ρ near ±1 at a
  moderate variance) the route gives way (None) to the bivariate rules. E[ψ(u)ψ(v)] =
  A²·E[r(u)r(v)] + A·c·(E[r(u)ℓ(v)] + E[ℓ(u)r(v)]) + c²·E[ℓ(u)ℓ(v)] + d² + d·c +
  d·A·(σ₁ + σ₂)/√(2π) (E[r(u)] = σ₁/√(2π), E[ℓ(u)] = 1/2): for tanh (d = 1, c = −2, A = 0)
  (2/π)·arcsin ρ, the sign kernel.
* E[g(u)g(v)] over the square [−T, T]²: p(x, y) = p₀·e^{−αx²}·e^{−βxy}·e^{−γy²} expanded in
  βxy, each factor from the same moments (``_square_series``); where (α + |β| + γ)·T² is too large,
  None likewise.

Tails, from the catalog's decay |g(x)| ≤ C·(1 + |x|)·e^{−λ|x|} (C = C₀ for g, C₁ for g') and
I_k(T) = ∫_T^∞ y^k·e^{−λy} dy = e^{−λT}·Σ_{j ≤ k} k!/j!·T^j/λ^{k−j+1}:

    M_k(T) = ∫_{|y|>T} |g(y)|·|y|^k dy ≤ 2C·(I_k(T) + I_{k+1}(T));
    |cross term beyond T| ≤ (|A|·(|ρ|·(σ₁/σ₂)·M_1(T) + s·M_0(T)/√(2π)) + L·M_0(T))/(σ₂√(2π))
        (E[r(u) | v = y] ≤ |μ| + s/√(2π), |E[d + c·ℓ(u) | v = y]| ≤ L = max(|d|, |d + c|);
        for φ': |A|·M_0(T)/(σ₂√(2π)));
    |E[g(u)g(v)] beyond the square| ≤ G·(M_0(T)/σ₁ + M_0(T)/σ₂)/√(2π)

(outside the square |x| > T or |y| > T; there ∫|g(y)|·p(y | x) dy ≤ G = sup|g| ≤
C·max(1, e^{λ−1}/λ), and p_u(x) ≤ 1/(σ₁√(2π))), or, where the joint density's top
p₀ = 1/(2πσ₁σ₂sqrt(1 − ρ²)) is the smaller factor (both variances large: a step's E[φ'φ'] is
about p₀·(∫g')², and 1/σ₁ would ask T for digits of 1/σ₂ too),

    |E[g(u)g(v)] beyond the square| ≤ ∫_{|x|>T} |g(x)|·∫ |g(y)|·p dy dx + (x ↔ y) ≤ 2·p₀·M_0(0)·M_0(T). At T = 0 the same bounds bound a whole term,
which is then a ball around 0 where it is below the tolerance (so at q = 1e300 nothing is
integrated). Each term's tolerance is a share of 10^−(digits + 3) of the closed part's size (where
that is 0, as in a step's E[φ'φ'] = E[g'(u)g'(v)], of p₀·(∫|g'|)² ≥ |E[g'(u)g'(v)]|, p₀ the joint
density's top); a result that ends up wider than its digits allow is recomputed with the tolerance taken from
itself (a value near 0, ρ near −1). The univariate moments E[X^a·φ^b·φ'^c] likewise
(``relu_like_expectations``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from flint import acb, arb, ctx

from ..catalog import Activation
from ..catalog.kernels import BALL_KERNELS
from ..catalog.relu_like import RELU_LIKE, ReluLike
from ..engine.gaussian_balls import as_arb
from ..engine.precision import Precision
from .monomials import vanishes
from .param_balls import params_of

# The route applies where both variances are at least this (below it the bivariate rules
# are faster: the integrals here need nearly all the digits there).
MIN_VARIANCE = 10**4
# Work limits of one acb.integral call (a call that cannot meet its goal returns a wide ball,
# which the caller refuses or the outer integral subdivides).
EVAL_LIMIT = 20000
# Attempts with a tolerance taken from the value found.
ATTEMPTS = 3


def declared(act: Activation) -> ReluLike | None:
    """The catalog's declaration φ = relu + g for ``act``, or None."""
    return None if act.expression else RELU_LIKE.get(act.name)


def applies(act: Activation, q1: Any, q2: Any) -> bool:
    """Whether ``relu_like_kernel`` and ``relu_like_expectations`` are the route for these
    variances (Fractions or balls)."""
    if declared(act) is None:
        return False
    with ctx.workprec(64):
        return bool(as_arb(q1) >= MIN_VARIANCE and as_arb(q2) >= MIN_VARIANCE)


def _tail_power(k: int, T: arb, rate: arb) -> arb:
    """I_k(T) = ∫_T^∞ y^k·e^{−λy} dy."""
    total = arb(0)
    for j in range(k + 1):
        total += arb(math.factorial(k) // math.factorial(j)) * T**j / rate ** (k - j + 1)
    return (-rate * T).exp() * total


def _moment(C: arb, rate: arb, T: arb, k: int) -> arb:
    """M_k(T) = ∫_{|y|>T} C·(1 + |y|)·|y|^k·e^{−λ|y|} dy."""
    return 2 * C * (_tail_power(k, T, rate) + _tail_power(k + 1, T, rate))


def _sup(C: arb, rate: arb) -> arb:
    """sup over x ≥ 0 of C·(1 + x)·e^{−λx}."""
    return C if rate >= 1 else C * (rate - 1).exp() / rate


class _Numbers(NamedTuple):
    """The declaration's numbers at the current precision: C₀, C₁, λ, A (scale), φ(−∞) (floor),
    d (top: the limit of φ − A·x at +∞)."""

    value: arb
    slope: arb
    rate: arb
    scale: arb
    floor: arb
    top: arb

    @property
    def step(self) -> arb:
        """c = floor − top, the size of the step c·[x < 0] in ψ = d + A·r + c·ℓ."""
        return self.floor - self.top

    @property
    def level(self) -> arb:
        """sup |d + c·p| over p ∈ [0, 1] = max(|d|, |d + c|): bounds E[d + c·ℓ(u) | v]."""
        return abs(self.top).max(abs(self.floor))


def _numbers(decl: ReluLike, params: Mapping[str, arb]) -> _Numbers:
    return _Numbers(
        *(f(params) for f in (decl.value, decl.slope, decl.rate, decl.scale, decl.floor, decl.top))
    )


class _Sides:
    """The two variances' scales and the conditional spreads, at the current precision."""

    def __init__(self, q1: arb, q2: arb, rho: arb) -> None:
        self.s1, self.s2, self.rho = q1.sqrt(), q2.sqrt(), rho
        self.root = (1 - rho * rho).sqrt()
        self.norm = (2 * arb.pi()).sqrt()


def _cross_bound(sides: _Sides, nums: _Numbers, which: int, T: arb, swap: bool) -> arb:
    """The bound of the cross term beyond T (module docstring); ``swap``: u is the bounded side."""
    a, b = (sides.s2, sides.s1) if swap else (sides.s1, sides.s2)
    rate, A = nums.rate, abs(nums.scale)
    if which:
        return A * _moment(nums.slope, rate, T, 0) / (b * sides.norm)
    C, s = nums.value, a * sides.root
    mean = A * (abs(sides.rho) * a / b * _moment(C, rate, T, 1) + s * _moment(C, rate, T, 0) / sides.norm)
    return (mean + nums.level * _moment(C, rate, T, 0)) / (b * sides.norm)


def _square_bound(sides: _Sides, nums: _Numbers, which: int, T: arb) -> arb:
    """|E[g(u)g(v)] beyond the square [−T, T]²|: the lesser of G·M_0(T)·(1/σ₁ + 1/σ₂)/√(2π) and
    2·p₀·M_0(0)·M_0(T) (module docstring)."""
    C, rate = (nums.slope if which else nums.value), nums.rate
    tail = _moment(C, rate, T, 0)
    marginal = _sup(C, rate) * tail * (1 / sides.s1 + 1 / sides.s2) / sides.norm
    joint = 2 * _moment(C, rate, arb(0), 0) * tail / (2 * arb.pi() * sides.s1 * sides.s2 * sides.root)
    return marginal.min(joint)


def _square_size(sides: _Sides, nums: _Numbers, which: int) -> arb:
    """p₀·(∫|g|)² (g' for which = 1), p₀ = 1/(2πσ₁σ₂sqrt(1 − ρ²)) the density's top: the size
    of E[g(u)g(v)], which is about p₀·(∫g)² at large variances."""
    whole = _moment(nums.slope if which else nums.value, nums.rate, arb(0), 0)
    return arb((whole * whole / (2 * arb.pi() * sides.s1 * sides.s2 * sides.root)).lower())


def _reach(bound: Callable[[arb], arb], tol: arb) -> int | None:
    """The least integer T ≥ 1 (doubling, then bisection) with bound(T) ≤ tol."""
    high = 1
    while not bound(arb(high)) <= tol:
        high *= 2
        if high > 2**20:
            return None
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        if bound(arb(mid)) <= tol:
            high = mid
        else:
            low = mid
    return high


def _integral(f: Callable[[acb, bool], acb], a: arb, b: arb, tol: arb, limit: int) -> acb:
    """∫_a^b f by acb.integral to absolute tolerance ``tol``; an exception raised in f is
    raised after the integrator returns (it must not cross Arb's C code)."""
    raised: list[BaseException] = []
    zero = acb(0)

    def guarded(x: acb, analytic: bool) -> acb:
        if raised:
            return zero
        try:
            return f(x, analytic)
        except BaseException as error:  # kept, raised below
            raised.append(error)
            return zero

    found = acb.integral(
        guarded,
        a,
        b,
        abs_tol=tol,
        rel_tol=arb(2) ** (-ctx.prec),
        eval_limit=limit,
        deg_limit=ctx.prec // 2 + 60,
    )
    if raised:
        raise raised[0]
    return found


class _Series(NamedTuple):
    """Σ c_k·y^k on |y| ≤ T, within ``rest`` of the function it stands for there."""

    coeffs: list[arb]
    rest: arb


def _order(x: arb, grow: arb, target: arb) -> int | None:
    """The least N ≤ MAX_ORDER with x^N/N!·grow ≤ target (x ≥ 0)."""
    term = grow
    for n in range(MAX_ORDER + 1):
        if term <= target:
            return n
        term = term * x / (n + 1)
    return None


def _gaussian(a: arb, T: arb, target: arb) -> _Series | None:
    """e^{−a·y²}, a ≥ 0: Σ_{j<N} (−a)^j/j!·y^{2j}, the rest ≤ (aT²)^N/N! (an alternating
    exponential series at −aT² ≤ 0)."""
    x = a * T * T
    n = _order(x, arb(1), target)
    if n is None:
        return None
    coeffs = [arb(0)] * (2 * n + 1)
    term = arb(1)
    for j in range(n):
        coeffs[2 * j] = term
        term = -term * a / (j + 1)
    return _Series(coeffs, arb((x**n / arb(n).fac()).upper()) if n else arb(1))


def _odd_series(w: arb, T: arb, target: arb, slope: bool) -> _Series | None:
    """Φ(w·y) (``slope``) or f(w·y) = w·y·Φ(w·y) + n(w·y), from n(t) = n(0)·Σ_j (−t²/2)^j/j!:
    Φ(t) = 1/2 + n(0)·Σ_j (−1)^j·t^{2j+1}/(2^j·j!·(2j + 1)),
    f(t) = n(0) + t/2 + n(0)·Σ_j (−1)^j·t^{2j+2}/(2^j·j!·(2j + 1)(2j + 2)) (f'' = n);
    the rest after N terms ≤ n(0)·|wT|^e·x^N/N!·e^x, x = (wT)²/2, e = 1 (Φ) or 2 (f)."""
    n0 = 1 / (2 * arb.pi()).sqrt()
    x = w * w * T * T / 2
    power = abs(w) * T if slope else w * w * T * T
    n = _order(x, n0 * power * x.exp(), target)
    if n is None:
        return None
    shift = 1 if slope else 2
    coeffs = [arb(0)] * (2 * n + shift + 1)
    if slope:
        coeffs[0] = arb(1) / 2
    else:
        coeffs[0], coeffs[1] = n0, w / 2
    term = n0
    for j in range(n):
        tail = 2 * j + 1 if slope else (2 * j + 1) * (2 * j + 2)
        coeffs[2 * j + shift] += term * w ** (2 * j + shift) / tail
        term = -term / (2 * (j + 1))
    rest = n0 * power * x**n / arb(n).fac() * x.exp()
    return _Series(coeffs, arb(rest.upper()))


def _size(series: _Series, T: arb) -> arb:
    """sup over |y| ≤ T of |Σ c_k·y^k|, at most Σ |c_k|·T^k."""
    return arb(sum((abs(c) * T**k for k, c in enumerate(series.coeffs)), arb(0)).upper())


def _combined(parts: Sequence[tuple[arb, _Series]], constant: arb) -> _Series:
    """constant + Σ k·S."""
    coeffs = [arb(0)] * max(len(series.coeffs) for _, series in parts)
    coeffs[0] += constant
    rest = arb(0)
    for k, series in parts:
        for i, c in enumerate(series.coeffs):
            coeffs[i] += k * c
        rest += abs(k) * series.rest
    return _Series(coeffs, arb(rest.upper()))


def _product(a: _Series, b: _Series, T: arb) -> _Series:
    coeffs = [arb(0)] * (len(a.coeffs) + len(b.coeffs) - 1)
    for i, x in enumerate(a.coeffs):
        if x == 0:
            continue
        for j, y in enumerate(b.coeffs):
            coeffs[i + j] += x * y
    rest = a.rest * _size(b, T) + _size(a, T) * b.rest + a.rest * b.rest
    return _Series(coeffs, arb(rest.upper()))


# Where a series argument (ωT, the exponents' aT²) passes this, the integrals instead.
SERIES_REACH = 8
# The most terms of one series.
MAX_ORDER = 60
# Moments already found: (name, params, side, p, s, T, precision) -> (goal bits, balls).
_MOMENTS: dict[tuple[Any, ...], tuple[int, list[arb]]] = {}


def _goal_bits(goal: arb) -> int:
    """−log2 of a goal, rounded up to a multiple of 32 (so a deep network's layers reuse moments)."""
    if not (goal > 0 and goal < 1):  # (a loose goal, or an empty series: size 0, goal +∞)
        return 32
    bits = max(32, -int(float(goal.log().mid()) / math.log(2)) + 32)
    return bits + (-bits % 32)


def _edges(act: Activation, powers: tuple[int, int], T: int) -> list[int]:
    """T rounded up to a multiple of 8: moments are kept per edge, and a deep network's layers,
    whose T shrinks slowly as the variance grows, reuse them. (A kept wider edge reused for a
    smaller T put the series' terms, growing like e^{(ωT)²}, past the working precision.)"""
    return [T + (-T % 8)]


def _half_moments(
    act: Activation,
    decl: ReluLike,
    params: Mapping[str, arb],
    side: int,
    powers: tuple[int, int],
    T: int,
    count: int,
    goal: arb,
) -> list[arb] | None:
    """μ_k = ∫ x^k·g(x)^p·g'(x)^s dx over [0, T] (side 1) or [−T, 0] (side −1), (p, s) =
    ``powers``, k < count, each within goal·T^k."""
    bits = _goal_bits(goal)
    key = (act.name, act.values, side, *powers, T, ctx.prec)
    found = _MOMENTS.get(key)
    if found is not None and found[0] >= bits and len(found[1]) >= count:
        return found[1][:count]
    known = found[1] if found is not None and found[0] >= bits else []
    value, slope = decl.left if side < 0 else decl.right
    p, s = powers
    edge = arb(T)
    low, high = (-edge, arb(0)) if side < 0 else (arb(0), edge)
    out = list(known)
    for k in range(len(known), count):

        def integrand(y: acb, analytic: bool, k: int = k) -> acb:
            total = y**k
            if p:
                total *= value(y, params, analytic) ** p
            if s:
                total *= slope(y, params, analytic) ** s
            return total

        part = _integral(integrand, low, high, arb(2) ** -bits * edge**k, EVAL_LIMIT)
        if not part.is_finite():
            return None
        out.append(part.real)
    _MOMENTS[key] = (bits, out)
    return out


def _moments(
    act: Activation, decl: ReluLike, params: Mapping[str, arb], which: int, T: int, count: int, goal: arb
) -> list[arb] | None:
    """m_k = ∫_{−T}^{T} g(x)·x^k dx (g' for which = 1), k < count, each within goal·T^k."""
    powers = (0, 1) if which else (1, 0)
    halves = [_half_moments(act, decl, params, side, powers, T, count, goal / 2) for side in (-1, 1)]
    if halves[0] is None or halves[1] is None:
        return None
    return [x + y for x, y in zip(halves[0], halves[1])]


def _pair(series: _Series, moments: list[arb], whole: arb) -> arb:
    """∫ g·S over [−T, T] from the moments: Σ c_k·m_k ± rest·∫|g|."""
    value = sum((c * m for c, m in zip(series.coeffs, moments)), arb(0))
    return value + arb(0, (series.rest * whole).upper())


def _cross_series(
    act: Activation,
    decl: ReluLike,
    sides: _Sides,
    params: Mapping[str, arb],
    nums: _Numbers,
    which: int,
    swap: bool,
    tol: arb,
    T: int,
) -> arb | None:
    """The cross term from power series of its weight in y (module docstring): W(y) =
    (n(0)/σ_b)·e^{−y²/(2σ_b²)}·F(y), ω = ρ/(σ_b·sqrt(1 − ρ²)), with F = A·Φ(ωy) for φ' and
    F = A·s·f(ωy) + c·(1 − Φ(ωy)) for φ (E[A·r(u) + c·[u < 0] | v = y]), and g's moments."""
    a, b = (sides.s2, sides.s1) if swap else (sides.s1, sides.s2)
    edge = arb(T)
    omega = sides.rho / (b * sides.root)
    if not (abs(omega) * edge <= SERIES_REACH):
        return None
    factor = 1 / (sides.norm * b)
    C = nums.slope if which else nums.value
    whole = _moment(C, nums.rate, arb(0), 0)
    target = tol / (32 * factor * whole)
    # the product's rest is each rest times the other's size: the targets shrink until it is below
    for _ in range(ATTEMPTS):
        first = _gaussian(1 / (2 * b * b), edge, target)
        second = _conditional_series(sides, nums, which, omega, a, edge, target)
        if first is None or second is None:
            return None
        series = _product(first, second, edge)
        if series.rest * factor * whole <= tol / 16:
            break
        target = target / (2 * (_size(first, edge) + _size(second, edge)))
    else:
        return None
    moments = _moments(
        act, decl, params, which, T, len(series.coeffs), tol / (8 * factor * _size(series, edge))
    )
    if moments is None:
        return None
    return factor * _pair(series, moments, whole)


def _conditional_series(
    sides: _Sides, nums: _Numbers, which: int, omega: arb, a: arb, edge: arb, target: arb
) -> _Series | None:
    """F(y) of ``_cross_series`` within ``target`` on [−T, T]: A·Φ(ωy) (φ') or
    floor + A·s·f(ωy) − c·Φ(ωy) (φ; d + c·(1 − Φ) = floor − c·Φ with c = floor − top)."""
    if which:
        cdf = _odd_series(omega, edge, target / abs(nums.scale), True)
        return None if cdf is None else _combined([(nums.scale, cdf)], arb(0))
    parts = []
    spread = nums.scale * a * sides.root
    if spread != 0:
        mills = _odd_series(omega, edge, target / (2 * abs(spread)), False)
        if mills is None:
            return None
        parts.append((spread, mills))
    step = nums.step
    if step != 0:
        cdf = _odd_series(omega, edge, target / (2 * abs(step)), True)
        if cdf is None:
            return None
        parts.append((-step, cdf))
    if not parts:
        return _Series([arb(0)], arb(0))
    return _combined(parts, nums.floor)


def _square_series(
    act: Activation,
    decl: ReluLike,
    sides: _Sides,
    params: Mapping[str, arb],
    nums: _Numbers,
    which: int,
    tol: arb,
    T: int,
) -> arb | None:
    """E[g(u)g(v)] over the square from p(x, y) = p₀·e^{−αx²}·e^{−βxy}·e^{−γy²}, p₀ =
    1/(2πσ₁σ₂sqrt(1 − ρ²)), α = 1/(2q1(1 − ρ²)), β = −ρ/(σ₁σ₂(1 − ρ²)), γ = 1/(2q2(1 − ρ²)):
    p₀·Σ_{j<J} (−β)^j/j!·X_j·Y_j, X_j = ∫ g(x)·x^j·e^{−αx²} dx from the moments (Y_j with γ), the
    rest ≤ p₀·(|β|T²)^J/J!·e^{|β|T²}·(∫|g|)² (|e^{−αx²−γy²}| ≤ 1)."""
    edge = arb(T)
    squeeze = sides.root * sides.root
    alpha = 1 / (2 * sides.s1 * sides.s1 * squeeze)
    gamma = 1 / (2 * sides.s2 * sides.s2 * squeeze)
    beta = -sides.rho / (sides.s1 * sides.s2 * squeeze)
    reach = (alpha.max(gamma) + abs(beta)) * edge * edge
    if not reach <= SERIES_REACH:
        return None
    p0 = 1 / (2 * arb.pi() * sides.s1 * sides.s2 * sides.root)
    whole = _moment(nums.slope if which else nums.value, nums.rate, arb(0), 0)
    target = tol / (8 * p0 * whole * whole * reach.exp())
    x = abs(beta) * edge * edge
    J = _order(x, x.exp(), target)
    ex, ey = _gaussian(alpha, edge, target), _gaussian(gamma, edge, target)
    if J is None or ex is None or ey is None:
        return None
    count = J + max(len(ex.coeffs), len(ey.coeffs))
    moments = _moments(act, decl, params, which, T, count, tol / (8 * p0 * whole * reach.exp()))
    if moments is None:
        return None
    total = arb(0)
    term = arb(1)
    for j in range(J):
        xs = _pair(ex, moments[j:], whole * edge**j)
        ys = _pair(ey, moments[j:], whole * edge**j)
        total += term * xs * ys
        term = -term * beta / (j + 1)
    rest = x**J / arb(J).fac() * x.exp() * whole * whole
    return p0 * (total + arb(0, rest.upper()))


def _closed(Q1: arb, Q2: arb, R: arb, nums: _Numbers) -> tuple[arb, arb]:
    """E[ψ(u)ψ(v)] and A²·E[h(u)h(v)], ψ = d + A·r + c·ℓ: E[r(u)·[v < 0]] = σ₁(1 − ρ)/(2√(2π)),
    E[[u < 0]·[v < 0]] = E[[u > 0]·[v > 0]] = 1/4 + arcsin(ρ)/(2π), E[r(u)] = σ₁/√(2π),
    E[[u < 0]] = 1/2; with a top d, d² + d·c + c²·E[ℓℓ] = (d + c/2)² + c²·arcsin(ρ)/(2π), free of
    cancellation (tanh: d + c/2 = 0, the sign kernel (2/π)·arcsin ρ, whole at ρ = 1e-30)."""
    relu, step = BALL_KERNELS["relu"](Q1, Q2, R, {})
    A, c, d = nums.scale, nums.step, nums.top
    mixed = (Q1.sqrt() + Q2.sqrt()) * (1 - R) / (2 * (2 * arb.pi()).sqrt())
    if d == 0:
        return A * A * relu + A * c * mixed + c * c * step, A * A * step
    half = d + c / 2
    nngp = A * A * relu + A * c * mixed + half * half + c * c * R.asin() / (2 * arb.pi())
    nngp += d * A * (Q1.sqrt() + Q2.sqrt()) / (2 * arb.pi()).sqrt()
    return nngp, A * A * step


def relu_like_kernel(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb] | None:
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) as balls for an activation the catalog declares relu + g
    (module docstring), |ρ| < 1; None where the integrals cannot meet their goals."""
    decl = declared(act)
    if decl is None:
        return None
    with ctx.workprec(Precision(digits).ball_bits):
        params = params_of(act)
        Q1, Q2, R = as_arb(q1), as_arb(q2), as_arb(rho)
        if not (abs(R) < 1 and Q1 > 0 and Q2 > 0):
            return None
        nums = _numbers(decl, params)
        closed = _closed(Q1, Q2, R, nums)
        sides = _Sides(Q1, Q2, R)
        goal = arb(10) ** -(digits + 1)
        out = []
        for which in (0, 1):
            scale = abs(closed[which])
            if not scale > 0:  # (a step's φ': all of E[φ'φ'] is E[g'(u)g'(v)], at most p₀·(∫|g'|)²)
                scale = _square_size(sides, nums, which)
            for _ in range(ATTEMPTS):
                tol = arb((scale * arb(10) ** -(digits + 3) / 8).lower())
                if not tol > 0:
                    return None
                with ctx.workprec(_bits_for(sides, nums, which, tol)):
                    parts = _terms(act, decl, sides, params, nums, which, tol)
                if parts is None:
                    return None
                value = closed[which] + sum(parts, arb(0))
                if value.rad() <= goal * abs(value).lower():
                    break
                if not abs(value).lower() > 0:
                    return None
                scale = arb(abs(value).lower())
            else:
                return None
            out.append(value)
        return out[0], out[1]


def _bits_for(sides: _Sides, nums: _Numbers, which: int, tol: arb) -> int:
    """The working precision of ``_terms``: the current one, or more where the terms may be much
    larger than the tolerance (tanh's E[φ(u)φ(v)] at ρ = 1e-30 is about (2/π)·ρ, its g-terms
    each up to 1/σ before they cancel to O(ρ/q)): log2 of their bounds over tol, plus 64."""
    size = _square_bound(sides, nums, which, arb(0))
    for swap in (False, True):
        size = size.max(_cross_bound(sides, nums, which, arb(0), swap))
    ratio = size / tol
    if not (ratio.is_finite() and ratio > 1):
        return ctx.prec
    return max(ctx.prec, int(float(ratio.log().upper().mid()) / math.log(2)) + 64)


def _terms(
    act: Activation,
    decl: ReluLike,
    sides: _Sides,
    params: Mapping[str, arb],
    nums: _Numbers,
    which: int,
    tol: arb,
) -> list[arb] | None:
    """The two cross terms and the square term of ``which`` (0: φ, 1: φ'), each within ``tol``
    or so: a ball around 0 where its whole bound is below tol, else by the series where they
    reach (None where they do not)."""
    out = []
    for swap in (False, True):
        whole = _cross_bound(sides, nums, which, arb(0), swap)
        if whole <= tol:
            out.append(arb(0, whole.upper()))
            continue
        T = _reach(lambda t: _cross_bound(sides, nums, which, t, swap), tol / 4)
        if T is None:
            return None
        for edge in _edges(act, (0, 1) if which else (1, 0), T):
            found = _cross_series(act, decl, sides, params, nums, which, swap, tol, edge)
            if found is not None:
                break
        if found is None:
            return None
        out.append(found + arb(0, _cross_bound(sides, nums, which, arb(edge), swap).upper()))
    whole = _square_bound(sides, nums, which, arb(0))
    if whole <= tol:
        out.append(arb(0, whole.upper()))
        return out
    T = _reach(lambda t: _square_bound(sides, nums, which, t), tol / 4)
    if T is None:
        return None
    for edge in _edges(act, (0, 1) if which else (1, 0), T):
        found = _square_series(act, decl, sides, params, nums, which, tol, edge)
        if found is not None:
            break
    if found is None:
        return None
    out.append(found + arb(0, _square_bound(sides, nums, which, arb(edge)).upper()))
    return out


def _series_reach(sides: _Sides, nums: _Numbers, which: int, scale: arb, digits: int, limit: arb) -> bool:
    """Whether every term of ``_terms`` (first attempt) stays within ``limit`` (at most
    SERIES_REACH): |ω|·T for the cross terms, (max(α, γ) + |β|)·T² for the square, T rounded up
    as ``_edges`` does."""
    tol = arb((scale * arb(10) ** -(digits + 3) / 8).lower())
    if not tol > 0:
        return False
    for swap in (False, True):
        if _cross_bound(sides, nums, which, arb(0), swap) <= tol:
            continue
        T = _reach(lambda t: _cross_bound(sides, nums, which, t, swap), tol / 4)
        b = sides.s1 if swap else sides.s2
        if T is None or not abs(sides.rho / (b * sides.root)) * (T + (-T % 8)) <= limit:
            return False
    if _square_bound(sides, nums, which, arb(0)) <= tol:
        return True
    T = _reach(lambda t: _square_bound(sides, nums, which, t), tol / 4)
    if T is None:
        return False
    squeeze = sides.root * sides.root
    widest = 1 / (2 * squeeze * sides.s1.min(sides.s2) ** 2)
    beta = abs(sides.rho) / (sides.s1 * sides.s2 * squeeze)
    return bool((widest + beta) * (T + (-T % 8)) ** 2 <= limit)


def correlation_reach(
    act: Activation, rho: Fraction, q1: Fraction, q2: Fraction, digits: int
) -> Fraction | None:
    """The correlation ρ' of ρ's sign nearest ±1 (to two significant digits of 1 − |ρ'|, rounded
    away from ±1) at which the series of ``relu_like_kernel`` reach at these variances and digits,
    for a refusal near ±1 to say how far to move: they need the spread q·(1 − ρ²) across the
    diagonal to cover g's unit-scale support (ω·T and (α + |β|)·T² at most SERIES_REACH/4, the
    tolerances of the first attempt: near SERIES_REACH itself the series are long and their
    moments many, gelu at q = 1e8 took 3.5 s of the 4 s budget, at a quarter of it 2.8 s). Found
    by bisection in log(1 − |ρ'|) of those conditions alone (milliseconds; tests/test_step_like.py
    runs the route at the ρ' it gives); None where even |ρ'| = 1/2 is beyond them."""
    decl = declared(act)
    if decl is None or not 0 < abs(rho) < 1:
        return None
    sign = 1 if rho > 0 else -1

    def reaches(gap: Fraction) -> bool:
        with ctx.workprec(Precision(digits).ball_bits):
            Q1, Q2, R = as_arb(q1), as_arb(q2), as_arb(sign * (1 - gap))
            nums = _numbers(decl, params_of(act))
            sides = _Sides(Q1, Q2, R)
            for which, closed in enumerate(_closed(Q1, Q2, R, nums)):
                scale = abs(closed) if abs(closed) > 0 else _square_size(sides, nums, which)
                if not _series_reach(sides, nums, which, scale, digits, arb(SERIES_REACH) / 4):
                    return False
            return True

    low, high = 1 - abs(rho), Fraction(1, 2)  # (the gap 1 − |ρ'|: low fails, high reaches)
    if not reaches(high):
        return None
    for _ in range(40):
        if high / low < Fraction(101, 100):
            break
        mid = Fraction(math.sqrt(low * high))
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return sign * (1 - _round_up(high))


def _round_up(gap: Fraction) -> Fraction:
    """gap rounded up to two significant decimal digits."""
    exponent = math.floor(math.log10(gap)) - 1
    unit = Fraction(10) ** exponent
    return math.ceil(gap / unit) * unit


def _half_gaussian(k: int) -> arb:
    """E[Z^k; Z > 0] = 2^{k/2}·Γ((k + 1)/2)/(2√π)."""
    return arb(2) ** (arb(k) / 2) * (arb(k + 1) / 2).gamma() / (2 * arb.pi().sqrt())


def relu_like_expectations(
    act: Activation, monomials: Sequence[tuple[int, int, int]], q: Fraction | arb, digits: int
) -> list[arb] | None:
    """E[X^a·φ(X)^b·φ'(X)^c], X ~ N(0, q), for an activation the catalog declares A·relu + c·[x < 0]
    + g: on X > 0, φ = A·X + g and φ' = A + g', on X < 0, φ = c + g and φ' = g' (binomially
    expanded), so E is closed parts (A^{b+c}·q^{(a+b)/2}·E[Z^{a+b}; Z > 0], c^b·E[X^a; X < 0]) plus

        Σ coefficient·∫_{half} x^k·g^p·g'^s·n(x/σ)/σ dx   (p + s ≥ 1),

    each integral from the series n(x/σ)/σ = (n(0)/σ)·Σ_j (−x²/(2q))^j/j! (the rest ≤
    (T²/(2q))^N/N! on |x| ≤ T) and the moments of x^k·g^p·g'^s over [0, T] or [−T, 0], beyond T
    bounded by |g^p·g'^s| ≤ C₀^p·C₁^s·G^{p+s−1}·(1 + |x|)·e^{−λ|x|} (G = sup (1 + x)e^{−λx}) and
    n ≤ n(0): (n(0)/σ)·C·(I_k(T) + I_{k+1}(T)). None where the moments cannot be found."""
    decl = declared(act)
    if decl is None:
        return None
    out = []
    with ctx.workprec(Precision(digits).ball_bits):
        params = params_of(act)
        Q = as_arb(q)
        if not Q > 0:
            return None
        for monomial in monomials:
            if vanishes(monomial, act.parity):  # (tanh's E[φ]: 0 by symmetry, which no ball proves)
                out.append(arb(0))
                continue
            found = _monomial(act, decl, params, Q, monomial, digits)
            if found is None:
                return None
            out.append(found)
    return out


def _side_terms(monomial: tuple[int, int, int], constant: arb, slope: arb) -> list[tuple[arb, int, int, int]]:
    """x^a·φ^b·φ'^e on a half-line where φ = P + g, P = constant + slope·x, φ' = slope + g',
    expanded: Σ C(b, i)·C(i, m)·C(e, j)·constant^{i−m}·slope^{m+j}·x^{a+m}·g^{b−i}·g'^{e−j}, as
    (coefficient, k = a + m, p = b − i, s = e − j), exact zeros left out."""
    a, b, e = monomial

    def power(x: arb, n: int) -> arb:
        return arb(1) if n == 0 else x**n

    out = []
    for i in range(b + 1):
        for m in range(i + 1):
            for j in range(e + 1):
                weight = math.comb(b, i) * math.comb(i, m) * math.comb(e, j) * power(constant, i - m)
                weight = weight * power(slope, m + j)
                if not (weight.is_exact() and weight == 0):
                    out.append((weight, a + m, b - i, e - j))
    return out


def _monomial(
    act: Activation,
    decl: ReluLike,
    params: Mapping[str, arb],
    Q: arb,
    monomial: tuple[int, int, int],
    digits: int,
) -> arb | None:
    """One E[X^a·φ^b·φ'^e]: on x > 0 φ = A·x + d + g, φ' = A + g'; on x < 0 φ = c + g, φ' = g'
    (c = floor, d = top), each side expanded (``_side_terms``): the terms free of g are
    coefficient·E[X^k; side] = coefficient·(±1)^k·q^{k/2}·E[Z^k; Z > 0]."""
    nums = _numbers(decl, params)
    closed = arb(0)
    terms: list[tuple[int, arb, int, int, int]] = []  # (side, coefficient, k, p, s)
    for side, constant, slope in ((-1, nums.floor, arb(0)), (1, nums.top, nums.scale)):
        for weight, k, p, s in _side_terms(monomial, constant, slope):
            if p == s == 0:
                closed += weight * (side**k) * Q ** (arb(k) / 2) * _half_gaussian(k)
            else:
                terms.append((side, weight, k, p, s))
    scale = abs(closed) if abs(closed) > 0 else _g_size(nums, Q, terms)
    goal = arb(10) ** -(digits + 1)
    for _ in range(ATTEMPTS):
        if not scale > 0:
            scale = arb(1)
        tol = arb((scale * arb(10) ** -(digits + 3) / (8 * max(1, len(terms)))).lower())
        value = closed
        for side, weight, k, p, s in terms:
            part = _g_term(act, decl, params, nums, Q, side, k, (p, s), tol / abs(weight))
            if part is None:
                return None
            value += weight * part
        if value.rad() <= goal * abs(value).lower() or (value.is_exact() and value == 0):
            return value
        scale = arb(abs(value).lower())
    return None


def _power_decay(nums: _Numbers, powers: tuple[int, int]) -> arb:
    """C with |g^p·g'^s| ≤ C·(1 + |x|)·e^{−λ|x|}: C₀^p·C₁^s·G^{p+s−1}, G = sup (1 + x)·e^{−λx}."""
    p, s = powers
    return nums.value**p * nums.slope**s * _sup(arb(1), nums.rate) ** (p + s - 1)


def _g_size(nums: _Numbers, Q: arb, terms: Sequence[tuple[int, arb, int, int, int]]) -> arb:
    """Σ |coefficient|·∫_{half} |x|^k·|g^p·g'^s|·n(x/σ)/σ dx bounded with n ≤ n(0): the size of
    the terms of g, the scale of a moment whose closed part is 0 (a step's E[φ'²])."""
    total = arb(0)
    for _, weight, k, p, s in terms:
        C = _power_decay(nums, (p, s))
        total += abs(weight) * C * (_tail_power(k, arb(0), nums.rate) + _tail_power(k + 1, arb(0), nums.rate))
    return arb((total / ((2 * arb.pi()).sqrt() * Q.sqrt())).lower())


def _g_term(
    act: Activation,
    decl: ReluLike,
    params: Mapping[str, arb],
    nums: _Numbers,
    Q: arb,
    side: int,
    k: int,
    powers: tuple[int, int],
    tol: arb,
) -> arb | None:
    """∫ x^k·g^p·g'^s·n(x/σ)/σ dx over the half-line ``side`` (``relu_like_expectations``)."""
    rate = nums.rate
    C = _power_decay(nums, powers)
    front = 1 / ((2 * arb.pi()).sqrt() * Q.sqrt())

    def beyond(t: arb) -> arb:
        return front * C * (_tail_power(k, t, rate) + _tail_power(k + 1, t, rate))

    whole = beyond(arb(0))
    if whole <= tol:
        return arb(0, whole.upper())
    found = _reach(beyond, tol / 4)
    if found is None:
        return None
    alpha = 1 / (2 * Q)
    T = next((t for t in _edges(act, powers, found) if alpha * t * t <= SERIES_REACH), None)
    if T is None:
        return None
    edge = arb(T)
    area = C * (_tail_power(0, arb(0), rate) + _tail_power(1, arb(0), rate))  # ∫_0^∞ |g^p·g'^s|
    series = _gaussian(alpha, edge, tol / (8 * front * edge**k * area))
    if series is None:
        return None
    goal = tol / (4 * front * edge**k * (alpha * edge * edge).exp())
    moments = _half_moments(act, decl, params, side, powers, T, k + len(series.coeffs), goal)
    if moments is None:
        return None
    value = sum((coeff * moments[k + j] for j, coeff in enumerate(series.coeffs)), arb(0))
    value += arb(0, (series.rest * edge**k * area).upper())
    return front * value + arb(0, beyond(edge).upper())


__all__ = [
    "MIN_VARIANCE",
    "applies",
    "correlation_reach",
    "declared",
    "relu_like_expectations",
    "relu_like_kernel",
]
