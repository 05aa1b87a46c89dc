"""Expressions that are a catalog activation written another way (not its formula's own text,
so not routed to the entry: ``catalog.expression_twins``) give the entry's values to every
printed digit, by their own routes: the kernel at 15 digits, the Hermite coefficients at 30,
with the exact zeros of their symmetries (``expression_calculus.hermite_symmetry``)."""

from __future__ import annotations

import pytest

from momentcalc.catalog import resolve
from momentcalc.catalog.expression_calculus import hermite_symmetry
from momentcalc.computations.hermite import hermite
from momentcalc.computations.kernel import kernel

SAME = [
    ("sigmoid(x)*x", "swish"),
    ("softplus(x)", "softplus"),
    ("sigmoid(x)", "sigmoid"),
    ("(x+abs(x))/2", "relu"),
    ("2*sigmoid(2*x)-1", "tanh"),
    ("0.5*x*(1+erf(x/sqrt(2)))", "gelu"),
    ("log(sigmoid(x))", "log_sigmoid"),
    ("log1p(exp(x))", "softplus"),
]


def _decimals(result, digits):
    return {name: result[name].decimal(digits) for name in result.names}


@pytest.mark.parametrize("text, name", SAME)
def test_kernel_of_an_expression_is_the_catalog_entrys(text, name):
    assert _decimals(kernel(text, rho="0.5"), 15) == _decimals(kernel(name, rho="0.5"), 15)


@pytest.mark.parametrize(
    "text, name",
    [
        ("sigmoid(x)*x", "swish"),
        ("softplus(x)", "softplus"),
        ("sigmoid(x)", "sigmoid"),
        ("log1p(exp(x))", "softplus"),
        ("log(sigmoid(x))", "log_sigmoid"),
    ],
)
def test_hermite_of_an_expression_is_the_catalog_entrys_at_30_digits(text, name):
    found, want = hermite(text, terms=6, digits=30), hermite(name, terms=6, digits=30)
    assert _decimals(found, 30) == _decimals(want, 30)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("sigmoid(x)", "constant_even_part"),
        ("erfc(x)", "constant_even_part"),
        ("sigmoid(x)+x**3", "constant_even_part"),
        ("softplus(x)", "linear_odd_part"),
        ("x*sigmoid(x)", "linear_odd_part"),
        ("softplus(x)-log(2)", "linear_odd_part"),
        ("0.5*x*(1+erf(x/sqrt(2)))", "linear_odd_part"),
        ("x+x**2", "linear_odd_part"),
        # no claim: a jump (sign(x) + x**2 is not x**2 plus an odd part, whatever phi' says), a kink, no symmetry
        ("x/abs(x)+x**2", None),
        ("max(x,0)", None),
        ("exp(x)", None),
        ("tanh(x)", None),
        ("x**2", None),
    ],
)
def test_hermite_symmetries_beyond_parity(text, kind):
    assert hermite_symmetry(resolve(text).tree) == kind


@pytest.mark.parametrize(
    "text, name",
    [
        ("(x+abs(x))/2", "relu"),
        ("min(max(x+3,0),6)/6", "hard_sigmoid"),
        ("x*min(max(x+3,0),6)/6", "hard_swish"),
        ("max(x,0)+exp(min(x,0))-1", "elu"),
        ("abs(x)", None),
        ("max(x,0)+0.01*min(x,0)", None),
        ("max(x,-1)", None),
        ("sigmoid(x)", "sigmoid"),
        ("softplus(x)", "softplus"),
        ("log1p(exp(x))", "softplus"),
        ("log(sigmoid(x))", "log_sigmoid"),
        ("exp(x)", None),
        ("erfc(x)", None),
    ],
)
def test_an_expression_with_the_pieces_of_a_catalog_entry_is_its_twin(text, name):
    """By the exact pieces (rational kinks and coefficients; entries with parameters, leaky_relu,
    are left to the expression's own routes), by the entry's name as a function (sigmoid(x)),
    or by the identities of ``canonical`` (log1p(exp(x)) is softplus(x))."""
    from momentcalc.catalog.expression_twins import twin

    found = twin(resolve(text))
    assert (found.name if found else None) == name


def test_tat_of_relu_written_with_abs_is_relus():
    """(x+abs(x))/2: DKS's search found nothing for it (exit 3); relu's own transform now."""
    from momentcalc.computations.tat import tat

    found, want = tat("(x+abs(x))/2", depth=3, target_slope="1.5"), tat("relu", depth=3, target_slope="1.5")
    assert _decimals(found, 15) == _decimals(want, 15)


def test_a_twins_message_names_the_expression_first():
    from tests.conftest import invoke

    run = invoke("tat", "min(max(x,-1),1)", "--target-slope", "1.5", "--depth", "3")
    assert run.code == 2
    assert "'min(max(x, -1), 1)' (the catalog's hardtanh)" in run.stderr


def test_the_derivative_of_log_sigmoid_is_sigmoid_of_minus_x():
    """log(sigmoid(v))' = sigmoid(-v)*v' (no division by a sigmoid that tends to 0): against
    mpmath's numerical derivative of the expression itself."""
    import mpmath

    act = resolve("log(sigmoid(2*x+1))")
    with mpmath.workdps(30):
        for x in (mpmath.mpf(-7), mpmath.mpf("-0.3"), mpmath.mpf(2), mpmath.mpf(15)):
            want = mpmath.diff(lambda t: act.fn(t, {}), x)
            assert abs(act.derivative(x, {}) - want) < mpmath.mpf(10) ** -20 * (1 + abs(want))
