"""The activation catalog, as data: one ``Activation`` per entry.

Each entry carries its formula text, an mpmath function and its hand-written derivative (the
default path never imports sympy), a lazily built sympy expression (``--derive`` and the
tests, which check the derivative against sympy's), its kinks (points where it is not smooth,
where the Gaussian integral is split), its steep points (where it changes on a scale of 1,
split only when std is large), its parity, whether it is ≥ 0 everywhere (given its parameters),
its parameters, and the moments under Z ~ N(0, 1) that have a closed form.

Closed forms (E over Z ~ N(0, 1), Φ the normal cdf; E[e^{aZ}; Z < 0] = e^{a²/2}·Φ(−a)):

* relu: E = 1/sqrt(2π), E[φ²] = 1/2, E[φ'²] = 1/2 (He init's 2/m: Garg, where 1/sqrt(d) comes from; Su 2021, Transformer initialization)
* leaky_relu(s): E = (1 − s)/sqrt(2π), E[φ²] = E[φ'²] = (1 + s²)/2
* relu2: E = 1/2, E[φ²] = 3/2, E[φ'²] = 2
* elu: E = 1/sqrt(2π) + √e·Φ(−1) − 1/2, E[φ²] = 1 + e²Φ(−2) − 2√e·Φ(−1), E[φ'²] = 1/2 + e²Φ(−2)
* selu = λ·elu_α with λ, α solving E = 0, E[φ²] = 1 (the Mathematica solve in Su 2021, Transformer initialization), so
  α = (1/sqrt(2π)) / (1/2 − √e·Φ(−1)) and λ = 1/sqrt(1/2 + α²(e²Φ(−2) − 2√e·Φ(−1) + 1/2))
* gelu = x·Φ(x): E = 1/(2√π), E[φ²] = 1/3 + √3/(6π), E[φ'²] = 1/3 + 2/(3√3·π)
  (Stein's identity twice, with E[φ(Z)²] = 1/(2√3·π))
* erf: E[φ²] = (2/π)·asin(2/3), E[φ'²] = 4/(π√5)
* identity: E = 0, E[φ²] = E[φ'²] = 1
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any, NamedTuple

import mpmath
from mpmath import mp

from ..engine.numbers import Number, sympy_number, to_mpf
from .elementary import sech2 as _sech2
from .expression_domain import zeros
from .parameters import Param, params_of
from .elementary import sigmoid as _sigmoid
from .elementary import sigmoid_slope as _sigmoid_slope
from .elementary import softplus as _softplus

MpFn = Callable[[mpmath.mpf, Mapping[str, mpmath.mpf]], mpmath.mpf]


def _no_kinks(p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, ...]:
    return ()


def _always(p: Mapping[str, mpmath.mpf]) -> bool:
    return True


def _never(p: Mapping[str, mpmath.mpf]) -> bool:
    return False


SympyFn = Callable[[Any, Any, Mapping[str, Any]], Any]  # (sympy module, x, params) -> expression


class ClosedForm(NamedTuple):
    """A moment under Z ~ N(0, 1) in closed form: mpmath value, sympy expression, text."""

    text: str
    value: Callable[[Mapping[str, mpmath.mpf]], mpmath.mpf]
    sympy: Callable[[Any, Mapping[str, Any]], Any]


class Activation(NamedTuple):
    """One activation φ with everything needed to integrate it against a Gaussian (an
    immutable record; NamedTuple rather than a dataclass only because it is cheaper to
    create at start-up)."""

    name: str
    # φ as text; for a catalog entry, an expression in x (``expression_parse``'s language, its
    # parameters by name) that defines it, unless ``source`` is that expression
    formula: str
    # Hand-written φ, φ' (mpmath) and sympy form: optional overrides of the expression (an entry
    # without them is its expression: ``resolving.resolve``); tests hold them against it
    fn: MpFn | None = None
    derivative: MpFn | None = None
    sympy: SympyFn | None = None
    aliases: tuple[str, ...] = ()
    kinks: Callable[[Mapping[str, mpmath.mpf]], tuple[mpmath.mpf, ...]] = _no_kinks
    steep: tuple[int, ...] = (0,)
    parity: str | None = None  # "odd" or "even" when φ(−x) = ∓φ(x) exactly
    params: tuple[Param, ...] = ()
    closed_forms: Mapping[str, ClosedForm] = MappingProxyType({})
    values: tuple[tuple[str, Number], ...] = ()  # bound parameter values
    expression: bool = False  # built from a user expression rather than the catalog
    # Expressions: sub-expressions whose real zeros are kinks or singular points.
    critical: tuple[Callable[[mpmath.mpf], mpmath.mpf], ...] = ()
    # Optional (x, params) -> (φ(x), φ'(x)) sharing work between the two (one exp for swish).
    pair: Callable[[mpmath.mpf, Mapping[str, mpmath.mpf]], tuple[mpmath.mpf, mpmath.mpf]] | None = None
    # The pair returns fn's and derivative's values bit for bit (it only shares their work), so
    # an integrand without φ' may call fn alone; otherwise it calls the pair, for the same φ.
    pair_exact: bool = False
    # Expressions: the checked tree (``expression_tree.Node``) the functions were built from.
    tree: Any = None
    # params -> whether φ(x) ≥ 0 for every real x (gau-scale: then the relu on ⟨Z_i, Z_j⟩
    # removes nothing). Declared for every catalog entry; None for expressions, which
    # gau.full.nonnegative checks on a grid (tests/test_gau_full.py checks the declarations
    # against that grid).
    nonnegative: Callable[[Mapping[str, mpmath.mpf]], bool] | None = None
    # The expression in x that defines a catalog entry whose display ``formula`` is not one
    # ("x*Phi(x) = x*(1 + erf(x/sqrt(2)))/2"); parameters by name. The single source that the
    # hand-written functions, balls, closed forms and twins are checked against.
    source: str | None = None
    # φ(0) = 0 and φ stays within its one-sided tangents at 0 for every parameter value:
    # φ(x)² ≤ φ'(0−)²·x² for x < 0 and ≤ φ'(0+)²·x² for x > 0, strictly on a set of positive
    # measure (tanh, softsign, erf: |φ| < |φ'(0)|·|x|; hardtanh, relu6 clip; elu, selu, celu:
    # |e^t − 1| ≤ |t|). Then E[φ(√q Z)²] < q·(φ'(0−)² + φ'(0+)²)/2 for every q > 0, which proves
    # meanfield's q* = 0 where σ_b² = 0 and χ₁ ≤ 1 (tests/test_meanfield.py samples the bound).
    tangent_bound: bool = False
    # 1 when φ is a convex sum of relus for every parameter value: φ'' ≥ 0 (a measure) of finite
    # mass, φ'(−∞) = 0 and φ(−∞) finite (relu, elu, softplus, celu), −1 when −φ(−x) is
    # (log_sigmoid), else 0. ``moments.dks_convex`` bounds DKS's C'(1) for them
    # (tests/test_tat_reach.py checks every declaration on a grid).
    relu_mixture: int = 0
    # (a, b, s) when φ(x) = a + b·tanh(x/s) exactly (tanh, sigmoid): its Hermite moments then
    # come from tanh's Fourier transform (``moments.mehler_series``: Mehler's series of the
    # bivariate kernel at small correlations; tests/test_mehler_series.py checks each declaration)
    tanh_form: tuple[Fraction, Fraction, Fraction] | None = None
    # The proof module (``moments.dks_ceilings.PROOFS``) showing that DKS's per-layer C'(1) stays
    # below its CEILING wherever Q'(1) = 1 (swish: "dks_swish"), else "". ``tat`` trusts it (the
    # proofs cost minutes of CPU); tests/test_dks_ceilings.py runs them.
    dks_ceiling: str = ""

    def bind(self, **values: Number) -> Activation:
        """This activation with its parameters set (defaults for the ones not given)."""
        bound = tuple((p.name, values.get(p.name, p.default)) for p in self.params)
        return self._replace(values=bound)

    def param_values(self) -> dict[str, mpmath.mpf]:
        """The bound parameters as mpf at the current working precision."""
        given = dict(self.values)
        return {p.name: to_mpf(given.get(p.name, p.default)) for p in self.params}

    def sympy_params(self) -> dict[str, Any]:
        given = dict(self.values)
        return {p.name: sympy_number(given.get(p.name, p.default)) for p in self.params}

    def sympy_expression(self, x: Any) -> Any:
        import sympy as sp

        if self.sympy is None:
            raise TypeError(f"{self.name} has no sympy form")
        return self.sympy(sp, x, self.sympy_params())

    def breaks(
        self, params: Mapping[str, mpmath.mpf], mean: mpmath.mpf, std: mpmath.mpf, reach: mpmath.mpf
    ) -> tuple[mpmath.mpf, ...]:
        """Kinks, and for expressions the zeros of their critical parts within
        mean ± reach·std, at the current precision."""
        points = list(self.kinks(params))
        if self.critical:
            low, high = mean - reach * std, mean + reach * std
            for part in self.critical:
                points.extend(zeros(part, low, high, extra=(mp.zero, mean)))
        return tuple(sorted(set(points)))


# --- building blocks (mpmath, at the current precision) -------------------------------------


def _sigmoid_pair(x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(σ(x), σ'(x)) from one exp."""
    e = mpmath.exp(-abs(x))
    d = 1 / (1 + e)
    return (d if x >= 0 else e * d), e * d * d


def _swish_pair(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    s, ds = _sigmoid_pair(x)
    return x * s, s + x * ds


def _per_precision(make: Callable[[], mpmath.mpf]) -> Callable[[], mpmath.mpf]:
    """make() at the current precision, computed once per precision (constants the
    quadrature would otherwise recompute at every node; the same value bit for bit)."""
    made: dict[int, mpmath.mpf] = {}

    def get() -> mpmath.mpf:
        value = made.get(mp.prec)
        if value is None:
            value = made[mp.prec] = make()
        return value

    return get


_SQRT_2 = _per_precision(lambda: mpmath.sqrt(2))
_SQRT_2PI = _per_precision(lambda: mpmath.sqrt(2 * mp.pi))
_SQRT_2_OVER_PI = _per_precision(lambda: mpmath.sqrt(2 / mp.pi))
_TWO_OVER_SQRT_PI = _per_precision(lambda: 2 / mpmath.sqrt(mp.pi))


def _ncdf(x: mpmath.mpf) -> mpmath.mpf:
    """Φ(x) = erfc(−x/√2)/2, accurate in the lower tail."""
    return mpmath.erfc(-x / _SQRT_2()) / 2


def _npdf(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(-x * x / 2) / _SQRT_2PI()


def _zero_kink(p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, ...]:
    return (mp.zero,)


# E[e^{aZ}; Z < 0] = e^{a²/2}·Φ(−a)
def _elu_parts() -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(E[e^Z − 1; Z < 0], E[(e^Z − 1)²; Z < 0], E[e^{2Z}; Z < 0])."""
    e1 = mpmath.exp(mpmath.mpf(1) / 2) * _ncdf(-1)
    e2 = mpmath.exp(2) * _ncdf(-2)
    return e1 - mpmath.mpf(1) / 2, e2 - 2 * e1 + mpmath.mpf(1) / 2, e2


def selu_constants() -> tuple[mpmath.mpf, mpmath.mpf]:
    """(λ, α) of selu: E[selu(Z)] = 0 and E[selu(Z)²] = 1 for Z ~ N(0, 1), in closed form."""
    first, second, _ = _elu_parts()
    alpha = (1 / mpmath.sqrt(2 * mp.pi)) / -first
    lam = 1 / mpmath.sqrt(mpmath.mpf(1) / 2 + alpha**2 * second)
    return lam, alpha


def _sympy_selu_constants(sp: Any) -> tuple[Any, Any]:
    Phi = lambda a: sp.erfc(-a / sp.sqrt(2)) / 2
    e1 = sp.exp(sp.Rational(1, 2)) * Phi(-1)
    e2 = sp.exp(2) * Phi(-2)
    alpha = (1 / sp.sqrt(2 * sp.pi)) / (sp.Rational(1, 2) - e1)
    lam = 1 / sp.sqrt(sp.Rational(1, 2) + alpha**2 * (e2 - 2 * e1 + sp.Rational(1, 2)))
    return lam, alpha


@functools.lru_cache(maxsize=32)
def _selu_constants_at(prec: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    with mp.workprec(prec):
        return selu_constants()


def _selu(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> mpmath.mpf:
    lam, alpha = _selu_constants_at(mp.prec)
    return lam * x if x > 0 else lam * alpha * mpmath.expm1(x)


def _selu_derivative(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> mpmath.mpf:
    lam, alpha = _selu_constants_at(mp.prec)
    return lam if x > 0 else lam * alpha * mpmath.exp(x)


_GELU_TANH_C = Fraction("0.044715")  # the constant of the tanh approximation (Hendrycks & Gimpel)
GELU_TANH_CUBIC = _GELU_TANH_C  # public: audit's index knows the coefficient as written in code
_gelu_tanh_c = _per_precision(lambda: to_mpf(_GELU_TANH_C))


def _gelu_tanh_inner(x: mpmath.mpf) -> mpmath.mpf:
    return _SQRT_2_OVER_PI() * (x + _gelu_tanh_c() * x**3)


def _gelu_tanh(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> mpmath.mpf:
    """x·(1 + tanh u)/2 = x·σ(2u): no cancellation of 1 + tanh u for u → −∞."""
    return x * _sigmoid(2 * _gelu_tanh_inner(x))


def _gelu_tanh_derivative(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> mpmath.mpf:
    u = _gelu_tanh_inner(x)
    du = _SQRT_2_OVER_PI() * (1 + 3 * _gelu_tanh_c() * x**2)
    return _sigmoid(2 * u) + x / 2 * _sech2(u) * du


def _mish_derivative(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> mpmath.mpf:
    sp_ = _softplus(x)
    return mpmath.tanh(sp_) + x * _sech2(sp_) * _sigmoid(x)


# The pairs below return fn's and derivative's values bit for bit, computing what the two
# have in common once (pair_exact): the quadrature evaluates φ and φ' at every node.


def _gelu_pair(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    c = _ncdf(x)
    return x * c, c + x * _npdf(x)


def _gelu_tanh_pair(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    u = _gelu_tanh_inner(x)
    s = _sigmoid(2 * u)
    du = _SQRT_2_OVER_PI() * (1 + 3 * _gelu_tanh_c() * x**2)
    return x * s, s + x / 2 * _sech2(u) * du


def _mish_pair(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    sp_ = _softplus(x)
    t = mpmath.tanh(sp_)
    return x * t, t + x * _sech2(sp_) * _sigmoid(x)


def _softplus_pair(x: mpmath.mpf, p: Mapping[str, mpmath.mpf]) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(softplus(x), σ(x)) from the one exp(−|x|) both take (elementary.softplus, .sigmoid)."""
    e = mpmath.exp(-abs(x))
    return max(x, mp.zero) + mpmath.log1p(e), (1 / (1 + e) if x >= 0 else e / (1 + e))


def _cf(
    text: str,
    value: Callable[[Mapping[str, mpmath.mpf]], mpmath.mpf],
    sympy: Callable[[Any, Mapping[str, Any]], Any],
) -> ClosedForm:
    return ClosedForm(text, value, sympy)


def _rel(sp: Any, x: Any, positive: Any, negative: Any) -> Any:
    return sp.Piecewise((positive, x > 0), (negative, True))


# The entries defined here; ``resolving.CATALOG`` adds the frameworks' (``framework_activations``).
CORE_CATALOG: tuple[Activation, ...] = (
    Activation(
        "identity",
        "x",
        fn=lambda x, p: x,
        derivative=lambda x, p: mp.one,
        sympy=lambda sp, x, p: x,
        nonnegative=_never,
        aliases=("linear",),
        steep=(),
        parity="odd",
        closed_forms={
            "mean": _cf("0", lambda p: mp.zero, lambda sp, p: sp.Integer(0)),
            "second_moment": _cf("1", lambda p: mp.one, lambda sp, p: sp.Integer(1)),
            "derivative_second_moment": _cf("1", lambda p: mp.one, lambda sp, p: sp.Integer(1)),
        },
    ),
    Activation(
        "relu",
        "max(x, 0)",
        fn=lambda x, p: x if x > 0 else mp.zero,
        derivative=lambda x, p: mp.one if x > 0 else mp.zero,
        sympy=lambda sp, x, p: _rel(sp, x, x, 0),
        nonnegative=_always,
        kinks=_zero_kink,
        relu_mixture=1,
        closed_forms={
            "mean": _cf(
                "1/sqrt(2*pi)", lambda p: 1 / mpmath.sqrt(2 * mp.pi), lambda sp, p: 1 / sp.sqrt(2 * sp.pi)
            ),
            "second_moment": _cf("1/2", lambda p: mpmath.mpf(1) / 2, lambda sp, p: sp.Rational(1, 2)),
            "derivative_second_moment": _cf(
                "1/2", lambda p: mpmath.mpf(1) / 2, lambda sp, p: sp.Rational(1, 2)
            ),
        },
    ),
    Activation(
        "relu2",
        "max(x, 0)**2",
        fn=lambda x, p: x * x if x > 0 else mp.zero,
        derivative=lambda x, p: 2 * x if x > 0 else mp.zero,
        sympy=lambda sp, x, p: _rel(sp, x, x**2, 0),
        nonnegative=_always,
        aliases=("squared_relu", "relu_squared"),
        kinks=_zero_kink,
        closed_forms={
            "mean": _cf("1/2", lambda p: mpmath.mpf(1) / 2, lambda sp, p: sp.Rational(1, 2)),
            "second_moment": _cf("3/2", lambda p: mpmath.mpf(3) / 2, lambda sp, p: sp.Rational(3, 2)),
            "derivative_second_moment": _cf("2", lambda p: mpmath.mpf(2), lambda sp, p: sp.Integer(2)),
        },
    ),
    Activation(
        "leaky_relu",
        "x if x > 0 else slope*x",
        source="max(x, 0) + slope*min(x, 0)",
        fn=lambda x, p: x if x > 0 else p["slope"] * x,
        derivative=lambda x, p: mp.one if x > 0 else p["slope"],
        sympy=lambda sp, x, p: _rel(sp, x, x, p["slope"] * x),
        nonnegative=lambda p: p["slope"] <= 0,  # φ ≥ 0 exactly when the negative side's slope is ≤ 0
        aliases=("leakyrelu", "lrelu"),
        kinks=_zero_kink,
        params=params_of("leaky_relu"),
        closed_forms={
            "mean": _cf(
                "(1 - slope)/sqrt(2*pi)",
                lambda p: (1 - p["slope"]) / mpmath.sqrt(2 * mp.pi),
                lambda sp, p: (1 - p["slope"]) / sp.sqrt(2 * sp.pi),
            ),
            "second_moment": _cf(
                "(1 + slope**2)/2",
                lambda p: (1 + p["slope"] ** 2) / 2,
                lambda sp, p: (1 + p["slope"] ** 2) / 2,
            ),
            "derivative_second_moment": _cf(
                "(1 + slope**2)/2",
                lambda p: (1 + p["slope"] ** 2) / 2,
                lambda sp, p: (1 + p["slope"] ** 2) / 2,
            ),
        },
    ),
    Activation(
        "elu",
        "x if x > 0 else exp(x) - 1",
        source="max(x, 0) + exp(min(x, 0)) - 1",
        fn=lambda x, p: x if x > 0 else mpmath.expm1(x),
        derivative=lambda x, p: mp.one if x > 0 else mpmath.exp(x),
        sympy=lambda sp, x, p: _rel(sp, x, x, sp.exp(x) - 1),
        nonnegative=_never,
        tangent_bound=True,
        relu_mixture=1,
        kinks=_zero_kink,
        closed_forms={
            "mean": _cf(
                "1/sqrt(2*pi) + sqrt(e)*Phi(-1) - 1/2",
                lambda p: 1 / mpmath.sqrt(2 * mp.pi) + _elu_parts()[0],
                lambda sp, p: (
                    1 / sp.sqrt(2 * sp.pi)
                    + sp.exp(sp.Rational(1, 2)) * sp.erfc(1 / sp.sqrt(2)) / 2
                    - sp.Rational(1, 2)
                ),
            ),
            "second_moment": _cf(
                "1 + e**2*Phi(-2) - 2*sqrt(e)*Phi(-1)",
                lambda p: mpmath.mpf(1) / 2 + _elu_parts()[1],
                lambda sp, p: (
                    1
                    + sp.exp(2) * sp.erfc(sp.sqrt(2)) / 2
                    - sp.exp(sp.Rational(1, 2)) * sp.erfc(1 / sp.sqrt(2))
                ),
            ),
            "derivative_second_moment": _cf(
                "1/2 + e**2*Phi(-2)",
                lambda p: mpmath.mpf(1) / 2 + _elu_parts()[2],
                lambda sp, p: sp.Rational(1, 2) + sp.exp(2) * sp.erfc(sp.sqrt(2)) / 2,
            ),
        },
    ),
    Activation(
        "selu",
        "lambda*(x if x > 0 else alpha*(exp(x) - 1)), lambda and alpha from E = 0, E^2 = 1 under N(0,1)",
        fn=_selu,
        derivative=_selu_derivative,
        sympy=lambda sp, x, p: (lambda la: la[0] * _rel(sp, x, x, la[1] * (sp.exp(x) - 1)))(
            _sympy_selu_constants(sp)
        ),
        nonnegative=_never,
        tangent_bound=True,
        kinks=_zero_kink,
        closed_forms={
            "mean": _cf("0", lambda p: mp.zero, lambda sp, p: sp.Integer(0)),
            "second_moment": _cf("1", lambda p: mp.one, lambda sp, p: sp.Integer(1)),
            "derivative_second_moment": _cf(
                "lambda**2*(1/2 + alpha**2*e**2*Phi(-2))",
                lambda p: (lambda la: la[0] ** 2 * (mpmath.mpf(1) / 2 + la[1] ** 2 * _elu_parts()[2]))(
                    selu_constants()
                ),
                lambda sp, p: (
                    lambda la: (
                        la[0] ** 2 * (sp.Rational(1, 2) + la[1] ** 2 * sp.exp(2) * sp.erfc(sp.sqrt(2)) / 2)
                    )
                )(_sympy_selu_constants(sp)),
            ),
        },
    ),
    Activation(
        "gelu",
        "x*Phi(x) = x*(1 + erf(x/sqrt(2)))/2",
        source="x*(1 + erf(x/sqrt(2)))/2",
        fn=lambda x, p: x * _ncdf(x),
        derivative=lambda x, p: _ncdf(x) + x * _npdf(x),
        pair=_gelu_pair,
        pair_exact=True,
        sympy=lambda sp, x, p: x * (1 + sp.erf(x / sp.sqrt(2))) / 2,
        nonnegative=_never,
        closed_forms={
            "mean": _cf(
                "1/(2*sqrt(pi))",
                lambda p: 1 / (2 * mpmath.sqrt(mp.pi)),
                lambda sp, p: 1 / (2 * sp.sqrt(sp.pi)),
            ),
            "second_moment": _cf(
                "1/3 + sqrt(3)/(6*pi)",
                lambda p: mpmath.mpf(1) / 3 + mpmath.sqrt(3) / (6 * mp.pi),
                lambda sp, p: sp.Rational(1, 3) + sp.sqrt(3) / (6 * sp.pi),
            ),
            "derivative_second_moment": _cf(
                "1/3 + 2*sqrt(3)/(9*pi)",
                lambda p: mpmath.mpf(1) / 3 + 2 * mpmath.sqrt(3) / (9 * mp.pi),
                lambda sp, p: sp.Rational(1, 3) + 2 * sp.sqrt(3) / (9 * sp.pi),
            ),
        },
        dks_ceiling="dks_gelu",
    ),
    Activation(
        "gelu_tanh",
        "x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))/2",
        fn=_gelu_tanh,
        derivative=_gelu_tanh_derivative,
        pair=_gelu_tanh_pair,
        pair_exact=True,
        sympy=lambda sp, x, p: (
            x
            * (
                1
                + sp.tanh(
                    sp.sqrt(2 / sp.pi)
                    * (x + sp.Rational(_GELU_TANH_C.numerator, _GELU_TANH_C.denominator) * x**3)
                )
            )
            / 2
        ),
        nonnegative=_never,
        aliases=("gelu_approx", "gelu_new"),
    ),
    Activation(
        "sigmoid",
        "1/(1 + exp(-x))",
        source="sigmoid(x)",
        fn=lambda x, p: _sigmoid(x),
        derivative=lambda x, p: _sigmoid_slope(x),
        sympy=lambda sp, x, p: 1 / (1 + sp.exp(-x)),
        nonnegative=_always,
        aliases=("logistic",),
        pair=lambda x, p: _sigmoid_pair(x),
        tanh_form=(Fraction(1, 2), Fraction(1, 2), Fraction(2)),
    ),
    Activation(
        "tanh",
        "tanh(x)",
        fn=lambda x, p: mpmath.tanh(x),
        derivative=lambda x, p: _sech2(x),
        sympy=lambda sp, x, p: sp.tanh(x),
        nonnegative=_never,
        tangent_bound=True,
        parity="odd",
        tanh_form=(Fraction(0), Fraction(1), Fraction(1)),
    ),
    Activation(
        "swish",
        "x*sigmoid(x) = x/(1 + exp(-x))",
        source="x*sigmoid(x)",
        fn=lambda x, p: x * _sigmoid(x),
        derivative=lambda x, p: _sigmoid(x) + x * _sigmoid_slope(x),
        sympy=lambda sp, x, p: x / (1 + sp.exp(-x)),
        nonnegative=_never,
        aliases=("silu",),
        pair=_swish_pair,
        dks_ceiling="dks_swish",
    ),
    Activation(
        "softplus",
        "log(1 + exp(x))",
        source="softplus(x)",
        fn=lambda x, p: _softplus(x),
        derivative=lambda x, p: _sigmoid(x),
        sympy=lambda sp, x, p: sp.log(1 + sp.exp(x)),
        nonnegative=_always,
        relu_mixture=1,
        pair=_softplus_pair,
        pair_exact=True,
    ),
    Activation(
        "mish",
        "x*tanh(softplus(x)) = x*tanh(log(1 + exp(x)))",
        source="x*tanh(softplus(x))",
        fn=lambda x, p: x * mpmath.tanh(_softplus(x)),
        derivative=_mish_derivative,
        pair=_mish_pair,
        pair_exact=True,
        sympy=lambda sp, x, p: x * sp.tanh(sp.log(1 + sp.exp(x))),
        nonnegative=_never,
    ),
    Activation(
        "softsign",
        "x/(1 + abs(x))",
        fn=lambda x, p: x / (1 + abs(x)),
        derivative=lambda x, p: 1 / (1 + abs(x)) ** 2,
        sympy=lambda sp, x, p: _rel(sp, x, x / (1 + x), x / (1 - x)),
        nonnegative=_never,
        tangent_bound=True,
        kinks=_zero_kink,
        parity="odd",
    ),
    Activation(
        "erf",
        "erf(x)",
        fn=lambda x, p: mpmath.erf(x),
        derivative=lambda x, p: _TWO_OVER_SQRT_PI() * mpmath.exp(-x * x),
        sympy=lambda sp, x, p: sp.erf(x),
        nonnegative=_never,
        tangent_bound=True,
        parity="odd",
        closed_forms={
            "mean": _cf("0", lambda p: mp.zero, lambda sp, p: sp.Integer(0)),
            "second_moment": _cf(
                "2*asin(2/3)/pi",
                lambda p: 2 * mpmath.asin(mpmath.mpf(2) / 3) / mp.pi,
                lambda sp, p: 2 * sp.asin(sp.Rational(2, 3)) / sp.pi,
            ),
            "derivative_second_moment": _cf(
                "4/(sqrt(5)*pi)",
                lambda p: 4 / (mpmath.sqrt(5) * mp.pi),
                lambda sp, p: 4 / (sp.sqrt(5) * sp.pi),
            ),
        },
    ),
)
