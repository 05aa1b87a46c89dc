"""The full estimate's Hermite table H[n, b] = E[He_n(ε)·φ(λε)^b], ε ~ N(0, 1), in double precision,
for the catalog activations analytic in a strip (``catalog.ball_functions.STRIP_FUNCTIONS``:
sigmoid, tanh, swish, softplus, mish, gelu_tanh and the framework ones), by the whole-line
trapezoidal rule

    H[n, b] ≈ h/√(2π) · Σ_k He_n(t_k)·φ(λ·t_k)^b·e^(−t_k²/2),   t_k = k·h.

The estimate it feeds is good to 2 % (``full``): it needs values, not proven roundings, and the
certified route (Arb balls for 31 monomials at 10 digits) spent about 11 ms of every default
gau-scale call bounding each monomial's error; this one evaluates φ once a node for all of them
(the catalog's strip form, ``StripFunctions.at``, at 53 bits), in about 1 ms.

Why it is right. φ(λ·t) is analytic in |Im t| < a = w/λ (w the catalog's strip half-width), so
the rule's error is at most 2M/(e^(2πa/h) − 1) (Trefethen & Weideman, "The exponentially
convergent trapezoidal rule", SIAM Review 56 (2014), Theorem 5.1): it falls like q = e^(−2πa/h),
and halving h squares q. The steps tried are h = a, a/2, a/4, … (the nodes of each include the
last's); a step is taken when its sums and the previous step's agree to ``AGREEMENT`` of
S_b = h·Σ (3 + 6t² + t⁴)·|φ(λt)|^b·e^(−t²/2) (which bounds h·Σ|terms| of every H[n, b], n ≤ 4)
for every (n, b), so its own error is below that times q ≤ e^(−2π), about 2·10⁻¹³ of S_b, and
otherwise None (the caller uses the certified engine). The sums run out to where every term is
below 10⁻²⁰ of S_b, past |t| = 6 (φ grows at most linearly, so the terms fall from there on,
faster than geometrically).
``tests/test_gau_full.py`` compares the table with the certified balls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mpmath
from flint import arb, ctx

from ...catalog import resolve
from ...catalog.ball_functions import STRIP_FUNCTIONS

# Agreement between two steps (relative to S_b, the module docstring) that accepts the finer one.
AGREEMENT = 1e-10
# Terms below this fraction of S_b end the sums (beyond |t| = TAIL_START).
TAIL = 1e-20
TAIL_START = 6.0
# λ outside this range (φ(λt) nearly linear, or a thin strip needing many nodes): the engine.
LAMBDA_RANGE = (0.1, 10.0)
MAX_HALVINGS = 6
MAX_NODES = 4000

# He_n for the n the estimate uses (``full.HERMITE``): He_0 = 1, He_1 = t, He_2 = t² − 1, He_4 = t⁴ − 6t² + 3.
ORDERS = (0, 1, 2, 4)
TOP_POWER = 8


def strip_table(
    activation: str, params: Mapping[str, object] | None, lam: mpmath.mpf
) -> dict[tuple[int, int], float] | None:
    """H[n, b] for n in ORDERS and 1 ≤ b ≤ TOP_POWER as doubles; None where this route does not
    apply (an expression, a kinked φ, λ outside LAMBDA_RANGE) or its steps do not agree."""
    act = resolve(activation, params)
    spec = None if act.expression else STRIP_FUNCTIONS.get(act.name)
    scale = float(lam)
    if spec is None or not LAMBDA_RANGE[0] <= scale <= LAMBDA_RANGE[1]:
        return None
    a = min(float(spec.width().mid()) / scale, 4.0)
    exponent = [c if isinstance(c, arb) else arb(c) for c in spec.exponent()]

    def phi(t: float) -> float:
        """φ(λt) from the catalog's strip form at 53 bits (its ball's midpoint)."""
        x = arb(scale * t)
        power = arb(0)
        for c in reversed(exponent):
            power = power * x + c
        return float(spec.at(x, power.exp())[0])

    with ctx.workprec(53):
        h = a
        sums, sizes, count = _level(phi, h, 0, 1)  # every node k·h
        previous: list[list[float]] | None = None
        for _ in range(MAX_HALVINGS + 1):
            estimate = [[value * h for value in row] for row in sums]
            if previous is not None and all(
                abs(e - p) <= AGREEMENT * size * h
                for new_row, old_row in zip(estimate, previous)
                for e, p, size in zip(new_row, old_row, sizes)
            ):
                norm = 1 / math.sqrt(2 * math.pi)
                return {
                    (n, b + 1): value * norm
                    for n, row in zip(ORDERS, estimate)
                    for b, value in enumerate(row)
                }
            if count > MAX_NODES:
                return None
            previous = estimate
            h /= 2
            new, new_sizes, new_count = _level(phi, h, 1, 2)  # the odd multiples of the new step
            sums = [[s + t for s, t in zip(row, new_row)] for row, new_row in zip(sums, new)]
            sizes = [s + t for s, t in zip(sizes, new_sizes)]
            count += new_count
    return None


def _level(phi, h: float, first: int, stride: int) -> tuple[list[list[float]], list[float], int]:
    """Σ He_n(t)·φ(λt)^b·e^(−t²/2) for each n in ORDERS and b = 1 … TOP_POWER (a row per n), and
    Σ (3 + 6t² + t⁴)·|φ(λt)|^b·e^(−t²/2) for each b (a bound of Σ|He_n(t)·…| for every n ≤ 4:
    the size the sums are judged against), over t = k·h for k = first, first + stride, … and
    their negatives (k = 0 once), out to where the terms have died away."""
    sums = [[0.0] * TOP_POWER for _ in ORDERS]
    sizes = [0.0] * TOP_POWER
    s0, s1, s2, s4 = sums
    count = 0
    k = first
    while True:
        tail = k * h > TAIL_START
        largest = 0.0
        for t in (0.0,) if k == 0 else (k * h, -k * h):
            weight = math.exp(-t * t / 2)
            t2 = t * t
            he1, he2, he4 = t * weight, (t2 - 1) * weight, (t2 * t2 - 6 * t2 + 3) * weight
            bound = (t2 * t2 + 6 * t2 + 3) * weight
            f = phi(t)
            power = 1.0
            count += 1
            for b in range(TOP_POWER):
                power *= f
                s0[b] += weight * power
                s1[b] += he1 * power
                s2[b] += he2 * power
                s4[b] += he4 * power
                term = bound * abs(power)
                sizes[b] += term
                if tail and term > largest * sizes[b]:
                    largest = term / sizes[b]
        if (tail and largest < TAIL) or count > MAX_NODES:
            return sums, sizes, count
        k += stride
