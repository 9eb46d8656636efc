"""Question builders: ``noul``, ``choice`` and ``score``, checked as they are built.

A builder raises :class:`~decisions_input.errors.InvalidInput` at once, with the same rule
codes the validator uses; paths are relative to the question (``$.criteria["a b"]``).
Choice options are kept in UTF-8 byte order of their IDs, the order the server sorts them
in before scoring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._pickling import reduce_fields
from ._types import JSON, JSONObject
from .blocks import TextBlock
from .checks import check_question, json_type
from .errors import InvalidInput, Problem, Severity
from .limits import GEMINI, Limits

__all__ = ["Instructions", "Question", "choice", "noul", "score"]

Instructions = str | TextBlock | Sequence[TextBlock]


@dataclass(frozen=True, slots=True)
class Question:
    """One question, immutable; ``to_json`` gives its canonical JSON object.

    .. versionadded:: 0.1
    """

    type: str
    instructions: str | TextBlock | tuple[TextBlock, ...]
    criteria: Mapping[str, str] | tuple[str, ...] | None = None
    warnings: tuple[Problem, ...] = ()

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle the fields, the options as the read-only mapping they are."""
        return reduce_fields(self)

    def to_json(self) -> JSONObject:
        """Return the question as a JSON object with canonical member order."""
        body: JSONObject = {"instructions": _instructions_json(self.instructions)}
        if isinstance(self.criteria, Mapping):
            body["criteria"] = dict(self.criteria)
        elif self.criteria is not None:
            body["criteria"] = list(self.criteria)
        body["type"] = self.type
        return dict(sorted(body.items()))


def _instructions_json(value: str | TextBlock | tuple[TextBlock, ...]) -> JSON:
    if isinstance(value, TextBlock):
        return value.to_json()
    if isinstance(value, tuple):
        return [block.to_json() for block in value]
    return value


def _instructions(value: Any) -> Any:
    if isinstance(value, (str, TextBlock)):
        return value
    if isinstance(value, Sequence):
        return tuple(value)
    return value


def _raw(value: Any) -> Any:
    if isinstance(value, TextBlock):
        return value.to_json()
    if isinstance(value, tuple):
        return [_raw(v) for v in value]
    return value


def _build(kind: str, instructions: Any, criteria: Any, limits: Limits) -> Question:
    instructions = _instructions(instructions)
    raw: dict[str, Any] = {"type": kind, "instructions": _raw(instructions)}
    if criteria is not None:
        raw["criteria"] = dict(criteria) if isinstance(criteria, Mapping) else list(criteria)
    problems = list(check_question(raw, (), limits))
    if any(p.severity is Severity.ERROR for p in problems):
        raise InvalidInput(problems)
    frozen: Mapping[str, str] | tuple[str, ...] | None
    if isinstance(criteria, Mapping):
        frozen = MappingProxyType(dict(sorted(criteria.items(), key=_utf8_key)))
    elif criteria is not None:
        frozen = tuple(criteria)
    else:
        frozen = None
    return Question(kind, instructions, frozen, tuple(problems))


def _utf8_key(item: tuple[str, object]) -> bytes:
    return item[0].encode("utf-8", "surrogatepass")


def noul(
    instructions: Instructions,
    *,
    true_description: str | None = None,
    false_description: str | None = None,
    limits: Limits = GEMINI,
) -> Question:
    """Build a yes/no question, optionally saying what yes and no mean.

    .. versionadded:: 0.1
    """
    criteria = {
        k: v
        for k, v in (
            ("true_description", true_description),
            ("false_description", false_description),
        )
        if v is not None
    }
    return _build("noul", instructions, criteria or None, limits)


def choice(
    instructions: Instructions,
    options: Mapping[str, str] | Sequence[str],
    *,
    limits: Limits = GEMINI,
) -> Question:
    """Build a single-choice question from option IDs (with descriptions, or a list of IDs).

    .. versionadded:: 0.1
    """
    if isinstance(options, (str, bytes)) or not isinstance(options, (Mapping, Sequence)):
        raise InvalidInput(
            [
                Problem(
                    ("criteria",),
                    "schema.type",
                    "expected a mapping of option ID to description or a sequence of option "
                    f"IDs, found {type(options).__name__}",
                )
            ]
        )
    if not isinstance(options, Mapping):
        not_ids = [
            Problem(
                ("criteria", index),
                "schema.type",
                f"expected a string option ID, found {json_type(option_id)}",
            )
            for index, option_id in enumerate(options)
            if type(option_id) is not str
        ]
        if not_ids:
            raise InvalidInput(not_ids)
        seen: set[object] = set()
        repeats = []
        for option_id in options:
            if option_id in seen:
                repeats.append(
                    Problem(
                        ("criteria", str(option_id)),
                        "option.duplicate_id",
                        f"option ID {option_id!r} is given more than once",
                    )
                )
            seen.add(option_id)
        if repeats:
            raise InvalidInput(repeats)
        options = dict.fromkeys(options, "")
    return _build("choice", instructions, options, limits)


def score(
    instructions: Instructions,
    levels: Sequence[str],
    *,
    limits: Limits = GEMINI,
) -> Question:
    """Build a score question over levels in ascending order (level ``i`` is ``levels[i]``).

    .. versionadded:: 0.1
    """
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence):
        raise InvalidInput(
            [
                Problem(
                    ("criteria",),
                    "schema.type",
                    f"expected a sequence of level descriptions, found {type(levels).__name__}",
                )
            ]
        )
    return _build("score", instructions, levels, limits)
