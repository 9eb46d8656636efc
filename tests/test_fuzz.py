"""The fuzz harness: its regression seeds replayed, and the harness itself checked.

The seeds under ``tests/fuzz_seeds/`` are inputs the harness once failed on; each must now
pass every property. The other tests keep the harness honest: its valid bodies are valid
(for the library and for the bundled schema), its properties catch planted defects, and
its mutator, minimiser and case files are deterministic.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import decisions_input as di
from fuzz import check_cli as check_cli_module
from fuzz import properties, run
from fuzz.bodies import TARGETS, valid_bodies
from fuzz.calls import Call, decode_call, encode_call
from fuzz.cases import Case, iter_cases, load_case, save_case
from fuzz.check_cli import _check_run
from fuzz.corpus import json_examples, media_files
from fuzz.forms import forms_of, text_of
from fuzz.mutate import Mutator, minimize
from fuzz.oracle import schema_refusal
from fuzz.probe import Probe
from fuzz.properties import check_case
from fuzz.replies import error_bodies, responses_to, signals_bodies
from fuzz.verdicts import check_emitted, check_problems, compare_forms
from fuzz.watchdog import Hung, cpu_deadline

SEEDS = Path(__file__).parent / "fuzz_seeds"
SEED_CASES = list(iter_cases(SEEDS))
QUICK = settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


# --- the regression seeds ---------------------------------------------------------------------


def test_there_are_seeds() -> None:
    assert SEED_CASES, f"no case files under {SEEDS}"


@pytest.mark.parametrize("path", SEED_CASES, ids=[p.name for p in SEED_CASES])
def test_seed_passes_every_property(path: Path, tmp_path: Path) -> None:
    assert [str(f) for f in check_case(load_case(path), tmp_path)] == []


# --- valid stays valid: the generators, the library and the schema agree ----------------------


@QUICK
@given(st.sampled_from(TARGETS).flatmap(lambda t: st.tuples(st.just(t), valid_bodies(t))))
def test_valid_bodies_are_valid(pair: tuple[str, dict[str, Any]]) -> None:
    target, body = pair
    assert [p for p in di.iter_problems(body, target=target) if p.is_error] == []
    assert schema_refusal(body, kind="request", target=target) is None


@QUICK
@given(
    st.sampled_from(TARGETS).flatmap(
        lambda t: valid_bodies(t).flatmap(
            lambda request: st.tuples(st.just(t), st.just(request), responses_to(request, t))
        )
    )
)
def test_valid_responses_are_valid(triple: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    target, request, response = triple
    problems = di.iter_response_problems(response, request=request, target=target)
    assert [p for p in problems if p.is_error] == []
    assert schema_refusal(response, kind="response", target=target) is None


@QUICK
@given(st.sampled_from(TARGETS).flatmap(lambda t: st.tuples(st.just(t), error_bodies(t))))
def test_valid_error_bodies_are_valid(pair: tuple[str, dict[str, Any]]) -> None:
    target, body = pair
    assert [p for p in di.iter_error_problems(body, target=target) if p.is_error] == []
    assert schema_refusal(body, kind="error", target=target) is None


@QUICK
@given(signals_bodies())
def test_valid_signals_are_valid(body: dict[str, Any]) -> None:
    assert [p for p in di.iter_signals_problems(body) if p.is_error] == []
    assert schema_refusal(body, kind="signals", target="gemini") is None


# --- the properties catch what they are for ---------------------------------------------------

OBJECT = forms_of(b'{"a": [1, {"b": 2}]}')

# (id, a problem the library might report on OBJECT, the property it breaks)
PLANTED: list[tuple[str, di.Problem, str]] = [
    ("internal-code", di.Problem(("a",), "internal.error", "TypeError: x"), "internal-error"),
    (
        "object-as-wrong-type",
        di.Problem((), "schema.type", "the body could not be read as JSON: TypeError: x"),
        "internal-error",
    ),
    ("unknown-code", di.Problem(("a",), "schema.nonsense", "x"), "unknown-code"),
    ("path-into-nothing", di.Problem(("a", 5), "schema.type", "x"), "path-unresolved"),
    ("index-into-object", di.Problem(("a", 1, 0), "schema.type", "x"), "path-unresolved"),
]


@pytest.mark.parametrize(("problem", "prop"), [p[1:] for p in PLANTED], ids=[p[0] for p in PLANTED])
def test_planted_problem_is_caught(problem: di.Problem, prop: str) -> None:
    probe = Probe()
    check_problems(probe, "mapping", [problem], OBJECT)
    assert [f.prop for f in probe.failures] == [prop]


def test_problems_that_resolve_pass() -> None:
    probe = Probe()
    fine = [di.Problem(("a", 1, "b"), "schema.type", "x"), di.Problem((), "schema.required", "x")]
    check_problems(probe, "mapping", fine, OBJECT)
    assert probe.failures == []


def test_paths_into_a_repeated_member_resolve() -> None:
    repeated = forms_of(b'{"a": {"b": [1]}, "a": null}')
    probe = Probe()
    check_problems(probe, "bytes", [di.Problem(("a", "b", 0), "json.duplicate_key", "x")], repeated)
    assert probe.failures == []
    check_problems(probe, "bytes", [di.Problem(("a", "c"), "json.duplicate_key", "x")], repeated)
    assert [f.prop for f in probe.failures] == ["path-unresolved"]


def test_forms_that_disagree_are_caught() -> None:
    probe = Probe()
    error = di.Problem((), "json.too_deep", "x")
    compare_forms(probe, {"bytes": [error], "str": [error], "mapping": []}, OBJECT)
    assert [(f.prop, f.where) for f in probe.failures] == [
        ("forms-disagree", "bytes/mapping: +json.too_deep")
    ]


def test_codes_lost_past_a_shared_text_problem_are_one_failure() -> None:
    probe = Probe()
    deep = di.Problem((), "json.too_deep", "x")
    for lost in ("schema.unknown_member", "schema.required"):
        compare_forms(
            probe, {"bytes": [deep], "mapping": [deep, di.Problem((), lost, "x")]}, OBJECT
        )
    early = di.Problem((), "json.number_range", "x")
    compare_forms(probe, {"bytes": [deep, early], "mapping": [deep]}, OBJECT)
    assert {f.where for f in probe.failures} == {"bytes/mapping: differ past json.too_deep"}


def test_bytes_in_another_encoding_compare_by_verdict() -> None:
    probe = Probe()
    syntax = di.Problem((), "json.syntax", "x")
    encoding = di.Problem((), "json.encoding", "x")
    trailing = di.Problem((), "json.trailing_data", "x")
    compare_forms(probe, {"bytes": [encoding, trailing], "str": [syntax]}, OBJECT)
    assert probe.failures == []
    compare_forms(probe, {"bytes": [encoding], "str": []}, OBJECT)
    assert [f.where for f in probe.failures] == ["bytes/str: +json.encoding"]


def test_foreign_exception_is_caught_with_its_place() -> None:
    probe = Probe()
    result, raised = probe.call("boom", lambda: {}["missing"])
    assert (result, raised) == (None, None)
    assert [f.prop for f in probe.failures] == ["foreign-exception"]
    assert probe.failures[0].where.startswith("KeyError")


def test_a_backtracking_pattern_is_stopped_at_the_deadline() -> None:
    # (a+)*b on forty a's backtracks for hours: the regex engine must take the alarm.
    with pytest.raises(Hung), cpu_deadline(0.2):
        re.match(rb"(?:a+)*b", b"a" * 40)


def test_a_case_past_its_deadline_is_one_hang_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def spin(case: Case, workdir: Path | None) -> list[Any]:
        while True:
            pass

    monkeypatch.setattr(properties, "_check", spin)
    monkeypatch.setattr(properties, "HANG_CPU_SECONDS", 0.2)
    (failure,) = check_case(Case("media", b"x"))
    assert (failure.prop, failure.where) == ("hang", "Hung in test_fuzz.py:spin")
    assert failure.detail == "media: no answer after 0.2 s of CPU"


def test_the_command_line_check_lets_the_deadline_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def spin(*args: Any, **kwargs: Any) -> int:
        while True:
            pass

    monkeypatch.setattr(check_cli_module, "main", spin)
    monkeypatch.setattr(properties, "HANG_CPU_SECONDS", 0.2)
    (failure,) = check_case(Case("cli", b"{}", kind="validate.text", api="gemini"), tmp_path)
    assert (failure.prop, failure.detail) == ("hang", "cli: no answer after 0.2 s of CPU")


def test_a_built_request_that_is_refused_is_caught() -> None:
    model = sorted(di.GEMINI.MODELS)[0]

    def refused() -> di.Request:
        return di.Request(model=model, input="", questions={"q": di.noul("Is it?")})

    def accepted() -> di.Request:
        return di.Request(model=model, input="x", questions={"q": di.noul("Is it?")})

    probe = Probe()
    check_emitted(probe, refused, "an empty input", di.GEMINI)
    assert [(f.prop, f.where) for f in probe.failures] == [
        ("built-block-refused", "an empty input input.empty")
    ]
    probe = Probe()
    check_emitted(probe, accepted, "text", di.GEMINI)
    assert probe.failures == []


def test_own_errors_pass_through() -> None:
    probe = Probe()
    _, raised = probe.call("check", lambda: di.check({}, target="gemini"))
    assert isinstance(raised, di.InvalidInput)
    assert probe.failures == []


@pytest.mark.parametrize(
    ("status", "stderr", "props"),
    [
        (0, "", []),
        (3, "", ["cli-exit"]),
        (2, "decisions-input: internal error: UnicodeEncodeError: x\n", ["cli-internal"]),
        (1, "Traceback (most recent call last):\n  File ...", ["cli-traceback"]),
    ],
    ids=["clean", "odd-status", "internal-error", "traceback"],
)
def test_command_line_failures_are_caught(status: int, stderr: str, props: list[str]) -> None:
    probe = Probe()
    _check_run(probe, "validate.json", status, "", stderr)
    assert [f.prop for f in probe.failures] == props


# (id, text, parsed, clean)
FORMS: list[tuple[str, bytes, bool, bool]] = [
    ("plain", b'{"a": 1}', True, True),
    ("repeated-name", b'{"a": 1, "a": 2}', True, False),
    ("nan", b'{"a": NaN}', True, False),
    ("beyond-a-double", b'{"a": 1e400}', True, False),
    ("big-integer", b'{"a": ' + b"9" * 400 + b"}", True, True),
    ("lone-surrogate", b'{"a": "\\ud800"}', True, False),
    ("bom", b'\xef\xbb\xbf{"a": 1}', False, False),
    ("invalid-utf8", b'{"a": "\xff"}', False, False),
    ("syntax", b'{"a": }', False, False),
]


@pytest.mark.parametrize(
    ("data", "parsed", "clean"), [f[1:] for f in FORMS], ids=[f[0] for f in FORMS]
)
def test_forms_tell_when_text_and_value_compare(data: bytes, parsed: bool, clean: bool) -> None:
    forms = forms_of(data)
    assert (forms.parsed, forms.clean) == (parsed, clean)


def test_text_of_writes_lone_surrogates_as_escapes() -> None:
    assert text_of({"\ud800": "\u00e9"}) == b'{"\\ud800": "\\u00e9"}'
    assert text_of({"a": "\u00e9"}) == '{"a": "\u00e9"}'.encode()


# --- the mutator, the minimiser, the case files, the corpus -----------------------------------


def test_mutator_is_deterministic() -> None:
    corpus = [b'{"a": [1, 2]}', b"\x89PNG\r\n\x1a\n" + bytes(range(64))]
    one, two, other = Mutator(7, corpus), Mutator(7, corpus), Mutator(8, corpus)
    first = [one.next() for _ in range(50)]
    assert first == [two.next() for _ in range(50)]
    assert first != [other.next() for _ in range(50)]


def test_minimize_keeps_only_what_fails() -> None:
    data = b"header " * 20 + b"\xff" + b" trailer" * 20
    assert minimize(data, lambda d: b"\xff" in d) == b"\xff"


def test_case_file_round_trips(tmp_path: Path) -> None:
    case = Case("responses", b'{"answers": {}}', "parallel", "response", b'{"questions": {}}')
    path = save_case(case, tmp_path)
    assert path.parent.name == "responses"
    assert path.name.startswith("response-parallel-")
    assert load_case(path) == case
    assert list(iter_cases(tmp_path)) == [path]


def test_builder_call_round_trips() -> None:
    call = Call(
        "choice", ("Which?", {"$tuple": ["a", "\ud800"]}), {"limits": {"$limits": "gemini"}}
    )
    assert decode_call(encode_call(call)) == call


def test_corpus_reads_the_folders() -> None:
    assert len(media_files()) == len([p for p in (run.ROOT / "testdata" / "media").iterdir()])
    kinds = {(target, kind) for target, kind, _ in json_examples()}
    assert {("gemini", "request"), ("parallel", "response"), ("gemini", "signals")} <= kinds


# --- the runner -------------------------------------------------------------------------------


def test_runner_replays_a_case(tmp_path: Path) -> None:
    path = save_case(Case("requests", b'{"state": {}, "questions": {}}', "parallel"), tmp_path)
    out = io.StringIO()
    assert run.main(["--replay", str(path)], stream=out) == 0
    assert out.getvalue() == f"{path}: ok\n"


def test_runner_runs_a_short_budget(tmp_path: Path) -> None:
    out = io.StringIO()
    status = run.main(["--target", "media", "--seconds", "0.2", "--out", str(tmp_path)], stream=out)
    lines = out.getvalue().splitlines()
    assert status == 0, out.getvalue()
    assert lines[0].startswith("fuzz: targets media; 0.2 s each; seed 0")
    assert any(line.startswith("media: ") and "mutation" in line for line in lines)
