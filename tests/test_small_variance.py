"""softsign at a small variance (``moments.small_variance``): the Taylor series at the kink with
orthant moments from Gaussian integration by parts, against independent routes in mpmath —
the orthant moments by 2-D quadrature and by Kamat's hypergeometric closed forms (Kamat, 1953,
"Incomplete and absolute moments of the multivariate normal distribution"), the univariate
moments by quadrature, the kernels by the series summed from those closed forms, and deep
trajectories layer by layer (Mehler's expansion with Hermite coefficients by quadrature while
the variance is large, the closed forms after)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.computations.kernel import kernel
from momentcalc.moments.small_variance import orthant_moments, small_variance_kernel, small_variance_moments
from momentcalc.tier import to_decimal


def _phi(x):
    return x / (1 + abs(x))


def _dphi(x):
    return 1 / (1 + abs(x)) ** 2


def _inside(ball, ref):
    """Whether the ball holds the mpmath number, within 10^−35 of it."""
    lo = mpmath.mpf(ball.lower().str(50, radius=False))
    hi = mpmath.mpf(ball.upper().str(50, radius=False))
    slack = abs(ref) * mpmath.mpf(10) ** -35  # (mpmath rounds the inputs at 40 digits)
    return lo - slack <= ref <= hi + slack


def _absolute(j, k, rho):
    """E[|X|^j |Y|^k], (X, Y) standard normal of correlation rho (Kamat's 2F1 form)."""
    half = mpmath.mpf(1) / 2
    return (
        2 ** ((j + k) * half)
        / mpmath.pi
        * mpmath.gamma((j + 1) * half)
        * mpmath.gamma((k + 1) * half)
        * mpmath.hyp2f1(-j * half, -k * half, half, rho**2)
    )


def _signed(j, k, rho):
    """E[sign(XY) |X|^j |Y|^k] (Kamat's 2F1 form)."""
    half = mpmath.mpf(1) / 2
    return (
        2 ** ((j + k) * half)
        / mpmath.pi
        * 2
        * rho
        * mpmath.gamma((j + 2) * half)
        * mpmath.gamma((k + 2) * half)
        * mpmath.hyp2f1((1 - j) * half, (1 - k) * half, 3 * half, rho**2)
    )


def _series_kernel(q, rho, terms, q2=None):
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) at Var u = q, Var v = q2 (default q) from softsign's Taylor
    series at 0, φ(x) = Σ (−1)^j x|x|^j and φ'(x) = Σ (−1)^j (j + 1)|x|^j, each sum cut after
    ``terms`` (the remainder ~ q^(terms/2): negligible at the small q asked)."""
    s1, s2 = mpmath.sqrt(q), mpmath.sqrt(q if q2 is None else q2)
    k = k1 = mpmath.mpf(0)
    for i in range(terms):
        for j in range(terms - i):
            sign = (-1) ** (i + j)
            k += sign * s1 ** (i + 1) * s2 ** (j + 1) * _signed(i + 1, j + 1, rho)
            k1 += sign * (i + 1) * (j + 1) * s1**i * s2**j * _absolute(i, j, rho)
    return k, k1


def _terms(q, digits):
    return max(6, int(2 * (digits + 4) / -mpmath.log10(q)) + 4)


@pytest.mark.parametrize("rho", ["0.3", "-0.7", "0.95"])
def test_orthant_moments_against_closed_forms(rho):
    """M[j][k] = E[X^j Y^k; X, Y > 0] = (E[|X|^j|Y|^k] + E[sign(XY)|X|^j|Y|^k])/4."""
    with mp.workdps(40), ctx.workprec(200):
        r = mpmath.mpf(rho)
        table = orthant_moments(arb(rho), 6)
        for j in range(7):
            for k in range(7):
                assert _inside(table[j][k], (_absolute(j, k, r) + _signed(j, k, r)) / 4)


@pytest.mark.reference
def test_orthant_moment_against_quadrature():
    """M[3][2] at ρ = 0.3 by 2-D quadrature over [0, 12]² (the rest of the quadrant < 1e-30)."""
    with mp.workdps(20), ctx.workprec(200):
        r = mpmath.mpf("0.3")
        e = mpmath.sqrt(1 - r * r)
        ref = mpmath.quad(
            lambda x, y: x**3 * y**2 * mpmath.exp(-(x * x - 2 * r * x * y + y * y) / (2 * e * e)),
            [0, 12],
            [0, 12],
        ) / (2 * mpmath.pi * e)
        got = mpmath.mpf(orthant_moments(arb("0.3"), 3)[3][2].mid().str(30, radius=False))
        assert abs(got - ref) < abs(ref) * mpmath.mpf(10) ** -15


@pytest.mark.parametrize(
    "monomials",
    [
        [(0, 2, 0), (1, 1, 1), (0, 1, 0)],
        pytest.param([(2, 2, 0), (0, 0, 2), (0, 4, 0), (0, 0, 4)], marks=pytest.mark.reference),
    ],
)
def test_univariate_moments_against_quadrature(monomials):
    """E[φ²], E[xφφ'] (and E[x²φ²], E[φ'²], E[φ⁴], E[φ'⁴]) at q = 10^−4 to 20 digits; E[φ] = 0."""
    act = resolve("softsign")
    q = Fraction(1, 10**4)
    found = small_variance_moments(act, monomials, q, 20)
    assert found is not None
    with mp.workdps(30):
        s = mpmath.sqrt(mpmath.mpf(q.numerator) / q.denominator)
        for (a, b, c), ball in zip(monomials, found):
            if (a + b) % 2:
                assert ball == 0
                continue
            ref = mpmath.quad(
                lambda z: (s * z) ** a * _phi(s * z) ** b * _dphi(s * z) ** c * mpmath.npdf(z),
                [-mpmath.inf, 0, mpmath.inf],
            )
            assert _inside(ball, ref)
            assert ball.rad() <= abs(ball.mid()) * arb(10) ** -23


@pytest.mark.parametrize(
    "rho, q2",
    [
        ("0.44", "1/100000"),
        ("-0.3", "4/100000"),
        pytest.param("0.999", "1/100000", marks=pytest.mark.reference),
    ],
)
def test_kernel_against_closed_form_series(rho, q2):
    """nngp and ntk_derivative at q1 = 10^−5 (q2 the same or 4·10^−5), 20 digits, against the
    series summed from Kamat's 2F1 forms (another formula for the same moments, in mpmath at 40
    digits)."""
    act = resolve("softsign")
    q, v = Fraction(1, 10**5), Fraction(q2)
    found = small_variance_kernel(act, Fraction(rho), q, v, 20)
    assert found is not None
    with mp.workdps(40):
        ref = _series_kernel(
            mpmath.mpf(q.numerator) / q.denominator,
            mpmath.mpf(rho),
            _terms(4e-5, 40),
            mpmath.mpf(v.numerator) / v.denominator,
        )
    for ball, want in zip(found, ref):
        assert _inside(ball, want)
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -21


def test_large_variance_is_left_to_the_integrals():
    """At q = 1 the series would need more than MAX_ORDER terms: None (the caller integrates)."""
    act = resolve("softsign")
    assert small_variance_kernel(act, Fraction(1, 2), Fraction(1), Fraction(1), 15) is None
    assert small_variance_moments(act, [(0, 2, 0)], Fraction(1), 15) is None


def _mehler(q, c, terms=80):
    """(K, K₁) at Var = q by Mehler's expansion, softsign's Hermite coefficients by quadrature:
    φ(√q Z) = Σ a_k He_k(Z)/k!, K = Σ a_k² c^k/k!, K₁ = Σ a_{k+1}² c^k/k!/q (odd φ: odd k)."""
    s = mpmath.sqrt(q)
    a = [
        mpmath.quad(
            lambda z: _phi(s * z) * mpmath.hermite(k, z / mpmath.sqrt(2)) * mpmath.npdf(z), [-40, 0, 40]
        )
        * 2 ** (-mpmath.mpf(k) / 2)
        if k % 2
        else mpmath.mpf(0)
        for k in range(terms + 2)
    ]
    k0 = sum(a[k] ** 2 * c**k / mpmath.factorial(k) for k in range(terms + 1))
    k1 = sum(a[k + 1] ** 2 * c**k / mpmath.factorial(k) for k in range(terms + 1)) / q
    return k0, k1


def _reference_layers(q, rho, depth, digits):
    """[(Σ⁽ˡ⁾, Θ⁽ˡ⁾, c_l)] for l = 0..depth at σ_w² = 1, σ_b² = 0, each layer in mpmath: the
    diagonal by quadrature, the kernels by Mehler while q > 10^−3, else the closed-form series."""
    q, c = mpmath.mpf(q), mpmath.mpf(rho)
    sigma = theta = c * q
    out = [(sigma, theta, c)]
    for _ in range(depth):
        if q > mpmath.mpf(10) ** -3:
            k, k1 = _mehler(q, c)
        else:
            k, k1 = _series_kernel(q, c, _terms(float(q), digits))
        s = mpmath.sqrt(q)
        q = mpmath.quad(lambda z: _phi(s * z) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
        sigma, theta = k, k + k1 * theta
        c = k / q
        out.append((sigma, theta, c))
    return out


def _agree(printed, expected, digits):
    with mp.workdps(digits + 30):
        assert printed == [to_decimal(+want, digits) for want in expected]


def test_trajectory_from_a_small_variance_every_digit():
    """kernel softsign --q 1e-6 --rho 0.5 --depth 6 --layers: every layer on the series route,
    every printed digit of the correlations and kernels against the mpmath layers."""
    result = kernel("softsign", q="0.000001", rho="0.5", depth=6, layers=True)
    with mp.workdps(45):
        ref = _reference_layers(mpmath.mpf("0.000001"), mpmath.mpf("0.5"), 6, 30)
        _agree(result["correlation_layers"].decimal(15), [c for _, _, c in ref], 15)
        _agree(result["nngp_layers"].decimal(15), [s for s, _, _ in ref], 15)
        _agree(result["ntk_layers"].decimal(15), [t for _, t, _ in ref], 15)


@pytest.mark.reference
def test_thousand_layers_on_the_series_route():
    """kernel softsign --q 0.001 --rho 0.45 --depth 1000 (about where the default trajectory's
    20th layer is): correlations at every 50th layer and the deep kernels against the mpmath
    layers (the default --depth 1000 from q = 1 printed the same 1001 layers, byte for byte, as
    the integral routes alone, at 253 s of CPU against 5.4)."""
    result = kernel("softsign", q="0.001", rho="0.45", depth=1000, layers=True)
    with mp.workdps(35):
        ref = _reference_layers(mpmath.mpf("0.001"), mpmath.mpf("0.45"), 1000, 22)
        printed = result["correlation_layers"].decimal(15)
        _agree(printed[::50], [c for _, _, c in ref][::50], 15)
        _agree([result["nngp_depth"].decimal(15)], [ref[-1][0]], 15)
        _agree([result["ntk_depth"].decimal(15)], [ref[-1][1]], 15)
