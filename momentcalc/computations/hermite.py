"""``hermite``: the normalized probabilists' Hermite coefficients of an activation, proven.

    coefficients[k] = a_k = E[φ(Z)·He_k(Z)]/√(k!),  k < N      (``moments.hermite_coefficients``)
    energy          = Σ_{k<N} a_k²
    second_moment   = E[φ(Z)²] = Σ_k a_k²                      (Parseval)
    tail_bound      = second_moment − energy = Σ_{k≥N} a_k²     (the energy left out)

``tail_bound`` and ``dual_tail_bound`` are bounds: printed rounded up (never below the true
value), the other results correctly rounded.

With ``rho``: the dual activation (Daniely, Frostig & Singer, 2016; Mehler's formula)
E[φ(u)φ(v)] = Σ_k a_k²·ρ^k for unit Gaussians of correlation ρ, as ``dual`` = Σ_{k<N} a_k²·ρ^k
and ``dual_tail_bound`` = tail_bound·|ρ|^N ≥ |E[φ(u)φ(v)] − dual| (kernel's nngp).

A gated unit a·g(b) (glu, geglu, swiglu; a, b independent N(0, 1)) has the bivariate expansion
Σ_k b_k·h_1(a)h_k(b) (``moments.gated_maps.gated_coefficient_balls``): its coefficients are listed
by total degree n, c_0 = 0 and c_n = b_{n−1}, and its dual Σ c_n²ρ^n = ρ·E[g(u)g(v)].
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..engine.precision import Precision
from ..catalog import resolve
from ..defaults import HERMITE as DEFAULTS
from ..engine.numbers import as_number, to_text
from ..tier import Computation, InputError, arb_precision, certify, check_digits, whole
from .kernel import (
    EXTRA,
    certified_route,
    check_defined_on_the_line,
    gate_named,
    gated_unit,
    not_certified_is_exit_3,
    twin_named,
)

COMMANDS = {"hermite": "hermite"}

DESCRIPTIONS = {
    "coefficients": "a_k = E[phi(Z) He_k(Z)] / sqrt(k!), k = 0..N-1 (probabilists' Hermite, Z ~ N(0, 1))",
    "energy": "sum of a_k^2 over k < N",
    "second_moment": "E[phi(Z)^2] = sum of all a_k^2 (Parseval)",
    "tail_bound": "second_moment - energy = sum of a_k^2 over k >= N: the energy left out, rounded up",
    "dual": "sum of a_k^2 rho^k over k < N: the dual activation's series (Mehler)",
    "dual_tail_bound": "tail_bound |rho|^N, rounded up: bounds |E[phi(u) phi(v)] - dual| (kernel's nngp at q = 1)",
}
# The bounds, printed rounded up: the decimal and the double are never below the true bound.
OUTWARD = {"tail_bound": "up", "dual_tail_bound": "up"}
MAX_TERMS = 200


def hermite(
    activation: str,
    *,
    terms: object = DEFAULTS["terms"],
    rho: object = None,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """The first ``terms`` normalized Hermite coefficients of ``activation`` and their energy,
    each proven to ``digits`` digits; with ``rho``, the dual activation's series.

    >>> r = hermite("relu", terms=4)
    >>> [float(a) for a in r.value("coefficients")][1:]   # 1/2, 1/(2·sqrt(pi)), 0
    [0.5, 0.28209479177387814, 0.0]
    """
    digits = check_digits(digits)
    if not isinstance(activation, str):
        raise InputError(
            param="activation", allowed="a catalog name or an expression in x", got=repr(activation)
        )
    found = gated_unit(activation, params)
    unit = None if found is None else found[0]
    act = resolve(activation.strip(), params) if found is None else found[1]
    check_defined_on_the_line(act, Fraction(1))
    route = certified_route(act)
    count = int(whole(terms, "terms", 1))
    if count > MAX_TERMS:
        raise InputError(param="terms", allowed=f"a whole number from 1 to {MAX_TERMS}", got=str(count))
    r = None
    if rho is not None:
        r = as_number(rho, "rho")
        if not -1 <= r <= 1:
            raise InputError(param="rho", allowed="a correlation from -1 to 1", got=to_text(r))
    name = unit.name if unit is not None else act.name if not act.expression else activation.strip()
    inputs: dict[str, Any] = {"activation": name, "terms": Fraction(count)}
    if r is not None:
        inputs["rho"] = r
    inputs.update(dict(act.values))
    notes = [f"phi(x) = {act.formula}"] if act.expression else []
    if unit is None:
        with twin_named(act, route):
            return certify(
                "hermite",
                inputs=inputs,
                evaluate=lambda d: _evaluate(route, count, r, d),
                digits=digits,
                extra_digits=EXTRA,
                describe=DESCRIPTIONS,
                notes=notes,
                outward=OUTWARD,
            )
    with gate_named(unit):
        return certify(
            "hermite",
            inputs=inputs,
            evaluate=lambda d: _evaluate(route, count, r, d, gated=True),
            digits=digits,
            extra_digits=EXTRA,
            describe=GATED_DESCRIPTIONS,
            notes=[_gated_note(unit)],
            outward=OUTWARD,
        )


GATED_DESCRIPTIONS = {
    **DESCRIPTIONS,
    "coefficients": "c_n, n = 0..N-1: the coefficient of total degree n of phi(a, b) = a g(b) in the orthonormal "
    "bivariate Hermite basis (a, b independent N(0, 1)): c_0 = 0, c_n = the gate's a_{n-1}",
    "energy": "sum of c_n^2 over n < N",
    "second_moment": "E[phi^2] = E[a^2] E[g(b)^2] = sum of all c_n^2 (Parseval)",
    "tail_bound": "second_moment - energy = sum of c_n^2 over n >= N: the energy left out, rounded up",
    "dual": "sum of c_n^2 rho^n over n < N = rho times the gate's dual series: the dual activation (Mehler)",
    "dual_tail_bound": "tail_bound |rho|^N, rounded up: bounds |E[phi(x) phi(x')] - dual| (kernel's nngp at q = 1)",
}


def _gated_note(unit: Any) -> str:
    return (
        f"{unit.name}(a, b) = {unit.formula}, a and b independent N(0, 1): with h_k = He_k/sqrt(k!) and "
        f"b_k = {unit.gate}'s coefficients, {unit.formula} = sum_k b_k h_1(a) h_k(b), one term of each total "
        f"degree n = k + 1; so coefficients[n] = b_(n-1) (the {unit.gate} coefficients shifted by one, "
        f"not {unit.name}'s own one-variable expansion), coefficients[0] = 0, and the dual sum c_n^2 rho^n = "
        f"rho E[{unit.gate}(u) {unit.gate}(v)] is kernel's nngp at q = 1"
    )


@not_certified_is_exit_3
def _evaluate(act: Any, count: int, rho: Any, digits: int, gated: bool = False) -> dict[str, Any]:
    from flint import arb

    from ..engine.gaussian_balls import as_arb
    from ..moments.exact import exact_expectations
    from ..moments.hermite_coefficients import coefficient_balls, exact_squares
    from ..moments.kernel_maps import gaussian_balls

    if gated:  # act is the gate g of a·g(b): E[φ²] = E[a²]·E[g²] = E[g²]
        from ..moments.gated_maps import gated_coefficient_balls

        coefficients = gated_coefficient_balls(act, count, digits)
        exact = exact_second = None
    else:
        coefficients = coefficient_balls(act, count, digits)
        exact = exact_squares(act, count)
        exact_second = exact_expectations(act, [(0, 2, 0)], 0, 1).get((0, 2, 0))
    second = gaussian_balls(act, [(0, 2, 0)], Fraction(1), digits + 3)[0]
    out: dict[str, Any] = {"coefficients": coefficients}
    with arb_precision(Precision(digits, 20).ball_bits):
        squares = [a * a if a.rad() or a != 0 else arb(0) for a in coefficients]
        energy = sum(squares, arb(0))
        tail = second - energy
        if exact is not None and exact_second is not None:  # a polynomial: rational, a zero tail exactly
            squares = [as_arb(x) for x in exact]
            energy, second, tail = as_arb(sum(exact)), as_arb(exact_second), as_arb(exact_second - sum(exact))
        out.update(energy=energy, second_moment=second, tail_bound=tail)
        if rho is not None:
            r = as_arb(rho)
            power, dual = arb(1), arb(0)
            for square in squares:
                dual += square * power
                power *= r
            out["dual"] = dual
            out["dual_tail_bound"] = tail * abs(r) ** count if rho != 0 else arb(0)
    return out


__all__ = ["DESCRIPTIONS", "hermite"]
