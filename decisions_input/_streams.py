"""A read-only, seekable binary stream of known size, the base of the library's views.

Subclasses supply :meth:`ReadOnlyStream._read_at`; position, seeking and the file-object
protocol live here once.
"""

from __future__ import annotations

import io
from typing import Any

__all__ = ["ReadOnlyStream"]


class ReadOnlyStream(io.BufferedIOBase):
    """A read-only, seekable view of ``size`` bytes that reads through ``_read_at``.

    ``clamp_negative`` makes a seek before the start land on 0 instead of raising, for
    readers such as pypdf that look back a fixed distance from the end of short files.
    """

    clamp_negative = False

    def __init__(self, size: int) -> None:
        super().__init__()
        self._size = size
        self._pos = 0

    def _read_at(self, pos: int, n: int) -> bytes:
        """Return ``n`` bytes from ``pos`` (fewer only at the end of the data)."""
        raise io.UnsupportedOperation("read")

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        self._check_open()
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET, /) -> int:
        size = self._check_open()
        if whence == io.SEEK_SET:
            new = offset
        elif whence == io.SEEK_CUR:
            new = self._pos + offset
        elif whence == io.SEEK_END:
            new = size + offset
        else:
            raise ValueError(f"expected whence 0, 1 or 2, found {whence!r}")
        if new < 0:
            if not self.clamp_negative:
                raise ValueError(f"negative seek position {new}")
            new = 0
        self._pos = new
        return new

    def read(self, size: int | None = -1, /) -> bytes:
        total = self._check_open()
        end = total if size is None or size < 0 else min(total, self._pos + size)
        if end <= self._pos:
            return b""
        data = self._read_at(self._pos, end - self._pos)
        self._pos += len(data)
        return data

    def read1(self, size: int | None = -1, /) -> bytes:
        return self.read(size)

    def readinto(self, buffer: Any, /) -> int:
        target = memoryview(buffer).cast("B")
        data = self.read(len(target))
        target[: len(data)] = data
        return len(data)

    def _check_open(self) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed stream")
        return self._size
