"""Hostile JSON values: wrong types, extremes around the limits, odd Unicode, deep nesting.

Sizes come from the public limits tables (``decisions_input.GEMINI`` and ``PARALLEL``), so
the values sit just under, at and just over each bound the library enforces, and follow
the tables when they change.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import decisions_input as di

__all__ = [
    "ODD_STRINGS",
    "extreme_counts",
    "extreme_numbers",
    "extreme_strings",
    "hostile_values",
    "json_values",
    "member_names",
    "nest",
    "nesting_depths",
    "odd_strings",
    "type_values",
    "wrong_types",
]

# Strings that have tripped parsers, normalisers and encoders: controls, invisible and
# bidirectional characters, lone surrogates (no UTF-8 form), astral characters, case pairs
# that fold oddly, JSON-looking text, and URIs of every refused kind.
ODD_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "\t",
    "\n",
    " a",
    "a ",
    "a\u00a0b",
    "\x00",
    "\x1f",
    "\x7f",
    "\x85",
    "\xa0",
    "\u200b",
    "\u200e",
    "\u202e",
    "\u2028",
    "\u3000",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\ud800",
    "\udfff",
    "a\udc00b",
    "\U0001f600",
    "\U0010ffff",
    "e\u0301",
    "\u00e9",
    "\u0130",
    "\u00df",
    "\ufb03",
    "\U0001d518",
    "\x00decisions-input-media-0\x00",
    "null",
    "true",
    "-0",
    "1e400",
    "NaN",
    "{}",
    "[]",
    '"',
    "\\",
    "\\u0000",
    "https://",
    "https://example.com/a.png",
    "https://user:pw@example.com/a.png",
    "HTTPS://EXAMPLE.COM/A.PNG",
    "https://[::1]/a.png",
    "https://localhost/a.png",
    "https://10.0.0.1/a.png",
    "https://printer.local/a.png",
    "https://www.youtube.com/watch?v=x",
    "https://generativelanguage.googleapis.com/v1beta/files/abc",
    "https://example.com/\ud800",
    "http://example.com/a.png",
    "gs://bucket/a.png",
    "files/abc",
    "file:///etc/passwd",
    "data:image/png;base64,AA==",
    "AA==",
    "AAA",
    "A===",
    "QUJD\nREVG",
    "text",
    "image",
    "audio",
    "video",
    "document",
    "noul",
    "choice",
    "score",
    "refusal",
    "fast",
    "error",
    "none_of_the_above",
    "image/png",
    "audio/l16;rate=16000",
    "application/octet-stream",
    "decisions_" + "0" * 32,
)

# Member names worth adding anywhere: the names of other objects, near misses, odd text.
_NAMES: tuple[str, ...] = (
    "type",
    "text",
    "data",
    "uri",
    "mime_type",
    "resolution",
    "instructions",
    "criteria",
    "annotations",
    "questions",
    "input",
    "model",
    "state",
    "mode",
    "include_excerpts",
    "answers",
    "probabilities",
    "legend",
    "confidence",
    "usage",
    "error",
    "Type",
    "type ",
    "mimeType",
    "__proto__",
    "constructor",
)


def _limit_sizes(*names: str) -> list[int]:
    """Sizes just under, at and just over the named limits of both targets."""
    sizes: set[int] = set()
    for table in (di.GEMINI, di.PARALLEL):
        for name in names:
            bound = getattr(table, name, None)
            if isinstance(bound, int) and not isinstance(bound, bool):
                sizes.update(n for n in (bound - 1, bound, bound + 1) if n >= 0)
    return sorted(sizes)


def odd_strings() -> st.SearchStrategy[str]:
    """Odd Unicode and refused URIs, alone or mixed with generated text."""
    return st.one_of(
        st.sampled_from(ODD_STRINGS),
        st.lists(st.sampled_from(ODD_STRINGS) | st.text(max_size=3), max_size=4).map("".join),
        st.text(st.characters(exclude_categories=()), max_size=8),
    )


def extreme_strings() -> st.SearchStrategy[str]:
    """Strings whose length sits at a limit (in code points or in UTF-8 bytes), or is huge."""
    chars = _limit_sizes("MAX_OPTION_ID_CHARS", "MAX_QUESTION_KEY_CHARS", "MIN_OPTION_ID_CHARS")
    byte_sizes = _limit_sizes("MAX_OPTION_ID_BYTES")
    return st.one_of(
        st.builds(lambda n, c: c * n, st.sampled_from(chars), st.sampled_from(["a", "\u00e9"])),
        st.builds(
            lambda n, c: c * (n // len(c.encode())),
            st.sampled_from(byte_sizes),
            st.sampled_from(["\u00e9", "\u20ac", "\U0001f600"]),
        ),
        st.builds(lambda n: "x" * n, st.sampled_from([1_000, 70_000, 300_000])),
    )


def extreme_numbers() -> st.SearchStrategy[Any]:
    """Integers and floats at the edges of common ranges, and beyond a double."""
    return st.sampled_from(
        [
            0,
            -1,
            1,
            2,
            255,
            256,
            2**31 - 1,
            2**31,
            2**53,
            2**53 + 1,
            2**63,
            2**64,
            -(2**63) - 1,
            10**308,
            10**309,
            -(10**400),
            1.7976931348623157e308,
            -1.7976931348623157e308,
            5e-324,
            -0.0,
            0.5,
            1e-9,
            0.01,
            0.99,
            1.0,
            1.0000001,
            float("nan"),
            float("inf"),
            float("-inf"),
        ]
    )


def extreme_counts() -> st.SearchStrategy[int]:
    """Collection sizes at the question, option, level and block limits, and beyond."""
    sizes = _limit_sizes(
        "MIN_QUESTIONS", "MAX_QUESTIONS", "MIN_OPTIONS", "MAX_OPTIONS", "MIN_LEVELS", "MAX_LEVELS"
    )
    return st.sampled_from([0, 1, *sizes, 3_000])


def nesting_depths() -> st.SearchStrategy[int]:
    """Depths around the library's nesting bound, and far past it."""
    return st.sampled_from([2, *_limit_sizes("MAX_JSON_DEPTH"), 400])


def nest(value: Any, depth: int, kind: str) -> Any:
    """Wrap ``value`` in ``depth`` arrays or objects, without recursion."""
    for _ in range(depth):
        value = [value] if kind == "array" else {"a": value}
    return value


json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def wrong_types() -> st.SearchStrategy[Any]:
    """One value of every JSON type, including the containers a string member may get."""
    return st.sampled_from(
        [
            None,
            True,
            False,
            0,
            -1,
            1.5,
            "",
            "x",
            [],
            {},
            [None],
            ["text"],
            {"a": 1},
            {"type": "text"},
        ]
    )


def type_values() -> st.SearchStrategy[Any]:
    """Values for a ``type`` member: every known type name, near misses, and every JSON type."""
    names = ["text", "image", "audio", "video", "document", "noul", "choice", "score"]
    names += ["refusal", "error", "Text", "TEXT", "text ", "bool", "file_citation", "url_citation"]
    return st.one_of(st.sampled_from(names), wrong_types())


def member_names() -> st.SearchStrategy[str]:
    """Names for members added where they do not belong."""
    return st.one_of(st.sampled_from(_NAMES), st.sampled_from(ODD_STRINGS), st.text(max_size=4))


def hostile_values() -> st.SearchStrategy[Any]:
    """Any value a hostile or careless client might send in place of another."""
    return st.one_of(
        wrong_types(),
        odd_strings(),
        extreme_numbers(),
        extreme_strings(),
        json_values,
        st.builds(nest, wrong_types(), nesting_depths(), st.sampled_from(["array", "object"])),
    )
