"""MPEG system and video streams: program streams (accepted), transport streams and bare
video elementary streams (refused).
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
    return found("video/mpeg", "MPEG-PS", f"{system} program stream", **ev)


def _start_codes(head: bytes) -> Iterator[int]:
    pos = head.find(b"\x00\x00\x01")
    count = 0
    while 0 <= pos < len(head) - 3 and count < 4096:
        yield pos
        count += 1
        pos = head.find(b"\x00\x00\x01", pos + 3)


def _mpeg_es(src: Source) -> Detected:
    data = src.need(4, 4)
    width = (data[0] << 4) | (data[1] >> 4)
    height = ((data[1] & 0x0F) << 8) | data[2]
    return not_allowed(
        "MPEG video elementary stream", "video", container="none", width=width, height=height
    )


_TS_PACKETS = 8  # packets whose headers must all look right, or every packet in the head


def _is_ts(head: bytes) -> bool:
    """Tell a transport stream: 188, 192 or 204-byte packets with plausible headers.

    Each checked packet starts with the 0x47 sync byte, has a defined adaptation field
    control (not 00) and no reserved scrambling value (01); at least three packets.
    """
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
