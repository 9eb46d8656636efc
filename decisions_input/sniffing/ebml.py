"""EBML files: WebM, and Matroska, which the API does not list.

The EBML header names the DocType; the Segment's SeekHead points at its Tracks, so the
clusters of media data are jumped over, not walked, and the duration comes from the Info
element. A WebM with video is ``video/webm``, with audio only ``audio/webm``; one with
neither is ``media.no_tracks``. Matroska (DocType ``matroska``) is refused.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator

from .base import Broken, Detected, Format, Kind, Source, byte_at, found, not_allowed, refused

__all__ = ["EBML", "FORMATS"]


_EBML_SEGMENT = 0x18538067
_EBML_TRACKS = 0x1654AE6B
_EBML_INFO = 0x1549A966
_EBML_SEEKHEAD = 0x114D9B74
_EBML_CLUSTER = 0x1F43B675


def _vint(data: bytes, pos: int, *, marker: bool) -> tuple[int, int, bool]:
    """Read an EBML variable-size integer: value, length, whether it is 'unknown'."""
    first = byte_at(data, pos)
    if first == 0:
        raise Broken("media.corrupt", f"expected an EBML number at offset {pos}, found 0x00")
    length = 9 - first.bit_length()
    if pos + length > len(data):
        raise Broken("media.truncated", f"expected {length} EBML bytes at {pos}, found end")
    value = first if marker else first & (0xFF >> length)
    for byte in data[pos + 1 : pos + length]:
        value = (value << 8) | byte
    unknown = not marker and value == (1 << (7 * length)) - 1
    return value, length, unknown


def _elements(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Yield (id, payload start, payload end) of the EBML elements in ``data[start:end]``."""
    pos = start
    while pos < end:
        eid, n, _ = _vint(data, pos, marker=True)
        size, m, unknown = _vint(data, pos + n, marker=False)
        body = pos + n + m
        stop = end if unknown else min(body + size, end)
        yield eid, body, stop
        pos = stop


def _ebml_uint(data: bytes) -> int:
    return int.from_bytes(data[:8], "big")


def _ebml_float(data: bytes) -> float:
    if len(data) == 4:
        return float(struct.unpack(">f", data)[0])
    if len(data) == 8:
        return float(struct.unpack(">d", data)[0])
    return 0.0


def _ebml(src: Source) -> Detected:
    head = src.head
    _, n, _ = _vint(head, 0, marker=True)
    size, m, _ = _vint(head, n, marker=False)
    header_end = n + m + size
    doctype = ""
    for eid, body, stop in _elements(head, n + m, min(header_end, len(head))):
        if eid == 0x4282:
            doctype = head[body:stop].rstrip(b"\x00").decode("ascii", "replace")
    tracks, duration = _segment(src, header_end)
    return _matroska_verdict(doctype, tracks, duration)


def _segment(src: Source, off: int) -> tuple[list[dict[str, object]], float | None]:
    eid, body, end = _element_at(src, off)
    if eid != _EBML_SEGMENT:
        raise Broken("media.corrupt", f"expected a Segment element at offset {off}")
    tracks: list[dict[str, object]] | None = None
    duration, seek_tracks, pos = None, None, body
    while pos < min(end, src.size) and tracks is None:
        eid, ebody, eend = _element_at(src, pos)
        if eid == _EBML_TRACKS:
            tracks = _ebml_tracks(src.need(ebody, min(eend - ebody, 1 << 20)))
        elif eid == _EBML_INFO:
            duration = _ebml_duration(src.at(ebody, min(eend - ebody, 4096)))
        elif eid == _EBML_SEEKHEAD:
            seek_tracks = _seek_position(src.at(ebody, min(eend - ebody, 8192)), _EBML_TRACKS)
        elif eid == _EBML_CLUSTER and seek_tracks is not None and body + seek_tracks > pos:
            pos = body + seek_tracks
            continue
        if eend <= pos:
            break
        pos = eend
    if tracks is None:
        raise Broken("media.truncated", "expected a Tracks element, found none")
    return tracks, duration


def _element_at(src: Source, off: int) -> tuple[int, int, int]:
    src.step()
    src.need(off, 2)
    data = src.at(off, 12)
    eid, n, _ = _vint(data, 0, marker=True)
    size, m, unknown = _vint(data, n, marker=False)
    body = off + n + m
    return eid, body, (src.size if unknown else body + size)


def _seek_position(data: bytes, wanted: int) -> int | None:
    for eid, body, stop in _elements(data, 0, len(data)):
        if eid != 0x4DBB:
            continue
        ident, where = None, None
        for sid, sbody, sstop in _elements(data, body, stop):
            if sid == 0x53AB:
                ident = _ebml_uint(data[sbody:sstop])
            elif sid == 0x53AC:
                where = _ebml_uint(data[sbody:sstop])
        if ident == wanted:
            return where
    return None


def _ebml_duration(data: bytes) -> float | None:
    scale, duration = 1_000_000, None
    for eid, body, stop in _elements(data, 0, len(data)):
        if eid == 0x2AD7B1:
            scale = _ebml_uint(data[body:stop])
        elif eid == 0x4489:
            duration = _ebml_float(data[body:stop])
    if duration is None or not math.isfinite(duration) or duration < 0:
        return None  # a float no duration is: no figure, rather than a wrong one
    return round(duration * scale / 1e9, 3)


_EBML_TRACK_TYPES = {1: "video", 2: "audio", 17: "subtitle", 3: "complex", 16: "logo"}


def _ebml_tracks(data: bytes) -> list[dict[str, object]]:
    tracks = []
    for eid, body, stop in _elements(data, 0, len(data)):
        if eid != 0xAE:
            continue
        track: dict[str, object] = {}
        for tid, tbody, tstop in _elements(data, body, stop):
            value = data[tbody:tstop]
            if tid == 0x83:
                track["type"] = _EBML_TRACK_TYPES.get(_ebml_uint(value), "other")
            elif tid == 0x86:
                track["codec"] = value.rstrip(b"\x00").decode("ascii", "replace")
            elif tid in (0xE0, 0xE1):
                track.update(_ebml_track_detail(data, tbody, tstop))
        tracks.append(track)
    return tracks


def _ebml_track_detail(data: bytes, start: int, end: int) -> dict[str, object]:
    names = {0xB0: "width", 0xBA: "height", 0x9F: "channels", 0xB5: "sample_rate"}
    out: dict[str, object] = {}
    for eid, body, stop in _elements(data, start, end):
        if eid == 0xB5:  # a float: NaN, an infinity or a negative rate is no figure
            rate = _ebml_float(data[body:stop])
            if math.isfinite(rate) and rate > 0:
                out["sample_rate"] = int(rate)
        elif eid in names:
            out[names[eid]] = _ebml_uint(data[body:stop])
    return out


def _matroska_verdict(
    doctype: str, tracks: list[dict[str, object]], duration: float | None
) -> Detected:
    kinds = tuple(str(t.get("type", "other")) for t in tracks)
    video = next((t for t in tracks if t.get("type") == "video"), {})
    audio = next((t for t in tracks if t.get("type") == "audio"), {})
    ev: dict[str, object] = {
        "container": "Matroska",
        "doctype": doctype,
        "tracks": kinds,
        "codecs": tuple(str(t.get("codec", "")) for t in tracks),
        "duration_s": duration,
        "width": video.get("width"),
        "height": video.get("height"),
        "sample_rate": audio.get("sample_rate"),
        "channels": audio.get("channels"),
    }
    kind: Kind | None = "video" if video else ("audio" if audio else None)
    if doctype != "webm":
        name = "Matroska" if doctype == "matroska" else f"EBML ({doctype or 'no DocType'})"
        return not_allowed(name, kind, **ev)
    if not (video or audio):
        return refused(
            "media.no_tracks", "WebM", "expected an audio or video track in WebM", None, **ev
        )
    mime = "video/webm" if video else "audio/webm"
    detail = "with a video track" if video else "with audio tracks only"
    return found(mime, "WebM", f"WebM {detail}", **ev)


EBML = Format("Matroska", None, lambda h: h[:4] == b"\x1a\x45\xdf\xa3", _ebml)
FORMATS = (EBML,)
