"""Every whitelisted function through first and second derivatives: φ = x·f(x) (and
x·f(x, c) for max/min), φ' and φ'' built by expression_calculus.derivative, evaluated by the
mpmath closures and by the Arb ball closures, against mpmath.diff of φ itself.
(kernel 'x*sigmoid(x)' crashed: sigmoid's second derivative named a function without a rule.)"""

from __future__ import annotations

import mpmath
import pytest
from flint import acb, arb, ctx
from mpmath import mp

from momentcalc.catalog.expression_ball import compile_ball
from momentcalc.catalog.expression_calculus import derivative
from momentcalc.catalog.expression_eval import compile_mpmath
from momentcalc.catalog.expression_parse import FUNCTIONS, parse

# arguments inside every function's domain; max/min take a second argument
_ARGUMENT = {"log": "1+x*x", "log1p": "x*x", "sqrt": "2+x", "max": "x,-1/3", "min": "x,1/3"}
_POINTS = ("-1.7", "-0.6", "0.35", "1.3")


@pytest.mark.parametrize("name", FUNCTIONS)
def test_second_derivative_of_x_times_f(name: str) -> None:
    text = f"x*{name}({_ARGUMENT.get(name, 'x')})"
    phi = parse(text)
    first = derivative(phi)
    second = derivative(first)
    f0, f1, f2 = (compile_mpmath(n) for n in (phi, first, second))
    b1, b2 = compile_ball(first), compile_ball(second)
    with mp.workdps(40):
        for point in _POINTS:
            x = mpmath.mpf(point)
            want1 = mpmath.diff(f0, x, 1)
            want2 = mpmath.diff(f0, x, 2)
            assert abs(f1(x) - want1) < mpmath.mpf(10) ** -30 * (1 + abs(want1)), (text, point)
            assert abs(f2(x) - want2) < mpmath.mpf(10) ** -30 * (1 + abs(want2)), (text, point)
            old = ctx.prec
            ctx.prec = 150
            try:
                z = acb(arb(point))
                for ball, want in ((b1, want1), (b2, want2)):
                    value = ball(z, False).real
                    assert value.rad() < arb("1e-30"), (text, point)
                    error = abs(value - arb(mpmath.nstr(want, 45)))
                    assert error < arb("1e-28") * (1 + abs(arb(mpmath.nstr(want, 20)))), (text, point)
            finally:
                ctx.prec = old


@pytest.mark.parametrize(
    "text", ["log(1+exp(x))", "log(exp(2*x)+1)", "log1p(exp(x/3))", "x*tanh(log(1+exp(x)))", "log(2+exp(x))"]
)
def test_softplus_written_out_differentiates_to_sigmoid(text):
    """log(1 + e^v)' = σ(v)·v' (bounded: e^v/(1 + e^v) had the growth bound e^|x|, so kernel of
    such an expression exited 3): φ' and φ'' against mpmath.diff, φ' as a sigmoid where it applies."""
    phi = parse(text)
    first = derivative(phi)
    second = derivative(first)
    f0, f1, f2 = (compile_mpmath(n) for n in (phi, first, second))
    if text.startswith(("log(1+", "log(exp", "log1p")):
        assert first.kind != "div" and "sigmoid" in str(first), first
    with mp.workdps(40):
        for point in _POINTS + ("7.5", "-9"):
            x = mpmath.mpf(point)
            for got, order in ((f1(x), 1), (f2(x), 2)):
                want = mpmath.diff(f0, x, order)
                assert abs(got - want) < mpmath.mpf(10) ** -30 * (1 + abs(want)), (text, point, order)


def test_kernel_of_scaled_mish_written_out(cli):
    """2·x·tanh(log(1 + e^x)) is 2·mish (no catalog twin: its own route): nngp and ntk_derivative
    4 times mish's, the normalized maps mish's, at 30 digits."""
    ours = cli("kernel", "2*x*tanh(log(1+exp(x)))", "--rho", "0.5", "--digits", "30", "--json")
    mish = cli("kernel", "mish", "--rho", "0.5", "--digits", "30", "--json")
    assert ours.code == mish.code == 0, ours.stderr
    a, b = ours.json()["results"], mish.json()["results"]
    with mp.workdps(40):
        for name, factor in (
            ("nngp", 4),
            ("ntk_derivative", 4),
            ("q_map_slope_at_1", 4),
            ("correlation_out", 1),
            ("c_map_at_0", 1),
            ("c_map_slope_at_1", 1),
            ("c_map_curvature_at_1", 1),
        ):
            want = factor * mpmath.mpf(b[name]["decimal"])
            assert abs(mpmath.mpf(a[name]["decimal"]) - want) <= mpmath.mpf(10) ** -28 * abs(want), name
