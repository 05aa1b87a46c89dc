"""Clipping an odd expression to a symmetric window keeps it odd (expression_calculus.parity):
kernel 'max(min(x,1),-1)' and 'min(max(x,-2),2)' exited 3 (E[phi] = 0 unproven in C(0))."""

from __future__ import annotations

import mpmath
import pytest

from momentcalc.catalog.expression_calculus import parity
from momentcalc.catalog.expression_parse import parse


@pytest.mark.parametrize("text", ["min(max(x,-1),1)", "max(min(x,1),-1)", "min(1,max(-1,x))", "max(-1,min(1,x))",
                                  "min(max(x,-2),2)", "min(max(3*tanh(x),-1/2),1/2)", "min(max(x,0),0)"])
def test_clip_of_an_odd_function_is_odd(text):
    assert parity(parse(text)) == "odd"
    fn = parse(text)
    from momentcalc.catalog.expression_eval import compile_mpmath

    f = compile_mpmath(fn)
    for x in (mpmath.mpf("0.3"), mpmath.mpf("1.7"), mpmath.mpf("2.5")):
        assert f(-x) == -f(x)


@pytest.mark.parametrize("text", ["min(max(x,-1),2)", "min(max(x,1),-1)", "max(min(x,-1),1)", "min(max(x+1,-1),1)",
                                  "min(max(cos(x),-1),1)", "min(max(x,-1),1)+1"])
def test_other_clips_are_not_called_odd(text):
    assert parity(parse(text)) != "odd"


def test_kernel_of_a_clip_written_the_other_way_is_hardtanh(cli):
    """max(min(x,1),-1) is not hardtanh's formula text: its own route, the same digits at 30."""
    ours = cli("kernel", "max(min(x,1),-1)", "--rho", "0.5", "--digits", "30", "--json")
    theirs = cli("kernel", "hardtanh", "--rho", "0.5", "--digits", "30", "--json")
    assert ours.code == theirs.code == 0, ours.stderr
    assert ({k: v["decimal"] for k, v in ours.json()["results"].items()}
            == {k: v["decimal"] for k, v in theirs.json()["results"].items()})
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
        clip = lambda t: min(max(t, -2), 2)  # noqa: E731

        def inner(t):  # E[clip(m + s W)], W ~ N(0, 1), m = r t: the three pieces in closed form
            m = r * t
            a, b = (-2 - m) / s, (2 - m) / s
            middle = m * (mpmath.ncdf(b) - mpmath.ncdf(a)) + s * (mpmath.npdf(a) - mpmath.npdf(b))
            return -2 * mpmath.ncdf(a) + middle + 2 * (1 - mpmath.ncdf(b))

        value = mpmath.quad(lambda t: clip(t) * inner(t) * mpmath.npdf(t), [-mpmath.inf, -2, 2, mpmath.inf])
    assert abs(mpmath.mpf(results["nngp"]["decimal"]) - value) < mpmath.mpf(10) ** -15
