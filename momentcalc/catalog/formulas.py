"""Catalog activations as expression trees (``expression_parse``'s language): an entry's
``source`` (else its ``formula``) is the expression that defines it, parameters by name, exactly
(no rounded constant: selu, whose λ and α are roots of equations, has none). The maps that need
a function built from φ rather than φ itself take it from here: φ(x)·φ(−x) (the kernel at
correlation −1) and φ'' (deep kernel shaping's C''(1)), and an entry without hand-written
functions is its expression (``resolving.resolve``).

A tree made here is the catalog's function exactly; the tests hold each against the catalog's
own mpmath function at random points.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from .expression_calculus import hermite_symmetry
from .expression_tree import Node, X
from ..errors import InputError
from .expression_parse import parse


def _fraction(value: Fraction) -> str:
    value = Fraction(value)
    return f"({value.numerator}/{value.denominator})"


def source_text(act, params: Mapping[str, Fraction]) -> str:
    """The expression that defines a catalog entry (its ``source``, else its ``formula``) with
    its parameters written as exact fractions: ``max(x, 0) + (1/5)*min(x, 0)`` for leaky_relu at
    slope 0.2."""
    text = act.source or act.formula
    for name, value in params.items():
        text = re.sub(rf"\b{re.escape(name)}\b", _fraction(value), text)
    return text


def tree_of(act) -> Node | None:
    """φ as an expression tree: the expression's own, or the catalog entry's formula with its
    parameters; None when the catalog entry has none."""
    if act.expression:
        return act.tree
    given = dict(act.values)
    params = {p.name: Fraction(given.get(p.name, p.default)) for p in act.params}
    try:
        return parse(source_text(act, params))
    except InputError:  # a display formula that is no expression (selu's λ and α): none
        return None


def substitute(node: Node, replacement: Node) -> Node:
    """The tree with every x replaced by ``replacement``."""
    if node.kind == "x":
        return replacement
    if not node.args:
        return node
    return Node(node.kind, tuple(substitute(a, replacement) for a in node.args), node.value)


def mirrored_product(node: Node) -> Node:
    """φ(x)·φ(−x)."""
    return Node("mul", (node, substitute(node, Node("neg", (X,)))))


# Catalog entries whose odd part φ(x) − φ(−x) is linear in x (so their Hermite coefficients a_k
# vanish for odd k ≥ 3), each by an identity: relu: max(x, 0) − max(−x, 0) = x; leaky_relu:
# (1 + s)·x; softplus: log((1 + e^x)/(1 + e^{−x})) = x; gelu: x·Φ(x) + x·Φ(−x) = x; swish:
# x·(σ(x) + σ(−x)) = x; gelu_tanh: x·(2 + tanh u − tanh u)/2 = x; hard_swish and quick_gelu:
# x·(s(x) + s(−x)) = x as hard_sigmoid(x) + hard_sigmoid(−x) = 1 and σ(kx) + σ(−kx) = 1;
# log_sigmoid: softplus(x) − softplus(−x) = x. And entries whose even part φ(x) + φ(−x) is
# constant (a_k = 0 for even k ≥ 2): sigmoid and hard_sigmoid, s(x) + s(−x) = 1. (Odd and even
# entries have half their coefficients 0 by their parity.) The tests check each identity.
LINEAR_ODD_PART = frozenset(
    {
        "identity",
        "relu",
        "leaky_relu",
        "softplus",
        "gelu",
        "swish",
        "gelu_tanh",
        "hard_swish",
        "quick_gelu",
        "log_sigmoid",
    }
)
CONSTANT_EVEN_PART = frozenset({"sigmoid", "hard_sigmoid"})


def vanishing_coefficient(act, k: int) -> bool:
    """Is the Hermite coefficient a_k of φ exactly 0 by a symmetry of φ? (An expression's
    symmetries beyond parity: ``expression_calculus.hermite_symmetry``.)"""
    extra = _expression_symmetry(act.tree) if act.expression and act.tree is not None else None
    if (
        act.parity == "odd"
        or (not act.expression and act.name in CONSTANT_EVEN_PART)
        or extra == "constant_even_part"
    ):
        if k % 2 == 0 and (act.parity == "odd" or k >= 2):
            return True
    if (
        act.parity == "even"
        or (not act.expression and act.name in LINEAR_ODD_PART)
        or extra == "linear_odd_part"
    ):
        if k % 2 == 1 and (act.parity == "even" or k >= 3):
            return True
    return False


_SYMMETRIES: dict[Node, str | None] = {}


def _expression_symmetry(tree: Node) -> str | None:
    if tree not in _SYMMETRIES:
        if len(_SYMMETRIES) > 64:
            _SYMMETRIES.clear()
        _SYMMETRIES[tree] = hermite_symmetry(tree)
    return _SYMMETRIES[tree]
