"""Media builders on real files: sniffed types, refusals by code and path, streamed output."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest

import decisions_input as di
from decisions_input.limits import GEMINI

MEDIA = Path(__file__).parent.parent / "testdata" / "media"


def m(name: str) -> Path:
    return MEDIA / name


# (id, builder call, expected type, expected mime_type)
GOOD: list[tuple[str, Any, str, str]] = [
    ("png", lambda: di.image(m("png_pillow.png")), "image", "image/png"),
    ("jpeg-str-path", lambda: di.image(str(m("jpeg_baseline.jpg"))), "image", "image/jpeg"),
    ("heic", lambda: di.image(m("heic_x265.heic"), resolution="low"), "image", "image/heic"),
    (
        "heif-declared-for-hevc",
        lambda: di.image(m("heic_x265.heic"), mime_type="image/heif"),
        "image",
        "image/heif",
    ),
    ("bigtiff", lambda: di.image(m("bigtiff_le_pillow.tif")), "image", "image/tiff"),
    (
        "mp3-declared-mp3",
        lambda: di.audio(m("mp3_id3v2.mp3"), mime_type="audio/mp3"),
        "audio",
        "audio/mp3",
    ),
    ("mp3-undeclared", lambda: di.audio(m("mp3_big_cover.mp3")), "audio", "audio/mpeg"),
    (
        "opus-declared-opus",
        lambda: di.audio(m("ogg_opus.opus"), mime_type="audio/opus"),
        "audio",
        "audio/opus",
    ),
    ("opus-undeclared", lambda: di.audio(m("ogg_opus.opus")), "audio", "audio/ogg"),
    ("webm-audio", lambda: di.media(m("webm_audio_only.webm")), "audio", "audio/webm"),
    ("webm-video", lambda: di.media(m("webm_video.webm")), "video", "video/webm"),
    ("m4a", lambda: di.media(m("mp4_audio_only.mp4")), "audio", "audio/m4a"),
    ("mov", lambda: di.video(m("mov_mpeg4.mov"), resolution="high"), "video", "video/mov"),
    ("pdf", lambda: di.document(m("pdf_pypdf_three_pages.pdf")), "document", "application/pdf"),
    ("bytes", lambda: di.image(m("webp_lossy.webp").read_bytes()), "image", "image/webp"),
    (
        "bytearray",
        lambda: di.image(bytearray(m("gif_pillow.gif").read_bytes())),
        "image",
        "image/gif",
    ),
    (
        "l16-declared",
        lambda: di.audio(m("l16_16k.raw"), mime_type="audio/l16"),
        "audio",
        "audio/l16",
    ),
    (
        "uri",
        lambda: di.image(uri="https://example.com/p.jpg", mime_type="image/jpeg"),
        "image",
        "image/jpeg",
    ),
    (
        "uri-media-by-mime",
        lambda: di.media(uri="https://example.com/a.mp3", mime_type="audio/mp3"),
        "audio",
        "audio/mp3",
    ),
]


@pytest.mark.parametrize(("call", "kind", "mime"), [g[1:] for g in GOOD], ids=[g[0] for g in GOOD])
def test_builders_accept(call: Any, kind: str, mime: str) -> None:
    block = call()
    assert (block.type, block.mime_type) == (kind, mime)


# (id, builder call, expected [(code, json_path)])
BAD: list[tuple[str, Any, list[tuple[str, str]]]] = [
    (
        "png-declared-jpeg",
        lambda: di.image(m("png_pillow.png"), mime_type="image/jpeg"),
        [("mime.mismatch", "$.mime_type")],
    ),
    ("wav-named-png", lambda: di.image(m("wav_named.png")), [("mime.mismatch", "$.type")]),
    (
        "vorbis-declared-opus",
        lambda: di.audio(m("ogg_vorbis.ogg"), mime_type="audio/opus"),
        [("mime.mismatch", "$.mime_type")],
    ),
    (
        "generic-mime",
        lambda: di.image(m("png_pillow.png"), mime_type="application/octet-stream"),
        [("mime.generic", "$.mime_type")],
    ),
    (
        "mime-of-other-modality",
        lambda: di.image(m("png_pillow.png"), mime_type="audio/wav"),
        [("mime.not_allowed", "$.mime_type")],
    ),
    ("matroska", lambda: di.video(m("mkv_matroska.mkv")), [("mime.not_allowed", "$.data")]),
    ("avif", lambda: di.image(m("avif_mif1_brand.heif")), [("mime.not_allowed", "$.data")]),
    ("empty", lambda: di.image(m("empty.bin")), [("media.empty", "$.data")]),
    ("truncated-png", lambda: di.image(m("png_truncated.png")), [("media.truncated", "$.data")]),
    ("bomb", lambda: di.image(m("png_huge_dims.png")), [("image.too_many_pixels", "$.data")]),
    ("polyglot", lambda: di.image(m("png_zip_appended.png")), [("media.polyglot", "$.data")]),
    (
        "encrypted-pdf",
        lambda: di.document(m("pdf_pypdf_encrypted.pdf")),
        [("pdf.encrypted", "$.data")],
    ),
    (
        "zero-page-pdf",
        lambda: di.document(m("pdf_pypdf_zero_pages.pdf")),
        [("pdf.no_pages", "$.data")],
    ),
    (
        "video-ultra-high",
        lambda: di.video(m("mp4_h264.mp4"), resolution="ultra_high"),
        [("resolution.not_allowed", "$.resolution")],
    ),
    (
        "both-sources",
        lambda: di.image(m("png_pillow.png"), uri="https://example.com/a.png"),
        [("block.data_or_uri", "$")],
    ),
    ("neither-source", lambda: di.image(), [("block.data_or_uri", "$")]),
    (
        "mime-not-a-string",
        lambda: di.image(b"\x00", mime_type=True),  # type: ignore[arg-type]
        [("schema.type", "$.mime_type")],
    ),
    (
        "uri-mime-not-a-string",
        lambda: di.image(uri="https://example.com/p.png", mime_type=["image/png"]),  # type: ignore[arg-type]
        [("schema.type", "$.mime_type")],
    ),
    (
        "sniff-declared-not-a-string",
        lambda: di.sniff(m("png_pillow.png"), declared=5),  # type: ignore[arg-type]
        [("schema.type", "$.mime_type")],
    ),
    (
        "uri-without-mime",
        lambda: di.image(uri="https://example.com/p.jpg"),
        [("schema.required", "$")],
    ),
    (
        "uri-youtube",
        lambda: di.video(uri="https://youtu.be/abc", mime_type="video/mp4"),
        [("uri.youtube", "$.uri")],
    ),
    (
        "uri-gcs",
        lambda: di.video(uri="gs://bucket/v.mp4", mime_type="video/mp4"),
        [("uri.gcs", "$.uri")],
    ),
    (
        "uri-http",
        lambda: di.image(uri="http://example.com/p.png", mime_type="image/png"),
        [("uri.scheme", "$.uri")],
    ),
    (
        "too-large",
        lambda: di.image(m("png_pillow.png"), limits=GEMINI.derive(MAX_INLINE_TOTAL_BYTES=40)),
        [("data.too_large", "$.data")],
    ),
    (
        "pdf-too-large",
        lambda: di.document(m("pdf_minimal.pdf"), limits=GEMINI.derive(MAX_INLINE_PDF_BYTES=40)),
        [("pdf.too_large", "$.data")],
    ),
]


@pytest.mark.parametrize(("call", "expected"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_builders_refuse(call: Any, expected: list[tuple[str, str]]) -> None:
    with pytest.raises(di.InvalidInput) as info:
        call()
    assert [(p.code, p.json_path) for p in info.value.problems] == expected


def test_file_object_source() -> None:
    with open(m("wav_pcm16.wav"), "rb") as fp:
        block = di.audio(fp)
        assert (block.type, block.mime_type) == ("audio", "audio/wav")
        assert fp.tell() == 0 and not fp.closed


def test_mismatch_message_names_both_types() -> None:
    with pytest.raises(di.InvalidInput) as info:
        di.image(m("png_pillow.png"), mime_type="image/jpeg")
    message = info.value.problems[0].message
    assert "image/jpeg" in message and "image/png" in message


def test_damage_decoders_tolerate_is_a_warning_of_the_block() -> None:
    block = di.image(m("png_no_iend.png"))
    assert (block.mime_type, [(p.code, p.json_path) for p in block.warnings]) == (
        "image/png",
        [("media.incomplete", "$.data")],
    )
    assert all(not p.is_error for p in block.warnings)
    with pytest.raises(di.InvalidInput) as info:
        di.image(m("gif_cut_in_sub_block.gif"))
    assert info.value.codes == ("media.truncated",)


def test_uri_extension_contradiction_is_a_warning() -> None:
    block = di.image(uri="https://example.com/photo.png", mime_type="image/jpeg")
    assert [p.code for p in block.warnings] == ["uri.extension"]


def test_sniff_reports_evidence() -> None:
    found = di.sniff(m("pdf_pypdf_three_pages.pdf"))
    assert (found.kind, found.mime, found.evidence["pages"]) == ("document", "application/pdf", 3)
    assert di.sniff(m("png_pillow.png").read_bytes()).mime == "image/png"


def _request(*blocks: Any, limits: Any = None) -> di.Request:
    return di.Request(
        model="gemini-decision-1",
        input=[di.text("Look: "), *blocks],
        questions={"q": di.noul("Is it red?")},
        limits=limits,
    )


def test_inline_data_is_the_base64_of_the_file() -> None:
    req = _request(di.image(m("png_pillow.png"), resolution="low"))
    body = req.to_dict()
    assert body["input"][1] == {
        "data": base64.b64encode(m("png_pillow.png").read_bytes()).decode(),
        "mime_type": "image/png",
        "resolution": "low",
        "type": "image",
    }


@pytest.mark.parametrize("chunk", [3, 3 * 7, 3 * 1024, GEMINI.CHUNK_BYTES])
def test_streamed_dump_equals_dumps(chunk: int) -> None:
    req = _request(
        di.image(m("png_pillow.png")),
        di.audio(m("wav_pcm16.wav")),
        di.document(m("pdf_pypdf_one_page.pdf")),
    )
    out = io.BytesIO()
    written = req.dump(out, chunk_bytes=chunk)
    assert out.getvalue() == req.dumps().encode()
    assert written == len(out.getvalue()) == req.content_length


def test_emitted_media_request_passes_the_validator() -> None:
    req = _request(di.image(m("jpeg_baseline.jpg")), di.video(m("webm_video.webm")))
    assert list(di.iter_problems(req.dumps())) == []
    assert di.canonical_dumps(json.loads(req.dumps())) == req.dumps()


def test_request_total_inline_limit() -> None:
    size = m("png_pillow.png").stat().st_size
    roomy = GEMINI.derive(MAX_INLINE_TOTAL_BYTES=(size * 4 // 3) + 10)
    one = di.image(m("png_pillow.png"), limits=roomy)
    with pytest.raises(di.InvalidInput) as info:
        _request(one, one, limits=roomy)
    assert [(p.code, p.json_path) for p in info.value.problems] == [
        ("data.too_large", "$.input[2].data")
    ]


def test_file_changed_after_build_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.png"
    path.write_bytes(m("png_pillow.png").read_bytes())
    req = _request(di.image(path))
    path.write_bytes(m("png_pillow.png").read_bytes() + b"\0")
    with pytest.raises(di.SourceError):
        req.dump(io.BytesIO())


def test_file_object_is_read_from_its_position() -> None:
    data = b"junk" + m("gif_pillow.gif").read_bytes()
    stream = io.BytesIO(data)
    stream.seek(4)
    req = _request(di.image(stream))
    assert req.to_dict()["input"][1]["data"] == base64.b64encode(data[4:]).decode()


# Bodies with inline data checked by the validator (which sniffs the base64 itself).
def _inline(kind: str, name: str, mime: str) -> dict[str, Any]:
    data = base64.b64encode(m(name).read_bytes()).decode()
    return {
        "model": "gemini-decision-1",
        "input": [{"type": kind, "data": data, "mime_type": mime}],
        "questions": {"q": {"type": "noul", "instructions": "x"}},
    }


INLINE: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("png-ok", _inline("image", "png_pillow.png", "image/png"), []),
    (
        "png-as-jpeg",
        _inline("image", "png_pillow.png", "image/jpeg"),
        [("mime.mismatch", "$.input[0].mime_type")],
    ),
    (
        "wav-as-image",
        _inline("image", "wav_named.png", "image/png"),
        [("mime.mismatch", "$.input[0].type")],
    ),
    ("mp4-moov-at-end", _inline("video", "mp4_h264.mp4", "video/mp4"), []),
    (
        "truncated-mp4",
        _inline("video", "mp4_truncated.mp4", "video/mp4"),
        [("media.truncated", "$.input[0].data")],
    ),
    ("pdf-ok", _inline("document", "pdf_pypdf_three_pages.pdf", "application/pdf"), []),
    (
        "jpeg-without-eoi-warns",
        _inline("image", "jpeg_no_eoi.jpg", "image/jpeg"),
        [("media.incomplete", "$.input[0].data")],
    ),
    (
        "pdf-padded-warns",
        _inline("document", "pdf_nul_padded.pdf", "application/pdf"),
        [("pdf.damaged", "$.input[0].data")],
    ),
    (
        "mp4-init-segment",
        _inline("video", "mp4_init_segment.mp4", "video/mp4"),
        [("media.no_samples", "$.input[0].data")],
    ),
    (
        "bad-base64",
        {
            **_inline("image", "png_pillow.png", "image/png"),
            "input": [{"type": "image", "data": "iVBOR w0K", "mime_type": "image/png"}],
        },
        [("data.base64", "$.input[0].data")],
    ),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in INLINE], ids=[c[0] for c in INLINE])
def test_validator_sniffs_inline_data(
    body: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert [(p.code, p.json_path) for p in di.iter_problems(body)] == expected


def test_closed_file_object_is_a_source_error() -> None:
    with open(m("webm_video.webm"), "rb") as fp:
        req = _request(di.video(fp))
    with pytest.raises(di.SourceError, match="closed"):
        req.dump(io.BytesIO())


def test_mutable_buffer_is_copied_when_built() -> None:
    data = bytearray(m("gif_pillow.gif").read_bytes())
    req = _request(di.image(data))
    data[:] = b"X" * len(data)
    assert (
        req.to_dict()["input"][1]["data"]
        == base64.b64encode(m("gif_pillow.gif").read_bytes()).decode()
    )


def test_source_of_a_wrong_type_is_refused() -> None:
    with pytest.raises(di.InvalidInput) as info:
        di.image(42)  # type: ignore[arg-type]
    assert [(p.code, p.json_path) for p in info.value.problems] == [("schema.type", "$.data")]


def test_dump_refuses_a_text_file(tmp_path: Path) -> None:
    req = _request(di.image(m("png_pillow.png")))
    with open(tmp_path / "out.json", "w") as out, pytest.raises(di.SourceError, match="binary"):
        req.dump(out)  # type: ignore[arg-type]


def test_mp3_names_layer_three_only() -> None:
    assert di.audio(m("mp2_layer2.mp2"), mime_type="audio/mpeg").mime_type == "audio/mpeg"
    with pytest.raises(di.InvalidInput) as info:
        di.audio(m("mp2_layer2.mp2"), mime_type="audio/mp3")
    assert info.value.codes == ("mime.mismatch",)
