"""Properties of the command line on arbitrary files: it never fails inside, never loses a report.

For request bodies of any shape and JSON text with any hazard, ``validate`` exits with 0 or
1 (never 2), reports no ``internal.error``, writes every format as strict UTF-8 and places
every problem at a line and column of the file; for specs of any shape, ``build`` reports
problems or builds, and never fails inside; for any pair of request and response,
``estimate --against`` exits with 0 or 1 and gives the pair one verdict. The example
budget is small in the suite;
``DECISIONS_INPUT_FUZZ_EXAMPLES=20000 python -m pytest tests/test_cli_properties.py`` runs
the same properties for minutes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import (
    any_text,
    json_texts_with_hazards,
    request_like_bodies,
    response_bodies,
    response_requests,
    spec_like,
    usage_members,
)

from decisions_input.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("DECISIONS_INPUT_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _body_text(body: Any) -> bytes:
    text = json.dumps(body, ensure_ascii=False, indent=1)
    return text.encode("utf-8", "surrogatepass")


def _library_problems(data: bytes) -> list[tuple[str, str]]:
    """What the library reports on the same bytes, against the target their shape names."""
    from decisions_input import iter_problems
    from decisions_input.jsontext import parse
    from decisions_input.limits import target_of

    target = target_of(parse(data).value)
    return sorted((p.code, p.json_path) for p in iter_problems(data, target=target))


def _check_validate(path: Path, lines: int) -> None:
    code, out, err = run("validate", str(path), "--format", "json", "--max-problems", "0")
    assert code in (0, 1), err
    assert "internal" not in err
    doc = json.loads(out)
    reported = sorted((p["code"], p["json_path"]) for p in doc["problems"])
    assert reported == _library_problems(path.read_bytes())
    for problem in doc["problems"]:
        assert problem["code"] != "internal.error", problem
        assert 1 <= problem["line"] <= lines, problem
        assert problem["column"] >= 1
    for fmt in ("text", "sarif", "github"):
        code, out, err = run("validate", str(path), "--format", fmt)
        assert code in (0, 1), err
        out.encode("utf-8")


@FUZZ
@given(body=request_like_bodies)
def test_validate_any_request_body(tmp_path_factory: Any, body: dict[str, Any]) -> None:
    path = tmp_path_factory.mktemp("body") / "body.json"
    data = _body_text(body)
    path.write_bytes(data)
    _check_validate(path, data.count(b"\n") + 1)


@FUZZ
@example(text='{"\\ud800": 1}')
@example(text='{"a": 1, "a": [NaN, 1e400]}')
@example(text='"a JSON string is a body, not text to parse"')
@given(text=st.one_of(json_texts_with_hazards, any_text))
def test_validate_any_json_text(tmp_path_factory: Any, text: str) -> None:
    path = tmp_path_factory.mktemp("text") / "text.json"
    data = text.encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    _check_validate(path, data.count(b"\n") + 1)


@FUZZ
@example(spec={"questions": {"q": {"type": "choice", "instructions": "", "options": [[]]}}})
@given(spec=spec_like)
def test_build_any_spec(tmp_path_factory: Any, spec: dict[str, Any]) -> None:
    folder = tmp_path_factory.mktemp("spec")
    shutil.copy(ROOT / "testdata" / "media" / "jpeg_baseline.jpg", folder / "photo.jpg")
    path = folder / "spec.yaml"
    try:
        path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    except (yaml.YAMLError, UnicodeEncodeError):
        return  # a value YAML cannot write (a lone surrogate): not a spec anyone has
    code, out, err = run("build", str(path), "--format", "json", "-o", str(folder / "out.json"))
    assert "internal" not in err, err
    assert code in (0, 1, 2), err
    if code == 2:  # a spec YAML reads back as something else (a repeated key, a bad tag)
        assert err.startswith("decisions-input: error: "), err
        return
    doc = json.loads(out)
    assert all(p["code"] != "internal.error" for p in doc["problems"])
    assert (code == 0) == (doc["errors"] == 0)


@FUZZ
@given(response=response_bodies, request=response_requests)
def test_check_response_any_body(tmp_path_factory: Any, response: Any, request: Any) -> None:
    folder = tmp_path_factory.mktemp("response")
    (folder / "response.json").write_bytes(_body_text(response))
    (folder / "request.json").write_bytes(_body_text(request))
    argv = ["check-response", str(folder / "response.json"), "--format", "json"]
    code, out, err = run(*argv, "--request", str(folder / "request.json"))
    assert "internal" not in err, err
    if code == 2:  # a request that cannot be compared with: said on one line
        assert err.startswith("decisions-input: error: "), err
        return
    assert code in (0, 1), err
    assert all(p["code"] != "internal.error" for p in json.loads(out)["problems"])


# --- estimate --against --------------------------------------------------------------------------
# The example pairs with any usage in place of the one reported, and any request body with
# any response body: every format exits with 0 or 1, never fails inside, and gives each
# pair one verdict.

_PAIRS = ["gemini-multiple.json", "parallel-basic.json", "ticket.json"]


def _check_against(folder: Path) -> None:
    argv = ["estimate", str(folder / "q.json"), "--against", str(folder / "r.json")]
    code, out, err = run(*argv, "--format", "json")
    assert code in (0, 1), err
    assert "internal" not in err and "Traceback" not in err
    (pair,) = json.loads(out)["pairs"]
    assert pair["verdict"] in ("inside", "outside", "not_compared")
    assert (pair["verdict"] == "not_compared") == (pair["rows"] == [])
    assert (code == 1) == (pair["reason"] or "").startswith(("the request has", "the response has"))
    failing, text, err = run(*argv, "--fail-outside")
    assert failing == (1 if pair["verdict"] == "outside" else code), err
    text.encode("utf-8")


@FUZZ
@given(name=st.sampled_from(_PAIRS), usage=usage_members)
def test_estimate_against_any_reported_usage(tmp_path_factory: Any, name: str, usage: Any) -> None:
    folder = tmp_path_factory.mktemp("against")
    response = json.loads((ROOT / "testdata" / "responses" / name).read_text())
    response["usage"] = usage
    shutil.copy(ROOT / "testdata" / "requests" / name, folder / "q.json")
    (folder / "r.json").write_bytes(_body_text(response))
    _check_against(folder)


@FUZZ
@given(request=request_like_bodies, response=response_bodies)
def test_estimate_against_any_pair_of_bodies(
    tmp_path_factory: Any, request: Any, response: Any
) -> None:
    folder = tmp_path_factory.mktemp("against")
    (folder / "q.json").write_bytes(_body_text(request))
    (folder / "r.json").write_bytes(_body_text(response))
    _check_against(folder)
