"""Exceptions and the problem record shared by every module.

The exception tree::

    DecisionsInputError          root of everything this library raises
    ├── InvalidInput             (+ ValueError) carries ``problems``
    ├── SourceError              (+ OSError) a file, stream or URL could not be read
    ├── SchemaError              a bundled or given schema document is broken
    ├── NotPicklable             (+ TypeError) a value cannot cross a process boundary
    └── APIError                 the API answered with an error body instead of a decision
                                 (defined with the response models, decisions_input.responses)

Errors raised by Pillow, pypdf, libmagic, jsonschema or pydantic never escape: they
become a :class:`Problem` or are re-raised as one of the classes above ``from`` the
original exception.

Every exception pickles with what it carries (``problems``, the API's error body), so a
worker process can raise it and the parent catch it whole.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "DecisionsInputError",
    "InvalidInput",
    "NotPicklable",
    "Path",
    "Problem",
    "SchemaError",
    "Severity",
    "SourceError",
    "render_json_path",
]

Path = tuple["str | int", ...]

_PLAIN_MEMBER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Severity(str, enum.Enum):
    """How bad a problem is: an error fails the request, a warning only flags it."""

    ERROR = "error"
    WARNING = "warning"

    def __str__(self) -> str:
        return self.value


def render_json_path(path: Iterable[str | int]) -> str:
    """Render a path as JSONPath: ``$.questions.q1.criteria["a b"]``, ``$.input[2]``."""
    parts = ["$"]
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif not isinstance(step, str):
            # Not a JSON member name (a Python dict may have any key): show it as Python does.
            parts.append(f"[{step!r}]")
        elif _PLAIN_MEMBER.fullmatch(step):
            parts.append(f".{step}")
        else:
            parts.append(f"[{_quote(step)}]")
    return "".join(parts)


def _quote(name: str) -> str:
    """Quote a member name as JSON, escaping every character that does not print."""
    text = json.dumps(name, ensure_ascii=False)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(char: str) -> str:
    point = ord(char)
    if point > 0xFFFF:
        point -= 0x10000
        return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"
    return f"\\u{point:04x}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding about one place in a request body.

    ``path`` holds member names and array indexes from the root of the body; ``code`` is
    a stable dotted rule code listed in :data:`decisions_input.RULES`.

    .. versionadded:: 0.1
    """

    path: Path
    code: str
    message: str
    severity: Severity = Severity.ERROR

    @property
    def json_path(self) -> str:
        """The path as JSONPath text, for people and for CI annotations."""
        return render_json_path(self.path)

    @property
    def is_error(self) -> bool:
        """True for an error, False for a warning."""
        return self.severity is Severity.ERROR

    def __str__(self) -> str:
        return f"{self.json_path}: {self.severity.value} {self.code}: {self.message}"


class DecisionsInputError(Exception):
    """Root of every exception this library raises.

    Two of the library's exceptions are equal when they have the same type, arguments and
    attributes (``problems``, ``status``, notes), so one that crossed a process boundary
    compares equal to the one raised; the hash agrees with that equality.

    .. versionchanged:: 0.2 equality by value.
    """

    def _value(self) -> tuple[object, ...]:
        return (type(self), self.args, vars(self))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DecisionsInputError):
            return NotImplemented
        return self._value() == other._value()

    def __hash__(self) -> int:
        return hash((type(self), self.args))


class InvalidInput(DecisionsInputError, ValueError):
    """The input breaks one or more rules; ``problems`` lists every one found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self._summary())

    def _summary(self) -> str:
        if not self.problems:
            return "invalid input"
        lines = [str(p) for p in self.problems[:10]]
        more = len(self.problems) - 10
        if more > 0:
            lines.append(f"... and {more} more")
        head = f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"
        return head + ":\n" + "\n".join(lines)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.problems,), self.__dict__)

    @property
    def codes(self) -> tuple[str, ...]:
        """The rule codes of the problems, in order."""
        return tuple(p.code for p in self.problems)


class SourceError(DecisionsInputError, OSError):
    """A file, stream or URL could not be read as a media source."""


class SchemaError(DecisionsInputError):
    """A schema document is broken: a dangling ``$ref``, a meta-schema violation, a bad example."""


class NotPicklable(DecisionsInputError, TypeError):
    """A value cannot be pickled: it reads from something only this process holds.

    A media block built from an open file object reads that file again when the request
    is written; the file does not cross a process boundary. Build the block from the path
    or from the bytes instead.

    .. versionadded:: 0.2
    """
