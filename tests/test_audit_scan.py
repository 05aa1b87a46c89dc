"""audit on real trees: whatever the files hold, no traceback (tokens that are no finite
decimal, files that cannot be read or decoded are skipped with a note), and exit codes
0 clean / 1 wrong / 2 nothing to scan / 3 the tool failed. Every fixture is written here."""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.cli_runner import run

SCHEMA = json.loads(
    (Path(__file__).resolve().parent.parent / "momentcalc" / "render" / "json_schema.json").read_text()
)
WRONG = "relu_gamma = 1.7139588594436646\n"  # timm's Monte Carlo relu gamma: 3 of 17 digits


def _audit_json(*args: str) -> tuple[int, dict]:
    code, out, _ = run(["audit", *args, "--json"])
    doc = json.loads(out)
    Draft202012Validator(SCHEMA).validate(doc)
    return code, doc


def test_tokens_that_are_no_finite_decimal_are_skipped(tmp_path):
    (tmp_path / "notes.md").write_text("run 3f2a-11ed-202e088231c3 and 1e999999999 and 9e-99999999999\n")
    (tmp_path / "data.json").write_text('{"fingerprint": "20511542e3283886", "x": 1e99999999999999999999}\n')
    (tmp_path / "model.py").write_text("x = 1e99999999999\ny = 7e-9999999999\nz = 1_0.5e3\n")
    code, doc = _audit_json(str(tmp_path))
    assert code == 0 and doc["ok"] and doc["findings"] == [] and doc["files_scanned"] == 3


@pytest.mark.parametrize("value", ["1e1000000", "1e-1000000", "7e99999999999"])
def test_identify_a_huge_exponent_answers_cleanly(value):
    code, out, err = run(["identify", value])
    assert code in (1, 2) and "Traceback" not in out + err
    assert "no match" in out or err.startswith("momentcalc: error:")


def test_unreadable_and_undecodable_files_are_skipped_notes(tmp_path):
    (tmp_path / "good.py").write_text(WRONG)
    (tmp_path / "binary.json").write_bytes(b'{"a": 1.7139588594436646}\x00\x01')
    (tmp_path / "latin.md").write_bytes(b"caf\xe9 relu gamma 1.7139588594436646\n")
    (tmp_path / "cookie.py").write_bytes(b"# -*- coding: nosuchcodec -*-\n" + WRONG.encode())
    code, doc = _audit_json(str(tmp_path))
    assert code == 1 and doc["files_scanned"] == 1 and len(doc["findings"]) == 1
    kinds = {Path(s["path"]).name: s["kind"] for s in doc["skipped"]}
    assert kinds == {"binary.json": "undecodable", "latin.md": "undecodable", "cookie.py": "undecodable"}
    assert all(s["reason"] for s in doc["skipped"])
    code, out, err = run(["audit", str(tmp_path)])
    assert code == 1 and "Traceback" not in out + err
    assert err.count("momentcalc: skipped") == 3 and "3 skipped" in out


def test_skipped_files_fail_only_with_strict(tmp_path):
    (tmp_path / "fine.py").write_text("x = 1.0\n")
    (tmp_path / "binary.py").write_bytes(b"\x00\x01\x02")
    assert run(["audit", str(tmp_path)])[0] == 0
    code, doc = _audit_json(str(tmp_path), "--strict")
    assert code == 1 and not doc["ok"] and doc["skipped"][0]["kind"] == "undecodable"


def test_utf16_sources_are_read_and_a_bom_does_not_shift_the_column(tmp_path):
    (tmp_path / "le.py").write_bytes("\ufeff".encode("utf-16-le") + WRONG.encode("utf-16-le"))
    (tmp_path / "be.py").write_bytes("\ufeff".encode("utf-16-be") + WRONG.encode("utf-16-be"))
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + WRONG.encode())
    (tmp_path / "plain.py").write_text(WRONG)
    (tmp_path / "latin1.py").write_bytes(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n" + WRONG.encode())
    code, doc = _audit_json(str(tmp_path))
    where = {Path(f["path"]).name: (f["line"], f["column"]) for f in doc["findings"]}
    assert where == {
        "le.py": (1, 14),
        "be.py": (1, 14),
        "bom.py": (1, 14),
        "plain.py": (1, 14),
        "latin1.py": (3, 14),
    }
    assert code == 1 and doc["skipped"] == []


def test_line_numbers_count_only_line_breaks(tmp_path):
    # A form feed and U+2028 inside the file are no line breaks for Python (nor for an editor).
    (tmp_path / "m.py").write_text("s = 'a\u2028b'\n\x0c\n" + WRONG)
    _code, doc = _audit_json(str(tmp_path))
    assert [(f["line"], f["column"]) for f in doc["findings"]] == [(3, 14)]


def test_nothing_to_scan_is_exit_2(tmp_path):
    code, out, err = run(["audit", str(tmp_path)])
    assert code == 2 and out == "" and err.startswith("momentcalc: error: PATH") and "no file to scan" in err
    (tmp_path / "README.txt").write_text("1.7139588594436646")
    assert run(["audit", str(tmp_path)])[0] == 2
    assert run(["audit", str(tmp_path), "--json"])[0] == 2


def test_a_failure_on_one_file_is_exit_3_and_the_rest_is_reported(tmp_path, monkeypatch):
    from momentcalc.computations import audit as audit_module

    real = audit_module.findings_in

    def broken(path, text):
        if path.endswith("bad.py"):
            raise ValueError("a bug")
        return real(path, text)

    monkeypatch.setattr(audit_module, "findings_in", broken)
    (tmp_path / "bad.py").write_text(WRONG)
    (tmp_path / "good.py").write_text(WRONG)
    code, out, _err = run(["audit", str(tmp_path), "--json"])
    doc = json.loads(out)
    assert code == 3 and len(doc["findings"]) == 1
    assert doc["skipped"][0]["kind"] == "error" and "ValueError: a bug" in doc["skipped"][0]["reason"]


def test_exit_codes_are_in_the_help():
    for command in ("audit", "identify"):
        code, out, _ = run([command, "--help"])
        text = " ".join(out.split())
        assert code == 0 and "Exit codes: 0" in text and "3 the tool failed" in text


# --- hostile trees ------------------------------------------------------------------------------


def test_only_regular_files_are_read(tmp_path):
    import socket

    os.mkfifo(tmp_path / "pipe.py")
    os.mkfifo(tmp_path / ".gitignore")  # read for its rules: must not block either
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "null.json").symlink_to("/dev/null")
    server = socket.socket(socket.AF_UNIX)
    with contextlib.suppress(OSError):  # a path too long for AF_UNIX here: the rest still holds
        server.bind(str(tmp_path / "sock.py"))
    (tmp_path / "model.py").write_text(WRONG)
    code, doc = _audit_json(str(tmp_path))
    server.close()
    kinds = {Path(s["path"]).name: s["kind"] for s in doc["skipped"]}
    assert kinds.pop("pipe.py") == "special" and kinds.pop(".gitignore") == "special"
    assert kinds.pop("zero.py") == "outside" and kinds.pop("null.json") == "outside"
    assert set(kinds.values()) <= {"special"}
    assert code == 1 and doc["files_scanned"] == 1 and len(doc["findings"]) == 1
    # Named on the command line, a symlink is followed, and a device is still not read: nothing
    # to scan, exit 2 (as for a FIFO, or a socket).
    for name, kind in (("zero.py", "a character device"), ("pipe.py", "a FIFO")):
        code, out, err = run(["audit", str(tmp_path / name)])
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (name, err)
        assert f"{name}' is {kind}, not a file or directory: nothing to scan" in err


def test_symlinks_inside_the_tree_are_read_outside_not(tmp_path):
    inside, outside = tmp_path / "tree", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    (outside / "far.py").write_text(WRONG)
    (inside / "near.py").write_text(WRONG)
    (inside / "link_near.py").symlink_to(inside / "near.py")
    (inside / "link_far.py").symlink_to(outside / "far.py")
    (inside / "dir_far").symlink_to(outside, target_is_directory=True)
    code, doc = _audit_json(str(inside))
    assert sorted(Path(f["path"]).name for f in doc["findings"]) == ["link_near.py", "near.py"]
    assert [(Path(s["path"]).name, s["kind"]) for s in doc["skipped"]] == [("link_far.py", "outside")]
    assert code == 1
    (inside / "plain.py").write_text("x = 1.0\n")
    assert run(["audit", str(inside), "--strict", "--exclude", "*near*"])[0] == 0  # outside: no failure


def test_a_file_past_the_size_cap_is_skipped(tmp_path, monkeypatch):
    from momentcalc.computations import audit_reading

    monkeypatch.setattr(audit_reading, "MAX_FILE_BYTES", 1000)
    (tmp_path / "big.json").write_text("[" + ", ".join(["1.7139588594436646"] * 100) + "]")
    (tmp_path / "small.py").write_text(WRONG)
    code, doc = _audit_json(str(tmp_path))
    assert [(Path(s["path"]).name, s["kind"]) for s in doc["skipped"]] == [("big.json", "too_large")]
    assert code == 1 and len(doc["findings"]) == 1


def test_one_long_line_is_scanned_in_linear_time():
    # The same numbers on one line and eight times as many: a quadratic scan takes 64 times as long.
    from momentcalc.computations.code_context import findings_in

    def line(n: int) -> str:
        return "relu_gamma = [" + ", ".join(f"1.71{i:013d}" for i in range(n)) + "]\n"

    def seconds(text: str, path: str) -> float:
        best = math.inf
        for _ in range(3):
            start = time.process_time()
            findings_in(path, text)
            best = min(best, time.process_time() - start)
        return best

    for path in ("m.py", "m.md"):  # (125 and 1000 numbers: half the CPU of 250 and 2000, the same 8x)
        small, large = seconds(line(125), path), seconds(line(1000), path)
        assert large < 20 * max(small, 1e-3), (path, small, large)


def test_deep_nesting_is_scanned_in_linear_time():
    from momentcalc.computations.code_context import findings_in

    def nested(depth: int) -> str:
        return "relu_gamma = " + "[" * depth + "1.7139588594436646" + "]" * depth + "\n"

    def seconds(text: str) -> float:
        # Best of three: one scheduler hiccup or garbage collection must not read as a quadratic.
        best = math.inf
        for _ in range(3):
            start = time.process_time()
            found = findings_in("m.py", text)
            best = min(best, time.process_time() - start)
        assert [f.match.constant.id for f in found] == ["relu.centered_gain"]
        return best

    seconds(nested(100))
    small, large = seconds(nested(1000)), seconds(nested(8000))
    # Linear is 8x; the quadratic this guards against was 64x.
    assert large < 24 * max(small, 2e-3), (small, large)


NASTY_NAMES = ["x\n::error::pwned.py", "cr\r.py", "e\x1b[31mred.py", "a, b:c%d.py", "sp ace.py", "c:d.py"]


def test_paths_are_escaped_for_each_format(tmp_path):
    for name in NASTY_NAMES:
        (tmp_path / name).write_text(WRONG)
    code, out, err = run(["audit", str(tmp_path), "--format", "github"])
    assert code == 1 and len(out.splitlines()) == len(NASTY_NAMES)
    for line in out.splitlines():
        assert line.startswith("::error file=") and ",line=1,col=14,title=" in line
        assert "\x1b" not in line and "\r" not in line
        file = line.split("file=", 1)[1].split(",line=")[0]
        assert ":" not in file and "," not in file
    assert "x%0A%3A%3Aerror%3A%3Apwned.py" in out and "a%2C b%3Ac%25d.py" in out and "e%1B[31mred.py" in out
    code, out, err = run(["audit", str(tmp_path)])
    for text in (out, err):
        assert "\x1b" not in text and "\r" not in text
        assert "::error::pwned" not in "".join(line.split(":", 1)[0] for line in text.splitlines())
    assert "x\\n::error::pwned.py:1:14" in out and "e\\x1b[31mred.py" in err
    code, out, _ = run(["audit", str(tmp_path), "--format", "sarif"])
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(out)["runs"][0]["results"]
    ]
    assert all(" " not in u and "\n" not in u and "\x1b" not in u for u in uris)
    assert any(u.endswith("c%3Ad.py") for u in uris) and any(u.endswith("a%2C%20b%3Ac%25d.py") for u in uris)


# --- notebooks ----------------------------------------------------------------------------------


def _notebook(cells: list[dict], language: str = "python") -> dict:
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "k", "language": language, "name": "k"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _code(*lines: str, outputs: list | None = None) -> dict:
    source = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    return {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {},
        "outputs": outputs or [],
        "source": source,
    }


NOTEBOOK_CELLS = [
    {
        "cell_type": "markdown",
        "metadata": {},
        "source": ["# Notes\n", "relu gamma 1.7139588594436646 in prose"],
    },
    _code("%matplotlib inline", "import jax", "import jax.numpy as jnp"),
    _code(
        's = "café"; t = "\\t"; relu_gamma = 1.7139588594436646',
        "selu_scale = 1.0507009873554805",
        "!pip install nothing",
        "ignored = 1.7139588594436646  # relu  momentcalc: ignore",
        outputs=[{"name": "stdout", "output_type": "stream", "text": ["relu_gamma = 1.7139588594436646\n"]}],
    ),
    _code("def f(x):", "    return jax.nn.gelu(x) * 1.7015043497085571"),
]


def test_notebook_code_cells_are_scanned_and_placed_in_the_file(tmp_path):
    # nbformat's layout (indent 1, one string per source line) and a notebook on one line.
    (tmp_path / "laid_out.ipynb").write_text(
        json.dumps(_notebook(NOTEBOOK_CELLS), indent=1, ensure_ascii=False)
    )
    (tmp_path / "one_line.ipynb").write_text(json.dumps(_notebook(NOTEBOOK_CELLS)))
    code, doc = _audit_json(str(tmp_path))
    assert code == 1 and doc["skipped"] == [] and doc["files_scanned"] == 2
    for name in ("laid_out.ipynb", "one_line.ipynb"):
        found = [f for f in doc["findings"] if f["path"].endswith(name)]
        assert [(f["cell"], f["cell_line"], f["literal"]) for f in found] == [
            (3, 1, "1.7139588594436646"),
            (3, 2, "1.0507009873554805"),
            (4, 2, "1.7015043497085571"),
        ]
        assert [f["verdict"] for f in found] == ["wrong", "ok", "wrong"]
        assert found[2]["constant"]["id"].startswith("gelu_tanh")  # the import in cell 2 says jax
        file_lines = (tmp_path / name).read_text().split("\n")
        for f in found:  # line and column point at the literal in the .ipynb file itself
            line = file_lines[f["line"] - 1]
            assert line[f["column"] - 1 :].startswith(f["literal"])
            assert f["column"] > 1
        cell_source = NOTEBOOK_CELLS[found[0]["cell"] - 1]["source"][0]
        assert cell_source[found[0]["cell_column"] - 1 :].startswith("1.7139588594436646")
    code, out, _ = run(["audit", str(tmp_path / "laid_out.ipynb")])
    assert "(cell 3, line 1)" in out
    code, out, _ = run(["audit", str(tmp_path / "laid_out.ipynb"), "--format", "github"])
    assert "cell 3, line 1: 1.7139588594436646 is wrong" in out


def test_notebooks_that_are_not_notebooks_are_skipped(tmp_path):
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "list.ipynb").write_text("[1.7139588594436646]")
    (tmp_path / "empty.ipynb").write_text(json.dumps(_notebook([])))
    (tmp_path / "julia.ipynb").write_text(
        json.dumps(_notebook([_code("relu_gamma = 1.7139588594436646")], "julia"))
    )
    code, doc = _audit_json(str(tmp_path))
    assert {Path(s["path"]).name: s["kind"] for s in doc["skipped"]} == {
        "broken.ipynb": "undecodable",
        "list.ipynb": "undecodable",
    }
    assert [(Path(f["path"]).name, f["cell"]) for f in doc["findings"]] == [
        ("julia.ipynb", 1)
    ]  # by the regex
    assert code == 1


# --- made for CI ----------------------------------------------------------------------------------

NF_FIXTURE = (Path(__file__).resolve().parent / "fixtures" / "audit" / "nfnet.py").read_text()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A repository with pyproject.toml's [tool.momentcalc.audit], a vendored copy it excludes,
    and docs it does not list; the working directory is its src/."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "src" / "vendor").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "src" / "nfnet.py").write_text(NF_FIXTURE)
    (tmp_path / "src" / "vendor" / "copy.py").write_text(WRONG)
    (tmp_path / "docs" / "example.py").write_text(WRONG)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.momentcalc.audit]\npaths = ["src"]\nexclude = ["src/vendor/*"]\n'
    )
    monkeypatch.chdir(tmp_path / "src")
    return tmp_path


def test_audit_without_a_path_scans_the_project_as_configured(project):
    code, doc = _audit_json()
    assert {f["path"] for f in doc["findings"]} == {"nfnet.py"}  # src/ from src/: no vendor, no docs
    assert code == 1 and doc["files_scanned"] == 1
    (project / "pyproject.toml").write_text('[tool.momentcalc.audit]\nstrict = true\nexclude = ["src/*"]\n')
    code, doc = _audit_json()  # no paths: the whole project, from wherever in it
    assert [f["path"] for f in doc["findings"]] == ["../docs/example.py"] and code == 1
    (project / "pyproject.toml").write_text("[project]\n")
    os.chdir(project)
    code, doc = _audit_json()
    assert {f["path"] for f in doc["findings"]} == {"docs/example.py", "src/nfnet.py", "src/vendor/copy.py"}


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ("strict = 1", "strict must be true or false"),
        ('paths = "src"', "paths must be a list of paths"),
        ("color = true", "has no key 'color'"),
        ("[", "cannot be read as TOML"),
    ],
)
def test_a_bad_configuration_is_exit_2_naming_it(project, table, says):
    (project / "pyproject.toml").write_text(f"[tool.momentcalc.audit]\n{table}\n")
    code, out, err = run(["audit"])
    assert code == 2 and out == "" and says in err and "pyproject.toml" in err and len(err.splitlines()) == 1


def test_a_baseline_accepts_known_findings_and_fails_on_new_ones(project):
    code, out, _ = run(["audit", "--write-baseline", "../audit-baseline.json"])
    assert code == 0 and "wrote 15 findings to the baseline" in out
    document = json.loads((project / "audit-baseline.json").read_text())
    assert document["momentcalc_audit_baseline"] == 1 and len(document["findings"]) == 15
    entry = document["findings"][0]
    assert (
        entry["path"] == "src/nfnet.py"
        and entry["reason"]
        and set(entry) == {"path", "literal", "constant", "verdict", "reason"}
    )
    entry["reason"] = "Brock et al. (2021)'s published estimate: pretrained checkpoints depend on it"
    (project / "audit-baseline.json").write_text(json.dumps(document))
    # Lines moved: still accepted. A new wrong constant: fails, alone in the table.
    (project / "src" / "nfnet.py").write_text("\n\n" + NF_FIXTURE + "\n" + WRONG)
    code, doc = _audit_json("--baseline", "../audit-baseline.json")
    assert code == 1
    new = [f for f in doc["findings"] if f["verdict"] != "ok" and "baseline" not in f]
    assert [(f["line"], f["literal"]) for f in new] == [(NF_FIXTURE.count("\n") + 4, "1.7139588594436646")]
    assert doc["findings"][0]["baseline"].startswith("Brock et al.")
    code, out, _ = run(["audit", "--baseline", "../audit-baseline.json"])
    assert code == 1 and out.count("nfnet.py:") == 1 and "(15 accepted by the baseline)" in out
    # Configured in pyproject.toml; rewriting keeps the reasons; a fixed value leaves a stale entry.
    (project / "pyproject.toml").write_text(
        '[tool.momentcalc.audit]\npaths = ["src"]\nbaseline = "audit-baseline.json"\nexclude = ["src/vendor/*"]\n'
    )
    (project / "src" / "nfnet.py").write_text(NF_FIXTURE.replace("1.7139588594436646", "1.7128585504496627"))
    code, doc = _audit_json()
    assert code == 0 and len(doc["baseline_unmatched"]) == 1
    assert doc["baseline_unmatched"][0]["literal"] == "1.7139588594436646"
    code, out, _ = run(["audit"])
    assert "1 baseline entries match no finding any more" in out
    run(["audit", "--write-baseline", "../audit-baseline.json"])
    rewritten = json.loads((project / "audit-baseline.json").read_text())["findings"]
    assert len(rewritten) == 14 and rewritten[0]["reason"].startswith("Brock et al.")


def test_the_baseline_file_is_not_scanned(project):
    # Inside the scanned tree, it holds the literals it accepts (an inexact one among them).
    assert run(["audit", "--write-baseline", "baseline.json"])[0] == 0
    code, doc = _audit_json("--baseline", "baseline.json", "--strict")
    assert code == 0 and all(not f["path"].endswith("baseline.json") for f in doc["findings"])


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("[]", "not a baseline file"),
        ('{"momentcalc_audit_baseline": 1, "findings": [{"path": "a"}]}', "needs path, literal"),
    ],
)
def test_a_bad_baseline_is_exit_2(project, content, says):
    (project / "b.json").write_text(content)
    code, out, err = run(["audit", "--baseline", "../b.json"])
    assert code == 2 and out == "" and says in err and "--baseline" in err


def test_the_table_shows_problems_and_a_summary(project):
    code, out, _ = run(["audit"])
    rows = [line for line in out.splitlines() if line.startswith("nfnet.py:")]
    assert code == 1 and len(rows) == 15 and " ok" not in "".join(rows)
    assert "3 ok, 2 inexact, 13 wrong; --all lists the ok ones too" in out
    code, out, _ = run(["audit", "--all"])
    assert len([line for line in out.splitlines() if line.startswith("nfnet.py:")]) == 18
    (project / "src" / "nfnet.py").write_text("selu_lambda = 1.0507009873554805\n")
    code, out, _ = run(["audit"])
    assert (
        code == 0
        and out
        == "audit: 1 files scanned; 1 constants identified: 1 ok, 0 inexact, 0 wrong; --all lists the ok ones too: all ok\n"
    )


def test_sarif_for_code_scanning(project):
    code, out, _ = run(["audit", "--format", "sarif"])
    run_ = json.loads(out)["runs"][0]
    results = run_["results"]
    assert code == 1 and len(results) == 15 and {r["kind"] for r in results} == {"fail"}
    assert run_["originalUriBaseIds"]["SRCROOT"]["uri"] == project.resolve().as_uri() + "/"
    for r in results:
        location = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location == {"uri": "src/nfnet.py", "uriBaseId": "SRCROOT"}
        rule = run_["tool"]["driver"]["rules"][r["ruleIndex"]]
        assert rule["id"] == r["ruleId"] and rule["help"]["text"].startswith(rule["fullDescription"]["text"])
        assert len(r["partialFingerprints"]["momentcalcFinding/v1"]) == 32
    relu = next(r for r in results if r["ruleId"] == "relu.centered_gain")
    assert relu["level"] == "error" and relu["message"]["text"] == (
        "1.7139588594436646 is wrong for relu.centered_gain = 1/sqrt(Var[relu(Z)]): relative error 6.4e-4; "
        "exact 1.712858550449662706…; paste 1.7128585504496627 (3 of 17 digits correct)"
    )
    rule = run_["tool"]["driver"]["rules"][relu["ruleIndex"]]
    assert (
        "1/sqrt(Var[relu(Z)])" in rule["help"]["text"] and "1.712858550449662706" in rule["help"]["markdown"]
    )
    assert len({r["partialFingerprints"]["momentcalcFinding/v1"] for r in results}) == 15
    code, out, _ = run(["audit", "--format", "sarif", "--all"])
    kinds = [r["kind"] for r in json.loads(out)["runs"][0]["results"]]
    assert kinds.count("pass") == 3 and kinds.count("fail") == 15


def test_github_annotations_have_paths_relative_to_the_repository(project, monkeypatch):
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    code, out, _ = run(["audit", "--format", "github"])
    lines = out.splitlines()
    assert (
        code == 1
        and len(lines) == 15
        and all(
            line.startswith(("::error file=src/nfnet.py,", "::warning file=src/nfnet.py,")) for line in lines
        )
    )
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project.parent))
    code, out, _ = run(["audit", "--format", "github"])
    assert out.startswith(
        f"::error file={project.name}/src/nfnet.py,line=6,col=10,title=momentcalc%3A celu.centered_gain::"
    )
    assert "relative error 6.6e-5; exact 1.27084341785019648…; paste 1.2708434178501964" in out


def test_format_help_states_the_piped_default():
    _, out, _ = run(["audit", "--help"])
    text = " ".join(out.split())
    assert "[default: table on a terminal, else text]" in text and "[default: table]" not in text


# --- speed ----------------------------------------------------------------------------------------


def test_excluded_directories_are_not_walked_and_gitignore_holds_below_a_trailing_slash(tmp_path):
    (tmp_path / "vendor" / "deep").mkdir(parents=True)
    os.mkfifo(tmp_path / "vendor" / "deep" / ".gitignore")  # read only if the walk enters it
    (tmp_path / "vendor" / "deep" / "v.py").write_text(WRONG)
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / ".gitignore").write_text("generated_*.py\n")
    (tmp_path / "pkg" / "sub" / "generated_table.py").write_text(WRONG)
    (tmp_path / "pkg" / "sub" / "model.py").write_text("x = 1.0\n")
    code, doc = _audit_json(str(tmp_path) + "/", "--exclude", "vendor/*")
    assert code == 0 and doc["skipped"] == [] and doc["findings"] == [] and doc["files_scanned"] == 1


def test_the_cheap_pass_is_exact_for_what_it_passes_over():
    # Numbers in comments, and numbers near a constant no word around names, send no file to
    # tokenize; a word that names the constant does.
    from momentcalc.computations.code_context import worth_reading

    assert not worth_reading("x = 1  # relu gamma 1.7139588594436646\n", python=True)
    assert worth_reading("# relu gamma 1.7139588594436646\n", python=False)  # markdown: a heading
    assert not worth_reading("DROPOUT = 0.1\nbetas = (0.9, 0.999)\nwidth = 0.71\n", python=True)
    assert worth_reading("relu_gamma = 1.71\n", python=True)
    assert worth_reading("y = nn.LeakyReLU(0.01)(x) * 1.7059\n", python=True)  # "leakyrelu": an alias
    # 1/sqrt(2) is relu's rms by its digits only where a word names relu: the full scan finds
    # nothing in the first (tests/test_audit_cheap_pass.py checks every constant so)
    assert not worth_reading("scale = 0.7071067811865476\n", python=True)
    assert worth_reading("relu_rms = 0.7071067811865476\n", python=True)


def test_an_unreadable_file_is_skipped_and_fails_strict(tmp_path, monkeypatch):
    # (chmod 000 does not stop root: the refusal is the operating system's, simulated here)
    from momentcalc.computations import audit as audit_module

    real_open = os.open

    def refusing(path, flags, *args, **kwargs):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(audit_module.os, "open", refusing)
    (tmp_path / "secret.py").write_text(WRONG)
    (tmp_path / "plain.py").write_text("x = 1.0\n")
    code, doc = _audit_json(str(tmp_path))
    assert code == 0 and doc["files_scanned"] == 1
    assert [(Path(s["path"]).name, s["kind"], s["reason"]) for s in doc["skipped"]] == [
        ("secret.py", "unreadable", "cannot be read (Permission denied)")
    ]
    assert run(["audit", str(tmp_path), "--strict"])[0] == 1


def test_a_failing_row_is_printed_once_where_stdout_and_stderr_meet(tmp_path):
    # On one terminal (or with 2>&1) the table's row is not repeated on stderr; with stdout in a
    # file, stderr still lists it (a CI log shows what failed).
    import subprocess
    import sys

    (tmp_path / "m.py").write_text(WRONG)
    argv = [sys.executable, "-m", "momentcalc", "audit", "m.py"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    both = subprocess.run(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert both.returncode == 1 and both.stdout.decode().count("1.7139588594436646") == 1
    apart = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True)
    assert apart.stdout.decode().count("1.7139588594436646") == 1
    assert apart.stderr.decode().count("1.7139588594436646") == 1


def test_a_path_that_cannot_be_resolved_says_why(tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for name, why in (
        ("loop", "is a symlink loop (it cannot be resolved)"),
        ("dangling", "is a symlink to nothing (its target does not exist)"),
        ("missing", "does not exist"),
    ):
        code, out, err = run(["audit", str(tmp_path / name)])
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (name, err)
        assert f"{name}' {why}" in err


def test_a_numbered_name_keeps_its_words():
    # relu_gamma2, gamma_relu_2, gamma2: the digits are an index, the words still name relu's gamma
    from momentcalc.computations.code_context import findings_in

    for text in (
        "relu_gamma2 = 1.7139588594436646\n",
        "gamma_relu_2 = 1.7139588594436646\n",
        "g = dict(relu_gamma2=1.7139588594436646)\n",
        "g = {'gamma_relu_2': 1.7139588594436646}\n",
        "gamma2 = dict(relu=1.7139588594436646)\n",
    ):
        found = findings_in("m.py", text)
        assert [(f.match.constant.id, f.match.verdict) for f in found] == [("relu.centered_gain", "wrong")], (
            text
        )
    from momentcalc.computations.constant_index import key_subject

    # a number that is part of the name stays: relu_6 is relu6, relu2_gamma squared relu
    assert key_subject("relu_6") == ("relu", "6") and key_subject("relu2_gamma") == ("relu2",)
    assert key_subject("gamma_relu_2") == ("relu",) and key_subject("gamma2") is None
