"""Where ``audit`` runs: the project (``[tool.momentcalc.audit]`` in pyproject.toml), and the
baseline file of findings accepted on purpose.

*The project* is the nearest directory from the working directory up holding a pyproject.toml
(the search stops at a repository's top, a directory with ``.git``), else the working
directory. Its ``[tool.momentcalc.audit]`` table may set ``paths``, ``include``, ``exclude``
(lists of strings; paths relative to that directory), ``strict`` (a boolean) and ``baseline`` (a
file, relative to that directory); options on the command line replace them.

*A baseline* is a JSON file listing findings that are known and kept (a published table of
estimates that checkpoints depend on), each with a reason:
``{"momentcalc_audit_baseline": 1, "findings": [{"path", "literal", "constant", "verdict",
"reason"}]}``, paths relative to the baseline file's directory. A finding is accepted when an
entry has its path, literal and constant (line numbers are not compared, so that edits above it
do not undo the acceptance); each entry accepts one finding. Accepted findings never fail the
run; entries no finding matches any more are reported, so that the baseline shrinks as values
are fixed.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

from ..errors import InputError
from .audit_reading import Skipped, read_bytes, shown

CONFIG_TABLE = "[tool.momentcalc.audit]"
CONFIG_KEYS = {
    "paths": "a list of paths",
    "include": "a list of globs",
    "exclude": "a list of globs",
    "strict": "true or false",
    "baseline": "a file name",
}
BASELINE_VERSION_KEY = "momentcalc_audit_baseline"
DEFAULT_REASON = "accepted when the baseline was written: replace with why this value is kept"


class Project(NamedTuple):
    directory: str  # absolute
    config_file: str | None  # the pyproject.toml whose table was read
    paths: tuple[str, ...]
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    strict: bool
    baseline: str | None


def find_project(start: str | None = None) -> Project:
    """The project around ``start`` (the working directory) and its audit settings."""
    here = os.path.abspath(start or os.getcwd())
    directory = here
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            return _configured(directory, candidate)
        parent = os.path.dirname(directory)
        if parent == directory or os.path.exists(os.path.join(directory, ".git")):
            return Project(here, None, (), (), (), False, None)
        directory = parent


def _configured(directory: str, file: str) -> Project:
    import tomllib

    try:
        with open(file, "rb") as handle:
            data = tomllib.loads(handle.read(4_000_000).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise InputError(
            f"{shown_path(file)} cannot be read as TOML ({error}): fix it, or run audit elsewhere"
        ) from None
    table = (
        data.get("tool", {}).get("momentcalc", {}).get("audit", {})
        if isinstance(data.get("tool"), dict)
        else {}
    )
    if not isinstance(table, dict):
        raise InputError(f"{shown_path(file)}: {CONFIG_TABLE} must be a table")
    for key, value in table.items():
        allowed = CONFIG_KEYS.get(key)
        if allowed is None:
            raise InputError(
                f"{shown_path(file)}: {CONFIG_TABLE} has no key {key!r}; it takes {', '.join(CONFIG_KEYS)}"
            )
        good = (
            isinstance(value, bool)
            if key == "strict"
            else isinstance(value, str)
            if key == "baseline"
            else isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
        if not good:
            raise InputError(f"{shown_path(file)}: {CONFIG_TABLE} {key} must be {allowed}, got {value!r}")
    baseline = table.get("baseline")
    return Project(
        directory,
        file,
        tuple(_shown_from(directory, p) for p in table.get("paths", ())),
        tuple(table.get("include", ())),
        tuple(table.get("exclude", ())),
        bool(table.get("strict", False)),
        _shown_from(directory, baseline) if baseline else None,
    )


def _shown_from(directory: str, path: str) -> str:
    """A path of the project's table as the working directory reaches it (relative when it is
    below the working directory)."""
    full = os.path.normpath(os.path.join(directory, path))
    relative = os.path.relpath(full)
    return full if relative.startswith("..") else relative


def shown_path(path: str) -> str:
    """A path for an error message: placeholders' braces and control characters made harmless."""
    return shown(path).replace("{", "(").replace("}", ")")


# --- the baseline ---------------------------------------------------------------------------------


def _key(finding: dict[str, Any], base: str) -> tuple[str, str, str]:
    path = os.path.relpath(os.path.abspath(finding["path"]), base).replace(os.sep, "/")
    return (
        path,
        finding["literal"],
        finding["constant"]["id"] if isinstance(finding["constant"], dict) else finding["constant"],
    )


def load_baseline(file: str) -> list[dict[str, str]]:
    """The entries of a baseline file; a file that is not one is exit 2, naming it."""
    name = shown_path(file)
    try:
        document = json.loads(read_bytes(file).decode("utf-8"))
    except FileNotFoundError:
        raise InputError(
            f"{{baseline}} {name} does not exist: write it with {{write_baseline}} {name}",
            params=("baseline", "write_baseline"),
        ) from None
    except (Skipped, UnicodeDecodeError, ValueError) as error:
        raise InputError(
            f"{{baseline}} {name} is not a baseline file ({getattr(error, 'reason', error)})",
            param="baseline",
        ) from None
    if not isinstance(document, dict) or document.get(BASELINE_VERSION_KEY) != 1:
        raise InputError(
            f'{{baseline}} {name} is not a baseline file (no "{BASELINE_VERSION_KEY}": 1)', param="baseline"
        )
    entries = document.get("findings")
    required = ("path", "literal", "constant", "reason")
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and all(isinstance(e.get(k), str) for k in required) for e in entries
    ):
        raise InputError(
            f"{{baseline}} {name}: every entry needs {', '.join(required)} (strings; the reason says why it is kept)",
            param="baseline",
        )
    return entries


def apply_baseline(
    findings: list[dict[str, Any]], entries: list[dict[str, str]], file: str
) -> list[dict[str, str]]:
    """Mark each finding an entry accepts (``"baseline": reason``); the entries left over."""
    base = os.path.dirname(os.path.abspath(file))
    waiting: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for entry in entries:
        waiting.setdefault((entry["path"], entry["literal"], entry["constant"]), []).append(entry)
    for finding in findings:
        if finding["verdict"] == "ok":
            continue
        queue = waiting.get(_key(finding, base))
        if queue:
            finding["baseline"] = queue.pop(0)["reason"]
    return [entry for queue in waiting.values() for entry in queue]


def baseline_document(findings: list[dict[str, Any]], file: str, previous: list[dict[str, str]]) -> str:
    """A baseline accepting every problem of ``findings`` (the reasons of ``previous`` entries kept)."""
    base = os.path.dirname(os.path.abspath(file))
    reasons: dict[tuple[str, str, str], list[str]] = {}
    for entry in previous:
        reasons.setdefault((entry["path"], entry["literal"], entry["constant"]), []).append(entry["reason"])
    entries = []
    for finding in findings:
        if finding["verdict"] == "ok" or finding.get("test_data"):
            continue
        key = _key(finding, base)
        kept = reasons.get(key)
        entries.append(
            {
                "path": key[0],
                "literal": key[1],
                "constant": key[2],
                "verdict": finding["verdict"],
                "reason": kept.pop(0) if kept else DEFAULT_REASON,
            }
        )
    return json.dumps({BASELINE_VERSION_KEY: 1, "findings": entries}, indent=2, ensure_ascii=False) + "\n"
