"""The propagation core: an infinite-width layer is a value, depth is written once.

As in neural-tangents' ``stax`` (Novak et al., 2020, "Neural Tangents: fast and easy infinite
neural networks in Python"), a layer of a plain fully connected network at infinite width is a
map from the kernel of two inputs to the next layer's. Here the kernel is a ``KernelBox(q1, q2, c)``
— the variances of the two inputs' pre-activations and their correlation — whose sides are
numbers known exactly (Fractions: the inputs), exact intervals (``Span``) or Arb balls, and a
``LayerMap``'s ``image(box, work)`` is a box holding the layer's image of every point of it:

    q_i' = σ_w²·A(q_i) + σ_b²,   c' = (σ_w²·K(q1, q2, c) + σ_b²)/sqrt(q1'·q2'),

A(q) = E[φ(√q·Z)²], K = E[φ(u)φ(v)] for (u, v) centred Gaussian of variances q1, q2 and
correlation c (weights N(0, σ_w²/fan_in), biases N(0, σ_b²): Poole et al., 2016; Lee et al.,
2018). One class per kind of activation, chosen by ``layer_map``:

* ``ClosedMap``: a closed-form kernel on balls (the arc-cosine kernels of relu, leaky_relu,
  relu2, erf's arcsine kernel, identity), in the mean-value form with forward-mode derivatives
  (``closed_layers``): no integrals;
* ``BivariateMap``: any activation with certified expectations (``kernel_maps.layer_balls``:
  the centred form over exact boxes, a radius growing by the map's own slope), through a
  closed-kernel twin where one is close enough (relu6 is relu below 6: ``closed_layers.twin_of``);
* ``GatedMap``: a gated unit a·g(b) from its gate's maps (``gated_maps``).

``trajectory(layer_map, start, depth, digits)`` is the one driver: it follows the boxes layer by
layer and owns what depth needs — a box proven mapped into itself holds every later layer
(settling near a fixed point), a variance that fades geometrically has every later layer from a
proven tail (``fading_tail``), and a variance past 10^±LENGTH_LIMIT_DIGITS ends the trajectory
(the length explodes or collapses: exit 2). It returns the balls of q1, q2 and c at every layer.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Literal, NamedTuple, cast

from flint import arb, ctx

from ..catalog import Activation
from ..engine.balls import midpoint_fraction
from ..engine.gaussian_balls import as_arb
from ..engine.precision import Precision
from ..errors import Outcome
from ..engine.steps import report
from . import gated_maps, kernel_maps
from .closed_layers import (
    closed_kernel_of,
    closed_layer,
    split_closed_layer,
    twin_noise,
    twin_of,
    twin_slope_noise,
)
from .fading_tail import Tail, fading_tail, linear_remainder
from .kernel_maps import (
    LENGTH_LIMIT_DIGITS,
    FourthMoments,
    NotProven,
    clip,
    nngp_over,
    params_of,
    variance_range,
)

# A settled box is SETTLED_GROWTH steps wide at least; a step below FLOOR radii is noise.
SETTLED_GROWTH = 32
FLOOR = 1024

Side = Any  # Fraction (a point known exactly), Span (an exact interval) or arb (a ball)


class Span(NamedTuple):
    """The exact interval [mid − rad, mid + rad] (a box's side as the centred maps take it)."""

    mid: Fraction
    rad: Fraction


class KernelBox(NamedTuple):
    """The kernel of two inputs after some layers: their variances q1, q2 and correlation c (None:
    the variance of one input alone). Equal variances are one side: ``q2 is q1``."""

    q1: Side
    q2: Side
    c: Side | None

    @classmethod
    def point(cls, q1: Fraction, c: Fraction | None = None, q2: Fraction | None = None) -> KernelBox:
        """The inputs' kernel, known exactly (``q2``: None for the same variance)."""
        same = q2 is None or q2 is q1 or (isinstance(q1, Fraction) and isinstance(q2, Fraction) and q1 == q2)
        return cls(q1, q1 if same else q2, c)

    @property
    def equal(self) -> bool:
        return self.q2 is self.q1


class Work(NamedTuple):
    """What one trajectory computes at: the digits of each layer's balls, the digits of the
    length map's A(q) (more: its relative error adds up in q and c' divides by q' every layer)
    and Arb's working precision for the whole trajectory."""

    digits: int
    length_digits: int
    bits: int


def work_for(digits: int, depth: int) -> Work:
    """Each layer's own radius adds up over the layers: digits for that (``len(str(depth))``),
    and the length map gets them twice (about depth² layers' worth through c' = K/q')."""
    digits += len(str(depth))
    length = digits + len(str(depth))
    return Work(digits, length, Precision(length).ball_bits)


class Trajectory(NamedTuple):
    """The balls of q1, q2 (the same list at equal variances) and c (None: lengths only) at
    layers 0..L; ``tail_from``: the layer after which a proven fading tail gave the rest (None:
    none did); ``dots``: the NTK recursion's factor over each layer's box (``deep_kernels``)."""

    q1: list[arb]
    q2: list[arb]
    c: list[arb] | None
    tail_from: int | None = None
    # E[φ'(u)φ'(v)] over the box of layers 0..L−1 (Σ̇⁽ˡ⁺¹⁾/σ_w²), None where no route gave it
    dots: list[arb | None] | None = None


class DeepKernels(NamedTuple):
    """The NNGP Σ⁽ˡ⁾(x, x′) and NTK Θ⁽ˡ⁾(x, x′) of the network at layers 0..L (``deep_kernels``)."""

    nngp: list[arb]
    ntk: list[arb]


class LayerMap:
    """One layer of a plain deep network at infinite width (see the module docstring).

    ``image(box, work)``: a box holding the image of every point of ``box``; ``step(box, work)``:
    that box and E[φ'(u)φ'(v)] over ``box`` (the NTK recursion's factor Σ̇/σ_w², None for a
    length alone), which the driver records for the deep kernels. The driver's hooks:
    ``centred`` (the map takes exact spans, re-centred every layer, and may settle into a box
    mapped into itself), ``fresh()`` (a copy with empty caches, one per trajectory: the caches
    change radii, never what a ball holds), ``tail`` (a proven fading tail, or None),
    ``check_start`` (a runaway proven before any layer), ``split_lengths`` (at unequal variances
    each length follows its own trajectory and ``correlation`` gives c' from them)."""

    centred = True
    split_lengths = False

    def __init__(self, act: Activation, sigma_w2: Fraction, sigma_b2: Fraction) -> None:
        self.act, self.w, self.b = act, Fraction(sigma_w2), Fraction(sigma_b2)

    def fresh(self) -> LayerMap:
        return type(self)(self.act, self.w, self.b)

    def image(self, box: KernelBox, work: Work) -> KernelBox:
        return self.step(box, work)[0]

    def step(self, box: KernelBox, work: Work) -> tuple[KernelBox, arb | None]:
        raise NotImplementedError

    def tail(self, q: arb, c: arb | None, work: Work) -> Tail | None:
        return None

    def check_start(self, start: KernelBox, depth: int) -> None:
        return None

    def correlation(self, c: Side, v1: Side, v2: Side, n1: arb, n2: arb, work: Work) -> arb:
        raise NotImplementedError

    def __repr__(self) -> str:
        name = self.act.formula if self.act.expression else self.act.name
        return f"{type(self).__name__}({name!r}, sigma_w2={self.w}, sigma_b2={self.b})"


def span(side: Side, variance: bool, bits: int) -> Span:
    """A side as an exact interval: a Fraction as a point, a ball by its exact midpoint and an
    exact bound of its radius (a variance's midpoint moved to the square of a dyadic near its
    square root, the radius grown by the move: the moments at an exact rational std need no
    bracket of sqrt(q))."""
    if isinstance(side, Span):
        return side
    if isinstance(side, (Fraction, int)):
        return Span(Fraction(side), Fraction(0))
    mid, rad = variance_range(side.mid())[0], variance_range(side.rad())[1]
    if not variance:
        return Span(mid, rad)
    scale = 2 ** (bits // 2 + max(0, mid.denominator.bit_length() - mid.numerator.bit_length()) // 2 + 8)
    root = Fraction(math.isqrt(mid.numerator * scale * scale // mid.denominator), scale)
    square = root * root
    return Span(square, rad + abs(square - mid))


def ball(side: Side) -> arb:
    """A side as a ball at the current precision."""
    if isinstance(side, Span):
        return as_arb(side.mid) if side.rad == 0 else as_arb(side.mid) + arb(0, as_arb(side.rad).upper())
    return as_arb(side)


def _side(q: Span, work: Work) -> Any:
    """A variance span as ``gaussian_balls`` takes it: the exact number, or a ball."""
    if q.rad == 0:
        return q.mid
    with ctx.workprec(work.bits):
        return ball(q)


def _square_slope(act: Activation, q: Span, work: Work) -> arb:
    """E[φ'(u)²] over the variance span (K₁ at c = 1)."""
    return kernel_maps.gaussian_balls(act, [(0, 0, 2)], _side(q, work), work.digits)[0]


def _still(c: Span | None) -> bool:
    """Identical inputs (c = 1 exactly) stay identical."""
    return c is not None and c.mid == 1 and c.rad == 0


class BivariateMap(LayerMap):
    """Any activation with certified univariate and bivariate expectations, over exact boxes in
    the centred form (``kernel_maps.layer_balls``), or through its closed-kernel twin (``twin``:
    ``closed_layers.twin_of``) where the twin's Gaussian-tail difference is below the layer's own
    rounding (no integrals)."""

    split_lengths = True

    def __init__(self, act: Activation, sigma_w2: Fraction, sigma_b2: Fraction) -> None:
        super().__init__(act, sigma_w2, sigma_b2)
        self.twin = twin_of(act, params_of(act))
        self.bounds = FourthMoments()
        self._noise: tuple[Fraction, arb, arb] | None = None
        self._remainder: Any = None

    def step(self, box: KernelBox, work: Work) -> tuple[KernelBox, arb | None]:
        q = span(box.q1, True, work.bits)
        c = None if box.c is None else span(box.c, False, work.bits)
        if _still(c):  # identical inputs: K₁ = E[φ'²] over q's box
            q_next = self.centred_image(q, None, work)[0]
            return KernelBox(q_next, q_next, arb(1)), _square_slope(self.act, q, work)
        q_next, c_next, dot = self.centred_image(q, c, work)
        return KernelBox(q_next, q_next, c_next), dot

    def centred_image(self, q: Span, c: Span | None, work: Work) -> tuple[arb, arb | None, arb | None]:
        """(q', c', K₁ over the box) for the exact box q × c (c: None for the length alone)."""
        c_mid, c_rad = (None, Fraction(0)) if c is None else c
        if self.twin is not None:
            found = self._twin_layer(q, c, max(work.digits, work.length_digits))
            if found is not None:
                return found
        boxes = kernel_maps.layer_boxes(
            self.act, q.mid, q.rad, c_mid, c_rad, self.w, self.b, work.digits, self.bounds, work.length_digits
        )
        return boxes.q, boxes.c, boxes.k1

    def _twin_layer(self, q: Span, c: Span | None, digits: int) -> tuple[arb, arb | None, arb | None] | None:
        """The twin's layer over the box with the noise bound ``twin_noise`` at a variance
        V ≥ q + r_q (kept while it still covers the box: the bound grows with the variance), or
        None where that noise is not below 10^−(digits + 2) of q'; the twin's K₁ over the box
        within ``twin_slope_noise``."""
        route = self.twin
        assert route is not None  # centred_image asks only a map with a twin
        with ctx.workprec(Precision(digits).ball_bits):
            q_ball = as_arb(q.mid) + arb(0, as_arb(q.rad).upper())
            c_ball = None if c is None else as_arb(c.mid) + arb(0, as_arb(c.rad).upper())
            high = q.mid + q.rad
            kept = self._noise
            if kept is None or high > kept[0]:
                kept = None
            tolerance = arb(10) ** -(digits + 2)
            for attempt in (0, 1):
                if kept is None:
                    V = high * Fraction(9, 8)
                    with ctx.workprec(64):
                        noise = twin_noise(route, as_arb(V))
                        slope_noise = twin_slope_noise(route, as_arb(V))
                    if noise is None:
                        return None
                    kept = self._noise = (V, noise, slope_noise)
                ww = as_arb(self.w)
                q_next, c_next = closed_layer(
                    route.closed, route.params, q_ball, c_ball, ww, as_arb(self.b), kept[1]
                )
                if ww * kept[1] < tolerance * q_next.lower():
                    dot = None
                    if c_ball is not None:
                        dot = route.closed(q_ball, q_ball, c_ball, route.params)[1] + arb(0, kept[2].upper())
                    return q_next, c_next, dot
                if attempt or high * Fraction(9, 8) >= kept[0]:
                    return None  # the bound was taken at this variance already
                kept = None
        return None

    def tail(self, q: arb, c: arb | None, work: Work) -> Tail | None:
        if self._remainder is None:
            self._remainder = linear_remainder(self.act, work.bits) or False
        return (self._remainder and fading_tail(self._remainder, q, self.w, work.digits, c)) or None

    def correlation(self, c: Side, v1: Side, v2: Side, n1: arb, n2: arb, work: Work) -> arb:
        """c' = (σ_w²·K + σ_b²)/sqrt(q1'·q2'), K over the box (``kernel_maps.nngp_over``)."""
        nngp = nngp_over(self.act, c, v1, v2, work.digits)
        with ctx.workprec(Precision(work.digits).ball_bits):
            return (as_arb(self.w) * nngp + as_arb(self.b)) / (n1 * n2).sqrt()


class ClosedMap(LayerMap):
    """A closed-form kernel on balls (``closed_layers.closed_layer`` at equal variances,
    ``split_closed_layer`` at unequal ones): every layer from the last one's balls, no integrals
    and no settling needed (10000 layers take about a second)."""

    centred = False

    def __init__(self, act: Activation, sigma_w2: Fraction, sigma_b2: Fraction) -> None:
        super().__init__(act, sigma_w2, sigma_b2)
        closed = closed_kernel_of(act)
        assert closed is not None  # layer_map makes a ClosedMap only for an activation with one
        self.closed = closed

    def step(self, box: KernelBox, work: Work) -> tuple[KernelBox, arb | None]:
        """The image, and the closed form's E[φ'(u)φ'(v)] on the box's balls."""
        with ctx.workprec(work.bits):
            ww, bb, params = as_arb(self.w), as_arb(self.b), params_of(self.act)
            q1, c = ball(box.q1), None if box.c is None else ball(box.c)
            q2 = q1 if box.equal else ball(box.q2)
            dot = None if c is None else self._slope(q1, q2, c, params)
            if box.equal:
                still = box.c is not None and not isinstance(box.c, arb) and box.c == 1
                q, c_next = closed_layer(self.closed, params, q1, None if still else c, ww, bb)
                return KernelBox(q, q, arb(1) if still else c_next), dot
            # (two inputs: a box of unequal variances has a correlation, as trajectory's starts do)
            v1, v2, c_next = split_closed_layer(self.closed, params, q1, q2, cast(arb, c), ww, bb)
            return KernelBox(v1, v2, c_next), dot

    def _slope(self, q1: arb, q2: arb, c: arb, params: Any) -> arb:
        """The closed form's E[φ'(u)φ'(v)] over the balls. A correlation ball clipped at 1 reaches
        past it by its radius's rounding, where arccos is not defined: there, from c's lower end
        ≥ 0, the hull of the values at that end and at 1 (these kernels' E[φ'(u)φ'(v)] is
        nondecreasing in c on [0, 1]: Mehler's expansion, Σ a_k·b_k·c^k with a_k·b_k ≥ 0 for
        relu, leaky_relu, relu2 (scale-free or homogeneous slopes), erf (both even, signs (−1)^k)
        and identity), else within ±E[φ'²]-bounds by Cauchy–Schwarz."""
        if c.upper() <= 1 and c.lower() >= -1:
            return self.closed(q1, q2, c, params)[1]
        low, one = arb(c.lower()).max(arb(-1)), arb(1)
        top = self.closed(q1, q2, one, params)[1]
        if low >= 0:
            return arb(self.closed(q1, q2, low, params)[1].lower()).union(arb(top.upper()))
        bound = (self.closed(q1, q1, one, params)[1] * self.closed(q2, q2, one, params)[1]).sqrt()
        return arb(0, bound.upper())


class GatedMap(LayerMap):
    """A gated unit a·g(b) (``catalog.gated``) from its gate's maps: the length
    q' = σ_w²·q·A_g(q) + σ_b² and c' from the gate's C map (``gated_maps.gated_layer_balls``);
    a gate with g(0) ≠ 0 has a proven fading tail (``gated_maps.constant_gate_tail``), one
    vanishing at 0 a runaway proven before any layer (``gated_maps.runaway_layer``)."""

    split_lengths = True

    def __init__(self, gate: Activation, sigma_w2: Fraction, sigma_b2: Fraction, unit: Any) -> None:
        super().__init__(gate, sigma_w2, sigma_b2)
        self.unit = unit
        self.bounds = FourthMoments()
        self._fade = None if unit.centre is None else gated_maps.constant_gate_tail(unit.centre)

    def fresh(self) -> GatedMap:
        return GatedMap(self.act, self.w, self.b, self.unit)

    def step(self, box: KernelBox, work: Work) -> tuple[KernelBox, arb | None]:
        q = span(box.q1, True, work.bits)
        c = None if box.c is None else span(box.c, False, work.bits)
        still = _still(c)
        c_mid, c_rad = (None, Fraction(0)) if c is None or still else c
        q_next, c_next, dot = gated_maps.gated_layer_boxes(
            self.act, q.mid, q.rad, c_mid, c_rad, self.w, self.b, work.digits, self.bounds
        )
        if still:  # identical inputs: E[|∇φ|²] = E[g²] + q·E[g'²] over q's box
            found = kernel_maps.gaussian_balls(self.act, [(0, 2, 0), (0, 0, 2)], _side(q, work), work.digits)
            with ctx.workprec(work.bits):
                dot = found[0] + ball(q) * found[1]
        return KernelBox(q_next, q_next, arb(1) if still else c_next), dot

    def tail(self, q: arb, c: arb | None, work: Work) -> Tail | None:
        return (self._fade is not None and self._fade(q, self.w, work.digits, c)) or None

    def check_start(self, start: KernelBox, depth: int) -> None:
        """Outcome (``depth``, as ``check_length``) when the length of a deep network
        of the unit at σ_b² = 0 is proven to collapse below 10^−10000 or explode above 10^10000
        within ``depth`` layers (q' within σ_w²·[l, h]·q²), before any layer is integrated."""
        unit = self.unit
        if unit.quadratic is None or self.b != 0:
            return
        lower, upper = unit.quadratic
        why = (
            f"the length of a network of {unit.name} at {{sigma_b2}} = 0 runs away doubly exponentially, "
            f"as {lower}*q <= E[{unit.gate}(sqrt(q) Z)^2] <= {upper}*q, so q' is within "
            f"sigma_w2*[{lower}, {upper}]*q^2"
        )
        q1, q2 = Fraction(start.q1), Fraction(start.q2)
        low = gated_maps.runaway_layer(self.act, unit.quadratic, min(q1, q2), self.w, collapse=True)
        if low and low <= depth:
            raise Outcome(
                f"the variance q of the layers falls below 1e-{LENGTH_LIMIT_DIGITS} by layer {low}: {why}, "
                "and the correlations with it; ask for a much smaller {depth}, a larger {sigma_w2} or "
                "{sigma_b2} > 0",
                kind="collapses",
                layer=low,
                param="depth",
                params=("sigma_b2", "sigma_w2"),
            )
        high = gated_maps.runaway_layer(self.act, unit.quadratic, max(q1, q2), self.w, collapse=False)
        if high and high <= depth:
            raise Outcome(
                f"the variance q of the layers passes 1e{LENGTH_LIMIT_DIGITS} by layer {high}: {why}; "
                "ask for a much smaller {depth}, a smaller {sigma_w2} or {sigma_b2} > 0",
                kind="explodes",
                layer=high,
                param="depth",
                params=("sigma_b2", "sigma_w2"),
            )

    def correlation(self, c: Side, v1: Side, v2: Side, n1: arb, n2: arb, work: Work) -> arb:
        """c' = (σ_w²·ρ·√(q1q2)·K_g + σ_b²)/sqrt(q1'·q2') (``gated_maps.gated_nngp_over``)."""
        nngp = gated_maps.gated_nngp_over(self.act, c, v1, v2, work.digits)
        with ctx.workprec(Precision(work.digits).ball_bits):
            return (as_arb(self.w) * nngp + as_arb(self.b)) / (n1 * n2).sqrt()


def layer_map(act: Activation, sigma_w2: Fraction, sigma_b2: Fraction, unit: Any = None) -> LayerMap:
    """The layer map of ``act`` (a gated ``unit``'s gate with ``unit``): a closed-form kernel
    where the catalog has one, else the certified expectations (through a twin where one is)."""
    if unit is not None:
        return GatedMap(act, sigma_w2, sigma_b2, unit)
    if closed_kernel_of(act) is not None:
        return ClosedMap(act, sigma_w2, sigma_b2)
    return BivariateMap(act, sigma_w2, sigma_b2)


def trajectory(
    layer_map: LayerMap, start: KernelBox, depth: int, digits: int | Precision, *, fast: bool = True
) -> Trajectory:
    """The balls of q1, q2 and c at layers 0..``depth`` from the inputs' kernel ``start``, each
    layer to about ``digits`` digits (see the module docstring). ``fast``: False computes every
    layer (the route the tests compare the settled boxes and fading tails with)."""
    digits = digits.digits if isinstance(digits, Precision) else int(digits)
    layer_map.check_start(start, depth)
    if not start.equal and layer_map.split_lengths:
        return _split(layer_map, start, depth, digits, fast)
    work = work_for(digits, depth)
    step = layer_map.fresh()
    if not step.centred:
        return _balls(step, start, depth, work)
    return _centred(step, start, depth, work, fast)


def deep_kernels(
    layer_map: LayerMap, start: KernelBox, path: Trajectory, digits: int | Precision
) -> DeepKernels:
    """The NNGP and NTK kernels of two inputs at layers 0..L of the network whose trajectory is
    ``path`` (from ``start``), in neural-tangents' NTK parametrization (Jacot et al., 2018; Lee et
    al., 2019; Novak et al., 2020): layer 0 is the first layer's pre-activations, whose kernel is
    the start's, Σ⁽⁰⁾(x, x′) = Θ⁽⁰⁾(x, x′) = c₀·sqrt(q1·q2), and

        Σ⁽ˡ⁺¹⁾ = σ_w²·E[φ(u)φ(v)] + σ_b² = c_{l+1}·sqrt(q1_{l+1}·q2_{l+1}),
        Σ̇⁽ˡ⁺¹⁾ = σ_w²·E[φ'(u)φ'(v)],  (u, v) ~ N(0, Σ⁽ˡ⁾),
        Θ⁽ˡ⁺¹⁾ = Σ⁽ˡ⁺¹⁾ + Σ̇⁽ˡ⁺¹⁾·Θ⁽ˡ⁾,

    each Σ̇ over the layer's box (``LayerMap.slope``; once for a settled box that holds many
    layers). NotProven where no route encloses Σ̇: past a fading tail, at unequal variances of an
    activation without a closed-form kernel."""
    digits = digits.digits if isinstance(digits, Precision) else int(digits)
    depth = len(path.q1) - 1
    if path.c is None:
        raise NotProven("the deep kernels need the correlation of two inputs", param="rho")
    if path.tail_from is not None:
        raise NotProven(
            f"past layer {path.tail_from} the variance fades and a proven tail gives the correlations, "
            "but no bound of E[phi'(u)phi'(v)] there",
            param="depth",
        )
    if path.dots is None or any(dot is None for dot in path.dots):
        raise NotProven(
            "E[phi'(u)phi'(v)] over a layer's box at unequal variances has no certified route for this "
            "activation",
            param="depth",
        )
    dots = [dot for dot in path.dots if dot is not None]  # every one (checked above)
    work = work_for(digits, depth)
    nngp: list[arb] = []
    ntk: list[arb] = []
    with ctx.workprec(work.bits):
        w = as_arb(layer_map.w)
        for layer in range(depth + 1):
            q1, c = path.q1[layer], path.c[layer]
            sigma = c * (q1 if path.q2 is path.q1 else (q1 * path.q2[layer]).sqrt())
            nngp.append(sigma)
            ntk.append(sigma + w * dots[layer - 1] * ntk[-1] if layer else sigma)
    return DeepKernels(nngp, ntk)


def _balls(step: LayerMap, start: KernelBox, depth: int, work: Work) -> Trajectory:
    """Every layer from the last one's balls (a closed map)."""
    still = start.equal and start.c is not None and not isinstance(start.c, arb) and start.c == 1
    with ctx.workprec(work.bits):
        q1 = as_arb(start.q1)
        q2 = q1 if start.equal else as_arb(start.q2)
        cs = None if start.c is None else [as_arb(start.c)]
        box = KernelBox(q1, q2, Fraction(1) if still else None if cs is None else cs[0])
        q1s, q2s = [q1], [q2]
        dots: list[arb | None] = []
        for layer in range(depth):
            report(layer, depth)
            box, dot = step.step(box, work)
            dots.append(dot)
            for q in (box.q1,) if box.equal else (box.q1, box.q2):
                check_length(q, layer + 1)
                if not (q > 0 and q.is_finite()):
                    raise NotProven(
                        "a layer's variance cannot be proven positive at these digits", param="depth"
                    )
            q1s.append(box.q1)
            q2s.append(box.q2)
            if cs is not None:
                assert box.c is not None  # a closed map's image of a box with c has c'
                if not (box.c.is_finite() and box.c.rad() < 1):
                    raise NotProven(
                        "a layer's correlation cannot be proven inside [-1, 1] at these digits", param="depth"
                    )
                cs.append(box.c)
                if still:
                    box = box._replace(c=Fraction(1))
    return Trajectory(q1s, q1s if start.equal else q2s, cs, None, None if cs is None else dots)


def _centred(step: LayerMap, start: KernelBox, depth: int, work: Work, fast: bool) -> Trajectory:
    """Every layer from the exact centres of the last one's balls and their radii, a settled box
    or a fading tail taking over where one is proven."""
    digits, bits = work.digits, work.bits
    with ctx.workprec(bits):
        qs = [as_arb(start.q1)]
        cs = None if start.c is None else [as_arb(start.c)]
    q = span(start.q1, True, bits)
    c = None if start.c is None else span(start.c, False, bits)
    widen = [1, 1]  # a box found not invariant is tried 4 times wider in the side that left it
    wait = 0  # layers until the next try of a settled box
    dots: list[arb | None] = []
    for layer in range(depth):
        wait -= 1
        if fast and layer >= 3 and wait <= 0 and not _still(c):
            settled = _settled(step, qs, cs, q, c, work, widen)
            if settled is not None:
                if settled:
                    image, dot = settled
                    with ctx.workprec(bits):
                        qs.extend(image.q1 for _ in range(depth - layer))
                        if cs is not None:
                            assert image.c is not None  # the settled box of a trajectory with c has c'
                            cs.extend(image.c for _ in range(depth - layer))
                    dots.extend(dot for _ in range(depth - layer))
                    break
                wait = max(4, layer // 8)
        if fast and step.b == 0 and layer >= 2 and qs[-1] < qs[-2] and qs[-1] < arb(10) ** -digits:
            tail = step.tail(qs[-1], None if cs is None else cs[-1], work)
            if tail:
                _append_tail(qs, cs, tail, depth - layer, bits)
                return Trajectory(qs, qs, cs, layer, None if cs is None else dots)
        still = _still(c)
        report(layer, depth)
        image, dot = step.step(KernelBox(q, q, c), work)
        dots.append(dot)
        check_length(image.q1, layer + 1)
        with ctx.workprec(bits):
            q = span(image.q1, True, bits)
            qs.append(image.q1)
            if cs is not None:
                if still:
                    cs.append(arb(1))
                    continue
                assert image.c is not None  # a step's image of a box with c has c'
                c = span(image.c, False, bits)
                cs.append(image.c)
        if not q.mid > 0:
            raise NotProven("a layer's variance cannot be proven positive at these digits", param="depth")
        if c is not None and not (-1 < c.mid < 1 or (abs(c.mid) == 1 and c.rad == 0)):
            raise NotProven(
                "a layer's correlation cannot be proven inside [-1, 1] at these digits", param="depth"
            )
    return Trajectory(qs, qs, cs, None, None if cs is None else dots)


def _split(step: LayerMap, start: KernelBox, depth: int, digits: int, fast: bool) -> Trajectory:
    """Unequal variances for a map whose lengths follow their own trajectories (``trajectory``
    with c = None: settled boxes and fading tails included), and

        c' = (σ_w²·K(q1, q2, c) + σ_b²)/sqrt(q1'·q2'),

    K over the last layer's box from its value at the exact midpoints plus its slopes' bounds
    (``LayerMap.correlation``). The variances are not recomputed from the balls of the last layer
    (E over a ball of variances bounds its slope by Cauchy–Schwarz, sqrt(6)/2 ≈ 1.22 times
    tanh's A' = 1 at small q, and the division by q' counts K's and q''s radii twice: the balls
    widened about 2× a layer, ``kernel tanh --q1 1 --q2 2 --depth 100`` was exit 3)."""
    work = work_for(digits, depth)
    qs1 = _centred(step.fresh(), KernelBox.point(Fraction(start.q1)), depth, work, fast).q1
    qs2 = _centred(step.fresh(), KernelBox.point(Fraction(start.q2)), depth, work, fast).q1
    step = step.fresh()
    c: Side = start.c
    with ctx.workprec(Precision(work.digits).ball_bits):
        cs = [as_arb(c)]
    for layer in range(depth):
        report(layer, depth)
        v1 = qs1[layer] if layer else start.q1
        v2 = qs2[layer] if layer else start.q2
        c_next = step.correlation(c, v1, v2, qs1[layer + 1], qs2[layer + 1], work)
        if not (c_next > -1 and c_next < 1):
            raise NotProven(
                "a layer's correlation cannot be proven inside (-1, 1) at these digits", param="depth"
            )
        cs.append(c_next)
        c = span(c_next, False, work.bits).mid if c_next.rad() == 0 else c_next
    return Trajectory(qs1, qs2, cs)


def _step_size(balls: list[arb]) -> arb:
    """|x_L − x_{L−1}| at most (both balls' spread)."""
    return arb((abs(balls[-1] - balls[-2]) + balls[-1].rad() + balls[-2].rad()).upper())


def _settled(
    step: LayerMap,
    qs: list[arb],
    cs: list[arb] | None,
    q: Span,
    c: Span | None,
    work: Work,
    widen: list[int],
) -> tuple[KernelBox, arb | None] | Literal[False] | None:
    """A box holding every later layer, once the trajectory has settled near a fixed point: a box
    B = [q ± R_q] × [c ± R_c] around the last layer (centres and radii ``q``, ``c``) whose image
    F(B) lies inside B holds every later layer (the last one is in B, and F maps B into itself),
    and each of them, an image of a point of B, lies in F(B). R is a few times the last step over
    one minus the steps' ratio (the contraction seen so far). None: not yet small enough to try;
    False: B was not invariant (``widen`` then grows in the side that left it). With the box, the
    NTK factor over it (every later layer's box lies in it)."""
    with ctx.workprec(64):
        small = arb(10) ** -(work.digits + 1)
        steps = [(_step_size(qs), _step_size(qs[:-1]))]
        if cs is not None:
            steps.append((_step_size(cs), _step_size(cs[:-1])))
        # each side's steps' ratio, where a step is still well above the balls' own radii
        # (below that it is noise: the trajectory sits at its floor); at least a sliver of the
        # digits' width (a map exact on points, identity's, still rounds its image of a box)
        radii = []
        for i, ((last, before), balls) in enumerate(zip(steps, [qs, cs or qs])):
            ratio = (last / before).upper() if before > 0 else arb(0)
            if not last > FLOOR * balls[-1].rad() + small * abs(balls[-1]):
                ratio = arb(0)
            if not ratio < arb("0.99"):
                return None
            grow = (4 / (1 - ratio)).max(arb(SETTLED_GROWTH)) * widen[i]
            radii.append(arb((grow * last).max(small * abs(balls[-1]) / 64).upper()))
        r_q = max(midpoint_fraction(radii[0]), 2 * q.rad)
        if not as_arb(r_q) < small * qs[-1] + FLOOR * qs[-1].rad():
            return None
        r_c = Fraction(0)
        if c is not None:
            assert cs is not None  # _centred keeps the c balls whenever it has a c
            r_c = max(midpoint_fraction(radii[1]), 2 * c.rad)
            if not as_arb(r_c) < small * abs(cs[-1]) + FLOOR * cs[-1].rad():
                return None
    box = KernelBox(Span(q.mid, r_q), None, None if c is None else Span(c.mid, r_c))
    image, dot = step.step(box._replace(q2=box.q1), work)
    with ctx.workprec(_bits(image.q1) + 64):
        outside = [not (image.q1.lower() >= as_arb(q.mid - r_q) and image.q1.upper() <= as_arb(q.mid + r_q))]
        if c is not None:
            assert image.c is not None  # the image of a box with c has c'
            outside.append(
                not (image.c.lower() >= as_arb(c.mid - r_c) and image.c.upper() <= as_arb(c.mid + r_c))
            )
    if any(outside):
        for i, out in enumerate(outside):
            if out:
                widen[i] *= 4
        return False
    return image, dot


def _bits(ball: arb) -> int:
    """Enough bits for a ball's ends, exactly."""
    mid_m, mid_e = (int(x) for x in ball.mid().man_exp())
    rad_m, rad_e = (int(x) for x in ball.rad().man_exp())
    return max(64, abs(mid_m).bit_length() + abs(mid_e - rad_e) + rad_m.bit_length() + 64)


def _append_tail(qs: list[arb], cs: list[arb] | None, tail: Tail, count: int, bits: int) -> None:
    """The ``count`` later layers from a proven fading tail (no integrals)."""
    with ctx.workprec(bits):
        q = qs[-1]
        for _ in range(count):
            q = q * tail.ratio
            qs.append(q * tail.spread)
        if cs is not None:
            last = cs[-1]
            if last.is_exact() and last == 1:
                cs.extend(arb(1) for _ in range(count))  # identical inputs stay identical
                return
            c = clip(last + arb(0, tail.drift))
            cs.extend(c for _ in range(count))


def check_length(q: arb, layer: int) -> None:
    """Outcome (``depth``; "explodes" or "collapses" at ``layer``) once a layer's variance passes
    10^±LENGTH_LIMIT_DIGITS: the length
    explodes or collapses faster than geometrically (relu2's q' ≈ 3σ_w²·q², x³'s ≈ 15σ_w²·q³
    square or cube it every layer), and its exact midpoints would grow without bound. Only a ball
    wholly past the limit says so; one that reaches past it without being past it is NotProven
    (exit 3: the balls of unequal variances widen layer by layer, and a wide one reaching below
    1e-10000 proves no collapse: ``kernel tanh --sigma-w2 0.5 --q1 1 --q2 2 --depth 300`` said it did)."""
    with ctx.workprec(64):
        limit = arb(10) ** LENGTH_LIMIT_DIGITS
        high, low = q.lower() > limit, q.upper() < 1 / limit
        reaches = q.upper() > limit or q.lower() < 1 / limit
    if not (high or low):
        if reaches:
            raise NotProven(
                f"the variance q of layer {layer} is not proven between 1e-{LENGTH_LIMIT_DIGITS} and "
                f"1e{LENGTH_LIMIT_DIGITS} at these digits (its ball widened over the layers); ask for a "
                "smaller {depth}",
                param="depth",
            )
        return
    advice = f"ask for {{depth}} of at most {layer - 1}, or" if layer > 1 else "ask for"
    if high:
        raise Outcome(
            f"the variance q of the layers passes 1e{LENGTH_LIMIT_DIGITS} at layer {layer} (the "
            "length of the network explodes: q' = sigma_w2*E[phi(sqrt(q) Z)^2] + sigma_b2 outgrows "
            f"q); {advice} a smaller {{sigma_w2}}",
            kind="explodes",
            layer=layer,
            param="depth",
            params=("sigma_w2",),
        )
    raise Outcome(
        f"the variance q of the layers falls below 1e-{LENGTH_LIMIT_DIGITS} at layer {layer} (the "
        "length of the network collapses); "
        f"{advice} a larger {{sigma_w2}} or {{sigma_b2}}",
        kind="collapses",
        layer=layer,
        param="depth",
        params=("sigma_w2", "sigma_b2"),
    )


__all__ = [
    "BivariateMap",
    "ClosedMap",
    "DeepKernels",
    "GatedMap",
    "KernelBox",
    "LayerMap",
    "Span",
    "Trajectory",
    "Work",
    "check_length",
    "deep_kernels",
    "layer_map",
    "trajectory",
    "work_for",
]
