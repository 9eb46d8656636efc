"""Long files of each family, made from the committed fixtures.

The fixtures are short (a second, a page). Long ones are made here, at test and benchmark
time, so nothing large is committed: by repeating a fixture's own structure (10,000 MP4
fragments, 20,000 Ogg pages, an hour of MP3 frames, 300,000 PDF objects, thousands of PNG
chunks), or as a :class:`Sparse` stream of a gigabyte whose few real parts (headers, an
index at the end) hold the structure a sniffer reads, the rest zeros that cost no memory.
Each long file sniffs as its short fixture does.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from decisions_input._streams import ReadOnlyStream

MEDIA = Path(__file__).resolve().parent.parent / "testdata" / "media"
GIB = 1 << 30

__all__ = ["GIB", "LONG", "Counting", "Sparse", "long_files", "long_pdf_objects", "media"]


def media(name: str) -> bytes:
    return (MEDIA / name).read_bytes()


class Sparse(ReadOnlyStream):
    """A read-only stream of ``size`` bytes: the given parts at their offsets, zeros between."""

    def __init__(self, size: int, parts: list[tuple[int, bytes]]) -> None:
        super().__init__(size)
        self.parts = sorted(parts)

    def _read_at(self, pos: int, n: int) -> bytes:
        out = bytearray(n)
        for at, data in self.parts:
            lo, hi = max(pos, at), min(pos + n, at + len(data))
            if lo < hi:
                out[lo - pos : hi - pos] = data[lo - at : hi - at]
        return bytes(out)


class Counting(ReadOnlyStream):
    """A read-only view of a stream that counts the reads and bytes asked of it."""

    def __init__(self, inner: ReadOnlyStream | io.BytesIO, size: int) -> None:
        super().__init__(size)
        self.inner = inner
        self.reads = 0
        self.bytes_read = 0

    def _read_at(self, pos: int, n: int) -> bytes:
        self.inner.seek(pos)
        data = self.inner.read(n)
        self.reads += 1
        self.bytes_read += len(data)
        return data


def _box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def _top_boxes(data: bytes) -> list[tuple[bytes, int, int]]:
    out, off = [], 0
    while off + 8 <= len(data):
        (size,) = struct.unpack(">I", data[off : off + 4])
        out.append((data[off + 4 : off + 8], off, off + size))
        off += size
    return out


# --- ISO BMFF -------------------------------------------------------------------------


def sparse_mp4(size: int) -> Sparse:
    """ftyp, a 64-bit mdat over almost everything, and the real moov at the very end."""
    data = media("mp4_faststart.mp4")
    boxes = {kind: data[a:b] for kind, a, b in _top_boxes(data)}
    ftyp, moov = boxes[b"ftyp"], boxes[b"moov"]
    mdat_size = size - len(ftyp) - len(moov)
    head = ftyp + struct.pack(">I4sQ", 1, b"mdat", mdat_size)
    return Sparse(size, [(0, head), (size - len(moov), moov)])


def fragmented_mp4(fragments: int) -> bytes:
    """mp4_cmaf.mp4 (video, a fragment per 5 frames) repeated to ``fragments`` fragments.

    Each repeat shifts the decode times (tfdt) by the span of the fixture and renumbers
    the fragments, so the file plays on: ``fragments / 2`` seconds.
    """
    data = media("mp4_cmaf.mp4")
    boxes = _top_boxes(data)
    head = b"".join(data[a:b] for kind, a, b in boxes if kind in (b"ftyp", b"moov"))
    pairs = [
        (data[a:b], data[b : b + struct.unpack(">I", data[b : b + 4])[0]])
        for kind, a, b in boxes
        if kind == b"moof"
    ]
    span = _tfdt(pairs[-1][0]) - _tfdt(pairs[0][0]) + (_tfdt(pairs[1][0]) - _tfdt(pairs[0][0]))
    out = bytearray(head)
    for n in range(fragments):
        moof, mdat = pairs[n % len(pairs)]
        moof = _retime(moof, n + 1, (n // len(pairs)) * span)
        out += moof + mdat
    return bytes(out)


def _tfdt(moof: bytes) -> int:
    at = moof.index(b"tfdt")
    version = moof[at + 4]
    return int.from_bytes(moof[at + 8 : at + (16 if version == 1 else 12)], "big")


def _retime(moof: bytes, sequence: int, shift: int) -> bytes:
    out = bytearray(moof)
    at = moof.index(b"mfhd")
    out[at + 8 : at + 12] = sequence.to_bytes(4, "big")
    at = moof.index(b"tfdt")
    width = 8 if moof[at + 4] == 1 else 4
    out[at + 8 : at + 8 + width] = (_tfdt(moof) + shift).to_bytes(width, "big")
    return bytes(out)


# --- RIFF and IFF -----------------------------------------------------------------------


def sparse_wav(size: int) -> Sparse:
    head = media("wav_pcm16.wav")[:44]
    head = head[:4] + struct.pack("<I", size - 8) + head[8:40] + struct.pack("<I", size - 44)
    return Sparse(size, [(0, head)])


def sparse_aiff(size: int) -> Sparse:
    data = media("aiff_pcm.aiff")
    at = data.index(b"SSND")
    frames = (size - at - 16) // 2
    head = bytearray(data[: at + 16])
    head[4:8] = struct.pack(">I", size - 8)
    comm = data.index(b"COMM")
    head[comm + 10 : comm + 14] = struct.pack(">I", frames)
    head[at + 4 : at + 8] = struct.pack(">I", size - at - 8)
    return Sparse(size, [(0, bytes(head))])


def sparse_avi(size: int) -> Sparse:
    """avi_mpeg4.avi with a JUNK chunk of the rest of ``size`` after its header list."""
    data = media("avi_mpeg4.avi")
    at = data.index(b"LIST", 12)
    (hdrl_size,) = struct.unpack("<I", data[at + 4 : at + 8])
    end = at + 8 + hdrl_size
    head = bytearray(data[:end])
    head[4:8] = struct.pack("<I", size - 8)
    junk = b"JUNK" + struct.pack("<I", size - end - 8)
    return Sparse(size, [(0, bytes(head)), (end, junk)])


# --- EBML, ASF, FLV, FLAC: a header, then media data of any length --------------------


def sparse_after(name: str, size: int) -> Sparse:
    """The fixture, then zeros: the sniffer reads only its header and its first packets."""
    return Sparse(size, [(0, media(name))])


# --- Ogg ----------------------------------------------------------------------------------


def _ogg_crc_table() -> list[int]:
    table = []
    for i in range(256):
        r = i << 24
        for _ in range(8):
            r = ((r << 1) ^ 0x04C11DB7) if r & 0x80000000 else r << 1
        table.append(r & 0xFFFFFFFF)
    return table


_OGG_CRC = _ogg_crc_table()


def _ogg_crc(page: bytes) -> int:
    crc = 0
    for byte in page:
        crc = ((crc << 8) ^ _OGG_CRC[((crc >> 24) & 0xFF) ^ byte]) & 0xFFFFFFFF
    return crc


def _ogg_pages(data: bytes) -> list[bytes]:
    pages, off = [], 0
    while off + 27 <= len(data):
        nseg = data[off + 26]
        end = off + 27 + nseg + sum(data[off + 27 : off + 27 + nseg])
        pages.append(data[off:end])
        off = end
    return pages


def long_ogg(pages: int) -> bytes:
    """ogg_vorbis.ogg with its audio pages repeated to ``pages`` pages, granules running on."""
    source = _ogg_pages(media("ogg_vorbis.ogg"))
    headers, audio = source[:3], source[3:]
    last = struct.unpack_from("<q", audio[-1], 6)[0]
    out, sequence = bytearray(b"".join(headers)), 3
    for n in range(pages):
        page = bytearray(audio[n % len(audio)])
        granule = struct.unpack_from("<q", page, 6)[0] + (n // len(audio)) * last
        page[5] = 0x04 if n == pages - 1 else 0  # end of stream on the last page only
        page[6:14] = struct.pack("<q", granule)
        page[18:22] = struct.pack("<I", sequence)
        page[22:26] = b"\x00\x00\x00\x00"
        page[22:26] = struct.pack("<I", _ogg_crc(bytes(page)))
        out += page
        sequence += 1
    return bytes(out)


# --- MPEG audio ---------------------------------------------------------------------------


def long_mp3(name: str, seconds: int) -> bytes:
    """An MP3 without an info frame, its frames repeated to about ``seconds`` seconds."""
    data = media(name)
    return data * seconds


# --- images -------------------------------------------------------------------------------


def png_many_chunks(chunks: int) -> bytes:
    """png_pillow.png with its image data split into ``chunks`` IDAT chunks (a valid PNG)."""
    data = media("png_pillow.png")
    at = data.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", data[at : at + 4])
    stream = data[at + 8 : at + 8 + length]
    piece = max(1, len(stream) // chunks)
    parts = [stream[i : i + piece] for i in range(0, len(stream), piece)]
    parts += [b""] * max(0, chunks - len(parts))  # empty IDAT chunks are allowed

    def chunk(body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + b"IDAT"
            + body
            + struct.pack(">I", zlib.crc32(b"IDAT" + body))
        )

    return data[:at] + b"".join(chunk(p) for p in parts) + data[at + 12 + length :]


def sparse_bmp(width: int, height: int) -> Sparse:
    """A 24-bit BMP header for ``width`` x ``height``; its pixel rows all there (zeros)."""
    stride = (24 * width + 31) // 32 * 4
    size = 54 + stride * height
    head = b"BM" + struct.pack("<IIII", size, 0, 54, 40)
    head += struct.pack("<iiHHIIiiII", width, height, 1, 24, 0, stride * height, 2835, 2835, 0, 0)
    return Sparse(size, [(0, head)])


def long_gif(frames: int) -> bytes:
    """An animated GIF of ``frames`` frames (Pillow)."""
    from PIL import Image

    pictures = []
    for i in range(frames):  # frames that differ, so that none is merged into another
        picture = Image.new("P", (32, 24), 0)
        picture.putpixel((i % 32, (i // 32) % 24), 1 + i % 250)
        pictures.append(picture)
    out = io.BytesIO()
    pictures[0].save(out, "GIF", save_all=True, append_images=pictures[1:], duration=40)
    return out.getvalue()


# --- PDF ----------------------------------------------------------------------------------


def long_pdf_objects(count: int, *, pages: int = 1) -> bytes:
    """A PDF of ``pages`` pages padded with ``count`` filler objects (a correct xref table)."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"] * pages,
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    first_filler = len(objects) + 1
    for number in range(first_filler, first_filler + count):
        offsets.append(len(out))
        out += b"%d 0 obj\n<< /Filler true >>\nendobj\n" % number
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(offsets) + 1)
    return bytes(out + b"startxref\n%d\n%%%%EOF\n" % xref)


# --- the table ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Long:
    """A family's short fixture and how to make a long file of it."""

    family: str
    short: str
    make: Callable[[], bytes | Sparse]
    seconds: float | None = None  # the long file's duration, when it has one


LONG: list[Long] = [
    Long("PNG", "png_pillow.png", lambda: png_many_chunks(20_000)),
    Long("GIF", "gif_animated.gif", lambda: long_gif(500)),
    Long("BMP", "bmp_pillow.bmp", lambda: sparse_bmp(8000, 8000)),
    Long("WAVE", "wav_pcm16.wav", lambda: sparse_wav(GIB), (GIB - 44) / 16000),
    Long("AIFF", "aiff_pcm.aiff", lambda: sparse_aiff(GIB)),
    Long("AVI", "avi_mpeg4.avi", lambda: sparse_avi(GIB), 1.0),
    Long("MP4", "mp4_faststart.mp4", lambda: sparse_mp4(GIB), 1.0),
    Long("MP4 fragments", "mp4_cmaf.mp4", lambda: fragmented_mp4(10_000), 5000.0),
    Long("WebM", "webm_video.webm", lambda: sparse_after("webm_video.webm", GIB)),
    Long("Ogg", "ogg_vorbis.ogg", lambda: long_ogg(20_000)),
    Long("FLAC", "flac.flac", lambda: sparse_after("flac.flac", GIB)),
    # an hour of 1.071 s files, joined: counted in the walk, then estimated (constant rate)
    Long("MP3", "mp3_plain.mp3", lambda: long_mp3("mp3_plain.mp3", 3600), 3600 * 1.071),
    Long("ASF", "wmv_asf.wmv", lambda: sparse_after("wmv_asf.wmv", GIB)),
    Long("FLV", "flv_flv1.flv", lambda: sparse_after("flv_flv1.flv", GIB)),
    Long("MPEG-PS", "mpeg_ps.mpg", lambda: media("mpeg_ps.mpg") * 200),
    Long("PDF", "pdf_minimal.pdf", lambda: long_pdf_objects(300_000)),
    Long("PDF pages", "pdf_pypdf_three_pages.pdf", lambda: long_pdf_objects(0, pages=5000)),
    Long("PDF Ghostscript", "pdf_ghostscript.pdf", lambda: long_pdf_objects(0, pages=500)),
    Long("PDF objstm", "pdf_object_streams.pdf", lambda: long_pdf_objects(30_000, pages=50)),
]


def long_files() -> list[tuple[str, bytes]]:
    """The long files held in memory (not the sparse ones), for the fuzzer."""
    made = [(entry.family, entry.make()) for entry in LONG if "Sparse" not in repr(entry.make)]
    return [(name, data) for name, data in made if isinstance(data, bytes)]
