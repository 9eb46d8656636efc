"""RIFF and IFF forms: WAVE (and RF64), AVI, AIFF and AIFF-C; other forms are named.

WebP is a RIFF form too, read with the still images.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from .base import Broken, Detected, Format, Source, after_end, found, not_allowed, refused

__all__ = ["AIFF", "FORMATS", "RIFF"]


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
    (size,) = struct.unpack("<I", src.need(4, 4))
    streamed = size in (0, 0xFFFFFFFF)
    end = src.size if streamed or magic != b"RIFF" else 8 + size + (size & 1)
    if form == b"WAVE" and magic in (b"RIFF", b"RF64"):
        return after_end(src, end, _wave(src, magic, min(end, src.size), streamed=streamed))
    if magic != b"RIFF":
        return not_allowed(f"{magic.decode('latin-1')} {form.decode('latin-1')}", "audio")
    if form == b"AVI ":
        return after_end(src, end, _avi(src))
    name = form.decode("latin-1").strip() or "?"
    return not_allowed(f"RIFF {name}", None, container="RIFF", form=name)


_WAVE_CODECS = {1: "pcm", 3: "float", 6: "alaw", 7: "mulaw", 0x55: "mp3", 0xFFFE: "extensible"}


def _wave(src: Source, magic: bytes, end: int, *, streamed: bool) -> Detected:
    fmt_info: tuple[int, int, int, int, int] | None = None
    data: tuple[int, int] | None = None
    ds64 = None
    for cid, body, size in _chunks(src, 12, end, "<"):
        if cid == b"ds64":
            ds64 = struct.unpack("<QQ", src.need(body, 16))[1]
        elif cid == b"fmt ":
            tag, channels, rate, byte_rate, _align, bits = struct.unpack(
                "<HHIIHH", src.need(body, 16)
            )
            fmt_info = (tag, channels, rate, byte_rate, bits)
        elif cid == b"data":
            declared = ds64 if size == 0xFFFFFFFF and ds64 is not None else size
            data = (body, _UNTIL_END if declared == 0 and streamed else declared)
            break
    fmt = "RF64 WAVE" if magic == b"RF64" else "WAVE"
    if fmt_info is None or data is None:
        missing = "fmt " if fmt_info is None else "data"
        raise Broken("media.truncated", f"expected a {missing!r} chunk in {fmt}, found none")
    tag, channels, rate, byte_rate, bits = fmt_info
    data_size = _present(src, *data)
    duration = round(data_size / byte_rate, 3) if byte_rate and data_size is not None else None
    return found(
        "audio/wav",
        fmt,
        f"{fmt} audio, {_WAVE_CODECS.get(tag, hex(tag))}, {rate} Hz, {channels} channel(s)",
        container="RIFF",
        codecs=(_WAVE_CODECS.get(tag, hex(tag)),),
        sample_rate=rate,
        channels=channels,
        bits=bits,
        duration_s=duration,
    )


_UNTIL_END = 1 << 64  # a size a streaming writer left unset: the data runs to the end


def _present(src: Source, start: int, declared: int) -> int | None:
    """Return how many of the ``declared`` bytes from ``start`` the file really holds.

    A header's length is never trusted past the end of the file. For a partial head
    that ends before the declared bytes do, the true count is unknown: None.
    """
    available = max(0, src.size - start)
    if declared <= available:
        return declared
    return None if src.partial else available


def _avi(src: Source) -> Detected:
    hdrl = None
    for cid, body, size in _chunks(src, 12, src.size, "<"):
        if cid == b"LIST" and src.need(body, 4) == b"hdrl":
            hdrl = src.at(body + 4, min(size - 4, 1 << 16))
            break
    if hdrl is None:
        raise Broken("media.truncated", "expected an hdrl list in AVI, found none")
    width = height = 0
    kinds: list[str] = []
    pos = 0
    while pos + 8 <= len(hdrl) and len(kinds) < 64:
        cid, size = hdrl[pos : pos + 4], struct.unpack_from("<I", hdrl, pos + 4)[0]
        if cid == b"avih" and size >= 40:
            width, height = struct.unpack_from("<II", hdrl, pos + 8 + 32)
        if cid == b"LIST" and hdrl[pos + 8 : pos + 16] == b"strlstrh":
            kinds.append(
                {b"vids": "video", b"auds": "audio"}.get(hdrl[pos + 20 : pos + 24], "other")
            )
        pos += 8 + size + (size & 1)
    ev: dict[str, object] = {
        "container": "RIFF",
        "tracks": tuple(kinds),
        "width": width or None,
        "height": height or None,
    }
    if "video" not in kinds:
        if "audio" in kinds:
            return not_allowed("AVI (audio only)", "audio", **ev)
        return refused(
            "media.no_tracks", "AVI", "expected an audio or video stream in AVI", None, **ev
        )
    return found("video/avi", "AVI", f"AVI with streams {', '.join(kinds)}", **ev)


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
            ssnd = (body, _UNTIL_END if csize == 0 and streamed else csize)
        if comm is not None and ssnd is not None:
            break
    fmt = "AIFF-C" if form == b"AIFC" else "AIFF"
    if comm is None:
        raise Broken("media.truncated", f"expected a COMM chunk in {fmt}, found none")
    channels, frames, bits = struct.unpack_from(">HIH", comm)
    rate = _extended(comm[8:18])
    if ssnd is None and frames and not src.partial:
        raise Broken("media.truncated", f"expected an SSND chunk in {fmt}, found none")
    frame_bytes = _aiff_frame_bytes(form, comm, channels, bits)
    det = found(
        "audio/aiff",
        fmt,
        f"{fmt} audio, {rate} Hz, {channels} channel(s)",
        container="IFF",
        sample_rate=rate,
        channels=channels,
        bits=bits,
        duration_s=_aiff_duration(src, frames, rate, ssnd, frame_bytes, streamed=streamed),
    )
    return after_end(src, end, det)


# Bytes per sample of the AIFF-C compression types stored as plain samples; 0: from the
# sample size. Other types (IMA ADPCM, ...) have no fixed size, so SSND cannot cap them.
_AIFC_SAMPLE_BYTES: Mapping[bytes, int] = MappingProxyType(
    {b"NONE": 0, b"twos": 0, b"sowt": 0, b"raw ": 0, b"in24": 3, b"in32": 4}
    | {b"fl32": 4, b"FL32": 4, b"fl64": 8, b"FL64": 8}
    | {b"alaw": 1, b"ALAW": 1, b"ulaw": 1, b"ULAW": 1}
)


def _aiff_frame_bytes(form: bytes, comm: bytes, channels: int, bits: int) -> int:
    """Return the bytes of one sample frame, or 0 when the coding has no fixed size."""
    per_sample = (bits + 7) // 8
    if form == b"AIFC":
        kind = comm[18:22]
        if kind not in _AIFC_SAMPLE_BYTES:
            return 0
        per_sample = _AIFC_SAMPLE_BYTES[kind] or per_sample
    return per_sample * channels


def _aiff_duration(
    src: Source,
    frames: int,
    rate: int,
    ssnd: tuple[int, int] | None,
    frame_bytes: int,
    *,
    streamed: bool,
) -> float | None:
    """Return COMM's frame count in seconds, capped by the sample frames SSND really holds.

    A streaming writer leaves the count 0 in a form of unset size: the frames present
    count then. A coding without a fixed frame size keeps the declared count.
    """
    if not rate or (ssnd is None and src.partial):
        return None
    if ssnd is None or not frame_bytes:
        return round(frames / rate, 3)
    body, declared = ssnd
    present = _present(src, body, declared)
    if present is None:
        return None
    offset = int.from_bytes(src.at(body, 4), "big") if present >= 8 else 0
    have = max(0, present - 8 - offset) // frame_bytes
    return round((have if frames == 0 and streamed else min(frames, have)) / rate, 3)


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


RIFF = Format("RIFF", None, lambda h: h[:4] in (b"RIFF", b"RF64", b"BW64") and len(h) >= 12, _riff)
AIFF = Format("AIFF", "audio", lambda h: h[:4] == b"FORM" and h[8:12] in (b"AIFF", b"AIFC"), _aiff)
FORMATS = (RIFF, AIFF)
