"""Pre-flight validation of any request body: every problem, lazily, in document order.

The body may be a mapping, a pydantic model (for example a google-genai request type), or
JSON text as ``str`` or ``bytes``. Text is parsed strictly first, so hazards that
``json.loads`` hides (duplicate members, NaN, lone surrogates, ...) are reported too.

Strictness is one policy applied here: with ``strict=True`` every warning is reported as
an error. Nothing but :class:`~decisions_input.errors.DecisionsInputError` subclasses is
ever raised, whatever the input.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ._types import JSON
from .checks import check_request
from .errors import DecisionsInputError, InvalidInput, Path, Problem, Severity
from .json_checks import check_json_value
from .limits import Limits, limits_for

__all__ = ["best_problem", "check", "is_valid", "iter_problems", "to_json_value"]


def _limits(target: str, limits: Limits | None) -> Limits:
    return limits if limits is not None else limits_for(target)


def to_json_value(body: Any, limits: Limits) -> tuple[JSON | None, tuple[Problem, ...]]:
    """Turn any accepted body into a parsed JSON value, with the problems of its text."""
    if type(body) is dict:
        return body, ()
    if isinstance(body, (str, bytes, bytearray, memoryview)):
        from .jsontext import parse_value

        value, problems, _ = parse_value(body, limits=limits)
        return value, problems
    if isinstance(body, Mapping):
        return (body if type(body) is dict else dict(body)), ()
    dump = getattr(body, "model_dump", None)
    if callable(dump):
        try:
            value = dump(mode="json", by_alias=True, exclude_none=True)
        except Exception as exc:  # pydantic raises its own errors while serialising
            return None, (
                Problem((), "schema.type", f"the model could not be serialised to JSON: {exc}"),
            )
        return value, ()
    return body, ()


def _apply_policy(problems: Iterator[Problem], strict: bool) -> Iterator[Problem]:
    return _promote(problems) if strict else problems


def _promote(problems: Iterator[Problem]) -> Iterator[Problem]:
    for problem in problems:
        if problem.severity is Severity.WARNING:
            problem = dataclasses.replace(problem, severity=Severity.ERROR)
        yield problem


def iter_problems(
    body: Any,
    *,
    target: str = "gemini",
    strict: bool = False,
    limits: Limits | None = None,
) -> Iterator[Problem]:
    """Yield every problem of a request body, lazily, in document order.

    Args:
        body: a mapping, a pydantic model, or JSON text as ``str`` or ``bytes``.
        target: ``"gemini"`` or ``"parallel"``; chooses the limits table.
        strict: report warnings as errors.
        limits: a table to use instead of the target's (for example a derived copy).

    .. versionadded:: 0.1
    """
    table = _limits(target, limits)
    if type(body) is dict:
        problems = _and_unread_values(check_request(body, (), table), body, table)
    else:
        problems = _iter(body, table)
    return _apply_policy(_guarded(problems, body), strict)


def _and_unread_values(problems: Iterator[Problem], body: JSON, table: Limits) -> Iterator[Problem]:
    """Yield the problems of a parsed body, then what no JSON text holds in values left unread.

    The checks stop reading where they refuse something (a member of the wrong type, an
    unknown question type, an unknown member); the text of the same body is read to its end,
    where nesting past ``MAX_JSON_DEPTH``, NaN, a number beyond a double or a lone surrogate
    is refused. So once the checks are done, and only if they found an error (a budget
    problem leaves nothing unread), the whole body is walked once for those: a valid body
    costs nothing more, and a body is refused the same way as a mapping and as text.
    """
    told: set[tuple[Path, str]] = set()
    refused = False
    for problem in problems:
        yield problem
        if problem.code.startswith("json."):
            told.add((problem.path, problem.code))
        elif problem.severity is Severity.ERROR and not problem.code.startswith("budget."):
            refused = True
    if refused:
        for found in check_json_value(body, (), table.MAX_JSON_DEPTH):
            if found.code.startswith("json.") and (found.path, found.code) not in told:
                yield found


def _guarded(problems: Iterator[Problem], body: Any) -> Iterator[Problem]:
    """Turn an exception into a last problem, so that the problems before it are kept.

    A body of JSON values never makes the checks raise: if it does, that is a defect of
    the library, reported as ``internal.error`` (tests and fuzzing assert that it never
    appears). A body holding other Python objects (a mapping, a string subclass, a model's
    output) may raise from their own methods: the body cannot be read as JSON.
    """
    try:
        yield from problems
    except DecisionsInputError:
        raise
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"[:200]
        foreign = _foreign_type(body)
        if foreign is not None:
            message = f"the body could not be read as JSON: a {foreign} in it raised {reason}"
            yield Problem((), "schema.type", message)
        else:
            message = f"internal error: the library failed on this body ({reason})"
            yield Problem((), "internal.error", message + "; this is a defect of the library")


_JSON_LEAVES = frozenset({str, int, float, bool, type(None)})


def _foreign_type(body: Any) -> str | None:
    """Name the first type in ``body`` that is not a JSON type, or None when there is none.

    JSON text counts as JSON (its value is). Nothing of the caller's is called: containers
    are entered only when they are exactly ``dict`` or ``list``.
    """
    if isinstance(body, (str, bytes, bytearray, memoryview)):
        return None
    stack, seen = [body], set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(item.values() if kind is dict else item)
                stack.extend(item if kind is dict else ())  # member names
        elif kind not in _JSON_LEAVES:
            return kind.__name__
    return None


def _iter(body: Any, table: Limits) -> Iterator[Problem]:
    value, text_problems = to_json_value(body, table)
    yield from text_problems
    if value is None and text_problems:
        return
    if not isinstance(body, (str, bytes, bytearray, memoryview)):  # a mapping or a model
        yield from _and_unread_values(check_request(value, (), table), value, table)
        return
    if not text_problems:
        yield from check_request(value, (), table)
        return
    # What the text already told about a place (NaN, a number beyond a double) is not told
    # again by the checks of the parsed value.
    told = {p.path for p in text_problems if p.code.startswith("json.")}
    for problem in check_request(value, (), table):
        if not (problem.code.startswith("json.") and problem.path in told):
            yield problem


def is_valid(
    body: Any, *, target: str = "gemini", strict: bool = False, limits: Limits | None = None
) -> bool:
    """Return True when the body has no error; stop at the first one."""
    return not any(
        p.severity is Severity.ERROR
        for p in iter_problems(body, target=target, strict=strict, limits=limits)
    )


def check(
    body: Any, *, target: str = "gemini", strict: bool = False, limits: Limits | None = None
) -> tuple[Problem, ...]:
    """Raise ``InvalidInput`` listing every problem when there is an error; else return warnings."""
    problems = tuple(iter_problems(body, target=target, strict=strict, limits=limits))
    if any(p.severity is Severity.ERROR for p in problems):
        raise InvalidInput(problems)
    return problems


def best_problem(problems: Iterable[Problem]) -> Problem | None:
    """Pick the problem most worth showing first, or None when there is none.

    The heuristic: errors before warnings, then the shortest path (a problem near the
    root usually explains the ones below it), then the path text and the code, so that the
    pick does not depend on the order the problems come in.
    """
    return min(problems, key=_rank, default=None)


def _rank(problem: Problem) -> tuple[int, int, str, str, str]:
    return (
        0 if problem.severity is Severity.ERROR else 1,
        len(problem.path),
        problem.json_path,
        problem.code,
        problem.message,
    )
