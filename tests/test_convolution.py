"""The lattice rule's convolution taken residue by residue (every s-th coefficient wanted) gives
exactly the coefficients of the whole integer product, and so the same balls."""

from __future__ import annotations

import random

import pytest
from flint import arb, ctx, fmpz_poly

from momentcalc.engine import convolution
from momentcalc.engine.convolution import FixedWeights


@pytest.mark.parametrize(
    "positions",
    [
        [7 * j + 20 for j in range(30)],
        [3 * j for j in range(120)],
        [5 * j + 2 for j in range(75)],  # past the product's last coefficient too
        [11 * j + 60 for j in range(3)],
        [40],
        [0, 1, 2, 9],
    ],
)
def test_decimated_product_is_the_whole_product(positions):
    rng = random.Random(7)
    with ctx.workprec(200):
        weights = [arb(rng.random()) for _ in range(57)]
        values = [arb(rng.random() - 0.5) for _ in range(300)]
        fixed = FixedWeights(weights, 200)
        got = fixed.convolve(values, positions)
        integers, _ = convolution._fixed(values, 200)
        product = fixed.poly * fmpz_poly(integers)
        unit = arb(2) ** -400
        for ball, n in zip(got, positions):
            assert ball.mid() == (arb(product[n]) * unit).mid()
