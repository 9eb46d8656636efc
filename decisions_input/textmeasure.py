"""Bound the tokens of a text by the classes of its characters, in C-speed passes.

The bounds rest on public facts about the SentencePiece tokenizers of the Gemma family,
which share Gemini's tokenizer (Gemma technical reports): digits are split, one token
each; white space is kept; a character outside the vocabulary falls back to its UTF-8
bytes, one token per byte. And on how SentencePiece forms pieces: the space marker only
ever starts a piece; no piece mixes Unicode scripts (punctuation is its own script,
Hiragana and Katakana count as Han); no piece holds a digit and anything else.

The low bound counts the places where a new piece must start, so no tokenizer that keeps
those rules can use fewer tokens:

* every digit, and the character after a digit;
* every run of spaces (its first space cannot end the piece before it);
* every change between ASCII letters and punctuation, and from letters to CJK and
  punctuation beyond ASCII;
* a CJK or kana character at ``TEXT_CJK_CHARS_PER_TOKEN`` per token (a stated reading:
  words of a few characters are pieces of their own);
* and never fewer than one token per ``TEXT_MAX_PIECE_CHARS`` characters.

``<``, ``>`` and ``/`` start no piece of their own: Gemma's vocabulary holds HTML tags
such as ``<h1>`` as single tokens. Where a boundary cannot be told from the bytes (after a
character beyond ASCII), it is not counted.

The high bound counts what a vocabulary of common words merges at most: a run of ASCII
letters costs one token, one more at each change from lower to upper case and one more per
``TEXT_LETTERS_PER_TOKEN`` letters; a digit, an ASCII punctuation mark or control
character, a space that does not start a word, and a character beyond ASCII one token
each; a character in the private use area or beyond the Basic Multilingual Plane (emoji,
rare ideographs) one token per UTF-8 byte, as the byte fallback gives. It never exceeds
the text's UTF-8 bytes, since a byte is the smallest unit the fallback leaves.

The bytes are classed with one ``bytes.translate``; ``binascii.unhexlify`` joins each
class with its neighbour's into one byte per adjacent pair; a second ``translate`` turns
pairs into weights, which ``zlib.adler32`` sums. Weights are whole numbers, scaled by the
two factors above, and the sums are taken over stretches short enough that adler32's
16-bit running sum never wraps. Several strings are measured as one text joined with the
byte 0xFF, which UTF-8 never holds; it stands for the edges between them, where nothing
about a boundary is assumed.

.. versionadded:: 0.1
"""

from __future__ import annotations

import binascii
import zlib
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from .limits import Limits

__all__ = ["TextTokens", "measure_strings", "measure_text", "measure_utf8"]

# Byte classes; each is one hex digit, so that two neighbours unhexlify into one byte.
(
    _LOWER,
    _UPPER,
    _DIGIT,
    _SPACE,
    _MARKUP,
    _PUNCT,
    _CONT,
    _LEAD2,
    _LEAD_INDIC,
    _LEAD_PUNCT,
    _LEAD_CJK,
    _LEAD_HANGUL,
    _LEAD_PRIVATE,
    _LEAD4,
    _EDGE,
    _INVALID,
) = range(16)

_LETTERS = frozenset({_LOWER, _UPPER})
_EDGE_BYTE = b"\xff"
_ADLER_BASE = 65521


def _byte_class(byte: int) -> int:
    """Class one byte of UTF-8 text by what the character it starts or continues is."""
    if 0x61 <= byte <= 0x7A:
        return _LOWER
    if 0x41 <= byte <= 0x5A:
        return _UPPER
    if 0x30 <= byte <= 0x39:
        return _DIGIT
    if byte == 0x20:
        return _SPACE
    if byte in b"<>/":
        return _MARKUP
    if byte < 0x80:
        return _PUNCT  # ASCII punctuation, symbols and controls: one script, Common
    if byte < 0xC0:
        return _CONT
    return _lead_class(byte)


def _lead_class(byte: int) -> int:
    """Class the first byte of a character beyond ASCII by the block it opens."""
    if 0xC2 <= byte <= 0xDF:
        return _LEAD2  # U+0080-07FF: Latin-1, Latin Extended, Greek, Cyrillic, Hebrew, Arabic
    if byte in (0xE0, 0xE1):
        return _LEAD_INDIC  # U+0800-1FFF: Indic, Thai, Georgian, Hangul Jamo, Latin Additional
    if byte == 0xE2:
        return _LEAD_PUNCT  # U+2000-2FFF: general punctuation, symbols, arrows
    if 0xE3 <= byte <= 0xE9:
        return _LEAD_CJK  # U+3000-9FFF: CJK punctuation, kana, ideographs
    if 0xEA <= byte <= 0xED:
        return _LEAD_HANGUL  # U+A000-DFFF: Hangul syllables, Yi, Latin Extended-D
    if byte in (0xEE, 0xEF):
        return _LEAD_PRIVATE  # U+E000-FFFF: private use, compatibility, fullwidth forms
    if 0xF0 <= byte <= 0xF4:
        return _LEAD4  # beyond the Basic Multilingual Plane: emoji, rare ideographs
    return _EDGE if byte == 0xFF else _INVALID


_CLASSES = tuple(_byte_class(b) for b in range(256))
_CLASS_HEX = bytes(b"0123456789abcdef"[c] for c in _CLASSES)


# --- weights, in tokens, per adjacent pair and per byte -----------------------------------


def _starts_piece(before: int, this: int) -> bool:
    """True when a piece must start at ``this`` whatever the vocabulary holds."""
    if this in (_CONT, _EDGE):
        return False
    if this == _DIGIT:
        return True
    if before == _DIGIT:
        return this != _MARKUP  # "<h1>" is one token in Gemma's vocabulary
    if this == _SPACE:
        return before not in (_SPACE, _EDGE)
    if before in _LETTERS:
        return this in (_PUNCT, _LEAD_PUNCT, _LEAD_CJK)
    return before == _PUNCT and this in _LETTERS


def _pair_high(before: int, this: int) -> int:
    """Tokens a boundary may add at most, beyond what its characters cost."""
    if this == _CONT:
        # Characters that may fall back to their bytes: the bytes past the first.
        return {_LEAD_PRIVATE: 2, _LEAD4: 3}.get(before, 0)
    tokens = 0
    if this in _LETTERS and before not in _LETTERS:
        tokens += 1  # a run of letters starts
    if before == _LOWER and this == _UPPER:
        tokens += 1  # camelCase and base64 break where the case changes
    if before == _SPACE and this not in _LETTERS:
        tokens += 1  # a space that starts no word may be a token of its own
    return tokens


def _byte_high(cls: int, letters_per_token: int) -> int:
    """Scaled tokens one byte may cost: a letter 1/letters_per_token, a character start 1."""
    if cls in _LETTERS:
        return 1
    return 0 if cls in (_SPACE, _CONT, _EDGE) else letters_per_token


class _Tables(NamedTuple):
    """Translate tables from an adjacent pair's byte to its scaled weight."""

    low_even: bytes  # pair weight and both bytes' own weights
    low_odd: bytes  # pair weight only
    high_even: bytes
    high_odd: bytes
    low_scale: int
    high_scale: int


def _table(weight: Callable[[int, int], int]) -> bytes:
    return bytes(weight(pair >> 4, pair & 15) for pair in range(256))


@lru_cache(maxsize=8)
def _tables(cjk_chars_per_token: int, letters_per_token: int) -> _Tables:
    def low_byte(cls: int) -> int:
        return 1 if cls == _LEAD_CJK else 0

    def low_odd(a: int, b: int) -> int:
        return cjk_chars_per_token * _starts_piece(a, b)

    def high_odd(a: int, b: int) -> int:
        return letters_per_token * _pair_high(a, b)

    return _Tables(
        _table(lambda a, b: low_odd(a, b) + low_byte(a) + low_byte(b)),
        _table(low_odd),
        _table(
            lambda a, b: (
                high_odd(a, b) + _byte_high(a, letters_per_token) + _byte_high(b, letters_per_token)
            )
        ),
        _table(high_odd),
        cjk_chars_per_token,
        letters_per_token,
    )


def _weighted_sum(pairs: bytes, table: bytes) -> int:
    """Sum the weights of the pairs, in stretches short enough that adler32 never wraps."""
    weights = memoryview(pairs.translate(table))
    step = (_ADLER_BASE - 2) // max(1, max(table))  # 1 + the sum stays below the base
    total = 0
    for start in range(0, len(weights), step):
        total += (zlib.adler32(weights[start : start + step]) & 0xFFFF) - 1
    return total


# --- the measure ------------------------------------------------------------------------------


class TextTokens(NamedTuple):
    """Bounds on the tokens of a text, with what was measured.

    ``complete`` is False when measuring stopped early (``stop_above``): ``low`` then
    counts only the part measured and ``high`` is the text's UTF-8 bytes.

    .. versionadded:: 0.1
    """

    low: int
    high: int
    chars: int
    utf8_bytes: int
    complete: bool = True


def measure_text(text: str, *, limits: Limits, stop_above: int | None = None) -> TextTokens:
    """Bound the tokens of one text.

    Args:
        text: the text; lone surrogates are measured as their three bytes.
        limits: the table whose ``TEXT_*`` factors apply.
        stop_above: stop once the low bound is over this many tokens.

    .. versionadded:: 0.1
    """
    data = text.encode("ascii") if text.isascii() else text.encode("utf-8", "surrogatepass")
    return _measure(data, len(text), limits, stop_above)


def measure_utf8(
    data: bytes, *, chars: int, limits: Limits, stop_above: int | None = None
) -> TextTokens:
    """Bound the tokens of one text already encoded, as :func:`measure_text` bounds it.

    For a caller that holds the text's UTF-8 (``surrogatepass`` for lone surrogates) and
    its length in characters, so that the text is not encoded again.

    .. versionadded:: 0.1
    """
    return _measure(data, chars, limits, stop_above)


def measure_strings(
    strings: Sequence[str], *, limits: Limits, stop_above: int | None = None
) -> TextTokens:
    """Bound the tokens of several strings that reach the model apart, as one total.

    No boundary is assumed between two strings: the prompt around them is not known.

    .. versionadded:: 0.1
    """
    data = _EDGE_BYTE.join(s.encode("utf-8", "surrogatepass") for s in strings)
    measured = _measure(data, sum(map(len, strings)), limits, stop_above)
    edges = max(0, len(strings) - 1)
    return measured._replace(
        high=min(measured.high, len(data) - edges), utf8_bytes=len(data) - edges
    )


def _measure(data: bytes, chars: int, limits: Limits, stop_above: int | None) -> TextTokens:
    size = len(data)
    if not size:
        return TextTokens(0, 0, 0, 0)
    tables = _tables(limits.TEXT_CJK_CHARS_PER_TOKEN, limits.TEXT_LETTERS_PER_TOKEN)
    first, last = _CLASSES[data[0]], _CLASSES[data[-1]]
    low = tables.low_scale * _starts_piece(_EDGE, first)
    high = tables.high_scale * (_pair_high(_EDGE, first) + _pair_high(last, _EDGE))
    step = limits.CHUNK_BYTES - limits.CHUNK_BYTES % 2
    view = memoryview(data)
    complete = True
    for start in range(0, size, step):
        end = min(start + step, size)
        scaled = _chunk_weights(view, start, end, tables)
        low, high = low + scaled[0], high + scaled[1]
        if stop_above is not None and end < size and low // tables.low_scale > stop_above:
            complete = False
            break
    return _bounds(low, high, chars, size, complete, limits, tables)


def _chunk_weights(view: memoryview, start: int, end: int, tables: _Tables) -> tuple[int, int]:
    """Scaled low and high weights of bytes start..end and the pair that follows them."""
    classes = view[start:end].tobytes().translate(_CLASS_HEX)
    count = end - start
    even = binascii.unhexlify(classes[: count - count % 2])
    odd = binascii.unhexlify(memoryview(classes)[1 : 1 + (count - 1) - (count - 1) % 2])
    low = _weighted_sum(even, tables.low_even) + _weighted_sum(odd, tables.low_odd)
    high = _weighted_sum(even, tables.high_even) + _weighted_sum(odd, tables.high_odd)
    if count % 2:  # the last byte has no partner among the even pairs
        cls = _CLASSES[view[end - 1]]
        low += cls == _LEAD_CJK
        high += _byte_high(cls, tables.high_scale)
    if end < len(view):  # the pair across the edge of the chunk
        before, this = _CLASSES[view[end - 1]], _CLASSES[view[end]]
        low += tables.low_scale * _starts_piece(before, this)
        high += tables.high_scale * _pair_high(before, this)
    return low, high


def _bounds(
    low: int, high: int, chars: int, size: int, complete: bool, limits: Limits, tables: _Tables
) -> TextTokens:
    pieces = -(-chars // limits.TEXT_MAX_PIECE_CHARS)
    if not complete:
        return TextTokens(max(low // tables.low_scale, pieces), size, chars, size, False)
    # Tokens never outnumber the UTF-8 bytes: the byte fallback is the finest split there is.
    top = min(-(-high // tables.high_scale), size)
    return TextTokens(max(low // tables.low_scale, pieces), top, chars, size)
