"""truncnorm: closed form vs quadrature of the density, properties, and the seeds' numbers."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from momentcalc import truncnorm
from momentcalc.engine.precision import to_decimal
from momentcalc.errors import InputError


def quadrature_route(low, high, mean, std, dps):
    """Independent route: integrate the density of N(0,1) over [low, high] directly.

    The integrands are scaled by exp(c²/2) around the interval's nearest point c so that far
    tails stay representable; the centred second moment integrates (x − m)², which has no
    cancellation.
    """
    with mp.workdps(dps):
        a, b = mpmath.mpf(low), mpmath.mpf(high)
        c = a if a > 0 else (b if b < 0 else mpmath.mpf(0))
        w = lambda x: mpmath.exp(-(x * x - c * c) / 2)
        pts = [a, b] if mpmath.isfinite(a) and mpmath.isfinite(b) else [a, c, b]
        z = mpmath.quad(w, pts)
        m = mpmath.quad(lambda x: x * w(x), pts) / z
        var = mpmath.quad(lambda x: (x - m) ** 2 * w(x), pts) / z
        mass = z * mpmath.exp(-c * c / 2) / mpmath.sqrt(2 * mp.pi)
        return {
            "gamma": var,
            "mean_shift": m,
            "acceptance": mass,
            "mean": mpmath.mpf(mean) + mpmath.mpf(std) * m,
            "std": mpmath.mpf(std) * mpmath.sqrt(var),
        }


CASES = [
    ("-2", "2", "0", "1"),
    ("-1", "3", "0.5", "2"),
    ("30", "31", "0", "1"),
    ("-1000", "-999", "0", "1"),
    ("-100", "-99", "0", "1"),
    ("0", "inf", "0", "1"),
    ("-inf", "-3", "1", "0.1"),
    ("0.25", "0.2500001", "0", "1"),
    ("-2", "2", "0", "0.02"),
]


@pytest.mark.parametrize("low,high,mean,std", CASES)
def test_closed_form_matches_quadrature_to_50_digits(low, high, mean, std):
    result = truncnorm(low=low, high=high, mean=mean, std=std, digits=50)
    reference = quadrature_route(low, high, mean, std, dps=90)
    for name, expected in reference.items():
        assert to_decimal(result.value(name), 50) == to_decimal(expected, 50), name


def test_seed_values():
    r = truncnorm(digits=20)
    assert to_decimal(r.value("gamma"), 8) == "0.77374130"  # seed 000: 0.7737413…
    assert to_decimal(r.value("correction"), 8) == "1.1368472"  # seed 000: 1.1368472…
    # TF/Keras/JAX hard-code .87962566103423978: the double nearest to sqrt(gamma)
    assert float(r.value("std_ratio")) == 0.87962566103423978
    assert to_decimal(r.value("std_ratio"), 17) == "0.87962566103423975"
    bert = truncnorm(std="0.02")
    assert to_decimal(bert.value("std"), 3) == "0.0176"  # seed 001: 0.02/1.1368472 ≈ 0.0176


def test_gamma_closed_form_for_plus_minus_two():
    """Seed 004's ratio of integrals: 1 − 2·sqrt(2)·e^−2 / (sqrt(pi)·erf(sqrt(2)))."""
    with mp.workdps(60):
        expected = 1 - 2 * mpmath.sqrt(2) * mpmath.exp(-2) / (mpmath.sqrt(mp.pi) * mpmath.erf(mpmath.sqrt(2)))
    assert to_decimal(truncnorm(digits=50).value("gamma"), 50) == to_decimal(expected, 50)


def test_inputs_are_exact_decimals():
    """--std 0.02 is 1/50, so the 30-digit std is the digits of sqrt(gamma)/50."""
    r = truncnorm(std="0.02", digits=30)
    with mp.workdps(60):
        gamma = truncnorm(digits=45).value("gamma")
        expected = mpmath.sqrt(gamma) / 50
    assert to_decimal(r.value("std"), 30) == to_decimal(expected, 30)
    assert r.inputs["std"] == Fraction(1, 50)


def test_target_std():
    r = truncnorm(target_std="0.02", digits=25)
    with mp.workdps(50):
        expected = mpmath.mpf(1) / 50 / mpmath.sqrt(truncnorm(digits=40).value("gamma"))
    assert to_decimal(r.value("std_to_pass"), 25) == to_decimal(expected, 25)


def test_global_precision_untouched():
    before = mp.dps
    truncnorm(low="-1000", high="-999", digits=200)
    assert mp.dps == before


def test_far_tail_is_exact_where_double_precision_fails():
    """At [-1000, -999] gamma ≈ 1/a²-ish; scipy is off by 22x here, momentcalc to every digit."""
    r = truncnorm(low="-1000", high="-999", digits=30)
    reference = quadrature_route("-1000", "-999", "0", "1", dps=80)
    assert to_decimal(r.value("gamma"), 30) == to_decimal(reference["gamma"], 30)
    assert to_decimal(r.value("acceptance"), 30) == to_decimal(reference["acceptance"], 30)
    assert "e-" in to_decimal(r.value("acceptance"), 30)  # ~1e-216,700: no underflow


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(low=3, high=2), "^low must be less than high"),
        (dict(low=2, high=2), "^low must be less than high"),
        (dict(std=0), "^std must be greater than 0"),
        (dict(std=-1), "^std must be greater than 0"),
        (dict(target_std=0), "^target_std must be greater than 0"),
        (dict(low=float("nan")), "^low"),
        (dict(low="abc"), "^low must be a decimal number or inf"),
        (dict(mean="inf"), "^mean must be a finite number"),
        (dict(digits=0), "^digits must be a whole number from 1 to 1000"),
        (dict(digits=1001), "^digits must be a whole number from 1 to 1000"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        truncnorm(**kwargs)


finite = st.decimals(min_value=-40, max_value=40, places=3, allow_nan=False, allow_infinity=False)


@settings(max_examples=20, deadline=None)  # 40 cost 0.4 s of CPU more
@given(a=finite, b=finite)
def test_gamma_between_zero_and_one(a, b):
    if a == b:
        return
    low, high = sorted((a, b))
    gamma = truncnorm(low=str(low), high=str(high), digits=12).value("gamma")
    assert 0 < gamma <= 1
    if max(abs(low), abs(high)) < 5:  # 1 − gamma is then far above the working precision
        assert gamma < 1


@settings(max_examples=30, deadline=None)
@given(c=st.decimals(min_value="0.001", max_value=30, places=3))
def test_symmetric_bounds_have_no_mean_shift(c):
    assert truncnorm(low=str(-c), high=str(c), digits=12).value("mean_shift") == 0


@settings(max_examples=30, deadline=None)
@given(a=finite, w=st.decimals(min_value="0.001", max_value=10, places=3))
def test_mirrored_bounds_same_gamma_opposite_shift(a, w):
    low, high = a, a + w
    r = truncnorm(low=str(low), high=str(high), digits=15)
    m = truncnorm(low=str(-high), high=str(-low), digits=15)
    assert to_decimal(r.value("gamma"), 15) == to_decimal(m.value("gamma"), 15)
    shift, mirrored = to_decimal(r.value("mean_shift"), 15), to_decimal(m.value("mean_shift"), 15)
    assert shift == ("0" if mirrored == "0" else mirrored[1:] if mirrored[0] == "-" else "-" + mirrored)


@settings(max_examples=30, deadline=None)
@given(a=finite, w=st.decimals(min_value="1e-9", max_value="1e-6", places=12))
def test_tiny_interval_is_nearly_uniform(a, w):
    """Var of a tiny interval → width²/12 (relative error O(width·|a| + width²))."""
    gamma = truncnorm(low=str(a), high=str(a + w), digits=15).value("gamma")
    uniform = mpmath.mpf(str(w)) ** 2 / 12
    assert abs(gamma / uniform - 1) < 1e-4 * (1 + abs(float(a)))


def test_gamma_tends_to_one_as_bounds_widen():
    # 1 − gamma(32) is about 1e-222: 250 digits tell the last two apart.
    gammas = [truncnorm(low=-c, high=c, digits=250).value("gamma") for c in (2, 4, 8, 16, 32)]
    assert all(x < y for x, y in zip(gammas, gammas[1:]))
    assert 1 - gammas[-1] < mpmath.mpf(10) ** -200
    assert truncnorm(low="-inf", high="inf").value("gamma") == 1


def test_one_sided():
    """Half-normal: Var = 1 − 2/pi, mean sqrt(2/pi)."""
    r = truncnorm(low=0, high="inf", digits=40)
    with mp.workdps(60):
        assert to_decimal(r.value("gamma"), 40) == to_decimal(1 - 2 / mp.pi, 40)
        assert to_decimal(r.value("mean_shift"), 40) == to_decimal(mpmath.sqrt(2 / mp.pi), 40)


@pytest.mark.xdist_group("truncnorm-derive")  # sympy integrates the truncated density once per process
@pytest.mark.slow
def test_derive_gives_seed_closed_form():
    r = truncnorm(derive=True)
    assert r["gamma"].closed_form == "-2*sqrt(2)*exp(-2)/(sqrt(pi)*erf(sqrt(2))) + 1"
    assert "erf" in r["gamma"].latex
    # the closed form evaluates to the numeric value (two routes)
    import sympy

    value = sympy.N(sympy.sympify(r["gamma"].closed_form), 40)
    with mp.workdps(40):
        value = mpmath.mpf(str(value))
    assert to_decimal(value, 30) == to_decimal(truncnorm(digits=30).value("gamma"), 30)


def test_interval_narrower_than_working_precision():
    """[0.1, 0.1 + 1e-31] collapses at 25 digits; the precision is raised, not divided by zero."""
    r = truncnorm(low="0.1", high="0.1000000000000000000000000000001", digits=15)
    assert to_decimal(r.value("gamma"), 15) == "8.33333333333333e-64"  # width²/12
    assert to_decimal(r.value("mean_shift"), 15) == "0.100000000000000"


@pytest.mark.slow
def test_unreachable_precision_is_exit_3():
    from momentcalc.errors import PrecisionError

    with pytest.raises(PrecisionError, match="could not reach 5 correct digits"):
        truncnorm(low="1e-20000", high="2e-20000", digits=5)


@pytest.mark.slow
def test_beyond_mpmath_erfc_range():
    """Q(x) for x > 1e100 comes from the asymptotic series (mpmath's erfc overflows a double
    there); at 400 digits it agrees with erfc where both work."""
    from momentcalc.engine.normal import upper_tail

    with mp.workdps(400):
        x = mpmath.mpf("3e100")
        assert abs(upper_tail(x) / (mpmath.erfc(x / mpmath.sqrt(2)) / 2) - 1) < mpmath.mpf(10) ** -150
    r = truncnorm(low="1e200", high="2e200", digits=10)  # would overflow inside erfc
    assert to_decimal(r.value("mean_shift"), 10) == "1.000000000e+200"


@pytest.mark.parametrize(
    ("low", "high"), [(-2, 2), (30, 31), (-1000, -999), ("-inf", "0.5"), ("1.5", "inf"), ("0.1", "0.1000001")]
)
def test_certified_balls_against_the_mpmath_route_at_50_digits(low, high):
    """The Arb route (engine/normal_balls) against the mpmath route (engine/normal, ``stable``)."""
    from momentcalc.engine import normal
    from momentcalc.engine.precision import stable

    lo, hi = (
        mpmath.mpf(str(x)) if not isinstance(x, str) or "inf" not in x else mpmath.mpf(x) for x in (low, high)
    )
    result = truncnorm(low=str(low), high=str(high), digits=50)
    values = stable(
        lambda: dict(
            zip(
                ("acceptance", "mean_shift", "gamma"),
                normal.truncated_moments(
                    mpmath.mpf(str(low)) if "inf" not in str(low) else mpmath.mpf(low),
                    mpmath.mpf(str(high)) if "inf" not in str(high) else mpmath.mpf(high),
                ),
            )
        ),
        50,
    )
    assert lo < hi
    for name, value in values.items():
        quantity = result[name]
        assert to_decimal(quantity.rounded_from, 50) == to_decimal(value, 50), name
        assert quantity.certified
        # The radius is honest: the mpmath value (correct to far more than 50 digits) is inside.
        with mp.workdps(120):
            assert abs(quantity.value - value) <= quantity.error_bound + abs(value) * mpmath.mpf(10) ** -55, (
                name
            )


def test_far_tail_against_an_independent_high_precision_computation():
    """truncnorm --low 30 --high 31: acceptance by mpmath's quadrature of the density at 80
    digits (no erfc), gamma from the integrals of x·φ and x²·φ."""
    r = truncnorm(low=30, high=31, digits=30)
    with mp.workdps(80):
        # x = 30 + t: φ(x) = e^(−450)/sqrt(2π)·g(t) with g(t) = e^(−30t − t²/2), well scaled for quad.
        g = lambda t: mpmath.exp(-30 * t - t * t / 2)
        points = mpmath.linspace(0, 1, 21)
        scale = mpmath.exp(-450) / mpmath.sqrt(2 * mp.pi)
        mass = mpmath.quad(g, points)
        z = scale * mass
        m1 = mpmath.quad(lambda t: (30 + t) * g(t), points) / mass
        m2 = mpmath.quad(lambda t: (30 + t) ** 2 * g(t), points) / mass
        assert to_decimal(r.value("acceptance"), 30) == to_decimal(z, 30)
        assert to_decimal(r.value("mean_shift"), 30) == to_decimal(m1, 30)
        assert to_decimal(r.value("gamma"), 30) == to_decimal(m2 - m1 * m1, 30)
        assert r["gamma"].certified and r["gamma"].error_bound < mpmath.mpf(10) ** -33


def test_symmetric_interval_mean_is_exact():
    r = truncnorm(low=-2, high=2, mean="0.25", digits=1)
    assert r["mean"].certified and r["mean"].error_bound == 0
    assert to_decimal(r["mean"].rounded_from, 1) == "0.3"  # an exact tie, away from zero
