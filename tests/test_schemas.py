"""Tests for ``decisions_input.schemas``: bundled documents, their checks, and validators."""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from decisions_input import schemas
from decisions_input.errors import SchemaError
from decisions_input.limits import RULES

SEEDS = Path("/work/shared/seeds")
SEED_PARALLEL = SEEDS / "002_d34f7df60caf1fdf.txt"
SEED_GEMINI_PROXY = SEEDS / "003_98ad02997e8d81dd.txt"

NAMES = ("gemini", "parallel", "signals")

Doc = dict[str, Any]
Mutation = Callable[[Doc], None]
Found = tuple[str, tuple[Any, ...]]
Expected = Found | list[Found]


def put(path: tuple[str | int, ...], value: object) -> Mutation:
    """Return a mutation that sets ``value`` at ``path`` of a document."""

    def mutate(doc: Doc) -> None:
        node: Any = doc
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value

    return mutate


def drop(path: tuple[str | int, ...]) -> Mutation:
    """Return a mutation that deletes the member at ``path`` of a document."""

    def mutate(doc: Doc) -> None:
        node: Any = doc
        for step in path[:-1]:
            node = node[step]
        del node[path[-1]]

    return mutate


GEMINI_OP = ("paths", "/v1beta/decisions", "post")
GEMINI_REQUEST_EXAMPLES = (*GEMINI_OP, "requestBody", "content", "application/json", "examples")
GEMINI_OK_EXAMPLES = (*GEMINI_OP, "responses", "200", "content", "application/json", "examples")
GEMINI_400_EXAMPLES = (*GEMINI_OP, "responses", "400", "content", "application/json", "examples")
PARALLEL_OP = ("paths", "/v1/decisions", "post")
PARALLEL_OK_EXAMPLES = (*PARALLEL_OP, "responses", "200", "content", "application/json", "examples")
G = ("components", "schemas")

# --- broken copies: (document, mutation, check, expected (code, path)) -----------------------
BROKEN = [
    pytest.param(
        "gemini",
        put((*G, "DecisionRequest", "properties", "input", "$ref"), "#/components/schemas/Nope"),
        schemas.iter_ref_problems,
        ("schema.dangling_ref", (*G, "DecisionRequest", "properties", "input", "$ref")),
        id="gemini-ref-to-missing-component",
    ),
    pytest.param(
        "parallel",
        put((*G, "ErrorResponse", "properties", "error", "$ref"), "#/components/schemas/Err"),
        schemas.iter_ref_problems,
        ("schema.dangling_ref", (*G, "ErrorResponse", "properties", "error", "$ref")),
        id="parallel-ref-to-missing-component",
    ),
    pytest.param(
        "signals",
        put(("properties", "answerParts", "items", "$ref"), "#/$defs/AnswerPiece"),
        schemas.iter_ref_problems,
        ("schema.dangling_ref", ("properties", "answerParts", "items", "$ref")),
        id="signals-ref-to-missing-def",
    ),
    pytest.param(
        "gemini",
        put((*G, "OptionId", "minLength"), -1),
        schemas.iter_meta_problems,
        ("schema.meta", (*G, "OptionId", "minLength")),
        id="gemini-negative-min-length",
    ),
    pytest.param(
        "gemini",
        put(("info", "version"), 3),
        schemas.iter_meta_problems,
        ("schema.meta", ("info", "version")),
        id="gemini-info-version-not-string",
    ),
    pytest.param(
        "gemini",
        put(("openapi",), "2.0"),
        schemas.iter_meta_problems,
        ("schema.meta", ("openapi",)),
        id="gemini-unsupported-openapi-version",
    ),
    pytest.param(
        "parallel",
        put((*G, "GroundedNoulAnswer", "properties", "noul", "maximum"), "1"),
        schemas.iter_meta_problems,
        ("schema.meta", (*G, "GroundedNoulAnswer", "properties", "noul", "maximum")),
        id="parallel-maximum-as-string",
    ),
    pytest.param(
        "signals",
        put(("$defs", "AnswerPart", "properties", "supportingIndices", "type"), "arrayy"),
        schemas.iter_meta_problems,
        ("schema.meta", ("$defs", "AnswerPart", "properties", "supportingIndices", "type")),
        id="signals-unknown-type-name",
    ),
    pytest.param(
        "signals",
        put(("$schema",), "https://example.com/not-a-dialect"),
        schemas.iter_meta_problems,
        ("schema.meta", ("$schema",)),
        id="signals-unknown-dialect",
    ),
    pytest.param(
        "gemini",
        put((*GEMINI_REQUEST_EXAMPLES, "noul", "value", "model"), "gemini-decision-2"),
        schemas.iter_example_problems,
        ("schema.example", (*GEMINI_REQUEST_EXAMPLES, "noul", "value")),
        id="gemini-request-example-unknown-model",
    ),
    pytest.param(
        "gemini",
        put((*GEMINI_OK_EXAMPLES, "multiple", "value", "answers", "is_defect", "noul"), 1.5),
        schemas.iter_example_problems,
        ("schema.example", (*GEMINI_OK_EXAMPLES, "multiple", "value")),
        id="gemini-response-example-noul-out-of-range",
    ),
    pytest.param(
        "gemini",
        put(
            (*GEMINI_400_EXAMPLES, "model_endpoint_mismatch", "value", "error", "retryable"),
            "no",
        ),
        schemas.iter_example_problems,
        ("schema.example", (*GEMINI_400_EXAMPLES, "model_endpoint_mismatch", "value")),
        id="gemini-error-example-retryable-not-boolean",
    ),
    pytest.param(
        "gemini",
        put((*G, "ScoreCriteria", "examples", 0), ["only one level"]),
        schemas.iter_example_problems,
        ("schema.example", (*G, "ScoreCriteria", "examples", 0)),
        id="gemini-schema-example-one-level",
    ),
    pytest.param(
        "parallel",
        put((*G, "GroundedDecisionResponse", "properties", "decision_id", "examples", 0), 5),
        schemas.iter_example_problems,
        (
            "schema.example",
            (*G, "GroundedDecisionResponse", "properties", "decision_id", "examples", 0),
        ),
        id="parallel-nested-property-example",
    ),
    pytest.param(
        "parallel",
        drop((*PARALLEL_OK_EXAMPLES, "live", "value", "decision_id")),
        schemas.iter_example_problems,
        ("schema.example", (*PARALLEL_OK_EXAMPLES, "live", "value")),
        id="parallel-response-example-without-decision-id",
    ),
    pytest.param(
        "signals",
        put(("examples", 0, "answerParts", 0, "supportingIndices"), [-1]),
        schemas.iter_example_problems,
        ("schema.example", ("examples", 0)),
        id="signals-example-negative-index",
    ),
]

# --- local references: (reference, resolves) -------------------------------------------------
REFS = [
    pytest.param("#", True, id="root"),
    pytest.param("#/components/schemas/DecisionRequest", True, id="component"),
    pytest.param("#/paths/~1v1beta~1decisions/post", True, id="tilde-one-is-slash"),
    pytest.param("#/components/schemas/a~0b~1c", True, id="tilde-zero-is-tilde"),
    pytest.param("#/components/schemas/a%7E0b~1c", True, id="percent-encoded"),
    pytest.param("#/components/schemas/DecisionRequest/required/2", True, id="array-index"),
    pytest.param("#/components/schemas/Nope", False, id="missing-member"),
    pytest.param("#/components/schemas/a~b~1c", False, id="bad-escape"),
    pytest.param("#/components/schemas/DecisionRequest/required/3", False, id="index-too-big"),
    pytest.param("#/components/schemas/DecisionRequest/required/01", False, id="leading-zero"),
    pytest.param("#/components/schemas/OptionId/type/x", False, id="step-into-string"),
    pytest.param("other.json#/nope", True, id="remote-not-checked"),
    pytest.param("#some-anchor", True, id="anchor-not-checked"),
]

# --- Gemini request bodies -------------------------------------------------------------------


def gemini_body() -> Doc:
    """Return a small valid Gemini request to derive cases from."""
    return {
        "model": "gemini-decision-1",
        "input": "The blue mug arrived cracked.",
        "questions": {
            "q": {
                "type": "choice",
                "instructions": "Which team handles this?",
                "criteria": {"billing": "", "shipping": "Delivery and damage.", "other": ""},
            }
        },
    }


def choice(criteria: dict[str, str]) -> Mutation:
    return put(("questions", "q", "criteria"), criteria)


ALL_ANNOTATIONS = [
    {
        "type": "file_citation",
        "document_uri": "https://example.com/a.pdf",
        "file_name": "a.pdf",
        "source": "manual",
        "custom_metadata": {"any": ["thing"]},
        "page_number": 3,
        "media_id": "m1",
        "start_index": 0,
        "end_index": 4,
    },
    {
        "type": "place_citation",
        "place_id": "places/abc",
        "name": "Cafe",
        "url": "https://maps.example.com/abc",
        "review_snippets": [{"title": "Nice", "url": "https://r.example.com", "review_id": "r1"}],
    },
    {"type": "speech_metadata", "speaker": "spk_1", "style": "calm"},
    {"type": "url_citation", "url": "https://example.com", "title": "Example"},
    {"type": "word_info", "text": "mug", "start_offset": "1.5s", "end_offset": "1.8s"},
]

GEMINI_ACCEPTED = [
    pytest.param(lambda b: None, id="plain"),
    pytest.param(choice({"human escalation": "", "other": ""}), id="option-id-interior-space"),
    pytest.param(choice({"x" * 128: "", "y": ""}), id="option-id-128-chars"),
    pytest.param(choice({"é" * 128: "", "y": ""}), id="option-id-128-two-byte-chars"),
    pytest.param(choice({f"o{i}": "" for i in range(255)}), id="255-options"),
    pytest.param(
        put(("questions",), {"k" * 64: {"type": "noul", "instructions": "Ok?"}}), id="64-char-key"
    ),
    pytest.param(
        put(
            ("questions",), {f"q{i}": {"type": "noul", "instructions": "Ok?"} for i in range(1000)}
        ),
        id="1000-questions",
    ),
    pytest.param(
        put(
            ("questions", "q", "instructions"),
            [{"type": "text", "text": "Which team?", "annotations": ALL_ANNOTATIONS}],
        ),
        id="instructions-blocks-with-every-annotation",
    ),
    pytest.param(
        put(("questions", "q", "instructions"), {"type": "text", "text": "Which team?"}),
        id="instructions-one-block",
    ),
    pytest.param(
        put(("questions", "n"), {"type": "noul", "instructions": "Damaged?", "criteria": {}}),
        id="noul-with-empty-criteria",
    ),
    pytest.param(
        put(
            ("input",),
            {
                "type": "document",
                "uri": "https://example.com/a.pdf",
                "mime_type": "application/pdf",
            },
        ),
        id="input-one-block",
    ),
    pytest.param(
        put(
            ("input",),
            [
                {
                    "type": "image",
                    "data": "iVBORw0KGgo=",
                    "mime_type": "image/png",
                    "resolution": "ultra_high",
                },
                {"type": "audio", "uri": "https://example.com/a.wav", "mime_type": "audio/wav"},
                {
                    "type": "video",
                    "uri": "https://example.com/a.mp4",
                    "mime_type": "video/mp4",
                    "resolution": "low",
                },
            ],
        ),
        id="input-media-blocks",
    ),
]

# (mutation, expected (code, path)); code is "schema." + the failing keyword.
GEMINI_REFUSED = [
    pytest.param(
        put(("stream",), True), ("schema.additionalProperties", ()), id="unknown-member-stream"
    ),
    pytest.param(
        put(("questions",), {"k" * 65: {"type": "noul", "instructions": "Ok?"}}),
        ("schema.pattern", ("questions",)),
        id="question-key-65-chars",
    ),
    pytest.param(
        choice({"only": ""}),
        ("schema.minProperties", ("questions", "q", "criteria")),
        id="one-option",
    ),
    pytest.param(put(("input",), ""), ("schema.minLength", ("input",)), id="empty-input-string"),
    pytest.param(put(("input",), []), ("schema.minItems", ("input",)), id="empty-input-array"),
    pytest.param(put(("input",), 7), ("schema.type", ("input",)), id="input-number"),
    pytest.param(
        put(("model",), "gemini-2.5-pro"), ("schema.enum", ("model",)), id="unknown-model"
    ),
    pytest.param(
        drop(("questions", "q", "criteria")),
        ("schema.required", ("questions", "q")),
        id="choice-without-criteria",
    ),
    pytest.param(
        choice({f"o{i}": "" for i in range(256)}),
        ("schema.maxProperties", ("questions", "q", "criteria")),
        id="256-options",
    ),
    pytest.param(
        put(("questions",), {}),
        ("schema.minProperties", ("questions",)),
        id="no-questions",
    ),
    pytest.param(
        put(
            ("questions",), {f"q{i}": {"type": "noul", "instructions": "Ok?"} for i in range(1001)}
        ),
        ("schema.maxProperties", ("questions",)),
        id="1001-questions",
    ),
    pytest.param(
        put(("questions",), {"ab\n": {"type": "noul", "instructions": "Ok?"}}),
        ("schema.not", ("questions",)),
        id="question-key-trailing-line-feed",
    ),
    pytest.param(
        choice({" lead": "", "b": ""}),
        ("schema.pattern", ("questions", "q", "criteria")),
        id="option-id-leading-space",
    ),
    pytest.param(
        choice({"trail ": "", "b": ""}),
        ("schema.pattern", ("questions", "q", "criteria")),
        id="option-id-trailing-space",
    ),
    pytest.param(
        choice({"a\u0007b": "", "b": ""}),
        ("schema.pattern", ("questions", "q", "criteria")),
        id="option-id-control-char",
    ),
    pytest.param(
        choice({"a\n": "", "b": ""}),
        ("schema.pattern", ("questions", "q", "criteria")),
        id="option-id-trailing-line-feed",
    ),
    pytest.param(
        choice({"x" * 129: "", "b": ""}),
        ("schema.maxLength", ("questions", "q", "criteria")),
        id="option-id-129-chars",
    ),
    pytest.param(
        choice({"": "", "b": ""}),
        [
            ("schema.minLength", ("questions", "q", "criteria")),
            ("schema.pattern", ("questions", "q", "criteria")),
        ],
        id="option-id-empty",
    ),
    pytest.param(
        put(
            ("questions", "q"), {"type": "score", "instructions": "How bad?", "criteria": ["only"]}
        ),
        ("schema.minItems", ("questions", "q", "criteria")),
        id="one-level",
    ),
    pytest.param(
        put(
            ("questions", "q"),
            {"type": "score", "instructions": "How bad?", "criteria": ["low", ""]},
        ),
        ("schema.minLength", ("questions", "q", "criteria", 1)),
        id="empty-level",
    ),
    pytest.param(
        put(("questions", "q", "type"), "bool"),
        ("schema.enum", ("questions", "q", "type")),
        id="unknown-question-type",
    ),
    pytest.param(
        drop(("questions", "q", "type")),
        ("schema.required", ("questions", "q")),
        id="question-without-type",
    ),
    pytest.param(
        put(("questions", "q", "instructions"), ""),
        ("schema.minLength", ("questions", "q", "instructions")),
        id="empty-instructions",
    ),
    pytest.param(
        put(("questions", "q", "instructions"), []),
        ("schema.minItems", ("questions", "q", "instructions")),
        id="empty-instruction-blocks",
    ),
    pytest.param(
        put(
            ("questions", "q", "instructions"),
            [
                {
                    "type": "text",
                    "text": "x",
                    "annotations": [{"type": "place_citation", "stars": 5}],
                }
            ],
        ),
        ("schema.additionalProperties", ("questions", "q", "instructions", 0, "annotations", 0)),
        id="annotation-unknown-member",
    ),
    pytest.param(
        put(
            ("questions", "q", "instructions"),
            [{"type": "text", "text": "x", "annotations": [{"type": "footnote"}]}],
        ),
        ("schema.enum", ("questions", "q", "instructions", 0, "annotations", 0, "type")),
        id="annotation-unknown-type",
    ),
    pytest.param(
        put(
            ("input",),
            [
                {
                    "type": "image",
                    "data": "AA==",
                    "uri": "https://example.com/a.png",
                    "mime_type": "image/png",
                }
            ],
        ),
        ("schema.oneOf", ("input", 0)),
        id="media-with-data-and-uri",
    ),
    pytest.param(
        put(("input",), [{"type": "image", "mime_type": "image/png"}]),
        ("schema.oneOf", ("input", 0)),
        id="media-without-data-or-uri",
    ),
    pytest.param(
        put(
            ("input",),
            [
                {
                    "type": "video",
                    "uri": "https://example.com/v.mp4",
                    "mime_type": "video/mp4",
                    "resolution": "ultra_high",
                }
            ],
        ),
        ("schema.enum", ("input", 0, "resolution")),
        id="video-ultra-high",
    ),
    pytest.param(
        put(
            ("input",),
            [
                {
                    "type": "audio",
                    "uri": "https://example.com/a.wav",
                    "mime_type": "audio/wav",
                    "resolution": "low",
                }
            ],
        ),
        ("schema.additionalProperties", ("input", 0)),
        id="audio-with-resolution",
    ),
    pytest.param(
        put(
            ("input",),
            [
                {
                    "type": "document",
                    "uri": "https://example.com/a.pdf",
                    "mime_type": "application/octet-stream",
                }
            ],
        ),
        ("schema.enum", ("input", 0, "mime_type")),
        id="generic-mime-type",
    ),
    pytest.param(
        put(("input",), [{"type": "text", "text": "hi", "annotations": []}]),
        ("schema.additionalProperties", ("input", 0)),
        id="input-text-with-annotations",
    ),
]

# --- Parallel request bodies -----------------------------------------------------------------


def parallel_body() -> Doc:
    """Return a small valid Parallel request to derive cases from."""
    return {
        "state": {"company": "Example", "website": "https://example.com"},
        "questions": {"has_cli": {"type": "noul", "instructions": "Is there a CLI?"}},
    }


PARALLEL_REFUSED = [
    pytest.param(put(("mode",), "slow"), ("schema.const", ("mode",)), id="mode-not-fast"),
    pytest.param(
        put(("include_excerpts",), "yes"),
        ("schema.type", ("include_excerpts",)),
        id="excerpts-not-boolean",
    ),
    pytest.param(drop(("state",)), ("schema.required", ()), id="no-state"),
    pytest.param(put(("stream",), True), ("schema.additionalProperties", ()), id="unknown-member"),
    pytest.param(
        put(("questions",), {f"q{i}": {"type": "noul", "instructions": "Ok?"} for i in range(101)}),
        ("schema.maxProperties", ("questions",)),
        id="101-questions",
    ),
    pytest.param(
        put(("questions", "has_cli", "instructions"), {"type": "text", "text": "Is there a CLI?"}),
        ("schema.type", ("questions", "has_cli", "instructions")),
        id="instructions-as-block",
    ),
    pytest.param(
        put(("questions", "has cli"), {"type": "noul", "instructions": "Ok?"}),
        ("schema.pattern", ("questions",)),
        id="key-with-space",
    ),
    pytest.param(
        put(
            ("questions", "pick"),
            {"type": "choice", "instructions": "Which?", "criteria": {"a": ""}},
        ),
        ("schema.minProperties", ("questions", "pick", "criteria")),
        id="one-option",
    ),
]

# Request-side objects must be closed.
CLOSED = [
    ("gemini", name)
    for name in (
        "DecisionRequest",
        "TextContent",
        "ImageContent",
        "AudioContent",
        "VideoContent",
        "DocumentContent",
        "NoulQuestion",
        "NoulCriteria",
        "ChoiceQuestion",
        "ScoreQuestion",
        "InstructionText",
        "FileCitation",
        "PlaceCitation",
        "ReviewSnippet",
        "SpeechAnnotation",
        "UrlCitation",
        "WordInfo",
    )
] + [
    ("parallel", name)
    for name in (
        "GroundedDecisionRequest",
        "GroundedNoulQuestion",
        "GroundedChoiceQuestion",
        "GroundedScoreQuestion",
        "NoulCriteria",
    )
]

# Response-side objects stay open: (document, component, instance with an unknown member).
OPEN = [
    pytest.param(
        "gemini", "CreateDecisionResponse", {"answers": {}, "added_later": 1}, id="gemini-response"
    ),
    pytest.param("gemini", "Usage", {"total_tokens": 3, "added_later": 1}, id="gemini-usage"),
    pytest.param(
        "gemini", "ErrorResponse", {"error": {"message": "m", "added_later": 1}}, id="gemini-error"
    ),
    pytest.param(
        "parallel",
        "GroundedDecisionResponse",
        {
            "mode": "fast",
            "answers": {"q": {"type": "refusal", "reason": "n/a"}},
            "usage": {"input_tokens": 1, "output_tokens": 0},
            "citations": [],
            "decision_id": "decisions_0",
            "added_later": 1,
        },
        id="parallel-response",
    ),
    pytest.param(
        "signals",
        "DataStoreConnectionSignals",
        {"answer": "a", "added_later": 1},
        id="signals-root",
    ),
]

PARALLEL_SEED_DANGLING = [
    (
        (
            *G,
            "GroundedDecisionRequest",
            "properties",
            "questions",
            "patternProperties",
            "^[A-Za-z0-9_-]+$",
            "oneOf",
            index,
            "$ref",
        ),
        f"#/components/schemas/{name}",
    )
    for index, name in enumerate(
        ("GroundedChoiceQuestion", "GroundedScoreQuestion", "GroundedNoulQuestion")
    )
]


# --- helpers ---------------------------------------------------------------------------------


def found(problems: object) -> list[tuple[str, tuple[str | int, ...]]]:
    return [(p.code, p.path) for p in problems]  # type: ignore[attr-defined]


def errors(
    validator: schemas.ComponentValidator, body: object
) -> list[tuple[str, tuple[Any, ...]]]:
    return [("schema." + e.validator, tuple(e.absolute_path)) for e in validator.iter_errors(body)]


def seed_yaml(path: Path) -> Doc:
    if not path.exists():
        pytest.skip(f"seed document {path} is not available")
    yaml = pytest.importorskip("yaml")
    match = re.search(r"````yaml[^\n]*\n(.*?)\n````", path.read_text(encoding="utf-8"), re.S)
    assert match is not None, f"no yaml block in {path}"
    doc: Doc = yaml.safe_load(match.group(1))
    return doc


def seed_request_examples() -> list[Any]:
    if not SEED_GEMINI_PROXY.exists():
        return [pytest.param(None, id="seed-003-absent")]
    doc = seed_yaml(SEED_GEMINI_PROXY)
    media = doc["paths"]["/v1beta/decisions"]["post"]["requestBody"]["content"]["application/json"]
    return [pytest.param(example["value"], id=key) for key, example in media["examples"].items()]


# --- bundled documents -----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_bundled_document_loads(name: str) -> None:
    doc = schemas.load(name)  # type: ignore[arg-type]
    assert isinstance(doc, dict)
    assert ("openapi" in doc) is (name != "signals")


@pytest.mark.parametrize("name", NAMES)
def test_bundled_document_has_no_dangling_refs(name: str) -> None:
    assert found(schemas.iter_ref_problems(schemas.load(name))) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES)
def test_bundled_document_passes_meta_validation(name: str) -> None:
    assert found(schemas.iter_meta_problems(schemas.load(name))) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES)
def test_every_bundled_example_validates(name: str) -> None:
    assert found(schemas.iter_example_problems(schemas.load(name))) == []  # type: ignore[arg-type]


def test_check_bundled_passes() -> None:
    schemas.check_bundled()


def test_check_bundled_names_every_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = schemas.load("gemini")
    put((*G, "OptionId", "minLength"), -1)(broken)
    put((*G, "Question", "oneOf", 0, "$ref"), "#/components/schemas/Gone")(broken)
    real = schemas._document
    monkeypatch.setattr(
        schemas, "_document", lambda name: broken if name == "gemini" else real(name)
    )
    with pytest.raises(SchemaError) as caught:
        schemas.check_bundled()
    text = str(caught.value)
    assert "schema.meta" in text and "$.components.schemas.OptionId.minLength" in text
    assert (
        "schema.dangling_ref" in text and '$.components.schemas.Question.oneOf[0]["$ref"]' in text
    )


def test_load_returns_an_independent_copy() -> None:
    first = schemas.load("gemini")
    first["components"]["schemas"].clear()
    assert schemas.load("gemini")["components"]["schemas"]
    assert schemas.validator("gemini", "DecisionRequest").is_valid(gemini_body())


def test_load_refuses_unknown_name() -> None:
    with pytest.raises(KeyError):
        schemas.load("openai")  # type: ignore[arg-type]


def test_rule_codes_are_registered() -> None:
    for code in ("schema.dangling_ref", "schema.meta", "schema.example"):
        assert code in RULES


def test_heavy_libraries_are_imported_lazily() -> None:
    tree = ast.parse(Path(schemas.__file__).read_text(encoding="utf-8"))
    top_level = {
        alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert not top_level & {"jsonschema", "openapi_spec_validator", "referencing", "yaml"}


# --- broken copies ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "mutate", "check", "expected"), BROKEN)
def test_broken_copy_is_reported(
    name: str,
    mutate: Mutation,
    check: Callable[[Doc], Any],
    expected: tuple[str, tuple[str | int, ...]],
) -> None:
    doc = schemas.load(name)  # type: ignore[arg-type]
    mutate(doc)
    assert found(check(doc)) == [expected]
    assert expected in found(schemas.lint(doc))


@pytest.mark.parametrize(("ref", "resolves"), REFS)
def test_local_ref_resolution(ref: str, resolves: bool) -> None:
    doc = schemas.load("gemini")
    doc["components"]["schemas"]["a~b/c"] = {"type": "string"}
    doc["components"]["schemas"]["Probe"] = {"$ref": ref}
    expected = [] if resolves else [("schema.dangling_ref", (*G, "Probe", "$ref"))]
    assert found(schemas.iter_ref_problems(doc)) == expected


def test_refs_inside_data_are_not_followed() -> None:
    doc = schemas.load("gemini")
    doc["components"]["schemas"]["OptionId"]["examples"].append({"$ref": "#/nowhere"})
    doc["components"]["schemas"]["OptionId"]["default"] = {"$ref": "#/nowhere"}
    assert found(schemas.iter_ref_problems(doc)) == []


def test_property_named_like_a_data_keyword_is_searched() -> None:
    doc = schemas.load("gemini")
    doc["components"]["schemas"]["TextContent"]["properties"]["default"] = {"$ref": "#/nowhere"}
    path = (*G, "TextContent", "properties", "default", "$ref")
    assert found(schemas.iter_ref_problems(doc)) == [("schema.dangling_ref", path)]


# --- seeds -----------------------------------------------------------------------------------


def test_parallel_seed_reports_exactly_its_three_dangling_refs() -> None:
    doc = seed_yaml(SEED_PARALLEL)
    problems = list(schemas.iter_ref_problems(doc))
    assert found(problems) == [("schema.dangling_ref", path) for path, _ in PARALLEL_SEED_DANGLING]
    for path, ref in PARALLEL_SEED_DANGLING:
        node: Any = doc
        for step in path:
            node = node[step]
        assert node == ref


@pytest.mark.parametrize("body", seed_request_examples())
def test_gemini_proxy_seed_request_examples_validate(body: Doc | None) -> None:
    if body is None:
        pytest.skip(f"seed document {SEED_GEMINI_PROXY} is not available")
    assert errors(schemas.validator("gemini", "DecisionRequest"), body) == []


# --- validators ------------------------------------------------------------------------------


@pytest.mark.parametrize("mutate", GEMINI_ACCEPTED)
def test_gemini_request_accepted(mutate: Mutation) -> None:
    body = gemini_body()
    mutate(body)
    assert errors(schemas.validator("gemini", "DecisionRequest"), body) == []


@pytest.mark.parametrize(("mutate", "expected"), GEMINI_REFUSED)
def test_gemini_request_refused(mutate: Mutation, expected: Expected) -> None:
    body = gemini_body()
    mutate(body)
    want = expected if isinstance(expected, list) else [expected]
    assert sorted(errors(schemas.validator("gemini", "DecisionRequest"), body)) == sorted(want)


def test_parallel_request_accepted() -> None:
    body = parallel_body()
    body["mode"] = "fast"
    body["include_excerpts"] = False
    body["state"] = [1, {"nested": None}, "any JSON"]
    body["questions"]["level"] = {
        "type": "score",
        "instructions": "How big?",
        "criteria": ["s", "m", "l"],
    }
    assert errors(schemas.validator("parallel", "GroundedDecisionRequest"), body) == []


@pytest.mark.parametrize(("mutate", "expected"), PARALLEL_REFUSED)
def test_parallel_request_refused(mutate: Mutation, expected: tuple[str, tuple[Any, ...]]) -> None:
    body = parallel_body()
    mutate(body)
    assert errors(schemas.validator("parallel", "GroundedDecisionRequest"), body) == [expected]


@pytest.mark.parametrize(("name", "component"), CLOSED, ids=[f"{n}-{c}" for n, c in CLOSED])
def test_request_objects_are_closed(name: str, component: str) -> None:
    schema = schemas.load(name)["components"]["schemas"][component]  # type: ignore[arg-type]
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize(("name", "component", "instance"), OPEN)
def test_response_objects_are_open(name: str, component: str, instance: Doc) -> None:
    assert errors(schemas.validator(name, component), instance) == []  # type: ignore[arg-type]


def test_validator_is_cached() -> None:
    assert schemas.validator("gemini", "Question") is schemas.validator("gemini", "Question")


@pytest.mark.parametrize(
    ("name", "component"),
    [("gemini", "Nope"), ("signals", "DecisionRequest"), ("parallel", "")],
)
def test_validator_refuses_unknown_component(name: str, component: str) -> None:
    with pytest.raises(KeyError):
        schemas.validator(name, component)  # type: ignore[arg-type]


def test_signals_example_is_consistent() -> None:
    (example,) = schemas.load("signals")["examples"]
    snippets = example["searchSnippets"]
    joined = "".join(part["text"] for part in example["answerParts"])
    assert joined.split() == example["answer"].split()
    for part in example["answerParts"]:
        assert all(0 <= i < len(snippets) for i in part["supportingIndices"])
    for cited in example["citedSnippets"]:
        assert cited["searchSnippet"] == snippets[cited["snippetIndex"]]
    assert errors(schemas.validator("signals", "DataStoreConnectionSignals"), example) == []


def test_signals_enums_are_closed() -> None:
    bad = {"decision": "MAYBE", "score": "HIGH"}
    found_errors = errors(schemas.validator("signals", "GroundingSignals"), bad)
    assert found_errors == [("schema.enum", ("decision",))]


def test_gemini_usage_counts_every_modality() -> None:
    usage = {
        "total_input_tokens": 10,
        "input_tokens_by_modality": [
            {"modality": m, "tokens": 2} for m in ("text", "image", "audio", "video", "document")
        ],
        "grounding_tool_count": [{"type": "google_maps", "count": 1}],
    }
    v = schemas.validator("gemini", "Usage")
    assert errors(v, usage) == []
    wrong = copy.deepcopy(usage)
    wrong["input_tokens_by_modality"][0]["modality"] = "smell"
    assert errors(v, wrong) == [("schema.enum", ("input_tokens_by_modality", 0, "modality"))]
