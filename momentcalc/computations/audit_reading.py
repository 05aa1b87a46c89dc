"""What ``audit`` reads of a file, and how a path is shown: only regular files (a FIFO, device
or socket is never opened for reading), at most MAX_FILE_BYTES, decoded by their byte-order mark,
a Python file's coding declaration, else UTF-8; anything else is ``Skipped`` with its kind and
reason. Kept apart from the scan (``audit``) so that the baseline (``audit_project``) reads files
the same way without importing the scan."""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tokenize

from .code_context import PYTHON

# What a terminal would act on: C0 and C1 controls (ESC among them), line and paragraph
# separators, bidirectional overrides and isolates. Shown as Python escapes.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shown(path: str) -> str:
    """A path as it may reach a terminal or a text table: control characters escaped."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), path)


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


def special_kind(mode: int) -> str:
    """What a file that is not a regular file is: a FIFO, a character device, ..."""
    return next((text for test, text in _KINDS if test(mode)), "a special file")


def _not_regular(mode: int) -> Skipped:
    return Skipped("special", f"not a regular file ({special_kind(mode)})")


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
