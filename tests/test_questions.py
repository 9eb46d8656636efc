"""Builders raise at once, with the validator's codes, and emit canonical JSON."""

from __future__ import annotations

from typing import Any

import pytest

import decisions_input as di

# (id, builder call, expected [(code, json_path)])
BAD: list[tuple[str, Any, list[tuple[str, str]]]] = [
    ("text-empty", lambda: di.text(""), [("text.empty", "$.text")]),
    ("text-not-string", lambda: di.text(3), [("schema.type", "$.text")]),
    ("noul-empty-instructions", lambda: di.noul(""), [("instructions.empty", "$.instructions")]),
    (
        "noul-bad-description",
        lambda: di.noul("x", true_description=1),  # type: ignore[arg-type]
        [("schema.type", "$.criteria.true_description")],
    ),
    ("choice-one-option", lambda: di.choice("x", ["a"]), [("option.count", "$.criteria")]),
    (
        "choice-duplicate-ids",
        lambda: di.choice("x", ["a", "b", "a"]),
        [("option.duplicate_id", "$.criteria.a")],
    ),
    (
        "choice-leading-space",
        lambda: di.choice("x", {" refund": "", "other": ""}),
        [("option.whitespace", '$.criteria[" refund"]')],
    ),
    ("choice-string-options", lambda: di.choice("x", "ab"), [("schema.type", "$.criteria")]),
    (
        "choice-unhashable-id",
        lambda: di.choice("x", [[], "a"]),  # type: ignore[list-item]
        [("schema.type", "$.criteria[0]")],
    ),
    (
        "choice-ids-not-strings",
        lambda: di.choice("x", ["a", [None], 3]),  # type: ignore[list-item]
        [("schema.type", "$.criteria[1]"), ("schema.type", "$.criteria[2]")],
    ),
    (
        "choice-description-number",
        lambda: di.choice("x", {"a": 1, "b": ""}),  # type: ignore[dict-item]
        [("schema.type", "$.criteria.a")],
    ),
    ("score-one-level", lambda: di.score("x", ["a"]), [("level.count", "$.criteria")]),
    ("score-string-levels", lambda: di.score("x", "abc"), [("schema.type", "$.criteria")]),
    ("score-empty-level", lambda: di.score("x", ["a", ""]), [("level.empty", "$.criteria[1]")]),
]


@pytest.mark.parametrize(("call", "expected"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_builders_refuse(call: Any, expected: list[tuple[str, str]]) -> None:
    with pytest.raises(di.InvalidInput) as info:
        call()
    assert [(p.code, p.json_path) for p in info.value.problems] == expected


def test_choice_from_sequence_has_empty_descriptions() -> None:
    q = di.choice("Which?", ["b", "a"])
    assert q.to_json() == {
        "criteria": {"a": "", "b": ""},
        "instructions": "Which?",
        "type": "choice",
    }


def test_choice_orders_options_by_utf8_bytes() -> None:
    q = di.choice(
        "Which?", {"\u00e9t\u00e9": "", "Zulu": "", "apple": "", "\U0001f600": "", "\uff21": ""}
    )
    assert list(q.to_json()["criteria"]) == [
        "Zulu",
        "apple",
        "\u00e9t\u00e9",
        "\uff21",
        "\U0001f600",
    ]
    encoded = [k.encode() for k in q.to_json()["criteria"]]
    assert encoded == sorted(encoded)


def test_builders_keep_warnings() -> None:
    q = di.choice("x", {"a": "", "none_of_the_above": ""})
    assert [p.code for p in q.warnings] == ["option.catch_all"]


def test_noul_with_descriptions() -> None:
    q = di.noul("Damaged?", true_description="Visible damage.", false_description="")
    assert q.to_json() == {
        "criteria": {"false_description": "", "true_description": "Visible damage."},
        "instructions": "Damaged?",
        "type": "noul",
    }


def test_instructions_as_blocks() -> None:
    q = di.score([di.text("How severe "), di.text("is it?")], ["low", "high"])
    assert q.to_json()["instructions"] == [
        {"text": "How severe ", "type": "text"},
        {"text": "is it?", "type": "text"},
    ]


def test_questions_are_immutable() -> None:
    q = di.choice("x", {"a": "", "b": ""})
    with pytest.raises(AttributeError):
        q.type = "noul"  # type: ignore[misc]
    with pytest.raises(TypeError):
        q.criteria["c"] = ""  # type: ignore[index]
