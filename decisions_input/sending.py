"""Say where and how a request is sent: the HTTP request value any client can send.

:meth:`Request.http <decisions_input.Request.http>` returns an :class:`HttpRequest`: the
method, the URL of the chosen endpoint, the headers (the endpoint's API key header,
``Content-Type`` and ``Content-Length``) and the body as an iterable of bytes that streams
inline media from disk. The library never sends it: no HTTP client is needed to build it
and nothing here touches the network. Endpoints and their key headers live in the limits
table (``ENDPOINTS``); a caller picks one by name, gives one of its own
(:class:`~decisions_input.limits.Endpoint`), or points a known one at another base URL.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ._pickling import reduce_fields
from .errors import InvalidInput, Problem
from .limits import Endpoint, Limits

__all__ = ["AsyncContent", "Content", "HttpRequest", "http_request"]

_BASE_URL_SCHEMES = ("https", "http")


class Content:
    """The body of an :class:`HttpRequest`: an iterable of bytes, read anew on each pass.

    Every iteration reads the media sources again, so a client may retry. ``len`` is the
    byte count; requests reads it to send ``Content-Length`` rather than chunked encoding.
    The body of a request pickles as that request, and equals another body of an equal one.

    .. versionadded:: 0.1
    """

    __slots__ = ("_chunks", "_length")

    def __init__(self, chunks: Callable[[], Iterator[bytes]], length: int) -> None:
        self._chunks = chunks
        self._length = length

    @property
    def len(self) -> int:
        """The number of bytes the iteration yields in all."""
        return self._length

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks()

    def __repr__(self) -> str:
        return f"<Content of {self._length} bytes>"

    def __eq__(self, other: object) -> bool:
        """Equal when both yield from equal sources (the same request) the same byte count."""
        if not isinstance(other, Content):
            return NotImplemented
        return (self._length, self._chunks) == (other._length, other._chunks)

    def __hash__(self) -> int:
        return hash(self._length)


class AsyncContent:
    """The same body as an async iterable, for async clients (httpx, aiohttp).

    Each chunk is read from disk in the event loop's thread: one bounded read per chunk.

    .. versionadded:: 0.1
    """

    __slots__ = ("_content",)

    def __init__(self, content: Content) -> None:
        self._content = content

    @property
    def len(self) -> int:
        """The number of bytes the iteration yields in all."""
        return self._content.len

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._content:
            yield chunk

    def __repr__(self) -> str:
        return f"<AsyncContent of {self._content.len} bytes>"


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One HTTP request, ready for any client; building it sends nothing.

    ``headers`` hold the endpoint's key header (when a key was given), ``Content-Type`` and
    ``Content-Length``; ``content`` yields exactly the bytes of ``Request.dumps()``.
    ``auth_header`` names the header that holds the key, whose value the repr hides.

    .. versionadded:: 0.1
    """

    method: str
    url: str
    headers: Mapping[str, str]
    content: Content
    auth_header: str | None = None

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle the fields; the body pickles as the request it streams."""
        return reduce_fields(self)

    @property
    def host(self) -> str:
        """The host and port of the URL, as ``http.client`` connections take them."""
        return urllib.parse.urlsplit(self.url).netloc

    @property
    def path(self) -> str:
        """The path of the URL, as ``http.client`` requests take it."""
        return urllib.parse.urlsplit(self.url).path

    @property
    def acontent(self) -> AsyncContent:
        """The body as an async iterable of bytes (httpx's ``AsyncClient``, aiohttp)."""
        return AsyncContent(self.content)

    def __repr__(self) -> str:
        shown = {
            name: "<hidden>" if name == self.auth_header else value
            for name, value in self.headers.items()
        }
        return (
            f"HttpRequest(method={self.method!r}, url={self.url!r}, headers={shown!r}, "
            f"content={self.content!r})"
        )


def http_request(
    chunks: Callable[[], Iterator[bytes]],
    length: int,
    limits: Limits,
    *,
    api_key: str | None = None,
    endpoint: str | Endpoint | None = None,
    base_url: str | None = None,
) -> HttpRequest:
    """Return the POST of a body of ``length`` bytes, yielded by ``chunks()``, to an endpoint.

    ``endpoint`` names one of ``limits.ENDPOINTS`` (default ``limits.DEFAULT_ENDPOINT``) or
    is an :class:`Endpoint` of the caller's; ``base_url`` replaces its base URL, keeping its
    key header. Without ``api_key`` no key header is set.

    Raises:
        InvalidInput: ``endpoint.unknown``, ``endpoint.base_url`` or ``endpoint.api_key``.
    """
    chosen = _endpoint(endpoint, limits)
    base = chosen.base_urls[0] if base_url is None else _checked_base_url(base_url)
    headers: dict[str, str] = {}
    if api_key is not None:
        _check_api_key(api_key)
        scheme = f"{chosen.auth_scheme} " if chosen.auth_scheme else ""
        headers[chosen.auth_header] = scheme + api_key
    headers["Content-Type"] = "application/json"
    headers["Content-Length"] = str(length)
    return HttpRequest(
        method="POST",
        url=base.rstrip("/") + limits.API_PATH,
        headers=MappingProxyType(headers),
        content=Content(chunks, length),
        auth_header=chosen.auth_header if api_key is not None else None,
    )


def _refuse(code: str, message: str) -> InvalidInput:
    return InvalidInput([Problem((), code, message)])


def _endpoint(endpoint: str | Endpoint | None, limits: Limits) -> Endpoint:
    if isinstance(endpoint, Endpoint):
        if isinstance(endpoint.base_urls, str) or not endpoint.base_urls:
            raise _refuse(
                "endpoint.base_url",
                f"expected a tuple of one or more base URLs, found {endpoint.base_urls!r}",
            )
        for url in endpoint.base_urls:
            _checked_base_url(url)
        _check_header_name(endpoint.auth_header)
        if any(c in endpoint.auth_scheme for c in " \t\r\n"):
            raise _refuse(
                "endpoint.auth_header",
                f"expected an auth scheme without white space, found {endpoint.auth_scheme!r}",
            )
        return endpoint
    name = limits.DEFAULT_ENDPOINT if endpoint is None else endpoint
    found = limits.ENDPOINTS.get(name) if isinstance(name, str) else None
    if found is None:
        known = " or ".join(map(repr, limits.ENDPOINTS))
        raise _refuse(
            "endpoint.unknown",
            f"expected endpoint {known} for the {limits.TARGET} target, or an Endpoint; "
            f"found {name!r}",
        )
    return found


def _checked_base_url(url: object) -> str:
    if not isinstance(url, str):
        raise _refuse("endpoint.base_url", f"expected a base URL string, found {url!r}")
    expected = "expected an absolute http or https URL"
    if any(ord(c) <= 0x20 or 0x7F <= ord(c) <= 0x9F or c == "\\" for c in url):
        raise _refuse("endpoint.base_url", f"{expected} without white space, found {url!r}")
    try:
        parts = urllib.parse.urlsplit(url)
        host, _port = parts.hostname, parts.port
    except ValueError as exc:
        raise _refuse("endpoint.base_url", f"{expected}; {url!r}: {exc}") from None
    if parts.scheme.lower() not in _BASE_URL_SCHEMES or not host:
        raise _refuse("endpoint.base_url", f"{expected} with a host, found {url!r}")
    if parts.username is not None or parts.password is not None:
        raise _refuse(
            "endpoint.base_url",
            "expected a base URL without a user name or password; give the key as api_key",
        )
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise _refuse("endpoint.base_url", f"{expected} without query or fragment, found {url!r}")
    return url


def _check_api_key(key: object) -> None:
    if not isinstance(key, str) or not key:
        raise _refuse("endpoint.api_key", f"expected a non-empty API key string, found {key!r}")
    if key != key.strip(" \t"):
        raise _refuse("endpoint.api_key", "expected an API key without white space at its ends")
    bad = next((c for c in key if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or ord(c) > 0xFF), None)
    if bad is not None:
        raise _refuse(
            "endpoint.api_key",
            f"expected an API key of visible Latin-1 characters, found U+{ord(bad):04X} at "
            f"offset {key.index(bad)}",
        )


def _check_header_name(name: object) -> None:
    token = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    if not isinstance(name, str) or not name or any(c not in token for c in name):
        raise _refuse("endpoint.auth_header", f"expected an HTTP header name, found {name!r}")
