"""Tests for decisions_input.sniffing: real files from testdata/, hostile variants, properties."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import random
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pypdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input import GEMINI, RULES
from decisions_input.errors import DecisionsInputError, Severity, SourceError
from decisions_input.sniffing import (
    Detected,
    mime_matches,
    pdf,
    pdf_objects,
    pdf_syntax,
    sniff_bytes,
    sniff_stream,
)
from decisions_input.sniffing.base import TAIL_BYTES
from fuzz.watchdog import cpu_deadline
from tests.long_media import LONG, Counting, Long, Sparse, long_mp3, long_pdf_objects
from tests.strategies import (
    declared_mime_types,
    media_bytes,
    mutated_media,
    pdf_arrays,
    pdf_dictionaries,
)

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
MEDIA = TESTDATA / "media"
MANIFEST: list[dict[str, Any]] = json.loads((TESTDATA / "MANIFEST.json").read_text("utf-8"))
ALLOWED = {m for names in GEMINI.MIME_TYPES.values() for m in names}


def media(name: str) -> bytes:
    return (MEDIA / name).read_bytes()


def sniff_file(name: str, declared: str | None = None) -> Detected:
    path = MEDIA / name
    with path.open("rb") as fp:
        return sniff_stream(fp, path.stat().st_size, declared=declared)


def verdict(det: Detected) -> str | None:
    return det.mime if det.mime is not None else det.code


class CountingReader:
    """A seekable binary reader that counts what is read from the file under it."""

    def __init__(self, fp: Any) -> None:
        self._fp = fp
        self.bytes_read = 0
        self.reads = 0

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._fp.read(n)
        self.reads += 1
        self.bytes_read += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return int(self._fp.seek(offset, whence))

    def tell(self) -> int:
        return int(self._fp.tell())


def _libmagic_missing() -> str | None:
    try:
        import magic

        magic.Magic(mime=True)
    except Exception as exc:  # ImportError, or libmagic cannot load its database
        return f"libmagic is not available here: {exc}"
    return None


NO_LIBMAGIC = _libmagic_missing()


# --------------------------------------------------------------------------------------
# Every fixture sniffs to its expected verdict
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["name"] for e in MANIFEST])
def test_manifest_fixture_sniffs_as_expected(entry: dict[str, Any]) -> None:
    det = sniff_file(entry["name"], entry.get("declared"))
    expected = entry["expected"]
    if "mime" in expected:
        assert (det.mime, det.code) == (expected["mime"], None), det.reason
    else:
        assert (det.mime, det.code) == (None, expected["code"]), det.reason
    assert [w.code for w in det.warnings] == expected.get("warnings", [])
    assert all(w.severity is Severity.WARNING and w.path == () for w in det.warnings)
    shown = entry.get("evidence", {})
    assert {k: _plain(det.evidence.get(k)) for k in shown} == shown
    if "seconds" in entry and det.ok:
        _assert_told(det, entry["seconds"])


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["name"] for e in MANIFEST])
def test_a_fixture_sniffs_the_same_from_its_path_bytes_and_buffers(entry: dict[str, Any]) -> None:
    path = MEDIA / entry["name"]
    data = path.read_bytes()
    declared = entry.get("declared")
    found = di.sniff(path, declared=declared)
    for form in (data, bytearray(data), memoryview(data)):
        assert di.sniff(form, declared=declared) == found


def _assert_told(det: Detected, told: float) -> None:
    """The duration (or the stated range) holds what the encoder was told to make.

    Codecs add a little: encoder delay and padding (MP3, AAC) and whole frames.
    """
    slack = max(0.1, 0.05 * told)
    duration = det.evidence.get("duration_s")
    span = det.evidence.get("duration_range_s")
    if isinstance(duration, float):
        assert abs(duration - told) <= slack, (duration, told)
    else:
        assert isinstance(span, tuple), det.evidence
        assert span[0] - slack <= told <= span[1] + slack, (span, told)


def _plain(value: object) -> object:
    """Evidence as JSON holds it: tuples as lists."""
    return list(value) if isinstance(value, tuple) else value


def test_manifest_lists_every_file_with_its_hash() -> None:
    names = [e["name"] for e in MANIFEST]
    assert names == sorted(names)
    assert set(names) == {p.name for p in MEDIA.iterdir()}
    for entry in MANIFEST:
        assert hashlib.sha256(media(entry["name"])).hexdigest() == entry["sha256"], entry["name"]
        expected = entry["expected"]
        assert expected.get("code") in RULES or expected.get("mime") in ALLOWED
        for code in expected.get("warnings", []):
            assert RULES[code].severity is Severity.WARNING
        assert entry["made_by"]


def test_testdata_stays_small() -> None:
    assert sum(p.stat().st_size for p in MEDIA.iterdir()) < 5_000_000


def _load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("_fixture_generator", TESTDATA / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def _library_version(requires: str) -> str:
    name = requires.split(" ")[0]
    from importlib.metadata import version

    return f"{name} {version(name)}"


def test_deterministic_fixtures_regenerate_byte_for_byte(tmp_path: Path) -> None:
    entries = _load_generator().generate(tmp_path, only_deterministic=True)
    by_name = {e["name"]: e for e in MANIFEST}
    compared = 0
    for entry in entries:
        recorded = by_name[entry["name"]]
        assert recorded["deterministic"] is True
        requires = recorded.get("requires")
        if requires and _library_version(requires) != requires:
            continue  # another Pillow or pypdf may compress differently
        assert entry["sha256"] == recorded["sha256"], entry["name"]
        compared += 1
    pure = [e for e in MANIFEST if e["deterministic"] and "requires" not in e]
    assert compared >= len(pure) > 20


# --------------------------------------------------------------------------------------
# The distinctions, one case each
# --------------------------------------------------------------------------------------

DISTINCTIONS = [
    # Matroska family
    ("webm-audio-only", "webm_audio_only.webm", "audio/webm", "WebM"),
    ("webm-with-video", "webm_video.webm", "video/webm", "WebM"),
    ("matroska-not-webm", "mkv_matroska.mkv", "mime.not_allowed", "Matroska"),
    # ISO BMFF
    ("m4a-brand", "m4a_ipod.m4a", "audio/m4a", "M4A"),
    ("mp4-isom-audio-only", "mp4_audio_only.mp4", "audio/m4a", "M4A"),
    ("mp4-with-video", "mp4_h264.mp4", "video/mp4", "MP4"),
    ("mp4-video-only", "mp4_video_only.mp4", "video/mp4", "MP4"),
    ("mp4-moov-after-mdat", "mp4_h264.mp4", "video/mp4", "MP4"),
    ("mp4-moov-first", "mp4_faststart.mp4", "video/mp4", "MP4"),
    ("mp4-64bit-largesize", "mp4_largesize.mp4", "video/mp4", "MP4"),
    ("mp4-size0-to-end", "mp4_mdat_size0.mp4", "video/mp4", "MP4"),
    ("mp4-no-moov", "mp4_truncated.mp4", "media.truncated", "MP4"),
    ("mp4-no-tracks", "mp4_no_tracks.mp4", "media.no_tracks", "MP4"),
    ("mov-qt-brand", "mov_mpeg4.mov", "video/mov", "QuickTime"),
    ("3gp-brand", "video_3gp.3gp", "video/3gpp", "3GPP"),
    # HEIF family
    ("heic-hevc-primary", "heic_x265.heic", "image/heic", "HEIC"),
    ("heif-jpeg-primary", "heif_jpeg_coded.heif", "image/heif", "HEIF (jpeg)"),
    ("avif-refused", "avif_pillow.avif", "mime.not_allowed", "AVIF"),
    ("avif-major-brand-mif1", "avif_mif1_brand.heif", "mime.not_allowed", "AVIF"),
    ("heif-header-too-many-pixels", "heif_hvc1_huge.heic", "image.too_many_pixels", "HEIC"),
    # ID3 in front
    ("id3-then-mp3", "mp3_id3v2.mp3", "audio/mpeg", "MP3"),
    ("id3-2mib-cover-then-mp3", "mp3_big_cover.mp3", "audio/mpeg", "MP3"),
    ("id3-then-flac", "id3_flac.flac", "audio/flac", "FLAC"),
    ("id3-then-adts", "id3_aac.aac", "audio/aac", "AAC (ADTS)"),
    # frame chains
    ("mp3-frame-chain", "mp3_plain.mp3", "audio/mpeg", "MP3"),
    ("mpeg-audio-layer-2", "mp2_layer2.mp2", "audio/mpeg", "MPEG audio layer II"),
    ("adts-frame-chain", "aac_adts.aac", "audio/aac", "AAC (ADTS)"),
    ("random-bytes-with-mp3-sync", "random_mp3_sync.mp3", "media.unknown", "unknown"),
    # MPEG systems
    ("mpeg-program-stream", "mpeg_ps.mpg", "video/mpeg", "MPEG-PS"),
    ("mpeg-transport-stream", "mpeg_ts.ts", "mime.not_allowed", "MPEG-TS"),
    ("mpeg-video-elementary", "mpeg_es.m2v", "video/mpeg", "MPEG video elementary stream"),
    # ASF
    ("asf-with-video", "wmv_asf.wmv", "video/wmv", "WMV"),
    ("asf-audio-only-wma", "wma_asf.wma", "mime.not_allowed", "WMA (ASF audio only)"),
    # Ogg
    ("ogg-vorbis", "ogg_vorbis.ogg", "audio/ogg", "Ogg Vorbis"),
    ("ogg-opus", "ogg_opus.opus", "audio/ogg", "Ogg Opus"),
    ("ogg-flac", "ogg_flac.oga", "audio/ogg", "Ogg Flac"),
    ("ogg-theora-video", "ogg_theora.ogv", "mime.not_allowed", "Ogg video (Theora)"),
    # RIFF, IFF and friends
    ("riff-wave", "wav_pcm16.wav", "audio/wav", "WAVE"),
    ("rf64-wave", "wav_rf64.wav", "audio/wav", "RF64 WAVE"),
    ("wave-named-png", "wav_named.png", "audio/wav", "WAVE"),
    ("riff-avi", "avi_mpeg4.avi", "video/avi", "AVI"),
    ("aiff", "aiff_pcm.aiff", "audio/aiff", "AIFF"),
    ("aiff-c", "aifc_sox.aifc", "audio/aiff", "AIFF-C"),
    ("flv", "flv_flv1.flv", "video/x-flv", "FLV"),
    ("flac", "flac.flac", "audio/flac", "FLAC"),
    ("tiff-little-endian", "tiff_le_pillow.tif", "image/tiff", "TIFF"),
    ("tiff-big-endian", "tiff_be.tif", "image/tiff", "TIFF"),
    ("bigtiff-little-endian", "bigtiff_le_pillow.tif", "image/tiff", "BigTIFF"),
    ("bigtiff-big-endian", "bigtiff_be.tif", "image/tiff", "BigTIFF"),
    ("png", "png_pillow.png", "image/png", "PNG"),
    ("jpeg-baseline", "jpeg_baseline.jpg", "image/jpeg", "JPEG"),
    ("jpeg-progressive", "jpeg_progressive.jpg", "image/jpeg", "JPEG"),
    ("gif", "gif_pillow.gif", "image/gif", "GIF"),
    ("gif-animated", "gif_animated.gif", "image/gif", "GIF"),
    ("bmp", "bmp_pillow.bmp", "image/bmp", "BMP"),
    ("webp-lossy", "webp_lossy.webp", "image/webp", "WebP"),
    ("webp-lossless", "webp_lossless.webp", "image/webp", "WebP"),
    ("pdf-at-start", "pdf_minimal.pdf", "application/pdf", "PDF"),
    ("pdf-after-junk-within-1024", "pdf_junk_prefix.pdf", "application/pdf", "PDF"),
    # integrity
    ("png-without-iend", "png_truncated.png", "media.truncated", "PNG"),
    ("jpeg-without-eoi", "jpeg_truncated.jpg", "media.truncated", "JPEG"),
    ("gif-without-trailer", "gif_truncated.gif", "media.truncated", "GIF"),
    ("pdf-without-eof", "pdf_truncated.pdf", "media.truncated", "PDF"),
    ("pdf-zero-pages", "pdf_pypdf_zero_pages.pdf", "pdf.no_pages", "PDF"),
    ("pdf-needs-password", "pdf_pypdf_encrypted.pdf", "pdf.encrypted", "PDF"),
    ("png-100000x100000-header", "png_huge_dims.png", "image.too_many_pixels", "PNG"),
    ("png-with-zip-appended", "png_zip_appended.png", "media.polyglot", "PNG"),
    ("png-with-pdf-appended", "png_pdf_appended.png", "media.polyglot", "PNG"),
    ("jpeg-with-pdf-comment", "jpeg_pdf_comment.jpg", "media.polyglot", "JPEG"),
    ("jpeg-with-zip-appended", "jpeg_zip_appended.jpg", "media.polyglot", "JPEG"),
    ("pdf-with-zip-appended", "pdf_zip_appended.pdf", "media.polyglot", "PDF"),
    ("mp3-with-zip-appended", "mp3_zip_appended.mp3", "media.polyglot", "MP3"),
    ("empty-file", "empty.bin", "media.empty", "empty"),
    # outside the API's lists
    ("jpeg-xl", "jxl_container.jxl", "mime.not_allowed", "JPEG XL"),
    ("svg", "image.svg", "mime.not_allowed", "SVG"),
    ("ico", "icon.ico", "mime.not_allowed", "ICO"),
    ("psd", "psd_header.psd", "mime.not_allowed", "PSD"),
    ("zip", "zip_archive.zip", "mime.not_allowed", "ZIP"),
    ("plain-text", "text.txt", "mime.not_allowed", "plain text"),
    ("unknown-bytes", "random.bin", "media.unknown", "unknown"),
    ("ac3", "ac3.ac3", "mime.not_allowed", "AC-3"),
    ("wave64", "wave64.w64", "mime.not_allowed", "Wave64"),
    ("voc", "voc.voc", "mime.not_allowed", "VOC"),
    ("h264-annex-b", "h264_annexb.h264", "mime.not_allowed", "H.264 elementary stream"),
    ("ppm", "ppm_pillow.ppm", "mime.not_allowed", "PPM"),
    ("pgm", "pgm_pillow.pgm", "mime.not_allowed", "PGM"),
    ("avi-audio-only", "avi_audio_only.avi", "mime.not_allowed", "AVI (audio only)"),
    # written to a pipe: the writer could not go back to fill in its sizes
    ("wav-ffmpeg-pipe", "wav_ffmpeg_pipe.wav", "audio/wav", "WAVE"),
    ("wav-sox-pipe", "wav_sox_pipe.wav", "audio/wav", "WAVE"),
    ("aiff-ffmpeg-pipe", "aiff_ffmpeg_pipe.aiff", "audio/aiff", "AIFF"),
]


@pytest.mark.parametrize(
    ("name", "expected", "fmt"), [c[1:] for c in DISTINCTIONS], ids=[c[0] for c in DISTINCTIONS]
)
def test_distinction(name: str, expected: str, fmt: str) -> None:
    det = sniff_file(name)
    assert (verdict(det), det.format) == (expected, fmt), det.reason
    assert (det.mime is None) == (det.code is not None)


KINDS = [
    ("webm_audio_only.webm", "audio"),
    ("webm_video.webm", "video"),
    ("mkv_matroska.mkv", "video"),
    ("avif_pillow.avif", "image"),
    ("png_huge_dims.png", "image"),
    ("pdf_minimal.pdf", "document"),
    ("wma_asf.wma", "audio"),
    ("zip_archive.zip", None),
]


@pytest.mark.parametrize(("name", "kind"), KINDS, ids=[k[0] for k in KINDS])
def test_kind_is_the_modality_when_known(name: str, kind: str | None) -> None:
    assert sniff_file(name).kind == kind


EVIDENCE = [
    ("webm-tracks", "webm_video.webm", {"tracks": ("video", "audio"), "doctype": "webm"}),
    ("webm-audio-tracks", "webm_audio_only.webm", {"tracks": ("audio",), "codecs": ("A_OPUS",)}),
    ("mp4-tracks", "mp4_h264.mp4", {"tracks": ("video", "audio"), "width": 64, "height": 48}),
    ("m4a-brand", "m4a_ipod.m4a", {"brand": "M4A ", "tracks": ("audio",)}),
    ("heic-size-after-clap", "heic_x265.heic", {"width": 64, "height": 48, "codecs": ("hvc1",)}),
    ("avif-codec", "avif_mif1_brand.heif", {"brand": "mif1", "codecs": ("av01",)}),
    ("ogg-opus-codecs", "ogg_opus.opus", {"codecs": ("opus",), "channels": 1}),
    ("ogg-vorbis-codecs", "ogg_vorbis.ogg", {"codecs": ("vorbis",), "sample_rate": 22050}),
    ("wav-format", "wav_pcm16.wav", {"sample_rate": 8000, "channels": 1, "duration_s": 0.5}),
    ("flac-streaminfo", "flac.flac", {"sample_rate": 22050, "duration_s": 1.0}),
    ("pdf-pages", "pdf_pypdf_three_pages.pdf", {"pages": 3}),
    ("pdf-offset", "pdf_junk_prefix.pdf", {"offset": 501, "pages": 1}),
    ("png-size", "png_pillow.png", {"width": 32, "height": 24, "pixels": 768}),
    ("id3-skipped", "mp3_big_cover.mp3", {"id3_bytes": 2097211}),
    ("asf-streams", "wmv_asf.wmv", {"tracks": ("video", "audio")}),
    ("mpeg-ps-system", "mpeg_ps.mpg", {"system": "MPEG-1"}),
    ("polyglot-names-other", "png_zip_appended.png", {"other_format": "ZIP"}),
    ("wav-ffmpeg-pipe-duration", "wav_ffmpeg_pipe.wav", {"duration_s": 0.25}),
    ("wav-sox-pipe-duration", "wav_sox_pipe.wav", {"duration_s": 0.25}),
    ("aiff-ffmpeg-pipe-duration", "aiff_ffmpeg_pipe.aiff", {"duration_s": 0.25}),
    ("rf64-duration", "wav_rf64.wav", {"duration_s": 1.0}),
    ("aiff-duration", "aiff_pcm.aiff", {"duration_s": 1.0}),
    ("avi-audio-only-tracks", "avi_audio_only.avi", {"tracks": ("audio",)}),
]


@pytest.mark.parametrize(
    ("name", "expected"), [c[1:] for c in EVIDENCE], ids=[c[0] for c in EVIDENCE]
)
def test_evidence(name: str, expected: dict[str, object]) -> None:
    evidence = sniff_file(name).evidence
    assert {k: evidence.get(k) for k in expected} == expected


# --------------------------------------------------------------------------------------
# Byte-level hostile shapes made here, one table
# --------------------------------------------------------------------------------------


def _patch(data: bytes, at: int, new: bytes) -> bytes:
    return data[:at] + new + data[at + len(new) :]


def _wav_data_size(data: bytes, size: int) -> bytes:
    return _patch(data, data.index(b"data") + 4, struct.pack("<I", size))


def _rf64_ds64_data_size(size: int) -> bytes:
    data = media("wav_rf64.wav")
    return _patch(data, data.index(b"ds64") + 16, struct.pack("<Q", size))


def _aiff_lie(frames: int, ssnd: int) -> bytes:
    data = media("aiff_pcm.aiff")
    data = _patch(data, data.index(b"COMM") + 10, struct.pack(">I", frames))
    return _patch(data, data.index(b"SSND") + 4, struct.pack(">I", ssnd))


def _heic_cut(n: int) -> bytes:
    return media("heic_x265.heic")[:n]


def _heic_mdat_to_end(cut: int) -> bytes:
    """heic_x265.heic with its mdat size set to 0 (to the end), less ``cut`` bytes."""
    data = media("heic_x265.heic")
    data = _patch(data, data.rindex(b"mdat") - 4, b"\x00\x00\x00\x00")
    return data[: len(data) - cut]


def _tiff_entry(data: bytes, tag: int, value: bytes) -> bytes:
    """Rewrite the count and value of one entry of the IFD of ``tiff_be.tif``."""
    (ifd,) = struct.unpack(">I", data[4:8])
    for i in range(struct.unpack(">H", data[ifd : ifd + 2])[0]):
        at = ifd + 2 + 12 * i
        if struct.unpack(">H", data[at : at + 2])[0] == tag:
            return _patch(data, at + 4, value)
    raise AssertionError(tag)


def _tiff_second_ifd(strip_at: int) -> bytes:
    """tiff_be.tif with a second IFD (8x8 grey, one strip at ``strip_at``) chained to it."""
    data = media("tiff_be.tif")
    entries = [(256, 3, 1, 8 << 16), (257, 3, 1, 8 << 16), (258, 3, 1, 8 << 16)]
    entries += [(273, 4, 1, strip_at), (279, 4, 1, 64)]
    ifd = struct.pack(">H", len(entries)) + b"".join(struct.pack(">HHII", *e) for e in entries)
    return data[:-4] + struct.pack(">I", len(data)) + ifd + b"\x00" * 4


def _bigtiff_next(offset: int) -> bytes:
    data = media("bigtiff_be.tif")
    return data[:-8] + struct.pack(">Q", offset)


def _bigtiff_strip_bytes(count: int) -> bytes:
    """bigtiff_be.tif with the StripByteCounts value (tag 279, LONG8) set to ``count``."""
    data = media("bigtiff_be.tif")
    (ifd,) = struct.unpack(">Q", data[8:16])
    for i in range(struct.unpack(">Q", data[ifd : ifd + 8])[0]):
        at = ifd + 8 + 20 * i
        if struct.unpack(">H", data[at : at + 2])[0] == 279:
            return _patch(data, at + 12, struct.pack(">Q", count))
    raise AssertionError(279)


def _mpeg_ps_without_streams() -> bytes:
    pack = media("mpeg_ps.mpg")[:12]
    padding = b"\x00\x00\x01\xbe" + struct.pack(">H", 64) + b"\xff" * 64
    return pack + padding + b"\x00\x00\x01\xb9"


def _avi_without_streams() -> bytes:
    avih = b"avih" + struct.pack("<I", 56) + b"\x00" * 56
    hdrl = b"LIST" + struct.pack("<I", 4 + len(avih)) + b"hdrl" + avih
    return b"RIFF" + struct.pack("<I", 4 + len(hdrl)) + b"AVI " + hdrl


def _avi_with_text_stream() -> bytes:
    strh = b"strh" + struct.pack("<I", 56) + b"txts" + b"\x00" * 52
    strl = b"LIST" + struct.pack("<I", 4 + len(strh)) + b"strl" + strh
    avih = b"avih" + struct.pack("<I", 56) + b"\x00" * 56
    hdrl = b"LIST" + struct.pack("<I", 4 + len(avih) + len(strl)) + b"hdrl" + avih + strl
    return b"RIFF" + struct.pack("<I", 4 + len(hdrl)) + b"AVI " + hdrl


def _png_with_pdf_at(offset: int) -> bytes:
    """png_stored.png with a tEXt chunk after IHDR holding ``%PDF-1.4`` at ``offset``."""
    data = media("png_stored.png")
    body = b"a\x00" + b"x" * (offset - 33 - 8 - 2) + b"%PDF-1.4"
    text = struct.pack(">I", len(body)) + b"tEXt" + body
    text += struct.pack(">I", zlib.crc32(b"tEXt" + body))
    return data[:33] + text + data[33:]


def _quiet_negative_alaw() -> bytes:
    """G.711 A-law of a quiet signal below zero: every byte is an ASCII letter or sign."""
    return bytes(0x50 | (i * 7 % 16) for i in range(4000))


def _ac3_frames(count: int) -> bytes:
    data = media("ac3.ac3")
    return data[: 256 * count]  # 64 kbit/s at 48 kHz: 256-byte frames


def _heic_ipma_count(count: int) -> bytes:
    """heic_x265.heic with its ipma entry count set to ``count`` (more than it holds)."""
    data = media("heic_x265.heic")
    at = data.index(b"ipma") + 8
    return _patch(data, at, struct.pack(">I", count))


def _tiff_width_count(count: int) -> bytes:
    """tiff_be.tif with the value count of its ImageWidth tag set to ``count``."""
    data = media("tiff_be.tif")
    (ifd,) = struct.unpack(">I", data[4:8])
    for i in range(struct.unpack(">H", data[ifd : ifd + 2])[0]):
        at = ifd + 2 + 12 * i
        if struct.unpack(">H", data[at : at + 2])[0] == 256:
            return _patch(data, at + 4, struct.pack(">I", count))
    raise AssertionError(256)


HOSTILE: list[tuple[str, Callable[[], bytes], str | None, str]] = [
    # 0. shapes the fuzzer found readers failing on (they now refuse them)
    ("heic-ipma-count-past-box", lambda: _heic_ipma_count(0xFFFF), None, "media.corrupt"),
    ("tiff-width-with-no-values", lambda: _tiff_width_count(0), None, "media.corrupt"),
    (
        "avi-cut-inside-avih",
        lambda: media("avi_mpeg4.avi")[: media("avi_mpeg4.avi").index(b"avih") + 30],
        None,
        "media.truncated",
    ),
    ("webm-cut-in-ebml-header", lambda: media("webm_video.webm")[:7], None, "media.corrupt"),
    ("flv-signature-only", lambda: b"FLV\x01", None, "media.truncated"),
    # 1. declared lengths past the end are capped, the files still sniff
    (
        "wav-data-size-past-end",
        lambda: _wav_data_size(media("wav_pcm16.wav"), 0xFFFFFFF0),
        None,
        "audio/wav",
    ),
    ("rf64-ds64-size-past-end", lambda: _rf64_ds64_data_size(1 << 40), None, "audio/wav"),
    ("aiff-ssnd-and-comm-past-end", lambda: _aiff_lie(1 << 30, 0x7FFFFFF0), None, "audio/aiff"),
    ("aiff-cut-before-ssnd", lambda: media("aiff_pcm.aiff")[:38], None, "media.truncated"),
    # 2. HEIF integrity
    (
        "heic-cut-in-mdat",
        lambda: _heic_cut(len(media("heic_x265.heic")) - 1),
        None,
        "media.truncated",
    ),
    ("heic-cut-in-meta", lambda: _heic_cut(200), None, "media.truncated"),
    ("heic-iloc-extent-past-end", lambda: _heic_mdat_to_end(10), None, "media.truncated"),
    ("heic-mdat-to-end-whole", lambda: _heic_mdat_to_end(0), None, "image/heic"),
    # 3. TIFF integrity
    (
        "tiff-next-ifd-past-end",
        lambda: media("tiff_be.tif")[:-4] + b"\x00\x00\x10\x00",
        None,
        "media.truncated",
    ),
    (
        "tiff-tag-values-past-end",
        lambda: _tiff_entry(media("tiff_be.tif"), 258, b"\x00\x00\x00\x03\x00\x00\x01\x00"),
        None,
        "media.truncated",
    ),
    (
        "tiff-strip-past-end",
        lambda: _tiff_entry(media("tiff_be.tif"), 279, b"\x00\x00\x00\x01\x00\x00\x01\x00"),
        None,
        "media.truncated",
    ),
    ("tiff-second-ifd-strip-past-end", lambda: _tiff_second_ifd(4000), None, "media.truncated"),
    ("tiff-second-ifd-whole", lambda: _tiff_second_ifd(8), None, "image/tiff"),
    (
        "tiff-ifd-loop-stops",
        lambda: media("tiff_be.tif")[:-4] + b"\x00\x00\x00\x48",
        None,
        "image/tiff",
    ),
    ("bigtiff-next-ifd-past-end", lambda: _bigtiff_next(1 << 20), None, "media.truncated"),
    ("bigtiff-next-ifd-none", lambda: _bigtiff_next(0), None, "image/tiff"),
    ("bigtiff-strip-past-end", lambda: _bigtiff_strip_bytes(1 << 20), None, "media.truncated"),
    # 4. containers without streams
    ("avi-no-streams", _avi_without_streams, None, "media.no_tracks"),
    ("avi-text-stream-only", _avi_with_text_stream, None, "media.no_tracks"),
    (
        "mpeg-ps-pack-and-end-only",
        lambda: media("mpeg_ps.mpg")[:12] + b"\x00\x00\x01\xb9",
        None,
        "media.no_tracks",
    ),
    ("mpeg-ps-padding-stream-only", _mpeg_ps_without_streams, None, "media.no_tracks"),
    # 5. the 1024-byte PDF window, and transport streams
    (
        "pdf-starting-at-1020",
        lambda: b"\x01" * 1020 + media("pdf_minimal.pdf"),
        None,
        "application/pdf",
    ),
    (
        "pdf-starting-at-1023",
        lambda: b"\x01" * 1023 + media("pdf_minimal.pdf"),
        None,
        "application/pdf",
    ),
    (  # poppler, qpdf and pypdf find a header past the window: a warning, pdf.damaged
        "pdf-starting-at-1024",
        lambda: b"\x01" * 1024 + media("pdf_minimal.pdf"),
        None,
        "application/pdf",
    ),
    ("png-pdf-header-at-1020", lambda: _png_with_pdf_at(1020), None, "media.polyglot"),
    ("png-pdf-header-at-1023", lambda: _png_with_pdf_at(1023), None, "media.polyglot"),
    ("png-pdf-header-at-1024", lambda: _png_with_pdf_at(1024), None, "image/png"),
    (
        "ts-sync-bytes-then-pdf-at-1020",
        lambda: b"G" * 1020 + media("pdf_minimal.pdf"),
        None,
        "application/pdf",
    ),
    (
        "ts-sync-bytes-then-pdf-at-1100",
        lambda: b"G" * 1100 + media("pdf_minimal.pdf"),
        None,
        "application/pdf",
    ),
    (
        "ts-syncs-without-packet-headers",
        lambda: (b"\x47" + b"\x00" * 187) * 6,
        None,
        "media.unknown",
    ),
    ("ts-three-real-packets", lambda: media("mpeg_ts.ts")[: 188 * 3], None, "mime.not_allowed"),
    # 6. declared headerless audio that the library names otherwise
    ("l16-declared-svg", lambda: media("image.svg"), "audio/l16;rate=16000", "mime.not_allowed"),
    (
        "alaw-declared-html",
        lambda: b"<!DOCTYPE html><html><body>hi</body></html>\n",
        "audio/alaw",
        "mime.not_allowed",
    ),
    (
        "mulaw-declared-xml",
        lambda: b"<?xml version='1.0'?><a>b</a>\n",
        "audio/mulaw",
        "mime.not_allowed",
    ),
    ("l16-declared-json", lambda: b'{"a": [1, 2]}\n', "audio/l16", "mime.not_allowed"),
    ("alaw-declared-json-unspaced", lambda: b'[{"a":1},{"b":2}]', "audio/alaw", "mime.not_allowed"),
    ("mulaw-declared-plain-text", lambda: media("text.txt"), "audio/mulaw", "mime.not_allowed"),
    (
        "l16-declared-text-without-spaces",
        lambda: b"base64QUJDRA==",
        "audio/l16",
        "mime.not_allowed",
    ),
    ("alaw-declared-ac3", lambda: media("ac3.ac3"), "audio/alaw", "mime.not_allowed"),
    ("mulaw-declared-png", lambda: media("png_stored.png"), "audio/mulaw", "image/png"),
    (
        "alaw-declared-quiet-negative-signal",
        _quiet_negative_alaw,
        "audio/alaw;rate=8000",
        "audio/alaw",
    ),
    ("l16-declared-raw-samples", lambda: media("l16_16k.raw"), "audio/l16;rate=16000", "audio/l16"),
    # 7. more formats named outside the API's lists
    ("ac3-three-frames", lambda: _ac3_frames(3), None, "mime.not_allowed"),
    ("ac3-sync-word-then-junk", lambda: b"\x0b\x77" + bytes(range(256)) * 4, None, "media.unknown"),
    (
        "h265-annex-b-vps",
        lambda: b"\x00\x00\x00\x01\x40\x01\x0c\x01\xff\xff" + b"\x00" * 64,
        None,
        "mime.not_allowed",
    ),
    (
        "annex-b-start-code-without-sps",
        lambda: b"\x00\x00\x00\x01\x09\xf0" + b"\x00" * 64,
        None,
        "media.unknown",
    ),
    ("wave64-guid", lambda: media("wave64.w64")[:64], None, "mime.not_allowed"),
    (
        "pbm-with-comment",
        lambda: b"P4\n# made by hand\n8 2\n" + bytes(range(16)),
        None,
        "mime.not_allowed",
    ),
    # 8. PNG end chunk
    ("png-iend-crc-missing-1-byte", lambda: media("png_stored.png")[:-1], None, "media.truncated"),
    ("png-iend-crc-missing-4-bytes", lambda: media("png_stored.png")[:-4], None, "media.truncated"),
    ("png-iend-crc-missing-2-bytes", lambda: media("png_stored.png")[:-2], None, "media.truncated"),
]


@pytest.fixture
def without_libmagic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Sniff with the library's own recognisers only, so the verdicts do not vary by host."""
    from decisions_input.sniffing import others

    others.magic_db.cache_clear()
    monkeypatch.setitem(sys.modules, "magic", None)  # import magic now raises ImportError
    yield
    others.magic_db.cache_clear()


@pytest.mark.parametrize(
    ("make", "declared", "expected"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE]
)
@pytest.mark.usefixtures("without_libmagic")
def test_hostile_bytes(make: Callable[[], bytes], declared: str | None, expected: str) -> None:
    det = sniff_bytes(make(), declared=declared)
    assert verdict(det) == expected, det.reason
    assert (det.mime is None) == (det.code is not None)


DURATIONS: list[tuple[str, Callable[[], bytes], bool, float | None]] = [
    (
        "wav-data-size-capped",
        lambda: _wav_data_size(media("wav_pcm16.wav"), 0xFFFFFFF0),
        False,
        0.5,
    ),
    (
        "wav-data-size-zero-in-streamed-riff",
        lambda: _patch(_wav_data_size(media("wav_pcm16.wav"), 0), 4, b"\xff" * 4),
        False,
        0.5,
    ),
    (
        "wav-data-size-zero-in-sized-riff",
        lambda: _wav_data_size(media("wav_pcm16.wav"), 0),
        False,
        0.0,
    ),
    ("wav-cut-in-half", lambda: media("wav_pcm16.wav")[: 44 + 4000], False, 0.25),
    ("wav-pipe-head-partial", lambda: media("wav_ffmpeg_pipe.wav")[:1024], True, None),
    ("wav-head-partial-within-declared", lambda: media("wav_pcm16.wav"), True, 0.5),
    ("rf64-ds64-capped", lambda: _rf64_ds64_data_size(1 << 40), False, 1.0),
    ("aiff-comm-and-ssnd-capped", lambda: _aiff_lie(1 << 30, 0x7FFFFFF0), False, 1.0),
    (
        "aiff-comm-frames-capped",
        lambda: _aiff_lie(1 << 30, len(media("aiff_pcm.aiff"))),
        False,
        1.0,
    ),
    (
        "aiff-cut-in-half",
        lambda: media("aiff_pcm.aiff")[: len(media("aiff_pcm.aiff")) // 2],
        False,
        0.499,
    ),
]


@pytest.mark.parametrize(
    ("make", "partial", "seconds"), [c[1:] for c in DURATIONS], ids=[c[0] for c in DURATIONS]
)
def test_declared_lengths_are_capped_by_the_bytes(
    make: Callable[[], bytes], partial: bool, seconds: float | None
) -> None:
    det = sniff_bytes(make(), partial=partial)
    assert det.ok, det.reason
    assert det.evidence.get("duration_s") == seconds


def _seconds(det: Detected) -> float:
    value = det.evidence["duration_s"]
    assert isinstance(value, float)
    return value


def test_counts_in_compressed_streams_are_capped_by_the_bytes() -> None:
    mp3 = media("mp3_id3v2.mp3")
    lying = _patch(mp3, mp3.index(b"Info") + 8, struct.pack(">I", 0x7FFFFFFF))  # Info frames
    assert _seconds(sniff_bytes(mp3)) < _seconds(sniff_bytes(lying)) < 5.0
    flac = media("flac.flac")
    streaminfo = int.from_bytes(flac[18:26], "big") | ((1 << 36) - 1)  # total samples
    assert 1.0 < _seconds(sniff_bytes(flac[:18] + streaminfo.to_bytes(8, "big") + flac[26:])) < 200


# --------------------------------------------------------------------------------------
# More byte-level hostile shapes
# --------------------------------------------------------------------------------------


def _id3(body: bytes, *, footer: bool = False, declared_size: int | None = None) -> bytes:
    size = len(body) if declared_size is None else declared_size
    safe = bytes(((size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F))
    head = b"ID3\x04\x00" + (b"\x10" if footer else b"\x00") + safe
    return head + body + (b"3DI\x04\x00\x10" + safe if footer else b"")


def _mp3_frames(data: bytes, count: int) -> bytes:
    """The first ``count`` whole frames of an MPEG-2 layer III, 32 kbit/s, 22.05 kHz file."""
    end = 0
    for _ in range(count):
        assert data[end : end + 2] == b"\xff\xf3"  # MPEG-2 layer III, no CRC
        end += 72 * 32000 // 22050 + ((data[end + 2] >> 1) & 1)
    return data[:end]


def test_id3_with_footer_flag_is_skipped() -> None:
    data = _id3(b"TIT2\x00\x00\x00\x02\x00\x00\x00x", footer=True) + media("mp3_plain.mp3")
    det = sniff_bytes(data)
    assert det.mime == "audio/mpeg"
    assert det.evidence["id3_bytes"] == len(data) - len(media("mp3_plain.mp3"))


def test_id3_larger_than_the_file_is_truncated() -> None:
    assert sniff_bytes(_id3(b"\x00" * 10, declared_size=5000)).code == "media.truncated"


def test_id3_followed_by_junk_is_unknown() -> None:
    assert sniff_bytes(_id3(b"\x00" * 10) + b"\x12\x34" * 300).code == "media.unknown"


def test_mp3_chain_needs_three_frames_or_an_exact_end() -> None:
    data = media("mp3_plain.mp3")
    frame = struct.unpack(">I", data[:4])[0]
    assert frame >> 21 == 0x7FF
    assert sniff_bytes(data[:4]).code == "media.unknown"
    two_exact = sniff_bytes(_mp3_frames(data, 2))
    assert two_exact.mime == "audio/mpeg"
    assert sniff_bytes(_mp3_frames(data, 1) + b"\x00" * 50).mime is None


def test_adts_header_followed_by_garbage_is_unknown() -> None:
    header = media("aac_adts.aac")[:7]
    assert sniff_bytes(header + bytes(range(256)) * 3).mime is None


def _junk(n: int) -> bytes:
    """``n`` bytes of junk with no frame sync (``FF`` never followed by ``E0`` or more)."""
    return (b"\xff\x00" * n)[:n]


def _random_junk(n: int, seed: int) -> bytes:
    """``n`` seeded random bytes with every ``FF`` taken out, so no sync word."""
    return bytes(b if b != 0xFF else 0x7F for b in random.Random(seed).randbytes(n))


def _id3_split(name: str) -> tuple[bytes, bytes]:
    """The ID3v2 tag of a fixture (no footer) and the audio after it."""
    data = media(name)
    assert data[:3] == b"ID3" and not data[5] & 0x10
    raw = data[6:10]
    end = 10 + ((raw[0] << 21) | (raw[1] << 14) | (raw[2] << 7) | raw[3])
    return data[:end], data[end:]


def _after_tag(name: str, junk: bytes) -> bytes:
    tag, audio = _id3_split(name)
    return tag + junk + audio


_WINDOW = GEMINI.MAX_AUDIO_JUNK_BYTES
_FALSE_SYNC = b"\xff\xf3\x40\xc4"  # an MPEG-2 layer III header whose next one is missing

# (id, bytes, verdict, evidence["junk_bytes"])
JUNK_BEFORE_FRAMES: list[tuple[str, Callable[[], bytes], str, int | None]] = [
    ("mp3-junk-1-at-start", lambda: _junk(1) + media("mp3_plain.mp3"), "audio/mpeg", 1),
    ("mp3-junk-7-at-start", lambda: _junk(7) + media("mp3_plain.mp3"), "audio/mpeg", 7),
    ("mp3-junk-100-at-start", lambda: _junk(100) + media("mp3_plain.mp3"), "audio/mpeg", 100),
    ("mp3-junk-1000-at-start", lambda: _junk(1000) + media("mp3_plain.mp3"), "audio/mpeg", 1000),
    (
        "mp3-random-junk-1000-at-start",
        lambda: b"\x01" + _random_junk(999, 1) + media("mp3_plain.mp3"),
        "audio/mpeg",
        1000,
    ),
    ("mp3-junk-1-after-id3", lambda: _after_tag("mp3_id3v2.mp3", _junk(1)), "audio/mpeg", 1),
    ("mp3-junk-7-after-id3", lambda: _after_tag("mp3_id3v2.mp3", _junk(7)), "audio/mpeg", 7),
    ("mp3-junk-100-after-id3", lambda: _after_tag("mp3_id3v2.mp3", _junk(100)), "audio/mpeg", 100),
    (
        "mp3-junk-1000-after-id3",
        lambda: _after_tag("mp3_id3v2.mp3", _junk(1000)),
        "audio/mpeg",
        1000,
    ),
    (
        "mp3-zero-padding-then-junk-after-id3",
        lambda: _after_tag("mp3_id3v2.mp3", bytes(50) + _junk(7)),
        "audio/mpeg",
        7,
    ),
    (
        "mp3-false-sync-in-junk-7-at-start",
        lambda: _FALSE_SYNC + _junk(3) + media("mp3_plain.mp3"),
        "audio/mpeg",
        7,
    ),
    (
        "mp3-false-sync-in-junk-1000-after-id3",
        lambda: _after_tag("mp3_id3v2.mp3", _junk(500) + _FALSE_SYNC + _junk(496)),
        "audio/mpeg",
        1000,
    ),
    (
        "mp3-junk-at-window-bound",
        lambda: _junk(_WINDOW) + media("mp3_plain.mp3"),
        "audio/mpeg",
        _WINDOW,
    ),
    (
        "mp3-junk-past-window",
        lambda: _junk(_WINDOW + 1) + media("mp3_plain.mp3"),
        "media.unknown",
        None,
    ),
    (
        "mp3-junk-past-window-after-id3",
        lambda: _after_tag("mp3_id3v2.mp3", _junk(_WINDOW + 1)),
        "media.unknown",
        None,
    ),
    ("aac-junk-1-at-start", lambda: _junk(1) + media("aac_adts.aac"), "audio/aac", 1),
    ("aac-junk-100-at-start", lambda: _junk(100) + media("aac_adts.aac"), "audio/aac", 100),
    ("aac-junk-1000-at-start", lambda: _junk(1000) + media("aac_adts.aac"), "audio/aac", 1000),
    ("aac-junk-7-after-id3", lambda: _after_tag("id3_aac.aac", _junk(7)), "audio/aac", 7),
    (
        "aac-junk-past-window",
        lambda: _junk(_WINDOW + 1) + media("aac_adts.aac"),
        "media.unknown",
        None,
    ),
    ("random-with-sync-still-unknown", lambda: media("random_mp3_sync.mp3"), "media.unknown", None),
    (
        "random-with-sync-after-junk-still-unknown",
        lambda: _junk(100) + media("random_mp3_sync.mp3"),
        "media.unknown",
        None,
    ),
    (
        "random-with-sync-after-id3-still-unknown",
        lambda: _id3_split("mp3_id3v2.mp3")[0] + media("random_mp3_sync.mp3"),
        "media.unknown",
        None,
    ),
    ("lone-sync-in-junk-still-unknown", lambda: _FALSE_SYNC + _junk(500), "media.unknown", None),
]


@pytest.mark.parametrize(
    ("make", "expected", "junk"),
    [c[1:] for c in JUNK_BEFORE_FRAMES],
    ids=[c[0] for c in JUNK_BEFORE_FRAMES],
)
def test_junk_before_the_first_frame(
    make: Callable[[], bytes], expected: str, junk: int | None
) -> None:
    det = sniff_bytes(make())
    assert verdict(det) == expected, det.reason
    assert det.evidence.get("junk_bytes") == junk


def test_junk_before_the_first_frame_leaves_the_duration() -> None:
    for name in ("mp3_plain.mp3", "aac_adts.aac"):
        clean = sniff_bytes(media(name)).evidence
        assert "junk_bytes" not in clean
        assert sniff_bytes(_junk(1000) + media(name)).evidence["duration_s"] == clean["duration_s"]


def test_mpeg_ts_with_192_byte_packets_is_refused() -> None:
    packet = b"\x00\x00\x00\x00\x47" + b"\xff" * 187
    det = sniff_bytes(packet * 6)
    assert (det.code, det.format) == ("mime.not_allowed", "MPEG-TS")


def test_pdf_header_after_1024_bytes_is_a_damaged_pdf() -> None:
    det = sniff_bytes(b"\x01\x02" * 600 + media("pdf_minimal.pdf"))
    assert (det.mime, [w.code for w in det.warnings]) == ("application/pdf", ["pdf.damaged"])
    assert det.evidence["offset"] == 1200
    zipped = sniff_bytes(media("zip_archive.zip") + b"\x00" * 1200 + media("pdf_minimal.pdf"))
    assert (zipped.code, zipped.format) == ("mime.not_allowed", "ZIP")  # a format claims it


def test_hostile_box_count_stops_at_the_step_bound() -> None:
    boxes = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"\x00\x00\x00\x08free" * 20_000
    det = sniff_bytes(boxes)
    assert det.code == "media.too_complex"


def test_box_size_smaller_than_its_header_is_corrupt() -> None:
    assert sniff_bytes(b"\x00\x00\x00\x04ftypisom\x00\x00\x02\x00").code == "media.corrupt"
    after_ftyp = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\x00\x04moov"
    assert sniff_bytes(after_ftyp).code == "media.truncated"  # no moov before the bad header


def test_mp4_with_a_pdf_after_its_last_box_is_a_polyglot() -> None:
    det = sniff_bytes(media("mp4_faststart.mp4") + media("pdf_minimal.pdf"))
    assert (det.code, det.evidence["other_format"]) == ("media.polyglot", "PDF")


def test_padding_after_the_last_box_is_tolerated() -> None:
    det = sniff_bytes(media("mp4_faststart.mp4") + b"\x00\x00")
    assert (det.mime, det.evidence["trailing_bytes"]) == ("video/mp4", 2)


# A PDF of object bodies with a correct index, as the fixture generator makes them.
_pdf: Callable[[list[bytes]], bytes] = _load_generator().pdf_objects


_CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
_PAGES = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
_LEAF = b"<< /Type /Page /Parent 2 0 R >>"


def _pages(count: int, declared: int) -> bytes:
    kids = " ".join(f"{i + 3} 0 R" for i in range(count))
    tree = f"<< /Type /Pages /Kids [{kids}] /Count {declared} >>".encode()
    leaves = [b"<< /Type /Page /Parent 2 0 R >>"] * count
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", tree, *leaves])


# No "%%EOF" anywhere: pypdf, the slow path, refuses such a file after looking back for the
# marker line by line; the sniffer knows that verdict from one search, whatever the lines.
_NO_EOF_MARKER = {
    "many-lines": b"%PDF-1.4\n" + b"a\n" * 900_000,
    "one-line": b"%PDF-1.4\n" + b"a" * 1_800_000,
    "objects-no-tail": _pdf([_CATALOG, _PAGES, _LEAF]).split(b"xref")[0] + b"x\n" * 300_000,
}


@pytest.mark.parametrize("name", list(_NO_EOF_MARKER), ids=list(_NO_EOF_MARKER))
def test_pdf_without_an_eof_marker_is_refused_as_pypdf_refuses_it(name: str) -> None:
    data = _NO_EOF_MARKER[name]
    counting = CountingReader(io.BytesIO(data))
    det = sniff_stream(counting, len(data))
    assert (det.code, det.reason) == (
        "media.truncated",
        "expected startxref and %%EOF near the end, found neither",
    )
    # the head, the tail window, then the file once from the end in overlapping chunks:
    # pypdf's walk back through the lines would read it all again
    assert counting.bytes_read <= GEMINI.SNIFF_BYTES + TAIL_BYTES + len(data) + 1024
    with pytest.raises(pypdf.errors.PyPdfError):
        pypdf.PdfReader(io.BytesIO(data), strict=False)


# Bytes after %%EOF, with no startxref near the end: the own reader gives way to pypdf,
# which walks back to the marker line by line. It is shown the file up to the marker when
# what follows holds nothing its rebuilding of the index looks for; either way its verdict
# must be the one pypdf gives on the whole file.
_AFTER_EOF = {
    "long-lines": ((b"z" * 100_000 + b"\n") * 13, True),
    "short-lines": (b"zz\r\n" * 300_000, True),
    "one-line": (b"z" * 1_300_000, True),
    "an-object": ((b"z" * 100_000 + b"\n") * 6 + b"7 0 obj\n" + b"z" * 600_000, False),
    "a-startxref": (b"z" * 600_000 + b"\nstartxref\n9\n" + b"z" * 600_000, False),
}


@pytest.mark.parametrize("name", list(_AFTER_EOF), ids=list(_AFTER_EOF))
def test_pdf_bytes_after_eof_give_pypdfs_verdict_without_its_walk(name: str) -> None:
    junk, cut = _AFTER_EOF[name]
    data = media("pdf_minimal.pdf") + junk
    counting = CountingReader(io.BytesIO(data))
    det = sniff_stream(counting, len(data))
    assert (det.mime, det.evidence["pages"]) == (
        "application/pdf",
        len(pypdf.PdfReader(io.BytesIO(data), strict=False).pages),
    )
    if cut:  # read once from the end, then pypdf reads only the PDF before the junk
        assert counting.bytes_read <= GEMINI.SNIFF_BYTES + TAIL_BYTES + len(data) + 1024


@pytest.mark.parametrize("ending", [b"%%EO", b"%%E", b"%%", b"%"])
def test_pdf_ending_in_a_cut_marker_is_left_to_pypdf(ending: bytes) -> None:
    data = media("pdf_minimal.pdf").replace(b"%%EOF", ending)
    assert [w.code for w in sniff_bytes(data).warnings] == ["pdf.damaged"]


def test_pdf_page_tree_cycle_is_corrupt() -> None:
    cycle = _pdf(
        [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"]
    )
    assert sniff_bytes(cycle).code == "media.corrupt"


# Long runs of white space or comments where a PDF token is expected, then a character
# no token starts with: a pattern that skips them with nested repetition backtracks for
# longer than the age of the universe on a few dozen bytes. Each must give the verdict
# the same place gives with one space, well inside a CPU deadline.
_BLANK_RUNS = {
    "spaces": b" " * 5_000,
    "newlines": b"\r\n" * 2_500,
    "comment-of-percents": b"%" * 5_000 + b"\n",
    "comments": b"% note\n" * 700,
}
_TOKEN_PLACES = {
    "catalog-value": ([b"<< /Type /Catalog /Pages 2 0 R /Extra@}>>", _PAGES, _LEAF], "@"),
    "pages-count": ([_CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1@} >>", _LEAF], "@"),
    "kids-array": ([_CATALOG, b"<< /Type /Pages /Kids [3 0 R@}] /Count 1 >>", _LEAF], "@"),
    "leaf-value": ([_CATALOG, _PAGES, b"<< /Type /Page /Parent 2 0 R /Rotate@} >>"], "@"),
    "after-dict": ([_CATALOG, _PAGES, b"<< /Type /Page /Parent 2 0 R >>@}"], "@"),
    "trailer-value": ([_CATALOG, _PAGES, _LEAF], "@"),
}


@pytest.mark.parametrize("run", list(_BLANK_RUNS), ids=list(_BLANK_RUNS))
@pytest.mark.parametrize("place", list(_TOKEN_PLACES), ids=list(_TOKEN_PLACES))
def test_pdf_blank_runs_before_a_stray_character_cost_no_backtracking(place: str, run: str) -> None:
    objects, mark = _TOKEN_PLACES[place]

    def outcome(blank: bytes) -> str | None:
        pdf = _pdf([body.replace(mark.encode(), blank) for body in objects])
        if place == "trailer-value":  # after the table: no offset moves
            pdf = pdf.replace(b"/Root 1 0 R >>", b"/Root 1 0 R /Extra" + blank + b"} >>")
        with cpu_deadline(10.0):
            return verdict(sniff_bytes(pdf))

    assert outcome(_BLANK_RUNS[run]) == outcome(b" ")


def _pdf_with_object_stream(stream_entry: tuple[int, int, int]) -> bytes:
    """A PDF whose catalog sits in object stream 2, indexed by a cross-reference stream
    that gives object 2 itself the entry ``stream_entry`` (type, field 2, field 3)."""
    catalog = b"<< /Type /Catalog /Pages 3 0 R >>"
    packed = zlib.compress(b"1 0 " + catalog)
    out = bytearray(b"%PDF-1.5\n")
    at_stream = len(out)
    out += b"2 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>\n" % (
        len(packed)
    )
    out += b"stream\n" + packed + b"\nendstream\nendobj\n"
    at_xref = len(out)
    rows = [(0, 0, 255), (2, 2, 0), stream_entry, (1, at_xref, 0)]
    if stream_entry == (1, 0, 0):
        rows[2] = (1, at_stream, 0)
    table = zlib.compress(b"".join(struct.pack(">BHB", *row) for row in rows))
    out += b"4 0 obj\n<< /Type /XRef /Size 4 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode "
    out += b"/Length %d >>\nstream\n" % len(table) + table + b"\nendstream\nendobj\n"
    return bytes(out + b"startxref\n%d\n%%%%EOF\n" % at_xref)


@pytest.mark.parametrize(
    ("stream_entry", "code"),
    [((1, 0, 0), "pdf.no_pages"), ((2, 2, 0), "media.corrupt")],
    ids=["stream-in-the-file", "stream-listed-in-itself"],
)
def test_an_object_stream_that_would_be_read_from_itself_is_refused(
    stream_entry: tuple[int, int, int], code: str
) -> None:
    # Found by benchmarks/fuzz_media.py: the reader went round the cycle until the
    # interpreter's recursion limit, reported as internal.error.
    det = sniff_bytes(_pdf_with_object_stream(stream_entry))
    assert (det.mime, det.code) == (None, code), det.reason


def _read_members(read: Any, data: bytes, keys: frozenset[str]) -> object:
    """What a members reader gives for a dictionary at the start of ``data``, or the kind
    of exception it raises; arrays of references as lists."""
    try:
        found = read(data, 2, keys)
    except (pdf_objects.Unreadable, pdf_syntax._NeedMore) as exc:
        return type(exc).__name__
    if found is None:
        return None
    value, end = found
    return _plain_pdf(value), end


def _plain_pdf(value: object) -> object:
    """A parsed PDF value with its arrays of references as lists, to compare."""
    if isinstance(value, dict):
        return {k: _plain_pdf(v) for k, v in value.items()}
    if isinstance(value, (list, pdf_objects.RefArray)):
        return [_plain_pdf(v) for v in value]
    return value


_OLD_STRUCTURE = re.compile(rb"<<|>>|\[|\]|\(|%|/([^\x00\t\n\x0c\r ()<>\[\]{}/%]*)")
_OLD_VALUE_START = re.compile(rb"[\x00\t\n\x0c\r ]*(/)?")


def _members_token_by_token(data: bytes, pos: int, keys: frozenset[str]) -> object:
    """The quick reader as it was before a name was matched together with its value: one
    search per bracket or name, and a look after each unwanted member name for a name
    value. The reference the quick reader is held to, on any text."""
    out: dict[str, object] = {}
    level, value_name = 1, False
    while True:
        match = _OLD_STRUCTURE.search(data, pos)
        if match is None:
            raise pdf_syntax._NeedMore
        token, pos = match.group(), match.end()
        if token in (b"<<", b"["):
            level += 1
        elif token in (b">>", b"]"):
            level -= 1
            if level == 0:
                return (out, pos) if token == b">>" else None
        elif token in (b"(", b"%"):
            return None
        elif level == 1 and value_name:
            value_name = False
        elif level == 1:
            key = match.group(1).decode("latin-1")
            if key in keys and key not in out:
                try:
                    out[key], end = pdf_syntax._parse(data, pos)
                except pdf_objects.Unreadable:
                    return None
                if data.find(b"(", pos, end) >= 0:
                    return None
                pos = end
            else:
                value_name = _OLD_VALUE_START.match(data, pos).group(1) is not None  # type: ignore[union-attr]


_WANTED = st.sampled_from(
    [frozenset({"Type", "Kids", "Count"}), frozenset({"Pages"}), frozenset({"Root", "Size", "X"})]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pdf_dictionaries(), _WANTED)
def test_the_quick_dictionary_reader_reads_what_the_careful_one_does(
    data: bytes, keys: frozenset[str]
) -> None:
    quick = _read_members(pdf_syntax._quick_members, data, keys)
    if quick is not None:  # None: the careful reader is asked instead
        assert quick == _read_members(pdf_syntax._members, data, keys)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pdf_dictionaries() | pdf_dictionaries(soup=True), _WANTED)
def test_the_quick_dictionary_reader_reads_any_text_as_it_did_token_by_token(
    data: bytes, keys: frozenset[str]
) -> None:
    found = _read_members(pdf_syntax._quick_members, data, keys)
    assert found == _read_members(_members_token_by_token, data, keys)


def _read_value(read: Any, data: bytes) -> object:
    """What a value reader gives for the value at the start of ``data``, or the kind of
    exception it raises; arrays of references as lists."""
    try:
        value, end = read(data, 0)
    except (pdf_objects.Unreadable, pdf_syntax._NeedMore) as exc:
        return type(exc).__name__
    return _plain_pdf(value), end


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pdf_dictionaries() | pdf_dictionaries(soup=True) | pdf_arrays())
def test_a_wanted_value_is_read_as_the_token_reader_reads_it(data: bytes) -> None:
    # _value reads an array of integers or a flat dictionary with one match and one
    # findall; _parse goes token by token.
    assert _read_value(pdf_syntax._value, data) == _read_value(pdf_syntax._parse, data)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"[1 2 1]", [1, 2, 1]),
        (b"[ +0 -7\n12 ]", [0, -7, 12]),
        (b"<< /Columns 4 /Predictor 12 >>", {"Columns": 4, "Predictor": 12}),
        (b"<</A/B/C 3 0 R/A 5>>", {"A": "B", "C": pdf_objects.Ref(3, 0)}),
    ],
    ids=["ints", "signs-and-gaps", "decode-parms", "names-refs-first-key-wins"],
)
def test_flat_values_are_read_whole(text: bytes, expected: object) -> None:
    assert pdf_syntax._value(text + b" endobj" + b"\n" * 16, 0) == (expected, len(text))


def _walk_every_kid_on_the_stack(root: object, open_node: Any, key: Any, limit: int) -> Any:
    """The page-tree walk as it was before the kids after the first were put on the stack
    as one lazy entry: every kid read into references when its parent is opened."""
    stack, seen, leaves, unfinished = [root], set(), 0, False
    first = open_node(root)
    if not first.is_dict:
        raise pdf.Broken("pdf.no_pages", "no tree")
    if first.kids is not None and first.count is not None and 1 < len(first.kids) == first.count:
        unfinished = True
    for done in range(limit):
        if not stack:
            return pdf._settle_pages(leaves, first.count)
        if unfinished and leaves:
            break
        item = stack.pop()
        ident = key(item)
        if ident is not None:
            if ident in seen:
                raise pdf.Broken("media.corrupt", "twice")
            seen.add(ident)
        node = first if item is root else open_node(item)
        if node.kind == "Pages" or (node.kind is None and node.kids is not None):
            kids = node.kids or []
            unfinished = unfinished or len(stack) + len(kids) >= limit - done
            stack.extend(reversed(list(kids[:limit])))
        elif node.is_dict and (node.kind == "Page" or node.kind is None):
            leaves += 1
    if not leaves:
        raise pdf.Broken("media.too_complex", "no leaf")
    count = first.count if first.count is not None and first.count > leaves else leaves
    return pdf._Pages(count, False)


@st.composite
def _page_trees(draw: st.DrawFn) -> dict[int, Any]:
    """Page trees of up to 12 nodes by number, node 0 the root: kinds of every sort,
    /Kids that name any node (the root, themselves, nodes that do not exist) or none,
    arrays of references as the own reader holds them (with a stray R, counted but not a
    reference), and any /Count."""
    size = draw(st.integers(1, 12))
    tree: dict[int, Any] = {}
    for number in range(size):
        kind = draw(st.sampled_from(["Pages", "Page", None, "Catalog"]))
        kids = draw(st.none() | st.lists(st.integers(0, size), max_size=12))
        if kids is not None and draw(st.booleans()):
            text = b" ".join(b"%d 0 R" % k for k in kids)
            kids = pdf_objects.RefArray(text + draw(st.sampled_from([b"", b" R", b" 7 R"])))
        elif kids is not None:
            kids = [pdf_objects.Ref(k, 0) for k in kids]
        count = draw(st.none() | st.integers(0, 14))
        tree[number] = pdf._Node(kind, kids, count, is_dict=draw(st.integers(0, 9)) > 0)
    return tree


def _walked(walk: Any, tree: dict[int, Any], limit: int) -> object:
    def open_node(item: object) -> Any:
        found = tree.get(item.num) if isinstance(item, pdf_objects.Ref) else None
        return found or pdf._Node(None, None, None, is_dict=False)

    try:
        pages = walk(pdf_objects.Ref(0, 0), open_node, lambda item: item, limit)
    except pdf.Broken as exc:
        return exc.code
    return pages.count, pages.exact, pages.notes


@settings(max_examples=500, deadline=None)
@given(_page_trees(), st.integers(1, 10))
def test_the_walk_decides_as_it_did_with_every_kid_on_the_stack(
    tree: dict[int, Any], limit: int
) -> None:
    expected = _walked(_walk_every_kid_on_the_stack, tree, limit)
    assert _walked(pdf._walk, tree, limit) == expected


def test_a_kids_array_with_a_stray_r_is_walked_as_the_references_it_holds() -> None:
    # Two R counted, one reference: the flat tree's walk ends at its only kid with every
    # leaf counted, not cut short as if a second kid were waiting.
    tree = {
        0: pdf._Node("Pages", pdf_objects.RefArray(b"1 0 R R"), 2),
        1: pdf._Node("Page", None, None),
    }
    note = ("expected /Count 2 to count the 1 page leaves",)
    assert _walked(_walk_every_kid_on_the_stack, tree, 8) == (1, True, note)
    assert _walked(pdf._walk, tree, 8) == (1, True, note)


def test_pdf_pages_are_counted_leaf_by_leaf_up_to_a_bound() -> None:
    exact = sniff_bytes(_pages(5, declared=9))
    assert (exact.evidence["pages"], exact.evidence["pages_exact"]) == (5, True)
    many = sniff_bytes(_pages(3000, declared=3000))
    assert (many.evidence["pages"], many.evidence["pages_exact"]) == (3000, False)


def test_pillow_gets_a_small_allowance_past_the_head(tmp_path: Path) -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0))
    path = tmp_path / "many_chunks.png"
    iend = media("png_stored.png")[-12:]
    texts = chunk(b"tEXt", b"a\x00b") * 100_000
    path.write_bytes(media("png_stored.png")[:8] + ihdr + texts + iend)
    det, reader = _sniff_counting(path)
    assert det.mime == "image/png"  # the own IHDR parse stands; Pillow stopped at its allowance
    assert reader.bytes_read < 4 * GEMINI.SNIFF_BYTES + 300_000


def test_flv_with_audio_flag_only_is_refused() -> None:
    head = b"FLV\x01\x04\x00\x00\x00\x09\x00\x00\x00\x00"
    tag = b"\x08\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xaf\x00\x00\x00\x0c"
    det = sniff_bytes(head + tag)
    assert (det.code, det.kind) == ("mime.not_allowed", "audio")


def test_riff_with_another_form_names_it() -> None:
    det = sniff_bytes(b"RIFF\x0c\x00\x00\x00RMIDdata\x00\x00\x00\x00")
    assert (det.code, det.format) == ("mime.not_allowed", "RIFF RMID")


# --------------------------------------------------------------------------------------
# Headerless audio
# --------------------------------------------------------------------------------------

HEADERLESS = [
    ("l16-declared", "l16_16k.raw", "audio/l16;rate=16000", "audio/l16"),
    ("l16-declared-stereo", "l16_16k.raw", "audio/l16; rate=16000; channels=2", "audio/l16"),
    ("l16-declared-no-rate", "l16_16k.raw", "audio/L16", "audio/l16"),
    ("l16-undeclared", "l16_16k.raw", None, "media.unknown"),
    ("l16-odd-length", "l16_odd_length.raw", "audio/l16;rate=16000", "audio.odd_length"),
    ("l16-bad-rate", "l16_16k.raw", "audio/l16;rate=fast", "mime.parameter"),
    ("l16-zero-rate", "l16_16k.raw", "audio/l16;rate=0", "mime.parameter"),
    ("l16-bare-parameter", "l16_16k.raw", "audio/l16;rate", "mime.parameter"),
    ("alaw-declared", "alaw_8k.raw", "audio/alaw;rate=8000", "audio/alaw"),
    ("mulaw-declared", "mulaw_8k.raw", "audio/mulaw;rate=8000", "audio/mulaw"),
    ("l16-declared-but-wav", "wav_pcm16.wav", "audio/l16;rate=8000", "audio/wav"),
    ("raw-declared-wav", "l16_16k.raw", "audio/wav", "audio.headerless_undeclared"),
]


@pytest.mark.parametrize(
    ("name", "declared", "expected"), [c[1:] for c in HEADERLESS], ids=[c[0] for c in HEADERLESS]
)
def test_headerless_audio(name: str, declared: str | None, expected: str) -> None:
    assert verdict(sniff_file(name, declared)) == expected


def test_headerless_parameters_become_evidence() -> None:
    det = sniff_file("l16_16k.raw", "audio/l16;rate=16000;channels=2")
    assert (det.evidence["sample_rate"], det.evidence["channels"]) == (16000, 2)
    assert det.evidence["duration_s"] == 0.125
    assert sniff_bytes(b"\x00" * 6, declared="audio/l16;channels=4").code == "audio.odd_length"


# --------------------------------------------------------------------------------------
# mime_matches
# --------------------------------------------------------------------------------------

MATCHES = [
    ("mp3-as-audio-mp3", "mp3_plain.mp3", "audio/mp3", True),
    ("mp3-as-audio-mpeg", "mp3_plain.mp3", "audio/mpeg", True),
    ("mp3-case-and-parameters", "mp3_plain.mp3", "Audio/MPEG; foo=bar", True),
    ("mp3-as-aac", "mp3_plain.mp3", "audio/aac", False),
    ("ogg-vorbis-declared-ogg", "ogg_vorbis.ogg", "audio/ogg", True),
    ("ogg-vorbis-declared-opus", "ogg_vorbis.ogg", "audio/opus", False),
    ("ogg-opus-declared-opus", "ogg_opus.opus", "audio/opus", True),
    ("ogg-opus-declared-ogg", "ogg_opus.opus", "audio/ogg", True),
    ("ogg-flac-declared-opus", "ogg_flac.oga", "audio/opus", False),
    ("webm-opus-declared-opus", "webm_audio_only.webm", "audio/opus", False),
    ("heic-declared-heif", "heic_x265.heic", "image/heif", True),
    ("heic-declared-heic", "heic_x265.heic", "image/heic", True),
    ("jpeg-coded-heif-declared-heic", "heif_jpeg_coded.heif", "image/heic", False),
    ("jpeg-coded-heif-declared-heif", "heif_jpeg_coded.heif", "image/heif", True),
    ("wav-declared-png", "wav_named.png", "image/png", False),
    ("m4a-declared-mp4", "mp4_audio_only.mp4", "video/mp4", False),
    ("webm-audio-declared-video", "webm_audio_only.webm", "video/webm", False),
    ("refused-never-matches", "mkv_matroska.mkv", "video/webm", False),
    ("garbage-declaration", "png_pillow.png", "image/png;;=x=", False),
]


@pytest.mark.parametrize(
    ("name", "declared", "expected"), [c[1:] for c in MATCHES], ids=[c[0] for c in MATCHES]
)
def test_mime_matches(name: str, declared: str, expected: bool) -> None:
    assert mime_matches(sniff_file(name), declared) is expected


def test_mime_matches_headerless_with_parameters() -> None:
    det = sniff_file("l16_16k.raw", "audio/l16;rate=16000")
    assert mime_matches(det, "audio/l16; rate=16000")
    assert not mime_matches(det, "audio/alaw")


# --------------------------------------------------------------------------------------
# Bounded reading
# --------------------------------------------------------------------------------------

GIB = 1 << 30


def _sparse_mp4(path: Path, total: int) -> None:
    """ftyp, a 64-bit mdat covering almost everything, and a real moov at the very end."""
    data = media("mp4_faststart.mp4")
    ftyp = data[: struct.unpack(">I", data[:4])[0]]
    at = data.index(b"moov") - 4
    moov = data[at : at + struct.unpack(">I", data[at : at + 4])[0]]
    mdat_size = total - len(ftyp) - len(moov)
    with path.open("wb") as fp:
        fp.write(ftyp + struct.pack(">I4sQ", 1, b"mdat", mdat_size))
        fp.truncate(len(ftyp) + mdat_size)
        fp.seek(len(ftyp) + mdat_size)
        fp.write(moov)


def _sparse_wav(path: Path, total: int) -> None:
    head = media("wav_pcm16.wav")[:44]
    head = head[:4] + struct.pack("<I", total - 8) + head[8:40] + struct.pack("<I", total - 44)
    with path.open("wb") as fp:
        fp.write(head)
        fp.truncate(total)


def _sniff_counting(path: Path) -> tuple[Detected, CountingReader]:
    with path.open("rb") as raw:
        reader = CountingReader(raw)
        return sniff_stream(reader, path.stat().st_size), reader


@pytest.mark.parametrize(
    ("make", "mime"), [(_sparse_mp4, "video/mp4"), (_sparse_wav, "audio/wav")], ids=["mp4", "wav"]
)
def test_one_gib_sparse_file_sniffs_like_a_small_one(tmp_path: Path, make: Any, mime: str) -> None:
    big, small = tmp_path / "big", tmp_path / "small"
    make(big, GIB)
    make(small, 1 << 20)
    det_big, read_big = _sniff_counting(big)
    det_small, read_small = _sniff_counting(small)
    assert det_big.mime == det_small.mime == mime
    assert read_big.bytes_read <= 4 * GEMINI.SNIFF_BYTES
    assert read_big.reads <= read_small.reads + 4


# One bound for every family, short file or long: the head and the tail a sniffer reads
# (2 x SNIFF_BYTES), Pillow's allowance past the head (4 x), and a frame walk or a page
# tree's largest node (2 x); and the reads (seeks) that take.
_BYTES_BOUND = 8 * GEMINI.SNIFF_BYTES
_READS_BOUND = 128


def _counted(data: bytes | Sparse) -> tuple[Detected, Counting]:
    inner: Any = data if isinstance(data, Sparse) else io.BytesIO(data)
    size = data.seek(0, io.SEEK_END) if isinstance(data, Sparse) else len(data)
    counting = Counting(inner, size)
    return sniff_stream(counting, size), counting


@pytest.mark.parametrize("entry", LONG, ids=[e.family for e in LONG])
def test_cost_does_not_grow_with_the_file(entry: Long) -> None:
    short_det, short = _counted(media(entry.short))
    long_det, long = _counted(entry.make())
    assert (long_det.mime, long_det.code) == (short_det.mime, short_det.code), long_det.reason
    for counted in (short, long):
        assert counted.bytes_read <= _BYTES_BOUND
        assert counted.reads <= _READS_BOUND
    if entry.seconds is not None:
        _assert_told(long_det, entry.seconds)


def test_long_mp3_beyond_the_walk_is_an_estimate() -> None:
    det, _ = _counted(long_mp3("mp3_plain.mp3", 3600))
    assert det.evidence["duration_estimated"] is True  # one bit rate seen: constant, estimated
    variable, _ = _counted(long_mp3("mp3_vbr_no_info.mp3", 100))
    low, high = variable.evidence["duration_range_s"]  # type: ignore[misc]
    assert "duration_s" not in variable.evidence
    assert low < 100 * 3.0 < high  # 100 joined copies of a 3 s VBR file


def test_zero_page_pdf_padded_with_300000_objects_has_no_pages() -> None:
    det, counted = _counted(long_pdf_objects(300_000, pages=0))
    assert det.code == "pdf.no_pages"
    assert counted.bytes_read <= _BYTES_BOUND


def test_moov_found_after_a_gib_of_mdat(tmp_path: Path) -> None:
    path = tmp_path / "moov_at_end.mp4"
    _sparse_mp4(path, GIB + 12345)
    det, reader = _sniff_counting(path)
    assert det.evidence["tracks"] == ("video", "audio")
    assert reader.bytes_read < 300_000


def test_two_mib_id3_tag_is_skipped_by_seeking() -> None:
    path = MEDIA / "mp3_big_cover.mp3"
    det, reader = _sniff_counting(path)
    assert det.mime == "audio/mpeg"
    assert reader.bytes_read < 3 * GEMINI.SNIFF_BYTES


def test_huge_image_header_is_never_decoded() -> None:
    det, reader = _sniff_counting(MEDIA / "png_huge_dims.png")
    assert det.code == "image.too_many_pixels"
    assert det.evidence == {}


# --------------------------------------------------------------------------------------
# Stream contract, limits, values
# --------------------------------------------------------------------------------------


def test_stream_is_read_from_its_position_and_restored() -> None:
    png = media("png_pillow.png")
    fp = io.BytesIO(b"x" * 100 + png + b"tail")
    fp.seek(100)
    det = sniff_stream(fp, len(png))
    assert det.mime == "image/png"
    assert fp.tell() == 100


class _Broken(io.RawIOBase):
    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return 0

    def seek(self, offset: int, whence: int = 0) -> int:
        return 0

    def readinto(self, buffer: Any) -> int:
        raise OSError("disk on fire")


def test_a_reader_that_fails_reports_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from decisions_input.sniffing import registry
    from decisions_input.sniffing.base import Format

    def failing(src: Any) -> Detected:
        raise IndexError("index out of range")

    monkeypatch.setattr(registry, "REGISTRY", (Format("PNG", "image", lambda h: True, failing),))
    det = sniff_bytes(media("png_pillow.png"))
    assert (det.code, det.format, det.kind) == ("internal.error", "PNG", "image")
    assert "test_sniffing.py" not in det.reason and "IndexError" in det.reason


def test_read_errors_become_source_errors() -> None:
    with pytest.raises(SourceError):
        sniff_stream(_Broken(), 100)


def test_negative_size_is_refused() -> None:
    with pytest.raises(SourceError):
        sniff_stream(io.BytesIO(b"abc"), -1)


def test_detected_is_frozen_and_its_evidence_read_only() -> None:
    det = sniff_file("png_pillow.png")
    with pytest.raises(FrozenInstanceError):
        det.mime = "image/gif"  # type: ignore[misc]
    with pytest.raises(TypeError):
        det.evidence["width"] = 1  # type: ignore[index]


def test_limits_decide_what_is_allowed() -> None:
    no_flv = GEMINI.derive(MIME_TYPES={**GEMINI.MIME_TYPES, "video": ("video/mp4",)})
    det = sniff_stream(io.BytesIO(media("flv_flv1.flv")), len(media("flv_flv1.flv")), limits=no_flv)
    assert (det.code, det.format) == ("mime.not_allowed", "FLV")
    tiny = GEMINI.derive(MAX_IMAGE_PIXELS=100)
    assert sniff_bytes(media("png_pillow.png"), limits=tiny).code == "image.too_many_pixels"


def test_mp3_is_named_audio_mp3_when_only_that_name_is_allowed() -> None:
    audio = tuple(m for m in GEMINI.MIME_TYPES["audio"] if m != "audio/mpeg")
    only_mp3 = GEMINI.derive(MIME_TYPES={**GEMINI.MIME_TYPES, "audio": audio})
    assert sniff_bytes(media("mp3_plain.mp3"), limits=only_mp3).mime == "audio/mp3"


PARTIAL = [
    ("mp4-moov-beyond-head", "mp4_h264.mp4", 4096, "video/mp4"),
    ("png-head", "png_pillow.png", 60, "image/png"),
    ("jpeg-head", "jpeg_baseline.jpg", 400, "image/jpeg"),
    ("pdf-head", "pdf_minimal.pdf", 100, "application/pdf"),
]


@pytest.mark.parametrize(
    ("name", "cut", "mime"), [c[1:] for c in PARTIAL], ids=[c[0] for c in PARTIAL]
)
def test_partial_head_skips_checks_that_need_the_end(name: str, cut: int, mime: str) -> None:
    head = media(name)[:cut]
    assert sniff_bytes(head).mime is None
    assert sniff_bytes(head, partial=True).mime == mime


def test_importing_sniff_loads_no_heavy_library() -> None:
    code = (
        "import sys, decisions_input.sniffing as s; "
        "print(sorted(m for m in ('PIL', 'pypdf', 'magic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------
# libmagic
# --------------------------------------------------------------------------------------


@pytest.mark.skipif(NO_LIBMAGIC is not None, reason=NO_LIBMAGIC or "")
def test_libmagic_names_formats_outside_the_own_table() -> None:
    det = sniff_bytes(b"#!/bin/sh\necho hello\n")
    assert (det.code, det.format) == ("mime.not_allowed", "text/x-shellscript")
    assert det.evidence["libmagic"] == "text/x-shellscript"


@pytest.mark.skipif(NO_LIBMAGIC is not None, reason=NO_LIBMAGIC or "")
def test_libmagic_guesses_do_not_accept_bytes() -> None:
    det = sniff_file("random_mp3_sync.mp3")
    assert det.code == "media.unknown"
    assert det.evidence.get("libmagic") == "audio/mpeg"


def test_without_libmagic_the_own_table_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from decisions_input.sniffing import others

    others.magic_db.cache_clear()
    monkeypatch.setitem(sys.modules, "magic", None)  # import magic now raises ImportError
    try:
        det = sniff_bytes(b"#!/bin/sh\necho hello\n")
        assert (det.code, det.format) == ("mime.not_allowed", "plain text")
        assert sniff_file("png_pillow.png").mime == "image/png"
        assert sniff_file("random.bin").code == "media.unknown"
    finally:
        others.magic_db.cache_clear()


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


def _check_invariants(det: Detected) -> None:
    assert isinstance(det, Detected)
    assert (det.mime is None) == (det.code is not None)
    if det.mime is not None:
        assert det.mime in GEMINI.MIME_TYPES[str(det.kind)]
    else:
        assert det.code in RULES
        assert det.code != "internal.error", det.reason
    assert det.kind in (None, "image", "audio", "video", "document")
    assert det.format and det.reason


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=media_bytes, declared=declared_mime_types)
def test_arbitrary_bytes_never_raise_foreign_errors(data: bytes, declared: str | None) -> None:
    try:
        det = sniff_bytes(data, declared=declared)
    except DecisionsInputError:
        return
    _check_invariants(det)


_SEEDS = [media(e["name"]) for e in MANIFEST if 0 < e["size"] < 100_000]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutated_media(_SEEDS), declared=declared_mime_types)
def test_mutated_real_files_never_raise_foreign_errors(data: bytes, declared: str | None) -> None:
    try:
        det = sniff_bytes(data, declared=declared, partial=len(data) % 5 == 0)
    except DecisionsInputError:
        return
    _check_invariants(det)
