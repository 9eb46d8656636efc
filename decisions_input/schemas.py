"""Load the bundled schema documents, check them, and build cached validators.

The package ships three documents, read only through :mod:`importlib.resources` from
``decisions_input._schemas`` (the repository's ``schemas/`` folder):

============  ============================================  ===================
name          file                                          kind
============  ============================================  ===================
``gemini``    ``gemini-decisions.openapi.json``             OpenAPI 3.1
``parallel``  ``parallel-decisions.openapi.json``           OpenAPI 3.1
``signals``   ``datastore-connection-signals.schema.json``  JSON Schema 2020-12
============  ============================================  ===================

Each file is read and parsed once (``functools.cache``). :func:`load` hands every caller a
fresh, independent copy, so changing it never affects the library or other callers.

The ``iter_*`` checks take any parsed document, bundled or not, and yield
:class:`~decisions_input.errors.Problem` records whose path points into that document:

* ``schema.dangling_ref``: a local ``$ref`` (``#`` or ``#/...``) that does not resolve;
* ``schema.meta``: the document breaks its meta-schema (OpenAPI documents go through
  ``openapi-spec-validator``, after every Schema Object is checked against JSON Schema
  2020-12 for exact paths; other documents through their ``$schema`` meta-schema);
* ``schema.example``: an ``example`` or ``examples`` value that its schema refuses.

:func:`validator` builds Draft 2020-12 validators that also honour OpenAPI's
``discriminator``: a ``oneOf`` whose branch is known in advance (from the discriminator, or
from branches of distinct inline ``type``) validates only that branch, so errors point at
the real fault (``$.questions.q.criteria``) instead of at the whole union.

jsonschema, referencing and openapi-spec-validator are imported inside the functions that
need them, so importing this module stays cheap. Their exceptions never escape the loaders
and checks: they become problems or a ``SchemaError``.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol, TypeAlias
from urllib.parse import quote, unquote

from .errors import Path, Problem, SchemaError, render_json_path

__all__ = [
    "DOCUMENTS",
    "ComponentValidator",
    "DocumentName",
    "check_bundled",
    "iter_example_problems",
    "iter_meta_problems",
    "iter_ref_problems",
    "lint",
    "load",
    "validator",
]

DocumentName = Literal["gemini", "parallel", "signals"]

#: Bundled document names and their files inside ``decisions_input._schemas``.
DOCUMENTS: Mapping[str, str] = MappingProxyType(
    {
        "gemini": "gemini-decisions.openapi.json",
        "parallel": "parallel-decisions.openapi.json",
        "signals": "datastore-connection-signals.schema.json",
    }
)

_PACKAGE = "decisions_input._schemas"
_DEFAULT_BASE_URI = "urn:decisions-input:document"
_MAX_MESSAGE_CHARS = 400
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")

# Keyword objects whose members are names chosen by the author, never keywords.
_NAME_MAPS = frozenset(
    {
        "$defs",
        "callbacks",
        "content",
        "definitions",
        "dependentSchemas",
        "encoding",
        "examples",
        "headers",
        "links",
        "mapping",
        "pathItems",
        "paths",
        "patternProperties",
        "properties",
        "requestBodies",
        "responses",
        "schemas",
        "securitySchemes",
        "variables",
        "webhooks",
    }
)
# Members that hold data (instances, defaults, example values), never references.
_DATA_KEYS = frozenset({"const", "default", "enum", "example", "value"})

# Schema keywords whose value is a map of schemas, one schema, or a list of schemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")

_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


class ComponentValidator(Protocol):
    """What :func:`validator` returns: a jsonschema Draft 2020-12 validator."""

    def iter_errors(self, instance: object) -> Iterator[Any]:
        """Yield every ``jsonschema.ValidationError`` of an instance."""
        ...

    def is_valid(self, instance: object) -> bool:
        """Return whether an instance is valid."""
        ...

    def validate(self, instance: object) -> None:
        """Raise the best ``jsonschema.ValidationError`` of an instance, if any."""
        ...


# --- loading -----------------------------------------------------------------------------


def _file_of(name: str) -> str:
    try:
        return DOCUMENTS[name]
    except (KeyError, TypeError):
        known = ", ".join(map(repr, DOCUMENTS))
        raise KeyError(f"expected a document name ({known}), found {name!r}") from None


@functools.cache
def _text(name: str) -> str:
    file = _file_of(name)
    try:
        return importlib.resources.files(_PACKAGE).joinpath(file).read_text(encoding="utf-8")
    except (OSError, ImportError, UnicodeDecodeError) as exc:
        raise SchemaError(f"cannot read bundled schema {file}: {exc}") from exc


def _parse(name: str) -> dict[str, Any]:
    file = _file_of(name)
    try:
        doc = json.loads(_text(name))
    except ValueError as exc:
        raise SchemaError(f"bundled schema {file} is not JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise SchemaError(f"bundled schema {file}: expected an object, found {type(doc).__name__}")
    return doc


@functools.cache
def _document(name: str) -> dict[str, Any]:
    # The library's own parse; never handed out, never changed.
    return _parse(name)


def load(name: DocumentName) -> dict[str, Any]:
    """Return a fresh copy of a bundled document: ``"gemini"``, ``"parallel"`` or ``"signals"``.

    The file is read once; every call parses a new copy, which the caller owns.

    Raises:
        KeyError: the name is not one of :data:`DOCUMENTS`.
        SchemaError: the bundled file is missing or is not a JSON object.

    .. versionadded:: 0.1
    """
    return _parse(name)


# --- JSON pointers -----------------------------------------------------------------------


def _pointer(path: Sequence[str | int]) -> str:
    """Render a path as a URI fragment JSON pointer (``/a~1b/0``)."""
    tokens = (str(p).replace("~", "~0").replace("/", "~1") for p in path)
    return "".join("/" + quote(token, safe="") for token in tokens)


def _resolve(doc: object, fragment: str) -> tuple[bool, object, str]:
    """Follow a URI fragment pointer; return (found, target, reason)."""
    pointer = unquote(fragment)
    if pointer == "":
        return True, doc, ""
    if not pointer.startswith("/"):
        return False, None, "the fragment is not a JSON pointer"
    node = doc
    for raw in pointer[1:].split("/"):
        if re.search(r"~(?![01])", raw):
            return False, None, f"malformed escape in {raw!r}"
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            if token not in node:
                return False, None, f"no member {token!r}"
            node = node[token]
        elif isinstance(node, Sequence) and not isinstance(node, str):
            if not _ARRAY_INDEX.fullmatch(token) or int(token) >= len(node):
                return False, None, f"no item {token!r} in an array of {len(node)}"
            node = node[int(token)]
        else:
            return False, None, f"cannot step into {type(node).__name__} with {token!r}"
    return True, node, ""


def _get(doc: object, path: Sequence[str | int]) -> tuple[bool, object]:
    node = doc
    for step in path:
        if isinstance(node, Mapping):
            if not isinstance(step, str) or step not in node:
                return False, None
            node = node[step]
        elif isinstance(node, Sequence) and not isinstance(node, str):
            if not isinstance(step, int) or not 0 <= step < len(node):
                return False, None
            node = node[step]
        else:
            return False, None
    return True, node


def _plain(node: object) -> Any:
    """Return a deep copy made of dicts and lists only, as foreign validators expect."""
    if isinstance(node, Mapping):
        return {key: _plain(value) for key, value in node.items()}
    if isinstance(node, (list, tuple)):
        return [_plain(value) for value in node]
    return node


def _describe(exc: Exception) -> str:
    """Name a foreign exception briefly; reference errors would print the whole document."""
    ref = getattr(exc, "ref", None)
    if isinstance(ref, str):
        return f"its schema refers to {ref!r}, which does not resolve"
    return f"{type(exc).__name__.lstrip('_')}: {exc}"


def _short(text: str) -> str:
    if len(text) <= _MAX_MESSAGE_CHARS:
        return text
    return text[: _MAX_MESSAGE_CHARS - 3] + "..."


# --- dangling references -----------------------------------------------------------------


def iter_ref_problems(doc: Mapping[str, Any]) -> Iterator[Problem]:
    """Yield a ``schema.dangling_ref`` problem for every local ``$ref`` that does not resolve.

    Only ``#`` and ``#/...`` references are checked; data (``const``, ``default``, ``enum``,
    ``example``, example ``value``) and ``x-`` extensions are not searched.

    .. versionadded:: 0.1
    """
    yield from _iter_refs(doc, doc, (), names=False)


def _iter_refs(doc: object, node: object, path: Path, *, names: bool) -> Iterator[Problem]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            step: Path = (*path, key)
            if names:
                yield from _iter_refs(doc, value, step, names=False)
            elif key == "$ref" and isinstance(value, str):
                yield from _check_ref(doc, value, step)
            elif not _is_data(key, value):
                yield from _iter_refs(doc, value, step, names=key in _NAME_MAPS)
    elif isinstance(node, (list, tuple)):
        for index, item in enumerate(node):
            yield from _iter_refs(doc, item, (*path, index), names=False)


def _is_data(key: object, value: object) -> bool:
    if key in _DATA_KEYS or (isinstance(key, str) and key.startswith("x-")):
        return True
    return key == "examples" and not isinstance(value, Mapping)  # schema examples: a list


def _check_ref(doc: object, ref: str, path: Path) -> Iterator[Problem]:
    if ref != "#" and not ref.startswith("#/"):
        return
    found, _, reason = _resolve(doc, ref[1:])
    if not found:
        yield Problem(path, "schema.dangling_ref", f"expected {ref!r} to resolve: {reason}")


# --- meta-schema -------------------------------------------------------------------------


def iter_meta_problems(doc: Mapping[str, Any]) -> Iterator[Problem]:
    """Yield a ``schema.meta`` problem for every place the document breaks its meta-schema.

    A document with an ``openapi`` member is checked as OpenAPI 3.0, 3.1 or 3.2; anything
    else as a JSON Schema of its ``$schema`` dialect (2020-12 when absent).

    .. versionadded:: 0.1
    """
    plain = _plain(doc)
    if "openapi" in plain:
        yield from _iter_openapi_meta(plain)
    else:
        yield from _iter_json_schema_meta(plain, ())


def _meta_problem(path: Path, message: str) -> Problem:
    return Problem(path, "schema.meta", _short(message))


def _iter_json_schema_meta(schema: object, at: Path) -> Iterator[Problem]:
    try:
        from jsonschema.validators import (  # type: ignore[import-untyped, unused-ignore]
            Draft202012Validator,
            validator_for,
        )

        cls = Draft202012Validator
        if isinstance(schema, Mapping) and "$schema" in schema:
            cls = validator_for(schema, default=None)
            if cls is None:
                found = schema["$schema"]
                yield _meta_problem((*at, "$schema"), f"expected a known dialect, found {found!r}")
                return
        meta = cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
        for error in meta.iter_errors(schema):
            yield _meta_problem((*at, *error.absolute_path), error.message)
    except Exception as exc:  # a foreign failure becomes a finding, never an escape
        yield _meta_problem(at, f"the meta-schema check stopped: {_describe(exc)}")


def _spec_validator_class(version: object) -> Any:
    import openapi_spec_validator

    names = {
        "3.0": "OpenAPIV30SpecValidator",
        "3.1": "OpenAPIV31SpecValidator",
        "3.2": "OpenAPIV32SpecValidator",
    }
    if not isinstance(version, str):
        return None
    name = names.get(".".join(version.split(".")[:2]))
    return getattr(openapi_spec_validator, name, None) if name else None


def _iter_openapi_meta(doc: dict[str, Any]) -> Iterator[Problem]:
    version = doc.get("openapi")
    try:
        cls = _spec_validator_class(version)
    except Exception as exc:
        yield _meta_problem((), f"openapi-spec-validator is unusable: {_describe(exc)}")
        return
    if cls is None:
        yield _meta_problem(("openapi",), f"expected OpenAPI 3.0, 3.1 or 3.2, found {version!r}")
        return
    seen: set[Path] = set()
    if not str(version).startswith("3.0"):
        # Exact paths for schema errors: every Schema Object against JSON Schema 2020-12.
        for at, schema in _iter_schema_objects(doc):
            for problem in _iter_json_schema_meta(schema, at):
                seen.add(problem.path)
                yield problem
    # Everything else (structure, defaults, duplicate operation IDs) from the spec validator,
    # with remote reference handlers switched off.
    offline = type(cls.__name__, (cls,), {"resolver_handlers": {}})
    try:
        for error in offline(doc).iter_errors():
            path = _locate(doc, error)
            if path not in seen:
                seen.add(path)
                yield _meta_problem(path, error.message)
    except Exception as exc:
        if not seen:  # a crash after reported schema errors is their consequence
            yield _meta_problem((), f"openapi-spec-validator stopped: {_describe(exc)}")


def _locate(doc: object, error: Any) -> Path:
    """Find where a spec-validator error lives; its path may be relative to a Schema Object."""
    relative = tuple(error.absolute_path)
    instance = error.instance
    for at in _iter_object_paths(doc, ()):
        found, value = _get(doc, (*at, *relative))
        if found and value is instance:
            return (*at, *relative)
    return relative


def _iter_object_paths(node: object, path: Path) -> Iterator[Path]:
    if isinstance(node, Mapping):
        yield path
        for key, value in node.items():
            yield from _iter_object_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _iter_object_paths(item, (*path, index))


# --- OpenAPI structure -------------------------------------------------------------------


def _items(node: object) -> Iterator[tuple[str, Any]]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if isinstance(key, str) and isinstance(value, Mapping) and "$ref" not in value:
                yield key, value


def _iter_schema_objects(doc: Mapping[str, Any]) -> Iterator[tuple[Path, Any]]:
    """Yield (path, schema) for every top-level Schema Object of an OpenAPI document."""
    components = doc.get("components")
    if isinstance(components, Mapping):
        for key, schema in (components.get("schemas") or {}).items():
            yield ("components", "schemas", key), schema
    for at, holder in _iter_schema_holders(doc):
        if "schema" in holder:
            yield (*at, "schema"), holder["schema"]


def _iter_schema_holders(doc: Mapping[str, Any]) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Yield every media type, parameter and header object: the owners of ``schema``."""
    for key, item in _items(doc.get("paths")):
        yield from _iter_path_item(item, ("paths", key))
    for key, item in _items(doc.get("webhooks")):
        yield from _iter_path_item(item, ("webhooks", key))
    components = doc.get("components")
    if not isinstance(components, Mapping):
        return
    base: Path = ("components",)
    for key, response in _items(components.get("responses")):
        yield from _iter_response(response, (*base, "responses", key))
    for key, body in _items(components.get("requestBodies")):
        yield from _iter_content(body, (*base, "requestBodies", key))
    for key, parameter in _items(components.get("parameters")):
        yield (*base, "parameters", key), parameter
        yield from _iter_content(parameter, (*base, "parameters", key))
    for key, header in _items(components.get("headers")):
        yield (*base, "headers", key), header
        yield from _iter_content(header, (*base, "headers", key))
    for key, item in _items(components.get("pathItems")):
        yield from _iter_path_item(item, (*base, "pathItems", key))
    for key, callback in _items(components.get("callbacks")):
        for expression, item in _items(callback):
            yield from _iter_path_item(item, (*base, "callbacks", key, expression))


def _iter_path_item(item: Mapping[str, Any], at: Path) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    yield from _iter_parameters(item.get("parameters"), (*at, "parameters"))
    for method in _HTTP_METHODS:
        operation = item.get(method)
        if not isinstance(operation, Mapping):
            continue
        here: Path = (*at, method)
        yield from _iter_parameters(operation.get("parameters"), (*here, "parameters"))
        body = operation.get("requestBody")
        if isinstance(body, Mapping) and "$ref" not in body:
            yield from _iter_content(body, (*here, "requestBody"))
        for status, response in _items(operation.get("responses")):
            yield from _iter_response(response, (*here, "responses", status))
        for name, callback in _items(operation.get("callbacks")):
            for expression, inner in _items(callback):
                yield from _iter_path_item(inner, (*here, "callbacks", name, expression))


def _iter_parameters(parameters: object, at: Path) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    if isinstance(parameters, list):
        for index, parameter in enumerate(parameters):
            if isinstance(parameter, Mapping) and "$ref" not in parameter:
                yield (*at, index), parameter
                yield from _iter_content(parameter, (*at, index))


def _iter_response(
    response: Mapping[str, Any], at: Path
) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    yield from _iter_content(response, at)
    for name, header in _items(response.get("headers")):
        yield (*at, "headers", name), header
        yield from _iter_content(header, (*at, "headers", name))


def _iter_content(owner: Mapping[str, Any], at: Path) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    for media, media_type in _items(owner.get("content")):
        yield (*at, "content", media), media_type


# --- examples ----------------------------------------------------------------------------


def iter_example_problems(doc: Mapping[str, Any]) -> Iterator[Problem]:
    """Yield a ``schema.example`` problem for every example its schema refuses.

    Covers ``example`` and ``examples`` in Schema Objects (component schemas and every
    schema nested in them, or the whole document for a plain JSON Schema) and in media
    types, parameters and headers, including request and response bodies. The problem's
    path is that of the example value.

    .. versionadded:: 0.1
    """
    plain = _plain(doc)
    try:
        check = _example_checker(plain)
    except Exception as exc:
        yield Problem((), "schema.example", _short(f"cannot build a validator: {exc}"))
        return
    for example_path, schema_path, value in _iter_examples(plain):
        message = check(schema_path, value)
        if message is not None:
            yield Problem(example_path, "schema.example", _short(message))


def _iter_examples(doc: Mapping[str, Any]) -> Iterator[tuple[Path, Path, object]]:
    """Yield (example path, schema path, example value) for every example in a document."""
    if "openapi" not in doc:
        yield from _iter_schema_examples(doc, ())
        return
    components = doc.get("components")
    if isinstance(components, Mapping):
        for key, schema in (components.get("schemas") or {}).items():
            yield from _iter_schema_examples(schema, ("components", "schemas", key))
    for at, holder in _iter_schema_holders(doc):
        if "schema" not in holder:
            continue
        schema_at: Path = (*at, "schema")
        yield from _iter_schema_examples(holder["schema"], schema_at)
        if "example" in holder:
            yield (*at, "example"), schema_at, holder["example"]
        for name, example in (holder.get("examples") or {}).items():
            yield from _iter_example_object(doc, example, (*at, "examples", name), schema_at)


def _iter_example_object(
    doc: Mapping[str, Any], example: object, at: Path, schema_at: Path
) -> Iterator[tuple[Path, Path, object]]:
    if isinstance(example, Mapping) and isinstance(example.get("$ref"), str):
        ref = example["$ref"]
        if not ref.startswith("#/"):
            return
        found, target, _ = _resolve(doc, ref[1:])
        if not found:
            return  # reported by iter_ref_problems
        example = target
        at = tuple(_path_of_pointer(ref[1:]))
    if isinstance(example, Mapping) and "value" in example:
        yield (*at, "value"), schema_at, example["value"]


def _path_of_pointer(fragment: str) -> list[str | int]:
    steps: list[str | int] = []
    for raw in unquote(fragment)[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        steps.append(int(token) if _ARRAY_INDEX.fullmatch(token) else token)
    return steps


def _iter_schema_examples(schema: object, at: Path) -> Iterator[tuple[Path, Path, object]]:
    if not isinstance(schema, Mapping):
        return
    examples = schema.get("examples")
    if isinstance(examples, list):
        for index, value in enumerate(examples):
            yield (*at, "examples", index), at, value
    if "example" in schema:
        yield (*at, "example"), at, schema["example"]
    for keyword in _SCHEMA_MAPS:
        members = schema.get(keyword)
        if isinstance(members, Mapping):
            for key, sub in members.items():
                yield from _iter_schema_examples(sub, (*at, keyword, key))
    for keyword in _SCHEMA_ONE:
        if isinstance(schema.get(keyword), Mapping):
            yield from _iter_schema_examples(schema[keyword], (*at, keyword))
    for keyword in _SCHEMA_LISTS:
        subs = schema.get(keyword)
        if isinstance(subs, list):
            for index, sub in enumerate(subs):
                yield from _iter_schema_examples(sub, (*at, keyword, index))


def _base_uri(doc: Mapping[str, Any]) -> str:
    declared = doc.get("$id")
    if isinstance(declared, str) and declared and "#" not in declared.rstrip("#"):
        return declared.rstrip("#")
    return _DEFAULT_BASE_URI


def _registry(doc: Mapping[str, Any], base: str) -> Any:
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    return Registry().with_resource(base, DRAFT202012.create_resource(doc))


def _example_checker(doc: Mapping[str, Any]) -> Callable[[Path, object], str | None]:
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped, unused-ignore]

    cls = _validator_class()
    base = _base_uri(doc)
    registry = _registry(doc, base)

    def check(schema_path: Path, value: object) -> str | None:
        schema = {"$ref": base + "#" + _pointer(schema_path)}
        try:
            error = best_match(cls(schema, registry=registry).iter_errors(value))
        except Exception as exc:
            return f"the example could not be checked: {_describe(exc)}"
        if error is None:
            return None
        where = render_json_path(error.absolute_path)
        return f"the example breaks its schema at {where}: {error.message}"

    return check


class _Fault(NamedTuple):
    """A union error found before any branch is tried."""

    keyword: str
    expected: object
    found: object
    path: Path
    message: str


# A certain branch (index, schema), a fault, or None when plain ``oneOf`` has to decide.
_Pick: TypeAlias = "tuple[int, Any] | _Fault | None"


@functools.cache
def _validator_class() -> Any:
    """Return Draft 2020-12 with ``oneOf`` narrowed to one branch where the choice is certain.

    OpenAPI's ``discriminator`` (ignored by JSON Schema) and branches of distinct inline
    ``type`` tell in advance which branch can match. Validating only that branch gives the
    same verdict for such unions, with errors at the real fault instead of a single ``oneOf``
    error for the whole value.
    """
    from jsonschema.exceptions import (  # type: ignore[import-untyped, unused-ignore]
        ValidationError,
    )
    from jsonschema.validators import (  # type: ignore[import-untyped, unused-ignore]
        Draft202012Validator,
        extend,
    )

    plain_one_of = Draft202012Validator.VALIDATORS["oneOf"]

    def one_of(validator: Any, branches: Any, instance: Any, schema: Any) -> Iterator[Any]:
        picked = _pick(validator, branches, instance, schema)
        if picked is None:
            yield from plain_one_of(validator, branches, instance, schema)
        elif isinstance(picked, _Fault):
            yield ValidationError(
                picked.message,
                validator=picked.keyword,
                validator_value=picked.expected,
                instance=picked.found,
                schema=schema,
                path=picked.path,
            )
        else:
            index, branch = picked
            yield from validator.descend(instance, branch, schema_path=index)

    return extend(Draft202012Validator, validators={"oneOf": one_of})


def _pick(validator: Any, branches: object, instance: object, schema: Any) -> _Pick:
    if not isinstance(branches, list):
        return None
    discriminator = schema.get("discriminator")
    if not isinstance(discriminator, Mapping):
        return _by_type(validator, branches, instance)
    if not isinstance(instance, Mapping):  # a discriminated union holds objects only
        return _Fault("type", "object", instance, (), f"{instance!r} is not of type 'object'")
    return _by_discriminator(discriminator, branches, instance)


def _by_discriminator(
    discriminator: Mapping[str, Any], branches: list[Any], instance: Mapping[str, Any]
) -> _Pick:
    name = discriminator.get("propertyName")
    if not isinstance(name, str):
        return None
    if name not in instance:
        return _Fault("required", [name], instance, (), f"{name!r} is a required property")
    value = instance[name]
    mapping = discriminator.get("mapping")
    explicit = dict(mapping) if isinstance(mapping, Mapping) else {}
    implicit = {  # without a mapping entry, a value names the schema its $ref ends in
        branch["$ref"].rsplit("/", 1)[-1]: branch["$ref"]
        for branch in branches
        if isinstance(branch, Mapping) and isinstance(branch.get("$ref"), str)
    }
    target = (explicit.get(value) or implicit.get(value)) if isinstance(value, str) else None
    if target is None:
        allowed = sorted(explicit or implicit)
        message = f"expected {name!r} to be one of {allowed}, found {value!r}"
        return _Fault("enum", allowed, value, (name,), message)
    for index, branch in enumerate(branches):
        if isinstance(branch, Mapping) and branch.get("$ref") == target:
            return index, branch
    return None


def _by_type(validator: Any, branches: list[Any], instance: object) -> _Pick:
    declared: list[list[str]] = []
    for branch in branches:
        kind = branch.get("type") if isinstance(branch, Mapping) else None
        if isinstance(kind, str):
            declared.append([kind])
        elif isinstance(kind, list) and all(isinstance(k, str) for k in kind):
            declared.append(kind)
        else:
            return None  # a branch without an inline type: no certain choice
    matching = [
        index
        for index, kinds in enumerate(declared)
        if any(validator.is_type(instance, kind) for kind in kinds)
    ]
    if len(matching) == 1:
        return matching[0], branches[matching[0]]
    if matching:
        return None
    kinds = [kind for group in declared for kind in group]
    message = f"{instance!r} is not of type {', '.join(map(repr, kinds))}"
    return _Fault("type", kinds, instance, (), message)


# --- validators --------------------------------------------------------------------------


def validator(name: DocumentName, component: str) -> ComponentValidator:
    """Return a cached Draft 2020-12 validator for one schema of a bundled document.

    ``component`` names an entry of ``components.schemas`` (OpenAPI documents) or of
    ``$defs`` (the signals schema, whose root is also available under its ``title``,
    ``"DataStoreConnectionSignals"``). ``$ref`` members resolve against the whole document
    through a ``referencing`` registry; nothing is fetched. Formats are not asserted.

    Raises:
        KeyError: unknown document or component name.
        SchemaError: the bundled document cannot be read or the validator cannot be built.

    .. versionadded:: 0.1
    """
    return _validator(name, component)


@functools.cache
def _validator(name: str, component: str) -> ComponentValidator:
    doc = _document(name)
    path = _component_path(name, doc, component)
    base = _base_uri(doc)
    try:
        made: ComponentValidator = _validator_class()(
            {"$ref": base + "#" + _pointer(path)}, registry=_registry(doc, base)
        )
    except Exception as exc:
        raise SchemaError(f"cannot build a validator for {name}:{component}: {exc}") from exc
    return made


def _component_path(name: str, doc: Mapping[str, Any], component: str) -> Path:
    path: Path
    if "openapi" in doc:
        table, path = doc.get("components", {}).get("schemas", {}), ("components", "schemas")
    else:
        if component == doc.get("title"):
            return ()
        table, path = doc.get("$defs", {}), ("$defs",)
    if not isinstance(component, str) or component not in table:
        known = ", ".join(sorted(table))
        raise KeyError(f"expected a schema of {name!r} ({known}), found {component!r}")
    return (*path, component)


# --- all together ------------------------------------------------------------------------


def lint(doc: Mapping[str, Any]) -> Iterator[Problem]:
    """Yield every dangling-reference, meta-schema and example problem of a document.

    .. versionadded:: 0.1
    """
    yield from iter_ref_problems(doc)
    yield from iter_meta_problems(doc)
    yield from iter_example_problems(doc)


def check_bundled() -> None:
    """Raise ``SchemaError`` naming every problem of every bundled document.

    .. versionadded:: 0.1
    """
    lines: list[str] = []
    for name, file in DOCUMENTS.items():
        lines.extend(f"{file}: {problem}" for problem in lint(_document(name)))
    if lines:
        count = f"{len(lines)} problem{'s' if len(lines) != 1 else ''}"
        raise SchemaError(f"bundled schemas are broken, {count}:\n" + "\n".join(lines))
