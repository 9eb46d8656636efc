"""The command line: exit codes, exact output (golden files), SARIF validity, the console script.

Golden outputs live in ``tests/golden/``; ``UPDATE_GOLDEN=1 python -m pytest tests/test_cli.py``
rewrites them, and the diff is then read by eye. Inputs with problems are in
``tests/golden/inputs/``. The SARIF 2.1.0 schema ``testdata/sarif-2.1.0.schema.json`` is the
file ``lib/schemas/sarif-2.1.0-rtm.5.json`` of the npm package ``@microsoft/jest-sarif``
1.0.0-beta.0 (MIT licence), unchanged.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import decisions_input as di
from decisions_input import cli
from decisions_input.cli import main
from decisions_input.limits import RULES, rules_markdown

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
INPUTS = "tests/golden/inputs"
SPECS = "testdata/specs"
REQUESTS = sorted(
    f"testdata/requests/{p.name}" for p in (ROOT / "testdata/requests").glob("gemini-*.json")
)
SEED_002 = ROOT.parent / "shared" / "seeds" / "002_d34f7df60caf1fdf.txt"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

BAD = [f"{INPUTS}/refund.json", f"{INPUTS}/triage.json"]
ALL_BAD = [f"{INPUTS}/{name}.json" for name in ("mixed", "parallel", "refund", "syntax", "triage")]

# (id, argv, exit status, golden file of stdout)
GOLDEN_CASES: list[tuple[str, list[str], int, str]] = [
    ("validate-text", ["validate", *BAD, "--target", "gemini"], 1, "validate.txt"),
    ("validate-json", ["validate", *BAD, "--format", "json"], 1, "validate.json"),
    ("validate-sarif", ["validate", *BAD, "--format", "sarif"], 1, "validate.sarif"),
    ("validate-github", ["validate", *BAD, "--format", "github"], 1, "validate.github.txt"),
    ("validate-strict", ["validate", f"{INPUTS}/triage.json", "--strict"], 1, "strict.txt"),
    ("validate-many-codes", ["validate", f"{INPUTS}/mixed.json"], 1, "mixed.txt"),
    ("validate-syntax", ["validate", f"{INPUTS}/syntax.json"], 1, "syntax.txt"),
    (
        "validate-parallel",
        ["validate", f"{INPUTS}/parallel.json", "--target", "parallel"],
        1,
        "parallel.txt",
    ),
    ("validate-clean", ["validate", *REQUESTS], 0, "clean.txt"),
    ("build-ticket", ["build", f"{SPECS}/ticket.yaml"], 0, "build-ticket.json"),
    ("build-company", ["build", f"{SPECS}/company.yaml"], 0, "build-company.json"),
    ("build-refused", ["build", f"{SPECS}/ticket-broken.yaml"], 1, "build-refused.txt"),
    (
        "build-refused-github",
        ["build", f"{SPECS}/ticket-broken.yaml", "--format", "github"],
        1,
        "build-refused.github.txt",
    ),
    (
        "check-response-good",
        [
            "check-response",
            f"{INPUTS}/response-good.json",
            "--request",
            "testdata/requests/gemini-multiple.json",
        ],
        0,
        "response-good.txt",
    ),
    (
        "check-response-bad",
        [
            "check-response",
            f"{INPUTS}/response-bad.json",
            "--request",
            "testdata/requests/gemini-multiple.json",
        ],
        1,
        "response-bad.txt",
    ),
]

USAGE_CASES: list[tuple[str, list[str]]] = [
    ("no-command", []),
    ("unknown-command", ["frobnicate"]),
    ("validate-no-files", ["validate"]),
    ("validate-bad-format", ["validate", "x.json", "--format", "xml"]),
    ("validate-bad-target", ["validate", "x.json", "--target", "openai"]),
    ("schemas-no-action", ["schemas"]),
    ("build-no-spec", ["build"]),
    ("stdin-twice", ["validate", "-", "-"]),
]

SUBCOMMANDS = ["validate", "check-response", "build", "sniff", "rules", "schemas", "schemas lint"]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("CI", raising=False)


def run(*argv: str, stdin: Any = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {name}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def problems_of(stdout: str) -> list[tuple[str, str, int, int]]:
    doc = json.loads(stdout)
    return [(p["code"], p["json_path"], p["line"], p["column"]) for p in doc["problems"]]


# --- golden outputs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "status", "golden"),
    [case[1:] for case in GOLDEN_CASES],
    ids=[case[0] for case in GOLDEN_CASES],
)
def test_golden_output(argv: list[str], status: int, golden: str) -> None:
    code, out, err = run(*argv)
    assert_golden(golden, out)
    assert code == status, err
    if golden.startswith("build-") and status == 0:
        assert err == ""


def test_issue_example_positions() -> None:
    # The option ID's key for option problems, file:line:col of the member in the source.
    code, out, _ = run("validate", *BAD, "--format", "json")
    assert code == 1
    assert problems_of(out) == [
        ("option.whitespace", '$.questions.next_action.criteria[" refund"]', 11, 9),
        ("option.catch_all", "$.questions.route.criteria.none_of_the_above", 11, 9),
    ]
    assert json.loads(out)["errors"] == 1 and json.loads(out)["warnings"] == 1


def test_key_and_value_positions() -> None:
    _, out, _ = run("validate", f"{INPUTS}/mixed.json", "--format", "json")
    found = {(c, p): (line, col) for c, p, line, col in problems_of(out)}
    assert found[("schema.unknown_member", "$.questions.paid.colour")] == (8, 70)  # the key
    assert found[("question.key_pattern", '$.questions["bad key!"]')] == (9, 5)  # the key
    assert found[("model.unknown", "$.model")] == (2, 12)  # the value
    assert found[("uri.gcs", "$.input[1].uri")] == (5, 30)  # the value


def test_each_repeated_member_name_is_placed_at_its_own_repeat() -> None:
    _, out, _ = run("validate", f"{INPUTS}/dupes.json", "--format", "json")
    assert problems_of(out) == [
        ("json.duplicate_key", "$.model", 4, 3),
        ("json.duplicate_key", "$.model", 6, 3),
    ]


def test_warnings_alone_pass_unless_strict() -> None:
    assert run("validate", f"{INPUTS}/triage.json")[0] == 0
    assert run("validate", f"{INPUTS}/triage.json", "--strict")[0] == 1


# --- SARIF -------------------------------------------------------------------------------------


def sarif_validator() -> Any:
    from jsonschema import Draft4Validator  # type: ignore[import-untyped, unused-ignore]

    schema = json.loads((ROOT / "testdata" / "sarif-2.1.0.schema.json").read_text())
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", *ALL_BAD],
        ["validate", *REQUESTS],
        ["build", f"{SPECS}/ticket-broken.yaml"],
    ],
    ids=["problems", "clean", "build"],
)
def test_sarif_is_valid_sarif_2_1_0(argv: list[str]) -> None:
    _, out, _ = run(*argv, "--format", "sarif")
    log = json.loads(out)
    errors = sorted(sarif_validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    assert errors == [], errors[0].message if errors else ""
    assert log["version"] == "2.1.0"


def test_sarif_has_one_rule_per_code_with_its_description() -> None:
    _, out, _ = run("validate", *ALL_BAD, "--format", "sarif")
    run_ = json.loads(out)["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    codes = [r["id"] for r in rules]
    assert codes == sorted(set(codes))
    assert set(codes) == {r["ruleId"] for r in run_["results"]}
    for rule in rules:
        if rule["id"] in RULES:
            assert rule["shortDescription"]["text"] == RULES[rule["id"]].description
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_github_annotations_escape_their_properties() -> None:
    from decisions_input.cli.formats import Finding, Report, render_github

    problem = di.Problem(("a",), "x.y", "50% done\nnext")
    report = Report.of([Finding("dir/a,b:c.json", 3, 4, problem)], files=1)
    assert render_github(report) == (
        "::error file=dir/a%2Cb%3Ac.json,line=3,col=4,title=x.y::50%25 done%0Anext ($.a)\n"
        "1 file, 1 error, 0 warnings\n"
    )


# --- input handling and exit codes -------------------------------------------------------------


def test_standard_input_is_read_for_dash() -> None:
    text = (ROOT / INPUTS / "refund.json").read_text()
    code, out, _ = run("validate", "-", stdin=io.StringIO(text))
    assert code == 1
    assert out.startswith("<stdin>:11:9: error option.whitespace  ")
    code, out, _ = run("validate", "-", stdin=io.BytesIO(text.encode()))
    assert code == 1 and out.startswith("<stdin>:11:9: ")


def test_a_directory_stands_for_its_json_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    shutil.copy(ROOT / INPUTS / "triage.json", tmp_path / "sub" / "b.json")
    shutil.copy(ROOT / INPUTS / "refund.json", tmp_path / "a.json")
    shutil.copy(ROOT / INPUTS / "syntax.json", tmp_path / ".hidden" / "c.json")
    (tmp_path / "notes.txt").write_text("not JSON")
    code, out, _ = run("validate", str(tmp_path), "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["files"] == 2
    assert [p["file"] for p in doc["problems"]] == [
        str(tmp_path / "a.json"),
        str(tmp_path / "sub" / "b.json"),
    ]


def test_unreadable_file_is_exit_2_and_the_rest_is_still_checked() -> None:
    code, out, err = run("validate", "missing.json", f"{INPUTS}/refund.json")
    assert code == 2
    assert err == "decisions-input: error: cannot read missing.json: it does not exist\n"
    assert out.endswith("1 file, 1 error, 0 warnings, 1 not checked\n")


@pytest.mark.parametrize("argv", [c[1] for c in USAGE_CASES], ids=[c[0] for c in USAGE_CASES])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    code, out, err = run(*argv, stdin=io.StringIO("{}"))
    assert code == 2
    assert out == ""
    assert err.startswith(("usage: decisions-input", "decisions-input: error:"))
    assert "Traceback" not in err


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_command_has_help(command: str) -> None:
    code, out, err = run(*command.split(), "--help")
    assert code == 0, err
    assert out.startswith(f"usage: decisions-input {command}")


def test_version() -> None:
    assert run("--version") == (0, f"decisions-input {di.__version__}\n", "")


def test_a_failure_inside_the_library_is_that_files_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import decisions_input.validate

    real = decisions_input.validate.iter_problems

    def boom(body: Any, **kwargs: Any) -> Any:
        if (
            isinstance(body, dict)
            and body.get("model") == "gemini-decision-1"
            and "noul" in str(body.get("questions"))
        ):
            raise RuntimeError("disk on fire\nsecond line")
        return real(body, **kwargs)

    monkeypatch.setattr(decisions_input.validate, "iter_problems", boom)
    failing = "testdata/requests/gemini-noul.json"
    code, out, err = run("validate", failing, f"{INPUTS}/refund.json", "--format", "json")
    assert code == 2
    doc = json.loads(out)
    assert [(p["file"], p["code"], p["json_path"]) for p in doc["problems"]] == [
        (failing, "internal.error", "$"),
        (
            f"{INPUTS}/refund.json",
            "option.whitespace",
            '$.questions.next_action.criteria[" refund"]',
        ),
    ]
    assert "RuntimeError: disk on fire second line" in doc["problems"][0]["message"]
    assert err.startswith(f"decisions-input: internal error: {failing}: ")
    assert err.count("\n") == 1


def test_a_failure_outside_the_files_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from decisions_input.cli import formats

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(formats, "render_text", boom)
    code, out, err = run("validate", REQUESTS[0])
    assert (code, out) == (2, "")
    assert err == "decisions-input: internal error: RuntimeError: disk on fire second line\n"


def test_check_response_strict_and_a_broken_request(tmp_path: Path) -> None:
    response = f"{INPUTS}/response-bad.json"
    request = "testdata/requests/gemini-multiple.json"
    code, out, _ = run("check-response", response, "--request", request, "--strict")
    assert code == 1
    assert out.endswith("1 file, 6 errors, 0 warnings\n")
    broken = tmp_path / "request.json"
    broken.write_text("{")
    code, out, err = run("check-response", response, "--request", str(broken))
    assert (code, out) == (2, "0 files, 0 errors, 0 warnings, 1 not checked\n")
    assert err.startswith("decisions-input: error: response.request: ")
    code, out, err = run("check-response", response, "--request", "missing.json")
    assert (code, out) == (2, "0 files, 0 errors, 0 warnings, 1 not checked\n")
    assert err == "decisions-input: error: cannot read missing.json: it does not exist\n"


def test_help_loads_no_heavy_module() -> None:
    code = (
        "import io, sys\n"
        "from decisions_input.cli import main\n"
        "assert main(['--help'], stdout=io.StringIO()) == 0\n"
        "heavy = ('yaml', 'jsonschema', 'PIL', 'pypdf', 'magic', 'openapi_spec_validator',\n"
        "         'decisions_input.jsontext', 'decisions_input.schemas',\n"
        "         'decisions_input.sniffing', 'decisions_input.limits', 'decisions_input.errors',\n"
        "         'decisions_input.validate', 'decisions_input.sources',\n"
        "         'decisions_input.cli.validate',\n"
        "         'http.client', 'ssl', 'email', 'dataclasses', 'json')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout == "[]\n"


# (command, options its help must name, options it must not name)
HELP_OPTIONS = [
    (
        "validate",
        ["--target", "--strict", "--format", "--max-problems", "--max-bytes", "--jobs"],
        [],
    ),
    ("check-response", ["--request", "--target", "--strict", "--max-problems", "--max-bytes"], []),
    ("build", ["--output", "--target", "--strict", "--max-problems", "--max-bytes"], ["--jobs"]),
    ("estimate", ["--spec", "--target", "--strict", "--max-bytes"], ["--max-problems"]),
    ("sniff", ["--mime-type", "--target", "--max-bytes"], ["--strict", "--max-problems"]),
    ("rules", ["--target", "--format"], ["--strict", "--max-bytes", "from the file"]),
    ("schemas lint", ["--format", "--max-problems", "--max-bytes"], ["--strict", "--target"]),
]


@pytest.mark.parametrize(
    ("command", "named", "unnamed"), HELP_OPTIONS, ids=[c[0] for c in HELP_OPTIONS]
)
def test_help_names_only_the_options_a_command_has(
    command: str, named: list[str], unnamed: list[str]
) -> None:
    code, out, _ = run(*command.split(), "--help")
    assert code == 0
    for option in named:
        assert option in out
    for text in unnamed:
        assert text not in out


def test_help_figures_come_from_the_limits_table() -> None:
    from decisions_input.limits import GEMINI

    text = " ".join(run("validate", "--help")[1].split())
    assert f"up to {GEMINI.MAX_WORKERS} when the files hold {GEMINI.PARALLEL_MIN_BYTES:,}" in text
    assert f"default {GEMINI.MAX_REQUEST_FILE_BYTES:,}" in text
    assert f"default {GEMINI.MAX_PROBLEMS_PER_FILE:,}" in text
    assert "(gemini, parallel)" in text
    rules = " ".join(run("rules", "--help")[1].split())
    assert "default: every target" in rules
    assert "Exit status: 0 listed, 2 usage error." in rules


# --- many files: processes and progress ----------------------------------------------------------


def test_worker_processes_give_the_same_output() -> None:
    files = [*ALL_BAD, *REQUESTS]
    serial = run("validate", *files, "--jobs", "1", "--format", "json")
    parallel = run("validate", *files, "--jobs", "2", "--format", "json")
    assert parallel == serial
    assert serial[0] == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = io.StringIO(), _Terminal()
    assert main(["validate", *REQUESTS], stdout=out, stderr=err) == 0
    assert f"[{len(REQUESTS)}/{len(REQUESTS)}]" in err.getvalue()
    assert err.getvalue().endswith("\r\x1b[2K")
    monkeypatch.setenv("CI", "true")
    err = _Terminal()
    main(["validate", *REQUESTS], stdout=io.StringIO(), stderr=err)
    assert err.getvalue() == ""
    _, _, piped = run("validate", *REQUESTS)
    assert piped == ""


# --- build ---------------------------------------------------------------------------------------


def test_build_writes_the_canonical_request_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "ticket.json"
    code, out, err = run("build", f"{SPECS}/ticket.yaml", "-o", str(target))
    assert (code, out, err) == (0, "1 file, 0 errors, 0 warnings\n", "")
    written = target.read_text(encoding="utf-8")
    assert written + "\n" == (GOLDEN / "build-ticket.json").read_text(encoding="utf-8")
    assert run("validate", str(target))[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["ticket.json"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_build_equals_the_library(tmp_path: Path) -> None:
    _, out, _ = run("build", f"{SPECS}/company.yaml")
    request = di.Request(
        target="parallel",
        state={"company": "Clay", "website": "https://www.clay.com"},
        questions={
            "has_cli": di.noul("Does Clay offer an official command-line interface (CLI)?"),
            "segment": di.choice(
                "Which customers does Clay mainly sell to?",
                ["enterprise", "mid_market", "small_business", "other"],
            ),
        },
    )
    assert out == request.dumps() + "\n"


def test_build_reads_a_json_spec_from_stdin_and_paths_from_its_folder(tmp_path: Path) -> None:
    spec = {
        "model": "gemini-decision-1",
        "input": ["Hello there."],
        "questions": {"q": {"type": "noul", "instructions": "Is it a greeting?"}},
    }
    code, out, _ = run("build", "-", stdin=io.StringIO(json.dumps(spec)))
    assert code == 0
    assert json.loads(out)["input"] == [{"type": "text", "text": "Hello there."}]
    (tmp_path / "spec.json").write_text(json.dumps({**spec, "colour": "red"}, indent=2))
    code, out, _ = run("build", str(tmp_path / "spec.json"))
    assert code == 1
    assert out.startswith(f"{tmp_path / 'spec.json'}:12:3: error schema.unknown_member  ")


def test_build_strict_refuses_warnings() -> None:
    spec = (
        "model: gemini-decision-1\ninput: [Hi]\nquestions:\n  q:\n    type: choice\n"
        "    instructions: Which?\n    options: [a, none_of_the_above]\n"
    )
    code, out, err = run("build", "-", stdin=io.StringIO(spec))
    assert code == 0 and out.startswith("{")
    assert err.startswith("<stdin>:7:18: warning option.catch_all  ")
    code, out, _ = run("build", "-", "--strict", stdin=io.StringIO(spec))
    assert code == 1
    assert out.startswith("<stdin>:7:18: error option.catch_all  ")


def test_build_media_from_a_path_relative_to_the_spec() -> None:
    # photo.yaml names ../media/jpeg_baseline.jpg: relative to testdata/specs, not the cwd.
    code, out, err = run("build", f"{SPECS}/photo.yaml")
    if not callable(getattr(di.blocks, "image", None)):
        assert (code, out) == (2, "")
        assert "decisions_input.blocks has no image() builder" in err
        return
    assert code == 0, out + err
    block = json.loads(out)["input"][1]
    assert {k: v for k, v in block.items() if k != "data"} == {
        "type": "image",
        "mime_type": "image/jpeg",
        "resolution": "low",
    }
    jpeg = (ROOT / "testdata" / "media" / "jpeg_baseline.jpg").read_bytes()
    assert base64.b64decode(block["data"]) == jpeg


def test_build_media_by_url_and_its_problems() -> None:
    spec = (
        "model: gemini-decision-1\n"
        "input:\n"
        "  - image: https://example.com/a.png\n"
        "    mime_type: image/png\n"
        "  - audio: gs://bucket/a.wav\n"
        "    mime_type: audio/wav\n"
        "    resolution: low\n"
        "questions:\n"
        "  q: {type: noul, instructions: 'Red?'}\n"
    )
    code, out, _ = run("build", "-", "--format", "json", stdin=io.StringIO(spec))
    assert code == 1
    assert problems_of(out) == [
        ("uri.gcs", "$.input[1].audio", 5, 12),
        ("schema.unknown_member", "$.input[1].resolution", 7, 5),
    ]
    good = spec.split("  - audio")[0] + "questions:\n  q: {type: noul, instructions: 'Red?'}\n"
    code, out, _ = run("build", "-", stdin=io.StringIO(good))
    assert code == 0
    assert json.loads(out)["input"] == [
        {"type": "image", "uri": "https://example.com/a.png", "mime_type": "image/png"}
    ]


# --- sniff, rules, schemas ------------------------------------------------------------------------


MEDIA = "testdata/media"


def test_sniff_table_and_json() -> None:
    files = [f"{MEDIA}/jpeg_baseline.jpg", f"{MEDIA}/empty.bin", f"{MEDIA}/jpeg_zip_appended.jpg"]
    code, out, err = run("sniff", *files, "--format", "json")
    assert code == 1, err
    records = json.loads(out)
    assert [(r["file"], r["kind"], r["mime"], r["code"]) for r in records] == [
        (files[0], "image", "image/jpeg", None),
        (files[1], None, None, "media.empty"),
        (files[2], "image", None, "media.polyglot"),
    ]
    assert records[0]["evidence"]["width"] == 32
    code, out, _ = run("sniff", files[0])
    assert code == 0
    header, row = out.splitlines()
    assert header.split() == ["FILE", "SIZE", "KIND", "TYPE", "EVIDENCE"]
    size = (ROOT / files[0]).stat().st_size
    assert row.split()[:4] == [files[0], str(size), "image", "image/jpeg"]
    assert "width=32" in row


def test_sniff_shows_damage_the_decoders_tolerate() -> None:
    damaged = f"{MEDIA}/jpeg_no_eoi.jpg"
    code, out, err = run("sniff", damaged, f"{MEDIA}/jpeg_baseline.jpg", "--format", "json")
    assert (code, err) == (0, "")
    records = json.loads(out)
    assert [(r["mime"], r["code"], [w["code"] for w in r["warnings"]]) for r in records] == [
        ("image/jpeg", None, ["media.incomplete"]),
        ("image/jpeg", None, []),
    ]
    code, out, _ = run("sniff", damaged)
    assert code == 0
    row = out.splitlines()[1]
    assert row.split()[3:6] == ["image/jpeg", "warning", "media.incomplete:"]


def test_sniff_compares_a_declared_type() -> None:
    jpeg = f"{MEDIA}/jpeg_baseline.jpg"
    code, out, _ = run("sniff", jpeg, "--mime-type", "image/png", "--format", "json")
    assert code == 1
    assert json.loads(out)[0]["code"] == "mime.mismatch"
    assert run("sniff", jpeg, "--mime-type", "image/jpeg")[0] == 0
    data = (ROOT / jpeg).read_bytes()
    code, out, _ = run("sniff", "-", "--format", "json", stdin=io.BytesIO(data))
    assert (code, json.loads(out)[0]["file"], json.loads(out)[0]["mime"]) == (
        0,
        "<stdin>",
        "image/jpeg",
    )


def test_rules_markdown_is_the_readme_table() -> None:
    assert run("rules", "--format", "markdown") == (0, rules_markdown(), "")
    code, out, _ = run("rules", "--target", "parallel")
    assert code == 0
    assert out.splitlines()[0] == "| code | severity | description | parallel |"
    assert (
        "| `questions.count` | error | Too few or too many questions. | `MIN_QUESTIONS` 1<br>"
        in out
    )


def test_rules_json_has_every_code_with_its_limits_per_target() -> None:
    code, out, _ = run("rules", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["targets"] == ["gemini", "parallel"]
    by_code = {r["code"]: r for r in doc["rules"]}
    assert sorted(by_code) == sorted(RULES)
    count = by_code["questions.count"]
    assert count["severity"] == "error"
    assert count["limits"]["gemini"] == {"MIN_QUESTIONS": 1, "MAX_QUESTIONS": 1000}
    assert count["limits"]["parallel"] == {"MIN_QUESTIONS": 1, "MAX_QUESTIONS": 100}
    assert by_code["option.catch_all"]["severity"] == "warning"


def _seed_002_yaml() -> str:
    if not SEED_002.exists():
        pytest.skip(f"seed document not found at {SEED_002}")
    text = SEED_002.read_text(encoding="utf-8")
    match = re.search(r"^````yaml[^\n]*\n(.*?)^````", text, re.S | re.M)
    assert match is not None
    return match.group(1)


def test_schemas_lint_reports_the_three_dangling_refs_of_seed_002(tmp_path: Path) -> None:
    yaml_text = _seed_002_yaml()
    path = tmp_path / "parallel.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    code, out, err = run("schemas", "lint", str(path), "--format", "json")
    assert code == 1, err
    dangling = [p for p in json.loads(out)["problems"] if p["code"] == "schema.dangling_ref"]
    lines = yaml_text.splitlines()
    found = []
    for p in dangling:
        line = lines[p["line"] - 1]
        assert line[p["column"] - 1 :].startswith("'#/components/schemas/"), line
        found.append(line.split("/")[-1].strip("'"))
    assert found == ["GroundedChoiceQuestion", "GroundedScoreQuestion", "GroundedNoulQuestion"]


def test_schemas_lint_json_files_with_locations(tmp_path: Path) -> None:
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"type": "string", "examples": [1]}},
    }
    path = tmp_path / "thing.schema.json"
    path.write_text(json.dumps(doc, indent=2))
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "a": 1,\n}\n')
    code, out, err = run("schemas", "lint", str(path), str(broken), "--format", "json")
    assert code == 1, err
    found = {
        (p["file"], p["code"], p["json_path"], p["line"], p["column"])
        for p in json.loads(out)["problems"]
    }
    assert (str(path), "schema.dangling_ref", '$.properties.a["$ref"]', 6, 15) in found
    assert (str(path), "schema.example", "$.properties.b.examples[0]", 11, 9) in found
    assert (str(broken), "json.syntax", "$", 3, 1) in found


def test_schemas_lint_bundled_documents_are_clean() -> None:
    code, out, err = run("schemas", "lint")
    assert (code, err) == (0, "")
    assert out == "3 files, 0 errors, 0 warnings\n"


def test_schemas_lint_unreadable_file_is_exit_2() -> None:
    code, _, err = run("schemas", "lint", "nope.yaml")
    assert code == 2
    assert "cannot read nope.yaml" in err


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("gemini", "request"),
        ("gemini", "response"),
        ("parallel", "request"),
        ("parallel", "response"),
    ],
)
def test_schemas_export_prints_the_library_schema(target: str, kind: str) -> None:
    code, out, err = run("schemas", "export", "--target", target, "--kind", kind)
    assert (code, err) == (0, "")
    assert out.endswith("}\n") and json.loads(out) == di.json_schema(target, kind=kind)


def test_schemas_export_writes_a_file_that_check_jsonschema_uses(tmp_path: Path) -> None:
    import jsonschema

    out_file = tmp_path / "gemini-request.schema.json"
    assert run("schemas", "export", "--target", "gemini", "-o", str(out_file)) == (0, "", "")
    schema = json.loads(out_file.read_text(encoding="utf-8"))
    check = jsonschema.Draft202012Validator(schema)
    body = json.loads((ROOT / "testdata/requests/gemini-multiple.json").read_text())
    assert list(check.iter_errors(body)) == []
    body["questions"]["route"] = {
        "type": "choice",
        "instructions": "Which?",
        "criteria": {f"o{i}": "" for i in range(256)},
    }
    assert [list(e.absolute_path) for e in check.iter_errors(body)] == [
        ["questions", "route", "criteria"]
    ]


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["schemas", "export"], id="no-target"),
        pytest.param(["schemas", "export", "--target", "openai"], id="unknown-target"),
        pytest.param(["schemas", "export", "--target", "gemini", "--kind", "x"], id="bad-kind"),
    ],
)
def test_schemas_export_usage_errors_are_exit_2(argv: list[str]) -> None:
    code, out, err = run(*argv)
    assert (code, out) == (2, "")
    assert "error:" in err


def test_schemas_export_to_a_folder_that_does_not_exist_is_exit_2(tmp_path: Path) -> None:
    code, out, err = run("schemas", "export", "--target", "gemini", "-o", str(tmp_path / "x/y"))
    assert (code, out) == (2, "")
    assert f"cannot write {tmp_path / 'x/y'}" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "response",
    ["testdata/responses/gemini-multiple.json", "testdata/responses/parallel-basic.json"],
)
def test_check_response_reads_a_decision_as_its_own_api(response: str) -> None:
    assert run("check-response", response) == (0, "1 file, 0 errors, 0 warnings\n", "")


@pytest.mark.parametrize(
    "response",
    ["testdata/responses/gemini-error-404.json", "testdata/responses/parallel-error-422.json"],
)
def test_check_response_reads_an_error_body_as_its_own_api(response: str) -> None:
    code, out, _ = run("check-response", response, "--format", "json")
    assert code == 1
    found = [(p["code"], p["json_path"], p["severity"]) for p in problems_doc(out)]
    assert found == [("response.error_body", "$", "error")]


# --- the installed command --------------------------------------------------------------------


def _commands() -> Iterator[Any]:
    yield pytest.param([sys.executable, "-m", "decisions_input"], id="python-m")
    script = shutil.which("decisions-input")
    yield pytest.param(
        [script] if script else [],
        id="console-script",
        marks=pytest.mark.skipif(script is None, reason="decisions-input is not installed"),
    )


@pytest.mark.parametrize("command", list(_commands()))
def test_installed_command(command: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CI", None)
    done = subprocess.run(
        [*command, "validate", *BAD, "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout == (GOLDEN / "validate.json").read_text(encoding="utf-8")
    assert done.stderr == ""
    version = subprocess.run(
        [*command, "--version"], capture_output=True, text=True, cwd=ROOT, env=env, check=False
    )
    assert (version.returncode, version.stdout) == (0, f"decisions-input {di.__version__}\n")


def test_main_entry_exits_with_the_status(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["decisions-input", "validate", f"{INPUTS}/refund.json"])
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with pytest.raises(SystemExit) as exc:
        cli.main_entry()
    assert exc.value.code == 1


DUPLICATE_SPECS = {
    "yaml": (
        "dup.yaml",
        "target: gemini\nmodel: gemini-decision-1\ninput: [hello]\nquestions:\n"
        "  q1: {type: noul, instructions: x}\n  q1: {type: noul, instructions: y}\n",
        "dup.yaml:6:3:",
    ),
    "json": (
        "dup.json",
        '{"model":"gemini-decision-1","input":"x",\n"questions":{"q":{"type":"noul",'
        '"instructions":"a"},\n "q":{"type":"noul","instructions":"b"}}}',
        "dup.json:3:2:",
    ),
}


@pytest.mark.parametrize(("name", "text", "place"), DUPLICATE_SPECS.values(), ids=DUPLICATE_SPECS)
def test_build_refuses_a_repeated_member_name(
    tmp_path: Path, name: str, text: str, place: str
) -> None:
    spec = tmp_path / name
    spec.write_text(text, encoding="utf-8")
    status, out, err = run("build", str(spec))
    assert status == 2 and out == ""
    assert f"{spec.parent}/{place}" in err
    assert "twice" in err or "again" in err


def test_invalid_utf8_is_placed_at_its_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"model":"gemini-decision-1",\n"input":"x\xff",\n"questions":{}}')
    status, out, _ = run("validate", str(bad))
    assert status == 1
    assert out.splitlines()[0].startswith(f"{bad}:2:11: error json.invalid_utf8 ")


def test_check_response_takes_the_target_from_the_request(tmp_path: Path) -> None:
    request = tmp_path / "request.json"
    request.write_text(
        '{"state": {"company": "Clay"}, "questions": {"has_cli": {"type": "noul", '
        '"instructions": "Does Clay offer a CLI?"}}}'
    )
    response = tmp_path / "response.json"
    response.write_text(
        '{"mode": "fast", "answers": {"has_cli": {"type": "noul", "noul": 0.9992}}, '
        '"usage": {"input_tokens": 4212, "output_tokens": 0}, "citations": [], '
        '"decision_id": "decisions_34b4be1b1405e19ba5516d9bb76c56ad"}'
    )
    status, out, _ = run("check-response", str(response), "--request", str(request))
    assert (status, out.splitlines()[-1]) == (0, "1 file, 0 errors, 0 warnings")
    status, out, _ = run(
        "check-response", str(response), "--request", str(request), "--target", "gemini"
    )
    assert status == 1
    note = "(checked as gemini, as --target asks; the request is shaped for parallel)"
    assert all(note in line for line in out.splitlines()[:-1])


def test_a_forced_target_says_so_on_the_problems_it_brings_about() -> None:
    parallel = "testdata/requests/parallel-basic.json"
    assert run("validate", parallel) == (0, "1 file, 0 errors, 0 warnings\n", "")
    code, out, _ = run("validate", parallel, "--target", "gemini", "--format", "json")
    assert code == 1
    note = "the body is shaped for parallel (state and no model): --target gemini forced this"
    found = [(p["code"], p["json_path"], note in p["message"]) for p in problems_doc(out)]
    assert found == [
        ("schema.required", "$", True),
        ("schema.required", "$", True),
        ("schema.unknown_member", "$.state", True),
    ]


def problems_doc(stdout: str) -> list[dict[str, Any]]:
    problems: list[dict[str, Any]] = json.loads(stdout)["problems"]
    return problems
