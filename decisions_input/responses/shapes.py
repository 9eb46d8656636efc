"""The wire shape of every response object, per target, read from the models.

The models in :mod:`.models` and :mod:`.signals` are the one statement of the response
shapes; this module derives from them what the structural walk reads: for each target, each
object (a *shape*, by name) and each member its *kind*. A kind is ``"string"``,
``"number"``, ``"integer"``, ``"boolean"``, ``"object"`` (any object), the name of another
shape, ``"answer"`` (an answer, shaped by its ``type`` as ``"<type>_answer"``), ``"[kind]"``
(an array of that kind) or ``"{kind}"`` (an object whose members all have that kind); a
trailing ``"?"`` also allows ``null``.

A field is a member of a target's shape unless its :class:`~.models.Wire` note leaves the
target out, or its type is a model the target does not have (Gemini has no citations,
Parallel no prompt feedback). Which members are required stays a limit of each target
(``Limits.RESPONSE_REQUIRED``).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from .models import (
    ChoiceAnswer,
    Citation,
    DecisionResponse,
    ErrorBody,
    GeminiError,
    GeminiUsage,
    GroundingToolCount,
    ModalityTokens,
    NoulAnswer,
    ParallelError,
    ParallelUsage,
    PromptFeedback,
    RefusalAnswer,
    ResponseModel,
    ScoreAnswer,
    Wire,
)
from .signals import (
    AnswerPart,
    CitedSnippet,
    DataStoreConnectionSignals,
    GroundingSignals,
    ModelCallSignals,
    SafetySignals,
    SearchSnippet,
)

__all__ = ["MODELS", "Member", "shapes_for", "value_members", "wire_members"]

_ANSWERS: dict[str, type[ResponseModel]] = {
    "noul_answer": NoulAnswer,
    "choice_answer": ChoiceAnswer,
    "score_answer": ScoreAnswer,
    "refusal_answer": RefusalAnswer,
}
_SIGNALS: dict[str, type[ResponseModel]] = {
    "signals": DataStoreConnectionSignals,
    "model_call_signals": ModelCallSignals,
    "search_snippet": SearchSnippet,
    "answer_part": AnswerPart,
    "cited_snippet": CitedSnippet,
    "grounding_signals": GroundingSignals,
    "safety_signals": SafetySignals,
}

# The model of each shape, per target. Answer types a target does not send are refused by
# its ANSWER_TYPES before their shape is looked up.
MODELS: Mapping[str, Mapping[str, type[ResponseModel]]] = MappingProxyType(
    {
        "gemini": MappingProxyType(
            {
                "response": DecisionResponse,
                **_ANSWERS,
                "usage": GeminiUsage,
                "modality_tokens": ModalityTokens,
                "grounding_tool_count": GroundingToolCount,
                "prompt_feedback": PromptFeedback,
                "error_response": ErrorBody,
                "error": GeminiError,
                **_SIGNALS,
            }
        ),
        "parallel": MappingProxyType(
            {
                "response": DecisionResponse,
                **_ANSWERS,
                "usage": ParallelUsage,
                "citation": Citation,
                "error_response": ErrorBody,
                "error": ParallelError,
                **_SIGNALS,
            }
        ),
    }
)


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a shape on the wire: the model field it fills and its kind."""

    field: str
    kind: str


def _strip(annotation: object) -> object:
    """The type under any ``Annotated`` layers."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _kind(annotation: object, names: Mapping[type, str]) -> str | None:
    """The kind of a field's type; ``None`` for a model the target does not have."""
    tp = _strip(annotation)
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = [_strip(a) for a in get_args(tp) if a is not type(None)]
        if all(o in _ANSWERS.values() for o in options):
            return "answer"
        kinds = {k for k in (_kind(o, names) for o in options) if k is not None}
        return _one(kinds, tp)
    if origin is Literal:
        return "string"
    if origin in (Mapping, dict):
        value = get_args(tp)[1]
        if _strip(value) is object:
            return "object"
        inner = _kind(value, names)
        return None if inner is None else "{" + inner + "}"
    if origin is tuple:
        inner = _kind(get_args(tp)[0], names)
        return None if inner is None else "[" + inner + "]"
    return _scalar(tp, names)


def _one(kinds: set[str], tp: object) -> str | None:
    if len(kinds) > 1:
        raise TypeError(f"a member of the models has more than one kind for a target: {tp}")
    return next(iter(kinds), None)


_SCALARS: Mapping[object, str] = MappingProxyType(
    {bool: "boolean", int: "integer", float: "number", str: "string"}
)


def _scalar(tp: object, names: Mapping[type, str]) -> str | None:
    if tp in _SCALARS:
        return _SCALARS[tp]
    if isinstance(tp, type) and issubclass(tp, ResponseModel):
        return names.get(tp)
    raise TypeError(f"a member of the models has a type with no kind: {tp}")


def _member(field: FieldInfo, target: str, names: Mapping[type, str]) -> str | None:
    note = next((m for m in field.metadata if isinstance(m, Wire)), Wire())
    if not note.sent_by(target):
        return None
    kind = _kind(field.annotation, names)
    if kind is not None and target in note.nullable:
        kind += "?"
    return kind


@functools.cache
def wire_members(target: str) -> Mapping[str, Mapping[str, Member]]:
    """Return, per shape of the target, its members by wire name."""
    models = MODELS[target]
    names = {model: name for name, model in models.items()}
    shapes: dict[str, Mapping[str, Member]] = {}
    for shape, model in models.items():
        members: dict[str, Member] = {}
        for name, field in model.model_fields.items():
            kind = _member(field, target, names)
            if kind is not None:
                members[field.alias or name] = Member(name, kind)
        shapes[shape] = MappingProxyType(members)
    return MappingProxyType(shapes)


@functools.cache
def shapes_for(target: str) -> Mapping[str, Mapping[str, str]]:
    """Return, per shape of the target, the kind of each member by wire name."""
    return MappingProxyType(
        {
            shape: MappingProxyType({name: m.kind for name, m in members.items()})
            for shape, members in wire_members(target).items()
        }
    )


def value_members() -> frozenset[str]:
    """The members that carry a value in some answer type, on any target."""
    return frozenset(
        name
        for target in MODELS
        for shape, members in wire_members(target).items()
        if shape.endswith("_answer")
        for name in members
        if name != "type"
    )
