"""Moments that are rational numbers, exactly (Fractions), so that a value on a rounding tie
is rounded by the one stated rule (half away from zero) instead of waiting for a ball that
can never decide it: leaky_relu at slope 0.3 has E[φ(Z)²] = (1 + 0.09)/2 = 0.545 exactly.

Under Z ~ N(0, 1) the catalog's closed forms are evaluated on the parameters as fractions: a
form built from rational arithmetic alone gives a Fraction (relu's 1/2, leaky_relu's
(1 + slope²)/2, relu2's 3/2, identity's and selu's 0 and 1); one with π, e or Φ in it gives an
mpf and is not exact here (it is irrational: never on a tie, so its ball decides). From those:

    variance = second_moment − mean²,  rms = sqrt(second_moment),  gain = 1/rms,
    centered_gain = 1/sqrt(variance)

each when its inputs are exact and the square roots rational.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..catalog import Activation
from ..engine.numbers import Number, rational_sqrt
from .monomials import NAMES, Monomial


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


def exact_expectations(act: Activation, monomials: Sequence[Monomial], mean: Number, std: Number
                       ) -> dict[Monomial, Fraction]:
    """E[x^a·φ^b·φ'^c] for the monomials whose value is a known rational (the catalog's
    rational closed forms, under N(0, 1))."""
    if mean != 0 or std != 1:
        return {}
    found = {}
    for monomial in monomials:
        key = NAMES.get(monomial)
        value = None if key is None else exact_closed_form(act, key)
        if value is not None:
            found[monomial] = value
    return found


def exact_summary(act: Activation, mean: Number, std: Number) -> dict[str, Fraction]:
    """The summary results (``expectations.SUMMARY``) that are rational, as Fractions."""
    if mean != 0 or std != 1:
        return {}
    found = {key: value for key in ("mean", "second_moment", "derivative_second_moment")
             if (value := exact_closed_form(act, key)) is not None}
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
