"""Clipping an odd expression to a symmetric window keeps it odd (expression_calculus.parity):
kernel 'max(min(x,1),-1)' and 'min(max(x,-2),2)' exited 3 (E[phi] = 0 unproven in C(0))."""

from __future__ import annotations

import mpmath
import pytest

from momentcalc.catalog.expression_calculus import parity
from momentcalc.catalog.expression_parse import parse


@pytest.mark.parametrize(
    "text",
    [
        "min(max(x,-1),1)",
        "max(min(x,1),-1)",
        "min(1,max(-1,x))",
        "max(-1,min(1,x))",
        "min(max(x,-2),2)",
        "min(max(3*tanh(x),-1/2),1/2)",
        "min(max(x,0),0)",
    ],
)
def test_clip_of_an_odd_function_is_odd(text):
    assert parity(parse(text)) == "odd"
    fn = parse(text)
    from momentcalc.catalog.expression_eval import compile_mpmath

    f = compile_mpmath(fn)
    for x in (mpmath.mpf("0.3"), mpmath.mpf("1.7"), mpmath.mpf("2.5")):
        assert f(-x) == -f(x)


@pytest.mark.parametrize(
    "text",
    [
        "min(max(x,-1),2)",
        "min(max(x,1),-1)",
        "max(min(x,-1),1)",
        "min(max(x+1,-1),1)",
        "min(max(cos(x),-1),1)",
        "min(max(x,-1),1)+1",
    ],
)
def test_other_clips_are_not_called_odd(text):
    assert parity(parse(text)) != "odd"


def test_kernel_of_a_clip_written_the_other_way_is_hardtanh(cli):
    """max(min(x,1),-1) is not hardtanh's formula text: its own route, the same digits at 30."""
    ours = cli("kernel", "max(min(x,1),-1)", "--rho", "0.5", "--digits", "30", "--json")
    theirs = cli("kernel", "hardtanh", "--rho", "0.5", "--digits", "30", "--json")
    assert ours.code == theirs.code == 0, ours.stderr
    assert {k: v["decimal"] for k, v in ours.json()["results"].items()} == {
        k: v["decimal"] for k, v in theirs.json()["results"].items()
    }
    assert ours.json()["results"]["c_map_at_0"]["decimal"] == "0"


def test_kernel_of_a_wider_clip_against_quadrature(cli):
    """min(max(x,-2),2) at rho = 1/2: nngp against 2-D mpmath quadrature split at the kinks."""
    out = cli("kernel", "min(max(x,-2),2)", "--rho", "0.5", "--json")
    assert out.code == 0, out.stderr
    results = out.json()["results"]
    assert results["c_map_at_0"]["decimal"] == "0"
    with mpmath.workdps(20):
        r = mpmath.mpf(1) / 2
        s = mpmath.sqrt(1 - r * r)
        clip = lambda t: min(max(t, -2), 2)

        def inner(t):  # E[clip(m + s W)], W ~ N(0, 1), m = r t: the three pieces in closed form
            m = r * t
            a, b = (-2 - m) / s, (2 - m) / s
            middle = m * (mpmath.ncdf(b) - mpmath.ncdf(a)) + s * (mpmath.npdf(a) - mpmath.npdf(b))
            return -2 * mpmath.ncdf(a) + middle + 2 * (1 - mpmath.ncdf(b))

        value = mpmath.quad(lambda t: clip(t) * inner(t) * mpmath.npdf(t), [-mpmath.inf, -2, 2, mpmath.inf])
    assert abs(mpmath.mpf(results["nngp"]["decimal"]) - value) < mpmath.mpf(10) ** -15


def test_kernel_local_quantity_on_a_rounding_tie(cli):
    """abs(x)**8*max(x,0)**8 = max(x,0)**16: E[u·φ·φ'] = 16·E[max(u,0)^32] = 8·31!! =
    1535190271700085000, a 5 after its 15th digit, which no ball decides (exit 3). The local
    quantities that are rational are rounded from their fractions (moments.exact)."""
    from fractions import Fraction
    from math import prod

    double_factorial = prod(range(1, 32, 2))  # 31!! = E[Z^32]
    cross = 8 * double_factorial
    assert cross == 1535190271700085000
    out = cli("kernel", "abs(x)**8*max(x,0)**8", "--rho", "0.5", "--json")
    assert out.code == 0, out.stderr
    results = out.json()["results"]
    assert results["q_map_slope_at_1"]["decimal"] == "1.53519027170009e+18"
    # C'(1) = E[φ'²]/E[φ²] = 256·E[Z^30 1_{Z>0}] / E[Z^32 1_{Z>0}] = 256/31
    assert results["c_map_slope_at_1"]["decimal"] == mpmath.nstr(mpmath.mpf(256) / 31, 15)
    mean, second = Fraction(prod(range(1, 16, 2)), 2), Fraction(double_factorial, 2)
    c0 = mean * mean / second
    assert results["c_map_at_0"]["decimal"] == mpmath.nstr(mpmath.mpf(c0.numerator) / c0.denominator, 15)


@pytest.mark.parametrize(
    "args",
    [
        ["kernel", "(-x)**1.5", "--rho", "0.5"],
        ["kernel", "log(x)", "--q1", "2", "--q2", "3"],
        ["hermite", "x**1.5"],
        ["tat", "sqrt(x)", "--target-slope", "1.5"],
    ],
)
def test_an_expression_undefined_on_half_the_line_is_bad_input(cli, args):
    """As in activation-moment: exit 2 naming the activation and a point where it has no real
    value (kernel '(-x)**1.5' spent the whole CPU budget and exited 3)."""
    out = cli(*args)
    assert out.code == 2, out.stderr
    assert "not defined at x =" in out.stderr and out.stdout == ""


def test_a_kink_no_ball_places_is_exit_3_not_a_traceback(cli):
    """abs(x/x)*x: the kink argument x/x has no sign change a ball can place (NotCertified from
    the curvature's branches escaped as a traceback, found by the kernel/hermite/tat fuzz)."""
    out = cli("kernel", "abs(x/x)*x", "--rho", "0", "--format", "csv")
    assert out.code == 3 and out.stdout == "", out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
