"""Certified Gaussian expectations: E[g(X)], X ~ N(mean, std²), as an Arb ball (python-flint)
whose radius is a proven bound on the error.

    E[g(X)] = ∫ g(mean + std·t) · exp(−t²/2) / sqrt(2π) dt

is split into

* the finite part t ∈ [−L, L], integrated by ``acb.integral`` (Arb's rigorous Gauss–Legendre
  integration with error bounds from the integrand's size on complex ellipses). The t-line is
  cut at the break points of g (kinks, where g switches between analytic branches); on each
  piece the integrand is that piece's analytic branch, which must return a non-finite ball when
  asked (``analytic=True``) for a box on which it is not holomorphic (a branch cut);
* the tails |t| > L, bounded analytically from a growth bound of g (``Term``s:
  |g(x)| ≤ Σ c·|x|^k·e^{a|x| + b·x²}), so they are proven small, never assumed small:
  with y = |mean| + std·t, each term's tail is, after completing the square,
  c·e^{C + p²/(2q)}/sqrt(q) · ∫_{u0}^∞ (A + B·u)^k φ(u) du, expanded binomially into the
  Gaussian tail moments M_j(u0) = ∫_{u0}^∞ u^j φ(u) du
  (M_0 = erfc(u0/√2)/2, M_1 = φ(u0), M_j = u0^{j−1}φ(u0) + (j − 1)·M_{j−2});
* a kink known only to lie in a ball: the split is made at an exact point c near it, and the
  region between c and the true kink (where the wrong branch may have been integrated) adds
  its width times the size of both branches there to the radius.

The precision rises until the ball is narrow against its midpoint (``digits`` + 3 digits):
an expectation that cancels (an integrand far larger than its integral) shows up as a radius
large against the value and is retried with a smaller absolute goal; when the goal reaches
``MAX_CANCELLATION_DIGITS`` below the integrand's size, PrecisionError. A growth bound that
does not make the tail integrable (b·std² ≥ 1/2) raises UnboundedTail.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NamedTuple, cast

from flint import acb, arb, ctx

from ..errors import PrecisionError

# An analytic branch of g: (x as acb, analytic flag) -> g(x) as acb.
Branch = Callable[[acb, bool], acb]

GUARD_BITS = 30
# The integrand's value once an error is kept: it ends Arb's integration at
# once (the result is discarded).
# How many digits below the size of the integrand an expectation may cancel before
# PrecisionError (an expectation that is exactly 0 but not known to be never narrows).
MAX_CANCELLATION_DIGITS = 700
# A retry asks for this many times more digits of absolute accuracy than the last one.
GOAL_GROWTH = 2
# The integration interval [−L, L] grows in these steps until the tails are below the goal.
MAX_L = 400
BITS_PER_DIGIT = math.log2(10)


class UnboundedTail(ArithmeticError):
    """The growth bound does not make the Gaussian tail integrable (e^{b·x²} with b·std² ≥ 1/2)."""


class NotCertified(ArithmeticError):
    """The integrator could not enclose the integral (a singularity on the path, a branch cut
    the integrand cannot avoid): the caller decides whether the integral diverges."""


class Integrand(NamedTuple):
    """g for ``gaussian_expectation_ball``, built at the working precision on request:
    ``pieces(low, high)`` its analytic branches between its break points on [low, high] (x),
    ascending, the first from −∞ (None) and the last to +∞ (None); ``terms(r0)`` a growth bound
    of |g(x)| for |x| ≥ r0 (the tails); ``truth`` g itself where a kink is known only to lie in
    a ball (it bounds g there, with analytic=False)."""

    pieces: Callable[[arb, arb], Sequence[Piece]]
    terms: Callable[[arb], Sequence[Term]]
    truth: Branch | None = None
    # At an exact break point p where g is singular: (p, δ) -> a LocalBound, or None.
    local: Callable[[arb, arb], LocalBound | None] | None = None


class LocalBound(NamedTuple):
    """|g(x)| ≤ |x − p|^(−alpha)·Σ c_k·log(1/|x − p|)^k for 0 < |x − p| ≤ δ < 1/e: an
    integrable singularity at p when alpha < 1 (a log: alpha = 0; |x|^(−1/2): alpha = 1/2)."""

    alpha: Fraction
    coefficients: list[arb]


class Term(NamedTuple):
    """One term of a growth bound: c·|x|^k·e^{a|x| + b·x²} (c, a, b ≥ 0, k a natural number)."""

    c: arb | Fraction | int
    k: int = 0
    a: arb | Fraction | int = 0
    b: arb | Fraction | int = 0


class Piece(NamedTuple):
    """g between two break points (x-values; None for ±∞): its analytic branch there."""

    low: arb | Fraction | int | None
    high: arb | Fraction | int | None
    branch: Branch


def narrow(ball: arb, digits: int) -> bool:
    """Whether ``ball`` is as narrow as every expectation ball is returned: a nonzero midpoint
    and a radius at most 10^−(digits+3) of it (so that it rounds to ``digits`` digits except
    within a few units of a tie)."""
    return ball.mid() != 0 and ball.rad() <= abs(ball.mid()) * arb(10) ** (-(digits + 3))


def as_arb(value: arb | Fraction | int | float) -> arb:
    """An exact input (Fraction, int) as a ball at the current precision. Integers pass
    through int(): with gmpy2 installed, mpmath's mantissas (and Fractions built from them)
    hold gmpy2.mpz, which arb() does not take."""
    kind = type(value)  # the common types first: this runs per integrand evaluation in places
    if kind is arb:
        return cast(arb, value)
    if kind is int:
        return arb(cast(int, value))
    if isinstance(value, arb):
        return value
    if isinstance(value, Fraction):
        return arb(int(value.numerator)) / int(value.denominator)
    if isinstance(value, numbers.Integral):
        return arb(int(value))
    return arb(value)


def normalise(terms: Sequence[Term]) -> tuple[Term, ...]:
    """Terms with arb coefficients, same-shaped terms merged (by k, a, b as given)."""
    merged: dict[tuple, list] = {}
    for term in terms:
        c, a, b = as_arb(term.c), as_arb(term.a), as_arb(term.b)
        key = (term.k, a.mid().str(30, radius=False), b.mid().str(30, radius=False))
        if key in merged:
            merged[key][0] += c
        else:
            merged[key] = [c, term.k, a, b]
    return tuple(Term(c, k, a, b) for c, k, a, b in merged.values())


def exact_key(ball: arb) -> tuple[int, ...]:
    """A ball's midpoint and radius, exactly (a cache key)."""
    mantissa, exponent = ball.mid().man_exp()
    radius, shift = ball.rad().man_exp()
    return int(mantissa), int(exponent), int(radius), int(shift)


def product(left: Sequence[Term], right: Sequence[Term]) -> tuple[Term, ...]:
    """A growth bound of |f·g| from bounds of |f| and |g|."""
    return normalise(
        [
            Term(as_arb(p.c) * as_arb(q.c), p.k + q.k, as_arb(p.a) + as_arb(q.a), as_arb(p.b) + as_arb(q.b))
            for p in left
            for q in right
        ]
    )


def pieces_of(kinks: Sequence[arb | Fraction | int], branches: Sequence[Branch]) -> tuple[Piece, ...]:
    """Pieces from ascending kinks and one branch per interval between them."""
    edges: list = [None, *kinks, None]
    return tuple(Piece(low, high, branch) for low, high, branch in zip(edges, edges[1:], branches))


def _upper(value: arb) -> arb:
    """The upper end of a ball, as an exact ball."""
    return arb(value.upper())


# From here on the Gaussian tail Q(u) comes from its asymptotic series (Arb's erfc loses all
# relative accuracy for arguments near 1e6 and beyond: relu at mean -1e20 gave 0 ± 2^-10^41).
ASYMPTOTIC_TAIL_FROM = 2**16


def _gaussian_tail(u0: arb, density: arb) -> arb:
    """Q(u0) = ∫_{u0}^∞ φ(u) du; for u0 ≥ ASYMPTOTIC_TAIL_FROM from the series
    Q(u) = φ(u)/u · Σ (−1)^n (2n−1)!!/u^{2n}, whose partial sums bracket Q (each truncation
    error has the sign of, and is smaller than, the first term left out)."""
    if not u0 > ASYMPTOTIC_TAIL_FROM:
        return (u0 / arb(2).sqrt()).erfc() / 2
    inverse_square = 1 / (u0 * u0)
    total, term, n = arb(0), arb(1), 0
    goal = arb(2) ** (-ctx.prec - 8)
    while not abs(term) < goal:
        total += term
        n += 1
        term = -term * (2 * n - 1) * inverse_square
    # The next partial sum lies on the other side of Q: the ball spans both.
    low, high = (total, total + term) if term > 0 else (total + term, total)
    return density / u0 * low.union(high)


def _density(u0: arb) -> arb:
    """φ(u0) = exp(−u0²/2)/sqrt(2π). Far left of the mean (u0 < −ASYMPTOTIC_TAIL_FROM) it only
    bounds a tail that is negligible against the bulk: 64 bits give a proven bound at once, where
    the full precision would take a second per call at u0 = −1e100000."""
    if u0 < -ASYMPTOTIC_TAIL_FROM:
        with ctx.workprec(64):
            return (-u0 * u0 / 2).exp() / (2 * arb.pi()).sqrt()
    if not u0 > ASYMPTOTIC_TAIL_FROM:
        return (-u0 * u0 / 2).exp() / (2 * arb.pi()).sqrt()
    # Far right (relu at mean −1e100000): exp of a huge argument at full precision costs up to
    # a second, and every moment and piece asks for the same one.
    needed = 2 * magnitude_log2(u0) + ctx.prec
    if needed > MAX_TAIL_BITS:
        raise PrecisionError(
            f"the Gaussian tail {u0.mid().str(3, radius=False)} std from the mean needs about "
            f"{needed:.3g} bits of working precision; at most {MAX_TAIL_BITS} are used"
        )
    key = (ctx.prec, *exact_key(u0))
    if key not in _FAR_DENSITIES:
        if len(_FAR_DENSITIES) > 64:
            _FAR_DENSITIES.clear()
        _FAR_DENSITIES[key] = (-u0 * u0 / 2).exp() / (2 * arb.pi()).sqrt()
    return _FAR_DENSITIES[key]


_FAR_DENSITIES: dict[tuple[int, ...], arb] = {}
# exp(−u²/2) at this many bits (counting u²'s) takes about 0.1 s; 1e100000 std would take
# seconds per call, in one uninterruptible Arb call.
MAX_TAIL_BITS = 2**18


def _tail_moments(u0: arb, k: int) -> list[arb]:
    """M_j(u0) = ∫_{u0}^∞ u^j φ(u) du for j = 0..k (any u0; relative accuracy for u0 ≥ 0).

    Kept per (precision, u0) and extended on demand: a growth bound's terms of degree 0..k
    share one u0, and the same L is tried for every integrand of a trapezoidal rule."""
    key = (ctx.prec, *exact_key(u0))
    moments = _TAIL_MOMENTS.get(key)
    if moments is None:
        density = _density(u0)
        if u0 < -ASYMPTOTIC_TAIL_FROM:
            head = 1 - _gaussian_tail(-u0, density)  # 1 − Q(|u0|), Q(|u0|) below any precision
        else:
            head = _gaussian_tail(u0, density)
        moments = [head, density]
        if len(_TAIL_MOMENTS) > 256:
            _TAIL_MOMENTS.clear()
        _TAIL_MOMENTS[key] = moments
    density = moments[1]
    for j in range(len(moments), k + 1):
        moments.append(u0 ** (j - 1) * density + (j - 1) * moments[j - 2])
    return moments[: k + 1]


_TAIL_MOMENTS: dict[tuple[int, ...], list[arb]] = {}


def _term_tail(term: Term, L: arb, mean_abs: arb, std: arb) -> arb | None:
    """An upper bound of ∫_L^∞ c·y^k·e^{a·y + b·y²} φ(t) dt with y = |mean| + std·t (which
    bounds |x| on both tails); None when L is still left of the completed square's centre."""
    c, k, a, b = _upper(as_arb(term.c)), term.k, _upper(as_arb(term.a)), _upper(as_arb(term.b))
    q = 1 - 2 * b * std * std
    if not q > 0:
        raise UnboundedTail("the growth bound is not integrable against the Gaussian")
    p = std * (a + 2 * b * mean_abs)
    centre = p / q
    if not centre <= L:
        return None
    root = q.sqrt()
    u0 = root * (L - centre)
    base, slope = mean_abs + std * centre, std / root
    moments = _tail_moments(u0, k)
    total = arb(0)
    for j in range(k + 1):
        total += math.comb(k, j) * base ** (k - j) * slope**j * moments[j]
    scale = (a * mean_abs + b * mean_abs * mean_abs + p * p / (2 * q)).exp() / root
    return _upper(c * scale * total)


def tail_bound(terms: Sequence[Term], L: arb, mean: arb, std: arb, shared: dict | None = None) -> arb | None:
    """A proven upper bound of |∫_{|t|>L} g(mean + std·t) φ(t) dt| for |g| bounded by ``terms``
    (both tails), or None if L is too small for the bound to apply.

    ``shared``: a dict the caller keeps for calls with one mean and std at one precision (the
    integrands of one trapezoidal rule, whose bounds share many terms): each term's tail at
    each L is computed once (the same ball) and kept there."""
    mean_abs = abs(mean)
    total = arb(0)
    for term in terms:
        if shared is None:
            part = _term_tail(term, L, mean_abs, std)
        else:
            key = (
                exact_key(as_arb(term.c)),
                term.k,
                exact_key(as_arb(term.a)),
                exact_key(as_arb(term.b)),
                exact_key(L),
            )
            if key in shared:
                part = shared[key]
            else:
                part = shared[key] = _term_tail(term, L, mean_abs, std)
        if part is None:
            return None
        total += part
    return _upper(2 * total)


def _choose_L(
    integrand: Integrand, mean: arb, std: arb, goal: arb, start: float
) -> tuple[arb, arb, tuple[Term, ...]]:
    """The smallest L (in steps from ``start``) whose tail bound is below ``goal``, the bound,
    and the growth terms used (valid for |x| ≥ std·L − |mean|)."""
    L = max(1.0, math.floor(start))
    failure: NotCertified | None = None
    while L <= MAX_L:
        try:
            terms = normalise(integrand.terms(tail_start(L, mean, std)))
        except NotCertified as error:  # no bound this close to the centre; further out maybe
            failure = error
            terms = None
        bound = tail_bound(terms, arb(L), mean, std) if terms is not None else None
        if terms is not None and bound is not None and bound < goal:
            return arb(L), bound, terms
        L += 1 if L < 40 else L // 8
    if failure is not None:
        raise failure
    raise PrecisionError("the tails of the Gaussian integral cannot be bounded below the requested accuracy")


def tail_start(L: float, mean: arb, std: arb) -> arb:
    """A lower bound of |x| on the tails |t| ≥ L (x = mean + std·t)."""
    return arb((std * L - abs(mean)).lower()).max(arb(0))


def magnitude_log2(value: arb) -> float:
    """log2 of a positive ball's magnitude, roughly (for choosing precisions)."""
    mid = abs(value.mid()) if value.mid() != 0 else _upper(abs(value))
    if mid == 0:
        return -math.inf
    mantissa, exponent = mid.mid().man_exp()
    return math.log2(abs(int(mantissa))) + int(exponent)


def bulk_size(terms: Sequence[Term], mean: arb, std: arb) -> arb:
    """The size of the integrand (for choosing precisions and the first goal only): the
    growth bound at |x| = |mean| + 2·std, or its Gaussian integral beyond the point where the
    bound's weight peaks, when that is larger (x**1000 has its mass near |t| = 32)."""
    y = abs(mean) + 2 * std
    total = arb(0)
    peak = arb(0)
    for c, k, a, b in terms:
        total += as_arb(c) * y**k * (as_arb(a) * y + as_arb(b) * y * y).exp()
        q = 1 - 2 * _upper(as_arb(b)) * std * std
        if q > 0:  # the completed square's centre, and where y^k·φ peaks
            peak = peak.max(std * (_upper(as_arb(a)) + 2 * _upper(as_arb(b)) * abs(mean)) / q + arb(k).sqrt())
    try:
        mass = tail_bound(terms, arb(_upper(peak)), mean, std)
    except UnboundedTail:
        mass = None
    if mass is not None and mass.is_finite():
        total = total.max(mass)
    return _upper(total)


class _Split(NamedTuple):
    t: arb  # exact split point in t
    slack: arb  # width of the region the wrong branch may cover (0 for an exact kink)
    hull: arb  # a real ball holding the split point and the true kink (in t)


def _splits(pieces: Sequence[Piece], mean: arb, std: arb) -> list[_Split]:
    splits = []
    for piece in pieces[1:]:
        assert piece.low is not None  # every piece after the first starts at a break point
        kink = (as_arb(piece.low) - mean) / std
        point = arb(kink.mid())
        slack = _upper(abs(kink - point))
        hull = kink.union(point)
        splits.append(_Split(point, slack, hull))
    return splits


def _mismatch(
    pieces: Sequence[Piece], splits: Sequence[_Split], mean: arb, std: arb, truth: Branch | None
) -> arb:
    """Bound on what integrating the neighbouring branch between a split point and the true
    kink may have cost: 2·slack·(|left| + |right| + |g|)·φ over the hull, at each split."""
    total = arb(0)
    norm = 1 / (2 * arb.pi()).sqrt()
    for i, split in enumerate(splits):
        if split.slack == 0:
            continue
        x = acb(mean + std * split.hull)
        left, right = pieces[i].branch(x, False), pieces[i + 1].branch(x, False)
        size = left.abs_upper() + right.abs_upper()
        if truth is not None:
            size += truth(x, False).abs_upper()
        weight = (-split.hull * split.hull / 2).exp() * norm
        term = 2 * split.slack * arb(size) * _upper(weight)
        if not term.is_finite():
            raise NotCertified("a kink cannot be located precisely enough")
        total += term
    return _upper(total)


def _nan_ball() -> acb:
    return acb(arb.nan())


def log_power_integral(k: int, delta: arb) -> arb:
    """∫_0^δ log(1/t)^k dt = δ·Σ_{j=0}^{k} k!/j!·log(1/δ)^j (integrating by parts)."""
    L = (1 / delta).log()
    return delta * sum((arb(math.factorial(k) // math.factorial(j)) * L**j for j in range(k + 1)), arb(0))


def power_log_integral(alpha: Fraction, k: int, delta: arb) -> arb:
    """∫_0^δ t^(−α)·log(1/t)^k dt (α < 1) = k!·δ^β/β^(k+1)·Σ_{j=0}^{k} (β·log(1/δ))^j/j!,
    β = 1 − α (with t = e^(−s), the incomplete gamma function Γ(k+1, β·log(1/δ))/β^(k+1));
    ``log_power_integral`` at α = 0."""
    if alpha == 0:
        return log_power_integral(k, delta)
    beta = as_arb(1 - Fraction(alpha))
    x = beta * (1 / delta).log()
    series = sum((x**j / math.factorial(j) for j in range(k + 1)), arb(0))
    return math.factorial(k) * (-x).exp() * series / beta ** (k + 1)


def _singular_gaps(
    integrand: Integrand, pieces: Sequence[Piece], splits: Sequence[_Split], mean: arb, std: arb, goal: arb
) -> tuple[list[tuple[arb, arb] | None], arb]:
    """The neighbourhoods (exact ends in t) cut out around exact break points where g is
    singular with an integrable local bound (``LocalBound``, α < 1; None elsewhere), and the
    bound of what they hold: norm/std·2·Σ c_k·∫_0^δ u^(−α)·log(1/u)^k du (the Gaussian weight
    is at most 1), δ the half-width in x they reach once their ends are rounded outward to
    points of the working precision."""
    gaps: list[tuple[arb, arb] | None] = [None] * len(splits)
    total = arb(0)
    if integrand.local is None:
        return gaps, total
    for i, split in enumerate(splits):
        low = pieces[i + 1].low
        if split.slack != 0 or low is None:
            continue
        p = as_arb(low)
        x = acb(p)
        if pieces[i].branch(x, False).is_finite() and pieces[i + 1].branch(x, False).is_finite():
            continue
        delta = arb(2) ** (min(-4, magnitude_log2(goal) - 16))
        for _ in range(40):
            bound = _singular_bound(integrand, p, delta, std)
            if bound is None:
                break
            if bound <= goal / 8:
                ends = arb((split.t - delta / std).lower()), arb((split.t + delta / std).upper())
                reach = _upper((ends[1] - split.t).max(split.t - ends[0]) * std)
                if reach > delta:  # rounded outward: bound what the wider neighbourhood holds
                    bound = _singular_bound(integrand, p, reach, std)
                    if bound is None:
                        break
                gaps[i] = ends
                total += _upper(bound)
                break
            delta = delta * arb(2) ** -16
    return gaps, total


def _singular_bound(integrand: Integrand, p: arb, delta: arb, std: arb) -> arb | None:
    """A bound of E[|g(X)|; |X − p| ≤ δ] from g's local bound at p, or None (none, or α ≥ 1)."""
    local = None if integrand.local is None else integrand.local(p, delta)
    if local is None or local.alpha >= 1:
        return None
    norm = 1 / (2 * arb.pi()).sqrt()
    return (
        2
        * norm
        / std
        * sum(
            (c * power_log_integral(local.alpha, k, delta) for k, c in enumerate(local.coefficients)), arb(0)
        )
    )


# The highest Gauss–Legendre degree acb.integral uses per subinterval. Arb's default,
# prec/2 + 60, is above 1700 at a thousand digits, where computing the nodes (once per process
# and degree) dominated: E[phi''(u)^2] of tanh at 1003 digits took 4.2 s, 2.5 s with 800 (more
# subintervals, each cheaper; the enclosure is as rigorous). Below about 450 digits Arb's own.
MAX_DEGREE = 800


def _integrate_pieces(
    pieces: Sequence[Piece],
    splits: Sequence[_Split],
    L: arb,
    mean: arb,
    std: arb,
    abs_tol: arb,
    rel_tol: arb,
    gaps: Sequence[tuple[arb, arb] | None] = (),
    eval_limit: int | None = None,
) -> acb:
    """Σ over the pieces of ∫ branch(mean + std·t)·e^{−t²/2} dt over the piece ∩ [−L, L], less
    the neighbourhood gaps[j] = (low, high) of each split point j that has one (``eval_limit``:
    acb.integral's, per piece)."""
    gaps = list(gaps) or [None] * len(splits)
    edges = [-L] + [s.t for s in splits] + [L]
    # As complex balls once (exactly): an arb meeting an acb is converted on every evaluation.
    centre, scale = acb(mean), acb(std)
    total = zero = acb(0)
    count = sum(1 for a, b in zip(edges, edges[1:]) if b > a)
    for j, (piece, low, high) in enumerate(zip(pieces, edges, edges[1:])):
        before = gaps[j - 1] if j > 0 else None
        if before is not None:
            low = before[1]
        after = gaps[j] if j < len(splits) else None
        if after is not None:
            high = after[0]
        low, high = low.max(-L), high.min(L)
        if not high > low:
            continue
        branch = piece.branch
        raised: list[BaseException] = []

        def integrand(t: acb, analytic: bool, branch: Branch = branch) -> acb:
            # An exception must not cross Arb's C integrator: it would go on with that node's
            # value undefined (one raised between callbacks once gave a segmentation fault).
            # It is kept and raised afterwards. Every node from then on is an exact 0, which
            # ends the integration at once; its value is never used. (A nan had Arb bisect to
            # its depth limit: at 2400 bits, minutes of CPU and gigabytes, tanh --mean
            # 1e-100000 --std 1e6.)
            if raised:
                return zero
            try:
                return branch(centre + scale * t, analytic) * (-t * t / 2).exp()
            except BaseException as error:
                raised.append(error)
                return zero

        part = acb.integral(
            integrand,
            low,
            high,
            abs_tol=abs_tol / max(count, 1),
            rel_tol=rel_tol,
            eval_limit=eval_limit,
            deg_limit=min(MAX_DEGREE, ctx.prec // 2 + 60),
        )
        if raised:
            raise raised[0]
        if not part.is_finite():
            raise NotCertified("the integrand could not be enclosed on the integration path")
        total += part
    return total


def _attempt(
    integrand: Integrand,
    mean: Fraction,
    std: Fraction,
    goal_log2: float,
    prec: int,
    eval_limit: int | None = None,
) -> arb:
    """One evaluation at ``prec`` bits aiming at an absolute error of 2^goal_log2."""
    with ctx.workprec(prec):
        m, s = as_arb(mean), as_arb(std)
        goal = arb(2) ** math.floor(goal_log2)
        start = math.sqrt(max(0.0, -2 * goal_log2 * math.log(2)))
        L, tail, _ = _choose_L(integrand, m, s, goal / 4, start * 0.8)
        pieces = integrand.pieces(m - s * L, m + s * L)
        splits = _splits(pieces, m, s)
        norm = 1 / (2 * arb.pi()).sqrt()
        gaps, singular = _singular_gaps(integrand, pieces, splits, m, s, goal)
        finite = _integrate_pieces(
            pieces, splits, L, m, s, goal / 2 / norm, arb(2) ** (-prec + GUARD_BITS // 2), gaps, eval_limit
        )
        mismatch = _mismatch(pieces, splits, m, s, integrand.truth) + singular
        value = finite.real * norm
        imag = finite.imag
        if not imag.contains(0):
            raise NotCertified("the integrand is not real on the integration path")
        return value + arb(0, tail + mismatch)


def _size_log2(integrand: Integrand, mean: Fraction, std: Fraction) -> float:
    """log2 of the integrand's size (``bulk_size``, at 64 bits; 0 where its growth bound
    cannot be had near the centre), or of its ``sampled`` values where they are larger: what the
    first goal and precision are measured from."""
    with ctx.workprec(64):
        m, s = as_arb(mean), as_arb(std)
        try:
            size = bulk_size(normalise(integrand.terms(tail_start(8, m, s))), m, s)
        except NotCertified:
            size = arb(1)
        if not size.is_finite():
            # exp(1e309*x): the growth bound overflows even Arb's exponents at 64 bits.
            raise PrecisionError("the integrand is too large to bound at these inputs (its size overflows)")
        size = size.max(sampled(integrand, mean, std))
    return max(magnitude_log2(size), -(10**6)) if size > 0 else 0.0


def sampled(integrand: Integrand, mean: Fraction, std: Fraction) -> arb:
    """max |g(x)|·e^{−t²/2} (t = (x − mean)/std) at x = mean, mean ± std and x = 0 (where an
    activation bends) when |t| ≤ 8 there; 0 where a value is not finite. The growth bound in
    ``bulk_size`` holds only far out: gelu's φ''² decays like e^{−x²} there, so at Var u = 1000 it
    put the size near 2^−92000 where the value is 0.0098 (a first rule chasing that absolute goal
    took 4.4 s, and the goals that followed ran out of tail). For precisions only; never a bound."""
    points = [Fraction(mean), Fraction(mean) - std, Fraction(mean) + std]
    if abs(Fraction(mean)) <= 8 * std:
        points.append(Fraction(0))
    largest = arb(0)
    try:
        # finding the pieces may fail (a sign change it cannot place, min(max(x, −2), 2)): the
        # size is then the growth bound's alone
        pieces = integrand.pieces(as_arb(min(points)), as_arb(max(points)))
    except (ArithmeticError, ValueError):
        return largest
    for point in points:
        x = as_arb(point)
        for piece in pieces:
            if (piece.low is None or as_arb(piece.low) <= x) and (
                piece.high is None or x <= as_arb(piece.high)
            ):
                try:
                    value = abs(piece.branch(acb(x), False).real)
                except (ArithmeticError, ValueError):
                    break
                t = (x - as_arb(mean)) / as_arb(std)
                weighted = _upper(value * (-t * t / 2).exp()) if value.is_finite() else arb(0)
                if weighted.is_finite() and weighted > 0:
                    largest = largest.max(weighted)
                break
    return largest


def gaussian_expectation_ball(
    integrand: Integrand, *, mean: Fraction | int, std: Fraction | int, digits: int
) -> arb:
    """E[g(X)], X ~ N(mean, std²), as a ball narrow enough for ``digits`` + 3 significant
    digits (relative radius ≤ 10^−(digits+3)), or PrecisionError.

    An expectation that stays within its radius of 0 raises PrecisionError (it may be exactly
    0); NotCertified when the integral cannot be enclosed (the caller decides whether it
    diverges), UnboundedTail when the growth bound is not Gaussian-integrable.
    """
    mean, std = Fraction(mean), Fraction(std)
    size_log2 = _size_log2(integrand, mean, std)
    wanted = (digits + 3) * BITS_PER_DIGIT
    # First aim: the value is about as large as the integrand.
    goal_log2 = size_log2 - wanted - 4
    floor = size_log2 - (digits + 3 + MAX_CANCELLATION_DIGITS) * BITS_PER_DIGIT
    while True:
        prec = int(size_log2 - goal_log2) + GUARD_BITS + 20
        ball = _attempt(integrand, mean, std, goal_log2, prec)
        if narrow(ball, digits):
            return ball
        radius = ball.rad()
        if goal_log2 <= floor:
            raise PrecisionError(
                f"the expectation cancels to below {digits} significant digits (it may be exactly 0) "
                f"within {MAX_CANCELLATION_DIGITS} digits below the integrand's size"
            )
        if abs(ball.mid()) > 4 * radius:
            # The magnitude is known: aim at it.
            magnitude = magnitude_log2(abs(ball))
            goal_log2 = max(min(goal_log2 - 8, magnitude - wanted - 4), floor)
        else:
            goal_log2 = max(size_log2 - (size_log2 - goal_log2) * GOAL_GROWTH, floor)


def gaussian_expectation_within(
    integrand: Integrand, *, mean: Fraction | int, std: Fraction | int, goal_log2: float
) -> arb:
    """E[g(X)], X ~ N(mean, std²), as a ball whose radius is about 2^goal_log2 (an absolute goal:
    a value near 0, as a smoothing E[φ(m + b·V)] of an odd φ at m = 0 is, needs no relative
    digits). Raises NotCertified or UnboundedTail as ``gaussian_expectation_ball`` does."""
    mean, std = Fraction(mean), Fraction(std)
    size_log2 = max(_size_log2(integrand, mean, std), goal_log2)
    return _attempt(integrand, mean, std, goal_log2, int(size_log2 - goal_log2) + GUARD_BITS + 20)


# Relative accuracy (bits below the integrand's size) of ``integrable_enclosure``: any finite
# enclosure is the proof; a coarse one is cheap.
ENCLOSURE_BITS = 20
# acb.integral's evaluations per piece for it: a bounded integrand needs a few hundred at this
# accuracy; one unbounded near a point (1/x) would spend them all before giving up.
ENCLOSURE_EVALUATIONS = 5000


def integrable_enclosure(integrand: Integrand, *, mean: Fraction | int, std: Fraction | int) -> arb:
    """A finite ball holding E[g(X)], X ~ N(mean, std²), at low precision; that it exists
    proves E[|g(X)|] < ∞. Every part of it bounds |g|, not g: the tails by a growth bound of
    |g|, each piece by ``acb.integral``, whose enclosure is finite only where g is bounded on
    every box it evaluates, the neighbourhoods of singular points by local bounds of |g|.
    So an odd g's expectation under a centred Gaussian is 0 (the integral converges
    absolutely), which parity alone does not give: E[1/X] diverges. Raises NotCertified
    (1/x at 0: no box around 0 bounds it) or UnboundedTail; whether the integral diverges or
    only cannot be bounded, the caller decides."""
    mean, std = Fraction(mean), Fraction(std)
    size_log2 = _size_log2(integrand, mean, std)
    ball = _attempt(
        integrand,
        mean,
        std,
        size_log2 - ENCLOSURE_BITS,
        ENCLOSURE_BITS + GUARD_BITS + 44,
        ENCLOSURE_EVALUATIONS,
    )
    if not ball.is_finite():
        raise NotCertified("the integrand could not be bounded on the integration path")
    return ball


# --- exact expectations of piecewise exp-polynomials ------------------------------------------


class ExpTerm(NamedTuple):
    """c·x^power·e^{rate·x}."""

    c: arb | Fraction | int
    power: int = 0
    rate: arb | Fraction | int = 0


def exp_poly_product(left: Sequence[ExpTerm], right: Sequence[ExpTerm]) -> tuple[ExpTerm, ...]:
    return tuple(
        ExpTerm(as_arb(p.c) * as_arb(q.c), p.power + q.power, as_arb(p.rate) + as_arb(q.rate))
        for p in left
        for q in right
    )


def _moment_between(u_low: arb | None, u_high: arb | None, k: int) -> arb:
    """∫ u^k φ(u) du over [u_low, u_high] (None for ∓∞), from the tail moments
    M_k(u) = ∫_u^∞ u^k φ (the recursion M_k = u^{k−1}φ(u) + (k − 1)M_{k−2} holds for every u)."""

    def tail(u: arb | None, infinite_value: arb) -> arb:
        return infinite_value if u is None else _tail_moments(u, k)[k]

    if u_high is not None and u_high < 0:
        # A piece left of the mean, mirrored (u → −u): the tail moments keep their relative
        # accuracy, where full − M_k(u_high) would cancel (elu's negative piece at mean 1e20).
        mirrored = _moment_between(-u_high, None if u_low is None else -u_low, k)
        return -mirrored if k % 2 else mirrored
    full = arb(0) if k % 2 else arb(math.prod(range(k - 1, 0, -2)))  # E[u^k] = (k − 1)!!
    return tail(u_low, full) - tail(u_high, arb(0))


def exp_poly_expectation(
    pieces: Sequence[tuple[arb | Fraction | None, arb | Fraction | None, Sequence[ExpTerm]]],
    mean: arb,
    std: arb,
) -> arb:
    """E[g(X)], X ~ N(mean, std²), exactly (in ball arithmetic), for g = Σ c·x^j·e^{λx} on each
    piece [low, high] (x; None for ±∞): with x = mean + std·t and u = t − λ·std,
    e^{λx}φ(t) = e^{λ·mean + λ²std²/2}·φ(u) and (mean + λ·std² + std·u)^j expands binomially
    into the Gaussian moments of u over the piece."""
    total, far = arb(0), []
    for low, high, terms in pieces:
        t_low = None if low is None else (as_arb(low) - mean) / std
        t_high = None if high is None else (as_arb(high) - mean) / std
        for term in terms:
            shift = as_arb(term.rate) * std
            u_low = None if t_low is None else t_low - shift
            u_high = None if t_high is None else t_high - shift
            if (u_low is not None and u_low > ASYMPTOTIC_TAIL_FROM) or (
                u_high is not None and u_high < -ASYMPTOTIC_TAIL_FROM
            ):
                far.append((term, u_low, u_high))
            else:
                total += _term_expectation(term, u_low, u_high, mean, std)
    if far:
        # Pieces beyond 65536 std: first a 64-bit enclosure, kept when it is negligible
        # against the rest (relu's zero side at mean 1e100000 would otherwise take seconds).
        with ctx.workprec(64):
            rough = sum((_far_term_bound(*item, mean, std) for item in far), arb(0))
        if (
            rough.is_finite()
            and total != 0
            and abs(rough).upper() < abs(total).lower() * arb(2) ** (-ctx.prec - 8)
        ):
            return total + rough
        total += sum((_term_expectation(*item, mean, std) for item in far), arb(0))
    return total


def _far_term_bound(term: ExpTerm, u_low: arb | None, u_high: arb | None, mean: arb, std: arb) -> arb:
    """A ball around 0 holding E[c·x^j·e^{λx}] over a piece that lies beyond u0 ≥ 65536 on one
    side: M_k(u0) ≤ k!·u0^k·φ(u0) for u0 ≥ 1 (from M_k = u0^{k−1}φ + (k−1)M_{k−2}), with
    e^{λ·mean + λ²std²/2}·φ(u0) taken as one exponential (apart, each overflows)."""
    c, j, rate = term
    rate = as_arb(rate)
    if u_low is not None and u_low > 0:
        u0 = u_low
    else:
        assert u_high is not None  # a far piece not above +65536 lies below -65536: u_high is finite
        u0 = -u_high
    base = abs(mean + rate * std * std)
    scale = (rate * mean + rate * rate * std * std / 2 - u0 * u0 / 2).exp() / (2 * arb.pi()).sqrt()
    bound = sum(
        (math.comb(j, k) * base ** (j - k) * std**k * math.factorial(k) * u0**k for k in range(j + 1)), arb(0)
    )
    return arb(0, (abs(as_arb(c)) * scale * bound).upper())


def _term_expectation(term: ExpTerm, u_low: arb | None, u_high: arb | None, mean: arb, std: arb) -> arb:
    """E[c·x^j·e^{λx}] over the piece u_low < u < u_high (u = t − λ·std)."""
    c, j, rate = term
    rate = as_arb(rate)
    base = mean + rate * std * std
    part = arb(0)
    for k in range(j + 1):
        part += math.comb(j, k) * base ** (j - k) * std**k * _moment_between(u_low, u_high, k)
    return as_arb(c) * (rate * mean + rate * rate * std * std / 2).exp() * part
