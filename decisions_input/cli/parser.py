"""The argument parser: every command's options and help, without importing the commands.

Each command names the module of ``decisions_input.cli`` that runs it (its ``run``); that
module is imported only when the command runs, so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from .. import __version__
from .common import ESTIMATE_FORMATS, EXIT_USAGE, FORMATS, PROG, TARGETS, Exit, Streams

__all__ = ["Parser", "build_parser"]


class Parser(argparse.ArgumentParser):
    """An argument parser that writes to the given streams and never exits the process."""

    def __init__(self, *args: Any, streams: Streams, **kwargs: Any) -> None:
        self._streams = streams
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            to_out = file is None or file is sys.stdout
            (self._streams.out if to_out else self._streams.err).write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._streams.err.write(message)
        raise Exit(status)

    def error(self, message: str) -> NoReturn:
        self.print_usage(self._streams.err)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


_EPILOG = (
    "Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, "
    "2 usage error, unreadable file or internal failure."
)


def _add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format: text (default), json, sarif (SARIF 2.1.0), github (annotations)",
    )


def _add_target(parser: argparse.ArgumentParser, *, default: str | None = "gemini") -> None:
    parser.add_argument(
        "--target",
        choices=TARGETS,
        default=default,
        help="the API the request is for (default: "
        + (default or "from the file: a spec's target; Parallel for JSON with state and no model")
        + ")",
    )


def _add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")


def _sub(
    subparsers: Any,
    name: str,
    streams: Streams,
    help_text: str,
    command: str | None,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text, description=help_text, epilog=_EPILOG, streams=streams
    )
    if command is not None:
        parser.set_defaults(handler=command)
    return parser


def _add_validate(subparsers: Any, streams: Streams) -> None:
    p = _sub(subparsers, "validate", streams, "check JSON request files", "validate")
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="request file, directory (its *.json files) or - for standard input",
    )
    _add_target(p)
    _add_strict(p)
    _add_format(p)
    p.add_argument(
        "--jobs",
        type=_non_negative,
        default=0,
        metavar="N",
        help="worker processes (default 0: one process unless there are many files)",
    )


def _add_check_response(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "check-response",
        streams,
        "check a JSON response file, against its request when given",
        "check_response",
    )
    p.add_argument("response", metavar="RESPONSE", help="response file or - for standard input")
    p.add_argument("--request", metavar="REQUEST", help="the request file the response answers")
    p.add_argument(
        "--target",
        choices=TARGETS,
        default=None,
        help="the API the response is from (default: Parallel when the request has state and "
        "no model, else gemini)",
    )
    _add_strict(p)
    _add_format(p)


def _add_build(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "build",
        streams,
        "build a validated, canonical request from a YAML or JSON spec",
        "build",
    )
    p.add_argument("spec", metavar="SPEC", help="spec file (YAML or JSON) or - for standard input")
    p.add_argument("-o", "--output", metavar="OUT", help="write the request here (default: stdout)")
    _add_target(p, default=None)
    _add_strict(p)
    _add_format(p)


def _add_sniff(subparsers: Any, streams: Streams) -> None:
    p = _sub(subparsers, "sniff", streams, "show what the library sees in media files", "sniff")
    p.add_argument("files", nargs="+", metavar="FILE", help="file or - for standard input")
    p.add_argument("--mime-type", metavar="TYPE", help="the declared MIME type to compare with")
    _add_target(p)
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")


def _add_estimate(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "estimate",
        streams,
        "estimate the input tokens of requests per block and in total, against the budget",
        "estimate",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="JSON request file, YAML spec (.yaml, .yml), or - for standard input",
    )
    p.add_argument("--spec", action="store_true", help="read every file as a spec, JSON too")
    _add_target(p, default=None)
    p.add_argument("--strict", action="store_true", help="exit 1 also when it may not fit")
    p.add_argument("--format", choices=ESTIMATE_FORMATS, default="text", help="output format")


def _add_rules(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers, "rules", streams, "list every rule code with its limits per target", "rules"
    )
    _add_target(p, default=None)
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")


def _add_schemas(subparsers: Any, streams: Streams) -> None:
    p = _sub(subparsers, "schemas", streams, "work with OpenAPI and JSON Schema documents", None)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    lint = _sub(
        actions,
        "lint",
        streams,
        "check the bundled documents, or the given ones: dangling $ref, meta-schema, examples",
        "schemas",
    )
    lint.add_argument("files", nargs="*", metavar="FILE", help="OpenAPI 3.x or JSON Schema file")
    _add_format(lint)


def build_parser(streams: Streams) -> Parser:
    parser = Parser(
        prog=PROG,
        description="Validate and build requests for Decisions APIs (Gemini and Parallel).",
        epilog=_EPILOG,
        streams=streams,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (
        _add_validate,
        _add_check_response,
        _add_build,
        _add_sniff,
        _add_estimate,
        _add_rules,
        _add_schemas,
    ):
        add(subparsers, streams)
    return parser


def _non_negative(text: str) -> int:
    """Parse a whole number of at least 0 for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, found {value}")
    return value
