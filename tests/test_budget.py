"""Offline token estimates: rates on real files, budgets at their edges, seed figures, the CLI.

Golden outputs of ``decisions-input estimate`` live in ``tests/golden/estimate-*``;
``UPDATE_GOLDEN=1 python -m pytest tests/test_estimate.py`` rewrites them.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import io
import json
import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

import decisions_input as di
from decisions_input.cli import main
from decisions_input.limits import GEMINI, PARALLEL, RULES, Limits
from tests.strategies import json_values

ROOT = Path(__file__).resolve().parent.parent
MEDIA = ROOT / "testdata" / "media"
GOLDEN = Path(__file__).resolve().parent / "golden"
SEEDS = ROOT.parent / "shared" / "seeds"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
# The module, whatever the package's name ``estimate`` is bound to (the function, once
# exported, shadows the submodule as an attribute of the package).
est = importlib.import_module("decisions_input.budget")

# (id, file, block type, resolution, low, high). The figures follow from the rates of the
# Gemini table and the file's header: 32 x 24 px, 1 s of H.264 with AAC, 0.5 s of PCM, a
# PDF of 3 pages, made by testdata/generate.py (see MANIFEST.json).
RATE_CASES: list[tuple[str, str, str, str | None, int, int]] = [
    # images: the per-resolution figure against one tile of 258 (both sides <= 384 px)
    ("png-default", "png_pillow.png", "image", None, 258, 1120),
    ("png-low", "png_pillow.png", "image", "low", 258, 280),
    ("jpeg-medium", "jpeg_baseline.jpg", "image", "medium", 258, 560),
    ("webp-ultra-high", "webp_lossy.webp", "image", "ultra_high", 258, 2240),
    ("heic-high", "heic_x265.heic", "image", "high", 258, 1120),
    # video, 1.0 s with an audio track: frames 1 to 2 at 70 (280 at high), or 263 per
    # second; audio 25 to 32 per second
    ("mp4-default", "mp4_h264.mp4", "video", None, 70 + 25, 263 + 32),
    ("mp4-high", "mp4_h264.mp4", "video", "high", 263 + 25, 2 * 280 + 32),
    ("mp4-video-only", "mp4_video_only.mp4", "video", None, 70, 263),
    ("mov-low", "mov_mpeg4.mov", "video", "low", 70 + 25, 263 + 32),
    # 1.008 s (WebM Duration element)
    ("webm", "webm_video.webm", "video", None, 70 + 25, math.ceil(1.008 * 263) + 33),
    # audio: duration at 25 to 32 tokens per second
    ("wav-0.5s", "wav_pcm16.wav", "audio", None, 12, 16),
    ("flac-1s", "flac.flac", "audio", None, 25, 32),
    ("aiff-1s", "aiff_pcm.aiff", "audio", None, 25, 32),
    ("mp3-1.071s", "mp3_id3v2.mp3", "audio", None, 26, 35),  # an Info frame counts frames
    # No frame count in the header: the frames are counted one by one (1.071 s, 1.068 s).
    ("mp3-frames-counted", "mp3_plain.mp3", "audio", None, 26, 35),
    ("aac-frames-counted", "aac_adts.aac", "audio", None, 26, 35),
    ("opus-1s", "ogg_opus.opus", "audio", None, 25, 32),
    # PDF: pages at 560 by default, or 258 each under the older rule
    ("pdf-1-page", "pdf_pypdf_one_page.pdf", "document", None, 258, 560),
    ("pdf-3-pages", "pdf_pypdf_three_pages.pdf", "document", None, 3 * 258, 3 * 560),
]

# Durations sniffing reads from a container's header or last page, or states as a range.
HEADER_DURATION_CASES: list[tuple[str, str, str, str, float, float]] = [
    ("avi-avih", "avi_mpeg4.avi", "video", "video/avi", 1.0, 1.0),
    ("flv-onmetadata", "flv_flv1.flv", "video", "video/x-flv", 1.046, 1.046),
    ("ogg-flac-granule", "ogg_flac.oga", "audio", "audio/ogg", 1.0, 1.0),
    # time stamps miss the last packet's frames, clock references add the preload:
    # the true 1.0 to 1.05 s lies between the two readings
    ("mpeg-ps-clocks", "mpeg_ps.mpg", "video", "video/mpeg", 0.7, 1.3),
]


def _body(blocks: list[dict[str, Any]], **questions: Any) -> dict[str, Any]:
    return {
        "model": "gemini-decision-1",
        "input": blocks,
        "questions": questions or {"q": {"type": "noul", "instructions": "Is it?"}},
    }


def _inline(name: str, kind: str, mime: str, resolution: str | None = None) -> dict[str, Any]:
    block = {
        "type": kind,
        "data": base64.b64encode((MEDIA / name).read_bytes()).decode("ascii"),
        "mime_type": mime,
    }
    if resolution is not None:
        block["resolution"] = resolution
    return block


def _built(name: str, kind: str, resolution: str | None) -> di.MediaBlock:
    builder = {"image": di.image, "video": di.video, "audio": di.audio, "document": di.document}
    path = MEDIA / name
    if resolution is None:
        return builder[kind](path)  # type: ignore[no-any-return, operator]
    return builder[kind](path, resolution=resolution)  # type: ignore[no-any-return, operator]


# --- rates on real files -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind", "resolution", "low", "high"),
    [c[1:] for c in RATE_CASES],
    ids=[c[0] for c in RATE_CASES],
)
def test_rates_on_real_files_in_a_request(
    name: str, kind: str, resolution: str | None, low: int, high: int
) -> None:
    block = _built(name, kind, resolution)
    request = di.Request(
        model="gemini-decision-1", input=[block], questions={"q": di.noul("Is it?")}
    )
    row = est.estimate(request).blocks[0]
    assert (row.modality, row.low, row.high, row.measured) == (kind, low, high, True)


@pytest.mark.parametrize(
    ("name", "kind", "resolution", "low", "high"),
    [c[1:] for c in RATE_CASES],
    ids=[c[0] for c in RATE_CASES],
)
def test_rates_on_real_files_inline_in_a_body(
    name: str, kind: str, resolution: str | None, low: int, high: int
) -> None:
    mime = di.sniff(MEDIA / name).mime
    assert mime is not None
    row = est.estimate(_body([_inline(name, kind, mime, resolution)])).blocks[0]
    assert (row.modality, row.low, row.high, row.measured) == (kind, low, high, True)


def test_the_tile_rule_on_a_large_image_from_its_header() -> None:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (1024, 768)).save(buffer, "PNG")
    block = {
        "type": "image",
        "data": base64.b64encode(buffer.getvalue()).decode("ascii"),
        "mime_type": "image/png",
        "resolution": "low",
    }
    row = est.estimate(_body([block])).blocks[0]
    # 280 at low (Gemini 3 class), or ceil(1024/768) * ceil(768/768) = 2 tiles of 258
    assert (row.low, row.high) == (280, 2 * 258)
    assert row.basis.startswith("1,024 px x 768 px at resolution low")


@pytest.mark.parametrize(
    ("name", "kind", "mime", "shortest", "longest"),
    [c[1:] for c in HEADER_DURATION_CASES],
    ids=[c[0] for c in HEADER_DURATION_CASES],
)
def test_durations_come_from_the_sniffed_evidence(
    name: str, kind: str, mime: str, shortest: float, longest: float
) -> None:
    evidence = di.sniff(MEDIA / name).evidence
    assert "duration_s" in evidence or "duration_range_s" in evidence
    row = est.estimate(_body([_inline(name, kind, mime)])).blocks[0]
    assert row.measured, row.basis
    seconds = [float(s.replace(",", "")) for s in re.findall(r"([\d.,]+) s\b", row.basis)]
    assert seconds and shortest <= min(seconds) and max(seconds) <= longest, row.basis


@pytest.mark.parametrize(
    "name", ["avi_mpeg4.avi", "flv_flv1.flv", "mpeg_ps.mpg", "ogg_flac.oga", "wav_pcm16.wav"]
)
def test_a_built_block_is_measured_like_its_inline_body(name: str) -> None:
    # Durations read from the container, or stated as a range, measure a block built from
    # a file as they measure the same bytes inline in a body.
    request = di.Request(
        model="gemini-decision-1",
        input=[di.media(MEDIA / name)],
        questions={"q": di.noul("Is it?")},
    )
    built = est.estimate(request).blocks[0]
    inline = est.estimate(request.to_dict()).blocks[0]
    assert built.measured and inline.measured
    assert (built.low, built.high, built.basis) == (inline.low, inline.high, inline.basis)


def test_a_built_request_over_the_budget_is_refused() -> None:
    small = GEMINI.derive(CONTEXT_WINDOW_TOKENS=200)
    image = di.image(MEDIA / "png_pillow.png", limits=small)
    with pytest.raises(di.InvalidInput) as info:
        di.Request(
            model="gemini-decision-1", input=[image], questions={"q": di.noul("x")}, limits=small
        )
    assert info.value.codes == ("budget.exceeded",)


@pytest.mark.parametrize(
    ("kind", "mime", "low", "high"),
    [
        ("image", "image/jpeg", 258, 16 * 258),
        ("audio", "audio/mpeg", 0, 3600 * 32),
        ("video", "video/mp4", 0, 3600 * 263 + 3600 * 32),
        ("document", "application/pdf", 258, 1000 * 560),
    ],
    ids=["image", "audio", "video", "document"],
)
def test_a_url_is_not_fetched_and_gets_the_stated_wide_range(
    kind: str, mime: str, low: int, high: int
) -> None:
    block = {"type": kind, "uri": "https://example.com/file", "mime_type": mime}
    row = est.estimate(_body([block])).blocks[0]
    assert (row.low, row.high, row.measured) == (low, high, False)
    assert "URL not fetched" in row.basis and "assumed" in row.basis


def test_request_and_body_agree_on_every_row() -> None:
    blocks = [
        di.text("Compare these."),
        di.image(MEDIA / "png_pillow.png", resolution="low"),
        di.audio(MEDIA / "flac.flac"),
        di.document(MEDIA / "pdf_pypdf_three_pages.pdf"),
        di.video(MEDIA / "webm_video.webm", resolution="high"),
    ]
    request = di.Request(
        model="gemini-decision-1",
        input=blocks,
        questions={"q": di.noul("Is it?"), "c": di.choice("Which?", {"a": "A", "b": ""})},
    )
    from_request, from_body = est.estimate(request), est.estimate(request.to_dict())
    assert from_request == from_body
    assert [r.json_path for r in from_request.blocks] == [f"$.input[{i}]" for i in range(5)]


# --- text ---------------------------------------------------------------------------------------


def test_text_bounds_are_two_to_six_characters_per_token() -> None:
    row = est.estimate({"input": "x" * 600, "questions": {}}).blocks[0]
    assert (row.low, row.high) == (100, 300)
    row = est.estimate({"input": "x" * 601, "questions": {}}).blocks[0]
    assert (row.low, row.high) == (100, 301)


def test_text_without_spaces_in_other_scripts_gets_a_wider_high_bound() -> None:
    text = "東京都の天気は晴れです" * 100  # 1,100 characters, 3 UTF-8 bytes each
    row = est.estimate({"input": text, "questions": {}}).blocks[0]
    assert row.low == 1100 // 6
    assert row.high == 550 + 2 * 1100  # a token per extra byte at worst
    assert "more UTF-8 bytes" in row.basis


def test_question_rows_count_instructions_criteria_and_structure() -> None:
    body = json.loads((ROOT / "testdata/requests/gemini-multiple.json").read_text())
    found = est.estimate(body)
    rows = {r.path[1]: r for r in found.questions}
    choice = rows["next_action"]
    # 55 + 14 + 20 + 20 + 16 + 49 + 50 + 42 characters; 4 options
    assert "263 characters" in choice.basis and "4 options" in choice.basis
    assert (choice.low, choice.high) == (263 // 6, math.ceil(263 / 2) + 64 + 4 * 8)
    noul = rows["is_defect"]
    assert (noul.low, noul.high) == (42 // 6, 21 + 64)


def test_noul_criteria_count_their_descriptions_not_their_member_names() -> None:
    question = {
        "type": "noul",
        "instructions": "Is it?",
        "criteria": {"true_description": "yes", "false_description": "no"},
    }
    row = est.estimate(_body([{"type": "text", "text": "x"}], q=question)).questions[0]
    assert "11 characters" in row.basis  # "Is it?" + "yes" + "no"


# --- figures from the seeds ---------------------------------------------------------------------


def _seed_yaml(name: str) -> Any:
    matches = sorted(SEEDS.glob(f"{name}_*.txt"))
    if not matches:
        pytest.skip(f"seed document {name} not found in {SEEDS}")
    text = matches[0].read_text(encoding="utf-8")
    found = re.search(r"^````yaml[^\n]*\n(.*?)^````", text, re.S | re.M)
    assert found is not None
    return yaml.safe_load(found.group(1))


def test_the_multiple_example_of_003_is_bracketed_by_its_bound() -> None:
    doc = _seed_yaml("003")
    post = doc["paths"]["/v1beta/decisions"]["post"]
    request = post["requestBody"]["content"]["application/json"]["examples"]["multiple"]["value"]
    usage = post["responses"]["200"]["content"]["application/json"]["example"]["usage"]
    billed = usage["total_input_tokens"]
    assert billed == 324
    assert request == json.loads((ROOT / "testdata/requests/gemini-multiple.json").read_text())
    found = est.estimate(request)
    assert found.total.low <= billed <= found.total.high
    assert found.fits and not found.at_risk


def test_the_parallel_example_of_002_stays_far_below_its_billed_tokens() -> None:
    doc = _seed_yaml("002")
    post = doc["paths"]["/v1/decisions"]["post"]
    request = post["requestBody"]["content"]["application/json"]["example"]
    live = post["responses"]["200"]["content"]["application/json"]["examples"]["live"]
    billed = live["value"]["usage"]["input_tokens"]
    assert billed == 4212
    found = est.estimate(request, target="parallel")
    # The 4,212 billed tokens include the web evidence Parallel retrieved for the answer,
    # which no request holds: the figure must not be used to tune the text rates. The
    # request itself (a tiny state and one question) must stay far below it.
    assert found.total.high < billed // 10
    assert [r.json_path for r in found.parts] == ["$.state", "$.questions.has_cli"]


# --- budgets at their edges ---------------------------------------------------------------------


_ONE = {"q": {"type": "noul", "instructions": "Is it?"}}


def _gemini_text_body(chars: int) -> dict[str, Any]:
    # an input text of ``chars`` characters and one noul question
    return {"model": "gemini-decision-1", "input": "a" * chars, "questions": _ONE}


def _parallel_state_body(chars: int) -> dict[str, Any]:
    # a state whose compact JSON text, {"notes":"..."}, is ``chars`` characters long
    return {"state": {"notes": "a" * (chars - 12)}, "questions": _ONE}


def _edges(budget: int, limits: Limits) -> dict[str, int]:
    """Text lengths at each edge of a budget, next to the one question ("Is it?").

    The question row is 1 to 3 tokens of text plus 0 to 64 of structure; the text row is
    floor(chars / 6) to ceil(chars / 2). The edges: high at the budget and one character
    over it, low at the budget and one token over it.
    """
    fewest, most = (int(r) for r in limits.TEXT_CHARS_PER_TOKEN)
    q_low = 6 // most + limits.QUESTION_OVERHEAD_TOKENS[0]
    q_high = -(-6 // fewest) + limits.QUESTION_OVERHEAD_TOKENS[1]
    return {
        "fits": (budget - q_high) * fewest,
        "at_risk": (budget - q_high) * fewest + 1,
        "low_at_budget": (budget - q_low) * most + most - 1,
        "exceeded": (budget - q_low + 1) * most,
    }


GEMINI_EDGES = _edges(262_144, GEMINI)
PARALLEL_EDGES = _edges(32_000, PARALLEL)

# (id, target, body maker, characters, expected code or None)
BUDGET_CASES: list[tuple[str, str, Any, int, str | None]] = [
    ("gemini-high-at-window", "gemini", _gemini_text_body, GEMINI_EDGES["fits"], None),
    (
        "gemini-high-over-window",
        "gemini",
        _gemini_text_body,
        GEMINI_EDGES["at_risk"],
        "budget.at_risk",
    ),
    (
        "gemini-low-at-window",
        "gemini",
        _gemini_text_body,
        GEMINI_EDGES["low_at_budget"],
        "budget.at_risk",
    ),
    (
        "gemini-low-over-window",
        "gemini",
        _gemini_text_body,
        GEMINI_EDGES["exceeded"],
        "budget.exceeded",
    ),
    ("parallel-high-at-budget", "parallel", _parallel_state_body, PARALLEL_EDGES["fits"], None),
    (
        "parallel-high-over-budget",
        "parallel",
        _parallel_state_body,
        PARALLEL_EDGES["at_risk"],
        "budget.at_risk",
    ),
    (
        "parallel-low-at-budget",
        "parallel",
        _parallel_state_body,
        PARALLEL_EDGES["low_at_budget"],
        "budget.at_risk",
    ),
    (
        "parallel-low-over-budget",
        "parallel",
        _parallel_state_body,
        PARALLEL_EDGES["exceeded"],
        "budget.exceeded",
    ),
]


@pytest.mark.parametrize(
    ("target", "make", "chars", "code"),
    [c[1:] for c in BUDGET_CASES],
    ids=[c[0] for c in BUDGET_CASES],
)
def test_requests_just_under_and_just_over_each_budget(
    target: str, make: Any, chars: int, code: str | None
) -> None:
    body = make(chars)
    budget_codes = [
        (p.code, p.json_path, p.severity.value)
        for p in di.iter_problems(body, target=target)
        if p.code.startswith("budget.")
    ]
    severity = {None: None, "budget.at_risk": "warning", "budget.exceeded": "error"}[code]
    assert budget_codes == ([] if code is None else [(code, "$", severity)])
    found = est.estimate(body, target=target)
    assert found.fits == (code != "budget.exceeded")
    assert found.at_risk == (code == "budget.at_risk")


def test_the_budgets_live_in_the_limits_table() -> None:
    assert (GEMINI.CONTEXT_WINDOW_TOKENS, GEMINI.MAX_STATE_PLUS_QUESTION_TOKENS) == (262_144, None)
    assert (PARALLEL.CONTEXT_WINDOW_TOKENS, PARALLEL.MAX_STATE_PLUS_QUESTION_TOKENS) == (
        None,
        32_000,
    )
    for code, severity in (("budget.exceeded", "error"), ("budget.at_risk", "warning")):
        rule = RULES[code]
        assert rule.severity.value == severity
        assert rule.limits == ("CONTEXT_WINDOW_TOKENS", "MAX_STATE_PLUS_QUESTION_TOKENS")


def test_a_derived_table_moves_the_budget() -> None:
    body = json.loads((ROOT / "testdata/requests/gemini-multiple.json").read_text())
    tight = GEMINI.derive(CONTEXT_WINDOW_TOKENS=50)
    assert [p.code for p in di.iter_problems(body, limits=tight)] == ["budget.exceeded"]
    assert [p.code for p in di.iter_problems(body, limits=tight, strict=True)] == [
        "budget.exceeded"
    ]
    off = GEMINI.derive(CONTEXT_WINDOW_TOKENS=None)
    assert est.estimate(body, limits=off).fits
    assert list(est.check_budget(body, (), off)) == []


def test_a_url_video_is_at_risk_but_not_over_the_window() -> None:
    block = {"type": "video", "uri": "https://example.com/v.mp4", "mime_type": "video/mp4"}
    problems = list(di.iter_problems(_body([block])))
    assert [(p.code, p.severity.value) for p in problems] == [("budget.at_risk", "warning")]
    assert "$.input[0] (video" in problems[0].message and "not measured" in problems[0].message


def test_the_validator_and_the_estimate_agree_on_the_total() -> None:
    body = _gemini_text_body(GEMINI_EDGES["exceeded"])
    (problem,) = [p for p in di.iter_problems(body) if p.code.startswith("budget.")]
    found = est.estimate(body)
    assert f"estimated {found.total.low:,} to {found.total.high:,} tokens" in problem.message


def test_blocks_built_by_the_library_are_left_to_the_request_estimate() -> None:
    request = di.Request(
        model="gemini-decision-1",
        input=[di.video(MEDIA / "mp4_h264.mp4")],
        questions={"q": di.noul("Is it?")},
    )
    skeleton = request.skeleton()
    assert list(est.check_budget(skeleton, (), GEMINI)) == []
    assert len(skeleton["input"][0]["data"]) == request.media[0].base64_length  # type: ignore[index,call-overload]
    assert est.estimate(request).blocks[0].measured


# --- API shape ----------------------------------------------------------------------------------


def test_results_are_frozen() -> None:
    found = est.estimate({"input": "hello", "questions": {}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.total = est.Tokens(0, 0)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.blocks[0].low = 0  # type: ignore[misc]


def test_text_and_bytes_are_parsed_and_non_objects_refused() -> None:
    text = (ROOT / "testdata/requests/gemini-multiple.json").read_text()
    assert est.estimate(text) == est.estimate(text.encode()) == est.estimate(json.loads(text))
    with pytest.raises(di.InvalidInput) as caught:
        est.estimate("{")
    assert caught.value.codes == ("json.syntax",)
    with pytest.raises(di.InvalidInput) as caught:
        est.estimate([1, 2])
    assert caught.value.codes == ("schema.type",)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_check_budget_never_raises_on_any_json(value: Any) -> None:
    for limits in (GEMINI, PARALLEL):
        for body in (value, {"questions": value, "input": value, "state": value}):
            for problem in est.check_budget(body, (), limits):
                assert problem.code in RULES


QUESTION_SHAPES: list[tuple[str, Any]] = [
    ("choice", {"type": "choice", "instructions": "Which?", "criteria": {"a": "A", "b": ""}}),
    ("score", {"type": "score", "instructions": "How?", "criteria": ["low", "high"]}),
    ("noul", {"type": "noul", "instructions": "x", "criteria": {"true_description": "t"}}),
    ("non-string-description", {"type": "choice", "instructions": "x", "criteria": {"b": 1}}),
    ("instruction-blocks", {"instructions": [{"type": "text", "text": "xyz"}], "criteria": []}),
    ("not-a-question", "not a question"),
    ("non-ascii", {"type": "score", "instructions": "é", "criteria": ["ü", "東京"]}),
]


@pytest.mark.parametrize(
    "question", [c[1] for c in QUESTION_SHAPES], ids=[c[0] for c in QUESTION_SHAPES]
)
def test_the_fast_and_careful_question_walks_agree(question: Any) -> None:
    parts: list[str] = []
    count = est._question_strings(question, parts)
    assert est._question_size(question) == (*est._text_size(parts), count)


def test_the_validator_screen_never_undercounts() -> None:
    valid = ("choice", "score", "noul", "non-ascii")
    questions = {name: q for name, q in QUESTION_SHAPES if name in valid}
    body = {"input": [{"type": "text", "text": "Hello, wörld."}], "questions": questions}
    bound = est._screen(["Hello, wörld."], questions, GEMINI)
    assert bound is not None
    assert bound >= est.estimate(body).total.high


# --- command line -------------------------------------------------------------------------------


def run(*argv: str, stdin: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


CLI_GOLDEN = [
    (
        "text",
        [
            "testdata/requests/gemini-multiple.json",
            "testdata/specs/photo.yaml",
            "testdata/specs/company.yaml",
        ],
        "estimate.txt",
    ),
    ("json", ["testdata/requests/gemini-image-base64.json"], "estimate.json"),
]


@pytest.mark.usefixtures("_at_root")
@pytest.mark.parametrize(("fmt", "files", "golden"), CLI_GOLDEN, ids=["text", "json"])
def test_cli_prints_the_table_and_total(fmt: str, files: list[str], golden: str) -> None:
    status, out, err = run("estimate", *files, "--format", fmt)
    assert (status, err) == (0, "")
    assert_golden(golden, out)


@pytest.mark.usefixtures("_at_root")
def test_cli_exit_status_follows_the_budget(tmp_path: Path) -> None:
    over = tmp_path / "over.json"
    over.write_text(json.dumps(_gemini_text_body(GEMINI_EDGES["exceeded"])))
    status, out, _ = run("estimate", str(over))
    assert status == 1
    assert "does not fit: even the low estimate is over the budget of 262,144" in out
    risky = tmp_path / "risky.json"
    risky.write_text(json.dumps(_gemini_text_body(GEMINI_EDGES["at_risk"])))
    assert run("estimate", str(risky))[0] == 0
    assert run("estimate", str(risky), "--strict")[0] == 1
    status, out, _ = run("estimate", "-", "--target", "parallel", stdin=io.StringIO('{"state": 1}'))
    assert status == 0 and "fits: the high estimate is within" in out


@pytest.mark.usefixtures("_at_root")
def test_cli_reports_unreadable_input() -> None:
    status, out, err = run("estimate", "tests/golden/inputs/syntax.json")
    assert status == 1 and out == ""
    assert "json.syntax" in err
    status, _, err = run("estimate", "testdata/specs/ticket-broken.yaml")
    assert status == 1 and "error" in err
    assert run("estimate")[0] == 2
    assert run("estimate", "--help")[1].startswith("usage: decisions-input estimate")


def test_a_built_request_at_risk_is_warned_once() -> None:
    tight = GEMINI.derive(CONTEXT_WINDOW_TOKENS=30)
    request = di.Request(
        model="gemini-decision-1", input="x" * 100, questions={"q": di.noul("Is it?")}, limits=tight
    )
    assert [p.code for p in request.warnings] == ["budget.at_risk"]
