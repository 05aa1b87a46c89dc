"""A proven ceiling over the per-layer C'(1) that deep kernel shaping can give an exponential
linear unit whose slope drops at its kink (selu: Klambauer et al., 2017, "Self-normalizing
neural networks"; Martens et al., 2021, "Rapid training of deep neural networks without skip
connections or normalization layers").

φ = c·(e^x − 1) below 0 and d·x above, c > d > 0; up to the scale d (which leaves C'(1) alone)
φ(x) = x above 0 and α(e^x − 1) below, α = c/d, here 1 < α < 2. It is not convex (φ' drops from
α to 1 at 0), so ``dks_convex`` does not apply. With f(z) = φ(a(z − y)) (input_scale a, the kink at
y = −input_shift/a), Z ~ N(0, 1) and t = 1/a, Stein's lemma gives C'(1) − Q'(1) + 1 =
R = 1 − Cov(f, f'')/Var f, so wherever Q'(1) = 1, C'(1) = R. Write ϕ, Φ, Q for the standard normal's
density, cdf and tail, P = Φ(y), m = ϕ − yQ, s² = (1 + y²)Q − yϕ − m², Mi = Q/ϕ (Mills' ratio),
e₁ = e^{(Z−y)/t}·1{Z<y}, k = 1{Z<y} − e₁, L₁ = E e₁ = ϕ(y)Mi(a − y), L₂ = E e₁² = ϕ(y)Mi(2a − y),
W = a·L₁. Then, with N = −Cov(f, f'')/a² and D = Var f/a²,

    N = α·m·W − (α − 1)·m·ϕ + α²·(Q·L₁ − Var e₁) + α(α − 1)·ϕ·t·E k,
    D = s² + 2α·m·t·E k + α²·t²·Var k,    E k = P − L₁,  Var k = PQ − 2Q·L₁ + Var e₁,

and R < B ⇔ F = (B − 1)·D − N > 0. As a → ∞, F → (B − 1)s² − mϕ: relu's own condition (R's
supremum appears to be relu's 1.4691…, approached as a → ∞; CEILING, a chosen round bound just above
it, keeps the proof's cells few). ``prove`` shows F > 0 on four regions covering every (a, y):

* y ≤ −2: W ≤ ϕ(y) (W averages ϕ below y), Q·L₁ − Var e₁ ≤ P, t·E k ≤ m(−y) ≤ ϕ/(y² + 1) and
  D ≥ s(−2)² (s² falls), so R − 1 ≤ [(|y| + ϕ)ϕ + α²Φ(y) + α(α − 1)ϕ²/(y² + 1)]/s(−2)², largest at
  y = −2.
* a ≤ 1/8, −2 ≤ y ≤ 6: Q·L₁ − Var e₁ = Q·E k − Var k ≤ a·Q·E g with g = t·k, E g ≤ m(−y), L₁ ≤ P,
  and Var g ≥ (E g')² = L₁² ≥ P²e^{−2a·m(−y)/P} (Stein, then Jensen), so
  N ≤ a(αmP + α²Q·m(−y)) + (α − 1)ϕ(α·m(−y) − m) and D ≥ s² + α²P²e^{−2a·m(−y)/P}: the first
  grows with a and the second falls, so a = 1/8 is the worst, shown on cells in y.
* y ≥ 6 (m ≤ ϕ/(y² + 1) and Q ≤ ϕ/y by Gordon's inequality y/(y² + 1) ≤ Mi(y) ≤ 1/y, y > 0: Gordon,
  1941, "Values of Mills' ratio of area to bounding ordinate..."; L₁ ≤ P, E k ≤ 1), three cases. In each,
  a closing inequality is checked at y = 6: a polynomial in y against a factor e^{cy²}, so the
  margin only grows beyond 6.
  - a ≤ y/4: N ≤ ϕ[α(1/(4y) + α/y) + α(α − 1)(y + ϕ/(y² + 1))], and
    D ≥ α²L₁² ≥ α²·sqrt(2π)·ϕ·e^{y²/16}·Φ(3y/4)², since L₁ = e^{−ay+a²/2}Φ(y − a) and the
    exponent falls on [0, y].
  - 3/2 ≤ a ≤ y/2: L₂ − L₁² ≥ e^{−2ay+2a²}(1/2 − e^{−a²}) ≥ sqrt(2π)·ϕ·(1/2 − e^{−9/4}), against
    α(α − 1)ϕ/a + α(a·m + αQ) ≤ ϕ[α(α − 1)·2/3 + α(1/(2y) + α/y)].
  - a ≥ y/2: L₂ ≥ ϕ·Mi(2a) ≥ ϕ·2a/(4a² + 1), so α²L₂ − α(α − 1)ϕ/a ≥ (αϕ/a)·c₃ with
    c₃ = α·18/37 − (α − 1) > 0 (α < 37/19; checked). With Mi(a − y) ≤ Mi(−y/2) ≤ sqrt(2π)·e^{y²/8}
    and a·Mi(a − y) ≤ K = y·sqrt(2π)·e^{y²/8} (which holds once K > 1 + Mi(0)·y, checked), what remains is at
    most α·ρ(y)·K·s² + (αϕ/a)·α·ϕ·K·(sqrt(2π)·e^{y²/8} + 1/y). Here ρ = ϕm/s² is bounded as in
    ``dks_convex``'s y ≥ 4 tail.
* a ≥ 1/8, −2 ≤ y ≤ 6: cells in (t, y), t ≤ 8, each shown by a mean-value form
  F(centre) + ∂_tF(cell)·[−r_t, r_t] + ∂_yF(cell)·[−r_y, r_y]. The derivatives come from Arb power
  series, with m' = −Q and (s²)' = −2mΦ as jets. Where x = 1/t − y ≥ 1, Mi enters through
  h(x) = x·Mi(x): it increases and x²/(x² + 1) ≤ h ≤ 1 (both by Gordon's inequality), so
  ω = W/ϕ = h(x)/(1 − t·y) and L₂ = t·ϕ·h(x₂)/(2 − t·y) (x₂ = 2/t − y), with h a ball over the cell.
  This holds down to t = 0, where no e^{a²/2} is formed. Elsewhere Mi = sqrt(π/2)e^{x²/2}·erfc(x/sqrt 2)
  directly (x ≥ −6 there).

The cells cost about a minute of CPU, so a call does not run them: ``CEILING`` is trusted at
run time, and ``tests/test_tat_selu.py`` runs the whole proof (marked reference) and one cheap cell
batch in the default run.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb, arb_series, ctx

from ..catalog import Activation
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..engine.gaussian_balls import as_arb
from .dks import catalog_entry

CEILING = Fraction(147, 100)  # a chosen bound: C'(1) < CEILING wherever Q'(1) = 1
PRECISION = 96
LEFT, RIGHT = -2, 6  # y outside [LEFT, RIGHT]: the tail bounds of the docstring
SMALL = Fraction(1, 8)  # a ≤ SMALL: the small-scale bound of the docstring
MIN_CELL = Fraction(1, 1 << 12)
BIG = 512  # h(x) from Gordon's bounds alone beyond this x


def drop_alpha(act: Activation) -> arb | None:
    """α = c/d (a ball) when φ (a catalog entry or its formula) is c·(e^x − 1) below 0 and d·x
    above with 1 < c/d < 2 (selu); None otherwise."""
    entry = catalog_entry(act)
    if entry is None or entry.name not in EXP_POLYNOMIALS or tuple(BALL_FUNCTIONS[entry.name].kinks) != (0,):
        return None
    given = dict(entry.values)
    with ctx.workprec(PRECISION):
        params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in entry.params}
        pieces, _ = EXP_POLYNOMIALS[entry.name](params)
        if len(pieces) != 2 or len(pieces[0]) != 2 or len(pieces[1]) != 1:
            return None
        grow, flat = sorted(pieces[0], key=lambda term: -as_arb(term.rate).mid())
        line = pieces[1][0]
        if (grow.power, flat.power, line.power) != (0, 0, 1):
            return None
        c, d = as_arb(grow.c), as_arb(line.c)
        if not (
            as_arb(grow.rate) == 1
            and as_arb(flat.rate) == 0
            and as_arb(line.rate) == 0
            and (as_arb(flat.c) + c).contains(0)  # the same ball, computed twice
            and bool(d > 0)
        ):
            return None
        alpha = c / d
        return alpha if bool(alpha > 1) and bool(alpha < 2) else None


def _a(x: Fraction | int) -> arb:
    return as_arb(Fraction(x))


def _hull(lo: arb, hi: arb) -> arb:
    return arb(lo).union(arb(hi))


def _tail(x: Any) -> Any:
    return (x * (1 / arb(2).sqrt())).erfc() / 2


def _density(x: Any) -> Any:
    return (-(x * x) / 2).exp() * (1 / (2 * arb.pi()).sqrt())


def _mills(x: Any) -> Any:
    return (arb.pi() / 2).sqrt() * (x * x / 2).exp() * (x * (1 / arb(2).sqrt())).erfc()


def _h_range(x_lo: Fraction, x_hi: Fraction | None) -> arb:
    """x·Mi(x) over [x_lo, x_hi] (0 < x_lo; None: ∞): increasing, in [x²/(x² + 1), 1]."""
    lo = _a(x_lo) ** 2 / (_a(x_lo) ** 2 + 1) if x_lo >= BIG else _a(x_lo) * _mills(_a(x_lo))
    hi = arb(1) if x_hi is None or x_hi >= BIG else _a(x_hi) * _mills(_a(x_hi))
    return _hull(arb(lo.lower()), arb(hi.upper()))


def _y_functions(y: Any) -> tuple[Any, Any, Any, Any]:
    q, d = _tail(y), _density(y)
    m = d - y * q
    return q, d, m, (1 + y * y) * q - y * d - m * m


Four = tuple[Any, Any, Any, Any]


def _jets(c: arb, r: arb) -> tuple[Four, Four, Four]:
    """(Q, ϕ, m, s²) at c; their enclosures on [c − r, c + r] (mean-value forms from the exact
    derivatives m' = −Q, (s²)' = −2mΦ); and their derivatives there."""
    at = _y_functions(c)
    box_y = arb(c, r)
    w = arb(0, r)
    q = _tail(box_y)
    d = _density(box_y)
    m = at[2] - q * w
    s2 = at[3] - 2 * m * (1 - q) * w
    return at, (q, d, m, s2), (-d, -box_y * d, -q, -2 * m * (1 - q))


def _form(alpha: arb, b1: arb, y: Any, t: Any, q: Any, d: Any, m: Any, s2: Any, pieces: Any) -> Any:
    """F = (B − 1)·D − N of the docstring, ``pieces(y, t, ϕ)`` giving (ω = W/ϕ, L₂)."""
    p = 1 - q
    omega, l2 = pieces(y, t, d)
    w = d * omega
    l1 = w * t
    ek = p - l1
    eg = ek * t
    var_e = l2 - l1 * l1
    var_g = (p * q - 2 * q * l1 + var_e) * (t * t)
    n = alpha * m * w - (alpha - 1) * m * d + alpha**2 * (q * l1 - var_e) + alpha * (alpha - 1) * d * eg
    return b1 * (s2 + 2 * alpha * m * eg + alpha**2 * var_g) - n


def _gordon(h1: arb, h2: arb) -> Any:
    return lambda y, t, d: (h1 / (1 - t * y), d * t * h2 / (2 - t * y))


def _direct(y: Any, t: Any, d: Any) -> Any:
    return _mills(1 / t - y) / t, d * _mills(2 / t - y)


def _series(value: arb, slope: Any) -> arb_series:
    return arb_series([value, slope], prec=2)


def _cell(alpha: arb, b1: arb, t0: Fraction, t1: Fraction, y0: Fraction, y1: Fraction) -> arb | None:
    """An enclosure of F over the cell; None when the cell touches t = 0 with x < 1 in it."""
    if 1 / t1 - y1 >= 1:
        x_hi = None if t0 == 0 else 1 / t0 - y0
        x2_hi = None if t0 == 0 else 2 / t0 - y0
        pieces = _gordon(_h_range(1 / t1 - y1, x_hi), _h_range(2 / t1 - y1, x2_hi))
    elif t0 == 0:
        return None
    else:
        pieces = _direct
    tc, yc = _a((t0 + t1) / 2), _a((y0 + y1) / 2)
    rt, ry = _a((t1 - t0) / 2), _a((y1 - y0) / 2)
    t_box, y_box = arb(tc, rt), arb(yc, ry)
    at, box, slopes = _jets(yc, ry)
    centre = _form(alpha, b1, yc, tc, *at, pieces)
    along_t = _form(alpha, b1, y_box, _series(t_box, 1), *box, pieces).coeffs()
    q, d, m, s2 = (_series(v, s) for v, s in zip(box, slopes))
    along_y = _form(alpha, b1, _series(y_box, 1), t_box, q, d, m, s2, pieces).coeffs()
    dt = along_t[1] if len(along_t) > 1 else arb(0)
    dy = along_y[1] if len(along_y) > 1 else arb(0)
    return centre + dt * arb(0, rt) + dy * arb(0, ry)


def cells_hold(alpha: arb, b1: arb, cells: list[tuple[Fraction, Fraction, Fraction, Fraction]]) -> bool:
    """F > 0 on every cell (t0, t1, y0, y1), halving those that do not show it."""
    cells = list(cells)
    while cells:
        t0, t1, y0, y1 = cells.pop()
        value = _cell(alpha, b1, t0, t1, y0, y1)
        if value is not None and bool(value > 0):
            continue
        if t1 - t0 <= MIN_CELL:
            return False
        tm, ym = (t0 + t1) / 2, (y0 + y1) / 2
        if value is None:
            cells += [(t0, tm, y0, y1), (tm, t1, y0, y1)]
        else:
            cells += [(t0, tm, y0, ym), (t0, tm, ym, y1), (tm, t1, y0, ym), (tm, t1, ym, y1)]
    return True


def grid(step: Fraction = Fraction(1, 4)) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """The starting cells of the region a ≥ SMALL, LEFT ≤ y ≤ RIGHT (t = 1/a ≤ 1/SMALL)."""
    rows = int(1 / SMALL / step)
    cols = int((RIGHT - LEFT) / step)
    return [
        (i * step, (i + 1) * step, LEFT + j * step, LEFT + (j + 1) * step)
        for i in range(rows)
        for j in range(cols)
    ]


def left_tail(alpha: arb, b1: arb) -> bool:
    """The y ≤ LEFT bound of the docstring below B − 1, at y = LEFT (its largest value)."""
    y = _a(LEFT)
    q, d, _, s2 = _y_functions(y)
    bound = ((-y + d) * d + alpha**2 * (1 - q) + alpha * (alpha - 1) * d * d / (y * y + 1)) / s2
    return bool(bound < b1)


def right_tail(alpha: arb, b1: arb) -> bool:
    """The three y ≥ RIGHT cases of the docstring, each closing inequality at y = RIGHT."""
    y = _a(RIGHT)
    d = _density(y)
    root = (2 * arb.pi()).sqrt()
    # a ≤ y/4
    n1 = alpha * (1 / (4 * y) + alpha / y) + alpha * (alpha - 1) * (y + d / (y * y + 1))
    d1 = b1 * alpha**2 * root * (y * y / 16).exp() * (1 - _tail(3 * y / 4)) ** 2
    # 3/2 ≤ a ≤ y/2
    p2 = alpha**2 * root * (arb(1) / 2 - (arb(-9) / 4).exp())
    n2 = alpha * (alpha - 1) * 2 / 3 + alpha * (1 / (2 * y) + alpha / y)
    # a ≥ y/2
    c3 = alpha * 18 / 37 - (alpha - 1)
    k = y * root * (y * y / 8).exp()
    rho = 2 * d * (y + arb(1) / 2).exp() * ((y + 1) ** 2 + 1) / (y * (y + 1))
    return (
        bool(n1 < d1)
        and bool(n2 < p2)
        and bool(c3 > alpha * d * k * (root * (y * y / 8).exp() + 1 / y))
        and bool(alpha * rho * k < b1)
        and bool(k > 1 + _mills(arb(0)) * y)
    )


def small_scale(alpha: arb, b1: arb) -> bool:
    """N < (B − 1)·D for a ≤ SMALL on cells in y of [LEFT, RIGHT] (the bound of the docstring)."""
    a = _a(SMALL)
    cells = [(LEFT + Fraction(j, 8), LEFT + Fraction(j + 1, 8)) for j in range(8 * (RIGHT - LEFT))]
    while cells:
        y0, y1 = cells.pop()
        y = _hull(_a(y0), _a(y1))
        q, d, m, s2 = _y_functions(y)
        # s² and m on the cell from their ends (both fall with y)
        s2 = _hull(_y_functions(_a(y1))[3], _y_functions(_a(y0))[3])
        m = _hull(_y_functions(_a(y1))[2], _y_functions(_a(y0))[2])
        mr = _hull(_y_functions(-_a(y0))[2], _y_functions(-_a(y1))[2])  # m(−y) grows with y
        p = 1 - q
        n = a * (alpha * m * p + alpha**2 * q * mr) + (alpha - 1) * d * (alpha * mr - m)
        den = s2 + alpha**2 * p * p * (-2 * a * mr / p).exp()
        if bool(n < b1 * den):
            continue
        if y1 - y0 <= MIN_CELL:
            return False
        mid = (y0 + y1) / 2
        cells += [(y0, mid), (mid, y1)]
    return True


def prove(alpha: arb, bound: Fraction = CEILING) -> bool:
    """Whether R < bound for every input scale and shift (the four regions of the docstring)."""
    with ctx.workprec(PRECISION):
        b1 = _a(bound) - 1
        return (
            bool(alpha > 1)
            and bool(alpha < 2)
            and left_tail(alpha, b1)
            and right_tail(alpha, b1)
            and small_scale(alpha, b1)
            and cells_hold(alpha, b1, grid())
        )


__all__ = ["CEILING", "cells_hold", "drop_alpha", "grid", "left_tail", "prove", "right_tail", "small_scale"]
