"""``meanfield``'s results from the located fixed points (``locate``, mpmath) and their
proofs (``prove``, Arb balls), at a working precision raised by the conditioning.

    q_star         fixed point of the length map V(q) = σ_w²·E[φ(√q·Z)²] + σ_b² reached from q0
    chi1           σ_w²·E[φ'(√q*·Z)²]: slope of the correlation map at c = 1
    c_star         stable fixed point of the correlation map in [0, 1] (1 when χ₁ <= 1)
    depth_scale_q  ξ_q = −1/ln|V'(q*)|, V'(q*) = χ₁ + σ_w²·E[φ''·φ] (Stein: σ_w²·E[X·φ·φ']/q*)
    depth_scale_c  ξ_c = −1/ln(σ_w²·E[φ'(u₁)φ'(u₂)]) at c* (infinite at criticality)
    sigma_w2       with ``critical``: the σ_w² where χ₁(q*) = 1 at the given σ_b²

Conditioning: near the edge of chaos ξ_c = −1/ln χ₁ ≈ 1/(1 − χ₁) turns an error ε of χ₁ into
a relative error ε·ξ_c, and near a fold of the length map (V'(q*) → 1) q* itself moves by
the error of V(q) − q divided by V'(q*) − 1 ≈ 1/ξ_q. So when the proof's balls do not decide
every digit, the whole computation is repeated with log10 of the largest depth scale (the
digits the conditioning costs) added to the working precision, and to the expectations'
digits for a fold. Where a ball still does not round with no conditioning to blame (a value
near a rounding tie: erf's c* at σ_w² = 2, σ_b² = 0.1 lies 0.0045 units of its 30th digit from
one), the guard digits are raised again, doubling, up to ESCALATIONS times. χ₁ = 1 ("critical") is said only where it is proven: on the critical line
(``critical``), at the q -> q maps of positively homogeneous φ, or in the q* = 0 limits;
elsewhere the phase is the proven sign of χ₁ − 1.

Every result of q* > 0 is proven, or the computation stops (PrecisionError: exit 3) naming
it; left unproven (``certified: false``, named in a note by ``phase.unproven``) are only the
chaotic c* of activations without a certified bivariate route, the q* = 0 limits of
activations without a closed-form kernel, and the per-layer correlations of activations without a
kernel on balls (``layers`` proves q_layers, and c_layers where it can).

* q* = 0 (σ_b² = 0, φ(0) = 0, and the map contracts): the limits q -> 0 of the maps, from
  the one-sided slopes φ'(0±): χ₁ = σ_w²·(φ'(0−)² + φ'(0+)²)/2; correlations then follow
  the network's linearisation at 0 (kept when φ'(0−) = φ'(0+), driven to 1 only
  polynomially otherwise): c* is undefined or 1, ξ_c infinite.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
from mpmath import mp

from ...catalog.kernels import BALL_CROSS, HOMOGENEOUS
from ...engine.numbers import to_mpf, to_text
from ...engine.precision import working_dps
from ...result import replace
from ...tier import INFINITY, Computation, PrecisionError, Quantity, fields_of
from ...moments import midpoint
from . import floats, homogeneous_zero, phase
from .inputs import Inputs
from .locate import (
    LOCATE_DIGITS,
    correlation_fixed_point,
    critical_line,
    find_fixed_point,
    lean_length_step,
    length_step,
    mean_zero_at_unit,
    newton,
    no_fixed_point,
    proof_check,
    proof_finish,
    provable_correlation,
    trajectories,
)
from .model import Length, Model

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
# Results key: c* was found only roughly, for the proof to finish (``correlation_fixed_point``).
ROUGH = "c_star_rough"
# ... to these digits only, about a third (the proof's step then of third order)
ROUGH_THIRD = "c_star_rough_third"
# The first pass works to at least this many digits: near the edge of chaos the mpmath
# route's phase at fewer would send it after a c* near 1 (slow) on the wrong side.
MIN_WORK = 15
GUARD_COVERS = 2  # digits of conditioning the working precision's guard digits absorb
RAISE_GUARD = 4  # digits past the conditioning's loss when the working precision is raised
# Digits past --digits of the trajectories' balls, tried in turn until every layer rounds.
LAYER_EXTRA_DIGITS = (3, 8, 20, 45)
# Where the proof's balls do not round with no conditioning to blame (a value near a rounding
# tie: the balls straddle it), the working precision is raised this many times, first by
# ESCALATE_FIRST digits, then doubling the digits past --digits.
ESCALATIONS = 5
ESCALATE_FIRST = 4
MAX_RAISED = 150  # at most this many digits past --digits (χ₁ within 10^-150 of 1 is not told from 1)


class _Found:
    """One pass at a working precision: the mpmath route's values, the proof's, the notes.
    (A plain class: a dataclass took about 0.5 ms to create at every meanfield call.)"""

    def __init__(self) -> None:
        self.results: dict[str, mpmath.mpf] = {}
        self.proof: dict[str, object] = {}
        self.notes: list[str] = []
        self.q_star: mpmath.mpf = mp.zero
        self.w: mpmath.mpf = mp.one
        self.preserved = False
        self.length: Length | None = None
        self.point: mpmath.mpf | None = None  # the std of q*'s last Newton step (``ProofFinish``)


def compute(given: Inputs, derive: bool) -> Computation:
    """The computation for checked inputs (see the module docstring)."""
    digits, fold, escalated = given.digits, 0, 0
    extra = 0 if given.critical else max(0, MIN_WORK - digits)
    while True:
        try:
            found = _attempt(given, digits + extra, fold)
        except _Raise as more:  # the conditioning at q*, known before c* is looked for
            extra, fold = _raised(more.lost, digits, extra), more.lost_q
            continue
        missing = _missing(found, digits, given)
        if not missing:
            break
        lost, lost_q = _lost_digits(found, digits + extra, given.critical)
        if lost > GUARD_COVERS and lost + RAISE_GUARD > extra:
            if lost + RAISE_GUARD > MAX_RAISED:
                raise _too_close(missing, digits)
            extra, fold = _raised(lost, digits, extra), lost_q
            continue
        if escalated == ESCALATIONS or extra >= MAX_RAISED:
            break
        # A ball too wide to round (a value near a rounding tie, or radii the conditioning
        # estimate did not foresee): more guard digits, doubling, rather than a refusal.
        escalated += 1
        extra = min(MAX_RAISED, max(extra + ESCALATE_FIRST, 2 * extra))
    if missing:
        raise PrecisionError(
            f"{', '.join(missing)} could not be proven to {digits} digits by ball arithmetic "
            "(a value on a rounding tie, or the balls could not tell the phase); no unproven "
            "digits are printed"
        )
    return _computation(given, found, digits + extra, derive)


class _Raise(Exception):
    """The working precision must be raised by ``lost`` digits (``lost_q`` of them a fold's)."""

    def __init__(self, lost: int, lost_q: int) -> None:
        super().__init__(lost)
        self.lost, self.lost_q = lost, lost_q


def _raised(lost: int, digits: int, extra: int) -> int:
    """The digits past ``digits`` to work at when the conditioning costs ``lost``."""
    if lost + RAISE_GUARD > MAX_RAISED:
        raise _too_close(["the phase (the sign of chi1 - 1)"], digits)
    return max(lost + RAISE_GUARD, extra + 1)


def _too_close(missing: list[str], digits: int) -> PrecisionError:
    return PrecisionError(
        f"{', '.join(missing)} cannot be proven to {digits} digits: chi1 or the length map's slope is within "
        f"10^-{MAX_RAISED} of 1 (the edge of chaos or a fold), which more than {MAX_RAISED} digits of working "
        "precision would have to resolve"
    )


def _check_conditioning(w: mpmath.mpf, length: Length, work: int, digits: int) -> None:
    """Raise _Raise when χ₁ or V'(q*) is so close to 1 that ``work`` digits would not prove
    ``digits`` of the depth scales (or of q* itself, near a fold)."""

    def lost(slope: mpmath.mpf) -> int:
        gap = abs(slope - 1)
        return work + 1 if gap == 0 else max(0, int(mpmath.floor(-mpmath.log10(gap))))

    lost_c, lost_q = lost(w * length.B), lost(w * length.S)
    if w * length.B > 1:  # chaotic: c* near 1 as well, 1 − c* about as small as χ₁ − 1 (see _lost_digits)
        lost_c *= 2
    worst = max(lost_c, lost_q)
    if worst > GUARD_COVERS and work < digits + worst + RAISE_GUARD:
        raise _Raise(worst, lost_q if lost_q > GUARD_COVERS else 0)


def _check_tiny_correlation(results: dict[str, object], work: int, digits: int, fold: int) -> None:
    """Raise _Raise where Mehler's series locates a tiny c* (``locate.correlation_fixed_point``):
    c*'s proven ball is about as wide in absolute terms as q*'s (the bound of |∂K/∂q| over q*'s
    ball does not shrink with c), so c* to ``digits`` significant digits needs about
    log10(1/c*) more working digits; raised once here rather than by escalating attempts, each
    of which would locate c* again on the lattice where its proof does not round."""
    from .correlation_proof import MEHLER_ROUGH

    c_star = results.get("c_star")
    if results.get(ROUGH_THIRD) != MEHLER_ROUGH or not isinstance(c_star, mpmath.mpf) or not 0 < c_star < 1:
        return
    lost = int(mpmath.floor(-mpmath.log10(c_star)))
    if lost > GUARD_COVERS and work < digits + lost + RAISE_GUARD:
        raise _Raise(lost, fold)


def _computation(given: Inputs, found: _Found, work: int, derive: bool) -> Computation:
    digits = given.digits
    with mp.workdps(working_dps(work)):
        quantities = [
            Quantity(name, description=DESCRIPTIONS[name], **_proven_or_found(found, name, digits))
            for name in (("sigma_w2",) if given.critical else ()) + RESULTS
        ]
        if given.depth is not None:
            quantities.extend(_layers(given, found, work))
    notes = list(found.notes)
    unproven = [q.name for q in quantities if not q.certified]
    if unproven:
        notes.append(phase.unproven(unproven, found.q_star, found.preserved))
    inputs: dict[str, object] = {"activation": given.label}
    inputs.update(dict(given.act.values))
    if not given.critical:
        inputs["sigma_w2"] = given.sigma_w2
    inputs["sigma_b2"] = given.sigma_b2
    inputs["q0"] = given.q0
    if given.c0 is not None:
        inputs["c0"] = given.c0
    if given.depth is not None:
        inputs["depth"] = Fraction(given.depth)
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ...symbolic.meanfield import derive as derive_forms

        closed, derivation = derive_forms(
            given.act, given, {q.name: q.value for q in quantities if not q.is_list}, digits
        )
        quantities = [
            q if q.name not in closed else replace(q, closed_form=closed[q.name][0], latex=closed[q.name][1])
            for q in quantities
        ]
    return Computation(
        "meanfield", inputs, digits, tuple(quantities), notes=tuple(notes), derivation=derivation
    )


def _layers(given: Inputs, found: _Found, work: int) -> list[Quantity]:
    """q_layers (and c_layers with ``c0``) proven in balls by the propagation core (the same
    trajectories as ``kernel`` at depth); where the correlations have no certified route, q_layers
    alone, and the correlations from the mpmath route, not certified (named in a note)."""
    from ...tier import prove, quantities
    from ...tier.propagation import KernelBox, layer_map, trajectory

    step = layer_map(given.act, sigma_w2=given.sigma_w2, sigma_b2=given.sigma_b2)
    depth = given.layers

    def proven(c0: Fraction | None) -> tuple[Quantity, ...]:
        def evaluate(digits: int) -> dict[str, Any]:
            path = trajectory(step, KernelBox.point(given.q0, c0), depth, digits)
            return {"q_layers": path.q1} if path.c is None else {"q_layers": path.q1, "c_layers": path.c}

        fields = prove(evaluate, given.digits, extra_digits=LAYER_EXTRA_DIGITS)
        return quantities({name: DESCRIPTIONS[name] for name in ("q_layers", "c_layers")}, fields)

    if given.c0 is not None:
        try:
            return list(proven(given.c0))
        except PrecisionError:
            pass
    try:
        out = list(proven(None))
    except PrecisionError:
        names = "q_layers" if given.c0 is None else "q_layers, c_layers"
        raise PrecisionError(
            f"{names} could not be proven to {given.digits} digits by ball arithmetic at depth {depth}; "
            "no unproven digits are printed: ask for fewer layers or fewer digits"
        ) from None
    if given.c0 is not None:
        _, layers_c = trajectories(
            given.model, found.w, to_mpf(given.sigma_b2), to_mpf(given.q0), given.c0, depth, work
        )
        assert layers_c is not None  # trajectories gives the correlations with c0
        out.append(Quantity("c_layers", tuple(layers_c), DESCRIPTIONS["c_layers"]))
    return out


def _missing(found: _Found, digits: int, given: Inputs) -> list[str]:
    """The results of q* > 0 that must be proven but are not (to ``digits``), and χ₁'s phase
    where the proof contradicts the mpmath route's (whose notes and c* follow it)."""
    from .prove import rounds

    if found.preserved or found.length is None:
        return []
    names = (("sigma_w2",) if given.critical else ()) + RESULTS
    chaotic_unprovable = found.results["chi1"] > 1 and not given.critical and not _chaotic_provable(given)
    missing = [
        name
        for name in names
        if not (name in found.proof and rounds(found.proof[name], digits))
        and not (chaotic_unprovable and name in ("c_star", "depth_scale_c"))
    ]
    chi: Any = found.proof.get("chi1")  # an exact Fraction or a ball (flint's, untyped)
    if (
        not given.critical
        and chi is not None
        and not isinstance(chi, Fraction)
        and not ((chi < 1) if found.results["chi1"] < 1 else (chi > 1))
    ):
        missing.append("the phase (the sign of chi1 - 1)")
    return missing


def _chaotic_provable(given: Inputs) -> bool:
    """Does ``prove`` have a route to the chaotic c* and ξ_c: c* = 0 (odd φ, no bias), a
    closed-form kernel on balls, or certified bivariate expectations?"""
    act = given.act
    return (
        (given.sigma_b2 == 0 and act.parity == "odd")
        or (not act.expression and act.name in BALL_CROSS)
        or provable_correlation(given.model)
    )


def _lost_digits(found: _Found, work: int, critical: bool) -> tuple[int, int]:
    """(digits the conditioning costs, those of them from a fold of the length map): log10 of
    the largest finite depth scale, the e-folding depth 1/|ln slope| of a slope near 1. Where
    the mpmath route found χ₁ = 1 exactly, without ``critical``, at least the working digits."""

    def loss(name: str) -> int:
        xi = found.results.get(name)
        if xi is None or not mpmath.isfinite(xi) or abs(xi) <= 1:
            return 0
        return int(mpmath.floor(mpmath.log10(abs(xi))))

    lost_q = loss("depth_scale_q")
    lost = max(lost_q, loss("depth_scale_c"))
    c_star = found.results.get("c_star")
    if c_star is not None and 0 < c_star < 1 and lost:
        # near 1 the proof's bound of the correlation map's curvature, sup n·c^(n−1) ~ 1/(1 − c*),
        # widens the slope's ball by that factor too
        lost += max(0, int(mpmath.floor(-mpmath.log10(1 - c_star))))
    lost_q = lost_q if lost_q > GUARD_COVERS else 0
    if not critical and found.length is not None and found.results.get("chi1") == 1:
        lost = max(lost, work)
    return lost, lost_q


def _attempt(given: Inputs, work: int, fold: int) -> _Found:
    """The mpmath route and the proof at ``work`` digits (expectations ``fold`` more)."""
    model, critical = given.model, given.critical
    found = _Found()
    if given.act.expression:
        found.notes.append(f"phi(x) = {given.act.formula}")
    with mp.workdps(working_dps(work)):
        b = to_mpf(given.sigma_b2)
        q0 = to_mpf(given.q0)
        phi0, left, right = model.at_zero()
        zero_fixed = b == 0 and phi0 == 0
        results = found.results
        unit = False  # q* = 1 exactly by the catalog's closed forms (selu at sigma_w2 = 1)
        second = _homogeneous_second_moment(model)
        found.preserved = second is not None and (
            given.sigma_b2 == 0 if critical else given.weight * second == 1
        )
        length: Length | None = None
        if found.preserved:
            assert second is not None  # preserved only with the exact second moment
            if given.sigma_b2 != 0:  # V(q) = q + sigma_b2 (not critical: there sigma_b2 = 0)
                raise no_fixed_point(b, to_text(given.sigma_b2), to_text(given.weight))
            w = to_mpf(1 / second) if critical else to_mpf(given.weight)
            q_star = q0
            results["c_star"] = mpmath.nan  # used where φ is linear (no kink): c* undefined
            found.proof = _length_preserved(given.q0, second, critical, left != right)
            found.notes.extend(phase.preserved(left != right))
        elif critical:
            w, q_star, length = critical_line(
                model,
                b,
                zero_fixed,
                (left, right),
                work,
                given.label,
                proof_check(model, True, given.sigma_b2, None, b, work, fold),
            )
            results["sigma_w2"] = w
        else:
            w = to_mpf(given.weight)
            texts = (to_text(given.sigma_b2), to_text(given.weight), to_text(given.q0))
            with mp.workdps(LOCATE_DIGITS + 10):
                # in double precision first (floats.located), else at LOCATE_DIGITS
                quick = floats.located(find_fixed_point, model, +w, +b, +q0, zero_fixed, texts)
                start = find_fixed_point(model, +w, +b, +q0, zero_fixed, texts) if quick is None else quick[0]
            if start is not None and not (quick is not None and floats.attracts(quick[1])):
                # q0 told from the root to the digits it is written with, and then some
                written = len(str(Fraction(given.q0).denominator))
                start = _past_a_repelling_root(
                    model,
                    w,
                    b,
                    given.q0,
                    start,
                    work + written + 10,
                    zero_fixed,
                    texts,
                )
            if start is None:
                q_star = mp.zero
            else:
                check = proof_check(model, False, given.sigma_b2, w, b, work, fold)
                finish = proof_finish(model, given.sigma_b2, w, b, work, fold)
                q_star, length = newton(
                    length_step(model, w, b),
                    start,
                    work,
                    "the fixed point q*",
                    check=check,
                    lean=lean_length_step(model, w, b),
                    finish=finish,
                )
                found.point = None if finish is None else finish.point
                _check_conditioning(w, length, work, given.digits)
                unit = _unit_fixed_point(model, given) and abs(q_star - 1) <= mpmath.mpf(10) ** -(work + 2)
                if unit:
                    q_star = mp.one
        found.q_star, found.w, found.length = q_star, w, length
        if not found.preserved:
            results.update(
                _at_fixed_point(
                    model, w, b, q_star, length, (left, right), work, found.notes, critical, found.point
                )
            )
            if length is not None:  # q* > 0: proven in balls around the values found
                _check_tiny_correlation(results, work, given.digits, fold)
                found.proof = _prove(given, found, b, unit, work, fold)
            else:
                from .prove import prove_at_zero

                found.proof = prove_at_zero(
                    model,
                    None if critical else given.sigma_w2,
                    given.sigma_b2,
                    results["c_star"] == 1,
                    work,
                    q0=given.q0,
                )
    return found


# How far from a repelling q* the layers carry q0 before the search starts again (relative).
REPELLED_DISTANCE = mpmath.mpf(10) ** -6
MAX_REPELLED_LAYERS = 200
MAX_NEWTON_TO_ROOT = 6


def _past_a_repelling_root(
    model: Model,
    w: mpmath.mpf,
    b: mpmath.mpf,
    q0: Fraction,
    start: mpmath.mpf,
    digits: int,
    zero_fixed: bool,
    texts: tuple[str, str, str],
) -> mpmath.mpf | None:
    """The search's point, unless it is a fixed point the length map repels (V' > 1) and q0 is
    not on it: then q0's layers move away from it (q_{l+1} = V(q_l), each step multiplying the
    distance by about V'), and the fixed point they reach is the one found from where they are
    once REPELLED_DISTANCE away (the next one on q0's side, 0, or none). Compared at ``digits``
    (more than q0 is written with); q0 within them of the repelling point is taken as on it (the
    note says it is reached from there only)."""
    step = length_step(model, w, b)
    if step(start, LOCATE_DIGITS)[1] <= 0:  # V'(q*) <= 1: q* attracts
        return start
    with mp.workdps(digits + 5):
        root = +start
        for _ in range(MAX_NEWTON_TO_ROOT):  # the root to ``digits`` (the search stops at 12)
            f, df, _ = step(root, digits)
            if df <= 0:
                return start
            root -= f / df
        tiny = mpmath.mpf(10) ** -(digits - 3) * root
        q = to_mpf(q0)
        for _ in range(MAX_REPELLED_LAYERS):
            if abs(q - root) >= REPELLED_DISTANCE * root:
                with mp.workdps(LOCATE_DIGITS + 10):
                    return find_fixed_point(model, +w, +b, +q, zero_fixed, texts)
            if abs(q - root) <= tiny:
                return start
            q = q + step(q, digits)[0]  # the next layer's length, V(q)
    return start


def _prove(
    given: Inputs, found: _Found, b: mpmath.mpf, unit: bool, work: int, fold: int
) -> dict[str, object]:
    """The proof at q* > 0; a rough chaotic c* it cannot finish is finished by mpmath."""
    from .prove import prove, prove_zero_correlation, rounds

    results, model = found.results, given.model
    chaotic_c = results["c_star"] if 0 < results["c_star"] < 1 else None
    third = results.pop(ROUGH_THIRD, None)
    proof = prove(
        model,
        None if given.critical else given.sigma_w2,
        given.sigma_b2,
        found.q_star,
        work,
        chaotic_c,
        fold,
        found.point,
        None if third is None else int(third),
    )
    if results.pop(ROUGH, None) is not None and not all(
        name in proof and rounds(proof[name], given.digits) for name in ("c_star", "depth_scale_c")
    ):
        # the proof did not finish the rough c*: this route does, to every digit
        c_star, slope = correlation_fixed_point(model, found.w, b, found.q_star, work)
        results.update(c_star=c_star, depth_scale_c=_depth_scale(slope))
    if unit:
        proof["q_star"] = Fraction(1)
        if results["c_star"] == 0 and mean_zero_at_unit(model) and given.sigma_b2 == 0:
            proof.update(prove_zero_correlation(model, given.weight, work))
    return proof


def _proven_or_found(found: _Found, name: str, digits: int) -> dict[str, object]:
    """Quantity fields: proven (an exact value or a ball that rounds) when the proof has them,
    else the mpmath route's value, not certified."""
    from .prove import rounds

    value = found.proof.get(name)
    if value is None or not rounds(value, digits):
        return {"value": +found.results[name]}
    return fields_of(INFINITY if value is mpmath.inf else value)


def _homogeneous_second_moment(model: Model) -> Fraction | None:
    """E[φ(Z)²] (= E[φ'(Z)²]) exactly for a positively homogeneous catalog φ (the catalog's
    rational closed form), else None."""
    from ...moments.exact import exact_closed_form

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


def _homogeneous_at_zero(
    model: Model, out: dict[str, mpmath.mpf], digits: int, notes: list[str]
) -> dict[str, mpmath.mpf]:
    """q* = 0 for relu2 or κ·x^n (``homogeneous_zero``): χ₁ = 0, depth_scale_q = 0, and the
    correlation map's stable fixed point c*, the same map at every layer."""
    c_star, slope = homogeneous_zero.correlation_fixed_point(model.act, digits)
    out.update(
        chi1=mp.zero,
        depth_scale_q=mp.zero,
        c_star=mp.zero if isinstance(c_star, Fraction) else midpoint(c_star),
        depth_scale_c=_depth_scale(midpoint(slope)),
    )
    found = homogeneous_zero.homogeneous(model.act)
    assert found is not None
    label = model.act.formula if model.act.expression else model.act.name
    notes.append(phase.homogeneous_zero(label, found, out["c_star"], out["depth_scale_c"]))
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
    """x = 1 to the working precision (for the q* = 0 limits, whose χ₁ comes from φ'(0±))."""
    return abs(x - 1) <= mpmath.mpf(10) ** (-(digits + 5))


def _at_fixed_point(
    model: Model,
    w: mpmath.mpf,
    b: mpmath.mpf,
    q: mpmath.mpf,
    length: Length | None,
    slopes: tuple[mpmath.mpf, mpmath.mpf],
    digits: int,
    notes: list[str],
    critical: bool,
    point: mpmath.mpf | None = None,
) -> dict[str, mpmath.mpf]:
    """χ₁, c*, ξ_q, ξ_c at the fixed point q (with ``length`` there; None for q = 0). At q* > 0
    χ₁ = 1 is critical only on the critical line: elsewhere a χ₁ that is 1 to the working
    precision is left to the proof, which finds the phase undecided (more digits follow)."""
    out: dict[str, mpmath.mpf] = {"q_star": q}
    if length is None:  # q* = 0: the limits q -> 0
        left, right = slopes
        chi = w * (left**2 + right**2) / 2
        out["chi1"] = chi
        if not critical and homogeneous_zero.applies(model.act, b):
            return _homogeneous_at_zero(model, out, digits, notes)
        if critical or _is_one(chi, digits):
            out["chi1"] = mp.one if critical else chi
            out["depth_scale_q"] = mpmath.inf
            notes.append(phase.zero_critical())
        else:
            out["depth_scale_q"] = _depth_scale(chi)
            notes.append(phase.zero_dies(chi, out["depth_scale_q"]))
        # φ'(0) = 0 (x**2, not relu2): the limit is φ's leading nonlinear term's map, not derived
        flat = left == 0 and right == 0
        out["depth_scale_c"] = mpmath.nan if flat else mpmath.inf
        out["c_star"] = mpmath.nan if left == right else mp.one
        notes.append(phase.zero_flat() if flat else phase.zero_correlations(left == right))
        return out
    chi = w * length.B
    out["chi1"] = mp.one if critical else chi
    out["depth_scale_q"] = _depth_scale(w * length.S)
    if w * length.S > 1 and not _is_one(w * length.S, digits):
        notes.append(phase.repels(q, w * length.S))
    if critical or chi == 1:
        out["c_star"] = mp.one
        out["depth_scale_c"] = mpmath.inf
        notes.append(phase.critical())
        return out
    if chi < 1:
        out["c_star"] = mp.one
        xi = _depth_scale(chi)
        out["depth_scale_c"] = xi
        notes.append(phase.ordered(chi, xi))
        return out
    mean_zero = q == 1 and mean_zero_at_unit(model)
    # c* = 0 exactly needs no Newton's method; otherwise the proof may finish a rough c*
    rough = provable_correlation(model) and not (b == 0 and (model.act.parity == "odd" or mean_zero))
    third: list[int | None] = [None]
    if rough:
        from .correlation_proof import third_order, third_stage

        third = [third_stage(digits) if third_order(model.act, digits) else None]
    c_star, slope = correlation_fixed_point(model, w, b, q, digits, mean_zero, rough, point, third)
    if rough:
        out[ROUGH] = mp.one
    if third[0] is not None:  # (the rough stages stopped there: c* not too near 1)
        out[ROUGH_THIRD] = mpmath.mpf(third[0])
    out["c_star"] = c_star
    xi = _depth_scale(slope)
    out["depth_scale_c"] = xi
    notes.append(phase.chaotic(chi, c_star, xi))
    return out


def _unit_fixed_point(model: Model, given: Inputs) -> bool:
    """Is q = 1 exactly a fixed point: σ_w²·E[φ(Z)²] + σ_b² = 1 with the catalog's rational
    E[φ(Z)²] (selu at σ_w² = 1, σ_b² = 0: the self-normalizing fixed point)?"""
    from ...moments.exact import exact_closed_form

    second = exact_closed_form(model.act, "second_moment")
    return second is not None and given.weight * second + given.sigma_b2 == 1
