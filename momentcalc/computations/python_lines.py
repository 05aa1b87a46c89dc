"""Python's logical lines without ``tokenize``: where each statement begins, for the cheap pass of
``audit`` (``code_context.worth_reading``), which bounds the words that can be a number's context
by its statement instead of tokenizing the file.

One regex pass finds strings (triple-quoted ones across lines), comments and line continuations;
what is left is counted for brackets, and a line break outside brackets and strings ends a
statement, as tokenize's NEWLINE does; indentation can be checked as tokenize checks it. A source that tokenize
would reject or read otherwise — an unterminated string or bracket, a stray closing bracket, quote
or backslash, a dedent to no outer level, a lone carriage return (tokenize and ``source_lines``
would count its lines differently) — has no statements here (None): the caller reads such a file
whole.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from operator import add
from typing import NamedTuple

# What is not code, or what tokenize would stop at: strings, comments, line continuations, and a
# stray quote or backslash (an unterminated string, a backslash that continues nothing). Written
# to begin with a character class (the engine skips ahead to the next quote, # or backslash) and
# with unrolled loops in the strings.
_NOISE = re.compile(
    r"""['"#\\]"""
    r"(?:(?<=')''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
    r'|(?<=")""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
    r"|(?<=')[^'\\\n]*(?:\\(?:\r\n|[\s\S])[^'\\\n]*)*'"
    r'|(?<=")[^"\\\n]*(?:\\(?:\r\n|[\s\S])[^"\\\n]*)*"'
    r"|(?<=#)[^\n]*"
    r"|(?<=\\)\r?\n"
    r"|)"  # a stray quote or backslash: itself alone
)
_SKELETON = re.compile(r"[^()\[\]{}\n]+")  # all but brackets and line breaks
_OPENING = frozenset("([{")
_INDENT = re.compile(r"[ \t\f]*")
TAB_SIZE = 8  # tokenize's
_END = 1 << 62  # past any offset


class Lines(NamedTuple):
    starts: list[int]  # where a logical line may begin: 0 and every line break ending a statement
    strings: list[tuple[int, int]]  # the spans of string literals (not f-strings), in order
    comments: list[tuple[int, int]]  # the spans of comments, in order


_F_PREFIX = re.compile(r"[rRbBuU]?[fF][rR]?$")


def logical_lines(text: str) -> Lines | None:
    """The source's statement starts (every line break outside brackets, strings and
    continuations; blank and comment lines included) and string literals, or None when tokenize
    would read the source otherwise (see the module's note; its indentation is checked apart,
    ``indentation_holds``). An f-string is left out of the strings: from Python 3.12 on,
    tokenize reads the code in its braces."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return None
    pieces = []
    strings = []
    comments = []
    done = 0
    for m in _NOISE.finditer(text):
        start, end = m.span()
        if end - start == 1 and text[start] != "#":
            return None  # a stray quote or backslash
        pieces.append(text[done:start])
        pieces.append(" " * (end - start))  # (offsets kept; its line breaks are no statement's end)
        done = end
        if text[start] in "'\"" and not _F_PREFIX.search(text, max(start - 3, 0), start):
            strings.append((start, end))
        elif text[start] == "#":
            comments.append((start, end))
    pieces.append(text[done:])
    code = "".join(pieces)
    # What is left: brackets and line breaks (a few hundred characters for a module of code).
    depth = line = 0
    ending = []  # the line breaks (counted from 0) outside brackets
    for c in _SKELETON.sub("", code):
        if c == "\n":
            if not depth:
                ending.append(line)
            line += 1
        elif c in _OPENING:
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return None  # a closing bracket that closes nothing
    if depth:
        return None
    parts = code.split("\n")
    after = list(map(add, accumulate(map(len, parts[:-1])), range(1, len(parts))))  # each break's end
    starts = [0, *after] if len(ending) == line else [0, *(after[i] for i in ending)]
    return Lines(starts, strings, comments)


def indentation_holds(text: str, lines: Lines) -> bool:
    """Would tokenize accept the indentation of these lines (every dedent to an outer level)?"""
    indents = [0]
    size = len(text)
    for start in lines.starts:
        end = _INDENT.match(text, start).end()  # type: ignore[union-attr]  # (matches the empty string)
        if end == size or text[end] in "#\r\n":
            continue  # a blank or comment line: no indentation of its own
        blank = text[start:end]
        if "\t" in blank or "\f" in blank:
            column = 0
            for ch in blank:
                column = (
                    (column // TAB_SIZE + 1) * TAB_SIZE if ch == "\t" else 0 if ch == "\f" else column + 1
                )
        else:
            column = end - start
        if column > indents[-1]:
            indents.append(column)
        while column < indents[-1]:
            if column not in indents:
                return False
            indents.pop()
    return True


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    i = bisect_right(spans, (at, _END)) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def in_string(lines: Lines, at: int) -> bool:
    """Is offset ``at`` inside a string literal (not an f-string)?"""
    return _inside(lines.strings, at)


def in_comment(lines: Lines, at: int) -> bool:
    """Is offset ``at`` inside a comment? (Read from the whole source, not the physical line: a
    line that begins inside a triple-quoted string may close it after a ``#`` and go on with code.)"""
    return _inside(lines.comments, at)


def statement_span(text: str, starts: list[int], at: int) -> tuple[int, int, int]:
    """The text a number at offset ``at`` can take its context from: its logical line (from the
    last start at or before it to the next) and the line just above it (a comment there is
    context), as (from, statement's start, end)."""
    i = bisect_right(starts, at) - 1
    first = starts[i]
    end = starts[i + 1] if i + 1 < len(starts) else len(text)
    above = text.rfind("\n", 0, first - 1) + 1 if first else 0
    return above, first, end


# ``def``/``class`` and what follows it: the name tokenize reads as the scope (whatever stands there;
# also where it ends a longer word: more words than needed, never fewer).
_SCOPE = re.compile(r"(?:def|class)\b(?:[ \t\f]|\\\r?\n|#[^\n]*|\r?\n)*([^\s#\\]*)")


def scope_names(text: str) -> list[tuple[int, str]]:
    """Each ``def``/``class`` (in code or not) with the text after it that is its name."""
    return [(m.start(), m.group(1)) for m in _SCOPE.finditer(text)]
