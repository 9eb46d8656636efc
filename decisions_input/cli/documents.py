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


def parse_document(name: str, text: str) -> Document | Finding:
    """Parse JSON or YAML; a syntax error becomes a ``json.syntax`` finding at its place."""
    import json

    import yaml

    suffix = FsPath(name).suffix.lower()
    if suffix not in YAML_SUFFIXES:
        try:
            value = json.loads(text)
        except ValueError as exc:
            if suffix == ".json":
                return _syntax_finding(name, text, exc)
        else:
            repeat = _first_repeated_member(name, text)
            if repeat is not None:
                return repeat
            return Document(value, lambda problems: json_findings(name, text, problems))
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
