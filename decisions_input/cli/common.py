"""What every command shares: the streams, exit statuses, usage errors and small helpers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import IO, Any, TextIO

from ..errors import DecisionsInputError, Problem, Severity
from ..limits import LIMITS

__all__ = [
    "ESTIMATE_FORMATS",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "FORMATS",
    "PROG",
    "STDIN_NAME",
    "TARGETS",
    "TOOL_NAME",
    "Exit",
    "Streams",
    "UsageError",
    "apply_strict",
    "dedupe",
    "display",
    "one_line",
    "reason",
    "type_name",
]

STDIN_NAME = "<stdin>"
TOOL_NAME = "decisions-input"
FORMATS = ("text", "json", "sarif", "github")
ESTIMATE_FORMATS = ("text", "json")

PROG = TOOL_NAME
EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
TARGETS = tuple(LIMITS)


@dataclass(frozen=True, slots=True)
class Streams:
    out: TextIO
    err: TextIO
    stdin: IO[Any] | None


class Exit(Exception):
    """Leave ``main`` with a status; raised by the parser instead of ``sys.exit``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class UsageError(DecisionsInputError):
    """The command line or a file it names cannot be used; exit status 2."""


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and not isinstance(exc, DecisionsInputError):
        return exc.strerror
    return one_line(str(exc)) or type(exc).__name__


def apply_strict(problems: Iterable[Problem], strict: bool) -> list[Problem]:
    """Report warnings as errors under ``--strict`` (``validate`` applies the same policy)."""
    if not strict:
        return list(problems)
    return [replace(p, severity=Severity.ERROR) for p in problems]


def display(name: str) -> str:
    return STDIN_NAME if name == "-" else name


def type_name(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def dedupe(problems: Iterable[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))
