"""MPEG system and video streams: program streams and MPEG-1/2 video elementary streams
(``video/mpeg``); transport streams and H.264/H.265 elementary streams (refused).

Decisions, checked with ffmpeg and libmagic:

* **Program streams.** A program stream (pack header ``00 00 01 BA``) is ``video/mpeg``
  when its head (``SNIFF_BYTES``) holds a video or audio PES stream ID; with none it is
  refused as ``media.no_tracks``. Its duration is a stated range
  (``evidence["duration_range_s"]``) between two readings of the first and last packets
  in the head and the tail: presentation time stamps, which miss the last packet's
  frames, and the system clock references of the pack headers, which include the
  muxer's preload.
* **MPEG-1/2 video elementary streams** (a sequence header, ``00 00 01 B3``, then a group
  of pictures or a picture) are decoded by ffmpeg and named ``video/mpeg`` by libmagic,
  the name RFC 2046 gives MPEG video: accepted. A sequence header with nothing after it
  to decode is refused as ``media.no_samples``. Their duration is a stated range from
  the time codes of the first, second and last group-of-pictures headers.
* **Transport streams** (three or more 188, 192 or 204-byte packets, each with a sync
  byte, a defined adaptation field control and no reserved scrambling value) have their
  own type, ``video/mp2t``, which the API does not list: ``mime.not_allowed``. So have
  H.264 and H.265 Annex B streams (start code, then SPS or VPS), named by
  :mod:`.others`.
"""

from __future__ import annotations

from collections.abc import Iterator

from .base import Broken, Detected, Format, Source, found, not_allowed, refused

__all__ = ["FORMATS", "MPEG_ES", "MPEG_PS", "MPEG_TS"]


def _mpeg_ps(src: Source) -> Detected:
    b4 = src.need(4, 1)[0]
    if b4 & 0xC4 == 0x44:
        system, length = "MPEG-2", 14 + (src.need(13, 1)[0] & 7)
    elif b4 & 0xF1 == 0x21:
        system, length = "MPEG-1", 12
    else:
        raise Broken("media.corrupt", "expected MPEG-1 or MPEG-2 pack header marker bits")
    if src.at(length, 3) not in (b"\x00\x00\x01", b""):
        raise Broken("media.corrupt", f"expected a start code after the {system} pack header")
    head = src.head
    ids = {head[i + 3] for i in _start_codes(head)}
    has_video = any(0xE0 <= s <= 0xEF for s in ids)
    has_audio = any(0xC0 <= s <= 0xDF or s == 0xBD for s in ids)
    tracks = tuple(k for k, f in (("video", has_video), ("audio", has_audio)) if f)
    ev: dict[str, object] = {"container": "MPEG-PS", "system": system, "tracks": tracks}
    if not tracks:
        return refused(
            "media.no_tracks",
            "MPEG-PS",
            f"expected a video or audio stream in the first {len(head)} bytes of the "
            f"{system} program stream, found none",
            None,
            **ev,
        )
    ev["duration_range_s"] = None if src.partial else _ps_span(src)
    return found("video/mpeg", "MPEG-PS", f"{system} program stream", **ev)


_PACK = b"\x00\x00\x01\xba"


def _ps_span(src: Source) -> tuple[float, float] | None:
    """The span of the program stream, as a range of two readings (90 kHz clocks).

    Presentation time stamps (first to last) miss the frames of the last packet; the
    system clock references of the first and last pack headers include the muxer's
    preload. Neither is the duration, so both bound it.
    """
    head = src.head
    _, tail = src.tail()
    tail = tail[-src.limits.SNIFF_BYTES :]
    first, last = _stamps(head), _stamps(tail)
    if not first or not last or max(last) <= min(first):
        return None
    spans = [(max(last) - min(first)) / 90_000]
    clocks = [_scr(head, head.find(_PACK)), _scr(tail, tail.rfind(_PACK))]
    if clocks[0] is not None and clocks[1] is not None and clocks[1] > clocks[0]:
        spans.append((clocks[1] - clocks[0]) / 90_000)
    return round(min(spans), 3), round(max(spans), 3)


def _scr(data: bytes, at: int) -> int | None:
    """The system clock reference of the MPEG pack header at ``at``, in 90 kHz units."""
    b = data[at + 4 : at + 10] if at >= 0 else b""
    if len(b) == 6 and b[0] & 0xC0 == 0x40:  # MPEG-2
        return (
            ((b[0] >> 3) & 7) << 30
            | (b[0] & 3) << 28
            | b[1] << 20
            | (b[2] >> 3) << 15
            | (b[2] & 3) << 13
            | b[3] << 5
            | b[4] >> 3
        )
    if len(b) >= 5 and b[0] & 0xF0 == 0x20:  # MPEG-1
        return _timestamp(b)
    return None


def _timestamp(b: bytes) -> int:
    """Decode a 33-bit MPEG timestamp from its 5-byte form (marker bits skipped)."""
    return ((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1


def _pes_pts(data: bytes, at: int) -> int | None:
    """The presentation time stamp of the audio or video PES packet at ``at``, if any."""
    sid = data[at + 3] if at + 3 < len(data) else 0
    if not (0xC0 <= sid <= 0xEF or sid == 0xBD):
        return None
    pos = at + 6
    if pos + 3 <= len(data) and data[pos] & 0xC0 == 0x80:  # MPEG-2 PES header
        if not data[pos + 1] & 0x80:
            return None
        pos += 3
    else:  # MPEG-1: stuffing, an optional buffer size, then the time stamps
        while pos < min(len(data), at + 22) and data[pos] == 0xFF:
            pos += 1
        if pos < len(data) and data[pos] & 0xC0 == 0x40:
            pos += 2
        if pos >= len(data) or data[pos] & 0xE0 != 0x20:
            return None
    stamp = data[pos : pos + 5]
    return _timestamp(stamp) if len(stamp) == 5 else None


def _stamps(data: bytes) -> list[int]:
    """The time stamps of the PES packets in ``data`` (a bounded number of start codes)."""
    return [pts for at in _start_codes(data) if (pts := _pes_pts(data, at)) is not None]


def _start_codes(head: bytes) -> Iterator[int]:
    pos = head.find(b"\x00\x00\x01")
    count = 0
    while 0 <= pos < len(head) - 3 and count < 4096:
        yield pos
        count += 1
        pos = head.find(b"\x00\x00\x01", pos + 3)


def _mpeg_es(src: Source) -> Detected:
    data = src.need(4, 8)
    width = (data[0] << 4) | (data[1] >> 4)
    height = ((data[1] & 0x0F) << 8) | data[2]
    aspect, rate_code = data[3] >> 4, data[3] & 0x0F
    if not (width and height and aspect and 1 <= rate_code <= 8):
        raise Broken("media.corrupt", "expected an MPEG video sequence header, found junk")
    head = src.head
    pictures = head.find(b"\x00\x00\x01\x00", 12)
    if pictures < 0 and not src.partial:
        raise Broken("media.no_samples", "expected a picture after the MPEG video sequence header")
    ev = {"container": "none", "width": width, "height": height, "tracks": ("video",)}
    span = None if src.partial else _gop_span(src)
    return found(
        "video/mpeg",
        "MPEG video elementary stream",
        f"MPEG-1/2 video elementary stream, {width}x{height}",
        **ev,
        duration_range_s=span,
    )


_GOP = b"\x00\x00\x01\xb8"
_FRAME_RATES = (0.0, 24000 / 1001, 24.0, 25.0, 30000 / 1001, 30.0, 50.0, 60000 / 1001, 60.0)


def _gop_span(src: Source) -> tuple[float, float] | None:
    """A range for the duration, from group-of-pictures time codes (head and tail).

    The last group starts at its time code and lasts about as long as the first one did.
    """
    rate = _FRAME_RATES[src.head[7] & 0x0F]
    head = src.head
    first = head.find(_GOP)
    second = head.find(_GOP, first + 4) if first >= 0 else -1
    start, tail = src.tail()
    last = tail.rfind(_GOP)
    stamps = [
        _time_code(data, at, rate) for data, at in ((head, first), (head, second), (tail, last))
    ]
    if None in stamps or first < 0 or second < 0 or last < 0:
        return None
    begin, after, end = (float(s) for s in stamps)  # type: ignore[arg-type]
    gop = after - begin
    if gop <= 0 or end < begin:
        return None
    return round(end - begin, 3), round(end - begin + gop, 3)


def _time_code(data: bytes, at: int, rate: float) -> float | None:
    """Seconds of the time code of the GOP header at ``at`` (25 bits after the start code)."""
    raw = data[at + 4 : at + 8]
    if at < 0 or len(raw) < 4 or not rate:
        return None
    bits = int.from_bytes(raw, "big") >> 7
    hours, minutes = (bits >> 19) & 0x1F, (bits >> 13) & 0x3F
    seconds, pictures = (bits >> 6) & 0x3F, bits & 0x3F
    return hours * 3600 + minutes * 60 + seconds + pictures / rate


_TS_PACKETS = 8  # packets whose headers must all look right, or every packet in the head


def _is_ts(head: bytes) -> bool:
    """Tell a transport stream: 188, 192 or 204-byte packets with plausible headers.

    Each checked packet starts with the 0x47 sync byte, has a defined adaptation field
    control (not 00) and no reserved scrambling value (01); at least three packets.
    """
    if head[:1] != b"G" and head[4:5] != b"G":
        return False
    for first, step in ((0, 188), (4, 192), (0, 204)):
        positions = range(first, min(len(head) - 3, first + step * _TS_PACKETS), step)
        if len(positions) >= 3 and all(_ts_header(head, p) for p in positions):
            return True
    return False


def _ts_header(head: bytes, pos: int) -> bool:
    flags = head[pos + 3]
    return head[pos] == 0x47 and flags & 0x30 != 0 and flags & 0xC0 != 0x40


def _mpeg_ts(src: Source) -> Detected:
    return not_allowed("MPEG-TS", "video", container="MPEG-TS")


MPEG_PS = Format("MPEG-PS", "video", lambda h: h[:4] == b"\x00\x00\x01\xba", _mpeg_ps)
MPEG_ES = Format("MPEG video", "video", lambda h: h[:4] == b"\x00\x00\x01\xb3", _mpeg_es)
MPEG_TS = Format("MPEG-TS", "video", _is_ts, _mpeg_ts)
FORMATS = (MPEG_PS, MPEG_ES, MPEG_TS)
