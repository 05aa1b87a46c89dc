"""Exact Gaussian moments of expressions that are sums of signed powers of |x|,

    φ(x) = Σ c_i·sign(x)^{e_i}·|x|^{s_i}   (e_i ∈ {0, 1}, s_i real; x = sign(x)·|x|),

such as abs(x)**0.5001, x*abs(x)**0.5 or abs(x)**1.5 - 2*abs(x): every x^a·φ^b·φ'^c (and
(φ − centre)²) is again such a sum (φ' = Σ c_i·s_i·sign(x)^{e_i+1}·|x|^{s_i−1} off 0), and for
X ~ N(μ, σ²), s > −1 (Winkelbauer 2012, "Moments and absolute moments of the normal
distribution"; M = ₁F₁, Kummer's function):

    E|X|^s          = σ^s·2^{s/2}·Γ((s + 1)/2)/√π · M(−s/2; 1/2; −μ²/(2σ²)),
    E[sign(X)·|X|^s] = σ^s·2^{s/2}·(μ/σ)·√2·Γ(s/2 + 1)/√π · M((1 − s)/2; 3/2; −μ²/(2σ²)),

evaluated in Arb balls (python-flint). A term with s ≤ −1 makes the integral diverge at 0:
then None, and the integrating route says so. Integration near 0, where |x|^s is not analytic
(and φ'² may be as singular as |x|^(−0.9998) for abs(x)**0.5001), is never needed.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flint import arb, ctx

from ..catalog import Activation
from ..catalog.expression_tree import Node
from ..engine.gaussian_balls import as_arb, narrow
from .exact_precision import EXACT_RAISES, exact_precision_bits
from .monomials import Monomial
from ..catalog.expression_ball import constant_value, polynomial_terms
from ..errors import PrecisionError

# (e, s) -> coefficient: Σ c·sign(x)^e·|x|^s
Sum = dict[tuple[int, Fraction], Any]
# Sums longer than this are left to the integrating route.
MAX_TERMS = 64


def _times(f: Sum, g: Sum) -> Sum | None:
    out: Sum = {}
    for (e1, s1), c1 in f.items():
        for (e2, s2), c2 in g.items():
            key = ((e1 + e2) % 2, s1 + s2)
            out[key] = out.get(key, 0) + c1 * c2
    return out if len(out) <= MAX_TERMS else None


def _plus(f: Sum, g: Sum, sign: int = 1) -> Sum | None:
    out = dict(f)
    for key, c in g.items():
        out[key] = out.get(key, 0) + sign * c
    return out if len(out) <= MAX_TERMS else None


def _single(f: Sum) -> tuple[int, Fraction, Any] | None:
    if len(f) != 1:
        return None
    (((e, s), c),) = f.items()
    return e, s, c


def _power(f: Sum, p: Fraction) -> Sum | None:
    if p.denominator == 1 and p >= 0:
        out: Sum = {(0, Fraction(0)): arb(1)}
        for _ in range(int(p)):
            product = _times(out, f)
            if product is None:
                return None
            out = product
        return out
    single = _single(f)
    if single is None:
        return None
    e, s, c = single
    if p.denominator == 1:  # a negative whole power: sign^{−1} = sign off 0
        if c == 0:
            return None
        return {((e * int(p)) % 2, s * p): c ** int(p)}
    if e != 0 or not c > 0:  # a fractional power of what may be negative
        return None
    return {(0, s * p): c ** as_arb(p)}


def signed_powers(node: Node) -> Sum | None:
    """The tree as Σ c·sign(x)^e·|x|^s with ball coefficients at the current precision, or
    None when it is not one."""
    kind = node.kind
    if not node.has_x:
        return {(0, Fraction(0)): constant_value(node)}
    if kind == "x":
        return {(1, Fraction(1)): arb(1)}
    found = [signed_powers(a) for a in node.args]
    parts = [p for p in found if p is not None]
    if len(parts) != len(found):
        return None
    if kind == "neg":
        return {k: -c for k, c in parts[0].items()}
    if kind in ("add", "sub"):
        return _plus(parts[0], parts[1], 1 if kind == "add" else -1)
    if kind in ("mul", "chain"):
        return _times(parts[0], parts[1])
    if kind == "div":
        inverse = _power(parts[1], Fraction(-1))
        return None if inverse is None else _times(parts[0], inverse)
    if kind == "pow":
        exponent = node.args[1]
        return _power(parts[0], exponent.value) if exponent.kind == "num" else None
    if kind == "call" and node.value in ("abs", "sqrt"):
        single = _single(parts[0])
        if single is None:
            return None
        _e, s, c = single
        if node.value == "abs":
            return {(0, s): abs(c)}
        return _power(parts[0], Fraction(1, 2))
    return None


def _derivative(f: Sum) -> Sum:
    out: Sum = {}
    for (e, s), c in f.items():
        if s != 0:
            key = ((e + 1) % 2, s - 1)
            out[key] = out.get(key, 0) + c * as_arb(s)
    return out


def derivative_terms(f: Sum) -> Sum:
    """The terms of φ' off 0 for φ = Σ c·sign(x)^e·|x|^s (``signed_powers``)."""
    return _derivative(f)


def _expectation(e: int, s: Fraction, mean: arb, std: arb) -> arb:
    """E[sign(X)^e·|X|^s], X ~ N(mean, std²), s > −1 (the module docstring's closed forms)."""
    sb = as_arb(s)
    z = -mean * mean / (2 * std * std)
    scale = std**sb * arb(2) ** (sb / 2) / arb.pi().sqrt()
    if e == 0:
        return scale * ((sb + 1) / 2).gamma() * z.hypgeom_1f1(-sb / 2, arb(1) / 2)
    if mean == 0:
        return arb(0)
    return (
        scale * (mean / std) * arb(2).sqrt() * (sb / 2 + 1).gamma() * z.hypgeom_1f1((1 - sb) / 2, arb(3) / 2)
    )


def _integrand(act: Activation, monomial: Monomial, centre: arb | None) -> Callable[[], Sum | None]:
    def build() -> Sum | None:
        f = signed_powers(act.tree)
        if f is None:
            return None
        if centre is not None:
            shifted = _plus(f, {(0, Fraction(0)): centre}, -1)
            return None if shifted is None else _times(shifted, shifted)
        a, b, c = monomial
        out: Sum | None = {(a % 2, Fraction(a)): arb(1)}
        d = _derivative(f) if c else {}
        for factor, power in ((f, b), (d, c)):
            for _ in range(power):
                out = _times(out, factor) if out is not None else None
        return out

    return build


def applies(act: Activation) -> bool:
    """Is the expression a sum of signed powers of |x| that is not a polynomial (polynomials
    have their own exact route)?"""
    if not act.expression:
        return False
    with ctx.workprec(64):
        return signed_powers(act.tree) is not None and polynomial_terms(act.tree) is None


def abs_power_ball(
    act: Activation, monomial: Monomial, mean: Fraction, std: Fraction, digits: int, centre: arb | None = None
) -> arb | None:
    """E[x^a·φ^b·φ'^c] (or E[(φ − centre)²]) in closed form with relative radius
    ≤ 10^−(digits+3) (exactly 0 when every term is odd at mean 0), at a precision doubled while
    it is not; None when the route does not apply or a power ≤ −1 makes it diverge. Raises
    PrecisionError when the value cancels to within its radius of 0."""
    if not applies(act):
        return None
    build = _integrand(act, monomial, centre)
    bits = exact_precision_bits(digits, mean, std)
    for _ in range(EXACT_RAISES):
        with ctx.workprec(bits):
            terms = build()
            if terms is None:
                return None
            live = {key: as_arb(c) for key, c in terms.items() if not (as_arb(c) == 0)}  # noqa: SIM201  (!= on a ball: certainly nonzero)
            if any(s <= -1 for _, s in live):
                return None
            m, sd = as_arb(mean), as_arb(std)
            if not live or (mean == 0 and all(e == 1 for e, _ in live)):  # no terms, or all odd: 0
                return arb(0)
            total = sum((c * _expectation(e, s, m, sd) for (e, s), c in live.items()), arb(0))
        if narrow(total, digits):
            return total
        bits *= 2
    raise PrecisionError(
        f"the expectation cancels to below {digits} significant digits (it may be exactly 0)"
    )
