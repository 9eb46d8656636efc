"""ISO base media files: MP4, QuickTime, 3GPP and M4A movies, and the HEIF images in them.

The top-level boxes say which: ``ftyp`` names the brands, ``moov`` indexes a movie's
tracks, ``meta`` holds a HEIF image's items (read by :mod:`.heif`).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .base import (
    Broken,
    Detected,
    Format,
    Kind,
    Source,
    after_end,
    foreign,
    found,
    not_allowed,
    refused,
)
from .boxes import Box, box_path, boxes, child
from .heif import heif

__all__ = ["FORMATS", "ISOBMFF"]


_IMAGE_BRANDS = frozenset(
    {"mif1", "mif2", "msf1", "heic", "heix", "heim", "heis", "hevc", "hevx", "heif"}
    | {"avif", "avis", "avci", "avcs", "jpeg", "jpgs", "miaf"}
)
_NOT_ALLOWED_BRANDS: Mapping[str, tuple[str, Kind]] = MappingProxyType(
    {
        "avif": ("AVIF", "image"),
        "avis": ("AVIF image sequence", "image"),
        "crx ": ("Canon CR3 raw image", "image"),
        "jpx ": ("JPEG 2000", "image"),
        "jpm ": ("JPEG 2000", "image"),
        "mjp2": ("Motion JPEG 2000", "video"),
        "mj2s": ("Motion JPEG 2000", "video"),
    }
)
_QT_FIRST = frozenset({"moov", "mdat", "wide", "free", "skip", "pnot"})


def _is_bmff(head: bytes) -> bool:
    kind = head[4:8]
    if kind == b"ftyp":
        return True
    return kind.decode("latin-1") in _QT_FIRST and len(head) >= 8


@dataclass(slots=True)
class _Layout:
    brands: tuple[str, ...] = ()
    moov: Box | None = None
    meta: Box | None = None
    cut: str | None = None
    end: int = 0


def _isobmff(src: Source) -> Detected:
    lay = _bmff_layout(src)
    major = lay.brands[0] if lay.brands else "qt  "
    fmt = _bmff_name(major)
    if lay.meta is not None and (lay.moov is None or major in _IMAGE_BRANDS):
        det = heif(src, lay.meta, lay.brands)
        if lay.cut is not None and det.mime is not None and not src.partial:
            return refused("media.truncated", det.format, lay.cut, det.kind, **det.evidence)
        return after_end(src, lay.end, det)
    if major in _NOT_ALLOWED_BRANDS:
        name, kind = _NOT_ALLOWED_BRANDS[major]
        return not_allowed(name, kind, brand=major, brands=lay.brands)
    if lay.moov is None and src.partial:
        mime = _movie_mime(major, major != "M4A ")
        return found(
            mime,
            fmt,
            f"{fmt} named from its brand; no moov box in the bytes given",
            container="ISO BMFF",
            brand=major,
            brands=lay.brands,
            partial=True,
        )
    if lay.moov is None:
        reason = lay.cut or "expected a moov box (the index), found none"
        raise Broken("media.truncated", reason, fmt, "video")
    det = _movie(src, lay.moov, major, fmt, lay.brands)
    if lay.cut is not None and det.mime is not None and not src.partial:
        return refused("media.truncated", det.format, lay.cut, det.kind, **det.evidence)
    return after_end(src, lay.end, det)


def _bmff_layout(src: Source) -> _Layout:
    """Walk the top-level boxes. Bytes after the last good box are left to :func:`after_end`."""
    lay = _Layout()
    walk = boxes(src, 0, src.size)
    while True:
        try:
            box = next(walk, None)
        except Broken:
            if not lay.end:
                raise
            break  # no box header after the last good box: trailing bytes
        if box is None:
            break
        valid = all(32 <= ord(c) < 127 for c in box.type)
        if lay.end and (not valid or box.end > src.size) and foreign(src.at(box.start, 64), ""):
            break  # another format starts here
        if not valid:
            if not lay.end:
                raise Broken("media.corrupt", f"expected a box type at offset {box.start}")
            break
        if box.type == "ftyp" and not lay.brands:
            lay.brands = _brands(src, box)
        elif box.type == "moov" and lay.moov is None:
            lay.moov = box
        elif box.type == "meta" and lay.meta is None:
            lay.meta = box
        lay.end = box.end
        if box.end > src.size:
            lay.cut = f"expected {box.end} bytes for the {box.type!r} box, found {src.size}"
            break
    return lay


def _brands(src: Source, box: Box) -> tuple[str, ...]:
    data = src.at(box.body, min(box.end - box.body, 4096))
    if len(data) < 8:
        raise Broken("media.corrupt", "expected a major brand in the ftyp box")
    names = [data[:4]] + [data[i : i + 4] for i in range(8, len(data) - 3, 4)]
    return tuple(n.decode("latin-1") for n in names)


def _bmff_name(major: str) -> str:
    if major == "qt  ":
        return "QuickTime"
    if major.startswith(("3gp", "3g2", "3ge", "3gg", "3gs")):
        return "3GPP"
    if major in ("M4A ", "M4B ", "M4P "):
        return "M4A"
    return "MP4"


@dataclass(frozen=True, slots=True)
class _Track:
    handler: str
    codec: str
    width: int = 0
    height: int = 0
    sample_rate: int = 0
    channels: int = 0


def _movie(src: Source, moov: Box, major: str, fmt: str, brands: tuple[str, ...]) -> Detected:
    tracks = [t for t in _tracks(src, moov) if t.handler in ("vide", "soun")]
    video = [t for t in tracks if t.handler == "vide"]
    audio = [t for t in tracks if t.handler == "soun"]
    ev: dict[str, object] = {
        "container": "ISO BMFF",
        "brand": major,
        "brands": brands,
        "tracks": tuple("video" if t.handler == "vide" else "audio" for t in tracks),
        "codecs": tuple(t.codec for t in tracks),
        "duration_s": _mvhd_duration(src, moov),
    }
    if video:
        ev.update(width=video[0].width, height=video[0].height)
    if audio:
        ev.update(sample_rate=audio[0].sample_rate, channels=audio[0].channels)
    if not tracks:
        return refused(
            "media.no_tracks",
            fmt,
            f"expected an audio or video track in {fmt}, found none",
            None,
            **ev,
        )
    mime = _movie_mime(major, bool(video))
    return found(
        mime, fmt if mime != "audio/m4a" else "M4A", _movie_reason(fmt, video, audio), **ev
    )


def _movie_mime(major: str, has_video: bool) -> str:
    if major == "qt  ":
        return "video/mov"
    if major.startswith(("3gp", "3g2", "3ge", "3gg", "3gs")):
        return "video/3gpp"
    if major in ("M4A ", "M4B ", "M4P ") or not has_video:
        return "audio/m4a"
    return "video/mp4"


def _movie_reason(fmt: str, video: list[_Track], audio: list[_Track]) -> str:
    return f"{fmt} with {len(video)} video and {len(audio)} audio track(s)"


def _tracks(src: Source, moov: Box) -> list[_Track]:
    tracks: list[_Track] = []
    for box in boxes(src, moov.body, min(moov.end, src.size)):
        if box.type == "trak" and len(tracks) < 64:
            mdia = child(src, box, "mdia")
            hdlr = child(src, mdia, "hdlr")
            if hdlr is None:
                continue
            handler = src.need(hdlr.body + 8, 4).decode("latin-1")
            stsd = box_path(src, mdia, "minf", "stbl", "stsd")
            tracks.append(_sample_entry(src, handler, stsd))
    return tracks


def _sample_entry(src: Source, handler: str, stsd: Box | None) -> _Track:
    if stsd is None or stsd.end - stsd.body < 16:
        return _Track(handler, "")
    entry = src.at(stsd.body + 8, 40)
    codec = entry[4:8].decode("latin-1") if len(entry) >= 8 else ""
    if handler == "vide" and len(entry) >= 36:
        width, height = struct.unpack_from(">HH", entry, 32)
        return _Track(handler, codec, width=width, height=height)
    if handler == "soun" and len(entry) >= 36:
        (channels,) = struct.unpack_from(">H", entry, 24)
        (rate,) = struct.unpack_from(">I", entry, 32)
        return _Track(handler, codec, sample_rate=rate >> 16, channels=channels)
    return _Track(handler, codec)


def _mvhd_duration(src: Source, moov: Box) -> float | None:
    mvhd = child(src, moov, "mvhd")
    if mvhd is None:
        return None
    data = src.at(mvhd.body, 32)
    if len(data) < 32:
        return None
    if data[0] == 1:
        scale, duration = struct.unpack_from(">IQ", data, 20)
    else:
        scale, duration = struct.unpack_from(">II", data, 12)
    return round(duration / scale, 3) if scale else None


ISOBMFF = Format("ISO BMFF", None, _is_bmff, _isobmff)
FORMATS = (ISOBMFF,)
