"""Structural mutation of JSON values: pick a place in a body, then break it.

A mutation copies the body, picks a path (every member and item is a candidate, the root
too) and applies one operation there: replace the value, delete it, add a member, rename a
member, grow or empty a container to a limit, nest the value deeply, or set ``type`` to
something else. Drawn through hypothesis, so failures shrink to the fewest, smallest
mutations.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.values import (
    extreme_counts,
    extreme_numbers,
    extreme_strings,
    hostile_values,
    member_names,
    nest,
    nesting_depths,
    odd_strings,
    type_values,
)

__all__ = ["OPERATIONS", "Path", "copy_json", "iter_paths", "mutated", "resolve"]

Path = tuple["str | int", ...]

OPERATIONS = (
    "replace",
    "delete",
    "add_member",
    "rename",
    "grow",
    "empty",
    "nest",
    "retype",
    "string",
    "number",
)


def iter_paths(value: Any) -> list[Path]:
    """Every path in a JSON value, in document order, the root first (no recursion)."""
    paths: list[Path] = []
    stack: list[tuple[Path, Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        paths.append(path)
        if isinstance(node, dict):
            children = [((*path, k), v) for k, v in node.items()]
        elif isinstance(node, list):
            children = [((*path, i), v) for i, v in enumerate(node)]
        else:
            continue
        stack.extend(reversed(children))
    return paths


def copy_json(value: Any) -> Any:
    """Copy a JSON value without recursion, so that deeply nested values copy too."""
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, child in items:
            made = {} if isinstance(child, dict) else [] if isinstance(child, list) else child
            if isinstance(target, dict):
                target[key] = made
            else:
                target.append(made)
            if made is not child:
                stack.append((child, made))
    return root


def resolve(value: Any, path: Path) -> Any:
    """Return the node at ``path``; raise ``LookupError`` or ``TypeError`` when it is not there."""
    node = value
    for step in path:
        in_object = isinstance(node, dict) and isinstance(step, str)
        in_array = isinstance(node, list) and type(step) is int
        if not (in_object or in_array):
            raise LookupError(f"no step {step!r} in a {type(node).__name__}")
        node = node[step]
    return node


def _set(body: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    resolve(body, path[:-1])[path[-1]] = value
    return body


def _grown(node: Any, count: int) -> Any:
    if isinstance(node, list):
        items = node or [None]
        return [copy_json(items[i % len(items)]) for i in range(count)]
    if isinstance(node, dict):
        values = list(node.values()) or [None]
        grown = {f"k{i}": copy_json(values[i % len(values)]) for i in range(count)}
        return grown
    return node


def _renamed(node: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    return {(new if k == old else k): v for k, v in node.items()}


@st.composite
def _apply(draw: st.DrawFn, body: Any) -> Any:
    paths = iter_paths(body)
    path = draw(st.sampled_from(paths))
    node = resolve(body, path)
    operation = draw(st.sampled_from(OPERATIONS))
    parent = resolve(body, path[:-1]) if path else None
    if operation == "replace":
        return _set(body, path, draw(hostile_values()))
    if operation == "delete" and isinstance(parent, (dict, list)):
        del parent[path[-1]]  # type: ignore[arg-type]
        return body
    if operation == "add_member" and isinstance(node, dict):
        node[draw(member_names())] = draw(hostile_values())
        return body
    if operation == "rename" and isinstance(parent, dict):
        return _set(body, path[:-1], _renamed(parent, str(path[-1]), draw(member_names())))
    if operation == "grow":
        return _set(body, path, _grown(node, draw(extreme_counts())))
    if operation == "empty" and isinstance(node, (dict, list)):
        return _set(body, path, type(node)())
    if operation == "nest":
        kind = draw(st.sampled_from(["array", "object"]))
        return _set(body, path, nest(node, draw(nesting_depths()), kind))
    if operation == "retype":
        target = node if isinstance(node, dict) else parent
        if isinstance(target, dict):
            target["type"] = draw(type_values())
            return body
    if operation == "string":
        return _set(body, path, draw(st.one_of(odd_strings(), extreme_strings())))
    if operation == "number":
        return _set(body, path, draw(extreme_numbers()))
    return _set(body, path, draw(hostile_values()))


@st.composite
def _mutated(draw: st.DrawFn, bodies: st.SearchStrategy[Any], most: int) -> Any:
    body = copy_json(draw(bodies))
    for _ in range(draw(st.integers(0, most))):
        body = draw(_apply(body))
    return body


def mutated(bodies: st.SearchStrategy[Any], *, most: int = 3) -> st.SearchStrategy[Any]:
    """Bodies drawn from ``bodies``, then broken by up to ``most`` mutations (0: left valid)."""
    return _mutated(bodies, most)
