"""Swish's ceiling left of the kink: the region y = −b/a ≥ 6 of ``dks_smooth``'s proof that deep
kernel shaping cannot give swish a per-layer C'(1) of 3 (Martens et al., 2021, "Rapid training
of deep neural networks without skip connections or normalization layers"), in five parts.

The form. For X = aZ + b, t = 1/a, λ = −b/a² = y·t, every expectation has the exact tilted
form E[h(X)] = t·ϕ(y)·J[h], J[h](t, λ) = ∫ h(x)·w(x) dx, w = e^{−λx − t²x²/2} (complete the
square: −(x − b)²/(2a²) = −y²/2 − λx − t²x²/2). With p = 2φ'² + 3φφ'' (B = 3),

    G = 2·E[φ'²] + 3·Cov(φ, φ'') = t·ϕ(y)·H,    H = J[p] − 3·t·ϕ(y)·J[φ]·J[φ''],

so G > 0 wherever H > 0. Swish's p (φ = x·σ(x)) is ≥ 0 on x ≤ R1 = −2.152 and on
x ≥ R2 = −0.361, ≤ 0 on [N1, N2] = [−2.15, −0.362] (its roots are near −2.1512 and −0.3618):
``p_signs`` shows it, by Arb cells on [−5/2, R1], [N1, N2] and [R2, 8] (halved until
decided) and, beyond, because φ < 0 and φ'' < 0 for x ≤ −5/2
(φ'' = σ'·(2 + x(1 − 2σ)) and 5/2·(1 − 2σ(−5/2)) > 2), and for x ≥ 8,
2φ'² ≥ 2σ(8)² > 3·8·10·e^{−8} ≥ 3|φφ''| (|φ| ≤ x, |φ''| ≤ (2 + x)e^{−x}, x(2 + x)e^{−x} falls).
On one x-interval where p has one sign, ∫ p·w is monotone in t (e^{−t²x²/2} falls) and in λ
(by the sign of x), so over a cell [0, t₁] × [λa, λb]: w ≥ w(t₁, λa) for x ≤ 0 and
w ≥ w(t₁, λb) for x ≥ 0, and w ≤ w(0, λb) for x ≤ 0; positive pieces may also be cut short
(a lower bound).

1. The far left, every a ≥ 1/4 (``far_left``): b ≤ b_far(a) = −2a² − c − a·sqrt(2·ln(2Ka)),
   c = 4. By the covariance identity Cov(φ(X), ψ(X)) = a²∫₀¹ E[φ'(X)·ψ'(X_ρ)] dρ ((X, X_ρ)
   Gaussian with X's law and correlation ρ; Houdré and Pérez-Abreu, 1995, "Covariance
   identities and inequalities for functionals on Wiener and Poisson spaces") with ψ = φ'':
   φ' < 0 and φ''' < 0 on x ≤ −c (φ' = σ·(1 + x(1 − σ)) with 4(1 − e^{−4}) > 1;
   φ''' = σ'·(3(1 − 2σ) + x(1 − 6σ')) with 4(1 − 6e^{−4}) > 3), so the integrand is ≥ 0 where
   X, X_ρ ≤ −c and Cov ≥ −2a²·M₁·M₃·Q((−c − b)/a), M₁ = 1 + 1/e ≥ |σ + xσ'|, M₃ ≥ sup|φ'''|
   (``dks_smooth.swish_sups``). On x ≤ −c, |φ'| ≥ d·e^{x}, d = (c(1 − σ(−c)) − 1)/(1 + e^{−c}),
   so E[φ'²] ≥ d²·E[e^{2X}; X ≤ −c] = d²·e^{2b + 2a²}·Φ(u), u = (s − c)/a, s = −b − 2a².
   With Q(u + 2a) ≤ ϕ(u + 2a)/(u + 2a) and a²/(u + 2a) ≤ a/2, G > 0 once
   e^{u²/2}·Φ(u) > K·a, K = 3·M₁·M₃·e^{2c}/(2·d²·sqrt(2π)); as Φ(u) > 1/2 for u > 0 this holds
   for u = sqrt(2·ln(2Ka)) (2Ka > 1 at a = 1/4). In (t, λ): λ ≥ λ_far(t) = 2 + c·t² +
   t·sqrt(2·ln(2K/t)), which grows with t (its t-derivative is sqrt(L) − 1/sqrt(L) + 2ct,
   L = 2·ln(2K/t) > 1).
2. Small λ, λ ≤ Λ0 = 1/16 with y ≥ 6 (so t ≤ Λ0/6; ``small_tilt``): relu's part dominates.
   ∫_0^∞ w = Q(y)/(t·ϕ(y)) ≥ (y²/(y² + 1))/λ ≥ (36/37)/λ (Gordon's bound on Mills' ratio,
   1941, "Values of Mills' ratio of area to bounding ordinate..."); on x ≥ 0, w ≤ 1 and
   |2 − p| ≤ 2(2 + 1/e)(1 + x)e^{−x} + 3x(2 + x)e^{−x} (|1 − φ'| ≤ (1 + x)e^{−x}), whose
   integral is 8 + 4/e + 12; on [R1, 0], w ≤ e^{λ·|R1|}, and the part x ≤ R1 (p ≥ 0) is dropped.
   The product: for λ < 1, |J[φ]| ≤ 1/λ² + 1/(1 − λ)² (|φ| ≤ x, ≤ |x|e^{x}) and
   |J[φ'']| ≤ 3 + 2/(1 − λ) + 1/(1 − λ)² (|φ''| ≤ (2 + |x|)e^{−|x|}), and t·ϕ(y) ≤ λ·ϕ(6)/6
   (ϕ(y)/y falls). So λ·H ≥ 2·36/37 − Λ0·(8 + 4/e + 12 + e^{Λ0|R1|}·(−∫_{N1}^{N2} p + edges))
   − 3·(ϕ(6)/6)·(1 + Λ0²/(1 − Λ0)²)·(3 + 2/(1 − Λ0) + 1/(1 − Λ0)²) > 0 (edges: the two
   intervals [R1, N1], [N2, R2] by their width times a ball of |p|).
3. Large input scales, t ≤ T_STRIP = 1/20 (a ≥ 20), Λ0 ≤ λ ≤ λ_far(T_STRIP) (``strip_cells``):
   cells [λa, λb] in λ with t over [0, t₁], t₁ = min(T_STRIP, λb/6) (y ≥ 6): J[p] from below
   by the corner integrals of its sign pieces (Arb's ``acb.integral`` at exact parameters;
   positive pieces cut to [−XL, R1] and [R2, XR], the edges by width times ball). The product
   from above: with β = max(λ − 1, 0), L_m(β) = ∫_0^∞ s^m·e^{βs − t²s²/2} ds ≤
   e^{β²/(2t²)}·(sqrt(2π)/t)·(β/t² + 1/t)^m (E|S|, S ~ N(β/t², 1/t²)), and on x ≥ 0
   ∫ x·w ≤ 1/λ², ∫ (2 + x)e^{−x}w ≤ 3, so
   3t·ϕ(y)·|J[φ]|·|J[φ'']| ≤ F(t) = 3t·e^{−E/(2t²)}/sqrt(2π)·(1/λa² + sqrt(2π)(βb/t³ + 1/t²))
   ·(3 + sqrt(2π)(2/t + βb/t³ + 1/t²)) with E ≤ λ² − 2β² on the cell
   (E = min(λa², 1, 4λb − λb² − 2), as λ² − 2(λ − 1)² is concave and is 1 at λ = 1); each
   term t^{−k}·e^{−E/(2t²)} (k ≤ 5) rises on t² ≤ E/5, so F(t₁) bounds the cell when
   t₁² ≤ E/5 (checked). H ≥ J_low − F(t₁) > 0 cell by cell.

4. Box cells, T_STRIP ≤ t ≤ T_BOX = 5/4 (4/5 ≤ a ≤ 20), 6t ≤ λ ≤ λ_far(t) (``box_grid``,
   ``box_cells``, ``box_cell``): as part 3 with t over [t0, t1] (positive pieces at t1, the
   negative one at t0). The product first by F, each term t^k·e^{−E/(2t²)} bounded over
   [t0, t1] by its ends and, for k < 0 < E, its peak t² = E/(−k) (a ball around it); E may be
   negative here. When that does not show the cell, by its exact pieces: 3·max(t·ϕ(λ/t)) (at
   (t1, λa): it rises with t, falls with λ) times ∫|φ|·w and ∫|φ''|·w, each over its sign
   pieces (φ'' = σ'·(2 + x(1 − 2σ)) with x(1 − 2σ) even and rising on x < 0 has one root each
   side of 0, near ±2.39936, bracketed by ROOT2 in ``p_signs``: the two intervals of width
   1/10⁴ by width times a ball) at their upper corners, cut at −X = −((λb − 1)/t0² + 12/t0 + 12) and at XR: beyond −X
   the envelopes |x|e^{x}, (2 + |x|)e^{x} give ∫_X^∞ (α + s)e^{γs − t²s²/2} ds ≤
   e^{γX − t²X²/2}·((α + γ⁺/t²)/(t·v) + 1/t²), γ = λ − 1, v = tX − γ/t > 0 (Mills' ratio
   ≤ 1/v); beyond XR, ∫ x·e^{−λx} and ∫ (2 + x)e^{−(1 + λ)x}. Cells that show nothing are
   quartered. Near y = 6 at a < 1/2 this cannot work (J[p] < 0 there: the product carries G),
   hence part 5.
5. Cauchy–Schwarz cells, 1/4 ≤ a ≤ 4/5, b_far(a) ≤ b ≤ −6a (``cs_grid``, ``cs_cells``,
   ``cs_cell``): by the covariance identity and Cauchy–Schwarz (as for ``dks_smooth``'s small
   scales) |Cov(φ, φ'')| ≤ a²·sqrt(E[φ'²]·E[φ'''²]), so κ < 2/3 once
   9a⁴·E[φ'''²] < 4·E[φ'²]: two expectations of positive functions, no cancellation. Each by
   Arb's integral in z over |z| ≤ 12 with the cell's a and b as balls (the integral encloses
   every value over the cell), E[φ'²] from below (tails dropped), E[φ'''²] from above
   (tails ≤ M₃²·P(|Z| > 12)); the ratio 9a⁴E[φ'''²]/(4E[φ'²]) is at most about 0.4 there
   (double-precision scan; 1.05 at a = 1, where the bound stops working).

The parts together with ``dks_smooth``'s cover every a ≥ 1/4 with y ≥ 6 (``dks_swish`` runs
them all). Cost: the box cells 377 s of CPU, the Cauchy–Schwarz cells 43 s, the
rest under a second.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache

from flint import acb, arb, ctx

from .dks_smooth import PRECISION, _a, _density, _swish_jets, _swish_parts, swish_sups

C_LEFT = 4  # c: φ' < 0 and φ''' < 0 on x ≤ −c
LAMBDA0 = Fraction(1, 16)  # Λ0
T_STRIP = Fraction(1, 20)
Y_LEFT = 6  # the region: y ≥ 6 (``dks_smooth`` shows y ≤ 6)
R1, N1, N2, R2 = Fraction(-2152, 1000), Fraction(-215, 100), Fraction(-362, 1000), Fraction(-361, 1000)
XL, XR = 60, 200  # the positive pieces, cut
SIGN_REACH = (Fraction(-5, 2), Fraction(8))  # beyond: p > 0 by the docstring's argument
MIN_SIGN_CELL = Fraction(1, 1 << 22)


def _p_ball(x: arb) -> arb:
    """p = 2φ'² + 3φφ'' over a real ball (products, not squares of balls: both are enclosures)."""
    d1, d2, _, _, s = _swish_jets(x)
    return 2 * d1 * d1 + 3 * (x * s) * d2


def _sign_holds(low: Fraction, high: Fraction, positive: bool) -> bool:
    """p > 0 (or < 0) on [low, high], by balls halved until decided."""
    stack = [(low, high)]
    while stack:
        lo, hi = stack.pop()
        value = _p_ball(arb(_a((lo + hi) / 2), _a((hi - lo) / 2)))
        if bool(value > 0) if positive else bool(value < 0):
            continue
        if hi - lo <= MIN_SIGN_CELL:
            return False
        mid = (lo + hi) / 2
        stack += [(lo, mid), (mid, hi)]
    return True


def p_signs() -> bool:
    """p ≥ 0 on x ≤ R1 and x ≥ R2, p ≤ 0 on [N1, N2] (the docstring's cells and arguments)."""
    with ctx.workprec(PRECISION):
        left_edge, right_edge = (_a(x) for x in SIGN_REACH)
        s_left = _swish_jets(left_edge)[4]
        s_right = _swish_jets(right_edge)[4]
        analytic = bool(-left_edge * (1 - 2 * s_left) > 2) and bool(
            2 * s_right * s_right > 3 * right_edge * (2 + right_edge) * (-right_edge).exp()
        )
        # φ'' = σ'·(2 + x(1 − 2σ)) with x(1 − 2σ) even and rising on x < 0: one root each side
        # of 0, ±r with φ''(ROOT2[0]) < 0 < φ''(ROOT2[1]) (``_product_exact``'s sign pieces)
        roots = bool(_swish_jets(_a(ROOT2[0]))[1] < 0) and bool(_swish_jets(_a(ROOT2[1]))[1] > 0)
        return (
            analytic
            and roots
            and _sign_holds(SIGN_REACH[0], R1, True)
            and _sign_holds(N1, N2, False)
            and _sign_holds(R2, SIGN_REACH[1], True)
        )


@cache  # swish_sups' cells cost a tenth of a second; the grids ask once a row
def _far_constant() -> tuple[arb, arb]:
    """(K, d²) of part 1 (at PRECISION)."""
    with ctx.workprec(PRECISION):
        return _far_constant_at()


def _far_constant_at() -> tuple[arb, arb]:
    c = _a(C_LEFT)
    s = 1 / (1 + c.exp())  # σ(−c)
    d = (c * (1 - s) - 1) / (1 + (-c).exp())
    m1 = 1 + (-arb(1)).exp()
    m3, _ = swish_sups()
    k = 3 * m1 * m3 * (2 * c).exp() / (2 * d * d * (2 * arb.pi()).sqrt())
    return k, d * d


def far_left() -> bool:
    """Part 1's side conditions: φ' < 0 and φ''' < 0 on x ≤ −c, d > 0, 2K·(1/4) > 1."""
    with ctx.workprec(PRECISION):
        c = _a(C_LEFT)
        k, d2 = _far_constant()
        e = (-c).exp()
        return bool(c * (1 - e) > 1) and bool(c * (1 - 6 * e) > 3) and bool(d2 > 0) and bool(k / 2 > 1)


def lambda_far(t: Fraction) -> arb:
    """λ_far(t) = 2 + c·t² + t·sqrt(2·ln(2K/t)) (an upper ball end is what callers use)."""
    with ctx.workprec(PRECISION):
        k, _ = _far_constant()
        tt = _a(t)
        return 2 + C_LEFT * tt * tt + tt * (2 * (2 * k / tt).log()).sqrt()


def small_tilt() -> bool:
    """Part 2's closing inequality."""
    with ctx.workprec(PRECISION):
        lam = _a(LAMBDA0)
        e = (-arb(1)).exp()
        negative = -_piece_integral(N1, N2, arb(0), arb(0))  # ∫_N |p| (w = 1 here)
        grow = (lam * _a(-R1)).exp()
        edges = _edges_abs(arb(0), lam, lam)
        right = 8 + 4 * e + 12
        one = 1 - lam
        product = 3 * (_density(_a(Y_LEFT)) / Y_LEFT) * (1 + lam * lam / (one * one))
        product *= 3 + 2 / one + 1 / (one * one)
        total = 2 * _a(Fraction(36, 37)) - lam * (right + grow * negative + edges) - product
        return bool(total > 0)


def _weight(z: acb, t: acb, lam: acb) -> acb:
    return (-lam * z - t * t * z * z / 2).exp()


def _piece_integral(low: Fraction | int, high: Fraction | int, t: arb, lam: arb) -> arb:
    """∫_low^high p(x)·e^{−λx − t²x²/2} dx at exact t, λ (Arb's certified integral)."""
    tc, lc = acb(t), acb(lam)

    def integrand(z: acb, analytic: bool) -> acb:
        phi, d1, d2 = _swish_parts(z)
        return (2 * d1 * d1 + 3 * phi * d2) * _weight(z, tc, lc)

    return acb.integral(integrand, _a(low), _a(high), rel_tol=arb(2) ** -30).real


def _edges_abs(t: arb, lam_low: arb, lam_high: arb) -> arb:
    """An upper bound of |∫ p·w| over [R1, N1] ∪ [N2, R2] for t in [0, t], λ in [λ_low, λ_high]
    (x < 0: w ≤ e^{−λ_high·x})."""
    total = arb(0)
    for low, high in ((R1, N1), (N2, R2)):
        x = arb(_a((low + high) / 2), _a((high - low) / 2))
        total += _a(high - low) * abs(_p_ball(x)) * (-lam_high * _a(low)).exp()
    return arb(total.upper())


def _product_bound(t1: arb, lam_a: arb, lam_b: arb) -> arb | None:
    """F(t₁) of part 3 (None when t₁² ≤ E/5 fails: F then need not bound the cell), or for
    λb < 1 the smaller of it and 3t₁ϕ(λa/t₁)·(1/λa² + 1/(1 − λb)²)·(3 + 2/(1 − λb) +
    1/(1 − λb)²) (part 2's bounds; t·ϕ(λ/t) rises with t and falls with λ)."""
    if bool(lam_b < 1):
        one = 1 - lam_b
        plain = 3 * t1 * _density(lam_a / t1) * (1 / (lam_a * lam_a) + 1 / (one * one))
        plain *= 3 + 2 / one + 1 / (one * one)
        closed = _product_bound(t1, lam_a, arb(1))
        return plain if closed is None else min(plain, closed)
    beta = lam_b - 1 if bool(lam_b > 1) else arb(0)
    ends = [lam_a * lam_a, arb(1)]
    if bool(lam_b > 1):
        ends.append(4 * lam_b - lam_b * lam_b - 2)
    e = arb(min(end.lower() for end in ends))  # by lower ends: an undecided min cannot pick the larger
    if not bool(e > 0) or not bool(5 * t1 * t1 <= e):
        return None
    root = (2 * arb.pi()).sqrt()
    first = 1 / (lam_a * lam_a) + root * (beta / t1**3 + 1 / (t1 * t1))
    second = 3 + root * (2 / t1 + beta / t1**3 + 1 / (t1 * t1))
    return 3 * t1 * (-e / (2 * t1 * t1)).exp() / root * first * second


def strip_cell(lam_a: Fraction, lam_b: Fraction) -> bool:
    """H > 0 for t in [0, min(T_STRIP, λb/6)] and λ in [λa, λb] (part 3)."""
    with ctx.workprec(PRECISION):
        t1 = _a(min(T_STRIP, lam_b / Y_LEFT))
        la, lb = _a(lam_a), _a(lam_b)
        product = _product_bound(t1, la, lb)
        if product is None:
            return False
        low = (
            _piece_integral(-XL, R1, t1, la)
            + _piece_integral(R2, 0, t1, la)
            + _piece_integral(0, XR, t1, lb)
            + _piece_integral(N1, N2, arb(0), lb)
            - _edges_abs(t1, la, lb)
        )
        return bool(low - product > 0)


def strip_grid(step: Fraction = Fraction(1, 16)) -> list[tuple[Fraction, Fraction]]:
    """λ-cells from Λ0 up past λ_far(T_STRIP)."""
    top = lambda_far(T_STRIP).upper()
    cells, lam = [], LAMBDA0
    while bool(arb(lam.numerator) / lam.denominator < top):
        cells.append((lam, lam + step))
        lam += step
    return cells


def strip_cells(cells: list[tuple[Fraction, Fraction]]) -> bool:
    """Every cell shown, halving those that do not show it (down to width 1/1024)."""
    stack = list(cells)
    while stack:
        lam_a, lam_b = stack.pop()
        if strip_cell(lam_a, lam_b):
            continue
        if lam_b - lam_a <= Fraction(1, 1024):
            return False
        mid = (lam_a + lam_b) / 2
        stack += [(lam_a, mid), (mid, lam_b)]
    return True


__all__ = [
    "far_left",
    "lambda_far",
    "p_signs",
    "small_tilt",
    "strip_cell",
    "strip_cells",
    "strip_grid",
]


def _term_sup(coefficient: arb, power: int, e: arb, t0: arb, t1: arb) -> arb:
    """sup over t in [t0, t1] (t0 > 0) of coefficient·t^power·e^{−E/(2t²)}: the ends, and the
    critical point t² = E/(−power) when it lies inside."""
    f = lambda t: coefficient * t**power * (-e / (2 * t * t)).exp()
    top = f(t0).union(f(t1))
    if power < 0 and bool(e > 0):
        critical = (e / (-power)).sqrt()
        if not bool(critical < t0) and not bool(critical > t1):
            top = top.union(f(critical))  # a ball around t*: it encloses the maximum
    return arb(top.upper())


def _product_sup(t0: arb, t1: arb, lam_a: arb, lam_b: arb) -> arb:
    """Part 3's F as a sum of terms c·t^k·e^{−E/(2t²)}, each bounded over [t0, t1]."""
    beta = lam_b - 1 if bool(lam_b > 1) else arb(0)
    ends = [lam_a * lam_a, arb(1)]
    if bool(lam_b > 1):
        ends.append(4 * lam_b - lam_b * lam_b - 2)
        if bool(lam_a > 1):
            ends.append(4 * lam_a - lam_a * lam_a - 2)
    e = arb(min(end.lower() for end in ends))
    root = (2 * arb.pi()).sqrt()
    first = [(1 / (lam_a * lam_a), 0), (root * beta, -3), (root, -2)]
    second = [(arb(3), 0), (2 * root, -1), (root * beta, -3), (root, -2)]
    total = arb(0)
    for c1, p1 in first:
        for c2, p2 in second:
            total += _term_sup(3 * c1 * c2 / root, 1 + p1 + p2, e, t0, t1)
    return total


def box_cell(t_0: Fraction, t_1: Fraction, lam_a: Fraction, lam_b: Fraction, exact: bool = True) -> arb:
    """A lower bound of H over [t_0, t_1] × [λa, λb] (t_0 > 0): corner integrals of p's sign
    pieces less the product's bound."""
    with ctx.workprec(PRECISION):
        t0, t1 = _a(t_0), _a(t_1)
        la, lb = _a(lam_a), _a(lam_b)
        low = (
            _piece_integral(-XL, R1, t1, la)
            + _piece_integral(R2, 0, t1, la)
            + _piece_integral(0, XR, t1, lb)
            + _piece_integral(N1, N2, t0, lb)
            - _edges_abs(t0, la, lb)
        )
        crude = _product_sup(t0, t1, la, lb)
        if bool(low - crude > 0) or not exact:
            return low - crude
        return low - _product_exact(t0, t1, la, lb)


ROOT2 = (Fraction(-23994, 10000), Fraction(-23993, 10000))  # φ'' = 0 near −2.39936 between these


def _abs_integral(kind: int, low: Fraction | int, high: Fraction | int, t: arb, lam: arb, sign: int) -> arb:
    """sign·∫_low^high h(x)·e^{−λx − t²x²/2} dx, h = φ (kind 0) or φ'' (kind 2)."""
    tc, lc = acb(t), acb(lam)

    def integrand(z: acb, analytic: bool) -> acb:
        return sign * _swish_parts(z)[kind] * _weight(z, tc, lc)

    return acb.integral(integrand, _a(low), _a(high), rel_tol=arb(2) ** -30).real


def _left_tail(alpha: int, start: int, t: arb, lam: arb) -> arb:
    """∫_start^∞ (α + s)·e^{(λ − 1)s − t²s²/2} ds (the envelope |x|e^{x}, (2 + |x|)e^{x} of
    |φ|, |φ''| at x = −s) with v = t·start − (λ − 1)/t > 0: Mills' ratio ≤ 1/v gives
    e^{γX − t²X²/2}·((α + γ/t²)/(t·v) + 1/t²), γ = λ − 1, X = start."""
    x = _a(start)
    gamma = lam - 1
    v = t * x - gamma / t
    if not bool(v > 0):
        return arb("inf")
    up = arb(gamma.upper())  # γ·I₀ ≤ γ⁺·(the bound of I₀)
    up = arb(0) if bool(up < 0) else up
    return (gamma * x - t * t * x * x / 2).exp() * ((alpha + up / (t * t)) / (t * v) + 1 / (t * t))


def _product_exact(t0: arb, t1: arb, lam_a: arb, lam_b: arb) -> arb:
    """3·max(t·ϕ(λ/t))·(∫|φ|w)·(∫|φ''|w) over the cell, each ∫ by its pieces' upper corners
    (x < 0: (t0, λb); x > 0: (t0, λa)), cut at −XP (tails by the envelopes) and XR (tails
    ∫_XR^∞ x·e^{−λx} and ∫ (2 + x)e^{−(1 + λ)x})."""
    reach = int(float(((lam_b - 1) / (t0 * t0) + 12 / t0).upper().mid())) + 12
    xr = _a(XR)
    right_phi = (-lam_a * xr).exp() * (xr / lam_a + 1 / (lam_a * lam_a))
    right_dd = (-(1 + lam_a) * xr).exp() * (2 + xr + 1)
    phi = (
        _abs_integral(0, -reach, 0, t0, lam_b, -1)
        + _abs_integral(0, 0, XR, t0, lam_a, 1)
        + _left_tail(0, reach, t0, lam_b)
        + right_phi
    )
    r0, r1 = ROOT2
    x = arb(_a((r0 + r1) / 2), _a((r1 - r0) / 2))
    edge = _a(r1 - r0) * abs(_swish_jets(x)[1]) * (-lam_b * _a(r0)).exp()
    dd = (
        _abs_integral(2, -reach, r0, t0, lam_b, -1)
        + edge
        + _abs_integral(2, r1, 0, t0, lam_b, 1)
        + _abs_integral(2, 0, -r1, t0, lam_a, 1)
        + _a(r1 - r0) * abs(_swish_jets(-x)[1])
        + _abs_integral(2, -r0, XR, t0, lam_a, -1)
        + _left_tail(2, reach, t0, lam_b)
        + right_dd
    )
    factor = t1 * _density(lam_a / t1)
    return 3 * factor * phi * dd


T_BOX = Fraction(5, 4)  # box cells for T_STRIP ≤ t ≤ T_BOX; Cauchy–Schwarz cells for a ≤ 1/T_BOX
BOX_MIN = Fraction(1, 1 << 14)


def _lambda_top(t: Fraction) -> Fraction:
    """A rational above λ_far(t) (to 1/64)."""
    top = lambda_far(t).upper()
    k = 0
    while bool(arb(k) / 64 < top):
        k += 1
    return Fraction(k, 64)


def box_grid(
    t_range: tuple[Fraction, Fraction] = (T_STRIP, T_BOX), t_step: Fraction = Fraction(1, 64)
) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """Cells (t0, t1, λa, λb) covering T_STRIP ≤ t ≤ T_BOX, 6t ≤ λ ≤ λ_far(t): rows of height
    t_step, each from 6·t0 (rounded down to 1/8) to past λ_far(t1), columns of width 1/8."""
    cells = []
    t0 = t_range[0]
    while t0 < t_range[1]:
        t1 = min(t0 + t_step, t_range[1])
        lam = Fraction(int(6 * t0 * 8), 8)
        top = _lambda_top(t1)
        while lam < top:
            cells.append((t0, t1, lam, lam + Fraction(1, 8)))
            lam += Fraction(1, 8)
        t0 = t1
    return cells


def _quartered(
    cells: list[tuple[Fraction, Fraction, Fraction, Fraction]],
    shown: Callable[[Fraction, Fraction, Fraction, Fraction], bool],
) -> bool:
    """``shown`` on every cell (x₀, x₁, y₀, y₁), quartering those it does not show down to a
    width of BOX_MIN in x (False there)."""
    stack = list(cells)
    while stack:
        x0, x1, y0, y1 = stack.pop()
        if shown(x0, x1, y0, y1):
            continue
        if x1 - x0 <= BOX_MIN:
            return False
        xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
        stack += [(x0, xm, y0, ym), (x0, xm, ym, y1), (xm, x1, y0, ym), (xm, x1, ym, y1)]
    return True


def box_cells(cells: list[tuple[Fraction, Fraction, Fraction, Fraction]]) -> bool:
    """H > 0 on every cell, halving (both ways) those that do not show it."""
    return _quartered(cells, lambda t0, t1, la, lb: bool(box_cell(t0, t1, la, lb) > 0))


Z_CUT = 12  # the Cauchy–Schwarz cells integrate over |z| ≤ Z_CUT


def _jets_c(x: acb) -> tuple[acb, acb]:
    """φ' and φ''' of swish at a complex point (φ⁽ⁿ⁾ = n·σ⁽ⁿ⁻¹⁾ + x·σ⁽ⁿ⁾)."""
    s = (1 + (x / 2).tanh()) / 2
    h = (x / 2).sech()
    v = h * h / 4
    return s + x * v, 3 * v * (1 - 2 * s) + x * v * (1 - 6 * v)


def cs_cell(a_0: Fraction, a_1: Fraction, b_0: Fraction, b_1: Fraction) -> bool:
    """4·E[φ'²] > 9a⁴·E[φ'''²] for every (a, b) in the cell: E[h(b + aZ)] by Arb's integral
    over |z| ≤ Z_CUT with a and b balls; E[φ'²] from below by dropping the tails, E[φ'''²] from
    above with M₃²·2Q(Z_CUT)."""
    with ctx.workprec(PRECISION):
        a = acb(arb(_a((a_0 + a_1) / 2), _a((a_1 - a_0) / 2)))
        b = acb(arb(_a((b_0 + b_1) / 2), _a((b_1 - b_0) / 2)))

        def moment(index: int) -> arb:
            def integrand(z: acb, analytic: bool) -> acb:
                d = _jets_c(b + a * z)[index]
                return d * d * (-(z * z) / 2).exp()

            total = acb.integral(integrand, -Z_CUT, Z_CUT, rel_tol=arb(2) ** -20)
            return total.real / (2 * arb.pi()).sqrt()

        m3, _ = swish_sups()
        tail = m3 * m3 * (_a(Z_CUT) / arb(2).sqrt()).erfc()
        top = _a(a_1) ** 4
        return bool(4 * moment(0) > 9 * top * (moment(1) + tail))


A_CS = 1 / T_BOX  # Cauchy–Schwarz cells for 1/4 ≤ a ≤ A_CS


def cs_grid(
    a_step: Fraction = Fraction(1, 64), b_step: Fraction = Fraction(1, 8)
) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """Cells (a0, a1, b0, b1) covering 1/4 ≤ a ≤ A_CS, b_far(a) ≤ b ≤ −6a (b_far falls with a:
    each row from below b_far(a1), to 1/8, up to −6·a0)."""
    cells = []
    a0 = Fraction(1, 4)
    while a0 < A_CS:
        a1 = min(a0 + a_step, A_CS)
        with ctx.workprec(PRECISION):
            k, _ = _far_constant()
            aa = _a(a1)
            far = -2 * aa * aa - C_LEFT - aa * (2 * (2 * k * aa).log()).sqrt()
        b = Fraction(int(float(far.lower().mid()) * 8) - 1, 8)
        while b < -6 * a0:
            cells.append((a0, a1, b, b + b_step))
            b += b_step
        a0 = a1
    return cells


def cs_cells(cells: list[tuple[Fraction, Fraction, Fraction, Fraction]]) -> bool:
    """Every cell shown, quartering those that do not show it."""
    return _quartered(cells, cs_cell)
