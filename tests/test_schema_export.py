"""The exported JSON Schema: valid draft 2020-12, self-contained, as tight as the limits,
and never refusing what the validator accepts."""

from __future__ import annotations

import base64
import copy
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

import decisions_input as di
from decisions_input import schemas
from decisions_input.limits import GEMINI, PARALLEL
from tests.strategies import near_valid_requests, response_bodies

ROOT = Path(__file__).parent.parent
REQUESTS = sorted((ROOT / "testdata" / "requests").glob("*.json"))
KINDS = [(t, k) for t in ("gemini", "parallel") for k in ("request", "response")]


def target_of(path: Path) -> str:
    """The target a request file is for: its name's prefix, else its body's shape."""
    prefix = path.name.split("-")[0]
    if prefix in ("gemini", "parallel"):
        return prefix
    return di.limits.target_of(example(path.name))


def validator(target: str, kind: str = "request", **options: Any) -> Any:
    return Draft202012Validator(di.json_schema(target, kind=kind, **options))  # type: ignore[arg-type]


def example(name: str) -> Any:
    return json.loads((ROOT / "testdata" / "requests" / name).read_text())


@pytest.mark.parametrize(("target", "kind"), KINDS, ids=[f"{t}-{k}" for t, k in KINDS])
def test_schema_passes_the_2020_12_meta_schema(target: str, kind: str) -> None:
    schema = di.json_schema(target, kind=kind)  # type: ignore[arg-type]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    assert list(schemas.iter_meta_problems(schema)) == []


@pytest.mark.parametrize(("target", "kind"), KINDS, ids=[f"{t}-{k}" for t, k in KINDS])
def test_schema_is_self_contained(target: str, kind: str) -> None:
    schema = di.json_schema(target, kind=kind)  # type: ignore[arg-type]
    text = json.dumps(schema)
    assert "#/components/" not in text and '"discriminator"' not in text
    assert list(schemas.iter_ref_problems(schema)) == []
    refs = {r.removeprefix("#/$defs/") for r in _refs(schema)}
    assert refs | {schema["$ref"].removeprefix("#/$defs/")} == set(schema["$defs"])


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_each_call_returns_a_new_document() -> None:
    first = di.json_schema("gemini")
    first["$defs"].clear()
    assert di.json_schema("gemini")["$defs"]


@pytest.mark.parametrize("path", REQUESTS, ids=[p.name for p in REQUESTS])
def test_example_requests_are_accepted(path: Path) -> None:
    body = json.loads(path.read_text())
    assert list(validator(target_of(path)).iter_errors(body)) == []


@pytest.mark.parametrize(("target", "kind"), KINDS, ids=[f"{t}-{k}" for t, k in KINDS])
def test_bundled_examples_are_accepted(target: str, kind: str) -> None:
    operation = schemas.load(target)["paths"][getattr(di, target.upper()).API_PATH]["post"]  # type: ignore[arg-type]
    holder = operation["requestBody"] if kind == "request" else operation["responses"]["200"]
    examples = holder["content"]["application/json"].get("examples", {})
    assert examples or (target, kind) == ("parallel", "request")
    check = validator(target, kind)
    for name, item in examples.items():
        assert list(check.iter_errors(item["value"])) == [], name


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Any], None]:
    def edit(body: Any) -> None:
        node = body
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value

    return edit


Q = ("questions",)
OPTIONS_256 = {f"o{i}": "" for i in range(256)}

# (id, example file, edit, (keyword, JSON path) of the best error)
REFUSED: list[tuple[str, str, Callable[[Any], None], tuple[str, str]]] = [
    (
        "choice-256-options",
        "gemini-choice.json",
        _set((*Q, "department", "criteria"), OPTIONS_256),
        ("maxProperties", "$.questions.department.criteria"),
    ),
    (
        "choice-one-option",
        "gemini-choice.json",
        _set((*Q, "department", "criteria"), {"a": ""}),
        ("minProperties", "$.questions.department.criteria"),
    ),
    (
        "score-256-levels",
        "gemini-score.json",
        _set((*Q, "severity", "criteria"), [f"l{i}" for i in range(256)]),
        ("maxItems", "$.questions.severity.criteria"),
    ),
    (
        "score-empty-level",
        "gemini-score.json",
        _set((*Q, "severity", "criteria", 0), ""),
        ("minLength", "$.questions.severity.criteria[0]"),
    ),
    (
        "option-id-129-chars",
        "gemini-choice.json",
        _set((*Q, "department", "criteria"), {"x" * 129: "", "b": ""}),
        ("maxLength", "$.questions.department.criteria"),
    ),
    (
        "option-id-leading-space",
        "gemini-choice.json",
        _set((*Q, "department", "criteria"), {" a": "", "b": ""}),
        ("pattern", "$.questions.department.criteria"),
    ),
    (
        "option-id-tab-inside",
        "gemini-choice.json",
        _set((*Q, "department", "criteria"), {"a\tb": "", "b": ""}),
        ("pattern", "$.questions.department.criteria"),
    ),
    (
        "option-id-zero-width-space",
        "gemini-choice.json",
        _set((*Q, "department", "criteria"), {"a\u200bb": "", "b": ""}),
        ("pattern", "$.questions.department.criteria"),
    ),
    (
        "question-key-65-chars",
        "gemini-noul.json",
        _set((*Q, "k" * 65), {"type": "noul", "instructions": "Is it?"}),
        ("pattern", "$.questions"),
    ),
    (
        "model-unknown",
        "gemini-noul.json",
        _set(("model",), "gemini-3.8-flash"),
        ("enum", "$.model"),
    ),
    ("input-blank", "gemini-noul.json", _set(("input",), " \u3000\n"), ("pattern", "$.input")),
    (
        "input-blank-blocks",
        "gemini-noul.json",
        _set(("input",), [{"type": "text", "text": " "}, {"type": "text", "text": "\n"}]),
        ("contains", "$.input"),
    ),
    (
        "image-mime-gif-as-audio",
        "gemini-audio-url.json",
        _set(("input", 0, "mime_type"), "image/gif"),
        ("enum", "$.input[0].mime_type"),
    ),
    (
        "uri-http",
        "gemini-image-url.json",
        _set(("input", 1, "uri"), "http://www.gstatic.com/webp/gallery/1.jpg"),
        ("pattern", "$.input[1].uri"),
    ),
    (
        "uri-credentials",
        "gemini-image-url.json",
        _set(("input", 1, "uri"), "https://me:secret@www.gstatic.com/1.jpg"),
        ("pattern", "$.input[1].uri"),
    ),
    (
        "base64-unpadded",
        "gemini-image-base64.json",
        _set(("input", 1, "data"), "iVBORw0KGgo"),
        ("pattern", "$.input[1].data"),
    ),
    (
        "base64-padding-bits",
        "gemini-image-base64.json",
        _set(("input", 1, "data"), "iVBORw0KGgp="),
        ("pattern", "$.input[1].data"),
    ),
    (
        "parallel-instruction-block",
        "parallel-basic.json",
        _set((*Q, "has_cli", "instructions"), {"type": "text", "text": "Is it?"}),
        ("type", "$.questions.has_cli.instructions"),
    ),
    (
        "parallel-101-questions",
        "parallel-basic.json",
        _set(Q, {f"q{i}": {"type": "noul", "instructions": "x"} for i in range(101)}),
        ("maxProperties", "$.questions"),
    ),
    ("parallel-mode", "parallel-basic.json", _set(("mode",), "slow"), ("enum", "$.mode")),
]


@pytest.mark.parametrize(
    ("name", "edit", "expected"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_refused_like_the_validator(
    name: str, edit: Callable[[Any], None], expected: tuple[str, str]
) -> None:
    body = example(name)
    edit(body)
    target = target_of(Path(name))
    error = best_match(validator(target).iter_errors(body))
    assert error is not None
    assert (error.validator, error.json_path) == expected
    assert not di.is_valid(body, target=target)


@pytest.mark.parametrize("size", range(1, 8))
def test_base64_of_every_length_the_validator_takes_matches_the_pattern(size: int) -> None:
    from decisions_input.schema_export import _BASE64
    from decisions_input.sources import check_base64

    data = base64.b64encode(bytes(range(size))).decode()
    assert check_base64(data, (), head_bytes=0) == ([], b"")
    assert Draft202012Validator({"type": "string", "pattern": _BASE64}).is_valid(data)


def test_the_sdk_model_name_is_accepted() -> None:
    body = example("gemini-noul.json")
    body["model"] = "models/gemini-decision-1"
    assert list(validator("gemini").iter_errors(body)) == []
    assert not validator("gemini", limits=GEMINI.derive(MODEL_PREFIXES=())).is_valid(body)


def test_a_derived_table_relaxes_the_schema() -> None:
    body = example("gemini-choice.json")
    body["model"] = "gemini-decision-2"
    body["questions"]["department"]["criteria"] = OPTIONS_256
    mine = GEMINI.derive(MODELS=GEMINI.MODELS | {"gemini-decision-2"}, MAX_OPTIONS=300)
    assert not validator("gemini").is_valid(body)
    assert list(validator("gemini", limits=mine).iter_errors(body)) == []
    parallel = example("parallel-basic.json")
    parallel["questions"]["has_cli"]["instructions"] = [{"type": "text", "text": "Is it?"}]
    relaxed = PARALLEL.derive(INSTRUCTION_FORMS=frozenset({"string", "blocks"}))
    assert validator("parallel", limits=relaxed).is_valid(parallel)


# The document's own numbers and the limits table agree: the export overwrites them, so
# a difference would mean one of the two drifted from the seeds.
AGREEING = [
    ("gemini", "Questions", ("minProperties", "maxProperties")),
    ("gemini", "ChoiceCriteria", ("minProperties", "maxProperties")),
    ("gemini", "OptionId", ("minLength", "maxLength")),
    ("gemini", "ScoreCriteria", ("minItems", "maxItems")),
    ("parallel", "ChoiceCriteria", ("minProperties", "maxProperties")),
    ("parallel", "ScoreCriteria", ("minItems", "maxItems")),
]


@pytest.mark.parametrize(("target", "name", "keywords"), AGREEING)
def test_document_numbers_agree_with_the_limits(
    target: str, name: str, keywords: tuple[str, ...]
) -> None:
    bundled = schemas.load(target)["components"]["schemas"][name]  # type: ignore[arg-type]
    exported = di.json_schema(target)["$defs"][name]
    assert {k: exported[k] for k in keywords} == {k: bundled[k] for k in keywords}


def test_document_enums_agree_with_the_limits() -> None:
    bundled = schemas.load("gemini")["components"]["schemas"]
    exported = di.json_schema("gemini")["$defs"]
    for name in ("ImageContent", "AudioContent", "VideoContent", "DocumentContent"):
        for member in ("mime_type", "resolution"):
            if member in bundled[name]["properties"]:
                found = exported[name]["properties"][member]["enum"]
                assert found == bundled[name]["properties"][member]["enum"], (name, member)


def test_unknown_kind_and_target_are_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        di.json_schema("gemini", kind="error")  # type: ignore[arg-type]
    with pytest.raises(di.InvalidInput) as info:
        di.json_schema("openai")
    assert info.value.codes == ("target.unknown",)


# --- never stricter than the validator -----------------------------------------------------


def _refuses(schema_validator: Any, body: Any) -> bool:
    return not schema_validator.is_valid(body)


SCHEMA_VALIDATORS = {(t, k): validator(t, k) for t, k in KINDS}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), target=st.sampled_from(["gemini", "parallel"]))
def test_what_the_request_schema_refuses_the_validator_refuses(data: Any, target: str) -> None:
    body = data.draw(near_valid_requests(target))
    if _refuses(SCHEMA_VALIDATORS[(target, "request")], body):
        errors = [p for p in di.iter_problems(body, target=target) if p.is_error]
        assert errors, json.dumps(body)[:2000]


@settings(max_examples=300, deadline=None)
@given(body=response_bodies, target=st.sampled_from(["gemini", "parallel"]))
def test_what_the_response_schema_refuses_the_validator_refuses(body: Any, target: str) -> None:
    if _refuses(SCHEMA_VALIDATORS[(target, "response")], body):
        errors = [p for p in di.iter_response_problems(body, target=target) if p.is_error]
        assert errors, json.dumps(body)


# --- the command editors and CI use --------------------------------------------------------


def test_check_jsonschema_uses_the_exported_schema(tmp_path: Path) -> None:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    schema = tmp_path / "gemini-request.schema.json"
    schema.write_text(json.dumps(di.json_schema("gemini"), indent=2))
    good = sorted(str(p) for p in REQUESTS if target_of(p) == "gemini")
    bad = tmp_path / "too-many-options.json"
    body = copy.deepcopy(example("gemini-choice.json"))
    body["questions"]["department"]["criteria"] = OPTIONS_256
    bad.write_text(json.dumps(body))
    ok = subprocess.run([exe, "--schemafile", str(schema), *good], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    refused = subprocess.run(
        [exe, "--schemafile", str(schema), str(bad)], capture_output=True, text=True
    )
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "too-many-options.json" in refused.stdout
