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

import codecs
import fnmatch
import io
import os
import re
import stat
import tokenize
from collections.abc import Iterator, Sequence

from ..tier import InputError, Listing
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
        if not os.path.exists(path):
            raise InputError(
                f"{{path}} {_quoted(path)} does not exist",
                param="path",
                allowed="existing files or directories",
            )
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
            f"{', '.join((*PYTHON, *REGEX, NOTEBOOK))}, or what --include names)",
            param="path",
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
        + ("" if show_all or not counts["ok"] else "; --all lists the ok ones too"),
        *(
            (f"wrote {written} findings to the baseline {shown(write_baseline or '')}",)
            if written is not None
            else ()
        ),
        *(
            (
                f"{len(stale)} baseline entries match no finding any more (fixed?): rewrite the baseline "
                "with --write-baseline",
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
        notes=tuple(n.replace("{", "(").replace("}", ")") for n in notes),
        labels={"digits": "digits correct/written"},
        rows_in_json=False,
        failures=tuple(
            f"{shown(f['path'])}:{f['line']}:{f['column']}: {f['literal']} is {f['verdict']}: "
            f"{f['constant']['id']} = {f['constant']['exact']}"
            for f in findings
            if _fails(f, worst)
        ),
    )


def _quoted(path: str) -> str:
    return repr(shown(path)).replace("{", "(").replace("}", ")")


def _normal(path: str) -> str:
    """A path as findings give it: ``/`` separators, no ``./`` in front."""
    return os.path.normpath(path).replace(os.sep, "/")


def _problem(finding: dict) -> bool:
    """Shown in the table without --all: a finding that is not ok and not accepted."""
    return finding["verdict"] != "ok" and "baseline" not in finding


# What a terminal would act on: C0 and C1 controls (ESC among them), line and paragraph
# separators, bidirectional overrides and isolates. Shown as Python escapes.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shown(path: str) -> str:
    """A path as it may reach a terminal or a text table: control characters escaped."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), path)


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


class Skipped(Exception):
    """A file audit could not read as text: ``kind`` (unreadable, undecodable, special,
    too_large, error) and the reason in words."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(kind, reason)
        self.kind, self.reason = kind, reason


# UTF-32 before UTF-16: UTF-32-LE's BOM begins with UTF-16-LE's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode(path: str, data: bytes) -> str:
    """A file's bytes as text: by its byte-order mark (UTF-8, UTF-16 or UTF-32; the mark itself
    dropped, so columns do not shift), for Python by its coding declaration (PEP 263), else
    UTF-8. Raises ``Skipped`` for a binary file or bytes that are not text in that encoding."""
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), None)
    if encoding is None:
        if b"\0" in data:
            raise Skipped("undecodable", "a binary file (it holds NUL bytes)")
        encoding = "utf-8"
        if path.endswith(PYTHON):
            try:
                encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            except SyntaxError as error:
                raise Skipped("undecodable", f"its coding declaration is not usable ({error.msg})") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise Skipped(
            "undecodable",
            f"not {encoding.upper().replace('-SIG', '')} text (byte {error.start} on line {line})",
        ) from None


# A file larger than this is skipped (kind too_large): generated data, not code.
MAX_FILE_BYTES = 10_000_000
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _not_regular(mode: int) -> Skipped:
    what = next((text for test, text in _KINDS if test(mode)), "a special file")
    return Skipped("special", f"not a regular file ({what})")


def read_bytes(path: str) -> bytes:
    """A regular file's bytes, at most MAX_FILE_BYTES; raises ``Skipped`` for anything else
    (a FIFO, device or socket is never opened for reading: it could block or never end) and
    FileNotFoundError for a path that is not there."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise
    except OSError as error:
        raise Skipped("unreadable", f"cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise _not_regular(mode)
    try:  # non-blocking, not a controlling terminal: harmless if it was swapped for a FIFO since
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise Skipped("unreadable", f"cannot be read ({error.strerror or error})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(mode)
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise Skipped("unreadable", f"cannot be read ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise Skipped("too_large", f"larger than {MAX_FILE_BYTES // 1_000_000} MB")
    return b"".join(chunks)


def read_text(path: str) -> str:
    try:
        data = read_bytes(path)
    except FileNotFoundError as error:
        raise Skipped("unreadable", f"cannot be read ({error.strerror})") from None
    return decode(path, data)


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
                "cell": cell.index,
                "cell_line": cell_line,
                "cell_column": f.column,
                **finding_fields(f),
            }
        )
    return found
