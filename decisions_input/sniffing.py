"""Tell what a media file is from its bytes, never from its name or declared type.

:func:`sniff_stream` reads a bounded head (``Limits.SNIFF_BYTES``), a bounded tail, and
then walks the container's own structure by seeking from header to header (ISO BMFF boxes,
EBML elements, RIFF and AIFF chunks, Ogg pages, ASF objects, PNG chunks, JPEG segments).
Every read and every header counts against ``Limits.MAX_SNIFF_STEPS`` and
``Limits.MAX_SNIFF_READ_BYTES``, so a hostile file cannot loop and a 1 GB file sniffs as
fast as a 1 MB one. Pillow confirms image headers (size only, never pixels), pypdf counts
PDF pages, and libmagic names formats outside the API's lists; all three are imported on
first use and none of their errors escapes: each becomes a refusal (``Detected.code``) or a
:class:`~decisions_input.errors.SourceError` when the stream itself fails.

Decisions where the API reference is silent, each the reading that never lets through what
the server may refuse:

* **HEIF.** A HEIF file whose primary item is HEVC-coded (``hvc1``, or a grid of ``hvc1``
  tiles) sniffs as ``image/heic``; a declaration of ``image/heif`` matches it too, since
  HEIC is a kind of HEIF. A HEIF file coded otherwise (JPEG, H.264, uncompressed, ...)
  sniffs as ``image/heif`` and only that declaration matches. An AV1-coded primary item
  (AVIF) is refused whatever the brands say, ``mif1`` included.
* **MPEG video.** A program stream (pack header ``00 00 01 BA``) is ``video/mpeg`` when
  its head (``SNIFF_BYTES``) holds a video or audio PES stream ID; with none it is
  refused as ``media.no_tracks``. A bare MPEG-1/2 video elementary stream (sequence
  header ``00 00 01 B3``) has no system layer and is refused as ``mime.not_allowed``, and
  so are H.264/H.265 Annex B streams (start code, then SPS or VPS) and transport streams
  (three or more 188, 192 or 204-byte packets, each with a sync byte, a defined
  adaptation field control and no reserved scrambling value).
* **Polyglots.** A file is refused as ``media.polyglot`` when (a) bytes after its format's
  end (PNG ``IEND``, JPEG ``EOI``, GIF trailer, PDF ``%%EOF``, RIFF/AIFF form size, ISO BMFF
  boxes, BMP file size) start with another format's signature, (b) a non-PDF file has a
  ``%PDF-`` starting in its first 1024 bytes (where PDF readers look for it; a file with
  no other header is a PDF then), or (c) a non-ZIP file ends with a well-formed ZIP
  end-of-central-directory record (where ZIP readers look).
  Bytes after the end that match no signature are tolerated and reported as
  ``evidence["trailing_bytes"]``.
* **Integrity.** Images and PDFs must be complete: the end marker is present whole (PNG's
  12-byte ``IEND`` chunk with its CRC), a HEIF ``meta`` box ends in the file and so does
  every item extent its ``iloc`` places there, and a TIFF's strips, tiles and out-of-line
  tag values (first image) and its IFD chain (up to 64 images) end in the file. MP4 needs
  its ``moov`` index. Streams that decode from any prefix (WAV, AIFF, MP3, AAC, FLAC, Ogg,
  WebM) are accepted when cut short, but an AIFF with frames needs its ``SSND`` chunk.
  Every encrypted PDF is refused, with or without a user password. MPEG audio and AC-3
  must show a chain of three frame headers (two when the file ends exactly after them).
  AC-3's chain starts at the stream start. For MPEG audio and ADTS the first frame may
  start up to ``Limits.MAX_AUDIO_JUNK_BYTES`` after the stream start (after ID3 tags and
  zero padding), past junk that stream recordings and some taggers leave and decoders
  resync past. The first position whose chain holds wins, the bytes skipped are reported
  as ``evidence["junk_bytes"]``, and no frame further in is looked for.
* **Declared lengths.** A length read from a header never reaches past the bytes present:
  the WAV ``data`` size (RF64: the ``ds64`` size), AIFF's frame count and ``SSND`` size,
  the MP3 Xing/Info frame count and FLAC's sample count are capped by what the file can
  hold, so ``duration_s`` is too. A size a streaming writer left unset (``0`` or
  ``0xFFFFFFFF`` in a form whose own size is unset, as ffmpeg and sox write to a pipe)
  runs to the end of the file. With ``partial=True`` a length the head cannot confirm
  gives no duration.
* **Bounds on the libraries.** Pillow reads at most ``4 * SNIFF_BYTES`` past the head; when
  a header needs more, the size from the own header parse stands unconfirmed. pypdf's
  page tree is walked node by node up to 2000 nodes (``evidence["pages_exact"]``); past
  that the document's ``/Count`` is reported. A page tree that reaches a node twice is
  refused as corrupt. Both libraries' log records get a ``NullHandler``, so they reach the
  application's logging but are never printed by Python's last-resort handler.
* **Headerless audio.** ``audio/l16``, ``audio/alaw`` and ``audio/mulaw`` are accepted only
  when declared, and only when none of the library's own recognisers names the bytes:
  signatures, markup (SVG, HTML, XML), JSON, and plain text (libmagic is not asked: it has
  weak guesses for any byte string). Bytes they name are refused as that format, like
  undeclared ones. For G.711 plain text needs whitespace between words, since a quiet
  signal of one sign is all ASCII letters. ``rate`` and ``channels`` parameters must be
  positive integers; L16 needs a whole number of 2-byte samples per channel.
* **Other names.** MP3 and MPEG audio layers I/II sniff as ``audio/mpeg`` (``audio/mp3``
  matches it through ``Limits.MIME_EQUIVALENTS``). Ogg audio is ``audio/ogg`` whatever its
  codec; a declared ``audio/opus`` matches only when every logical stream is Opus. An MP4
  with audio tracks only is ``audio/m4a``. QuickTime is ``video/mov`` and 3GPP is
  ``video/3gpp`` whatever tracks they hold. FLV must flag or carry a video tag, and AVI
  must list a video stream: audio-only FLV and AVI are refused as ``mime.not_allowed``
  like WMA, and an AVI with no audio or video stream as ``media.no_tracks``. AC-3,
  E-AC-3, Wave64, VOC and Netpbm (PBM, PGM, PPM) are named and refused.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import re
import struct
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._streams import ReadOnlyStream
from .errors import SourceError
from .limits import GEMINI, Limits

if TYPE_CHECKING:
    from magic import Magic

__all__ = ["Detected", "Kind", "SeekableReader", "mime_matches", "sniff_bytes", "sniff_stream"]

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

    .. versionadded:: 0.1
    """

    kind: Kind | None
    mime: str | None
    format: str
    code: str | None
    reason: str
    evidence: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.evidence, MappingProxyType):
            object.__setattr__(self, "evidence", MappingProxyType(dict(self.evidence)))

    @property
    def ok(self) -> bool:
        """True when the bytes are a format the target accepts."""
        return self.mime is not None


# --------------------------------------------------------------------------------------
# Bounded access to the stream
# --------------------------------------------------------------------------------------


class _OutOfBudget(Exception):
    """More steps or bytes than the limits allow."""


class _Broken(Exception):
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
class _Budget:
    steps: int
    nbytes: int


class _Source:
    """Random access to ``size`` bytes of a stream from ``origin``, counted against a budget."""

    def __init__(
        self,
        fp: SeekableReader,
        origin: int,
        size: int,
        limits: Limits,
        budget: _Budget,
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

    def allowance(self, nbytes: int) -> _Source:
        """Return this source with a small budget of its own, for a library that reads freely."""
        budget = _Budget(self.limits.MAX_SNIFF_STEPS // 16, nbytes)
        return _Source(
            self._fp, self._origin, self.size, self.limits, budget, self.partial, self.head
        )

    @property
    def exhausted(self) -> bool:
        """True once a read or step went over the budget."""
        return self._budget.steps < 0 or self._budget.nbytes < 0

    def view(self, offset: int) -> _Source:
        """Return the bytes from ``offset`` on as a source of their own."""
        return _Source(
            self._fp,
            self._origin + offset,
            self.size - offset,
            self.limits,
            self._budget,
            self.partial,
        )

    def step(self) -> None:
        """Count one structure step."""
        self._budget.steps -= 1
        if self._budget.steps < 0:
            raise _OutOfBudget("structure steps")

    def at(self, offset: int, n: int) -> bytes:
        """Return up to ``n`` bytes from ``offset``; fewer at the end of the file."""
        n = min(n, self.size - offset)
        if n <= 0 or offset < 0:
            return b""
        if offset + n <= len(self.head):
            return self.head[offset : offset + n]
        self._budget.nbytes -= n
        if self._budget.nbytes < 0:
            raise _OutOfBudget("bytes read")
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
            raise _Broken("media.truncated", f"expected {n} bytes at offset {offset}, found end")
        return data

    def tail(self) -> tuple[int, bytes]:
        """Return the offset and bytes of the last ``22 + 65535`` bytes (the ZIP window)."""
        start = max(0, self.size - _TAIL_BYTES)
        if self._tail is None:
            self._tail = self.at(start, self.size - start)
        return start, self._tail


class _RawView(ReadOnlyStream):
    """A read-only file object over a :class:`_Source`, for Pillow and pypdf.

    A seek before the start lands on 0: pypdf looks back a fixed distance from the end.
    """

    clamp_negative = True

    def __init__(self, src: _Source) -> None:
        super().__init__(src.size)
        self._src = src

    def _read_at(self, pos: int, n: int) -> bytes:
        self._src.step()
        return self._src.at(pos, n)


def _buffered(src: _Source) -> io.BufferedReader:
    return io.BufferedReader(_RawView(src), buffer_size=8192)


_TAIL_BYTES = 22 + 0xFFFF
_PDF_WINDOW = 1024


def _pdf_start(head: bytes) -> int:
    """Return where a ``%PDF-`` header starting in the first 1024 bytes is, or -1."""
    return head.find(b"%PDF-", 0, _PDF_WINDOW + 4)


# --------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------

_KIND_BY_MIME: Mapping[str, Kind] = MappingProxyType(
    {
        mime: kind  # type: ignore[misc]
        for kind, names in GEMINI.MIME_TYPES.items()
        for mime in names
    }
)


def _found(mime: str, fmt: str, reason: str, **evidence: object) -> Detected:
    kind = _KIND_BY_MIME.get(mime)
    return Detected(kind, mime, fmt, None, reason, _clean(evidence))


def _refused(
    code: str, fmt: str, reason: str, kind: Kind | None = None, **evidence: object
) -> Detected:
    return Detected(kind, None, fmt, code, reason, _clean(evidence))


def _clean(evidence: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in evidence.items() if v is not None}


def _not_allowed(fmt: str, kind: Kind | None, **evidence: object) -> Detected:
    return _refused(
        "mime.not_allowed",
        fmt,
        f"expected a format the API accepts, found {fmt}",
        kind,
        **evidence,
    )


def _with(det: Detected, **evidence: object) -> Detected:
    return replace(det, evidence={**det.evidence, **_clean(evidence)})


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def sniff_stream(
    fp: SeekableReader,
    size: int,
    *,
    declared: str | None = None,
    limits: Limits = GEMINI,
    partial: bool = False,
) -> Detected:
    """Tell what the ``size`` bytes of ``fp`` from its current position are.

    ``fp`` must be seekable; its position is restored. ``declared`` is only read for the
    headerless audio types, which the bytes alone cannot show; compare it with the result
    through :func:`mime_matches`. ``partial=True`` says the bytes are only the start of a
    longer file (a ranged download): checks that need the end of the file (end markers,
    ZIP tail, ``moov`` after the media data, PDF page count, sample-frame length) are
    skipped, and an MP4 whose ``moov`` is not in the bytes is named from its brand.

    Raises:
        SourceError: the stream cannot be read or sought.

    .. versionadded:: 0.1
    """
    if size < 0:
        raise SourceError(f"expected a size of 0 bytes or more, found {size}")
    if size == 0:
        return _refused("media.empty", "empty", "expected media bytes, found an empty file")
    try:
        origin = fp.tell()
    except (OSError, ValueError, AttributeError) as exc:
        raise SourceError(f"expected a seekable binary stream: {exc}") from exc
    budget = _Budget(limits.MAX_SNIFF_STEPS, limits.MAX_SNIFF_READ_BYTES)
    try:
        src = _Source(fp, origin, size, limits, budget, partial)
        det = _identify(src, declared)
    except _OutOfBudget as exc:
        det = _refused(
            "media.too_complex",
            "unknown",
            f"expected to confirm the format within the sniffing bound, ran out of {exc}",
        )
    finally:
        with contextlib.suppress(OSError, ValueError):
            fp.seek(origin)
    return _settle(det, limits)


def sniff_bytes(
    data: bytes | bytearray | memoryview,
    *,
    declared: str | None = None,
    limits: Limits = GEMINI,
    partial: bool = False,
) -> Detected:
    """Tell what ``data`` is; see :func:`sniff_stream`.

    .. versionadded:: 0.1
    """
    raw = bytes(data)
    return sniff_stream(
        io.BytesIO(raw), len(raw), declared=declared, limits=limits, partial=partial
    )


def mime_matches(detected: Detected, declared: str, *, limits: Limits = GEMINI) -> bool:
    """Return True when ``declared`` names what was detected.

    Names are compared without parameters and case, up to ``Limits.MIME_EQUIVALENTS``
    (``audio/mp3`` is ``audio/mpeg`` for layer III; MPEG audio of layers I and II matches
    only ``audio/mpeg``). ``image/heif`` also matches HEVC-coded HEIF
    (``image/heic``); ``audio/opus`` matches Ogg only when every stream in it is Opus.

    .. versionadded:: 0.1
    """
    if detected.mime is None:
        return False
    try:
        want = _canonical(_parse_mime(declared)[0], limits)
    except _Broken:
        return False
    got = _canonical(detected.mime, limits)
    if want == got:
        # audio/mp3 names layer III; MPEG audio of layers I and II is only audio/mpeg.
        literal = _parse_mime(declared)[0].strip().lower()
        return not (literal == "audio/mp3" and detected.format != "MP3")
    if want == "audio/opus" and got == "audio/ogg":
        codecs = detected.evidence.get("codecs")
        return isinstance(codecs, tuple) and bool(codecs) and all(c == "opus" for c in codecs)
    return want == "image/heif" and got == "image/heic"


def _canonical(mime: str, limits: Limits) -> str:
    mime = mime.strip().lower()
    return limits.MIME_EQUIVALENTS.get(mime, mime)


def _parse_mime(text: str) -> tuple[str, dict[str, str]]:
    base, *parts = text.split(";")
    params: dict[str, str] = {}
    for part in parts:
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise _Broken("mime.parameter", f"expected name=value parameters, found {part!r}")
        params[key.strip().lower()] = value.strip().strip('"')
    return base.strip().lower(), params


def _settle(det: Detected, limits: Limits) -> Detected:
    """Give an accepted result the target's own name for its type, or refuse it."""
    if det.mime is None:
        return det
    aliases = [k for k, v in limits.MIME_EQUIVALENTS.items() if v == det.mime]
    for name in (det.mime, *aliases):
        for kind, allowed in limits.MIME_TYPES.items():
            if name in allowed:
                return replace(det, mime=name, kind=kind)  # type: ignore[arg-type]
    return replace(
        det,
        mime=None,
        code="mime.not_allowed",
        reason=f"expected a type this target accepts, found {det.format} ({det.mime})",
    )


# --------------------------------------------------------------------------------------
# Dispatch
# --------------------------------------------------------------------------------------

_Handler = Callable[[_Source], "Detected | None"]


def _identify(src: _Source, declared: str | None) -> Detected:
    head = src.head
    if head.startswith(b"ID3"):
        det = _run(_after_id3, src, "ID3-tagged audio", "audio")
        return _polyglot_check(src, det) if det is not None else _unrecognised(src, declared)
    for test, handler, fmt, kind in _HANDLERS:
        if test(head):
            det = _run(handler, src, fmt, kind)
            if det is not None:
                return _polyglot_check(src, det)
    return _unrecognised(src, declared)


def _run(handler: _Handler, src: _Source, fmt: str, kind: Kind | None) -> Detected | None:
    try:
        return handler(src)
    except _Broken as exc:
        return _refused(exc.code, exc.fmt or fmt, exc.reason, exc.kind or kind)
    except (struct.error, IndexError, ValueError, OverflowError, UnicodeError) as exc:
        return _refused("media.corrupt", fmt, f"expected a well-formed {fmt}, found: {exc}", kind)


def _polyglot_check(src: _Source, det: Detected) -> Detected:
    """Refuse an accepted file that other readers would take for a PDF or a ZIP."""
    if det.mime is None:
        return det
    if det.mime != "application/pdf" and _pdf_start(src.head) >= 0:
        return _polyglot(det, "PDF", "a %PDF- header in the first 1024 bytes")
    if not src.partial and _zip_at_end(src):
        return _polyglot(det, "ZIP", "a ZIP end-of-central-directory record at the end")
    return det


def _polyglot(det: Detected, other: str, where: str) -> Detected:
    return _refused(
        "media.polyglot",
        det.format,
        f"expected only {det.format}, found {where}, so it also reads as {other}",
        det.kind,
        **{**det.evidence, "other_format": other},
    )


def _zip_at_end(src: _Source) -> bool:
    start, tail = src.tail()
    pos = tail.rfind(b"PK\x05\x06")
    while pos >= 0:
        if len(tail) - pos >= 22:
            disk, cd_disk, n_disk, n_total, cd_size, cd_off, comment = struct.unpack_from(
                "<HHHHIIH", tail, pos + 4
            )
            zip64 = cd_off == 0xFFFFFFFF
            if (
                pos + 22 + comment == len(tail)
                and disk == cd_disk
                and n_disk == n_total
                and (zip64 or cd_off + cd_size <= start + pos)
            ):
                return True
        pos = tail.rfind(b"PK\x05\x06", 0, pos)
    return False


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


def _foreign(data: bytes, own: str) -> str | None:
    """Name the format whose signature starts ``data`` (after padding), unless it is ``own``."""
    data = data.lstrip(b"\x00\r\n\t ")
    low = data[:16].lower()
    for sig, name in _FOREIGN:
        if (low if sig[:1] == b"<" else data).startswith(sig):
            return None if name == own else name
    return None


def _after_end(src: _Source, end: int, det: Detected) -> Detected:
    """Check what follows the format's end: another format refuses, anything else is noted."""
    if det.mime is None or end >= src.size:
        return det
    other = _foreign(src.at(end, 64), det.format)
    if other is not None:
        return _polyglot(det, other, f"{other} bytes after the end at offset {end}")
    return _with(det, trailing_bytes=src.size - end)


# --------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------


def _pixels(width: int, height: int, src: _Source, fmt: str) -> None:
    if width * height > src.limits.MAX_IMAGE_PIXELS:
        raise _Broken(
            "image.too_many_pixels",
            f"expected at most {src.limits.MAX_IMAGE_PIXELS} pixels, found "
            f"{width}x{height} = {width * height} pixels in the {fmt} header",
            fmt,
            "image",
        )


def _pillow_size(src: _Source, pil_format: str) -> tuple[int, int] | None:
    """Open the header with Pillow (never decoding pixels).

    Returns None when Pillow is absent or its header parse needs more than its allowance
    of ``4 * SNIFF_BYTES`` bytes past the head; the size read by the own parser stands then.
    """
    try:
        from PIL import Image
    except ImportError:
        return None
    _quiet_logger("PIL")
    local = src.allowance(4 * src.limits.SNIFF_BYTES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(_buffered(local), formats=[pil_format]) as im:
                width, height = im.size
                return int(width), int(height)
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise _Broken("image.too_many_pixels", f"Pillow refuses the size: {exc}") from exc
        except _OutOfBudget:
            return None
        except SourceError:
            raise
        except Exception as exc:  # Pillow raises many kinds on hostile headers
            if local.exhausted:
                return None
            raise _Broken(
                "media.corrupt", f"expected a readable {pil_format} header, Pillow says: {exc}"
            ) from exc


def _image(
    src: _Source, mime: str, fmt: str, pil: str | None, w: int, h: int, **ev: object
) -> Detected:
    _pixels(w, h, src, fmt)
    size = _pillow_size(src, pil) if pil else None
    if size is not None and size != (w, h):
        raise _Broken(
            "media.corrupt", f"expected the {fmt} header size {w}x{h}, Pillow reads {size}"
        )
    return _found(mime, fmt, f"{fmt} image, {w}x{h}", width=w, height=h, pixels=w * h, **ev)


_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _png(src: _Source) -> Detected:
    length, ctype = struct.unpack(">I4s", src.need(8, 8))
    if ctype != b"IHDR" or length != 13:
        raise _Broken("media.corrupt", f"expected IHDR as the first PNG chunk, found {ctype!r}")
    width, height = struct.unpack(">II", src.need(16, 8))
    if not (width and height):
        raise _Broken("media.corrupt", "expected a PNG width and height above 0, found 0")
    _pixels(width, height, src, "PNG")
    end, animated = _png_end(src)
    det = _image(src, "image/png", "PNG", "PNG", width, height, animated=animated or None)
    return _after_end(src, end, det)


def _png_end(src: _Source) -> tuple[int, bool]:
    """Walk the chunks to the end of IEND; fall back to the tail when the walk is long."""
    off, animated = 8, False
    for _ in range(src.limits.MAX_SNIFF_STEPS // 2):
        src.step()
        header = src.at(off, 8)
        if len(header) < 8:
            if src.partial:
                return src.size, animated
            raise _Broken("media.truncated", f"expected a PNG chunk at offset {off}, found end")
        length, ctype = struct.unpack(">I4s", header)
        if length > 0x7FFFFFFF or not ctype.isalpha():
            raise _Broken("media.corrupt", f"expected a PNG chunk at offset {off}, found junk")
        animated = animated or ctype == b"acTL"
        off += 12 + length
        if ctype == b"IEND":
            if off > src.size and not src.partial:
                raise _Broken("media.truncated", "expected a whole IEND chunk, found its start")
            return off, animated
        if off > src.size:
            if src.partial:
                return src.size, animated
            raise _Broken("media.truncated", "expected an IEND chunk, the file ends inside a chunk")
    if src.partial:
        return src.size, animated
    start, tail = src.tail()
    pos = tail.rfind(_PNG_IEND)
    if pos < 0:
        raise _Broken("media.truncated", "expected an IEND chunk near the end, found none")
    return start + pos + len(_PNG_IEND), animated


def _jpeg(src: _Source) -> Detected:
    off, size, sos, progressive = 2, None, None, False
    while sos is None:
        if src.partial and size is not None and off + 4 > src.size:
            break  # a head that ends before the scan, after the frame header
        src.step()
        marker, off = _jpeg_marker(src, off)
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            continue
        if marker == 0xD9:
            raise _Broken("media.corrupt", "expected image data before the JPEG end marker")
        (length,) = struct.unpack(">H", src.need(off, 2))
        if length < 2:
            raise _Broken("media.corrupt", f"expected a JPEG segment length, found {length}")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", src.need(off + 3, 4))
            size, progressive = (width, height), marker in (0xC2, 0xC6, 0xCA, 0xCE)
        if marker == 0xDA:
            sos = off + length
        off += length
    if size is None:
        raise _Broken("media.corrupt", "expected a JPEG frame header (SOF) before the scan")
    width, height = size
    _pixels(width, height, src, "JPEG")
    end = src.size if sos is None else _jpeg_end(src, sos)
    pil = None if sos is None else "JPEG"
    det = _image(src, "image/jpeg", "JPEG", pil, width, height, progressive=progressive)
    return _after_end(src, end, det)


def _jpeg_marker(src: _Source, off: int) -> tuple[int, int]:
    data = src.at(off, 64)
    if not data:
        raise _Broken("media.truncated", f"expected a JPEG marker at offset {off}, found end")
    if data[0] != 0xFF:
        raise _Broken("media.corrupt", f"expected a JPEG marker at offset {off}")
    i = 0
    while i < len(data) and data[i] == 0xFF:
        i += 1
    if i == len(data):
        raise _Broken("media.corrupt", f"expected a JPEG marker at offset {off}, found fill")
    return data[i], off + i + 1


def _jpeg_end(src: _Source, sos: int) -> int:
    """Find the end of the EOI marker: scan the head exactly, else look in the tail."""
    head = src.head
    pos = sos
    while True:
        pos = head.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(head):
            break
        nxt = head[pos + 1]
        if nxt == 0xD9:
            return pos + 2
        if nxt in (0x00, 0xFF) or 0xD0 <= nxt <= 0xD7:
            pos += 1
            continue
        if nxt in (0xDA, 0xC4, 0xDB, 0xDD, 0xFE) or 0xE0 <= nxt <= 0xEF or 0xC0 <= nxt <= 0xCF:
            if pos + 4 > len(head):
                break
            pos += 2 + struct.unpack_from(">H", head, pos + 2)[0]
            continue
        pos += 2
    if src.partial:
        return src.size
    if src.size <= len(head):
        raise _Broken("media.truncated", "expected a JPEG end marker (EOI), found the end")
    start, tail = src.tail()
    cut = max(0, sos - start)
    found = tail.rfind(b"\xff\xd9", cut)
    if found < 0:
        raise _Broken("media.truncated", "expected a JPEG end marker (EOI) near the end")
    return _earliest_polyglot_end(tail, start, b"\xff\xd9", cut, "JPEG") or start + found + 2


def _earliest_polyglot_end(tail: bytes, start: int, marker: bytes, cut: int, own: str) -> int:
    """Return the end of the first ``marker`` in the tail followed by a foreign signature."""
    pos = tail.find(marker, cut)
    while pos >= 0:
        end = pos + len(marker)
        if _foreign(tail[end : end + 64], own) and tail[end : end + 64].strip(b"\x00"):
            return start + end
        pos = tail.find(marker, end)
    return 0


def _gif(src: _Source) -> Detected:
    width, height, flags = struct.unpack("<HHB", src.need(6, 5))
    _pixels(width, height, src, "GIF")
    end = _gif_end(src, flags)
    det = _image(src, "image/gif", "GIF", "GIF", width, height)
    return _after_end(src, end, det)


def _gif_end(src: _Source, flags: int) -> int:
    if src.partial:
        return src.size
    if src.size <= len(src.head):
        return _gif_walk(src.head, flags)
    start, tail = src.tail()
    stripped = tail.rstrip(b"\x00")
    if stripped.endswith(b"\x00;"):
        return start + len(stripped)
    end = _earliest_polyglot_end(tail, start, b"\x00;", 0, "GIF")
    if end:
        return end
    raise _Broken("media.truncated", "expected the GIF trailer (0x3B) at the end, found none")


def _gif_walk(data: bytes, flags: int) -> int:
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while True:
        if pos >= len(data):
            raise _Broken("media.truncated", "expected the GIF trailer (0x3B), found the end")
        intro = data[pos]
        if intro == 0x3B:
            return pos + 1
        if intro == 0x21:
            pos += 2
        elif intro == 0x2C:
            packed = data[pos + 9] if pos + 9 < len(data) else 0
            pos += 10 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0) + 1
        else:
            raise _Broken("media.corrupt", f"expected a GIF block at offset {pos}, found {intro}")
        while pos < len(data) and data[pos]:
            pos += data[pos] + 1
        pos += 1


def _bmp(src: _Source) -> Detected | None:
    head = src.head
    if len(head) < 26:
        return None
    file_size, _reserved, data_off, dib = struct.unpack_from("<IIII", head, 2)
    if dib not in (12, 16, 40, 52, 56, 64, 108, 124) or data_off < 14 + dib:
        return None
    if dib == 12:
        width, height = struct.unpack_from("<HH", head, 18)
    else:
        width, height = struct.unpack_from("<ii", src.need(18, 8))
    width, height = abs(width), abs(height)
    if not src.partial and (file_size > src.size or data_off > src.size):
        raise _Broken("media.truncated", f"expected {file_size} BMP bytes, found {src.size}")
    det = _image(src, "image/bmp", "BMP", "BMP", width, height)
    return _after_end(src, file_size, det) if file_size >= data_off else det


def _tiff(src: _Source) -> Detected:
    endian = "<" if src.head[:2] == b"II" else ">"
    big = src.head[2:4] in (b"+\x00", b"\x00+")
    fmt = "BigTIFF" if big else "TIFF"
    if big:
        (ifd,) = struct.unpack(endian + "Q", src.need(8, 8))
    else:
        (ifd,) = struct.unpack(endian + "I", src.need(4, 4))
    tags, next_ifd = _tiff_ifd(src, ifd, endian, big)
    width, height = tags.get(256, (0,))[0], tags.get(257, (0,))[0]
    if not (width and height):
        raise _Broken("media.corrupt", f"expected ImageWidth and ImageLength in the {fmt} IFD")
    _pixels(width, height, src, fmt)
    if not src.partial:
        _tiff_chain(src, tags, next_ifd, endian, big, {ifd})
    # Pillow takes big-endian BigTIFF for classic TIFF; the own IFD walk above stands alone.
    pil = None if big and endian == ">" else "TIFF"
    return _image(
        src, "image/tiff", fmt, pil, width, height, byte_order="little" if endian == "<" else "big"
    )


_TIFF_TYPES = {1: "B", 3: "H", 4: "I", 16: "Q", 6: "b", 8: "h", 9: "i", 17: "q"}
_TIFF_SIZES = {  # bytes of one value, by field type
    **{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4},
    **{10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8},
}
# (offsets, byte counts) tag pairs: strips, tiles, and an old-style JPEG stream.
_TIFF_EXTENTS = ((273, 279), (324, 325), (513, 514))
_TIFF_WANTED = frozenset({256, 257, 273, 279, 324, 325, 513, 514})
_TIFF_MAX_IFDS = 64  # images of a multi-page TIFF checked against the file size


def _tiff_chain(
    src: _Source,
    tags: dict[int, tuple[int, ...]],
    next_ifd: int,
    endian: str,
    big: bool,
    seen: set[int],
) -> None:
    """Refuse a TIFF whose image data or next IFD lies past the end of the file.

    The chain is followed for ``_TIFF_MAX_IFDS`` images; it stops at an IFD seen before,
    and at a later IFD too broken to read (only the first image must be one).
    """
    for _ in range(_TIFF_MAX_IFDS):
        data_end = max(
            (
                o + c
                for offsets, counts in _TIFF_EXTENTS
                for o, c in zip(tags.get(offsets, ()), tags.get(counts, ()), strict=False)
            ),
            default=0,
        )
        if data_end > src.size:
            raise _Broken("media.truncated", f"expected image data up to {data_end}, found end")
        if not next_ifd or next_ifd in seen:
            return
        if next_ifd >= src.size:
            raise _Broken("media.truncated", f"expected an IFD at offset {next_ifd}, found end")
        seen.add(next_ifd)
        try:
            tags, next_ifd = _tiff_ifd(src, next_ifd, endian, big)
        except _Broken as exc:
            if exc.code == "media.truncated":
                raise
            return


def _tiff_ifd(
    src: _Source, ifd: int, endian: str, big: bool
) -> tuple[dict[int, tuple[int, ...]], int]:
    """Read one IFD: the tags this module needs, and the offset of the next IFD (0: none)."""
    src.step()
    count_fmt, entry_size, pointer = ("Q", 20, "Q") if big else ("H", 12, "I")
    head_len = struct.calcsize(count_fmt)
    (count,) = struct.unpack(endian + count_fmt, src.need(ifd, head_len))
    if count == 0 or count > 4096:
        raise _Broken("media.corrupt", f"expected 1 to 4096 TIFF tags, found {count}")
    table = src.need(ifd + head_len, count * entry_size)
    tags: dict[int, tuple[int, ...]] = {}
    for i in range(count):
        entry = table[i * entry_size : (i + 1) * entry_size]
        tag, typ = struct.unpack_from(endian + "HH", entry)
        if not src.partial:
            _tiff_value_in_file(src, entry, endian, big, typ)
        if tag not in _TIFF_WANTED or typ not in _TIFF_TYPES:
            continue
        tags[tag] = _tiff_values(src, entry, endian, big, _TIFF_TYPES[typ])
    link = src.at(ifd + head_len + count * entry_size, struct.calcsize(pointer))
    if len(link) < struct.calcsize(pointer):
        if not src.partial:
            raise _Broken("media.truncated", f"expected the next-IFD offset after the IFD at {ifd}")
        return tags, 0
    return tags, struct.unpack(endian + pointer, link)[0]


def _tiff_value_in_file(src: _Source, entry: bytes, endian: str, big: bool, typ: int) -> None:
    """Refuse a tag whose values, stored away from the entry, end past the end of the file."""
    size = _TIFF_SIZES.get(typ)
    if size is None:
        return
    word = "Q" if big else "I"
    n = struct.unpack_from(endian + word, entry, 4)[0]
    if n * size <= (8 if big else 4):
        return
    (where,) = struct.unpack_from(endian + word, entry, 12 if big else 8)
    if where + n * size > src.size:
        raise _Broken(
            "media.truncated", f"expected TIFF tag values up to {where + n * size}, found end"
        )


def _tiff_values(src: _Source, entry: bytes, endian: str, big: bool, code: str) -> tuple[int, ...]:
    n = struct.unpack_from(endian + ("Q" if big else "I"), entry, 4)[0]
    inline = 8 if big else 4
    n = min(n, 1024)
    width = struct.calcsize(code) * n
    value_at = 12 if big else 8
    if width <= inline:
        raw = entry[value_at : value_at + width]
    else:
        (where,) = struct.unpack_from(endian + ("Q" if big else "I"), entry, value_at)
        raw = src.need(where, width)
    return struct.unpack(endian + code * n, raw)


def _webp(src: _Source, end: int) -> Detected:
    chunk = src.need(12, 8)
    ctype = chunk[:4]
    body = src.need(20, 10)
    if ctype == b"VP8 ":
        if body[3:6] != b"\x9d\x01\x2a":
            raise _Broken("media.corrupt", "expected the VP8 start code in a WebP image")
        width, height = (v & 0x3FFF for v in struct.unpack_from("<HH", body, 6))
    elif ctype == b"VP8L":
        if body[0] != 0x2F:
            raise _Broken("media.corrupt", "expected the VP8L signature in a WebP image")
        bits = int.from_bytes(body[1:5], "little")
        width, height = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    elif ctype == b"VP8X":
        width = int.from_bytes(body[4:7], "little") + 1
        height = int.from_bytes(body[7:10], "little") + 1
    else:
        raise _Broken("media.corrupt", f"expected a VP8, VP8L or VP8X chunk, found {ctype!r}")
    if end > src.size and not src.partial:
        raise _Broken("media.truncated", f"expected {end} WebP bytes, found {src.size}")
    det = _image(src, "image/webp", "WebP", "WEBP", width, height)
    return _after_end(src, end, det)


# --------------------------------------------------------------------------------------
# ISO base media (MP4, MOV, 3GP, M4A, HEIF, AVIF)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Box:
    type: str
    start: int
    body: int
    end: int


def _boxes(src: _Source, start: int, end: int) -> Iterator[_Box]:
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
            raise _Broken("media.corrupt", f"expected a box size at offset {off}, found {size}")
        yield _Box(raw.decode("latin-1"), off, body, off + size)
        off += size


def _child(src: _Source, box: _Box | None, name: str, skip: int = 0) -> _Box | None:
    if box is None:
        return None
    for sub in _boxes(src, box.body + skip, min(box.end, src.size)):
        if sub.type == name:
            return sub
    return None


def _path(src: _Source, box: _Box | None, *names: str) -> _Box | None:
    for name in names:
        box = _child(src, box, name)
    return box


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
    moov: _Box | None = None
    meta: _Box | None = None
    cut: str | None = None
    end: int = 0


def _isobmff(src: _Source) -> Detected:
    lay = _bmff_layout(src)
    major = lay.brands[0] if lay.brands else "qt  "
    fmt = _bmff_name(major)
    if lay.meta is not None and (lay.moov is None or major in _IMAGE_BRANDS):
        det = _heif(src, lay.meta, lay.brands)
        if lay.cut is not None and det.mime is not None and not src.partial:
            return _refused("media.truncated", det.format, lay.cut, det.kind, **det.evidence)
        return _after_end(src, lay.end, det)
    if major in _NOT_ALLOWED_BRANDS:
        name, kind = _NOT_ALLOWED_BRANDS[major]
        return _not_allowed(name, kind, brand=major, brands=lay.brands)
    if lay.moov is None and src.partial:
        mime = _movie_mime(major, major != "M4A ")
        return _found(
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
        raise _Broken("media.truncated", reason, fmt, "video")
    det = _movie(src, lay.moov, major, fmt, lay.brands)
    if lay.cut is not None and det.mime is not None and not src.partial:
        return _refused("media.truncated", det.format, lay.cut, det.kind, **det.evidence)
    return _after_end(src, lay.end, det)


def _bmff_layout(src: _Source) -> _Layout:
    """Walk the top-level boxes. Bytes after the last good box are left to :func:`_after_end`."""
    lay = _Layout()
    boxes = _boxes(src, 0, src.size)
    while True:
        try:
            box = next(boxes, None)
        except _Broken:
            if not lay.end:
                raise
            break  # no box header after the last good box: trailing bytes
        if box is None:
            break
        valid = all(32 <= ord(c) < 127 for c in box.type)
        if lay.end and (not valid or box.end > src.size) and _foreign(src.at(box.start, 64), ""):
            break  # another format starts here
        if not valid:
            if not lay.end:
                raise _Broken("media.corrupt", f"expected a box type at offset {box.start}")
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


def _brands(src: _Source, box: _Box) -> tuple[str, ...]:
    data = src.at(box.body, min(box.end - box.body, 4096))
    if len(data) < 8:
        raise _Broken("media.corrupt", "expected a major brand in the ftyp box")
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


def _movie(src: _Source, moov: _Box, major: str, fmt: str, brands: tuple[str, ...]) -> Detected:
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
        return _refused(
            "media.no_tracks",
            fmt,
            f"expected an audio or video track in {fmt}, found none",
            None,
            **ev,
        )
    mime = _movie_mime(major, bool(video))
    return _found(
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


def _tracks(src: _Source, moov: _Box) -> list[_Track]:
    tracks: list[_Track] = []
    for box in _boxes(src, moov.body, min(moov.end, src.size)):
        if box.type == "trak" and len(tracks) < 64:
            mdia = _child(src, box, "mdia")
            hdlr = _child(src, mdia, "hdlr")
            if hdlr is None:
                continue
            handler = src.need(hdlr.body + 8, 4).decode("latin-1")
            stsd = _path(src, mdia, "minf", "stbl", "stsd")
            tracks.append(_sample_entry(src, handler, stsd))
    return tracks


def _sample_entry(src: _Source, handler: str, stsd: _Box | None) -> _Track:
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


def _mvhd_duration(src: _Source, moov: _Box) -> float | None:
    mvhd = _child(src, moov, "mvhd")
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


# HEIF ------------------------------------------------------------------------------------

_DERIVED_ITEMS = frozenset({"grid", "iovl", "iden"})
_META_ITEMS = frozenset({"Exif", "mime", "uri ", "hvt1", "tmap"})


@dataclass(slots=True)
class _Items:
    primary: int | None = None
    types: dict[int, str] = field(default_factory=dict)
    props: list[tuple[str, int, int]] = field(default_factory=list)  # (type, a, b) per ipco child
    assoc: dict[int, list[int]] = field(default_factory=dict)


def _heif(src: _Source, meta: _Box, brands: tuple[str, ...]) -> Detected:
    if meta.end > src.size and not src.partial:
        raise _Broken(
            "media.truncated",
            f"expected {meta.end} bytes for the HEIF meta box, found {src.size}",
            "HEIF",
            "image",
        )
    items = _Items()
    iloc = None
    for box in _boxes(src, meta.body + 4, min(meta.end, src.size)):
        if box.type == "iloc":
            iloc = box
        elif box.type == "pitm":
            wide = src.need(box.body, 1)[0] != 0
            data = src.need(box.body + 4, 4 if wide else 2)
            items.primary = int.from_bytes(data, "big")
        elif box.type == "iinf":
            _iinf(src, box, items)
        elif box.type == "iprp":
            _iprp(src, box, items)
    if items.primary is None or items.primary not in items.types:
        raise _Broken("media.corrupt", "expected a primary item (pitm, iinf) in the HEIF meta box")
    coding = _heif_coding(items)
    ev: dict[str, object] = {"container": "HEIF", "brand": brands[0] if brands else None}
    ev.update(brands=brands, codecs=(coding,))
    if coding == "av01":
        return _not_allowed("AVIF", "image", **ev)
    fmt = "HEIC" if coding == "hvc1" else f"HEIF ({coding})"
    coded, shown = _heif_size(items)
    if coded[0] and coded[1]:
        _pixels(coded[0], coded[1], src, fmt)
        ev.update(width=shown[0], height=shown[1], pixels=coded[0] * coded[1])
    if not src.partial:
        _iloc_check(src, iloc, fmt)
    mime = "image/heic" if coding == "hvc1" else "image/heif"
    return _found(mime, fmt, f"{fmt} image, primary item coded as {coding!r}", **ev)


def _heif_coding(items: _Items) -> str:
    assert items.primary is not None
    kind = items.types[items.primary]
    if kind not in _DERIVED_ITEMS:
        return kind
    coded = {t for t in items.types.values() if t not in _DERIVED_ITEMS | _META_ITEMS}
    for preferred in ("av01", "hvc1"):
        if preferred in coded:
            return preferred
    return min(coded) if coded else kind


def _heif_size(items: _Items) -> tuple[tuple[int, int], tuple[int, int]]:
    """Return the coded size (ispe) and the shown size (after clap and irot)."""
    indexes = items.assoc.get(items.primary or 0, [])
    props = [items.props[i - 1] for i in indexes if 0 < i <= len(items.props)]
    if not any(kind == "ispe" for kind, _, _ in props):
        props = [p for p in items.props if p[0] == "ispe"][:1]
    coded = shown = (0, 0)
    for kind, a, b in props:
        if kind == "ispe":
            coded = shown = (a, b)
        elif kind == "clap" and a and b:
            shown = (a, b)
        elif kind == "irot" and a % 2:
            shown = (shown[1], shown[0])
    return coded, shown


def _iloc_check(src: _Source, iloc: _Box | None, fmt: str) -> None:
    """Refuse a file whose item data (``iloc`` extents in the file itself) ends past its end.

    Every item's extents are checked, the primary item's and those of the tiles of a grid
    among them.
    """
    if iloc is None:
        return
    data = src.need(iloc.body, min(iloc.end - iloc.body, 1 << 20))
    for item, method, reference, start, length in _iloc_extents(data):
        if method == 0 and reference == 0 and start + length > src.size:
            raise _Broken(
                "media.truncated",
                f"expected the data of item {item} up to offset {start + length}, "
                f"found the end at {src.size}",
                fmt,
                "image",
            )


_ILOC_EXTENTS = 16384  # extents read from one iloc box at most


def _iloc_extents(data: bytes) -> Iterator[tuple[int, int, int, int, int]]:
    """Yield (item, construction method, data reference, start, length) for each extent.

    Method 0 with data reference 0 places the extent in the file itself.
    """
    if len(data) < 8:
        raise _Broken("media.corrupt", "expected an iloc box of 8 bytes or more")
    version = data[0]
    offset_size, length_size = data[4] >> 4, data[4] & 15
    base_size, index_size = data[5] >> 4, (data[5] & 15 if version in (1, 2) else 0)
    pos, count = _iloc_uint(data, 6, 4 if version == 2 else 2)
    budget = _ILOC_EXTENTS
    for _ in range(min(count, 4096)):
        pos, item = _iloc_uint(data, pos, 4 if version == 2 else 2)
        method = 0
        if version in (1, 2):
            pos, method = _iloc_uint(data, pos, 2)
            method &= 0xF
        pos, reference = _iloc_uint(data, pos, 2)
        pos, base = _iloc_uint(data, pos, base_size)
        pos, extents = _iloc_uint(data, pos, 2)
        for _ in range(extents):
            budget -= 1
            if budget < 0:
                return
            pos += index_size
            pos, offset = _iloc_uint(data, pos, offset_size)
            pos, length = _iloc_uint(data, pos, length_size)
            yield item, method, reference, base + offset, length


def _iloc_uint(data: bytes, pos: int, size: int) -> tuple[int, int]:
    if size not in (0, 2, 4, 8) or pos + size > len(data):
        raise _Broken("media.corrupt", f"expected an iloc field of {size} bytes at {pos}")
    return pos + size, int.from_bytes(data[pos : pos + size], "big")


def _iinf(src: _Source, box: _Box, items: _Items) -> None:
    version = src.need(box.body, 1)[0]
    skip = 6 if version == 0 else 8
    for infe in _boxes(src, box.body + skip, min(box.end, src.size)):
        if infe.type != "infe" or len(items.types) >= 4096:
            continue
        data = src.at(infe.body, 14)
        if len(data) < 12 or data[0] < 2:
            continue
        id_bytes = 2 if data[0] == 2 else 4
        item_id = int.from_bytes(data[4 : 4 + id_bytes], "big")
        at = 6 + id_bytes
        items.types[item_id] = data[at : at + 4].decode("latin-1")


def _iprp(src: _Source, box: _Box, items: _Items) -> None:
    for sub in _boxes(src, box.body, min(box.end, src.size)):
        if sub.type == "ipco":
            for prop in _boxes(src, sub.body, min(sub.end, src.size)):
                items.props.append(_property(src, prop))
        elif sub.type == "ipma":
            _ipma(src.need(sub.body, min(sub.end - sub.body, 1 << 20)), items)


def _property(src: _Source, prop: _Box) -> tuple[str, int, int]:
    if prop.type == "ispe":
        width, height = struct.unpack(">II", src.need(prop.body + 4, 8))
        return "ispe", width, height
    if prop.type == "clap":
        wn, wd, hn, hd = struct.unpack(">IIII", src.need(prop.body, 16))
        return "clap", wn // wd if wd else 0, hn // hd if hd else 0
    if prop.type == "irot":
        return "irot", src.need(prop.body, 1)[0] & 3, 0
    return prop.type, 0, 0


def _ipma(data: bytes, items: _Items) -> None:
    version, flags = data[0], int.from_bytes(data[1:4], "big")
    (count,) = struct.unpack_from(">I", data, 4)
    pos = 8
    for _ in range(min(count, 4096)):
        if version < 1:
            (item,) = struct.unpack_from(">H", data, pos)
            pos += 2
        else:
            (item,) = struct.unpack_from(">I", data, pos)
            pos += 4
        n = data[pos]
        pos += 1
        found = []
        for _ in range(n):
            if flags & 1:
                found.append(struct.unpack_from(">H", data, pos)[0] & 0x7FFF)
                pos += 2
            else:
                found.append(data[pos] & 0x7F)
                pos += 1
        items.assoc[item] = found


# --------------------------------------------------------------------------------------
# Matroska / WebM
# --------------------------------------------------------------------------------------

_EBML_SEGMENT = 0x18538067
_EBML_TRACKS = 0x1654AE6B
_EBML_INFO = 0x1549A966
_EBML_SEEKHEAD = 0x114D9B74
_EBML_CLUSTER = 0x1F43B675


def _vint(data: bytes, pos: int, *, marker: bool) -> tuple[int, int, bool]:
    """Read an EBML variable-size integer: value, length, whether it is 'unknown'."""
    first = data[pos]
    if first == 0:
        raise _Broken("media.corrupt", f"expected an EBML number at offset {pos}, found 0x00")
    length = 9 - first.bit_length()
    if pos + length > len(data):
        raise _Broken("media.truncated", f"expected {length} EBML bytes at {pos}, found end")
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


def _ebml(src: _Source) -> Detected:
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


def _segment(src: _Source, off: int) -> tuple[list[dict[str, object]], float | None]:
    eid, body, end = _element_at(src, off)
    if eid != _EBML_SEGMENT:
        raise _Broken("media.corrupt", f"expected a Segment element at offset {off}")
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
        raise _Broken("media.truncated", "expected a Tracks element, found none")
    return tracks, duration


def _element_at(src: _Source, off: int) -> tuple[int, int, int]:
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
    return None if duration is None else round(duration * scale / 1e9, 3)


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
        if eid in names:
            raw = data[body:stop]
            out[names[eid]] = int(_ebml_float(raw)) if eid == 0xB5 else _ebml_uint(raw)
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
        return _not_allowed(name, kind, **ev)
    if not (video or audio):
        return _refused(
            "media.no_tracks", "WebM", "expected an audio or video track in WebM", None, **ev
        )
    mime = "video/webm" if video else "audio/webm"
    detail = "with a video track" if video else "with audio tracks only"
    return _found(mime, "WebM", f"WebM {detail}", **ev)


# --------------------------------------------------------------------------------------
# RIFF (WAVE, RF64, AVI, WebP) and AIFF
# --------------------------------------------------------------------------------------


def _chunks(src: _Source, start: int, end: int, endian: str) -> Iterator[tuple[bytes, int, int]]:
    off = start
    while off + 8 <= end:
        src.step()
        header = src.need(off, 8)
        (size,) = struct.unpack(endian + "I", header[4:])
        yield header[:4], off + 8, size
        off += 8 + size + (size & 1)


def _riff(src: _Source) -> Detected:
    magic, form = src.head[:4], src.head[8:12]
    (size,) = struct.unpack("<I", src.need(4, 4))
    streamed = size in (0, 0xFFFFFFFF)
    end = src.size if streamed or magic != b"RIFF" else 8 + size + (size & 1)
    if form == b"WAVE" and magic in (b"RIFF", b"RF64"):
        return _after_end(src, end, _wave(src, magic, min(end, src.size), streamed=streamed))
    if magic != b"RIFF":
        return _not_allowed(f"{magic.decode('latin-1')} {form.decode('latin-1')}", "audio")
    if form == b"WEBP":
        return _webp(src, end)
    if form == b"AVI ":
        return _after_end(src, end, _avi(src))
    name = form.decode("latin-1").strip() or "?"
    return _not_allowed(f"RIFF {name}", None, container="RIFF", form=name)


_WAVE_CODECS = {1: "pcm", 3: "float", 6: "alaw", 7: "mulaw", 0x55: "mp3", 0xFFFE: "extensible"}


def _wave(src: _Source, magic: bytes, end: int, *, streamed: bool) -> Detected:
    fmt_info: tuple[int, int, int, int, int] | None = None
    data: tuple[int, int] | None = None
    ds64 = None
    for cid, body, size in _chunks(src, 12, end, "<"):
        if cid == b"ds64":
            ds64 = struct.unpack("<QQ", src.need(body, 16))[1]
        elif cid == b"fmt ":
            tag, channels, rate, byte_rate, _align, bits = struct.unpack(
                "<HHIIHH", src.need(body, 16)
            )
            fmt_info = (tag, channels, rate, byte_rate, bits)
        elif cid == b"data":
            declared = ds64 if size == 0xFFFFFFFF and ds64 is not None else size
            data = (body, _UNTIL_END if declared == 0 and streamed else declared)
            break
    fmt = "RF64 WAVE" if magic == b"RF64" else "WAVE"
    if fmt_info is None or data is None:
        missing = "fmt " if fmt_info is None else "data"
        raise _Broken("media.truncated", f"expected a {missing!r} chunk in {fmt}, found none")
    tag, channels, rate, byte_rate, bits = fmt_info
    data_size = _present(src, *data)
    duration = round(data_size / byte_rate, 3) if byte_rate and data_size is not None else None
    return _found(
        "audio/wav",
        fmt,
        f"{fmt} audio, {_WAVE_CODECS.get(tag, hex(tag))}, {rate} Hz, {channels} channel(s)",
        container="RIFF",
        codecs=(_WAVE_CODECS.get(tag, hex(tag)),),
        sample_rate=rate,
        channels=channels,
        bits=bits,
        duration_s=duration,
    )


_UNTIL_END = 1 << 64  # a size a streaming writer left unset: the data runs to the end


def _present(src: _Source, start: int, declared: int) -> int | None:
    """Return how many of the ``declared`` bytes from ``start`` the file really holds.

    A header's length is never trusted past the end of the file. For a partial head
    that ends before the declared bytes do, the true count is unknown: None.
    """
    available = max(0, src.size - start)
    if declared <= available:
        return declared
    return None if src.partial else available


def _avi(src: _Source) -> Detected:
    hdrl = None
    for cid, body, size in _chunks(src, 12, src.size, "<"):
        if cid == b"LIST" and src.need(body, 4) == b"hdrl":
            hdrl = src.at(body + 4, min(size - 4, 1 << 16))
            break
    if hdrl is None:
        raise _Broken("media.truncated", "expected an hdrl list in AVI, found none")
    width = height = 0
    kinds: list[str] = []
    pos = 0
    while pos + 8 <= len(hdrl) and len(kinds) < 64:
        cid, size = hdrl[pos : pos + 4], struct.unpack_from("<I", hdrl, pos + 4)[0]
        if cid == b"avih" and size >= 40:
            width, height = struct.unpack_from("<II", hdrl, pos + 8 + 32)
        if cid == b"LIST" and hdrl[pos + 8 : pos + 16] == b"strlstrh":
            kinds.append(
                {b"vids": "video", b"auds": "audio"}.get(hdrl[pos + 20 : pos + 24], "other")
            )
        pos += 8 + size + (size & 1)
    ev: dict[str, object] = {
        "container": "RIFF",
        "tracks": tuple(kinds),
        "width": width or None,
        "height": height or None,
    }
    if "video" not in kinds:
        if "audio" in kinds:
            return _not_allowed("AVI (audio only)", "audio", **ev)
        return _refused(
            "media.no_tracks", "AVI", "expected an audio or video stream in AVI", None, **ev
        )
    return _found("video/avi", "AVI", f"AVI with streams {', '.join(kinds)}", **ev)


def _aiff(src: _Source) -> Detected:
    form = src.head[8:12]
    (size,) = struct.unpack(">I", src.need(4, 4))
    streamed = size in (0, 0xFFFFFFFF)
    end = src.size if streamed else 8 + size + (size & 1)
    comm, ssnd = None, None
    for cid, body, csize in _chunks(src, 12, min(end, src.size), ">"):
        if cid == b"COMM" and comm is None:
            comm = src.need(body, 18) + src.at(body + 18, 4)
        elif cid == b"SSND" and ssnd is None:
            ssnd = (body, _UNTIL_END if csize == 0 and streamed else csize)
        if comm is not None and ssnd is not None:
            break
    fmt = "AIFF-C" if form == b"AIFC" else "AIFF"
    if comm is None:
        raise _Broken("media.truncated", f"expected a COMM chunk in {fmt}, found none")
    channels, frames, bits = struct.unpack_from(">HIH", comm)
    rate = _extended(comm[8:18])
    if ssnd is None and frames and not src.partial:
        raise _Broken("media.truncated", f"expected an SSND chunk in {fmt}, found none")
    frame_bytes = _aiff_frame_bytes(form, comm, channels, bits)
    det = _found(
        "audio/aiff",
        fmt,
        f"{fmt} audio, {rate} Hz, {channels} channel(s)",
        container="IFF",
        sample_rate=rate,
        channels=channels,
        bits=bits,
        duration_s=_aiff_duration(src, frames, rate, ssnd, frame_bytes, streamed=streamed),
    )
    return _after_end(src, end, det)


# Bytes per sample of the AIFF-C compression types stored as plain samples; 0: from the
# sample size. Other types (IMA ADPCM, ...) have no fixed size, so SSND cannot cap them.
_AIFC_SAMPLE_BYTES: Mapping[bytes, int] = MappingProxyType(
    {b"NONE": 0, b"twos": 0, b"sowt": 0, b"raw ": 0, b"in24": 3, b"in32": 4}
    | {b"fl32": 4, b"FL32": 4, b"fl64": 8, b"FL64": 8}
    | {b"alaw": 1, b"ALAW": 1, b"ulaw": 1, b"ULAW": 1}
)


def _aiff_frame_bytes(form: bytes, comm: bytes, channels: int, bits: int) -> int:
    """Return the bytes of one sample frame, or 0 when the coding has no fixed size."""
    per_sample = (bits + 7) // 8
    if form == b"AIFC":
        kind = comm[18:22]
        if kind not in _AIFC_SAMPLE_BYTES:
            return 0
        per_sample = _AIFC_SAMPLE_BYTES[kind] or per_sample
    return per_sample * channels


def _aiff_duration(
    src: _Source,
    frames: int,
    rate: int,
    ssnd: tuple[int, int] | None,
    frame_bytes: int,
    *,
    streamed: bool,
) -> float | None:
    """Return COMM's frame count in seconds, capped by the sample frames SSND really holds.

    A streaming writer leaves the count 0 in a form of unset size: the frames present
    count then. A coding without a fixed frame size keeps the declared count.
    """
    if not rate or (ssnd is None and src.partial):
        return None
    if ssnd is None or not frame_bytes:
        return round(frames / rate, 3)
    body, declared = ssnd
    present = _present(src, body, declared)
    if present is None:
        return None
    offset = int.from_bytes(src.at(body, 4), "big") if present >= 8 else 0
    have = max(0, present - 8 - offset) // frame_bytes
    return round((have if frames == 0 and streamed else min(frames, have)) / rate, 3)


def _extended(raw: bytes) -> int:
    """Decode an 80-bit IEEE extended float (the AIFF sample rate) to an integer."""
    exponent, mantissa = struct.unpack(">HQ", raw)
    exponent &= 0x7FFF
    if exponent == 0 or exponent == 0x7FFF:
        return 0
    shift = exponent - 16383 - 63
    if shift < -64 or shift > 64:
        return 0
    return int(mantissa * 2.0**shift)


# --------------------------------------------------------------------------------------
# Ogg, FLAC, MPEG audio, ADTS, ID3
# --------------------------------------------------------------------------------------

_OGG_CODECS: tuple[tuple[bytes, str, str], ...] = (
    (b"OpusHead", "opus", "audio"),
    (b"\x01vorbis", "vorbis", "audio"),
    (b"\x7fFLAC", "flac", "audio"),
    (b"Speex   ", "speex", "audio"),
    (b"CELT    ", "celt", "audio"),
    (b"PCM     ", "pcm", "audio"),
    (b"\x80theora", "theora", "video"),
    (b"\x80daala", "daala", "video"),
    (b"OVP80", "vp8", "video"),
    (b"BBCD\x00", "dirac", "video"),
    (b"\x01video\x00\x00\x00", "ogm-video", "video"),
    (b"fishead\x00", "skeleton", "meta"),
    (b"\x80kate", "kate", "meta"),
)


def _ogg(src: _Source) -> Detected:
    streams: list[tuple[int, str, str, bytes]] = []
    off = 0
    while True:
        src.step()
        header = src.need(off, 27)
        if header[:4] != b"OggS" or header[4] != 0:
            raise _Broken("media.corrupt", f"expected an Ogg page at offset {off}")
        nseg = header[26]
        table = src.need(off + 27, nseg)
        body = off + 27 + nseg
        if not header[5] & 0x02:
            break
        (serial,) = struct.unpack_from("<I", header, 14)
        first = src.at(body, 64)
        codec, kind = next(
            ((c, k) for sig, c, k in _OGG_CODECS if first.startswith(sig)), ("unknown", "unknown")
        )
        streams.append((serial, codec, kind, first))
        off = body + sum(table)
        if off >= src.size or len(streams) >= 64:
            break
    return _ogg_verdict(src, streams)


def _ogg_verdict(src: _Source, streams: list[tuple[int, str, str, bytes]]) -> Detected:
    codecs = tuple(c for _, c, k, _ in streams if k != "meta")
    ev: dict[str, object] = {"container": "Ogg", "codecs": codecs}
    video = [c for _, c, k, _ in streams if k == "video"]
    if video:
        return _not_allowed(f"Ogg video ({video[0].capitalize()})", "video", **ev)
    audio = [(s, c, first) for s, c, k, first in streams if k == "audio"]
    if not audio:
        return _not_allowed("Ogg (no known audio codec)", None, **ev)
    serial, codec, first = audio[0]
    rate, channels, pre_skip = _ogg_audio_header(codec, first)
    ev.update(sample_rate=rate, channels=channels)
    ev["duration_s"] = _ogg_duration(src, serial, codec, rate, pre_skip)
    return _found(
        "audio/ogg",
        f"Ogg {codec.capitalize()}",
        f"Ogg audio ({', '.join(dict.fromkeys(codecs))})",
        **ev,
    )


def _ogg_audio_header(codec: str, first: bytes) -> tuple[int | None, int | None, int]:
    if codec == "opus" and len(first) >= 16:
        channels, pre_skip, rate = struct.unpack_from("<BHI", first, 9)
        return rate, channels, pre_skip
    if codec == "vorbis" and len(first) >= 16:
        channels, rate = struct.unpack_from("<BI", first, 11)
        return rate, channels, 0
    return None, None, 0


def _ogg_duration(
    src: _Source, serial: int, codec: str, rate: int | None, pre_skip: int
) -> float | None:
    if codec not in ("opus", "vorbis"):
        return None
    start, tail = src.tail()
    pos = tail.rfind(b"OggS")
    while pos >= 0 and len(tail) - pos >= 27:
        granule, page_serial = struct.unpack_from("<qI", tail, pos + 6)
        if page_serial == serial and granule >= 0:
            samples_per_s = 48000 if codec == "opus" else (rate or 0)
            if not samples_per_s:
                return None
            return round(max(0, int(granule) - pre_skip) / samples_per_s, 3)
        pos = tail.rfind(b"OggS", 0, pos)
    return None


def _flac(src: _Source) -> Detected:
    block = src.need(4, 38)
    if block[0] & 0x7F != 0 or int.from_bytes(block[1:4], "big") != 34:
        raise _Broken("media.corrupt", "expected a STREAMINFO block first in FLAC")
    bits = int.from_bytes(block[14:22], "big")
    rate = bits >> 44
    channels = ((bits >> 41) & 7) + 1
    depth = ((bits >> 36) & 31) + 1
    total = bits & ((1 << 36) - 1)
    # The count is capped by the frames the bytes can hold: a frame is at least a 6-byte
    # header, a byte per channel and a 2-byte CRC, and holds at most max-blocksize samples.
    max_block = int.from_bytes(block[6:8], "big") or 0xFFFF
    most = ((src.size - 42) // (8 + channels) + 1) * max_block
    samples = total if total <= most else (None if src.partial else most)
    return _found(
        "audio/flac",
        "FLAC",
        f"FLAC audio, {rate} Hz, {channels} channel(s)",
        container="FLAC",
        sample_rate=rate,
        channels=channels,
        bits=depth,
        duration_s=round(samples / rate, 3) if rate and samples else None,
    )


_MPEG_BITRATES: Mapping[tuple[int, int], tuple[int, ...]] = MappingProxyType(
    {
        (1, 1): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
        (1, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
        (1, 3): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
        (2, 1): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
        (2, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
        (2, 3): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    }
)
_MPEG_RATES = {1: (44100, 48000, 32000), 2: (22050, 24000, 16000), 25: (11025, 12000, 8000)}
_ADTS_RATES = (
    96000,
    88200,
    64000,
    48000,
    44100,
    32000,
    24000,
    22050,
    16000,
    12000,
    11025,
    8000,
    7350,
)


@dataclass(frozen=True, slots=True)
class _Frame:
    stream: tuple[int, ...]  # fields that stay the same from frame to frame
    length: int
    sample_rate: int
    channels: int
    samples: int
    bitrate: int = 0


def _mpeg_frame(h: bytes) -> _Frame | None:
    if len(h) < 4 or h[0] != 0xFF or h[1] & 0xE0 != 0xE0:
        return None
    version = {0: 25, 2: 2, 3: 1}.get((h[1] >> 3) & 3)
    layer = {1: 3, 2: 2, 3: 1}.get((h[1] >> 1) & 3)
    bitrate_index, rate_index = h[2] >> 4, (h[2] >> 2) & 3
    if (
        version is None
        or layer is None
        or bitrate_index in (0, 15)
        or rate_index == 3
        or h[3] & 3 == 2
    ):
        return None
    bitrate = _MPEG_BITRATES[(1 if version == 1 else 2, layer)][bitrate_index] * 1000
    rate = _MPEG_RATES[version][rate_index]
    length, samples = _mpeg_length(version, layer, bitrate, rate, (h[2] >> 1) & 1)
    channels = 1 if h[3] >> 6 == 3 else 2
    return _Frame((version, layer, rate_index), length, rate, channels, samples, bitrate)


def _mpeg_length(version: int, layer: int, bitrate: int, rate: int, pad: int) -> tuple[int, int]:
    """Return the bytes and samples of one MPEG audio frame."""
    if layer == 1:
        return (12 * bitrate // rate + pad) * 4, 384
    if layer == 3 and version != 1:
        return 72 * bitrate // rate + pad, 576
    return 144 * bitrate // rate + pad, 1152


def _adts_frame(h: bytes) -> _Frame | None:
    if len(h) < 7 or h[0] != 0xFF or h[1] & 0xF6 != 0xF0:
        return None
    profile, rate_index = h[2] >> 6, (h[2] >> 2) & 0xF
    channels = ((h[2] & 1) << 2) | (h[3] >> 6)
    length = ((h[3] & 3) << 11) | (h[4] << 3) | (h[5] >> 5)
    header = 7 if h[1] & 1 else 9
    if rate_index >= len(_ADTS_RATES) or length < header:
        return None
    blocks = (h[6] & 3) + 1
    return _Frame(
        (profile, rate_index, channels), length, _ADTS_RATES[rate_index], channels, 1024 * blocks
    )


def _chain(src: _Source, start: int, parse: Callable[[bytes], _Frame | None]) -> list[_Frame]:
    """Follow consecutive frame headers from ``start``; return the frames when they chain."""
    frames: list[_Frame] = []
    off = start
    while len(frames) < 3:
        src.step()
        frame = parse(src.at(off, 10))
        if frame is None or (frames and frame.stream != frames[0].stream):
            break
        frames.append(frame)
        off += frame.length
        if off >= src.size:
            break
    enough = len(frames) >= 3 or (len(frames) >= 2 and off == src.size)
    return frames if enough else []


def _stream_start(src: _Source) -> int:
    head = src.head
    start = len(head) - len(head.lstrip(b"\x00"))
    return start if start < len(head) else 0


# A byte pair that may open an MPEG audio or ADTS frame header (11 set bits, then the
# rest); the lookahead keeps overlapping pairs such as ``FF FF F3``.
_SYNC = re.compile(rb"\xff(?=[\xe0-\xff])")


def _mpeg_audio(src: _Source) -> Detected | None:
    """Find MPEG audio or ADTS frames at the stream start or past junk in front of them.

    Only positions whose own header parses cost a step, so junk without sync words is
    scanned for free and a chain is still needed from the position found.
    """
    start = _stream_start(src)
    bound = src.limits.MAX_AUDIO_JUNK_BYTES
    window = src.at(start, bound + 10)
    for match in _SYNC.finditer(window, 0, bound + 2):  # a frame at `bound` at most
        skip = match.start()
        header = window[skip : skip + 10]
        at = start + skip
        if _mpeg_frame(header) is not None:
            frames = _chain(src, at, _mpeg_frame)
            if frames:
                return _with(_mp3_verdict(src, at, frames[0]), junk_bytes=skip or None)
        elif _adts_frame(header) is not None:
            frames = _chain(src, at, _adts_frame)
            if frames:
                return _with(_adts_verdict(src, at, frames), junk_bytes=skip or None)
    return None


def _mp3_verdict(src: _Source, start: int, frame: _Frame) -> Detected:
    version, layer, _ = frame.stream
    side = (
        (32 if frame.channels == 2 else 17) if version == 1 else (17 if frame.channels == 2 else 9)
    )
    xing = src.at(start + 4 + side, 12)
    duration: float | None = (src.size - start) * 8 / frame.bitrate
    estimated: bool | None = True  # a constant bit rate assumed, unless a frame count says
    if xing[:4] in (b"Xing", b"Info") and len(xing) == 12 and xing[7] & 1:
        estimated = None
        (count,) = struct.unpack_from(">I", xing, 8)
        # The frame count is capped by the frames of the lowest bit rate the bytes can hold.
        lowest = _MPEG_BITRATES[(1 if version == 1 else 2, layer)][1] * 1000
        smallest = _mpeg_length(version, layer, lowest, frame.sample_rate, 0)[0]
        most = (src.size - start) // smallest + 1
        if count > most and src.partial:
            duration = None
        else:
            duration = min(count, most) * frame.samples / frame.sample_rate
    name = "MP3" if layer == 3 else f"MPEG audio layer {'I' * layer}"
    label = {1: "1", 2: "2", 25: "2.5"}[version]
    return _found(
        "audio/mpeg",
        name,
        f"{name} (MPEG-{label}), {frame.sample_rate} Hz, {frame.bitrate // 1000} kbit/s",
        container="MPEG audio",
        sample_rate=frame.sample_rate,
        channels=frame.channels,
        duration_s=None if duration is None else round(duration, 3),
        duration_estimated=estimated,
    )


def _adts_verdict(src: _Source, start: int, frames: list[_Frame]) -> Detected:
    first = frames[0]
    mean = sum(f.length for f in frames) / len(frames)
    duration = (src.size - start) / mean * first.samples / first.sample_rate
    return _found(
        "audio/aac",
        "AAC (ADTS)",
        f"AAC in ADTS frames, {first.sample_rate} Hz, {first.channels} channel(s)",
        container="ADTS",
        sample_rate=first.sample_rate,
        channels=first.channels or None,
        duration_s=round(duration, 3),
        # From the mean size of the first frames: a variable bit rate makes it a guess.
        duration_estimated=True,
    )


_AC3_KBPS = (
    *(32, 40, 48, 56, 64, 80, 96, 112, 128, 160),
    *(192, 224, 256, 320, 384, 448, 512, 576, 640),
)  # kbit/s by half the frame size code
_AC3_RATES = (48000, 44100, 32000)


def _ac3_frame(h: bytes) -> _Frame | None:
    """Parse an AC-3 or E-AC-3 sync frame header (sync word 0x0B77)."""
    if len(h) < 6 or h[:2] != b"\x0b\x77":
        return None
    fscod, bsid = h[4] >> 6, h[5] >> 3
    if bsid <= 10:  # AC-3: frame size from the bit rate code and the sample rate
        code = h[4] & 0x3F
        if fscod == 3 or code > 37:
            return None
        kbps = _AC3_KBPS[code >> 1]
        words = (2 * kbps, kbps * 320 // 147 + (code & 1), 3 * kbps)[fscod]
        return _Frame((fscod, bsid), 2 * words, _AC3_RATES[fscod], 0, 1536)
    if bsid <= 16:  # E-AC-3: the frame size is in the header
        words = (((h[2] & 7) << 8) | h[3]) + 1
        rate = _AC3_RATES[fscod] if fscod < 3 else _AC3_RATES[(h[4] >> 4) & 3] // 2
        return _Frame((fscod, bsid), 2 * words, rate, 0, 1536)
    return None


def _ac3(src: _Source) -> Detected | None:
    frames = _chain(src, 0, _ac3_frame)
    if not frames:
        return None
    name = "E-AC-3" if frames[0].stream[1] > 10 else "AC-3"
    return _not_allowed(name, "audio", container="none", sample_rate=frames[0].sample_rate)


def _after_id3(src: _Source) -> Detected:
    off, tags = 0, 0
    while src.at(off, 3) == b"ID3" and tags < 16:
        src.step()
        header = src.need(off, 10)
        raw = header[6:10]
        if header[3] == 0xFF or any(b & 0x80 for b in raw):
            raise _Broken("media.corrupt", f"expected a syncsafe ID3v2 size at offset {off}")
        size = (raw[0] << 21) | (raw[1] << 14) | (raw[2] << 7) | raw[3]
        off += 10 + size + (10 if header[5] & 0x10 else 0)
        tags += 1
    if off >= src.size:
        raise _Broken(
            "media.truncated", f"expected audio after the ID3 tag ({off} bytes), found end"
        )
    rest = src.view(off)
    for test, handler in ((lambda h: h[:4] == b"fLaC", _flac), (lambda h: True, _mpeg_audio)):
        if test(rest.head):
            det = handler(rest)
            if det is not None:
                return _with(det, id3_bytes=off)
    return _refused(
        "media.unknown",
        "ID3-tagged unknown",
        f"expected MP3, AAC or FLAC after the {off}-byte ID3 tag, found none of them",
        "audio",
        id3_bytes=off,
    )


# --------------------------------------------------------------------------------------
# Other containers: ASF, FLV, MPEG-PS/TS/ES, PDF
# --------------------------------------------------------------------------------------


def _guid(text: str) -> bytes:
    return uuid.UUID(text).bytes_le


_ASF_HEADER = _guid("75B22630-668E-11CF-A6D9-00AA0062CE6C")
_ASF_STREAM = _guid("B7DC0791-A9B7-11CF-8EE6-00C00C205365")
_ASF_FILE = _guid("8CABDCA1-A947-11CF-8EE4-00C00C205365")
_ASF_TYPES = {
    _guid("BC19EFC0-5B4D-11CF-A8FD-00805F5C442B"): "video",
    _guid("F8699E40-5B4D-11CF-A8FD-00805F5C442B"): "audio",
}


def _asf(src: _Source) -> Detected:
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
        return _found("video/wmv", "WMV", "ASF with a video stream", **ev)
    if "audio" in kinds:
        return _not_allowed("WMA (ASF audio only)", "audio", **ev)
    return _refused(
        "media.no_tracks", "ASF", "expected an audio or video stream in ASF", None, **ev
    )


def _flv(src: _Source) -> Detected:
    flags = src.head[4]
    (offset,) = struct.unpack(">I", src.need(5, 4))
    if offset < 9:
        raise _Broken("media.corrupt", f"expected an FLV header size of 9, found {offset}")
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
    }
    if not has_video:
        return _not_allowed("FLV (audio only)", "audio", **ev)
    return _found("video/x-flv", "FLV", "FLV with video", **ev)


def _mpeg_ps(src: _Source) -> Detected:
    b4 = src.need(4, 1)[0]
    if b4 & 0xC4 == 0x44:
        system, length = "MPEG-2", 14 + (src.need(13, 1)[0] & 7)
    elif b4 & 0xF1 == 0x21:
        system, length = "MPEG-1", 12
    else:
        raise _Broken("media.corrupt", "expected MPEG-1 or MPEG-2 pack header marker bits")
    if src.at(length, 3) not in (b"\x00\x00\x01", b""):
        raise _Broken("media.corrupt", f"expected a start code after the {system} pack header")
    head = src.head
    ids = {head[i + 3] for i in _start_codes(head)}
    has_video = any(0xE0 <= s <= 0xEF for s in ids)
    has_audio = any(0xC0 <= s <= 0xDF or s == 0xBD for s in ids)
    tracks = tuple(k for k, f in (("video", has_video), ("audio", has_audio)) if f)
    ev: dict[str, object] = {"container": "MPEG-PS", "system": system, "tracks": tracks}
    if not tracks:
        return _refused(
            "media.no_tracks",
            "MPEG-PS",
            f"expected a video or audio stream in the first {len(head)} bytes of the "
            f"{system} program stream, found none",
            None,
            **ev,
        )
    return _found("video/mpeg", "MPEG-PS", f"{system} program stream", **ev)


def _start_codes(head: bytes) -> Iterator[int]:
    pos = head.find(b"\x00\x00\x01")
    count = 0
    while 0 <= pos < len(head) - 3 and count < 4096:
        yield pos
        count += 1
        pos = head.find(b"\x00\x00\x01", pos + 3)


def _mpeg_es(src: _Source) -> Detected:
    data = src.need(4, 4)
    width = (data[0] << 4) | (data[1] >> 4)
    height = ((data[1] & 0x0F) << 8) | data[2]
    return _not_allowed(
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


def _mpeg_ts(src: _Source) -> Detected:
    return _not_allowed("MPEG-TS", "video", container="MPEG-TS")


def _pdf(src: _Source) -> Detected:
    begin = _pdf_start(src.head)
    version = src.head[begin + 5 : begin + 8].decode("latin-1")
    if src.partial:
        return _found("application/pdf", "PDF", f"PDF {version}", pdf_version=version, partial=True)
    start, tail = src.tail()
    if b"%%EOF" not in tail[-_PDF_WINDOW:]:
        end = _earliest_polyglot_end(tail, start, b"%%EOF", 0, "PDF")
        if end:
            other = _foreign(src.at(end, 64), "PDF") or "another format"
            det = _found("application/pdf", "PDF", "PDF")
            return _polyglot(det, other, f"{other} bytes after %%EOF at offset {end}")
        raise _Broken("media.truncated", "expected %%EOF in the last 1024 bytes, found none")
    pages, counted = _pdf_pages(src.view(begin) if begin else src)
    if pages == 0:
        raise _Broken("pdf.no_pages", "expected at least 1 page, found 0")
    return _found(
        "application/pdf",
        "PDF",
        f"PDF {version}, {pages if pages is not None else 'uncounted'} page(s)",
        pages=pages,
        pages_exact=counted if pages is not None else None,
        pdf_version=version,
        offset=begin or None,
    )


def _quiet_logger(name: str) -> None:
    """Keep a library's log records off stderr unless the application configured logging.

    pypdf and Pillow log repairs of broken files; with no handler anywhere, Python's
    last-resort handler would print them. A ``NullHandler`` stops that and still lets the
    records reach handlers the application adds.
    """
    logger = logging.getLogger(name)
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


_PDF_PAGE_NODES = 2000  # page-tree nodes walked before the document's own /Count is taken


def _pdf_pages(src: _Source) -> tuple[int | None, bool]:
    """Count pages with pypdf: (pages, whether they were counted leaf by leaf).

    Up to ``_PDF_PAGE_NODES`` nodes of the page tree are walked; past that the root's
    ``/Count`` is taken. ``(None, False)`` when pypdf is absent or the bytes bound is hit.
    """
    try:
        import pypdf
    except ImportError:
        return None, False
    _quiet_logger("pypdf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            reader = pypdf.PdfReader(_buffered(src), strict=False)
            if reader.is_encrypted:
                raise _Broken("pdf.encrypted", "expected an unencrypted PDF, found encryption")
            root: Any = reader.trailer["/Root"]
            return _page_tree(root["/Pages"])
        except (_Broken, SourceError):
            raise
        except _OutOfBudget:
            return None, False
        except Exception as exc:  # pypdf raises many kinds on hostile files
            raise _Broken("media.corrupt", f"expected a PDF that pypdf can read: {exc}") from exc


def _page_tree(root: Any) -> tuple[int, bool]:
    """Walk a pypdf page tree without recursion, resolving each node when it is visited."""
    stack: list[Any] = [root]
    seen: set[tuple[int, int]] = set()
    leaves = 0
    for _ in range(_PDF_PAGE_NODES):
        if not stack:
            return leaves, True
        item = stack.pop()
        idnum = getattr(item, "idnum", None)
        if idnum is not None:
            key = (int(idnum), int(getattr(item, "generation", 0)))
            if key in seen:
                raise _Broken("media.corrupt", "expected a page tree, found a node twice in /Kids")
            seen.add(key)
        node = item.get_object() if hasattr(item, "get_object") else item
        kids: Any = node.get("/Kids") if isinstance(node, dict) else None
        if hasattr(kids, "get_object"):
            kids = kids.get_object()
        if isinstance(kids, list):
            stack.extend(reversed(kids))
        else:
            leaves += 1
    count = root.get("/Count") if isinstance(root, dict) else None
    return (max(int(count), leaves) if isinstance(count, int) else leaves), False


# --------------------------------------------------------------------------------------
# Formats outside the API's lists, text, libmagic, headerless audio
# --------------------------------------------------------------------------------------

_OTHER_SIGNATURES: tuple[tuple[int, bytes, str, Kind | None], ...] = (
    (0, b"\xff\x0a", "JPEG XL", "image"),
    (0, b"\x00\x00\x00\x0cJXL \r\n\x87\n", "JPEG XL", "image"),
    (0, b"\x00\x00\x00\x0cjP  \r\n\x87\n", "JPEG 2000", "image"),
    (0, b"\xff\x4f\xff\x51", "JPEG 2000", "image"),
    (0, b"8BPS", "PSD", "image"),
    (0, b"qoif", "QOI", "image"),
    (0, b"v/1\x01", "OpenEXR", "image"),
    (0, b"DDS ", "DDS", "image"),
    (0, b"#?RADIANCE", "Radiance HDR", "image"),
    (0, b"\x8aMNG\r\n\x1a\n", "MNG", "image"),
    (0, b"gimp xcf", "XCF", "image"),
    (0, b"#!AMR", "AMR", "audio"),
    (0, b".snd", "Sun AU", "audio"),
    (0, b"MThd", "MIDI", "audio"),
    (0, b"caff", "CAF", "audio"),
    (0, b"wvpk", "WavPack", "audio"),
    (0, b"MAC ", "Monkey's Audio", "audio"),
    (0, b"MPCK", "Musepack", "audio"),
    (0, b"TTA1", "TTA", "audio"),
    (0, b"DSD ", "DSF", "audio"),
    (0, b".RMF", "RealMedia", "video"),
    (0, b"riff\x2e\x91\xcf\x11\xa5\xd6\x28\xdb\x04\xc1\x00\x00", "Wave64", "audio"),
    (0, b"Creative Voice File\x1a", "VOC", "audio"),
    (0, b"PK\x03\x04", "ZIP", None),
    (0, b"PK\x05\x06", "ZIP", None),
    (0, b"\x1f\x8b\x08", "gzip", None),
    (0, b"BZh", "bzip2", None),
    (0, b"\xfd7zXZ\x00", "xz", None),
    (0, b"\x28\xb5\x2f\xfd", "Zstandard", None),
    (0, b"7z\xbc\xaf\x27\x1c", "7z", None),
    (0, b"Rar!\x1a\x07", "RAR", None),
    (257, b"ustar", "tar", None),
    (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE2 compound file", None),
    (0, b"{\\rtf", "RTF", None),
    (0, b"%!PS", "PostScript", None),
    (0, b"\x7fELF", "ELF executable", None),
    (0, b"SQLite format 3\x00", "SQLite", None),
    (0, b"\x00asm", "WebAssembly", None),
    (0, b"wOFF", "WOFF font", None),
    (0, b"wOF2", "WOFF2 font", None),
)


def _other_signature(src: _Source) -> Detected | None:
    head = src.head
    for offset, sig, name, kind in _OTHER_SIGNATURES:
        if head[offset : offset + len(sig)] == sig:
            return _not_allowed(name, kind)
    if len(head) >= 22 and head[:2] == b"\x00\x00" and head[2:4] in (b"\x01\x00", b"\x02\x00"):
        count, reserved, planes = struct.unpack_from("<H", head, 4)[0], head[9], head[10]
        if 0 < count <= 256 and reserved == 0 and planes in (0, 1):
            return _not_allowed("ICO" if head[2] == 1 else "CUR", "image")
    if head[:2] == b"MZ" and len(head) >= 64:
        (pe,) = struct.unpack_from("<I", head, 60)
        if head[pe : pe + 4] == b"PE\x00\x00":
            return _not_allowed("Windows executable", None)
    video = _annex_b(head)
    if video is not None:
        return _not_allowed(video, "video", container="none")
    netpbm = _netpbm(head)
    if netpbm is not None:
        name, width, height = netpbm
        return _not_allowed(name, "image", width=width, height=height)
    return None


_H264_PROFILES = frozenset(
    {44, 66, 77, 83, 86, 88, 100, 110, 118, 122, 128, 134, 135, 138, 139, 144, 244}
)


def _annex_b(head: bytes) -> str | None:
    """Name an H.264 or H.265 elementary stream that opens with its parameter sets."""
    if head[:4] != b"\x00\x00\x00\x01" or len(head) < 6:
        return None
    nal, nxt = head[4], head[5]
    if nal & 0x9F == 0x07 and nal & 0x60 and nxt in _H264_PROFILES:
        return "H.264 elementary stream"  # a sequence parameter set
    if nal == 0x40 and nxt == 0x01:
        return "H.265 elementary stream"  # a video parameter set
    return None


_NETPBM = {b"1": "PBM", b"2": "PGM", b"3": "PPM", b"4": "PBM", b"5": "PGM", b"6": "PPM"}
_NETPBM_TOKEN = re.compile(rb"(?:\s|#[^\n]*\n)+([0-9]{1,9})")


def _netpbm(head: bytes) -> tuple[str, int, int] | None:
    """Read a Netpbm header (``P1`` to ``P6``, then width and height): name, width, height."""
    name = _NETPBM.get(head[1:2]) if head[:1] == b"P" else None
    if name is None:
        return None
    sizes = []
    pos = 2
    for _ in range(2):
        match = _NETPBM_TOKEN.match(head, pos, 1024)
        if match is None:
            return None
        sizes.append(int(match.group(1)))
        pos = match.end()
    if not all(sizes) or head[pos : pos + 1] not in (b" ", b"\t", b"\r", b"\n", b"#"):
        return None
    return name, sizes[0], sizes[1]


# libmagic answers trusted to name a refused format; anything else is left unknown.
_MAGIC_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "application/zip": "ZIP",
        "application/gzip": "gzip",
        "application/x-tar": "tar",
        "application/x-7z-compressed": "7z",
        "application/x-rar": "RAR",
        "application/vnd.rar": "RAR",
        "application/x-bzip2": "bzip2",
        "application/x-xz": "xz",
        "application/zstd": "Zstandard",
        "application/json": "JSON",
        "application/postscript": "PostScript",
        "application/x-executable": "ELF executable",
        "application/x-sharedlib": "ELF shared library",
        "application/x-pie-executable": "ELF executable",
        "application/x-mach-binary": "Mach-O executable",
        "application/x-dosexec": "Windows executable",
        "application/x-sqlite3": "SQLite",
        "application/msword": "Word document",
        "application/vnd.ms-excel": "Excel workbook",
        "application/x-shockwave-flash": "SWF",
        "application/epub+zip": "EPUB",
        "image/svg+xml": "SVG",
        "image/vnd.microsoft.icon": "ICO",
        "image/x-icon": "ICO",
        "image/vnd.adobe.photoshop": "PSD",
        "image/jxl": "JPEG XL",
        "image/jp2": "JPEG 2000",
        "image/avif": "AVIF",
        "image/x-xcf": "XCF",
        "video/x-matroska": "Matroska",
        "video/mp2t": "MPEG-TS",
        "audio/amr": "AMR",
        "audio/basic": "Sun AU",
        "audio/midi": "MIDI",
        "audio/x-wavpack": "WavPack",
        "audio/x-ape": "Monkey's Audio",
        "font/woff": "WOFF font",
        "font/woff2": "WOFF2 font",
        "font/sfnt": "font",
    }
)


@functools.cache
def _magic_db() -> Magic | None:
    """Load libmagic once; None when it is not installed."""
    try:
        import magic

        return magic.Magic(mime=True)
    except Exception:  # ImportError, OSError or magic.MagicException: no libmagic here
        return None


def _libmagic_mime(head: bytes) -> str | None:
    db = _magic_db()
    if db is None:
        return None
    try:
        answer = db.from_buffer(head)
    except Exception:  # libmagic errors never escape
        return None
    return str(answer).split(";")[0].strip().lower() or None


def _magic_format(mime: str) -> str | None:
    if mime in _MAGIC_NAMES:
        return _MAGIC_NAMES[mime]
    if mime.startswith("text/"):
        return "plain text" if mime == "text/plain" else mime
    return None


def _markup(head: bytes) -> str | None:
    text = _as_text(head)
    if text is None:
        return None
    low = text.lstrip("\ufeff \t\r\n").lower()
    if low.startswith(("<svg", "<?xml")) and "<svg" in low[:4096]:
        return "SVG"
    if low.startswith(("<!doctype html", "<html")):
        return "HTML"
    if low.startswith("<?xml"):
        return "XML"
    return None


_JSON_START = re.compile(r'\A\s*(?:\{\s*["}]|\[\s*[-0-9"{\[\]tfn])')


def _own_text_format(head: bytes, *, spaced: bool) -> str | None:
    """Name markup, JSON or plain text in ``head`` by the library's own tests, not libmagic's.

    With ``spaced``, plain text needs whitespace between words (one character in 100 at
    least): G.711 samples of a quiet signal of one sign decode as ASCII letters, but
    spaces and line breaks only come from loud samples. L16 samples of a signal that
    crosses zero do not decode as text at all.
    """
    fmt = _markup(head)
    if fmt is not None:
        return fmt
    text = _as_text(head)
    if text is None:
        return None
    if _JSON_START.match(text):
        return "JSON"
    if not spaced or sum(c in " \t\r\n" for c in text) * 100 >= len(text):
        return "plain text"
    return None


def _as_text(head: bytes) -> str | None:
    sample = head[:4096]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 3:
            return None
        text = sample[: exc.start].decode("utf-8")
    if not text or any(ord(c) < 32 and c not in "\t\n\r\f" for c in text) or "\x7f" in text:
        return None
    return text


def _unrecognised(src: _Source, declared: str | None) -> Detected:
    base, params = _declared(declared)
    if base in _HEADERLESS:
        named = _own_text_format(src.head, spaced=base != "audio/l16")
        if named is not None:
            return _not_allowed(named, None)
        return _headerless(src, base, params)
    fmt = _markup(src.head)
    mime = None
    if fmt is None:
        mime = _libmagic_mime(src.head)
        fmt = _magic_format(mime) if mime else None
    if fmt is None and _as_text(src.head) is not None:
        fmt = "plain text"
    if fmt is not None:
        return _not_allowed(fmt, None, libmagic=mime)
    if base in _KIND_BY_MIME and _KIND_BY_MIME[base] == "audio":
        return _refused(
            "audio.headerless_undeclared",
            "unknown",
            f"expected a {base} header, found none; raw samples must be declared "
            "audio/l16, audio/alaw or audio/mulaw",
            "audio",
            libmagic=mime,
        )
    return _refused(
        "media.unknown", "unknown", "expected a known media format, found none", None, libmagic=mime
    )


def _declared(declared: str | None) -> tuple[str, dict[str, str]]:
    if declared is None:
        return "", {}
    try:
        return _parse_mime(declared)
    except _Broken:
        return declared.split(";")[0].strip().lower(), {"": ""}


_HEADERLESS: Mapping[str, int] = MappingProxyType(
    {"audio/l16": 2, "audio/alaw": 1, "audio/mulaw": 1}
)


def _headerless(src: _Source, base: str, params: dict[str, str]) -> Detected:
    fmt = base.split("/")[1].upper()
    try:
        rate = _positive(params, "rate")
        channels = _positive(params, "channels") or 1
    except _Broken as exc:
        return _refused(exc.code, fmt, exc.reason, "audio")
    frame = _HEADERLESS[base] * channels
    if src.size % frame and not src.partial:
        return _refused(
            "audio.odd_length",
            fmt,
            f"expected a multiple of {frame} bytes for {channels} channel(s) of {fmt}, "
            f"found {src.size} bytes",
            "audio",
        )
    duration = round(src.size / frame / rate, 3) if rate else None
    return _found(
        base,
        fmt,
        f"headerless {fmt} audio as declared",
        container="none",
        sample_rate=rate,
        channels=channels,
        duration_s=duration,
    )


def _positive(params: dict[str, str], name: str) -> int | None:
    if "" in params:
        raise _Broken("mime.parameter", "expected name=value parameters after the MIME type")
    if name not in params:
        return None
    value = params[name]
    if not value.isdigit() or int(value) <= 0:
        raise _Broken(
            "mime.parameter", f"expected {name} to be a positive integer, found {value!r}"
        )
    return int(value)


# --------------------------------------------------------------------------------------
# The dispatch table, strongest signatures first
# --------------------------------------------------------------------------------------

_HANDLERS: tuple[tuple[Callable[[bytes], bool], _Handler, str, Kind | None], ...] = (
    (lambda h: h.startswith(_PNG_SIG), _png, "PNG", "image"),
    (lambda h: h.startswith(b"\xff\xd8\xff"), _jpeg, "JPEG", "image"),
    (lambda h: h[:6] in (b"GIF87a", b"GIF89a"), _gif, "GIF", "image"),
    (lambda h: h[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"), _tiff, "TIFF", "image"),
    (lambda h: h[:4] in (b"RIFF", b"RF64", b"BW64") and len(h) >= 12, _riff, "RIFF", None),
    (lambda h: h[:4] == b"FORM" and h[8:12] in (b"AIFF", b"AIFC"), _aiff, "AIFF", "audio"),
    (_is_bmff, _isobmff, "ISO BMFF", None),
    (lambda h: h[:4] == b"\x1a\x45\xdf\xa3", _ebml, "Matroska", None),
    (lambda h: h[:4] == b"OggS", _ogg, "Ogg", None),
    (lambda h: h[:4] == b"fLaC", _flac, "FLAC", "audio"),
    (lambda h: h[:16] == _ASF_HEADER, _asf, "ASF", None),
    (lambda h: h[:4] == b"FLV\x01", _flv, "FLV", "video"),
    (lambda h: h[:4] == b"\x00\x00\x01\xba", _mpeg_ps, "MPEG-PS", "video"),
    (lambda h: h[:4] == b"\x00\x00\x01\xb3", _mpeg_es, "MPEG video", "video"),
    (_is_ts, _mpeg_ts, "MPEG-TS", "video"),
    (lambda h: h[:2] == b"BM", _bmp, "BMP", "image"),
    (lambda h: _pdf_start(h) >= 0, _pdf, "PDF", "document"),
    (lambda h: h[:2] == b"\x0b\x77", _ac3, "AC-3", "audio"),
    (lambda h: True, _other_signature, "unknown", None),
    (lambda h: True, _mpeg_audio, "MPEG audio", "audio"),
)
