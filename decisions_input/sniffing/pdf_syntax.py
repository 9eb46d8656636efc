"""PDF syntax: the objects the page count needs (names, numbers, references, arrays,
dictionaries, strings) read from bytes, by :func:`parse`.

Dictionaries are read for the members wanted only, by one regex search per member: a
member's name is matched together with a value that has no brackets of its own, a short
array or dictionary without strings is passed over in the same search, and a wanted array
of references or integers or a flat dictionary is read by one match. What that quick reader
cannot be sure of (a string, a comment, an unbalanced bracket) goes to the careful reader,
token by token; the tests hold the two to the same results.

Anything this reader cannot follow raises :class:`Unreadable`; a buffer that ends inside
the object raises ``_NeedMore``, and the caller reads further.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import NamedTuple, TypeAlias, overload

__all__ = ["Name", "PdfObject", "Ref", "RefArray", "Stream", "Unreadable", "parse"]

_MAX_DEPTH = 32  # nesting of arrays and dictionaries in one object


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
# White space and comments, which may stand between any two tokens. Written so that the
# text splits into them one way only: a comment runs to the end of its line (the lookahead
# forbids stopping short), and white space is taken whole before and after each comment.
# Nested repetition that could split a run of blanks or of "%" in many ways made a failed
# match try every split: a few dozen blanks before a stray character took hours.
_SKIP_TEXT = rb"[\x00\t\n\x0c\r ]*(?:%[^\r\n]*(?![^\r\n])[\x00\t\n\x0c\r ]*)*"
_SKIP = re.compile(_SKIP_TEXT)
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
    _SKIP_TEXT + rb"(?:"
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
_OPEN_TEXT = _SKIP_TEXT + rb"<<"
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
            elif data[pos - 1] == 0x5D and (refs := _plain_refs(data, match.end(1), pos)):
                out[key] = refs  # a short /Kids, taken with its name
            else:
                found = _wanted(data, match.end(1), out, key)
                if found is None:
                    return None
                pos = found


def _plain_refs(data: bytes, name_end: int, end: int) -> RefArray | None:
    """The array of references that ends at ``end``, taken by :data:`_STRUCTURE` with the
    name that ends at ``name_end``, as :func:`_value` reads it; None when it holds anything
    else."""
    start = data.index(b"[", name_end, end) + 1
    count = _ref_chars(data, start, end - 1)
    return RefArray(data[start : end - 1], count) if count > 0 else None


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
