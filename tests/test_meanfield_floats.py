"""meanfield's search for q* in double precision (computations/meanfield/floats.py): the float
forms of the catalog's activations against their mpmath functions, the trapezoid sums against
the certified expectations, and where the search declines (the mpmath search runs instead)."""

from __future__ import annotations

import math

import mpmath
import pytest
from mpmath import mp

from momentcalc.catalog.expression_calculus import derivative
from momentcalc.catalog.expression_float import FloatTrouble, compile_float
from momentcalc.catalog.formulas import tree_of
from momentcalc.catalog.resolving import CATALOG, resolve
from momentcalc.computations.meanfield import floats, meanfield
from momentcalc.computations.meanfield.inputs import read

POINTS = (-7.5, -2.25, -1.0, -0.3, 0.0, 0.4, 1.0, 1.7, 3.0, 8.0)


@pytest.mark.parametrize("entry", [a.name for a in CATALOG])
def test_float_forms_are_the_catalog_functions(entry):
    """φ and φ' compiled to floats from the entry's defining expression agree with its mpmath
    functions (hand-written or derived) to about double precision, away from kinks."""
    act = resolve(entry)
    tree = tree_of(act)
    if tree is None:
        pytest.skip("no defining expression")
    try:
        phi, dphi = compile_float(tree), compile_float(derivative(tree))
    except FloatTrouble:
        pytest.skip("a function without a double-precision form")
    p = act.param_values()
    kinks = [float(k) for k in act.kinks(p)]
    with mp.workdps(30):
        for x in POINTS:
            if any(abs(x - k) < 1e-9 for k in kinks):
                continue
            for got, want in (
                (phi(x), act.fn(mpmath.mpf(x), p)),
                (dphi(x), act.derivative(mpmath.mpf(x), p)),
            ):
                assert math.isclose(got, float(want), rel_tol=1e-12, abs_tol=1e-13), (entry, x)


@pytest.mark.parametrize(
    ("activation", "q"), [("tanh", "0.01"), ("tanh", "0.4"), ("tanh", "4.3"), ("gelu", "2"), ("swish", "0.7")]
)
def test_trapezoid_sums_are_the_expectations(activation, q):
    """A, E[X·φ·φ'] and B from the float sums against the certified expectations (15 digits)."""
    given = read(activation, "1", "0", False, "1", None, None, None, 15)
    forms = floats._forms(given.model)
    assert forms is not None
    got = floats.FloatLength(*forms).moments(float(q))
    with mp.workdps(30):
        want = given.model.length(mpmath.mpf(q), 20)
        want = (want.A, want.S * mpmath.mpf(q), want.B)
    for g, w in zip(got, want):
        assert math.isclose(g, float(w), rel_tol=1e-12), (activation, q)


def test_kinks_and_kernels_decline():
    """Kinks (and closed-form kernels) have no float search: the answer is the mpmath search's."""
    kinked = read("max(x, 0) + tanh(x)", "1", "0.1", False, "1", None, None, None, 15).model
    assert floats._forms(kinked) is None  # declined up front (its critical parts)
    tree = tree_of(kinked.act)
    with pytest.raises(FloatTrouble):  # and the step-halving check would fail
        floats.FloatLength(compile_float(tree), compile_float(derivative(tree))).moments(1.0)
    assert floats._forms(read("erf", "1", "0", False, "1", None, None, None, 15).model) is None
    relu = meanfield("relu", sigma_w2="1.5", sigma_b2="0.1")
    assert mpmath.nstr(relu.value("q_star"), 15) == "0.4"


@pytest.mark.parametrize(
    ("w", "b"), [("0.5", "0"), ("1.6", "0.02"), ("4", "0.3"), ("0.8", "0.1"), ("2.5", "0.15")]
)
def test_same_digits_with_and_without_the_float_search(monkeypatch, w, b):
    """The float searches move only Newton's start: every printed digit is the same."""
    fast = meanfield("tanh", sigma_w2=w, sigma_b2=b, digits=20)
    monkeypatch.setattr(floats, "located", lambda *args, **kwargs: None)
    monkeypatch.setattr(floats, "correlation_start", lambda *args, **kwargs: None)
    slow = meanfield("tanh", sigma_w2=w, sigma_b2=b, digits=20)
    for name in ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c"):
        assert fast[name].decimal(20) == slow[name].decimal(20), name
        assert fast[name].certified == slow[name].certified


@pytest.mark.parametrize(("w", "b"), [("1.6", "0.02"), ("2.5", "0.15"), ("4", "0.3")])
def test_correlation_start_is_near_the_proven_c_star(w, b):
    """c* from the Hermite series in floats, at the proven q*, within 1e-8 of the proven c*."""
    proven = meanfield("tanh", sigma_w2=w, sigma_b2=b, digits=20)
    model = read("tanh", w, b, False, "1", None, None, None, 20).model
    start = floats.correlation_start(model, mpmath.mpf(w), mpmath.mpf(b), proven.value("q_star"))
    assert start is not None
    assert abs(start - proven.value("c_star")) <= 1e-8 * proven.value("c_star")


def test_correlation_start_declines_near_the_edge_of_chaos():
    """Just past the edge of chaos c* is near 1, where the series' left-out terms could move it by
    more than the float search may: declined (the mpmath search runs)."""
    w, b = "1.77", "0.05"  # chi1 slightly above 1 (the critical sigma_w2 at sigma_b2 = 0.05 is 1.7610)
    proven = meanfield("tanh", sigma_w2=w, sigma_b2=b, digits=15)
    assert proven.value("c_star") > 0.98
    model = read("tanh", w, b, False, "1", None, None, None, 15).model
    assert floats.correlation_start(model, mpmath.mpf(w), mpmath.mpf(b), proven.value("q_star")) is None
