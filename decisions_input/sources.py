"""Open media sources, check media URIs, and (only when asked) look at a remote file's head.

This is the only module that opens files, and the only one that touches the network: only
:func:`fetch_head` and :func:`iter_remote_problems` connect anywhere, and only when a
caller invokes them. Nothing here runs at import time or by default.

Choices made here, for callers to rely on:

* **Only regular files are read.** A path is checked with ``os.stat`` before it is opened,
  opened with ``O_NONBLOCK`` (so a FIFO swapped in between cannot block) and checked again
  with ``fstat``. Directories, FIFOs, sockets and devices raise :class:`SourceError`.
* **Size before bytes.** The size comes from ``fstat`` or a seek to the end. A source over
  ``max_bytes`` raises :class:`SourceTooLarge` (a :class:`SourceError`) before any byte is
  read; it carries ``size`` and ``max_bytes`` so the caller can file it under the rule code
  that fits (``data.too_large``, ``pdf.too_large``) with :meth:`SourceTooLarge.problem`.
  A non-seekable stream is the exception: it is spooled (memory, then a temporary file)
  and refused once ``max_bytes + 1`` bytes have arrived, so its ``size`` is unknown
  (``None``). With ``max_bytes=None`` a stream is spooled whole: pass a cap for pipes.
* **A file object's content starts at its current position** (like ``shutil.copyfileobj``),
  for seekable and non-seekable streams alike. A seekable one is read in place and its
  position restored on close; it is never closed by us. A pipe cannot be rewound: what
  was spooled is consumed.
* **Bytes are not copied**: the stream reads slices of a memoryview. Only a non-contiguous
  memoryview is copied once, because it cannot be sliced as bytes otherwise.
* **The content is frozen at ``size``**: reads stop at ``size`` bytes even if a file grows,
  and a file that shrinks while being read raises :class:`SourceError`.
* **Messages never carry credentials.** URIs are echoed only through :func:`redact_uri`,
  which masks user info, query values and the fragment (signed URLs carry their signature
  in the query). Unparseable URIs are not echoed at all.
* **No name resolution** in :func:`iter_uri_problems`: only literal addresses and
  ``localhost`` names are judged. The address ranges are a fixed table in this module, not
  ``ipaddress.is_private`` (whose answers differ between Python releases).
* **The remote check is opt-in and bounded**: one ranged GET per hop, at most
  ``Limits.SNIFF_BYTES`` body bytes read, at most ``Limits.MAX_REDIRECTS`` redirects, all on
  https, each redirect target checked like the original URI, one overall ``timeout``.
  ``allow_hosts`` exempts named hosts from ``uri.unreachable_host`` for the remote check
  only; it exists for tests that run a local server and is empty by default.
* **Argument mistakes** (a negative size, a chunk size that is not a multiple of 3, an
  unsupported source type) raise ``ValueError`` or ``TypeError``: they are bugs in the
  caller, not problems in the input.

.. versionadded:: 0.1
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import io
import ipaddress
import os
import re
import stat
import time
import unicodedata
import urllib.parse
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType, TracebackType
from typing import IO, TYPE_CHECKING, Any, Final

from ._streams import ReadOnlyStream
from ._types import Source
from .errors import Path, Problem, Severity, SourceError
from .limits import GEMINI, Limits

if TYPE_CHECKING:  # the remote check loads these on first use (they cost milliseconds)
    import http.client
    import socket
    import ssl

__all__ = [
    "EXTENSION_MIME_TYPES",
    "Opened",
    "RemoteCheck",
    "RemoteError",
    "RemoteHead",
    "SniffHead",
    "SourceTooLarge",
    "base64_decoded_length",
    "check_base64",
    "fetch_head",
    "iter_remote_problems",
    "iter_uri_problems",
    "open_source",
    "redact_uri",
]

_SPOOL_CHUNK_BYTES: Final = 3 * 64 * 1024  # read size when spooling a non-seekable stream
_SPOOL_MEMORY_BYTES: Final = 8 * 1024 * 1024  # spooled bytes kept in memory before disk
_NET_CHUNK_BYTES: Final = 16 * 1024  # largest single read from a socket
_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})


# --- errors ---------------------------------------------------------------------------------


class SourceTooLarge(SourceError):
    """A source is larger than the caller's ``max_bytes``; it was refused before reading.

    ``size`` is the size in bytes, or ``None`` for a non-seekable stream that was cut off
    once it passed ``max_bytes``.

    .. versionadded:: 0.1
    """

    def __init__(self, name: str | None, size: int | None, max_bytes: int) -> None:
        self.name = name
        self.size = size
        self.max_bytes = max_bytes
        self.message = f"expected at most {max_bytes} bytes, found {_bytes_text(size, max_bytes)}"
        super().__init__(f"{_label(name)}: {self.message}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.name, self.size, self.max_bytes))

    def problem(self, path: Path, code: str) -> Problem:
        """Return this refusal as an error at ``path`` under the rule ``code``."""
        return Problem(path, code, self.message)


class RemoteError(SourceError):
    """The remote check could not get an answer; ``code`` is the rule it maps to.

    ``code`` is ``uri.unreachable`` (network, TLS, timeout, broken HTTP), ``uri.redirect``
    (too many redirects, or one to a URI the service would refuse) or a static ``uri.*``
    code when the URI itself is refused before connecting. ``message`` never holds a
    traceback or credentials.

    .. versionadded:: 0.1
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message))


def _b64encoder() -> Callable[[bytes], bytes]:
    """Return the fastest standard base64 encoder at hand: pybase64's SIMD one, or the stdlib's.

    Both give the same bytes (standard alphabet, padded, no line breaks).
    """
    try:
        import pybase64
    except ImportError:  # an optional speed-up; the standard library is always there
        return base64.b64encode
    return pybase64.b64encode


def _label(name: str | None) -> str:
    return repr(name) if name is not None else "the source"


def _bytes_text(size: int | None, max_bytes: int) -> str:
    return f"{size} bytes" if size is not None else f"more than {max_bytes} bytes"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def _source_error(name: str | None, doing: str, exc: BaseException) -> SourceError:
    return SourceError(f"{_label(name)}: cannot {doing}: {_reason(exc)}")


# --- streams --------------------------------------------------------------------------------


class _MemoryStream(ReadOnlyStream):
    """A read-only, seekable binary stream over a byte memoryview; reads copy only slices."""

    def __init__(self, view: memoryview) -> None:
        super().__init__(len(view))
        self._view = view

    def _read_at(self, pos: int, n: int) -> bytes:
        return self._view[pos : pos + n].tobytes()

    def close(self) -> None:
        if not self.closed:
            self._view.release()
        super().close()


class _Window(ReadOnlyStream):
    """Bytes ``start`` to ``start + size`` of a seekable stream, seen from offset 0."""

    def __init__(self, raw: IO[bytes], start: int, size: int, name: str | None) -> None:
        super().__init__(size)
        self._raw = raw
        self._start = start
        self._name = name

    def _read_at(self, pos: int, n: int) -> bytes:
        parts: list[bytes] = []
        got = 0
        try:
            self._raw.seek(self._start + pos)
            while got < n:
                chunk = _checked_chunk(self._raw.read(n - got), self._name)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
        except SourceError:
            raise
        except OSError as exc:
            raise _source_error(self._name, "read", exc) from exc
        return b"".join(parts)


def _checked_chunk(chunk: object, name: str | None) -> bytes:
    if chunk is None:
        raise SourceError(f"{_label(name)}: the stream is non-blocking and had no data ready")
    if isinstance(chunk, str):
        raise SourceError(f"{_label(name)}: the stream is in text mode; open it in binary mode")
    if not isinstance(chunk, (bytes, bytearray, memoryview)):
        raise SourceError(f"{_label(name)}: read() returned {type(chunk).__name__}, not bytes")
    return bytes(chunk)


# --- Opened ---------------------------------------------------------------------------------


class Opened:
    """An open media source: its name, its size and bounded ways to read it.

    Use it as a context manager (or call :meth:`close`): files and spools opened here are
    closed, a caller's file object gets its position back and stays open.

    .. versionadded:: 0.1
    """

    __slots__ = ("_owned", "_restore", "name", "size", "stream")

    def __init__(
        self,
        *,
        name: str | None,
        size: int,
        stream: io.BufferedIOBase,
        owned: tuple[IO[bytes], ...] = (),
        restore: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.size = size
        self.stream = stream
        self._owned = owned
        self._restore = restore

    def __repr__(self) -> str:
        return f"<Opened name={self.name!r} size={self.size}>"

    def __enter__(self) -> Opened:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self.stream.closed

    @property
    def base64_length(self) -> int:
        """Length of the base64 text of the whole content, known before encoding."""
        return 4 * ((self.size + 2) // 3)

    def head(self, n: int) -> bytes:
        """Return up to ``n`` bytes from offset 0, leaving the stream position as it was."""
        if n < 0:
            raise ValueError(f"expected n >= 0, found {n}")
        pos = self.stream.tell()
        try:
            self.stream.seek(0)
            return self.stream.read(min(n, self.size))
        finally:
            self.stream.seek(pos)

    def iter_chunks(self, chunk_bytes: int = GEMINI.CHUNK_BYTES) -> Iterator[bytes]:
        """Yield the content in chunks of ``chunk_bytes`` (a positive multiple of 3).

        Every chunk but the last is full, so the base64 of the chunks concatenates to the
        base64 of the whole. Raises ``SourceError`` if the content ends before ``size``.
        """
        if chunk_bytes <= 0 or chunk_bytes % 3:
            raise ValueError(f"expected a positive multiple of 3, found {chunk_bytes}")
        return self._chunks(chunk_bytes)

    def iter_base64(self, chunk_bytes: int = GEMINI.CHUNK_BYTES) -> Iterator[bytes]:
        """Yield the standard base64 of the content, chunk by chunk; joined, it equals
        ``base64.b64encode`` of the whole and has :attr:`base64_length` bytes."""
        return map(_b64encoder(), self.iter_chunks(chunk_bytes))

    def _chunks(self, chunk_bytes: int) -> Iterator[bytes]:
        pos = self.stream.tell()
        try:
            self.stream.seek(0)
            done = 0
            while done < self.size:
                want = min(chunk_bytes, self.size - done)
                chunk = self.stream.read(want)
                done += len(chunk)
                if len(chunk) < want:
                    raise SourceError(
                        f"{_label(self.name)}: expected {self.size} bytes, found only {done}; "
                        "it changed while being read"
                    )
                yield chunk
        finally:
            if not self.stream.closed:
                self.stream.seek(pos)

    def close(self) -> None:
        """Close what was opened here and restore a caller's stream position."""
        if self.stream.closed:
            return
        self.stream.close()
        for owned in self._owned:
            owned.close()
        if self._restore is not None:
            self._restore()


# --- open_source ----------------------------------------------------------------------------


def open_source(src: Source, *, max_bytes: int | None = None) -> Opened:
    """Open a path, a bytes-like object or a binary file object for bounded reading.

    Raises:
        SourceTooLarge: the source is over ``max_bytes`` (nothing was read).
        SourceError: it is not a regular file, cannot be opened or read, or is in text mode.
        TypeError: ``src`` is none of the accepted kinds.

    .. versionadded:: 0.1
    """
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"expected max_bytes >= 0 or None, found {max_bytes}")
    if isinstance(src, (bytes, bytearray, memoryview)):
        return _open_buffer(src, max_bytes)
    if isinstance(src, (str, os.PathLike)):
        return _open_path(src, max_bytes)
    if callable(getattr(src, "read", None)):
        return _open_file_object(src, max_bytes)
    raise TypeError(
        "expected a path, bytes, bytearray, memoryview or binary file object, "
        f"found {type(src).__name__}"
    )


def _check_size(name: str | None, size: int, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise SourceTooLarge(name, size, max_bytes)


def _open_buffer(src: bytes | bytearray | memoryview, max_bytes: int | None) -> Opened:
    view = memoryview(src)
    view = view.cast("B") if view.c_contiguous else memoryview(view.tobytes())
    if max_bytes is not None and view.nbytes > max_bytes:
        size = view.nbytes
        view.release()
        raise SourceTooLarge(None, size, max_bytes)
    return Opened(name=None, size=view.nbytes, stream=_MemoryStream(view))


_KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def _require_regular(st: os.stat_result, name: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise SourceError(f"{name!r} is {_kind(st.st_mode)}, not a regular file")


def _stat_path(name: str) -> os.stat_result:
    """``os.stat`` with errors that name the path (a seam for tests of the stat/open race)."""
    try:
        return os.stat(name)
    except FileNotFoundError as exc:
        raise SourceError(f"{name!r} does not exist") from exc
    except NotADirectoryError as exc:
        raise SourceError(f"{name!r}: a parent of it is not a directory") from exc
    except PermissionError as exc:
        raise SourceError(f"{name!r}: permission denied") from exc
    except (OSError, ValueError) as exc:
        raise _source_error(name, "inspect it", exc) from exc


_O_NONBLOCK: Final[int] = getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS: Final = (
    os.O_RDONLY | _O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
)


def _open_path(src: str | os.PathLike[str] | os.PathLike[bytes], max_bytes: int | None) -> Opened:
    name = os.fsdecode(src)
    before = _stat_path(name)
    _require_regular(before, name)
    _check_size(name, before.st_size, max_bytes)
    try:
        fd = os.open(name, _OPEN_FLAGS)
    except PermissionError as exc:
        raise SourceError(f"{name!r}: permission denied") from exc
    except OSError as exc:
        raise _source_error(name, "open it", exc) from exc
    try:
        st = os.fstat(fd)
        _require_regular(st, name)
        _check_size(name, st.st_size, max_bytes)
        if _O_NONBLOCK:
            os.set_blocking(fd, True)  # only needed to get past open(); reads are normal
        raw = os.fdopen(fd, "rb")
    except SourceError:
        os.close(fd)
        raise
    except OSError as exc:
        os.close(fd)
        raise _source_error(name, "open it", exc) from exc
    stream = _Window(raw, 0, st.st_size, name)
    return Opened(name=name, size=st.st_size, stream=stream, owned=(raw,))


def _file_name(fp: object) -> str | None:
    name = getattr(fp, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(name, bytes):
        return os.fsdecode(name)
    return None


def _is_text_mode(fp: object) -> bool:
    if isinstance(fp, io.TextIOBase):
        return True
    mode = getattr(fp, "mode", None)
    return isinstance(mode, str) and bool(mode) and "b" not in mode


def _fstat_of(fp: Any) -> os.stat_result | None:
    try:
        fd = fp.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    if not isinstance(fd, int):
        return None
    try:
        return os.fstat(fd)
    except OSError:
        return None


def _is_seekable(fp: Any) -> bool:
    try:
        return bool(fp.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def _open_file_object(fp: Any, max_bytes: int | None) -> Opened:
    name = _file_name(fp)
    if _is_text_mode(fp):
        raise SourceError(f"{_label(name)} is open in text mode; open it in binary mode ('rb')")
    st = _fstat_of(fp)
    if st is not None and not (
        stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)
    ):
        raise SourceError(f"{_label(name)} is {_kind(st.st_mode)}, not a regular file or pipe")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return _spool(fp, name, max_bytes)
    if _is_seekable(fp):
        return _open_seekable(fp, name, max_bytes)
    return _spool(fp, name, max_bytes)


def _open_seekable(fp: IO[bytes], name: str | None, max_bytes: int | None) -> Opened:
    try:
        start = fp.tell()
        end = fp.seek(0, io.SEEK_END)
        fp.seek(start)
    except OSError as exc:
        raise _source_error(name, "find its size", exc) from exc
    size = max(end - start, 0)
    _check_size(name, size, max_bytes)

    def restore() -> None:
        with contextlib.suppress(OSError, ValueError):  # the caller closed it already
            fp.seek(start)

    return Opened(name=name, size=size, stream=_Window(fp, start, size, name), restore=restore)


def _spool(fp: IO[bytes], name: str | None, max_bytes: int | None) -> Opened:
    import tempfile

    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPOOL_MEMORY_BYTES)  # noqa: SIM115
    try:
        total = 0
        while True:
            want = _SPOOL_CHUNK_BYTES
            if max_bytes is not None:
                want = min(want, max_bytes - total + 1)
            chunk = _checked_chunk(fp.read(want), name)
            if not chunk:
                break
            total += len(chunk)
            if max_bytes is not None and total > max_bytes:
                raise SourceTooLarge(name, None, max_bytes)
            spool.write(chunk)
        spool.seek(0)
    except SourceError:
        spool.close()
        raise
    except OSError as exc:
        spool.close()
        raise _source_error(name, "read it", exc) from exc
    except BaseException:
        spool.close()
        raise
    return Opened(name=name, size=total, stream=_Window(spool, 0, total, name), owned=(spool,))


# --- base64 ---------------------------------------------------------------------------------

_B64_BODY: Final = re.compile(r"[A-Za-z0-9+/]*")
_B64_NOT_BODY: Final = re.compile(r"[^A-Za-z0-9+/]")


def _describe_char(ch: str) -> str:
    if ch in "\r\n\u2028\u2029\x85":
        return "a line break"
    if ch.isspace():
        return "whitespace"
    if ch == "=":
        return "padding '=' before the end"
    if ch in "-_":
        return f"{ch!r} from the URL-safe alphabet"
    return f"the character {ch!r}"


def _base64_defect(data: str) -> str | None:
    n = len(data)
    pad = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    if not _B64_BODY.fullmatch(data, 0, n - pad):
        bad = _B64_NOT_BODY.search(data, 0, n - pad)
        offset = bad.start() if bad is not None else 0
        what = _describe_char(data[offset])
        expected = "expected standard, padded base64 without line breaks"
        return f"{expected}; found {what} at offset {offset}"
    if n % 4:
        return (
            f"expected a length that is a multiple of 4 (padded base64); found {n} characters, "
            f"padding missing at offset {n}"
        )
    if pad:
        # The bits of the last character that padding leaves unused must be zero; strict
        # decoders refuse other values, since two texts would then decode the same.
        last = n - pad - 1
        unused = 0x0F if pad == 2 else 0x03
        if _B64_ALPHABET.index(data[last]) & unused:
            return (
                f"expected canonical base64: the unused bits of {data[last]!r} at offset {last} "
                "before the padding are not zero"
            )
    return None


_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def base64_decoded_length(data: str) -> int:
    """Return the number of bytes valid padded base64 ``data`` decodes to, without decoding.

    .. versionadded:: 0.1
    """
    pad = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    return max(len(data) // 4 * 3 - pad, 0)


def check_base64(data: str, path: Path, *, head_bytes: int) -> tuple[list[Problem], bytes]:
    """Check that ``data`` is standard, padded base64 with no whitespace; decode its head.

    The whole text is checked by one compiled-regex match (C speed, no decoding); only the
    first ``head_bytes`` bytes are decoded, for sniffing. Invalid text gives one
    ``data.base64`` problem naming the offset of the first bad character, and an empty head.
    Use :func:`base64_decoded_length` for the decoded size.

    .. versionadded:: 0.1
    """
    if head_bytes < 0:
        raise ValueError(f"expected head_bytes >= 0, found {head_bytes}")
    defect = _base64_defect(data)
    if defect is not None:
        return [Problem(path, "data.base64", defect)], b""
    cut = min(len(data), -(-head_bytes // 3) * 4)
    return [], binascii.a2b_base64(data[:cut])[:head_bytes]


# --- URIs: redaction ------------------------------------------------------------------------

_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_MASK: Final = "***"
_HOST_PORT: Final = re.compile(r"(?:\[[^\]]*\]|[^:\[\]]*)(?::[0-9]*)?")


def _redact_query(query: str) -> str:
    items = []
    for item in query.split("&"):
        key, sep, _value = item.partition("=")
        items.append(f"{key}={_MASK}" if sep else (_MASK if item else ""))
    return "&".join(items)


def _redact_authority(rest: str) -> str:
    """Mask user info in ``rest`` (the text after ``//``, before any query or fragment)."""
    end = len(rest)
    for stop in "/?#":
        i = rest.find(stop)
        if i != -1:
            end = min(end, i)
    authority = rest[:end]
    if "@" in authority:
        return _MASK + rest[authority.rindex("@") :]
    if "@" in rest and not _HOST_PORT.fullmatch(authority):
        # "user:pass/word@host": not valid URL syntax, but clearly meant as user info.
        return _MASK + rest[rest.rindex("@") :]
    return rest


def redact_uri(uri: str) -> str:
    """Return ``uri`` fit for messages: user info, query values and fragment masked.

    ``https://user:pw@host/a.png?sig=x#f`` becomes ``https://***@host/a.png?sig=***#***``.

    .. versionadded:: 0.1
    """
    text, hash_, fragment = uri.partition("#")
    text, qmark, query = text.partition("?")
    match = _SCHEME.match(text)
    if match is not None and text[match.end() : match.end() + 2] == "//":
        cut = match.end() + 2
        text = text[:cut] + _redact_authority(text[cut:])
    elif "@" in text:
        text = _MASK + text[text.rindex("@") :]
    out = text
    if qmark:
        out += "?" + _redact_query(query)
    if hash_:
        out += "#" + (_MASK if fragment else "")
    return out


# --- URIs: static rules ---------------------------------------------------------------------

# Path extension -> the API MIME names it may carry. Not a limit (it only guesses from a
# name), so it lives here. Unknown extensions say nothing; audio/l16, alaw and mulaw have no
# customary extension. Extensions shared by audio and video containers list both.
EXTENSION_MIME_TYPES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "png": ("image/png",),
        "jpg": ("image/jpeg",),
        "jpeg": ("image/jpeg",),
        "jpe": ("image/jpeg",),
        "jfif": ("image/jpeg",),
        "webp": ("image/webp",),
        "heic": ("image/heic", "image/heif"),
        "heif": ("image/heif", "image/heic"),
        "gif": ("image/gif",),
        "bmp": ("image/bmp",),
        "tif": ("image/tiff",),
        "tiff": ("image/tiff",),
        "wav": ("audio/wav",),
        "mp3": ("audio/mp3", "audio/mpeg"),
        "aif": ("audio/aiff",),
        "aiff": ("audio/aiff",),
        "aifc": ("audio/aiff",),
        "aac": ("audio/aac",),
        "ogg": ("audio/ogg", "audio/opus"),
        "oga": ("audio/ogg", "audio/opus"),
        "opus": ("audio/opus", "audio/ogg"),
        "flac": ("audio/flac",),
        "m4a": ("audio/m4a",),
        "weba": ("audio/webm",),
        "webm": ("video/webm", "audio/webm"),
        "mp4": ("video/mp4", "audio/m4a"),
        "m4v": ("video/mp4",),
        "mpg": ("video/mpeg",),
        "mpeg": ("video/mpeg",),
        "mov": ("video/mov",),
        "qt": ("video/mov",),
        "avi": ("video/avi",),
        "wmv": ("video/wmv",),
        "flv": ("video/x-flv",),
        "3gp": ("video/3gpp",),
        "3gpp": ("video/3gpp",),
        "pdf": ("application/pdf",),
    }
)

_BAD_URI_CHAR: Final = re.compile(r"[\x00-\x20\x7f-\xa0\\\s]|[^\x00-\x7f]")
_BARE_FILES_NAME: Final = re.compile(r"/?files/", re.IGNORECASE)

# Address ranges the service cannot fetch from, first match wins. A fixed table rather
# than ipaddress.is_private/is_global, whose answers changed between Python releases.
_V4_RANGES: Final = tuple(
    (ipaddress.IPv4Network(net), what)
    for net, what in (
        ("0.0.0.0/8", "an unspecified ('this network') address"),
        ("10.0.0.0/8", "a private address"),
        ("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
        ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local address"),
        ("172.16.0.0/12", "a private address"),
        ("192.0.0.0/24", "a reserved (IETF protocol) address"),
        ("192.0.2.0/24", "a documentation address"),
        ("192.168.0.0/16", "a private address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved address"),
    )
)
_V6_RANGES: Final = tuple(
    (ipaddress.IPv6Network(net), what)
    for net, what in (
        ("::/128", "the unspecified address"),
        ("::1/128", "the loopback address"),
        ("::/96", "a reserved (IPv4-compatible) address"),
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("100::/64", "a discard-only address"),
        ("2001:db8::/32", "a documentation address"),
        ("fc00::/7", "a unique local (private) address"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local address"),
        ("ff00::/8", "a multicast address"),
    )
)
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")


class _NotAnAddress(ValueError):
    """The host looks like an IP address but is not a valid one."""


def _ipv4_part(part: str) -> int:
    if part[:2].lower() == "0x":
        digits, base, ok = part[2:], 16, re.fullmatch(r"[0-9A-Fa-f]*", part[2:])
    elif len(part) > 1 and part[0] == "0":
        digits, base, ok = part[1:], 8, re.fullmatch(r"[0-7]+", part[1:])
    else:
        digits, base, ok = part, 10, re.fullmatch(r"[0-9]+", part)
    if not ok:
        raise _NotAnAddress(part)
    return int(digits, base) if digits else 0


def _loose_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Parse ``host`` as browsers do (``127.1``, ``0x7f.1``, ``2130706433``) if it ends in
    a number; return ``None`` for a name."""
    parts = host.split(".")
    last = parts[-1]
    if not (re.fullmatch(r"[0-9]+", last) or re.fullmatch(r"0[xX][0-9A-Fa-f]*", last)):
        return None
    if len(parts) > 4 or "" in parts:
        raise _NotAnAddress(host)
    numbers = [_ipv4_part(p) for p in parts]
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise _NotAnAddress(host)
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _address_reason(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if isinstance(addr, ipaddress.IPv6Address):
        inner = addr.ipv4_mapped or addr.sixtofour
        if inner is None and addr in _NAT64:
            inner = ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
        if inner is not None:
            why = _address_reason(inner)
            return None if why is None else f"an IPv6 form of {inner}, {why}"
        return next((what for net, what in _V6_RANGES if addr in net), None)
    return next((what for net, what in _V4_RANGES if addr in net), None)


def _unreachable_reason(host: str) -> str | None:
    """Why the service cannot reach ``host`` (a normalised host), or ``None``."""
    if host == "localhost" or host.endswith(".localhost"):
        return "a localhost name"
    if ":" in host:
        try:
            addr: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise _NotAnAddress(host) from exc
        return _address_reason(addr)
    v4 = _loose_ipv4(host)
    return None if v4 is None else _address_reason(v4)


def _normalise_host(host: str) -> str:
    """Lower-case, percent-decode, NFKC-fold and strip the trailing dot, as clients do."""
    host = urllib.parse.unquote(host)
    host = unicodedata.normalize("NFKC", host).replace("\u3002", ".").replace("\uff61", ".")
    return host.lower().rstrip(".")


def _port(parts: urllib.parse.SplitResult) -> int | None:
    try:
        return parts.port
    except ValueError:
        return None


def _bad_host_name(host: str, labels: list[str]) -> str | None:
    """Say what makes a host name impossible (length, empty label, bad punycode), or None."""
    if ":" in host:
        return None  # an IPv6 literal; checked as an address
    if len(host) > 253 or any(len(label) > 63 for label in labels):
        return "expected a host name of at most 253 characters and labels of at most 63"
    if "" in labels:
        return f"expected a host name without empty labels, found {host[:80]!r}"
    for label in labels:
        try:
            label.encode("utf-8")
            if label.startswith("xn--") and not label.encode("ascii").decode("idna"):
                raise ValueError(label)
        except (UnicodeError, ValueError):
            return f"expected a valid host name, found the label {label[:63]!r}"
    return None


def _in_domain(host: str, domains: Iterable[str]) -> bool:
    return any(host == d or host.endswith("." + d) for d in domains)


def _bad_char_problem(uri: str, path: Path) -> Problem | None:
    bad = _BAD_URI_CHAR.search(uri)
    while bad is not None:
        ch = bad.group()
        if ch == "\\":
            what = "a backslash"
        elif ch.isspace():
            what = "whitespace"
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            what = f"the lone surrogate U+{ord(ch):04X}, which no URL can encode"
        elif ord(ch) < 0x80 or unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            what = f"the control or invisible character U+{ord(ch):04X}"
        else:
            bad = _BAD_URI_CHAR.search(uri, bad.end())
            continue  # other non-ASCII text is left to percent-encoding by clients
        msg = f"expected a URL without {what}; found it at offset {bad.start()}"
        return Problem(path, "uri.syntax", msg)
    return None


def _split(uri: str, path: Path) -> tuple[urllib.parse.SplitResult | None, Problem | None]:
    try:
        parts = urllib.parse.urlsplit(uri)
        _ = (parts.hostname, parts.port, parts.username, parts.password)
    except Exception as exc:  # noqa: BLE001 - any parser failure is a syntax problem
        text = str(exc)
        if "IPv6" in text or "bracket" in text.lower():
            why = "the [ ] around an IPv6 host are unbalanced or hold no valid address"
        elif "Port" in text or "port" in text:
            why = "the port is not a number from 0 to 65535"
        else:
            why = "it cannot be parsed"
        return None, Problem(path, "uri.syntax", f"expected a URL; {why}")
    return parts, None


def _scheme_problems(uri: str, path: Path, limits: Limits) -> tuple[list[Problem], bool]:
    """Problems of the scheme, and whether checking may go on."""
    match = _SCHEME.match(uri)
    if match is None:
        if _BARE_FILES_NAME.match(uri):
            return [_files_api(path, "a Files API name")], False
        wanted = " or ".join(f"{s}://" for s in limits.URI_SCHEMES)
        msg = f"expected an absolute {wanted} URL, found no scheme"
        return [Problem(path, "uri.scheme", msg)], False
    raw = match.group(1)
    scheme = raw.lower()
    if scheme == "gs":
        msg = "a gs:// Cloud Storage URI cannot be fetched; use a public or signed https URL"
        return [Problem(path, "uri.gcs", msg)], False
    if scheme not in limits.URI_SCHEMES:
        wanted = " or ".join(repr(s) for s in limits.URI_SCHEMES)
        hint = "; put the bytes in data instead" if scheme == "data" else ""
        msg = f"expected scheme {wanted}, found {scheme!r}{hint}"
        return [Problem(path, "uri.scheme", msg)], False
    if raw != scheme:
        msg = f"expected the scheme in lower case ({scheme!r}), found {raw!r}"
        return [Problem(path, "uri.scheme_case", msg, Severity.WARNING)], True
    return [], True


def _files_api(path: Path, what: str) -> Problem:
    msg = (
        f"{what} is only readable by the project that uploaded the file; "
        "pass the media as data or as a public or signed https URL"
    )
    return Problem(path, "uri.files_api", msg)


def _host_problems(host: str, url_path: str, path: Path, limits: Limits) -> Iterator[Problem]:
    if _in_domain(host, limits.FILES_API_HOSTS) and "/files/" in url_path.lower():
        yield _files_api(path, f"a Google Files API URL on {host}")
    labels = host.split(".")
    if _in_domain(host, limits.YOUTUBE_HOSTS) or not limits.YOUTUBE_HOST_LABELS.isdisjoint(
        labels[:-1]
    ):
        msg = f"{host} is YouTube, which the service does not fetch; pass the media as data"
        yield Problem(path, "uri.youtube", msg)
    bad_name = _bad_host_name(host, labels)
    if bad_name is not None:
        yield Problem(path, "uri.syntax", bad_name)
        return
    try:
        why = _unreachable_reason(host)
    except _NotAnAddress:
        yield Problem(path, "uri.syntax", f"expected a host name or IP address, found {host!r}")
        return
    if why is None and ":" not in host and _loose_ipv4(host) is None:
        if len(labels) == 1:
            why = "a single-label name, which only a local network resolves"
        elif _in_domain(host, limits.PRIVATE_HOST_SUFFIXES):
            why = "a name that only a private network resolves"
    if why is not None:
        msg = f"the service cannot reach {host}, {why}; use a public https URL"
        yield Problem(path, "uri.unreachable_host", msg)


def _extension_problem(
    url_path: str, path: Path, mime_type: str | None, limits: Limits
) -> Problem | None:
    if not mime_type:
        return None
    declared = mime_type.partition(";")[0].strip().lower()
    known = {m for types in limits.MIME_TYPES.values() for m in types}
    last = urllib.parse.unquote(url_path).rpartition("/")[2]
    ext = last.rpartition(".")[2].lower() if "." in last else ""
    suggested = EXTENSION_MIME_TYPES.get(ext)
    if declared not in known or suggested is None or declared in suggested:
        return None
    msg = (
        f"the path ends in .{ext}, which suggests {' or '.join(suggested)}, "
        f"but the declared type is {declared}; the bytes decide"
    )
    return Problem(path, "uri.extension", msg, Severity.WARNING)


def iter_uri_problems(
    uri: str, path: Path, *, mime_type: str | None, limits: Limits
) -> Iterator[Problem]:
    """Yield what is wrong with a media URI, without fetching or resolving anything.

    Syntax, scheme, Cloud Storage and bare Files API names stop the check; otherwise
    credentials, Files API URLs, YouTube hosts, unreachable hosts and an extension that
    contradicts ``mime_type`` are each reported.

    .. versionadded:: 0.1
    """
    if not isinstance(uri, str) or not uri:
        yield Problem(path, "uri.syntax", "expected a non-empty URL string")
        return
    bad = _bad_char_problem(uri, path)
    if bad is not None:
        yield bad
        return
    found, go_on = _scheme_problems(uri, path, limits)
    yield from found
    if not go_on:
        return
    parts, problem = _split(uri, path)
    if parts is None or problem is not None:
        yield problem or Problem(path, "uri.syntax", "expected a URL")
        return
    host = _normalise_host(parts.hostname or "")
    if not host:
        yield Problem(path, "uri.syntax", "expected a host after '//', found none")
        return
    if _port(parts) == 0:
        yield Problem(path, "uri.syntax", "expected a port from 1 to 65535, found 0")
        return
    if parts.username is not None or parts.password is not None:
        msg = (
            f"remove the user name and password ({redact_uri(uri)}): the service does not "
            "send them; use a public or signed URL"
        )
        yield Problem(path, "uri.credentials", msg)
    yield from _host_problems(host, parts.path, path, limits)
    ext = _extension_problem(parts.path, path, mime_type, limits)
    if ext is not None:
        yield ext


# --- remote check ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RemoteHead:
    """What a ranged GET learned: final URI, status, total size if told, the head bytes.

    .. versionadded:: 0.1
    """

    final_uri: str
    status: int
    size: int | None
    head: bytes
    content_type: str | None


SniffHead = Callable[[bytes, "str | None"], Iterable[Problem]]


def _time_left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the time allowed ran out")
    return left


@functools.cache
def _https_connection() -> Callable[..., http.client.HTTPSConnection]:
    """The class of an HTTPS connection whose TCP connect and TLS handshake share one deadline."""
    import http.client

    class HTTPSConnection(http.client.HTTPSConnection):
        def __init__(
            self, host: str, port: int, *, context: ssl.SSLContext, deadline: float
        ) -> None:
            super().__init__(host, port, timeout=_time_left(deadline), context=context)
            self._tls = context
            self._deadline = deadline

        def connect(self) -> None:
            http.client.HTTPConnection.connect(self)
            self.sock.settimeout(_time_left(self._deadline))
            self.sock = self._tls.wrap_socket(self.sock, server_hostname=self.host)

    return HTTPSConnection


_PATH_SAFE: Final = "!#$%&'()*+,/:;=?@[]~"


def _get_range(
    uri: str, context: ssl.SSLContext, deadline: float, nbytes: int
) -> tuple[int, str, http.client.HTTPMessage, bytes]:
    parts = urllib.parse.urlsplit(uri)
    target = urllib.parse.quote(parts.path or "/", safe=_PATH_SAFE)
    if parts.query:
        target += "?" + urllib.parse.quote(parts.query, safe=_PATH_SAFE)
    host, port = parts.hostname or "", parts.port or 443
    conn = _https_connection()(host, port, context=context, deadline=deadline)
    try:
        conn.connect()
        sock = conn.sock
        headers = {
            "Range": f"bytes=0-{nbytes - 1}",
            "Accept-Encoding": "identity",
            "Connection": "close",
            "User-Agent": "decisions-input",
        }
        conn.request("GET", target, headers=headers)
        sock.settimeout(_time_left(deadline))
        resp = conn.getresponse()
        try:
            body = b""
            if resp.status not in _REDIRECT_STATUSES:
                body = _read_bounded(resp, sock, deadline, nbytes)
            return resp.status, resp.reason, resp.headers, body
        finally:
            resp.close()
    finally:
        conn.close()


def _read_bounded(
    resp: http.client.HTTPResponse, sock: socket.socket, deadline: float, nbytes: int
) -> bytes:
    parts: list[bytes] = []
    got = 0
    while got < nbytes:
        left = _time_left(deadline)
        # Python 3.13 closes the connection's socket object once the response owns the
        # stream ("Connection: close"); the timeout set before the response still bounds
        # each read, and the deadline is checked before every one.
        with contextlib.suppress(OSError):
            sock.settimeout(left)
        chunk = resp.read1(min(_NET_CHUNK_BYTES, nbytes - got))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


_CONTENT_RANGE: Final = re.compile(r"\s*bytes\s+(?:\d+-\d+|\*)\s*/\s*(\d+|\*)\s*", re.IGNORECASE)


def _total_size(status: int, headers: http.client.HTTPMessage) -> int | None:
    content_range = headers.get("Content-Range")
    if content_range is not None:
        match = _CONTENT_RANGE.fullmatch(content_range)
        if match is not None and match.group(1) != "*":
            return int(match.group(1))
        return None
    length = (headers.get("Content-Length") or "").strip()
    if status == 200 and length.isascii() and length.isdigit():
        return int(length)
    return None


def _network_message(exc: BaseException, host: str, timeout: float) -> str:
    import http.client
    import socket
    import ssl

    if isinstance(exc, TimeoutError):
        return f"no answer from {host} within {timeout:g} s"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the TLS certificate of {host} was not accepted: {exc.verify_message or exc.reason}"
    if isinstance(exc, ssl.SSLError):
        return f"the TLS connection to {host} failed: {exc.reason or type(exc).__name__}"
    if isinstance(exc, ConnectionRefusedError):
        return f"{host} refused the connection"
    if isinstance(exc, socket.gaierror):
        return f"the name {host} could not be resolved"
    if isinstance(exc, http.client.HTTPException):
        return f"{host} sent a broken HTTP response ({type(exc).__name__})"
    if isinstance(exc, UnicodeError):
        return f"the host name {host!r} cannot be encoded"
    return f"network error talking to {host}: {_reason(exc)}"


def _static_errors(uri: str, limits: Limits, allow_hosts: Collection[str]) -> list[Problem]:
    errors = [p for p in iter_uri_problems(uri, (), mime_type=None, limits=limits) if p.is_error]
    if allow_hosts and errors:
        allowed = {_normalise_host(h) for h in allow_hosts}
        try:
            host = _normalise_host(urllib.parse.urlsplit(uri).hostname or "")
        except ValueError:
            return errors
        if host in allowed:
            errors = [p for p in errors if p.code != "uri.unreachable_host"]
    return errors


def _redirect_target(
    current: str, location: str | None, hop: int, limits: Limits, allow_hosts: Collection[str]
) -> str:
    if hop >= limits.MAX_REDIRECTS:
        msg = f"expected at most {limits.MAX_REDIRECTS} redirects, found more"
        raise RemoteError("uri.redirect", msg)
    if location is None or not location.strip():
        raise RemoteError("uri.unreachable", "a redirect without a Location header")
    try:
        target = urllib.parse.urljoin(current, location.strip())
    except Exception:  # noqa: BLE001 - a broken Location header is a redirect problem
        raise RemoteError("uri.redirect", f"redirect {hop + 1} has an unusable Location") from None
    match = _SCHEME.match(target)
    if match is not None and match.group(1).lower() != "https":
        msg = f"redirect {hop + 1} leaves https for {match.group(1).lower()}: {redact_uri(target)}"
        raise RemoteError("uri.redirect", msg)
    errors = _static_errors(target, limits, allow_hosts)
    if errors:
        msg = f"redirect {hop + 1} leads to {redact_uri(target)}: {errors[0].message}"
        raise RemoteError("uri.redirect", msg)
    return target


@dataclass(frozen=True, slots=True)
class RemoteCheck:
    """Settings of the opt-in remote check of a URI block (``verify=RemoteCheck(...)``).

    ``allow_hosts`` exempts named hosts from ``uri.unreachable_host`` for this check only
    (a test that runs a local server needs it); it is empty by default.

    .. versionadded:: 0.1
    """

    timeout: float = 10.0
    ssl_context: ssl.SSLContext | None = None
    allow_hosts: frozenset[str] = frozenset()


def fetch_head(
    uri: str,
    *,
    limits: Limits,
    timeout: float = 10.0,
    max_bytes: int | None = None,
    ssl_context: ssl.SSLContext | None = None,
    allow_hosts: Collection[str] = (),
) -> RemoteHead:
    """Fetch the first bytes of an https URI with a ranged GET; read at most ``max_bytes``.

    ``max_bytes`` defaults to ``limits.SNIFF_BYTES``. Redirects are followed up to
    ``limits.MAX_REDIRECTS``, each target checked like the URI itself. ``timeout`` covers the
    whole call. ``allow_hosts`` exempts those hosts from ``uri.unreachable_host`` (for tests
    against a local server; empty by default). Any final status is returned, not raised.

    Raises:
        RemoteError: the URI is refused, a redirect is bad, or no HTTP answer arrived.

    .. versionadded:: 0.1
    """
    import http.client
    import ssl

    nbytes = limits.SNIFF_BYTES if max_bytes is None else max_bytes
    if nbytes < 1:
        raise ValueError(f"expected max_bytes >= 1, found {nbytes}")
    errors = _static_errors(uri, limits, allow_hosts)
    if errors:
        raise RemoteError(errors[0].code, errors[0].message)
    context = ssl_context if ssl_context is not None else ssl.create_default_context()
    deadline = time.monotonic() + timeout
    current = uri
    for hop in range(limits.MAX_REDIRECTS + 1):
        host = urllib.parse.urlsplit(current).hostname or ""
        try:
            status, _reason_text, headers, body = _get_range(current, context, deadline, nbytes)
        except (OSError, http.client.HTTPException, UnicodeError, ValueError) as exc:
            raise RemoteError("uri.unreachable", _network_message(exc, host, timeout)) from None
        if status not in _REDIRECT_STATUSES:
            return RemoteHead(
                final_uri=current,
                status=status,
                size=_total_size(status, headers),
                head=body,
                content_type=headers.get("Content-Type"),
            )
        current = _redirect_target(current, headers.get("Location"), hop, limits, allow_hosts)
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def _status_problem(head: RemoteHead, path: Path) -> Problem | None:
    where = redact_uri(head.final_uri)
    if head.status in (404, 410):
        msg = f"the server answered {head.status} for {where}; is the URL public and correct?"
        return Problem(path, "uri.not_found", msg)
    if head.status in (200, 206) or (head.status == 416 and head.size == 0):
        return None
    hint = "; the service needs a public or signed URL" if head.status in (401, 403) else ""
    msg = f"expected status 200 or 206, found {head.status} for {where}{hint}"
    return Problem(path, "uri.unreachable", msg)


def iter_remote_problems(
    uri: str,
    path: Path,
    *,
    mime_type: str | None,
    limits: Limits,
    ssl_context: ssl.SSLContext | None = None,
    sniff_head: SniffHead | None = None,
    timeout: float = 10.0,
    allow_hosts: Collection[str] = (),
) -> Iterator[Problem]:
    """Fetch the head of ``uri`` and yield what the service would trip over.

    Opt-in: this connects to the URI's host. It yields only remote findings
    (``uri.not_found``, ``uri.unreachable``, ``uri.redirect``, ``uri.too_large``, then
    whatever ``sniff_head(head, mime_type)`` yields); a URI with static errors (see
    :func:`iter_uri_problems`) is not fetched. ``sniff_head`` builds its own problems,
    usually as a closure over ``path``.

    .. versionadded:: 0.1
    """
    if _static_errors(uri, limits, allow_hosts):
        return
    try:
        head = fetch_head(
            uri, limits=limits, timeout=timeout, ssl_context=ssl_context, allow_hosts=allow_hosts
        )
    except RemoteError as exc:
        yield Problem(path, exc.code, exc.message)
        return
    problem = _status_problem(head, path)
    if problem is not None:
        yield problem
        return
    if head.size is not None and head.size > limits.MAX_URI_FILE_BYTES:
        msg = f"expected at most {limits.MAX_URI_FILE_BYTES} bytes, found {head.size} bytes"
        yield Problem(path, "uri.too_large", msg)
    if sniff_head is not None:
        yield from sniff_head(head.head, mime_type)
