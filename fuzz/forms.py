"""The three forms of one JSON input (mapping, ``str``, ``bytes``) and when they compare.

The library takes a body as a parsed value or as JSON text. Text says more than the value
it parses to (repeated member names, NaN, lone surrogate escapes, a fraction or exponent
beyond a double, which parses to infinity, a BOM), so the verdicts on text and on the value
are compared only when the text says nothing of the kind: then the two must agree exactly.
An integer beyond a double is no such thing: the value holds it exactly, and must be refused
as the text is. ``str`` and ``bytes`` of the same text always compare.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fuzz.tree import resolve

__all__ = ["Forms", "Members", "forms_of", "has_surrogate", "text_of"]

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Forms:
    """The forms an input can be given in, and whether the value stands for the text.

    ``value`` is what Python's lenient ``json.loads`` makes of the text (None with
    ``parsed`` False when it cannot); ``clean`` is True when the text holds nothing the
    value loses, so that the mapping form must get the verdict the text gets. When a name
    is repeated in an object, ``members`` holds every member of every object as
    :class:`Members` (the value keeps only the last of each name).
    """

    data: bytes
    text: str | None
    parsed: bool
    value: Any
    clean: bool
    members: Any = None

    def in_text(self, path: Sequence[str | int]) -> bool:
        """True when the path leads to a place in the text, through any repeated member."""
        if self.members is None:
            return _resolves(self.value, path)
        places = [self.members]
        for step in path:
            places = [child for place in places for child in _children(place, step)]
        return bool(places)

    def items(self) -> list[tuple[str, Any]]:
        """(name, body) of every form the input has: ``bytes``, ``str``, ``mapping``."""
        found: list[tuple[str, Any]] = [("bytes", self.data)]
        if self.text is not None:
            found.append(("str", self.text))
        if self.parsed and not isinstance(self.value, str):
            # A string value would be read as JSON text again: it is not a mapping form.
            found.append(("mapping", self.value))
        return found


class Members(list[tuple[str, Any]]):
    """The members of one object in text order, repeated names included."""


def _children(node: Any, step: str | int) -> list[Any]:
    if isinstance(node, Members) and isinstance(step, str):
        return [value for name, value in node if name == step]
    if isinstance(node, list) and not isinstance(node, Members) and type(step) is int:
        return [node[step]] if -len(node) <= step < len(node) else []
    return []


def _resolves(value: Any, path: Sequence[str | int]) -> bool:
    try:
        resolve(value, tuple(path))
    except (LookupError, TypeError):
        return False
    return True


def has_surrogate(value: Any) -> bool:
    """True when any string or member name in the value holds a lone surrogate."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


class _Hazards:
    """Hooks for ``json.loads`` that note what the parsed value would not show."""

    def __init__(self) -> None:
        self.found: set[str] = set()

    def pairs(self, items: list[tuple[str, Any]]) -> dict[str, Any]:
        names = [name for name, _ in items]
        if len(set(names)) != len(names):
            self.found.add("duplicate member")
        return dict(items)

    def constant(self, name: str) -> float:
        self.found.add("non-finite number")
        return float(name)

    def number(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self.found.add("number beyond a double")
        return value


def forms_of(data: bytes) -> Forms:
    """Work out the forms of an input given as bytes."""
    try:
        text: str | None = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None:
        return Forms(data, None, False, None, False)
    hazards = _Hazards()
    try:
        value = json.loads(
            text,
            object_pairs_hook=hazards.pairs,
            parse_constant=hazards.constant,
            parse_float=hazards.number,
        )
    except (ValueError, RecursionError):
        return Forms(data, text, False, None, False)
    clean = not hazards.found and not has_surrogate(value)
    members = None
    if "duplicate member" in hazards.found:
        members = json.loads(text, object_pairs_hook=Members, parse_constant=float)
    return Forms(data, text, True, value, clean, members)


def text_of(value: Any) -> bytes:
    """JSON text of a generated value, UTF-8; lone surrogates are written as escapes."""
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("ascii")
