"""``kernel --depth``'s deep NNGP and NTK kernels Σ⁽ᴸ⁾(x, x′), Θ⁽ᴸ⁾(x, x′) (neural-tangents' NTK
parametrization: Σ⁽⁰⁾ = Θ⁽⁰⁾ = ρ·sqrt(q1·q2), Σ⁽ˡ⁺¹⁾ = σ_w²·E[φ(u)φ(v)] + σ_b²,
Θ⁽ˡ⁺¹⁾ = Σ⁽ˡ⁺¹⁾ + σ_w²·E[φ'(u)φ'(v)]·Θ⁽ˡ⁾), every printed digit against recursions written here
independently: neural-tangents' closed forms for relu (the arc-cosine kernel, Cho & Saul 2009)
and erf (the arcsine kernel, Williams 1997) in mpmath, and tanh by 2-D Gauss–Hermite quadrature."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from mpmath import mp

from momentcalc.computations.kernel import kernel
from momentcalc.tier import to_decimal
from tests.conftest import invoke


def _relu(q1, q2, s):
    """neural-tangents' Relu: E[φφ], E[φ'φ'] for the pre-activation kernel [[q1, s], [s, q2]]."""
    norm = mpmath.sqrt(q1 * q2)
    theta = mpmath.acos(max(-1, min(1, s / norm)))
    return norm * (mpmath.sin(theta) + (mp.pi - theta) * mpmath.cos(theta)) / (2 * mp.pi), (mp.pi - theta) / (
        2 * mp.pi
    )


def _relu_diagonal(q):
    return q / 2


def _erf(q1, q2, s):
    """neural-tangents' Erf (a = 1, b = 1, c = 0): the arcsine kernel and its derivative."""
    d = (1 + 2 * q1) * (1 + 2 * q2)
    return 2 / mp.pi * mpmath.asin(2 * s / mpmath.sqrt(d)), 4 / mp.pi / mpmath.sqrt(d - 4 * s * s)


def _erf_diagonal(q):
    return 2 / mp.pi * mpmath.asin(2 * q / (1 + 2 * q))


def _recursion(cross, diagonal, q1, q2, rho, depth, w, b, dps=80):
    """[(Σ⁽ˡ⁾(x, x′), Θ⁽ˡ⁾(x, x′)) for l = 0..depth] in mpmath."""
    with mp.workdps(dps):
        w, b = mpmath.mpf(w), mpmath.mpf(b)
        q1, q2 = mpmath.mpf(q1), mpmath.mpf(q2)
        s = mpmath.mpf(rho) * mpmath.sqrt(q1 * q2)
        out = [(s, s)]
        theta = s
        for _ in range(depth):
            k, k1 = cross(q1, q2, s)
            s, theta = w * k + b, w * k + b + w * k1 * theta
            q1, q2 = w * diagonal(q1) + b, w * diagonal(q2) + b
            out.append((s, theta))
        return out


def _digits_agree(printed, expected, digits):
    with mp.workdps(digits + 40):
        assert printed == [to_decimal(+want, digits) for want in expected]


@pytest.mark.parametrize(
    "name, cross, diagonal, q1, q2, rho, depth, w, b, digits",
    [
        ("relu", _relu, _relu_diagonal, "1", "2", "0.3", 6, "2", "0.1", 30),
        ("relu", _relu, _relu_diagonal, "1", "1", "-0.4", 20, "2", "0", 15),
        ("erf", _erf, _erf_diagonal, "1", "1", "0.2", 5, "1.5", "0.05", 25),
        ("erf", _erf, _erf_diagonal, "0.5", "3", "0.7", 4, "1", "0", 15),
    ],
)
def test_closed_forms_every_digit(name, cross, diagonal, q1, q2, rho, depth, w, b, digits):
    result = kernel(
        name, rho=rho, q1=q1, q2=q2, depth=depth, sigma_w2=w, sigma_b2=b, layers=True, digits=digits
    )
    expected = _recursion(cross, diagonal, q1, q2, rho, depth, w, b)
    for key, i in (("nngp_layers", 0), ("ntk_layers", 1)):
        assert result[key].certified
        _digits_agree(result[key].decimal(digits), [pair[i] for pair in expected], digits)
    assert result["nngp_depth"].decimal(digits) == result["nngp_layers"].decimal(digits)[-1]
    assert result["ntk_depth"].decimal(digits) == result["ntk_layers"].decimal(digits)[-1]


def _gauss_hermite(phi, dphi, q, rho, depth, w, b, nodes=300):
    """(Σ⁽ᴸ⁾, Θ⁽ᴸ⁾) by 2-D Gauss–Hermite quadrature in doubles (equal variances; at σ_w² = 4 the
    variance nears 3 and tanh's poles come within 1 of the real line: 300 nodes for 12 digits)."""
    x, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
    X, Y = np.meshgrid(x, x, indexing="ij")
    W = np.outer(weights, weights)
    c, s = rho, rho * q
    theta = s
    for _ in range(depth):
        r = np.sqrt(q)
        u, v = r * X, r * (c * X + np.sqrt(1 - c * c) * Y)
        k, k1 = float((W * phi(u) * phi(v)).sum()), float((W * dphi(u) * dphi(v)).sum())
        q = w * float((weights * phi(r * x) ** 2).sum()) + b
        s = w * k + b
        theta = s + w * k1 * theta
        c = s / q
    return s, theta


@pytest.mark.parametrize("w, b, rho, depth", [(1.5, 0.05, 0.3, 4), (4.0, 0.0, -0.5, 6)])
def test_tanh_against_gauss_hermite(w, b, rho, depth):
    """tanh (no closed form: the certified bivariate route over each layer's box) against 2-D
    Gauss–Hermite in doubles, 12 digits."""
    result = kernel("tanh", rho=str(rho), depth=depth, sigma_w2=str(w), sigma_b2=str(b))
    sigma, theta = _gauss_hermite(np.tanh, lambda t: 1 / np.cosh(t) ** 2, 1.0, rho, depth, w, b)
    assert float(result.value("nngp_depth")) == pytest.approx(sigma, rel=1e-12)
    assert float(result.value("ntk_depth")) == pytest.approx(theta, rel=1e-12)
    assert result["ntk_depth"].certified


@pytest.mark.reference
def test_settled_box_keeps_the_ntk_proven():
    """tanh at σ_w² = 4, σ_b² = 0.05 (chaotic, c* ≈ 0.165) over 200 layers: the settled box holds
    the later layers; Σ⁽ᴸ⁾ is q*·c* and Θ⁽ᴸ⁾ the geometric sum Σ/(1 − σ_w²·K₁) to its digits."""
    result = kernel("tanh", rho="0.3", depth=200, sigma_w2="4", sigma_b2="0.05", digits=8)
    sigma, theta = _gauss_hermite(np.tanh, lambda t: 1 / np.cosh(t) ** 2, 1.0, 0.3, 200, 4.0, 0.05)
    assert float(result.value("nngp_depth")) == pytest.approx(sigma, rel=1e-7)
    assert float(result.value("ntk_depth")) == pytest.approx(theta, rel=1e-7)


def test_cli_layers_and_left_out_note():
    run = invoke("kernel", "relu", "--rho", "0.5", "--depth", "2", "--sigma-w2", "2", "--layers", "--json")
    assert run.code == 0
    results = run.json()["results"]
    assert len(results["nngp_layers"]["decimal"]) == len(results["ntk_layers"]["decimal"]) == 3
    assert results["ntk_layers"]["decimal"][0] == results["nngp_layers"]["decimal"][0] == "0.500000000000000"
    bad = invoke("kernel", "relu", "--layers")
    assert bad.code == 2 and "--layers" in bad.stderr and "--depth" in bad.stderr and bad.stdout == ""
    # tanh at unequal variances: the correlations are proven, the NTK factor over the boxes is not
    split = kernel("tanh", rho="0.3", q1="1", q2="2", depth=2)
    assert "nngp_depth" not in [q.name for q in split.results] and split["correlation_layers"].certified
    assert any(note.startswith("nngp_depth and ntk_depth are left out") for note in split.notes)
    assert set(split.left_out) == {"nngp_depth", "ntk_depth"}
    asked = invoke(
        "kernel", "tanh", "--rho", "0.3", "--q1", "1", "--q2", "2", "--depth", "2", "--get", "ntk_depth"
    )
    assert asked.code == 3 and "'ntk_depth' is left out of this result" in asked.stderr and asked.stdout == ""


def test_no_ntk_past_a_fading_tail():
    """Where a proven fading tail gives the later layers, deep_kernels says so (NotProven)."""
    from fractions import Fraction

    from flint import arb

    from momentcalc.catalog import resolve
    from momentcalc.moments import propagation
    from momentcalc.moments.kernel_maps import NotProven

    step = propagation.layer_map(resolve("gelu", None), Fraction(1), Fraction(0))
    ones = [arb(1)] * 3
    path = propagation.Trajectory(ones, ones, [arb(0)] * 3, 1, [arb(1)] * 2)
    with pytest.raises(NotProven, match="fades"):
        propagation.deep_kernels(step, propagation.KernelBox.point(Fraction(1), Fraction(0)), path, 15)


def test_twins_slopes_agree_within_reach():
    """``closed_layers.twin_slope_noise`` rests on the catalog's twins having slopes in [0, 1] that
    agree on [−reach, reach] (relu6 and relu, hardtanh and identity): checked on a grid."""
    from momentcalc.catalog import resolve
    from momentcalc.catalog.kernels import TWINS

    for name, twin in TWINS.items():
        phi, psi = resolve(name, None), resolve(twin.kernel, None)
        with mp.workdps(30):
            for i in range(-400, 401):
                x = mpmath.mpf(i) / 20 + mpmath.mpf(1) / 7  # off the kinks
                a, b = phi.derivative(x, {}), psi.derivative(x, {})
                assert 0 <= a <= 1 and 0 <= b <= 1, (name, x)
                if abs(x) <= mpmath.mpf(twin.reach.numerator) / twin.reach.denominator:
                    assert a == b, (name, x)


def test_relu6_deep_ntk_through_its_twin():
    """relu6 at σ_w² = 1 (q halves: relu's layers through the twin after a few) against relu6's own
    bivariate route at every layer (``fast`` off: no twin, no box) to the printed digits."""
    from fractions import Fraction

    from momentcalc.catalog import resolve
    from momentcalc.engine.rounding import ball_text
    from momentcalc.moments import closed_layers, propagation

    act = resolve("relu6", None)
    start = propagation.KernelBox.point(Fraction(1), Fraction(3, 10))
    step = propagation.layer_map(act, Fraction(1), Fraction(0))
    fast = propagation.trajectory(step, start, 12, 12)
    twin_of = closed_layers.twin_of
    try:
        closed_layers.twin_of = lambda *a: None
        propagation.twin_of = closed_layers.twin_of
        slow = propagation.trajectory(
            propagation.layer_map(act, Fraction(1), Fraction(0)), start, 12, 12, fast=False
        )
    finally:
        closed_layers.twin_of = propagation.twin_of = twin_of
    got = [propagation.deep_kernels(step, start, path, 12).ntk for path in (fast, slow)]
    for a, b in zip(*got):
        assert a.overlaps(b) and ball_text(a, 10) == ball_text(b, 10) is not None


@pytest.mark.reference
def test_tanh_ten_thousand_layers_at_sigma_w2_one_within_the_default_budget():
    """tanh at σ_w² = 1, σ_b² = 0: the variance fades like 1/L (no settled box, no geometric
    tail), so every one of 10000 layers is a certified bivariate integral, 50-80 s of CPU: inside
    the default budget of a 10000-layer trajectory (154 s; it was 64 s and exit 3). Against 2-D
    Gauss–Hermite in doubles (their rounding adds up over the layers: 10 digits)."""
    import subprocess
    import sys

    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "momentcalc",
            "kernel",
            "tanh",
            "--rho",
            "0.3",
            "--depth",
            "10000",
            "--sigma-w2",
            "1",
            "--get",
            "nngp_depth",
            "--get",
            "ntk_depth",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    sigma, theta = _gauss_hermite(
        np.tanh, lambda t: 1 / np.cosh(t) ** 2, 1.0, 0.3, 10000, 1.0, 0.0, nodes=120
    )
    printed = [float(v) for v in run.stdout.split()]
    assert printed[0] == pytest.approx(sigma, rel=1e-10)
    assert printed[1] == pytest.approx(theta, rel=1e-10)
