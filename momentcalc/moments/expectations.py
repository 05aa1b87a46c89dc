"""The public Gaussian expectations: ``expectations`` (any monomials) and ``gaussian_moments``
(the summary activation-moment, gau-scale, init and verify report).

Each value is correct to the requested digits: closed forms where the catalog has them,
otherwise the quadrature of ``engine.gaussian_quadrature`` with its error checked against the digits. A
user expression may cancel internally, and a variance that cancels needs its mean and each
φ(x) − mean to more digits: those are evaluated again with more digits until two evaluations
agree.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

import mpmath
from mpmath import mp

from ..catalog import Activation, resolve
from ..engine.numbers import Number, as_number, to_mpf, to_text
from ..engine.precision import MAX_INTERNAL_DIGITS, agree, working_dps
from ..errors import InputError, Outcome, PrecisionError
from .monomials import DERIVATIVE_SECOND_MOMENT, MEAN, SECOND_MOMENT, Monomial, checked, name
from .quadrature import Divergent, Evaluation

# Expressions: extra digits of the second evaluation, and how many times to raise them.
EXPRESSION_EXTRA_DIGITS = 12
EXPRESSION_RETRIES = 3
# What gaussian_moments reports.
SUMMARY = ("mean", "second_moment", "variance", "rms", "gain", "centered_gain", "derivative_second_moment")
_CLASSIC = (MEAN, SECOND_MOMENT, DERIVATIVE_SECOND_MOMENT)


def _summary(ev: Evaluation, derivative: bool) -> tuple[dict[str, mpmath.mpf], int]:
    """gaussian_moments' values at the current precision, and the digits the variance lost
    to cancellation (0 if it lost none)."""
    monomials = _CLASSIC if derivative else _CLASSIC[:2]
    found = ev.expectations(monomials)
    m, m2 = found[0], found[1]
    lost = 0
    if m2 == 0:
        variance = mp.zero
    elif m * m <= m2 * 9 / 10:
        variance = m2 - m * m  # loses at most one digit
    else:
        # φ is nearly constant: E[(φ − m)²] directly. Its digits rest on m and on each
        # φ(x) − m, which lose log10(m²/variance) digits: the caller redoes the whole
        # computation with that many more.
        variance = ev.central_second_moment(m)
        ratio = m2 / variance if variance > 0 else mpmath.mpf(10) ** mp.dps
        lost = max(1, int(mpmath.ceil(mpmath.log10(ratio))))
    rms = mpmath.sqrt(m2)
    values = {
        "mean": m,
        "second_moment": m2,
        "variance": variance,
        "rms": rms,
        "gain": 1 / rms if rms else mpmath.inf,
        "centered_gain": 1 / mpmath.sqrt(variance) if variance else mpmath.inf,
    }
    if derivative:
        values["derivative_second_moment"] = found[2]
    return values, lost


Values = TypeVar("Values", list[mpmath.mpf], dict[str, mpmath.mpf])


def _by_quadrature(
    act: Activation,
    mean: Number,
    std: Number,
    digits: int,
    compute: Callable[[Evaluation], tuple[Values, int]],
    work: int | None = None,
) -> Values:
    """``compute(evaluation)`` → (values, digits lost), at the working precision of ``digits``
    and, for expressions or cancelling variances, again with more digits until two agree."""
    label = act.name if not act.expression else act.formula
    try:
        with mp.workdps(working_dps(digits)):
            values, lost = compute(Evaluation(act, mean, std, digits, working_dps(digits), work))
        if not act.expression and not lost:
            return values
        extra = 0
        for _ in range(EXPRESSION_RETRIES):
            extra += EXPRESSION_EXTRA_DIGITS + digits // 2
            dps = working_dps(digits + lost) + extra
            with mp.workdps(dps):
                again, lost = compute(Evaluation(act, mean, std, digits + lost, dps, work))
            with mp.workdps(working_dps(digits + lost) + extra):
                if all(agree(a, b, digits + 2) for a, b in zip(_items(values), _items(again))):
                    return again
            values = again
        raise PrecisionError(f"its values lose too many digits to cancellation to give {digits} digits")
    except Divergent as error:
        what = error.what if isinstance(error.what, str) else name(error.what)
        raise Outcome(
            f"{{activation}} {label!r}: {what} diverges (the integral is infinite) for "
            f"Z ~ N({to_text(mean)}, {to_text(std)}^2); choose an activation with finite moments",
            kind="diverges",
            param="activation",
        ) from None
    except PrecisionError as error:
        if error.param == "activation":
            raise
        raise PrecisionError(f"{{activation}} {label!r}: {error.message}", param="activation") from None


def _label(act: Activation) -> str:
    return act.name if not act.expression else act.formula


# Integrand evaluations the quadrature may take to tell a divergent integral from one that
# only cannot be proven (a work budget, not a time limit: the verdict does not depend on the
# machine).
DIVERGENCE_CHECK_WORK = 10**9


class _CheckTooLong(Exception):
    """No divergence check is needed (a catalog activation)."""


def _certified(act: Activation, mean: Number, std: Number, digits: int, prove, compute):
    """``prove()`` → balls that round to one text at ``digits`` digits (``activation_balls``). Where
    no proof can be made (no growth bound for the tails, a singular point on the path, a
    growth bound not integrable), the quadrature route ``compute`` decides whether the
    integral diverges (InputError, exit 2, as it always has); otherwise PrecisionError
    (exit 3): a value that cannot be proven is not printed."""
    from ..engine.gaussian_balls import NotCertified, UnboundedTail

    if act.expression:
        from ..catalog.expressions import check_defined

        with mp.workdps(working_dps(digits)):
            check_defined(lambda x: act.fn(x, {}), to_mpf(mean), to_mpf(std))
    try:
        return prove()
    except (NotCertified, UnboundedTail) as error:
        try:
            if not act.expression:
                # A catalog activation grows at most polynomially: every Gaussian moment is
                # finite, so there is no divergence to look for (erf --std 1e100000 spent
                # 1.5 s of quadrature here before its exit 3).
                raise _CheckTooLong
            # raises InputError if it diverges; past its work budget (exp(-x**2) at mean 1e309
            # takes mpmath long per node), or where the quadrature cannot settle either
            # (x*log(abs(x)) at 0, an odd integrand that cancels), the verdict is left open:
            # exit 3, not divergent. Without the zeros by symmetry: E[1/X] is odd and diverges.
            _by_quadrature(act._replace(parity=None), mean, std, digits, compute, work=DIVERGENCE_CHECK_WORK)
        except (_CheckTooLong, PrecisionError):
            pass
        raise PrecisionError(
            f"{{activation}} {_label(act)!r}: its moments cannot be proven ({error}); "
            "no unproven digits are printed",
            param="activation",
        ) from None
    except PrecisionError as error:
        if error.param == "activation":
            raise
        raise PrecisionError(f"{{activation}} {_label(act)!r}: {error.message}", param="activation") from None


def _items(values: list[mpmath.mpf] | dict[str, mpmath.mpf]) -> list[mpmath.mpf]:
    return list(values.values()) if isinstance(values, dict) else list(values)


def _inputs(mean: object, std: object, digits: object) -> tuple[Fraction, Fraction, int]:
    mu = as_number(mean, "mean")
    sigma = as_number(std, "std")
    if sigma <= 0:
        raise InputError(param="std", allowed="greater than 0", got=to_text(sigma))
    # Up to MAX_INTERNAL_DIGITS: gau-scale and init ask their own --digits plus guard digits,
    # which must not turn a valid --digits 1000 into an error.
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_INTERNAL_DIGITS:
        raise InputError(
            param="digits", allowed=f"a whole number from 1 to {MAX_INTERNAL_DIGITS}", got=repr(digits)
        )
    return mu, sigma, digits


def _activation(activation: str | Activation, params: Mapping[str, object] | None) -> Activation:
    if isinstance(activation, Activation):
        if params:
            return activation.bind(
                **{**dict(activation.values), **{k: as_number(v, k) for k, v in params.items()}}
            )
        return activation
    if not isinstance(activation, str):
        raise InputError(
            f"{{activation}} must be a catalog name or an expression in x, got {activation!r}",
            param="activation",
            allowed="a catalog name or an expression in x",
            got=repr(activation),
        )
    return resolve(activation.strip(), params)


def _key(params: Mapping[str, object] | None) -> tuple[tuple[str, Number], ...]:
    return tuple(sorted((k, as_number(v, k)) for k, v in (params or {}).items() if v is not None))


def expectations(
    activation: str | Activation,
    monomials: Sequence[Monomial],
    *,
    mean: object = 0,
    std: object = 1,
    digits: int = 15,
    params: Mapping[str, object] | None = None,
) -> list[mpmath.mpf]:
    """E[X^a·φ(X)^b·φ'(X)^c], X ~ N(mean, std²), for each monomial (a, b, c), each proven to
    ``digits`` significant digits: the midpoint (mpf) of an Arb ball whose radius is below
    10^−(digits+3) relative and that rounds to one text at ``digits`` digits
    (``expectation_balls`` gives the balls themselves).

    ``activation`` is a catalog name or alias, an expression in x, or a catalog ``Activation``;
    ``params`` sets its parameters by name (``{"slope": "0.1"}``). ``mean`` and ``std`` may be
    int, Fraction, decimal string, Decimal, float (read as its shortest repr) or mpf (exact).
    Cached for text activations. Raises InputError (bad arguments, unknown names, divergent
    integrals) or PrecisionError (the digits cannot be proven).
    """
    return [
        midpoint(b)
        for b in expectation_balls(activation, monomials, mean=mean, std=std, digits=digits, params=params)
    ]


def expectation_balls(
    activation: str | Activation,
    monomials: Sequence[Monomial],
    *,
    mean: object = 0,
    std: object = 1,
    digits: int = 15,
    params: Mapping[str, object] | None = None,
) -> list[Any]:
    """``expectations`` as Arb balls (python-flint ``arb``): each contains the exact value
    (a rational closed form may sit on a rounding tie: ``moments.exact``)."""
    wanted = checked(monomials)
    mu, sigma, digits = _inputs(mean, std, digits)
    if isinstance(activation, str):
        return list(_cached_expectations(activation.strip(), _key(params), mu, sigma, digits, wanted))
    return _proven_expectations(_activation(activation, params), mu, sigma, digits, wanted)


def _route(act: Activation, digits: int) -> Activation:
    """The activation whose certified route serves ``act``: a catalog entry for an expression
    that is its formula (at high digits), else ``act`` (the parser the twins need is loaded
    for expressions only)."""
    if not act.expression:
        return act
    from ..catalog.expression_twins import catalog_twin

    return catalog_twin(act, digits) or act


def _proven_expectations(
    act: Activation, mean: Fraction, std: Fraction, digits: int, monomials: tuple[Monomial, ...]
) -> list[Any]:
    from .activation_balls import proven_expectations

    route = _route(act, digits)
    return _certified(
        act,
        mean,
        std,
        digits,
        lambda: proven_expectations(route, monomials, mean, std, digits),
        lambda ev: (ev.expectations(monomials), 0),
    )


def _proven_summary(
    act: Activation, mean: Fraction, std: Fraction, digits: int, derivative: bool
) -> dict[str, Any]:
    from .activation_balls import summary_balls

    route = _route(act, digits)
    return _certified(
        act,
        mean,
        std,
        digits,
        lambda: summary_balls(route, mean, std, digits, derivative),
        lambda ev: _summary(ev, derivative),
    )


@functools.lru_cache(maxsize=4096)
def _cached_expectations(
    activation: str,
    params: tuple[tuple[str, Number], ...],
    mean: Fraction,
    std: Fraction,
    digits: int,
    monomials: tuple[Monomial, ...],
) -> tuple[Any, ...]:
    return tuple(_proven_expectations(resolve(activation, dict(params)), mean, std, digits, monomials))


@functools.lru_cache(maxsize=4096)
def _cached_summary(
    activation: str,
    params: tuple[tuple[str, Number], ...],
    mean: Fraction,
    std: Fraction,
    digits: int,
    derivative: bool,
) -> tuple[tuple[str, Any], ...]:
    return tuple(_proven_summary(resolve(activation, dict(params)), mean, std, digits, derivative).items())


def gaussian_moments(
    activation: str | Activation,
    *,
    mean: object = 0,
    std: object = 1,
    digits: int = 15,
    params: Mapping[str, object] | None = None,
    derivative: bool = True,
) -> dict[str, mpmath.mpf]:
    """mean = E[φ(Z)], second_moment = E[φ(Z)²], variance, rms, gain = 1/rms,
    centered_gain = 1/sqrt(variance) and derivative_second_moment = E[φ'(Z)²] for
    Z ~ N(mean, std²), each proven to ``digits`` digits (arguments as ``expectations``;
    ``moment_balls`` gives the Arb balls).

    The variance is computed as E[(φ − c)²] − (mean − c)² (c near the mean) where
    E[φ²] − mean² would cancel. ``derivative=False`` leaves out derivative_second_moment
    (gau-scale needs only E[φ] and E[φ²]).
    """
    return {
        k: midpoint(v)
        for k, v in moment_balls(
            activation, mean=mean, std=std, digits=digits, params=params, derivative=derivative
        ).items()
    }


def moment_balls(
    activation: str | Activation,
    *,
    mean: object = 0,
    std: object = 1,
    digits: int = 15,
    params: Mapping[str, object] | None = None,
    derivative: bool = True,
) -> dict[str, Any]:
    """``gaussian_moments`` as Arb balls: each contains the exact value and rounds to one text
    at ``digits`` digits (its radius is the proven error bound), but for the rational ones
    (``exact_moments``), which may sit on a rounding tie."""
    mu, sigma, digits = _inputs(mean, std, digits)
    if isinstance(activation, str):
        return dict(_cached_summary(activation.strip(), _key(params), mu, sigma, digits, derivative))
    return _proven_summary(_activation(activation, params), mu, sigma, digits, derivative)


def exact_moments(
    activation: str | Activation,
    *,
    mean: object = 0,
    std: object = 1,
    params: Mapping[str, object] | None = None,
) -> dict[str, Fraction]:
    """The ``gaussian_moments`` results that are rational, as Fractions (relu's second moment
    1/2, leaky_relu's (1 + slope²)/2; see ``moments.exact``): round these, not the balls,
    which cannot decide a value on a rounding tie (0.545 at 2 digits)."""
    from .exact import exact_summary

    mu, sigma, _ = _inputs(mean, std, 1)
    act = (
        resolve(activation.strip(), params)
        if isinstance(activation, str)
        else _activation(activation, params)
    )
    return exact_summary(act, mu, sigma)


def midpoint(ball: Any) -> mpmath.mpf:
    """The midpoint of an arb as an mpf, exactly (0 for an exact zero)."""
    mantissa, exponent = (int(v) for v in ball.mid().man_exp())
    if not mantissa:
        return mp.zero
    with mp.workprec(max(53, mantissa.bit_length())):
        return mpmath.ldexp(mpmath.mpf(mantissa), exponent)


def radius(ball: Any) -> mpmath.mpf:
    """The radius of an arb as an mpf, exactly."""
    mantissa, exponent = (int(v) for v in ball.rad().man_exp())
    if not mantissa:
        return mp.zero
    with mp.workprec(max(53, mantissa.bit_length())):
        return mpmath.ldexp(mpmath.mpf(mantissa), exponent)


def moments_by_quadrature(
    act: Activation, *, mean: object = 0, std: object = 1, digits: int = 15
) -> dict[str, mpmath.mpf]:
    """gaussian_moments by mpmath quadrature alone (no Arb, no closed form, no symmetry
    shortcut): the independent route the tests hold the closed forms and the certified
    balls against."""
    mu, sigma, digits = _inputs(mean, std, digits)
    bare = act._replace(closed_forms={}, parity=None)
    return _by_quadrature(bare, mu, sigma, digits, lambda ev: _summary(ev, True))


def expectations_by_quadrature(
    act: Activation, monomials: Sequence[Monomial], *, mean: object = 0, std: object = 1, digits: int = 15
) -> list[mpmath.mpf]:
    """``expectations`` by mpmath quadrature alone (no Arb, no closed form; zeros by symmetry
    kept, so an odd expression's divergent integral reads as 0 here: the certified route
    proves convergence first): the independent route for the certified balls, and
    gau-scale's estimate where they cannot be proven."""
    wanted = checked(monomials)
    mu, sigma, digits = _inputs(mean, std, digits)
    bare = act._replace(closed_forms={})
    return _by_quadrature(bare, mu, sigma, digits, lambda ev: (ev.expectations(wanted), 0))
