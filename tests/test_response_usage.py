"""Usage that adds up: totals against their parts, breakdowns, output, and the estimate.

Every rule has cases on both sides; every seed response and response file is free of them.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input.errors import Problem, Severity
from decisions_input.limits import GEMINI, PARALLEL, RULES
from decisions_input.responses import iter_response_problems, parse_response
from decisions_input.responses import usage as usage_module
from tests.response_examples import (
    GEMINI_BLOCKED,
    GEMINI_FULL_USAGE,
    GEMINI_REQUEST,
    GEMINI_RESPONSE,
    PARALLEL_REQUEST,
    PARALLEL_RESPONSE,
)
from tests.strategies import consistent_gemini_usage

ROOT = Path(__file__).parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
NEW_CODES = (
    "usage.total_below_parts",
    "usage.part_over_whole",
    "usage.breakdown_sum",
    "usage.output_tokens",
    "usage.outside_estimate",
)


def _usage(**changes: Any) -> dict[str, Any]:
    """000's full usage of the examples, with members changed (``None`` drops one)."""
    usage = copy.deepcopy(GEMINI_FULL_USAGE)
    for name, value in changes.items():
        if value is None:
            del usage[name]
        else:
            usage[name] = value
    return usage


def _text(tokens: int) -> list[dict[str, Any]]:
    return [{"modality": "text", "tokens": tokens}]


def _found(problems: list[Problem]) -> list[tuple[str, str]]:
    return [(p.code, p.json_path) for p in problems]


def _check_severities(problems: list[Problem]) -> None:
    for problem in problems:
        assert problem.severity is RULES[problem.code].severity


# --------------------------------------------------------------------------------------
# Counts against each other (no request)
# --------------------------------------------------------------------------------------

_TOTAL = "$.usage.total_tokens"

# id -> (usage, expected (code, json_path) in document order). The full usage of the
# examples: input 324 (120 cached), tool use 2, thought 5, output 0, total 331.
COUNTS: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {
    # total_tokens: at least input + output + thought + tool use; cached is inside input
    "total-is-the-sum-cached-not-added-again": (_usage(), []),
    "total-above-the-sum-other-internal-tokens": (_usage(total_tokens=400), []),
    "total-one-below-the-sum": (
        _usage(total_tokens=330),
        [("usage.total_below_parts", _TOTAL)],
    ),
    "total-below-the-input": (
        _usage(total_tokens=300),
        [("usage.total_below_parts", _TOTAL)],
    ),
    "total-counts-thought-tokens": (
        _usage(total_thought_tokens=50),
        [("usage.total_below_parts", _TOTAL)],
    ),
    "total-with-its-parts-left-out": (
        _usage(
            total_input_tokens=None,
            initial_input_tokens=None,
            input_tokens_by_modality=None,
            total_cached_tokens=None,
            cached_tokens_by_modality=None,
            total_tokens=7,
        ),
        [],
    ),
    "total-left-out": (_usage(total_tokens=None), []),
    # parts within their whole: cached and first-turn input within the input
    "cached-all-of-the-input": (
        _usage(total_cached_tokens=324, cached_tokens_by_modality=_text(324)),
        [],
    ),
    "cached-over-the-input": (
        _usage(total_cached_tokens=325, cached_tokens_by_modality=_text(325)),
        [("usage.part_over_whole", "$.usage.total_cached_tokens")],
    ),
    "first-turn-below-the-input": (_usage(initial_input_tokens=300), []),
    "first-turn-over-the-input": (
        _usage(initial_input_tokens=325),
        [("usage.part_over_whole", "$.usage.initial_input_tokens")],
    ),
    "cached-without-the-input": (
        _usage(
            total_input_tokens=None,
            input_tokens_by_modality=None,
            total_cached_tokens=10**6,
            cached_tokens_by_modality=_text(10**6),
        ),
        [],
    ),
    # breakdowns by modality add up to their totals
    "input-breakdown-over-two-modalities": (
        _usage(
            input_tokens_by_modality=[
                {"modality": "text", "tokens": 44},
                {"modality": "image", "tokens": 280},
            ]
        ),
        [],
    ),
    "input-breakdown-short": (
        _usage(input_tokens_by_modality=_text(323)),
        [("usage.breakdown_sum", "$.usage.input_tokens_by_modality")],
    ),
    "input-breakdown-over": (
        _usage(
            input_tokens_by_modality=[
                {"modality": "text", "tokens": 324},
                {"modality": "image", "tokens": 280},
            ]
        ),
        [("usage.breakdown_sum", "$.usage.input_tokens_by_modality")],
    ),
    "cached-breakdown-short": (
        _usage(cached_tokens_by_modality=_text(100)),
        [("usage.breakdown_sum", "$.usage.cached_tokens_by_modality")],
    ),
    "tool-use-breakdown-over": (
        _usage(tool_use_tokens_by_modality=_text(3)),
        [("usage.breakdown_sum", "$.usage.tool_use_tokens_by_modality")],
    ),
    "output-breakdown-against-zero": (
        _usage(output_tokens_by_modality=_text(3)),
        [("usage.breakdown_sum", "$.usage.output_tokens_by_modality")],
    ),
    "output-breakdown-of-zeros": (_usage(output_tokens_by_modality=_text(0)), []),
    "breakdown-empty-states-no-sum": (_usage(input_tokens_by_modality=[]), []),
    "breakdown-entry-without-tokens-states-no-sum": (
        _usage(input_tokens_by_modality=[{"modality": "text"}]),
        [],
    ),
    "breakdown-without-its-total": (_usage(total_cached_tokens=None), []),
    # a decision generates no output; thought tokens are not output
    "thought-tokens-are-not-output": (_usage(total_thought_tokens=50, total_tokens=376), []),
    "output-tokens": (
        _usage(total_output_tokens=12, total_tokens=343),
        [("usage.output_tokens", "$.usage.total_output_tokens")],
    ),
    "output-tokens-and-a-total-without-them": (
        _usage(total_output_tokens=12),
        [
            ("usage.output_tokens", "$.usage.total_output_tokens"),
            ("usage.total_below_parts", _TOTAL),
        ],
    ),
    "output-tokens-in-the-breakdown-only": (
        _usage(total_output_tokens=None, output_tokens_by_modality=_text(7), total_tokens=338),
        [("usage.output_tokens", "$.usage.output_tokens_by_modality")],
    ),
    # what is wrong on its own takes part in no comparison
    "negative-count-compared-with-nothing": (
        _usage(total_cached_tokens=-1),
        [("usage.negative", "$.usage.total_cached_tokens")],
    ),
    "negative-entry-compared-with-nothing": (
        _usage(input_tokens_by_modality=_text(-324)),
        [("usage.negative", "$.usage.input_tokens_by_modality[0].tokens")],
    ),
    "mistyped-total-compared-with-nothing": (
        _usage(total_tokens="331"),
        [("response.type", _TOTAL)],
    ),
    "several-in-document-order": (
        _usage(
            initial_input_tokens=400,
            input_tokens_by_modality=_text(1),
            total_output_tokens=1,
            total_tokens=1,
        ),
        [
            ("usage.part_over_whole", "$.usage.initial_input_tokens"),
            ("usage.breakdown_sum", "$.usage.input_tokens_by_modality"),
            ("usage.output_tokens", "$.usage.total_output_tokens"),
            ("usage.total_below_parts", _TOTAL),
        ],
    ),
}


@pytest.mark.parametrize(("usage", "expected"), COUNTS.values(), ids=COUNTS)
def test_counts_against_each_other(usage: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    body = {**GEMINI_RESPONSE, "usage": usage}
    problems = list(iter_response_problems(body))
    assert _found(problems) == expected
    _check_severities(problems)
    if not any(p.is_error for p in problems):
        assert parse_response(body).warnings == tuple(problems)


def test_the_new_rules_are_warnings_with_their_limits() -> None:
    for code in NEW_CODES:
        assert RULES[code].severity is Severity.WARNING
        assert RULES[code].limits, code


def test_parallel_output_tokens_stay_one_error() -> None:
    body = {**PARALLEL_RESPONSE, "usage": {"input_tokens": 4212, "output_tokens": 7}}
    problems = list(iter_response_problems(body, target="parallel"))
    assert [(p.code, p.json_path, p.severity) for p in problems] == [
        ("response.output_tokens", "$.usage.output_tokens", Severity.ERROR)
    ]


def test_a_derived_table_reads_the_counts_its_own_way() -> None:
    # A reading where thought tokens are part of the output, not added to it again.
    mine = GEMINI.derive(
        USAGE_TOTALS={"total_tokens": ("total_input_tokens", "total_output_tokens")}
    )
    body = {**GEMINI_RESPONSE, "usage": _usage(total_thought_tokens=50)}
    assert _found(list(iter_response_problems(body))) == [("usage.total_below_parts", _TOTAL)]
    assert list(iter_response_problems(body, limits=mine)) == []


def test_messages_name_the_numbers() -> None:
    body = {**GEMINI_RESPONSE, "usage": _usage(total_tokens=300)}
    (problem,) = iter_response_problems(body)
    assert problem.message == (
        "expected total_tokens of at least 331 (total_input_tokens 324 + total_output_tokens 0"
        " + total_thought_tokens 5 + total_tool_use_tokens 2), found 300"
    )
    body = {**GEMINI_RESPONSE, "usage": _usage(input_tokens_by_modality=_text(323))}
    (problem,) = iter_response_problems(body)
    assert problem.message == (
        "expected the tokens by modality to add up to total_input_tokens = 324, found 323"
        " (text 323)"
    )


# --------------------------------------------------------------------------------------
# Reported input against the request's estimate
# --------------------------------------------------------------------------------------

_IN = "$.usage.total_input_tokens"
_FIRST = "$.usage.initial_input_tokens"
_GEMINI_EST = di.estimate(GEMINI_REQUEST)
_LOW, _HIGH = _GEMINI_EST.total.low, _GEMINI_EST.total.high
_PHOTO_URL = {
    "type": "image",
    "uri": "https://shop.example/photos/earcup.jpg",
    "mime_type": "image/jpeg",
    "resolution": "low",
}
_URL_REQUEST = {**GEMINI_REQUEST, "input": [*GEMINI_REQUEST["input"], _PHOTO_URL]}
_URL_EST = di.estimate(_URL_REQUEST)
_PARALLEL_LOW = di.estimate(PARALLEL_REQUEST, target="parallel").total.low


def _gemini_body(total_input: int, **more: Any) -> dict[str, Any]:
    usage = {"total_input_tokens": total_input, **more, "total_output_tokens": 0}
    usage["total_tokens"] = max(total_input, more.get("initial_input_tokens", 0))
    return {**GEMINI_RESPONSE, "usage": usage}


def _blocked(total_input: int) -> dict[str, Any]:
    return {**GEMINI_BLOCKED, "usage": {"total_input_tokens": total_input}}


def _parallel_body(input_tokens: int) -> dict[str, Any]:
    return {**PARALLEL_RESPONSE, "usage": {"input_tokens": input_tokens, "output_tokens": 0}}


_OUT = "usage.outside_estimate"
_PARALLEL_IN = "$.usage.input_tokens"

# id -> (target, body, request, expected (code, json_path))
ESTIMATES: dict[str, tuple[str, Any, Any, list[tuple[str, str]]]] = {
    "at-the-low-bound": ("gemini", _gemini_body(_LOW), GEMINI_REQUEST, []),
    "below-the-low-bound": ("gemini", _gemini_body(_LOW - 1), GEMINI_REQUEST, [(_OUT, _IN)]),
    "none-reported": ("gemini", _gemini_body(0), GEMINI_REQUEST, [(_OUT, _IN)]),
    "at-the-high-bound": ("gemini", _gemini_body(_HIGH), GEMINI_REQUEST, []),
    "above-the-high-bound": ("gemini", _gemini_body(_HIGH + 1), GEMINI_REQUEST, [(_OUT, _IN)]),
    "no-request-no-comparison": ("gemini", _gemini_body(0), None, []),
    "no-input-count-no-comparison": (
        "gemini",
        {**GEMINI_RESPONSE, "usage": {"total_output_tokens": 0, "total_tokens": 0}},
        GEMINI_REQUEST,
        [],
    ),
    # later turns add input the request does not hold: the first turn meets the high bound
    "first-turn-within-later-turns-above": (
        "gemini",
        _gemini_body(_HIGH + 500, initial_input_tokens=_HIGH),
        GEMINI_REQUEST,
        [],
    ),
    "first-turn-above-the-high-bound": (
        "gemini",
        _gemini_body(_HIGH + 1, initial_input_tokens=_HIGH + 1),
        GEMINI_REQUEST,
        [(_OUT, _FIRST)],
    ),
    "first-turn-given-and-input-below-the-low-bound": (
        "gemini",
        _gemini_body(_LOW - 1, initial_input_tokens=_LOW - 1),
        GEMINI_REQUEST,
        [(_OUT, _IN)],
    ),
    # a blocked prompt: how much of it was billed is not said, only the high bound holds
    "blocked-below-the-low-bound": ("gemini", _blocked(1), GEMINI_REQUEST, []),
    "blocked-above-the-high-bound": ("gemini", _blocked(_HIGH + 1), GEMINI_REQUEST, [(_OUT, _IN)]),
    # a URL is never fetched: the high bound rests on assumptions, only the low bound holds
    "unmeasured-block-above-the-high-bound": (
        "gemini",
        _gemini_body(_URL_EST.total.high * 10),
        _URL_REQUEST,
        [],
    ),
    "unmeasured-block-below-the-low-bound": (
        "gemini",
        _gemini_body(_URL_EST.total.low - 1),
        _URL_REQUEST,
        [(_OUT, _IN)],
    ),
    # Parallel bills the web evidence it retrieves too: only the low bound holds
    "parallel-at-the-low-bound": ("parallel", _parallel_body(_PARALLEL_LOW), PARALLEL_REQUEST, []),
    "parallel-below-the-low-bound": (
        "parallel",
        _parallel_body(_PARALLEL_LOW - 1),
        PARALLEL_REQUEST,
        [(_OUT, _PARALLEL_IN)],
    ),
    "parallel-far-above-with-evidence": (
        "parallel",
        _parallel_body(10**6),
        PARALLEL_REQUEST,
        [],
    ),
    "parallel-request-object-below-the-low-bound": (
        "parallel",
        _parallel_body(0),
        di.Request(
            target="parallel",
            state=PARALLEL_REQUEST["state"],
            questions={"has_cli": di.noul("Is there an official Clay CLI?")},
        ),
        [(_OUT, _PARALLEL_IN)],
    ),
    # a request for the other API says nothing about this response's input
    "request-of-the-other-target": (
        "gemini",
        _gemini_body(0),
        {"state": {"order": "8821"}, "questions": GEMINI_REQUEST["questions"]},
        [],
    ),
    "request-object-of-the-other-target": (
        "parallel",
        _parallel_body(0),
        di.Request(
            target="gemini",
            model="gemini-decision-1",
            input="x",
            questions={"has_cli": di.noul("Is there an official Clay CLI?")},
        ),
        [],
    ),
    # found by fuzzing: a block type that is no string once raised TypeError in the estimate
    "request-with-a-block-type-that-is-no-string": (
        "gemini",
        {"answers": {}, "usage": {"total_input_tokens": 5}},
        {"model": "gemini-decision-1", "input": [{"type": []}], "questions": {}},
        [(_OUT, _IN)],
    ),
    "request-as-json-text": (
        "gemini",
        _gemini_body(_HIGH + 1),
        json.dumps(GEMINI_REQUEST),
        [(_OUT, _IN)],
    ),
    "request-as-bytes": (
        "gemini",
        _gemini_body(_LOW - 1),
        json.dumps(GEMINI_REQUEST).encode(),
        [(_OUT, _IN)],
    ),
}


@pytest.mark.parametrize(
    ("target", "body", "request_body", "expected"), ESTIMATES.values(), ids=ESTIMATES
)
def test_input_against_the_estimate(
    target: str, body: Any, request_body: Any, expected: list[tuple[str, str]]
) -> None:
    problems = list(iter_response_problems(body, request=request_body, target=target))
    assert _found(problems) == expected
    _check_severities(problems)
    parsed = parse_response(body, request=request_body, target=target)
    assert parsed.warnings == tuple(problems)


def test_the_message_says_which_way_and_by_how_much() -> None:
    found = _LOW - 7
    (below,) = iter_response_problems(_gemini_body(found), request=GEMINI_REQUEST)
    assert f"at least {_LOW:,}, the low bound" in below.message
    assert f"({_GEMINI_EST.total})" in below.message
    assert f"found {found:,}: 7 fewer ({7 / _LOW:.0%} under)" in below.message
    assert "the estimate is off for this request" in below.message
    found = _HIGH * 2
    (above,) = iter_response_problems(_gemini_body(found), request=GEMINI_REQUEST)
    assert f"at most {_HIGH:,}, the high bound" in above.message
    assert f"found {found:,}: {_HIGH:,} more (100% over)" in above.message


def test_no_estimate_is_made_where_no_bound_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the request was estimated")

    monkeypatch.setattr(usage_module, "estimate", refuse)
    off = GEMINI.derive(USAGE_AGAINST_ESTIMATE=False)
    assert list(iter_response_problems(_gemini_body(0), request=GEMINI_REQUEST, limits=off)) == []
    low_only = GEMINI.derive(REPORTED_INPUT_BEYOND_REQUEST=True)
    blocked = _blocked(10**6)
    assert list(iter_response_problems(blocked, request=GEMINI_REQUEST, limits=low_only)) == []
    no_input = {**GEMINI_RESPONSE, "usage": {"total_tokens": 5}}
    assert list(iter_response_problems(no_input, request=GEMINI_REQUEST)) == []


def test_a_request_object_is_estimated_from_its_evidence(tmp_path: Path) -> None:
    photo = tmp_path / "photo.jpg"
    photo.write_bytes((ROOT / "testdata/media/jpeg_baseline.jpg").read_bytes())
    req = di.Request(
        target="gemini",
        model="gemini-decision-1",
        input=[di.text("The customer sent this photo. "), di.image(photo, resolution="low")],
        questions={"is_billing": di.noul("Is this about a payment?")},
    )
    est = di.estimate(req)
    photo.unlink()  # the media are never read again: not to compare, not to estimate
    response = {
        "answers": {"is_billing": {"type": "noul", "noul": 0.5, "confidence": 0.5}},
        "usage": {"total_input_tokens": est.total.high + 1},
    }
    problems = list(iter_response_problems(response, request=req))
    assert _found(problems) == [(_OUT, _IN)]
    response["usage"] = {"total_input_tokens": est.total.high}
    assert parse_response(response, request=req).warnings == ()


# --------------------------------------------------------------------------------------
# The seeds' responses and the response files stay free of these warnings
# --------------------------------------------------------------------------------------


def _seed_yaml(name: str) -> Any:
    matches = sorted(SEEDS.glob(f"{name}_*.txt"))
    if not matches:
        pytest.skip(f"seed document {name} not found in {SEEDS}")
    text = matches[0].read_text(encoding="utf-8")
    found = re.search(r"^````yaml[^\n]*\n(.*?)^````", text, re.S | re.M)
    assert found is not None
    return yaml.safe_load(found.group(1))


def _usage_problems(body: Any, request: Any, target: str) -> list[Problem]:
    return [
        p
        for p in iter_response_problems(body, request=request, target=target)
        if p.code.startswith("usage.") or p.code == "response.output_tokens"
    ]


def test_the_003_example_response_adds_up_against_its_request() -> None:
    post = _seed_yaml("003")["paths"]["/v1beta/decisions"]["post"]
    requests = post["requestBody"]["content"]["application/json"]["examples"]
    response = post["responses"]["200"]["content"]["application/json"]["example"]
    assert response["usage"]["total_input_tokens"] == 324
    assert _usage_problems(response, requests["multiple"]["value"], "gemini") == []
    assert _usage_problems(response, None, "gemini") == []


def test_the_002_live_response_adds_up_against_its_request() -> None:
    post = _seed_yaml("002")["paths"]["/v1/decisions"]["post"]
    request = post["requestBody"]["content"]["application/json"]["example"]
    examples = post["responses"]["200"]["content"]["application/json"]["examples"]
    response = examples["live"]["value"]
    assert response["usage"] == {"input_tokens": 4212, "output_tokens": 0}
    assert _usage_problems(response, request, "parallel") == []


FILES = [
    pytest.param("gemini-multiple.json", "gemini-multiple.json", "gemini", id="gemini-multiple"),
    pytest.param("parallel-basic.json", "parallel-basic.json", "parallel", id="parallel-basic"),
    pytest.param("ticket.json", None, "gemini", id="readme-ticket"),
]


@pytest.mark.parametrize(("response", "request_file", "target"), FILES)
def test_response_files_add_up(response: str, request_file: str | None, target: str) -> None:
    body = (ROOT / "testdata/responses" / response).read_bytes()
    request = None
    if request_file is not None:
        request = (ROOT / "testdata/requests" / request_file).read_bytes()
    assert list(iter_response_problems(body, request=request, target=target)) == []


def test_the_examples_of_the_tests_add_up() -> None:
    for body, request in (
        (GEMINI_RESPONSE, GEMINI_REQUEST),
        ({**GEMINI_RESPONSE, "usage": GEMINI_FULL_USAGE}, GEMINI_REQUEST),
        (GEMINI_BLOCKED, GEMINI_REQUEST),
    ):
        assert _usage_problems(body, request, "gemini") == []
    assert _usage_problems(PARALLEL_RESPONSE, PARALLEL_REQUEST, "parallel") == []
    assert PARALLEL.REPORTED_INPUT_BEYOND_REQUEST and not GEMINI.REPORTED_INPUT_BEYOND_REQUEST


# --------------------------------------------------------------------------------------
# Properties: usage that adds up gives nothing; one number off gives its warning
# --------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(usage=consistent_gemini_usage())
def test_consistent_usage_has_no_problems(usage: dict[str, Any]) -> None:
    assert list(iter_response_problems({**GEMINI_RESPONSE, "usage": usage})) == []


def _parts_sum(usage: dict[str, Any]) -> int:
    names = ("total_input_tokens", "total_output_tokens", "total_thought_tokens")
    return sum(usage[n] for n in names) + usage["total_tool_use_tokens"]


@st.composite
def _one_number_off(draw: st.DrawFn) -> tuple[dict[str, Any], set[tuple[str, str]]]:
    """A consistent usage with one number changed, and the warnings that change must give."""
    usage = draw(consistent_gemini_usage())
    move = draw(st.sampled_from(["total", "cached", "first", "entry", "input", "output"]))
    k = draw(st.integers(1, 10**4))
    wanted: set[tuple[str, str]] = set()
    if move == "total" and _parts_sum(usage) > 0:
        usage["total_tokens"] = draw(st.integers(0, _parts_sum(usage) - 1))
        wanted.add(("usage.total_below_parts", "total_tokens"))
    elif move == "cached":
        usage["total_cached_tokens"] = usage["total_input_tokens"] + k
        wanted |= {
            ("usage.part_over_whole", "total_cached_tokens"),
            ("usage.breakdown_sum", "cached_tokens_by_modality"),
        }
    elif move == "first":
        usage["initial_input_tokens"] = usage["total_input_tokens"] + k
        wanted.add(("usage.part_over_whole", "initial_input_tokens"))
    elif move == "entry":
        name = draw(st.sampled_from([n for n in usage if n.endswith("_by_modality")]))
        entry = draw(st.sampled_from(usage[name]))
        entry["tokens"] += k
        wanted.add(("usage.breakdown_sum", name))
    elif move == "input":
        usage["total_input_tokens"] += k
        wanted.add(("usage.breakdown_sum", "input_tokens_by_modality"))
    elif move == "output":
        usage["total_output_tokens"] = k
        wanted |= {
            ("usage.output_tokens", "total_output_tokens"),
            ("usage.breakdown_sum", "output_tokens_by_modality"),
        }
    if usage["total_tokens"] < _parts_sum(usage):
        wanted.add(("usage.total_below_parts", "total_tokens"))
    return usage, wanted


@settings(max_examples=300, deadline=None)
@given(case=_one_number_off())
def test_one_number_off_gives_its_warning(
    case: tuple[dict[str, Any], set[tuple[str, str]]],
) -> None:
    usage, wanted = case
    order = list(usage)
    expected = [
        (code, f"$.usage.{name}") for code, name in sorted(wanted, key=lambda w: order.index(w[1]))
    ]
    problems = list(iter_response_problems({**GEMINI_RESPONSE, "usage": usage}))
    assert _found(problems) == expected
    assert all(p.severity is Severity.WARNING for p in problems)


_words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=60)


@settings(max_examples=100, deadline=None)
@given(
    text=_words,
    instructions=_words,
    where=st.sampled_from(["inside", "below", "above"]),
    data=st.data(),
)
def test_input_outside_the_estimate_gives_its_warning(
    text: str, instructions: str, where: str, data: st.DataObject
) -> None:
    request = {
        "model": "gemini-decision-1",
        "input": text,
        "questions": {"q": {"type": "noul", "instructions": instructions}},
    }
    low, high = di.estimate(request).total.low, di.estimate(request).total.high
    if where == "inside":
        reported = data.draw(st.integers(low, high))
    elif where == "below":
        reported = data.draw(st.integers(0, low - 1)) if low else low
    else:
        reported = high + data.draw(st.integers(1, 10**6))
    body = {
        "answers": {"q": {"type": "noul", "noul": 0.5, "confidence": 0.5}},
        "usage": {"total_input_tokens": reported},
    }
    problems = list(iter_response_problems(body, request=request))
    if low <= reported <= high:
        assert problems == []
        return
    assert _found(problems) == [(_OUT, _IN)]
    gap = low - reported if reported < low else reported - high
    assert f"found {reported:,}: {gap:,} {'fewer' if reported < low else 'more'}" in (
        problems[0].message
    )
