"""User activations written as expressions in x, parsed safely: ``parse_activation``.

Nothing from the text is ever executed. ``expression_parse`` checks the text against a
whitelist (see there) and builds our own small ``Node`` tree, from which the mpmath function,
its derivative (symbolic differentiation on the tree), the sympy expression, the parity and the
points where the function is not smooth or not defined are all built.

The work is split by what it holds: ``expression_tree`` (the ``Node`` tree, the exceptions and
the text printer), ``expression_parse`` (the whitelist and ``parse``), ``expression_eval``
(the mpmath function), ``expression_calculus`` (derivative, sympy, parity, critical parts)
and ``expression_domain`` (zeros, definedness checks). This module builds the ``Activation``
and re-exports the names importers use.
"""

from __future__ import annotations

import mpmath

from .activations import Activation
from .expression_calculus import critical_parts, derivative, parity, to_sympy
from .expression_domain import (
    GRID_POINTS,
    SCAN_HALF_WIDTH,
    SCAN_POINTS,
    _checked,
    check_defined,
    zeros,
)
from .expression_eval import EXP_LIMIT, compile_mpmath, compile_shared
from .expression_parse import (
    CONSTANTS,
    FUNCTIONS,
    MAX_LENGTH,
    MAX_LITERAL_DIGITS,
    MAX_LITERAL_EXPONENT,
    MAX_NODES,
    MAX_POWER,
    parse,
)
from .expression_tree import (
    ONE,
    ZERO,
    Node,
    Singular,
    SingularInput,
    TooLarge,
    Undefined,
    UndefinedInput,
    X,
    num,
)

__all__ = [
    "CONSTANTS",
    "EXP_LIMIT",
    "FUNCTIONS",
    "GRID_POINTS",
    "MAX_LENGTH",
    "MAX_LITERAL_DIGITS",
    "MAX_LITERAL_EXPONENT",
    "MAX_NODES",
    "MAX_POWER",
    "ONE",
    "SCAN_HALF_WIDTH",
    "SCAN_POINTS",
    "ZERO",
    "Node",
    "Singular",
    "SingularInput",
    "TooLarge",
    "Undefined",
    "UndefinedInput",
    "X",
    "check_defined",
    "compile_mpmath",
    "critical_parts",
    "derivative",
    "num",
    "parity",
    "parse",
    "parse_activation",
    "to_sympy",
    "tree_activation",
    "zeros",
]


def parse_activation(text: str) -> Activation:
    """An ``Activation`` for an expression in x (InputError if it is not allowed)."""
    return tree_activation(parse(text), text.strip())


def tree_activation(node: Node, label: str, formula: str | None = None) -> Activation:
    """An ``Activation`` for an already checked expression tree (``parse``'s, or one built from
    it: a derivative, a substitution), ``label`` naming it in errors; ``formula`` (default the
    tree's text) is how messages name it: a tree built inside a computation (φ'(x), φ(x)·φ(−x))
    is named by what it is of the user's activation, never by its internal text."""
    fn = _checked(compile_mpmath(node), label)
    d_node = derivative(node)
    dfn = _checked(compile_mpmath(d_node), label)
    critical = tuple(compile_mpmath(part) for part in critical_parts(node))
    # φ and φ' together, each shared sub-expression computed once (the quadrature's nodes).
    start, (shared_fn, shared_dfn) = compile_shared(node, d_node)
    pair_fn, pair_dfn = _checked(shared_fn, label), _checked(shared_dfn, label)

    def pair(x: mpmath.mpf, p: object) -> tuple[mpmath.mpf, mpmath.mpf]:
        start()
        return pair_fn(x), pair_dfn(x)

    return Activation(
        name="expression",
        formula=str(node) if formula is None else formula,
        fn=lambda x, p: fn(x),
        derivative=lambda x, p: dfn(x),
        sympy=lambda sp, x, p: to_sympy(node, x),
        parity=parity(node),
        expression=True,
        critical=critical,
        tree=node,
        pair=pair,
        pair_exact=True,
    )
