"""Reading the files a command is given: one way for every command and for standard input.

* Files are opened through the library's source rules (:func:`decisions_input.sources.
  open_source`): only regular files are read, checked with ``stat`` before they are opened
  and opened without blocking, so a FIFO, a device, a folder or a missing file is refused
  at once and never waited on.
* The size comes from the file system before any byte is read, and a file over the bound
  for its kind (``MAX_REQUEST_FILE_BYTES`` and its siblings in the limits table, or
  ``--max-bytes``) is refused unread.
* Standard input is held to the same bound: a file redirected into it is sized first, a
  pipe is read until it passes the bound and then refused. A terminal or a device on
  standard input is refused, so ``- < /dev/zero`` ends at once.
* For ``validate``, a folder stands for its ``*.json`` files (hidden ones left out) and a
  glob pattern for the files it matches; a folder or pattern that matches nothing is
  reported, never passed over in silence.

Every refusal is an :class:`Unreadable` with a one-line message; commands report it and
exit with status 2.
"""

from __future__ import annotations

import glob
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path as FsPath
from typing import IO, Any

from .common import Streams, UsageError

__all__ = [
    "KINDS",
    "Unreadable",
    "bound",
    "bounds_markdown",
    "expand",
    "read_file",
    "read_stdin",
    "why",
]

# The kinds of file the commands read, and the entry of the limits table that bounds each.
KINDS = {
    "request": "MAX_REQUEST_FILE_BYTES",
    "response": "MAX_RESPONSE_FILE_BYTES",
    "spec": "MAX_SPEC_FILE_BYTES",
    "schema": "MAX_SCHEMA_FILE_BYTES",
    "media": "MAX_PIPED_MEDIA_BYTES",
}
# The command line's figures of the limits table, as the README's table lists them.
_BOUNDS = (
    ("a request file (validate, estimate, check-response --request)", "MAX_REQUEST_FILE_BYTES"),
    ("a response file (check-response, estimate --against)", "MAX_RESPONSE_FILE_BYTES"),
    ("a spec (build, estimate)", "MAX_SPEC_FILE_BYTES"),
    ("an OpenAPI or JSON Schema file (schemas lint)", "MAX_SCHEMA_FILE_BYTES"),
    ("media on standard input (sniff -)", "MAX_PIPED_MEDIA_BYTES"),
    ("problems shown per file (--max-problems)", "MAX_PROBLEMS_PER_FILE"),
    ("bytes of input files before validate uses worker processes", "PARALLEL_MIN_BYTES"),
    ("worker processes at most", "MAX_WORKERS"),
)
_TEXT_CHUNK_CHARS = 1 << 16  # read size for a text stream given in place of standard input
_GLOB_CHARS = frozenset("*?[")


class Unreadable(UsageError):
    """A file (or standard input) cannot be read; the message names it and says why."""


def bound(kind: str, max_bytes: int | None) -> int:
    """The most bytes read from one file of ``kind``: ``--max-bytes``, else the table's."""
    if max_bytes is not None:
        return max_bytes
    from ..limits import GEMINI

    value: int = getattr(GEMINI, KINDS[kind])
    return value


def read_file(
    name: str, *, kind: str, max_bytes: int | None, streams: Streams | None = None
) -> bytes:
    """Read a named file, or standard input for ``-``, within the bound for its kind."""
    limit = bound(kind, max_bytes)
    if name == "-":
        if streams is None:
            raise Unreadable("cannot read standard input here")
        return read_stdin(streams, kind=kind, max_bytes=limit)
    return _read(name, name, kind, limit)


def read_stdin(streams: Streams, *, kind: str, max_bytes: int) -> bytes:
    """Read standard input (or the stream given for it) within ``max_bytes``."""
    stream: Any = streams.stdin if streams.stdin is not None else sys.stdin
    if stream is None:
        raise Unreadable("cannot read standard input: there is none")
    binary = getattr(stream, "buffer", None)
    if binary is None and isinstance(stream, io.TextIOBase):
        return _read_text_stream(stream, kind, max_bytes)
    source = binary if binary is not None else stream
    if _is_terminal(source):
        raise Unreadable(
            "cannot read standard input: it is a terminal; pipe or redirect a file into it"
        )
    return _read(source, "standard input", kind, max_bytes)


def _read(source: str | IO[bytes], shown: str, kind: str, max_bytes: int) -> bytes:
    from ..errors import SourceError
    from ..sources import SourceTooLarge, open_source

    try:
        with open_source(source, max_bytes=max_bytes) as opened:
            return opened.stream.read()
    except SourceTooLarge as exc:
        raise Unreadable(_too_large(shown, kind, exc.size, max_bytes)) from exc
    except SourceError as exc:
        raise Unreadable(f"cannot read {shown}: {why(exc, source)}") from exc
    except OSError as exc:
        raise Unreadable(f"cannot read {shown}: {exc.strerror or exc}") from exc


def _too_large(shown: str, kind: str, size: int | None, max_bytes: int) -> str:
    found = f"{size:,} bytes" if size is not None else f"more than {max_bytes:,} bytes"
    return (
        f"cannot read {shown}: {found}, over the bound of {max_bytes:,} bytes for a {kind} "
        "file; --max-bytes raises it"
    )


def why(exc: BaseException, source: object) -> str:
    """The reason of a source error without the name it starts with."""
    text = " ".join(str(exc).split())
    name = source if isinstance(source, str) else getattr(source, "name", None)
    if isinstance(name, str):
        text = text.removeprefix(repr(name)).lstrip(": ")
    return f"it {text}" if text.startswith(("is ", "does ")) else text


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _read_text_stream(stream: io.TextIOBase, kind: str, max_bytes: int) -> bytes:
    """Read a text stream given in place of standard input, as UTF-8, within the bound."""
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(_TEXT_CHUNK_CHARS)
        if not chunk:
            return b"".join(parts)
        data = chunk.encode("utf-8", "surrogateescape")
        total += len(data)
        if total > max_bytes:
            raise Unreadable(_too_large("standard input", kind, None, max_bytes))
        parts.append(data)


def expand(names: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Expand folders and glob patterns into files; return them, and what matched nothing.

    A name that is a file (or ``-``) is kept as given, even one that does not exist: reading
    it says what is wrong. A folder stands for its ``*.json`` files below it, sorted, hidden
    ones left out; a name with ``*``, ``?`` or ``[`` that is not a file stands for the files
    it matches (``**`` spans folders), sorted.
    """
    out: list[str] = []
    empty: list[tuple[str, str]] = []
    for name in names:
        found = _expand_one(name)
        if found is None:
            out.append(name)
        elif found:
            out.extend(found)
        else:
            empty.append((name, _nothing_in(name)))
    return out, empty


def _nothing_in(name: str) -> str:
    if os.path.isdir(name):
        return f"{name}: the folder holds no *.json files"
    return f"{name}: the pattern matches no files"


def _expand_one(name: str) -> list[str] | None:
    if name == "-":
        return None
    path = FsPath(name)
    if path.is_dir():
        found = (
            p
            for p in path.rglob("*.json")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        return sorted(str(p) for p in found)
    if _GLOB_CHARS.isdisjoint(name) or os.path.lexists(name):
        return None
    return sorted(p for p in glob.glob(name, recursive=True) if os.path.isfile(p))


def bounds_markdown() -> str:
    """The README's table of the command line's bounds, read from the limits table."""
    from ..limits import GEMINI

    lines = ["| what | bound | limit |", "| --- | --- | --- |"]
    for what, name in _BOUNDS:
        unit = " bytes" if "BYTES" in name else ""
        lines.append(f"| {what} | {getattr(GEMINI, name):,}{unit} | `{name}` |")
    return "\n".join(lines) + "\n"
