"""The documentation a user reads: README.md and the pages of the documentation site (docs/,
built by mkdocs). Their examples are tested (tests/test_docs.py) and regenerated
(scripts/update_readme_examples.py) page by page."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = (README, *sorted((ROOT / "docs").rglob("*.md")))


def text() -> str:
    """Every page, one after another (README first)."""
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))
