"""The public tier a certified computation is written on.

A computation checks its inputs (``positive``, ``whole``, ``probability``, ``choice``,
``number``: exact Fractions, or InputError naming the argument), writes its results as Arb
balls at a given precision, and hands them to ``certify``, which raises the precision until
every ball rounds to one text at ``digits`` digits (``Precision``: the bits, the mpmath dps and
the guard digits, never a literal) and returns the ``Computation`` every renderer takes, each
``Quantity`` carrying its proven error bound. The Gaussian expectations and moments of any
activation, the bivariate kernels and SELU's constants are here as balls too (imported lazily,
on first use).

A worked example — alpha-dropout's affine constants (Klambauer et al., 2017, "Self-Normalizing
Neural Networks"): dropping a unit of a SELU network with probability p sets it to the
saturation value s = −λα; then a·(x·d + s·(1 − d)) + b keeps mean 0 and variance 1 with
a = ((1 − p)·(1 + p·s²))^(−1/2) and b = −a·p·s::

    >>> from momentcalc.tier import certify, exact_ball, probability, selu_constants
    >>> def alpha_dropout(*, p, digits=15):
    ...     p = probability(p, "p", one=False)       # a Fraction, or InputError naming p
    ...     def evaluate(bits):                      # balls at Arb precision ``bits``
    ...         lam, alpha = selu_constants()
    ...         s, q = -lam * alpha, exact_ball(p)
    ...         a = 1 / ((1 - q) * (1 + q * s**2)).sqrt()
    ...         return {"a": a, "b": -a * q * s}
    ...     return certify("alpha_dropout", inputs={"p": p}, evaluate=evaluate, digits=digits,
    ...                    describe={"a": "scale after dropout: a = ((1 - p)(1 + p s^2))^(-1/2)",
    ...                              "b": "shift after dropout: b = -a p s"})
    >>> result = alpha_dropout(p="0.1", digits=20)
    >>> result["a"].decimal(20), result["b"].decimal(20)
    ('0.92128451614971148273', '0.16197097005757022794')
    >>> result["a"].certified, result["a"].error_bound < 1e-22
    (True, True)
    >>> alpha_dropout(p=1)
    Traceback (most recent call last):
        ...
    momentcalc.errors.InputError: p must be a number >= 0 and < 1, got 1

(PyTorch's ``nn.AlphaDropout`` uses the same a and b: 0.9212845161497115 and
0.16197097005757022 in doubles at p = 0.1.) Inputs are Fractions; ``exact_ball(x)`` makes a
ball of any rational (python-flint does not mix Fractions and balls). Results that are exactly
rational are passed as ``exact={"name": Fraction}`` and rounded from the fraction itself.

``prove`` gives the proven fields without building a Computation, and ``quantities`` builds the
Quantity objects from them. A result may also be a list of balls (proven when all round) or
``INFINITY`` (+∞, proven by the computation's own argument); routines that take decimal digits
instead of bits are driven with ``extra_digits``; ``raises=N`` keeps what rounds within N
doublings and leaves the rest to another route (uncertified). The computation is then
registered with the CLI by a ~15-line command function (see the README's Contributing); its
``Computation.command`` is the function's name (the CLI shows the command's). Descriptions and
notes that mention an argument write it as ``{p}``: Python reads ``p``, the CLI ``--p``
(``Computation.named``).

Names (all keyword arguments where they have options): ``Precision``, ``certify``, ``prove``,
``INFINITY``, ``quantities``, ``exact_ball``, ``exactly`` (the fields of an exact rational),
``fields_of`` (of a decided ball), ``arb_precision``, ``bits_for``, ``digits_for``,
``to_decimal``; inputs ``check_digits``, ``number``, ``positive``, ``whole``, ``probability``,
``choice``; Gaussian ``expectations``, ``expectation_balls``, ``gaussian_moments``,
``moment_balls``, ``exact_moments``, ``bivariate_balls``, ``closed_form_kernel``,
``selu_constants``, ``activation``; deep networks at infinite width (``momentcalc.tier.propagation``:
the propagation core ``kernel --depth`` and ``meanfield --depth`` are written on) ``KernelBox``,
``LayerMap``, ``Trajectory``, ``layer_map``, ``trajectory``, ``DeepKernels``, ``deep_kernels``;
results ``Computation``, ``Quantity``, ``Sweep``, ``Listing``, ``Check``; errors ``InputError``,
``Outcome`` (a decided fact about the point: a sweep reports it in the point's row),
``PrecisionError``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..engine.balls import arb_precision, exact_ball, exactly
from ..engine.precision import Precision, bits_for, digits_for, to_decimal
from ..errors import InputError, Outcome, PrecisionError
from ..result import Check, Computation, Listing, Quantity, Sweep
from .inputs import check_digits, choice, number, positive, probability, whole
from .proof import INFINITY, certify, fields_of, precision_of, prove, quantities

# Imported on first use (``momentcalc.tier.gaussian``): the quadrature and the Arb integrators.
_GAUSSIAN = frozenset(
    {
        "activation",
        "bivariate_balls",
        "closed_form_kernel",
        "exact_moments",
        "expectation_balls",
        "expectations",
        "gaussian_moments",
        "moment_balls",
        "selu_constants",
    }
)

# Imported on first use (``momentcalc.tier.propagation``): the layer maps and their driver.
_PROPAGATION = frozenset(
    {"DeepKernels", "KernelBox", "LayerMap", "Trajectory", "deep_kernels", "layer_map", "trajectory"}
)

__all__ = [  # noqa: PLE0604  (the lazily imported names spread from their sets)
    "INFINITY",
    "Check",
    "Computation",
    "InputError",
    "Listing",
    "Outcome",
    "Precision",
    "PrecisionError",
    "Quantity",
    "Sweep",
    "arb_precision",
    "bits_for",
    "certify",
    "check_digits",
    "choice",
    "digits_for",
    "exact_ball",
    "exactly",
    "fields_of",
    "number",
    "positive",
    "precision_of",
    "probability",
    "prove",
    "quantities",
    "to_decimal",
    "whole",
    *sorted(_GAUSSIAN),
    *sorted(_PROPAGATION),
]


def __getattr__(name: str) -> Any:
    if name in _GAUSSIAN:
        return getattr(import_module("momentcalc.tier.gaussian"), name)
    if name in _PROPAGATION:
        return getattr(import_module("momentcalc.tier.propagation"), name)
    raise AttributeError(f"module 'momentcalc.tier' has no attribute {name!r}")
