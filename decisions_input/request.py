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
from typing import IO, Any

from ._types import JSON, JSONObject
from .blocks import MediaBlock, TextBlock
from .checks import check_request
from .errors import InvalidInput, Problem, Severity, SourceError
from .limits import Limits, limits_for
from .media_checks import DeferredData
from .questions import Question

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
    warnings are kept in :attr:`warnings`.

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
        return "".join(self._iter_text())

    def _iter_text(self) -> Iterator[str]:
        yield self._pieces[0]
        for block, piece in zip(self._media, self._pieces[1:], strict=True):
            yield b"".join(block.iter_base64()).decode("ascii")
            yield piece

    def dump(self, fp: IO[bytes], *, chunk_bytes: int | None = None) -> int:
        """Write the canonical JSON as UTF-8 to a binary file object; return the byte count.

        Inline media are read again from their sources and encoded in bounded chunks
        straight into ``fp``; the bytes equal ``dumps().encode()``.
        """
        if isinstance(fp, io.TextIOBase):
            raise SourceError("expected a binary file object; open it with 'wb'")
        size = chunk_bytes or self.limits.CHUNK_BYTES
        written = fp.write(self._pieces[0].encode("utf-8")) or 0
        for block, piece in zip(self._media, self._pieces[1:], strict=True):
            for chunk in block.iter_base64(size):
                written += fp.write(chunk) or 0
            written += fp.write(piece.encode("utf-8")) or 0
        return written

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
