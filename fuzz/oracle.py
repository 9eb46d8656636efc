"""The second opinion: plain ``jsonschema`` against the bundled schema documents.

The validators are built here from the JSON files in ``schemas/`` with stock Draft 2020-12
and a ``referencing`` registry, independently of the library's own schema code, so that
the library is compared with a reading of the documents it does not share. Formats are not
asserted (as in the library). The library may refuse more than the schema says (sizes,
sniffed bytes, budgets); it may never accept what the schema refuses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from jsonschema.exceptions import best_match  # type: ignore[import-untyped, unused-ignore]
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from fuzz.corpus import SCHEMA_DIR

__all__ = ["COMPONENTS", "Refusal", "schema_refusal"]

_DOCUMENTS = {
    "gemini": "gemini-decisions.openapi.json",
    "parallel": "parallel-decisions.openapi.json",
    "signals": "datastore-connection-signals.schema.json",
}

# (kind of body, target) -> (document, JSON pointer of its schema).
COMPONENTS: dict[tuple[str, str], tuple[str, str]] = {
    ("request", "gemini"): ("gemini", "/components/schemas/DecisionRequest"),
    ("request", "parallel"): ("parallel", "/components/schemas/GroundedDecisionRequest"),
    ("response", "gemini"): ("gemini", "/components/schemas/CreateDecisionResponse"),
    ("response", "parallel"): ("parallel", "/components/schemas/GroundedDecisionResponse"),
    ("error", "gemini"): ("gemini", "/components/schemas/ErrorResponse"),
    ("error", "parallel"): ("parallel", "/components/schemas/ErrorResponse"),
    ("signals", "gemini"): ("signals", ""),
    ("signals", "parallel"): ("signals", ""),
}


@dataclass(frozen=True)
class Refusal:
    """Why the schema refuses a value: the member and keyword of the schema, and the message.

    ``path`` is where in the value, ``keyword`` the schema keyword that refused it.
    """

    where: str
    message: str
    path: tuple[str | int, ...] = ()
    keyword: str = ""


@cache
def _validator(kind: str, target: str) -> Any:
    name, pointer = COMPONENTS[(kind, target)]
    doc = json.loads((SCHEMA_DIR / _DOCUMENTS[name]).read_text(encoding="utf-8"))
    declared = doc.get("$id")
    base = declared if isinstance(declared, str) and declared else f"urn:fuzz:{name}"
    registry: Registry[Any] = Registry().with_resource(base, DRAFT202012.create_resource(doc))
    return Draft202012Validator({"$ref": f"{base}#{pointer}"}, registry=registry)


def _refusal(error: Any) -> Refusal:
    place = "$" + "".join(f"[{step!r}]" for step in error.absolute_path)
    # The member and the keyword (``modality/enum``) name the rule; the same rule met in
    # several places (every ``*_by_modality`` array) is one finding.
    where = "/".join(str(step) for step in list(error.relative_schema_path)[-2:])
    path = tuple(error.absolute_path)
    return Refusal(where, f"{place}: {error.message}"[:300], path, str(error.validator))


def schema_refusal(
    value: Any,
    *,
    kind: str,
    target: str,
    excused: Callable[[Refusal], bool] | None = None,
) -> Refusal | None:
    """Say why the bundled schema refuses ``value``, or None when it accepts it.

    A refusal ``excused`` says is allowed is passed over (the library's policy may answer it
    with a warning). None too when ``jsonschema`` itself cannot decide (a value nested past
    its recursion limit): the property is about what the schema refuses, and it said nothing.
    """
    validator = _validator(kind, target)
    try:
        errors = validator.iter_errors(value)
        error = best_match(e for e in errors if excused is None or not excused(_refusal(e)))
    except (RecursionError, ValueError, TypeError, OverflowError):
        return None
    return None if error is None else _refusal(error)
