"""The public tier (``momentcalc.tier``): precision, certify, input checks, and a computation
written on it (alpha-dropout, the worked example of its docstring) against an independent route."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from momentcalc.errors import InputError, PrecisionError
from momentcalc.tier import (
    Precision,
    arb_precision,
    bits_for,
    certify,
    digits_for,
    exact_ball,
    positive,
    probability,
    prove,
    selu_constants,
)


def test_precision_carries_the_digits():
    p = Precision(15)
    assert (p.digits, p.guard, p.dps) == (15, 10, 25)
    assert p.start_bits == 15 * 333 // 100 + 32 and p.max_bits == 40000 * 333 // 100
    for digits in (1, 7, 15, 100, 1000, 40000):
        assert digits * mpmath.log(10, 2) - 1 < bits_for(digits) <= digits * mpmath.log(10, 2) + digits / 100
        assert digits_for(bits_for(digits)) in (digits - 1, digits)


def test_input_checks_name_the_argument():
    assert probability("0.25", "p") == Fraction(1, 4)
    assert probability(1, "p") == 1
    with pytest.raises(InputError, match="p must be a number >= 0 and < 1, got 1"):
        probability(1, "p", one=False)
    with pytest.raises(InputError, match="p must be a number > 0 and < 1, got 0"):
        probability(0, "p", zero=False, one=False)
    with pytest.raises(InputError, match="std must be greater than 0"):
        positive("-1", "std")


def alpha_dropout(*, p, digits=15):
    """Alpha-dropout's a and b (Klambauer et al., 2017), as the tier's docstring writes it."""
    p = probability(p, "p", one=False)

    def evaluate(bits):
        lam, alpha = selu_constants()
        s, q = -lam * alpha, exact_ball(p)
        a = 1 / ((1 - q) * (1 + q * s**2)).sqrt()
        return {"a": a, "b": -a * q * s}

    return certify(
        "alpha_dropout",
        inputs={"p": p},
        evaluate=evaluate,
        digits=digits,
        describe={"a": "scale", "b": "shift", "p": "the rate"},
        exact={"p": p},
    )


@pytest.mark.parametrize("p", ["0.05", "0.1", "0.5"])
def test_alpha_dropout_agrees_with_mpmath(p):
    from momentcalc.catalog.activations import selu_constants as mpmath_selu

    result = alpha_dropout(p=p, digits=30)
    assert result.names == ("a", "b", "p") and result["p"].exact == Fraction(p)
    with mpmath.workdps(60):
        lam, alpha = mpmath_selu()
        s, q = -lam * alpha, mpmath.mpf(p)
        a = 1 / mpmath.sqrt((1 - q) * (1 + q * s**2))
        expected = {"a": a, "b": -a * q * s}
        for name in ("a", "b"):
            assert result[name].certified
            assert result[name].decimal(30) == mpmath.nstr(expected[name], 30, strip_zeros=False)
            assert (
                abs(result.value(name) - expected[name]) <= result[name].error_bound + mpmath.mpf(10) ** -55
            )


def test_prove_refuses_what_it_cannot_decide():
    def evaluate(bits):
        return {
            "zero": exact_ball(Fraction(1, 3)) - exact_ball(Fraction(1, 3))
        }  # a ball around 0 never rounds

    with pytest.raises(PrecisionError, match="zero"):
        prove(evaluate, Precision(5), start_bits=64)


def test_prove_takes_lists_and_proven_infinities():
    import mpmath

    from momentcalc.tier import INFINITY

    def evaluate(bits):
        third = exact_ball(Fraction(1, 3))
        return {"thirds": [third, 2 * third], "curvature": INFINITY, "half": exact_ball(Fraction(1, 2))}

    fields = prove(evaluate, 20)
    assert list(fields) == ["thirds", "curvature", "half"]
    assert [mpmath.nstr(v, 20) for v in fields["thirds"]["value"]] == [
        "0.33333333333333333333",
        "0.66666666666666666667",
    ]
    assert fields["thirds"]["certified"] and 0 < fields["thirds"]["error_bound"] < mpmath.mpf(10) ** -21
    assert fields["curvature"]["value"] == mpmath.inf and fields["curvature"]["error_bound"] == 0


def test_prove_by_working_digits():
    """Routines that take decimal digits (the kernels' quadratures) get digits + each extra in turn."""
    asked = []

    def evaluate(working):
        asked.append(working)
        with arb_precision(64 if working < 30 else 200):
            return {"third": exact_ball(Fraction(1, 3)), "list": [exact_ball(Fraction(1, 7))]}

    fields = prove(evaluate, 25, extra_digits=(3, 8, 20))
    assert asked == [28, 33] and fields["list"]["certified"]
    with pytest.raises(PrecisionError, match="25 digits cannot be proven"):
        prove(
            lambda working: {"zero": exact_ball(Fraction(1, 3)) - exact_ball(Fraction(1, 3))},
            25,
            extra_digits=(3, 8),
        )


def test_prove_with_raises_keeps_what_rounds():
    """``raises``: what rounds within that many doublings, each from the first evaluation where it
    rounds; the rest left out (the caller keeps another route's value), a failing evaluation ends it."""
    from momentcalc.tier import INFINITY

    calls = []

    def evaluate(bits):
        calls.append(bits)
        zero = exact_ball(Fraction(1, 3)) - exact_ball(Fraction(1, 3))  # never rounds
        return {"third": exact_ball(Fraction(1, 3)), "zero": zero}

    fields = prove(evaluate, 30, start_bits=64, raises=2, exact={"ratio": INFINITY, "half": Fraction(1, 2)})
    assert calls == [64, 128, 256] and set(fields) == {"third", "ratio", "half"}
    assert fields["third"]["error_bound"] > 2**-130  # from the evaluation at 128 bits, the first that rounds
    assert fields["ratio"]["value"] == float("inf") and fields["half"]["exact"] == Fraction(1, 2)

    def failing(bits):
        if bits > 64:
            raise PrecisionError("no")
        return {"third": exact_ball(Fraction(1, 3))}

    assert prove(failing, 30, start_bits=64, raises=3) == {}


def test_a_part_asking_past_the_digit_limit_is_a_refusal_not_bad_input():
    """A computation whose ball stays too wide escalates its precision until a part asks for
    more digits than any route gives: that is the precision limit (exit 3), not the user's
    --digits (exit 2); init-report once said "--digits must be ... 1100, got 1563"."""
    from flint import arb

    def evaluate(bits: int) -> dict:
        if bits > 200:
            raise InputError(param="digits", allowed="a whole number from 1 to 1100", got="1563")
        return {"x": arb(1) / 3 + arb(0, 1e-10)}  # never rounds to 15 digits

    with pytest.raises(PrecisionError):
        prove(evaluate, 15)

    def bad_from_the_start(bits: int) -> dict:
        raise InputError(param="digits", allowed="a whole number from 1 to 1100", got="1563")

    with pytest.raises(InputError):
        prove(bad_from_the_start, 15)
