"""What an ISO BMFF movie holds: its tracks and samples, and how long it plays.

A movie's ``moov`` box lists its tracks. A plain movie indexes its samples there (``stsz``
counts them, ``stco``/``co64`` place their data); a fragmented one (``mvex`` in ``moov``)
carries them in ``moof`` boxes spread over the file, as many as it has fragments. The
fragments are never walked: the first one shows that samples exist, and the last one,
found in the tail of the file, gives the end time (its ``tfdt`` decode time plus the
durations of its ``trun`` samples), so a recording of 10,000 fragments costs what one of
two does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .base import Source, byte_at, unpack
from .boxes import Box, box_path, boxes, child

__all__ = [
    "Fragments",
    "Track",
    "fragment_defaults",
    "fragments_end",
    "movie_seconds",
    "read_moof",
    "tracks",
]


@dataclass(frozen=True, slots=True)
class Track:
    """One track of a movie, as its ``trak`` box describes it."""

    handler: str
    codec: str
    track_id: int = 0
    timescale: int = 0
    samples: int = 0  # sample count in the sample table (0 in a fragmented movie)
    first_chunk: int | None = None  # where the first sample's data is, when indexed here
    width: int = 0
    height: int = 0
    sample_rate: int = 0
    channels: int = 0


def tracks(src: Source, moov: Box) -> list[Track]:
    found: list[Track] = []
    for box in boxes(src, moov.body, min(moov.end, src.size)):
        if box.type == "trak" and len(found) < 64:
            track = _track(src, box)
            if track is not None:
                found.append(track)
    return found


def _track(src: Source, trak: Box) -> Track | None:
    mdia = child(src, trak, "mdia")
    hdlr = child(src, mdia, "hdlr")
    if hdlr is None:
        return None
    handler = src.need(hdlr.body + 8, 4).decode("latin-1")
    stbl = box_path(src, mdia, "minf", "stbl")
    entry = _sample_entry(src, handler, child(src, stbl, "stsd"))
    return Track(
        handler,
        entry.codec,
        track_id=_track_id(src, child(src, trak, "tkhd")),
        timescale=_timescale(src, child(src, mdia, "mdhd")),
        samples=_sample_count(src, stbl),
        first_chunk=_first_chunk(src, stbl),
        width=entry.width,
        height=entry.height,
        sample_rate=entry.sample_rate,
        channels=entry.channels,
    )


def _sample_entry(src: Source, handler: str, stsd: Box | None) -> Track:
    if stsd is None or stsd.end - stsd.body < 16:
        return Track(handler, "")
    entry = src.at(stsd.body + 8, 40)
    codec = entry[4:8].decode("latin-1") if len(entry) >= 8 else ""
    if handler == "vide" and len(entry) >= 36:
        width, height = struct.unpack_from(">HH", entry, 32)
        return Track(handler, codec, width=width, height=height)
    if handler == "soun" and len(entry) >= 36:
        (channels,) = struct.unpack_from(">H", entry, 24)
        (rate,) = struct.unpack_from(">I", entry, 32)
        return Track(handler, codec, sample_rate=rate >> 16, channels=channels)
    return Track(handler, codec)


def _track_id(src: Source, tkhd: Box | None) -> int:
    if tkhd is None:
        return 0
    head = src.at(tkhd.body, 24)
    at = 20 if byte_at(head, 0) == 1 else 12
    return int(unpack(">I", head, at)[0])


def _timescale(src: Source, mdhd: Box | None) -> int:
    if mdhd is None:
        return 0
    head = src.at(mdhd.body, 24)
    at = 20 if byte_at(head, 0) == 1 else 12
    return int(unpack(">I", head, at)[0])


def _sample_count(src: Source, stbl: Box | None) -> int:
    """Samples in the sample table: ``stsz`` or ``stz2`` sample_count."""
    for name in ("stsz", "stz2"):
        box = child(src, stbl, name)
        if box is not None:
            return int(unpack(">I", src.at(box.body, 12), 8)[0])
    return 0


def _first_chunk(src: Source, stbl: Box | None) -> int | None:
    for name, fmt in (("stco", ">I"), ("co64", ">Q")):
        box = child(src, stbl, name)
        if box is not None:
            head = src.at(box.body, 16)
            if unpack(">I", head, 4)[0] == 0:
                return None
            return int(unpack(fmt, head, 8)[0])
    return None


def movie_seconds(src: Source, moov: Box) -> float | None:
    """The movie's duration from ``mvhd``, or None when it is not stated (0 or no scale)."""
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
    return round(duration / scale, 3) if scale and duration else None


# --------------------------------------------------------------------------------------
# Fragments
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class Fragments:
    """What ``mvex`` says about the fragments: defaults per track, the stated duration."""

    default_duration: dict[int, int] = field(default_factory=dict)  # track ID -> ticks
    seconds: float | None = None  # mehd, in the movie's time scale


def fragment_defaults(src: Source, moov: Box) -> Fragments | None:
    """Read ``mvex`` (None: the movie is not fragmented)."""
    mvex = child(src, moov, "mvex")
    if mvex is None:
        return None
    frags = Fragments()
    for box in boxes(src, mvex.body, min(mvex.end, src.size)):
        if box.type == "trex":
            track_id, _index, duration = unpack(">III", src.at(box.body + 4, 12))
            frags.default_duration[track_id] = duration
        elif box.type == "mehd":
            head = src.at(box.body, 12)
            ticks = unpack(">Q" if byte_at(head, 0) == 1 else ">I", head, 4)[0]
            scale = _movie_scale(src, moov)
            frags.seconds = round(ticks / scale, 3) if scale and ticks else None
    return frags


def _movie_scale(src: Source, moov: Box) -> int:
    mvhd = child(src, moov, "mvhd")
    if mvhd is None:
        return 0
    head = src.at(mvhd.body, 24)
    return int(unpack(">I", head, 20 if byte_at(head, 0) == 1 else 12)[0])


def read_moof(src: Source, moof: Box, frags: Fragments) -> dict[int, tuple[int, int, int]]:
    """Per track of one fragment: (decode start, decode end, sample count), in its ticks."""
    out: dict[int, tuple[int, int, int]] = {}
    for traf in boxes(src, moof.body, min(moof.end, src.size)):
        if traf.type != "traf":
            continue
        track_id, default, start, ticks, count = 0, 0, 0, 0, 0
        for box in boxes(src, traf.body, min(traf.end, src.size)):
            if box.type == "tfhd":
                track_id, default = _tfhd(src, box, frags)
            elif box.type == "tfdt":
                head = src.at(box.body, 12)
                start = int(unpack(">Q" if byte_at(head, 0) == 1 else ">I", head, 4)[0])
            elif box.type == "trun":
                run_ticks, run_count = _trun(src, box, default)
                ticks, count = ticks + run_ticks, count + run_count
        out[track_id] = (start, start + ticks, count)
    return out


def _tfhd(src: Source, box: Box, frags: Fragments) -> tuple[int, int]:
    head = src.at(box.body, 32)
    flags = int.from_bytes(head[1:4], "big")
    (track_id,) = unpack(">I", head, 4)
    at = 8 + (8 if flags & 1 else 0) + (4 if flags & 2 else 0)
    default = unpack(">I", head, at)[0] if flags & 8 else frags.default_duration.get(track_id, 0)
    return int(track_id), int(default)


def _trun(src: Source, box: Box, default: int) -> tuple[int, int]:
    """Return (ticks, samples) of one track run."""
    head = src.need(box.body, 8)
    flags = int.from_bytes(head[1:4], "big")
    (count,) = struct.unpack_from(">I", head, 4)
    if not flags & 0x100:
        return count * default, count
    at = box.body + 8 + (4 if flags & 1 else 0) + (4 if flags & 4 else 0)
    fields = sum(4 for bit in (0x100, 0x200, 0x400, 0x800) if flags & bit)
    table = src.need(at, count * fields)  # within the read bound, or too complex
    durations = struct.unpack_from(f">{count * (fields // 4)}I", table)[:: fields // 4]
    return sum(durations), count


def fragments_end(src: Source, first: Box) -> tuple[Box | None, int | None]:
    """Find the last ``moof`` in the tail of the file, and where its ``mdat`` ends.

    Returns (the last fragment, the end of its data) — the end is past the size of the
    file when the file was cut inside the last fragment. (None, None) when the tail holds
    no fragment (a last ``mdat`` longer than the tail).
    """
    start, tail = src.tail()
    pos = len(tail)
    while True:
        pos = tail.rfind(b"moof", 0, pos)
        if pos < 4 or start + pos - 4 < first.start:
            return None, None
        at = start + pos - 4
        (size,) = struct.unpack_from(">I", tail, pos - 4)
        if size >= 16 and tail[pos + 8 : pos + 12] == b"mfhd":
            moof = Box("moof", at, at + 8, at + size)
            return moof, _boxes_end(src, _mdat_end(src, moof))


_AFTER_FRAGMENTS = 4  # boxes after the last fragment (mfra, free, ...) taken as its end


def _boxes_end(src: Source, end: int) -> int:
    """Extend ``end`` over whole boxes after the last fragment, such as ``mfra``."""
    for _ in range(_AFTER_FRAGMENTS):
        head = src.at(end, 8)
        if len(head) < 8 or not all(32 <= c < 127 for c in head[4:8]):
            break
        (size,) = struct.unpack(">I", head[:4])
        if size < 8 or end + size > src.size:
            break
        end += size
    return end


def _mdat_end(src: Source, moof: Box) -> int:
    head = src.at(moof.end, 16)
    if len(head) < 8 or head[4:8] != b"mdat":
        return moof.end
    (size,) = struct.unpack_from(">I", head)
    if size == 1 and len(head) == 16:
        (size,) = struct.unpack_from(">Q", head, 8)
    elif size == 0:
        return src.size
    return int(moof.end + max(size, 8))
