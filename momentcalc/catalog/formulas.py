"""Catalog activations as expression trees (``expression_parse``'s language), for the maps that
need a function built from φ rather than φ itself: φ(x)·φ(−x) (the kernel at correlation −1)
and φ'' (deep kernel shaping's C''(1)). Each entry: parameters (exact Fractions) -> the text of
φ, exactly (no rounded constant: selu, whose λ and α are roots of equations, has none).

A tree made here is the catalog's function exactly; the tests hold each against the catalog's
own mpmath function at random points.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

from .expression_calculus import hermite_symmetry
from .expression_tree import Node, X
from .expression_parse import parse


def _fraction(value: Fraction) -> str:
    value = Fraction(value)
    return f"({value.numerator}/{value.denominator})"


FORMULAS: dict[str, Callable[[Mapping[str, Fraction]], str]] = {
    "identity": lambda p: "x",
    "relu": lambda p: "max(x, 0)",
    "relu2": lambda p: "max(x, 0)**2",
    "leaky_relu": lambda p: f"max(x, 0) + {_fraction(p['slope'])}*min(x, 0)",
    "elu": lambda p: "max(x, 0) + exp(min(x, 0)) - 1",
    "gelu": lambda p: "x*(1 + erf(x/sqrt(2)))/2",
    "gelu_tanh": lambda p: "x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))/2",
    "sigmoid": lambda p: "1/(1 + exp(-x))",  # (the tree's sigmoid has no second derivative rule)
    "tanh": lambda p: "tanh(x)",
    "swish": lambda p: "x/(1 + exp(-x))",
    "softplus": lambda p: "softplus(x)",
    "mish": lambda p: "x*tanh(softplus(x))",
    "softsign": lambda p: "x/(1 + abs(x))",
    "erf": lambda p: "erf(x)",
    "relu6": lambda p: "min(max(x, 0), 6)",
    "hardtanh": lambda p: "min(max(x, -1), 1)",
    "hard_sigmoid": lambda p: "min(max(x + 3, 0), 6)/6",
    "hard_swish": lambda p: "x*min(max(x + 3, 0), 6)/6",
    "celu": lambda p: f"max(x, 0) + {_fraction(p['alpha'])}*(exp(min(x, 0)/{_fraction(p['alpha'])}) - 1)",
    "log_sigmoid": lambda p: "-log(1 + exp(-x))",
    "quick_gelu": lambda p: "x/(1 + exp(-1.702*x))",
}


def tree_of(act) -> Node | None:  # noqa: ANN001  (catalog.Activation)
    """φ as an expression tree: the expression's own, or the catalog entry's formula with its
    parameters; None when the catalog entry has none."""
    if act.expression:
        return act.tree
    formula = FORMULAS.get(act.name)
    if formula is None:
        return None

    given = dict(act.values)
    params = {p.name: Fraction(given.get(p.name, p.default)) for p in act.params}
    return parse(formula(params))


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


def vanishing_coefficient(act, k: int) -> bool:  # noqa: ANN001  (catalog.Activation)
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
