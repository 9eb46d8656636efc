"""A deterministic byte mutator, and a minimiser for the inputs it breaks things with.

:class:`Mutator` stacks one to four edits on a seed input: bit flips, bytes set to edge
values, truncation (of the end or the start), deleted, duplicated and inserted chunks,
splices with another input of the corpus, runs of one token (deep nesting, many lines),
dictionary tokens, and length fields (1, 2, 4 or 8 bytes, either byte order) set to
extremes. Every choice comes from one ``random.Random`` seeded by the caller, so a seed and
an iteration number give the same input on every machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

__all__ = ["JSON_TOKENS", "MEDIA_TOKENS", "Mutator", "minimize"]

# Tokens that change what a JSON reader has to do: structure, escapes it must refuse or
# decode, numbers at the edges, encodings, and member names of the APIs.
JSON_TOKENS: tuple[bytes, ...] = (
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"',
    b"\\",
    b'"\\ud800"',
    b'"\\udc00\\ud800"',
    b'"\\u0000"',
    b'"\\\\u0000"',
    b"NaN",
    b"-Infinity",
    b"1e400",
    b"-0",
    b"1E-400",
    b"0.1e1",
    b"123456789012345678901234567890",
    b"null",
    b"true",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x80\xa8",
    b"\t",
    b"\r\n",
    b"\x00",
    b'"type":{}',
    b'"type":[]',
    b'"type":"image"',
    b'"data":"AAAA"',
    b'"uri":"https://example.com/x"',
    b'"mime_type":"image/png"',
    b'"questions":{}',
    b'"criteria":[]',
    b'"state":',
    b'"model":"gemini-decision-1",',
    b'"answers":{},',
    b'"probabilities":{"a":1}',
)

# Tokens of media containers: signatures, box and chunk names, end markers.
MEDIA_TOKENS: tuple[bytes, ...] = (
    b"ftyp",
    b"moov",
    b"mdat",
    b"trak",
    b"RIFF",
    b"WAVE",
    b"fmt ",
    b"data",
    b"LIST",
    b"\x1aE\xdf\xa3",
    b"OggS",
    b"ID3",
    b"\xff\xfb",
    b"\xff\xd8\xff",
    b"\xff\xd9",
    b"\x89PNG\r\n\x1a\n",
    b"IEND",
    b"%PDF-1.7\n",
    b"%%EOF",
    b"/Encrypt",
    b"/Pages",
    b"xref",
    b"PK\x03\x04",
    b"GIF89a",
)

_EDGE_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF)
_RUN_TOKENS = (b"[", b'{"a":', b"\n", b" ", b"\\", b"0", b'"', b"\x00")
_CHUNK = 64


class Mutator:
    """Stacked, seeded edits of byte strings, with a corpus to splice from."""

    def __init__(
        self,
        seed: int,
        corpus: Sequence[bytes],
        tokens: Sequence[bytes] = (),
        *,
        max_size: int = 4 * 1024 * 1024,
    ) -> None:
        if not corpus:
            raise ValueError("expected at least one seed input, found none")
        self.random = random.Random(seed)
        self.corpus = tuple(corpus)
        self.tokens = tuple(tokens) or JSON_TOKENS
        self.max_size = max_size
        self._edits: tuple[Callable[[bytearray], None], ...] = (
            self._flip,
            self._edge_byte,
            self._truncate,
            self._delete,
            self._duplicate,
            self._insert_random,
            self._insert_token,
            self._splice,
            self._run,
            self._length_field,
        )

    def next(self) -> bytes:
        """A new input: a seed input of the corpus with one to four edits."""
        return self.mutate(self.random.choice(self.corpus))

    def mutate(self, data: bytes) -> bytes:
        """Apply one to four edits to ``data``."""
        out = bytearray(data)
        for _ in range(self.random.randint(1, 4)):
            self.random.choice(self._edits)(out)
        return bytes(out[: self.max_size])

    def _at(self, out: bytearray) -> int:
        return self.random.randint(0, len(out))

    def _span(self, out: bytearray) -> tuple[int, int]:
        start = self.random.randint(0, max(0, len(out) - 1))
        return start, min(len(out), start + self.random.randint(1, _CHUNK))

    def _flip(self, out: bytearray) -> None:
        if out:
            at = self.random.randrange(len(out))
            out[at] ^= 1 << self.random.randrange(8)

    def _edge_byte(self, out: bytearray) -> None:
        if out:
            out[self.random.randrange(len(out))] = self.random.choice(_EDGE_BYTES)

    def _truncate(self, out: bytearray) -> None:
        at = self._at(out)
        if self.random.random() < 0.8:
            del out[at:]
        else:
            del out[:at]

    def _delete(self, out: bytearray) -> None:
        start, end = self._span(out)
        del out[start:end]

    def _duplicate(self, out: bytearray) -> None:
        start, end = self._span(out)
        chunk = bytes(out[start:end]) * self.random.choice((1, 2, 16))
        at = self._at(out)
        out[at:at] = chunk

    def _insert_random(self, out: bytearray) -> None:
        at = self._at(out)
        out[at:at] = self.random.randbytes(self.random.randint(1, 16))

    def _insert_token(self, out: bytearray) -> None:
        at = self._at(out)
        out[at:at] = self.random.choice(self.tokens)

    def _splice(self, out: bytearray) -> None:
        other = self.random.choice(self.corpus)
        cut = self._at(out)
        out[cut:] = other[self.random.randint(0, len(other)) :]

    def _run(self, out: bytearray) -> None:
        at = self._at(out)
        count = self.random.choice((2, 127, 128, 129, 130, 1_000, 100_000))
        out[at:at] = self.random.choice(_RUN_TOKENS) * count

    def _length_field(self, out: bytearray) -> None:
        width = self.random.choice((1, 2, 4, 4, 8))
        if len(out) < width:
            return
        at = self.random.randrange(len(out) - width + 1)
        top = (1 << (8 * width)) - 1
        value = self.random.choice(
            (0, 1, top, top - 1, top >> 1, (top >> 1) + 1, len(out), len(out) + 1, 0x10000)
        )
        order = self.random.choice(("big", "little"))
        out[at : at + width] = (value & top).to_bytes(width, order)  # type: ignore[arg-type]


def minimize(
    data: bytes,
    fails: Callable[[bytes], bool],
    *,
    max_calls: int = 400,
    max_seconds: float = 30.0,
) -> bytes:
    """Cut ``data`` down while ``fails`` stays true: chunks removed, halves first.

    Bounded by calls and by seconds, so a slow failure still gives its input back.
    """
    deadline = time.monotonic() + max_seconds
    calls = 0
    size = max(1, len(data) // 2)
    while size >= 1 and calls < max_calls and time.monotonic() < deadline:
        start, changed = 0, False
        while start < len(data) and calls < max_calls and time.monotonic() < deadline:
            candidate = data[:start] + data[start + size :]
            calls += 1
            if candidate != data and fails(candidate):
                data, changed = candidate, True
            else:
                start += size
        if not changed:
            size //= 2
    return data
