"""Verified roots of small nonlinear systems at arbitrary precision.

``find_root`` runs Newton's method (``mpmath.findroot``; ``MDNewton`` for systems) at the
current working precision and then checks the answer itself: every coordinate finite and
every equation below the caller's tolerance, ``max_i |f_i(x)| <= tol``. Anything else (a
singular Jacobian, no convergence, a residual above ``tol``) is a PrecisionError (exit 3),
never a silently wrong root. The global precision is the same after the call as before.

Newton converges only locally: callers give a starting point that is already in the basin
(a closed form, a bracketed estimate) and use this to polish and to verify it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath
from mpmath import mp

from ..errors import PrecisionError

Equations = Callable[..., Sequence[mpmath.mpf]]
Jacobian = Callable[..., Sequence[Sequence[mpmath.mpf]]]

# Newton from a point in the basin doubles the correct digits per step: 50 steps is far more
# than any precision up to the engine's limit needs, and still bounds the work.
MAX_STEPS = 50


def residual(equations: Equations, point: Sequence[mpmath.mpf]) -> mpmath.mpf:
    """``max_i |f_i(point)|`` at the current precision (inf if any equation is not finite)."""
    values = equations(*point)
    worst = mp.zero
    for value in values:
        if not mpmath.isfinite(value):
            return mpmath.inf
        worst = max(worst, abs(value))
    return worst


def find_root(
    equations: Equations,
    start: Sequence[object],
    *,
    tol: mpmath.mpf,
    jacobian: Jacobian | None = None,
    what: str = "the equations",
    max_steps: int = MAX_STEPS,
) -> tuple[mpmath.mpf, ...]:
    """A verified root of ``equations`` near ``start``, at the current ``mp.dps``.

    ``equations(*x)`` returns one value per unknown; ``jacobian(*x)`` (optional, else numerical
    differentiation) returns the rows d f_i / d x_j. The root is returned once Newton has
    converged as far as the precision allows and ``residual(equations, root) <= tol``;
    otherwise PrecisionError names ``what`` and the residual reached.
    """
    point = [mpmath.mpf(x) for x in start]
    options: dict[str, object] = {"verify": False, "maxsteps": max_steps}
    if jacobian is not None:
        options["J"] = lambda *x: mpmath.matrix(jacobian(*x))
    with mp.workprec(mp.prec):
        try:
            found = mpmath.findroot(lambda *x: list(equations(*x)), point, multidimensional=True, **options)
        except (ValueError, ZeroDivisionError, ArithmeticError) as error:
            raise PrecisionError(f"the root finder failed on {what}: {_first_line(error)}") from None
        root = tuple(+found[i] for i in range(len(point)))
        if not all(mpmath.isfinite(x) for x in root):
            raise PrecisionError(f"the root finder diverged on {what}")
        worst = residual(equations, root)
    if not worst <= tol:
        raise PrecisionError(
            f"the root finder did not converge on {what}: residual {mpmath.nstr(worst, 3)} "
            f"> {mpmath.nstr(tol, 3)} at {mp.dps} digits"
        )
    return root


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
