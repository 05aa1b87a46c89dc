"""An odd integrand's Gaussian expectation is 0 only when the integral converges absolutely:
E[1/Z] diverges although 1/x is odd. The zeros by symmetry of user expressions need a proof
of integrability (``engine.gaussian_balls.integrable_enclosure``); without one, exit 2 (diverges)
or 3 (cannot be proven), never a printed 0."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.engine.gaussian_balls import NotCertified, integrable_enclosure, power_log_integral
from momentcalc.errors import InputError
from momentcalc.moments import expectation_balls, expectations, midpoint, radius
from momentcalc.moments.activation_balls import integrand, model_of

# Odd (parity proved from the tree) with a non-integrable singularity at 0 or away from it
# (tan(x) at ±π/2, x/(x²−1) at ±1), or tails that are not Gaussian-integrable.
DIVERGENT_ODD = ["1/x", "1/x**3", "sin(x)/x**2", "sin(x)/cos(x)", "x/(x**2-1)", "x*exp(x**2)"]


@pytest.mark.parametrize(
    ("expression", "mean"), [(e, 0) for e in DIVERGENT_ODD] + [("1/x", "0.5"), ("sin(x)/cos(x)", "0.5")]
)
def test_divergent_mean_is_never_a_number(expression, mean):
    with pytest.raises(InputError, match=r"mean diverges"):
        expectations(expression, [(0, 1, 0)], mean=mean, digits=10)


@pytest.mark.parametrize("monomial", [(1, 0, 1), (0, 3, 0)])
def test_other_odd_monomials_of_a_divergent_expression(monomial):
    """x·φ' = −1/x and φ³ = 1/x³: odd, divergent, named in the error."""
    with pytest.raises(InputError, match=r"diverges"):
        expectations("1/x", [monomial], digits=10)


@pytest.mark.parametrize("mean", ["0", "0.5"])
def test_divergent_mean_via_the_cli(cli, mean):
    for args in (("--json",), ("--get", "mean")):
        run = cli("activation-moment", "1/x", "--mean", mean, *args)
        assert run.code == 2, run
        assert "mean diverges" in run.stderr
        assert "Traceback" not in run.stderr
    assert run.stdout == ""


def test_engine_enclosure_proves_or_refuses():
    """A finite enclosure for x·log|x| (a log singularity, integrable), none for 1/x."""
    act = resolve("x*log(abs(x))")
    ball = integrable_enclosure(integrand(model_of(act, Fraction(0)), (0, 1, 0)), mean=0, std=1)
    assert ball.is_finite() and ball.contains(0)
    with pytest.raises(NotCertified):
        integrable_enclosure(integrand(model_of(resolve("1/x"), Fraction(0)), (0, 1, 0)), mean=0, std=1)


def test_integrable_odd_expressions_keep_their_exact_zero():
    for expression in ("x*log(abs(x))", "x/(1+x**2)", "x**3*exp(x**2/5)", "tanh(x)"):
        (ball,) = expectation_balls(expression, [(0, 1, 0)], digits=30)
        assert ball == 0 and ball.rad() == 0, expression


def test_sign_function_answers(cli):
    """x/abs(x) = sign(x) (abs(x)/x too): bounded, so every moment exists; E[sign(Z)] =
    erf(mean/(std·√2)) against mpmath's erf, second moment 1, φ' = 0 almost everywhere."""
    for text in ("x/abs(x)", "abs(x)/x"):
        (zero,) = expectation_balls(text, [(0, 1, 0)], digits=20)
        assert zero == 0
        (ball,) = expectation_balls(text, [(0, 1, 0)], mean="0.5", std=2, digits=30)
        with mp.workdps(50):
            exact = mpmath.erf(mpmath.mpf("0.25") / mpmath.sqrt(2))
            assert abs(mpmath.mpf(ball.mid().str(45, radius=False)) - exact) < mpmath.mpf(10) ** -32
    run = cli("activation-moment", "x/abs(x)", "--mean", "0.5", "--json")
    assert run.code == 0, run
    results = run.json()["results"]
    assert results["second_moment"]["decimal"] == "1.00000000000000"
    assert results["derivative_second_moment"]["decimal"] == "0"


def test_integrable_power_singularity_is_proven():
    """E[|Z|^(-1/2)] = 2^(-1/4)·Γ(1/4)/√π (E|Z|^p = 2^(p/2)·Γ((p+1)/2)/√π; a sum of powers of
    |x|, so from moments.abs_powers' closed form); E[log|Z|·|Z|^(-1/2)] against mpmath's
    quadrature (split at 0): the integrating route, where the neighbourhood of 0 is cut out and
    bounded by ∫_0^δ u^(-1/2)·log(1/u) du. E[1/|Z|] diverges (test_activation_moment)."""
    (ball,) = expectation_balls("abs(x)**-0.5", [(0, 1, 0)], digits=25)
    with mp.workdps(70):  # far beyond the ball's radius (a closed form's is near 10^-47)
        exact = mpmath.mpf(2) ** -0.25 * mpmath.gamma(0.25) / mpmath.sqrt(mpmath.pi)
        assert abs(midpoint(ball) - exact) <= radius(ball)
    assert ball.rad() <= abs(ball.mid()) * arb(10) ** -25
    (mixed,) = expectation_balls("log(abs(x))*abs(x)**-0.5", [(0, 1, 0)], digits=15)
    with mp.workdps(30):
        reference = 2 * mpmath.quad(
            lambda t: mpmath.log(t) / mpmath.sqrt(t) * mpmath.npdf(t), [0, 1, mpmath.inf]
        )
        assert abs(midpoint(mixed) - reference) < abs(reference) * mpmath.mpf(10) ** -14


@pytest.mark.parametrize(
    ("alpha", "k"), [(Fraction(1, 2), 0), (Fraction(1, 2), 2), (Fraction(-1), 1), (Fraction(0), 3)]
)
def test_power_log_integral_against_quadrature(alpha, k):
    with ctx.workprec(200), mp.workdps(40):
        delta = arb(2) ** -7
        # u = e^(-s): ∫_{log(1/δ)}^∞ s^k·e^(−(1−α)s) ds, smooth for the quadrature
        beta = 1 - mpmath.mpf(alpha.numerator) / alpha.denominator
        exact = mpmath.quad(lambda v: v**k * mpmath.exp(-beta * v), [7 * mpmath.log(2), 40, mpmath.inf])
        value = power_log_integral(alpha, k, delta)
        assert abs(midpoint(value) - exact) < abs(exact) * mpmath.mpf(10) ** -30
