"""A proven ceiling over the per-layer C'(1) that deep kernel shaping can give gelu (Martens et
al., 2021, "Rapid training of deep neural networks without skip connections or normalization
layers"; gelu: Hendrycks and Gimpel, 2016, "Gaussian error linear units (GELUs)").

The public surface: ``CEILING`` (3), ``WHY`` (the text ``tat``'s exit 2 quotes), ``prove()`` (True
only when every region below is shown; ``REGIONS`` names them; also ``proof``) and ``slice_proof()``
(also ``proof_slice``). gelu's catalog entry declares this proof (``Activation.dks_ceiling =
"dks_gelu"``, read through ``moments.dks_ceilings``): ``tat`` trusts the declaration, the tests
run the proof (the whole, about a minute of CPU, under the reference marker; the slice by
default). The largest C'(1) on the curve Q'(1) = 1 appears to be about 1.979 (input_scale 0.78,
input_shift −2.04: the double-precision survey of ``moments.dks_survey``), well below the bound;
κ's own largest value over the plane is about 0.574 (C'(1) = 2.35 would need Q'(1) = 1 there).

The identity. With f(z) = φ(a·z + b), Z ~ N(0, 1), X = aZ + b ~ N(b, a²), DKS's local maps
(``moments.dks``: F1 = a²·E[φ'(X)²]/V − t, F2 = E[(X − b)(φ(X) − μ)φ'(X)]/V − 1) are
C'(1) = a²·E[φ'²]/V and, by Stein's lemma (E[(X − b)·k(X)] = a²·E[k'(X)] with
k = (φ − μ)φ'), Q'(1) = a²·(E[φ'²] + Cov(φ, φ''))/V. Wherever Q'(1) = 1,
C'(1) = 1/(1 − κ), κ = −Cov(φ(X), φ''(X))/E[φ'(X)²] (and 1 − κ = V/(a²·E[φ'²]) > 0), so
C'(1) < 3 there for every (a, b) as soon as

    G(a, b) = 2·E[φ'(X)²] + 3·Cov(φ(X), φ''(X)) > 0    for every a > 0 and b.

Closed forms. φ = x·Φ(x), φ' = Φ + x·ϕ, φ'' = (2 − x²)·ϕ (ϕ, Φ the standard normal's density
and distribution function). Coordinates: s = 1/sqrt(1 + a²) ∈ (0, 1] and h = b·s (s → 0 is
a → ∞, s = 1 is a = 0), ρ = 1 − s² = a²/(1 + a²).

* ϕ(x)^k times the density of N(b, a²) is c_k times that of N(m_k, v_k):
  c₁ = s·ϕ(h), m₁ = h·s, v₁ = ρ; c₂ = s·e^{−h²/(1+ρ)}/(2π·sqrt(1 + ρ)), m₂ = h·s/(1 + ρ),
  v₂ = ρ/(1 + ρ). So E[p(X)ϕ(X)^k] = c_k·E[p(W_k)] and E[p(X)ϕ(X)Φ(X)] = c₁·E[p(W₁)Φ(W₁)].
* For W ~ N(m, v), r = sqrt(1 + v): E[Φ(W)] = Φ(m/r), E[W^n·ϕ(W)] = (ϕ(m/r)/r)·E[V^n] with
  V ~ N(m/r², v/r²), and Stein's lemma gives
  E[W^n Φ(W)] = m·E[W^{n−1}Φ(W)] + v·((n − 1)·E[W^{n−2}Φ(W)] + E[W^{n−1}ϕ(W)]).
* E[Φ(X)] = Φ(h), E[X·Φ(X)] = (h·Φ(h) + ρ·ϕ(h))/s.
* E[Φ(X)²] = P(N₁ ≤ X, N₂ ≤ X) = Φ₂(h, h; ρ) = Φ(h)² + J, J = (1/2π)∫₀^{arcsin ρ}
  e^{−h²/(1 + sin θ)} dθ (Sheppard's integral with equal limits), with
  ∂_h J = 2ϕ(h)·(Φ(h·s/sqrt(1 + ρ)) − Φ(h)) (∂_h Φ₂(h, h; ρ) = 2ϕ(h)·Φ(h·sqrt((1 − ρ)/(1 + ρ))))
  and ∂_s J = −e^{−h²/(1 + ρ)}/(π·sqrt(1 + ρ)) (∂_ρ J = e^{−h²/(1+ρ)}/(2π·sqrt(1 − ρ²))).

Hence, with e_n = E[W₁^n Φ(W₁)],

    E[φ'²]         = Φ(h)² + J + 2c₁·e₁ + c₂·(m₂² + v₂),
    Cov(φ, φ'')    = c₁·(2e₁ − e₃) − (h·Φ(h) + ρ·ϕ(h))·ϕ(h)·(2 − m₁² − v₁),

the last product being E[φ]·E[φ''] (the 1/s of E[φ] cancels the s of c₁). Every piece is
continuous on s ∈ [0, 1]: at s = 0 (a → ∞) G = 2Φ(h) − 3(h·Φ(h) + ϕ(h))·ϕ(h), relu's own
condition 2Q(y) − 3m(y)ϕ(y) at y = −h (m(y) = ϕ(y) − y·Q(y)), whose ratio ϕ·m/Q is at most
0.3554, so the plane's unbounded direction a → ∞ is the compact edge s = 0. At s = 1 (a = 0)
G = 2φ'(h)², which vanishes at h = b* ≈ −0.7518 (φ'(b*) = 0): there the small-scale bound below.

Regions (the whole (h, s) strip ℝ × (0, 1]):

* h ≥ 4 (``right_side``): J ≥ 0 and c₂ ≥ 0; c₁ ≤ ϕ(h); |e_n| ≤ E|W₁|^n with |m₁| ≤ h, v₁ ≤ 1
  (E|W₁| ≤ h + 1, E|W₁|³ ≤ h³ + 3h² + 3h + 2); 0 ≤ h·Φ(h) + ρ·ϕ(h) ≤ h + 1 and
  |2 − m₁² − v₁| ≤ h² + 2, so G ≥ 2Φ(h)² − ϕ(h)·P(h), P(h) = 6h³ + 12h² + 25h + 22; ϕ·P falls
  for h ≥ 2 (h·P' ≤ 3P) and Φ² rises, so G > 0 for h ≥ 4 once 2Φ(4)² > ϕ(4)·P(4).
* The core −8 ≤ h ≤ 4, 0 ≤ s ≤ 1 (``core_cells``): cells bisected until each is shown, by the
  mean-value form G(centre) + ∂_h G(cell)·[−r_h, r_h] + ∂_s G(cell)·[−r_s, r_s] (the gradient
  by forward differentiation of the closed forms on the cell's balls; J at the centre is Arb's
  certified integral, over the cell J(centre) + ∂_h J·[−r_h, r_h] + ∂_s J·[−r_s, r_s]), or, on
  cells touching s = 1, by the small-scale bound: the covariance identity
  Cov(φ(X), ψ(X)) = a²∫₀¹ E[φ'(X)·ψ'(X_ρ)]dρ ((X, X_ρ) Gaussian with X's law and correlation ρ;
  Houdré and Pérez-Abreu, 1995, "Covariance identities and inequalities for functionals on
  Wiener and Poisson spaces") and Cauchy–Schwarz give |κ| ≤ a²·sqrt(E[φ'''²]/E[φ'²]), and
  E[φ'²] ≥ Var φ'(X) ≥ Cov(φ'(X), Z)² = a²·E[φ''(X)]² (Stein), so κ < 2/3 once
  a²·E[φ'''²] < (4/9)·E[φ'']², i.e. ρ·E[φ'''²] < (4/9)·s²·E[φ'']² with φ''' = (x³ − 4x)·ϕ:
  E[φ'''²] = c₂·E[(W₂³ − 4W₂)²], E[φ''] = c₁·(2 − m₁² − v₁) (at h = b*, φ''(b*) ≈ 0.43).
* The far left h ≤ −8 with s ≥ 7/16 (``far_left``; a ≤ sqrt(207)/7), a sign argument. By the
  covariance identity Cov(φ, φ'') = a²∫₀¹ E[φ'(X)·φ'''(X_ρ)]dρ, and φ' < 0, φ''' ≤ 0 on x ≤ −2
  (φ' ≤ ϕ(x)(1/|x| − |x|) by Φ(x) ≤ ϕ(x)/|x|; φ''' = x(x² − 4)ϕ), the integrand is ≥ 0 where
  X, X_ρ ≤ −2 and ≥ −M1·M3 elsewhere (M1 = 1 + ϕ(1) ≥ sup|φ'|, M3 = 3^{3/2}ϕ(√3) + 4ϕ(1) ≥
  sup|φ'''|, as max |x|^k·ϕ = k^{k/2}ϕ(√k)), so Cov ≥ −2a²·M1·M3·Q(z), z = (|b| − 2)/a =
  (|h| − 2s)/sqrt(ρ). On x ≤ −2, |φ'| ≥ |x|ϕ(1 − 1/x²) ≥ (3/4)|x|ϕ, so
  E[φ'²] ≥ (9/16)·c₂·E[W₂²; W₂ ≤ −2] ≥ (9/32)·c₂·m₂² once m₂ ≤ −2 (|W₂| ≥ |m₂| on W₂ ≤ m₂),
  and G_B > 0 where (B − 1)(9/32)c₂m₂² > 2B·a²·M1·M3·Q(z) (``sign_bound``). With Mills'
  ϕ(z)/Q(z) ≥ z, d/d|h| of the log of the ratio is ≥ (|h|s²/(1 + ρ) − 2s)/ρ + 2/|h| > 0 once
  |h|·s ≥ 2(1 + ρ), so it holds for every h below a point where it holds with |h|·s ≥ 4. On
  s-cells of width 1/64 over [7/16, 7/8] the first integer frontier −n ≤ −8 is found
  (``far_frontier``; −20 at s = 7/16, −8 from s ≈ 0.70) and the band −n ≤ h ≤ −8 goes to cells as
  in the core. For 7/8 ≤ s < 1 (ρ ≤ ρ_ε = 15/64) ``near_zero_scale`` bounds both sides at h = −8
  by monotone bounds (Q(z) ≤ e^{−z²/2}/2 with z ≥ 6/sqrt ρ, ρ·e^{−18/ρ} rising).
* The tilted corner h ≤ −8 with s ≤ 7/16 (``tilted_corner``; a → ∞ with b/a² bounded or not).
  Multiply G_B by 2π·e^{h²/(1+ρ)} and write R(x) = Q(x)/ϕ(x) (Mills' ratio), λ = |h|·s = −b/a²·ρ
  (= −m₁), E = e^{−h²ρ/(1+ρ)}: since 2π·ϕ(h)·ϕ(u) = e^{−h²/(1+ρ)} for u = m₁/sqrt(1 + ρ) and
  Φ(u) = ϕ(u)·R(|u|), exactly

      2π·e^{h²/(1+ρ)}·G_B = (B − 1)(R(|h|)²·E + Ĵ) + s·K(λ, ρ) − B·E·(ρ − |h|R(|h|))(2 − h²s² − ρ),

  Ĵ = ∫₀^{arcsin ρ} e^{−h²(1/(1 + sin θ) − 1/(1 + ρ))}dθ, and K = (B − 1)(2ê₁ + (m₂² + v₂)/r) +
  B(2ê₁ − ê₃), ê_n the recursion's e_n started from R(λ/r) and 1/r in place of Φ(m/r) and
  ϕ(m/r)/r (m₁ = −λ, v₁ = ρ, r = sqrt(1 + ρ)): a function of (λ, ρ) alone. The first term is
  ≥ 0. Ĵ ≥ e^{−1}/h² (the θ with sin θ ≥ ρ − 1/h² have the exponent ≥ −1 and measure ≥ 1/h²),
  and |ρ − |h|R| ≤ 1, |2 − h²s² − ρ| ≤ 2 + (7/16)²h², E ≤ e^{−cH} (H = h², c = ρ/(1 + ρ) at
  ρ = 207/256): the last term is outweighed by (B − 1)Ĵ at H = 64 and, H·e^{−cH}(2 + (7/16)²H)
  falling, for every H ≥ 64 (``tilted_remainder``). So G_B > 0 once K > 0 for λ ≥ 0,
  207/256 ≤ ρ ≤ 1: by cells on 0 ≤ λ ≤ 5/2 (R over a ball from its ends, R falling), and beyond by
  the explicit form at B = 3, K = A·R(x) + C, x = λ/r, A = λ(3λ² + 9ρ − 10) > 0 for λ ≥ 1,
  C = −(λ²(3ρ³ + 9ρ² + 9ρ − 2) + 6ρ⁴ + 5ρ³ − 13ρ² − 12ρ)/((1 + ρ)²·r): Gordon's
  R(x) ≥ x/(1 + x²) gives K·(1 + ρ)²·r·(1 + ρ + λ²) ≥ N(λ², ρ),
  N(L, ρ) = 5L² − 8(1 + ρ)²L − ρ(1 + ρ)²(2ρ − 3)(3ρ + 4), rising for L ≥ 16/5 and > 0 at
  L = 25/4 (``tilted_tail``). (K's leading 5λ²/r⁵ is the far left's pointwise
  (B − 1)φ'² + Bφφ'' ≈ 5x²ϕ² under the tilted mass.)

The proof (``prove``: every region of ``REGIONS``) costs about 75 s of CPU, the core's 49,000
cells and the far left's bands nearly all of it, so ``tests/test_dks_gelu.py`` runs it under
the reference marker, and a slice (a few cells per region and every closing inequality) by
default. Numerically, κ's largest value over the whole plane is about 0.5743 (a ≈ 0.588,
b ≈ −1.730), so 1/(1 − κ) stays below about 2.349 everywhere; that point is off the curve
Q'(1) = 1 (Q'(1) ≈ 0.609 there), and on the curve the largest C'(1) appears to be about 1.979.
The ceiling 3 is what the proof shows.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from ..engine.gaussian_balls import as_arb

PRECISION = 64
CEILING = Fraction(3)  # C'(1) < 3 wherever Q'(1) = 1, for every input scale and shift
WHY = (
    "(a smooth relu-like activation): below 3 wherever Q'(1) = 1 (proven: there C'(1) = 1/(1 - kappa) with "
    "kappa = -Cov(f, f'')/E[f'^2] < 2/3 for every input_scale and input_shift, from closed forms in "
    "Phi and phi; the largest C'(1) on that curve appears to be about 1.979, near input_scale 0.78 "
    "and input_shift -2.04), "
)
RIGHT = Fraction(4)  # h ≥ RIGHT: ``right_side``
LEFT = Fraction(-8)  # the core runs over LEFT ≤ h ≤ RIGHT
CORE_STEP = Fraction(1, 2)  # the core's first cells: CORE_STEP in h times the whole of s
MAX_DEPTH = 16  # bisections of a first cell before a core cell is given up
FAR_LOW, FAR_TOP = Fraction(7, 16), Fraction(7, 8)  # the far left's s-cells run over [FAR_LOW, FAR_TOP]
FAR_WIDTH = Fraction(1, 64)
TILT_TOP = Fraction(5, 2)  # s ≤ FAR_LOW, h ≤ LEFT: K by cells on 0 ≤ λ ≤ TILT_TOP, beyond by Gordon's bound


class Dual:
    """A ball with its gradient (∂_h, ∂_s): forward differentiation of the closed forms."""

    __slots__ = ("d_h", "d_s", "v")

    def __init__(self, v: Any, d_h: Any = 0, d_s: Any = 0):
        self.v, self.d_h, self.d_s = v, d_h, d_s

    @staticmethod
    def lift(x: Any) -> Dual:
        return x if isinstance(x, Dual) else Dual(x)

    def __add__(self, other: Any) -> Dual:
        o = Dual.lift(other)
        return Dual(self.v + o.v, self.d_h + o.d_h, self.d_s + o.d_s)

    __radd__ = __add__

    def __neg__(self) -> Dual:
        return Dual(-self.v, -self.d_h, -self.d_s)

    def __sub__(self, other: Any) -> Dual:
        return self + (-Dual.lift(other))

    def __rsub__(self, other: Any) -> Dual:
        return Dual.lift(other) - self

    def __mul__(self, other: Any) -> Dual:
        o = Dual.lift(other)
        return Dual(self.v * o.v, self.v * o.d_h + o.v * self.d_h, self.v * o.d_s + o.v * self.d_s)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Dual:
        o = Dual.lift(other)
        q = self.v / o.v
        return Dual(q, (self.d_h - q * o.d_h) / o.v, (self.d_s - q * o.d_s) / o.v)

    def chain(self, value: arb, slope: arb) -> Dual:
        return Dual(value, slope * self.d_h, slope * self.d_s)

    def exp(self) -> Dual:
        e = self.v.exp()
        return self.chain(e, e)

    def sqrt(self) -> Dual:
        r = self.v.sqrt()
        return self.chain(r, 1 / (2 * r))


def _exp(x: Any) -> Any:
    return x.exp()


def npdf(x: Any) -> Any:
    """ϕ(x)."""
    return _exp(-(x * x) / 2) / (2 * arb.pi()).sqrt()


def ncdf(x: Any) -> Any:
    """Φ(x) (as erfc(−x/√2)/2: no cancellation in the left tail)."""
    if isinstance(x, Dual):
        return x.chain(ncdf(x.v), npdf(x.v))
    return (-x / arb(2).sqrt()).erfc() / 2


def sheppard(h: arb, rho: arb) -> arb:
    """J = Φ₂(h, h; ρ) − Φ(h)² = (1/2π)∫₀^{arcsin ρ} e^{−h²/(1 + sin θ)} dθ by Arb's certified
    integral (h and ρ narrow balls)."""
    top = acb(rho).asin()
    square = acb(h * h)

    def integrand(theta: acb, analytic: bool) -> acb:
        return (-square / (1 + theta.sin())).exp()

    tol = arb(2) ** -ctx.prec
    return acb.integral(integrand, 0, top, rel_tol=tol, abs_tol=tol).real / (2 * arb.pi())


def sheppard_slopes(h: arb, s: arb) -> tuple[arb, arb]:
    """(∂_h J, ∂_s J), closed forms (the docstring's)."""
    rho = 1 - s * s
    d_h = 2 * npdf(h) * (ncdf(h * s / (1 + rho).sqrt()) - ncdf(h))
    d_s = -(-(h * h) / (1 + rho)).exp() / (arb.pi() * (1 + rho).sqrt())
    return d_h, d_s


def _moments(m: Any, v: Any, n: int, first: Any = None, density: Any = None) -> list[Any]:
    """[E[W^k·Φ(W)] for k = 0..n], W ~ N(m, v) (the docstring's recursion); with ``first`` and
    ``density`` in place of Φ(m/r) and ϕ(m/r)/r, the same divided by ϕ(m/r)."""
    r = (1 + v).sqrt()
    c = npdf(m / r) / r if density is None else density
    mean, var = m / (1 + v), v / (1 + v)
    normal = [1 + 0 * mean, mean]  # E[V^k], V ~ N(m/r², v/r²)
    for k in range(2, n):
        normal.append(mean * normal[-1] + var * (k - 1) * normal[-2])
    out = [ncdf(m / r) if first is None else first]
    for k in range(1, n + 1):
        out.append(m * out[k - 1] + v * ((k - 1) * (out[k - 2] if k >= 2 else 0) + c * normal[k - 1]))
    return out


def expectations(h: Any, s: Any, sheppard_j: Any) -> tuple[Any, Any]:
    """(E[φ'(X)²], Cov(φ(X), φ''(X))) for X ~ N(b, a²), s = 1/sqrt(1 + a²), h = b·s, given J
    (balls or Duals)."""
    rho = 1 - s * s
    density, tail = npdf(h), ncdf(h)
    c1 = s * density
    e = _moments(h * s, rho, 3)
    c2 = s * _exp(-(h * h) / (1 + rho)) / (2 * arb.pi() * (1 + rho).sqrt())
    m2, v2 = h * s / (1 + rho), rho / (1 + rho)
    slope = tail * tail + sheppard_j + 2 * c1 * e[1] + c2 * (m2 * m2 + v2)
    cov = c1 * (2 * e[1] - e[3]) - (h * tail + rho * density) * density * (2 - h * h * s * s - rho)
    return slope, cov


def _g(slope: Any, cov: Any, ceiling: Fraction) -> Any:
    """G_B = (B − 1)·E[φ'²] + B·Cov(φ, φ''), B the ceiling (G is G_3)."""
    bound = as_arb(ceiling)
    return (bound - 1) * slope + bound * cov


def point_moments(a: Fraction, b: Fraction) -> tuple[arb, arb]:
    """(E[φ'(X)²], Cov(φ(X), φ''(X))) at an exact input scale a > 0 and shift b."""
    s = 1 / (1 + as_arb(a) ** 2).sqrt()
    h = as_arb(b) * s
    return expectations(h, s, sheppard(h, 1 - s * s))


def _ball(low: Fraction, high: Fraction) -> tuple[arb, arb, arb]:
    """(centre c, a ball holding [low, high], a ball holding every x − c): exact for dyadic
    ends, outward otherwise."""
    centre = as_arb((low + high) / 2)
    whole = as_arb(low).union(as_arb(high))
    return centre, whole, whole - centre


def cell_g(h0: Fraction, h1: Fraction, s0: Fraction, s1: Fraction, ceiling: Fraction = CEILING) -> arb:
    """A ball containing G_B over the cell [h0, h1] × [s0, s1] (mean-value form)."""
    hc, hb, dh = _ball(h0, h1)
    sc, sb, ds = _ball(s0, s1)
    j0 = sheppard(hc, 1 - sc * sc)
    centre = _g(*expectations(hc, sc, j0), ceiling)
    jh, js = sheppard_slopes(hb, sb)
    j = Dual(j0 + jh * dh + js * ds, jh, js)
    whole = _g(*expectations(Dual(hb, 1, 0), Dual(sb, 0, 1), j), ceiling)
    return centre + whole.d_h * dh + whole.d_s * ds


def small_scale(h0: Fraction, h1: Fraction, s0: Fraction, s1: Fraction, ceiling: Fraction = CEILING) -> bool:
    """κ < r = 1 − 1/B on the cell by the small-scale bound ρ·E[φ'''²] < r²·s²·E[φ'']²."""
    _, h, _ = _ball(h0, h1)
    _, s, _ = _ball(s0, s1)
    rho = 1 - s * s
    c1 = s * npdf(h)
    c2 = s * (-(h * h) / (1 + rho)).exp() / (2 * arb.pi() * (1 + rho).sqrt())
    m2, v2 = h * s / (1 + rho), rho / (1 + rho)
    normal = [arb(1), m2]
    for k in range(2, 7):
        normal.append(m2 * normal[-1] + v2 * (k - 1) * normal[-2])
    third = c2 * (normal[6] - 8 * normal[4] + 16 * normal[2])
    second = c1 * (2 - h * h * s * s - rho)
    r = 1 - 1 / as_arb(ceiling)
    return bool(rho * third < r * r * s * s * second * second)


Cell = tuple[Fraction, Fraction, Fraction, Fraction]


def shown(cell: Cell, ceiling: Fraction = CEILING) -> bool:
    """The cell [h0, h1] × [s0, s1] is shown: G_B > 0 on it, or the small-scale bound where it
    touches s = 1."""
    with ctx.workprec(PRECISION):
        if cell_g(*cell, ceiling=ceiling) > 0:
            return True
        return cell[3] == 1 and small_scale(*cell, ceiling=ceiling)


def cover(
    cell: Cell, depth: int = MAX_DEPTH, count: list[int] | None = None, ceiling: Fraction = CEILING
) -> list[Cell]:
    """The cells (bisected from ``cell``, the longer side first in units of h and s) not shown
    after ``depth`` bisections; ``count`` (if given) gets the cells tried added to it."""
    if count is not None:
        count[0] += 1
    if shown(cell, ceiling):
        return []
    if depth == 0:
        return [cell]
    h0, h1, s0, s1 = cell
    if h1 - h0 >= s1 - s0:
        hm = (h0 + h1) / 2
        halves = [(h0, hm, s0, s1), (hm, h1, s0, s1)]
    else:
        sm = (s0 + s1) / 2
        halves = [(h0, h1, s0, sm), (h0, h1, sm, s1)]
    return [left for half in halves for left in cover(half, depth - 1, count, ceiling)]


def strip_cells(
    low: Fraction, high: Fraction, s0: Fraction, s1: Fraction, step: Fraction = CORE_STEP
) -> list[Cell]:
    """First cells [h, h + step] × [s0, s1] over low ≤ h ≤ high."""
    out = []
    h = low
    while h < high:
        out.append((h, min(h + step, high), s0, s1))
        h += step
    return out


def core_cells() -> list[Cell]:
    """The first cells of the core LEFT ≤ h ≤ RIGHT, 0 ≤ s ≤ 1."""
    return strip_cells(LEFT, RIGHT, Fraction(0), Fraction(1))


def right_side(start: Fraction = RIGHT) -> bool:
    """G > 0 for every h ≥ ``start`` ≥ 2 and s: 2Φ(start)² > ϕ(start)·P(start)."""
    if start < 2:
        return False
    with ctx.workprec(PRECISION):
        h = as_arb(start)
        poly = ((6 * h + 12) * h + 25) * h + 22
        return bool(2 * ncdf(h) ** 2 > npdf(h) * poly)


def _sups() -> tuple[arb, arb]:
    """M1 = 1 + ϕ(1) ≥ sup|φ'| and M3 = 3^{3/2}·ϕ(√3) + 4ϕ(1) ≥ sup|φ'''| (the largest
    |x|^k·ϕ(x) is k^{k/2}·ϕ(√k))."""
    one = npdf(arb(1))
    return 1 + one, arb(27).sqrt() * npdf(arb(3).sqrt()) + 4 * one


def sign_bound(h: arb, s: arb, ceiling: Fraction = CEILING) -> bool:
    """The far left's sufficient inequality (B − 1)·(9/32)·c₂·m₂² > 2B·a²·M1·M3·Q(z) at h
    (balls h, s with 0 < s < 1 and |h|·s ≥ 4), z = (|h| − 2s)/sqrt(ρ), a² = ρ/s²."""
    if not (-h * s >= 4 and s > 0 and s < 1):
        return False
    rho = 1 - s * s
    bound = as_arb(ceiling)
    c2 = s * (-(h * h) / (1 + rho)).exp() / (2 * arb.pi() * (1 + rho).sqrt())
    m2 = h * s / (1 + rho)
    m1, m3 = _sups()
    tail = ncdf(-(-h - 2 * s) / rho.sqrt())
    return bool((bound - 1) * arb(9) / 32 * c2 * m2 * m2 > 2 * bound * rho / (s * s) * m1 * m3 * tail)


def near_zero_scale(top: Fraction = FAR_TOP, ceiling: Fraction = CEILING) -> bool:
    """The far left's inequality for every h ≤ LEFT and top ≤ s < 1 (top ≥ 1/2, ρ ≤ ρ_ε =
    1 − top²), by monotone bounds at h = LEFT: (B − 1)(9/32)·c₂·m₂² ≥
    (B − 1)(9/32)·top³·(LEFT²/4)·e^{−LEFT²}/(2π·sqrt 2) and 2B·a²·M1·M3·Q(z) ≤
    B·(ρ_ε/top²)·M1·M3·e^{−(|LEFT| − 2)²/(2ρ_ε)} (z ≥ (|LEFT| − 2)/sqrt ρ, Q(z) ≤ e^{−z²/2}/2,
    and ρ·e^{−c/ρ} rises with ρ)."""
    if top < Fraction(1, 2) or top >= 1:
        return False
    with ctx.workprec(PRECISION):
        s, left = as_arb(top), as_arb(-LEFT)
        rho = 1 - s * s
        bound = as_arb(ceiling)
        m1, m3 = _sups()
        low = (bound - 1) * arb(9) / 32 * s**3 * (left * left / 4) * (-(left * left)).exp()
        low = low / (2 * arb.pi() * arb(2).sqrt())
        high = bound * rho / (s * s) * m1 * m3 * (-((left - 2) ** 2) / (2 * rho)).exp()
        return bool(low > high)


def far_frontier(s0: Fraction, s1: Fraction, ceiling: Fraction = CEILING, limit: int = 64) -> Fraction | None:
    """The least integer n ≥ |LEFT| (at most ``limit``) with the far left's inequality at
    h = −n on s0 ≤ s ≤ s1 (so for every h ≤ −n there): −n, or None."""
    with ctx.workprec(PRECISION):
        _, s, _ = _ball(s0, s1)
        for n in range(int(-LEFT), limit + 1):
            if sign_bound(arb(-n), s, ceiling):
                return Fraction(-n)
    return None


def far_left_cells(
    low: Fraction = FAR_LOW, top: Fraction = FAR_TOP, width: Fraction = FAR_WIDTH
) -> list[Cell] | None:
    """The bands between each s-cell's frontier and h = LEFT, low ≤ s ≤ top, as first cells;
    None if a frontier is not found."""
    out: list[Cell] = []
    s = low
    while s < top:
        s1 = min(s + width, top)
        frontier = far_frontier(s, s1)
        if frontier is None:
            return None
        out += strip_cells(frontier, LEFT, s, s1)
        s = s1
    return out


def shown_cells(cells: list[Cell], ceiling: Fraction = CEILING) -> bool:
    """Every cell shown (bisecting as ``cover`` does)."""
    return all(not cover(cell, ceiling=ceiling) for cell in cells)


def far_left() -> bool:
    """G > 0 for h ≤ LEFT and FAR_LOW ≤ s < 1: the sign argument beyond each s-cell's
    frontier, the bands by cells, and FAR_TOP ≤ s < 1 by ``near_zero_scale``."""
    cells = far_left_cells()
    return cells is not None and near_zero_scale() and shown_cells(cells)


def mills(x: arb) -> arb:
    """R(x) = Q(x)/ϕ(x) over a ball x (R falls: the union of its values at the ball's ends)."""

    def at(point: arb) -> arb:
        return (point / arb(2).sqrt()).erfc() / (2 * npdf(point))

    return at(arb(x.lower())).union(at(arb(x.upper())))


def tilted_k(lam: arb, rho: arb, ceiling: Fraction = CEILING) -> arb:
    """K(λ, ρ) = (B − 1)·(2ê₁ + (m₂² + v₂)/r) + B·(2ê₁ − ê₃), ê_n = E[W₁^n·Φ(W₁)]/ϕ(u) with
    m₁ = −λ, v₁ = ρ, r = sqrt(1 + ρ), u = −λ/r (balls)."""
    r = (1 + rho).sqrt()
    e = _moments(-lam, rho, 3, first=mills(lam / r), density=1 / r)
    m2, v2 = -lam / (1 + rho), rho / (1 + rho)
    bound = as_arb(ceiling)
    return (bound - 1) * (2 * e[1] + (m2 * m2 + v2) / r) + bound * (2 * e[1] - e[3])


TiltCell = tuple[Fraction, Fraction, Fraction, Fraction]


def tilted_cover(cell: TiltCell, depth: int = MAX_DEPTH) -> list[TiltCell]:
    """The cells [λ0, λ1] × [ρ0, ρ1] (bisected from ``cell``) where K > 0 is not shown."""
    with ctx.workprec(PRECISION):
        if tilted_k(_ball(cell[0], cell[1])[1], _ball(cell[2], cell[3])[1]) > 0:
            return []
    if depth == 0:
        return [cell]
    l0, l1, r0, r1 = cell
    if l1 - l0 >= 4 * (r1 - r0):
        lm = (l0 + l1) / 2
        halves = [(l0, lm, r0, r1), (lm, l1, r0, r1)]
    else:
        rm = (r0 + r1) / 2
        halves = [(l0, l1, r0, rm), (l0, l1, rm, r1)]
    return [left for half in halves for left in tilted_cover(half, depth - 1)]


def tilted_cells(step: Fraction = Fraction(1, 8)) -> list[TiltCell]:
    """First cells of 0 ≤ λ ≤ TILT_TOP, 1 − FAR_LOW² ≤ ρ ≤ 1."""
    low = 1 - FAR_LOW * FAR_LOW
    out = []
    lam = Fraction(0)
    while lam < TILT_TOP:
        out.append((lam, min(lam + step, TILT_TOP), low, Fraction(1)))
        lam += step
    return out


def tilted_tail(top: Fraction = TILT_TOP) -> bool:
    """K > 0 for λ ≥ top ≥ 1 and 1 − FAR_LOW² ≤ ρ ≤ 1 (B = 3): N(top², ρ) > 0 on the ρ-ball,
    N(L, ρ) = 5L² − 8(1 + ρ)²L − ρ(1 + ρ)²(2ρ − 3)(3ρ + 4) rising in L ≥ 16/5."""
    if top < 2:
        return False
    with ctx.workprec(PRECISION):
        rho = _ball(1 - FAR_LOW * FAR_LOW, Fraction(1))[1]
        square = as_arb(top) ** 2
        n = (
            5 * square * square
            - 8 * (1 + rho) ** 2 * square
            - rho * (1 + rho) ** 2 * (2 * rho - 3) * (3 * rho + 4)
        )
        return bool(n > 0 and 3 + 9 * rho - 10 > 0)  # and A > 0 for λ ≥ 1 (3λ² + 9ρ − 10 ≥ 3 + 9ρ − 10)


def tilted_remainder(ceiling: Fraction = CEILING) -> bool:
    """(B − 1)·Ĵ ≥ B·|T₅| for h ≤ LEFT, s ≤ FAR_LOW: (B − 1)·e^{−1}/H > B·e^{−cH}·(2 + FAR_LOW²·H)
    at H = LEFT² (c = ρ/(1 + ρ) at ρ = 1 − FAR_LOW²; H·e^{−cH}(2 + FAR_LOW²·H) falls for
    H ≥ LEFT²)."""
    with ctx.workprec(PRECISION):
        square = as_arb(LEFT * LEFT)
        rho = as_arb(1 - FAR_LOW * FAR_LOW)
        bound = as_arb(ceiling)
        rate = rho / (1 + rho)
        if not rate * square > 2:  # d/dH log(H·e^{−cH}(2 + qH)) ≤ 2/H − c < 0 from H = LEFT² on
            return False
        left = (bound - 1) * arb(-1).exp() / square
        right = bound * (-rate * square).exp() * (2 + as_arb(FAR_LOW) ** 2 * square)
        return bool(left > right)


def tilted_corner() -> bool:
    """G > 0 for h ≤ LEFT and s ≤ FAR_LOW (a ≥ sqrt(1 − FAR_LOW²)/FAR_LOW): K > 0 by cells
    and ``tilted_tail``, and ``tilted_remainder``."""
    if CEILING != 3:
        return False
    return tilted_tail() and tilted_remainder() and all(not tilted_cover(cell) for cell in tilted_cells())


REGIONS: dict[str, Callable[[], bool]] = {
    "right side h >= 4": right_side,
    "core -8 <= h <= 4": lambda: shown_cells(core_cells()),
    "far left h <= -8, s >= 7/16": far_left,
    "tilted corner h <= -8, s <= 7/16": tilted_corner,
}


def prove() -> bool:
    """The whole proof: True only if every region of the (h, s) strip is shown (C'(1) < CEILING
    wherever Q'(1) = 1, for every input scale a > 0 and shift b)."""
    return all(region() for region in REGIONS.values())


SLICE_CORE: list[Cell] = [
    (Fraction(-3, 2), Fraction(-23, 16), Fraction(27, 32), Fraction(7, 8)),  # around κ's peak
    (Fraction(-1, 2), Fraction(-7, 16), Fraction(0), Fraction(1, 16)),  # the relu edge s = 0
    (Fraction(-13, 16), Fraction(-3, 4), Fraction(15, 16), Fraction(1)),  # G = 0 at (b*, s = 1)
]
SLICE_FAR = (Fraction(5, 8), Fraction(41, 64))  # one s-cell of the far left


def slice_proof() -> bool:
    """A cheap slice of ``prove``: a few cells of the core, one s-cell of the far left (its
    frontier and the band's first cell there), three first cells of K, and every closing
    inequality (``right_side``, ``near_zero_scale``, ``tilted_tail``, ``tilted_remainder``)."""
    if not (right_side() and near_zero_scale() and tilted_tail() and tilted_remainder()):
        return False
    frontier = far_frontier(*SLICE_FAR)
    if frontier is None:
        return False
    cells = SLICE_CORE + strip_cells(frontier, frontier + CORE_STEP, *SLICE_FAR)
    first = tilted_cells()
    return shown_cells(cells) and all(not tilted_cover(cell) for cell in (first[0], first[8], first[-1]))


proof = prove  # the names ``moments.dks_ceilings`` reads
proof_slice = slice_proof
