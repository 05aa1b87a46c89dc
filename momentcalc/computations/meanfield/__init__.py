"""``meanfield``: signal propagation through a deep random network (Poole et al. 2016,
"Exponential expressivity in deep neural networks through transient chaos"; Schoenholz et al.
2017, "Deep information propagation"). ``inputs`` checks the arguments, ``locate`` finds the
fixed points (mpmath), ``prove`` proves balls around them (Arb), ``solve`` raises the working
precision by the conditioning and assembles the results, ``phase`` words the notes."""

from __future__ import annotations

from collections.abc import Mapping

from ...defaults import MEANFIELD as DEFAULTS
from ...tier import Computation
from .inputs import read
from .solve import DESCRIPTIONS, RESULTS, compute

__all__ = ["COMMANDS", "DESCRIPTIONS", "RESULTS", "meanfield"]

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"meanfield": "meanfield"}


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

    >>> import mpmath
    >>> r = meanfield("relu", sigma_w2="1.5", sigma_b2="0.1")
    >>> mpmath.nstr(r.value("q_star"), 15)   # sigma_b2 / (1 - sigma_w2/2)
    '0.4'
    """
    given = read(activation, sigma_w2, sigma_b2, critical, q0, c0, depth, params, digits)
    return compute(given, derive)
