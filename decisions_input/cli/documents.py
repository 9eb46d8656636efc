"""Reading JSON and YAML documents (specs, schema files) strictly, with placed syntax errors."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from ..errors import Problem
from .common import one_line
from .formats import Finding
from .placing import Placer, findings_of, json_findings, placed_by_message, yaml_spots

__all__ = ["YAML_SUFFIXES", "Document", "parse_document"]

YAML_SUFFIXES = frozenset({".yaml", ".yml"})


@dataclass(frozen=True, slots=True)
class Document:
    value: Any
    place: Placer


def _syntax_finding(name: str, text: str, exc: ValueError) -> Finding:
    """Place a JSON syntax error with the library's own parser (the same on every Python)."""
    from ..jsontext import parse

    for problem in parse(text).problems:
        if problem.code in ("json.syntax", "json.trailing_data", "json.too_deep"):
            return placed_by_message(Finding(name, 1, 1, problem))
    line, col = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
    problem = Problem((), "json.syntax", f"the file is not JSON: {exc.args[0]}")
    return Finding(name, line, col, problem)


def _first_repeated_member(name: str, text: str) -> Finding | None:
    """A ``json.duplicate_key`` finding for the first member name repeated in JSON text."""
    from ..jsontext import locate_all, parse

    for problem in parse(text).problems:
        if problem.code == "json.duplicate_key":
            places = locate_all(text, problem.path)
            line, col = (places[1][0], places[1][1]) if len(places) > 1 else (1, 1)
            return Finding(name, line, col, problem)
    return None


class _RepeatedKey(Exception):
    """Stands for YAML's constructor error on a repeated mapping key (see the loader)."""


@functools.cache
def _strict_yaml_loader() -> Any:
    """A YAML SafeLoader that refuses a mapping key given twice instead of keeping the last."""
    import yaml

    class RepeatedKey(_RepeatedKey, yaml.constructor.ConstructorError):
        pass

    class StrictLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    repeated = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key; SafeLoader refuses it itself
                    continue
                if repeated:
                    raise RepeatedKey(
                        None,
                        None,
                        f"the member name {key!r} is given twice; YAML keeps only the last",
                        key_node.start_mark,
                    )
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _max_depth() -> int:
    from ..limits import GEMINI

    return GEMINI.MAX_JSON_DEPTH


def _too_deep(name: str, line: int, column: int) -> Finding:
    limit = _max_depth()
    problem = Problem((), "json.too_deep", f"expected at most {limit} levels of nesting")
    return Finding(name, line, column, problem)


def _too_deep_yaml(name: str, text: str) -> Finding | None:
    """A ``json.too_deep`` finding where YAML nests deeper than the bound, found token by token.

    PyYAML builds nested nodes recursively, so a deep document would exhaust the stack; its
    scanner is a loop, and counting the collections it opens and closes finds the place.
    """
    import yaml

    opening = (
        yaml.FlowSequenceStartToken,
        yaml.FlowMappingStartToken,
        yaml.BlockSequenceStartToken,
        yaml.BlockMappingStartToken,
    )
    closing = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken, yaml.BlockEndToken)
    limit, depth = _max_depth(), 0
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, opening):
                depth += 1
                if depth > limit:
                    return _too_deep(name, token.start_mark.line + 1, token.start_mark.column + 1)
            elif isinstance(token, closing):
                depth -= 1
    except yaml.YAMLError:
        return None  # the full reading reports the syntax error at its place
    return None


def _too_deep_json(name: str, text: str) -> Finding | None:
    """A ``json.too_deep`` finding where JSON text that parsed nests deeper than the bound,
    at the value that passes it, as the library's reader measures and places it.

    How deep ``json.loads`` goes before it runs out of stack depends on the interpreter
    (Python 3.13 reads thousands of levels); the bound does not. Text with no more opening
    brackets than the bound cannot pass it, and is not read again.
    """
    if text.count("[") + text.count("{") <= _max_depth():
        return None
    from ..jsontext import locate, parse_value

    for problem in parse_value(text)[1]:
        if problem.code == "json.too_deep":
            at = locate(text, problem.path)
            return _too_deep(name, *(at[2:] if at is not None else (1, 1)))
    return None


def _json_document(name: str, text: str, suffix: str) -> Document | Finding | None:
    """Parse JSON text; ``None`` when it is not JSON and may be YAML."""
    import json

    try:
        value = json.loads(text)
    except RecursionError:  # nesting deeper than the stack: the strict reader places it
        return _syntax_finding(name, text, ValueError("nesting too deep"))
    except ValueError as exc:
        return _syntax_finding(name, text, exc) if suffix == ".json" else None
    deep = _too_deep_json(name, text)
    if deep is not None:
        return deep
    repeat = _first_repeated_member(name, text)
    if repeat is not None:
        return repeat
    return Document(value, lambda problems: json_findings(name, text, problems))


def parse_document(name: str, text: str) -> Document | Finding:
    """Parse JSON or YAML; a syntax error becomes a ``json.syntax`` finding at its place.

    Nesting deeper than ``MAX_JSON_DEPTH`` is refused as ``json.too_deep`` before either
    reader builds it.
    """
    import yaml

    suffix = FsPath(name).suffix.lower()
    if suffix not in YAML_SUFFIXES:
        parsed = _json_document(name, text, suffix)
        if parsed is not None:
            return parsed
    deep = _too_deep_yaml(name, text)
    if deep is not None:
        return deep
    try:
        value = yaml.load(text, Loader=_strict_yaml_loader())  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        reason = one_line(getattr(exc, "problem", None) or str(exc))
        if isinstance(exc, _RepeatedKey):
            return Finding(name, line, col, Problem((), "json.duplicate_key", reason))
        problem = Problem((), "json.syntax", f"the file is neither JSON nor YAML: {reason}")
        return Finding(name, line, col, problem)
    return Document(value, lambda problems: findings_of(name, problems, yaml_spots(text)))
