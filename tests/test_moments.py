"""The public Gaussian-moments building block (momentcalc.moments): monomials in (x, φ, φ'),
exact and mpf inputs, closed forms against quadrature, and errors that name the argument."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

import momentcalc
from momentcalc.errors import InputError
from momentcalc.moments import expectations, gaussian_moments


def direct(g, mean, std, dps=40):
    """E[g(X)], X ~ N(mean, std²), by mpmath.quad on the whole line: the independent route."""
    with mp.workdps(dps):
        mean, std = mpmath.mpf(mean), mpmath.mpf(std)
        norm = 1 / (std * mpmath.sqrt(2 * mp.pi))  # once, not at every node
        density = lambda x: norm * mpmath.exp(-(((x - mean) / std) ** 2) / 2)
        return mpmath.quad(
            lambda x: g(x) * density(x), [-mpmath.inf, mean - 8 * std, mean, mean + 8 * std, mpmath.inf]
        )


def agree_to(a, b, digits):
    with mp.workdps(digits + 10):
        return abs(a - b) <= abs(b) * mpmath.mpf(10) ** (-digits)


def test_mean_field_monomials_of_tanh_at_std_sqrt_q_as_mpf():
    """E[φ²], E[φ'²], E[X·φ·φ'] of tanh with std = sqrt(q) given as an mpf, against mpmath.quad."""
    with mp.workdps(40):
        std = mpmath.sqrt(mpmath.mpf("1.7"))
    e_phi2, e_dphi2, e_x_phi_dphi = expectations(
        "tanh", [(0, 2, 0), (0, 0, 2), (1, 1, 1)], std=std, digits=25
    )
    sech2 = lambda x: 1 / mpmath.cosh(x) ** 2
    assert agree_to(e_phi2, direct(lambda x: mpmath.tanh(x) ** 2, 0, std), 25)
    assert agree_to(e_dphi2, direct(lambda x: sech2(x) ** 2, 0, std), 25)
    assert agree_to(e_x_phi_dphi, direct(lambda x: x * mpmath.tanh(x) * sech2(x), 0, std), 25)


def test_stein_lemma_gives_e_phi_phi_second_derivative():
    """E[φ·φ''] = E[X·φ·φ']/q − E[φ'²] under N(0, q) (Stein's lemma on φ·φ'), against a direct
    quadrature of tanh·tanh'' (tanh'' = −2·tanh·sech²)."""
    q = mpmath.mpf(3)
    with mp.workdps(40):
        std = mpmath.sqrt(q)
    e_x, e_d2 = expectations("tanh", [(1, 1, 1), (0, 0, 2)], std=std, digits=20)
    with mp.workdps(30):
        via_stein = e_x / q - e_d2
    second = lambda x: -2 * mpmath.tanh(x) / mpmath.cosh(x) ** 2
    assert agree_to(via_stein, direct(lambda x: mpmath.tanh(x) * second(x), 0, std), 18)


def test_fourth_moment_of_swish_and_an_expression():
    (swish4,) = expectations("swish", [(0, 4, 0)], digits=30)
    (expr4,) = expectations("x*sigmoid(x)", [(0, 4, 0)], digits=30)
    reference = direct(lambda x: (x / (1 + mpmath.exp(-x))) ** 4, 0, 1, dps=50)
    assert agree_to(swish4, reference, 30)
    assert agree_to(expr4, reference, 30)


def test_shifted_relu_with_a_kink_against_quadrature():
    values = expectations("relu", [(0, 1, 0), (1, 1, 1), (2, 0, 1)], mean="-0.4", std="0.7", digits=30)
    routes = [
        lambda x: max(x, 0),
        lambda x: x * max(x, 0) * (1 if x > 0 else 0),
        lambda x: x * x * (1 if x > 0 else 0),
    ]
    for value, g in zip(values, routes):
        with mp.workdps(50):
            reference = mpmath.quad(
                lambda x: g(x) * mpmath.npdf(x, mpmath.mpf("-0.4"), mpmath.mpf("0.7")),
                [-mpmath.inf, 0, mpmath.inf],
            )
        assert agree_to(value, reference, 30)


def test_classic_monomials_are_the_moments_activation_moment_reports():
    mean, second, derivative = expectations(
        "gelu_tanh", [(0, 1, 0), (0, 2, 0), (0, 0, 2)], mean="0.25", std="1.5", digits=30
    )
    summary = gaussian_moments("gelu_tanh", mean="0.25", std="1.5", digits=30)
    assert (mean, second, derivative) == (
        summary["mean"],
        summary["second_moment"],
        summary["derivative_second_moment"],
    )
    computed = momentcalc.activation_moment("gelu_tanh", mean="0.25", std="1.5", digits=30)
    assert computed.value("second_moment") == summary["second_moment"]


def test_closed_forms_are_used_under_the_standard_normal():
    assert expectations("relu", [(0, 2, 0), (0, 0, 2)]) == [mpmath.mpf(0.5), mpmath.mpf(0.5)]


def test_symmetry_gives_exact_zeros():
    """tanh is odd: E[tanh] = E[X·tanh'] = 0 exactly under N(0, s²), E[X·tanh] is not."""
    zero, also_zero, positive = expectations("tanh", [(0, 1, 0), (1, 0, 1), (1, 1, 0)], std=2)
    assert zero == 0 and also_zero == 0 and positive > 0


@pytest.mark.parametrize("std", [2, Fraction(2), "2", "2.0", Decimal("2"), 2.0, mpmath.mpf(2)])
def test_every_kind_of_number_is_taken_exactly(std):
    assert expectations("softsign", [(0, 2, 0)], std=std, digits=20) == expectations(
        "softsign", [(0, 2, 0)], std=Fraction(2), digits=20
    )


def test_catalog_parameters_by_name():
    slope = gaussian_moments("leaky_relu", params={"slope": "0.2"}, digits=20)
    with mp.workdps(30):
        assert agree_to(slope["second_moment"], (1 + mpmath.mpf("0.2") ** 2) / 2, 20)
    with pytest.raises(InputError) as raised:
        expectations("tanh", [(0, 1, 0)], params={"slope": 1})
    assert raised.value.param == "slope"
    assert str(raised.value) == "slope applies only to leaky_relu, not to 'tanh'"


def test_errors_name_the_python_argument_with_its_range():
    with pytest.raises(InputError) as raised:
        expectations("gelu", [(0, 1, 0)], std=-1)
    error = raised.value
    assert (error.param, error.allowed, error.got) == ("std", "greater than 0", "-1")
    assert error.message == "std must be greater than 0, got -1"
    with pytest.raises(InputError, match="^std must be greater than 0, got -1$"):
        momentcalc.truncnorm(std=-1)
    with pytest.raises(InputError, match="^activation 'nosuch' is not in the catalog"):
        expectations("nosuch", [(0, 1, 0)])


def test_a_divergent_monomial_is_named():
    with pytest.raises(InputError, match=r"^activation 'exp\(x\*\*2/5\)': E\[phi\^4\] diverges"):
        expectations("exp(x**2/5)", [(0, 1, 0), (0, 4, 0)], digits=10)


@pytest.mark.parametrize("bad", [(0, 1), (0, -1, 0), (0, 1.0, 0), (True, 0, 0)])
def test_monomials_are_checked(bad):
    with pytest.raises(ValueError, match="monomial"):
        expectations("tanh", [bad])
