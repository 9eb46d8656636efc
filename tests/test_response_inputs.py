"""Responses in any form a client holds: HTTP responses, pydantic models, error bodies."""

from __future__ import annotations

import contextlib
import json
from io import StringIO
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

import decisions_input as di
from decisions_input.cli import main
from decisions_input.errors import DecisionsInputError, InvalidInput
from decisions_input.responses import (
    GeminiError,
    ParallelError,
    iter_error_problems,
    iter_response_problems,
    parse_error,
    parse_response,
)
from decisions_input.responses.error_bodies import body_target
from tests.response_examples import (
    GEMINI_ERRORS,
    GEMINI_REQUEST,
    GEMINI_RESPONSE,
    PARALLEL_ERROR,
    PARALLEL_RESPONSE,
)
from tests.strategies import error_bodies, response_bodies


def _requests_response(status: int, content: bytes) -> requests.Response:
    """A requests.Response as its adapters fill one in."""
    response = requests.Response()
    response.status_code = status
    response._content = content
    return response


class _Reply:
    """The least an HTTP response needs: its body in ``content`` and a ``status``."""

    def __init__(self, status: object, content: object) -> None:
        self.status = status
        self.content = content


_GEMINI_TEXT = json.dumps(GEMINI_RESPONSE).encode()

# (body, target): each reads as the seed response it holds, with no problem at all.
DECISIONS = [
    pytest.param(httpx.Response(200, json=GEMINI_RESPONSE), "gemini", id="httpx"),
    pytest.param(httpx.Response(200, content=_GEMINI_TEXT), "gemini", id="httpx-bytes"),
    pytest.param(_requests_response(200, _GEMINI_TEXT), "gemini", id="requests"),
    pytest.param(_Reply(200, _GEMINI_TEXT), "gemini", id="duck-status"),
    pytest.param(_Reply(None, _GEMINI_TEXT.decode()), "gemini", id="duck-text-no-status"),
    pytest.param(httpx.Response(200, json=PARALLEL_RESPONSE), "parallel", id="httpx-parallel"),
]


@pytest.mark.parametrize(("body", "target"), DECISIONS)
def test_http_responses_read_as_their_body(body: Any, target: str) -> None:
    assert list(iter_response_problems(body, target=target)) == []
    expected = GEMINI_RESPONSE if target == "gemini" else PARALLEL_RESPONSE
    assert parse_response(body, target=target).to_dict() == expected


class _Verdict(BaseModel):
    """A caller's own model with wire names of its own, as an SDK defines them."""

    model_config = ConfigDict(populate_by_name=True)

    kind: str = Field(default="noul", alias="type")
    noul: float
    confidence: float | None = None


class _Reply200(BaseModel):
    answers: dict[str, _Verdict]
    prompt_feedback: dict[str, str] | None = None


def test_any_pydantic_model_is_read_by_wire_names_and_only_what_was_set() -> None:
    model = _Reply200(answers={"q": _Verdict(kind="noul", noul=0.8, confidence=0.8)})
    response = parse_response(model)
    # prompt_feedback was never set, so it is not read as a null prompt_feedback
    assert response.to_dict() == {
        "answers": {"q": {"type": "noul", "noul": 0.8, "confidence": 0.8}}
    }
    assert response.noul("q").winner is True


# (body, target or None, status, code, request_id, message in the text)
ERRORS = [
    pytest.param(
        httpx.Response(400, json=GEMINI_ERRORS[0]),
        "gemini",
        400,
        "invalid_request",
        "20261112194236591724000xVRbpAJk",
        "Unknown question type.",
        id="httpx-400",
    ),
    pytest.param(
        _requests_response(404, json.dumps(GEMINI_ERRORS[1]).encode()),
        None,
        404,
        "model_endpoint_mismatch",
        "20261112194245600264000oIU8uBcu",
        "Wrong endpoint.",
        id="requests-404",
    ),
    pytest.param(
        httpx.Response(422, json=PARALLEL_ERROR),
        "parallel",
        422,
        None,
        "<reference-id>",
        "Request validation error.",
        id="parallel-422",
    ),
    pytest.param(
        PARALLEL_ERROR, None, None, None, "<reference-id>", "Request validation error.", id="shape"
    ),
    pytest.param(
        json.dumps(GEMINI_ERRORS[2]),
        None,
        None,
        "unauthorized",
        "202611121942512304710006r9sjD0r",
        "No key given",
        id="shape-text",
    ),
]


@pytest.mark.parametrize(("body", "target", "status", "code", "request_id", "said"), ERRORS)
def test_an_error_body_raises_with_what_the_api_said(
    body: Any, target: str | None, status: int | None, code: str | None, request_id: str, said: str
) -> None:
    with pytest.raises(di.APIError) as caught:
        parse_response(body, target=target)
    error = caught.value
    assert (error.status, error.code, error.request_id) == (status, code, request_id)
    assert error.message is not None and said in error.message and said in str(error)
    assert error.error is not None and error.error.status == status
    assert error.error == parse_error(body, target=target)
    assert isinstance(error.error.error, GeminiError if code else ParallelError)
    problems = list(iter_response_problems(body, target=target))
    assert [(p.code, p.json_path) for p in problems] == [("response.error_body", "$")]
    assert said[:20] in problems[0].message


def _without(body: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in names}


# (body, the target its shape names): a decision says whose it is without a target.
SHAPES = [
    pytest.param(GEMINI_RESPONSE, "gemini", id="gemini"),
    pytest.param(PARALLEL_RESPONSE, "parallel", id="parallel"),
    pytest.param(
        _without(PARALLEL_RESPONSE, "mode", "citations", "decision_id"),
        "parallel",
        id="parallel-by-usage-alone",
    ),
    pytest.param(
        {**GEMINI_RESPONSE, "decision_id": "d"}, "parallel", id="gemini-with-a-decision-id"
    ),
    pytest.param(PARALLEL_ERROR, "parallel", id="parallel-error"),
    pytest.param(GEMINI_ERRORS[0], "gemini", id="gemini-error"),
    pytest.param({"answers": {}}, "gemini", id="bare"),
    pytest.param([], "gemini", id="not-an-object"),
]


@pytest.mark.parametrize(("body", "target"), SHAPES)
def test_a_body_without_a_target_is_read_by_its_shape(body: Any, target: str) -> None:
    assert body_target(body) == target


@pytest.mark.parametrize(
    ("body", "target"),
    [(GEMINI_RESPONSE, "gemini"), (PARALLEL_RESPONSE, "parallel")],
    ids=["gemini", "parallel"],
)
def test_a_decision_checks_clean_with_no_target_given(body: Any, target: str) -> None:
    assert list(iter_response_problems(body)) == []
    assert parse_response(json.dumps(body)).target == target


def test_a_target_given_overrides_the_shape() -> None:
    problems = list(iter_response_problems(PARALLEL_RESPONSE, target="gemini"))
    assert ("response.unknown_member", "$.decision_id") in [(p.code, p.json_path) for p in problems]


def test_parse_error_needs_no_target() -> None:
    assert parse_error(PARALLEL_ERROR).target == "parallel"
    assert parse_error(GEMINI_ERRORS[0]).target == "gemini"
    assert list(iter_error_problems(json.dumps(PARALLEL_ERROR))) == []


def test_an_error_status_with_a_body_that_is_no_error_body() -> None:
    page = httpx.Response(502, content=b"<html>Bad gateway</html>")
    with pytest.raises(di.APIError) as caught:
        parse_response(page)
    assert caught.value.error is None and caught.value.status == 502
    assert [p.code for p in caught.value.problems] == ["json.syntax"]
    assert str(caught.value).startswith("HTTP 502: ")
    problems = list(iter_response_problems(page))
    assert [(p.code, p.json_path) for p in problems] == [
        ("response.error_body", "$"),
        ("json.syntax", "$"),
    ]


def test_the_status_decides_over_the_shape() -> None:
    ok = httpx.Response(200, json=GEMINI_ERRORS[0])
    codes = [(p.code, p.json_path) for p in iter_response_problems(ok)]
    assert codes == [("response.required", "$"), ("response.unknown_member", "$.error")]
    with pytest.raises(InvalidInput):
        parse_response(ok)


# (body, (code, json_path))
UNREADABLE = [
    pytest.param(
        httpx.Response(200, stream=httpx.ByteStream(_GEMINI_TEXT)),
        ("response.type", "$"),
        id="httpx-stream-not-read",
    ),
    pytest.param(_Reply(200, 42), ("response.type", "$"), id="content-not-bytes"),
    pytest.param(object(), ("response.type", "$"), id="object"),
]


@pytest.mark.parametrize(("body", "expected"), UNREADABLE)
def test_unreadable_objects_are_problems(body: Any, expected: tuple[str, str]) -> None:
    problems = list(iter_response_problems(body))
    assert [(p.code, p.json_path) for p in problems] == [expected]
    with pytest.raises(InvalidInput):
        parse_response(body)


def test_check_response_reports_an_error_body(tmp_path: Path) -> None:
    path = tmp_path / "error.json"
    path.write_text(json.dumps(GEMINI_ERRORS[1], indent=2))
    request = tmp_path / "request.json"
    request.write_text(json.dumps(GEMINI_REQUEST))
    out, err = StringIO(), StringIO()
    status = main(
        ["check-response", str(path), "--request", str(request), "--format", "json"],
        stdout=out,
        stderr=err,
    )
    assert status == 1 and err.getvalue() == ""
    report = json.loads(out.getvalue())
    found = [(p["code"], p["json_path"]) for p in report["problems"]]
    assert found == [("response.error_body", "$")]


_statuses = st.one_of(st.none(), st.integers(100, 599), st.sampled_from([True, -1, 1000, "200"]))


@settings(max_examples=100, deadline=None)
@given(body=st.one_of(response_bodies, error_bodies), status=_statuses, as_text=st.booleans())
def test_any_http_response_gives_only_our_errors(body: Any, status: object, as_text: bool) -> None:
    try:
        content: object = json.dumps(body).encode() if as_text else body
    except (TypeError, ValueError):
        content = b"{"
    reply = _Reply(status, content)
    for problem in iter_response_problems(reply):
        assert problem.code in di.RULES and problem.code != "internal.error"
    with contextlib.suppress(DecisionsInputError):
        parse_response(reply)
    with contextlib.suppress(DecisionsInputError):
        parse_error(reply)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            {"error": {}}, [("response.required", "$.error", "error")], id="gemini-no-message"
        ),
        pytest.param({"error": {"message": "Bad model."}}, [], id="gemini-message"),
        pytest.param(
            {"type": "error", "error": {"ref_id": "r"}},
            [("response.required", "$.error", "error")],
            id="parallel-no-message",
        ),
    ],
)
def test_an_error_body_carries_its_message(body: Any, expected: list[tuple[str, str, str]]) -> None:
    found = [(p.code, p.json_path, p.severity.value) for p in iter_error_problems(body)]
    assert found == expected
