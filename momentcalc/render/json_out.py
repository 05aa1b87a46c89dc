"""JSON: exactly one document on stdout.

Long lists (per-layer weights at 10^6 layers) are written on one line each: indenting two
million items one per line costs more than the whole computation. Lists that say what they
hold (``Numerals``, ``Underflowed``) are joined directly instead of going through the
encoder item by item.
"""

from __future__ import annotations

import json
from typing import Any

from ..result import Computation, Listing, Numerals, Sweep, Underflowed
from .document import ExactNumber, document

LONG_LIST = 1000
_MARK = "\x00long-list\x00"
_EXACT = "\x00exact\x00"


def render_json(result: Computation | Sweep | Listing) -> str:
    return "".join(json_pieces(result))


def json_pieces(result: Computation | Sweep | Listing) -> list[str]:
    """The document as consecutive pieces of text: a 30 MB document is written piece by
    piece rather than copied into one string."""
    long_lists: list[list[Any]] = []
    exact: list[str] = []

    def swap(node: Any) -> Any:
        if isinstance(node, ExactNumber):
            exact.append(node.text)
            return _EXACT
        if isinstance(node, dict):
            return {key: swap(value) for key, value in node.items()}
        if isinstance(node, list):
            if len(node) > LONG_LIST:
                long_lists.append(node)
                return _MARK
            return [swap(value) for value in node]
        return node

    text = _dumps(swap(document(result)), indent=2)
    if exact:  # inputs whose exact decimal is longer than a double's shortest text
        parts = text.split(json.dumps(_EXACT))
        text = "".join(part + number for part, number in zip(parts, [*exact, ""], strict=True))
    pieces = text.split(json.dumps(_MARK))
    out = [pieces[0]]
    for items, piece in zip(long_lists, pieces[1:], strict=True):
        out += [*compact_list(items), piece]
    return out


def compact_list(items: list[Any]) -> list[str]:
    """``json.dumps(items)`` in pieces, faster for lists that say what they hold."""
    if isinstance(items, Numerals) and items:
        return ['["', '", "'.join(items), '"]']
    if isinstance(items, Underflowed) and items.zeros:
        rest = items[items.zeros:]
        return ["[0.0", ", 0.0" * (items.zeros - 1), ", " + _dumps(rest)[1:-1] if rest else "", "]"]
    return [_dumps(items)]


def _dumps(data: Any, indent: int | None = None) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)
