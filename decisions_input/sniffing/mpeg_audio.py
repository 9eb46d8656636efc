"""Audio elementary streams: MPEG audio (MP3, layers I and II), AAC in ADTS, AC-3, and the
ID3v2 tags that may come before them.

These have no container: a chain of frame headers, each giving the next one's place, is
what tells them from noise.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .base import Broken, Detected, Format, Source, found, not_allowed, refused, with_evidence
from .ogg import flac

__all__ = ["AC3", "FORMATS", "ID3", "MPEG_AUDIO"]


_MPEG_BITRATES: Mapping[tuple[int, int], tuple[int, ...]] = MappingProxyType(
    {
        (1, 1): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
        (1, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
        (1, 3): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
        (2, 1): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
        (2, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
        (2, 3): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    }
)
_MPEG_RATES = {1: (44100, 48000, 32000), 2: (22050, 24000, 16000), 25: (11025, 12000, 8000)}
_ADTS_RATES = (
    96000,
    88200,
    64000,
    48000,
    44100,
    32000,
    24000,
    22050,
    16000,
    12000,
    11025,
    8000,
    7350,
)


@dataclass(frozen=True, slots=True)
class _Frame:
    stream: tuple[int, ...]  # fields that stay the same from frame to frame
    length: int
    sample_rate: int
    channels: int
    samples: int
    bitrate: int = 0


def _mpeg_frame(h: bytes) -> _Frame | None:
    if len(h) < 4 or h[0] != 0xFF or h[1] & 0xE0 != 0xE0:
        return None
    version = {0: 25, 2: 2, 3: 1}.get((h[1] >> 3) & 3)
    layer = {1: 3, 2: 2, 3: 1}.get((h[1] >> 1) & 3)
    bitrate_index, rate_index = h[2] >> 4, (h[2] >> 2) & 3
    if (
        version is None
        or layer is None
        or bitrate_index in (0, 15)
        or rate_index == 3
        or h[3] & 3 == 2
    ):
        return None
    bitrate = _MPEG_BITRATES[(1 if version == 1 else 2, layer)][bitrate_index] * 1000
    rate = _MPEG_RATES[version][rate_index]
    length, samples = _mpeg_length(version, layer, bitrate, rate, (h[2] >> 1) & 1)
    channels = 1 if h[3] >> 6 == 3 else 2
    return _Frame((version, layer, rate_index), length, rate, channels, samples, bitrate)


def _mpeg_length(version: int, layer: int, bitrate: int, rate: int, pad: int) -> tuple[int, int]:
    """Return the bytes and samples of one MPEG audio frame."""
    if layer == 1:
        return (12 * bitrate // rate + pad) * 4, 384
    if layer == 3 and version != 1:
        return 72 * bitrate // rate + pad, 576
    return 144 * bitrate // rate + pad, 1152


def _adts_frame(h: bytes) -> _Frame | None:
    if len(h) < 7 or h[0] != 0xFF or h[1] & 0xF6 != 0xF0:
        return None
    profile, rate_index = h[2] >> 6, (h[2] >> 2) & 0xF
    channels = ((h[2] & 1) << 2) | (h[3] >> 6)
    length = ((h[3] & 3) << 11) | (h[4] << 3) | (h[5] >> 5)
    header = 7 if h[1] & 1 else 9
    if rate_index >= len(_ADTS_RATES) or length < header:
        return None
    blocks = (h[6] & 3) + 1
    return _Frame(
        (profile, rate_index, channels), length, _ADTS_RATES[rate_index], channels, 1024 * blocks
    )


def _chain(src: Source, start: int, parse: Callable[[bytes], _Frame | None]) -> list[_Frame]:
    """Follow consecutive frame headers from ``start``; return the frames when they chain."""
    frames: list[_Frame] = []
    off = start
    while len(frames) < 3:
        src.step()
        frame = parse(src.at(off, 10))
        if frame is None or (frames and frame.stream != frames[0].stream):
            break
        frames.append(frame)
        off += frame.length
        if off >= src.size:
            break
    enough = len(frames) >= 3 or (len(frames) >= 2 and off == src.size)
    return frames if enough else []


def _stream_start(src: Source) -> int:
    head = src.head
    start = len(head) - len(head.lstrip(b"\x00"))
    return start if start < len(head) else 0


# A byte pair that may open an MPEG audio or ADTS frame header (11 set bits, then the
# rest); the lookahead keeps overlapping pairs such as ``FF FF F3``.
_SYNC = re.compile(rb"\xff(?=[\xe0-\xff])")


def _mpeg_audio(src: Source) -> Detected | None:
    """Find MPEG audio or ADTS frames at the stream start or past junk in front of them.

    Only positions whose own header parses cost a step, so junk without sync words is
    scanned for free and a chain is still needed from the position found.
    """
    start = _stream_start(src)
    bound = src.limits.MAX_AUDIO_JUNK_BYTES
    window = src.at(start, bound + 10)
    for match in _SYNC.finditer(window, 0, bound + 2):  # a frame at `bound` at most
        skip = match.start()
        header = window[skip : skip + 10]
        at = start + skip
        if _mpeg_frame(header) is not None:
            frames = _chain(src, at, _mpeg_frame)
            if frames:
                return with_evidence(_mp3_verdict(src, at, frames[0]), junk_bytes=skip or None)
        elif _adts_frame(header) is not None:
            frames = _chain(src, at, _adts_frame)
            if frames:
                return with_evidence(_adts_verdict(src, at, frames), junk_bytes=skip or None)
    return None


def _mp3_verdict(src: Source, start: int, frame: _Frame) -> Detected:
    version, layer, _ = frame.stream
    side = (
        (32 if frame.channels == 2 else 17) if version == 1 else (17 if frame.channels == 2 else 9)
    )
    xing = src.at(start + 4 + side, 12)
    duration: float | None = (src.size - start) * 8 / frame.bitrate
    estimated: bool | None = True  # a constant bit rate assumed, unless a frame count says
    if xing[:4] in (b"Xing", b"Info") and len(xing) == 12 and xing[7] & 1:
        estimated = None
        (count,) = struct.unpack_from(">I", xing, 8)
        # The frame count is capped by the frames of the lowest bit rate the bytes can hold.
        lowest = _MPEG_BITRATES[(1 if version == 1 else 2, layer)][1] * 1000
        smallest = _mpeg_length(version, layer, lowest, frame.sample_rate, 0)[0]
        most = (src.size - start) // smallest + 1
        if count > most and src.partial:
            duration = None
        else:
            duration = min(count, most) * frame.samples / frame.sample_rate
    name = "MP3" if layer == 3 else f"MPEG audio layer {'I' * layer}"
    label = {1: "1", 2: "2", 25: "2.5"}[version]
    return found(
        "audio/mpeg",
        name,
        f"{name} (MPEG-{label}), {frame.sample_rate} Hz, {frame.bitrate // 1000} kbit/s",
        container="MPEG audio",
        sample_rate=frame.sample_rate,
        channels=frame.channels,
        duration_s=None if duration is None else round(duration, 3),
        duration_estimated=estimated,
    )


def _adts_verdict(src: Source, start: int, frames: list[_Frame]) -> Detected:
    first = frames[0]
    mean = sum(f.length for f in frames) / len(frames)
    duration = (src.size - start) / mean * first.samples / first.sample_rate
    return found(
        "audio/aac",
        "AAC (ADTS)",
        f"AAC in ADTS frames, {first.sample_rate} Hz, {first.channels} channel(s)",
        container="ADTS",
        sample_rate=first.sample_rate,
        channels=first.channels or None,
        duration_s=round(duration, 3),
        # From the mean size of the first frames: a variable bit rate makes it a guess.
        duration_estimated=True,
    )


_AC3_KBPS = (
    *(32, 40, 48, 56, 64, 80, 96, 112, 128, 160),
    *(192, 224, 256, 320, 384, 448, 512, 576, 640),
)  # kbit/s by half the frame size code
_AC3_RATES = (48000, 44100, 32000)


def _ac3_frame(h: bytes) -> _Frame | None:
    """Parse an AC-3 or E-AC-3 sync frame header (sync word 0x0B77)."""
    if len(h) < 6 or h[:2] != b"\x0b\x77":
        return None
    fscod, bsid = h[4] >> 6, h[5] >> 3
    if bsid <= 10:  # AC-3: frame size from the bit rate code and the sample rate
        code = h[4] & 0x3F
        if fscod == 3 or code > 37:
            return None
        kbps = _AC3_KBPS[code >> 1]
        words = (2 * kbps, kbps * 320 // 147 + (code & 1), 3 * kbps)[fscod]
        return _Frame((fscod, bsid), 2 * words, _AC3_RATES[fscod], 0, 1536)
    if bsid <= 16:  # E-AC-3: the frame size is in the header
        words = (((h[2] & 7) << 8) | h[3]) + 1
        rate = _AC3_RATES[fscod] if fscod < 3 else _AC3_RATES[(h[4] >> 4) & 3] // 2
        return _Frame((fscod, bsid), 2 * words, rate, 0, 1536)
    return None


def _ac3(src: Source) -> Detected | None:
    frames = _chain(src, 0, _ac3_frame)
    if not frames:
        return None
    name = "E-AC-3" if frames[0].stream[1] > 10 else "AC-3"
    return not_allowed(name, "audio", container="none", sample_rate=frames[0].sample_rate)


def _after_id3(src: Source) -> Detected:
    off, tags = 0, 0
    while src.at(off, 3) == b"ID3" and tags < 16:
        src.step()
        header = src.need(off, 10)
        raw = header[6:10]
        if header[3] == 0xFF or any(b & 0x80 for b in raw):
            raise Broken("media.corrupt", f"expected a syncsafe ID3v2 size at offset {off}")
        size = (raw[0] << 21) | (raw[1] << 14) | (raw[2] << 7) | raw[3]
        off += 10 + size + (10 if header[5] & 0x10 else 0)
        tags += 1
    if off >= src.size:
        raise Broken(
            "media.truncated", f"expected audio after the ID3 tag ({off} bytes), found end"
        )
    rest = src.view(off)
    for test, handler in ((lambda h: h[:4] == b"fLaC", flac), (lambda h: True, _mpeg_audio)):
        if test(rest.head):
            det = handler(rest)
            if det is not None:
                return with_evidence(det, id3_bytes=off)
    return refused(
        "media.unknown",
        "ID3-tagged unknown",
        f"expected MP3, AAC or FLAC after the {off}-byte ID3 tag, found none of them",
        "audio",
        id3_bytes=off,
    )


ID3 = Format("ID3-tagged audio", "audio", lambda h: h.startswith(b"ID3"), _after_id3)
AC3 = Format("AC-3", "audio", lambda h: h[:2] == b"\x0b\x77", _ac3)
MPEG_AUDIO = Format("MPEG audio", "audio", lambda h: True, _mpeg_audio)
FORMATS = (ID3, AC3, MPEG_AUDIO)
