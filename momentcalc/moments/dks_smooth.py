"""The part y = −b/a ≤ 6 of a proven ceiling over the per-layer C'(1) that deep kernel shaping
can give a smooth relu-like activation (swish, and by the same framework mish and gelu; Martens
et al., 2021, "Rapid training of deep neural networks without skip connections or normalization layers").

This module shows the (input_scale, input_shift) plane except one region, a ≥ 1/4 with
b ≤ −6a (the Gaussian mass left of the kink, into swish's exponential tail), which
``dks_smooth_left`` shows; ``dks_swish`` runs both and is what ``tat`` trusts.

The identity. With f(z) = φ(a·z + b), Z ~ N(0, 1), X = aZ + b, DKS's local maps give
C'(1) = E[f'²]/Var f and, by Stein's lemma, Q'(1) = (E[f'²] + Cov(f, f''))/Var f. Put
κ = −Cov(f, f'')/E[f'²] (scale-free: = −Cov(φ(X), φ''(X))/E[φ'(X)²]). Wherever Q'(1) = 1,
C'(1) = 1/(1 − κ), so C'(1) < B there for every (a, b) as soon as

    G_B = (B − 1)·E[f'²] + B·Cov(f, f'') > 0    for every a > 0 and b.

Relu's part taken out. With y = −b/a (the kink's place in z), t = 1/a and g = relu − φ (for
these activations g is even-like, ≥ 0 and decays exponentially on both sides; g(0) = 0, g' jumps
by 1 at 0 and g'' below means −φ'', the regular part), f = a·F with F = r_y − t·g(X),
r_y(z) = max(z − y, 0), F' = 1{X > 0} − g'(X), F'' = −a·g''(X). For a kernel k put
I[k] = ∫ k(x)·ϕ(y + t·x) dx (so E[k(X)] = t·I[k]); with ϕ, Q the standard normal's density and
tail and m(y) = ϕ(y) − y·Q(y) = E r_y,

    E[F'²]      = Q(y) + t·I[k₁],                          k₁ = −2·1{x > 0}·g' + g'²,
    Cov(F, F'') = t·I[k₂] + (m(y) − t²·I[g])·I[g''],         k₂ = −max(x, 0)·g'' + g·g'',

and G_B/a² = (B − 1)·E[F'²] + B·Cov(F, F''). At t = 0 (input_scale → ∞) I[g''] = −ϕ(y) and
G_B/a² = (B − 1)·Q(y) − B·m(y)·ϕ(y): relu's own condition, whose ratio ϕ·m/Q is at most
0.3554 (at y = −0.48), so B = 3 holds there with room. Every I[k] is continuous in (t, y) down to
t = 0, which is what makes the unbounded direction a → ∞ a compact one in t.

Regions shown (``core_cells`` on ``core_grid`` and ``linear_grid``, ``linear_side``, ``small_scale``):

* The core, 0 ≤ t ≤ T, −YN ≤ y ≤ Y: cells in (t, y), each shown by the better of the cell's
  own ball and the mean-value form G(centre) + ∂_t G(cell)·[−r_t, r_t] + ∂_y G(cell)·[−r_y, r_y].
  At the centre the I[k] are Arb's certified integrals (``acb.integral``) over [−U, 0] and
  [0, U] (the analytic branches of g on each side of its kink). Over the cell, the I[k] and
  ∂_y I[k] = −∫ k·u·ϕ(u) dx, ∂_t I[k] = −∫ k·x·u·ϕ(u) dx (u = y + t·x) are Arb's integrals with
  the cell's balls for t and y when the cell is small (r_t·U + r_y ≤ 1), else the sum over
  x-pieces of width 1/8 of the piece's width times the real-ball hull of the integrand (ϕ over
  a ball of u from the ends of |u|). The tails |x| > U are bounded by the activation's envelopes
  |g|, |g'|, |g''| ≤ p(|x|)·e^{−|x|} (with ϕ ≤ 1/sqrt(2π), |u·ϕ(u)| ≤ ϕ(1)):
  ∫_U^∞ p(x)e^{−x} dx = e^{−U}·Σ_j p^{(j)}(U). Q, m, ϕ enter with Q' = −ϕ, m' = −Q, ϕ' = −y·ϕ.
* The linear side, y ≤ −YN, t ≤ T (the mass where φ is nearly x), in three parts. Write
  A_k = ∫ p_k(|x|)e^{−|x|}dx and A'_k = ∫_0^∞ p_k(x)(e^{−x} + e^{−x/2})dx, with p_k the
  envelopes of k₁, k₂, g, g''
  (products of envelopes: e^{−2|x|} ≤ e^{−|x|}).
  - |y|·t ≤ 1/2: ϕ(y + tx) ≤ ϕ(y) for x ≤ 0 (|y + tx| ≥ |y|) and ≤ ϕ(y)·e^{|y|tx} ≤ ϕ(y)e^{x/2}
    for x > 0, so |I[k]| ≤ ϕ(y)·A'_k and, with t·ϕ(y) ≤ ϕ(y)/(2|y|), m(y)ϕ(y) ≤ (|y| + 1)ϕ(y)
    and Q(y) = Φ(|y|), every term monotone in |y| ≥ YN:
    G_B/a² ≥ (B − 1)(Φ(YN) − ϕ(YN)A'₁/(2YN)) − B(ϕ(YN)A'₂/(2YN) + ((YN + 1)ϕ(YN) +
    ϕ(YN)²A'_g/(4YN²))·A'_{g''}) > 0.
  - |y|·t ≥ 1/2 and b = |y|/t ≥ B₀: for x ≤ b/2, |y + tx| ≥ |y|/2; for x ≥ b/2,
    |k| ≤ p_k(b/2)e^{−b/2} (p(x)e^{−x} falls for x ≥ deg p) and ∫ϕ(y + tx)dx = 1/t. So
    t·|I[k]| ≤ T·ϕ(YN/2)·A_k + p_k(B₀/2)e^{−B₀/2} = E_k, and with 1/t = b/|y| ≤ b/YN,
    m·|I[g'']| ≤ (YN + 1)ϕ(YN/2)A_{g''} + B₀(1 + 1/YN)p_{g''}(B₀/2)e^{−B₀/2} = M
    ((|y| + 1)ϕ(y/2) and b·p(b/2)e^{−b/2} fall for |y| ≥ 2, b/2 ≥ deg p + 1), so
    G_B/a² ≥ (B − 1)(Φ(YN) − E₁) − B(E₂ + M + E_g·E_{g''}) > 0.
  - the rest, |y|·t ≥ 1/2 and b < B₀, lies in YN/B₀ ≤ t ≤ T, −B₀·T ≤ y ≤ −YN: core cells.

* Small input scales, a ≤ 1/T, every b (``small_scale``; swish's derivatives through σ). The
  covariance identity Cov(φ(X), ψ(X)) = a²∫₀¹ E[φ'(X)·ψ'(X_ρ)]dρ ((X, X_ρ) Gaussian with X's
  law and correlation ρ; Houdré and Pérez-Abreu, 1995, "Covariance identities and inequalities
  for functionals on Wiener and Poisson spaces") and Cauchy–Schwarz give
  |Cov(φ, φ'')| ≤ a²·sqrt(E[φ'²]·E[φ'''²]), so κ < r = 1 − 1/B once a²·sqrt(E[φ'''²]) <
  r·sqrt(E[φ'²]); and sqrt(E[φ'²]) ≥ max(|E φ'|, a·|E φ''|) (the first two Hermite
  coefficients of φ'(b + aZ)). With M₃ ≥ sup|φ'''|, M₄ ≥ sup|φ''''| (``swish_sups``: cells on
  [−12, 12], and |φ'''| ≤ (3 + |x|)e^{−|x|}, |φ''''| ≤ (4 + 2|x|)e^{−|x|} beyond) Taylor gives
  E φ' ∈ φ'(b) ± a²M₃/2 and E φ'' ∈ φ''(b) ± a²M₄/2, so it suffices that
  (i) a²M₃(1 + r/2) < r·|φ'(b)| or (ii) a·M₃ + (r/2)a²M₄ < r·|φ''(b)|; both grow with a, so
  a = 1/T is the worst.
  - b ≥ 0: φ' = σ + bσ' ≥ σ ≥ 1/2, (i) at once.
  - b_L ≤ b ≤ 0 (b_L = −4): (i) or (ii) on cells in b of width 1/256 (near b* = −1.2785, where
    φ' = 0, (ii) carries it: φ''(b*) = 0.218).
  - b ≤ b_L: on x ≤ −c (c = 2, where φ' < 0), (φ'''/φ')² ≤ K (cells on [−12, −2]; beyond,
    |φ'''| ≤ σ'(3 + |x|) ≤ σ(3 + |x|) and |φ'| ≥ σ(|x|/2 − 1)), so
    E[φ'''²] ≤ K·E[φ'²] + M₃²·P(X > −c) with P(X > −c) ≤ Q(T(−c − b)); and |φ'| grows with x
    on x ≤ −2.5 (φ'' = σ'(2 + x(1 − 2σ)) < 0 there, as 2.5(1 − 2σ(−2.5)) > 2), so
    E[φ'²] ≥ P(0 ≤ Z ≤ 1)·φ'(b)² ≥ P(0 ≤ Z ≤ 1)·(σ(b)(|b|/2 − 1))². The ratio of the last two
    falls as b decreases (d/d|b| of its log ≤ −16(|b| − c) + 2 < 0, Mills' ratio Q/ϕ ≤ 1/u), so
    a⁴(K + M₃²·Q(T(−c − b))/(P(0 ≤ Z ≤ 1)(σ(b)(|b|/2 − 1))²)) < r², checked at b = b_L, holds
    for all b ≤ b_L.

The cells of the shown regions cost about nine minutes of CPU (the core's 485 s, the linear
side's 43 s), so they run in ``dks_swish.proof`` (tests/test_dks_ceilings.py, under the
reference marker); the default run checks a few cells, the closing inequalities and the small
scales.

Swish (x·σ(x), σ the logistic function; Ramachandran et al., 2017, "Searching for activation
functions"): g = |x|·σ(−|x|) on both sides; σ(−|x|) ≤ e^{−|x|} and σ' = σ(x)σ(−x) ≤ e^{−|x|}
give |g| ≤ |x|e^{−|x|}, |g'| ≤ (1 + |x|)e^{−|x|} (g' = σ(−x) − xσ'(x) for x > 0, −σ − xσ' for
x < 0) and |g''| = σ'·|2 + x(1 − 2σ)| ≤ (2 + |x|)e^{−|x|}.

The region a ≥ 1/4, y ≥ 6 is shown in ``dks_smooth_left`` in the tilted form
E[h(X)] = (ϕ(y)/a)·∫ h(x)·e^{−λx − t²x²/2} dx (λ = y·t = −b/a²), whose integral is monotone in t
and λ on an x-interval where h has one sign: a sign argument for the far left, relu's part for
small λ, cells enclosed by corner integrals for a ≥ 4/5, and a Cauchy–Schwarz bound on cells
for 1/4 ≤ a ≤ 4/5.

Mish (g decays like e^{x} on the left and e^{−2x} on the right) fits the same scheme with its own
envelopes; gelu's g = |x|·Q(|x|) decays like a Gaussian, so its tilted integrals converge for
every λ (no transition at λ = 1, 2) and its expectations have closed forms in Φ, ϕ and
E[Φ(X)²] = Φ(h)² + (1/2π)∫₀^{arcsin ρ} e^{−h²/(1 + sin θ)}dθ (h = b/sqrt(1 + a²),
ρ = a²/(1 + a²)), the route to take for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from flint import acb, arb, ctx

from ..engine.gaussian_balls import as_arb

PRECISION = 96
CEILING = Fraction(3)  # the bound aimed at: C'(1) < 3 wherever Q'(1) = 1
T, Y, YN = Fraction(4), Fraction(6), Fraction(8)  # the core region: 0 ≤ t = 1/a ≤ T, −YN ≤ y ≤ Y
B0 = 20  # the linear side: b = −y/t ≥ B0 by the bound of the docstring, below by cells
U = 30  # the integrals run over [−U, U]; beyond, the envelopes
MIN_CELL = Fraction(1, 1 << 10)

# (g, g', g'') on one side of the kink at 0, as acb functions of x
Branch = Callable[[acb], tuple[acb, acb, acb]]


class SmoothRelu(NamedTuple):
    """What the proof needs of φ: g = relu − φ on each side of 0 (g'' meaning −φ'') and
    polynomials p with |g|, |g'|, |g''| ≤ p(|x|)·e^{−|x|} on the whole line (coefficients from
    the constant term up)."""

    name: str
    left: Branch
    right: Branch
    envelopes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _sigmoid(z: acb) -> acb:
    return (1 + (z / 2).tanh()) / 2


def _swish_parts(z: acb) -> tuple[acb, acb, acb]:
    """φ, φ', φ'' of swish (σ' = sech²(z/2)/4: no overflow of e^{−z})."""
    s = _sigmoid(z)
    h = (z / 2).sech()
    ds = h * h / 4
    return z * s, s + z * ds, ds * (2 + z * (1 - 2 * s))


def _swish_left(z: acb) -> tuple[acb, acb, acb]:
    phi, d1, d2 = _swish_parts(z)
    return -phi, -d1, -d2


def _swish_right(z: acb) -> tuple[acb, acb, acb]:
    phi, d1, d2 = _swish_parts(z)
    return z - phi, 1 - d1, -d2


SWISH = SmoothRelu("swish", _swish_left, _swish_right, ((0, 1), (1, 1), (2, 1)))


def _a(x: Fraction | int) -> arb:
    return as_arb(Fraction(x))


def _poly(coefficients: Sequence[Any], x: Any) -> Any:
    total = 0 * x
    for c in reversed(coefficients):
        total = total * x + c
    return total


def _mul(p: Sequence[int], q: Sequence[int]) -> tuple[int, ...]:
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return tuple(out)


def _add(p: Sequence[int], q: Sequence[int]) -> tuple[int, ...]:
    n = max(len(p), len(q))
    return tuple((p[i] if i < len(p) else 0) + (q[i] if i < len(q) else 0) for i in range(n))


def _tail_integral(p: Sequence[int], start: int) -> arb:
    """∫_start^∞ p(x)·e^{−x} dx = e^{−start}·Σ_j p^{(j)}(start) (p with nonnegative coefficients)."""
    total = arb(0)
    current = list(p)
    while current:
        total += _poly(current, _a(start))
        current = [i * c for i, c in enumerate(current)][1:]
    return (-_a(start)).exp() * total


def _kernel_envelopes(act: SmoothRelu) -> tuple[tuple[int, ...], ...]:
    """Envelopes of |k₁|, |k₂|, |g|, |g''| (times e^{−|x|}; e^{−2|x|} ≤ e^{−|x|} for products)."""
    e0, e1, e2 = act.envelopes
    k1 = _add(_mul((2,), e1), _mul(e1, e1))
    k2 = _add(_mul((0, 1), e2), _mul(e0, e2))
    return k1, k2, e0, e2


KERNELS = 4  # k₁, k₂, g, g''


def _kernels(parts: tuple[acb, acb, acb], z: acb, right: bool) -> tuple[acb, acb, acb, acb]:
    g, g1, g2 = parts
    if right:
        return -2 * g1 + g1 * g1, -z * g2 + g * g2, g, g2
    return g1 * g1, g * g2, g, g2


def _density(u: Any) -> Any:
    return (-(u * u) / 2).exp() / (2 * arb.pi()).sqrt()


def _integrals(act: SmoothRelu, t: arb, y: arb, weight: int) -> list[arb]:
    """[I[k] for k in (k₁, k₂, g, g'')] with weight 0: ϕ(u), 1: −u·ϕ(u) (∂_y), 2: −x·u·ϕ(u) (∂_t),
    u = y + t·x, t and y balls; each with its tail beyond |x| = U."""
    tc, yc = acb(t), acb(y)
    out = [arb(0)] * KERNELS
    for right in (False, True):
        branch = act.right if right else act.left
        for index in range(KERNELS):

            def integrand(z: acb, analytic: bool, index: int = index, right: bool = right) -> acb:
                u = yc + tc * z
                w = _density(u)
                if weight >= 1:
                    w = -u * w
                if weight == 2:
                    w = z * w
                return _kernels(branch(z), z, right)[index] * w

            lo, hi = (0, U) if right else (-U, 0)
            part = acb.integral(integrand, lo, hi, rel_tol=arb(2) ** -40, abs_tol=arb(2) ** -90)
            out[index] += part.real
    for index, tail in enumerate(_tails(act, weight)):
        out[index] += tail
    return out


PIECE = Fraction(1, 8)  # the width of the x-pieces of the box enclosures


def _box_integrals(act: SmoothRelu, t: arb, y: arb) -> tuple[list[arb], list[arb], list[arb]]:
    """The I[k] and their y- and t-derivative integrals (weights as in ``_integrals``) for every
    t and y in the balls: on each x-piece of width PIECE, the piece's width times the hull of
    the integrand over the piece and the balls (real ball arithmetic: no complex boxes, whose
    bounds blow up when the parameters are balls); the tails as in ``_integrals``."""
    outs = ([arb(0)] * KERNELS, [arb(0)] * KERNELS, [arb(0)] * KERNELS)
    width = _a(PIECE)
    steps = int(2 * U / PIECE)
    for j in range(steps):
        low = -U + j * PIECE
        x = arb(_a(low + PIECE / 2), width / 2)
        right = low >= 0
        branch = act.right if right else act.left
        z = acb(x)
        kernels = [k.real for k in _kernels(branch(z), z, right)]
        u = y + t * x
        w0 = _density_hull(u)
        w1 = -u * w0
        w2 = x * w1
        for out, w in zip(outs, (w0, w1, w2)):
            for index in range(KERNELS):
                out[index] += kernels[index] * w * width
    for weight, out in enumerate(outs):
        for index, tail in enumerate(_tails(act, weight)):
            out[index] += tail
    return outs


def _density_hull(u: arb) -> arb:
    """ϕ over a real ball u, from the ends of |u| (ϕ falls in |u|): ``_density`` of a wide ball
    would square it as a ball containing negative values and bound e^{−u²/2} above 1."""
    return _density(arb(u.abs_upper())).union(_density(arb(u.abs_lower())))


def _tails(act: SmoothRelu, weight: int) -> list[arb]:
    """Balls around 0 bounding ∫_{|x| > U} |k|·|weight| for the four kernels: |weight| ≤
    1/sqrt(2π) (ϕ), ϕ(1) (|u|ϕ(u)), ϕ(1)·|x| (the t-derivative)."""
    top = 1 / (2 * arb.pi()).sqrt() if weight == 0 else _density(arb(1))
    tails = []
    for envelope in _kernel_envelopes(act):
        poly = _mul(envelope, (0, 1)) if weight == 2 else envelope
        tails.append(arb(0, (2 * top * _tail_integral(poly, U)).upper()))
    return tails


def _gauss(y: arb) -> tuple[arb, arb, arb]:
    q = (y / arb(2).sqrt()).erfc() / 2
    d = _density(y)
    return q, d, d - y * q


def _form(b: arb, t: arb, q: arb, m: arb, i: Sequence[arb]) -> arb:
    """G_B/a² = (B − 1)(Q + t·I[k₁]) + B(t·I[k₂] + (m − t²·I[g])·I[g''])."""
    return (b - 1) * (q + t * i[0]) + b * (t * i[1] + (m - t * t * i[2]) * i[3])


def _derivatives(
    b: arb, t: arb, y: arb, i: Sequence[arb], di_y: Sequence[arb], di_t: Sequence[arb]
) -> tuple[arb, arb]:
    """∂_t and ∂_y of ``_form`` from the I[k] and their derivatives (Q' = −ϕ, m' = −Q)."""
    q, d, m = _gauss(y)
    lin = lambda k: (b - 1) * k[0] + b * k[1]
    prod_t = (-2 * t * i[2] - t * t * di_t[2]) * i[3] + (m - t * t * i[2]) * di_t[3]
    prod_y = (-q - t * t * di_y[2]) * i[3] + (m - t * t * i[2]) * di_y[3]
    along_t = lin(i) + t * lin(di_t) + b * prod_t
    along_y = (b - 1) * (-d) + t * lin(di_y) + b * prod_y
    return along_t, along_y


def cell_value(
    act: SmoothRelu, bound: Fraction, t0: Fraction, t1: Fraction, y0: Fraction, y1: Fraction
) -> arb:
    """An enclosure of G_B/a² over the cell [t0, t1] × [y0, y1] (a mean-value form)."""
    b = _a(bound)
    tc, yc = _a((t0 + t1) / 2), _a((y0 + y1) / 2)
    rt, ry = _a((t1 - t0) / 2), _a((y1 - y0) / 2)
    q, _, m = _gauss(yc)
    centre = _form(b, tc, q, m, _integrals(act, tc, yc, 0))
    tb, yb = arb(tc, rt), arb(yc, ry)
    if rt * U + ry <= 1:  # complex boxes stay narrow: Arb's integrals, tighter than the hulls
        i, di_y, di_t = (_integrals(act, tb, yb, weight) for weight in range(3))
    else:
        i, di_y, di_t = _box_integrals(act, tb, yb)
    along_t, along_y = _derivatives(b, tb, yb, i, di_y, di_t)
    mean_value = centre + along_t * arb(0, rt) + along_y * arb(0, ry)
    q, _, m = _gauss(yb)
    naive = _form(b, tb, q, m, i)  # the cell's own ball: tighter where G is large and flat
    return mean_value if mean_value.lower() >= naive.lower() else naive


def core_cells(
    act: SmoothRelu, bound: Fraction, cells: list[tuple[Fraction, Fraction, Fraction, Fraction]]
) -> bool:
    """G_B > 0 on every cell (t0, t1, y0, y1), halving those that do not show it."""
    cells = list(cells)
    with ctx.workprec(PRECISION):
        while cells:
            t0, t1, y0, y1 = cells.pop()
            if bool(cell_value(act, bound, t0, t1, y0, y1) > 0):
                continue
            if t1 - t0 <= MIN_CELL:
                return False
            tm, ym = (t0 + t1) / 2, (y0 + y1) / 2
            cells += [(t0, tm, y0, ym), (t0, tm, ym, y1), (tm, t1, y0, ym), (tm, t1, ym, y1)]
    return True


def grid(
    t_range: tuple[Fraction, Fraction], y_range: tuple[Fraction, Fraction], t_step: Fraction, y_step: Fraction
) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """Starting cells covering t_range × y_range (the ends rounded outward to the steps)."""
    t0 = (t_range[0] / t_step).__floor__() * t_step
    y0 = (y_range[0] / y_step).__floor__() * y_step
    rows = -((t0 - t_range[1]) / t_step).__floor__()
    cols = -((y0 - y_range[1]) / y_step).__floor__()
    return [
        (t0 + i * t_step, t0 + (i + 1) * t_step, y0 + j * y_step, y0 + (j + 1) * y_step)
        for i in range(rows)
        for j in range(cols)
    ]


def core_grid(step: Fraction = Fraction(1, 4)) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """The starting cells of the core region 0 ≤ t ≤ T, −YN ≤ y ≤ Y."""
    return grid((Fraction(0), T), (-YN, Y), step, step)


def linear_grid() -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """The starting cells of the bounded piece of the linear side: Y/B₀ ≤ t ≤ T,
    −B₀·T ≤ y ≤ −YN."""
    return grid((YN / B0, T), (-B0 * T, -YN), Fraction(1, 4), Fraction(1))


def _moments(p: Sequence[int], rate: int) -> arb:
    """∫_0^∞ p(x)·e^{−x/rate} dx = Σ c_j·j!·rate^{j+1}."""
    total, factorial = arb(0), 1
    for j, c in enumerate(p):
        factorial *= max(j, 1)
        total += c * factorial * rate ** (j + 1)
    return total


def linear_side(act: SmoothRelu, bound: Fraction) -> bool:
    """G_B > 0 for y ≤ −YN, t ≤ T outside ``linear_grid``'s piece: the two closing inequalities
    of the docstring (|y|·t ≤ 1/2; |y|·t ≥ 1/2 with b ≥ B₀), at y = −YN and b = B₀."""
    with ctx.workprec(PRECISION):
        b = _a(bound)
        y, t_top, far = _a(YN), _a(T), _a(B0)
        envelopes = _kernel_envelopes(act)  # k₁, k₂, g, g''
        if not all(2 * (len(p) - 1) + 2 <= B0 for p in envelopes):  # p(x)e^{−x} and x·p(x)e^{−x} fall
            return False
        whole = [2 * _moments(p, 1) for p in envelopes]
        tilted = [_moments(p, 1) + _moments(p, 2) for p in envelopes]
        q, d, _ = _gauss(-y)
        # |y|·t ≤ 1/2: |I[k]| ≤ ϕ(y)·tilted[k]
        near = (b - 1) * (q - d * tilted[0] / (2 * y)) - b * (
            d * tilted[1] / (2 * y) + ((y + 1) * d + d * d * tilted[2] / (4 * y * y)) * tilted[3]
        )
        # |y|·t ≥ 1/2, b ≥ B₀: t·|I[k]| ≤ T·ϕ(y/2)·whole[k] + p_k(B₀/2)·e^{−B₀/2}
        half = _density(y / 2)
        fall = (-far / 2).exp()
        e = [t_top * half * whole[k] + _poly(envelopes[k], far / 2) * fall for k in range(KERNELS)]
        m_term = (y + 1) * half * whole[3] + far * (1 + 1 / y) * _poly(envelopes[3], far / 2) * fall
        far_side = (b - 1) * (q - e[0]) - b * (e[1] + m_term + e[2] * e[3])
        return bool(near > 0) and bool(far_side > 0)


# The small input scales, a ≤ 1/T (swish's derivatives through σ: v = σ(1 − σ) = σ',
# σ'' = v(1 − 2σ), σ''' = v(1 − 6v), σ'''' = v(1 − 2σ)(1 − 12v)).
SUP_REACH = 12  # sup |φ'''|, |φ''''| by cells on [−SUP_REACH, SUP_REACH], envelopes beyond
LEFT_CUT, B_LEFT = 2, Fraction(-4)  # c and b_L of the docstring


def _swish_jets(x: arb) -> tuple[arb, arb, arb, arb, arb]:
    """φ', φ'', φ''', φ'''' and σ of swish at a real ball (φ⁽ⁿ⁾ = n·σ⁽ⁿ⁻¹⁾ + x·σ⁽ⁿ⁾)."""
    s = (1 + (x / 2).tanh()) / 2
    h = (x / 2).sech()
    v = h * h / 4
    s2, s3 = v * (1 - 2 * s), v * (1 - 6 * v)
    s4 = s2 * (1 - 12 * v)
    return s + x * v, 2 * v + x * s2, 3 * s2 + x * s3, 4 * s3 + x * s4, s


def _cells(low: Fraction, high: Fraction, width: Fraction) -> list[arb]:
    count = int((high - low) / width)
    return [arb(_a(low + (j + Fraction(1, 2)) * width), _a(width / 2)) for j in range(count)]


def swish_sups() -> tuple[arb, arb]:
    """Upper bounds of sup|φ'''| and sup|φ''''| over the line: cells of width 1/64 on
    [−SUP_REACH, SUP_REACH], and beyond |φ'''| ≤ (3 + |x|)e^{−|x|}, |φ''''| ≤ (4 + 2|x|)e^{−|x|}
    (|σ''|, |σ'''| ≤ v, |σ''''| ≤ 2v, v ≤ e^{−|x|}), which fall for |x| ≥ 1."""
    edge = _a(SUP_REACH)
    top3 = (3 + edge) * (-edge).exp()
    top4 = (4 + 2 * edge) * (-edge).exp()
    for x in _cells(Fraction(-SUP_REACH), Fraction(SUP_REACH), Fraction(1, 64)):
        _, _, d3, d4, _ = _swish_jets(x)
        top3 = top3.union(abs(d3))  # a union: a nan or an undecided max cannot drop a value
        top4 = top4.union(abs(d4))
    return arb(top3.upper()), arb(top4.upper())


def small_scale(bound: Fraction) -> bool:
    """C'(1) < bound for every a ≤ 1/T and every b (swish): the three parts of the docstring."""
    with ctx.workprec(PRECISION):
        ratio = 1 - 1 / _a(bound)  # κ must stay below this
        a = 1 / _a(T)
        m3, m4 = swish_sups()
        # b ≥ 0, where φ' ≥ σ ≥ 1/2: (i) with |φ'(b)| ≥ 1/2
        if not bool(a * a * m3 * (1 + ratio / 2) < ratio / 2):
            return False
        # B_LEFT ≤ b ≤ 0: (i) a²M₃(1 + ratio/2) < ratio·|φ'(b)|, or
        # (ii) a·M₃ + (ratio/2)·a²·M₄ < ratio·|φ''(b)|
        for b in _cells(B_LEFT, Fraction(0), Fraction(1, 256)):
            d1, d2, _, _, _ = _swish_jets(b)
            first = a * a * m3 * (1 + ratio / 2) < ratio * abs(d1)
            second = a * m3 + ratio / 2 * a * a * m4 < ratio * abs(d2)
            if not (bool(first) or bool(second)):
                return False
        # b ≤ B_LEFT: K ≥ (φ'''/φ')² on x ≤ −c, by cells on [−SUP_REACH, −c] and beyond by
        # ((3 + |x|)/(|x|/2 − 1))², which falls for |x| > 2
        edge = _a(SUP_REACH)
        beyond = (3 + edge) / (edge / 2 - 1)
        k = beyond * beyond
        for x in _cells(Fraction(-SUP_REACH), Fraction(-LEFT_CUT), Fraction(1, 64)):
            d1, _, d3, _, _ = _swish_jets(x)
            ratio_ball = abs(d3) / abs(d1)
            k = k.union(ratio_ball * ratio_ball)
        b = _a(B_LEFT)
        s = _swish_jets(b)[4]
        # E φ'² ≥ P(0 ≤ Z ≤ 1)·φ'(b)² ≥ P(0 ≤ Z ≤ 1)·(σ(b)·(|b|/2 − 1))²
        slope = s * (-b / 2 - 1)
        low = ((1 / arb(2).sqrt()).erf() / 2) * slope * slope
        w = _a(T) * (-_a(LEFT_CUT) - b)  # (−c − b)/a ≥ T·(−c − b)
        mass = (w / arb(2).sqrt()).erfc() / 2  # P(X > −c)
        return bool(a**4 * (k + m3 * m3 * mass / low) < ratio * ratio)


__all__ = [
    "CEILING",
    "SWISH",
    "SmoothRelu",
    "cell_value",
    "core_cells",
    "core_grid",
    "linear_grid",
    "linear_side",
    "small_scale",
    "swish_sups",
]
