"""Specs: the API's own names are read, and every problem sits at its own line.

A spec may say ``criteria`` (the API's name) instead of ``options``, ``levels`` or the noul
descriptions, and write input blocks as the API does (``type: text``, ``type: image`` with
``uri``); the request built is the same. A media file that cannot be read is a
``source.unreadable`` problem at its line, and the other problems are still reported.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from decisions_input.cli import main

ROOT = Path(__file__).resolve().parent.parent
JPEG = ROOT / "testdata" / "media" / "jpeg_baseline.jpg"

HEAD = "model: gemini-decision-1\ninput: [Hello there.]\nquestions:\n"


def run(*argv: str, stdin: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def build(spec: str) -> tuple[int, str, str]:
    return run("build", "-", "--format", "json", stdin=io.StringIO(spec))


def found(out: str) -> list[tuple[str, str, int, int]]:
    doc = json.loads(out)
    return [(p["code"], p["json_path"], p["line"], p["column"]) for p in doc["problems"]]


# (id, the question in the spec's names, the same in the API's names)
SAME_REQUEST = [
    (
        "choice",
        "  q:\n    type: choice\n    instructions: Which?\n    options: {a: A., b: B.}\n",
        "  q:\n    type: choice\n    instructions: Which?\n    criteria: {a: A., b: B.}\n",
    ),
    (
        "choice-list",
        "  q:\n    type: choice\n    instructions: Which?\n    options: [a, b]\n",
        "  q:\n    type: choice\n    instructions: Which?\n    criteria: [a, b]\n",
    ),
    (
        "score",
        "  q:\n    type: score\n    instructions: How bad?\n    levels: [Low, High]\n",
        "  q:\n    type: score\n    instructions: How bad?\n    criteria: [Low, High]\n",
    ),
    (
        "noul",
        "  q:\n    type: noul\n    instructions: Is it?\n    true_description: Yes.\n",
        "  q:\n    type: noul\n    instructions: Is it?\n    criteria:\n"
        "      true_description: Yes.\n",
    ),
]


@pytest.mark.parametrize(
    ("ours", "apis"), [c[1:] for c in SAME_REQUEST], ids=[c[0] for c in SAME_REQUEST]
)
def test_the_apis_names_build_the_same_request(ours: str, apis: str) -> None:
    code, built, err = run("build", "-", stdin=io.StringIO(HEAD + ours))
    assert code == 0, err
    assert run("build", "-", stdin=io.StringIO(HEAD + apis)) == (0, built, "")


def test_input_blocks_in_the_apis_form_build_the_same_request() -> None:
    ours = (
        "model: gemini-decision-1\ninput:\n  - text: Hello.\n"
        "  - image: https://example.com/a.png\n    mime_type: image/png\n"
        "questions:\n  q: {type: noul, instructions: Is it red}\n"
    )
    apis = (
        "model: gemini-decision-1\ninput:\n  - type: text\n    text: Hello.\n"
        "  - type: image\n    uri: https://example.com/a.png\n    mime_type: image/png\n"
        "questions:\n  q: {type: noul, instructions: Is it red}\n"
    )
    code, built, err = run("build", "-", stdin=io.StringIO(ours))
    assert code == 0, err
    assert run("build", "-", stdin=io.StringIO(apis)) == (0, built, "")


# (id, the spec below HEAD's questions or whole, the problems: code, path, line, column)
PLACED = [
    (
        "criteria-problem-at-its-own-line",
        HEAD + "  q:\n    type: choice\n    instructions: Which?\n    criteria:\n"
        "      ' a': A.\n      b: B.\n",
        [("option.whitespace", '$.questions.q.criteria[" a"]', 8, 7)],
    ),
    (
        "score-criteria-too-few",
        HEAD + "  q:\n    type: score\n    instructions: How?\n    criteria: [One]\n",
        [("level.count", "$.questions.q.criteria", 7, 15)],
    ),
    (
        "both-names",
        HEAD + "  q:\n    type: choice\n    instructions: Which?\n    options: [a, b]\n"
        "    criteria: [a, b]\n",
        [("schema.unknown_member", "$.questions.q.options", 7, 5)],
    ),
    (
        "noul-criteria-unknown-member",
        HEAD + "  q:\n    type: noul\n    instructions: Is it?\n    criteria:\n      colour: red\n",
        [("schema.unknown_member", "$.questions.q.criteria.colour", 8, 7)],
    ),
    (
        "inline-data",
        "model: gemini-decision-1\ninput:\n  - type: image\n    data: AAAA\n"
        "questions:\n  q: {type: noul, instructions: Is it red}\n",
        [("schema.unknown_member", "$.input[0].data", 4, 5)],
    ),
    (
        "unknown-block-type",
        "model: gemini-decision-1\ninput:\n  - type: picture\n    uri: https://example.com/a\n"
        "questions:\n  q: {type: noul, instructions: Is it red}\n",
        [("input.block_type", "$.input[0].type", 3, 11)],
    ),
    (
        "api-form-uri-problem",
        "model: gemini-decision-1\ninput:\n  - type: audio\n    uri: gs://b/a.wav\n"
        "    mime_type: audio/wav\nquestions:\n  q: {type: noul, instructions: Is it red}\n",
        [("uri.gcs", "$.input[0].uri", 4, 10)],
    ),
]


@pytest.mark.parametrize(("spec", "problems"), [c[1:] for c in PLACED], ids=[c[0] for c in PLACED])
def test_problems_sit_at_their_own_line(
    spec: str, problems: list[tuple[str, str, int, int]]
) -> None:
    code, out, err = build(spec)
    assert code == 1, err
    assert found(out) == problems


def test_a_missing_media_file_is_a_problem_at_its_line_and_the_rest_is_reported(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "model: gemini-decision-1\ninput:\n  - image: photos/missing.jpg\n  - ''\n"
        "  - audio: folder\nquestions:\n  q: {type: noul, instructions: Is it red}\n"
    )
    (tmp_path / "folder").mkdir()
    code, out, err = run("build", str(spec), "--format", "json")
    assert (code, err) == (1, "")
    assert found(out) == [
        ("source.unreadable", "$.input[0].image", 3, 12),
        ("text.empty", "$.input[1]", 4, 5),
        ("source.unreadable", "$.input[2].audio", 5, 12),
    ]
    messages = [p["message"] for p in json.loads(out)["problems"]]
    assert messages[0] == (
        f"cannot read photos/missing.jpg ({tmp_path / 'photos' / 'missing.jpg'}): it does not exist"
    )
    assert messages[2].endswith("it is a directory, not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_named_by_a_spec_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jpg")
    spec = "model: gemini-decision-1\ninput:\n  - image: pipe.jpg\nquestions:\n"
    spec += "  q: {type: noul, instructions: Is it red}\n"
    (tmp_path / "spec.yaml").write_text(spec)
    code, out, _ = run("build", str(tmp_path / "spec.yaml"), "--format", "json")
    assert code == 1
    assert found(out) == [("source.unreadable", "$.input[0].image", 3, 12)]


def test_a_spec_on_standard_input_reads_media_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(JPEG, tmp_path / "photo.jpg")
    monkeypatch.chdir(tmp_path)
    spec = "model: gemini-decision-1\ninput:\n  - image: photo.jpg\nquestions:\n"
    spec += "  q: {type: noul, instructions: Is it red}\n"
    code, out, err = run("build", "-", stdin=io.StringIO(spec))
    assert code == 0, err
    assert json.loads(out)["input"][0]["mime_type"] == "image/jpeg"


def test_validate_points_a_yaml_file_to_build(tmp_path: Path) -> None:
    spec = tmp_path / "ticket.yaml"
    shutil.copy(ROOT / "testdata" / "specs" / "ticket.yaml", spec)
    code, out, _ = run("validate", str(spec))
    assert code == 1
    assert "a YAML file is a spec: build it with 'decisions-input build'" in out


def test_build_shows_at_most_the_cap_and_counts_the_rest() -> None:
    spec = HEAD + "".join(f"  q{i}:\n    type: noul\n    instructions: ''\n" for i in range(5))
    code, out, _ = run("build", "-", "--max-problems", "2", stdin=io.StringIO(spec))
    assert code == 1
    lines = out.splitlines()
    assert len([line for line in lines if " error instructions.empty " in line]) == 2
    assert lines[-1] == (
        "1 file, 5 errors, 0 warnings; 3 problems not shown "
        "(at most 2 a file; --max-problems 0 shows all)"
    )


# (id, file name, text): documents nesting deeper than MAX_JSON_DEPTH, which the YAML and
# JSON readers would follow until the stack ran out.
_DEPTH = 128
DEEP_DOCUMENTS = [
    ("yaml-flow", "deep.yaml", "[" * 2000 + "]" * 2000 + "\n", (1, _DEPTH + 1)),
    (
        "yaml-block",
        "deep.yaml",
        "".join(" " * i + "a:\n" for i in range(300)) + " " * 300 + "b: 1\n",
        (_DEPTH + 1, _DEPTH + 1),
    ),
    ("yaml-unclosed", "deep.yml", "[" * 600 + "\n", (1, _DEPTH + 1)),
    # JSON that json.loads reads on every Python: the bound, not the stack, refuses it
    ("json-arrays", "deep.json", "[" * 200 + "]" * 200 + "\n", (1, _DEPTH + 1)),
    ("json-objects", "deep.json", '{"a": ' * 200 + "1" + "}" * 200, (1, 6 * _DEPTH + 1)),
]


# estimate reads a .json file as a request body, whose own checks place its depth.
DEEP_CASES = [
    pytest.param(command, *d[1:], id=f"{d[0]}-{command}")
    for d in DEEP_DOCUMENTS
    for command in ("build", "estimate", "schemas lint")
    if not (command == "estimate" and d[1].endswith(".json"))
]


@pytest.mark.parametrize(("command", "name", "text", "place"), DEEP_CASES)
def test_a_document_nested_past_the_bound_is_refused_at_its_place(
    tmp_path: Path, command: str, name: str, text: str, place: tuple[int, int]
) -> None:
    from decisions_input import GEMINI

    assert GEMINI.MAX_JSON_DEPTH == _DEPTH
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run(*command.split(), str(path), "--format", "json")
    assert "internal error" not in err and "Traceback" not in err
    line, column = place
    if command == "schemas lint":  # a schema file is linted: the problem is in the report
        assert code == 1
        assert found(out) == [("json.too_deep", "$", line, column)]
    else:  # a spec that cannot be read is refused with its place, exit 2
        assert (code, out) == (2, "" if command == "build" else "[]\n")
        assert f"{path}:{line}:{column}: expected at most {_DEPTH} levels of nesting" in err


def test_a_json_schema_file_nested_past_the_stack_is_json_too_deep(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 5000 + "]" * 5000)
    code, out, err = run("schemas", "lint", str(path), "--format", "json")
    assert (code, err) == (1, "")
    assert [p[0] for p in found(out)] == ["json.too_deep"]
