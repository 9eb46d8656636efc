"""The ``decisions-input`` command: check request files in CI, build requests, lint schemas.

Commands::

    decisions-input validate FILE... | -      request files (JSON) or stdin
    decisions-input check-response RESPONSE [--request REQUEST]
    decisions-input build SPEC [-o OUT]        YAML or JSON spec -> canonical request
    decisions-input sniff FILE...              what the library sees in a file
    decisions-input estimate FILE|SPEC...      input tokens per block and in total, offline
        [--against RESPONSE...]                against the usage the responses reported
    decisions-input rules                      every rule code with its limits
    decisions-input schemas lint [FILE...]     bundled or given OpenAPI / JSON Schema files

Exit status: 0 when nothing is wrong (warnings allowed unless ``--strict``), 1 when
something is, 2 for a usage error, an unreadable file or a failure of the tool itself.
Problems are printed as text, JSON, SARIF 2.1.0 or GitHub workflow commands, sorted by
file, line, column and code. Only this package prints; it never shows a traceback.

One module per command (``validate``, ``check_response``, ``build``, ``sniff``,
``estimate``, ``rules``, ``schemas``), each with a ``run(args, streams) -> int`` that
:func:`main` imports only when that command runs, so ``--help`` stays fast; ``against``
runs ``estimate --against``. Beside them: ``parser`` (every option and help text),
``files`` (reading), ``jobs`` (running a check over many files), ``placing`` and
``documents`` (JSON and YAML text), ``specs`` (a spec to a request), ``pairing`` (requests
with their responses) and ``formats`` (text, JSON, SARIF, GitHub output).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import IO, Any, TextIO

from .common import EXIT_PROBLEMS, EXIT_USAGE, PROG, Exit, Streams, UsageError, one_line, reason
from .parser import build_parser

__all__ = ["main", "main_entry"]


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: IO[Any] | None = None,
) -> int:
    """Run the command line and return its exit status; never raise, never exit.

    ``stdin`` is read for ``-`` arguments (text or binary; default ``sys.stdin``).

    .. versionadded:: 0.1
    """
    streams = Streams(
        stdout if stdout is not None else sys.stdout,
        stderr if stderr is not None else sys.stderr,
        stdin,
    )
    try:
        args = build_parser(streams).parse_args(list(argv) if argv is not None else None)
        command = importlib.import_module(f"{__name__}.{args.handler}")
        status: int = command.run(args, streams)
        streams.out.flush()
        return status
    except Exit as exc:
        return exc.status
    except KeyboardInterrupt:
        streams.err.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_PROBLEMS
    except Exception as exc:  # the last line of defence: one line, never a traceback
        streams.err.write(f"{PROG}: {_failure(exc)}\n")
        return EXIT_USAGE


def _failure(exc: Exception) -> str:
    """The one line for a failure: ``error: ...`` for bad input, else ``internal error: ...``."""
    from ..errors import DecisionsInputError, InvalidInput

    if isinstance(exc, InvalidInput) and exc.problems:
        first = exc.problems[0]
        return f"error: {first.code}: {one_line(first.message)}"
    if isinstance(exc, (DecisionsInputError, OSError, UsageError)):
        return f"error: {reason(exc)}"
    return f"internal error: {type(exc).__name__}: {reason(exc)}"


def main_entry() -> None:
    """Console-script entry: run :func:`main` on ``sys.argv`` and exit with its status.

    Output escapes what the formats cannot hold; what the terminal's encoding cannot hold
    is written as a backslash escape rather than lost with the rest of the report.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): end quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(status)
