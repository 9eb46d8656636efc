"""Content-block builders: text, and media blocks built from sniffed bytes or https URLs.

A media block built from a path, bytes or a file object is sniffed once, when it is built:
the format comes from the bytes (never from a file name), is mapped to the API's MIME name,
and is compared with any declared type. The bytes are not read again until the request is
written, and then in bounded chunks straight into the output.

Blocks pickle: a block built from a file is the file's absolute path and the size and
modification time it was sniffed at, and it is read, in any process, only while the file
still has them; a block built from bytes carries them; one built from a file object cannot
be pickled (``NotPicklable``), as the open file stays in the process that opened it.

.. versionadded:: 0.1
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Literal

from ._pickling import rebuild_fields, thaw
from ._types import JSONObject, Source
from .checks import check_media_block, check_text_block, json_type
from .errors import InvalidInput, NotPicklable, Problem, Severity, SourceError
from .limits import GEMINI, Limits

if TYPE_CHECKING:
    from .sniffing import Detected
    from .sources import Opened, RemoteCheck

__all__ = [
    "Block",
    "MediaBlock",
    "MediaKind",
    "TextBlock",
    "audio",
    "document",
    "image",
    "media",
    "sniff",
    "text",
    "video",
]

MediaKind = Literal["image", "audio", "video", "document"]


@dataclass(frozen=True, slots=True)
class TextBlock:
    """A text content block.

    .. versionadded:: 0.1
    """

    text: str

    def to_json(self) -> JSONObject:
        """Return the block as its JSON object."""
        return {"text": self.text, "type": "text"}


def text(value: Any, *, limits: Limits = GEMINI) -> TextBlock:
    """Build a text block; raise ``InvalidInput`` for a non-string or empty text.

    .. versionadded:: 0.1
    """
    problems = list(check_text_block({"type": "text", "text": value}, (), limits))
    if problems:
        raise InvalidInput(problems)
    return TextBlock(value)


@dataclass(frozen=True, slots=True, eq=False)
class _Payload:
    """Where the bytes of an inline block live, and how to read them again when writing.

    A file is named by its absolute path with the size and modification time it had when
    it was sniffed, and is read only if it still has them; bytes are held; an open file
    object is read again from where the block began.
    """

    src: Any
    size: int
    start: int = 0
    mtime_ns: int | None = None

    def _key(self) -> tuple[object, ...]:
        if _is_path(self.src):
            return ("path", os.fspath(self.src), self.size, self.mtime_ns)
        if isinstance(self.src, (bytes, memoryview)):
            return ("bytes", self.size)
        return ("stream", id(self.src), self.start, self.size)

    def __eq__(self, other: object) -> bool:
        """Equal for the same file in the same state, equal bytes, or the same stream."""
        if not isinstance(other, _Payload):
            return NotImplemented
        if self._key() != other._key():
            return False
        return not isinstance(self.src, (bytes, memoryview)) or _raw(self.src) == _raw(other.src)

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[object, ...]:
        if isinstance(self.src, memoryview):
            return (_Payload, (self.src.tobytes(), self.size))
        if not isinstance(self.src, (str, os.PathLike, bytes)):
            raise NotPicklable(
                f"a media block built from a file object ({self.src!r}) cannot be pickled: "
                "its bytes are read again from that open file when the request is written, "
                "and an open file does not cross a process boundary; build the block from "
                "the path or the bytes"
            )
        return (_Payload, (self.src, self.size, self.start, self.mtime_ns))

    def open(self) -> Opened:
        from .sources import open_source

        if isinstance(self.src, (str, os.PathLike)):
            opened = open_source(self.src)
            stat = os.stat(self.src)
            if opened.size != self.size or stat.st_mtime_ns != self.mtime_ns:
                opened.close()
                raise SourceError(f"{os.fspath(self.src)!r} changed after the block was built")
            return opened
        if hasattr(self.src, "seek"):
            try:
                self.src.seek(self.start)
            except (OSError, ValueError) as exc:
                raise SourceError(
                    "the file object of this block cannot be read again (is it closed?); "
                    "keep it open until the request is written, or pass a path or bytes"
                ) from exc
        return open_source(self.src)


@dataclass(frozen=True, slots=True)
class MediaBlock:
    """An image, audio, video or PDF block: inline bytes (streamed when written) or a URI.

    ``detected`` tells what sniffing found (``None`` for a URI that was not fetched).

    A block pickles, and compares equal to its copy: one built from bytes carries them; one
    built from a path carries the path and the size, modification time and sniffed type
    the file had, and reads the file (in whatever process) only if it still has that size
    and time, else raises ``SourceError``, as writing a request does in the process that
    built it. One built from a file object raises ``NotPicklable``.

    .. versionadded:: 0.1
    """

    type: MediaKind
    mime_type: str
    resolution: str | None = None
    uri: str | None = None
    detected: Detected | None = None
    warnings: tuple[Problem, ...] = ()
    _payload: _Payload | None = field(default=None, repr=False)

    def __reduce__(self) -> tuple[object, ...]:
        state = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if self.detected is not None:
            # By its fields, so that a block pickles whether or not Detected does on its own.
            found = self.detected
            state["detected"] = thaw(
                {f.name: getattr(found, f.name) for f in dataclasses.fields(found)}
            )
        return (_rebuild_media_block, (state,))

    @property
    def size(self) -> int | None:
        """Size of the inline bytes, or None for a URI block."""
        return self._payload.size if self._payload is not None else None

    @property
    def base64_length(self) -> int:
        """Length of the base64 text of the inline bytes (0 for a URI block)."""
        return 4 * ((self._payload.size + 2) // 3) if self._payload is not None else 0

    def skeleton(self, data: str | None = None) -> JSONObject:
        """Return the JSON object with ``data`` set to the given text (or left out)."""
        body: JSONObject = {"mime_type": self.mime_type, "type": self.type}
        if self.resolution is not None:
            body["resolution"] = self.resolution
        if self.uri is not None:
            body["uri"] = self.uri
        if data is not None:
            body["data"] = data
        return dict(sorted(body.items()))

    def open(self) -> Opened:
        """Open the inline bytes again, as a bounded reader (a context manager).

        Raises ``SourceError`` for a URI block, or when the source changed or was closed.
        """
        if self._payload is None:
            raise SourceError("a URI block has no inline bytes to open")
        return self._payload.open()

    def iter_base64(self, chunk_bytes: int = GEMINI.CHUNK_BYTES) -> Iterator[bytes]:
        """Yield the base64 of the inline bytes in bounded chunks, reading the source again."""
        if self._payload is None:
            return
        with self._payload.open() as opened:
            if opened.size != self._payload.size:
                raise SourceError("the source changed size after the block was built")
            yield from opened.iter_base64(chunk_bytes)

    def to_json(self) -> JSONObject:
        """Return the block as JSON, with the base64 text in memory (see ``Request.dump``)."""
        data = b"".join(self.iter_base64()).decode("ascii") if self._payload is not None else None
        return self.skeleton(data)


Block = TextBlock | MediaBlock


def _rebuild_media_block(state: dict[str, Any]) -> MediaBlock:
    found = state["detected"]
    if found is not None:
        from .sniffing import Detected

        found = rebuild_fields(Detected, found)
    block: MediaBlock = rebuild_fields(MediaBlock, {**state, "detected": found})
    return block


def sniff(src: Source, *, declared: str | None = None, limits: Limits = GEMINI) -> Detected:
    """Tell what a file, bytes or stream really is: modality, API MIME name, evidence.

    .. versionadded:: 0.1
    """
    from .sniffing import sniff_stream

    if type(src) is bytes:  # io.BytesIO shares the bytes, and reads them at C speed
        return sniff_stream(io.BytesIO(src), len(src), declared=declared, limits=limits)
    from .sources import open_source

    if declared is not None and type(declared) is not str:
        raise InvalidInput([_not_a_string(declared, ("mime_type",), "a MIME type string")])
    with open_source(src) as opened:
        return sniff_stream(opened.stream, opened.size, declared=declared, limits=limits)


def image(
    src: Source | None = None,
    *,
    uri: str | None = None,
    mime_type: str | None = None,
    resolution: str | None = None,
    verify: bool | RemoteCheck = False,
    limits: Limits = GEMINI,
) -> MediaBlock:
    """Build an image block from bytes (sniffed) or an https URL (not fetched unless verify).

    .. versionadded:: 0.1
    """
    return _build("image", src, uri, mime_type, resolution, verify, limits)


def audio(
    src: Source | None = None,
    *,
    uri: str | None = None,
    mime_type: str | None = None,
    verify: bool | RemoteCheck = False,
    limits: Limits = GEMINI,
) -> MediaBlock:
    """Build an audio block from bytes (sniffed) or an https URL.

    .. versionadded:: 0.1
    """
    return _build("audio", src, uri, mime_type, None, verify, limits)


def video(
    src: Source | None = None,
    *,
    uri: str | None = None,
    mime_type: str | None = None,
    resolution: str | None = None,
    verify: bool | RemoteCheck = False,
    limits: Limits = GEMINI,
) -> MediaBlock:
    """Build a video block from bytes (sniffed) or an https URL.

    .. versionadded:: 0.1
    """
    return _build("video", src, uri, mime_type, resolution, verify, limits)


def document(
    src: Source | None = None,
    *,
    uri: str | None = None,
    mime_type: str | None = None,
    verify: bool | RemoteCheck = False,
    limits: Limits = GEMINI,
) -> MediaBlock:
    """Build a PDF document block from bytes (sniffed, pages counted) or an https URL.

    .. versionadded:: 0.1
    """
    return _build("document", src, uri, mime_type, None, verify, limits)


def media(
    src: Source | None = None,
    *,
    uri: str | None = None,
    mime_type: str | None = None,
    resolution: str | None = None,
    verify: bool | RemoteCheck = False,
    limits: Limits = GEMINI,
) -> MediaBlock:
    """Build a block whose modality is chosen by sniffing (or by the declared type of a URI).

    .. versionadded:: 0.1
    """
    return _build(None, src, uri, mime_type, resolution, verify, limits)


def _raise_errors(problems: list[Problem]) -> tuple[Problem, ...]:
    if any(p.severity is Severity.ERROR for p in problems):
        raise InvalidInput(problems)
    return tuple(problems)


def _kind_of_mime(mime: str | None, limits: Limits) -> str | None:
    for kind, types in limits.MIME_TYPES.items():
        if mime in types:
            return kind
    return None


def _not_a_string(value: object, path: tuple[str, ...], expected: str) -> Problem:
    return Problem(path, "schema.type", f"expected {expected}, found {json_type(value)}")


def _build(
    kind: str | None,
    src: Source | None,
    uri: str | None,
    mime_type: str | None,
    resolution: str | None,
    verify: bool | RemoteCheck,
    limits: Limits,
) -> MediaBlock:
    if mime_type is not None and type(mime_type) is not str:
        # Checked before sniffing, which compares the declared type with the bytes.
        raise InvalidInput([_not_a_string(mime_type, ("mime_type",), "a MIME type string")])
    if (src is None) == (uri is None):
        found = "both" if src is not None else "neither"
        raise InvalidInput(
            [
                Problem(
                    (),
                    "block.data_or_uri",
                    f"expected exactly one of a source and uri=, found {found}",
                )
            ]
        )
    if uri is not None:
        return _from_uri(kind, uri, mime_type, resolution, verify, limits)
    return _from_source(kind, src, mime_type, resolution, limits)


def _from_uri(
    kind: str | None,
    uri: str,
    mime_type: str | None,
    resolution: str | None,
    verify: bool | RemoteCheck,
    limits: Limits,
) -> MediaBlock:
    kind = kind or _kind_of_mime(mime_type, limits) or "image"
    raw: dict[str, Any] = {"type": kind, "uri": uri}
    if mime_type is not None:
        raw["mime_type"] = mime_type
    if resolution is not None:
        raw["resolution"] = resolution
    problems = list(check_media_block(raw, (), limits))
    allowed = verify.allow_hosts if not isinstance(verify, bool) else frozenset()
    if allowed and urllib.parse.urlsplit(uri).hostname in allowed:
        problems = [p for p in problems if p.code != "uri.unreachable_host"]
    if verify and not any(p.severity is Severity.ERROR for p in problems):
        problems.extend(_remote_problems(kind, uri, mime_type, limits, verify))
    warnings = _raise_errors(problems)
    assert mime_type is not None  # a missing mime_type is an error above
    return MediaBlock(kind, mime_type, resolution, uri, None, warnings)  # type: ignore[arg-type]


def _remote_problems(
    kind: str, uri: str, mime_type: str | None, limits: Limits, verify: bool | RemoteCheck
) -> list[Problem]:
    from .sniffing import sniff_bytes
    from .sources import RemoteCheck, iter_remote_problems

    settings = verify if isinstance(verify, RemoteCheck) else RemoteCheck()

    def sniff_head(head: bytes, declared: str | None) -> Iterator[Problem]:
        from .media_checks import compare_detected

        detected = sniff_bytes(head, declared=declared, limits=limits, partial=True)
        yield from compare_detected(detected, declared, kind, (), ("uri",), limits)

    return list(
        iter_remote_problems(
            uri,
            ("uri",),
            mime_type=mime_type,
            limits=limits,
            sniff_head=sniff_head,
            ssl_context=settings.ssl_context,
            timeout=settings.timeout,
            allow_hosts=settings.allow_hosts,
        )
    )


def _max_bytes(kind: str | None, limits: Limits) -> int:
    base64_cap = (
        limits.MAX_INLINE_PDF_BYTES if kind == "document" else limits.MAX_INLINE_TOTAL_BYTES
    )
    return base64_cap // 4 * 3


def _from_source(
    kind: str | None,
    src: Any,
    mime_type: str | None,
    resolution: str | None,
    limits: Limits,
) -> MediaBlock:
    from .media_checks import compare_detected
    from .sniffing import sniff_stream
    from .sources import SourceTooLarge, open_source

    if not isinstance(src, (str, os.PathLike, bytes, bytearray, memoryview)) and not callable(
        getattr(src, "read", None)
    ):
        raise InvalidInput(
            [
                Problem(
                    ("data",),
                    "schema.type",
                    f"expected a path, bytes or a binary file object, found {type(src).__name__}",
                )
            ]
        )
    if isinstance(src, (bytearray, memoryview)) and not (
        isinstance(src, memoryview) and src.readonly
    ):
        # A mutable buffer could change before the request is written: keep a copy.
        src = bytes(src)
    start = src.tell() if _seekable(src) else 0
    if not isinstance(src, (str, os.PathLike, bytes, bytearray, memoryview)) and not _seekable(src):
        src = _read_pipe(src, _max_bytes(kind, limits))
    try:
        with open_source(src, max_bytes=_max_bytes(kind, limits)) as opened:
            mtime = os.stat(src).st_mtime_ns if _is_path(src) else None
            detected = sniff_stream(opened.stream, opened.size, declared=mime_type, limits=limits)
            size = opened.size
    except SourceTooLarge as exc:
        code = "pdf.too_large" if kind == "document" else "data.too_large"
        raise InvalidInput([exc.problem(("data",), code)]) from exc
    kind = kind or detected.kind or "image"
    raw: dict[str, Any] = {"type": kind, "data": ""}
    if mime_type is not None:
        raw["mime_type"] = mime_type
    elif detected.mime is not None and detected.kind == kind:
        raw["mime_type"] = detected.mime
    if resolution is not None:
        raw["resolution"] = resolution
    # Without a type to check, the sniffing problem below says what is wrong.
    problems = [
        p
        for p in check_media_block(_without_data(raw), (), limits)
        if "mime_type" in raw or p.code != "schema.required"
    ]
    problems.extend(compare_detected(detected, mime_type, kind, (), ("data",), limits))
    warnings = _raise_errors(problems)
    # A path is kept absolute: the block reads the file it sniffed in any working directory.
    payload = _Payload(os.path.abspath(src) if _is_path(src) else src, size, start, mtime)
    return MediaBlock(
        kind,  # type: ignore[arg-type]
        mime_type or detected.mime or "",
        resolution,
        None,
        detected,
        warnings,
        payload,
    )


def _without_data(raw: dict[str, Any]) -> dict[str, Any]:
    from .media_checks import DeferredData

    return {**raw, "data": DeferredData("", 0)}


def _is_path(src: Any) -> bool:
    return isinstance(src, (str, os.PathLike))


def _raw(src: bytes | memoryview) -> bytes | memoryview:
    """The bytes of a held source, for comparing: a view of another item format as bytes."""
    if isinstance(src, memoryview) and (src.format != "B" or src.ndim != 1):
        return src.tobytes()
    return src


def _seekable(src: Any) -> bool:
    if isinstance(src, (str, os.PathLike, bytes, bytearray, memoryview)):
        return False
    with contextlib.suppress(Exception):
        return bool(src.seekable())
    return False


def _read_pipe(stream: IO[bytes], max_bytes: int) -> bytes:
    """Read a non-seekable stream into memory, refusing it once it passes ``max_bytes``."""
    from .sources import open_source

    with open_source(stream, max_bytes=max_bytes) as opened:
        buffer = io.BytesIO()
        for chunk in opened.iter_chunks():
            buffer.write(chunk)
        return buffer.getvalue()
