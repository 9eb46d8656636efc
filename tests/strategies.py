"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import json
from typing import Any

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
                            "input_tokens",
                            "output_tokens",
                            "input_tokens_by_modality",
                        ]
                    ),
                    _r_maybe(_r_numbers),
                    max_size=3,
                )
            ),
            "prompt_feedback": _r_maybe(
                st.fixed_dictionaries({}, optional={"block_reason": _r_maybe(st.just("safety"))})
            ),
            "citations": _r_maybe(st.lists(_r_maybe(_r_citation), max_size=3)),
            "decision_id": _r_maybe(st.just("decisions_" + "0" * 32)),
            "extra": response_json,
        },
    ),
)
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
                        "criteria": _r_maybe(
                            st.dictionaries(_r_keys, st.text(max_size=2), max_size=3)
                            | st.lists(st.text(max_size=2), max_size=3)
                        ),
                    },
                ),
                max_size=4,
            )
        },
        optional={"include_excerpts": _r_maybe(st.booleans())},
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
