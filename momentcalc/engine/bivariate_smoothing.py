"""Bivariate Gaussian expectations E[g(u₁)·g(u₂)], (u₁, u₂) centred Gaussian with variance q
each and correlation c (Poole et al. 2016, Schoenholz et al. 2017: the correlation map).

Write u₁ = a·W + b·V₁ and u₂ = ±(a·W + b·V₂) with W, V₁, V₂ independent standard normals,
a = sqrt(q·|c|), b = sqrt(q·(1 − |c|)) and the sign of c. Then

    E[g(u₁)·g(u₂)] = E_W[ψ(a·W)·ψ(±a·W)],   ψ(m) = E[g(m + b·V)],

an outer Gaussian expectation of products of inner ones (the inner mean is the shared part
a·W, the inner std the private part b). ψ is a Gaussian smoothing of g, analytic even where g
has kinks, so the outer integral is a plain trapezoid sum; the inner ones are split at g's
kinks. Both levels are ``engine.gaussian_quadrature`` sums with their own convergence tests: the inner
values to ``digits + 3`` significant digits, the outer sum to ``digits``.

c = 0 factorises (E[g]²); c = ±1 reduces to the univariate E[g(u)·g(±u)].

Part of the mpmath route, which no proven digit comes from: what it is for is written once, in
``engine.gaussian_quadrature``'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath
from mpmath import mp

from ..errors import PrecisionError
from .gaussian_quadrature import gaussian_expectations

Smoothing = Callable[[mpmath.mpf], list[mpmath.mpf]]
# Inner expectations carry this many more digits than the outer sum needs.
INNER_EXTRA_DIGITS = 3


def bivariate_expectations(
    values: Callable[[mpmath.mpf], Sequence[mpmath.mpf]],
    count: int,
    *,
    q: mpmath.mpf,
    c: mpmath.mpf,
    breaks: Sequence[mpmath.mpf] = (),
    odd: Sequence[bool] = (),
    digits: int,
    dps: int,
    smoothing: Callable[[mpmath.mpf], Smoothing] | None = None,
) -> list[mpmath.mpf]:
    """E[g_i(u₁)·g_i(u₂)] for the ``count`` components g_i of ``values(x)``.

    ``q`` > 0 is the variance of u₁ and u₂, ``c`` in [−1, 1] their correlation; ``breaks``
    are the kinks of the g_i; ``odd[i]`` says that g_i is odd (its smoothing ψ_i(0) is then
    exactly 0, which quadrature alone could only approach). ``smoothing(b)``, where given,
    returns ψ in closed form (the inner expectations E[g_i(m + b·V)] as a function of m),
    instead of the adaptive inner rule for g with kinks. Each result to ``digits``
    significant digits, computed at ``dps`` decimal digits (more where a sum cancels).
    """
    odd = tuple(odd) + (False,) * (count - len(odd))
    with mp.workdps(dps):
        q, c = mpmath.mpf(q), mpmath.mpf(c)
        if c == 0 or abs(c) == 1:
            sign = 1 if c >= 0 else -1
            if c == 0:
                wanted = [i for i in range(count) if not odd[i]]
                means = [mp.zero] * count
                if wanted:
                    found = gaussian_expectations(
                        lambda x: [values(x)[i] for i in wanted],
                        len(wanted),
                        mean=0,
                        std=mpmath.sqrt(q),
                        breaks=breaks,
                        digits=digits + INNER_EXTRA_DIGITS,
                        dps=dps,
                    )
                    for i, v in zip(wanted, found):
                        means[i] = v
                return [m * m for m in means]
            return gaussian_expectations(
                lambda x: [u * v for u, v in zip(values(x), values(sign * x))],
                count,
                mean=0,
                std=mpmath.sqrt(q),
                breaks=breaks,
                digits=digits,
                dps=dps,
            )
        a = mpmath.sqrt(q * abs(c))
        b = mpmath.sqrt(q * (1 - abs(c)))
        if smoothing is not None:
            return _outer(smoothing(b), count, a, c, digits, dps)
        if breaks:
            return _outer(
                _adaptive_smoothing(values, count, b, breaks, odd, digits + INNER_EXTRA_DIGITS),
                count,
                a,
                c,
                digits,
                dps,
            )
        return _fixed_rule_levels(values, count, a, b, c, odd, digits, dps)


def _outer(
    smoothed: Smoothing, count: int, a: mpmath.mpf, c: mpmath.mpf, digits: int, dps: int
) -> list[mpmath.mpf]:
    """E_W[ψ(a·W)·ψ(±a·W)] by the (adaptive, whole-line) Gaussian rule: ψ is analytic."""

    def outer(w: mpmath.mpf) -> list[mpmath.mpf]:
        first = smoothed(a * w)
        if c > 0:
            return [v * v for v in first]
        second = smoothed(-a * w)
        return [u * v for u, v in zip(first, second)]

    return gaussian_expectations(outer, count, mean=0, std=1, digits=digits, dps=dps)


def _adaptive_smoothing(
    values: Callable[[mpmath.mpf], Sequence[mpmath.mpf]],
    count: int,
    b: mpmath.mpf,
    breaks: Sequence[mpmath.mpf],
    odd: Sequence[bool],
    digits: int,
) -> Smoothing:
    """ψ(m) = E[g(m + b·V)] by the adaptive rule split at the kinks, for every m anew (g with
    kinks: the kink moves with m, so no one rule serves all m)."""

    def smoothed(m: mpmath.mpf) -> list[mpmath.mpf]:
        wanted = [i for i in range(count) if not (m == 0 and odd[i])]
        known = [mp.zero] * count
        if wanted:
            found = gaussian_expectations(
                lambda x: [values(x)[i] for i in wanted] if len(wanted) < count else values(x),
                len(wanted),
                mean=m,
                std=b,
                breaks=breaks,
                digits=digits,
                dps=mp.dps,
            )
            for i, v in zip(wanted, found):
                known[i] = v
        return known

    return smoothed


# Smooth g: product trapezoid with step 2^-level in both variables, levels from FIRST_LEVEL.
FIRST_LEVEL, MAX_LEVEL = 1, 8
QUIET_TERMS = 3
# Accept level L + 1 when SAFETY·(relative change)^ORDER is below the tolerance (the
# trapezoid error of an analytic integrand about squares when the step halves).
ORDER, SAFETY = 2, 10
# A tail still significant this far out (in units of the Gaussian edge) does not decay.
MAX_REACH = 4


def _fixed_rule_levels(
    values: Callable[[mpmath.mpf], Sequence[mpmath.mpf]],
    count: int,
    a: mpmath.mpf,
    b: mpmath.mpf,
    c: mpmath.mpf,
    odd: Sequence[bool],
    digits: int,
    dps: int,
) -> list[mpmath.mpf]:
    """g analytic: the product trapezoid rule, step h in both w and v,

        E ≈ h·Σ_j ϕ(w_j)·ψ(a·w_j)·ψ(±a·w_j),   ψ(m) ≈ h·Σ_k ϕ(v_k)·g(m + b·v_k),

    with h halved until two levels agree (the strip where v -> g(m + b·v) is analytic does
    not depend on m, so one step serves every m). Each sum marches outward until
    QUIET_TERMS terms in a row are negligible past the Gaussian bulk. Inner sums are kept
    per node and refined by the new nodes only; the weights ϕ(k·h) are shared by all nodes.
    """
    work = dps
    for _ in range(3):
        with mp.workdps(work):
            sums, absolutes = _product_levels(values, count, mpmath.mpf(a), mpmath.mpf(b), c, digits)
            lost = max(
                (int(mpmath.log10(t / abs(v))) + 1 if v else work for v, t in zip(sums, absolutes) if t),
                default=0,
            )
            if work - lost >= digits + 6:
                return [+v for v in sums]
        work = dps + lost + 6
    raise PrecisionError(
        f"the bivariate expectation cancels to below {digits} significant digits "
        f"(it may be exactly 0) within {work} digits of working precision"
    )


def _product_levels(
    values: Callable[[mpmath.mpf], Sequence[mpmath.mpf]],
    count: int,
    a: mpmath.mpf,
    b: mpmath.mpf,
    c: mpmath.mpf,
    digits: int,
) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """The product trapezoid sums on a lattice: outer step h_w = h, inner step h_v in
    (h/2, h] chosen so that every argument a·w_j + b·v_k = δ·(P·j + Q·k) with whole P, Q, one
    of them 1. Arguments then repeat across outer nodes, and g is evaluated once per lattice
    point (a few times the nodes of one axis instead of their product)."""
    rtol = mpmath.mpf(10) ** -(digits + 3)
    quiet_rtol = rtol / 1000
    edge = mpmath.sqrt(2 * mpmath.log(1000 / rtol))
    norm = 1 / mpmath.sqrt(2 * mp.pi)
    finest = 2**MAX_LEVEL
    unit = mpmath.mpf(1) / finest
    if b >= a:  # a·h = δ, b·h_v = Q·δ
        p_, q_ = 1, max(1, int(mpmath.floor(b / a)))
        ratio = a * q_ / b  # h_v / h
        delta0 = a * unit
    else:  # a·h = P·δ, b·h_v = δ
        p_, q_ = max(1, int(mpmath.ceil(a / b))), 1
        ratio = a / (b * p_)
        delta0 = a * unit / p_
    evaluated: dict[int, Sequence[mpmath.mpf]] = {}  # lattice index (units of delta0) -> g
    density: dict[int, dict[int, mpmath.mpf]] = {}

    def g_at(n: int) -> Sequence[mpmath.mpf]:
        if n not in evaluated:
            evaluated[n] = values(delta0 * n)
        return evaluated[n]

    def weights(step: mpmath.mpf, key: int) -> Callable[[int], mpmath.mpf]:
        table = density.setdefault(key, {})

        def weight(k: int) -> mpmath.mpf:
            if k not in table:
                v = k * step
                table[k] = norm * mpmath.exp(-v * v / 2)
            return table[k]

        return weight

    def march(add: Callable[[int, bool], bool], step: mpmath.mpf) -> None:
        """Nodes k = 0, 1, … and −1, −2, …: every node within the Gaussian edge, then on
        until QUIET_TERMS negligible terms in a row (only those are tested)."""
        bulk = int(mpmath.floor(edge / step))
        reach = int(mpmath.ceil(MAX_REACH * edge / step))
        for direction in (1, -1):
            k = 0 if direction == 1 else -1
            while abs(k) <= bulk:
                add(k, False)
                k += direction
            quiet = 0
            while quiet < QUIET_TERMS:
                quiet = 0 if add(k, True) else quiet + 1
                if abs(k) > reach:
                    raise PrecisionError("the bivariate Gaussian integral converges too slowly in the tails")
                k += direction

    previous = None
    for level in range(FIRST_LEVEL, MAX_LEVEL + 1):
        stride = finest >> level
        h = stride * unit
        h_v = h * ratio
        inner: dict[int, list[mpmath.mpf]] = {}
        inner_weight = weights(h_v, -level)
        outer_weight = weights(h, level)

        def psi(j: int) -> list[mpmath.mpf]:
            if j not in inner:
                raw, absolute = [mp.zero] * count, [mp.zero] * count
                base = stride * p_ * j
                step_k = stride * q_

                def add(k: int, check: bool) -> bool:
                    wk = inner_weight(k)
                    got = g_at(base + step_k * k)
                    loud = False
                    for i in range(count):
                        term = wk * got[i]
                        raw[i] += term
                        if check:
                            if abs(term) > quiet_rtol * absolute[i]:
                                loud = True
                            absolute[i] += abs(term)
                        else:
                            absolute[i] += abs(term)
                    return loud

                march(add, h_v)
                inner[j] = [r * h_v for r in raw]
            return inner[j]

        totals, absolutes = [mp.zero] * count, [mp.zero] * count

        def add_outer(j: int, check: bool) -> bool:
            first = psi(j)
            second = first if c > 0 else psi(-j)
            wj = outer_weight(j)
            loud = False
            for i in range(count):
                term = wj * first[i] * second[i]
                totals[i] += term
                absolutes[i] += abs(term)
                if check and abs(term) > quiet_rtol * absolutes[i]:
                    loud = True
            return loud

        march(add_outer, h)
        current = [t * h for t in totals]
        if previous is not None:
            worst = mp.zero
            for old, new, size in zip(previous, current, absolutes):
                scale = max(abs(new), abs(old), size * h * mpmath.mpf(10) ** (-mp.dps) * 1000 / rtol)
                if scale:
                    worst = max(worst, abs(new - old) / scale)
            if worst < mpmath.mpf(10) ** -3 and SAFETY * worst**ORDER <= rtol:
                return current, [t * h for t in absolutes]
        previous = current
    raise PrecisionError("the bivariate Gaussian expectation did not converge at the finest step")
