"""Read-only JSON containers that still pickle, compare and serialise as plain ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn, TypeVar

__all__: list[str] = []

_K = TypeVar("_K")
_V = TypeVar("_V")


class FrozenDict(dict[_K, _V]):
    """A ``dict`` that refuses every change after it is made.

    A subclass of ``dict`` rather than a ``MappingProxyType`` so that ``json``, pydantic and
    ``pickle`` take it as the mapping it is.
    """

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a parsed response is read-only; copy it with dict(...) to change it")

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __reduce__(self) -> tuple[type[FrozenDict[_K, _V]], tuple[dict[_K, _V]]]:
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict[_K, _V]:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenDict[_K, _V]:
        return self


EMPTY: FrozenDict[str, Any] = FrozenDict()


def freeze(value: object) -> object:
    """Return a JSON value with its objects as :class:`FrozenDict` and its arrays as tuples."""
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def frozen_map(value: Mapping[_K, _V]) -> Mapping[_K, _V]:
    """Return a mapping as a :class:`FrozenDict` (a validator for mapping fields)."""
    return value if isinstance(value, FrozenDict) else FrozenDict(value)
