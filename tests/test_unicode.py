"""decisions_input._unicode: the storage width of a string and its surrogates, told at C speed.

The width comes from ``sys.getsizeof``, whose figures differ between Python versions (from
3.12 every one-character Latin-1 string is a shared object with a larger size): the
answer may be too wide, which costs an encode, but never too narrow, which would let a
lone surrogate through.
"""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from decisions_input._unicode import char_width, has_surrogate

_SURROGATE = re.compile("[\ud800-\udfff]")


def _true_width(text: str) -> int:
    widest = max(map(ord, text), default=0)
    return 1 if widest < 0x100 else 2 if widest < 0x10000 else 4


def _made_every_way(text: str) -> list[str]:
    """The same text as a literal value, joined, sliced, repeated and through JSON."""
    return [
        text,
        "".join(list(text)),
        (text + "\xe9")[:-1],
        text * 3,
        json.loads(json.dumps(text)),
        "".join(chr(ord(c)) for c in text),
    ]


LITERALS = ["\ud800", "\udfff", "a\ud800b", "\xe9", "\xe9a", "\u03a9", "\u4e2d", "\U0001f600"]


def test_one_character_strings_are_never_told_too_narrow() -> None:
    for text in [*LITERALS, *map(chr, range(0x80, 0x100)), *map(chr, range(0xD800, 0xD810))]:
        for made in _made_every_way(text):
            assert char_width(made) >= _true_width(made), repr(made)
            assert has_surrogate(made) is bool(_SURROGATE.search(made)), repr(made)


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)))
def test_surrogates_are_found_however_the_string_was_made(text: str) -> None:
    for made in _made_every_way(text):
        assert char_width(made) >= _true_width(made)
        assert has_surrogate(made) is bool(_SURROGATE.search(made))
