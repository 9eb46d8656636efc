"""Estimates compared with the input tokens responses reported: verdicts, factors, groups.

The estimates here are built row by row, so each case states the bounds it compares with;
the seeds' own pairs (a request and the usage its response reported) are compared with the
library's real estimate at the end. The command line's output is tested in
``tests/test_cli_against.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import estimate_rows, reported_breakdowns

import decisions_input as di
from decisions_input.budget import BlockEstimate, Estimate, Tokens
from decisions_input.limits import GEMINI, PARALLEL
from decisions_input.reported_usage import UsageRow, compare_usage

ROOT = Path(__file__).resolve().parent.parent

# A row of an estimate: (modality, low, high), or with a fourth member False when it rests
# on the UNMEASURED_* assumptions.
Part = tuple[Any, ...]


def _estimate(parts: list[Part], target: str = "gemini") -> Estimate:
    rows = tuple(
        BlockEstimate(("input", i), p[0], "a row of the case", p[1], p[2], *p[3:])
        for i, p in enumerate(parts)
    )
    total = Tokens(sum(r.low for r in rows), sum(r.high for r in rows))
    return Estimate(target, rows, (), total, None, None, "every row")


def _rows(found: Any) -> list[tuple[Any, ...]]:
    return [(r.modality, r.low, r.high, r.reported, r.verdict, r.factor) for r in found.rows]


# (id, estimate rows, reported total, reported breakdown, rows: modality, low, high,
# reported, verdict, factor)
CASES: list[tuple[str, list[Part], int | None, list[Any], list[tuple[Any, ...]]]] = [
    (
        "inside",
        [("text", 10, 20)],
        15,
        [("text", 15)],
        [("text", 10, 20, 15, "inside", None), ("total", 10, 20, 15, "inside", None)],
    ),
    (
        "at-both-edges",
        [("text", 10, 20), ("image", 258, 280)],
        278,
        [("text", 20), ("image", 258)],
        [
            ("image", 258, 280, 258, "inside", None),
            ("text", 10, 20, 20, "inside", None),
            ("total", 268, 300, 278, "inside", None),
        ],
    ),
    (
        "below",
        [("text", 100, 200)],
        80,
        [],
        [("total", 100, 200, 80, "below", 1.25)],
    ),
    (
        "above",
        [("text", 100, 200)],
        250,
        [],
        [("total", 100, 200, 250, "above", 1.25)],
    ),
    (
        "factor-rounded-up",
        [("text", 100, 300)],
        301,
        [],
        [("total", 100, 300, 301, "above", 1.01)],
    ),
    (
        "nothing-reported",
        [("text", 5, 9)],
        0,
        [],
        [("total", 5, 9, 0, "below", None)],
    ),
    (
        "a-modality-nothing-estimated",
        [("text", 10, 20)],
        25,
        [("text", 15), ("image", 10)],
        [
            ("image", 0, 0, 10, "above", None),
            ("text", 10, 20, 15, "inside", None),
            ("total", 10, 20, 25, "above", 1.25),
        ],
    ),
    (
        "a-modality-left-out-reported-none",
        [("text", 10, 20), ("image", 258, 280)],
        15,
        [("text", 15)],
        [
            ("image", 258, 280, 0, "below", None),
            ("text", 10, 20, 15, "inside", None),
            ("total", 268, 300, 15, "below", 17.87),
        ],
    ),
    (
        "video-shares-image-and-audio",
        [("text", 10, 20), ("video", 100, 500), ("image", 258, 280)],
        415,
        [("text", 15), ("image", 300), ("audio", 50), ("video", 50)],
        [
            ("audio+image+video", 358, 780, 400, "inside", None),
            ("text", 10, 20, 15, "inside", None),
            ("total", 368, 800, 415, "inside", None),
        ],
    ),
    (
        "video-missed-below",
        [("video", 400, 900)],
        350,
        [("image", 300), ("audio", 50)],
        [
            ("audio+image+video", 400, 900, 350, "below", 1.15),
            ("total", 400, 900, 350, "below", 1.15),
        ],
    ),
    (
        "document-shares-image",
        [("document", 280, 1120), ("text", 3, 9)],
        505,
        [("image", 500), ("text", 5)],
        [
            ("document+image", 280, 1120, 500, "inside", None),
            ("text", 3, 9, 5, "inside", None),
            ("total", 283, 1129, 505, "inside", None),
        ],
    ),
    (
        "a-modality-twice-counts-the-sum",
        [("text", 10, 20)],
        None,
        [("text", 10), ("text", 15)],
        [("text", 10, 20, 25, "above", 1.25)],
    ),
    (
        "a-zero-modality-without-rows-is-left-out",
        [("text", 10, 20)],
        15,
        [("text", 15), ("image", 0)],
        [("text", 10, 20, 15, "inside", None), ("total", 10, 20, 15, "inside", None)],
    ),
    (
        "no-total-reported",
        [("text", 10, 20)],
        None,
        [("text", 15)],
        [("text", 10, 20, 15, "inside", None)],
    ),
    ("nothing-at-all", [("text", 10, 20)], None, [], []),
]


@pytest.mark.parametrize(
    ("parts", "total", "breakdown", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_verdicts_and_factors(
    parts: list[Part], total: int | None, breakdown: list[Any], expected: list[Any]
) -> None:
    found = compare_usage(_estimate(parts), input_tokens=total, by_modality=breakdown)
    assert _rows(found) == expected
    assert found.outside == any(row[4] != "inside" for row in expected)
    assert found.notes == () and not found.floor


# (id, breakdown, the note)
NOT_BY_MODALITY = [
    (
        "unknown-modality",
        [("TEXT", 15)],
        "the input breakdown names modality 'TEXT', which gemini does not define (MODALITIES): "
        "compared in total only",
    ),
    (
        "entry-without-a-count",
        [("text", 10), ("image", None)],
        "an entry of the input breakdown has no modality or no count: compared in total only",
    ),
    (
        "entry-without-a-modality",
        [(None, 15)],
        "an entry of the input breakdown has no modality or no count: compared in total only",
    ),
]


@pytest.mark.parametrize(
    ("breakdown", "note"), [c[1:] for c in NOT_BY_MODALITY], ids=[c[0] for c in NOT_BY_MODALITY]
)
def test_a_breakdown_that_cannot_be_read_is_compared_in_total_only(
    breakdown: list[Any], note: str
) -> None:
    found = compare_usage(_estimate([("text", 10, 20)]), input_tokens=15, by_modality=breakdown)
    assert _rows(found) == [("total", 10, 20, 15, "inside", None)]
    assert found.notes == (note,)


def test_a_row_on_assumed_figures_marks_its_group_and_the_total() -> None:
    parts: list[Part] = [("text", 10, 20), ("audio", 0, 115_200, False)]
    found = compare_usage(
        _estimate(parts), input_tokens=335, by_modality=[("text", 15), ("audio", 320)]
    )
    assert [(r.modality, r.verdict, r.measured) for r in found.rows] == [
        ("audio", "inside", False),
        ("text", "inside", True),
        ("total", "inside", False),
    ]


# (id, reported total, the total row)
PARALLEL_CASES = [
    ("far-above-is-inside", 4212, ("total", 24, None, 4212, "inside", None)),
    ("at-the-floor", 24, ("total", 24, None, 24, "inside", None)),
    ("below", 10, ("total", 24, None, 10, "below", 2.4)),
]


@pytest.mark.parametrize(
    ("total", "expected"), [c[1:] for c in PARALLEL_CASES], ids=[c[0] for c in PARALLEL_CASES]
)
def test_parallel_is_bounded_from_below_only(total: int, expected: tuple[Any, ...]) -> None:
    found = compare_usage(_estimate([("text", 24, 114)], "parallel"), input_tokens=total)
    assert _rows(found) == [expected]
    assert found.floor
    assert found.notes == (
        "parallel counts input that no request holds (REPORTED_INPUT_BEYOND_REQUEST): "
        "the estimate is a floor",
    )


def test_parallel_reports_no_breakdown() -> None:
    found = compare_usage(
        _estimate([("text", 24, 114)], "parallel"), input_tokens=40, by_modality=[("text", 40)]
    )
    assert [r.modality for r in found.rows] == ["total"]
    assert found.notes[-1] == "parallel reports no input breakdown: compared in total only"


def test_a_derived_table_changes_the_reading() -> None:
    found = compare_usage(
        _estimate([("text", 24, 114)], "parallel"),
        input_tokens=4212,
        limits=PARALLEL.derive(REPORTED_INPUT_BEYOND_REQUEST=False),
    )
    assert _rows(found) == [("total", 24, 114, 4212, "above", 36.95)]
    pdf_as_text = GEMINI.derive(
        REPORTED_MODALITIES={**GEMINI.REPORTED_MODALITIES, "document": ("text",)}
    )
    found = compare_usage(
        _estimate([("document", 280, 1120), ("text", 3, 9)]),
        input_tokens=None,
        by_modality=[("text", 600)],
        limits=pdf_as_text,
    )
    assert _rows(found) == [("text", 283, 1129, 600, "inside", None)]


# (id, total, breakdown, code)
BAD_COUNTS = [
    ("negative-total", -1, [], "usage.negative"),
    ("negative-modality", 5, [("text", -5)], "usage.negative"),
    ("float-total", 5.0, [], "response.type"),
    ("bool-total", True, [], "response.type"),
    ("string-modality", 5, [("text", "5")], "response.type"),
]


@pytest.mark.parametrize(
    ("total", "breakdown", "code"), [c[1:] for c in BAD_COUNTS], ids=[c[0] for c in BAD_COUNTS]
)
def test_a_count_that_is_not_a_count_is_refused(total: Any, breakdown: Any, code: str) -> None:
    with pytest.raises(di.InvalidInput) as info:
        compare_usage(_estimate([("text", 1, 2)]), input_tokens=total, by_modality=breakdown)
    assert [p.code for p in info.value.problems] == [code]


# --- the seeds' pairs ---------------------------------------------------------------------------


def _response_usage(name: str) -> tuple[int, list[tuple[str, int]]]:
    usage = json.loads((ROOT / "testdata/responses" / name).read_text())["usage"]
    if "input_tokens" in usage:
        return usage["input_tokens"], []
    pairs = [(m["modality"], m["tokens"]) for m in usage["input_tokens_by_modality"]]
    return usage["total_input_tokens"], pairs


# (id, request, response, rows)
SEED_PAIRS = [
    (
        "003-multiple",
        "gemini-multiple.json",
        "gemini-multiple.json",
        [("text", 126, 488, 324, "inside", None), ("total", 126, 488, 324, "inside", None)],
    ),
    (
        "002-live",
        "parallel-basic.json",
        "parallel-basic.json",
        [("total", 24, None, 4212, "inside", None)],
    ),
    (
        "readme-ticket",
        "ticket.json",
        "ticket.json",
        [
            ("image", 258, 280, 280, "inside", None),
            ("text", 24, 296, 132, "inside", None),
            ("total", 282, 576, 412, "inside", None),
        ],
    ),
]


@pytest.mark.parametrize(
    ("request_name", "response_name", "expected"),
    [c[1:] for c in SEED_PAIRS],
    ids=[c[0] for c in SEED_PAIRS],
)
def test_the_reported_usage_of_the_examples_is_inside_the_estimate(
    request_name: str, response_name: str, expected: list[Any]
) -> None:
    body = json.loads((ROOT / "testdata/requests" / request_name).read_text())
    total, breakdown = _response_usage(response_name)
    found = di.compare_usage(di.estimate(body), input_tokens=total, by_modality=breakdown)
    assert _rows(found) == expected


def test_the_ticket_request_file_is_the_readmes_request() -> None:
    request = di.Request(
        target="gemini",
        model="gemini-decision-1",
        input=[
            di.text("The customer sent this photo. "),
            di.image(ROOT / "testdata/media/jpeg_baseline.jpg", resolution="low"),
        ],
        questions={
            "is_billing": di.noul("Is this about a payment?"),
            "department": di.choice(
                "Which department should handle this?",
                {"billing": "Payments and refunds.", "technical": "", "other": ""},
            ),
            "severity": di.score("How severe is it?", ["Cosmetic", "Workaround exists", "Blocked"]),
        },
    )
    body = json.loads((ROOT / "testdata/requests/ticket.json").read_text())
    assert body == request.to_dict()
    assert di.estimate(body) == di.estimate(request)


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(parts=estimate_rows, breakdown=reported_breakdowns, total=st.none() | st.integers(0, 10**6))
def test_every_row_agrees_with_its_bounds(
    parts: list[Part], breakdown: list[tuple[str, int]], total: int | None
) -> None:
    estimate = _estimate(parts)
    found = compare_usage(estimate, input_tokens=total, by_modality=breakdown)
    for row in found.rows:
        _check_row(row)
    if total is not None:
        assert found.total is not None
        assert (found.total.low, found.total.high) == (estimate.total.low, estimate.total.high)
    # Every row of the estimate is in exactly one group, and every reported token too.
    groups = found.modalities
    if breakdown:
        assert sum(g.low for g in groups) == estimate.total.low
        assert sum(g.high or 0 for g in groups) == estimate.total.high
        assert sum(g.reported for g in groups) == sum(tokens for _m, tokens in breakdown)
    names = [name for g in groups for name in g.modality.split("+")]
    assert len(names) == len(set(names))


def _check_row(row: UsageRow) -> None:
    high = row.high if row.high is not None else float("inf")
    assert (row.verdict == "inside") == (row.low <= row.reported <= high)
    if row.verdict == "inside":
        assert row.factor is None
        return
    numerator, denominator = (
        (row.low, row.reported) if row.verdict == "below" else (row.reported, row.high)
    )
    assert denominator is not None
    if denominator == 0:
        assert row.factor is None
        return
    assert row.factor is not None and row.factor > 1
    # Rounded up to hundredths: never below the quotient, less than a hundredth above it.
    assert row.factor * denominator >= numerator - 1e-9 * numerator
    assert (row.factor - 0.01) * denominator < numerator
