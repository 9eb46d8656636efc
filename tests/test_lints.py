"""Lints: warnings for what the API accepts but its writer almost surely did not mean.

Each table gives every problem of a body, as (code, severity, JSON path), on both sides of a
lint, and holds for the body as a mapping, as ``str`` and as ``bytes``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input.limits import PARALLEL
from tests.strategies import (
    blank_texts,
    join_texts,
    lint_requests,
    state_values,
    unspaced_texts,
)

W, E = "warning", "error"
REQUESTS = Path(__file__).parent.parent / "testdata" / "requests"
SEED_REQUESTS = sorted(REQUESTS.glob("*.json"))


def gemini(input_: Any = "I was charged twice.", **questions: Any) -> dict[str, Any]:
    return {
        "model": "gemini-decision-1",
        "input": input_,
        "questions": questions or {"q": {"type": "noul", "instructions": "Is it billing?"}},
    }


def parallel(state: Any = None, **questions: Any) -> dict[str, Any]:
    return {
        "state": {"company": "Clay"} if state is None else state,
        "questions": questions or {"q": {"type": "noul", "instructions": "Is there a CLI?"}},
    }


def texts(*parts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": part} for part in parts]


def noul(instructions: Any) -> dict[str, Any]:
    return {"type": "noul", "instructions": instructions}


def score(levels: list[str]) -> dict[str, Any]:
    return {"type": "score", "instructions": "How severe is it?", "criteria": levels}


def annotated(annotations: Any) -> dict[str, Any]:
    return noul([{"type": "text", "text": "Is it billing?", "annotations": annotations}])


CITATION = {"type": "url_citation", "url": "https://example.com", "start_index": 0}
INSTRUCTIONS = "$.questions.q.instructions"
LEVELS = "$.questions.q.criteria"


def _forms(body: Any) -> list[Any]:
    text = json.dumps(body, ensure_ascii=False)
    return [body, text, text.encode("utf-8")]


def _found(body: Any, target: str, **options: Any) -> list[tuple[str, str, str]]:
    return [
        (p.code, p.severity.value, p.json_path)
        for p in di.iter_problems(body, target=target, **options)
    ]


def _target(path: Path) -> str:
    return "parallel" if path.name.startswith("parallel") else "gemini"


# --- text.run_together -------------------------------------------------------------------

# Text blocks joined letter to letter, or across the end of a sentence.
JOINS: list[tuple[str, str, Any, list[tuple[str, str, str]]]] = [
    (
        "join-letters",
        "gemini",
        gemini(texts("late", "Customer")),
        [("text.run_together", W, "$.input[1]")],
    ),
    (
        "join-sentence",
        "gemini",
        gemini(texts("I was late.", "Customer wrote again.")),
        [("text.run_together", W, "$.input[1]")],
    ),
    (
        "join-question-mark",
        "gemini",
        gemini(texts("Why?", "Nobody knows.")),
        [("text.run_together", W, "$.input[1]")],
    ),
    (
        "join-exclamation-ellipsis",
        "gemini",
        gemini(texts("Wait...", "Then it broke!", "Again")),
        [
            ("text.run_together", W, "$.input[1]"),
            ("text.run_together", W, "$.input[2]"),
        ],
    ),
    (
        "join-closing-quote",
        "gemini",
        gemini(texts('He said "stop."', "Then he left.")),
        [("text.run_together", W, "$.input[1]")],
    ),
    (
        "join-opening-bracket",
        "gemini",
        gemini(texts("It was late.", "(See the log.)")),
        [("text.run_together", W, "$.input[1]")],
    ),
    (
        "join-initial",
        "gemini",
        gemini(texts("Signed by Mr.", "Smith")),
        [("text.run_together", W, "$.input[1]")],
    ),
    (
        "join-sentence-uncased-script",
        "gemini",
        gemini(texts("It was late.", "שלום")),
        [("text.run_together", W, "$.input[1]")],
    ),
    ("join-sentence-spaced", "gemini", gemini(texts("I was late. ", "Customer")), []),
    ("join-sentence-newline", "gemini", gemini(texts("I was late.", "\nCustomer")), []),
    ("join-decimal-point", "gemini", gemini(texts("It weighs 3.", "5 kg.")), []),
    ("join-lower-case", "gemini", gemini(texts("Write to example.", "com today.")), []),
    ("join-url", "gemini", gemini(texts("https://example.com/search?", "Q=late")), []),
    ("join-path", "gemini", gemini(texts("Open /srv/Reports.", "Final")), []),
    ("join-host-name", "gemini", gemini(texts("Visit www.example.", "Com")), []),
    ("join-email", "gemini", gemini(texts("Mail ann@example.", "Org")), []),
    ("join-abbreviation", "gemini", gemini(texts("Some, e.g.", "Customers")), []),
    ("join-version", "gemini", gemini(texts("Since v2.1.", "Upgrade")), []),
    ("join-cjk", "gemini", gemini(texts("日本", "語")), []),
    ("join-cjk-sentence", "gemini", gemini(texts("遅れました。", "次")), []),
    ("join-sentence-before-cjk", "gemini", gemini(texts("It was late.", "日本")), []),
    ("join-cjk-then-period", "gemini", gemini(texts("日本語.", "Customer")), []),
    ("join-thai", "gemini", gemini(texts("ครับ", "ครับ")), []),
    ("join-lao", "gemini", gemini(texts("ສະບາຍ", "ດີ")), []),
    ("join-myanmar", "gemini", gemini(texts("မင်္ဂလာ", "ပါ")), []),
    ("join-khmer", "gemini", gemini(texts("សួស", "ស្តី")), []),
    ("join-halfwidth-katakana", "gemini", gemini(texts("ｶﾀ", "ｶﾅ")), []),
    ("join-thai-sentence", "gemini", gemini(texts("It was late.", "ครับ")), []),
    # Found by fuzzing: a full stop after a Thai vowel sign, a mark rather than a letter.
    ("join-thai-vowel-sign-period", "gemini", gemini(texts("คั.", "Next")), []),
    (
        "join-across-image",
        "gemini",
        gemini(
            [
                {"type": "text", "text": "It was late."},
                {"type": "image", "uri": "https://example.com/a.png", "mime_type": "image/png"},
                {"type": "text", "text": "Customer"},
            ]
        ),
        [],
    ),
]


def test_a_request_keeps_a_sentence_join() -> None:
    req = di.Request(
        model="gemini-decision-1",
        input=[di.text("I was late."), di.text("Customer wrote again.")],
        questions={"q": di.noul("Is it billing?")},
    )
    assert [(p.code, p.json_path) for p in req.warnings] == [("text.run_together", "$.input[1]")]


def _split_at_spaces(text: str, keep_left: bool) -> list[dict[str, str]]:
    """The text cut at every white-space run, the run kept with the word before it or
    with the word after it."""
    parts = re.split(r"(\s+)", text)  # words at even places, white space at odd ones
    if keep_left:
        pieces = ["".join(parts[i : i + 2]) for i in range(0, len(parts), 2)]
    else:
        pieces = [parts[0]] + ["".join(parts[i : i + 2]) for i in range(1, len(parts), 2)]
    return texts(*(p for p in pieces if p))


@pytest.mark.parametrize("keep_left", [True, False], ids=["space-ends-block", "space-opens-block"])
@pytest.mark.parametrize("path", SEED_REQUESTS, ids=[p.stem for p in SEED_REQUESTS])
def test_no_lint_fires_on_the_seed_examples_cut_at_their_spaces(
    path: Path, keep_left: bool
) -> None:
    """The seed examples are clean, and stay clean with their text input cut into blocks
    at every space: a writer who keeps the spaces joins nothing."""
    body = json.loads(path.read_text())
    for form in _forms(body):
        assert _found(form, _target(path)) == []
    if isinstance(body.get("input"), str):
        body["input"] = _split_at_spaces(body["input"], keep_left)
    elif isinstance(body.get("input"), list):
        body["input"] = [
            piece
            for block in body["input"]
            for piece in (
                _split_at_spaces(block["text"], keep_left) if block["type"] == "text" else [block]
            )
        ]
    for form in _forms(body):
        assert _found(form, _target(path)) == []


@settings(max_examples=200, deadline=None)
@given(words=st.lists(join_texts, min_size=2, max_size=6), keep_left=st.booleans())
def test_text_cut_at_its_spaces_never_runs_together(words: list[str], keep_left: bool) -> None:
    body = gemini(_split_at_spaces(" ".join(words), keep_left))
    assert "text.run_together" not in [code for code, _, _ in _found(body, "gemini")]


@settings(max_examples=200, deadline=None)
@given(text=unspaced_texts, data=st.data())
def test_text_without_word_spaces_is_cut_anywhere_without_a_lint(
    text: str, data: st.DataObject
) -> None:
    cut = data.draw(st.integers(1, len(text) - 1))
    for left, right in ((text[:cut], text[cut:]), ("It was late.", text), (text + ".", "Next")):
        body = gemini(texts(left, right))
        assert "text.run_together" not in [code for code, _, _ in _found(body, "gemini")]


@settings(max_examples=200, deadline=None)
@given(
    word=st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8),
    name=st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=1),
    end=st.sampled_from([".", "!", "?", "...", ".)", '."', "?\u201d", "", "!'"]),
)
def test_a_sentence_end_meeting_a_capital_runs_together(word: str, name: str, end: str) -> None:
    body = gemini(texts(f"It was {word}{end}", f"{name}ustomer wrote."))
    assert _found(body, "gemini") == [("text.run_together", W, "$.input[1]")]


# --- state.integer_precision -------------------------------------------------------------

# Integers of Parallel's state on both sides of what a double holds exactly.
STATE_INTEGERS: list[tuple[str, str, Any, list[tuple[str, str, str]]]] = [
    ("state-2^53", "parallel", parallel({"id": 2**53}), []),
    (
        "state-2^53+1",
        "parallel",
        parallel({"id": 2**53 + 1}),
        [("state.integer_precision", W, "$.state.id")],
    ),
    (
        "state-below-minus-2^53",
        "parallel",
        parallel({"id": -(2**53) - 1}),
        [("state.integer_precision", W, "$.state.id")],
    ),
    ("state-minus-2^53", "parallel", parallel({"id": -(2**53)}), []),
    ("state-exact-large", "parallel", parallel({"id": 2**60}), []),
    ("state-snowflake-ids", "parallel", parallel({"ids": [1, 1541815603606036480, 7]}), []),
    (
        "state-inexact-in-array",
        "parallel",
        parallel({"ids": [1, 1541815603606036481, 7]}),
        [("state.integer_precision", W, "$.state.ids[1]")],
    ),
    (
        "state-top-level",
        "parallel",
        parallel(12345678901234567891),
        [("state.integer_precision", W, "$.state")],
    ),
    (
        "state-under-odd-key",
        "parallel",
        parallel({"a b": {"": 2**64 + 1}}),
        [("state.integer_precision", W, '$.state["a b"][""]')],
    ),
    ("state-float", "parallel", parallel({"x": 1e20, "y": 9007199254740993.0}), []),
    ("state-boolean", "parallel", parallel({"ok": True, "no": False}), []),
    ("state-integer-string", "parallel", parallel({"id": "9007199254740993"}), []),
    (
        "state-beyond-double",
        "parallel",
        parallel({"n": 10**400}),
        [("json.number_range", E, "$.state.n")],
    ),
    (
        "state-on-gemini",
        "gemini",
        gemini() | {"state": 2**53 + 1},
        [("schema.unknown_member", E, "$.state")],
    ),
]


def test_a_derived_table_turns_the_integer_lint_off() -> None:
    body = parallel({"id": 2**53 + 1})
    assert list(di.iter_problems(body, limits=PARALLEL.derive(MAX_EXACT_STATE_INTEGER=None))) == []


def test_the_integer_lint_says_what_a_double_reads() -> None:
    (problem,) = di.iter_problems(parallel({"id": 2**53 + 1}), target="parallel")
    assert "9007199254740993" in problem.message and "9007199254740992" in problem.message


def _inexact_integers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Where a double would not hold an integer of the value, by its own walk."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _inexact_integers(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _inexact_integers(v, (*path, i))]
    exact = isinstance(value, bool) or not isinstance(value, int)
    if exact or abs(value) > sys.float_info.max:
        return []
    return [path] if float(value) != value else []


@settings(max_examples=300, deadline=None)
@given(state=state_values)
def test_the_integer_lint_finds_every_integer_a_double_changes(state: Any) -> None:
    expected = [("state", *p) for p in _inexact_integers(state)]
    for form in _forms(parallel(state)):
        found = [p.path for p in di.iter_problems(form, target="parallel")]
        assert found == expected


# --- instructions.blank, level.blank -----------------------------------------------------

# White space alone, in every form of instructions, and as a score level.
BLANKS: list[tuple[str, str, Any, list[tuple[str, str, str]]]] = [
    (
        "instructions-blank-string",
        "gemini",
        gemini(q=noul(" \n")),
        [("instructions.blank", W, INSTRUCTIONS)],
    ),
    (
        "instructions-blank-nbsp",
        "gemini",
        gemini(q=noul("\u00a0\u3000")),
        [("instructions.blank", W, INSTRUCTIONS)],
    ),
    (
        "instructions-blank-block",
        "gemini",
        gemini(q=noul({"type": "text", "text": "\t"})),
        [("instructions.blank", W, INSTRUCTIONS)],
    ),
    (
        "instructions-blank-blocks",
        "gemini",
        gemini(q=noul(texts(" ", "\n"))),
        [("instructions.blank", W, INSTRUCTIONS)],
    ),
    (
        "instructions-blank-and-empty-blocks",
        "gemini",
        gemini(q=noul(texts("", " "))),
        [
            ("instructions.blank", W, INSTRUCTIONS),
            ("text.empty", E, INSTRUCTIONS + "[0].text"),
        ],
    ),
    ("instructions-blank-separator", "gemini", gemini(q=noul(texts("Is it", " ", "billing?"))), []),
    ("instructions-padded", "gemini", gemini(q=noul("  Is it billing?  ")), []),
    ("instructions-block-padded", "gemini", gemini(q=noul({"type": "text", "text": " x "})), []),
    (
        "instructions-empty-block",
        "gemini",
        gemini(q=noul({"type": "text", "text": ""})),
        [("text.empty", E, INSTRUCTIONS + ".text")],
    ),
    (
        "instructions-block-not-text",
        "gemini",
        gemini(q=noul([{"type": "text", "text": 5}])),
        [("schema.type", E, INSTRUCTIONS + "[0].text")],
    ),
    (
        "parallel-instructions-blank",
        "parallel",
        parallel(q=noul("   ")),
        [("instructions.blank", W, INSTRUCTIONS)],
    ),
    ("parallel-instructions-set", "parallel", parallel(q=noul("Is there a CLI?")), []),
    # level.blank: a score level of white space alone (an empty one is an error)
    (
        "level-blank",
        "gemini",
        gemini(q=score(["Cosmetic", " "])),
        [("level.blank", W, LEVELS + "[1]")],
    ),
    (
        "level-blank-non-ascii",
        "gemini",
        gemini(q=score(["Niedrig", "\u3000", "Hoch"])),
        [("level.blank", W, LEVELS + "[1]")],
    ),
    (
        "level-blank-twice",
        "gemini",
        gemini(q=score(["\t", "\t"])),
        [
            ("level.blank", W, LEVELS + "[0]"),
            ("level.blank", W, LEVELS + "[1]"),
            ("level.duplicate", W, LEVELS + "[1]"),
        ],
    ),
    (
        "level-blank-and-empty",
        "gemini",
        gemini(q=score([" ", ""])),
        [
            ("level.blank", W, LEVELS + "[0]"),
            ("level.empty", E, LEVELS + "[1]"),
        ],
    ),
    ("level-padded", "gemini", gemini(q=score([" Low", "High "])), []),
    ("level-empty", "gemini", gemini(q=score(["Low", ""])), [("level.empty", E, LEVELS + "[1]")]),
    (
        "parallel-level-blank",
        "parallel",
        parallel(q=score(["Low", "\n"])),
        [("level.blank", W, LEVELS + "[1]")],
    ),
    ("parallel-levels-set", "parallel", parallel(q=score(["Low", "High"])), []),
    # descriptions may be empty, so one of white space says no less: no lint
    (
        "noul-description-blank",
        "gemini",
        gemini(
            q=noul("Is it?")
            | {
                "criteria": {"true_description": " ", "false_description": ""},
            }
        ),
        [],
    ),
    (
        "option-description-blank",
        "gemini",
        gemini(
            q={
                "type": "choice",
                "instructions": "Which?",
                "criteria": {"a": " ", "b": ""},
            }
        ),
        [],
    ),
]


BUILT: list[tuple[str, Any, list[tuple[str, str]]]] = [
    ("noul-blank", lambda: di.noul("  "), [("instructions.blank", "$.instructions")]),
    ("noul-blank-block", lambda: di.noul(di.text(" ")), [("instructions.blank", "$.instructions")]),
    (
        "noul-blank-blocks",
        lambda: di.noul([di.text(" "), di.text("\n")]),
        [("instructions.blank", "$.instructions")],
    ),
    ("score-blank-level", lambda: di.score("x", ["a", " "]), [("level.blank", "$.criteria[1]")]),
    ("score-levels-set", lambda: di.score("x", ["a", "b"]), []),
]


@pytest.mark.parametrize(("call", "expected"), [c[1:] for c in BUILT], ids=[c[0] for c in BUILT])
def test_builders_keep_the_lints(call: Any, expected: list[tuple[str, str]]) -> None:
    assert [(p.code, p.json_path) for p in call().warnings] == expected


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(blank_texts, min_size=1, max_size=3),
    form=st.sampled_from(["string", "block", "blocks"]),
    target=st.sampled_from(["gemini", "parallel"]),
)
def test_instructions_are_blank_when_their_text_is_white_space_alone(
    parts: list[str], form: str, target: str
) -> None:
    if form == "block":
        parts = parts[:1]
    instructions: Any = "".join(parts) if form == "string" else texts(*parts)
    if form == "block":
        instructions = instructions[0]
    joined = "".join(parts)
    body = (gemini if target == "gemini" else parallel)(q=noul(instructions))
    codes = [code for code, _, _ in _found(body, target)]
    blank = bool(joined) and joined.isspace() and (form == "string" or target == "gemini")
    assert ("instructions.blank" in codes) == blank


@settings(max_examples=300, deadline=None)
@given(levels=st.lists(blank_texts, min_size=2, max_size=12))
def test_every_level_of_white_space_alone_is_blank(levels: list[str]) -> None:
    found = [
        path for code, _, path in _found(gemini(q=score(levels)), "gemini") if code == "level.blank"
    ]
    assert found == [f"{LEVELS}[{i}]" for i, level in enumerate(levels) if level.isspace()]


# --- annotation.in_request ---------------------------------------------------------------

# Annotations on an instruction block, and where blocks take none.
ANNOTATIONS: list[tuple[str, str, Any, list[tuple[str, str, str]]]] = [
    (
        "annotations",
        "gemini",
        gemini(q=annotated([CITATION])),
        [("annotation.in_request", W, INSTRUCTIONS + "[0].annotations")],
    ),
    (
        "annotations-one-block",
        "gemini",
        gemini(
            q=noul(
                {
                    "type": "text",
                    "text": "Is it?",
                    "annotations": [CITATION, CITATION],
                }
            )
        ),
        [("annotation.in_request", W, INSTRUCTIONS + ".annotations")],
    ),
    ("annotations-empty", "gemini", gemini(q=annotated([])), []),
    (
        "annotations-unknown-type",
        "gemini",
        gemini(q=annotated([{"type": "footnote"}])),
        [
            ("annotation.in_request", W, INSTRUCTIONS + "[0].annotations"),
            ("annotation.type", E, INSTRUCTIONS + "[0].annotations[0].type"),
        ],
    ),
    (
        "annotations-not-array",
        "gemini",
        gemini(q=annotated(CITATION)),
        [("schema.type", E, INSTRUCTIONS + "[0].annotations")],
    ),
    (
        "annotations-on-input-block",
        "gemini",
        gemini(
            [
                {"type": "text", "text": "Late.", "annotations": [CITATION]},
            ]
        ),
        [("schema.unknown_member", E, "$.input[0].annotations")],
    ),
    (
        "parallel-annotations",
        "parallel",
        parallel(q=annotated([CITATION])),
        [("instructions.form", E, INSTRUCTIONS)],
    ),
]


def test_parallel_annotations_are_unknown_where_blocks_are_allowed() -> None:
    relaxed = PARALLEL.derive(INSTRUCTION_FORMS=frozenset({"string", "block", "blocks"}))
    body = parallel(q=annotated([CITATION]))
    found = [(p.code, p.json_path) for p in di.iter_problems(body, limits=relaxed)]
    assert found == [("schema.unknown_member", INSTRUCTIONS + "[0].annotations")]


# --- every lint --------------------------------------------------------------------------

CASES = [*JOINS, *STATE_INTEGERS, *BLANKS, *ANNOTATIONS]


@pytest.mark.parametrize("form", ["mapping", "str", "bytes"])
@pytest.mark.parametrize(
    ("target", "body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_lint(target: str, body: Any, expected: list[tuple[str, str, str]], form: str) -> None:
    given_as = _forms(body)[["mapping", "str", "bytes"].index(form)]
    assert _found(given_as, target) == expected


def test_strict_makes_the_lints_errors() -> None:
    body = gemini(texts("late.", "Customer"), q=score(["Low", " "]))
    assert _found(body, "gemini", strict=True) == [
        ("text.run_together", E, "$.input[1]"),
        ("level.blank", E, LEVELS + "[1]"),
    ]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), target=st.sampled_from(["gemini", "parallel"]))
def test_the_lints_agree_in_every_form(data: st.DataObject, target: str) -> None:
    body = data.draw(lint_requests(target))
    found = [_found(form, target) for form in _forms(body)]
    assert found[0] == found[1] == found[2]
