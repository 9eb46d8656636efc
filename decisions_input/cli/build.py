"""``decisions-input build``: a validated, canonical request from a spec."""

from __future__ import annotations

import argparse
import os
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, TextIO

from .. import __version__
from .common import EXIT_OK, EXIT_PROBLEMS, Streams, UsageError, apply_strict, dedupe, reason
from .formats import NotShown, Report, render, render_text
from .jobs import capped, problem_cap
from .specs import assemble, read_spec

if TYPE_CHECKING:
    from ..request import Request

__all__ = ["run"]


def _write_output(request: Request, target: str) -> None:
    """Write the request next to ``target`` and rename it into place: never half-written."""
    import tempfile

    path = FsPath(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fp:
            request.dump(fp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        FsPath(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
            _write_output(request, args.output)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {reason(exc)}") from exc
    if not to_stdout:
        streams.out.write(render(report, args.format, RULES, version=__version__))
    elif report.findings:
        streams.err.write(render_text(report))
    return EXIT_OK
