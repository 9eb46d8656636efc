"""Build the typed models from a body the walk found free of errors.

The walk has checked every member the target's shapes know, so the models are made
without a second validation (``model_construct``): each known member fills its field,
converted by its kind, and every other member is kept, read-only, as an extra. Only the
members that were in the body are marked as set, so ``to_dict`` gives back that body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from ..errors import InvalidInput
from ._common import _problem, _show
from ._frozen import FrozenDict, freeze
from .models import ResponseModel
from .shapes import MODELS, wire_members

__all__ = ["build"]

_M = TypeVar("_M", bound=ResponseModel)


def build(model: type[_M], shape: str, value: Mapping[str, object], target: str) -> _M:
    """Return the model of a checked object of a shape, for a target.

    Raises:
        InvalidInput: when a member the model needs is missing, which only a table that
            no longer requires it lets through (``response.required``).
    """
    members = wire_members(target).get(shape, {})
    fields: dict[str, object] = {}
    extras: dict[str, object] = {}
    for name, item in value.items():
        member = members.get(name)
        if member is None:
            extras[name] = freeze(item)
        else:
            fields[member.field] = _convert(item, member.kind, target)
    absent = [n for n, f in model.model_fields.items() if f.is_required() and n not in fields]
    if absent:
        message = f"expected the members the model needs, found none for {_show(absent)}"
        raise InvalidInput([_problem((), "response.required", message)])
    made = model.model_construct(_fields_set=set(fields), **fields)
    object.__setattr__(made, "__pydantic_extra__", FrozenDict(extras))
    if not hasattr(made, "__pydantic_private__"):  # pydantic before 2.6 leaves it unset
        object.__setattr__(made, "__pydantic_private__", None)
    return made


def _convert(item: object, kind: str, target: str) -> object:
    """A checked JSON value as its field holds it, by the member's kind."""
    if kind.endswith("?"):
        return None if item is None else _convert(item, kind[:-1], target)
    if kind.startswith("[") and isinstance(item, list):
        return tuple(_convert(i, kind[1:-1], target) for i in item)
    if kind.startswith("{") and isinstance(item, dict):
        return FrozenDict({k: _convert(v, kind[1:-1], target) for k, v in item.items()})
    if kind == "answer" and isinstance(item, dict):
        return _answer(item, target)
    if isinstance(item, dict) and kind in MODELS[target]:
        return build(MODELS[target][kind], kind, item, target)
    if kind == "integer" and isinstance(item, float):
        return int(item)  # the walk let through only whole numbers
    return freeze(item) if kind == "object" else item


def _answer(item: Mapping[str, object], target: str) -> ResponseModel:
    shape = f"{item.get('type')}_answer"
    model = MODELS[target].get(shape)
    if model is None:
        message = f"expected an answer type with a model, found {_show(item.get('type'))}"
        raise InvalidInput([_problem((), "answer.type_unknown", message)])
    return build(model, shape, item, target)
