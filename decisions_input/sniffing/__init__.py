"""Tell what a media file is from its bytes, never from its name or declared type.

One module per format family (:mod:`.images`, :mod:`.riff`, :mod:`.isobmff` with
:mod:`.heif`, :mod:`.ebml`, :mod:`.ogg`, :mod:`.mpeg_audio`, :mod:`.mpeg_streams`,
:mod:`.asf`, :mod:`.flv`, :mod:`.pdf`), each listing its formats as
:class:`~.base.Format` entries; :data:`.registry.REGISTRY` orders them, and
:mod:`.others` names what none of them claims. Shared helpers live in :mod:`.base`.

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

from .base import Detected, Kind, SeekableReader
from .names import mime_matches
from .registry import sniff_bytes, sniff_stream

__all__ = ["Detected", "Kind", "SeekableReader", "mime_matches", "sniff_bytes", "sniff_stream"]
