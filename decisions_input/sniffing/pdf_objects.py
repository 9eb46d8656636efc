"""PDF objects, as much of the syntax as the trailer, the catalog and the page tree need.

:class:`Document` finds the last cross-reference section from ``startxref``, follows the
``/Prev`` chain, and reads objects by number: from the file (classic tables, whose entries
are fixed-width, so an entry is one read at a computed offset) or from object streams (a
cross-reference stream is inflated only as far as the entry needed, an object stream up to
the read bound). Nothing is read that the page count does not need, so a PDF of 300,000
objects costs what a PDF of three does.

The objects themselves are read by :mod:`.pdf_syntax`.

Anything this reader cannot follow raises :class:`Unreadable`, and the caller falls back
on pypdf; a cross-reference that points at nothing raises :class:`~.base.Broken`.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from .base import Broken, Source
from .pdf_syntax import (
    _BLANK,
    _OBJ_DICT,
    _OBJ_HEAD,
    _PADDING,
    _SKIP,
    _WS,
    Name,
    PdfObject,
    Ref,
    RefArray,
    Stream,
    Unreadable,
    _members_at,
    _NeedMore,
    parse,
)

__all__ = ["Document", "Name", "PdfObject", "Ref", "RefArray", "Stream", "Unreadable"]

_MAX_SECTIONS = 32  # cross-reference sections followed through /Prev
_OBJECT_WINDOW = 1024  # bytes read for one object at first; grown while it does not end


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
