"""A proven floor under the per-layer C'(1) that deep kernel shaping can give a clipped linear
activation (hardtanh, relu6, hard_sigmoid: φ = α·clip(x, k₁, k₂) + β; Martens et al., 2021,
"Rapid training of deep neural networks without skip connections or normalization layers").

With X = a·Z + b the window is l = (k₁ − b)/a < u = (k₂ − b)/a and φ(X) = α·a·Y + const,
Y = clip(Z, l, u), so (Φ, Q = 1 − Φ, ϕ the standard normal's cdf, tail and density)

    P = Φ(u) − Φ(l),   m = E[Y] = l·Φ(l) + ϕ(l) − ϕ(u) + u·Q(u),
    v = Var Y = l²Φ(l) + P + l·ϕ(l) − u·ϕ(u) + u²Q(u) − m²,
    C'(1) = a²E[φ'(X)²]/Var φ(X) = P/v,
    Q'(1) = d log sd φ(X) / d log a = 1 − (l·∂_l v + u·∂_u v)/(2v),
    ∂_l v = 2Φ(l)(l − m) < 0,  ∂_u v = 2Q(u)(u − m) > 0.

Q'(1) = 1 asks l·Φ(l)(l − m) + u·Q(u)(u − m) = 0; for l < 0 < u (or one of them 0) both terms
are ≥ 0 and one is > 0, so the window lies on one side of 0: 0 < l < u, or l < u < 0, which
Z → −Z maps to 0 < −u < −l with the same P and v. ``floor_proven`` shows P/v > FLOOR on all
of 0 ≤ l < u:

* l ≥ 7/4: v ≤ E[(Y − l)²] = ∫₀^w 2s·Q(l + s) ds (w = u − l) ≤ (2/l)∫₀^w s·ϕ(l + s) ds, as
  Q(y) ≤ ϕ(y)/y; the mean of s under the density ∝ ϕ(l + s) on [0, w] is at most 1/l (that
  density is e^(−ls) times a decreasing factor), so v ≤ 2P/l² and P/v ≥ l²/2 ≥ 49/32;
* u ≥ 8: P ≥ Q(l) − Q(8) and v ≤ v(l, ∞) (v grows with u), on cells in l (P falls, v falls
  with l: their ends bound them);
* else, on cells [l₀, l₁] × [u₀, u₁], halved until one bound holds: P/v ≥ P(l₁, u₀)/v(l₀, u₁)
  when l₁ < u₀ (the monotonicities above), and P/v ≥ ϕ(u₁)/(Q(l₀)·(u₁ − l₀)) always
  (P ≥ w·ϕ(u), v ≤ E[(Y − l)²] ≤ Q(l)·w²).

Every value is an Arb ball at exact dyadic points. The infimum itself appears to be relu's
π/(π − 1) = 1.4669… (window [0, ∞): input_scale → 0 with the input at a kink); FLOOR is below
it so that the cells stay few.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from flint import arb, ctx

from ..catalog import Activation
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..engine.gaussian_balls import as_arb
from .dks import catalog_entry

FLOOR = Fraction(73, 50)
FAR_L = Fraction(7, 4)  # from here on, P/v ≥ l²/2 ≥ 49/32
FAR_U = 8
MIN_CELL = Fraction(1, 4096)
PRECISION = 96


def clipped(act: Activation) -> bool:
    """φ = α·clip(x, k₁, k₂) + β (α ≠ 0, k₁ < k₂): a catalog piecewise polynomial with two
    kinks, constant outside them and of degree 1 between (hardtanh, relu6, hard_sigmoid)."""
    entry = catalog_entry(act)
    if (
        entry is None
        or entry.name not in EXP_POLYNOMIALS
        or len(tuple(BALL_FUNCTIONS[entry.name].kinks)) != 2
    ):
        return False
    given = dict(entry.values)
    with ctx.workprec(64):
        params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in entry.params}
        pieces, _ = EXP_POLYNOMIALS[entry.name](params)
    if len(pieces) != 3 or any(as_arb(term.rate) != 0 for piece in pieces for term in piece):
        return False
    outer = all(term.power == 0 for piece in (pieces[0], pieces[2]) for term in piece)
    middle = {term.power for term in pieces[1] if as_arb(term.c) != 0}
    return outer and 1 in middle and middle <= {0, 1}


def _tail(x: arb) -> arb:
    return (x / arb(2).sqrt()).erfc() / 2


def _density(x: arb) -> arb:
    return (-x * x / 2).exp() / (2 * arb.pi()).sqrt()


def _window(l: Fraction, u: Fraction | None) -> tuple[arb, arb]:
    """(P, v) of Y = clip(Z, l, u); u None is ∞."""
    lo = as_arb(l)
    below = 1 - _tail(lo)
    if u is None:
        p = _tail(lo)
        m = lo * below + _density(lo)
        s2 = lo * lo * below + p + lo * _density(lo)
    else:
        hi = as_arb(u)
        p = _tail(lo) - _tail(hi)
        m = lo * below + _density(lo) - _density(hi) + hi * _tail(hi)
        s2 = lo * lo * below + p + lo * _density(lo) - hi * _density(hi) + hi * hi * _tail(hi)
    return p, s2 - m * m


def _above(x: arb) -> bool:
    return bool(x > as_arb(FLOOR))


@functools.cache
def floor_proven() -> bool:
    """Whether P/v > FLOOR on 0 ≤ l < u is shown by the cells of the module docstring."""
    with ctx.workprec(PRECISION):
        # u ≥ FAR_U, l in [0, FAR_L]
        cells = [(Fraction(i, 8), Fraction(i + 1, 8)) for i in range(int(FAR_L * 8))]
        far = _tail(as_arb(FAR_U))
        while cells:
            l0, l1 = cells.pop()
            p, _ = _window(l1, None)
            _, v = _window(l0, None)
            if _above((p - far) / v):
                continue
            if l1 - l0 <= MIN_CELL:
                return False
            mid = (l0 + l1) / 2
            cells += [(l0, mid), (mid, l1)]
        # l in [0, FAR_L], u in (l, FAR_U]
        step = Fraction(1, 4)
        boxes = [
            (Fraction(i) * step, Fraction(i + 1) * step, Fraction(j) * step, Fraction(j + 1) * step)
            for i in range(int(FAR_L / step))
            for j in range(int(FAR_U / step))
            if (j + 1) > i
        ]
        while boxes:
            l0, l1, u0, u1 = boxes.pop()
            if u1 <= l0:
                continue
            if l1 < u0:
                p, _ = _window(l1, u0)
                _, v = _window(l0, u1)
                if _above(p / v):
                    continue
            if _above(_density(as_arb(u1)) / (_tail(as_arb(l0)) * as_arb(u1 - l0))):
                continue
            if l1 - l0 <= MIN_CELL:
                return False
            lm, um = (l0 + l1) / 2, (u0 + u1) / 2
            boxes += [(l0, lm, u0, um), (l0, lm, um, u1), (lm, l1, u0, um), (lm, l1, um, u1)]
    return True


__all__ = ["FLOOR", "clipped", "floor_proven"]
