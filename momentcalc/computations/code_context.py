"""The context of each number in a source file, as ``audit`` reads it (``identification``
says what the context decides).

Python is read with ``tokenize`` (numbers in strings and comments are not code) in one pass:
for each float literal, the dict keys and keywords it is under (``dict(relu=L)``,
``{'relu': lambda x: f(x) * L}``), the name the statement assigns to (for the value and the
items of a flat list or dict, not for numbers deep in a nested table), the enclosing def and
class, the line with the comment line just above it, and the activation call it is joined to
(``jax.nn.leaky_relu(x) * L``: the call's function, its arguments and the framework's defaults
decide which constant — jax's ``gelu`` is the tanh approximation, PyTorch's and Keras's are not;
leaky_relu's slope is 0.01 in PyTorch and jax, 0.2 in ``tf.nn`` and ``keras.activations``, 0.3
in ``keras.layers.LeakyReLU``). Other files (json, yaml, c, ...) are read by a number regex, with
the line and a ``key:``/``key =`` just before the number.

*Tables*: when the entries of one dict (or call) with keys naming ≥ 3 different activations
agree, ≥ 3 of them and ≥ 3/4 of all, with one form of their activation (within 1 % and 2
digits: the normalizer-free gammas of Brock et al., 2021), the table names that quantity.

*Test data*: every literal of a test file (``test_*.py``, ``*_test.py``, ``conftest.py``) or of
test data (a path with ``test_data``/``testdata``), and every number of an array of ≥ 8
unkeyed numbers (solver output, a QR factor's entries) anywhere, is data: names there describe
data, so only its digits identify it, and a finding there never fails the run.
"""

from __future__ import annotations

import functools
import io
import keyword
import os
import re
import tokenize
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import NamedTuple

from .constant_index import Constant, by_subject, float_values, key_subject, named_in, near, tokens, within
from .identification import (
    CONTEXT_DIGITS,
    CONTEXT_RELATIVE,
    ORDINARY_LITERAL_DIGITS,
    PUBLISHED_DIGITS,
    ROUNDING_DIGITS,
    Call,
    Context,
    Match,
    identify_literal,
    value_alone,
)
from .literals import Literal, digits_correct, in_range, parse_literal, simple_fraction
from .python_lines import in_comment, in_string, indentation_holds, logical_lines, scope_names, statement_span

PYTHON = (".py", ".pyi")
PROSE = (".md",)  # read as prose: a short number needs its quantity named (``identification``)
# A decimal literal with a point or an exponent (integers are counts, not constants): the
# pattern (?<![\w.])(?:\d[\d_]*\.[\d_]*|\.\d[\d_]*|\d[\d_]*(?=[eE][+-]?\d))(?:[eE][+-]?\d+)?[fFdD]?(?![\w.]),
# written to begin with a character class so that the regex engine skips ahead to the next digit
# or point instead of testing the look-behind at every position.
NUMBER = re.compile(
    r"[\d.](?<![\w.][\d.])(?:(?<=\d)[\d_]*\.[\d_]*|(?<=\.)\d[\d_]*|(?<=\d)[\d_]*(?=[eE][+-]?\d))"
    r"(?:[eE][+-]?\d+)?[fFdD]?(?![\w.])"
)
KEY_BEFORE = re.compile(r"""["']?([A-Za-z_][\w.\-]*)["']?\s*(?::|=|:=|=>)\s*$""")
KEY_REACH = 200  # a key is read from this many characters before its number
DATA_ARRAY = 8  # unkeyed numbers in one array (nested arrays counted together)
TABLE_ENTRIES = 3
TABLE_SHARE = 0.75
COMMENT_LINES_ABOVE = 1
TEST_FILE = re.compile(r"(^test_.*\.py$|^.*_test\.py$|^conftest\.py$|^tests?\.py$)")
TEST_DATA_PATH = re.compile(r"test_?data", re.IGNORECASE)
_FRAMEWORK_IMPORT = re.compile(r"^\s*(?:import|from)\s+(jax|flax|haiku|torch|tensorflow|keras)\b", re.M)
_NOT_CALLS = frozenset(
    {
        "if",
        "elif",
        "while",
        "for",
        "in",
        "not",
        "and",
        "or",
        "return",
        "lambda",
        "yield",
        "assert",
        "else",
        "is",
    }
)


class Found(NamedTuple):
    line: int
    column: int
    text: str  # the literal as written
    literal: Literal
    match: Match
    context: Context


def is_test_file(path: str) -> bool:
    name = os.path.basename(path)
    name = name[: -len(".ipynb")] + ".py" if name.endswith(".ipynb") else name
    return bool(TEST_FILE.match(name)) or bool(TEST_DATA_PATH.search(path))


def framework_of(text: str) -> str | None:
    """The one framework a file imports (jax for jax/flax/haiku), or None."""
    found = {
        ("jax" if m in ("flax", "haiku") else "tensorflow" if m == "keras" else m)
        for m in _FRAMEWORK_IMPORT.findall(text)
    }
    return found.pop() if len(found) == 1 else None


# Spellings a call resolves to one another's constants (``_resolve``): a word of one stands for all.
_ALIAS_WORDS = (
    frozenset({"gelu", "tanh", "new", "approx"}),
    frozenset({"leaky", "relu", "leakyrelu", "lrelu"}),
)


@functools.cache
def _words_by_constant() -> dict[str, frozenset[str]]:
    """Each constant's subject words (and their aliases'): the words that can name it."""
    found: dict[str, set[str]] = {}
    for subject, constants in by_subject().items():
        for c in constants:
            found.setdefault(c.id, set()).update(subject)
    for words in found.values():
        for group in _ALIAS_WORDS:
            if words & group:
                words.update(group)
    return {key: frozenset(words) for key, words in found.items()}


@functools.lru_cache(maxsize=1 << 18)
def _route(text: str) -> bool | frozenset[str]:
    """What the literal ``text`` needs to be a finding: True when its digits alone identify it
    (``identification.value_alone``), else the words that can name a constant its digits reach
    but only a context names (a generic value: √2 is relu's gain), or that can name a constant
    it can be by context (within 1 %, as ``by_context`` asks: that constant's subject words and
    their aliases); empty when there is none. Cached: a codebase repeats its numbers,
    and the scan asks again after the cheap pass (a file of 200,000 numbers asks twice)."""
    fast = _float_route(text)
    return fast if fast is not None else _exact_route(text)


_WIDER = 1.02  # a float window this much wider than the Decimal one holds all it holds
_FLOAT_REACH = float(CONTEXT_RELATIVE) * _WIDER
_ALL_SIMPLE = 27720  # lcm(1, ..., 12): a simple fraction times it is an integer
_EXACT = 1e-12  # a float's error is 1e-16 of it: equal values are this near


def _float_route(text: str) -> frozenset[str] | None:
    """The route of a literal of ≥ 4 digits that nothing reaches by value and that is no simple
    fraction, by floats (a codebase's many distinct long numbers: solver output, test data);
    None when the exact route must decide. Its words are a superset of the exact route's: those
    of every constant within 1.02 % (``by_value`` reaches no constant farther than 1 %)."""
    if "_" in text or text[-1] in "fFdD":
        return None
    mantissa = text.partition("e")[0].partition("E")[0]
    digits = len(mantissa.replace(".", "").lstrip("0"))
    if digits < ORDINARY_LITERAL_DIGITS:
        return None  # (short literals are few and repeat: the cached exact route)
    value = float(text)
    if not 1e-28 < value < 1e28:
        return None
    floats, _ = float_values()
    width = value * _FLOAT_REACH
    low, high = bisect_left(floats, value - width), bisect_right(floats, value + width)
    if low == high:
        return frozenset()
    # How far a constant by_value identifies can be (then the exact route decides), measured from
    # the nearest: with 4 digits only a published coefficient written exactly (0.5205, 1.702); with
    # 5 a correct rounding (half a unit, at most 5e-5 of the value); with more, by_value's first cut
    # (``near`` at 6 digits, which holds its float32 and 8-digit reach).
    reach = value * (
        _EXACT if digits < ROUNDING_DIGITS else 5e-5 * _WIDER if digits == ROUNDING_DIGITS else 2e-5 * _WIDER
    )
    at = bisect_left(floats, value, low, high)
    if (at < high and floats[at] - value <= reach) or (at > low and value - floats[at - 1] <= reach):
        return None
    scaled = value * _ALL_SIMPLE
    if abs(scaled - round(scaled)) <= 1e-9 * max(scaled, 1.0):
        return None
    return _range_words(low, high)


@functools.lru_cache(maxsize=1 << 12)
def _range_words(low: int, high: int) -> frozenset[str]:
    by_constant = _words_by_constant()
    _, ordered = float_values()
    return frozenset().union(*(by_constant.get(c.id, frozenset()) for c in ordered[low:high]))


def _exact_route(text: str) -> bool | frozenset[str]:
    literal = parse_literal(text)
    if literal is None or literal.digits < CONTEXT_DIGITS or not in_range(literal):
        return frozenset()
    by_constant = _words_by_constant()
    named: tuple[Constant, ...] = ()
    # (by_value reaches no further than this: a first cut that skips its float32 reading)
    if literal.digits >= PUBLISHED_DIGITS and near(literal.value, min(literal.digits, 6)):
        alone, named = value_alone(literal)
        if alone:
            return True
    simple = simple_fraction(literal)
    return frozenset().union(
        *(by_constant.get(c.id, frozenset()) for c in named),  # a generic value the context names
        *(
            by_constant.get(c.id, frozenset())
            for c in within(literal.value, CONTEXT_RELATIVE)
            # what by_context passes over before anything else: an exact simple fraction is only
            # itself, a constant near one needs 4 digits (and the context's reach is 1 %)
            if (simple is None or c.value == simple)
            and not (c.ordinary and literal.digits < ORDINARY_LITERAL_DIGITS)
        ),
    )


class _Around:
    """The words that can be the context of a number at a place in a file: for Python, its
    statement, the line above it and the defs and classes before it (``python_lines``); for
    other files, its line; for a Python file tokenize may read otherwise, the whole file."""

    def __init__(self, text: str, python: bool) -> None:
        self.text = text
        self.lines = logical_lines(text) if python else None
        self.whole = python and self.lines is None
        self.indented: bool | None = None  # tokenize accepts its indentation (asked when needed)
        self.words: dict[tuple[int, int], frozenset[str]] = {}
        self.scopes: list[tuple[int, str]] | None = None
        self.scope_words: set[str] = set()  # the words of the first ``scopes_read`` scopes
        self.scopes_read = 0
        self.statement: tuple[int, int, frozenset[str]] = (0, 0, frozenset())  # start, end, words

    def _words(self, span: tuple[int, int]) -> frozenset[str]:
        words = self.words.get(span)
        if words is None:
            words = self.words[span] = frozenset(tokens(self.text[span[0] : span[1]]))
        return words

    def names(self, route: frozenset[str], start: int, line: tuple[int, int]) -> bool:
        """Does a word of ``route`` stand around the number at ``start`` on the ``line`` (its
        span)? (Numbers are met in order: the scopes before them are read once.)"""
        if self.whole:
            return not route.isdisjoint(self._words((0, len(self.text))))
        if self.lines is None:
            return not route.isdisjoint(self._words(line))
        if not self.statement[0] <= start < self.statement[1]:  # (a number in the last one: its words)
            above, first, end = statement_span(self.text, self.lines.starts, start)
            self.statement = (first, end, self._words((above, end)))
        if not route.isdisjoint(self.statement[2]):
            return True
        if self.scopes is None:
            self.scopes = scope_names(self.text)
        while self.scopes_read < len(self.scopes) and self.scopes[self.scopes_read][0] < start:
            self.scope_words.update(tokens(self.scopes[self.scopes_read][1]))
            self.scopes_read += 1
        return not route.isdisjoint(self.scope_words)

    def on_line(self, route: frozenset[str], line: tuple[int, int]) -> bool:
        return not route.isdisjoint(self._words(line))

    def indentation_holds(self) -> bool:
        if self.indented is None:
            self.indented = self.lines is not None and indentation_holds(self.text, self.lines)
        return self.indented


def worth_reading(text: str, python: bool = False) -> bool:
    """Could any decimal literal of the file be a finding? (The cheap pass, which spares most
    files tokenize: a regex for the numbers, the sorted index for each, and for a Python file a
    regex for its statements.) A literal is a finding by value only when ``value_alone`` says
    so, and by context only when some constant within 1 % is named by a word where the context
    is read: for Python, the literal's statement, the line above it, or a def or class before
    it; for other files, its line. A Python file that tokenize may read otherwise
    (``python_lines``) is read whole, numbers in comments and strings too (its scan falls back
    to the number regex, each number with its line). Linear in the text: each line is measured
    once."""
    around: _Around | None = None
    line_start, line_end = 0, -1
    for hit in NUMBER.finditer(text):
        route = _route(hit.group())
        if not route:
            continue
        start = hit.start()
        if start > line_end:  # a new line: its span and comment, once
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
        if around is None:
            around = _Around(text, python)
        if around.lines is not None and (in_comment(around.lines, start) or in_string(around.lines, start)):
            # No code, unless tokenize rejects the indentation: then the number regex reads the
            # file, this number with its line.
            if route is True or around.on_line(route, (line_start, line_end)):
                if not around.indentation_holds():
                    return True
            continue
        if route is True:
            return True
        assert not isinstance(route, bool)
        if around.names(route, start, (line_start, line_end)):
            return True
    return False


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines as tokenize counts them (not ``str.splitlines``, which also breaks at form
    feeds and U+2028, shifting every later line number)."""
    lines = _LINE_BREAK.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


@functools.lru_cache(maxsize=1 << 16)
def candidate(text: str) -> Literal | None:
    """The literal when some constant lies within 2 digits of it (else neither its value nor its
    context can identify it), else None. Cached: a codebase repeats its numbers."""
    literal = parse_literal(text)
    if literal is None or literal.digits < 2 or not in_range(literal) or not near(literal.value, 2):
        return None
    return literal


def _wanted_in_code(text: str, keyed: bool) -> bool:
    """A Python number read further: when some constant's value, or a context naming one, may
    identify it (``_route``); an entry under a key when it is a ``candidate`` (each counts in its
    table's vote, ``_tables``)."""
    return candidate(text) is not None if keyed else bool(_route(text))


def findings_in(path: str, text: str, python: bool | None = None) -> list[Found]:
    """Every literal of the file that is a constant of the index, with what it is (``python``:
    read as Python, by default for a .py or .pyi file)."""
    python = path.endswith(PYTHON) if python is None else python
    test = is_test_file(path)
    prose = not python and path.endswith(PROSE)
    if not worth_reading(text, python):
        return []
    lines = source_lines(text)
    occurrences = list(python_numbers(text, lines, _wanted_in_code) if python else _named_numbers(lines))
    framework = framework_of(text) if python else None
    tables = _tables(occurrences)
    found = []
    for occ in occurrences:
        route = _route(occ.text)
        if not route or (route is not True and not _may_name(route, occ)):
            continue  # (the cheap pass's test, number by number: a file of data stays linear)
        literal = candidate(occ.text)
        if literal is None:
            continue  # no constant within 2 digits: neither value nor context can identify it
        context = Context(
            keys=occ.keys,
            names=occ.names,
            text=occ.text_around,
            call=_resolve(occ.call, framework) if occ.call else None,
            table=tables.get(occ.container) if occ.container is not None else None,
            data=test or occ.data,
            prose=prose,
        )
        matches = identify_literal(literal, context)
        if matches:
            found.append(Found(occ.line, occ.column, occ.text, literal, matches[0], context))
    return found


def _may_name(route: frozenset[str], occ: Occurrence) -> bool:
    """Does a word of ``route`` stand in the context ``identification`` reads for the number:
    its line (and the comment above), its keys, the names it is assigned to or defined under, the
    call it is joined to? Every subject a context names is made of such words, so a number none
    of whose constants' words is there is identified neither by context nor as a generic value
    the context names."""
    if not route.isdisjoint(_line_words(occ.text_around)):
        return True
    parts = (*occ.keys, *occ.names, *((occ.call.name,) if occ.call is not None else ()))
    return any(not route.isdisjoint(tokens(part)) for part in parts)


@functools.lru_cache(maxsize=256)
def _line_words(text: str) -> frozenset[str]:
    return frozenset(tokens(text))


# --- occurrences -------------------------------------------------------------------------------


class RawCall(NamedTuple):
    name: str  # dotted: jax.nn.leaky_relu
    args: tuple[str, ...]  # positional arguments as written
    kwargs: tuple[tuple[str, str], ...]
    op: str


class Occurrence(NamedTuple):
    line: int
    column: int
    text: str
    keys: tuple[str, ...]
    names: tuple[str, ...]
    text_around: str
    call: RawCall | None
    container: int | None  # the dict or call whose entry it is (for tables)
    data: bool


def regex_numbers(lines: list[str], wanted: Callable[[str], bool] | None = None) -> Iterator[Occurrence]:
    """Each decimal number of the lines, with the ``key:``/``key =`` just before it
    (``wanted``: only the numbers it accepts; all of them still count towards a line's size)."""
    for i, line in enumerate(lines, 1):
        hits = list(NUMBER.finditer(line))
        data = len(hits) >= DATA_ARRAY
        for hit in hits:
            number = hit.group()
            if wanted is not None and not wanted(number):
                continue
            start = hit.start()
            key = key_before(line[max(0, start - KEY_REACH) : start])
            yield Occurrence(i, start + 1, number, (key,) if key else (), (), line, None, None, data)


def _named_numbers(lines: list[str]) -> Iterator[Occurrence]:
    """``regex_numbers`` less the numbers ``findings_in`` passes over (``_route`` empty, or no
    word of it on the line or in the key: ``_may_name``), tested before an occurrence is built:
    a line of 25,000 numbers costs a cached route, a set lookup and a key each."""
    for i, line in enumerate(lines, 1):
        hits = list(NUMBER.finditer(line))
        data = len(hits) >= DATA_ARRAY
        words: frozenset[str] | None = None
        for hit in hits:
            number = hit.group()
            route = _route(number)
            if not route:
                continue
            start = hit.start()
            key = key_before(line[max(0, start - KEY_REACH) : start])
            if route is not True:
                words = _line_words(line) if words is None else words
                if route.isdisjoint(words) and (key is None or route.isdisjoint(tokens(key))):
                    continue
            yield Occurrence(i, start + 1, number, (key,) if key else (), (), line, None, None, data)


_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def key_before(window: str) -> str | None:
    """``KEY_BEFORE.search(window).group(1)`` (None when it does not match), read backwards
    from the end: the operator, an optional quote, then the name — the longest run of
    ``[\\w.-]`` before it, from its first ``[A-Za-z_]`` (the leftmost match). The regex tries
    every start in the window: 0.1 ms a number on a line of numbers."""
    end = len(window.rstrip())
    last = window[end - 1 : end]
    if last == ":":
        end -= 1
    elif last == ">":
        if window[end - 2 : end - 1] != "=":
            return None
        end -= 2
    elif last == "=":
        end -= 2 if window[end - 2 : end - 1] == ":" else 1
    else:
        return None
    end = len(window[:end].rstrip())
    if window[end - 1 : end] in ('"', "'"):
        end -= 1
    first = end
    while first > 0 and (window[first - 1].isalnum() or window[first - 1] in "_.-"):
        first -= 1
    for at in range(first, end):
        if window[at] in _NAME_START:
            return window[at:end]
    return None


class _Frame:
    __slots__ = ("call", "element_tokens", "id", "key", "keyed", "opener", "parent", "start", "unkeyed")

    def __init__(self, opener: str, call: str | None, start: int, parent: int | None, ident: int):
        self.opener, self.call, self.start, self.parent, self.id = opener, call, start, parent, ident
        self.key: str | None = None
        self.keyed = False
        self.unkeyed = 0
        self.element_tokens = 0


def python_numbers(
    text: str, lines: list[str], wanted: Callable[[str, bool], bool] | None = None
) -> Iterator[Occurrence]:
    """Each float literal of a Python source with its context (``wanted``: only the literals it
    accepts, given the literal and whether it is an entry under a key; all of them still count
    towards an array's size)."""
    try:
        toks = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        yield from regex_numbers(lines, None if wanted is None else lambda number: wanted(number, False))
        return
    stack: list[_Frame] = []
    frames: list[_Frame] = []
    opens: dict[int, int] = {}  # index of a closing bracket -> its opening bracket
    scopes: list[tuple[int, str]] = []
    indent = 0
    assigned: str | None = None
    statement = 0  # index of the statement's first token
    pending: list[tuple[Occurrence, int | None]] = []
    around: dict[tuple[int, int], str] = {}  # one text per line: a line of many numbers stays linear
    # (the token types as locals: this loop runs once per token of every file read)
    INDENT, DEDENT, NEWLINE, ENDMARKER = (
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.NEWLINE,
        tokenize.ENDMARKER,
    )
    NAME, OP, NUMBER_TOKEN, STRING = tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING
    for i, tok in enumerate(toks):
        kind, string = tok.type, tok.string
        if kind == NUMBER_TOKEN:
            if stack:
                stack[-1].element_tokens += 1
            if not NUMBER.fullmatch(string):
                continue  # an integer: a count, no constant
            keyed = bool(stack) and stack[-1].key is not None
            if stack and not keyed:
                stack[-1].unkeyed += 1
            if wanted is not None and not wanted(string, keyed):
                continue
            keys = tuple(f.key for f in reversed(stack) if f.key is not None)
            names = tuple(
                n for n in ((assigned if len(stack) <= 1 else None), *(s for _, s in reversed(scopes))) if n
            )
            first_line = toks[statement].start[0] if statement < len(toks) else tok.start[0]
            occurrence = Occurrence(
                tok.start[0],
                tok.start[1] + 1,
                string,
                keys,
                names,
                around.get((tok.start[0], first_line))
                or around.setdefault(
                    (tok.start[0], first_line), _text_around(lines, tok.start[0], first_line)
                ),
                _joined_call(toks, i, opens),
                stack[-1].id if stack and stack[-1].key is not None else None,
                toks[statement].string == "assert" if statement < len(toks) else False,
            )
            pending.append((occurrence, stack[0].id if stack else None))
            continue
        if kind == INDENT:
            indent += 1
            statement = i + 1
            continue
        if kind == DEDENT:
            indent -= 1
            while scopes and scopes[-1][0] >= indent:
                scopes.pop()
            statement = i + 1
            continue
        if kind in (NEWLINE, ENDMARKER):
            assigned, stack, statement = None, [], i + 1
            continue
        if kind == NAME and (string == "def" or string == "class") and i + 1 < len(toks):
            scopes.append((indent, toks[i + 1].string))
        if stack:
            stack[-1].element_tokens += 1
        if kind != OP:
            continue  # a name, a string, a non-float number: context only through the tokens around
        if string in "([{":
            call = _name_before(toks, i) if string == "(" else None
            frame = _Frame(string, call, i, stack[-1].id if stack else None, len(frames))
            frames.append(frame)
            stack.append(frame)
            continue
        if string in ")]}":
            if stack:
                opens[i] = stack.pop().start
            continue
        if stack and string == ",":
            stack[-1].key, stack[-1].element_tokens = None, 0
            continue
        if stack and (string == ":" or string == "=") and stack[-1].element_tokens == 2:
            before = toks[i - 1]
            frame = stack[-1]
            if (string == ":" and frame.opener == "{" and before.type in (STRING, NAME)) or (
                string == "=" and frame.opener == "(" and before.type == NAME
            ):
                frame.key, frame.keyed = _key_text(before), True
            continue
        if (
            not stack
            and string in ("=", ":", "+=", "*=", "/=")
            and assigned is None
            and not keyword.iskeyword(toks[statement].string)
        ):
            assigned_names = [t.string for t in toks[statement:i] if t.type == tokenize.NAME]
            assigned = assigned_names[-1] if assigned_names else None
            continue
    # Unkeyed numbers, nested arrays counted into their parents: a frame's parent is opened
    # before it, so one pass from the last frame back sums each subtree (linear in the nesting,
    # where walking up from every frame was quadratic: 20,000 nested brackets took 46 s).
    totals = [frame.unkeyed for frame in frames]
    for frame in reversed(frames):
        if frame.parent is not None:
            totals[frame.parent] += totals[frame.id]
    for occurrence, outermost in pending:
        # The outermost bracket's total is the largest of the chain (it holds the others').
        data = occurrence.data or (outermost is not None and totals[outermost] >= DATA_ARRAY)
        yield occurrence if data == occurrence.data else occurrence._replace(data=data)


_STRING = re.compile(r"^[rRbBuU]*('''|\"\"\"|'|\")(.*)\1$", re.S)


def _key_text(tok: tokenize.TokenInfo) -> str:
    """A key as text: a name, or a string literal's contents."""
    if tok.type != tokenize.STRING:
        return tok.string
    m = _STRING.match(tok.string)
    return m.group(2) if m else tok.string


def _text_around(lines: list[str], line: int, first: int) -> str:
    """The line and the comment line just above its statement."""
    above: list[str] = []
    j = first - 2
    while j >= 0 and len(above) < COMMENT_LINES_ABOVE and lines[j].lstrip().startswith("#"):
        above.append(lines[j])
        j -= 1
    own = lines[line - 1] if line <= len(lines) else ""
    return "\n".join([*reversed(above), own]) if above else own


def _name_before(toks: list, i: int) -> str | None:
    """The dotted name a '(' at i calls (``jax.nn.gelu``), or None."""
    j = i - 1
    parts = []
    while j >= 0 and toks[j].type == tokenize.NAME:
        if toks[j].string in _NOT_CALLS:
            break
        parts.append(toks[j].string)
        if j >= 1 and toks[j - 1].string == ".":
            j -= 2
            continue
        break
    return ".".join(reversed(parts)) or None


def _joined_call(toks: list, i: int, opens: dict[int, int]) -> RawCall | None:
    """The call joined to the literal at i by * / - + (``f(x) * L``, ``L * f(x)``, ``f(x) / L``)."""
    j = i - 1
    while (
        j >= 1
        and toks[j].string in ("-", "+")
        and toks[j - 1].type == tokenize.OP
        and toks[j - 1].string not in ")]}"
    ):
        j -= 1  # unary signs
    if (
        j >= 1
        and toks[j].type == tokenize.OP
        and toks[j].string in ("*", "/", "-", "+")
        and toks[j - 1].string == ")"
    ):
        start = opens.get(j - 1)
        name = _name_before(toks, start) if start is not None else None
        if start is not None and name:
            return RawCall(name, *_arguments(toks[start + 1 : j - 1]), toks[j].string)
        if start is not None and start >= 1 and toks[start - 1].string == ")":
            # a layer built and applied at once, nn.LeakyReLU(0.2)(x): the constructor decides
            built = opens.get(start - 1)
            name = _name_before(toks, built) if built is not None else None
            if built is not None and name:
                return RawCall(name, *_arguments(toks[built + 1 : start - 1]), toks[j].string)
    k = i + 1
    if k + 1 < len(toks) and toks[k].string == "*" and toks[k + 1].type == tokenize.NAME:
        m = k + 1
        while m + 2 < len(toks) and toks[m + 1].string == "." and toks[m + 2].type == tokenize.NAME:
            m += 2
        if m + 1 < len(toks) and toks[m + 1].string == "(":
            depth, end = 0, m + 1
            while end < len(toks) and end < m + 400:
                depth += toks[end].string in "([{" and toks[end].type == tokenize.OP
                depth -= toks[end].string in ")]}" and toks[end].type == tokenize.OP
                if depth == 0:
                    break
                end += 1
            name = "".join(t.string for t in toks[k + 1 : m + 1])
            return RawCall(name, *_arguments(toks[m + 2 : end]), "*")
    return None


def _arguments(toks: list) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    args: list[str] = []
    kwargs: list[tuple[str, str]] = []
    depth = 0
    part: list[tokenize.TokenInfo] = []
    for t in [*toks, None]:
        if t is None or (depth == 0 and t.string == ","):
            if len(part) >= 3 and part[0].type == tokenize.NAME and part[1].string == "=":
                kwargs.append((part[0].string, "".join(p.string for p in part[2:])))
            elif part:
                args.append("".join(p.string for p in part))
            part = []
            continue
        depth += t.type == tokenize.OP and t.string in "([{"
        depth -= t.type == tokenize.OP and t.string in ")]}"
        part.append(t)
    return tuple(args), tuple(kwargs)


# --- framework calls ---------------------------------------------------------------------------

_JAX_PREFIX = re.compile(r"(^|\.)(jax|jnn|flax|linen|hk|haiku|objax|stax)(\.|$)")
_TORCH_PREFIX = re.compile(r"(^|\.)(torch|F|functional)(\.|$)")
_TF_PREFIX = re.compile(r"(^|\.)(tf|keras|tensorflow)(\.|$)")
_LAYER_PREFIX = re.compile(r"(^|\.)(layers)(\.|$)")


def _framework(prefix: str, function: str, default: str | None) -> str | None:
    if _JAX_PREFIX.search(prefix):
        return "jax"
    if _TORCH_PREFIX.search(prefix):
        return "torch"
    if _TF_PREFIX.search(prefix) or _LAYER_PREFIX.search(prefix):
        return "tensorflow"
    if prefix == "nn":  # torch.nn's classes are CamelCase, flax.linen's functions lower case
        return "torch" if function[:1].isupper() else "jax"
    return default


def _subject_of(function: str) -> tuple[str, ...] | None:
    words = tuple(tokens(function))
    return words if words in by_subject() else None


def _number(text: str) -> str | None:
    try:
        value = Decimal(text)
    except ArithmeticError:
        return None
    return format(value.normalize(), "f")


def _resolve(raw: RawCall, default_framework: str | None) -> Call:
    """The subjects and parameters of an activation call, by the framework's defaults."""
    prefix, _, function = raw.name.rpartition(".")
    subject = _subject_of(function)
    if subject is None:
        return Call((), None, raw.op)  # not an activation: the operator still names a quantity
    framework = _framework(prefix, function, default_framework)
    kwargs = dict(raw.kwargs)
    is_class = function[:1].isupper()
    if subject in (("gelu",), ("gelu", "tanh"), ("gelu", "new"), ("gelu", "approx")):
        approximate = kwargs.get("approximate")
        if approximate is not None:
            tanh = approximate.strip("'\"") in ("True", "tanh", "1")
        elif subject != ("gelu",):
            tanh = True
        elif framework is None:
            return Call((("gelu",), ("gelu", "tanh")), None, raw.op)
        else:
            tanh = framework == "jax"  # jax.nn.gelu(approximate=True); torch, tf, keras: erf
        return Call((("gelu", "tanh"),) if tanh else (("gelu",),), None, raw.op)
    if subject in (("leaky", "relu"), ("leakyrelu",), ("lrelu",)):
        given = next((kwargs[k] for k in ("negative_slope", "alpha", "slope") if k in kwargs), None)
        if given is None:
            position = 0 if is_class else 1
            given = raw.args[position] if len(raw.args) > position else None
        if given is None:
            given = {"jax": "0.01", "torch": "0.01"}.get(framework or "")
            if framework == "tensorflow":
                given = "0.3" if is_class else "0.2"
        slope = _number(given) if given is not None else None
        return Call((("leaky", "relu"),), f"slope={slope}" if slope else None, raw.op)
    if subject in (("celu",), ("elu",)):
        alpha = kwargs.get("alpha", raw.args[1] if len(raw.args) > 1 and not is_class else None)
        if alpha is not None and _number(alpha) not in ("1",):
            return Call((), None, raw.op)  # another alpha: no constant of the index
    return Call((subject,), None, raw.op)


# --- tables ------------------------------------------------------------------------------------


def _tables(occurrences: list[Occurrence]) -> dict[int, str]:
    """Containers whose entries, keyed by activations, agree with one form: {container: form}."""
    groups: dict[int, list[Occurrence]] = {}
    for occ in occurrences:
        if occ.container is not None and occ.keys:
            groups.setdefault(occ.container, []).append(occ)
    found = {}
    for container, entries in groups.items():
        parsed = [(key_subject(occ.keys[0]), parse_literal(occ.text)) for occ in entries]
        keyed = [(s, lit) for s, lit in parsed if s and lit is not None]
        if len({s for s, _ in keyed}) < TABLE_ENTRIES:
            continue
        votes: Counter[str] = Counter()
        for subject, literal in keyed:
            forms = set()
            for c in by_subject().get(subject, ()):
                if (
                    "." in c.id
                    and abs(literal.value - c.value) <= c.value * CONTEXT_RELATIVE
                    and digits_correct(literal, c.value) >= 2
                ):
                    forms.add(c.id.rsplit(".", 1)[1])
            votes.update(forms)
        if votes:
            form, count = votes.most_common(1)[0]
            if count >= TABLE_ENTRIES and count >= TABLE_SHARE * len(keyed):
                found[container] = form
    return found


__all__ = ["Found", "findings_in", "is_test_file", "named_in", "python_numbers", "regex_numbers"]
