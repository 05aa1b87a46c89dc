"""Certified bivariate Gaussian expectations of catalog activations: (E[φ(u₁)φ(u₂)],
E[φ'(u₁)φ'(u₂)]) for (u₁, u₂) centred Gaussian with variance q each and correlation
0 < c < 1, as Arb balls whose radii are proven (``engine.bivariate_balls``: the outer
integral over the shared part by the trapezoidal rule for an entire integrand, the inner
Gaussian smoothing ψ(m) = E[φ(m + b·V)] either in closed form or by the lattice trapezoidal
rule). Mean-field theory's correlation map needs exactly these (Poole et al. 2016; Schoenholz
et al. 2017).

Which activations:

* analytic in a strip (``catalog.ball_functions.STRIP_FUNCTIONS``: sigmoid, tanh, swish,
  softplus, mish; and erf here, |erf(x + iy)| ≤ e^{y²}·(1 + 2|y|/√π) along the path
  0 → iy → x + iy, |erf'(z)| ≤ (2/√π)·e^{y²}; gelu from it): ψ by the lattice trapezoidal
  rule, or near c = 1 node by node, the outer step from the strip bound (bounded as c → 1;
  for the entire erf and gelu at the width that allows the widest step);
* piecewise exp-polynomials (``catalog.ball_functions.EXP_POLYNOMIALS``: relu, leaky_relu,
  elu, selu, relu2, identity): ψ(m) = E[φ(m + b·V)] in closed form on balls
  (``engine.gaussian_balls.exp_poly_expectation``) at each outer node; at c ≥ 0.97 (where
  the outer rule needs ~1/sqrt(1 − c) nodes) one integral of the conditional expectation
  instead (``moments.bivariate_conditional``), whose cost does not grow as c → 1;
* user expressions analytic near the real line, of polynomial growth
  (``moments.bivariate_expression``: bounds from the tree on real and complex boxes): ψ by the
  lattice trapezoidal rule (near c = 1 node by node) with its error bounded on a finite
  rectangle, and near c = 1 the outer step from those rectangles too;
* expressions that are piecewise exp-polynomials (abs(x), max(x, 0), min(x, 1), x*abs(x), …:
  ``catalog.expression_pieces``), at every c: the conditional route above;
* the rest — softsign, other expressions with a kink (abs, max, min) or a pole or branch point
  near the real line — ψ node by node (``moments.bivariate_kinked``: softsign's half-line closed
  form, else Arb's integration of the analytic pieces between the kinks); where every kink is
  at 0 and |c| ≥ 0.9 (an expression's from 0.7), polar coordinates first (``moments.bivariate_polar``: a tensor
  Gauss–Legendre rule on four arcs, its cost bounded as c → ±1).

The outer rule's bound needs |φ| and |φ'| below polynomials on the real line: the catalog's
growth bounds, or the expression's; without them None (the caller's value stays unproven).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from flint import acb, arb, ctx
import mpmath

from ..catalog import Activation
from ..engine.gaussian_balls import (
    BITS_PER_DIGIT,
    ExpTerm,
    Term,
    as_arb,
    exp_poly_expectation,
    exp_poly_product,
)
from ..engine.balls import lowered_goals
from ..engine.bivariate_balls import Strip, bivariate_balls
from ..engine.bivariate_balls import select_strip as _select_strip
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS, STRIP_FUNCTIONS, TANH_NEAR_POLES_BITS
from ..engine.precision import Precision
from .bivariate_conditional import conditional_cross, preferred
from .bivariate_polar import polar_cross
from .tanh_poles import subtracted_bounds
from .bivariate_polar import preferred as polar_preferred

# Goals lowered (cancellation: a value far below the integrand's size) at most this often.
ATTEMPTS = 3
# E[φ'(u₁)φ'(u₂)] beside E[φ(u₁)φ(u₂)] from the smoothing of φ alone (``engine.sinc_slopes``);
# False: φ' gets an inner rule of its own (the independent route the tests compare with).
DERIVED_SLOPES = True


def _erf_at(x: arb, ex: arb) -> tuple[arb, arb]:
    return x.erf(), 2 / arb.pi().sqrt() * (-x * x).exp()


def _erf_strip(w: arb) -> tuple[tuple[arb], tuple[arb]]:
    grow = (w * w).exp()
    return (arb((grow * (1 + 2 * w / arb.pi().sqrt())).upper()),), (
        arb((2 / arb.pi().sqrt() * grow).upper()),
    )


def _gelu_at(x: arb, ex: arb) -> tuple[arb, arb]:
    cdf = (1 + (x / arb(2).sqrt()).erf()) / 2
    return x * cdf, cdf + x * (-x * x / 2).exp() / (2 * arb.pi()).sqrt()


def _gelu_strip(w: arb) -> tuple[tuple[arb, arb], tuple[arb, arb]]:
    """gelu(z) = z·Φ(z), gelu'(z) = Φ(z) + z·ϕ(z) on |Im z| ≤ w: the erf bound above at
    z/√2 gives |erf(z/√2)| ≤ e^{w²/2}·(1 + w·√(2/π)) = E, so |Φ(z)| ≤ (1 + E)/2, and
    |ϕ(x + iy)| = e^{(y² − x²)/2}/√(2π) ≤ e^{w²/2}/√(2π)."""
    grow = (w * w / 2).exp()
    half = arb(((1 + grow * (1 + w * (2 / arb.pi()).sqrt())) / 2).upper())
    return (arb(0), half), (half, arb((grow / (2 * arb.pi()).sqrt()).upper()))


# Entire activations whose strip is given here rather than in ``ball_functions.STRIP_FUNCTIONS``:
# name -> (width, bounds of φ and φ' from the width, (φ, φ') at a real x).
_ENTIRE = {
    "erf": (lambda: arb(1), _erf_strip, _erf_at),
    "gelu": (lambda: arb(1), _gelu_strip, _gelu_at),
}


def _tanh_subtracted(parity: Sequence[int] | None, second: bool = False) -> Strip:
    """tanh less the principal parts of its poles at ±iπ/2, g₁ = tanh − P, P(z) = 2z/(z² + p²),
    p = π/2 (residue 1 at each), and g₁' = sech² − P', P'(z) = 2(p² − z²)/(z² + p²)²: analytic
    on |Im z| < 3π/2, taken on the strip of half-width W = π(3/2 − 2^−k) (k the precision's
    bit length, as tanh's own strip), with constant bounds there (``tanh_poles.subtracted_bounds``:
    the maximum modulus principle on a rectangle's sides; the real line lies in the strip, so the
    same constants bound the tails).

    The smoothing of P: for Y ~ N(m, b²), E[1/(Y − ip)] = i·√(π/2)/b·w(z), z = (ip − m)/(b√2),
    w(z) = e^{−z²}·erfc(−iz) Faddeeva's function (Im z > 0), so E[P(Y)] = −(√(2π)/b)·Im w(z)
    and E[P'(Y)] = d/dm of it = (√π/b²)·Im w'(z), w'(z) = −2z·w(z) + 2i/√π.

    ``second``: φ'' too, g₁'' = tanh'' − P'', P''(z) = 2/(z − ip)³ + 2/(z + ip)³,
    E[P''(Y)] = −(√(2π)/b)·Im w''(z)/(2b²), w'' = −2w − 2z·w'."""
    width, bounds = subtracted_bounds(second)
    p = arb.pi() / 2
    p2 = p * p

    def at(x: arb, ex: arb) -> list[arb]:
        e2 = ex * ex
        inverse = 1 / (e2 + 1)
        r = 1 / (x * x + p2)
        t, s = 1 - 2 * inverse, 4 * e2 * inverse * inverse
        out = [t - 2 * x * r, s - 2 * (p2 - x * x) * r * r]
        if second:  # P'' = 4x(x² − 3p²)/(x² + p²)³
            out.append(-2 * t * s - 4 * x * (x * x - 3 * p2) * r * r * r)
        return out

    def value(x: arb, ex: arb) -> arb:  # ``at``'s first alone (the same operations)
        inverse = 1 / (ex * ex + 1)
        r = 1 / (x * x + p2)
        return 1 - 2 * inverse - 2 * x * r

    def poles(m: arb, b: arb) -> list[arb]:
        z = (acb(0, arb.pi() / 2) - m) / (b * arb(2).sqrt())
        w = (-(z * z)).exp() * (acb(0, -1) * z).erfc()
        slope = -2 * z * w + acb(0, 2 / arb.pi().sqrt())
        out = [-(2 * arb.pi()).sqrt() / b * w.imag, arb.pi().sqrt() / (b * b) * slope.imag]
        if second:
            curve = -2 * w - 2 * z * slope
            out.append(-(2 * arb.pi()).sqrt() / (2 * b**3) * curve.imag)
        return out

    def reach(m: arb, b: arb) -> float:
        return float((((m * m + p2) / (2 * b * b)).sqrt()).upper())

    if second and parity is not None:
        parity = (*parity, parity[0])
    alone = None if second else (value, None)
    return Strip(width, bounds, at, parity=parity, poles=poles, pole_reach=reach, alone=alone)


def _strip(act: Activation) -> Strip | None:
    # φ odd makes φ' even and the other way round: (parity of φ, of φ'), +1 even, −1 odd
    parity = {"odd": (-1, 1), "even": (1, -1)}.get(act.parity or "")
    entire = _ENTIRE.get(act.name)
    if entire is not None:
        width, bounds, entire_at = entire

        def wider(w: arb) -> Strip:
            return Strip(w, bounds(w), entire_at, parity=parity)

        w = width()
        return Strip(w, bounds(w), entire_at, parity=parity, wider=wider)
    spec = STRIP_FUNCTIONS.get(act.name)
    if spec is None:
        return None
    w = spec.width()
    at = spec.at
    exponent = tuple(spec.exponent())
    if exponent != (0, 1):
        # ``spec.at`` wants e^{P(x)} (gelu_tanh: P(x) = 2u(x)), not the lattice's e^x
        def at(x: arb, ex: arb, spec_at=spec.at, coefficients=exponent) -> tuple[arb, arb]:
            power, total = arb(1), arb(0)
            for coefficient in coefficients:
                total += coefficient * power
                power *= x
            return spec_at(x, total.exp())

    subtracted = None
    if act.name == "tanh" and ctx.prec >= TANH_NEAR_POLES_BITS:  # (lower: as before)
        subtracted = _tanh_subtracted(parity)
    alone = spec.alone if exponent == (0, 1) else None
    return Strip(
        w,
        (spec.value_bound(w), spec.slope_bound(w)),
        at,
        parity=parity,
        subtracted=subtracted,
        alone=alone,
    )


# φ'' beside φ and φ' (the integrand ``which`` 2: E[φ''(u₁)φ''(u₂)], the correlation map's second
# derivative over q², ``computations.meanfield.correlation_proof``): name -> (a constant bound of
# |φ''| on the real line, a bound of |φ''| on the strip |Im z| ≤ w from w, φ'' from (φ, φ')).
# tanh'' = −2·tanh·sech²: on the real line |tanh''| = 2|t|(1 − t²) ≤ 4/(3√3) < 1 (t = tanh x),
# on the strip |tanh| ≤ sec w and |sech²| ≤ sec² w (see ``catalog.ball_functions``).
SECOND_DERIVATIVES: dict[str, tuple[int, Callable[[arb], arb], Callable[[arb, arb], arb]]] = {
    "tanh": (1, lambda w: arb((2 / w.cos() ** 3).upper()), lambda value, slope: -2 * value * slope),
}


# A bound of |φ'''| on the real line where E[φ'''(u₁)φ'''(u₂)] comes from ψ's values
# (``cross_balls_with_third``): tanh''' = −2(1 − t²)(1 − 3t²), t = tanh x, is −2(1 − u)(1 − 3u) in
# u = t² ∈ [0, 1): −2 at u = 0, 2/3 at its vertex u = 2/3, 0 as u → 1, so |tanh'''| ≤ 2.
THIRD_BOUNDS: dict[str, int] = {"tanh": 2}


def has_third(act: Activation) -> bool:
    """Whether ``cross_balls_with_third`` can give E[φ'''(u₁)φ'''(u₂)] for this activation."""
    return has_second(act) and act.name in THIRD_BOUNDS


def has_second(act: Activation) -> bool:
    """Whether ``cross_ball(..., which=2)`` (E[φ''(u₁)φ''(u₂)]) applies to this activation."""
    return not act.expression and act.name in SECOND_DERIVATIVES and _strip(act) is not None


def second_bound(act: Activation) -> arb:
    """A bound of |φ''| on the real line (``has_second`` activations)."""
    return arb(SECOND_DERIVATIVES[act.name][0])


def _with_second(strip: Strip, act: Activation) -> Strip:
    """``strip`` (φ, φ') with φ'' as a third integrand (and so its ``subtracted`` strip)."""
    _, bound, second = SECOND_DERIVATIVES[act.name]
    at = strip.at

    def at3(x: arb, ex: arb) -> list[arb]:
        value, slope = at(x, ex)
        return [value, slope, second(value, slope)]

    parity = None if strip.parity is None else (*strip.parity, strip.parity[0])
    subtracted = strip.subtracted
    if subtracted is not None:
        subtracted = _tanh_subtracted(strip.parity, second=True)
    return Strip(
        strip.width, (*strip.bounds, (bound(strip.width),)), at3, parity=parity, subtracted=subtracted
    )


def _params(act: Activation) -> dict[str, arb]:
    given = dict(act.values)
    return {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}


def _polys(act: Activation) -> list[list[arb]] | None:
    """Real-line bounds |φ(x)| ≤ Σ p[k]·|x|^k and the same for φ' (the catalog's growth
    bounds), None when they are not polynomial."""
    entry = BALL_FUNCTIONS.get(act.name)
    if entry is None:
        return None
    p = _params(act)
    out = []
    for terms in (entry.growth(p), entry.derivative_growth(p)):
        poly: list[arb] = []
        for term in terms:
            term = Term(*term)
            if as_arb(term.a) != 0 or as_arb(term.b) != 0:
                return None
            poly += [arb(0)] * (term.k + 1 - len(poly))
            poly[term.k] += abs(as_arb(term.c))
        out.append([arb(x.upper()) for x in poly])
    return out


def exp_poly_smoothing(act: Activation):
    """ψ(m) = E[φ(m + b·V)] and E[φ'(m + b·V)] in closed form (piecewise exp-polynomials)."""
    if act.name not in EXP_POLYNOMIALS:
        return None
    kinks = BALL_FUNCTIONS[act.name].kinks

    def smoothing(means: list[arb], std: arb, goal: arb | None = None) -> list[list[arb]]:
        values, derivatives = EXP_POLYNOMIALS[act.name](_params(act))
        edges = [None, *kinks, None]
        out = []
        for parts in (values, derivatives):
            pieces = [
                (edges[i], edges[i + 1], exp_poly_product((ExpTerm(1),), part))
                for i, part in enumerate(parts)
            ]
            out.append([exp_poly_expectation(pieces, m, std) for m in means])
        return out

    return smoothing


def supported(act: Activation) -> bool:
    """Does this route certify the activation's bivariate expectations (for an expression: does
    it have real-line bounds; its strip is found per call)?"""
    if act.expression:
        from .bivariate_expression import expression_route

        return expression_route(act.tree).polys is not None
    return _polys(act) is not None


def cross_values(act: Activation, q, c, digits: int, slope_digits: int | None = None):
    """(E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]) as mpf at the current mpmath precision, to ``digits``
    digits (the second to ``slope_digits`` where given: two one-integrand products), from the
    balls of ``cross_balls`` at exact q and c (mpf); None where that route does not apply or a
    ball is too wide for the digits."""
    if slope_digits is None:
        balls = cross_balls(act, _exact(q), _exact(c), digits)
    else:
        parts = [
            cross_ball(act, _exact(q), _exact(c), d, which) for which, d in enumerate((digits, slope_digits))
        ]
        first, second = parts
        balls = None if first is None or second is None else (first, second)
    if balls is None:
        return None
    out = []
    for ball, wanted in zip(balls, (digits, digits if slope_digits is None else slope_digits)):
        if not ball.rad() <= abs(ball.mid()) * arb(10) ** -(wanted + 2):  # cancelled: not to the digits
            return None
        mantissa, exponent = ball.mid().man_exp()
        out.append(mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent)))
    return out[0], out[1]


def _exact(value):
    """An mpf as an exact ball (python-flint's arb(mpf) would round it to 53 bits)."""
    if isinstance(value, (arb, Fraction, int)):
        return value
    mantissa, exponent = value.man_exp
    return arb((int(mantissa), int(exponent)))


def cross_balls(act: Activation, q: arb | Fraction, c: arb | Fraction, digits: int) -> tuple[arb, arb] | None:
    """(E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]) as balls, each with radius ≤ 10^−(digits+3) of its
    value (or, for a value that cancels to below that, of the integrand's size), for every q in
    the ball ``q`` > 0 and correlation ``c`` in (0, 1). None for activations this route does not
    cover, a c not inside (0, 1), or a rule that would need too many nodes."""
    balls = _cross(act, q, c, digits, (0, 1))
    return None if balls is None else (balls[0], balls[1])


def cross_balls_with_second(
    act: Activation, q: arb | Fraction, c: arb | Fraction, digits: int, second_digits: int
) -> tuple[arb, arb, arb | None] | None:
    """``cross_balls``' two balls and E[φ''(u₁)φ''(u₂)] to ``second_digits`` (radius ≤
    10^−(second_digits+3) of its value) where it comes from the same smoothing of φ
    (``engine.sinc_slopes``: ψ'' from ψ's values at the outer nodes), else None in its place
    (the caller then takes ``cross_ball(..., 2)``)."""
    found = cross_balls_with_third(act, q, c, digits, second_digits, None)
    return None if found is None else found[:3]


def cross_balls_with_third(
    act: Activation,
    q: arb | Fraction,
    c: arb | Fraction,
    digits: int,
    second_digits: int,
    third_digits: int | None,
) -> tuple[arb, arb, arb | None, arb | None] | None:
    """``cross_balls_with_second``'s three balls and E[φ'''(u₁)φ'''(u₂)] to ``third_digits``
    (``has_third``; radius ≤ 10^−(third_digits+3) of its value) where it comes from the same
    smoothing (ψ''' by the cardinal series' third derivative), else None in its place (no other
    route has it)."""
    found: list[arb | None] = []
    balls = _cross(
        act,
        q,
        c,
        digits,
        (0, 1),
        curvature_digits=second_digits,
        curvature_out=found,
        third_digits=third_digits if third_digits is not None and has_third(act) else None,
    )
    if balls is None:
        return None
    found += [None, None]
    return balls[0], balls[1], found[0], found[1]


def cross_ball(act: Activation, q: arb | Fraction, c: arb | Fraction, digits: int, which: int) -> arb | None:
    """``cross_balls``' E[φ(u₁)φ(u₂)] (``which`` 0) or E[φ'(u₁)φ'(u₂)] (1) alone: half the
    lattice products of both; or E[φ''(u₁)φ''(u₂)] (2) where ``has_second``, else None."""
    balls = _cross(act, q, c, digits, (which,))
    return None if balls is None else balls[0]


def _select(strip: Strip | None, smoothing, which: tuple[int, ...]):
    """The strip or smoothing restricted to the integrands ``which``."""
    if which == (0, 1):
        return strip, smoothing
    if smoothing is not None:
        inner = smoothing

        def smoothing(means, std, goal=None, inner=inner):
            found = inner(means, std, goal)
            return None if found is None else [found[i] for i in which]

    if strip is not None:
        strip = _select_strip(strip, which)
    return strip, smoothing


def signed_cross_balls(
    act: Activation, q1: arb | Fraction, q2: arb | Fraction, rho: arb | Fraction, digits: int
) -> tuple[arb, arb] | None:
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) for Var u = q1, Var v = q2 and correlation 0 < |ρ| < 1 (ρ
    of one sign: a ball holding 0 gives None), each as ``cross_balls`` gives it (at q1 = q2
    and ρ > 0 the very same balls)."""
    with ctx.workprec(max(64, Precision(digits, 3).ball_bits)):
        r = as_arb(rho)
        if not (r > 0 or r < 0):
            return None
        mirror = bool(r < 0)
        same = q1 is q2 or (isinstance(q1, Fraction) and isinstance(q2, Fraction) and q1 == q2)
    c = -rho if mirror else rho
    balls = _cross(act, q1, c, digits, (0, 1), q2=None if same else q2, mirror=mirror)
    return None if balls is None else (balls[0], balls[1])


def _size_log2(poly: list[arb], q: arb) -> float:
    """log2 of E[P(|u|)²], u ~ N(0, q) (|φ| ≤ P): the size of E[φ(u₁)φ(u₂)] that the absolute
    goal is measured from (about q for a φ ~ x near 0 at a tiny q, not 1: the value would
    drown in a goal fixed at 1)."""
    with ctx.workprec(64):
        n = 2 * len(poly)
        moments = [arb(1), (2 / arb.pi()).sqrt()]
        for j in range(2, n + 1):
            moments.append((j - 1) * moments[j - 2])
        root = arb(q.upper()).sqrt()
        total = arb(0)
        for j, a in enumerate(poly):
            for k, b in enumerate(poly):
                total += a * b * root ** (j + k) * moments[j + k]
        if not total > 0:
            return 0.0
        return float(total.log().upper()) / math.log(2)


class Cross:
    """One bivariate problem as the routes see it: [E[g_i(u)·g_i(v)] for i in ``which``] (0: φ,
    1: φ'), Var u = q, Var v = q2 (None: q), correlation c ∈ (0, 1) (``mirror``: of v ↦ −v), to
    ``digits`` digits; ``polys`` the growth bounds |g_i| ≤ P_i, ``size_log2``/``least_log2`` the
    larger and smaller integrand's size, ``expression`` the expression's route (None for a catalog
    entry), its strip computed on first use (``strip``)."""

    def __init__(self, act: Activation, q, c, digits: int, which, q2, mirror: bool) -> None:
        self.act, self.q, self.c, self.digits, self.which, self.q2, self.mirror = (
            act,
            q,
            c,
            digits,
            which,
            q2,
            mirror,
        )
        self.wanted = (digits + 3) * BITS_PER_DIGIT
        self.expression: Any = None
        self.polys: Any = None
        self.size_log2 = self.least_log2 = 0.0
        self.widest: Any = None  # the larger variance as a ball
        self.near_one = False  # the conditional route preferred
        # E[φ''φ''] to these digits from the same smoothing (``cross_balls_with_second``), put in
        # ``curvature_out`` where found
        self.curvature_digits: int | None = None
        self.curvature_out: list[arb | None] | None = None
        # E[φ'''φ'''] to these digits beside it (``cross_balls_with_third``), second in ``curvature_out``
        self.third_digits: int | None = None
        self._strip: Any = False

    @property
    def other(self):
        return self.q if self.q2 is None else self.q2

    @property
    def signed(self):
        return -self.c if self.mirror else self.c

    def strip(self) -> Strip | None:
        """The expression's strip (None: a kink or a singular point near the real line), found
        once (after the conditional route: at q1/q2 = 1e20 the strip alone took 4 s)."""
        if self._strip is False:
            from .bivariate_expression import reach

            self._strip = None
            with ctx.workprec(max(64, int(self.wanted) + 64)):
                found = self.expression.strip(reach(self.widest, self.digits))
                # the tree's proven parity (``expression_calculus.parity``): half the nodes
                parity = {"odd": (-1, 1), "even": (1, -1)}.get(self.act.parity or "")
                if found is not None and parity is not None:
                    found = found._replace(parity=parity)
                self._strip = found
        return self._strip

    def kinked(self) -> bool:
        """A kink, or a singular point near the real line (no strip of analyticity)."""
        if self.expression is not None:
            return self.strip() is None
        return self.act.name not in EXP_POLYNOMIALS and _strip(self.act) is None


class CrossRoute(NamedTuple):
    """A route to ``Cross``'s balls: whether it ``applies``, how early it is tried (``preference``,
    lowest first) and its ``balls`` (None: it does not prove them, and the next route is tried; the
    last route's None is the answer)."""

    name: str
    preference: int
    applies: Callable[[Cross], bool]
    balls: Callable[[Cross], list[arb] | None]


def _conditional(p: Cross) -> list[arb] | None:
    """c near 1: one integral of the conditional expectation (~log, not ~1/sqrt(1 − c), cost)."""
    return conditional_cross(
        p.act, p.polys, p.q, p.other, p.signed, p.digits, p.which, p.size_log2, p.least_log2
    )


def _polar_applies(p: Cross) -> bool:
    """A kinked g near ±1, where the shared-part rule needs ~1/sqrt(1 − c) nodes, each an integral."""

    return p.kinked() and polar_preferred(p.act, p.c)


def _polar(p: Cross) -> list[arb] | None:

    return polar_cross(p.act, p.polys, p.q, p.other, p.signed, p.digits, p.which, p.size_log2, p.least_log2)


def _shared_part(p: Cross) -> list[arb] | None:
    """The outer trapezoidal rule over the shared part, the inner Gaussian smoothing in closed form,
    by the lattice rule, or node by node for a kinked g (``engine.bivariate_balls``)."""
    act, which, polys = p.act, p.which, p.polys
    curvature = None
    if p.curvature_digits is not None and which == (0, 1) and has_second(act):
        bound = [second_bound(act)]
        with ctx.workprec(64):
            size = _size_log2(bound, as_arb(p.widest))
        curvature = (bound, size - (p.curvature_digits + 3) * BITS_PER_DIGIT - 6)
    third = None
    if curvature is not None and p.third_digits is not None and has_third(act):
        bound3 = [arb(THIRD_BOUNDS[act.name])]
        with ctx.workprec(64):
            size3 = _size_log2(bound3, as_arb(p.widest))
        third = (bound3, size3 - (p.third_digits + 3) * BITS_PER_DIGIT - 6)
    if p.curvature_out is not None:
        p.curvature_out[:] = [None]

    def evaluate(goal_log2: float) -> list[arb] | None:
        nonlocal polys
        with ctx.workprec(int(p.size_log2 - goal_log2) + 60):
            if p.expression is not None:
                smoothing, strip = None, p.strip()
            else:
                polys = _polys(act)
                smoothing = exp_poly_smoothing(act)
                strip = None if smoothing is not None else _strip(act)
                if 2 in which:
                    assert strip is not None and polys is not None  # has_second
                    strip, polys = _with_second(strip, act), [*polys, [second_bound(act)]]
            if strip is None and smoothing is None:
                # a kink, or a singular point near the real line: ψ node by node
                from .bivariate_kinked import kinked_smoothing

                smoothing = kinked_smoothing(act, polys, which)
            else:
                strip, smoothing = _select(strip, smoothing, which)
            found = bivariate_balls(
                [polys[i] for i in which],
                as_arb(p.q),
                as_arb(p.c),
                goal_log2,
                strip=strip,
                smoothing=smoothing,
                q2=None if p.q2 is None else as_arb(p.q2),
                mirror=p.mirror,
                # E[φ'φ'] from ψ's values where ψ comes from a strip (``_strip``: φ, φ')
                derivative=which == (0, 1) and p.expression is None and DERIVED_SLOPES,
                curvature=curvature,
                third=third,
            )
            if found is not None and len(found) > len(which):
                # E[φ''φ''] (and E[φ'''φ''']) beside them (not part of the goals' loop: wanted to
                # fewer digits)
                assert curvature is not None and p.curvature_out is not None
                extras = []
                for extra, digits in zip(found[len(which) :], (p.curvature_digits, p.third_digits)):
                    wanted = (digits or 0) + 3
                    narrow = extra.rad() <= abs(extra.mid()) * arb(10) ** -wanted
                    extras.append(extra if narrow else None)
                p.curvature_out[:] = extras
                found = found[: len(which)]
            return found

    return lowered_goals(evaluate, p.least_log2, p.wanted, ATTEMPTS)


# The routes, tried in order of preference where they apply (the precision loop is
# ``engine.balls.lowered_goals`` in each).
ROUTES = (
    CrossRoute("conditional", 0, lambda p: p.near_one, _conditional),
    CrossRoute("polar", 1, _polar_applies, _polar),
    CrossRoute("shared part", 2, lambda p: True, _shared_part),
)


def _cross(
    act: Activation,
    q: arb | Fraction,
    c: arb | Fraction,
    digits: int,
    which: tuple[int, ...],
    q2: arb | Fraction | None = None,
    mirror: bool = False,
    curvature_digits: int | None = None,
    curvature_out: list[arb | None] | None = None,
    third_digits: int | None = None,
) -> list[arb] | None:
    """``cross_balls`` for the integrands ``which`` (0: φ, 1: φ'); ``q2`` and ``mirror`` as in
    ``engine.bivariate_balls``: the first of ``ROUTES`` that applies and proves them.
    ``curvature_digits``: E[φ''φ''] to those digits too where the shared-part route gets it from
    the same smoothing (``cross_balls_with_second``), put in ``curvature_out``."""
    if not supported(act):
        return None
    p = Cross(act, q, c, digits, which, q2, mirror)
    p.curvature_digits, p.curvature_out, p.third_digits = curvature_digits, curvature_out, third_digits
    with ctx.workprec(max(64, int(p.wanted) + 64)):
        qq, cc = as_arb(q), as_arb(c)
        if q2 is not None:
            qq = qq.max(as_arb(q2))  # the larger variance sets the reach and the size
        if act.expression:
            from .bivariate_expression import expression_route

            p.expression = expression_route(act.tree)
            p.polys = p.expression.polys
        else:
            p.polys = _polys(act)
            if 2 in which:
                if p.polys is None or not has_second(act):
                    return None
                p.polys = [*p.polys, [second_bound(act)]]
        # (an exact c compared exactly: 1 − 10^−300 rounds to a ball holding 1 at this precision)
        inside = 0 < c < 1 if isinstance(c, Fraction) else cc > 0 and cc < 1
        if p.polys is None or not (inside and qq > 0):
            return None
        sizes = [_size_log2(p.polys[i], qq) for i in which]
        # the goal from the smaller integrand (E[φ'φ'] ~ 1 beside E[φφ] ~ q at a tiny q), the
        # precision from the larger
        p.size_log2, p.least_log2 = max(sizes), min(sizes)
        p.widest = qq
        p.near_one = preferred(act, cc)
    if 2 in which:  # φ'' is known to the shared-part route only
        return _shared_part(p)
    found = None
    for route in sorted(ROUTES, key=lambda route: route.preference):
        if route.applies(p):
            found = route.balls(p)
            if found is not None or route is ROUTES[-1]:
                return found
    return found
