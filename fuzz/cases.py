"""One fuzz input, and how it is stored as a file that reproduces it.

A case file holds the raw input bytes, exactly as they were checked, so that the command
line reproduces it too (``decisions-input validate FILE``). What else is needed to replay
it is in the file name, fields joined by ``-`` before a short hash::

    requests/gemini-1a2b3c4d.json            a request body, checked against gemini
    responses/response-parallel-….json       a response body (+ ….request.json: its request)
    media/….bin                              a media file
    builders/choice-….json                   a builder call (see :mod:`fuzz.calls`)
    cli/validate.sarif-gemini-….json         a file given to a command, and the format

The target (``requests``, ``builders``, ``media``, ``responses``, ``cli``) is the name of
the folder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FIELDS", "TARGETS", "Case", "iter_cases", "load_case", "save_case"]

TARGETS = ("requests", "builders", "media", "responses", "cli")

# The fields a file name carries per target, in order.
FIELDS: dict[str, tuple[str, ...]] = {
    "requests": ("api",),
    "builders": ("kind",),
    "media": (),
    "responses": ("kind", "api"),
    "cli": ("kind", "api"),
}

_REQUEST_SUFFIX = ".request.json"


@dataclass(frozen=True)
class Case:
    """One input: its bytes and what they are checked as.

    ``api`` is the Decisions API (``gemini`` or ``parallel``); ``kind`` is the kind of
    body for responses (``response``, ``error``, ``signals``) and the command and output
    format for the command line (``validate.json``); ``request`` is the request a response
    answers, when there is one.
    """

    target: str
    data: bytes
    api: str = "gemini"
    kind: str = ""
    request: bytes | None = None

    @property
    def suffix(self) -> str:
        """The file name extension the input is stored under."""
        if self.target == "media" or self.kind.startswith("sniff."):
            return ".bin"
        if self.kind.startswith("build."):
            return ".yaml"
        return ".json"

    @property
    def digest(self) -> str:
        """A short hash of everything the case holds."""
        hashed = hashlib.sha256(self.data)
        hashed.update(self.request or b"")
        return hashed.hexdigest()[:12]

    @property
    def file_name(self) -> str:
        """The name the case is stored under, inside its target's folder."""
        fields = [getattr(self, name) for name in FIELDS[self.target]]
        return "-".join([*fields, self.digest]) + self.suffix


def save_case(case: Case, folder: Path) -> Path:
    """Write the case under ``folder/<target>/`` and return the path of its input file."""
    where = folder / case.target
    where.mkdir(parents=True, exist_ok=True)
    path = where / case.file_name
    path.write_bytes(case.data)
    if case.request is not None:
        path.with_name(path.name.rsplit(".", 1)[0] + _REQUEST_SUFFIX).write_bytes(case.request)
    return path


def load_case(path: Path) -> Case:
    """Read a case file written by :func:`save_case` (or by hand, named the same way)."""
    target = path.parent.name
    if target not in FIELDS:
        raise ValueError(f"expected a case under one of {', '.join(TARGETS)}, found {path}")
    stem = path.name.rsplit(".", 1)[0]
    parts = stem.split("-")
    names = FIELDS[target]
    if len(parts) != len(names) + 1:
        raise ValueError(f"expected {len(names)} fields and a hash in {path.name!r}")
    fields = dict(zip(names, parts, strict=False))
    request_path = path.with_name(stem + _REQUEST_SUFFIX)
    request = request_path.read_bytes() if request_path.is_file() else None
    return Case(target, path.read_bytes(), request=request, **fields)


def iter_cases(folder: Path) -> Iterator[Path]:
    """Every case file under ``folder`` (each target's folder), sorted, requests excluded."""
    for target in TARGETS:
        where = folder / target
        if where.is_dir():
            for path in sorted(where.iterdir()):
                if (
                    path.is_file()
                    and not path.name.endswith(_REQUEST_SUFFIX)
                    and not path.name.startswith((".", "README"))
                ):
                    yield path
