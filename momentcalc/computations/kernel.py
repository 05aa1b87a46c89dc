"""``kernel``: the infinite-width maps of an activation, proven to every printed digit.

For (u, v) centred Gaussian, Var u = q1, Var v = q2, correlation ρ:

    nngp            = E[φ(u)φ(v)]              (the NNGP kernel's layer map: Neal 1996; Lee et al. 2018)
    ntk_derivative  = E[φ'(u)φ'(v)]            (the factor of the NTK recursion: Jacot et al. 2018)
    correlation_out = nngp/sqrt(E[φ(u)²]·E[φ(v)²])   (the normalized C map at ρ)

and at q1 = q2 = q the local quantities of deep kernel shaping (Martens et al., 2021, "Rapid
training of deep neural networks without skip connections or normalization layers"):
C(0) = E[φ]²/E[φ²], C'(1) = q·E[φ'²]/E[φ²], C''(1) = q²·E[φ''²]/E[φ²], Q'(q) = E[u·φ·φ']/q.
``depth`` L adds the correlations of a plain network (weights N(0, σ_w²/fan_in), biases
N(0, σ_b²)) at layers 0..L: q_i ← σ_w²·E[φ(√q_i·Z)²] + σ_b², ρ ← (σ_w²·nngp + σ_b²)/√(q1·q2),
every layer in balls (``moments.kernel_maps``). The gated units glu, geglu, swiglu (a·g(b), the
halves independent) take their maps from their gate's (``moments.gated_maps``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

import mpmath

from ..catalog import resolve
from ..catalog.gated import Gated, gated
from ..defaults import KERNEL as DEFAULTS
from ..engine.numbers import as_number, to_text
from ..engine.precision import Precision
from ..result import replace
from ..errors import MomentcalcError
from ..tier import (
    INFINITY,
    Computation,
    InputError,
    PrecisionError,
    arb_precision,
    certify,
    check_digits,
    positive,
    whole,
)

COMMANDS = {"kernel": "kernel"}

DESCRIPTIONS = {
    "nngp": "E[phi(u) phi(v)]: the NNGP kernel's layer map",
    "ntk_derivative": "E[phi'(u) phi'(v)]: the factor of the NTK recursion",
    "correlation_out": "nngp / sqrt(E[phi(u)^2] E[phi(v)^2]): the normalized C map at rho",
    "c_map_at_0": "C(0) = E[phi(u)]^2 / E[phi(u)^2] (deep kernel shaping)",
    "c_map_slope_at_1": "C'(1) = q E[phi'(u)^2] / E[phi(u)^2]",
    "c_map_curvature_at_1": "C''(1) = q^2 E[phi''(u)^2] / E[phi(u)^2] (inf where phi' jumps)",
    "q_map_slope_at_1": "Q'(q) = d/dq E[phi(sqrt(q) Z)^2] = E[u phi(u) phi'(u)] / q (DKS: at q = 1)",
    "correlation_layers": "correlation of the two inputs at layers 0..L of a plain deep network",
    "nngp_depth": "Sigma^(L)(x, x'): the NNGP kernel of the L-layer network (neural-tangents' NTK "
    "parametrization: Sigma^(0) = rho sqrt(q1 q2), Sigma^(l+1) = sigma_w2 E[phi(u) phi(v)] + sigma_b2)",
    "ntk_depth": "Theta^(L)(x, x'): the NTK of the L-layer network, Theta^(0) = Sigma^(0), "
    "Theta^(l+1) = Sigma^(l+1) + sigma_w2 E[phi'(u) phi'(v)] Theta^(l)",
    "nngp_layers": "Sigma^(l)(x, x') at layers 0..L (the NNGP kernel; see nngp_depth)",
    "ntk_layers": "Theta^(l)(x, x') at layers 0..L (the NTK; see ntk_depth)",
}
DEEP = ("nngp_depth", "ntk_depth", "nngp_layers", "ntk_layers")
LOCAL = ("c_map_at_0", "c_map_slope_at_1", "c_map_curvature_at_1", "q_map_slope_at_1")
# Extra digits asked of the balls until every result rounds (a value near a rounding boundary, a
# deep composition): the kernels' quadratures take decimal digits (``certify``'s ``extra_digits``).
EXTRA = (3, 8, 20, 45)
MAX_DEPTH = 10000


def kernel(
    activation: str,
    *,
    rho: object = DEFAULTS["rho"],
    q: object = None,
    q1: object = None,
    q2: object = None,
    depth: object = None,
    sigma_w2: object = None,
    sigma_b2: object = None,
    layers: bool = False,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """The NNGP and NTK maps of ``activation`` at correlation ``rho`` and variances ``q1``,
    ``q2`` (``q`` sets both, default 1), each proven to ``digits`` digits. ``depth`` L adds the
    correlations at layers 0..L of a plain network (``sigma_w2``, ``sigma_b2``) and its NNGP and
    NTK kernels Σ⁽ᴸ⁾(x, x′), Θ⁽ᴸ⁾(x, x′) (``layers``: at every layer too).

    >>> r = kernel("relu", rho="0.5")
    >>> r["ntk_derivative"].decimal(15)   # (π − arccos ρ)/(2π)
    '0.333333333333333'
    """
    digits = check_digits(digits)
    if not isinstance(activation, str):
        raise InputError(
            param="activation", allowed="a catalog name or an expression in x", got=repr(activation)
        )
    found = gated_unit(activation, params)
    unit = None if found is None else found[0]
    act = resolve(activation.strip(), params) if found is None else found[1]
    route = certified_route(act)
    r = as_number(rho, "rho")
    if not -1 <= r <= 1:
        raise InputError(param="rho", allowed="a correlation from -1 to 1", got=to_text(r))
    if q is not None and (q1 is not None or q2 is not None):
        raise InputError(
            "{q} sets both variances: give either {q} or {q1}/{q2}", param="q", params=("q1", "q2")
        )
    split = q1 is not None or q2 is not None
    common = positive(DEFAULTS["q"] if q is None else q, "q")
    v1 = common if q1 is None else positive(q1, "q1")
    v2 = common if q2 is None else positive(q2, "q2")
    depth_n = None if depth is None else int(whole(depth, "depth", 1))
    if depth_n is not None and depth_n > MAX_DEPTH:
        raise InputError(param="depth", allowed=f"a whole number from 1 to {MAX_DEPTH}", got=str(depth_n))
    if depth_n is None and (sigma_w2 is not None or sigma_b2 is not None):
        raise InputError(
            "{sigma_w2} and {sigma_b2} apply only with {depth}",
            param="sigma_w2",
            params=("sigma_b2", "depth"),
        )
    if layers and depth is None:
        raise InputError("{layers} applies only with {depth}", param="layers", params=("depth",))
    w = positive(DEFAULTS["sigma_w2"] if sigma_w2 is None else sigma_w2, "sigma_w2")
    b = as_number(DEFAULTS["sigma_b2"] if sigma_b2 is None else sigma_b2, "sigma_b2")
    if b < 0:
        raise InputError(param="sigma_b2", allowed="0 or greater", got=to_text(b))
    name = unit.name if unit is not None else act.name if not act.expression else activation.strip()
    inputs: dict[str, Any] = {"activation": name, "rho": r, "q1": v1, "q2": v2}
    inputs.update(dict(act.values))
    if depth_n is not None:
        inputs.update(depth=Fraction(depth_n), sigma_w2=w, sigma_b2=b)
    check_defined_on_the_line(act, v1, v2)
    local = not split
    deep = Deep(layers=layers)
    if unit is not None:
        return deep.noted(_gated(unit, route, r, v1, v2, local, depth_n, w, b, inputs, digits, derive, deep))
    notes = [f"phi(x) = {act.formula}"] if act.expression else []
    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.kernel import derive as derive_forms

        closed, derivation = derive_forms(act, r, v1, v2)

    def run(exact: dict[str, Fraction] | None = None) -> Computation:
        return certify(
            "kernel",
            inputs=inputs,
            digits=digits,
            extra_digits=EXTRA,
            describe=DESCRIPTIONS,
            evaluate=lambda extra: _evaluate(route, r, v1, v2, local, depth_n, w, b, extra, deep),
            closed=closed,
            notes=notes,
            derivation=derivation,
            exact=exact,
        )

    with twin_named(act, route):
        try:
            return deep.noted(run())
        except PrecisionError:
            exact = _exact_local(route, v1) if local else {}
            if not exact:
                raise
            return deep.noted(run(exact))  # a local quantity on a rounding tie: rounded from its fraction


def gated_unit(activation: str, params: Mapping[str, object] | None) -> tuple[Gated, Any] | None:
    """(the gated unit ``activation`` names, its gate's catalog entry), or None for an activation
    of one input; a parameter given with a gated unit is an InputError."""
    unit = gated(activation)
    if unit is None:
        return None
    given = [name for name, value in (params or {}).items() if value is not None]
    if given:
        raise InputError(
            f"{{{given[0]}}} does not apply to {unit.name}, a gated unit without parameters",
            param=given[0],
            allowed="no parameters with a gated unit",
        )
    return unit, resolve(unit.gate)


def _gated_descriptions(gate: str) -> dict[str, str]:
    g, dg = f"{gate}(b)", f"{gate}'(b)"
    return {
        "nngp": f"E[phi(x) phi(x')] = rho sqrt(q1 q2) E[{g} {gate}(b')]: the NNGP kernel's layer map",
        "ntk_derivative": f"E[grad phi(x) . grad phi(x')] = E[{g} {gate}(b')] + rho sqrt(q1 q2) E[{dg} {gate}'(b')]: "
        "the factor of the NTK recursion",
        "correlation_out": f"nngp / sqrt(E[phi(x)^2] E[phi(x')^2]) = rho E[{g} {gate}(b')] / "
        f"sqrt(E[{g}^2] E[{gate}(b')^2]): the normalized C map at rho",
        "c_map_at_0": "C(0) = E[phi]^2 / E[phi^2] = 0 (E[a] = 0)",
        "c_map_slope_at_1": f"C'(1) = 1 + q E[{dg}^2] / E[{g}^2] = q E[|grad phi|^2] / E[phi^2]",
        "c_map_curvature_at_1": f"C''(1) = (2 q E[{dg}^2] + q^2 E[{gate}''(b)^2]) / E[{g}^2]",
        "q_map_slope_at_1": f"Q'(q) = d/dq (q E[{gate}(sqrt(q) Z)^2]) = E[{g}^2] + E[b {g} {dg}] (DKS: at q = 1)",
        "correlation_layers": DESCRIPTIONS["correlation_layers"],
        **{
            name: DESCRIPTIONS[name].replace("phi'(u) phi'(v)", "grad phi(x) . grad phi(x')") for name in DEEP
        },
    }


def _gated(
    unit: Gated,
    gate: Any,
    r: Fraction,
    v1: Fraction,
    v2: Fraction,
    local: bool,
    layers: int | None,
    w: Fraction,
    b: Fraction,
    inputs: dict[str, Any],
    digits: int,
    derive: bool,
    deep: Deep,
) -> Computation:
    """``kernel`` of a gated unit a·g(b) (``moments.gated_maps``: its kernels from the gate's)."""
    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.kernel import derive_gated

        closed, derivation = derive_gated(unit)
    notes = [
        f"{unit.name}(a, b) = {unit.formula}: a and b the two independent halves of the layer's projection, "
        "corr(a, a') = corr(b, b') = rho, Var a = Var b = q1 at x and q2 at x'; the gradient is over both halves"
    ]
    exact: dict[str, Fraction] = {}
    if local:
        exact["c_map_at_0"] = Fraction(0)
    if r == 0:
        exact.update(nngp=Fraction(0), correlation_out=Fraction(0))
    with gate_named(unit):
        return certify(
            "kernel",
            inputs=inputs,
            digits=digits,
            extra_digits=EXTRA,
            describe=_gated_descriptions(unit.gate),
            evaluate=lambda extra: _evaluate_gated(unit, gate, r, v1, v2, local, layers, w, b, extra, deep),
            closed=closed,
            notes=notes,
            derivation=derivation,
            exact=exact,
        )


@contextlib.contextmanager
def twin_named(act: Any, route: Any) -> Iterator[None]:
    """An error from the catalog entry that serves an expression (``certified_route``) names the
    expression as the user wrote it, with the entry beside it (``'(x + abs(x))/2' (the
    catalog's relu)``), never the entry alone, which the user did not give."""
    try:
        yield
    except MomentcalcError as error:
        named = repr(route.name)
        if route is not act and named in error.template:
            renamed = f"{act.formula!r} (the catalog's {route.name})"
            raise error.with_template(error.template.replace(named, renamed)) from None
        raise


@contextlib.contextmanager
def gate_named(unit: Gated) -> Iterator[None]:
    """An error that names a gated unit's gate (``ACTIVATION 'sigmoid': ...``) names the unit the
    user gave too (``ACTIVATION glu (its gate sigmoid): ...``)."""
    try:
        yield
    except MomentcalcError as error:
        for named, renamed in (
            (repr(unit.gate), f"{unit.name} (its gate {unit.gate})"),
            (f" of {unit.gate} ", f" of {unit.name}'s gate {unit.gate} "),
        ):
            if named in error.template:
                raise error.with_template(error.template.replace(named, renamed, 1)) from None
        raise


def _exact_local(act: Any, q: Fraction) -> dict[str, Fraction]:
    """The local quantities that are rational (``moments.exact``: piecewise polynomials with
    rational coefficients, at a q with a rational square root): C(0) = E[φ]²/E[φ²],
    C'(1) = q·E[φ'²]/E[φ²], Q'(q) = E[u·φ·φ']/q. Used where a ball cannot decide a rounding
    tie (E[u·φ·φ'] = 1535190271700085000 for max(x,0)**16, a 5 after 15 digits)."""
    from ..moments.exact import exact_expectations
    from ..moments.kernel_maps import exact_sqrt

    std = exact_sqrt(q)
    if std is None:
        return {}
    found = exact_expectations(act, [(0, 1, 0), (0, 2, 0), (0, 0, 2), (1, 1, 1)], Fraction(0), std)
    mean, second, slope, cross = (found.get(m) for m in ((0, 1, 0), (0, 2, 0), (0, 0, 2), (1, 1, 1)))
    out: dict[str, Fraction] = {}
    if second is not None and second > 0:
        if mean is not None:
            out["c_map_at_0"] = mean * mean / second
        if slope is not None:
            out["c_map_slope_at_1"] = q * slope / second
    if cross is not None:
        out["q_map_slope_at_1"] = cross / q
    return out


def check_defined_on_the_line(act: Any, *variances: Fraction) -> None:
    """An expression undefined on a set of positive probability (``(-x)**1.5``, ``log(x)``) is
    bad input (InputError, exit 2) before any integral, as in ``activation-moment``: φ scanned
    across ±6 standard deviations of each variance (catalog.expression_domain.check_defined)."""
    if not act.expression:
        return

    from ..catalog.expressions import check_defined

    with mpmath.workdps(20):
        for q in variances:
            check_defined(
                lambda x: act.fn(x, {}), mpmath.mpf(0), mpmath.sqrt(mpmath.mpf(q.numerator) / q.denominator)
            )


def certified_route(act: Any) -> Any:
    """The activation whose certified routes compute ``act``'s kernels, Hermite coefficients and
    transforms: for an expression that is a catalog entry's formula (``x*tanh(log(1+exp(x)))``
    is mish, ``min(max(x,-1),1)`` hardtanh) the entry, whose own routes prove what the
    expression's growth bounds cannot (catalog.expression_twins); else ``act``."""
    if not act.expression:
        return act
    from ..catalog.expression_twins import certified_route as twin_route

    return twin_route(act)


def not_certified_is_exit_3(evaluate: Any) -> Any:
    """``evaluate`` with the engine's NotCertified (a kink whose place or a sign that no ball
    decides: abs(x/x)*x) raised as PrecisionError naming the activation (exit 3, one line),
    not a traceback."""

    @functools.wraps(evaluate)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        from ..engine.gaussian_balls import NotCertified

        try:
            return evaluate(*args, **kwargs)
        except NotCertified as error:
            raise PrecisionError(
                f"{{activation}}: {error}; no unproven digits are printed", param="activation"
            ) from None

    return guarded


@not_certified_is_exit_3
def _evaluate(
    act: Any,
    rho: Fraction,
    q1: Fraction,
    q2: Fraction,
    local: bool,
    layers: int | None,
    w: Fraction,
    b: Fraction,
    digits: int,
    deep: Deep,
) -> dict[str, Any]:
    from ..moments.kernel_maps import kernel_pair, local_balls

    # the one-variable moments first: a moment that diverges (1/x, exp(x**2)) is bad input
    # (exit 2), found there before the bivariate routes could only say they do not apply
    first = local_balls(act, q1, digits)
    second = first if q1 == q2 else local_balls(act, q2, digits)
    nngp, ntk = kernel_pair(act, rho, q1, q2, digits)
    curvature = _curvature(act, q1, digits) if local else None
    out: dict[str, Any] = {}
    with arb_precision(Precision(digits).ball_bits):
        from ..engine.gaussian_balls import as_arb

        out["nngp"], out["ntk_derivative"] = nngp, ntk
        out["correlation_out"] = nngp / (first["second_moment"] * second["second_moment"]).sqrt()
        if local:
            a = first["second_moment"]
            q = as_arb(q1)
            out["c_map_at_0"] = first["mean"] * first["mean"] / a
            out["c_map_slope_at_1"] = q * first["slope"] / a
            out["c_map_curvature_at_1"] = INFINITY if curvature is None else q * q * curvature / a
            out["q_map_slope_at_1"] = first["cross"] / q
    if layers is not None:
        out.update(deep.evaluate(act, rho, q1, q2, layers, w, b, digits))
    return out


def _curvature(act: Any, q: Fraction, digits: int) -> Any:
    """E[φ''(u)²] as a ball, or None for +∞: φ' jumps (``curvature_ball``), or φ'' has a
    singularity |x|^s with s ≤ −1/2 at 0 (a sum of signed powers of |x|, ``moments.abs_powers``:
    abs(x)**1.5 has φ'' = 0.75·|x|^(−1/2)), where E[φ''²] = +∞ is proven. A divergence only
    the quadrature saw is exit 3, named for the result it is for."""
    from ..moments.kernel_maps import curvature_ball

    try:
        return curvature_ball(act, q, digits)
    except (InputError, PrecisionError) as error:
        if _curvature_diverges(act):
            return None
        if isinstance(error, InputError):
            reason = "it seems infinite (its quadrature diverges), but that is not proven"
        else:
            reason = error.message.split(": ", 1)[-1] if act.expression else error.message
            reason = reason.removesuffix("; no unproven digits are printed")
        raise PrecisionError(
            f"c_map_curvature_at_1 of {{activation}} {_label(act)!r} needs E[phi''(u)^2]: "
            f"{reason}; no unproven value is printed",
            param="activation",
        ) from None


def _label(act: Any) -> str:
    return act.formula if act.expression else act.name


def _curvature_diverges(act: Any) -> bool:
    """Whether φ'' = Σ c·sign(x)^e·|x|^s (an expression of signed powers of |x|) has a power
    s ≤ −1/2 whose coefficients are not both 0 (proven by their balls), and no term of a lower
    power that may be nonzero: then near 0, on at least one side, |φ''| ≥ c'·|x|^s and
    E[φ''²] = +∞."""
    if not act.expression:
        return False
    from flint import ctx

    from ..moments.abs_powers import derivative_terms, signed_powers

    with ctx.workprec(128):
        f = signed_powers(act.tree)
        if f is None:
            return False
        second = derivative_terms(derivative_terms(f))
        if not second:
            return False
        lowest = min(s for _, s in second)
        lead = [c for (_, s), c in second.items() if s == lowest]
        return lowest <= Fraction(-1, 2) and any(not c.contains(0) for c in lead)


@not_certified_is_exit_3
def _evaluate_gated(
    unit: Gated,
    gate: Any,
    rho: Fraction,
    q1: Fraction,
    q2: Fraction,
    local: bool,
    layers: int | None,
    w: Fraction,
    b: Fraction,
    digits: int,
    deep: Deep,
) -> dict[str, Any]:
    from ..moments.gated_maps import gated_kernel_balls

    out = gated_kernel_balls(gate, rho, q1, q2, local, digits)
    if layers is not None:
        out.update(deep.evaluate(gate, rho, q1, q2, layers, w, b, digits, unit=unit))
    return out


class Deep:
    """``depth``'s results from the propagation core: correlation_layers, and the deep NNGP and NTK
    kernels (``deep_kernels``) where Σ̇ has a certified route over every layer's box, else left out
    with the reason in a note (``noted``)."""

    def __init__(self, layers: bool) -> None:
        self.layers = layers
        self.left_out: str | None = None

    def evaluate(
        self,
        act: Any,
        rho: Fraction,
        q1: Fraction,
        q2: Fraction,
        depth: int,
        w: Fraction,
        b: Fraction,
        digits: int,
        unit: Gated | None = None,
    ) -> dict[str, Any]:
        from ..moments.kernel_maps import NotProven
        from ..tier.propagation import KernelBox, deep_kernels, layer_map, trajectory

        step = layer_map(act, sigma_w2=w, sigma_b2=b, unit=unit)
        start = KernelBox.point(q1, rho, q2)
        path = trajectory(step, start, depth, digits)
        out: dict[str, Any] = {"correlation_layers": path.c}
        try:
            found = deep_kernels(step, start, path, digits)
        except NotProven as why:
            self.left_out = why.message
            return out
        self.left_out = None
        out.update(nngp_depth=found.nngp[-1], ntk_depth=found.ntk[-1])
        if self.layers:
            out.update(nngp_layers=found.nngp, ntk_layers=found.ntk)
        return out

    def noted(self, result: Computation) -> Computation:
        if self.left_out is None:
            return result
        note = f"nngp_depth and ntk_depth are left out: {self.left_out}"
        names = ("nngp_depth", "ntk_depth", *(("nngp_layers", "ntk_layers") if self.layers else ()))
        return replace(result, notes=(*result.notes, note), left_out=dict.fromkeys(names, self.left_out))


__all__ = ["DESCRIPTIONS", "kernel"]
