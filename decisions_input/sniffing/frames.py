"""Frame headers of audio elementary streams, and durations counted from their frames.

MPEG audio (layers I to III), AAC in ADTS and AC-3 have no container: each frame header
gives its own length, so the next header is found by adding it. A duration no header
states is counted frame by frame, in windows of ``Limits.SNIFF_BYTES``, up to
``Limits.MAX_FRAME_WALK_BYTES``; the frames past that are estimated from the bit rates
seen, at the start and in the tail of the file, so the cost does not grow with the file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .base import Source

__all__ = [
    "MPEG_BITRATES",
    "Frame",
    "Walk",
    "ac3_frame",
    "adts_frame",
    "mpeg_frame",
    "mpeg_length",
    "walk_frames",
]


MPEG_BITRATES: Mapping[tuple[int, int], tuple[int, ...]] = MappingProxyType(
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
class Frame:
    stream: tuple[int, ...]  # fields that stay the same from frame to frame
    length: int
    sample_rate: int
    channels: int
    samples: int
    bitrate: int = 0


def mpeg_frame(h: bytes) -> Frame | None:
    """Parse an MPEG audio frame header (its first 4 bytes count)."""
    return _mpeg_header(bytes(h[:4])) if len(h) >= 4 else None


@functools.lru_cache(maxsize=1024)
def _mpeg_header(h: bytes) -> Frame | None:
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
    bitrate = MPEG_BITRATES[(1 if version == 1 else 2, layer)][bitrate_index] * 1000
    rate = _MPEG_RATES[version][rate_index]
    length, samples = mpeg_length(version, layer, bitrate, rate, (h[2] >> 1) & 1)
    channels = 1 if h[3] >> 6 == 3 else 2
    return Frame((version, layer, rate_index), length, rate, channels, samples, bitrate)


def mpeg_length(version: int, layer: int, bitrate: int, rate: int, pad: int) -> tuple[int, int]:
    """Return the bytes and samples of one MPEG audio frame."""
    if layer == 1:
        return (12 * bitrate // rate + pad) * 4, 384
    if layer == 3 and version != 1:
        return 72 * bitrate // rate + pad, 576
    return 144 * bitrate // rate + pad, 1152


def adts_frame(h: bytes) -> Frame | None:
    if len(h) < 7 or h[0] != 0xFF or h[1] & 0xF6 != 0xF0:
        return None
    profile, rate_index = h[2] >> 6, (h[2] >> 2) & 0xF
    channels = ((h[2] & 1) << 2) | (h[3] >> 6)
    length = ((h[3] & 3) << 11) | (h[4] << 3) | (h[5] >> 5)
    header = 7 if h[1] & 1 else 9
    if rate_index >= len(_ADTS_RATES) or length < header:
        return None
    blocks = (h[6] & 3) + 1
    return Frame(
        (profile, rate_index, channels), length, _ADTS_RATES[rate_index], channels, 1024 * blocks
    )


_AC3_KBPS = (
    *(32, 40, 48, 56, 64, 80, 96, 112, 128, 160),
    *(192, 224, 256, 320, 384, 448, 512, 576, 640),
)  # kbit/s by half the frame size code
_AC3_RATES = (48000, 44100, 32000)


def ac3_frame(h: bytes) -> Frame | None:
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
        return Frame((fscod, bsid), 2 * words, _AC3_RATES[fscod], 0, 1536)
    if bsid <= 16:  # E-AC-3: the frame size is in the header
        words = (((h[2] & 7) << 8) | h[3]) + 1
        reduced = (h[4] >> 4) & 3  # fscod2, read when fscod is 3; its own 3 is reserved
        if fscod == 3 and reduced == 3:
            return None
        rate = _AC3_RATES[fscod] if fscod < 3 else _AC3_RATES[reduced] // 2
        return Frame((fscod, bsid), 2 * words, rate, 0, 1536)
    return None


@dataclass(slots=True)
class Walk:
    """Frames counted from a start: how far, how many samples, the bit rates seen."""

    end: int  # where the walk stopped: the first byte that is not a whole frame
    samples: int = 0
    frames: int = 0
    rates: set[int] = field(default_factory=set)  # bit/s of the frames seen
    finished: bool = False  # the walk reached ``stop`` (or a frame running past it)

    def seconds(self, rate: int) -> float:
        return self.samples / rate if rate else 0.0


def walk_frames(
    src: Source,
    start: int,
    stop: int,
    parse: Callable[[bytes], Frame | None],
    stream: tuple[int, ...],
) -> Walk:
    """Count the frames from ``start`` up to ``stop``, in windows, within the walk bound.

    Frames that change the stream's fixed fields end the walk, as anything else that is
    not a frame header does.
    """
    walk = Walk(start)
    budget = src.limits.MAX_FRAME_WALK_BYTES
    pos, base, window = start, start, b""
    while pos < stop and pos - start < budget:
        if pos + 10 > base + len(window):
            src.step()
            base, window = pos, src.at(pos, min(src.limits.SNIFF_BYTES, stop - pos + 10))
        frame = parse(window[pos - base : pos - base + 10])
        if frame is None or frame.stream != stream:
            walk.end = pos
            return walk
        walk.frames += 1
        walk.samples += frame.samples
        walk.rates.add(frame.bitrate)
        pos += frame.length
    walk.end = min(pos, stop)
    walk.finished = pos >= stop
    return walk
