"""``decisions-input schemas lint``: check OpenAPI and JSON Schema documents."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Any

from ..errors import Problem
from .common import Streams, UsageError, display, reason, type_name
from .documents import parse_document
from .files import read_bytes
from .formats import Finding
from .jobs import Result, finish

__all__ = ["run"]


def _lint_text(name: str, text: str) -> Result:
    from ..schemas import lint

    doc = parse_document(name, text)
    if isinstance(doc, Finding):
        return Result(name, (doc,))
    if not isinstance(doc.value, Mapping):
        found = type_name(doc.value)
        problem = Problem((), "schema.type", f"expected a mapping, found {found}")
        return Result(name, (Finding(name, 1, 1, problem),))
    return Result(name, tuple(doc.place(lint(doc.value))))


def _bundled_texts() -> list[tuple[str, str]]:
    import importlib.resources

    from ..schemas import DOCUMENTS

    out = []
    try:
        root = importlib.resources.files("decisions_input._schemas")
        for file in sorted(DOCUMENTS.values()):
            entry = root.joinpath(file)
            out.append((_resource_name(entry, file), entry.read_text(encoding="utf-8")))
    except (ImportError, OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the bundled schemas: {reason(exc)}") from exc
    return out


def _resource_name(entry: Any, file: str) -> str:
    try:
        path = FsPath(os.fspath(entry)).resolve()
    except TypeError:
        return file
    try:
        return path.relative_to(FsPath.cwd()).as_posix()
    except ValueError:
        return str(path)


def run(args: argparse.Namespace, streams: Streams) -> int:
    if args.files:
        results = []
        for name in args.files:
            try:
                text = read_bytes(name, streams).decode("utf-8")
            except (UsageError, UnicodeDecodeError) as exc:
                results.append(Result(display(name), error=reason(exc)))
                continue
            results.append(_lint_text(display(name), text))
    else:
        results = [_lint_text(name, text) for name, text in _bundled_texts()]
    return finish(results, args.format, streams)
