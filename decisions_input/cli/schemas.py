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
from .files import Unreadable, read_file
from .formats import Finding, NotShown
from .jobs import Result, capped, failed, finish, problem_cap

__all__ = ["run"]


def _lint_text(name: str, text: str, cap: int) -> Result:
    from ..schemas import lint

    doc = parse_document(name, text)
    if isinstance(doc, Finding):
        return Result(name, (doc,))
    if not isinstance(doc.value, Mapping):
        found = type_name(doc.value)
        problem = Problem((), "schema.type", f"expected a mapping, found {found}")
        return Result(name, (Finding(name, 1, 1, problem),))
    kept = capped(lint(doc.value), cap)
    not_shown = NotShown(name, kept.errors_left_out, kept.warnings_left_out)
    return Result(name, tuple(doc.place(kept.problems)), not_shown)


def _lint_file(name: str, args: argparse.Namespace, streams: Streams, cap: int) -> Result:
    try:
        data = read_file(name, kind="schema", max_bytes=args.max_bytes, streams=streams)
    except Unreadable as exc:
        return Result(display(name), error=str(exc))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Result(display(name), error=f"cannot read {display(name)}: it is not UTF-8 text")
    return _lint_text(display(name), text, cap)


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
    if args.files.count("-") > 1:
        raise UsageError("standard input ('-') can be named only once")
    cap = problem_cap(args.max_problems)
    results = []
    for name in args.files:
        try:
            results.append(_lint_file(name, args, streams, cap))
        except Exception as exc:  # one file's failure inside the library is its own
            results.append(failed(name, exc))
    if not args.files:
        results = [_lint_text(name, text, cap) for name, text in _bundled_texts()]
    return finish(results, args.format, streams, cap=cap)
