"""``activation-moment``: moments of φ(Z), Z ~ N(mean, std²), for a catalog activation or an
expression in x.

    mean          = E[φ(Z)]              (swish: seed 003's μ = 0.2066…)
    second_moment = E[φ(Z)²]             (sigmoid: seed 000's 0.2933790…; swish: ν² = 0.3557…)
    variance      = E[(φ(Z) − mean)²]
    rms           = sqrt(second_moment);  gain = 1/rms     (relu: sqrt 2, He init, seed 002)
    centered_gain = 1/sqrt(variance)
    derivative_second_moment = E[φ'(Z)²]

Under N(0, 1) the catalog's closed forms are used where they exist (relu, leaky_relu, relu2,
elu, selu, gelu, erf, identity); an odd φ has mean exactly 0 when mean = 0; everything else is
Gaussian quadrature split at the kinks (``engine.gaussian``), with its error checked against
the requested digits. Expressions are evaluated at two precisions and must agree.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import mpmath
from mpmath import mp

from ..catalog import Activation, resolve
from ..engine.gaussian import DivergentIntegral, gaussian_edge, gaussian_expectations
from ..engine.numbers import Number, as_number, to_mpf, to_text
from ..engine.precision import agree, working_dps
from ..errors import InputError, PrecisionError
from ..result import Computation, Listing, Quantity
from .common import check_digits, positive

RESULTS = ("mean", "second_moment", "variance", "rms", "gain", "centered_gain", "derivative_second_moment")
DESCRIPTIONS = {
    "mean": "E[φ(Z)], Z ~ N(mean, std^2)",
    "second_moment": "E[φ(Z)^2]",
    "variance": "second_moment - mean^2",
    "rms": "sqrt(second_moment)",
    "gain": "1 / rms: gain·φ keeps a unit second moment (exact calculate_gain)",
    "centered_gain": "1 / sqrt(variance): (φ - mean)·centered_gain has variance 1",
    "derivative_second_moment": "E[φ'(Z)^2]: per-layer scaling of a gradient's second moment",
}
# Kinks and singular points of expressions are searched for within mean ± this many
# Gaussian edges (beyond, the density is below 10^-(dps+5)).
BREAK_REACH = 1
# Above this std, the points where a catalog activation turns steeply are split at too.
STEEP_STD = 2
# Closed forms found by sympy (--derive) must match the quadrature to this many digits.
DERIVE_CHECK_DIGITS = 20
# Expressions: extra digits of the second evaluation, and how many times to raise them.
EXPRESSION_EXTRA_DIGITS = 12
EXPRESSION_RETRIES = 3
_MOMENT_NAMES = ("mean", "second_moment", "derivative_second_moment")


def _quadrature(act: Activation, mean: Number, std: Number, digits: int, dps: int,
                names: tuple[str, ...] = _MOMENT_NAMES) -> tuple[dict[str, mpmath.mpf], int]:
    """All results at working precision ``dps`` (closed forms where known, else quadrature),
    and the number of digits the variance lost to cancellation (0 if it lost none)."""
    with mp.workdps(dps):
        fn, derivative = act.fn, act.derivative
        # The quadrature may raise the precision where a sum cancels: parameters and break
        # points are then recomputed at that precision.
        params_at: dict[int, dict[str, mpmath.mpf]] = {}

        def current_params() -> dict[str, mpmath.mpf]:
            if mp.prec not in params_at:
                params_at[mp.prec] = act.param_values()
            return params_at[mp.prec]

        def values(x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
            p = current_params()
            if act.pair is not None:
                return act.pair(x, p)
            return fn(x, p), derivative(x, p)

        params = current_params()

        known: dict[str, mpmath.mpf] = {}
        if mean == 0 and std == 1:
            known = {name: form.value(params) for name, form in act.closed_forms.items()}
        if act.parity == "odd" and mean == 0:
            known["mean"] = mp.zero
        if act.expression:
            from ..catalog.expressions import check_defined

            check_defined(lambda x: fn(x, params), to_mpf(mean), to_mpf(std))
        wanted = [name for name in names if name not in known]
        steep = tuple(act.steep) if std > STEEP_STD else ()

        def breaks() -> tuple[mpmath.mpf, ...]:
            mu, sigma = to_mpf(mean), to_mpf(std)
            found = act.breaks(current_params(), mu, sigma, BREAK_REACH * gaussian_edge(mp.dps))
            return found + tuple(mpmath.mpf(b) for b in steep)

        def integrate(integrand: Callable[[mpmath.mpf], tuple[mpmath.mpf, ...]], count: int) -> list[mpmath.mpf]:
            try:
                return gaussian_expectations(integrand, count, mean=mean, std=std, breaks=breaks,
                                             digits=digits, dps=mp.dps)
            except DivergentIntegral as error:
                raise _Divergent(error.index) from None

        if wanted:
            if len(wanted) == 3:  # the common case, without the generic dispatch
                def integrand(x: mpmath.mpf) -> tuple[mpmath.mpf, ...]:
                    f, d = values(x)
                    return f, f * f, d * d
            else:
                pick = {
                    "mean": lambda f, d: f,
                    "second_moment": lambda f, d: f * f,
                    "derivative_second_moment": lambda f, d: d * d,
                }
                chosen = [pick[name] for name in wanted]

                def integrand(x: mpmath.mpf) -> tuple[mpmath.mpf, ...]:
                    pair = values(x)
                    return tuple(g(*pair) for g in chosen)
            try:
                sums = integrate(integrand, len(wanted))
            except _Divergent as error:
                raise _Divergent(wanted[error.result]) from None
            known.update(zip(wanted, sums))
        m, m2 = known["mean"], known["second_moment"]
        lost = 0
        if m2 == 0:
            variance = mp.zero
        elif m * m <= m2 * 9 / 10:
            variance = m2 - m * m  # loses at most one digit
        else:
            # φ is nearly constant: E[(φ − m)²] directly. Its digits rest on m and on each
            # φ(x) − m, which lose log10(m²/variance) digits: the caller redoes the whole
            # computation with that many more.
            try:
                variance = integrate(lambda x: ((values(x)[0] - m) ** 2,), 1)[0]
            except _Divergent:
                raise _Divergent("variance") from None
            ratio = m2 / variance if variance > 0 else mpmath.mpf(10) ** mp.dps
            lost = max(1, int(mpmath.ceil(mpmath.log10(ratio))))
        rms = mpmath.sqrt(m2)
        return {
            "mean": m,
            "second_moment": m2,
            "variance": variance,
            "rms": rms,
            "gain": 1 / rms if rms else mpmath.inf,
            "centered_gain": 1 / mpmath.sqrt(variance) if variance else mpmath.inf,
            **({"derivative_second_moment": known["derivative_second_moment"]} if "derivative_second_moment" in names else {}),
        }, lost


class _Divergent(Exception):
    def __init__(self, result: object) -> None:
        super().__init__(result)
        self.result = result


def _moments(act: Activation, mean: Number, std: Number, digits: int,
             names: tuple[str, ...] = _MOMENT_NAMES) -> dict[str, mpmath.mpf]:
    label = act.name if not act.expression else act.formula
    try:
        values, lost = _quadrature(act, mean, std, digits, working_dps(digits), names)
        if not act.expression and not lost:
            return values
        # A user expression may cancel internally, and a variance that cancels needs its mean
        # and its φ(x) − mean to more digits: evaluate again with more digits until two
        # evaluations agree.
        extra = 0
        for _ in range(EXPRESSION_RETRIES):
            extra += EXPRESSION_EXTRA_DIGITS + digits // 2
            again, lost = _quadrature(act, mean, std, digits + lost, working_dps(digits + lost) + extra, names)
            with mp.workdps(working_dps(digits + lost) + extra):
                if all(agree(values[k], again[k], digits + 2) for k in values):
                    return again
            values = again
        raise PrecisionError(
            f"its values lose too many digits to cancellation to give {digits} digits"
        )
    except _Divergent as error:
        raise InputError(
            f"ACTIVATION {label!r}: {error.result} diverges (the integral is infinite) for "
            f"Z ~ N({to_text(mean)}, {to_text(std)}^2); choose an activation with finite moments"
        ) from None
    except PrecisionError as error:
        if error.message.startswith("ACTIVATION"):
            raise
        raise PrecisionError(f"ACTIVATION {label!r}: {error.message}") from None


def moments_by_quadrature(act: Activation, *, mean: object = 0, std: object = 1, digits: int = 15) -> dict[str, mpmath.mpf]:
    """The results by quadrature alone (no closed form, no parity shortcut): the independent
    route the tests hold the closed forms against."""
    bare = act._replace(closed_forms={}, parity=None)
    return _moments(bare, as_number(mean, "--mean"), positive(std, "--std"), check_digits(digits))


@functools.lru_cache(maxsize=4096)
def _cached(activation: str, slope: Number | None, mean: Number, std: Number, digits: int,
            names: tuple[str, ...] = _MOMENT_NAMES) -> tuple[tuple[str, mpmath.mpf], ...]:
    act = resolve(activation, slope)
    return tuple(_moments(act, mean, std, digits, names).items())


def _normalised(activation: object, mean: object, std: object, slope: object, digits: object
                ) -> tuple[str, Number | None, Number, Number, int]:
    if not isinstance(activation, str):
        raise InputError(f"ACTIVATION must be a catalog name or an expression in x, got {activation!r}")
    return (
        activation.strip(),
        None if slope is None else as_number(slope, "--slope"),
        as_number(mean, "--mean"),
        positive(std, "--std"),
        check_digits(digits),
    )


def gaussian_moments(
    activation: str, *, mean: object = 0, std: object = 1, slope: object = None, digits: int = 15,
    derivative: bool = True,
) -> dict[str, mpmath.mpf]:
    """Every result of ``activation-moment`` as mpf, each correct to ``digits`` digits.

    ``activation`` is a catalog name, an alias or an expression in x. Cached per
    (activation, slope, mean, std, digits). Raises InputError for unknown names, bad or
    divergent expressions and --slope on an activation without it; PrecisionError when the
    digits cannot be reached. ``derivative=False`` leaves out derivative_second_moment,
    whose integrand sets the pace of the quadrature (gau-scale needs only E[φ] and E[φ²]).

    >>> gaussian_moments("relu")["second_moment"]
    mpf('0.5')
    """
    names = _MOMENT_NAMES if derivative else _MOMENT_NAMES[:2]
    return dict(_cached(*_normalised(activation, mean, std, slope, digits), names))


def activation_moment(
    activation: str,
    *,
    mean: object = 0,
    std: object = 1,
    slope: object = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Moments and gains of φ(Z), Z ~ N(mean, std²), every result correct to ``digits`` digits.

    >>> activation_moment("relu").value("second_moment") == 0.5  # He init's 1/2
    True
    """
    name, slope_n, mu, sigma, digits = _normalised(activation, mean, std, slope, digits)
    act = resolve(name, slope_n)
    values = dict(_cached(name, slope_n, mu, sigma, digits))
    inputs: dict[str, object] = {"activation": act.name if not act.expression else name,
                                 "mean": mu, "std": sigma}
    inputs.update(dict(act.values))
    closed: dict[str, tuple[str | None, str | None]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.activation import derive as derive_forms

        # Closed forms sympy finds are checked against the quadrature to at least 20 digits.
        check_digits_ = max(digits, DERIVE_CHECK_DIGITS)
        reference = values if digits >= DERIVE_CHECK_DIGITS else dict(_cached(name, slope_n, mu, sigma, check_digits_))
        closed, derivation = derive_forms(act, mu, sigma, reference, check_digits_)
    results = tuple(
        Quantity(key, values[key], DESCRIPTIONS[key], *closed.get(key, (None, None))) for key in RESULTS
    )
    notes = ()
    if act.expression:
        notes = (f"phi(x) = {act.formula}",)
    return Computation("activation-moment", inputs, digits, results, notes=notes, derivation=derivation)


__all__ = ["activation_moment", "gaussian_moments", "moments_by_quadrature", "RESULTS", "DESCRIPTIONS"]


def catalog_listing() -> Listing:
    """``momentcalc activations``: the catalog with its formulas and closed forms under N(0, 1)."""
    from ..catalog import CATALOG

    with mp.workdps(20):
        rows = tuple(
            {
                "name": entry.name,
                "aliases": list(entry.aliases),
                "formula": entry.formula,
                "parameters": {p.name: float(p.default) for p in entry.params},
                "kinks": [float(k) for k in entry.kinks(entry.param_values())],
                "parity": entry.parity,
                "closed_form": {name: form.text for name, form in entry.closed_forms.items()},
            }
            for entry in CATALOG
        )
    return Listing(
        "activations", ("name", "aliases", "formula", "closed_form"), rows,
        title="activation catalog: momentcalc activation-moment NAME (or any expression in x)",
    )
