"""The ordered registry of formats, and the entry points that run it.

Each family module lists its formats as :class:`~.base.Format` entries: a test on the head
and a reader. :data:`REGISTRY` puts them in order, strongest signatures first, so a file
is read by the first entry whose test accepts its head and whose reader claims it; bytes
no entry claims are left to :func:`~.others.unrecognised`.
"""

from __future__ import annotations

import contextlib
import io
import struct
import traceback
from pathlib import Path

from ..errors import SourceError
from ..limits import GEMINI, Limits
from . import asf, ebml, flv, images, isobmff, mpeg_audio, mpeg_streams, ogg, others, pdf, riff
from .base import (
    Broken,
    Budget,
    Detected,
    Format,
    OutOfBudget,
    SeekableReader,
    Source,
    polyglot,
    refused,
)
from .names import settle
from .others import unrecognised
from .pdf import pdf_start

__all__ = ["REGISTRY", "sniff_bytes", "sniff_stream"]


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
        return refused("media.empty", "empty", "expected media bytes, found an empty file")
    try:
        origin = fp.tell()
    except (OSError, ValueError, AttributeError) as exc:
        raise SourceError(f"expected a seekable binary stream: {exc}") from exc
    budget = Budget(limits.MAX_SNIFF_STEPS, limits.MAX_SNIFF_READ_BYTES)
    try:
        src = Source(fp, origin, size, limits, budget, partial)
        det = _identify(src, declared)
    except OutOfBudget as exc:
        det = refused(
            "media.too_complex",
            "unknown",
            f"expected to confirm the format within the sniffing bound, ran out of {exc}",
        )
    finally:
        with contextlib.suppress(OSError, ValueError):
            fp.seek(origin)
    return settle(det, limits)


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


def _identify(src: Source, declared: str | None) -> Detected:
    for entry in REGISTRY:
        if entry.accept(src.head):
            det = _run(entry, src)
            if det is not None:
                return _polyglot_check(src, det)
    return unrecognised(src, declared)


def _run(entry: Format, src: Source) -> Detected | None:
    fmt, kind = entry.name, entry.kind
    try:
        return entry.read(src)
    except Broken as exc:
        return refused(exc.code, exc.fmt or fmt, exc.reason, exc.kind or kind)
    except (SourceError, OutOfBudget):
        raise
    except Exception as exc:  # a reader that fails on bytes it should have refused
        return refused(
            "internal.error",
            fmt,
            f"the {fmt} reader failed at {_where(exc)}: {type(exc).__name__}: {exc}; this is "
            "a defect of the library, not of the file",
            kind,
        )


# The package's own folder: a frame of the library is a frame of a file in it (a checkout
# or an unpacked sdist named after the package holds other files too, such as the tests).
_PACKAGE = Path(__file__).resolve().parent.parent


def _where(exc: BaseException) -> str:
    """Name the innermost place of the library a failure came from, for a bug report."""
    place = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve().is_relative_to(_PACKAGE):
            place = f"{Path(frame.filename).name}:{frame.lineno}"
    return place


def _polyglot_check(src: Source, det: Detected) -> Detected:
    """Refuse an accepted file that other readers would take for a PDF or a ZIP."""
    if det.mime is None:
        return det
    if det.mime != "application/pdf" and pdf_start(src.head) >= 0:
        return polyglot(det, "PDF", "a %PDF- header in the first 1024 bytes")
    if not src.partial and _zip_at_end(src):
        return polyglot(det, "ZIP", "a ZIP end-of-central-directory record at the end")
    return det


def _zip_at_end(src: Source) -> bool:
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


REGISTRY: tuple[Format, ...] = (
    mpeg_audio.ID3,
    images.PNG,
    images.JPEG,
    images.GIF,
    images.TIFF,
    images.WEBP,
    riff.RIFF,
    riff.AIFF,
    isobmff.ISOBMFF,
    ebml.EBML,
    ogg.OGG,
    ogg.FLAC,
    asf.ASF,
    flv.FLV,
    mpeg_streams.MPEG_PS,
    mpeg_streams.MPEG_ES,
    mpeg_streams.MPEG_TS,
    images.BMP,
    pdf.PDF,
    mpeg_audio.AC3,
    others.OTHER,
    mpeg_audio.MPEG_AUDIO,
    pdf.PDF_FAR,
)
