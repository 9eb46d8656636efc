"""Tell what a media file is from its bytes, never from its name or declared type.

One module per format family (:mod:`.images`, :mod:`.riff`, :mod:`.isobmff` with
:mod:`.movie` and :mod:`.heif`, :mod:`.ebml`, :mod:`.ogg`, :mod:`.mpeg_audio`,
:mod:`.mpeg_streams`, :mod:`.asf`, :mod:`.flv`, :mod:`.pdf`), each listing its formats as
:class:`~.base.Format` entries; :data:`.registry.REGISTRY` orders them, and
:mod:`.others` names what none of them claims. Shared helpers live in :mod:`.base`, and
the readers of parts several readers share in :mod:`.boxes`, :mod:`.frames`,
:mod:`.pdf_objects` and :mod:`.pdf_syntax`. Each family module states its decisions and
their evidence.

**The policy.** The server decodes with the mainstream decoders: ffmpeg, libjpeg,
libpng, libwebp, libheif, and pypdf, qpdf or poppler for PDFs. A file is accepted when
they open it, and refused when none of them does, when it has nothing to decode (no
samples, no pages, no pixels), or when the API's list of types excludes it. Damage the
decoders tolerate (a missing end marker, a file cut inside its last frames, a PDF end
marker out of place) is accepted with a warning in :attr:`Detected.warnings`
(``media.incomplete``, ``pdf.damaged``). Every decision was checked against those
decoders on real files, kept in ``testdata/`` with their verdicts.

**The cost.** :func:`sniff_stream` reads a bounded head (``Limits.SNIFF_BYTES``), a
bounded tail, and the container's own structure by seeking from header to header. Nothing
is walked whose length grows with the file's (fragments, pages, frames, objects, chunks):
what decides the format is at the start, and what gives the duration or the end is read
from the tail. Every read and every header counts against ``Limits.MAX_SNIFF_STEPS`` and
``Limits.MAX_SNIFF_READ_BYTES``, so a hostile file cannot loop and a 1 GB file sniffs as
fast as a 1 MB one. Pillow confirms image headers (size only, never pixels), pypdf reads
the PDFs the own reader does not follow, and libmagic names formats outside the API's
lists; all three are imported on first use and none of their errors escapes: each
becomes a refusal (``Detected.code``) or a
:class:`~decisions_input.errors.SourceError` when the stream itself fails. A reader
that fails on bytes it should have refused reports ``internal.error``.

**Across families.**

* **Polyglots.** A file is refused as ``media.polyglot`` when (a) bytes after its
  format's end start with another format's signature, (b) a non-PDF file has a ``%PDF-``
  starting in its first 1024 bytes (where PDF readers look for it), or (c) a non-ZIP
  file ends with a well-formed ZIP end-of-central-directory record (where ZIP readers
  look). Bytes after the end that match no signature are tolerated and reported as
  ``evidence["trailing_bytes"]``.
* **Durations.** ``evidence["duration_s"]`` is a duration read or counted from the file;
  ``duration_estimated`` marks one worked out from a constant bit rate; where only a
  range can be told (MPEG program streams, MPEG video time codes, long variable-rate MP3
  without an info frame) ``evidence["duration_range_s"]`` states it instead.
* **Partial heads.** With ``partial=True`` (a ranged download) checks that need the end
  of the file are skipped.
"""

from __future__ import annotations

from .base import Detected, Kind, SeekableReader
from .names import mime_matches
from .registry import sniff_bytes, sniff_stream

__all__ = ["Detected", "Kind", "SeekableReader", "mime_matches", "sniff_bytes", "sniff_stream"]
