"""Rules for the bytes behind a media block: base64 ``data`` and ``uri`` references.

Inline data is validated by pybase64's validating decoder (SIMD code) in chunks of
``BASE64_CHUNK`` characters, so memory stays bounded whatever the size; only text that
fails is read again, to name the first bad character. It is then read through
:class:`Base64Stream`, a seekable view that decodes only the base64 groups a reader asks
for, so sniffing a 90 MB video decodes the few kilobytes of container structure it walks,
not the whole payload.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, Final

from ._streams import ReadOnlyStream
from .errors import Path, Problem
from .limits import Limits

__all__ = [
    "BASE64_CHUNK",
    "Base64Stream",
    "DeferredData",
    "check_media_data",
    "check_media_uri",
    "compare_detected",
    "is_canonical_base64",
]

# Characters of base64 text validated at a time (a multiple of 4): each chunk is copied and
# decoded into buffers the allocator reuses, so the work stays in cache and memory bounded.
BASE64_CHUNK: Final = 1 << 18
# The base64 alphabet, in the order of the values its characters stand for.
_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class DeferredData(str):
    """Stands in for the base64 text of a block built from a file, until it is written.

    The string value is a token that the request writer replaces with the streamed
    base64 text; ``len()`` gives the length of that text, so size rules count it right.
    Its bytes were sniffed when the block was built, so the validator does not sniff it
    again.
    """

    base64_length: int
    block: object  # the media block whose bytes these are, for rules that measure them

    def __new__(cls, token: str, base64_length: int, block: object = None) -> DeferredData:
        self = super().__new__(cls, token)
        self.base64_length = base64_length
        self.block = block
        return self

    def __len__(self) -> int:
        return self.base64_length


class Base64Stream(ReadOnlyStream):
    """A read-only, seekable byte stream over base64 text, decoding on demand.

    The text must already have passed the base64 check (standard alphabet, padded, no
    white space). Only the groups that cover a read are decoded; the text is never copied.
    """

    def __init__(self, text: str) -> None:
        padding = 2 if text.endswith("==") else 1 if text.endswith("=") else 0
        super().__init__(len(text) // 4 * 3 - padding)
        self._text = text

    @property
    def size(self) -> int:
        """The decoded length in bytes."""
        return self._size

    def _read_at(self, pos: int, n: int) -> bytes:
        first, last = pos // 3, (pos + n + 2) // 3
        chunk = _decoder()(self._text[first * 4 : last * 4])
        return chunk[pos - first * 3 : pos + n - first * 3]


def check_media_data(block: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check inline ``data``: its base64 form, its size, and what its bytes really are."""
    from .sniffing import sniff_stream
    from .sources import check_base64

    data = block["data"]
    if isinstance(data, DeferredData):
        return
    where = path + ("data",)
    if not is_canonical_base64(data):  # the slower reading names the first bad character
        problems, _head = check_base64(data, where, head_bytes=0)
        if problems:
            yield from problems
            return
    kind = block.get("type")
    if kind == "document" and len(data) > limits.MAX_INLINE_PDF_BYTES:
        yield Problem(
            where,
            "pdf.too_large",
            f"expected at most {limits.MAX_INLINE_PDF_BYTES:,} bytes of base64 text for an "
            f"inline PDF, found {len(data):,}",
        )
    declared = block.get("mime_type")
    declared = declared if type(declared) is str else None
    stream = Base64Stream(data)
    detected = sniff_stream(stream, stream.size, declared=declared, limits=limits)
    yield from compare_detected(detected, declared, kind, path, where, limits)


@cache
def _validating_decoder() -> Callable[[str], bytes]:
    """Return pybase64's validating decoder, or the standard library's when it is missing."""
    try:
        import pybase64
    except ImportError:  # pragma: no cover - pybase64 is a dependency
        import base64

        return lambda text: base64.b64decode(text, validate=True)
    return lambda text: pybase64.b64decode(text, validate=True)


@cache
def _decoder() -> Callable[[str], bytes]:
    """Return the fastest decoder of text already validated: pybase64's, or binascii's."""
    try:
        import pybase64
    except ImportError:  # pragma: no cover - pybase64 is a dependency
        return binascii.a2b_base64
    decode: Callable[[str], bytes] = pybase64.b64decode
    return decode


def is_canonical_base64(data: str, *, chunk: int = BASE64_CHUNK) -> bool:
    """Tell whether ``data`` is standard, padded base64 with no white space, and canonical:
    the bits that padding leaves unused are zero, so no other text decodes the same.

    ``chunk`` (a multiple of 4) is how many characters are decoded at a time.

    .. versionadded:: 0.1
    """
    decode = _validating_decoder()
    size = len(data)
    try:
        for start in range(0, size, chunk):
            end = start + chunk
            if end < size and data[end - 1] == "=":  # padding before the last group
                return False
            decode(data[start:end])  # alphabet, length, padding at the end only
    except (binascii.Error, ValueError):
        return False
    pad = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    return not pad or not _ALPHABET.index(data[-pad - 1]) & (0x0F if pad == 2 else 0x03)


def compare_detected(
    detected: Any, declared: str | None, kind: Any, path: Path, where: Path, limits: Limits
) -> Iterator[Problem]:
    """Compare what sniffing found with the block type and the declared MIME type.

    ``path`` is the block's path, ``where`` the path of the member holding the bytes.
    """
    from .sniffing import mime_matches

    if detected.mime is None:
        yield Problem(where, detected.code or "mime.not_allowed", detected.reason)
        return
    for note in getattr(detected, "warnings", ()):
        yield Problem(where, note.code, note.message, note.severity)
    if detected.kind != kind:
        yield Problem(
            path + ("type",),
            "mime.mismatch",
            f"the block says {kind}, but the bytes are {detected.format} ({detected.mime})",
        )
        return
    if declared is None or declared not in limits.MIME_TYPES.get(str(kind), ()):
        return  # a missing or refused declaration is reported by the structural checks
    if not mime_matches(detected, declared, limits=limits):
        yield Problem(
            path + ("mime_type",),
            "mime.mismatch",
            f"declared {declared}, but the bytes are {detected.format} ({detected.mime})",
        )


def check_media_uri(block: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check a media ``uri`` without fetching it: scheme, host, credentials, extension."""
    from .sources import iter_uri_problems

    declared = block.get("mime_type")
    yield from iter_uri_problems(
        block["uri"],
        path + ("uri",),
        mime_type=declared if type(declared) is str else None,
        limits=limits,
    )
