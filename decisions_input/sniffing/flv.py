"""FLV: accepted when its header flags video or one of its first tags carries video.

Audio-only FLV is refused as ``mime.not_allowed``. The duration is the one the
``onMetaData`` script tag states, as ffmpeg reads it.
"""

from __future__ import annotations

import math
import struct

from .base import Broken, Detected, Format, Source, found, not_allowed

__all__ = ["FLV", "FORMATS"]


def _flv(src: Source) -> Detected:
    flags = src.need(4, 1)[0]
    (offset,) = struct.unpack(">I", src.need(5, 4))
    if offset < 9:
        raise Broken("media.corrupt", f"expected an FLV header size of 9, found {offset}")
    has_video = bool(flags & 1)
    off = offset + 4
    for _ in range(16):
        if has_video:
            break
        tag = src.at(off, 11)
        if len(tag) < 11:
            break
        src.step()
        has_video = tag[0] & 0x1F == 9
        off += 11 + int.from_bytes(tag[1:4], "big") + 4
    ev = {
        "container": "FLV",
        "tracks": tuple(k for k, f in (("video", has_video), ("audio", flags & 4)) if f),
        "duration_s": _metadata_seconds(src.head),
    }
    if not has_video:
        return not_allowed("FLV (audio only)", "audio", **ev)
    return found("video/x-flv", "FLV", "FLV with video", **ev)


def _metadata_seconds(head: bytes) -> float | None:
    """The ``duration`` of the ``onMetaData`` script tag (an AMF0 number), if positive."""
    at = head.find(b"\x00\x08duration\x00")  # the AMF0 key, then the number marker
    if at < 0 or len(head) < at + 19:
        return None
    (seconds,) = struct.unpack_from(">d", head, at + 11)
    return round(seconds, 3) if math.isfinite(seconds) and seconds > 0 else None


FLV = Format("FLV", "video", lambda h: h[:4] == b"FLV\x01", _flv)
FORMATS = (FLV,)
