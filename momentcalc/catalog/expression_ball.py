"""User expressions on Arb balls: the tree as an acb function (with its kinks resolved into
analytic branches), and a growth bound of |φ| derived from the tree, for the certified
Gaussian expectations (``engine.gaussian_balls``).

* ``compile_ball(node, choices)`` turns the tree into (z, analytic) -> acb. abs, max/min (and
  sign, step in derivatives) are the kinks: where ``choices`` fixes the sign of their argument
  (one sign per piece between kinks), they become the analytic branch (u or −u, u or c, ±1,
  0 or 1); elsewhere Arb's piecewise-analytic ``real_abs``, ``real_max``… are used, which
  refuse boxes that straddle the kink. log, sqrt, log1p and fractional powers check their
  branch cuts when the integrator asks for an analytic evaluation.
* ``growth(node, r0)`` bounds |φ(x)| for |x| ≥ r0 (the tails) by terms c·|x|^k·e^{a|x|+b·x²},
  with the rules: sums add; products multiply; (Σ t_i)^n ≤ m^{n−1}·Σ t_i^n (m terms);
  negative powers and division need a lower bound of |denominator| on the tails (from r0, or a
  constant part that dominates); exp(u) needs an upper bound α + β|x| + γx² of u (from the
  signs of the tree: −x², exp ≥ 0…), so exp(x**2/5) is bounded and exp(exp(x)) is not;
  log u ≤ log(Σ c_i) + (k + a)|x| + b·x² (log y ≤ y) and log u ≥ log(lower bound of u);
  sin, cos, tanh, erf, sigmoid are bounded by 1, erfc by 2; sinh, cosh by e^{|u|};
  softplus u ≤ |u| + 1. Where no bound follows, ``NoGrowthBound``.
* ``piece_choices`` proves, for each piece between the candidate kinks, the sign of every kink
  argument on the piece (interval evaluation, bisection, and monotonicity from the derivative
  near the ends), so that the branch integrated there is φ itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from flint import acb, arb, ctx

from ..engine.gaussian_balls import LocalBound, NotCertified, Term, as_arb
from .ball_functions import softplus_ball, touches_log1p_cut
from .expression_calculus import _sub, canonical, derivative, to_sympy
from .expression_tree import Node

BallFn = Callable[[acb, bool], acb]
Choices = Mapping[Node, int]


class NoGrowthBound(NotCertified):
    """No bound of |φ| on the tails follows from the tree's rules."""


# --- the tree on balls ----------------------------------------------------------------------


def kink_argument(node: Node) -> Node | None:
    """The expression whose sign selects the branch of abs, max, min, sign and step."""
    if node.kind != "call":
        return None
    if node.value in ("abs", "sign", "step"):
        return node.args[0]
    if node.value in ("max", "min"):
        return _sub(node.args[0], node.args[1])
    return None


def kink_arguments(node: Node) -> list[Node]:
    """Every kink argument in the tree (with x in it), each once."""
    found: list[Node] = []

    def walk(n: Node) -> None:
        arg = kink_argument(n)
        if arg is not None and arg.has_x and arg not in found:
            found.append(arg)
        for a in n.args:
            walk(a)

    walk(node)
    return found


def _nan() -> acb:
    return acb(arb.nan())


def _constant(node: Node) -> acb:
    if node.kind == "num":
        return acb(as_arb(node.value))
    return acb(arb.pi() if node.value == "pi" else arb(1).exp())


def _constant_ball(node: Node) -> BallFn:
    """The constant as (z, analytic) -> acb, made once per working precision (a Fraction
    turned into a ball on every evaluation cost more than the arithmetic around it)."""
    made: dict[int, acb] = {}

    def constant(z: acb, analytic: bool) -> acb:
        value = made.get(ctx.prec)
        if value is None:
            value = made[ctx.prec] = _constant(node)
        return value

    return constant


def compile_ball(node: Node, choices: Choices | None = None) -> BallFn:
    """The tree as (z, analytic) -> acb at the current precision (closures, no eval)."""
    choices = choices or {}
    kind = node.kind
    if kind in ("num", "const"):
        return _constant_ball(node)
    if kind == "x":
        return lambda z, analytic: z
    parts = [compile_ball(a, choices) for a in node.args]
    if kind == "neg":
        (a,) = parts
        return lambda z, analytic: -a(z, analytic)
    if kind == "call":
        return _call(node, parts, choices)
    a, b = parts
    if kind == "add":
        return lambda z, analytic: a(z, analytic) + b(z, analytic)
    if kind == "sub":
        return lambda z, analytic: a(z, analytic) - b(z, analytic)
    if kind == "mul":
        return lambda z, analytic: a(z, analytic) * b(z, analytic)
    if kind == "chain":

        def chain(z: acb, analytic: bool) -> acb:
            db = b(z, analytic)
            return db if db == 0 else a(z, analytic) * db

        return chain
    if kind == "div":
        found = removable_quotient(node)
        if found is not None:
            return _quotient(a, b, *found)
        return lambda z, analytic: a(z, analytic) / b(z, analytic)
    exponent = node.args[1]
    if exponent.kind == "num" and exponent.value.denominator == 1:
        n = int(exponent.value)

        def whole_power(z: acb, analytic: bool) -> acb:
            u = a(z, analytic)
            if u.imag == 0 and n >= 2 and u.real.is_finite():
                return acb(_real_power(u.real, n))
            return u**n

        return whole_power
    if exponent.kind == "num" and exponent.value > 0:
        return _positive_power(a, b, as_arb(exponent.value))
    return lambda z, analytic: a(z, analytic).pow(b(z, analytic), analytic=analytic)


# Highest order of a common zero of a quotient's numerator and denominator that is removed.
MAX_REMOVABLE_ORDER = 4
KINK_CALLS = ("abs", "max", "min", "sign", "step")


def _exactly_zero(value: acb) -> bool:
    return value.is_exact() and value == 0


def _zero_candidates(node: Node) -> list[Fraction]:
    """0 and the dyadic zeros of the affine sub-expressions c·x + d of ``node``."""
    found = [Fraction(0)]

    def walk(n: Node) -> None:
        if n.has_x and n.kind != "x":
            with ctx.workprec(64):
                terms = polynomial_terms(n, rational_constant)
            if terms is not None and set(terms) <= {0, 1} and terms.get(1):
                zero = -Fraction(terms.get(0, 0)) / Fraction(terms[1])
                if zero.denominator & (zero.denominator - 1) == 0 and zero not in found:
                    found.append(zero)
        for arg in n.args:
            walk(arg)

    walk(node)
    return found


def _has_kinks(node: Node) -> bool:
    return (node.kind == "call" and node.value in KINK_CALLS) or any(_has_kinks(a) for a in node.args)


_REMOVABLE: dict[Node, tuple | None] = {}


def removable_quotient(node: Node) -> tuple[Fraction, BallFn, BallFn] | None:
    """For a quotient N/D whose numerator and denominator both vanish at a dyadic point z0 to
    the order m at which D first does not (D^{(j)}(z0) = N^{(j)}(z0) = 0 exactly for j < m,
    D^{(m)}(z0) ≠ 0, m ≤ ``MAX_REMOVABLE_ORDER``; no kink inside either): (z0, N^{(m)}, D^{(m)})
    as ball functions. sin(x)/x, (exp(x) − 1)/x, tanh(x)/x, x/sinh(x), log1p(x)/x, (x − 1)/(x − 1),
    and the derivatives of such quotients, whose denominators hold D², D⁴… (``_quotient``).
    z0 is 0 or a zero of an affine part of D; the exact zeros are Arb's values at z0 (sin 0,
    e^0 − 1, tanh 0 are exact); a value that is only a ball around 0 is not taken as a zero."""
    if node in _REMOVABLE:
        return _REMOVABLE[node]
    top, bottom = node.args
    found = None
    if top.has_x and bottom.has_x and not _has_kinks(node):
        for z0 in _zero_candidates(bottom):
            found = _removable_at(top, bottom, z0)
            if found is not None:
                break
    if len(_REMOVABLE) > 256:
        _REMOVABLE.clear()
    _REMOVABLE[node] = found
    return found


def _vanishes(node: Node, z0: Fraction) -> bool | None:
    """Whether the tree is exactly 0 at z0: True, False, or None (cannot tell). Arb first (sin 0,
    e^0 − 1 are exact balls); a ball around 0 that is not exact (2/sqrt(pi) − 2/sqrt(pi) in a
    derivative of erf(x)/x) is decided by sympy's exact arithmetic on the tree at z0."""
    with ctx.workprec(64):
        value = compile_ball(node)(acb(as_arb(z0)), True)
    if _exactly_zero(value):
        return True
    if not value.contains(0):
        return False
    try:
        import sympy as sp

        exact = to_sympy(node, sp.Symbol("x")).subs(sp.Symbol("x"), sp.Rational(z0.numerator, z0.denominator))
        return True if sp.simplify(exact) == 0 else None
    except Exception:  # a function sympy lacks here (sinc_slope): cannot tell
        return None


def _removable_at(top: Node, bottom: Node, z0: Fraction) -> tuple[Fraction, BallFn, BallFn] | None:
    for order in range(MAX_REMOVABLE_ORDER + 1):
        zero = _vanishes(bottom, z0)
        if zero is None or (zero is False and order == 0):
            return None  # no common zero here, or one whose order cannot be told
        if zero is False:
            return z0, compile_ball(top), compile_ball(bottom)
        if _vanishes(top, z0) is not True:
            return None  # a pole (or a numerator not proven 0): not removable
        top, bottom = derivative(top), derivative(bottom)
    return None


def _quotient(a: BallFn, b: BallFn, z0: Fraction, top: BallFn, bottom: BallFn) -> BallFn:
    """N/D on a box z where the enclosure of D reaches 0, N and D having the common zero z0 of
    order m (``removable_quotient``): by Taylor's theorem with the integral remainder along the
    segment from z0 to z, N(z) = (z − z0)^m·∫_0^1 w(t)·N^{(m)}(z0 + t(z − z0)) dt with the same
    positive weight w of total 1/m! for D, so N(z)/D(z) is a quotient of two averages of
    N^{(m)} and D^{(m)} over the segment: inside N^{(m)}(H) / D^{(m)}(H) for the box H that
    holds z and z0 (convex, so it holds the segment; each average lies in the convex enclosure
    of its values), evaluated as analytic (N and D are analytic on H, or Arb says not: nan).
    Elsewhere N/D as written."""
    made: dict[int, acb] = {}

    def quotient(z: acb, analytic: bool) -> acb:
        den = b(z, analytic)
        if den.contains(0):
            centre = made.get(ctx.prec)
            if centre is None:
                centre = made[ctx.prec] = acb(as_arb(z0))
            hull = z.union(centre)
            return top(hull, True) / bottom(hull, True)
        return a(z, analytic) / den

    return quotient


def _real_power(u: arb, n: int) -> arb:
    """u^n (n ≥ 2) on a real ball from its ends, where t^n is monotone: midpoint-radius
    arithmetic squares [0.25, 0.75] into [−0.0625, 0.5625], which reaches 0 (a quotient by it
    could not be enclosed); from the ends it is [0.0625, 0.5625] (and 0 for an even n on a
    ball around 0, where the even power has its minimum)."""
    low, high = arb(u.lower()) ** n, arb(u.upper()) ** n
    out = low.union(high)
    if n % 2 == 0 and u.contains(0):
        out = out.union(arb(0))
    return out


def _positive_power(a: BallFn, b: BallFn, p: arb) -> BallFn:
    """u^p for a number p > 0 that is not whole. On a real ball u that reaches 0 or below,
    Arb's complex power meets its branch point (no finite value, so no integral could be
    enclosed near a zero of u: abs(x)**0.5001 at 0); there u^p lies in [0, r^p], r = max|u|,
    as u^p is increasing on u ≥ 0 and the base of a non-integer power is never negative on
    the integration path (``expression_domain`` refuses an expression that is, so a real ball
    below 0 only reaches past a zero of u). Off the real line, or with ``analytic`` (a box
    around a branch point is not analytic), Arb's power."""

    def power(z: acb, analytic: bool) -> acb:
        u = a(z, analytic)
        if not analytic and u.imag == 0 and not u.real > 0 and u.real.is_finite():
            half = arb((arb(u.real.abs_upper()) ** p).upper()) / 2  # exact: a float halved
            return acb(arb(half.mid(), half.mid()))  # [0, r^p]
        return u.pow(b(z, analytic), analytic=analytic)

    return power


def _call(node: Node, parts: list[BallFn], choices: Choices) -> BallFn:
    name = node.value
    a = parts[0]
    arg = kink_argument(node)
    sign = choices.get(arg) if arg is not None else None
    if name == "abs":
        if sign is not None:
            return a if sign > 0 else (lambda z, analytic: -a(z, analytic))
        return lambda z, analytic: a(z, analytic).real_abs(analytic=analytic)
    if name in ("max", "min"):
        c = parts[1]
        if sign is not None:
            first = (sign > 0) == (name == "max")
            return a if first else c
        if name == "max":
            return lambda z, analytic: a(z, analytic).real_max(c(z, analytic), analytic=analytic)
        return lambda z, analytic: a(z, analytic).real_min(c(z, analytic), analytic=analytic)
    if name == "sign":
        if sign is not None:
            unit = acb(sign)  # exact at every precision
            return lambda z, analytic: unit
        return lambda z, analytic: a(z, analytic).real_sgn(analytic=analytic)
    if name == "step":
        if sign is not None:
            unit = acb(1 if sign > 0 else 0)
            return lambda z, analytic: unit
        return lambda z, analytic: a(z, analytic).real_heaviside(analytic=analytic)
    if name in ("log", "sqrt"):
        return lambda z, analytic: getattr(a(z, analytic), name)(analytic=analytic)
    if name == "log1p":

        def log1p(z: acb, analytic: bool) -> acb:
            u = a(z, analytic)
            return _nan() if analytic and touches_log1p_cut(u) else u.log1p()

        return log1p
    if name == "softplus":

        def softplus(z: acb, analytic: bool) -> acb:
            return softplus_ball(a(z, analytic), analytic)

        return softplus
    simple: dict[str, Callable[[acb], acb]] = {
        "exp": acb.exp,
        "sin": acb.sin,
        "cos": acb.cos,
        "tanh": acb.tanh,
        "sinh": acb.sinh,
        "cosh": acb.cosh,
        "erf": acb.erf,
        "erfc": acb.erfc,
        "sigmoid": lambda u: (1 + (u / 2).tanh()) / 2,
        "sech2": lambda u: u.sech() ** 2,
        "sigmoid_slope": lambda u: (u / 2).sech() ** 2 / 4,
        "sinc": acb.sinc,
        "sinc_slope": sinc_slope,
    }
    fn = simple[name]
    real = REAL_FUNCTIONS.get(name)
    if real is None:
        return lambda z, analytic: fn(a(z, analytic))

    def call(z: acb, analytic: bool) -> acb:
        u = a(z, analytic)
        # a real ball: Arb's real function, whose enclosure is tighter (acb's tanh of
        # [0.25, 0.75] reaches below 0, so tanh(x)**2 could not be divided by there); where
        # it gives no finite value (arb's sech of [3e6 ± 1e5]), the complex one
        if u.imag == 0:
            value = real(u.real)
            if value.is_finite():
                return acb(value)
        return fn(u)

    return call


# Entire functions evaluated on real balls with Arb's real functions (``_call``).
REAL_FUNCTIONS: dict[str, Callable[[arb], arb]] = {
    "exp": arb.exp,
    "sin": arb.sin,
    "cos": arb.cos,
    "tanh": arb.tanh,
    "sinh": arb.sinh,
    "cosh": arb.cosh,
    "erf": arb.erf,
    "erfc": arb.erfc,
    "sigmoid": lambda u: (1 + (u / 2).tanh()) / 2,
    "sech2": lambda u: u.sech() ** 2,
    "sigmoid_slope": lambda u: (u / 2).sech() ** 2 / 4,
    "sinc": arb.sinc,
}


def removable(node: Node) -> Node:
    """The tree with each removable singularity written so that Arb evaluates it on balls
    around u = 0, where it is 0/0 and no integral could be enclosed: sin(u)/u as sinc(u), and
    u/abs(u), abs(u)/u as sign(u) (equal wherever u ≠ 0; a u that vanishes on an interval is
    refused before, as undefined there); and the identities of ``expression_calculus.canonical``
    (log1p(exp(x)) as softplus(x), log(sigmoid(x)) as −softplus(−x))."""
    return _removable(canonical(node))


def _removable(node: Node) -> Node:
    if not node.args:
        return node
    args = tuple(_removable(a) for a in node.args)
    if node.kind == "div":
        top, bottom = args
        if top.kind == "call" and top.value == "sin" and top.args[0] == bottom and bottom.has_x:
            return Node("call", (bottom,), "sinc")
        for u, magnitude in ((top, bottom), (bottom, top)):
            if magnitude.kind == "call" and magnitude.value == "abs" and magnitude.args[0] == u and u.has_x:
                return Node("call", (u,), "sign")
    return Node(node.kind, args, node.value)


# Below this |u| sinc'(u) is summed as its Taylor series (its closed form is 0/0 at 0).
SINC_SERIES_RADIUS = Fraction(1, 4)


def sinc_slope(u: acb) -> acb:
    """sinc'(u) = (cos u − sinc u)/u away from 0; near 0 the series
    Σ_{k≥1} (−1)^k·2k·u^{2k−1}/(2k+1)!, cut where a term is below 2^−prec, its tail bounded by
    twice the first term left out (the terms shrink by a factor of at most 1/2 from there)."""
    if u.abs_lower() > as_arb(SINC_SERIES_RADIUS):
        return (u.cos() - u.sinc()) / u

    radius = arb(u.abs_upper())
    goal = arb(2) ** -(ctx.prec + 10)
    w = u * u
    total = acb(0)
    power = acb(u)  # u^{2k−1}
    factorial = arb(6)  # (2k+1)!
    k = 1
    while True:
        total += (-1) ** k * 2 * k * power / factorial
        k += 1
        factorial *= (2 * k) * (2 * k + 1)
        size = 2 * k * radius ** (2 * k - 1) / factorial
        ratio = radius * radius / ((2 * k + 2) * (2 * k + 3)) * (k + 1) / k
        if size < goal and ratio <= arb(1) / 2:
            tail = arb((2 * size).upper())
            return total + acb(arb(0, tail), arb(0, tail))
        if k > 4 * ctx.prec:
            return _nan()
        power *= w


# --- growth bounds ---------------------------------------------------------------------------


class Bound(NamedTuple):
    """What is known of a sub-expression v on the tails |x| ≥ r0: |v| ≤ Σ terms (None: no
    bound), |v| ≥ low, and α + β|x| + γx² bounds above (``upper``) and below (``lower``)."""

    terms: tuple[tuple[arb, Fraction, arb, arb], ...] | None
    low: arb
    upper: tuple[arb, arb, arb] | None
    lower: tuple[arb, arb, arb] | None


def _quadratic(terms: tuple | None) -> tuple[arb, arb, arb] | None:
    """(A, B, C) with Σ terms ≤ A + B|x| + Cx², when every term is a power up to 2."""
    if terms is None:
        return None
    coefficients = [arb(0), arb(0), arb(0)]
    for c, k, a, b in terms:
        if a != 0 or b != 0 or k > 2:
            return None
        if k in (0, 1, 2):
            coefficients[int(k)] += c
        else:  # |x|^k ≤ |x|^floor + |x|^ceil
            coefficients[math.floor(k)] += c
            coefficients[math.ceil(k)] += c
    constant, linear, quadratic = coefficients
    return constant, linear, quadratic


def _neg3(v: tuple[arb, arb, arb] | None) -> tuple[arb, arb, arb] | None:
    return None if v is None else (-v[0], -v[1], -v[2])


def _scale3(v: tuple | None, c: arb) -> tuple | None:
    return None if v is None else tuple(c * p for p in v)


def _add3(u: tuple | None, v: tuple | None) -> tuple | None:
    return None if u is None or v is None else tuple(p + q for p, q in zip(u, v))


def _make(terms: tuple | None, low: arb, upper: tuple | None = None, lower: tuple | None = None) -> Bound:
    q = _quadratic(terms)
    if upper is None:
        upper = q
    if lower is None:
        lower = _neg3(q)
    return Bound(terms, low, upper, lower)


def _sup(terms: tuple | None) -> arb | None:
    """A constant bound of Σ terms, when all are constants."""
    if terms is None or any(k != 0 or a != 0 or b != 0 for _, k, a, b in terms):
        return None
    return sum((c for c, _, _, _ in terms), arb(0))


def _at(v: tuple[arb, arb, arb], r0: arb, sign: int) -> arb | None:
    """The constant bound of α + β|x| + γx² on |x| ≥ r0 in direction ``sign`` (+1: the value
    is ≤ it, from an upper bound; −1: ≥ it, from a lower bound), if β, γ allow one."""
    alpha, beta, gamma = v
    if sign > 0 and not (beta <= 0 and gamma <= 0):
        return None
    if sign < 0 and not (beta >= 0 and gamma >= 0):
        return None
    return alpha + beta * r0 + gamma * r0 * r0


def _positive_part(v: arb) -> arb:
    return v.max(arb(0))


def _terms_product(p: tuple, q: tuple) -> tuple:
    return tuple((c1 * c2, k1 + k2, a1 + a2, b1 + b2) for c1, k1, a1, b1 in p for c2, k2, a2, b2 in q)


def _terms_power(terms: tuple, power: Fraction) -> tuple:
    """A bound of (Σ t_i)^power (power > 0): m^{power−1}·Σ t_i^power for power ≥ 1 (convexity),
    Σ t_i^power for power < 1 (subadditivity)."""
    m = len(terms)
    factor = arb(m) ** as_arb(power - 1) if power > 1 and m > 1 else arb(1)
    p = as_arb(power)
    return tuple((factor * c**p, k * power, a * p, b * p) for c, k, a, b in terms)


def _low_of_sum(a: Bound, b: Bound, r0: arb) -> arb:
    low = arb(0)
    for first, second in ((a, b), (b, a)):
        sup = _sup(second.terms)
        if sup is not None:
            low = low.max(first.low - sup)
    return low


def _low_from_sides(bound: Bound, r0: arb) -> Bound:
    """Raise ``low`` where the linear bounds keep v away from 0 on one side."""
    low = bound.low
    if bound.lower is not None:
        at = _at(bound.lower, r0, -1)
        if at is not None and at > 0:
            low = low.max(at)
    if bound.upper is not None:
        at = _at(bound.upper, r0, 1)
        if at is not None and at < 0:
            low = low.max(-at)
    return bound._replace(low=low)


def _exp_terms(upper: tuple[arb, arb, arb], r0: arb) -> tuple:
    """e^u for u ≤ α + β|x| + γx²: e^α·e^{β⁺|x| + γ⁺x²}, negative parts taken at |x| = r0."""
    alpha, beta, gamma = upper
    shift = arb(0)
    if not beta >= 0:
        shift += beta.min(arb(0)) * r0
        beta = _positive_part(beta)
    if not gamma >= 0:
        shift += gamma.min(arb(0)) * r0 * r0
        gamma = _positive_part(gamma)
    return ((arb((alpha + shift).exp().upper()), Fraction(0), arb(beta.upper()), arb(gamma.upper())),)


def _log_bound(u: Bound, r0: arb) -> Bound:
    if u.terms is None or not u.low > 0:
        raise NoGrowthBound("log of an expression that may come near 0 in the tails")
    log_low = u.low.log()
    count = len(u.terms)
    const = arb(count).log() + max((c.log() for c, _, _, _ in u.terms if c > 0), default=arb(0))
    rate = max((as_arb(k) + a for _, k, a, _ in u.terms), default=arb(0))
    square = max((b for _, _, _, b in u.terms), default=arb(0))
    size = abs(log_low).max(arb(0)) + abs(const)
    terms = (
        (arb(size.upper()), Fraction(0), arb(0), arb(0)),
        (arb(rate.upper()), Fraction(1), arb(0), arb(0)),
        (arb(square.upper()), Fraction(2), arb(0), arb(0)),
    )
    low = _positive_part(log_low) if log_low > 0 else arb(0)
    return Bound(terms, low, (const, rate, square), (log_low, arb(0), arb(0)))


def constant_value(node: Node) -> arb:
    value = compile_ball(node)(acb(0), False)
    return value.real


def growth_bound(node: Node, r0: arb) -> Bound:
    """The ``Bound`` of the tree on |x| ≥ r0 (NoGrowthBound where the rules give none)."""
    kind = node.kind
    if not node.has_x:
        v = constant_value(node)
        return Bound(
            ((abs(v), Fraction(0), arb(0), arb(0)),), abs(v), (v, arb(0), arb(0)), (v, arb(0), arb(0))
        )
    if kind == "x":
        return Bound(
            ((arb(1), Fraction(1), arb(0), arb(0)),), r0, (arb(0), arb(1), arb(0)), (arb(0), arb(-1), arb(0))
        )
    args = [growth_bound(a, r0) for a in node.args]
    if kind == "neg":
        (a,) = args
        return Bound(a.terms, a.low, _neg3(a.lower), _neg3(a.upper))
    if kind in ("add", "sub"):
        a, b = args
        if kind == "sub":
            b = Bound(b.terms, b.low, _neg3(b.lower), _neg3(b.upper))
        terms = None if a.terms is None or b.terms is None else a.terms + b.terms
        q = _quadratic(terms)
        upper = _add3(a.upper, b.upper) or q
        lower = _add3(a.lower, b.lower) or _neg3(q)
        return _low_from_sides(Bound(terms, _low_of_sum(a, b, r0), upper, lower), r0)
    if kind in ("mul", "chain"):
        a, b = args
        terms = None if a.terms is None or b.terms is None else _terms_product(a.terms, b.terms)
        bound = _make(terms, a.low * b.low)
        for constant, _other, varying in ((node.args[0], a, b), (node.args[1], b, a)):
            if not constant.has_x:  # c·v: v's bounds scaled (and swapped when c < 0)
                c = constant_value(constant)
                if c >= 0:
                    upper, lower = _scale3(varying.upper, c), _scale3(varying.lower, c)
                elif c < 0:
                    upper, lower = _scale3(varying.lower, c), _scale3(varying.upper, c)
                else:
                    continue
                bound = bound._replace(upper=upper or bound.upper, lower=lower or bound.lower)
        square = _square_sign(node)
        if square is not None and a.low >= 0:  # u·u = u² >= low², −u·u = −u² <= −low²
            low2 = a.low * a.low
            if square > 0:
                bound = bound._replace(lower=(low2, arb(0), arb(0)))
            else:
                bound = bound._replace(upper=(-low2, arb(0), arb(0)))
        return _low_from_sides(bound, r0)
    if kind == "div":
        a, b = args
        if not b.low > 0:
            raise NoGrowthBound("a denominator that may come near 0 in the tails")
        terms = None if a.terms is None else tuple((c / b.low, k, p, q) for c, k, p, q in a.terms)
        sup = _sup(b.terms)
        bound = _make(terms, a.low / sup if sup is not None and sup > 0 else arb(0))
        if not node.args[1].has_x:  # v/c: v's bounds scaled (and swapped when c < 0), as for c·v
            c = 1 / constant_value(node.args[1])
            if c > 0:
                bound = bound._replace(
                    upper=_scale3(a.upper, c) or bound.upper, lower=_scale3(a.lower, c) or bound.lower
                )
            elif c < 0:
                bound = bound._replace(
                    upper=_scale3(a.lower, c) or bound.upper, lower=_scale3(a.upper, c) or bound.lower
                )
        return _low_from_sides(bound, r0)
    if kind == "pow":
        return _power_bound(node, args[0], r0)
    return _call_bound(node, args, r0)


def _square_sign(node: Node) -> int | None:
    """+1 for a product u·u, −1 for (−u)·u or u·(−u) (the same u), else None."""
    left, right, sign = node.args[0], node.args[1], 1
    while left.kind == "neg":
        left, sign = left.args[0], -sign
    while right.kind == "neg":
        right, sign = right.args[0], -sign
    return sign if left == right and left.has_x else None


def _power_bound(node: Node, u: Bound, r0: arb) -> Bound:
    exponent = node.args[1]
    if exponent.kind != "num":
        raise NoGrowthBound("a power with an exponent that is not a number")
    power = exponent.value
    if power == 0:
        return Bound(
            ((arb(1), Fraction(0), arb(0), arb(0)),),
            arb(1),
            (arb(1), arb(0), arb(0)),
            (arb(1), arb(0), arb(0)),
        )
    if power < 0:
        if not u.low > 0:
            raise NoGrowthBound("a negative power of an expression that may come near 0 in the tails")
        sup = _sup(u.terms)
        low = sup ** as_arb(power) if sup is not None and sup > 0 else arb(0)
        return _make(((u.low ** as_arb(power), Fraction(0), arb(0), arb(0)),), low)
    if u.terms is None:
        return _make(None, arb(0))
    terms = _terms_power(u.terms, power)
    low = u.low ** as_arb(power)
    bound = _make(terms, low)
    if power.denominator == 1 and power.numerator % 2 == 0:
        bound = bound._replace(lower=(low, arb(0), arb(0)))
    return bound


def _bounded(size: int | Fraction, low: arb | None = None, lower: arb | None = None) -> Bound:
    s = as_arb(size)
    return Bound(
        ((s, Fraction(0), arb(0), arb(0)),),
        low if low is not None else arb(0),
        (s, arb(0), arb(0)),
        (lower if lower is not None else -s, arb(0), arb(0)),
    )


def _call_bound(node: Node, args: list[Bound], r0: arb) -> Bound:
    name = node.value
    u = args[0]
    if name in ("tanh", "erf"):  # odd, increasing: |tanh u| ≥ tanh(low of |u|)
        return _bounded(1, low=_positive_part(getattr(u.low, name)()))
    if name in ("sin", "cos", "sign"):
        return _bounded(1)
    if name in ("sinc", "sinc_slope"):  # |sinc'(x)| = |∫_0^1 t·sin(tx) dt| ≤ 1
        return _bounded(1)
    if name in ("sigmoid", "step", "sech2"):
        return _bounded(1, lower=arb(0))
    if name == "sigmoid_slope":
        return _bounded(Fraction(1, 4), lower=arb(0))
    if name == "erfc":
        return _bounded(2, lower=arb(0))
    if name == "exp":
        if u.upper is None:
            raise NoGrowthBound("exp of an expression with no bound above by a quadratic in x")
        low = arb(0)
        if u.lower is not None:
            at = _at(u.lower, r0, -1)
            if at is not None:
                low = at.exp()
        terms: tuple | None = _exp_terms(u.upper, r0)
        return Bound(terms, low, _quadratic(terms), (arb(0), arb(0), arb(0)))
    if name in ("sinh", "cosh"):
        q = _quadratic(u.terms)
        if q is None:
            raise NoGrowthBound(f"{name} of an expression with no quadratic bound")
        terms = _exp_terms(q, r0)
        if name == "cosh":
            return Bound(terms, arb(1), _quadratic(terms), (arb(1), arb(0), arb(0)))
        return _make(terms, u.low)  # |sinh u| ≥ |u|
    if name == "log":
        return _log_bound(u, r0)
    if name == "log1p":
        one = _bounded(1, low=arb(1), lower=arb(1))
        assert one.terms is not None  # a bounded function's bound is its size
        inner = _low_from_sides(
            Bound(
                None if u.terms is None else u.terms + one.terms,
                _low_of_sum(one, u, r0),
                _add3(one.upper, u.upper),
                _add3(one.lower, u.lower),
            ),
            r0,
        )
        return _log_bound(inner, r0)
    if name == "sqrt":
        if u.terms is None:
            raise NoGrowthBound("sqrt of an unbounded expression")
        terms = _terms_power(u.terms, Fraction(1, 2))
        return _make(terms, u.low.sqrt(), lower=(arb(0), arb(0), arb(0)))
    if name == "abs":
        return _make(u.terms, u.low, lower=(u.low, arb(0), arb(0)))
    if name == "softplus":
        terms = None if u.terms is None else u.terms + ((arb(1), Fraction(0), arb(0), arb(0)),)
        return _make(terms, arb(0), lower=(arb(0), arb(0), arb(0)))
    if name in ("max", "min"):
        c = constant_value(node.args[1])
        terms = None if u.terms is None else u.terms + ((abs(c), Fraction(0), arb(0), arb(0)),)
        if name == "max":
            low = c if c > 0 else arb(0)
            return _make(terms, low, lower=(c, arb(0), arb(0)))
        low = -c if c < 0 else arb(0)
        return _make(terms, low, upper=(c, arb(0), arb(0)))
    raise NoGrowthBound(f"no growth rule for {name}")


def growth_terms(node: Node, r0: arb) -> tuple[Term, ...]:
    """|φ(x)| ≤ Σ terms for |x| ≥ r0, with natural powers (|x|^κ ≤ |x|^⌊κ⌋ + |x|^⌈κ⌉)."""
    bound = growth_bound(node, r0)
    if bound.terms is None:
        raise NoGrowthBound("no bound of the expression's size in the tails")
    terms: list[Term] = []
    for c, k, a, b in bound.terms:
        c = arb(c.upper())
        if k < 0:  # |x|^k ≤ r0^k on the tails
            if not r0 > 0:
                raise NoGrowthBound("a negative power of x near 0")
            terms.append(Term(arb((c * r0 ** as_arb(k)).upper()), 0, a, b))
        elif Fraction(k).denominator == 1:
            terms.append(Term(c, int(k), a, b))
        else:
            terms += [Term(c, math.floor(k), a, b), Term(c, math.ceil(k), a, b)]
    return tuple(terms)


# --- kinks: where each kink argument changes sign ------------------------------------------------

MAX_BISECTIONS = 2000


def _sign_of(value: acb) -> int:
    if value.real > 0:
        return 1
    if value.real < 0:
        return -1
    return 0


def prove_sign(u: BallFn, du: BallFn, low: arb, high: arb, sign: int) -> bool:
    """Does u keep ``sign`` on [low, high]? Interval evaluation, bisection, and, where the
    interval holds 0, monotonicity (u' ≠ 0) with the right sign at both ends."""
    stack = [(low, high)]
    budget = MAX_BISECTIONS
    while stack:
        a, b = stack.pop()
        box = acb(a.union(b))
        value = u(box, False)
        if _sign_of(value) == sign:
            continue
        if _sign_of(value) == -sign:
            return False
        slope = du(box, False)
        if _sign_of(slope) != 0 and _sign_of(u(acb(a), False)) == sign and _sign_of(u(acb(b), False)) == sign:
            continue
        budget -= 1
        if budget <= 0:
            return False
        mid = arb(((a + b) / 2).mid())
        stack += [(a, mid), (mid, b)]
    return True


class Kinks(NamedTuple):
    """Kink balls (x) and, for each interval between them, the sign of each kink argument."""

    points: tuple[arb, ...]
    choices: tuple[dict[Node, int], ...]


def piece_choices(
    arguments: Sequence[Node], candidates: Sequence[arb], low: arb, high: arb, margin: arb
) -> Kinks:
    """Prove the sign of every kink argument on each interval between the candidate kinks
    (exact points, within [low, high]), outside balls of radius ``margin`` around them."""
    points = sorted(c for c in candidates if low < c < high)
    edges = [low] + points + [high]
    compiled = [(arg, compile_ball(arg), compile_ball(derivative(arg))) for arg in arguments]
    choices = []
    for i, (a, b) in enumerate(zip(edges, edges[1:])):
        inner_a = a + margin if i > 0 else a
        inner_b = b - margin if i < len(points) else b
        if not inner_b > inner_a:
            raise NotCertified("two kinks are too close together to be separated")
        mid = arb(((inner_a + inner_b) / 2).mid())
        signs: dict[Node, int] = {}
        for arg, u, du in compiled:
            sign = _sign_of(u(acb(mid), False))
            if sign == 0 or not prove_sign(u, du, inner_a, inner_b, sign):
                raise NotCertified(f"cannot prove where {arg} changes sign")
            signs[arg] = sign
        choices.append(signs)
    return Kinks(
        tuple(p if _exact_kink(p, margin, compiled) else arb(p, margin) for p in points), tuple(choices)
    )


def _exact_kink(point: arb, margin: arb, compiled: Sequence[tuple[Node, BallFn, BallFn]]) -> bool:
    """Is the only kink within ``margin`` of the exact ``point`` exactly there? Some argument
    is exactly 0 at the point with a derivative bounded away from 0 on the ball (its one zero
    there), and every other argument keeps away from 0 on the ball."""
    if point.rad() != 0:
        return False
    ball = acb(arb(point, margin))
    found = False
    for _, u, du in compiled:
        whole = u(ball, False)
        if whole.is_finite() and not whole.real.contains(0):
            continue
        at = u(acb(point), False)
        slope = du(ball, False)
        if not (at.real == 0 and at.imag == 0 and slope.is_finite() and slope.real.abs_lower() > 0):
            return False
        found = True
    return found


# --- polynomials, integrated exactly ---------------------------------------------------------

MAX_POLYNOMIAL_TERMS = 64


def polynomial_terms(node: Node, constant: Callable[[Node], Any] | None = None) -> dict[int, Any] | None:
    """The tree as a polynomial {power: coefficient} at the current precision, if it is one
    (numbers, constants, x, +, −, ·, division by a constant, natural powers) with few terms;
    else None. Coefficients
    are balls, or what ``constant`` makes of the tree's constant parts (``rational_constant``:
    Fractions, None for π or e)."""
    kind = node.kind
    if not node.has_x:
        value = (constant or constant_value)(node)
        return None if value is None else {0: value}
    if kind == "x":
        return {1: 1}
    found = [polynomial_terms(a, constant) for a in node.args]
    parts = [part for part in found if part is not None]
    if len(parts) < len(found):
        return None
    if kind == "neg":
        return {k: -c for k, c in parts[0].items()}
    if kind in ("add", "sub"):
        left, right = parts
        sign = 1 if kind == "add" else -1
        out = dict(left)
        for k, c in right.items():
            out[k] = out.get(k, 0) + sign * c
        return out if len(out) <= MAX_POLYNOMIAL_TERMS else None
    if kind in ("mul", "chain"):
        left, right = parts
        return _terms_times(left, right) if len(left) * len(right) <= MAX_POLYNOMIAL_TERMS**2 else None
    if kind == "div":  # by a constant (x**2/2)
        left, right = parts
        if set(right) != {0} or right[0] == 0:
            return None
        return {k: c / right[0] for k, c in left.items()}
    if kind == "pow":
        exponent = node.args[1]
        if exponent.kind != "num" or exponent.value.denominator != 1 or exponent.value < 0:
            return None
        base = parts[0]
        n = int(exponent.value)
        if len(base) == 1:
            ((k, c),) = base.items()
            return {k * n: c**n}
        out = {0: 1}
        for _ in range(n):
            product = _terms_times(out, base)
            if product is None:
                return None
            out = product
        return out
    return None


def _terms_times(left: dict[int, Any], right: dict[int, Any]) -> dict[int, Any] | None:
    out: dict[int, Any] = {}
    for k1, c1 in left.items():
        for k2, c2 in right.items():
            out[k1 + k2] = out.get(k1 + k2, 0) + c1 * c2
    return out if len(out) <= MAX_POLYNOMIAL_TERMS else None


def rational_constant(node: Node) -> Fraction | None:
    """A constant sub-tree as a Fraction (numbers, + − · /, whole powers), None otherwise."""
    kind = node.kind
    if kind == "num":
        return node.value
    found = [rational_constant(a) for a in node.args]
    parts = [part for part in found if part is not None]
    if kind == "const" or not found or len(parts) < len(found):
        return None
    if kind == "neg":
        return -parts[0]
    if len(parts) != 2:  # the operators below are binary
        return None
    a, b = parts
    if kind == "add":
        return a + b
    if kind == "sub":
        return a - b
    if kind in ("mul", "chain"):
        return a * b
    if kind == "div":
        return a / b if b else None
    if kind == "pow" and b.denominator == 1 and (a or b > 0):
        return a ** int(b)
    return None


# --- integrable singularities: logs and powers |x − p|^(−α), α < 1 -------------------------------

# Bounded real functions: |f(u)| ≤ the value for every real u.
_BOUNDED = {
    "sin": 1,
    "cos": 1,
    "tanh": 1,
    "erf": 1,
    "sigmoid": 1,
    "sign": 1,
    "step": 1,
    "sech2": 1,
    "sigmoid_slope": 1,
    "sinc": 1,
    "sinc_slope": 1,
    "erfc": 2,
}


def _poly_add(p: list[arb], q: list[arb]) -> list[arb]:
    n = max(len(p), len(q))
    return [(p[i] if i < len(p) else arb(0)) + (q[i] if i < len(q) else arb(0)) for i in range(n)]


def poly_mul(p: Sequence[Any], q: Sequence[Any]) -> list[Any]:
    """The product of two polynomials given by their coefficient lists (constant first)."""
    out = [type(p[0])(0)] * (len(p) + len(q) - 1)  # arb(0), or Fraction(0) for exact ones
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out


def _strip_abs(node: Node) -> Node:
    while node.kind == "call" and node.value == "abs":
        node = node.args[0]
    return node


def _simple_zero(u: Node, p: arb, interval: acb) -> tuple[arb, arb] | None:
    """(c1, c2) with c1·|x − p| ≤ |u(x)| ≤ c2·|x − p| on the interval (mean value theorem):
    u(p) = 0 exactly and c1 ≤ |u'| ≤ c2 there, c1 > 0; None otherwise."""
    at_p = compile_ball(u)(acb(p), False)
    if not (at_p.real == 0 and at_p.imag == 0):
        return None
    slope = compile_ball(derivative(u))(interval, False)
    if not slope.is_finite() or not slope.abs_lower() > 0:
        return None
    return arb(slope.abs_lower()), arb(slope.abs_upper())


def local_bound(node: Node, p: arb, delta: arb) -> LocalBound | None:
    """A ``LocalBound`` (α, c_k): |φ(x)| ≤ |x − p|^(−α)·Σ c_k·ℓ(x)^k for 0 < |x − p| ≤ δ
    (δ < 1/e), where ℓ(x) = log(1/|x − p|) ≥ 1. φ may be singular at p only through log of,
    or a negative power of, an expression u with a simple zero at p (``_simple_zero``:
    c1·|x − p| ≤ |u(x)| ≤ c2·|x − p|, so |log|u(x)|| ≤ ℓ(x) + max|log c_i| and
    |u(x)|^(−β) ≤ c1^(−β)·|x − p|^(−β)). The rules: a sub-expression finite on the whole
    interval is bounded by its ball there; sums add (with the larger α: |x − p|^(−α) grows
    with α below 1), products multiply (α's add), natural powers; sin, cos, tanh, erf,
    sigmoid… are bounded whatever their argument, abs keeps its argument's bound, division by
    a sub-expression bounded away from 0 divides. None where no bound follows (then the
    caller does not integrate across p); the caller also refuses α ≥ 1 (not integrable)."""
    interval = acb(arb(p, delta.upper()))
    value = compile_ball(node)(interval, False)
    if value.is_finite():
        return LocalBound(Fraction(0), [arb(value.abs_upper())])
    kind = node.kind
    if kind == "neg" or (kind == "call" and node.value == "abs"):
        return local_bound(node.args[0], p, delta)
    if kind == "call" and node.value in _BOUNDED:
        return LocalBound(Fraction(0), [arb(_BOUNDED[node.value])])
    if kind == "call" and node.value == "log":
        slopes = _simple_zero(_strip_abs(node.args[0]), p, interval)
        if slopes is None:
            return None
        shift = abs(slopes[0].log()).max(abs(slopes[1].log()))
        return LocalBound(Fraction(0), [arb(shift.upper()), arb(1)])
    if kind in ("add", "sub", "mul", "chain"):
        first, second = (local_bound(a, p, delta) for a in node.args)
        if first is None or second is None:
            return None
        (alpha, left), (beta, right) = first, second
        if kind in ("add", "sub"):
            return LocalBound(max(alpha, beta), _poly_add(left, right))
        return LocalBound(alpha + beta, poly_mul(left, right))
    if kind == "div":
        top = local_bound(node.args[0], p, delta)
        bottom = compile_ball(node.args[1])(interval, False)
        if top is None or not bottom.is_finite() or not bottom.abs_lower() > 0:
            return None
        low = arb(bottom.abs_lower())
        return LocalBound(top.alpha, [arb((c / low).upper()) for c in top.coefficients])
    if kind == "pow":
        exponent = node.args[1]
        if exponent.kind != "num":
            return None
        power = exponent.value
        if power < 0:  # |u|^(−β) ≤ c1^(−β)·|x − p|^(−β)
            slopes = _simple_zero(_strip_abs(node.args[0]), p, interval)
            if slopes is None:
                return None
            return LocalBound(-power, [arb((slopes[0] ** as_arb(power)).upper())])
        if power.denominator != 1:
            return None
        base = local_bound(node.args[0], p, delta)
        if base is None:
            return None
        result = [arb(1)]
        for _ in range(int(power)):
            result = poly_mul(result, base.coefficients)
        return LocalBound(base.alpha * power, result)
    return None
