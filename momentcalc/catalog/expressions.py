"""User activations written as expressions in x, parsed safely.

The text is parsed with Python's ``ast`` (``mode="eval"``) and every node is checked against a
whitelist: numbers, ``x``, ``pi``, ``e``, ``+ - * / **``, unary minus and plus, and calls of
exp, log, log1p, sqrt, abs, sin, cos, tanh, sinh, cosh, erf, erfc, sigmoid, softplus, and
max/min of an expression and a constant. Anything else (attribute access, other names,
lambda, subscripts, comprehensions, strings, comparisons…) is refused with an InputError
naming the offending part. Nothing from the text is ever executed: the checked tree is turned
into our own small ``Node`` tree, from which the mpmath function, its derivative (symbolic
differentiation on the tree), the sympy expression, the parity and the points where the
function is not smooth or not defined are all built.

Numbers are exact (``0.1`` is 1/10, as on the command line); constant powers are bounded so
``9**9**9`` is refused rather than computed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import mp

from ..errors import InputError
from .activations import Activation

MAX_LENGTH = 500
MAX_NODES = 200
MAX_LITERAL_DIGITS = 100
MAX_LITERAL_EXPONENT = 1000
MAX_POWER = 1000  # largest |exponent| of a power
FUNCTIONS = ("exp", "log", "log1p", "sqrt", "abs", "sin", "cos", "tanh", "sinh", "cosh",
             "erf", "erfc", "sigmoid", "softplus", "max", "min")
CONSTANTS = ("pi", "e")


class Undefined(ArithmeticError):
    """The expression has no real value at this point (log of a negative number, …)."""


class Singular(ArithmeticError):
    """The expression is infinite at this point (division by zero, log(0))."""


class UndefinedInput(InputError):
    """The expression has no real value on a set of positive probability."""


class SingularInput(InputError):
    """The expression is infinite (or too large to evaluate) at a point."""


class TooLarge(ArithmeticError):
    """exp, sinh or cosh of an argument so large that no Gaussian weight can balance it."""


# exp(u) is refused when u > 4·x² + EXP_LIMIT: f = exp(u) then grows far faster than
# exp(x²/4), so E[f²] diverges anyway, and exp(exp(x)) at far nodes would exhaust memory.
EXP_LIMIT = 10**6


@dataclass(frozen=True)
class Node:
    """A checked expression: kind in num, const, x, neg, add, sub, mul, div, pow, call (and
    chain, a product made by the chain rule)."""

    kind: str
    args: tuple[Node, ...] = ()
    value: Any = None  # Fraction for num, name for const and call

    def __str__(self) -> str:
        return _text(self)

    @property
    def has_x(self) -> bool:
        return self.kind == "x" or any(a.has_x for a in self.args)


def num(value: Fraction | int) -> Node:
    return Node("num", value=Fraction(value))


X = Node("x")
ZERO, ONE = num(0), num(1)


# --- parsing ---------------------------------------------------------------------------------


class _Refused(InputError):
    pass


def _refuse(text: str, node: ast.AST | None, what: str) -> InputError:
    segment = ast.get_source_segment(text, node) if node is not None else None
    where = f" in {segment!r}" if segment else ""
    allowed = "allowed: numbers, x, pi, e, + - * / **, and " + ", ".join(FUNCTIONS)
    return _Refused(f"ACTIVATION expression: {what}{where} is not allowed ({allowed})")


def _literal(text: str, node: ast.Constant) -> Fraction:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refuse(text, node, f"the literal {value!r}")
    source = (ast.get_source_segment(text, node) or repr(value)).replace("_", "")
    mantissa, _, exponent = source.lower().partition("e")
    if len(mantissa) > MAX_LITERAL_DIGITS or (exponent and abs(int(exponent)) > MAX_LITERAL_EXPONENT):
        raise _refuse(text, node, "a number this large or this long")
    try:
        return Fraction(source)
    except ValueError:
        raise _refuse(text, node, f"the number {source!r}") from None


def _constant_value(node: Node) -> float | None:
    """A rough value of a constant subtree (for bounding powers), None if it has x."""
    if node.has_x:
        return None
    try:
        with mp.workdps(15):
            return float(compile_mpmath(node)(mp.zero))
    except (ArithmeticError, ValueError, OverflowError, MemoryError):
        return float("inf")


def _convert(text: str, node: ast.AST, count: list[int]) -> Node:
    count[0] += 1
    if count[0] > MAX_NODES:
        raise InputError(f"ACTIVATION expression is too long: at most {MAX_NODES} operations")
    if isinstance(node, ast.Expression):
        return _convert(text, node.body, count)
    if isinstance(node, ast.Constant):
        return num(_literal(text, node))
    if isinstance(node, ast.Name):
        if node.id == "x":
            return X
        if node.id in CONSTANTS:
            return Node("const", value=node.id)
        if node.id in FUNCTIONS:
            raise _refuse(text, node, f"the function {node.id!r} without an argument")
        raise _refuse(text, node, f"the name {node.id!r} (the variable is x)")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _convert(text, node.operand, count)
        if isinstance(node.op, ast.UAdd):
            return inner
        if inner.kind == "num":
            return num(-inner.value)
        return Node("neg", (inner,))
    if isinstance(node, ast.BinOp):
        ops = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}
        kind = ops.get(type(node.op))
        if kind is None:
            raise _refuse(text, node, f"the operator {type(node.op).__name__}")
        left, right = _convert(text, node.left, count), _convert(text, node.right, count)
        if kind == "pow":
            if right.has_x:
                base = _constant_value(left)
                if base is None:
                    raise _refuse(text, node, "a power with x in both base and exponent (write exp(v*log(u)))")
                if not base > 0:
                    raise _refuse(text, node, "a power of a base that is not positive with x in the exponent")
                return Node("call", (Node("mul", (right, Node("call", (left,), "log"))),), "exp")
            exponent = _constant_value(right)
            if exponent is None or not abs(exponent) <= MAX_POWER:
                raise _refuse(text, node, f"an exponent beyond ±{MAX_POWER}")
            base = _constant_value(left)
            if base is not None and abs(base) > 1 and abs(exponent) * mpmath.log10(abs(base)) > MAX_LITERAL_EXPONENT:
                raise _refuse(text, node, "a constant power this large")
        return Node(kind, (left, right))
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):
            raise _refuse(text, node.func, "calling anything but a listed function")
        name = node.func.id
        if name not in FUNCTIONS:
            raise _refuse(text, node, f"the function {name!r}")
        if node.keywords:
            raise _refuse(text, node, "keyword arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _refuse(text, node, "starred arguments")
        arity = 2 if name in ("max", "min") else 1
        if len(node.args) != arity:
            raise _refuse(text, node, f"{name} with {len(node.args)} argument(s) (it takes {arity})")
        args = tuple(_convert(text, a, count) for a in node.args)
        if arity == 2:
            if args[0].has_x and args[1].has_x:
                raise _refuse(text, node, f"{name} of two expressions in x (one argument must be a constant)")
            if not args[0].has_x:  # keep the constant second
                args = (args[1], args[0])
        return Node("call", args, name)
    names = {
        ast.Attribute: "attribute access", ast.Subscript: "subscripting", ast.Lambda: "lambda",
        ast.Compare: "a comparison", ast.BoolOp: "a boolean operator", ast.IfExp: "a conditional",
        ast.List: "a list", ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set",
        ast.JoinedStr: "an f-string", ast.NamedExpr: "an assignment", ast.ListComp: "a comprehension",
        ast.GeneratorExp: "a generator", ast.Await: "await", ast.Starred: "starred arguments",
    }
    raise _refuse(text, node, names.get(type(node), f"a {type(node).__name__} expression"))


def parse(text: str) -> Node:
    """The checked tree of an expression in x; InputError for anything not whitelisted."""
    if len(text) > MAX_LENGTH:
        raise InputError(f"ACTIVATION expression is too long: {len(text)} characters, at most {MAX_LENGTH}")
    source = text.strip()
    if "__" in source:
        raise InputError("ACTIVATION expression: names with '__' are not allowed")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as error:
        where = f" at column {error.offset}" if error.offset else ""
        raise InputError(f"ACTIVATION is neither a catalog name nor a valid expression in x (syntax error{where}: {source!r})") from None
    except (ValueError, RecursionError, MemoryError):
        raise InputError(f"ACTIVATION expression cannot be parsed: {source[:60]!r}") from None
    try:
        node = _convert(source, tree, [0])
    except RecursionError:
        raise InputError("ACTIVATION expression is nested too deeply") from None
    if not node.has_x:
        raise InputError(f"ACTIVATION expression {source!r} does not depend on x")
    return node


# --- text ------------------------------------------------------------------------------------

_PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "chain": 2, "div": 2, "neg": 3, "pow": 4}
_SYMBOL = {"add": " + ", "sub": " - ", "mul": "*", "chain": "*", "div": "/", "pow": "**"}


def _text(node: Node, parent: int = 0) -> str:
    """Python-syntax text of the tree, with the parentheses it needs (``parent`` is the
    precedence the context demands)."""
    if node.kind == "num":
        v = node.value
        if v.denominator == 1:
            text = str(v.numerator)
        elif Fraction(repr(float(v))) == v:
            text = repr(float(v))
        else:
            text = f"{v.numerator}/{v.denominator}"
            return f"({text})" if parent >= 2 else text
        return f"({text})" if v < 0 and parent >= 3 else text
    if node.kind in ("x", "const"):
        return "x" if node.kind == "x" else node.value
    if node.kind == "call":
        return f"{node.value}({', '.join(_text(a) for a in node.args)})"
    if node.kind == "neg":
        inner = f"-{_text(node.args[0], 3)}"
        return f"({inner})" if parent >= 3 else inner
    mine = _PRECEDENCE[node.kind]
    if node.kind == "pow":  # right-associative
        text = _text(node.args[0], mine + 1) + "**" + _text(node.args[1], mine)
    else:
        text = _text(node.args[0], mine) + _SYMBOL[node.kind] + _text(node.args[1], mine + 1)
    return f"({text})" if parent > mine else text


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


def _sigmoid(u: mpmath.mpf) -> mpmath.mpf:
    if u >= 0:
        return 1 / (1 + mpmath.exp(-u))
    e = mpmath.exp(u)
    return e / (1 + e)


def _softplus(u: mpmath.mpf) -> mpmath.mpf:
    return max(u, mp.zero) + mpmath.log1p(mpmath.exp(-abs(u)))


def _guard(u: mpmath.mpf, x: mpmath.mpf) -> None:
    if u > 4 * x * x + EXP_LIMIT:
        raise TooLarge(f"exp of {mpmath.nstr(u, 3)}")


# exp guards u, sinh and cosh guard |u|.
_GUARDED = {"exp": lambda u: u, "sinh": abs, "cosh": abs}

_MP_FUNCTIONS: dict[str, Callable[..., mpmath.mpf]] = {
    "exp": mpmath.exp, "log": _log, "log1p": _log1p, "sqrt": _sqrt, "abs": abs,
    "sin": mpmath.sin, "cos": mpmath.cos, "tanh": mpmath.tanh, "sinh": mpmath.sinh, "cosh": mpmath.cosh,
    "erf": mpmath.erf, "erfc": mpmath.erfc, "sigmoid": _sigmoid, "softplus": _softplus,
    "max": lambda u, c: u if u >= c else c, "min": lambda u, c: u if u <= c else c,
    # used only in derivatives, never accepted from the user:
    "sign": lambda u: mpmath.sign(u), "step": lambda u: mp.one if u > 0 else mp.zero,
    "sech2": lambda u: 1 / mpmath.cosh(u) ** 2,
    "sigmoid_slope": lambda u: (lambda e: e / (1 + e) ** 2)(mpmath.exp(-abs(u))),
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
    kind = node.kind
    if kind == "num":
        value = node.value
        return lambda x: mpmath.mpf(value.numerator) / value.denominator
    if kind == "const":
        return (lambda x: +mp.pi) if node.value == "pi" else (lambda x: +mp.e)
    if kind == "x":
        return lambda x: x
    parts = [compile_mpmath(a) for a in node.args]
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


# --- derivative --------------------------------------------------------------------------------


def _add(a: Node, b: Node) -> Node:
    if a == ZERO:
        return b
    if b == ZERO:
        return a
    return Node("add", (a, b))


def _sub(a: Node, b: Node) -> Node:
    if b == ZERO:
        return a
    if a == ZERO:
        return _neg(b)
    return Node("sub", (a, b))


def _neg(a: Node) -> Node:
    if a.kind == "num":
        return num(-a.value)
    return Node("neg", (a,))


def _mul(a: Node, b: Node) -> Node:
    if a == ZERO or b == ZERO:
        return ZERO
    if a == ONE:
        return b
    if b == ONE:
        return a
    return Node("mul", (a, b))


def _chain(outer: Node, inner: Node) -> Node:
    """outer·inner for the chain rule, evaluated as 0 wherever inner is 0."""
    if outer == ZERO or inner == ZERO:
        return ZERO
    if inner == ONE:
        return outer
    if outer == ONE:
        return inner
    return Node("chain", (outer, inner))


def _div(a: Node, b: Node) -> Node:
    if a == ZERO:
        return ZERO
    return Node("div", (a, b))


def _call(name: str, *args: Node) -> Node:
    return Node("call", args, name)


def derivative(node: Node) -> Node:
    """d/dx of the tree, by the usual rules (max/min/abs through step and sign)."""
    kind = node.kind
    if kind in ("num", "const"):
        return ZERO
    if kind == "x":
        return ONE
    if kind == "neg":
        return _neg(derivative(node.args[0]))
    if kind in ("add", "sub"):
        a, b = (derivative(x) for x in node.args)
        return _add(a, b) if kind == "add" else _sub(a, b)
    if kind in ("mul", "chain"):
        u, v = node.args
        return _add(_mul(derivative(u), v), _mul(u, derivative(v)))
    if kind == "div":
        u, v = node.args
        du, dv = derivative(u), derivative(v)
        if dv == ZERO:
            return _div(du, v)
        return _div(_sub(_mul(du, v), _mul(u, dv)), Node("pow", (v, num(2))))
    if kind == "pow":
        u, c = node.args
        du = derivative(u)
        if du == ZERO:
            return ZERO
        lowered = Node("pow", (u, Node("sub", (c, ONE)) if c.kind != "num" else num(c.value - 1)))
        return _chain(_mul(c, lowered), du)
    u = node.args[0]
    du = derivative(u)
    if du == ZERO:
        return ZERO
    name = node.value
    outer = {
        "exp": lambda: node,
        "log": lambda: _div(ONE, u),
        "log1p": lambda: _div(ONE, _add(ONE, u)),
        "sqrt": lambda: _div(ONE, _mul(num(2), node)),
        "abs": lambda: _call("sign", u),
        "sin": lambda: _call("cos", u),
        "cos": lambda: _neg(_call("sin", u)),
        "tanh": lambda: _call("sech2", u),
        "sinh": lambda: _call("cosh", u),
        "cosh": lambda: _call("sinh", u),
        "erf": lambda: _mul(_div(num(2), _call("sqrt", Node("const", value="pi"))), _call("exp", _neg(Node("pow", (u, num(2)))))),
        "erfc": lambda: _neg(_mul(_div(num(2), _call("sqrt", Node("const", value="pi"))), _call("exp", _neg(Node("pow", (u, num(2))))))),
        "sigmoid": lambda: _call("sigmoid_slope", u),
        "softplus": lambda: _call("sigmoid", u),
        "max": lambda: _call("step", _sub(u, node.args[1])),
        "min": lambda: _call("step", _sub(node.args[1], u)),
        "sign": lambda: ZERO,
        "step": lambda: ZERO,
        "sech2": lambda: _mul(num(-2), _mul(_call("sech2", u), _call("tanh", u))),
    }[name]()
    return _chain(outer, du)


# --- sympy -------------------------------------------------------------------------------------


def to_sympy(node: Node, x: Any) -> Any:
    """The tree as a sympy expression in the symbol ``x`` (built node by node, no sympify)."""
    import sympy as sp

    kind = node.kind
    if kind == "num":
        return sp.Rational(node.value.numerator, node.value.denominator)
    if kind == "const":
        return sp.pi if node.value == "pi" else sp.E
    if kind == "x":
        return x
    args = [to_sympy(a, x) for a in node.args]
    if kind == "neg":
        return -args[0]
    if kind == "add":
        return args[0] + args[1]
    if kind == "sub":
        return args[0] - args[1]
    if kind in ("mul", "chain"):
        return args[0] * args[1]
    if kind == "div":
        return args[0] / args[1]
    if kind == "pow":
        return args[0] ** args[1]
    u = args[0]
    table = {
        "exp": lambda: sp.exp(u), "log": lambda: sp.log(u), "log1p": lambda: sp.log(1 + u),
        "sqrt": lambda: sp.sqrt(u), "abs": lambda: sp.Abs(u), "sin": lambda: sp.sin(u),
        "cos": lambda: sp.cos(u), "tanh": lambda: sp.tanh(u), "sinh": lambda: sp.sinh(u),
        "cosh": lambda: sp.cosh(u), "erf": lambda: sp.erf(u), "erfc": lambda: sp.erfc(u),
        "sigmoid": lambda: 1 / (1 + sp.exp(-u)), "softplus": lambda: sp.log(1 + sp.exp(u)),
        "max": lambda: sp.Piecewise((u, u >= args[1]), (args[1], True)),
        "min": lambda: sp.Piecewise((u, u <= args[1]), (args[1], True)),
        "sign": lambda: sp.sign(u), "step": lambda: sp.Heaviside(u), "sech2": lambda: sp.sech(u) ** 2,
        "sigmoid_slope": lambda: sp.exp(-u) / (1 + sp.exp(-u)) ** 2,
    }
    return table[node.value]()


# --- parity --------------------------------------------------------------------------------------

_ODD_FUNCTIONS = {"sin", "tanh", "sinh", "erf", "sign"}
_EVEN_FUNCTIONS = {"cos", "cosh", "abs", "sech2", "sigmoid_slope"}


def parity(node: Node) -> str | None:
    """"even", "odd" or None (unknown): proved from the tree, so an odd φ has mean exactly 0."""
    kind = node.kind
    if kind in ("num", "const"):
        return "even"
    if kind == "x":
        return "odd"
    parts = [parity(a) for a in node.args]
    if kind == "neg":
        return parts[0]
    if kind in ("add", "sub"):
        if node.args[0] == ZERO or node.args[1] == ZERO:
            return parts[1] if node.args[0] == ZERO else parts[0]
        return parts[0] if parts[0] == parts[1] else None
    if kind in ("mul", "chain", "div"):
        if None in parts:
            return None
        return "even" if parts[0] == parts[1] else "odd"
    if kind == "pow":
        base, exponent = parts[0], node.args[1]
        if base == "even":
            return "even"
        if base == "odd" and exponent.kind == "num" and exponent.value.denominator == 1:
            return "odd" if exponent.value.numerator % 2 else "even"
        return None
    name, inner = node.value, parts[0]
    if name in ("max", "min"):
        return "even" if inner == "even" else None
    if inner == "even":
        return "even"
    if inner == "odd":
        if name in _ODD_FUNCTIONS:
            return "odd"
        if name in _EVEN_FUNCTIONS:
            return "even"
    return None


# --- points where the expression is not smooth or not defined -------------------------------------


def critical_parts(node: Node) -> list[Node]:
    """Sub-expressions whose zeros are kinks or singular points: arguments of abs, max − c,
    min − c, denominators, arguments of log, log1p + 1, sqrt, and bases of fractional or
    negative powers."""
    found: list[Node] = []
    kind = node.kind
    if kind == "call":
        u = node.args[0]
        if node.value in ("abs", "log", "sqrt"):
            found.append(u)
        elif node.value == "log1p":
            found.append(_add(u, ONE))
        elif node.value in ("max", "min"):
            found.append(_sub(u, node.args[1]))
    elif kind == "div":
        found.append(node.args[1])
    elif kind == "pow":
        c = node.args[1]
        if not (c.kind == "num" and c.value.denominator == 1 and c.value >= 0):
            found.append(node.args[0])
    for a in node.args:
        found.extend(critical_parts(a))
    return [p for p in found if p.has_x]


GRID_POINTS = 401


def _safe(g: Callable[[mpmath.mpf], mpmath.mpf], x: mpmath.mpf) -> mpmath.mpf | None:
    try:
        value = g(x)
    except (ArithmeticError, ValueError):
        return None
    if not isinstance(value, mpmath.mpf) or not mpmath.isfinite(value):
        return None
    return value


def _refine_sign_change(g: Callable[[mpmath.mpf], mpmath.mpf], a: mpmath.mpf, b: mpmath.mpf,
                        ga: mpmath.mpf) -> mpmath.mpf | None:
    """Bisection to full precision (robust for kinks and for functions with poles)."""
    for _ in range(mp.prec + 10):
        mid = (a + b) / 2
        if mid == a or mid == b:
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


def zeros(g: Callable[[mpmath.mpf], mpmath.mpf], low: mpmath.mpf, high: mpmath.mpf,
          extra: tuple[mpmath.mpf, ...] = ()) -> list[mpmath.mpf]:
    """Points to split at on [low, high], to the current precision: real zeros of g (exact
    zeros at grid points and at ``extra`` points, sign changes by bisection) and the local
    minima of |g| (touching zeros, near-zeros of denominators)."""
    step = (high - low) / (GRID_POINTS - 1)
    grid = sorted(set([low + i * step for i in range(GRID_POINTS)] + [p for p in extra if low <= p <= high]))
    values = [(x, _safe(g, x)) for x in grid]
    found: list[mpmath.mpf] = []
    for i, (x, gx) in enumerate(values):
        if gx == 0:
            found.append(x)
            continue
        if i + 1 < len(values):
            y, gy = values[i + 1]
            if gx is not None and gy is not None and gy != 0 and (gx > 0) != (gy > 0):
                root = _refine_sign_change(g, x, y, gx)
                if root is not None:
                    found.append(root)
        if 0 < i < len(values) - 1 and gx is not None:
            before, after = values[i - 1][1], values[i + 1][1]
            if before is not None and after is not None and (before > 0) == (gx > 0) == (after > 0) \
                    and abs(gx) <= abs(before) and abs(gx) <= abs(after) and abs(gx) < max(abs(before), abs(after)):
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
                f"ACTIVATION {label!r} is not defined at x = {mpmath.nstr(x, 6)} ({error}), "
                "so on a set of positive probability; moments need a real value everywhere"
            ) from None
        except (Singular, ZeroDivisionError) as error:
            raise SingularInput(
                f"ACTIVATION {label!r} is singular at x = {mpmath.nstr(x, 6)} ({error}); its moments do not exist"
            ) from None
        except (TooLarge, OverflowError, MemoryError) as error:
            raise SingularInput(
                f"ACTIVATION {label!r} grows too fast at x = {mpmath.nstr(x, 6)} ({error}): "
                "its moments diverge for a Gaussian input"
            ) from None
        if not isinstance(value, mpmath.mpf):
            raise UndefinedInput(f"ACTIVATION {label!r} has no real value at x = {mpmath.nstr(x, 6)}")
        if not mpmath.isfinite(value):
            raise SingularInput(f"ACTIVATION {label!r} is infinite at x = {mpmath.nstr(x, 6)}; its moments do not exist")
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


def parse_activation(text: str) -> Activation:
    """An ``Activation`` for an expression in x (InputError if it is not allowed)."""
    node = parse(text)
    label = text.strip()
    fn = _checked(compile_mpmath(node), label)
    d_node = derivative(node)
    dfn = _checked(compile_mpmath(d_node), label)
    critical = tuple(compile_mpmath(part) for part in critical_parts(node))
    return Activation(
        name="expression",
        formula=str(node),
        fn=lambda x, p: fn(x),
        derivative=lambda x, p: dfn(x),
        sympy=lambda sp, x, p: to_sympy(node, x),
        parity=parity(node),
        expression=True,
        critical=critical,
    )
