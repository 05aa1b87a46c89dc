"""A double-precision survey of deep kernel shaping's constraint curve, for starting points and
for saying what was searched (Martens et al., 2021, "Rapid training of deep neural networks
without skip connections or normalization layers"). Nothing here is printed as a result: a
point found here is only where ``dks.locate``'s certified Newton iteration starts.

With X = a·Z + b, DKS's two conditions on (a, b) are (``dks``)

    q(a, b) = E[(X − b)·(φ(X) − μ)·φ'(X)] / Var φ(X) = 1      (the local Q'(1); μ = E[φ(X)])
    t(a, b) = a²·E[φ'(X)²] / Var φ(X) = target                (the local C'(1))

For each a on a logarithmic grid the roots b of q(a, ·) = 1 are bracketed on a grid of b (the
curve Q'(1) = 1), t is read along them, and the curve points whose t is nearest the target
are polished by Newton's method in double precision. The expectations are trapezoidal sums on
one grid x = sinh(s) (dense near 0, where activations bend, sparse far out, where they are
nearly linear), φ and φ' evaluated once by mpmath at double precision.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import mpmath

# The region searched: a from 10^LOG_A[0] to 10^LOG_A[1] (PER_DECADE points a decade), b from
# −B_SPAN − B_RATIO·a to B_SPAN + B_RATIO·a.
LOG_A = (-2.0, 3.0)
PER_DECADE = 8
B_SPAN, B_RATIO, B_POINTS = 8.0, 6.0, 49
DS = 0.0025  # the sinh grid's step in s (x = sinh(s)): spacing ≤ 0.0025 near 0
X_MAX = 2.0e4
NOISE = 1e-9  # |q − 1| below this is not trusted to have a sign


class Survey(NamedTuple):
    """The curve points found (a, b, t) and the region searched."""

    points: tuple[tuple[float, float, float], ...]
    a_range: tuple[float, float]
    b_span: tuple[float, float]

    def lowest(self) -> tuple[float, float, float] | None:
        return min(self.points, key=lambda p: p[2], default=None)

    def highest(self) -> tuple[float, float, float] | None:
        return max(self.points, key=lambda p: p[2], default=None)


class _Grid:
    """φ and φ' on the sinh grid, and the survey's expectations from them."""

    def __init__(self, act: Any) -> None:
        import numpy as np

        self.np = np
        s_max = math.asinh(X_MAX)
        with mpmath.workprec(64):
            params = act.param_values()
            found = act.breaks(params, mpmath.mpf(0), mpmath.mpf(50), mpmath.mpf(1)) if act.expression else ()
            kinks = sorted({float(k) for k in tuple(act.kinks(params)) + tuple(found) if abs(k) < X_MAX})
        # Uniform in s between the kinks (Simpson's rule on each piece, its ends at the kinks
        # with φ' from their own side: a jump of φ' costs O(h⁴), not O(h)).
        ends = [-s_max] + [math.asinh(k) for k in kinks] + [s_max]
        s_parts, w_parts, sides = [], [], []
        for left, right in zip(ends, ends[1:]):
            steps = 2 * max(1, math.ceil((right - left) / (2 * DS)))
            piece = np.linspace(left, right, steps + 1)
            weights = np.full(piece.shape, 2.0)
            weights[1::2] = 4.0
            weights[0] = weights[-1] = 1.0
            weights *= (right - left) / steps / 3
            side = np.zeros(piece.shape)
            side[0], side[-1] = 1, -1  # at a kink: the derivative from inside this piece
            s_parts.append(piece)
            w_parts.append(weights * np.cosh(piece))
            sides.append(side)
        s = np.concatenate(s_parts)
        x = np.sinh(s)
        for i, k in enumerate(kinks):  # the kinks themselves, not sinh(asinh(k))
            x[sum(len(p) for p in s_parts[: i + 1]) - 1] = k
            x[sum(len(p) for p in s_parts[: i + 1])] = k
        side = np.concatenate(sides)
        values = np.full(x.shape, np.nan)
        slopes = np.full(x.shape, np.nan)
        with mpmath.workprec(64):
            for i, xi in enumerate(x):
                try:
                    point = mpmath.mpf(float(xi))
                    values[i] = float(act.fn(point, params))
                    near = point + side[i] * mpmath.mpf(2) ** -40 * max(1, abs(point)) if side[i] else point
                    slopes[i] = float(act.derivative(near, params))
                except (ArithmeticError, ValueError, TypeError, OverflowError):
                    continue
        ok = np.isfinite(values) & np.isfinite(slopes) & (np.abs(values) < 1e100) & (np.abs(slopes) < 1e100)
        # The finite stretch around 0 (an activation that overflows far out is searched only
        # where its Gaussian integrals live inside it).
        centre = len(x) // 2
        lo = centre
        while lo > 0 and ok[lo - 1]:
            lo -= 1
        hi = centre
        while hi < len(x) - 1 and ok[hi + 1]:
            hi += 1
        self.x = x[lo : hi + 1]
        self.f = values[lo : hi + 1]
        self.df = slopes[lo : hi + 1]
        self.w = np.concatenate(w_parts)[lo : hi + 1]
        self.reach = (float(self.x[0]), float(self.x[-1]))

    def covers(self, a: float, b: float) -> bool:
        """Whether N(b, a²) lies inside the grid and the grid resolves it (spacing ≤ a/6)."""
        far = abs(b) + 3 * a
        return (
            self.reach[0] <= b - 12 * a
            and b + 12 * a <= self.reach[1]
            and math.sqrt(1 + far * far) * DS <= a / 6
        )

    def q_and_t(self, a: float, bs: Any) -> tuple[Any, Any]:
        """q(a, b) − 1 and t(a, b) for each b in ``bs`` (nan where the grid cannot tell)."""
        np = self.np
        bs = np.atleast_1d(np.asarray(bs, dtype=float))
        lo, hi = np.searchsorted(self.x, [bs.min() - 12 * a, bs.max() + 12 * a])
        x, f, df = self.x[lo:hi], self.f[lo:hi], self.df[lo:hi]
        z = (x[None, :] - bs[:, None]) / a
        weights = np.exp(-0.5 * z * z) * self.w[None, lo:hi]
        total = weights.sum(axis=1)
        weights /= total[:, None]
        mu = weights @ f
        centred = f[None, :] - mu[:, None]
        var = (weights * centred * centred).sum(axis=1)
        q = (weights * (z * a) * centred * df[None, :]).sum(axis=1)
        slope2 = weights @ (df * df)
        with np.errstate(divide="ignore", invalid="ignore"):
            # a variance below 1e-18·μ² is rounding left by cancellation: no sign to trust
            ok = var > 1e-18 * mu * mu
            q_minus = np.where(ok, q / var - 1, np.nan)
            t = np.where(ok, a * a * slope2 / var, np.nan)
        return q_minus, t


_GRIDS: dict[tuple, _Grid] = {}
_SURVEYS: dict[tuple, tuple[Survey, list[tuple[float, float]]]] = {}


def survey(act: Any, target: float) -> tuple[Survey, list[tuple[float, float]]]:
    """The curve Q'(1) = 1 on the searched region, and starting points (a, b) for ``target``
    (each polished by Newton's method in double precision; smallest a first)."""
    import numpy as np

    key = (act.name, act.formula, act.values, act.expression)
    if (key, target) in _SURVEYS:
        return _SURVEYS[key, target]
    grid = _GRIDS.get(key)
    if grid is None:
        grid = _GRIDS[key] = _Grid(act)
    a_values = 10.0 ** np.arange(LOG_A[0], LOG_A[1] + 1e-9, 1.0 / PER_DECADE)
    points: list[tuple[float, float, float]] = []
    searched = [math.inf, 0.0]
    span = 0.0
    for a in a_values:
        width = B_SPAN + B_RATIO * a
        bs = np.linspace(-width, width, B_POINTS)
        bs = bs[[grid.covers(a, b) for b in bs]]
        if len(bs) < 2:
            continue
        searched = [min(searched[0], a), max(searched[1], a)]
        span = max(span, width)
        q, _t = grid.q_and_t(a, bs)
        for i in range(len(bs) - 1):
            q0, q1 = q[i], q[i + 1]
            if not (abs(q0) > NOISE and abs(q1) > NOISE and q0 * q1 < 0):
                continue
            b = _secant(lambda b: float(grid.q_and_t(a, b)[0][0]), bs[i], bs[i + 1], q0, q1)
            tb = float(grid.q_and_t(a, b)[1][0])
            if math.isfinite(tb) and tb >= 1:  # C'(1) ≥ 1 always (Gaussian Poincaré): less is noise
                points.append((float(a), b, tb))
    result = Survey(tuple(points), (searched[0], searched[1]) if searched[1] else (0.0, 0.0), (-span, span))
    gap = target - 1
    ranked = sorted(
        points,
        key=lambda p: abs(math.log(p[2] - 1) - math.log(gap)) if p[2] > 1 and gap > 0 else abs(p[2] - target),
    )
    starts: list[tuple[float, float]] = []
    for a, b in _crossings(points, target)[:8] + [(a, b) for a, b, _ in ranked[:8]]:
        polished = _polish(grid, a, b, target)
        if polished is not None and not any(
            abs(polished[0] - x) < 1e-6 * x and abs(polished[1] - y) < 1e-6 * (1 + abs(y)) for x, y in starts
        ):
            starts.append(polished)
    # the smallest input scale first (a deterministic choice among several transforms)
    _SURVEYS[key, target] = result, sorted(starts)
    return _SURVEYS[key, target]


def _crossings(points: list[tuple[float, float, float]], target: float) -> list[tuple[float, float]]:
    """Where a branch of the curve crosses the target between two neighbouring a's: each point
    is joined to the nearest point (in b) of the next a, and (log a, b) interpolated linearly."""
    by_a: dict[float, list[tuple[float, float]]] = {}
    for a, b, t in points:
        by_a.setdefault(a, []).append((b, t))
    scales = sorted(by_a)
    out = []
    for a0, a1 in zip(scales, scales[1:]):
        for b0, t0 in by_a[a0]:
            b1, t1 = min(by_a[a1], key=lambda p: abs(p[0] - b0))
            if abs(b1 - b0) > 1 + a1 or (t0 - target) * (t1 - target) > 0 or t0 == t1:
                continue
            f = (target - t0) / (t1 - t0)
            out.append((math.exp((1 - f) * math.log(a0) + f * math.log(a1)), (1 - f) * b0 + f * b1))
    return out


def _secant(fn: Any, lo: float, hi: float, f_lo: float, f_hi: float) -> float:
    """A root of fn between lo and hi (f_lo, f_hi of opposite signs): regula falsi, Illinois."""
    side = 0
    for _ in range(60):
        mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        f_mid = fn(mid)
        if not math.isfinite(f_mid) or f_mid == 0 or abs(hi - lo) < 1e-13 * (1 + abs(mid)):
            return mid
        if f_mid * f_hi < 0:
            lo, f_lo = hi, f_hi
            if side == -1:
                f_lo /= 2
            side = -1
        else:
            if side == 1:
                f_lo /= 2
            side = 1
        hi, f_hi = mid, f_mid
    return (lo + hi) / 2


def _polish(grid: _Grid, a: float, b: float, target: float) -> tuple[float, float] | None:
    """Newton's method on (q − 1, t − target) in (log a, b), finite differences, damped."""

    def residual(la: float, bb: float) -> tuple[float, float]:
        aa = math.exp(la)
        if not grid.covers(aa, bb):
            raise ValueError
        q, t = grid.q_and_t(aa, bb)
        return float(q[0]), float(t[0]) - target

    la = math.log(a)
    try:
        for _ in range(30):
            r0, r1 = residual(la, b)
            if not (math.isfinite(r0) and math.isfinite(r1)):
                return None
            if abs(r0) < 1e-11 and abs(r1) < 1e-11 * target:
                return math.exp(la), b
            h = 1e-6
            qa, ta = residual(la + h, b)
            qb, tb = residual(la, b + h * (1 + abs(b)))
            j11, j12 = (qa - r0) / h, (qb - r0) / (h * (1 + abs(b)))
            j21, j22 = (ta - r1) / h, (tb - r1) / (h * (1 + abs(b)))
            det = j11 * j22 - j12 * j21
            if det == 0 or not math.isfinite(det):
                return None
            d_la = (j22 * r0 - j12 * r1) / det
            d_b = (-j21 * r0 + j11 * r1) / det
            step = max(abs(d_la), abs(d_b) / (1 + abs(b)))
            damp = min(1.0, 0.5 / step) if step > 0 else 1.0
            la -= damp * d_la
            b -= damp * d_b
    except ValueError:
        return None
    return None


def screened(act: Any, a: float, b: float, target: float) -> tuple[float, float] | None:
    """``dks.locate``'s damped Newton iteration from (a, b), run here in double precision on the
    survey's grid: None when it leaves the searched region or stalls (then the certified
    iteration, seconds long for some activations, is not worth starting), the point it converged
    to when it converges (the certified iteration starts there, a few of its steps saved), and
    (a, b) itself when the grid cannot tell."""
    key = (act.name, act.formula, act.values, act.expression)
    grid = _GRIDS.get(key)
    if grid is None:
        grid = _GRIDS[key] = _Grid(act)

    def residual(aa: float, bb: float) -> tuple[float, float]:
        if not grid.covers(aa, bb):
            raise ValueError
        q, t = grid.q_and_t(aa, bb)
        return float(q[0]), float(t[0]) - target

    a_start, b_start = a, b
    try:
        for _ in range(40):
            r0, r1 = residual(a, b)
            h_a, h_b = 1e-7 * a, 1e-7 * (1 + abs(b))
            qa, ta = residual(a + h_a, b)
            qb, tb = residual(a, b + h_b)
            j11, j12, j21, j22 = (qa - r0) / h_a, (qb - r0) / h_b, (ta - r1) / h_a, (tb - r1) / h_b
            det = j11 * j22 - j12 * j21
            if not all(map(math.isfinite, (r0, r1, det))) or det == 0:
                return a_start, b_start
            step_a = (j22 * r0 - j12 * r1) / det
            step_b = (-j21 * r0 + j11 * r1) / det
            a_new, b_new = a - step_a, b - step_b
            if a_new <= 0 or abs(b_new) > max(100, 4 * abs(b)) or a_new > max(100, 4 * a):
                return None
            a, b = min(max(a_new, a / 2), a * 2), b_new
            if max(abs(step_a), abs(step_b)) < 1e-7 * (1 + a + abs(b)):
                return a, b
    except ValueError:
        return a_start, b_start
    return None


def top(act: Any, point: tuple[float, float, float]) -> tuple[float, float, float]:
    """The largest t on the curve q = 1 near a surveyed ``point`` (a, b, t), in double precision:
    the curve is followed through one grid step either side of the point, parametrized by log a
    or by b (whichever q depends on less there, so that the other is solved for away from a
    fold), and its t maximized by golden-section search. The point itself when that fails."""
    key = (act.name, act.formula, act.values, act.expression)
    grid = _GRIDS.get(key)
    if grid is None:
        grid = _GRIDS[key] = _Grid(act)
    a, b, t = point

    def q_t(la: float, bb: float) -> tuple[float, float]:
        aa = math.exp(la)
        if not grid.covers(aa, bb):
            return math.nan, math.nan
        q, tt = grid.q_and_t(aa, bb)
        return float(q[0]), float(tt[0])

    la = math.log(a)
    step_la = math.log(10) / PER_DECADE
    step_b = 2 * (B_SPAN + B_RATIO * a) / (B_POINTS - 1)
    h = 1e-6
    slope_la = (q_t(la + h, b)[0] - q_t(la - h, b)[0]) / (2 * h)
    slope_b = (q_t(la, b + h * (1 + abs(b)))[0] - q_t(la, b - h * (1 + abs(b)))[0]) / (2 * h * (1 + abs(b)))
    if not (math.isfinite(slope_la) and math.isfinite(slope_b)):
        return point
    by_la = abs(slope_la) * step_la <= abs(slope_b) * step_b  # follow log a, solve for b
    start, width = (la, step_la) if by_la else (b, step_b)
    other = [b if by_la else la]

    def along(p: float) -> float:
        """t where the curve crosses the line at p, the crossing found by the secant method."""

        def q_of(x: float) -> float:
            return q_t(p, x)[0] if by_la else q_t(x, p)[0]

        x0 = other[0]
        x1 = x0 + 1e-4 * (step_b if by_la else step_la)
        f0, f1 = q_of(x0), q_of(x1)
        for _ in range(40):
            if not (math.isfinite(f0) and math.isfinite(f1)) or f0 == f1:
                return -math.inf
            x0, x1, f0 = x1, x1 - f1 * (x1 - x0) / (f1 - f0), f1
            f1 = q_of(x1)
            if abs(x1 - (b if by_la else la)) > 2 * (step_b if by_la else step_la):
                return -math.inf
            if abs(f1) < 1e-11:
                other[0] = x1
                value = q_t(p, x1)[1] if by_la else q_t(x1, p)[1]
                return value if math.isfinite(value) else -math.inf
        return -math.inf

    best = point
    golden = (math.sqrt(5) - 1) / 2
    lo, hi = start - width, start + width
    p1, p2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
    other[0] = b if by_la else la
    f1 = along(p1)
    f2 = along(p2)
    for _ in range(40):
        if f1 > f2:
            hi, p2, f2 = p2, p1, f1
            p1 = hi - golden * (hi - lo)
            f1 = along(p1)
        else:
            lo, p1, f1 = p1, p2, f2
            p2 = lo + golden * (hi - lo)
            f2 = along(p2)
    p = p1 if f1 > f2 else p2
    value = along(p)
    if value > t:
        best = (math.exp(p), other[0], value) if by_la else (math.exp(other[0]), p, value)
    return best


__all__ = ["Survey", "screened", "survey", "top"]
