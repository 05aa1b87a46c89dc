"""JSON: exactly one document on stdout."""

from __future__ import annotations

import json

from ..result import Computation, Listing, Sweep
from .document import document


def render_json(result: Computation | Sweep | Listing) -> str:
    return json.dumps(document(result), indent=2, ensure_ascii=False, allow_nan=False)
