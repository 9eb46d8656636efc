"""Write every media fixture into ``testdata/media/`` and list them in ``testdata/MANIFEST.json``.

Usage::

    python testdata/generate.py                       # all fixtures + MANIFEST.json
    python testdata/generate.py --only-deterministic --out DIR

Real encoders make the formats that need one: ffmpeg, sox, pillow-heif and Pillow's AVIF
plugin (install with ``apt-get install -y ffmpeg sox`` and ``pip install pillow-heif``).
Pure-Python fixtures (byte-assembled, the ``wave`` module, ``zipfile``) and those made
only by Pillow or pypdf are reproducible byte for byte and marked ``"deterministic": true``;
the ones made by Pillow or pypdf name the version in ``"requires"``, since other versions
may compress differently. Hostile variants (truncated, polyglot, huge dimensions, ...) are
derived from the real files. Every file is small: a second of media, tiny frames.

The outputs are committed so the tests need no encoder; ``tests/test_sniff.py``
regenerates the deterministic ones into a temporary folder and compares hashes.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import math
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import wave
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Fixture", "fixtures", "generate", "main"]

HERE = Path(__file__).resolve().parent
MEDIA = HERE / "media"
MANIFEST = HERE / "MANIFEST.json"

Made = dict[str, bytes]


@dataclass(frozen=True)
class Fixture:
    """One file: how it is made, what it must sniff to, whether it is reproducible."""

    name: str
    make: Callable[[Made, Path], bytes]
    made_by: str
    expected: dict[str, str]
    deterministic: bool = False
    requires: str | None = None  # library version a deterministic fixture depends on
    declared: str | None = None  # the MIME type to declare when sniffing
    tags: tuple[str, ...] = field(default=())
    warnings: tuple[str, ...] = ()  # warning codes the accepted file gets
    evidence: dict[str, object] = field(default_factory=dict)  # evidence the file must show
    seconds: float | None = None  # the duration the encoder was told to make


# --------------------------------------------------------------------------------------
# Pure-Python builders
# --------------------------------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _stored_zlib(data: bytes) -> bytes:
    """Deflate with stored blocks only: the same bytes with any zlib implementation."""
    out = bytearray(b"\x78\x01")
    for start in range(0, max(len(data), 1), 0xFFFF):
        block = data[start : start + 0xFFFF]
        final = 1 if start + 0xFFFF >= len(data) else 0
        out += bytes([final]) + struct.pack("<HH", len(block), len(block) ^ 0xFFFF) + block
    return bytes(out + struct.pack(">I", zlib.adler32(data)))


def png_stored(width: int = 24, height: int = 16) -> bytes:
    rows = b"".join(
        b"\x00"
        + bytes(v for x in range(width) for v in (x * 10 % 256, y * 15 % 256, (x + y) * 5 % 256))
        for y in range(height)
    )
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", _stored_zlib(rows))
        + _chunk(b"IEND", b"")
    )


def png_huge_dims() -> bytes:
    """A PNG header claiming 100000 x 100000 pixels, with one tiny IDAT."""
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", _stored_zlib(b"\x00" * 64))
        + _chunk(b"IEND", b"")
    )


def pdf_minimal(pages: int = 1) -> bytes:
    """A small, valid PDF with ``pages`` empty pages and a correct xref table."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
    ]
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"] * pages
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def zip_archive() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        info = zipfile.ZipInfo("hello.txt", date_time=(2020, 1, 1, 0, 0, 0))
        zf.writestr(info, b"hello from inside a zip\n")
    return buf.getvalue()


def _sine(rate: int, seconds: float, freq: float = 440.0) -> list[int]:
    return [
        int(12000 * math.sin(2 * math.pi * freq * i / rate)) for i in range(int(rate * seconds))
    ]


def wav_pcm16() -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(struct.pack(f"<{4000}h", *_sine(8000, 0.5)))
    return buf.getvalue()


def l16_raw(rate: int = 16000, seconds: float = 0.25) -> bytes:
    samples = _sine(rate, seconds)
    return struct.pack(f">{len(samples)}h", *samples)  # L16 is big-endian (RFC 3551)


def _alaw(sample: int) -> int:
    sign = 0x80 if sample >= 0 else 0
    value = min(abs(sample) >> 3, 0xFFF)
    if value < 32:
        code = value >> 1
    else:
        exponent = value.bit_length() - 5
        code = (exponent << 4) | ((value >> exponent) & 0x0F)
    return (code | sign) ^ 0x55


def _mulaw(sample: int) -> int:
    sign = 0x80 if sample < 0 else 0
    value = min(abs(sample), 32635) + 0x84
    exponent = value.bit_length() - 8
    mantissa = (value >> (exponent + 3)) & 0x0F
    return ~(sign | (exponent << 4) | mantissa) & 0xFF


def alaw_raw() -> bytes:
    return bytes(_alaw(s) for s in _sine(8000, 0.25))


def mulaw_raw() -> bytes:
    return bytes(_mulaw(s) for s in _sine(8000, 0.25))


def random_bytes(seed: int, n: int) -> bytes:
    return random.Random(seed).randbytes(n)


def random_with_sync() -> bytes:
    """Random bytes that start with one valid MPEG-1 layer III frame header."""
    return b"\xff\xfb\x90\x64" + random_bytes(7, 4092)


def _syncsafe(n: int) -> bytes:
    return bytes(((n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F))


def id3_tag(cover: bytes = b"", title: str = "Fixture") -> bytes:
    """An ID3v2.3 tag with a title and, when given, an APIC cover-art frame."""
    frames = b"TIT2" + struct.pack(">IH", len(title) + 1, 0) + b"\x00" + title.encode()
    if cover:
        body = b"\x00image/png\x00\x03\x00" + cover
        frames += b"APIC" + struct.pack(">IH", len(body), 0) + body
    return b"ID3\x03\x00\x00" + _syncsafe(len(frames)) + frames


def tiff_big_endian() -> bytes:
    """A classic TIFF in Motorola byte order: 8x8 grey, one uncompressed strip."""
    width = height = 8
    pixels = bytes((x * 32) % 256 for x in range(width * height))
    entries = [
        (256, 3, 1, width << 16),
        (257, 3, 1, height << 16),
        (258, 3, 1, 8 << 16),
        (259, 3, 1, 1 << 16),
        (262, 3, 1, 1 << 16),
        (273, 4, 1, 8),
        (277, 3, 1, 1 << 16),
        (278, 3, 1, height << 16),
        (279, 4, 1, len(pixels)),
    ]
    ifd_at = 8 + len(pixels)
    ifd = struct.pack(">H", len(entries))
    ifd += b"".join(struct.pack(">HHII", *e) for e in entries) + b"\x00\x00\x00\x00"
    return b"MM\x00*" + struct.pack(">I", ifd_at) + pixels + ifd


def bigtiff_big_endian() -> bytes:
    """A BigTIFF in Motorola byte order: 8x8 grey, one uncompressed strip."""
    width = height = 8
    pixels = bytes((y * 32) % 256 for y in range(width * height))
    entries = [
        (256, 3, 1, width << 48),
        (257, 3, 1, height << 48),
        (258, 3, 1, 8 << 48),
        (259, 3, 1, 1 << 48),
        (262, 3, 1, 1 << 48),
        (273, 16, 1, 16),
        (277, 3, 1, 1 << 48),
        (278, 3, 1, height << 48),
        (279, 16, 1, len(pixels)),
    ]
    ifd_at = 16 + len(pixels)
    ifd = struct.pack(">Q", len(entries))
    ifd += b"".join(struct.pack(">HHQQ", *e) for e in entries) + bytes(8)
    return b"MM\x00+" + struct.pack(">HHQ", 8, 0, ifd_at) + pixels + ifd


def _box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def _full(kind: bytes, version: int, body: bytes, flags: int = 0) -> bytes:
    return _box(kind, bytes([version]) + flags.to_bytes(3, "big") + body)


def heif_around(item_type: bytes, payload: bytes, width: int, height: int, brands: bytes) -> bytes:
    """Assemble a single-item HEIF file whose primary item is ``payload`` coded as ``item_type``."""
    infe = _full(b"infe", 2, struct.pack(">HH", 1, 0) + item_type + b"\x00")
    ipco = _box(b"ipco", _full(b"ispe", 0, struct.pack(">II", width, height)))
    ipma = _full(b"ipma", 0, struct.pack(">IHB", 1, 1, 1) + b"\x81")

    def meta(offset: int) -> bytes:
        iloc = _full(
            b"iloc",
            0,
            b"\x44\x00"
            + struct.pack(">HHHII", 1, 1, 0, 1, offset)
            + struct.pack(">I", len(payload)),
        )
        return _full(
            b"meta",
            0,
            _full(b"hdlr", 0, b"\x00" * 4 + b"pict" + b"\x00" * 13)
            + _full(b"pitm", 0, struct.pack(">H", 1))
            + iloc
            + _full(b"iinf", 0, struct.pack(">H", 1) + infe)
            + _box(b"iprp", ipco + ipma),
        )

    ftyp = _box(b"ftyp", brands[:4] + b"\x00\x00\x00\x00" + brands)
    size = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(size) + _box(b"mdat", payload)


def mp4_without_tracks() -> bytes:
    """An ftyp + moov holding only an mvhd: a movie with no track at all."""
    mvhd = _full(b"mvhd", 0, struct.pack(">IIII", 0, 0, 1000, 0) + bytes(80))
    return _box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2mp41") + _box(b"moov", mvhd)


def psd_header() -> bytes:
    """A Photoshop header for a 1x1 RGB image with empty sections and raw pixel data."""
    header = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, 1, 1, 8, 3)
    return header + struct.pack(">III", 0, 0, 0) + struct.pack(">H", 0) + b"\x80\x80\x80"


def jxl_container() -> bytes:
    """The JPEG XL container signature box and an ftyp box, as a JPEG XL file starts."""
    return b"\x00\x00\x00\x0cJXL \r\n\x87\n" + _box(b"ftyp", b"jxl \x00\x00\x00\x00jxl ")


SVG = (
    b'<?xml version="1.0"?>\n'
    b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">\n'
    b'<rect width="4" height="4"/>\n</svg>\n'
)
TEXT = b"This is plain text, not media.\nIt has two lines.\n"


# --------------------------------------------------------------------------------------
# Pillow, pypdf, pillow-heif
# --------------------------------------------------------------------------------------


def _pillow_version() -> str:
    import PIL

    return f"Pillow {PIL.__version__}"


def _pypdf_version() -> str:
    import pypdf

    return f"pypdf {pypdf.__version__}"


def _picture(mode: str = "RGB", size: tuple[int, int] = (32, 24)):  # type: ignore[no-untyped-def]
    from PIL import Image

    im = Image.new("RGB", size)
    im.putdata(
        [
            ((x * 8) % 256, (y * 10) % 256, ((x + y) * 4) % 256)
            for y in range(size[1])
            for x in range(size[0])
        ]
    )
    return im.convert(mode)


def pillow(fmt: str, mode: str = "RGB", **options: object) -> bytes:
    buf = io.BytesIO()
    _picture(mode).save(buf, fmt, **options)
    return buf.getvalue()


def pillow_gif_animated() -> bytes:
    frames = [_picture("P"), _picture("P").rotate(90, expand=False)]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return buf.getvalue()


def pypdf_pages(pages: int) -> bytes:
    import pypdf

    writer = pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(72, 72)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def pypdf_encrypted() -> bytes:
    import pypdf

    writer = pypdf.PdfWriter()
    writer.add_blank_page(72, 72)
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def heic_pillow_heif() -> bytes:
    import pillow_heif

    buf = io.BytesIO()
    pillow_heif.from_pillow(_picture("RGB", (64, 48))).save(buf, format="HEIF", quality=30)
    return buf.getvalue()


# --------------------------------------------------------------------------------------
# External encoders
# --------------------------------------------------------------------------------------

_SINE = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=22050"]
_SHORT_SINE = ["-f", "lavfi", "-i", "sine=frequency=440:duration=0.25:sample_rate=8000"]
_TESTSRC = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1"]
_TESTSRC25 = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25:duration=1"]  # MPEG-1/2 rates
_EXACT = [
    "-fflags",
    "+bitexact",
    "-flags:v",
    "+bitexact",
    "-flags:a",
    "+bitexact",
    "-map_metadata",
    "-1",
]


def _tool_version(tool: str, lenient: bool) -> str:
    if shutil.which(tool) is None:
        if lenient:
            return f"{tool} (not installed)"
        raise SystemExit(
            f"{tool} is not installed; install it (apt-get install -y {tool}) and retry"
        )
    args = {
        "ffmpeg": ["-version"],
        "sox": ["--version"],
        "qpdf": ["--version"],
        "gs": ["--version"],
    }[tool]
    out = subprocess.run([tool, *args], capture_output=True, text=True, check=True).stdout
    line = out.splitlines()[0]
    # "ffmpeg version 5.1.9-0+deb12u1 Copyright ..." and "sox:      SoX v14.4.2"
    version = line.split(" Copyright")[0].replace("version ", "").split(":")[-1].strip()
    return version if version.lower().startswith(tool) else f"{tool} {version}"


def ffmpeg_args(inputs: list[str], codec: list[str], fmt: str) -> list[str]:
    return ["ffmpeg", "-v", "error", "-y", *inputs, *codec, *_EXACT, "-f", fmt]


def run_tool(args: list[str], suffix: str, work: Path) -> bytes:
    out = work / f"out{suffix}"
    subprocess.run([*args, str(out)], check=True, capture_output=True)
    data = out.read_bytes()
    out.unlink()
    return data


def ffmpeg(
    inputs: list[str], codec: list[str], fmt: str, suffix: str
) -> tuple[Callable[[Made, Path], bytes], str]:
    args = ffmpeg_args(inputs, codec, fmt)
    return (lambda made, work: run_tool(args, suffix, work)), " ".join(args) + f" out{suffix}"


def piped(args: list[str]) -> Callable[[Made, Path], bytes]:
    """Run a tool that writes to standard output: it cannot seek back to fix its sizes."""
    return lambda made, work: subprocess.run(args, check=True, capture_output=True).stdout


# --------------------------------------------------------------------------------------
# Derived (hostile) variants
# --------------------------------------------------------------------------------------


def cut(name: str, fraction: float) -> Callable[[Made, Path], bytes]:
    return lambda made, work: made[name][: int(len(made[name]) * fraction)]


def mp4_largesize(made: Made, work: Path) -> bytes:
    """Turn ffmpeg's [free(8)][mdat size32] into [mdat size=1 largesize64]: same offsets."""
    data = made["mp4_h264.mp4"]
    at = data.index(b"\x00\x00\x00\x08free")
    (size,) = struct.unpack(">I", data[at + 8 : at + 12])
    assert data[at + 12 : at + 16] == b"mdat"
    return data[:at] + struct.pack(">I4sQ", 1, b"mdat", size + 8) + data[at + 16 :]


def mp4_mdat_size0(made: Made, work: Path) -> bytes:
    """Set the size of the last box (mdat, after moov) to 0: 'extends to the end of file'."""
    data = made["mp4_faststart.mp4"]
    at = data.rindex(b"mdat") - 4
    return data[:at] + b"\x00\x00\x00\x00" + data[at + 4 :]


def rebrand(name: str, brand: bytes) -> Callable[[Made, Path], bytes]:
    def make(made: Made, work: Path) -> bytes:
        data = made[name]
        assert data[4:8] == b"ftyp"
        return data[:8] + brand + data[12:]

    return make


def jpeg_with_pdf_comment(made: Made, work: Path) -> bytes:
    data = made["jpeg_baseline.jpg"]
    comment = b"%PDF-1.4 hidden in a JPEG comment"
    return data[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + data[2:]


def jpeg_scan_cut(name: str, keep: float | None) -> Callable[[Made, Path], bytes]:
    """A JPEG cut inside its scan data (``keep`` of it kept), or right after the scan header."""

    def make(made: Made, work: Path) -> bytes:
        data = made[name]
        sos = data.index(b"\xff\xda")
        header_end = sos + 2 + struct.unpack(">H", data[sos + 2 : sos + 4])[0]
        if keep is None:
            return data[:header_end]
        return data[: header_end + int((len(data) - 2 - header_end) * keep)]

    return make


def _gif_first_data(data: bytes) -> int:
    """Where the first image's LZW data sub-blocks start in a GIF."""
    flags = data[10]
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while data[pos] == 0x21:  # extensions: label, then sub-blocks
        pos += 2
        while data[pos]:
            pos += data[pos] + 1
        pos += 1
    assert data[pos] == 0x2C
    packed = data[pos + 9]
    return pos + 10 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0) + 1


def gif_sub_block_cut(name: str, inside: bool) -> Callable[[Made, Path], bytes]:
    """A GIF cut after its first whole data sub-block, or one byte before that sub-block ends."""

    def make(made: Made, work: Path) -> bytes:
        data = made[name]
        first = _gif_first_data(data)
        end = first + 1 + data[first]
        return data[: end - 1 if inside else end]

    return make


def bmp_pixels_cut(made: Made, work: Path) -> bytes:
    """bmp_pillow.bmp with two thirds of its pixel rows, its file size field matching."""
    data = bytearray(made["bmp_pillow.bmp"][: 54 + 1536])
    data[2:6] = struct.pack("<I", len(data))
    return bytes(data)


def pdf_objects(objects: list[bytes], *, root: int = 1) -> bytes:
    """A PDF of the given object bodies (numbered from 1) with a correct xref table."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {root} 0 R >>\n".encode()
    return bytes(out + f"startxref\n{xref}\n%%EOF\n".encode())


_CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
_LEAF = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"
PAGE_TREES: dict[str, tuple[list[bytes], str]] = {
    # name: (objects, what it shows)
    "pdf_pages_no_kids.pdf": (
        [_CATALOG, b"<< /Type /Pages /Count 1 >>"],
        "a /Pages node without /Kids",
    ),
    "pdf_pages_not_dict.pdf": ([_CATALOG, b"42"], "the catalog's /Pages is a number"),
    "pdf_pages_dangling.pdf": (
        [b"<< /Type /Catalog /Pages 9 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"],
        "the catalog's /Pages points at a missing object",
    ),
    "pdf_kids_dangling.pdf": (
        [_CATALOG, b"<< /Type /Pages /Kids [7 0 R] /Count 1 >>"],
        "the only kid is a missing object",
    ),
    "pdf_count_lies.pdf": (
        [_CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 5 >>", _LEAF],
        "/Count 5 over one page leaf",
    ),
    "pdf_leaf_without_type.pdf": (
        [_CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"<< /Parent 2 0 R >>"],
        "a leaf without /Type",
    ),
}


def pdf_without_eof_marker() -> bytes:
    data = pdf_minimal(1)
    return data[: data.rindex(b"%%EOF")]


def qpdf(source: str, *args: str) -> tuple[Callable[[Made, Path], bytes], str]:
    """Run qpdf on a fixture made before; ``--static-id`` keeps the output the same."""
    command = ["qpdf", "--static-id", *args]

    def make(made: Made, work: Path) -> bytes:
        (work / "in.pdf").write_bytes(made[source])
        subprocess.run([*command, str(work / "in.pdf"), str(work / "out.pdf")], check=True)
        return (work / "out.pdf").read_bytes()

    return make, " ".join(command) + f" {source} out.pdf"


PAGES_PS = (
    "/Helvetica findfont 24 scalefont setfont "
    "1 1 12 { /n exch def 72 700 moveto (Page ) show n 4 string cvs show showpage } for"
)


def ghostscript_pages(made: Made, work: Path) -> bytes:
    out = work / "out.pdf"
    subprocess.run(
        [
            "gs",
            "-q",
            "-dNOPAUSE",
            "-dBATCH",
            "-sDEVICE=pdfwrite",
            f"-sOutputFile={out}",
            "-c",
            PAGES_PS,
        ],
        check=True,
        capture_output=True,
    )
    return out.read_bytes()


# --------------------------------------------------------------------------------------
# The fixture table
# --------------------------------------------------------------------------------------


def _const(data: bytes) -> Callable[[Made, Path], bytes]:
    return lambda made, work: data


def _call(fn: Callable[[], bytes]) -> Callable[[Made, Path], bytes]:
    return lambda made, work: fn()


def _concat(*parts: str | bytes | Callable[[], bytes]) -> Callable[[Made, Path], bytes]:
    def make(made: Made, work: Path) -> bytes:
        out = b""
        for part in parts:
            if isinstance(part, str):
                out += made[part]
            elif isinstance(part, bytes):
                out += part
            else:
                out += part()
        return out

    return make


def _fixtures(lenient: bool = False) -> list[Fixture]:
    """The fixture table; ``lenient`` builds it without the external tools (not run then)."""
    py = "python testdata/generate.py"
    det = {"deterministic": True}
    f: list[Fixture] = []
    add = f.append

    def mime(m: str) -> dict[str, str]:
        return {"mime": m}

    def code(c: str) -> dict[str, str]:
        return {"code": c}

    # ---- pure Python ----------------------------------------------------------------
    add(
        Fixture(
            "png_stored.png",
            _call(png_stored),
            f"{py}: png_stored() (byte-assembled, stored deflate)",
            mime("image/png"),
            **det,
        )
    )
    add(
        Fixture(
            "png_huge_dims.png",
            _call(png_huge_dims),
            f"{py}: png_huge_dims() (IHDR 100000x100000, 1 tiny IDAT)",
            code("image.too_many_pixels"),
            **det,
        )
    )
    add(
        Fixture(
            "png_truncated.png",
            cut("png_stored.png", 0.6),
            f"{py}: first 60% of png_stored.png",
            code("media.truncated"),
            **det,
        )
    )
    add(
        Fixture(
            "png_zip_appended.png",
            _concat("png_stored.png", zip_archive),
            f"{py}: png_stored.png + zipfile archive (fixed date)",
            code("media.polyglot"),
            **det,
        )
    )
    add(
        Fixture(
            "png_pdf_appended.png",
            _concat("png_stored.png", lambda: pdf_minimal(1)),
            f"{py}: png_stored.png + pdf_minimal(1)",
            code("media.polyglot"),
            **det,
        )
    )
    add(
        Fixture(
            "pdf_minimal.pdf",
            _call(lambda: pdf_minimal(1)),
            f"{py}: pdf_minimal(1) (byte-assembled, 1 page)",
            mime("application/pdf"),
            **det,
        )
    )
    add(
        Fixture(
            "pdf_minimal_zero_pages.pdf",
            _call(lambda: pdf_minimal(0)),
            f"{py}: pdf_minimal(0) (byte-assembled, /Count 0)",
            code("pdf.no_pages"),
            **det,
        )
    )
    add(
        Fixture(
            "pdf_junk_prefix.pdf",
            _concat(b"JUNK" * 125 + b"\n", "pdf_minimal.pdf"),
            f"{py}: 501 junk bytes + pdf_minimal.pdf (%PDF- at offset 501)",
            mime("application/pdf"),
            **det,
        )
    )
    add(
        Fixture(
            "pdf_truncated.pdf",
            cut("pdf_minimal.pdf", 0.5),
            f"{py}: first half of pdf_minimal.pdf",
            code("media.truncated"),
            **det,
        )
    )
    add(
        Fixture(
            "pdf_zip_appended.pdf",
            _concat("pdf_minimal.pdf", zip_archive),
            f"{py}: pdf_minimal.pdf + zipfile archive",
            code("media.polyglot"),
            **det,
        )
    )
    add(
        Fixture(
            "zip_archive.zip",
            _call(zip_archive),
            f"{py}: zipfile, one stored member, fixed date",
            code("mime.not_allowed"),
            **det,
        )
    )
    add(
        Fixture(
            "wav_pcm16.wav",
            _call(wav_pcm16),
            f"{py}: wave module, 8 kHz mono 16-bit, 0.5 s sine",
            mime("audio/wav"),
            **det,
        )
    )
    add(
        Fixture(
            "wav_named.png",
            _call(wav_pcm16),
            f"{py}: wav_pcm16.wav bytes under a .png name",
            mime("audio/wav"),
            **det,
        )
    )
    add(
        Fixture(
            "l16_16k.raw",
            _call(l16_raw),
            f"{py}: l16_raw() 16 kHz mono big-endian, 0.25 s",
            mime("audio/l16"),
            declared="audio/l16;rate=16000",
            **det,
        )
    )
    add(
        Fixture(
            "l16_undeclared.raw",
            _call(l16_raw),
            f"{py}: l16_raw(), sniffed with no declaration",
            code("media.unknown"),
            **det,
        )
    )
    add(
        Fixture(
            "l16_odd_length.raw",
            _concat("l16_16k.raw", b"\x00"),
            f"{py}: l16_16k.raw + 1 byte",
            code("audio.odd_length"),
            declared="audio/l16;rate=16000",
            **det,
        )
    )
    add(
        Fixture(
            "alaw_8k.raw",
            _call(alaw_raw),
            f"{py}: G.711 A-law, 8 kHz, 0.25 s sine",
            mime("audio/alaw"),
            declared="audio/alaw;rate=8000",
            **det,
        )
    )
    add(
        Fixture(
            "mulaw_8k.raw",
            _call(mulaw_raw),
            f"{py}: G.711 mu-law, 8 kHz, 0.25 s sine",
            mime("audio/mulaw"),
            declared="audio/mulaw;rate=8000",
            **det,
        )
    )
    add(
        Fixture(
            "random.bin",
            _call(lambda: random_bytes(3, 4096)),
            f"{py}: random.Random(3).randbytes(4096)",
            code("media.unknown"),
            **det,
        )
    )
    add(
        Fixture(
            "random_mp3_sync.mp3",
            _call(random_with_sync),
            f"{py}: MPEG-1 layer III header FF FB 90 64 + random.Random(7).randbytes(4092)",
            code("media.unknown"),
            **det,
        )
    )
    add(Fixture("empty.bin", _const(b""), f"{py}: zero bytes", code("media.empty"), **det))
    add(
        Fixture(
            "text.txt",
            _const(TEXT),
            f"{py}: two lines of ASCII text",
            code("mime.not_allowed"),
            **det,
        )
    )
    add(
        Fixture(
            "image.svg", _const(SVG), f"{py}: a 4x4 SVG document", code("mime.not_allowed"), **det
        )
    )
    add(
        Fixture(
            "tiff_be.tif",
            _call(tiff_big_endian),
            f"{py}: tiff_big_endian() (MM, 8x8 grey, 1 strip)",
            mime("image/tiff"),
            **det,
        )
    )
    add(
        Fixture(
            "bigtiff_be.tif",
            _call(bigtiff_big_endian),
            f"{py}: bigtiff_big_endian() (MM+, 8x8 grey, 1 strip)",
            mime("image/tiff"),
            **det,
        )
    )
    add(
        Fixture(
            "mp4_no_tracks.mp4",
            _call(mp4_without_tracks),
            f"{py}: ftyp isom + moov with only mvhd",
            code("media.no_tracks"),
            **det,
        )
    )
    add(
        Fixture(
            "psd_header.psd",
            _call(psd_header),
            f"{py}: Photoshop header, 1x1 RGB",
            code("mime.not_allowed"),
            **det,
        )
    )
    add(
        Fixture(
            "jxl_container.jxl",
            _call(jxl_container),
            f"{py}: JPEG XL container signature + ftyp jxl",
            code("mime.not_allowed"),
            **det,
        )
    )

    # ---- Pillow / pypdf (deterministic for a given library version) -----------------
    pv = _pillow_version()
    pil = {"deterministic": True, "requires": pv}
    add(
        Fixture(
            "png_pillow.png",
            _call(lambda: pillow("PNG")),
            f"{pv}: 32x24 RGB gradient .save(fp, 'PNG')",
            mime("image/png"),
            **pil,
        )
    )
    add(
        Fixture(
            "jpeg_baseline.jpg",
            _call(lambda: pillow("JPEG", quality=60)),
            f"{pv}: .save(fp, 'JPEG', quality=60)",
            mime("image/jpeg"),
            **pil,
        )
    )
    add(
        Fixture(
            "jpeg_progressive.jpg",
            _call(lambda: pillow("JPEG", quality=60, progressive=True)),
            f"{pv}: .save(fp, 'JPEG', quality=60, progressive=True)",
            mime("image/jpeg"),
            **pil,
        )
    )
    add(
        Fixture(
            "jpeg_truncated.jpg",
            cut("jpeg_baseline.jpg", 0.7),
            f"{pv}: first 70% of jpeg_baseline.jpg",
            code("media.truncated"),
            **pil,
        )
    )
    add(
        Fixture(
            "jpeg_pdf_comment.jpg",
            jpeg_with_pdf_comment,
            f"{pv}: jpeg_baseline.jpg with a COM segment '%PDF-1.4 ...' after SOI",
            code("media.polyglot"),
            **pil,
        )
    )
    add(
        Fixture(
            "jpeg_zip_appended.jpg",
            _concat("jpeg_baseline.jpg", zip_archive),
            f"{pv}: jpeg_baseline.jpg + zipfile archive",
            code("media.polyglot"),
            **pil,
        )
    )
    add(
        Fixture(
            "gif_pillow.gif",
            _call(lambda: pillow("GIF", "P")),
            f"{pv}: 32x24 palette .save(fp, 'GIF')",
            mime("image/gif"),
            **pil,
        )
    )
    add(
        Fixture(
            "gif_animated.gif",
            _call(pillow_gif_animated),
            f"{pv}: 2 frames, save_all=True",
            mime("image/gif"),
            **pil,
        )
    )
    add(
        Fixture(
            "gif_truncated.gif",
            cut("gif_pillow.gif", 0.8),
            f"{pv}: first 80% of gif_pillow.gif",
            code("media.truncated"),
            **pil,
        )
    )
    add(
        Fixture(
            "bmp_pillow.bmp",
            _call(lambda: pillow("BMP")),
            f"{pv}: .save(fp, 'BMP')",
            mime("image/bmp"),
            **pil,
        )
    )
    add(
        Fixture(
            "tiff_le_pillow.tif",
            _call(lambda: pillow("TIFF")),
            f"{pv}: .save(fp, 'TIFF') (II, uncompressed)",
            mime("image/tiff"),
            **pil,
        )
    )
    add(
        Fixture(
            "bigtiff_le_pillow.tif",
            _call(lambda: pillow("TIFF", big_tiff=True)),
            f"{pv}: .save(fp, 'TIFF', big_tiff=True)",
            mime("image/tiff"),
            **pil,
        )
    )
    add(
        Fixture(
            "webp_lossy.webp",
            _call(lambda: pillow("WEBP", quality=50)),
            f"{pv}: .save(fp, 'WEBP', quality=50)",
            mime("image/webp"),
            **pil,
        )
    )
    add(
        Fixture(
            "webp_lossless.webp",
            _call(lambda: pillow("WEBP", lossless=True)),
            f"{pv}: .save(fp, 'WEBP', lossless=True)",
            mime("image/webp"),
            **pil,
        )
    )
    add(
        Fixture(
            "icon.ico",
            _call(lambda: pillow("ICO", sizes=[(16, 16)])),
            f"{pv}: .save(fp, 'ICO', sizes=[(16, 16)])",
            code("mime.not_allowed"),
            **pil,
        )
    )
    add(
        Fixture(
            "ppm_pillow.ppm",
            _call(lambda: pillow("PPM")),
            f"{pv}: 32x24 RGB .save(fp, 'PPM') (P6)",
            code("mime.not_allowed"),
            **pil,
        )
    )
    add(
        Fixture(
            "pgm_pillow.pgm",
            _call(lambda: pillow("PPM", "L")),
            f"{pv}: 32x24 grey .save(fp, 'PPM') (P5)",
            code("mime.not_allowed"),
            **pil,
        )
    )
    add(
        Fixture(
            "heif_jpeg_coded.heif",
            _call(lambda: heif_around(b"jpeg", pillow("JPEG", quality=60), 32, 24, b"mif1mif1")),
            f"{pv}: heif_around('jpeg', Pillow JPEG 32x24, brands mif1) (byte-assembled HEIF)",
            mime("image/heif"),
            **pil,
        )
    )
    add(
        Fixture(
            "heif_hvc1_huge.heic",
            _call(lambda: heif_around(b"hvc1", b"\x00" * 16, 20000, 20000, b"heicmif1heic")),
            f"{py}: heif_around('hvc1', 16 zero bytes, 20000x20000, brands heic)",
            code("image.too_many_pixels"),
            **det,
        )
    )
    ppv = _pypdf_version()
    pdf = {"deterministic": True, "requires": ppv}
    add(
        Fixture(
            "pdf_pypdf_one_page.pdf",
            _call(lambda: pypdf_pages(1)),
            f"{ppv}: PdfWriter().add_blank_page(72, 72); write()",
            mime("application/pdf"),
            **pdf,
        )
    )
    add(
        Fixture(
            "pdf_pypdf_three_pages.pdf",
            _call(lambda: pypdf_pages(3)),
            f"{ppv}: PdfWriter() with 3 blank pages",
            mime("application/pdf"),
            **pdf,
        )
    )
    add(
        Fixture(
            "pdf_pypdf_zero_pages.pdf",
            _call(lambda: pypdf_pages(0)),
            f"{ppv}: PdfWriter() with no pages; write()",
            code("pdf.no_pages"),
            **pdf,
        )
    )
    add(
        Fixture(
            "pdf_pypdf_encrypted.pdf",
            _call(pypdf_encrypted),
            f"{ppv}: 1 blank page, encrypt(user_password='secret', "
            "owner_password='owner', algorithm='RC4-128')",
            code("pdf.encrypted"),
        )
    )

    # ---- real encoders --------------------------------------------------------------
    fv = _tool_version("ffmpeg", lenient)

    def ff(
        name: str, inputs: list[str], codec: list[str], fmt: str, expected: dict[str, str]
    ) -> None:
        make, command = ffmpeg(inputs, codec, fmt, Path(name).suffix)
        seconds = _told(inputs, codec) if "mime" in expected else None
        add(Fixture(name, make, f"{fv}: {command}", expected, seconds=seconds))

    aac = ["-c:a", "aac", "-b:a", "32k"]
    refused = code("mime.not_allowed")
    h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    ff(
        "mp3_plain.mp3",
        _SINE,
        ["-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "0", "-write_xing", "0"],
        "mp3",
        mime("audio/mpeg"),
    )
    ff(
        "mp3_id3v2.mp3",
        _SINE,
        ["-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "3", "-metadata", "title=Fixture"],
        "mp3",
        mime("audio/mpeg"),
    )
    ff("mp2_layer2.mp2", _SINE, ["-c:a", "mp2", "-b:a", "64k"], "mp2", mime("audio/mpeg"))
    ff("aac_adts.aac", _SINE, aac, "adts", mime("audio/aac"))
    ff("flac.flac", _SINE, ["-c:a", "flac"], "flac", mime("audio/flac"))
    ff("ogg_vorbis.ogg", _SINE, ["-c:a", "libvorbis", "-q:a", "0"], "ogg", mime("audio/ogg"))
    ff("ogg_opus.opus", _SINE, ["-c:a", "libopus", "-b:a", "16k"], "ogg", mime("audio/ogg"))
    ff("ogg_flac.oga", _SINE, ["-c:a", "flac"], "ogg", mime("audio/ogg"))
    ff(
        "ogg_theora.ogv",
        _TESTSRC,
        ["-c:v", "libtheora", "-q:v", "1"],
        "ogg",
        code("mime.not_allowed"),
    )
    ff("m4a_ipod.m4a", _SINE, aac, "ipod", mime("audio/m4a"))
    ff("mp4_audio_only.mp4", _SINE, aac, "mp4", mime("audio/m4a"))
    ff("mp4_h264.mp4", _TESTSRC + _SINE, h264 + aac, "mp4", mime("video/mp4"))
    ff(
        "mp4_faststart.mp4",
        _TESTSRC + _SINE,
        h264 + aac + ["-movflags", "+faststart"],
        "mp4",
        mime("video/mp4"),
    )
    ff("mp4_video_only.mp4", _TESTSRC, h264, "mp4", mime("video/mp4"))
    ff("mov_mpeg4.mov", _TESTSRC + _SINE, ["-c:v", "mpeg4"] + aac, "mov", mime("video/mov"))
    ff(
        "video_3gp.3gp",
        ["-f", "lavfi", "-i", "testsrc=size=128x96:rate=10:duration=1"] + _SINE,
        ["-c:v", "h263", "-c:a", "aac", "-b:a", "24k", "-ar", "8000", "-ac", "1"],
        "3gp",
        mime("video/3gpp"),
    )
    ff(
        "avi_mpeg4.avi",
        _TESTSRC + _SINE,
        ["-c:v", "mpeg4", "-c:a", "pcm_s16le"],
        "avi",
        mime("video/avi"),
    )
    ff(
        "wmv_asf.wmv",
        _TESTSRC + _SINE,
        ["-c:v", "wmv2", "-c:a", "wmav2", "-b:a", "32k"],
        "asf",
        mime("video/wmv"),
    )
    ff("wma_asf.wma", _SINE, ["-c:a", "wmav2", "-b:a", "32k"], "asf", code("mime.not_allowed"))
    ff(
        "flv_flv1.flv",
        _TESTSRC + _SINE,
        ["-c:v", "flv1", "-c:a", "aac", "-b:a", "32k"],
        "flv",
        mime("video/x-flv"),
    )
    ff(
        "mpeg_ps.mpg",
        _TESTSRC25 + _SINE,
        ["-c:v", "mpeg1video", "-c:a", "mp2", "-b:a", "64k"],
        "mpeg",
        mime("video/mpeg"),
    )
    ff("mpeg_ts.ts", _TESTSRC25, ["-c:v", "mpeg2video"], "mpegts", code("mime.not_allowed"))
    ff("mpeg_es.m2v", _TESTSRC25, ["-c:v", "mpeg2video"], "mpeg2video", mime("video/mpeg"))
    ff(
        "webm_audio_only.webm",
        _SINE,
        ["-c:a", "libopus", "-b:a", "16k"],
        "webm",
        mime("audio/webm"),
    )
    ff(
        "webm_video.webm",
        _TESTSRC + _SINE,
        ["-c:v", "libvpx", "-b:v", "50k", "-c:a", "libopus", "-b:a", "16k"],
        "webm",
        mime("video/webm"),
    )
    ff(
        "mkv_matroska.mkv",
        _TESTSRC + _SINE,
        ["-c:v", "mpeg4", "-c:a", "flac"],
        "matroska",
        code("mime.not_allowed"),
    )
    ff("aiff_pcm.aiff", _SINE, ["-c:a", "pcm_s16be"], "aiff", mime("audio/aiff"))
    ff("wav_rf64.wav", _SINE, ["-c:a", "pcm_s16le", "-rf64", "always"], "wav", mime("audio/wav"))
    ff("avi_audio_only.avi", _SHORT_SINE, ["-c:a", "pcm_s16le"], "avi", refused)
    ff("ac3.ac3", _SHORT_SINE, ["-c:a", "ac3", "-ar", "48000", "-b:a", "64k"], "ac3", refused)
    ff("wave64.w64", _SHORT_SINE, ["-c:a", "pcm_u8"], "w64", refused)
    ff("voc.voc", _SHORT_SINE, ["-c:a", "pcm_u8"], "voc", refused)
    ff("h264_annexb.h264", _TESTSRC, [*h264, "-frames:v", "1"], "h264", refused)
    for name, fmt, expected in (
        ("wav_ffmpeg_pipe.wav", "wav", mime("audio/wav")),
        ("aiff_ffmpeg_pipe.aiff", "aiff", mime("audio/aiff")),
    ):
        args = ffmpeg_args(_SHORT_SINE, ["-c:a", "pcm_s16le" if fmt == "wav" else "pcm_s16be"], fmt)
        add(
            Fixture(
                name,
                piped([*args, "pipe:1"]),
                f"{fv}: {' '.join(args)} - | cat > out{Path(name).suffix} "
                "(written to a pipe: sizes left unset)",
                expected,
                seconds=0.25,
            )
        )

    sv = _tool_version("sox", lenient)
    sox = ["sox", "-D", "-n", "-r", "8000", "-c", "1", "-b", "16", "-e", "signed-integer"]
    aifc_args = [*sox, "-t", "aifc"]
    add(
        Fixture(
            "aifc_sox.aifc",
            lambda made, work: _sox(aifc_args, work),
            f"{sv}: {' '.join(aifc_args)} out.aifc synth 0.5 sine 440",
            mime("audio/aiff"),
            seconds=0.5,
        )
    )
    wav_pipe_args = [*sox, "-t", "wav", "-", "synth", "0.25", "sine", "440"]
    add(
        Fixture(
            "wav_sox_pipe.wav",
            piped(wav_pipe_args),
            f"{sv}: {' '.join(wav_pipe_args)} | cat > out.wav (written to a pipe)",
            mime("audio/wav"),
            seconds=0.25,
        )
    )
    rifx_args = [*sox, "-B", "-t", "wav"]
    add(
        Fixture(
            "wav_rifx.wav",
            lambda made, work: _sox(rifx_args, work, ".wav"),
            f"{sv}: {' '.join(rifx_args)} out.wav synth 0.5 sine 440 (big-endian: RIFX)",
            mime("audio/wav"),
            seconds=0.5,
        )
    )
    _av_policy(f, ff, fv, lenient)

    # ---- derived from encoder output --------------------------------------------------
    add(
        Fixture(
            "mp4_truncated.mp4",
            cut("mp4_h264.mp4", 0.5),
            f"{py}: first half of mp4_h264.mp4 (moov lost)",
            code("media.truncated"),
        )
    )
    add(
        Fixture(
            "mp4_largesize.mp4",
            mp4_largesize,
            f"{py}: mp4_h264.mp4 with free+mdat rewritten as a 64-bit largesize mdat",
            mime("video/mp4"),
        )
    )
    add(
        Fixture(
            "mp4_mdat_size0.mp4",
            mp4_mdat_size0,
            f"{py}: mp4_faststart.mp4 with the final mdat size set to 0 (to end)",
            mime("video/mp4"),
        )
    )
    add(
        Fixture(
            "mp3_big_cover.mp3",
            _concat(
                lambda: id3_tag(b"\x89PNG\r\n\x1a\n" + bytes(2 * 1024 * 1024)), "mp3_plain.mp3"
            ),
            f"{py}: ID3v2.3 tag with a 2 MiB APIC frame + mp3_plain.mp3",
            mime("audio/mpeg"),
        )
    )
    add(
        Fixture(
            "id3_flac.flac",
            _concat(lambda: id3_tag(), "flac.flac"),
            f"{py}: ID3v2.3 tag + flac.flac",
            mime("audio/flac"),
        )
    )
    add(
        Fixture(
            "id3_aac.aac",
            _concat(lambda: id3_tag(), "aac_adts.aac"),
            f"{py}: ID3v2.3 tag + aac_adts.aac",
            mime("audio/aac"),
        )
    )
    add(
        Fixture(
            "mp3_zip_appended.mp3",
            _concat("mp3_plain.mp3", zip_archive),
            f"{py}: mp3_plain.mp3 + zipfile archive",
            code("media.polyglot"),
        )
    )

    hv = "pillow-heif " + _module_version("pillow_heif", lenient)
    add(
        Fixture(
            "heic_x265.heic",
            _call(heic_pillow_heif),
            f"{hv}: from_pillow(64x48 RGB).save(fp, format='HEIF', quality=30)",
            mime("image/heic"),
        )
    )
    add(
        Fixture(
            "avif_pillow.avif",
            _call(lambda: pillow("AVIF", quality=30)),
            f"{pv}: .save(fp, 'AVIF', quality=30) (libavif)",
            code("mime.not_allowed"),
        )
    )
    add(
        Fixture(
            "avif_mif1_brand.heif",
            rebrand("avif_pillow.avif", b"mif1"),
            f"{py}: avif_pillow.avif with the major brand rewritten to mif1",
            code("mime.not_allowed"),
        )
    )
    _image_damage(f, pil, pv)
    _pdf_damage(f, lenient)
    return f


def _av_policy(f: list[Fixture], ff: Callable[..., None], fv: str, lenient: bool) -> None:
    """Audio and video: fragments, init segments, files cut short, joined and VBR MP3,
    compressed AIFF-C, and formats outside the API's lists named."""
    py = "python testdata/generate.py"
    h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    aac = ["-c:a", "aac", "-b:a", "32k"]
    frag = ["-movflags", "frag_every_frame+empty_moov+default_base_moof"]
    cmaf = ["-g", "5", "-movflags", "cmaf+frag_keyframe+empty_moov+default_base_moof"]
    ff("mp4_fragmented.mp4", _TESTSRC + _SINE, h264 + aac + frag, "mp4", {"mime": "video/mp4"})
    ff("mp4_cmaf.mp4", _TESTSRC, h264 + cmaf, "mp4", {"mime": "video/mp4"})
    ff(
        "aifc_ima4.aifc",
        _SINE,
        ["-c:a", "adpcm_ima_qt"],
        "aiff",
        {"mime": "audio/aiff"},
    )
    lame = ["-c:a", "libmp3lame", "-id3v2_version", "0"]
    ff("mp3_2s.mp3", _sine_input(2), [*lame, "-b:a", "32k"], "mp3", {"mime": "audio/mpeg"})
    ff(
        "mp3_vbr_no_info.mp3",
        _sine_input(3),
        [*lame, "-q:a", "5", "-write_xing", "0"],
        "mp3",
        {"mime": "audio/mpeg"},
    )
    refused = {"code": "mime.not_allowed"}
    one = ["-frames:v", "1"]
    ff("tga_ffmpeg.tga", _TESTSRC, one, "image2", refused)
    ff("pcx_ffmpeg.pcx", _TESTSRC, one, "image2", refused)
    ff("y4m_ffmpeg.y4m", _TESTSRC, [*one, "-pix_fmt", "yuv420p"], "yuv4mpegpipe", refused)
    ff("ivf_vp8.ivf", _TESTSRC, ["-c:v", "libvpx", "-b:v", "50k", *one], "ivf", refused)
    ff("mxf_mpeg2.mxf", _TESTSRC25, ["-c:v", "mpeg2video", "-frames:v", "2"], "mxf", refused)
    ff(
        "dv_ntsc.dv",
        ["-f", "lavfi", "-i", "testsrc=size=720x480:rate=30000/1001:duration=1"],
        ["-target", "ntsc-dv", *one],
        "dv",
        refused,
    )
    ff(
        "dts.dts",
        _SHORT_SINE,
        ["-c:a", "dca", "-strict", "-2", "-ar", "48000", "-ac", "2"],
        "dts",
        refused,
    )
    incomplete = ("media.incomplete",)
    derived: list[tuple[str, Callable[[Made, Path], bytes], str, dict[str, str]]] = [
        (
            "mp4_init_segment.mp4",
            init_segment,
            "mp4_fragmented.mp4 up to its first moof",
            {"code": "media.no_samples"},
        ),
        (
            "mp4_faststart_cut.mp4",
            cut("mp4_faststart.mp4", 0.6),
            "first 60% of mp4_faststart.mp4 (moov whole, mdat cut)",
            {"mime": "video/mp4"},
        ),
        (
            "mp4_fragmented_cut.mp4",
            lambda m, w: m["mp4_fragmented.mp4"][:-700],
            "mp4_fragmented.mp4 less its last 700 bytes (the last fragment cut)",
            {"mime": "video/mp4"},
        ),
        (
            "wav_cut.wav",
            cut("wav_pcm16.wav", 0.6),
            "first 60% of wav_pcm16.wav",
            {"mime": "audio/wav"},
        ),
        (
            "wav_bw64.wav",
            lambda m, w: b"BW64" + m["wav_rf64.wav"][4:],
            "wav_rf64.wav with the BW64 form (ITU-R BS.2088)",
            {"mime": "audio/wav"},
        ),
        (
            "mp3_joined.mp3",
            _concat("mp3_id3v2.mp3", "mp3_2s.mp3"),
            "mp3_id3v2.mp3 + mp3_2s.mp3 (cat: two streams, each with an Info frame)",
            {"mime": "audio/mpeg"},
        ),
    ]
    warned = {"mp4_faststart_cut.mp4", "mp4_fragmented_cut.mp4", "wav_cut.wav"}
    told = {"wav_bw64.wav": 1.0, "mp3_joined.mp3": 3.0, "wav_cut.wav": 0.3}
    for name, make, how, expected in derived:
        warnings = incomplete if name in warned else ()
        f.append(
            Fixture(name, make, f"{py}: {how}", expected, warnings=warnings, seconds=told.get(name))
        )


def _sine_input(seconds: float) -> list[str]:
    return ["-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds:g}:sample_rate=22050"]


def init_segment(made: Made, work: Path) -> bytes:
    """A fragmented MP4 up to its first fragment: the initialization segment DASH serves."""
    data = made["mp4_fragmented.mp4"]
    return data[: data.index(b"moof") - 4]


def _image_damage(f: list[Fixture], pil: dict[str, object], pv: str) -> None:
    """Images cut short: what the decoders still show is a warning, nothing to show an error.

    ffmpeg and ImageMagick (libjpeg) show a JPEG cut in its scan data; nothing shows one cut
    before it. ffmpeg shows a PNG that ends after a whole IDAT without IEND; libpng and
    ffmpeg show none cut inside a chunk. ffmpeg shows a GIF cut after a whole data
    sub-block, none cut inside one. Nothing shows a BMP whose pixel rows are cut.
    """
    py = "python testdata/generate.py"
    incomplete = ("media.incomplete",)
    made_from = [
        ("jpeg_no_eoi.jpg", lambda m, w: m["jpeg_baseline.jpg"][:-2], "jpeg_baseline.jpg less EOI"),
        (
            "jpeg_cut_in_scan.jpg",
            jpeg_scan_cut("jpeg_baseline.jpg", 0.5),
            "jpeg_baseline.jpg with half its scan data",
        ),
        ("png_no_iend.png", lambda m, w: m["png_pillow.png"][:-12], "png_pillow.png less IEND"),
        ("gif_no_trailer.gif", lambda m, w: m["gif_pillow.gif"][:-1], "gif_pillow.gif less 0x3B"),
        (
            "gif_cut_after_sub_block.gif",
            gif_sub_block_cut("gif_pillow.gif", inside=False),
            "gif_pillow.gif cut after its first whole data sub-block",
        ),
    ]
    for name, make, how in made_from:
        f.append(
            Fixture(
                name, make, f"{pv}: {how}", {"mime": _MIME[name[-3:]]}, **pil, warnings=incomplete
            )
        )
    refused = [
        (
            "jpeg_scan_header_only.jpg",
            jpeg_scan_cut("jpeg_baseline.jpg", None),
            "jpeg_baseline.jpg cut right after its scan header",
        ),
        (
            "gif_cut_in_sub_block.gif",
            gif_sub_block_cut("gif_pillow.gif", inside=True),
            "gif_pillow.gif cut one byte before its first data sub-block ends",
        ),
        ("bmp_pixels_cut.bmp", bmp_pixels_cut, "bmp_pillow.bmp with 16 of its 24 rows"),
    ]
    for name, make, how in refused:
        f.append(Fixture(name, make, f"{py}: {how}", {"code": "media.truncated"}, **pil))


_MIME = {"jpg": "image/jpeg", "png": "image/png", "gif": "image/gif"}


def _pdf_damage(f: list[Fixture], lenient: bool) -> None:
    """PDF ends, page trees and encryption, as poppler, qpdf and pypdf read them."""
    py = "python testdata/generate.py"
    det: dict[str, object] = {"deterministic": True}
    damaged = ("pdf.damaged",)
    pdf_ok = {"mime": "application/pdf"}
    f.append(
        Fixture(
            "pdf_nul_padded.pdf",
            _concat("pdf_minimal.pdf", b"\x00" * 2048),
            f"{py}: pdf_minimal.pdf + 2048 NUL bytes (%%EOF before the last 1024 bytes)",
            pdf_ok,
            **det,
            warnings=damaged,
        )
    )
    f.append(
        Fixture(
            "pdf_header_at_2000.pdf",
            _concat(b"JUNK" * 500, "pdf_minimal.pdf"),
            f"{py}: 2000 junk bytes + pdf_minimal.pdf (%PDF- past the 1024-byte window)",
            pdf_ok,
            **det,
            warnings=damaged,
            evidence={"offset": 2000},
        )
    )
    f.append(
        Fixture(
            "pdf_no_eof_marker.pdf",
            _call(pdf_without_eof_marker),
            f"{py}: pdf_minimal(1) without its final %%EOF line",
            pdf_ok,
            **det,
            warnings=damaged,
        )
    )
    for name, (objects, how) in PAGE_TREES.items():
        accepted = name in ("pdf_count_lies.pdf", "pdf_leaf_without_type.pdf")
        f.append(
            Fixture(
                name,
                _call(lambda objects=objects: pdf_objects(objects)),
                f"{py}: pdf_objects(...): {how}",
                pdf_ok if accepted else {"code": "pdf.no_pages"},
                **det,
                warnings=damaged if name == "pdf_count_lies.pdf" else (),
                evidence={"pages": 1, "pages_exact": True} if accepted else {},
            )
        )
    qv = _tool_version("qpdf", lenient)
    for name, args, expected in (
        (
            "pdf_owner_rc4.pdf",
            ("--allow-weak-crypto", "--encrypt", "", "owner", "128", "--use-aes=n", "--"),
            pdf_ok,
        ),
        (
            "pdf_owner_rc4_no_print.pdf",
            (
                "--allow-weak-crypto",
                "--encrypt",
                "",
                "owner",
                "128",
                "--use-aes=n",
                "--print=none",
                "--extract=n",
                "--",
            ),
            pdf_ok,
        ),
        (
            "pdf_owner_aes128.pdf",
            ("--static-aes-iv", "--encrypt", "", "owner", "128", "--use-aes=y", "--"),
            pdf_ok,
        ),
        (
            "pdf_owner_aes256.pdf",
            ("--static-aes-iv", "--encrypt", "", "owner", "256", "--"),
            pdf_ok,
        ),
        (
            "pdf_user_aes256.pdf",
            ("--static-aes-iv", "--encrypt", "user", "owner", "256", "--"),
            {"code": "pdf.encrypted"},
        ),
    ):
        make, command = qpdf("pdf_minimal.pdf", *args)
        evidence = {"encrypted": True, "pages": 1} if "mime" in expected else {}
        f.append(Fixture(name, make, f"{qv}: {command}", expected, evidence=evidence))
    gv = _tool_version("gs", lenient)
    f.append(
        Fixture(
            "pdf_ghostscript.pdf",
            ghostscript_pages,
            f"{gv}: gs -q -dNOPAUSE -dBATCH -sDEVICE=pdfwrite -sOutputFile=out.pdf -c '{PAGES_PS}'",
            pdf_ok,
            evidence={"pages": 12, "pages_exact": False},
        )
    )
    make, command = qpdf("pdf_ghostscript.pdf", "--object-streams=generate")
    f.append(
        Fixture(
            "pdf_object_streams.pdf",
            make,
            f"{qv}: {command} (a cross-reference stream, objects in object streams)",
            pdf_ok,
            evidence={"pages": 12, "pages_exact": False},
        )
    )


def _told(inputs: list[str], codec: list[str]) -> float | None:
    """The duration the lavfi sources were given (the shortest), or one frame's."""
    if "-frames:v" in codec:
        return None
    told = [float(arg.split("duration=")[1].split(":")[0]) for arg in inputs if "duration=" in arg]
    return min(told) if told else None


def _sox(args: list[str], work: Path, suffix: str = ".aifc") -> bytes:
    out = work / f"out{suffix}"
    subprocess.run(
        [*args, str(out), "synth", "0.5", "sine", "440"], check=True, capture_output=True
    )
    data = out.read_bytes()
    out.unlink()
    return data


def _module_version(name: str, lenient: bool) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name.replace("_", "-"))
    except PackageNotFoundError:
        if lenient:
            return "(not installed)"
        raise SystemExit(f"{name} is not installed; pip install {name.replace('_', '-')}") from None


def fixtures(*, only_deterministic: bool = False, lenient: bool = False) -> list[Fixture]:
    """Return the fixture table in making order (sources before what derives from them)."""
    if only_deterministic:
        return [f for f in _fixtures(lenient=True) if f.deterministic]
    return _fixtures(lenient)


def generate(
    out: Path, *, only_deterministic: bool = False, only: tuple[str, ...] = ()
) -> list[dict[str, object]]:
    """Write the fixtures into ``out`` and return their manifest entries, sorted by name.

    With ``only`` (shell patterns), the fixtures whose names match are made and the others
    are read from ``out`` where a derived fixture needs them, so new fixtures can be added
    without making the rest again (and without the tools the rest need).
    """
    table = fixtures(only_deterministic=only_deterministic, lenient=bool(only))
    out.mkdir(parents=True, exist_ok=True)
    made: Made = _Existing(out) if only else {}
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in table:
            if only and not any(fnmatch.fnmatch(fixture.name, p) for p in only):
                continue
            data = fixture.make(made, Path(tmp))
            made[fixture.name] = data
            (out / fixture.name).write_bytes(data)
            entries.append(_entry(fixture, data))
    return sorted(entries, key=lambda e: str(e["name"]))


class _Existing(dict[str, bytes]):
    """Fixtures made in this run, and the ones already in a folder, read when needed."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def __missing__(self, name: str) -> bytes:
        data = (self.folder / name).read_bytes()
        self[name] = data
        return data


def _entry(fixture: Fixture, data: bytes) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": fixture.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "made_by": fixture.made_by,
        "deterministic": fixture.deterministic,
        "expected": fixture.expected,
    }
    if fixture.requires:
        entry["requires"] = fixture.requires
    if fixture.declared:
        entry["declared"] = fixture.declared
    if fixture.warnings:
        entry["expected"] = {**fixture.expected, "warnings": list(fixture.warnings)}
    if fixture.evidence:
        entry["evidence"] = fixture.evidence
    if fixture.seconds is not None:
        entry["seconds"] = fixture.seconds
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MEDIA, help="folder to write the files into")
    parser.add_argument(
        "--only-deterministic", action="store_true", help="only the reproducible files"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=(),
        metavar="PATTERN",
        help="make only the fixtures whose names match; the manifest keeps the others",
    )
    args = parser.parse_args(argv)
    only = tuple(args.only)
    entries = generate(args.out, only_deterministic=args.only_deterministic, only=only)
    if args.out.resolve() == MEDIA.resolve() and not args.only_deterministic:
        if only:
            made = {str(e["name"]) for e in entries}
            kept = json.loads(MANIFEST.read_text("utf-8"))
            entries = sorted(
                [e for e in kept if e["name"] not in made] + entries,
                key=lambda e: str(e["name"]),
            )
        text = json.dumps(entries, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        MANIFEST.write_text(text, encoding="utf-8")
    total = sum(int(str(e["size"])) for e in entries)
    print(f"{len(entries)} files, {total} bytes in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
