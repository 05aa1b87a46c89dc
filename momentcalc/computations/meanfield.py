"""``meanfield``: signal propagation through a deep random network (Poole et al. 2016,
"Exponential expressivity in deep neural networks through transient chaos"; Schoenholz et
al. 2017, "Deep information propagation").

    q_star         fixed point of the length map V(q) = σ_w²·E[φ(√q·Z)²] + σ_b² reached from q0
    chi1           σ_w²·E[φ'(√q*·Z)²]: slope of the correlation map at c = 1
    c_star         stable fixed point of the correlation map in [0, 1] (1 when χ₁ <= 1)
    depth_scale_q  ξ_q = −1/ln|V'(q*)|, V'(q*) = χ₁ + σ_w²·E[φ''·φ] (Stein: σ_w²·E[X·φ·φ']/q*)
    depth_scale_c  ξ_c = −1/ln(σ_w²·E[φ'(u₁)φ'(u₂)]) at c* (infinite at criticality)
    sigma_w2       with ``critical``: the σ_w² where χ₁(q*) = 1 at the given σ_b²

How each is found and proved (``model`` holds the maps):

* q*: the length map is iterated from q0 at low precision (Newton steps where the map
  contracts, doubling or halving where it does not) until a fixed point is bracketed or q
  runs off: to infinity (no fixed point: InputError) or to 0 (σ_b² = 0 and φ(0) = 0: q* = 0,
  the signal dies out). Then Newton's method on V(q) − q at precisions doubling up to the
  working precision, until a step is below 10^−(digits+3) relative: with Newton's quadratic
  convergence the point where that step was computed is within that distance of q*.
* c*: the correlation map R is convex and increasing on [0, 1] (its Hermite expansion
  has non-negative coefficients) with R(1) = 1 and R'(1) = χ₁: for χ₁ <= 1 the stable fixed
  point is 1; for χ₁ > 1 it is the one root of R(c) = c in [0, 1), reached monotonically by
  Newton's method from c = 0, with the same stopping rule (c* = 0 exactly when R(0) = 0).
* critical: on the critical line σ_w² = 1/B(q) and q = σ_w²·A(q) + σ_b², so q solves
  A(q)/B(q) + σ_b² − q = 0 (bracketed by a scan, then Newton as above) and σ_w² = 1/B(q).
* proofs: ``meanfield_proof`` proves the results in Arb balls around the values found here (a
  sign change brackets q*; expectations at q* enclosed from those at the bracket's ends);
  what it cannot prove keeps this route's value, marked ``certified: false`` and named in
  a note.
* q* = 0 (σ_b² = 0, φ(0) = 0, and the map contracts): the limits q -> 0 of the maps, from
  the one-sided slopes φ'(0±): χ₁ = σ_w²·(φ'(0−)² + φ'(0+)²)/2; correlations then follow
  the network's linearisation at 0 (kept when φ'(0−) = φ'(0+), driven to 1 only
  polynomially otherwise): c* is undefined or 1, ξ_c infinite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction

import mpmath
from mpmath import mp

from ..catalog import resolve
from ..defaults import MEANFIELD as DEFAULTS
from ..engine.numbers import Number, as_number, to_mpf, to_text
from ..engine.precision import working_dps
from ..errors import InputError, PrecisionError
from ..moments import expectations
from ..result import Computation, Quantity
from .common import check_digits
from .meanfield_model import Length, Model

# CLI command -> the function of this module that computes it (the table ``momentcalc.commands`` reads).
COMMANDS = {"meanfield": "meanfield"}

RESULTS = ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c")
DESCRIPTIONS = {
    "sigma_w2": "critical weight variance: chi1 = 1 at this sigma_b2 (the edge of chaos)",
    "q_star": "fixed point of the length map q -> sigma_w2*E[phi(sqrt(q)Z)^2] + sigma_b2",
    "chi1": "sigma_w2*E[phi'(sqrt(q*)Z)^2]: < 1 ordered, > 1 chaotic",
    "c_star": "stable fixed point of the correlation map (1 in the ordered phase)",
    "depth_scale_q": "xi_q: layers for the length to settle at q* (e-folding depth)",
    "depth_scale_c": "xi_c: layers over which correlations between inputs survive (e-folding depth)",
    "q_layers": "q at layers 0..L from q0",
    "c_layers": "correlation c at layers 0..L from c0",
}
LOCATE_DIGITS = 12  # precision of the search that brackets the fixed point
MAX_LOCATE_STEPS = 400
C_LOCATE_DIGITS = 8  # the correlation search starts lower: each step is a bivariate expectation
RUN_OFF = mpmath.mpf(10) ** 30  # q beyond RUN_OFF·scale (or below scale/RUN_OFF) has run off
MAX_RISING_DOUBLINGS = 4  # a rising q is sampled at factors of at most 16
SCAN_STEPS = 10  # the checks below a contracting q near 0 (factors of 4)
MAX_NEWTON_STEPS = 12
STAGE_MARGIN = 2  # digits a Newton stage aims past half the next one's
SLOPE_GUARD = 10  # digits f' carries past half of f's in a lean Newton step
# The critical line's q is searched from 1 by factors of 4, this many times up or down (4^25 ~ 10^15).
CRITICAL_SCAN_STEPS = 25
CRITICAL_SCAN_AFTER = 4  # steps on past a critical q that repels, looking for one that attracts
MAX_DEPTH = 1000
# Trajectories are computed twice, the second time with this many more digits; they must agree.
TRAJECTORY_EXTRA_DIGITS = 5
CRITICAL_START_DIGITS = 4  # the critical line's bisection stops at this relative width
# Schoenholz et al. 2017: networks train up to about this many multiples of ξ_c.
TRAINABLE_XI = 6
# Results key: c* was found only roughly, for the proof to finish (``_correlation_fixed_point``).
ROUGH = "c_star_rough"


# --- arguments ------------------------------------------------------------------------------


def _inputs(activation: object, sigma_w2: object, sigma_b2: object, critical: object, q0: object,
            c0: object, depth: object, params: Mapping[str, object] | None, digits: object) -> dict[str, object]:
    if not isinstance(activation, str):
        raise InputError(f"{{activation}} must be a catalog name or an expression in x, got {activation!r}",
                         param="activation", allowed="a catalog name or an expression in x", got=repr(activation))
    out: dict[str, object] = {"digits": check_digits(digits), "critical": bool(critical)}
    if critical and sigma_w2 is not None:
        raise InputError("{sigma_w2} cannot be given with {critical}: the critical value is what it solves for",
                         param="sigma_w2", params=("critical",))
    if sigma_w2 is not None or not critical:
        w = as_number(DEFAULTS["sigma_w2"] if sigma_w2 is None else sigma_w2, "sigma_w2")
        if not isinstance(w, Fraction) or w <= 0:
            raise InputError(param="sigma_w2", allowed="a finite number greater than 0", got=to_text(w))
        out["sigma_w2"] = w
    b = as_number(sigma_b2, "sigma_b2")
    if not isinstance(b, Fraction) or b < 0:
        raise InputError(param="sigma_b2", allowed="a finite number >= 0", got=to_text(b))
    out["sigma_b2"] = b
    q = as_number(q0, "q0")
    if not isinstance(q, Fraction) or q <= 0:
        raise InputError(param="q0", allowed="a finite number greater than 0 (the squared length of the input)",
                         got=to_text(q))
    out["q0"] = q
    if c0 is not None:
        c = as_number(c0, "c0")
        if not isinstance(c, Fraction) or not -1 <= c <= 1:
            raise InputError(param="c0", allowed="a correlation from -1 to 1", got=to_text(c))
        if depth is None:
            raise InputError("{c0} applies only with {depth} (the correlation at layer 0 of the trajectory)",
                             param="c0", params=("depth",))
        out["c0"] = c
    if depth is not None:
        d = as_number(depth, "depth")
        if not isinstance(d, Fraction) or d.denominator != 1 or not 1 <= d <= MAX_DEPTH:
            raise InputError(param="depth", allowed=f"a whole number from 1 to {MAX_DEPTH}", got=to_text(d))
        out["depth"] = int(d)
    if critical and depth is not None:
        raise InputError("{depth} cannot be combined with {critical}", param="depth", params=("critical",))
    name = activation.strip()
    params = dict(params or {})
    out["act"] = resolve(name, params)
    out["model"] = Model(out["act"], name, params)  # type: ignore[arg-type]
    return out


# --- Newton's method at doubling precision ----------------------------------------------------


def _stages(digits: int, start: int = LOCATE_DIGITS) -> list[int]:
    """Target digits of the Newton stages, ending at digits + 5: each about half the next
    (plus STAGE_MARGIN), so one Newton step, which about doubles the correct digits, reaches
    the next; the first at most twice ``start``. Halving down from the last stage rather
    than doubling up from ``start`` keeps the stage before the last (the costliest but one)
    near half the digits, not anywhere up to all of them."""
    stages = [digits + 5]
    while stages[0] > 2 * start:
        stages.insert(0, (stages[0] + 1) // 2 + STAGE_MARGIN)
    return stages


def _newton(step, x: mpmath.mpf, digits: int, what: str, start: int = LOCATE_DIGITS, check=None,  # type: ignore[no-untyped-def]
            lean=None):
    """Polish a root of f near ``x``: ``step(x, t)`` returns (f, f', extra) at the current
    precision with expectations to ``t`` digits. One Newton step per intermediate stage;
    at the last, steps until one is below 10^−(digits+3)·|x|. Returns (x, extra) at the
    point where that last step was computed (within about that step of the root).

    ``check(x)``, when given, returns (f, extra) at a point within 10^−(digits+5)·|x| of x,
    with expectations to more than digits + 5 digits: after a step at the last stage the
    root test f/f' (f' of that step) is made with it instead of a whole step, and (x, its
    extra) returned when it passes (the proof reuses those expectations).

    ``lean(x, t)``, used in place of ``step`` where ``check`` is given, returns f to t digits
    and f' to about half as many (all a Newton step needs: f' only scales a step already
    within the square root of the target), its extra unused: the check's is returned."""
    if check is not None and lean is not None:
        step = lean
    else:
        lean = None
    stages = _stages(digits, start)
    guard = 0  # at the last stage, digits that a small f' would take from the step
    for index, t in enumerate(stages):
        if index == len(stages) - 1:
            t += guard
        with mp.workdps(t + 10):
            x = +x
            for _ in range(MAX_NEWTON_STEPS):
                f, df, extra = step(x, t)
                if df != 0 and mpmath.isfinite(df) and abs(df) < 1:
                    guard = int(mpmath.ceil(-mpmath.log10(abs(df)))) + 1
                if df == 0 or not mpmath.isfinite(df):
                    raise PrecisionError(f"Newton's method for {what} met a zero derivative")
                delta = f / df
                if index < len(stages) - 1:
                    x = x - delta
                    break
                if abs(delta) <= mpmath.mpf(10) ** (-(digits + 3)) * abs(x) or delta == 0:
                    return x, extra if lean is None else check(x)[1]
                x = x - delta
                if not x > 0:
                    raise PrecisionError(f"Newton's method for {what} left the positive numbers")
                if check is not None:
                    f, extra = check(x)
                    if abs(f / df) <= mpmath.mpf(10) ** (-(digits + 3)) * abs(x):
                        return x, extra
            else:
                raise PrecisionError(f"Newton's method for {what} did not converge to {digits} digits")
    raise AssertionError("unreachable")


# --- q* ---------------------------------------------------------------------------------------


def _length_step(model: Model, w: mpmath.mpf, b: mpmath.mpf):  # type: ignore[no-untyped-def]
    def step(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, Length]:
        length = model.length(q, t)
        return w * length.A + b - q, w * length.S - 1, length

    return step


def _slope_digits(t: int) -> int:
    """Digits of f' for a Newton step that evaluates f to t digits (``_newton``'s ``lean``)."""
    return t // 2 + SLOPE_GUARD


def _lean_length_step(model: Model, w: mpmath.mpf, b: mpmath.mpf):  # type: ignore[no-untyped-def]
    """``_length_step`` with A to t digits, S (the slope) to ``_slope_digits(t)``, B not at all."""

    def step(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, None]:
        a, s = model.length_parts(q, t, _slope_digits(t))
        return w * a + b - q, w * s - 1, None

    return step


def _no_fixed_point(w: mpmath.mpf, b_text: str, w_text: str, q0_text: str | None = None) -> InputError:
    """q runs off to infinity: from q0 (where the map was followed from there), or from any q."""
    where = "" if q0_text is None else f" above {{q0}} = {q0_text}"
    return InputError(
        f"the length map has no fixed point{where} at {{sigma_w2}} = {w_text}, {{sigma_b2}} = {b_text}: "
        "q grows without bound with depth (the signal explodes); lower {sigma_w2}",
        param="sigma_w2", params=("sigma_b2", "q0"),
    )


def _locate(model: Model, w: mpmath.mpf, b: mpmath.mpf, q0: mpmath.mpf, zero_fixed: bool,
            texts: tuple[str, str, str]) -> mpmath.mpf | None:
    """A point close to the fixed point reached from q0 (None: q* = 0), at LOCATE_DIGITS."""
    step = _length_step(model, w, b)
    scale = max(q0, b, mp.one)
    q = q0
    low: mpmath.mpf | None = None  # F(low) > 0
    high: mpmath.mpf | None = None  # F(high) < 0
    rising = 0  # steps in a row that found V(q) > q with no root bracketed
    for _ in range(MAX_LOCATE_STEPS):
        f, df, _ = step(q, LOCATE_DIGITS)
        tolerance = mpmath.mpf(10) ** (-LOCATE_DIGITS + 3)
        # Close to a root when Newton's step is small against q (a small residual alone is not:
        # x*tanh(x) + tanh(x) has V(q) − q -> 1 as q grows, tiny against q = 10⁹ but no root).
        if df != 0 and abs(f / df) <= tolerance * q:
            return q
        if abs(f) <= tolerance * q and abs(df) <= tolerance:
            # V(q) − q is below what these digits tell from q, and V runs parallel to the
            # diagonal: rising so far, q keeps growing by about V(q) − q per layer.
            if low is not None and high is None:
                raise _no_fixed_point(w, *texts)
            raise PrecisionError(f"the length map cannot be told from q -> q at q = {mpmath.nstr(q, 3)} "
                                 f"to {LOCATE_DIGITS} digits, so its fixed point cannot be located")
        if f > 0:
            low = q if low is None or q > low else low
        else:
            high = q if high is None or q < high else high
        if low is not None and high is not None and low < high:
            # A bracketed root: Newton inside the bracket, else its midpoint.
            candidate = q - f / df if df != 0 else (low + high) / 2
            q = candidate if low < candidate < high else (low + high) / 2
            if high - low <= mpmath.mpf(10) ** (-LOCATE_DIGITS + 2) * high:
                return q
            continue
        if df < 0:
            candidate = q - f / df  # moves toward the root in the direction of the map
            q = candidate if candidate > 0 else q / 8
        elif f > 0:
            # q + f = V(q); growing, the steps widen to factors of up to 2^MAX_RISING_DOUBLINGS
            # (each expectation at a large q costs more, and q may run off to RUN_OFF).
            rising += 1
            q = max(q + f, 2 ** min(rising, MAX_RISING_DOUBLINGS) * q)
        else:
            q = min(q + f, q / 2)
        if q > RUN_OFF * scale:
            raise _no_fixed_point(w, *texts)
        if q < scale / RUN_OFF:
            if zero_fixed:
                return None
            raise PrecisionError("the length map's fixed point is below the search range")
        if zero_fixed and f < 0 and high is not None and low is None and q < q0 / 4:
            # Contracting toward 0: is there any fixed point left between 0 and q?
            probe, found = q, False
            for _ in range(SCAN_STEPS):
                probe = probe / 4
                if step(probe, LOCATE_DIGITS)[0] > 0:
                    low, found = probe, True
                    break
            if not found:
                return None
    raise PrecisionError("the search for the length map's fixed point did not settle")


# --- the computation --------------------------------------------------------------------------

def _preserved_notes(kink: bool) -> list[str]:
    """Notes for the length-preserving case; ``kink``: φ'(0−) ≠ φ'(0+)."""
    notes = ["the length is preserved exactly: sigma_w2*E[phi(Z)^2] = 1 with sigma_b2 = 0 makes the length map "
             "q -> q for this positively homogeneous phi, so every q is a fixed point and q* is q0 at every depth; "
             "chi1 = 1 (the edge of chaos; for relu this is He initialization, sigma_w2 = 2)"]
    if kink:
        notes.append("correlations between inputs approach c* = 1 only polynomially with depth: both depth scales "
                     "are infinite")
    else:
        notes.append("c_star is undefined (nan): the network is linear and keeps every correlation; both depth "
                     "scales are infinite")
    return notes


def _homogeneous_second_moment(model: Model) -> Fraction | None:
    """E[φ(Z)²] (= E[φ'(Z)²]) exactly for a positively homogeneous catalog φ (the catalog's
    rational closed form), else None."""
    from ..catalog.kernels import HOMOGENEOUS
    from ..moments.exact import exact_closed_form

    if model.act.expression or model.act.name not in HOMOGENEOUS:
        return None
    return exact_closed_form(model.act, "second_moment")


def _length_preserved(q0: Fraction, second: Fraction, critical: bool, kink: bool) -> dict[str, object]:
    """The exact results where the length map is q -> q (σ_w²·E[φ(Z)²] = 1, σ_b² = 0, φ
    positively homogeneous): q* = q0; χ₁ = σ_w²·E[φ'²] = 1 since E[φ'²] = E[φ²]; V' = 1 and
    χ₁ = 1 make both depth scales infinite. The correlation map (convex, R(1) = 1, R'(1) =
    χ₁ = 1) has c* = 1 where φ has a kink at 0, and is c -> c (c* undefined: nan) where φ
    is linear."""
    out: dict[str, object] = {"sigma_w2": 1 / second} if critical else {}
    out.update(q_star=q0, chi1=Fraction(1), depth_scale_q=mpmath.inf, depth_scale_c=mpmath.inf)
    if kink:
        out["c_star"] = Fraction(1)
    return out



def _depth_scale(slope: mpmath.mpf) -> mpmath.mpf:
    """−1/ln|slope|: inf at |slope| = 1, 0 at slope = 0."""
    s = abs(slope)
    if s == 0:
        return mp.zero
    if s == 1:
        return mpmath.inf
    return -1 / mpmath.log(s)


def _is_one(x: mpmath.mpf, digits: int) -> bool:
    """x = 1 to the working precision (criticality cannot be told apart from it)."""
    return abs(x - 1) <= mpmath.mpf(10) ** (-(digits + 5))


def meanfield(
    activation: str,
    *,
    sigma_w2: object = None,
    sigma_b2: object = DEFAULTS["sigma_b2"],
    critical: bool = False,
    q0: object = DEFAULTS["q0"],
    c0: object = None,
    depth: object = None,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Mean-field signal propagation of a deep random network with activation ``activation``.

    ``sigma_w2`` (default 1) and ``sigma_b2`` (default 0) are the weight and bias variances;
    ``critical=True`` solves for sigma_w2 instead (χ₁ = 1). ``params`` sets catalog
    parameters by name (``{"slope": "0.2"}`` for leaky_relu). ``q0`` is the input's squared
    length (the fixed point reached from it is q*); ``depth`` adds the per-layer q (and,
    with ``c0``, the correlation) from layer 0 to ``depth``. Every result to ``digits``.

    >>> r = meanfield("relu", sigma_w2="1.5", sigma_b2="0.1")
    >>> mpmath.nstr(r.value("q_star"), 15)   # sigma_b2 / (1 - sigma_w2/2)
    '0.4'
    """
    given = _inputs(activation, sigma_w2, sigma_b2, critical, q0, c0, depth, params, digits)
    digits = given["digits"]  # type: ignore[assignment]
    model: Model = given["model"]  # type: ignore[assignment]
    act = model.act
    label = act.name if not act.expression else activation.strip()
    notes: list[str] = []
    if act.expression:
        notes.append(f"phi(x) = {act.formula}")
    dps = working_dps(digits)
    with mp.workdps(dps):
        b = to_mpf(given["sigma_b2"])  # type: ignore[arg-type]
        q0_ = to_mpf(given["q0"])  # type: ignore[arg-type]
        phi0, left, right = model.at_zero()
        zero_fixed = b == 0 and phi0 == 0
        results: dict[str, mpmath.mpf] = {}
        unit = False  # q* = 1 exactly by the catalog's closed forms (selu at sigma_w2 = 1)
        second = _homogeneous_second_moment(model)
        preserved = second is not None and (
            given["sigma_b2"] == 0 if critical else given["sigma_w2"] * second == 1)  # type: ignore[operator]
        if preserved:
            if given["sigma_b2"] != 0:
                raise _no_fixed_point(b, to_text(given["sigma_b2"]), to_text(given["sigma_w2"]))  # type: ignore[arg-type]  # V(q) = q + sigma_b2
            w = to_mpf(1 / second) if critical else to_mpf(given["sigma_w2"])  # type: ignore[arg-type, operator]
            q_star, length = q0_, None
            results["c_star"] = mpmath.nan  # used where φ is linear (no kink): c* undefined
            proof: dict[str, object] = _length_preserved(given["q0"], second, critical, left != right)  # type: ignore[arg-type]
            notes.extend(_preserved_notes(left != right))
        elif critical:
            w, q_star, length = _critical(model, b, zero_fixed, (left, right), digits, label,
                                          _proof_check(model, True, given["sigma_b2"], None, b, digits))  # type: ignore[arg-type]
            results["sigma_w2"] = w
        else:
            w = to_mpf(given["sigma_w2"])  # type: ignore[arg-type]
            texts = (to_text(given["sigma_b2"]), to_text(given["sigma_w2"]), to_text(given["q0"]))  # type: ignore[arg-type]
            with mp.workdps(LOCATE_DIGITS + 10):
                start = _locate(model, +w, +b, +q0_, zero_fixed, texts)
            if start is None:
                q_star, length = mp.zero, None
            else:
                check = _proof_check(model, False, given["sigma_b2"], w, b, digits)  # type: ignore[arg-type]
                q_star, length = _newton(_length_step(model, w, b), start, digits, "the fixed point q*", check=check,
                                         lean=_lean_length_step(model, w, b))
                unit = _unit_fixed_point(model, given) and abs(q_star - 1) <= mpmath.mpf(10) ** -(digits + 2)
                if unit:
                    q_star = mp.one
        if not preserved:
            results.update(_at_fixed_point(model, w, b, q_star, length, (left, right), digits, notes, critical))
            if length is not None:  # q* > 0: proven in balls around the values found
                from .meanfield_proof import prove, prove_zero_correlation, rounds

                chaotic_c = results["c_star"] if 0 < results["c_star"] < 1 else None
                proof = prove(model, None if critical else given["sigma_w2"], given["sigma_b2"], q_star, digits,  # type: ignore[arg-type]
                              chaotic_c)
                if results.pop(ROUGH, None) is not None and not all(
                        name in proof and rounds(proof[name], digits) for name in ("c_star", "depth_scale_c")):
                    # the proof did not finish the rough c*: this route does, to every digit
                    c_star, slope = _correlation_fixed_point(model, w, b, q_star, digits)
                    results.update(c_star=c_star, depth_scale_c=_depth_scale(slope))
                if unit:
                    proof["q_star"] = Fraction(1)
                    if results["c_star"] == 0 and _mean_zero_at_unit(model) and given["sigma_b2"] == 0:
                        proof.update(prove_zero_correlation(model, given["sigma_w2"], digits))  # type: ignore[arg-type]
            else:
                from .meanfield_proof import prove_at_zero

                proof = prove_at_zero(model, None if critical else given["sigma_w2"], given["sigma_b2"],  # type: ignore[arg-type]
                                      results["c_star"] == 1, digits)
        quantities = []
        for name in (("sigma_w2",) if critical else ()) + RESULTS:
            quantities.append(Quantity(name, description=DESCRIPTIONS[name], **_proven_or_found(proof, name, results, digits)))
        if "depth" in given:
            layers_q, layers_c = _trajectories(model, w, b, q0_, given.get("c0"), given["depth"], digits)  # type: ignore[arg-type]
            quantities.append(Quantity("q_layers", tuple(layers_q), DESCRIPTIONS["q_layers"]))
            if layers_c is not None:
                quantities.append(Quantity("c_layers", tuple(layers_c), DESCRIPTIONS["c_layers"]))
    unproven = [q.name for q in quantities if not q.certified]
    if unproven:
        notes.append(f"not proven by ball arithmetic (certified: false): {', '.join(unproven)}; "
                     f"they rest on mpmath at raised precision ({_why_unproven(unproven, q_star, preserved)})")
    inputs: dict[str, object] = {"activation": label}
    inputs.update(dict(act.values))
    if not critical:
        inputs["sigma_w2"] = given["sigma_w2"]
    inputs["sigma_b2"] = given["sigma_b2"]
    inputs["q0"] = given["q0"]
    for key in ("c0", "depth"):
        if key in given:
            inputs[key] = given[key] if key == "c0" else Fraction(given[key])  # type: ignore[arg-type]
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.meanfield import derive as derive_forms

        closed, derivation = derive_forms(act, given, {q.name: q.value for q in quantities if not q.is_list}, digits)
        quantities = [q if q.name not in closed else replace(q, closed_form=closed[q.name][0], latex=closed[q.name][1])
                      for q in quantities]
    return Computation("meanfield", inputs, digits, tuple(quantities), notes=tuple(notes), derivation=derivation)


def _why_unproven(names: list[str], q_star: mpmath.mpf, preserved: bool = False) -> str:
    """Why the results ``names`` are not proven, in a few words (``preserved``: the length
    map is q -> q, where only a linear φ's undefined c* is left unproven)."""
    if q_star == 0:
        return ("the limits at q* = 0 are proven only for an activation with a closed-form kernel; "
                "c* is undefined where phi'(0-) = phi'(0+)")
    reasons = []
    if preserved and "c_star" in names:
        reasons.append("c* is undefined where phi'(0-) = phi'(0+)")
    elif "c_star" in names or "depth_scale_c" in names:
        reasons.append("the chaotic phase's c* needs bivariate expectations E[phi(u1)phi(u2)] and "
                       "E[phi'(u1)phi'(u2)], proven for catalog activations analytic in a strip (tanh, sigmoid, "
                       "swish, softplus, mish, erf), piecewise exp-polynomial (relu, elu, selu, ...) or with a "
                       "closed-form kernel, and for expressions analytic near the real line with polynomial "
                       "growth; not for the other catalog entries and expressions with a kink, a pole or a "
                       "branch point near the real line; or the balls could not tell the phase")
    if {"q_star", "chi1", "depth_scale_q", "sigma_w2"} & set(names):
        reasons.append("the fixed point's balls did not decide the digits (a value on a rounding tie, or too "
                       "close to criticality)")
    if "q_layers" in names or "c_layers" in names:
        reasons.append("the per-layer trajectories are not proven")
    return "; ".join(reasons)


def _proven_or_found(proof: dict[str, object], name: str, results: dict[str, mpmath.mpf], digits: int) -> dict[str, object]:
    """Quantity fields: proven (an exact value or a ball that rounds) when ``proof`` has them,
    else the mpmath route's value, not certified."""
    from ..engine.balls import exactly, proven
    from .meanfield_proof import rounds

    value = proof.get(name)
    if value is None or not rounds(value, digits):
        return {"value": +results[name]}
    if isinstance(value, Fraction):
        return exactly(value)
    if value is mpmath.inf:
        return {"value": mpmath.inf, "certified": True, "error_bound": mpmath.mpf(0)}
    return proven(value)


def _proof_check(model: Model, critical: bool, b_exact: Fraction, w: mpmath.mpf | None, b: mpmath.mpf,
                 digits: int):  # type: ignore[no-untyped-def]
    """The last Newton step's check (``_newton``) at the proof's first point: f there and the
    Length, from the expectations the proof starts with. None where the proof uses a kernel."""
    from .meanfield_proof import first_expectations

    def check(x: mpmath.mpf) -> tuple[mpmath.mpf, Length]:
        std, monomials, wanted = first_expectations(model, critical, b_exact, x, digits)  # type: ignore[misc]
        q, length = model.length_at(std, monomials, wanted)
        if critical:
            return length.A / length.B + b - q, length
        return w * length.A + b - q, length  # type: ignore[operator]

    probe = first_expectations(model, critical, b_exact, mp.one, digits)
    return None if probe is None else check


def _critical(model: Model, b: mpmath.mpf, zero_fixed: bool, slopes: tuple[mpmath.mpf, mpmath.mpf],
              digits: int, label: str, check=None) -> tuple[mpmath.mpf, mpmath.mpf, Length | None]:  # type: ignore[no-untyped-def]
    """(σ_w², q*, Length at q*) on the critical line at σ_b² = b, at a fixed point the length
    map settles at (V'(q*) <= 1); an edge of chaos only at fixed points that repel is no
    answer (InputError naming them)."""
    repelled: list[str] = []
    if zero_fixed:
        # q* = 0 on the critical line: χ₁ = σ_w²·(φ'(0−)² + φ'(0+)²)/2 = 1.
        limit = (slopes[0] ** 2 + slopes[1] ** 2) / 2
        if limit == 0:
            raise InputError(f"{{activation}} {label!r} has phi'(0) = 0: chi1 -> 0 as q -> 0 for every sigma_w2, "
                             "so at sigma_b2 = 0 there is no edge of chaos at q* = 0", param="activation")
        if not _zero_repels(model, 1 / limit):
            return 1 / limit, mp.zero, None
        repelled.append(f"q* = 0 (sigma_w2 = {mpmath.nstr(1 / limit, 6)}), where q grows away from 0")

    def step(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, Length]:
        length, db = model.length_and_b_slope(q, t)
        ratio = length.A / length.B
        d_ratio = (length.S * length.B - length.A * db) / length.B**2
        return ratio + b - q, d_ratio - 1, length

    def lean(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, None]:
        (a, b_), (s, db) = model.critical_parts(q, t, _slope_digits(t))
        d_ratio = (s * b_ - a * db) / b_**2
        return a / b_ + b - q, d_ratio - 1, None

    scanned: list[mpmath.mpf] = []
    for low, high in _critical_brackets(step, scanned):
        with mp.workdps(LOCATE_DIGITS + 10):
            # Bisection in log q to a few digits, then Newton at growing precision.
            f_low = step(low, LOCATE_DIGITS)[0]
            for _ in range(40):
                mid = mpmath.sqrt(low * high)
                f_mid = step(mid, LOCATE_DIGITS)[0]
                if (f_mid > 0) == (f_low > 0):
                    low, f_low = mid, f_mid
                else:
                    high = mid
                if high / low < 1 + mpmath.mpf(10) ** -CRITICAL_START_DIGITS:
                    break
            start = mpmath.sqrt(low * high)
        # the bisection leaves about CRITICAL_START_DIGITS correct digits: the stages double from there
        q_star, length = _newton(step, start, digits, "the critical line", start=CRITICAL_START_DIGITS, check=check,
                                 lean=lean)
        slope = length.S / length.B  # V'(q*) at σ_w² = 1/B
        if slope <= 1 + mpmath.mpf(10) ** (-digits):
            return 1 / length.B, q_star, length
        repelled.append(f"q* = {mpmath.nstr(q_star, 6)} (sigma_w2 = {mpmath.nstr(1 / length.B, 6)}), where the "
                        f"length map's slope is {mpmath.nstr(slope, 4)} > 1")
    if repelled:
        raise InputError(
            f"{{activation}} {label!r} has no stable edge of chaos at {{sigma_b2}} = {mpmath.nstr(b, 10)}: chi1 = 1 "
            f"holds only at fixed points the length map moves away from ({'; '.join(repelled)}; none other with q* "
            f"{'up to' if scanned and scanned[0] > 1 else 'down to'} {mpmath.nstr(scanned[0] if scanned else 0, 3)}), "
            "so no network settles there", param="activation", params=("sigma_b2",))
    raise InputError(
        f"{{activation}} {label!r} has no edge of chaos at {{sigma_b2}} = {mpmath.nstr(b, 10)}: "
        "chi1 = 1 is not reached at any fixed point (for relu-like activations it holds only "
        "at sigma_b2 = 0)", param="activation", params=("sigma_b2",))


def _critical_brackets(step, scanned: list[mpmath.mpf]):  # type: ignore[no-untyped-def]
    """Brackets (low, high) of the critical line's q, scanning from q = 1 by factors of 4 in
    the direction f(1) points to (f(0+) = A/B + σ_b² >= 0); past a sign change, only
    CRITICAL_SCAN_AFTER more steps (far-off q are costly and rarely hold another root).
    ``scanned`` receives the last q looked at."""
    with mp.workdps(LOCATE_DIGITS + 10):
        q = mp.one
        f_previous = step(q, LOCATE_DIGITS)[0]
        factor = 4 if f_previous > 0 else mpmath.mpf(1) / 4
        steps = CRITICAL_SCAN_STEPS
        while steps > 0:
            steps -= 1
            previous, q = q, q * factor
            scanned[:] = [q]
            f = step(q, LOCATE_DIGITS)[0]
            if f == 0 or (f > 0) != (f_previous > 0):
                yield min(q, previous), max(q, previous)
                steps = min(steps, CRITICAL_SCAN_AFTER)
            f_previous = f


def _zero_repels(model: Model, w: mpmath.mpf) -> bool:
    """At σ_b² = 0 and σ_w² = w, does the length map move a small q away from 0 (V(q) > q)?
    Decided at q = 10^−6, where the leading term of V(q) − q (order q² or q^(3/2) for the
    catalog's activations: tanh −2q², gelu +6q²/π) is far above the working precision."""
    with mp.workdps(40):
        q = mpmath.mpf(10) ** -6
        return w * model.length(q, 30).A - q > 0


def _at_fixed_point(model: Model, w: mpmath.mpf, b: mpmath.mpf, q: mpmath.mpf, length: Length | None,
                    slopes: tuple[mpmath.mpf, mpmath.mpf], digits: int, notes: list[str],
                    critical: bool) -> dict[str, mpmath.mpf]:
    """χ₁, c*, ξ_q, ξ_c at the fixed point q (with ``length`` there; None for q = 0)."""
    out: dict[str, mpmath.mpf] = {"q_star": q}
    if length is None:  # q* = 0: the limits q -> 0
        left, right = slopes
        chi = w * (left**2 + right**2) / 2
        out["chi1"] = chi
        if critical or _is_one(chi, digits):
            out["chi1"] = mp.one if critical else chi
            out["depth_scale_q"] = mpmath.inf
            notes.append("critical at q* = 0 (chi1 = 1): the signal length decays to 0 only polynomially "
                         "with depth (no fixed point above 0; depth_scale_q is infinite)")
        else:
            out["depth_scale_q"] = _depth_scale(chi)
            notes.append(f"q* = 0: the signal length shrinks by chi1 = {mpmath.nstr(chi, 6)} per layer and dies out "
                         f"(1/e every {mpmath.nstr(out['depth_scale_q'], 4)} layers); add bias variance "
                         "(sigma_b2 > 0) or raise sigma_w2 to keep a signal")
        out["depth_scale_c"] = mpmath.inf
        if left == right:
            out["c_star"] = mpmath.nan
            notes.append("c_star is undefined (nan): as q -> 0 the network acts as its linearisation at 0, which "
                         "keeps every correlation; depth_scale_c is infinite (correlations are not forgotten at "
                         "an exponential rate, the signal itself fades instead)")
        else:
            out["c_star"] = mp.one
            notes.append("as q -> 0 the network acts as its piecewise-linear limit at 0, which drives correlations "
                         "to c* = 1 only polynomially: depth_scale_c is infinite")
        return out
    chi = w * length.B
    out["chi1"] = mp.one if critical else chi
    out["depth_scale_q"] = _depth_scale(w * length.S)
    if w * length.S > 1 and not _is_one(w * length.S, digits):
        notes.append(f"q* = {mpmath.nstr(q, 6)} repels: the length map's slope there is {mpmath.nstr(w * length.S, 4)} "
                     "> 1, so a length slightly off q* moves away from it (depth_scale_q < 0 is the e-folding depth "
                     "of that departure); this q* is reached only from q0 = q* exactly")
    if critical or _is_one(chi, digits):
        out["c_star"] = mp.one
        out["depth_scale_c"] = mpmath.inf
        notes.append("critical (chi1 = 1, the edge of chaos): correlations between inputs decay only "
                     "polynomially with depth, so depth_scale_c is infinite; at initialization signals and "
                     "gradients pass through any depth (the initialization Schoenholz et al. 2017 recommend "
                     "for very deep networks)")
        return out
    if chi < 1:
        out["c_star"] = mp.one
        xi = _depth_scale(chi)
        out["depth_scale_c"] = xi
        notes.append(
            f"ordered phase (chi1 = {mpmath.nstr(chi, 6)} < 1): all inputs converge to the same representation "
            f"(c* = 1), with correlation gaps shrinking 1/e every {mpmath.nstr(xi, 4)} layers; gradients vanish "
            f"by chi1 per layer. Networks train up to about {TRAINABLE_XI}*depth_scale_c = "
            f"{mpmath.nstr(TRAINABLE_XI * xi, 3)} layers (Schoenholz et al. 2017); raise sigma_w2 toward the "
            "critical value (--critical) to go deeper")
        return out
    mean_zero = q == 1 and _mean_zero_at_unit(model)
    # c* = 0 exactly needs no Newton's method; otherwise the proof may finish a rough c*
    rough = _provable_correlation(model) and not (b == 0 and (model.act.parity == "odd" or mean_zero))
    c_star, slope = _correlation_fixed_point(model, w, b, q, digits, mean_zero, rough)
    if rough:
        out[ROUGH] = mp.one
    out["c_star"] = c_star
    xi = _depth_scale(slope)
    out["depth_scale_c"] = xi
    notes.append(
        f"chaotic phase (chi1 = {mpmath.nstr(chi, 6)} > 1): nearby inputs decorrelate toward c* = "
        f"{mpmath.nstr(c_star, 6)}, settling 1/e every {mpmath.nstr(xi, 4)} layers; gradients explode by chi1 "
        f"per layer. Networks train up to about {TRAINABLE_XI}*depth_scale_c = {mpmath.nstr(TRAINABLE_XI * xi, 3)} "
        "layers (Schoenholz et al. 2017); lower sigma_w2 toward the critical value (--critical) to go deeper")
    return out


def _unit_fixed_point(model: Model, given: Mapping[str, object]) -> bool:
    """Is q = 1 exactly a fixed point: σ_w²·E[φ(Z)²] + σ_b² = 1 with the catalog's rational
    E[φ(Z)²] (selu at σ_w² = 1, σ_b² = 0: the self-normalizing fixed point)?"""
    from ..moments.exact import exact_closed_form

    second = exact_closed_form(model.act, "second_moment")
    return second is not None and given["sigma_w2"] * second + given["sigma_b2"] == 1  # type: ignore[operator]


def _mean_zero_at_unit(model: Model) -> bool:
    """E[φ(Z)] = 0 exactly by the catalog (selu)."""
    from ..moments.exact import exact_closed_form

    return exact_closed_form(model.act, "mean") == 0


def _provable_correlation(model: Model) -> bool:
    """Will the proof find c* and ξ_c from certified bivariate expectations
    (``meanfield_correlation_proof``, which polishes a rough c* itself)?"""
    from ..moments.bivariate_certified import supported

    return model.kernel is None and supported(model.act)


def _correlation_fixed_point(model: Model, w: mpmath.mpf, b: mpmath.mpf, q: mpmath.mpf,
                             digits: int, mean_zero: bool = False, rough: bool = False) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(c*, slope of the correlation map at c*) in the chaotic phase; ``mean_zero``: E[φ(√q·Z)]
    = 0 exactly (by the catalog), as it is for an odd φ. ``rough``: only to about half the
    digits (Newton's stages but the last, one step each), for the proof to finish: its
    Newton step from there at full digits is the one a last stage here would take."""
    if b == 0 and (model.act.parity == "odd" or mean_zero):
        # R(0) = (σ_w²·E[φ]² + σ_b²)/q* = 0: c* = 0 (R convex with R(1) = 1 lies below the
        # diagonal, so 0 is the stable fixed point), slope σ_w²·E[φ']² (E[φ'] from the proof's
        # first expectations, within 10^−(digits+5) of q, where they include it: cached).
        from .meanfield_proof import DERIV, first_expectations

        shared = first_expectations(model, False, Fraction(0), q, digits)
        if shared is not None and DERIV in shared[1]:
            std, monomials, wanted = shared
            d = expectations(model.text, list(monomials), std=std, digits=wanted,
                             params=model.params)[monomials.index(DERIV)]
        else:
            d = model.derivative_mean(q, digits + 3)
        return mp.zero, w * d * d

    def step(c: mpmath.mpf, t: int, slope_digits: int | None = None) -> tuple[mpmath.mpf, mpmath.mpf,
                                                                               tuple[mpmath.mpf, mpmath.mpf]]:
        k, kd = model.cross(q, c, t, slope_digits)
        slope = w * kd  # dR/dc = σ_w²·q·K'/q
        f, df = (w * k + b) / q - c, slope - 1
        return f, df, (slope, f / df)

    # Newton from c = 0 at low precision (monotone: R is convex), then at doubling precision.
    with mp.workdps(C_LOCATE_DIGITS + 10):
        c = mp.zero
        for _ in range(MAX_LOCATE_STEPS):
            f, df, _ = step(c, C_LOCATE_DIGITS)
            if f == 0:
                break
            nxt = c - f / df
            if not 0 <= nxt < 1:
                raise PrecisionError("Newton's method for the correlation fixed point left [0, 1)")
            if abs(nxt - c) <= mpmath.mpf(10) ** (-C_LOCATE_DIGITS + 2) * abs(nxt):
                c = nxt
                break
            c = nxt
        else:
            raise PrecisionError("the search for the correlation fixed point did not settle")
    if c == 0:
        return mp.zero, step(mp.zero, digits + 3)[2][0]
    if rough and len(_stages(digits, C_LOCATE_DIGITS)) > 1:  # (at a few digits the search's c is as rough)
        for t in _stages(digits, C_LOCATE_DIGITS)[:-1]:
            with mp.workdps(t + 10):
                slope, delta = step(+c, t, _slope_digits(t))[2]
                c = c - delta
                if not 0 < c < 1:
                    raise PrecisionError("Newton's method for the correlation fixed point left (0, 1)")
        return c, slope
    c_star, (slope, delta) = _newton(step, c, digits, "the correlation fixed point c*", C_LOCATE_DIGITS)
    # The last Newton step (below 10^-(digits+3)) taken too: the point the proof starts from is
    # then as close to c* as the expectations' accuracy allows, and one evaluation proves it.
    return c_star - delta, slope


def _trajectories(model: Model, w: mpmath.mpf, b: mpmath.mpf, q0: mpmath.mpf, c0: Number | None, depth: int,
                  digits: int) -> tuple[list[mpmath.mpf], list[mpmath.mpf] | None]:
    """q and c at layers 0..depth, computed at two precisions that must agree (the maps may
    amplify rounding errors layer by layer)."""

    def run(extra: int) -> tuple[list[mpmath.mpf], list[mpmath.mpf] | None]:
        t = digits + 3 + extra
        with mp.workdps(t + 10):
            qs, cs = [+q0], None if c0 is None else [to_mpf(c0)]
            for _ in range(depth):
                q = qs[-1]
                q_next = w * model.length(q, t).A + b
                if cs is not None:
                    c = cs[-1]
                    if c == 1:
                        cs.append(mp.one)
                    else:
                        k, _ = model.cross(q, c, t)
                        cs.append((w * k + b) / q_next)
                qs.append(q_next)
            return qs, cs

    first = run(0)
    second = run(TRAJECTORY_EXTRA_DIGITS)
    with mp.workdps(digits + 20):
        for a, b_ in zip(first[0] + (first[1] or []), second[0] + (second[1] or [])):
            if abs(a - b_) > mpmath.mpf(10) ** (-(digits + 2)) * max(abs(a), abs(b_)):
                raise PrecisionError(
                    f"the trajectory amplifies rounding errors too much to give {digits} digits at depth {depth}; "
                    "ask for fewer layers or fewer digits")
    return second
