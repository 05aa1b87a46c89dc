"""Mehler's series of tanh's bivariate kernel (``moments.mehler_series``) and meanfield's c* from
it (``correlation_proof._mehler``), against independent routes: mpmath's quadrature of the
moments m_n, the certified lattice rule (``cross_ball``), and the lattice's proof of c*."""

from __future__ import annotations

import mpmath
import pytest
from flint import arb
from mpmath import mp

from momentcalc.catalog import CATALOG, resolve
from momentcalc.computations.meanfield import meanfield
from momentcalc.engine.balls import arb_precision
from momentcalc.moments import mehler_series
from momentcalc.moments.bivariate_certified import cross_ball
from momentcalc.tier import Precision


def _mpf(ball: arb) -> mpmath.mpf:
    return mpmath.mpf(ball.mid().str(mp.dps + 10, radius=False))


@pytest.mark.parametrize("q", ["16.1785", pytest.param("0.75", marks=pytest.mark.reference)])
def test_moments_agree_with_quadrature(q):
    """m_n = ∫₀^∞ ξ^n·e^(−qξ²/2)/sinh(πξ/2) dξ by the trapezoidal rule's power sums, each ball
    holding mpmath's quadrature (and m_1 = E[tanh'(√q·Z)] = E[sech²])."""
    digits, last = 12, 41
    with arb_precision(Precision(digits + 20, guard=0).bits):
        moments = mehler_series.tanh_moments(arb(q), last, Precision(digits, guard=0).bits, 0.05)
    with mp.workdps(digits + 10):
        qm = mpmath.mpf(q)
        for n in (1, 41):
            value = mpmath.quad(
                lambda x: x**n * mpmath.exp(-qm * x * x / 2) / mpmath.sinh(mpmath.pi * x / 2),
                [0, 2, 6, 12, mpmath.inf],
            )
            ball = moments[n]
            assert abs(_mpf(ball) - value) <= _mpf(arb(ball.rad())) + value * mpmath.mpf(10) ** -(digits + 5)
            if n == 1:  # (the others are wanted to fewer digits: their weight (qc)^n/n! is smaller)
                assert ball.rad() < abs(ball.mid()) * arb(10) ** -(digits - 1), n
        slope = mpmath.quad(
            lambda z: mpmath.sech(mpmath.sqrt(qm) * z) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf]
        )
        assert abs(_mpf(moments[1]) - slope) <= mpmath.mpf(10) ** -(digits - 2)
        assert moments[2] == 0 and moments[40] == 0  # even n: no moment


def test_pole_subtraction_agrees_with_the_plain_rule(monkeypatch):
    """The rule over 1/sinh less K pole pairs (their parts in closed form) and the rule over
    1/sinh alone (other nodes, other step) give overlapping balls of every m_n, both narrow."""
    q, last, goal, c = arb(16.1785), 61, 400, 0.0124  # (a double: exact)
    with arb_precision(goal + 40):
        assert mehler_series._plan(float(q), last, goal, c)[2] > 0  # poles subtracted
        subtracted = mehler_series.tanh_moments(q, last, goal, c)
        monkeypatch.setattr(mehler_series, "MAX_POLES", 0)
        assert mehler_series._plan(float(q), last, goal, c)[2] == 0
        plain = mehler_series.tanh_moments(q, last, goal, c)
    for n in range(1, last + 1, 2):
        assert subtracted[n].overlaps(plain[n]), n
    for moments in (subtracted, plain):
        assert moments[1].rad() < arb(2) ** -(goal - 8)
        assert moments[last].rad() < abs(moments[last].mid())


def test_declared_tanh_forms_hold():
    """Every catalog entry declaring φ = a + b·tanh(x/s) is that function (at a few points)."""
    declared = [act for act in CATALOG if act.tanh_form is not None]
    assert {act.name for act in declared} >= {"tanh", "sigmoid"}
    with mp.workdps(30):
        for act in declared:
            a, b, s = (mpmath.mpf(v.numerator) / v.denominator for v in act.tanh_form)
            params = act.param_values()
            for x in (mpmath.mpf(-3), mpmath.mpf("-0.4"), mpmath.mpf("1.7"), mpmath.mpf(9)):
                assert abs(act.fn(x, params) - (a + b * mpmath.tanh(x / s))) <= mpmath.mpf(10) ** -28, (
                    act.name
                )


@pytest.mark.parametrize(
    "name, q, c, digits",
    [
        ("tanh", "16.1785", "0.0123", 30),
        ("sigmoid", "6.5", "0.08", 25),
        pytest.param("tanh", "5.507", "0.0474", 150, marks=pytest.mark.reference),
        pytest.param("tanh", "16.1785", "0.0123", 300, marks=pytest.mark.reference),
    ],
)
def test_series_agrees_with_the_lattice(name, q, c, digits):
    """K(c) and K₁(c) from Mehler's series overlap the certified lattice rule's balls, both
    proving every digit."""
    act = resolve(name, {})
    with arb_precision(Precision(digits + 20, guard=0).bits):
        qb, cb = arb(arb(q).mid()), arb(arb(c).mid())  # exact points
        series = mehler_series.series(
            act.tanh_form, qb, float(c) * 1.001, Precision(digits + 5, guard=0).bits
        )
        assert series is not None
        for which, mine in ((0, series.k(cb)), (1, series.k1(cb))):
            theirs = cross_ball(act, qb, cb, digits, which)
            assert theirs is not None and mine is not None
            assert mine.overlaps(theirs), which
            assert mine.rad() < abs(mine.mid()) * arb(10) ** -(digits + 3)
        assert series.k(arb(-1) / 4) is None


def _proofs(monkeypatch, w: str, digits: int) -> tuple[dict, tuple, tuple]:
    """meanfield tanh (σ_b² 0.05) with the Mehler route forced at ``digits`` and by default (the
    lattice below MEHLER_FROM), and the two routes' balls of (c*, slope) from the same inputs."""
    from momentcalc.computations.meanfield import correlation_proof

    default = meanfield("tanh", sigma_w2=w, sigma_b2="0.05", digits=digits)
    monkeypatch.setattr(correlation_proof, "MEHLER_FROM", 0)
    found, taken = {}, []
    original, mehler = correlation_proof.prove_correlation, correlation_proof._mehler

    def keep(*args, **kwargs):
        found["args"] = args, kwargs
        return original(*args, **kwargs)

    def counted(*args, **kwargs):
        result = mehler(*args, **kwargs)
        taken.append(result[0] is not None)
        return result

    monkeypatch.setattr(correlation_proof, "prove_correlation", keep)
    monkeypatch.setattr(correlation_proof, "_mehler", counted)
    forced = meanfield("tanh", sigma_w2=w, sigma_b2="0.05", digits=digits)
    assert taken == [True]
    args, kwargs = found["args"]
    assert args[-1] == correlation_proof.MEHLER_ROUGH  # the rough stages stopped at a few digits
    with arb_precision(Precision(digits + 40, guard=0).bits):
        mine = original(*args, **kwargs)
        # the lattice's proof from c₀ to every digit (the Mehler route's own c* as the centre)
        monkeypatch.setattr(correlation_proof, "mehler_pays", lambda *a: False)
        centre = arb(mine[0].mid())
        theirs = original(*args[:5], centre, *args[6:-1], None)
    return {"default": default, "forced": forced}, mine, theirs


@pytest.mark.parametrize(
    "w, digits",
    [
        pytest.param("20", 40, marks=pytest.mark.reference),
        pytest.param("8", 120, marks=pytest.mark.reference),
        pytest.param("20", 300, marks=pytest.mark.reference),
    ],
)
def test_mehler_route_agrees_with_the_lattice_proof(monkeypatch, w, digits):
    """c* and the slope σ_w²·K₁(c*) from Mehler's series (forced below MEHLER_FROM): the printed
    results are the lattice route's, every one certified, and the two proofs' balls overlap,
    both proving every digit."""
    runs, mine, theirs = _proofs(monkeypatch, w, digits)
    for name in ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c"):
        assert runs["forced"][name].certified and runs["default"][name].certified
        with mp.workdps(digits + 20):
            assert mpmath.nstr(runs["forced"].value(name), digits) == mpmath.nstr(
                runs["default"].value(name), digits
            )
    assert mine is not None and theirs is not None
    for x, y in zip(mine, theirs):
        assert x.overlaps(y)
        assert x.rad() <= abs(x.mid()) * arb(10) ** -(digits + 1)
        assert x.rad() <= y.rad() * 1.01  # as tight as the lattice's, or tighter
