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
from dataclasses import dataclass
from typing import Any

__all__ = ["Forms", "forms_of", "has_surrogate", "text_of"]

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Forms:
    """The forms an input can be given in, and whether the value stands for the text.

    ``value`` is what Python's lenient ``json.loads`` makes of the text (None with
    ``parsed`` False when it cannot); ``clean`` is True when the text holds nothing the
    value loses, so that the mapping form must get the verdict the text gets.
    """

    data: bytes
    text: str | None
    parsed: bool
    value: Any
    clean: bool

    def items(self) -> list[tuple[str, Any]]:
        """(name, body) of every form the input has: ``bytes``, ``str``, ``mapping``."""
        found: list[tuple[str, Any]] = [("bytes", self.data)]
        if self.text is not None:
            found.append(("str", self.text))
        if self.parsed and not isinstance(self.value, str):
            # A string value would be read as JSON text again: it is not a mapping form.
            found.append(("mapping", self.value))
        return found


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
    return Forms(data, text, True, value, clean)


def text_of(value: Any) -> bytes:
    """JSON text of a generated value, UTF-8; lone surrogates are written as escapes."""
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("ascii")
