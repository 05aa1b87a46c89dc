"""``audit``'s findings for CI: SARIF 2.1.0 (GitHub code scanning and other SARIF viewers) and
GitHub Actions workflow commands (``::error file=…,line=…,col=…::…``, shown on the pull request's
diff). Both read the findings ``computations.audit`` puts in the listing's ``extra``.

Both carry the problems only: ``wrong`` (error) and ``inexact`` (warning) findings that are not
accepted by a baseline; SARIF also carries test data's problems as notes, accepted findings with
an external suppression and its reason, and with ``--all`` each ``ok`` constant as kind
``pass``. Paths are relative to the project (GitHub's: to ``GITHUB_WORKSPACE`` when set): SARIF
URIs are percent-encoded with ``uriBaseId`` SRCROOT, whose absolute URI ``originalUriBaseIds``
gives. Each SARIF rule is one constant, its help the formula and the exact value.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._version import __version__
from ..result import Listing

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"wrong": "error", "inexact": "warning", "ok": "none"}
BASE_ID = "SRCROOT"


def relative_error(x: float | None) -> str:
    """6.4e-4, not 6.4e-04."""
    if x is None:
        return "n/a"
    mantissa, _, exponent = f"{x:.1e}".partition("e")
    return f"{mantissa}e{int(exponent)}"


def message(f: dict[str, Any]) -> str:
    """What a reviewer needs: the relative error, the exact value and the double to paste."""
    c = f["constant"]
    heuristic = " (a heuristic)" if c.get("heuristic") else ""
    cell = f"cell {f['cell']}, line {f['cell_line']}: " if "cell" in f else ""
    head = f"{cell}{f['literal']} is {f['verdict']} for {c['id']}{heuristic} = {c['formula']}"
    if f["verdict"] == "ok":
        return f"{head} = {c['exact']}…"
    return (
        f"{head}: relative error {relative_error(f.get('rel_error'))}; exact {c['exact']}…; "
        f"paste {f['paste']} ({f['digits_correct']} of {f['digits_written']} digits correct)"
    )


# Other control characters (ESC: a terminal's colours and cursor moves; bidirectional
# overrides) as their percent-encoded bytes: the runner leaves them as they are, and a log
# viewer shows them as text.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def command_data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it (so that a newline in
    it cannot start a command of its own, such as ``::stop-commands::``)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _CONTROL.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), text)


def command_property(text: str) -> str:
    """A workflow command's property value (``file=``): the data escapes and ``:`` and ``,``."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


def sarif_uri(path: str) -> str:
    """A path as a SARIF ``uri``: percent-encoded (a space, ``%``, a control character, and ``:``
    so that ``c:d.py`` is no scheme), ``/`` kept."""
    return quote(path, safe="/")


def _relative(path: str, root: str | None) -> str | None:
    """``path`` relative to ``root`` with ``/``, or None when it is not below it."""
    if root is None:
        return path if not os.path.isabs(path) else None
    relative = os.path.relpath(os.path.abspath(path), root)
    return None if relative.startswith("..") else relative.replace(os.sep, "/")


def _problem(f: dict[str, Any]) -> bool:
    return f["verdict"] != "ok" and "baseline" not in f and not f.get("test_data")


def render_audit(result: Listing, fmt: str, root: str | None = None, show_all: bool = False) -> str:
    findings = result.extra.get("findings", [])
    if fmt == "github":
        return _github(result, findings, os.environ.get("GITHUB_WORKSPACE") or root)
    return _sarif(result, findings, root, show_all)


def _github(result: Listing, findings: list[dict[str, Any]], root: str | None) -> str:
    def where(path: str) -> str:
        return command_property(_relative(path, root) or os.path.abspath(path))

    lines = []
    for f in findings:
        if not _problem(f):
            continue
        kind = "error" if f["verdict"] == "wrong" else "warning"
        lines.append(
            f"::{kind} file={where(f['path'])},line={f['line']},col={f['column']},"
            f"title={command_property('momentcalc: ' + f['constant']['id'])}::{command_data(message(f))}\n"
        )
    for entry in result.extra.get("skipped", []):
        kind = "error" if entry["kind"] == "error" else "warning"
        text = f"skipped: {entry['reason']}"
        lines.append(f"::{kind} file={where(entry['path'])}::{command_data(text)}\n")
    return "".join(lines)


def _fingerprint(key: tuple[str, ...], seen: dict[tuple[str, ...], int]) -> str:
    """Stable across edits elsewhere in the file: the path, the constant and the literal (and
    which occurrence of them), not the line."""
    seen[key] = seen.get(key, 0) + 1
    return hashlib.sha256("\0".join((*key, str(seen[key]))).encode()).hexdigest()[:32]


def _artifact(path: str, root: str | None) -> dict[str, str]:
    """A SARIF artifactLocation: relative to SRCROOT, or an absolute file URI outside it."""
    relative = _relative(path, root)
    if relative is not None and root is not None:
        return {"uri": sarif_uri(relative), "uriBaseId": BASE_ID}
    if relative is not None:
        return {"uri": sarif_uri(relative)}
    return {"uri": Path(os.path.abspath(path)).as_uri()}


def _sarif(result: Listing, findings: list[dict[str, Any]], root: str | None, show_all: bool) -> str:
    chosen = [f for f in findings if f["verdict"] != "ok" or show_all]
    rules: dict[str, dict[str, Any]] = {}
    for f in chosen:
        c = f["constant"]
        if c["id"] not in rules:
            text = f"{c['name']}: {c['formula']} = {c['exact']}…"
            rules[c["id"]] = {
                "id": c["id"],
                "name": "".join(part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", c["id"]) if part),
                "shortDescription": {"text": f"a literal of {c['name']}"},
                "fullDescription": {"text": text},
                "help": {
                    "text": f"{text}. A literal of this constant is judged by the digits it gets right: ok when "
                    "it is the correctly rounded value (or the same double), inexact one digit or 1-4 ulps off, "
                    "wrong beyond. Paste the exact value's double, or accept the finding in a baseline with a reason.",
                    "markdown": f"**{c['name']}** = `{c['formula']}` = `{c['exact']}…`\n\n"
                    "`ok`: the correctly rounded value (or the same double); `inexact`: one digit or 1-4 ulps "
                    "off; `wrong`: beyond. Paste the exact value's double, or accept the finding in a baseline "
                    "(`momentcalc audit --write-baseline FILE`) with a reason.",
                },
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["initialization", c.get("kind") or "constant"]},
            }
    index = {rule_id: i for i, rule_id in enumerate(rules)}
    seen: dict[tuple[str, ...], int] = {}
    results = []
    for f in chosen:
        relative = _relative(f["path"], root)
        location = _artifact(f["path"], root)
        entry: dict[str, Any] = {
            "ruleId": f["constant"]["id"],
            "ruleIndex": index[f["constant"]["id"]],
            "message": {"text": message(f)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": location,
                        "region": {
                            "startLine": f["line"],
                            "startColumn": f["column"],
                            "endColumn": f["column"] + len(f["literal"]),
                        },
                    }
                }
            ],
            "partialFingerprints": {
                "momentcalcFinding/v1": _fingerprint(
                    (relative or f["path"], f["constant"]["id"], f["literal"]), seen
                )
            },
            "properties": {
                "verdict": f["verdict"],
                "exact": f["constant"]["exact"],
                "paste": f["paste"],
                "rel_error": f.get("rel_error"),
                "digits_correct": f["digits_correct"],
                "digits_written": f["digits_written"],
                "ulps_off": f["ulps_off"],
                "match": f["match"],
            },
        }
        if f["verdict"] == "ok":
            entry["kind"], entry["level"] = "pass", "none"
        else:
            entry["kind"], entry["level"] = "fail", "note" if f.get("test_data") else LEVEL[f["verdict"]]
        if "baseline" in f:
            entry["suppressions"] = [{"kind": "external", "justification": f["baseline"]}]
        if f.get("test_data"):
            entry["properties"]["test_data"] = True
        results.append(entry)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "momentcalc",
                "version": __version__,
                "informationUri": "https://pypi.org/project/momentcalc/",
                "rules": list(rules.values()),
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if root is not None:
        run["originalUriBaseIds"] = {BASE_ID: {"uri": Path(root).as_uri().rstrip("/") + "/"}}
    notifications = [
        {
            "level": "error" if entry["kind"] == "error" else "warning",
            "message": {"text": f"skipped: {entry['reason']}"},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(entry["path"], root)}}],
        }
        for entry in result.extra.get("skipped", [])
    ]
    if notifications:
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": notifications}]
    sarif = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(sarif, indent=2) + "\n"
