"""meanfield's searches in double precision: q* (``locate.find_fixed_point`` on the length map's
float sums) and the chaotic c* (the correlation map's Hermite series). A search needs a point
near the fixed point, not digits: at 12 digits in Arb balls each of the q* search's half-dozen
evaluations of A, S and B cost about 1.3 ms (tanh), and each of the c* search's Newton steps a
bivariate expectation of about 4 ms; here they are sums over Python floats
(``catalog.expression_float``), about 0.15 ms each, and about 1.5 ms for c*'s whole search.

The points found are then polished by Newton's method at the working precision and proven in
Arb (``locate.newton``, ``prove``), exactly as points found at mpmath precision would be: nothing
printed depends on this module but where Newton starts. It declines (``FloatTrouble``, None)
whatever double precision cannot do well, and the search then runs at mpmath precision as
before: activations with a closed-form kernel (their maps are cheap anyway), kinks or singular
points (the trapezoid rule converges only algebraically there), overflow, a domain error, q far
beyond the search's scale (an exploding length, which the mpmath search decides and words), a
search that ends at q* = 0, and a c* so near 1 that the series' left-out terms could move it.

E[g(√q·Z)] = ∫ g(√q·z)·e^(−z²/2)/√(2π) dz is the trapezoid sum at step h over |z| <= Z_MAX
(the Gaussian weight is below 10^−15 beyond). For g analytic in a strip the error falls like
e^(−c/h): each halving squares it, so when the sums at h and h/2 agree to AGREE of the sum of
|terms|, the one at h/2 is good to far more than the search's 10^−9. The steps are 1/2, 1/4,
... down to 1/32, then FloatTrouble.
"""

from __future__ import annotations

import math

import mpmath

from ...catalog.expression_float import FloatTrouble, compile_float
from ...errors import MomentcalcError
from .model import Length, Model

Z_MAX = 8.5
FIRST_STEP = 0.5
MAX_HALVINGS = 4  # steps 1/4 ... 1/32
# q beyond this many times the search's scale (q0, sigma_b2, sigma_w2, 1): the length may be
# exploding, which the mpmath search decides and words (a float search there is wasted work).
MAX_SCALE = 20.0
AGREE = 1e-7
POLISH_STEPS = 3  # Newton steps in double precision after the search (to about 1e-14)
POLISH_TO = 1e-14
# The search's slope V'(q*) − 1 decides "q* attracts" (locate's ``_past_a_repelling_root``) in
# double precision only this far from 0; nearer, at mpmath precision as before.
SLOPE_MARGIN = 1e-6

_NORMAL = 1 / math.sqrt(2 * math.pi)
_FORMS: dict[tuple[object, ...], tuple[object, object] | None] = {}


def _forms(model: Model):
    """(φ, φ') as float functions, or None (a closed-form kernel, kinks or singular points, no
    tree, a function without a float form)."""
    act = model.act
    key = (act.name, act.formula, act.values, act.expression)
    if key in _FORMS:
        return _FORMS[key]
    forms = None
    if model.kernel is None and not act.critical and not act.kinks(act.param_values()):
        from ...catalog.expression_calculus import derivative
        from ...catalog.formulas import tree_of

        tree = tree_of(act)
        if tree is not None:
            try:
                forms = (compile_float(tree), compile_float(derivative(tree)))
            except (FloatTrouble, ArithmeticError, ValueError):  # a constant part floats cannot give
                forms = None
    _FORMS[key] = forms
    return forms


class FloatLength:
    """A stand-in for ``Model`` in ``find_fixed_point``: ``length`` and ``second`` in floats."""

    def __init__(self, phi, dphi, largest: float = math.inf) -> None:
        self.phi, self.dphi, self.largest = phi, dphi, largest

    def _terms(self, s: float, h: float, odd: bool, slope: bool) -> tuple[list[float], float]:
        """The sums (of A's, E[X·φ·φ']'s and B's terms; A's alone without ``slope``) over
        z = k·h, |z| <= Z_MAX, every k (``odd``: only odd k), and the sum of |terms|."""
        phi, dphi = self.phi, self.dphi
        count = int(Z_MAX / h)
        a = xs = b = size = 0.0
        first = -count if not odd or count % 2 else 1 - count
        for k in range(first, count + 1, 2 if odd else 1):
            z = k * h
            weight = math.exp(-0.5 * z * z)
            x = s * z
            f = phi(x)
            ta = weight * f * f
            a += ta
            if slope:
                d = dphi(x)
                txs, tb = weight * x * f * d, weight * d * d
                xs += txs
                b += tb
                size += ta + abs(txs) + tb
            else:
                size += ta
        return [a, xs, b], size

    def moments(self, q: float, slope: bool = True) -> tuple[float, float, float]:
        """(A, E[X·φ·φ'], B) at q, to about double precision, or FloatTrouble (without
        ``slope``: A alone, the others 0)."""
        s = math.sqrt(q)
        h = FIRST_STEP
        try:
            sums, size = self._terms(s, h, False, slope)
            for _ in range(MAX_HALVINGS):
                extra, extra_size = self._terms(s, h / 2, True, slope)
                finer = [x + y for x, y in zip(sums, extra)]
                total = size + extra_size
                # sums at h are Σ over k·h, at h/2 over all k·h/2: scale by the steps
                coarse = [x * h for x in sums]
                fine = [x * h / 2 for x in finer]
                if not all(math.isfinite(x) for x in fine) or not math.isfinite(total):
                    raise FloatTrouble("a non-finite sum")
                if all(abs(c - f) <= AGREE * total * h / 2 for c, f in zip(coarse, fine)):
                    return (fine[0] * _NORMAL, fine[1] * _NORMAL, fine[2] * _NORMAL)
                sums, size, h = finer, total, h / 2
        except (ArithmeticError, ValueError) as trouble:
            raise FloatTrouble(str(trouble)) from None
        raise FloatTrouble("the trapezoid sums did not settle")

    def length(self, q: mpmath.mpf, digits: int) -> Length:
        qf = float(q)
        if not 0 < qf <= self.largest:
            raise FloatTrouble("q outside double precision")
        a, xs, b = self.moments(qf)
        return Length(mpmath.mpf(a), mpmath.mpf(xs / qf), mpmath.mpf(b))

    def second(self, q: mpmath.mpf, digits: int) -> mpmath.mpf:
        qf = float(q)
        if not 0 < qf <= self.largest:
            raise FloatTrouble("q outside the float search's range")
        return mpmath.mpf(self.moments(qf, slope=False)[0])


def located(
    find_fixed_point,
    model: Model,
    w: mpmath.mpf,
    b: mpmath.mpf,
    q0: mpmath.mpf,
    zero_fixed: bool,
    texts: tuple[str, str, str],
) -> tuple[mpmath.mpf, float] | None:
    """(a point near q*, V'(q*) − 1 there) from ``find_fixed_point`` (locate's search) in double
    precision, polished by a few Newton steps; None where it declines (see the module docstring)
    or ends without q* > 0."""
    forms = _forms(model)
    if forms is None:
        return None
    wf, bf = float(w), float(b)
    phi, dphi = forms
    floats = FloatLength(phi, dphi, largest=MAX_SCALE * max(float(q0), bf, wf, 1.0))
    try:
        q = find_fixed_point(floats, w, b, q0, zero_fixed, texts)
        if q is None:
            return None
        qf = float(q)
        slope = 0.0
        for _ in range(POLISH_STEPS):
            a, xs, _ = floats.moments(qf)
            f, slope = wf * a + bf - qf, wf * xs / qf - 1
            if slope == 0:
                return None
            delta = f / slope
            if not qf - delta > 0:
                return None
            qf -= delta
            if abs(delta) <= POLISH_TO * qf:
                break
    except (FloatTrouble, MomentcalcError):
        return None
    return mpmath.mpf(qf), slope


def attracts(slope: float) -> bool:
    """V'(q*) < 1 told in double precision (SLOPE_MARGIN from 1): the search's q* attracts."""
    return slope <= -SLOPE_MARGIN


# --- c*: the correlation map from its Hermite (Mehler) series --------------------------------
#
# With a_k = E[φ(√q·Z)·He_k(Z)]/√(k!), K(q, c) = Σ a_k²·c^k (Mehler), so R(c) = (σ_w²·Σ a_k²·c^k +
# σ_b²)/q and R'(c) = σ_w²·Σ k·a_k²·c^(k−1)/q: one set of 1D sums per point, then every Newton step
# of the search is a polynomial. The terms left out weigh at most A − Σ a_k² (E[φ²] = Σ a_k², all
# k) in R, times c^TERMS; where that could move c* by more than C_ACCURATE, or the sums exceed A
# or q·B = Σ k·a_k² (a trapezoid sum too coarse), it declines.
TERMS = 60
TAIL = 1e-12
C_ACCURATE = 1e-10  # the float c* must be this close (relative) by the tail's bound
C_STEPS = 60
C_SETTLED = 1e-13  # a Newton step of the float search below this (relative): settled
C_CLOSEST = 1e-6  # c* within this of 0 or 1: declined (the mpmath search decides such a c*)


def _hermite_squares(floats: FloatLength, q: float) -> tuple[list[float], float, float]:
    """(a_k² for k < TERMS, A, q·B): the trapezoid sums at step 1/4 over the Hermite functions'
    range (|z| up to about √(4·TERMS) + 6), A and B from ``moments``."""
    a_len, _, b_len = floats.moments(q)
    s = math.sqrt(q)
    h = 0.25
    count = int((math.sqrt(4 * TERMS + 2) + 6) / h)
    roots = [math.sqrt(k) for k in range(TERMS + 1)]
    sums = [0.0] * TERMS
    phi = floats.phi
    for i in range(-count, count + 1):
        z = i * h
        f = phi(s * z) * math.exp(-0.5 * z * z)
        previous, current = 0.0, 1.0  # He_k(z)/√(k!) by the three-term recurrence
        sums[0] += f
        for k in range(1, TERMS):
            previous, current = current, (z * current - roots[k - 1] * previous) / roots[k]
            sums[k] += f * current
    scale = h * _NORMAL
    return [(x * scale) ** 2 for x in sums], a_len, q * b_len


def correlation_start(model: Model, w: mpmath.mpf, b: mpmath.mpf, q: mpmath.mpf) -> mpmath.mpf | None:
    """c* (the chaotic phase's stable fixed point of the correlation map in (0, 1)) to about 10
    digits in double precision, for locate's Newton stages to start from; None where it declines."""
    forms = _forms(model)
    if forms is None:
        return None
    qf, wf, bf = float(q), float(w), float(b)
    try:
        squares, a_len, qb = _hermite_squares(FloatLength(*forms), qf)
    except (FloatTrouble, ArithmeticError, ValueError):
        return None
    tail = a_len - sum(squares)
    slope_tail = qb - sum(k * x for k, x in enumerate(squares))
    if not (-TAIL * a_len <= tail and -TAIL * max(qb, a_len) <= slope_tail):
        return None  # the sums exceed A or q·B: too coarse

    def g(c: float) -> tuple[float, float]:
        # G(c) = (R(c) − c)/(1 − c), as locate's search (the root at c = 1 deflated)
        k = dk = 0.0
        for x in reversed(squares):
            dk = dk * c + k
            k = k * c + x
        f, df = (wf * k + bf) / qf - c, wf * dk / qf - 1
        gap = 1 - c
        return f / gap, (df * gap + f) / (gap * gap)

    c = 0.0
    for _ in range(C_STEPS):
        value, slope = g(c)
        if slope >= 0:
            return None
        step = value / slope
        nxt = c - step
        if nxt >= 1:
            nxt = (c + 1) / 2
        if not 0 <= nxt < 1:
            return None
        c = nxt
        if abs(step) <= C_SETTLED * max(c, C_CLOSEST):
            break
    else:
        return None
    if not C_CLOSEST < c < 1 - C_CLOSEST:
        return None
    # the terms left out move R(c) by at most σ_w²·tail·c^TERMS/q, and c* by that over |R'(c*) − 1|
    value, slope = g(c)
    moved = wf * max(tail, 0.0) * c**TERMS / qf / abs(slope * (1 - c))
    if not moved <= C_ACCURATE * c:
        return None
    return mpmath.mpf(c)


__all__ = ["FloatLength", "attracts", "correlation_start", "located"]
