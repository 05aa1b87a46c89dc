"""meanfield --depth: the per-layer trajectories proven in balls (the propagation core, moments/propagation),
every printed digit held to an independent route at 42 digits: the length map layer by layer
with mpmath.quad (tanh-sinh, split at 0 and ±4), or the closed forms in mpmath (relu's exact
q_{l+1} = σ_w²·q_l/2 + σ_b² in fractions, the arc-cosine and arcsine kernels for c)."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import mpmath
import pytest
from mpmath import mp

from momentcalc.tier import to_decimal
from tests.conftest import invoke

DPS = 42
DEPTH = 5


def _gauss(f, q):  # E[f(√q·Z)]
    s = mpmath.sqrt(q)
    g = lambda z: f(s * z) * mpmath.exp(-z * z / 2)
    return (mpmath.quad(g, [-mpmath.inf, -4, 0]) + mpmath.quad(g, [0, 4, mpmath.inf])) / mpmath.sqrt(
        2 * mpmath.pi
    )


PHI = {
    "tanh": mpmath.tanh,
    "erf": mpmath.erf,
    "swish": lambda x: x / (1 + mpmath.exp(-x)),
    "softsign": lambda x: x / (1 + abs(x)),
    "tanh(x)/2 + x/4": lambda x: mpmath.tanh(x) / 2 + x / 4,
}
# (activation, sigma_w2, sigma_b2, q0)
CASES = [
    ("tanh", "2.5", "0.05", "1"),
    ("erf", "1.5", "0.1", "2"),
    ("swish", "1.9", "0.1", "0.5"),
    ("softsign", "4", "0.05", "1"),
    ("tanh(x)/2 + x/4", "1.5", "0.2", "1.5"),
    ("tanh", "0.8", "0", "3"),
]


@cache
def _reference_q(name: str, w: str, b: str, q0: str) -> tuple[mpmath.mpf, ...]:
    phi = PHI[name]
    with mp.workdps(DPS):
        qs = [mpmath.mpf(q0)]
        for _ in range(DEPTH):
            qs.append(mpmath.mpf(w) * _gauss(lambda x: phi(x) ** 2, qs[-1]) + mpmath.mpf(b))
        return tuple(qs)


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _printed(*args: str, depth: int = DEPTH) -> dict:
    run = invoke("meanfield", *args, "--depth", str(depth), "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)["results"]


# Every case at 15 and 30 digits; softsign's and tanh(x)/2 + x/4's 30 (1.6 s of CPU, the same
# routes as at 15) with -m reference, and swish's two (0.4 s, a smooth catalog entry as tanh is).
SLOW_AT_30 = {"softsign", "tanh(x)/2 + x/4"}
AS_TANH = {"swish"}


# One worker runs the tests that read the 42-digit references (_reference_q, cached per process):
# the 15- and 30-digit cases of an activation share one quadrature (0.4-0.9 s of CPU each).
QUADRATURE_GROUP = pytest.mark.xdist_group("meanfield-layers-quadrature")


@QUADRATURE_GROUP
@pytest.mark.parametrize(
    "case, digits",
    [
        pytest.param(
            case,
            digits,
            id=f"{'-'.join(case)}-{digits}",
            marks=pytest.mark.reference
            if (digits == 30 and case[0] in SLOW_AT_30) or case[0] in AS_TANH
            else (),
        )
        for case in CASES
        for digits in (15, 30)
    ],
)
def test_q_layers_every_digit_against_quadrature(case, digits):
    name, w, b, q0 = case
    got = _printed(name, "--sigma-w2", w, "--sigma-b2", b, "--q0", q0, "--digits", str(digits))["q_layers"]
    assert got["certified"] is True and got["error_bound"] is not None
    with mp.workdps(DPS):
        assert got["decimal"] == [to_decimal(q, digits) for q in _reference_q(name, w, b, q0)]


@pytest.mark.parametrize("digits", [15, 30])
def test_relu_layers_exact_and_arccos_correlations(digits):
    w, b, c0 = Fraction(3, 2), Fraction(1, 10), Fraction(3, 10)
    got = _printed("relu", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--c0", "0.3", "--digits", str(digits))
    qs = [Fraction(1)]
    for _ in range(DEPTH):
        qs.append(w * qs[-1] / 2 + b)
    assert got["q_layers"]["decimal"] == [to_decimal(q, digits) for q in qs]
    with mp.workdps(DPS):
        cs = [_mpf(c0)]
        for q, q_next in zip(qs, qs[1:]):
            c = cs[-1]
            k = (mpmath.sqrt(1 - c * c) + (mp.pi - mpmath.acos(c)) * c) / (2 * mp.pi)  # Cho & Saul 2009
            cs.append((_mpf(w) * _mpf(q) * k + _mpf(b)) / _mpf(q_next))
        assert got["c_layers"]["certified"] is True
        assert got["c_layers"]["decimal"] == [to_decimal(c, digits) for c in cs]


@QUADRATURE_GROUP
@pytest.mark.parametrize("digits", [15, pytest.param(30, marks=pytest.mark.reference)])  # 30: 0.6 s of CPU
def test_erf_correlations_against_quadrature(digits):
    """c_{l+1} = (σ_w²·E[erf(u₁)erf(u₂)] + σ_b²)/q_{l+1}, the kernel by a 1-d quadrature of
    E[erf(√q·Z)·erf(√q·(cZ + √(1−c²)Z'))] = E[erf(√q·Z)·erf(c√q·Z/√(1 + 2q(1−c²)))]
    (the inner Gaussian integral of erf in closed form: E[erf(a + sZ')] = erf(a/√(1+2s²)))."""
    got = _printed(
        "erf", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--q0", "2", "--c0", "-0.4", "--digits", str(digits)
    )
    qs = _reference_q("erf", "1.5", "0.1", "2")
    with mp.workdps(DPS):
        w, b = mpmath.mpf("1.5"), mpmath.mpf("0.1")
        cs = [mpmath.mpf("-0.4")]
        for q, q_next in zip(qs, qs[1:]):
            c = cs[-1]
            shrink = 1 / mpmath.sqrt(1 + 2 * q * (1 - c * c))
            k = _gauss(lambda x: mpmath.erf(x) * mpmath.erf(c * x * shrink), q)
            cs.append((w * k + b) / q_next)
        assert got["c_layers"]["certified"] is True
        assert got["c_layers"]["decimal"] == [to_decimal(c, digits) for c in cs]


def test_unit_correlation_stays_exact_for_any_activation():
    got = _printed("swish", "--sigma-w2", "1.9", "--sigma-b2", "0.1", "--q0", "0.5", "--c0", "1")
    assert got["c_layers"]["certified"] is True and got["c_layers"]["error_bound"] == 0
    assert got["c_layers"]["decimal"] == ["1.00000000000000"] * (DEPTH + 1)


def test_unproven_correlations_named_in_a_note(monkeypatch):
    # tanh's correlations are proven by kernel --depth's layer balls; made to fail here, they
    # are the mpmath route's, named in the note
    import momentcalc.moments.propagation as maps
    from momentcalc.errors import PrecisionError

    real = maps.trajectory

    def fail(layer_map, start, *args, **kwargs):  # the correlations' balls only: q_layers stay proven
        if start.c is not None:
            raise PrecisionError("no balls")
        return real(layer_map, start, *args, **kwargs)

    monkeypatch.setattr(maps, "trajectory", fail)
    run = invoke(
        "meanfield",
        "tanh",
        "--sigma-w2",
        "2.5",
        "--sigma-b2",
        "0.05",
        "--depth",
        "3",
        "--c0",
        "0.5",
        "--json",
    )
    out = json.loads(run.stdout)
    assert out["results"]["q_layers"]["certified"] is True
    assert out["results"]["c_layers"]["certified"] is False
    note = [n for n in out["notes"] if n.startswith("not proven")]
    assert len(note) == 1 and "c_layers" in note[0] and "q_layers" not in note[0]


def test_long_trajectory_settles_into_one_ball():
    """Past the layer whose enclosure of the next lies inside its own ball, every layer is
    that ball: 1000 layers of tanh cost a few dozen integrals, each still proven."""
    got = _printed("tanh", "--sigma-w2", "1.2", "--sigma-b2", "0.1", depth=1000)
    star = got["q_star"]["decimal"]
    assert got["q_layers"]["certified"] is True and got["q_layers"]["decimal"][-1] == star


def _j1(c):  # Cho & Saul 2009: E[relu(u)relu(v)]/q
    return (mpmath.sqrt(1 - c * c) + (mp.pi - mpmath.acos(c)) * c) / (2 * mp.pi)


CLOSED = {  # K(q, c) = E[phi(u)phi(v)], u, v ~ N(0, q) with correlation c
    "relu": lambda q, c: q * _j1(c),
    "leaky_relu": lambda q, c: q * (c / 100 + (1 - mpmath.mpf(1) / 100) ** 2 * _j1(c)),  # slope 0.01
    "relu2": lambda q, c: (
        q * q * (3 * mpmath.sqrt(1 - c * c) * c + (mp.pi - mpmath.acos(c)) * (1 + 2 * c * c)) / (2 * mp.pi)
    ),
    "erf": lambda q, c: 2 / mp.pi * mpmath.asin(2 * q * c / (1 + 2 * q)),
}


def _closed_layers(name, w, b, c0, depth):
    with mp.workdps(60):
        w, b = mpmath.mpf(w), mpmath.mpf(b)
        qs, cs = [mpmath.mpf(1)], [mpmath.mpf(c0)]
        for _ in range(depth):
            q_next = w * CLOSED[name](qs[-1], 1) + b
            cs.append((w * CLOSED[name](qs[-1], cs[-1]) + b) / q_next)
            qs.append(q_next)
        return qs, cs


@pytest.mark.parametrize(
    "case",
    [
        ("relu", "2", "0", "-1"),
        ("leaky_relu", "1.5", "0.1", "0.999999"),
        ("relu2", "0.5", "0.1", "0.3"),
        ("erf", "3", "0", "0.3"),
    ],
    ids=lambda c: c[0],
)
def test_correlations_near_one_and_zero_stay_proven_over_many_layers(case):
    """c -> 1 (relu's sqrt(1 - c^2) against its arccos term), c -> 0 (erf without bias) and
    c0 = -1: 300 layers, every one proven and every printed digit equal to the closed forms
    iterated in mpmath at 60 digits."""
    name, w, b, c0 = case
    got = _printed(name, "--sigma-w2", w, "--sigma-b2", b, "--c0", c0, depth=300)
    assert got["q_layers"]["certified"] is True and got["c_layers"]["certified"] is True
    qs, cs = _closed_layers(name, w, b, c0, 300)
    with mp.workdps(60):
        assert got["q_layers"]["decimal"] == [to_decimal(q, 15) for q in qs]
        assert got["c_layers"]["decimal"] == [to_decimal(c, 15) for c in cs]


@cache
def _reference_c(name: str, w: str, b: str, q0: str, c0: str, depth: int) -> tuple[mpmath.mpf, ...]:
    """c layer by layer with the mpmath route's bivariate quadrature (``moments.
    bivariate_quadrature``: smoothing and a lattice trapezoid rule in mpmath, none of the Arb
    route's balls) at 42 digits, q from ``_reference_q``."""
    from momentcalc.catalog import resolve
    from momentcalc.moments.bivariate_quadrature import cross_expectations

    act = resolve(name, {})
    qs = _reference_q(name, w, b, q0)
    with mp.workdps(DPS + 10):
        cs = [mpmath.mpf(c0)]
        for q, q_next in zip(qs[:depth], qs[1 : depth + 1]):
            k, _ = cross_expectations(act, q, cs[-1], DPS)
            cs.append((mpmath.mpf(w) * k + mpmath.mpf(b)) / q_next)
        return tuple(cs)


@pytest.mark.slow
@pytest.mark.reference
def test_bivariate_correlations_every_digit_against_quadrature():
    """tanh's c_layers (no closed-form kernel: the certified bivariate route across each
    layer's balls) at --digits 15 and 30 against the 42-digit mpmath quadrature, two layers
    (the second from a q that is itself a ball)."""
    reference = _reference_c("tanh", "2.5", "0.05", "1", "0.5", 2)
    for digits in (15, 30):
        got = _printed(
            "tanh", "--sigma-w2", "2.5", "--sigma-b2", "0.05", "--c0", "0.5", "--digits", str(digits), depth=2
        )
        assert got["c_layers"]["certified"] is True
        with mp.workdps(DPS):
            assert got["c_layers"]["decimal"] == [to_decimal(c, digits) for c in reference]


def test_unprovable_trajectory_exits_3_naming_it(monkeypatch):
    """No layer balls at any working precision: exit 3 naming q_layers, nothing on stdout."""
    import momentcalc.moments.propagation as core
    from momentcalc.errors import PrecisionError

    def fail(*args, **kwargs):
        raise PrecisionError("no balls")

    monkeypatch.setattr(core, "trajectory", fail)
    run = invoke("meanfield", "tanh", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--depth", "3")
    assert run.code == 3 and run.stdout == ""
    assert "q_layers could not be proven to 15 digits" in run.stderr
