"""A recording HTTP server on 127.0.0.1 for the sending tests and the README recipes.

It keeps each request's method, path, header lines (repeats and all) and body bytes, reading
a chunked body too, so a test can tell exactly what a client put on the wire. It answers
every POST with a fixed JSON reply. With ``tls=True`` it speaks https with a certificate
from a throw-away ``trustme`` CA, whose PEM file is ``Recorder.ca_file``.
"""

from __future__ import annotations

import http.server
import json
import ssl
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GEMINI_REPLY", "Received", "Recorder", "recording_server"]

# An answer for the README's request (noul, choice, score), shaped as the seeds show it.
GEMINI_REPLY: dict[str, Any] = {
    "answers": {
        "is_billing": {"type": "noul", "noul": 0.91, "confidence": 0.91},
        "department": {
            "type": "choice",
            "choice": "billing",
            "probabilities": {"billing": 0.8, "other": 0.05, "technical": 0.15},
            "confidence": 0.8,
        },
        "severity": {
            "type": "score",
            "score": 1.1,
            "probabilities": {"0": 0.2, "1": 0.5, "2": 0.3},
            "legend": {"0": "Cosmetic", "1": "Workaround exists", "2": "Blocked"},
            "confidence": 0.5,
        },
    },
    "usage": {"total_input_tokens": 600, "total_tokens": 600},
}


@dataclass(frozen=True)
class Received:
    """One request as it arrived."""

    method: str
    path: str
    header_lines: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> list[str]:
        """Every value sent under ``name`` (any case), in order."""
        return [v for k, v in self.header_lines if k.lower() == name.lower()]


@dataclass
class Recorder:
    """The server's address and what it received."""

    base_url: str = ""
    ca_file: str = ""
    reply: bytes = field(default_factory=lambda: json.dumps(GEMINI_REPLY).encode())
    received: list[Received] = field(default_factory=list)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorder: Recorder

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        body = self._read_chunked() if chunked else self.rfile.read(self._length())
        self.recorder.received.append(
            Received(self.command, self.path, tuple(self.headers.items()), body)
        )
        reply = self.recorder.reply
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def _length(self) -> int:
        return int(self.headers.get("Content-Length", "0"))

    def _read_chunked(self) -> bytes:
        parts = []
        while True:
            size = int(self.rfile.readline().split(b";")[0], 16)
            if size == 0:
                self.rfile.readline()
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextmanager
def recording_server(*, tls: bool = False) -> Iterator[Recorder]:
    """Run a recording server on 127.0.0.1 for the duration of the block."""
    recorder = Recorder()
    handler = type("Handler", (_Handler,), {"recorder": recorder})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with tempfile.TemporaryDirectory() as folder:
        scheme = "http"
        if tls:
            import trustme

            ca = trustme.CA()
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
            server.socket = context.wrap_socket(server.socket, server_side=True)
            recorder.ca_file = f"{folder}/ca.pem"
            ca.cert_pem.write_to_path(recorder.ca_file)
            scheme = "https"
        recorder.base_url = f"{scheme}://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        try:
            yield recorder
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
