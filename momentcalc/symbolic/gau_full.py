"""sympy derivation of gau-scale's full results (``computations.gau.full``), used only by ``--derive``.

    m_k = ∫ φ(λx)^k·e^(−x²/2)/sqrt(2π) dx
    E[A_ii] = E[‖Z_i‖⁴]/(n·s) = (m4 + (s−1)·m2²)/n
    E[A_ij] = (m2² + (s−1)·m1⁴)/n − E[relu(−⟨Z_i, Z_j⟩)²]/(n·s)
    E[O²]   = λ²·(P1 + (n−1)·P2 + 2(n−1)·P3 + (n−1)(n−2)·P4) / (n·s)²  (+ relu and 1/d terms)

P1 … P4 are polynomials in m_1 … m_8 and s, derived here by the same column-sum series
(``engine.column_sums``) with sympy symbols for the moments.
"""

from __future__ import annotations

import math
from typing import Any

from . import sympy_number
from ..engine.column_sums import column_sum_moment


def _polynomials(sp: Any, m: list[Any], s: Any, patterns: dict[str, Any]) -> dict[str, Any]:
    """P1 … P4 (relu left out, K = I) as polynomials in the moment symbols ``m`` and s;
    ``patterns`` are ``computations.gau.full.PATTERNS``."""
    out = {}
    for name, (_tokens, sums, powers, v_powers) in patterns.items():
        z = column_sum_moment(sums, powers, lambda b, r: math.prod(m[b[t]] for t in b), s, 0)[0]
        v = math.prod(m[p] for p in v_powers.values())
        out[name] = sp.expand(m[2] * z * v)
    return out


def derive(
    act: Any, sizes: dict[str, Any], init_std: Any, relu_removes: bool, patterns: dict[str, Any]
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, derivation lines) of the full results."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    s, n, lam = sp.symbols("s n lambda", positive=True)
    m = [sp.Integer(1), *sp.symbols("m1:9", real=True)]
    scale = sp.Integer(1) if init_std is None else sympy_number(init_std) * sp.sqrt(sympy_number(sizes["d"]))
    phi: Any = act.sympy_expression(lam * x) if hasattr(act, "sympy_expression") else None
    density = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)

    def moment(k: int) -> Any:
        return sp.Integral((phi**k * density).subs(lam, scale), (x, -sp.oo, sp.oo))

    known = getattr(act, "closed_forms", {})
    params = act.sympy_params()
    exact = {1: moment(1), 2: moment(2), 4: moment(4)}
    if scale == 1:
        if "mean" in known:
            exact[1] = known["mean"].sympy(sp, params)
        if "second_moment" in known:
            exact[2] = known["second_moment"].sympy(sp, params)
    values = {s: sympy_number(sizes["s"]), n: sympy_number(sizes["n"])}

    def at(expr: Any) -> tuple[str, str]:
        """(str, LaTeX) with the moments' integrals in: printed unordered, as ordering a sum of
        integrals makes sympy evaluate them numerically."""
        value = expr.subs(values).subs({m[k]: exact[k] for k in exact})
        return sp.sstr(value, order="none"), sp.latex(value, order="none")

    diag = (m[4] + (s - 1) * m[2] ** 2) / n
    offdiag = (m[2] ** 2 + (s - 1) * m[1] ** 4) / n
    removed = sp.Symbol("N2", nonnegative=True)
    closed = {"attention_diag_mean": at(diag)}
    if not relu_removes:
        closed["attention_offdiag_mean"] = at(offdiag)

    p = _polynomials(sp, m, s, patterns)
    big_p = sp.symbols("P1:5")
    total = (
        lam**2
        * (big_p[0] + (n - 1) * big_p[1] + 2 * (n - 1) * big_p[2] + (n - 1) * (n - 2) * big_p[3])
        / (n * s) ** 2
    )
    lines = [
        (
            "moments",
            "m_k = Integral(phi(lambda*x)**k*exp(-x**2/2)/sqrt(2*pi), (x, -oo, oo)), lambda = init_std*sqrt(d)",
            r"m_k = \int_{-\infty}^{\infty} \phi(\lambda x)^k \frac{e^{-x^2/2}}{\sqrt{2\pi}}\,dx",
        ),
        (
            "attention_diag_mean",
            f"E[A_ii] = E[|Z_i|**4]/(n*s) = {diag}",
            r"\mathbb{E}[A_{ii}] = " + sp.latex(diag),
        ),
        (
            "attention_offdiag_mean",
            f"E[A_ij] = {offdiag} - N2/(n*s),  N2 = E[relu(-<Z_i, Z_j>)**2] "
            "(0 when phi >= 0; else a shifted-gamma law for <Z_i, Z_j> given Z_i)",
            r"\mathbb{E}[A_{ij}] = " + sp.latex(offdiag - removed / (n * s)),
        ),
        (
            "output",
            f"E[O**2] = {total}  (integrating W_o, U, V out; relu and 1/d terms added to each P)",
            r"\mathbb{E}[O^2] = " + sp.latex(total),
        ),
    ]
    for _k, name in enumerate(("P1", "P2", "P3", "P4")):
        lines.append((name, f"{name} = {p[name]}", f"{name} = " + sp.latex(p[name])))
    lines.append(
        (
            "width",
            "1/d terms: each P at K = X X^T/d near I, expanded to second order (Mehler), "
            "averaged with Var(K_ii) = 2/d, Var(K_ij) = 1/d",
            r"\Delta P = \sum_t \tfrac{2}{d}\,\partial^2_{K_{tt}} P + \sum_{t<u} \tfrac{1}{d}\,\partial^2_{K_{tu}} P",
        )
    )
    return closed, tuple(lines)
