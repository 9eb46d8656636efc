"""Type aliases for what callers may hand to the library."""

from __future__ import annotations

import os
from typing import IO, Literal, TypeAlias, Union

__all__ = ["JSON", "JSONObject", "Source", "Target"]

JSON: TypeAlias = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]
JSONObject: TypeAlias = dict[str, JSON]

Target: TypeAlias = Literal["gemini", "parallel"]

# A media source: a path, raw bytes, or a binary file object opened for reading.
Source: TypeAlias = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]
