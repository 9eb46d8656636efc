"""Reading the files a command is given, and standard input for ``-``."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path as FsPath

from .common import Streams, UsageError, reason

__all__ = ["expand", "read_bytes", "read_stdin"]


def read_bytes(name: str, streams: Streams) -> bytes:
    """Read a named file, or standard input for ``-``; raise ``UsageError`` if unreadable."""
    if name == "-":
        return read_stdin(streams)
    try:
        return FsPath(name).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {reason(exc)}") from exc


def read_stdin(streams: Streams) -> bytes:
    stream = streams.stdin if streams.stdin is not None else sys.stdin
    if stream is None:
        raise UsageError("cannot read standard input: there is none")
    source = getattr(stream, "buffer", stream)
    data = source.read()
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data)


def expand(names: Sequence[str]) -> list[str]:
    """Keep files and ``-`` as given; replace a directory by its ``*.json`` files, sorted."""
    out: list[str] = []
    for name in names:
        path = FsPath(name)
        if name != "-" and path.is_dir():
            found = (
                p
                for p in path.rglob("*.json")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            out.extend(sorted(str(p) for p in found))
        else:
            out.append(name)
    return out
