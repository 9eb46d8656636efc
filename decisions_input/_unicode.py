"""Questions about a ``str`` answered at C speed, without a regex or a loop per character.

CPython stores a string one, two or four bytes per code point, the narrowest that holds
its largest code point; ``sys.getsizeof`` tells which in constant time. A string stored one
byte per code point cannot hold a surrogate, and encoding a wider one in its own width
(UTF-16 or UTF-32, a near copy) refuses a surrogate as the UTF-8 encoder would, for less.
"""

from __future__ import annotations

import sys
from typing import Final

__all__ = ["char_width", "has_surrogate"]


def _header() -> int:
    """The size of a non-ASCII string object beyond its code points and their terminator.

    Measured on a string made at run time: a literal, and on Python 3.12 and later every
    one-character Latin-1 string, may be a shared object whose size counts more (a cached
    UTF-8 copy), which would make the header seem larger and a wide string seem narrow.
    """
    made = "".join(["\xe9", "\xe9"])
    return sys.getsizeof(made, 0) - 3


_HEADER: Final = _header()


def char_width(text: str) -> int:
    """Return how many bytes the interpreter stores per code point of ``text``: 1, 2 or 4.

    The answer may be too wide (a cached UTF-8 copy counts in the size; other interpreters
    answer 4), never too narrow.
    """
    if text.isascii():
        return 1
    size = sys.getsizeof(text, 0) - _HEADER
    per_char = size // (len(text) + 1)
    return 1 if per_char <= 1 else 2 if per_char <= 3 else 4


def has_surrogate(text: str) -> bool:
    """Tell whether ``text`` holds a surrogate code point, which UTF-8 cannot encode."""
    width = char_width(text)
    if width == 1:
        return False
    try:
        text.encode("utf-16-le" if width == 2 else "utf-32-le")
    except UnicodeEncodeError:
        return True
    return False
