"""``init-report``'s verdicts for CI: SARIF 2.1.0 (code scanning) and GitHub Actions workflow
commands (``::error file=…,line=…::…``), each pointing at the config file and the line of the key
the verdict is about. ``ok`` verdicts are left out of both (problems only, as ``audit``)."""

from __future__ import annotations

import json
from typing import Any

from .._version import __version__
from ..result import Computation
from .audit_formats import SARIF_SCHEMA

LEVEL = {"wrong": "error", "warn": "warning"}
RULES = {
    "initial_loss": "the expected initial loss against ln(vocab)",
    "output_logit_std": "the output logits' std at init",
    "truncation": "a truncated-normal init whose bounds never fire",
    "depth_scaling": "depth scaling of the residual output projections, applied consistently",
    "residual_growth": "the residual stream's growth over the embeddings at init",
    "tied_head": "an untied output head drawn at the embedding's scale, or a tie the config does not ask for",
    "attention_logits": "attention logits large enough at init that attention is not uniform",
    "width": "init multipliers or attention scale that contradict the named parametrization",
}


def message(verdict: dict[str, Any]) -> str:
    return f"{verdict['check']} ({verdict['parameter']}): {verdict['verdict']}: {verdict['message']}"


def _escape(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def render_init_report(result: Computation, fmt: str) -> str:
    path = str(result.inputs.get("config", ""))
    problems = [v for v in result.extra.get("verdicts", []) if v["verdict"] != "ok"]
    if fmt == "github":
        kinds = {"wrong": "error", "warn": "warning"}
        return "".join(
            f"::{kinds[v['verdict']]} file={_escape(path, True)},line={v['line']},"
            f"title={_escape('init-report ' + v['check'], True)}::{_escape(message(v))}\n"
            for v in problems
        )
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "momentcalc init-report",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/momentcalc/",
                        "rules": [
                            {"id": f"init-{check}", "shortDescription": {"text": text}}
                            for check, text in RULES.items()
                        ],
                    }
                },
                "results": [
                    {
                        "ruleId": f"init-{v['check']}",
                        "level": LEVEL[v["verdict"]],
                        "message": {"text": message(v)},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": path},
                                    "region": {"startLine": v["line"]},
                                }
                            }
                        ],
                        "properties": {"parameter": v["parameter"], "verdict": v["verdict"]},
                    }
                    for v in problems
                ],
            }
        ],
    }
    return json.dumps(sarif, indent=2) + "\n"
