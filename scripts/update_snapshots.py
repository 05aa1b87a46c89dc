"""Regenerate ``tests/snapshots/`` from the cases in ``tests/snapshot_cases.py``.

Run after a deliberate change of output (``python scripts/update_snapshots.py``), then review
``git diff tests/snapshots`` before committing: every changed byte is a user-visible change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.snapshot_cases import CASES, SIZED_CASES, run_case, run_sized_case  # noqa: E402

SNAPSHOTS = ROOT / "tests" / "snapshots"


def main() -> None:
    SNAPSHOTS.mkdir(exist_ok=True)
    for old in list(SNAPSHOTS.glob("*.out")) + list(SNAPSHOTS.glob("*.err")):
        old.unlink()
    codes = {}
    for name, argv in CASES:
        code, stdout, stderr = run_case(argv)
        (SNAPSHOTS / f"{name}.out").write_bytes(stdout.encode())
        if stderr:
            (SNAPSHOTS / f"{name}.err").write_bytes(stderr.encode())
        codes[name] = code
    for name, width, argv in SIZED_CASES:
        code, stdout, stderr = run_sized_case(width, argv)
        (SNAPSHOTS / f"{name}.out").write_bytes(stdout.encode())
        if stderr:
            (SNAPSHOTS / f"{name}.err").write_bytes(stderr.encode())
        codes[name] = code
    (SNAPSHOTS / "exit_codes.json").write_text(json.dumps(codes, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(CASES) + len(SIZED_CASES)} snapshots to {SNAPSHOTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
