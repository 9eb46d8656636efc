"""Inline base64: the chunked validating decoder agrees with the rule that explains defects."""

from __future__ import annotations

import base64
import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input.media_checks import BASE64_CHUNK, is_canonical_base64
from decisions_input.sources import check_base64

# (id, text, canonical) at and around chunk edges, with chunks of 8 characters.
CHUNKED: list[tuple[str, str, bool]] = [
    ("empty", "", True),
    ("one-group", "QUJD", True),
    ("two-chunks", "QUJDQUJD" * 2, True),
    ("padding-at-the-end", "QUJDQUJD" + "QQ==", True),
    ("padding-ending-a-chunk", "QUJDQQ==" + "QUJD", False),
    ("padding-ending-the-text-at-a-chunk-edge", "QUJDQUJD" + "QUJDQQ==", True),
    ("padding-inside-a-chunk", "QQ==QUJD" + "QUJD", False),
    ("stray-padding-after-a-chunk", "QUJDQUJD" + "=", False),
    ("short-last-group", "QUJDQUJD" + "QUJ", False),
    ("bad-character-in-the-second-chunk", "QUJDQUJD" + "QU-D", False),
    ("line-break-at-a-chunk-edge", "QUJDQUJ\n" + "QUJD", False),
    ("non-ascii", "QUJDQUJD" + "QUJé", False),
    ("unused-bits-one-pad", "QUK=", False),
    ("unused-bits-two-pads", "QR==", False),
    ("zero-unused-bits", "QUI=", True),
]


@pytest.mark.parametrize(
    ("text", "canonical"), [c[1:] for c in CHUNKED], ids=[c[0] for c in CHUNKED]
)
def test_chunk_edges(text: str, canonical: bool) -> None:
    assert is_canonical_base64(text, chunk=8) is canonical
    assert is_canonical_base64(text) is canonical
    assert (check_base64(text, (), head_bytes=0)[0] == []) is canonical


@settings(max_examples=500, deadline=None)
@given(
    text=st.text(alphabet="QUJDRab+/=\n -_é", max_size=40)
    | st.binary(max_size=30).map(lambda b: base64.b64encode(b).decode()),
    chunk=st.sampled_from([4, 8, 12, BASE64_CHUNK]),
)
@example(text="DDDD=", chunk=4)
@example(text="QQ==QUJD", chunk=4)
def test_the_fast_check_agrees_with_the_explaining_one(text: str, chunk: int) -> None:
    explained = check_base64(text, (), head_bytes=0)[0]
    assert is_canonical_base64(text, chunk=chunk) is (explained == [])


def test_a_large_payload_is_checked_in_chunks() -> None:
    good = base64.b64encode(os.urandom(3 * BASE64_CHUNK + 7)).decode()
    assert is_canonical_base64(good)
    at = 2 * BASE64_CHUNK + 5
    bad = good[:at] + "\n" + good[at + 1 :]
    assert not is_canonical_base64(bad)
    body = {
        "model": "gemini-decision-1",
        "input": [{"type": "audio", "mime_type": "audio/wav", "data": bad}],
        "questions": {"q": {"type": "noul", "instructions": "Is someone speaking?"}},
    }
    problems = [p for p in di.iter_problems(body) if p.code == "data.base64"]
    assert [p.json_path for p in problems] == ["$.input[0].data"]
    assert f"offset {at}" in problems[0].message
