"""A user expression as a piecewise exp-polynomial, where it is one: abs(x), max(x, 0),
min(x, 1), x*abs(x), max(x, 0)**2, exp(x/2)*max(-x, 0)… — on each interval between the kinks,
Σ c·x^j·e^{λx} with rational c and λ (``engine.gaussian_balls.ExpTerm``), the form the exact
Gaussian expectations of ``catalog.ball_functions.EXP_POLYNOMIALS`` take.

The kinks are the zeros of the kink arguments (of abs, sign, step, and a − b of max(a, b),
min(a, b)); each argument must be affine between the kinks of the arguments inside it
(min(max(x, −1), 1), abs(abs(x) − 1)); its zeros are rationals (one that is not dyadic, 1/3,
is a ball to the integrators, which cut at its midpoint and bound the sliver in between). On
each interval the sign of every argument is fixed (read exactly at a rational point inside
it) and the branch tree is expanded: numbers, x, +, −, ×, division by a nonzero number,
whole powers up to ``MAX_POWER``, and exp, sinh, cosh of c·x, as long as the expansion stays within
``MAX_DEGREE`` in x and ``MAX_TERMS`` terms (relu's powers max(x, 0)**n, whose kernels are
Cho & Saul's arc-cosine kernels J_n, are exact up to n = 64; ((1 + x)**64)**64 is not expanded).
Anything else (another function, π or e, a kink argument that is not affine) gives None.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypeVar, cast

from .expression_ball import kink_argument, kink_arguments, removable
from .expression_calculus import derivative
from .expression_tree import Node
from ..engine.gaussian_balls import ExpTerm

T = TypeVar("T")

# Whole powers expanded up to this exponent (a higher one: None), and the largest expansion
# kept: the degree in x and the number of terms (beyond either: None, the other routes). The
# integrands of the exact routes have twice the degree (``moments.exact.MAX_EXACT_DEGREE``).
MAX_POWER = 64
MAX_DEGREE = 64
MAX_TERMS = 512

# {(power of x, rate λ): coefficient}
Poly = dict[tuple[int, Fraction], Fraction]


def _constant(value: Fraction) -> Poly:
    return {(0, Fraction(0)): Fraction(value)} if value != 0 else {}


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly | None:
    out = dict(a)
    for key, c in b.items():
        out[key] = out.get(key, Fraction(0)) + sign * c
        if out[key] == 0:
            del out[key]
    return _capped(out)


def _capped(p: Poly | None) -> Poly | None:
    """``p``, or None when it is beyond ``MAX_DEGREE`` or ``MAX_TERMS``."""
    if p is None or len(p) > MAX_TERMS or any(j > MAX_DEGREE for j, _ in p):
        return None
    return p


def _mul(a: Poly, b: Poly) -> Poly | None:
    if max((j for j, _ in a), default=0) + max((j for j, _ in b), default=0) > MAX_DEGREE:
        return None
    out: Poly = {}
    for (j, r), c in a.items():
        for (k, s), d in b.items():
            key = (j + k, r + s)
            out[key] = out.get(key, Fraction(0)) + c * d
            if out[key] == 0:
                del out[key]
    return _capped(out)


def _as_number(p: Poly) -> Fraction | None:
    if not p:
        return Fraction(0)
    if set(p) == {(0, Fraction(0))}:
        return p[0, Fraction(0)]
    return None


def _all(items: list[T | None]) -> list[T] | None:
    """The items, or None when one of them is None (an operand with no exact form)."""
    return None if any(item is None for item in items) else cast("list[T]", items)


def expand(node: Node, signs: dict[Node, int]) -> Poly | None:
    """The tree on an interval where each kink argument has the sign ``signs`` gives it."""
    kind = node.kind
    if kind == "num":
        return _constant(node.value)
    if kind == "x":
        return {(1, Fraction(0)): Fraction(1)}
    if kind == "const":
        return None
    if kind == "call":
        return _call(node, signs)
    parts = _all([expand(a, signs) for a in node.args])
    if parts is None:
        return None
    if kind == "neg":
        return _add({}, parts[0], -1)
    a, b = parts
    if kind == "add":
        return _add(a, b)
    if kind == "sub":
        return _add(a, b, -1)
    if kind in ("mul", "chain"):
        return _mul(a, b)
    if kind == "div":
        d = _as_number(b)
        return None if not d else _mul(a, _constant(1 / d))
    if kind == "pow":
        n = _as_number(b)
        if n is None or n.denominator != 1 or not 0 <= n <= MAX_POWER:
            return None
        out = _constant(Fraction(1))
        for _ in range(int(n)):
            product = _mul(out, a)
            if product is None:
                return None
            out = product
        return out
    return None


def _call(node: Node, signs: dict[Node, int]) -> Poly | None:
    name = node.value
    if name in ("abs", "max", "min", "sign", "step"):
        sign = _sign(kink_argument(node), signs)
        if sign is None:
            return None
        if name == "sign":
            return _constant(Fraction(sign))
        if name == "step":
            return _constant(Fraction(1 if sign > 0 else 0))
        if name == "abs":
            inner = expand(node.args[0], signs)
            return None if inner is None else _add({}, inner, sign)
        first = (sign > 0) == (name == "max")
        return expand(node.args[0 if first else 1], signs)
    if name in ("exp", "sinh", "cosh"):
        inner = expand(node.args[0], signs)
        if inner is None or any(j != 1 or r != 0 for j, r in inner):
            return None  # only e^{c·x}: e^{b} of a constant b ≠ 0 is not rational
        rate = inner.get((1, Fraction(0)), Fraction(0))
        if name == "exp":
            return {(0, rate): Fraction(1)}
        # sinh(c·x) = (e^{cx} − e^{−cx})/2, cosh(c·x) = (e^{cx} + e^{−cx})/2
        return _add(
            _constant_rate(rate, Fraction(1, 2)),
            _constant_rate(-rate, Fraction(1 if name == "cosh" else -1, 2)),
        )
    return None


def _constant_rate(rate: Fraction, c: Fraction) -> Poly:
    return {(0, rate): c}


def _sign(arg: Node | None, signs: dict[Node, int]) -> int | None:
    if arg is None:
        return None
    if arg in signs:
        return signs[arg]
    if arg.has_x:
        return None
    p = expand(arg, {})
    value = None if p is None else _as_number(p)
    if value is None:
        return None
    return (value > 0) - (value < 0)


def _value(node: Node, x: Fraction) -> Fraction | None:
    """The tree at a rational x, exactly (None where it is not rational there: exp, π, e)."""
    kind = node.kind
    if kind == "num":
        return Fraction(node.value)
    if kind == "x":
        return x
    if kind == "call" and node.value in ("abs", "max", "min", "sign", "step"):
        values = _all([_value(a, x) for a in node.args])
        if values is None:
            return None
        a = values[0]
        if node.value == "abs":
            return abs(a)
        if node.value == "max":
            return max(values)
        if node.value == "min":
            return min(values)
        if node.value == "sign":
            return Fraction((a > 0) - (a < 0))
        return Fraction(1 if a > 0 else 0)
    if kind in ("const", "call"):
        return None
    values = _all([_value(a, x) for a in node.args])
    if values is None:
        return None
    if kind == "neg":
        return -values[0]
    a, b = values
    if kind == "add":
        return a + b
    if kind == "sub":
        return a - b
    if kind in ("mul", "chain"):
        return a * b
    if kind == "div":
        return None if b == 0 else a / b
    if kind == "pow" and b.denominator == 1 and 0 <= b <= MAX_POWER:
        return a ** int(b)
    return None


def _depth(node: Node) -> int:
    """How deeply kink calls nest in the tree."""
    inner = max((_depth(a) for a in node.args), default=0)
    return inner + (1 if kink_argument(node) is not None else 0)


def _tests(points: list[Fraction]) -> list[Fraction]:
    """A rational point inside each interval between the (sorted) points."""
    edges: list[Fraction | None] = [None, *points, None]
    out = []
    for low, high in zip(edges, edges[1:]):
        if low is None:
            out.append(Fraction(0) if high is None else high - 1)
        elif high is None:
            out.append(low + 1)
        else:
            out.append((low + high) / 2)
    return out


def _signs(arguments: list[Node], x: Fraction) -> dict[Node, int] | None:
    signs = {}
    for arg in arguments:
        value = _value(arg, x)
        if value is None:
            return None
        signs[arg] = (value > 0) - (value < 0)
    return signs


def _kinks(arguments: list[Node]) -> list[Fraction] | None:
    """The zeros of the kink arguments, innermost first: on each interval between the zeros
    found so far an argument is affine (its inner kinks are among them), and its zero there,
    if any, is added. None where an argument is not affine there or vanishes on an interval."""
    points: list[Fraction] = []
    for arg in sorted(arguments, key=_depth):
        edges: list[Fraction | None] = [None, *points, None]
        found = []
        for (low, high), x in zip(zip(edges, edges[1:]), _tests(points)):
            signs = _signs(arguments, x)
            p = None if signs is None else expand(arg, signs)
            if p is None or any(r != 0 or j > 1 for j, r in p):
                return None
            slope = p.get((1, Fraction(0)), Fraction(0))
            constant = p.get((0, Fraction(0)), Fraction(0))
            if slope == 0:
                if constant == 0:
                    return None  # 0 on a whole interval: no sign to choose a branch by
                continue
            zero = -constant / slope
            if (low is None or zero > low) and (high is None or zero < high):
                found.append(zero)
        points = sorted(set(points) | set(found))
    return points


def exp_poly_pieces(
    tree: Node,
) -> tuple[tuple[Fraction, ...], tuple[tuple[tuple[ExpTerm, ...], ...], ...]] | None:
    """(kinks, (φ's pieces, φ''s pieces)) as ``catalog.ball_functions.EXP_POLYNOMIALS`` gives
    them (one tuple of ExpTerms per interval between the kinks), or None (module docstring)."""
    node = removable(tree)
    d_node = derivative(node)
    arguments = kink_arguments(node)
    arguments += [a for a in kink_arguments(d_node) if a not in arguments]
    points = _kinks(arguments)
    if points is None:
        return None
    tests = _tests(points)
    out = []
    for tree_ in (node, d_node):
        pieces = []
        for x in tests:
            signs = _signs(arguments, x)
            p = None if signs is None else expand(tree_, signs)
            if p is None:
                return None
            pieces.append(tuple(ExpTerm(c, j, r) for (j, r), c in sorted(p.items())))
        out.append(tuple(pieces))
    return tuple(points), (out[0], out[1])


__all__ = ["MAX_DEGREE", "MAX_POWER", "MAX_TERMS", "exp_poly_pieces", "expand"]
