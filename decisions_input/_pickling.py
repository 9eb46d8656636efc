"""Pickling for the library's immutable values, whose tables are read-only mappings.

``types.MappingProxyType`` does not pickle, and the library keeps every table it hands out
in one (limits, choice options, headers, sniffing evidence). A value whose fields hold such
tables reduces to its fields by name, each read-only mapping replaced by a plain ``dict``
stand-in, and is rebuilt with read-only mappings of the same items, without running its
constructor again (as pickle does for any object). Only the library's own types pickle this
way: nothing is registered with ``copyreg``, so no other pickling in the process changes.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

__all__ = ["freeze", "rebuild_fields", "reduce_fields", "thaw"]


class _ReadOnly(dict):  # type: ignore[type-arg]
    """Stands for a ``MappingProxyType`` inside a pickle."""

    __slots__ = ()


def thaw(value: Any) -> Any:
    """Return ``value`` with every read-only mapping in it replaced by a picklable stand-in.

    Plain dicts, lists and tuples are walked; other objects are left for pickle.
    """
    kind = type(value)
    if kind is MappingProxyType:
        return _ReadOnly({key: thaw(item) for key, item in value.items()})
    if kind is dict:
        return {key: thaw(item) for key, item in value.items()}
    if kind is tuple or kind is list:
        return kind(thaw(item) for item in value)
    return value


def freeze(value: Any) -> Any:
    """Undo :func:`thaw`: each stand-in becomes a read-only mapping again."""
    kind = type(value)
    if kind is _ReadOnly:
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if kind is dict:
        return {key: freeze(item) for key, item in value.items()}
    if kind is tuple or kind is list:
        return kind(freeze(item) for item in value)
    return value


def reduce_fields(value: Any) -> tuple[Any, ...]:
    """Return the ``__reduce__`` answer of a frozen dataclass: its class and thawed fields."""
    state = {f.name: thaw(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return (rebuild_fields, (type(value), state))


def rebuild_fields(cls: type[Any], state: dict[str, Any]) -> Any:
    """Make an instance of ``cls`` with the given fields, frozen again; no constructor runs."""
    value = object.__new__(cls)
    for name, item in state.items():
        object.__setattr__(value, name, freeze(item))
    return value
