"""Error bodies: telling one from a decision, checking it, and the exception it becomes.

A body is an error body when its HTTP status is ``MIN_ERROR_STATUS`` or more, or, when no
status is known, when it is a JSON object with an ``error`` member and no ``answers`` (the
shape both APIs give their errors: 002 ``ErrorResponse``, 003 ``ErrorResponse``). Without a
target, the target of an error body is read from its shape: Parallel's has
``"type": "error"`` or a ``ref_id``; so is a decision's (:func:`body_target`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ..errors import InvalidInput, Problem
from ..limits import Limits, limits_for
from ._common import _dict, _json_kind, _problem, _show, _str
from .building import build
from .context import _Ctx
from .invariants import HOOKS
from .models import APIError, ErrorBody, checked
from .reading import Read, _expectations
from .shapes import shapes_for
from .walk import _object

__all__ = [
    "api_error",
    "body_target",
    "context",
    "error_body_problem",
    "error_status",
    "error_target",
    "is_error_body",
    "iter_error_body",
    "parse_error_body",
]

_EMPTY_MEMBERS: Mapping[str, object] = MappingProxyType({})


def context(limits: Limits, request: object = None) -> _Ctx:
    """Return the context of a check for a table, with the questions of a request if given."""
    return _Ctx(limits, shapes_for(limits.TARGET), HOOKS, _expectations(request, limits))


def error_status(read: Read, limits: Limits) -> bool:
    """Whether a body read came with an HTTP status that carries an error body."""
    return read.status is not None and read.status >= limits.MIN_ERROR_STATUS


def is_error_body(read: Read, limits: Limits) -> bool:
    """Whether a body read is an API error: by its HTTP status, or by its shape without one."""
    if read.status is not None:
        return error_status(read, limits)
    value = read.value
    return isinstance(value, dict) and "error" in value and "answers" not in value


def error_target(value: object) -> str:
    """The API an error body is from, by its shape: Parallel's names a type or a ``ref_id``."""
    if isinstance(value, dict):
        inner = _dict(value, "error") or _EMPTY_MEMBERS
        if value.get("type") == "error" or "ref_id" in inner:
            return "parallel"
    return "gemini"


def _only_parallel(shape: str) -> frozenset[str]:
    """Members a Parallel object of this shape has and a Gemini one does not."""
    return frozenset(shapes_for("parallel")[shape]) - frozenset(shapes_for("gemini")[shape])


def body_target(value: object) -> str:
    """The API a body is from, by its shape, for a caller who names none.

    An error body is read by :func:`error_target`. A decision is Parallel's when it has a
    member only Parallel's response shape has (``decision_id``, ``mode``, ``citations``) or
    counts its usage in members only Parallel's usage has (``input_tokens``); else Gemini's.
    """
    if not isinstance(value, dict):
        return "gemini"
    if "error" in value and "answers" not in value:
        return error_target(value)
    usage = _dict(value, "usage") or _EMPTY_MEMBERS
    if not _only_parallel("response").isdisjoint(value) or not _only_parallel("usage").isdisjoint(
        usage
    ):
        return "parallel"
    return "gemini"


def error_body_problem(read: Read) -> Problem:
    """The problem that a body is an error body, naming what the API said."""
    said = [f"HTTP {read.status}"] if read.status is not None else []
    inner = _dict(read.value, "error") if isinstance(read.value, dict) else None
    if inner is not None:
        code = _str(inner, "code")
        ref_id = _str(inner, "ref_id")
        said += [f"code {code!r}"] if code else []
        said += [f"ref_id {ref_id!r}"] if ref_id else []
        message = _str(inner, "message")
        said += [_show(message, 200)] if message else []
    found = "; ".join(said) if said else "no message"
    return _problem((), "response.error_body", f"expected a decision, found an error body: {found}")


def _check(value: object, ctx: _Ctx) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield _problem((), "response.type", f"expected object, found {_json_kind(value)}")
        return
    yield from _object(value, (), "error_response", ctx)


def _table(value: object, limits: Limits | None) -> Limits:
    return limits if limits is not None else limits_for(error_target(value))


def iter_error_body(read: Read, limits: Limits | None) -> Iterator[Problem]:
    """Yield the problems of an error body read: those of its text, then of its shape."""
    yield from read.problems
    if not any(p.is_error for p in read.problems):
        yield from _check(read.value, context(_table(read.value, limits)))


def parse_error_body(read: Read, limits: Limits | None) -> ErrorBody:
    """Return the checked model of an error body read; raise ``InvalidInput`` on an error."""
    problems = list(iter_error_body(read, limits))
    errors = [p for p in problems if p.is_error]
    if errors:
        raise InvalidInput(errors)
    table = _table(read.value, limits)
    model = build(ErrorBody, "error_response", read.value, table.TARGET)  # type: ignore[arg-type]
    return checked(model, table.TARGET, problems, _status=read.status)


def api_error(read: Read, limits: Limits | None) -> APIError:
    """Return the exception for an error body, with the parsed error when it can be read."""
    try:
        error = parse_error_body(read, limits)
    except InvalidInput as exc:
        return APIError(None, status=read.status, problems=exc.problems)
    return APIError(error, status=read.status, problems=error.warnings)
