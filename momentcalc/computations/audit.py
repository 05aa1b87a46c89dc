"""``audit PATH...``: the initialization constants written in a codebase, each checked against
momentcalc's index (``identify``'s rules: by value or by context, ``digits_correct``,
``ulps_off``, ``verdict``).

Each file's numbers and their context are read by ``code_context`` (Python with ``tokenize``,
numbers in strings and comments are not code; json, yaml, toml, cfg, ini, js, ts, c, cc, cpp, h,
hpp, cu, jl, rs, go, java and md by a number regex) and judged by ``identification``. A file is
tokenized only when a regex finds a decimal literal in it that could be a finding (most files
have none); directories are walked with ``.gitignore`` respected (and ``.git`` and hidden directories
skipped); ``include``/``exclude`` are globs on the path relative to the argument (or the file
name). A line containing ``momentcalc: ignore`` is skipped.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterator, Sequence

from ..tier import InputError, Listing
from .audit_reading import Skipped, read_bytes, read_text, shown, special_kind
from .code_context import PYTHON, findings_in, source_lines
from .identify import finding_fields

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
NOTEBOOK = ".ipynb"
IGNORE = "momentcalc: ignore"
SEVERITY = {"ok": 0, "inexact": 1, "wrong": 2}
COMMANDS = {"audit": "audit"}


def audit(
    paths: Sequence[str],
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    strict: bool = False,
    root: str | None = None,
    baseline: str | None = None,
    show_all: bool = False,
    write_baseline: str | None = None,
) -> Listing:
    """Findings in every file under ``paths``; ``ok`` is False when any is wrong (or, with
    ``strict``, inexact, or a file skipped) and not accepted by the ``baseline`` file.
    ``write_baseline``: a baseline file written with every problem found (the reasons of its
    entries kept), then applied.
    ``include``/``exclude`` globs match a path relative to its argument, to ``root`` (the
    project) or a file name. The table's rows are the problems (``show_all``: every finding)."""
    if not paths:
        raise InputError(
            "{path} is required: give files or directories to scan",
            param="path",
            allowed="files or directories",
        )
    for path in paths:
        _check_given(path)
    entries = None
    if baseline is not None:
        from .audit_project import load_baseline

        entries = load_baseline(baseline)
    findings: list[dict] = []
    skipped: list[dict] = []
    scanned = 0
    candidates = 0
    # The baseline file is no source: its literals are the findings it accepts.
    own = {os.path.realpath(f) for f in (baseline, write_baseline) if f is not None}
    for path in files(paths, include, exclude, skipped, root and os.path.abspath(root)):
        if own and os.path.realpath(path) in own:
            continue
        candidates += 1
        try:
            findings += scan_file(path)
        except Skipped as why:
            skipped.append({"path": _normal(path), "kind": why.kind, "reason": why.reason})
            continue
        except Exception as error:  # a bug of ours on this file: reported, the run goes on, exit 3
            skipped.append(
                {
                    "path": _normal(path),
                    "kind": "error",
                    "reason": f"momentcalc failed on it ({type(error).__name__}: {error})",
                }
            )
            continue
        scanned += 1
    failing_skips = [s for s in skipped if s["kind"] != "outside"]
    if not candidates and not failing_skips:
        raise InputError(
            f"{{path}} {', '.join(_quoted(p) for p in paths)} holds no file to scan (audit reads "
            f"{', '.join((*PYTHON, *REGEX, NOTEBOOK))}, or what {{include}} names)",
            param="path",
            params=("include",),
        )
    stale: list[dict] = []
    written = None
    if write_baseline is not None:
        from .audit_project import baseline_document, load_baseline

        previous = load_baseline(write_baseline) if os.path.isfile(write_baseline) else []
        document = baseline_document(findings, write_baseline, previous)
        try:
            with open(write_baseline, "w", encoding="utf-8") as handle:
                handle.write(document)
        except OSError as error:
            raise InputError(
                f"{{write_baseline}} {_quoted(write_baseline)} cannot be written ({error.strerror or error})",
                param="write_baseline",
            ) from None
        baseline, entries = write_baseline, load_baseline(write_baseline)
        written = len(entries)
    if entries is not None and baseline is not None:
        from .audit_project import apply_baseline

        stale = apply_baseline(findings, entries, baseline)
    worst = "inexact" if strict else "wrong"
    ok = not any(_fails(f, worst) for f in findings) and not (strict and failing_skips)
    shown_findings = [f for f in findings if show_all or _problem(f)]
    rows = tuple(
        {
            "location": f"{shown(f['path'])}:{f['line']}:{f['column']}"
            + (f" (cell {f['cell']}, line {f['cell_line']})" if "cell" in f else ""),
            "literal": f["literal"],
            "constant": f["constant"]["id"],
            "exact": f["constant"]["exact"],
            "digits": f"{f['digits_correct']}/{f['digits_written']}",
            "verdict": f["verdict"]
            + (
                " (baseline)"
                if "baseline" in f
                else " (test data)"
                if f.get("test_data") and f["verdict"] != "ok"
                else ""
            ),
        }
        for f in shown_findings
    )
    counts = {v: sum(f["verdict"] == v for f in findings) for v in SEVERITY}
    accepted = sum("baseline" in f for f in findings)
    in_tests = sum(
        bool(f.get("test_data")) and f["verdict"] != "ok" and "baseline" not in f for f in findings
    )
    notes = (
        f"{scanned} files scanned"
        + (f", {len(skipped)} skipped" if skipped else "")
        + f"; {len(findings)} constants identified: {counts['ok']} ok, "
        f"{counts['inexact']} inexact, {counts['wrong']} wrong"
        + (f" ({accepted} accepted by the baseline)" if accepted else "")
        + (f" ({in_tests} in test data, not failing)" if in_tests else "")
        + ("" if show_all or not counts["ok"] else "; {all} lists the ok ones too"),
        *(
            (f"wrote {written} findings to the baseline {_braceless(shown(write_baseline or ''))}",)
            if written is not None
            else ()
        ),
        *(
            (
                f"{len(stale)} baseline entries match no finding any more (fixed?): rewrite the baseline "
                "with {write_baseline}",
            )
            if stale
            else ()
        ),
    )
    extra: dict = {"findings": findings, "files_scanned": scanned, "skipped": skipped}
    if entries is not None:
        extra["baseline_unmatched"] = [{k: e[k] for k in ("path", "literal", "constant")} for e in stale]
    return Listing(
        "audit",
        ("location", "literal", "constant", "exact", "digits", "verdict"),
        rows,
        title="audit: initialization constants in the code, against their exact values",
        ok=ok,
        extra=extra,
        notes=notes,  # placeholders: {all}, {write_baseline}; a path in a note has no braces
        labels={"digits": "digits correct/written"},
        rows_in_json=False,
        failures=tuple(
            f"{shown(f['path'])}:{f['line']}:{f['column']}: {f['literal']} is {f['verdict']}: "
            f"{f['constant']['id']} = {f['constant']['exact']}"
            for f in findings
            if _fails(f, worst)
        ),
    )


def _check_given(path: str) -> None:
    """A path named on the command line is a directory or a regular file (through its symlinks),
    else exit 2 saying what it is: nothing to scan."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            what = "is a symlink loop (it cannot be resolved)"
        elif os.path.islink(path):
            what = "is a symlink to nothing (its target does not exist)"
        elif error.errno in (errno.ENOENT, errno.ENOTDIR):
            what = "does not exist"
        else:
            what = f"cannot be read ({error.strerror or error})"
        raise InputError(
            f"{{path}} {_quoted(path)} {what}", param="path", allowed="existing files or directories"
        ) from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise InputError(
            f"{{path}} {_quoted(path)} is {special_kind(mode)}, not a file or directory: nothing to scan",
            param="path",
            allowed="existing files or directories",
        )


def _quoted(path: str) -> str:
    return _braceless(repr(shown(path)))


def _braceless(text: str) -> str:
    """A path as a message shows it: braces as parentheses, so that no ``{name}`` in a file's
    name reads as an argument's placeholder."""
    return text.replace("{", "(").replace("}", ")")


def _normal(path: str) -> str:
    """A path as findings give it: ``/`` separators, no ``./`` in front."""
    return os.path.normpath(path).replace(os.sep, "/")


def _problem(finding: dict) -> bool:
    """Shown in the table without --all: a finding that is not ok and not accepted."""
    return finding["verdict"] != "ok" and "baseline" not in finding


def _fails(finding: dict, worst: str) -> bool:
    """Does the finding fail the run? (Test data never does: it is reported, marked.)"""
    return (
        SEVERITY[finding["verdict"]] >= SEVERITY[worst]
        and not finding.get("test_data")
        and "baseline" not in finding
    )


# --- files -------------------------------------------------------------------------------------


def files(
    paths: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    skipped: list[dict] | None = None,
    project: str | None = None,
) -> Iterator[str]:
    """The files to scan under ``paths``; what cannot be walked is added to ``skipped``.

    A path given by name is read even through a symlink (it was asked for); in a directory,
    symlinked directories are not entered and a symlinked file is read only when it points to
    a file inside the directory (a ``skipped`` entry of kind ``outside`` otherwise)."""
    skipped = [] if skipped is None else skipped
    rules_of: dict[str, list[tuple[str, str, bool, bool]]] = {}
    suffixes = (*PYTHON, *REGEX, NOTEBOOK)
    for path in paths:
        if not os.path.isdir(path):
            if _wanted(
                os.path.basename(path), os.path.basename(path), include, exclude, _from(project, path)
            ):
                yield path
            continue
        top = os.path.realpath(path)
        in_project = _from(project, path) if include or exclude else None
        # (followlinks=False: symlinked directories not entered; normpath: "src/" and "src" alike,
        # so that each directory finds its parent's .gitignore rules)
        for root, dirs, names in os.walk(os.path.normpath(path)):
            # Paths relative to the argument and to the project, by strings: once per directory.
            below = os.path.relpath(root, path)
            below = "" if below == "." else below.replace(os.sep, "/") + "/"
            project_below = None if in_project is None else _joined(in_project, below)
            rules = _gitignore(root, rules_of, skipped)
            kept = []
            for d in sorted(dirs):
                if d.startswith(".") or (rules and _ignored(root, d, True, rules)):
                    continue
                if exclude and _pruned(
                    (below + d, *((project_below + d,) if project_below is not None else ())), exclude
                ):
                    continue  # every file below it is excluded: not walked at all
                kept.append(d)
            dirs[:] = kept
            for name in sorted(names):
                if not include and not name.endswith(suffixes):
                    continue
                if rules and _ignored(root, name, False, rules):
                    continue
                in_tree = None if project_below is None else project_below + name
                if (include or exclude) and not _wanted(below + name, name, include, exclude, in_tree):
                    continue
                full = os.path.join(root, name)
                if os.path.islink(full) and not _inside(os.path.realpath(full), top):
                    skipped.append(
                        {
                            "path": _normal(full),
                            "kind": "outside",
                            "reason": "a symlink to a file outside the tree (not followed)",
                        }
                    )
                    continue
                yield full


def _joined(directory: str, below: str) -> str:
    directory = directory.replace(os.sep, "/")
    return below if directory in ("", ".") else directory.rstrip("/") + "/" + below


def _pruned(forms: tuple[str, ...], exclude: Sequence[str]) -> bool:
    """Does an exclude glob ``D/*`` (or ``D/**``) cover the directory, so that no file below it
    can be wanted?"""
    for glob in exclude:
        stem = glob[:-3] if glob.endswith("/**") else glob[:-2] if glob.endswith("/*") else None
        if stem and any(fnmatch.fnmatch(form, stem) for form in forms):
            return True
    return False


def _inside(target: str, top: str) -> bool:
    return target == top or target.startswith(top.rstrip(os.sep) + os.sep)


def _from(project: str | None, path: str) -> str | None:
    """``path`` relative to the project's directory, when it is below it."""
    if project is None:
        return None
    relative = os.path.relpath(os.path.abspath(path), project)
    return None if relative.startswith("..") else relative


def _wanted(
    relative: str, name: str, include: Sequence[str], exclude: Sequence[str], in_project: str | None = None
) -> bool:
    forms = [relative.replace(os.sep, "/"), name]
    if in_project is not None:
        forms.append(in_project.replace(os.sep, "/"))
    if any(fnmatch.fnmatch(form, g) for g in exclude for form in forms):
        return False
    if include:
        return any(fnmatch.fnmatch(form, g) for g in include for form in forms)
    return name.endswith((*PYTHON, *REGEX, NOTEBOOK))


# .gitignore: each directory's rules apply below it (patterns with a slash are anchored to that
# directory; "!" re-includes; a trailing "/" matches directories only).


def _gitignore(
    root: str, rules_of: dict[str, list[tuple[str, str, bool, bool]]], skipped: list[dict]
) -> list[tuple[str, str, bool, bool]]:
    parent = os.path.dirname(root)
    inherited = rules_of.get(parent, []) if parent != root else []
    own = []
    path = os.path.join(root, ".gitignore")
    try:
        text = read_bytes(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        text = ""
    except Skipped as why:
        skipped.append({"path": _normal(path), "kind": why.kind, "reason": why.reason})
        text = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line[1:] if negate else line
        directory = line.endswith("/")
        line = line.rstrip("/")
        own.append((root, line, negate, directory))
    rules = inherited + own
    rules_of[root] = rules
    return rules


def _ignored(root: str, name: str, is_dir: bool, rules: list[tuple[str, str, bool, bool]]) -> bool:
    ignored = False
    for base, pattern, negate, directory in rules:
        if directory and not is_dir:
            continue
        inside = root[len(base) :].lstrip(os.sep).replace(os.sep, "/")  # (base: root or above it)
        relative = f"{inside}/{name}" if inside else name
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
    """The findings of one file; raises ``Skipped`` when it cannot be read as text."""
    text = read_text(path)
    if path.endswith(NOTEBOOK):
        return _scan_notebook(path, text)
    lines = source_lines(text)
    found = []
    for f in findings_in(path, text):
        line = lines[f.line - 1] if f.line <= len(lines) else ""
        if IGNORE in line:
            continue
        found.append({"path": _normal(path), "line": f.line, "column": f.column, **finding_fields(f)})
    return found


def _scan_notebook(path: str, text: str) -> list[dict]:
    """A notebook's code cells, each finding placed in the .ipynb file and in its cell."""
    from .notebook import NotANotebook, cell_of, place_in_file, read_notebook

    try:
        notebook = read_notebook(text)
    except NotANotebook as error:
        raise Skipped("undecodable", str(error)) from None
    if not notebook.cells:
        return []
    lines = source_lines(notebook.source)
    found = []
    for f in findings_in(path, notebook.source, python=notebook.python):
        if IGNORE in (lines[f.line - 1] if f.line <= len(lines) else ""):
            continue
        cell, cell_line = cell_of(notebook, f.line)
        line, column = place_in_file(notebook, cell, cell_line, f.column)
        found.append(
            {
                "path": _normal(path),
                "line": line,
                "column": column,
                "cell": cell.number,
                "cell_line": cell_line,
                "cell_column": f.column,
                **finding_fields(f),
            }
        )
    return found
