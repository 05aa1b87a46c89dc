"""audit on files full of numbers (checked-in results, minified data): each number costs a
float bisect unless some constant is near it; the exact (Fraction/Decimal) reading is kept for
the few that are, and what is reported does not change. Every fixture is written here."""

from __future__ import annotations

import random

import pytest

from momentcalc.computations import code_context, identification, literals
from momentcalc.computations.code_context import KEY_BEFORE, findings_in, key_before


def test_the_key_before_a_number_is_the_regex_match():
    rng = random.Random(1)
    alphabet = list("aZ_9.-\"' \t:=>;,é²\u00a0(")
    for length in range(12):
        for _ in range(3000):
            window = "".join(rng.choice(alphabet) for _ in range(length))
            match = KEY_BEFORE.search(window)
            assert key_before(window) == (match.group(1) if match else None), repr(window)
    for window in ('"relu_gamma": ', "selu.lambda = ", "x := ", "a => ", "9relu: ", "var a0="):
        match = KEY_BEFORE.search(window)
        assert match is not None and key_before(window) == match.group(1)


def _data(rng: random.Random, count: int) -> list[str]:
    return [f"{rng.random():.6f}" for _ in range(count)]


CONSTANTS = (
    "selu_lambda = 1.0507009873554805\n",
    "relu_gamma = 1.7139588594436646\n",  # wrong
    "std = 0.87962566103423978\n",
    "SELU's lambda 1.0507 and alpha 1.6733\n",
)


@pytest.mark.parametrize("name", ["data.js", "data.py", "data.md"])
def test_numbers_far_from_every_constant_are_not_read_exactly(name, monkeypatch):
    rng = random.Random(7)
    numbers = _data(rng, 3000)
    if name.endswith(".py"):
        text = "x = [" + ", ".join(numbers) + "]\n" + "".join(CONSTANTS[:3])
    else:
        text = "".join(f"var a{i}={x};\n" for i, x in enumerate(numbers)) + "".join(CONSTANTS)
    exact = []
    original = literals.float32_print.__wrapped__

    def counted(literal):
        exact.append(literal.text)
        return original(literal)

    monkeypatch.setattr(identification, "float32_print", counted)
    found = findings_in(name, text)
    # (a 6-digit number meets a constant's 6-digit window about one time in 80)
    assert len(exact) < 100, len(exact)
    assert {"1.0507009873554805", "1.7139588594436646", "0.87962566103423978"} <= {f.text for f in found}


@pytest.mark.parametrize("name", ["data.js", "data.py", "notes.md"])
def test_the_number_by_number_filter_keeps_every_finding(name, monkeypatch):
    rng = random.Random(3)
    numbers = [*_data(rng, 400), "1.0507009873554805", "0.7071067811865476", "1.7139588594436646"]
    rng.shuffle(numbers)
    if name.endswith(".py"):
        lines = [f"relu_gain = {numbers[0]}\n", "g = dict(relu=1.71, gelu=1.70, tanh=1.59, silu=1.79)\n"]
        lines += [f"v{i} = {x}\n" for i, x in enumerate(numbers)]
    else:
        lines = [f'"relu_{i}": {x},\n' if i % 3 else f"selu {x}\n" for i, x in enumerate(numbers)]
    text = "".join(lines)
    fast = findings_in(name, text)
    with monkeypatch.context() as patch:  # every number read in full, as before the filter
        patch.setattr(code_context, "_may_name", lambda route, occ: True)
        patch.setattr(
            code_context, "_wanted_in_code", lambda number, keyed: code_context.candidate(number) is not None
        )
        patch.setattr(code_context, "_route", lambda number: True)
        full = findings_in(name, text)
    assert fast == full
    assert len(fast) >= 2


# --- prose --------------------------------------------------------------------------------------


def _found(name: str, text: str) -> list[tuple[str, str, str]]:
    return [(f.text, f.match.constant.id, f.match.verdict) for f in findings_in(name, text)]


def test_a_short_number_in_a_row_about_an_activation_is_no_constant_in_markdown():
    # a timing table: the row's words name the commands (selu, sigmoid), not each number's quantity
    row = "| `truncnorm`, `selu-solve`, `attention` | 0.83–1.06 | 0.92–1.08 |\n"
    assert _found("speed.md", row) == []
    assert _found("bench.md", "| `sigmoid(x)-1/2` | 0.21 | 4.72 | 0 | 22.2 (over) | 20x |\n") == []
    assert _found("bench.md", "| `gau-scale --activation gelu` | 0.41 | 7.91 | 0.28 |\n") == []
    # the same numbers in code still are (a subject named there is the code's own)
    assert ("1.06", "selu.lambda", "inexact") in _found("m.py", "y = selu(x) * 1.06  # selu-solve\n")


def test_a_constant_named_in_prose_is_still_reported():
    assert _found("README.md", "SELU's lambda 1.0507 (Klambauer et al.).\n") == [
        ("1.0507", "selu.lambda", "ok")
    ]
    # three digits with the quantity named: a constant, one digit short
    assert _found("README.md", "SELU's lambda is 1.06 in our runs.\n") == [("1.06", "selu.lambda", "inexact")]
    assert _found("notes.md", "selu_lambda: 1.05\n") == [("1.05", "selu.lambda", "ok")]
    # four digits with only the subject named: as before, a weak context
    assert _found("notes.md", "selu 1.051\n") == [("1.051", "selu.lambda", "ok")]


def _float32_shortest_by_every_length(literal: literals.Literal) -> bool:
    """The definition: the first length at which the float32 rounded reads back decides."""
    m, s = literals._nearest(literals.Fraction(literal.value), literals.FLOAT32_BITS)
    x = literals._decimal(m, s)
    for k in range(1, 10):
        r = literals.round_sig(x.normalize(literals._CONTEXT), k)
        if literals._nearest(literals.Fraction(r), literals.FLOAT32_BITS) == (m, s):
            return r == literal.value and k == literal.digits
    return False


def test_the_float32_shortest_test_agrees_with_its_definition():
    import struct

    rng = random.Random(5)
    texts = []
    for _ in range(600):
        x = rng.uniform(1e-3, 10)
        single = struct.unpack("f", struct.pack("f", x))[0]
        texts += [f"{x:.6f}", f"{x:.8g}", f"{single:.9g}", repr(single), f"{single:.7g}", f"{single:.6g}"]
    agree = shortest = 0
    for text in texts:
        literal = literals.parse_literal(text)
        if literal is None or not 6 <= literal.digits <= 9:
            continue
        expected = _float32_shortest_by_every_length(literal)
        assert literals._float32_shortest(literal) == expected, text
        agree += 1
        shortest += expected
    assert agree > 2000 and shortest > 300
