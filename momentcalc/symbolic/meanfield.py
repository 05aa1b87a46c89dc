"""sympy forms of mean-field signal propagation (``meanfield --derive``).

The maps (Poole et al. 2016; Schoenholz et al. 2017) for every activation, as the Gaussian
integrals they are; closed forms from the catalog's kernels (``catalog.kernels``) where
they exist:

* relu, leaky_relu (slope s): E[φ(√q·Z)²] = q·(1 + s²)/2 and E[φ'²] = (1 + s²)/2, so
  q* = σ_b²/(1 − σ_w²·(1 + s²)/2), χ₁ = σ_w²·(1 + s²)/2, ξ_q = ξ_c = −1/ln χ₁ in the ordered
  phase, critical σ_w² = 2/(1 + s²) at σ_b² = 0 (relu: 2, He init); the correlation map is
  the arc-cosine kernel (Cho & Saul 2009).
* erf: q* solves q = σ_w²·(2/π)·asin(2q/(1 + 2q)) + σ_b²; χ₁ = 4σ_w²/(π·sqrt(1 + 4q*));
  V'(q*) = 4σ_w²/(π·(1 + 2q*)·sqrt(1 + 4q*)); the critical line is σ_w² = π·sqrt(1 + 4q)/4,
  σ_b² = q − σ_w²·(2/π)·asin(2q/(1 + 2q)) for q >= 0 (π/4 at σ_b² = 0); the arcsine kernel.
* identity: q* = σ_b²/(1 − σ_w²), χ₁ = σ_w², critical σ_w² = 1 at σ_b² = 0.

Each closed form is evaluated with sympy and must agree with the computed value (a guard
against a wrong formula), else PrecisionError.
"""

from __future__ import annotations

from typing import Any

import mpmath
from mpmath import mp

from ..catalog import Activation
from ..catalog.kernels import kernel
from ..errors import PrecisionError
from . import forms, labelled, sympy_number

CHECK_DIGITS = 20


def _generic(sp: Any) -> list[tuple[str, Any]]:
    q, _c, w, b = sp.symbols("q c sigma_w2 sigma_b2", positive=True)
    Z = sp.Symbol("Z")
    E = sp.Function("E")
    phi, dphi = sp.Function("phi"), sp.Function("phi'")
    u1, u2 = sp.symbols("u1 u2")
    return [
        ("length map", sp.Eq(sp.Symbol("q_next"), w * E(phi(sp.sqrt(q) * Z) ** 2) + b)),
        ("chi1", sp.Eq(sp.Symbol("chi1"), w * E(dphi(sp.sqrt(sp.Symbol("q_star")) * Z) ** 2))),
        ("correlation map", sp.Eq(sp.Symbol("c_next"), (w * E(phi(u1) * phi(u2)) + b) / sp.Symbol("q_star"))),
        ("depth_scale_c", sp.Eq(sp.Symbol("xi_c"), -1 / sp.log(w * E(dphi(u1) * dphi(u2))))),
    ]


def derive(
    act: Activation, given: Any, values: dict[str, mpmath.mpf], digits: int
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, derivation lines) for ``meanfield --derive``; ``given``
    holds the inputs as exact numbers (``sigma_b2``; ``sigma_w2``, None on the critical line)."""
    import sympy as sp

    derivation = [(label, *forms(expr)) for label, expr in _generic(sp)]
    found = None if act.expression else kernel(act.name)
    if found is None:
        return {}, tuple(derivation)
    q, c = sp.symbols("q c", real=True)
    params = act.sympy_params()
    cross, dcross = found.sympy(sp, q, c, params)
    derivation.append(labelled(f"{act.name} kernel E[phi(u1)phi(u2)]", sp.simplify(cross)))
    derivation.append(labelled(f"{act.name} kernel E[phi'(u1)phi'(u2)]", sp.simplify(dcross)))
    b = sympy_number(given.sigma_b2)
    a_of_q, b_of_q = cross.subs(c, 1), dcross.subs(c, 1)
    closed: dict[str, Any] = {}
    if given.sigma_w2 is not None:
        w = sympy_number(given.sigma_w2)
        q_star = sp.Symbol("q_star", positive=True)
        chi = sp.simplify(w * b_of_q.subs(q, q_star))
        length_slope = sp.simplify(w * sp.diff(a_of_q, q).subs(q, q_star))
        if not sp.simplify(a_of_q / q).has(q):  # homogeneous: q* in closed form
            gain = sp.simplify(a_of_q / q)
            if values["q_star"] != 0 and w * gain < 1:
                closed["q_star"] = sp.nsimplify(b / (1 - w * gain))
        else:
            derivation.append(("q_star solves", *forms(sp.Eq(q_star, w * a_of_q.subs(q, q_star) + b))))
        closed["chi1"] = chi.subs(q_star, closed.get("q_star", q_star))
        if values["q_star"] != 0 and values["chi1"] < 1:
            closed["depth_scale_q"] = (-1 / sp.log(length_slope)).subs(q_star, closed.get("q_star", q_star))
            closed["depth_scale_c"] = (-1 / sp.log(chi)).subs(q_star, closed.get("q_star", q_star))
    else:
        qc = sp.Symbol("q", nonnegative=True)
        w_line = sp.simplify(1 / b_of_q.subs(q, qc))
        b_line = sp.simplify(qc - w_line * a_of_q.subs(q, qc))
        derivation.append(
            (
                "critical line (parametrised by q*)",
                *forms(sp.Tuple(sp.Eq(sp.Symbol("sigma_w2"), w_line), sp.Eq(sp.Symbol("sigma_b2"), b_line))),
            )
        )
        if values["q_star"] == 0:
            closed["sigma_w2"] = sp.simplify(sp.limit(w_line, qc, 0, "+"))
    out: dict[str, tuple[str, str]] = {}
    for name, expr in closed.items():
        if expr.free_symbols:
            out[name] = forms(expr)
            continue
        with mp.workdps(CHECK_DIGITS + 10):
            value = mpmath.mpf(sp.N(expr, CHECK_DIGITS + 10))
            computed = values[name]
            if abs(value - computed) > abs(value) * mpmath.mpf(10) ** (-min(digits, CHECK_DIGITS)):
                raise PrecisionError(f"the closed form of {name} ({expr}) disagrees with the computed value")
        out[name] = forms(expr)
    return out, tuple(derivation)
