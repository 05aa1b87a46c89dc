"""Gaussian expectations E[g(X)], X ~ N(mean, std²), by trapezoid and double-exponential rules.

Su 2021, Transformer initialization and Su 2022, GAU at initialization compute these integrals numerically,

    E[g(X)] = ∫ g(mean + std·t) · exp(−t²/2) / sqrt(2π) dt,

e.g. ∫ φ(t)·sigmoid(t)² dt = 0.2933790… (Su 2021, Transformer initialization) and swish's μ, ν² (Su 2022, GAU at initialization).

Two rules, both the trapezoid rule in a variable s with the step halved until two levels agree:

* smooth g (no break points): s = t on the whole line. For g analytic in a strip around the
  real axis the error falls like exp(−2π·width/h), the fastest rule there is for this case.
* g with break points b (kinks, singular points, steep transitions, mapped to
  t = (b − mean)/std): the t-line is cut at 0 and at every b, and each piece gets a
  double-exponential map, which resolves whatever happens at an endpoint, at any scale:
  half-line t = b ± exp(π/2·sinh s) (exp-sinh), finite [a, b]:
  t = a + (b − a)/(1 + exp(−π·sinh s)) (tanh-sinh).

Several integrands are integrated at once on the same nodes (one evaluation per node).
Convergence: the trapezoid error falls like exp(−c/h), so halving h about squares the relative
error; a level is accepted once its difference from the previous one, raised to the power
1.6 (with a factor 10⁴ to spare), is below 10^-(digits+3). Sums that cancel are redone at a precision raised
by the digits they lose. A tail that does not decay raises DivergentIntegral; a level test
that never passes, or a sum that keeps cancelling (an expectation that is exactly 0 but not
known to be), raises PrecisionError.

What the mpmath route (``engine.gaussian_quadrature``, ``engine.bivariate_smoothing``,
``moments.quadrature``, ``moments.bivariate_quadrature``) is for, decided in the issue on
maintainability: no digit the CLI prints as proven comes from it. It tells a divergent integral
from one the Arb balls merely cannot prove (``moments.expectations``: exit 2 only when this
quadrature's tail grows), it locates what the balls then prove (meanfield's fixed points where
no certified kernel applies), it gives ``gau``'s finite-width estimates where the balls cannot,
and it is the tests' independent second route. It stays correct and tested, but is not
micro-optimised further: speed work goes to the Arb route; the mpmath internals it uses (raw mpf
tuples) sit in ``engine.mpmath_internals``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import mpmath
from mpmath import mp
from ..errors import PrecisionError
from .mpmath_internals import (
    PREC_ROUNDING,
    Raw,
    exceeds_product,
    fzero,
    make,
    mpf_abs,
    mpf_add,
    mpf_exp,
    mpf_ge,
    mpf_mul,
    mpf_neg,
    mpf_shift,
    mpf_sub,
    raw_abs,
    to_raw,
)
from .numbers import fraction_to_mpf

Integrand = Callable[[mpmath.mpf], Sequence[mpmath.mpf]]

# Number of step halvings allowed (trapezoid from h = 1, double-exponential from h = 1/2).
MAX_LEVELS = 10
# The outward march stops when this many consecutive terms are negligible.
QUIET_TERMS = 3
# Double-exponential half-lines: a tail still significant at s = 3.6 (t ≈ 1e11) diverges.
MAX_S = 3.6
# The whole-line trapezoid hands over to the double-exponential rule beyond this many
# Gaussian edges (slowly decaying or divergent tails are judged there).
TRAPEZOID_REACH = 3
# How far past the plain endpoint cut-off the march may go (integrable endpoint singularities).
ENDPOINT_EXTRA_S = 2
# An endpoint singularity |g| ~ d^-a is judged divergent when its fitted a is within this of 1
# (the fit from two nodes at distances below 10^-dps is exact to far better than that);
# |x|^-0.9998 (the derivative of abs(x)**0.5001) is integrable and must not be called divergent.
DIVERGENT_MARGIN = mpmath.mpf(10) ** -6
# Extra precision is added at most this many times when a sum cancels.
MAX_PRECISION_RAISES = 3
# Halving h raises the relative error to about this power, with a safety factor. Trapezoid on
# the line, error ~ exp(−c/h): 2 (measured 2.2 to 3 for the catalog, always below e² / 10);
# double-exponential rules: a little less (measured ≈ 1.85 at 300 digits).
TRAPEZOID_ORDER, TRAPEZOID_SAFETY = 2, 10
DOUBLE_EXPONENTIAL_ORDER, DOUBLE_EXPONENTIAL_SAFETY = 1.6, 10**4


class DivergentIntegral(ArithmeticError):
    """The integral of component ``index`` does not converge (its tail does not decay)."""

    def __init__(self, index: int) -> None:
        super().__init__(f"integral {index} diverges")
        self.index = index


class _TooWide(Exception):
    """The whole-line trapezoid did not reach the end of the tails; use the other rule."""


def _bulk_edge(rtol: mpmath.mpf) -> mpmath.mpf:
    """|t| beyond which the standard normal density is below the negligible-term level
    rtol/1000: a march may stop only past it (terms can be 0 near the centre)."""
    return mpmath.sqrt(2 * mpmath.log(1000 / rtol))


def gaussian_edge(dps: int) -> mpmath.mpf:
    """|t| beyond which the standard normal density is below 10^-(dps+5)."""
    return mpmath.sqrt(2 * (dps + 5) * mpmath.log(10))


def _accepted(
    previous: Sequence[mpmath.mpf] | None,
    current: Sequence[mpmath.mpf],
    absolutes: Sequence[mpmath.mpf],
    rtol: mpmath.mpf,
    order: float,
    safety: float,
    reference: Sequence[mpmath.mpf] | None = None,
) -> bool:
    """Is ``current`` within ``rtol``, relative to itself or to ``reference`` (the magnitude
    of the rest of the integral, for a piece that hardly contributes)? Its error is
    estimated as safety·difference^order, the difference from the previous level standing
    for the previous level's error."""
    if previous is None:
        return False
    # Below this fraction of the absolute sum, rounding decides the sum: the level test is then
    # absolute, and the caller raises the precision (cancellation).
    floor = mpmath.mpf(10) ** (-mp.dps) * 1000 / rtol
    for i, (old, new, size) in enumerate(zip(previous, current, absolutes)):
        scale = max(abs(new), floor * size, reference[i] if reference is not None else 0)
        if scale == 0:
            continue
        difference = abs(new - old) / scale
        if difference > mpmath.mpf(10) ** -3 or safety * difference**order > rtol:
            return False
    return True


# The inner sums work on mpmath's raw values (``engine.mpmath_internals``) with the context's
# precision and rounding: the same operations, rounded the same way, as the mpf operators
# (bit for bit), without creating an mpf object for every term.
_Raw = Raw


def _weighted(weight: mpmath.mpf, values: Sequence[mpmath.mpf]) -> tuple[tuple[_Raw, _Raw], ...]:
    """((w, |w|) for w = weight·v, v in values) as raw values, rounded as ``weight * v`` and
    ``abs(w)`` would be (every level that sums the node uses both)."""
    prec, rounding = PREC_ROUNDING
    w = to_raw(weight)
    try:
        products = [mpf_mul(w, to_raw(v), prec, rounding) for v in values]
    except AttributeError:  # not all mpf
        products = [to_raw(weight * v) for v in values]
    # abs(w) of a value already rounded to prec is w with its sign cleared.
    return tuple((p, raw_abs(p)) for p in products)


class _Accumulator:
    """Running sums and absolute sums of one level (raw values)."""

    def __init__(self, count: int, quiet_rtol: mpmath.mpf) -> None:
        self.sums: list[_Raw] = [fzero] * count
        self.absolutes: list[_Raw] = [fzero] * count
        self.quiet_rtol = to_raw(quiet_rtol)
        self.prec, self.rounding = PREC_ROUNDING

    def add(self, values: Sequence[tuple[_Raw, _Raw]]) -> None:
        sums, absolutes, prec, rounding = self.sums, self.absolutes, self.prec, self.rounding
        for i, (v, size) in enumerate(values):
            sums[i] = mpf_add(sums[i], v, prec, rounding)
            absolutes[i] = mpf_add(absolutes[i], size, prec, rounding)

    def loud(self, values: Sequence[tuple[_Raw, _Raw]]) -> list[int]:
        """Components whose term is not negligible against the sum so far: |term| > quiet·sum
        (``exceeds_product`` decides most of them from the exponents alone)."""
        prec, rounding, quiet, absolutes = self.prec, self.rounding, self.quiet_rtol, self.absolutes
        return [
            i
            for i, (_, size) in enumerate(values)
            if exceeds_product(size, quiet, absolutes[i], prec, rounding)
        ]

    def scaled_absolutes(self, h: mpmath.mpf) -> list[mpmath.mpf]:
        return self._scaled(h, self.absolutes)

    def scaled(self, h: mpmath.mpf) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
        return self._scaled(h, self.sums), self._scaled(h, self.absolutes)

    def _scaled(self, h: mpmath.mpf, raw: list[_Raw]) -> list[mpmath.mpf]:
        hr, prec, rounding = to_raw(h), self.prec, self.rounding
        return [make(mpf_mul(hr, v, prec, rounding)) for v in raw]


def _judge_tail(
    loud: list[int], values: Sequence[tuple[_Raw, _Raw]], earlier: Sequence[tuple[_Raw, _Raw]] | None
) -> None:
    """A march toward t = ±∞ ended with significant terms: growing ones diverge."""
    for i in loud:
        if earlier is None or mpf_ge(values[i][1], earlier[i][1]):
            raise DivergentIntegral(i)
    raise PrecisionError(
        "the Gaussian integral converges too slowly in the tails to reach the requested digits"
    )


def _left_out(
    last: _Node,
    before: _Node | None,
    absolutes: Sequence[mpmath.mpf],
    rtol: mpmath.mpf,
    reference: Sequence[mpmath.mpf],
) -> bool:
    """The march toward a finite endpoint stopped at distance d from it. Near the endpoint
    |g| ≈ C·d^−a (a fitted from the last two nodes); the part left out is ≈ |g|·ρ·d/(1 − a)
    (ρ the Gaussian density there): infinite for a ≥ 1 (DivergentIntegral). Returns True
    when that part is not negligible against the piece (``absolutes``) or against the
    rest of the integral (``reference``), so the level cannot be accepted yet."""
    _, _, _, dist, raw, density = last
    uncertain = False
    for i, g in enumerate(raw):
        g = abs(g)
        if g == 0:
            continue
        exponent = mp.zero
        if before is not None and before[4][i] != 0 and before[3] != dist:
            exponent = mpmath.log(g / abs(before[4][i])) / mpmath.log(before[3] / dist)
        mass = g * density * dist
        scale = max(absolutes[i], reference[i])
        if exponent >= 1 - DIVERGENT_MARGIN and mass > rtol * scale:
            raise DivergentIntegral(i)
        if mass / (1 - min(max(exponent, mp.zero), 1 - DIVERGENT_MARGIN)) > rtol / 10 * scale:
            uncertain = True
    return uncertain


# A node: (t, weighted values and their magnitudes (raw), merged with its endpoint?, distance to that endpoint in t,
# values of g, Gaussian density at t).
_Node = tuple[mpmath.mpf, tuple[tuple[_Raw, _Raw], ...], bool, mpmath.mpf, tuple[mpmath.mpf, ...], mpmath.mpf]


def _march(
    terms: Callable[[int], _Node],
    count: int,
    stride: int,
    unit: mpmath.mpf,
    rtol: mpmath.mpf,
    stop: Callable[[int, int, mpmath.mpf], str],
    reference: Sequence[mpmath.mpf] | None = None,
) -> tuple[list[mpmath.mpf], list[mpmath.mpf], bool]:
    """Trapezoid sum of one level: node 0, then outward in both directions until QUIET_TERMS
    consecutive negligible terms, where ``stop(direction, k, t)`` allows stopping ("quiet-ok";
    "go" means keep going; "end" that the march may go no further, "end-endpoint" the same
    toward a finite endpoint). Also returns whether a part left out at an endpoint may matter."""
    total = _Accumulator(count, rtol / 1000)
    uncertain = False
    h = unit * stride
    reference = reference or [mp.zero] * count

    def left_out(last: _Node, before: _Node | None) -> bool:
        return _left_out(last, before, total.scaled_absolutes(h), rtol, reference)

    total.add(terms(0)[1])
    for direction in (1, -1):
        quiet, k = 0, direction * stride
        earlier: _Node | None = None
        before: _Node | None = None
        while True:
            node = terms(k)
            t, values, merged = node[0], node[1], node[2]
            if merged:  # the node sits on its endpoint at this precision
                if earlier is not None:
                    uncertain |= left_out(earlier, before)
                break
            total.add(values)
            verdict = stop(direction, k, t)
            quiet = quiet + 1 if verdict != "go" and not total.loud(values) else 0
            if quiet >= QUIET_TERMS:
                break
            if verdict == "end":
                _judge_tail(total.loud(values), values, earlier[1] if earlier else None)
                break
            if verdict == "end-endpoint":
                uncertain |= left_out(node, earlier)
                break
            before, earlier = earlier, node
            k += direction * stride
    return (*total.scaled(h), uncertain)


def _whole_line(
    evaluate: Integrand, count: int, mean: mpmath.mpf, std: mpmath.mpf, rtol: mpmath.mpf
) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """Trapezoid rule in t on (−∞, ∞), nodes t = k·h, for g smooth on the whole line."""
    norm = 1 / mpmath.sqrt(2 * mp.pi)
    edge = _bulk_edge(rtol)
    reach = TRAPEZOID_REACH * edge
    finest = 2**MAX_LEVELS  # node k stands for t = k / finest; the first step is h = 1
    unit = mpmath.mpf(1) / finest
    cache: dict[int, _Node] = {}

    def terms(k: int) -> _Node:
        if k not in cache:
            t = k * unit
            weight = _density(t, norm, k, unit, "line")
            raw = tuple(evaluate(mean + std * t))
            cache[k] = t, _weighted(weight, raw), False, mpmath.inf, raw, weight
        return cache[k]

    # t = k·unit exactly, so |t| > r exactly when the whole number |k| > floor(r·finest).
    reach_k, edge_k = int(mpmath.floor(reach * finest)), int(mpmath.floor(edge * finest))

    def stop(direction: int, k: int, t: mpmath.mpf) -> str:
        if abs(k) > reach_k:
            raise _TooWide
        return "quiet-ok" if abs(k) > edge_k else "go"

    previous = None
    for level in range(MAX_LEVELS + 1):
        sums, absolutes, uncertain = _march(terms, count, finest >> level, unit, rtol, stop)
        if _accepted(previous, sums, absolutes, rtol, TRAPEZOID_ORDER, TRAPEZOID_SAFETY) and not uncertain:
            return sums, absolutes
        previous = sums
    raise PrecisionError("the Gaussian integral did not converge at the finest trapezoid step")


# What the nodes cost that depends on neither the integrand nor the piece, by precision and
# node (s or t = k / finest): the parts of the double-exponential maps and the Gaussian
# density at nodes whose t is k / finest or ±u (a half-line from t = 0). The same nodes serve
# every piece, level and call at that precision (a 50-digit expectation evaluates sinh, cosh
# and exp at about 800 of them per piece). At most _TABLES tables (a precision has one per
# unit: the whole line's and the double-exponential rule's) are kept, the most recently used.
_TABLES = 8
_node_tables: dict[tuple[int, tuple], dict[tuple[int, str], tuple[mpmath.mpf, ...]]] = {}


def _table(unit: mpmath.mpf) -> dict[tuple[int, str], tuple[mpmath.mpf, ...]]:
    key = mp.prec, to_raw(unit)
    if _node_tables and next(reversed(_node_tables)) == key:  # already the most recent
        return _node_tables[key]
    table = _node_tables.pop(key, None)
    if table is None:
        table = {}
        while len(_node_tables) >= _TABLES:
            del _node_tables[next(iter(_node_tables))]
    _node_tables[key] = table  # now the most recent
    return table


def _map_parts(k: int, unit: mpmath.mpf, half_line: bool) -> tuple[mpmath.mpf, ...]:
    """Half-line: (u, du/ds) with u = exp(π/2·sinh s); finite: (cosh s, e, 1/(1 + e)) with
    e = exp(−π·sinh s); s = k·unit, at the current precision."""
    table = _table(unit)
    kind = "half-line" if half_line else "finite"
    parts = table.get((k, kind))
    if parts is None:
        s = k * unit
        sh, ch = mpmath.sinh(s), mpmath.cosh(s)
        if half_line:
            half_pi = mp.pi / 2
            u = mpmath.exp(half_pi * sh)
            parts = u, u * half_pi * ch
        else:
            e = mpmath.exp(-mp.pi * sh)
            parts = ch, e, 1 / (1 + e)  # frac in (0, 1); 1 − frac = e·frac
        table[k, kind] = parts
    return parts


def _density(
    t: mpmath.mpf, norm: mpmath.mpf, k: int | None = None, unit: mpmath.mpf | None = None, kind: str = ""
) -> mpmath.mpf:
    """norm·exp(−t²/2); kept in the node table when t is determined by (k, kind) alone."""
    if k is None:
        return _normal_density(t, norm)
    table = _table(unit)
    found = table.get((k, kind))
    if found is None:
        found = (_normal_density(t, norm),)
        table[k, kind] = found
    return found[0]


def _normal_density(t: mpmath.mpf, norm: mpmath.mpf) -> mpmath.mpf:
    """norm * mpmath.exp(-t * t / 2), the same roundings on raw values (the halving is exact)."""
    prec, rounding = PREC_ROUNDING
    r = to_raw(t)
    square = mpf_shift(mpf_mul(mpf_neg(r, prec, rounding), r, prec, rounding), -1)
    return make(mpf_mul(to_raw(norm), mpf_exp(square, prec, rounding), prec, rounding))


class _Piece:
    """One piece of the t-line with its double-exponential map s -> (t, dt/ds)."""

    def __init__(self, low: mpmath.mpf | None, high: mpmath.mpf | None) -> None:
        self.low, self.high = low, high  # None means infinite
        self.half_line = low is None or high is None
        if low is not None and high is not None:  # (not a half line) at the precision of the nodes
            self.width = high - low
            self.width_pi = self.width * mp.pi

    def node(self, k: int, unit: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
        """At s = k·unit: (t, dt/ds, distance of t from the endpoint it approaches; 0 once
        they merge)."""
        prec, rounding = PREC_ROUNDING
        if self.half_line:
            u, jac = _map_parts(k, unit, True)
            # t = low + u or high − u, and |t − end|, on raw values with the same roundings.
            if self.high is None:
                end = to_raw(self.low)
                t = mpf_add(end, to_raw(u), prec, rounding)
            else:
                end = to_raw(self.high)
                t = mpf_sub(end, to_raw(u), prec, rounding)
            dist = make(mpf_abs(mpf_sub(t, end, prec, rounding), prec, rounding)) if k < 0 else mpmath.inf
            return make(t), jac, dist
        ch, e, frac = _map_parts(k, unit, False)
        # On raw values: jac = width·π·ch·e·frac·frac and t, rounded as those mpf expressions.
        f, e = to_raw(frac), to_raw(e)
        jac = mpf_mul(mpf_mul(to_raw(self.width_pi), to_raw(ch), prec, rounding), e, prec, rounding)
        jac = make(mpf_mul(mpf_mul(jac, f, prec, rounding), f, prec, rounding))
        width = to_raw(self.width)
        if k >= 0:
            high = to_raw(self.high)
            t = mpf_sub(high, mpf_mul(mpf_mul(width, e, prec, rounding), f, prec, rounding), prec, rounding)
            return make(t), jac, make(mpf_sub(high, t, prec, rounding))
        low = to_raw(self.low)
        t = mpf_add(low, mpf_mul(width, f, prec, rounding), prec, rounding)
        return make(t), jac, make(mpf_sub(t, low, prec, rounding))


def _distance_from_centre(piece: _Piece) -> mpmath.mpf:
    """How far the piece lies from t = 0 (0 for the pieces that end at 0)."""
    if piece.low is not None and piece.low >= 0:
        return piece.low
    if piece.high is not None and piece.high <= 0:
        return -piece.high
    return mp.zero


def _pieces(breaks: Sequence[mpmath.mpf]) -> list[_Piece]:
    points = sorted({mp.zero, *breaks})
    pieces = [_Piece(None, points[0])]
    pieces += [_Piece(a, b) for a, b in zip(points, points[1:])]
    pieces.append(_Piece(points[-1], None))
    return pieces


def _double_exponential(
    evaluate: Integrand,
    count: int,
    mean: mpmath.mpf,
    std: mpmath.mpf,
    breaks_t: Sequence[mpmath.mpf],
    rtol: mpmath.mpf,
) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """Sum over the pieces between the break points, each by its double-exponential rule."""
    norm = 1 / mpmath.sqrt(2 * mp.pi)
    edge = _bulk_edge(rtol)
    # Toward a finite endpoint the weights fall like exp(−π/2·e^|s|): 10^-(dps+5) by here;
    # integrable endpoint singularities need a little further.
    endpoint_s = mpmath.asinh(2 / mp.pi * (mp.dps + 5) * mpmath.log(10)) + ENDPOINT_EXTRA_S
    totals = [mp.zero] * count
    absolutes = [mp.zero] * count
    finest = 2 ** (MAX_LEVELS + 1)  # node k stands for s = k / finest
    unit = mpmath.mpf(1) / finest
    # s = |k|/finest > S exactly when the whole number |k| > floor(S·finest) (finest a power of 2).
    max_k, endpoint_k = math.floor(MAX_S * finest), int(mpmath.floor(endpoint_s * finest))
    # The pieces next to t = 0 hold the Gaussian bulk: they come first, and the others are
    # then judged against what is already summed (a far piece that hardly contributes
    # need not be resolved to its own relative precision).
    pieces = sorted(_pieces(breaks_t), key=_distance_from_centre)
    for piece in pieces:
        reference = [abs(v) for v in totals]
        cache: dict[int, _Node] = {}
        # A half-line from t = 0 has its nodes at t = ±u(s): the density there is the node table's.
        from_zero = piece.half_line and (piece.low if piece.high is None else piece.high) == 0

        def fixed(k: int, from_zero: bool = from_zero) -> tuple:
            return (k, unit, "half-line from 0") if from_zero else ()

        def terms(k: int) -> _Node:
            if k not in cache:
                t, jac, dist = piece.node(k, unit)
                if to_raw(dist) == fzero or to_raw(jac) == fzero:  # dist == 0 or jac == 0
                    cache[k] = t, ((fzero, fzero),) * count, True, dist, (mp.zero,) * count, mp.zero
                else:
                    density = _density(t, norm, *fixed(k))
                    weight = jac * density
                    raw = tuple(evaluate(mean + std * t))
                    cache[k] = t, _weighted(weight, raw), False, dist, raw, density
            return cache[k]

        def stop(direction: int, k: int, t: mpmath.mpf) -> str:
            n = abs(k)  # s = n / finest
            if piece.half_line and direction > 0:  # toward t = ±∞
                if n > max_k:
                    return "end"
                return "quiet-ok" if n >= finest and abs(t) > edge else "go"
            if n > endpoint_k:
                return "end-endpoint"
            return "quiet-ok" if n >= finest else "go"

        previous = None
        for level in range(MAX_LEVELS + 1):
            sums, abss, uncertain = _march(terms, count, finest >> (level + 1), unit, rtol, stop, reference)
            if (
                _accepted(
                    previous, sums, abss, rtol, DOUBLE_EXPONENTIAL_ORDER, DOUBLE_EXPONENTIAL_SAFETY, reference
                )
                and not uncertain
            ):
                break
            previous = sums
        else:
            raise PrecisionError(
                "the Gaussian integral did not converge at the finest quadrature level"
                + (" (a singular point cannot be resolved at this precision)" if uncertain else "")
            )
        for i in range(count):
            totals[i] += sums[i]
            absolutes[i] += abss[i]
    return totals, absolutes


def _mpf(value: Fraction | int | mpmath.mpf) -> mpmath.mpf:
    """An exact input (Fraction, int) or an mpf, at the current precision."""
    if isinstance(value, Fraction):
        return fraction_to_mpf(value.numerator, value.denominator)
    return mpmath.mpf(value)


FAR_BREAK = 2**20


def _check_far_breaks(sums: Sequence[mpmath.mpf], breaks_t: Sequence[mpmath.mpf], dps: int) -> None:
    """A sum of exactly 0 is only 0 if the nodes could see what lies beyond every break: past
    |t| ≈ 10^(dps/2) the density falls off on a scale (1/|t|) finer than the spacing of the
    numbers near t (|t|·10^-dps), so x = mean + std·t cannot resolve the tail there
    (relu at --mean -1e309 would print 0 for a positive mean)."""
    reach = mpmath.mpf(10) ** (dps // 2 - 2)
    far = [b for b in breaks_t if abs(b) > reach]
    if far and any(v == 0 for v in sums):
        raise PrecisionError(
            f"a break point lies {mpmath.nstr(abs(far[0]), 3)} standard deviations from the mean, too far out for "
            f"{dps} digits of working precision to resolve the tail beyond it, on which the result depends"
        )


def gaussian_expectations(
    integrand: Integrand,
    count: int,
    *,
    mean: Fraction | int | mpmath.mpf,
    std: Fraction | int | mpmath.mpf,
    breaks: Sequence[mpmath.mpf] | Callable[[], Sequence[mpmath.mpf]] = (),
    digits: int,
    dps: int,
) -> list[mpmath.mpf]:
    """E[g_i(X)] for the ``count`` components g_i returned by ``integrand(x)``.

    Computed at ``dps`` decimal digits (more where a sum cancels: ``integrand`` and a callable
    ``breaks`` are then called at that precision), each to ``digits`` significant digits
    with three to spare. ``breaks`` are x-values where some g_i is not smooth (or changes on
    a scale much finer than std). A component that is exactly zero at every node comes back
    as 0. Exact inputs (Fraction) are rounded once, at the precision in use.
    """
    work = dps
    lost = 0
    for _ in range(MAX_PRECISION_RAISES + 1):
        with mp.workdps(work):
            m, s = _mpf(mean), _mpf(std)
            if not s > 0:
                raise ValueError("std must be positive")
            points = breaks() if callable(breaks) else breaks
            breaks_t = [(_mpf(b) - m) / s for b in points]
            breaks_t = [b for b in breaks_t if mpmath.isfinite(b)]
            # Breaks beyond 2^20 std bound no piece the nodes can see (the density there is below
            # 10^(−2·10^11)), and a node on one costs mpmath seconds (exp(−t²/2) at t = −1e100000:
            # softsign at mean 1e100000); they still count in _check_far_breaks.
            near = [b for b in breaks_t if abs(b) <= FAR_BREAK]
            rtol = mpmath.mpf(10) ** (-(digits + 3))
            try:
                if near:
                    raise _TooWide
                sums, absolutes = _whole_line(integrand, count, m, s, rtol)
            except _TooWide:
                sums, absolutes = _double_exponential(integrand, count, m, s, near, rtol)
            # A sum that cancels loses log10(absolute / |sum|) digits to rounding.
            lost = max(
                (
                    int(mpmath.log10(a / abs(v))) + 1 if v != 0 else work
                    for v, a in zip(sums, absolutes)
                    if a != 0
                ),
                default=0,
            )
            if work - lost >= digits + 6:
                _check_far_breaks(sums, breaks_t, work)
                return [+v for v in sums]
        work = dps + lost + 6
    raise PrecisionError(
        f"the expectation cancels to below {digits} significant digits "
        f"(it may be exactly 0) within {work} digits of working precision"
    )
