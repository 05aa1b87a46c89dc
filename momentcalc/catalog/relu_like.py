"""Activations that are relu at a large variance, as data: φ = relu + g with g = φ − relu
bounded and integrable (``moments.relu_like`` proves their Gaussian kernels at large variances
from relu's arc-cosine kernel and integrals of g over its unit-scale support).

For each entry, g and g' on each half-line as acb functions of (z, params, analytic), each
holomorphic near the closed half-line it serves (so that Arb's integrator may evaluate it on
complex boxes), in forms free of cancellation: left (x ≤ 0) g = φ, g' = φ'; right (x ≥ 0)
g = φ − x, g' = φ' − 1. And a proven decay: for every real x,

    |g(x)| ≤ C₀·(1 + |x|)·e^{−λ|x|},   |g'(x)| ≤ C₁·(1 + |x|)·e^{−λ|x|}.

The bounds, with σ(t) = 1/(1 + e^{−t}) ≤ e^{t} (t ≤ 0), σ(t)σ(−t) ≤ e^{−|t|}, and Mills'
inequality Φ(−t) ≤ n(t)/t (t > 0, n the normal density):

* gelu = x·Φ(x): g = −|x|·Φ(−|x|), |g| ≤ n(x) ≤ (e²/√(2π))·e^{−2|x|} (x²/2 − 2|x| + 2 ≥ 0),
  g' = Φ(x) + x·n(x) − [x > 0] = ±Φ(−|x|) + x·n(x), |g'| ≤ (1 + |x|)·n(x): C₀ = C₁ = 3, λ = 2;
* swish = x·σ(x): g = −|x|·σ(−|x|), g' = ±σ(−|x|) + x·σ(x)σ(−x): C₀ = C₁ = 1, λ = 1;
* quick_gelu = x·σ(kx), k = 1.702: g = −|x|·σ(−k|x|), |g'| ≤ (1 + k|x|)·e^{−k|x|}: C₀ = 1,
  C₁ = 2, λ = k;
* softplus = log(1 + e^x): g = log1p(e^{−|x|}) ≤ e^{−|x|}, g' = ±σ(−|x|): C₀ = C₁ = 1, λ = 1;
* mish = x·tanh(softplus x): with n = e^x(e^x + 2), tanh(softplus x) = n/(n + 2);
  x ≤ 0: |g| ≤ |x|·softplus(x) ≤ |x|·e^x, g' = n/(n + 2) + 4x·S, S = e^x(1 + e^x)/(n + 2)² ≤ e^x/2,
  n/(n + 2) ≤ 3e^x/2: |g'| ≤ (3/2 + 2|x|)·e^x; x ≥ 0 in u = e^{−x}: 1 − n/(n + 2) =
  2u²/(1 + 2u + 2u²) ≤ 2u², S = u²(1 + u)/(1 + 2u + 2u²)² ≤ u², so |g| ≤ 2x·e^{−2x} and
  |g'| ≤ (2 + 4x)·e^{−2x}: C₀ = 2, C₁ = 4, λ = 1.

(elu, selu and celu tend to a constant at −∞: g is bounded but not integrable; they are
piecewise exp-polynomials whose kernels have routes of their own.) tests/test_relu_like.py
checks every declaration (branches against φ, decay bounds) on a grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

from flint import acb, arb

from .ball_parts import BallFn, _m, _sigmoid, _sigmoid_slope, softplus_ball
from .ball_functions import _gelu, _gelu_derivative, _mish, _mish_derivative
from .framework_activations import QUICK_GELU_SCALE


class ReluLike(NamedTuple):
    """φ = relu + g: (g, g') on x ≤ 0 (``left``) and on x ≥ 0 (``right``), and the decay
    |g(x)| ≤ value·(1 + |x|)·e^{−rate·|x|}, |g'(x)| ≤ slope·(1 + |x|)·e^{−rate·|x|}."""

    left: tuple[BallFn, BallFn]
    right: tuple[BallFn, BallFn]
    value: Fraction
    slope: Fraction
    rate: Fraction


def _normal_tail(z: acb) -> acb:
    """Φ(−z) = erfc(z/√2)/2."""
    return (z / arb(2).sqrt()).erfc() / 2


def _density(z: acb) -> acb:
    return (-z * z / 2).exp() / (2 * arb.pi()).sqrt()


def _k() -> arb:
    return arb(QUICK_GELU_SCALE.numerator) / QUICK_GELU_SCALE.denominator


def _mish_right(z: acb, p: Mapping[str, arb]) -> acb:
    u = (-z).exp()
    return -2 * z * u * u / (1 + 2 * u + 2 * u * u)


def _mish_right_slope(z: acb, p: Mapping[str, arb]) -> acb:
    u = (-z).exp()
    den = 1 + 2 * u + 2 * u * u
    return -2 * u * u / den + 4 * z * u * u * (1 + u) / (den * den)


def _softplus_right(z: acb, p: Mapping[str, arb], analytic: bool) -> acb:
    return softplus_ball(-z, analytic)  # log1p(e^{−z})


RELU_LIKE: dict[str, ReluLike] = {
    "gelu": ReluLike(
        (_m(_gelu), _m(_gelu_derivative)),
        (
            _m(lambda z, p: -z * _normal_tail(z)),
            _m(lambda z, p: -_normal_tail(z) + z * _density(z)),
        ),
        Fraction(3),
        Fraction(3),
        Fraction(2),
    ),
    "swish": ReluLike(
        (_m(lambda z, p: z * _sigmoid(z)), _m(lambda z, p: _sigmoid(z) + z * _sigmoid_slope(z))),
        (_m(lambda z, p: -z * _sigmoid(-z)), _m(lambda z, p: -_sigmoid(-z) + z * _sigmoid_slope(z))),
        Fraction(1),
        Fraction(1),
        Fraction(1),
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
        Fraction(1),
        Fraction(2),
        QUICK_GELU_SCALE,
    ),
    "softplus": ReluLike(
        (lambda z, p, analytic: softplus_ball(z, analytic), _m(lambda z, p: _sigmoid(z))),
        (_softplus_right, _m(lambda z, p: -_sigmoid(-z))),
        Fraction(1),
        Fraction(1),
        Fraction(1),
    ),
    "mish": ReluLike(
        (_m(_mish), _m(_mish_derivative)),
        (_m(_mish_right), _m(_mish_right_slope)),
        Fraction(2),
        Fraction(4),
        Fraction(1),
    ),
}
