"""Running checks over many files: a cap per file, one file's failure stays its own.

``capped`` keeps at most the cap of a file's problems, errors first, and counts the rest;
the library's ``iter_problems`` stays lazy and uncapped. A failure inside the library is
the ``internal.error`` of that one file, in one process or in worker processes, also when a
worker dies. That workers end with a killed command is tested in ``test_cli_process.py``.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import problems

from decisions_input.cli import main
from decisions_input.cli.jobs import capped
from decisions_input.errors import Problem, Severity

ROOT = Path(__file__).resolve().parent.parent
REQUESTS = sorted(str(p) for p in (ROOT / "testdata" / "requests").glob("*.json"))
REFUND = str(ROOT / "tests" / "golden" / "inputs" / "refund.json")
FAILING = str(ROOT / "testdata" / "requests" / "gemini-score.json")

E, W = Severity.ERROR, Severity.WARNING


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _p(n: int, severity: Severity) -> Problem:
    return Problem((n,), "x.y", str(n), severity)


# (id, severities in document order, cap, kept as their index, errors and warnings left out)
CAPS = [
    ("under-the-cap", [E, W], 5, [0, 1], 0, 0),
    ("no-cap", [W, E, W], 0, [1, 0, 2], 0, 0),
    ("errors-first", [W, W, E, W, E], 2, [2, 4], 0, 3),
    ("errors-then-warnings", [W, E, W], 2, [1, 0], 0, 1),
    ("errors-over-the-cap", [E, E, E, W], 2, [0, 1], 1, 1),
    ("nothing", [], 3, [], 0, 0),
]


@pytest.mark.parametrize(
    ("severities", "cap", "kept", "errors", "warnings"),
    [c[1:] for c in CAPS],
    ids=[c[0] for c in CAPS],
)
def test_capped(
    severities: list[Severity], cap: int, kept: list[int], errors: int, warnings: int
) -> None:
    found = capped((_p(i, s) for i, s in enumerate(severities)), cap)
    assert [p.path[0] for p in found.problems] == kept
    assert (found.errors_left_out, found.warnings_left_out) == (errors, warnings)


@settings(max_examples=200, deadline=None)
@given(st.lists(problems(), max_size=30), st.integers(0, 8))
def test_capped_keeps_errors_first_and_counts_the_rest(found: list[Problem], cap: int) -> None:
    kept = capped(iter(found), cap)
    assert not cap or len(kept.problems) <= cap
    assert len(kept.problems) + kept.errors_left_out + kept.warnings_left_out == len(found)
    n_errors = sum(p.severity is E for p in found)
    assert kept.errors_left_out == max(0, n_errors - cap) if cap else kept.errors_left_out == 0
    kept_errors = [p for p in kept.problems if p.severity is E]
    assert kept_errors == [p for p in found if p.severity is E][: len(kept_errors)]
    if kept.warnings_left_out and cap:
        assert len(kept.problems) == cap or n_errors >= cap


def test_capped_reads_lazily_and_holds_at_most_twice_the_cap() -> None:
    held = []

    def endless() -> Any:
        for n in range(100_000):
            held.append(n)
            yield _p(n, E if n % 2 else W)

    kept = capped(endless(), 10)
    assert len(kept.problems) == 10
    assert all(p.severity is E for p in kept.problems)
    assert kept.errors_left_out + kept.warnings_left_out == 100_000 - 10


def test_the_cap_applies_per_file_and_the_summary_counts_the_rest(tmp_path: Path) -> None:
    members = ",".join(f'"x{i}": 0' for i in range(30))
    body = f'{{"model": "gemini-decision-1", "input": "Hi", {members}}}'
    (tmp_path / "a.json").write_text(body)
    (tmp_path / "b.json").write_text(body)
    code, out, _ = run("validate", str(tmp_path), "--max-problems", "5", "--format", "json")
    doc = json.loads(out)
    assert code == 1
    assert len(doc["problems"]) == 10
    assert doc["errors"] == 2 * 31  # 30 unknown members and the missing questions, each
    assert sum(n["errors"] + n["warnings"] for n in doc["not_shown"]) == 2 * 31 - 10
    code, out, _ = run("validate", str(tmp_path / "a.json"), "--max-problems", "0")
    assert out.endswith("1 file, 31 errors, 0 warnings\n")
    assert len(out.splitlines()) == 32


# --- one file's failure --------------------------------------------------------------------


@pytest.fixture
def failing_file(monkeypatch: pytest.MonkeyPatch) -> str:
    """Make the validator fail on one file (its score question) and work on the others."""
    import decisions_input.validate as validate

    real = validate.iter_problems

    def iter_problems(body: Any, **kwargs: Any) -> Any:
        if isinstance(body, dict) and "Fully blocked" in json.dumps(body):
            raise RuntimeError("the checker broke")
        return real(body, **kwargs)

    monkeypatch.setattr(validate, "iter_problems", iter_problems)
    return FAILING


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["one-process", "worker-processes"])
def test_one_files_failure_is_its_internal_error(failing_file: str, jobs: str) -> None:
    code, out, err = run("validate", *REQUESTS, REFUND, "--jobs", jobs, "--format", "json")
    assert code == 2
    doc = json.loads(out)
    assert doc["files"] == len(REQUESTS) + 1
    assert [(p["file"], p["code"]) for p in doc["problems"]] == [
        (FAILING, "internal.error"),
        (REFUND, "option.whitespace"),
    ]
    assert "RuntimeError: the checker broke" in doc["problems"][0]["message"]
    assert err.startswith(f"decisions-input: internal error: {FAILING}: ")


def test_a_worker_that_dies_takes_only_its_own_files(monkeypatch: pytest.MonkeyPatch) -> None:
    import decisions_input.validate as validate

    real = validate.iter_problems
    parent = os.getpid()

    def iter_problems(body: Any, **kwargs: Any) -> Any:
        if os.getpid() != parent and isinstance(body, dict) and "Fully blocked" in json.dumps(body):
            os._exit(3)  # the worker process dies, as under the kernel's OOM killer
        return real(body, **kwargs)

    monkeypatch.setattr(validate, "iter_problems", iter_problems)
    code, out, err = run("validate", *REQUESTS, "--jobs", "2", "--format", "json")
    assert code == 2
    doc = json.loads(out)
    assert doc["files"] == len(REQUESTS)
    failed = {p["file"] for p in doc["problems"] if p["code"] == "internal.error"}
    assert FAILING in failed
    assert all("BrokenProcessPool" in p["message"] for p in doc["problems"])
    assert "Traceback" not in err


MEDIA = ROOT / "testdata" / "media"
SCHEMAS = ROOT / "schemas"

# (id, module, function, argv: the failing file first, then a good one)
OTHER_COMMANDS = [
    (
        "sniff",
        "decisions_input.sniffing",
        "sniff_stream",
        ["sniff", str(MEDIA / "empty.bin"), str(MEDIA / "jpeg_baseline.jpg")],
    ),
    (
        "estimate",
        "decisions_input.budget",
        "estimate",
        ["estimate", str(ROOT / "testdata/requests/gemini-score.json"), REQUESTS[0]],
    ),
    (
        "schemas-lint",
        "decisions_input.schemas",
        "lint",
        [
            "schemas",
            "lint",
            str(SCHEMAS / "datastore-connection-signals.schema.json"),
            str(SCHEMAS / "gemini-decisions.openapi.json"),
        ],
    ),
]


@pytest.mark.parametrize(
    ("module", "function", "argv"),
    [c[1:] for c in OTHER_COMMANDS],
    ids=[c[0] for c in OTHER_COMMANDS],
)
def test_every_command_keeps_one_files_failure_to_that_file(
    monkeypatch: pytest.MonkeyPatch, module: str, function: str, argv: list[str]
) -> None:
    import importlib

    target = importlib.import_module(module)
    real = getattr(target, function)
    calls = []

    def first_fails(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the library broke")
        return real(*args, **kwargs)

    monkeypatch.setattr(target, function, first_fails)
    code, out, err = run(*argv)
    assert code == 2
    assert len(calls) == 2  # the second file was still looked at
    assert out  # and reported
    assert "RuntimeError: the library broke" in err
    assert err.count("\n") == 1 or "internal.error" in out
    assert "Traceback" not in err
