"""Symbolic derivations with sympy, used only by ``--derive`` (sympy is imported here only)."""

from __future__ import annotations

from typing import Any

from ..engine.numbers import sympy_number

__all__ = ["forms", "labelled", "shortest", "sympy_number"]


def shortest(expr: Any) -> Any:
    """The shortest of a few cheap rewritings of ``expr`` (no full ``simplify``, which can hang)."""
    import sympy as sp

    candidates = [expr, sp.powsimp(sp.expand(expr)), sp.factor_terms(expr)]
    return min(candidates, key=lambda e: (sp.count_ops(e), len(str(e))))


def forms(expr: Any) -> tuple[str, str]:
    """(text, LaTeX) of an expression: sympy's ``str``, with an equation written ``lhs = rhs``
    (not ``Eq(lhs, rhs)``) and a tuple of equations joined by ``; ``."""
    import sympy as sp

    return _text(sp, expr), sp.latex(expr)


def _text(sp: Any, expr: Any) -> str:
    if isinstance(expr, sp.Equality):
        return f"{_text(sp, expr.lhs)} = {_text(sp, expr.rhs)}"
    if isinstance(expr, sp.Tuple) and all(isinstance(item, sp.Equality) for item in expr):
        return "; ".join(_text(sp, item) for item in expr)
    return str(expr)


def labelled(label: str, expr: Any) -> tuple[str, str, str]:
    """A derivation line ``(label, "label = expr", LaTeX)`` for an expression that has no
    symbol of its own on the left (a kernel's closed form)."""
    text, latex = forms(expr)
    return label, f"{label} = {text}", latex
