"""The argument parser: every command's options and help, without importing the commands.

Each command names the module of ``decisions_input.cli`` that runs it (its ``run``); that
module is imported only when the command runs, so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from .. import __version__
from .common import ESTIMATE_FORMATS, EXIT_USAGE, FORMATS, PROG, TARGET_CHOICES, Exit, Streams

__all__ = ["Parser", "build_parser", "size_in_bytes"]


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


_EXIT_CHECK = (
    "Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, "
    "2 usage error, unreadable file or internal failure."
)
_EXIT_LINT = (
    "Exit status: 0 no errors (warnings allowed), 1 errors found, "
    "2 usage error, unreadable file or internal failure."
)
_EXIT_SNIFF = (
    "Exit status: 0 every file is accepted, 1 a file is refused, "
    "2 usage error, unreadable file or internal failure."
)
_EXIT_ESTIMATE = (
    "Exit status: 0 every request fits, 1 one does not (with --strict: may not) or has "
    "errors that stop the estimate, 2 usage error, unreadable file or internal failure. "
    "With --against: 0 every pair compared or said why not (an error body, no usage), "
    "1 a file has errors that stop its comparison, or with --fail-outside a reported "
    "figure is outside its bounds, 2 pairing refused, usage error, unreadable file or "
    "internal failure."
)
_EXIT_RULES = "Exit status: 0 listed, 2 usage error."
_EXIT_EXPORT = "Exit status: 0 written, 2 usage error or a file that cannot be written."
_EXIT_TOP = (
    "Exit status: 0 nothing wrong, 1 problems found, 2 usage error, unreadable file or "
    "internal failure; each command's --help says more."
)


class _Limit:
    """Figures of the limits table for help texts, read only when the help is shown.

    Each figure is a limit's name, or a (label, name) pair: ``200,000,000 for a request``.
    """

    def __init__(self, *names: str | tuple[str, str]) -> None:
        self._names = names

    def __str__(self) -> str:
        from ..limits import GEMINI

        shown = []
        for item in self._names:
            label, name = item if isinstance(item, tuple) else ("", item)
            shown.append(f"{getattr(GEMINI, name):,}" + (f" for {label}" if label else ""))
        return " and ".join(shown)


def _add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format: text (default), json, sarif (SARIF 2.1.0), github (annotations)",
    )


def _add_target(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument(
        "--target", choices=TARGET_CHOICES, metavar="TARGET", default=None, help=help_text
    )


def _add_strict(
    parser: argparse.ArgumentParser, help_text: str = "treat warnings as errors"
) -> None:
    parser.add_argument("--strict", action="store_true", help=help_text)


def _add_max_bytes(
    parser: argparse.ArgumentParser,
    what: str,
    *limits: str | tuple[str, str],
    stdin: str = "; standard input is held to the same bound",
) -> None:
    action = parser.add_argument(
        "--max-bytes",
        type=size_in_bytes,
        metavar="SIZE",
        help=f"read no {what} bigger than SIZE bytes (k, M, G: thousands, millions, "
        f"billions; default %(bound)s){stdin}",
    )
    action.bound = _Limit(*limits)  # type: ignore[attr-defined]


def _add_max_problems(parser: argparse.ArgumentParser) -> None:
    action = parser.add_argument(
        "--max-problems",
        type=_non_negative,
        metavar="N",
        help="report at most N problems per file, errors first (0: all; default %(cap)s); "
        "the summary still counts every problem and says how many were left out",
    )
    action.cap = _Limit("MAX_PROBLEMS_PER_FILE")  # type: ignore[attr-defined]


def _sub(
    subparsers: Any,
    name: str,
    streams: Streams,
    help_text: str,
    command: str | None,
    epilog: str,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text, description=help_text, epilog=epilog, streams=streams
    )
    if command is not None:
        parser.set_defaults(handler=command)
    return parser


def _add_validate(subparsers: Any, streams: Streams) -> None:
    p = _sub(subparsers, "validate", streams, "check JSON request files", "validate", _EXIT_CHECK)
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="request file, folder (its *.json files, hidden ones left out), glob pattern "
        "such as 'requests/**/*.json', or - for standard input",
    )
    _add_target(
        p,
        "check every file against this API (%(choices)s) instead of the one its shape names: "
        "Parallel for a body with state and no model, Gemini otherwise",
    )
    _add_strict(p)
    _add_format(p)
    _add_max_problems(p)
    _add_max_bytes(p, "request file", "MAX_REQUEST_FILE_BYTES")
    action = p.add_argument(
        "--jobs",
        type=_non_negative,
        default=0,
        metavar="N",
        help="worker processes (default 0: one process, or one per CPU up to %(most)s when "
        "the files hold %(least)s bytes or more together)",
    )
    action.most = _Limit("MAX_WORKERS")  # type: ignore[attr-defined]
    action.least = _Limit("PARALLEL_MIN_BYTES")  # type: ignore[attr-defined]


def _add_check_response(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "check-response",
        streams,
        "check a JSON response file, against its request when given",
        "check_response",
        _EXIT_CHECK,
    )
    p.add_argument("response", metavar="RESPONSE", help="response file or - for standard input")
    p.add_argument(
        "--request", metavar="REQUEST", help="the request file the response answers, or -"
    )
    _add_target(
        p,
        "the API the response is from (%(choices)s; default: the one the request's shape "
        "names when --request is given, else the one the response's own shape names)",
    )
    _add_strict(p)
    _add_format(p)
    _add_max_problems(p)
    _add_max_bytes(
        p,
        "response or request",
        ("the response", "MAX_RESPONSE_FILE_BYTES"),
        ("the request", "MAX_REQUEST_FILE_BYTES"),
    )


def _add_build(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "build",
        streams,
        "build a validated, canonical request from a YAML or JSON spec",
        "build",
        _EXIT_CHECK,
    )
    p.add_argument(
        "spec",
        metavar="SPEC",
        help="spec file (YAML or JSON), or - for standard input; media paths in it are read "
        "relative to the spec's folder (to the current folder for -)",
    )
    p.add_argument("-o", "--output", metavar="OUT", help="write the request here (default: stdout)")
    _add_target(
        p,
        "build for this API (%(choices)s) whatever the spec says (default: the spec's "
        "target, else gemini)",
    )
    _add_strict(p)
    _add_format(p)
    _add_max_problems(p)
    _add_max_bytes(p, "spec", "MAX_SPEC_FILE_BYTES")


def _add_sniff(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "sniff",
        streams,
        "show what the library sees in media files",
        "sniff",
        _EXIT_SNIFF,
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="file, or - for standard input (files are sniffed from their head and "
        "structure, never read whole)",
    )
    p.add_argument("--mime-type", metavar="TYPE", help="the declared MIME type to compare with")
    _add_target(p, "the API whose MIME types and limits apply (%(choices)s; default gemini)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    _add_max_bytes(
        p,
        "media on standard input",
        "MAX_PIPED_MEDIA_BYTES",
        stdin="; files are never read whole",
    )


def _add_estimate(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "estimate",
        streams,
        "estimate the input tokens of requests per block and in total, against the budget",
        "estimate",
        _EXIT_ESTIMATE,
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="JSON request file, YAML spec (.yaml, .yml), folder (its *.json files), glob "
        "pattern, or - for standard input",
    )
    p.add_argument("--spec", action="store_true", help="read every file as a spec, JSON too")
    p.add_argument(
        "--against",
        nargs="+",
        metavar="RESPONSE",
        help="compare each estimate with the input tokens the response to its request "
        "reported, per modality and in total (put it after the files). A response pairs "
        "with the request it is named after: REQUEST.json or REQUEST.yaml with "
        "REQUEST.json or REQUEST.ANYTHING.json, in any folder; one request and one "
        "response pair whatever their names; anything that does not pair one to one is "
        "refused",
    )
    p.add_argument(
        "--fail-outside",
        action="store_true",
        help="with --against: exit 1 when a reported figure is below or above its bounds",
    )
    _add_target(
        p,
        "estimate for this API (%(choices)s) instead of the one each file names: a spec's "
        "target; for a request, Parallel when it has state and no model, else gemini",
    )
    _add_strict(p, "exit 1 also when a request may not fit (only its high estimate is over)")
    p.add_argument("--format", choices=ESTIMATE_FORMATS, default="text", help="output format")
    _add_max_bytes(
        p,
        "request, spec or response",
        ("a request", "MAX_REQUEST_FILE_BYTES"),
        ("a spec", "MAX_SPEC_FILE_BYTES"),
        ("a response", "MAX_RESPONSE_FILE_BYTES"),
    )


def _add_rules(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "rules",
        streams,
        "list every rule code with its limits per target",
        "rules",
        _EXIT_RULES,
    )
    _add_target(p, "show the limits of this API only (%(choices)s; default: every target)")
    p.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="output format: markdown (default, the README's table) or json",
    )


def _add_schemas(subparsers: Any, streams: Streams) -> None:
    p = _sub(
        subparsers,
        "schemas",
        streams,
        "work with OpenAPI and JSON Schema documents",
        None,
        _EXIT_LINT,
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    lint = _sub(
        actions,
        "lint",
        streams,
        "check the bundled documents, or the given ones: dangling $ref, meta-schema, examples",
        "schemas",
        _EXIT_LINT,
    )
    lint.add_argument(
        "files", nargs="*", metavar="FILE", help="OpenAPI 3.x or JSON Schema file (YAML or JSON)"
    )
    _add_format(lint)
    _add_max_problems(lint)
    _add_max_bytes(lint, "schema file", "MAX_SCHEMA_FILE_BYTES")
    export = _sub(
        actions,
        "export",
        streams,
        "print a self-contained JSON Schema (draft 2020-12) of a request or response body, "
        "for editors and check-jsonschema",
        "schema_export",
        _EXIT_EXPORT,
    )
    export.add_argument(
        "--target",
        choices=TARGET_CHOICES,
        metavar="TARGET",
        required=True,
        help="the API whose body the schema describes (%(choices)s)",
    )
    export.add_argument(
        "--kind",
        choices=("request", "response"),
        default="request",
        help="the request body (default) or the body of a successful response",
    )
    export.add_argument(
        "-o", "--output", metavar="OUT", help="write the schema here (default: stdout)"
    )


def build_parser(streams: Streams) -> Parser:
    parser = Parser(
        prog=PROG,
        description="Validate and build requests for Decisions APIs (Gemini and Parallel).",
        epilog=_EXIT_TOP,
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


_UNITS = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9}


def size_in_bytes(text: str) -> int:
    """Parse a size for argparse: a whole number of bytes, optionally with k, M or G."""
    digits = text.strip().replace("_", "")
    unit = digits[-1:] if digits[-1:] in _UNITS and digits[-1:] else ""
    number = digits[: len(digits) - len(unit)]
    if not (number.isascii() and number.isdigit()):
        raise argparse.ArgumentTypeError(
            f"expected a whole number of bytes, optionally with k, M or G, found {text!r}"
        )
    return int(number) * _UNITS[unit]
