"""ψ' and ψ'' at the outer nodes of ``engine.bivariate_balls`` from ψ's own values there, by the
derivatives of the cardinal (sinc) series, with proven error bounds: E[g'(u₁)·g'(u₂)] and
E[g''(u₁)·g''(u₂)] then need no inner rules of their own (no second lattice convolution) beside
E[g(u₁)·g(u₂)].

With ψ(m) = E[g(m + b·V)] (g of polynomial growth, |g(x)| ≤ P(|x|) on the real line), take
G(w) = e^{−w²/2}·ψ(a·w). ψ is entire with |ψ(m + iy)| ≤ e^{y²/(2b²)}·E[P(|m| + b|V|)] (m real),
so G is entire and, on the strip |Im w| < d,

    N(G, d) = ∫ |G(t + id)| + |G(t − id)| dt ≤ 2·e^{d²/(2(1 − c))}·√(2π)·sqrt(M₀),

M₀ = E[P(a|T| + b|V|)²] (Cauchy–Schwarz; d²/2 + a²d²/(2b²) = d²/(2(1 − c)) for a² = qc,
b² = q(1 − c)). The cardinal series' error is (sin(πx/h)/2πi)∮ G(t)/((t − x)·sin(πt/h)) dt
around the strip (Stenger, "Numerical Methods Based on Sinc and Analytic Functions", 1993,
Theorem 3.1.2); differentiated at a node x = jh, where sin(πx/h) = 0, only the cosine's term is
left, so

    |G'(jh) − Σ_i G(ih)·D_{j−i}| ≤ N(G, d)/(2h·d·sinh(πd/h)),   D_k = (−1)^k/(k·h), D_0 = 0,

(|t − x| ≥ d and |sin(πt/h)| ≥ sinh(πd/h) on the strip's edges), about e^{−π²(1 − c)/(2h²)} at
d = π(1 − c)/h. The nodes |i| > n (n·h ≥ L) are left out: |G(ih)| ≤ e^{−(ih)²/2}·sqrt(Q(|ih|))
≤ √(2π)·ϕ(ih)·(1 + Q(|ih|))/2 with Q(|w|) = E_V[P(a|w| + b|V|)²] ≥ ψ(a·w)², and |D_k| ≤ 1/h, so
they add at most (√(2π)/(2h²))·∫_{|w|>L} (1 + Q)·ϕ (each term decreasing beyond L). Then

    a·ψ'(a·w_j) = e^{w_j²/2}·G'(w_j) + w_j·ψ(a·w_j).

An error δ in G'(w_j) becomes e^{w_j²/2}·δ/a in ψ'(a·w_j), which the outer rule weighs by
ϕ(w_j): it adds about 2|ψ'|·δ/(a√(2π)) per node to E[g'g'], the same at every node (and
e^{w_j²/2}·δ²/(a²√(2π)), negligible where e^{w_j²/2}·δ is small; beyond, |ψ'| ≤ sqrt(Q₁(|w_j|))
bounds it instead, Q₁ the same bound for g').

Differentiated twice at a node, only the term 2(π/h)·cos(πx/h)·J'(x) is left (J the integral
above over 2πi), so |G''(jh) − Σ_i G(ih)·D2_{j−i}| ≤ N(G, d)/(h·d²·sinh(πd/h)), D2_k =
2(−1)^{k+1}/(k²h²), D2_0 = −π²/(3h²), the nodes left out by π²/(3h²) ≥ |D2_k| as above; then
a²·ψ''(a·w) = e^{w²/2}·G''(w) + 2w·a·ψ'(a·w) + (1 − w²)·ψ(a·w) (E[g''g''] beside the others,
wanted to fewer digits: its sum in fixed point at fewer bits).

Three times: the sine's derivatives at a node leave 3(π/h)·cos·J'' − (π/h)³·cos·J, and
|J^{(m)}| ≤ m!·N/(2π·d^{m+1}·sinh(πd/h)) (|t − x| ≥ d on the strip's edges), so
|G'''(jh) − Σ_i G(ih)·D3_{j−i}| ≤ N(G, d)·(3/(h·d³) + π²/(2h³·d))/sinh(πd/h), D3_k =
(−1)^k·(6/k³ − π²/k)/h³ (the third derivative of sin(πt)/(πt) at the integer k), D3_0 = 0, the
nodes left out by |D3_k| ≤ (6 + π²)/h³; then a³·ψ'''(a·w) = e^{w²/2}·G'''(w) + 3w·a²·ψ''(a·w)
− 3(w² − 1)·a·ψ'(a·w) + (w³ − 3w)·ψ(a·w) (from a^k·ψ^{(k)}(a·w) = d^k/dw^k of e^{w²/2}·G(w)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from flint import arb, ctx

from .convolution import FixedWeights
from .gaussian_balls import Term, tail_bound
from .trapezoid import _decreasing_from

# Tries of a shorter step where the balls do not prove the first one.
TRIES = 6


def _up(x: arb) -> arb:
    return arb(x.upper())


def cardinal_error(h: arb, c: arb, root_m0: arb) -> arb:
    """The bound N(G, d)/(2h·d·sinh(πd/h)) of the module docstring at d = π(1 − c)/h (an exact
    d near it), as an upper bound; ``root_m0`` bounds sqrt(M₀)."""
    d = arb(arb(math.pi * float((1 - c).lower()) / float(h.mid())).mid().str(10, radius=False))
    norm = 2 * (2 * arb.pi()).sqrt() * root_m0 * (d * d / (2 * (1 - c))).exp()
    return _up(norm / (2 * h * d * (arb.pi() * d / h).sinh()))


def curvature_error(h: arb, c: arb, root_m0: arb) -> arb:
    """The second derivative's bound N(G, d)/(h·d²·sinh(πd/h)) (the module docstring's, once more
    differentiated: at a node 2(π/h)·|J'|, |J'| ≤ N/(2π·d²·sinh(πd/h))), at the d of
    ``cardinal_error``."""
    d = arb(arb(math.pi * float((1 - c).lower()) / float(h.mid())).mid().str(10, radius=False))
    norm = 2 * (2 * arb.pi()).sqrt() * root_m0 * (d * d / (2 * (1 - c))).exp()
    return _up(norm / (h * d * d * (arb.pi() * d / h).sinh()))


def third_error(h: arb, c: arb, root_m0: arb) -> arb:
    """The third derivative's bound N(G, d)·(3/(h·d³) + π²/(2h³·d))/sinh(πd/h) (the module
    docstring's), at the d of ``cardinal_error``."""
    d = arb(arb(math.pi * float((1 - c).lower()) / float(h.mid())).mid().str(10, radius=False))
    norm = 2 * (2 * arb.pi()).sqrt() * root_m0 * (d * d / (2 * (1 - c))).exp()
    factor = 3 / (h * d**3) + arb.pi() ** 2 / (2 * h**3 * d)
    return _up(norm * factor / (arb.pi() * d / h).sinh())


def cardinal_step(h: arb, c: arb, root_m0: arb, goal: arb) -> arb | None:
    """The outer step: ``h`` or a shorter exact one at which ``cardinal_error`` ≤ goal, None if the
    balls prove none."""
    if not (c > 0 and c < 1 and goal > 0):
        return None
    if cardinal_error(h, c, root_m0) <= goal:
        return h
    # the bound is 2√(2π)·sqrt(M₀)/(π(1 − c))·e^{−π²(1 − c)/(2h²)} up to sinh's e^{−2πd/h}
    one_minus = float((1 - c).lower())
    logs = float((2 * (2 * arb.pi()).sqrt() * root_m0 / (arb.pi() * (1 - c) * goal)).log().upper())
    step = math.pi * math.sqrt(one_minus / (2 * max(logs, 1.0)))
    step *= 0.98
    for _ in range(TRIES):
        found = arb(arb(min(step, float(h.mid()))).mid().str(8, radius=False))
        if found > 0 and cardinal_error(found, c, root_m0) <= goal:
            return found
        step *= 0.95
    return None


def truncation_error(q_terms: Sequence[Term], L: float, h: arb) -> arb | None:
    """(√(2π)/(2h²))·∫_{|w|>L} (1 + Q(|w|))·ϕ(w) dw (the nodes beyond L left out of the cardinal
    series' derivative), None where the tail bound does not apply at L or a term is not
    decreasing beyond it (the sum over the nodes beyond L is bounded by the integral)."""
    terms = [Term(arb(1), 0), *q_terms]
    tail = tail_bound(terms, arb(L), arb(0), arb(1))
    if tail is None or not _decreasing_from(terms, arb(L), arb(0), arb(1)):
        return None
    return _up((2 * arb.pi()).sqrt() * tail / (2 * h * h))


def _fixed_point(value: arb, bits: int) -> int:
    """⌊mid(value)·2^bits⌋."""
    mantissa, exponent = value.mid().man_exp()
    shift = exponent + bits
    return int(mantissa << shift if shift >= 0 else mantissa >> -shift)


def slopes(psi: Sequence[arb], h: arb, a: arb, error: arb, size: arb, parity: int | None = None) -> list[arb]:
    """ψ'(a·h·j), |j| ≤ n, from ``psi`` = [ψ(a·h·j) for j = −n..n] (balls holding the exact values)
    and ``error``, a bound of the cardinal series' error (the derivative's and the left-out nodes'):
    a·ψ'(a·w_j) = e^{w_j²/2}·G'(w_j) + w_j·ψ(a·w_j), G'(w_j) = Σ_i G(ih)·D_{j−i} ± error, the sum
    one exact integer product (``engine.convolution``). Far out, where e^{w_j²/2} has made that ball
    wider than ``size`` (a bound of |ψ'(a·w)| for |w| ≤ n·h), ``size`` bounds it instead (the outer
    rule's weight ϕ(w_j) makes either negligible there). ``parity``: ψ(−m) = parity·ψ(m) exactly
    (ψ' then has the other parity, and only j ≥ 0 is summed)."""
    return derivatives(psi, h, a, parity, (error, size))[0]


def derivatives(
    psi: Sequence[arb],
    h: arb,
    a: arb,
    parity: int | None,
    first_bounds: tuple[arb, arb],
    second_bounds: tuple[arb, arb, int] | None = None,
    down: Sequence[arb] | None = None,
    third_bounds: tuple[arb, arb, int] | None = None,
    third_out: list[list[arb]] | None = None,
) -> tuple[list[arb], list[arb] | None]:
    """(ψ' as ``slopes`` gives it with (error, size) = ``first_bounds``, and where
    ``second_bounds`` = (error, size, bits) is given ψ'' too, else None): a²·ψ''(a·w_j) =
    e^{w_j²/2}·G''(w_j) + 2w_j·a·ψ'(a·w_j) + (1 − w_j²)·ψ(a·w_j), G''(w_j) = Σ_i G(ih)·D2_{j−i}
    ± error, D2_k = 2(−1)^{k+1}/(k²h²), D2_0 = −π²/(3h²) (the cardinal series' second derivative),
    the sum in fixed point with ``bits`` fractional bits (fewer where ψ'' is wanted to fewer
    digits than ψ'). ``down``: e^{−(jh)²/2} for j = 0..n as this recurrence gives them (the outer
    rule's weights, computed there already), else computed here. ``third_bounds`` = (error, size,
    bits), with ``second_bounds``: ψ''' too (D3_k = (−1)^k·(6/k³ − π²/k)/h³, its sum at ``bits``),
    appended to ``third_out``."""
    n = (len(psi) - 1) // 2
    # e^{∓(jh)²/2} for j = 0..n, by recurrence
    computed, up = [arb(1)], [arb(1)]
    weight, ratio, square = arb(1), (-h * h / 2).exp(), (-h * h).exp()
    grow, rise, rise_square = arb(1), 1 / ratio, 1 / square
    for _ in range(n):
        if down is None:
            weight *= ratio
            ratio *= square
            computed.append(weight)
        grow *= rise
        rise *= rise_square
        up.append(grow)
    if down is None:
        down = computed
    right = [psi[n + i] * down[i] for i in range(n + 1)]
    if parity is None:
        samples = [psi[n - i] * down[i] for i in range(n, 0, -1)] + right
    else:
        samples = [parity * v for v in right[:0:-1]] + right
    # j ≥ 0 only where the parity gives the rest; kernel indices k from ``first`` to 2n
    low = -n if parity is None else 0
    first = -2 * n if parity is None else -n
    # coefficient (j − first) + n of a product is Σ_i K_{j−i}·G_i (kernel index k − first, sample
    # index i + n)
    positions = [j - first + n for j in range(low, n + 1)]
    bits = ctx.prec
    # D_k = (−1)^k/(k·h) in fixed point: within rad(1/h) + 2·2^−bits of ⌊⌊2^bits·mid(1/h)⌋/k⌋/2^bits
    inverse = 1 / h
    scaled = _fixed_point(inverse, bits)
    kernel = [
        0 if k == 0 else (scaled // abs(k)) * (1 if k % 2 == 0 else -1) * (1 if k > 0 else -1)
        for k in range(first, 2 * n + 1)
    ]
    weights = FixedWeights.from_integers(kernel, bits, _up(inverse.rad() + arb(2) ** (1 - bits)))
    derivative = weights.convolve(samples, positions)
    inverse_a = 1 / a
    error, size = first_bounds
    spread = arb(0, error)
    out = []
    for j in range(low, n + 1):
        value = ((derivative[j - low] + spread) * up[abs(j)] + h * j * psi[n + j]) * inverse_a
        if not value.rad() < size:
            value = arb(0, size)
        out.append(value)
    second = None
    if second_bounds is not None:
        error2, size2, bits2 = second_bounds
        twice = 2 * inverse * inverse
        middle = -(arb.pi() ** 2) * inverse * inverse / 3
        scaled2 = _fixed_point(twice, bits2)
        kernel2 = [
            _fixed_point(middle, bits2) if k == 0 else (scaled2 // (k * k)) * (-1 if k % 2 == 0 else 1)
            for k in range(first, 2 * n + 1)
        ]
        slack = _up(twice.rad() + middle.rad() + arb(2) ** (1 - bits2))
        curvature = FixedWeights.from_integers(kernel2, bits2, slack).convolve(samples, positions)
        spread2 = arb(0, error2)
        square_a = inverse_a * inverse_a
        second = []
        for j in range(low, n + 1):
            w = h * j
            value = (
                (curvature[j - low] + spread2) * up[abs(j)]
                + 2 * w * a * out[j - low]
                + (1 - w * w) * psi[n + j]
            ) * square_a
            if not value.rad() < size2:
                value = arb(0, size2)
            second.append(value)
        if third_bounds is not None and third_out is not None:
            third_out.append(
                _third(samples, positions, first, low, n, h, a, psi, up, out, second, third_bounds, parity)
            )
        if parity is not None:
            second = [parity * v for v in second[:0:-1]] + second
    if parity is not None:
        out = [-parity * v for v in out[:0:-1]] + out
    return out, second


def _third(
    samples: Sequence[arb],
    positions: Sequence[int],
    first: int,
    low: int,
    n: int,
    h: arb,
    a: arb,
    psi: Sequence[arb],
    up: Sequence[arb],
    slope: Sequence[arb],
    curve: Sequence[arb],
    bounds: tuple[arb, arb, int],
    parity: int | None,
) -> list[arb]:
    """ψ'''(a·h·j) for j = −n..n (``derivatives``' third; ``slope`` and ``curve`` are ψ' and ψ'' at
    j = ``low``..n). The kernel in fixed point: 6/h³ and π²/h³ each within its radius + 2^−bits
    of ⌊2^bits·mid⌋/2^bits, divided by |k|³ and |k| with floors (2^−bits each), so each D3_k lies
    within rad(6/h³) + rad(π²/h³) + 4·2^−bits of its integer over 2^bits."""
    error, size, bits = bounds
    cube = h * h * h
    six, square = 6 / cube, arb.pi() ** 2 / cube
    scaled6, scaled_pi = _fixed_point(six, bits), _fixed_point(square, bits)
    kernel: list[int] = []
    for k in range(first, 2 * n + 1):
        if k == 0:
            kernel.append(0)
            continue
        m = abs(k)
        entry = scaled6 // (m * m * m) - scaled_pi // m
        kernel.append(entry if (m % 2 == 0) == (k > 0) else -entry)  # (−1)^k·sign(k)
    slack = _up(six.rad() + square.rad() + arb(2) ** (2 - bits))
    sums = FixedWeights.from_integers(kernel, bits, slack).convolve(samples, positions)
    spread = arb(0, error)
    inverse_cube = 1 / (a * a * a)
    out: list[arb] = []
    for j in range(low, n + 1):
        w = h * j
        i = j - low
        value = (
            (sums[i] + spread) * up[abs(j)]
            + 3 * w * a * a * curve[i]
            - 3 * (w * w - 1) * a * slope[i]
            + (w * w * w - 3 * w) * psi[n + j]
        ) * inverse_cube
        if not value.rad() < size:
            value = arb(0, size)
        out.append(value)
    if parity is not None:  # three derivatives: ψ''' has the parity opposite to ψ's
        out = [-parity * v for v in out[:0:-1]] + out
    return out


__all__ = [
    "cardinal_error",
    "cardinal_step",
    "curvature_error",
    "derivatives",
    "slopes",
    "third_error",
    "truncation_error",
]
