"""``tat``: the activation transforms of TAT and DKS for a plain network of L layers, proven.

* ``tat leaky_relu --target-c0 η`` (Zhang et al., 2022, "Deep learning without shortcuts:
  shaping the kernel with tailored rectifiers"): the negative slope α with C_α^{∘L}(0) = η, the
  network's C map at 0 (``moments.transforms``), and output_scale = √(2/(1 + α²)) (Q(1) = 1).
* ``tat ACTIVATION --target-slope ζ`` (Martens et al., 2021, DKS): φ̂(z) = output_scale·(φ(input_scale·z
  + input_shift) + output_shift) with C(0) = 0, Q(1) = 1, Q'(1) = 1 and the per-layer C'(1) = ζ^(1/L),
  so the network's C'(1) is ζ (``moments.dks``). A positively homogeneous φ (relu, relu2, c·x^k + d),
  which has one degree of freedom fewer, keeps input_shift = 1 (or −1 where no scale reaches the slope
  with 1) and drops Q'(1) = 1, as DKS does for relu. A linear φ (identity) has C'(1) = 1 whatever the
  transform: exit 2.
* Reach: c·x^k + d above its proven top (``moments.dks.monomial_reach``), a clipped linear φ at or
  below its proven floor (``moments.dks_clip``), a convex sum of relus at or above its proven ceiling
  (``moments.dks_convex``), selu at or above its proven bound (``moments.dks_selu``) and an
  activation whose catalog entry declares a proven ceiling (swish: ``moments.dks_ceilings``) at or
  above it are exit 2 with the range; where DKS's starting points
  find nothing, a survey of the curve Q'(1) = 1 gives new ones (``tat_reach``), and failing those
  the exit 3 says what was searched and the C'(1) found.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from fractions import Fraction
from typing import Any

from ..catalog import resolve
from ..catalog.gated import gated
from ..engine.balls import midpoint_fraction
from ..engine.numbers import as_number, to_text
from ..engine.rounding import directed_ball_text, directed_text
from ..tier import (
    Computation,
    InputError,
    Outcome,
    PrecisionError,
    arb_precision,
    check_digits,
    prove,
    quantities,
    whole,
)
from .kernel import EXTRA, certified_route, check_defined_on_the_line, not_certified_is_exit_3, twin_named

COMMANDS = {"tat": "tat"}

DESCRIPTIONS = {
    "negative_slope": "alpha: leaky_relu's negative slope with C^L(0) = target_c0 (TAT)",
    "output_scale": "the factor after the activation: Q(1) = 1",
    "input_scale": "the factor before the activation (DKS)",
    "input_shift": "the shift before the activation (DKS)",
    "output_shift": "the shift after the activation, before output_scale: C(0) = 0",
    "layer_target": "the per-layer C'(1) = target_slope^(1/L) (DKS) or the network's C(0) (TAT)",
}
MAX_DEPTH = 10000


def tat(
    activation: str,
    *,
    depth: object = 1,
    target_c0: object = None,
    target_slope: object = None,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """TAT's leaky_relu slope (``target_c0``) or DKS's four parameters (``target_slope``) for a
    plain network of ``depth`` layers, proven to ``digits`` digits.

    >>> r = tat("leaky_relu", depth=1, target_c0="0.1")
    >>> round(float(r.value("negative_slope")), 12)
    0.396955620601
    """
    digits = check_digits(digits)
    if not isinstance(activation, str):
        raise InputError(
            param="activation", allowed="a catalog name or an expression in x", got=repr(activation)
        )
    unit = gated(activation)
    if unit is not None:
        raise InputError(
            f"{{activation}} {unit.name} = {unit.formula} is a gated unit of two inputs, and the transforms "
            "of DKS and TAT (Martens et al., 2021; Zhang et al., 2022) are defined for an activation of "
            f"one input: give a catalog name or an expression in x (the gate alone: {unit.gate}); "
            f"{{kernel_command}} and {{hermite_command}} take {unit.name}",
            param="activation",
            params=("kernel_command", "hermite_command"),
        )
    act = resolve(activation.strip(), params)
    check_defined_on_the_line(act, Fraction(1))
    if act.expression:
        _check_finite_moments(act)
    route = certified_route(act)
    layers = int(whole(depth, "depth", 1))
    if layers > MAX_DEPTH:
        raise InputError(param="depth", allowed=f"a whole number from 1 to {MAX_DEPTH}", got=str(layers))
    leaky = not act.expression and act.name == "leaky_relu"
    name = act.name if not act.expression else activation.strip()
    inputs: dict[str, Any] = {"activation": name, "depth": Fraction(layers)}
    if leaky:
        if params and params.get("slope") is not None:
            raise InputError(
                "tat solves for leaky_relu's negative slope (the result negative_slope) from {target_c0}: "
                "{slope} cannot be given",
                param="slope",
                params=("target_c0",),
            )
        if target_slope is not None:
            raise InputError(
                "leaky_relu takes {target_c0} (TAT), not {target_slope}",
                param="target_c0",
                params=("target_slope",),
            )
        if target_c0 is None:
            raise InputError(
                "{target_c0} is required for leaky_relu (TAT: the network's C(0) to reach, from 0 up)",
                param="target_c0",
            )
        eta = as_number(target_c0, "target_c0")
        inputs["target_c0"] = eta
        fields = prove(lambda d: _leaky(eta, layers, d), digits, extra_digits=EXTRA)
    else:
        if target_c0 is not None:
            raise InputError(
                "{target_c0} (TAT) is for leaky_relu; every other activation takes {target_slope} (DKS)",
                param="target_slope",
                params=("target_c0",),
            )
        if target_slope is None:
            raise InputError(
                "{target_slope} is required (DKS: the network's C'(1) to reach, greater than 1)",
                param="target_slope",
            )
        zeta = as_number(target_slope, "target_slope")
        if not zeta > 1:
            raise InputError(
                param="target_slope",
                allowed="greater than 1 (the network's C'(1) of DKS; 1 is the identity map)",
                got=to_text(zeta),
            )
        inputs["target_slope"] = zeta
        with twin_named(act, route):
            fields = prove(lambda d: _dks(route, zeta, layers, d), digits, extra_digits=EXTRA)
    notes = [f"phi(x) = {act.formula}"] if act.expression else []
    # In the order computed (DKS gives output_scale after the shifts).
    return Computation(
        "tat",
        inputs,
        digits,
        quantities({name: DESCRIPTIONS[name] for name in fields}, fields),
        notes=tuple(notes),
    )


def _check_finite_moments(act: Any) -> None:
    """An expression whose moments diverge at input variance 1 and at 1/64 (1/x, log(abs(x)),
    exp(exp(x)): at every input scale, as a pole or a doubly exponential growth does) is bad
    input (exit 2), before DKS's search could only report that it found nothing; one that
    diverges at 1 only (exp(x**2)) is left to the search (a small input scale may serve)."""
    from ..moments.expectations import expectation_balls

    try:
        expectation_balls(act, [(0, 2, 0), (0, 0, 2)], std=1, digits=3)
        return
    except InputError as error:
        first = error
    except PrecisionError:
        return
    try:
        expectation_balls(act, [(0, 2, 0), (0, 0, 2)], std=Fraction(1, 8), digits=3)
    except InputError:
        raise first.with_template(
            first.template.replace(
                "; choose an activation with finite moments",
                " and for N(0, (1/8)^2), as a pole does at every input scale; DKS's transforms need the moments of "
                "phi(input_scale*x + input_shift): choose an activation with finite moments",
            )
        ) from None
    except PrecisionError:
        return


def _leaky(eta: Fraction, depth: int, digits: int) -> dict[str, Any]:
    from flint import arb

    from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb
    from ..moments.transforms import network_c0_ball, tat_negative_slope

    # relu's C map composed ``depth`` times at 0 (its radius the layers' rounding alone: cheap
    # before any root is looked for, 10,000 layers in a fraction of a second)
    with arb_precision(int((digits + 10) * BITS_PER_DIGIT) + 64 + depth.bit_length()):
        top = network_c0_ball(arb(0), depth)
        if eta < 0 or as_arb(eta) > top:
            # every value of the range printed is reachable: its top rounded down (inward)
            shown = directed_ball_text(top, 10, False) or directed_text(
                midpoint_fraction(arb(top.lower())), 10, False
            )
            raise (InputError if eta < 0 else partial(Outcome, kind="unreachable"))(
                param="target_c0",
                allowed=f"from 0 to {shown} for depth {depth} "
                "(relu's C map composed that often, at 0, rounded down)",
                got=to_text(eta),
            )
        if eta == 0:
            alpha = arb(1)
        elif as_arb(eta) == top:  # (only when both are exact: never for depth >= 1)
            alpha = arb(0)
        else:
            alpha = None
    if alpha is None:
        alpha = tat_negative_slope(eta, depth, digits)
    with arb_precision(int((digits + 10) * BITS_PER_DIGIT) + 64):
        return {"negative_slope": alpha, "output_scale": (2 / (1 + alpha * alpha)).sqrt()}


@not_certified_is_exit_3
def _dks(act: Any, zeta: Fraction, depth: int, digits: int) -> dict[str, Any]:
    from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb
    from ..moments.dks import homogeneous, linear, locate, near_one, prove as prove_transform

    if linear(act):
        label = act.formula if act.expression else act.name
        raise Outcome(
            f"{label!r} is linear, so its normalized C map is the identity: C'(1) = 1 for every "
            "input scale and shift, and no {target_slope} above 1 is reachable (the reachable C'(1) "
            "is 1 alone)",
            kind="unreachable",
            param="target_slope",
        )
    with arb_precision(int((digits + 20) * BITS_PER_DIGIT) + 64):
        target = (as_arb(zeta).log() / depth).exp()
    guard = near_one(target)  # a target near 1 is solved with more digits: so is it computed
    if guard:
        with arb_precision(int((digits + 20 + 2 * guard) * BITS_PER_DIGIT) + 64):
            target = (as_arb(zeta).log() / depth).exp()
    # Positively homogeneous φ (relu, relu2) has one degree of freedom fewer: the input shift stays
    # at ±1 and only the scale is solved, as in DKS's code.
    fixed = homogeneous(act)
    if fixed:
        _monomial_reach(act, target, zeta, depth)
    else:
        _clipped_reach(act, target, zeta, depth)
        _convex_reach(act, target, zeta, depth)
        _drop_reach(act, target, zeta, depth)
        _declared_reach(act, target, zeta, depth)
    shifts = (Fraction(1), Fraction(-1)) if fixed else (None,)
    for shift in shifts:
        try:
            a, b = locate(act, target, digits, shift, screen=None if fixed else _screen(act, target))
        except PrecisionError:
            if fixed:
                continue
            from .tat_reach import survey_locate

            a, b = survey_locate(act, target, digits, zeta, depth)
        balls = prove_transform(act, target, a, b, digits, fixed)
        with arb_precision(int((digits + 10) * BITS_PER_DIGIT) + 64):
            return {
                "input_scale": balls["input_scale"],
                "input_shift": balls["input_shift"],
                "output_shift": balls["output_shift"],
                "output_scale": balls["output_scale"],
                "layer_target": target,
            }
    raise PrecisionError(
        "no transform reaching this {target_slope} was found with input_shift 1 or -1 (the "
        "shift DKS fixes for a positively homogeneous activation)",
        param="target_slope",
    )


def _screen(act: Any, target: Any) -> Any:
    """Passes over DKS's starting points (after the first) from which Newton's method, run in
    double precision on a grid (``moments.dks_survey.screened``), diverges: their certified
    iterations would cost seconds and find nothing; moves the others to where it converges (the
    certified iteration then needs a few steps, not ten)."""

    def screen(b: Fraction, a: Fraction) -> tuple[Fraction, Fraction] | None:
        from ..moments.dks_survey import screened

        moved = screened(act, float(a), float(b), min(float(target.mid()), 1e300))
        return None if moved is None else (Fraction(moved[1]), Fraction(moved[0]))

    return screen


def _clipped_reach(act: Any, target: Any, zeta: Fraction, depth: int) -> None:
    """Exit 2 when φ = α·clip(x, k₁, k₂) + β and the per-layer target is at most the proven floor
    of its C'(1) where Q'(1) = 1 (``moments.dks_clip``)."""
    from ..moments.dks_clip import FLOOR, clipped, floor_proven

    if zeta > FLOOR**depth or not clipped(act) or not floor_proven():  # exact: ζ^(1/L) ≤ F ⇔ ζ ≤ F^L
        return
    label = act.formula if act.expression else act.name
    from .tat_reach import layer_text, log_of, power_bound

    shallower = int(log_of(zeta) / math.log(float(FLOOR)))
    hint = (
        ""
        if not 1 <= shallower < depth
        else f", or {{depth}} {shallower}" + (" or less" if shallower > 1 else "")
    )
    raise Outcome(
        f"reachable per-layer C'(1) for {label!r} (clipped linear): above {float(FLOOR):g} wherever "
        "Q'(1) = 1 (proven; the infimum appears to be pi/(pi - 1) = 1.4669, approached as input_scale "
        f"-> 0 with the input at a kink), i.e. {{target_slope}} above {float(FLOOR):g}^{depth} = "
        f"{power_bound(FLOOR, depth, False)}{hint}; got a per-layer {layer_text(target)}",
        kind="unreachable",
        param="target_slope",
        params=("depth",),
    )


def _convex_reach(act: Any, target: Any, zeta: Fraction, depth: int) -> None:
    """Exit 2 when φ is a convex mixture of relus (softplus, elu, celu, log_sigmoid) and the
    per-layer target is at least the proven ceiling B of its C'(1) where Q'(1) = 1
    (``moments.dks_convex``)."""
    from ..moments.dks_convex import convex_relu_mixture

    # every such ceiling is above relu's pi/(pi - 1) > 1.46: a target below 1.46^L needs no proof
    if zeta < Fraction(146, 100) ** depth or not convex_relu_mixture(act):
        return
    from ..moments.dks_convex import ceiling

    top = ceiling()
    if top is None or zeta < top**depth:  # exact: ζ^(1/L) ≥ B ⇔ ζ ≥ B^L
        return
    _above_ceiling(
        act,
        target,
        zeta,
        depth,
        top,
        f"(a convex mixture of relus): below {to_text(top)} wherever Q'(1) = 1 (proven: there C'(1) is at "
        "most relu's largest 1 - Cov(f, f'')/Var f; relu's own C'(1) there is pi/(pi - 1) = 1.4669, "
        "approached as input_scale -> infinity), ",
    )


def _drop_reach(act: Any, target: Any, zeta: Fraction, depth: int) -> None:
    """Exit 2 when φ is c·(e^x − 1) below 0 and d·x above with 1 < c/d < 2 (selu) and the per-layer
    target is at least the proven bound B on its C'(1) where Q'(1) = 1 (``moments.dks_selu``)."""
    from ..moments.dks_selu import CEILING, drop_alpha

    if zeta < CEILING**depth or drop_alpha(act) is None:  # exact: ζ^(1/L) ≥ B ⇔ ζ ≥ B^L
        return
    _above_ceiling(
        act,
        target,
        zeta,
        depth,
        CEILING,
        f"(an exponential linear unit whose slope drops at its kink): below {to_text(CEILING)} wherever "
        "Q'(1) = 1 (a proven bound, not the supremum; the largest C'(1) on that curve appears to be relu's "
        "pi/(pi - 1) = 1.4669, approached as input_scale -> infinity), ",
    )


def _declared_reach(act: Any, target: Any, zeta: Fraction, depth: int) -> None:
    """Exit 2 when φ's catalog entry declares a proven ceiling B on its C'(1) where Q'(1) = 1
    (``Activation.dks_ceiling``, ``moments.dks_ceilings``: swish, ``moments.dks_swish``) and the
    per-layer target is at least B. The call trusts the declaration: the proof costs minutes of
    CPU, and the tests run it (the whole under the reference marker, a slice by default)."""
    from ..moments.dks_ceilings import declared_ceiling

    declared = declared_ceiling(act)
    if declared is None or zeta < declared[0] ** depth:  # exact: ζ^(1/L) ≥ B ⇔ ζ ≥ B^L
        return
    _above_ceiling(act, target, zeta, depth, declared[0], declared[1])


def _above_ceiling(act: Any, target: Any, zeta: Fraction, depth: int, top: Fraction, why: str) -> None:
    """Exit 2 for a target ζ ≥ top^depth: ``why`` (what φ is and the proven per-layer bound ``top``),
    then the reachable total slope and the least depth at which ζ is below top^depth."""
    from .tat_reach import layer_text, log_of, power_bound

    label = act.formula if act.expression else act.name
    deeper = int(log_of(zeta) / math.log(float(top))) + 1
    while Fraction(zeta) >= top**deeper:  # the float estimate, made exact
        deeper += 1
    raise Outcome(
        f"reachable per-layer C'(1) for {label!r} {why}i.e. {{target_slope}} below {to_text(top)}^{depth} = "
        f"{power_bound(top, depth, True)}, or {{depth}} {deeper} or more; got a per-layer {layer_text(target)}",
        kind="unreachable",
        param="target_slope",
        params=("depth",),
    )


def _monomial_reach(act: Any, target: Any, zeta: Fraction, depth: int) -> None:
    """Exit 2 when φ = c·x^k + d and the per-layer target is at or above the proven top T of its
    C'(1) (``moments.dks.monomial_reach``: 1 < C'(1) < T for input_shift ≠ 0, T at input_shift 0)."""
    from ..moments.dks import monomial_power, monomial_reach
    from .tat_reach import layer_text, outward_text, power_bound

    power = monomial_power(act)
    top = None if power is None else monomial_reach(power)
    if top is None or zeta < top**depth:  # exact: ζ^(1/L) < T ⇔ ζ < T^L
        return
    label = act.formula
    # the supremum as a bound: exact, and its decimal rounded up ("C'(1) < text" holds as printed)
    bound = str(top) if top.denominator == 1 else f"{top} = {outward_text(top, True)}"
    if zeta == top**depth:
        raise PrecisionError(
            f"{label!r} reaches the per-layer C'(1) = {top} only with input_shift 0, where every "
            "input_scale gives it: the transform is not unique; try a {target_slope} below "
            f"({top})^{depth}",
            param="target_slope",
        )
    raise Outcome(
        f"reachable per-layer C'(1) for {label!r} (c*x**{power} + d): 1 < C'(1) < {bound} (proven: "
        "C'(1) depends on input_scale/input_shift alone and stays below its value at input_shift 0), "
        f"i.e. {{target_slope}} below ({top})^{depth} = {power_bound(top, depth, True)}; got a "
        f"per-layer {layer_text(target)}",
        kind="unreachable",
        param="target_slope",
    )


__all__ = ["DESCRIPTIONS", "tat"]
