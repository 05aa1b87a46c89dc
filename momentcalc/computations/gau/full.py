"""The full GAU output estimate (``gau-scale``'s ``output_rms``, ``attention_offdiag_mean``).

O = (U ⊙ A V) W_o, A = relu²(Z Zᵀ)/(n·s), U, V, Z = φ(X W), X ~ N(0, 1)^(n×d), every weight
λ times its LeCun std (λ = init_std·sqrt(d)). Treat the entries of U, V, Z as iid
Y = φ(λ·ε), ε ~ N(0, 1), with m_k = E[Y^k] (the moments engine). Integrating W_o (variance
λ²/e), U and V out exactly,

    E[O²] = λ²·m2·E[(m2 − m1²)·Σ_j A_ij² + m1²·(Σ_j A_ij)²]
          = λ²·[P1 + (n−1)·P2 + 2(n−1)·P3 + (n−1)(n−2)·P4],
    P1 = m2²·E[A_ii²],  P2 = m2²·E[A_ij²],  P3 = m2·m1²·E[A_ii·A_ij],  P4 = m2·m1²·E[A_ij·A_ik]

(Su, 2022, GAU at initialization keeps A_ii only, with ⟨Z_i, Z_i⟩ = s·m2). Without the relu,
each E[·] is a polynomial in m_1 … m_8 and s: powers of ⟨Z_i, Z_j⟩ and ‖Z_i‖² are column sums
(``engine.column_sums``). The relu's part is approximated in ``gau_negative``.

Finite width. The pre-activations of a layer are not iid: given X, each column of X·W is
N(0, λ²K) with K = X Xᵀ/d, so token norms fluctuate (K_ii − 1, variance 2/d) and tokens overlap
(K_ij, variance 1/d). Every term above involves at most three tokens, whose K is a 3×3 Wishart
matrix; expanding each term to second order in K − I (Gaussian law with covariance I + Δ:
E_{I+Δ}[F] = Σ Π (Δ_pq^k/k!)·Π_t E[He_(n_t)·F], the multivariate Mehler expansion) and
averaging over K adds the 1/d terms

    Σ_t (2/d)·∂²/∂Δ_tt² + Σ_{p<q} (1/d)·∂²/∂Δ_pq²   (at Δ = 0),

which need E[He_n(ε)·Y^b] for n ≤ 4. At d = 768 they add about 10 % to E[O²] (30–80 % at
d = 256, small λ); the terms of order 1/d² are dropped. Against drawn GAUs (swish, relu, gelu;
λ = 1 and 0.02·sqrt(d); s 32–128; n 128–2048; d 256–768) the estimate lands within 2 %
(tests/test_gau_full.py), where the iid model alone is 3–25 % low.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import mpmath

from ...catalog import resolve
from ...errors import InputError, PrecisionError
from ...engine.column_sums import column_sum_moment, times
from ...moments import expectations
from ...moments.expectations import expectations_by_quadrature
from .hermite_doubles import strip_table
from .negative import negative_parts

if TYPE_CHECKING:
    from ...catalog import Activation

# Moments for the estimate: it is good to about 1 %, so 10 digits are ample.
ESTIMATE_DIGITS = 10
# Measured agreement with drawn GAUs at the tested configurations (relative, on output_rms).
MEASURED_ACCURACY = 0.02
# Relative accuracy of the gamma law for the relu's part (measured: 2.5 % at s = 128, 15 % at s = 32).
NEGATIVE_PART_ACCURACY = 0.2

# Hermite polynomials He_n used by the expansion (n ≤ 4 and n = 3 never occurs).
HERMITE = {0: {0: 1}, 1: {1: 1}, 2: {2: 1, 0: -1}, 4: {4: 1, 2: -6, 0: 3}}
# Highest power of Y needed with each He_n (He_4: a token's variance at second order, ‖Z_i‖⁸).
POWERS = {0: 8, 1: 6, 2: 8, 4: 8}

# The four index patterns of Σ_{j,k} A_ij·A_ik·V_j·V_k: tokens, column sums of Z with their
# powers, powers of V by token, and the factor m2·m2 or m2·m1² they carry.
PATTERNS = {
    "P1": (("i",), ({"i": 2},), (4,), {"i": 2}),
    "P2": (("i", "j"), ({"i": 1, "j": 1},), (4,), {"j": 2}),
    "P3": (("i", "k"), ({"i": 2}, {"i": 1, "k": 1}), (2, 2), {"i": 1, "k": 1}),
    "P4": (("i", "j", "k"), ({"i": 1, "j": 1}, {"i": 1, "k": 1}), (2, 2), {"j": 1, "k": 1}),
}


class FullEstimate(NamedTuple):
    """``mean_square`` E[O²]; ``accuracy`` the relative accuracy of its square root;
    ``offdiag_removed`` what the relu takes off E[A_ij] (0 for φ ≥ 0) with ``offdiag_error``, its
    absolute accuracy; shares of E[O²] for the notes. (A NamedTuple, not a frozen dataclass:
    about 0.5 ms less to create at every gau-scale call.)"""

    mean_square: mpmath.mpf
    accuracy: float
    offdiag_removed: mpmath.mpf
    offdiag_error: mpmath.mpf
    iid_mean_square: mpmath.mpf
    relu_share: float
    width_share: float
    offdiag_terms_share: float


def hermite_table(
    activation: str, params: Mapping[str, object] | None, lam: mpmath.mpf
) -> dict[tuple[int, int], mpmath.mpf]:
    """H[n, b] = E[He_n(ε)·φ(λε)^b], ε ~ N(0, 1): for an activation analytic in a strip by the
    trapezoidal rule in doubles (``hermite_doubles``), else through the moments engine
    (E[X^a·φ(X)^b] for X ~ N(0, λ²), divided by λ^a)."""
    doubles = strip_table(activation, params, lam)
    if doubles is not None:
        return {
            (n, b): mpmath.mpf(doubles[n, b] if b else 1 if n == 0 else 0)
            for n, top in POWERS.items()
            for b in range(top + 1)
        }
    wanted = sorted({(a, b, 0) for n, top in POWERS.items() for a in HERMITE[n] for b in range(1, top + 1)})
    raw = dict(zip(wanted, _expectations(expectations, activation, params, wanted, lam)))
    table = {}
    for n, top in POWERS.items():
        for b in range(top + 1):
            if b == 0:
                table[n, 0] = mpmath.mpf(1 if n == 0 else 0)
                continue
            table[n, b] = mpmath.fsum(c * raw[a, b, 0] / lam**a for a, c in HERMITE[n].items())
    return table


def _expectations(expectations, activation, params, wanted, lam):
    """Certified (Arb) where the engine can prove the digits; else its quadrature route (the
    estimate needs values, not proven roundings: an exact 0.5002 sits on a rounding tie, an odd
    φ makes E[ε·φ(λε)²] exactly 0)."""
    try:
        return expectations(activation, wanted, std=lam, digits=ESTIMATE_DIGITS, params=params)
    except PrecisionError:
        pass

    act = resolve(activation, params)
    try:
        return expectations_by_quadrature(act, wanted, std=lam, digits=ESTIMATE_DIGITS)
    except PrecisionError:
        pass
    values = []
    for monomial in wanted:  # the one that cancels to 0 counts as 0
        try:
            values.extend(expectations_by_quadrature(act, [monomial], std=lam, digits=ESTIMATE_DIGITS))
        except PrecisionError as error:
            if "cancels" not in str(error):
                raise
            values.append(mpmath.mpf(0))
    return values


def diverges(error: InputError) -> bool:
    return "diverges" in str(error)


def _pattern(h: dict[tuple[int, int], float], name: str, s: int, d: int) -> tuple[float, float]:
    """(value at K = I, its 1/d term) of one pattern, in units of the normalised Y.

    Remembered by (h, name, s, d): a sweep over n or e asks the same again."""
    return _remembered_pattern(tuple(sorted(h.items())), name, s, d)


@functools.lru_cache(maxsize=256)
def _remembered_pattern(
    items: tuple[tuple[tuple[int, int], float], ...], name: str, s: int, d: int
) -> tuple[float, float]:
    h = dict(items)
    tokens, sums, powers, v_powers = PATTERNS[name]
    perturbations: list[tuple[str, ...]] = [("var", t) for t in tokens]
    perturbations += [("cov", p, q) for p, q in itertools.combinations(tokens, 2)]

    def moment(b: dict[str, int], r: int, perturbation: tuple[str, ...] | None) -> float:
        """Coefficient of ε^r in E[Π_t Y_t^b_t] when ε perturbs the law (Mehler expansion)."""
        if r == 0:
            return _product(h[0, b.get(t, 0)] for t in b)
        assert perturbation is not None
        kind, *who = perturbation
        if any(t not in b for t in who):
            return 0.0
        n = dict.fromkeys(b, 0)
        if kind == "var":
            n[who[0]] = 2 * r
            weight = 1 / (2**r * _factorial(r))
        else:
            n[who[0]] = n[who[1]] = r
            weight = 1 / _factorial(r)
        return weight * _product(h[n[t], b[t]] for t in b)

    base = 0.0
    width = 0.0
    for perturbation in [None, *perturbations]:
        order = 0 if perturbation is None else 2
        z = column_sum_moment(sums, powers, lambda b, r: moment(b, r, perturbation), s, order)
        u = [moment({"i": 2}, r, perturbation) for r in range(order + 1)]
        v = [moment(dict(v_powers), r, perturbation) for r in range(order + 1)]
        value = times((z, u, v), order)
        if perturbation is None:
            base = value[0]
        else:
            width += value[2] * (2 if perturbation[0] == "var" else 1) / d
    return base, width


def _product(values) -> float:
    out = 1.0
    for v in values:
        out *= v
    return out


def _factorial(r: int) -> int:
    return 1 if r < 2 else r * _factorial(r - 1)


def nonnegative(activation: str, params: Mapping[str, object] | None, lam: mpmath.mpf) -> bool:
    """φ(λx) ≥ 0 wherever the Gaussian weight matters: then ⟨Z_i, Z_j⟩ ≥ 0 and the relu removes
    nothing. A catalog entry declares it (``Activation.nonnegative``, for every real x and so
    for every λ > 0); an expression is checked by ``nonnegative_on_grid``."""
    act = resolve(activation, params)
    if act.nonnegative is not None:
        return act.nonnegative(act.param_values())
    return nonnegative_on_grid(act, lam)


def nonnegative_on_grid(act: Activation, lam: mpmath.mpf) -> bool:
    """φ(λx) ≥ 0 for |x| ≤ 40 (beyond, the Gaussian weight is below e^−800), at φ's kinks and
    on a grid of step 1/50, at 20 digits."""
    values = act.param_values()
    with mpmath.workdps(20):
        # kinks first, then the grid, lazily: the first negative value ends the check
        points = itertools.chain(
            (k / lam for k in act.kinks(values) if abs(k / lam) <= 40),
            (mpmath.mpf(k) / 50 for k in range(-2000, 2001)),
        )
        try:
            return all(act.fn(lam * x, values) >= 0 for x in points)
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return False


def full_estimate(
    activation: str, params: Mapping[str, object] | None, s: int, n: int, d: int, lam: mpmath.mpf
) -> FullEstimate:
    """E[O²] and E[A_ij] with the relu's part and the 1/d terms (see the module docstring).

    Raises InputError when a moment up to E[φ(λε)⁸] diverges (the caller reports infinity)."""
    table = hermite_table(activation, params, lam)
    sigma = mpmath.sqrt(table[0, 2])
    if sigma == 0:
        zero = mpmath.mpf(0)
        return FullEstimate(zero, 0.0, zero, zero, zero, 0.0, 0.0, 0.0)
    h = {key: float(value / sigma ** key[1]) for key, value in table.items()}  # Y / sqrt(m2)
    m = [h[0, p] for p in range(9)]
    negative = {"P2": 0.0, "P3": 0.0, "P4": 0.0, "offdiag": 0.0}
    if not nonnegative(activation, params, lam):
        negative = negative_parts(m, s)
    weights = {"P1": 1, "P2": n - 1, "P3": 2 * (n - 1), "P4": (n - 1) * (n - 2)}
    outer = {"P1": m[2] * m[2], "P2": m[2] * m[2], "P3": m[2] * m[1] ** 2, "P4": m[2] * m[1] ** 2}
    iid = total = relu = width = offdiag_terms = 0.0
    for name, weight in weights.items():
        if weight == 0:
            continue
        base, correction = _pattern(h, name, s, d)
        removed = outer[name] * negative.get(name, 0.0)
        iid += weight * (base - removed)
        total += weight * (base - removed + correction)
        relu += weight * removed
        width += weight * correction
        if name != "P1":
            offdiag_terms += weight * (base - removed + correction)
    scale = lam**2 * sigma**12 / (mpmath.mpf(n) * s) ** 2
    relu_share = relu / total if total else 0.0
    width_share = width / total if total else 0.0
    accuracy = max(MEASURED_ACCURACY, NEGATIVE_PART_ACCURACY * relu_share / 2, width_share**2 / 4)
    # E[A_ij] = (E[G²] − E[N_2])/(n·s): the caller has E[G²]/(n·s) exactly.
    offdiag_scale = sigma**4 / (mpmath.mpf(n) * s)
    return FullEstimate(
        mean_square=scale * total,
        accuracy=accuracy,
        offdiag_removed=offdiag_scale * negative["offdiag"],
        offdiag_error=offdiag_scale * NEGATIVE_PART_ACCURACY * negative["offdiag"],
        iid_mean_square=scale * iid,
        relu_share=relu_share,
        width_share=width_share,
        offdiag_terms_share=offdiag_terms / total if total else 0.0,
    )
