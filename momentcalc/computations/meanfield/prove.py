"""Proofs of ``meanfield``'s results in Arb balls (python-flint), around the values the mpmath
route (``locate``) found.

The fixed point q* (or the critical line's q) is proven by a sign change: with s̃ = sqrt(q̃)
at the approximate root, the exact points q_lo = (s̃(1 − δ))² and q_hi = (s̃(1 + δ))² give
balls of F(q) = σ_w²·A(q) + σ_b² − q (critical: A(q)/B(q) + σ_b² − q) of opposite signs, so
(F continuous) a root lies in [q_lo, q_hi]: that interval is q*'s ball. The univariate
expectations there are the certified moments (Arb balls at an exact std).
From 200 working digits on (``locate.ProofFinish``) q* is instead proven from one Newton step
at a point right to about half the digits, its expectations the only ones taken to every digit
(``NewtonInterval``: Taylor's theorem with the He₄ bound of F'' below, as for c* in
``correlation_proof``).

An expectation E_q[g(X)], X ~ N(0, q), at the unknown q* in [q_lo, q_hi] is enclosed from its
ball at q_lo and a bound on its slope over the interval:

    d/dq E_q[g] = E_q[g·(X²/q − 1)]/(2q),  |·| ≤ sqrt(E_q[g²])·sqrt(2)/(2q)   (Cauchy–Schwarz,
                                                                          E[(Z² − 1)²] = 2)
    E_q[g²] ≤ sqrt(q_hi/q)·E_{q_hi}[g²]  for q ≤ q_hi   (the ratio of the two densities)

so E_{q*}[g] ∈ E_{q_lo}[g] ± (q_hi − q_lo)·sqrt(sqrt(q_hi/q_lo)·E_{q_hi}[g²])·sqrt(2)/(2·q_lo).
The second derivative, d²/dq² E_q[g] = E_q[g·He₄(X/√q)]/(4q²) (the heat equation twice; He₄
the Hermite polynomial, E[He₄(Z)²] = 4! = 24), is bounded the same way by
sqrt(sqrt(q_hi/q_lo)·E_{q_hi}[g²])·sqrt(24)/(4·q_lo²): then E_{q_hi}[g] = E_{q_lo}[g] +
(q_hi − q_lo)·dE_q[g]/dq at q_lo + a remainder below (q_hi − q_lo)²/2 times that, without
another quadrature at q_hi.

For an activation with a closed-form kernel (relu, leaky_relu, erf, identity;
``catalog.kernels.BALL_LENGTHS``) the kernel is evaluated on balls instead, at q*'s ball itself:
no integral, fast at any digits.

What is proven: q*, χ₁, ξ_q, and in the ordered phase (χ₁'s ball below 1) c* = 1 and ξ_c =
−1/ln χ₁; in the chaotic phase c* = 0 and ξ_c for an odd φ without bias (the slope σ_w²·E[φ']²
is univariate), c* from a closed-form kernel on balls (erf), and otherwise c* and ξ_c from
certified bivariate expectations (``correlation_proof``: catalog activations analytic
in a strip or piecewise exp-polynomial, expressions analytic near the real line with polynomial
growth); on the critical line σ_w² = 1/B(q*), χ₁ = 1, c* = 1
and ξ_c = ∞ by definition. Not proven (left to the mpmath route and marked ``certified:
false``): the chaotic c* and ξ_c of the catalog entries and expressions that route does not
cover (gelu, softsign, expressions with kinks, …), the limits at q* = 0, a phase that the balls cannot decide (χ₁'s
ball holds 1). The per-layer trajectories are proven in ``layers``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
from flint import acb, arb, ctx, fmpq
from mpmath import mp

from ...catalog.kernels import BALL_CROSS, BALL_LENGTHS, HOMOGENEOUS
from ...engine.rounding import ball_text
from ...errors import MomentcalcError
from ...moments import expectation_balls
from ...tier import Precision, arb_precision
from . import homogeneous_zero
from .model import Model

# q*'s interval is q̃·(1 ± 2·10^−(digits + ROOT_GUARD)); the expectations carry EXTRA more digits.
ROOT_GUARD = 6
EXTRA = 4
# Secant steps allowed when the mpmath route's root is not yet inside the first interval.
ROOT_ATTEMPTS = 4
# Digits of the E_{q_hi}[g²] that only bound a slope.
BOUND_DIGITS = 5
# Digits of the slope dE_q[g]/dq at q_lo in a Taylor step across q*'s interval (its width,
# 10^−(digits+ROOT_GUARD) relative, makes the slope's own error negligible).
SLOPE_DIGITS = 20

SECOND, STEIN, DERIV2, DERIV = (0, 2, 0), (1, 1, 1), (0, 0, 2), (0, 0, 1)
SQUARES = {SECOND: (0, 4, 0), STEIN: (2, 2, 2), DERIV2: (0, 0, 4), DERIV: (0, 0, 2)}


def _arb(value: Any) -> Any:
    """An mpf or a Fraction as an exact ball (a Fraction with a binary denominator, or else
    a ball of the current precision around it)."""
    if isinstance(value, Fraction):
        return arb(fmpq(value.numerator, value.denominator))
    mantissa, exponent = value.man_exp
    return arb((int(mantissa), int(exponent)))  # exact (a product would round to the precision)


def _mpf(ball: Any) -> mpmath.mpf:
    """A ball's midpoint as an mpf at the current precision."""
    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    return mpmath.ldexp(mpmath.mpf(mantissa), exponent)


def _balls(model: Model, std: mpmath.mpf, monomials: tuple, digits: int) -> list[Any]:
    return expectation_balls(model.text, list(monomials), std=std, digits=digits, params=model.params)


class _Interval:
    """q in [q_lo, q_hi] (exact ends, stds s_lo and s_hi): expectations at q_lo and enclosures
    of them anywhere in the interval."""

    def __init__(
        self, model: Model, s_lo: mpmath.mpf, s_hi: mpmath.mpf, digits: int, monomials: tuple
    ) -> None:
        self.model, self.s_lo, self.s_hi = model, s_lo, s_hi
        self.q_lo, self.q_hi = _arb(s_lo) ** 2, _arb(s_hi) ** 2
        self.monomials = monomials
        self.at_lo = dict(zip(monomials, _balls(model, s_lo, monomials, digits)))

    def add(self, monomials: tuple, digits: int) -> None:
        """The expectations of ``monomials`` at the point the enclosures start from, too."""
        self.at_lo.update(zip(monomials, _balls(self.model, self.s_lo, monomials, digits)))

    def ball(self) -> Any:
        """The interval as a ball."""
        return (self.q_lo + self.q_hi) / 2 + arb(0, ((self.q_hi - self.q_lo) / 2).upper())

    def at_hi(self, monomial: tuple) -> Any:
        """E_{q_hi}[g] from q_lo by Taylor's theorem (see the module docstring): the slope at
        q_lo from E_{q_lo}[X²·g] to SLOPE_DIGITS digits, the remainder from sup |d²E_q[g]/dq²|."""
        a, b, c = monomial
        x2g = _balls(self.model, self.s_lo, ((a + 2, b, c),), SLOPE_DIGITS)[0]
        slope = (x2g / self.q_lo - self.at_lo[monomial]) / (2 * self.q_lo)
        square = _balls(self.model, self.s_hi, (SQUARES[monomial],), BOUND_DIGITS)[0]
        curvature = (self.ratio() * square).sqrt() * arb(24).sqrt() / (4 * self.q_lo**2)
        width = self.q_hi - self.q_lo
        return self.at_lo[monomial] + width * slope + arb(0, (width * width * curvature / 2).abs_upper())

    def ratio(self) -> Any:
        return (self.q_hi / self.q_lo).sqrt()

    def enclosure(self, monomial: tuple) -> Any:
        """E_q[g] for every q in the interval (see the module docstring)."""
        square = _balls(self.model, self.s_hi, (SQUARES[monomial],), BOUND_DIGITS)[0]
        ratio = (self.q_hi / self.q_lo).sqrt()
        slope = (ratio * square).sqrt() * arb(2).sqrt() / (2 * self.q_lo)
        width = (self.q_hi - self.q_lo) * slope
        return self.at_lo[monomial] + arb(0, width.abs_upper())


class NewtonInterval(_Interval):
    """q*'s ball from one Newton step (``locate.ProofFinish``), the expectations to every digit
    at one exact point p = s₀² only (the Newton step's): with F(q) = σ_w²·A(q) + σ_b² − q,
    F(p), F'(p) = σ_w²·S(p) − 1 and x₁ = p − F(p)/F'(p), and |F''| = σ_w²·|A''| ≤ M on the
    region [q_lo, q_hi] = [(s₀(1 − ε))², (s₀(1 + ε))²] around p (A'' bounded by E[φ⁴] at q_hi
    as in the module docstring), Taylor's theorem at p encloses F at the ends of x₁ ± ρ, ρ about
    M·(2|x₁ − p|)²/|F'(p)|; opposite signs put q* between them. Where p is right to about half
    the digits, ρ is about 10^−digits. An expectation at q* is then E_p[g] + (q* − p)·dE/dq at p
    (E_p[X²·g] to the digits |q* − p| leaves) + (q* − p)²/2·sup|d²E/dq²| (``_Interval.at_hi``'s
    bounds). ``proven`` is False where the signs are not proven (the caller then takes the
    interval around x₁ instead)."""

    def __init__(self, model: Model, ww: Any, bb: Any, s0: mpmath.mpf, digits: int, monomials: tuple) -> None:
        self.model, self.monomials, self.s_lo, self.digits = model, monomials, s0, digits
        self.point = _arb(s0) ** 2
        self.at_lo = dict(zip(monomials, _balls(model, s0, monomials, digits)))
        self.slopes: dict[tuple, Any] = {}  # E_p[X²·g]
        self.proven = False
        p = self.point
        f0 = ww * self.at_lo[SECOND] + bb - p
        d0 = ww * self.at_lo[STEIN] / p - 1
        if not (d0 < 0 or d0 > 0):
            return
        x1 = p - f0 / d0
        step = abs(x1 - p)
        # the region: ε a power of 2 at least twice the relative step (and 2^−(prec + 10))
        exponent = -(ctx.prec + 10)
        relative = arb((2 * step / p).upper())
        if relative > 0:
            exponent = max(exponent, math.ceil(float((relative.log() / arb(2).log()).upper())) + 1)
        if exponent > -20:  # not a small step: the point is not right to half the digits
            return
        with mp.workprec(int(s0.man).bit_length() - exponent + 10):  # exact
            epsilon = mpmath.ldexp(1, exponent)
            s_lo, s_hi = s0 * (1 - epsilon), s0 * (1 + epsilon)
        self.s_hi = s_hi
        self.q_lo, self.q_hi = _arb(s_lo) ** 2, _arb(s_hi) ** 2
        square = _balls(model, s_hi, (SQUARES[SECOND],), BOUND_DIGITS)[0]
        ratio = (self.q_hi / self.q_lo).sqrt()
        curvature = (ratio * square).sqrt() * arb(24).sqrt() / (4 * self.q_lo**2)
        m2 = arb((abs(ww) * curvature).upper())  # |F''| on the region
        rho = arb(
            (
                4 * x1.rad() + m2 * (2 * step) * (2 * step) / abs(d0) + abs(x1) * arb(2) ** -(ctx.prec + 10)
            ).upper()
        )
        ends = [arb((x1 - rho).lower()), arb((x1 + rho).upper())]
        if not (ends[0] >= self.q_lo and ends[1] <= self.q_hi):
            return
        values = []
        for end in ends:
            offset = end - p
            values.append(f0 + d0 * offset + arb(0, (m2 * offset * offset / 2).upper()))
        if not _opposite(*values):
            return
        self.ends = ends
        self.proven = True

    def add(self, monomials: tuple, digits: int) -> None:
        self.at_lo.update(zip(monomials, _balls(self.model, self.s_lo, monomials, digits)))

    def ball(self) -> Any:
        low, high = self.ends
        return (low + high) / 2 + arb(0, ((high - low) / 2).upper())

    def enclosure(self, monomial: tuple) -> Any:
        """E_q[g] for every q in q*'s ball, by Taylor's theorem at p (see the class docstring)."""
        p, offset = self.point, self.ball() - self.point
        reach = arb(offset.abs_upper())
        # E_p[X²·g] to the digits the offset leaves (its error is multiplied by |q* − p|)
        gone = int(-float((reach / p).log().upper()) / math.log(10)) if reach > 0 else self.digits
        wanted = max(SLOPE_DIGITS, self.digits - gone + 10)
        if monomial == SECOND:
            slope = self.at_lo[STEIN] / p  # dA/dq = S to every digit
        else:
            if monomial not in self.slopes:  # all at once: one quadrature
                wanted_now = [m for m in self.at_lo if m != SECOND and m not in self.slopes]
                moved = tuple((a + 2, b, c) for a, b, c in wanted_now)
                self.slopes.update(zip(wanted_now, _balls(self.model, self.s_lo, moved, wanted)))
            slope = (self.slopes[monomial] / p - self.at_lo[monomial]) / (2 * p)
        square = _balls(self.model, self.s_hi, (SQUARES[monomial],), BOUND_DIGITS)[0]
        curvature = (self.ratio() * square).sqrt() * arb(24).sqrt() / (4 * self.q_lo**2)
        return self.at_lo[monomial] + offset * slope + arb(0, (reach * reach * curvature / 2).upper())


def _ends(q: mpmath.mpf, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Exact stds s̃(1 ∓ δ) around sqrt(q)."""
    with mp.workdps(digits + ROOT_GUARD + 15):
        s = mpmath.sqrt(q)
        delta = mpmath.mpf(10) ** -(digits + ROOT_GUARD)
        return s * (1 - delta), s * (1 + delta)


def first_expectations(
    model: Model, critical: bool, b: Fraction, q: mpmath.mpf, digits: int, fold: int = 0
) -> tuple[mpmath.mpf, tuple, int] | None:
    """(std, monomials, digits) of the proof's first expectations for a root near ``q``: at
    q_lo, the lower end of q*'s interval (within 2·10^−(digits+6) of q). The mpmath route
    checks its last Newton step with these very expectations, which the proof then finds in
    the moments package's cache. None where the proof uses a kernel on balls instead."""
    if not model.act.expression and model.act.name in BALL_LENGTHS:
        return None
    # E[φ'] too where the chaotic phase will need it (c* = 0: odd φ, no bias), on the same nodes
    extra = (DERIV,) if not critical and b == 0 and model.act.parity == "odd" else ()
    return _ends(q, digits)[0], (SECOND, STEIN, DERIV2, *extra), digits + ROOT_GUARD + EXTRA + fold


def _opposite(low: Any, high: Any) -> bool:
    """Proven opposite signs (or an exact zero at an end)."""
    return bool((low > 0 and high < 0) or (low < 0 and high > 0) or low == 0 or high == 0)


def _depth(slope: Any) -> Any | None:
    """−1/ln|slope| as a ball, None unless |slope| is provably away from 0 and 1."""
    s = abs(slope)
    if not (s > 0) or s.contains(1):
        return None
    return -1 / s.log()


def prove(
    model: Model,
    w: Fraction | None,
    b: Fraction,
    q: mpmath.mpf,
    digits: int,
    c_estimate: mpmath.mpf | None = None,
    fold: int = 0,
    point: mpmath.mpf | None = None,
    c_digits: int | None = None,
) -> dict[str, Any]:
    """Proven balls (or exact values: Fraction, or mpmath.inf) of the results, by name, for the
    fixed point near ``q`` > 0 (``w`` None: the critical line); ``c_estimate`` is the mpmath
    route's c* in the chaotic phase (right to about ``c_digits``, a third of the digits, where
    given: ``correlation_proof.third_order``); ``point``, where given, the std of q*'s last Newton
    step (``locate.ProofFinish``: q* proven from that step, ``NewtonInterval``). Results that
    cannot be proven are left out (the caller keeps the mpmath route's value, not certified)."""
    with arb_precision(Precision(digits + ROOT_GUARD + EXTRA + fold + 20, guard=0).bits):
        try:
            return _prove(model, w, b, q, digits, c_estimate, fold, point, c_digits)
        except MomentcalcError:  # a moment the certified engine cannot prove: nothing is claimed
            return {}


class _KernelInterval:
    """The same as ``_Interval`` from a closed-form kernel on balls (``catalog.kernels``): the
    kernel at the interval's ball encloses its values over the interval, no slope bound needed."""

    def __init__(self, model: Model, s_lo: mpmath.mpf, s_hi: mpmath.mpf, lengths: Any) -> None:
        given = dict(model.act.values)
        self.params = {p.name: _arb(Fraction(given.get(p.name, p.default))) for p in model.act.params}
        self.model, self.lengths = model, lengths
        self.q_lo, self.q_hi = _arb(s_lo) ** 2, _arb(s_hi) ** 2
        a, _s, b = lengths(self.q_lo, self.params)
        self.at_lo = {SECOND: a, DERIV2: b}

    ball = _Interval.ball

    def at(self, q: Any) -> dict[tuple, Any]:
        a, s, b = self.lengths(q, self.params)
        return {SECOND: a, DERIV2: b, STEIN: s * q}


def _prove(
    model: Model,
    w: Fraction | None,
    b: Fraction,
    q: mpmath.mpf,
    digits: int,
    c_estimate: mpmath.mpf | None,
    fold: int = 0,
    point: mpmath.mpf | None = None,
    c_digits: int | None = None,
) -> dict[str, Any]:
    target = digits + ROOT_GUARD + EXTRA + fold
    critical = w is None
    bb = _arb(b)
    ww = None if critical else _arb(w)
    lengths = None if model.act.expression else BALL_LENGTHS.get(model.act.name)
    newton_step = None
    if point is not None and ww is not None and lengths is None:
        first = first_expectations(model, critical, b, q, digits, fold)
        if first is not None:
            newton_step = NewtonInterval(model, ww, bb, point, target, first[1])
    for _ in range(0 if newton_step is not None and newton_step.proven else ROOT_ATTEMPTS):
        s_lo, s_hi = _ends(q, digits)
        if lengths is not None:
            here: Any = _KernelInterval(model, s_lo, s_hi, lengths)
            high = here.at(here.q_hi)
        else:
            first = first_expectations(model, critical, b, q, digits, fold)
            assert first is not None  # None only with a kernel on balls (lengths)
            _, monomials, _ = first
            here = _Interval(model, s_lo, s_hi, target, monomials)
            if critical:
                # A(q_hi) as below; B(q_hi) by Taylor from q_lo (no quadrature at full digits)
                high = {
                    SECOND: here.at_lo[SECOND]
                    + (here.q_hi - here.q_lo) * here.enclosure(STEIN) / here.ball(),
                    DERIV2: here.at_hi(DERIV2),
                }
            else:
                # A(q_hi) by the mean value theorem, A'(q) = E_q[X·φ·φ']/q enclosed over the
                # interval (a slope bound at 5 digits, not another quadrature at full digits)
                high = {
                    SECOND: here.at_lo[SECOND] + (here.q_hi - here.q_lo) * here.enclosure(STEIN) / here.ball()
                }
        if critical:
            f_lo = here.at_lo[SECOND] / here.at_lo[DERIV2] + bb - here.q_lo
            f_hi = high[SECOND] / high[DERIV2] + bb - here.q_hi
        else:
            f_lo = ww * here.at_lo[SECOND] + bb - here.q_lo
            f_hi = ww * high[SECOND] + bb - here.q_hi
        if _opposite(f_lo, f_hi):
            break
        # The root lies outside: a secant step through the two (accurate) values moves q to it.
        if not (f_hi - f_lo).is_finite() or (f_hi - f_lo).contains(0):
            return {}
        step = f_lo * (here.q_hi - here.q_lo) / (f_hi - f_lo)
        with mp.workdps(target + 20):
            q = _mpf(here.q_lo - step)
        if not q > 0:
            return {}
    else:
        if newton_step is None or not newton_step.proven:
            return {}
        here = newton_step
    q_star = here.ball()
    if lengths is not None:
        star = here.at(q_star)
        enclosure = star.__getitem__
    else:
        enclosure = here.enclosure
    slope_b = enclosure(DERIV2)  # B(q*)
    out: dict[str, Any] = {"q_star": q_star}
    if critical:
        ww = 1 / slope_b
        out["sigma_w2"] = ww
        out.update(chi1=Fraction(1), c_star=Fraction(1), depth_scale_c=mpmath.inf)
    else:
        out["chi1"] = chi = ww * slope_b
    xi_q = _depth(ww * enclosure(STEIN) / q_star)
    if xi_q is not None:
        out["depth_scale_q"] = xi_q
    if critical:
        return out
    if chi < 1:  # ordered: R is convex with R(1) = 1 and R'(1) = χ₁ < 1
        out["c_star"] = Fraction(1)
        xi_c = _depth(chi)
    elif chi > 1:
        xi_c = _chaotic(model, ww, bb, b, q_star, here, out, digits, c_estimate, c_digits)
    else:
        xi_c = None
    if xi_c is not None:
        out["depth_scale_c"] = xi_c
    return out


def _chaotic(
    model: Model,
    ww: Any,
    bb: Any,
    b: Fraction,
    q_star: Any,
    here: Any,
    out: dict[str, Any],
    digits: int,
    c_estimate: mpmath.mpf | None = None,
    c_digits: int | None = None,
) -> Any | None:
    """c* and ξ_c in the chaotic phase where they can be proven (see the module docstring)."""
    kernel = None if model.act.expression else BALL_CROSS.get(model.act.name)

    def cross(c: Any) -> tuple[Any, Any]:
        assert kernel is not None  # called only where there is one
        return kernel(q_star, c, getattr(here, "params", {}))

    if b == 0 and model.act.parity == "odd":
        # R(0) = σ_w²·E[φ]²/q* = 0: c* = 0, slope σ_w²·E[φ']² (= σ_w²·K'(q*, 0) from a kernel).
        out["c_star"] = Fraction(0)
        if kernel is not None:
            return _depth(ww * cross(arb(0))[1])
        if DERIV not in here.at_lo:
            here.add((DERIV,), digits + ROOT_GUARD + EXTRA)
        mean_slope = here.enclosure(DERIV)
        return _depth(ww * mean_slope * mean_slope)
    if kernel is None:
        if c_estimate is None or not 0 < c_estimate < 1:
            return None
        from .correlation_proof import prove_correlation

        q_slopes = None
        if isinstance(here, _Interval):  # bounds of |dK/dq| and |dK'/dq| over q*'s ball
            fourth = _balls(model, here.s_hi, ((0, 4, 0), (0, 0, 4)), BOUND_DIGITS)
            ratio = (here.q_hi / here.q_lo).sqrt()
            q_slopes = tuple((ratio * m).sqrt() / here.q_lo for m in fourth)
        proven = prove_correlation(
            model.act,
            ww,
            bb,
            q_star,
            out["chi1"] / ww,
            _arb(c_estimate),
            digits + ROOT_GUARD + EXTRA,
            q_slopes,
            c_digits,
        )
        if proven is None:
            return None
        out["c_star"], slope = proven
        return _depth(slope)

    # Newton on R(c) − c at balls' midpoints, then a sign change proves the root.
    c = arb(0)
    for _ in range(200):
        k, kd = cross(c)
        step = ((ww * k + bb) / q_star - c) / (ww * kd - 1)  # dR/dc = σ_w²·K' (Price)
        c = arb((c - step).mid())
        if abs(step.mid()) < arb(10) ** -(digits + ROOT_GUARD + 5):
            break
    # Wider than q*'s ball, whose width R carries into both ends, divided by |F'(c*)| =
    # |σ_w²·K'(c*) − 1| (near the edge of chaos F is flat at c*: its values at the ends are
    # about F'·(end − c*) and must clear the balls' radii).
    flat = abs(ww * cross(c)[1] - 1)
    delta = arb(10) ** -(digits + ROOT_GUARD - 3)
    if flat < 1:
        delta = arb((delta / flat).upper())
    lo, hi = arb((c * (1 - delta)).mid()), arb((c * (1 + delta)).mid())
    if not _opposite((ww * cross(lo)[0] + bb) / q_star - lo, (ww * cross(hi)[0] + bb) / q_star - hi):
        return None
    c_star = (lo + hi) / 2 + arb(0, ((hi - lo) / 2).abs_upper())
    out["c_star"] = c_star
    return _depth(ww * cross(c_star)[1])


def prove_at_zero(
    model: Model,
    w: Fraction | None,
    b: Fraction,
    c_star_is_one: bool,
    digits: int,
    q0: Fraction | None = None,
) -> dict[str, Any]:
    """The q* = 0 limits (σ_b² = 0, φ(0) = 0) for an activation with a kernel on balls, whose
    A(q) <= q·B(0), or one the catalog declares within its one-sided tangents at 0
    (``Activation.tangent_bound``: A(q) < q·B(0) with B(0) = (φ'(0−)² + φ'(0+)²)/2, the slopes
    from its ball branches at 0): then σ_w²·B(0) <= 1 leaves no fixed point above 0 (q* = 0
    proven), χ₁ = σ_w²·B(0) (critical: σ_w² = 1/B(0), χ₁ = 1) and ξ_q = −1/ln χ₁. For a
    positively homogeneous φ the correlation map does not depend on q, and as q -> 0 any such φ
    acts as its linearisation at 0, which is positively homogeneous: ξ_c is infinite, and c* = 1
    where φ'(0−) ≠ φ'(0+) (``c_star_is_one``). Empty when none of this applies."""
    if homogeneous_zero.applies(model.act, b):
        return _homogeneous_at_zero(model, w, q0, digits)
    lengths = None if model.act.expression else BALL_LENGTHS.get(model.act.name)
    tangent = not model.act.expression and model.act.tangent_bound
    if b != 0 or (lengths is None and not tangent):
        return {}
    with arb_precision(Precision(digits + 20, guard=0).bits):
        given = dict(model.act.values)
        params = {p.name: _arb(Fraction(given.get(p.name, p.default))) for p in model.act.params}
        left, right = _slopes_at_zero(model, params)
        b0 = lengths(arb(0), params)[2] if lengths is not None else (left * left + right * right) / 2
        out: dict[str, Any] = {"q_star": Fraction(0)}
        if w is None:
            out.update(sigma_w2=1 / b0, chi1=Fraction(1), depth_scale_q=mpmath.inf)
        else:
            chi = _arb(w) * b0
            if not chi <= 1:
                return {}
            out["chi1"] = chi
            if chi.is_exact() and chi == 1:
                out["depth_scale_q"] = mpmath.inf
            else:
                xi = _depth(chi)
                if xi is not None:
                    out["depth_scale_q"] = xi
        if model.act.name in HOMOGENEOUS or tangent:
            out["depth_scale_c"] = mpmath.inf
            if c_star_is_one and not (left - right).contains(0):  # φ'(0−) ≠ φ'(0+), proven
                out["c_star"] = Fraction(1)
        return out


def _homogeneous_at_zero(
    model: Model, w: Fraction | None, q0: Fraction | None, digits: int
) -> dict[str, Any]:
    """q* = 0 for relu2 or κ·x^n at σ_b² = 0 (``homogeneous_zero``): proven when q0 lies below
    the repelling fixed point; χ₁ = 0 and depth_scale_q = 0 exactly, c* bracketed (0 exactly for
    an odd power), ξ_c from R'(c*)."""
    if w is None or q0 is None or not homogeneous_zero.reaches_zero(model.act, w, q0):
        return {}
    c_star, slope = homogeneous_zero.correlation_fixed_point(model.act, digits)
    out: dict[str, Any] = {
        "q_star": Fraction(0),
        "chi1": Fraction(0),
        "depth_scale_q": Fraction(0),
        "c_star": c_star,
    }
    with arb_precision(Precision(digits + 20, guard=0).bits):
        xi = _depth(slope)
    if xi is not None:
        out["depth_scale_c"] = xi
    return out


def _slopes_at_zero(model: Model, params: dict[str, Any]) -> tuple[Any, Any]:
    """(φ'(0−), φ'(0+)) as balls from the catalog's ball branches on either side of 0 (each
    branch is analytic up to its ends, so its φ' at 0 is the one-sided limit)."""
    from ...catalog.ball_functions import BALL_FUNCTIONS

    ball = BALL_FUNCTIONS[model.act.name]
    left = ball.branches[sum(1 for k in ball.kinks if k < 0)][1](acb(0), params, True).real
    right = ball.branches[sum(1 for k in ball.kinks if k <= 0)][1](acb(0), params, True).real
    return left, right


def prove_zero_correlation(model: Model, w: Fraction, digits: int) -> dict[str, Any]:
    """c* = 0 exactly at q* = 1 where the catalog gives E[φ(Z)] = 0 (selu; σ_b² = 0), and
    ξ_c = −1/ln(σ_w²·E[φ'(Z)]²) from a proven ball of E[φ'(Z)] (the correlation map's slope
    at 0)."""
    out: dict[str, Any] = {"c_star": Fraction(0)}
    (mean_slope,) = expectation_balls(model.act, [DERIV], std=1, digits=digits + 10)
    with arb_precision(Precision(digits + 20, guard=0).bits):
        xi = _depth(_arb(w) * mean_slope * mean_slope)
    if xi is not None:
        out["depth_scale_c"] = xi
    return out


def rounds(value: Any, digits: int) -> bool:
    """Does a proven ball round to one text (exact values always do)?"""
    if isinstance(value, Fraction) or value is mpmath.inf:
        return True
    return ball_text(value, digits) is not None
