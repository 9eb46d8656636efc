"""RIFF and IFF forms: WAVE (RIFF, RIFX, RF64, BW64), AVI, AIFF and AIFF-C; other forms named.

WebP is a RIFF form too, read with the still images. Decisions, checked with ffmpeg:

* **WAVE in all its shells.** Big-endian RIFX WAVE and the 64-bit RF64 and BW64 forms are
  opened by ffmpeg's ``wav`` demuxer like RIFF WAVE: ``audio/wav``. Sony Wave64 is
  another container (``w64``) and is refused.
* **Declared lengths.** A length read from a header never reaches past the bytes
  present: the WAVE ``data`` size (RF64 and BW64: the ``ds64`` size), AIFF's frame count
  and ``SSND`` size are capped by what the file holds, so ``duration_s`` is too. A file
  cut inside its samples plays as far as it goes (``media.incomplete``, a warning). A
  size a streaming writer left unset (``0`` or ``0xFFFFFFFF`` in a form whose own size is
  unset, as ffmpeg and sox write to a pipe) runs to the end of the file, and so does a
  size of 2 GiB or more in a shorter file (sox's placeholder). With
  ``partial=True`` a length the head cannot confirm gives no duration.
* **Compressed AIFF-C.** ``COMM`` counts packets, not samples, for block codings: IMA
  ADPCM (``ima4``, 64 samples in 34 bytes per channel), MACE 3:1 and 6:1, GSM 6.10, as
  ffmpeg reads them. A coding the library has no packet size for gives no duration.
* **AVI.** The main header (``avih``) gives frames and microseconds per frame; an
  OpenDML file's ``dmlh`` gives the frames of all its RIFF parts. An AVI must list a
  video stream: audio-only AVI is refused as ``mime.not_allowed``, one with no audio or
  video stream as ``media.no_tracks``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from .base import (
    Broken,
    Detected,
    Format,
    Source,
    after_end,
    damaged,
    found,
    not_allowed,
    refused,
    unpack,
)

__all__ = ["AIFF", "FORMATS", "RIFF"]

_WAVE_SHELLS = {b"RIFF": "WAVE", b"RIFX": "RIFX WAVE", b"RF64": "RF64 WAVE", b"BW64": "BW64 WAVE"}


def _chunks(src: Source, start: int, end: int, endian: str) -> Iterator[tuple[bytes, int, int]]:
    off = start
    while off + 8 <= end:
        src.step()
        header = src.need(off, 8)
        (size,) = struct.unpack(endian + "I", header[4:])
        yield header[:4], off + 8, size
        off += 8 + size + (size & 1)


def _riff(src: Source) -> Detected:
    magic, form = src.head[:4], src.head[8:12]
    endian = ">" if magic == b"RIFX" else "<"
    (size,) = struct.unpack(endian + "I", src.need(4, 4))
    streamed = size in (0, 0xFFFFFFFF)
    end = src.size if streamed or magic in (b"RF64", b"BW64") else 8 + size + (size & 1)
    if form == b"WAVE":
        det = _wave(src, magic, min(end, src.size), streamed=streamed)
        return after_end(src, end, det)
    if magic != b"RIFF":
        return not_allowed(f"{magic.decode('latin-1')} {form.decode('latin-1')}", "audio")
    if form == b"AVI ":
        return after_end(src, end, _avi(src))
    name = form.decode("latin-1").strip() or "?"
    return not_allowed(f"RIFF {name}", None, container="RIFF", form=name)


_WAVE_CODECS = {1: "pcm", 3: "float", 6: "alaw", 7: "mulaw", 0x55: "mp3", 0xFFFE: "extensible"}


def _wave(src: Source, magic: bytes, end: int, *, streamed: bool) -> Detected:
    endian = ">" if magic == b"RIFX" else "<"
    fmt_info: tuple[int, int, int, int, int] | None = None
    data: tuple[int, int] | None = None
    ds64 = None
    for cid, body, size in _chunks(src, 12, end, endian):
        if cid == b"ds64":
            ds64 = struct.unpack("<QQ", src.need(body, 16))[1]
        elif cid == b"fmt ":
            tag, channels, rate, byte_rate, _align, bits = struct.unpack(
                endian + "HHIIHH", src.need(body, 16)
            )
            fmt_info = (tag, channels, rate, byte_rate, bits)
        elif cid == b"data":
            declared = ds64 if size == 0xFFFFFFFF and ds64 is not None else size
            unset = streamed and declared in (0, 0xFFFFFFFF)
            data = (body, _UNTIL_END if unset else declared)
            break
    fmt = _WAVE_SHELLS[magic]
    if fmt_info is None or data is None:
        missing = "fmt " if fmt_info is None else "data"
        raise Broken("media.truncated", f"expected a {missing!r} chunk in {fmt}, found none")
    tag, channels, rate, byte_rate, bits = fmt_info
    data_size = _present(src, *data)
    duration = round(data_size / byte_rate, 3) if byte_rate and data_size is not None else None
    codec = _WAVE_CODECS.get(tag, hex(tag))
    det = found(
        "audio/wav",
        fmt,
        f"{fmt} audio, {codec}, {rate} Hz, {channels} channel(s)",
        container="RIFF",
        codecs=(codec,),
        sample_rate=rate,
        channels=channels,
        bits=bits,
        duration_s=duration,
    )
    return _cut_short(src, data, det, "data")


_UNTIL_END = 1 << 64  # a size a streaming writer left unset: the data runs to the end
# Writers to a pipe put the largest size they can in a length they cannot go back to fix
# (ffmpeg 0xFFFFFFFF, sox 0x7FFFF000); a size this large in a shorter file is taken for
# one, not for a file cut short.
_PLACEHOLDER = 0x7FFF0000


def _present(src: Source, start: int, declared: int) -> int | None:
    """Return how many of the ``declared`` bytes from ``start`` the file really holds.

    A header's length is never trusted past the end of the file. For a partial head
    that ends before the declared bytes do, the true count is unknown: None.
    """
    available = max(0, src.size - start)
    if declared <= available:
        return declared
    return None if src.partial else available


def _cut_short(src: Source, chunk: tuple[int, int] | None, det: Detected, name: str) -> Detected:
    """Warn when the samples chunk declares more bytes than the file holds."""
    if chunk is None or src.partial:
        return det
    start, declared = chunk
    if start + declared <= src.size or declared >= _PLACEHOLDER:
        return det
    return damaged(
        det,
        "media.incomplete",
        f"expected {declared} bytes in the {name!r} chunk, found {max(0, src.size - start)}; "
        "decoders play the samples there are",
    )


def _avi(src: Source) -> Detected:
    hdrl = None
    for cid, body, size in _chunks(src, 12, src.size, "<"):
        if cid == b"LIST" and src.need(body, 4) == b"hdrl":
            want = min(max(0, size - 4), 1 << 16)
            hdrl = src.at(body + 4, want)
            if len(hdrl) < want and not src.partial:
                raise Broken("media.truncated", "expected the AVI header list whole, found end")
            break
    if hdrl is None:
        raise Broken("media.truncated", "expected an hdrl list in AVI, found none")
    header = _avi_header(hdrl)
    ev: dict[str, object] = {
        "container": "RIFF",
        "tracks": tuple(header.kinds),
        "width": header.width or None,
        "height": header.height or None,
        "duration_s": header.seconds,
    }
    if "video" not in header.kinds:
        if "audio" in header.kinds:
            return not_allowed("AVI (audio only)", "audio", **ev)
        return refused(
            "media.no_tracks", "AVI", "expected an audio or video stream in AVI", None, **ev
        )
    return found("video/avi", "AVI", f"AVI with streams {', '.join(header.kinds)}", **ev)


class _AviHeader:
    """What ``hdrl`` says: the streams, the frame size, the duration."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.width = self.height = 0
        self.usec = self.frames = 0

    @property
    def seconds(self) -> float | None:
        return round(self.frames * self.usec / 1e6, 3) if self.frames and self.usec else None


def _avi_header(hdrl: bytes) -> _AviHeader:
    """Read ``avih``, the stream headers and an OpenDML ``dmlh`` from the ``hdrl`` bytes."""
    header, pos = _AviHeader(), 0
    while pos + 8 <= len(hdrl) and len(header.kinds) < 64:
        cid, size = hdrl[pos : pos + 4], unpack("<I", hdrl, pos + 4)[0]
        if cid == b"avih" and size >= 40:
            header.usec, *_, header.frames = unpack("<5I", hdrl, pos + 8)
            header.width, header.height = unpack("<II", hdrl, pos + 8 + 32)
        elif cid == b"LIST" and hdrl[pos + 8 : pos + 16] == b"strlstrh":
            kind = {b"vids": "video", b"auds": "audio"}.get(hdrl[pos + 20 : pos + 24], "other")
            header.kinds.append(kind)
        elif cid == b"LIST" and hdrl[pos + 8 : pos + 16] == b"odmldmlh" and size >= 16:
            (grand,) = unpack("<I", hdrl, pos + 20)
            header.frames = max(header.frames, grand)
        pos += 8 + size + (size & 1)
    return header


def _aiff(src: Source) -> Detected:
    form = src.head[8:12]
    (size,) = struct.unpack(">I", src.need(4, 4))
    streamed = size in (0, 0xFFFFFFFF)
    end = src.size if streamed else 8 + size + (size & 1)
    comm, ssnd = None, None
    for cid, body, csize in _chunks(src, 12, min(end, src.size), ">"):
        if cid == b"COMM" and comm is None:
            comm = src.need(body, 18) + src.at(body + 18, 4)
        elif cid == b"SSND" and ssnd is None:
            ssnd = (body, _UNTIL_END if streamed and csize in (0, 0xFFFFFFFF) else csize)
        if comm is not None and ssnd is not None:
            break
    fmt = "AIFF-C" if form == b"AIFC" else "AIFF"
    if comm is None:
        raise Broken("media.truncated", f"expected a COMM chunk in {fmt}, found none")
    channels, frames, bits = struct.unpack_from(">HIH", comm)
    rate = _extended(comm[8:18])
    if ssnd is None and frames and not src.partial:
        raise Broken("media.truncated", f"expected an SSND chunk in {fmt}, found none")
    coding = comm[18:22] if form == b"AIFC" else b"NONE"
    packet = _aiff_packet(coding, channels, bits)
    det = found(
        "audio/aiff",
        fmt,
        f"{fmt} audio, {rate} Hz, {channels} channel(s)",
        container="IFF",
        codecs=(_aiff_codec(coding),),
        sample_rate=rate,
        channels=channels,
        bits=bits,
        duration_s=_aiff_duration(src, frames, rate, ssnd, packet, streamed=streamed),
    )
    return after_end(src, end, _cut_short(src, ssnd, det, "SSND"))


# Bytes per sample of the AIFF-C codings stored as plain samples; 0: from the sample size.
_AIFC_SAMPLE_BYTES: Mapping[bytes, int] = MappingProxyType(
    {b"NONE": 0, b"twos": 0, b"sowt": 0, b"raw ": 0, b"in24": 3, b"in32": 4}
    | {b"fl32": 4, b"FL32": 4, b"fl64": 8, b"FL64": 8}
    | {b"alaw": 1, b"ALAW": 1, b"ulaw": 1, b"ULAW": 1}
)
# Block codings, where COMM counts packets: (bytes per channel, samples) of one packet,
# as ffmpeg's AIFF reader has them.
_AIFC_PACKETS: Mapping[bytes, tuple[int, int]] = MappingProxyType(
    {b"ima4": (34, 64), b"MAC3": (2, 6), b"MAC6": (1, 6), b"GSM ": (33, 160)}
)


def _aiff_codec(coding: bytes) -> str:
    if coding in (b"NONE", b"twos", b"sowt", b"raw "):
        return "pcm"
    return coding.decode("latin-1").strip().lower() or "?"


def _aiff_packet(coding: bytes, channels: int, bits: int) -> tuple[int, int]:
    """Return (bytes, samples per channel) of one counted frame; (0, 0) when unknown."""
    if coding in _AIFC_PACKETS:
        per_channel, samples = _AIFC_PACKETS[coding]
        return per_channel * channels, samples
    if coding not in _AIFC_SAMPLE_BYTES:
        return 0, 0
    per_sample = _AIFC_SAMPLE_BYTES[coding] or (bits + 7) // 8
    return per_sample * channels, 1


def _aiff_duration(
    src: Source,
    frames: int,
    rate: int,
    ssnd: tuple[int, int] | None,
    packet: tuple[int, int],
    *,
    streamed: bool,
) -> float | None:
    """Return COMM's count in seconds, capped by the packets SSND really holds.

    A streaming writer leaves the count 0 in a form of unset size: the packets present
    count then. A coding without a known packet size gives no duration.
    """
    size, samples = packet
    if not rate or not size or (ssnd is None and src.partial):
        return None
    if ssnd is None:
        return round(frames * samples / rate, 3)
    body, declared = ssnd
    present = _present(src, body, declared)
    if present is None:
        return None
    offset = int.from_bytes(src.at(body, 4), "big") if present >= 8 else 0
    have = max(0, present - 8 - offset) // size
    counted = have if frames == 0 and streamed else min(frames, have)
    return round(counted * samples / rate, 3)


def _extended(raw: bytes) -> int:
    """Decode an 80-bit IEEE extended float (the AIFF sample rate) to an integer."""
    exponent, mantissa = struct.unpack(">HQ", raw)
    exponent &= 0x7FFF
    if exponent == 0 or exponent == 0x7FFF:
        return 0
    shift = exponent - 16383 - 63
    if shift < -64 or shift > 64:
        return 0
    return int(mantissa * 2.0**shift)


RIFF = Format("RIFF", None, lambda h: h[:4] in _WAVE_SHELLS and len(h) >= 12, _riff)
AIFF = Format("AIFF", "audio", lambda h: h[:4] == b"FORM" and h[8:12] in (b"AIFF", b"AIFC"), _aiff)
FORMATS = (RIFF, AIFF)
