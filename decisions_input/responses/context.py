"""What a check knows while it walks a body: the table, the shapes, the hooks, the request."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import Path, Problem
from ..limits import Limits
from .reading import _Expect

__all__: list[str] = []

_Hook = Callable[[dict[str, object], Path, "_Ctx"], Iterator[Problem]]
_NO_MEMBERS: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class _Ctx:
    limits: Limits
    shapes: Mapping[str, Mapping[str, str]]
    hooks: Mapping[str, _Hook]
    expect: _Expect | None = None
    blocked: bool = False

    def shape(self, name: str) -> Mapping[str, str]:
        return self.shapes.get(name, _NO_MEMBERS)

    def required(self, name: str) -> tuple[str, ...]:
        return self.limits.RESPONSE_REQUIRED.get(name, ())
