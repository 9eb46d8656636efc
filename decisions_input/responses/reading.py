"""Reading what is given: a body into plain JSON values, and what a request asked and holds.

Response text is read by the same strict reader as request text (:mod:`decisions_input.jsontext`);
what it finds there is reported and the body is not checked further.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import DecisionsInputError, InvalidInput, Path, Problem
from ..jsontext import parse as parse_json_text
from ..limits import Limits
from ._common import _SURROGATE, _json_kind, _problem, _show, _str

__all__: list[str] = []


def _plain(value: object, path: Path, depth: int, limits: Limits, out: list[Problem]) -> object:
    """Copy a value into plain JSON types, recording what is not JSON."""
    if depth > limits.MAX_JSON_DEPTH:
        out.append(
            _problem(
                path,
                "json.too_deep",
                f"expected at most {limits.MAX_JSON_DEPTH} levels, found more",
            )
        )
        return None
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if _SURROGATE.search(value):
            out.append(
                _problem(path, "json.lone_surrogate", "expected text, found half a surrogate pair")
            )
        return str(value)
    if isinstance(value, int):
        if abs(value) > sys.float_info.max:
            out.append(_problem(path, "json.number_range", "expected a number within double range"))
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            out.append(
                _problem(path, "json.non_finite", f"expected a finite number, found {value}")
            )
        return float(value)
    if isinstance(value, Mapping):
        return _plain_object(value, path, depth, limits, out)
    if isinstance(value, (list, tuple)):
        return [_plain(item, (*path, i), depth + 1, limits, out) for i, item in enumerate(value)]
    out.append(
        _problem(path, "response.type", f"expected a JSON value, found {type(value).__name__}")
    )
    return None


def _plain_object(
    value: Mapping[object, object], path: Path, depth: int, limits: Limits, out: list[Problem]
) -> dict[str, object]:
    result: dict[str, object] = {}
    for name, item in list(value.items()):
        if not isinstance(name, str):
            out.append(
                _problem(
                    path, "response.type", f"expected string member names, found {_show(name)}"
                )
            )
            continue
        if _SURROGATE.search(name):
            out.append(
                _problem(path, "json.lone_surrogate", "expected text, found half a surrogate pair")
            )
        result[str(name)] = _plain(item, (*path, name), depth + 1, limits, out)
    return result


@dataclass(frozen=True, slots=True)
class Read:
    """A body as plain JSON values, the problems of reading it, and its HTTP status if known."""

    value: object
    problems: list[Problem]
    status: int | None = None


def read_body(body: object, limits: Limits) -> Read:
    """Read any form of body a client holds; problems of its text come back in the result.

    The forms: a mapping or other JSON value; JSON text as ``str`` or bytes; a pydantic
    model (dumped with its wire names, only the members it was given); an HTTP response
    with the body in ``.content`` and a ``.status_code`` or ``.status`` (``httpx``,
    ``requests``).
    """
    try:
        return _read(body, limits)
    except RecursionError:
        return Read(None, [_problem((), "json.too_deep", "expected less deeply nested data")])
    except DecisionsInputError:
        raise
    except Exception as exc:  # a caller's object that cannot be read
        found = type(exc).__name__
        return Read(None, [_problem((), "response.type", f"expected readable data, found {found}")])


def _read(body: object, limits: Limits) -> Read:
    status = None
    if not isinstance(body, _VALUES) and _is_model(body):
        body = body.model_dump(mode="json", by_alias=True, exclude_unset=True)  # type: ignore[attr-defined]
    elif not isinstance(body, _VALUES) and _has(body, "content"):
        status = _status(body)
        body = _content(body)
        if isinstance(body, Problem):
            return Read(None, [body], status)
    if isinstance(body, (bytearray, memoryview)):
        body = bytes(body)
    if isinstance(body, (str, bytes)):
        parsed = parse_json_text(body, limits=limits)
        if parsed.problems:
            return Read(None, list(parsed.problems), status)
        body = parsed.value
    elif not isinstance(body, _VALUES):
        expected = "expected a JSON object, JSON text, a pydantic model or an HTTP response"
        return Read(
            None, [_problem((), "response.type", f"{expected}, found {type(body).__name__}")]
        )
    problems: list[Problem] = []
    value = _plain(body, (), 0, limits, problems)
    return Read(value, problems, status)


_VALUES = (type(None), str, bytes, bytearray, memoryview, Mapping, list, tuple, int, float)


def _has(body: object, name: str) -> bool:
    """Whether an object has an attribute, without reading it (a property may raise)."""
    return hasattr(type(body), name) or name in getattr(body, "__dict__", {})


def _is_model(body: object) -> bool:
    from pydantic import BaseModel

    return isinstance(body, BaseModel)


def _status(response: object) -> int | None:
    """The HTTP status of a response object: ``status_code`` (httpx, requests) or ``status``."""
    for name in ("status_code", "status"):
        status = getattr(response, name, None)
        if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
            return status
    return None


def _content(response: object) -> object:
    """The body bytes of a response object, or the problem of reading them."""
    try:
        content = response.content  # type: ignore[attr-defined]
    except Exception as exc:  # httpx raises ResponseNotRead for a stream not read yet
        found = f"reading .content raised {type(exc).__name__}"
        return _problem((), "response.type", f"expected a response whose body was read, {found}")
    if isinstance(content, (str, bytes, bytearray, memoryview)):
        return content
    found = type(content).__name__
    return _problem((), "response.type", f"expected the body as bytes in .content, found {found}")


def _load(body: object, limits: Limits) -> tuple[object, list[Problem]]:
    """Turn a request body into plain JSON values, with the problems of its text."""
    read = read_body(body, limits)
    return read.value, read.problems


@dataclass(frozen=True, slots=True)
class _Question:
    type: str | None
    options: tuple[str, ...] | None
    levels: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class _Expect:
    questions: Mapping[str, _Question]
    include_excerpts: bool | None
    source: object = None  # the request as decisions_input.budget.estimate reads it


def _bad_request(path: Path, message: str) -> InvalidInput:
    return InvalidInput([_problem(path, "response.request", message)])


def _request_data(request: object) -> tuple[object, object]:
    """The part of a request the answer checks read, and the request as the estimate reads it.

    A :class:`~decisions_input.request.Request` is read through its skeleton (its media stay
    on disk) and estimated as itself; text is parsed once, by the caller, for both.
    """
    if isinstance(request, (str, bytes, bytearray, memoryview)):
        return request, None
    try:
        data = request
        if not isinstance(data, Mapping):
            skeleton = getattr(request, "skeleton", None)
            to_dict = skeleton if callable(skeleton) else getattr(request, "to_dict", None)
            if not callable(to_dict):
                found = type(request).__name__
                raise _bad_request((), f"expected a request mapping or to_dict(), found {found}")
            data = to_dict()
        source = request if callable(getattr(request, "skeleton", None)) else data
        if isinstance(data, Mapping):  # only what the checks read, not the media
            return {k: data[k] for k in ("questions", "include_excerpts") if k in data}, source
        return data, source
    except DecisionsInputError:
        raise
    except Exception as exc:
        found = type(exc).__name__
        raise _bad_request((), f"expected a readable request, reading it raised {found}") from exc


def _question(value: object) -> _Question:
    if not isinstance(value, dict):
        return _Question(None, None, None)
    kind = _str(value, "type")
    criteria = value.get("criteria")
    options = levels = None
    if kind == "choice" and isinstance(criteria, dict):
        options = tuple(criteria)
    if kind == "score" and isinstance(criteria, list) and all(isinstance(c, str) for c in criteria):
        levels = tuple(str(c) for c in criteria)
    return _Question(kind, options, levels)


# Problems that leave a request unreadable; odd numbers or strings inside it do not matter
# to the comparison, so they are left to the request checks.
_UNREADABLE = frozenset(
    {
        "json.syntax",
        "json.trailing_data",
        "json.invalid_utf8",
        "json.bom",
        "json.encoding",
        "json.too_deep",
        "response.type",
    }
)


def _expectations(request: object, limits: Limits) -> _Expect | None:
    if request is None:
        return None
    data, source = _request_data(request)
    value, problems = _load(data, limits)
    errors = [p for p in problems if p.code in _UNREADABLE]
    if errors:
        raise InvalidInput([_problem(p.path, "response.request", p.message) for p in errors])
    if not isinstance(value, dict):
        raise _bad_request((), f"expected the request to be an object, found {_json_kind(value)}")
    questions = value.get("questions")
    if not isinstance(questions, dict):
        raise _bad_request(
            ("questions",), f"expected a questions object, found {_json_kind(questions)}"
        )
    include = value.get("include_excerpts", True)
    return _Expect(
        MappingProxyType({k: _question(q) for k, q in questions.items()}),
        include if isinstance(include, bool) else None,
        value if source is None else source,
    )
