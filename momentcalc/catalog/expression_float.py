"""The expression tree as a function of a Python float (``math``): for searches that only need
a starting point (``meanfield``'s fixed points are looked for in double precision, then proven
at the working precision in Arb). Any trouble (a domain error, an overflow, a non-finite
value) raises ``FloatTrouble``: the caller then searches at mpmath precision instead."""

from __future__ import annotations

import math
from collections.abc import Callable

from .expression_tree import Node

FloatFn = Callable[[float], float]


class FloatTrouble(ArithmeticError):
    """A value double precision cannot give (the search falls back to mpmath)."""


def _sigmoid(u: float) -> float:
    if u >= 0:
        return 1 / (1 + math.exp(-u))
    e = math.exp(u)
    return e / (1 + e)


def _sigmoid_slope(u: float) -> float:
    e = math.exp(-abs(u))
    return e / (1 + e) ** 2


def _softplus(u: float) -> float:
    return max(u, 0.0) + math.log1p(math.exp(-abs(u)))


def _sech2(u: float) -> float:
    e = math.exp(-2 * abs(u))  # 1/cosh² = 4e^{-2|u|}/(1 + e^{-2|u|})², no overflow
    return 4 * e / (1 + e) ** 2


def _sinc(u: float) -> float:
    return math.sin(u) / u if u else 1.0


def _sinc_slope(u: float) -> float:
    return (math.cos(u) - _sinc(u)) / u if u else 0.0


def _sign(u: float) -> float:
    return 1.0 if u > 0 else -1.0 if u < 0 else 0.0


# The same names as expression_eval's mpmath table (an unknown name: FloatTrouble at compile time).
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "exp": math.exp,
    "log": math.log,
    "log1p": math.log1p,
    "sqrt": math.sqrt,
    "abs": abs,
    "sin": math.sin,
    "cos": math.cos,
    "tanh": math.tanh,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "erf": math.erf,
    "erfc": math.erfc,
    "sigmoid": _sigmoid,
    "softplus": _softplus,
    "max": lambda u, c: u if u >= c else c,
    "min": lambda u, c: u if u <= c else c,
    "sign": _sign,
    "step": lambda u: 1.0 if u > 0 else 0.0,
    "sech2": _sech2,
    "sigmoid_slope": _sigmoid_slope,
    "sinc": _sinc,
    "sinc_slope": _sinc_slope,
}


def _power(base: float, exponent: float) -> float:
    if exponent == int(exponent):
        return base ** int(exponent)
    if base < 0:
        raise FloatTrouble("a non-integer power of a negative number")
    return base**exponent


def _leaf(node: Node) -> FloatFn | None:
    """A number or a named constant as a function of x; None for any other node."""
    if node.kind == "num":
        value = float(node.value)
    elif node.kind == "const":
        value = math.pi if node.value == "pi" else math.e
    else:
        return None
    return lambda x: value


def _compiled(node: Node) -> FloatFn:
    """``compile_float`` of a part without x (its value, once)."""
    leaf = _leaf(node)
    return leaf if leaf is not None else _combine(node, [_compiled(a) for a in node.args])


def compile_float(node: Node) -> FloatFn:
    """The tree as a function of a float x; it raises FloatTrouble (or ArithmeticError,
    ValueError from ``math``: callers catch all three) where double precision gives no value."""
    leaf = _leaf(node)
    if leaf is not None:
        return leaf
    kind = node.kind
    if kind == "x":
        return lambda x: x
    if not node.has_x:  # a constant part (sqrt(2), a derivative's factors): computed once
        value = _compiled(node)(0.0)
        return lambda x: value
    parts = [compile_float(a) for a in node.args]
    if kind in ("mul", "chain"):  # a factor 1 (the chain rule's d/dx x) dropped
        ones = [not a.has_x and _compiled(a)(0.0) == 1 for a in node.args]
        if ones[0] or ones[1]:
            return parts[1] if ones[0] else parts[0]
    return _combine(node, parts)


def _combine(node: Node, parts: list[FloatFn]) -> FloatFn:
    """The node's operation on its compiled arguments."""
    kind = node.kind
    if kind == "neg":
        (a,) = parts
        return lambda x: -a(x)
    if kind == "call":
        fn = _FUNCTIONS.get(node.value)
        if fn is None:
            raise FloatTrouble(f"no double-precision {node.value}")
        if len(parts) == 1:
            (a,) = parts
            return lambda x: fn(a(x))
        a, b = parts
        return lambda x: fn(a(x), b(x))
    a, b = parts
    if kind == "add":
        return lambda x: a(x) + b(x)
    if kind == "sub":
        return lambda x: a(x) - b(x)
    if kind == "mul":
        return lambda x: a(x) * b(x)
    if kind == "chain":
        return lambda x: (lambda db: db if db == 0 else a(x) * db)(b(x))
    if kind == "div":
        return lambda x: a(x) / b(x)
    if kind == "pow":
        return lambda x: _power(a(x), b(x))
    raise FloatTrouble(f"no double-precision {kind}")
