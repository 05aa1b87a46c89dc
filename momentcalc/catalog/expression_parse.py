"""Safe parsing of user expressions in x into the checked ``Node`` tree.

The text is parsed with Python's ``ast`` (``mode="eval"``) and every node is checked against a
whitelist: numbers, ``x``, ``pi``, ``e``, ``+ - * / **``, unary minus and plus, and calls of
exp, log, log1p, sqrt, abs, sin, cos, tanh, sinh, cosh, erf, erfc, sigmoid, softplus, and
max/min of an expression and a constant. Anything else (attribute access, other names,
lambda, subscripts, comprehensions, strings, comparisons…) is refused with an InputError
naming the offending part. Nothing from the text is ever executed: the checked tree is turned
into our own small ``Node`` tree.

Numbers are exact (``0.1`` is 1/10, as on the command line); constant powers are bounded so
``9**9**9`` is refused rather than computed.
"""

from __future__ import annotations

import ast
import re
import warnings
from fractions import Fraction

import mpmath
from mpmath import mp

from .expression_eval import compile_mpmath
from .expression_tree import ActivationInputError, X, Node, num

MAX_LENGTH = 500
MAX_NODES = 200
MAX_LITERAL_DIGITS = 100
MAX_LITERAL_EXPONENT = 1000
MAX_POWER = 1000  # largest |exponent| of a power
# Functions (and powers) nested inside each other: the chain rule multiplies the work of every
# evaluation by the depth, so sin(sin(...)) 60 deep would take minutes.
MAX_DEPTH = 12
FUNCTIONS = (
    "exp",
    "log",
    "log1p",
    "sqrt",
    "abs",
    "sin",
    "cos",
    "tanh",
    "sinh",
    "cosh",
    "erf",
    "erfc",
    "sigmoid",
    "softplus",
    "max",
    "min",
)
CONSTANTS = ("pi", "e")


# --- parsing ---------------------------------------------------------------------------------


class _Refused(ActivationInputError):
    pass


def _refuse(text: str, node: ast.AST | None, what: str) -> ActivationInputError:
    segment = ast.get_source_segment(text, node) if node is not None else None
    where = f" in {segment!r}" if segment else ""
    allowed = "allowed: numbers, x, pi, e, + - * / **, and " + ", ".join(FUNCTIONS)
    return _Refused(f"{{activation}} expression: {what}{where} is not allowed ({allowed})")


_DECIMAL = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _literal(text: str, node: ast.Constant) -> Fraction:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refuse(text, node, f"the literal {value!r}")
    source = (ast.get_source_segment(text, node) or repr(value)).replace("_", "")
    if not _DECIMAL.fullmatch(source):  # 0xef, 0o17, 0b101: its "e" is no exponent
        raise _refuse(text, node, f"the number {source[:40]!r} (numbers are written in decimal)")
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


def _trivially_constant(kind: str, left: Node, right: Node) -> Node | None:
    """u**0 = 1, u*0 = 0 and u - u = 0 as constants, so that abs(x)**0 is refused as not
    depending on x at once (the quadrature of a constant with a kink only finds, slowly, that
    its variance cannot be resolved)."""
    if kind == "pow" and right.kind == "num" and right.value == 0:
        return num(1)
    if kind == "mul" and (
        (left.kind == "num" and left.value == 0) or (right.kind == "num" and right.value == 0)
    ):
        return num(0)
    if kind == "sub" and left == right:
        return num(0)
    return None


def _convert(text: str, node: ast.AST, count: list[int]) -> Node:
    count[0] += 1
    if count[0] > MAX_NODES:
        raise ActivationInputError(f"{{activation}} expression is too long: at most {MAX_NODES} operations")
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
        constant = _trivially_constant(kind, left, right)
        if constant is not None:
            return constant
        if kind == "pow":
            if right.has_x:
                base = _constant_value(left)
                if base is None:
                    raise _refuse(
                        text, node, "a power with x in both base and exponent (write exp(v*log(u)))"
                    )
                if not base > 0:
                    raise _refuse(text, node, "a power of a base that is not positive with x in the exponent")
                return Node("call", (Node("mul", (right, Node("call", (left,), "log"))),), "exp")
            exponent = _constant_value(right)
            if exponent is None or not abs(exponent) <= MAX_POWER:
                raise _refuse(text, node, f"an exponent beyond ±{MAX_POWER}")
            base = _constant_value(left)
            if (
                base is not None
                and abs(base) > 1
                and abs(exponent) * mpmath.log10(abs(base)) > MAX_LITERAL_EXPONENT
            ):
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
        ast.Attribute: "attribute access",
        ast.Subscript: "subscripting",
        ast.Lambda: "lambda",
        ast.Compare: "a comparison",
        ast.BoolOp: "a boolean operator",
        ast.IfExp: "a conditional",
        ast.List: "a list",
        ast.Tuple: "a tuple",
        ast.Dict: "a dict",
        ast.Set: "a set",
        ast.JoinedStr: "an f-string",
        ast.NamedExpr: "an assignment",
        ast.ListComp: "a comprehension",
        ast.GeneratorExp: "a generator",
        ast.Await: "await",
        ast.Starred: "starred arguments",
    }
    raise _refuse(text, node, names.get(type(node), f"a {type(node).__name__} expression"))


def parse(text: str) -> Node:
    """The checked tree of an expression in x; InputError for anything not whitelisted."""
    if len(text) > MAX_LENGTH:
        raise ActivationInputError(
            f"{{activation}} expression is too long: {len(text)} characters, at most {MAX_LENGTH}"
        )
    source = text.strip()
    if "__" in source:
        raise ActivationInputError("{activation} expression: names with '__' are not allowed")
    try:
        with warnings.catch_warnings():
            # Python's parser warns on stderr about text like "1if x"; the user gets our one
            # line instead (the whitelist refuses it, or it is a syntax error).
            warnings.simplefilter("error", SyntaxWarning)
            tree = ast.parse(source, mode="eval")
    except SyntaxError as error:
        where = f" at column {error.offset}" if error.offset else ""
        raise ActivationInputError(
            f"{{activation}} is neither a catalog name nor a valid expression in x (syntax error{where}: {source!r})"
        ) from None
    except (ValueError, RecursionError, MemoryError):
        raise ActivationInputError(f"{{activation}} expression cannot be parsed: {source[:60]!r}") from None
    try:
        node = _convert(source, tree, [0])
    except RecursionError:
        raise ActivationInputError("{activation} expression is nested too deeply") from None
    if not node.has_x:
        raise ActivationInputError(f"{{activation}} expression {source!r} does not depend on x")
    if _depth(node) > MAX_DEPTH:
        raise ActivationInputError(
            f"{{activation}} expression is nested too deeply: at most {MAX_DEPTH} functions or powers inside each other"
        )
    return node


def _depth(node: Node) -> int:
    """How many calls and powers are nested inside each other (x and numbers: 0)."""
    below = max((_depth(a) for a in node.args), default=0)
    return below + (1 if node.kind in ("call", "pow") else 0)
