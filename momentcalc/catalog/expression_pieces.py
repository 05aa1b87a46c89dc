"""A user expression as a piecewise exp-polynomial, where it is one: abs(x), max(x, 0),
min(x, 1), x*abs(x), max(x, 0)**2, exp(x/2)*max(-x, 0)… — on each interval between the kinks,
Σ c·x^j·e^{λx} with rational c and λ (``engine.gaussian_balls.ExpTerm``), the form the exact
Gaussian expectations of ``catalog.ball_functions.EXP_POLYNOMIALS`` take.

The kinks are the zeros of the kink arguments (of abs, sign, step, and a − b of max(a, b),
min(a, b)); each argument must be affine, a·x + b with a ≠ 0 rational, and its zero −b/a a
dyadic rational (an exact point on balls). On each interval the sign of every argument is
fixed (read exactly at a rational point inside it) and the branch tree is expanded: numbers,
x, +, −, ×, division by a nonzero number, whole powers up to ``MAX_POWER``, and exp of c·x.
Anything else (another function, π or e, a kink argument that is not affine) gives None.
"""

from __future__ import annotations

from fractions import Fraction

from .expression_ball import kink_argument, kink_arguments, removable
from .expression_calculus import derivative
from .expression_tree import Node
from ..engine.gaussian_balls import ExpTerm

# Whole powers expanded up to this exponent (a higher one: None).
MAX_POWER = 8

# {(power of x, rate λ): coefficient}
Poly = dict[tuple[int, Fraction], Fraction]


def _constant(value: Fraction) -> Poly:
    return {(0, Fraction(0)): Fraction(value)} if value != 0 else {}


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for key, c in b.items():
        out[key] = out.get(key, Fraction(0)) + sign * c
        if out[key] == 0:
            del out[key]
    return out


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for (j, r), c in a.items():
        for (k, s), d in b.items():
            key = (j + k, r + s)
            out[key] = out.get(key, Fraction(0)) + c * d
            if out[key] == 0:
                del out[key]
    return out


def _as_number(p: Poly) -> Fraction | None:
    if not p:
        return Fraction(0)
    if set(p) == {(0, Fraction(0))}:
        return p[0, Fraction(0)]
    return None


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
    parts = [expand(a, signs) for a in node.args]
    if any(p is None for p in parts):
        return None
    if kind == "neg":
        return _add({}, parts[0], -1)  # type: ignore[arg-type]
    a, b = parts
    if kind == "add":
        return _add(a, b)  # type: ignore[arg-type]
    if kind == "sub":
        return _add(a, b, -1)  # type: ignore[arg-type]
    if kind in ("mul", "chain"):
        return _mul(a, b)  # type: ignore[arg-type]
    if kind == "div":
        d = _as_number(b)  # type: ignore[arg-type]
        return None if not d else _mul(a, _constant(1 / d))  # type: ignore[arg-type]
    if kind == "pow":
        n = _as_number(b)  # type: ignore[arg-type]
        if n is None or n.denominator != 1 or not 0 <= n <= MAX_POWER:
            return None
        out = _constant(Fraction(1))
        for _ in range(int(n)):
            out = _mul(out, a)  # type: ignore[arg-type]
        return out
    return None


def _call(node: Node, signs: dict[Node, int]) -> Poly | None:
    name = node.value
    if name in ("abs", "max", "min", "sign", "step"):
        sign = _sign(kink_argument(node), signs)  # type: ignore[arg-type]
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
    if name == "exp":
        inner = expand(node.args[0], signs)
        if inner is None or any(j != 1 or r != 0 for j, r in inner):
            return None  # only e^{c·x}: e^{b} of a constant b ≠ 0 is not rational
        rate = inner.get((1, Fraction(0)), Fraction(0))
        return {(0, rate): Fraction(1)}
    return None


def _sign(arg: Node, signs: dict[Node, int]) -> int | None:
    if arg in signs:
        return signs[arg]
    if arg.has_x:
        return None
    p = expand(arg, {})
    value = None if p is None else _as_number(p)
    if value is None:
        return None
    return (value > 0) - (value < 0)


def _affine_zero(arg: Node) -> Fraction | None:
    """The zero of an affine kink argument, None if it is not affine with a nonzero slope."""
    p = expand(arg, {})
    if p is None or any(r != 0 or j > 1 for j, r in p):
        return None
    slope = p.get((1, Fraction(0)), Fraction(0))
    if slope == 0:
        return None
    return -p.get((0, Fraction(0)), Fraction(0)) / slope


def _value(arg: Node, x: Fraction) -> Fraction:
    p = expand(arg, {})
    return sum((c * x**j for (j, _), c in p.items()), Fraction(0))  # type: ignore[union-attr]


def exp_poly_pieces(tree: Node) -> tuple[tuple[Fraction, ...], tuple[tuple[tuple[ExpTerm, ...], ...], ...]] | None:
    """(kinks, (φ's pieces, φ''s pieces)) as ``catalog.ball_functions.EXP_POLYNOMIALS`` gives
    them (one tuple of ExpTerms per interval between the kinks), or None (module docstring)."""
    node = removable(tree)
    d_node = derivative(node)
    arguments = kink_arguments(node)
    arguments += [a for a in kink_arguments(d_node) if a not in arguments]
    kinks: set[Fraction] = set()
    for arg in arguments:
        zero = _affine_zero(arg)
        if zero is None or zero.denominator & (zero.denominator - 1):
            return None
        kinks.add(zero)
    points = sorted(kinks)
    edges: list[Fraction | None] = [None, *points, None]
    tests = []
    for low, high in zip(edges, edges[1:]):
        if low is None and high is None:
            tests.append(Fraction(0))
        elif low is None:
            tests.append(high - 1)  # type: ignore[operator]
        elif high is None:
            tests.append(low + 1)
        else:
            tests.append((low + high) / 2)
    out = []
    for tree_ in (node, d_node):
        pieces = []
        for x in tests:
            signs = {}
            for arg in arguments:
                value = _value(arg, x)
                signs[arg] = (value > 0) - (value < 0)
            p = expand(tree_, signs)
            if p is None:
                return None
            pieces.append(tuple(ExpTerm(c, j, r) for (j, r), c in sorted(p.items())))
        out.append(tuple(pieces))
    return tuple(points), (out[0], out[1])


__all__ = ["MAX_POWER", "exp_poly_pieces", "expand"]
