"""``decisions-input estimate``: input tokens per block and in total, offline."""

from __future__ import annotations

import argparse
from pathlib import Path as FsPath
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import InvalidInput, Severity
from .common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    PROG,
    Streams,
    UsageError,
    dedupe,
    display,
    failure_line,
)
from .documents import YAML_SUFFIXES
from .files import read_file
from .formats import Finding, Report, printable, render, render_estimates
from .placing import json_findings
from .specs import assemble, read_spec

if TYPE_CHECKING:
    from ..budget import Estimate

__all__ = ["run"]


def _is_spec(name: str, forced: bool) -> bool:
    return forced or FsPath(name).suffix.lower() in YAML_SUFFIXES


def _estimate_request(name: str, args: argparse.Namespace, streams: Streams) -> Estimate | Report:
    """Estimate a JSON request body; a body that is not JSON gives its problems instead."""
    from ..budget import estimate
    from ..limits import limits_for
    from ..validate import to_json_value

    target = args.target
    data = read_file(name, kind="request", max_bytes=args.max_bytes, streams=streams)
    limits = limits_for(target or "gemini")
    value, problems = to_json_value(data, limits)
    if value is None and problems:
        text = data.decode("utf-8", "replace")
        return Report.of(json_findings(display(name), text, problems), files=1)
    try:
        return estimate(value, target=target)
    except InvalidInput as exc:
        return Report.of((Finding(display(name), 1, 1, p) for p in exc.problems), files=1)


def _estimate_spec(name: str, args: argparse.Namespace, streams: Streams) -> Estimate | Report:
    """Build the request a spec describes (media sniffed, never decoded) and estimate it."""
    from ..budget import estimate

    spec = read_spec(name, streams, max_bytes=args.max_bytes)
    request, problems = assemble(spec.doc.value, spec.base, args.target)
    errors = [p for p in dedupe(problems) if p.severity is Severity.ERROR]
    if request is None or errors:
        return Report.of(spec.doc.place(errors), files=1)
    return estimate(request)


def run(args: argparse.Namespace, streams: Streams) -> int:
    from ..limits import RULES

    if args.files.count("-") > 1:
        raise UsageError("standard input ('-') can be named only once")
    found: list[tuple[str, Estimate]] = []
    refused: list[Finding] = []
    unread = 0
    for name in args.files:
        try:
            if _is_spec(name, args.spec):
                result = _estimate_spec(name, args, streams)
            else:
                result = _estimate_request(name, args, streams)
        except UsageError as exc:  # the file (or standard input) cannot be read
            streams.err.write(f"{PROG}: error: {printable(str(exc))}\n")
            unread += 1
            continue
        except Exception as exc:  # one file's failure inside the library is its own
            streams.err.write(f"{PROG}: {failure_line(display(name), exc)}\n")
            unread += 1
            continue
        if isinstance(result, Report):
            refused.extend(result.findings)
        else:
            found.append((display(name), result))
    if refused:
        report = Report.of(refused, files=len(args.files))
        streams.err.write(render(report, "text", RULES, version=__version__))
    streams.out.write(render_estimates(found, args.format))
    over = any(not e.fits or (args.strict and e.at_risk) for _name, e in found)
    if unread:
        return EXIT_USAGE
    return EXIT_PROBLEMS if over or refused else EXIT_OK
