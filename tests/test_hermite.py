"""``hermite``: the coefficients against mpmath quadrature of their definition, the dual
activation's series against ``kernel``'s nngp (within the proven tail) and against 2-D
quadrature for tanh and gelu, exact zeros and exact tails where they are proven."""

from __future__ import annotations

import functools
import math

import mpmath
import pytest

from momentcalc.computations.hermite import hermite
from momentcalc.computations.kernel import kernel
from tests.conftest import invoke
from tests.test_kernel import _expectation2, _gelu


def _he(k, x):
    """He_k(x) by its three-term recurrence He_{j+1} = x·He_j − j·He_{j−1} (mpmath.hermite, the
    physicists' H_k through a hypergeometric series, cost most of this file's quadratures)."""
    previous, current = mpmath.mpf(0), mpmath.mpf(1)
    for j in range(k):
        previous, current = current, x * current - j * previous
    return current


@pytest.mark.parametrize(
    "name, f",
    [
        ("tanh", mpmath.tanh),
        ("relu", lambda x: max(x, 0)),
        ("softplus", lambda x: mpmath.log1p(mpmath.exp(x))),
    ],
)
def test_coefficients_against_quadrature(name, f):
    result = hermite(name, terms=6, digits=14)
    with mpmath.workdps(20):
        for k, got in enumerate(result.value("coefficients")):
            want = mpmath.quad(lambda z: f(z) * _he(k, z) * mpmath.npdf(z), [-12, 0, 12]) / mpmath.sqrt(
                mpmath.factorial(k)
            )
            assert abs(got - want) < 1e-14


def test_exact_zeros_where_proven():
    """relu = x/2 + |x|/2: its odd coefficients beyond a_1 vanish; tanh is odd: its even ones."""
    relu = hermite("relu", terms=8).value("coefficients")
    assert [relu[k] for k in (3, 5, 7)] == [0, 0, 0]
    tanh = hermite("tanh", terms=8).value("coefficients")
    assert [tanh[k] for k in (0, 2, 4, 6)] == [0, 0, 0, 0]


def test_polynomial_has_an_exact_zero_tail():
    run = invoke("hermite", "x**3", "--terms", "4", "--rho", "0.5", "--get", "tail_bound", "--get", "dual")
    assert run.code == 0 and run.stdout.split() == ["0", "5.25000000000000"]  # 9ρ + 6ρ³


@pytest.mark.parametrize("name", ["tanh", "gelu", "relu", "erf", "selu"])
@pytest.mark.parametrize("rho", ["0.5", "-0.8"])
def test_dual_agrees_with_kernel_within_its_tail(name, rho):
    dual = hermite(name, terms=14, rho=rho, digits=15)
    nngp = kernel(name, rho=rho, digits=15).value("nngp")
    gap = abs(dual.value("dual") - nngp)
    assert gap <= dual.value("dual_tail_bound") * (1 + 1e-10) + 1e-15
    assert dual.value("dual_tail_bound") < 0.01  # the bound is not vacuous


@pytest.mark.parametrize("name, f", [("tanh", math.tanh), ("gelu", _gelu)])
def test_dual_against_2d_quadrature(name, f):
    dual = hermite(name, terms=24, rho="0.5")
    expected = _expectation2(f, f, "0.5")
    assert abs(dual.value("dual") - expected) <= dual.value("dual_tail_bound") + 1e-11
    assert dual.value("dual_tail_bound") < 1e-7


def test_energy_and_tail_sum_to_the_second_moment():
    result = hermite("swish", terms=10, digits=20)
    with mpmath.workdps(40):
        total = result.value("energy") + result.value("tail_bound")
        assert abs(total - result.value("second_moment")) < mpmath.mpf(10) ** -20


@pytest.mark.parametrize(
    "argv, option",
    [
        (("relu", "--terms", "0"), "--terms"),
        (("relu", "--terms", "1.5"), "--terms"),
        (("relu", "--rho", "2"), "--rho"),
    ],
)
def test_bad_input(argv, option):
    run = invoke("hermite", *argv)
    assert run.code == 2 and run.stdout == "" and option in run.stderr


@pytest.mark.parametrize(
    "name",
    [
        "identity",
        "relu",
        "leaky_relu",
        "softplus",
        "gelu",
        "swish",
        "gelu_tanh",
        "sigmoid",
        "hard_swish",
        "quick_gelu",
        "log_sigmoid",
        "hard_sigmoid",
    ],
)
def test_symmetry_identities_of_the_catalog(name):
    """catalog.formulas' LINEAR_ODD_PART / CONSTANT_EVEN_PART, checked by sympy and at points."""
    import sympy as sp

    from momentcalc.catalog import resolve
    from momentcalc.catalog.formulas import CONSTANT_EVEN_PART

    act = resolve(name)
    x = sp.Symbol("x", real=True)
    params = act.sympy_params()
    f = act.sympy(sp, x, params)
    part = f + f.subs(x, -x) if name in CONSTANT_EVEN_PART else (f - f.subs(x, -x)) / x
    for point in ("-3.7", "-0.4", "0.9", "2.3", "6.1"):
        value = sp.N(part.subs(x, sp.Rational(point)), 40)
        reference = sp.N(part.subs(x, sp.Rational("1.3")), 40)
        assert abs(value - reference) < 1e-35


def test_the_most_digits_are_accepted_and_right():
    """--digits 1000 (the maximum): the coefficients ask the moments for their digits plus two
    levels of guard digits (1012), which the internal limit once refused as bad input (exit 2).
    The 1000-digit a_1 = E[Z·tanh Z] begins with the 40 digits quadrature gives."""
    result = hermite("tanh", terms=2, digits=1000)
    with mpmath.workdps(1010):
        got = mpmath.mpf(result["coefficients"].decimal(1000)[1])
    with mpmath.workdps(50):
        want = 2 * mpmath.quad(lambda z: mpmath.tanh(z) * z * mpmath.npdf(z), [0, 4, 16])
        assert abs(got - want) <= abs(want) * mpmath.mpf(10) ** -40


def _true_tail(f, terms, dps=40):
    """E[f(Z)²] − Σ_{k<terms} a_k² by mpmath quadrature at ``dps`` digits (an independent route).
    The quadratures share their nodes, so f(z)·φ(z) and He_0(z), …, He_{terms−1}(z) (one pass of
    _he's recurrence) are computed once a node (with the recurrence redone for each k, _he took
    60 % of the CPU; the values, and so the integrals, are the same)."""
    with mpmath.workdps(dps):
        weighted: dict = {}

        def f_pdf(z):
            if z not in weighted:
                previous, current, he = mpmath.mpf(0), mpmath.mpf(1), []
                for j in range(terms):
                    he.append(current)
                    previous, current = current, z * current - j * previous
                weighted[z] = f(z), mpmath.npdf(z), he
            return weighted[z]

        def integral(g):
            return mpmath.quad(g, [-mpmath.inf, -4, 0, 4, mpmath.inf])

        second = integral(lambda z: f_pdf(z)[0] ** 2 * f_pdf(z)[1])
        energy = mpmath.mpf(0)
        for k in range(terms):
            a = integral(lambda z: f_pdf(z)[0] * f_pdf(z)[2][k] * f_pdf(z)[1])
            energy += a**2 / mpmath.factorial(k)
        return second - energy


@functools.cache
def _gelu_tail_7():
    """gelu's tail after 7 terms at 50 digits (once: every digits below 30 reads it)."""
    return _true_tail(lambda z: z * mpmath.ncdf(z), 7, dps=50)


def test_tail_bound_rounds_up():
    """tanh's tail after 16 terms is 1.3974088930849336…e-5: the nearest 15 digits (…493e-5) lie
    below it, so a bound prints …494e-5, the true value rounded up, and its double is above too."""
    # (at 30 digits: the tail's first 25 digits are those at 40, which took 0.5 s of CPU more)
    true = _true_tail(mpmath.tanh, 16, dps=30)
    assert mpmath.nstr(true, 20, min_fixed=0, max_fixed=0).startswith("1.39740889308493")
    result = hermite("tanh", terms=16, rho="0.5", digits=15)
    text = result["tail_bound"].decimal(15)
    assert text == "1.39740889308494e-5"
    with mpmath.workdps(40):
        printed = mpmath.mpf(text)
        assert printed >= true > printed - mpmath.mpf("1e-19")  # the ceiling: one unit above is too much
        dual_true = true * mpmath.mpf("0.5") ** 16
        dual = mpmath.mpf(result["dual_tail_bound"].decimal(15))
        assert dual >= dual_true > dual - mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(dual)) - 14)


# 8 and 15 digits with -m reference: each worker that runs one pays for the 50-digit tail (0.9 s of CPU),
# and the group sends the default run's two to one worker, which pays once
@pytest.mark.xdist_group("gelu-tail-7")
@pytest.mark.parametrize(
    "digits",
    [3, pytest.param(8, marks=pytest.mark.reference), pytest.param(15, marks=pytest.mark.reference), 30],
)
def test_tail_bounds_never_print_below_the_tail(digits):
    """At every digits the printed tail (decimal, JSON double and --get) is at or above mpmath's."""
    import json

    true = _gelu_tail_7()
    run = invoke("hermite", "gelu", "--terms", "7", "--digits", str(digits), "--json")
    assert run.code == 0
    doc = json.loads(run.stdout)["results"]["tail_bound"]
    with mpmath.workdps(digits + 20):
        printed = mpmath.mpf(doc["decimal"])
        unit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(printed)) - digits + 1)
        assert printed >= true > printed - unit
        assert mpmath.mpf(doc["value"]) >= true
