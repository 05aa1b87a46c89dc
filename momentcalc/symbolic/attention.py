"""sympy derivation of the attention logit moments (Garg, where 1/sqrt(d) comes from; "q·k second moment d" in Su 2021, Transformer initialization).

    E[(q·k)²] = Σ_{i=1..d} E[q_i²]·E[k_i²] = d·q_std²·k_std²

The cross terms E[q_i k_i q_j k_j] (i ≠ j) vanish because the components are independent
with mean 0. The simulated softmax weights have no closed form; the derivation says so.
"""

from __future__ import annotations

from fractions import Fraction

from . import forms, sympy_number


def derive(
    d: Fraction, q_std: Fraction, k_std: Fraction, seq_len: Fraction | None
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, derivation lines) for these exact inputs."""
    import sympy as sp

    i = sp.Symbol("i", integer=True, positive=True)
    n, q, k = sp.symbols("d q_std k_std", positive=True)
    terms = sp.Sum(q**2 * k**2, (i, 1, n))
    general = terms.doit()
    lines = [
        (
            "logit_second_moment",
            f"E[(q.k)**2] = {terms} = {general}",
            rf"\mathbb{{E}}[(q\cdot k)^2] = {sp.latex(terms)} = {sp.latex(general)}",
        ),
        (
            "scale",
            f"Var[q.k/sqrt(d)] = {sp.simplify(general / n)}",
            rf"\operatorname{{Var}}\left[\frac{{q\cdot k}}{{\sqrt{{d}}}}\right] = {sp.latex(sp.simplify(general / n))}",
        ),
    ]
    values = {n: sympy_number(d), q: sympy_number(q_std), k: sympy_number(k_std)}
    second = general.subs(values)
    exprs = {
        "logit_second_moment": second,
        "logit_std": sp.sqrt(second),
        "logit_range": 3 * sp.sqrt(second),
        "scale": 1 / sp.sqrt(values[n]),
        "scaled_logit_std": (q * k).subs(values),
    }
    if seq_len is not None:
        exprs["uniform_weight"] = 1 / sympy_number(seq_len)
        lines.append(
            (
                "max_weight",
                "max_weight = E[max_j exp(l_j)/Sum(exp(l_i), (i, 1, seq_len))], l = K q: no closed form, "
                "estimated by Monte Carlo",
                r"\mathbb{E}\left[\max_j \frac{e^{l_j}}{\sum_{i=1}^{n} e^{l_i}}\right],\ l = Kq"
                r"\ \text{(Monte Carlo)}",
            )
        )
    return {name: forms(expr) for name, expr in exprs.items()}, tuple(lines)
