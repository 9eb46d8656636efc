"""Sending: Request.iter_bytes, Request.http, and real clients posting to a local server.

Every client test posts to a server on 127.0.0.1 and compares what arrived, byte for byte,
with ``dumps()``, and the headers with the target's endpoint.
"""

from __future__ import annotations

import asyncio
import http.client
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import decisions_input as di
from tests.localserver import Received, Recorder, recording_server
from tests.strategies import built_requests

MEDIA = Path(__file__).parent.parent / "testdata" / "media"
KEY = "test-key-123"


def gemini_request(**extra: Any) -> di.Request:
    return di.Request(
        target="gemini",
        model="gemini-decision-1",
        input=[
            di.text("The customer sent this photo: "),
            di.image(MEDIA / "jpeg_baseline.jpg", resolution="low"),
            di.text(" and this recording."),
            di.audio(MEDIA / "wav_pcm16.wav"),
        ],
        questions={
            "is_billing": di.noul("Is this about a payment?"),
            "department": di.choice("Which department?", {"billing": "", "other": ""}),
        },
        **extra,
    )


def parallel_request() -> di.Request:
    return di.Request(
        target="parallel",
        state={"company": "Clay", "note": "caf\u00e9 \U0001f600"},
        questions={"has_cli": di.noul("Does Clay offer an official CLI?")},
    )


# (id, request factory, http() options, expected URL, expected key header and value)
ENDPOINTS: list[tuple[str, Callable[[], di.Request], dict[str, Any], str, tuple[str, str]]] = [
    (
        "gemini-google-default",
        gemini_request,
        {},
        "https://generativelanguage.googleapis.com/v1beta/decisions",
        ("x-goog-api-key", KEY),
    ),
    (
        "gemini-evolink",
        gemini_request,
        {"endpoint": "evolink"},
        "https://direct.evolink.ai/v1beta/decisions",
        ("Authorization", f"Bearer {KEY}"),
    ),
    (
        "gemini-evolink-fallback",
        gemini_request,
        {"endpoint": "evolink", "base_url": "https://api.evolink.ai"},
        "https://api.evolink.ai/v1beta/decisions",
        ("Authorization", f"Bearer {KEY}"),
    ),
    (
        "gemini-gateway-path",
        gemini_request,
        {"base_url": "https://gateway.example/gemini/"},
        "https://gateway.example/gemini/v1beta/decisions",
        ("x-goog-api-key", KEY),
    ),
    (
        "gemini-own-endpoint",
        gemini_request,
        {"endpoint": di.Endpoint("mine", ("https://gw.example",), "X-Token", "Key")},
        "https://gw.example/v1beta/decisions",
        ("X-Token", f"Key {KEY}"),
    ),
    (
        "parallel-default",
        parallel_request,
        {},
        "https://api.parallel.ai/v1/decisions",
        ("x-api-key", KEY),
    ),
]


@pytest.mark.parametrize(
    ("make", "options", "url", "auth"), [c[1:] for c in ENDPOINTS], ids=[c[0] for c in ENDPOINTS]
)
def test_endpoint_url_and_headers(
    make: Callable[[], di.Request], options: dict[str, Any], url: str, auth: tuple[str, str]
) -> None:
    req = make()
    call = req.http(api_key=KEY, **options)
    assert (call.method, call.url) == ("POST", url)
    assert dict(call.headers) == {
        auth[0]: auth[1],
        "Content-Type": "application/json",
        "Content-Length": str(len(req.dumps().encode())),
    }
    assert b"".join(call.content) == req.dumps().encode()
    assert call.content.len == len(req.dumps().encode())


def test_without_a_key_no_auth_header_is_set() -> None:
    call = parallel_request().http()
    assert sorted(call.headers) == ["Content-Length", "Content-Type"]
    assert call.auth_header is None


def test_repr_hides_the_key() -> None:
    call = gemini_request().http(api_key=KEY)
    assert KEY not in repr(call)
    assert "'x-goog-api-key': '<hidden>'" in repr(call)


def test_the_value_is_immutable() -> None:
    call = parallel_request().http(api_key=KEY)
    with pytest.raises(AttributeError):
        call.url = "https://elsewhere.example"  # type: ignore[misc]
    with pytest.raises(TypeError):
        call.headers["x-api-key"] = "other"  # type: ignore[index]


# (id, request factory, http() options, expected code)
REFUSED: list[tuple[str, Callable[[], di.Request], dict[str, Any], str]] = [
    ("unknown-endpoint", gemini_request, {"endpoint": "openai"}, "endpoint.unknown"),
    ("other-targets-endpoint", parallel_request, {"endpoint": "google"}, "endpoint.unknown"),
    ("base-url-ftp", gemini_request, {"base_url": "ftp://x.example"}, "endpoint.base_url"),
    ("base-url-relative", gemini_request, {"base_url": "/v1beta"}, "endpoint.base_url"),
    ("base-url-no-host", gemini_request, {"base_url": "https://"}, "endpoint.base_url"),
    ("base-url-query", gemini_request, {"base_url": "https://x.example?a=1"}, "endpoint.base_url"),
    (
        "base-url-empty-query",
        gemini_request,
        {"base_url": "https://x.example?"},
        "endpoint.base_url",
    ),
    ("base-url-fragment", gemini_request, {"base_url": "https://x.example#a"}, "endpoint.base_url"),
    ("base-url-user", gemini_request, {"base_url": "https://u:p@x.example"}, "endpoint.base_url"),
    ("base-url-space", gemini_request, {"base_url": "https://x.example/a b"}, "endpoint.base_url"),
    ("base-url-port", gemini_request, {"base_url": "https://x.example:99999"}, "endpoint.base_url"),
    ("base-url-bytes", gemini_request, {"base_url": b"https://x.example"}, "endpoint.base_url"),
    ("key-empty", gemini_request, {"api_key": ""}, "endpoint.api_key"),
    ("key-newline", gemini_request, {"api_key": "k\r\nX-Evil: 1"}, "endpoint.api_key"),
    ("key-trailing-space", gemini_request, {"api_key": "k "}, "endpoint.api_key"),
    ("key-not-latin1", gemini_request, {"api_key": "k\u2019"}, "endpoint.api_key"),
    ("key-c1-control", gemini_request, {"api_key": "k\x85"}, "endpoint.api_key"),
    ("key-not-string", gemini_request, {"api_key": 123}, "endpoint.api_key"),
    (
        "own-endpoint-bad-header",
        gemini_request,
        {"endpoint": di.Endpoint("x", ("https://x.example",), "X Key")},
        "endpoint.auth_header",
    ),
    (
        "own-endpoint-scheme-space",
        gemini_request,
        {"endpoint": di.Endpoint("x", ("https://x.example",), "Authorization", "Be arer")},
        "endpoint.auth_header",
    ),
    (
        "own-endpoint-url-not-a-tuple",
        gemini_request,
        {"endpoint": di.Endpoint("x", "https://x.example", "X-Key")},  # type: ignore[arg-type]
        "endpoint.base_url",
    ),
    (
        "own-endpoint-no-url",
        gemini_request,
        {"endpoint": di.Endpoint("x", (), "X-Key")},
        "endpoint.base_url",
    ),
]


@pytest.mark.parametrize(
    ("make", "options", "code"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_bad_arguments_are_refused(
    make: Callable[[], di.Request], options: dict[str, Any], code: str
) -> None:
    req = make()
    with pytest.raises(di.InvalidInput) as info:
        req.http(**{"api_key": KEY, **options})
    assert info.value.codes == (code,)
    assert code in di.RULES


@pytest.mark.parametrize("chunk_bytes", [0, 4, -3, 3.0, True])
def test_bad_chunk_size_is_refused_at_once(chunk_bytes: Any) -> None:
    req = gemini_request()
    with pytest.raises(ValueError, match="multiple of 3"):
        req.iter_bytes(chunk_bytes=chunk_bytes)
    with pytest.raises(ValueError, match="multiple of 3"):
        req.http(chunk_bytes=chunk_bytes)


# --- iter_bytes ----------------------------------------------------------------------------


@pytest.mark.parametrize("chunk_bytes", [3, 48, 3 * 64 * 1024])
def test_iter_bytes_is_dumps_in_bounded_chunks(chunk_bytes: int) -> None:
    req = gemini_request()
    chunks = list(req.iter_bytes(chunk_bytes=chunk_bytes))
    assert b"".join(chunks) == req.dumps().encode("utf-8")
    assert all(0 < len(c) <= chunk_bytes // 3 * 4 for c in chunks)
    out = io.BytesIO()
    assert req.dump(out, chunk_bytes=chunk_bytes) == len(out.getvalue())
    assert out.getvalue() == b"".join(chunks)


def test_content_reads_the_sources_again_on_each_pass(tmp_path: Path) -> None:
    photo = tmp_path / "photo.jpg"
    shutil.copyfile(MEDIA / "jpeg_baseline.jpg", photo)
    req = di.Request(
        model="gemini-decision-1", input=[di.image(photo)], questions={"q": di.noul("Is it?")}
    )
    call = req.http()
    assert b"".join(call.content) == b"".join(call.content) == req.dumps().encode()
    with photo.open("ab") as grow:
        grow.write(b"\0")
    with pytest.raises(di.SourceError, match="changed"):
        b"".join(call.content)


def test_async_content_yields_the_same_bytes() -> None:
    req = gemini_request()

    async def collect() -> bytes:
        return b"".join([chunk async for chunk in req.http().acontent])

    assert asyncio.run(collect()) == req.dumps().encode()
    assert req.http().acontent.len == req.content_length


@settings(max_examples=60, deadline=None)
@given(req=built_requests(), chunk_bytes=st.integers(1, 40).map(lambda n: 3 * n))
def test_iter_bytes_joins_to_dumps(req: di.Request, chunk_bytes: int) -> None:
    chunks = list(req.iter_bytes(chunk_bytes=chunk_bytes))
    text = req.dumps()
    assert b"".join(chunks) == text.encode("utf-8")
    assert all(0 < len(c) <= chunk_bytes // 3 * 4 for c in chunks)
    assert req.content_length == len(text.encode("utf-8"))
    assert di.canonical_dumps(json.loads(text)) == text


# --- real clients against a local server ---------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Any:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    with recording_server() as recorder:
        yield recorder


TARGETS = [
    ("gemini", gemini_request, ("x-goog-api-key", KEY)),
    ("parallel", parallel_request, ("x-api-key", KEY)),
]


def assert_received(got: Received, req: di.Request, auth: tuple[str, str]) -> None:
    body = req.dumps().encode("utf-8")
    assert (got.method, got.path) == ("POST", req.limits.API_PATH)
    assert got.body == body
    assert got.header(auth[0]) == [auth[1]]
    assert got.header("Content-Type") == ["application/json"]
    assert got.header("Content-Length") == [str(len(body))]
    assert got.header("Transfer-Encoding") == []


def send_http_client(call: di.HttpRequest) -> int:
    conn = http.client.HTTPConnection(call.host, timeout=10)
    try:
        conn.request(call.method, call.path, body=call.content, headers=dict(call.headers))
        return conn.getresponse().status
    finally:
        conn.close()


def send_httpx(call: di.HttpRequest) -> int:
    import httpx

    return httpx.post(call.url, headers=call.headers, content=call.content, timeout=10).status_code


def send_httpx_async(call: di.HttpRequest) -> int:
    import httpx

    async def post() -> int:
        async with httpx.AsyncClient(timeout=10) as client:
            reply = await client.post(call.url, headers=call.headers, content=call.acontent)
            return reply.status_code

    return asyncio.run(post())


def send_requests(call: di.HttpRequest) -> int:
    import requests

    return requests.post(call.url, headers=call.headers, data=call.content, timeout=10).status_code


def send_urllib3(call: di.HttpRequest) -> int:
    import urllib3

    return urllib3.request(call.method, call.url, headers=call.headers, body=call.content).status


def send_aiohttp(call: di.HttpRequest) -> int:
    import aiohttp

    async def post() -> int:
        async with (
            aiohttp.ClientSession() as session,
            session.post(call.url, headers=call.headers, data=call.acontent) as reply,
        ):
            await reply.read()
            return reply.status

    return asyncio.run(post())


CLIENTS = [
    ("http.client", send_http_client),
    ("httpx", send_httpx),
    ("httpx-async", send_httpx_async),
    ("requests", send_requests),
    ("urllib3", send_urllib3),
    ("aiohttp", send_aiohttp),
]


@pytest.mark.parametrize(("make", "auth"), [t[1:] for t in TARGETS], ids=[t[0] for t in TARGETS])
@pytest.mark.parametrize("send", [c[1] for c in CLIENTS], ids=[c[0] for c in CLIENTS])
def test_clients_send_exactly_dumps(
    server: Recorder,
    send: Callable[[di.HttpRequest], int],
    make: Callable[[], di.Request],
    auth: tuple[str, str],
) -> None:
    req = make()
    call = req.http(api_key=KEY, base_url=server.base_url, chunk_bytes=3 * 1024)
    assert send(call) == 200
    [got] = server.received
    assert_received(got, req, auth)


def test_proxy_auth_on_the_wire(server: Recorder) -> None:
    req = gemini_request()
    call = req.http(api_key=KEY, endpoint="evolink", base_url=server.base_url)
    assert send_http_client(call) == 200
    assert_received(server.received[0], req, ("Authorization", f"Bearer {KEY}"))
    assert server.received[0].header("x-goog-api-key") == []
