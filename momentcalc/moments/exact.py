"""Moments that are rational numbers, exactly (Fractions), so that a value on a rounding tie
is rounded by the one stated rule (half away from zero) instead of waiting for a ball that
can never decide it: leaky_relu at slope 0.3 has E[φ(Z)²] = (1 + 0.09)/2 = 0.545 exactly.

Two sources, both exact:

* a piecewise polynomial with rational coefficients (the catalog's ``EXP_POLYNOMIALS`` without
  exponentials: identity, relu, relu2, leaky_relu at a rational slope; an expression that is a
  polynomial) whose kinks lie at the mean: with x = mean + std·z, the integrand is a
  polynomial Σ h_k z^k on each half-line (or the whole line), and the Gaussian moments there
  are ∫_0^∞ z^k φ(z) dz = (k − 1)!!/2 (k even) and 2^((k−1)/2)·((k−1)/2)!/sqrt(2π) (k odd), so
  E = A + B/sqrt(2π) with A, B rational; it is rational when B = 0 (1/sqrt(2π) is
  transcendental);
* under N(0, 1), the catalog's closed forms evaluated on the parameters as fractions: a form
  built from rational arithmetic alone gives a Fraction (selu's 0 and 1).

From those: variance = second_moment − mean², rms = sqrt(second_moment), gain = 1/rms,
centered_gain = 1/sqrt(variance), each when its inputs are rational and the roots too.
An irrational value is never on a tie: its ball decides its rounding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ..catalog import Activation
from ..engine.gaussian_balls import ExpTerm
from ..engine.numbers import Number, rational_sqrt
from .monomials import DERIVATIVE_SECOND_MOMENT, MEAN, NAMES, SECOND_MOMENT, Monomial
from ..catalog.ball_functions import BALL_FUNCTIONS, EXP_POLYNOMIALS
from ..catalog.expression_ball import poly_mul, polynomial_terms, rational_constant
from ..catalog.expression_calculus import derivative
from ..catalog.expression_pieces import exp_poly_pieces

# Integrand polynomials of higher degree are left to the balls (x**1000's second moment
# would be a degree-2000 expansion in big fractions).
MAX_EXACT_DEGREE = 64

# (kinks, [(φ, φ') as coefficient lists, constant first, per interval between the kinks])
Pieces = tuple[Sequence[Fraction], list[tuple[list[Fraction], list[Fraction]]]]


def exact_closed_form(act: Activation, key: str) -> Fraction | None:
    """The catalog's closed form ``key`` ("mean", "second_moment", "derivative_second_moment")
    under N(0, 1) as a Fraction when it is rational at the bound parameters, else None."""
    form = None if act.expression else act.closed_forms.get(key)
    if form is None:
        return None
    try:
        return Fraction(form.text)
    except ValueError:
        pass
    given = dict(act.values)
    values = {p.name: Fraction(given.get(p.name, p.default)) for p in act.params}
    try:
        value = form.value(values)
    except (TypeError, ValueError):
        return None
    return Fraction(value) if isinstance(value, (int, Fraction)) else None


def rational_pieces(act: Activation) -> Pieces | None:
    """φ as a piecewise polynomial with rational coefficients, or None."""
    if act.expression:
        f = polynomial_terms(act.tree, rational_constant)
        d = None if f is None else polynomial_terms(derivative(act.tree), rational_constant)
        if f is None or d is None:
            return _rational_expression_pieces(act)
        return (), [(_dense(f), _dense(d))]

    build = EXP_POLYNOMIALS.get(act.name)
    if build is None:
        return None
    given = dict(act.values)
    values, derivatives = build({p.name: Fraction(given.get(p.name, p.default)) for p in act.params})
    pieces = []
    for f, d in zip(values, derivatives):
        if any(term.rate != 0 or not isinstance(term.c, (int, Fraction)) for term in (*f, *d)):
            return None  # an exponential, or a coefficient known only as a ball (selu's λ)
        pieces.append((_dense(_exact_terms(f)), _dense(_exact_terms(d))))
    return BALL_FUNCTIONS[act.name].kinks, pieces


def _rational_expression_pieces(act: Activation) -> Pieces | None:
    """An expression such as max(x, 0) or abs(x) - x/2 as rational polynomial pieces between
    exact kinks (``catalog.expression_pieces``: no exponentials), or None."""

    found = exp_poly_pieces(act.tree)
    if found is None:
        return None
    kinks, (values, derivatives) = found
    pieces = []
    for f, d in zip(values, derivatives):
        if any(term.rate != 0 or not isinstance(term.c, (int, Fraction)) for term in (*f, *d)):
            return None
        pieces.append((_dense(_exact_terms(f)), _dense(_exact_terms(d))))
    return kinks, pieces


def _exact_terms(terms: Sequence[ExpTerm]) -> dict[int, int | Fraction]:
    """The coefficients by power of terms whose coefficients are exact (checked by the caller)."""
    return {t.power: c for t in terms if isinstance(c := t.c, (int, Fraction))}


def _dense(terms: dict[int, int | Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (max(terms, default=0) + 1)
    for power, c in terms.items():
        out[power] += Fraction(c)
    return out


def _half_line_moment(k: int) -> tuple[Fraction, Fraction]:
    """∫_0^∞ z^k φ(z) dz as (A, B): A + B/sqrt(2π)."""
    if k % 2 == 0:
        return Fraction(math.prod(range(k - 1, 0, -2)), 2), Fraction(0)
    return Fraction(0), Fraction(2 ** ((k - 1) // 2) * math.factorial((k - 1) // 2))


def _piece_expectation(
    g: list[Fraction], mean: Fraction, std: Fraction, side: int
) -> tuple[Fraction, Fraction]:
    """E[g(X); X on one side of the mean] (side +1, −1), or over the whole line (side 0), as
    (A, B): with x = mean + std·z, g = Σ h_k z^k, h_k = Σ_j g_j·C(j, k)·mean^(j−k)·std^k."""
    a = b = Fraction(0)
    for k in range(len(g)):
        if mean == 0:  # only j = k is left of the sum (the same value, without its zero terms)
            h = Fraction(g[k]) * std**k
        else:
            h = (
                sum((g[j] * math.comb(j, k) * mean ** (j - k) for j in range(k, len(g))), Fraction(0))
                * std**k
            )
        if not h:
            continue
        if side == 0:
            a += h * math.prod(range(k - 1, 0, -2)) if k % 2 == 0 else 0
            continue
        part_a, part_b = _half_line_moment(k)
        sign = side**k
        a, b = a + sign * h * part_a, b + sign * h * part_b
    return a, b


def _expectation(pieces: Pieces, monomial: Monomial, mean: Fraction, std: Fraction) -> Fraction | None:
    """E[x^a·φ^b·φ'^c] exactly when it is rational, from φ's rational pieces."""
    kinks, polys = pieces
    if len(kinks) > 1 or any(k != mean for k in kinks):
        return None
    a, b, c = monomial
    degree = max(a + b * (len(f) - 1) + c * (len(d) - 1) for f, d in polys)
    if degree > MAX_EXACT_DEGREE:
        return None
    total_a = total_b = Fraction(0)
    sides = (-1, 1) if kinks else (0,)
    for side, (f, d) in zip(sides, polys):
        g = [Fraction(0)] * a + [Fraction(1)]
        for factor, power in ((f, b), (d, c)):
            for _ in range(power):
                g = poly_mul(g, factor)
        part_a, part_b = _piece_expectation(g, mean, std, side)
        total_a, total_b = total_a + part_a, total_b + part_b
    return total_a if total_b == 0 else None


def exact_expectations(
    act: Activation, monomials: Sequence[Monomial], mean: Number, std: Number
) -> dict[Monomial, Fraction]:
    """E[x^a·φ^b·φ'^c] for the monomials whose value is rational and known exactly."""
    if not (isinstance(mean, (int, Fraction)) and isinstance(std, (int, Fraction))):
        return {}  # an mpf (meanfield's sqrt(q)): not exact
    mean, std = Fraction(mean), Fraction(std)
    pieces = rational_pieces(act)
    found = {}
    for monomial in monomials:
        value = None if pieces is None else _expectation(pieces, monomial, mean, std)
        if value is None and mean == 0 and std == 1 and monomial in NAMES:
            value = exact_closed_form(act, NAMES[monomial])
        if value is not None:
            found[monomial] = value
    return found


def exact_summary(act: Activation, mean: Number, std: Number) -> dict[str, Fraction]:
    """The summary results (``expectations.SUMMARY``) that are rational, as Fractions."""
    known = exact_expectations(act, (MEAN, SECOND_MOMENT, DERIVATIVE_SECOND_MOMENT), mean, std)
    found = {NAMES[monomial]: value for monomial, value in known.items()}
    second = found.get("second_moment")
    if second is not None and second > 0:
        rms = rational_sqrt(second)
        if rms is not None:
            found.update(rms=rms, gain=1 / rms)
        if "mean" in found:
            variance = second - found["mean"] ** 2
            found["variance"] = variance
            root = rational_sqrt(variance) if variance > 0 else None
            if root is not None:
                found["centered_gain"] = 1 / root
    return found
