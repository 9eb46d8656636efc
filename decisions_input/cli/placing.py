"""Placing problems in source text: the line and column of a JSON path in JSON or YAML."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import Path, Problem
from .formats import Finding

__all__ = [
    "Located",
    "Placer",
    "Position",
    "Spots",
    "findings_of",
    "json_findings",
    "placed_by_message",
    "yaml_spots",
]

# Codes whose problem sits on a member name, not its value: reported at the key.
_KEY_CODES = frozenset(
    {
        "schema.unknown_member",
        "response.unknown_member",
        "question.key_pattern",
        "question.key_length",
        "json.duplicate_key",
    }
)


# Where a path is written: (key position, value position); for an array element or the
# root both are the value's. Spots answers that for many paths at once, leaving out the
# absent ones; a Placer turns a file's problems into findings.
Position = tuple[int, int]
Located = tuple[Position, Position]
Spots = Callable[[Collection[Path]], Mapping[Path, Located]]
Placer = Callable[[Iterable[Problem]], list[Finding]]
_AT_LINE_COLUMN = re.compile(r"\bat line (\d+) column (\d+)\b")


def _is_key_problem(problem: Problem) -> bool:
    if problem.code in _KEY_CODES:
        return True
    path = problem.path
    return (
        problem.code.startswith("option.")
        and len(path) == 4
        and path[0] == "questions"
        and path[2] in ("criteria", "options")
        and isinstance(path[3], str)
    )


def _place(problem: Problem, spots: Mapping[Path, Located]) -> Position:
    """Line and column of a problem: its key or value, else the nearest enclosing value."""
    found = spots.get(problem.path)
    if found is not None:
        return found[0] if _is_key_problem(problem) else found[1]
    for depth in range(len(problem.path) - 1, -1, -1):
        found = spots.get(problem.path[:depth])
        if found is not None:
            return found[1]
    return (1, 1)


def findings_of(name: str, problems: Iterable[Problem], spots: Spots) -> list[Finding]:
    problems = list(problems)
    wanted = {p.path[:depth] for p in problems for depth in range(len(p.path) + 1)}
    found = spots(wanted) if problems else {}
    return [Finding(name, *_place(p, found), p) for p in problems]


def _json_spots(text: str) -> Spots:
    def spots(paths: Collection[Path]) -> Mapping[Path, Located]:
        from ..jsontext import locate_many

        return {
            path: ((at.key_line, at.key_column), (at.value_line, at.value_column))
            for path, at in locate_many(text, paths).items()
            if at is not None
        }

    return spots


def placed_by_message(finding: Finding) -> Finding:
    """Move a finding to the "at line L column C" its message names, if it names one."""
    match = _AT_LINE_COLUMN.search(finding.problem.message)
    if match is None:
        return finding
    return replace(finding, line=int(match[1]), column=int(match[2]))


def json_findings(name: str, text: str | None, problems: Iterable[Problem]) -> list[Finding]:
    """Place problems in JSON text: a syntax error where it is, the k-th repeat of a name."""
    if text is None:  # the bytes could not be decoded: only the messages tell the places
        return [placed_by_message(Finding(name, 1, 1, p)) for p in problems]
    from ..jsontext import locate_all

    repeats: dict[Path, int] = {}
    out = []
    for finding in findings_of(name, problems, _json_spots(text)):
        problem = finding.problem
        if problem.code in ("json.syntax", "json.invalid_utf8"):
            finding = placed_by_message(finding)
        elif problem.code == "json.duplicate_key":
            nth = repeats[problem.path] = repeats.get(problem.path, 0) + 1
            spots = locate_all(text, problem.path)
            if nth < len(spots):
                finding = replace(finding, line=spots[nth].key_line, column=spots[nth].key_column)
        out.append(finding)
    return out


def yaml_spots(text: str) -> Spots:
    """Locate paths in YAML (or JSON) text through the node tree; marks are 0-based."""

    def spots(paths: Collection[Path]) -> Mapping[Path, Located]:
        import yaml

        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            return {}
        found = {}
        for path in paths:
            key_node, node = None, root
            for step in path:
                key_node, node = _yaml_child(node, step)
                if node is None:
                    break
            if node is not None:
                value = (node.start_mark.line + 1, node.start_mark.column + 1)
                key = key_node or node
                found[path] = ((key.start_mark.line + 1, key.start_mark.column + 1), value)
        return found

    return spots


def _yaml_child(node: Any, step: str | int) -> tuple[Any, Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        match = None
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(step):
                match = (key, value)  # the last one wins, as in the loaded value
        return match if match is not None else (None, None)
    if isinstance(node, yaml.SequenceNode):
        if isinstance(step, int):
            return (None, node.value[step]) if 0 <= step < len(node.value) else (None, None)
        for item in node.value:  # a list of names standing for a mapping (option IDs)
            if isinstance(item, yaml.ScalarNode) and item.value == step:
                return item, item
    return None, None
