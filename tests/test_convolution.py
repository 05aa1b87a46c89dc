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


@pytest.mark.parametrize("positions", [[7 * j + 20 for j in range(30)], [40, 41, 42, 200]])
def test_grouped_errors_hold_the_exact_sums(positions):
    """Values in groups of very different radii (a lattice rule's far points at fewer bits): each
    output's ball holds the exact sum for values anywhere in their balls (checked at the balls'
    ends, exactly), and is narrower than one uniform bound would make it where the wide group is
    reached by small weights only."""
    rng = random.Random(11)
    with ctx.workprec(200):
        weights = [arb(2) ** -abs(k - 28) * arb(rng.random()) for k in range(57)]
        mids = [arb(rng.random() - 0.5) for _ in range(300)]
        wide = 150  # from here on, radii of 2^−40
        values = [m + arb(0, arb(2) ** (-190 if i < wide else -40)) for i, m in enumerate(mids)]
        fixed = FixedWeights(weights, 200)
        grouped = fixed.convolve(values, positions, [wide])
        uniform = fixed.convolve(values, positions)
        for ball, plain, n in zip(grouped, uniform, positions):
            for shift in (-1, 1):
                with ctx.workprec(800):
                    # values at an end of their balls, the weights at their exact midpoints
                    exact = sum(
                        (weights[k] * (values[n - k].mid() + shift * values[n - k].rad()))
                        for k in range(57)
                        if 0 <= n - k < 300
                    )
                assert ball.contains(exact)
            assert ball.rad() <= plain.rad()
        assert grouped[0].rad() < uniform[0].rad() * arb(2) ** -100  # n = 20: the wide group unreached
