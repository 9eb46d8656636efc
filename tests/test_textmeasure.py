"""The class-aware text measure: bounds known by construction, the targets, properties.

The fast measure classes bytes with ``translate``, pairs them with ``unhexlify`` and sums
weights with ``adler32``; a plain loop over the same rules checks it byte pair by byte
pair, across chunk edges too.
"""

from __future__ import annotations

import math
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decisions_input import textmeasure as tm
from decisions_input.limits import GEMINI, Limits
from tests.strategies import token_texts

# Plain English prose, written for this test: short words, a little punctuation.
PROSE = """\
The harbour town woke slowly on the first cold morning of the year. Fishermen carried their \
nets down to the water, and the baker opened his shutters before the sun had cleared the \
hills. Nobody spoke much; the wind did most of the talking, pulling at coats and rattling \
the loose signs above the shops.

Maria had lived there all her life, and she knew every street by the sound of its stones. \
She walked to the library each day, where she sorted old letters that people had left in \
drawers and attics for a hundred years. Most of them were ordinary: a note about the price \
of flour, a complaint to a neighbour, a promise to write again soon. But now and then she \
found one that made her stop and read it twice.

That morning she opened a thin envelope with no name on it. Inside was a single page, \
written in a careful, slanted hand. The writer described a storm that had kept the boats in \
the harbour for nine days, and a child who had been born during the worst night of it. He \
wrote that the whole town had gathered in the church to wait for the weather to turn, and \
that the child had been carried in at dawn, wrapped in a sail, while the candles burned low.
"""


def measure(text: str, limits: Limits = GEMINI) -> tm.TextTokens:
    return tm.measure_text(text, limits=limits)


def careful(data: bytes, chars: int, limits: Limits) -> tuple[int, int]:
    """The measure's rules applied byte pair by byte pair, before the library's rounding."""
    classes = [tm._EDGE, *(tm._CLASSES[b] for b in data), tm._EDGE]
    low_scale, high_scale = limits.TEXT_CJK_CHARS_PER_TOKEN, limits.TEXT_LETTERS_PER_TOKEN
    low = high = 0
    for before, this in zip(classes[:-1], classes[1:], strict=True):
        low += low_scale * tm._starts_piece(before, this) + (this == tm._LEAD_CJK)
        high += high_scale * tm._pair_high(before, this) + tm._byte_high(this, high_scale)
    pieces = math.ceil(chars / limits.TEXT_MAX_PIECE_CHARS)
    return max(low // low_scale, pieces), min(-(-high // high_scale), len(data))


# (id, text, low, high): bounds known from the classes by construction.
CASES: list[tuple[str, str, int, int]] = [
    ("empty", "", 0, 0),
    # one token per digit, each certain
    ("digits", "1234567890", 10, 10),
    # each space starts a piece; a word costs 1 plus 1 per 8 letters; the last space 1
    ("words", "word " * 5, 5, math.ceil(5 + 5 * 4 / 8 + 1)),
    # the comma and the full stop start pieces after letters (and the space one)
    ("punctuation", "Hello, world.", 3, math.ceil(2 + 10 / 8 + 2)),
    # HTML tags are single tokens in Gemma's vocabulary: only the digits are certain
    ("markup", "<h1>Title</h1>", 2, math.ceil(3 + 7 / 8 + 5 + 2)),
    # a change to upper case inside a run may break it
    ("camel-case", "camelCaseWord", 1, math.ceil(3 + 13 / 8)),
    # CJK at 4 characters per token at least (11 / 4, rounded down), one each at most
    ("cjk", "東京都の天気は晴れです", 2, 11),
    # Hangul words are told apart by spaces; the space before a word may be a token
    ("hangul", "한국어 문장입니다", 1, 9),
    # an emoji may fall back to its 4 bytes
    ("emoji", "😀", 1, 4),
    # a private-use character to its 3 bytes
    ("private-use", "\ue000\ue001", 1, 6),
    # no token spans more than 32 characters
    ("one-long-run", "a" * 100, 4, math.ceil(1 + 100 / 8)),
    ("spaces", " " * 64, 2, 64),
]


@pytest.mark.parametrize(("text", "low", "high"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bounds_known_by_construction(text: str, low: int, high: int) -> None:
    found = measure(text)
    assert (found.low, found.high) == (low, high)
    assert found.utf8_bytes == len(text.encode("utf-8")) and found.chars == len(text)


# --- the targets -------------------------------------------------------------------------------


def test_plain_english_prose_is_within_1_6x() -> None:
    for text in (PROSE, PROSE * 300):  # the second is over 100,000 words
        found = measure(text)
        words = len(text.split())
        assert found.high <= 1.6 * found.low
        # both sides: a token per word (less the first) at least; the documented average
        # of about 4 characters per token inside the bounds
        assert found.low >= words - 1
        assert found.low <= len(text) / 4 <= found.high


def test_plain_english_prose_was_not_merely_counted_by_characters() -> None:
    # The same characters without spaces or punctuation, one run of letters: nothing says
    # where words start, so the low bound falls to one token per 32 characters.
    letters = "".join(c for c in PROSE if c.isalpha())
    found = measure(letters)
    assert found.low == math.ceil(len(letters) / GEMINI.TEXT_MAX_PIECE_CHARS)
    assert found.high > 1.6 * found.low


@pytest.mark.parametrize(
    ("words", "over"), [(300_000, True), (250_000, False)], ids=["300k-words", "250k-words"]
)
def test_words_against_the_window(words: int, over: bool) -> None:
    found = measure("word " * words)
    assert found.low == words  # a piece starts at every space
    assert (found.low > GEMINI.CONTEXT_WINDOW_TOKENS) is over  # type: ignore[operator]


@pytest.mark.parametrize(
    ("digits", "over"), [(1_200_000, True), (262_144, False)], ids=["1.2M-digits", "window"]
)
def test_random_digits_against_the_window(digits: int, over: bool) -> None:
    text = "".join(random.Random(digits).choices(string.digits, k=digits))
    found = measure(text)
    assert found.low == found.high == digits
    assert (found.low > GEMINI.CONTEXT_WINDOW_TOKENS) is over  # type: ignore[operator]


# --- the fast path against the rules ---------------------------------------------------------

SMALL_CHUNKS = GEMINI.derive(CHUNK_BYTES=6)


@settings(max_examples=400, deadline=None)
@given(token_texts)
def test_the_fast_measure_applies_the_rules_pair_by_pair(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    expected = careful(data, len(text), GEMINI)
    for limits in (GEMINI, SMALL_CHUNKS):
        found = measure(text, limits)
        assert (found.low, found.high) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(token_texts, max_size=5))
def test_strings_are_measured_apart(strings: list[str]) -> None:
    found = tm.measure_strings(strings, limits=GEMINI)
    data = b"\xff".join(s.encode("utf-8", "surrogatepass") for s in strings)
    low, high = careful(data, sum(map(len, strings)), GEMINI)
    cap = len(data) - max(0, len(strings) - 1)
    assert (found.low, found.high) == (low, min(high, cap))
    assert found.utf8_bytes == cap and found.chars == sum(map(len, strings))
    if len(strings) == 1:
        assert found == measure(strings[0])


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(token_texts, st.sampled_from([None, 0, 1, 3, 10**6]))
def test_a_text_encoded_once_is_measured_as_the_text(text: str, stop: int | None) -> None:
    data = text.encode("utf-8", "surrogatepass")
    for limits in (GEMINI, SMALL_CHUNKS):
        found = tm.measure_utf8(data, chars=len(text), limits=limits, stop_above=stop)
        assert found == tm.measure_text(text, limits=limits, stop_above=stop)
        assert found == tm.measure_strings([text], limits=limits, stop_above=stop)


@settings(max_examples=400, deadline=None)
@given(token_texts, token_texts)
def test_bounds_hold_their_order_and_grow_with_the_text(text: str, more: str) -> None:
    found, longer = measure(text), measure(text + more)
    assert 0 <= found.low <= found.high <= found.utf8_bytes
    assert found.low >= sum(c in string.digits for c in text)
    assert longer.low >= found.low and longer.high >= found.high


def test_measuring_stops_once_over_a_limit() -> None:
    text = "word " * 200_000
    small = GEMINI.derive(CHUNK_BYTES=1024)
    stopped = tm.measure_text(text, limits=small, stop_above=1_000)
    assert not stopped.complete and 1_000 < stopped.low < 200_000
    assert stopped.high == stopped.utf8_bytes == len(text)
    assert tm.measure_text(text, limits=small, stop_above=10**6) == measure(text)
