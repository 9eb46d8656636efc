"""Strict parsing of JSON text, with every hazard a lenient parser hides and where it is.

``json.loads`` accepts text that servers may read differently or refuse: a repeated member
name (it keeps the last value, other parsers the first), ``NaN``, a lone surrogate escape,
``1e400``. :func:`parse` reports each of them as a :class:`~decisions_input.errors.Problem`
with the JSON path where it happens, and :func:`locate` turns a path back into a line and
column for people.

How it stays fast: a clean document is parsed once by the C scanner of the ``json``
module, with hooks that raise on a hazard, after a few scans at C speed (hops from one
backslash or bracket to the next, ``bytes.translate``). Any doubt sends the text to the
exact tokenizer of this module: it is iterative, so no nesting depth can exhaust the
stack, and it hands the subtrees that are free of hazards back to the C scanner.

Codes (all in :data:`decisions_input.limits.RULES`): ``json.syntax``, ``json.invalid_utf8``,
``json.bom``, ``json.encoding``, ``json.duplicate_key``, ``json.non_finite``,
``json.lone_surrogate``, ``json.number_range``, ``json.too_deep``, ``json.trailing_data``.
"""

from __future__ import annotations

import codecs
import json
import json.decoder
import json.scanner
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, compress
from typing import Any, Final, NamedTuple, cast

from ._types import JSON
from .errors import DecisionsInputError, InvalidInput, Path, Problem
from .limits import GEMINI, Limits

__all__ = ["Location", "Parsed", "locate", "locate_all", "locate_many", "parse"]

# Every number above this is beyond the range of a double; it is ``int(sys.float_info.max)``.
_MAX_DOUBLE_INT: Final = int(sys.float_info.max)
# An integer literal of at most this many characters is always below ``_MAX_DOUBLE_INT``.
_SAFE_INT_CHARS: Final = 308
# Invalid UTF-8 sequences reported one by one; past this one problem says more follow.
_MAX_BYTE_PROBLEMS: Final = 100
# Texts up to this many characters count their brackets with ``str.count``; longer ones
# hop from bracket to bracket and give up once they know the text is dense.
_SMALL_TEXT: Final = 1 << 16
# Backslashes visited one by one before a regex looks for surrogate escapes instead.
_ESCAPE_HOPS: Final = 64
# The exact tokenizer hands subtrees to the C scanner down to this nesting level only, so
# a hazard deep in a large document costs a bounded number of C passes.
_SKIP_LEVELS: Final = 8

# Always matches, possibly empty.
_ws = cast("Callable[[str, int], re.Match[str]]", re.compile(r"[ \t\n\r]*").match)
_scanstring: Callable[[str, int, bool], tuple[str, int]] = vars(json.decoder)["scanstring"]
_number = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?").match
_surrogate = re.compile("[\ud800-\udfff]").search
_surrogates = re.compile("[\ud800-\udfff]").finditer
# A \u escape naming a surrogate, with the low half that may pair with it.
_surrogate_escapes = re.compile(
    r"\\u[dD]([89a-fA-F])[0-9a-fA-F]{2}(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
).finditer
_quoted = re.compile(rb'"[^"]*"').sub
_newlines = re.compile("\n").finditer
_NUMBER_START: Final = frozenset("-0123456789")
_is_dict = frozenset({dict}).__contains__
_is_list = frozenset({list}).__contains__
# In a shape every digit is "0": an integer beyond a double has a run this long.
_DIGIT_RUN: Final = b"0" * 200


class Location(NamedTuple):
    """Where a member or element is written: 1-based lines and columns in code points.

    For a member, the key position is the opening quote of its name; for an array element
    and for the root, the key position is the value position.

    .. versionadded:: 0.1
    """

    key_line: int
    key_column: int
    value_line: int
    value_column: int


@dataclass(frozen=True, slots=True)
class Parsed:
    """The result of :func:`parse`.

    ``value`` is the document as ``json.loads`` would return it (the last value of a
    repeated member name, ``NaN`` and infinities as floats, numbers beyond a double as
    ``float`` infinities or large ``int``), or None when it cannot be had: a syntax error,
    nesting deeper than the bound, bytes that are not valid in their encoding, an integer
    too long for ``int()``. ``problems`` lists every hazard in document order. ``text`` is
    the decoded text, without a byte order mark, that :func:`locate` takes; it is None
    when the bytes could not be decoded strictly.

    .. versionadded:: 0.1
    """

    value: JSON | None
    problems: tuple[Problem, ...]
    text: str | None


# --- the fast path -------------------------------------------------------------------
#
# Two routes, both exact: a hazard is never let through, a doubt sends the text to the
# tokenizer. Surrogate escapes and code points are looked for first, then:
# * Texts with few brackets (short ones, base64 media, long prose) go through the C
#   scanner with a hook on each object that compares its pairs with the dict they make,
#   and hooks on numbers. Past the bound on brackets, the depth is measured on the value,
#   a level at a time; past a budget of numbers, the dense route takes over.
# * Texts dense with brackets are first reduced by ``bytes.translate`` to a skeleton of
#   brackets and member colons, which gives their depth. The C scanner then builds dicts
#   itself and a cheap hook adds up their sizes: fewer entries than member colons means
#   a repeated member name.


class _Hazard(Exception):
    """Raised by a scanner hook: the text needs the exact tokenizer."""


class _TooManyNumbers(Exception):
    """Raised by a counting number hook: the dense route checks numbers for less."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Hazard
    return obj


def _constant(name: str) -> float:
    raise _Hazard


def _float(literal: str) -> float:
    value = float(literal)
    if value - value:  # only an infinity gives NaN here
        raise _Hazard
    return value


def _int(literal: str) -> int:
    if len(literal) > _SAFE_INT_CHARS:
        raise _Hazard
    return int(literal)


_Scan = Callable[[str, int], tuple[Any, int]]
_c_make_scanner = getattr(json.scanner, "c_make_scanner", None)


class _Context:
    """The attributes the C scanner reads from a decoder, without building a decoder."""

    __slots__ = (
        "memo",
        "object_hook",
        "object_pairs_hook",
        "parse_constant",
        "parse_float",
        "parse_int",
        "strict",
    )

    def __init__(
        self,
        object_hook: Callable[[dict[str, Any]], Any] | None,
        object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None,
        parse_float: Callable[[str], Any],
        parse_int: Callable[[str], Any],
    ) -> None:
        self.strict = True
        self.memo: dict[str, str] = {}
        self.object_hook = object_hook
        self.object_pairs_hook = object_pairs_hook
        self.parse_constant = _constant
        self.parse_float = parse_float
        self.parse_int = parse_int


def _scanner(
    *,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    parse_float: Callable[[str], Any] = float,
    parse_int: Callable[[str], Any] = int,
) -> _Scan:
    """Return the ``scan_once`` of a strict decoder whose ``parse_constant`` raises."""
    if _c_make_scanner is not None:
        context = _Context(object_hook, object_pairs_hook, parse_float, parse_int)
        scan: _Scan = _c_make_scanner(context)
        return scan
    decoder = json.JSONDecoder(
        object_hook=object_hook,
        object_pairs_hook=object_pairs_hook,
        parse_float=parse_float,
        parse_int=parse_int,
        parse_constant=_constant,
    )
    return json.scanner.make_scanner(cast(Any, decoder))


# Stateless, so shared: its hooks only raise.
_SCAN: Final = _scanner(object_pairs_hook=_pairs, parse_float=_float, parse_int=_int)
_MISS: Final = object()


def _run(scan: _Scan, text: str) -> Any:
    """Return the value of the whole ``text`` by ``scan``, or ``_MISS`` on any doubt."""
    try:
        value, end = scan(text, _ws(text, 0).end())
    except (_Hazard, ValueError, RecursionError, StopIteration):
        return _MISS
    if end != len(text) and _ws(text, end).end() != len(text):
        return _MISS
    return value


def _surrogate_escapes_in(text: str) -> Iterator[int]:
    """Yield the offsets of ``\\u`` escapes that may name a lone surrogate (a superset)."""
    at = text.find("\\")
    for _ in range(_ESCAPE_HOPS):  # few escapes: hop from one to the next
        if at < 0:
            return
        after = _escape_end(text, at)
        if after < 0:
            yield at
            after = at + 2
        at = text.find("\\", after)
    if at < 0:
        return
    for match in _surrogate_escapes(text, at):  # many escapes: a regex is faster
        start = match.start()
        escaped = text[start - 1] == "\\"  # maybe "\\\\u…": the tokenizer decides
        if escaped or match.group(1) in "cdefCDEF" or match.group(2) is None:
            yield start


def _escape_end(text: str, at: int) -> int:
    """Return where the escape at ``at`` ends, or -1 if it is a lone surrogate."""
    escape = text[at + 1 : at + 4]
    if len(escape) == 3 and escape[0] == "u" and escape[1] in "dD":
        if escape[2] in "89abAB":
            low = text[at + 6 : at + 10]
            paired = len(low) == 4 and low[0] == "\\" and low[1] == "u" and low[2] in "dD"
            return at + 12 if paired and low[3] in "cdefCDEF" else -1
        if escape[2] in "cdefCDEF":
            return -1
    return at + 2


def _char_width(text: str) -> int:
    """Return how many bytes CPython stores per code point of ``text`` (4 when unsure)."""
    if text.isascii():
        return 1
    if len(text) < 256:
        return 4
    size = sys.getsizeof(text, 8 * len(text))  # other interpreters: the default
    return 1 if size < 2 * len(text) else 2 if size < 4 * len(text) else 4


def _has_raw_surrogate(text: str) -> bool:
    """Tell whether a str holds a surrogate code point (decoded UTF-8 never does)."""
    width = _char_width(text)
    if width == 1:
        return False
    if width == 2:  # the UTF-16 encoder copies and refuses surrogates, at C speed
        try:
            text.encode("utf-16-le")
        except UnicodeEncodeError:
            return True
        return False
    return _surrogate(text) is not None


def _surrogate_offsets(text: str, raw: bytes | None) -> tuple[int, ...]:
    """Return the offsets where a lone surrogate may be (a superset), in order."""
    found = list(_surrogate_escapes_in(text))
    if raw is None and _has_raw_surrogate(text):
        found.extend(match.start() for match in _surrogates(text))
        found.sort()
    return tuple(found)


def _openers_up_to(text: str, limit: int) -> int:
    """Count opening brackets by hops between them, stopping past ``limit``."""
    seen = 0
    find = text.find
    for bracket in "[{":
        at = find(bracket)
        while at >= 0 and seen <= limit:
            seen += 1
            at = find(bracket, at + 1)
    return seen


def _ascii_compatible(text: str) -> bytes:
    """Encode ``text`` so that every ASCII character keeps its byte."""
    try:
        return text.encode("latin-1")  # a plain copy when every code point is below 256
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _shape_table() -> bytes:
    table = bytearray(b"x" * 256)
    for byte in b"0123456789":
        table[byte] = ord("0")
    for sources, target in ((b"eE", b"e"), (b"+-", b"s"), (b"[{", b"["), (b"]}", b"]")):
        for byte in sources:
            table[byte] = target[0]
    for byte in b'":\\':
        table[byte] = byte
    return bytes(table)


# Digits become 0, exponent letters e, signs s, brackets of both kinds [ and ]; quotes,
# colons and backslashes stay; everything else becomes x. Whitespace is dropped.
_SHAPE: Final = _shape_table()


def _shape(data: bytes) -> bytes:
    return data.translate(_SHAPE, b" \t\n\r")


def _skeleton(shape: bytes) -> bytes:
    """Return the brackets and member colons of a shape, strings removed (exact when the
    text is valid JSON)."""
    if b"\\" in shape:  # escapes live in strings: drop escaped backslashes, then quotes
        shape = shape.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = shape.translate(None, b"0esx\\").replace(b'""', b"")
    if b'"' in skeleton:  # the few strings that hold a colon or a bracket
        skeleton = _quoted(b"", skeleton)
    return skeleton


def _depth_at_most(skeleton: bytes, limit: int) -> bool:
    """Tell whether the balanced brackets of a skeleton nest at most ``limit`` deep."""
    brackets = skeleton.translate(None, b":")
    if brackets.count(b"[") <= limit:
        return True
    for _ in range(limit):  # each round removes exactly the innermost level
        brackets = brackets.replace(b"[]", b"")
        if not brackets:
            return True
    return False


def _depth_at_most_in_value(value: Any, limit: int) -> bool:
    """Tell whether a parsed value nests at most ``limit`` deep, a level at a time."""
    dicts: list[dict[str, Any]] = [value] if type(value) is dict else []
    lists: list[list[Any]] = [value] if type(value) is list else []
    for _ in range(limit):
        if not dicts and not lists:
            return True
        items = [*chain.from_iterable(map(dict.values, dicts)), *chain.from_iterable(lists)]
        types = [*map(type, items)]
        dicts = [*compress(items, map(_is_dict, types))]
        lists = [*compress(items, map(_is_list, types))]
    return not dicts and not lists


def _by_pairs(text: str, max_depth: int, openers: int, numbers: int) -> Any:
    """Parse with a pairs hook on each object; raise ``_TooManyNumbers`` past ``numbers``."""
    left = [numbers]

    def parse_float(literal: str) -> float:
        left[0] -= 1
        if left[0] < 0:
            raise _TooManyNumbers
        return _float(literal)

    def parse_int(literal: str) -> int:
        left[0] -= 1
        if left[0] < 0:
            raise _TooManyNumbers
        return _int(literal)

    scan = _scanner(object_pairs_hook=_pairs, parse_float=parse_float, parse_int=parse_int)
    value = _run(scan, text)
    if openers > max_depth and not _depth_at_most_in_value(value, max_depth):
        return _MISS
    return value


def _by_skeleton(text: str, data: bytes, max_depth: int) -> Any:
    """Parse counting dict entries, compared with the member colons of the skeleton."""
    shape = _shape(data)
    skeleton = _skeleton(shape)
    if not _depth_at_most(skeleton, max_depth):
        return _MISS
    total = [0]

    def object_hook(obj: dict[str, Any]) -> dict[str, Any]:
        total[0] += len(obj)
        return obj

    # Floats are checked one by one; integers only if a digit run is long enough.
    parse_int = _int if _DIGIT_RUN in shape else int
    scan = _scanner(object_hook=object_hook, parse_float=_float, parse_int=parse_int)
    value = _run(scan, text)
    if total[0] != skeleton.count(b":"):
        return _MISS  # fewer dict entries than members: a member name repeats
    return value


def _fast(text: str, raw: bytes | None, max_depth: int) -> Any:
    """Return the value of clean ``text``, or ``_MISS`` when it may hold a hazard.

    ``raw`` is the UTF-8 that ``text`` was decoded from, if any.
    """
    if next(_surrogate_escapes_in(text), None) is not None:
        return _MISS
    if raw is None and _has_raw_surrogate(text):
        return _MISS
    if len(text) <= _SMALL_TEXT:
        if text.count("[") + text.count("{") <= max_depth:
            return _run(_SCAN, text)
    else:
        budget = 64 + len(text) // 2048  # objects and numbers the hooks may afford
        openers = _openers_up_to(text, budget)
        if openers <= budget:
            try:
                return _by_pairs(text, max_depth, openers, budget)
            except _TooManyNumbers:
                pass
    return _by_skeleton(text, raw if raw is not None else _ascii_compatible(text), max_depth)


# --- the exact tokenizer -------------------------------------------------------------


def _line_column(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - text.rfind("\n", 0, pos)


def _found(text: str, pos: int) -> str:
    return repr(text[pos]) if pos < len(text) else "end of text"


def _clip(literal: str) -> str:
    return literal if len(literal) <= 40 else f"{literal[:20]}…({len(literal)} characters)"


def _string_error(message: str) -> str:
    """Say what the json module's string scanner expected, from its message."""
    if message.startswith("Invalid control character"):
        return "a control character to be escaped"
    if message.startswith("Invalid \\u"):
        return "four hex digits after '\\u'"
    if message.startswith("Invalid \\"):
        return "a valid escape after '\\'"
    return "a valid string"


_State = Callable[[], "_State | None"]


class _Tokenizer:
    """Walk JSON text without recursion, building the value and recording every hazard.

    With ``wanted`` it builds nothing and reports nothing: it notes where the values at
    those paths are written, for :func:`locate`.
    """

    __slots__ = (
        "current",
        "deep_at",
        "deep_path",
        "hazards",
        "index",
        "key_pos",
        "max_depth",
        "n",
        "ok",
        "path",
        "pos",
        "problems",
        "skip",
        "stack",
        "text",
        "wanted",
        "wanted_len",
    )

    def __init__(
        self,
        text: str,
        max_depth: int,
        *,
        surrogates: tuple[int, ...] = (),
        wanted: frozenset[Path] | None = None,
    ) -> None:
        self.text = text
        self.n = len(text)
        self.max_depth = max_depth
        self.pos = self.key_pos = _ws(text, 0).end()
        self.path: list[str | int] = []
        self.stack: list[dict[str, Any] | list[Any]] = []
        self.current: Any = None
        self.problems: list[tuple[int, Problem]] = []
        self.ok = True
        self.deep_at = -1
        self.deep_path: Path = ()
        self.wanted = wanted
        self.wanted_len = max(map(len, wanted), default=0) if wanted else 0
        self.index: dict[Path, list[tuple[int, int]]] = {}
        self.skip = wanted is None
        self.hazards = surrogates

    def run(self) -> _Tokenizer:
        state: _State | None = self._value
        while state is not None:
            state = state()
        return self

    @property
    def value(self) -> Any:
        return self.current if self.ok else None

    # -- reporting --

    def _report(self, pos: int, code: str, message: str, *, member: str | None = None) -> None:
        """Record a problem at the current path, or at ``member`` of the current object."""
        if self.deep_at >= 0 or self.wanted is not None:
            return  # inside a container that is too deep, only syntax errors count
        path = tuple(self.path) if member is None else (*self._container_path(), member)
        self.problems.append((pos, Problem(path, code, message)))

    def _syntax(self, pos: int, expected: str, path: Path | None = None) -> None:
        self.ok = False
        if self.wanted is not None:
            return None
        if self.deep_at >= 0:
            path = self.deep_path
        elif path is None:
            path = tuple(self.path)
        line, column = _line_column(self.text, pos)
        message = f"expected {expected} at line {line} column {column}, found "
        self.problems.append((pos, Problem(path, "json.syntax", message + _found(self.text, pos))))
        return None

    def _container_path(self) -> Path:
        return tuple(self.path[:-1])

    # -- values --

    def _value(self) -> _State | None:
        text, pos = self.text, self.pos
        if self.wanted is not None:
            self._note(pos)
        if pos >= self.n:
            self._syntax(pos, "a JSON value")
            return None
        char = text[pos]
        if char == "{" or char == "[":
            return self._open(char, pos)
        if char == '"':
            end = self._string(pos, key=False)
        elif char in _NUMBER_START:
            end = self._number(pos)
        else:
            end = self._literal(pos)
        if end < 0:
            return None
        self.pos = end
        return self._after

    def _note(self, pos: int) -> None:
        if len(self.path) <= self.wanted_len:
            path = tuple(self.path)
            if self.wanted is not None and path in self.wanted:
                self.index.setdefault(path, []).append((self.key_pos, pos))

    def _string(self, pos: int, *, key: bool) -> int:
        """Parse the string at ``pos`` into ``current``; return its end or -1."""
        try:
            value, end = _scanstring(self.text, pos + 1, True)
        except json.JSONDecodeError as exc:
            where = self._container_path() if key else None
            if exc.msg.startswith("Unterminated"):
                self._syntax(self.n, "'\"' to close the string", where)
            else:
                self._syntax(exc.pos, _string_error(exc.msg), where)
            return -1
        if not value.isascii():
            lone = _surrogate(value)
            if lone is not None:
                self._report(
                    pos,
                    "json.lone_surrogate",
                    f"expected a complete surrogate pair, found lone surrogate "
                    f"U+{ord(lone.group()):04X} in the {'member name' if key else 'string'}",
                    member=value if key else None,
                )
        self.current = value
        return end

    def _number(self, pos: int) -> int:
        text = self.text
        match = _number(text, pos)
        if match is None:
            if text.startswith("-Infinity", pos):
                return self._non_finite(pos, "-Infinity", float("-inf"))
            self._syntax(pos, "a JSON value")
            return -1
        literal = match.group()
        if match.group(2) is None and match.group(3) is None:
            self.current = self._integer(pos, literal)
        else:
            self.current = value = float(literal)
            if value - value:
                self._out_of_range(pos, literal)
        return match.end()

    def _integer(self, pos: int, literal: str) -> int | None:
        if len(literal) <= _SAFE_INT_CHARS:
            return int(literal)
        try:
            value = int(literal)
        except ValueError:  # longer than int() converts: surely beyond a double
            self.ok = False
            self._out_of_range(pos, literal)
            return None
        if abs(value) > _MAX_DOUBLE_INT:
            self._out_of_range(pos, literal)
        return value

    def _out_of_range(self, pos: int, literal: str) -> None:
        self._report(
            pos,
            "json.number_range",
            f"expected a number within ±{sys.float_info.max!r}, found {_clip(literal)}",
        )

    def _literal(self, pos: int) -> int:
        text = self.text
        for word, value in _LITERALS:
            if text.startswith(word, pos):
                if isinstance(value, float):
                    return self._non_finite(pos, word, value)
                self.current = value
                return pos + len(word)
        self._syntax(pos, "a JSON value")
        return -1

    def _non_finite(self, pos: int, word: str, value: float) -> int:
        self._report(pos, "json.non_finite", f"expected a number, found {word}")
        self.current = value
        return pos + len(word)

    # -- containers --

    def _open(self, char: str, pos: int) -> _State | None:
        if self.skip and 0 < len(self.stack) < _SKIP_LEVELS and self._skip(pos):
            return self._after
        if len(self.stack) >= self.max_depth and self.deep_at < 0:
            self._report(
                pos, "json.too_deep", f"expected at most {self.max_depth} nested levels, found more"
            )
            self.deep_at, self.deep_path, self.ok = len(self.stack), tuple(self.path), False
        container: dict[str, Any] | list[Any] = {} if char == "{" else []
        self.stack.append(container)
        text = self.text
        pos = _ws(text, pos + 1).end()
        if text.startswith("}" if char == "{" else "]", pos):
            self.pos = pos
            return self._close(pos)
        self.pos = pos
        if char == "[":
            self.path.append(0)
            self.key_pos = pos
            return self._value
        self.path.append("")
        return self._value if self._member() else None

    def _skip(self, pos: int) -> bool:
        """Parse a hazard-free subtree with the C scanner; tell whether it was one."""
        try:
            value, end = _SCAN(self.text, pos)
        except Exception:  # any failure only means: walk into it
            return False
        hazards = self.hazards
        if hazards and bisect_left(hazards, pos) != bisect_left(hazards, end):
            return False
        levels = self.max_depth - len(self.stack)
        text = self.text
        if text.count("[", pos, end) + text.count("{", pos, end) > levels:
            skeleton = _skeleton(_shape(_ascii_compatible(text[pos:end])))
            if not _depth_at_most(skeleton, levels):
                return False
        self.current, self.pos = value, end
        return True

    def _member(self) -> bool:
        """Parse ``"name":`` at ``pos``, check it, and make it the last path step."""
        text, pos = self.text, self.pos
        if not text.startswith('"', pos):
            self._syntax(pos, "a member name in double quotes", self._container_path())
            return False
        end = self._string(pos, key=True)
        if end < 0:
            return False
        key: str = self.current
        if self.wanted is None and key in self.stack[-1]:
            message = f"expected each member name once, found {json.dumps(key)} again"
            self._report(pos, "json.duplicate_key", message, member=key)
        colon = _ws(text, end).end()
        if not text.startswith(":", colon):
            where = (*self._container_path(), key)
            self._syntax(colon, "':' after the member name", where)
            return False
        self.path[-1] = key
        self.key_pos = pos
        self.pos = _ws(text, colon + 1).end()
        return True

    def _after(self) -> _State | None:
        """Store ``current`` in its container, then read a separator or a closer."""
        if not self.stack:
            self._finish()
            return None
        top = self.stack[-1]
        text = self.text
        pos = _ws(text, self.pos).end()
        char = text[pos : pos + 1]
        if isinstance(top, dict):
            if self.wanted is None:
                top[cast(str, self.path[-1])] = self.current
            if char == ",":
                self.pos = _ws(text, pos + 1).end()
                return self._value if self._member() else None
            if char == "}":
                return self._close(pos)
            self._syntax(pos, "',' or '}'", self._container_path())
            return None
        if self.wanted is None:
            top.append(self.current)
        if char == ",":
            self.path[-1] = cast(int, self.path[-1]) + 1
            self.pos = self.key_pos = _ws(text, pos + 1).end()
            return self._value
        if char == "]":
            return self._close(pos)
        self._syntax(pos, "',' or ']'", self._container_path())
        return None

    def _close(self, pos: int) -> _State | None:
        self.current = self.stack.pop()
        if len(self.path) > len(self.stack):
            self.path.pop()
        if self.deep_at == len(self.stack):
            self.deep_at = -1
        self.pos = pos + 1
        return self._after

    def _finish(self) -> None:
        pos = _ws(self.text, self.pos).end()
        if pos < self.n:
            line, column = _line_column(self.text, pos)
            self._report(
                pos,
                "json.trailing_data",
                f"expected the end of the text after the value at line {line} column {column}, "
                f"found {_found(self.text, pos)}",
            )
        return None


_LITERALS: Final[tuple[tuple[str, bool | float | None], ...]] = (
    ("true", True),
    ("false", False),
    ("null", None),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
)


# --- decoding ------------------------------------------------------------------------

_Found = list[tuple[int, Problem]]


def _sniff(head: bytes) -> tuple[str, str]:
    """Return the codec of JSON bytes from their first four, and a label for people."""
    if head.startswith((codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE)):
        order = "LE" if head.startswith(codecs.BOM_UTF32_LE) else "BE"
        return "utf-32", f"UTF-32{order} with a byte order mark"
    if head.startswith((codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)):
        order = "LE" if head.startswith(codecs.BOM_UTF16_LE) else "BE"
        return "utf-16", f"UTF-16{order} with a byte order mark"
    if len(head) >= 4 and not head[0]:
        return ("utf-16-be", "UTF-16BE") if head[1] else ("utf-32-be", "UTF-32BE")
    if len(head) >= 4 and not head[1]:
        return ("utf-16-le", "UTF-16LE") if head[2] or head[3] else ("utf-32-le", "UTF-32LE")
    if len(head) == 2 and not head[0]:
        return "utf-16-be", "UTF-16BE"
    if len(head) == 2 and not head[1]:
        return "utf-16-le", "UTF-16LE"
    return "utf-8", "UTF-8"


def _decode_utf8(raw: bytes) -> tuple[str, _Found]:
    """Decode UTF-8, or replace each bad sequence and report it with its byte offset."""
    view = memoryview(raw)
    pieces: list[str] = []
    found: _Found = []
    start = chars = 0
    line, column = 1, 1  # where the next character goes, 1-based, in code points
    while True:
        try:
            pieces.append(codecs.utf_8_decode(view[start:], "strict", True)[0])
            return "".join(pieces), found
        except UnicodeDecodeError as exc:
            good = codecs.utf_8_decode(view[start : start + exc.start], "strict", True)[0]
            pieces.append(good)
            chars += len(good)
            breaks = good.count("\n")
            line += breaks
            column = len(good) - good.rfind("\n") if breaks else column + len(good)
            offset = start + exc.start
            if len(found) == _MAX_BYTE_PROBLEMS:
                message = f"expected UTF-8, found more invalid bytes from byte offset {offset} on"
                found.append((chars, Problem((), "json.invalid_utf8", message)))
                pieces.append(raw[offset:].decode("utf-8", "replace"))
                return "".join(pieces), found
            bad = raw[offset : start + exc.end].hex(" ")
            message = (
                f"expected UTF-8, found {bad} ({exc.reason}) at line {line} column {column} "
                f"(byte offset {offset})"
            )
            found.append((chars, Problem((), "json.invalid_utf8", message)))
            pieces.append("\ufffd")
            chars += 1
            column += 1
            start += exc.end


def _decode_other(raw: bytes, codec: str, label: str) -> tuple[str, _Found, bool]:
    message = f"expected UTF-8, found {label}"
    try:
        text, ok = raw.decode(codec), True
    except UnicodeDecodeError as exc:
        text, ok = raw.decode(codec, "replace"), False
        message += f" that does not decode either ({exc.reason} at byte offset {exc.start})"
    return text, [(0, Problem((), "json.encoding", message))], ok


def _decode(data: object) -> tuple[str, bytes | None, _Found, bool]:
    """Return the text, its UTF-8 bytes if given, the decoding problems, and strictness."""
    if isinstance(data, str):
        if data.startswith("\ufeff"):
            return data[1:], None, [(0, _bom_problem())], True
        return data, None, [], True
    if not isinstance(data, (bytes, bytearray, memoryview)):
        name = type(data).__name__
        problem = Problem((), "json.syntax", f"expected JSON text as str or bytes, found {name}")
        raise InvalidInput([problem])
    raw = data if type(data) is bytes else bytes(data)
    codec, label = _sniff(raw[:4])
    if codec != "utf-8":
        text, found, ok = _decode_other(raw, codec, label)
        return text, None, found, ok
    found = []
    if raw.startswith(codecs.BOM_UTF8):
        found.append((0, _bom_problem()))
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), raw, found, True
    except UnicodeDecodeError:
        text, bad = _decode_utf8(raw)
        return text, None, found + bad, False


def _bom_problem() -> Problem:
    return Problem((), "json.bom", "expected text without a byte order mark, found U+FEFF")


# --- the public functions ------------------------------------------------------------


def parse(data: str | bytes | bytearray | memoryview, *, limits: Limits = GEMINI) -> Parsed:
    """Parse JSON text strictly and report every hazard with its path.

    Bytes must be UTF-8; a byte order mark, UTF-16 and UTF-32 are reported and still
    decoded. A repeated member name is reported at each repeat and the last value kept.
    Problems come in document order; a problem inside a member value that a later
    repeat of the name replaces keeps its path, which then names the kept value.

    Raises:
        InvalidInput: ``data`` is not str or bytes.
        DecisionsInputError: never in practice; nothing else escapes, whatever the input.

    .. versionadded:: 0.1
    """
    try:
        return _parse(data, limits.MAX_JSON_DEPTH)
    except DecisionsInputError:
        raise
    except Exception as exc:  # the contract: no other exception escapes
        raise DecisionsInputError(f"could not parse the JSON text: {exc!r}") from exc


def _parse(data: object, max_depth: int) -> Parsed:
    text, raw, head, strict = _decode(data)
    if strict:
        value = _fast(text, raw, max_depth)
        if value is not _MISS:
            return Parsed(value, tuple([problem for _, problem in head]) if head else (), text)
    walked = _Tokenizer(text, max_depth, surrogates=_surrogate_offsets(text, raw)).run()
    found = sorted(head + walked.problems, key=lambda item: item[0])
    value = walked.value if strict else None
    return Parsed(value, tuple(problem for _, problem in found), text if strict else None)


def locate(text: str, path: Sequence[str | int]) -> Location | None:
    """Return where the member or element at ``path`` is written in ``text``, or None.

    ``text`` is :attr:`Parsed.text`. When a member name is repeated, the last occurrence
    is returned, as it holds the value kept; :func:`locate_all` returns every one.

    .. versionadded:: 0.1
    """
    found = locate_all(text, path)
    return found[-1] if found else None


def locate_all(text: str, path: Sequence[str | int]) -> tuple[Location, ...]:
    """Return every place where a member or element at ``path`` is written, in order.

    The k-th ``json.duplicate_key`` problem of a path is written at occurrence k + 1.

    .. versionadded:: 0.1
    """
    key = tuple(path)
    return _locations(text, [key]).get(key, ())


def locate_many(text: str, paths: Iterable[Sequence[str | int]]) -> dict[Path, Location | None]:
    """Return :func:`locate` for many paths, reading ``text`` once.

    .. versionadded:: 0.1
    """
    keys = [tuple(path) for path in paths]
    found = _locations(text, keys)
    return {key: (found[key][-1] if found.get(key) else None) for key in keys}


def _locations(text: str, paths: Iterable[Path]) -> dict[Path, tuple[Location, ...]]:
    if text.startswith("\ufeff"):
        text = text[1:]
    wanted = frozenset(paths)
    if not wanted:
        return {}
    walked = _Tokenizer(text, sys.maxsize, wanted=wanted).run()
    starts = [0] + [match.end() for match in _newlines(text)]

    def place(pos: int) -> tuple[int, int]:
        line = bisect_right(starts, pos)
        return line, pos - starts[line - 1] + 1

    return {
        path: tuple(Location(*place(key), *place(value)) for key, value in spots)
        for path, spots in walked.index.items()
    }
