"""The entry points: read a body in any form, check it, then build the typed result."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from ..errors import InvalidInput, Problem
from ..limits import Limits, limits_for
from ._common import _json_kind, _problem
from .building import build
from .context import _Ctx
from .error_bodies import (
    api_error,
    body_target,
    context,
    error_body_problem,
    error_status,
    is_error_body,
    iter_error_body,
    parse_error_body,
)
from .invariants import _response
from .models import DecisionResponse, ErrorBody, checked
from .reading import Read, read_body
from .shapes import shapes_for
from .signals import DataStoreConnectionSignals
from .walk import _object

__all__ = [
    "iter_error_problems",
    "iter_response_problems",
    "iter_signals_problems",
    "parse_error",
    "parse_response",
    "parse_signals",
]


def _resolve(target: object, limits: object) -> Limits:
    if limits is None:
        return limits_for(target if target is not None else "gemini")  # type: ignore[arg-type]
    if isinstance(limits, Limits):
        return limits
    raise InvalidInput(
        [_problem((), "target.unknown", f"expected a Limits table, found {type(limits).__name__}")]
    )


def _chosen(target: str | None, limits: Limits | None) -> Limits | None:
    """The table the caller chose, or ``None`` to let an error body say whose it is."""
    return None if target is None and limits is None else _resolve(target, limits)


def _for_body(ctx: _Ctx, read: Read, chosen: Limits | None) -> _Ctx:
    """The context a decision is checked in: the caller's table, else its shape's."""
    if chosen is not None:
        return ctx
    table = limits_for(body_target(read.value))
    if table is ctx.limits:
        return ctx
    return replace(ctx, limits=table, shapes=shapes_for(table.TARGET))


def _errors_raised(problems: list[Problem]) -> tuple[Problem, ...]:
    errors = [p for p in problems if p.is_error]
    if errors:
        raise InvalidInput(errors)
    return tuple(problems)


def iter_response_problems(
    body: object,
    *,
    request: object = None,
    target: str | None = None,
    limits: Limits | None = None,
) -> Iterator[Problem]:
    """Yield every problem of a response body, lazily and in document order.

    An error body (an HTTP status of ``MIN_ERROR_STATUS`` or more, or without a status an
    ``error`` object and no ``answers``) is
    checked as one, after a ``response.error_body`` problem that names what the API said.

    Args:
        body: the response: a mapping, JSON text (``str`` or ``bytes``), a pydantic model
            (such as the official SDK's), or an HTTP response with ``.content`` (``httpx``,
            ``requests``), whose status is read too.
        request: the request it answers (a :class:`~decisions_input.request.Request`, a
            mapping, JSON text, or an object with ``to_dict()``); without it the checks that
            compare with the questions, and the reported input with the offline estimate of
            the request (``usage.outside_estimate``), are skipped.
        target: ``"gemini"`` or ``"parallel"``; ignored when ``limits`` is given. Without
            either, the body's own shape says whose it is (:func:`body_target`): a decision
            with a ``decision_id``, ``mode``, ``citations`` or usage in ``input_tokens`` is
            Parallel's, an error body with ``"type": "error"`` or a ``ref_id`` too; any
            other body is read as Gemini's.
        limits: a table to use instead of the target's.

    Raises:
        InvalidInput: at once, for an unknown target or an unreadable request
            (``target.unknown``, ``response.request``); problems of the body are yielded.

    .. versionadded:: 0.1
    """
    ctx = context(_resolve(target, limits), request)
    return _response_problems(body, ctx, _chosen(target, limits))


def _response_problems(body: object, ctx: _Ctx, chosen: Limits | None) -> Iterator[Problem]:
    read = read_body(body, ctx.limits)
    if error_status(read, ctx.limits):
        yield error_body_problem(read)
        yield from iter_error_body(read, chosen)
        return
    yield from read.problems
    if any(p.is_error for p in read.problems):
        return
    if is_error_body(read, ctx.limits):
        yield error_body_problem(read)
        yield from iter_error_body(read, chosen)
        return
    yield from _response(read.value, _for_body(ctx, read, chosen))


def parse_response(
    body: object,
    *,
    request: object = None,
    target: str | None = None,
    limits: Limits | None = None,
) -> DecisionResponse:
    """Check a response body and return it as a :class:`DecisionResponse`.

    Takes the same forms of body and arguments as :func:`iter_response_problems`.

    Raises:
        APIError: when the body is an error body; it carries the parsed error (message,
            code, request ID) and the HTTP status, and its text is the API's message.
        InvalidInput: when any problem is an error; ``problems`` lists the errors. Warnings
            do not raise; they are kept in ``DecisionResponse.warnings``.

    .. versionadded:: 0.1
    """
    table = _resolve(target, limits)
    ctx = context(table, request)
    read = read_body(body, table)
    if error_status(read, table) or (
        not any(p.is_error for p in read.problems) and is_error_body(read, table)
    ):
        raise api_error(read, _chosen(target, limits))
    problems = list(read.problems)
    if not any(p.is_error for p in problems):
        ctx = _for_body(ctx, read, _chosen(target, limits))
        problems.extend(_response(read.value, ctx))
    warnings = _errors_raised(problems)
    target_name = ctx.limits.TARGET
    model = build(DecisionResponse, "response", read.value, target_name)  # type: ignore[arg-type]
    return checked(model, target_name, warnings)


def iter_error_problems(
    body: object, *, target: str | None = None, limits: Limits | None = None
) -> Iterator[Problem]:
    """Yield every problem of an error body (HTTP 4xx/5xx) in document order.

    Takes the same forms of body as :func:`iter_response_problems`. Without ``target`` or
    ``limits``, the body's shape says which API it is from.

    .. versionadded:: 0.1
    """
    chosen = _chosen(target, limits)
    return _error_problems(body, chosen)


def _error_problems(body: object, chosen: Limits | None) -> Iterator[Problem]:
    yield from iter_error_body(read_body(body, chosen or limits_for("gemini")), chosen)


def parse_error(
    body: object, *, target: str | None = None, limits: Limits | None = None
) -> ErrorBody:
    """Check an error body and return it as an :class:`ErrorBody`, with its HTTP status.

    Takes the same forms of body as :func:`iter_response_problems`. Without ``target`` or
    ``limits``, the body's shape says which API it is from.

    Raises:
        InvalidInput: when the body is not an error body of the API.

    .. versionadded:: 0.1
    """
    chosen = _chosen(target, limits)
    return parse_error_body(read_body(body, chosen or limits_for("gemini")), chosen)


def _check_signals(value: object, ctx: _Ctx) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield _problem((), "response.type", f"expected object, found {_json_kind(value)}")
        return
    yield from _object(value, (), "signals", ctx)


def _signal_problems(read: Read, ctx: _Ctx) -> Iterator[Problem]:
    yield from read.problems
    if not any(p.is_error for p in read.problems):
        yield from _check_signals(read.value, ctx)


def iter_signals_problems(body: object, *, limits: Limits | None = None) -> Iterator[Problem]:
    """Yield every problem of a ``DataStoreConnectionSignals`` body in document order.

    .. versionadded:: 0.1
    """
    table = _resolve(None, limits)
    return _deferred(lambda: _signal_problems(read_body(body, table), context(table)))


def _deferred(make: Callable[[], Iterator[Problem]]) -> Iterator[Problem]:
    yield from make()


def parse_signals(body: object, *, limits: Limits | None = None) -> DataStoreConnectionSignals:
    """Check a ``DataStoreConnectionSignals`` body and return it as a model.

    Raises:
        InvalidInput: when any problem is an error.

    .. versionadded:: 0.1
    """
    table = _resolve(None, limits)
    read = read_body(body, table)
    warnings = _errors_raised(list(_signal_problems(read, context(table))))
    model = build(DataStoreConnectionSignals, "signals", read.value, table.TARGET)  # type: ignore[arg-type]
    return checked(model, table.TARGET, warnings)
