"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

# --- responses ---------------------------------------------------------------------------
# Response-like bodies: every known member may be there, with a plausible or an arbitrary
# value, so the checks past the structure get exercised too.

_r_keys = st.sampled_from(["q1", "q2", "is_defect", "next_action", "0", "1", "a", "b", ""])
_r_numbers = st.one_of(
    st.integers(-3, 3),
    st.floats(-0.5, 1.5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=10**300, max_value=10**320),
    st.sampled_from([0, 1, 0.01, 0.5, 0.99, 1e-300]),
)
_r_scalars = (
    st.none()
    | st.booleans()
    | _r_numbers
    | st.text(max_size=6)
    | st.sampled_from(["\ud800", "noul"])
)
response_json = st.recursive(
    _r_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_r_keys | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=16,
)


def _r_maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(strategy, response_json)


_r_answer = st.fixed_dictionaries(
    {},
    optional={
        "type": _r_maybe(st.sampled_from(["noul", "choice", "score", "refusal", "bool"])),
        "noul": _r_maybe(_r_numbers),
        "confidence": _r_maybe(_r_numbers),
        "choice": _r_maybe(_r_keys),
        "score": _r_maybe(_r_numbers),
        "probabilities": _r_maybe(st.dictionaries(_r_keys, _r_numbers, max_size=4)),
        "legend": _r_maybe(st.dictionaries(_r_keys, st.text(max_size=3), max_size=4)),
        "other": response_json,
    },
)
_r_citation = st.fixed_dictionaries(
    {},
    optional={
        "url": _r_maybe(st.sampled_from(["https://a.example/x", "/rel", "http://[", "ftp://x"])),
        "title": response_json,
        "excerpts": _r_maybe(st.lists(st.text(max_size=3), max_size=2)),
    },
)
_r_modality_tokens = st.fixed_dictionaries(
    {},
    optional={
        "modality": _r_maybe(st.sampled_from(["text", "image"])),
        "tokens": _r_maybe(st.integers(-1, 6)),
    },
)
response_bodies = st.one_of(
    response_json,
    st.fixed_dictionaries(
        {},
        optional={
            "mode": _r_maybe(st.just("fast")),
            "answers": _r_maybe(st.dictionaries(_r_keys, _r_maybe(_r_answer), max_size=4)),
            "usage": _r_maybe(
                st.dictionaries(
                    st.sampled_from(
                        [
                            "total_tokens",
                            "total_input_tokens",
                            "initial_input_tokens",
                            "total_cached_tokens",
                            "total_output_tokens",
                            "total_thought_tokens",
                            "total_tool_use_tokens",
                            "input_tokens",
                            "output_tokens",
                        ]
                    ),
                    _r_maybe(_r_numbers | st.integers(0, 2000)),
                    max_size=4,
                )
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "input_tokens_by_modality",
                            "cached_tokens_by_modality",
                            "output_tokens_by_modality",
                        ]
                    ),
                    _r_maybe(st.lists(_r_maybe(_r_modality_tokens), max_size=3)),
                    max_size=2,
                ).map(lambda d: {"total_input_tokens": 5, "total_cached_tokens": 2, **d})
            ),
            "prompt_feedback": _r_maybe(
                st.fixed_dictionaries({}, optional={"block_reason": _r_maybe(st.just("safety"))})
            ),
            "citations": _r_maybe(st.lists(_r_maybe(_r_citation), max_size=3)),
            "decision_id": _r_maybe(st.just("decisions_" + "0" * 32)),
            "extra": response_json,
            "error": _r_maybe(st.fixed_dictionaries({}, optional={"message": st.text(max_size=4)})),
        },
    ),
)
_r_request_block = st.fixed_dictionaries(
    {"type": _r_maybe(st.sampled_from(["text", "image", "audio", "video", "document"]))},
    optional={
        "text": _r_maybe(st.text(max_size=12)),
        "data": _r_maybe(st.sampled_from(["", "iVBORw0KGgo=", "AAAA", "%%"])),
        "uri": _r_maybe(st.just("https://a.example/x.png")),
        "resolution": _r_maybe(st.sampled_from(["low", "high"])),
    },
)
# The questions the answers are compared with, and what the estimate reads: the input of
# Gemini's requests or the state of Parallel's.
response_requests = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "questions": st.dictionaries(
                _r_keys,
                st.fixed_dictionaries(
                    {},
                    optional={
                        "type": _r_maybe(st.sampled_from(["noul", "choice", "score"])),
                        "instructions": _r_maybe(st.text(max_size=8)),
                        "criteria": _r_maybe(
                            st.dictionaries(_r_keys, st.text(max_size=2), max_size=3)
                            | st.lists(st.text(max_size=2), max_size=3)
                        ),
                    },
                ),
                max_size=4,
            )
        },
        optional={
            "include_excerpts": _r_maybe(st.booleans()),
            "model": st.just("gemini-decision-1"),
            "input": _r_maybe(st.text(max_size=12) | st.lists(_r_request_block, max_size=3)),
            "state": response_json,
        },
    ),
)
_r_snippet = st.fixed_dictionaries(
    {}, optional={"text": _r_maybe(st.text(max_size=4)), "metadata": response_json}
)
signals_bodies = st.one_of(
    response_json,
    st.fixed_dictionaries(
        {},
        optional={
            "searchSnippets": _r_maybe(st.lists(_r_maybe(_r_snippet), max_size=3)),
            "answer": _r_maybe(st.text(max_size=6)),
            "answerParts": _r_maybe(
                st.lists(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "text": _r_maybe(st.text(max_size=4)),
                            "supportingIndices": _r_maybe(st.lists(_r_numbers, max_size=3)),
                        },
                    ),
                    max_size=3,
                )
            ),
            "citedSnippets": _r_maybe(
                st.lists(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "searchSnippet": _r_maybe(_r_snippet),
                            "snippetIndex": _r_numbers,
                        },
                    ),
                    max_size=3,
                )
            ),
            "groundingSignals": _r_maybe(
                st.fixed_dictionaries({}, optional={"decision": _r_maybe(st.just("HIGH"))})
            ),
        },
    ),
)
error_bodies = st.one_of(
    response_json,
    st.fixed_dictionaries(
        {},
        optional={
            "type": _r_maybe(st.just("error")),
            "error": _r_maybe(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "message": _r_maybe(st.text(max_size=5)),
                        "ref_id": _r_maybe(st.text(max_size=5)),
                        "code": response_json,
                        "detail": response_json,
                    },
                )
            ),
        },
    ),
)


# Consistent responses the checks accept (warnings aside), to round-trip through the models:
# probabilities printed at two decimals that add up to 1, the most probable choice, the
# score as the mean, confidences that match. Stray members, including names another target
# uses, are sprinkled in, since APIs add fields.

_json_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
# Names no shape of the target has here; some are members another target has.
_STRAYS = {
    ("gemini", "response"): ["note", "decision_id", "mode", "citations", "extra", "é"],
    ("parallel", "response"): ["note", "prompt_feedback", "extra", "é"],
    ("gemini", "answer"): ["note", "extra", "reasoning"],
    ("parallel", "answer"): ["note", "extra", "legend_"],
    ("parallel", "noul"): ["note", "confidence"],
}


@st.composite
def _hundredths(draw: st.DrawFn, count: int) -> list[float]:
    """``count`` probabilities in hundredths that add up to exactly 1."""
    cuts = sorted(draw(st.lists(st.integers(0, 100), min_size=count - 1, max_size=count - 1)))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, 100], strict=True)]
    return [p / 100 if p % 100 else p // 100 for p in parts]


def _confidence(value: float) -> float:
    return round(value, 2) if isinstance(value, float) else value


@st.composite
def _valid_answer(draw: st.DrawFn, target: str) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(["noul", "choice", "score"] + (["refusal"] * (target == "parallel")))
    )
    gemini = target == "gemini"
    if kind == "refusal":
        return {"type": "refusal"}
    if kind == "noul":
        noul = draw(st.integers(1, 99)) / 100
        answer: dict[str, Any] = {"type": "noul", "noul": noul}
        if gemini:
            answer["confidence"] = round(max(noul, 1 - noul), 2)
        return answer
    count = draw(st.integers(2, 5))
    numbers = draw(_hundredths(count))
    if kind == "choice":
        ids = draw(
            st.lists(st.text(min_size=1, max_size=4), min_size=count, max_size=count, unique=True)
        )
        probabilities = dict(zip(ids, numbers, strict=True))
        top = max(numbers)
        choice = min((k for k, v in probabilities.items() if v == top), key=lambda k: k.encode())
        answer = {"type": "choice", "choice": choice, "probabilities": probabilities}
    else:
        probabilities = {str(i): p for i, p in enumerate(numbers)}
        mean = round(sum(i * p for i, p in enumerate(numbers)), 2)
        legend = {str(i): f"level {i}" for i in range(count)}
        answer = {"type": "score", "score": mean, "probabilities": probabilities, "legend": legend}
        top = max(numbers)
    if gemini or draw(st.booleans()):
        answer["confidence"] = _confidence(top) if gemini or draw(st.booleans()) else None
    return answer


def _strays(draw: st.DrawFn, body: dict[str, Any], target: str, where: str) -> dict[str, Any]:
    names = st.sampled_from(_STRAYS[target, where])
    extra = draw(st.dictionaries(names, _json_plain, max_size=2))
    return {**body, **{k: v for k, v in extra.items() if k not in body}}


@st.composite
def valid_responses(draw: st.DrawFn, target: str) -> dict[str, Any]:
    """A response body of the target that parses, possibly with warnings."""
    keys = draw(
        st.lists(st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True), max_size=4, unique=True)
    )
    answers = {k: _stray_answer(draw, draw(_valid_answer(target)), target) for k in keys}
    if target == "gemini":
        body: dict[str, Any] = {"answers": answers}
        if draw(st.booleans()):
            total = draw(st.integers(0, 10_000))
            body["usage"] = {
                "total_input_tokens": total,
                "input_tokens_by_modality": [{"modality": "text", "tokens": total}],
                "total_output_tokens": 0,
                "total_tokens": total,
            }
    else:
        body = {
            "mode": "fast",
            "answers": answers,
            "usage": {"input_tokens": draw(st.integers(0, 10_000)), "output_tokens": 0},
            "citations": [
                {
                    "url": "https://a.example/",
                    "title": draw(st.none() | st.text(max_size=4)),
                    "excerpts": [],
                }
            ],
            "decision_id": "decisions_" + "ab" * 16,
        }
    return _strays(draw, body, target, "response")


def _stray_answer(draw: st.DrawFn, answer: dict[str, Any], target: str) -> dict[str, Any]:
    if answer["type"] == "refusal":
        return answer  # a refusal with anything more is an error
    where = "noul" if target == "parallel" and answer["type"] == "noul" else "answer"
    return _strays(draw, answer, target, where)


# --- usage that adds up --------------------------------------------------------------------
# 000's usage with every member filled and every count in agreement with the others, by the
# readings the limits table states: cached and first-turn input within the input, each
# breakdown adding up to its total, total_tokens at least input, output, thought and
# tool-use tokens together, no output for a decision.

_MODALITIES = ["text", "image", "audio", "video", "document"]


@st.composite
def _breakdown(draw: st.DrawFn, total: int) -> list[dict[str, Any]]:
    """A breakdown of ``total`` tokens over one to three modalities."""
    count = draw(st.integers(1, 3))
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=count - 1, max_size=count - 1)))
    parts = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
    names = draw(
        st.lists(st.sampled_from(_MODALITIES), min_size=count, max_size=count, unique=True)
    )
    return [{"modality": m, "tokens": t} for m, t in zip(names, parts, strict=True)]


@st.composite
def consistent_gemini_usage(draw: st.DrawFn) -> dict[str, Any]:
    """A full Gemini usage object whose counts add up."""
    total_input = draw(st.integers(0, 10**6))
    cached = draw(st.integers(0, total_input))
    tool_use = draw(st.integers(0, 10**5))
    thought = draw(st.integers(0, 10**5))
    internal = draw(st.integers(0, 1000))  # other internal tokens, counted in no member
    return {
        "total_input_tokens": total_input,
        "initial_input_tokens": draw(st.integers(0, total_input)),
        "input_tokens_by_modality": draw(_breakdown(total_input)),
        "total_cached_tokens": cached,
        "cached_tokens_by_modality": draw(_breakdown(cached)),
        "total_output_tokens": 0,
        "output_tokens_by_modality": draw(_breakdown(0)),
        "total_tool_use_tokens": tool_use,
        "tool_use_tokens_by_modality": draw(_breakdown(tool_use)),
        "total_thought_tokens": thought,
        "total_tokens": total_input + tool_use + thought + internal,
    }


# --- media bytes (sniff) -----------------------------------------------------------------
# Arbitrary bytes, bytes behind a real signature (so the walkers past the first check run),
# and mutations of real files handed in by the test.

MEDIA_SIGNATURES: tuple[bytes, ...] = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    b"\xff\xd8\xff\xe0",
    b"\xff\xd8\xff\xc0\x00\x11",
    b"GIF89a",
    b"II*\x00\x08\x00\x00\x00",
    b"MM\x00*\x00\x00\x00\x08",
    b"II+\x00\x08\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00",
    b"RIFF\x00\x00\x00\x00WAVEfmt ",
    b"RIFF\xff\xff\xff\xffAVI LIST",
    b"RIFF\x00\x01\x00\x00WEBPVP8 ",
    b"RIFF\x00\x01\x00\x00WEBPVP8X",
    b"RF64\xff\xff\xff\xffWAVEds64",
    b"FORM\x00\x00\x00\x00AIFFCOMM",
    b"FORM\x00\x00\x00\x00AIFC",
    b"\x00\x00\x00\x18ftypisom",
    b"\x00\x00\x00\x18ftypheic",
    b"\x00\x00\x00\x18ftypqt  ",
    b"\x00\x00\x00\x18ftypM4A ",
    b"\x00\x00\x00\x01ftyp",
    b"\x00\x00\x00\x08moov",
    b"\x1aE\xdf\xa3",
    b"\x1aE\xdf\xa3\x9fB\x86\x81\x01B\x82\x84webm",
    b"OggS\x00\x02",
    b"fLaC\x00\x00\x00\x22",
    b"ID3\x03\x00\x00",
    b"ID3\x04\x00\x10",
    b"\xff\xfb\x90\x64",
    b"\xff\xf1\x50\x80",
    b"FLV\x01\x05\x00\x00\x00\x09",
    b"\x00\x00\x01\xba\x44",
    b"\x00\x00\x01\xba\x21",
    b"\x00\x00\x01\xb3",
    b"\x47",
    b"BM",
    b"%PDF-1.4\n",
    b"0&\xb2u\x8ef\xcf\x11\xa6\xd9\x00\xaa\x00b\xcel",
    b"PK\x03\x04",
    b"\x00\x00\x01\x00\x01\x00",
    b"RIFX\x00\x00\x00\x24WAVEfmt ",
    b"BW64\xff\xff\xff\xffWAVEds64",
    b"FORM\x00\x00\x00\x00AIFCFVER",
    b"\x00\x00\x01\xb3\x04\x00\x30\x13",
    b"\x00\x00\x00\x18ftypiso6\x00\x00\x02\x00iso6cmfc",
    b"%PDF-1.5\n1 0 obj\n<< /Type /XRef /W [1 2 1] >>\nstream\n",
    b"%PDF-1.4\nxref\n0 3\n0000000000 65535 f \n",
)

media_bytes = st.one_of(
    st.binary(max_size=600),
    st.builds(
        lambda sig, tail: sig + tail, st.sampled_from(MEDIA_SIGNATURES), st.binary(max_size=600)
    ),
)

declared_mime_types = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "audio/l16",
            "audio/l16;rate=16000",
            "audio/l16; rate=16000; channels=2",
            "audio/l16;rate=abc",
            "audio/alaw;rate=8000",
            "audio/mulaw",
            "audio/wav",
            "image/png",
            "audio/opus",
            "audio/l16;;=",
        ]
    ),
    st.text(max_size=30),
)


# PDF dictionaries as the page-tree reader meets them: the members it wants and others, with
# names, numbers, references, arrays of references, nested dictionaries and arrays, strings
# (literal and hex), comments and every kind of white space between the tokens. Well formed
# (a value for every name), or a soup of the same tokens.
_pdf_gaps = st.sampled_from([b" ", b"\n", b"\r\n", b"\t", b"\x00", b"  \n"])
_pdf_names = st.sampled_from(
    [b"Type", b"Kids", b"Count", b"Pages", b"Page", b"Root", b"Size", b"Parent", b"X", b"", b"A#20"]
)
_pdf_scalars = st.one_of(
    _pdf_names.map(lambda name: b"/" + name),
    st.integers(-5, 10**6).map(lambda n: str(n).encode()),
    st.sampled_from([b"0.5", b"-.5", b"true", b"null", b"12 0 R", b"3 0 R", b"(a)", b"(a(b)c)"]),
    st.sampled_from([b"<414243>", b"<>", b"%note\n7"]),
)


def _pdf_join(draw: st.DrawFn, tokens: list[bytes]) -> bytes:
    """Join tokens with white space, or none before a token that starts with a delimiter."""
    out = b""
    for token in tokens:
        tight = out and token[:1] in b"/[<(" and draw(st.booleans())
        out += token if tight else (draw(_pdf_gaps) if out else b"") + token
    return out


@st.composite
def _pdf_value(draw: st.DrawFn, depth: int = 0) -> bytes:
    kind = draw(st.integers(0, 3 if depth < 2 else 0))
    if kind == 0:
        return draw(_pdf_scalars)
    if kind == 1:  # an array of references, as /Kids holds them: short, or past 256 bytes
        refs = draw(st.lists(st.integers(1, 99), max_size=5) | st.lists(st.just(7), min_size=40))
        return b"[" + _pdf_join(draw, [b"%d 0 R" % n for n in refs]) + b"]"
    items = draw(st.lists(_pdf_value(depth + 1), max_size=4))
    if kind == 2:
        return b"[" + _pdf_join(draw, items) + b"]"
    keys = draw(st.lists(_pdf_names, min_size=len(items), max_size=len(items)))
    pairs = [_pdf_join(draw, [b"/" + k, v]) for k, v in zip(keys, items, strict=True)]
    return b"<<" + _pdf_join(draw, pairs) + b">>"


_pdf_tokens = st.one_of(_pdf_scalars, st.sampled_from([b"<<", b">>", b"[", b"]", b"/Type", b"0R"]))


@st.composite
def pdf_dictionaries(draw: st.DrawFn, *, soup: bool = False) -> bytes:
    """The text of one PDF dictionary and what follows it, maybe cut short; with ``soup``,
    tokens in any order between its brackets."""
    if soup:
        inner = _pdf_join(draw, draw(st.lists(_pdf_tokens, max_size=12)))
    else:
        members = draw(st.lists(st.tuples(_pdf_names, _pdf_value()), max_size=6))
        inner = _pdf_join(draw, [_pdf_join(draw, [b"/" + k, v]) for k, v in members])
    text = b"<< " + inner + draw(_pdf_gaps) + b">>" + draw(_pdf_gaps) + b"endobj"
    return text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text + b"\n" * 20


@st.composite
def pdf_arrays(draw: st.DrawFn) -> bytes:
    """The text of one PDF array and what follows it, maybe cut short: mostly integers
    (as /W, /Index and /MediaBox hold them), with other tokens mixed in."""
    numbers = st.integers(-300, 10**6).map(lambda n: str(n).encode())
    items = draw(st.lists(numbers | _pdf_scalars | st.just(b"+3"), max_size=8))
    text = b"[" + _pdf_join(draw, items) + draw(_pdf_gaps) + b"]" + draw(_pdf_gaps) + b"endobj"
    return text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text + b"\n" * 20


def mutated_media(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Real files with bytes overwritten, cut short, or inserted."""

    @st.composite
    def mutated(draw: st.DrawFn) -> bytes:
        out = bytearray(draw(st.sampled_from(seeds)))
        for _ in range(draw(st.integers(1, 6))):
            action = draw(st.sampled_from(["set", "cut", "insert", "word"]))
            at = draw(st.integers(0, max(0, len(out) - 1)))
            if action == "set" and out:
                out[at] = draw(st.integers(0, 255))
            elif action == "cut":
                del out[at:]
            elif action == "insert":
                out[at:at] = draw(st.binary(min_size=1, max_size=32))
            else:
                words = [b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x00\x00\x00\x01"]
                out[at : at + 4] = draw(st.sampled_from(words))
        return bytes(out)

    return mutated()


# --- JSON text (jsontext) ----------------------------------------------------------------
# Values that ``json.dumps`` writes as clean JSON, and JSON text assembled from fragments
# with hazards mixed in: repeated member names (a small key alphabet, and "\u0061" is "a"),
# non-finite constants, lone surrogate escapes, numbers beyond a double.

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**300), max_value=10**300),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=16,
)

_hazard_scalars = st.sampled_from(
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e400",
        "-1E+400",
        "1" + "0" * 310,
        '"\\ud800"',
        '"x\\udc00"',
        '"\\ud83d\\ude00"',
        '"\\\\ud800"',
    ]
)
_hazard_keys = st.sampled_from(["a", "b", "\\u0061", "\\ud800", "\\\\", 'k\\"x'])


def _json_object(members: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f'"{name}":{value}' for name, value in members) + "}"


json_texts_with_hazards = st.recursive(
    st.one_of(json_scalars.map(json.dumps), _hazard_scalars),
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda items: "[" + ",".join(items) + "]")
        | st.lists(st.tuples(_hazard_keys, inner), max_size=4).map(_json_object)
    ),
    max_leaves=12,
)

# Text drawn from the characters JSON is made of, so the tokenizer meets every state.
json_like_text = st.text(
    alphabet=st.sampled_from(list('{}[]",: \n0123456789-+.eEtrufalsnNIy\\udDc8x') + ["\ud800"]),
    max_size=40,
)


# --- built requests (request, sending) -----------------------------------------------------
# Requests made with the builders: text with non-ASCII and escapes, real media files from
# testdata/media (inline, so the writer streams them), states of any JSON, questions of
# every type. Generated values that a builder refuses are drawn again.

_MEDIA_DIR = Path(__file__).parent.parent / "testdata" / "media"
_MEDIA_FILES = ("jpeg_baseline.jpg", "png_pillow.png", "wav_pcm16.wav", "pdf_minimal.pdf")
_texts = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12
).filter(lambda s: s.strip() != "")


@st.composite
def _built_question(draw: st.DrawFn) -> Any:
    import decisions_input as di

    kind = draw(st.sampled_from(["noul", "choice", "score"]))
    text = draw(_texts)
    if kind == "noul":
        return di.noul(text)
    if kind == "choice":
        ids = draw(
            st.lists(
                st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True),
                min_size=2,
                max_size=5,
                unique=True,
            )
        )
        return di.choice(text, {i: draw(st.text(max_size=6)) for i in ids})
    return di.score(text, draw(st.lists(_texts, min_size=2, max_size=4)))


built_questions = _built_question()


@st.composite
def rule_problems(draw: st.DrawFn) -> Any:
    """A ``Problem`` with any path of names and indexes, any known code and any message."""
    from decisions_input import RULES, Problem, Severity

    path = draw(st.lists(st.one_of(st.text(max_size=8), st.integers(0, 300)), max_size=5))
    code = draw(st.sampled_from(sorted(RULES)))
    return Problem(tuple(path), code, draw(st.text(max_size=40)), draw(st.sampled_from(Severity)))


@st.composite
def built_blocks(draw: st.DrawFn) -> Any:
    """A content block made with the builders: text, or a real media file given by path,
    as bytes or as a read-only view, or an https URL."""
    import decisions_input as di

    how = draw(st.sampled_from(["text", "path", "bytes", "view", "uri"]))
    if how == "text":
        return di.text(draw(_texts) + " ")
    if how == "uri":
        mime = draw(st.sampled_from(["image/png", "audio/wav", "video/mp4", "application/pdf"]))
        name = draw(st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True))
        return di.media(uri=f"https://example.com/{name}", mime_type=mime)
    path = _MEDIA_DIR / draw(st.sampled_from(_MEDIA_FILES))
    if how == "path":
        return di.media(path)
    data = path.read_bytes()
    return di.media(data if how == "bytes" else memoryview(data))


@st.composite
def built_requests(draw: st.DrawFn) -> Any:
    """A ``Request`` for either target, made with the library's builders."""
    import decisions_input as di

    questions = draw(
        st.dictionaries(
            st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True),
            _built_question(),
            min_size=1,
            max_size=3,
        )
    )
    if draw(st.booleans()):
        state = draw(json_values)
        return di.Request(target="parallel", state=state, questions=questions)
    parts = draw(st.lists(built_blocks(), min_size=1, max_size=4))
    try:
        return di.Request(model="gemini-decision-1", input=parts, questions=questions)
    except di.InvalidInput:
        reject()


# --- near-valid request bodies (schema export) ---------------------------------------------
# The example requests of testdata/requests with one to three edits: a member set to a
# value near a rule's edge, removed, or added; a criteria, level or question map grown to a
# count at a limit. Most of them break one rule, so a schema and the validator both get to
# refuse something.

_REQUESTS_DIR = Path(__file__).parent.parent / "testdata" / "requests"
_EDGE_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "\u3000",
        "\x1c",
        "a\n",
        " a",
        "a ",
        "a\tb",
        "a\u200bb",
        "a b",
        "\U000e0001x",
        "x" * 64,
        "x" * 65,
        "x" * 128,
        "x" * 129,
        "gemini-decision-1",
        "models/gemini-decision-1",
        "models/",
        "fast",
        "text",
        "image",
        "audio/mp3",
        "image/png",
        "application/octet-stream",
        "low",
        "ultra_high",
        "AAAA",
        "AB==",
        "AA==",
        "AA=",
        "AAA=",
        "AAB=",
        "iVBORw0KGgo=",
        "https://example.com/a.png",
        "HTTPS://example.com/a.png",
        "http://example.com/a.png",
        "https://u:p@example.com/a.png",
        "https://example.com/a b.png",
        "https:///a.png",
        "gs://bucket/a.png",
        "https://www.youtube.com/watch?v=x",
        "https://localhost/a.png",
    ]
)
_edge_values = st.one_of(
    _EDGE_STRINGS, json_values, st.builds(list), st.builds(dict), st.sampled_from([None, 0, 1.5])
)


def _containers(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if isinstance(node, (dict, list)) else []
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, value in items:
        found += _containers(value, (*path, key))
    return found


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


@st.composite
def near_valid_requests(draw: st.DrawFn, target: str) -> Any:
    """An example request of ``target`` with a few edits near the rules' edges."""
    names = sorted(p.name for p in _REQUESTS_DIR.glob(f"{target}-*.json"))
    body = json.loads((_REQUESTS_DIR / draw(st.sampled_from(names))).read_text())
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_containers(body)))
        holder = _at(body, path)
        action = draw(st.sampled_from(["set", "set", "delete", "add", "grow"]))
        keys = list(holder) if isinstance(holder, dict) else list(range(len(holder)))
        if action == "add" or not keys:
            if isinstance(holder, dict):
                holder[draw(_EDGE_STRINGS)] = draw(_edge_values)
            else:
                holder.append(draw(_edge_values))
        elif action == "delete":
            del holder[draw(st.sampled_from(keys))]
        elif action == "grow":
            count = draw(st.sampled_from([1, 2, 255, 256]))
            key = draw(st.sampled_from(keys))
            holder[key] = (
                {f"o{i}": "" for i in range(count)}
                if draw(st.booleans())
                else [f"level {i}" for i in range(count)]
            )
        else:
            holder[draw(st.sampled_from(keys))] = draw(_edge_values)
    return body


# --- text for the token measure ------------------------------------------------------------
# Runs drawn from every class of character the measure tells apart: ASCII letters of both
# cases, digits, spaces, punctuation and markup, CJK and kana, Hangul, other scripts, and
# characters that fall back to their bytes; plus arbitrary text, lone surrogates included.

_token_runs = st.sampled_from(
    [
        "word",
        "Word",
        "camelCase",
        "x",
        " ",
        "  ",
        "0",
        "2024",
        ",",
        ". ",
        "\n\n",
        "\t",
        "<h1>",
        "</td>",
        "/",
        "東京都",
        "の",
        "。",
        "한국어",
        "привет",
        "é",
        "—",
        "\u00a0",
        "😀",
        "\ue000",
        "\U00020000",
        "\ud800",
        "٣",
    ]
)
token_texts = st.one_of(
    st.lists(_token_runs, max_size=40).map("".join),
    st.text(max_size=60),
    st.lists(st.one_of(_token_runs, st.text(max_size=3)), max_size=30).map("".join),
)


@st.composite
def budget_bodies(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A target and a body whose texts the budget rule sizes, bounds and measures: an input
    text, text blocks (one string object may stand in two blocks), or a Parallel state,
    each a measured text repeated up to hundreds of times, with a few questions."""
    texts = draw(st.lists(token_texts.map(lambda t: t or "x"), min_size=1, max_size=3))
    texts = [t * draw(st.integers(1, 400)) for t in texts]
    questions = {
        f"q{i}": {"type": "score", "instructions": text, "criteria": ["low", text[:9] + "!"]}
        for i, text in enumerate(draw(st.lists(token_texts.map(lambda t: t or "x"), max_size=3)))
    } or {"q": {"type": "noul", "instructions": "Is it?"}}
    form = draw(st.sampled_from(["input", "blocks", "state"]))
    if form == "state":
        return "parallel", {"state": {"notes": texts, "n": len(texts)}, "questions": questions}
    if form == "input":
        return "gemini", {"model": "gemini-decision-1", "input": texts[0], "questions": questions}
    blocks = [{"type": "text", "text": t} for t in texts + texts[:1]]  # the first one twice
    return "gemini", {"model": "gemini-decision-1", "input": blocks, "questions": questions}


# --- the command line's reports ------------------------------------------------------------
# Any string a report may carry: file names with bytes that are not UTF-8 (surrogateescape),
# lone surrogates in member names, control characters, line breaks, the characters the
# formats escape themselves (% , : in GitHub properties, quotes and backslashes in JSON).


def _no_split_pair(text: str) -> bool:
    """False for a high surrogate followed by a low one: two code points that no JSON text can
    hold apart (every reader joins their escapes into one character). Files never give them:
    file names decode with surrogateescape (low surrogates only) and JSON text pairs them."""
    return not any(
        "\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff"
        for a, b in zip(text, text[1:], strict=False)
    )


any_text = st.text(
    alphabet=st.one_of(
        st.characters(),  # every code point, lone surrogates included
        st.sampled_from(["\n", "\r", "\x1b", "%", ",", ":", '"', "\\", "\udcff", "\ud800"]),
    ),
    max_size=12,
).filter(_no_split_pair)
_severities = st.sampled_from(["error", "warning"])
_codes = st.sampled_from(["schema.unknown_member", "json.syntax", "internal.error", "x.y"])
_path_steps = st.one_of(any_text, st.integers(0, 5))


def problems(
    codes: st.SearchStrategy[str] = _codes,
) -> st.SearchStrategy[Any]:
    """Problems with any path, message and severity."""
    from decisions_input.errors import Problem, Severity

    return st.builds(
        lambda path, code, message, severity: Problem(
            tuple(path), code, message, Severity(severity)
        ),
        st.lists(_path_steps, max_size=3),
        codes,
        any_text,
        _severities,
    )


def reports() -> st.SearchStrategy[Any]:
    """Reports of findings in files with any names, with files not checked or capped."""
    from decisions_input.cli.formats import Finding, NotChecked, NotShown, Report

    findings = st.lists(
        st.builds(Finding, any_text, st.integers(1, 9), st.integers(1, 9), problems()),
        max_size=6,
    )
    not_shown = st.lists(
        st.builds(NotShown, any_text, st.integers(0, 10**6), st.integers(0, 10**6)), max_size=2
    )
    not_checked = st.lists(st.builds(NotChecked, any_text, any_text), max_size=2)
    return st.builds(
        lambda f, s, c, files, cap: Report.of(f, files=files, not_shown=s, not_checked=c, cap=cap),
        findings,
        not_shown,
        not_checked,
        st.integers(0, 20),
        st.integers(0, 1000),
    )


# Request bodies and specs shaped enough to reach past the first checks: the members of
# both targets (so the target read from the shape varies), questions of every type with
# the spec's names and the API's, input items as text, media by path or URL, or API blocks.

_member_values = st.one_of(json_values, any_text)
_question = st.fixed_dictionaries(
    {"type": st.sampled_from(["noul", "choice", "score", "other"])},
    optional={
        "instructions": st.one_of(st.text(max_size=8), _member_values),
        "criteria": st.one_of(
            st.lists(st.text(max_size=4), max_size=4),
            st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=4),
            _member_values,
        ),
        "options": st.one_of(st.lists(st.text(max_size=4), max_size=4), _member_values),
        "levels": st.lists(st.text(max_size=4), max_size=4),
        "true_description": _member_values,
    },
)
_questions = st.dictionaries(st.text(max_size=6), _question, max_size=3)
request_like_bodies = st.fixed_dictionaries(
    {},
    optional={
        "model": st.one_of(st.just("gemini-decision-1"), _member_values),
        "input": st.one_of(st.text(max_size=10), st.lists(_member_values, max_size=3)),
        "state": _member_values,
        "mode": st.one_of(st.just("fast"), _member_values),
        "questions": st.one_of(_questions, _member_values),
        "extra": _member_values,
    },
)
_input_items = st.one_of(
    st.text(max_size=8),
    st.fixed_dictionaries({"text": _member_values}),
    st.fixed_dictionaries(
        {
            st.sampled_from(["image", "audio", "document", "media"]): st.sampled_from(
                ["missing.jpg", "https://example.com/a.png", "gs://b/a", "", "photo.jpg", "."]
            )
        },
        optional={"mime_type": st.sampled_from(["image/png", "audio/wav", "x"])},
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "image", "video", "picture"])},
        optional={"uri": any_text, "data": st.text(max_size=4), "text": any_text},
    ),
)
spec_like = st.fixed_dictionaries(
    {},
    optional={
        "target": st.one_of(st.sampled_from(["gemini", "parallel"]), _member_values),
        "model": st.just("gemini-decision-1"),
        "input": st.one_of(st.lists(_input_items, max_size=4), _member_values),
        "state": _member_values,
        "questions": st.one_of(_questions, _member_values),
    },
)


# Clean and hazardous texts together, compact and indented, ASCII-escaped or not: what the
# fast path and the strict reader must agree on.
json_texts_any = st.one_of(
    json_texts_with_hazards,
    json_like_text,
    st.builds(json.dumps, json_values),
    st.builds(lambda v: json.dumps(v, indent=1, ensure_ascii=False), json_values),
)


# --- request bodies (validate) -------------------------------------------------------------
# Bodies shaped like requests, every member plausible or any JSON value, with characters that
# stress the rules; questions of the right shape with tricky content, so that the fast path
# of the question checks is taken often and each of its tests decides.

# Characters that stress option-ID rules: spaces of several kinds, controls, format
# characters, case pairs, combining marks, astral characters, private use.
TRICKY = st.sampled_from(
    list("aAbB _-.")
    + [
        "\t",
        "\n",
        "\x7f",
        "\x85",
        "\xa0",
        "\u2003",
        "\u200b",
        "\ufeff",
        "\u0301",
        "\u00e9",
        "E",
        "\u00c9",
        "\U0001f600",
        "\ue000",
        "\u3000",
        "\x00",
        "\ud800",
    ]
)
tricky_text = st.text(TRICKY, max_size=6)
# ASCII only, so the ASCII shortcuts meet every case too.
ascii_tricky_text = st.text(st.sampled_from(list("aAbBzZ _-.\t\x00\x7f")), max_size=6)
# Option IDs where one differs from another by case (or by composition) only.
look_alike_options = st.lists(
    st.text("aAbBéÉ_", min_size=1, max_size=4), min_size=1, max_size=4, unique=True
).map(lambda words: dict.fromkeys([*words, words[0].swapcase()], ""))

any_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
any_json = st.recursive(
    any_json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)

question_values = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["noul", "choice", "score", "bool"]),
        "instructions": st.one_of(
            st.text(TRICKY, max_size=4), st.just({"type": "text", "text": "x"}), any_json
        ),
    },
    optional={
        "criteria": st.one_of(
            st.dictionaries(tricky_text, st.one_of(st.text(max_size=3), st.integers()), max_size=5),
            st.lists(st.one_of(tricky_text, st.integers()), max_size=5),
            any_json,
        ),
        "extra": any_json,
    },
)

# Questions of the right shape with tricky content, so the fast path is taken often and
# every one of its tests decides.
tricky_levels = st.lists(st.one_of(tricky_text, st.just("")), min_size=1, max_size=14)
nearly_clean_questions = st.one_of(
    st.fixed_dictionaries({"type": st.just("noul"), "instructions": tricky_text}),
    st.fixed_dictionaries(
        {
            "type": st.just("noul"),
            "instructions": tricky_text,
            "criteria": st.dictionaries(
                st.sampled_from(["true_description", "false_description", "x"]), tricky_text
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("choice"),
            "instructions": tricky_text,
            "criteria": st.dictionaries(tricky_text, tricky_text, max_size=5),
        }
    ),
    st.fixed_dictionaries(
        {"type": st.just("score"), "instructions": tricky_text, "criteria": tricky_levels}
    ),
)

# Input blocks of every type, known or not (any JSON value), with media members mixed in.
input_blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "video", "document"]) | any_json},
    optional={
        "text": tricky_text | any_json,
        "mime_type": st.sampled_from(["image/png", "audio/wav", "application/pdf"]) | any_json,
        "data": st.sampled_from(["", "QUJD", "iVBORw0KGgo=", "UklGRg=="]) | any_json,
        "uri": st.sampled_from(["https://example.com/a.png", "gs://b/a.wav"]) | any_json,
        "resolution": any_json,
    },
)

request_like = st.fixed_dictionaries(
    {},
    optional={
        "model": st.one_of(st.just("gemini-decision-1"), any_json),
        "input": st.one_of(
            st.text(TRICKY, max_size=5),
            st.lists(
                st.one_of(
                    st.fixed_dictionaries({"type": st.just("text"), "text": tricky_text}),
                    input_blocks,
                    any_json,
                ),
                max_size=3,
            ),
            input_blocks,
            any_json,
        ),
        "questions": st.one_of(
            st.dictionaries(tricky_text, question_values | nearly_clean_questions, max_size=4),
            any_json,
        ),
        "state": any_json,
        "mode": any_json,
        "include_excerpts": any_json,
        "stream": any_json,
    },
)


# --- estimates against reported usage -----------------------------------------------------
# Rows of an estimate (modality, low, high, measured) and a response's input breakdown in
# the modalities the API defines, each count from nothing to more than any bound.

_estimate_modalities = st.sampled_from(["text", "image", "audio", "video", "document"])


@st.composite
def _estimate_row(draw: st.DrawFn) -> tuple[str, int, int, bool]:
    low = draw(st.integers(0, 5_000))
    return (draw(_estimate_modalities), low, low + draw(st.integers(0, 5_000)), draw(st.booleans()))


estimate_rows = st.lists(_estimate_row(), max_size=6)
reported_breakdowns = st.lists(st.tuples(_estimate_modalities, st.integers(0, 20_000)), max_size=6)
_modality_names = st.one_of(
    _estimate_modalities, st.sampled_from(["TEXT", "", "MODALITY_UNSPECIFIED"]), st.none()
)
_token_counts = st.one_of(st.integers(0, 20_000), _r_numbers, st.none(), st.just("12"))
_modality_entries = st.fixed_dictionaries(
    {}, optional={"modality": _modality_names, "tokens": _token_counts}
)
_counts = st.integers(0, 2_000)
# The usage member of a response. Mostly what an API sends, with counts anywhere around the
# bounds and a breakdown in the modalities it defines; else any figure, any modality, any
# value in Gemini's and Parallel's members.
usage_members = st.one_of(
    st.fixed_dictionaries(
        {"total_input_tokens": _counts},
        optional={
            "input_tokens_by_modality": st.lists(
                st.fixed_dictionaries({"modality": _estimate_modalities, "tokens": _counts}),
                max_size=4,
            ),
            "total_tokens": _counts,
        },
    ),
    st.fixed_dictionaries({"input_tokens": _counts, "output_tokens": st.just(0)}),
    st.fixed_dictionaries(
        {},
        optional={
            "total_input_tokens": _token_counts,
            "input_tokens_by_modality": st.one_of(
                st.lists(_modality_entries, max_size=5), response_json
            ),
            "total_output_tokens": _token_counts,
            "total_tokens": _token_counts,
        },
    ),
    st.fixed_dictionaries({"input_tokens": _token_counts, "output_tokens": _token_counts}),
    response_json,
)


# --- lints -------------------------------------------------------------------------------
# Text around a join of input blocks: words and sentence ends in scripts with and without
# word spaces, numbers, names written without spaces (URLs, paths, addresses), white
# space and punctuation.
_JOIN_PIECES = st.sampled_from(
    [
        "late",
        "Customer",
        "customer",
        "late.",
        "Late!",
        "why?",
        "wait...",
        "\u2026",
        "3.",
        "5",
        "v2.1.",
        "e.g.",
        "https://example.com/a.",
        "/srv/x.",
        "ann@example.",
        '"stop."',
        "\u201dSo",
        "(See",
        "'Then",
        "\u65e5\u672c",
        "\u8a9e\u3002",
        "\u0e04\u0e23\u0e31\u0e1a",
        "\uff76\uff85",
        "\u05e9\u05dc\u05d5\u05dd",
        "\u03a9mega",
        "\u00e9",
        "e\u0301",
        " ",
        "\n",
        "\u00a0",
        "\u3000",
        ".",
        "!",
        ")",
    ]
)
join_texts = st.lists(_JOIN_PIECES, min_size=1, max_size=3).map("".join)
# Text of scripts written without spaces between words: Chinese, Japanese (with half-width
# katakana), Thai, Lao, with their own punctuation.
unspaced_texts = st.text(
    st.sampled_from(
        list("\u65e5\u672c\u8a9e\u3002\u3001\u304b\u30ab\u0e04\u0e23\u0e31\u0e1a\uff76\uff85\u0e81")
    ),
    min_size=2,
    max_size=8,
)

# Integers on both sides of 2**53 and of the exactly held powers past it, either sign, and
# anywhere up to a double's range.
_EDGE_INTEGERS = [2**53 - 1, 2**53, 2**53 + 1, 2**53 + 2, 2**60, 2**60 + 1, 2**64 + 1, 10**300]
state_integers = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(2**53 - 3, 2**53 + 3),
    st.sampled_from(_EDGE_INTEGERS).flatmap(lambda n: st.sampled_from([n, -n])),
)
state_values = st.recursive(
    state_integers
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.none()
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)

# White space of every kind Python's str.isspace knows (U+001C..1F among them), with
# characters that are not white space though they show nothing (a zero-width space) or
# little (a letter), so both sides of a blank lint are drawn.
blank_texts = st.text(
    st.sampled_from(
        [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2003", "\u2028"]
        + ["\u3000", "\u200b", "a"]
    ),
    max_size=4,
)

# Requests built to meet every lint at once: joined input text, a state with large
# integers, blank or nearly blank instructions and levels, annotations.
_IMAGE = {"type": "image", "uri": "https://example.com/a.png", "mime_type": "image/png"}
joined_text_blocks = st.lists(
    st.builds(lambda text: {"type": "text", "text": text}, join_texts) | st.just(_IMAGE),
    min_size=1,
    max_size=4,
)
_ANNOTATION = {"type": "url_citation", "url": "https://example.com", "start_index": 0}


def _instructions(texts: list[str], form: str, annotations: list[Any] | None) -> Any:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text} for text in texts]
    if annotations is not None:
        blocks = [block | {"annotations": annotations} for block in blocks]
    if form == "string":
        return "".join(texts)
    return blocks[0] if form == "block" else blocks


@st.composite
def lint_requests(draw: st.DrawFn, target: str) -> Any:
    """A request of ``target`` built to meet the lints: joined input text, a state with
    large integers, blank or nearly blank instructions and levels, annotations."""
    questions: dict[str, Any] = {}
    for index in range(draw(st.integers(1, 3))):
        texts = draw(st.lists(blank_texts | join_texts, min_size=1, max_size=3))
        form = draw(st.sampled_from(["string", "block", "blocks"]))
        notes = draw(st.none() | st.lists(st.just(_ANNOTATION), max_size=2))
        question: dict[str, Any] = {
            "type": "noul",
            "instructions": _instructions(texts, form, notes),
        }
        if draw(st.booleans()):
            levels = draw(st.lists(blank_texts | join_texts, min_size=2, max_size=12))
            question |= {"type": "score", "criteria": levels}
        questions[f"q{index}"] = question
    if target == "parallel":
        return {"state": draw(state_values), "questions": questions}
    blocks = draw(joined_text_blocks)
    return {"model": "gemini-decision-1", "input": blocks, "questions": questions}
