"""Activations that are relu or a step at a large variance, as data:
φ = A·relu(x) + d·[x > 0] + c·[x < 0] + g(x) with g bounded and integrable (``moments.relu_like``
proves their Gaussian kernels at large variances from relu's arc-cosine kernel, closed forms for
the steps, and integrals of g over its unit-scale support). A (``scale``) is 1, d (``top``, the
limit of φ − A·x at +∞) is 0 and c (``floor``, φ's limit at −∞) is 0 except for selu (A = λ,
c = −λα), elu (c = −1) and celu (c = −α), and for the sign-like tanh (A = 0, d = 1, c = −1) and
sigmoid (A = 0, d = 1, c = 0).

For each entry, g and g' on each half-line as acb functions of (z, params, analytic), each
holomorphic near the closed half-line it serves (so that Arb's integrator may evaluate it on
complex boxes), in forms free of cancellation: left (x ≤ 0) g = φ − c, g' = φ'; right (x ≥ 0)
g = φ − A·x − d, g' = φ' − A (g jumps at 0 where d ≠ c; g' is φ' − A·[x > 0] off 0, never a
delta). And a proven decay: for every real x,

    |g(x)| ≤ C₀·(1 + |x|)·e^{−λ|x|},   |g'(x)| ≤ C₁·(1 + |x|)·e^{−λ|x|}.

The bounds, with σ(t) = 1/(1 + e^{−t}) ≤ e^{t} (t ≤ 0), σ(t)σ(−t) ≤ e^{−|t|}, and Mills'
inequality Φ(−t) ≤ n(t)/t (t > 0, n the normal density):

* gelu = x·Φ(x): g = −|x|·Φ(−|x|), |g| ≤ n(x) ≤ (e²/√(2π))·e^{−2|x|} (x²/2 − 2|x| + 2 ≥ 0),
  g' = Φ(x) + x·n(x) − [x > 0] = ±Φ(−|x|) + x·n(x), |g'| ≤ Φ(−|x|) + |x|·n(x): for |x| ≥ 1
  (Mills) ≤ (1 + |x|)·n(x), for |x| ≤ 1 ≤ 1/2 + n(1) < 6e^{−2} ≤ 3(1 + |x|)·e^{−2|x|} (not
  (1 + |x|)·n(x): 1/2 > n(0) at 0): C₀ = C₁ = 3, λ = 2;
* swish = x·σ(x): g = −|x|·σ(−|x|), g' = ±σ(−|x|) + x·σ(x)σ(−x): C₀ = C₁ = 1, λ = 1;
* quick_gelu = x·σ(kx), k = 1.702: g = −|x|·σ(−k|x|), |g'| ≤ (1 + k|x|)·e^{−k|x|}: C₀ = 1,
  C₁ = 2, λ = k;
* softplus = log(1 + e^x): g = log1p(e^{−|x|}) ≤ e^{−|x|}, g' = ±σ(−|x|): C₀ = C₁ = 1, λ = 1;
* mish = x·tanh(softplus x): with n = e^x(e^x + 2), tanh(softplus x) = n/(n + 2);
  x ≤ 0: |g| ≤ |x|·softplus(x) ≤ |x|·e^x, g' = n/(n + 2) + 4x·S, S = e^x(1 + e^x)/(n + 2)² ≤ e^x/2,
  n/(n + 2) ≤ 3e^x/2: |g'| ≤ (3/2 + 2|x|)·e^x; x ≥ 0 in u = e^{−x}: 1 − n/(n + 2) =
  2u²/(1 + 2u + 2u²) ≤ 2u², S = u²(1 + u)/(1 + 2u + 2u²)² ≤ u², so |g| ≤ 2x·e^{−2x} and
  |g'| ≤ (2 + 4x)·e^{−2x}: C₀ = 2, C₁ = 4, λ = 1;
* gelu_tanh = x·σ(2u), u = sqrt(2/π)·(x + c·x³), c = 0.044715: |u| ≥ k|x|, k = sqrt(2/π) > 3/4, so
  |g| = |x|·σ(−2|u|) ≤ |x|·e^{−2k|x|} and |g'| = |∓σ(−2|u|) + x·u'·σ(2u)σ(−2u)|·… ≤
  (1 + 2k|x| + 6ck·|x|³)·e^{−2k|x| − 2ck|x|³}, where 6ck·t·e^{−2ck·t} ≤ 3/e (t = |x|³):
  C₀ = 1, C₁ = 3, λ = 3/2;
* elu: g = e^x on x < 0, 0 on x > 0: C₀ = C₁ = 1, λ = 1; selu = λ·elu_α: g = λα·e^x, C₀ = C₁ = λα;
  celu: g = α·e^{x/α}, g' = e^{x/α}: C₀ = α, C₁ = 1, λ = 1/α (α > 0);
* tanh = sign(x) + g: with t = e^{−2|x|} ≤ 1, |g| = 1 − tanh|x| = 2t/(1 + t) ≤ 2t and
  g' = sech²x = 4t/(1 + t)² ≤ 4t: C₀ = 2, C₁ = 4, λ = 2 (the factor 1 + |x| ≥ 1 only loosens);
* sigmoid = [x > 0] + g: with t = e^{−|x|}, |g| = σ(−|x|) = t/(1 + t) ≤ t and
  g' = σ(x)σ(−x) = t/(1 + t)² ≤ t: C₀ = C₁ = 1, λ = 1.

(hardtanh, hard_sigmoid, relu6 need no entry: their kernels are closed forms at every variance.)

tests/test_relu_like.py checks every declaration (branches against φ, decay bounds) on a grid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import NamedTuple

from flint import acb, arb

from .ball_parts import BallFn, _m, _sigmoid, _sigmoid_slope, softplus_ball
from ..engine.gaussian_balls import as_arb
from .ball_functions import (
    _gelu,
    _gelu_derivative,
    _gelu_tanh,
    _gelu_tanh_c,
    _gelu_tanh_derivative,
    _mish,
    _mish_derivative,
    selu_constants,
)
from .framework_activations import QUICK_GELU_SCALE


ParamFn = Callable[[Mapping[str, arb]], arb]


class ReluLike(NamedTuple):
    """φ = scale·relu(x) + top·[x > 0] + floor·[x < 0] + g(x): (g, g') on x ≤ 0 (``left``) and on
    x ≥ 0 (``right``), and the decay |g(x)| ≤ value·(1 + |x|)·e^{−rate·|x|},
    |g'(x)| ≤ slope·(1 + |x|)·e^{−rate·|x|}; each number a function of the parameters (balls)."""

    left: tuple[BallFn, BallFn]
    right: tuple[BallFn, BallFn]
    value: ParamFn
    slope: ParamFn
    rate: ParamFn
    scale: ParamFn = lambda p: arb(1)
    floor: ParamFn = lambda p: arb(0)
    top: ParamFn = lambda p: arb(0)


def _number(value: int | Fraction) -> ParamFn:
    return lambda p: arb(value.numerator) / value.denominator if isinstance(value, Fraction) else arb(value)


def _normal_tail(z: acb) -> acb:
    """Φ(−z) = erfc(z/√2)/2."""
    return (z / arb(2).sqrt()).erfc() / 2


def _density(z: acb) -> acb:
    return (-z * z / 2).exp() / (2 * arb.pi()).sqrt()


def _k() -> arb:
    return arb(QUICK_GELU_SCALE.numerator) / QUICK_GELU_SCALE.denominator


_ZERO = _m(lambda z, p: acb(0))


def _selu_size() -> arb:
    """λα of selu (its floor is −λα)."""
    lam, alpha = selu_constants()
    return lam * alpha


def _tanh_inner(z: acb) -> acb:
    """u = sqrt(2/π)·(z + c·z³) of gelu_tanh = z·σ(2u)."""
    return (2 / arb.pi()).sqrt() * (z + as_arb(_gelu_tanh_c()) * z**3)


def _gelu_tanh_right_slope(z: acb, p: Mapping[str, arb]) -> acb:
    """gelu_tanh' − 1 = −σ(−2u) + (z/2)·sech²(u)·u'."""
    u = _tanh_inner(z)
    slope = (2 / arb.pi()).sqrt() * (1 + 3 * as_arb(_gelu_tanh_c()) * z * z)
    return -_sigmoid(-2 * u) + z / 2 * u.sech() ** 2 * slope


def _mish_right(z: acb, p: Mapping[str, arb]) -> acb:
    u = (-z).exp()
    return -2 * z * u * u / (1 + 2 * u + 2 * u * u)


def _mish_right_slope(z: acb, p: Mapping[str, arb]) -> acb:
    u = (-z).exp()
    den = 1 + 2 * u + 2 * u * u
    return -2 * u * u / den + 4 * z * u * u * (1 + u) / (den * den)


def _flat_left(z: acb, rate: int) -> acb:
    """σ(k·z) = e^{kz}/(1 + e^{kz}) for Re z ≤ 0 (no overflow, no cancellation)."""
    e = (rate * z).exp()
    return e / (1 + e)


def _flat_right(z: acb, rate: int) -> acb:
    """σ(k·z) − 1 = −e^{−kz}/(1 + e^{−kz}) for Re z ≥ 0."""
    e = (-rate * z).exp()
    return -e / (1 + e)


def _flat_slope(z: acb, rate: int) -> acb:
    """d/dz σ(k·z) / k = e^{−k|z|}/(1 + e^{−k|z|})², in e^{−kz} for Re z ≥ 0, e^{kz} else."""
    e = (-rate * z).exp() if z.real >= 0 else (rate * z).exp()
    return e / (1 + e) ** 2


def _softplus_right(z: acb, p: Mapping[str, arb], analytic: bool) -> acb:
    return softplus_ball(-z, analytic)  # log1p(e^{−z})


RELU_LIKE: dict[str, ReluLike] = {
    "gelu": ReluLike(
        (_m(_gelu), _m(_gelu_derivative)),
        (
            _m(lambda z, p: -z * _normal_tail(z)),
            _m(lambda z, p: -_normal_tail(z) + z * _density(z)),
        ),
        _number(3),
        _number(3),
        _number(2),
    ),
    "swish": ReluLike(
        (_m(lambda z, p: z * _sigmoid(z)), _m(lambda z, p: _sigmoid(z) + z * _sigmoid_slope(z))),
        (_m(lambda z, p: -z * _sigmoid(-z)), _m(lambda z, p: -_sigmoid(-z) + z * _sigmoid_slope(z))),
        _number(1),
        _number(1),
        _number(1),
    ),
    "quick_gelu": ReluLike(
        (
            _m(lambda z, p: z * _sigmoid(_k() * z)),
            _m(lambda z, p: _sigmoid(_k() * z) + _k() * z * _sigmoid_slope(_k() * z)),
        ),
        (
            _m(lambda z, p: -z * _sigmoid(-_k() * z)),
            _m(lambda z, p: -_sigmoid(-_k() * z) + _k() * z * _sigmoid_slope(_k() * z)),
        ),
        _number(1),
        _number(2),
        lambda p: _k(),
    ),
    "softplus": ReluLike(
        (lambda z, p, analytic: softplus_ball(z, analytic), _m(lambda z, p: _sigmoid(z))),
        (_softplus_right, _m(lambda z, p: -_sigmoid(-z))),
        _number(1),
        _number(1),
        _number(1),
    ),
    "mish": ReluLike(
        (_m(_mish), _m(_mish_derivative)),
        (_m(_mish_right), _m(_mish_right_slope)),
        _number(2),
        _number(4),
        _number(1),
    ),
    "gelu_tanh": ReluLike(
        (_m(_gelu_tanh), _m(_gelu_tanh_derivative)),
        (_m(lambda z, p: -z * _sigmoid(-2 * _tanh_inner(z))), _m(_gelu_tanh_right_slope)),
        _number(1),
        _number(3),
        _number(Fraction(3, 2)),
    ),
    "elu": ReluLike(
        (_m(lambda z, p: z.exp()), _m(lambda z, p: z.exp())),
        (_ZERO, _ZERO),
        _number(1),
        _number(1),
        _number(1),
        floor=lambda p: arb(-1),
    ),
    "selu": ReluLike(
        (_m(lambda z, p: _selu_size() * z.exp()), _m(lambda z, p: _selu_size() * z.exp())),
        (_ZERO, _ZERO),
        lambda p: _selu_size(),
        lambda p: _selu_size(),
        _number(1),
        scale=lambda p: selu_constants()[0],
        floor=lambda p: -_selu_size(),
    ),
    "celu": ReluLike(
        (_m(lambda z, p: p["alpha"] * (z / p["alpha"]).exp()), _m(lambda z, p: (z / p["alpha"]).exp())),
        (_ZERO, _ZERO),
        lambda p: p["alpha"],
        _number(1),
        lambda p: 1 / p["alpha"],
        floor=lambda p: -p["alpha"],
    ),
    # tanh = 2σ(2x) − 1: g = 2σ(2x) on the left, 2(σ(2x) − 1) on the right, tanh' = 4σ'(2x)
    "tanh": ReluLike(
        (_m(lambda z, p: 2 * _flat_left(z, 2)), _m(lambda z, p: 4 * _flat_slope(z, 2))),
        (_m(lambda z, p: 2 * _flat_right(z, 2)), _m(lambda z, p: 4 * _flat_slope(z, 2))),
        _number(2),
        _number(4),
        _number(2),
        scale=lambda p: arb(0),
        floor=lambda p: arb(-1),
        top=lambda p: arb(1),
    ),
    "sigmoid": ReluLike(
        (_m(lambda z, p: _flat_left(z, 1)), _m(lambda z, p: _flat_slope(z, 1))),
        (_m(lambda z, p: _flat_right(z, 1)), _m(lambda z, p: _flat_slope(z, 1))),
        _number(1),
        _number(1),
        _number(1),
        scale=lambda p: arb(0),
        top=lambda p: arb(1),
    ),
}
