"""Specs: the YAML or JSON a request is built from, turned into a request and its problems.

Problems come from the library's builders with paths in the request; each is mapped back to
the spec's own names (``options``, ``levels``, the media key) so it can be placed in the spec.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, Path, Problem, Severity, SourceError
from ..limits import Limits
from .common import Streams, UsageError, display, targets, type_name
from .documents import Document, parse_document
from .files import read_file
from .formats import Finding

if TYPE_CHECKING:
    from ..questions import Question
    from ..request import Request

__all__ = ["Spec", "assemble", "read_spec"]

_SPEC_MEMBERS = ("target", "model", "mode", "include_excerpts", "state", "input", "questions")
_MEDIA_KINDS = ("image", "audio", "video", "document", "media")
_BLOCK_KINDS = ("text", *_MEDIA_KINDS)
_MEDIA_OPTIONS = ("mime_type", "resolution")
_QUESTION_MEMBERS: Mapping[str, tuple[str, ...]] = {
    "noul": ("type", "instructions", "true_description", "false_description"),
    "choice": ("type", "instructions", "options"),
    "score": ("type", "instructions", "levels"),
}


_CRITERIA_NAME = {"choice": "options", "score": "levels"}
_NOUL_NAMES = ("true_description", "false_description")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    doc: Document
    base: FsPath


def read_spec(name: str, streams: Streams, *, max_bytes: int | None) -> Spec:
    """Read and parse a spec file (or standard input); media paths are relative to its folder."""
    data = read_file(name, kind="spec", max_bytes=max_bytes, streams=streams)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {name}: not UTF-8 text") from exc
    shown = display(name)
    doc = parse_document(shown, text)
    if isinstance(doc, Finding):
        raise UsageError(f"{shown}:{doc.line}:{doc.column}: {doc.problem.message}")
    base = FsPath.cwd() if name == "-" else FsPath(name).resolve().parent
    return Spec(shown, doc, base)


def _prefixed(prefix: Path, problems: Iterable[Problem]) -> list[Problem]:
    return [replace(p, path=(*prefix, *p.path)) for p in problems]


def _problem(path: Path, code: str, message: str) -> Problem:
    return Problem(path, code, message)


def _unknown_members(value: Mapping[Any, Any], allowed: Sequence[str], at: Path) -> list[Problem]:
    return [
        _problem(
            (*at, str(k)),
            "schema.unknown_member",
            f"unknown member {str(k)!r}; expected " + ", ".join(allowed),
        )
        for k in value
        if k not in allowed
    ]


def _text_block(value: Any, limits: Limits) -> Any:
    from ..blocks import text

    return text(value, limits=limits)


def _media_block(kind: str, item: Mapping[str, Any], base: FsPath, limits: Limits) -> Any:
    import inspect

    from .. import blocks

    builder = getattr(blocks, kind, None)
    if not callable(builder):
        raise UsageError(
            f"{kind} blocks cannot be built by this version: decisions_input.blocks has no "
            f"{kind}() builder"
        )
    where = item[kind]
    if not isinstance(where, str) or not where:
        raise InvalidInput([_problem((kind,), "schema.type", "expected a path or an https URL")])
    accepted = inspect.signature(builder).parameters
    taken = [k for k in item if k == kind or k in accepted]
    problems = _unknown_members(item, taken, ())  # e.g. a resolution for audio
    options = {k: item[k] for k in _MEDIA_OPTIONS if k in taken and item[k] is not None}
    if "limits" in accepted:
        options["limits"] = limits
    source = (None, {"uri": where}) if _URI.match(where) else (base / where, {})
    block = None
    try:
        block = builder(source[0], **source[1], **options)
    except InvalidInput as exc:
        problems += exc.problems
    except SourceError as exc:  # missing, not a regular file, unreadable: the spec's problem
        problems.append(_unreadable(kind, where, source[0], exc))
    if problems or block is None:
        raise InvalidInput(problems)
    return block


def _unreadable(kind: str, where: str, path: FsPath | None, exc: SourceError) -> Problem:
    from .files import why

    reason = why(exc, str(path))
    return _problem((kind,), "source.unreadable", f"cannot read {where} ({path}): {reason}")


def _api_form(item: dict[Any, Any]) -> dict[Any, Any]:
    """Turn an input item in the API's own form (``type: image``, ``uri: ...``) into a spec's.

    Raises ``InvalidInput`` for what a spec cannot take from it: an unknown type, inline
    ``data`` (a spec names the file instead), a media block without ``uri``.
    """
    kind = item["type"]
    rest = {k: v for k, v in item.items() if k != "type"}
    if kind == "text":
        return rest
    if not isinstance(kind, str) or kind not in _MEDIA_KINDS or kind == "media":
        expected = ", ".join(k for k in _BLOCK_KINDS if k != "media")
        message = f"expected a block type of {expected}, found {kind!r}"
        raise InvalidInput([_problem(("type",), "input.block_type", message)])
    if "data" in rest:
        message = (
            f"inline data is not read from a spec; name the file instead, as '{kind}: "
            "path/to/file' (the path is read relative to the spec)"
        )
        raise InvalidInput([_problem(("data",), "schema.unknown_member", message)])
    if "uri" not in rest:
        message = f"member 'uri' is required in a {kind} block given with 'type'"
        raise InvalidInput([_problem((), "schema.required", message)])
    return {kind: rest.pop("uri"), **rest}


def _build_block(item: Any, base: FsPath, limits: Limits) -> Any:
    if isinstance(item, str):
        return _text_block(item, limits)
    if not isinstance(item, dict):
        found = type_name(item)
        raise InvalidInput(
            [_problem((), "schema.type", f"expected text or a mapping, found {found}")]
        )
    if "type" in item:  # the API's own form
        item = _api_form(item)
    kinds = [k for k in _BLOCK_KINDS if k in item]
    if len(kinds) != 1:
        message = "expected exactly one of " + ", ".join(_BLOCK_KINDS)
        found = " and ".join(kinds) if kinds else "none"
        raise InvalidInput([_problem((), "schema.required", f"{message}; found {found}")])
    kind = kinds[0]
    allowed = (kind,) if kind == "text" else (kind, *_MEDIA_OPTIONS)
    unknown = _unknown_members(item, allowed, ())
    if unknown:
        raise InvalidInput(unknown)
    if kind == "text":
        return _text_block(item["text"], limits)
    return _media_block(kind, item, base, limits)


def _build_input(value: Any, base: FsPath, limits: Limits) -> tuple[Any, list[Problem]]:
    """Build the input blocks; return them and every problem, errors and warnings alike."""
    if not isinstance(value, list):
        return value, []
    blocks: list[Any] = []
    problems: list[Problem] = []
    for index, item in enumerate(value):
        try:
            block = _build_block(item, base, limits)
        except InvalidInput as exc:
            problems.extend(_prefixed(("input", index), exc.problems))
            continue
        blocks.append(block)
        found = getattr(block, "warnings", ())
        problems.extend(_prefixed(("input", index), found if isinstance(found, tuple) else ()))
    return blocks, problems


def _instructions(value: Any, limits: Limits) -> Any:
    if not isinstance(value, list):
        return value
    blocks: list[Any] = []
    problems: list[Problem] = []
    for index, item in enumerate(value):
        text = item.get("text") if isinstance(item, dict) and item.get("type") == "text" else item
        try:
            blocks.append(_text_block(text, limits))
        except InvalidInput as exc:
            problems.extend(_prefixed((index,), exc.problems))
    if problems:
        raise InvalidInput(_prefixed(("instructions",), problems))
    return blocks


def _option_key_problems(options: Any) -> list[Problem]:
    if not isinstance(options, dict):
        return []
    return [
        _problem(
            ("options", str(k)),
            "schema.type",
            f"expected an option ID string, found {type(k).__name__} {k!r}; quote it in YAML",
        )
        for k in options
        if not isinstance(k, str)
    ]


def _build_question(value: Any, limits: Limits) -> Question:
    if not isinstance(value, dict):
        found = type_name(value)
        raise InvalidInput([_problem((), "schema.type", f"expected a mapping, found {found}")])
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _QUESTION_MEMBERS:
        expected = ", ".join(_QUESTION_MEMBERS)
        at: Path = ("type",) if "type" in value else ()
        code = "question.type" if "type" in value else "schema.required"
        raise InvalidInput([_problem(at, code, f"expected a type of {expected}, found {kind!r}")])
    problems = _unknown_members(value, (*_QUESTION_MEMBERS[kind], "criteria"), ())
    value, aliased = _criteria(kind, value)
    problems += aliased
    problems += _option_key_problems(value.get("options"))
    try:
        question = _question(kind, value, limits)
    except InvalidInput as exc:
        problems += exc.problems
    else:
        problems += question.warnings if problems else ()
    if problems:
        raise InvalidInput(problems)
    return question


def _criteria(kind: str, value: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """Read ``criteria``, the API's own name, as the spec's ``options``, ``levels`` or the
    noul descriptions; a question that gives both forms gets a problem at the spec's name."""
    if "criteria" not in value:
        return value, []
    criteria = value["criteria"]
    rest = {k: v for k, v in value.items() if k != "criteria"}
    names = _NOUL_NAMES if kind == "noul" else (_CRITERIA_NAME[kind],)
    given = [n for n in names if n in rest]
    if given:
        message = (
            f"{' and '.join(map(repr, given))} and 'criteria' (the API's name) say the same; "
            "keep one"
        )
        return rest, [_problem((given[0],), "schema.unknown_member", message)]
    if kind != "noul":
        return {**rest, names[0]: criteria}, []
    if not isinstance(criteria, dict):
        found = type_name(criteria)
        message = f"expected a mapping of true_description and false_description, found {found}"
        return rest, [_problem(("criteria",), "schema.type", message)]
    problems = _unknown_members(criteria, names, ("criteria",))
    return {**rest, **{n: criteria[n] for n in names if n in criteria}}, problems


def _question(kind: str, value: Mapping[str, Any], limits: Limits) -> Question:
    from .. import questions

    instructions = _instructions(value.get("instructions"), limits)
    if kind == "noul":
        return questions.noul(
            instructions,
            true_description=value.get("true_description"),
            false_description=value.get("false_description"),
            limits=limits,
        )
    if kind == "choice":
        options = value.get("options")
        if isinstance(options, dict):
            options = {k: v for k, v in options.items() if isinstance(k, str)}
        return questions.choice(instructions, _required(value, "options", options), limits=limits)
    return questions.score(
        instructions, _required(value, "levels", value.get("levels")), limits=limits
    )


def _required(value: Mapping[str, Any], name: str, member: Any) -> Any:
    if name not in value:
        raise InvalidInput([_problem((), "schema.required", f"member {name!r} is required")])
    return member


def _question_path(question: Any, rest: Path) -> Path:
    """Map a path below a request question to the spec's names for it."""
    if not rest or rest[0] != "criteria" or not isinstance(question, dict):
        return rest
    kind = question.get("type")
    spec_name = _CRITERIA_NAME.get(kind) if isinstance(kind, str) else None
    spec_names = _NOUL_NAMES if kind == "noul" else (spec_name,)
    if "criteria" in question and not any(n in question for n in spec_names):
        return rest  # written with the API's name
    if kind == "noul":
        return rest[1:]
    return (spec_name or "criteria", *rest[1:])


def _build_questions(value: Any, limits: Limits) -> tuple[Any, list[Problem]]:
    if not isinstance(value, dict):
        return value, []
    built: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, question in value.items():
        if not isinstance(key, str):
            message = f"expected a question key string, found {type(key).__name__} {key!r}"
            problems.append(_problem(("questions", str(key)), "schema.type", message))
            continue
        try:
            built[key] = _build_question(question, limits)
        except InvalidInput as exc:
            problems.extend(_prefixed(("questions", key), exc.problems))
    return built, problems


def _spec_path(spec: Mapping[str, Any], path: Path) -> Path:
    """Map a path in the built request to the place in the spec that produced it."""
    if len(path) >= 2 and path[0] == "questions":
        questions = spec.get("questions")
        question = questions.get(path[1]) if isinstance(questions, dict) else None
        return (*path[:2], *_question_path(question, path[2:]))
    if len(path) >= 3 and path[0] == "input" and isinstance(path[1], int):
        items = spec.get("input")
        item = items[path[1]] if isinstance(items, list) and path[1] < len(items) else None
        if isinstance(item, str):
            return path[:2]
        if isinstance(item, dict) and "type" in item:  # the API's own form: as written
            kind = item["type"]
            if path[2] in ("data", kind) and kind != "text" and "uri" in item:
                return (*path[:2], "uri")
            return path
        kinds = [k for k in _BLOCK_KINDS if isinstance(item, dict) and k in item]
        if kinds and path[2] in ("data", "uri", "text"):
            return (*path[:2], kinds[0])
    return path


def _spec_target(spec: Mapping[str, Any], override: str | None) -> tuple[str, list[Problem]]:
    if override is not None:
        return override, []
    target = spec.get("target", "gemini")
    names = targets()
    if target in names:
        return str(target), []
    message = f"expected target {' or '.join(map(repr, names))}, found {target!r}"
    return "gemini", [_problem(("target",), "target.unknown", message)]


def assemble(spec: Any, base: FsPath, override: str | None) -> tuple[Request | None, list[Problem]]:
    """Build the request a spec describes; return it (or None) and its problems.

    Problems come from the builders and from ``Request`` with paths in the request; each
    path is then mapped to the spec's names (``options``, ``levels``, the media key).
    """
    from ..limits import limits_for
    from ..request import Request

    if not isinstance(spec, dict):
        message = f"expected a mapping, found {type_name(spec)}"
        return None, [_problem((), "schema.type", message)]
    target, problems = _spec_target(spec, override)
    limits = limits_for(target)
    problems += _unknown_members(spec, _SPEC_MEMBERS, ())
    blocks, found = _build_input(spec.get("input"), base, limits)
    problems += found
    questions, found = _build_questions(spec.get("questions"), limits)
    problems += found
    request = None
    if not any(p.severity is Severity.ERROR for p in problems):
        options = {k: spec[k] for k in ("model", "state", "mode", "include_excerpts") if k in spec}
        if "input" in spec:
            options["input"] = blocks
        try:
            request = Request(questions=questions, target=target, limits=limits, **options)
        except InvalidInput as exc:
            problems += exc.problems
        else:
            problems += request.warnings
    return request, [replace(p, path=_spec_path(spec, p.path)) for p in problems]
