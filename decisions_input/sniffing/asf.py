"""ASF: WMV is accepted, audio-only WMA is refused; streams are read from the header object.

The duration is the File Properties object's play duration less its preroll, as ffmpeg
reads it.
"""

from __future__ import annotations

import struct
import uuid

from .base import Detected, Format, Source, found, not_allowed, refused

__all__ = ["ASF", "FORMATS"]


def _guid(text: str) -> bytes:
    return uuid.UUID(text).bytes_le


_ASF_HEADER = _guid("75B22630-668E-11CF-A6D9-00AA0062CE6C")
_ASF_STREAM = _guid("B7DC0791-A9B7-11CF-8EE6-00C00C205365")
_ASF_FILE = _guid("8CABDCA1-A947-11CF-8EE4-00C00C205365")
_ASF_TYPES = {
    _guid("BC19EFC0-5B4D-11CF-A8FD-00805F5C442B"): "video",
    _guid("F8699E40-5B4D-11CF-A8FD-00805F5C442B"): "audio",
}


def _asf(src: Source) -> Detected:
    (size,) = struct.unpack("<Q", src.need(16, 8))
    header = src.need(0, min(size, 1 << 20))
    kinds: list[str] = []
    pos = header.find(_ASF_STREAM)
    while pos >= 0 and len(kinds) < 128:
        kinds.append(_ASF_TYPES.get(header[pos + 24 : pos + 40], "other"))
        pos = header.find(_ASF_STREAM, pos + 16)
    duration = None
    pos = header.find(_ASF_FILE)
    if pos >= 0 and pos + 80 <= len(header):
        play, _send, preroll = struct.unpack_from("<QQQ", header, pos + 64)
        duration = round(max(0.0, play / 1e7 - preroll / 1000), 3)
    ev: dict[str, object] = {"container": "ASF", "tracks": tuple(kinds), "duration_s": duration}
    if "video" in kinds:
        return found("video/wmv", "WMV", "ASF with a video stream", **ev)
    if "audio" in kinds:
        return not_allowed("WMA (ASF audio only)", "audio", **ev)
    return refused("media.no_tracks", "ASF", "expected an audio or video stream in ASF", None, **ev)


ASF = Format("ASF", None, lambda h: h[:16] == _ASF_HEADER, _asf)
FORMATS = (ASF,)
