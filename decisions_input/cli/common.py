"""What every command shares: the streams, exit statuses, usage errors and small helpers.

Nothing here imports the library's modules at load time: ``--help`` runs on this, the
parser and ``argparse`` alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TextIO

if TYPE_CHECKING:
    from ..errors import Problem

__all__ = [
    "ESTIMATE_FORMATS",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "FORMATS",
    "PROG",
    "STDIN_NAME",
    "TARGET_CHOICES",
    "TOOL_NAME",
    "Exit",
    "Streams",
    "UsageError",
    "apply_strict",
    "dedupe",
    "display",
    "failure_line",
    "one_line",
    "reason",
    "targets",
    "type_name",
    "write_in_place",
]

STDIN_NAME = "<stdin>"
TOOL_NAME = "decisions-input"
FORMATS = ("text", "json", "sarif", "github")
ESTIMATE_FORMATS = ("text", "json")

PROG = TOOL_NAME
EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


def targets() -> tuple[str, ...]:
    """The target API names, from the limits table."""
    from ..limits import LIMITS

    return tuple(LIMITS)


class _TargetNames:
    """The target names as ``argparse`` choices, read from the limits table on first use.

    Top-level ``--help`` never looks at them, so it does not load the table.
    """

    def __contains__(self, name: object) -> bool:
        return name in targets()

    def __iter__(self) -> Iterator[str]:
        return iter(targets())

    def __len__(self) -> int:
        return len(targets())


TARGET_CHOICES: Any = _TargetNames()


class Streams(NamedTuple):
    """Where a run writes its output and its messages, and what ``-`` reads."""

    out: TextIO
    err: TextIO
    stdin: IO[Any] | None


class Exit(Exception):
    """Leave ``main`` with a status; raised by the parser instead of ``sys.exit``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class UsageError(Exception):
    """The command line or a file it names cannot be used; exit status 2."""


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def reason(exc: BaseException) -> str:
    """One line saying why ``exc`` happened: the system's words for an OS error."""
    from ..errors import DecisionsInputError

    if isinstance(exc, OSError) and exc.strerror and not isinstance(exc, DecisionsInputError):
        return exc.strerror
    return one_line(str(exc)) or type(exc).__name__


def failure_line(name: str, exc: BaseException) -> str:
    """The one line for a failure inside the library on one file."""
    return (
        f"internal error: {name}: {type(exc).__name__}: {one_line(str(exc))[:400]}; "
        "this is a defect of the tool, not of the file"
    )


def apply_strict(problems: Iterable[Problem], strict: bool) -> list[Problem]:
    """Report warnings as errors under ``--strict`` (``validate`` applies the same policy)."""
    from dataclasses import replace

    from ..errors import Severity

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


def write_in_place(target: str, write: Callable[[IO[bytes]], object]) -> None:
    """Write a file next to ``target`` and rename it into place: never left half-written."""
    import os
    import tempfile
    from pathlib import Path as FsPath

    path = FsPath(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fp:
            write(fp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        FsPath(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask
