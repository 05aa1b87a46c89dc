"""audit's cheap pass (``code_context.worth_reading``) never passes over a file in which the full
scan finds something: checked on every fixture and on files written here with each constant of
the index in several spellings and contexts; and ``python_lines`` (statements without tokenize)
agrees with tokenize on where statements begin and what is a string."""

from __future__ import annotations

import bisect
import io
import struct
import tokenize
from decimal import Decimal
from pathlib import Path

import pytest

from momentcalc.computations import audit as audit_module
from momentcalc.computations import code_context
from momentcalc.computations.constant_index import index
from momentcalc.computations.literals import paste, round_sig
from momentcalc.computations.python_lines import in_string, logical_lines

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _full_scan(monkeypatch: pytest.MonkeyPatch, path: str) -> list[dict]:
    with monkeypatch.context() as patch:
        patch.setattr(code_context, "worth_reading", lambda text, python=False: True)
        return audit_module.scan_file(path)


@pytest.mark.parametrize(
    "path",
    sorted(str(p) for p in FIXTURES.rglob("*") if p.is_file()),
    ids=lambda p: str(Path(p).relative_to(FIXTURES)),
)
def test_the_cheap_pass_keeps_every_finding_of_the_fixtures(path, monkeypatch):
    assert audit_module.scan_file(path) == _full_scan(monkeypatch, path)


def _float32_repr(x: float) -> str:
    single = struct.unpack("f", struct.pack("f", x))[0]
    for k in range(1, 10):
        text = f"{single:.{k}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            return text
    return f"{single:.9g}"


def _spellings(value: Decimal) -> set[str]:
    """The constant as code writes it: the double to paste, 17, 8, 5, 4 and 3 digits, its float32,
    and a Monte Carlo estimate (wrong after 3 digits)."""
    double = float(paste(value))
    return {
        paste(value),
        *(format(round_sig(value, k).normalize(), "f") for k in (17, 8, 5, 4, 3)),
        _float32_repr(double),
        repr(float(f"{double * 1.0006:.17g}")),
    }


def _camel(words: str) -> str:
    return "".join(w.capitalize() for w in words.split("_"))


def _python_contexts(subject: str, quantity: str, literal: str) -> list[str]:
    name = f"{subject}_{quantity}"
    filler = "".join(f"    setting_{i} = {i}\n" for i in range(30))
    return [
        f"{name} = {literal}\n",
        f"TABLE = {{'{subject}': {literal}, 'other': 0.5}}\n",
        f"# {subject} {quantity}\nvalue = (\n    1.0,\n    {literal},\n)\n",
        f"class {_camel(subject)}{_camel(quantity)}:\n    '''Defaults.'''\n\n{filler}    value = {literal}\n",
        f"y = (\n    F.{subject}(x)\n    * {literal}\n)\n",
        f"make(\n    {name}=\n        {literal},\n)\n",
        f"x = 1  # {subject} {quantity} {literal}\n",
        f'"""The {subject} {quantity} is\n{literal}."""\n',
    ]


def _other_contexts(subject: str, quantity: str, literal: str) -> list[tuple[str, str]]:
    return [
        ("c.json", f'{{"{subject}_{quantity}": {literal}}}\n'),
        ("n.md", f"The {subject} {quantity} is {literal}.\n"),
    ]


def _check_constants(monkeypatch: pytest.MonkeyPatch, spellings_per_constant: int | None) -> tuple[int, int]:
    """Each constant in its spellings (all, or a rotating few) and every context: a file the
    cheap pass passes over has no finding in the full scan. (checked, passed over)"""
    checked = passed_over = 0
    monkeypatch.setattr(code_context, "worth_reading", lambda text, python=False: True)
    for number, constant in enumerate(index()):
        subject = "_".join(constant.subjects[0]) if constant.subjects else "plain"
        quantity = min(constant.quantities) if constant.quantities else "value"
        spellings = sorted(_spellings(constant.value))
        if spellings_per_constant is not None:
            spellings = [spellings[(number + k) % len(spellings)] for k in range(spellings_per_constant)]
        for literal in spellings:
            files = [("m.py", text) for text in _python_contexts(subject, quantity, literal)]
            files += _other_contexts(subject, quantity, literal)
            for name, text in files:
                checked += 1
                if WORTH_READING(text, python=name.endswith(".py")):
                    continue
                passed_over += 1
                found = code_context.findings_in(name, text)
                assert not found, (constant.id, literal, text, found)
    return checked, passed_over


WORTH_READING = code_context.worth_reading


def test_the_cheap_pass_keeps_every_constant_in_its_spellings_and_contexts(monkeypatch):
    checked, passed_over = _check_constants(monkeypatch, 2)
    assert checked > 5000 and passed_over > 500  # (both kinds were met)


@pytest.mark.reference
def test_the_cheap_pass_keeps_every_constant_in_every_spelling_and_context(monkeypatch):
    checked, passed_over = _check_constants(monkeypatch, None)
    assert checked > 20_000 and passed_over > 2000


def test_a_generic_value_is_read_only_where_a_word_can_name_it():
    # 1/sqrt(2) is relu's rms by its digits only when the context names relu (or relu6, relu2).
    assert not code_context.worth_reading("scale = 0.7071067811865476\n", python=True)
    assert code_context.worth_reading("relu_rms = 0.7071067811865476\n", python=True)
    assert code_context.worth_reading(
        "class Relu6:\n    x = 1\n    scale = 0.7071067811865476\n", python=True
    )


def test_a_file_tokenize_reads_otherwise_is_read_whole():
    # An unterminated string, an unclosed bracket, a dedent to no outer level: tokenize fails
    # and the scan falls back to the number regex, which reads comments and strings too.
    comment = "# relu gamma 1.7139588594436646\n"
    assert not code_context.worth_reading("x = 1\n" + comment, python=True)
    for broken in ("s = 'open\n", "t = (1,\n", "if x:\n        a = 1\n    b = 2\n"):
        assert code_context.worth_reading(broken + comment, python=True), broken


def _tokenize_statements(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """(first token, NEWLINE) offsets of each statement and the offsets of NUMBER tokens."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def offset(position: tuple[int, int]) -> int:
        return starts[position[0] - 1] + position[1]

    statements, numbers, first = [], [], None
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in skipped:
            continue
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if first is not None:
                statements.append((offset(first), offset(tok.start)))
            first = None
            continue
        first = first or tok.start
        if tok.type == tokenize.NUMBER:
            numbers.append(offset(tok.start))
    return statements, numbers


SOURCES = [
    *sorted(FIXTURES.rglob("*.py")),
    Path(code_context.__file__),
    Path(audit_module.__file__),
]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_statements_without_tokenize_agree_with_tokenize(path):
    text = path.read_text(encoding="utf-8")
    lines = logical_lines(text)
    assert lines is not None
    statements, numbers = _tokenize_statements(text)
    for first, end in statements:  # no statement of tokenize's is cut
        i = bisect.bisect_right(lines.starts, first)
        assert i == len(lines.starts) or lines.starts[i] > end, (path.name, first, end)
    assert not any(in_string(lines, at) for at in numbers)


@pytest.mark.parametrize("quote", ['"""', "'''"])
def test_code_after_a_string_that_closes_past_a_sharp_is_read(quote):
    # The line begins inside a triple-quoted string, which closes after a '#': what follows is
    # code (tokenize's reading), not a comment, and its constant is a finding.
    text = f"s = {quote}\n#{quote}; gelu = 0.79788456\n"
    assert code_context.worth_reading(text, python=True)
    found = code_context.findings_in("m.py", text)
    assert [f.match.constant.id for f in found] == ["closed.sqrt_2_over_pi"]
    # A real comment stays a comment, in the cheap pass and in the scan.
    comment = "x = 1  # gelu = 0.79788456\n"
    assert not code_context.worth_reading(comment, python=True)
    assert code_context.findings_in("m.py", comment) == []
