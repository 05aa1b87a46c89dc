"""Monte Carlo of a Gated Attention Unit at initialization (numpy; imported only by --simulate).

One trial draws, in this order from one seeded stream (the set-up of Su 2022, GAU at initialization):

    X ~ N(0, 1)^(n×d),  W_u, W_v ~ N(0, (lam/sqrt(d))²)^(d×e),  W_z ~ N(0, (lam/sqrt(d))²)^(d×s),
    W_o ~ N(0, (lam/sqrt(e))²)^(e×d)

so every matrix is lam times its LeCun std, and computes

    U = phi(X W_u),  V = phi(X W_v),  Z = phi(X W_z),  A = relu²(Z Zᵀ)/(n·s),  O = (U ⊙ A V) W_o

with Q(Z) = K(Z) = Z, as at initialization. Reported per call: the RMS of O over all trials'
entries, sqrt(mean over trials of mean(O²)), comparable with sqrt(E[O²]); its standard error
(delta method from the spread of the trials' mean squares); the mean diagonal and off-diagonal
entries of A; and the number of trials drawn (fewer than asked when ``target_stderr`` is met).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...catalog import Activation

# Steps reported to the progress bar per trial: the draws, U, V, Z, A, O.
STEPS = 6


def numpy_activation(act: Activation) -> Callable[[Any], Any]:
    """The catalog activation (or expression) as a vectorised numpy function.

    Built from the same sympy expression ``--derive`` uses, so the simulation draws through
    exactly the function whose moments are computed."""
    import sympy as sp

    x = sp.Symbol("x", real=True)
    expression = act.sympy_expression(x)
    function = sp.lambdify(x, expression, modules=["numpy", "scipy"])

    def apply(values: Any) -> Any:
        import numpy as np

        with np.errstate(over="ignore", under="ignore"):
            result = function(values)
        return np.broadcast_to(result, values.shape).astype(np.float64)

    return apply


# A normal draw costs about as much as this many multiply-adds of a matrix product.
DRAW_COST = 20


def simulation_work(n: int, d: int, e: int, s: int) -> int:
    """Multiply-adds of one drawn GAU: the six matrix products, plus its normal draws."""
    products = 2 * n * d * e + n * d * s + n * n * s + n * n * e + n * e * d
    draws = n * d + 2 * d * e + d * s + e * d
    return products + DRAW_COST * draws


def simulate_gau(
    n: int,
    d: int,
    e: int,
    s: int,
    phi: Callable[[Any], Any],
    lam: float,
    trials: int,
    seed: int,
    step: Callable[[], None] = lambda: None,
    *,
    target_stderr: float | None = None,
    min_trials: int = 3,
) -> dict[str, float]:
    """RMS of O over up to ``trials`` drawn GAUs (and its standard error), mean A_ii and A_ij;
    ``step()`` is called STEPS times per trial (the caller's progress report). With
    ``target_stderr``, stop after at least ``min_trials`` once the relative standard error of the
    RMS is at most that."""
    import numpy as np

    rng = np.random.default_rng(seed)
    squares = np.empty(trials)
    diagonal = np.empty(trials)
    off_diagonal = np.empty(trials)
    # Overflow (a huge --init-std) shows up as a non-finite RMS, which the caller reports.
    drawn = 0
    with np.errstate(over="ignore", invalid="ignore"):
        for trial in range(trials):
            x = rng.standard_normal((n, d))
            w_u = rng.standard_normal((d, e)) * (lam / math.sqrt(d))
            w_v = rng.standard_normal((d, e)) * (lam / math.sqrt(d))
            w_z = rng.standard_normal((d, s)) * (lam / math.sqrt(d))
            w_o = rng.standard_normal((e, d)) * (lam / math.sqrt(e))
            step()
            u = phi(x @ w_u)
            step()
            v = phi(x @ w_v)
            step()
            z = phi(x @ w_z)
            step()
            a = np.square(np.maximum(z @ z.T, 0.0)) / (n * s)
            trace = float(np.trace(a))
            diagonal[trial] = trace / n
            off_diagonal[trial] = (float(a.sum()) - trace) / (n * (n - 1)) if n > 1 else math.nan
            step()
            o = (u * (a @ v)) @ w_o
            squares[trial] = float(np.mean(np.square(o)))
            step()
            drawn = trial + 1
            if target_stderr is not None and drawn >= max(2, min_trials):
                mean = float(squares[:drawn].mean())
                if (
                    mean > 0
                    and float(squares[:drawn].std(ddof=1)) / math.sqrt(drawn) / (2 * mean) <= target_stderr
                ):
                    break
    squares, diagonal, off_diagonal = squares[:drawn], diagonal[:drawn], off_diagonal[:drawn]
    trials = drawn
    mean_square = float(squares.mean())
    result = {
        "trials": trials,
        "simulated_rms": math.sqrt(mean_square),
        "simulated_diag_attention": float(diagonal.mean()),
        "simulated_offdiag_attention": float(off_diagonal.mean()),
    }
    root = math.sqrt(trials)
    with np.errstate(over="ignore", invalid="ignore"):  # overflowed draws: reported by the caller
        # sqrt of a mean: its relative error is half the mean's.
        result["simulated_stderr"] = float(squares.std(ddof=1)) / root / (2 * math.sqrt(mean_square))
        result["simulated_diag_attention_stderr"] = float(diagonal.std(ddof=1)) / root
        result["simulated_offdiag_attention_stderr"] = float(off_diagonal.std(ddof=1)) / root
    return result
