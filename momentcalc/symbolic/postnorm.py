"""sympy derivation of the Post-Norm weights (Su 2021, Transformer initialization; Su 2021, BERT's 0.02), used only by ``--derive``.

    x_{t+1} = Norm(alpha·x_t + F_t(x_t)) = (alpha·x_t + F_t)/sqrt(alpha² + sigma²)
    ⇒ x_L = d^L·x_0 + Σ_{k<L} (d/alpha)·d^(L−1−k)·F_k,   d = alpha/sqrt(alpha² + sigma²)

alpha = 1 is Post-Norm; Pre-Norm, x_{t+1} = x_t + F_t(Norm(x_t)), gives x_L = x_0 + Σ F_k.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from . import forms, shortest, sympy_number

# Depths up to which d^L is written out (1/64); deeper ones stay a power ((sqrt(2)/2)**1000).
EVALUATE_POWERS_UP_TO = 200
LONGEST_FORM = 300


def derive(
    layers: int,
    sigma: Fraction,
    threshold: Fraction,
    scheme: str,
    alpha: Fraction | None,
    configs: dict[str, Any] | None = None,
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, derivation lines) for these exact inputs."""
    import sympy as sp

    x0, xt, ft, fk, xl = sp.symbols("x_0 x_t F_t F_k x_L")
    s, a, big_l = sp.symbols("sigma alpha L", positive=True)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    if scheme == "pre":
        expansion = sp.Eq(xl, x0 + sp.Sum(fk, (k, 0, big_l - 1)))
        lines = [
            (
                "recursion",
                "x_(t+1) = x_t + F_t(Norm(x_t))  (pre-norm: nothing rescales x_t)",
                r"x_{t+1} = x_t + F_t(\mathrm{Norm}(x_t))",
            ),
            ("expansion", f"{expansion.lhs} = {expansion.rhs}", sp.latex(expansion)),
            (
                "variance",
                f"Var[x_L] = {1 + big_l * s**2}",
                sp.latex(sp.Eq(sp.Symbol("Var[x_L]"), 1 + big_l * s**2)),
            ),
        ]
        sigma_value = sympy_number(sigma)
        exprs = {
            "decay": sp.Integer(1),
            "identity_weight": sp.Integer(1),
            "branch_weights": sp.Integer(1),
            "depth_to_threshold": sp.oo,
            "final_variance": 1 + layers * sigma_value**2,
        }
        return {name: forms(expr) for name, expr in exprs.items()}, tuple(lines)

    symbolic_alpha = sp.Integer(1) if scheme == "post" else a
    d = symbolic_alpha / sp.sqrt(symbolic_alpha**2 + s**2)
    step = (symbolic_alpha * xt + ft) / sp.sqrt(symbolic_alpha**2 + s**2)
    weight = (d / symbolic_alpha) * d ** (big_l - 1 - k)
    expansion = d**big_l * x0 + sp.Sum(sp.powsimp(weight) * fk, (k, 0, big_l - 1))
    norm = "Norm(x_t + F_t(x_t))" if scheme == "post" else "Norm(alpha*x_t + F_t(x_t))"
    lines = [
        ("recursion", f"x_(t+1) = {norm} = {step}", r"x_{t+1} = " + sp.latex(step)),
        ("expansion", f"x_L = {expansion}", r"x_L = " + sp.latex(expansion)),
    ]
    roots = {
        name: sympy_number(root.coefficient) * sympy_number(root.radicand) ** sp.Rational(1, root.index)
        for name, root in (configs or {}).items()
    }
    if scheme == "deepnorm" and alpha is None:
        text = configs["deepnorm_alpha"].text if configs else "(2*L)**(1/4)"
        lines.append(("alpha", f"alpha = {text}  (DeepNet)", r"\alpha = " + text))

    alpha_value = (
        sp.Integer(1)
        if scheme == "post"
        else sympy_number(alpha)
        if alpha is not None
        else roots["deepnorm_alpha"]
        if roots
        else (2 * sp.Integer(layers)) ** sp.Rational(1, 4)
    )
    values = {s: sympy_number(sigma), a: alpha_value}
    decay = d.subs(values)
    exprs = {
        "decay": decay,
        "identity_weight": _power(sp, decay, layers),
        "branch_weights": shortest(sp.powsimp(weight.subs(values).subs(big_l, layers), force=True)),
        "depth_to_threshold": sp.floor(sp.log(sympy_number(threshold)) / sp.log(decay), evaluate=False) + 1,
        "final_variance": sp.Integer(1),
    }
    if scheme == "deepnorm":
        exprs["alpha"] = alpha_value
        exprs.update(roots)
    return {name: forms(expr) for name, expr in exprs.items()}, tuple(lines)


def _power(sp, base, exponent: int):
    """base**exponent, written out only while that stays short."""
    if exponent <= EVALUATE_POWERS_UP_TO:
        value = base**exponent
        if len(str(value)) <= LONGEST_FORM:
            return value
    return sp.Pow(base, exponent, evaluate=False)
