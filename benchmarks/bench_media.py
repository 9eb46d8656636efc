"""Benchmark streaming a large file into a request, and sniffing time per format family.

    python benchmarks/bench_media.py [--mb 100] [--only-sniff]

1. A file of N MB (random bytes behind a real WAVE header, so it sniffs as audio/wav)
   becomes an audio block, and ``Request.dump`` writes the request JSON to disk. Its
   throughput is compared with coreutils ``base64 -w0`` of the same file in the same run,
   and the peak resident memory of the child process doing the dump is reported next to
   the peak of a child that only starts the interpreter and imports the package.
2. The same request sent with ``Request.http`` and ``http.client`` to a server in the child
   process on 127.0.0.1 that reads and drops the body: time and peak resident memory of
   the child (the body streams; it is never held whole).
3. ``sniff`` on a 1 MB file and on a 1 GB sparse file with the same header: the time must
   not grow with the size.
3. ``sniff`` per format family, on a short fixture and a long file of the family
   (``tests/long_media.py``: repeated structure, or sparse files of a gigabyte), against
   libmagic (``magic.from_file``) on the same file: the median time of each, and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.long_media import LONG, MEDIA, Sparse  # noqa: E402

CHILD_DUMP = """
import resource, sys, time
import decisions_input as di
src, out = sys.argv[1], sys.argv[2]
start = time.perf_counter()
# A 100 MB file is over the API's inline limit once encoded; lift it for the benchmark.
roomy = di.GEMINI.derive(MAX_INLINE_TOTAL_BYTES=10**9)
req = di.Request(model="gemini-decision-1", input=[di.text("Listen:"), di.audio(src, limits=roomy)],
                 questions={"q": di.noul("Is someone speaking?")}, limits=roomy)
with open(out, "wb") as fp:
    req.dump(fp)
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

CHILD_SEND = """
import http.client, http.server, resource, sys, threading, time
import decisions_input as di

class Drop(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        left = int(self.headers["Content-Length"])
        while left:
            left -= len(self.rfile.read(min(left, 1 << 16)))
        self.send_response(204)
        self.end_headers()
    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Drop)
threading.Thread(target=server.serve_forever, daemon=True).start()
roomy = di.GEMINI.derive(MAX_INLINE_TOTAL_BYTES=10**9)
block = di.audio(sys.argv[1], limits=roomy)
req = di.Request(model="gemini-decision-1", input=[di.text("Listen:"), block],
                 questions={"q": di.noul("Is someone speaking?")}, limits=roomy)
call = req.http(api_key="k", base_url=f"http://127.0.0.1:{server.server_address[1]}")
start = time.perf_counter()
conn = http.client.HTTPConnection(call.host)
conn.request(call.method, call.path, call.content, dict(call.headers))
assert conn.getresponse().status == 204
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

CHILD_BASELINE = """
import resource
import decisions_input
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def make_wav(path: Path, size: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\x00\x00" * 16)
    with open(path, "r+b") as fp:
        fp.seek(0, os.SEEK_END)
        remaining = size - fp.tell()
        block = os.urandom(1 << 20)
        while remaining > 0:
            fp.write(block[: min(remaining, len(block))])
            remaining -= len(block)


def time_base64(src: Path, out: Path) -> float:
    start = time.perf_counter()
    with open(out, "wb") as fp:
        subprocess.run(["base64", "-w0", str(src)], stdout=fp, check=True)
    return time.perf_counter() - start


def _median_ms(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _write(path: Path, data: bytes | Sparse) -> None:
    """Write a long file; a sparse one keeps its holes on disk."""
    with open(path, "wb") as fp:
        if isinstance(data, bytes):
            fp.write(data)
            return
        for at, part in data.parts:
            fp.seek(at)
            fp.write(part)
        fp.truncate(data.seek(0, os.SEEK_END))


def bench_families(runs: int = 30) -> None:
    """Sniffing time per family against libmagic, on short and long files.

    Both are given the file already open (``sniff_stream`` on the file object, libmagic's
    ``from_descriptor`` on its descriptor, each from the start), so the figures compare
    the reading and deciding, not the opening of paths.
    """
    import magic

    from decisions_input.sniffing import sniff_stream

    db = magic.Magic(mime=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in LONG:
            long_path = Path(tmp, entry.family.replace(" ", "_"))
            _write(long_path, entry.make())
            for label, path in (("short", MEDIA / entry.short), ("long", long_path)):
                size = path.stat().st_size
                with open(path, "rb") as fp:
                    fd = fp.fileno()

                    def ours(fp: Any = fp, size: int = size) -> object:
                        return sniff_stream(fp, size)

                    def theirs(fd: int = fd) -> object:
                        os.lseek(fd, 0, os.SEEK_SET)
                        return db.from_descriptor(fd)

                    ours()
                    rows.append(
                        (
                            entry.family,
                            label,
                            size,
                            _median_ms(ours, runs),
                            _median_ms(theirs, runs),
                        )
                    )
    print(
        f"{'family':15} {'file':6} {'bytes':>14} {'sniff':>9} {'libmagic':>9} {'ratio':>6}  target"
    )
    for family, label, size, mine, other in rows:
        target = "<= 2x" if family.startswith("PDF") else ""
        print(
            f"{family:15} {label:6} {size:>14,} {mine:8.3f}ms {other:8.3f}ms {mine / other:5.1f}x"
            f"  {target}"
        )
    print("every family: the long file's time near the short one's (no growth with the size)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100, help="file size in MB (default 100)")
    parser.add_argument("--only-sniff", action="store_true", help="only the sniffing figures")
    args = parser.parse_args()
    if args.only_sniff:
        bench_families()
        return
    size = args.mb * 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        src, out, ref = Path(tmp, "big.wav"), Path(tmp, "req.json"), Path(tmp, "ref.b64")
        make_wav(src, size)
        ours, rss = [], []
        theirs = []
        for _ in range(3):
            theirs.append(time_base64(src, ref))
            run = subprocess.run(
                [sys.executable, "-c", CHILD_DUMP, str(src), str(out)],
                capture_output=True,
                text=True,
                check=True,
            )
            elapsed, maxrss = run.stdout.split()
            ours.append(float(elapsed))
            rss.append(int(maxrss))
        base = int(
            subprocess.run(
                [sys.executable, "-c", CHILD_BASELINE], capture_output=True, text=True, check=True
            ).stdout
        )
        ours_s, theirs_s = statistics.median(ours), statistics.median(theirs)
        print(f"file: {size / 1e6:.0f} MB; request JSON: {out.stat().st_size / 1e6:.1f} MB")
        print(
            f"Request.dump: {ours_s:.3f} s ({size / ours_s / 1e6:.0f} MB/s); "
            f"coreutils base64: {theirs_s:.3f} s; throughput ratio {theirs_s / ours_s:.2f}"
        )
        print(
            f"peak RSS: dump {max(rss) / 1024:.1f} MB; interpreter + import {base / 1024:.1f} MB; "
            f"difference {(max(rss) - base) / 1024:.1f} MB"
        )

        sent, sent_rss = [], []
        for _ in range(3):
            run = subprocess.run(
                [sys.executable, "-c", CHILD_SEND, str(src)],
                capture_output=True,
                text=True,
                check=True,
            )
            elapsed, maxrss = run.stdout.split()
            sent.append(float(elapsed))
            sent_rss.append(int(maxrss))
        sent_s = statistics.median(sent)
        print(
            f"Request.http sent with http.client: {sent_s:.3f} s "
            f"({out.stat().st_size / sent_s / 1e6:.0f} MB/s of JSON); peak RSS "
            f"{max(sent_rss) / 1024:.1f} MB, "
            f"{(max(sent_rss) - base) / 1024:.1f} MB over the baseline"
        )

        import decisions_input as di

        small, sparse = Path(tmp, "small.wav"), Path(tmp, "sparse.wav")
        make_wav(small, 1_000_000)
        make_wav(sparse, 1 << 20)
        with open(sparse, "r+b") as fp:
            fp.truncate(1 << 30)
        for name, path in (("1 MB", small), ("1 GB sparse", sparse)):
            times = []
            for _ in range(20):
                start = time.perf_counter()
                detected = di.sniff(path)
                times.append(time.perf_counter() - start)
            print(f"sniff {name}: {statistics.median(times) * 1e3:.2f} ms -> {detected.mime}")
    print()
    bench_families()


if __name__ == "__main__":
    main()
