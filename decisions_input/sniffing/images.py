"""Still images: PNG, JPEG, GIF, BMP, TIFF and BigTIFF, WebP.

Each reader parses the header itself (size, end marker, strips) and Pillow confirms the
size from the header only, never decoding pixels, within an allowance of
``4 * SNIFF_BYTES`` bytes past the head (past it the own parse stands). Decisions, checked
with ffmpeg, ImageMagick (libjpeg, libpng), libwebp (``dwebp``) and Pillow:

* **JPEG.** A JPEG without its end marker, or cut inside its scan data, is shown by ffmpeg
  and libjpeg with what is missing filled in: accepted with ``media.incomplete``. One cut
  before its scan data (or inside the scan header) decodes nowhere: ``media.truncated``.
* **PNG.** A PNG that ends after whole chunks, image data included, without IEND is
  decoded by ffmpeg: accepted with ``media.incomplete``. One cut inside a chunk (IEND's
  CRC included) is decoded by neither ffmpeg nor libpng: ``media.truncated``.
* **GIF.** A GIF without its trailer, or cut after a whole data sub-block of its first
  image, is shown by ffmpeg: ``media.incomplete``. ffmpeg shows nothing of a GIF cut
  inside a sub-block, nor do ImageMagick and Pillow: ``media.truncated``.
* **BMP.** The pixel rows the header states (uncompressed rows padded to 4 bytes, or the
  stated size of compressed data) must be in the file: ffmpeg, ImageMagick and Pillow
  refuse a BMP cut short.
* **TIFF.** The strips, tiles and out-of-line tag values of the first image, and the IFD
  chain (up to 64 images), must end in the file; libtiff-based readers refuse it cut.
* **WebP.** The RIFF size must be in the file: ``dwebp`` refuses a cut WebP.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from ..errors import SourceError
from .base import (
    Broken,
    Detected,
    Format,
    OutOfBudget,
    Source,
    after_end,
    buffered,
    check_pixels,
    damaged,
    decoder_warnings,
    earliest_polyglot_end,
    found,
    quiet_logger,
)

__all__ = ["BMP", "FORMATS", "GIF", "JPEG", "PNG", "TIFF", "WEBP"]


def _pillow_size(src: Source, pil_format: str) -> tuple[int, int] | None:
    """Open the header with Pillow (never decoding pixels).

    Returns None when Pillow is absent or its header parse needs more than its allowance
    of ``4 * SNIFF_BYTES`` bytes past the head; the size read by the own parser stands then.
    """
    try:
        from PIL import Image
    except ImportError:
        return None
    quiet_logger("PIL")
    local = src.allowance(4 * src.limits.SNIFF_BYTES)
    with decoder_warnings(refuse=Image.DecompressionBombWarning):
        try:
            with Image.open(buffered(local), formats=[pil_format]) as im:
                width, height = im.size
                return int(width), int(height)
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise Broken("image.too_many_pixels", f"Pillow refuses the size: {exc}") from exc
        except OutOfBudget:
            return None
        except SourceError:
            raise
        except Exception as exc:  # Pillow raises many kinds on hostile headers
            if local.exhausted:
                return None
            raise Broken(
                "media.corrupt", f"expected a readable {pil_format} header, Pillow says: {exc}"
            ) from exc


def _image(
    src: Source, mime: str, fmt: str, pil: str | None, w: int, h: int, **ev: object
) -> Detected:
    check_pixels(w, h, src, fmt)
    size = _pillow_size(src, pil) if pil else None
    if size is not None and size != (w, h):
        raise Broken(
            "media.corrupt", f"expected the {fmt} header size {w}x{h}, Pillow reads {size}"
        )
    return found(mime, fmt, f"{fmt} image, {w}x{h}", width=w, height=h, pixels=w * h, **ev)


_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _png(src: Source) -> Detected:
    length, ctype = struct.unpack(">I4s", src.need(8, 8))
    if ctype != b"IHDR" or length != 13:
        raise Broken("media.corrupt", f"expected IHDR as the first PNG chunk, found {ctype!r}")
    width, height = struct.unpack(">II", src.need(16, 8))
    if not (width and height):
        raise Broken("media.corrupt", "expected a PNG width and height above 0, found 0")
    check_pixels(width, height, src, "PNG")
    walk = _png_walk(src)
    det = _image(src, "image/png", "PNG", "PNG", width, height, animated=walk.animated or None)
    if walk.end is None:
        return damaged(
            det,
            "media.incomplete",
            "expected an IEND chunk after the image data, found the end of the file; "
            "decoders show the image",
        )
    return after_end(src, walk.end, det)


@dataclass(slots=True)
class _PngWalk:
    end: int | None = None  # the end of IEND; None when the file ends after whole chunks
    animated: bool = False
    idat: bool = False


def _png_walk(src: Source) -> _PngWalk:
    """Walk the chunks up to the image data (all of them in a file the head holds), then
    look for IEND in the tail.

    A file that ends after a whole chunk, with image data but no IEND, is decoded by
    ffmpeg: ``end`` is None then. A file cut inside a chunk (IEND's CRC included) is not
    decoded by ffmpeg or libpng and is refused.
    """
    walk, off = _PngWalk(), 8
    while off + 8 <= len(src.head):  # bounded by the head: no step counted
        header = src.at(off, 8)
        if len(header) < 8:
            return _png_cut(src, walk, off, off == src.size)
        length, ctype = struct.unpack(">I4s", header)
        if length > 0x7FFFFFFF or not ctype.isalpha():
            raise Broken("media.corrupt", f"expected a PNG chunk at offset {off}, found junk")
        walk.animated = walk.animated or ctype == b"acTL"
        if ctype == b"IDAT" and not walk.idat and src.size > len(src.head):
            walk.idat = True  # what follows is image data, then IEND: read in the tail
            return _png_tail(src, walk)
        walk.idat = walk.idat or ctype == b"IDAT"
        off += 12 + length
        if ctype == b"IEND" and off <= src.size:
            walk.end = off
            return walk
        if off >= src.size:
            return _png_cut(src, walk, off, off == src.size)
    return _png_tail(src, walk)


def _png_cut(src: Source, walk: _PngWalk, off: int, whole: bool) -> _PngWalk:
    if src.partial:
        walk.end = src.size
        return walk
    if whole and walk.idat:
        return walk
    if whole:
        raise Broken("media.truncated", "expected image data (IDAT) in the PNG, found none")
    raise Broken("media.truncated", f"expected a whole PNG chunk up to {off}, found the end")


def _png_tail(src: Source, walk: _PngWalk) -> _PngWalk:
    """Past the head: IEND near the end, else a last IDAT chunk that ends the file whole."""
    if src.partial:
        walk.end = src.size
        return walk
    start, tail = src.tail()
    pos = tail.rfind(_PNG_IEND)
    if pos >= 0:
        walk.end = start + pos + len(_PNG_IEND)
        return walk
    pos = tail.rfind(b"IDAT")
    while pos >= 4:
        (length,) = struct.unpack_from(">I", tail, pos - 4)
        if start + pos + 8 + length == src.size:
            body = tail[pos : pos + 4 + length]
            if zlib.crc32(body) == int.from_bytes(tail[-4:], "big"):
                return walk
        pos = tail.rfind(b"IDAT", 0, pos)
    raise Broken("media.truncated", "expected an IEND chunk near the end, found none")


def _jpeg(src: Source) -> Detected:
    off, size, sos, progressive = 2, None, None, False
    while sos is None:
        if src.partial and size is not None and off + 4 > src.size:
            break  # a head that ends before the scan, after the frame header
        src.step()
        marker, off = _jpeg_marker(src, off)
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            continue
        if marker == 0xD9:
            raise Broken("media.corrupt", "expected image data before the JPEG end marker")
        (length,) = struct.unpack(">H", src.need(off, 2))
        if length < 2:
            raise Broken("media.corrupt", f"expected a JPEG segment length, found {length}")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", src.need(off + 3, 4))
            size, progressive = (width, height), marker in (0xC2, 0xC6, 0xCA, 0xCE)
        if marker == 0xDA:
            sos = off + length
        off += length
    if size is None:
        raise Broken("media.corrupt", "expected a JPEG frame header (SOF) before the scan")
    width, height = size
    check_pixels(width, height, src, "JPEG")
    if sos is not None and sos >= src.size and not src.partial:
        raise Broken("media.truncated", "expected scan data after the JPEG scan header, found end")
    end = src.size if sos is None else _jpeg_end(src, sos)
    pil = None if sos is None else "JPEG"
    det = _image(src, "image/jpeg", "JPEG", pil, width, height, progressive=progressive)
    if end is None:
        return damaged(
            det,
            "media.incomplete",
            "expected a JPEG end marker (EOI), found the end of the file; decoders show the "
            "image with what is missing filled in",
        )
    return after_end(src, end, det)


def _jpeg_marker(src: Source, off: int) -> tuple[int, int]:
    data = src.at(off, 64)
    if not data:
        raise Broken("media.truncated", f"expected a JPEG marker at offset {off}, found end")
    if data[0] != 0xFF:
        raise Broken("media.corrupt", f"expected a JPEG marker at offset {off}")
    i = 0
    while i < len(data) and data[i] == 0xFF:
        i += 1
    if i == len(data):
        raise Broken("media.corrupt", f"expected a JPEG marker at offset {off}, found fill")
    return data[i], off + i + 1


def _jpeg_end(src: Source, sos: int) -> int | None:
    """Find the end of the EOI marker: scan the head exactly, else look in the tail.

    None: the file has no EOI after its scan data (it was cut short).
    """
    head = src.head
    pos = sos
    while True:
        pos = head.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(head):
            break
        nxt = head[pos + 1]
        if nxt == 0xD9:
            return pos + 2
        if nxt in (0x00, 0xFF) or 0xD0 <= nxt <= 0xD7:
            pos += 1
            continue
        if nxt in (0xDA, 0xC4, 0xDB, 0xDD, 0xFE) or 0xE0 <= nxt <= 0xEF or 0xC0 <= nxt <= 0xCF:
            if pos + 4 > len(head):
                break
            pos += 2 + struct.unpack_from(">H", head, pos + 2)[0]
            continue
        pos += 2
    if src.partial:
        return src.size
    if src.size <= len(head):
        return None
    start, tail = src.tail()
    cut = max(0, sos - start)
    found = tail.rfind(b"\xff\xd9", cut)
    if found < 0:
        return None
    return earliest_polyglot_end(tail, start, b"\xff\xd9", cut, "JPEG") or start + found + 2


def _gif(src: Source) -> Detected:
    width, height, flags = struct.unpack("<HHB", src.need(6, 5))
    check_pixels(width, height, src, "GIF")
    first = _gif_first_image(src, 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0))
    end = _gif_end(src)
    det = _image(src, "image/gif", "GIF", "GIF", width, height)
    if end is not None:
        return after_end(src, end, det)
    whole = _gif_data_end(src, first)
    if whole is None:
        raise Broken(
            "media.truncated", "expected the first GIF image's data whole, the file ends inside it"
        )
    return damaged(
        det,
        "media.incomplete",
        "expected the GIF trailer (0x3B) at the end, found none; decoders show the images "
        "that are whole",
    )


def _gif_first_image(src: Source, pos: int) -> int:
    """Return where the first image's data sub-blocks start, skipping the extensions."""
    while True:
        src.step()
        intro = src.need(pos, 1)[0]
        if intro == 0x2C:
            packed = src.need(pos + 9, 1)[0]
            pos += 10 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0)
            src.need(pos, 2)  # LZW minimum code size, the first sub-block's size
            return pos + 1
        if intro == 0x3B:
            raise Broken("media.corrupt", "expected an image in the GIF, found the trailer")
        if intro != 0x21:
            raise Broken("media.corrupt", f"expected a GIF block at offset {pos}, found {intro}")
        after = _gif_sub_blocks(src, pos + 2)
        if after is None or after > src.size:
            raise Broken("media.truncated", "expected the GIF's first image, found the end")
        pos = after


def _gif_end(src: Source) -> int | None:
    """Return the end of the trailer, or None when the file does not end with one."""
    if src.partial:
        return src.size
    start, tail = src.tail()
    stripped = tail.rstrip(b"\x00")
    if stripped.endswith(b"\x00;"):
        return start + len(stripped)
    return earliest_polyglot_end(tail, start, b"\x00;", 0, "GIF") or None


def _gif_data_end(src: Source, pos: int) -> int | None:
    """Walk the first image's data sub-blocks: their end, or None when one is cut.

    ffmpeg decodes a GIF cut after a whole sub-block of the first image (the part there
    is), but not one cut inside a sub-block; Pillow and ImageMagick decode neither.
    """
    end = _gif_sub_blocks(src, pos)
    if end is None:
        return src.size
    return end if end <= src.size else None


def _gif_sub_blocks(src: Source, pos: int) -> int | None:
    """Return the offset after the sub-blocks from ``pos`` and their terminator.

    None when the file ends exactly after a whole sub-block, before the terminator; an
    offset past the end of the file when it ends inside a sub-block.
    """
    window_at, window = pos, b""
    first = pos
    while True:
        if pos - window_at >= len(window):
            src.step()
            window_at, window = pos, src.at(pos, src.limits.SNIFF_BYTES)
            if not window:
                return None if pos > first and pos == src.size else pos + 1
        count = window[pos - window_at]
        if count == 0:
            return pos + 1
        pos += count + 1


def _bmp(src: Source) -> Detected | None:
    head = src.head
    if len(head) < 26:
        return None
    file_size, _reserved, data_off, dib = struct.unpack_from("<IIII", head, 2)
    if dib not in (12, 16, 40, 52, 56, 64, 108, 124) or data_off < 14 + dib:
        return None
    if dib == 12:
        width, height, _planes, bits = struct.unpack("<HHHH", src.need(18, 8))
        compression = stated = 0
    else:
        width, height, _planes, bits, compression, stated = struct.unpack(
            "<iiHHII", src.need(18, 20)
        )
    width, height = abs(width), abs(height)
    if not src.partial:
        if file_size > src.size or data_off > src.size:
            raise Broken("media.truncated", f"expected {file_size} BMP bytes, found {src.size}")
        _bmp_pixels_present(src, data_off, (width, height, bits), compression, stated)
    det = _image(src, "image/bmp", "BMP", "BMP", width, height)
    return after_end(src, file_size, det) if file_size >= data_off else det


def _bmp_pixels_present(
    src: Source, data_off: int, shape: tuple[int, int, int], compression: int, stated: int
) -> None:
    """Refuse a BMP whose pixel data, as its header states it, runs past the end of the file.

    Uncompressed rows (``BI_RGB``, ``BI_BITFIELDS``) are padded to 4 bytes; compressed data
    has the size the header states (``biSizeImage``). ffmpeg, ImageMagick and Pillow all
    refuse a BMP whose pixel data is cut short.
    """
    width, height, bits = shape
    need = (bits * width + 31) // 32 * 4 * height if compression in (0, 3, 6) else stated
    if data_off + need > src.size:
        raise Broken(
            "media.truncated",
            f"expected {need} bytes of pixel data from offset {data_off}, found "
            f"{max(0, src.size - data_off)}",
        )


def _tiff(src: Source) -> Detected:
    endian = "<" if src.head[:2] == b"II" else ">"
    big = src.head[2:4] in (b"+\x00", b"\x00+")
    fmt = "BigTIFF" if big else "TIFF"
    if big:
        (ifd,) = struct.unpack(endian + "Q", src.need(8, 8))
    else:
        (ifd,) = struct.unpack(endian + "I", src.need(4, 4))
    tags, next_ifd = _tiff_ifd(src, ifd, endian, big)
    width, height = (tags.get(256) or (0,))[0], (tags.get(257) or (0,))[0]
    if not (width and height):
        raise Broken("media.corrupt", f"expected ImageWidth and ImageLength in the {fmt} IFD")
    check_pixels(width, height, src, fmt)
    if not src.partial:
        _tiff_chain(src, tags, next_ifd, endian, big, {ifd})
    # Pillow takes big-endian BigTIFF for classic TIFF; the own IFD walk above stands alone.
    pil = None if big and endian == ">" else "TIFF"
    return _image(
        src, "image/tiff", fmt, pil, width, height, byte_order="little" if endian == "<" else "big"
    )


_TIFF_TYPES = {1: "B", 3: "H", 4: "I", 16: "Q", 6: "b", 8: "h", 9: "i", 17: "q"}
_TIFF_SIZES = {  # bytes of one value, by field type
    **{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4},
    **{10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8},
}
# (offsets, byte counts) tag pairs: strips, tiles, and an old-style JPEG stream.
_TIFF_EXTENTS = ((273, 279), (324, 325), (513, 514))
_TIFF_WANTED = frozenset({256, 257, 273, 279, 324, 325, 513, 514})
_TIFF_MAX_IFDS = 64  # images of a multi-page TIFF checked against the file size


def _tiff_chain(
    src: Source,
    tags: dict[int, tuple[int, ...]],
    next_ifd: int,
    endian: str,
    big: bool,
    seen: set[int],
) -> None:
    """Refuse a TIFF whose image data or next IFD lies past the end of the file.

    The chain is followed for ``_TIFF_MAX_IFDS`` images; it stops at an IFD seen before,
    and at a later IFD too broken to read (only the first image must be one).
    """
    for _ in range(_TIFF_MAX_IFDS):
        data_end = max(
            (
                o + c
                for offsets, counts in _TIFF_EXTENTS
                for o, c in zip(tags.get(offsets, ()), tags.get(counts, ()), strict=False)
            ),
            default=0,
        )
        if data_end > src.size:
            raise Broken("media.truncated", f"expected image data up to {data_end}, found end")
        if not next_ifd or next_ifd in seen:
            return
        if next_ifd >= src.size:
            raise Broken("media.truncated", f"expected an IFD at offset {next_ifd}, found end")
        seen.add(next_ifd)
        try:
            tags, next_ifd = _tiff_ifd(src, next_ifd, endian, big)
        except Broken as exc:
            if exc.code == "media.truncated":
                raise
            return


def _tiff_ifd(
    src: Source, ifd: int, endian: str, big: bool
) -> tuple[dict[int, tuple[int, ...]], int]:
    """Read one IFD: the tags this module needs, and the offset of the next IFD (0: none)."""
    src.step()
    count_fmt, entry_size, pointer = ("Q", 20, "Q") if big else ("H", 12, "I")
    head_len = struct.calcsize(count_fmt)
    (count,) = struct.unpack(endian + count_fmt, src.need(ifd, head_len))
    if count == 0 or count > 4096:
        raise Broken("media.corrupt", f"expected 1 to 4096 TIFF tags, found {count}")
    table = src.need(ifd + head_len, count * entry_size)
    tags: dict[int, tuple[int, ...]] = {}
    for i in range(count):
        entry = table[i * entry_size : (i + 1) * entry_size]
        tag, typ = struct.unpack_from(endian + "HH", entry)
        if not src.partial:
            _tiff_value_in_file(src, entry, endian, big, typ)
        if tag not in _TIFF_WANTED or typ not in _TIFF_TYPES:
            continue
        tags[tag] = _tiff_values(src, entry, endian, big, _TIFF_TYPES[typ])
    link = src.at(ifd + head_len + count * entry_size, struct.calcsize(pointer))
    if len(link) < struct.calcsize(pointer):
        if not src.partial:
            raise Broken("media.truncated", f"expected the next-IFD offset after the IFD at {ifd}")
        return tags, 0
    return tags, struct.unpack(endian + pointer, link)[0]


def _tiff_value_in_file(src: Source, entry: bytes, endian: str, big: bool, typ: int) -> None:
    """Refuse a tag whose values, stored away from the entry, end past the end of the file."""
    size = _TIFF_SIZES.get(typ)
    if size is None:
        return
    word = "Q" if big else "I"
    n = struct.unpack_from(endian + word, entry, 4)[0]
    if n * size <= (8 if big else 4):
        return
    (where,) = struct.unpack_from(endian + word, entry, 12 if big else 8)
    if where + n * size > src.size:
        raise Broken(
            "media.truncated", f"expected TIFF tag values up to {where + n * size}, found end"
        )


def _tiff_values(src: Source, entry: bytes, endian: str, big: bool, code: str) -> tuple[int, ...]:
    n = struct.unpack_from(endian + ("Q" if big else "I"), entry, 4)[0]
    inline = 8 if big else 4
    n = min(n, 1024)
    width = struct.calcsize(code) * n
    value_at = 12 if big else 8
    if width <= inline:
        raw = entry[value_at : value_at + width]
    else:
        (where,) = struct.unpack_from(endian + ("Q" if big else "I"), entry, value_at)
        raw = src.need(where, width)
    return struct.unpack(endian + code * n, raw)


def _webp(src: Source) -> Detected:
    (size,) = struct.unpack("<I", src.need(4, 4))
    end = src.size if size in (0, 0xFFFFFFFF) else 8 + size + (size & 1)
    chunk = src.need(12, 8)
    ctype = chunk[:4]
    body = src.need(20, 10)
    if ctype == b"VP8 ":
        if body[3:6] != b"\x9d\x01\x2a":
            raise Broken("media.corrupt", "expected the VP8 start code in a WebP image")
        width, height = (v & 0x3FFF for v in struct.unpack_from("<HH", body, 6))
    elif ctype == b"VP8L":
        if body[0] != 0x2F:
            raise Broken("media.corrupt", "expected the VP8L signature in a WebP image")
        bits = int.from_bytes(body[1:5], "little")
        width, height = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    elif ctype == b"VP8X":
        width = int.from_bytes(body[4:7], "little") + 1
        height = int.from_bytes(body[7:10], "little") + 1
    else:
        raise Broken("media.corrupt", f"expected a VP8, VP8L or VP8X chunk, found {ctype!r}")
    if end > src.size and not src.partial:
        raise Broken("media.truncated", f"expected {end} WebP bytes, found {src.size}")
    det = _image(src, "image/webp", "WebP", "WEBP", width, height)
    return after_end(src, end, det)


PNG = Format("PNG", "image", lambda h: h.startswith(_PNG_SIG), _png)
JPEG = Format("JPEG", "image", lambda h: h.startswith(b"\xff\xd8\xff"), _jpeg)
GIF = Format("GIF", "image", lambda h: h[:6] in (b"GIF87a", b"GIF89a"), _gif)
TIFF = Format(
    "TIFF", "image", lambda h: h[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"), _tiff
)
WEBP = Format("WebP", "image", lambda h: h[:4] == b"RIFF" and h[8:12] == b"WEBP", _webp)
BMP = Format("BMP", "image", lambda h: h[:2] == b"BM", _bmp)
FORMATS = (PNG, JPEG, GIF, TIFF, WEBP, BMP)
