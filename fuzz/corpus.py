"""The seed inputs the byte mutator starts from, read from the repository's folders.

Everything is read from folders, never listed by hand: a fixture added to
``testdata/media/``, a request added to ``testdata/requests/`` or an example added to a
bundled schema joins the corpus on the next run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "ROOT",
    "SCHEMA_DIR",
    "json_examples",
    "media_files",
    "request_texts",
    "spec_files",
]

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas"
MEDIA_DIR = ROOT / "testdata" / "media"
REQUEST_DIR = ROOT / "testdata" / "requests"
SPEC_DIR = ROOT / "testdata" / "specs"


def _files(folder: Path, pattern: str = "*") -> tuple[Path, ...]:
    if not folder.is_dir():
        return ()
    return tuple(sorted(p for p in folder.glob(pattern) if p.is_file()))


@cache
def media_files() -> tuple[Path, ...]:
    """Every file of ``testdata/media/``, sorted by name."""
    return _files(MEDIA_DIR)


@cache
def spec_files() -> tuple[Path, ...]:
    """Every spec of ``testdata/specs/``."""
    return _files(SPEC_DIR)


@cache
def request_texts() -> tuple[tuple[str, bytes], ...]:
    """(target, text) of every request of ``testdata/requests/`` and every schema example."""
    found = [
        ("parallel" if path.name.startswith("parallel") else "gemini", path.read_bytes())
        for path in _files(REQUEST_DIR, "*.json")
    ]
    found += [
        (target, json.dumps(value).encode())
        for target, kind, value in json_examples()
        if kind == "request"
    ]
    return tuple(found)


def _target_of(document: Path) -> str:
    return "parallel" if document.name.startswith("parallel") else "gemini"


@cache
def json_examples() -> tuple[tuple[str, str, Any], ...]:
    """(target, kind, value) of every example in the bundled documents.

    ``kind`` is ``request``, ``response`` (a 200 reply), ``error`` (any other status) or
    ``signals`` (the DataStoreConnectionSignals document).
    """
    found: list[tuple[str, str, Any]] = []
    for document in _files(SCHEMA_DIR, "*.json"):
        doc = json.loads(document.read_text(encoding="utf-8"))
        if "openapi" not in doc:
            found += [("gemini", "signals", value) for value in doc.get("examples", [])]
            continue
        found += [(_target_of(document), kind, value) for kind, value in _operation_examples(doc)]
    return tuple(found)


def _operation_examples(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for item in doc.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            body = operation.get("requestBody", {})
            yield from (("request", v) for v in _media_examples(body))
            for status, reply in operation.get("responses", {}).items():
                kind = "response" if str(status) == "200" else "error"
                yield from ((kind, v) for v in _media_examples(reply))


def _media_examples(owner: dict[str, Any]) -> Iterator[Any]:
    for media in owner.get("content", {}).values():
        for example in media.get("examples", {}).values():
            if isinstance(example, dict) and "value" in example:
                yield example["value"]
        if "example" in media:
            yield media["example"]
