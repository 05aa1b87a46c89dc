"""``audit PATH...``: the initialization constants written in a codebase, each checked against
momentcalc's index (``identify``'s rules: by value or by context, ``digits_correct``,
``ulps_off``, ``verdict``).

Python is read with ``tokenize`` (numbers in strings and comments are not code); each number's
context is its line, the name the statement assigns to, and the dict key or keyword it is the
value of. json, yaml, toml, cfg, ini, js, ts, c, cc, cpp, h, hpp, cu, jl, rs, go, java and md are
read by a number regex, with the line and a ``key:``/``key =`` just before the number as context.
A file is tokenized only when a regex finds a decimal literal in it at all (most files have
none); directories are walked with ``.gitignore`` respected (and ``.git`` and hidden directories
skipped); ``include``/``exclude`` are globs on the path relative to the argument (or the file
name). A line containing ``momentcalc: ignore`` is skipped.
"""

from __future__ import annotations

import fnmatch
import io
import os
import re
import tokenize
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..tier import InputError, Listing
from .identify import (
    Literal,
    Match,
    ROUNDING_DIGITS,
    exact_text,
    identify_literal,
    near,
    parse_literal,
    subject_words,
    subjects_named,
    tokens,
)

PYTHON = (".py", ".pyi")
REGEX = (
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".cfg",
    ".ini",
    ".js",
    ".ts",
    ".c",
    ".cc",
    ".cpp",
    ".h",
    ".hpp",
    ".cu",
    ".cuh",
    ".jl",
    ".rs",
    ".go",
    ".java",
    ".md",
)
IGNORE = "momentcalc: ignore"
# A decimal literal with a point or an exponent (integers are counts, not constants): the
# pattern (?<![\w.])(?:\d[\d_]*\.[\d_]*|\.\d[\d_]*|\d[\d_]*(?=[eE][+-]?\d))(?:[eE][+-]?\d+)?[fFdD]?(?![\w.]),
# written to begin with a character class so that the regex engine skips ahead to the next digit
# or point instead of testing the look-behind at every position (twice as fast over a tree; the
# same matches on 10,000 files of Python's standard library).
NUMBER = re.compile(
    r"[\d.](?<![\w.][\d.])(?:(?<=\d)[\d_]*\.[\d_]*|(?<=\.)\d[\d_]*|(?<=\d)[\d_]*(?=[eE][+-]?\d))"
    r"(?:[eE][+-]?\d+)?[fFdD]?(?![\w.])"
)
KEY_BEFORE = re.compile(r"""["']?([A-Za-z_][\w.\-]*)["']?\s*(?::|=|:=|=>)\s*$""")
SEVERITY = {"ok": 0, "inexact": 1, "wrong": 2}
COMMANDS = {"audit": "audit"}


def audit(
    paths: Sequence[str], *, include: Sequence[str] = (), exclude: Sequence[str] = (), strict: bool = False
) -> Listing:
    """Findings in every file under ``paths``; ``ok`` is False when any is wrong (or, with
    ``strict``, inexact)."""
    if not paths:
        raise InputError(
            "{path} is required: give files or directories to scan",
            param="path",
            allowed="files or directories",
        )
    for path in paths:
        if not os.path.exists(path):
            raise InputError(
                f"{{path}} {path!r} does not exist", param="path", allowed="existing files or directories"
            )
    findings: list[dict] = []
    scanned = 0
    for path in files(paths, include, exclude):
        scanned += 1
        findings += scan_file(path)
    worst = "inexact" if strict else "wrong"
    ok = not any(SEVERITY[f["verdict"]] >= SEVERITY[worst] for f in findings)
    rows = tuple(
        {
            "location": f"{f['path']}:{f['line']}:{f['column']}",
            "literal": f["literal"],
            "constant": f["constant"]["id"],
            "exact": f["constant"]["exact"],
            "digits": f"{f['digits_correct']}/{f['digits_written']}",
            "verdict": f["verdict"],
        }
        for f in findings
    )
    counts = {v: sum(f["verdict"] == v for f in findings) for v in SEVERITY}
    notes = (
        f"{scanned} files scanned; {len(findings)} constants identified: {counts['ok']} ok, "
        f"{counts['inexact']} inexact, {counts['wrong']} wrong",
    )
    return Listing(
        "audit",
        ("location", "literal", "constant", "exact", "digits", "verdict"),
        rows,
        title="audit: initialization constants in the code, against their exact values",
        ok=ok,
        extra={"findings": findings, "files_scanned": scanned},
        notes=notes,
        labels={"digits": "digits correct/written"},
        rows_in_json=False,
        failures=tuple(
            f"{r['location']}: {r['literal']} is {r['verdict']}: {r['constant']} = {r['exact']}"
            for r, f in zip(rows, findings)
            if SEVERITY[f["verdict"]] >= SEVERITY[worst]
        ),
    )


# --- files -------------------------------------------------------------------------------------


def files(paths: Sequence[str], include: Sequence[str], exclude: Sequence[str]) -> Iterator[str]:
    for path in paths:
        if os.path.isfile(path):
            if _wanted(os.path.basename(path), os.path.basename(path), include, exclude, explicit=True):
                yield path
            continue
        for root, dirs, names in os.walk(path):
            rules = _gitignore(root)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not _ignored(root, d, True, rules))
            for name in sorted(names):
                if _ignored(root, name, False, rules):
                    continue
                relative = os.path.relpath(os.path.join(root, name), path)
                if _wanted(relative, name, include, exclude):
                    yield os.path.join(root, name)


def _wanted(
    relative: str, name: str, include: Sequence[str], exclude: Sequence[str], explicit: bool = False
) -> bool:
    relative = relative.replace(os.sep, "/")
    if any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) for g in exclude):
        return False
    if include:
        return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) for g in include)
    return name.endswith(PYTHON + REGEX)


# .gitignore: each directory's rules apply below it (patterns with a slash are anchored to that
# directory; "!" re-includes; a trailing "/" matches directories only).
_RULES: dict[str, list[tuple[str, str, bool, bool]]] = {}


def _gitignore(root: str) -> list[tuple[str, str, bool, bool]]:
    parent = os.path.dirname(root)
    inherited = _RULES.get(parent, []) if parent != root else []
    own = []
    try:
        with open(os.path.join(root, ".gitignore"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                negate = line.startswith("!")
                line = line[1:] if negate else line
                directory = line.endswith("/")
                line = line.rstrip("/")
                own.append((root, line, negate, directory))
    except OSError:
        pass
    rules = inherited + own
    _RULES[root] = rules
    return rules


def _ignored(root: str, name: str, is_dir: bool, rules: list[tuple[str, str, bool, bool]]) -> bool:
    ignored = False
    for base, pattern, negate, directory in rules:
        if directory and not is_dir:
            continue
        relative = os.path.relpath(os.path.join(root, name), base).replace(os.sep, "/")
        anchored = "/" in pattern
        target = pattern.lstrip("/")
        hit = fnmatch.fnmatch(relative, target) if anchored else fnmatch.fnmatch(name, target)
        if not hit and "**" in target:
            hit = fnmatch.fnmatch(relative, target.replace("**/", ""))
        if hit:
            ignored = not negate
    return ignored


# --- one file ----------------------------------------------------------------------------------


def scan_file(path: str) -> list[dict]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if not _worth_reading(text):
        return []
    lines = text.splitlines()
    found = []
    numbers = _python_numbers(text) if path.endswith(PYTHON) else _regex_numbers(lines)
    for line_no, column, literal_text, key, assigned in numbers:
        line = lines[line_no - 1] if line_no <= len(lines) else ""
        if IGNORE in line:
            continue
        literal = parse_literal(literal_text)
        if literal is None or literal.digits < 2 or not near(literal, 2):
            continue  # no constant within 2 digits: neither value nor context can identify it
        subjects = subjects_named(key, [line] + ([assigned] if assigned else []))
        matches = identify_literal(literal, subjects)
        if matches:
            found.append(finding(path, line_no, column, literal, matches[0]))
    return found


def _worth_reading(text: str) -> bool:
    """Could any decimal literal of the file be a finding? (The cheap pass: a regex, and for
    each literal the sorted index; only then does a Python file go through tokenize.) A
    literal can be identified by value only with ≥ 5 digits within a relative 10^-4 of a
    constant, and by context only when some constant agrees to 2 digits and its line has a word
    of some subject."""
    for hit in NUMBER.finditer(text):
        literal = parse_literal(hit.group())
        if literal is None or literal.digits < 2:
            continue
        if literal.digits >= ROUNDING_DIGITS and near(literal, ROUNDING_DIGITS):
            return True
        if not near(literal, 2):
            continue
        start = text.rfind("\n", 0, hit.start()) + 1
        end = text.find("\n", hit.end())
        if subject_words().intersection(tokens(text[start : end if end >= 0 else len(text)])):
            return True
    return False


def finding(path: str, line: int, column: int, literal: Literal, m: Match) -> dict:
    digits = min(38, max(17, literal.digits + 2))
    return {
        "path": path.replace(os.sep, "/"),
        "line": line,
        "column": column,
        "literal": literal.text,
        "match": m.how,
        "constant": {
            "id": m.constant.id,
            "name": m.constant.name,
            "formula": m.constant.formula,
            "exact": exact_text(m.constant, digits),
            "heuristic": m.constant.heuristic,
        },
        "digits_written": literal.digits,
        "digits_correct": m.digits_correct,
        "ulps_off": m.ulps_off,
        "verdict": m.verdict,
    }


def _regex_numbers(lines: list[str]) -> Iterator[tuple[int, int, str, str | None, str | None]]:
    for i, line in enumerate(lines, 1):
        for hit in NUMBER.finditer(line):
            before = KEY_BEFORE.search(line[: hit.start()])
            yield i, hit.start() + 1, hit.group(), before.group(1) if before else None, None


def _python_numbers(text: str) -> Iterator[tuple[int, int, str, str | None, str | None]]:
    """(line, column, literal, key or keyword, assigned name) of every float literal."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        yield from _regex_numbers(text.splitlines())
        return
    significant = [
        t
        for t in tokens
        if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    ]
    assigned: str | None = None
    statement_start = True
    depth = 0
    for i, tok in enumerate(significant):
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            assigned, statement_start, depth = None, True, 0
            continue
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(0, depth - 1)
        if (
            statement_start
            and depth == 0
            and tok.type == tokenize.OP
            and tok.string in ("=", ":", "+=", "*=", "/=")
        ):
            names = [t.string for t in significant[_start(significant, i) : i] if t.type == tokenize.NAME]
            assigned = names[-1] if names else assigned
            statement_start = False
        if tok.type != tokenize.NUMBER or not NUMBER.fullmatch(tok.string):
            continue
        key = None
        j = i - 1
        while j >= 0 and significant[j].type == tokenize.OP and significant[j].string in ("-", "+"):
            j -= 1
        if j >= 1 and significant[j].type == tokenize.OP and significant[j].string in ("=", ":"):
            before = significant[j - 1]
            if before.type == tokenize.NAME or before.type == tokenize.STRING:
                key = before.string.strip("'\"") if (depth > 0 or before.type == tokenize.STRING) else None
        # The assigned name speaks for the value and for the items of a flat list or dict, not
        # for numbers deep inside a nested table (scipy's ``truncnorm`` test rows).
        yield tok.start[0], tok.start[1] + 1, tok.string, key, assigned if depth <= 1 else None


def _start(tokens: list, i: int) -> int:
    j = i
    while j > 0 and tokens[j - 1].type not in (tokenize.NEWLINE,):
        j -= 1
    return j
