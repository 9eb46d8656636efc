"""What every format family shares: the bounded source, the verdicts, the trailing bytes.

A family module reads its formats through a :class:`Source`, which counts every structure
step and every byte read past the head against ``Limits.MAX_SNIFF_STEPS`` and
``Limits.MAX_SNIFF_READ_BYTES``. It reports what it found with :func:`found`,
:func:`refused` or :func:`not_allowed`, raises :class:`Broken` for a broken structure, and
hands what follows the format's end to :func:`after_end`, which refuses another format's
signature there as a polyglot. Each family lists its formats as :class:`Format` entries,
and the registry puts them in order.
"""

from __future__ import annotations

import io
import logging
import struct
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, Protocol

from .._pickling import reduce_fields
from .._streams import ReadOnlyStream
from ..errors import Problem, Severity, SourceError
from ..limits import GEMINI, Limits

__all__ = [
    "KIND_BY_MIME",
    "TAIL_BYTES",
    "Broken",
    "Budget",
    "Detected",
    "Format",
    "Kind",
    "OutOfBudget",
    "RawView",
    "SeekableReader",
    "Source",
    "after_end",
    "buffered",
    "decoder_warnings",
    "byte_at",
    "check_pixels",
    "clean",
    "damaged",
    "earliest_polyglot_end",
    "found",
    "foreign",
    "not_allowed",
    "polyglot",
    "quiet_logger",
    "refused",
    "unpack",
    "with_evidence",
]

Kind = Literal["image", "audio", "video", "document"]


class SeekableReader(Protocol):
    """A binary stream that can be read and sought: an open file, ``BytesIO``, ...

    .. versionadded:: 0.1
    """

    def read(self, size: int = ..., /) -> bytes: ...

    def seek(self, offset: int, whence: int = ..., /) -> int: ...

    def tell(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Detected:
    """What the bytes of one media file are, or why they are refused.

    ``mime`` is an exact name from ``Limits.MIME_TYPES`` when the file is accepted, else
    ``None`` and ``code`` names the rule. ``format`` says what was found, for people.
    ``warnings`` lists damage the mainstream decoders tolerate in an accepted file (a
    missing end marker, a stream cut short), each a warning :class:`Problem` with an
    empty path; a block built from the bytes reports them at its own path.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2 ``warnings``.
    """

    kind: Kind | None
    mime: str | None
    format: str
    code: str | None
    reason: str
    evidence: Mapping[str, object] = field(default_factory=dict, hash=False)
    warnings: tuple[Problem, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.evidence, MappingProxyType):
            object.__setattr__(self, "evidence", MappingProxyType(dict(self.evidence)))

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle the fields, the evidence as the read-only mapping it is."""
        return reduce_fields(self)

    @property
    def ok(self) -> bool:
        """True when the bytes are a format the target accepts."""
        return self.mime is not None


class OutOfBudget(Exception):
    """More steps or bytes than the limits allow."""


class Broken(Exception):
    """The structure is broken; ``code`` is the rule code to refuse with."""

    def __init__(
        self, code: str, reason: str, fmt: str | None = None, kind: Kind | None = None
    ) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.fmt = fmt
        self.kind = kind


@dataclass(slots=True)
class Budget:
    steps: int
    nbytes: int


class Source:
    """Random access to ``size`` bytes of a stream from ``origin``, counted against a budget."""

    def __init__(
        self,
        fp: SeekableReader,
        origin: int,
        size: int,
        limits: Limits,
        budget: Budget,
        partial: bool = False,
        head: bytes | None = None,
    ) -> None:
        self._fp = fp
        self.partial = partial
        self._origin = origin
        self.size = size
        self.limits = limits
        self._budget = budget
        self._tail: bytes | None = None
        self.head = b""
        self.head = self.at(0, limits.SNIFF_BYTES) if head is None else head

    def allowance(self, nbytes: int) -> Source:
        """Return this source with a small budget of its own, for a library that reads freely."""
        budget = Budget(self.limits.MAX_SNIFF_STEPS // 16, nbytes)
        return Source(
            self._fp, self._origin, self.size, self.limits, budget, self.partial, self.head
        )

    @property
    def exhausted(self) -> bool:
        """True once a read or step went over the budget."""
        return self._budget.steps < 0 or self._budget.nbytes < 0

    def view(self, offset: int) -> Source:
        """Return the bytes from ``offset`` on as a source of their own."""
        return Source(
            self._fp,
            self._origin + offset,
            self.size - offset,
            self.limits,
            self._budget,
            self.partial,
        )

    def prefix(self, size: int) -> Source:
        """Return the first ``size`` bytes as a source of their own, on the same budget."""
        size = min(size, self.size)
        return Source(
            self._fp, self._origin, size, self.limits, self._budget, self.partial, self.head[:size]
        )

    def step(self) -> None:
        """Count one structure step."""
        self._budget.steps -= 1
        if self._budget.steps < 0:
            raise OutOfBudget("structure steps")

    def at(self, offset: int, n: int) -> bytes:
        """Return up to ``n`` bytes from ``offset``; fewer at the end of the file."""
        n = min(n, self.size - offset)
        if n <= 0 or offset < 0:
            return b""
        if offset + n <= len(self.head):
            return self.head[offset : offset + n]
        self._budget.nbytes -= n
        if self._budget.nbytes < 0:
            raise OutOfBudget("bytes read")
        return self._read(self._origin + offset, n)

    def _read(self, position: int, n: int) -> bytes:
        parts: list[bytes] = []
        try:
            self._fp.seek(position)
            while n > 0:
                chunk = self._fp.read(n)
                if not chunk:
                    break
                parts.append(bytes(chunk))
                n -= len(chunk)
        except (OSError, ValueError) as exc:
            raise SourceError(f"cannot read the media stream: {exc}") from exc
        return b"".join(parts)

    def need(self, offset: int, n: int) -> bytes:
        """Return exactly ``n`` bytes from ``offset`` or refuse the file as truncated."""
        data = self.at(offset, n)
        if len(data) < n:
            raise Broken("media.truncated", f"expected {n} bytes at offset {offset}, found end")
        return data

    def tail(self) -> tuple[int, bytes]:
        """Return the offset and bytes of the last ``22 + 65535`` bytes (the ZIP window)."""
        start = max(0, self.size - TAIL_BYTES)
        if self._tail is None:
            self._tail = self.at(start, self.size - start)
        return start, self._tail


class RawView(ReadOnlyStream):
    """A read-only file object over a :class:`Source`, for Pillow and pypdf.

    A seek before the start lands on 0: pypdf looks back a fixed distance from the end.
    """

    clamp_negative = True

    def __init__(self, src: Source) -> None:
        super().__init__(src.size)
        self._src = src

    def _read_at(self, pos: int, n: int) -> bytes:
        self._src.step()
        return self._src.at(pos, n)


def buffered(src: Source) -> io.BufferedReader:
    return io.BufferedReader(RawView(src), buffer_size=8192)


TAIL_BYTES = 22 + 0xFFFF


KIND_BY_MIME: Mapping[str, Kind] = MappingProxyType(
    {
        mime: kind  # type: ignore[misc]
        for kind, names in GEMINI.MIME_TYPES.items()
        for mime in names
    }
)


def found(mime: str, fmt: str, reason: str, **evidence: object) -> Detected:
    kind = KIND_BY_MIME.get(mime)
    return Detected(kind, mime, fmt, None, reason, clean(evidence))


def refused(
    code: str, fmt: str, reason: str, kind: Kind | None = None, **evidence: object
) -> Detected:
    return Detected(kind, None, fmt, code, reason, clean(evidence))


def clean(evidence: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in evidence.items() if v is not None}


def not_allowed(fmt: str, kind: Kind | None, **evidence: object) -> Detected:
    return refused(
        "mime.not_allowed",
        fmt,
        f"expected a format the API accepts, found {fmt}",
        kind,
        **evidence,
    )


def with_evidence(det: Detected, **evidence: object) -> Detected:
    return replace(det, evidence={**det.evidence, **clean(evidence)})


def unpack(fmt: str, data: bytes, pos: int = 0) -> tuple[Any, ...]:
    """``struct.unpack_from``, refusing the file as corrupt when ``data`` is too short."""
    size = struct.calcsize(fmt)
    if pos < 0 or pos + size > len(data):
        raise Broken(
            "media.corrupt", f"expected {size} bytes at {pos} of a {len(data)}-byte structure"
        )
    return struct.unpack_from(fmt, data, pos)


def byte_at(data: bytes, pos: int) -> int:
    """One byte of ``data``, refusing the file as corrupt when ``pos`` is past its end."""
    if not 0 <= pos < len(data):
        raise Broken("media.corrupt", f"expected a byte at {pos} of a {len(data)}-byte structure")
    return data[pos]


def damaged(det: Detected, code: str, reason: str) -> Detected:
    """Return an accepted verdict with a warning for damage the decoders tolerate."""
    if det.mime is None:
        return det
    note = Problem((), code, reason, Severity.WARNING)
    return replace(det, warnings=(*det.warnings, note))


def polyglot(det: Detected, other: str, where: str) -> Detected:
    return refused(
        "media.polyglot",
        det.format,
        f"expected only {det.format}, found {where}, so it also reads as {other}",
        det.kind,
        **{**det.evidence, "other_format": other},
    )


# Signatures of other formats, for bytes found after a format's end.
_FOREIGN: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "PDF"),
    (b"PK\x03\x04", "ZIP"),
    (b"PK\x05\x06", "ZIP"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"Rar!\x1a\x07", "RAR"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"\x1f\x8b\x08", "gzip"),
    (b"RIFF", "RIFF"),
    (b"OggS", "Ogg"),
    (b"fLaC", "FLAC"),
    (b"ID3", "ID3-tagged audio"),
    (b"\x1a\x45\xdf\xa3", "Matroska/WebM"),
    (b"\x7fELF", "ELF"),
    (b"<?xml", "XML"),
    (b"<svg", "SVG"),
    (b"<html", "HTML"),
    (b"<!doctype", "HTML"),
    (b"<script", "HTML"),
)


def foreign(data: bytes, own: str) -> str | None:
    """Name the format whose signature starts ``data`` (after padding), unless it is ``own``."""
    data = data.lstrip(b"\x00\r\n\t ")
    low = data[:16].lower()
    for sig, name in _FOREIGN:
        if (low if sig[:1] == b"<" else data).startswith(sig):
            return None if name == own else name
    return None


def after_end(src: Source, end: int, det: Detected) -> Detected:
    """Check what follows the format's end: another format refuses, anything else is noted."""
    if det.mime is None or end >= src.size:
        return det
    other = foreign(src.at(end, 64), det.format)
    if other is not None:
        return polyglot(det, other, f"{other} bytes after the end at offset {end}")
    return with_evidence(det, trailing_bytes=src.size - end)


def earliest_polyglot_end(tail: bytes, start: int, marker: bytes, cut: int, own: str) -> int:
    """Return the end of the first ``marker`` in the tail followed by a foreign signature."""
    pos = tail.find(marker, cut)
    while pos >= 0:
        end = pos + len(marker)
        if foreign(tail[end : end + 64], own) and tail[end : end + 64].strip(b"\x00"):
            return start + end
        pos = tail.find(marker, end)
    return 0


def check_pixels(width: int, height: int, src: Source, fmt: str) -> None:
    if width * height > src.limits.MAX_IMAGE_PIXELS:
        raise Broken(
            "image.too_many_pixels",
            f"expected at most {src.limits.MAX_IMAGE_PIXELS} pixels, found "
            f"{width}x{height} = {width * height} pixels in the {fmt} header",
            fmt,
            "image",
        )


def quiet_logger(name: str) -> None:
    """Keep a library's log records off stderr unless the application configured logging.

    pypdf and Pillow log repairs of broken files; with no handler anywhere, Python's
    last-resort handler would print them. A ``NullHandler`` stops that and still lets the
    records reach handlers the application adds.
    """
    logger = logging.getLogger(name)
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


# ``warnings.catch_warnings`` saves and restores the filters of the whole process (before
# Python 3.14): two threads inside it at once could each restore the other's filters and
# leave the process ignoring every warning. One lock keeps those sections apart.
_WARNING_FILTERS = threading.Lock()


@contextmanager
def decoder_warnings(refuse: type[Warning] | None = None) -> Iterator[None]:
    """Silence a decoder library's warnings while it reads a header; ``refuse`` raises.

    The filters of the process are changed only for the section, one thread at a time.
    """
    with _WARNING_FILTERS, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if refuse is not None:
            warnings.simplefilter("error", refuse)
        yield


@dataclass(frozen=True, slots=True)
class Format:
    """One entry of the registry: a test on the head, and the reader it chooses.

    ``read`` returns a verdict, or None when the bytes are not this format after all (the
    registry then tries the next entry). ``name`` and ``kind`` label a refusal raised as
    :class:`Broken` without a format of its own.
    """

    name: str
    kind: Kind | None
    accept: Callable[[bytes], bool]
    read: Callable[[Source], Detected | None]
