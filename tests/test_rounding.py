"""One rounding rule for every printed decimal: correctly rounded, half away from zero.

The second route is Python's ``decimal`` module rounding the exact value (an mpf is m·2^e,
written out exactly as a Decimal with enough precision) with ROUND_HALF_UP.
"""

from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc.engine.precision import to_decimal
from momentcalc.engine.rounding import ball_text, decide, decimal_text
from momentcalc.errors import PrecisionError

_HUGE = {"Emin": -(10**9), "Emax": 10**9}


def exact_decimal(value: mpmath.mpf) -> Decimal:
    sign, mantissa, exponent, _ = value._mpf_
    mantissa, exponent = int(mantissa), int(exponent)  # gmpy2's mpz where installed
    exact = Context(prec=10**6, **_HUGE)
    x = (
        exact.multiply(Decimal(mantissa), exact.power(Decimal(2), exponent))
        if exponent < 0
        else Decimal(mantissa << exponent)
    )
    return x.copy_negate() if sign else x


def reference(value: mpmath.mpf | Fraction, digits: int) -> Decimal:
    """The exact value rounded half away from zero by the decimal module (a value, not text)."""
    if isinstance(value, Fraction):
        exact = Context(prec=digits + 60, **_HUGE)
        # Long enough that a tie or near-tie of the quotient is seen as one (the tests' values
        # have short expansions or are far from ties).
        x = exact.divide(Decimal(value.numerator), Decimal(value.denominator))
    else:
        x = exact_decimal(value)
    return Context(prec=digits, rounding=ROUND_HALF_UP, **_HUGE).plus(x)


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        # The audit's exact ties: all go up in magnitude.
        (Fraction(1, 4), 1, "0.3"),
        (Fraction(1, 8), 2, "0.13"),
        (Fraction(95, 100), 1, "1"),
        (Fraction(995, 1000), 2, "1.0"),
        (Fraction(-95, 100), 1, "-1"),
        (Fraction(-1, 4), 1, "-0.3"),
        (Fraction(5, 2), 1, "3"),
        (Fraction(15, 10**1006), 1, "2e-1005"),
        (Fraction(15 * 10**999), 1, "2e+1000"),
        # Ties of the binary values themselves (exact in an mpf).
        (mpmath.mpf(0.25), 1, "0.3"),
        (mpmath.mpf(0.125), 2, "0.13"),
        (mpmath.mpf(-0.375), 2, "-0.38"),
        (mpmath.ldexp(1, -22), 15, "2.38418579101563e-7"),  # 2.384185791015625e-7
        # The format: trailing zeros kept, no bare point, scientific outside −4 < a < digits.
        (Fraction(1), 15, "1.00000000000000"),
        (Fraction(69), 2, "69"),
        (Fraction(123456), 3, "1.23e+5"),
        (Fraction(7, 10**7), 1, "7e-7"),
        (Fraction(12, 10**4), 2, "0.0012"),
        (Fraction(12, 10**5), 2, "1.2e-4"),
        (Fraction(12, 10**6), 2, "1.2e-5"),
        (Fraction(0), 5, "0"),
        (Fraction(99999, 10**5), 4, "1.000"),
    ],
)
def test_ties_go_away_from_zero_and_format_is_kept(value, digits, text):
    assert decimal_text(value, digits) == text
    assert to_decimal(value, digits) == text


def test_exact_binary_ties():
    with mp.workprec(200):
        assert to_decimal(mpmath.mpf(95), 1) == "1e+2"
        assert to_decimal(mpmath.mpf(995), 2) == "1.0e+3"
        assert to_decimal(mpmath.mpf(-9995), 3) == "-1.00e+4"
        assert to_decimal(mpmath.mpf(125) / 1000, 2) == "0.13"  # 0.125 is binary


def test_old_nstr_path_fails_here():
    """A value 4·10^−14 units in the last place above a tie at 50 digits: mpmath.nstr (the old
    to_decimal) rounds a binary copy cut to about 186 bits and gets ...437; the exact value
    rounds to ...438. This test fails with the old to_decimal."""
    with mp.workdps(60):
        value = mpmath.mpf("-6.06259904395608284488616845919750630855560302734375000000000004e-23")
    text = to_decimal(value, 50)
    assert text == "-6.0625990439560828448861684591975063085556030273438e-23"
    assert Decimal(text) == reference(value, 50)


# (tie, digits, rounded down, rounded up): 5 in the place just after the last digit.
TIES = [
    (Fraction(25, 100), 1, "0.2", "0.3"),
    (Fraction(95, 100), 1, "0.9", "1"),
    (Fraction(995, 1000), 2, "0.99", "1.0"),
    (Fraction(125, 1000), 2, "0.12", "0.13"),
    (Fraction(2384185791015625, 10**22), 15, "2.38418579101562e-7", "2.38418579101563e-7"),
    (Fraction(10**50 + 5, 10**50), 50, "1." + "0" * 49, "1." + "0" * 48 + "1"),
]


@pytest.mark.parametrize(("tie", "digits", "down", "up"), TIES)
def test_exact_ties_and_near_ties_a_millionth_of_a_unit_away(tie, digits, down, up):
    unit = 2 * abs(tie - Fraction(down))  # one unit in the last place
    assert decimal_text(tie, digits) == up
    assert decimal_text(-tie, digits) == "-" + up
    for side, text in ((-1, down), (1, up)):
        near = tie + side * unit / 10**6
        assert decimal_text(near, digits) == text
        with mp.workdps(digits + 30):
            binary = mpmath.mpf(near.numerator) / near.denominator  # 10^−23 units from near
        assert to_decimal(binary, digits) == text
        assert Decimal(text) == reference(near, digits)


@pytest.mark.slow
def test_random_values_against_the_decimal_module():
    rng = random.Random(2024)
    # 1000 draws: each of the 84 combinations of digits, working precision, exponent range and
    # sign about 12 times (3000 took 1 s of CPU).
    for _ in range(1000):
        digits = rng.choice([1, 2, 3, 15, 16, 30, 50])
        exponent = rng.randint(-40, 40) if rng.random() < 0.7 else rng.randint(-3000, 3000)
        with mp.workdps(digits + rng.choice([0, 5, 10])):
            value = mpmath.mpf(rng.random()) * mpmath.mpf(10) ** exponent * rng.choice([1, -1])
        assert Decimal(to_decimal(value, digits)) == reference(value, digits), (value, digits)


def test_huge_and_tiny_exponents():
    with mp.workdps(30):
        tiny = mpmath.ldexp(mpmath.mpf(3), -500000)
        huge = mpmath.ldexp(mpmath.mpf(3), 500000)
    assert to_decimal(tiny, 15) == "3.01501352116077e-150515"
    assert to_decimal(huge, 15) == "2.98506123996917e+150515"
    assert Decimal(to_decimal(tiny, 15)) == reference(tiny, 15)
    with mp.workdps(1010):
        small = mpmath.exp(-mpmath.mpf(3465))
    text = to_decimal(small, 1000)
    assert text.endswith("e-1505") and len(text.split("e")[0].replace(".", "")) == 1000
    assert Decimal(text) == reference(small, 1000)
    # An exact binary tie far out: 1.5·10^1000 is an integer, so an mpf holds it exactly.
    with mp.workprec(4000):
        assert to_decimal(mpmath.mpf(15 * 10**999), 1) == "2e+1000"
        assert to_decimal(mpmath.mpf(15 * 10**999 - 1), 1) == "1e+1000"


def test_special_values():
    assert to_decimal(mpmath.mpf(0), 5) == "0"
    assert to_decimal(mpmath.inf, 5) == "inf"
    assert to_decimal(-mpmath.inf, 5) == "-inf"
    assert to_decimal(mpmath.nan, 5) == "nan"


def test_balls_round_only_when_both_ends_agree():
    from flint import arb

    assert ball_text(arb(1) / 3, 15) == "0.333333333333333"
    assert ball_text(arb("0.26 +/- 1e-3"), 1) == "0.3"
    assert ball_text(arb("0.25 +/- 1e-30"), 1) is None  # holds the tie
    assert ball_text(arb("0.26 +/- 0.1"), 1) is None
    assert ball_text(arb(0), 3) == "0"
    assert ball_text(arb(1) / 4, 1) == "0.3"  # an exact ball is an exact value
    assert ball_text(mpmath.mpf(1) / 3, 10, mpmath.mpf(1e-12)) == "0.3333333333"
    assert ball_text(mpmath.mpf(1) / 3, 10, mpmath.mpf(1e-9)) is None


def test_balls_with_astronomically_small_radii_round_without_huge_integers():
    """Arb gives radii like 2^-(10^600) (a normal's tail at 1e300); ball_text must not shift
    integers by that many bits, and a widened radius must not decide a tie it holds."""
    from flint import arb

    tiny = arb(1) * arb(2) ** -(10**9)  # far below any midpoint's last bit
    assert ball_text(arb(1) / 3 + arb(0, tiny.mid()), 15) == "0.333333333333333"
    assert ball_text(arb(1) / 4 + arb(0, tiny.mid()), 1) is None  # still holds the tie 0.25
    assert ball_text(arb(0, tiny.mid()), 3) is None  # a ball around 0: no significant digit
    assert ball_text(arb(1, 3), 3) is None  # radius above the midpoint: straddles 0


def test_truncnorm_with_bounds_at_1e300_is_the_normal(cli):
    run = cli("truncnorm", "--low", "-1e300", "--high", "1e300", "--get", "gamma")
    assert (run.code, run.stdout, run.stderr) == (0, "1.00000000000000\n", "")


def test_decide_raises_precision_until_the_ball_rounds():
    from flint import arb, ctx

    calls = []

    def third(bits: int):
        calls.append(bits)
        old = ctx.prec
        ctx.prec = bits
        try:
            return arb(1) / 3
        finally:
            ctx.prec = old

    _ball, text = decide(third, 100, start_bits=64, max_bits=4096)
    assert text == "0." + "3" * 100 and calls[0] == 64 and len(calls) > 1
    with pytest.raises(PrecisionError):
        decide(lambda bits: arb("0.25 +/- 1e-40"), 1, start_bits=64, max_bits=256, what="x")


@pytest.mark.parametrize("exponent", [-(10**40), 10**40, -3 * 10**15, 7 * 10**12])
def test_exponents_beyond_a_double(exponent):
    """Binary exponents far beyond a double's (truncnorm --low 1e20: a mass of 10^(-2e39))
    round promptly; mpmath's nstr is the second route (no tie can be this close)."""
    with mp.workdps(40):
        value = mpmath.ldexp(mpmath.mpf(3) / 7, exponent)
        expected = mpmath.nstr(value, 15, strip_zeros=False, min_fixed=-4, max_fixed=15)
    assert to_decimal(value, 15) == expected
    assert to_decimal(-value, 15) == "-" + expected


def test_bound_text_is_never_below_the_bound_and_never_underflows():
    import mpmath

    from momentcalc.engine.rounding import bound_text

    assert bound_text(mpmath.ldexp(1, -2000)) == "8.8e-603"  # 2^-2000 = 8.709…e-603, rounded up
    assert bound_text(Fraction(1, 3)) == "0.34" and bound_text(Fraction(1, 4)) == "0.25"
    assert bound_text(0) == "0"
    assert bound_text(mpmath.ldexp(1, -(10**6))) in ("1e-301029", "1e-301028")  # 2^-10^6 = 1.01e-301030
    for k in range(-3000, 3000, 37):
        for mantissa in (1, 3, 999, 2**60 - 1):
            bound = mpmath.ldexp(mantissa, k)
            text = bound_text(bound)
            assert Fraction(text) >= Fraction(mantissa) * Fraction(2) ** k
            assert Fraction(text) <= Fraction(mantissa) * Fraction(2) ** k * Fraction(
                11, 10
            )  # at most a unit above


def test_json_error_bound_decimal_of_a_tiny_value():
    import json

    from tests.cli_runner import run

    _code, out, _ = run(
        ["activation-moment", "sigmoid", "--mean", "-800", "--json", "--get", "mean"][:5] + ["--json"]
    )
    mean = json.loads(out)["results"]["mean"]
    assert mean["error_bound"] == 5e-324  # the double rounded up: above the value itself
    assert Fraction(mean["error_bound_decimal"]) < Fraction(mean["decimal"]) / 10**14


def test_directed_text_against_the_decimal_module():
    """A bound's text: the exact value rounded towards +inf (up) or -inf (down), as Python's
    decimal module rounds it with ROUND_CEILING / ROUND_FLOOR, over random values of both signs."""
    from decimal import ROUND_CEILING, ROUND_FLOOR

    from momentcalc.engine.rounding import directed_text

    rng = random.Random(35)
    for _ in range(400):
        digits = rng.choice([1, 2, 3, 7, 15, 30])
        value = Fraction(rng.randint(-(10**12), 10**12), rng.randint(1, 10**9)) * Fraction(10) ** rng.randint(
            -20, 20
        )
        if rng.random() < 0.3:  # an exact decimal at these digits: nothing to round either way
            value = Fraction(rng.randint(10 ** (digits - 1), 10**digits - 1), 10 ** rng.randint(0, 5))
        if value == 0:
            continue
        exact = Context(prec=digits + 80, **_HUGE).divide(
            Decimal(value.numerator), Decimal(value.denominator)
        )
        for up, mode in ((True, ROUND_CEILING), (False, ROUND_FLOOR)):
            want = Context(prec=digits, rounding=mode, **_HUGE).plus(exact)
            got = directed_text(value, digits, up)
            assert Decimal(got) == want, (value, digits, up, got, want)
            assert (Fraction(got) >= value) if up else (Fraction(got) <= value)


def test_directed_ball_text_only_when_both_ends_agree():
    from momentcalc.engine.rounding import directed_ball_text

    one_third = mpmath.mpf(1) / 3
    assert directed_ball_text(one_third, 3, True, mpmath.mpf(2) ** -60) == "0.334"
    assert directed_ball_text(one_third, 3, False, mpmath.mpf(2) ** -60) == "0.333"
    # a ball that holds 0.334 rounds up to 0.334 at its lower end and to 0.335 at its upper end
    assert directed_ball_text(mpmath.mpf("0.334"), 3, True, mpmath.mpf(2) ** -40) is None
    # far tinier radius than the midpoint: widened, still decided, without huge integers
    assert directed_ball_text(one_third, 5, True, mpmath.ldexp(mpmath.mpf(1), -(10**6))) == "0.33334"
    assert directed_ball_text(one_third, 5, False, mpmath.ldexp(mpmath.mpf(1), -(10**6))) == "0.33333"
    # ... but a ball around an exact decimal is not decided (its ends round to 2.0000 and 2.0001)
    assert directed_ball_text(mpmath.mpf(2), 5, True, mpmath.ldexp(mpmath.mpf(1), -(10**6))) is None
    # an exact ball (radius 0) on a decimal: that decimal both ways
    assert directed_ball_text(mpmath.mpf(2), 5, True, mpmath.mpf(0)) == "2.0000"


def test_directed_text_of_huge_exponents_stays_outward():
    from momentcalc.engine.rounding import directed_text

    tiny = mpmath.ldexp(mpmath.mpf(3), -(10**5))
    with mp.workdps(50):
        log10 = mpmath.log10(tiny)
    up, down = directed_text(tiny, 5, True), directed_text(tiny, 5, False)
    assert int(up.split("e")[1]) > log10 > int(down.split("e")[1])
    assert directed_text(-tiny, 5, True) == "-" + down
