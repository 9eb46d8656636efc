"""HEIF images in ISO BMFF: the primary item, its coding, its size, and where its data lies.

A HEIF file whose primary item is HEVC-coded (``hvc1``, or a grid of ``hvc1`` tiles) is
``image/heic``; one coded otherwise (JPEG, H.264, uncompressed, ...) is ``image/heif``. An
AV1-coded primary item (AVIF) is refused whatever the brands say, ``mif1`` included.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from .base import Broken, Detected, Source, byte_at, check_pixels, found, not_allowed, unpack
from .boxes import Box, boxes

__all__ = ["heif"]


_DERIVED_ITEMS = frozenset({"grid", "iovl", "iden"})
_META_ITEMS = frozenset({"Exif", "mime", "uri ", "hvt1", "tmap"})


@dataclass(slots=True)
class _Items:
    primary: int | None = None
    types: dict[int, str] = field(default_factory=dict)
    props: list[tuple[str, int, int]] = field(default_factory=list)  # (type, a, b) per ipco child
    assoc: dict[int, list[int]] = field(default_factory=dict)


def heif(src: Source, meta: Box, brands: tuple[str, ...]) -> Detected:
    if meta.end > src.size and not src.partial:
        raise Broken(
            "media.truncated",
            f"expected {meta.end} bytes for the HEIF meta box, found {src.size}",
            "HEIF",
            "image",
        )
    items = _Items()
    iloc = None
    for box in boxes(src, meta.body + 4, min(meta.end, src.size)):
        if box.type == "iloc":
            iloc = box
        elif box.type == "pitm":
            wide = src.need(box.body, 1)[0] != 0
            data = src.need(box.body + 4, 4 if wide else 2)
            items.primary = int.from_bytes(data, "big")
        elif box.type == "iinf":
            _iinf(src, box, items)
        elif box.type == "iprp":
            _iprp(src, box, items)
    if items.primary is None or items.primary not in items.types:
        raise Broken("media.corrupt", "expected a primary item (pitm, iinf) in the HEIF meta box")
    coding = _heif_coding(items)
    ev: dict[str, object] = {"container": "HEIF", "brand": brands[0] if brands else None}
    ev.update(brands=brands, codecs=(coding,))
    if coding == "av01":
        return not_allowed("AVIF", "image", **ev)
    fmt = "HEIC" if coding == "hvc1" else f"HEIF ({coding})"
    coded, shown = _heif_size(items)
    if coded[0] and coded[1]:
        check_pixels(coded[0], coded[1], src, fmt)
        ev.update(width=shown[0], height=shown[1], pixels=coded[0] * coded[1])
    if not src.partial:
        _iloc_check(src, iloc, fmt)
    mime = "image/heic" if coding == "hvc1" else "image/heif"
    return found(mime, fmt, f"{fmt} image, primary item coded as {coding!r}", **ev)


def _heif_coding(items: _Items) -> str:
    assert items.primary is not None
    kind = items.types[items.primary]
    if kind not in _DERIVED_ITEMS:
        return kind
    coded = {t for t in items.types.values() if t not in _DERIVED_ITEMS | _META_ITEMS}
    for preferred in ("av01", "hvc1"):
        if preferred in coded:
            return preferred
    return min(coded) if coded else kind


def _heif_size(items: _Items) -> tuple[tuple[int, int], tuple[int, int]]:
    """Return the coded size (ispe) and the shown size (after clap and irot)."""
    indexes = items.assoc.get(items.primary or 0, [])
    props = [items.props[i - 1] for i in indexes if 0 < i <= len(items.props)]
    if not any(kind == "ispe" for kind, _, _ in props):
        props = [p for p in items.props if p[0] == "ispe"][:1]
    coded = shown = (0, 0)
    for kind, a, b in props:
        if kind == "ispe":
            coded = shown = (a, b)
        elif kind == "clap" and a and b:
            shown = (a, b)
        elif kind == "irot" and a % 2:
            shown = (shown[1], shown[0])
    return coded, shown


def _iloc_check(src: Source, iloc: Box | None, fmt: str) -> None:
    """Refuse a file whose item data (``iloc`` extents in the file itself) ends past its end.

    Every item's extents are checked, the primary item's and those of the tiles of a grid
    among them.
    """
    if iloc is None:
        return
    data = src.need(iloc.body, min(iloc.end - iloc.body, 1 << 20))
    for item, method, reference, start, length in _iloc_extents(data):
        if method == 0 and reference == 0 and start + length > src.size:
            raise Broken(
                "media.truncated",
                f"expected the data of item {item} up to offset {start + length}, "
                f"found the end at {src.size}",
                fmt,
                "image",
            )


_ILOC_EXTENTS = 16384  # extents read from one iloc box at most


def _iloc_extents(data: bytes) -> Iterator[tuple[int, int, int, int, int]]:
    """Yield (item, construction method, data reference, start, length) for each extent.

    Method 0 with data reference 0 places the extent in the file itself.
    """
    if len(data) < 8:
        raise Broken("media.corrupt", "expected an iloc box of 8 bytes or more")
    version = data[0]
    offset_size, length_size = data[4] >> 4, data[4] & 15
    base_size, index_size = data[5] >> 4, (data[5] & 15 if version in (1, 2) else 0)
    pos, count = _iloc_uint(data, 6, 4 if version == 2 else 2)
    budget = _ILOC_EXTENTS
    for _ in range(min(count, 4096)):
        pos, item = _iloc_uint(data, pos, 4 if version == 2 else 2)
        method = 0
        if version in (1, 2):
            pos, method = _iloc_uint(data, pos, 2)
            method &= 0xF
        pos, reference = _iloc_uint(data, pos, 2)
        pos, base = _iloc_uint(data, pos, base_size)
        pos, extents = _iloc_uint(data, pos, 2)
        for _ in range(extents):
            budget -= 1
            if budget < 0:
                return
            pos += index_size
            pos, offset = _iloc_uint(data, pos, offset_size)
            pos, length = _iloc_uint(data, pos, length_size)
            yield item, method, reference, base + offset, length


def _iloc_uint(data: bytes, pos: int, size: int) -> tuple[int, int]:
    if size not in (0, 2, 4, 8) or pos + size > len(data):
        raise Broken("media.corrupt", f"expected an iloc field of {size} bytes at {pos}")
    return pos + size, int.from_bytes(data[pos : pos + size], "big")


def _iinf(src: Source, box: Box, items: _Items) -> None:
    version = src.need(box.body, 1)[0]
    skip = 6 if version == 0 else 8
    for infe in boxes(src, box.body + skip, min(box.end, src.size)):
        if infe.type != "infe" or len(items.types) >= 4096:
            continue
        data = src.at(infe.body, 14)
        if len(data) < 12 or data[0] < 2:
            continue
        id_bytes = 2 if data[0] == 2 else 4
        item_id = int.from_bytes(data[4 : 4 + id_bytes], "big")
        at = 6 + id_bytes
        items.types[item_id] = data[at : at + 4].decode("latin-1")


def _iprp(src: Source, box: Box, items: _Items) -> None:
    for sub in boxes(src, box.body, min(box.end, src.size)):
        if sub.type == "ipco":
            for prop in boxes(src, sub.body, min(sub.end, src.size)):
                items.props.append(_property(src, prop))
        elif sub.type == "ipma":
            _ipma(src.need(sub.body, min(sub.end - sub.body, 1 << 20)), items)


def _property(src: Source, prop: Box) -> tuple[str, int, int]:
    if prop.type == "ispe":
        width, height = struct.unpack(">II", src.need(prop.body + 4, 8))
        return "ispe", width, height
    if prop.type == "clap":
        wn, wd, hn, hd = struct.unpack(">IIII", src.need(prop.body, 16))
        return "clap", wn // wd if wd else 0, hn // hd if hd else 0
    if prop.type == "irot":
        return "irot", src.need(prop.body, 1)[0] & 3, 0
    return prop.type, 0, 0


def _ipma(data: bytes, items: _Items) -> None:
    version, flags = byte_at(data, 0), int.from_bytes(data[1:4], "big")
    (count,) = unpack(">I", data, 4)
    pos = 8
    for _ in range(min(count, 4096)):
        (item,) = unpack(">H" if version < 1 else ">I", data, pos)
        pos += 2 if version < 1 else 4
        n = byte_at(data, pos)
        pos += 1
        found = []
        for _ in range(n):
            if flags & 1:
                found.append(unpack(">H", data, pos)[0] & 0x7FFF)
                pos += 2
            else:
                found.append(byte_at(data, pos) & 0x7F)
                pos += 1
        items.assoc[item] = found
