"""Output safety: user text shown inert, and output that fits the stream's encoding.

``visible`` writes control and format characters (ESC, BEL, CR, bidi overrides…) as
backslash escapes, so that text a user typed (an expression, an ``--expect`` name) can never
drive the terminal it is printed on (the table renderer also escapes it for rich, so that
``[bold]`` stays ``[bold]``).

``fitting_stream`` wraps a stream that cannot encode the characters the tables use (φ, █, ±,
box lines) — an ASCII or latin-1 stdout, a C locale — so that they are spelled in ASCII
(phi, #, +-) instead of raising UnicodeEncodeError; JSON escapes what does not fit as
``\\uXXXX``, which is the same JSON text.
"""

from __future__ import annotations

import codecs
import re
from typing import Any, TextIO

# How the characters momentcalc itself prints are spelled on an ASCII stream; anything else
# that does not fit is written as a backslash escape.
ASCII_SPELLINGS = {
    "φ": "phi",
    "ψ": "psi",
    "σ": "sigma",
    "μ": "mu",
    "ν": "nu",
    "λ": "lambda",
    "α": "alpha",
    "γ": "gamma",
    "ε": "eps",
    "π": "pi",
    "±": "+-",
    "×": "x",
    "·": "*",
    "−": "-",
    "–": "-",
    "—": "-",
    "…": "...",
    "≈": "~",
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "→": "->",
    "√": "sqrt",
    "²": "^2",
    "³": "^3",
    "⁴": "^4",
    "⁶": "^6",
    "⁷": "^7",
    "⁻": "^-",
    "∞": "inf",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "█": "#",
    "▉": "#",
    "▊": "#",
    "▋": "#",
    "▌": "#",
    "▍": "",
    "▎": "",
    "▏": "",
}
_SPELL = str.maketrans(ASCII_SPELLINGS)
# What a table needs: if the stream cannot encode these, it gets the ASCII spellings.
_PROBE = "φ█▏±━┃─│"


def visible(text: str) -> str:
    """``text`` with every non-printable character (other than space) as a backslash escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


# A "[" before a character spelled with a letter ("[φ" -> "[phi") would start a rich tag.
_TAG_AFTER_SPELLING = re.compile(
    r"(?<!\\)\[(?=["
    + "".join(k for k, v in ASCII_SPELLINGS.items() if v[:1].isalpha() or v[:1] in "#/@")
    + "])"
)


def spell_ascii(text: str, markup: bool = False) -> str:
    """momentcalc's own non-ASCII characters spelled in ASCII (φ → phi, █ → #, ± → +-); with
    ``markup``, text for rich, where a "[" that the spelling would turn into a tag is escaped."""
    if markup:
        text = _TAG_AFTER_SPELLING.sub(r"\\[", text)
    return text.translate(_SPELL)


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: what does not fit becomes JSON's \\uXXXX (surrogate pairs above
    the BMP)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for ch in error.object[error.start : error.end]:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), error.end


codecs.register_error("momentcalc-json", _json_escape)


def _encoding(stream: TextIO) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def fits(stream: TextIO, sample: str = _PROBE) -> bool:
    """Can ``stream`` encode ``sample``?"""
    try:
        sample.encode(_encoding(stream))
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class _Fitting:
    """A text stream that rewrites what its encoding cannot hold before writing it."""

    def __init__(self, stream: TextIO, json: bool) -> None:
        self._stream = stream
        self._json = json
        self.encoding = _encoding(stream)

    def _fit(self, text: str) -> str:
        if not self._json:
            text = spell_ascii(text)
        handler = "momentcalc-json" if self._json else "backslashreplace"
        return text.encode(self.encoding, handler).decode(self.encoding)

    def write(self, text: str) -> int:
        self._stream.write(self._fit(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, ...
        return getattr(self._stream, name)


def fitting_stream(stream: TextIO, json: bool = False) -> TextIO:
    """``stream`` itself when it can encode what momentcalc prints, else a wrapper that spells
    it in what the encoding holds."""
    return stream if fits(stream) else _Fitting(stream, json)  # type: ignore[return-value]  # duck-typed TextIO
