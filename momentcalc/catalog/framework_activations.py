"""The activations that frameworks ship and the normalizer-free tables scale, as catalog entries
(after the core entries in ``resolving.CATALOG``): relu6, hardtanh, hard_sigmoid, hard_swish (PyTorch's
``ReLU6``, ``Hardtanh``, ``Hardsigmoid``, ``Hardswish``), celu (``CELU(alpha)``), log_sigmoid
(``LogSigmoid``) and quick_gelu (x·σ(1.702x), CLIP's QuickGELU).

Closed forms under Z ~ N(0, 1), from the window moments M_k(a, b) = E[Z^k; a < Z < b]
(ϕ the normal density, written phi in the formulas, Φ its cdf, Phi, Q = 1 − Φ):

    M_0 = Φ(b) − Φ(a),  M_1 = ϕ(a) − ϕ(b),  M_2 = M_0 + aϕ(a) − bϕ(b),
    M_3 = 2M_1 + a²ϕ(a) − b²ϕ(b),  M_4 = 3M_2 + a³ϕ(a) − b³ϕ(b)

(integration by parts, E[Z^k; ·] = (k − 1)E[Z^(k−2); ·] + boundary terms), and
E[Z; Z > b] = ϕ(b), E[Z²; Z > b] = Q(b) + bϕ(b); celu's from E[e^{aZ}; Z < 0] = e^{a²/2}Φ(−a)
as for elu (celu with alpha = 1 is elu). log_sigmoid and quick_gelu have none: they are
integrated (a trapezoidal rule on a strip, ``ball_functions_framework``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import mp

from .activations import Activation, ClosedForm, _always, _never, _per_precision
from .elementary import sigmoid as _sigmoid
from .elementary import sigmoid_slope as _sigmoid_slope
from .elementary import softplus as _softplus
from .parameters import params_of

QUICK_GELU_SCALE = Fraction(
    "1.702"
)  # x·σ(1.702x): the constant of Hendrycks & Gimpel's sigmoid approximation
_quick_k = _per_precision(lambda: mpmath.mpf(QUICK_GELU_SCALE.numerator) / QUICK_GELU_SCALE.denominator)


class _Mp:
    """The functions the closed forms need, at mpmath's precision."""

    exp = staticmethod(mpmath.exp)
    sqrt = staticmethod(mpmath.sqrt)

    @staticmethod
    def num(p: int, q: int = 1) -> mpmath.mpf:
        return mpmath.mpf(p) / q

    @staticmethod
    def pi() -> mpmath.mpf:
        return +mp.pi

    @staticmethod
    def cdf(x: Any) -> mpmath.mpf:
        return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


class _Sp:
    """The same functions in sympy (``--derive`` and the tests)."""

    def __init__(self, sp: Any) -> None:
        self.sp = sp
        self.exp, self.sqrt = sp.exp, sp.sqrt

    def num(self, p: int, q: int = 1) -> Any:
        return self.sp.Rational(p, q)

    def pi(self) -> Any:
        return self.sp.pi

    def cdf(self, x: Any) -> Any:
        return self.sp.erfc(-x / self.sp.sqrt(2)) / 2


def _pdf(ns: Any, a: Any) -> Any:
    return ns.exp(-a * a / 2) / ns.sqrt(2 * ns.pi())


def _window(ns: Any, a: int, b: int) -> tuple[Any, ...]:
    """(M_0, …, M_4) over (a, b), a and b finite integers."""
    A, B = ns.num(a), ns.num(b)
    pa, pb = _pdf(ns, A), _pdf(ns, B)
    m0 = ns.cdf(B) - ns.cdf(A)
    m1 = pa - pb
    m2 = m0 + A * pa - B * pb
    m3 = 2 * m1 + A * A * pa - B * B * pb
    m4 = 3 * m2 + A**3 * pa - B**3 * pb
    return m0, m1, m2, m3, m4


def _upper(ns: Any, b: int) -> tuple[Any, Any, Any]:
    """(Q(b), E[Z; Z > b], E[Z²; Z > b])."""
    B = ns.num(b)
    q = ns.cdf(-B)
    return q, _pdf(ns, B), q + B * _pdf(ns, B)


# relu6 = min(max(x, 0), 6): the window (0, 6), then 6 beyond
def _relu6_moments(ns: Any) -> tuple[Any, Any, Any]:
    m = _window(ns, 0, 6)
    q = _upper(ns, 6)[0]
    return m[1] + 6 * q, m[2] + 36 * q, m[0]


# hardtanh = clamp(x, −1, 1): odd, so the mean is 0
def _hardtanh_moments(ns: Any) -> tuple[Any, Any, Any]:
    m = _window(ns, -1, 1)
    q = _upper(ns, 1)[0]
    return ns.num(0), m[2] + 2 * q, m[0]


# hard_sigmoid = relu6(x + 3)/6: x/6 + 1/2 on (−3, 3), 1 beyond 3
def _hard_sigmoid_moments(ns: Any) -> tuple[Any, Any, Any]:
    m = _window(ns, -3, 3)
    q = _upper(ns, 3)[0]
    return (m[1] / 6 + m[0] / 2 + q, m[2] / 36 + m[1] / 6 + m[0] / 4 + q, m[0] / 36)


# hard_swish = x·relu6(x + 3)/6: (x² + 3x)/6 on (−3, 3), x beyond 3
def _hard_swish_moments(ns: Any) -> tuple[Any, Any, Any]:
    m = _window(ns, -3, 3)
    q, e1, e2 = _upper(ns, 3)
    mean = (m[2] + 3 * m[1]) / 6 + e1
    second = (m[4] + 6 * m[3] + 9 * m[2]) / 36 + e2
    derivative = (4 * m[2] + 12 * m[1] + 9 * m[0]) / 36 + q
    return mean, second, derivative


# celu(alpha) = x for x > 0, alpha·(e^{x/alpha} − 1) otherwise; a = 1/alpha
def _celu_moments(ns: Any, alpha: Any) -> tuple[Any, Any, Any]:
    a = 1 / alpha
    e1 = ns.exp(a * a / 2) * ns.cdf(-a)  # E[e^{aZ}; Z < 0]
    e2 = ns.exp(2 * a * a) * ns.cdf(-2 * a)  # E[e^{2aZ}; Z < 0]
    half = ns.num(1, 2)
    mean = 1 / ns.sqrt(2 * ns.pi()) + alpha * (e1 - half)
    second = half + alpha * alpha * (e2 - 2 * e1 + half)
    return mean, second, half + e2


_TEXTS = {
    "relu6": (
        "(1 - exp(-18))/sqrt(2*pi) + 6*Phi(-6)",
        "Phi(6) - 1/2 - 6*phi(6) + 36*Phi(-6)",
        "Phi(6) - 1/2",
    ),
    "hardtanh": ("0", "erf(1/sqrt(2)) - 2*phi(1) + 2*Phi(-1)", "erf(1/sqrt(2))"),
    "hard_sigmoid": ("1/2", "5*erf(3/sqrt(2))/18 - phi(3)/6 + Phi(-3)", "erf(3/sqrt(2))/36"),
    "hard_swish": (
        "erf(3/sqrt(2))/6",
        "erf(3/sqrt(2))/3 - phi(3)/2 + Phi(-3)",
        "13*erf(3/sqrt(2))/36 - 2*phi(3)/3 + Phi(-3)",
    ),
    "celu": (
        "1/sqrt(2*pi) + alpha*(exp(a**2/2)*Phi(-a) - 1/2), a = 1/alpha",
        "1/2 + alpha**2*(exp(2*a**2)*Phi(-2*a) - 2*exp(a**2/2)*Phi(-a) + 1/2)",
        "1/2 + exp(2*a**2)*Phi(-2*a)",
    ),
}
_NAMES = ("mean", "second_moment", "derivative_second_moment")


def _forms(name: str, moments: Any, parametric: bool = False) -> dict[str, ClosedForm]:
    """ClosedForms from ``moments(ns[, alpha])``: mpmath values and sympy expressions of one
    formula, so the two cannot disagree."""

    def value(i: int) -> Any:
        if parametric:
            return lambda p: moments(_Mp, p["alpha"])[i]
        return lambda p: moments(_Mp)[i]

    def symbolic(i: int) -> Any:
        if parametric:
            return lambda sp, p: moments(_Sp(sp), p["alpha"])[i]
        return lambda sp, p: moments(_Sp(sp))[i]

    return {key: ClosedForm(_TEXTS[name][i], value(i), symbolic(i)) for i, key in enumerate(_NAMES)}


def _clamp(x: mpmath.mpf, low: int, high: int) -> mpmath.mpf:
    return mpmath.mpf(low) if x <= low else mpmath.mpf(high) if x >= high else x


def _inside(x: mpmath.mpf, low: int, high: int) -> bool:
    return low < x < high


def _kinks(*points: int):
    return lambda p: tuple(mpmath.mpf(k) for k in points)


def _pw(sp: Any, x: Any, pieces: tuple[tuple[Any, Any], ...]) -> Any:
    return sp.Piecewise(*pieces)


def _quick_gelu_pair(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    k = _quick_k()
    s = _sigmoid(k * x)
    return x * s, s + k * x * _sigmoid_slope(k * x)


FRAMEWORK_ACTIVATIONS: tuple[Activation, ...] = (
    Activation(
        "relu6",
        "min(max(x, 0), 6)",
        fn=lambda x, p: _clamp(x, 0, 6),
        derivative=lambda x, p: mp.one if _inside(x, 0, 6) else mp.zero,
        sympy=lambda sp, x, p: _pw(sp, x, ((0, x <= 0), (x, x < 6), (6, True))),
        nonnegative=_always,
        tangent_bound=True,
        kinks=_kinks(0, 6),
        closed_forms=_forms("relu6", _relu6_moments),
    ),
    Activation(
        "hardtanh",
        "min(max(x, -1), 1)",
        fn=lambda x, p: _clamp(x, -1, 1),
        derivative=lambda x, p: mp.one if _inside(x, -1, 1) else mp.zero,
        sympy=lambda sp, x, p: _pw(sp, x, ((-1, x <= -1), (x, x < 1), (1, True))),
        nonnegative=_never,
        tangent_bound=True,
        aliases=("hard_tanh",),
        kinks=_kinks(-1, 1),
        parity="odd",
        closed_forms=_forms("hardtanh", _hardtanh_moments),
    ),
    Activation(
        "hard_sigmoid",
        "min(max(x + 3, 0), 6)/6 (PyTorch's Hardsigmoid)",
        source="min(max(x + 3, 0), 6)/6",
        fn=lambda x, p: _clamp(x, -3, 3) / 6 + mpmath.mpf(1) / 2,
        derivative=lambda x, p: mpmath.mpf(1) / 6 if _inside(x, -3, 3) else mp.zero,
        sympy=lambda sp, x, p: _pw(sp, x, ((0, x <= -3), (x / 6 + sp.Rational(1, 2), x < 3), (1, True))),
        nonnegative=_always,
        aliases=("hardsigmoid",),
        kinks=_kinks(-3, 3),
        closed_forms=_forms("hard_sigmoid", _hard_sigmoid_moments),
    ),
    Activation(
        "hard_swish",
        "x*min(max(x + 3, 0), 6)/6 (PyTorch's Hardswish)",
        source="x*min(max(x + 3, 0), 6)/6",
        fn=lambda x, p: x * (_clamp(x, -3, 3) + 3) / 6,
        derivative=lambda x, p: mp.zero if x <= -3 else mp.one if x >= 3 else (2 * x + 3) / 6,
        sympy=lambda sp, x, p: _pw(sp, x, ((0, x <= -3), (x * (x + 3) / 6, x < 3), (x, True))),
        nonnegative=_never,
        aliases=("hardswish",),
        kinks=_kinks(-3, 3),
        closed_forms=_forms("hard_swish", _hard_swish_moments),
    ),
    Activation(
        "celu",
        "x if x > 0 else alpha*(exp(x/alpha) - 1)",
        source="max(x, 0) + alpha*(exp(min(x, 0)/alpha) - 1)",
        fn=lambda x, p: x if x > 0 else p["alpha"] * mpmath.expm1(x / p["alpha"]),
        derivative=lambda x, p: mp.one if x > 0 else mpmath.exp(x / p["alpha"]),
        sympy=lambda sp, x, p: sp.Piecewise((x, x > 0), (p["alpha"] * (sp.exp(x / p["alpha"]) - 1), True)),
        nonnegative=_never,
        tangent_bound=True,
        kinks=lambda p: (mp.zero,),
        params=params_of("celu"),
        relu_mixture=1,  # alpha·(e^(x/alpha) − 1) below 0: convex for every alpha > 0
        closed_forms=_forms("celu", _celu_moments, parametric=True),
    ),
    Activation(
        "log_sigmoid",
        "log(1/(1 + exp(-x))) = -softplus(-x)",
        source="-log(1 + exp(-x))",
        fn=lambda x, p: -_softplus(-x),
        derivative=lambda x, p: _sigmoid(-x),
        sympy=lambda sp, x, p: -sp.log(1 + sp.exp(-x)),
        nonnegative=_never,
        aliases=("logsigmoid",),
        relu_mixture=-1,  # −softplus(−x)
    ),
    Activation(
        "quick_gelu",
        "x*sigmoid(1.702*x)",
        source="x*sigmoid(1.702*x)",
        fn=lambda x, p: x * _sigmoid(_quick_k() * x),
        derivative=lambda x, p: _quick_gelu_pair(x, p)[1],
        pair=_quick_gelu_pair,
        sympy=lambda sp, x, p: (
            x / (1 + sp.exp(-sp.Rational(QUICK_GELU_SCALE.numerator, QUICK_GELU_SCALE.denominator) * x))
        ),
        nonnegative=_never,
        aliases=("quickgelu",),
    ),
)
