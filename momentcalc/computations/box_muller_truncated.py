"""How far TensorFlow's truncated normal (float32) lies from its exact-arithmetic model.

The sampler (TensorFlow, tensorflow/core/lib/random/random_distributions.h,
``TruncatedNormalDistribution<float>``, and random_distributions_utils.h, ``BoxMullerFloat``):
each pair of Philox words gives u1 = k/N and u2 = j/N (``Uint32ToFloat``: 23 mantissa bits,
N = 2^23), u1 raised to eps = 1.0e-7f when below it, r = sqrt(-2 log u1), theta = 2 pi u2, the
candidates f0 = r sin theta and f1 = r cos theta; a candidate is kept when |f| < c = 2
(``kTruncateValue``), and a group of n <= 4 outputs takes the first n kept candidates of its own
stretch of Philox words (tensorflow/core/kernels/random_op_cpu.h, FillPhiloxRandomTask); the op
then computes f * stddev + mean (tensorflow/python/ops/random_ops.py, truncated_normal). The
model: N(0, 1) cut at +-c (variance gamma), times stddev, plus mean.

The bound, for the law of a value drawn at random from the tensor (Philox's words taken as
independent and uniform):

1. Grid against model (Riemann sums of bounded variation). For g(r, theta) on the grid
   (u1 on the points k/N with k = 0 moved to eps, which lies in its cell (0, 1/N]; theta on
   2 pi j/N), |grid mean - model mean| <= (TV_theta + TV_r)/N: each theta-slice's left sum
   errs by at most its total variation over the circle over N, and the slice means F(u1) err
   by at most TV(F)/N, TV(F) <= the mean over theta of the radial variation. With z running
   twice over [-r, r] as theta goes round, and each radial fibre rising then dropping to 0:
   P(|z| < c): 4 + 1; E[z^2; |z| < c]: 8c^2 + 2c^2; P(both kept): 8 + 1; E[f1^2; both kept]:
   12c^2 + 2c^2 (TV(fg) <= TV f sup g + sup f TV g); a band a <= |z| < b: 8 + 2. The model's
   values: p = P(|Z| < c), p gamma, p^2, p^2 gamma (f0, f1 independent N(0, 1)); every odd
   moment is 0 on the grid too (theta -> theta + pi, pi - theta are grid maps).
2. Rounding. Each float candidate is within delta = K u r_max of r sin theta (or cos),
   K = 3 ulps + 4 pi + 4 (log within ulps ulp, at most 2 ulps u relative, halved by the sqrt,
   plus the sqrt's u; theta within 2 pi u of 2 pi u2 and the double 2 pi, 4 pi u allowed; sin and
   cos within ulps ulp, at most 2 ulps u; the product u; the rest for second-order terms),
   r_max = sqrt(-2 log eps). A candidate's keep decision can differ from the exact one only in
   the band c - delta <= |z| < c + delta, of grid mass beta <= P(band) + 10/N; a value kept by
   both moves z by at most K u r and z^2 by at most 2c K u r, which over any part of the grid
   sums to at most K u E[r] (2c K u E[r]), E[r] <= sqrt(E[r^2]) on the grid, E[r^2] =
   (2/N)((N - 1) log N - lgamma(N) - log eps); a flipped value moves z^2 by at most c^2 and z by c.
3. Rejection. With T = sum_t P(fewer than n kept before pair t) and D = sum_t P(exactly n - 1
   kept before pair t), a group's outputs have the law (T (L0 + L1) - D J)/n, L_i the law of
   f_i restricted to its kept set and J that of f1 restricted to both kept (n = T (|L0| +
   |L1|) - D |J|); T <= n/p0 (p0 = P(f0 kept), waiting for n kept f0) and D <= T. As the
   model's measures have second moment gamma times their mass, |E z^2 - gamma| <= (d0 + d1 +
   dJ)/p0, d = |second moment - gamma mass| of each measure, and |E z| <= (|m0| + |m1| +
   |mJ|)/p0 from their first moments; a tensor's law is a mixture of such groups.
4. The output x = fl(fl(z stddev) + mean): within u(c s + c s (1 + u) + |mean|) of z s + mean,
   plus 2^-125 where a product or sum lands below float32's smallest normal (TensorFlow's kernels
   flush to zero; ``catalog.initializers.flush_margin``); a subnormal stddev or mean, or values
   that may overflow, get no bound (``computations.initializer._in_float_range``).
   std(z) within (e2 + e1^2)/(sqrt(gamma) + sqrt(gamma - e2 - e1^2)) of sqrt(gamma).

Only the cut at +-2 and float32 are bounded (the double sampler raises u1 to 1e-7 over many
grid cells)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb

from ..catalog.initializers import Draw, float32, flush_margin
from ..tier import exact_ball

EPSILON = 1.0e-7  # BoxMullerFloat's ``const float epsilon = 1.0e-7f``


def _log_mean(cells: arb) -> arb:
    """E[−log u1] over BoxMullerFloat's grid, u1 = k/N (k = 1..N−1) and k = 0 raised to eps:
    (1/N)((N − 1) log N − lgamma(N) − log eps); E[r²] = 2·E[−log u1] (r = sqrt(−2 log u1))."""
    eps = exact_ball(Fraction(float32(EPSILON)))
    return ((cells - 1) * cells.log() - cells.lgamma() - eps.log()) / cells


def truncated_box_muller_bounds(draw: Draw, sigma: Any, mass: Any, gamma: Any) -> dict[str, Any]:
    """output_std_bound and output_mean_bound (balls, to be rounded up) for TensorFlow's float32
    truncated normal: ``sigma`` the stddev (float32, as a ball), ``mass`` = P(|Z| < c) and
    ``gamma`` the variance of N(0, 1) cut at +-c, c = draw.high (see the module docstring)."""
    grid = draw.grid
    assert grid is not None and draw.low == -draw.high
    c = exact_ball(Fraction(draw.high))
    cells = exact_ball(grid.cells)
    eps = Fraction(float32(EPSILON))
    assert 0 < eps <= Fraction(1, grid.cells)  # the raised u1 stays in its cell (0, 1/N]
    c2 = c * c
    # step 1: grid against model
    e_mass = 5 / cells
    e_second = 10 * c2 / cells
    e_both = 9 / cells
    e_joint = 14 * c2 / cells
    # step 2: rounding
    unit = exact_ball(grid.unit)
    k = 3 * grid.ulps + 4 * arb.pi() + 4
    r_max = (-2 * exact_ball(eps).log()).sqrt()
    delta = k * unit * r_max
    mean_r = (2 * _log_mean(cells)).sqrt()  # the grid's E[r] <= sqrt(E[r^2])
    shift = k * unit * mean_r  # the mean of |float candidate - exact candidate|
    root2 = arb(2).sqrt()
    band = ((c + delta) / root2).erf() - ((c - delta) / root2).erf()
    beta = band + 10 / cells
    # step 3: the three measures' deviations from the model (second moment - gamma mass)
    single = 2 * c * shift + c2 * beta + gamma * beta + e_second + gamma * e_mass
    joint = 2 * c * shift + 2 * c2 * beta + 2 * gamma * beta + e_joint + gamma * e_both
    p0 = mass - e_mass - beta
    assert p0 > 0
    e2 = (2 * single + joint) / p0
    e1 = (3 * shift + 4 * c * beta) / p0
    # step 4: std and mean of z, then the output's float rounding
    spread = e2 + e1 * e1
    rest = gamma - spread
    lower = rest.sqrt() if rest > 0 else arb(0)
    std_z = spread / (gamma.sqrt() + lower)
    rounding = unit * (2 * c * sigma + c * sigma * unit + abs(exact_ball(draw.mean)))
    rounding += exact_ball(flush_margin(grid))
    return {
        "output_std_bound": sigma * std_z + rounding,
        "output_mean_bound": sigma * e1 + rounding,
    }


def tf_box_muller_bounds(draw: Draw, sigma: Any) -> dict[str, Any]:
    """output_std_bound and output_mean_bound for TensorFlow's float32 normal (NormalDistribution:
    BoxMullerFloat on every pair, both candidates kept; then rnd * stddev + mean), as PyTorch's
    Box-Muller is bounded: on the grid (u1 = k/N raised to eps, theta = 2 pi j/N) in exact
    arithmetic the mean is exactly 0 (theta -> theta + pi) and E[z^2] = E[r^2]/2 = rho with rho =
    E[-log u1] = (1/N)((N - 1) log N - lgamma(N) - log eps) (sum cos^2 = sum sin^2 = N/2, N > 2),
    so the grid's std is sigma sqrt(rho). Each output is within (K + 3) u sigma r + u |mean| of
    sigma z + mean (K as for the truncated normal: the candidate; 3 for the product with the
    stddev, the sum and the candidate's own excess over r), so in L^2 within (K + 3) u sigma
    sqrt(2 rho) + u |mean|: the std moves by at most that plus sigma |1 - sqrt(rho)|, the mean
    by at most that."""
    grid = draw.grid
    assert grid is not None
    rho = _log_mean(exact_ball(grid.cells))
    k = 3 * grid.ulps + 4 * arb.pi() + 7
    unit = exact_ball(grid.unit)
    rounding = (
        k * unit * sigma * (2 * rho).sqrt()
        + unit * abs(exact_ball(draw.mean))
        + exact_ball(flush_margin(grid))
    )
    return {
        "output_std_bound": sigma * abs(1 - rho.sqrt()) + rounding,
        "output_mean_bound": rounding,
    }
