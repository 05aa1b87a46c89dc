"""Expressions that are a catalog entry's formula take the entry's certified route from
TWIN_FROM_DIGITS on (``catalog.expression_twins``): the route is valid only if the entry's
implementation is the function its formula states, on the real line (mpmath) and on balls
(the Arb branches its proofs integrate); and the digits must be the expression's own."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import acb, arb, ctx

from momentcalc.catalog import resolve
from momentcalc.catalog.ball_functions import BALL_FUNCTIONS
from momentcalc.catalog.expression_ball import compile_ball
from momentcalc.catalog.expression_eval import compile_mpmath
from momentcalc.catalog.expression_twins import TWIN_FROM_DIGITS, catalog_twin, formula_trees
from momentcalc.moments import expectation_balls

POINTS = [Fraction(k, 7) for k in range(-40, 41, 3)] + [Fraction(1, 1000), Fraction(-1, 1000)]


def test_every_parameter_free_entry_with_an_expression_form_is_found():
    found = set(formula_trees().values())
    assert {
        "mish",
        "swish",
        "softplus",
        "sigmoid",
        "tanh",
        "gelu",
        "gelu_tanh",
        "erf",
        "relu",
        "softsign",
    } <= found
    assert "leaky_relu" not in found  # a parameter: its formula names it, not a number


@pytest.mark.parametrize("tree, name", list(formula_trees().items()), ids=lambda v: str(v))
def test_the_entry_is_the_function_its_formula_states(tree, name):
    """mpmath at 50 digits and the entry's Arb branches at 200 bits against the formula's own
    evaluation, at points on both sides of 0 (a wrong entry, or a formula that says something
    else, fails by far more than the tolerance)."""
    act = resolve(name)
    formula = compile_mpmath(tree)
    with mpmath.workdps(50):
        for x in POINTS:
            value, expected = (
                act.fn(mpmath.mpf(x.numerator) / x.denominator, act.param_values()),
                formula(mpmath.mpf(x.numerator) / x.denominator),
            )
            assert abs(value - expected) <= mpmath.mpf(10) ** -45 * max(1, abs(expected)), (name, x)
    entry = BALL_FUNCTIONS[name]
    own = compile_ball(tree)
    with ctx.workprec(200):
        for x in POINTS:
            z = acb(arb(x.numerator) / x.denominator)
            branch = sum(1 for k in entry.kinks if x > k)
            if any(x == k for k in entry.kinks):
                continue
            value = entry.branches[branch][0](z, {}, False)
            expected = own(z, False)
            assert value.overlaps(expected) and (value - expected).real.rad() < arb(2) ** -150, (name, x)


def test_routing_only_from_the_threshold_and_only_for_a_formula():
    mish_text = resolve("x * tanh(log(1 + exp(x)))")
    assert catalog_twin(mish_text, TWIN_FROM_DIGITS - 1) is None
    assert catalog_twin(mish_text, TWIN_FROM_DIGITS).name == "mish"
    assert catalog_twin(resolve("x*tanh(log(2+exp(x)))"), 1000) is None
    assert catalog_twin(resolve("mish"), 1000) is None  # a catalog entry already


def test_routed_digits_are_the_expressions_own():
    """At TWIN_FROM_DIGITS the expression's moments come from mish's route; rounded to 30
    digits they are what the expression's own route proves at 30 digits."""
    text = "x*tanh(log(1+exp(x)))"
    routed = expectation_balls(text, [(0, 1, 0), (0, 2, 0)], mean="0.5", std="1.5", digits=TWIN_FROM_DIGITS)
    own = expectation_balls(text, [(0, 1, 0), (0, 2, 0)], mean="0.5", std="1.5", digits=30)
    for a, b in zip(routed, own):
        assert a.overlaps(b)
        assert a.mid().str(30, radius=False) == b.mid().str(30, radius=False)


# 1.9 s of CPU; by default the formula takes mish's route at 15 and 30 digits in the tests below
@pytest.mark.slow
@pytest.mark.reference
def test_mish_formula_at_1000_digits_as_mish(cli):
    """Was 99 s and exit 3; now mish's route: the same decimals as mish."""
    expression = cli("activation-moment", "x*tanh(log(1+exp(x)))", "--digits", "1000", "--json")
    catalog = cli("activation-moment", "mish", "--digits", "1000", "--json")
    assert expression.code == catalog.code == 0, expression.stderr
    ours, theirs = expression.json()["results"], catalog.json()["results"]
    assert {k: v["decimal"] for k, v in ours.items()} == {k: v["decimal"] for k, v in theirs.items()}
    assert expression.json()["inputs"]["activation"] == "x*tanh(log(1+exp(x)))"


_KERNEL_TWINS = [
    ("x*tanh(log(1+exp(x)))", "mish"),
    ("x*sigmoid(x)", "swish"),
    ("log(1+exp(x))", "softplus"),
    ("min(max(x,-1),1)", "hardtanh"),
]
_COMMANDS = [
    ("kernel", "--rho", "0.5"),
    ("hermite", "--terms", "5", "--rho", "0.5"),
    ("tat", "--target-slope", "1.3"),
]


def _decimals(result) -> dict:
    out = {}
    for name, value in result.json()["results"].items():
        out[name] = value.get("decimal", value.get("values", value))
    return out


# Every twin at 15 and 30 digits; mish's and swish's kernel and tat at 30 (1.1 s of CPU, the same
# routes as at 15) with -m reference.
@pytest.mark.parametrize(
    "text, name, command, digits",
    [
        pytest.param(
            text,
            name,
            command,
            digits,
            id=f"{text}-{name}-{command[0]}-{digits}",
            marks=pytest.mark.reference
            if digits == "30" and name in ("mish", "swish") and command[0] != "hermite"
            else (),
        )
        for text, name in _KERNEL_TWINS
        for command in _COMMANDS
        for digits in ("15", "30")
    ],
)
def test_kernel_hermite_tat_of_a_formula_are_its_entrys(cli, text, name, command, digits):
    """kernel/hermite/tat of an expression that is an entry's formula take the entry's certified
    routes at every digits (mish's formula exited 3 in kernel: its phi' growth bound was e^|x|):
    the same printed digits as the entry, the expression's text kept as the input."""
    if command[0] == "tat" and name in ("softplus", "hardtanh"):
        pytest.skip("no DKS transform at 1.3 for the entry either")
    args = (command[0], text, *command[1:], "--digits", digits, "--json")
    expression = cli(*args)
    catalog = cli(command[0], name, *command[1:], "--digits", digits, "--json")
    assert expression.code == catalog.code == 0, expression.stderr + catalog.stderr
    assert _decimals(expression) == _decimals(catalog)
    assert expression.json()["inputs"]["activation"] == text
