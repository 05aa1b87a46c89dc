"""The Gaussian building blocks of the public tier, as proven Arb balls or mpf values.

* ``expectations(φ, [(a, b, c), …], mean=, std=, digits=)``: E[X^a·φ(X)^b·φ'(X)^c],
  X ~ N(mean, std²) (``expectation_balls``: the balls); ``gaussian_moments`` /
  ``moment_balls``: mean, second_moment, variance, rms, gain, centered_gain,
  derivative_second_moment; ``exact_moments``: those that are rational, as Fractions.
* ``bivariate_balls(φ, q=, c=, digits=)``: (E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]) for (u₁, u₂)
  centred Gaussian with variance q each and correlation c (the kernels of mean-field theory,
  Poole et al. 2016), or None where no certified route applies;
  ``closed_form_kernel(name)``: the catalog's closed-form kernel (arc-cosine, arcsine), or None.
* ``selu_constants()``: (λ, α) of SELU as balls at the current Arb precision
  (Klambauer et al., 2017).
* ``activation(name, params)``: a catalog entry or expression in x, its parameters bound.

Everything here is imported lazily by ``momentcalc.tier`` (the quadrature and the Arb
integrators cost tens of milliseconds to import).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog import Activation, resolve
from ..catalog.ball_functions import selu_constants
from ..catalog.kernels import kernel as closed_form_kernel
from ..moments import exact_moments, expectation_balls, expectations, gaussian_moments, moment_balls
from .inputs import check_digits, positive, probability

__all__ = [
    "activation",
    "bivariate_balls",
    "closed_form_kernel",
    "exact_moments",
    "expectation_balls",
    "expectations",
    "gaussian_moments",
    "moment_balls",
    "selu_constants",
]


def activation(name: str | Activation, params: Mapping[str, object] | None = None) -> Activation:
    """A catalog name or alias, or an expression in x, with its parameters bound (InputError
    naming ``activation`` for an unknown name)."""
    return name if isinstance(name, Activation) else resolve(name, params)


def bivariate_balls(
    name: str | Activation, *, q: object, c: object, digits: int, params: Mapping[str, object] | None = None
) -> tuple[Any, Any] | None:
    """(E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]) as Arb balls, each with radius ≤ 10^−(digits+3) of its
    value, for (u₁, u₂) centred Gaussian, variance ``q`` > 0 each, correlation 0 < ``c`` < 1
    (exact numbers); None for an activation no certified route covers."""
    # Here, not at the top: the bivariate integrators load python-flint's fmpz_poly and about
    # 2 ms of modules that activation-moment's default call (which imports this module) never uses.
    from ..moments.bivariate_certified import cross_balls

    return cross_balls(
        activation(name, params),
        positive(q, "q"),
        probability(c, "c", zero=False, one=False),
        check_digits(digits),
    )
