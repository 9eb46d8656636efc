"""Hypothesis strategies for request bodies of both targets: valid first, then broken.

The valid bodies reach every part of a request (text and media blocks, inline data from the
real fixtures and https URIs, every question type and instruction form, annotations), so
that a mutation applied to any place of them is checked by the deepest rules, not stopped
at the first missing member.
"""

from __future__ import annotations

import base64
import string
from functools import cache
from typing import Any

from hypothesis import strategies as st

import decisions_input as di
from fuzz.corpus import media_files
from fuzz.tree import mutated
from fuzz.values import json_values

__all__ = [
    "TARGETS",
    "gemini_bodies",
    "inline_media",
    "parallel_bodies",
    "question_keys",
    "questions",
    "request_bodies",
    "valid_bodies",
]

TARGETS = ("gemini", "parallel")

# Inline fixtures are kept small so that a body stays cheap to check many times over.
_MAX_INLINE_FIXTURE_BYTES = 16_384

_KEY_CHARS = string.ascii_letters + string.digits + "_-"

question_keys = st.text(_KEY_CHARS, min_size=1, max_size=12)

# Option IDs: letters, digits and a few marks, with inner ASCII spaces only.
_option_ids = st.builds(
    lambda head, middle, tail: (head + middle + tail).rstrip(" "),
    st.text(st.characters(categories=("L", "N")), min_size=1, max_size=3),
    st.text(st.characters(categories=("L", "N"), include_characters=" _-."), max_size=8),
    st.text(st.characters(categories=("L", "N")), max_size=2),
)

_ANNOTATIONS: tuple[dict[str, Any], ...] = (
    {"type": "url_citation", "url": "https://example.com/a", "title": "A", "start_index": 0},
    {"type": "file_citation", "file_name": "a.pdf", "page_number": 1, "end_index": 3},
    {"type": "word_info", "text": "hi", "start_offset": "0s", "end_offset": "1s"},
    {"type": "speech_metadata", "speaker": "A", "style": "calm"},
    {
        "type": "place_citation",
        "name": "X",
        "review_snippets": [{"title": "t", "url": "https://example.com/r", "review_id": "1"}],
    },
)


def _text_block(annotations: bool) -> st.SearchStrategy[dict[str, Any]]:
    base = {"type": st.just("text"), "text": st.text(min_size=1, max_size=30)}
    if not annotations:
        return st.fixed_dictionaries(base)
    optional = {"annotations": st.lists(st.sampled_from(_ANNOTATIONS), max_size=3)}
    return st.fixed_dictionaries(base, optional=optional)


def _instructions(limits: di.Limits) -> st.SearchStrategy[Any]:
    forms: list[st.SearchStrategy[Any]] = [st.text(min_size=1, max_size=40)]
    if "block" in limits.INSTRUCTION_FORMS:
        forms.append(_text_block(annotations=True))
    if "blocks" in limits.INSTRUCTION_FORMS:
        forms.append(st.lists(_text_block(annotations=True), min_size=1, max_size=3))
    return st.one_of(forms)


def _question(limits: di.Limits) -> st.SearchStrategy[dict[str, Any]]:
    instructions = _instructions(limits)
    noul = st.fixed_dictionaries(
        {"type": st.just("noul"), "instructions": instructions},
        optional={
            "criteria": st.fixed_dictionaries(
                {},
                optional={"true_description": st.text(max_size=20), "false_description": st.text()},
            )
        },
    )
    choice = st.fixed_dictionaries(
        {
            "type": st.just("choice"),
            "instructions": instructions,
            "criteria": st.dictionaries(_option_ids, st.text(max_size=20), min_size=2, max_size=6),
        }
    )
    score = st.fixed_dictionaries(
        {
            "type": st.just("score"),
            "instructions": instructions,
            "criteria": st.lists(st.text(min_size=1, max_size=20), min_size=2, max_size=6),
        }
    )
    return st.one_of(noul, choice, score)


def questions(limits: di.Limits) -> st.SearchStrategy[dict[str, Any]]:
    """One to five valid questions of every type, keyed by valid keys."""
    return st.dictionaries(question_keys, _question(limits), min_size=1, max_size=5)


@cache
def _inline_fixtures() -> tuple[tuple[str, str, str], ...]:
    """(kind, MIME type, base64) of every small fixture the library accepts as it is."""
    found = []
    for path in media_files():
        data = path.read_bytes()
        if len(data) > _MAX_INLINE_FIXTURE_BYTES:
            continue
        detected = di.sniff(data)
        if detected.code is None and detected.kind is not None and detected.mime is not None:
            found.append((detected.kind, detected.mime, base64.b64encode(data).decode("ascii")))
    return tuple(found)


def _media_block(kind: str, mime: str, source: dict[str, str]) -> st.SearchStrategy[Any]:
    block: dict[str, st.SearchStrategy[Any]] = {
        "type": st.just(kind),
        "mime_type": st.just(mime),
        **{name: st.just(value) for name, value in source.items()},
    }
    optional = {}
    resolutions = di.GEMINI.RESOLUTIONS.get(kind, ())
    if resolutions:
        optional["resolution"] = st.sampled_from(resolutions)
    return st.fixed_dictionaries(block, optional=optional)


def inline_media() -> st.SearchStrategy[Any]:
    """An inline media block holding a real fixture, under its sniffed MIME type."""
    return st.deferred(lambda: st.sampled_from(_inline_fixtures())).flatmap(
        lambda found: _media_block(found[0], found[1], {"data": found[2]})
    )


def _uri_media() -> st.SearchStrategy[Any]:
    kinds = [(kind, mime) for kind, types in di.GEMINI.MIME_TYPES.items() for mime in types]
    return st.tuples(st.sampled_from(kinds), st.integers(0, 99)).flatmap(
        lambda pick: _media_block(
            pick[0][0], pick[0][1], {"uri": f"https://example.com/media/{pick[1]}"}
        )
    )


def _blank(item: Any) -> bool:
    """Whether an input is only white space (the library's ``input.empty``): a string, a
    text block, or an array of nothing but such text blocks."""
    if isinstance(item, str):
        return not item.strip()
    if isinstance(item, dict):
        return item.get("type") == "text" and not str(item.get("text", "")).strip()
    return all(_blank(block) for block in item)


def _input() -> st.SearchStrategy[Any]:
    block = st.one_of(_text_block(annotations=False), inline_media(), _uri_media())
    return st.one_of(
        st.text(min_size=1, max_size=40), block, st.lists(block, min_size=1, max_size=4)
    ).filter(lambda item: not _blank(item))


def gemini_bodies() -> st.SearchStrategy[dict[str, Any]]:
    """Valid Gemini Decisions request bodies."""
    return st.fixed_dictionaries(
        {
            "model": st.sampled_from(sorted(di.GEMINI.MODELS)),
            "input": _input(),
            "questions": questions(di.GEMINI),
        }
    )


def parallel_bodies() -> st.SearchStrategy[dict[str, Any]]:
    """Valid Parallel Decisions request bodies."""
    optional: dict[str, st.SearchStrategy[Any]] = {"include_excerpts": st.booleans()}
    if di.PARALLEL.MODES:
        optional["mode"] = st.sampled_from(di.PARALLEL.MODES)
    return st.fixed_dictionaries(
        {"state": json_values, "questions": questions(di.PARALLEL)}, optional=optional
    )


def valid_bodies(target: str) -> st.SearchStrategy[dict[str, Any]]:
    """Valid bodies of one target."""
    return gemini_bodies() if target == "gemini" else parallel_bodies()


def request_bodies() -> st.SearchStrategy[tuple[str, Any]]:
    """(target, body): a valid body of either target, broken by up to three mutations.

    The body is checked against its own target mostly, and against the other one sometimes,
    so that a body sent to the wrong API is covered too.
    """
    pairs = [(t, t) for t in TARGETS] * 3 + [(a, b) for a in TARGETS for b in TARGETS if a != b]
    return st.sampled_from(pairs).flatmap(
        lambda pair: st.tuples(st.just(pair[0]), mutated(valid_bodies(pair[1])))
    )
