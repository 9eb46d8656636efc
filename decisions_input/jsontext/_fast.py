"""The fast path: clean JSON text parsed by the C scanner of the ``json`` module.

A clean text costs about one ``json.loads``. The C scanner builds the value; hooks raise on
the hazards it meets (``NaN`` and the infinities, a number beyond a double); a few scans at C
speed cover the rest. Nothing here explains a problem: on any doubt :func:`clean_value`
returns :data:`MISS` and the strict reader reads the text to explain and place what it
finds. So every shortcut may be over-cautious, never lenient: a value comes back only when
the strict reader would find nothing in the text and build the same value.

What each hazard costs on the way:

* A lone surrogate escape: a hop from one backslash to the next (few escapes), or a search
  for ``\\ud`` past them. A raw surrogate code point in a ``str``: the text encoded once in
  the width it is stored in (decoded UTF-8 holds none, nor does a one-byte-wide string).
* A repeated member name, when objects are few for the size of the text: each object is
  compared with the pairs it was made from. When they are many, the C scanner builds them
  itself, a hook adds up their sizes, and the sum must equal the member colons of the text:
  every colon when no string holds one, else the colons of a skeleton of brackets and colons
  that ``bytes.translate`` makes.
* Nesting deeper than the bound: never possible with fewer brackets than the bound; else
  measured on the value a level at a time, or on the skeleton.
* A number beyond a double: a hook on each number up to a budget of numbers; past it, a
  screen of the text for the only shapes that can leave a double's range (an exponent of
  three digits or more, a run of 200 digits), and hooks only if one is there.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
import sys
from collections.abc import Callable, Iterator
from itertools import chain, compress
from typing import Any, Final, cast

from .._unicode import char_width, has_surrogate

__all__ = [
    "MAX_DOUBLE_INT",
    "MISS",
    "SAFE_INT_CHARS",
    "SCAN",
    "ascii_compatible",
    "clean_value",
    "depth_at_most",
    "scanstring",
    "shape",
    "skeleton",
    "surrogate_escapes",
    "ws",
]

# Returned by :func:`clean_value` when the text may hold a hazard.
MISS: Final = object()
# Every number above this is beyond the range of a double; it is ``int(sys.float_info.max)``.
MAX_DOUBLE_INT: Final = int(sys.float_info.max)
# An integer literal of at most this many characters is always below ``MAX_DOUBLE_INT``.
SAFE_INT_CHARS: Final = 308
# Up to this many objects (and numbers) plus one per this many characters, hooks that see
# each one cost less than a scan of the whole text.
_HOOK_BASE: Final = 16
_CHARS_PER_HOOK: Final = 1024
# A bracket is found by hops from one to the next, which stop once they have seen enough;
# past ``_HOPS`` of them, a text up to ``_SMALL_TEXT`` characters counts the rest with
# ``str.count`` in one pass.
_SMALL_TEXT: Final = 1 << 14
_HOPS: Final = 8
# A level of the value with more items than this is first tried as strings, in one join.
_JOIN_ITEMS: Final = 64
# Backslashes visited one by one before a substring search looks for ``\ud`` instead.
_ESCAPE_HOPS: Final = 64
# In a shape every digit is "0": an integer beyond a double has a run this long, and so
# has a float beyond a double unless its exponent has three digits or more.
_DIGIT_RUN: Final = b"0" * 200

# Always matches, possibly empty.
ws = cast("Callable[[str, int], re.Match[str]]", re.compile(r"[ \t\n\r]*").match)
scanstring: Callable[[str, int, bool], tuple[str, int]] = vars(json.decoder)["scanstring"]
# A \u escape naming a surrogate, with the low half that may pair with it.
_surrogate_escapes = re.compile(
    r"\\u[dD]([89a-fA-F])[0-9a-fA-F]{2}(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
).finditer
_quoted = re.compile(rb'"[^"]*"').sub
_is_container = frozenset({dict, list}).__contains__
_OPENING: Final = frozenset("{[")


class _Hazard(Exception):
    """Raised by a scanner hook: the text needs the strict reader."""


class _TooManyNumbers(Exception):
    """Raised by a counting number hook: a screen of the text costs less than hooks."""


def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Make an object of its pairs; raise when a member name repeats."""
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
    if len(literal) > SAFE_INT_CHARS:
        raise _Hazard
    return int(literal)


class _TooManyObjects(Exception):
    """Raised by a counting pairs hook: a scan of the whole text costs less than hooks."""


class _Hooks:
    """Hooks that check each object and number literal, up to a budget of each."""

    __slots__ = ("numbers", "objects")

    def __init__(self, budget: int) -> None:
        self.numbers = self.objects = budget

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.objects -= 1
        if self.objects < 0:
            raise _TooManyObjects
        return pairs_hook(pairs)

    def float_(self, literal: str) -> float:
        self.numbers -= 1
        if self.numbers < 0:
            raise _TooManyNumbers
        return _float(literal)

    def int_(self, literal: str) -> int:
        self.numbers -= 1
        if self.numbers < 0:
            raise _TooManyNumbers
        return _int(literal)


class _Sizes:
    """An object hook that counts the objects the scanner makes and adds up their members."""

    __slots__ = ("entries", "objects")

    def __init__(self) -> None:
        self.entries = self.objects = 0

    def add(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.entries += len(obj)
        self.objects += 1
        return obj


class _Counts:
    """A scanner's context whose object hook adds up the members of the objects the scanner
    makes, and whose number hooks check each literal up to a budget of numbers. The C
    scanner reads its hooks from here: no decoder nor other context is built per text."""

    __slots__ = ("entries", "numbers", "objects")
    strict = True
    object_pairs_hook = None
    parse_constant = staticmethod(_constant)

    def __init__(self, budget: int) -> None:
        self.numbers = budget
        self.entries = self.objects = 0

    def object_hook(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.entries += len(obj)
        self.objects += 1
        return obj

    def parse_float(self, literal: str) -> float:
        self.numbers -= 1
        if self.numbers < 0:
            raise _TooManyNumbers
        return _float(literal)

    def parse_int(self, literal: str) -> int:
        self.numbers -= 1
        if self.numbers < 0:
            raise _TooManyNumbers
        return _int(literal)


_Scan = Callable[[str, int], tuple[Any, int]]
_c_make_scanner = getattr(json.scanner, "c_make_scanner", None)


class _Context:
    """The attributes the C scanner reads from a decoder, without building a decoder."""

    __slots__ = ("object_hook", "object_pairs_hook", "parse_float", "parse_int")
    strict = True
    parse_constant = staticmethod(_constant)

    def __init__(
        self,
        object_hook: Callable[[dict[str, Any]], Any] | None,
        object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None,
        parse_float: Callable[[str], Any],
        parse_int: Callable[[str], Any],
    ) -> None:
        self.object_hook = object_hook
        self.object_pairs_hook = object_pairs_hook
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


# Stateless, so shared: its hooks only raise. The strict reader hands subtrees to it.
SCAN: Final = _scanner(object_pairs_hook=pairs_hook, parse_float=_float, parse_int=_int)


def _run(scan: _Scan, text: str) -> Any:
    """Return the value of the whole ``text`` by ``scan``, or ``MISS`` on any doubt."""
    try:
        value, end = scan(text, 0 if text[:1] in _OPENING else ws(text, 0).end())
    except (_Hazard, ValueError, RecursionError, StopIteration):
        return MISS
    if end != len(text) and ws(text, end).end() != len(text):
        return MISS
    return value


# --- the routes ------------------------------------------------------------------------


def clean_value(text: str, raw: bytes | None, max_depth: int) -> Any:
    """Return the value of ``text`` when it holds no hazard at all, else ``MISS``.

    ``raw`` is the UTF-8 that ``text`` was decoded from, if any: decoded text holds no
    surrogate code point, and the bytes spare an encoding when a skeleton is needed.
    """
    if "\\" in text and next(surrogate_escapes(text), None) is not None:
        return MISS
    if raw is None and not text.isascii() and has_surrogate(text):
        return MISS
    allowance = _HOOK_BASE + len(text) // _CHARS_PER_HOOK
    try:
        if len(text) > _SMALL_TEXT:
            try:  # a long text finds out on the way whether its objects are few
                return _by_pairs(text, max_depth, allowance)
            except _TooManyObjects:
                pass
        return _by_sizes(text, raw, max_depth, allowance)
    except _TooManyNumbers:
        return _by_shape(text, raw, max_depth)


def _by_pairs(text: str, max_depth: int, allowance: int) -> Any:
    """Few objects: each one compared with its pairs; objects and numbers hooked up to
    ``allowance`` each."""
    hooks = _Hooks(allowance)
    scan = _scanner(object_pairs_hook=hooks.pairs, parse_float=hooks.float_, parse_int=hooks.int_)
    value = _run(scan, text)
    if value is MISS:
        return MISS
    narrow = char_width(text) == 1  # brackets are found at memchr speed
    if (narrow and _brackets_up_to(text, max_depth)) or _depth_within(value, max_depth):
        return value
    return MISS


def _by_sizes(text: str, raw: bytes | None, max_depth: int, allowance: int) -> Any:
    """Many objects: the members the scanner kept, compared with the text's member colons."""
    counts = _Counts(allowance)
    scan: _Scan = _c_make_scanner(counts) if _c_make_scanner is not None else _py_scanner(counts)
    value = _run(scan, text)
    if value is MISS:
        return MISS
    # Every member has a colon outside strings: with no colon inside one, the counts agree
    # exactly when no member was dropped for a repeated name.
    if counts.entries == text.count(":"):
        arrays = max_depth - counts.objects
        if arrays >= 0 and _count_up_to(text, "[", arrays) <= arrays:
            return value
        return value if _depth_within(value, max_depth) else MISS
    bones = skeleton(shape(raw if raw is not None else ascii_compatible(text)))
    if counts.entries == bones.count(b":") and depth_at_most(bones, max_depth):
        return value
    return MISS


def _py_scanner(counts: _Counts) -> _Scan:
    """The scanner of an interpreter without the C one, with the hooks of ``counts``."""
    return _scanner(
        object_hook=counts.object_hook,
        parse_float=counts.parse_float,
        parse_int=counts.parse_int,
    )


def _by_shape(text: str, raw: bytes | None, max_depth: int) -> Any:
    """Many numbers: screened on the shape of the text, and checked by hooks only if a
    literal may leave a double's range."""
    outline = shape(raw if raw is not None else ascii_compatible(text))
    bones = skeleton(outline)
    if not depth_at_most(bones, max_depth):
        return MISS
    long_run = _DIGIT_RUN in outline
    big_exponent = b"e000" in outline or b"es000" in outline
    sizes = _Sizes()
    scan = _scanner(
        object_hook=sizes.add,
        parse_float=_float if long_run or big_exponent else float,
        parse_int=_int if long_run else int,
    )
    value = _run(scan, text)
    if value is MISS or sizes.entries != bones.count(b":"):
        return MISS
    return value


# --- scans at C speed ------------------------------------------------------------------


def _count_up_to(text: str, char: str, limit: int) -> int:
    """Count ``char`` in ``text``, stopping once past ``limit`` (the answer is then limit + 1).

    A few are found by hopping from one to the next (a search at memchr speed); past
    ``_HOPS`` of them, a short text counts the rest in one pass.
    """
    seen = 0
    at = text.find(char)
    while at >= 0 and seen <= limit:
        seen += 1
        if seen == _HOPS and len(text) <= _SMALL_TEXT:
            return min(seen + text.count(char, at + 1), limit + 1)
        at = text.find(char, at + 1)
    return seen


def _brackets_up_to(text: str, limit: int) -> bool:
    """Tell whether ``text`` holds at most ``limit`` opening brackets of both kinds."""
    objects = _count_up_to(text, "{", limit)
    return objects <= limit and objects + _count_up_to(text, "[", limit - objects) <= limit


def _depth_within(value: Any, limit: int) -> bool:
    """Tell whether a parsed value nests at most ``limit`` deep, a level at a time.

    A level of many items that are all strings (the options and levels of questions, most
    often) ends the walk at the cost of joining them, which is less than looking at each
    type; the join stops at the first item that is not a string, before copying any.
    """
    level: list[Any] = [value] if _is_container(type(value)) else []
    for _ in range(limit):
        if not level:
            return True
        items = [*_children(level)]
        if len(items) > _JOIN_ITEMS:
            try:
                "".join(items)
            except TypeError:  # an item that is not a string: maybe a container
                pass
            else:
                return True
        level = [*compress(items, map(_is_container, map(type, items)))]
    return not level


def _children(level: list[Any]) -> Iterator[Any]:
    return chain.from_iterable(c.values() if type(c) is dict else c for c in level)


def surrogate_escapes(text: str) -> Iterator[int]:
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
    if at < 0 or (text.find("\\ud", at) < 0 and text.find("\\uD", at) < 0):
        return
    for match in _surrogate_escapes(text, at):  # many escapes, some of surrogates
        start = match.start()
        escaped = text[start - 1] == "\\"  # maybe "\\\\u…": the strict reader decides
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


def ascii_compatible(text: str) -> bytes:
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


def shape(data: bytes) -> bytes:
    """Return the shape of ASCII-compatible JSON bytes (see ``_SHAPE``)."""
    return data.translate(_SHAPE, b" \t\n\r")


def skeleton(outline: bytes) -> bytes:
    """Return the brackets and member colons of a shape, strings removed (exact when the
    text is valid JSON)."""
    if b"\\" in outline:  # escapes live in strings: drop escaped backslashes, then quotes
        outline = outline.replace(b"\\\\", b"").replace(b'\\"', b"")
    bones = outline.translate(None, b"0esx\\").replace(b'""', b"")
    if b'"' in bones:  # the few strings that hold a colon or a bracket
        bones = _quoted(b"", bones)
    return bones


def depth_at_most(bones: bytes, limit: int) -> bool:
    """Tell whether the balanced brackets of a skeleton nest at most ``limit`` deep."""
    brackets = bones.translate(None, b":")
    if brackets.count(b"[") <= limit:
        return True
    for _ in range(limit):  # each round removes exactly the innermost level
        brackets = brackets.replace(b"[]", b"")
        if not brackets:
            return True
    return False
