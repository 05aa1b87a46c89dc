"""``meanfield --depth``'s per-layer trajectories proven in Arb balls (python-flint).

The length map q_{l+1} = σ_w²·A(q_l) + σ_b², A(q) = E[φ(√q·Z)²], is followed layer by layer
as a ball, from the exact q_0:

* an activation with a closed-form kernel (``catalog.kernels.BALL_LENGTHS``: relu,
  leaky_relu, erf, identity) evaluates A in mean-value form, A(m) at the ball's exact midpoint
  m plus dA/dq over the ball times (q − m) (A on the ball itself would widen it by more than
  the map's slope, erf's q over 1 + 2q, layer after layer);
* any other one encloses q_l by exact stds s_lo = sqrt(lower end) rounded down and s_hi =
  sqrt(upper end) rounded up, q_lo = s_lo², q_hi = s_hi², and A over [q_lo, q_hi] by
  Taylor's theorem from q_lo (``prove``'s module docstring gives the bounds):

      A(q) ∈ A(q_lo) + A'(q_lo)·[0, W] ± W²·sup|A''|/2,   W = q_hi − q_lo,
      A'(q) = (E_q[X²·φ²]/q − E_q[φ²])/(2q)           (the heat equation),
      |A''(q)| ≤ sqrt(sqrt(q_hi/q_lo)·E_{q_hi}[φ⁴])·sqrt(24)/(4·q_lo²)   (Cauchy–Schwarz,
                                                      E[He₄(Z)²] = 24, the density ratio)

  with E_{q_lo}[φ²] a certified ball at the working digits, the slope's expectation at 20
  digits and E_{q_hi}[φ⁴] at 5 (both only multiply W). The ball's radius grows by about
  |V'(q_l)| per layer, below 1 near a stable fixed point.

The correlation map c_{l+1} = (σ_w²·K(q_l, c_l) + σ_b²)/q_{l+1} (both inputs of length q_l,
K(q, c) = E[φ(u₁)φ(u₂)]) goes the same way for an activation whose kernel evaluates on balls
(``catalog.kernels.BALL_KERNELS``: relu, leaky_relu, relu2, erf, identity) in mean-value form,
K(q, m) at the ball's exact midpoint m plus q·E[φ'(u₁)φ'(u₂)] over the balls (Price's theorem)
times (c − m), the ball of c intersected with [−1, 1] (c is a correlation); c_0 = 1 stays
exactly 1 for every activation.

Once a layer's enclosure of the next lies inside the current one (V(I) ⊆ I, and for c the
correlation map's enclosure over both balls inside the c ball), every later layer lies in it
too (induction): the remaining layers are that ball, with no further integral.

Working digits rise until every layer's ball rounds to the printed digits; PrecisionError
(exit 3) naming the trajectory otherwise.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb

from ...catalog.kernels import BALL_KERNELS, BALL_LENGTHS
from ...engine.rounding import ball_text
from ...errors import MomentcalcError, PrecisionError
from ...tier import arb_precision, bits_for, fields_of
from ...tier.proof import Fields
from .model import Model
from .prove import BOUND_DIGITS, SECOND, SLOPE_DIGITS, SQUARES, _arb, _balls
from ...engine.balls import midpoint_fraction

# Digits past --digits of the first attempt and of the later ones (the radius grows by about
# |V'| per layer and by each layer's fresh rounding: a few digits over a thousand layers).
EXTRA_DIGITS = (8, 20, 45, 100)
# Digits of Arb's working precision past the expectations' digits.
ARB_GUARD = 12
X2_SECOND = (2, 2, 0)  # E[X²·φ²]: the slope of A by the heat equation


def provable_correlations(model: Model) -> bool:
    """Is there a certified route to the per-layer correlations (a kernel on balls)?"""
    return not model.act.expression and model.act.name in BALL_KERNELS


def prove_layers(
    model: Model, w: Fraction, b: Fraction, q0: Fraction, c0: Fraction | None, depth: int, digits: int
) -> dict[str, Fields]:
    """The Quantity fields of ``q_layers`` (and of ``c_layers`` where ``c0`` is given and
    ``provable_correlations``), every layer's ball rounding to ``digits``; PrecisionError
    naming what could not be proven."""
    with_c = c0 is not None and (c0 == 1 or provable_correlations(model))
    names = ["q_layers"] + (["c_layers"] if with_c else [])
    for extra in EXTRA_DIGITS:
        try:
            values = _layers(model, w, b, q0, c0 if with_c else None, depth, digits + extra)
        except MomentcalcError:
            values = None
        if values is not None and all(
            ball_text(ball, digits) is not None for balls in values.values() for ball in balls
        ):
            return {name: fields_of(balls) for name, balls in values.items()}
    raise PrecisionError(
        f"{', '.join(names)} could not be proven to {digits} digits by ball arithmetic "
        f"at depth {depth} (within {digits + EXTRA_DIGITS[-1]} working digits); "
        "no unproven digits are printed: ask for fewer layers or fewer digits"
    )


def _layers(
    model: Model, w: Fraction, b: Fraction, q0: Fraction, c0: Fraction | None, depth: int, work: int
) -> dict[str, list[Any]] | None:
    """The balls of q (and c) at layers 0..depth at ``work`` digits; None where a ball leaves
    the domain (q's lower end not above 0)."""
    kernel = None if model.act.expression else BALL_LENGTHS.get(model.act.name)
    kernel2 = None if model.act.expression else BALL_KERNELS.get(model.act.name)
    bits = bits_for(work + ARB_GUARD)
    with arb_precision(bits):
        given = dict(model.act.values)
        params = {p.name: _arb(Fraction(given.get(p.name, p.default))) for p in model.act.params}
        ww, bb = _arb(w), _arb(b)
        qs = [_arb(q0)]
        cs = None if c0 is None else [_arb(c0)]
        unit = c0 == 1
        for _ in range(depth):
            q = qs[-1]
            if kernel is not None:
                # mean-value form: A at q's exact midpoint plus dA/dq over the ball times (q − m)
                middle = arb(q.mid())
                hull, second = q, kernel(middle, params)[0] + kernel(q, params)[1] * (q - middle)
                inside = q.contains
            else:
                enclosed = _second_over(model, q, work)
                if enclosed is None:
                    return None
                hull, second, inside = enclosed
            q_next = ww * second + bb
            if not q_next > 0:
                return None
            settled = inside(q_next)
            if cs is not None:
                c = cs[-1]
                if unit:
                    c_next = arb(1)
                else:
                    c_next = _clip((ww * _cross_over(kernel2, hull, c, params, bits) + bb) / q_next)
                    settled = settled and c.contains(c_next)
                cs.append(c_next)
            qs.append(q_next)
            if settled:  # every later layer lies in the balls of this one (see the module docstring)
                qs.extend([q_next] * (depth + 1 - len(qs)))
                if cs is not None:
                    cs.extend([cs[-1]] * (depth + 1 - len(cs)))
                break
        out = {"q_layers": qs}
        if cs is not None:
            out["c_layers"] = cs
        return out


def _second_over(model: Model, q: Any, work: int) -> tuple[Any, Any, Any] | None:
    """(the interval [q_lo, q_hi] ⊇ q with exact std ends, as a ball; A over it by Taylor's
    theorem from q_lo (see the module docstring); a test that a ball lies in the interval
    itself), None where q's lower end is not above 0."""
    low = q.lower()
    if not low > 0:
        return None
    s_lo, s_hi = midpoint_fraction(low.sqrt().lower()), midpoint_fraction(q.upper().sqrt().upper())
    q_lo, q_hi = _arb(s_lo) ** 2, _arb(s_hi) ** 2
    hull = (q_lo + q_hi) / 2 + arb(0, ((q_hi - q_lo) / 2).upper())

    def inside(ball: Any) -> bool:  # within [q_lo, q_hi] itself, where A is enclosed (not the
        return bool(ball.lower() >= q_lo and ball.upper() <= q_hi)  # hull's rounded-up radius)

    (at_lo,) = _balls(model, s_lo, (SECOND,), work)
    if s_lo == s_hi:
        return hull, at_lo, inside
    (x2,) = _balls(model, s_lo, (X2_SECOND,), min(work, SLOPE_DIGITS))
    (fourth,) = _balls(model, s_hi, (SQUARES[SECOND],), BOUND_DIGITS)
    slope = (x2 / q_lo - at_lo) / (2 * q_lo)
    width = q_hi - q_lo
    curvature = ((q_hi / q_lo).sqrt() * fourth).sqrt() * arb(24).sqrt() / (4 * q_lo**2)
    step = width / 2 + arb(0, (width / 2).upper())  # [0, W]
    return hull, at_lo + slope * step + arb(0, (width * width * curvature / 2).upper()), inside


def _cross_over(kernel: Any, q: Any, c: Any, params: Any, bits: int) -> Any:
    """K(q, c) over the balls q and c in mean-value form: K(q, m) at c's exact midpoint m plus
    q·E[φ'(u₁)φ'(u₂)] over the balls (Price's theorem: dK/dc = q·E[φ'φ']) times (c − m). The
    kernels' terms whose slopes cancel near c = ±1 (relu's sqrt(1 − c²) against its
    (π − arccos c)·c) are then never evaluated on the ball itself. On c >= 0 the slope's
    enclosure is the hull of its values at c's exact ends: d/dc E[φ'φ'] = q·E[φ''φ''] =
    q·Σ_k b_k²·c^k >= 0 there (the Hermite series of φ''), so no sqrt(1 − c²) is taken of a
    ball that reaches past 1."""
    one = arb(1)
    middle, low, high = (max(-one, min(one, end)) for end in (arb(c.mid()), c.lower(), c.upper()))
    with arb_precision(2 * bits + 16):  # m² exact: 1 − m² >= 0 even within 2^−bits of 1
        at_middle = kernel(q, q, middle, params)[0]
    if low >= 0:  # E[φ'φ'] is nondecreasing in c on [0, 1]: its values at c's ends bound it
        slope = kernel(q, q, low, params)[1].union(kernel(q, q, high, params)[1])
    else:
        slope = kernel(q, q, c, params)[1]
    return +at_middle + q * slope * (c - middle)


def _clip(c: Any) -> Any:
    """A correlation's ball intersected with [−1, 1]."""
    return c.intersection(arb(0, 1)) if c.overlaps(arb(0, 1)) else c
