"""sympy derivation of the init results (Garg, where 1/sqrt(d) comes from; Wu 2022, NLP reading notes;
Su 2021, Transformer initialization for the truncation).

    lecun   variance = 1/fan_in
    xavier  variance = 2/(fan_in + fan_out)
    he      variance = gain**2/fan_in,  gain = 1/sqrt(E[act(Z)**2])  (the catalog's closed form of
            E[act(Z)**2] where it has one, else the Gaussian integral left unevaluated)
    std = sqrt(variance), uniform bound = sqrt(3)*std,
    std_to_pass = std/sqrt(gamma) with gamma of N(0, 1) kept on [-2, 2], truncnorm bound = 2*std_to_pass,
    bert_ratio = (1/50)/std
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from . import forms, shortest, sympy_number
from ..defaults import BERT_STD, TRUNCATION
from .truncnorm import derive as truncnorm_forms

VARIANCE = {
    "lecun": "1/fan_in",
    "xavier": "2/(fan_in + fan_out)",
    "he": "gain**2/fan_in",
}


def truncation_gamma(cut: int) -> Any:
    """gamma(-cut, cut) in closed form, from the truncnorm derivation (integrals of the density)."""
    import sympy as sp

    text, _ = truncnorm_forms(Fraction(-cut), Fraction(cut), Fraction(0), Fraction(1), None)["gamma"]
    return sp.sympify(text)


def he_second_moment(act: Any) -> Any:
    """E[act(Z)**2] for Z ~ N(0, 1) of a bound catalog ``Activation``: the catalog's closed
    form, else the integral it reduces to (a ``_positive_integral()``)."""
    import sympy as sp

    form = act.closed_forms.get("second_moment")
    if form is not None:
        return form.sympy(sp, act.sympy_params())
    x = sp.Symbol("x", real=True)
    density = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)
    return _positive_integral()(act.sympy_expression(x) ** 2 * density, (x, -sp.oo, sp.oo))


@lru_cache(maxsize=1)
def _positive_integral() -> Any:
    """sympy's ``Integral``, known to be positive and finite: E[act(Z)**2] of an activation
    whose moments were computed (finite) and whose gain exists (the moment is not 0).

    Asked the sign of a plain unevaluated integral (for sqrt(1/I) = 1/sqrt(I)), sympy integrates
    it numerically, a second or more for tanh-like activations and again for each rewriting of
    it; the algebra and the printed forms are the same.
    """
    import sympy as sp

    class PositiveIntegral(sp.Integral):
        def _eval_is_extended_positive(self) -> bool:
            return True

        def _eval_is_finite(self) -> bool:
            return True

    return PositiveIntegral


def derive(
    scheme: str,
    distribution: str,
    fan_in: Fraction,
    fan_out: Fraction | None,
    activation: Any,
    label: str | None = None,
) -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...]]:
    """(closed forms by result name, derivation lines) for these exact inputs; ``activation``
    is the bound catalog ``Activation`` of scheme he (None otherwise), ``label`` its name as given."""
    import sympy as sp

    n_in, n_out, gain_symbol = sp.symbols("fan_in fan_out gain", positive=True)
    general = sp.sympify(VARIANCE[scheme], locals={"fan_in": n_in, "fan_out": n_out, "gain": gain_symbol})
    lines = [("variance", f"variance = {general}", rf"\operatorname{{Var}}[w] = {sp.latex(general)}")]
    values: dict[Any, Any] = {n_in: sympy_number(fan_in)}
    if fan_out is not None:
        values[n_out] = sympy_number(fan_out)
    exprs: dict[str, Any] = {}
    if scheme == "he":
        lines.append(
            (
                "gain",
                f"gain = 1/sqrt(Integral({label}(x)**2*exp(-x**2/2)/sqrt(2*pi), (x, -oo, oo)))",
                r"\mathrm{gain} = \left(\int_{-\infty}^{\infty} \mathrm{act}(x)^2"
                r" \frac{e^{-x^2/2}}{\sqrt{2\pi}}\,dx\right)^{-1/2}",
            )
        )
        second = he_second_moment(activation)
        values[gain_symbol] = shortest(1 / sp.sqrt(second))
        exprs["gain"] = values[gain_symbol]
    variance = shortest(general.subs(values))
    std = shortest(sp.sqrt(variance))
    exprs.update(variance=variance, std=std)
    if distribution == "uniform":
        exprs["bound"] = shortest(sp.sqrt(3) * std)
    elif distribution == "truncnorm":
        gamma = truncation_gamma(TRUNCATION)
        lines.append(("gamma", f"gamma = {gamma}", rf"\gamma = {sp.latex(gamma)}"))
        to_pass = std / sp.sqrt(gamma)
        exprs["bound"] = TRUNCATION * to_pass
        exprs["std_to_pass"] = to_pass
    exprs["bert_ratio"] = shortest(sympy_number(BERT_STD) / std)
    return {name: forms(expr) for name, expr in exprs.items()}, tuple(lines)
