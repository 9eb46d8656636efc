"""Assemble a request, check it, and emit canonical JSON.

Canonical JSON is: members of every object sorted by name (code point order, which is
UTF-8 byte order, so choice options come out in the order the server sorts them), no
insignificant white space, non-ASCII characters written as UTF-8 rather than escaped, no
NaN or Infinity. Arrays keep their order. The same request gives the same bytes every time.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from ._types import JSON, JSONObject
from .blocks import MediaBlock, TextBlock
from .checks import check_request
from .errors import InvalidInput, Problem, Severity, SourceError
from .limits import Endpoint, Limits, limits_for
from .media_checks import DeferredData
from .questions import Question
from .sending import HttpRequest, http_request

__all__ = ["Request", "canonical_dumps"]

_UNSET: Any = object()


def canonical_dumps(value: JSON) -> str:
    """Serialise a JSON value canonically (sorted members, compact, UTF-8 text, no NaN)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def _block_json(block: Any, media: list[MediaBlock] | None = None) -> Any:
    if isinstance(block, MediaBlock) and media is not None and block.size is not None:
        token = DeferredData(
            f"\x00decisions-input-media-{len(media)}\x00", block.base64_length, block
        )
        media.append(block)
        return block.skeleton(token)
    to_json = getattr(block, "to_json", None)
    return to_json() if callable(to_json) else block


class Request:
    """A complete request for one target, checked when it is built.

    Builds from builder objects (``text``, ``noul``, ``choice``, ``score``, media blocks)
    or plain JSON-like values. Raises ``InvalidInput`` listing every error at once;
    warnings are kept in :attr:`warnings`. A request pickles (unless a block of it was built
    from a file object) and the copy equals it and writes the same bytes.

    .. versionadded:: 0.1
    """

    __slots__ = ("_media", "_pieces", "limits", "target", "warnings")

    def __init__(
        self,
        *,
        questions: Mapping[str, Question | Mapping[str, Any]],
        target: str = "gemini",
        model: str | None = None,
        input: str | TextBlock | Sequence[Any] | Mapping[str, Any] | None = None,
        state: Any = _UNSET,
        mode: str | None = None,
        include_excerpts: bool | None = None,
        limits: Limits | None = None,
    ) -> None:
        table = limits if limits is not None else limits_for(target)
        self.target = table.TARGET
        self.limits = table
        body: dict[str, Any] = {}
        if model is not None:
            body["model"] = model
        media: list[MediaBlock] = []
        if input is not None:
            body["input"] = (
                [_block_json(b, media) for b in input]
                if isinstance(input, Sequence) and not isinstance(input, (str, bytes))
                else _block_json(input, media)
            )
        if state is not _UNSET:
            body["state"] = state
        if mode is not None:
            body["mode"] = mode
        if include_excerpts is not None:
            body["include_excerpts"] = include_excerpts
        body["questions"] = (
            {key: _block_json(q) for key, q in questions.items()}
            if isinstance(questions, Mapping)
            else questions
        )
        problems = list(check_request(body, (), table))
        if any(p.severity is Severity.ERROR for p in problems):
            raise InvalidInput(problems)
        self._media = tuple(media)
        self._pieces = _split(canonical_dumps(body), len(media))
        self.warnings: tuple[Problem, ...] = tuple(problems)

    @property
    def media(self) -> tuple[MediaBlock, ...]:
        """The inline media blocks, in the order their data appears in :meth:`skeleton`.

        .. versionadded:: 0.1
        """
        return self._media

    def skeleton(self) -> JSONObject:
        """Return the canonical body as a new dict without reading any media.

        Each inline ``data`` is a :class:`~decisions_input.media_checks.DeferredData` token
        (its ``len()`` is the length of the base64 text), in the order of :attr:`media`.

        .. versionadded:: 0.1
        """
        tokens = [f"\x00decisions-input-media-{i}\x00" for i in range(len(self._media))]
        text = self._pieces[0]
        for token, piece in zip(tokens, self._pieces[1:], strict=True):
            text += json.dumps(token)[1:-1] + piece
        body: JSONObject = json.loads(text)
        built = dict(zip(tokens, self._media, strict=True))
        blocks = body.get("input")
        for block in blocks if isinstance(blocks, list) else [blocks]:
            if isinstance(block, dict):
                data = block.get("data")
                if isinstance(data, str) and data in built:
                    media = built[data]
                    block["data"] = DeferredData(data, media.base64_length, media)
        return body

    @property
    def content_length(self) -> int:
        """Length in bytes of the UTF-8 JSON body, known before any media is read."""
        text = sum(len(piece.encode("utf-8")) for piece in self._pieces)
        return text + sum(block.base64_length for block in self._media)

    def to_dict(self) -> JSONObject:
        """Return the canonical body as a new dict (members in canonical order).

        Inline media are read and encoded into memory; prefer :meth:`dump` for large ones.
        """
        return json.loads(self.dumps())  # type: ignore[no-any-return]

    def dumps(self) -> str:
        """Return the canonical JSON text (inline media encoded into memory)."""
        return b"".join(self.iter_bytes()).decode("utf-8")

    def iter_bytes(self, *, chunk_bytes: int | None = None) -> Iterator[bytes]:
        """Yield the canonical JSON as UTF-8 in bounded chunks; joined, they equal ``dumps()``.

        Inline media are read again from their sources, ``chunk_bytes`` (a positive multiple
        of 3, default ``limits.CHUNK_BYTES``) at a time, and encoded as they go; no chunk is
        longer than the base64 of one such read. Raises ``SourceError`` if a source changed
        size since the block was built.

        .. versionadded:: 0.1
        """
        size = self.limits.CHUNK_BYTES if chunk_bytes is None else chunk_bytes
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0 or size % 3:
            raise ValueError(f"expected chunk_bytes a positive multiple of 3, found {size!r}")
        return self._chunks(size)

    def _chunks(self, size: int) -> Iterator[bytes]:
        most = size // 3 * 4
        for index, piece in enumerate(self._pieces):
            encoded = piece.encode("utf-8")
            for start in range(0, len(encoded), most):
                yield encoded[start : start + most]
            if index < len(self._media):
                yield from self._media[index].iter_base64(size)

    def dump(self, fp: IO[bytes], *, chunk_bytes: int | None = None) -> int:
        """Write the canonical JSON as UTF-8 to a binary file object; return the byte count.

        Writes the chunks of :meth:`iter_bytes`: inline media are read again from their
        sources and encoded in bounded chunks straight into ``fp``; the bytes equal
        ``dumps().encode()``.
        """
        if isinstance(fp, io.TextIOBase):
            raise SourceError("expected a binary file object; open it with 'wb'")
        written = 0
        for chunk in self.iter_bytes(chunk_bytes=chunk_bytes):
            written += fp.write(chunk) or 0
        return written

    def http(
        self,
        *,
        api_key: str | None = None,
        endpoint: str | Endpoint | None = None,
        base_url: str | None = None,
        chunk_bytes: int | None = None,
    ) -> HttpRequest:
        """Return the HTTP request that sends this request to an endpoint; send nothing.

        ``endpoint`` names one of the target's services in ``limits.ENDPOINTS`` (Gemini:
        ``"google"``, the default, or the ``"evolink"`` proxy; Parallel: ``"parallel"``) or
        is an :class:`~decisions_input.limits.Endpoint` of the caller's. ``base_url``
        replaces the endpoint's base URL (a fallback server, a gateway, a test server) and
        keeps its key header. ``api_key`` goes in that header; without it none is set. The
        body streams as :meth:`iter_bytes` does, read anew on each pass.

        Raises:
            InvalidInput: ``endpoint.unknown``, ``endpoint.base_url``, ``endpoint.api_key``
                or ``endpoint.auth_header``.

        .. versionadded:: 0.1
        """
        self.iter_bytes(chunk_bytes=chunk_bytes)  # refuse a bad chunk size now, not when sent
        return http_request(
            _Body(self, chunk_bytes),
            self.content_length,
            self.limits,
            api_key=api_key,
            endpoint=endpoint,
            base_url=base_url,
        )

    def __repr__(self) -> str:
        return f"Request(target={self.target!r}, bytes={self.content_length})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Request):
            return NotImplemented
        return (self.target, self._pieces, self._media) == (
            other.target,
            other._pieces,
            other._media,
        )

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class _Body:
    """The chunks of a request's body, read anew on each call; pickles as the request."""

    request: Request
    chunk_bytes: int | None

    def __call__(self) -> Iterator[bytes]:
        return self.request.iter_bytes(chunk_bytes=self.chunk_bytes)


def _split(text: str, count: int) -> tuple[str, ...]:
    """Cut the canonical text at each media token, keeping the quotes around the data."""
    pieces = []
    rest = text
    for index in range(count):
        token = json.dumps(f"\x00decisions-input-media-{index}\x00")[1:-1]
        if rest.count(token) != 1:
            raise InvalidInput(
                [Problem((), "text.reserved", "a string holds the text used to place inline media")]
            )
        head, rest = rest.split(token)
        pieces.append(head)
    pieces.append(rest)
    return tuple(pieces)
