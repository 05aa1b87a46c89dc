"""verify: every published constant passes; a wrong entry fails with exit 1; constants lists them."""

from __future__ import annotations

import dataclasses

import mpmath
import pytest

import momentcalc.verification.run as verify_module
from momentcalc.verification.run import check_entry, verify
from momentcalc.verification.registry import REGISTRY
from momentcalc.verification.tolerance import within
from tests.conftest import invoke

SEED_NUMBERS = [
    "0.7737413",
    "1.1368472",
    "0.2933790",
    "1.0507",
    "1.6732",
    "0.0176",
    "0.0361",
    "0.2066",
    "0.3557",
    "0.6",
    "69",
    "0.01",
    "100",
    "2^(-12/2)",
    "2^(-1/2)",
    "1/2",
    "2/(768+3072)",
    "64",
    "sqrt(3)",
    "1.0507009873554804934193349852946",
    "1.6732632423543772848170429916717",
    "0.87962566103423978",
]


def test_registry_covers_the_seeds_and_sources():
    published = {entry.published for entry in REGISTRY}
    assert set(SEED_NUMBERS) <= published
    assert len(REGISTRY) >= 20
    assert len({entry.id for entry in REGISTRY}) == len(REGISTRY)
    assert all(entry.source and entry.description for entry in REGISTRY)
    informational = {entry.id for entry in REGISTRY if entry.informational}
    assert {"pytorch.gain.tanh", "pytorch.gain.selu"} <= informational


@pytest.mark.usefixtures("verify_rows_remembered")  # fills the rows the snapshot and the fuzz reuse
@pytest.mark.xdist_group("verify-rows")  # with the `verify` snapshot case (test_snapshots.py)
@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.id)
def test_every_real_entry_passes(entry):
    row = verify_module.check_entry(entry)  # (the suite's memo: a later full verify reuses the row)
    assert row["ok"] is True and row["status"] == ("info" if entry.informational else "ok"), row
    if not entry.informational:
        assert row["matches_published"] and row["routes_agree"], row


def test_informational_rows_show_the_exact_gain():
    tanh = check_entry(next(e for e in REGISTRY if e.id == "pytorch.gain.tanh"))
    assert (
        tanh["status"] == "info" and tanh["ok"] is True and tanh["computed"].startswith("1.59")
    )  # vs PyTorch's 5/3
    assert not tanh["matches_published"]


def test_wrong_entry_makes_verify_exit_1(monkeypatch):
    good = next(e for e in REGISTRY if e.id == "truncnorm.gamma")
    wrong = dataclasses.replace(good, id="deliberately.wrong", published="0.7737414")
    monkeypatch.setattr(verify_module, "REGISTRY", (good, wrong))
    listing = verify()
    assert listing.ok is False
    assert [(row["status"], row["ok"]) for row in listing.rows] == [("ok", True), ("fail", False)]
    run = invoke("verify")
    assert run.code == 1
    assert "deliberately.wrong" in run.stdout and "FAIL" in run.stdout
    # the reason is one line on stderr, whatever the output format
    for args in ((), ("--json",), ("--format", "csv")):
        run = invoke("verify", *args)
        assert run.code == 1
        [line] = run.stderr.splitlines()
        assert line.startswith(
            "momentcalc: verify failed: deliberately.wrong: published 0.7737414, computed 0.7737413035"
        )
        assert "does not match the published value" in line
    doc = invoke("verify", "--json").json()
    assert doc["ok"] is False
    assert [(row["id"], row["status"], row["ok"]) for row in doc["rows"]] == [
        ("truncnorm.gamma", "ok", True),
        ("deliberately.wrong", "fail", False),
    ]


def test_a_crashing_route_is_a_failure_line_not_a_traceback(monkeypatch):
    good = next(e for e in REGISTRY if e.id == "truncnorm.gamma")

    def crash(digits):
        raise ZeroDivisionError("boom")

    broken = dataclasses.replace(good, id="deliberately.crashing", compute=crash)
    monkeypatch.setattr(verify_module, "REGISTRY", (broken,))
    run = invoke("verify", "--json")
    assert run.code == 1 and run.json()["rows"][0]["status"] == "fail"
    [line] = run.stderr.splitlines()
    assert (
        "deliberately.crashing" in line and "ZeroDivisionError: boom" in line and "computed nothing" in line
    )


def test_passing_verify_writes_nothing_on_stderr():
    run = invoke("verify", "--only", "selu.lambda", "--only", "pytorch.gain.tanh", "--json")
    assert run.code == 0 and run.stderr == ""
    doc = run.json()
    assert doc["ok"] is True
    assert all(row["ok"] is True for row in doc["rows"])  # jq -e 'all(.rows[]; .ok)' holds
    assert {row["status"] for row in doc["rows"]} == {"ok", "info"}


def test_disagreeing_second_route_fails(monkeypatch):
    from momentcalc.verification.routes import same_value

    good = next(e for e in REGISTRY if e.id == "truncnorm.gamma")
    broken = dataclasses.replace(
        good, check=same_value("a wrong route", lambda: good.compute(20) * (1 + 1e-12))
    )
    row = check_entry(broken)
    assert row["matches_published"] and not row["routes_agree"] and row["ok"] is False


@pytest.mark.parametrize(
    "kind,computed,published,ok",
    [
        ("truncated", "0.77374130354", "0.7737413", True),
        ("truncated", "0.77374139", "0.7737414", False),  # rounds to it, but does not start with it
        ("rounded", "0.0175925", "0.0176", True),
        ("rounded", "0.0174", "0.0176", False),
        ("double", "0.8796256610342397504", "0.87962566103423978", True),
        ("double", "0.879625661034240", "0.87962566103423978", False),
        ("magnitude", "88.9", "100", True),
        ("magnitude", "0.0078", "0.01", True),
        ("magnitude", "0.002", "0.01", False),
    ],
)
def test_tolerance_kinds(kind, computed, published, ok):
    import mpmath
    from mpmath import mp

    with mp.workdps(30):
        c, p = mpmath.mpf(computed), mpmath.mpf(published)
    assert within(kind, c, p, published, 20) is ok


def test_verify_json_shape_and_only_filter():
    run = invoke("verify", "--only", "truncnorm.gamma", "--json")
    assert run.code == 0
    doc = run.json()
    assert doc["command"] == "verify" and doc["ok"] is True
    [row] = doc["rows"]
    assert row["id"] == "truncnorm.gamma" and row["published"] == "0.7737413"
    assert row["computed"].startswith("0.7737413035") and row["agreeing_digits"] == 7
    assert "quadrature" in row["route"]


def test_verify_only_unknown_is_usage_error():
    run = invoke("verify", "--only", "nonexistent")
    assert run.code == 2 and "--only matches no constant" in run.stderr


def test_constants_lists_registry():
    run = invoke("constants", "--json")
    assert run.code == 0
    rows = run.json()["rows"]
    assert len(rows) == len(REGISTRY)
    assert {"id", "published", "tolerance", "source", "description", "computed_by"} <= set(rows[0])
    csv = invoke("constants", "--format", "csv").stdout.splitlines()
    assert csv[0] == "id,published,tolerance,source,description,computed_by" and len(csv) == len(REGISTRY) + 1


@pytest.mark.parametrize(
    "published, exact, digits",
    [
        # SELU's alpha as PyTorch prints it: correctly rounded to its 32 digits (exact ...91671652...)
        ("1.6732632423543772848170429916717", "1.6732632423543772848170429916716520", 32),
        ("0.2933790", "0.29337903590", 7),  # sigmoid's second moment, rounded
        ("-1.7580993408473766", "-1.75809934084737685994", 16),  # alpha_dropout: its 17th digit is off
        ("0.01", "0.01126", 1),
        ("100", "88.82", 0),
    ],
)
def test_agreeing_digits_count_as_rounding_does(published, exact, digits):
    """verify's "agree": the digits to which both round alike, as audit and identify count them
    (a correctly rounded published value agrees in all its digits; the old count of matching
    leading digits said 31 for SELU's 32-digit alpha)."""
    from momentcalc.verification.tolerance import agreeing_digits

    with mpmath.workdps(50):
        found = agreeing_digits(
            mpmath.mpf(exact), mpmath.mpf(published), len(published.strip("-").replace(".", "").lstrip("0"))
        )
    assert found == digits
