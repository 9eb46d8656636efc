"""The strict reader: an exact, iterative JSON tokenizer that explains and places hazards.

It runs only once the fast path has a doubt, and on :func:`~decisions_input.jsontext.locate`.
It never recurses, so no nesting depth can exhaust the stack, and it hands the subtrees
that are free of hazards back to the C scanner. Its memory follows the value it builds:
positions are offsets, turned into lines and columns only for what is reported.
"""

from __future__ import annotations

import json
import re
import sys
from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Any, Final, cast

from .._unicode import has_surrogate
from ..errors import Path, Problem
from ._fast import (
    MAX_DOUBLE_INT,
    SAFE_INT_CHARS,
    SCAN,
    ascii_compatible,
    depth_at_most,
    scanstring,
    shape,
    skeleton,
    surrogate_escapes,
    ws,
)

__all__ = ["Reader", "line_columns", "surrogate_offsets"]

# The reader hands subtrees to the C scanner down to this nesting level only, so a hazard
# deep in a large document costs a bounded number of C passes.
_SKIP_LEVELS: Final = 8

_number = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?").match
_surrogates = re.compile("[\ud800-\udfff]").finditer
_NUMBER_START: Final = frozenset("-0123456789")


def surrogate_offsets(text: str, raw: bytes | None) -> tuple[int, ...]:
    """Return the offsets where a lone surrogate may be (a superset), in order.

    ``raw`` is the UTF-8 that ``text`` was decoded from, if any (then no code point in the
    text is a surrogate).
    """
    found = list(surrogate_escapes(text))
    if raw is None and has_surrogate(text):
        found.extend(match.start() for match in _surrogates(text))
        found.sort()
    return tuple(found)


def line_columns(text: str, offsets: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Return the 1-based line and column of each offset, reading ``text`` once.

    Lines end at LF; columns count code points. Memory follows the number of offsets, not
    the number of lines.
    """
    found: dict[int, tuple[int, int]] = {}
    line, line_start, at = 1, 0, 0
    for pos in sorted(set(offsets)):
        breaks = text.count("\n", at, pos)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", at, pos) + 1
        found[pos] = (line, pos - line_start + 1)
        at = pos
    return found


def _line_column(text: str, pos: int) -> tuple[int, int]:
    return line_columns(text, (pos,))[pos]


def _found(text: str, pos: int) -> str:
    return repr(text[pos]) if pos < len(text) else "end of text"


def _clip(literal: str) -> str:
    return literal if len(literal) <= 40 else f"{literal[:20]}…({len(literal)} characters)"


def _string_error(message: str) -> str:
    """Say what the json module's string scanner expected, from its message."""
    if message.startswith("Invalid control character"):
        return "a control character to be escaped"
    if message.startswith("Invalid \\u"):
        return "four hex digits after '\\u'"
    if message.startswith("Invalid \\"):
        return "a valid escape after '\\'"
    return "a valid string"


_State = Callable[[], "_State | None"]


class Reader:
    """Walk JSON text without recursion, building the value and recording every hazard.

    With ``wanted`` it builds nothing and reports nothing: it notes where the values at
    those paths are written, for :func:`locate`.
    """

    __slots__ = (
        "current",
        "deep_at",
        "deep_path",
        "hazards",
        "index",
        "key_pos",
        "max_depth",
        "n",
        "ok",
        "path",
        "pos",
        "problems",
        "skip",
        "stack",
        "text",
        "wanted",
        "wanted_len",
    )

    def __init__(
        self,
        text: str,
        max_depth: int,
        *,
        surrogates: tuple[int, ...] = (),
        wanted: frozenset[Path] | None = None,
    ) -> None:
        self.text = text
        self.n = len(text)
        self.max_depth = max_depth
        self.pos = self.key_pos = ws(text, 0).end()
        self.path: list[str | int] = []
        self.stack: list[dict[str, Any] | list[Any]] = []
        self.current: Any = None
        self.problems: list[tuple[int, Problem]] = []
        self.ok = True
        self.deep_at = -1
        self.deep_path: Path = ()
        self.wanted = wanted
        self.wanted_len = max(map(len, wanted), default=0) if wanted else 0
        self.index: dict[Path, list[tuple[int, int]]] = {}
        self.skip = wanted is None
        self.hazards = surrogates

    def run(self) -> Reader:
        state: _State | None = self._value
        while state is not None:
            state = state()
        return self

    @property
    def value(self) -> Any:
        return self.current if self.ok else None

    # -- reporting --

    def _report(self, pos: int, code: str, message: str, *, member: str | None = None) -> None:
        """Record a problem at the current path, or at ``member`` of the current object."""
        if self.deep_at >= 0 or self.wanted is not None:
            return  # inside a container that is too deep, only syntax errors count
        path = tuple(self.path) if member is None else (*self._container_path(), member)
        self.problems.append((pos, Problem(path, code, message)))

    def _syntax(self, pos: int, expected: str, path: Path | None = None) -> None:
        self.ok = False
        if self.wanted is not None:
            return None
        if self.deep_at >= 0:
            path = self.deep_path
        elif path is None:
            path = tuple(self.path)
        line, column = _line_column(self.text, pos)
        message = f"expected {expected} at line {line} column {column}, found "
        self.problems.append((pos, Problem(path, "json.syntax", message + _found(self.text, pos))))
        return None

    def _container_path(self) -> Path:
        return tuple(self.path[:-1])

    # -- values --

    def _value(self) -> _State | None:
        text, pos = self.text, self.pos
        if self.wanted is not None:
            self._note(pos)
        if pos >= self.n:
            self._syntax(pos, "a JSON value")
            return None
        char = text[pos]
        if char == "{" or char == "[":
            return self._open(char, pos)
        if char == '"':
            end = self._string(pos, key=False)
        elif char in _NUMBER_START:
            end = self._number(pos)
        else:
            end = self._literal(pos)
        if end < 0:
            return None
        self.pos = end
        return self._after

    def _note(self, pos: int) -> None:
        if len(self.path) <= self.wanted_len:
            path = tuple(self.path)
            if self.wanted is not None and path in self.wanted:
                self.index.setdefault(path, []).append((self.key_pos, pos))

    def _string(self, pos: int, *, key: bool) -> int:
        """Parse the string at ``pos`` into ``current``; return its end or -1."""
        try:
            value, end = scanstring(self.text, pos + 1, True)
        except json.JSONDecodeError as exc:
            where = self._container_path() if key else None
            if exc.msg.startswith("Unterminated"):
                self._syntax(self.n, "'\"' to close the string", where)
            else:
                self._syntax(exc.pos, _string_error(exc.msg), where)
            return -1
        if has_surrogate(value):
            lone = ord(next(_surrogates(value)).group())
            self._report(
                pos,
                "json.lone_surrogate",
                f"expected a complete surrogate pair, found lone surrogate "
                f"U+{lone:04X} in the {'member name' if key else 'string'}",
                member=value if key else None,
            )
        self.current = value
        return end

    def _number(self, pos: int) -> int:
        text = self.text
        match = _number(text, pos)
        if match is None:
            if text.startswith("-Infinity", pos):
                return self._non_finite(pos, "-Infinity", float("-inf"))
            self._syntax(pos, "a JSON value")
            return -1
        literal = match.group()
        if match.group(2) is None and match.group(3) is None:
            self.current = self._integer(pos, literal)
        else:
            self.current = value = float(literal)
            if value - value:
                self._out_of_range(pos, literal)
        return match.end()

    def _integer(self, pos: int, literal: str) -> int | None:
        if len(literal) <= SAFE_INT_CHARS:
            return int(literal)
        try:
            value = int(literal)
        except ValueError:  # longer than int() converts: surely beyond a double
            self.ok = False
            self._out_of_range(pos, literal)
            return None
        if abs(value) > MAX_DOUBLE_INT:
            self._out_of_range(pos, literal)
        return value

    def _out_of_range(self, pos: int, literal: str) -> None:
        self._report(
            pos,
            "json.number_range",
            f"expected a number within ±{sys.float_info.max!r}, found {_clip(literal)}",
        )

    def _literal(self, pos: int) -> int:
        text = self.text
        for word, value in _LITERALS:
            if text.startswith(word, pos):
                if isinstance(value, float):
                    return self._non_finite(pos, word, value)
                self.current = value
                return pos + len(word)
        self._syntax(pos, "a JSON value")
        return -1

    def _non_finite(self, pos: int, word: str, value: float) -> int:
        self._report(pos, "json.non_finite", f"expected a number, found {word}")
        self.current = value
        return pos + len(word)

    # -- containers --

    def _open(self, char: str, pos: int) -> _State | None:
        if self.skip and 0 < len(self.stack) < _SKIP_LEVELS and self._skip(pos):
            return self._after
        if len(self.stack) >= self.max_depth and self.deep_at < 0:
            self._report(
                pos, "json.too_deep", f"expected at most {self.max_depth} nested levels, found more"
            )
            # The value is still built: nesting is a problem of its own, and the rest of the
            # body can be checked.
            self.deep_at, self.deep_path = len(self.stack), tuple(self.path)
        container: dict[str, Any] | list[Any] = {} if char == "{" else []
        self.stack.append(container)
        text = self.text
        pos = ws(text, pos + 1).end()
        if text.startswith("}" if char == "{" else "]", pos):
            self.pos = pos
            return self._close(pos)
        self.pos = pos
        if char == "[":
            self.path.append(0)
            self.key_pos = pos
            return self._value
        self.path.append("")
        return self._value if self._member() else None

    def _skip(self, pos: int) -> bool:
        """Parse a hazard-free subtree with the C scanner; tell whether it was one."""
        try:
            value, end = SCAN(self.text, pos)
        except Exception:  # any failure only means: walk into it
            return False
        hazards = self.hazards
        if hazards and bisect_left(hazards, pos) != bisect_left(hazards, end):
            return False
        levels = self.max_depth - len(self.stack)
        text = self.text
        if text.count("[", pos, end) + text.count("{", pos, end) > levels:
            bones = skeleton(shape(ascii_compatible(text[pos:end])))
            if not depth_at_most(bones, levels):
                return False
        self.current, self.pos = value, end
        return True

    def _member(self) -> bool:
        """Parse ``"name":`` at ``pos``, check it, and make it the last path step."""
        text, pos = self.text, self.pos
        if not text.startswith('"', pos):
            self._syntax(pos, "a member name in double quotes", self._container_path())
            return False
        end = self._string(pos, key=True)
        if end < 0:
            return False
        key: str = self.current
        if self.wanted is None and key in self.stack[-1]:
            message = f"expected each member name once, found {json.dumps(key)} again"
            self._report(pos, "json.duplicate_key", message, member=key)
        colon = ws(text, end).end()
        if not text.startswith(":", colon):
            where = (*self._container_path(), key)
            self._syntax(colon, "':' after the member name", where)
            return False
        self.path[-1] = key
        self.key_pos = pos
        self.pos = ws(text, colon + 1).end()
        return True

    def _after(self) -> _State | None:
        """Store ``current`` in its container, then read a separator or a closer."""
        if not self.stack:
            self._finish()
            return None
        top = self.stack[-1]
        text = self.text
        pos = ws(text, self.pos).end()
        char = text[pos : pos + 1]
        # A container past the depth bound is kept empty: the value never nests deeper than
        # one level past the bound, and its readers need no recursion to the bottom.
        keep = self.wanted is None and (self.deep_at < 0 or len(self.stack) <= self.deep_at)
        if isinstance(top, dict):
            if keep:
                top[cast(str, self.path[-1])] = self.current
            if char == ",":
                self.pos = ws(text, pos + 1).end()
                return self._value if self._member() else None
            if char == "}":
                return self._close(pos)
            self._syntax(pos, "',' or '}'", self._container_path())
            return None
        if keep:
            top.append(self.current)
        if char == ",":
            self.path[-1] = cast(int, self.path[-1]) + 1
            self.pos = self.key_pos = ws(text, pos + 1).end()
            return self._value
        if char == "]":
            return self._close(pos)
        self._syntax(pos, "',' or ']'", self._container_path())
        return None

    def _close(self, pos: int) -> _State | None:
        self.current = self.stack.pop()
        if len(self.path) > len(self.stack):
            self.path.pop()
        if self.deep_at == len(self.stack):
            self.deep_at = -1
        self.pos = pos + 1
        return self._after

    def _finish(self) -> None:
        pos = ws(self.text, self.pos).end()
        if pos < self.n:
            line, column = _line_column(self.text, pos)
            self._report(
                pos,
                "json.trailing_data",
                f"expected the end of the text after the value at line {line} column {column}, "
                f"found {_found(self.text, pos)}",
            )
        return None


_LITERALS: Final[tuple[tuple[str, bool | float | None], ...]] = (
    ("true", True),
    ("false", False),
    ("null", None),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
)
