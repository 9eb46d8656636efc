"""Strict parsing of JSON text, with every hazard a lenient parser hides and where it is.

``json.loads`` accepts text that servers may read differently or refuse: a repeated member
name (it keeps the last value, other parsers the first), ``NaN``, a lone surrogate escape,
``1e400``. :func:`parse` reports each of them as a :class:`~decisions_input.errors.Problem`
with the JSON path where it happens, and :func:`locate` turns a path back into a line and
column for people.

Two paths, one verdict. A clean text is parsed once by the C scanner of the ``json``
module, the hazards detected on the way (:mod:`._fast`): a valid body costs about one
``json.loads``. Once the fast path has a doubt, the strict reader (:mod:`._reader`), an
exact iterative tokenizer, reads the text to explain and place every problem. The fast
path may be over-cautious, never lenient; the tests hold the two to the same verdicts,
codes and paths.

Nesting counts from the document root: the root object or array is level 1, and a text
whose containers nest deeper than ``MAX_JSON_DEPTH`` gets ``json.too_deep`` at the first
container past the bound, and no value. The validator counts the same way on a mapping.

Codes (all in :data:`decisions_input.limits.RULES`): ``json.syntax``, ``json.invalid_utf8``,
``json.bom``, ``json.encoding``, ``json.duplicate_key``, ``json.non_finite``,
``json.lone_surrogate``, ``json.number_range``, ``json.too_deep``, ``json.trailing_data``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .._types import JSON
from ..errors import DecisionsInputError, Path, Problem
from ..limits import GEMINI, Limits
from ._decode import decode
from ._fast import MISS, clean_value
from ._reader import Reader, line_columns, surrogate_offsets

__all__ = ["Location", "Parsed", "locate", "locate_all", "locate_many", "parse", "parse_value"]


class Location(NamedTuple):
    """Where a member or element is written: 1-based lines and columns in code points.

    For a member, the key position is the opening quote of its name; for an array element
    and for the root, the key position is the value position.

    .. versionadded:: 0.1
    """

    key_line: int
    key_column: int
    value_line: int
    value_column: int


@dataclass(frozen=True, slots=True)
class Parsed:
    """The result of :func:`parse`.

    ``value`` is the document as ``json.loads`` would return it (the last value of a
    repeated member name, ``NaN`` and infinities as floats, numbers beyond a double as
    ``float`` infinities or large ``int``), or None when it cannot be had: a syntax error,
    bytes that are not valid in their encoding, an integer too long for ``int()``. Text
    nesting deeper than the bound still gives its value, with ``json.too_deep`` at the
    first container past the bound, which is left empty, so the rest of a body can be
    checked. ``problems``
    lists every hazard in document order. ``text`` is the decoded text, without a byte
    order mark, that :func:`locate` takes; it is None when the bytes could not be decoded
    strictly.

    .. versionadded:: 0.1
    """

    value: JSON | None
    problems: tuple[Problem, ...]
    text: str | None


# --- the public functions ------------------------------------------------------------


def parse(data: str | bytes | bytearray | memoryview, *, limits: Limits = GEMINI) -> Parsed:
    """Parse JSON text strictly and report every hazard with its path.

    Bytes must be UTF-8; a byte order mark, UTF-16 and UTF-32 are reported and still
    decoded. A repeated member name is reported at each repeat and the last value kept.
    Problems come in document order; a problem inside a member value that a later
    repeat of the name replaces keeps its path, which then names the kept value.

    Raises:
        InvalidInput: ``data`` is not str or bytes.
        DecisionsInputError: never in practice; nothing else escapes, whatever the input.

    .. versionadded:: 0.1
    """
    value, problems, text = parse_value(data, limits=limits)
    return Parsed(value, problems, text)


def parse_value(
    data: str | bytes | bytearray | memoryview, *, limits: Limits = GEMINI
) -> tuple[JSON | None, tuple[Problem, ...], str | None]:
    """Return what :func:`parse` returns as a plain tuple: value, problems, text.

    For callers that only read the value and the problems (the validator), a clean text
    is spared building the result object.
    """
    try:
        return _parse(data, limits.MAX_JSON_DEPTH)
    except DecisionsInputError:
        raise
    except Exception as exc:  # the contract: no other exception escapes
        raise DecisionsInputError(f"could not parse the JSON text: {exc!r}") from exc


def _parse(data: object, max_depth: int) -> tuple[JSON | None, tuple[Problem, ...], str | None]:
    text, raw, head, strict = decode(data)
    if strict:
        value = clean_value(text, raw, max_depth)
        if value is not MISS:
            return value, tuple([problem for _, problem in head]) if head else (), text
    walked = Reader(text, max_depth, surrogates=surrogate_offsets(text, raw)).run()
    found = sorted(head + walked.problems, key=lambda item: item[0])
    value = walked.value if strict else None
    return value, tuple(problem for _, problem in found), text if strict else None


def locate(text: str, path: Sequence[str | int]) -> Location | None:
    """Return where the member or element at ``path`` is written in ``text``, or None.

    ``text`` is :attr:`Parsed.text`. When a member name is repeated, the last occurrence
    is returned, as it holds the value kept; :func:`locate_all` returns every one.

    .. versionadded:: 0.1
    """
    found = locate_all(text, path)
    return found[-1] if found else None


def locate_all(text: str, path: Sequence[str | int]) -> tuple[Location, ...]:
    """Return every place where a member or element at ``path`` is written, in order.

    The k-th ``json.duplicate_key`` problem of a path is written at occurrence k + 1.

    .. versionadded:: 0.1
    """
    key = tuple(path)
    return _locations(text, [key]).get(key, ())


def locate_many(text: str, paths: Iterable[Sequence[str | int]]) -> dict[Path, Location | None]:
    """Return :func:`locate` for many paths, reading ``text`` once.

    .. versionadded:: 0.1
    """
    keys = [tuple(path) for path in paths]
    found = _locations(text, keys)
    return {key: (found[key][-1] if found.get(key) else None) for key in keys}


def _locations(text: str, paths: Iterable[Path]) -> dict[Path, tuple[Location, ...]]:
    if text.startswith("\ufeff"):
        text = text[1:]
    wanted = frozenset(paths)
    if not wanted:
        return {}
    walked = Reader(text, sys.maxsize, wanted=wanted).run()
    offsets = [pos for spots in walked.index.values() for spot in spots for pos in spot]
    place = line_columns(text, offsets)
    return {
        path: tuple(Location(*place[key], *place[value]) for key, value in spots)
        for path, spots in walked.index.items()
    }
