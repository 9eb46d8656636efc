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
import random
import re
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input.cli import main
from decisions_input.limits import GEMINI, PARALLEL, RULES, Limits
from decisions_input.textmeasure import measure_strings
from tests.strategies import (
    any_json,
    budget_bodies,
    json_values,
    nearly_clean_questions,
    question_values,
)

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


def test_a_text_row_is_measured_by_class() -> None:
    # a piece starts at each of the 100 spaces; each word costs 1 plus 4/8, the last space 1
    row = est.estimate({"input": "word " * 100, "questions": {}}).blocks[0]
    assert (row.low, row.high) == (100, 100 + 50 + 1)
    assert (
        row.basis
        == "500 characters of text, counted by class (digits, words, punctuation, scripts)"
    )


def test_text_beyond_ascii_names_its_bytes() -> None:
    text = "東京都の天気は晴れです" * 100  # 1,100 characters, 3 UTF-8 bytes each
    row = est.estimate({"input": text, "questions": {}}).blocks[0]
    assert (row.low, row.high) == (1100 // 4, 1100)  # 4 per token at least, 1 each at most
    assert row.basis.startswith("1,100 characters of text (3,300 UTF-8 bytes), counted")


def test_question_rows_count_instructions_criteria_and_structure() -> None:
    body = json.loads((ROOT / "testdata/requests/gemini-multiple.json").read_text())
    rows = {r.path[1]: r for r in est.estimate(body).questions}
    choice = body["questions"]["next_action"]
    texts = [choice["instructions"], *choice["criteria"], *choice["criteria"].values()]
    measured = measure_strings(texts, limits=GEMINI)
    assert sum(map(len, texts)) == 263
    assert "263 characters" in rows["next_action"].basis
    assert "4 options" in rows["next_action"].basis
    assert (rows["next_action"].low, rows["next_action"].high) == (
        measured.low,
        measured.high + 64 + 4 * 8,
    )
    noul = measure_strings([body["questions"]["is_defect"]["instructions"]], limits=GEMINI)
    assert (rows["is_defect"].low, rows["is_defect"].high) == (noul.low, noul.high + 64)


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


def _gemini_text_body(words: int) -> dict[str, Any]:
    return {"model": "gemini-decision-1", "input": "word " * words, "questions": _ONE}


def _parallel_state_body(words: int) -> dict[str, Any]:
    return {"state": {"notes": "word " * words}, "questions": _ONE}


def _edges(found: est.Estimate) -> dict[str, int]:
    """Budgets at each edge of an estimate: its high bound and one below, its low bound
    and one below."""
    return {
        "fits": found.total.high,
        "at_risk": found.total.high - 1,
        "low_at_budget": found.total.low,
        "exceeded": found.total.low - 1,
    }


# (id, target, body, budget edge, expected code, path of the part that dominates)
BUDGET_CASES: list[tuple[str, str, dict[str, Any], str, str | None, str]] = [
    (f"{target}-{edge}", target, body, edge, code, where)
    for target, body, where in (
        ("gemini", _gemini_text_body(10_000), "$.input"),
        ("parallel", _parallel_state_body(10_000), "$.state"),
    )
    for edge, code in (
        ("fits", None),
        ("at_risk", "budget.at_risk"),
        ("low_at_budget", "budget.at_risk"),
        ("exceeded", "budget.exceeded"),
    )
]


def _with_budget(target: str, budget: int) -> Limits:
    if target == "gemini":
        return GEMINI.derive(CONTEXT_WINDOW_TOKENS=budget)
    return PARALLEL.derive(MAX_STATE_PLUS_QUESTION_TOKENS=budget)


@pytest.mark.parametrize(
    ("target", "body", "edge", "code", "where"),
    [c[1:] for c in BUDGET_CASES],
    ids=[c[0] for c in BUDGET_CASES],
)
def test_requests_just_under_and_just_over_each_budget(
    target: str, body: dict[str, Any], edge: str, code: str | None, where: str
) -> None:
    limits = _with_budget(target, _edges(est.estimate(body, target=target))[edge])
    found = [
        (p.code, p.json_path, p.severity.value)
        for p in di.iter_problems(body, limits=limits)
        if p.code.startswith("budget.")
    ]
    severity = {None: None, "budget.at_risk": "warning", "budget.exceeded": "error"}[code]
    assert found == ([] if code is None else [(code, where, severity)])
    estimated = est.estimate(body, limits=limits)
    assert estimated.fits == (code != "budget.exceeded")
    assert estimated.at_risk == (code == "budget.at_risk")


@pytest.mark.parametrize(
    ("words", "code"), [(300_000, "budget.exceeded"), (250_000, "budget.at_risk")]
)
def test_words_against_the_context_window(words: int, code: str) -> None:
    problems = [p for p in di.iter_problems(_gemini_text_body(words)) if p.code.startswith("b")]
    assert [(p.code, p.json_path) for p in problems] == [(code, "$.input")]


def test_digits_over_the_context_window() -> None:
    digits = "".join(random.Random(7).choices("0123456789", k=1_200_000))
    body = {"model": "gemini-decision-1", "input": digits, "questions": _ONE}
    problems = [p for p in di.iter_problems(body) if p.code.startswith("budget.")]
    assert [(p.code, p.json_path) for p in problems] == [("budget.exceeded", "$.input")]
    # measuring stops once the text alone is over the window
    stated = re.search(
        r"until over the budget\) accounts for at least ([\d,]+)$", problems[0].message
    )
    assert stated is not None
    assert 262_144 < int(stated.group(1).replace(",", "")) < 1_200_000


def test_sizes_alone_may_show_a_request_over_the_budget() -> None:
    # One run of 3,300 letters: no word starts, so only the longest-token rule bounds it
    # below (104 tokens), which the sizes alone give before any measuring.
    body = {"model": "gemini-decision-1", "input": "a" * 3_300, "questions": _ONE}
    small = GEMINI.derive(CONTEXT_WINDOW_TOKENS=100)
    (problem,) = [p for p in di.iter_problems(body, limits=small) if p.code.startswith("b")]
    assert (problem.code, problem.json_path) == ("budget.exceeded", "$.input")
    # the sizes: 104 tokens at least, one per byte at most, before any measuring
    assert "$.input (text) accounts for 104 to 3,300" in problem.message
    assert est.estimate(body, limits=small).blocks[0].tokens == est.Tokens(104, 1 + 413)


def _choice(text: str) -> dict[str, Any]:
    return {"type": "choice", "instructions": text, "criteria": {"a": "", "b": ""}}


# (id, target, body, expected code, path of the part named): the block that holds more
# than half of the input, the input when none does, the largest question when the questions
# weigh more, Parallel's state or its largest question.
PLACEMENT_CASES: list[tuple[str, str, dict[str, Any], str, str]] = [
    (
        "one-large-block",
        "gemini",
        _body(
            [{"type": "text", "text": "word " * 300_000}, {"type": "text", "text": "word"}],
        ),
        "budget.exceeded",
        "$.input[0]",
    ),
    (
        "blocks-alike",
        "gemini",
        _body([{"type": "text", "text": "word " * 100_000} for _ in range(3)]),
        "budget.exceeded",
        "$.input",
    ),
    (
        "largest-question",
        "gemini",
        _body(
            [{"type": "text", "text": "word"}],
            small=_choice("Which?"),
            large=_choice("word " * 300_000),
        ),
        "budget.exceeded",
        "$.questions.large",
    ),
    (
        "parallel-state",
        "parallel",
        {"state": {"notes": "word " * 40_000}, "questions": {"q": _choice("Which?")}},
        "budget.exceeded",
        "$.state",
    ),
    (
        "parallel-question",
        "parallel",
        {
            "state": {"notes": "short"},
            "questions": {"small": _choice("Which?"), "large": _choice("word " * 25_000)},
        },
        "budget.at_risk",
        "$.questions.large",
    ),
]


@pytest.mark.parametrize(
    ("target", "body", "code", "where"),
    [c[1:] for c in PLACEMENT_CASES],
    ids=[c[0] for c in PLACEMENT_CASES],
)
def test_budget_problems_point_at_the_part_that_dominates(
    target: str, body: dict[str, Any], code: str, where: str
) -> None:
    (problem,) = [p for p in di.iter_problems(body, target=target) if p.code.startswith("bu")]
    assert (problem.code, problem.json_path) == (code, where)
    found = est.estimate(body, target=target)
    stated = re.search(r"estimated (at least )?([\d,]+)", problem.message)
    assert stated is not None
    if stated.group(1):  # a text alone over the budget is measured no further
        assert budget_of(target) < int(stated.group(2).replace(",", "")) <= found.total.low
    else:
        assert f"estimated {found.total.low:,} to {found.total.high:,} tokens in all" in (
            problem.message
        )
    assert f"; {where} (text" in problem.message


def budget_of(target: str) -> int:
    table = GEMINI if target == "gemini" else PARALLEL
    budget = table.CONTEXT_WINDOW_TOKENS or table.MAX_STATE_PLUS_QUESTION_TOKENS
    assert budget is not None
    return budget


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
    assert [(p.code, p.json_path, p.severity.value) for p in problems] == [
        ("budget.at_risk", "$.input[0]", "warning")
    ]
    assert "$.input[0] (video, not measured) accounts for" in problems[0].message


def test_the_validator_and_the_estimate_agree_on_the_total() -> None:
    # two blocks, each within the window, together over it: both measured in full
    body = _body([{"type": "text", "text": "word " * 150_000} for _ in range(2)])
    (problem,) = [p for p in di.iter_problems(body) if p.code.startswith("budget.")]
    assert (problem.code, problem.json_path) == ("budget.exceeded", "$.input")
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


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_estimate_never_raises_on_any_json_but_ours(value: Any) -> None:
    for target in ("gemini", "parallel"):
        for body in (
            {"questions": value, "input": value, "state": value},
            {"questions": {}, "input": [{"type": value, "data": "AAAA"}]},
        ):
            found = est.estimate(body, target=target)
            assert found.total.low <= found.total.high


def test_a_block_type_that_is_no_string_is_no_media() -> None:
    # Found by fuzzing: an unhashable block type once raised TypeError.
    for kind in ([], {}, 1, None):
        body = {"model": "gemini-decision-1", "input": [{"type": kind}], "questions": {}}
        assert est.estimate(body).blocks == ()


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
    assert est._question_texts(question) == (parts, count)
    assert est._question_size(question) == (*est._text_size(parts), count)


class _Forgetful(est._Texts):
    """The budget rule's texts without their memory: every text sized and encoded anew,
    every state written anew, each time a look asks for it."""

    def utf8(self, text: str) -> bytes:
        return text.encode("utf-8", "surrogatepass")

    def size(self, text: str) -> tuple[int, int]:
        return est._text_size([text])

    def state_text(self, state: Any) -> str | None:
        return est._state_text(state)


def _edge_budgets(body: dict[str, Any], target: str) -> list[int]:
    """Budgets at each edge the rule decides at: the estimate's bounds and the sizes'."""
    found = est.estimate(body, target=target)
    texts = [str(v) for v in body.values()] + [json.dumps(body, ensure_ascii=False)]
    sizes = {len(t.encode("utf-8", "surrogatepass")) for t in texts} | {len(t) // 32 for t in texts}
    edges = {found.total.high, found.total.low} | sizes
    return sorted({max(1, e + d) for e in edges for d in (-1, 0, 1)})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(budget_bodies(), st.data())
def test_the_budget_rule_reads_each_text_once_and_decides_as_before(
    case: tuple[str, dict[str, Any]], data: st.DataObject
) -> None:
    target, body = case
    budget = data.draw(st.sampled_from(_edge_budgets(body, target)))
    limits = _with_budget(target, budget)
    remembered = list(est.check_budget(body, (), limits))
    with mock.patch.object(est, "_Texts", _Forgetful):
        assert list(est.check_budget(body, (), limits)) == remembered


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=3), nearly_clean_questions | question_values | any_json, max_size=6
    )
)
def test_the_questions_bounded_by_size_in_one_loop_are_bounded_as_one_by_one(
    questions: dict[str, Any],
) -> None:
    one_by_one = []
    for key, question in questions.items():
        _measured, _count, low, high = est._question_tokens(question, GEMINI, cheap=True)
        one_by_one.append(est._Part(low, high, ("questions", key), "text", True, True))
    assert est._question_parts(questions, GEMINI, cheap=True) == one_by_one


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
    over.write_text(json.dumps(_gemini_text_body(300_000)))
    status, out, _ = run("estimate", str(over))
    assert status == 1
    assert "does not fit: even the low estimate is over the budget of 262,144" in out
    risky = tmp_path / "risky.json"
    risky.write_text(json.dumps(_gemini_text_body(250_000)))
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
