"""``audit``'s findings for CI: SARIF 2.1.0 (GitHub code scanning and other SARIF viewers) and
GitHub Actions workflow commands (``::error file=…,line=…,col=…::…``, shown on the pull request's
diff). Both read the findings ``computations.audit`` puts in the listing's ``extra``."""

from __future__ import annotations

import json
from typing import Any

from .._version import __version__
from ..result import Listing

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"wrong": "error", "inexact": "warning", "ok": "note"}
RULES = {
    "wrong": "the literal disagrees with the exact constant beyond one digit and four ulps",
    "inexact": "the literal is one digit short or one to four ulps from the correctly rounded constant",
    "ok": "the literal is the constant, correctly rounded (or the same double)",
}


def message(f: dict[str, Any]) -> str:
    c = f["constant"]
    ulps = "" if f["ulps_off"] is None else f", {f['ulps_off']:+d} ulps"
    heuristic = " (a heuristic)" if c.get("heuristic") else ""
    return (
        f"{f['literal']} is {f['verdict']}: {c['id']}{heuristic} = {c['formula']} = {c['exact']}; "
        f"{f['digits_correct']} of {f['digits_written']} digits correct{ulps}"
    )


def render_audit(result: Listing, fmt: str) -> str:
    findings = result.extra.get("findings", [])
    if fmt == "github":
        lines = []
        for f in findings:
            if f["verdict"] == "ok":
                continue
            kind = "error" if f["verdict"] == "wrong" else "warning"
            text = message(f).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            path = f["path"].replace("%", "%25").replace(",", "%2C").replace(":", "%3A")
            lines.append(f"::{kind} file={path},line={f['line']},col={f['column']}::{text}\n")
        return "".join(lines)
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "momentcalc",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/momentcalc/",
                        "rules": [
                            {
                                "id": f"constant-{v}",
                                "shortDescription": {"text": text},
                                "defaultConfiguration": {"level": LEVEL[v]},
                            }
                            for v, text in RULES.items()
                        ],
                    }
                },
                "results": [
                    {
                        "ruleId": f"constant-{f['verdict']}",
                        "level": LEVEL[f["verdict"]],
                        "message": {"text": message(f)},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": f["path"]},
                                    "region": {
                                        "startLine": f["line"],
                                        "startColumn": f["column"],
                                        "endColumn": f["column"] + len(f["literal"]),
                                    },
                                }
                            }
                        ],
                        "properties": {
                            "constant": f["constant"]["id"],
                            "exact": f["constant"]["exact"],
                            "digits_correct": f["digits_correct"],
                            "digits_written": f["digits_written"],
                            "ulps_off": f["ulps_off"],
                            "match": f["match"],
                        },
                    }
                    for f in findings
                ],
            }
        ],
    }
    return json.dumps(sarif, indent=2) + "\n"
