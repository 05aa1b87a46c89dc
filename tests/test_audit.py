"""identify and audit: the constants in code against independent references (mpmath closed
forms, the SELU paper's published digits, Python's own doubles), on the normalizer-free table
(Brock et al., 2021, as copied into timm's ``_nonlin_gamma``) and on decoy files that must give
no finding."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path

import mpmath
import pytest
from jsonschema import Draft202012Validator
from mpmath import mp

from momentcalc.computations.constant_index import key_subject, named_in, tokens
from momentcalc.computations.identify import Context, digits_correct, identify_literal, parse_literal
from tests.cli_runner import run

SCHEMA = json.loads(
    (Path(__file__).resolve().parent.parent / "momentcalc" / "render" / "json_schema.json").read_text()
)

# timm/layers (and DeepMind's nfnets): Monte Carlo gammas stored as float32, printed as doubles;
# the published constants after them. One copy, the fixture the audit snapshots also scan.
_FIXTURE = (Path(__file__).resolve().parent / "fixtures" / "audit" / "nfnet.py").read_text()
_TABLE_END = _FIXTURE.index("\n)\n", _FIXTURE.index("# from https")) + 3
NF_TABLE = _FIXTURE[_FIXTURE.index("# from https") : _TABLE_END]

PUBLISHED = _FIXTURE[_TABLE_END:].lstrip("\n")

DECOYS = '''"""A docstring with relu=1.7139588594436646 is not code."""
lr = 3e-4
learning_rate = 0.001
pi = 3.14159
threshold = 0.5
momentum = 0.9
eps = 1e-5
weight_decay = 0.05
warmup = 0.1
beta2 = 0.999
gamma = 0.99  # RL discount
x = torch.relu(y) * 0.25
dropout = 0.1
table = dict(shifted_softplus_1=1.9190, shifted_softplus_2=1.8338)
s = "1.7139588594436646"
# relu gamma 1.7139588594436646 in a comment
ignored = 1.7139588594436646  # relu  momentcalc: ignore

# What a test suite is full of (from Python's own standard library, where an earlier matcher
# reported 120 "wrong" constants): tolerances near 1 and 1/2 are no identity gain or relu moment
# (nor relu6's second moment, 1/2 - 2e-9); numbers deep in a table assigned to a name that
# happens to name a subject are not that subject's constants.
assert_almost_equal(result, 0.9999999997226765)
check(0.49999999999925893 + 0.49999999999925893j)
self.assertEqual(x, 0.7500000000000153)
ratio = 1.0000000149011612
truncnorm_cases = [
    [[0, 2], [0.995271746431156, 0.8691773036059741]],
    [[-1, 3], [0.5393018494027877, -0.20582065135274694]],
]
'''


def _relu_gamma() -> mpmath.mpf:
    """1/sqrt(Var[relu(Z)]) = sqrt(2/(1 − 1/π)), independently of the engine."""
    return mpmath.sqrt(2 / (1 - 1 / mp.pi))


def _variance_gamma(f, breaks=(0,)) -> mpmath.mpf:
    """1/sqrt(Var[f(Z)]) by mpmath's own quadrature (split at the kinks)."""
    density = lambda x: mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mp.pi)
    m1 = mpmath.quad(lambda x: f(x) * density(x), [-mp.inf, *breaks, mp.inf])
    m2 = mpmath.quad(lambda x: f(x) ** 2 * density(x), [-mp.inf, *breaks, mp.inf])
    return 1 / mpmath.sqrt(m2 - m1 * m1)


REFERENCES = {  # key -> independent exact gamma (mpmath, 30 digits)
    "relu": lambda: _relu_gamma(),
    "relu6": lambda: _variance_gamma(lambda x: min(max(x, 0), 6), (0, 6)),
    "elu": lambda: _variance_gamma(lambda x: x if x > 0 else mpmath.expm1(x)),
    "celu": lambda: _variance_gamma(lambda x: x if x > 0 else mpmath.expm1(x)),
    "log_sigmoid": lambda: _variance_gamma(lambda x: -mpmath.log1p(mpmath.exp(-x))),
    "sigmoid": lambda: _variance_gamma(lambda x: 1 / (1 + mpmath.exp(-x))),
    "tanh": lambda: _variance_gamma(mpmath.tanh),
    "softsign": lambda: _variance_gamma(lambda x: x / (1 + abs(x))),
    "selu": lambda: mpmath.mpf(1),
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    (root / "models").mkdir()
    (root / "models" / "nfnet.py").write_text(NF_TABLE)
    (root / "published.py").write_text(PUBLISHED)
    (root / "decoys.py").write_text(DECOYS)
    (root / "config.json").write_text('{"lr": 0.0003, "relu_gamma": 1.7139588594436646, "eps": 1e-06}\n')
    (root / "init.c").write_text("const double SELU_SCALE = 1.0507009873554805;\nfloat lr = 0.001f;\n")
    (root / "notes.yaml").write_text("threshold: 0.5\nselu_lambda: 1.0507\n")
    (root / "build").mkdir()
    (root / "build" / "copy.py").write_text(NF_TABLE)  # ignored by .gitignore
    (root / ".gitignore").write_text("build/\n*.tmp.py\n")
    (root / "scratch.tmp.py").write_text(NF_TABLE)
    return root


@pytest.fixture(scope="module")
def audit_json(tree):
    code, out, _err = run(["audit", str(tree), "--json"])
    return code, json.loads(out)


def _by_file(document, name):
    return [f for f in document["findings"] if f["path"].endswith(name)]


def test_the_normalizer_free_table_is_wrong_entry_by_entry_with_exact_gammas(audit_json):
    code, document = audit_json
    assert code == 1 and document["ok"] is False
    Draft202012Validator(SCHEMA).validate(document)
    found = {f["constant"]["id"].split(".")[0]: f for f in _by_file(document, "models/nfnet.py")}
    # every activation entry of the catalog, each wrong with 2-4 correct digits (identity's 1.0
    # is exact and log_softmax is not an activation of one variable: no finding)
    assert set(found) == {
        "celu",
        "elu",
        "gelu",
        "leaky_relu",
        "log_sigmoid",
        "relu",
        "relu6",
        "selu",
        "sigmoid",
        "swish",
        "softsign",
        "softplus",
        "tanh",
    }
    for key, f in found.items():
        assert f["verdict"] == "wrong", key
        assert 2 <= f["digits_correct"] <= 4, key
        assert f["constant"]["id"].endswith(".centered_gain")
        assert f["match"] == "context"
    with mp.workdps(30):
        for key, reference in REFERENCES.items():
            exact = Decimal(found[key]["constant"]["exact"])
            assert abs(mpmath.mpf(str(exact)) - reference()) < mpmath.mpf(10) ** -16, key
    relu = found["relu"]
    assert relu["literal"] == "1.7139588594436646" and relu["digits_correct"] == 3
    assert relu["constant"]["exact"].startswith("1.71285855044966")


def test_published_literals_inexact_and_ok(audit_json):
    _, document = audit_json
    found = {f["literal"]: f for f in _by_file(document, "published.py")}
    assert found["1.7580993408473766"]["verdict"] == "inexact"
    assert found["1.7580993408473766"]["ulps_off"] == -1
    assert found["1.466942206924260361"]["verdict"] == "inexact"
    assert found["1.466942206924260361"]["ulps_off"] == 2
    assert found[".87962566103423978"]["verdict"] == "ok"
    assert found[".87962566103423978"]["ulps_off"] == 0
    assert found["1.0507009873554804934193349852946"]["verdict"] == "ok"
    assert found["1.6732632423543772848170429916717"]["verdict"] == "ok"
    assert {f["match"] for f in found.values()} == {"value"}


def test_the_ulps_against_pythons_own_doubles():
    """ulps_off counts doubles as math.nextafter steps from the correctly rounded constant."""
    with mp.workdps(40):
        lam_alpha = mpmath.mpf("1.0507009873554804934193349852946") * mpmath.mpf(
            "1.6732632423543772848170429916717"
        )
        ratio = mp.pi / (mp.pi - 1)
        nearest_la, nearest_ratio = float(lam_alpha), float(ratio)
    assert math.nextafter(nearest_la, 0) == 1.7580993408473766  # one double below
    assert math.nextafter(math.nextafter(nearest_ratio, 2), 2) == float("1.466942206924260361")
    for text, expected in (("1.7580993408473766", -1), ("1.466942206924260361", 2)):
        (m,) = identify_literal(parse_literal(text))[:1]
        assert m.ulps_off == expected


def test_decoys_and_ignored_lines_give_no_finding(audit_json):
    _, document = audit_json
    assert _by_file(document, "decoys.py") == []


def test_other_languages_by_regex_and_gitignore(audit_json):
    _, document = audit_json
    paths = {f["path"].rsplit("/", 1)[-1] for f in document["findings"]}
    assert "copy.py" not in paths and "scratch.tmp.py" not in paths  # .gitignore
    (relu,) = _by_file(document, "config.json")
    assert relu["constant"]["id"] == "relu.centered_gain" and relu["verdict"] == "wrong"
    (selu,) = _by_file(document, "init.c")
    assert selu["constant"]["id"] == "selu.lambda" and selu["verdict"] == "ok"
    (short,) = _by_file(document, "notes.yaml")
    assert (
        short["constant"]["id"] == "selu.lambda" and short["verdict"] == "ok" and short["digits_written"] == 5
    )


def test_include_exclude_strict_and_formats(tree):
    code, out, _ = run(["audit", str(tree), "--include", "published.py", "--json"])
    assert code == 0 and json.loads(out)["ok"] is True
    code, _, _ = run(["audit", str(tree), "--include", "published.py", "--strict"])
    assert code == 1
    code, out, _ = run(["audit", str(tree), "--exclude", "models/*", "--exclude", "config.json", "--json"])
    assert code == 0 and all("nfnet" not in f["path"] for f in json.loads(out)["findings"])
    code, out, _ = run(["audit", str(tree / "models"), "--format", "github"])
    lines = out.splitlines()
    assert code == 1 and len(lines) == 13 and all(line.startswith("::error file=") for line in lines)
    assert (
        ",line=10,col=10,title=momentcalc%3A relu.centered_gain::1.7139588594436646 is wrong for relu" in out
    )
    code, out, _ = run(["audit", str(tree / "models"), "--format", "sarif"])
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0" and len(sarif["runs"][0]["results"]) == 13
    result = sarif["runs"][0]["results"][0]
    assert (
        result["level"] == "error" and result["locations"][0]["physicalLocation"]["region"]["startLine"] >= 3
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "/no/such/dir"],
        ["audit", "tests/fixtures/audit", "--baseline", "/no/such/baseline.json"],
        ["audit", ".", "--format", "xml"],
        ["identify"],
        ["identify", "abc"],
        ["identify", "1.5", "--digits", "0"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv):
    code, out, err = run(argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_identify_candidates_and_schema():
    code, out, _ = run(["identify", "1.7139588594436646", ".87962566103423978", "--json"])
    document = json.loads(out)
    Draft202012Validator(SCHEMA).validate(document)
    assert code == 1 and document["ok"] is False  # timm's relu gamma is no constant of the index
    first = {row["literal"]: row for row in document["rows"] if row["rank"] == 1}
    assert first["1.7139588594436646"]["id"] == "relu.centered_gain"
    assert first["1.7139588594436646"]["digits_correct"] == 3
    assert first["1.7139588594436646"]["match"] == "nearest" and "verdict" not in first["1.7139588594436646"]
    assert [entry["literal"] for entry in document["no_match"]] == ["1.7139588594436646"]
    assert first[".87962566103423978"]["id"] == "truncnorm.2.std_ratio"
    assert first[".87962566103423978"]["verdict"] == "ok"
    code, out, _ = run(["identify", "1.7139588594436646", "--name", "relu_gamma", "--json"])
    (row,) = json.loads(out)["rows"]
    assert code == 1 and (row["id"], row["verdict"], row["digits_correct"]) == (
        "relu.centered_gain",
        "wrong",
        3,
    )
    code, out, _ = run(["identify", "1.7128585504496627", "--digits", "50", "--json"])
    exact = json.loads(out)["rows"][0]["exact"]
    with mp.workdps(60):
        assert exact == mpmath.nstr(_relu_gamma(), 50, strip_zeros=False)
    code, out, _ = run(["identify", "--list", "--json"])
    Draft202012Validator(SCHEMA).validate(json.loads(out))
    ids = {row["id"] for row in json.loads(out)["rows"]}
    assert {
        "glu.centered_gain",
        "truncnorm.2.correction",
        "selu.lambda_alpha",
        "heuristic.tanh_gain",
        "gpt2.residual_scale.12",
        "deepnet.alpha.6",
        "hard_swish.centered_gain",
    } <= ids


def test_glu_gamma_is_the_sigmoid_second_moment():
    """glu with independent halves a·σ(b): Var = E[a²]E[σ(b)²], by mpmath quadrature."""
    with mp.workdps(30):
        second = mpmath.quad(
            lambda x: mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mp.pi) / (1 + mpmath.exp(-x)) ** 2,
            [-mp.inf, 0, mp.inf],
        )
        text = mpmath.nstr(1 / mpmath.sqrt(second), 20, strip_zeros=False)
    _code, out, _ = run(["identify", text, "--json"])
    rows = {row["id"]: row for row in json.loads(out)["rows"]}
    # the same number as sigmoid's gain 1/sqrt(E[σ(Z)²]): both are candidates, all 20 digits correct
    for key in ("glu.centered_gain", "sigmoid.gain"):
        assert (rows[key]["verdict"], rows[key]["digits_correct"]) == ("ok", 20)


def test_every_written_digit_correct_is_ok_even_as_a_float32():
    # 0.894427 is the shortest repr of a float32 one ulp from sqrt(0.8)'s, but it is also
    # sqrt(0.8) = 0.894427190999... correctly rounded to 6 digits: ok, not inexact.
    (m,) = [
        m
        for m in identify_literal(parse_literal("0.894427"), Context(text="relu2"))
        if m.constant.id == "relu2.centered_gain"
    ]
    assert m.digits_correct == 6 and m.verdict == "ok"


def test_ordinary_numbers_need_context_and_context_needs_one_percent():
    assert identify_literal(parse_literal("0.9999999997226765")) == []
    assert identify_literal(parse_literal("0.49999999999925893")) == []  # 1/2, and relu6's 1/2 - 2e-9
    (m,) = identify_literal(parse_literal("0.7500000000000153"), Context(text="selu"))[:1]
    assert m.constant.id == "heuristic.selu_gain" and m.how == "context" and m.verdict == "wrong"
    # two rounded digits agree (1.0 and 1.0) but 0.9953 is 5 % from 1.0476: not identified
    ids = [
        m.constant.id for m in identify_literal(parse_literal("0.995271746431156"), Context(text="truncnorm"))
    ]
    assert "truncnorm.2.5.correction" not in ids


def test_digits_correct_and_key_rules():
    lit = parse_literal("1.7139588594436646")
    assert digits_correct(lit, Decimal("1.7128585504496627")) == 3
    assert digits_correct(parse_literal("0.50"), Decimal("0.5")) == 2
    assert parse_literal("1_000.5e-3").digits == 5 and parse_literal("1.70f").digits == 3
    assert key_subject("relu6") == ("relu6",)
    assert key_subject("shifted_softplus_1") == ()  # names nothing: not softplus
    assert key_subject("gamma") is None  # only generic words: the line decides
    assert ("relu",) in named_in(tokens("x = F.relu(x) * gamma"))


def test_the_generated_index_is_what_the_engine_makes_now():
    """Derive, don't paste: scripts/make_constant_index.py regenerates the decimals."""
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "scripts" / "make_constant_index.py"
    spec = importlib.util.spec_from_file_location("make_constant_index", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render() == module.TARGET.read_text()
