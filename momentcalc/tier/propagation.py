"""The propagation core on the public tier: infinite-width layers as values, depth written once.

A plain fully connected network at infinite width (weights N(0, σ_w²/fan_in), biases N(0, σ_b²);
Poole et al., 2016, "Exponential expressivity in deep neural networks through transient chaos";
Lee et al., 2018, "Deep neural networks as Gaussian processes") carries the kernel of two inputs
from layer to layer: the variances q1, q2 of their pre-activations and their correlation c,

    q_i' = σ_w²·E[φ(√q_i·Z)²] + σ_b²,   c' = (σ_w²·E[φ(u)φ(v)] + σ_b²)/sqrt(q1'·q2').

As in neural-tangents' ``stax`` (Novak et al., 2020), a layer is a value that maps that kernel to
the next layer's:

* ``KernelBox(q1, q2, c)``: a kernel, each side a Fraction (known exactly), an exact interval
  or an Arb ball; ``KernelBox.point(q1, c, q2=None)`` the inputs' (c: None for one input's
  length alone; q2: None for the same variance);
* ``layer_map(activation, sigma_w2=, sigma_b2=)``: the ``LayerMap`` of a catalog activation, an
  expression in x or a gated unit (glu, geglu, swiglu), whose ``image(box, work)`` holds the
  layer's image of every point of the box — a closed-form kernel in the mean-value form, the
  certified bivariate expectations in the centred form, a closed-kernel twin, a gated unit's
  maps from its gate's;
* ``deep_kernels(layer_map, start, trajectory, digits)``: the NNGP Σ⁽ˡ⁾(x, x′) and NTK Θ⁽ˡ⁾(x, x′)
  of the network at every layer (neural-tangents' NTK parametrization: Θ⁽ˡ⁺¹⁾ = Σ⁽ˡ⁺¹⁾ +
  σ_w²·E[φ'(u)φ'(v)]·Θ⁽ˡ⁾);
* ``trajectory(layer_map, start, depth, digits)``: the ``Trajectory`` of balls q1, q2, c at
  layers 0..depth, each to about ``digits`` digits. It owns what depth needs: a box proven mapped
  into itself holds every later layer (near a fixed point), a variance that fades geometrically
  has every later layer from a proven tail, and a length past 10^±10000 is an InputError naming
  ``depth`` (the length explodes or collapses); NotProven (a PrecisionError) where no ball decides.

A worked example — relu at the edge of chaos (σ_w² = 2): the length is preserved, and the
correlation of two inputs at c = 1/2 rises towards 1 through the arc-cosine map
(Cho & Saul, 2009)::

    >>> from momentcalc.tier import prove
    >>> from momentcalc.tier.propagation import KernelBox, layer_map, trajectory
    >>> relu = layer_map("relu", sigma_w2=2, sigma_b2=0)
    >>> path = trajectory(relu, KernelBox.point(1, c="0.5"), depth=3, digits=15)
    >>> [str(q.mid()) for q in path.q1]
    ['1.00000000000000', '1.00000000000000', '1.00000000000000', '1.00000000000000']
    >>> fields = prove(lambda digits: {"c": trajectory(relu, KernelBox.point(1, "0.5"), 3, digits).c},
    ...                15, extra_digits=(3, 8))
    >>> [f"{float(v):.12f}" for v in fields["c"]["value"]]
    ['0.500000000000', '0.608997781044', '0.683905650899', '0.738128192301']

``kernel --depth`` and ``meanfield --depth`` are written on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..catalog import Activation, resolve
from ..catalog.gated import gated
from ..engine.precision import Precision
from ..errors import InputError
from ..moments import propagation as _core
from ..moments.propagation import DeepKernels, KernelBox, LayerMap, Trajectory, Work, deep_kernels
from .inputs import number, positive

__all__ = [
    "DeepKernels",
    "KernelBox",
    "LayerMap",
    "Trajectory",
    "Work",
    "deep_kernels",
    "layer_map",
    "trajectory",
]


def layer_map(
    activation: str | Activation,
    *,
    sigma_w2: object,
    sigma_b2: object = 0,
    params: Mapping[str, object] | None = None,
    unit: Any = None,
) -> LayerMap:
    """The layer map of ``activation`` (a catalog name or alias, an expression in x, a gated
    unit's name; with ``unit``, the gated unit whose gate ``activation`` is) at weight variance
    ``sigma_w2`` > 0 and bias variance ``sigma_b2`` ≥ 0 (InputError naming the argument)."""
    w = positive(sigma_w2, "sigma_w2")
    b = number(sigma_b2, "sigma_b2")
    if b < 0:
        raise InputError(param="sigma_b2", allowed="0 or greater", got=str(b))
    if unit is None and isinstance(activation, str):
        unit = gated(activation)
        if unit is not None:
            activation = unit.gate
    act = activation if isinstance(activation, Activation) else resolve(activation.strip(), params)
    return _core.layer_map(act, Fraction(w), Fraction(b), unit)


def trajectory(
    layer_map: LayerMap, start: KernelBox, depth: int, digits: int | Precision, *, fast: bool = True
) -> Trajectory:
    """The balls of q1, q2 and c at layers 0..``depth`` from ``start`` (see the module docstring);
    a start given as numbers (``KernelBox.point(1, "0.5")``) is taken exactly."""
    sides: list[Any] = [None if side is None else _exact(side) for side in start]
    q1, q2, c = sides
    start = KernelBox.point(q1, c, q2)
    return _core.trajectory(layer_map, start, depth, digits, fast=fast)


def _exact(side: object) -> Any:
    return side if not isinstance(side, (str, int, float)) else Fraction(number(side, "kernel"))
