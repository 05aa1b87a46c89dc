"""Where an expression is not smooth or not defined: the zeros and near-zeros of its
critical parts (points to split the quadrature at), the wrapper that turns ``Undefined``,
``Singular`` and ``TooLarge`` into InputErrors naming the activation, and the scan that
reports an expression undefined on a set of positive probability.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import mpmath
from mpmath import mp

from .expression_tree import Singular, SingularInput, TooLarge, Undefined, UndefinedInput


GRID_POINTS = 401


def _safe(g: Callable[[mpmath.mpf], mpmath.mpf], x: mpmath.mpf) -> mpmath.mpf | None:
    try:
        value = g(x)
    except (ArithmeticError, ValueError):
        return None
    if not isinstance(value, mpmath.mpf) or not mpmath.isfinite(value):
        return None
    return value


def _refine_sign_change(
    g: Callable[[mpmath.mpf], mpmath.mpf], a: mpmath.mpf, b: mpmath.mpf, ga: mpmath.mpf
) -> mpmath.mpf | None:
    """Bisection to full precision (robust for kinks and for functions with poles)."""
    for _ in range(mp.prec + 10):
        mid = (a + b) / 2
        if mid in (a, b):
            break
        gm = _safe(g, mid)
        if gm is None:
            return None
        if gm == 0:
            return mid
        if (gm > 0) == (ga > 0):
            a, ga = mid, gm
        else:
            b = mid
    return (a + b) / 2


def _refine_minimum(g: Callable[[mpmath.mpf], mpmath.mpf], a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf | None:
    """The minimiser of |g| on [a, b] by golden section, to the precision: a zero where g
    does not change sign (x**2 in a denominator), or a point where a denominator comes
    close to 0 and the function has a narrow peak — either way a point to split at."""
    ratio = (mpmath.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = _safe(g, c), _safe(g, d)
    if fc is None or fd is None:
        return None
    for _ in range(int(mp.prec * 1.5) + 10):
        if abs(fc) < abs(fd):
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = _safe(g, c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = _safe(g, d)
        if fc is None or fd is None or b - a <= abs(a) * mpmath.eps * 4 + mpmath.eps:
            break
    return (a + b) / 2


def zeros(
    g: Callable[[mpmath.mpf], mpmath.mpf],
    low: mpmath.mpf,
    high: mpmath.mpf,
    extra: tuple[mpmath.mpf, ...] = (),
) -> list[mpmath.mpf]:
    """Points to split at on [low, high], to the current precision: real zeros of g (exact
    zeros at grid points and at ``extra`` points, sign changes by bisection) and the local
    minima of |g| (touching zeros, near-zeros of denominators)."""
    step = (high - low) / (GRID_POINTS - 1)
    # The grid is non-decreasing (rounding is monotone): the extra points go in by bisection,
    # and equal neighbours are dropped (what sorted(set(...)) would give, without hashing mpfs).
    grid = [low + i * step for i in range(GRID_POINTS)]
    for p in extra:
        if low <= p <= high:
            grid.insert(bisect.bisect_left(grid, p), p)
    grid = [x for i, x in enumerate(grid) if i == 0 or x != grid[i - 1]]
    values = [(x, _safe(g, x)) for x in grid]
    # Per point, once: g = 0, g > 0 and |g| (None where g is undefined).
    zero = [gx is not None and gx == 0 for _, gx in values]
    positive = [gx is not None and gx > 0 for _, gx in values]
    size = [abs(gx) if gx is not None else None for _, gx in values]
    found: list[mpmath.mpf] = []
    last = len(values) - 1
    for i, (x, gx) in enumerate(values):
        if zero[i]:
            found.append(x)
            continue
        if i < last:
            y, gy = values[i + 1]
            if gx is not None and gy is not None and not zero[i + 1] and positive[i] != positive[i + 1]:
                root = _refine_sign_change(g, x, y, gx)
                if root is not None:
                    found.append(root)
        if 0 < i < last and gx is not None:
            before, after = size[i - 1], size[i + 1]
            if (
                before is not None
                and after is not None
                and positive[i - 1] == positive[i] == positive[i + 1]
                and size[i] <= before
                and size[i] <= after
                and (size[i] < before or size[i] < after)
            ):
                root = _refine_minimum(g, values[i - 1][0], values[i + 1][0])
                if root is not None:
                    found.append(root)
    unique: list[mpmath.mpf] = []
    for r in sorted(found):
        if not unique or abs(r - unique[-1]) > mpmath.eps * max(1, abs(r)) * 16:
            unique.append(r)
    return unique


def _checked(fn: Callable[[mpmath.mpf], mpmath.mpf], label: str) -> Callable[[mpmath.mpf], mpmath.mpf]:
    def evaluate(x: mpmath.mpf) -> mpmath.mpf:
        try:
            value = fn(x)
        except Undefined as error:
            raise UndefinedInput(
                f"{{activation}} {label!r} is not defined at x = {mpmath.nstr(x, 6)} ({error}), "
                "so on a set of positive probability; moments need a real value everywhere"
            ) from None
        except (Singular, ZeroDivisionError) as error:
            raise SingularInput(
                f"{{activation}} {label!r} is singular at x = {mpmath.nstr(x, 6)} ({error}); its moments do not exist"
            ) from None
        except (TooLarge, OverflowError, MemoryError) as error:
            raise SingularInput(
                f"{{activation}} {label!r} grows too fast at x = {mpmath.nstr(x, 6)} ({error}): "
                "its moments diverge for a Gaussian input"
            ) from None
        if not isinstance(value, mpmath.mpf):
            raise UndefinedInput(f"{{activation}} {label!r} has no real value at x = {mpmath.nstr(x, 6)}")
        if not mpmath.isfinite(value):
            raise SingularInput(
                f"{{activation}} {label!r} is infinite at x = {mpmath.nstr(x, 6)}; its moments do not exist"
            )
        return value

    return evaluate


SCAN_POINTS = 97
SCAN_HALF_WIDTH = 6


def check_defined(fn: Callable[[mpmath.mpf], mpmath.mpf], mean: mpmath.mpf, std: mpmath.mpf) -> None:
    """Evaluate φ across mean ± 6·std first, so that an expression undefined on a set of
    positive probability is reported as such (UndefinedInput) before any integral is judged.
    Isolated singular points (sin(x)/x at 0) are left to the quadrature."""
    for i in range(SCAN_POINTS):
        x = mean + std * SCAN_HALF_WIDTH * (2 * mpmath.mpf(i) / (SCAN_POINTS - 1) - 1)
        try:
            fn(x)
        except SingularInput:
            continue
