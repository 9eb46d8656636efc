"""``decisions-input build``: a validated, canonical request from a spec."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from .. import __version__
from .common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    Streams,
    UsageError,
    apply_strict,
    dedupe,
    reason,
    write_in_place,
)
from .formats import NotShown, Report, render, render_text
from .jobs import capped, problem_cap
from .specs import assemble, read_spec

if TYPE_CHECKING:
    from ..request import Request

__all__ = ["run"]


def _write_stdout(request: Request, out: TextIO) -> None:
    """Stream the request to a real standard output; a text-only stream gets the text."""
    binary = getattr(out, "buffer", None)
    if binary is None:
        out.write(request.dumps() + "\n")
        return
    out.flush()
    request.dump(binary)
    binary.write(b"\n")
    binary.flush()


def run(args: argparse.Namespace, streams: Streams) -> int:
    from ..limits import RULES

    spec = read_spec(args.spec, streams, max_bytes=args.max_bytes)
    request, problems = assemble(spec.doc.value, spec.base, args.target)
    cap = problem_cap(args.max_problems)
    kept = capped(dedupe(apply_strict(problems, args.strict)), cap)
    not_shown = NotShown(spec.name, kept.errors_left_out, kept.warnings_left_out)
    report = Report.of(spec.doc.place(kept.problems), files=1, not_shown=[not_shown], cap=cap)
    if request is None or report.errors:
        streams.out.write(render(report, args.format, RULES, version=__version__))
        return EXIT_PROBLEMS
    to_stdout = args.output in (None, "-")
    if to_stdout:
        _write_stdout(request, streams.out)
    else:
        try:
            write_in_place(args.output, request.dump)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {reason(exc)}") from exc
    if not to_stdout:
        streams.out.write(render(report, args.format, RULES, version=__version__))
    elif report.findings:
        streams.err.write(render_text(report))
    return EXIT_OK
