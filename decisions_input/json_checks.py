"""Checks that any part of a request uses: JSON types, member lists, text, open JSON values.

Each function yields or returns :class:`~decisions_input.errors.Problem` records and never
raises, whatever the value. ``check_json_value`` walks any JSON value (a state, annotation
metadata) for what no JSON text can hold; nesting counts from the document root, as it does
in text.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import Any

from ._unicode import has_surrogate
from .errors import Path, Problem, Severity

__all__ = [
    "article",
    "check_json_value",
    "check_text_member",
    "check_typed_members",
    "closed",
    "is_kind",
    "json_type",
    "names",
    "required",
    "surrogate_problem",
    "wrong_type",
]

_JSON_TYPE_NAMES: Mapping[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def json_type(value: object) -> str:
    """Name the JSON type of a parsed value, for messages."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def is_kind(value: object, kind: str) -> bool:
    if kind == "string":
        return type(value) is str
    if kind == "integer":
        return type(value) is int or (type(value) is float and value.is_integer())
    if kind == "object":
        return type(value) is dict
    if kind == "array":
        return type(value) is list
    if kind == "boolean":
        return type(value) is bool
    return kind == "number" and type(value) in (int, float)


def wrong_type(value: object, path: Path, expected: str) -> Problem:
    return Problem(path, "schema.type", f"expected {expected}, found {json_type(value)}")


def names(items: object) -> str:
    return ", ".join(repr(i) for i in items)  # type: ignore[attr-defined]


def closed(
    obj: dict[str, Any], path: Path, allowed: tuple[str, ...], what: str
) -> Iterator[Problem]:
    for key in obj:
        if key not in allowed:
            yield Problem(
                path + (key,),
                "schema.unknown_member",
                f"member {key!r} is not accepted in {what}; expected only {names(allowed)}",
            )


def required(
    obj: dict[str, Any], path: Path, names: tuple[str, ...], what: str
) -> Iterator[Problem]:
    for name in names:
        if name not in obj:
            yield Problem(path, "schema.required", f"member {name!r} is required in {what}")


def check_json_value(
    value: Any, path: Path, max_depth: int, *, max_exact_integer: int | None = None
) -> Iterator[Problem]:
    """Walk a JSON value for what no JSON text can hold; with ``max_exact_integer`` (the
    state's bound), an integer beyond it either way that a double does not hold exactly is
    a ``state.integer_precision`` warning."""
    # Iterative walk: a state may nest deeper than the interpreter's recursion limit. The
    # containers on the way down are kept, so a container that holds itself is caught.
    stack: list[tuple[Any, Path, tuple[int, ...], Problem | None]] = [(value, path, (), None)]
    while stack:
        item, where, above, name_problem = stack.pop()
        if name_problem is not None:
            yield name_problem
        kind = type(item)
        if kind is str:
            problem = surrogate_problem(item, where)
            if problem is not None:
                yield problem
        elif kind is float:
            if item != item or item in (float("inf"), float("-inf")):
                yield Problem(where, "json.non_finite", f"expected a finite number, found {item!r}")
        elif kind is int:
            if abs(item) > sys.float_info.max:
                yield Problem(
                    where, "json.number_range", "expected a number within a double's range"
                )
            elif max_exact_integer is not None and _inexact(item, max_exact_integer):
                yield _inexact_integer(item, where, max_exact_integer)
        elif kind is dict or kind is list:
            if id(item) in above:
                yield Problem(where, "json.too_deep", "the value holds itself; it has no JSON text")
                continue
            if len(where) >= max_depth:  # counted from the document root, as in JSON text
                yield Problem(
                    where,
                    "json.too_deep",
                    f"expected at most {max_depth} nested levels, found more",
                )
                continue
            inner = above + (id(item),)
            if kind is list:
                stack.extend(
                    (v, where + (i,), inner, None) for i, v in reversed(list(enumerate(item)))
                )
                continue
            stack.extend(
                (v, where + (k,), inner, _member_name_problem(k, where + (k,)))
                for k, v in reversed(list(item.items()))
            )
        elif kind not in (bool, type(None)):
            yield Problem(where, "schema.type", f"expected a JSON value, found {kind.__name__}")


def _inexact(number: int, bound: int) -> bool:
    """Tell whether a double would not hold the integer (within a double's range)."""
    return abs(number) > bound and float(number) != number


def _inexact_integer(number: int, path: Path, bound: int) -> Problem:
    return Problem(
        path,
        "state.integer_precision",
        f"expected an integer a double holds exactly (every one within ±{bound:,}), found "
        f"{_digits(number)}, which JavaScript and other readers that keep JSON numbers as "
        f"doubles read as {_digits(int(float(number)))}; send it as a string",
        Severity.WARNING,
    )


def _digits(number: int) -> str:
    text = str(number)
    if len(text) <= 24:
        return text
    return f"{text[:10]}...{text[-8:]} ({len(text.lstrip('-'))} digits)"


def _member_name_problem(key: Any, path: Path) -> Problem | None:
    if type(key) is not str:
        return wrong_type(key, path, "a string member name")
    return surrogate_problem(key, path)


def surrogate_problem(text: str, path: Path) -> Problem | None:
    """A ``json.lone_surrogate`` problem when the text cannot be written as UTF-8, else None."""
    if has_surrogate(text):
        return Problem(path, "json.lone_surrogate", "text holds a lone surrogate code point")
    return None


def check_text_member(text: Any, path: Path) -> Iterator[Problem]:
    if type(text) is not str:
        yield wrong_type(text, path, "a string")
    elif not text:
        yield Problem(path, "text.empty", "expected non-empty text, found an empty string")
    elif (problem := surrogate_problem(text, path)) is not None:
        yield problem


def article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def check_typed_members(
    obj: dict[str, Any],
    path: Path,
    members: Mapping[str, str],
    what: str,
    max_depth: int = 0,
) -> Iterator[Problem]:
    """Check members against their JSON types; an open ``object`` member (user metadata)
    holds any JSON value, walked to ``max_depth`` for what no JSON text can hold."""
    for key, member in obj.items():
        kind = members.get(key)
        if kind is None:
            yield Problem(
                path + (key,),
                "schema.unknown_member",
                f"member {key!r} is not accepted in {what}; expected only {names(members)}",
            )
        elif not is_kind(member, kind):
            yield wrong_type(
                member, path + (key,), article(kind) if kind != "array" else "an array"
            )
        elif kind == "string" and (problem := surrogate_problem(member, path + (key,))):
            yield problem
        elif kind in ("object", "integer", "number"):  # what no JSON text holds: a number
            yield from check_json_value(member, path + (key,), max_depth)  # past a double
