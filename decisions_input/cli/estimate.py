"""``decisions-input estimate``: input tokens per block and in total, offline.

With ``--against``, the estimates are compared with the usage their responses reported
(:mod:`.against`); this module reads and estimates the requests for both.
"""

from __future__ import annotations

import argparse
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any, NamedTuple

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
from .files import expand, read_file
from .formats import Finding, Report, printable, render, render_estimates
from .placing import json_findings
from .specs import assemble, read_spec

if TYPE_CHECKING:
    from ..budget import Estimate

__all__ = ["Estimated", "estimated", "expanded", "run"]


class Estimated(NamedTuple):
    """A request's estimate, and what a response is checked against: its questions."""

    estimate: Estimate
    asked: dict[str, Any]  # ``questions`` and ``include_excerpts``, as far as it has them


def _asked(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        return {}
    return {k: body[k] for k in ("questions", "include_excerpts") if k in body}


def _is_spec(name: str, forced: bool) -> bool:
    return forced or FsPath(name).suffix.lower() in YAML_SUFFIXES


def _estimate_request(name: str, args: argparse.Namespace, streams: Streams) -> Estimated | Report:
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
        return Estimated(estimate(value, target=target), _asked(value))
    except InvalidInput as exc:
        return Report.of((Finding(display(name), 1, 1, p) for p in exc.problems), files=1)


def _estimate_spec(name: str, args: argparse.Namespace, streams: Streams) -> Estimated | Report:
    """Build the request a spec describes (media sniffed, never decoded) and estimate it."""
    from ..budget import estimate

    spec = read_spec(name, streams, max_bytes=args.max_bytes)
    request, problems = assemble(spec.doc.value, spec.base, args.target)
    errors = [p for p in dedupe(problems) if p.severity is Severity.ERROR]
    if request is None or errors:
        return Report.of(spec.doc.place(errors), files=1)
    return Estimated(estimate(request), _asked(request.skeleton()))


def estimated(name: str, args: argparse.Namespace, streams: Streams) -> Estimated | Report:
    """Estimate one request file or spec; a file with errors gives its problems instead.

    Raises:
        UsageError: the file (or standard input) cannot be read.
    """
    if _is_spec(name, args.spec):
        return _estimate_spec(name, args, streams)
    return _estimate_request(name, args, streams)


def expanded(names: list[str]) -> list[str]:
    """The files named: folders and glob patterns stand for the files they hold, as for
    ``validate``; one that holds none is a usage error."""
    if names.count("-") > 1:
        raise UsageError("standard input ('-') can be named only once")
    files, empty = expand(names)
    if empty:
        raise UsageError("; ".join(why for _name, why in empty))
    return files


def run(args: argparse.Namespace, streams: Streams) -> int:
    from ..limits import RULES

    if args.against is not None:
        from .against import run_against

        return run_against(args, streams)
    if args.fail_outside:
        raise UsageError("--fail-outside applies to --against, which is not given")
    files = expanded(args.files)
    found: list[tuple[str, Estimate]] = []
    refused: list[Finding] = []
    unread = 0
    for name in files:
        try:
            result = estimated(name, args, streams)
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
            found.append((display(name), result.estimate))
    if refused:
        report = Report.of(refused, files=len(files))
        streams.err.write(render(report, "text", RULES, version=__version__))
    streams.out.write(render_estimates(found, args.format))
    over = any(not e.fits or (args.strict and e.at_risk) for _name, e in found)
    if unread:
        return EXIT_USAGE
    return EXIT_PROBLEMS if over or refused else EXIT_OK
