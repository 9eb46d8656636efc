"""Strict parsing of JSON text, with every hazard a lenient parser hides and where it is.

``json.loads`` accepts text that servers may read differently or refuse: a repeated member
name (it keeps the last value, other parsers the first), ``NaN``, a lone surrogate escape,
``1e400``. :func:`parse` reports each of them as a :class:`~decisions_input.errors.Problem`
with the JSON path where it happens, and :func:`locate` turns a path back into a line and
column for people.

How it stays fast: a clean document is parsed once by the C scanner of the ``json``
module, with hooks that raise on a hazard, after a few scans at C speed (hops from one
backslash or bracket to the next, ``bytes.translate``). Any doubt sends the text to the
exact tokenizer of this module: it is iterative, so no nesting depth can exhaust the
stack, and it hands the subtrees that are free of hazards back to the C scanner.

Codes (all in :data:`decisions_input.limits.RULES`): ``json.syntax``, ``json.invalid_utf8``,
``json.bom``, ``json.encoding``, ``json.duplicate_key``, ``json.non_finite``,
``json.lone_surrogate``, ``json.number_range``, ``json.too_deep``, ``json.trailing_data``.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .._types import JSON
from ..errors import DecisionsInputError, Path, Problem
from ..limits import GEMINI, Limits
from ._decode import decode
from ._fast import _MISS, _fast, _surrogate_offsets
from ._reader import _Tokenizer

__all__ = ["Location", "Parsed", "locate", "locate_all", "locate_many", "parse"]

_newlines = re.compile("\n").finditer


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
    nesting deeper than the bound, bytes that are not valid in their encoding, an integer
    too long for ``int()``. ``problems`` lists every hazard in document order. ``text`` is
    the decoded text, without a byte order mark, that :func:`locate` takes; it is None
    when the bytes could not be decoded strictly.

    .. versionadded:: 0.1
    """

    value: JSON | None
    problems: tuple[Problem, ...]
    text: str | None


# --- the fast path -------------------------------------------------------------------
#
# Two routes, both exact: a hazard is never let through, a doubt sends the text to the
# tokenizer. Surrogate escapes and code points are looked for first, then:
# * Texts with few brackets (short ones, base64 media, long prose) go through the C
#   scanner with a hook on each object that compares its pairs with the dict they make,


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
    try:
        return _parse(data, limits.MAX_JSON_DEPTH)
    except DecisionsInputError:
        raise
    except Exception as exc:  # the contract: no other exception escapes
        raise DecisionsInputError(f"could not parse the JSON text: {exc!r}") from exc


def _parse(data: object, max_depth: int) -> Parsed:
    text, raw, head, strict = decode(data)
    if strict:
        value = _fast(text, raw, max_depth)
        if value is not _MISS:
            return Parsed(value, tuple([problem for _, problem in head]) if head else (), text)
    walked = _Tokenizer(text, max_depth, surrogates=_surrogate_offsets(text, raw)).run()
    found = sorted(head + walked.problems, key=lambda item: item[0])
    value = walked.value if strict else None
    return Parsed(value, tuple(problem for _, problem in found), text if strict else None)


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
    walked = _Tokenizer(text, sys.maxsize, wanted=wanted).run()
    starts = [0] + [match.end() for match in _newlines(text)]

    def place(pos: int) -> tuple[int, int]:
        line = bisect_right(starts, pos)
        return line, pos - starts[line - 1] + 1

    return {
        path: tuple(Location(*place(key), *place(value)) for key, value in spots)
        for path, spots in walked.index.items()
    }
