"""``decisions-input schemas export``: a JSON Schema of a target's body, for editors and CI."""

from __future__ import annotations

import argparse
import json

from .common import EXIT_OK, Streams, UsageError, reason, write_in_place

__all__ = ["run"]


def _schema_text(target: str, kind: str) -> str:
    """The schema as JSON text: two-space indents, UTF-8, one final line break."""
    from ..schema_export import json_schema

    schema = json_schema(target, kind="response" if kind == "response" else "request")
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace, streams: Streams) -> int:
    text = _schema_text(args.target, args.kind)
    if args.output in (None, "-"):
        streams.out.write(text)
        return EXIT_OK
    try:
        write_in_place(args.output, lambda fp: fp.write(text.encode("utf-8")))
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {reason(exc)}") from exc
    return EXIT_OK
