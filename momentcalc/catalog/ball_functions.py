"""Every catalog activation and its derivative on Arb balls (python-flint), keyed by the
catalog entry's name: the data the certified Gaussian expectations need.

For each entry: its kinks (x-values, exact), one analytic branch of φ and of φ' between
consecutive kinks (acb functions of (z, params), holomorphic near the real segment they serve,
so that Arb's integrator may evaluate them on complex boxes), and growth bounds on the whole
real line, |φ(x)| ≤ Σ c·|x|^k and |φ'(x)| ≤ Σ c·|x|^k, which bound the Gaussian tails.

Forms are chosen to be meromorphic and free of cancellation on balls:

* sigmoid(z) = (1 + tanh(z/2))/2, σ'(z) = sech²(z/2)/4 (no overflow of e^{−z});
* mish: tanh(softplus(z)) = n/(n + 2) with n = e^z·(e^z + 2) (rational in e^z, no branch cut),
  and mish' = n/(n + 2) + 4z·e^z·(1 + e^z)/(n + 2)² (sech²(softplus z)·σ(z) simplified), in
  e^{−z} for Re z > 0 (a box far right stays narrow);
* softplus(z) = log1p(e^z), whose cut (1 + e^z ≤ 0) lies at Im z = ±π: boxes that reach it
  are refused when the integrator asks for an analytic evaluation;
* gelu(z) = z·erfc(−z/√2)/2, gelu'(z) = erfc(−z/√2)/2 + z·e^{−z²/2}/√(2π).

Growth bounds (|φ| first, then |φ'|), each elementary: identity |x|, 1; relu |x|, 1;
relu2 x², 2|x|; leaky_relu max(1,|s|)·|x|, max(1,|s|); elu 1 + |x|, 1 (e^x ≤ 1 for x ≤ 0);
selu λα + λ|x|, λ·max(1, α); gelu |x| (Φ ≤ 1), 1 + 1/2 (|x|φ(x) ≤ φ(1) < 1/2);
gelu_tanh |x|, 1 + |x|·u'(x)/2 with u' = √(2/π)(1 + 3c·x²) ≤ 1 + 3c·x² (sech² ≤ 1);
sigmoid 1, 1/4; tanh 1, 1; swish |x|, 1 + |x|/4; softplus log 2 + |x| ≤ 1 + |x|, 1;
mish |x|, 1 + |x| (|tanh| ≤ 1, sech²·σ ≤ 1); softsign 1, 1; erf 1, 2/√π ≤ 2.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from ..engine.gaussian_balls import ExpTerm, Term, as_arb
from .ball_parts import (  # noqa: F401  (softplus_ball, touches_log1p_cut: imported from here too)
    BallActivation,
    BallFn,
    GrowthFn,
    StripFunctions,
    _const,
    _linear,
    _m,
    _sec,
    _sigmoid,
    _sigmoid_bounds,
    _sigmoid_slope,
    _softplus_value_bound,
    _up,
    softplus_ball,
    touches_log1p_cut,
)


_ZERO = _m(lambda z, p: acb(0))
_ONE = _m(lambda z, p: acb(1))
_X = _m(lambda z, p: z)


def _mish_parts(z: acb) -> tuple[acb, acb]:
    """(T, S) with T = tanh(softplus z) = n/(n + 2) and S = e^z·(1 + e^z)/(n + 2)², n = e^z·(e^z + 2).
    For Re z > 0 in u = e^{−z}: T = (1 + 2u)/(1 + 2u + 2u²), S = u²·(1 + u)/(1 + 2u + 2u²)²
    (the same rational functions; e^z of a box far right, |e^z| spread over more than a
    factor 2, would hold 0 and make n/(n + 2) non-finite on every box the integrator tries)."""
    if z.real.mid() > 0:
        u = (-z).exp()
        top = 1 + 2 * u
        den = top + 2 * u * u
        return top / den, u * u * (1 + u) / (den * den)
    e = z.exp()
    den = e * (e + 2) + 2
    return 1 - 2 / den, e * (1 + e) / (den * den)


def _mish(z: acb, p: Mapping[str, arb]) -> acb:
    return z * _mish_parts(z)[0]


def _mish_derivative(z: acb, p: Mapping[str, arb]) -> acb:
    ratio, slope = _mish_parts(z)
    return ratio + 4 * z * slope


def _normal_cdf(z: acb) -> acb:
    return (-z / arb(2).sqrt()).erfc() / 2


def _gelu(z: acb, p: Mapping[str, arb]) -> acb:
    return z * _normal_cdf(z)


def _gelu_derivative(z: acb, p: Mapping[str, arb]) -> acb:
    return _normal_cdf(z) + z * (-z * z / 2).exp() / (2 * arb.pi()).sqrt()


def _gelu_tanh_c() -> Fraction:
    """The constant of the tanh approximation (Hendrycks & Gimpel): the catalog's own value."""
    return _GELU_TANH_C


def _gelu_tanh(z: acb, p: Mapping[str, arb]) -> acb:
    u = (2 / arb.pi()).sqrt() * (z + as_arb(_gelu_tanh_c()) * z**3)
    return z * _sigmoid(2 * u)


def _gelu_tanh_derivative(z: acb, p: Mapping[str, arb]) -> acb:
    c = as_arb(_gelu_tanh_c())
    root = (2 / arb.pi()).sqrt()
    u = root * (z + c * z**3)
    return _sigmoid(2 * u) + z / 2 * u.sech() ** 2 * root * (1 + 3 * c * z * z)


def _softplus(z: acb, p: Mapping[str, arb], analytic: bool) -> acb:
    return softplus_ball(z, analytic)


@functools.lru_cache(maxsize=16)
def _selu_constants(prec: int) -> tuple[arb, arb]:
    """(λ, α) of selu as balls, from the closed form of ``activations.selu_constants``:
    with e1 = √e·Φ(−1), e2 = e²·Φ(−2): α = (1/√(2π))/(1/2 − e1), λ = 1/√(1/2 + α²(e2 − 2e1 + 1/2))."""
    with ctx.workprec(prec):

        def lower_tail(a: int) -> arb:  # Φ(−a)
            return (arb(a) / arb(2).sqrt()).erfc() / 2

        e1 = arb(1).exp().sqrt() * lower_tail(1)
        e2 = arb(2).exp() * lower_tail(2)
        alpha = (1 / (2 * arb.pi()).sqrt()) / (arb(1) / 2 - e1)
        lam = 1 / (arb(1) / 2 + alpha**2 * (e2 - 2 * e1 + arb(1) / 2)).sqrt()
        return lam, alpha


def selu_constants() -> tuple[arb, arb]:
    """(λ, α) at the current precision."""
    return _selu_constants(ctx.prec)


def _selu_growth(p: Mapping[str, arb]) -> tuple[Term, ...]:
    lam, alpha = selu_constants()
    return (Term(_up(lam * alpha)), Term(_up(lam), 1))


def _selu_derivative_growth(p: Mapping[str, arb]) -> tuple[Term, ...]:
    lam, alpha = selu_constants()
    return (Term(_up(lam * alpha.max(arb(1)))),)


def _slope_size(p: Mapping[str, arb]) -> arb:
    return _up(abs(p["slope"]).max(arb(1)))


def _selu_left(z: acb, p: Mapping[str, arb]) -> acb:
    lam, alpha = selu_constants()
    return lam * alpha * z.expm1()


def _selu_left_derivative(z: acb, p: Mapping[str, arb]) -> acb:
    lam, alpha = selu_constants()
    return lam * alpha * z.exp()


_ORIGIN = (Fraction(0),)

BALL_FUNCTIONS: dict[str, BallActivation] = {
    "identity": BallActivation((), ((_X, _ONE),), _linear(0, 1), _const(1)),
    "relu": BallActivation(_ORIGIN, ((_ZERO, _ZERO), (_X, _ONE)), _linear(0, 1), _const(1)),
    "relu2": BallActivation(
        _ORIGIN,
        ((_ZERO, _ZERO), (_m(lambda z, p: z * z), _m(lambda z, p: 2 * z))),
        lambda p: (Term(1, 2),),
        lambda p: (Term(2, 1),),
    ),
    "leaky_relu": BallActivation(
        _ORIGIN,
        ((_m(lambda z, p: p["slope"] * z), _m(lambda z, p: acb(p["slope"]))), (_X, _ONE)),
        lambda p: (Term(_slope_size(p), 1),),
        lambda p: (Term(_slope_size(p)),),
    ),
    "elu": BallActivation(
        _ORIGIN,
        ((_m(lambda z, p: z.expm1()), _m(lambda z, p: z.exp())), (_X, _ONE)),
        _linear(1, 1),
        _const(1),
    ),
    "selu": BallActivation(
        _ORIGIN,
        (
            (_m(_selu_left), _m(_selu_left_derivative)),
            (_m(lambda z, p: selu_constants()[0] * z), _m(lambda z, p: acb(selu_constants()[0]))),
        ),
        _selu_growth,
        _selu_derivative_growth,
    ),
    "gelu": BallActivation((), ((_m(_gelu), _m(_gelu_derivative)),), _linear(0, 1), _const(Fraction(3, 2))),
    "gelu_tanh": BallActivation(
        (),
        ((_m(_gelu_tanh), _m(_gelu_tanh_derivative)),),
        _linear(0, 1),
        lambda p: (Term(1), Term(Fraction(1, 2), 1), Term(3 * _gelu_tanh_c() / 2, 3)),
    ),
    "sigmoid": BallActivation(
        (),
        ((_m(lambda z, p: _sigmoid(z)), _m(lambda z, p: _sigmoid_slope(z))),),
        _const(1),
        _const(Fraction(1, 4)),
    ),
    "tanh": BallActivation(
        (), ((_m(lambda z, p: z.tanh()), _m(lambda z, p: z.sech() ** 2)),), _const(1), _const(1)
    ),
    "swish": BallActivation(
        (),
        ((_m(lambda z, p: z * _sigmoid(z)), _m(lambda z, p: _sigmoid(z) + z * _sigmoid_slope(z))),),
        _linear(0, 1),
        _linear(1, Fraction(1, 4)),
    ),
    "softplus": BallActivation((), ((_softplus, _m(lambda z, p: _sigmoid(z))),), _linear(1, 1), _const(1)),
    "mish": BallActivation((), ((_m(_mish), _m(_mish_derivative)),), _linear(0, 1), _linear(1, 1)),
    "softsign": BallActivation(
        _ORIGIN,
        (
            (_m(lambda z, p: z / (1 - z)), _m(lambda z, p: 1 / (1 - z) ** 2)),
            (_m(lambda z, p: z / (1 + z)), _m(lambda z, p: 1 / (1 + z) ** 2)),
        ),
        _const(1),
        _const(1),
    ),
    "erf": BallActivation(
        (),
        ((_m(lambda z, p: z.erf()), _m(lambda z, p: 2 / arb.pi().sqrt() * (-z * z).exp())),),
        _const(1),
        _const(2),
    ),
}

# Closed forms under N(0, 1) on balls (the catalog's closed forms, ``activations``, evaluated
# in Arb: a proof, where an integral at 1000 digits takes many seconds), and where a parameter
# can make them exactly 0 (which no integral can prove): leaky_relu's mean (1 − s)/√(2π)
# vanishes at s = 1. gelu's come from Stein's identity (E[Z·g(Z)] = E[g'(Z)]) and
# E[Φ(Z)²] = 1/3, E[φ(Z)²] = 1/(2√3·π); erf's from E[erf(aZ)erf(bZ)] = (2/π)·asin(2ab/√((1+2a²)(1+2b²))).
BALL_CLOSED_FORMS: dict[str, dict[str, Callable[[Mapping[str, arb]], arb]]] = {
    "leaky_relu": {
        "mean": lambda p: (1 - p["slope"]) / (2 * arb.pi()).sqrt(),
        "second_moment": lambda p: (1 + p["slope"] ** 2) / 2,
        "derivative_second_moment": lambda p: (1 + p["slope"] ** 2) / 2,
    },
    "gelu": {
        "mean": lambda p: 1 / (2 * arb.pi().sqrt()),
        "second_moment": lambda p: arb(1) / 3 + arb(3).sqrt() / (6 * arb.pi()),
        "derivative_second_moment": lambda p: arb(1) / 3 + 2 * arb(3).sqrt() / (9 * arb.pi()),
    },
    "erf": {
        "second_moment": lambda p: 2 * (arb(2) / 3).asin() / arb.pi(),
        "derivative_second_moment": lambda p: 4 / (arb(5).sqrt() * arb.pi()),
    },
}


# Piecewise exp-polynomials (Σ c·x^j·e^{λx} between the kinks): their Gaussian expectations
# are exact (``engine.gaussian_balls.exp_poly_expectation``), no integral needed. For each entry:
# parameters -> (φ's pieces, φ''s pieces), one tuple of ExpTerms per interval between the kinks.
def _selu_exp_poly(p: Mapping[str, arb]) -> tuple:
    lam, alpha = selu_constants()
    return (
        ((ExpTerm(lam * alpha, 0, 1), ExpTerm(-lam * alpha)), (ExpTerm(lam, 1),)),
        ((ExpTerm(lam * alpha, 0, 1),), (ExpTerm(lam),)),
    )


EXP_POLYNOMIALS: dict[str, Callable[[Mapping[str, Any]], tuple]] = {  # parameters as balls or Fractions
    "identity": lambda p: (((ExpTerm(1, 1),),), ((ExpTerm(1),),)),
    "relu": lambda p: (((), (ExpTerm(1, 1),)), ((), (ExpTerm(1),))),
    "relu2": lambda p: (((), (ExpTerm(1, 2),)), ((), (ExpTerm(2, 1),))),
    "leaky_relu": lambda p: (
        ((ExpTerm(p["slope"], 1),), (ExpTerm(1, 1),)),
        ((ExpTerm(p["slope"]),), (ExpTerm(1),)),
    ),
    "elu": lambda p: (
        ((ExpTerm(1, 0, 1), ExpTerm(-1)), (ExpTerm(1, 1),)),
        ((ExpTerm(1, 0, 1),), (ExpTerm(1),)),
    ),
    "selu": _selu_exp_poly,
}


# Polynomials in x, Φ(αx) and the normal density ϕ(αx) = e^(−α²x²/2)/√(2π), α² rational: their
# Gaussian expectations under a centred Gaussian reduce to orthant probabilities by Stein's
# identity (``engine.normal_cdf_moments``), no integral needed. For each entry: parameters ->
# (α², φ, φ'), φ and φ' each {(power of x, power of Φ(αx), power of ϕ(αx)): coefficient}.
# gelu = x·Φ(x), gelu' = Φ(x) + x·ϕ(x) (α = 1); erf(x) = 2Φ(√2·x) − 1 and
# erf'(x) = 2e^(−x²)/√π = 2√2·ϕ(√2·x) (α = √2).
NORMAL_CDF_POLYNOMIALS: dict[str, Callable[[Mapping[str, arb]], tuple]] = {
    "gelu": lambda p: (1, {(1, 1, 0): 1}, {(0, 1, 0): 1, (1, 0, 1): 1}),
    "erf": lambda p: (2, {(0, 1, 0): 2, (0, 0, 0): -1}, {(0, 0, 1): 2 * arb(2).sqrt()}),
}
# φ'' of the same entries, in the same polynomials (ϕ'(t) = −t·ϕ(t), so d/dx ϕ(αx) = −α²x·ϕ(αx)):
# gelu'' = 2ϕ(x) − x²·ϕ(x); erf'' = 2√2·(−2x)·ϕ(√2·x) = −4√2·x·ϕ(√2·x) (= −(4x/√π)·e^(−x²)).
NORMAL_CDF_CURVATURES: dict[str, Callable[[Mapping[str, arb]], dict[tuple[int, int, int], Any]]] = {
    "gelu": lambda p: {(0, 0, 1): 2, (2, 0, 1): -1},
    "erf": lambda p: {(1, 0, 1): -4 * arb(2).sqrt()},
}


# Laurent polynomials in q = 1 + σx on the half-line σx > 0 (σ = ±1; there x = σ(q − 1)): their
# Gaussian expectations are exact (``engine.reciprocal``: integer powers of 1 + x over a
# half-line), no integral needed. For each entry: parameters -> one (σ, φ, φ') per half-line,
# φ and φ' as {power of q: coefficient}. softsign: x/(1 + x) = 1 − 1/q and 1/(1 + x)² = q^−2 on
# x > 0; x/(1 − x) = 1/q − 1 and 1/(1 − x)² = q^−2 on x < 0 (q = 1 − x).
HALF_LINE_LAURENT: dict[str, Callable[[Mapping[str, arb]], tuple]] = {
    "softsign": lambda p: ((-1, {-1: 1, 0: -1}, {-2: 1}), (1, {0: 1, -1: -1}, {-2: 1})),
}


# --- analytic in a strip: the whole-line trapezoidal rule (``engine.trapezoid``) ----------------
# For each entry: w, and bounds |φ(z)| ≤ P(|z|), |φ'(z)| ≤ Q(|z|) on |Im z| ≤ w (coefficients
# of 1, |z|, |z|²…), and (φ, φ') at a real x from x and e^x by arithmetic alone. The bounds:
#
# * |tanh(x + iy)|² = (sinh²x + sin²y)/(sinh²x + cos²y) ≤ sec²y and |sech(x + iy)|² =
#   1/(sinh²x + cos²y) ≤ sec²y for |y| < π/2 (poles at ±iπ/2);
# * sigmoid(z) = (1 + tanh(z/2))/2 and σ' = sech²(z/2)/4: |σ| ≤ (1 + sec(w/2))/2,
#   |σ'| ≤ sec²(w/2)/4 for w < π; swish = z·σ, swish' = σ + z·σ';
# * softplus = log(1 + e^z), analytic for |Im z| < π (1 + e^z meets (−∞, 0] only at Im z = ±π):
#   |1 + e^z| ≥ 1 where cos y ≥ 0 and ≥ sin w where π/2 < |y| ≤ w, so
#   |log(1 + e^z)| ≤ |x| + log 2 + |log sin w| + π;
# * mish = z·T, T = tanh(softplus z) = 1 − 2/((1 + e^z)² + 1): for |Im z| ≤ π/2, Re(1 + e^z) ≥ 1,
#   so |(1 + e^z)² + 1| = |1 + e^z − i|·|1 + e^z + i| ≥ 1, |T| ≤ 3, |1 − T²| ≤ 10, and
#   mish' = T + z·(1 − T²)·σ(z) with |σ| ≤ (1 + sec(π/4))/2;
# * gelu_tanh = z·σ(2u) = z·(1 + tanh u)/2, u = k(z + c·z³), k = √(2/π): with x + iy = z,
#   Re u = k·x·(1 + c·x² − 3c·y²) and Im u = k·y·(1 + 3c·x² − c·y²). cosh u vanishes where
#   Re u = 0 and Im u ∈ π/2 + πZ: off the imaginary axis that needs x² = 3y² − 1/c, so
#   |y| ≥ 1/√(3c) ≈ 2.73; on it, |k(y − c·y³)| = π/2 + nπ, which |y| ≤ 1/√(3c) cannot reach
#   (there |y − c·y³| ≤ 2/(3√(3c)) and k·2/(3√(3c)) < 1.46 < π/2). So the poles lie at
#   |Im z| > 2.73, however large Re z, and the strip |Im z| ≤ w = 19/8 is free of them; on it
#   B = 1/128 ≤ |cosh u|² (``_gelu_tanh_cosh_floor``, proved on boxes) gives |tanh u|² = 1 −
#   cos(2 Im u)/|cosh u|² ≤ 1 + 1/B and |sech u|² ≤ 1/B, so with T = √(1 + 1/B):
#   |φ| ≤ |z|·(1 + T)/2 and |φ'| = |σ(2u) + z·sech²(u)·u'/2| ≤ (1 + T)/2 + |z|·k(1 + 3c|z|²)/(2B).
#   On the real line φ is evaluated from E = e^{2u(x)}: σ(2u) = E/(1 + E), φ' = σ(2u) +
#   2x·u'(x)·σ(2u)/(1 + E).


def _sigmoid_at(x: arb, ex: arb) -> tuple[arb, arb]:
    inverse = 1 / (1 + ex)  # one division a node: divisions cost several multiplications
    s = ex * inverse
    return s, s * inverse


def _tanh_at(x: arb, ex: arb) -> tuple[arb, arb]:
    e2 = ex * ex
    inverse = 1 / (e2 + 1)
    return 1 - 2 * inverse, 4 * e2 * inverse * inverse


def _tanh_value(x: arb, ex: arb) -> arb:
    """``_tanh_at``'s tanh alone (the same operations: the same ball)."""
    inverse = 1 / (ex * ex + 1)
    return 1 - 2 * inverse


def _tanh_slope(x: arb, ex: arb) -> arb:
    """``_tanh_at``'s sech² alone (the same operations: the same ball)."""
    e2 = ex * ex
    inverse = 1 / (e2 + 1)
    return 4 * e2 * inverse * inverse


# From this working precision (bits) on, tanh's strip reaches to within π/2^k of its poles.
TANH_NEAR_POLES_BITS = 1024


def _tanh_width() -> arb:
    """tanh's strip half-width w at the working precision. A rule's step grows like w/(Λ +
    ln sec^j w) (Λ = ln(1/goal), j ≤ 8 the power of the sec bound in a product of φ and φ'),
    best near w = π/2 − π/Λ: at a thousand digits (Λ ≈ 2400) π(1/2 − 2^−12) takes a step
    about 12% wider than 7π/16 (sec w ≈ 1300 costs ln 1300 against 2400) — 12% fewer nodes and
    lattice points. At lower precision the sec bound weighs more: 7π/16 as before."""
    prec = ctx.prec
    if prec < TANH_NEAR_POLES_BITS:
        return arb.pi() * 7 / 16
    k = prec.bit_length()
    return arb.pi() * ((1 << (k - 1)) - 1) / (1 << k)


def _swish_at(x: arb, ex: arb) -> tuple[arb, arb]:
    s, ds = _sigmoid_at(x, ex)
    return x * s, s + x * ds


def _softplus_at(x: arb, ex: arb) -> tuple[arb, arb]:
    s, _ = _sigmoid_at(x, ex)
    if x > 0:
        return x + (1 / ex).log1p(), s
    return ex.log1p(), s


def _mish_at(x: arb, ex: arb) -> tuple[arb, arb]:
    one = 1 + ex
    t = 1 - 2 / (one * one + 1)
    return x * t, t + x * (1 - t * t) * (ex / one)


_GELU_TANH_WIDTH = Fraction(19, 8)
_GELU_TANH_FAR = 4  # beyond |Re z| = 4, Re u alone bounds |cosh u| from below
_FLOOR = Fraction(1, 128)  # the lower bound of |cosh u|² proved on the strip's boxes


@functools.lru_cache(maxsize=4)
def _gelu_tanh_cosh_floor(width: Fraction) -> arb:
    """A proven lower bound B = 1/128 of |cosh u(z)|² on |Im z| ≤ width, u = k(z + c·z³)
    (the minimum is about 0.019 at width 19/8, near z = ±0.6 ± 2.4i).

    |cosh u| is even in z and in Im z (u is odd with real coefficients): one quadrant. For
    Re z ≥ X = 4, Re u = k·x(1 + c·x² − 3c·y²) increases with x (its x-derivative is
    k(1 + 3c·x² − 3c·y²) > 0 as 3c·width² < 1), so |cosh u|² = sinh²(Re u) + cos²(Im u) ≥
    sinh²(k·X(1 + c·X² − 3c·width²)). [0, X] × [0, width] is covered by boxes of side 1/8
    (exact dyadic balls) on which Arb proves |cosh u|² ≥ B, each quartered (down to side
    2^−10) where the enclosure of a whole box does not; ValueError if that fails."""
    with ctx.workprec(64):
        c, w, far = as_arb(_gelu_tanh_c()), as_arb(width), arb(_GELU_TANH_FAR)
        k = (2 / arb.pi()).sqrt()
        floor = as_arb(_FLOOR)
        if not 3 * c * w * w < 1 or not (k * far * (1 + c * far * far - 3 * c * w * w)).sinh() ** 2 >= floor:
            raise ValueError("no lower bound of |cosh u| on the strip")
        side = 8  # boxes of side 1/side from the grid
        rows = width * side
        if rows.denominator != 1:
            raise ValueError("the strip's width must be a multiple of 1/8")
        boxes = [
            (arb(i) / side, arb(j) / side, arb(1) / side)
            for i in range(_GELU_TANH_FAR * side)
            for j in range(int(rows))
        ]
        while boxes:
            x0, y0, edge = boxes.pop()
            half = edge / 2
            z = acb(arb(x0 + half, half), arb(y0 + half, half))
            if abs((k * (z + c * z**3)).cosh()) ** 2 >= floor:
                continue
            if not edge > arb(2) ** -10:
                raise ValueError("no lower bound of |cosh u| on the strip")
            boxes += [
                (x0, y0, half),
                (x0 + half, y0, half),
                (x0, y0 + half, half),
                (x0 + half, y0 + half, half),
            ]
        return floor


def _gelu_tanh_bounds(w: arb) -> tuple[tuple[arb, ...], tuple[arb, ...]]:
    floor = _gelu_tanh_cosh_floor(_GELU_TANH_WIDTH)
    c, k = as_arb(_gelu_tanh_c()), (2 / arb.pi()).sqrt()
    half_one_plus_t = arb(((1 + (1 + 1 / floor).sqrt()) / 2).upper())
    return (
        (arb(0), half_one_plus_t),
        (half_one_plus_t, arb((k / (2 * floor)).upper()), arb(0), arb((3 * c * k / (2 * floor)).upper())),
    )


def _gelu_tanh_exponent() -> tuple[arb, ...]:
    """2u(x) = 2k·x + 2k·c·x³."""
    k2 = 2 * (2 / arb.pi()).sqrt()
    return (arb(0), k2, arb(0), k2 * as_arb(_gelu_tanh_c()))


def _gelu_tanh_at(x: arb, e: arb) -> tuple[arb, arb]:
    inverse = 1 / (1 + e)
    s = e * inverse
    slope_u = (2 / arb.pi()).sqrt() * (1 + 3 * as_arb(_gelu_tanh_c()) * x * x)
    return x * s, s + 2 * x * slope_u * s * inverse


STRIP_FUNCTIONS: dict[str, StripFunctions] = {
    "sigmoid": StripFunctions(
        lambda: arb.pi() * 7 / 8,
        lambda w: (_sigmoid_bounds(w)[0],),
        lambda w: (_sigmoid_bounds(w)[1],),
        _sigmoid_at,
    ),
    "tanh": StripFunctions(
        _tanh_width,
        lambda w: (_sec(w),),
        lambda w: (_sec(w) ** 2,),
        _tanh_at,
        alone=(_tanh_value, _tanh_slope),
    ),
    "swish": StripFunctions(
        lambda: arb.pi() * 7 / 8,
        lambda w: (arb(0), _sigmoid_bounds(w)[0]),
        lambda w: _sigmoid_bounds(w),
        _swish_at,
    ),
    "softplus": StripFunctions(
        lambda: arb.pi() * 3 / 4, _softplus_value_bound, lambda w: (_sigmoid_bounds(w)[0],), _softplus_at
    ),
    "mish": StripFunctions(
        lambda: arb.pi() / 2,
        lambda w: (arb(0), arb(3)),
        lambda w: (arb(3), arb((10 * _sigmoid_bounds(w)[0]).upper())),
        _mish_at,
    ),
    "gelu_tanh": StripFunctions(
        lambda: as_arb(_GELU_TANH_WIDTH),
        lambda w: _gelu_tanh_bounds(w)[0],
        lambda w: _gelu_tanh_bounds(w)[1],
        _gelu_tanh_at,
        _gelu_tanh_exponent,
    ),
}


# relu6, hardtanh, hard_sigmoid, hard_swish, celu, log_sigmoid, quick_gelu (their own module)
from . import ball_functions_framework as _framework  # noqa: E402
from .activations import _GELU_TANH_C  # noqa: E402

BALL_FUNCTIONS.update(_framework.BALL_FUNCTIONS)
EXP_POLYNOMIALS.update(_framework.EXP_POLYNOMIALS)
STRIP_FUNCTIONS.update(_framework.STRIP_FUNCTIONS)
