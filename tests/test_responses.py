"""Responses: seed examples parse, broken responses give exact problems, nothing foreign escapes."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect
import json
import pickle
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input.errors import DecisionsInputError, InvalidInput, Problem, Severity
from decisions_input.limits import GEMINI, PARALLEL, RULES
from decisions_input.responses import (
    ChoiceAnswer,
    DecisionResponse,
    GeminiError,
    GeminiUsage,
    NoulAnswer,
    ParallelError,
    ParallelUsage,
    RefusalAnswer,
    ScoreAnswer,
    iter_error_problems,
    iter_response_problems,
    iter_signals_problems,
    parse_error,
    parse_response,
    parse_signals,
)
from decisions_input.responses.shapes import shapes_for
from tests.response_examples import (
    GEMINI_BLOCKED,
    GEMINI_ERRORS,
    GEMINI_FULL_USAGE,
    GEMINI_REQUEST,
    GEMINI_RESPONSE,
    PARALLEL_ERROR,
    PARALLEL_REQUEST,
    PARALLEL_RESPONSE,
    SIGNALS,
)
from tests.strategies import error_bodies, response_bodies, response_requests, signals_bodies

ROOT = Path(__file__).parent.parent


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """Return a deep copy of ``doc`` with the value at ``path`` replaced (or added)."""
    out = copy.deepcopy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def _drop(doc: Any, path: tuple[Any, ...]) -> Any:
    """Return a deep copy of ``doc`` without the member at ``path``."""
    out = copy.deepcopy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    del node[path[-1]]
    return out


def _edit(doc: Any, *changes: tuple[tuple[Any, ...], Any]) -> Any:
    for path, value in changes:
        doc = _set(doc, path, value)
    return doc


_NA = ("answers", "next_action")
_CR = ("answers", "churn_risk")
_ID = ("answers", "is_defect")
_HC = ("answers", "has_cli")
_CHOICE = GEMINI_REQUEST["questions"]["next_action"]
_MANY_OPTIONS = {f"option_{i:02d}": "" for i in range(30)}

# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------

# (what, target, body, request): every one parses with no problem at all.
VALID = [
    pytest.param("response", "gemini", GEMINI_RESPONSE, GEMINI_REQUEST, id="003-multiple"),
    pytest.param("response", "gemini", GEMINI_RESPONSE, None, id="003-multiple-no-request"),
    pytest.param(
        "response",
        "gemini",
        json.dumps(GEMINI_RESPONSE).encode(),
        GEMINI_REQUEST,
        id="003-as-bytes",
    ),
    pytest.param("response", "parallel", PARALLEL_RESPONSE, PARALLEL_REQUEST, id="002-live"),
    pytest.param("response", "parallel", json.dumps(PARALLEL_RESPONSE), None, id="002-live-text"),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, ("usage",), GEMINI_FULL_USAGE),
        GEMINI_REQUEST,
        id="000-full-usage",
    ),
    pytest.param("response", "gemini", GEMINI_BLOCKED, GEMINI_REQUEST, id="blocked-empty-answers"),
    pytest.param(
        "response",
        "gemini",
        _drop(GEMINI_BLOCKED, ("answers",)),
        GEMINI_REQUEST,
        id="blocked-no-answers",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_NA, "probabilities", "instant_refund"), 0.0199),
        None,
        id="sum-0.9999-is-rounding",
    ),
    pytest.param(
        "response",
        "gemini",
        {
            "answers": {
                "pick": {
                    "type": "choice",
                    "choice": "option_00",
                    "probabilities": dict.fromkeys(_MANY_OPTIONS, 0.03),
                    "confidence": 0.03,
                }
            }
        },
        {"questions": {"pick": {"type": "choice", "criteria": _MANY_OPTIONS}}},
        id="30-options-at-2-decimals-sum-0.9",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, _HC, {"type": "refusal"}),
        PARALLEL_REQUEST,
        id="parallel-refusal",
    ),
    pytest.param(
        "response",
        "parallel",
        _edit(PARALLEL_RESPONSE, (("citations",), [{"url": "https://a.example/", "excerpts": []}])),
        {**PARALLEL_REQUEST, "include_excerpts": False},
        id="parallel-no-excerpts",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(
            PARALLEL_RESPONSE,
            _HC,
            {
                "type": "choice",
                "choice": "yes",
                "probabilities": {"no": 0.25, "yes": 0.75},
                "confidence": None,
            },
        ),
        None,
        id="parallel-choice-null-confidence",
    ),
    pytest.param("signals", "gemini", SIGNALS, None, id="signals"),
    pytest.param("signals", "gemini", {}, None, id="signals-empty"),
    pytest.param("error", "gemini", GEMINI_ERRORS[0], None, id="003-error-plain"),
    pytest.param("error", "gemini", GEMINI_ERRORS[1], None, id="003-error-endpoint"),
    pytest.param("error", "gemini", GEMINI_ERRORS[2], None, id="003-error-401"),
    pytest.param("error", "parallel", PARALLEL_ERROR, None, id="002-error-422"),
]

# (what, target, body, request, expected (code, json_path) pairs in order)
BROKEN = [
    # answers against the request
    pytest.param(
        "response",
        "gemini",
        _drop(GEMINI_RESPONSE, _CR),
        GEMINI_REQUEST,
        [("answer.missing", "$.answers")],
        id="answer-missing",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(
            GEMINI_RESPONSE, ("answers", "bonus"), {"type": "noul", "noul": 0.5, "confidence": 0.5}
        ),
        GEMINI_REQUEST,
        [("answer.extra", "$.answers.bonus")],
        id="answer-extra",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, _CR, {"type": "noul", "noul": 0.5, "confidence": 0.5}),
        GEMINI_REQUEST,
        [("answer.type_mismatch", "$.answers.churn_risk.type")],
        id="type-mismatch",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_ID, "type"), "bool"),
        None,
        [("answer.type_unknown", "$.answers.is_defect.type")],
        id="type-unknown",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, _ID, {"type": "refusal"}),
        None,
        [("answer.type_unknown", "$.answers.is_defect.type")],
        id="gemini-has-no-refusal",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, ("prompt_feedback",), {"block_reason": "safety"}),
        GEMINI_REQUEST,
        [("answer.blocked_not_empty", "$.answers")],
        id="blocked-not-empty",
    ),
    # noul
    pytest.param(
        "response",
        "gemini",
        _edit(GEMINI_RESPONSE, ((*_ID, "noul"), 0.995), ((*_ID, "confidence"), 0.995)),
        None,
        [("answer.noul_range", "$.answers.is_defect.noul")],
        id="noul-above-0.99",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_ID, "confidence"), 0.6),
        None,
        [("answer.confidence", "$.answers.is_defect.confidence")],
        id="noul-confidence",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, (*_HC, "noul"), 1.2),
        None,
        [("answer.noul_range", "$.answers.has_cli.noul")],
        id="parallel-noul-above-1",
    ),
    # choice
    pytest.param(
        "response",
        "gemini",
        _edit(
            GEMINI_RESPONSE,
            (
                (*_NA, "probabilities"),
                {
                    "human_escalation": 0.78,
                    "replacement_shipment": 0.18,
                    "troubleshooting_flow": 0.04,
                },
            ),
            ((*_NA, "confidence"), 0.78),
        ),
        GEMINI_REQUEST,
        [("answer.probability_keys", "$.answers.next_action.probabilities")],
        id="choice-option-missing",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_NA, "probabilities", "other"), 0),
        GEMINI_REQUEST,
        [("answer.probability_keys", "$.answers.next_action.probabilities.other")],
        id="choice-option-extra",
    ),
    pytest.param(
        "response",
        "gemini",
        _edit(
            GEMINI_RESPONSE,
            ((*_NA, "probabilities", "troubleshooting_flow"), -0.04),
            ((*_NA, "probabilities", "human_escalation"), 0.84),
            ((*_NA, "confidence"), 0.84),
        ),
        None,
        [("answer.probability_range", "$.answers.next_action.probabilities.troubleshooting_flow")],
        id="choice-probability-negative",
    ),
    pytest.param(
        "response",
        "gemini",
        _edit(
            GEMINI_RESPONSE,
            ((*_NA, "probabilities", "human_escalation"), 0.66),
            ((*_NA, "confidence"), 0.66),
        ),
        None,
        [("answer.probability_sum", "$.answers.next_action.probabilities")],
        id="choice-sum-0.9",
    ),
    pytest.param(
        "response",
        "gemini",
        _edit(
            GEMINI_RESPONSE,
            ((*_NA, "choice"), "replacement_shipment"),
            ((*_NA, "confidence"), 0.18),
        ),
        GEMINI_REQUEST,
        [("answer.choice_not_max", "$.answers.next_action.choice")],
        id="choice-not-max",
    ),
    pytest.param(
        "response",
        "gemini",
        _edit(
            GEMINI_RESPONSE,
            ((*_NA, "choice"), "instant_refund"),
            (
                (*_NA, "probabilities"),
                {
                    "human_escalation": 0.47,
                    "replacement_shipment": 0.04,
                    "troubleshooting_flow": 0.02,
                    "instant_refund": 0.47,
                },
            ),
            ((*_NA, "confidence"), 0.47),
        ),
        GEMINI_REQUEST,
        [("answer.choice_tie", "$.answers.next_action.choice")],
        id="choice-tie-order",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_NA, "choice"), "refund"),
        None,
        [("answer.choice_unknown", "$.answers.next_action.choice")],
        id="choice-unknown",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_NA, "confidence"), 0.18),
        None,
        [("answer.confidence", "$.answers.next_action.confidence")],
        id="choice-confidence",
    ),
    # score
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_CR, "legend", "1"), "Mild"),
        GEMINI_REQUEST,
        [("answer.legend", '$.answers.churn_risk.legend["1"]')],
        id="legend-text",
    ),
    pytest.param(
        "response",
        "gemini",
        _drop(GEMINI_RESPONSE, (*_CR, "legend", "3")),
        GEMINI_REQUEST,
        [("answer.legend", "$.answers.churn_risk.legend")],
        id="legend-level-missing",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_CR, "legend", "7"), "Gone"),
        None,
        [("answer.legend", '$.answers.churn_risk.legend["7"]')],
        id="legend-index-no-request",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_CR, "score"), 2.5),
        None,
        [("answer.score_mean", "$.answers.churn_risk.score")],
        id="score-mean",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_CR, "confidence"), 0.5),
        None,
        [("answer.confidence", "$.answers.churn_risk.confidence")],
        id="score-confidence",
    ),
    pytest.param(
        "response",
        "gemini",
        _edit(GEMINI_RESPONSE, ((*_CR, "probabilities"), {"0": 0, "1": 0, "2": 0.01, "03": 0.99})),
        None,
        [
            ("answer.probability_keys", "$.answers.churn_risk.probabilities"),
            ("answer.probability_keys", '$.answers.churn_risk.probabilities["03"]'),
        ],
        id="score-index-not-canonical",
    ),
    # structure
    pytest.param(
        "response",
        "gemini",
        _drop(GEMINI_RESPONSE, ("answers",)),
        None,
        [("response.required", "$")],
        id="answers-missing",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, ("answers",), []),
        None,
        [("response.type", "$.answers")],
        id="answers-not-object",
    ),
    pytest.param(
        "response",
        "gemini",
        _drop(GEMINI_RESPONSE, (*_ID, "confidence")),
        None,
        [("response.required", "$.answers.is_defect")],
        id="noul-confidence-missing",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, (*_ID, "noul"), "0.94"),
        None,
        [("response.type", "$.answers.is_defect.noul")],
        id="noul-as-string",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, ("usage", "total_tokens"), -1),
        None,
        [("usage.negative", "$.usage.total_tokens")],
        id="usage-negative",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_RESPONSE, ("usage", "total_tokens"), 1.5),
        None,
        [("response.type", "$.usage.total_tokens")],
        id="usage-fraction",
    ),
    pytest.param(
        "response",
        "gemini",
        _set(GEMINI_BLOCKED, ("prompt_feedback", "block_reason"), "new_filter"),
        None,
        [("response.enum", "$.prompt_feedback.block_reason")],
        id="block-reason-unknown",
    ),
    pytest.param(
        "response",
        "gemini",
        [GEMINI_RESPONSE],
        None,
        [("response.type", "$")],
        id="body-array",
    ),
    pytest.param("response", "gemini", 42, None, [("response.type", "$")], id="body-number"),
    # Parallel
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, ("decision_id",), "decisions_34B4BE1B"),
        None,
        [("response.decision_id", "$.decision_id")],
        id="decision-id",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, ("usage", "output_tokens"), 7),
        None,
        [("response.output_tokens", "$.usage.output_tokens")],
        id="output-tokens",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, _HC, {"type": "refusal", "noul": 0.5}),
        None,
        [("answer.refusal_values", "$.answers.has_cli.noul")],
        id="refusal-with-value",
    ),
    pytest.param(
        "response",
        "parallel",
        PARALLEL_RESPONSE,
        {**PARALLEL_REQUEST, "include_excerpts": False},
        [("citation.excerpts", f"$.citations[{i}].excerpts") for i in range(10)],
        id="excerpts-turned-off",
    ),
    pytest.param(
        "response",
        "parallel",
        _drop(PARALLEL_RESPONSE, ("citations", 2, "url")),
        None,
        [("response.required", "$.citations[2]")],
        id="citation-url-missing",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, ("citations", 0, "url"), "/docs/cli"),
        None,
        [("citation.url", "$.citations[0].url")],
        id="citation-url-relative",
    ),
    pytest.param(
        "response",
        "parallel",
        _drop(PARALLEL_RESPONSE, ("mode",)),
        None,
        [("response.required", "$")],
        id="parallel-mode-missing",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, ("mode",), "deep"),
        None,
        [("response.enum", "$.mode")],
        id="parallel-mode-unknown",
    ),
    pytest.param(
        "response",
        "parallel",
        _drop(PARALLEL_RESPONSE, _HC),
        PARALLEL_REQUEST,
        [("answer.missing", "$.answers")],
        id="parallel-answer-missing",
    ),
    pytest.param(
        "response",
        "parallel",
        _set(PARALLEL_RESPONSE, (*_HC, "confidence"), 0.99),
        None,
        [("response.unknown_member", "$.answers.has_cli.confidence")],
        id="parallel-noul-confidence",
    ),
    # JSON text
    pytest.param(
        "response",
        "gemini",
        '{"answers": {}, "answers": {}}',
        None,
        [("json.duplicate_key", "$.answers")],
        id="duplicate-key",
    ),
    pytest.param(
        "response",
        "gemini",
        '{"answers": ',
        None,
        [("json.syntax", "$.answers")],  # where the value was expected
        id="truncated",
    ),
    pytest.param(
        "response",
        "gemini",
        '{"answers": {}} {}',
        None,
        [("json.trailing_data", "$")],
        id="trailing",
    ),
    pytest.param(
        "response",
        "gemini",
        '{"answers": {"q": {"type": "noul", "noul": NaN, "confidence": 1}}}',
        None,
        [("json.non_finite", "$.answers.q.noul")],
        id="nan",
    ),
    pytest.param("response", "gemini", b"\xef\xbb\xbf{}", None, [("json.bom", "$")], id="bom"),
    pytest.param(
        "response", "gemini", b'{"a": "\xff"}', None, [("json.invalid_utf8", "$")], id="latin-1"
    ),
    pytest.param(
        "response",
        "gemini",
        "[" * 200 + "]" * 200,
        None,
        [("json.too_deep", "$" + "[0]" * GEMINI.MAX_JSON_DEPTH)],
        id="deep",
    ),
    pytest.param(
        "response",
        "gemini",
        "[" * 100_000 + "]" * 100_000,
        None,
        [("json.too_deep", "$" + "[0]" * GEMINI.MAX_JSON_DEPTH)],
        id="very-deep",
    ),
    # document order across answers, then the top-level members
    pytest.param(
        "response",
        "gemini",
        _edit(
            GEMINI_RESPONSE,
            ((*_ID, "confidence"), 0.5),
            ((*_NA, "choice"), "refund"),
            ((*_CR, "score"), 1.0),
            (("usage", "total_tokens"), -3),
            (("zzz",), True),
        ),
        GEMINI_REQUEST,
        [
            ("answer.confidence", "$.answers.is_defect.confidence"),
            ("answer.choice_unknown", "$.answers.next_action.choice"),
            ("answer.score_mean", "$.answers.churn_risk.score"),
            ("usage.negative", "$.usage.total_tokens"),
            ("response.unknown_member", "$.zzz"),
        ],
        id="document-order",
    ),
    # signals
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("answer",), "We ship to 41 countries. Returns are free for 30 days."),
        None,
        [("signals.answer_parts", "$.answerParts")],
        id="signals-parts-differ",
    ),
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("answerParts", 1, "supportingIndices", 1), 2),
        None,
        [("signals.index", "$.answerParts[1].supportingIndices[1]")],
        id="signals-supporting-index",
    ),
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("citedSnippets", 0, "snippetIndex"), -1),
        None,
        [("signals.index", "$.citedSnippets[0].snippetIndex")],
        id="signals-cited-index",
    ),
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("citedSnippets", 1, "searchSnippet", "text"), "Changed."),
        None,
        [("signals.cited_snippet", "$.citedSnippets[1].searchSnippet")],
        id="signals-cited-differs",
    ),
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("groundingSignals", "score"), "SOMEWHAT"),
        None,
        [("signals.enum", "$.groundingSignals.score")],
        id="signals-enum",
    ),
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("safetySignals", "extraNote"), "x"),
        None,
        [("response.unknown_member", "$.safetySignals.extraNote")],
        id="signals-unknown-member",
    ),
    pytest.param(
        "signals",
        "gemini",
        _set(SIGNALS, ("searchSnippets",), "none"),
        None,
        [("response.type", "$.searchSnippets")],
        id="signals-snippets-not-array",
    ),
    # error bodies
    pytest.param(
        "error",
        "parallel",
        _drop(PARALLEL_ERROR, ("error", "ref_id")),
        None,
        [("response.required", "$.error")],
        id="parallel-error-ref-id",
    ),
    pytest.param(
        "error",
        "parallel",
        _set(PARALLEL_ERROR, ("type",), "oops"),
        None,
        [("response.enum", "$.type")],
        id="parallel-error-type",
    ),
    pytest.param(
        "error",
        "gemini",
        {"error": "boom"},
        None,
        [("response.type", "$.error")],
        id="gemini-error-string",
    ),
    pytest.param(
        "error", "gemini", {}, None, [("response.required", "$")], id="gemini-error-empty"
    ),
]


# The sum rule: printed probabilities may miss 1 by half a unit in the last printed place of
# each (two decimals at least), or by PROBABILITY_SUM_TOLERANCE. (probabilities, sum is ok)
SUMS = [
    pytest.param([0.49, 0.5], True, id="2-decimals-0.99-two-options"),
    pytest.param([0.49, 0.49], False, id="2-decimals-0.98-two-options"),
    pytest.param([0.25, 0.25, 0.24, 0.24], True, id="2-decimals-0.98-four-options"),
    pytest.param([0.5, 0.4], False, id="1-decimal-read-as-2-0.9"),
    pytest.param([0.6666, 0.3333], True, id="4-decimals-0.9999"),
    pytest.param([0.66663, 0.33334], True, id="5-decimals-0.99997-floor"),
    pytest.param([2 / 3, 0.3332333333333333], True, id="doubles-0.9999-floor"),
    pytest.param([2 / 3, 0.3331333333333333], False, id="doubles-0.9998"),
    pytest.param([1, 0], True, id="whole-numbers"),
    pytest.param([0, 0], False, id="whole-numbers-0"),
    pytest.param([0.004] * 100 + [0.55], True, id="101-options-3-decimals-0.95"),
    pytest.param([0.01] * 10 + [0.8], False, id="11-options-2-decimals-0.9"),
]


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _problems(what: str, target: str, body: Any, request: Any) -> Iterator[Problem]:
    if what == "response":
        return iter_response_problems(body, request=request, target=target)
    if what == "signals":
        return iter_signals_problems(body)
    return iter_error_problems(body, target=target)


def _parse(what: str, target: str, body: Any, request: Any) -> object:
    if what == "response":
        return parse_response(body, request=request, target=target)
    if what == "signals":
        return parse_signals(body)
    return parse_error(body, target=target)


def _resolve(body: Any, path: tuple[str | int, ...]) -> None:
    node = body
    for step in path:
        node = node[step]


def _loaded(body: Any) -> Any:
    if isinstance(body, (str, bytes)):
        return json.loads(body)
    return body


# --------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("what", "target", "body", "request_body"), VALID)
def test_valid_examples_have_no_problems(
    what: str, target: str, body: Any, request_body: Any
) -> None:
    assert list(_problems(what, target, body, request_body)) == []
    _parse(what, target, body, request_body)


@pytest.mark.parametrize(("what", "target", "body", "request_body", "expected"), BROKEN)
def test_broken_bodies(
    what: str, target: str, body: Any, request_body: Any, expected: list[tuple[str, str]]
) -> None:
    problems = list(_problems(what, target, body, request_body))
    assert [(p.code, p.json_path) for p in problems] == expected
    for problem in problems:
        assert RULES[problem.code].severity is problem.severity
    if any(p.is_error for p in problems):
        with pytest.raises(InvalidInput) as caught:
            _parse(what, target, body, request_body)
        assert caught.value.problems == tuple(p for p in problems if p.is_error)
    else:
        parsed = _parse(what, target, body, request_body)
        assert parsed.warnings == tuple(problems)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("numbers", "ok"), SUMS)
def test_probability_sum_rule(numbers: list[float], ok: bool) -> None:
    keys = [f"o{i:03d}" for i in range(len(numbers))]
    top = max(numbers)
    choice = keys[numbers.index(top)]
    answer = {
        "type": "choice",
        "choice": choice,
        "probabilities": dict(zip(keys, numbers, strict=True)),
    }
    body = {"answers": {"q": {**answer, "confidence": top}}}
    codes = [p.code for p in iter_response_problems(body)]
    assert codes == ([] if ok else ["answer.probability_sum"])


def test_gemini_example_model() -> None:
    response = parse_response(GEMINI_RESPONSE, request=GEMINI_REQUEST)
    assert response.target == "gemini"
    assert list(response.answers) == ["is_defect", "next_action", "churn_risk"]
    noul, choice, score = response.answers.values()
    assert isinstance(noul, NoulAnswer) and noul.is_true() and not noul.is_true(0.95)
    assert noul.winner is True
    assert isinstance(choice, ChoiceAnswer) and choice.winner == "human_escalation"
    assert (
        isinstance(score, ScoreAnswer)
        and score.winner == 3
        and score.legend["3"] == "Threatens to cancel"
    )
    assert isinstance(response.usage, GeminiUsage)
    assert response.usage.total_input_tokens == 324
    assert response.usage.input_tokens_by_modality[0].modality == "text"
    assert response.uncertain(0.9) == ("next_action",)
    assert response.uncertain(0.5) == ()
    assert not response.blocked


def test_gemini_full_usage_and_blocked_models() -> None:
    full = parse_response(_set(GEMINI_RESPONSE, ("usage",), GEMINI_FULL_USAGE))
    assert isinstance(full.usage, GeminiUsage)
    assert full.usage.grounding_tool_count[0].type == "google_search"
    assert full.usage.input_tokens_by_modality[0].tokens == 324
    blocked = parse_response(_drop(GEMINI_BLOCKED, ("answers",)), request=GEMINI_REQUEST)
    assert blocked.blocked and blocked.answers == {}
    assert blocked.prompt_feedback is not None and blocked.prompt_feedback.block_reason == "safety"


def test_parallel_example_model() -> None:
    response = parse_response(PARALLEL_RESPONSE, request=PARALLEL_REQUEST, target="parallel")
    answer = response.answers["has_cli"]
    assert isinstance(answer, NoulAnswer) and answer.confidence is None
    assert answer.certainty == pytest.approx(0.9992643798509062)
    assert isinstance(response.usage, ParallelUsage) and response.usage.input_tokens == 4212
    assert response.mode == "fast" and response.decision_id == PARALLEL_RESPONSE["decision_id"]
    assert (
        len(response.citations) == 10 and response.citations[2].title == "Claycli \u00b7 Clay CLI"
    )
    refused = parse_response(_set(PARALLEL_RESPONSE, _HC, {"type": "refusal"}), target="parallel")
    assert isinstance(refused.answers["has_cli"], RefusalAnswer)
    assert refused.uncertain(0.0) == ("has_cli",)


def test_signals_model() -> None:
    signals = parse_signals(json.dumps(SIGNALS))
    assert signals.rewritten_query == "international shipping countries"
    assert signals.cited_snippets[1].snippet_index == 0
    assert signals.snippets_for(signals.answer_parts[1])[0].document_title == "Returns"
    assert signals.search_snippets[0].metadata == {"lang": "en", "rank": 1}
    assert signals.grounding_signals is not None and signals.grounding_signals.score == "VERY_HIGH"
    assert signals.safety_signals is not None
    assert signals.safety_signals.banned_phrase_match == "BANNED_PHRASE_MATCH_NONE"


def test_error_models() -> None:
    first, second, third = (parse_error(body, target="gemini") for body in GEMINI_ERRORS)
    assert isinstance(first.error, GeminiError) and first.code == "invalid_request"
    assert first.error.request_id == "20261112194236591724000xVRbpAJk"
    assert isinstance(second.error, GeminiError) and second.error.retryable is False
    assert second.error.allowed_endpoints == ("/v1beta/decisions",)
    assert (
        isinstance(third.error, GeminiError)
        and third.error.request_id == "202611121942512304710006r9sjD0r"
    )
    parallel = parse_error(json.dumps(PARALLEL_ERROR), target="parallel")
    assert (
        isinstance(parallel.error, ParallelError) and parallel.error.request_id == "<reference-id>"
    )
    assert parallel.type == "error" and parallel.code is None
    assert parallel.message == "Request validation error."


def test_unknown_members_are_warnings_and_kept() -> None:
    body = _edit(
        GEMINI_RESPONSE,
        (("model_version",), "gemini-decision-1-001"),
        ((*_NA, "reasoning"), {"steps": [1, 2]}),
        (("usage", "billed_tokens"), -324),  # unknown: not counted as a usage count
        (("usage", "input_tokens_by_modality", 0, "cached"), False),
    )
    problems = list(iter_response_problems(body, request=GEMINI_REQUEST))
    assert [(p.code, p.json_path, p.severity) for p in problems] == [
        ("response.unknown_member", "$.answers.next_action.reasoning", Severity.WARNING),
        ("response.unknown_member", "$.usage.input_tokens_by_modality[0].cached", Severity.WARNING),
        ("response.unknown_member", "$.usage.billed_tokens", Severity.WARNING),
        ("response.unknown_member", "$.model_version", Severity.WARNING),
    ]
    response = parse_response(body, request=GEMINI_REQUEST)
    assert response.warnings == tuple(problems)
    assert response.extra == {"model_version": "gemini-decision-1-001"}
    assert response.answers["next_action"].extra["reasoning"] == {"steps": (1, 2)}
    assert isinstance(response.usage, GeminiUsage)
    assert response.usage.extra == {"billed_tokens": -324}


def test_models_are_immutable() -> None:
    response = parse_response(GEMINI_RESPONSE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.target = "parallel"  # type: ignore[misc]
    with pytest.raises(TypeError):
        response.answers["x"] = RefusalAnswer()  # type: ignore[index]
    choice = response.answers["next_action"]
    assert isinstance(choice, ChoiceAnswer)
    with pytest.raises(TypeError):
        choice.probabilities["x"] = 1.0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del choice.choice


def test_helpers_ties_and_thresholds() -> None:
    tied = ChoiceAnswer(choice="b", probabilities={"b": 0.4, "a": 0.4, "c": 0.2}, confidence=0.4)
    assert tied.winner == "b"  # the reported choice stands when it is among the best
    off = ChoiceAnswer(
        choice="c", probabilities={"b": 0.4, "\u00e9": 0.4, "a": 0.1, "c": 0.1}, confidence=0.1
    )
    assert off.winner == "b"  # else the first ID in UTF-8 byte order: "b" < "\u00e9"
    assert ScoreAnswer(score=1.0, probabilities={"0": 0.4, "1": 0.2, "2": 0.4}).winner == 0
    assert ScoreAnswer(score=1.6).winner == 2  # no probabilities: the score rounded
    assert NoulAnswer(noul=0.5).is_true() and not NoulAnswer(noul=0.49).is_true()
    assert NoulAnswer(noul=0.5).winner and not NoulAnswer(noul=0.49).winner
    assert NoulAnswer(noul=0.3).is_uncertain(0.75) and not NoulAnswer(noul=0.2).is_uncertain(0.75)
    assert RefusalAnswer().is_uncertain(0.0) and RefusalAnswer().winner is None
    for bad in (-0.1, 1.5, float("nan"), "0.5", True, None):
        with pytest.raises(InvalidInput) as caught:
            NoulAnswer(noul=0.5).is_uncertain(bad)  # type: ignore[arg-type]
        assert caught.value.codes == ("response.threshold",)


def test_request_as_object_with_to_dict() -> None:
    class Emitted:
        def to_dict(self) -> dict[str, Any]:
            return copy.deepcopy(GEMINI_REQUEST)

    problems = iter_response_problems(_drop(GEMINI_RESPONSE, _CR), request=Emitted())
    assert [p.code for p in problems] == ["answer.missing"]
    assert parse_response(GEMINI_RESPONSE, request=json.dumps(GEMINI_REQUEST)).answers


def test_a_request_object_is_read_without_its_media(tmp_path: Path) -> None:
    photo = tmp_path / "photo.jpg"
    photo.write_bytes((ROOT / "testdata/media/jpeg_baseline.jpg").read_bytes())
    req = di.Request(
        target="gemini",
        model="gemini-decision-1",
        input=[di.image(photo)],
        questions={"is_defect": di.noul("Is a hardware fault described?")},
    )
    photo.unlink()  # encoding the request now fails; reading its questions must not
    problems = iter_response_problems({"answers": {}}, request=req)
    assert [(p.code, p.json_path) for p in problems] == [("answer.missing", "$.answers")]


class _Broken:
    def to_dict(self) -> dict[str, Any]:
        raise RuntimeError("cannot")


class _Angry(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("no items")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("no iteration")

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize(
    ("request_body", "path"),
    [
        pytest.param(_Broken(), "$", id="to-dict-raises"),
        pytest.param(object(), "$", id="no-to-dict"),
        pytest.param({"questions": []}, "$.questions", id="questions-array"),
        pytest.param([1], "$", id="array"),
        pytest.param(_Angry(), "$", id="unreadable-mapping"),
    ],
)
def test_unreadable_request_raises_at_once(request_body: Any, path: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        iter_response_problems(GEMINI_RESPONSE, request=request_body)
    assert [(p.code, p.json_path) for p in caught.value.problems] == [("response.request", path)]


def test_arguments_are_checked_at_once_and_body_lazily() -> None:
    with pytest.raises(InvalidInput) as caught:
        iter_response_problems(GEMINI_RESPONSE, target="openai")
    assert caught.value.codes == ("target.unknown",)
    with pytest.raises(InvalidInput):
        parse_error({}, target="gemini", limits="GEMINI")  # type: ignore[arg-type]
    problems = iter_response_problems(_Angry())
    assert inspect.isgenerator(problems)
    assert [p.code for p in problems] == ["response.type"]


def test_limits_tables() -> None:
    assert GEMINI.NOUL_RANGE == (0.01, 0.99) and PARALLEL.NOUL_RANGE == (0.0, 1.0)
    assert "refusal" in PARALLEL.ANSWER_TYPES and "refusal" not in GEMINI.ANSWER_TYPES
    wider = GEMINI.derive(NOUL_RANGE=(0.0, 1.0))
    body = _edit(GEMINI_RESPONSE, ((*_ID, "noul"), 1.0), ((*_ID, "confidence"), 1.0))
    assert [p.code for p in iter_response_problems(body)] == ["answer.noul_range"]
    assert list(iter_response_problems(body, limits=wider)) == []
    for table in (GEMINI, PARALLEL):
        shapes = shapes_for(table.TARGET)
        for shape in table.RESPONSE_REQUIRED:
            assert set(table.RESPONSE_REQUIRED[shape]) <= set(shapes[shape])


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


def _check_problems(problems: Iterator[Problem], body: Any) -> None:
    for problem in problems:
        assert problem.code in RULES, problem.code
        assert RULES[problem.code].severity is problem.severity
        if not problem.code.startswith("json.") and not isinstance(body, (str, bytes)):
            _resolve(body, problem.path)


@settings(max_examples=200, deadline=None)
@given(
    body=response_bodies,
    request_body=response_requests,
    target=st.sampled_from(["gemini", "parallel"]),
)
def test_any_response_gives_problems_never_foreign_errors(
    body: Any, request_body: Any, target: str
) -> None:
    try:
        problems = iter_response_problems(body, request=request_body, target=target)
    except InvalidInput as exc:
        assert {p.code for p in exc.problems} == {"response.request"}
        return
    _check_problems(problems, body)
    try:
        response = parse_response(body, request=request_body, target=target)
    except InvalidInput as exc:
        assert exc.problems and all(p.is_error for p in exc.problems)
    except di.APIError as exc:
        assert exc.error is not None or any(p.is_error for p in exc.problems)
        _assert_round_trip(exc.error, _loaded(body))
    else:
        assert isinstance(response, DecisionResponse)
        response.uncertain(0.5)
        _assert_round_trip(response, _loaded(body))


def _assert_round_trip(model: Any, body: Any) -> None:
    """A parsed body comes back from to_dict() as it was, and pickles to an equal model."""
    if model is None:
        return
    assert model.to_dict() == body
    assert pickle.loads(pickle.dumps(model)) == model


@settings(max_examples=100, deadline=None)
@given(
    text=st.one_of(st.text(max_size=40), st.binary(max_size=40), response_bodies.map(json.dumps))
)
def test_any_text_never_raises_foreign_errors(text: str | bytes) -> None:
    for target in ("gemini", "parallel"):
        with contextlib.suppress(DecisionsInputError):
            parse_response(text, target=target)
        list(iter_response_problems(text, target=target))


@settings(max_examples=100, deadline=None)
@given(body=signals_bodies)
def test_any_signals_never_raise_foreign_errors(body: Any) -> None:
    _check_problems(iter_signals_problems(body), body)
    with contextlib.suppress(DecisionsInputError):
        _assert_round_trip(parse_signals(body), body)


@settings(max_examples=100, deadline=None)
@given(body=error_bodies, target=st.sampled_from(["gemini", "parallel"]))
def test_any_error_body_never_raises_foreign_errors(body: Any, target: str) -> None:
    _check_problems(iter_error_problems(body, target=target), body)
    with contextlib.suppress(DecisionsInputError):
        _assert_round_trip(parse_error(body, target=target), body)
    with contextlib.suppress(DecisionsInputError):
        _assert_round_trip(parse_error(body), body)


def _score_response(probabilities: dict[str, float], score: float) -> dict[str, object]:
    return {
        "answers": {
            "s": {
                "type": "score",
                "score": score,
                "probabilities": probabilities,
                "legend": {k: f"level {k}" for k in probabilities},
                "confidence": max(probabilities.values()),
            }
        }
    }


TEN = {str(i): 0.0 for i in range(9)} | {"9": 1.0}
SCORE_MEANS = {
    # A printed 1.00 on level 9 means at least 0.995 there: the mean is at least 8.955.
    "ten-levels-exact": (TEN, 9.0, []),
    "ten-levels-rounding": (TEN, 8.96, []),
    "ten-levels-off": (TEN, 8.8, ["answer.score_mean"]),
    "seed-example": ({"0": 0, "1": 0, "2": 0.01, "3": 0.99}, 2.99, []),
    "seed-example-off": ({"0": 0, "1": 0, "2": 0.01, "3": 0.99}, 2.5, ["answer.score_mean"]),
}


@pytest.mark.parametrize(("probabilities", "score", "codes"), SCORE_MEANS.values(), ids=SCORE_MEANS)
def test_score_mean_within_printed_rounding(
    probabilities: dict[str, float], score: float, codes: list[str]
) -> None:
    found = [p.code for p in di.iter_response_problems(_score_response(probabilities, score))]
    assert [c for c in found if c == "answer.score_mean"] == codes


def test_a_huge_level_index_is_a_problem_not_an_overflow() -> None:
    body = _score_response({"0": 0.5, "9" * 400: 0.5}, 1)
    codes = [p.code for p in di.iter_response_problems(body)]
    assert "answer.probability_keys" in codes
