"""Request rules of both targets, on both sides of every boundary, by code and JSON path."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import decisions_input as di
from decisions_input.limits import GEMINI, PARALLEL

REQUESTS = Path(__file__).parent.parent / "testdata" / "requests"


def gemini(**questions: Any) -> dict[str, Any]:
    return {
        "model": "gemini-decision-1",
        "input": "I was charged twice.",
        "questions": questions or {"q": {"type": "noul", "instructions": "Is it billing?"}},
    }


def parallel(**questions: Any) -> dict[str, Any]:
    return {
        "state": {"company": "Clay"},
        "questions": questions or {"q": {"type": "noul", "instructions": "Is there a CLI?"}},
    }


def choice_q(options: Any) -> dict[str, Any]:
    return {"type": "choice", "instructions": "Which one?", "criteria": options}


def score_q(levels: Any) -> dict[str, Any]:
    return {"type": "score", "instructions": "How much?", "criteria": levels}


def n_questions(n: int) -> dict[str, Any]:
    return {f"q{i}": {"type": "noul", "instructions": "Yes?"} for i in range(n)}


def ids(n: int) -> dict[str, str]:
    return {f"opt{i}": "" for i in range(n)}


FLAG = "\U0001f1e9\U0001f1ea"  # a flag emoji: two code points, eight UTF-8 bytes
FOUR_BYTE = "\U0001f600"  # one code point, four UTF-8 bytes


def with_(body: dict[str, Any], fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    body = copy.deepcopy(body)
    fn(body)
    return body


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(body: dict[str, Any]) -> None:
        target = body
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return apply


def _del(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def apply(body: dict[str, Any]) -> None:
        target = body
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return apply


# (id, target, body, expected [(code, json_path)] of every problem, in order)
CASES: list[tuple[str, str, Any, list[tuple[str, str]]]] = [
    ("gemini-minimal", "gemini", gemini(), []),
    ("parallel-minimal", "parallel", parallel(), []),
    ("not-an-object", "gemini", [], [("schema.type", "$")]),
    (
        "unknown-top-member",
        "gemini",
        with_(gemini(), _set(("stream",), True)),
        [("schema.unknown_member", "$.stream")],
    ),
    ("missing-model", "gemini", with_(gemini(), _del(("model",))), [("schema.required", "$")]),
    ("missing-all", "gemini", {}, [("schema.required", "$")] * 3),
    (
        "model-unknown",
        "gemini",
        with_(gemini(), _set(("model",), "gemini-3.8-flash")),
        [("model.unknown", "$.model")],
    ),
    (
        "model-resource-name",
        "gemini",
        with_(gemini(), _set(("model",), "models/gemini-decision-1")),
        [("model.prefixed", "$.model")],
    ),
    (
        "model-resource-name-unknown",
        "gemini",
        with_(gemini(), _set(("model",), "models/gemini-3.8-flash")),
        [("model.unknown", "$.model")],
    ),
    (
        "model-tuned-prefix",
        "gemini",
        with_(gemini(), _set(("model",), "tunedModels/gemini-decision-1")),
        [("model.unknown", "$.model")],
    ),
    (
        "model-prefix-alone",
        "gemini",
        with_(gemini(), _set(("model",), "models/")),
        [("model.unknown", "$.model")],
    ),
    (
        "model-not-string",
        "gemini",
        with_(gemini(), _set(("model",), 1)),
        [("schema.type", "$.model")],
    ),
    (
        "input-empty-string",
        "gemini",
        with_(gemini(), _set(("input",), "")),
        [("input.empty", "$.input")],
    ),
    (
        "input-whitespace",
        "gemini",
        with_(gemini(), _set(("input",), " \n\t")),
        [("input.empty", "$.input")],
    ),
    (
        "input-empty-array",
        "gemini",
        with_(gemini(), _set(("input",), [])),
        [("input.empty", "$.input")],
    ),
    (
        "input-blank-blocks",
        "gemini",
        with_(
            gemini(),
            _set(("input",), [{"type": "text", "text": " "}, {"type": "text", "text": "\n"}]),
        ),
        [("input.empty", "$.input")],
    ),
    (
        "input-empty-text-block",
        "gemini",
        with_(
            gemini(),
            _set(("input",), [{"type": "text", "text": ""}, {"type": "text", "text": "hi"}]),
        ),
        [("text.empty", "$.input[0].text")],
    ),
    ("input-number", "gemini", with_(gemini(), _set(("input",), 3)), [("schema.type", "$.input")]),
    (
        "input-block-unknown-type",
        "gemini",
        with_(gemini(), _set(("input",), [{"type": "file"}])),
        [("input.block_type", "$.input[0].type")],
    ),
    (
        "input-text-block-extra",
        "gemini",
        with_(gemini(), _set(("input",), [{"type": "text", "text": "a", "annotations": []}])),
        [("schema.unknown_member", "$.input[0].annotations")],
    ),
    (
        "input-run-together",
        "gemini",
        with_(
            gemini(),
            _set(("input",), [{"type": "text", "text": "abc"}, {"type": "text", "text": "def"}]),
        ),
        [("text.run_together", "$.input[1]")],
    ),
    (
        "input-cjk-joined",
        "gemini",
        with_(
            gemini(),
            _set(("input",), [{"type": "text", "text": "日本"}, {"type": "text", "text": "語"}]),
        ),
        [],
    ),
    (
        "input-separated",
        "gemini",
        with_(
            gemini(),
            _set(("input",), [{"type": "text", "text": "abc "}, {"type": "text", "text": "def"}]),
        ),
        [],
    ),
    # question count
    (
        "questions-0",
        "gemini",
        with_(gemini(), _set(("questions",), {})),
        [("questions.count", "$.questions")],
    ),
    ("questions-1000", "gemini", with_(gemini(), _set(("questions",), n_questions(1000))), []),
    (
        "questions-1001",
        "gemini",
        with_(gemini(), _set(("questions",), n_questions(1001))),
        [("questions.count", "$.questions")],
    ),
    (
        "parallel-questions-100",
        "parallel",
        with_(parallel(), _set(("questions",), n_questions(100))),
        [],
    ),
    (
        "parallel-questions-101",
        "parallel",
        with_(parallel(), _set(("questions",), n_questions(101))),
        [("questions.count", "$.questions")],
    ),
    (
        "questions-array",
        "gemini",
        with_(gemini(), _set(("questions",), [])),
        [("schema.type", "$.questions")],
    ),
    # keys
    ("key-64", "gemini", gemini(**{"k" * 64: {"type": "noul", "instructions": "x"}}), []),
    (
        "key-65",
        "gemini",
        gemini(**{"k" * 65: {"type": "noul", "instructions": "x"}}),
        [("question.key_length", "$.questions." + "k" * 65)],
    ),
    (
        "parallel-key-65",
        "parallel",
        parallel(**{"k" * 65: {"type": "noul", "instructions": "x"}}),
        [],
    ),
    (
        "key-trailing-newline",
        "gemini",
        gemini(**{"ok\n": {"type": "noul", "instructions": "x"}}),
        [("question.key_pattern", '$.questions["ok\\n"]')],
    ),
    (
        "key-dot",
        "gemini",
        gemini(**{"a.b": {"type": "noul", "instructions": "x"}}),
        [("question.key_pattern", '$.questions["a.b"]')],
    ),
    (
        "key-empty",
        "gemini",
        gemini(**{"": {"type": "noul", "instructions": "x"}}),
        [("question.key_length", '$.questions[""]')],
    ),
    (
        "key-non-ascii",
        "parallel",
        parallel(**{"café": {"type": "noul", "instructions": "x"}}),
        [("question.key_pattern", '$.questions["café"]')],
    ),
    # question shape
    (
        "type-unsupported",
        "gemini",
        gemini(q={"type": "bool", "instructions": "x"}),
        [("question.type", "$.questions.q.type")],
    ),
    (
        "type-missing",
        "gemini",
        gemini(q={"instructions": "x"}),
        [("schema.required", "$.questions.q")],
    ),
    (
        "question-extra",
        "gemini",
        gemini(q={"type": "noul", "instructions": "x", "weight": 2}),
        [("schema.unknown_member", "$.questions.q.weight")],
    ),
    (
        "choice-no-criteria",
        "gemini",
        gemini(q={"type": "choice", "instructions": "x"}),
        [("schema.required", "$.questions.q")],
    ),
    (
        "score-no-criteria",
        "gemini",
        gemini(q={"type": "score", "instructions": "x"}),
        [("schema.required", "$.questions.q")],
    ),
    ("question-not-object", "gemini", gemini(q="Is it?"), [("schema.type", "$.questions.q")]),
    # instructions
    (
        "instructions-empty",
        "gemini",
        gemini(q={"type": "noul", "instructions": ""}),
        [("instructions.empty", "$.questions.q.instructions")],
    ),
    (
        "instructions-blank",
        "gemini",
        gemini(q={"type": "noul", "instructions": "  "}),
        [("instructions.blank", "$.questions.q.instructions")],
    ),
    (
        "instructions-block",
        "gemini",
        gemini(q={"type": "noul", "instructions": {"type": "text", "text": "Is it?"}}),
        [],
    ),
    (
        "instructions-blocks",
        "gemini",
        gemini(q={"type": "noul", "instructions": [{"type": "text", "text": "Is it?"}]}),
        [],
    ),
    (
        "instructions-empty-array",
        "gemini",
        gemini(q={"type": "noul", "instructions": []}),
        [("instructions.empty", "$.questions.q.instructions")],
    ),
    (
        "instructions-image-block",
        "gemini",
        gemini(q={"type": "noul", "instructions": [{"type": "image", "text": "x"}]}),
        [("schema.const", "$.questions.q.instructions[0].type")],
    ),
    (
        "instructions-number",
        "gemini",
        gemini(q={"type": "noul", "instructions": 5}),
        [("schema.type", "$.questions.q.instructions")],
    ),
    (
        "parallel-instructions-block",
        "parallel",
        parallel(q={"type": "noul", "instructions": {"type": "text", "text": "Is it?"}}),
        [("instructions.form", "$.questions.q.instructions")],
    ),
    (
        "annotations-well-formed",
        "gemini",
        gemini(
            q={
                "type": "noul",
                "instructions": [
                    {
                        "type": "text",
                        "text": "Is it?",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://example.com",
                                "title": "t",
                                "start_index": 0,
                                "end_index": 3,
                            },
                            {
                                "type": "place_citation",
                                "place_id": "places/x",
                                "review_snippets": [
                                    {"title": "a", "url": "https://e.com", "review_id": "r"}
                                ],
                            },
                        ],
                    }
                ],
            }
        ),
        [("annotation.in_request", "$.questions.q.instructions[0].annotations")],
    ),
    (
        "annotation-unknown-type",
        "gemini",
        gemini(
            q={
                "type": "noul",
                "instructions": [
                    {"type": "text", "text": "x", "annotations": [{"type": "footnote"}]}
                ],
            }
        ),
        [
            ("annotation.in_request", "$.questions.q.instructions[0].annotations"),
            ("annotation.type", "$.questions.q.instructions[0].annotations[0].type"),
        ],
    ),
    (
        "annotation-wrong-member-type",
        "gemini",
        gemini(
            q={
                "type": "noul",
                "instructions": {
                    "type": "text",
                    "text": "x",
                    "annotations": [{"type": "file_citation", "page_number": "3", "extra": 1}],
                },
            }
        ),
        [
            ("annotation.in_request", "$.questions.q.instructions.annotations"),
            ("schema.type", "$.questions.q.instructions.annotations[0].page_number"),
            ("schema.unknown_member", "$.questions.q.instructions.annotations[0].extra"),
        ],
    ),
    # noul criteria
    (
        "noul-criteria",
        "gemini",
        gemini(
            q={
                "type": "noul",
                "instructions": "x",
                "criteria": {"true_description": "yes", "false_description": ""},
            }
        ),
        [],
    ),
    (
        "noul-criteria-extra",
        "gemini",
        gemini(q={"type": "noul", "instructions": "x", "criteria": {"maybe": "?"}}),
        [("schema.unknown_member", "$.questions.q.criteria.maybe")],
    ),
    (
        "noul-criteria-non-string",
        "gemini",
        gemini(q={"type": "noul", "instructions": "x", "criteria": {"true_description": 1}}),
        [("schema.type", "$.questions.q.criteria.true_description")],
    ),
    # option counts
    (
        "options-1",
        "gemini",
        gemini(q=choice_q(ids(1))),
        [("option.count", "$.questions.q.criteria")],
    ),
    ("options-2", "gemini", gemini(q=choice_q(ids(2))), []),
    ("options-255", "gemini", gemini(q=choice_q(ids(255))), []),
    (
        "options-256",
        "gemini",
        gemini(q=choice_q(ids(256))),
        [("option.count", "$.questions.q.criteria")],
    ),
    (
        "options-list",
        "gemini",
        gemini(q=choice_q(["a", "b"])),
        [("schema.type", "$.questions.q.criteria")],
    ),
    # option IDs
    ("id-128-chars", "gemini", gemini(q=choice_q({"a" * 128: "", "b": ""})), []),
    (
        "id-129-chars",
        "gemini",
        gemini(q=choice_q({"a" * 129: "", "b": ""})),
        [("option.id_length", f"$.questions.q.criteria.{'a' * 129}")],
    ),
    ("id-128-four-byte", "gemini", gemini(q=choice_q({FOUR_BYTE * 128: "", "b": ""})), []),
    (
        "id-128-flags",
        "gemini",
        gemini(q=choice_q({FLAG * 128: "", "b": ""})),
        [
            ("option.id_length", f'$.questions.q.criteria["{FLAG * 128}"]'),
            ("option.id_bytes", f'$.questions.q.criteria["{FLAG * 128}"]'),
        ],
    ),
    (
        "id-empty",
        "gemini",
        gemini(q=choice_q({"": "", "b": ""})),
        [("option.id_length", '$.questions.q.criteria[""]')],
    ),
    (
        "id-leading-space",
        "gemini",
        gemini(q=choice_q({" refund": "", "b": ""})),
        [("option.whitespace", '$.questions.q.criteria[" refund"]')],
    ),
    (
        "id-trailing-nbsp",
        "gemini",
        gemini(q={"type": "choice", "instructions": "x", "criteria": {"refund\xa0": "", "b": ""}}),
        [("option.whitespace", '$.questions.q.criteria["refund\\u00a0"]')],
    ),
    ("id-interior-space", "gemini", gemini(q=choice_q({"full refund": "", "b": ""})), []),
    ("id-interior-two-spaces", "gemini", gemini(q=choice_q({"full  refund": "", "b": ""})), []),
    (
        "id-interior-tab",
        "gemini",
        gemini(q=choice_q({"full\trefund": "", "b": ""})),
        [("option.control", '$.questions.q.criteria["full\\trefund"]')],
    ),
    (
        "id-interior-nbsp",
        "gemini",
        gemini(q=choice_q({"full\u00a0refund": "", "b": ""})),
        [("option.interior_whitespace", '$.questions.q.criteria["full\\u00a0refund"]')],
    ),
    (
        "id-interior-em-space",
        "gemini",
        gemini(q=choice_q({"full\u2003refund": "", "b": ""})),
        [("option.interior_whitespace", '$.questions.q.criteria["full\\u2003refund"]')],
    ),
    (
        "id-newline",
        "gemini",
        gemini(q=choice_q({"a\nb": "", "b": ""})),
        [("option.control", '$.questions.q.criteria["a\\nb"]')],
    ),
    (
        "id-del",
        "gemini",
        gemini(q=choice_q({"a\x7fb": "", "b": ""})),
        [("option.control", '$.questions.q.criteria["a\\u007fb"]')],
    ),
    (
        "id-c1-control",
        "gemini",
        gemini(q=choice_q({"a\x85b": "", "b": ""})),
        [("option.control", '$.questions.q.criteria["a\\u0085b"]')],
    ),
    (
        "id-zero-width-space",
        "gemini",
        gemini(q=choice_q({"a\u200bb": "", "b": ""})),
        [("option.format_char", '$.questions.q.criteria["a\\u200bb"]')],
    ),
    (
        "id-bom",
        "gemini",
        gemini(q=choice_q({"\ufeffa": "", "b": ""})),
        [("option.format_char", '$.questions.q.criteria["\\ufeffa"]')],
    ),
    ("id-private-use-ok", "gemini", gemini(q=choice_q({"a\ue000": "", "b": ""})), []),
    ("id-emoji-ok", "gemini", gemini(q=choice_q({"\U0001f600 happy": "", "sad": ""})), []),
    (
        "description-non-string",
        "gemini",
        gemini(q=choice_q({"a": 1, "b": None})),
        [("schema.type", "$.questions.q.criteria.a"), ("schema.type", "$.questions.q.criteria.b")],
    ),
    (
        "catch-all",
        "gemini",
        gemini(q=choice_q({"billing": "", "None_Of_The_Above": ""})),
        [("option.catch_all", "$.questions.q.criteria.None_Of_The_Above")],
    ),
    (
        "similar-case",
        "gemini",
        gemini(q=choice_q({"Refund": "", "refund": ""})),
        [("option.similar", "$.questions.q.criteria.refund")],
    ),
    (
        "similar-nfc",
        "gemini",
        gemini(q=choice_q({"caf\u00e9": "", "cafe\u0301": ""})),
        [("option.similar", '$.questions.q.criteria["cafe\u0301"]')],
    ),
    ("distinct-non-ascii", "gemini", gemini(q=choice_q({"caf\u00e9": "", "cafe": ""})), []),
    # score levels
    ("levels-1", "gemini", gemini(q=score_q(["a"])), [("level.count", "$.questions.q.criteria")]),
    ("levels-2", "gemini", gemini(q=score_q(["a", "b"])), []),
    ("levels-10", "gemini", gemini(q=score_q([str(i) for i in range(10)])), []),
    (
        "levels-11",
        "gemini",
        gemini(q=score_q([str(i) for i in range(11)])),
        [("level.many", "$.questions.q.criteria")],
    ),
    (
        "levels-255",
        "gemini",
        gemini(q=score_q([str(i) for i in range(255)])),
        [("level.many", "$.questions.q.criteria")],
    ),
    (
        "levels-256",
        "gemini",
        gemini(q=score_q([str(i) for i in range(256)])),
        [("level.count", "$.questions.q.criteria")],
    ),
    (
        "level-empty",
        "gemini",
        gemini(q=score_q(["a", ""])),
        [("level.empty", "$.questions.q.criteria[1]")],
    ),
    (
        "level-number",
        "gemini",
        gemini(q=score_q(["a", 2])),
        [("schema.type", "$.questions.q.criteria[1]")],
    ),
    (
        "level-duplicate",
        "gemini",
        gemini(q=score_q(["a", "b", "a"])),
        [("level.duplicate", "$.questions.q.criteria[2]")],
    ),
    (
        "levels-object",
        "gemini",
        gemini(q=score_q({"0": "a"})),
        [("schema.type", "$.questions.q.criteria")],
    ),
    # parallel members
    ("parallel-mode-fast", "parallel", with_(parallel(), _set(("mode",), "fast")), []),
    (
        "parallel-mode-slow",
        "parallel",
        with_(parallel(), _set(("mode",), "slow")),
        [("mode.unknown", "$.mode")],
    ),
    (
        "parallel-excerpts-bool",
        "parallel",
        with_(parallel(), _set(("include_excerpts",), False)),
        [],
    ),
    (
        "parallel-excerpts-string",
        "parallel",
        with_(parallel(), _set(("include_excerpts",), "true")),
        [("schema.type", "$.include_excerpts")],
    ),
    (
        "parallel-excerpts-zero",
        "parallel",
        with_(parallel(), _set(("include_excerpts",), 0)),
        [("schema.type", "$.include_excerpts")],
    ),
    (
        "parallel-state-any",
        "parallel",
        with_(parallel(), _set(("state",), [1, "two", None, {"x": 1.5}])),
        [],
    ),
    (
        "parallel-state-nan",
        "parallel",
        with_(parallel(), _set(("state",), {"x": float("nan")})),
        [("json.non_finite", "$.state.x")],
    ),
    (
        "parallel-missing-state",
        "parallel",
        with_(parallel(), _del(("state",))),
        [("schema.required", "$")],
    ),
    (
        "parallel-model-refused",
        "parallel",
        with_(parallel(), _set(("model",), "gemini-decision-1")),
        [("schema.unknown_member", "$.model")],
    ),
    (
        "gemini-state-refused",
        "gemini",
        with_(gemini(), _set(("state",), {})),
        [("schema.unknown_member", "$.state")],
    ),
    # Questions are checked together first: one odd question among clean ones.
    (
        "noul-criteria-array-next-to-a-clean-one",
        "gemini",
        gemini(
            a={"type": "noul", "instructions": "x?", "criteria": {"true_description": "y"}},
            b={"type": "noul", "instructions": "x?", "criteria": []},
        ),
        [("schema.type", "$.questions.b.criteria")],
    ),
    (
        "many-levels-among-clean-questions",
        "gemini",
        gemini(
            a=score_q(["x", "y"]),
            b=score_q([str(i) for i in range(11)]),
            c=choice_q({"A": "", "a": ""}),
            d=score_q([str(i) for i in range(12)]),
        ),
        [
            ("level.many", "$.questions.b.criteria"),
            ("option.similar", "$.questions.c.criteria.a"),
            ("level.many", "$.questions.d.criteria"),
        ],
    ),
    (
        "same-level-in-two-questions-is-fine",
        "gemini",
        gemini(a=score_q(["low", "high"]), b=score_q(["low", "high"])),
        [],
    ),
    (
        "same-option-in-two-questions-is-fine",
        "gemini",
        gemini(a=choice_q({"Yes": "", "No": ""}), b=choice_q({"yes": "", "no": ""})),
        [],
    ),
    (
        "repeated-level-in-one-of-many-questions",
        "gemini",
        gemini(a=score_q(["a", "b"]), b=score_q(["c", "c"]), c=score_q(["d", "e"])),
        [("level.duplicate", "$.questions.b.criteria[1]")],
    ),
    (
        "question-keys-and-questions-both-wrong",
        "gemini",
        gemini(**{"a b": score_q(["x"]), "ok": {"type": "noul"}}),
        [
            ("question.key_pattern", '$.questions["a b"]'),
            ("level.count", '$.questions["a b"].criteria'),
            ("schema.required", "$.questions.ok"),
        ],
    ),
]


def _found(body: Any, target: str) -> list[tuple[str, str]]:
    return [(p.code, p.json_path) for p in di.iter_problems(body, target=target)]


@pytest.mark.parametrize(
    ("target", "body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rule(target: str, body: Any, expected: list[tuple[str, str]]) -> None:
    assert _found(body, target) == expected


@pytest.mark.parametrize(
    ("target", "body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rule_on_json_text(target: str, body: Any, expected: list[tuple[str, str]]) -> None:
    if "nan" in str(body):
        pytest.skip("NaN is not JSON text")
    assert _found(json.dumps(body), target) == expected


SEED_REQUESTS = sorted(REQUESTS.glob("*.json"))


@pytest.mark.parametrize("path", SEED_REQUESTS, ids=[p.stem for p in SEED_REQUESTS])
def test_seed_examples_are_accepted(path: Path) -> None:
    target = "parallel" if path.name.startswith("parallel") else "gemini"
    assert [p for p in di.iter_problems(path.read_bytes(), target=target) if p.is_error] == []


def test_strict_turns_warnings_into_errors() -> None:
    body = gemini(q=score_q([str(i) for i in range(11)]))
    assert di.is_valid(body)
    assert not di.is_valid(body, strict=True)
    problems = list(di.iter_problems(body, strict=True))
    assert [(p.code, p.severity) for p in problems] == [("level.many", di.Severity.ERROR)]


def test_check_raises_with_every_problem() -> None:
    body = gemini(a={"type": "bool", "instructions": ""}, b=choice_q(ids(1)))
    with pytest.raises(di.InvalidInput) as info:
        di.check(body)
    assert info.value.codes == ("question.type", "instructions.empty", "option.count")
    assert isinstance(info.value, ValueError)


def test_check_returns_warnings() -> None:
    body = gemini(q=choice_q({"a": "", "none_of_the_above": ""}))
    assert [p.code for p in di.check(body)] == ["option.catch_all"]


def test_iter_problems_is_lazy() -> None:
    body = gemini(**{f"q{i}": {"type": "bool", "instructions": "x"} for i in range(1000)})
    problems = di.iter_problems(body)
    first = next(problems)
    assert first.json_path == "$.questions.q0.type"


def test_best_problem_prefers_errors_then_short_paths() -> None:
    body = gemini(q=choice_q({"a": "", "none_of_the_above": ""}))
    body["stream"] = True
    best = di.best_problem(di.iter_problems(body))
    assert best is not None and (best.code, best.json_path) == ("schema.unknown_member", "$.stream")
    assert di.best_problem([]) is None


def test_unknown_target() -> None:
    with pytest.raises(di.InvalidInput) as info:
        list(di.iter_problems({}, target="openai"))
    assert info.value.codes == ("target.unknown",)


def test_derived_limits_accept_a_new_model() -> None:
    mine = GEMINI.derive(MODELS=GEMINI.MODELS | {"gemini-decision-2"})
    body = with_(gemini(), _set(("model",), "gemini-decision-2"))
    assert _found(body, "gemini") == [("model.unknown", "$.model")]
    assert list(di.iter_problems(body, limits=mine)) == []
    assert "gemini-decision-2" not in GEMINI.MODELS
    prefixed = with_(gemini(), _set(("model",), "models/gemini-decision-2"))
    assert [(p.code, p.json_path) for p in di.iter_problems(prefixed, limits=mine)] == [
        ("model.prefixed", "$.model")
    ]


def test_model_prefixes_can_be_refused() -> None:
    strict = GEMINI.derive(MODEL_PREFIXES=())
    body = with_(gemini(), _set(("model",), "models/gemini-decision-1"))
    assert [(p.code, p.severity) for p in di.iter_problems(body, limits=strict)] == [
        ("model.unknown", di.Severity.ERROR)
    ]
    assert di.is_valid(body) and not di.is_valid(body, strict=True)


def test_parallel_instruction_blocks_can_be_allowed() -> None:
    relaxed = PARALLEL.derive(INSTRUCTION_FORMS=frozenset({"string", "block", "blocks"}))
    body = parallel(q={"type": "noul", "instructions": {"type": "text", "text": "Is it?"}})
    assert list(di.iter_problems(body, limits=relaxed)) == []


class _Model:
    """Stands in for a pydantic-style model: anything with ``model_dump``."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def model_dump(self, **options: Any) -> dict[str, Any]:
        assert options == {"mode": "json", "by_alias": True, "exclude_none": True}
        return self.body


def test_accepts_objects_with_model_dump() -> None:
    assert list(di.iter_problems(_Model(gemini()))) == []
    assert _found(_Model(with_(gemini(), _set(("stream",), 1))), "gemini") == [
        ("schema.unknown_member", "$.stream")
    ]


def test_accepts_a_real_pydantic_model() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Body(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        model: str
        input: str
        questions: dict[str, dict[str, str]]
        note: str | None = None

    body = Body(**gemini())
    assert list(di.iter_problems(body)) == []


# Python values that no JSON text can hold: refused with the code the text checks use.
VALUES: list[tuple[str, str, Any, list[tuple[str, str]]]] = [
    (
        "surrogate-in-input",
        "gemini",
        with_(gemini(), _set(("input",), "a\ud800")),
        [("json.lone_surrogate", "$.input")],
    ),
    (
        "surrogate-in-instructions",
        "gemini",
        gemini(q={"type": "noul", "instructions": "x\udc00"}),
        [("json.lone_surrogate", "$.questions.q.instructions")],
    ),
    (
        "surrogate-in-level",
        "gemini",
        gemini(q=score_q(["a\ud800", "b"])),
        [("json.lone_surrogate", "$.questions.q.criteria[0]")],
    ),
    (
        "surrogate-in-description",
        "gemini",
        gemini(q=choice_q({"a": "d\ud800", "b": ""})),
        [("json.lone_surrogate", "$.questions.q.criteria.a")],
    ),
    (
        "state-oddities",
        "parallel",
        with_(parallel(), _set(("state",), {"k\ud800": 1, "n": 10**400, 1: 2})),
        [
            ("json.lone_surrogate", '$.state["k\\ud800"]'),
            ("json.number_range", "$.state.n"),
            ("schema.type", "$.state[1]"),
        ],
    ),
    (
        "question-key-tuple",
        "gemini",
        gemini(**{}) | {"questions": {(1, 2): {"type": "noul", "instructions": "x"}}},
        [("schema.type", "$.questions[(1, 2)]")],
    ),
    (
        "option-id-float",
        "gemini",
        gemini(q=choice_q({1.5: "", "b": ""})),
        [("schema.type", "$.questions.q.criteria[1.5]")],
    ),
]


@pytest.mark.parametrize(
    ("target", "body", "expected"), [c[1:] for c in VALUES], ids=[c[0] for c in VALUES]
)
def test_python_values_without_json_text(
    target: str, body: Any, expected: list[tuple[str, str]]
) -> None:
    assert _found(body, target) == expected


def test_lone_surrogates_in_uris_and_metadata_are_refused() -> None:
    image = {"type": "image", "uri": "https://example.com/a\ud800.png", "mime_type": "image/png"}
    body = with_(gemini(), _set(("input",), [image]))
    # The URI rule refuses it, and the text of the same body holds no lone surrogate: a
    # mapping says both, as its text does.
    both = [("uri.syntax", "$.input[0].uri"), ("json.lone_surrogate", "$.input[0].uri")]
    assert _found(body, "gemini") == both
    assert sorted(_found(json.dumps(body), "gemini")) == sorted(both)
    note = {"type": "file_citation", "custom_metadata": {"k": "\ud800", "n": float("nan")}}
    block = {"type": "text", "text": "Is it?", "annotations": [note]}
    body = gemini(q={"type": "noul", "instructions": [block]})
    where = "$.questions.q.instructions[0].annotations[0].custom_metadata"
    assert _found(body, "gemini") == [
        ("annotation.in_request", "$.questions.q.instructions[0].annotations"),
        ("json.lone_surrogate", f"{where}.k"),
        ("json.non_finite", f"{where}.n"),
    ]


def test_a_state_that_holds_itself_is_refused_without_hanging() -> None:
    state: dict[str, Any] = {}
    state["a"] = state
    body = parallel()
    body["state"] = state
    assert _found(body, "parallel") == [("json.too_deep", "$.state.a")]
    with pytest.raises(di.InvalidInput):
        di.Request(target="parallel", state=state, questions={"q": di.noul("x?")})


def test_state_deeper_than_the_bound_is_refused() -> None:
    deep: Any = 0
    for _ in range(GEMINI.MAX_JSON_DEPTH + 5):
        deep = [deep]
    body = with_(parallel(), _set(("state",), deep))
    assert [code for code, _ in _found(body, "parallel")] == ["json.too_deep"]


def _nested_state(levels: int) -> dict[str, Any]:
    """A Parallel body whose deepest container is at ``levels``, the body being level 1."""
    deep: Any = 0
    for _ in range(levels - 1):
        deep = [deep]
    return with_(parallel(), _set(("state",), deep))


@pytest.mark.parametrize("levels", [GEMINI.MAX_JSON_DEPTH, GEMINI.MAX_JSON_DEPTH + 1])
def test_depth_counts_from_the_root_for_mappings_and_text_alike(levels: int) -> None:
    body = _nested_state(levels)
    as_mapping = _found(body, "parallel")
    assert as_mapping == _found(json.dumps(body), "parallel")
    assert as_mapping == _found(json.dumps(body).encode(), "parallel")
    if levels > GEMINI.MAX_JSON_DEPTH:
        path = "$.state" + "[0]" * (GEMINI.MAX_JSON_DEPTH - 1)
        assert as_mapping == [("json.too_deep", path)]
    else:
        assert as_mapping == []


def _nest(levels: int) -> Any:
    deep: Any = 0
    for _ in range(levels):
        deep = [deep]
    return deep


_PAST = GEMINI.MAX_JSON_DEPTH + 3
_FIRST_PAST = "[0]" * GEMINI.MAX_JSON_DEPTH  # the container at level MAX_JSON_DEPTH + 1


# (id, body, target, problems): nesting past the bound where the checks do not read is
# refused the same way as a mapping, as str and as bytes, and the rest is still checked.
TOO_DEEP_ELSEWHERE = [
    (
        "a-body-that-is-a-deep-array",
        _nest(_PAST),
        "gemini",
        [("schema.type", "$"), ("json.too_deep", "$" + _FIRST_PAST)],
    ),
    (
        "a-deep-state-and-an-unknown-member",
        {**parallel(), "state": _nest(_PAST), "type": 1},
        "parallel",
        [
            ("json.too_deep", "$.state" + "[0]" * (GEMINI.MAX_JSON_DEPTH - 1)),
            ("schema.unknown_member", "$.type"),
        ],
    ),
    (
        "a-deep-value-of-an-unknown-member",
        {**gemini(), "extra": _nest(_PAST)},
        "gemini",
        [
            ("schema.unknown_member", "$.extra"),
            ("json.too_deep", "$.extra" + "[0]" * (GEMINI.MAX_JSON_DEPTH - 1)),
        ],
    ),
]


@pytest.mark.parametrize(
    ("body", "target", "expected"),
    [c[1:] for c in TOO_DEEP_ELSEWHERE],
    ids=[c[0] for c in TOO_DEEP_ELSEWHERE],
)
def test_nesting_past_the_bound_anywhere_is_refused_in_every_form(
    body: Any, target: str, expected: list[tuple[str, str]]
) -> None:
    text = json.dumps(body)
    for form in (body, text, text.encode()):
        assert sorted(_found(form, target)) == sorted(expected)


def test_a_number_beyond_a_double_is_refused_in_a_typed_member() -> None:
    note = {"type": "url_citation", "url": "https://a.example", "start_index": 10**309}
    block = {"type": "text", "text": "Is it?", "annotations": [note]}
    body = gemini(q={"type": "noul", "instructions": [block]})
    where = "$.questions.q.instructions[0].annotations"
    for form in (body, json.dumps(body)):
        assert sorted(_found(form, "gemini")) == [
            ("annotation.in_request", where),
            ("json.number_range", where + "[0].start_index"),
        ]


@pytest.mark.parametrize("kind", [{"a": 1}, ["image"], None, 7, True], ids=repr)
def test_a_block_type_of_any_json_value_is_a_problem_of_its_own(kind: Any) -> None:
    block = {"type": kind, "text": "hi"}
    listed = with_(gemini(), _set(("input",), [block, {"type": "text", "text": "more"}]))
    single = with_(gemini(), _set(("input",), block))
    for body, where in ((listed, "$.input[0]"), (single, "$.input")):
        expected = (
            [("schema.required", where)]
            if kind is None
            else [("input.block_type", where + ".type")]
        )
        assert _found(body, "gemini") == expected
        assert _found(json.dumps(body), "gemini") == expected


class _Hostile(Mapping[str, Any]):
    """A mapping whose own methods raise, as a broken caller object might."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("boom")

    def __len__(self) -> int:
        return 1


def test_hostile_objects_give_a_problem_not_their_exception() -> None:
    assert _found(_Hostile(), "gemini") == [("schema.type", "$")]
    body = gemini(q=_Hostile())
    (last,) = [p for p in di.iter_problems(body) if p.path == ()]
    assert (last.code, "_Hostile" in last.message) == ("schema.type", True)


def test_a_failure_of_the_library_itself_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from decisions_input import validate

    def broken(body: Any, path: Any, limits: Any) -> Iterator[di.Problem]:
        yield di.Problem(("model",), "model.unknown", "found before the failure")
        raise KeyError("boom")

    monkeypatch.setattr(validate, "check_request", broken)
    for body in (gemini(), json.dumps(gemini()), json.dumps(gemini()).encode()):
        found = list(di.iter_problems(body))
        assert [(p.code, p.json_path) for p in found] == [
            ("model.unknown", "$.model"),
            ("internal.error", "$"),
        ]
        assert found[-1].message.startswith("internal error: the library failed on this body")
        assert "KeyError" in found[-1].message


def test_text_hazards_are_told_once() -> None:
    text = (
        b'{"state":{"a":Infinity,"b":1e400},"questions":{"q":{"type":"noul","instructions":"x"}}}'
    )
    assert _found(text, "parallel") == [
        ("json.non_finite", "$.state.a"),
        ("json.number_range", "$.state.b"),
    ]
