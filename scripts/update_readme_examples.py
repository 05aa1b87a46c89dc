"""Re-run every complete `$ momentcalc ...` example in README.md and the documentation pages
(docs/*.md) and paste its real output.

    python scripts/update_readme_examples.py

Examples whose output is abridged (a line starting with "...") or that pipe into another program
are left alone. tests/test_docs.py checks that the pages match.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def run(line: str) -> list[str]:
    """What the example prints on a terminal of 100 columns (tests/cli_runner.py)."""
    sys.path.insert(0, str(README.parent))
    from tests.cli_runner import run_as_on_a_terminal

    return run_as_on_a_terminal(line)


def update_block(block: str) -> str:
    lines = block.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith("$ momentcalc ") or "|" in line:
            continue
        j = i
        while j < len(lines) and not lines[j].startswith("$ "):
            j += 1
        shown = lines[i:j]
        # an example that only draws a figure (--plot) shows no output; every other one shows it
        if (shown or "--plot " not in line) and not any(s.startswith("...") for s in shown):
            shown = run(line)
        out.extend(shown)
        i = j
    return "\n".join(out) + "\n"


def main() -> None:
    sys.path.insert(0, str(README.parent))
    from tests.doc_pages import PAGES

    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        updated = update_page(text)
        if updated != text:
            page.write_text(updated, encoding="utf-8")


def update_page(text: str) -> str:
    text = re.sub(
        r"(```console\n)(.*?)(```)",
        lambda m: m.group(1) + update_block(m.group(2)) + m.group(3),
        text,
        flags=re.S,
    )
    text = re.sub(
        r"(<!-- initializers-table -->\n)(.*?)(\n<!-- /initializers-table -->)",
        lambda m: m.group(1) + initializers_table() + m.group(3),
        text,
        flags=re.S,
    )
    if JQ_LINE in text:
        text = update_jq_block(text)
    return text


JQ_LINE = "$ momentcalc truncnorm --json | jq '{schema_version, inputs, gamma: .results.gamma}'\n"


def jq_projection() -> str:
    """What the README's one ``| jq`` example prints (jq indents by 2, as json.dumps)."""
    import json

    sys.path.insert(0, str(README.parent))
    from tests.cli_runner import run as run_in_process

    data = json.loads(run_in_process(["truncnorm", "--json"])[1])
    projected = {
        "schema_version": data["schema_version"],
        "inputs": data["inputs"],
        "gamma": data["results"]["gamma"],
    }
    return json.dumps(projected, indent=2, ensure_ascii=False) + "\n"


def update_jq_block(text: str) -> str:
    start = text.index(JQ_LINE) + len(JQ_LINE)
    return text[:start] + jq_projection() + text[text.index("```", start) :]


def initializers_table() -> str:
    sys.path.insert(0, str(README.parent))
    from momentcalc.computations.initializer import ratio_table_markdown

    return ratio_table_markdown()


if __name__ == "__main__":
    main()
