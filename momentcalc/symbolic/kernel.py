"""sympy forms of ``kernel --derive``: the NNGP and NTK maps as the Gaussian integrals they are,
and in closed form where one exists (Cho & Saul 2009, the arc-cosine kernels J_n of relu,
leaky_relu, relu2 and the step; Williams 1997, the arcsine kernel of erf; identity):

* relu: E[φ(u)φ(v)] = √(q1q2)·(√(1 − ρ²) + (π − arccos ρ)·ρ)/(2π), E[φ'(u)φ'(v)] = (π − arccos ρ)/(2π)
* leaky_relu (slope s): √(q1q2)·(s·ρ + (1 − s)²·J_1/(2π)), s + (1 − s)²·(π − arccos ρ)/(2π)
* relu2: q1q2·(3·sin θ·cos θ + (π − θ)(1 + 2cos²θ))/(2π), θ = arccos ρ; φ' = 2·relu
* erf: (2/π)·asin(2ρ√(q1q2)/√((1 + 2q1)(1 + 2q2))), (4/π)/√((1 + 2q1)(1 + 2q2) − 4ρ²q1q2)
* identity: ρ√(q1q2), 1
* a polynomial φ (an expression of degree ≤ 12): with u = √q1·Z1, v = √q2·(ρZ1 + √(1 − ρ²)Z2),
  Z1, Z2 independent N(0, 1), E[φ(u)φ(v)] is the expanded product with each monomial
  Z1^i·Z2^j replaced by its moment (i − 1)!!·(j − 1)!! (0 when i or j is odd: Isserlis), a
  polynomial in ρ, √q1 and √q2; likewise for φ'.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..catalog import Activation
from . import forms


def _closed(sp: Any, name: str, rho: Any, q1: Any, q2: Any, s: Any) -> tuple[Any, Any] | None:
    pi = sp.pi
    theta_part = pi - sp.acos(rho)
    j1 = sp.sqrt(1 - rho**2) + theta_part * rho
    root = sp.sqrt(q1 * q2)
    if name in ("relu", "leaky_relu"):
        return root * (s * rho + (1 - s) ** 2 * j1 / (2 * pi)), s + (1 - s) ** 2 * theta_part / (2 * pi)
    if name == "relu2":
        j2 = 3 * sp.sqrt(1 - rho**2) * rho + theta_part * (1 + 2 * rho**2)
        return q1 * q2 * j2 / (2 * pi), 4 * root * j1 / (2 * pi)
    if name == "erf":
        spread = (1 + 2 * q1) * (1 + 2 * q2)
        return 2 / pi * sp.asin(2 * rho * root / sp.sqrt(spread)), 4 / pi / sp.sqrt(
            spread - 4 * rho**2 * q1 * q2
        )
    if name == "identity":
        return rho * root, sp.Integer(1)
    return None


POLYNOMIAL_DEGREE = 12


def _polynomial(sp: Any, expr: Any, x: Any, rho: Any, q1: Any, q2: Any) -> tuple[Any, Any] | None:
    """The kernels of a polynomial φ by Isserlis' theorem; None when φ is not a polynomial of
    degree ≤ POLYNOMIAL_DEGREE in x alone."""
    if expr.free_symbols - {x} or not expr.is_polynomial(x) or sp.degree(expr, x) > POLYNOMIAL_DEGREE:
        return None
    z1, z2 = sp.symbols("z1 z2")
    u = sp.sqrt(q1) * z1
    v = sp.sqrt(q2) * (rho * z1 + sp.sqrt(1 - rho**2) * z2)

    def gaussian_mean(product: Any) -> Any:
        terms = sp.Poly(sp.expand(product), z1, z2).terms()
        return sp.expand(
            sum(
                (
                    c * sp.factorial2(i - 1) * sp.factorial2(j - 1)
                    for (i, j), c in terms
                    if i % 2 == 0 and j % 2 == 0
                ),
                sp.Integer(0),
            )
        )

    slope = sp.diff(expr, x)
    return (
        gaussian_mean(expr.subs(x, u) * expr.subs(x, v)),
        gaussian_mean(slope.subs(x, u) * slope.subs(x, v)),
    )


def derive(
    act: Activation, rho: Fraction, q1: Fraction, q2: Fraction
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms of nngp and ntk_derivative at these inputs, derivation lines)."""
    import sympy as sp

    r, a, b = sp.symbols("rho q1 q2", real=True)
    u, v = sp.symbols("u v")
    E = sp.Function("E")
    phi, dphi = sp.Function("phi"), sp.Function("phi'")
    lines = [
        ("nngp", sp.Eq(sp.Symbol("nngp"), E(phi(u) * phi(v)))),
        ("ntk_derivative", sp.Eq(sp.Symbol("ntk_derivative"), E(dphi(u) * dphi(v)))),
        (
            "correlation_out",
            sp.Eq(
                sp.Symbol("correlation_out"), E(phi(u) * phi(v)) / sp.sqrt(E(phi(u) ** 2) * E(phi(v) ** 2))
            ),
        ),
    ]
    x = sp.Symbol("x")
    if act.expression:
        lines.insert(0, ("phi", sp.Eq(sp.Function("phi")(x), act.sympy(sp, x, {}))))
    slope = dict(act.values).get("slope", Fraction(0)) if act.name == "leaky_relu" else Fraction(0)
    closed = (
        _polynomial(sp, act.sympy(sp, x, {}), x, r, a, b)
        if act.expression
        else _closed(sp, act.name, r, a, b, sp.Rational(slope.numerator, slope.denominator))
    )
    out: dict[str, tuple[str, str]] = {}
    if closed is not None:
        nngp, ntk = closed
        lines.append(("nngp (closed form)", sp.Eq(sp.Symbol("nngp"), nngp)))
        lines.append(("ntk_derivative (closed form)", sp.Eq(sp.Symbol("ntk_derivative"), ntk)))
        given = {
            r: sp.Rational(rho.numerator, rho.denominator),
            a: sp.Rational(q1.numerator, q1.denominator),
            b: sp.Rational(q2.numerator, q2.denominator),
        }
        out["nngp"] = forms(sp.simplify(nngp.subs(given)))
        out["ntk_derivative"] = forms(sp.simplify(ntk.subs(given)))
    else:
        lines.append(("u, v", sp.Symbol("(u, v) centred Gaussian, Var u = q1, Var v = q2, correlation rho")))
    return out, tuple((label, *forms(expr)) for label, expr in lines)


def derive_gated(unit: Any) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """A gated unit a·g(b) (``catalog.gated``): no closed forms (its gates' kernels have none),
    the derivation lines of ``moments.gated_maps``: nngp = ρ√(q1q2)·E[g(u)g(v)],
    ntk_derivative = E[g(u)g(v)] + ρ√(q1q2)·E[g'(u)g'(v)], correlation_out = ρ·E[g(u)g(v)]/√(E[g(u)²]E[g(v)²])."""
    import sympy as sp

    r, a, b = sp.symbols("rho q1 q2", real=True)
    u, v = sp.symbols("u v")
    E = sp.Function("E")
    g, dg = sp.Function(unit.gate), sp.Function(unit.gate + "'")
    scale = r * sp.sqrt(a * b)
    lines = [
        ("phi", sp.Symbol(f"{unit.name}(a, b) = {unit.formula}")),
        ("nngp", sp.Eq(sp.Symbol("nngp"), scale * E(g(u) * g(v)))),
        ("ntk_derivative", sp.Eq(sp.Symbol("ntk_derivative"), E(g(u) * g(v)) + scale * E(dg(u) * dg(v)))),
        (
            "correlation_out",
            sp.Eq(sp.Symbol("correlation_out"), r * E(g(u) * g(v)) / sp.sqrt(E(g(u) ** 2) * E(g(v) ** 2))),
        ),
        (
            "u, v",
            sp.Symbol(
                "(u, v) = (b, b'), the gate's halves at the two inputs: centred Gaussian, Var u = q1, "
                "Var v = q2, correlation rho, independent of the other halves (a, a'), E[a a'] = "
                f"rho sqrt(q1 q2); no closed form: E[{unit.gate}(u) {unit.gate}(v)] is an integral"
            ),
        ),
    ]
    return {}, tuple((label, *forms(expr)) for label, expr in lines)
