"""The checked expression tree: ``Node`` (with its constructors ``num``, ``X``, ``ZERO``,
``ONE``), the exceptions raised when an expression has no finite real value, and the printer
that writes a tree back as Python-syntax text.

The parser (``expression_parse``) turns the user's text into this tree; everything else (the
mpmath function, the derivative, the sympy expression, the parity, the critical points) is
built from it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..errors import InputError


class Undefined(ArithmeticError):
    """The expression has no real value at this point (log of a negative number, …)."""


class Singular(ArithmeticError):
    """The expression is infinite at this point (division by zero, log(0))."""


class ActivationInputError(InputError):
    """Bad input about the ``activation`` argument (its messages start with ``{activation}``)."""

    def __init__(self, message: str, **fields: Any) -> None:
        fields.setdefault("param", "activation")
        super().__init__(message, **fields)


class UndefinedInput(ActivationInputError):
    """The expression has no real value on a set of positive probability."""


class SingularInput(ActivationInputError):
    """The expression is infinite (or too large to evaluate) at a point."""


class TooLarge(ArithmeticError):
    """exp, sinh or cosh of an argument so large that no Gaussian weight can balance it."""


class Node:
    """A checked expression: kind in num, const, x, neg, add, sub, mul, div, pow, call (and
    chain, a product made by the chain rule). Frozen, compared and hashed by its three fields
    (what a frozen dataclass gave, written out: the dataclass's generated methods cost about
    0.6 ms of CPU to build at every call that imports the catalog)."""

    __slots__ = ("args", "kind", "value")
    kind: str
    args: tuple[Node, ...]
    value: Any  # Fraction for num, name for const and call

    def __init__(self, kind: str, args: tuple[Node, ...] = (), value: Any = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Node:
            return NotImplemented
        return (self.kind, self.args, self.value) == (other.kind, other.args, other.value)

    def __hash__(self) -> int:
        return hash((self.kind, self.args, self.value))

    def __repr__(self) -> str:
        return f"Node(kind={self.kind!r}, args={self.args!r}, value={self.value!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return Node, (self.kind, self.args, self.value)

    def __str__(self) -> str:
        return _text(self)

    @property
    def has_x(self) -> bool:
        return self.kind == "x" or any(a.has_x for a in self.args)


def num(value: Fraction | int) -> Node:
    return Node("num", value=Fraction(value))


X = Node("x")
ZERO, ONE = num(0), num(1)


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
