"""Strict JSON text: every hazard with its path, values as ``json.loads`` gives them."""

from __future__ import annotations

import contextlib
import json
import sys
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisions_input import jsontext
from decisions_input._unicode import has_surrogate
from decisions_input.errors import DecisionsInputError, InvalidInput, Path
from decisions_input.jsontext import Location, Parsed, _fast, locate, locate_all, locate_many, parse
from decisions_input.jsontext._decode import decode
from decisions_input.jsontext._reader import Reader, surrogate_offsets
from decisions_input.limits import GEMINI
from tests.strategies import (
    json_like_text,
    json_texts_any,
    json_texts_with_hazards,
    json_values,
)

DEPTH = GEMINI.MAX_JSON_DEPTH
MAX_INT = int(sys.float_info.max)


def nest(levels: int) -> str:
    return "[" * levels + "]" * levels


def zeros(levels: int) -> Path:
    return (0,) * levels


SYNTAX = "json.syntax"
UTF8 = "json.invalid_utf8"
BOM = "json.bom"
ENCODING = "json.encoding"
DUPLICATE = "json.duplicate_key"
NON_FINITE = "json.non_finite"
SURROGATE = "json.lone_surrogate"
RANGE = "json.number_range"
DEEP = "json.too_deep"
TRAILING = "json.trailing_data"

DOC = '{"a": [1]}'

# (id, input, expected (code, path) in document order)
CASES: list[tuple[str, str | bytes, list[tuple[str, Path]]]] = [
    # syntax: the path is where a value, a name or a separator was expected
    ("syntax-empty", "", [(SYNTAX, ())]),
    ("syntax-only-whitespace", " \n\t", [(SYNTAX, ())]),
    ("syntax-top-level-word", "nul", [(SYNTAX, ())]),
    ("syntax-single-quotes", "{'a': 1}", [(SYNTAX, ())]),
    ("syntax-unclosed-object", '{"a": 1', [(SYNTAX, ())]),
    ("syntax-missing-value-in-object", '{"a": {"b": }}', [(SYNTAX, ("a", "b"))]),
    ("syntax-trailing-comma-in-array", "[1, [2, ]]", [(SYNTAX, (1, 1))]),
    ("syntax-unquoted-member-name", "{a: 1}", [(SYNTAX, ())]),
    ("syntax-missing-colon", '{"a" 1}', [(SYNTAX, ("a",))]),
    ("syntax-missing-comma", "[1 2]", [(SYNTAX, ())]),
    ("syntax-unterminated-string", '["a", "b', [(SYNTAX, (1,))]),
    ("syntax-control-character-in-string", '{"a": "x\ty"}', [(SYNTAX, ("a",))]),
    ("syntax-bad-escape", '["\\x"]', [(SYNTAX, (0,))]),
    ("syntax-short-unicode-escape", '{"a": "\\u12"}', [(SYNTAX, ("a",))]),
    ("syntax-bad-escape-in-member-name", '{"a\\q": 1}', [(SYNTAX, ())]),
    ("syntax-leading-zero", "[01]", [(SYNTAX, ())]),
    ("syntax-plus-sign", "[+1]", [(SYNTAX, (0,))]),
    # invalid UTF-8: path () and the byte offset in the message; the rest is still read
    ("invalid-utf8-top-level", b'"\xff"', [(UTF8, ())]),
    ("invalid-utf8-in-member-value", b'{"a": "x\xfey"}', [(UTF8, ())]),
    ("invalid-utf8-in-member-name", b'{"\xc3": 1}', [(UTF8, ())]),
    ("invalid-utf8-in-array", b'[1, "\x80"]', [(UTF8, ())]),
    ("invalid-utf8-truncated-at-end", b'"\xe2\x82', [(UTF8, ()), (SYNTAX, ())]),
    ("invalid-utf8-truncated-4-byte", b'["\xf0\x9f\x98"]', [(UTF8, ())]),
    ("invalid-utf8-overlong-2-byte", b'"\xc0\xaf"', [(UTF8, ())] * 2),
    ("invalid-utf8-overlong-3-byte", b'"\xe0\x80\xaf"', [(UTF8, ())] * 3),
    ("invalid-utf8-encoded-surrogate", b'"\xed\xa0\x80"', [(UTF8, ())] * 3),
    ("invalid-utf8-beyond-unicode", b'"\xf4\x90\x80\x80"', [(UTF8, ())] * 4),
    # byte order mark and other encodings: reported, then read anyway
    ("bom-utf8-bytes", b"\xef\xbb\xbf" + DOC.encode(), [(BOM, ())]),
    ("bom-in-str", "\ufeff" + DOC, [(BOM, ())]),
    ("utf16le-with-bom", DOC.encode("utf-16"), [(ENCODING, ())]),
    ("utf16be-with-bom", b"\xfe\xff" + DOC.encode("utf-16-be"), [(ENCODING, ())]),
    ("utf16le-without-bom", DOC.encode("utf-16-le"), [(ENCODING, ())]),
    ("utf16be-without-bom", DOC.encode("utf-16-be"), [(ENCODING, ())]),
    ("utf32le-with-bom", DOC.encode("utf-32"), [(ENCODING, ())]),
    ("utf32be-with-bom", b"\x00\x00\xfe\xff" + DOC.encode("utf-32-be"), [(ENCODING, ())]),
    ("utf32le-without-bom", DOC.encode("utf-32-le"), [(ENCODING, ())]),
    ("utf32be-without-bom", DOC.encode("utf-32-be"), [(ENCODING, ())]),
    ("utf16le-cut-short", b"[\x001\x00]", [(ENCODING, ()), (SYNTAX, ())]),
    (
        "utf16le-with-duplicate",
        '{"a":1,"a":2}'.encode("utf-16-le"),
        [(ENCODING, ()), (DUPLICATE, ("a",))],
    ),
    # duplicate member names: every repeat, at the path of the repeated member
    ("duplicate-key-top-level", '{"a": 1, "a": 2}', [(DUPLICATE, ("a",))]),
    ("duplicate-key-three-times", '{"a": 1, "a": 2, "a": 3}', [(DUPLICATE, ("a",))] * 2),
    ("duplicate-key-nested-in-object", '{"a": {"b": 1, "b": 2}}', [(DUPLICATE, ("a", "b"))]),
    ("duplicate-key-nested-in-array", '[0, {"b": 1, "c": 2, "b": 3}]', [(DUPLICATE, (1, "b"))]),
    ("duplicate-key-by-escape", '{"a": 1, "\\u0061": 2}', [(DUPLICATE, ("a",))]),
    (
        "duplicate-key-replaced-value-has-hazard",
        '{"a": [NaN], "a": 1}',
        [(NON_FINITE, ("a", 0)), (DUPLICATE, ("a",))],
    ),
    # non-finite constants
    ("non-finite-top-level", "NaN", [(NON_FINITE, ())]),
    ("non-finite-in-array", "[1, Infinity]", [(NON_FINITE, (1,))]),
    ("non-finite-in-object", '{"x": {"y": -Infinity}}', [(NON_FINITE, ("x", "y"))]),
    # lone surrogates, in values and in member names
    ("lone-surrogate-top-level", '"\\ud800"', [(SURROGATE, ())]),
    ("lone-surrogate-low", '["\\udc00"]', [(SURROGATE, (0,))]),
    ("lone-surrogate-high-then-letter", '{"a": "\\ud800\\u0041"}', [(SURROGATE, ("a",))]),
    ("lone-surrogate-reversed-pair", '["\\udc00\\ud800"]', [(SURROGATE, (0,))]),
    ("lone-surrogate-in-member-name", '{"\\uD83D": 1}', [(SURROGATE, ("\ud83d",))]),
    (
        "lone-surrogate-nested-member-name",
        '[{"x": {"a\\udfff": 1}}]',
        [(SURROGATE, (0, "x", "a\udfff"))],
    ),
    ("lone-surrogate-raw-code-point", '["\ud800"]', [(SURROGATE, (0,))]),
    ("surrogate-pair-is-fine", '["\\ud83d\\ude00", "\\uD83D\\uDE00"]', []),
    ("escaped-backslash-before-u-is-fine", '["\\\\ud800"]', []),
    # numbers beyond a double
    ("number-range-top-level", "1e400", [(RANGE, ())]),
    ("number-range-negative", "-1e400", [(RANGE, ())]),
    ("number-range-in-array", "[1, 1E+309]", [(RANGE, (1,))]),
    ("number-range-in-object", '{"n": -1.5e999}', [(RANGE, ("n",))]),
    ("number-range-integer", "1" + "0" * 309, [(RANGE, ())]),
    ("number-range-negative-integer", '{"n": -' + "9" * 309 + "}", [(RANGE, ("n",))]),
    ("number-range-integer-too-long-for-int", "[" + "7" * 5000 + "]", [(RANGE, (0,))]),
    ("number-largest-double-as-integer-is-fine", str(MAX_INT), []),
    ("number-one-past-largest-double", str(MAX_INT + 1), [(RANGE, ())]),
    ("number-underflow-is-fine", "[1e-400, 1e308]", []),
    # nesting
    ("too-deep-at-the-bound-is-fine", nest(DEPTH), []),
    ("too-deep-one-over", nest(DEPTH + 1), [(DEEP, zeros(DEPTH))]),
    ("too-deep-objects", '{"a":' * (DEPTH + 1) + "1" + "}" * (DEPTH + 1), [(DEEP, ("a",) * DEPTH)]),
    (
        "too-deep-twice",
        "[" + nest(DEPTH) + "," + nest(DEPTH + 1) + "]",
        [(DEEP, zeros(DEPTH)), (DEEP, (1,) + zeros(DEPTH - 1))],
    ),
    ("too-deep-100000", nest(100_000), [(DEEP, zeros(DEPTH))]),
    ("too-deep-100000-unclosed", "[" * 100_000, [(DEEP, zeros(DEPTH)), (SYNTAX, zeros(DEPTH))]),
    # trailing data
    ("trailing-data-second-value", "[1] [2]", [(TRAILING, ())]),
    ("trailing-data-word", "{} x", [(TRAILING, ())]),
    ("trailing-data-extra-bracket", "[1]]", [(TRAILING, ())]),
    ("trailing-data-number", "1 2", [(TRAILING, ())]),
    # several hazards: all of them, in document order
    (
        "several-hazards-in-document-order",
        '{"a": NaN, "b": ["\\ud800", 1e400], "a": {"c": 1, "c": 2}} x',
        [
            (NON_FINITE, ("a",)),
            (SURROGATE, ("b", 0)),
            (RANGE, ("b", 1)),
            (DUPLICATE, ("a",)),
            (DUPLICATE, ("a", "c")),
            (TRAILING, ()),
        ],
    ),
    (
        "several-hazards-after-invalid-utf8",
        b'{"k": "\xff", "k": Infinity}',
        [(UTF8, ()), (DUPLICATE, ("k",)), (NON_FINITE, ("k",))],
    ),
    ("bom-and-duplicate", b'\xef\xbb\xbf{"a": 1, "a": 2}', [(BOM, ()), (DUPLICATE, ("a",))]),
    # valid documents
    ("valid-empty-containers", '{"a": {}, "b": [], "c": [{}, []]}', []),
    ("valid-scalars", '[true, false, null, 0, -0, 1.5e-3, -2E+2, "\\n\\"\\/\\u00e9"]', []),
    ("valid-whitespace-everywhere", ' \r\n\t{ "a" : [ 1 , 2 ] } \n', []),
    ("valid-unicode", '{"naïve": "日本語 😀"}', []),
    ("valid-unicode-bytes", '{"naïve": "日本語 😀"}'.encode(), []),
]

# A value is withheld for these; every other document gives what json.loads gives.
NO_VALUE = {SYNTAX, UTF8}
_TOO_DEEP_FOR_LOADS = object()


def codes_and_paths(parsed: Parsed) -> list[tuple[str, Path]]:
    return [(problem.code, problem.path) for problem in parsed.problems]


def same(left: Any, right: Any) -> bool:
    """Compare JSON values, NaN equal to NaN and types kept apart (1 is not 1.0 or True)."""
    return json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True) and (
        _types(left) == _types(right)
    )


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value).__name__


def _emptied_past(value: Any, depth: int, level: int = 1) -> Any:
    """``value`` with every container deeper than ``depth`` levels left empty."""
    if isinstance(value, (dict, list)) and level > depth:
        return type(value)()
    if isinstance(value, dict):
        return {k: _emptied_past(v, depth, level + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_emptied_past(v, depth, level + 1) for v in value]
    return value


def _depth(value: Any) -> int:
    level = 0
    while isinstance(value, (dict, list)) and value:
        value, level = (
            (next(iter(value.values())) if isinstance(value, dict) else value[0]),
            level + 1,
        )
    return level + (1 if isinstance(value, (dict, list)) else 0)


def expected_value(data: str | bytes, codes: set[str]) -> Any:
    if codes & NO_VALUE:
        return None
    if isinstance(data, str) and BOM in codes:  # json.loads refuses a str that starts so
        data = data[1:]
    try:
        loaded = json.loads(data)
        return _emptied_past(loaded, DEPTH) if DEEP in codes else loaded
    except RecursionError:  # deeper than json.loads follows: compared by depth below
        return _TOO_DEEP_FOR_LOADS
    except ValueError:
        if TRAILING in codes:  # the value before the trailing data is kept
            text = data.decode() if isinstance(data, bytes) else data
            return json.JSONDecoder().raw_decode(text.lstrip())[0]
        return None  # an integer too long for int()


@pytest.mark.parametrize(("data", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hazards_and_paths(data: str | bytes, expected: list[tuple[str, Path]]) -> None:
    assert codes_and_paths(parse(data)) == expected


@pytest.mark.parametrize(("data", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_value_is_what_json_loads_gives(
    data: str | bytes, expected: list[tuple[str, Path]]
) -> None:
    parsed = parse(data)
    want = expected_value(data, {code for code, _ in expected})
    if want is _TOO_DEEP_FOR_LOADS:
        assert _depth(parsed.value) == DEPTH + 1  # the first container past the bound, empty
        return
    assert same(parsed.value, want)
    if parsed.value is not None:
        for problem in parsed.problems:
            assert resolves(parsed.value, problem.path) or replaced(problem, parsed.problems)


def test_messages_say_where() -> None:
    (problem,) = parse(b'[1, "\xff"]').problems
    assert "byte offset 5" in problem.message
    (problem,) = parse('{\n  "a": [1,\n        ]}').problems
    assert "at line 3 column 9" in problem.message
    (problem,) = parse("[1] 2").problems
    assert "at line 1 column 5" in problem.message
    assert all(parse(data).problems[0].message.startswith("expected") for _, data, _ in CASES[:20])


def test_text_is_the_decoded_text_without_bom() -> None:
    assert parse(b"\xef\xbb\xbf[1]").text == "[1]"
    assert parse("\ufeff[1]").text == "[1]"
    assert parse("[1]".encode("utf-16")).text == "[1]"
    assert parse(b'["\xff"]').text is None
    assert parse(b"[\x001\x00]").text is None  # UTF-16LE cut short


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, str])
def test_every_input_kind(kind: Any) -> None:
    data = '{"a": NaN}'
    parsed = parse(data if kind is str else kind(data.encode()))
    assert codes_and_paths(parsed) == [(NON_FINITE, ("a",))]


@pytest.mark.parametrize("data", [None, 1, ["[]"], {"a": 1}])
def test_other_input_types_raise_our_error(data: Any) -> None:
    with pytest.raises(InvalidInput) as raised:
        parse(data)
    assert raised.value.codes == (SYNTAX,)


def test_limits_set_the_depth() -> None:
    shallow = GEMINI.derive(MAX_JSON_DEPTH=2)
    assert codes_and_paths(parse("[[1]]", limits=shallow)) == []
    assert codes_and_paths(parse('[{"a": []}]', limits=shallow)) == [(DEEP, (0, "a"))]


def test_deep_nesting_leaves_recursion_alone() -> None:
    limit = sys.getrecursionlimit()
    for data in ("[" * 200_000, '{"a":' * 100_000, nest(100_000), "[" * 99_999 + "{"):
        assert parse(data).problems[0].code == DEEP
    assert sys.getrecursionlimit() == limit


def test_invalid_utf8_reports_are_capped() -> None:
    problems = parse(b'"' + b"\xff" * 1000 + b'"').problems
    assert len(problems) == 101
    assert "more invalid bytes from byte offset 101 on" in problems[-1].message


# --- large documents take the other routes of the fast path -----------------------------


def _records(count: int) -> list[dict[str, Any]]:
    return [
        {"id": i, "name": f"n{i}", "at": f"12:{i % 60:02}", "tags": ["x", i / 3]}
        for i in range(count)
    ]


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        (
            "dense-with-duplicate",
            json.dumps({"r": _records(3000)})[:-2] + ', {"q": 1, "q": 2}]}',
            [(DUPLICATE, ("r", 3000, "q"))],
        ),
        (
            "dense-with-big-exponent",
            json.dumps({"r": _records(3000)})[:-2] + ", 1e400]}",
            [(RANGE, ("r", 3000))],
        ),
        (
            "dense-too-deep",
            json.dumps({"r": _records(3000)})[:-2] + ", " + nest(DEPTH) + "]}",
            [(DEEP, ("r", 3000) + zeros(DEPTH - 2))],
        ),
        (
            "sparse-with-duplicate",
            '{"data": "' + "QUJD" * 50_000 + '", "data": 1}',
            [(DUPLICATE, ("data",))],
        ),
        (
            "sparse-many-objects-too-deep",
            '{"data": "' + "QUJD" * 50_000 + '", "q": [' + ", ".join(['{"a": [1]}'] * 200) + "],"
            ' "deep": ' + nest(DEPTH) + "}",
            [(DEEP, ("deep",) + zeros(DEPTH - 1))],
        ),
        (
            "sparse-many-numbers-then-overflow",
            "[" + ", ".join(["0.5"] * 60_000) + ", 1e400]",
            [(RANGE, (60_000,))],
        ),
        (
            "many-escapes-then-lone-surrogate",
            '{"t": "' + "line\\n" * 10_000 + '\\ud800"}',
            [(SURROGATE, ("t",))],
        ),
        ("many-escapes-and-pairs", '{"t": "' + "\\n\\ud83d\\ude00" * 10_000 + '"}', []),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else "",
)
def test_large_documents(name: str, data: str, expected: list[tuple[str, Path]]) -> None:
    for given_data in (data, data.encode()):
        parsed = parse(given_data)
        assert codes_and_paths(parsed) == expected, name
        if expected:
            assert same(parsed.value, expected_value(data, {code for code, _ in expected}))


def test_clean_large_documents_equal_json_loads() -> None:
    dense = json.dumps({"r": _records(3000), "e": "é ü"}, indent=1)
    sparse = json.dumps({"data": "QUJD" * 50_000, "n": [1.5] * 100})
    many = json.dumps({"data": "QUJD" * 50_000, "q": [{"a": [{"b": 1}]}] * 200})
    for data in (dense, sparse, many, dense.encode(), sparse.encode("utf-8"), many.encode()):
        parsed = parse(data)
        assert parsed.problems == ()
        assert parsed.value == json.loads(data)


# --- locate ----------------------------------------------------------------------------

LOCATED = (
    "{\n"
    '  "naïve": "café",\n'
    '  "list": [\n'
    "    1,\n"
    '    {"ü": "😀", "n": null}\n'
    "  ],\n"
    '  "b": 1,\n'
    '  "b": {"x": [true]}\n'
    "}\n"
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ((), Location(1, 1, 1, 1)),
        (("naïve",), Location(2, 3, 2, 12)),
        (("list",), Location(3, 3, 3, 11)),
        (("list", 0), Location(4, 5, 4, 5)),
        (("list", 1), Location(5, 5, 5, 5)),
        (("list", 1, "ü"), Location(5, 6, 5, 11)),
        (("list", 1, "n"), Location(5, 16, 5, 21)),
        (("b",), Location(8, 3, 8, 8)),
        (("b", "x", 0), Location(8, 15, 8, 15)),
        (("list", 2), None),
        (("missing",), None),
        ((0,), None),
    ],
    ids=str,
)
def test_locate(path: Path, expected: Location | None) -> None:
    assert locate(LOCATED, path) == expected
    assert locate_many(LOCATED, [path]) == {path: expected}


def test_locate_all_gives_every_occurrence_of_a_repeated_name() -> None:
    spots = locate_all(LOCATED, ("b",))
    assert [(spot.key_line, spot.key_column) for spot in spots] == [(7, 3), (8, 3)]
    (repeat,) = [p for p in parse(LOCATED).problems if p.code == DUPLICATE]
    assert repeat.path == ("b",)  # the first repeat is the second occurrence
    assert locate_all(LOCATED, ("nowhere",)) == ()


def test_locate_many_reads_once_for_many_paths() -> None:
    paths = [(), ("list", 1, "ü"), ("b",), ("b", "x"), ("nowhere", 1)]
    found = locate_many(LOCATED, paths)
    assert list(found) == paths
    assert found[("b", "x")] == Location(8, 9, 8, 14)
    assert found[("nowhere", 1)] is None
    assert locate_many(LOCATED, []) == {}


def test_locate_with_crlf_bom_and_broken_text() -> None:
    text = '\ufeff{\r\n "a": [1,\r\n  2]}'
    assert locate(text, ("a", 1)) == Location(3, 3, 3, 3)
    broken = '{"a": 1, "b": [1, }'
    assert locate(broken, ("a",)) == Location(1, 2, 1, 7)
    assert locate(broken, ("b", 1)) == Location(1, 19, 1, 19)  # where a value was expected
    assert locate(nest(100_000), zeros(3)) == Location(1, 4, 1, 4)


def test_every_problem_of_a_document_can_be_located() -> None:
    text = '{"a": NaN, "b": ["\\ud800", 1e400], "a": {"c": 1, "c": 2}}'
    parsed = parse(text)
    assert parsed.text is not None
    spots = locate_many(parsed.text, [problem.path for problem in parsed.problems])
    assert None not in spots.values()
    assert spots[("b", 1)] == Location(1, 28, 1, 28)


# --- properties ------------------------------------------------------------------------

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def resolves(value: Any, path: Path) -> bool:
    for step in path:
        in_object = isinstance(value, dict) and isinstance(step, str) and step in value
        in_array = isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value)
        if not (in_object or in_array):
            return False
        value = value[step]
    return True


def replaced(problem: Any, problems: tuple[Any, ...]) -> bool:
    """Tell whether ``problem`` lies inside a member value that a later repeat replaced."""
    return any(
        other.code == DUPLICATE
        and len(other.path) < len(problem.path)
        and problem.path[: len(other.path)] == other.path
        for other in problems
    )


@FAST
@given(st.binary(max_size=200))
def test_arbitrary_bytes_raise_nothing(data: bytes) -> None:
    assert isinstance(parse(data), Parsed)


@FAST
@given(st.text(max_size=200) | json_like_text)
def test_arbitrary_text_raises_nothing(text: str) -> None:
    parsed = parse(text)
    assert isinstance(parsed, Parsed)
    for problem in parsed.problems:
        locate(text, problem.path)  # never raises either


@FAST
@given(json_values, st.booleans(), st.sampled_from([None, 1, "\t"]))
def test_dumped_values_are_clean_and_equal_json_loads(
    value: Any, ensure_ascii: bool, indent: int | str | None
) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    for data in (text, text.encode()):
        parsed = parse(data)
        assert parsed.problems == ()
        assert same(parsed.value, json.loads(text))


def paths_in(value: Any, prefix: Path = ()) -> list[Path]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths_in(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths_in(item, (*prefix, index))
    return found


@FAST
@given(json_values, st.sampled_from([None, 0, 2]), st.booleans())
def test_located_values_read_back(value: Any, indent: int | None, ensure_ascii: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)
    starts = [0] + [at + 1 for at, char in enumerate(text) if char == "\n"]
    decoder = json.JSONDecoder()
    for path, spot in locate_many(text, paths_in(value)).items():
        assert spot is not None
        key_at = starts[spot.key_line - 1] + spot.key_column - 1
        value_at = starts[spot.value_line - 1] + spot.value_column - 1
        expected = value
        for step in path:
            expected = expected[step]
        assert same(decoder.raw_decode(text, value_at)[0], expected)
        if path and isinstance(path[-1], str):
            assert decoder.raw_decode(text, key_at)[0] == path[-1]
        else:
            assert key_at == value_at


@FAST
@given(json_values)
def test_exact_tokenizer_agrees_with_json_loads(value: Any) -> None:
    text = json.dumps(value)
    walker = jsontext._reader.Reader(text, DEPTH)
    walker.skip = False  # walk every subtree, none handed to the C scanner
    walker.run()
    assert walker.problems == []
    assert same(walker.value, json.loads(text))


@FAST
@given(json_texts_with_hazards)
def test_problem_paths_resolve_in_the_value(text: str) -> None:
    parsed = parse(text)
    assert not {problem.code for problem in parsed.problems} & NO_VALUE
    assert same(parsed.value, json.loads(text))  # the last value of a repeated name is kept
    for problem in parsed.problems:
        assert resolves(parsed.value, problem.path) or replaced(problem, parsed.problems)
        assert locate(text, problem.path) is not None
    assert parse(text.encode()).problems == parsed.problems


@FAST
@given(json_texts_with_hazards)
def test_problems_come_in_document_order(text: str) -> None:
    spots = [locate_all(text, problem.path) for problem in parse(text).problems]
    starts = [(found[0].key_line, found[0].key_column) for found in spots]
    assert starts == sorted(starts) or any(len(found) > 1 for found in spots)


def test_an_unexpected_failure_inside_still_raises_our_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(data: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(jsontext, "decode", broken)
    with pytest.raises(DecisionsInputError) as raised:
        parse("[1]")
    assert isinstance(raised.value.__cause__, RuntimeError)


# --- the fast path and the strict reader agree ------------------------------------------


def strictly(data: str | bytes, depth: int = DEPTH) -> tuple[Any, list[tuple[str, Path]]]:
    """Read ``data`` with the strict reader alone, no subtree handed to the C scanner."""
    text, raw, head, strict = decode(data)
    reader = Reader(text, depth, surrogates=surrogate_offsets(text, raw))
    reader.skip = False
    reader.run()
    found = sorted(head + reader.problems, key=lambda item: item[0])
    return (reader.value if strict else None), [(p.code, p.path) for _, p in found]


def routes(text: str, raw: bytes | None, depth: int = DEPTH) -> dict[str, Any]:
    """Every route of the fast path, each made to take the text whatever its shape."""
    found = {"chosen": _fast.clean_value(text, raw, depth)}
    for allowance in (0, 10**9):  # objects and numbers: over any budget, or within it
        for name, route in (("pairs", _fast._by_pairs), ("sizes", _fast._by_sizes)):
            args = (text, depth, allowance) if name == "pairs" else (text, raw, depth, allowance)
            with contextlib.suppress(_fast._TooManyNumbers, _fast._TooManyObjects):
                found[f"{name}-{allowance}"] = route(*args)
    found["shape"] = _fast._by_shape(text, raw, depth)
    return found


def assert_routes_sound(text: str, depth: int = DEPTH) -> None:
    """A route that returns a value returns the strict reader's, for a text it finds clean."""
    # The routes leave surrogates to the checks made before them.
    if next(_fast.surrogate_escapes(text), None) is not None or has_surrogate(text):
        return
    value, problems = strictly(text, depth)
    for raw in (None, text.encode()):
        for name, found in routes(text, raw, depth).items():
            if found is not _fast.MISS:
                assert problems == [], (name, text)
                assert same(found, value), name


@FAST
@given(json_texts_any)
def test_fast_and_strict_paths_agree_on_every_problem(text: str) -> None:
    for data in (text, text.encode("utf-8", "surrogatepass")):
        parsed = parse(data)
        value, problems = strictly(data)
        assert [(p.code, p.path) for p in parsed.problems] == problems
        assert same(parsed.value, value)


@FAST
@given(json_texts_any, st.sampled_from([1, 2, 3, DEPTH]))
def test_every_route_of_the_fast_path_is_sound(text: str, depth: int) -> None:
    assert_routes_sound(text, depth)


def _nesting(value: Any) -> int:
    """How deep containers nest in a value, the plain recursive way."""
    if type(value) is dict:
        return 1 + max(map(_nesting, value.values()), default=0)
    if type(value) is list:
        return 1 + max(map(_nesting, value), default=0)
    return 0


# Levels wide enough for the walk to try them as strings first, holding a few containers.
_wide_values = st.recursive(
    st.lists(st.sampled_from(["", "a", "bc"]), min_size=30, max_size=70) | json_values,
    lambda inner: (
        st.lists(st.one_of(inner, st.just("x")), min_size=1, max_size=4)
        | st.dictionaries(st.sampled_from("abcdef"), inner, max_size=4)
    ),
    max_leaves=30,
)


@FAST
@given(_wide_values, st.integers(0, 8))
def test_the_depth_walk_of_the_fast_path_counts_as_recursion_does(value: Any, limit: int) -> None:
    assert _fast._depth_within(value, limit) == (_nesting(value) <= limit)


def _spread(inner: str, count: int) -> str:
    return '{"pad": "' + "x" * 20_000 + '", "items": [' + ", ".join([inner] * count) + "]}"


# (id, text) for the edges of each route: every route must say MISS, or the reader's value.
ROUTE_EDGES = [
    ("duplicate-with-colons-in-strings", '{"a": "x:y", "b": {"c": 1, "c": 2}, "d": ":"}'),
    ("duplicate-escaped-name", '{"a": 1, "\\u0061": 2}'),
    ("colon-inside-name", '{"a:b": 1, "a:b": 2}'),
    ("quote-and-colon-in-string", '{"k": "\\":", "k2": "\\\\"}'),
    ("bracket-strings", '{"a": "[[[[", "b": "]]]]", "c": [[]]}'),
    ("depth-at-bound", nest(DEPTH)),
    ("depth-over-bound", nest(DEPTH + 1)),
    ("objects-over-bound", '{"a":' * (DEPTH + 1) + "1" + "}" * (DEPTH + 1)),
    ("big-exponent-late", "[" + ", ".join(["0.5"] * 3000) + ", 1e400]"),
    ("long-integer-late", "[" + ", ".join(["7"] * 3000) + ", " + "9" * 400 + "]"),
    ("negative-exponent-is-fine", "[" + ", ".join(["0.5"] * 3000) + ", 1e-400]"),
    ("sparse-then-dense-duplicate", _spread('{"q": 1}', 2000)[:-2] + ', {"q": 1, "q": 2}]}'),
    ("sparse-then-deep", _spread('{"q": [1]}', 200)[:-2] + ", " + nest(DEPTH) + "]}"),
    ("cjk-brackets", '{"t": "' + "符字" * 20_000 + '", "a": [[1]], "b": {"c": {}}}'),
    ("surrogate-pair-escapes", '["' + "\\ud83d\\ude00" * 100 + '"]'),
]


@pytest.mark.parametrize("text", [edge[1] for edge in ROUTE_EDGES], ids=[e[0] for e in ROUTE_EDGES])
def test_route_edges(text: str) -> None:
    assert_routes_sound(text)
    assert codes_and_paths(parse(text)) == strictly(text)[1]


# --- memory follows the value, not the lines ------------------------------------------


def test_locating_in_a_text_of_many_lines_takes_no_memory_per_line() -> None:
    text = "\n" * 2_000_000 + '{"a": [1, }'
    parsed = parse(text)
    assert codes_and_paths(parsed) == [(SYNTAX, ("a", 1))]
    assert "at line 2000001 column 11" in parsed.problems[0].message
    tracemalloc.start()
    try:
        found = locate_many(text, [(), ("a",), ("a", 1)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found[("a", 1)] == Location(2_000_001, 11, 2_000_001, 11)
    assert peak < 100_000  # a list of line starts alone would take 70 MB


@FAST
@given(
    st.text("[{x", max_size=40) | st.text("[x", min_size=300, max_size=400).map(lambda s: s * 60),
    st.integers(0, 12),
)
def test_brackets_are_counted_up_to_a_limit(text: str, limit: int) -> None:
    assert _fast._count_up_to(text, "[", limit) == min(text.count("["), limit + 1)
