"""A proven ceiling over the per-layer C'(1) that deep kernel shaping can give a convex
activation made of relus (softplus, elu, celu; log_sigmoid = −softplus(−x) by symmetry;
Martens et al., 2021, "Rapid training of deep neural networks without skip connections or
normalization layers").

With f(z) = φ(a·z + b) and Z ~ N(0, 1), DKS's local C'(1) = E[f'²]/Var f and
Q'(1) = E[Z·(f − E f)·f']/Var f; by Stein's lemma their difference is
C'(1) − (Q'(1) − 1) = R = 1 − Cov(f, f'')/Var f, so wherever Q'(1) = 1, C'(1) = R. When φ'' ≥ 0
(a measure), φ'(−∞) = 0 and φ(−∞) is finite, f = f(−∞) + ∫ r_κ dμ(κ) with r_κ(z) = max(z − κ, 0)
and μ = f'' ≥ 0 finite, so for any B

    2·((B − 1)·Var f + Cov(f, f'')) = ∫∫ M(x, y) dμ(x) dμ(y),
    M(x, y) = 2(B − 1)·Cov(r_x, r_y) + Cov(r_x, δ_y) + Cov(r_y, δ_x),

and R < B wherever M > 0. With ϕ, Φ, Q = 1 − Φ the standard normal's density, cdf and tail,
m(y) = E r_y = ϕ(y) − y·Q(y), s(y)² = Var r_y = (1 + y²)·Q(y) − y·ϕ(y) − m(y)², G(u) = u·Φ(u) + ϕ(u)
(G' = Φ) and I = G(y) − G(x), for x ≤ y: Cov(r_x, r_y) = I·m(y) + s(y)² (Hoeffding's formula
∫∫ (Φ(min(u, v)) − Φ(u)Φ(v)) du dv over u > x, v > y), Cov(r_x, δ_y) = ϕ(y)·(y − x − m(x)) and
y − x − m(x) = I − m(y), Cov(r_y, δ_x) = −ϕ(x)·m(y), so

    M(x, y) = I·(2(B − 1)·m(y) + ϕ(y)) + 2(B − 1)·s(y)² − m(y)·ϕ(y) − m(y)·ϕ(x).

∂M/∂x = −(2(B − 1)·m(y) + ϕ(y))·Φ(x) + m(y)·x·ϕ(x) < 0 for B − 1 > max x·ϕ(x) = 1/sqrt(2πe)
(x ≤ 0: both terms ≤ 0; x > 0: Φ(x) > 1/2), so M(x, y) ≥ M(y, y) = 2((B − 1)·s(y)² − ϕ(y)·m(y)):
R < B for every (a, b) as soon as ρ(y) = ϕ(y)·m(y)/s(y)² < B − 1 for every y (1 + ρ(y) is relu's
own R with its kink at y; its largest value, 1.4691…, sits near y = −0.113; relu's C'(1) on the
curve, kink at y = 0, is π/(π − 1) = 1.4669…, approached by these activations as input_scale → ∞).
R does not change under f → −f or z → −z, so log_sigmoid(a·z + b) = −softplus(−a·z − b) has
softplus's R at (a, −b). ``ceiling`` bounds ρ:

* y ≥ 4: s² ≥ m²·(1 − Q)/Q (Cauchy–Schwarz: m² ≤ Q·E r_y²), m(y) = ∫_y^∞ Q ≥ Q(y + 1),
  Q(y) ≤ ϕ(y)/y and Gordon's Q(x) ≥ ϕ(x)·x/(x² + 1), so
  ρ ≤ 2ϕ(y)·e^(y + 1/2)·((y + 1)² + 1)/(y·(y + 1)), decreasing for y ≥ 1;
* y ≤ −4: m(y) = |y| + m(|y|) ≤ |y| + ϕ(0) and s² ≥ s(0)² (s² falls: (s²)' = −2m·Φ), so
  ρ ≤ ϕ(y)·(|y| + ϕ(0))/s(0)², decreasing in |y| ≥ 1;
* between, on cells halved until the mean-value form ρ(c) + ρ'(cell)·[−w, w] (or the cell's own
  ball) is below the bound: Arb balls throughout.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from flint import arb, ctx

from ..catalog import Activation
from ..engine.gaussian_balls import as_arb
from .dks import catalog_entry

PRECISION = 96
FAR = 4  # |y| beyond this: the tail bounds of the docstring
START_CELLS = 64
MIN_WIDTH = Fraction(1, 1 << 24)
TOLERANCE = Fraction(1, 200000)  # the ceiling found is within this of the largest ρ
DIGITS = 5  # the ceiling printed: 1 + sup ρ rounded up to this many digits


def convex_relu_mixture(act: Activation) -> int:
    """1 when φ (a catalog entry or its formula) is a convex mixture of relus (φ'' ≥ 0,
    φ'(−∞) = 0, φ(−∞) finite: softplus, elu, celu), −1 when −φ(−x) is (log_sigmoid), else 0:
    the catalog's declaration (``Activation.relu_mixture``)."""
    entry = catalog_entry(act)
    return 0 if entry is None or entry.expression else entry.relu_mixture


def _tail(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def _density(x: arb) -> arb:
    return (-x * x / 2).exp() / (2 * arb.pi()).sqrt()


def _rho(y: arb) -> tuple[arb, arb]:
    """ρ(y) = ϕ·m/s² and its derivative ρ' = (ϕ'·m·s² + ϕ·m'·s² − ϕ·m·(s²)')/s⁴ with ϕ' = −y·ϕ,
    m' = −Q, (s²)' = −2m·Φ."""
    q = _tail(y)
    d = _density(y)
    m = d - y * q
    s2 = (1 + y * y) * q - y * d - m * m
    rho = d * m / s2
    slope = (-y * d * m * s2 - d * q * s2 + d * m * 2 * m * (1 - q)) / (s2 * s2)
    return rho, slope


def _upper(y0: Fraction, y1: Fraction) -> arb:
    """A ball containing ρ over [y0, y1]: the smaller upper end of the naive ball and of the
    mean-value form around the midpoint."""
    mid = (y0 + y1) / 2
    half = (y1 - y0) / 2
    whole = arb(as_arb(mid), as_arb(half))
    rho_cell, slope_cell = _rho(whole)
    rho_mid, _ = _rho(as_arb(mid))
    centred = rho_mid + slope_cell * arb(0, as_arb(half))
    return arb(min(rho_cell.upper(), centred.upper()))


def _far_bounds() -> arb:
    """The larger of the two tail bounds of the docstring at |y| = FAR (each decreasing beyond)."""
    y = as_arb(FAR)
    upper = 2 * _density(y) * (y + arb(1) / 2).exp() * ((y + 1) ** 2 + 1) / (y * (y + 1))
    s0 = arb(1) / 2 - 1 / (2 * arb.pi())  # s(0)² = Q(0) − ϕ(0)²
    lower = _density(y) * (y + _density(arb(0))) / s0
    if not (upper.is_finite() and lower.is_finite()):  # max() would drop a NaN: no bound then
        return arb("nan")
    return arb(max(upper.upper(), lower.upper()))


@functools.cache
def ceiling() -> Fraction | None:
    """B with R < B everywhere (so C'(1) < B wherever Q'(1) = 1), a decimal of DIGITS digits
    just above 1 + sup ρ; None when the cells do not show it."""
    with ctx.workprec(PRECISION):
        width = Fraction(2 * FAR, START_CELLS)
        cells = [(-FAR + i * width, -FAR + (i + 1) * width) for i in range(START_CELLS)]
        best = max(_rho(as_arb((y0 + y1) / 2))[0].lower() for y0, y1 in cells)  # a value attained
        best = arb(best)
        limit = best + as_arb(TOLERANCE)
        top = _far_bounds()
        if not bool(top < limit):
            return None
        while cells:
            y0, y1 = cells.pop()
            up = _upper(y0, y1)
            if bool(up < limit):
                continue
            if y1 - y0 <= MIN_WIDTH:
                return None
            mid = (y0 + y1) / 2
            below = _rho(as_arb(mid))[0]
            if bool(below > best):
                best = arb(below.lower())
                limit = best + as_arb(TOLERANCE)
            cells += [(y0, mid), (mid, y1)]
        # sup ρ < limit: the ceiling is 1 + limit rounded up
        # the monotonicity in x above needs B − 1 > 1/sqrt(2πe)
        if not bool(limit > 1 / (2 * arb.pi() * arb(1).exp()).sqrt()):
            return None
        mantissa, exponent = (int(v) for v in (1 + limit).upper().mid().man_exp())
    exact = Fraction(mantissa) * Fraction(2) ** exponent
    scale = 10 ** (DIGITS - 1)
    return Fraction(-((-exact * scale).__floor__()), scale)


__all__ = ["DIGITS", "ceiling", "convex_relu_mixture"]
