"""Reports that cannot be lost: every format writes any string, and says what it left out.

Properties: for any report (any file names, member names, messages: lone surrogates,
bytes of file names that are not UTF-8, control characters), every format renders text
that encodes as strict UTF-8; the JSON formats parse back to the same strings; SARIF
stays valid SARIF 2.1.0; the text formats stay one line per finding.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from strategies import any_text, reports

from decisions_input.cli import main
from decisions_input.cli.formats import (
    FORMATS,
    Finding,
    NotChecked,
    NotShown,
    Report,
    artifact_uri,
    printable,
    render,
    render_json,
    render_sarif,
    render_text,
)
from decisions_input.errors import Problem, Severity
from decisions_input.limits import RULES

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = ROOT / "testdata" / "sarif-2.1.0.schema.json"


def run(*argv: str, stdin: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def _sarif_errors(log: Any) -> list[str]:
    from jsonschema import Draft4Validator  # type: ignore[import-untyped, unused-ignore]

    validator = Draft4Validator(json.loads(SARIF_SCHEMA.read_text()))
    return [e.message for e in validator.iter_errors(log)]


@settings(max_examples=150, deadline=None)
@given(reports())
def test_every_format_writes_any_report_as_utf_8(report: Report) -> None:
    for fmt in FORMATS:
        text = render(report, fmt, RULES, version="0")
        text.encode("utf-8")  # strict: no lone surrogate gets through


@settings(max_examples=150, deadline=None)
@given(reports())
def test_json_gives_back_every_string(report: Report) -> None:
    doc = json.loads(render_json(report))
    assert [(p["file"], p["message"], p["path"]) for p in doc["problems"]] == [
        (f.file, f.problem.message, list(f.problem.path)) for f in report.findings
    ]
    assert [n["file"] for n in doc["not_checked"]] == [n.file for n in report.not_checked]
    assert (doc["errors"], doc["warnings"]) == (report.errors, report.warnings)


@settings(max_examples=40, deadline=None)
@given(reports())
def test_sarif_of_any_report_is_valid_sarif(report: Report) -> None:
    log = json.loads(render_sarif(report, RULES, version="0"))
    assert _sarif_errors(log) == []
    invocation = log["runs"][0]["invocations"][0]
    assert len(invocation["toolExecutionNotifications"]) == len(report.not_checked) + len(
        report.not_shown
    )


@settings(max_examples=150, deadline=None)
@given(reports())
def test_text_is_one_line_per_finding(report: Report) -> None:
    lines = render_text(report).splitlines()
    assert len(lines) == len(report.findings) + len(report.not_shown) + 1


@given(any_text)
def test_printable_text_has_no_control_character_or_surrogate(text: str) -> None:
    shown = printable(text)
    shown.encode("utf-8")
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown)


# (id, string, as printed)
ESCAPES = [
    ("escape-sequence", "a\x1b[31mb", "a\\x1b[31mb"),
    ("byte-of-a-file-name", "caf\udce9.json", "caf\\xe9.json"),
    ("lone-high-surrogate", "k\ud800", "k\\ud800"),
    ("line-break", "one\ntwo", "one two"),
    ("plain-unicode", "naïve ✓", "naïve ✓"),
]


@pytest.mark.parametrize(("text", "shown"), [c[1:] for c in ESCAPES], ids=[c[0] for c in ESCAPES])
def test_printable_escapes(text: str, shown: str) -> None:
    assert printable(text) == shown


URIS = [
    ("relative", "requests/a b.json", "requests/a%20b.json"),
    ("dot-slash", "./a.json", "a.json"),
    ("stdin", "<stdin>", "%3Cstdin%3E"),
    ("not-utf-8", "caf\udce9.json", "caf%E9.json"),
    ("absolute", "/tmp/x.json", "file:///tmp/x.json"),
]


@pytest.mark.parametrize(("name", "uri"), [c[1:] for c in URIS], ids=[c[0] for c in URIS])
def test_artifact_uris(name: str, uri: str) -> None:
    assert artifact_uri(name) == uri


def _report(**kwargs: Any) -> Report:
    problem = Problem(("questions",), "schema.type", "expected an object", Severity.ERROR)
    return Report.of([Finding("a.json", 2, 3, problem)], files=2, cap=1, **kwargs)


def test_what_was_left_out_is_in_every_format() -> None:
    report = _report(
        not_shown=[NotShown("a.json", 4, 2)],
        not_checked=[NotChecked("b.json", "cannot read b.json: it does not exist")],
    )
    assert render_text(report).splitlines()[1:] == [
        "a.json: 6 more problems not shown (4 errors, 2 warnings; at most 1 a file)",
        "2 files, 5 errors, 2 warnings, 1 not checked; 6 problems not shown "
        "(at most 1 a file; --max-problems 0 shows all)",
    ]
    doc = json.loads(render(report, "json", RULES))
    assert doc["not_shown"] == [{"file": "a.json", "errors": 4, "warnings": 2}]
    assert doc["not_checked"] == [
        {"file": "b.json", "message": "cannot read b.json: it does not exist"}
    ]
    assert (doc["errors"], doc["warnings"], doc["max_problems_per_file"]) == (5, 2, 1)
    github = render(report, "github", RULES).splitlines()
    assert github[1] == "::error file=b.json::cannot read b.json: it does not exist"
    assert github[2].startswith("::warning file=a.json::a.json: 6 more problems not shown")
    log = json.loads(render(report, "sarif", RULES))
    assert _sarif_errors(log) == []
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [
        (n["level"], n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for n in invocation["toolExecutionNotifications"]
    ] == [("error", "b.json"), ("warning", "a.json")]


def test_standard_input_is_named_the_same_in_every_format() -> None:
    body = (ROOT / "tests" / "golden" / "inputs" / "refund.json").read_text()
    names = {}
    for fmt in FORMATS:
        _, out, _ = run("validate", "-", "--format", fmt, stdin=io.StringIO(body))
        names[fmt] = out
    assert names["text"].startswith("<stdin>:11:9: ")
    assert json.loads(names["json"])["problems"][0]["file"] == "<stdin>"
    assert names["github"].startswith("::error file=<stdin>,line=11,col=9,")
    sarif = json.loads(names["sarif"])["runs"][0]["results"][0]
    uri = sarif["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "%3Cstdin%3E"


def test_a_lone_surrogate_member_name_is_written_in_every_format(tmp_path: Path) -> None:
    path = tmp_path / "surrogate.json"
    path.write_bytes(b'{"\\ud800": 1, "model": "gemini-decision-1"}')
    for fmt in FORMATS:
        code, out, err = run("validate", str(path), "--format", fmt)
        assert code == 1, err
        out.encode("utf-8")
        if fmt in ("json", "sarif"):
            assert "\\ud800" in out
            json.loads(out)
