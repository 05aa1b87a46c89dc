"""Deep kernel shaping's activation transform, proven (Martens et al., 2021, "Rapid training of
deep neural networks without skip connections or normalization layers"; deepmind/dks
``_solve_for_activation_params``).

φ̂(z) = γ·(φ(a·z + b) + δ) with X = a·Z + b ~ N(b, a²): δ = −E[φ(X)] makes C(0) = 0 and
γ = 1/sqrt(V), V = Var φ(X), makes Q(1) = 1; a > 0 and b solve

    F1 = a²·E[φ'(X)²]/V − t = 0                          (the local C'(1) = t)
    F2 = (E[Xφφ'] − b·E[φφ'] − μ·(E[Xφ'] − b·E[φ']))/V − 1 = 0   (the local Q'(1) = E[Z·φ̂·φ̂'] = 1)

(``fixed_shift``: b is given and only F1 is solved: DKS's relu, b = ±1). The solution is proven
by the Krawczyk operator: for a box X around an approximate root x̃,
K = x̃ − Y·F(x̃) + (I − Y·J(X))·(X − x̃) ⊂ interior of X proves a unique root in X (Y any
matrix: here the inverse of J at x̃). F and its Jacobian J are carried as second-order jets on
balls (value, gradient, Hessian in (a, b)), built from expectations E[g(X)], g a monomial
x^i·φ^j·φ'^k:

* at the exact point x̃: E[g] and its derivatives by the Gaussian score functions,
  ∂_b E[g] = E[g·(X − b)]/a², ∂_a E[g] = E[g·((X − b)² − a²)]/a³ (certified moments);
* over the box (for J(X)): value and gradient at x̃ widened by bounds of the next derivative,
  and the Hessian bounded: each second derivative is E[g·P(Z)]/a² with P = He₂, Z·He₂ − 2Z,
  Z⁴ − 5Z² + 2 (E[P²] = 2, 6, 26), so |·| ≤ sqrt(E_box[g²]·E[P²])/a_lo² (Cauchy–Schwarz), and
  E_{m',σ'}[g²] ≤ (s/σ_lo)·exp(Δm²/(2(s² − σ_hi²)))·E_{m,s}[g²] for s = 2σ_hi > σ' (the
  largest ratio of the two normal densities).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import comb, log10
from typing import Any

from flint import arb, ctx

from ..catalog import Activation
from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb
from ..errors import PrecisionError
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..catalog.expression_ball import polynomial_terms, rational_constant
from ..catalog.expression_twins import formula_trees
from ..catalog.resolving import lookup
from .expectations import expectation_balls

# The Gaussian expectations F needs: μ, E[φ²], E[φ'²], E[Xφφ'], E[φφ'], E[Xφ'], E[φ'].
BASE = ((0, 1, 0), (0, 2, 0), (0, 0, 2), (1, 1, 1), (0, 1, 1), (1, 0, 1), (0, 0, 1))
STARTS = (
    (Fraction(0), Fraction(1)),
    (Fraction(1), Fraction(1)),
    (Fraction(-1), Fraction(1)),
    (Fraction(0), Fraction(1, 10)),
    (Fraction(1), Fraction(1, 10)),
    (Fraction(-1), Fraction(1, 10)),
    (Fraction(1, 2), Fraction(1, 2)),
    (Fraction(-1, 2), Fraction(1, 2)),
)
BOUND_DIGITS = 5
FAR_SCALE = 16  # input scale from which a first start still walking is screened (``locate``)


class Jet:
    """f, ∇f = (∂_a f, ∂_b f) and the Hessian (f_aa, f_ab, f_bb), each a ball."""

    __slots__ = ("g", "h", "v")

    def __init__(
        self, v: arb, g: Sequence[arb] = (arb(0), arb(0)), h: Sequence[arb] = (arb(0), arb(0), arb(0))
    ):
        self.v, self.g, self.h = v, tuple(g), tuple(h)

    @staticmethod
    def lift(x: Any) -> Jet:
        return x if isinstance(x, Jet) else Jet(as_arb(x) if not isinstance(x, arb) else x)

    def __add__(self, other: Any) -> Jet:
        o = Jet.lift(other)
        return Jet(self.v + o.v, [x + y for x, y in zip(self.g, o.g)], [x + y for x, y in zip(self.h, o.h)])

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet(-self.v, [-x for x in self.g], [-x for x in self.h])

    def __sub__(self, other: Any) -> Jet:
        return self + (-Jet.lift(other))

    def __rsub__(self, other: Any) -> Jet:
        return Jet.lift(other) - self

    def __mul__(self, other: Any) -> Jet:
        o = Jet.lift(other)
        (a1, b1), (a2, b2) = self.g, o.g
        return Jet(
            self.v * o.v,
            [self.v * a2 + o.v * a1, self.v * b2 + o.v * b1],
            [
                self.v * o.h[0] + 2 * a1 * a2 + o.v * self.h[0],
                self.v * o.h[1] + a1 * b2 + b1 * a2 + o.v * self.h[1],
                self.v * o.h[2] + 2 * b1 * b2 + o.v * self.h[2],
            ],
        )

    __rmul__ = __mul__

    def reciprocal(self) -> Jet:
        inv = 1 / self.v
        a, b = self.g
        return Jet(
            inv,
            [-a * inv * inv, -b * inv * inv],
            [
                (2 * a * a * inv - self.h[0]) * inv * inv,
                (2 * a * b * inv - self.h[1]) * inv * inv,
                (2 * b * b * inv - self.h[2]) * inv * inv,
            ],
        )

    def __truediv__(self, other: Any) -> Jet:
        return self * Jet.lift(other).reciprocal()


def _shifted(monomial: tuple[int, int, int], extra: int) -> tuple[int, int, int]:
    return (monomial[0] + extra, monomial[1], monomial[2])


def _point_jets(found: dict, a: arb, b: arb) -> list[Jet]:
    """The jets of BASE's expectations at the exact point (value and gradient)."""
    out = []
    for m in BASE:
        e0, e1, e2 = found[m], found[_shifted(m, 1)], found[_shifted(m, 2)]
        d_b = (e1 - b * e0) / (a * a)
        d_a = (e2 - 2 * b * e1 + (b * b - a * a) * e0) / (a * a * a)
        out.append(Jet(e0, (d_a, d_b)))
    return out


def _box_jets(
    points: list[Jet], squares: Sequence[arb], a_lo: arb, a_hi: arb, r_a: arb, r_b: arb
) -> list[Jet]:
    """Enclosures of the jets over the box |a − ã| ≤ r_a, |b − b̃| ≤ r_b."""
    s = 2 * a_hi
    grow = s / a_lo * (r_b * r_b / (2 * (s * s - a_hi * a_hi))).exp()
    out = []
    for jet, square in zip(points, squares):
        e = grow * arb(square.upper())
        h_aa = (26 * e).sqrt() / (a_lo * a_lo)
        h_ab = (6 * e).sqrt() / (a_lo * a_lo)
        h_bb = (2 * e).sqrt() / (a_lo * a_lo)
        g_a = arb(0, ((2 * e).sqrt() / a_lo).upper())  # |∂_a E| and |∂_b E| over the box
        g_b = arb(0, (e.sqrt() / a_lo).upper())
        del g_a, g_b
        value = jet.v + arb(
            0,
            (
                _abs_up(jet.g[0]) * r_a
                + _abs_up(jet.g[1]) * r_b
                + (h_aa * r_a * r_a + 2 * h_ab * r_a * r_b + h_bb * r_b * r_b)
            ).upper(),
        )
        grad_a = jet.g[0] + arb(0, (h_aa * r_a + h_ab * r_b).upper())
        grad_b = jet.g[1] + arb(0, (h_ab * r_a + h_bb * r_b).upper())
        out.append(
            Jet(value, (grad_a, grad_b), (arb(0, h_aa.upper()), arb(0, h_ab.upper()), arb(0, h_bb.upper())))
        )
    return out


def _abs_up(x: arb) -> arb:
    return arb(abs(x).upper())


def _equations(e: list[Jet], a: Jet, b: Jet, target: arb, fixed_shift: bool) -> list[Jet]:
    mu, m2, slope, x_ff, ff, x_f, f1 = e
    v = m2 - mu * mu
    first = a * a * slope / v - target
    if fixed_shift:
        return [first]
    q = x_ff - b * ff - mu * (x_f - b * f1)
    return [first, q / v - 1]


def _expectations(act: Activation, a: Fraction, b: Fraction, digits: int) -> dict:
    wanted = sorted({_shifted(m, k) for m in BASE for k in range(3)})
    return dict(zip(wanted, expectation_balls(act, wanted, mean=b, std=a, digits=digits)))


def _newton_step(
    act: Activation, a: Fraction, b: Fraction, target: arb, digits: int, fixed_shift: bool
) -> tuple[Fraction, Fraction, float]:
    found = _expectations(act, a, b, digits)
    with ctx.workprec(int((digits + 10) * BITS_PER_DIGIT) + 64):
        aa, bb = as_arb(a), as_arb(b)
        e = _point_jets(found, aa, bb)
        F = _equations(e, Jet(aa, (arb(1), arb(0))), Jet(bb, (arb(0), arb(1))), target, fixed_shift)
        if fixed_shift:
            step_a, step_b = F[0].v / F[0].g[0], arb(0)
        else:
            (j11, j12), (j21, j22) = F[0].g, F[1].g
            det = j11 * j22 - j12 * j21
            step_a = (j22 * F[0].v - j12 * F[1].v) / det
            step_b = (-j21 * F[0].v + j11 * F[1].v) / det
        size = max(abs(float(step_a.mid())), abs(float(step_b.mid())))
        bits = int((digits + 4) * BITS_PER_DIGIT)
        new_a = _dyadic(as_arb(a) - step_a, bits)
        new_b = b if fixed_shift else _dyadic(as_arb(b) - step_b, bits)
    return new_a, new_b, size


def _dyadic(x: arb, bits: int) -> Fraction:
    mantissa, exponent = (int(v) for v in x.mid().man_exp())
    value = Fraction(mantissa) * Fraction(2) ** exponent
    scale = Fraction(2) ** (bits - max(0, value.numerator.bit_length() - value.denominator.bit_length()))
    return Fraction(round(value * scale)) / scale


def catalog_entry(act: Activation) -> Activation | None:
    """The catalog entry ``act`` is: itself, or the entry whose formula an expression is."""
    if not act.expression:
        return act

    name = formula_trees().get(act.tree)
    return None if name is None else lookup(name)


def _monomial_pieces(act: Activation) -> list[tuple[Fraction, int]] | None:
    """[(c, k)] per piece when φ is a catalog piecewise exp-polynomial whose only kink (if any)
    is 0 and each of whose pieces is one monomial c·x^k (an empty piece: c = 0); else None."""
    entry = catalog_entry(act)
    if entry is None or entry.name not in EXP_POLYNOMIALS:
        return None
    if tuple(BALL_FUNCTIONS[entry.name].kinks) not in ((), (0,)):
        return None
    given = dict(entry.values)
    with ctx.workprec(64):
        params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in entry.params}
        values, _ = EXP_POLYNOMIALS[entry.name](params)
    pieces = []
    for piece in values:
        if not piece:
            pieces.append((Fraction(0), 0))
            continue
        if len(piece) != 1 or as_arb(piece[0].rate) != 0 or not as_arb(piece[0].c).is_exact():
            return None
        c = as_arb(piece[0].c)
        mantissa, exponent = (int(v) for v in c.mid().man_exp())
        pieces.append((Fraction(mantissa) * Fraction(2) ** exponent, piece[0].power))
    return pieces


def _closed_form(act: Activation) -> bool:
    """Its Gaussian expectations are closed forms (a catalog piecewise exp-polynomial: elu, selu,
    celu, relu, ...), so a certified Newton step costs little at any input scale."""
    entry = catalog_entry(act)
    return entry is not None and not entry.expression and entry.name in EXP_POLYNOMIALS


def homogeneous(act: Activation) -> bool:
    """φ(λx) = λ^k·φ(x) for every λ > 0, some k ≥ 1 (relu, relu2, leaky_relu, identity): then
    C'(1) and Q'(1) of φ(a·z + b) depend on b/a alone, so Q'(1) = 1 cannot be had beside the
    target; DKS fixes the shift and solves the scale (for relu; relu2 the same)."""
    pieces = _monomial_pieces(act)
    if pieces is None:
        power = monomial_power(act)
        return power is not None and power >= 2
    powers = {k for c, k in pieces if c != 0}
    return len(powers) == 1 and min(powers) >= 1


def monomial_power(act: Activation) -> int | None:
    """k when φ is an expression c·x^k + d (c ≠ 0, rational c and d), else None."""
    if not act.expression or act.tree is None:
        return None
    terms = polynomial_terms(act.tree, rational_constant)
    if terms is None:
        return None
    powers = [k for k, c in terms.items() if k > 0 and c != 0]
    return powers[0] if len(powers) == 1 else None


def linear(act: Activation) -> bool:
    """φ(x) = c·x + d, c ≠ 0 (identity, or an expression such as 2*x + 1): its normalized C map
    is the identity map, C'(1) = 1 for every input scale and shift (Var φ(X) = c²·Var X =
    a²·E[φ'(X)²]), so no target slope above 1 is reachable."""
    pieces = _monomial_pieces(act)
    if pieces is not None:
        return len({(c, k) for c, k in pieces}) == 1 and pieces[0][1] == 1 and pieces[0][0] != 0
    if not act.expression or act.tree is None:
        return False

    terms = polynomial_terms(act.tree, rational_constant)
    return terms is not None and set(terms) <= {0, 1} and terms.get(1, 0) != 0


def _kink_starts(act: Activation) -> list[tuple[Fraction, Fraction]]:
    """DKS's starting points carried to the activation's kinks: an activation with kinks k_1 <
    … < k_n (n ≥ 2) is, near them, an affine image of one with kinks spread over [−1, 1]
    (relu6 = 3·hardtanh((x − 3)/3) + 3), so each start (b, a) becomes (c + s·b, s·a) with
    c = (k_1 + k_n)/2, s = (k_n − k_1)/2 (c = k_1, s = 1 for one kink). Empty where that
    changes nothing."""
    entry = catalog_entry(act)
    if entry is None or entry.name not in BALL_FUNCTIONS:
        return []
    kinks = [Fraction(k) for k in BALL_FUNCTIONS[entry.name].kinks if isinstance(k, (int, Fraction))]
    if not kinks:
        return []
    centre = (kinks[0] + kinks[-1]) / 2
    spread = (kinks[-1] - kinks[0]) / 2 if len(kinks) > 1 else Fraction(1)
    if (centre, spread) == (0, 1):
        return []
    return [(centre + spread * b, spread * a) for b, a in STARTS]


def near_one(target: arb) -> int:
    """Guard digits for a target C'(1) near 1, where a → 0 with a² ∝ target − 1: Var φ(X) ≈
    a²·φ'(b)² cancels against E[φ(X)]² (−log10(target − 1) digits lost), and Q'(1) depends on b
    only at order a² (a condition number 1/(target − 1), as many digits again); 0 from 0.001 up
    (where the working digits' own margin covers it)."""
    gap = float((target - 1).mid())
    if gap >= 0.001 or gap <= 0:
        return 0
    return 2 * int(-log10(gap)) + 2


def locate(
    act: Activation,
    target: arb,
    digits: int,
    shift: Fraction | None = None,
    starts: Sequence[tuple[Fraction, Fraction]] | None = None,
    screen: Callable[[Fraction, Fraction], tuple[Fraction, Fraction] | None] | None = None,
) -> tuple[Fraction, Fraction]:
    """An approximate root (a, b), a > 0, by Newton's method from DKS's starting points (and
    those carried to the activation's kinks), or from ``starts`` (pairs (b, a)) when given; at a
    few digits, then at ``digits``; PrecisionError when none converges. ``screen(b, a)`` gives
    each start after the first its replacement (b, a), the end of a cheaper iteration from it,
    or None: the start is passed over (that iteration diverges); the first start is screened too
    once its certified iteration walks past a = ``FAR_SCALE`` (unless its expectations are closed
    forms)."""
    fixed = shift is not None
    closed = _closed_form(act)
    if starts is None:
        starts = (
            [(shift, a) for a in (Fraction(1), Fraction(1, 2), Fraction(1, 10), Fraction(2))]
            if shift is not None
            else list(STARTS) + _kink_starts(act)
        )
    near = near_one(target)
    for index, (b, a) in enumerate(starts):
        if index and screen is not None:
            moved = screen(b, a)
            if moved is None:
                continue
            b, a = moved
        try:
            walking = screen is not None and not index and not closed
            for _ in range(40):
                a_new, b_new, size = _newton_step(act, a, b, target, 12 + near, fixed)
                if (
                    a_new <= 0
                    or abs(b_new) > max(Fraction(100), 4 * abs(b))
                    or a_new > max(Fraction(100), 4 * a)
                ):
                    break
                # damped: at most halve or double a per step
                far = walking and a_new >= FAR_SCALE and a_new >= a * 5 / 4
                a = min(max(a_new, a / 2), a * 2)
                b = b_new
                if far and screen is not None:
                    # the first start still walks out to large input scales, where each certified
                    # step costs more (the rule's nodes grow with a: softplus at C'(1) = 1.46 took
                    # 16 steps from a = 1 to 168): the walk is finished in double precision once
                    walking = False
                    moved = screen(b, a)
                    if moved is not None:
                        b, a = moved
                        continue
                if size < 1e-10:
                    break
            else:
                continue
            if size >= 1e-10 or a <= 0:
                continue
            for _ in range(12):
                a, b, size = _newton_step(act, a, b, target, digits + 8 + 2 * near, fixed)
                # the steps stall at the dyadic rounding of a and b (relative to their size): from
                # a = 280, |b| = 1.7 (selu at C'(1) = 1.4658) an absolute 10^−28 was never reached
                magnitude = max(1.0, float(a), abs(float(b)))
                if size < 10.0 ** -(digits + 10 + near) * min(1.0, float(a)) * magnitude:
                    return a, b
        except (ArithmeticError, ValueError, ZeroDivisionError):
            continue
    raise PrecisionError("no activation parameters reach this target from DKS's starting points")


def prove(
    act: Activation, target: arb, a: Fraction, b: Fraction, digits: int, fixed_shift: bool
) -> dict[str, arb]:
    """The Krawczyk box around (a, b) and the transform's four parameters on it."""
    wanted = sorted({_shifted(m, k) for m in BASE for k in range(3)})
    squares_wanted = [(2 * i, 2 * j, 2 * k) for i, j, k in BASE]

    # Near 1 the box shrinks with the guard digits (F's second derivatives grow like 1/a⁴ while
    # its Jacobian shrinks like a²), and F is computed to as many digits again.
    near = near_one(target)
    found = _expectations(act, a, b, digits + 8 + 2 * near)
    del wanted
    for widen in range(3):
        with ctx.workprec(int((digits + 12 + 2 * near) * BITS_PER_DIGIT) + 64):
            r = as_arb(a) * arb(10) ** (-(digits + 6 + near - 3 * widen))
            r_a, r_b = r, (r if not fixed_shift else arb(0))
            a_lo, a_hi = arb((as_arb(a) - r_a).lower()), arb((as_arb(a) + r_a).upper())
        squares_raw = expectation_balls(
            act, squares_wanted, mean=b, std=_upper_fraction(2 * a_hi), digits=BOUND_DIGITS
        )
        with ctx.workprec(int((digits + 12 + 2 * near) * BITS_PER_DIGIT) + 64):
            aa, bb = as_arb(a), as_arb(b)
            point = _point_jets(found, aa, bb)
            squares = [arb(s.upper()) for s in squares_raw]
            box = _box_jets(point, squares, a_lo, a_hi, r_a, r_b)
            A, B = Jet(aa, (arb(1), arb(0))), Jet(bb, (arb(0), arb(1)))
            F = _equations(point, A, B, target, fixed_shift)
            box_a = Jet(aa + arb(0, r_a), (arb(1), arb(0)))
            box_b = Jet(bb + arb(0, r_b), (arb(0), arb(1)))
            FX = _equations(box, box_a, box_b, target, fixed_shift)
            if _krawczyk(F, FX, r_a, r_b, fixed_shift):
                mu, m2 = box[0].v, box[1].v
                v = m2 - mu * mu
                return {
                    "input_scale": aa + arb(0, r_a),
                    "input_shift": bb + arb(0, r_b) if not fixed_shift else bb,
                    "output_shift": -mu,
                    "output_scale": 1 / v.sqrt(),
                }
    raise PrecisionError(f"the transform's parameters could not be proven to {digits} digits")


def _upper_fraction(x: arb) -> Fraction:
    mantissa, exponent = (int(v) for v in arb(x.upper()).mid().man_exp())
    return Fraction(mantissa) * Fraction(2) ** exponent


def _krawczyk(F: list[Jet], FX: list[Jet], r_a: arb, r_b: arb, fixed_shift: bool) -> bool:
    """K ⊂ interior of the box, Y the inverse of J's midpoint at the point."""
    if fixed_shift:
        y = 1 / arb(F[0].g[0].mid())
        k = -y * F[0].v + (1 - y * FX[0].g[0]) * arb(0, r_a)
        return bool(abs(k) < r_a)
    (j11, j12), (j21, j22) = [[arb(x.mid()) for x in f.g] for f in F]
    det = j11 * j22 - j12 * j21
    Y = [[j22 / det, -j12 / det], [-j21 / det, j11 / det]]
    f = [F[0].v, F[1].v]
    J = [list(FX[0].g), list(FX[1].g)]
    box = [arb(0, r_a), arb(0, r_b)]
    for i, radius in enumerate((r_a, r_b)):
        k = -(Y[i][0] * f[0] + Y[i][1] * f[1])
        for j in range(2):
            m = (1 if i == j else 0) - (Y[i][0] * J[0][j] + Y[i][1] * J[1][j])
            k += m * box[j]
        if not abs(k) < radius:
            return False
    return True


def monomial_reach(power: int) -> Fraction | None:
    """The top of the per-layer C'(1) that φ = c·x^k + d reaches, when proven: C'(1) of
    φ(a·z + b) depends on r = a/|b| alone (b ≠ 0; b = 0 gives T = k²·E[Z^(2k−2)]/Var(Z^k)), as

        t(r) = N(r)/D(r),  N = k²·r²·E[(rZ + 1)^(2k−2)],  D = E[(rZ + 1)^(2k)] − E[(rZ + 1)^k]²,

    polynomials in r with rational coefficients (E[Z^j] = (j − 1)!! for even j). t → 1 as r → 0
    and t → T as r → ∞; when every coefficient of T·D − N is ≥ 0 (and one is > 0), t(r) < T for
    every r > 0, so the reachable C'(1) is 1 < t < T with b ≠ 0, and T itself only at b = 0.
    None when the coefficients do not show it."""

    def moment(j: int) -> int:
        return 0 if j % 2 else _double_factorial(j - 1)

    def power_moments(n: int) -> list[Fraction]:  # coefficients of r^j in E[(rZ + 1)^n]
        return [Fraction(comb(n, j) * moment(j)) for j in range(n + 1)]

    k = power
    if k < 2:
        return None
    top = Fraction(k * k * moment(2 * k - 2), moment(2 * k) - moment(k) ** 2)
    numerator = [Fraction(0)] * (2 * k + 1)
    for j, c in enumerate(power_moments(2 * k - 2)):
        numerator[j + 2] += k * k * c
    first = power_moments(k)
    denominator = power_moments(2 * k)
    for i, ci in enumerate(first):
        for j, cj in enumerate(first):
            denominator[i + j] -= ci * cj
    gap = [top * d - n for d, n in zip(denominator, numerator)]
    return top if all(g >= 0 for g in gap) and any(g > 0 for g in gap) else None


def _double_factorial(n: int) -> int:
    out = 1
    while n > 1:
        out, n = out * n, n - 2
    return out


__all__ = [
    "Jet",
    "catalog_entry",
    "homogeneous",
    "linear",
    "locate",
    "monomial_power",
    "monomial_reach",
    "near_one",
    "prove",
]
