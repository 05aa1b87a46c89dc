"""Symbolic derivations with sympy, used only by ``--derive`` (sympy is imported here only)."""

from __future__ import annotations

from typing import Any

from ..engine.numbers import sympy_number

__all__ = ["forms", "shortest", "sympy_number"]


def shortest(expr: Any) -> Any:
    """The shortest of a few cheap rewritings of ``expr`` (no full ``simplify``, which can hang)."""
    import sympy as sp

    candidates = [expr, sp.powsimp(sp.expand(expr)), sp.factor_terms(expr)]
    return min(candidates, key=lambda e: (sp.count_ops(e), len(str(e))))


def forms(expr: Any) -> tuple[str, str]:
    """(sympy ``str``, LaTeX) of an expression."""
    import sympy as sp

    return str(expr), sp.latex(expr)
