"""Request assembly: validation at build time, canonical bytes, parallel requests."""

from __future__ import annotations

import io
import json

import pytest

import decisions_input as di

EXPECTED = (
    '{"input":[{"text":"I was charged twice for my order.","type":"text"}],'
    '"model":"gemini-decision-1",'
    '"questions":{"department":{"criteria":{"billing":"Payments and refunds.","other":"",'
    '"technical":""},"instructions":"Which department should handle this?","type":"choice"},'
    '"is_billing":{"instructions":"Is this about a payment?","type":"noul"},'
    '"severity":{"criteria":["Cosmetic","Workaround exists","Blocked"],'
    '"instructions":"How severe is it?","type":"score"}}}'
)


def build() -> di.Request:
    return di.Request(
        target="gemini",
        model="gemini-decision-1",
        input=[di.text("I was charged twice for my order.")],
        questions={
            "is_billing": di.noul("Is this about a payment?"),
            "department": di.choice(
                "Which department should handle this?",
                {"billing": "Payments and refunds.", "technical": "", "other": ""},
            ),
            "severity": di.score("How severe is it?", ["Cosmetic", "Workaround exists", "Blocked"]),
        },
    )


def test_dumps_is_canonical_and_stable() -> None:
    assert build().dumps() == EXPECTED
    assert build().dumps() == build().dumps()
    assert build() == build()


def test_to_dict_matches_dumps() -> None:
    body = build().to_dict()
    assert json.dumps(body, separators=(",", ":"), ensure_ascii=False) == EXPECTED
    body["model"] = "changed"
    assert build().to_dict()["model"] == "gemini-decision-1"


def test_dump_writes_utf8_bytes() -> None:
    req = di.Request(
        model="gemini-decision-1",
        input="Caf\u00e9 \U0001f600",
        questions={"q": di.choice("Which?", {"\u00e9": "", "e": ""})},
    )
    out = io.BytesIO()
    written = req.dump(out)
    assert out.getvalue() == req.dumps().encode("utf-8")
    assert written == len(out.getvalue())
    assert "Caf\u00e9 \U0001f600".encode() in out.getvalue()


def test_emitted_body_passes_the_validator() -> None:
    text = build().dumps()
    assert list(di.iter_problems(text)) == []
    assert list(di.iter_problems(build().to_dict())) == []


def test_request_raises_every_error_at_once() -> None:
    with pytest.raises(di.InvalidInput) as info:
        di.Request(
            model="gemini-3.8-flash",
            input="",
            questions={"bad key": di.noul("x")},
        )
    assert [(p.code, p.json_path) for p in info.value.problems] == [
        ("model.unknown", "$.model"),
        ("input.empty", "$.input"),
        ("question.key_pattern", '$.questions["bad key"]'),
    ]


def test_request_keeps_warnings() -> None:
    req = di.Request(
        model="gemini-decision-1",
        input=[di.text("abc"), di.text("def")],
        questions={"q": di.noul("x")},
    )
    assert [(p.code, p.json_path) for p in req.warnings] == [("text.run_together", "$.input[1]")]


def test_parallel_request() -> None:
    req = di.Request(
        target="parallel",
        state={"company": "Clay", "website": "https://www.clay.com"},
        include_excerpts=False,
        questions={"has_cli": di.noul("Does Clay offer an official CLI?")},
    )
    assert req.dumps() == (
        '{"include_excerpts":false,"questions":{"has_cli":{"instructions":'
        '"Does Clay offer an official CLI?","type":"noul"}},'
        '"state":{"company":"Clay","website":"https://www.clay.com"}}'
    )


def test_parallel_refuses_a_model() -> None:
    with pytest.raises(di.InvalidInput) as info:
        di.Request(
            target="parallel", model="gemini-decision-1", state=1, questions={"q": di.noul("x")}
        )
    assert info.value.codes == ("schema.unknown_member",)


def test_lone_surrogate_is_refused() -> None:
    with pytest.raises(di.InvalidInput) as info:
        di.Request(model="gemini-decision-1", input="a\ud800b", questions={"q": di.noul("x")})
    assert [(p.code, p.json_path) for p in info.value.problems] == [
        ("json.lone_surrogate", "$.input")
    ]


def test_nan_state_is_refused() -> None:
    with pytest.raises(di.InvalidInput) as info:
        di.Request(target="parallel", state={"x": float("inf")}, questions={"q": di.noul("x")})
    assert info.value.codes == ("json.non_finite",)


def test_resource_model_name_is_kept_with_a_warning() -> None:
    req = di.Request(model="models/gemini-decision-1", input="x", questions={"q": di.noul("x")})
    assert [(p.code, p.json_path) for p in req.warnings] == [("model.prefixed", "$.model")]
    assert req.to_dict()["model"] == "models/gemini-decision-1"
