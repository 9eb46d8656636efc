"""PDF objects, as much of the syntax as the trailer, the catalog and the page tree need.

:class:`Document` finds the last cross-reference section from ``startxref``, follows the
``/Prev`` chain, and reads objects by number: from the file (classic tables, whose entries
are fixed-width, so an entry is one read at a computed offset) or from object streams
(compressed streams are inflated only as far as the entry or object needed). Nothing is
read that the page count does not need, so a PDF of 300,000 objects costs what a PDF of
three does.

Anything this reader cannot follow raises :class:`Unreadable`, and the caller falls back
on pypdf; a cross-reference that points at nothing raises :class:`~.base.Broken`.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import NamedTuple, TypeAlias, overload

from .base import Broken, Source

__all__ = ["Document", "Name", "PdfObject", "Ref", "RefArray", "Stream", "Unreadable"]

_MAX_DEPTH = 32  # nesting of arrays and dictionaries in one object
_MAX_SECTIONS = 32  # cross-reference sections followed through /Prev
_OBJECT_WINDOW = 1024  # bytes read for one object at first; grown while it does not end


class Unreadable(Exception):
    """The structure is beyond this reader (a filter, encryption, a repair to make)."""


class Ref(NamedTuple):
    """An indirect reference, ``12 0 R``."""

    num: int
    gen: int


class Name(str):
    """A PDF name, ``/Type``, held without its slash."""

    __slots__ = ()


_REFS_AT_ONCE = 12  # an array this short is read whole at the first look
_REF_ITEM = re.compile(rb"(\d{1,10})[\x00\t\n\x0c\r ]+(\d{1,5})[\x00\t\n\x0c\r ]+R")


class RefArray(Sequence[Ref]):
    """An array of references, parsed only as far as it is read.

    A page tree's root may list thousands of kids; the walk reads the first few.
    """

    __slots__ = ("_count", "_refs", "_text")

    def __init__(self, text: bytes, count: int | None = None) -> None:
        """``count``: the number of R in ``text``, when the caller has counted them."""
        self._text = text
        self._refs: list[Ref] = []
        self._count = text.count(b"R") if count is None else count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Ref: ...

    @overload
    def __getitem__(self, index: slice) -> list[Ref]: ...

    def __getitem__(self, index: int | slice) -> Ref | list[Ref]:
        want = index.stop if isinstance(index, slice) else index
        if want is None or want < 0:
            want = self._count
        if len(self._refs) <= want:
            if want >= self._count or self._count <= _REFS_AT_ONCE:  # found in one call
                pairs = _REF_ITEM.findall(self._text)[: want + 1]
            else:
                pairs = [m.groups() for m in islice(_REF_ITEM.finditer(self._text), want + 1)]
            # tuple.__new__ makes the same Ref as Ref(num, gen), without its Python __new__
            self._refs = [tuple.__new__(Ref, (int(num), int(gen))) for num, gen in pairs]
        return self._refs[index]


@dataclass(frozen=True, slots=True)
class Stream:
    """A stream object: its dictionary and where its data starts in the file."""

    info: dict[str, PdfObject]
    data_at: int


PdfObject: TypeAlias = (
    "dict[str, PdfObject] | list[PdfObject] | RefArray | int | float | bool | bytes | Name | "
    "Ref | Stream | None"
)

_WS = b"\x00\t\n\x0c\r "
_SKIP = re.compile(rb"(?:[\x00\t\n\x0c\r ]+|%[^\r\n]*)*")
_BLANK = re.compile(rb"[\x00\t\n\x0c\r ]*")  # what _SKIP skips when there is no comment
_OBJ_HEAD = re.compile(
    rb"[\x00\t\n\x0c\r ]*(\d{1,10})[\x00\t\n\x0c\r ]+(\d{1,5})[\x00\t\n\x0c\r ]+obj"
)
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}


# Appended to a buffer that holds all of its data, so that no lookahead runs out there.
_PADDING = b"\n" * 16 + b"%end"


class _NeedMore(Exception):
    """The buffer ended inside the object."""


_R = rb"[^\x00\t\n\x0c\r ()<>\[\]{}/%]"  # a regular character
_TOKEN = re.compile(
    rb"(?:[\x00\t\n\x0c\r ]+|%[^\r\n]*)*(?:"
    rb"(?P<open><<)|(?P<close>>>)|(?P<aopen>\[)|(?P<aclose>\])"
    rb"|/(?P<name>" + _R + rb"*)"
    rb"|(?P<ref>\d{1,10})[\x00\t\n\x0c\r ]+(?P<gen>\d{1,5})[\x00\t\n\x0c\r ]+R(?!" + _R + rb")"
    rb"|(?P<num>[+-]?(?:\d+\.?\d*|\.\d+))(?!" + _R + rb")"
    rb"|(?P<lit>\()|(?P<hex><)"
    rb"|(?P<word>" + _R + rb"+))"
)
# What an array of references holds: white space, digits and R. Deleting white space and
# digits with ``bytes.translate`` leaves one R per reference, several times faster than a
# regex that steps through the array byte by byte (a flat page tree's /Kids runs to tens
# of kilobytes), and what is left is short enough to count.
_REF_GAPS = b"\x00\t\n\x0c\r 0123456789"


def _ref_chars(data: bytes, start: int, end: int | None = None) -> int:
    """The number of R in ``data[start:end]`` when it holds only what an array of
    references holds, else -1."""
    rest = data[start:end].translate(None, _REF_GAPS)
    return -1 if rest.translate(None, b"R") else len(rest)


# Inside a skipped value: runs of anything but brackets and strings, then one of those.
_NEST = re.compile(rb"[^<>\[\]()%]+|<<|>>|\[|\]|\(|<|%[^\r\n]*|>")
_WORDS: dict[bytes, PdfObject] = {b"true": True, b"false": False, b"null": None}


def parse(data: bytes, pos: int, keys: frozenset[str] | None = None) -> tuple[PdfObject, int]:
    """Parse one object from ``data[pos:]``; return it and the position after it.

    With ``keys``, a dictionary keeps only those members and skips the others unparsed.
    Raises ``_NeedMore`` when ``data`` ends inside the object, or where a number near its
    end might still turn out to be a reference.
    """
    if keys is not None:
        match = _OPEN.match(data, pos)
        if match is not None:
            return _members_at(data, match.end(), keys)
    return _parse(data, pos)


def _members_at(data: bytes, pos: int, keys: frozenset[str]) -> tuple[dict[str, PdfObject], int]:
    """Read the wanted members of the dictionary whose "<<" ends at ``pos``."""
    quick = _quick_members(data, pos, keys)
    return quick if quick is not None else _members(data, pos, keys)


# What ``_TOKEN`` skips before a token, then the token "<<"; and the same after an
# object's header.
_OPEN_TEXT = rb"(?:[\x00\t\n\x0c\r ]+|%[^\r\n]*)*<<"
_OPEN = re.compile(_OPEN_TEXT)
_OBJ_DICT = re.compile(_OBJ_HEAD.pattern + _OPEN_TEXT)


_W = rb"[\x00\t\n\x0c\r ]"
# A short array without a literal string, comment or container in it (hex strings, such
# as a trailer's /ID, are allowed), or a short dictionary whose values hold no string,
# comment or dictionary (arrays of that kind are allowed): balanced, with nothing in it
# that the quick reader looks at, since it looks at names only at the dictionary's own
# level, and no "<<" or ">>" made of a hex string's brackets. Runs of one character class
# between the brackets, which the regex engine steps through fastest. (A long array, such
# as the /Kids of a flat page tree, is read as far as it is used, not searched whole.)
_FLAT = rb"[^\[\]()<>%]{0,256}"
_HEX = rb"<[0-9A-Fa-f\x00\t\n\x0c\r ]{0,256}>"
# Each run is followed by a plain character where it can be (the engine then steps back
# through a run that fails at the speed of a search), so a long /Kids costs little.
_FLAT_ARRAY = (
    rb"\[" + _FLAT + rb"\]"
    + rb"|\[" + _FLAT + _HEX + _FLAT + rb"(?:" + _HEX + _FLAT + rb"){0,15}\]"
)  # fmt: skip
_PLAIN = (
    _FLAT_ARRAY
    + rb"|<<" + _FLAT + rb">>"
    + rb"|<<" + _FLAT + rb"(?:(?:" + _FLAT_ARRAY + rb")" + _FLAT + rb"){1,16}>>"
)  # fmt: skip
# What may follow a name right away and be taken with it: a name, ">>", a reference, an
# integer or a plain container (groups 2 to 6).
_AFTER_NAME = b"|".join(
    [
        rb"/(" + _R + rb"*)",
        rb"(>>)",
        rb"(\d{1,10})" + _W + rb"+(\d{1,5})" + _W + rb"+R(?!" + _R + rb")",
        rb"([+-]?\d+)(?!" + _R + rb")",
        _PLAIN,
    ]
)
# Brackets, strings and comments, and names (group 1) with what follows them right away, so
# that a member name and a value without brackets of its own take one search.
_STRUCTURE = re.compile(
    _PLAIN + rb"|<<|>>|\[|\]|\(|%|/(" + _R + rb"*)(?:" + _W + rb"*(?:" + _AFTER_NAME + rb"))?"
)


def _quick_members(
    data: bytes, pos: int, keys: frozenset[str]
) -> tuple[dict[str, PdfObject], int] | None:
    """Read the wanted members of a dictionary without a string or comment in it: only
    its brackets and names are looked at, the rest is skipped at the speed of a search.

    A member name is matched together with a value that holds no name or bracket but its
    own, so a name alone at the dictionary's level is always a member name. None: the
    dictionary holds a string or a comment, or a wanted member has no value, so the
    careful reader has to go through it. Raises ``_NeedMore`` when ``data`` ends inside
    the dictionary.
    """
    out: dict[str, PdfObject] = {}
    level = 1  # brackets open
    size = len(data)
    while True:
        match = _STRUCTURE.search(data, pos)
        if match is None:
            raise _NeedMore
        pos = match.end()
        name, named, close, num, gen, number = match.groups()
        if name is None:
            token = match.group()
            if token in (b"<<", b"["):
                level += 1
            elif token in (b">>", b"]"):
                level -= 1
                if level == 0:
                    return (out, pos) if token == b">>" else None
            elif token in (b"(", b"%"):
                return None
            continue  # a plain container: balanced
        if close is not None:  # ">>" right after the name
            if level > 1:
                level -= 1
            elif (key := name.decode("latin-1")) in keys and key not in out:
                return None  # a wanted member without a value
            else:
                return out, pos
        elif pos == size:
            raise _NeedMore  # the name or its value may go on past the buffer
        elif level == 1:
            key = name.decode("latin-1")
            if key not in keys or key in out:
                continue
            # The wanted member's value, as _value reads it.
            if named is not None:
                out[key] = Name(named.decode("latin-1"))
            elif gen is not None:
                out[key] = Ref(int(num), int(gen))
            elif number is not None:
                if size - pos < 16 and number.isdigit() and not data.endswith(_PADDING):
                    raise _NeedMore  # "12 0 R" may be cut by the end of the buffer
                out[key] = int(number)
            else:
                found = _wanted(data, match.end(1), out, key)
                if found is None:
                    return None
                pos = found


def _wanted(data: bytes, start: int, out: dict[str, PdfObject], key: str) -> int | None:
    """Read a wanted member's value at ``start`` into ``out``, as :func:`_value` reads it;
    return where it ends, or None to look closer."""
    try:
        out[key], end = _value(data, start)
    except Unreadable:
        return None
    return None if data.find(b"(", start, end) >= 0 else end


_SCALARS = frozenset({"name", "gen", "num"})


def _value(data: bytes, pos: int) -> tuple[PdfObject, int]:
    """Parse the value at ``pos`` as :func:`_parse` does, a name, a reference or a number
    without its stack of containers."""
    match = _TOKEN.match(data, pos)
    if match is not None and match.lastgroup in _SCALARS and match.end() < len(data):
        return _scalar(data, match, match.end())
    if match is not None and match.lastgroup in ("open", "aopen"):
        flat = _flat_value(data, match)
        if flat is not None:
            return flat
    return _parse(data, pos)


def _ref_array(data: bytes, match: re.Match[bytes]) -> tuple[PdfObject, int] | None:
    """Read an array of references whole in the buffer as :func:`_parse` does; None for
    anything else."""
    start = match.end()
    close = data.find(b"]", start)
    count = _ref_chars(data, start, close) if close > start else -1
    if count > 0:
        return RefArray(data[start:close], count), close + 1
    return None


# An array of integers (/W, /Index, /MediaBox), and a dictionary of names, references and
# integers (/DecodeParms): read by one match and one findall. Every token ends where the
# next cannot go on, so each text matches one way only.
_INT = rb"[+-]?\d+(?!" + _R + rb")"
_REF = rb"\d{1,10}" + _W + rb"+\d{1,5}" + _W + rb"+R(?!" + _R + rb")"
_INT_ARRAY = re.compile(rb"(?:" + _W + rb"*" + _INT + rb")*" + _W + rb"*\]")
_INTS = re.compile(rb"[+-]?\d+")


def _flat_member(group: bytes) -> bytes:
    """A name and a name, reference or integer value; ``group`` opens each part."""
    name = group + _R + rb"*)(?!" + _R + rb")"
    ref = group + rb"\d{1,10})" + _W + rb"+" + group + rb"\d{1,5})" + _W + rb"+R(?!" + _R + rb")"
    return _W + rb"*/" + name + _W + rb"*(?:/" + name + rb"|" + ref + rb"|" + group + _INT + rb"))"


_FLAT_DICT = re.compile(rb"(?:" + _flat_member(b"(?:") + rb")*" + _W + rb"*>>")
_FLAT_MEMBERS = re.compile(_flat_member(b"("))


def _flat_value(data: bytes, match: re.Match[bytes]) -> tuple[PdfObject, int] | None:
    """Read an array of references or integers, or a flat dictionary, as :func:`_parse`
    does; None for any other container, or one that ends so near the end of ``data`` that
    :func:`_parse` would ask for more."""
    start = match.end()
    if match.lastgroup == "aopen":
        refs = _ref_array(data, match)
        if refs is not None:
            return refs
        found = _INT_ARRAY.match(data, start)
        if found is None or (len(data) - found.end() < 16 and not data.endswith(_PADDING)):
            return None
        return [int(n) for n in _INTS.findall(data, start, found.end())], found.end()
    found = _FLAT_DICT.match(data, start)
    if found is None or (len(data) - found.end() < 16 and not data.endswith(_PADDING)):
        return None
    out: dict[str, PdfObject] = {}
    for key, name, num, gen, number in _FLAT_MEMBERS.findall(data, start, found.end()):
        value: PdfObject = (
            Name(name.decode("latin-1"))
            if name or not (num or number)
            else (Ref(int(num), int(gen)) if gen else int(number))
        )
        out.setdefault(key.decode("latin-1"), value)
    return out, found.end()


def _members(data: bytes, pos: int, keys: frozenset[str]) -> tuple[dict[str, PdfObject], int]:
    out: dict[str, PdfObject] = {}
    while True:
        match = _TOKEN.match(data, pos)
        if match is None:
            raise _unexpected(data, pos)
        if match.lastgroup == "close":
            return out, match.end()
        if match.lastgroup != "name" or match.end() == len(data):
            raise _unexpected(data, pos) if match.end() < len(data) else _NeedMore
        key = match.group("name").decode("latin-1")
        if key in keys and key not in out:
            out[key], pos = _parse(data, match.end())
        else:
            pos = _skip(data, match.end())


def _skip(data: bytes, pos: int) -> int:
    """Return the position after the value at ``pos``, reading no more than its brackets."""
    match = _TOKEN.match(data, pos)
    if match is None:
        raise _unexpected(data, pos)
    group = match.lastgroup
    if group == "lit":
        return _literal(data, match.end())[1]
    if group == "hex":
        return _hex(data, match.end())[1]
    if group not in ("open", "aopen"):
        if match.end() == len(data) or group in ("close", "aclose"):
            raise _NeedMore if match.end() == len(data) else _unexpected(data, pos)
        return match.end()
    depth, pos = 1, match.end()
    while depth:
        nest = _NEST.match(data, pos)
        if nest is None:
            raise _NeedMore
        token, pos = nest.group(), nest.end()
        if token in (b"<<", b"["):
            depth += 1
        elif token in (b">>", b"]"):
            depth -= 1
        elif token == b"(":
            pos = _literal(data, pos)[1]
        elif token == b"<":
            pos = _hex(data, pos)[1]
    return pos


def _parse(data: bytes, pos: int) -> tuple[PdfObject, int]:
    stack: list[list[PdfObject]] = []
    kinds: list[bool] = []  # True: a dictionary under construction, False: an array
    while True:
        match = _TOKEN.match(data, pos)
        if match is None:
            raise _unexpected(data, pos)
        if match.end() == len(data) and match.lastgroup in ("num", "word", "name", "gen"):
            raise _NeedMore  # the token may go on past the buffer
        pos = match.end()
        group = match.lastgroup
        if group == "aopen":
            close = data.find(b"]", pos)
            if close < 0 and _ref_chars(data, pos) >= 0:
                raise _NeedMore  # references up to the end of the buffer
            count = _ref_chars(data, pos, close) if close > pos else -1
            if count > 0:
                # An array of references only, such as /Kids: read as far as it is used.
                value: PdfObject = RefArray(data[pos:close], count)
                pos = close + 1
                if not stack:
                    return value, pos
                stack[-1].append(value)
                continue
        if group in ("open", "aopen"):
            if len(stack) >= _MAX_DEPTH:
                raise Unreadable("objects nested too deep")
            stack.append([])
            kinds.append(group == "open")
            continue
        if group in ("close", "aclose"):
            if not stack or kinds[-1] != (group == "close"):
                raise Unreadable(f"an unbalanced {match.group(group)!r} at {pos}")
            items, is_dict = stack.pop(), kinds.pop()
            value = _as_dict(items, pos) if is_dict else items
        else:
            value, pos = _scalar(data, match, pos)
        if not stack:
            return value, pos
        stack[-1].append(value)


def _scalar(data: bytes, match: re.Match[bytes], pos: int) -> tuple[PdfObject, int]:
    group = match.lastgroup
    if group == "name":
        return Name(match.group("name").decode("latin-1")), pos
    if group == "gen":  # the last group of "12 0 R"
        return Ref(int(match.group("ref")), int(match.group("gen"))), pos
    if group == "num":
        text = match.group("num")
        if len(data) - pos < 16 and text.isdigit() and not data.endswith(_PADDING):
            raise _NeedMore  # "12 0 R" may be cut by the end of the buffer
        return (float(text) if b"." in text else int(text)), pos
    if group == "lit":
        return _literal(data, pos)
    if group == "hex":
        return _hex(data, pos)
    word = match.group("word")
    if word in _WORDS:
        return _WORDS[word], pos
    raise Unreadable(f"unexpected {word[:16]!r} at {pos}")


def _as_dict(items: list[PdfObject], pos: int) -> dict[str, PdfObject]:
    if len(items) % 2:
        raise Unreadable(f"a dictionary with a key and no value before {pos}")
    out: dict[str, PdfObject] = {}
    for i in range(0, len(items), 2):
        key = items[i]
        if not isinstance(key, Name):
            raise Unreadable(f"expected a name as a dictionary key before {pos}")
        out.setdefault(str(key), items[i + 1])
    return out


def _rest_blank(data: bytes, pos: int) -> bool:
    end = _SKIP.match(data, pos)
    return end is not None and end.end() >= len(data)


def _unexpected(data: bytes, pos: int) -> Exception:
    if _rest_blank(data, pos) or pos + 16 >= len(data):
        return _NeedMore()
    return Unreadable(f"unexpected {data[pos : pos + 16]!r} at {pos}")


def _literal(data: bytes, pos: int) -> tuple[PdfObject, int]:
    out, level = bytearray(), 1
    while pos < len(data):
        char = data[pos]
        pos += 1
        if char == 0x5C:  # backslash
            if pos >= len(data):
                break
            nxt = data[pos]
            pos += 1
            if nxt in _ESCAPES:
                out += _ESCAPES[nxt]
            elif 0x30 <= nxt <= 0x37:
                digits = re.match(rb"[0-7]{1,2}", data[pos : pos + 2])
                width = len(digits.group()) if digits else 0
                out.append(int(data[pos - 1 : pos + width], 8) & 0xFF)
                pos += width
            elif nxt == 0x0D:
                pos += data[pos : pos + 1] == b"\n"
            elif nxt != 0x0A:
                out.append(nxt)
            continue
        level += (char == 0x28) - (char == 0x29)
        if level == 0:
            return bytes(out), pos
        out.append(char)
    raise _NeedMore


def _hex(data: bytes, pos: int) -> tuple[PdfObject, int]:
    end = data.find(b">", pos)
    if end < 0:
        raise _NeedMore
    digits = bytes(c for c in data[pos:end] if c not in _WS)
    if any(c not in b"0123456789abcdefABCDEF" for c in digits):
        raise Unreadable(f"expected hex digits in a string at {pos}")
    if len(digits) % 2:
        digits += b"0"
    return bytes.fromhex(digits.decode("ascii")), end + 1


# --------------------------------------------------------------------------------------
# Cross-reference sections
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Table:
    """A classic table: subsections (first number, count, where its entries start)."""

    subsections: list[tuple[int, int, int]]
    width: int


@dataclass(slots=True)
class _XrefStream:
    """A cross-reference stream, inflated only as far as the entries asked for."""

    widths: tuple[int, int, int]
    index: list[tuple[int, int]]
    columns: int  # the PNG predictor's row width, or 0 with no predictor
    inflate: _Inflater
    rows: list[bytes] = field(default_factory=list)  # rows with the predictor undone

    def row(self, row: int) -> bytes:
        """Return one entry's bytes (short at the end of the data)."""
        width = sum(self.widths)
        if not self.columns:
            end = (row + 1) * width
            return bytes(self.inflate.grow(end)[row * width : end])
        stride = width + 1
        end = (row + 1) * stride
        raw = self.inflate.grow(end)  # may run past end: read up to it only
        if len(raw) >= end and raw[0:end:stride].count(2) == row + 1:
            # Every row "Up" (the common predictor 12): a column is the sum of the rows.
            return bytes([sum(raw[c + 1 : end : stride]) & 0xFF for c in range(width)])
        if len(self.rows) <= row:
            previous = self.rows[-1] if self.rows else bytes(width)
            for r in range(len(self.rows), row + 1):
                line = bytes(raw[r * stride : (r + 1) * stride])
                if len(line) < stride:
                    return b""
                previous = _unpredict(line[0], line[1:], previous)
                self.rows.append(previous)
        return self.rows[row]


@dataclass(slots=True)
class _Inflater:
    """A FlateDecode stream read from the file in pieces, inflated as far as asked."""

    src: Source
    at: int
    end: int
    out: bytearray = field(default_factory=bytearray)
    engine: zlib._Decompress = field(default_factory=zlib.decompressobj)

    def prefix(self, n: int) -> bytes:
        """Return the first ``n`` inflated bytes (fewer when the stream ends first)."""
        return bytes(self.grow(n)[:n])

    def grow(self, n: int) -> bytearray:
        """Inflate at least ``n`` bytes (fewer when the stream ends first); return all the
        bytes inflated so far, without a copy."""
        while len(self.out) < n and self.at < self.end and not self.engine.eof:
            self.src.step()
            chunk = self.src.at(self.at, min(self.end - self.at, 1 << 16))
            if not chunk:
                break
            try:
                self.out += self.engine.decompress(chunk, n - len(self.out))
            except zlib.error as exc:
                raise Unreadable(f"cannot inflate a stream: {exc}") from exc
            self.at += len(chunk) - len(self.engine.unconsumed_tail)
        return self.out


_DIGITS = re.compile(rb"\d+")
_TRAILER_KEYS = frozenset({"Root", "Encrypt", "Prev", "XRefStm", "Size"})
_STREAM_KEYS = frozenset({"Type", "Filter", "DecodeParms", "Length"})
_XREF_KEYS = _TRAILER_KEYS | _STREAM_KEYS | {"W", "Index"}
_OBJSTM_KEYS = _STREAM_KEYS | {"N", "First"}
_SUBSECTION = re.compile(rb"[\x00\t\n\x0c\r ]*(\d{1,10})[ \t]+(\d{1,10})[ \t]*\r?\n?")
_TRAILER = re.compile(rb"[\x00\t\n\x0c\r ]*trailer")
_Entry = tuple[int, int, int]  # (type, a, b): 1 = (offset, gen), 2 = (stream number, index)


@dataclass(slots=True)
class Document:
    """The cross-reference sections of a PDF from ``startxref``, and its objects by number."""

    src: Source
    sections: list[_Table | _XrefStream] = field(default_factory=list)
    trailer: dict[str, PdfObject] = field(default_factory=dict)
    # object streams read: their data, the numbers of their header, /N and /First
    _streams: dict[int, tuple[bytes, list[bytes], int, int]] = field(default_factory=dict)
    _opening: set[int] = field(default_factory=set)  # object streams being read

    @classmethod
    def open(cls, src: Source, startxref: int) -> Document:
        """Read the sections from ``startxref`` through the ``/Prev`` chain."""
        doc = cls(src)
        seen: set[int] = set()
        at: int | None = startxref
        while at is not None:
            if at in seen or len(seen) >= _MAX_SECTIONS:
                raise Unreadable("a /Prev chain that loops or is very long")
            seen.add(at)
            trailer = doc._section(at)
            for key, value in trailer.items():
                doc.trailer.setdefault(key, value)
            prev = trailer.get("Prev")
            at = prev if isinstance(prev, int) and not isinstance(prev, bool) else None
        return doc

    def _section(self, at: int) -> dict[str, PdfObject]:
        self.src.step()
        head = self.src.at(at, 32)
        if head.lstrip(_WS).startswith(b"xref"):
            trailer = self._table(at + head.index(b"xref") + 4)
            stm = trailer.get("XRefStm")
            if isinstance(stm, int) and not isinstance(stm, bool):
                self._stream_section(stm)  # a hybrid file: the stream's objects count too
            return trailer
        if _OBJ_HEAD.match(head):
            return self._stream_section(at)
        raise Broken("media.corrupt", f"expected a cross-reference section at {at}")

    def _table(self, pos: int) -> dict[str, PdfObject]:
        subsections: list[tuple[int, int, int]] = []
        width = 20
        for _ in range(4096):
            self.src.step()
            window = self.src.at(pos, 64)
            line = _SUBSECTION.match(window)
            if line is None:
                break
            first, count = int(line.group(1)), int(line.group(2))
            pos += line.end()
            if count:
                width = _entry_width(self.src.at(pos, 21))
            subsections.append((first, count, pos))
            pos += count * width
        else:
            window = self.src.at(pos, 64)
        self.sections.append(_Table(subsections, width))
        found = _TRAILER.match(window)  # the window at pos the loop stopped at
        if found is None:
            raise Broken("media.corrupt", f"expected a trailer after the xref table at {pos}")
        trailer = self._object_at(pos + found.end(), keys=_TRAILER_KEYS)
        if not isinstance(trailer, dict):
            raise Broken("media.corrupt", "expected a trailer dictionary")
        return trailer

    def _stream_section(self, at: int) -> dict[str, PdfObject]:
        stream = self._object_at(at, header=True, keys=_XREF_KEYS)
        if not isinstance(stream, Stream) or stream.info.get("Type") != "XRef":
            raise Broken("media.corrupt", f"expected a cross-reference stream at {at}")
        info = stream.info
        widths = info.get("W")
        size = info.get("Size")
        if not (isinstance(widths, list) and len(widths) == 3 and isinstance(size, int)):
            raise Unreadable("a cross-reference stream without /W or /Size")
        if not all(isinstance(w, int) and 0 <= w <= 8 for w in widths):
            raise Unreadable("cross-reference field widths beyond 8 bytes")
        index = info.get("Index", [0, size])
        numbers = [i for i in index if isinstance(i, int)] if isinstance(index, list) else []
        if not isinstance(index, list) or len(numbers) != len(index):
            raise Unreadable("a cross-reference /Index that is not numbers")
        pairs = [(numbers[i], numbers[i + 1]) for i in range(0, len(numbers) - 1, 2)]
        sizes = (int(widths[0]), int(widths[1]), int(widths[2]))  # type: ignore[arg-type]
        columns = _predictor_columns(info, sum(sizes))
        self.sections.append(_XrefStream(sizes, pairs, columns, self._inflater(stream)))
        return info

    def _inflater(self, stream: Stream) -> _Inflater:
        info = stream.info
        filters = info.get("Filter")
        if filters not in ("FlateDecode", ["FlateDecode"]):
            raise Unreadable(f"a stream filter this reader does not follow: {filters!r}")
        length = info.get("Length")
        if isinstance(length, Ref):
            length = self.get(length)
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise Unreadable("a stream without a direct /Length")
        if stream.data_at + length > self.src.size:
            raise Broken("media.corrupt", "expected a stream's data to end in the file")
        return _Inflater(self.src, stream.data_at, stream.data_at + length)

    # -- objects -------------------------------------------------------------------------

    def get(self, value: PdfObject, keys: frozenset[str] | None = None) -> PdfObject:
        """Resolve ``value`` when it is a reference (a missing object is None).

        With ``keys``, a dictionary keeps only those members; the others are skipped
        unparsed, which is most of the cost of a page object.
        """
        if not isinstance(value, Ref):
            return value
        entry = self._entry(value.num)
        if entry is None or entry[0] == 0:
            return None
        kind, a, b = entry
        if kind == 1:
            return self._object_at(a, expect=value.num, keys=keys)
        if kind == 2:
            return self._from_stream(a, b, value.num, keys)
        return None

    def _entry(self, num: int) -> _Entry | None:
        for section in self.sections:
            entry = (
                _table_entry(self.src, section, num)
                if isinstance(section, _Table)
                else _stream_entry(section, num)
            )
            if entry is not None:
                return entry
        return None

    def _object_at(
        self,
        at: int,
        *,
        expect: int | None = None,
        header: bool = False,
        keys: frozenset[str] | None = None,
    ) -> PdfObject:
        size = _OBJECT_WINDOW
        while True:
            self.src.step()
            data = self.src.at(at, size)
            try:
                return _object_in(data, at, expect, header or expect is not None, keys)
            except _NeedMore:
                if len(data) < size or size >= 16 * self.src.limits.SNIFF_BYTES:
                    raise Broken("media.corrupt", f"expected a whole object at {at}") from None
                size *= 16

    def _from_stream(
        self, stream_num: int, index: int, num: int, keys: frozenset[str] | None
    ) -> PdfObject:
        if stream_num not in self._streams:
            if len(self._streams) >= 16:
                raise Unreadable("objects spread over many object streams")
            if stream_num in self._opening:  # listed in itself, or its /Length in the other
                raise Unreadable(f"object stream {stream_num} needed to read itself")
            self._opening.add(stream_num)
            self._streams[stream_num] = self._object_stream(stream_num)
        data, numbers, count, first = self._streams[stream_num]
        if index >= count or int(numbers[2 * index]) != num:
            raise Broken("media.corrupt", f"expected object {num} in object stream {stream_num}")
        try:
            return parse(data, first + int(numbers[2 * index + 1]), keys)[0]
        except _NeedMore:
            raise Broken("media.corrupt", f"expected a whole object {num}") from None

    def _object_stream(self, num: int) -> tuple[bytes, list[bytes], int, int]:
        stream = self.get(Ref(num, 0), _OBJSTM_KEYS)
        if not isinstance(stream, Stream) or stream.info.get("Type") != "ObjStm":
            raise Broken("media.corrupt", f"expected an object stream as object {num}")
        count, first = stream.info.get("N"), stream.info.get("First")
        if not (isinstance(count, int) and isinstance(first, int) and 0 <= count <= 100_000):
            raise Unreadable("an object stream without /N or /First")
        data = self._inflater(stream).prefix(self.src.limits.MAX_SNIFF_READ_BYTES)
        data += _PADDING
        numbers = _DIGITS.findall(data[:first])  # pairs of numbers, read when looked up
        if len(numbers) < 2 * count:
            raise Broken("media.corrupt", f"expected {count} objects in object stream {num}")
        return data, numbers, count, first


def _object_in(
    data: bytes, at: int, expect: int | None, header: bool, keys: frozenset[str] | None = None
) -> PdfObject:
    pos = 0
    if header and keys is not None:  # most often a dictionary: its header and "<<" at once
        match = _OBJ_DICT.match(data)
        if match is not None:
            if expect is not None and int(match.group(1)) != expect:
                raise Broken("media.corrupt", f"expected object {expect} at {at}, found another")
            return _after_dict(data, at, _members_at(data, match.end(), keys))
    if header:
        match = _OBJ_HEAD.match(data)
        if match is None:
            if len(data) < 24:
                raise _NeedMore
            raise Broken("media.corrupt", f"expected 'N G obj' at offset {at}")
        if expect is not None and int(match.group(1)) != expect:
            raise Broken("media.corrupt", f"expected object {expect} at {at}, found another")
        pos = match.end()
    value, pos = parse(data, pos, keys)
    if not isinstance(value, dict):
        return value
    return _after_dict(data, at, (value, pos))


def _after_dict(data: bytes, at: int, found: tuple[dict[str, PdfObject], int]) -> PdfObject:
    """The dictionary read, or the stream it begins when ``stream`` follows it."""
    value, pos = found
    after = _BLANK.match(data, pos).end()  # type: ignore[union-attr]
    if data.startswith(b"%", after):
        after = _SKIP.match(data, after).end()  # type: ignore[union-attr]
    if len(data) - after < 8:
        raise _NeedMore
    if data.startswith(b"stream", after):
        body = after + 6
        body += (
            2 if data.startswith(b"\r\n", body) else (1 if data[body : body + 1] in b"\r\n" else 0)
        )
        return Stream(value, at + body)
    return value


def _entry_width(first: bytes) -> int:
    """The width of a classic entry: 20 bytes, or 19 from writers with a 1-byte line end."""
    if len(first) >= 19 and first[18:19] in (b"\n", b"\r") and first[19:20] not in (b"\n", b"\r"):
        return 19 if first[17:18] in (b"n", b"f") else 20
    return 20


def _table_entry(src: Source, table: _Table, num: int) -> _Entry | None:
    for first, count, at in table.subsections:
        if first <= num < first + count:
            src.step()
            raw = src.at(at + (num - first) * table.width, 18)
            if not (raw[:10].isdigit() and raw[11:16].isdigit() and raw[17:18] in (b"n", b"f")):
                raise Broken("media.corrupt", f"expected a cross-reference entry for object {num}")
            return (1 if raw[17:18] == b"n" else 0), int(raw[:10]), int(raw[11:16])
    return None


def _stream_entry(section: _XrefStream, num: int) -> _Entry | None:
    row = 0
    for first, count in section.index:
        if first <= num < first + count:
            row += num - first
            break
        row += count
    else:
        return None
    w0, w1, w2 = section.widths
    entry = section.row(row)
    if len(entry) < w0 + w1 + w2:
        return None
    kind = int.from_bytes(entry[:w0], "big") if w0 else 1
    return (
        kind,
        int.from_bytes(entry[w0 : w0 + w1], "big"),
        int.from_bytes(entry[w0 + w1 : w0 + w1 + w2], "big"),
    )


def _predictor_columns(info: dict[str, PdfObject], width: int) -> int:
    params = info.get("DecodeParms")
    if isinstance(params, list):
        params = params[0] if params else None
    if not isinstance(params, dict):
        return 0
    predictor = params.get("Predictor", 1)
    if predictor in (1, None):
        return 0
    if not (isinstance(predictor, int) and predictor >= 10):
        raise Unreadable(f"a predictor this reader does not follow: {predictor!r}")
    columns = params.get("Columns", 1)
    if columns != width:
        raise Unreadable("a predictor row that is not one cross-reference entry")
    return width


_Filter = Callable[[int, int, int], int]


def _unpredict(kind: int, data: bytes, previous: bytes) -> bytes:
    """Undo the PNG predictor of one row, given the row above it."""
    if kind == 0:
        return data
    if kind == 2:
        return bytes((a + b) & 0xFF for a, b in zip(data, previous, strict=True))
    return _png_row(kind, data, previous)


def _png_row(kind: int, data: bytes, previous: bytes) -> bytes:
    out = bytearray(len(data))
    for i, value in enumerate(data):
        left = out[i - 1] if i else 0
        up = previous[i]
        corner = previous[i - 1] if i else 0
        if kind == 1:
            guess = left
        elif kind == 3:
            guess = (left + up) // 2
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            guess = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
        else:
            raise Unreadable(f"an unknown PNG predictor row type {kind}")
        out[i] = (value + guess) & 0xFF
    return bytes(out)
