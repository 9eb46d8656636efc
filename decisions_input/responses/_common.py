"""Small helpers shared by the response modules: problems, JSON kinds, document order."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping

from ..errors import InvalidInput, Path, Problem, Severity
from ..limits import RULES

__all__: list[str] = []

# A level index: no leading zero, and short (no rubric has a million levels), so that
# turning it into a number can never overflow.
_INDEX_KEY = re.compile(r"0|[1-9][0-9]{0,5}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_REQUEST_ID = re.compile(r"\(request id:\s*([^()\s]+)\s*\)\s*$")


def _threshold(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidInput(
            [
                _problem(
                    (), "response.threshold", f"expected a number from 0 to 1, found {_show(value)}"
                )
            ]
        )
    return float(value)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _problem(path: Path, code: str, message: str) -> Problem:
    rule = RULES.get(code)
    return Problem(path, code, message, rule.severity if rule else Severity.ERROR)


def _show(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _names(names: list[str]) -> str:
    return ", ".join(map(repr, names[:5])) + (" ..." if len(names) > 5 else "")


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: object) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def _num(mapping: Mapping[str, object], name: str) -> float | None:
    value = mapping.get(name)
    return float(value) if _is_number(value) else None  # type: ignore[arg-type]


def _str(mapping: Mapping[str, object], name: str) -> str | None:
    value = mapping.get(name)
    return value if isinstance(value, str) else None


def _dict(mapping: Mapping[str, object], name: str) -> dict[str, object] | None:
    value = mapping.get(name)
    return value if isinstance(value, dict) else None


def _list(mapping: Mapping[str, object], name: str) -> list[object] | None:
    value = mapping.get(name)
    return value if isinstance(value, list) else None


def _index_of(mapping: dict[str, object], key: str) -> int:
    for i, name in enumerate(mapping):
        if name == key:
            return i
    return sys.maxsize


def _doc_key(root: object, path: Path) -> tuple[int, ...]:
    """Position of a path in document order: member and item indexes along the way."""
    key: list[int] = []
    node = root
    for step in path:
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            key.append(_index_of(node, step))
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            key.append(step)
            node = node[step]
        else:
            key.append(sys.maxsize)
            break
    return tuple(key)


def _in_order(root: object, base: Path, problems: Iterable[Problem]) -> list[Problem]:
    depth = len(base)
    return sorted(problems, key=lambda p: _doc_key(root, p.path[depth:]))
