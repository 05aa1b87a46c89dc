"""audit on real trees: whatever the files hold, no traceback (tokens that are no finite
decimal, files that cannot be read or decoded are skipped with a note), and exit codes
0 clean / 1 wrong / 2 nothing to scan / 3 the tool failed. Every fixture is written here."""

from __future__ import annotations

import json
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
