"""``activation-moment``: moments of φ(Z), Z ~ N(mean, std²), for a catalog activation or an
expression in x.

    mean          = E[φ(Z)]              (swish: μ = 0.2066… in Su 2022, GAU at initialization)
    second_moment = E[φ(Z)²]             (sigmoid: 0.2933790… in Su 2021, Transformer initialization; swish: ν² = 0.3557…)
    variance      = E[(φ(Z) − mean)²]
    rms           = sqrt(second_moment);  gain = 1/rms     (relu: sqrt 2, He init, Garg, where 1/sqrt(d) comes from)
    centered_gain = 1/sqrt(variance)
    derivative_second_moment = E[φ'(Z)²]

Under N(0, 1) the catalog's closed forms are used where they exist (relu, leaky_relu, relu2,
elu, selu, gelu, erf, identity); an odd φ has mean exactly 0 when mean = 0; everything else is
Gaussian quadrature split at the kinks, with its error checked against the requested digits
(all of it in ``momentcalc.moments``). Expressions are evaluated at two precisions and must agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from mpmath import mp

from ..catalog import CATALOG, resolve
from ..catalog.gated import GATED, Gated, gated
from ..defaults import ACTIVATION_MOMENT as DEFAULTS
from ..engine.numbers import as_number
from ..moments import (
    DERIVATIVE_SECOND_MOMENT,
    MEAN,
    SECOND_MOMENT,
    SUMMARY,
    exact_moments,
    expectation_balls,
    gaussian_moments,
    midpoint,
    moment_balls,
    radius,
)
from ..tier import (
    Computation,
    InputError,
    Listing,
    arb_precision,
    bits_for,
    check_digits,
    exact_ball,
    exactly,
    PrecisionError,
    prove,
    quantities,
)
from ..tier.proof import rounds

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"activation-moment": "activation_moment", "activations": "catalog_listing"}

RESULTS = SUMMARY
DESCRIPTIONS = {
    "mean": "E[phi(Z)], Z ~ N(mean, std^2)",
    "second_moment": "E[phi(Z)^2]",
    "variance": "second_moment - mean^2",
    "rms": "sqrt(second_moment)",
    "gain": "1 / rms: gain*phi keeps a unit second moment (exact calculate_gain)",
    "centered_gain": "1 / sqrt(variance): (phi - mean)*centered_gain has variance 1",
    "derivative_second_moment": "E[phi'(Z)^2]: per-layer scaling of a gradient's second moment",
}
# Closed forms found by sympy (--derive) must match the quadrature to this many digits.
DERIVE_CHECK_DIGITS = 20


def activation_moment(
    activation: str,
    *,
    mean: object = DEFAULTS["mean"],
    std: object = DEFAULTS["std"],
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Moments and gains of φ(Z), Z ~ N(mean, std²), every result proven to ``digits`` digits
    (Arb balls: ``certified`` is True and ``error_bound`` the ball's radius).

    ``params`` sets the activation's catalog parameters by name (``{"slope": "0.2"}``).

    >>> activation_moment("relu").value("second_moment") == 0.5  # He init's 1/2
    True
    """
    if not isinstance(activation, str):
        raise InputError(
            f"{{activation}} must be a catalog name or an expression in x, got {activation!r}",
            param="activation",
            allowed="a catalog name or an expression in x",
            got=repr(activation),
        )
    name = activation.strip()
    digits = check_digits(digits)
    unit = gated(name)
    if unit is not None:
        return _gated_moments(unit, mean=mean, std=std, params=params, digits=digits, derive=derive)
    left_out: dict[str, str] = {}
    try:
        balls = moment_balls(name, mean=mean, std=std, digits=digits, params=params)
    except PrecisionError as error:
        balls, left_out = _partial_balls(name, mean, std, digits, params, error)
    values = {key: midpoint(ball) for key, ball in balls.items()}
    act = resolve(name, params)
    mu, sigma = as_number(mean, "mean"), as_number(std, "std")
    inputs: dict[str, object] = {
        "activation": act.name if not act.expression else name,
        "mean": mu,
        "std": sigma,
    }
    inputs.update(dict(act.values))
    closed: Mapping[str, tuple[str | None, str | None]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.activation import derive as derive_forms

        # Closed forms sympy finds are checked against the quadrature to at least 20 digits.
        check_digits_ = max(digits, DERIVE_CHECK_DIGITS)
        reference = (
            values
            if digits >= DERIVE_CHECK_DIGITS
            else gaussian_moments(name, mean=mu, std=sigma, digits=check_digits_, params=params)
        )
        closed, derivation = derive_forms(act, mu, sigma, reference, check_digits_)
    # Every value is the midpoint of an Arb ball that rounds to one text at ``digits``
    # digits (its radius is the proven error bound), or a rational, rounded exactly.
    exact = exact_moments(act, mean=mu, std=sigma)
    fields = {
        key: exactly(exact[key])
        if key in exact
        else {"value": values[key], "certified": True, "error_bound": radius(balls[key])}
        for key in RESULTS
        if key in exact or key in balls
    }
    notes: tuple[str, ...] = ()
    if act.expression:
        notes = (f"phi(x) = {act.formula}",)
    notes += _left_out_notes(left_out)
    return Computation(
        "activation_moment",
        inputs,
        digits,
        quantities({key: DESCRIPTIONS[key] for key in RESULTS}, fields, closed),
        notes=notes,
        derivation=derivation,
        left_out=left_out,
    )


__all__ = ["DESCRIPTIONS", "RESULTS", "activation_moment", "catalog_listing"]

# Extra digits asked of a moment when rms or gain, computed from it, does not round yet.
PARTIAL_EXTRA_DIGITS = (0, 6, 24)


def _partial_balls(
    name: str,
    mean: object,
    std: object,
    digits: int,
    params: Mapping[str, object] | None,
    error: PrecisionError,
) -> tuple[dict[str, Any], dict[str, str]]:
    """Where not every result can be proven: each moment by itself (``expectation_balls``), rms
    and gain from the second moment, and the results left out with the reason for each (a value
    that cannot be proven is not printed; the others are). Re-raises ``error`` when no moment can
    be proven."""
    balls: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for key, monomial in (
        ("mean", MEAN),
        ("second_moment", SECOND_MOMENT),
        ("derivative_second_moment", DERIVATIVE_SECOND_MOMENT),
    ):
        try:
            balls[key] = expectation_balls(
                name, [monomial], mean=mean, std=std, digits=digits, params=params
            )[0]
        except PrecisionError as failed:
            reasons[key] = _reason(failed)
    if not balls:
        raise error
    if "second_moment" in balls:
        for extra in PARTIAL_EXTRA_DIGITS:
            m2 = expectation_balls(
                name, [SECOND_MOMENT], mean=mean, std=std, digits=digits + extra, params=params
            )[0]
            with arb_precision(bits_for(digits + extra + 10)):
                rms = m2.sqrt()
                gain = 1 / rms
            if rounds(rms, digits) and rounds(gain, digits):
                balls.update(rms=rms, gain=gain)
                break
        else:
            reasons["rms"] = reasons["gain"] = "on a rounding tie within the precision limit"
    # The variance is what failed when both moments it is made of are proven.
    variance_reason = reasons.get("mean") or reasons.get("second_moment") or _reason(error)
    reasons["variance"] = reasons["centered_gain"] = variance_reason
    return balls, {key: reasons[key] for key in RESULTS if key in reasons}


def _left_out_notes(left_out: dict[str, str]) -> tuple[str, ...]:
    """One note per reason, naming the results left out for it."""
    by_reason: dict[str, list[str]] = {}
    for key, reason in left_out.items():
        by_reason.setdefault(reason, []).append(key)
    return tuple(
        f"{_listed(keys)} {'is' if len(keys) == 1 else 'are'} left out: {reason}"
        for reason, keys in by_reason.items()
    )


def _listed(keys: list[str]) -> str:
    """a; a and b; a, b and c."""
    return keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} and {keys[-1]}"


def _reason(error: PrecisionError) -> str:
    """A PrecisionError's message without the activation's name in front."""
    head, colon, rest = error.template.partition(": ")
    return rest if colon and head.startswith("{activation}") else error.message


GATED_DESCRIPTIONS = {
    "mean": "E[a*g(b)] = E[a]*E[g(b)], a, b independent ~ N(mean, std^2)",
    "second_moment": "E[(a*g(b))^2] = E[a^2]*E[g(b)^2]",
    "variance": "second_moment - mean^2 = E[a^2]*Var g(b) + Var a*E[g(b)]^2",
    "rms": "sqrt(second_moment)",
    "gain": "1 / rms: gain*phi keeps a unit second moment",
    "centered_gain": "1 / sqrt(variance): (phi - mean)*centered_gain has variance 1 (the normalizer-free gamma)",
    "derivative_second_moment": "E[|grad phi|^2] = E[g(b)^2] + E[a^2]*E[g'(b)^2]: per-layer scaling of a gradient's "
    "second moment",
}
# Decimal digits beyond the requested ones at which the gate's expectations are asked for.
GATED_EXTRA_DIGITS = (3, 8, 20, 45)


def _gated_moments(
    unit: Gated, *, mean: object, std: object, params: Mapping[str, object] | None, digits: int, derive: bool
) -> Computation:
    """A gated unit a·g(b), a and b independent N(mean, std²): each moment the product of a's
    (exact) and the gate's (proven balls); see ``catalog.gated``."""
    if derive:
        raise InputError("{derive} has no symbolic form for a gated unit yet", param="derive")
    given = [name for name, value in (params or {}).items() if value is not None]
    if given:
        raise InputError(
            f"{{{given[0]}}} does not apply to {unit.name}, a gated unit without parameters",
            param=given[0],
            allowed="no parameters with a gated unit",
        )
    mu, sigma = as_number(mean, "mean"), as_number(std, "std")

    def evaluate(working: int) -> dict[str, Any]:
        gate = moment_balls(unit.gate, mean=mu, std=sigma, digits=working)
        g1, g2, slope2 = gate["mean"], gate["second_moment"], gate["derivative_second_moment"]
        with arb_precision(bits_for(working + 10)):
            a1, a2 = exact_ball(mu), exact_ball(mu * mu + sigma * sigma)
            first, second = a1 * g1, a2 * g2
            # E[a²]·Var g + Var a·E[g]²: two terms ≥ 0, where E[a²]E[g²] − E[a]²E[g]² would cancel
            # (geglu at mean 1e300 lost every digit to it)
            variance = a2 * gate["variance"] + exact_ball(sigma * sigma) * g1 * g1
            values = {
                "mean": first,
                "second_moment": second,
                "variance": variance,
                "rms": second.sqrt(),
                "gain": 1 / second.sqrt(),
                "centered_gain": 1 / variance.sqrt(),
                "derivative_second_moment": g2 + a2 * slope2,
            }
        if mu == 0:
            del values["mean"]
        return values

    fields = prove(
        evaluate, digits, exact={"mean": Fraction(0)} if mu == 0 else None, extra_digits=GATED_EXTRA_DIGITS
    )
    inputs: dict[str, object] = {"activation": unit.name, "mean": mu, "std": sigma}
    notes = (
        f"{unit.name}(a, b) = {unit.formula}, a and b independent N(mean, std^2) (the two halves of "
        "the layer's projection at initialization): each moment is E[a^k]·E[" + unit.gate + "(b)^k]; "
        f"derivative_second_moment is E[|grad {unit.name}|^2] = E[{unit.gate}(b)^2] + "
        f"E[a^2]·E[{unit.gate}'(b)^2]",
    )
    return Computation(
        "activation_moment",
        inputs,
        digits,
        quantities({key: GATED_DESCRIPTIONS[key] for key in RESULTS}, fields),
        notes=notes,
    )


def catalog_listing() -> Listing:
    """``momentcalc activations``: the catalog with its formulas and closed forms under N(0, 1)."""
    with mp.workdps(20):
        rows = tuple(
            {
                "name": entry.name,
                "aliases": list(entry.aliases),
                "formula": entry.formula,
                "parameters": {p.name: float(p.default) for p in entry.params},
                "kinks": [float(k) for k in entry.kinks(entry.param_values())],
                "parity": entry.parity,
                "closed_form": {name: form.text for name, form in entry.closed_forms.items()},
            }
            for entry in CATALOG
        ) + tuple(
            {
                "name": unit.name,
                "aliases": [],
                "formula": f"{unit.formula} (a, b independent; activation_moment, kernel, hermite)",
                "parameters": {},
                "kinks": [],
                "parity": None,
                "closed_form": {},
            }
            for unit in GATED.values()
        )
    return Listing(
        "activations",
        ("name", "aliases", "formula", "closed_form"),
        rows,
        title="activation catalog: activation_moment(NAME) (or any expression in x)",
    )
