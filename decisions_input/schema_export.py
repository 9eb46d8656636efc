"""Export a self-contained JSON Schema (draft 2020-12) of a request or response body.

Editors (VS Code ``json.schemas``), SchemaStore and ``check-jsonschema`` read JSON Schema,
not OpenAPI. :func:`json_schema` builds one from the bundled OpenAPI document of a target:
the body's schema at the root, every schema it reaches under ``$defs``, OpenAPI's own
keywords (``discriminator``, ``example``) left out. Then the limits table is written into it
as far as JSON Schema can state a rule: model names, question, option and level counts,
key and option-ID lengths and characters, MIME types and resolutions per block, canonical
base64, the https scheme of a URI, non-blank input, the instruction forms of the target.

The schema never refuses what the validator accepts: where a rule is a warning in the
validator (a response enum the API may extend) the schema leaves the value open, and
rules it cannot state (sniffed bytes, the budget, the total of inline data, hosts) are
left to :func:`~decisions_input.validate.iter_problems`. Patterns use only what ECMA-262
and Python's ``re`` read alike: no ``\\s``, ``\\d`` or ``\\p{…}``, and characters outside
the Basic Multilingual Plane are not named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

from .checks import FORMAT_CHARS, WHITE_SPACE
from .limits import Limits, limits_for

__all__ = ["SchemaKind", "json_schema"]

SchemaKind = Literal["request", "response"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_OPENAPI_ONLY = frozenset({"discriminator", "example", "xml", "externalDocs"})
_REF_PREFIX = "#/components/schemas/"
_DATA_KEYWORDS = frozenset({"enum", "const", "examples", "default"})
_BASE64 = (
    "^(?:[A-Za-z0-9+/]{4})*"
    "(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)$"
)
# The scheme in any case (lower case is only a warning), an authority without user
# information, and none of the characters the URI check refuses.
_URI_BAD = "\\x00-\\x20\\x7f-\\xa0\\\\"
_HTTPS_URI = f"^[Hh][Tt][Tt][Pp][Ss]://[^/?#@{_URI_BAD}]+(?:[/?#][^{_URI_BAD}]*)?$"


def json_schema(
    target: str = "gemini", *, kind: SchemaKind = "request", limits: Limits | None = None
) -> dict[str, Any]:
    """Return a new, self-contained JSON Schema (draft 2020-12) of a target's body.

    ``kind`` is ``"request"`` or ``"response"`` (the success body). ``limits`` (default:
    the target's table) supplies the counts, lengths, names and enums, so a derived table
    gives a schema that accepts what it relaxes.

    Raises:
        InvalidInput: ``target.unknown``.
        ValueError: ``kind`` is neither ``"request"`` nor ``"response"``.
        SchemaError: the bundled document cannot be read.

    .. versionadded:: 0.1
    """
    from .schemas import load  # on first use: importing the package loads no schema code

    table = limits if limits is not None else limits_for(target)
    if kind not in ("request", "response"):
        raise ValueError(f"expected kind 'request' or 'response', found {kind!r}")
    doc = load("parallel" if table.TARGET == "parallel" else "gemini")
    root = _root_component(doc, table, kind)
    defs = {
        name: _plain_schema(schema)
        for name, schema in doc.get("components", {}).get("schemas", {}).items()
    }
    for overlay in _REQUEST_OVERLAYS if kind == "request" else _RESPONSE_OVERLAYS:
        overlay(defs, table)
    defs = {name: _typed_unions(schema) for name, schema in defs.items()}
    info = doc.get("info", {})
    return {
        "$schema": _DIALECT,
        "$id": f"urn:decisions-input:{table.TARGET}:{kind}",
        "title": f"{info.get('title', table.TARGET)} {kind} body",
        "description": f"The {kind} body of POST {table.API_PATH}.",
        "$ref": f"#/$defs/{root}",
        "$defs": {name: defs[name] for name in sorted(_reachable(defs, root))},
    }


def _root_component(doc: dict[str, Any], limits: Limits, kind: SchemaKind) -> str:
    operation = doc["paths"][limits.API_PATH]["post"]
    holder = operation["requestBody"] if kind == "request" else operation["responses"]["200"]
    ref = holder["content"]["application/json"]["schema"]["$ref"]
    return str(ref).removeprefix(_REF_PREFIX)


def _plain_schema(node: Any) -> Any:
    """Copy a Schema Object with local refs moved to ``$defs`` and OpenAPI keywords left out."""
    if isinstance(node, dict):
        if isinstance(node.get("discriminator"), dict) and "oneOf" in node:
            node = _tagged_union(node)
        out = {}
        for key, value in node.items():
            if key in _OPENAPI_ONLY or (key == "format" and value == "uri"):
                continue  # a URI is stated by a pattern below; "uri" formats differ by tool
            if key == "$ref" and isinstance(value, str) and value.startswith(_REF_PREFIX):
                value = "#/$defs/" + value.removeprefix(_REF_PREFIX)
            out[key] = value if key in _DATA_KEYWORDS else _plain_schema(value)
        return out
    if isinstance(node, list):
        return [_plain_schema(item) for item in node]
    return node


def _tagged_union(node: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a discriminated ``oneOf`` as ``if``/``then`` on the tag.

    Both accept the same bodies; with the tag deciding the branch, a validator or an
    editor reports an error inside the chosen branch instead of "matches no branch".
    """
    tag = node["discriminator"].get("propertyName")
    mapping = node["discriminator"].get("mapping")
    if not isinstance(tag, str) or not isinstance(mapping, dict) or not mapping:
        return {k: v for k, v in node.items() if k != "discriminator"}
    rest = {k: v for k, v in node.items() if k not in ("oneOf", "discriminator")}
    return {
        **rest,
        "type": "object",
        "required": [tag],
        "properties": {tag: {"enum": list(mapping)}},
        "allOf": [
            {
                "if": {"properties": {tag: {"const": value}}, "required": [tag]},
                "then": {"$ref": ref},
            }
            for value, ref in mapping.items()
        ],
    }


def _typed_unions(node: Any) -> Any:
    """Rewrite a ``oneOf`` whose branches differ by JSON type as ``if``/``then`` on the type.

    The branches exclude each other, so both accept the same values; an error is then
    reported inside the branch of the value's type instead of as "matches no branch".
    """
    if isinstance(node, list):
        return [_typed_unions(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: v if k in _DATA_KEYWORDS else _typed_unions(v) for k, v in node.items()}
    branches = out.get("oneOf")
    if not isinstance(branches, list):
        return out
    kinds = [b.get("type") if isinstance(b, dict) else None for b in branches]
    if (
        not kinds
        or "type" in out
        or not all(isinstance(k, str) for k in kinds)
        or len(set(kinds)) != len(kinds)
        or {"number", "integer"} <= set(kinds)
    ):
        return out
    del out["oneOf"]
    out["type"] = kinds
    out["allOf"] = [
        *out.get("allOf", []),
        *(
            {"if": {"type": kind}, "then": branch}
            for kind, branch in zip(kinds, branches, strict=True)
        ),
    ]
    return out


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                yield value.removeprefix("#/$defs/")
            elif key not in _DATA_KEYWORDS:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _reachable(defs: dict[str, Any], root: str) -> set[str]:
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        todo.extend(_refs(defs[name]))
    return seen


# --- character classes ---------------------------------------------------------------------


def _class_body(chars: str) -> str:
    """Write characters of the Basic Multilingual Plane as a regex class body of escapes."""
    points = sorted({ord(c) for c in chars if ord(c) <= 0xFFFF})
    runs: list[tuple[int, int]] = []
    for point in points:
        if runs and runs[-1][1] == point - 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs)


def _bmp_format_chars() -> str:
    """The format characters the option check refuses, those of the BMP only."""
    found: list[str] = []
    for first, last in re.findall(r"(.)(?:-(.))?", FORMAT_CHARS):
        end = ord(last or first)
        found.extend(chr(p) for p in range(ord(first), min(end, 0xFFFF) + 1))
    return "".join(found)


def _option_id_pattern() -> str:
    """Controls, white space other than the space, and format characters nowhere; no white
    space at either end (only the space is left to check there)."""
    controls = "".join(map(chr, [*range(0x20), *range(0x7F, 0xA0)]))
    bad = _class_body(controls + "".join(WHITE_SPACE - {" "}) + _bmp_format_chars())
    return f"^(?![\\s\\S]*[{bad}])[^ ](?:[\\s\\S]*[^ ])?$"


def _non_blank_pattern() -> str:
    """Some character that is not white space (the validator's own test takes even more)."""
    return f"[^{_class_body(''.join(WHITE_SPACE))}]"


# --- request overlays ----------------------------------------------------------------------

_Overlay = Callable[[dict[str, Any], Limits], None]


def _each(defs: dict[str, Any], *names: str) -> Iterator[dict[str, Any]]:
    for name in names:
        if isinstance(defs.get(name), dict):
            yield defs[name]


def _models(defs: dict[str, Any], limits: Limits) -> None:
    names = set(limits.MODELS)
    names |= {prefix + model for prefix in limits.MODEL_PREFIXES for model in limits.MODELS}
    for schema in _each(defs, "DecisionRequest"):
        schema["properties"]["model"] = {
            **schema["properties"]["model"],
            "type": "string",
            "enum": sorted(names),
        }


def _question_map(schema: dict[str, Any], limits: Limits) -> None:
    longest = "" if limits.MAX_QUESTION_KEY_CHARS is None else limits.MAX_QUESTION_KEY_CHARS
    schema["minProperties"] = limits.MIN_QUESTIONS
    schema["maxProperties"] = limits.MAX_QUESTIONS
    schema["propertyNames"] = {
        **schema.get("propertyNames", {}),
        "type": "string",
        "pattern": (
            f"^[{limits.QUESTION_KEY_CHARS}]{{{limits.MIN_QUESTION_KEY_CHARS},{longest}}}$"
        ),
    }


def _questions(defs: dict[str, Any], limits: Limits) -> None:
    for schema in _each(defs, "Questions"):
        _question_map(schema, limits)
    for schema in _each(defs, "GroundedDecisionRequest"):
        _question_map(schema["properties"]["questions"], limits)
        if "mode" in schema["properties"]:
            mode = {k: v for k, v in schema["properties"]["mode"].items() if k != "const"}
            schema["properties"]["mode"] = {**mode, "type": "string", "enum": list(limits.MODES)}


def _criteria(defs: dict[str, Any], limits: Limits) -> None:
    for schema in _each(defs, "ChoiceCriteria"):
        schema["minProperties"] = limits.MIN_OPTIONS
        schema["maxProperties"] = limits.MAX_OPTIONS
    for schema in _each(defs, "OptionId"):
        schema["minLength"] = limits.MIN_OPTION_ID_CHARS
        schema["maxLength"] = limits.MAX_OPTION_ID_CHARS
        schema["pattern"] = _option_id_pattern()
    for schema in _each(defs, "ScoreCriteria"):
        schema["minItems"] = limits.MIN_LEVELS
        schema["maxItems"] = limits.MAX_LEVELS
        schema["items"] = {**schema.get("items", {}), "type": "string", "minLength": 1}


def _instructions(defs: dict[str, Any], limits: Limits) -> None:
    forms = {"string": "string", "block": "object", "blocks": "array"}
    allowed = {forms[f] for f in limits.INSTRUCTION_FORMS}
    for schema in _each(defs, "Instructions"):
        schema["oneOf"] = [b for b in schema["oneOf"] if b.get("type") in allowed]
    for schema in _each(defs, "GroundedInstructions"):
        if allowed != {"string"}:  # no block shapes in this document: leave them open
            schema.clear()
            schema["type"] = sorted(allowed)
    for schema in _each(defs, "TextContent", "InstructionText"):
        schema["properties"]["text"] = {**schema["properties"]["text"], "minLength": 1}


def _input(defs: dict[str, Any], limits: Limits) -> None:
    non_blank = {"pattern": _non_blank_pattern()}
    for schema in _each(defs, "InputContent"):
        kinds = [k for k in schema["properties"]["type"]["enum"] if k in limits.INPUT_BLOCK_TYPES]
        schema["properties"]["type"]["enum"] = kinds
        schema["allOf"] = [
            branch
            for branch in schema["allOf"]
            if branch["if"]["properties"]["type"]["const"] in kinds
        ]
    for schema in _each(defs, "DecisionInput"):
        for branch in schema["oneOf"]:
            if branch.get("type") == "string":
                branch.update(non_blank)
            elif branch.get("type") == "object":
                branch["properties"] = {"text": non_blank}
            elif branch.get("type") == "array":
                text_block = {"properties": {"type": {"const": "text"}}, "required": ["type"]}
                branch["contains"] = {
                    "anyOf": [{"not": text_block}, {"properties": {"text": non_blank}}]
                }


def _block_kind(defs: dict[str, Any], name: str) -> str | None:
    kind = defs.get(name, {}).get("properties", {}).get("type", {}).get("const")
    return kind if isinstance(kind, str) else None


def _media(defs: dict[str, Any], limits: Limits) -> None:
    for name in list(defs):
        kind = _block_kind(defs, name)
        if kind is None or kind not in limits.MIME_TYPES:
            continue
        props = defs[name]["properties"]
        props["mime_type"] = {**props["mime_type"], "enum": list(limits.MIME_TYPES[kind])}
        if "resolution" in props:
            props["resolution"] = {**props["resolution"], "enum": list(limits.RESOLUTIONS[kind])}
        most = limits.MAX_INLINE_TOTAL_BYTES
        if kind == "document":
            most = min(most, limits.MAX_INLINE_PDF_BYTES)
        props["data"] = {**props["data"], "pattern": _BASE64, "maxLength": most}
        props["uri"] = {**props["uri"], "pattern": _HTTPS_URI}


_REQUEST_OVERLAYS: tuple[_Overlay, ...] = (
    _models,
    _questions,
    _criteria,
    _instructions,
    _input,
    _media,
)


# --- response overlays ---------------------------------------------------------------------


def _noul_range(defs: dict[str, Any], limits: Limits) -> None:
    low, high = limits.NOUL_RANGE
    for schema in _each(defs, "NoulAnswer", "GroundedNoulAnswer"):
        schema["properties"]["noul"] = {
            **schema["properties"]["noul"],
            "minimum": low,
            "maximum": high,
        }


def _open_enums(defs: dict[str, Any], limits: Limits) -> None:
    """Leave open the values the validator only warns about (``response.enum``)."""
    open_members = {
        "PromptFeedback": "block_reason",
        "ModalityTokens": "modality",
        "GroundingToolCount": "type",
        "GroundedDecisionResponse": "mode",
    }
    for name, member in open_members.items():
        for schema in _each(defs, name):
            prop = schema["properties"][member]
            schema["properties"][member] = {
                k: v for k, v in prop.items() if k not in ("enum", "const")
            }


def _decision_id(defs: dict[str, Any], limits: Limits) -> None:
    for schema in _each(defs, "GroundedDecisionResponse"):
        prop = {k: v for k, v in schema["properties"]["decision_id"].items() if k != "pattern"}
        if limits.DECISION_ID_PATTERN is not None:
            prop["pattern"] = f"^{limits.DECISION_ID_PATTERN}$"
        schema["properties"]["decision_id"] = prop


_RESPONSE_OVERLAYS: tuple[_Overlay, ...] = (_noul_range, _open_enums, _decision_id)
