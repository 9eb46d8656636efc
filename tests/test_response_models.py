"""Response models: what was parsed comes back out, pickles, compares, and reads typed."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings

import decisions_input as di
from decisions_input.errors import InvalidInput
from decisions_input.responses import (
    ChoiceAnswer,
    DataStoreConnectionSignals,
    DecisionResponse,
    ErrorBody,
    NoulAnswer,
    RefusalAnswer,
    ScoreAnswer,
    parse_error,
    parse_response,
    parse_signals,
)
from tests.optional import NEEDS_SDK
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
from tests.strategies import valid_responses

# Every seed body, with unknown members added where APIs might add them.
_WITH_UNKNOWN = copy.deepcopy(GEMINI_RESPONSE)
_WITH_UNKNOWN["model_version"] = "gemini-decision-1-001"
_WITH_UNKNOWN["answers"]["next_action"]["reasoning"] = {"steps": [1, 2.5, None]}
_WITH_UNKNOWN["usage"]["input_tokens_by_modality"][0]["cached"] = False
_PARALLEL_WITH_UNKNOWN = copy.deepcopy(PARALLEL_RESPONSE)
_PARALLEL_WITH_UNKNOWN["prompt_feedback"] = {"block_reason": "safety"}  # Gemini's, unknown here
_PARALLEL_WITH_UNKNOWN["answers"]["has_cli"]["confidence"] = 0.99  # no noul confidence in 002

# (what, target, body)
SEED_BODIES = [
    pytest.param("response", "gemini", GEMINI_RESPONSE, id="003-multiple"),
    pytest.param(
        "response", "gemini", {**GEMINI_RESPONSE, "usage": GEMINI_FULL_USAGE}, id="000-usage"
    ),
    pytest.param("response", "gemini", GEMINI_BLOCKED, id="blocked"),
    pytest.param(
        "response", "gemini", {"prompt_feedback": {"block_reason": "other"}}, id="blocked-bare"
    ),
    pytest.param("response", "gemini", _WITH_UNKNOWN, id="unknown-members"),
    pytest.param("response", "parallel", PARALLEL_RESPONSE, id="002-live"),
    pytest.param("response", "parallel", _PARALLEL_WITH_UNKNOWN, id="002-other-targets-members"),
    pytest.param(
        "response",
        "parallel",
        {**PARALLEL_RESPONSE, "answers": {"has_cli": {"type": "refusal"}}},
        id="002-refusal",
    ),
    pytest.param("error", "gemini", GEMINI_ERRORS[0], id="003-error-400"),
    pytest.param("error", "gemini", GEMINI_ERRORS[1], id="003-error-endpoint"),
    pytest.param("error", "gemini", GEMINI_ERRORS[2], id="003-error-401"),
    pytest.param("error", "parallel", PARALLEL_ERROR, id="002-error-422"),
    pytest.param(
        "error",
        "parallel",
        {**PARALLEL_ERROR, "error": {**PARALLEL_ERROR["error"], "detail": {"field": ["state"]}}},
        id="002-error-detail",
    ),
    pytest.param("signals", "gemini", SIGNALS, id="001-signals"),
]


def _parse(what: str, target: str, body: Any) -> di.DecisionResponse | ErrorBody | Any:
    if what == "response":
        return parse_response(body, target=target)
    if what == "error":
        return parse_error(body, target=target)
    return parse_signals(body)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(("what", "target", "body"), SEED_BODIES)
def test_to_dict_gives_back_the_body(what: str, target: str, body: Any) -> None:
    parsed = _parse(what, target, body)
    assert parsed.to_dict() == body
    # exactly: integers stay integers, nothing is added or dropped
    assert _canonical(parsed.to_dict()) == _canonical(body)
    assert parsed.to_json() == _canonical(body)
    assert json.loads(parsed.model_dump_json(by_alias=True, exclude_unset=True)) == body


@pytest.mark.parametrize(("what", "target", "body"), SEED_BODIES)
def test_pickles_and_parses_again_equal(what: str, target: str, body: Any) -> None:
    parsed = _parse(what, target, body)
    again = pickle.loads(pickle.dumps(parsed))
    assert again == parsed and again.warnings == parsed.warnings
    assert again.target == parsed.target == target
    assert _parse(what, target, parsed) == parsed  # a parsed model is a body too
    assert _parse(what, target, parsed.to_json()) == parsed
    assert copy.deepcopy(parsed) == parsed


@pytest.mark.parametrize(("what", "target", "body"), SEED_BODIES)
def test_pydantic_validation_of_to_dict_round_trips(what: str, target: str, body: Any) -> None:
    parsed = _parse(what, target, body)
    validated = type(parsed).model_validate(parsed.to_dict())
    assert validated.to_dict() == body


def test_unknown_members_of_another_target_stay_unknown() -> None:
    response = parse_response(_PARALLEL_WITH_UNKNOWN, target="parallel")
    assert [(p.code, p.json_path) for p in response.warnings] == [
        ("response.unknown_member", "$.answers.has_cli.confidence"),
        ("response.unknown_member", "$.prompt_feedback"),
    ]
    assert response.prompt_feedback is None and not response.blocked
    assert response.extra == {"prompt_feedback": {"block_reason": "safety"}}
    answer = response.noul("has_cli")
    assert answer.confidence is None and answer.extra == {"confidence": 0.99}


RESPONSE_SCHEMAS = [
    pytest.param(DecisionResponse, GEMINI_RESPONSE, id="gemini-response"),
    pytest.param(DecisionResponse, PARALLEL_RESPONSE, id="parallel-response"),
    pytest.param(ErrorBody, GEMINI_ERRORS[1], id="gemini-error"),
    pytest.param(ErrorBody, PARALLEL_ERROR, id="parallel-error"),
    pytest.param(DataStoreConnectionSignals, SIGNALS, id="signals"),
]


@pytest.mark.parametrize(("model", "body"), RESPONSE_SCHEMAS)
def test_json_schema_accepts_the_seed_bodies(model: type[di.DecisionResponse], body: Any) -> None:
    schema = model.model_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(body)


def test_json_schema_refuses_a_wrongly_typed_answer() -> None:
    schema = DecisionResponse.model_json_schema()
    body = copy.deepcopy(GEMINI_RESPONSE)
    body["answers"]["is_defect"]["noul"] = "high"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(body)


def test_models_are_read_only_all_the_way_down() -> None:
    response = parse_response(_WITH_UNKNOWN)
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.usage = None  # type: ignore[misc]
    reasoning = response.choice("next_action").extra["reasoning"]
    assert reasoning == {"steps": (1, 2.5, None)}
    with pytest.raises(TypeError):
        reasoning["steps"] = []  # type: ignore[index]
    with pytest.raises(TypeError):
        response.extra.clear()  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        response.answers.pop("is_defect")  # type: ignore[attr-defined]
    changed = response.model_copy(update={"prompt_feedback": None})
    assert changed == response  # model_copy still makes changed copies


# (answer, winner, certainty)
ACCESSORS = [
    pytest.param(NoulAnswer(noul=0.94, confidence=0.94), True, 0.94, id="noul-yes"),
    pytest.param(NoulAnswer(noul=0.3), False, 0.7, id="noul-no-confidence"),
    pytest.param(
        ChoiceAnswer(choice="b", probabilities={"a": 0.25, "b": 0.75}, confidence=0.75),
        "b",
        0.75,
        id="choice",
    ),
    pytest.param(
        ScoreAnswer(score=2.99, probabilities={"0": 0, "1": 0, "2": 0.01, "3": 0.99}),
        3,
        0.99,
        id="score",
    ),
    pytest.param(RefusalAnswer(), None, None, id="refusal"),
]


@pytest.mark.parametrize(("answer", "winner", "certainty"), ACCESSORS)
def test_every_answer_has_a_winner_and_a_certainty(
    answer: di.Answer, winner: object, certainty: float | None
) -> None:
    assert answer.winner == winner and type(answer.winner) is type(winner)
    assert answer.certainty == (None if certainty is None else pytest.approx(certainty))
    assert answer.is_uncertain(0.99) is (certainty is None or certainty < 0.99)


def test_typed_getters() -> None:
    response = parse_response(GEMINI_RESPONSE, request=GEMINI_REQUEST)
    assert response.noul("is_defect").winner is True
    assert response.choice("next_action").winner == "human_escalation"
    assert response.score("churn_risk").winner == 3
    assert response.input_tokens == 324
    parallel = parse_response(PARALLEL_RESPONSE, request=PARALLEL_REQUEST, target="parallel")
    assert parallel.input_tokens == 4212


# (target, body, getter, key, (code, json_path))
GETTER_ERRORS = [
    pytest.param(
        "gemini",
        GEMINI_RESPONSE,
        "choice",
        "is_defect",
        ("answer.type_mismatch", "$.answers.is_defect.type"),
        id="wrong-type",
    ),
    pytest.param(
        "gemini", GEMINI_RESPONSE, "score", "nope", ("answer.missing", "$.answers"), id="missing"
    ),
    pytest.param(
        "gemini", GEMINI_BLOCKED, "noul", "is_defect", ("answer.missing", "$.answers"), id="blocked"
    ),
    pytest.param(
        "parallel",
        {**PARALLEL_RESPONSE, "answers": {"has_cli": {"type": "refusal"}}},
        "noul",
        "has_cli",
        ("answer.type_mismatch", "$.answers.has_cli.type"),
        id="refused",
    ),
]


@pytest.mark.parametrize(("target", "body", "getter", "key", "expected"), GETTER_ERRORS)
def test_typed_getter_errors(
    target: str, body: Any, getter: str, key: str, expected: tuple[str, str]
) -> None:
    response = parse_response(body, target=target)
    with pytest.raises(InvalidInput) as caught:
        getattr(response, getter)(key)
    assert [(p.code, p.json_path) for p in caught.value.problems] == [expected]


@NEEDS_SDK
def test_the_official_sdk_model_reads_and_round_trips() -> None:
    from google.genai import decisions as sdk

    sdk_response = sdk.CreateDecisionResponse.model_validate(_WITH_UNKNOWN)
    problems = list(di.iter_response_problems(sdk_response, request=GEMINI_REQUEST))
    assert [(p.code, p.json_path) for p in problems] == [
        ("response.unknown_member", "$.answers.next_action.reasoning"),
        ("response.unknown_member", "$.usage.input_tokens_by_modality[0].cached"),
        ("response.unknown_member", "$.model_version"),
    ]
    response = parse_response(sdk_response, request=GEMINI_REQUEST)
    assert response.to_dict() == _WITH_UNKNOWN  # the SDK keeps unknown members as extras
    assert sdk.CreateDecisionResponse.model_validate(response.to_dict()) == sdk_response


@NEEDS_SDK
def test_an_answer_the_sdk_does_not_know_is_checked_as_sent() -> None:
    from google.genai import decisions as sdk

    body = {"answers": {"q": {"type": "ranking", "order": ["a", "b"]}}}
    problems = list(di.iter_response_problems(sdk.CreateDecisionResponse.model_validate(body)))
    assert [(p.code, p.json_path) for p in problems] == [
        ("answer.type_unknown", "$.answers.q.type")
    ]


def test_api_error_pickles_with_its_error() -> None:
    with pytest.raises(di.APIError) as caught:
        parse_response(GEMINI_ERRORS[1])
    again = pickle.loads(pickle.dumps(caught.value))
    assert again.error == caught.value.error and again.status is None
    assert str(again) == str(caught.value)
    assert again.code == "model_endpoint_mismatch"


@settings(max_examples=60, deadline=None)
@given(body=valid_responses("gemini"))
def test_any_gemini_response_round_trips(body: dict[str, Any]) -> None:
    _round_trip(body, "gemini")


@settings(max_examples=60, deadline=None)
@given(body=valid_responses("parallel"))
def test_any_parallel_response_round_trips(body: dict[str, Any]) -> None:
    _round_trip(body, "parallel")


def _round_trip(body: dict[str, Any], target: str) -> None:
    parsed = parse_response(body, target=target)
    assert _canonical(parsed.to_dict()) == _canonical(body)
    again = pickle.loads(pickle.dumps(parsed))
    assert again == parsed and again.warnings == parsed.warnings
    assert parse_response(parsed, target=target) == parsed
    assert parse_response(parsed.to_json(), target=target) == parsed
    assert json.loads(parsed.model_dump_json(by_alias=True, exclude_unset=True)) == body


TESTDATA = Path(__file__).parent.parent / "testdata"

# (response file, the request file it answers or None, target)
RESPONSE_FILES = [
    pytest.param("gemini-multiple.json", "gemini-multiple.json", "gemini", id="gemini-multiple"),
    pytest.param("parallel-basic.json", "parallel-basic.json", "parallel", id="parallel-basic"),
    pytest.param("ticket.json", None, "gemini", id="ticket"),
]
# (error file, the API it is from)
ERROR_FILES = [
    pytest.param("gemini-error-404.json", "gemini", id="gemini-404"),
    pytest.param("parallel-error-422.json", "parallel", id="parallel-422"),
]


@pytest.mark.parametrize(("name", "request_name", "target"), RESPONSE_FILES)
def test_response_files_parse_clean_and_round_trip(
    name: str, request_name: str | None, target: str
) -> None:
    text = (TESTDATA / "responses" / name).read_bytes()
    request = None if request_name is None else (TESTDATA / "requests" / request_name).read_bytes()
    response = parse_response(text, request=request, target=target)
    assert response.warnings == ()
    assert response.to_dict() == json.loads(text)


@pytest.mark.parametrize(("name", "target"), ERROR_FILES)
def test_error_files_raise_and_say_whose_they_are(name: str, target: str) -> None:
    text = (TESTDATA / "responses" / name).read_bytes()
    with pytest.raises(di.APIError) as caught:
        parse_response(text)
    assert caught.value.error is not None and caught.value.error.target == target
    assert caught.value.error.to_dict() == json.loads(text)
    assert parse_error(text) == caught.value.error
