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


@pytest.mark.parametrize("name, w, depth", [
    ("tanh", "1", 100),
    pytest.param("gelu", "1", 100, marks=pytest.mark.reference),
    pytest.param("tanh", "0.5", 300, marks=pytest.mark.reference),
])
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
