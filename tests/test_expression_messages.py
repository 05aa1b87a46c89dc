"""What kernel, hermite and tat say about expressions they cannot answer: exit 2 for bad input
(a moment that diverges), exit 3 for what cannot be proven, one line on stderr, nothing on
stdout, and the activation named as the user wrote it, never by a tree built inside (a
derivative such as '(cos(x)*x - sin(x))/x**2', or helper functions such as sech2, sign)."""

from __future__ import annotations

import re

import pytest

from momentcalc.catalog import resolve
from tests.conftest import invoke

# Names of the functions only derivatives contain (users cannot write them).
INTERNAL = ("sech2", "sigmoid_slope", "sinc", "sign(", "step(", "chain")

COMMANDS = {"kernel": ("--rho", "0.5"), "hermite": ("--terms", "4"), "tat": ("--target-slope", "1.5")}

# (expression, command, allowed exits): quick failures and quick answers of each kind
CASES = [
    ("1/x", "kernel", {2}),
    # (0.4 s of CPU: 1/x's message is kernel's above; tat's own refusals are the two below)
    pytest.param("1/x", "tat", {2}, marks=pytest.mark.reference),
    ("x**-2", "hermite", {2}),
    ("exp(x**2)", "kernel", {2}),
    ("log(abs(x))", "tat", {2}),
    ("sqrt(x)", "kernel", {2}),
    ("x**x", "tat", {2}),
    # Arb bisects towards the jump of x/abs(x) for seconds before giving up (exit 3): reference run.
    pytest.param("x/abs(x)", "kernel", {3}, marks=pytest.mark.reference),
    ("sin(x)/x", "kernel", {0}),
    ("tanh(x)/x", "hermite", {0}),
]


@pytest.mark.parametrize("text, command, exits", CASES)
def test_expression_messages_name_the_users_activation(text, command, exits):
    run = invoke(command, text, *COMMANDS[command])
    assert run.code in exits, run
    if run.code == 0:
        return
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr
    for name in INTERNAL:
        assert name not in lines[0], lines[0]
    try:
        written = {text, resolve(text).formula}
    except Exception:  # refused by the parser
        written = {text}
    for quoted in re.findall(r"ACTIVATION '([^']*)'", lines[0]):
        assert quoted in written, lines[0]


def test_the_curvature_of_a_power_below_two_is_proven_infinite():
    """abs(x)**1.5: phi'' = 0.75*|x|**(-1/2), so E[phi''^2] = +inf (proven from the signed powers)."""
    run = invoke("kernel", "abs(x)**1.5", "--rho", "0.5", "--json")
    assert run.code == 0, run
    results = run.json()["results"]
    assert results["c_map_curvature_at_1"]["decimal"] == "inf"
    assert results["ntk_derivative"]["decimal"] != "inf"


@pytest.mark.reference  # seconds of bisection before the exit 3
def test_an_unproven_divergence_of_the_curvature_is_exit_3_naming_the_result():
    run = invoke("kernel", "max(x,0)**1.5", "--rho", "0.5")
    assert run.code == 3
    assert "c_map_curvature_at_1" in run.stderr and "not proven" in run.stderr


def test_kernel_says_a_moment_diverges_before_it_looks_for_a_bivariate_route():
    run = invoke("kernel", "1/x", "--rho", "0.5", "--json")
    assert run.code == 2
    assert "diverges" in run.json()["error"]["message"]
