"""Audio elementary streams: MPEG audio (MP3, layers I and II), AAC in ADTS, AC-3, and the
ID3v2 tags that may come before them.

These have no container: a chain of frame headers, each giving the next one's place, is
what tells them from noise. Decisions, checked with ffmpeg:

* **Chains.** MPEG audio and AC-3 must show a chain of three frame headers (two when the
  file ends exactly after them). For MPEG audio and ADTS the first frame may start up
  to ``Limits.MAX_AUDIO_JUNK_BYTES`` after the stream start (after ID3 tags and zero
  padding), past junk that stream recordings and some taggers leave and decoders resync
  past; the first position whose chain holds wins, and the bytes skipped are reported
  as ``evidence["junk_bytes"]``. AC-3 and E-AC-3 are named and refused.
* **MP3 durations.** An info frame (Xing, Info, VBRI) counts its stream's frames, capped
  by the frames the bytes can hold. Files joined end to end (``cat a.mp3 b.mp3``), which
  ffmpeg plays in full, are followed from one info frame's byte count to the next
  stream. Frames no info frame counts are counted one by one up to
  ``Limits.MAX_FRAME_WALK_BYTES``; past that the rest is estimated from the bit rates
  seen at the start and in the tail: one bit rate gives an estimate
  (``duration_estimated``), several a stated range (``duration_range_s``).
* **ADTS durations** are counted frame by frame within the same bound, then estimated at
  the mean frame size seen.
* **Names.** MP3 and layers I/II sniff as ``audio/mpeg`` (``audio/mp3`` matches layer III
  only, through ``Limits.MIME_EQUIVALENTS``).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

from .base import Broken, Detected, Format, Source, found, not_allowed, refused, with_evidence
from .frames import (
    MPEG_BITRATES,
    Frame,
    Walk,
    ac3_frame,
    adts_frame,
    mpeg_frame,
    mpeg_length,
    walk_frames,
)
from .ogg import flac

__all__ = ["AC3", "FORMATS", "ID3", "MPEG_AUDIO"]


def _chain(src: Source, start: int, parse: Callable[[bytes], Frame | None]) -> list[Frame]:
    """Follow consecutive frame headers from ``start``; return the frames when they chain."""
    frames: list[Frame] = []
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
        if mpeg_frame(header) is not None:
            frames = _chain(src, at, mpeg_frame)
            if frames:
                return with_evidence(_mp3_verdict(src, at, frames[0]), junk_bytes=skip or None)
        elif adts_frame(header) is not None:
            frames = _chain(src, at, adts_frame)
            if frames:
                return with_evidence(_adts_verdict(src, at, frames), junk_bytes=skip or None)
    return None


def _mp3_verdict(src: Source, start: int, frame: Frame) -> Detected:
    version, layer, _ = frame.stream
    name = "MP3" if layer == 3 else f"MPEG audio layer {'I' * layer}"
    label = {1: "1", 2: "2", 25: "2.5"}[version]
    seconds, span, estimated = _mp3_seconds(src, start, frame)
    return found(
        "audio/mpeg",
        name,
        f"{name} (MPEG-{label}), {frame.sample_rate} Hz, {frame.bitrate // 1000} kbit/s",
        container="MPEG audio",
        sample_rate=frame.sample_rate,
        channels=frame.channels,
        duration_s=None if seconds is None else round(seconds, 3),
        duration_estimated=True if estimated else None,
        duration_range_s=None if span is None else (round(span[0], 3), round(span[1], 3)),
    )


_MAX_JOINED = 16  # streams joined end to end whose info frames are read


def _mp3_seconds(
    src: Source, start: int, first: Frame
) -> tuple[float | None, tuple[float, float] | None, bool]:
    """Return (seconds, a stated range instead, whether the seconds are estimated).

    Info frames (Xing, Info, VBRI) count the frames of their stream; when their byte
    count ends before the audio does, another stream was joined on (``cat a.mp3 b.mp3``)
    and its own info frame, or its frames, count too. Frames no info frame counts are
    counted one by one within the walk bound; past it they are estimated from the bit
    rates seen: one bit rate gives an estimate, several a stated range.
    """
    rate, stop = first.sample_rate, _audio_end(src)
    samples, pos = 0, start
    for _ in range(_MAX_JOINED):
        frame = mpeg_frame(src.at(pos, 10))
        info = _info(src, pos, frame, stop) if frame and frame.stream == first.stream else None
        if info is None:
            break
        count, length = info
        samples += count * first.samples
        if length is None or pos + length >= stop - 2 * first.length:
            return samples / rate, None, False
        pos = _past_tags(src, pos + length)
    if src.partial:
        return (samples / rate if samples else None), None, False
    walk = _walk_joined(src, pos, stop, first.stream)
    samples += walk.samples
    if walk.finished or walk.end - pos < src.limits.MAX_FRAME_WALK_BYTES:
        return samples / rate, None, False
    rates = walk.rates | _tail_rates(src, stop, first.stream)
    rest_bits = (stop - walk.end) * 8
    low, high = samples / rate + rest_bits / max(rates), samples / rate + rest_bits / min(rates)
    if low == high:
        return low, None, True  # one bit rate throughout what was seen: constant, estimated
    return None, (low, high), False


def _info(src: Source, at: int, frame: Frame, stop: int) -> tuple[int, int | None] | None:
    """Read a Xing, Info or VBRI header: (frames, bytes of the stream or None)."""
    version, layer, _ = frame.stream
    side = (
        (32 if frame.channels == 2 else 17) if version == 1 else (17 if frame.channels == 2 else 9)
    )
    xing = src.at(at + 4 + side, 16)
    if xing[:4] in (b"Xing", b"Info") and len(xing) == 16 and xing[7] & 1:
        (count,) = struct.unpack_from(">I", xing, 8)
        length = struct.unpack_from(">I", xing, 12)[0] if xing[7] & 2 else None
    else:
        vbri = src.at(at + 36, 18)
        if vbri[:4] != b"VBRI" or len(vbri) < 18:
            return None
        length, count = struct.unpack_from(">II", vbri, 10)
    # The frame count is capped by the frames of the lowest bit rate the bytes can hold.
    lowest = MPEG_BITRATES[(1 if version == 1 else 2, layer)][1] * 1000
    smallest = mpeg_length(version, layer, lowest, frame.sample_rate, 0)[0]
    most = (max(0, stop - at) // smallest + 1) if not src.partial else count
    return min(count, most), length if length and length > frame.length else None


def _audio_end(src: Source) -> int:
    """Where the audio frames end: before an ID3v1 tag and an APEv2 tag at the end."""
    end = src.size
    if end >= 128 and src.at(end - 128, 3) == b"TAG":
        end -= 128
    footer = src.at(end - 32, 32) if end >= 32 else b""
    if footer[:8] == b"APETAGEX":
        size, _items, flags = struct.unpack_from("<III", footer, 12)
        end -= size + (32 if flags & 0x80000000 else 0)
    return max(end, 0)


def _past_tags(src: Source, pos: int) -> int:
    """Skip ID3v2 tags at ``pos`` (files joined with their tags)."""
    for _ in range(4):
        header = src.at(pos, 10)
        if header[:3] != b"ID3" or len(header) < 10 or any(b & 0x80 for b in header[6:10]):
            return pos
        raw = header[6:10]
        pos += 10 + ((raw[0] << 21) | (raw[1] << 14) | (raw[2] << 7) | raw[3])
        pos += 10 if header[5] & 0x10 else 0
    return pos


def _walk_joined(src: Source, pos: int, stop: int, stream: tuple[int, ...]) -> Walk:
    """Walk frames from ``pos``, past ID3v2 tags between joined files, within the bound."""
    total = walk_frames(src, pos, stop, mpeg_frame, stream)
    for _ in range(_MAX_JOINED):
        if total.finished or total.end - pos >= src.limits.MAX_FRAME_WALK_BYTES:
            break
        after = _past_tags(src, total.end)
        if after == total.end:
            break
        more = walk_frames(src, after, stop, mpeg_frame, stream)
        total = Walk(
            more.end,
            total.samples + more.samples,
            total.frames + more.frames,
            total.rates | more.rates,
            more.finished,
        )
    return total


def _tail_rates(src: Source, stop: int, stream: tuple[int, ...]) -> set[int]:
    """The bit rates of the chained frames in the last window before ``stop``."""
    start = max(0, stop - src.limits.SNIFF_BYTES)
    window = src.at(start, stop - start)
    for match in _SYNC.finditer(window):
        at = match.start()
        frames = []
        while at + 10 <= len(window):
            frame = mpeg_frame(window[at : at + 10])
            if frame is None or frame.stream != stream:
                break
            frames.append(frame.bitrate)
            at += frame.length
        if len(frames) >= 3:
            return set(frames)
    return set()


def _adts_verdict(src: Source, start: int, frames: list[Frame]) -> Detected:
    first = frames[0]
    walk = walk_frames(src, start, src.size, adts_frame, first.stream)
    seconds = walk.seconds(first.sample_rate)
    estimated = not walk.finished
    if estimated and walk.frames:
        # Past the walk, at the mean frame size seen: a variable bit rate makes it a guess.
        per_byte = seconds / max(1, walk.end - start)
        seconds += (src.size - walk.end) * per_byte
    return found(
        "audio/aac",
        "AAC (ADTS)",
        f"AAC in ADTS frames, {first.sample_rate} Hz, {first.channels} channel(s)",
        container="ADTS",
        sample_rate=first.sample_rate,
        channels=first.channels or None,
        duration_s=round(seconds, 3) if seconds else None,
        duration_estimated=True if estimated else None,
    )


def _ac3(src: Source) -> Detected | None:
    frames = _chain(src, 0, ac3_frame)
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
