"""``gau-scale``'s numeric route (mpmath): Su's moments E[φ], E[φ²] (and E[φ⁴] with them
where one trapezoidal rule serves all three), the closed forms of Su's diagonal estimate at the
working precision, and the moments m_k = E[φ(λε)^k] at the actual init. The proofs of the same
results in Arb balls are ``proof``; the full estimate is ``full`` and ``report``."""

from __future__ import annotations

from collections.abc import Mapping

import mpmath

from ...catalog import resolve
from ...engine.numbers import Number, to_mpf
from ...errors import InputError, MomentcalcError, PrecisionError

# Extra digits asked of mu and nu2, so that their rounding stays below ours.
MOMENT_GUARD = 3


def seed_monomials(
    activation: str, params: Mapping[str, object] | None, digits: int, with_fourth: bool
) -> list[tuple[int, int, int]]:
    """E[φ], E[φ²] and, when ``with_fourth`` and the trapezoidal rule serves φ (its nodes are
    the cost, shared by every power), E[φ⁴]; the pair alone if E[φ⁴] cannot be had with them
    (it diverges, or sits on a rounding tie)."""
    from ...catalog.ball_functions import STRIP_FUNCTIONS
    from ...moments import expectations

    pair = [(0, 1, 0), (0, 2, 0)]
    act = resolve(activation, params)
    if not with_fourth or act.expression or act.name not in STRIP_FUNCTIONS:
        return pair
    triple = [*pair, (0, 4, 0)]
    try:
        expectations(activation, triple, mean=0, std=1, digits=digits, params=params)
    except MomentcalcError:
        return pair
    return triple


def theory(
    mu: mpmath.mpf, nu2: mpmath.mpf, sizes: dict[str, Number], std: Number | None
) -> dict[str, mpmath.mpf]:
    """Every closed-form result at the current precision."""
    s, n, d = (to_mpf(sizes[k]) for k in ("s", "n", "d"))
    nu4, mu4 = nu2 * nu2, mu**4
    output = s * nu4 * nu2 / n
    lam = mpmath.mpf(1) if std is None else to_mpf(std) * mpmath.sqrt(d)
    scaled = lam**7 * output
    return {
        "mu": +mu,
        "nu2": +nu2,
        "nu": mpmath.sqrt(nu2),
        "diag_attention": s * nu4 / n,
        "offdiag_attention": s * mu4 / n,
        "diag_offdiag_ratio": nu4 / mu4 if mu4 else mpmath.inf,
        "output_scale": output,
        "lambda": lam,
        "scaled_output": scaled,
        "deepnorm_alpha": 1 / scaled if scaled else mpmath.inf,
    }


def moments_at(
    activation: str,
    params: Mapping[str, object] | None,
    lam: object,
    digits: int,
    known: tuple[mpmath.mpf, mpmath.mpf] | None = None,
) -> tuple[mpmath.mpf, ...]:
    """(m1, m2, m4) of φ(λε) to ``digits`` digits, m4 = +inf when it diverges; ``known`` are
    (m1, m2) already computed (Su's, at λ = 1). Otherwise one quadrature for all three."""
    from ...moments import expectations

    if known is None:
        try:
            return tuple(
                expectations(
                    activation, [(0, 1, 0), (0, 2, 0), (0, 4, 0)], std=lam, digits=digits, params=params
                )
            )
        except (InputError, PrecisionError):
            pass
    m1, m2 = known or expectations(activation, [(0, 1, 0), (0, 2, 0)], std=lam, digits=digits, params=params)
    for extra in range(
        3
    ):  # an exact value on a rounding tie (leaky_relu 0.3: 1.51215 at 5 digits) proves at more
        try:
            return (
                m1,
                m2,
                expectations(activation, [(0, 4, 0)], std=lam, digits=digits + extra, params=params)[0],
            )
        except PrecisionError:
            if extra == 2:
                raise
        except InputError as error:
            from .full import diverges

            if diverges(error):
                return m1, m2, mpmath.inf
            raise
    raise AssertionError("unreachable")
