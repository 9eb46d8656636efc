"""The fast path: clean JSON text parsed by the C scanner of the ``json`` module."""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
import sys
from collections.abc import Callable, Iterator
from itertools import chain, compress
from typing import Any, Final, cast

__all__: list[str] = []

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
