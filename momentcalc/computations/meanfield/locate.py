"""Where the fixed points are, found with mpmath (Poole et al. 2016, "Exponential
expressivity in deep neural networks through transient chaos"; Schoenholz et al. 2017, "Deep
information propagation"); ``prove`` then proves balls around them.

* q*: the length map is iterated from q0 at low precision (Newton steps where the map
  contracts, doubling or halving where it does not) until a fixed point is bracketed or q
  runs off: to infinity (no fixed point: Outcome "no_fixed_point") or to 0 (σ_b² = 0 and φ(0) = 0: q* = 0,
  the signal dies out). Then Newton's method on V(q) − q at precisions doubling up to the
  working precision, until a step is below 10^−(digits+3) relative: with Newton's quadratic
  convergence the point where that step was computed is within that distance of q*.
* c*: the correlation map R is convex and increasing on [0, 1] (its Hermite expansion
  has non-negative coefficients) with R(1) = 1 and R'(1) = χ₁: for χ₁ <= 1 the stable fixed
  point is 1; for χ₁ > 1 it is the one root of R(c) = c in [0, 1), reached monotonically by
  Newton's method from c = 0, with the same stopping rule (c* = 0 exactly when R(0) = 0).
* critical: on the critical line σ_w² = 1/B(q) and q = σ_w²·A(q) + σ_b², so q solves
  A(q)/B(q) + σ_b² − q = 0 (bracketed by a scan, then Newton as above) and σ_w² = 1/B(q).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import mp

from ...engine.numbers import Number, to_mpf
from ...errors import Outcome, PrecisionError
from ...moments import expectations
from . import floats
from .model import Length, Model

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
# Trajectories are computed twice, the second time with this many more digits; they must agree.
TRAJECTORY_EXTRA_DIGITS = 5
CRITICAL_START_DIGITS = 4  # the critical line's bisection stops at this relative width
# From this many working digits on, q*'s last Newton stage is one step from the stage before
# it, with every expectation the proof's (``ProofFinish``).
FINISH_FROM = 200

# --- Newton's method at doubling precision ----------------------------------------------------


def newton_stages(digits: int, start: int = LOCATE_DIGITS) -> list[int]:
    """Target digits of the Newton stages, ending at digits + 5: each about half the next
    (plus STAGE_MARGIN), so one Newton step, which about doubles the correct digits, reaches
    the next; the first at most twice ``start``. Halving down from the last stage rather
    than doubling up from ``start`` keeps the stage before the last (the costliest but one)
    near half the digits, not anywhere up to all of them."""
    stages = [digits + 5]
    while stages[0] > 2 * start:
        stages.insert(0, (stages[0] + 1) // 2 + STAGE_MARGIN)
    return stages


def newton(
    step,
    x: mpmath.mpf,
    digits: int,
    what: str,
    start: int = LOCATE_DIGITS,
    check=None,
    lean=None,
    finish=None,
):
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
    within the square root of the target), its extra unused: the check's is returned.

    ``finish(x)``, when given, is tried first at the last stage, at the point the stage before
    it left (right to about half the digits): it returns (the Newton point from there, its
    extra), f and f' to every digit at one point (the proof's, which then proves the root by
    that very step: ``prove.NewtonInterval``), or None to go on as without it."""
    if check is not None and lean is not None:
        step = lean
    else:
        lean = None
    stages = newton_stages(digits, start)
    guard = 0  # at the last stage, digits that a small f' would take from the step
    for index, t in enumerate(stages):
        if index == len(stages) - 1:
            t += guard
        with mp.workdps(t + 10):
            x = +x
            if finish is not None and index == len(stages) - 1 and index > 0:
                finished = finish(x)
                if finished is not None:
                    return finished
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


def length_step(model: Model, w: mpmath.mpf, b: mpmath.mpf):
    def step(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, Length]:
        length = model.length(q, t)
        return w * length.A + b - q, w * length.S - 1, length

    return step


def slope_digits(t: int) -> int:
    """Digits of f' for a Newton step that evaluates f to t digits (``newton``'s ``lean``)."""
    return t // 2 + SLOPE_GUARD


def lean_length_step(model: Model, w: mpmath.mpf, b: mpmath.mpf):
    """``length_step`` with A to t digits, S (the slope) to ``slope_digits(t)``, B not at all."""

    def step(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, None]:
        a, s = model.length_parts(q, t, slope_digits(t))
        return w * a + b - q, w * s - 1, None

    return step


def no_fixed_point(w: mpmath.mpf, b_text: str, w_text: str, q0_text: str | None = None) -> Outcome:
    """q runs off to infinity: from q0 (where the map was followed from there), or from any q."""
    where = "" if q0_text is None else f" above {{q0}} = {q0_text}"
    return Outcome(
        f"the length map has no fixed point{where} at {{sigma_w2}} = {w_text}, {{sigma_b2}} = {b_text}: "
        "q grows without bound with depth (the signal explodes); lower {sigma_w2}",
        kind="no_fixed_point",
        param="sigma_w2",
        params=("sigma_b2", "q0"),
    )


def find_fixed_point(
    model: Model, w: mpmath.mpf, b: mpmath.mpf, q0: mpmath.mpf, zero_fixed: bool, texts: tuple[str, str, str]
) -> mpmath.mpf | None:
    """A point close to the fixed point reached from q0 (None: q* = 0), at LOCATE_DIGITS."""
    step = length_step(model, w, b)
    # q* can be as large as sigma_w2 itself (a bounded phi: q* -> sigma_w2·sup phi² + sigma_b2),
    # so the run-off test counts from the largest of q0, sigma_b2, sigma_w2 and 1.
    scale = max(q0, b, w, mp.one)
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
                raise no_fixed_point(w, *texts)
            raise PrecisionError(
                f"the length map cannot be told from q -> q at q = {mpmath.nstr(q, 3)} "
                f"to {LOCATE_DIGITS} digits, so its fixed point cannot be located"
            )
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
            raise no_fixed_point(w, *texts)
        if q < scale / RUN_OFF:
            if zero_fixed:
                return None
            raise PrecisionError("the length map's fixed point is below the search range")
        if zero_fixed and f < 0 and high is not None and low is None and q < q0 / 4:
            # Contracting toward 0: is there any fixed point left between 0 and q?
            probe, found = q, False
            for _ in range(SCAN_STEPS):
                probe = probe / 4
                if w * model.second(probe, LOCATE_DIGITS) + b - probe > 0:  # V(probe) > probe
                    low, found = probe, True
                    break
            if not found:
                return None
    raise PrecisionError("the search for the length map's fixed point did not settle")


def proof_check(
    model: Model,
    critical: bool,
    b_exact: Fraction,
    w: mpmath.mpf | None,
    b: mpmath.mpf,
    digits: int,
    fold: int = 0,
):
    """The last Newton step's check (``newton``) at the proof's first point: f there and the
    Length, from the expectations the proof starts with (``fold`` digits more than usual
    near a fold). None where the proof uses a kernel."""
    from .prove import first_expectations

    def check(x: mpmath.mpf) -> tuple[mpmath.mpf, Length]:
        first = first_expectations(model, critical, b_exact, x, digits, fold)
        assert first is not None  # None only with a kernel on balls: then there is no check (probe)
        std, monomials, wanted = first
        q, length = model.length_at(std, monomials, wanted)
        if critical:
            return length.A / length.B + b - q, length
        return w * length.A + b - q, length

    probe = first_expectations(model, critical, b_exact, mp.one, digits, fold)
    return None if probe is None else check


class ProofFinish:
    """``newton``'s ``finish`` for q* (not the critical line): at a point x right to about
    half the digits, the proof's expectations (``prove.first_expectations``: A, S, B to every
    digit and then some, at an exact point p within 10^−(digits+6) of x) and the Newton step
    from p, x₁ = p − F(p)/F'(p), F(q) = σ_w²·A(q) + σ_b² − q. ``point`` is p's std once used:
    the proof (``prove.NewtonInterval``) proves q* within about the square of that step of x₁
    from the same (cached) expectations, so that no other expectation to every digit is taken
    (where the last stage took A to every digit at x and the check A, S and B at x₁)."""

    def __init__(
        self, model: Model, b_exact: Fraction, w: mpmath.mpf, b: mpmath.mpf, digits: int, fold: int
    ) -> None:
        self.model, self.b_exact, self.w, self.b, self.digits, self.fold = model, b_exact, w, b, digits, fold
        self.point: mpmath.mpf | None = None

    def __call__(self, x: mpmath.mpf) -> tuple[mpmath.mpf, Length] | None:
        from .prove import first_expectations

        first = first_expectations(self.model, False, self.b_exact, x, self.digits, self.fold)
        if first is None:
            return None
        std, monomials, wanted = first
        q, length = self.model.length_at(std, monomials, wanted)
        f, df = self.w * length.A + self.b - q, self.w * length.S - 1
        if df == 0 or not mpmath.isfinite(df):
            return None
        step = f / df
        # x right to about half the digits: otherwise the last stage's steps (no proof by one step)
        if not abs(step) <= mpmath.mpf(10) ** -((self.digits + 5) // 2) * abs(q):
            return None
        self.point = std
        return q - step, length


def proof_finish(
    model: Model, b_exact: Fraction, w: mpmath.mpf, b: mpmath.mpf, digits: int, fold: int = 0
) -> ProofFinish | None:
    """``ProofFinish`` where the proof takes univariate expectations (not a kernel on balls) and
    the digits are many (FINISH_FROM: below, the last stage is cheap and the routes stay as
    they were), else None."""
    from .prove import first_expectations

    if digits < FINISH_FROM or first_expectations(model, False, b_exact, mp.one, digits, fold) is None:
        return None
    return ProofFinish(model, b_exact, w, b, digits, fold)


def critical_line(
    model: Model,
    b: mpmath.mpf,
    zero_fixed: bool,
    slopes: tuple[mpmath.mpf, mpmath.mpf],
    digits: int,
    label: str,
    check=None,
) -> tuple[mpmath.mpf, mpmath.mpf, Length | None]:
    """(σ_w², q*, Length at q*) on the critical line at σ_b² = b, at a fixed point the length
    map settles at (V'(q*) <= 1); an edge of chaos only at fixed points that repel is no
    answer (Outcome "no_edge_of_chaos" naming them)."""
    repelled: list[str] = []
    if zero_fixed:
        # q* = 0 on the critical line: χ₁ = σ_w²·(φ'(0−)² + φ'(0+)²)/2 = 1.
        limit = (slopes[0] ** 2 + slopes[1] ** 2) / 2
        if limit == 0:
            raise Outcome(
                f"{{activation}} {label!r} has phi'(0) = 0: chi1 -> 0 as q -> 0 for every sigma_w2, "
                "so at sigma_b2 = 0 there is no edge of chaos at q* = 0",
                kind="no_edge_of_chaos",
                param="activation",
            )
        if not _zero_repels(model, 1 / limit):
            return 1 / limit, mp.zero, None
        repelled.append(f"q* = 0 (sigma_w2 = {mpmath.nstr(1 / limit, 6)}), where q grows away from 0")

    def step(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, Length]:
        length, db = model.length_and_b_slope(q, t)
        ratio = length.A / length.B
        d_ratio = (length.S * length.B - length.A * db) / length.B**2
        return ratio + b - q, d_ratio - 1, length

    def lean(q: mpmath.mpf, t: int) -> tuple[mpmath.mpf, mpmath.mpf, None]:
        (a, b_), (s, db) = model.critical_parts(q, t, slope_digits(t))
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
        q_star, length = newton(
            step, start, digits, "the critical line", start=CRITICAL_START_DIGITS, check=check, lean=lean
        )
        slope = length.S / length.B  # V'(q*) at σ_w² = 1/B
        if slope <= 1 + mpmath.mpf(10) ** (-digits):
            return 1 / length.B, q_star, length
        repelled.append(
            f"q* = {mpmath.nstr(q_star, 6)} (sigma_w2 = {mpmath.nstr(1 / length.B, 6)}), where the "
            f"length map's slope is {mpmath.nstr(slope, 4)} > 1"
        )
    if repelled:
        raise Outcome(
            f"{{activation}} {label!r} has no stable edge of chaos at {{sigma_b2}} = {mpmath.nstr(b, 10)}: chi1 = 1 "
            f"holds only at fixed points the length map moves away from ({'; '.join(repelled)}; none other with q* "
            f"{'up to' if scanned and scanned[0] > 1 else 'down to'} {mpmath.nstr(scanned[0] if scanned else 0, 3)}), "
            "so no network settles there",
            kind="no_edge_of_chaos",
            param="activation",
            params=("sigma_b2",),
        )
    raise Outcome(
        f"{{activation}} {label!r} has no edge of chaos at {{sigma_b2}} = {mpmath.nstr(b, 10)}: "
        "chi1 = 1 is not reached at any fixed point (for relu-like activations it holds only "
        "at sigma_b2 = 0)",
        kind="no_edge_of_chaos",
        param="activation",
        params=("sigma_b2",),
    )


def _critical_brackets(step, scanned: list[mpmath.mpf]):
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


def mean_zero_at_unit(model: Model) -> bool:
    """E[φ(Z)] = 0 exactly by the catalog (selu)."""
    from ...moments.exact import exact_closed_form

    return exact_closed_form(model.act, "mean") == 0


def provable_correlation(model: Model) -> bool:
    """Will the proof find c* and ξ_c from certified bivariate expectations
    (``correlation_proof``, which polishes a rough c* itself)?"""
    from ...moments.bivariate_certified import supported

    return model.kernel is None and supported(model.act)


def correlation_fixed_point(
    model: Model,
    w: mpmath.mpf,
    b: mpmath.mpf,
    q: mpmath.mpf,
    digits: int,
    mean_zero: bool = False,
    rough: bool = False,
    point: mpmath.mpf | None = None,
    third: list[int | None] | None = None,
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(c*, slope of the correlation map at c*) in the chaotic phase; ``mean_zero``: E[φ(√q·Z)]
    = 0 exactly (by the catalog), as it is for an odd φ. ``rough``: only to about half the
    digits (Newton's stages but the last, one step each), for the proof to finish: its
    Newton step from there at full digits is the one a last stage here would take; ``third``,
    a list of one item, the digits of about a third: only to those digits where
    ``correlation_proof.third_pays`` (the proof's step is then of third order), else its item is
    set to None. ``point``:
    the std of q*'s last Newton step where it was ``ProofFinish``'s (c* = 0: E[φ'] from there)."""
    if b == 0 and (model.act.parity == "odd" or mean_zero):
        # R(0) = (σ_w²·E[φ]² + σ_b²)/q* = 0: c* = 0 (R convex with R(1) = 1 lies below the
        # diagonal, so 0 is the stable fixed point), slope σ_w²·E[φ']² (E[φ'] from the proof's
        # first expectations, within 10^−(digits+5) of q, where they include it: cached).
        from .prove import DERIV, first_expectations

        shared = first_expectations(model, False, Fraction(0), q, digits)
        if shared is not None and point is not None:
            # at the std of q*'s last Newton step (``ProofFinish``), where they were taken:
            # within about that step of q*, all the slope's estimate needs (the proof encloses
            # E[φ'] at q* by Taylor's theorem from there)
            shared = (point, *shared[1:])
        if shared is not None and DERIV in shared[1]:
            std, monomials, wanted = shared
            d = expectations(model.text, list(monomials), std=std, digits=wanted, params=model.params)[
                monomials.index(DERIV)
            ]
        else:
            d = model.derivative_mean(q, digits + 3)
        return mp.zero, w * d * d

    def step(
        c: mpmath.mpf, t: int, slope_digits: int | None = None
    ) -> tuple[mpmath.mpf, mpmath.mpf, tuple[mpmath.mpf, mpmath.mpf]]:
        # Newton on G(c) = F(c)/(1 − c), F(c) = R(c) − c: the root at c = 1 deflated. With
        # R(c) = Σ r_k c^k and R(1) = 1, G(c) = 1 − Σ_k r_k·(1 + c + … + c^{k−1}) is concave and
        # decreasing with the simple root c*, while F has c* and 1, which merge at the edge of
        # chaos: Newton on F crawled there (half the distance per step), on G it converges
        # quadratically at any distance from criticality.
        k, kd = model.cross(q, c, t, slope_digits)
        slope = w * kd  # dR/dc = σ_w²·q·K'/q
        f, df = (w * k + b) / q - c, slope - 1
        gap = 1 - c
        g, dg = f / gap, (df * gap + f) / (gap * gap)
        return g, dg, (slope, g / dg)

    # Newton from c = 0 at low precision (G concave and decreasing: from the first step on, the
    # iterates fall monotonically to c*), then at doubling precision. The low-precision part in
    # double precision from the correlation map's Hermite series where that applies (floats).
    c = floats.correlation_start(model, w, b, q)
    if c is None:
        c = _correlation_search(step)
    if c == 0:
        return mp.zero, step(mp.zero, digits + 3)[2][0]
    if rough and third is not None:
        from .correlation_proof import MEHLER_ROUGH, mehler_locate, mehler_locates

        if mehler_locates(model.act, float(c), digits):
            # c* tiny: Mehler's series locates c* (about 30 digits, for the notes and as the
            # proof's start) and ``correlation_proof._mehler`` takes it to every digit and
            # proves it: no Newton stage on the bivariate lattice
            located = mehler_locate(
                model.act, mpmath.nstr(w, 40), mpmath.nstr(b, 40), mpmath.nstr(q, 40), float(c)
            )
            if located is not None:
                third[0] = MEHLER_ROUGH
                return mpmath.mpf(located[0]), mpmath.mpf(located[1])
    if (
        rough and len(newton_stages(digits, C_LOCATE_DIGITS)) > 1
    ):  # (at a few digits the search's c is as rough)
        stages = newton_stages(digits, C_LOCATE_DIGITS)[:-1]
        if third is not None:
            from .correlation_proof import MEHLER_ROUGH, mehler_pays, third_pays

            if mehler_pays(model.act, float(c), digits):  # the proof's Newton steps take c* from a few digits
                stages = newton_stages(MEHLER_ROUGH - 5, C_LOCATE_DIGITS)
                third[0] = MEHLER_ROUGH
            elif third[0] is not None and third_pays(float(q), float(c)):
                # the proof's step is of third order: a third of the digits
                stages = newton_stages(third[0] - 5, C_LOCATE_DIGITS)
            else:
                third[0] = None
        for t in stages:
            with mp.workdps(t + 10):
                slope, delta = step(+c, t, slope_digits(t))[2]
                c = c - delta
                if not 0 < c < 1:
                    raise PrecisionError("Newton's method for the correlation fixed point left (0, 1)")
        return c, slope
    c_star, (slope, delta) = newton(step, c, digits, "the correlation fixed point c*", C_LOCATE_DIGITS)
    # The last Newton step (below 10^-(digits+3)) taken too: the point the proof starts from is
    # then as close to c* as the expectations' accuracy allows, and one evaluation proves it.
    return c_star - delta, slope


def _correlation_search(step) -> mpmath.mpf:
    """c* to about C_LOCATE_DIGITS − 2 digits by Newton on G from c = 0 (``step`` as in
    ``correlation_fixed_point``)."""
    with mp.workdps(C_LOCATE_DIGITS + 10):
        c = mp.zero
        for _ in range(MAX_LOCATE_STEPS):
            f, df, _ = step(c, C_LOCATE_DIGITS)
            if f == 0:
                return c
            nxt = c - f / df
            if nxt >= 1:  # past the other root's side: halve the way to 1 instead
                nxt = (c + 1) / 2
            if not 0 <= nxt < 1:
                raise PrecisionError("Newton's method for the correlation fixed point left [0, 1)")
            if abs(nxt - c) <= mpmath.mpf(10) ** (-C_LOCATE_DIGITS + 2) * abs(nxt):
                return nxt
            c = nxt
    raise PrecisionError("the search for the correlation fixed point did not settle")


def trajectories(
    model: Model, w: mpmath.mpf, b: mpmath.mpf, q0: mpmath.mpf, c0: Number | None, depth: int, digits: int
) -> tuple[list[mpmath.mpf], list[mpmath.mpf] | None]:
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
                    "ask for fewer layers or fewer digits"
                )
    return second
