"""relu6, hardtanh, hard_sigmoid, hard_swish, celu, log_sigmoid and quick_gelu on Arb balls
(merged into ``ball_functions``' tables): the data the certified expectations need.

* relu6, hardtanh, hard_sigmoid, hard_swish and celu are piecewise exp-polynomials: their
  Gaussian expectations are exact (``EXP_POLYNOMIALS``), no integral.
* log_sigmoid(z) = −softplus(−z), log_sigmoid'(z) = σ(−z): analytic for |Im z| < π, with the
  bounds of softplus and sigmoid (the strip's bounds are symmetric under z → −z).
* quick_gelu(z) = z·σ(kz), k = 1.702: σ(kz) has its poles at kz = ±iπ, so the strip
  |Im z| ≤ 7π/(8k) keeps |Im kz| ≤ 7π/8, where |σ| ≤ (1 + sec(7π/16))/2 and
  |σ'| ≤ sec²(7π/16)/4 (as for sigmoid); quick_gelu' = σ(kz) + kz·σ'(kz).

Growth bounds (|φ| first, then |φ'|): relu6 |x|, 1; hardtanh 1, 1; hard_sigmoid 1, 1;
hard_swish |x| (|x + 3|/6 ≤ 1 on (−3, 3)), 3/2 (|2x + 3|/6 ≤ 3/2 there); celu alpha + |x|, 1;
log_sigmoid 1 + |x| (log 2 + |x|), 1; quick_gelu |x|, 1 + k|x|/4.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from flint import acb, arb

from ..engine.gaussian_balls import ExpTerm, Term, as_arb
from .ball_parts import (
    BallActivation,
    StripFunctions,
    _const,
    _linear,
    _m,
    _sigmoid,
    _sigmoid_bounds,
    _sigmoid_slope,
    _softplus_value_bound,
    _up,
    softplus_ball,
)
from .framework_activations import QUICK_GELU_SCALE

_ZERO = _m(lambda z, p: acb(0))
_ONE = _m(lambda z, p: acb(1))
_X = _m(lambda z, p: z)


def _constant(value: int | Fraction):
    return _m(lambda z, p: acb(as_arb(value)))


def _alpha(p: Mapping[str, arb]) -> arb:
    return p["alpha"]


def _k() -> arb:
    return as_arb(QUICK_GELU_SCALE)


def _log_sigmoid(z: acb, p: Mapping[str, arb], analytic: bool) -> acb:
    return -softplus_ball(-z, analytic)


def _quick_gelu(z: acb, p: Mapping[str, arb]) -> acb:
    return z * _sigmoid(_k() * z)


def _quick_gelu_derivative(z: acb, p: Mapping[str, arb]) -> acb:
    k = _k()
    return _sigmoid(k * z) + k * z * _sigmoid_slope(k * z)


BALL_FUNCTIONS: dict[str, BallActivation] = {
    "relu6": BallActivation(
        (Fraction(0), Fraction(6)),
        ((_ZERO, _ZERO), (_X, _ONE), (_constant(6), _ZERO)),
        _linear(0, 1),
        _const(1),
    ),
    "hardtanh": BallActivation(
        (Fraction(-1), Fraction(1)), ((_constant(-1), _ZERO), (_X, _ONE), (_ONE, _ZERO)), _const(1), _const(1)
    ),
    "hard_sigmoid": BallActivation(
        (Fraction(-3), Fraction(3)),
        ((_ZERO, _ZERO), (_m(lambda z, p: z / 6 + acb(1) / 2), _constant(Fraction(1, 6))), (_ONE, _ZERO)),
        _const(1),
        _const(1),
    ),
    "hard_swish": BallActivation(
        (Fraction(-3), Fraction(3)),
        ((_ZERO, _ZERO), (_m(lambda z, p: z * (z + 3) / 6), _m(lambda z, p: (2 * z + 3) / 6)), (_X, _ONE)),
        _linear(0, 1),
        _const(Fraction(3, 2)),
    ),
    "celu": BallActivation(
        (Fraction(0),),
        (
            (_m(lambda z, p: _alpha(p) * (z / _alpha(p)).expm1()), _m(lambda z, p: (z / _alpha(p)).exp())),
            (_X, _ONE),
        ),
        lambda p: (Term(_up(_alpha(p))), Term(1, 1)),
        _const(1),
    ),
    "log_sigmoid": BallActivation(
        (), ((_log_sigmoid, _m(lambda z, p: _sigmoid(-z))),), _linear(1, 1), _const(1)
    ),
    "quick_gelu": BallActivation(
        (),
        ((_m(_quick_gelu), _m(_quick_gelu_derivative)),),
        _linear(0, 1),
        lambda p: (Term(1), Term(_up(_k() / 4), 1)),
    ),
}


def _celu_exp_poly(p: Mapping[str, arb]) -> tuple:
    a = _alpha(p)
    rate = 1 / a
    return (((ExpTerm(a, 0, rate), ExpTerm(-a)), (ExpTerm(1, 1),)), ((ExpTerm(1, 0, rate),), (ExpTerm(1),)))


EXP_POLYNOMIALS = {
    "relu6": lambda p: (((), (ExpTerm(1, 1),), (ExpTerm(6),)), ((), (ExpTerm(1),), ())),
    "hardtanh": lambda p: (((ExpTerm(-1),), (ExpTerm(1, 1),), (ExpTerm(1),)), ((), (ExpTerm(1),), ())),
    "hard_sigmoid": lambda p: (
        ((), (ExpTerm(Fraction(1, 6), 1), ExpTerm(Fraction(1, 2))), (ExpTerm(1),)),
        ((), (ExpTerm(Fraction(1, 6)),), ()),
    ),
    "hard_swish": lambda p: (
        ((), (ExpTerm(Fraction(1, 6), 2), ExpTerm(Fraction(1, 2), 1)), (ExpTerm(1, 1),)),
        ((), (ExpTerm(Fraction(1, 3), 1), ExpTerm(Fraction(1, 2))), (ExpTerm(1),)),
    ),
    "celu": _celu_exp_poly,
}


def _log_sigmoid_at(x: arb, ex: arb) -> tuple[arb, arb]:
    """(−softplus(−x), σ(−x)) from e^x: −log1p(e^−x) for x > 0, x − log1p(e^x) otherwise."""
    slope = 1 / (1 + ex)
    if x > 0:
        return -(1 / ex).log1p(), slope
    return x - ex.log1p(), slope


def _quick_width() -> arb:
    return arb.pi() * 7 / (8 * _k())


def _quick_bounds(w: arb) -> tuple[tuple[arb, ...], tuple[arb, ...]]:
    k = _k()
    s, ds = _sigmoid_bounds(k * w)
    return (arb(0), s), (s, arb((k * ds).upper()))


def _quick_gelu_at(x: arb, e: arb) -> tuple[arb, arb]:
    """From e = e^{kx}: s = σ(kx) = e/(1 + e), σ'(kx) = s/(1 + e)."""
    inverse = 1 / (1 + e)
    s = e * inverse
    return x * s, s + _k() * x * s * inverse


STRIP_FUNCTIONS = {
    "log_sigmoid": StripFunctions(
        lambda: arb.pi() * 3 / 4, _softplus_value_bound, lambda w: (_sigmoid_bounds(w)[0],), _log_sigmoid_at
    ),
    "quick_gelu": StripFunctions(
        _quick_width,
        lambda w: _quick_bounds(w)[0],
        lambda w: _quick_bounds(w)[1],
        _quick_gelu_at,
        lambda: (arb(0), _k()),
    ),
}
