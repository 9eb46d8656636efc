"""``decisions-input sniff``: what the library sees in media files."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from ..errors import Severity
from ..limits import Limits
from .common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    PROG,
    Streams,
    UsageError,
    display,
    failure_line,
    one_line,
)
from .files import Unreadable, read_file, why
from .formats import json_text, printable

if TYPE_CHECKING:
    from ..sniffing import Detected

__all__ = ["run"]


@dataclass(frozen=True, slots=True)
class _Sniffed:
    file: str
    size: int
    detected: Detected
    mismatch: str | None = None


def _sniff_one(
    name: str, streams: Streams, declared: str | None, limits: Limits, max_bytes: int | None
) -> _Sniffed:
    """Sniff a file in place (its head and structure), or standard input held in memory."""
    from ..sniffing import mime_matches, sniff_stream
    from ..sources import open_source

    source: Any = FsPath(name)
    if name == "-":
        source = read_file(name, kind="media", max_bytes=max_bytes, streams=streams)
    try:
        with open_source(source) as opened:
            found = sniff_stream(opened.stream, opened.size, declared=declared, limits=limits)
            size = opened.size
    except OSError as exc:
        raise Unreadable(f"cannot read {name}: {why(exc, name)}") from exc
    mismatch = None
    if (
        declared is not None
        and found.mime is not None
        and not mime_matches(found, declared, limits=limits)
    ):
        mismatch = f"declared {declared}, but the bytes are {found.mime}"
    return _Sniffed(display(name), size, found, mismatch)


def _jsonable(value: Any) -> Any:
    """Turn evidence of any shape into JSON values, deterministically."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {k: _jsonable(getattr(value, k)) for k in sorted(fields)}
    return str(value)


def _evidence_text(value: Any) -> str:
    plain = _jsonable(value)
    if plain is None:
        return ""
    if isinstance(plain, dict):
        return ", ".join(f"{k}={_evidence_text(v)}" for k, v in plain.items())
    if isinstance(plain, list):
        return ",".join(_evidence_text(v) for v in plain)
    return one_line(str(plain))


def _sniff_record(row: _Sniffed) -> dict[str, Any]:
    d = row.detected
    return {
        "file": row.file,
        "size": row.size,
        "kind": d.kind,
        "mime": d.mime,
        "format": d.format,
        "code": "mime.mismatch" if row.mismatch else d.code,
        "reason": row.mismatch or d.reason,
        "evidence": _jsonable(d.evidence),
        "warnings": [{"code": w.code, "message": w.message} for w in d.warnings],
    }


def _sniff_table(records: Sequence[dict[str, Any]]) -> str:
    header = ("FILE", "SIZE", "KIND", "TYPE", "EVIDENCE")
    rows = [header]
    for r in records:
        refused = r["code"] is not None
        evidence = _evidence_text(r["evidence"])
        if refused and r["reason"]:
            evidence = f"{one_line(r['reason'])}; {evidence}" if evidence else one_line(r["reason"])
        damage = "; ".join(f"warning {w['code']}: {one_line(w['message'])}" for w in r["warnings"])
        if damage:
            evidence = f"{damage}; {evidence}" if evidence else damage
        rows.append(
            (
                printable(r["file"]),
                str(r["size"]),
                r["kind"] or "-",
                (r["code"] if refused else r["mime"]) or "-",
                printable(evidence or "-"),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def _is_refusal(record: Mapping[str, Any]) -> bool:
    from ..limits import RULES

    code = record["code"]
    if code is None:
        return False
    rule = RULES.get(code)
    return rule is None or rule.severity is Severity.ERROR


def run(args: argparse.Namespace, streams: Streams) -> int:

    from ..limits import limits_for

    if args.files.count("-") > 1:
        raise UsageError("standard input ('-') can be named only once")
    limits = limits_for(args.target or "gemini")
    records, unreadable = [], []
    for name in args.files:
        try:
            found = _sniff_one(name, streams, args.mime_type, limits, args.max_bytes)
        except Unreadable as exc:
            unreadable.append(f"error: {exc}")
            continue
        except Exception as exc:  # one file's failure inside the library is its own
            unreadable.append(failure_line(display(name), exc))
            continue
        records.append(_sniff_record(found))
    for message in unreadable:
        streams.err.write(f"{PROG}: {printable(message)}\n")
    if args.format == "json":
        streams.out.write(json_text(records) + "\n")
    elif records:
        streams.out.write(_sniff_table(records))
    if unreadable:
        return EXIT_USAGE
    return EXIT_PROBLEMS if any(_is_refusal(r) for r in records) else EXIT_OK
