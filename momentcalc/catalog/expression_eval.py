"""The expression tree as an mpmath function of x: closures built node by node (no eval),
with guarded log, log1p, sqrt, powers and division that raise ``Undefined`` or ``Singular``
instead of returning complex or infinite values, and exp, sinh, cosh refused (``TooLarge``)
for arguments no Gaussian weight can balance.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
from mpmath import mp

from ..engine.mpmath_internals import PREC_ROUNDING
from .elementary import sech2, sigmoid, sigmoid_slope, softplus
from .expression_tree import Node, Singular, TooLarge, Undefined

# exp(u) is refused when u > 4·x² + EXP_LIMIT: f = exp(u) then grows far faster than
# exp(x²/4), so E[f²] diverges anyway, and exp(exp(x)) at far nodes would exhaust memory.
EXP_LIMIT = 10**6


# --- mpmath ----------------------------------------------------------------------------------


def _log(u: mpmath.mpf) -> mpmath.mpf:
    if u < 0:
        raise Undefined("log of a negative number")
    if u == 0:
        raise Singular("log(0)")
    return mpmath.log(u)


def _log1p(u: mpmath.mpf) -> mpmath.mpf:
    if u < -1:
        raise Undefined("log1p of a number below -1")
    if u == -1:
        raise Singular("log1p(-1)")
    return mpmath.log1p(u)


def _sqrt(u: mpmath.mpf) -> mpmath.mpf:
    if u < 0:
        raise Undefined("sqrt of a negative number")
    return mpmath.sqrt(u)


def _guard(u: mpmath.mpf, x: mpmath.mpf) -> None:
    if u > 4 * x * x + EXP_LIMIT:
        raise TooLarge(f"exp of {mpmath.nstr(u, 3)}")


# exp guards u, sinh and cosh guard |u|.
_GUARDED = {"exp": lambda u: u, "sinh": abs, "cosh": abs}

_MP_FUNCTIONS: dict[str, Callable[..., mpmath.mpf]] = {
    "exp": mpmath.exp,
    "log": _log,
    "log1p": _log1p,
    "sqrt": _sqrt,
    "abs": abs,
    "sin": mpmath.sin,
    "cos": mpmath.cos,
    "tanh": mpmath.tanh,
    "sinh": mpmath.sinh,
    "cosh": mpmath.cosh,
    "erf": mpmath.erf,
    "erfc": mpmath.erfc,
    "sigmoid": sigmoid,
    "softplus": softplus,
    "max": lambda u, c: u if u >= c else c,
    "min": lambda u, c: u if u <= c else c,
    # used only in derivatives, never accepted from the user:
    "sign": lambda u: mpmath.sign(u),
    "step": lambda u: mp.one if u > 0 else mp.zero,
    "sech2": sech2,
    "sigmoid_slope": sigmoid_slope,
    # the certified route's removable singularities (expression_ball.removable): sin(u)/u
    "sinc": mpmath.sinc,
    "sinc_slope": lambda u: (mpmath.cos(u) - mpmath.sinc(u)) / u if u else mp.zero,
}


def _power(base: mpmath.mpf, exponent: mpmath.mpf) -> mpmath.mpf:
    if mpmath.isint(exponent):
        if base == 0 and exponent < 0:
            raise Singular("division by zero")
        return base ** int(exponent)
    if base < 0:
        raise Undefined("a non-integer power of a negative number")
    if base == 0:
        if exponent < 0:
            raise Singular("division by zero")
        return mp.zero
    return base**exponent


def _divide(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    if b == 0:
        raise Singular("division by zero")
    return a / b


def compile_mpmath(node: Node) -> Callable[[mpmath.mpf], mpmath.mpf]:
    """The tree as a function of x at the current precision (closures, no eval)."""
    return _compile(node, compile_mpmath)


_LEAVES = ("num", "const", "x")


def compile_shared(*roots: Node) -> tuple[Callable[[], None], tuple[Callable[[mpmath.mpf], mpmath.mpf], ...]]:
    """The trees as functions of x that compute each distinct sub-expression once per point:
    (``start``, functions). Call ``start()`` before evaluating them at a new x (or precision);
    the functions evaluated after it share the values of the sub-expressions they have in common
    (an expression and its derivative share most of theirs). Each sub-expression is still
    evaluated only when, and as, ``compile_mpmath`` would evaluate it (the lazy factor of a
    chain stays lazy): the values are the same, bit for bit, and so are the errors."""
    memo: list[dict[int, mpmath.mpf]] = [{}]
    built: dict[Node, Callable[[mpmath.mpf], mpmath.mpf]] = {}

    def build(node: Node) -> Callable[[mpmath.mpf], mpmath.mpf]:
        found = built.get(node)
        if found is not None:
            return found
        inner = _compile(node, build)
        if node.kind in _LEAVES:
            built[node] = inner
            return inner
        slot = len(built)

        def shared(x: mpmath.mpf) -> mpmath.mpf:
            values = memo[0]
            value = values.get(slot)
            if value is None:
                value = values[slot] = inner(x)
            return value

        built[node] = shared
        return shared

    def start() -> None:
        memo[0] = {}

    return start, tuple(build(root) for root in roots)


def _compile(
    node: Node, compile_part: Callable[[Node], Callable[[mpmath.mpf], mpmath.mpf]]
) -> Callable[[mpmath.mpf], mpmath.mpf]:
    """``node`` as a function of x, its arguments compiled by ``compile_part``."""
    kind = node.kind
    if kind == "num":
        value = node.value
        rounded: dict[tuple[int, str], mpmath.mpf] = {}  # by precision and rounding

        def number(x: mpmath.mpf) -> mpmath.mpf:
            key = tuple(PREC_ROUNDING)
            found = rounded.get(key)
            if found is None:
                found = rounded[key] = mpmath.mpf(value.numerator) / value.denominator
            return found

        return number
    if kind == "const":
        return (lambda x: +mp.pi) if node.value == "pi" else (lambda x: +mp.e)
    if kind == "x":
        return lambda x: x
    parts = [compile_part(a) for a in node.args]
    if kind == "neg":
        (a,) = parts
        return lambda x: -a(x)
    if kind == "call":
        fn = _MP_FUNCTIONS[node.value]
        if node.value in _GUARDED:
            (a,) = parts
            size = _GUARDED[node.value]

            def guarded(x: mpmath.mpf) -> mpmath.mpf:
                u = a(x)
                _guard(size(u), x)
                return fn(u)

            return guarded
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
        # outer'(u)·u': where u' = 0 (a flat piece of max, min) the product is 0 even if
        # outer' is singular there (max(x, 0)**0.5 for x < 0).
        return lambda x: (lambda db: db if db == 0 else a(x) * db)(b(x))
    if kind == "div":
        return lambda x: _divide(a(x), b(x))
    return lambda x: _power(a(x), b(x))
