"""sympy derivation of the GAU magnitudes (Su 2022, GAU at initialization), used only by ``--derive``.

    mu = ∫ φ(x)·e^(−x²/2)/sqrt(2π) dx,   nu² = ∫ φ(x)²·e^(−x²/2)/sqrt(2π) dx
    A_ii ≈ relu²(s·nu²)/(n·s) = s·nu⁴/n,   A_ij ≈ relu²(s·mu²)/(n·s) = s·mu⁴/n
    O ≈ (s·nu⁴/n)(U ⊙ V) W_o,   E[O²] ≈ s²·nu¹²/n²   ⇒   O = O(s·nu⁶/n)
    W → lam·W:  U, V, Z → lam·(U, V, Z),  A → lam⁴·A,  O → lam⁷·O

mu and nu² are the activation's closed forms where the catalog has them (relu: 1/sqrt(2π),
1/2), and otherwise stay the integrals they are defined by.
"""

from __future__ import annotations

from typing import Any

from . import forms, shortest, sympy_number


def derive(
    act: Any, sizes: dict[str, Any], init_std: Any
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, derivation lines) for this activation and these sizes."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    s, n, mu, nu, lam = sp.symbols("s n mu nu lambda", positive=True)
    phi = act.sympy_expression(x)
    density = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)
    integral_mu = sp.Integral(phi * density, (x, -sp.oo, sp.oo))
    integral_nu2 = sp.Integral(phi**2 * density, (x, -sp.oo, sp.oo))

    diag, offdiag = s * nu**4 / n, s * mu**4 / n
    output = s * nu**6 / n
    lines = [
        ("mu", f"mu = {integral_mu}", r"\mu = " + sp.latex(integral_mu)),
        ("nu2", f"nu**2 = {integral_nu2}", r"\nu^2 = " + sp.latex(integral_nu2)),
        (
            "attention",
            f"A_ii = relu(s*nu**2)**2/(n*s) = {diag},  A_ij = relu(s*mu**2)**2/(n*s) = {offdiag}",
            rf"A_{{ii}} \approx {sp.latex(diag)},\quad A_{{ij}} \approx {sp.latex(offdiag)}",
        ),
        (
            "output",
            f"O = ({diag})*(U o V)*W_o,  E[O**2] = {output**2}  =>  |O| = {output}",
            rf"O \approx {sp.latex(diag)}\,(U \odot V) W_o,\quad \mathbb{{E}}[O^2] \approx {sp.latex(output**2)}",
        ),
        (
            "scale",
            f"W -> lambda*W: U, V, Z -> lambda*(U, V, Z), A -> lambda**4*A, O -> {lam**7}*O",
            r"W \to \lambda W:\ A \to \lambda^4 A,\ O \to \lambda^7 O",
        ),
    ]

    known = getattr(act, "closed_forms", {})
    params = act.sympy_params()
    mean = known["mean"].sympy(sp, params) if "mean" in known else integral_mu
    second = known["second_moment"].sympy(sp, params) if "second_moment" in known else integral_nu2
    values = {s: sympy_number(sizes["s"]), n: sympy_number(sizes["n"])}
    scale = sp.Integer(1) if init_std is None else sympy_number(init_std) * sp.sqrt(sympy_number(sizes["d"]))

    def at(expr: Any) -> Any:
        return shortest(expr.subs(values).subs({nu: sp.sqrt(second), mu: mean}))

    scaled = at(scale**7 * output)
    exprs = {
        "mu": mean,
        "nu2": second,
        "nu": sp.sqrt(second),
        "diag_attention": at(diag),
        "offdiag_attention": at(offdiag),
        "diag_offdiag_ratio": at(nu**4 / mu**4) if mean != 0 else sp.oo,
        "output_scale": at(output),
        "lambda": scale,
        "scaled_output": scaled,
        "deepnorm_alpha": shortest(1 / scaled) if scaled != 0 else sp.oo,
    }
    return {name: forms(expr) for name, expr in exprs.items()}, tuple(lines)
