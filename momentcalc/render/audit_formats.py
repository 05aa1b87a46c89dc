"""``audit``'s findings for CI: SARIF 2.1.0 (GitHub code scanning and other SARIF viewers) and
GitHub Actions workflow commands (``::error file=…,line=…,col=…::…``, shown on the pull request's
diff). Both read the findings ``computations.audit`` puts in the listing's ``extra``."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

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
    cell = f"cell {f['cell']}, line {f['cell_line']}: " if "cell" in f else ""
    return (
        f"{cell}{f['literal']} is {f['verdict']}: {c['id']}{heuristic} = {c['formula']} = {c['exact']}; "
        f"{f['digits_correct']} of {f['digits_written']} digits correct{ulps}"
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


def render_audit(result: Listing, fmt: str) -> str:
    findings = result.extra.get("findings", [])
    if fmt == "github":
        lines = []
        for f in findings:
            if f["verdict"] == "ok":
                continue
            kind = "error" if f["verdict"] == "wrong" else "warning"
            where = f"file={command_property(f['path'])},line={f['line']},col={f['column']}"
            lines.append(f"::{kind} {where}::{command_data(message(f))}\n")
        for entry in result.extra.get("skipped", []):
            kind = "error" if entry["kind"] == "error" else "warning"
            text = f"skipped: {entry['reason']}"
            lines.append(f"::{kind} file={command_property(entry['path'])}::{command_data(text)}\n")
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
                                    "artifactLocation": {"uri": sarif_uri(f["path"])},
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
