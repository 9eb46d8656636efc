"""Tests for decisions_input.sources: opening sources, base64, URI rules, the remote check.

The remote check runs only against a local https server started here on 127.0.0.1 with a
throw-away CA from ``trustme``; a guard refuses every connection to any other address.
"""

from __future__ import annotations

import array
import base64
import binascii
import http.server
import io
import os
import pathlib
import re
import socket
import ssl
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from decisions_input import sources
from decisions_input.errors import Problem, Severity, SourceError
from decisions_input.limits import GEMINI, RULES
from decisions_input.sources import (
    Opened,
    RemoteError,
    SourceTooLarge,
    base64_decoded_length,
    check_base64,
    fetch_head,
    iter_remote_problems,
    iter_uri_problems,
    open_source,
    redact_uri,
)

trustme = pytest.importorskip("trustme")

# --- tables ---------------------------------------------------------------------------------

PAYLOAD = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4 + b"tail"

# id -> factory(tmp_path) returning (source, expected content); factories that open files
# register them for closing through the `closing` list they receive.
SourceFactory = Callable[[pathlib.Path, list[Any]], tuple[Any, bytes]]


def _write(tmp_path: pathlib.Path, data: bytes = PAYLOAD) -> pathlib.Path:
    p = tmp_path / "payload.bin"
    p.write_bytes(data)
    return p


def _file_at(tmp_path: pathlib.Path, closing: list[Any], offset: int) -> tuple[Any, bytes]:
    f = open(_write(tmp_path), "rb")  # noqa: SIM115 - closed by the test
    closing.append(f)
    f.seek(offset)
    return f, PAYLOAD[offset:]


def _pipe(tmp_path: pathlib.Path, closing: list[Any]) -> tuple[Any, bytes]:
    r, w = os.pipe()
    reader = os.fdopen(r, "rb")
    closing.append(reader)

    def feed() -> None:
        with os.fdopen(w, "wb") as writer:
            writer.write(PAYLOAD)

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    closing.append(t)
    return reader, PAYLOAD


class Unseekable(io.RawIOBase):
    """A stream without fileno() that cannot seek, handing out short reads."""

    def __init__(self, data: bytes, step: int = 7) -> None:
        self._data = data
        self._pos = 0
        self._step = step

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._data[self._pos : self._pos + min(len(buffer), self._step)]
        memoryview(buffer)[: len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)


_WORDS = array.array("I", [1, 2, 3, 4])

SOURCE_CASES: dict[str, SourceFactory] = {
    "bytes": lambda tmp, c: (PAYLOAD, PAYLOAD),
    "bytearray": lambda tmp, c: (bytearray(PAYLOAD), PAYLOAD),
    "memoryview": lambda tmp, c: (memoryview(PAYLOAD), PAYLOAD),
    "memoryview-slice": lambda tmp, c: (memoryview(PAYLOAD)[10:50], PAYLOAD[10:50]),
    "memoryview-uint32-array": lambda tmp, c: (memoryview(_WORDS), _WORDS.tobytes()),
    "memoryview-non-contiguous": lambda tmp, c: (memoryview(PAYLOAD)[::2], PAYLOAD[::2]),
    "empty-bytes": lambda tmp, c: (b"", b""),
    "bytes-that-look-like-a-path": lambda tmp, c: (b"/etc/passwd", b"/etc/passwd"),
    "str-path": lambda tmp, c: (str(_write(tmp)), PAYLOAD),
    "pathlib-path": lambda tmp, c: (_write(tmp), PAYLOAD),
    "empty-file": lambda tmp, c: (_write(tmp, b""), b""),
    "binary-file": lambda tmp, c: _file_at(tmp, c, 0),
    "binary-file-at-offset": lambda tmp, c: _file_at(tmp, c, 100),
    "bytesio": lambda tmp, c: (io.BytesIO(PAYLOAD), PAYLOAD),
    "pipe": _pipe,
    "unseekable-short-reads": lambda tmp, c: (Unseekable(PAYLOAD), PAYLOAD),
}

# id -> (factory(tmp_path) -> path, words the message must contain)
REFUSED_PATH_CASES: dict[str, tuple[Callable[[pathlib.Path], Any], tuple[str, ...]]] = {
    "directory": (lambda tmp: tmp, ("directory",)),
    "missing": (lambda tmp: tmp / "nope.png", ("does not exist",)),
    "parent-is-a-file": (lambda tmp: _write(tmp) / "x.png", ("not a directory",)),
    "dangling-symlink": (
        lambda tmp: _symlink(tmp / "link.png", tmp / "gone.png"),
        ("does not exist",),
    ),
    "fifo": (lambda tmp: _fifo(tmp / "fifo"), ("FIFO",)),
    "dev-zero": (lambda tmp: "/dev/zero", ("character device",)),
    "dev-null": (lambda tmp: "/dev/null", ("character device",)),
    "unix-socket": (lambda tmp: _unix_socket(tmp), ("socket",)),
    "nul-in-path": (lambda tmp: str(tmp / "a\0b"), ("null",)),
}

PATH = ("input", 2, "uri")
E, W = Severity.ERROR, Severity.WARNING

# id -> (uri, declared mime_type, expected [(code, severity)])
URI_CASES: dict[str, tuple[str, str | None, list[tuple[str, Severity]]]] = {
    # fine
    "plain-https": ("https://example.com/cat.png", "image/png", []),
    "signed-gcs-https": (
        "https://storage.googleapis.com/b/cat.jpg?X-Goog-Signature=ab12&X-Goog-Expires=60",
        "image/jpeg",
        [],
    ),
    "port": ("https://example.com:8443/a.pdf", "application/pdf", []),
    "upper-case-host": ("https://EXAMPLE.com/a.png", "image/png", []),
    "idn-host": ("https://bücher.example/a.png", "image/png", []),
    "no-extension": ("https://example.com/media/123", "image/png", []),
    "public-ipv4": ("https://8.8.8.8/a.png", "image/png", []),
    "public-ipv6": ("https://[2001:4860:4860::8888]/a.png", "image/png", []),
    "not-youtube-prefix": ("https://notyoutube.com/v.mp4", "video/mp4", []),
    # Any "youtube" label before the last one is taken as YouTube: the conservative reading.
    "youtube-label-elsewhere": (
        "https://youtube.com.evil.example/v.mp4",
        "video/mp4",
        [("uri.youtube", E)],
    ),
    "youtube-country": ("https://www.youtube.co.uk/watch?v=1", "video/mp4", [("uri.youtube", E)]),
    "youtube-de": ("https://youtube.de/watch?v=1", "video/mp4", [("uri.youtube", E)]),
    "yt-be": ("https://yt.be/abc", "video/mp4", [("uri.youtube", E)]),
    "youtube-api-host": ("https://youtube.googleapis.com/v/x", "video/mp4", [("uri.youtube", E)]),
    "not-youtube-word": ("https://myyoutube.example/v.mp4", "video/mp4", []),
    "internal-name": (
        "https://metadata.google.internal/a.png",
        "image/png",
        [("uri.unreachable_host", E)],
    ),
    "mdns-name": ("https://printer.local/a.png", "image/png", [("uri.unreachable_host", E)]),
    "single-label": ("https://intranet/a.png", "image/png", [("uri.unreachable_host", E)]),
    "home-arpa": ("https://nas.home.arpa/a.png", "image/png", [("uri.unreachable_host", E)]),
    "port-zero": ("https://example.com:0/a.png", "image/png", [("uri.syntax", E)]),
    "bad-punycode": ("https://xn--a.com/a.png", "image/png", [("uri.syntax", E)]),
    "good-punycode": ("https://xn--bcher-kva.de/a.png", "image/png", []),
    "empty-label": ("https://a..b.com/a.png", "image/png", [("uri.syntax", E)]),
    "long-host": ("https://" + "a" * 250 + ".com/a.png", "image/png", [("uri.syntax", E)]),
    "files-path-elsewhere": ("https://example.com/files/a.png", "image/png", []),
    # scheme
    "http": ("http://example.com/a.png", "image/png", [("uri.scheme", E)]),
    "ftp": ("ftp://example.com/a.png", "image/png", [("uri.scheme", E)]),
    "file": ("file:///etc/passwd", None, [("uri.scheme", E)]),
    "data-uri": ("data:image/png;base64,iVBORw0KGgo=", "image/png", [("uri.scheme", E)]),
    "no-scheme": ("example.com/a.png", "image/png", [("uri.scheme", E)]),
    "scheme-relative": ("//example.com/a.png", "image/png", [("uri.scheme", E)]),
    "upper-case-scheme": ("HTTPS://example.com/a.png", "image/png", [("uri.scheme_case", W)]),
    "mixed-case-scheme": ("Https://example.com/a.png", "image/png", [("uri.scheme_case", W)]),
    # Cloud Storage and Files API
    "gcs": ("gs://bucket/cat.png", "image/png", [("uri.gcs", E)]),
    "gcs-upper": ("GS://bucket/cat.png", "image/png", [("uri.gcs", E)]),
    "files-name": ("files/abc123", None, [("uri.files_api", E)]),
    "files-name-dashes": ("files/abc-123-xyz", "image/png", [("uri.files_api", E)]),
    "files-api-url": (
        "https://generativelanguage.googleapis.com/v1beta/files/abc123",
        None,
        [("uri.files_api", E)],
    ),
    "files-api-download": (
        "https://generativelanguage.googleapis.com/download/v1beta/files/abc:download?alt=media",
        None,
        [("uri.files_api", E)],
    ),
    # YouTube, every host form
    "youtube": ("https://youtube.com/watch?v=x", None, [("uri.youtube", E)]),
    "youtube-www": ("https://www.youtube.com/watch?v=x", None, [("uri.youtube", E)]),
    "youtube-m": ("https://m.youtube.com/watch?v=x", None, [("uri.youtube", E)]),
    "youtube-music": ("https://music.youtube.com/watch?v=x", None, [("uri.youtube", E)]),
    "youtube-other-subdomain": ("https://gaming.youtube.com/v", None, [("uri.youtube", E)]),
    "youtube-deep-subdomain": ("https://a.b.youtube.com/v", None, [("uri.youtube", E)]),
    "youtu-be": ("https://youtu.be/dQw4w9WgXcQ", None, [("uri.youtube", E)]),
    "youtube-nocookie": ("https://youtube-nocookie.com/embed/x", None, [("uri.youtube", E)]),
    "youtube-nocookie-www": (
        "https://www.youtube-nocookie.com/embed/x",
        None,
        [("uri.youtube", E)],
    ),
    "youtube-upper-case": ("https://WWW.YOUTUBE.COM/watch?v=x", None, [("uri.youtube", E)]),
    "youtube-trailing-dot": ("https://www.youtube.com./watch?v=x", None, [("uri.youtube", E)]),
    "youtube-port": ("https://youtube.com:443/watch?v=x", None, [("uri.youtube", E)]),
    "youtu-be-port-upper-dot": ("https://YOUTU.BE.:8443/x", None, [("uri.youtube", E)]),
    "youtube-upper-scheme": (
        "HTTPS://youtube.com/watch",
        None,
        [("uri.scheme_case", W), ("uri.youtube", E)],
    ),
    # credentials
    "user-and-password": (
        "https://user:pw@example.com/a.png",
        "image/png",
        [("uri.credentials", E)],
    ),
    "user-only": ("https://user@example.com/a.png", "image/png", [("uri.credentials", E)]),
    "password-only": ("https://:pw@example.com/a.png", "image/png", [("uri.credentials", E)]),
    "credentials-and-youtube": (
        "https://u:p@youtube.com/watch",
        None,
        [("uri.credentials", E), ("uri.youtube", E)],
    ),
    # hosts the service cannot reach
    "localhost": ("https://localhost/a.png", "image/png", [("uri.unreachable_host", E)]),
    "localhost-upper-port": ("https://LOCALHOST:8443/a", None, [("uri.unreachable_host", E)]),
    "localhost-trailing-dot": ("https://localhost./a", None, [("uri.unreachable_host", E)]),
    "sub-localhost": ("https://api.localhost/a", None, [("uri.unreachable_host", E)]),
    "localhost-percent-encoded": ("https://%6c%6fcalhost/a", None, [("uri.unreachable_host", E)]),
    "localhost-fullwidth": ("https://ｌｏｃａｌｈｏｓｔ/a", None, [("uri.unreachable_host", E)]),
    "loopback": ("https://127.0.0.1/a", None, [("uri.unreachable_host", E)]),
    "loopback-short": ("https://127.1/a", None, [("uri.unreachable_host", E)]),
    "loopback-decimal": ("https://2130706433/a", None, [("uri.unreachable_host", E)]),
    "loopback-hex-parts": ("https://0x7f.1/a", None, [("uri.unreachable_host", E)]),
    "loopback-hex": ("https://0x7f000001/a", None, [("uri.unreachable_host", E)]),
    "loopback-octal": ("https://0177.0.0.1/a", None, [("uri.unreachable_host", E)]),
    "private-10": ("https://10.1.2.3/a", None, [("uri.unreachable_host", E)]),
    "private-172": ("https://172.16.5.4/a", None, [("uri.unreachable_host", E)]),
    "private-192": ("https://192.168.1.1/a", None, [("uri.unreachable_host", E)]),
    "link-local-metadata": ("https://169.254.169.254/latest", None, [("uri.unreachable_host", E)]),
    "shared-cgnat": ("https://100.64.0.1/a", None, [("uri.unreachable_host", E)]),
    "unspecified": ("https://0.0.0.0/a", None, [("uri.unreachable_host", E)]),
    "unspecified-zero": ("https://0/a", None, [("uri.unreachable_host", E)]),
    "multicast": ("https://224.0.0.1/a", None, [("uri.unreachable_host", E)]),
    "reserved": ("https://240.0.0.1/a", None, [("uri.unreachable_host", E)]),
    "broadcast": ("https://255.255.255.255/a", None, [("uri.unreachable_host", E)]),
    "documentation": ("https://192.0.2.10/a", None, [("uri.unreachable_host", E)]),
    "ipv6-loopback": ("https://[::1]/a", None, [("uri.unreachable_host", E)]),
    "ipv6-loopback-port": ("https://[::1]:8443/a", None, [("uri.unreachable_host", E)]),
    "ipv6-unspecified": ("https://[::]/a", None, [("uri.unreachable_host", E)]),
    "ipv6-link-local": ("https://[fe80::1]/a", None, [("uri.unreachable_host", E)]),
    "ipv6-link-local-zone": ("https://[fe80::1%25eth0]/a", None, [("uri.unreachable_host", E)]),
    "ipv6-unique-local": ("https://[fd12:3456::1]/a", None, [("uri.unreachable_host", E)]),
    "ipv6-multicast": ("https://[ff02::1]/a", None, [("uri.unreachable_host", E)]),
    "ipv4-mapped-loopback": ("https://[::ffff:127.0.0.1]/a", None, [("uri.unreachable_host", E)]),
    "ipv4-mapped-hex": ("https://[::ffff:7f00:1]/a", None, [("uri.unreachable_host", E)]),
    "ipv4-mapped-private": ("https://[::ffff:10.0.0.1]/a", None, [("uri.unreachable_host", E)]),
    "nat64-private": ("https://[64:ff9b::a00:1]/a", None, [("uri.unreachable_host", E)]),
    "6to4-loopback": ("https://[2002:7f00:1::]/a", None, [("uri.unreachable_host", E)]),
    "ipv4-mapped-public": ("https://[::ffff:8.8.8.8]/a", None, []),
    # syntax
    "empty": ("", None, [("uri.syntax", E)]),
    "space": ("https://example.com/a b.png", None, [("uri.syntax", E)]),
    "leading-space": (" https://example.com/a.png", None, [("uri.syntax", E)]),
    "newline": ("https://example.com/a.png\n", None, [("uri.syntax", E)]),
    "tab-in-host": ("https://exa\tmple.com/", None, [("uri.syntax", E)]),
    "nul": ("https://example.com/\x00", None, [("uri.syntax", E)]),
    "zero-width-space": ("https://exam\u200bple.com/", None, [("uri.syntax", E)]),
    "backslash": ("https://example.com\\@evil.example/", None, [("uri.syntax", E)]),
    "no-host": ("https:///a.png", None, [("uri.syntax", E)]),
    "scheme-only": ("https://", None, [("uri.syntax", E)]),
    "opaque": ("https:a.png", None, [("uri.syntax", E)]),
    "unbalanced-bracket": ("https://[::1/a", None, [("uri.syntax", E)]),
    "port-out-of-range": ("https://example.com:99999/a", None, [("uri.syntax", E)]),
    "port-not-a-number": ("https://example.com:abc/a", None, [("uri.syntax", E)]),
    "five-part-ipv4": ("https://1.2.3.4.5/a", None, [("uri.syntax", E)]),
    "octet-too-big": ("https://256.1.1.1/a", None, [("uri.syntax", E)]),
    "bad-octal": ("https://09.1.1.1/a", None, [("uri.syntax", E)]),
    # extension versus declared type
    "png-declared-jpeg": ("https://example.com/a.png", "image/jpeg", [("uri.extension", W)]),
    "pdf-declared-png": ("https://example.com/doc.pdf", "image/png", [("uri.extension", W)]),
    "upper-case-extension": ("https://example.com/A.PNG", "image/png", []),
    "mp3-declared-mpeg": ("https://example.com/a.mp3", "audio/mpeg", []),
    "webm-declared-audio": ("https://example.com/a.webm", "audio/webm", []),
    "heic-declared-heif": ("https://example.com/a.heic", "image/heif", []),
    "unknown-extension": ("https://example.com/a.xyz", "image/png", []),
    "extension-in-query-ignored": ("https://example.com/a.png?as=.jpg", "image/png", []),
    "mime-with-parameters": (
        "https://example.com/a.png",
        "image/jpeg; q=1",
        [("uri.extension", W)],
    ),
    "encoded-extension": ("https://example.com/a%2Epng", "image/jpeg", [("uri.extension", W)]),
    "no-declared-type": ("https://example.com/a.png", None, []),
    "declared-type-unknown-to-api": ("https://example.com/a.png", "image/jpg", []),
}

SECRET = "Zq9sEcReT"
USER = "AlIcEuSeR"

# URLs carrying USER and/or SECRET in places that look like user info.
CREDENTIAL_URIS: dict[str, str] = {
    "user-password": f"https://{USER}:{SECRET}@example.com/a.png",
    "user-only": f"https://{USER}@example.com/a.png",
    "password-only": f"https://:{SECRET}@example.com/a.png",
    "upper-scheme": f"HTTPS://{USER}:{SECRET}@example.com/a.png",
    "youtube": f"https://{USER}:{SECRET}@www.youtube.com/watch?v=1",
    "localhost": f"https://{USER}:{SECRET}@localhost:8443/a",
    "private-ip": f"https://{USER}:{SECRET}@10.0.0.1/a",
    "with-port": f"https://{USER}:{SECRET}@example.com:8443/a.png",
    "percent-encoded": f"https://{USER}%40corp:{SECRET}%3A1@example.com/a.png",
    "at-in-password": f"https://{USER}:{SECRET}@x@example.com/a.png",
    "slash-in-password": f"https://{USER}:ab/{SECRET}@example.com/a.png",
    "http": f"http://{USER}:{SECRET}@example.com/a.png",
    "gcs": f"gs://{USER}:{SECRET}@bucket/a.png",
    "files-api": f"https://{USER}:{SECRET}@generativelanguage.googleapis.com/v1beta/files/x",
    "broken-ipv6": f"https://{USER}:{SECRET}@[::1/a",
    "bad-port": f"https://{USER}:{SECRET}@example.com:x/a",
    "extension-mismatch": f"https://{USER}:{SECRET}@example.com/a.png",
    "space": f"https://{USER}:{SECRET}@example.com/a b.png",
    "signature-in-query": f"https://example.com/a.png?X-Goog-Signature={SECRET}&u={USER}",
    "secret-in-fragment": f"https://example.com/a.png#{SECRET}",
}

BASE64_VALID = ["", "QQ==", "QUI=", "QUJD", "QUJDRA==", "+/+/", base64.b64encode(PAYLOAD).decode()]

# id -> (text, offset the message must name)
BASE64_INVALID: dict[str, tuple[str, int]] = {
    "line-break": ("QUJD\nREVG", 4),
    "crlf": ("QUJDREVG\r\nQUJD", 8),
    "mime-76-column-wrap": (base64.encodebytes(PAYLOAD).decode(), 76),
    "space": ("QUJD REVG", 4),
    "tab": ("\tQUJD", 0),
    "url-safe-dash": ("QU-D", 2),
    "url-safe-underscore": ("QUJ_", 3),
    "padding-in-middle": ("QQ==QUJD", 2),
    "three-padding": ("Q===", 1),
    "only-padding": ("====", 0),
    "missing-padding": ("QQ", 2),
    "short-padding": ("QQ=", 3),
    "one-char": ("Q", 1),
    "non-ascii": ("QUJDé===", 4),
    "data-uri-prefix": ("data:image/png;base64,QUJD", 4),
    "trailing-newline": ("QUJD\n", 4),
}

# --- helpers --------------------------------------------------------------------------------


def run_bounded(fn: Callable[[], Any], seconds: float = 5.0) -> Any:
    """Run ``fn`` in a daemon thread; fail if it has not finished within ``seconds``."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"the call blocked for more than {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _symlink(link: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    link.symlink_to(target)
    return link


def _fifo(p: pathlib.Path) -> pathlib.Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    os.mkfifo(p)
    return p


def _unix_socket(tmp: pathlib.Path) -> pathlib.Path:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no unix sockets on this platform")
    p = tmp / "s"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(p))
    except OSError as exc:
        pytest.skip(f"cannot bind a unix socket here: {exc}")
    finally:
        s.close()
    return p


def _close_all(things: list[Any]) -> None:
    for thing in things:
        if isinstance(thing, threading.Thread):
            thing.join(5)
        else:
            thing.close()


def _codes(problems: list[Problem]) -> list[tuple[str, Severity]]:
    return [(p.code, p.severity) for p in problems]


def _messages(uri: str) -> list[str]:
    return [p.message for p in iter_uri_problems(uri, PATH, mime_type="image/jpeg", limits=GEMINI)]


class Counting(io.RawIOBase):
    """A seekable wrapper that counts reads and has no fileno()."""

    def __init__(self, raw: io.BufferedReader) -> None:
        self.raw = raw
        self.reads = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self.reads += 1
        return self.raw.readinto(buffer)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()


class Endless(io.RawIOBase):
    """A non-seekable stream of zero bytes that never ends; counts what was taken."""

    def __init__(self) -> None:
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = len(buffer)
        memoryview(buffer)[:] = bytes(n)
        self.consumed += n
        return n


# --- opening sources ------------------------------------------------------------------------


@pytest.mark.parametrize("factory", SOURCE_CASES.values(), ids=SOURCE_CASES.keys())
def test_every_source_kind_reads_whole_content(
    factory: SourceFactory, tmp_path: pathlib.Path
) -> None:
    closing: list[Any] = []
    src, expected = factory(tmp_path, closing)
    try:
        with open_source(src) as opened:
            assert opened.size == len(expected)
            assert opened.stream.tell() == 0
            assert opened.head(16) == expected[:16]
            assert opened.head(10**9) == expected
            assert b"".join(opened.iter_chunks(9)) == expected
            joined = b"".join(opened.iter_base64(3 * 7))
            assert joined == base64.b64encode(expected)
            assert len(joined) == opened.base64_length
            assert opened.stream.read() == expected
    finally:
        _close_all(closing)


def test_path_name_and_closing(tmp_path: pathlib.Path) -> None:
    p = _write(tmp_path)
    with open_source(p) as opened:
        assert opened.name == str(p)
        stream = opened.stream
    assert stream.closed and opened.closed


def test_head_restores_position() -> None:
    with open_source(PAYLOAD) as opened:
        opened.stream.seek(5)
        assert opened.head(3) == PAYLOAD[:3]
        assert opened.stream.tell() == 5
        list(opened.iter_chunks(3))
        assert opened.stream.tell() == 5


def test_caller_file_stays_open_at_its_position(tmp_path: pathlib.Path) -> None:
    with open(_write(tmp_path), "rb") as f:
        f.seek(3)
        with open_source(f, max_bytes=len(PAYLOAD)) as opened:
            assert opened.name == f.name
            assert opened.size == len(PAYLOAD) - 3
            assert opened.stream.read(4) == PAYLOAD[3:7]
        assert not f.closed
        assert f.tell() == 3


def test_bytes_are_not_copied() -> None:
    buf = bytearray(b"abcdef")
    with open_source(buf) as opened:
        buf[0:3] = b"XYZ"  # the stream is a view: it sees the change
        assert opened.stream.read() == b"XYZdef"
        with pytest.raises(BufferError):
            buf.extend(b"!")  # exported while open
    buf.extend(b"!")  # released on close


def test_file_that_shrinks_while_read_is_an_error(tmp_path: pathlib.Path) -> None:
    p = _write(tmp_path)
    with open_source(p) as opened:
        os.truncate(p, 100)
        with pytest.raises(SourceError, match=r"changed while being read"):
            list(opened.iter_chunks(30))


def test_file_that_grows_is_read_up_to_its_opening_size(tmp_path: pathlib.Path) -> None:
    p = _write(tmp_path)
    with open_source(p) as opened:
        with open(p, "ab") as f:
            f.write(b"more")
        assert b"".join(opened.iter_chunks(30)) == PAYLOAD


@pytest.mark.parametrize("chunk", [0, -3, 4, 10])
def test_chunk_size_must_be_positive_multiple_of_3(chunk: int) -> None:
    with open_source(b"abc") as opened, pytest.raises(ValueError, match="multiple of 3"):
        opened.iter_chunks(chunk)


def test_argument_mistakes() -> None:
    with pytest.raises(TypeError):
        open_source(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        open_source(b"x", max_bytes=-1)


# --- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("factory", "words"), REFUSED_PATH_CASES.values(), ids=REFUSED_PATH_CASES.keys()
)
def test_only_regular_files_are_opened(
    factory: Callable[[pathlib.Path], Any], words: tuple[str, ...], tmp_path: pathlib.Path
) -> None:
    target = factory(tmp_path)
    if not os.path.exists(str(target).split("\0")[0]) and str(target).startswith("/dev/"):
        pytest.skip(f"{target} is absent here")
    with pytest.raises(SourceError) as info:
        run_bounded(lambda: open_source(target), seconds=3.0)
    message = str(info.value)
    assert repr(str(target)) in message or str(target) in message
    for word in words:
        assert word in message


def test_fifo_swapped_in_after_stat_does_not_block(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular = os.stat(_write(tmp_path))
    fifo = _fifo(tmp_path / "late-fifo")
    monkeypatch.setattr(sources, "_stat_path", lambda name: regular)
    with pytest.raises(SourceError, match="FIFO"):
        run_bounded(lambda: open_source(fifo), seconds=3.0)


def test_permission_denied_names_the_path(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _write(tmp_path)
    real_open = os.open

    def deny(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(SourceError, match="permission denied") as info:
        open_source(p)
    assert str(p) in str(info.value)
    assert isinstance(info.value.__cause__, PermissionError)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_for_real(tmp_path: pathlib.Path) -> None:
    p = _write(tmp_path)
    p.chmod(0)
    try:
        with pytest.raises(SourceError, match="permission denied"):
            open_source(p)
    finally:
        p.chmod(stat.S_IRUSR | stat.S_IWUSR)


def _sparse(tmp_path: pathlib.Path, size: int = 5 * 1024**3) -> pathlib.Path:
    p = tmp_path / "huge.mp4"
    with open(p, "wb") as f:
        f.truncate(size)
    return p


def test_oversize_path_refused_before_opening(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = _sparse(tmp_path)
    opened: list[str] = []
    real_open = os.open

    def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    with pytest.raises(SourceTooLarge) as info:
        open_source(p, max_bytes=GEMINI.MAX_URI_FILE_BYTES)
    assert str(p) not in opened
    exc = info.value
    assert (exc.size, exc.max_bytes, exc.name) == (5 * 1024**3, GEMINI.MAX_URI_FILE_BYTES, str(p))
    assert isinstance(exc, SourceError) and isinstance(exc, OSError)
    problem = exc.problem(("input", 0, "data"), "data.too_large")
    assert (problem.code, problem.json_path) == ("data.too_large", "$.input[0].data")
    assert str(GEMINI.MAX_URI_FILE_BYTES) in problem.message


def test_oversize_file_object_refused_without_reading(tmp_path: pathlib.Path) -> None:
    with open(_sparse(tmp_path), "rb") as raw:
        counting = Counting(raw)
        with pytest.raises(SourceTooLarge):
            open_source(counting, max_bytes=1000)
        assert counting.reads == 0
        assert raw.tell() == 0
        with pytest.raises(SourceTooLarge):
            open_source(raw, max_bytes=1000)  # has fileno(): the fstat route
        assert raw.tell() == 0


def test_oversize_bytes_refused() -> None:
    with pytest.raises(SourceTooLarge) as info:
        open_source(bytearray(11), max_bytes=10)
    assert info.value.size == 11


def test_endless_stream_spool_stops_just_past_the_cap() -> None:
    endless = Endless()
    with pytest.raises(SourceTooLarge) as info:
        run_bounded(lambda: open_source(endless, max_bytes=1_000_000), seconds=5.0)
    assert info.value.size is None
    assert "more than 1000000 bytes" in str(info.value)
    assert endless.consumed == 1_000_001


def test_pipe_is_spooled(tmp_path: pathlib.Path) -> None:
    closing: list[Any] = []
    reader, expected = _pipe(tmp_path, closing)
    try:
        with open_source(reader, max_bytes=len(expected)) as opened:
            assert opened.size == len(expected)
            assert opened.stream.seekable()
            assert b"".join(opened.iter_chunks(3)) == expected
            assert opened.head(8) == expected[:8]
        assert not reader.closed
    finally:
        _close_all(closing)


def test_text_mode_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(SourceError, match="text mode"):
        open_source(io.StringIO("hello"))  # type: ignore[arg-type]
    with open(_write(tmp_path), encoding="latin-1") as f, pytest.raises(SourceError, match="text"):
        open_source(f)  # type: ignore[arg-type]


def test_device_file_object_is_refused() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with open("/dev/zero", "rb") as f, pytest.raises(SourceError, match="character device"):
        run_bounded(lambda: open_source(f), seconds=3.0)


def test_non_blocking_stream_without_data_is_an_error() -> None:
    class Empty(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> None:  # type: ignore[override]
            return None

    with pytest.raises(SourceError, match="non-blocking"):
        open_source(Empty())


# --- chunked base64 -------------------------------------------------------------------------


@pytest.mark.parametrize("size", range(11))
@pytest.mark.parametrize("chunk", [3, 6, 9])
def test_chunked_base64_equals_one_shot_small(size: int, chunk: int) -> None:
    data = bytes(range(size))
    with open_source(data) as opened:
        assert opened.base64_length == len(base64.b64encode(data))
        assert b"".join(opened.iter_base64(chunk)) == base64.b64encode(data)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=4000), chunk=st.integers(1, 400).map(lambda n: 3 * n))
def test_chunked_base64_equals_one_shot(data: bytes, chunk: int) -> None:
    for src in (data, io.BytesIO(data), Unseekable(data, step=13)):
        with open_source(src) as opened:
            encoded = b"".join(opened.iter_base64(chunk))
            assert encoded == base64.b64encode(data)
            assert len(encoded) == opened.base64_length


# --- check_base64 ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", BASE64_VALID, ids=lambda t: f"len{len(t)}")
@pytest.mark.parametrize("head_bytes", [0, 1, 2, 3, 5, 10**6])
def test_valid_base64(text: str, head_bytes: int) -> None:
    problems, head = check_base64(text, ("input", 0, "data"), head_bytes=head_bytes)
    decoded = base64.b64decode(text)
    assert problems == []
    assert head == decoded[:head_bytes]
    assert base64_decoded_length(text) == len(decoded)


@pytest.mark.parametrize(("text", "offset"), BASE64_INVALID.values(), ids=BASE64_INVALID.keys())
def test_invalid_base64(text: str, offset: int) -> None:
    problems, head = check_base64(text, ("input", 0, "data"), head_bytes=16)
    assert [(p.code, p.json_path) for p in problems] == [("data.base64", "$.input[0].data")]
    assert f"offset {offset}" in problems[0].message
    assert head == b""


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=600), head_bytes=st.integers(0, 700))
def test_base64_round_trip(data: bytes, head_bytes: int) -> None:
    text = base64.b64encode(data).decode()
    problems, head = check_base64(text, (), head_bytes=head_bytes)
    assert problems == []
    assert head == data[:head_bytes]
    assert base64_decoded_length(text) == len(data)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="strict_mode is new in Python 3.11")
@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="QUJDab+/=\n -_", max_size=16))
@example(text="DDDD=")
@example(text="DDDD====")
@example(text="QUJD\n")
def test_base64_is_at_least_as_strict_as_binascii_strict_mode(text: str) -> None:
    # One-way: CPython's strict mode accepts whole groups followed by stray padding
    # ("DDDD=", "DDDD===="), which padded base64 (RFC 4648) does not allow, and non-zero
    # unused bits before the padding ("DD=="), which canonical base64 does not allow.
    problems, head = check_base64(text, (), head_bytes=64)
    try:
        decoded = binascii.a2b_base64(text, strict_mode=True)  # type: ignore[call-arg, unused-ignore]
    except binascii.Error:
        assert [p.code for p in problems] == ["data.base64"]
        return
    if not problems:
        assert head == decoded
        assert base64_decoded_length(text) == len(decoded)
    else:  # only stray padding or unused bits that are not zero separate the verdicts
        stripped = text.rstrip("=")
        assert stripped != text
        assert len(stripped) % 4 == 0 or "unused bits" in problems[0].message


@pytest.mark.parametrize("text", ["DDDD=", "DDDD==", "DDDD===="])
def test_stray_padding_after_whole_groups_is_refused(text: str) -> None:
    problems, _ = check_base64(text, (), head_bytes=4)
    assert [p.code for p in problems] == ["data.base64"]


# --- URI rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(("uri", "mime", "expected"), URI_CASES.values(), ids=URI_CASES.keys())
def test_uri_rules(uri: str, mime: str | None, expected: list[tuple[str, Severity]]) -> None:
    problems = list(iter_uri_problems(uri, PATH, mime_type=mime, limits=GEMINI))
    assert _codes(problems) == expected
    for p in problems:
        assert p.path == PATH
        assert p.code in RULES
        assert RULES[p.code].severity is p.severity
        assert p.message and "\n" not in p.message


def test_uri_case_table_is_large() -> None:
    assert len(URI_CASES) >= 40
    youtube_hosts = {
        h
        for _, (u, _m, _e) in URI_CASES.items()
        for h in GEMINI.YOUTUBE_HOSTS
        if f"//{h}" in u.lower() or f"@{h}" in u.lower()
    }
    assert youtube_hosts == set(GEMINI.YOUTUBE_HOSTS)


@pytest.mark.parametrize(
    ("uri", "facts"),
    [
        ("http://example.com/a.png", ["https", "'http'"]),
        ("https://2130706433/a", ["loopback"]),
        ("https://[::ffff:10.0.0.1]/a", ["10.0.0.1", "private"]),
        ("https://100.64.0.1/a", ["shared"]),
        ("https://example.com/a.png", [".png", "image/png", "image/jpeg"]),
        ("https://example.com/a b", ["whitespace", "offset 21"]),
        ("https://www.youtube.com/x", ["YouTube"]),
    ],
    ids=["scheme", "decimal-loopback", "mapped-private", "shared", "extension", "space", "yt"],
)
def test_uri_messages_name_key_facts(uri: str, facts: list[str]) -> None:
    text = " ".join(_messages(uri))
    for fact in facts:
        assert fact in text


@pytest.mark.parametrize("uri", CREDENTIAL_URIS.values(), ids=CREDENTIAL_URIS.keys())
def test_credentials_are_never_echoed(uri: str) -> None:
    for text in [*_messages(uri), redact_uri(uri)]:
        assert SECRET not in text
        assert USER not in text


def test_credentials_reported_with_masked_url() -> None:
    problems = list(
        iter_uri_problems(CREDENTIAL_URIS["user-password"], PATH, mime_type=None, limits=GEMINI)
    )
    assert [(p.code, p.json_path) for p in problems] == [("uri.credentials", "$.input[2].uri")]
    assert "https://***@example.com/a.png" in problems[0].message


@pytest.mark.parametrize(
    ("uri", "redacted"),
    [
        ("https://example.com/a.png", "https://example.com/a.png"),
        ("https://u:p@example.com:8443/a.png", "https://***@example.com:8443/a.png"),
        ("https://example.com/a?sig=abc&exp=1&flag", "https://example.com/a?sig=***&exp=***&***"),
        ("https://example.com/a#frag", "https://example.com/a#***"),
        ("files/abc", "files/abc"),
    ],
    ids=["plain", "userinfo", "query", "fragment", "no-scheme"],
)
def test_redact_uri(uri: str, redacted: str) -> None:
    assert redact_uri(uri) == redacted


@settings(max_examples=200, deadline=None)
@given(
    user=st.text(alphabet="abcdefXYZ019-._~!$", min_size=1, max_size=12),
    password=st.text(alphabet="abcdefXYZ019-._~!$:/@%", min_size=1, max_size=12),
    host=st.sampled_from(["example.com", "youtube.com", "10.0.0.1", "[::1]", "localhost:8443"]),
)
def test_credentials_never_echoed_property(user: str, password: str, host: str) -> None:
    marked_user, marked_password = f"QQuser{user}", f"QQpass{password}"
    uri = f"https://{marked_user}:{marked_password}@{host}/a.png"
    for text in [*_messages(uri), redact_uri(uri)]:
        assert marked_user not in text
        assert marked_password not in text


@settings(max_examples=300, deadline=None)
@given(uri=st.one_of(st.text(max_size=40), st.text(max_size=30).map(lambda t: "https://" + t)))
def test_uri_rules_never_raise(uri: str) -> None:
    for p in iter_uri_problems(uri, PATH, mime_type="image/png", limits=GEMINI):
        assert p.code in RULES
    redact_uri(uri)


def test_non_string_uri_is_syntax() -> None:
    problems = list(iter_uri_problems(None, PATH, mime_type=None, limits=GEMINI))  # type: ignore[arg-type]
    assert _codes(problems) == [("uri.syntax", E)]


# --- remote check against a local https server ----------------------------------------------

SMALL = PAYLOAD
REAL_PNG = (
    pathlib.Path(__file__).parent.parent / "testdata" / "media" / "png_pillow.png"
).read_bytes()
HUGE_TOTAL = 20_000_000
IGNORED_RANGE_TOTAL = 50_000_000


@dataclass
class ServerState:
    port: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    written: dict[str, int] = field(default_factory=dict)


class Handler(http.server.BaseHTTPRequestHandler):
    timeout = 5
    server: TLSServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802
        state = self.server.state
        state.requests.append((self.path, self.headers.get("Range")))
        route = self.path.partition("?")[0]
        if route.startswith("/r/"):
            n = int(route[3:])
            if n > 0:
                return self._redirect(f"/r/{n - 1}")
            return self._ranged(SMALL)
        handler = ROUTES.get(route)
        if handler is None:
            return self._status(404)
        handler(self)

    def _status(self, code: int) -> None:
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _redirect(self, location: str | None, code: int = 302) -> None:
        self.send_response(code)
        if location is not None:
            self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _ranged(self, data: bytes, total: str | None = None, ctype: str = "image/png") -> None:
        match = re.fullmatch(r"bytes=0-(\d+)", self.headers.get("Range") or "")
        if not data and match:
            self.send_response(416)
            self.send_header("Content-Range", "bytes */0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        end = min(len(data), int(match.group(1)) + 1) if match else len(data)
        self.send_response(206 if match else 200)
        if match:
            self.send_header("Content-Range", f"bytes 0-{end - 1}/{total or len(data)}")
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(end))
        self.end_headers()
        self.wfile.write(data[:end])

    def _stream(self, total: int, pause: float = 0.0, piece: int = 64 * 1024) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "video/mp4")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        written = 0
        try:
            while written < total and not self.server.state.stop.is_set():
                n = min(piece, total - written)
                self.wfile.write(b"\0" * n)
                written += n
                if pause:
                    time.sleep(pause)
        except OSError:
            pass
        self.server.state.written[self.path] = written


ROUTES: dict[str, Callable[[Handler], None]] = {
    "/small.png": lambda h: h._ranged(SMALL),
    "/real.png": lambda h: h._ranged(REAL_PNG),
    "/empty.png": lambda h: h._ranged(b""),
    "/huge.mp4": lambda h: h._ranged(bytes(70_000), total=str(HUGE_TOTAL), ctype="video/mp4"),
    "/unknown-total.png": lambda h: h._ranged(SMALL, total="*"),
    "/missing.png": lambda h: h._status(404),
    "/gone.png": lambda h: h._status(410),
    "/forbidden.png": lambda h: h._status(403),
    "/broken.png": lambda h: h._status(500),
    "/to-http": lambda h: h._redirect(f"http://127.0.0.1:{h.server.state.port}/small.png"),
    "/to-localhost": lambda h: h._redirect(f"https://localhost:{h.server.state.port}/small.png"),
    "/to-private": lambda h: h._redirect("https://10.0.0.1/small.png", code=301),
    "/to-youtube": lambda h: h._redirect("https://www.youtube.com/watch?v=1", code=307),
    "/to-secret": lambda h: h._redirect(f"http://{USER}:{SECRET}@example.com/", code=308),
    "/no-location": lambda h: h._redirect(None),
    "/ignores-range.mp4": lambda h: h._stream(IGNORED_RANGE_TOTAL),
    "/trickle.mp4": lambda h: h._stream(10_000, pause=0.1, piece=100),
    "/stall.png": lambda h: h.server.state.stop.wait(10) and None,
    "/hang-up.png": lambda h: None,  # no response at all: the connection just closes
}


class TLSServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, context: ssl.SSLContext, state: ServerState) -> None:
        self.tls = context
        self.state = state
        super().__init__(("127.0.0.1", 0), Handler)
        state.port = self.server_address[1]

    def finish_request(self, request: Any, client_address: Any) -> None:
        request.settimeout(5)
        try:
            tls = self.tls.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError):
            return
        try:
            self.RequestHandlerClass(tls, client_address, self)
        except OSError:
            pass
        finally:
            tls.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@dataclass
class Remote:
    state: ServerState
    trusting: ssl.SSLContext
    connections: list[tuple[str, int]]

    def url(self, route: str) -> str:
        return f"https://127.0.0.1:{self.state.port}{route}"

    def problems(self, route: str, **kwargs: Any) -> list[Problem]:
        kwargs.setdefault("ssl_context", self.trusting)
        kwargs.setdefault("allow_hosts", {"127.0.0.1"})
        kwargs.setdefault("mime_type", "image/png")
        return list(iter_remote_problems(self.url(route), PATH, limits=GEMINI, **kwargs))


@pytest.fixture(scope="module")
def https_server() -> Iterator[tuple[ServerState, ssl.SSLContext]]:
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(server_context)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    state = ServerState()
    server = TLSServer(server_context, state)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield state, client_context
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def remote(
    https_server: tuple[ServerState, ssl.SSLContext], monkeypatch: pytest.MonkeyPatch
) -> Remote:
    """The local server, with a guard that refuses any connection to another address."""
    state, context = https_server
    connections: list[tuple[str, int]] = []
    real = socket.create_connection

    def guarded(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        connections.append(address)
        if address[0] != "127.0.0.1":
            raise ConnectionRefusedError(f"test guard: no connections to {address[0]}")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", guarded)
    return Remote(state, context, connections)


# id -> (route, fetch options, expected [(code, message fact)])
REMOTE_CASES: dict[str, tuple[str, dict[str, Any], list[tuple[str, str]]]] = {
    "small-ok": ("/small.png", {}, []),
    "empty-file-416": ("/empty.png", {}, []),
    "size-from-content-range": (
        "/huge.mp4",
        {"mime_type": "video/mp4"},
        [("uri.too_large", str(HUGE_TOTAL))],
    ),
    "unknown-total-says-nothing": ("/unknown-total.png", {}, []),
    "not-found": ("/missing.png", {}, [("uri.not_found", "404")]),
    "gone": ("/gone.png", {}, [("uri.not_found", "410")]),
    "forbidden": ("/forbidden.png", {}, [("uri.unreachable", "403")]),
    "server-error": ("/broken.png", {}, [("uri.unreachable", "500")]),
    "redirects-within-limit": (f"/r/{GEMINI.MAX_REDIRECTS}", {}, []),
    "too-many-redirects": (
        f"/r/{GEMINI.MAX_REDIRECTS + 1}",
        {},
        [("uri.redirect", str(GEMINI.MAX_REDIRECTS))],
    ),
    "redirect-to-http": ("/to-http", {}, [("uri.redirect", "http")]),
    "redirect-to-localhost": ("/to-localhost", {}, [("uri.redirect", "localhost")]),
    "redirect-to-private": ("/to-private", {}, [("uri.redirect", "private")]),
    "redirect-to-youtube": ("/to-youtube", {}, [("uri.redirect", "YouTube")]),
    "redirect-without-location": ("/no-location", {}, [("uri.unreachable", "Location")]),
    "ignores-range-big-body": (
        "/ignores-range.mp4",
        {"mime_type": "video/mp4"},
        [("uri.too_large", str(IGNORED_RANGE_TOTAL))],
    ),
    "hang-up": ("/hang-up.png", {}, [("uri.unreachable", "HTTP")]),
    "stall": ("/stall.png", {"timeout": 0.4}, [("uri.unreachable", "within 0.4 s")]),
    "trickle": ("/trickle.mp4", {"timeout": 0.5}, [("uri.unreachable", "within 0.5 s")]),
}


@pytest.mark.parametrize(
    ("route", "options", "expected"), REMOTE_CASES.values(), ids=REMOTE_CASES.keys()
)
def test_remote_check(
    remote: Remote, route: str, options: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    started = time.monotonic()
    problems = remote.problems(route, **options)
    assert time.monotonic() - started < 3.0
    assert [(p.code, p.json_path) for p in problems] == [(c, "$.input[2].uri") for c, _ in expected]
    for problem, (_, fact) in zip(problems, expected, strict=True):
        assert fact in problem.message
        assert "Traceback" not in problem.message
    assert all(host == "127.0.0.1" for host, _ in remote.connections)


def test_fetch_head_details(remote: Remote) -> None:
    head = fetch_head(
        remote.url("/r/2"), limits=GEMINI, ssl_context=remote.trusting, allow_hosts={"127.0.0.1"}
    )
    assert head.final_uri == remote.url("/r/0")
    assert (head.status, head.size, head.head, head.content_type) == (
        206,
        len(SMALL),
        SMALL,
        "image/png",
    )
    assert remote.state.requests[-1] == ("/r/0", f"bytes=0-{GEMINI.SNIFF_BYTES - 1}")


def test_bounded_read_when_server_ignores_range(remote: Remote) -> None:
    head = fetch_head(
        remote.url("/ignores-range.mp4"),
        limits=GEMINI,
        ssl_context=remote.trusting,
        allow_hosts={"127.0.0.1"},
        max_bytes=1000,
    )
    assert (head.status, head.size, len(head.head)) == (200, IGNORED_RANGE_TOTAL, 1000)
    deadline = time.monotonic() + 3
    while "/ignores-range.mp4" not in remote.state.written and time.monotonic() < deadline:
        time.sleep(0.02)
    assert remote.state.written["/ignores-range.mp4"] < IGNORED_RANGE_TOTAL


def test_sniff_head_gets_the_head_and_declared_type(remote: Remote) -> None:
    seen: list[tuple[bytes, str | None]] = []

    def sniff_head(head: bytes, declared: str | None) -> Iterator[Problem]:
        seen.append((head, declared))
        yield Problem(PATH, "mime.mismatch", "expected image/jpeg, found image/png")

    problems = remote.problems("/small.png", mime_type="image/jpeg", sniff_head=sniff_head)
    assert seen == [(SMALL, "image/jpeg")]
    assert [p.code for p in problems] == ["mime.mismatch"]


def test_redirect_messages_hide_credentials(remote: Remote) -> None:
    problems = remote.problems("/to-secret")
    assert [p.code for p in problems] == ["uri.redirect"]
    assert SECRET not in problems[0].message and USER not in problems[0].message


def test_untrusted_certificate_is_unreachable(remote: Remote) -> None:
    problems = remote.problems("/small.png", ssl_context=ssl.create_default_context())
    assert [p.code for p in problems] == ["uri.unreachable"]
    assert "certificate" in problems[0].message


def test_refused_connection_is_unreachable(remote: Remote) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    uri = f"https://127.0.0.1:{port}/a.png"
    problems = list(
        iter_remote_problems(
            uri,
            PATH,
            mime_type=None,
            limits=GEMINI,
            ssl_context=remote.trusting,
            allow_hosts={"127.0.0.1"},
        )
    )
    assert [p.code for p in problems] == ["uri.unreachable"]
    assert "refused" in problems[0].message


def test_local_host_refused_without_the_escape_hatch(remote: Remote) -> None:
    with pytest.raises(RemoteError) as info:
        fetch_head(remote.url("/small.png"), limits=GEMINI, ssl_context=remote.trusting)
    assert info.value.code == "uri.unreachable_host"
    assert isinstance(info.value, SourceError)
    assert remote.problems("/small.png", allow_hosts=()) == []  # static error: not fetched
    assert remote.connections == []


@pytest.mark.parametrize(
    ("uri", "code"),
    [("https://[::1/a", "uri.syntax"), ("gs://b/o", "uri.gcs"), ("https://10.0.0.1/", None)],
    ids=["broken", "gcs", "private-not-allowed"],
)
def test_fetch_head_refuses_before_connecting(remote: Remote, uri: str, code: str | None) -> None:
    with pytest.raises(RemoteError) as info:
        fetch_head(uri, limits=GEMINI, allow_hosts={"127.0.0.1"}, ssl_context=remote.trusting)
    assert info.value.code == (code or "uri.unreachable_host")
    assert remote.connections == []


def test_static_errors_are_not_fetched(remote: Remote) -> None:
    before = len(remote.state.requests)
    uri = f"http://127.0.0.1:{remote.state.port}/small.png"
    assert (
        list(
            iter_remote_problems(
                uri, PATH, mime_type=None, limits=GEMINI, allow_hosts={"127.0.0.1"}
            )
        )
        == []
    )
    assert len(remote.state.requests) == before
    assert remote.connections == []


def test_opened_is_exported_type() -> None:
    with open_source(b"") as opened:
        assert isinstance(opened, Opened)
        assert opened.size == 0 and opened.head(5) == b"" and list(opened.iter_chunks()) == []


# The same check through the block builders: di.image(uri=..., verify=RemoteCheck(...)).
VERIFY_CASES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "real-png": ("/real.png", "image/png", []),
    "declared-jpeg": (
        "/real.png",
        "image/jpeg",
        [("uri.extension", "$.uri"), ("mime.mismatch", "$.mime_type")],
    ),
    "not-a-png": ("/small.png", "image/png", [("media.corrupt", "$.uri")]),
    "missing": ("/missing.png", "image/png", [("uri.not_found", "$.uri")]),
}


@pytest.mark.parametrize(
    ("route", "mime", "expected"), VERIFY_CASES.values(), ids=VERIFY_CASES.keys()
)
def test_builder_verify(
    remote: Remote, route: str, mime: str, expected: list[tuple[str, str]]
) -> None:
    import decisions_input as di
    from decisions_input.sources import RemoteCheck

    check = RemoteCheck(
        timeout=3.0, ssl_context=remote.trusting, allow_hosts=frozenset({"127.0.0.1"})
    )
    if not expected:
        block = di.image(uri=remote.url(route), mime_type=mime, verify=check)
        assert (block.uri, block.mime_type) == (remote.url(route), mime)
        return
    with pytest.raises(di.InvalidInput) as info:
        di.image(uri=remote.url(route), mime_type=mime, verify=check)
    assert [(p.code, p.json_path) for p in info.value.problems] == expected


def test_builder_does_not_fetch_without_verify(remote: Remote) -> None:
    import decisions_input as di

    di.image(uri="https://example.com/missing.png", mime_type="image/png")
    assert remote.connections == []


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("/9k=", True),
        ("/9l=", False),
        ("QQ==", True),
        ("QR==", False),
        ("QUI=", True),
        ("QUJ=", False),
    ],
    ids=[
        "canonical-1",
        "dirty-bits-1",
        "canonical-2",
        "dirty-bits-2",
        "canonical-3",
        "dirty-bits-3",
    ],
)
def test_base64_unused_bits_must_be_zero(text: str, ok: bool) -> None:
    problems, _ = check_base64(text, ("data",), head_bytes=0)
    assert [p.code for p in problems] == ([] if ok else ["data.base64"])
