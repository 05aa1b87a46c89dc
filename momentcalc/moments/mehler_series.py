"""E[φ(u₁)φ(u₂)] and E[φ'(u₁)φ'(u₂)] (u ~ N(0, q·[[1, c], [c, 1]])) as Mehler's series, for
φ(x) = a + b·tanh(x/s), at small correlations c and many digits.

Mehler's expansion (Mehler 1866; O'Donnell, "Analysis of Boolean Functions", §11.1): with
β_n = E[φ(√q·Z)·He_n(Z)]/√(n!) (Z ~ N(0, 1), He_n the probabilists' Hermite polynomials),

    K(c) = Σ_n β_n²·c^n,   K₁(c) = dK/dc / q = Σ_n n·β_n²·c^(n−1)/q   (Price's theorem),

and by Gaussian integration by parts β_n = q^(n/2)·E[φ⁽ⁿ⁾(√q·Z)]/√(n!). For φ = tanh, whose
derivative has the Fourier transform ∫ sech²(x)·e^(−iξx) dx = πξ/sinh(πξ/2) (even, positive),

    E[tanh⁽ⁿ⁾(√q·Z)] = (1/2π)·∫ (iξ)^(n−1)·πξ/sinh(πξ/2)·e^(−qξ²/2) dξ,

zero for even n ≥ 2 and, for odd n, (−1)^((n−1)/2)·m_n with

    m_n = ∫₀^∞ ξ^n·e^(−qξ²/2)/sinh(πξ/2) dξ > 0       (no cancellation; m_1 = E[sech²(√q·Z)]).

So β_n² = q^n·m_n²/n! (odd n), and for φ = a + b·tanh(x/s): β_0² = a², β_n² = b²·(q/s²)^n·m_n(q/s²)²/n!.
The tails are bounded by the terms' signs: Σ_{n>N} β_n²·c^n ≤ c^(N+1)·Σ_{n≥1} β_n² ≤ c^(N+1)·b²
(Σ_{n≥1} β_n² = Var φ ≤ E[(b·tanh)²]) and Σ_{n>N} n·β_n²·c^(n−1)/q ≤ c^N·E[φ'²] ≤ c^N·b²/s², for
0 ≤ c ≤ c_top.

The moments m_n, n = 1, 3, …, N, come from one trapezoidal rule (Trefethen & Weideman, "The
exponentially convergent trapezoidal rule", SIAM Review 56 (2014), Theorem 5.1) over tanh's
kernel less the principal parts of its first K pole pairs: 1/sinh(πξ/2) has simple poles at
ξ = 2ik with residues (−1)^k·2/π, so

    g_K(ξ) = 1/sinh(πξ/2) − Σ_{k=1..K} (−1)^k·(4/π)·ξ/(ξ² + 4k²)

is analytic on |Im ξ| < 2K + 2 but for its pole at 0, which ξ^n cancels; f_n(ξ) = ξ^n·e^(−qξ²/2)·g_K(ξ)
is even, and m_n = (1/2)∫_R f_n + Σ_k (−1)^k·(4/π)·I_n(2k), I_n(b) = ∫₀^∞ ξ^(n+1)·e^(−qξ²/2)/(ξ² + b²) dξ
in closed form (``_pole_parts``). (1/2)∫_R f_n is h·Σ_{j≥1} f_n(jh) (+ h/π for n = 1:
f_1(0) = 2/π) within

* M_n/(e^(2πd/h) − 1), d < 2K + 2, M_n = sup_{|y|<d} ∫|f_n(x + iy)| dx ≤ C·e^(qd²/2)·√(2π/q)·E[(d² + X²)^k],
  k = (n − 1)/2, X ~ N(0, 1/q), E[(d² + X²)^k] ≤ 2^(k−1)·(d^(2k) + (2k − 1)!!/q^k) (k ≥ 1, by
  convexity), and C ≥ |z·g_K(z)| on |Im z| ≤ d by the maximum modulus principle on the rectangle
  |Re z| ≤ R, R² = d² + 1, with z·g_K(z) bounded on its sides term by term: on Im z = ±d,
  |sinh(πz/2)| ≥ |sin(πd/2)| and |z² + 4k²| ≥ d² − 4k²; for |Re z| ≥ R, |sinh(πz/2)| ≥ sinh(π|x|/2),
  |z² + 4k²| ≥ x² − d² + 4k², and √(x² + d²)/sinh(π|x|/2) and (x² + d²)/(x² − d² + 4k²) decrease
  in |x| (2d² > 4k²);
* the nodes past J: |Σ_{j>J} h·f_n(jh)| ≤ sup_{ξ≥X}|g_K|·∫_X^∞ ξ^n·e^(−qξ²/2) ≤
  (1/sinh(πX/2) + 4K/(πX))·X^n·e^(−qX²/2)/(qX − n/X), X = Jh, where qX² > n (ξ^n·e^(−qξ²/2) is
  log-concave with slope ≤ n/X − qX there, so decreasing, and its sum below its integral);
* the values' fixed point: V_j = e^(−q(jh)²/2)·g_K(jh) as integers W_j within 1 + 2^P·rad of
  2^P·V_j, so h^(n+1)·Σ_{j≤J} j^n·|W_j − 2^P·V_j|/2^P ≤ (h(J + 1))^(n+1)/(n + 1)·(1 + 2^P·rad)/2^P.

Each pole pair K more lengthens the step h (about in proportion to d) at a cost e^(qd²/2) in
M_n; the plan takes the K ≤ MAX_POLES and d of the longest step. The power sums S_n = Σ_j j^n·W_j
(odd n = 2k + 1: Σ_j (j²)^k·(j·W_j)) are exact integers, the coefficients of
Σ_j j·W_j/(1 − j²t) = P(t)/Q(t) mod t^L: one product tree of integer polynomials truncated to
L terms, and one power-series inverse of Q (Q(0) = 1) by Newton's iteration, all in FLINT's
fmpz_poly (exact). Then m_n ∈ h^(n+1)·S_n/2^P + the poles' parts ± the three bounds. Step h,
strip d, poles K, nodes J and fixed-point bits P are chosen (in floating point) so that each
term's share of the error is below 2^−goal; the balls carry the proven bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb, ctx, fmpz, fmpz_poly

from ..engine.balls import arb_precision

# Terms past which the series is not worth it (its products grow as terms × nodes × bits):
# the caller takes another route.
MAX_TERMS = 2400
GUARD_BITS = 64  # working bits past the fixed point's
_STRIPS = (1.5, 1.7, 1.8, 1.9, 1.95, 1.975, 1.99)  # candidate half-widths d − 2K < 2
MAX_POLES = 5  # pole pairs ±2ik subtracted at most


class MehlerSeries:
    """K(c) and K₁(c) at one q for 0 ≤ c ≤ ``c_top`` (``series``)."""

    def __init__(self, coefficients: list[arb], q: arb, c_top: arb, amplitude: arb, scale: arb) -> None:
        self.coefficients = coefficients  # β_n², n = 0..N (N odd)
        self.terms = len(coefficients) - 1
        self.q, self.c_top = q, c_top
        self._k = coefficients
        self._k1 = [n * coefficients[n] for n in range(1, len(coefficients))]
        self._k2 = [n * self._k1[n] for n in range(1, len(self._k1))]
        self._square, self._slope_square = amplitude * amplitude, (amplitude / scale) ** 2

    def k(self, c: arb) -> arb | None:
        """K(c) (None where c is not within [0, c_top])."""
        if not (c >= 0 and c <= self.c_top):
            return None
        tail = self._square * arb(c.upper()) ** (self.terms + 1)
        return _mean_value(self._k, self._k1, c) + arb(0, tail.upper())

    def k1(self, c: arb) -> arb | None:
        """K₁(c) = E[φ'(u₁)φ'(u₂)] (None where c is not within [0, c_top])."""
        if not (c >= 0 and c <= self.c_top):
            return None
        tail = self._slope_square * arb(c.upper()) ** self.terms
        return _mean_value(self._k1, self._k2, c) / self.q + arb(0, tail.upper())


def _horner(coefficients: Sequence[arb], c: arb) -> arb:
    """Σ_n coefficients[n]·c^n (Horner's rule)."""
    total = arb(0)
    for value in reversed(coefficients):
        total = total * c + value
    return total


def _mean_value(poly: Sequence[arb], slope: Sequence[arb], c: arb) -> arb:
    """poly over the ball c by the mean value theorem: poly(mid) ± rad·sup|poly'|."""
    radius = c.rad()
    if radius == 0:
        return _horner(poly, c)
    return _horner(poly, arb(c.mid())) + arb(0, (radius * abs(_horner(slope, c))).upper())


def terms_needed(c_top: float, bits: int) -> int:
    """The odd N with c_top^N ≤ 2^−bits (the slope's tail; K's is c_top times smaller)."""
    n = math.ceil(bits * math.log(2) / -math.log(c_top))
    return n + 1 - n % 2


def series(form: tuple[Fraction, Fraction, Fraction], q: arb, c_top: float, goal: int) -> MehlerSeries | None:
    """Mehler's series of φ = a + b·tanh(x/s) (``form`` = (a, b, s)) at the exact q > 0, its
    coefficients within about 2^−goal (absolute, per term, at c_top) and its tails below that on
    [0, c_top]; None where it would need more than MAX_TERMS terms."""
    a, b, s = (arb(Fraction(v).numerator) / Fraction(v).denominator for v in form)
    if not 0 < c_top < 1:
        return None
    last = terms_needed(c_top, goal + 4)
    if last > MAX_TERMS:
        return None
    scaled = q / (s * s)
    moments = tanh_moments(scaled, last, goal, c_top)
    coefficients = [a * a]
    power, factorial = arb(1), arb(1)
    for n in range(1, last + 1):
        power *= scaled
        factorial *= n
        coefficients.append(b * b * power * moments[n] ** 2 / factorial if n % 2 else arb(0))
    return MehlerSeries(coefficients, q, arb(c_top), b, s)


def tanh_moments(q: arb, last: int, goal: int, c: float) -> list[arb]:
    """m_n = ∫₀^∞ ξ^n·e^(−qξ²/2)/sinh(πξ/2) dξ for odd n ≤ ``last`` (index n; even entries 0),
    each ball's radius proven (see the module docstring), the rule sized so that
    (qc)^n·m_n·|error|/n! stays below about 2^−goal."""
    qf = float(q)
    step, strip, poles, nodes, bits = _plan(qf, last, goal, c)
    with arb_precision(bits + GUARD_BITS):
        h = arb(step)  # a double: exact
        integers, excess = _values(q, h, nodes, bits, poles)
        sums = _power_sums(integers, (last + 1) // 2)
        bounds = _bounds(q, h, strip, poles, nodes, bits, excess, last)
        parts = _pole_parts(q, poles, last)
        out = [arb(0)] * (last + 1)
        scale = arb(2) ** -bits
        h_power = h
        for k, total in enumerate(sums):
            n = 2 * k + 1
            h_power *= h if k == 0 else h * h  # h^(n+1)
            value = arb(total) * h_power * scale + parts[k]
            if n == 1:
                value += h / arb.pi()
            out[n] = value + arb(0, bounds[k].upper())
    return out


def _pole_parts(q: arb, poles: int, last: int) -> list[arb]:
    """Σ_{k≤K} (−1)^k·(4/π)·I_n(2k) for odd n ≤ ``last`` (index (n − 1)/2), I_n(b) =
    ∫₀^∞ ξ^(n+1)·e^(−qξ²/2)/(ξ² + b²) dξ by I_n = G_(n−1) − b²·I_(n−2) (ξ^(n+1)/(ξ² + b²) =
    ξ^(n−1) − b²·ξ^(n−1)/(ξ² + b²)), G_(2i) = ∫₀^∞ ξ^(2i)·e^(−qξ²/2) dξ = √(π/(2q))·(2i − 1)!!/q^i,
    from I_(−1)(b) = (π/(2b))·erfcx(b·√(q/2)) (Abramowitz & Stegun 7.4.11). The recurrence
    multiplies errors by b² a step: the balls carry that (at more bits)."""
    count = (last + 1) // 2
    out = [arb(0)] * count
    if poles == 0:
        return out
    pi = arb.pi()
    extra = math.ceil(count * 2 * math.log2(2 * poles)) + 16
    with arb_precision(ctx.prec + extra):
        gauss = [(pi / (2 * q)).sqrt()]
        for i in range(1, count):
            gauss.append(gauss[-1] * (2 * i - 1) / q)
        for k in range(1, poles + 1):
            b = arb(2 * k)
            x = b * (q / 2).sqrt()
            integral = pi / (2 * b) * (x * x).exp() * x.erfc()  # I_(−1)
            sign = 4 / pi if k % 2 == 0 else -4 / pi
            for i in range(count):
                integral = gauss[i] - b * b * integral
                out[i] += sign * integral
    return [+value for value in out]


def _log_double_factorial(k: int) -> float:
    """ln (2k − 1)!!."""
    return math.lgamma(2 * k + 1) - k * math.log(2) - math.lgamma(k + 1)


def _strip_constant(d: float, poles: int) -> float:
    """C ≥ |z·g_K(z)| on |Im z| ≤ d (module docstring), in floating point."""
    r2 = d * d + 1  # the rectangle |Re z| ≤ R, R² = d² + 1
    r = math.sqrt(r2)
    top = math.sqrt(r2 + d * d) / abs(math.sin(math.pi * d / 2))
    side = math.sqrt(r2 + d * d) / math.sinh(math.pi * r / 2)
    for k in range(1, poles + 1):
        top += 4 / math.pi * (r2 + d * d) / (d * d - 4 * k * k)
        side += 4 / math.pi * (r2 + d * d) / (r2 - d * d + 4 * k * k)
    return max(top, side)


def _log_strip_bound(q: float, d: float, poles: int, n: int) -> float:
    """ln of the bound of M_n (module docstring), in floating point."""
    k = (n - 1) // 2
    if k == 0:
        moment = 0.0
    else:
        first, second = 2 * k * math.log(d), _log_double_factorial(k) - k * math.log(q)
        top = max(first, second)
        moment = (k - 1) * math.log(2) + top + math.log(math.exp(first - top) + math.exp(second - top))
    return math.log(_strip_constant(d, poles)) + q * d * d / 2 + 0.5 * math.log(2 * math.pi / q) + moment


def _log_size(q: float, n: int) -> float:
    """ln of a rough upper bound of m_n (ξ/sinh(πξ/2) ≤ 2/π): (1/π)·√(2π/q)·E[|X|^(n−1)]."""
    k = (n - 1) // 2
    return math.log(math.sqrt(2 * math.pi / q) / math.pi) + _log_double_factorial(k) - k * math.log(q)


def _plan(q: float, last: int, goal: int, c: float) -> tuple[float, float, int, int, int]:
    """(step h, strip d, poles K, nodes J, fixed-point bits P) for the rule (floating point: the
    balls carry the proven bounds, whatever these estimates are): the K and d of the longest
    step."""
    target = goal * math.log(2) + 10
    odd = range(1, last + 1, 2)
    # ln of the weight of m_n's error in K's term at c: 2·(qc)^n·m_n/n!
    weight = {n: math.log(2) + n * math.log(q * c) - math.lgamma(n + 1) + _log_size(q, n) for n in odd}
    best: tuple[float, float, int] | None = None
    for poles in range(MAX_POLES + 1):
        for width in _STRIPS:
            d = 2 * poles + width
            need = max(weight[n] + _log_strip_bound(q, d, poles, n) for n in odd) + target
            h = 2 * math.pi * d / need
            if best is None or h > best[0]:
                best = (h, d, poles)
    assert best is not None
    step, strip, poles = best
    step = math.ldexp(math.floor(math.ldexp(step, 40)), -40)  # exact and short

    def cut_off(x: float) -> bool:  # the nodes past x negligible for every n
        sup = math.log(2 * math.exp(-math.pi * x / 2) + 4 * poles / (math.pi * x))
        worst = max(weight[n] + n * math.log(x) - q * x * x / 2 - math.log(q * x - n / x) + sup for n in odd)
        return worst <= -target

    low = math.sqrt((last + 1) / q) + 0.5
    high = low
    while not cut_off(high):
        high *= 1.5
    while high - low > 0.02:  # the leftmost x where the nodes past it do not matter
        middle = (low + high) / 2
        low, high = (low, middle) if cut_off(middle) else (middle, high)
    x = high
    nodes = math.ceil(x / step)
    top = (nodes + 1) * step
    rounding = max(weight[n] + (n + 1) * math.log(top) - math.log(n + 1) for n in odd)
    bits = goal + max(0, math.ceil((rounding + 10) / math.log(2))) + 8
    return step, strip, poles, nodes, bits


def _values(q: arb, h: arb, nodes: int, bits: int, poles: int) -> tuple[list[fmpz], arb]:
    """(⌊2^P·V_j⌋ for j = 1..J, a bound of |W_j − 2^P·V_j|), V_j = e^(−q(jh)²/2)·g_K(jh),
    1/sinh(πjh/2) = 2r^j/(1 − r^(2j)), e^(−q(jh)²/2) = g_j by the recurrence g_(j+1) = g_j·t_j,
    t_(j+1) = t_j·e^(−qh²)."""
    out: list[fmpz] = []
    shrink = (-q * h * h).exp()
    t = (-q * h * h / 2).exp()  # g_1 = t_0
    g = arb(1)
    r1 = (-arb.pi() * h / 2).exp()
    r = arb(1)
    radius = arb(0)
    signs = [(4 if k % 2 else -4) / arb.pi() for k in range(1, poles + 1)]  # −(−1)^k·4/π
    squares = [arb(4 * k * k) for k in range(1, poles + 1)]
    for j in range(1, nodes + 1):
        g *= t
        t *= shrink
        r *= r1
        kernel = 2 * r / (1 - r * r)
        if poles:
            x = h * j
            for sign, square in zip(signs, squares):
                kernel += sign * x / (x * x + square)
        value = g * kernel
        mantissa, exponent = value.mid().man_exp()
        shift = exponent + bits
        out.append(mantissa << shift if shift >= 0 else mantissa >> -shift)
        radius = radius.max(value.rad())
    return out, arb((1 + radius * arb(2) ** bits).upper())


def _power_sums(integers: Sequence[fmpz], length: int) -> list[fmpz]:
    """Σ_j (j²)^k·(j·W_j) for k < ``length`` (j from 1), exactly: P/Q mod t^length."""
    leaves = [(fmpz_poly([j * w]), fmpz_poly([1, -j * j])) for j, w in enumerate(integers, start=1) if w != 0]
    if not leaves:
        return [fmpz(0)] * length
    while len(leaves) > 1:
        paired = []
        for i in range(0, len(leaves) - 1, 2):
            (p1, q1), (p2, q2) = leaves[i], leaves[i + 1]
            paired.append(((p1.mul_low(q2, length) + p2.mul_low(q1, length)), q1.mul_low(q2, length)))
        if len(leaves) % 2:
            paired.append(leaves[-1])
        leaves = paired
    numerator, denominator = leaves[0]
    sums = numerator.mul_low(_inverse(denominator, length), length)
    coefficients = sums.coeffs()
    return [fmpz(coefficients[k]) if k < len(coefficients) else fmpz(0) for k in range(length)]


def _inverse(poly: fmpz_poly, length: int) -> fmpz_poly:
    """1/poly mod t^length for poly(0) = 1 (Newton's iteration g ← g·(2 − poly·g), exact)."""
    inverse, done = fmpz_poly([1]), 1
    while done < length:
        done = min(2 * done, length)
        error = poly.mul_low(inverse, done)
        inverse = inverse.mul_low(2 - error, done)
    return inverse


def _bounds(q: arb, h: arb, d: float, poles: int, nodes: int, bits: int, excess: arb, last: int) -> list[arb]:
    """The proven error of each m_n (n = 2k + 1 ≤ ``last``): the rule's (strip), the nodes past
    J, the values' fixed point (module docstring)."""
    strip = arb(d)
    pi = arb.pi()
    d2 = strip * strip
    r2 = d2 + 1
    top = (r2 + d2).sqrt() / abs((pi * strip / 2).sin())
    side = (r2 + d2).sqrt() / (pi * r2.sqrt() / 2).sinh()
    for k in range(1, poles + 1):
        top += 4 / pi * (r2 + d2) / (d2 - 4 * k * k)
        side += 4 / pi * (r2 + d2) / (r2 - d2 + 4 * k * k)
    constant = top.max(side)
    common = constant * (q * d2 / 2).exp() * (2 * pi / q).sqrt() / ((2 * pi * strip / h).exp() - 1)
    x = h * nodes
    end = h * (nodes + 1)
    gauss = (-q * x * x / 2).exp() * (1 / (pi * x / 2).sinh() + 4 * poles / (pi * x))
    fixed = excess * arb(2) ** -bits
    out = []
    double_factorial, q_power = arb(1), arb(1)
    d_power = arb(1)
    x_power, end_power = x, end * end
    for k in range((last + 1) // 2):
        n = 2 * k + 1
        if k == 0:
            moment = arb(1)
        else:
            double_factorial *= 2 * k - 1
            q_power *= q
            d_power *= d2
            moment = arb(2) ** (k - 1) * (d_power + double_factorial / q_power)
            x_power *= x * x
            end_power *= end * end
        slope = q * x - n / x
        if not slope > 0:
            raise ArithmeticError("the rule's last node is before the integrand's decrease")
        bound = common * moment + x_power * gauss / slope + end_power / (n + 1) * fixed
        out.append(arb(bound.upper()))
    return out
