"""JSON: exactly one document on stdout.

Long lists (per-layer weights at 10^6 layers) are written on one line each: indenting two
million items one per line costs more than the whole computation. Lists that say what they
hold (``Numerals``, ``Underflowed``) are joined directly instead of going through the
encoder item by item. The writer walks the document itself (``json.dumps`` with ``indent=2``
for everything else), so long lists need no placeholder.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring
from typing import Any

from ..result import Computation, Listing, Numerals, Sweep, Underflowed
from .document import ExactNumber, document

LONG_LIST = 1000
INDENT = "  "


def render_json(result: Computation | Sweep | Listing) -> str:
    return "".join(json_pieces(result))


def json_pieces(result: Computation | Sweep | Listing) -> list[str]:
    """The document as consecutive pieces of text (a 30 MB document is written piece by piece
    rather than copied into one string): ``json.dumps(document, indent=2)`` exactly, except
    that lists longer than LONG_LIST stay on one line."""
    out: list[str] = []
    _write(document(result), 0, out)
    return out


def _write(node: Any, level: int, out: list[str]) -> None:
    if isinstance(node, ExactNumber):  # an input's exact decimal, longer than a double's text
        out.append(node.text)
        return
    if isinstance(node, dict):
        items = list(node.items())
        opening, closing = "{", "}"
    elif isinstance(node, (list, tuple)):
        if len(node) > LONG_LIST:
            out.extend(compact_list(node))
            return
        scalars = _scalar_texts(node)
        if scalars is not None and scalars:  # one piece per list, not one encoder call per item
            inner = ",\n" + INDENT * (level + 1)
            out.append("[\n" + INDENT * (level + 1) + inner.join(scalars) + "\n" + INDENT * level + "]")
            return
        items = [(None, value) for value in node]
        opening, closing = "[", "]"
    else:
        out.append(_dumps(node))
        return
    if not items:
        out.append(opening + closing)
        return
    inner = "\n" + INDENT * (level + 1)
    out.append(opening)
    for i, (key, value) in enumerate(items):
        out.append(("," if i else "") + inner + ("" if key is None else _dumps(str(key)) + ": "))
        _write(value, level + 1, out)
    out.append("\n" + INDENT * level + closing)


def compact_list(items: list[Any] | tuple[Any, ...]) -> list[str]:
    """``json.dumps(items)`` in pieces, faster for lists that say what they hold."""
    if isinstance(items, Numerals) and items:
        return ['["', '", "'.join(items), '"]']
    if isinstance(items, Underflowed) and items.zeros:
        rest = items[items.zeros :]
        return ["[0.0", ", 0.0" * (items.zeros - 1), ", " + _dumps(rest)[1:-1] if rest else "", "]"]
    return [_dumps(items)]


def _scalar_texts(items: list[Any] | tuple[Any, ...]) -> list[str] | None:
    """What ``json.dumps`` writes for each item, when the list holds only numerals
    (``Numerals``) or only finite doubles and None (a sweep of per-layer weights: a thousand
    points of up to a thousand items); None for any other list. ``json.dumps`` writes a
    double as ``float.__repr__`` does."""
    if isinstance(items, Numerals):
        return ['"' + text + '"' for text in items]
    types = set(map(type, items))
    if types == {float} and all(map(math.isfinite, items)):
        return list(map(float.__repr__, items))
    if types == {float, type(None)} and all(item is None or math.isfinite(item) for item in items):
        return ["null" if item is None else float.__repr__(item) for item in items]
    return None


def _dumps(data: Any, indent: int | None = None) -> str:
    """``json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)``; a plain string,
    finite double, int, bool or None is written as the encoder writes it without building an
    encoder (a document has hundreds of them: about 2 ms of a default call)."""
    kind = type(data)
    if kind is str:
        return encode_basestring(data)
    if kind is float and math.isfinite(data):
        return float.__repr__(data)
    if kind is int:
        return int.__repr__(data)
    if data is None:
        return "null"
    if kind is bool:
        return "true" if data else "false"
    return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)
