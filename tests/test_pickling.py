"""Every public value crosses a process boundary: it pickles and comes back equal.

A request comes back emitting the same bytes; a block built from a path comes back as the
path and what was checked, and refuses a file that changed since; a block built from a
file object refuses to pickle, saying why; exceptions come back with what they carry.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import multiprocessing
import os
import pickle
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input import responses
from decisions_input.responses import ResponseModel, parse_error, parse_response, parse_signals
from decisions_input.sources import RemoteCheck, RemoteError, RemoteHead, SourceTooLarge
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
from tests.strategies import built_blocks, built_questions, built_requests, rule_problems

MEDIA = Path(__file__).parent.parent / "testdata" / "media"
PROTOCOLS = sorted({2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL})
_QUESTIONS = {"q": di.noul("Is it?")}

NOTES = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="exception notes are new in Python 3.11"
)


def _request() -> di.Request:
    return di.Request(
        model="gemini-decision-1",
        input=[
            di.text("Héllo, the photo and the recording: "),
            di.image(MEDIA / "jpeg_baseline.jpg", resolution="low"),
            di.audio((MEDIA / "wav_pcm16.wav").read_bytes()),
            di.document(memoryview((MEDIA / "pdf_minimal.pdf").read_bytes())),
            di.video(uri="https://example.com/clip.mp4", mime_type="video/mp4"),
        ],
        questions={
            "yes": di.noul("Is it?", true_description="It is.", false_description="It is not."),
            "pick": di.choice("Which?", {"b": "Bee.", "a": "", "ä": "Umlaut."}),
            "level": di.score([di.text("How much?"), di.text(" Say.")], ["None", "Some", "All"]),
        },
    )


def _parallel_request() -> di.Request:
    return di.Request(
        target="parallel",
        state={"company": "Clay", "n": [1, 2.5, None, True]},
        questions={"has_cli": di.noul("Does it have a command line tool?")},
        mode="fast",
    )


def _gemini_response() -> Any:
    return parse_response(GEMINI_RESPONSE, request=GEMINI_REQUEST)


def _refusal() -> Any:
    body = {**PARALLEL_RESPONSE, "answers": {"has_cli": {"type": "refusal"}}}
    return parse_response(body, request=PARALLEL_REQUEST, target="parallel").answers["has_cli"]


def _derived() -> di.Limits:
    return di.GEMINI.derive(
        MODELS=di.GEMINI.MODELS | {"gemini-decision-2"},
        MIME_TYPES={**di.GEMINI.MIME_TYPES, "image": ("image/png",)},
    )


# (id, a function that makes the value): every public value the library hands out.
VALUES: list[Any] = [
    pytest.param(lambda: di.text("plain ✓"), id="text-block"),
    pytest.param(lambda: di.noul("Is it?"), id="noul"),
    pytest.param(lambda: di.noul("Is it?", true_description="Yes."), id="noul-described"),
    pytest.param(lambda: di.choice("Which?", {"z": "Zed.", "a": ""}), id="choice-mapping"),
    pytest.param(lambda: di.choice("Which?", ["other", "billing"]), id="choice-list"),
    pytest.param(lambda: di.score(di.text("How?"), ["Low", "High"]), id="score-text-block"),
    pytest.param(
        lambda: di.choice("Which?", {"none_of_the_above": "", "a": ""}), id="question-warned"
    ),
    pytest.param(lambda: di.image(MEDIA / "jpeg_baseline.jpg"), id="image-path"),
    pytest.param(lambda: di.image(str(MEDIA / "png_pillow.png")), id="image-path-str"),
    pytest.param(lambda: di.audio((MEDIA / "wav_pcm16.wav").read_bytes()), id="audio-bytes"),
    pytest.param(
        lambda: di.video(memoryview((MEDIA / "mp4_h264.mp4").read_bytes())), id="video-view"
    ),
    pytest.param(lambda: di.document(MEDIA / "pdf_pypdf_three_pages.pdf"), id="pdf-path"),
    pytest.param(lambda: di.media(MEDIA / "mp3_id3v2.mp3"), id="media-path"),
    pytest.param(
        lambda: di.image(uri="https://example.com/a.png", mime_type="image/png"), id="image-uri"
    ),
    pytest.param(_request, id="request-gemini"),
    pytest.param(_parallel_request, id="request-parallel"),
    pytest.param(
        lambda: di.Request(
            model="gemini-decision-2", input="x", questions=_QUESTIONS, limits=_derived()
        ),
        id="request-derived-table",
    ),
    pytest.param(lambda: _request().http(api_key="k-1"), id="http-request"),
    pytest.param(lambda: _parallel_request().http(chunk_bytes=30), id="http-request-parallel"),
    pytest.param(lambda: di.estimate(_request()), id="estimate"),
    pytest.param(lambda: di.estimate(_request()).blocks[1], id="block-estimate"),
    pytest.param(lambda: di.estimate(_request()).total, id="tokens"),
    pytest.param(lambda: di.estimate(GEMINI_REQUEST, target="gemini"), id="estimate-of-body"),
    pytest.param(lambda: di.Problem(("input", 2, "data"), "mime.mismatch", "m"), id="problem"),
    pytest.param(
        lambda: di.Problem((), "uri.scheme_case", "m", di.Severity.WARNING), id="problem-warning"
    ),
    pytest.param(lambda: di.Severity.WARNING, id="severity"),
    pytest.param(lambda: di.GEMINI, id="limits-gemini"),
    pytest.param(lambda: di.PARALLEL, id="limits-parallel"),
    pytest.param(_derived, id="limits-derived"),
    pytest.param(lambda: di.GEMINI.ENDPOINTS["google"], id="endpoint"),
    pytest.param(lambda: di.RULES["mime.mismatch"], id="rule"),
    pytest.param(lambda: RemoteCheck(timeout=2.0, allow_hosts=frozenset({"a"})), id="remote-check"),
    pytest.param(
        lambda: RemoteHead("https://example.com/a", 206, 10, b"\x89PNG", "image/png"),
        id="remote-head",
    ),
    pytest.param(lambda: di.sniff(MEDIA / "mp4_h264.mp4"), id="detected"),
    pytest.param(lambda: di.sniff(MEDIA / "jpeg_no_eoi.jpg"), id="detected-with-warning"),
    pytest.param(lambda: di.sniff(MEDIA / "empty.bin"), id="detected-refused"),
    pytest.param(_gemini_response, id="response-gemini"),
    pytest.param(
        lambda: parse_response(PARALLEL_RESPONSE, request=PARALLEL_REQUEST, target="parallel"),
        id="response-parallel",
    ),
    pytest.param(lambda: _gemini_response().noul("is_defect"), id="answer-noul"),
    pytest.param(lambda: _gemini_response().choice("next_action"), id="answer-choice"),
    pytest.param(lambda: _gemini_response().score("churn_risk"), id="answer-score"),
    pytest.param(_refusal, id="answer-refusal"),
    pytest.param(lambda: parse_error(PARALLEL_ERROR), id="error-body"),
    pytest.param(lambda: parse_signals(SIGNALS), id="signals"),
]


def _again(value: Any, protocol: int) -> Any:
    return pickle.loads(pickle.dumps(value, protocol=protocol))


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("make", VALUES)
def test_public_value_pickles_equal(make: Callable[[], Any], protocol: int) -> None:
    value = make()
    again = _again(value, protocol)
    assert type(again) is type(value)
    assert again == value
    assert copy.deepcopy(value) == value


@pytest.mark.parametrize("make", [_request, _parallel_request])
def test_request_pickles_to_the_same_bytes(make: Callable[[], di.Request]) -> None:
    req = make()
    again = _again(req, pickle.HIGHEST_PROTOCOL)
    assert again.dumps() == req.dumps()
    assert again.content_length == req.content_length
    assert again.warnings == req.warnings
    assert again.limits == req.limits and again.target == req.target
    assert again.media == req.media


def test_http_request_pickles_with_its_body() -> None:
    req = _request()
    call = req.http(api_key="k-1", chunk_bytes=300)
    again = _again(call, pickle.HIGHEST_PROTOCOL)
    assert list(again.content) == list(call.content)
    assert b"".join(again.content) == req.dumps().encode()
    assert dict(again.headers) == dict(call.headers) and again.auth_header == "x-goog-api-key"


def test_target_tables_come_back_as_themselves() -> None:
    assert _again(di.GEMINI, 2) is di.GEMINI
    assert _again(di.PARALLEL, pickle.HIGHEST_PROTOCOL) is di.PARALLEL
    derived = _again(_derived(), pickle.HIGHEST_PROTOCOL)
    assert derived is not di.GEMINI and "gemini-decision-2" in derived.MODELS
    assert repr(derived) == "<Limits gemini, derived: MODELS, MIME_TYPES>"
    with pytest.raises(TypeError):  # the tables it kept are still read-only
        derived.ENDPOINTS["mine"] = derived.ENDPOINTS["google"]  # type: ignore[index]
    assert type(derived.MIME_TYPES) is dict  # and the one given as a dict is still one


def test_question_options_stay_read_only_and_in_order() -> None:
    question = _again(di.choice("Which?", {"ä": "", "b": "", "a": ""}), 2)
    assert list(question.to_json()["criteria"]) == ["a", "b", "ä"]
    with pytest.raises(TypeError):
        question.criteria["c"] = ""  # type: ignore[index]


def _models(value: Any) -> Iterator[ResponseModel]:
    """Every response model in a parsed value, the value itself included."""
    if isinstance(value, ResponseModel):
        yield value
        for name in type(value).model_fields:
            yield from _models(getattr(value, name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _models(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _models(item)


def test_every_response_model_pickles_equal() -> None:
    parsed = [
        _gemini_response(),
        parse_response({**GEMINI_RESPONSE, "usage": GEMINI_FULL_USAGE}, request=GEMINI_REQUEST),
        parse_response(GEMINI_BLOCKED),
        parse_response(PARALLEL_RESPONSE, request=PARALLEL_REQUEST, target="parallel"),
        _refusal(),
        parse_error(PARALLEL_ERROR),
        parse_error(GEMINI_ERRORS[1]),
        parse_signals(SIGNALS),
    ]
    found = [model for value in parsed for model in _models(value)]
    public = {getattr(responses, name) for name in responses.__all__}
    models = {kind for kind in public if isinstance(kind, type) and issubclass(kind, ResponseModel)}
    assert {type(model) for model in found} == models - {ResponseModel}
    for model in found:
        again = _again(model, pickle.HIGHEST_PROTOCOL)
        assert type(again) is type(model) and again == model
        assert again.to_dict() == model.to_dict()


# --- blocks built from a path, bytes or a file object ------------------------------------------


def test_path_block_is_the_path_and_what_was_checked(tmp_path: Path) -> None:
    file = tmp_path / "take.aiff"
    shutil.copyfile(MEDIA / "aiff_pcm.aiff", file)
    block = di.audio(file)
    data = pickle.dumps(block)
    assert str(file).encode() in data
    assert len(data) < file.stat().st_size // 10  # the bytes stay on disk
    again = pickle.loads(data)
    assert again.detected == block.detected and again.size == block.size
    assert b"".join(again.iter_base64()) == b"".join(block.iter_base64())


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda f: f.write_bytes(f.read_bytes() + b"\0"), id="grown"),
        pytest.param(lambda f: os.utime(f, ns=(0, f.stat().st_mtime_ns - 10**9)), id="touched"),
        pytest.param(lambda f: f.unlink(), id="removed"),
    ],
)
def test_path_block_refuses_a_changed_file_after_the_trip(
    tmp_path: Path, change: Callable[[Path], object]
) -> None:
    file = tmp_path / "photo.jpg"
    shutil.copyfile(MEDIA / "jpeg_baseline.jpg", file)
    req = di.Request(model="gemini-decision-1", input=[di.image(file)], questions=_QUESTIONS)
    again = _again(req, pickle.HIGHEST_PROTOCOL)
    change(file)
    with pytest.raises(di.SourceError):
        again.dumps()


def test_relative_path_reads_the_same_file_in_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copyfile(MEDIA / "jpeg_baseline.jpg", tmp_path / "a" / "x.jpg")
    shutil.copyfile(MEDIA / "png_pillow.png", tmp_path / "b" / "x.jpg")
    monkeypatch.chdir(tmp_path / "a")
    req = di.Request(model="gemini-decision-1", input=[di.media("x.jpg")], questions=_QUESTIONS)
    data = pickle.dumps(req)
    monkeypatch.chdir(tmp_path / "b")
    assert pickle.loads(data).dumps() == req.dumps()


@pytest.mark.parametrize(
    "stream",
    [
        pytest.param(lambda: open(MEDIA / "jpeg_baseline.jpg", "rb"), id="open-file"),  # noqa: SIM115
        pytest.param(lambda: io.BytesIO((MEDIA / "jpeg_baseline.jpg").read_bytes()), id="bytesio"),
    ],
)
def test_file_object_block_refuses_to_pickle(stream: Callable[[], Any]) -> None:
    with stream() as fp:
        block = di.image(fp)
        req = di.Request(model="gemini-decision-1", input=[block], questions=_QUESTIONS)
        for value in (block, req):
            with pytest.raises(di.NotPicklable, match="cannot be pickled.*path or the bytes"):
                pickle.dumps(value)
            with pytest.raises(TypeError):  # what pickle's callers catch
                copy.deepcopy(value)


def test_bytes_block_carries_its_bytes() -> None:
    data = (MEDIA / "wav_pcm16.wav").read_bytes()
    again = _again(di.audio(bytearray(data)), pickle.HIGHEST_PROTOCOL)
    with again.open() as opened:
        assert b"".join(opened.iter_chunks()) == data


def _dumps_in_worker(req: di.Request) -> str:
    return req.dumps()


def test_request_built_here_is_written_in_a_fresh_process() -> None:
    req = _request()
    spawn = multiprocessing.get_context("spawn")  # a new interpreter: nothing inherited
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        assert pool.submit(_dumps_in_worker, req).result() == req.dumps()


# --- exceptions --------------------------------------------------------------------------------


def _invalid() -> di.InvalidInput:
    try:
        di.choice("Which?", [" a", "b", "b"])
    except di.InvalidInput as exc:
        return exc
    raise AssertionError("not refused")


def _api_error() -> Exception:
    try:
        parse_response(GEMINI_ERRORS[1])
    except di.APIError as exc:
        return exc
    raise AssertionError("not refused")


# The library's exceptions compare by value: the round trip keeps type, text and state.
ERRORS: list[Any] = [
    pytest.param(lambda: di.DecisionsInputError("broken"), id="base"),
    pytest.param(_invalid, id="invalid-input"),
    pytest.param(lambda: di.InvalidInput([]), id="invalid-input-empty"),
    pytest.param(lambda: di.SourceError("'x' changed after the block was built"), id="source"),
    pytest.param(lambda: di.SchemaError("dangling $ref"), id="schema"),
    pytest.param(lambda: di.NotPicklable("an open file"), id="not-picklable"),
    pytest.param(lambda: SourceTooLarge("big.bin", 10, 5), id="source-too-large"),
    pytest.param(lambda: RemoteError("uri.redirect", "too many"), id="remote"),
    pytest.param(_api_error, id="api-error"),
]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("make", ERRORS)
def test_exception_pickles_with_what_it_carries(make: Callable[[], Any], protocol: int) -> None:
    exc = make()
    again = _again(exc, protocol)
    assert type(again) is type(exc)
    assert (again.args, str(again), vars(again)) == (exc.args, str(exc), vars(exc))
    assert getattr(again, "problems", ()) == getattr(exc, "problems", ())
    assert again == exc and hash(again) == hash(exc)


@NOTES
def test_notes_survive_the_trip() -> None:
    exc = _invalid()
    exc.add_note("while building template 7")
    assert _again(exc, 2).__notes__ == ["while building template 7"]


def test_exceptions_that_differ_are_not_equal() -> None:
    assert di.SchemaError("a") != di.SchemaError("b")
    assert di.SchemaError("a") != di.DecisionsInputError("a")
    assert di.InvalidInput([]) != _invalid()
    assert di.SchemaError("a") != ValueError("a") and di.SchemaError("a") != "a"


@NOTES
def test_exceptions_whose_notes_differ_are_not_equal() -> None:
    noted = _invalid()
    noted.add_note("while building template 7")
    assert noted != _invalid()


# --- properties --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(req=built_requests(), protocol=st.sampled_from(PROTOCOLS))
def test_every_generated_request_pickles_to_the_same_bytes(req: Any, protocol: int) -> None:
    again = _again(req, protocol)
    assert again == req
    assert again.dumps() == req.dumps()


@settings(max_examples=100, deadline=None)
@given(block=built_blocks(), question=built_questions, problem=rule_problems())
def test_every_generated_part_pickles_equal(block: Any, question: Any, problem: Any) -> None:
    for value in (block, question, problem):
        assert _again(value, pickle.HIGHEST_PROTOCOL) == value
    for value in (block, problem):  # a question with options holds a mapping: no hash
        assert hash(_again(value, pickle.HIGHEST_PROTOCOL)) == hash(value)
    assert _again(block, 2).to_json() == block.to_json()
    assert _again(question, 2).to_json() == question.to_json()
    assert _again(problem, 2).json_path == problem.json_path


_INT_LIMITS = sorted(
    f.name for f in dataclasses.fields(di.Limits) if type(getattr(di.GEMINI, f.name)) is int
)


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from([di.GEMINI, di.PARALLEL]),
    changes=st.dictionaries(st.sampled_from(_INT_LIMITS), st.integers(0, 10**12), max_size=4),
    found=st.lists(rule_problems(), max_size=4),
)
def test_every_derived_table_and_refusal_pickles_equal(
    base: di.Limits, changes: dict[str, int], found: list[di.Problem]
) -> None:
    table = base.derive(**changes)
    assert _again(table, 2) == table and repr(_again(table, 2)) == repr(table)
    refusal = _again(di.InvalidInput(found), pickle.HIGHEST_PROTOCOL)
    assert refusal.problems == tuple(found) and str(refusal) == str(di.InvalidInput(found))
