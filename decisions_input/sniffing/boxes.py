"""ISO BMFF boxes: the size-and-type headers that MP4, QuickTime, 3GPP and HEIF are made of."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from .base import Broken, Source

__all__ = ["Box", "box_path", "boxes", "child"]


@dataclass(frozen=True, slots=True)
class Box:
    type: str
    start: int
    body: int
    end: int


def boxes(src: Source, start: int, end: int) -> Iterator[Box]:
    off = start
    while off + 8 <= end:
        src.step()
        head = src.need(off, 8)
        size, raw = struct.unpack(">I4s", head)
        body = off + 8
        if size == 1:
            (size,) = struct.unpack(">Q", src.need(off + 8, 8))
            body = off + 16
        elif size == 0:
            size = end - off
        if size < body - off:
            raise Broken("media.corrupt", f"expected a box size at offset {off}, found {size}")
        yield Box(raw.decode("latin-1"), off, body, off + size)
        off += size


def child(src: Source, box: Box | None, name: str, skip: int = 0) -> Box | None:
    if box is None:
        return None
    for sub in boxes(src, box.body + skip, min(box.end, src.size)):
        if sub.type == name:
            return sub
    return None


def box_path(src: Source, box: Box | None, *names: str) -> Box | None:
    for name in names:
        box = child(src, box, name)
    return box
