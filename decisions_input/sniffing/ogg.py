"""Xiph formats: Ogg (Vorbis, Opus, FLAC, Speex; video codecs refused) and native FLAC.

An Ogg file is read at its start (the beginning-of-stream pages name the codecs) and at
its end: the last page of the audio stream carries its granule position, the samples up
to there, so a long file costs what a short one does. Ogg audio is ``audio/ogg`` whatever
its codec; a declared ``audio/opus`` matches only when every logical stream is Opus. Ogg
video (Theora, VP8, Dirac) is refused.
"""

from __future__ import annotations

import struct

from .base import Broken, Detected, Format, Source, found, not_allowed

__all__ = ["FLAC", "FORMATS", "OGG", "flac"]


_OGG_CODECS: tuple[tuple[bytes, str, str], ...] = (
    (b"OpusHead", "opus", "audio"),
    (b"\x01vorbis", "vorbis", "audio"),
    (b"\x7fFLAC", "flac", "audio"),
    (b"Speex   ", "speex", "audio"),
    (b"CELT    ", "celt", "audio"),
    (b"PCM     ", "pcm", "audio"),
    (b"\x80theora", "theora", "video"),
    (b"\x80daala", "daala", "video"),
    (b"OVP80", "vp8", "video"),
    (b"BBCD\x00", "dirac", "video"),
    (b"\x01video\x00\x00\x00", "ogm-video", "video"),
    (b"fishead\x00", "skeleton", "meta"),
    (b"\x80kate", "kate", "meta"),
)


def _ogg(src: Source) -> Detected:
    streams: list[tuple[int, str, str, bytes]] = []
    off = 0
    while True:
        src.step()
        header = src.need(off, 27)
        if header[:4] != b"OggS" or header[4] != 0:
            raise Broken("media.corrupt", f"expected an Ogg page at offset {off}")
        nseg = header[26]
        table = src.need(off + 27, nseg)
        body = off + 27 + nseg
        if not header[5] & 0x02:
            break
        (serial,) = struct.unpack_from("<I", header, 14)
        first = src.at(body, 64)
        codec, kind = next(
            ((c, k) for sig, c, k in _OGG_CODECS if first.startswith(sig)), ("unknown", "unknown")
        )
        streams.append((serial, codec, kind, first))
        off = body + sum(table)
        if off >= src.size or len(streams) >= 64:
            break
    return _ogg_verdict(src, streams)


def _ogg_verdict(src: Source, streams: list[tuple[int, str, str, bytes]]) -> Detected:
    codecs = tuple(c for _, c, k, _ in streams if k != "meta")
    ev: dict[str, object] = {"container": "Ogg", "codecs": codecs}
    video = [c for _, c, k, _ in streams if k == "video"]
    if video:
        return not_allowed(f"Ogg video ({video[0].capitalize()})", "video", **ev)
    audio = [(s, c, first) for s, c, k, first in streams if k == "audio"]
    if not audio:
        return not_allowed("Ogg (no known audio codec)", None, **ev)
    serial, codec, first = audio[0]
    rate, channels, pre_skip = _ogg_audio_header(codec, first)
    ev.update(sample_rate=rate, channels=channels)
    ev["duration_s"] = _ogg_duration(src, serial, codec, rate, pre_skip)
    return found(
        "audio/ogg",
        f"Ogg {codec.capitalize()}",
        f"Ogg audio ({', '.join(dict.fromkeys(codecs))})",
        **ev,
    )


def _ogg_audio_header(codec: str, first: bytes) -> tuple[int | None, int | None, int]:
    if codec == "opus" and len(first) >= 16:
        channels, pre_skip, rate = struct.unpack_from("<BHI", first, 9)
        return rate, channels, pre_skip
    if codec == "vorbis" and len(first) >= 16:
        channels, rate = struct.unpack_from("<BI", first, 11)
        return rate, channels, 0
    if codec == "flac" and len(first) >= 30 and first[9:13] == b"fLaC":
        # The Ogg FLAC mapping header, then STREAMINFO: 20 bits of rate, 3 of channels.
        bits = int.from_bytes(first[27:30], "big")
        return bits >> 4, ((bits >> 1) & 7) + 1, 0
    return None, None, 0


def _ogg_duration(
    src: Source, serial: int, codec: str, rate: int | None, pre_skip: int
) -> float | None:
    if codec not in ("opus", "vorbis", "flac"):
        return None
    start, tail = src.tail()
    pos = tail.rfind(b"OggS")
    while pos >= 0 and len(tail) - pos >= 27:
        granule, page_serial = struct.unpack_from("<qI", tail, pos + 6)
        if page_serial == serial and granule >= 0:
            samples_per_s = 48000 if codec == "opus" else (rate or 0)
            if not samples_per_s:
                return None
            return round(max(0, int(granule) - pre_skip) / samples_per_s, 3)
        pos = tail.rfind(b"OggS", 0, pos)
    return None


def flac(src: Source) -> Detected:
    block = src.need(4, 38)
    if block[0] & 0x7F != 0 or int.from_bytes(block[1:4], "big") != 34:
        raise Broken("media.corrupt", "expected a STREAMINFO block first in FLAC")
    bits = int.from_bytes(block[14:22], "big")
    rate = bits >> 44
    channels = ((bits >> 41) & 7) + 1
    depth = ((bits >> 36) & 31) + 1
    total = bits & ((1 << 36) - 1)
    # The count is capped by the frames the bytes can hold: a frame is at least a 6-byte
    # header, a byte per channel and a 2-byte CRC, and holds at most max-blocksize samples.
    max_block = int.from_bytes(block[6:8], "big") or 0xFFFF
    most = ((src.size - 42) // (8 + channels) + 1) * max_block
    samples = total if total <= most else (None if src.partial else most)
    return found(
        "audio/flac",
        "FLAC",
        f"FLAC audio, {rate} Hz, {channels} channel(s)",
        container="FLAC",
        sample_rate=rate,
        channels=channels,
        bits=depth,
        duration_s=round(samples / rate, 3) if rate and samples else None,
    )


OGG = Format("Ogg", None, lambda h: h[:4] == b"OggS", _ogg)
FLAC = Format("FLAC", "audio", lambda h: h[:4] == b"fLaC", flac)
FORMATS = (OGG, FLAC)
