"""``decisions-input estimate --against``: pairing, verdicts, output formats, exit status.

The pairs are the seeds' example requests with the usage their responses reported
(``testdata/requests``, ``testdata/responses``), the README's ticket with its response, and
responses whose reported usage was edited to fall outside the bounds (``*.usage-edited-*``,
each a copy of a real one with only its usage changed). Golden outputs live in
``tests/golden/against-*``; ``UPDATE_GOLDEN=1`` rewrites them.
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
from decisions_input.cli.common import UsageError
from decisions_input.cli.pairing import pair_by_name

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
Q = "testdata/requests/"
R = "testdata/responses/"

SEED_REQUESTS = [f"{Q}gemini-multiple.json", f"{Q}parallel-basic.json", f"{Q}ticket.json"]
SEED_RESPONSES = [f"{R}gemini-multiple.json", f"{R}parallel-basic.json", f"{R}ticket.json"]
EDITED_RESPONSES = [
    f"{R}gemini-multiple.usage-edited-above.json",
    f"{R}parallel-basic.json",
    f"{R}ticket.usage-edited-image-below.json",
]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(*argv: str, stdin: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def against(
    requests: list[str], responses: list[str], *options: str, stdin: Any = None
) -> tuple[int, str, str]:
    return run("estimate", *requests, "--against", *responses, *options, stdin=stdin)


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


# --- golden outputs -----------------------------------------------------------------------------

# (id, responses, options, exit status, golden file)
GOLDEN_CASES = [
    ("seeds-text", SEED_RESPONSES, [], 0, "against-seeds.txt"),
    ("seeds-json", SEED_RESPONSES, ["--format", "json"], 0, "against-seeds.json"),
    ("seeds-fail-outside", SEED_RESPONSES, ["--fail-outside"], 0, "against-seeds.txt"),
    ("edited-text", EDITED_RESPONSES, [], 0, "against-edited.txt"),
    ("edited-json", EDITED_RESPONSES, ["--format", "json"], 0, "against-edited.json"),
    ("edited-fail-outside", EDITED_RESPONSES, ["--fail-outside"], 1, "against-edited.txt"),
    (
        "edited-json-fail-outside",
        EDITED_RESPONSES,
        ["--format", "json", "--fail-outside"],
        1,
        "against-edited.json",
    ),
]


@pytest.mark.parametrize(
    ("responses", "options", "status", "golden"),
    [c[1:] for c in GOLDEN_CASES],
    ids=[c[0] for c in GOLDEN_CASES],
)
def test_golden_output(responses: list[str], options: list[str], status: int, golden: str) -> None:
    code, out, err = against(SEED_REQUESTS, responses, *options)
    assert (code, err) == (status, "")
    assert_golden(golden, out)


def test_the_output_is_the_same_in_any_order_of_the_files() -> None:
    first = against(SEED_REQUESTS, SEED_RESPONSES)
    assert against(SEED_REQUESTS[::-1], SEED_RESPONSES) == first
    assert against(SEED_REQUESTS, SEED_RESPONSES[::-1]) == first


# --- exact verdicts -----------------------------------------------------------------------------

# (id, request, response, the pair's verdict, rows: modality, low, high, reported, verdict, factor)
VERDICTS: list[tuple[str, str, str, str, list[tuple[Any, ...]]]] = [
    (
        "003-multiple",
        "gemini-multiple.json",
        "gemini-multiple.json",
        "inside",
        [("text", 126, 488, 324, "inside", None), ("total", 126, 488, 324, "inside", None)],
    ),
    (
        "002-live",
        "parallel-basic.json",
        "parallel-basic.json",
        "inside",
        [("total", 24, None, 4212, "inside", None)],
    ),
    (
        "readme-ticket",
        "ticket.json",
        "ticket.json",
        "inside",
        [
            ("image", 258, 280, 280, "inside", None),
            ("text", 24, 296, 132, "inside", None),
            ("total", 282, 576, 412, "inside", None),
        ],
    ),
    (
        "edited-above",
        "gemini-multiple.json",
        "gemini-multiple.usage-edited-above.json",
        "outside",
        [("text", 126, 488, 600, "above", 1.23), ("total", 126, 488, 600, "above", 1.23)],
    ),
    (
        "edited-below",
        "gemini-multiple.json",
        "gemini-multiple.usage-edited-below.json",
        "outside",
        [("text", 126, 488, 100, "below", 1.26), ("total", 126, 488, 100, "below", 1.26)],
    ),
    (
        "edited-image-below-total-inside",
        "ticket.json",
        "ticket.usage-edited-image-below.json",
        "outside",
        [
            ("image", 258, 280, 200, "below", 1.29),
            ("text", 24, 296, 132, "inside", None),
            ("total", 282, 576, 332, "inside", None),
        ],
    ),
]


@pytest.mark.parametrize(
    ("request_name", "response_name", "verdict", "rows"),
    [c[1:] for c in VERDICTS],
    ids=[c[0] for c in VERDICTS],
)
def test_each_pair_has_its_verdict(
    request_name: str, response_name: str, verdict: str, rows: list[tuple[Any, ...]]
) -> None:
    code, out, err = against([Q + request_name], [R + response_name], "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    (pair,) = doc["pairs"]
    assert (pair["request"], pair["response"]) == (Q + request_name, R + response_name)
    assert (pair["verdict"], pair["reason"]) == (verdict, None)
    found = [
        (r["modality"], r["low"], r["high"], r["reported"], r["verdict"], r["factor"])
        for r in pair["rows"]
    ]
    assert found == rows
    status = against([Q + request_name], [R + response_name], "--fail-outside")[0]
    assert status == (1 if verdict == "outside" else 0)


def test_the_summary_counts_each_modality_over_the_pairs() -> None:
    requests = [f"{Q}gemini-multiple.json", f"{Q}ticket.json", f"{Q}parallel-basic.json"]
    responses = EDITED_RESPONSES
    doc = json.loads(against(requests, responses, "--format", "json")[1])
    found = [
        (t["modality"], t["pairs"], t["inside"], t["below"], t["above"])
        + (t["worst_below"], t["worst_above"])
        for t in doc["summary"]
    ]
    assert found == [
        ("image", 1, 0, 1, 0, 1.29, None),
        ("text", 2, 1, 0, 1, None, 1.23),
        ("total", 3, 2, 0, 1, None, 1.23),
    ]
    assert (doc["compared"], doc["not_compared"]) == (3, 0)


# --- pairs that are not compared ----------------------------------------------------------------


def _only_pair(code: int, out: str) -> dict[str, Any]:
    (pair,) = json.loads(out)["pairs"]
    assert pair["rows"] == [] and pair["verdict"] == "not_compared"
    return pair  # type: ignore[no-any-return]


def test_an_error_body_is_reported_not_compared() -> None:
    code, out, err = against([f"{Q}gemini-noul.json"], [f"{R}gemini-error-404.json"])
    assert (code, err) == (0, "")
    assert out == (
        f"{Q}gemini-noul.json against {R}gemini-error-404.json (gemini)\n"
        "not compared: an error body: API error model_not_found: Model 'gemini-decision-9' "
        "is not available for the Decisions API. (request id: 20261112194249376584000tUELY8LN)\n"
        "\n"
        "1 pair: 0 compared, 1 not compared\n"
    )
    code, out, _ = against(
        [f"{Q}parallel-basic.json"], [f"{R}parallel-error-422.json"], "--format", "json"
    )
    assert code == 0
    pair = _only_pair(code, out)
    assert pair["reason"] == "an error body: API error: Request validation error."


def test_a_response_to_another_request_has_errors_and_exit_1() -> None:
    code, out, err = against(
        [f"{Q}gemini-noul.json"], [f"{R}ticket.json"], "--format", "json", "--fail-outside"
    )
    assert code == 1
    pair = _only_pair(code, out)
    assert pair["reason"] == (
        "the response has 4 errors (answer.extra, answer.missing); see standard error"
    )
    assert f"{R}ticket.json:2:14: error answer.missing  expected an answer to question " in err
    assert err.endswith("2 files, 4 errors, 0 warnings\n")


def test_a_request_with_errors_is_not_compared_and_exit_1() -> None:
    code, out, err = against(["tests/golden/inputs/syntax.json"], [f"{R}ticket.json"])
    assert code == 1
    assert "not compared: the request has 1 error (json.syntax); see standard error" in out
    assert "tests/golden/inputs/syntax.json:4:26: error json.syntax" in err


# (id, the response body, the reason, the rows)
WITHOUT_FIGURES: list[tuple[str, dict[str, Any], str | None, list[str]]] = [
    ("no-usage", {}, "the response reports no usage", []),
    (
        "no-input-tokens",
        {"usage": {"total_tokens": 324}},
        "the response reports no input tokens",
        [],
    ),
    (
        "total-only",
        {"usage": {"total_input_tokens": 324}},
        None,
        ["total"],
    ),
    (
        "unknown-modality",
        {
            "usage": {
                "total_input_tokens": 324,
                "input_tokens_by_modality": [{"modality": "TEXT", "tokens": 324}],
            }
        },
        None,
        ["total"],
    ),
]


@pytest.mark.parametrize(
    ("usage", "reason", "rows"),
    [c[1:] for c in WITHOUT_FIGURES],
    ids=[c[0] for c in WITHOUT_FIGURES],
)
def test_what_a_response_does_not_report_is_not_compared(
    tmp_path: Path, usage: dict[str, Any], reason: str | None, rows: list[str]
) -> None:
    body = json.loads((ROOT / R / "gemini-multiple.json").read_text())
    del body["usage"]
    (tmp_path / "gemini-multiple.json").write_text(json.dumps({**body, **usage}))
    code, out, err = against(
        [f"{Q}gemini-multiple.json"], [str(tmp_path / "gemini-multiple.json")], "--format", "json"
    )
    assert code == 0, err
    (pair,) = json.loads(out)["pairs"]
    assert pair["reason"] == reason
    assert [r["modality"] for r in pair["rows"]] == rows


# --- pairing ------------------------------------------------------------------------------------

# (id, requests, responses, the pairs)
PAIRED = [
    ("one-of-each-any-names", ["a/x.json"], ["b/y.json"], [("a/x.json", "b/y.json")]),
    ("stdin-one-of-each", ["-"], ["b/y.json"], [("-", "b/y.json")]),
    (
        "same-names",
        ["q/a.json", "q/b.json"],
        ["r/b.json", "r/a.json"],
        [("q/a.json", "r/a.json"), ("q/b.json", "r/b.json")],
    ),
    (
        "spec-and-json",
        ["q/a.yaml", "q/b.json"],
        ["r/a.json", "r/b.json"],
        [("q/a.yaml", "r/a.json"), ("q/b.json", "r/b.json")],
    ),
    (
        "named-after-with-a-dot",
        ["q/a.json", "q/b.json"],
        ["r/a.2024-06-01.json", "r/b.retry.json"],
        [("q/a.json", "r/a.2024-06-01.json"), ("q/b.json", "r/b.retry.json")],
    ),
    (
        "dotted-request-names",
        ["q/v1.2.json", "q/v1.3.json"],
        ["r/v1.3.json", "r/v1.2.json"],
        [("q/v1.2.json", "r/v1.2.json"), ("q/v1.3.json", "r/v1.3.json")],
    ),
]


@pytest.mark.parametrize(
    ("requests", "responses", "pairs"), [c[1:] for c in PAIRED], ids=[c[0] for c in PAIRED]
)
def test_pairing_by_name(
    requests: list[str], responses: list[str], pairs: list[tuple[str, str]]
) -> None:
    assert pair_by_name(requests, responses) == pairs


# (id, requests, responses, the message after "cannot pair requests with responses: ")
REFUSED = [
    (
        "a-request-without-response",
        ["q/a.json", "q/b.json"],
        ["r/a.json"],
        "no response named after q/b.json",
    ),
    (
        "a-response-without-request",
        ["q/a.json", "q/b.json"],
        ["r/a.json", "r/b.json", "r/c.json"],
        "no request for r/c.json",
    ),
    (
        "names-do-not-pair",
        ["q/a.json", "q/b.json"],
        ["r/c.json", "r/d.json"],
        "no response named after q/a.json; no response named after q/b.json; "
        "no request for r/c.json; no request for r/d.json",
    ),
    (
        "two-responses-for-one-request",
        ["q/a.json", "q/b.json"],
        ["r/a.json", "r/a.retry.json", "r/b.json"],
        "q/a.json has 2 responses: r/a.json, r/a.retry.json",
    ),
    (
        "a-response-named-after-two-requests",
        ["q/a.json", "q/a.x.json"],
        ["r/a.x.json"],
        "r/a.x.json is named after 2 requests: q/a.json, q/a.x.json",
    ),
    (
        "same-name-in-two-folders",
        ["q1/a.json", "q2/a.json"],
        ["r/a.json", "r/b.json"],
        "r/a.json is named after 2 requests: q1/a.json, q2/a.json; no request for r/b.json",
    ),
]
RULE = (
    " (a response pairs with the request it is named after: REQUEST.json or REQUEST.yaml "
    "with REQUEST.json or REQUEST.ANYTHING.json)"
)


@pytest.mark.parametrize(
    ("requests", "responses", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_ambiguous_pairing_is_refused(
    requests: list[str], responses: list[str], message: str
) -> None:
    with pytest.raises(UsageError) as info:
        pair_by_name(requests, responses)
    assert str(info.value) == f"cannot pair requests with responses: {message}{RULE}"


def test_a_mismatched_pairing_exits_2_before_reading_anything() -> None:
    code, out, err = against(
        [f"{Q}gemini-multiple.json", f"{Q}gemini-noul.json"],
        [f"{R}gemini-multiple.json", "missing.json"],
    )
    assert (code, out) == (2, "")
    assert err == (
        "decisions-input: error: cannot pair requests with responses: no response named after "
        f"{Q}gemini-noul.json; no request for missing.json{RULE}\n"
    )


# (id, argv, the message)
USAGE = [
    (
        "stdin-twice",
        ["estimate", "-", "--against", "-"],
        "standard input ('-') can be named only once",
    ),
    (
        "stdin-among-many",
        ["estimate", "-", f"{Q}gemini-noul.json", "--against", f"{R}a.json", f"{R}b.json"],
        "standard input ('-') has no name to pair by: it pairs only when one request and one "
        "response are given",
    ),
    (
        "strict",
        ["estimate", f"{Q}ticket.json", "--against", f"{R}ticket.json", "--strict"],
        "--strict applies to the budget verdict, which --against does not give",
    ),
    (
        "fail-outside-alone",
        ["estimate", f"{Q}ticket.json", "--fail-outside"],
        "--fail-outside applies to --against, which is not given",
    ),
    (
        "empty-folder",
        ["estimate", f"{Q}ticket.json", "--against", "EMPTY"],
        "EMPTY: the folder holds no *.json files",
    ),
]


@pytest.mark.parametrize(("argv", "message"), [c[1:] for c in USAGE], ids=[c[0] for c in USAGE])
def test_usage_errors_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    argv = [str(empty) if a == "EMPTY" else a for a in argv]
    code, out, err = run(*argv, stdin=io.StringIO("{}"))
    assert (code, out) == (2, "")
    assert err == f"decisions-input: error: {message.replace('EMPTY', str(empty))}\n"


def test_folders_pair_their_files_by_name(tmp_path: Path) -> None:
    (tmp_path / "requests" / "more").mkdir(parents=True)
    (tmp_path / "responses").mkdir()
    shutil.copy(ROOT / Q / "gemini-multiple.json", tmp_path / "requests" / "order-1.json")
    shutil.copy(ROOT / Q / "ticket.json", tmp_path / "requests" / "more" / "order-2.json")
    shutil.copy(ROOT / R / "ticket.json", tmp_path / "responses" / "order-2.json")
    shutil.copy(ROOT / R / "gemini-multiple.json", tmp_path / "responses" / "order-1.json")
    code, out, err = against(
        [str(tmp_path / "requests")], [str(tmp_path / "responses")], "--format", "json"
    )
    assert (code, err) == (0, "")
    pairs = [(p["request"], p["response"], p["verdict"]) for p in json.loads(out)["pairs"]]
    assert pairs == [
        (
            str(tmp_path / "requests/more/order-2.json"),
            str(tmp_path / "responses/order-2.json"),
            "inside",
        ),
        (
            str(tmp_path / "requests/order-1.json"),
            str(tmp_path / "responses/order-1.json"),
            "inside",
        ),
    ]


def test_standard_input_is_one_side_of_a_single_pair() -> None:
    data = (ROOT / Q / "ticket.json").read_text()
    code, out, err = against(["-"], [f"{R}ticket.json"], stdin=io.StringIO(data))
    assert (code, err) == (0, "")
    assert out.startswith(f"<stdin> against {R}ticket.json (gemini)\n")
    data = (ROOT / R / "ticket.json").read_bytes()
    code, out, err = against([f"{Q}ticket.json"], ["-"], "--format", "json", stdin=io.BytesIO(data))
    assert (code, err) == (0, "")
    assert json.loads(out)["pairs"][0]["response"] == "<stdin>"


def test_a_spec_pairs_with_the_response_named_after_it(tmp_path: Path) -> None:
    body = json.loads((ROOT / R / "ticket.json").read_text())
    spec = ROOT / "testdata/specs/ticket.yaml"
    # The spec asks other questions than the README's ticket: its response must answer them.
    (tmp_path / "ticket.json").write_text(json.dumps(body))
    code, out, _ = against([str(spec)], [str(tmp_path / "ticket.json")], "--format", "json")
    assert code == 1
    assert json.loads(out)["pairs"][0]["reason"].startswith("the response has ")


def test_an_unreadable_response_exits_2_and_the_others_are_compared() -> None:
    code, out, err = against(
        [f"{Q}gemini-multiple.json", f"{Q}ticket.json"],
        [f"{R}gemini-multiple.json", "ticket.json"],
        "--format",
        "json",
    )
    assert code == 2
    assert err == "decisions-input: error: cannot read ticket.json: it does not exist\n"
    doc = json.loads(out)
    assert [p["verdict"] for p in doc["pairs"]] == ["inside", "not_compared"]
    assert doc["pairs"][1]["reason"] == "cannot read ticket.json: it does not exist"


def test_a_response_over_the_bound_is_refused_unread() -> None:
    size = (ROOT / R / "ticket.json").stat().st_size
    request_size = (ROOT / Q / "ticket.json").stat().st_size
    assert request_size > size  # the bound is crossed by the response, not the request
    code, _, err = against([f"{Q}ticket.json"], [f"{R}ticket.json"], "--max-bytes", str(size - 1))
    assert code == 2
    assert "over the bound" in err


def test_a_failure_inside_the_library_is_that_pairs_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import decisions_input.reported_usage

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(decisions_input.reported_usage, "compare_usage", boom)
    code, out, err = against([f"{Q}ticket.json"], [f"{R}ticket.json"], "--format", "json")
    assert code == 2
    assert err.startswith(f"decisions-input: internal error: {Q}ticket.json: RuntimeError: ")
    assert json.loads(out)["pairs"][0]["reason"] == "the tool failed on this pair"


# --- the plain estimate and the help --------------------------------------------------------------


def test_estimate_takes_a_folder_as_validate_does(tmp_path: Path) -> None:
    shutil.copy(ROOT / Q / "gemini-multiple.json", tmp_path / "one.json")
    shutil.copy(ROOT / Q / "ticket.json", tmp_path / "two.json")
    code, out, err = run("estimate", str(tmp_path), "--format", "json")
    assert (code, err) == (0, "")
    assert [e["file"] for e in json.loads(out)] == [
        str(tmp_path / "one.json"),
        str(tmp_path / "two.json"),
    ]


def test_help_says_how_pairs_are_made_and_the_exit_status() -> None:
    code, out, _ = run("estimate", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "--against RESPONSE [RESPONSE ...]" in text
    assert "A response pairs with the request it is named after" in text
    assert "--fail-outside with --against: exit 1 when a reported figure is below or above" in text
    assert "With --against: 0 every pair compared or said why not" in text
    assert (
        "default 200,000,000 for a request and 64,000,000 for a spec and 200,000,000 for a response"
        in text
    )


def test_the_readmes_example_is_what_the_command_prints() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Estimates against reported usage", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    command, printed = block.split("\n", 1)
    argv = command.removeprefix("$ decisions-input ").split()
    assert run(*argv) == (0, printed, "")


def test_a_row_on_assumed_figures_says_so(tmp_path: Path) -> None:
    # The audio is a URL, never fetched: its duration is the table's assumed range.
    body = {
        "answers": {"mentions_launch": {"type": "noul", "noul": 0.9, "confidence": 0.9}},
        "usage": {
            "total_input_tokens": 340,
            "input_tokens_by_modality": [
                {"modality": "text", "tokens": 20},
                {"modality": "audio", "tokens": 320},
            ],
        },
    }
    response = tmp_path / "gemini-audio-url.json"
    response.write_text(json.dumps(body))
    code, out, err = against([f"{Q}gemini-audio-url.json"], [str(response)])
    assert (code, err) == (0, "")
    assert out.splitlines()[1:5] == [
        "MODALITY  LOW     HIGH  REPORTED  VERDICT",
        "audio       0  115,200       320  inside, not measured",
        "text       10       82        20  inside",
        "total      10  115,282       340  inside, not measured",
    ]
