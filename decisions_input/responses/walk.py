"""The structural walk: every member has its JSON type, required members are there.

The shapes are derived from the response models (:mod:`.shapes`, which states the shape
language); which members are required is ``Limits.RESPONSE_REQUIRED``.
Members a shape does not list are warnings (``response.unknown_member``), because APIs add
fields. What the walk does not know itself, answers and the checks between values, it asks
of the hooks it is given, keyed by shape name (:mod:`.invariants`, :mod:`.signals`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

from ..errors import Path, Problem
from ._common import _in_order, _is_integer, _is_number, _json_kind, _problem, _show
from .context import _Ctx

__all__: list[str] = []

# Members whose string value must come from a list in the limits table, and the code used
# when it does not: an unknown value in an open API list is a warning, in 001 an error.
_ENUMS: Mapping[tuple[str, str], tuple[str, str]] = MappingProxyType(
    {
        ("response", "mode"): ("MODES", "response.enum"),
        ("prompt_feedback", "block_reason"): ("BLOCK_REASONS", "response.enum"),
        ("modality_tokens", "modality"): ("MODALITIES", "response.enum"),
        ("grounding_tool_count", "type"): ("GROUNDING_TOOL_TYPES", "response.enum"),
        ("error_response", "type"): ("ERROR_BODY_TYPES", "response.enum"),
        ("grounding_signals", "decision"): ("GROUNDING_DECISIONS", "signals.enum"),
        ("grounding_signals", "score"): ("GROUNDING_SCORE_BUCKETS", "signals.enum"),
        ("safety_signals", "decision"): ("SAFETY_DECISIONS", "signals.enum"),
        ("safety_signals", "bannedPhraseMatch"): ("BANNED_PHRASE_MATCHES", "signals.enum"),
    }
)


def _describe(kind: str) -> str:
    if kind.endswith("?"):
        return _describe(kind[:-1]) + " or null"
    if kind.startswith("["):
        return "array"
    if kind in ("string", "number", "integer", "boolean"):
        return kind
    return "object"


def _kind_ok(value: object, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return _is_number(value)
    if kind == "integer":
        return _is_integer(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind.startswith("["):
        return isinstance(value, list)
    return isinstance(value, dict)


def _walk(value: object, path: Path, kind: str, ctx: _Ctx) -> Iterator[Problem]:
    """Check a value against a kind of the shape language (see :mod:`.shapes`)."""
    if kind.endswith("?"):
        if value is None:
            return
        kind = kind[:-1]
    if not _kind_ok(value, kind):
        yield _problem(
            path, "response.type", f"expected {_describe(kind)}, found {_json_kind(value)}"
        )
        return
    if kind.startswith("[") and isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, (*path, i), kind[1:-1], ctx)
    elif kind.startswith("{") and isinstance(value, dict):
        for name, item in value.items():
            yield from _walk(item, (*path, name), kind[1:-1], ctx)
    elif kind == "answer" and isinstance(value, dict):
        yield from ctx.hooks["answer"](value, path, ctx)
    elif kind in ctx.shapes and isinstance(value, dict):
        yield from _object(value, path, kind, ctx)


def _missing(value: dict[str, object], path: Path, shape: str, ctx: _Ctx) -> Iterator[Problem]:
    for name in ctx.required(shape):
        if name not in value:
            yield _problem(path, "response.required", f"expected member {name!r}, found none")


def _members(
    value: dict[str, object],
    path: Path,
    shape: str,
    ctx: _Ctx,
    tolerated: frozenset[str] = frozenset(),
) -> Iterator[Problem]:
    members = ctx.shape(shape)
    for name, item in value.items():
        kind = members.get(name)
        if kind is not None:
            yield from _walk(item, (*path, name), kind, ctx)
            yield from _enum(shape, name, item, (*path, name), ctx)
        elif name not in tolerated:
            yield _problem((*path, name), "response.unknown_member", f"expected no member {name!r}")


def _enum(shape: str, name: str, item: object, path: Path, ctx: _Ctx) -> Iterator[Problem]:
    entry = _ENUMS.get((shape, name))
    if entry is None or not isinstance(item, str):
        return
    limit, code = entry
    allowed: tuple[str, ...] = getattr(ctx.limits, limit)
    if item not in allowed:
        expected = ", ".join(map(repr, allowed)) or "no value"
        yield _problem(path, code, f"expected one of {expected}, found {_show(item)}")


def _object(
    value: dict[str, object],
    path: Path,
    shape: str,
    ctx: _Ctx,
    before: Iterable[Problem] = (),
    tolerated: frozenset[str] = frozenset(),
) -> Iterator[Problem]:
    """Check one object of a shape; its problems come out in document order."""
    problems = [*before, *_missing(value, path, shape, ctx)]
    problems.extend(_members(value, path, shape, ctx, tolerated))
    hook = ctx.hooks.get(shape)
    if hook is not None:
        problems.extend(hook(value, path, ctx))
    yield from _in_order(value, path, problems)
