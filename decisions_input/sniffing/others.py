"""Bytes no family claims: formats outside the API's lists named by signature, markup, JSON
and text, libmagic's names, and declared headerless audio (L16, A-law, µ-law).

* **Names for what is refused.** A format the own signatures know (TGA, PCX, DTS, DV,
  MXF, Y4M, IVF, PSD, JPEG XL, CAF, ...) is refused as ``mime.not_allowed`` by name, and
  so is one libmagic names: by the library's table of its MIME answers, or by libmagic's
  own description for an image, audio or video type outside the API's lists. libmagic's
  guesses at the API's own types (MPEG audio for any frame sync) name nothing, since the
  own readers would have recognised such a file: it stays ``media.unknown``. Without
  libmagic the own table answers alone.
* **Headerless audio.** ``audio/l16``, ``audio/alaw`` and ``audio/mulaw`` are accepted only
  when declared, and only when none of the library's own recognisers names the bytes:
  signatures, markup (SVG, HTML, XML), JSON, and plain text (libmagic is not asked: it has
  weak guesses for any byte string). Bytes they name are refused as that format, like
  undeclared ones. For G.711 plain text needs whitespace between words, since a quiet
  signal of one sign is all ASCII letters. ``rate`` and ``channels`` parameters must be
  positive integers; L16 needs a whole number of 2-byte samples per channel.
"""

from __future__ import annotations

import functools
import re
import struct
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from .base import KIND_BY_MIME, Broken, Detected, Format, Kind, Source, found, not_allowed, refused
from .names import parse_mime

if TYPE_CHECKING:
    from magic import Magic

__all__ = ["FORMATS", "OTHER", "magic_db", "unrecognised"]


_OTHER_SIGNATURES: tuple[tuple[int, bytes, str, Kind | None], ...] = (
    (0, b"\xff\x0a", "JPEG XL", "image"),
    (0, b"\x00\x00\x00\x0cJXL \r\n\x87\n", "JPEG XL", "image"),
    (0, b"\x00\x00\x00\x0cjP  \r\n\x87\n", "JPEG 2000", "image"),
    (0, b"\xff\x4f\xff\x51", "JPEG 2000", "image"),
    (0, b"8BPS", "PSD", "image"),
    (0, b"qoif", "QOI", "image"),
    (0, b"v/1\x01", "OpenEXR", "image"),
    (0, b"DDS ", "DDS", "image"),
    (0, b"#?RADIANCE", "Radiance HDR", "image"),
    (0, b"\x8aMNG\r\n\x1a\n", "MNG", "image"),
    (0, b"gimp xcf", "XCF", "image"),
    (0, b"#!AMR", "AMR", "audio"),
    (0, b".snd", "Sun AU", "audio"),
    (0, b"MThd", "MIDI", "audio"),
    (0, b"caff", "CAF", "audio"),
    (0, b"wvpk", "WavPack", "audio"),
    (0, b"MAC ", "Monkey's Audio", "audio"),
    (0, b"MPCK", "Musepack", "audio"),
    (0, b"TTA1", "TTA", "audio"),
    (0, b"DSD ", "DSF", "audio"),
    (0, b".RMF", "RealMedia", "video"),
    (0, b"riff\x2e\x91\xcf\x11\xa5\xd6\x28\xdb\x04\xc1\x00\x00", "Wave64", "audio"),
    (0, b"Creative Voice File\x1a", "VOC", "audio"),
    (0, b"PK\x03\x04", "ZIP", None),
    (0, b"PK\x05\x06", "ZIP", None),
    (0, b"\x1f\x8b\x08", "gzip", None),
    (0, b"BZh", "bzip2", None),
    (0, b"\xfd7zXZ\x00", "xz", None),
    (0, b"\x28\xb5\x2f\xfd", "Zstandard", None),
    (0, b"7z\xbc\xaf\x27\x1c", "7z", None),
    (0, b"Rar!\x1a\x07", "RAR", None),
    (257, b"ustar", "tar", None),
    (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE2 compound file", None),
    (0, b"{\\rtf", "RTF", None),
    (0, b"%!PS", "PostScript", None),
    (0, b"\x7fELF", "ELF executable", None),
    (0, b"SQLite format 3\x00", "SQLite", None),
    (0, b"\x00asm", "WebAssembly", None),
    (0, b"wOFF", "WOFF font", None),
    (0, b"wOF2", "WOFF2 font", None),
    (0, b"DKIF", "IVF video", "video"),
    (0, b"YUV4MPEG2 ", "Y4M video", "video"),
    (0, b"\x06\x0e\x2b\x34\x02\x05\x01\x01\x0d\x01\x02\x01\x01", "MXF", "video"),
    (0, b"\x1f\x07\x00\x3f", "DV video", "video"),  # a DIF header block, 525/60
    (0, b"\x1f\x07\x00\xbf", "DV video", "video"),  # a DIF header block, 625/50
    (0, b"\x7f\xfe\x80\x01", "DTS audio", "audio"),  # core sync word, 16-bit words
    (0, b"\xfe\x7f\x01\x80", "DTS audio", "audio"),  # the same, little-endian words
    (0, b"\x1f\xff\xe8\x00", "DTS audio", "audio"),  # 14-bit words
    (0, b"\xff\x1f\x00\xe8", "DTS audio", "audio"),
)


def _other_signature(src: Source) -> Detected | None:
    head = src.head
    for offset, sig, name, kind in _OTHER_SIGNATURES:
        if head[offset : offset + len(sig)] == sig:
            return not_allowed(name, kind)
    if len(head) >= 22 and head[:2] == b"\x00\x00" and head[2:4] in (b"\x01\x00", b"\x02\x00"):
        count, reserved, planes = struct.unpack_from("<H", head, 4)[0], head[9], head[10]
        if 0 < count <= 256 and reserved == 0 and planes in (0, 1):
            return not_allowed("ICO" if head[2] == 1 else "CUR", "image")
    if head[:2] == b"MZ" and len(head) >= 64:
        (pe,) = struct.unpack_from("<I", head, 60)
        if head[pe : pe + 4] == b"PE\x00\x00":
            return not_allowed("Windows executable", None)
    video = _annex_b(head)
    if video is not None:
        return not_allowed(video, "video", container="none")
    if _pcx(head):
        return not_allowed("PCX", "image")
    netpbm = _netpbm(head)
    if netpbm is not None:
        name, width, height = netpbm
        return not_allowed(name, "image", width=width, height=height)
    return None


_H264_PROFILES = frozenset(
    {44, 66, 77, 83, 86, 88, 100, 110, 118, 122, 128, 134, 135, 138, 139, 144, 244}
)


def _annex_b(head: bytes) -> str | None:
    """Name an H.264 or H.265 elementary stream that opens with its parameter sets."""
    if head[:4] != b"\x00\x00\x00\x01" or len(head) < 6:
        return None
    nal, nxt = head[4], head[5]
    if nal & 0x9F == 0x07 and nal & 0x60 and nxt in _H264_PROFILES:
        return "H.264 elementary stream"  # a sequence parameter set
    if nal == 0x40 and nxt == 0x01:
        return "H.265 elementary stream"  # a video parameter set
    return None


_NETPBM = {b"1": "PBM", b"2": "PGM", b"3": "PPM", b"4": "PBM", b"5": "PGM", b"6": "PPM"}
_NETPBM_TOKEN = re.compile(rb"(?:\s|#[^\n]*\n)+([0-9]{1,9})")


def _pcx(head: bytes) -> bool:
    """A PCX header: manufacturer 10, a known version, RLE, bits, reserved 0, planes."""
    return (
        len(head) >= 128
        and head[0] == 0x0A
        and head[1] in (0, 2, 3, 4, 5)
        and head[2] == 1
        and head[3] in (1, 2, 4, 8)
        and head[64] == 0
        and head[65] in (1, 3, 4)
    )


def _netpbm(head: bytes) -> tuple[str, int, int] | None:
    """Read a Netpbm header (``P1`` to ``P6``, then width and height): name, width, height."""
    name = _NETPBM.get(head[1:2]) if head[:1] == b"P" else None
    if name is None:
        return None
    sizes = []
    pos = 2
    for _ in range(2):
        match = _NETPBM_TOKEN.match(head, pos, 1024)
        if match is None:
            return None
        sizes.append(int(match.group(1)))
        pos = match.end()
    if not all(sizes) or head[pos : pos + 1] not in (b" ", b"\t", b"\r", b"\n", b"#"):
        return None
    return name, sizes[0], sizes[1]


# libmagic answers trusted to name a refused format; anything else is left unknown.
_MAGIC_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "application/zip": "ZIP",
        "application/gzip": "gzip",
        "application/x-tar": "tar",
        "application/x-7z-compressed": "7z",
        "application/x-rar": "RAR",
        "application/vnd.rar": "RAR",
        "application/x-bzip2": "bzip2",
        "application/x-xz": "xz",
        "application/zstd": "Zstandard",
        "application/json": "JSON",
        "application/postscript": "PostScript",
        "application/x-executable": "ELF executable",
        "application/x-sharedlib": "ELF shared library",
        "application/x-pie-executable": "ELF executable",
        "application/x-mach-binary": "Mach-O executable",
        "application/x-dosexec": "Windows executable",
        "application/x-sqlite3": "SQLite",
        "application/msword": "Word document",
        "application/vnd.ms-excel": "Excel workbook",
        "application/x-shockwave-flash": "SWF",
        "application/epub+zip": "EPUB",
        "image/svg+xml": "SVG",
        "image/vnd.microsoft.icon": "ICO",
        "image/x-icon": "ICO",
        "image/vnd.adobe.photoshop": "PSD",
        "image/jxl": "JPEG XL",
        "image/jp2": "JPEG 2000",
        "image/avif": "AVIF",
        "image/x-xcf": "XCF",
        "video/x-matroska": "Matroska",
        "video/mp2t": "MPEG-TS",
        "audio/amr": "AMR",
        "audio/basic": "Sun AU",
        "audio/midi": "MIDI",
        "audio/x-wavpack": "WavPack",
        "audio/x-ape": "Monkey's Audio",
        "image/x-tga": "TGA",
        "image/x-pcx": "PCX",
        "image/vnd.zbrush.pcx": "PCX",
        "video/x-dv": "DV video",
        "application/mxf": "MXF",
        "audio/x-w64": "Wave64",
        "font/woff": "WOFF font",
        "font/woff2": "WOFF2 font",
        "font/sfnt": "font",
    }
)


@functools.cache
def magic_db() -> Magic | None:
    """Load libmagic once; None when it is not installed."""
    try:
        import magic

        return magic.Magic(mime=True)
    except Exception:  # ImportError, OSError or magic.MagicException: no libmagic here
        return None


def _libmagic_mime(head: bytes) -> str | None:
    db = magic_db()
    if db is None:
        return None
    try:
        answer = db.from_buffer(head)
    except Exception:  # libmagic errors never escape
        return None
    return str(answer).split(";")[0].strip().lower() or None


def _magic_format(mime: str, head: bytes) -> str | None:
    """Name what libmagic found: from the table, else its description of a media type.

    Guesses libmagic makes for the API's own types (MPEG audio for any frame sync, say)
    name nothing: the own readers would have recognised such a file.
    """
    if mime in _MAGIC_NAMES:
        return _MAGIC_NAMES[mime]
    if mime.startswith("text/"):
        return "plain text" if mime == "text/plain" else mime
    if mime.split("/")[0] in ("image", "audio", "video") and mime not in KIND_BY_MIME:
        return _libmagic_description(head)
    return None


@functools.cache
def _magic_text_db() -> Magic | None:
    """Load libmagic's describing database once; None when it is not installed."""
    try:
        import magic

        return magic.Magic()
    except Exception:  # ImportError, OSError or magic.MagicException: no libmagic here
        return None


def _libmagic_description(head: bytes) -> str | None:
    db = _magic_text_db()
    if db is None:
        return None
    try:
        answer = str(db.from_buffer(head))
    except Exception:  # libmagic errors never escape
        return None
    name = answer.split(",")[0].split(" - ")[0].strip()[:60]
    return name if name and name != "data" else None


def _kind_of(mime: str | None) -> Kind | None:
    top = (mime or "").split("/")[0]
    return top if top in ("image", "audio", "video") else None  # type: ignore[return-value]


def _markup(head: bytes) -> str | None:
    text = _as_text(head)
    if text is None:
        return None
    low = text.lstrip("\ufeff \t\r\n").lower()
    if low.startswith(("<svg", "<?xml")) and "<svg" in low[:4096]:
        return "SVG"
    if low.startswith(("<!doctype html", "<html")):
        return "HTML"
    if low.startswith("<?xml"):
        return "XML"
    return None


_JSON_START = re.compile(r'\A\s*(?:\{\s*["}]|\[\s*[-0-9"{\[\]tfn])')


def _own_text_format(head: bytes, *, spaced: bool) -> str | None:
    """Name markup, JSON or plain text in ``head`` by the library's own tests, not libmagic's.

    With ``spaced``, plain text needs whitespace between words (one character in 100 at
    least): G.711 samples of a quiet signal of one sign decode as ASCII letters, but
    spaces and line breaks only come from loud samples. L16 samples of a signal that
    crosses zero do not decode as text at all.
    """
    fmt = _markup(head)
    if fmt is not None:
        return fmt
    text = _as_text(head)
    if text is None:
        return None
    if _JSON_START.match(text):
        return "JSON"
    if not spaced or sum(c in " \t\r\n" for c in text) * 100 >= len(text):
        return "plain text"
    return None


def _as_text(head: bytes) -> str | None:
    sample = head[:4096]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 3:
            return None
        text = sample[: exc.start].decode("utf-8")
    if not text or any(ord(c) < 32 and c not in "\t\n\r\f" for c in text) or "\x7f" in text:
        return None
    return text


def unrecognised(src: Source, declared: str | None) -> Detected:
    base, params = _declared(declared)
    if base in _HEADERLESS:
        named = _own_text_format(src.head, spaced=base != "audio/l16")
        if named is not None:
            return not_allowed(named, None)
        return _headerless(src, base, params)
    fmt = _markup(src.head)
    mime = None
    if fmt is None:
        mime = _libmagic_mime(src.head)
        fmt = _magic_format(mime, src.head) if mime else None
    if fmt is None and _as_text(src.head) is not None:
        fmt = "plain text"
    if fmt is not None:
        return not_allowed(fmt, _kind_of(mime), libmagic=mime)
    if base in KIND_BY_MIME and KIND_BY_MIME[base] == "audio":
        return refused(
            "audio.headerless_undeclared",
            "unknown",
            f"expected a {base} header, found none; raw samples must be declared "
            "audio/l16, audio/alaw or audio/mulaw",
            "audio",
            libmagic=mime,
        )
    return refused(
        "media.unknown", "unknown", "expected a known media format, found none", None, libmagic=mime
    )


def _declared(declared: str | None) -> tuple[str, dict[str, str]]:
    if declared is None:
        return "", {}
    try:
        return parse_mime(declared)
    except Broken:
        return declared.split(";")[0].strip().lower(), {"": ""}


_HEADERLESS: Mapping[str, int] = MappingProxyType(
    {"audio/l16": 2, "audio/alaw": 1, "audio/mulaw": 1}
)


def _headerless(src: Source, base: str, params: dict[str, str]) -> Detected:
    fmt = base.split("/")[1].upper()
    try:
        rate = _positive(params, "rate")
        channels = _positive(params, "channels") or 1
    except Broken as exc:
        return refused(exc.code, fmt, exc.reason, "audio")
    frame = _HEADERLESS[base] * channels
    if src.size % frame and not src.partial:
        return refused(
            "audio.odd_length",
            fmt,
            f"expected a multiple of {frame} bytes for {channels} channel(s) of {fmt}, "
            f"found {src.size} bytes",
            "audio",
        )
    duration = round(src.size / frame / rate, 3) if rate else None
    return found(
        base,
        fmt,
        f"headerless {fmt} audio as declared",
        container="none",
        sample_rate=rate,
        channels=channels,
        duration_s=duration,
    )


def _positive(params: dict[str, str], name: str) -> int | None:
    if "" in params:
        raise Broken("mime.parameter", "expected name=value parameters after the MIME type")
    if name not in params:
        return None
    value = params[name]
    if not value.isdigit() or int(value) <= 0:
        raise Broken("mime.parameter", f"expected {name} to be a positive integer, found {value!r}")
    return int(value)


OTHER = Format("unknown", None, lambda h: True, _other_signature)
FORMATS = (OTHER,)
