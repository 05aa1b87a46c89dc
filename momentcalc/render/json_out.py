"""JSON: exactly one document on stdout.

Long lists (per-layer weights at 10^6 layers) are written on one line each: indenting two
million items one per line costs more than the whole computation.
"""

from __future__ import annotations

import json
from typing import Any

from ..result import Computation, Listing, Sweep
from .document import document

LONG_LIST = 1000


def render_json(result: Computation | Sweep | Listing) -> str:
    long_lists: list[list[Any]] = []

    def swap(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: swap(value) for key, value in node.items()}
        if isinstance(node, list):
            if len(node) > LONG_LIST:
                long_lists.append(node)
                return f"\x00{len(long_lists) - 1}\x00"
            return [swap(value) for value in node]
        return node

    text = json.dumps(swap(document(result)), indent=2, ensure_ascii=False, allow_nan=False)
    for index, items in enumerate(long_lists):
        compact = json.dumps(items, ensure_ascii=False, allow_nan=False)
        text = text.replace(f'"\\u0000{index}\\u0000"', compact, 1)
    return text
