"""sympy derivation of the activation moments (``activation-moment --derive``).

    E[φ(Z)^k] = ∫ φ(mean + std·t)^k · exp(−t²/2)/sqrt(2π) dt,   E[φ'(Z)²] likewise.

Under N(0, 1) the catalog's closed forms are used (relu: 1/sqrt(2π) and 1/2, He init, seeds
000 and 002; gelu: 1/(2√π); erf: (2/π)·asin(2/3); …). Otherwise sympy integrates when the
integrand is in the class it closes reliably — piecewise polynomials times exp of a
polynomial of degree ≤ 2 times erf of a linear function, e.g. relu, elu, gelu at any mean and
std (a class sympy closes in well under a second; the library sets no time limit: the command
line's CPU budget, enforced by the operating system, bounds a runaway); every closed form found is checked numerically against the
quadrature before it is shown. Where none is found, the integral it reduces to is shown.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from . import forms, shortest, sympy_number

MOMENTS = ("mean", "second_moment", "derivative_second_moment")


def _integrable_class(expr: Any, t: Any) -> bool:
    """Piecewise polynomials × exp(polynomial of degree ≤ 2) × erf/erfc(linear) in t."""
    import sympy as sp

    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Function) or (isinstance(node, sp.Pow) and node.base == sp.E):
            if isinstance(node, (sp.Piecewise,)):
                continue
            if isinstance(node, sp.exp) or (isinstance(node, sp.Pow) and node.base == sp.E):
                argument = node.args[0] if isinstance(node, sp.exp) else node.exp
                if not argument.is_polynomial(t) or sp.degree(argument, t) > 2:
                    return False
            elif isinstance(node, (sp.erf, sp.erfc)):
                if not node.args[0].is_polynomial(t) or sp.degree(node.args[0], t) > 1:
                    return False
            else:
                return False
        elif (isinstance(node, sp.Pow) and node.exp.has(t)) or (
            isinstance(node, sp.Pow) and not (node.exp.is_Integer and node.exp >= 0) and node.base.has(t)
        ):
            return False
    return True


def _close_enough(expr: Any, value: mpmath.mpf, digits: int) -> bool:
    """Does the sympy closed form evaluate to the quadrature value (correct to ``digits``)?"""
    with mpmath.workdps(digits + 10):
        try:
            number = mpmath.mpf(str(expr.evalf(digits + 10)))
        except (TypeError, ValueError):
            return False
        if value == 0:
            return abs(number) <= mpmath.mpf(10) ** -(digits + 5)
        return abs(number - value) <= abs(value) * mpmath.mpf(10) ** -(digits - 1)


def _integrate(integrand: Any, t: Any) -> Any | None:
    import sympy as sp

    if not _integrable_class(integrand, t):
        return None
    try:
        result = sp.integrate(integrand, (t, -sp.oo, sp.oo))
    except Exception:  # sympy may fail in many ways on hard integrals; fall back to the integral
        return None
    if result.has(sp.Integral) or result.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        return None
    return shortest(result)


def derive(
    act: Any, mean: Fraction, std: Fraction, values: dict[str, mpmath.mpf], digits: int
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, integral lines for the moments without one).

    ``values`` are the quadrature results, correct to ``digits`` digits: a closed form sympy
    finds is kept only if it agrees with them."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    t = sp.Symbol("t", real=True)
    phi = act.sympy_expression(x)
    dphi = sp.diff(phi, x)
    mu, sigma = sympy_number(mean), sympy_number(std)
    density = sp.exp(-(t**2) / 2) / sp.sqrt(2 * sp.pi)
    at = {"mean": phi, "second_moment": phi**2, "derivative_second_moment": dphi**2}
    standard = mean == 0 and std == 1
    params = act.sympy_params()
    exprs: dict[str, Any] = {}
    derivation: list[tuple[str, str, str]] = []
    for name in MOMENTS:
        if standard and name in act.closed_forms:
            exprs[name] = act.closed_forms[name].sympy(sp, params)
            continue
        if name == "mean" and act.parity == "odd" and mean == 0:
            exprs[name] = sp.Integer(0)
            continue
        integrand = at[name].subs(x, mu + sigma * t) * density
        integrand = sp.piecewise_fold(integrand.rewrite(sp.Piecewise))
        found = _integrate(integrand, t)
        if found is not None and _close_enough(found, values[name], digits):
            exprs[name] = found
            continue
        integral = sp.Integral(at[name].subs(x, mu + sigma * t) * density, (t, -sp.oo, sp.oo))
        text, latex = forms(integral)
        derivation.append((name, f"{name} = {text}", f"\\mathrm{{{name.replace('_', ' ')}}} = {latex}"))
    if "mean" in exprs and "second_moment" in exprs:
        m, m2 = exprs["mean"], exprs["second_moment"]
        exprs["variance"] = shortest(m2 - m**2)
        exprs["centered_gain"] = shortest(1 / sp.sqrt(exprs["variance"])) if exprs["variance"] != 0 else sp.oo
    if "second_moment" in exprs:
        exprs["rms"] = shortest(sp.sqrt(exprs["second_moment"]))
        exprs["gain"] = (
            shortest(1 / sp.sqrt(exprs["second_moment"])) if exprs["second_moment"] != 0 else sp.oo
        )
    formula = ("phi(x)", f"phi(x) = {sp.sstr(phi)}", f"\\varphi(x) = {sp.latex(phi)}")
    return {name: forms(expr) for name, expr in exprs.items()}, (formula, *derivation)
