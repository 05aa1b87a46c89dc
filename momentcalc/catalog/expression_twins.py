"""Expressions that are a catalog entry's own formula: ``x*tanh(log(1 + exp(x)))`` is mish.

An entry's ``formula`` text states the function, in one or more forms joined by " = "
(mish: ``x*tanh(softplus(x)) = x*tanh(log(1 + exp(x)))``); each form that parses as an
expression (``expression_parse.parse``, the same parser a user's text goes through) is that
entry's tree, derived here from the catalog and nothing typed twice. An expression whose
parsed tree equals one of them is the same function of x, so every moment of it is the
entry's moment, and the entry's certified route proves it (tests/test_expression_twins.py
holds each entry's implementation to each of its formula's forms on balls).

The general route for expressions (Arb's adaptive integration of the expression's ball) costs
far more at high precision than an entry's own (a trapezoidal rule on a strip, closed forms):
mish at 1000 digits takes 1.7 s, its formula as an expression 99 s. From ``TWIN_FROM_DIGITS``
on, where that route's cost outgrows the 4 s budget, the moments of an expression that is an
entry's formula are the entry's. Up to there the expression keeps its own route (the same
proven digits either way; the error bounds shown differ by route).
"""

from __future__ import annotations

import functools
from fractions import Fraction

from ..errors import InputError
from .activations import Activation
from .expression_calculus import canonical
from .expression_parse import parse
from .expression_tree import Node
from .resolving import CATALOG, lookup
from .ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from .expression_ball import kink_arguments
from .expression_pieces import exp_poly_pieces

TWIN_FROM_DIGITS = 250


@functools.lru_cache(maxsize=1)
def formula_trees() -> dict[Node, str]:
    """The parsed tree of every form of every parameter-free entry's formula -> its name."""
    trees: dict[Node, str] = {}
    for act in CATALOG:
        if act.params or act.fn is None:  # (an entry without hand-written routes is its expression)
            continue
        # its formula's forms, and name(x) where the name is also a function of expressions
        # (sigmoid(x) is the entry sigmoid: the expression language's sigmoid is 1/(1 + exp(-x)))
        for form in (*act.formula.split(" = "), f"{act.name}(x)"):
            try:
                tree = parse(form.strip())
            except InputError:  # prose, a conditional (elu), a name that is no function: not an expression
                continue
            trees.setdefault(tree, act.name)
            trees.setdefault(canonical(tree), act.name)
    return trees


def twin(act: Activation) -> Activation | None:
    """The catalog entry whose formula ``act`` (an expression) is, at any digits, or whose
    function it is as a piecewise exp-polynomial (``_pieces_twin``); None if none."""
    if not act.expression or act.tree is None:
        return None
    name = formula_trees().get(act.tree) or formula_trees().get(canonical(act.tree))
    if name is None:
        name = _pieces_twin(act.tree)
    return None if name is None else lookup(name)


_PIECES_TWINS: dict[Node, str | None] = {}


def _pieces_twin(tree: Node) -> str | None:
    """The parameter-free catalog entry that is the same function as an expression with kinks,
    proven exactly: the expression's pieces (``expression_pieces``: rational kinks, and
    Σ c·x^j·e^{λx} with rational c, λ between them) equal the entry's (``EXP_POLYNOMIALS``,
    at exact kinks), term by term. (x + abs(x))/2 is relu, min(max(x + 3, 0), 6)/6 is
    hard_sigmoid, max(x, 0) + exp(min(x, 0)) − 1 is elu; their DKS transforms and Hermite
    zeros come from the entry."""
    if tree in _PIECES_TWINS:
        return _PIECES_TWINS[tree]

    found = None
    if kink_arguments(tree):
        pieces = exp_poly_pieces(tree)
        if pieces is not None:
            kinks, (values, _) = pieces
            mine = tuple(_normal(terms) for terms in values)
            for name, build in EXP_POLYNOMIALS.items():
                entry = lookup(name)
                if (
                    entry is None
                    or entry.params
                    or not all(isinstance(k, (int, Fraction)) for k in BALL_FUNCTIONS[name].kinks)
                ):
                    continue
                if tuple(Fraction(k) for k in BALL_FUNCTIONS[name].kinks) != tuple(kinks):
                    continue
                theirs = tuple(_normal(terms) for terms in build({})[0])
                if None not in theirs and theirs == mine:
                    found = name
                    break
    if len(_PIECES_TWINS) > 64:
        _PIECES_TWINS.clear()
    _PIECES_TWINS[tree] = found
    return found


def _normal(terms) -> frozenset | None:
    """A piece's terms as {(power, rate, coefficient)}, like terms merged, zeros dropped; None
    where a coefficient or rate is not an exact rational."""
    out: dict[tuple[int, Fraction], Fraction] = {}
    for t in terms:
        if not isinstance(t.c, (int, Fraction)) or not isinstance(t.rate, (int, Fraction)):
            return None
        key = (int(t.power), Fraction(t.rate))
        out[key] = out.get(key, Fraction(0)) + Fraction(t.c)
    return frozenset((j, r, c) for (j, r), c in out.items() if c != 0)


def catalog_twin(act: Activation, digits: int) -> Activation | None:
    """The catalog entry whose formula ``act`` (an expression) is, when ``digits`` are at least
    TWIN_FROM_DIGITS; None otherwise."""
    return None if digits < TWIN_FROM_DIGITS else twin(act)


def certified_route(act: Activation) -> Activation:
    """The activation whose certified routes serve ``kernel``, ``hermite`` and ``tat`` for ``act``:
    the catalog entry an expression's formula is (the bivariate and DKS routes of an expression
    need polynomial growth bounds that e.g. mish's formula x*tanh(log(1 + exp(x))) does not get,
    while the entry has its own), else ``act`` itself."""
    return twin(act) or act
