"""Bytes to text for the JSON reader: UTF-8 strictly, other encodings reported and read."""

from __future__ import annotations

import codecs
from typing import Final

from ..errors import InvalidInput, Problem

__all__ = ["Found", "bom_problem", "decode"]

# Invalid UTF-8 sequences reported one by one; past this one problem says more follow.
_MAX_BYTE_PROBLEMS: Final = 100

Found = list[tuple[int, Problem]]


def _sniff(head: bytes) -> tuple[str, str]:
    """Return the codec of JSON bytes from their first four, and a label for people."""
    if head.startswith((codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE)):
        order = "LE" if head.startswith(codecs.BOM_UTF32_LE) else "BE"
        return "utf-32", f"UTF-32{order} with a byte order mark"
    if head.startswith((codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)):
        order = "LE" if head.startswith(codecs.BOM_UTF16_LE) else "BE"
        return "utf-16", f"UTF-16{order} with a byte order mark"
    if len(head) >= 4 and not head[0]:
        return ("utf-16-be", "UTF-16BE") if head[1] else ("utf-32-be", "UTF-32BE")
    if len(head) >= 4 and not head[1]:
        return ("utf-16-le", "UTF-16LE") if head[2] or head[3] else ("utf-32-le", "UTF-32LE")
    if len(head) == 2 and not head[0]:
        return "utf-16-be", "UTF-16BE"
    if len(head) == 2 and not head[1]:
        return "utf-16-le", "UTF-16LE"
    return "utf-8", "UTF-8"


def _decode_utf8(raw: bytes) -> tuple[str, Found]:
    """Decode UTF-8, or replace each bad sequence and report it with its byte offset."""
    view = memoryview(raw)
    pieces: list[str] = []
    found: Found = []
    start = chars = 0
    line, column = 1, 1  # where the next character goes, 1-based, in code points
    while True:
        try:
            pieces.append(codecs.utf_8_decode(view[start:], "strict", True)[0])
            return "".join(pieces), found
        except UnicodeDecodeError as exc:
            good = codecs.utf_8_decode(view[start : start + exc.start], "strict", True)[0]
            pieces.append(good)
            chars += len(good)
            breaks = good.count("\n")
            line += breaks
            column = len(good) - good.rfind("\n") if breaks else column + len(good)
            offset = start + exc.start
            if len(found) == _MAX_BYTE_PROBLEMS:
                message = f"expected UTF-8, found more invalid bytes from byte offset {offset} on"
                found.append((chars, Problem((), "json.invalid_utf8", message)))
                pieces.append(raw[offset:].decode("utf-8", "replace"))
                return "".join(pieces), found
            bad = raw[offset : start + exc.end].hex(" ")
            message = (
                f"expected UTF-8, found {bad} ({exc.reason}) at line {line} column {column} "
                f"(byte offset {offset})"
            )
            found.append((chars, Problem((), "json.invalid_utf8", message)))
            pieces.append("\ufffd")
            chars += 1
            column += 1
            start += exc.end


def _decode_other(raw: bytes, codec: str, label: str) -> tuple[str, Found, bool]:
    message = f"expected UTF-8, found {label}"
    try:
        text, ok = raw.decode(codec), True
    except UnicodeDecodeError as exc:
        text, ok = raw.decode(codec, "replace"), False
        message += f" that does not decode either ({exc.reason} at byte offset {exc.start})"
    return text, [(0, Problem((), "json.encoding", message))], ok


def decode(data: object) -> tuple[str, bytes | None, Found, bool]:
    """Return the text, its UTF-8 bytes if given, the decoding problems, and strictness."""
    if isinstance(data, str):
        if data.startswith("\ufeff"):
            return data[1:], None, [(0, bom_problem())], True
        return data, None, [], True
    if not isinstance(data, (bytes, bytearray, memoryview)):
        name = type(data).__name__
        problem = Problem((), "json.syntax", f"expected JSON text as str or bytes, found {name}")
        raise InvalidInput([problem])
    raw = data if type(data) is bytes else bytes(data)
    codec, label = _sniff(raw[:4])
    if codec != "utf-8":
        text, found, ok = _decode_other(raw, codec, label)
        return text, None, found, ok
    found = []
    if raw.startswith(codecs.BOM_UTF8):
        found.append((0, bom_problem()))
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), raw, found, True
    except UnicodeDecodeError:
        text, bad = _decode_utf8(raw)
        return text, None, found + bad, False


def bom_problem() -> Problem:
    return Problem((), "json.bom", "expected text without a byte order mark, found U+FEFF")


# --- the public functions ------------------------------------------------------------
