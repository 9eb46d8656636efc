"""ISO base media files: MP4, QuickTime, 3GPP and M4A movies, and the HEIF images in them.

The top-level boxes say which: ``ftyp`` names the brands, ``moov`` indexes a movie's
tracks (read by :mod:`.movie`), ``meta`` holds a HEIF image's items (read by
:mod:`.heif`). Decisions, checked with ffmpeg:

* **Names.** QuickTime is ``video/mov`` and 3GPP ``video/3gpp`` whatever tracks they
  hold; an MP4 with audio tracks only is ``audio/m4a``. AVIF, CR3, JPEG 2000 and Motion
  JPEG 2000 brands are refused.
* **The index.** A movie needs its ``moov``: one cut before it (``moov`` after the media
  data) is refused as ``media.truncated``; ffmpeg finds no stream in it.
* **Nothing to decode.** A movie whose tracks hold no samples, in its sample tables or in
  fragments (an initialization segment served apart from its fragments), is
  ``media.no_samples``: ffmpeg finds nothing to decode. One cut before its first sample's
  data is ``media.truncated``.
* **Cut short.** A movie whose ``moov`` is whole but whose media data (or last fragment)
  is cut plays as far as it goes in ffmpeg: accepted with ``media.incomplete``.
* **Fragments.** The top-level walk stops at the first ``moof`` of a fragmented movie;
  the last fragment is found in the tail, and gives the end of the movie and, when
  ``mvhd`` and ``mehd`` state none, the duration.
"""

from __future__ import annotations

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
    damaged,
    foreign,
    found,
    not_allowed,
    refused,
)
from .boxes import Box, boxes
from .heif import heif
from .movie import (
    Fragments,
    Track,
    fragment_defaults,
    fragments_end,
    movie_seconds,
    read_moof,
    tracks,
)

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
    moof: Box | None = None  # the first fragment
    cut: str | None = None  # a box runs past the end of the file
    end: int = 0
    jumped: bool = False  # the walk stopped at the first fragment


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
    if lay.moov is None or (lay.cut is not None and lay.moov.end > src.size):
        reason = lay.cut or "expected a moov box (the index), found none"
        raise Broken("media.truncated", reason, fmt, "video")
    return _movie(src, lay, major, fmt)


def _bmff_layout(src: Source) -> _Layout:
    """Walk the top-level boxes up to the first fragment of a fragmented movie.

    Bytes after the last good box are left to :func:`after_end`. A fragmented movie has
    a ``moof`` and an ``mdat`` per fragment; once ``moov`` (with ``mvex``) and the first
    ``moof`` are seen, the rest is read from the end of the file.
    """
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
        _note(src, lay, box)
        if lay.moof is not None and lay.moov is not None and not src.partial:
            lay.jumped = True
            break
        if box.end > src.size:
            lay.cut = f"expected {box.end} bytes for the {box.type!r} box, found {src.size}"
            break
    return lay


def _note(src: Source, lay: _Layout, box: Box) -> None:
    if box.type == "ftyp" and not lay.brands:
        lay.brands = _brands(src, box)
    elif box.type == "moov" and lay.moov is None:
        lay.moov = box
    elif box.type == "meta" and lay.meta is None:
        lay.meta = box
    elif box.type == "moof" and lay.moof is None:
        lay.moof = box
    lay.end = box.end


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


def _movie(src: Source, lay: _Layout, major: str, fmt: str) -> Detected:
    assert lay.moov is not None
    found_tracks = [t for t in tracks(src, lay.moov) if t.handler in ("vide", "soun")]
    video = [t for t in found_tracks if t.handler == "vide"]
    audio = [t for t in found_tracks if t.handler == "soun"]
    frags = fragment_defaults(src, lay.moov)
    ev: dict[str, object] = {
        "container": "ISO BMFF",
        "brand": major,
        "brands": lay.brands,
        "tracks": tuple("video" if t.handler == "vide" else "audio" for t in found_tracks),
        "codecs": tuple(t.codec for t in found_tracks),
        "fragmented": True if frags is not None else None,
    }
    if video:
        ev.update(width=video[0].width, height=video[0].height)
    if audio:
        ev.update(sample_rate=audio[0].sample_rate, channels=audio[0].channels)
    if not found_tracks:
        reason = f"expected an audio or video track in {fmt}, found none"
        return refused("media.no_tracks", fmt, reason, None, **ev)
    end, seconds = _samples(src, lay, found_tracks, frags)
    ev["duration_s"] = seconds
    mime = _movie_mime(major, bool(video))
    det = found(mime, fmt if mime != "audio/m4a" else "M4A", _movie_reason(fmt, video, audio), **ev)
    if lay.cut is not None or end > src.size:
        return damaged(
            det,
            "media.incomplete",
            f"{lay.cut or f'expected {end} bytes for the last fragment, found {src.size}'}; "
            "decoders play the samples there are",
        )
    return after_end(src, end, det)


def _samples(
    src: Source, lay: _Layout, found_tracks: list[Track], frags: Fragments | None
) -> tuple[int, float | None]:
    """Check that there is something to decode; return where the movie ends, its seconds.

    Refuses a movie whose tracks hold no samples (an initialization segment: ffmpeg finds
    nothing to decode) and one cut before its first sample's data.
    """
    assert lay.moov is not None
    seconds = movie_seconds(src, lay.moov)
    if lay.moof is None or frags is None:
        if not any(t.samples for t in found_tracks):
            raise Broken(
                "media.no_samples",
                "expected media samples in the tracks, found none (an initialization segment "
                "without its fragments)",
            )
        starts = [t.first_chunk for t in found_tracks if t.first_chunk is not None]
        if starts and min(starts) >= src.size and not src.partial:
            raise Broken(
                "media.truncated", f"expected sample data at offset {min(starts)}, found the end"
            )
        return lay.end, seconds
    if src.partial:
        return src.size, seconds or frags.seconds
    last, end = fragments_end(src, lay.moof)
    if seconds is None:
        seconds = frags.seconds or _fragment_seconds(src, lay.moof, last, frags, found_tracks)
    return (end if end is not None else src.size), seconds


def _fragment_seconds(
    src: Source, first: Box, last: Box | None, frags: Fragments, found_tracks: list[Track]
) -> float | None:
    """The span from the first fragment's decode time to the last one's end, per track."""
    if last is None:
        return None
    begin, end = read_moof(src, first, frags), read_moof(src, last, frags)
    scales = {t.track_id: t.timescale for t in found_tracks}
    # A track missing from the first fragment starts with the movie, at 0.
    spans = [
        (end[tid][1] - begin.get(tid, (0, 0, 0))[0]) / scales[tid] for tid in end if scales.get(tid)
    ]
    return round(max(spans), 3) if spans and max(spans) > 0 else None


def _movie_mime(major: str, has_video: bool) -> str:
    if major == "qt  ":
        return "video/mov"
    if major.startswith(("3gp", "3g2", "3ge", "3gg", "3gs")):
        return "video/3gpp"
    if major in ("M4A ", "M4B ", "M4P ") or not has_video:
        return "audio/m4a"
    return "video/mp4"


def _movie_reason(fmt: str, video: list[Track], audio: list[Track]) -> str:
    return f"{fmt} with {len(video)} video and {len(audio)} audio track(s)"


ISOBMFF = Format("ISO BMFF", None, _is_bmff, _isobmff)
FORMATS = (ISOBMFF,)
