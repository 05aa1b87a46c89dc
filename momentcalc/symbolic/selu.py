"""sympy derivation of the two selu moment equations (Klambauer et al., 2017, Self-Normalizing
Neural Networks; Su, 2021, Initialization, parameterization and normalization of Transformers,
sets them up in a Mathematica session, here sympy does).

sympy integrates each branch of selu(Z) = λ·g(Z), Z = m + s·T, against the standard normal
density of T over its half-line (T > c or T ≤ c, c = −m/s): once for symbolic m, s, c, then
the exact input mean and std are substituted. Each term is t^k·exp(b·t − t²/2); completing the
square reduces it to the moments ∫ u^j·exp(−u²/2) du over a half-line, which sympy integrates.
The result is E[g] = M1 + α·a and E[g²] = M2 + α²·b in erfc and exp, and the equations
λ·E[g] = μ, λ²·E[g²] = μ² + v.

The closed forms of α and λ follow from the reduction in ``computations/selu.py``:
α = (M1·√I − σ·k·|a|·M2)/(|a|·√I + σ·k·b·M1), I = a²·M2 + b·(M1² − k²·M2), k = |μ|/sqrt(μ² + v),
λ = sqrt((μ² + v)/E[g²]).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache, cache
from typing import Any

import mpmath

from . import forms, shortest, sympy_number

SELU_TEXT = "selu(x) = lambda*x for x > 0, lambda*alpha*(exp(x) - 1) for x <= 0;  Z ~ N({m}, {s}**2)"
SELU_LATEX = (
    r"\operatorname{selu}(x) = \lambda \begin{cases} x & x > 0 \\ \alpha (e^{x} - 1) & x \le 0 "
    r"\end{cases}, \quad Z \sim \mathcal{N}\left({m}, {s}^2\right)"
)
SOLUTION_TEXT = (
    "lambda cancels from E[selu(Z)]/std[selu(Z)] = target_mean/sqrt(target_var), which fixes alpha "
    "(the ratio falls strictly as alpha grows); then lambda = sqrt((target_mean**2 + target_var)/E[g(Z)**2]), "
    "g = selu/lambda"
)
SOLUTION_LATEX = (
    r"g = \operatorname{selu}/\lambda: \frac{E[g]}{\sqrt{E[g^2] - E[g]^2}} = \frac{\mu}{\sqrt{v}} \Rightarrow \alpha,"
    r"\quad \lambda = \sqrt{\frac{\mu^2 + v}{E[g^2]}}"
)


def _half_line_integral(factor: Any, t: Any, c: Any, low: Any, high: Any) -> Any:
    """∫ factor dt over the half-line (low, high), one end of which is ``c``.

    Every factor here is p(t)·exp(b·t − t²/2) (p a polynomial). Completing the square,
    t = u + b, turns it into exp(b²/2)·p(u + b)·exp(−u²/2) over the half-line shifted by −b;
    sympy integrates each u^j·exp(−u²/2) over the half-line once (a few tenths of a second in
    all), where integrating the shifted Gaussian as given sends it through Meijer G functions at
    several times the cost, for the same expression after ``simplify``. Any other factor goes to
    sympy as it is.
    """
    import sympy as sp

    polynomial, exponent = sp.Integer(1), sp.Integer(0)
    for part in sp.Mul.make_args(factor):
        if isinstance(part, sp.exp):
            exponent += part.args[0]
        else:
            polynomial *= part
    if not (polynomial.is_polynomial(t) and exponent.is_polynomial(t)):
        return sp.integrate(factor, (t, low, high))
    quadratic = sp.Poly(exponent, t)
    if quadratic.degree() != 2 or quadratic.coeff_monomial(t**2) != sp.Rational(-1, 2):
        return sp.integrate(factor, (t, low, high))
    b, constant = quadratic.coeff_monomial(t), quadratic.coeff_monomial(1)
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(polynomial.subs(t, t + b))):
        coefficient, power = term.as_independent(t, as_Add=False)
        total += coefficient * _gaussian_moment(sp.degree(power, t), t, c, low, high).subs(c, c - b)
    return sp.exp(constant + b**2 / 2) * total


@cache
def _gaussian_moment(k: int, t: Any, c: Any, low: Any, high: Any) -> Any:
    """∫ t^k·exp(−t²/2) dt over (low, high), by sympy (cached: the half-line's end ``c`` is a
    symbol, substituted by the caller)."""
    import sympy as sp

    return sp.integrate(t**k * sp.exp(-(t**2) / 2), (t, low, high))


@lru_cache(maxsize=1)
def _generic() -> tuple[Any, ...]:
    """E[g] and E[g²] for symbolic m, s > 0 and split point c (c = −m/s is substituted later)."""
    import sympy as sp

    t, c, m = sp.symbols("t c m", real=True)
    s = sp.Symbol("s", positive=True)
    alpha = sp.Symbol("alpha", positive=True)
    phi = sp.exp(-(t**2) / 2) / sp.sqrt(2 * sp.pi)
    z = m + s * t
    positive_branch, negative_branch = z, alpha * (sp.exp(z) - 1)

    done: dict[tuple[Any, Any], Any] = {}

    def integral(branch: Any, low: Any, high: Any) -> Any:
        # Term by term; each distinct t-dependent factor is integrated once.
        total = sp.Integer(0)
        for term in sp.Add.make_args(sp.expand(branch * phi)):
            constant, factor = term.as_independent(t, as_Add=False)
            key = (factor, low)
            if key not in done:
                done[key] = sp.simplify(_half_line_integral(factor, t, c, low, high).rewrite(sp.erfc))
            total += constant * done[key]
        return total

    first = integral(positive_branch, c, sp.oo) + integral(negative_branch, -sp.oo, c)
    second = integral(positive_branch**2, c, sp.oo) + integral(negative_branch**2, -sp.oo, c)
    return m, s, c, alpha, first, second


def _tidy(expr: Any, alpha: Any) -> Any:
    import sympy as sp

    return sp.collect(sp.expand(sp.powsimp(sp.expand(expr))), alpha)


def derive(
    target_mean: Fraction,
    target_var: Fraction,
    input_mean: Fraction,
    input_std: Fraction,
    alpha_value: mpmath.mpf,
    digits: int,
) -> tuple[tuple[tuple[str, str, str], ...], dict[str, tuple[str, str]]]:
    """(derivation lines, closed forms of lambda, alpha, saturation) for these exact inputs.

    ``alpha_value`` (the numerical solution, correct to ``digits``) guards the closed form: if
    sympy's expression does not evaluate to it, no closed form is given.
    """
    import sympy as sp

    m, s, c, alpha, first, second = _generic()
    mu, var = sympy_number(target_mean), sympy_number(target_var)
    in_m, in_s = sympy_number(input_mean), sympy_number(input_std)
    values = {m: in_m, s: in_s, c: -in_m / in_s}
    e1 = _tidy(first.subs(values), alpha)
    e2 = _tidy(second.subs(values), alpha)
    target_second = mu**2 + var

    derivation = (
        (
            "selu",
            SELU_TEXT.format(m=in_m, s=in_s if in_s.is_integer else f"({in_s})"),
            SELU_LATEX.replace("{m}", sp.latex(in_m)).replace(
                "{s}", sp.latex(in_s) if in_s.is_integer else rf"\left({sp.latex(in_s)}\right)"
            ),
        ),
        (
            "mean equation",
            f"E[selu(Z)] = lambda*({e1}) = {mu}",
            rf"E[\operatorname{{selu}}(Z)] = \lambda \left({sp.latex(e1)}\right) = {sp.latex(mu)}",
        ),
        (
            "second-moment equation",
            f"E[selu(Z)**2] = lambda**2*({e2}) = {target_second}",
            rf"E[\operatorname{{selu}}(Z)^2] = \lambda^2 \left({sp.latex(e2)}\right) = {sp.latex(target_second)}",
        ),
        ("solution", SOLUTION_TEXT, SOLUTION_LATEX),
    )

    m1, a = e1.coeff(alpha, 0), e1.coeff(alpha, 1)
    m2, b = e2.coeff(alpha, 0), e2.coeff(alpha, 2)
    if mu == 0:
        alpha_form = shortest(m1 / -a)
        lambda_form = sp.sqrt(target_second / shortest(m2 + alpha_form**2 * b))
    else:
        sign, k = sp.sign(mu), sp.sqrt(mu**2 / target_second)
        root = sp.sqrt(a**2 * m2 + b * (m1**2 - k**2 * m2))
        alpha_form = (m1 * root + sign * k * a * m2) / (-a * root + sign * k * b * m1)
        lambda_form = sp.sqrt(target_second / (m2 + alpha_form**2 * b))
    # alpha_value is correct to at least ``digits`` + 3 digits.
    check_digits = min(20, digits + 2)
    check = sp.N(alpha_form, check_digits + 5)
    with mpmath.workdps(check_digits + 5):
        agrees = (
            abs(mpmath.mpf(str(check)) - alpha_value) <= abs(alpha_value) * mpmath.mpf(10) ** -check_digits
        )
    if not agrees:
        return derivation, {}
    closed = {"alpha": alpha_form, "lambda": lambda_form, "saturation": -lambda_form * alpha_form}
    if mu == 0:
        return derivation, {name: forms(expr) for name, expr in closed.items()}
    # Long expressions: printing them in sympy's canonical term order costs seconds.
    return derivation, {
        name: (sp.sstr(expr, order="none"), sp.latex(expr, order="none")) for name, expr in closed.items()
    }
