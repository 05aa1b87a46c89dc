"""``kernel --depth`` at unequal variances for activations without a closed-form kernel
(``kernel_maps.split_trajectory``): each variance by its own centred length map, the correlation
from the kernel at the exact midpoints plus its slopes' bounds. Checked against a double-precision
Gauss–Hermite trajectory of the same recursion (an independent route: no Arb, no certified
quadrature), every layer."""

from __future__ import annotations

import numpy as np
import pytest

from momentcalc.computations.kernel import kernel


def _gauss_hermite_layers(phi, depth, w, b, q1, q2, rho, nodes=320):
    """ρ at layers 0..depth: q_i' = w·E[φ(√q_i Z)²] + b, ρ' = (w·E[φ(u)φ(v)] + b)/√(q1'q2'),
    2-D Gauss–Hermite in doubles (320 nodes: tanh's poles at ±iπ/2 slow it; 240 and 320 agree to 5e-14)."""
    x, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
    X, Y = np.meshgrid(x, x, indexing="ij")
    W = np.outer(weights, weights)
    out = [rho]
    for _ in range(depth):
        s1, s2 = np.sqrt(q1), np.sqrt(q2)
        k = float((W * phi(s1 * X) * phi(s2 * (rho * X + np.sqrt(1 - rho * rho) * Y))).sum())
        n1 = w * float((weights * phi(s1 * x) ** 2).sum()) + b
        n2 = w * float((weights * phi(s2 * x) ** 2).sum()) + b
        rho = (w * k + b) / np.sqrt(n1 * n2)
        q1, q2 = n1, n2
        out.append(rho)
    return out


def _gelu(x):
    from scipy.special import ndtr

    return x * ndtr(x)


@pytest.mark.parametrize(
    "name, w, depth",
    [
        # 60 layers, past the 50 where tanh's balls gave out; 100 (0.5 s of CPU more) with -m reference
        ("tanh", "1", 60),
        pytest.param("tanh", "1", 100, marks=pytest.mark.reference),
        pytest.param("gelu", "1", 100, marks=pytest.mark.reference),
        pytest.param("tanh", "0.5", 300, marks=pytest.mark.reference),
    ],
)
def test_unequal_variances_against_gauss_hermite(name, w, depth):
    """--q1 1 --q2 2 --rho 0.3: every layer's correlation, proven (was exit 3 past about 50
    layers for tanh: the balls widened about 2x a layer), within 1e-12 of the doubles."""
    phi = {"tanh": np.tanh, "gelu": _gelu}[name]
    result = kernel(name, rho="0.3", q1="1", q2="2", depth=str(depth), sigma_w2=w)
    layers = result.value("correlation_layers")
    assert len(layers) == depth + 1 and result["correlation_layers"].certified
    expected = _gauss_hermite_layers(phi, depth, float(w), 0.0, 1.0, 2.0, 0.3)
    for layer, (mine, theirs) in enumerate(zip(layers, expected)):
        assert abs(float(mine) - theirs) < 1e-12, (layer, float(mine), theirs)


def _mehler_layers(depth, q1, q2, rho, terms=61, dps=40):
    """tanh's ρ at layers 0..depth by Mehler's expansion in mpmath: K(q1, q2, c) = Σ a_k(q1)·a_k(q2)·c^k,
    a_k(q) = E[tanh(√q Z)·He_k(Z)]/sqrt(k!) (odd k only: tanh is odd), each a 1-D mpmath quadrature;
    |c| ≤ 0.3 and Σ a_k² ≤ 1 put the tail beyond ``terms`` below 0.3^61 < 1e-31."""
    import mpmath

    with mpmath.workdps(dps):

        def he(k, z):
            a, b = mpmath.mpf(1), z
            for j in range(1, k):
                a, b = b, z * b - j * a
            return b

        def moment(g):
            return 2 * mpmath.quad(lambda z: g(z) * mpmath.npdf(z), [0, 2, 5, 10, 20])

        def coefficients(q):
            s = mpmath.sqrt(q)
            return [
                moment(lambda z: mpmath.tanh(s * z) * he(k, z)) / mpmath.sqrt(mpmath.factorial(k))
                for k in range(1, terms, 2)
            ]

        q1, q2, c = mpmath.mpf(q1), mpmath.mpf(q2), mpmath.mpf(rho)
        out = [c]
        for _ in range(depth):
            a1, a2 = coefficients(q1), coefficients(q2)
            k = sum(x * y * c ** (2 * i + 1) for i, (x, y) in enumerate(zip(a1, a2)))
            n1 = moment(lambda z: mpmath.tanh(mpmath.sqrt(q1) * z) ** 2)
            n2 = moment(lambda z: mpmath.tanh(mpmath.sqrt(q2) * z) ** 2)
            c, q1, q2 = k / mpmath.sqrt(n1 * n2), n1, n2
            out.append(c)
        return out


@pytest.mark.reference
def test_unequal_variances_at_30_digits_against_mehler():
    """tanh --q1 1 --q2 2 --rho 0.3 --digits 30: layers 1 and 2 (the first from the balls of
    layer 1) against Mehler's expansion in mpmath, every printed digit (about 2 minutes)."""
    import mpmath

    result = kernel("tanh", rho="0.3", q1="1", q2="2", depth="2", digits=30)
    printed = result["correlation_layers"].decimal(30)
    expected = _mehler_layers(2, 1, 2, "0.3")
    with mpmath.workdps(40):
        for text, value in zip(printed[1:], expected[1:]):
            assert abs(mpmath.mpf(text) - value) <= mpmath.mpf("0.5e-30") + mpmath.mpf("1e-36"), (text, value)
