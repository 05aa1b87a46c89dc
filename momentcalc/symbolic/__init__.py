"""Symbolic derivations with sympy, used only by ``--derive`` (sympy is imported here only)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def sympy_number(value: Fraction | float) -> Any:
    """An exact sympy number for an input (Rational, or ±oo)."""
    import sympy as sp

    if isinstance(value, float):
        return sp.oo if value > 0 else -sp.oo
    return sp.Rational(value.numerator, value.denominator)


def shortest(expr: Any) -> Any:
    """The shortest of a few cheap rewritings of ``expr`` (no full ``simplify``, which can hang)."""
    import sympy as sp

    candidates = [expr, sp.powsimp(sp.expand(expr)), sp.factor_terms(expr)]
    return min(candidates, key=lambda e: (sp.count_ops(e), len(str(e))))


def forms(expr: Any) -> tuple[str, str]:
    """(sympy ``str``, LaTeX) of an expression."""
    import sympy as sp

    return str(expr), sp.latex(expr)
